# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# Exact searches on a voxel grid's padded array (``VoxelGrid.padded``: uint8
# ``[nz + 2, ny + 2, nx + 2]``, 1 = free, blocked border).  Nodes are flat indices into it.
#
# Moves (``VoxelMoves``): move k steps by ``offsets[k]`` (flat) and ``deltas[k]`` (x, y, z)
# at cost ``costs[k]``; it is allowed when every neighbour j whose bit is set in ``need[k]``
# is free (the voxels of the cube the move spans are each one of the 26 neighbours).  An
# expansion reads its neighbours once into a bit mask and tests each move with one AND.
#
# Parent pruning (exact, changes no result): when v was reached from p by move a, a
# neighbour u of v that p reaches by a legal move j = ``prune[a, k]`` (or u = p, -2) is
# skipped, since it already holds g(u) <= g(p) + c(p, u) < g(v) + c(v, u) (one step is
# shorter than two); this holds by induction even when p skipped u for the same reason.
# Along a straight move it leaves 9 of the 26 neighbours to look up.
#
# Scratch (``VoxelScratch``): a sparse set.  ``index[v]`` (uint32 per padded voxel,
# calloc'ed, so the OS commits only the pages a search touches) names v's slot, valid when
# it is below ``count`` and ``node[slot] == v``; slots hold g, parent slot, heap position
# (-1 once closed), the move that reached the node and its free mask once expanded.  A query
# resets ``count`` to 0: its cost is what it touches, never the grid's size.
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t
from libc.stdlib cimport calloc, free, realloc

from ._heap cimport Heap, heap_decrease, heap_free, heap_init, heap_pop, heap_push

import numpy as np

cdef double SQRT2 = sqrt(2.0)
cdef double SQRT3 = sqrt(3.0)
cdef uint8_t NO_MOVE = 255


cdef class VoxelMoves:
    """The move tables of one grid: ``VoxelMoves(padded, offsets, costs, need, deltas,
    prune)`` (see the module comment); keeps its arrays alive."""

    cdef const uint8_t[:, :, ::1] padded
    cdef const int64_t[::1] offsets
    cdef const double[::1] costs
    cdef const uint32_t[::1] need
    cdef const int32_t[:, ::1] deltas
    cdef const int8_t[:, ::1] prune
    cdef readonly int n
    cdef readonly Py_ssize_t size
    cdef Py_ssize_t sy, py, sz

    def __cinit__(self, const uint8_t[:, :, ::1] padded, const int64_t[::1] offsets,
                  const double[::1] costs, const uint32_t[::1] need,
                  const int32_t[:, ::1] deltas, const int8_t[:, ::1] prune):
        cdef int n = <int> offsets.shape[0]
        if n not in (6, 18, 26) or costs.shape[0] != n or need.shape[0] != n \
                or deltas.shape[0] != n or deltas.shape[1] != 3 \
                or prune.shape[0] != n or prune.shape[1] != n:
            raise ValueError("move tables must hold 6, 18 or 26 moves each")
        self.size = padded.shape[0] * padded.shape[1] * padded.shape[2]
        if self.size >= 2**31 - 1:
            raise ValueError(f"the padded grid has {self.size} voxels, more than 2**31 - 2")
        self.padded = padded
        self.offsets = offsets
        self.costs = costs
        self.need = need
        self.deltas = deltas
        self.prune = prune
        self.n = n
        self.sy = padded.shape[2]
        self.py = padded.shape[1]
        self.sz = padded.shape[1] * padded.shape[2]


