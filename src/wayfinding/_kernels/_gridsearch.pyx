# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Grid search kernels over a padded, flattened grid.

A grid of H x W cells is stored with a one-cell blocked border, row-major, width ``Wp = W + 2``.
Cell ``(x, y)`` has flat index ``(y + 1) * Wp + (x + 1)``.  ``moves[i]`` is a bit mask of the
legal steps out of cell ``i`` (bit d for direction d: N, E, S, W, NE, SE, SW, NW), already
folding in blocked cells and the diagonal rule, so the inner loops test one bit per step.
A step of base length L (1 or sqrt 2) between cells u and v costs ``L * (cost[u] + cost[v]) / 2``.

A search state costs 20 bytes per cell (g float64, parent int32, heap slot int32, stamp
uint32) plus the open list, an indexed binary heap with decrease-key.  Stamps carry a generation counter, so no per-query reset of the node arrays is needed.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc

from ._heap cimport Heap, HeapItem, IntVec, heap_decrease, heap_pop, heap_push, vec_push
from ._steps cimport step_tables
from ._workspace cimport Workspace

cnp.import_array()

cdef double SQRT2 = 1.4142135623730951

# Relative tolerance under which two costs count as equal.  Floating sums of 1 and sqrt 2
# depend on the order of the terms, so equal-cost routes differ in the last bits; without it
# nearly every cell would be "improved" by an ulp and pushed twice.  Costs are unaffected
# beyond this tolerance.
cdef double TIE_EPS = 1e-12

# Differential heuristic: |d(p, v) - d(p, goal)| is lowered by DH_EPS * (d(p, v) + d(p, goal)),
# more than the rounding error of the two table entries (float sums of up to thousands of
# steps), so rounding does not lift it above the true bound, and what rounding does to its
# consistency stays within the TIE_EPS tolerance.
cdef double DH_EPS = 1e-12

# Heuristic kinds (kept in step with wayfinding.grid.heuristics.HEURISTIC_CODES).
cdef enum:
    H_ZERO = 0
    H_MANHATTAN = 1
    H_OCTILE = 2
    H_EUCLIDEAN = 3
    H_CHEBYSHEV = 4


cdef struct Counters:
    long expanded
    long generated
    long updated
    long max_open


