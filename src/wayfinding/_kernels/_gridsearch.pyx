# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Grid search kernels over a padded, flattened grid.

A grid of H x W cells is stored with a one-cell blocked border, row-major, width ``Wp = W + 2``.
Cell ``(x, y)`` has flat index ``(y + 1) * Wp + (x + 1)``.  ``moves[i]`` is a bit mask of the
legal steps out of cell ``i`` (bit d for direction d: N, E, S, W, NE, SE, SW, NW), already
folding in blocked cells and the diagonal rule, so the inner loops test one bit per step.
A step of base length L (1 or sqrt 2) between cells u and v costs ``L * (cost[u] + cost[v]) / 2``.

A search state costs 20 bytes per cell (g float64, parent int32, heap slot int32, stamp
uint32) plus the open list, an indexed binary heap with decrease-key.  Stamps carry a
generation counter, so no per-query reset of the node arrays is needed.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc

from ._budget cimport Budget, make_budget, spent
from ._constants cimport (
    DH_EPS,
    FAILED,
    FOUND,
    H_CHEBYSHEV,
    H_EUCLIDEAN,
    H_MANHATTAN,
    H_OCTILE,
    H_ZERO,
    RUNNING,
    SQRT2_M1,
    TIE_EPS,
)
from ._dijkstra cimport relax_neighbours
from ._grid_cells cimport answer_without_search, plain_cells
from ._heap cimport Heap, HeapItem, IntVec, heap_decrease, heap_pop, heap_push, vec_push
from ._steps cimport step_dx, step_dy, step_tables
from ._workspace cimport Workspace, check_workspace

cnp.import_array()

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
        return hi + SQRT2_M1 * lo
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


cdef struct Loop:
    # The state of a best-first search between two slices (the node arrays, open list and
    # tie list live in the workspace).
    int start
    int goal
    int hkind
    double hscale
    bint greedy
    bint record
    bint uniform
    uint32_t open_stamp
    double fu           # f of the node expanded last (the tie list holds nodes of that f)
    Counters c


cdef int best_first_begin(Workspace ws, int width, Loop* s,
                          const PivotSource* pv) noexcept nogil:
    """Put the start on the open list; returns -1 if memory ran out."""
    cdef double hv = s.hscale * heuristic(s.hkind, s.start, s.goal, width), hd
    if PivotSource is Pivots:
        hd = pivot_bound(pv, s.start)
        hv = hd if hd > hv else hv
    ws.stamp[s.start] = s.open_stamp
    ws.g[s.start] = 0.0
    ws.parent[s.start] = -1
    s.fu = 0.0
    s.c.expanded = 0
    s.c.generated = 1
    s.c.updated = 0
    s.c.max_open = 1
    return heap_push(&ws.heap, &ws.pos[0], hv, 0.0, s.start)


