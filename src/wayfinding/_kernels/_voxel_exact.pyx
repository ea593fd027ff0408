# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# Exact searches on a voxel grid's padded array (``VoxelGrid.padded``: uint8
# ``[nz + 2, ny + 2, nx + 2]``, 1 = free, blocked border).  Nodes are flat indices into it.
#
# The moves come as tables: move k steps by ``offsets[k]`` (flat) at cost ``costs[k]`` and is
# allowed when every neighbour j whose bit is set in ``need[k]`` is free (the cube the move
# spans: each of its voxels is itself one of the 26 neighbours).  An expansion reads its
# neighbours once into a bit mask, then tests each move with one AND.
#
# The heuristic is the exact distance in an empty grid of the same connectivity (consistent),
# so A* closes every node once; ties on f go to the larger g.  Search state lives in
# ``Workspace`` objects (stamps 2 * gen open, 2 * gen + 1 closed).
from libc.math cimport INFINITY, floor, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

from ._heap cimport heap_decrease, heap_pop, heap_push
from ._workspace cimport Workspace, check_workspace

import numpy as np

cdef double SQRT2 = sqrt(2.0)
cdef double SQRT3 = sqrt(3.0)


cdef struct Moves:
    const uint8_t* free
    const int64_t* offsets
    const double* costs
    const uint32_t* need
    int n               # moves: 6, 18 or 26
    Py_ssize_t sy       # padded row length, nx + 2
    Py_ssize_t py       # padded rows per layer, ny + 2
    Py_ssize_t sz       # padded layer size


