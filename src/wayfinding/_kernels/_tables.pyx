# Route walks over precomputed tables: the next-hop walk of the flat all-pairs table and the
# step loop of one level of the tiled exit tables (wayfinding.graph.tables and
# wayfinding.graph.exit_tables).  Both only read tables; no search.  The tables' views are
# taken once, when the walker is made.
cimport numpy as cnp
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t
from libc.stdlib cimport free

from ._constants cimport FOUND, NEED_ROUTE, NO_END, NO_MOVE
from ._heap cimport IntVec, vec_push

import numpy as np

cnp.import_array()


cdef enum:  # ExitLevel.walk ran out of memory (it raises MemoryError)
    NO_MEMORY = -6


cdef object take(IntVec* v):
    """The vector's values as an int64 array; frees the vector."""
    out = np.empty(v.size, dtype=np.int64)
    cdef int64_t[::1] o = out
    cdef Py_ssize_t i
    for i in range(v.size):
        o[i] = v.data[i]
    free(v.data)
    v.data = NULL
    return out


cdef class NextTable:
    """Walks an (n, n) next-hop table (int8, int16, int32 or int64, C order)."""
    cdef const uint8_t[::1] raw
    cdef Py_ssize_t n
    cdef int itemsize

    def __init__(self, nxt):
        if nxt.ndim != 2 or nxt.shape[0] != nxt.shape[1] or not nxt.flags.c_contiguous \
                or nxt.dtype not in (np.int8, np.int16, np.int32, np.int64):
            raise ValueError("a C-ordered square int8/16/32/64 next-hop table is needed")
        self.n = nxt.shape[0]
        self.itemsize = nxt.dtype.itemsize
        self.raw = nxt.reshape(-1).view(np.uint8)

    cdef inline int64_t at(self, Py_ssize_t i) noexcept nogil:
        cdef const uint8_t* p = &self.raw[0]
        if self.itemsize == 1:
            return (<const int8_t*> p)[i]
        if self.itemsize == 2:
            return (<const int16_t*> p)[i]
        if self.itemsize == 4:
            return (<const int32_t*> p)[i]
        return (<const int64_t*> p)[i]

    def walk(self, Py_ssize_t s, Py_ssize_t g):
        """The node path from s to g by repeated look-ups ``next[x, g]`` (the pair must be
        reachable); int64 array."""
        if not (0 <= s < self.n and 0 <= g < self.n):
            raise IndexError(f"nodes {s}, {g} outside 0..{self.n - 1}")
        cdef IntVec path = IntVec(NULL, 0, 0)
        cdef int64_t x = s
        cdef int err = vec_push(&path, <int> s)
        with nogil:
            while x != g and path.size <= self.n and x >= 0 and err == 0:
                x = self.at(x * self.n + g)
                err = vec_push(&path, <int> x)
        out = take(&path)
        if err:
            raise MemoryError()
        if x != g:
            raise RuntimeError(f"the next-hop table does not lead from {s} to {g}")
        return out


cdef inline int64_t find_sorted(const int32_t[::1] a, int64_t lo, int64_t hi,
                                int64_t x) noexcept nogil:
    """Position of x in the sorted slice a[lo:hi], or -1."""
    cdef int64_t end = hi, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < end and a[lo] == x else -1


cdef inline bint within(int64_t a, int64_t b, int64_t r) noexcept nogil:
    return -r <= a - b <= r