cdef class VoxelScratch:
    """Search state for a padded grid of ``size`` voxels, reused across queries (one search
    at a time).  ``nbytes``: the bytes allocated (the index, committed only where touched,
    plus the slots and the heap); ``capacity``: slots allocated."""

    cdef readonly Py_ssize_t size
    cdef uint32_t* index
    cdef int32_t* node
    cdef int32_t* parent
    cdef int32_t* pos
    cdef double* g
    cdef uint32_t* mask
    cdef uint8_t* move
    cdef Py_ssize_t count
    cdef readonly Py_ssize_t capacity
    cdef Heap heap

    def __cinit__(self, Py_ssize_t size):
        if size < 1 or size >= 2**31 - 1:
            raise ValueError(f"scratch size must be in 1 .. 2**31 - 2, got {size}")
        self.size = size
        self.index = <uint32_t*> calloc(size, sizeof(uint32_t))
        if self.index == NULL or heap_init(&self.heap, 1024) != 0 or self.grow(1024) != 0:
            raise MemoryError(f"no memory for the scratch of {size} voxels")

    def __dealloc__(self):
        free(self.index)
        free(self.node)
        free(self.parent)
        free(self.pos)
        free(self.g)
        free(self.mask)
        free(self.move)
        heap_free(&self.heap)

    @property
    def nbytes(self) -> int:
        return (self.size * sizeof(uint32_t) + self.capacity * (4 * sizeof(int32_t)
                + sizeof(double) + sizeof(uint8_t)) + self.heap.capacity * 16)

    cdef int grow(self, Py_ssize_t capacity) noexcept nogil:
        cdef void* p
        p = realloc(self.node, capacity * sizeof(int32_t))
        if p == NULL:
            return -1
        self.node = <int32_t*> p
        p = realloc(self.parent, capacity * sizeof(int32_t))
        if p == NULL:
            return -1
        self.parent = <int32_t*> p
        p = realloc(self.pos, capacity * sizeof(int32_t))
        if p == NULL:
            return -1
        self.pos = <int32_t*> p
        p = realloc(self.g, capacity * sizeof(double))
        if p == NULL:
            return -1
        self.g = <double*> p
        p = realloc(self.mask, capacity * sizeof(uint32_t))
        if p == NULL:
            return -1
        self.mask = <uint32_t*> p
        p = realloc(self.move, capacity * sizeof(uint8_t))
        if p == NULL:
            return -1
        self.move = <uint8_t*> p
        self.capacity = capacity
        return 0

    cdef inline Py_ssize_t find(self, Py_ssize_t v) noexcept nogil:
        """v's slot, or -1."""
        cdef Py_ssize_t s = self.index[v]
        if s < self.count and self.node[s] == v:
            return s
        return -1

    cdef inline Py_ssize_t add(self, Py_ssize_t v, double g, Py_ssize_t parent,
                               uint8_t move) noexcept nogil:
        """A new slot for v (not yet on the heap), or -1 when memory ran out."""
        cdef Py_ssize_t s = self.count
        if s == self.capacity and self.grow(2 * self.capacity) != 0:
            return -1
        self.count = s + 1
        self.index[v] = <uint32_t> s
        self.node[s] = <int32_t> v
        self.g[s] = g
        self.parent[s] = <int32_t> parent
        self.move[s] = move
        self.mask[s] = 0
        return s

    cdef void reset(self) noexcept nogil:
        self.count = 0
        self.heap.size = 0

    cdef object path_to(self, Py_ssize_t s):
        """The flat indices from the search's origin to slot s."""
        cdef Py_ssize_t n = 0, t = s, i
        while t >= 0:
            n += 1
            t = self.parent[t]
        out = np.empty(n, np.int64)
        cdef int64_t[::1] o = out
        t = s
        for i in range(n - 1, -1, -1):
            o[i] = self.node[t]
            t = self.parent[t]
        return out