cdef inline double heuristic(int kind, int a, int b, int width) noexcept nogil:
    return heuristic_xy(kind, a % width - b % width, a // width - b // width)


cdef inline double heuristic_xy(int kind, int ddx, int ddy) noexcept nogil:
    # Plain comparisons rather than fmax/fmin, which compile to library calls.
    cdef int ax = ddx if ddx >= 0 else -ddx
    cdef int ay = ddy if ddy >= 0 else -ddy
    cdef int hi = ax if ax > ay else ay
    cdef int lo = ay if ax > ay else ax
    if kind == H_OCTILE:
        return hi + (SQRT2 - 1.0) * lo
    if kind == H_MANHATTAN:
        return ax + ay
    if kind == H_EUCLIDEAN:
        return sqrt(<double> ax * ax + <double> ay * ay)
    if kind == H_CHEBYSHEV:
        return hi
    return 0.0


cdef struct Pivots:
    const double* table     # (k, Np) distances from each pivot (any strides)
    Py_ssize_t* row         # per usable pivot: offset of its row in ``table``
    Py_ssize_t step         # elements between the entries of two consecutive cells
    double* lo              # d(p, goal) * (1 - DH_EPS)
    double* hi              # d(p, goal) * (1 + DH_EPS)
    int count               # usable pivots (finite distance to the goal); 0 = none
    double scale            # weight applied to the bound


cdef struct NoPivots:
    int count


# best_first is compiled twice, with and without pivots, so plain A* pays nothing for them.
ctypedef fused PivotSource:
    Pivots
    NoPivots


cdef inline double pivot_bound(const Pivots* pv, int v) noexcept nogil:
    """Largest |d(p, v) - d(p, goal)| over the pivots, lowered by the rounding margin."""
    cdef double best = 0.0, a, t, u
    cdef const double* at = pv.table + v * pv.step
    cdef int i
    for i in range(pv.count):
        a = at[pv.row[i]]
        t = a * (1.0 - DH_EPS) - pv.hi[i]
        u = pv.lo[i] - a * (1.0 + DH_EPS)
        t = u if u > t else t
        best = t if t > best else best
    return best * pv.scale


cdef int DX[8]
cdef int DY[8]
DX[:] = [0, 1, 0, -1, 1, 1, -1, -1]
DY[:] = [-1, 0, 1, 0, -1, 1, 1, -1]



cdef inline uint8_t bounded_moves(const uint16_t* box, uint8_t m, int x, int y) noexcept nogil:
    """The steps of ``m`` whose goal-bound box (8 x 4: xmin, xmax, ymin, ymax) holds the
    unpadded goal cell (x, y)."""
    cdef int d
    cdef uint8_t keep = 0
    for d in range(8):
        if box[4 * d] <= x and x <= box[4 * d + 1] and box[4 * d + 2] <= y \
                and y <= box[4 * d + 3]:
            keep |= 1 << d
    return m & keep


cdef int best_first(Workspace ws, const double[::1] cost, const uint8_t[::1] moves,
                    int width, int start, int goal, int hkind, double hscale, bint greedy,
                    bint record, bint uniform, uint32_t open_stamp, const PivotSource* pv,
                    const uint16_t* bounds, Counters* c) noexcept nogil:
    """A*-family search; returns 1 found, 0 not found, -1 out of memory.  ``bounds`` (or
    NULL): goal-bound boxes, 32 values per padded cell; steps whose box misses the goal are
    skipped."""
    cdef uint32_t closed_stamp = open_stamp + 1
    cdef double[::1] g = ws.g
    cdef int32_t[::1] parent = ws.parent
    cdef uint32_t[::1] stamp = ws.stamp
    cdef Heap* heap = &ws.heap
    cdef int offset[8]
    cdef double length[8]
    cdef int u, v, d, ux, uy
    cdef int gx = goal % width, gy = goal // width
    cdef uint8_t m
    cdef double gu, cu, ng, hv
    cdef HeapItem it
    step_tables(width, offset, length)

    cdef long expanded = 0, generated = 1, updated = 0, max_open = 1
    cdef IntVec* ties = &ws.ties
    cdef int32_t* pos = &ws.pos[0]
    cdef double f, fu = 0.0
    cdef int status = 0
    stamp[start] = open_stamp
    g[start] = 0.0
    parent[start] = -1
    hv = hscale * heuristic(hkind, start, goal, width)
    if PivotSource is Pivots:
        ng = pivot_bound(pv, start)
        hv = ng if ng > hv else hv
    if heap_push(heap, pos, hv, 0.0, start) != 0:
        return -1
    while True:
        # Successors whose f equals the current node's f are kept on a LIFO side list and
        # expanded before the heap: they have the least f, and depth-first order among equal
        # f matches the larger-g tie-breaking, without heap traffic.
        if ties.size > 0:
            ties.size -= 1
            u = ties.data[ties.size]
        elif heap.size > 0:
            it = heap_pop(heap, pos)
            u = it.node
            fu = it.f
        else:
            break
        if stamp[u] == closed_stamp:
            continue
        stamp[u] = closed_stamp
        expanded += 1
        if record and vec_push(&ws.record, u) != 0:
            status = -1
            break
        if u == goal:
            status = 1
            break
        gu = g[u]
        cu = cost[u]
        m = moves[u]
        if bounds != NULL:
            m = bounded_moves(bounds + 32 * u, m, gx - 1, gy - 1)
        ux = u % width - gx
        uy = u // width - gy
        for d in range(8):
            if not (m >> d) & 1:
                continue
            v = u + offset[d]
            if stamp[v] == closed_stamp:
                continue
            ng = gu + (length[d] if uniform else length[d] * 0.5 * (cu + cost[v]))
            if stamp[v] == open_stamp and ng >= g[v] * (1.0 - TIE_EPS):
                continue
            hv = hscale * heuristic_xy(hkind, ux + DX[d], uy + DY[d]) \
                if hkind != H_ZERO else 0.0
            if PivotSource is Pivots:
                f = pivot_bound(pv, v)
                hv = f if f > hv else hv
            f = hv if greedy else ng + hv
            if stamp[v] == open_stamp:
                updated += 1
                g[v] = ng
                parent[v] = u
                if pos[v] >= 0:  # else it waits on the tie list, where it stays least
                    heap_decrease(heap, pos, v, f, ng)
                continue
            g[v] = ng
            parent[v] = u
            stamp[v] = open_stamp
            if f - fu <= TIE_EPS * fu:
                pos[v] = -1
                if vec_push(ties, v) != 0:
                    status = -1
                    break
            elif heap_push(heap, pos, f, ng, v) != 0:
                status = -1
                break
            generated += 1
        if status < 0:
            break
        if heap.size + ties.size > max_open:
            max_open = heap.size + ties.size
    c.expanded = expanded
    c.generated = generated
    c.updated = updated
    c.max_open = max_open
    if status < 0:
        return -1
    # Leave the whole open list in the heap for ``Workspace.open_nodes``.
    while ties.size > 0:
        ties.size -= 1
        if heap_push(heap, pos, fu, g[ties.data[ties.size]], ties.data[ties.size]) != 0:
            return -1
    return status


_NO_PIVOTS = np.empty((0, 1), dtype=np.float64)


def search(Workspace ws, const double[::1] cost, const uint8_t[::1] moves, int width,
           int start, int goal, int hkind, double hscale, bint greedy, bint record,
           bint uniform=False, const double[:, :] pivots=_NO_PIVOTS, double pscale=1.0,
           const uint16_t[:, :, ::1] bounds=None):
    """Run one best-first search. Returns (found, cost, expanded, generated, updated, max_open).

    ``hscale`` multiplies the heuristic (minimum terrain cost times the weight); ``greedy``
    orders the open list by h alone; ``uniform`` (all cells cost 1) skips the cost look-ups.
    ``pivots``: optional ``(k, Np)`` float64 distances from k pivot cells to every padded cell
    (inf where unreachable), in any memory order (Fortran order keeps a cell's k distances in
    one cache line); h becomes the larger of the base heuristic and ``pscale`` times the
    differential bound.
    ``bounds`` (None, or padded cells x 8 x 4 uint16 goal-bound boxes) prunes every step
    whose box does not hold the goal.
    The path is read back with ``ws.path_cells(goal, width)``.
    """
    cdef Counters c
    c.expanded = 0
    c.generated = 0
    c.updated = 0
    c.max_open = 0
    cdef Pivots pv
    pv.count = 0
    pv.scale = pscale
    pv.table = NULL
    pv.step = 1
    pv.row = NULL
    pv.lo = NULL
    pv.hi = NULL
    cdef Py_ssize_t k = pivots.shape[0]
    cdef Py_ssize_t i
    cdef double dg
    if k > 0 and pivots.shape[1] != cost.shape[0]:
        raise ValueError(f"pivot table has {pivots.shape[1]} columns for {cost.shape[0]} cells")
    if k > 0:
        pv.table = &pivots[0, 0]
        pv.step = pivots.strides[1] // sizeof(double)
        pv.row = <Py_ssize_t*> malloc(k * sizeof(Py_ssize_t))
        pv.lo = <double*> malloc(k * sizeof(double))
        pv.hi = <double*> malloc(k * sizeof(double))
        if pv.row == NULL or pv.lo == NULL or pv.hi == NULL:
            free(pv.row)
            free(pv.lo)
            free(pv.hi)
            raise MemoryError("cannot allocate the pivot list")
        for i in range(k):
            dg = pivots[i, goal]
            if dg < INFINITY:  # a pivot that does not reach the goal says nothing
                pv.row[pv.count] = i * (pivots.strides[0] // sizeof(double))
                pv.lo[pv.count] = dg * (1.0 - DH_EPS)
                pv.hi[pv.count] = dg * (1.0 + DH_EPS)
                pv.count += 1
    cdef const uint16_t* box = NULL
    if bounds is not None:
        if bounds.shape[0] != moves.shape[0] or bounds.shape[1] != 8 or bounds.shape[2] != 4:
            raise ValueError("bounds must have shape (padded cells, 8, 4)")
        box = &bounds[0, 0, 0]
    cdef uint32_t open_stamp = ws.begin()
    cdef int status
    cdef NoPivots none
    none.count = 0
    with nogil:
        if pv.count > 0:
            status = best_first(ws, cost, moves, width, start, goal, hkind, hscale, greedy,
                                record, uniform, open_stamp, &pv, box, &c)
        else:
            status = best_first(ws, cost, moves, width, start, goal, hkind, hscale, greedy,
                                record, uniform, open_stamp, &none, box, &c)
    free(pv.row)
    free(pv.lo)
    free(pv.hi)
    if status < 0:
        raise MemoryError("open list could not grow")
    return status == 1, (ws.g[goal] if status == 1 else INFINITY), c.expanded, c.generated, \
        c.updated, c.max_open


def bfs(Workspace ws, const uint8_t[::1] moves, int width, int start, int goal, bint record):
    """Breadth-first search (fewest steps). Returns (found, expanded, generated, max_open)."""
    cdef uint32_t open_stamp = ws.begin()
    cdef uint32_t closed_stamp = open_stamp + 1
    cdef int32_t[::1] parent = ws.parent
    cdef uint32_t[::1] stamp = ws.stamp
    cdef int offset[8]
    cdef double length[8]
    cdef IntVec queue
    cdef Py_ssize_t head = 0
    cdef int u, v, d, status = 0
    cdef uint8_t m
    cdef long expanded = 0, generated = 1, max_open = 1
    queue.data = NULL
    queue.size = 0
    queue.capacity = 0
    step_tables(width, offset, length)
    with nogil:
        stamp[start] = closed_stamp
        parent[start] = -1
        if vec_push(&queue, start) != 0:
            status = -1
        while status == 0 and head < queue.size:
            u = queue.data[head]
            head += 1
            expanded += 1
            if record and vec_push(&ws.record, u) != 0:
                status = -1
                break
            if u == goal:
                status = 1
                break
            m = moves[u]
            for d in range(8):
                if not (m >> d) & 1:
                    continue
                v = u + offset[d]
                if stamp[v] == closed_stamp:
                    continue
                stamp[v] = closed_stamp
                parent[v] = u
                if vec_push(&queue, v) != 0:
                    status = -1
                    break
                generated += 1
            if queue.size - head > max_open:
                max_open = queue.size - head
    free(queue.data)
    if status < 0:
        raise MemoryError("queue could not grow")
    return status == 1, expanded, generated, max_open


cdef struct Side:
    double* g
    int32_t* parent
    int32_t* pos
    uint32_t* stamp
    Heap* heap
    uint32_t open_stamp
    int target


cdef inline void side_of(Workspace ws, uint32_t open_stamp, int target, Side* s):
    s.g = &ws.g[0]
    s.parent = &ws.parent[0]
    s.pos = &ws.pos[0]
    s.stamp = &ws.stamp[0]
    s.heap = &ws.heap
    s.open_stamp = open_stamp
    s.target = target


cdef int bidirectional_search(Side* fw, Side* bw, const double[::1] cost,
                              const uint8_t[::1] moves, int width, int start, int goal,
                              int hkind, double hscale, Counters* c, int* meet) noexcept nogil:
    """Bidirectional A* (front-to-end); stops once either frontier's least f reaches the best
    meeting cost, which is optimal for consistent heuristics.  Returns 1, 0 or -1."""
    cdef int offset[8]
    cdef double length[8]
    cdef double best = INFINITY, gu, cu, ng, hv
    cdef int u, v, d
    cdef uint8_t m
    cdef Side* ws
    cdef Side* other
    cdef uint32_t closed_stamp
    cdef HeapItem it
    step_tables(width, offset, length)
    meet[0] = -1
    fw.stamp[start] = fw.open_stamp
    fw.g[start] = 0.0
    fw.parent[start] = -1
    bw.stamp[goal] = bw.open_stamp
    bw.g[goal] = 0.0
    bw.parent[goal] = -1
    if heap_push(fw.heap, fw.pos, hscale * heuristic(hkind, start, goal, width), 0.0,
                 start) != 0:
        return -1
    if heap_push(bw.heap, bw.pos, hscale * heuristic(hkind, goal, start, width), 0.0,
                 goal) != 0:
        return -1
    c.generated = 2
    while fw.heap.size > 0 and bw.heap.size > 0:
        if fw.heap.items[0].f >= best or bw.heap.items[0].f >= best:
            break
        if fw.heap.size <= bw.heap.size:
            ws, other = fw, bw
        else:
            ws, other = bw, fw
        closed_stamp = ws.open_stamp + 1
        it = heap_pop(ws.heap, ws.pos)
        u = it.node
        ws.stamp[u] = closed_stamp
        c.expanded += 1
        gu = ws.g[u]
        cu = cost[u]
        m = moves[u]
        for d in range(8):
            if not (m >> d) & 1:
                continue
            v = u + offset[d]
            if ws.stamp[v] == closed_stamp:
                continue
            ng = gu + length[d] * 0.5 * (cu + cost[v])
            if ws.stamp[v] == ws.open_stamp and ng >= ws.g[v] * (1.0 - TIE_EPS):
                continue
            hv = hscale * heuristic(hkind, v, ws.target, width) if hkind != H_ZERO else 0.0
            ws.g[v] = ng
            ws.parent[v] = u
            if (other.stamp[v] == other.open_stamp or other.stamp[v] == other.open_stamp + 1) \
                    and ng + other.g[v] < best:
                best = ng + other.g[v]
                meet[0] = v
            if ws.stamp[v] == ws.open_stamp:
                c.updated += 1
                heap_decrease(ws.heap, ws.pos, v, ng + hv, ng)
                continue
            ws.stamp[v] = ws.open_stamp
            if heap_push(ws.heap, ws.pos, ng + hv, ng, v) != 0:
                return -1
            c.generated += 1
        if fw.heap.size + bw.heap.size > c.max_open:
            c.max_open = fw.heap.size + bw.heap.size
    return 1 if meet[0] >= 0 else 0


def bidirectional(Workspace fw, Workspace bw, const double[::1] cost,
                  const uint8_t[::1] moves, int width, int start, int goal, int hkind,
                  double hscale):
    """Bidirectional A*. Returns (found, cost, meet, expanded, generated, updated, max_open).

    The path is ``fw.path_cells(meet, width)`` followed by ``bw.path_cells(meet, width)``
    reversed, without repeating ``meet``.
    """
    cdef Counters c
    c.expanded = 0
    c.generated = 0
    c.updated = 0
    c.max_open = 0
    cdef Side fs, bs
    side_of(fw, fw.begin(), goal, &fs)
    side_of(bw, bw.begin(), start, &bs)
    cdef int meet = -1, status
    with nogil:
        status = bidirectional_search(&fs, &bs, cost, moves, width, start, goal, hkind, hscale,
                                      &c, &meet)
    if status < 0:
        raise MemoryError("open list could not grow")
    total = fw.g[meet] + bw.g[meet] if status == 1 else INFINITY
    return status == 1, total, meet, c.expanded, c.generated, c.updated, c.max_open


def flood(Workspace ws, const double[::1] cost, const uint8_t[::1] moves, int width,
          const long long[::1] sources, double limit, double[:, ::1] out):
    """Multi-source Dijkstra: writes the cost to reach every cell within ``limit`` into
    ``out`` (H x W, pre-filled with inf). Returns the number of settled cells."""
    cdef uint32_t open_stamp = ws.begin()
    cdef uint32_t closed_stamp = open_stamp + 1
    cdef double[::1] g = ws.g
    cdef int32_t[::1] parent = ws.parent
    cdef uint32_t[::1] stamp = ws.stamp
    cdef Heap* heap = &ws.heap
    cdef int32_t* pos = &ws.pos[0]
    cdef int offset[8]
    cdef double length[8]
    cdef int u, v, d, s
    cdef uint8_t m
    cdef double gu, cu, ng
    cdef long settled = 0
    cdef int status = 0
    cdef Py_ssize_t k
    cdef HeapItem it
    step_tables(width, offset, length)
    with nogil:
        for k in range(sources.shape[0]):
            s = <int> sources[k]
            if stamp[s] != open_stamp:
                stamp[s] = open_stamp
                g[s] = 0.0
                parent[s] = -1
                if heap_push(heap, pos, 0.0, 0.0, s) != 0:
                    status = -1
        while status == 0 and heap.size > 0:
            it = heap_pop(heap, pos)
            u = it.node
            if stamp[u] == closed_stamp:
                continue
            if g[u] > limit:
                break
            stamp[u] = closed_stamp
            settled += 1
            out[u // width - 1, u % width - 1] = g[u]
            gu = g[u]
            cu = cost[u]
            m = moves[u]
            for d in range(8):
                if not (m >> d) & 1:
                    continue
                v = u + offset[d]
                if stamp[v] == closed_stamp:
                    continue
                ng = gu + length[d] * 0.5 * (cu + cost[v])
                if stamp[v] == open_stamp:
                    if ng < g[v] * (1.0 - TIE_EPS):
                        g[v] = ng
                        parent[v] = u
                        heap_decrease(heap, pos, v, ng, ng)
                    continue
                g[v] = ng
                parent[v] = u
                stamp[v] = open_stamp
                if heap_push(heap, pos, ng, ng, v) != 0:
                    status = -1
                    break
    if status < 0:
        raise MemoryError("open list could not grow")
    return settled
