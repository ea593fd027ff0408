# Whole-grid operations on a voxel grid's padded array (``VoxelGrid.padded``: uint8
# ``[nz + 2, ny + 2, nx + 2]``, 1 = free, blocked border): batched line of sight and connected
# components.
from libc.stdint cimport int32_t, int64_t, uint8_t

from ._voxel_sight cimport voxel_sight

import numpy as np


def lines_of_sight(const uint8_t[:, :, ::1] padded, const int64_t[:, ::1] a,
                   const int64_t[:, ::1] b, uint8_t[::1] out):
    """out[i] = 1 where the segment between the centres of cells a[i] and b[i] (rows
    ``(x, y, z)``, inside the grid) is clear (see ``_voxel_sight.pxd``), else 0."""
    cdef Py_ssize_t sy = padded.shape[2], sz = padded.shape[1] * padded.shape[2]
    cdef Py_ssize_t i, m = a.shape[0]
    cdef const uint8_t* free = &padded[0, 0, 0]
    with nogil:
        for i in range(m):
            out[i] = voxel_sight(free, sy, sz, <int> a[i, 0], <int> a[i, 1], <int> a[i, 2],
                                 <int> b[i, 0], <int> b[i, 1], <int> b[i, 2])


cdef inline int32_t find(int32_t* par, int32_t i) noexcept nogil:
    while par[i] != i:
        par[i] = par[par[i]]
        i = par[i]
    return i


cdef inline void join(int32_t* par, int32_t i, int32_t j) noexcept nogil:
    cdef int32_t ri = find(par, i), rj = find(par, j)
    if ri < rj:
        par[rj] = ri
    elif rj < ri:
        par[ri] = rj


def components(const uint8_t[:, :, ::1] padded, int32_t[:, :, ::1] out):
    """Label the free voxels by their face-connected components into ``out`` (int32
    ``[nz, ny, nx]``, C order, fewer than 2**31 voxels): components numbered from 0 in the
    order of their first voxel in C order, -1 on blocked voxels.  Returns the count."""
    cdef Py_ssize_t nz = out.shape[0], ny = out.shape[1], nx = out.shape[2]
    cdef Py_ssize_t x, y, z
    cdef int32_t i, r, count = 0, n = <int32_t> (nx * ny * nz)
    cdef int32_t* par = &out[0, 0, 0]
    with nogil:
        # Union-find whose roots are the smallest flat index of their set (par[i] <= i).
        i = 0
        for z in range(nz):
            for y in range(ny):
                for x in range(nx):
                    if padded[z + 1, y + 1, x + 1]:
                        par[i] = i
                        if padded[z + 1, y + 1, x]:
                            join(par, i, i - 1)
                        if padded[z + 1, y, x + 1]:
                            join(par, i, i - <int32_t> nx)
                        if padded[z, y + 1, x + 1]:
                            join(par, i, i - <int32_t> (nx * ny))
                    else:
                        par[i] = -1
                    i += 1
        # In increasing order a root comes before its members: give roots the next label,
        # stored as -(label + 2) so that members can still tell it from an index.
        for i in range(n):
            r = par[i]
            if r < 0:
                continue
            if r == i:
                par[i] = -(count + 2)
                count += 1
            else:
                par[i] = par[r]
        for i in range(n):
            if par[i] < -1:
                par[i] = -par[i] - 2
    return count

