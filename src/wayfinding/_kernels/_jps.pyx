# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Online jump point search on uniform-cost grids.

Grids use the padded, flattened layout of the other grid kernels (row width ``Wp = W + 2``,
blocked border) and the legal-move masks ``moves`` (bit d set when the step in direction d is
legal, bit order N, E, S, W, NE, SE, SW, NW).  Only the no-corner-cutting rule is meant: a
diagonal step needs both side cells free, so forced neighbours arise on straight moves only.

Jump points.  A cell ``n`` entered by a straight step in direction ``d`` from ``p = n - d`` is
a (primary) jump point for ``d`` when, for a side ``s`` perpendicular to ``d``, ``n + s`` is
free and ``p + s`` is blocked.  With the move masks that reads
``moves[n] & ~moves[p] & sides(d) != 0`` (``p`` and ``n`` are free, so bit ``s`` of a mask
says whether the side cell is free).  At a jump point entered by ``d`` the search continues in
``d``, each forced side ``s`` and the diagonal between ``d`` and ``s``; after a diagonal step in
that diagonal and its two components; from the start in all 8 directions.

The search is A* over jump points with the octile heuristic, which is consistent on this graph
(every edge is a straight or diagonal run whose cost equals the octile distance of its ends),
so closed nodes are final.  It keeps its state in a :class:`Workspace` (indexed heap with
decrease-key) and scans the move masks.  JPS+ (precomputed jump distances) is in
``_jps_plus``.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t

from ._constants cimport SQRT2, TIE_EPS
from ._heap cimport Heap, HeapItem, IntVec, heap_decrease, heap_pop, heap_push, vec_push
from ._jps_tables cimport (
    AFTER_DIAGONAL,
    AFTER_STRAIGHT,
    SIDES,
    Counters,
    fill_after_straight,
    octile,
)
from ._steps cimport step_dx, step_dy, step_horizontal, step_of, step_offsets, step_vertical
from ._workspace cimport Workspace, check_workspace

cnp.import_array()

fill_after_straight()



cdef struct Query:
    double* g
    int32_t* parent
    int32_t* pos
    uint32_t* stamp
    Heap* heap
    uint32_t open_stamp
    uint32_t closed_stamp
    int goal
    int gx
    int gy
    int width
    Counters c


cdef inline int arrival(int u, int p, int width) noexcept nogil:
    """Direction of the run from parent p to u (both on one straight or diagonal line)."""
    cdef int dx = u % width - p % width
    cdef int dy = u // width - p // width
    dx = (dx > 0) - (dx < 0)
    dy = (dy > 0) - (dy < 0)
    return step_of(dx, dy)


cdef inline int relax(Query* q, int u, int v, int vx, int vy, double ng) noexcept nogil:
    """A* relaxation of v reached from u with cost ng; returns -1 if memory ran out."""
    cdef uint32_t sv = q.stamp[v]
    cdef double f
    if sv == q.closed_stamp:
        return 0
    if sv == q.open_stamp:
        if ng >= q.g[v] * (1.0 - TIE_EPS):
            return 0
        q.c.updated += 1
    else:
        q.c.generated += 1
    f = ng + octile(vx - q.gx, vy - q.gy)
    q.g[v] = ng
    q.parent[v] = u
    if sv == q.open_stamp:
        heap_decrease(q.heap, q.pos, v, f, ng)
        return 0
    q.stamp[v] = q.open_stamp
    return heap_push(q.heap, q.pos, f, ng, v)


cdef inline int jump_straight(const uint8_t* moves, int n, int d, int step, int goal,
                              int* steps) noexcept nogil:
    """First jump point (or the goal) from n in cardinal d, or -1 at a wall."""
    cdef uint8_t bit = <uint8_t> (1 << d)
    cdef uint8_t sides = SIDES[d]
    cdef uint8_t mp = moves[n], mn
    cdef int k = 0
    while mp & bit:
        n += step
        k += 1
        mn = moves[n]
        if n == goal or (mn & ~mp & sides):
            steps[0] = k
            return n
        mp = mn
    return -1


cdef inline int jump_diagonal(const uint8_t* moves, int n, int d, const int* offset, int goal,
                              int* steps) noexcept nogil:
    """First cell from n along diagonal d that is the goal or has a straight jump point in a
    component direction, or -1 at a wall."""
    cdef int cv = step_vertical(d), ch = step_horizontal(d)
    cdef int ov = offset[cv], oh = offset[ch], step = offset[d]
    cdef uint8_t bit = <uint8_t> (1 << d)
    cdef int k = 0, unused
    while moves[n] & bit:
        n += step
        k += 1
        if n == goal or jump_straight(moves, n, cv, ov, goal, &unused) >= 0 \
                or jump_straight(moves, n, ch, oh, goal, &unused) >= 0:
            steps[0] = k
            return n
    return -1