cdef int best_first(Workspace ws, const double[::1] cost, const uint8_t[::1] moves,
                    int width, Loop* s, const PivotSource* pv, const uint16_t* bounds,
                    const Budget* budget) noexcept nogil:
    """A*-family search, resumed where the last slice stopped; returns FOUND, FAILED,
    RUNNING (the budget ran out) or -1 (out of memory).  ``bounds`` (or NULL): goal-bound
    boxes, 32 values per padded cell; steps whose box misses the goal are skipped."""
    cdef uint32_t open_stamp = s.open_stamp, closed_stamp = open_stamp + 1
    cdef double[::1] g = ws.g
    cdef int32_t[::1] parent = ws.parent
    cdef uint32_t[::1] stamp = ws.stamp
    cdef Heap* heap = &ws.heap
    cdef int offset[8]
    cdef double length[8]
    cdef int u, v, d, ux, uy
    cdef int goal = s.goal, hkind = s.hkind
    cdef int gx = goal % width, gy = goal // width
    cdef double hscale = s.hscale
    cdef bint greedy = s.greedy, record = s.record, uniform = s.uniform
    cdef uint8_t m
    cdef double gu, cu, ng, hv
    cdef HeapItem it
    step_tables(width, offset, length)

    cdef long expanded = s.c.expanded, generated = s.c.generated, updated = s.c.updated
    cdef long max_open = s.c.max_open, done = 0
    cdef IntVec* ties = &ws.ties
    cdef int32_t* pos = &ws.pos[0]
    cdef double f, fu = s.fu
    cdef int status = FAILED
    while True:
        if spent(budget, done):
            status = RUNNING
            break
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
        done += 1
        if record and vec_push(&ws.record, u) != 0:
            status = -1
            break
        if u == goal:
            status = FOUND
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
            hv = hscale * heuristic_xy(hkind, ux + step_dx(d), uy + step_dy(d)) \
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
    s.c.expanded = expanded
    s.c.generated = generated
    s.c.updated = updated
    s.c.max_open = max_open
    s.fu = fu
    if status < 0 or status == RUNNING:
        return status
    # Leave the whole open list in the heap for ``Workspace.open_nodes``.
    while ties.size > 0:
        ties.size -= 1
        if heap_push(heap, pos, fu, g[ties.data[ties.size]], ties.data[ties.size]) != 0:
            return -1
    return status


_NO_PIVOTS = np.empty((0, 1), dtype=np.float64)