cdef inline double octile(int a, int b, int c, int connectivity) noexcept nogil:
    """The cost of the cheapest moves covering offsets (a, b, c) in an empty grid."""
    cdef int t
    if a < 0:
        a = -a
    if b < 0:
        b = -b
    if c < 0:
        c = -c
    if a > b:
        t = a; a = b; b = t
    if b > c:
        t = b; b = c; c = t
    if a > b:
        t = a; a = b; b = t
    if connectivity == 26:
        return (SQRT3 - SQRT2) * a + (SQRT2 - 1.0) * b + c
    if connectivity == 18:
        if c >= a + b:
            return SQRT2 * (a + b) + (c - a - b)
        t = a + b + c
        return SQRT2 * (t // 2) + (t % 2)
    return <double> (a + b + c)


cdef inline uint32_t free_mask(VoxelMoves m, const uint8_t* free_, Py_ssize_t v) noexcept nogil:
    cdef uint32_t out = 0
    cdef int k
    for k in range(m.n):
        out |= (<uint32_t> free_[v + m.offsets[k]]) << k
    return out


cdef struct Counts:
    Py_ssize_t expanded
    Py_ssize_t generated
    Py_ssize_t updated
    Py_ssize_t max_open


cdef inline int expand(VoxelScratch ws, VoxelMoves m, const uint8_t* free_, Py_ssize_t sv,
                       int gx, int gy, int gz, bint heuristic, Counts* c) noexcept nogil:
    """Relax the neighbours of slot sv (closed) toward goal (gx, gy, gz) in padded
    coordinates; returns -1 when memory ran out."""
    cdef Py_ssize_t v = ws.node[sv], u, su, sp = ws.parent[sv]
    cdef uint32_t mask = free_mask(m, free_, v), pmask = 0
    cdef uint8_t a = ws.move[sv]
    cdef int k, j, x, y, z
    cdef double gv = ws.g[sv], cand, h
    ws.mask[sv] = mask
    if a != NO_MOVE:
        pmask = ws.mask[sp]
    x = <int> (v % m.sy)
    y = <int> ((v // m.sy) % m.py)
    z = <int> (v // m.sz)
    for k in range(m.n):
        if (mask & m.need[k]) != m.need[k]:
            continue
        if a != NO_MOVE:
            j = m.prune[a, k]
            if j == -2 or (j >= 0 and (pmask & m.need[j]) == m.need[j]):
                continue
        u = v + m.offsets[k]
        su = ws.find(u)
        cand = gv + m.costs[k]
        if su < 0:
            su = ws.add(u, cand, sv, <uint8_t> k)
            if su < 0:
                return -1
            h = octile(x + m.deltas[k, 0] - gx, y + m.deltas[k, 1] - gy,
                       z + m.deltas[k, 2] - gz, m.n) if heuristic else 0.0
            if heap_push(&ws.heap, ws.pos, cand + h, cand, <int> su) != 0:
                return -1
            c.generated += 1
        elif ws.pos[su] >= 0 and cand < ws.g[su]:
            ws.g[su] = cand
            ws.parent[su] = <int32_t> sv
            ws.move[su] = <uint8_t> k
            h = octile(x + m.deltas[k, 0] - gx, y + m.deltas[k, 1] - gy,
                       z + m.deltas[k, 2] - gz, m.n) if heuristic else 0.0
            heap_decrease(&ws.heap, ws.pos, <int> su, cand + h, cand)
            c.updated += 1
    return 0


cdef int check(VoxelScratch ws, VoxelMoves m, Py_ssize_t node, str name) except -1:
    if ws.size < m.size:
        raise ValueError(f"scratch of {ws.size} voxels for a grid of {m.size}")
    if node < 0 or node >= m.size or m.padded[node // m.sz, (node // m.sy) % m.py,
                                               node % m.sy] == 0:
        raise ValueError(f"{name} {node} is not a free voxel of the padded grid")
    return 0


def astar(VoxelScratch ws, VoxelMoves m, Py_ssize_t start, Py_ssize_t goal, bint heuristic):
    """A* (Dijkstra without ``heuristic``) from flat index ``start`` to ``goal`` (both
    free), ties on f to the larger g.  Returns ``(found, cost, path, expanded, generated,
    updated, max_open)``, the path the flat indices from start to goal."""
    check(ws, m, start, "start")
    check(ws, m, goal, "goal")
    cdef const uint8_t* free_ = &m.padded[0, 0, 0]
    cdef Counts c
    cdef Py_ssize_t sv, found = -1
    cdef int status = 0
    cdef int gx = <int> (goal % m.sy), gy = <int> ((goal // m.sy) % m.py)
    cdef int gz = <int> (goal // m.sz)
    c.expanded = 0
    c.generated = 1
    c.updated = 0
    c.max_open = 0
    with nogil:
        ws.reset()
        sv = ws.add(start, 0.0, -1, NO_MOVE)
        if sv < 0 or heap_push(&ws.heap, ws.pos, octile(
                <int> (start % m.sy) - gx, <int> ((start // m.sy) % m.py) - gy,
                <int> (start // m.sz) - gz, m.n) if heuristic else 0.0, 0.0, <int> sv) != 0:
            status = -1
        while status == 0 and ws.heap.size > 0:
            if ws.heap.size > c.max_open:
                c.max_open = ws.heap.size
            sv = heap_pop(&ws.heap, ws.pos).node
            c.expanded += 1
            if ws.node[sv] == goal:
                found = sv
                break
            status = expand(ws, m, free_, sv, gx, gy, gz, heuristic, &c)
    if status != 0:
        raise MemoryError("no memory for the search")
    if found < 0:
        return (False, INFINITY, np.empty(0, np.int64), c.expanded, c.generated, c.updated,
                c.max_open)
    return (True, ws.g[found], ws.path_to(found), c.expanded, c.generated, c.updated,
            c.max_open)


cdef inline double top_f(VoxelScratch ws) noexcept nogil:
    return ws.heap.items[0].f if ws.heap.size > 0 else INFINITY


cdef int side_step(VoxelScratch me, VoxelScratch other, VoxelMoves m, const uint8_t* free_,
                   int tx, int ty, int tz, Counts* c, double* mu,
                   Py_ssize_t* meet) noexcept nogil:
    """One expansion of a bidirectional search on side ``me`` toward (tx, ty, tz); the nodes
    it generated or improved (the open neighbours whose parent is now the expanded one) that
    ``other`` has reached are meeting candidates for ``mu``."""
    cdef Py_ssize_t sv = heap_pop(&me.heap, me.pos).node, v, u, su, so
    cdef int i
    c.expanded += 1
    if expand(me, m, free_, sv, tx, ty, tz, True, c) != 0:
        return -1
    v = me.node[sv]
    for i in range(m.n):
        u = v + m.offsets[i]
        su = me.find(u)
        if su < 0 or me.parent[su] != sv or me.pos[su] < 0:
            continue
        so = other.find(u)
        if so >= 0 and me.g[su] + other.g[so] < mu[0]:
            mu[0] = me.g[su] + other.g[so]
            meet[0] = u
    return 0


def bidirectional(VoxelScratch fw, VoxelScratch bw, VoxelMoves m, Py_ssize_t start,
                  Py_ssize_t goal):
    """Bidirectional A*: a forward search from ``start`` in ``fw`` and a backward one from
    ``goal`` in ``bw`` (moves are symmetric), each with the heuristic to the other's origin,
    expanding on the side whose open list is smaller.  Whenever a side improves a node the
    other side has reached, ``mu`` keeps the best meeting cost; the search stops when either
    open list's least f is at least ``mu`` (that least f bounds every path not yet found), so
    the result is optimal.  Returns as :func:`astar`."""
    check(fw, m, start, "start")
    check(bw, m, goal, "goal")
    if fw is bw:
        raise ValueError("the two sides need two scratches")
    cdef const uint8_t* free_ = &m.padded[0, 0, 0]
    cdef Counts c
    cdef Py_ssize_t meet = -1
    cdef int status = 0
    cdef double mu = INFINITY
    cdef int sx = <int> (start % m.sy), sy = <int> ((start // m.sy) % m.py)
    cdef int sz = <int> (start // m.sz)
    cdef int gx = <int> (goal % m.sy), gy = <int> ((goal // m.sy) % m.py)
    cdef int gz = <int> (goal // m.sz)
    cdef double h0 = octile(sx - gx, sy - gy, sz - gz, m.n)
    c.expanded = 0
    c.generated = 2
    c.updated = 0
    c.max_open = 0
    with nogil:
        fw.reset()
        bw.reset()
        if fw.add(start, 0.0, -1, NO_MOVE) < 0 or bw.add(goal, 0.0, -1, NO_MOVE) < 0 \
                or heap_push(&fw.heap, fw.pos, h0, 0.0, 0) != 0 \
                or heap_push(&bw.heap, bw.pos, h0, 0.0, 0) != 0:
            status = -1
        if start == goal:
            mu = 0.0
            meet = 0
        while status == 0 and fw.heap.size > 0 and bw.heap.size > 0:
            if top_f(fw) >= mu or top_f(bw) >= mu:
                break
            if fw.heap.size + bw.heap.size > c.max_open:
                c.max_open = fw.heap.size + bw.heap.size
            if fw.heap.size <= bw.heap.size:
                status = side_step(fw, bw, m, free_, gx, gy, gz, &c, &mu, &meet)
            else:
                status = side_step(bw, fw, m, free_, sx, sy, sz, &c, &mu, &meet)
    if status != 0:
        raise MemoryError("no memory for the search")
    if meet < 0:
        return (False, INFINITY, np.empty(0, np.int64), c.expanded, c.generated, c.updated,
                c.max_open)
    if start == goal:
        return (True, 0.0, np.array([start], np.int64), 0, 1, 0, 0)
    head = fw.path_to(fw.find(meet))
    tail = bw.path_to(bw.find(meet))[::-1]
    return (True, mu, np.concatenate([head, tail[1:]]), c.expanded, c.generated, c.updated,
            c.max_open)


def flood(VoxelScratch ws, VoxelMoves m, Py_ssize_t source, double max_cost,
          double[:, :, ::1] out):
    """Dijkstra from flat index ``source`` over every voxel whose cost is at most
    ``max_cost``; writes each such voxel's cost into ``out`` (``[nz, ny, nx]``, unpadded,
    left as it is elsewhere).  Returns the number of voxels written."""
    check(ws, m, source, "source")
    if (out.shape[0] + 2, out.shape[1] + 2, out.shape[2] + 2) != \
            (m.padded.shape[0], m.padded.shape[1], m.padded.shape[2]):
        raise ValueError("out must have the unpadded grid's shape")
    cdef const uint8_t* free_ = &m.padded[0, 0, 0]
    cdef Counts c
    cdef Py_ssize_t sv, s, v, reached = 0
    cdef int status = 0
    c.expanded = 0
    c.generated = 1
    c.updated = 0
    c.max_open = 0
    with nogil:
        ws.reset()
        sv = ws.add(source, 0.0, -1, NO_MOVE)
        if sv < 0 or heap_push(&ws.heap, ws.pos, 0.0, 0.0, <int> sv) != 0:
            status = -1
        while status == 0 and ws.heap.size > 0:
            sv = heap_pop(&ws.heap, ws.pos).node
            if ws.g[sv] > max_cost:
                ws.pos[sv] = 0
                break
            status = expand(ws, m, free_, sv, 0, 0, 0, False, &c)
        if status == 0:
            for s in range(ws.count):
                if ws.pos[s] < 0:
                    v = ws.node[s]
                    out[v // m.sz - 1, (v // m.sy) % m.py - 1, v % m.sy - 1] = ws.g[s]
                    reached += 1
    if status != 0:
        raise MemoryError("no memory for the search")
    return reached
