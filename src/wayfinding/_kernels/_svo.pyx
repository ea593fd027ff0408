# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Sparse voxel octree kernels: leaf masks and neighbour links of the build, point location,
A* over octree nodes with refinement to voxel moves, and line-of-sight shortcuts.

Layout (see ``wayfinding.voxel.octree``): nodes of all layers in one set of arrays, layer 0
(leaves) first, each layer in Morton order; node ``start[l] + i`` is node ``i`` of layer ``l``.
A link packs ``layer << 28 | index << 6 | sub`` in 32 bits; ``LINK_NULL`` (all ones) is no
node, and in ``child`` ``LINK_SOLID`` marks a childless node that is all blocked.  A leaf's
mask has bit ``morton(x, y, z)`` (x in bit 0) set where its voxel ``(x, y, z)`` (0..3) is
blocked.  Voxel coordinates are ``(x, y, z)``; a node of layer ``l`` spans ``4 << l`` voxels.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport ceil, floor, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

from ._heap cimport Heap, heap_free, heap_init, lazy_pop, lazy_push
from ._voxel_sight cimport voxel_sight

cnp.import_array()

cdef uint32_t LINK_NULL = 0xFFFFFFFFu
cdef uint32_t LINK_SOLID = 0xFFFFFFFEu
cdef uint64_t FULL = 0xFFFFFFFFFFFFFFFFull
cdef uint8_t PENDING = 0x40


cdef inline uint64_t spread3(uint64_t v) noexcept nogil:
    v &= 0x1fffff
    v = (v | (v << 32)) & 0x1f00000000ffffull
    v = (v | (v << 16)) & 0x1f0000ff0000ffull
    v = (v | (v << 8)) & 0x100f00f00f00f00full
    v = (v | (v << 4)) & 0x10c30c30c30c30c3ull
    v = (v | (v << 2)) & 0x1249249249249249ull
    return v


cdef inline uint64_t compact3(uint64_t v) noexcept nogil:
    v &= 0x1249249249249249ull
    v = (v ^ (v >> 2)) & 0x10c30c30c30c30c3ull
    v = (v ^ (v >> 4)) & 0x100f00f00f00f00full
    v = (v ^ (v >> 8)) & 0x1f0000ff0000ffull
    v = (v ^ (v >> 16)) & 0x1f00000000ffffull
    v = (v ^ (v >> 32)) & 0x1fffffull
    return v


cdef inline uint64_t encode3(uint64_t x, uint64_t y, uint64_t z) noexcept nogil:
    return spread3(x) | (spread3(y) << 1) | (spread3(z) << 2)


cdef inline uint32_t make_link(int layer, Py_ssize_t index, int sub) noexcept nogil:
    return (<uint32_t> layer << 28) | (<uint32_t> index << 6) | <uint32_t> sub


def morton_encode3(const int64_t[:, ::1] cells, uint64_t[::1] out):
    """out[i] = the Morton code of cells[i] = (x, y, z) (x in bit 0; 21 bits per axis)."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(cells.shape[0]):
            out[i] = encode3(cells[i, 0], cells[i, 1], cells[i, 2])


def morton_decode3(const uint64_t[::1] codes, int64_t[:, ::1] out):
    """out[i] = the cell (x, y, z) of Morton code codes[i]."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(codes.shape[0]):
            out[i, 0] = compact3(codes[i])
            out[i, 1] = compact3(codes[i] >> 1)
            out[i, 2] = compact3(codes[i] >> 2)


def leaf_masks(const uint64_t[:, :, ::1] words, int nx, int ny, int nz,
               Py_ssize_t lz0, Py_ssize_t lz1, uint64_t[:, :, ::1] out):
    """Fill out[lz, ly, lx] for lz in [lz0, lz1) with the blocked-voxel mask of the leaf at
    leaf position (lx, ly, lz) (voxels 4 lx .. 4 lx + 3 ...), reading the grid's bit-packed
    ``words`` (bit set = blocked); voxels outside the nx x ny x nz grid count as blocked."""
    cdef Py_ssize_t lx, ly, lz, nlx = out.shape[2], nly = out.shape[1]
    cdef int vx, vy, vz, j, b
    cdef uint64_t m, nib, word
    cdef uint64_t spread[16]
    for j in range(16):
        m = 0
        for b in range(4):
            if (j >> b) & 1:
                m |= 1ull << spread3(b)
        spread[j] = m
    with nogil:
        for lz in range(lz0, lz1):
            for ly in range(nly):
                for lx in range(nlx):
                    m = 0
                    vx = <int> (4 * lx)
                    for j in range(16):
                        vy = <int> (4 * ly) + (j & 3)
                        vz = <int> (4 * lz) + (j >> 2)
                        if vy >= ny or vz >= nz or vx >= nx:
                            nib = 15
                        else:
                            word = words[vz, vy, vx >> 6]
                            nib = (word >> (vx & 63)) & 15
                            if vx + 4 > nx:
                                nib |= (15ull << (nx - vx)) & 15
                        m |= spread[nib] << (((j & 1) << 1) | ((j & 2) << 3)
                                             | ((j & 4) << 0) | ((j & 8) << 2))
                    out[lz, ly, lx] = m


