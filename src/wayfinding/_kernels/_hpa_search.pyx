# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""HPA*'s compiled searches: A* on the abstract graph, and A* or jump point search on the grid
restricted to a corridor of clusters (the refinement).

The abstract graph is a CSR graph whose nodes are grid cells with integer coordinates
``xy[i] = (x, y)``; its edge weights are at least the least cell cost times the octile (or,
on 4-connected grids, Manhattan) distance between their ends, so that distance is a consistent
heuristic.

The grid is stored as in :mod:`._gridsearch`: H x W cells with a one-cell blocked border,
row-major, row width ``Wp = W + 2``, ``moves[i]`` the legal-step bit mask of cell ``i`` (N, E,
S, W, NE, SE, SW, NW) and a step of base length L (1 or sqrt 2) between cells u and v costing
``L * (cost[u] + cost[v]) / 2``.  ``zone[i]`` is the cluster of padded cell ``i``; a cell
belongs to the corridor when ``mark[zone[i]] == stamp``.  The corridor searches treat the cells
outside it as blocked (so a diagonal step also needs both cells beside it in the corridor),
and find the cheapest path inside it.
"""

import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

from ._constants cimport H_MANHATTAN, H_OCTILE, SQRT2_M1, TIE_EPS
from ._heap cimport Heap, HeapItem, heap_decrease, heap_pop, heap_push
from ._steps cimport step_horizontal, step_tables, step_vertical
from ._workspace cimport Workspace, check_workspace


cdef inline double estimate(int kind, int ax, int ay) noexcept nogil:
    """Octile distance (Manhattan for ``kind == H_MANHATTAN``) of an offset."""
    if ax < 0:
        ax = -ax
    if ay < 0:
        ay = -ay
    if kind == H_MANHATTAN:
        return ax + ay
    if ax > ay:
        return ax + SQRT2_M1 * ay
    return ay + SQRT2_M1 * ax


def corridor_search(Workspace ws, const double[::1] cost, const uint8_t[::1] moves,
                    int width, int start, int goal, const int32_t[::1] zone,
                    const uint32_t[::1] mark, uint32_t stamp, int hkind, double hscale,
                    bint uniform):
    """A* from padded cell ``start`` to ``goal`` through corridor cells only (see the
    module doc); both ends must be corridor cells.  ``hkind``: ``H_OCTILE`` or
    ``H_MANHATTAN``; ``hscale``: the least cell cost.  Returns ``(found, cost, expanded,
    generated)``; the path is read back with ``ws.path_cells(goal, width)``.  Ties in f
    are broken toward larger g."""
    cdef Py_ssize_t n = moves.shape[0]
    check_workspace(ws, n)
    if cost.shape[0] != n or zone.shape[0] != n:
        raise ValueError(f"cost ({cost.shape[0]}) and zone ({zone.shape[0]}) must have one "
                         f"value per padded cell ({n})")
    if not (0 <= start < n and 0 <= goal < n):
        raise ValueError(f"start {start} and goal {goal} must be padded cells below {n}")
    cdef Py_ssize_t nz = mark.shape[0]
    cdef Py_ssize_t i
    for i in (start, goal):
        if not 0 <= zone[i] < nz:
            raise ValueError(f"cell {i} has zone {zone[i]}, outside the {nz} marks")
    cdef uint32_t open_stamp = ws.begin(), closed_stamp
    closed_stamp = open_stamp + 1
    cdef double* g = &ws.g[0]
    cdef int32_t* parent = &ws.parent[0]
    cdef int32_t* pos = &ws.pos[0]
    cdef uint32_t* st = &ws.stamp[0]
    cdef Heap* heap = &ws.heap
    cdef int offset[8]
    cdef double length[8]
    cdef int u, v, d, gx = goal % width, gy = goal // width
    cdef uint8_t m
    cdef double gu, cu, ng, f
    cdef HeapItem it
    cdef long expanded = 0, generated = 1
    cdef bint found = False, oom = False
    step_tables(width, offset, length)
    with nogil:
        st[start] = open_stamp
        g[start] = 0.0
        parent[start] = -1
        if heap_push(heap, pos, hscale * estimate(hkind, start % width - gx,
                                                   start // width - gy), 0.0, start) != 0:
            oom = True
        while not oom and heap.size > 0:
            it = heap_pop(heap, pos)
            u = it.node
            st[u] = closed_stamp
            expanded += 1
            if u == goal:
                found = True
                break
            gu = g[u]
            cu = cost[u]
            m = moves[u]
            for d in range(8):
                if not (m >> d) & 1:
                    continue
                v = u + offset[d]
                if st[v] == closed_stamp or mark[zone[v]] != stamp:
                    continue
                if d >= 4 and (mark[zone[u + offset[step_vertical(d)]]] != stamp
                               or mark[zone[u + offset[step_horizontal(d)]]] != stamp):
                    continue
                ng = gu + (length[d] if uniform else length[d] * 0.5 * (cu + cost[v]))
                if st[v] == open_stamp:
                    if ng >= g[v] * (1.0 - TIE_EPS):
                        continue
                    f = ng + hscale * estimate(hkind, v % width - gx, v // width - gy)
                    g[v] = ng
                    parent[v] = u
                    heap_decrease(heap, pos, v, f, ng)
                    continue
                f = ng + hscale * estimate(hkind, v % width - gx, v // width - gy)
                g[v] = ng
                parent[v] = u
                st[v] = open_stamp
                generated += 1
                if heap_push(heap, pos, f, ng, v) != 0:
                    oom = True
                    break
    if oom:
        raise MemoryError("cannot grow the open list")
    return found, (g[goal] if found else float("inf")), expanded, generated


def abstract_search(Workspace ws, const int64_t[::1] indptr, const int32_t[::1] indices,
                    const double[::1] weights, const int32_t[:, ::1] xy, int start, int goal,
                    int hkind, double hscale):
    """A* on the abstract graph from node ``start`` to ``goal`` with the octile
    (``H_MANHATTAN``: Manhattan) distance between node coordinates times ``hscale`` as
    heuristic (see the module doc).  ``indices`` must name nodes below ``n`` (not checked
    here: the caller checks the graph once).  Returns ``(found, cost, expanded, generated,
    max_open)``; the node path is read back with ``ws.path_to(goal)``.  Ties in f are broken
    toward larger g."""
    cdef Py_ssize_t n = indptr.shape[0] - 1
    check_workspace(ws, n)
    if xy.shape[0] != n or xy.shape[1] != 2:
        raise ValueError(f"xy must be ({n}, 2), got ({xy.shape[0]}, {xy.shape[1]})")
    if not (0 <= start < n and 0 <= goal < n):
        raise ValueError(f"start {start} and goal {goal} must be nodes below {n}")
    if indptr[0] != 0 or indptr[n] > indices.shape[0] or indices.shape[0] != weights.shape[0]:
        raise ValueError("indptr must start at 0 and end within indices and weights")
    cdef Py_ssize_t e
    cdef uint32_t open_stamp = ws.begin(), closed_stamp
    closed_stamp = open_stamp + 1
    cdef double* g = &ws.g[0]
    cdef int32_t* parent = &ws.parent[0]
    cdef int32_t* pos = &ws.pos[0]
    cdef uint32_t* st = &ws.stamp[0]
    cdef Heap* heap = &ws.heap
    cdef int u, v, gx = xy[goal, 0], gy = xy[goal, 1]
    cdef double gu, ng, f
    cdef HeapItem it
    cdef long expanded = 0, generated = 1, max_open = 1
    cdef bint found = False, oom = False
    with nogil:
        st[start] = open_stamp
        g[start] = 0.0
        parent[start] = -1
        if heap_push(heap, pos, hscale * estimate(hkind, xy[start, 0] - gx,
                                                   xy[start, 1] - gy), 0.0, start) != 0:
            oom = True
        while not oom and heap.size > 0:
            it = heap_pop(heap, pos)
            u = it.node
            st[u] = closed_stamp
            expanded += 1
            if u == goal:
                found = True
                break
            gu = g[u]
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                if st[v] == closed_stamp:
                    continue
                ng = gu + weights[e]
                if st[v] == open_stamp:
                    if ng >= g[v] * (1.0 - TIE_EPS):
                        continue
                    f = ng + hscale * estimate(hkind, xy[v, 0] - gx, xy[v, 1] - gy)
                    g[v] = ng
                    parent[v] = u
                    heap_decrease(heap, pos, v, f, ng)
                    continue
                f = ng + hscale * estimate(hkind, xy[v, 0] - gx, xy[v, 1] - gy)
                g[v] = ng
                parent[v] = u
                st[v] = open_stamp
                generated += 1
                if heap_push(heap, pos, f, ng, v) != 0:
                    oom = True
                    break
            if heap.size > max_open:
                max_open = heap.size
    if oom:
        raise MemoryError("cannot grow the open list")
    return found, (g[goal] if found else float("inf")), expanded, generated, max_open


cdef struct Corridor:
    const double* cost
    const int32_t* zone
    const uint32_t* mark
    uint32_t stamp
    int width
    int goal


cdef inline bint free(const Corridor* c, int q) noexcept nogil:
    """Whether padded cell ``q`` is passable and in the corridor."""
    return c.cost[q] < INFINITY and c.mark[c.zone[q]] == c.stamp


cdef int jump_straight(const Corridor* c, int q, int dx, int dy) noexcept nogil:
    """The jump point reached from ``q`` by straight steps ``(dx, dy)``, or -1."""
    cdef int step = dy * c.width + dx
    cdef int a, b    # the two side offsets
    if dy == 0:
        a, b = -c.width, c.width
    else:
        a, b = -1, 1
    while True:
        q += step
        if not free(c, q):
            return -1
        if q == c.goal:
            return q
        if (free(c, q + a) and not free(c, q + a - step)) or \
                (free(c, q + b) and not free(c, q + b - step)):
            return q


cdef int jump_diagonal(const Corridor* c, int q, int dx, int dy) noexcept nogil:
    """The jump point reached from ``q`` by diagonal steps ``(dx, dy)``, or -1 (a diagonal
    step needs both cells beside it free)."""
    cdef int h = dx, v = dy * c.width
    while True:
        if not (free(c, q + h) and free(c, q + v)):
            return -1
        q += h + v
        if not free(c, q):
            return -1
        if q == c.goal or jump_straight(c, q, dx, 0) >= 0 or jump_straight(c, q, 0, dy) >= 0:
            return q


cdef inline int sign(int v) noexcept nogil:
    return (v > 0) - (v < 0)


def corridor_jps(Workspace ws, const double[::1] cost, int width, int start, int goal,
                 const int32_t[::1] zone, const uint32_t[::1] mark, uint32_t stamp):
    """Jump point search from padded cell ``start`` to ``goal`` through corridor cells only,
    on a uniform grid (every passable cell costs 1; ``cost`` is ``inf`` on blocked cells and
    the border) under the ``no_corner_cutting`` rule: the cheapest path inside the corridor
    (see the module doc).  Returns ``(found, cost, expanded, generated, cells)``, ``cells``
    the ``(n, 2)`` int64 ``(x, y)`` map cells of the path (empty when not found).  Ties in f
    are broken toward larger g."""
    cdef Py_ssize_t n = cost.shape[0]
    check_workspace(ws, n)
    if zone.shape[0] != n:
        raise ValueError(f"zone ({zone.shape[0]}) must have one value per padded cell ({n})")
    if not (0 <= start < n and 0 <= goal < n):
        raise ValueError(f"start {start} and goal {goal} must be padded cells below {n}")
    cdef Py_ssize_t nz = mark.shape[0]
    cdef Py_ssize_t i
    for i in (start, goal):
        if not 0 <= zone[i] < nz:
            raise ValueError(f"cell {i} has zone {zone[i]}, outside the {nz} marks")
    cdef Corridor c
    c.cost = &cost[0]
    c.zone = &zone[0]
    c.mark = &mark[0]
    c.stamp = stamp
    c.width = width
    c.goal = goal
    cdef uint32_t open_stamp = ws.begin(), closed_stamp
    closed_stamp = open_stamp + 1
    cdef double* g = &ws.g[0]
    cdef int32_t* parent = &ws.parent[0]
    cdef int32_t* pos = &ws.pos[0]
    cdef uint32_t* st = &ws.stamp[0]
    cdef Heap* heap = &ws.heap
    cdef int u, v, p, k, dx, dy, gx = goal % width, gy = goal // width, ux, uy
    cdef int cand[8]
    cdef int ndirs
    cdef double gu, ng, f
    cdef HeapItem it
    cdef long expanded = 0, generated = 1
    cdef bint found = False, oom = False
    with nogil:
        st[start] = open_stamp
        g[start] = 0.0
        parent[start] = -1
        if heap_push(heap, pos, estimate(H_OCTILE, start % width - gx, start // width - gy),
                     0.0, start) != 0:
            oom = True
        while not oom and heap.size > 0:
            it = heap_pop(heap, pos)
            u = it.node
            st[u] = closed_stamp
            expanded += 1
            if u == goal:
                found = True
                break
            gu = g[u]
            ux = u % width
            uy = u // width
            p = parent[u]
            # Directions to jump in, coded 3 * (dy + 1) + dx + 1: every one from the start,
            # else the natural and forced ones of the step that reached u (a diagonal step
            # has no forced ones when corners cannot be cut).
            ndirs = 0
            if p < 0:
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        if dx or dy:
                            cand[ndirs] = 3 * (dy + 1) + dx + 1
                            ndirs += 1
            else:
                dx = sign(ux - p % width)
                dy = sign(uy - p // width)
                if dx and dy:
                    cand[0] = 3 * (dy + 1) + 1
                    cand[1] = 4 + dx
                    cand[2] = 3 * (dy + 1) + dx + 1
                    ndirs = 3
                elif dx:  # forced: a free side cell whose cell behind is blocked
                    cand[0] = 4 + dx
                    ndirs = 1
                    if free(&c, u - width) and not free(&c, u - dx - width):
                        cand[1] = 1
                        cand[2] = dx + 1
                        ndirs = 3
                    if free(&c, u + width) and not free(&c, u - dx + width):
                        cand[ndirs] = 7
                        cand[ndirs + 1] = 6 + dx + 1
                        ndirs += 2
                else:
                    cand[0] = 3 * (dy + 1) + 1
                    ndirs = 1
                    if free(&c, u - 1) and not free(&c, u - 1 - dy * width):
                        cand[1] = 3
                        cand[2] = 3 * (dy + 1)
                        ndirs = 3
                    if free(&c, u + 1) and not free(&c, u + 1 - dy * width):
                        cand[ndirs] = 5
                        cand[ndirs + 1] = 3 * (dy + 1) + 2
                        ndirs += 2
            for k in range(ndirs):
                dx = cand[k] % 3 - 1
                dy = cand[k] // 3 - 1
                if dx and dy:
                    v = jump_diagonal(&c, u, dx, dy)
                else:
                    v = jump_straight(&c, u, dx, dy)
                if v < 0 or st[v] == closed_stamp:
                    continue
                ng = gu + estimate(H_OCTILE, v % width - ux, v // width - uy)
                if st[v] == open_stamp:
                    if ng >= g[v] * (1.0 - TIE_EPS):
                        continue
                    f = ng + estimate(H_OCTILE, v % width - gx, v // width - gy)
                    g[v] = ng
                    parent[v] = u
                    heap_decrease(heap, pos, v, f, ng)
                    continue
                f = ng + estimate(H_OCTILE, v % width - gx, v // width - gy)
                g[v] = ng
                parent[v] = u
                st[v] = open_stamp
                generated += 1
                if heap_push(heap, pos, f, ng, v) != 0:
                    oom = True
                    break
    if oom:
        raise MemoryError("cannot grow the open list")
    if not found:
        return False, float("inf"), expanded, generated, np.empty((0, 2), dtype=np.int64)
    # Cells: the jump points' chain, each segment (straight or diagonal) walked step by step.
    cdef Py_ssize_t m = 1
    u = goal
    while parent[u] >= 0:
        p = parent[u]
        dx = u % width - p % width
        dy = u // width - p // width
        m += max(abs(dx), abs(dy))
        u = p
    out = np.empty((m, 2), dtype=np.int64)
    cdef long long[:, ::1] o = out
    cdef Py_ssize_t j = m - 1
    u = goal
    o[j, 0] = u % width - 1
    o[j, 1] = u // width - 1
    while parent[u] >= 0:
        p = parent[u]
        dx = sign(p % width - u % width)
        dy = sign(p // width - u // width)
        while u != p:
            u += dy * width + dx
            j -= 1
            o[j, 0] = u % width - 1
            o[j, 1] = u // width - 1
    return True, g[goal], expanded, generated, out
