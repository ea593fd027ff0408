# Exact line of sight between voxel centres on a padded voxel grid.
#
# ``free`` is the grid's padded array (``VoxelGrid.padded``): uint8 ``[nz + 2, ny + 2, nx + 2]``,
# C order, 1 where a voxel is free, a blocked border one voxel thick; voxel (x, y, z) is at flat
# index ``((z + 1) * (ny + 2) + (y + 1)) * (nx + 2) + (x + 1)``.  ``sy = nx + 2`` and
# ``sz = (nx + 2) * (ny + 2)`` are its strides.
#
# Voxel (x, y, z) is the closed unit cube [x, x + 1] x [y, y + 1] x [z, z + 1]; its centre is
# (x + 0.5, y + 0.5, z + 0.5).  The segment between two centres is *clear* when every voxel whose
# closed cube it touches is free: the voxels it passes through, and where it passes exactly
# through an edge (or a corner) all 4 (or 8) voxels around that edge (or corner).  This is the
# continuous form of the cube rule of the moves: between neighbours it is exactly that rule, and
# a clear segment touches no blocked voxel, not even at a face, edge or corner, so it keeps a
# positive distance from every obstacle and any clear shortcut can be flown.  It does not depend
# on the grid's connectivity.
#
# The walk is exact: with n = |b - a| along an axis, the segment crosses that axis's k-th voxel
# boundary (k = 1..n) at parameter (2k - 1) / (2n); crossings of two axes are ordered by
# comparing (2k_i - 1) * n_j with (2k_j - 1) * n_i in 64-bit integers (sides below 2**20), so
# ties (edges and corners) are found exactly.
from libc.stdint cimport int64_t, uint8_t


cdef inline bint voxel_sight(const uint8_t* free, Py_ssize_t sy, Py_ssize_t sz,
                             int ax, int ay, int az, int bx, int by, int bz) noexcept nogil:
    """Whether the segment between the centres of voxels a and b is clear (see above); false
    when a or b is blocked.  Both must lie inside the grid."""
    cdef int64_t n0 = bx - ax, n1 = by - ay, n2 = bz - az
    cdef Py_ssize_t s0 = 1, s1 = sy, s2 = sz
    cdef Py_ssize_t p = ((az + 1) * sz + (ay + 1) * sy + ax + 1)
    cdef int64_t e0 = 1, e1 = 1, e2 = 1          # 2k - 1 of each axis's next crossing
    cdef int64_t m0, m1, m2                      # 2n: crossings left while e < 2n
    cdef int64_t best_e, best_n, c
    cdef int mask
    if n0 < 0:
        n0 = -n0
        s0 = -1
    if n1 < 0:
        n1 = -n1
        s1 = -sy
    if n2 < 0:
        n2 = -n2
        s2 = -sz
    m0 = 2 * n0
    m1 = 2 * n1
    m2 = 2 * n2
    if not free[p]:
        return False
    while True:
        # The axes whose next crossing comes first (bit 0: x, 1: y, 2: z).
        mask = 0
        best_e = 0
        best_n = 1
        if e0 < m0:
            mask = 1
            best_e = e0
            best_n = n0
        if e1 < m1:
            if mask == 0:
                mask = 2
                best_e = e1
                best_n = n1
            else:
                c = e1 * best_n - best_e * n1
                if c < 0:
                    mask = 2
                    best_e = e1
                    best_n = n1
                elif c == 0:
                    mask |= 2
        if e2 < m2:
            if mask == 0:
                mask = 4
            else:
                c = e2 * best_n - best_e * n2
                if c < 0:
                    mask = 4
                elif c == 0:
                    mask |= 4
        if mask == 0:
            return True
        if mask == 1:
            p += s0
            e0 += 2
        elif mask == 2:
            p += s1
            e1 += 2
        elif mask == 4:
            p += s2
            e2 += 2
        elif mask == 3:
            if not free[p + s0] or not free[p + s1]:
                return False
            p += s0 + s1
            e0 += 2
            e1 += 2
        elif mask == 5:
            if not free[p + s0] or not free[p + s2]:
                return False
            p += s0 + s2
            e0 += 2
            e2 += 2
        elif mask == 6:
            if not free[p + s1] or not free[p + s2]:
                return False
            p += s1 + s2
            e1 += 2
            e2 += 2
        else:
            if (not free[p + s0] or not free[p + s1] or not free[p + s2]
                    or not free[p + s0 + s1] or not free[p + s0 + s2]
                    or not free[p + s1 + s2]):
                return False
            p += s0 + s1 + s2
            e0 += 2
            e1 += 2
            e2 += 2
        if not free[p]:
            return False