cdef class ExitLevel:
    """One tiled level of CSRExitTables: the graph's CSR arrays and the level's tables
    (exits as uint8 or uint16)."""
    cdef const int64_t[::1] indptr
    cdef const int32_t[::1] indices
    cdef const double[::1] weights
    cdef const int32_t[::1] tile, comp, centre, goal_pos, blk_nodes, leg_nodes
    cdef const int64_t[::1] tnode_ptr, blk_ptr, near_ptr, leg_ptr
    cdef const uint8_t[::1] near, legs
    cdef bint wide
    cdef int64_t tw, none

    def __init__(self, indptr, indices, weights, tile, comp, centre, goal_pos, tnode_ptr,
                 blk_ptr, blk_nodes, near_ptr, near, leg_ptr, leg_nodes, leg_slot, tw):
        if near.dtype != leg_slot.dtype or near.dtype not in (np.uint8, np.uint16):
            raise ValueError("exits must be uint8 or uint16, the same in both tables")
        self.indptr, self.indices, self.weights = indptr, indices, weights
        self.tile, self.comp, self.centre, self.goal_pos = tile, comp, centre, goal_pos
        self.tnode_ptr, self.blk_ptr, self.blk_nodes = tnode_ptr, blk_ptr, blk_nodes
        self.near_ptr, self.leg_ptr, self.leg_nodes = near_ptr, leg_ptr, leg_nodes
        self.wide = near.dtype == np.uint16
        self.near = near.view(np.uint8) if len(near) else np.zeros(2, np.uint8)
        self.legs = leg_slot.view(np.uint8) if len(leg_slot) else np.zeros(2, np.uint8)
        self.none = 65535 if self.wide else 255
        self.tw = tw

    cdef inline int64_t exit_at(self, const uint8_t[::1] table, int64_t i) noexcept nogil:
        if self.wide:
            return (<const uint16_t*> &table[0])[i]
        return table[i]

    cdef inline int near_slot(self, int64_t x, int64_t g) noexcept nogil:
        """The near-table exit from x toward g, or -1 (not covered or no move)."""
        cdef int64_t t = self.tile[g], lo = self.blk_ptr[t], hi = self.blk_ptr[t + 1], i, s
        i = find_sorted(self.blk_nodes, lo, hi, x)
        if i < 0:
            return -1
        s = self.exit_at(self.near, self.near_ptr[t] + (i - lo) * (self.tnode_ptr[t + 1]
                                                                    - self.tnode_ptr[t])
                         + self.goal_pos[g])
        return -1 if s == self.none else <int> s

    cdef inline int leg_slot(self, int64_t c, int64_t x) noexcept nogil:
        """Centre c's exit from x: -2 when x is not covered, -1 at the centre."""
        cdef int64_t i = find_sorted(self.leg_nodes, self.leg_ptr[c], self.leg_ptr[c + 1], x)
        if i < 0:
            return -2
        i = self.exit_at(self.legs, i)
        return -1 if i == self.none else <int> i

    def walk(self, const int64_t[::1] route, int64_t s, int64_t g, int64_t limit):
        """The route from s to g: near-table exits while they cover the pair, else
        centre-table exits toward the farthest covered centre of ``route`` (the components
        from s's to g's).  Returns (status, path, cost, x): status FOUND, NEED_ROUTE
        when ``route`` is needed but empty, NO_MOVE when no table gives a move from x, NO_END
        when the walk exceeds ``limit`` steps (``wayfinding._kernels._codes``)."""
        cdef IntVec path = IntVec(NULL, 0, 0)
        cdef Py_ssize_t nroute = route.shape[0], at = -1, pick, j
        cdef int64_t x = s, sub = -1, e, xt, xx, xy, gx, gy, rt
        cdef int slot, status = FOUND
        cdef double cost = 0.0
        if vec_push(&path, <int> s) != 0:
            raise MemoryError()
        gx = self.tile[g] % self.tw
        gy = self.tile[g] // self.tw
        with nogil:
            while x != g:
                xt = self.tile[x]
                xx = xt % self.tw
                xy = xt // self.tw
                slot = -1
                if within(xx, gx, 1) and within(xy, gy, 1):
                    slot = self.near_slot(x, g)
                if slot < 0:
                    if nroute == 0:
                        status = NEED_ROUTE
                        break
                    if sub < 0 or x == sub:
                        if at + 1 < nroute and self.centre[route[at + 1]] == x:
                            at += 1          # on the next centre of the route
                        pick = -1
                        j = nroute - 1
                        while j > at:
                            rt = self.tile[self.centre[route[j]]]
                            if (j == at + 1 or (within(rt % self.tw, xx, 2)
                                                and within(rt // self.tw, xy, 2))) \
                                    and self.leg_slot(route[j], x) >= 0:
                                pick = j
                                break
                            j -= 1
                        if pick < 0:
                            status = NO_MOVE
                            break
                        at = pick
                        sub = self.centre[route[pick]]
                    slot = self.leg_slot(self.comp[sub], x)
                    if slot < 0:
                        status = NO_MOVE
                        break
                e = self.indptr[x] + slot
                x = self.indices[e]
                cost += self.weights[e]
                if vec_push(&path, <int> x) != 0:
                    status = NO_MEMORY
                    break
                if path.size > limit:
                    status = NO_END
                    break
        out = take(&path)
        if status == NO_MEMORY:
            raise MemoryError()
        return status, out, cost, x
