# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""HPA*'s compiled searches: A* on the abstract graph, and A* on the grid restricted to a
corridor of clusters (the refinement).

The abstract graph is a CSR graph whose nodes are grid cells with integer coordinates
``xy[i] = (x, y)``; its edge weights are at least the least cell cost times the octile (or,
on 4-connected grids, Manhattan) distance between their ends, so that distance is a consistent
heuristic.

The grid is stored as in :mod:`._gridsearch`: H x W cells with a one-cell blocked border,
row-major, row width ``Wp = W + 2``, ``moves[i]`` the legal-step bit mask of cell ``i`` (N, E,
S, W, NE, SE, SW, NW) and a step of base length L (1 or sqrt 2) between cells u and v costing
``L * (cost[u] + cost[v]) / 2``.  ``zone[i]`` is the cluster of padded cell ``i``; a cell
belongs to the corridor when ``mark[zone[i]] == stamp``.  The search only enters corridor
cells, so its path is the cheapest one that stays inside the corridor.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

from ._constants cimport FOUND, H_MANHATTAN, SQRT2_M1, TIE_EPS
from ._heap cimport Heap, HeapItem, heap_decrease, heap_pop, heap_push
from ._steps cimport step_tables
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