def neighbour_links(const uint64_t[::1] codes, const int64_t[::1] parent_global,
                    uint32_t[:, ::1] neigh, int layer, int64_t side, Py_ssize_t start,
                    Py_ssize_t lo, Py_ssize_t hi):
    """Face-neighbour links of nodes lo..hi-1 of one layer (``codes`` its sorted Morton codes,
    ``side`` its nodes per axis, ``start`` its first global index): the same-layer node across
    each face if there is one, else the parent's link across that face (``parent_global`` the
    parent's global index, rows of ``neigh`` already filled), ``LINK_NULL`` outside the root.
    Faces in order -x, +x, -y, +y, -z, +z."""
    cdef Py_ssize_t i, n = codes.shape[0], a, b, mid
    cdef int d, axis
    cdef int64_t c[3]
    cdef int64_t v
    cdef uint64_t code, key
    with nogil:
        for i in range(lo, hi):
            code = codes[i]
            c[0] = compact3(code)
            c[1] = compact3(code >> 1)
            c[2] = compact3(code >> 2)
            for d in range(6):
                axis = d >> 1
                v = c[axis] + (1 if d & 1 else -1)
                if v < 0 or v >= side:
                    neigh[start + i, d] = LINK_NULL
                    continue
                key = (code & ~(spread3(0x1fffff) << axis)) | (spread3(<uint64_t> v) << axis)
                a = 0
                b = n
                while a < b:
                    mid = (a + b) >> 1
                    if codes[mid] < key:
                        a = mid + 1
                    else:
                        b = mid
                if a < n and codes[a] == key:
                    neigh[start + i, d] = make_link(layer, a, 0)
                elif parent_global[i] >= 0:
                    neigh[start + i, d] = neigh[parent_global[i], d]
                else:
                    neigh[start + i, d] = LINK_NULL


cdef int check_inside(const uint8_t[:, :, ::1] padded, const int64_t[:, ::1] cells) except -1:
    """Raise ValueError unless every cell lies inside the grid of ``padded``."""
    cdef Py_ssize_t i
    cdef int64_t nx = padded.shape[2] - 2, ny = padded.shape[1] - 2, nz = padded.shape[0] - 2
    if cells.shape[1] != 3:
        raise ValueError(f"cells must have 3 columns, got {cells.shape[1]}")
    for i in range(cells.shape[0]):
        if not (0 <= cells[i, 0] < nx and 0 <= cells[i, 1] < ny and 0 <= cells[i, 2] < nz):
            raise ValueError(f"cell {i} ({cells[i, 0]}, {cells[i, 1]}, {cells[i, 2]}) is "
                             f"outside the grid")
    return 0


cdef Py_ssize_t furthest_in_sight(const uint8_t* fr, Py_ssize_t sy, Py_ssize_t sz,
                                  const int64_t[:, ::1] cells, Py_ssize_t i) noexcept nogil:
    """A later point of the path ``cells`` in sight of point i (see ``_voxel_sight.pxd``),
    found by galloping: the steps 1, 2, 4... ahead while in sight, then a binary search
    between the last in sight and the first not; i + 1 at least (the next voxel of a path is
    always in sight)."""
    cdef Py_ssize_t n = cells.shape[0], good = i + 1, bad = n, step = 1, mid
    cdef int ax = <int> cells[i, 0], ay = <int> cells[i, 1], az = <int> cells[i, 2]
    while good + step < n:
        mid = good + step
        if voxel_sight(fr, sy, sz, ax, ay, az, <int> cells[mid, 0], <int> cells[mid, 1],
                       <int> cells[mid, 2]):
            good = mid
            step *= 2
        else:
            bad = mid
            break
    while bad - good > 1:
        mid = (good + bad) >> 1
        if voxel_sight(fr, sy, sz, ax, ay, az, <int> cells[mid, 0], <int> cells[mid, 1],
                       <int> cells[mid, 2]):
            good = mid
        else:
            bad = mid
    return good


def shortcut(const uint8_t[:, :, ::1] padded, const int64_t[:, ::1] cells):
    """Indices of the points kept by line-of-sight string pulling of ``cells`` (a path of
    voxels (x, y, z)): from each kept point, a later one in its sight found by galloping (see
    ``furthest_in_sight``).  Always keeps the first and last points; consecutive kept points
    see each other."""
    cdef Py_ssize_t sy = padded.shape[2], sz = padded.shape[1] * padded.shape[2]
    cdef Py_ssize_t n = cells.shape[0], i = 0, j, k = 0
    cdef const uint8_t* fr = &padded[0, 0, 0]
    check_inside(padded, cells)
    out = np.empty(max(n, 1), np.int64)
    cdef int64_t[::1] o = out
    if n == 0:
        return out[:0]
    with nogil:
        o[k] = 0
        k += 1
        while i < n - 1:
            j = furthest_in_sight(fr, sy, sz, cells, i)
            o[k] = j
            k += 1
            i = j
    return out[:k]


cdef inline int sub_index(int x, int y, int z) noexcept nogil:
    return (x & 1) | ((y & 1) << 1) | ((z & 1) << 2) | ((x & 2) << 2) | ((y & 2) << 3) \
        | ((z & 2) << 4)


cdef struct Point:
    double x, y, z