cdef int jps_loop(Query* q, const uint8_t* moves, int start, bint record,
                  IntVec* rec) noexcept nogil:
    """Online JPS; returns 1 found, 0 not found, -1 out of memory."""
    cdef int offset[8]
    cdef int u, v, p, d, k, ux, uy
    cdef uint8_t dirs
    cdef double gu
    cdef HeapItem it
    step_offsets(q.width, offset)
    q.g[start] = 0.0
    q.parent[start] = -1
    q.stamp[start] = q.open_stamp
    q.c.generated = 1
    if heap_push(q.heap, q.pos, octile(start % q.width - q.gx, start // q.width - q.gy), 0.0,
                 start) != 0:
        return -1
    while True:
        if q.heap.size > q.c.max_open:
            q.c.max_open = q.heap.size
        if q.heap.size == 0:
            return 0
        it = heap_pop(q.heap, q.pos)
        u = it.node
        q.stamp[u] = q.closed_stamp
        q.c.expanded += 1
        if record and vec_push(rec, u) != 0:
            return -1
        if u == q.goal:
            return 1
        p = q.parent[u]
        if p < 0:
            dirs = 0xFF
        else:
            d = arrival(u, p, q.width)
            dirs = AFTER_STRAIGHT[256 * d + moves[u]] if d < 4 else AFTER_DIAGONAL[d]
        dirs &= moves[u]
        gu = q.g[u]
        ux = u % q.width
        uy = u // q.width
        for d in range(8):
            if not (dirs >> d) & 1:
                continue
            if d < 4:
                v = jump_straight(moves, u, d, offset[d], q.goal, &k)
            else:
                v = jump_diagonal(moves, u, d, offset, q.goal, &k)
            if v < 0:
                continue
            if relax(q, u, v, ux + k * step_dx(d), uy + k * step_dy(d),
                     gu + (k if d < 4 else k * SQRT2)) != 0:
                return -1


def jps_search(Workspace ws, const uint8_t[::1] moves, int width, int start, int goal,
               bint record):
    """Online jump point search from ``start`` to ``goal`` (padded flat indices).

    Returns (found, cost, expanded, generated, updated, max_open); the jump points are read
    back with :func:`jump_path` and, with ``record``, ``ws.recorded()`` / ``ws.open_nodes()``.
    """
    cdef Query q
    cdef int status
    check_workspace(ws, moves.shape[0])
    q.g = &ws.g[0]
    q.parent = &ws.parent[0]
    q.pos = &ws.pos[0]
    q.stamp = &ws.stamp[0]
    q.heap = &ws.heap
    q.open_stamp = ws.begin()
    q.closed_stamp = q.open_stamp + 1
    q.goal = goal
    q.gx = goal % width
    q.gy = goal // width
    q.width = width
    q.c.expanded = 0
    q.c.generated = 0
    q.c.updated = 0
    q.c.reopened = 0
    q.c.max_open = 0
    with nogil:
        status = jps_loop(&q, &moves[0], start, record, &ws.record)
    if status < 0:
        raise MemoryError("open list could not grow")
    return (status == 1, ws.g[goal] if status == 1 else float("inf"), q.c.expanded,
            q.c.generated, q.c.updated, q.c.max_open)



def jump_path(Workspace ws, int goal, int width):
    """``(n, 2)`` int64 ``(x, y)`` cells from the workspace query's start to ``goal``, every
    run between consecutive jump points of the parent chain filled in cell by cell."""
    cdef int32_t* parent = &ws.parent[0]
    cdef Py_ssize_t n = 1, i
    cdef int v = goal, p, x, y, px, py, k, sx, sy, steps
    while parent[v] >= 0:
        p = parent[v]
        x = v % width - p % width
        y = v // width - p // width
        n += max(abs(x), abs(y))
        v = p
    out = np.empty((n, 2), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    v = goal
    i = n - 1
    o[i, 0] = v % width - 1
    o[i, 1] = v // width - 1
    while parent[v] >= 0:
        p = parent[v]
        x = v % width
        y = v // width
        px = p % width
        py = p // width
        sx = (px > x) - (px < x)
        sy = (py > y) - (py < y)
        steps = max(abs(px - x), abs(py - y))
        for k in range(1, steps + 1):
            i -= 1
            o[i, 0] = x + k * sx - 1
            o[i, 1] = y + k * sy - 1
        v = p
    return out