cdef inline double octile(int a, int b, int c, int connectivity) noexcept nogil:
    """The cost of the cheapest move sequence covering offsets (|a|, |b|, |c|) in an empty
    grid."""
    cdef int t, lo, mid, hi
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
    lo, mid, hi = a, b, c
    if connectivity == 26:
        return (SQRT3 - SQRT2) * lo + (SQRT2 - 1.0) * mid + hi
    if connectivity == 18:
        t = lo + mid + hi
        if hi >= lo + mid:
            return SQRT2 * (lo + mid) + (hi - lo - mid)
        return SQRT2 * (t // 2) + (t % 2)
    return <double> (lo + mid + hi)


cdef inline double h_to(const Moves* m, Py_ssize_t p, Py_ssize_t q) noexcept nogil:
    return octile(<int> (p % m.sy - q % m.sy), <int> ((p // m.sy) % m.py - (q // m.sy) % m.py),
                  <int> (p // m.sz - q // m.sz), m.n)


cdef inline uint32_t free_mask(const Moves* m, Py_ssize_t v) noexcept nogil:
    cdef uint32_t mask = 0
    cdef int k
    for k in range(m.n):
        mask |= (<uint32_t> m.free[v + m.offsets[k]]) << k
    return mask


cdef Moves moves_of(const uint8_t[:, :, ::1] padded, const int64_t[::1] offsets,
                    const double[::1] costs, const uint32_t[::1] need):
    cdef Moves m
    if not (offsets.shape[0] == costs.shape[0] == need.shape[0]) \
            or offsets.shape[0] not in (6, 18, 26):
        raise ValueError("move tables must hold 6, 18 or 26 moves each")
    m.free = &padded[0, 0, 0]
    m.offsets = &offsets[0]
    m.costs = &costs[0]
    m.need = &need[0]
    m.n = <int> offsets.shape[0]
    m.sy = padded.shape[2]
    m.py = padded.shape[1]
    m.sz = padded.shape[1] * padded.shape[2]
    return m


cdef Py_ssize_t checked_size(Workspace ws, const uint8_t[:, :, ::1] padded) except -1:
    cdef Py_ssize_t n = padded.shape[0] * padded.shape[1] * padded.shape[2]
    if n >= 2**31 - 1:
        raise ValueError(f"the padded grid has {n} voxels, more than 2**31 - 2")
    check_workspace(ws, n)
    return n


def astar(Workspace ws, const uint8_t[:, :, ::1] padded, const int64_t[::1] offsets,
          const double[::1] costs, const uint32_t[::1] need, Py_ssize_t start,
          Py_ssize_t goal, bint heuristic):
    """A* (Dijkstra without ``heuristic``) from flat index ``start`` to ``goal`` (both free).
    Returns ``(found, cost, path, expanded, generated, updated, max_open)``, the path the
    flat indices from start to goal."""
    cdef Moves m = moves_of(padded, offsets, costs, need)
    checked_size(ws, padded)
    cdef Py_ssize_t v, u
    cdef Py_ssize_t expanded = 0, generated = 1, updated = 0, max_open = 0
    cdef int k, status = 0
    cdef uint32_t open_stamp = ws.begin(), closed_stamp, mask
    cdef double cand
    cdef bint found = False
    cdef double* g = &ws.g[0]
    cdef int32_t* parent = &ws.parent[0]
    cdef int32_t* pos = &ws.pos[0]
    cdef uint32_t* stamp = &ws.stamp[0]
    closed_stamp = open_stamp + 1
    with nogil:
        g[start] = 0.0
        parent[start] = -1
        stamp[start] = open_stamp
        if heap_push(&ws.heap, pos, h_to(&m, start, goal) if heuristic else 0.0, 0.0,
                     <int> start) != 0:
            status = -1
        while status == 0 and ws.heap.size > 0:
            if ws.heap.size > max_open:
                max_open = ws.heap.size
            v = heap_pop(&ws.heap, pos).node
            stamp[v] = closed_stamp
            expanded += 1
            if v == goal:
                found = True
                break
            mask = free_mask(&m, v)
            for k in range(m.n):
                if (mask & m.need[k]) != m.need[k]:
                    continue
                u = v + m.offsets[k]
                if stamp[u] == closed_stamp:
                    continue
                cand = g[v] + m.costs[k]
                if stamp[u] != open_stamp:
                    stamp[u] = open_stamp
                    g[u] = cand
                    parent[u] = <int32_t> v
                    if heap_push(&ws.heap, pos, cand + (h_to(&m, u, goal) if heuristic
                                                         else 0.0), cand, <int> u) != 0:
                        status = -1
                        break
                    generated += 1
                elif cand < g[u]:
                    g[u] = cand
                    parent[u] = <int32_t> v
                    heap_decrease(&ws.heap, pos, <int> u, cand + (h_to(&m, u, goal)
                                                                  if heuristic else 0.0), cand)
                    updated += 1
    if status != 0:
        raise MemoryError("no memory for the open list")
    if not found:
        return (False, INFINITY, np.empty(0, np.int64), expanded, generated, updated, max_open)
    return (True, g[goal], ws.path_to(<int> goal), expanded, generated, updated, max_open)


cdef inline double top_f(Workspace ws) noexcept nogil:
    return ws.heap.items[0].f if ws.heap.size > 0 else INFINITY


def bidirectional(Workspace fw, Workspace bw, const uint8_t[:, :, ::1] padded,
                  const int64_t[::1] offsets, const double[::1] costs,
                  const uint32_t[::1] need, Py_ssize_t start, Py_ssize_t goal):
    """Bidirectional A*: a forward search from ``start`` in ``fw`` and a backward one from
    ``goal`` in ``bw`` (moves are symmetric), each with the heuristic to the other's origin,
    expanding on the side whose open list is smaller.  Whenever a relaxed node has been
    reached from the other side, ``mu`` keeps the best meeting cost; the search stops when
    either open list's least f is at least ``mu`` (Pohl's rule: that least f bounds the cost
    of every path not yet found), so the result is optimal.  Returns as :func:`astar`."""
    cdef Moves m = moves_of(padded, offsets, costs, need)
    checked_size(fw, padded)
    checked_size(bw, padded)
    cdef Py_ssize_t v, u, meet = -1, target
    cdef Py_ssize_t expanded = 0, generated = 2, updated = 0, max_open = 0
    cdef int k, status = 0
    cdef uint32_t f_open = fw.begin(), b_open = bw.begin(), mask
    cdef uint32_t f_closed = f_open + 1, b_closed = b_open + 1
    cdef uint32_t my_open, my_closed, other_open, other_closed
    cdef double cand, mu = INFINITY
    cdef Workspace me, other
    cdef double* g
    cdef double* og
    cdef int32_t* parent
    cdef int32_t* pos
    cdef uint32_t* stamp
    cdef uint32_t* ostamp
    fw.g[start] = 0.0
    fw.parent[start] = -1
    fw.stamp[start] = f_open
    bw.g[goal] = 0.0
    bw.parent[goal] = -1
    bw.stamp[goal] = b_open
    if start == goal:
        return (True, 0.0, np.array([start], np.int64), 0, 1, 0, 0)
    if heap_push(&fw.heap, &fw.pos[0], h_to(&m, start, goal), 0.0, <int> start) != 0 or \
            heap_push(&bw.heap, &bw.pos[0], h_to(&m, goal, start), 0.0, <int> goal) != 0:
        raise MemoryError("no memory for the open list")
    while status == 0 and fw.heap.size > 0 and bw.heap.size > 0:
        if top_f(fw) >= mu or top_f(bw) >= mu:
            break
        if fw.heap.size + bw.heap.size > max_open:
            max_open = fw.heap.size + bw.heap.size
        if fw.heap.size <= bw.heap.size:
            me, other, target = fw, bw, goal
            my_open, my_closed, other_open, other_closed = f_open, f_closed, b_open, b_closed
        else:
            me, other, target = bw, fw, start
            my_open, my_closed, other_open, other_closed = b_open, b_closed, f_open, f_closed
        g, parent, pos, stamp = &me.g[0], &me.parent[0], &me.pos[0], &me.stamp[0]
        og, ostamp = &other.g[0], &other.stamp[0]
        with nogil:
            v = heap_pop(&me.heap, pos).node
            stamp[v] = my_closed
            expanded += 1
            mask = free_mask(&m, v)
            for k in range(m.n):
                if (mask & m.need[k]) != m.need[k]:
                    continue
                u = v + m.offsets[k]
                if stamp[u] == my_closed:
                    continue
                cand = g[v] + m.costs[k]
                if stamp[u] != my_open:
                    stamp[u] = my_open
                    g[u] = cand
                    parent[u] = <int32_t> v
                    if heap_push(&me.heap, pos, cand + h_to(&m, u, target), cand,
                                 <int> u) != 0:
                        status = -1
                        break
                    generated += 1
                elif cand < g[u]:
                    g[u] = cand
                    parent[u] = <int32_t> v
                    heap_decrease(&me.heap, pos, <int> u, cand + h_to(&m, u, target), cand)
                    updated += 1
                else:
                    continue
                if (ostamp[u] == other_open or ostamp[u] == other_closed) \
                        and g[u] + og[u] < mu:
                    mu = g[u] + og[u]
                    meet = u
    if status != 0:
        raise MemoryError("no memory for the open list")
    if meet < 0:
        return (False, INFINITY, np.empty(0, np.int64), expanded, generated, updated, max_open)
    head = fw.path_to(<int> meet)
    tail = bw.path_to(<int> meet)[::-1]
    return (True, mu, np.concatenate([head, tail[1:]]), expanded, generated, updated,
            max_open)


def flood(Workspace ws, const uint8_t[:, :, ::1] padded, const int64_t[::1] offsets,
          const double[::1] costs, const uint32_t[::1] need, Py_ssize_t source,
          double max_cost, double[:, :, ::1] out):
    """Dijkstra from flat index ``source`` over every voxel whose cost is at most
    ``max_cost``; writes each voxel's cost into ``out`` (``[nz, ny, nx]``, unpadded; inf
    where not reached).  Returns the number of voxels reached."""
    cdef Moves m = moves_of(padded, offsets, costs, need)
    cdef Py_ssize_t n = checked_size(ws, padded)
    cdef Py_ssize_t v, u, reached = 0, x, y, z
    cdef Py_ssize_t nz = out.shape[0], ny = out.shape[1], nx = out.shape[2]
    cdef int k, status = 0
    cdef uint32_t open_stamp = ws.begin(), closed_stamp, mask
    cdef double cand
    cdef double* g = &ws.g[0]
    cdef int32_t* parent = &ws.parent[0]
    cdef int32_t* pos = &ws.pos[0]
    cdef uint32_t* stamp = &ws.stamp[0]
    if (nz + 2, ny + 2, nx + 2) != (padded.shape[0], padded.shape[1], padded.shape[2]):
        raise ValueError("out must have the unpadded grid's shape")
    closed_stamp = open_stamp + 1
    with nogil:
        g[source] = 0.0
        parent[source] = -1
        stamp[source] = open_stamp
        if heap_push(&ws.heap, pos, 0.0, 0.0, <int> source) != 0:
            status = -1
        while status == 0 and ws.heap.size > 0:
            v = heap_pop(&ws.heap, pos).node
            if g[v] > max_cost:
                break
            stamp[v] = closed_stamp
            reached += 1
            mask = free_mask(&m, v)
            for k in range(m.n):
                if (mask & m.need[k]) != m.need[k]:
                    continue
                u = v + m.offsets[k]
                if stamp[u] == closed_stamp:
                    continue
                cand = g[v] + m.costs[k]
                if stamp[u] != open_stamp:
                    stamp[u] = open_stamp
                    g[u] = cand
                    parent[u] = <int32_t> v
                    if heap_push(&ws.heap, pos, cand, cand, <int> u) != 0:
                        status = -1
                        break
                elif cand < g[u]:
                    g[u] = cand
                    parent[u] = <int32_t> v
                    heap_decrease(&ws.heap, pos, <int> u, cand, cand)
        if status == 0:
            for z in range(nz):
                for y in range(ny):
                    for x in range(nx):
                        v = ((z + 1) * m.py + y + 1) * m.sy + x + 1
                        out[z, y, x] = g[v] if stamp[v] == closed_stamp else INFINITY
    if status != 0:
        raise MemoryError("no memory for the open list")
    return reached