cdef class SvoQuery:
    """Search scratch over one octree (its arrays kept by reference, read only): node state
    for the tree nodes, sub-voxel state in blocks of 64 allocated per query for the leaves a
    search enters.  Not thread-safe: one per thread."""

    cdef const uint32_t[::1] child
    cdef const uint32_t[:, ::1] neigh
    cdef const uint64_t[::1] leaves
    cdef const int64_t[::1] start
    cdef const int32_t[:, ::1] lo
    cdef const uint8_t[::1] layer
    cdef readonly int num_layers
    cdef readonly Py_ssize_t num_nodes
    cdef Py_ssize_t num_leaves
    # per-id state (ids < num_nodes: tree nodes; then 64 per allocated leaf block)
    cdef double* g
    cdef int32_t* par
    cdef uint32_t* stamp
    cdef uint8_t* closed
    cdef int8_t* entry
    cdef Point* pt
    cdef Py_ssize_t capacity
    cdef int32_t* leaf_block
    cdef uint32_t* leaf_stamp
    cdef int32_t* block_leaf
    cdef Py_ssize_t nblocks
    cdef Py_ssize_t block_capacity
    cdef uint32_t generation
    cdef Heap heap
    # search parameters
    cdef double weight, unit, kg, kh
    cdef bint use_unit, face
    cdef Point goal_pt
    cdef int32_t goal_id
    cdef Py_ssize_t generated
    cdef int failed

    def __cinit__(self, const uint32_t[::1] child,
                  const uint32_t[:, ::1] neigh, const uint64_t[::1] leaves,
                  const int64_t[::1] start, const int32_t[:, ::1] lo, const uint8_t[::1] layer):
        self.child = child
        self.neigh = neigh
        self.leaves = leaves
        self.start = start
        self.lo = lo
        self.layer = layer
        self.num_layers = start.shape[0] - 1
        self.num_nodes = child.shape[0]
        self.num_leaves = leaves.shape[0]
        self.capacity = self.num_nodes + 64 * 64
        self.block_capacity = 64
        self.g = <double*> malloc(self.capacity * sizeof(double))
        self.par = <int32_t*> malloc(self.capacity * sizeof(int32_t))
        self.stamp = <uint32_t*> malloc(self.capacity * sizeof(uint32_t))
        self.closed = <uint8_t*> malloc(self.capacity * sizeof(uint8_t))
        self.entry = <int8_t*> malloc(self.capacity * sizeof(int8_t))
        self.pt = <Point*> malloc(self.capacity * sizeof(Point))
        self.leaf_block = <int32_t*> malloc(max(self.num_leaves, 1) * sizeof(int32_t))
        self.leaf_stamp = <uint32_t*> malloc(max(self.num_leaves, 1) * sizeof(uint32_t))
        self.block_leaf = <int32_t*> malloc(self.block_capacity * sizeof(int32_t))
        if (self.g == NULL or self.par == NULL or self.stamp == NULL or self.closed == NULL
                or self.entry == NULL or self.pt == NULL or self.leaf_block == NULL
                or self.leaf_stamp == NULL or self.block_leaf == NULL
                or heap_init(&self.heap, 1024) != 0):
            raise MemoryError("cannot allocate the octree search scratch")
        memset(self.stamp, 0, self.capacity * sizeof(uint32_t))
        memset(self.leaf_stamp, 0, max(self.num_leaves, 1) * sizeof(uint32_t))
        self.generation = 0

    def __dealloc__(self):
        free(self.g)
        free(self.par)
        free(self.stamp)
        free(self.closed)
        free(self.entry)
        free(self.pt)
        free(self.leaf_block)
        free(self.leaf_stamp)
        free(self.block_leaf)
        heap_free(&self.heap)

    @property
    def nbytes(self):
        """Bytes of scratch held."""
        return (self.capacity * (sizeof(double) + 4 + 4 + 1 + 1 + sizeof(Point))
                + 8 * self.num_leaves + 4 * self.block_capacity + 24 * self.heap.capacity)

    # ------------------------------------------------------------------ geometry
    cdef inline uint32_t locate_voxel(self, int x, int y, int z) noexcept nogil:
        """The link of the childless node or leaf sub-voxel holding voxel (x, y, z) (inside
        the root); ``LINK_NULL`` in an all-blocked childless node."""
        cdef int l = self.num_layers - 1
        cdef Py_ssize_t i = 0, g
        cdef uint32_t c
        cdef int sh
        while True:
            g = self.start[l] + i
            if l == 0:
                return make_link(0, i, sub_index(x & 3, y & 3, z & 3))
            c = self.child[g]
            if c == LINK_NULL:
                return make_link(l, i, 0)
            if c == LINK_SOLID:
                return LINK_NULL
            sh = l + 1       # a child of a layer-l node spans 2 << l voxels
            i = ((c >> 6) & 0x3FFFFF) + (((x >> sh) & 1) | (((y >> sh) & 1) << 1)
                                          | (((z >> sh) & 1) << 2))
            l -= 1

    def locate(self, const int64_t[:, ::1] cells, uint32_t[::1] out):
        """out[i] = the link of voxel cells[i] (inside the root; see ``locate_voxel``)."""
        cdef Py_ssize_t i
        with nogil:
            for i in range(cells.shape[0]):
                out[i] = self.locate_voxel(<int> cells[i, 0], <int> cells[i, 1],
                                           <int> cells[i, 2])

    cdef inline int32_t sub_id(self, Py_ssize_t leaf, int sub) noexcept nogil:
        """The search id of sub-voxel ``sub`` of leaf ``leaf``, allocating its block; -1 if
        memory ran out."""
        cdef Py_ssize_t b, cap
        cdef void* p
        if self.leaf_stamp[leaf] != self.generation:
            b = self.nblocks
            if b == self.block_capacity:
                cap = 2 * self.block_capacity
                p = realloc(self.block_leaf, cap * sizeof(int32_t))
                if p == NULL:
                    return -1
                self.block_leaf = <int32_t*> p
                self.block_capacity = cap
            if self.num_nodes + 64 * (b + 1) > self.capacity:
                if self.grow(2 * self.capacity) != 0:
                    return -1
            self.block_leaf[b] = <int32_t> leaf
            self.leaf_block[leaf] = <int32_t> b
            self.leaf_stamp[leaf] = self.generation
            self.nblocks += 1
        return <int32_t> (self.num_nodes + 64 * self.leaf_block[leaf] + sub)

    cdef int grow(self, Py_ssize_t cap) noexcept nogil:
        cdef void* p
        p = realloc(self.g, cap * sizeof(double))
        if p == NULL:
            return -1
        self.g = <double*> p
        p = realloc(self.par, cap * sizeof(int32_t))
        if p == NULL:
            return -1
        self.par = <int32_t*> p
        p = realloc(self.stamp, cap * sizeof(uint32_t))
        if p == NULL:
            return -1
        self.stamp = <uint32_t*> p
        p = realloc(self.closed, cap * sizeof(uint8_t))
        if p == NULL:
            return -1
        self.closed = <uint8_t*> p
        p = realloc(self.entry, cap * sizeof(int8_t))
        if p == NULL:
            return -1
        self.entry = <int8_t*> p
        p = realloc(self.pt, cap * sizeof(Point))
        if p == NULL:
            return -1
        self.pt = <Point*> p
        memset(self.stamp + self.capacity, 0, (cap - self.capacity) * sizeof(uint32_t))
        self.capacity = cap
        return 0

    cdef inline int32_t link_id(self, uint32_t link) noexcept nogil:
        """The search id of a link: the node, an empty leaf as a whole, or a sub-voxel."""
        cdef int l = link >> 28
        cdef Py_ssize_t i = (link >> 6) & 0x3FFFFF
        if l == 0 and self.leaves[i] != 0:
            return self.sub_id(i, link & 63)
        return <int32_t> (self.start[l] + i)

    cdef inline void box(self, int32_t v, int* b) noexcept nogil:
        """b[0..2] = the minimum voxel of search node v, b[3] its edge in voxels."""
        cdef Py_ssize_t g
        cdef int s
        if v < self.num_nodes:
            b[0] = self.lo[v, 0]
            b[1] = self.lo[v, 1]
            b[2] = self.lo[v, 2]
            b[3] = 4 << self.layer[v]
        else:
            g = self.block_leaf[(v - self.num_nodes) >> 6]
            s = (v - self.num_nodes) & 63
            b[0] = self.lo[g, 0] + ((s & 1) | ((s >> 2) & 2))
            b[1] = self.lo[g, 1] + (((s >> 1) & 1) | ((s >> 3) & 2))
            b[2] = self.lo[g, 2] + (((s >> 2) & 1) | ((s >> 4) & 2))
            b[3] = 1

    cdef inline int level(self, int32_t v) noexcept nogil:
        """log2 of the edge of search node v in voxels."""
        if v >= self.num_nodes:
            return 0
        return 2 + self.layer[v]

    # ------------------------------------------------------------------ search
    cdef inline bint coarse(self, int32_t v) noexcept nogil:
        """Whether search node v is split into the nodes on the face it is entered by: a
        subdivided tree node or a partly blocked leaf."""
        if v >= self.num_nodes:
            return False
        if self.layer[v] == 0:
            return self.leaves[v] != 0
        return self.child[v] < LINK_SOLID

    cdef void relax(self, int32_t v, int32_t u, int d) noexcept nogil:
        """Reach search node v from u across u's face d.

        A coarse node (subdivided, or a partly blocked leaf) keeps in ``closed`` the faces it
        was split from (bits 0-5) and whether an entry waits on the open list (``PENDING``);
        reached across another face while an entry waits, it is split at once for that face,
        so that every face of it is opened from the side it is reached from."""
        cdef Point p
        cdef int bu[4]
        cdef int bv[4]
        cdef int axis, k
        cdef uint8_t m = 0
        cdef bint is_coarse = self.coarse(v)
        cdef double c, h, lam, lo_, hi_, dx, dy, dz
        cdef double* pp
        if self.stamp[v] == self.generation:
            m = self.closed[v]
            if is_coarse:
                if m & (1 << d):
                    return
                if (m & PENDING) and self.entry[v] != d:
                    self.closed[v] = m | (1 << d)
                    self.split(v, u, d)
                    return
            elif m:
                return
        if v == self.goal_id:
            p = self.goal_pt
        else:
            self.box(v, bv)
            if self.face and bv[3] > 1:
                self.box(u, bu)
                axis = d >> 1
                pp = &p.x
                for k in range(3):
                    if k == axis:
                        pp[k] = bv[k] if d & 1 else bv[k] + bv[3]
                    else:
                        lo_ = bu[k] if bu[k] > bv[k] else bv[k]
                        hi_ = bu[k] + bu[3] if bu[k] + bu[3] < bv[k] + bv[3] else bv[k] + bv[3]
                        pp[k] = 0.5 * (lo_ + hi_)
            else:
                p.x = bv[0] + 0.5 * bv[3]
                p.y = bv[1] + 0.5 * bv[3]
                p.z = bv[2] + 0.5 * bv[3]
        lam = self.level(v) / <double> (self.num_layers + 1)
        if self.use_unit:
            c = self.unit
        else:
            dx = p.x - self.pt[u].x
            dy = p.y - self.pt[u].y
            dz = p.z - self.pt[u].z
            c = sqrt(dx * dx + dy * dy + dz * dz)
        c = self.g[u] + c * (1.0 - self.kg * lam)
        if self.stamp[v] == self.generation and (not is_coarse or (m & PENDING)) \
                and c >= self.g[v]:
            return
        self.stamp[v] = self.generation
        self.closed[v] = (m | PENDING) if is_coarse else 0
        self.g[v] = c
        self.par[v] = u
        self.entry[v] = <int8_t> d
        self.pt[v] = p
        dx = p.x - self.goal_pt.x
        dy = p.y - self.goal_pt.y
        dz = p.z - self.goal_pt.z
        h = sqrt(dx * dx + dy * dy + dz * dz) * (1.0 - self.kh * lam)
        if lazy_push(&self.heap, c + self.weight * h, c, v) != 0:
            self.failed = 1
        self.generated += 1

    cdef inline void enter(self, uint32_t link, int32_t u, int d) noexcept nogil:
        """Reach the tree node ``link`` (a face neighbour of u) unless it is all blocked."""
        cdef int l = link >> 28
        cdef Py_ssize_t i = (link >> 6) & 0x3FFFFF
        cdef Py_ssize_t g = self.start[l] + i
        if l == 0:
            if self.leaves[i] == FULL:
                return
        elif self.child[g] == LINK_SOLID:
            return
        self.relax(<int32_t> g, u, d)

    cdef void split(self, int32_t v, int32_t p, int d) noexcept nogil:
        """Coarse to fine: reach from p the nodes of coarse node v on its face entered by a
        step the way d (the 4 children, or a leaf's free voxels on that face)."""
        cdef int k, axis = d >> 1, side, x, y, z, s
        cdef uint32_t c
        cdef int32_t w
        cdef uint64_t mask
        if self.layer[v] > 0:
            c = self.child[v]
            side = 0 if d & 1 else 1
            for k in range(8):
                if ((k >> axis) & 1) == side:
                    self.enter(c + (<uint32_t> k << 6), p, d)
            return
        mask = self.leaves[v]
        side = 0 if d & 1 else 3
        for k in range(16):
            if axis == 0:
                x, y, z = side, k & 3, k >> 2
            elif axis == 1:
                x, y, z = k & 3, side, k >> 2
            else:
                x, y, z = k & 3, k >> 2, side
            s = sub_index(x, y, z)
            if not (mask >> s) & 1:
                w = self.sub_id(v, s)
                if w < 0:
                    self.failed = 1
                    return
                self.relax(w, p, d)

    cdef void expand(self, int32_t u, Py_ssize_t* per_layer) noexcept nogil:
        """Reach the face neighbours of u (a childless free node, an empty leaf or a voxel of
        a partly blocked leaf)."""
        cdef int d, k, axis, x, y, z, s, t
        cdef int32_t v
        cdef uint32_t link
        cdef Py_ssize_t i, j
        cdef uint64_t mask
        if u < self.num_nodes:
            per_layer[self.layer[u]] += 1
            for d in range(6):
                link = self.neigh[u, d]
                if link != LINK_NULL:
                    self.enter(link, u, d)
            return
        # a voxel of a partly blocked leaf: its 6 face neighbours, in the leaf or across
        per_layer[0] += 1
        i = self.block_leaf[(u - self.num_nodes) >> 6]
        s = (u - self.num_nodes) & 63
        mask = self.leaves[i]
        for d in range(6):
            x = (s & 1) | ((s >> 2) & 2)
            y = ((s >> 1) & 1) | ((s >> 3) & 2)
            z = ((s >> 2) & 1) | ((s >> 4) & 2)
            axis = d >> 1
            t = 1 if d & 1 else -1
            if axis == 0:
                x += t
            elif axis == 1:
                y += t
            else:
                z += t
            if 0 <= x < 4 and 0 <= y < 4 and 0 <= z < 4:
                k = sub_index(x, y, z)
                if not (mask >> k) & 1:
                    self.relax(self.sub_id(i, k), u, d)
                continue
            link = self.neigh[i, d]
            if link == LINK_NULL:
                continue
            if link >> 28 == 0:
                j = (link >> 6) & 0x3FFFFF
                if self.leaves[j] == 0:
                    self.relax(<int32_t> j, u, d)
                elif self.leaves[j] != FULL:
                    k = sub_index(x & 3, y & 3, z & 3)
                    if not (self.leaves[j] >> k) & 1:
                        v = self.sub_id(j, k)
                        if v < 0:
                            self.failed = 1
                            return
                        self.relax(v, u, d)
            else:
                self.enter(link, u, d)

    def find_path(self, int sx, int sy, int sz, int gx, int gy, int gz, *, double weight,
                  double unit, double kg, double kh, bint face, int connectivity,
                  Py_ssize_t max_expanded):
        """A* from voxel (sx, sy, sz) to (gx, gy, gz) over the octree's nodes (both free and
        inside the grid).  ``unit`` > 0: every node costs ``unit`` (else the distance between
        node points); ``kg``/``kh``: node-size compensation of g and h (a step into a node of
        edge 2**k voxels is scaled by ``1 - kg * k / (layers + 1)``, its estimate by ``kh``);
        ``weight`` multiplies h; ``face``: node points at the centres of the faces entered.

        Returns ``(status, voxels, nodes, expanded, generated, per_layer)``: status 1 found,
        0 unreachable, 2 out of budget, -1 out of memory; ``voxels`` int64[n, 3] the path of
        voxels (each step a move of ``connectivity``); ``nodes`` uint32[m] the links of the
        nodes passed; ``per_layer`` int64[layers] expansions per layer (voxels of leaves in
        layer 0)."""
        cdef uint32_t ls, lg
        cdef int32_t sid, gid, u, v
        cdef Py_ssize_t expanded = 0, n, k, m
        cdef int status = 0
        per = np.zeros(self.num_layers, np.int64)
        cdef int64_t[::1] per_layer = per
        self.weight = weight
        self.use_unit = unit > 0
        self.unit = unit
        self.kg = kg
        self.kh = kh
        self.face = face
        self.generated = 0
        self.failed = 0
        self.nblocks = 0
        self.generation += 1
        if self.generation == 0:
            memset(self.stamp, 0, self.capacity * sizeof(uint32_t))
            memset(self.leaf_stamp, 0, max(self.num_leaves, 1) * sizeof(uint32_t))
            self.generation = 1
        self.heap.size = 0
        with nogil:
            ls = self.locate_voxel(sx, sy, sz)
            lg = self.locate_voxel(gx, gy, gz)
            sid = self.link_id(ls)
            gid = self.link_id(lg)
            if sid < 0 or gid < 0:
                status = -1
            else:
                self.goal_id = gid
                self.goal_pt.x = gx + 0.5
                self.goal_pt.y = gy + 0.5
                self.goal_pt.z = gz + 0.5
                self.stamp[sid] = self.generation
                self.closed[sid] = 0
                self.g[sid] = 0.0
                self.par[sid] = -1
                self.entry[sid] = 0
                self.pt[sid].x = sx + 0.5
                self.pt[sid].y = sy + 0.5
                self.pt[sid].z = sz + 0.5
                lazy_push(&self.heap, 0.0, 0.0, sid)
                self.generated = 1
                while self.heap.size > 0:
                    u = lazy_pop(&self.heap)
                    if self.coarse(u):
                        if not self.closed[u] & PENDING:
                            continue
                        if max_expanded >= 0 and expanded >= max_expanded:
                            status = 2
                            break
                        expanded += 1
                        per_layer[self.layer[u]] += 1
                        self.closed[u] = (self.closed[u] & ~PENDING) | (1 << self.entry[u])
                        self.split(u, self.par[u], self.entry[u])
                        if self.failed:
                            status = -1
                            break
                        continue
                    if self.closed[u]:
                        continue
                    self.closed[u] = 1
                    if u == gid:
                        status = 1
                        break
                    if max_expanded >= 0 and expanded >= max_expanded:
                        status = 2
                        break
                    expanded += 1
                    self.expand(u, <Py_ssize_t*> &per_layer[0])
                    if self.failed:
                        status = -1
                        break
        if status != 1:
            return status, np.zeros((0, 3), np.int64), np.zeros(0, np.uint32), expanded, \
                self.generated, per
        n = 0
        u = gid
        while u >= 0:
            n += 1
            u = self.par[u]
        ids = np.empty(n, np.int32)
        cdef int32_t[::1] idv = ids
        u = gid
        k = n
        while u >= 0:
            k -= 1
            idv[k] = u
            u = self.par[u]
        nodes = np.empty(n, np.uint32)
        cdef uint32_t[::1] nv = nodes
        cdef Py_ssize_t g
        for k in range(n):
            u = idv[k]
            if u < self.num_nodes:
                g = u
                nv[k] = make_link(self.layer[g], g - self.start[self.layer[g]], 0)
            else:
                g = self.block_leaf[(u - self.num_nodes) >> 6]
                nv[k] = make_link(0, g, (u - self.num_nodes) & 63)
        voxels = self.refine(ids, sx, sy, sz, gx, gy, gz, connectivity)
        return status, voxels, nodes, expanded, self.generated, per

    cdef refine(self, int32_t[::1] ids, int sx, int sy, int sz, int gx, int gy, int gz,
                int connectivity):
        """The voxel path through the search nodes ``ids``: in each node (all free) a walk of
        moves to the voxel on its face nearest the current voxel, then a face step across."""
        cdef Py_ssize_t n = ids.shape[0], k, cap = 64, m = 0
        cdef int cur[3]
        cdef int tgt[3]
        cdef int ba[4]
        cdef int bb[4]
        cdef int d, axis, j, lo_, hi_
        cdef int64_t* buf = <int64_t*> malloc(cap * 3 * sizeof(int64_t))
        if buf == NULL:
            raise MemoryError("cannot allocate the voxel path")
        cur[0] = sx
        cur[1] = sy
        cur[2] = sz
        try:
            buf = push_voxel(buf, &m, &cap, cur)
            for k in range(1, n + 1):
                if k < n:
                    self.box(ids[k - 1], ba)
                    self.box(ids[k], bb)
                    d = self.entry[ids[k]]
                    axis = d >> 1
                    for j in range(3):
                        if j == axis:
                            tgt[j] = ba[j] + ba[3] - 1 if d & 1 else ba[j]
                        else:
                            lo_ = ba[j] if ba[j] > bb[j] else bb[j]
                            hi_ = (ba[j] + ba[3] if ba[j] + ba[3] < bb[j] + bb[3]
                                   else bb[j] + bb[3]) - 1
                            tgt[j] = lo_ if cur[j] < lo_ else (hi_ if cur[j] > hi_ else cur[j])
                else:
                    tgt[0] = gx
                    tgt[1] = gy
                    tgt[2] = gz
                buf = walk(buf, &m, &cap, cur, tgt, connectivity)
                if k < n:
                    cur[axis] += 1 if d & 1 else -1
                    buf = push_voxel(buf, &m, &cap, cur)
            return voxel_array(buf, m)
        finally:
            free(buf)