cdef class GridRun:
    """A best-first grid search that runs in slices: :meth:`advance` until it is done.

    Arguments as :func:`search`.  The search state lives in ``ws``: a query started on the
    same workspace before this one is done makes it :attr:`stale`.
    """
    cdef Workspace ws
    cdef const double[::1] cost
    cdef const uint8_t[::1] moves
    cdef const double[:, :] pivots
    cdef const uint16_t[:, :, ::1] bounds
    cdef int width
    cdef Pivots pv
    cdef Loop s
    cdef readonly int status

    def __cinit__(self, Workspace ws, const double[::1] cost, const uint8_t[::1] moves,
                  int width, int start, int goal, int hkind, double hscale, bint greedy,
                  bint record, bint uniform=False, const double[:, :] pivots=_NO_PIVOTS,
                  double pscale=1.0, const uint16_t[:, :, ::1] bounds=None):
        cdef Py_ssize_t k = pivots.shape[0], i
        cdef double dg
        self.pv.count = 0
        self.pv.row = NULL
        self.pv.lo = NULL
        self.pv.hi = NULL
        check_workspace(ws, moves.shape[0])
        if k > 0 and pivots.shape[1] != cost.shape[0]:
            raise ValueError(
                f"pivot table has {pivots.shape[1]} columns for {cost.shape[0]} cells")
        if bounds is not None and (bounds.shape[0] != moves.shape[0] or bounds.shape[1] != 8
                                   or bounds.shape[2] != 4):
            raise ValueError("bounds must have shape (padded cells, 8, 4)")
        self.pv.scale = pscale
        self.pv.table = &pivots[0, 0] if k > 0 else NULL
        self.pv.step = pivots.strides[1] // sizeof(double)
        if k > 0:
            self.pv.row = <Py_ssize_t*> malloc(k * sizeof(Py_ssize_t))
            self.pv.lo = <double*> malloc(k * sizeof(double))
            self.pv.hi = <double*> malloc(k * sizeof(double))
            if self.pv.row == NULL or self.pv.lo == NULL or self.pv.hi == NULL:
                raise MemoryError("cannot allocate the pivot list")
            for i in range(k):
                dg = pivots[i, goal]
                if dg < INFINITY:  # a pivot that does not reach the goal says nothing
                    self.pv.row[self.pv.count] = i * (pivots.strides[0] // sizeof(double))
                    self.pv.lo[self.pv.count] = dg * (1.0 - DH_EPS)
                    self.pv.hi[self.pv.count] = dg * (1.0 + DH_EPS)
                    self.pv.count += 1
        self.ws = ws
        self.cost = cost
        self.moves = moves
        self.pivots = pivots
        self.bounds = bounds
        self.width = width
        self.s.start = start
        self.s.goal = goal
        self.s.hkind = hkind
        self.s.hscale = hscale
        self.s.greedy = greedy
        self.s.record = record
        self.s.uniform = uniform
        self.s.open_stamp = ws.begin()
        cdef NoPivots none
        none.count = 0
        cdef int status = best_first_begin(ws, width, &self.s, &self.pv) if self.pv.count \
            else best_first_begin(ws, width, &self.s, &none)
        if status != 0:
            raise MemoryError("open list could not grow")
        self.status = RUNNING

    def __dealloc__(self):
        free(self.pv.row)
        free(self.pv.lo)
        free(self.pv.hi)

    @property
    def stale(self):
        """Whether another query has since started on the workspace."""
        return 2 * self.ws.generation != self.s.open_stamp

    @property
    def cost(self):
        """Cost of the path found (inf unless found)."""
        return self.ws.g[self.s.goal] if self.status == FOUND else INFINITY

    @property
    def counters(self):
        """(expanded, generated, updated, max_open) so far."""
        return self.s.c.expanded, self.s.c.generated, self.s.c.updated, self.s.c.max_open

    def advance(self, int64_t max_expansions=-1, double max_seconds=INFINITY):
        """Expand up to ``max_expansions`` more cells (< 0: no limit) for at most
        ``max_seconds``; returns the status: 2 running, 1 found, 0 failed."""
        if self.status != RUNNING:
            return self.status
        if self.stale:
            raise ValueError("another query has started on this workspace")
        cdef Budget b = make_budget(max_expansions, max_seconds)
        cdef Workspace ws = self.ws
        cdef const uint16_t* box = &self.bounds[0, 0, 0] if self.bounds is not None else NULL
        cdef NoPivots none
        cdef int status
        none.count = 0
        with nogil:
            if self.pv.count > 0:
                status = best_first(ws, self.cost, self.moves, self.width, &self.s, &self.pv,
                                    box, &b)
            else:
                status = best_first(ws, self.cost, self.moves, self.width, &self.s, &none,
                                    box, &b)
        if status < 0:
            self.status = FAILED
            raise MemoryError("open list could not grow")
        self.status = status
        return status


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
    The path is read back with ``ws.path_cells(goal, width)``.  :class:`GridRun` runs the
    same search in slices.
    """
    run = GridRun(ws, cost, moves, width, start, goal, hkind, hscale, greedy, record, uniform,
                  pivots, pscale, bounds)
    found = run.advance() == FOUND
    return (found, run.cost) + run.counters


cdef class CellSearch:
    """One-call best-first searches between ``(x, y)`` cells of one grid: its step costs,
    moves and island ids (``(H, W)``, -1 on blocked cells), taken once and only read, so
    one serves every thread."""
    cdef const double[::1] cost
    cdef const uint8_t[::1] moves
    cdef const int32_t[:, ::1] islands
    cdef int width
    cdef bint uniform

    def __init__(self, const double[::1] cost, const uint8_t[::1] moves,
                 const int32_t[:, ::1] islands, bint uniform):
        self.width = <int> islands.shape[1] + 2
        if moves.shape[0] != (islands.shape[0] + 2) * self.width \
                or cost.shape[0] != moves.shape[0]:
            raise ValueError("moves and cost must have one entry per padded cell of islands")
        self.cost, self.moves, self.islands, self.uniform = cost, moves, islands, uniform

    def find(self, Workspace ws not None, object start, object goal, int hkind, double hscale,
             bint greedy):
        """:func:`search` from cell ``start`` to ``goal`` (unpadded ``(x, y)``, each a tuple
        of two ints), checked here, without a record.

        Returns None, searching nothing, when ``start`` or ``goal`` is not such a tuple;
        else (status, cost, expanded, generated, updated, max_open, path) as
        ``_jps.JumpGrid.search``: status FOUND, FAILED (nothing is searched when the island
        ids differ), BAD_START or BAD_GOAL (outside the grid or blocked); path the ``(n,
        2)`` int64 cells when found, else None.  start == goal is found at cost 0 without
        searching.
        """
        if not plain_cells(start, goal):
            return None
        cdef long sx = (<tuple> start)[0], sy = (<tuple> start)[1]
        cdef long gx = (<tuple> goal)[0], gy = (<tuple> goal)[1]
        cdef int width = self.width, status
        cdef Loop s
        cdef NoPivots none
        cdef Budget b = make_budget(-1, INFINITY)
        answer = answer_without_search(ws, self.islands, sx, sy, gx, gy)
        if answer is not None:
            return answer
        check_workspace(ws, self.moves.shape[0])
        s.start = <int> ((sy + 1) * width + sx + 1)
        s.goal = <int> ((gy + 1) * width + gx + 1)
        s.open_stamp = ws.begin()
        s.hkind = hkind
        s.hscale = hscale
        s.greedy = greedy
        s.record = False
        s.uniform = self.uniform
        none.count = 0
        with nogil:
            status = best_first_begin(ws, width, &s, &none)
            if status == 0:
                status = best_first(ws, self.cost, self.moves, width, &s, &none, NULL, &b)
        if status < 0:
            raise MemoryError("open list could not grow")
        return (status, ws.g[s.goal] if status == FOUND else INFINITY, s.c.expanded,
                s.c.generated, s.c.updated, s.c.max_open,
                ws.path_cells(s.goal, width) if status == FOUND else None)


cdef class BfsRun:
    """Breadth-first search (fewest steps) in slices; the queue is kept between slices."""
    cdef Workspace ws
    cdef const uint8_t[::1] moves
    cdef int width, goal
    cdef bint record
    cdef uint32_t closed_stamp
    cdef IntVec queue
    cdef Py_ssize_t head
    cdef Counters c
    cdef readonly int status

    def __cinit__(self, Workspace ws, const uint8_t[::1] moves, int width, int start,
                  int goal, bint record):
        check_workspace(ws, moves.shape[0])
        self.ws = ws
        self.moves = moves
        self.width = width
        self.goal = goal
        self.record = record
        self.closed_stamp = ws.begin() + 1
        self.head = 0
        self.c.expanded = 0
        self.c.generated = 1
        self.c.updated = 0
        self.c.max_open = 1
        ws.stamp[start] = self.closed_stamp
        ws.parent[start] = -1
        if vec_push(&self.queue, start) != 0:
            raise MemoryError("queue could not grow")
        self.status = RUNNING

    def __dealloc__(self):
        free(self.queue.data)

    @property
    def stale(self):
        """Whether another query has since started on the workspace."""
        return 2 * self.ws.generation + 1 != self.closed_stamp

    @property
    def counters(self):
        """(expanded, generated, updated, max_open) so far."""
        return self.c.expanded, self.c.generated, self.c.updated, self.c.max_open

    def advance(self, int64_t max_expansions=-1, double max_seconds=INFINITY):
        """As :meth:`GridRun.advance`."""
        if self.status != RUNNING:
            return self.status
        if self.stale:
            raise ValueError("another query has started on this workspace")
        cdef Budget b = make_budget(max_expansions, max_seconds)
        cdef int32_t[::1] parent = self.ws.parent
        cdef uint32_t[::1] stamp = self.ws.stamp
        cdef IntVec* record = &self.ws.record
        cdef IntVec* queue = &self.queue
        cdef int offset[8]
        cdef double length[8]
        cdef int u, v, d, status = FAILED
        cdef uint8_t m
        cdef long done = 0
        step_tables(self.width, offset, length)
        with nogil:
            while self.head < queue.size:
                if spent(&b, done):
                    status = RUNNING
                    break
                u = queue.data[self.head]
                self.head += 1
                self.c.expanded += 1
                done += 1
                if self.record and vec_push(record, u) != 0:
                    status = -1
                    break
                if u == self.goal:
                    status = FOUND
                    break
                m = self.moves[u]
                for d in range(8):
                    if not (m >> d) & 1:
                        continue
                    v = u + offset[d]
                    if stamp[v] == self.closed_stamp:
                        continue
                    stamp[v] = self.closed_stamp
                    parent[v] = u
                    if vec_push(queue, v) != 0:
                        status = -1
                        break
                    self.c.generated += 1
                if status < 0:
                    break
                if queue.size - self.head > self.c.max_open:
                    self.c.max_open = queue.size - self.head
        if status < 0:
            self.status = FAILED
            raise MemoryError("queue could not grow")
        self.status = status
        return status


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
                              const uint8_t[::1] moves, int width, int hkind, double hscale,
                              Counters* c, double* best, int* meet,
                              const Budget* budget) noexcept nogil:
    """Bidirectional A* (front-to-end), resumed where the last slice stopped; stops once
    either frontier's least f reaches the best meeting cost, which is optimal for consistent
    heuristics.  Returns FOUND, FAILED, RUNNING or -1."""
    cdef int offset[8]
    cdef double length[8]
    cdef double gu, cu, ng, hv
    cdef int u, v, d
    cdef long done = 0
    cdef uint8_t m
    cdef Side* ws
    cdef Side* other
    cdef uint32_t closed_stamp
    cdef HeapItem it
    step_tables(width, offset, length)
    while fw.heap.size > 0 and bw.heap.size > 0:
        if fw.heap.items[0].f >= best[0] or bw.heap.items[0].f >= best[0]:
            break
        if spent(budget, done):
            return RUNNING
        if fw.heap.size <= bw.heap.size:
            ws, other = fw, bw
        else:
            ws, other = bw, fw
        closed_stamp = ws.open_stamp + 1
        it = heap_pop(ws.heap, ws.pos)
        u = it.node
        ws.stamp[u] = closed_stamp
        c.expanded += 1
        done += 1
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
                    and ng + other.g[v] < best[0]:
                best[0] = ng + other.g[v]
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
    return FOUND if meet[0] >= 0 else FAILED


cdef class BidirectionalRun:
    """Bidirectional A* in slices over two workspaces (forward and backward)."""
    cdef Workspace fw_ws, bw_ws
    cdef const double[::1] cost
    cdef const uint8_t[::1] moves
    cdef int width, hkind
    cdef double hscale
    cdef Side fw, bw
    cdef Counters c
    cdef double best
    cdef readonly int meet
    cdef readonly int status

    def __cinit__(self, Workspace fw, Workspace bw, const double[::1] cost,
                  const uint8_t[::1] moves, int width, int start, int goal, int hkind,
                  double hscale):
        check_workspace(fw, moves.shape[0])
        check_workspace(bw, moves.shape[0])
        self.fw_ws = fw
        self.bw_ws = bw
        self.cost = cost
        self.moves = moves
        self.width = width
        self.hkind = hkind
        self.hscale = hscale
        side_of(fw, fw.begin(), goal, &self.fw)
        side_of(bw, bw.begin(), start, &self.bw)
        self.best = INFINITY
        self.meet = -1
        self.c.expanded = 0
        self.c.generated = 2
        self.c.updated = 0
        self.c.max_open = 0
        self.fw.stamp[start] = self.fw.open_stamp
        self.fw.g[start] = 0.0
        self.fw.parent[start] = -1
        self.bw.stamp[goal] = self.bw.open_stamp
        self.bw.g[goal] = 0.0
        self.bw.parent[goal] = -1
        if heap_push(self.fw.heap, self.fw.pos,
                     hscale * heuristic(hkind, start, goal, width), 0.0, start) != 0 \
                or heap_push(self.bw.heap, self.bw.pos,
                             hscale * heuristic(hkind, goal, start, width), 0.0, goal) != 0:
            raise MemoryError("open list could not grow")
        self.status = RUNNING

    @property
    def stale(self):
        """Whether another query has since started on either workspace."""
        return 2 * self.fw_ws.generation != self.fw.open_stamp \
            or 2 * self.bw_ws.generation != self.bw.open_stamp

    @property
    def counters(self):
        """(expanded, generated, updated, max_open) so far."""
        return self.c.expanded, self.c.generated, self.c.updated, self.c.max_open

    @property
    def cost(self):
        """Cost of the path found (inf unless found)."""
        return self.best if self.status == FOUND else INFINITY

    def advance(self, int64_t max_expansions=-1, double max_seconds=INFINITY):
        """As :meth:`GridRun.advance`."""
        if self.status != RUNNING:
            return self.status
        if self.stale:
            raise ValueError("another query has started on these workspaces")
        cdef Budget b = make_budget(max_expansions, max_seconds)
        cdef int status, meet = self.meet
        cdef double best = self.best
        with nogil:
            status = bidirectional_search(&self.fw, &self.bw, self.cost, self.moves,
                                          self.width, self.hkind, self.hscale, &self.c, &best,
                                          &meet, &b)
        self.best = best
        self.meet = meet
        if status < 0:
            self.status = FAILED
            raise MemoryError("open list could not grow")
        self.status = status
        return status


cdef long dijkstra_flood(Workspace ws, uint32_t open_stamp, const double* cost,
                         const uint8_t* moves, int width, const long long[::1] sources,
                         double limit, double[:, ::1] out) noexcept nogil:
    """The search of :func:`flood` in ``ws``, whose query ``open_stamp`` has begun; returns
    the number of settled cells, or -1 when memory ran out."""
    cdef uint32_t closed_stamp = open_stamp + 1
    cdef double* g = &ws.g[0]
    cdef uint32_t* stamp = &ws.stamp[0]
    cdef int32_t* parent = &ws.parent[0]
    cdef Heap* heap = &ws.heap
    cdef int32_t* pos = &ws.pos[0]
    cdef int offset[8]
    cdef double length[8]
    cdef int u, s
    cdef long settled = 0
    cdef Py_ssize_t k
    cdef HeapItem it
    step_tables(width, offset, length)
    for k in range(sources.shape[0]):
        s = <int> sources[k]
        if stamp[s] != open_stamp:
            stamp[s] = open_stamp
            g[s] = 0.0
            parent[s] = -1
            if heap_push(heap, pos, 0.0, 0.0, s) != 0:
                return -1
    while heap.size > 0:
        it = heap_pop(heap, pos)
        u = it.node
        if stamp[u] == closed_stamp:
            continue
        if g[u] > limit:
            break
        stamp[u] = closed_stamp
        settled += 1
        out[u // width - 1, u % width - 1] = g[u]
        if relax_neighbours(heap, pos, g, stamp, parent, cost, moves, offset, length, u,
                            open_stamp, closed_stamp) != 0:
            return -1
    return settled


def flood(Workspace ws, const double[::1] cost, const uint8_t[::1] moves, int width,
          const long long[::1] sources, double limit, double[:, ::1] out):
    """Multi-source Dijkstra: writes the cost to reach every cell within ``limit`` into
    ``out`` (H x W, pre-filled with inf). Returns the number of settled cells."""
    cdef Py_ssize_t n = moves.shape[0]
    cdef int h = out.shape[0], w = out.shape[1]
    cdef long settled
    if cost.shape[0] != n or n != (h + 2) * (w + 2) or width != w + 2:
        raise ValueError("cost, moves, width and out sizes disagree")
    check_workspace(ws, n)
    cdef uint32_t open_stamp = ws.begin()
    with nogil:
        settled = dijkstra_flood(ws, open_stamp, &cost[0], &moves[0], width, sources, limit,
                                 out)
    if settled < 0:
        raise MemoryError("open list could not grow")
    return settled