cdef voxel_array(int64_t* buf, Py_ssize_t m):
    """An int64[m, 3] copy of the first m voxels of buf."""
    out = np.empty((m, 3), np.int64)
    cdef int64_t[:, ::1] o = out
    cdef Py_ssize_t k
    for k in range(m):
        o[k, 0] = buf[3 * k]
        o[k, 1] = buf[3 * k + 1]
        o[k, 2] = buf[3 * k + 2]
    return out


cdef int64_t* push_voxel(int64_t* buf, Py_ssize_t* m, Py_ssize_t* cap, int* c) except NULL:
    cdef int64_t* grown
    if m[0] == cap[0]:
        grown = <int64_t*> realloc(buf, 2 * cap[0] * 3 * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError("cannot grow the voxel path")
        buf = grown
        cap[0] *= 2
    buf[3 * m[0]] = c[0]
    buf[3 * m[0] + 1] = c[1]
    buf[3 * m[0] + 2] = c[2]
    m[0] += 1
    return buf


cdef int64_t* walk(int64_t* buf, Py_ssize_t* m, Py_ssize_t* cap, int* cur, int* tgt,
                   int connectivity) except NULL:
    """Append the moves from cur to tgt (cur updated): each step changes every axis still to go
    (at most 1, 2 or 3 of them by ``connectivity``: those with the most to go)."""
    while cur[0] != tgt[0] or cur[1] != tgt[1] or cur[2] != tgt[2]:
        buf = walk_step(buf, m, cap, cur, tgt, connectivity)
    return buf

cdef inline bint move_free(const uint8_t* fr, Py_ssize_t sy, Py_ssize_t sz, int* a,
                           int* b) noexcept nogil:
    """Whether every voxel of the cube spanned by voxels a and b is free."""
    cdef int x, y, z
    for z in range(2):
        for y in range(2):
            for x in range(2):
                if not fr[((b[2] if z else a[2]) + 1) * sz + ((b[1] if y else a[1]) + 1) * sy
                          + (b[0] if x else a[0]) + 1]:
                    return False
    return True


def tighten(const uint8_t[:, :, ::1] padded, const int64_t[:, ::1] cells, int connectivity):
    """A voxel path no longer than ``cells`` (a path of moves of ``connectivity`` on the grid
    of ``padded``) with the same ends: between consecutive corners of line-of-sight
    string pulling (see ``shortcut``), the straightest walk of moves (each step changes every
    axis still to go, as many as the connectivity allows) where all its moves are allowed
    (whole cube free), else the original stretch.  int64[m, 3]."""
    cdef Py_ssize_t sy = padded.shape[2], sz = padded.shape[1] * padded.shape[2]
    cdef Py_ssize_t n = cells.shape[0], i = 0, j, k, m = 0, cap = 64, mark
    cdef const uint8_t* fr = &padded[0, 0, 0]
    cdef int cur[3]
    cdef int prev[3]
    cdef int tgt[3]
    cdef bint ok
    cdef int64_t* buf
    check_inside(padded, cells)
    if n < 3:
        return np.asarray(cells).copy()
    buf = <int64_t*> malloc(cap * 3 * sizeof(int64_t))
    if buf == NULL:
        raise MemoryError("cannot allocate the voxel path")
    try:
        for k in range(3):
            cur[k] = <int> cells[0, k]
        buf = push_voxel(buf, &m, &cap, cur)
        while i < n - 1:
            j = furthest_in_sight(fr, sy, sz, cells, i)
            for k in range(3):
                tgt[k] = <int> cells[j, k]
            mark = m
            ok = True
            while cur[0] != tgt[0] or cur[1] != tgt[1] or cur[2] != tgt[2]:
                prev[0] = cur[0]
                prev[1] = cur[1]
                prev[2] = cur[2]
                buf = walk_step(buf, &m, &cap, cur, tgt, connectivity)
                if not move_free(fr, sy, sz, prev, cur):
                    ok = False
                    break
            if not ok:
                m = mark
                for k in range(i + 1, j + 1):
                    cur[0] = <int> cells[k, 0]
                    cur[1] = <int> cells[k, 1]
                    cur[2] = <int> cells[k, 2]
                    buf = push_voxel(buf, &m, &cap, cur)
            i = j
        return voxel_array(buf, m)
    finally:
        free(buf)


cdef int64_t* walk_step(int64_t* buf, Py_ssize_t* m, Py_ssize_t* cap, int* cur, int* tgt,
                        int connectivity) except NULL:
    """Append one move of ``walk`` from cur towards tgt (cur updated)."""
    cdef int most = 1 if connectivity == 6 else (2 if connectivity == 18 else 3)
    cdef int r[3]
    cdef int used[3]
    cdef int j, taken, best, bj
    for j in range(3):
        r[j] = tgt[j] - cur[j]
        used[j] = 0
    for taken in range(most):
        best = 0
        bj = -1
        for j in range(3):
            if not used[j] and (r[j] if r[j] > 0 else -r[j]) > best:
                best = r[j] if r[j] > 0 else -r[j]
                bj = j
        if bj < 0:
            break
        used[bj] = 1
        cur[bj] += 1 if r[bj] > 0 else -1
    return push_voxel(buf, m, cap, cur)


def segments_clear(const uint8_t[:, :, ::1] padded, const double[:, ::1] pts, double margin,
                   uint8_t[::1] out):
    """out[i] = 1 where every voxel meeting the bounding box, grown by ``margin``, of the
    segment pts[i] -> pts[i + 1] (voxel units) is inside the grid of ``padded`` and free."""
    cdef Py_ssize_t sy = padded.shape[2], sz = padded.shape[1] * padded.shape[2]
    cdef int nx = <int> padded.shape[2] - 2, ny = <int> padded.shape[1] - 2
    cdef int nz = <int> padded.shape[0] - 2
    cdef const uint8_t* fr = &padded[0, 0, 0]
    cdef Py_ssize_t i, n = pts.shape[0]
    cdef int lo[3]
    cdef int hi[3]
    cdef int k, x, y, z
    cdef int size[3]
    cdef double a, b
    cdef bint ok
    size[0] = nx
    size[1] = ny
    size[2] = nz
    with nogil:
        for i in range(n - 1):
            ok = True
            for k in range(3):
                a = pts[i, k]
                b = pts[i + 1, k]
                if a > b:
                    a, b = b, a
                a = floor(a - margin)
                b = floor(b + margin)
                if not (a >= 0 and b < size[k]):
                    ok = False
                    break
                lo[k] = <int> a
                hi[k] = <int> b
            if ok:
                for z in range(lo[2], hi[2] + 1):
                    for y in range(lo[1], hi[1] + 1):
                        for x in range(lo[0], hi[0] + 1):
                            if not fr[(z + 1) * sz + (y + 1) * sy + x + 1]:
                                ok = False
            out[i] = ok


def catmull_rom_spans(const double[:, ::1] p, double spacing, double alpha):
    """Samples of the Catmull–Rom spline through p (n >= 2 points, ends mirrored), span i from
    p[i] (excluded) to p[i + 1] (included exactly), ceil(|p[i + 1] - p[i]| / spacing) samples
    (at least 1) evenly spaced in the span's knot parameter, Barry–Goldman form with knots
    spaced by chord length ** alpha.  Returns (float64[m, 3] samples, int64[m] their spans)."""
    cdef Py_ssize_t n = p.shape[0], i, j, m = 0, c, k
    cdef double q[4][3]
    cdef double t0, t1, t2, t3, t, d, a1, a2, a3, b1, b2
    cdef double chord
    counts = np.empty(n - 1, np.int64)
    cdef int64_t[::1] cv = counts
    for i in range(n - 1):
        chord = 0
        for k in range(3):
            chord += (p[i + 1, k] - p[i, k]) ** 2
        c = <Py_ssize_t> ceil(sqrt(chord) / spacing)
        cv[i] = c if c > 1 else 1
        m += cv[i]
    out = np.empty((m, 3), np.float64)
    spans = np.empty(m, np.int64)
    cdef double[:, ::1] o = out
    cdef int64_t[::1] sv = spans
    m = 0
    for i in range(n - 1):
        for k in range(3):
            q[1][k] = p[i, k]
            q[2][k] = p[i + 1, k]
            q[0][k] = p[i - 1, k] if i > 0 else 2 * p[0, k] - p[1, k]
            q[3][k] = p[i + 2, k] if i + 2 < n else 2 * p[n - 1, k] - p[n - 2, k]
        t0 = 0
        t1 = t0 + knot(q[0], q[1], alpha)
        t2 = t1 + knot(q[1], q[2], alpha)
        t3 = t2 + knot(q[2], q[3], alpha)
        for j in range(1, cv[i] + 1):
            t = t1 + (t2 - t1) * j / cv[i]
            for k in range(3):
                a1 = ((t1 - t) * q[0][k] + (t - t0) * q[1][k]) / (t1 - t0)
                a2 = ((t2 - t) * q[1][k] + (t - t1) * q[2][k]) / (t2 - t1)
                a3 = ((t3 - t) * q[2][k] + (t - t2) * q[3][k]) / (t3 - t2)
                b1 = ((t2 - t) * a1 + (t - t0) * a2) / (t2 - t0)
                b2 = ((t3 - t) * a2 + (t - t1) * a3) / (t3 - t1)
                o[m, k] = ((t2 - t) * b1 + (t - t1) * b2) / (t2 - t1)
            if j == cv[i]:
                for k in range(3):
                    o[m, k] = q[2][k]
            sv[m] = i
            m += 1
    return out, spans


cdef inline double knot(double* a, double* b, double alpha) noexcept nogil:
    cdef double d = sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2)
    if d < 1e-9:
        d = 1e-9
    return d ** alpha
