# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Online jump point search on uniform-cost grids, with jumps scanned on bit-packed rows.

Grids use the padded, flattened layout of the other grid kernels (row width ``Wp = W + 2``,
blocked border) and the legal-move masks ``moves`` (bit d set when the step in direction d is
legal, bit order N, E, S, W, NE, SE, SW, NW).  Only the no-corner-cutting rule is meant: a
diagonal step needs both side cells free, so forced neighbours arise on straight moves only.

Jump points.  A cell ``n`` entered by a straight step in direction ``d`` from ``p = n - d`` is
a (primary) jump point for ``d`` when, for a side ``s`` perpendicular to ``d``, ``n + s`` is
free and ``p + s`` is blocked.  At a jump point entered by ``d`` the search continues in
``d``, each forced side ``s`` and the diagonal between ``d`` and ``s``; after a diagonal step
in that diagonal and its two components; from the start in all 8 directions.

Straight jumps read a :class:`JumpGrid`: the free cells as rows of bits, a transposed copy
for vertical jumps, and for each direction the stop bits of its scans (a cell blocked or
with a forced neighbour for that direction, two bit operations per word of the free bits,
made with the copy), so one step of a scan tests 56 cells with one load (``_jps_bits``).  Per
direction, reach bits mark the cells whose scan ends at a jump point rather than a wall (one
pass over the stop bits).  A diagonal jump scans a component direction from one of its cells
only where that bit is set or on the goal's row or column; the jump points (or the goal)
found there are successors of the node expanded, an edge being a diagonal run then a straight
run, of cost the octile distance of its ends.  Two successor rules:

* ``JPS`` (variant 0): a diagonal jump stops at the first cell with a successor beside it
  (the turning cell); that cell is queued, reached diagonally, when the diagonal goes on
  from it, and its expansion only continues the diagonal (its straight runs were scanned
  when it was reached).  It expands the jump points of classic JPS, without scanning the
  turning cells' straight runs twice.
* ``JPS2`` (variant 1): a diagonal jump runs on to the wall, so the turning cells on the
  diagonal never enter the open list (fewer expansions, longer scans).

Both are A* over jump points with the octile heuristic, which is consistent on these graphs
(every edge costs the octile distance of its ends), so closed nodes are final and costs
optimal.  The state lives in a :class:`Workspace` (its heap used without positions).  JPS+
(precomputed jump distances) is in ``_jps_plus``.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from ._constants cimport BAD_GOAL, BAD_START, FAILED, FOUND, SQRT2, TIE_EPS
from ._heap cimport Heap, IntVec, lazy_pop, lazy_push, vec_push
from ._jps_bits cimport LEAD, bit_words, fill_reach, fill_stops, scan_backward, scan_forward
from ._jps_tables cimport AFTER_DIAGONAL, AFTER_STRAIGHT, Counters, fill_after_straight, octile
from ._steps cimport step_dx, step_dy, step_of, step_offsets
from ._workspace cimport Workspace, check_workspace

cnp.import_array()

fill_after_straight()

cdef enum:
    RULE_JPS = 0
    RULE_JPS2 = 1

#: Successor rules of :meth:`JumpGrid.search`.
JPS = RULE_JPS
JPS2 = RULE_JPS2


cdef struct Bits:
    const uint64_t* rows    # row y of free bits at rows + y * row_words
    const uint64_t* cols    # column x of free bits at cols + x * col_words
    # Stop bits of the scans in each cardinal direction (N, E, S, W): E and W laid out as
    # rows, N and S as columns.
    const uint64_t* stop[4]
    # Reach bits, laid out as the stop bits: set when the scan from the cell in that
    # direction ends at a jump point (not at a wall).
    const uint64_t* reach[4]
    const uint8_t* moves
    int row_words
    int col_words
    int width


cdef struct Query:
    double* g
    int32_t* parent
    uint32_t* stamp
    Heap* heap
    IntVec* ties        # open nodes at the least f, expanded next (None when recording)
    double fmin         # the least f of the open list
    uint32_t open_stamp
    uint32_t closed_stamp
    int goal
    int gx
    int gy
    Counters c


cdef inline int arrival(int u, int p, int width) noexcept nogil:
    """Direction of the last step of the edge from parent p to u: the edge is a diagonal run
    then a straight run, so the straight direction unless the offset is purely diagonal."""
    cdef int dx = u % width - p % width
    cdef int dy = u // width - p // width
    cdef int ax = dx if dx >= 0 else -dx
    cdef int ay = dy if dy >= 0 else -dy
    if ax > ay:
        dy = 0
    elif ay > ax:
        dx = 0
    dx = (dx > 0) - (dx < 0)
    dy = (dy > 0) - (dy < 0)
    return step_of(dx, dy)


cdef inline int relax(Query* q, int u, int v, int vx, int vy, double ng) noexcept nogil:
    """A* relaxation of v reached from u with cost ng; returns -1 if memory ran out.

    The open list is a heap without positions: a node whose g improves is pushed again and
    its older item skipped when popped (its node is closed by then).  A successor whose f
    equals the least f goes to the LIFO side list ``ties`` (when there is one) and is
    expanded next without heap traffic: f never drops below the least f (consistent
    heuristic), so it is a least-f node."""
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
    q.stamp[v] = q.open_stamp
    if q.ties != NULL and f - q.fmin <= TIE_EPS * q.fmin:
        return vec_push(q.ties, v)
    return lazy_push(q.heap, f, ng, v)


cdef inline int pop_open(Query* q) noexcept nogil:
    """The next node to expand (a least-f open node), or -1 when the open list is empty."""
    cdef int u
    if q.ties != NULL:
        if q.heap.size + q.ties.size > q.c.max_open:
            q.c.max_open = q.heap.size + q.ties.size
        while q.ties.size > 0:
            q.ties.size -= 1
            u = q.ties.data[q.ties.size]
            if q.stamp[u] == q.open_stamp:
                return u
    elif q.heap.size > q.c.max_open:
        q.c.max_open = q.heap.size
    while q.heap.size > 0:
        q.fmin = q.heap.items[0].f
        u = lazy_pop(q.heap)
        if q.stamp[u] == q.open_stamp:
            return u
    return -1


cdef inline int run_end(int r, int gd) noexcept nogil:
    """A straight run's successor distance from its scan result r (jump point at r > 0, wall
    at -r) and the goal's distance gd along it (<= 0 when not on it): the goal, which is
    free, counts when it lies before the wall or at or before the jump point; -1 for none."""
    if gd > 0 and (gd <= r or gd < -r):
        return gd
    return r if r > 0 else -1


cdef inline bint bit_set(const uint64_t* line, int pos) noexcept nogil:
    return (line[pos >> 6] >> (pos & 63)) & 1


cdef inline int jump_straight(const Bits* b, int x, int y, int d, int gx,
                              int gy) noexcept nogil:
    """Steps from the free cell (x, y) in cardinal d to the first jump point or the goal, or
    -1 when the run ends at a wall first."""
    cdef int r, gd = 0
    if d & 1:
        if gy != y and not bit_set(b.reach[d] + y * b.row_words, LEAD + x):
            return -1
    elif gx != x and not bit_set(b.reach[d] + x * b.col_words, LEAD + y):
        return -1
    if d == 1:      # E
        r = scan_forward(b.stop[1] + y * b.row_words, b.rows + y * b.row_words, LEAD + x)
        if gy == y:
            gd = gx - x
    elif d == 3:    # W
        r = scan_backward(b.stop[3] + y * b.row_words, b.rows + y * b.row_words, LEAD + x)
        if gy == y:
            gd = x - gx
    elif d == 2:    # S
        r = scan_forward(b.stop[2] + x * b.col_words, b.cols + x * b.col_words, LEAD + y)
        if gx == x:
            gd = gy - y
    else:           # N
        r = scan_backward(b.stop[0] + x * b.col_words, b.cols + x * b.col_words, LEAD + y)
        if gx == x:
            gd = y - gy
    return run_end(r, gd)


cdef struct Diagonal:
    # A diagonal walk: the cell (x, y), flat index n, and the rows of bits its straight
    # scans read (the cell's row and column, and their neighbours).
    int n
    int x
    int y
    int dx
    int dy
    int step
    const uint64_t* row
    const uint64_t* col
    const uint64_t* hstop   # stop bits of the horizontal and vertical scans
    const uint64_t* vstop
    const uint64_t* hreach  # reach bits of the horizontal and vertical scans
    const uint64_t* vreach
    int rw
    int cw


cdef inline void walk_init(Diagonal* w, const Bits* b, int n, int x, int y, int d) noexcept nogil:
    w.n = n
    w.x = x
    w.y = y
    w.dx = step_dx(d)
    w.dy = step_dy(d)
    w.step = w.dy * b.width + w.dx
    w.rw = w.dy * b.row_words
    w.cw = w.dx * b.col_words
    w.row = b.rows + y * b.row_words
    w.col = b.cols + x * b.col_words
    w.hstop = b.stop[1 if w.dx > 0 else 3] + y * b.row_words
    w.vstop = b.stop[2 if w.dy > 0 else 0] + x * b.col_words
    w.hreach = b.reach[1 if w.dx > 0 else 3] + y * b.row_words
    w.vreach = b.reach[2 if w.dy > 0 else 0] + x * b.col_words


cdef inline void walk_step(Diagonal* w) noexcept nogil:
    w.n += w.step
    w.x += w.dx
    w.y += w.dy
    w.row += w.rw
    w.col += w.cw
    w.hstop += w.rw
    w.vstop += w.cw
    w.hreach += w.rw
    w.vreach += w.cw


cdef inline int walk_horizontal(const Diagonal* w, const Bits* b, int gx, int gy) noexcept nogil:
    """Steps from the walk's cell to the jump point (or goal) of its horizontal component,
    or -1."""
    cdef int r
    if w.dx > 0:
        r = scan_forward(w.hstop, w.row, LEAD + w.x)
        return run_end(r, gx - w.x if gy == w.y else 0)
    r = scan_backward(w.hstop, w.row, LEAD + w.x)
    return run_end(r, w.x - gx if gy == w.y else 0)


cdef inline int walk_vertical(const Diagonal* w, const Bits* b, int gx, int gy) noexcept nogil:
    """As :func:`walk_horizontal` for the vertical component."""
    cdef int r
    if w.dy > 0:
        r = scan_forward(w.vstop, w.col, LEAD + w.y)
        return run_end(r, gy - w.y if gx == w.x else 0)
    r = scan_backward(w.vstop, w.col, LEAD + w.y)
    return run_end(r, w.y - gy if gx == w.x else 0)


cdef inline int diagonal_successors(Query* q, const Bits* b, int u, int ux, int uy, int d,
                                    bint to_wall) noexcept nogil:
    """Relax the jump points (and the goal) reached from u by a diagonal run in d and a
    straight run in one of its components, as successors of u; returns -1 if memory ran out.

    ``to_wall`` (JPS2): the run goes on to the wall.  Otherwise it ends at the first cell
    with a successor found beside it (the turning cell), which is itself queued, reached
    diagonally, when the diagonal goes on from it; arriving diagonally, a node only
    continues its diagonal (its straight runs were scanned when it was reached)."""
    cdef Diagonal w
    cdef uint8_t bit = <uint8_t> (1 << d)
    cdef int jh, jv
    cdef double gd = q.g[u]
    walk_init(&w, b, u, ux, uy, d)
    while b.moves[w.n] & bit:
        walk_step(&w)
        gd += SQRT2
        if w.n == q.goal:
            return relax(q, u, w.n, w.x, w.y, gd)
        # A scan only where its reach bit says it ends at a jump point, or on the goal's
        # row or column.
        jh = -1
        if w.y == q.gy or bit_set(w.hreach, LEAD + w.x):
            jh = walk_horizontal(&w, b, q.gx, q.gy)
        if jh > 0 and relax(q, u, w.n + jh * w.dx, w.x + jh * w.dx, w.y, gd + jh) != 0:
            return -1
        jv = -1
        if w.x == q.gx or bit_set(w.vreach, LEAD + w.y):
            jv = walk_vertical(&w, b, q.gx, q.gy)
        if jv > 0 and relax(q, u, w.n + jv * w.dy * b.width, w.x, w.y + jv * w.dy,
                            gd + jv) != 0:
            return -1
        if not to_wall and (jh > 0 or jv > 0):
            if b.moves[w.n] & bit:
                return relax(q, u, w.n, w.x, w.y, gd)
            return 0
    return 0


cdef int jps_loop(Query* q, const Bits* b, int variant, bint record,
                  IntVec* rec) noexcept nogil:
    """Online JPS from start (already pushed); returns FOUND, FAILED or -1 (out of memory)."""
    cdef int offset[8]
    cdef int u, v, p, d, k, ux, uy, w = b.width
    cdef uint8_t dirs, mu
    cdef double gu
    step_offsets(w, offset)
    while True:
        u = pop_open(q)
        if u < 0:
            return FAILED
        q.stamp[u] = q.closed_stamp
        q.c.expanded += 1
        if record and vec_push(rec, u) != 0:
            return -1
        if u == q.goal:
            return FOUND
        mu = b.moves[u]
        p = q.parent[u]
        if p < 0:
            dirs = 0xFF
        else:
            d = arrival(u, p, w)
            if d < 4:
                dirs = AFTER_STRAIGHT[256 * d + mu]
            elif variant == RULE_JPS:
                dirs = <uint8_t> (1 << d)
            else:
                dirs = AFTER_DIAGONAL[d]
        dirs &= mu
        gu = q.g[u]
        ux = u % w
        uy = u // w
        for d in range(4):
            if (dirs >> d) & 1:
                k = jump_straight(b, ux, uy, d, q.gx, q.gy)
                if k > 0 and relax(q, u, u + k * offset[d], ux + k * step_dx(d),
                                   uy + k * step_dy(d), gu + k) != 0:
                    return -1
        for d in range(4, 8):
            if (dirs >> d) & 1 and diagonal_successors(q, b, u, ux, uy, d,
                                                       variant == RULE_JPS2) != 0:
                return -1


cdef class JumpGrid:
    """The free cells of a padded grid as rows of bits and as columns of bits, the stop bits
    of the scans in each direction, its move masks and (optionally) island ids: what the
    online jump point searches read (made in O(map / 64) word operations).

    ``moves``: padded, flattened move masks (no-corner-cutting rule), rows ``width`` wide.  A
    cell counts as free when it has a legal move: a free cell without one has no free
    4-neighbour, so it can never be beside a run nor on one.  ``islands``: ``(H, W)`` int32
    island ids (-1 blocked) of the unpadded grid, or None; :meth:`search` needs them.
    ``nbytes``: bytes of the bit arrays (ten bits per padded cell).
    """

    cdef readonly int width, height
    cdef readonly Py_ssize_t size
    cdef object rows_array, cols_array, stops_array, reach_array, moves_ref, islands_ref
    cdef const int32_t[:, ::1] islands
    cdef bint has_islands
    cdef Bits bits

    def __init__(self, const uint8_t[::1] moves, int width, object islands=None):
        cdef Py_ssize_t n = moves.shape[0], i
        cdef int height, x, y, rw, cw
        cdef uint64_t[::1] rows, cols, stops, reach
        cdef Py_ssize_t hw, cw_all
        if width < 3 or n % width != 0 or n // width < 3:
            raise ValueError(f"moves of size {n} are not a padded grid of row width {width}")
        height = <int> (n // width)
        self.width = width
        self.height = height
        self.size = n
        rw = bit_words(width)
        cw = bit_words(height)
        self.rows_array = np.zeros(height * rw, dtype=np.uint64)
        self.cols_array = np.zeros(width * cw, dtype=np.uint64)
        rows = self.rows_array
        cols = self.cols_array
        for y in range(height):
            for x in range(width):
                if moves[y * width + x]:
                    i = LEAD + x
                    rows[y * rw + (i >> 6)] |= (<uint64_t> 1) << (i & 63)
                    i = LEAD + y
                    cols[x * cw + (i >> 6)] |= (<uint64_t> 1) << (i & 63)
        # Stop bits: E and W over the rows, S and N over the columns.
        self.stops_array = np.zeros(2 * height * rw + 2 * width * cw, dtype=np.uint64)
        stops = self.stops_array
        fill_stops(&rows[0], &stops[0], &stops[height * rw], height, rw)
        fill_stops(&cols[0], &stops[2 * height * rw], &stops[2 * height * rw + width * cw],
                   width, cw)
        # Reach bits, in the layout of the stop bits.
        hw = height * rw
        cw_all = width * cw
        self.reach_array = np.zeros(2 * hw + 2 * cw_all, dtype=np.uint64)
        reach = self.reach_array
        fill_reach(&rows[0], &stops[0], &stops[hw], &reach[0], &reach[hw], height, rw)
        fill_reach(&cols[0], &stops[2 * hw], &stops[2 * hw + cw_all], &reach[2 * hw],
                   &reach[2 * hw + cw_all], width, cw)
        self.moves_ref = moves.base if moves.base is not None else np.asarray(moves)
        self.bits.rows = &rows[0]
        self.bits.cols = &cols[0]
        self.bits.stop[1] = &stops[0]
        self.bits.stop[3] = &stops[height * rw]
        self.bits.stop[2] = &stops[2 * height * rw]
        self.bits.stop[0] = &stops[2 * height * rw + width * cw]
        self.bits.reach[1] = &reach[0]
        self.bits.reach[3] = &reach[hw]
        self.bits.reach[2] = &reach[2 * hw]
        self.bits.reach[0] = &reach[2 * hw + cw_all]
        self.bits.moves = &moves[0]
        self.bits.row_words = rw
        self.bits.col_words = cw
        self.bits.width = width
        self.has_islands = islands is not None
        if self.has_islands:
            self.islands = islands
            if self.islands.shape[0] != height - 2 or self.islands.shape[1] != width - 2:
                raise ValueError(f"islands must have shape ({height - 2}, {width - 2})")
            self.islands_ref = islands

    @property
    def nbytes(self):
        """Bytes of the bit arrays (free cells by rows and columns, four of stop bits, four
        of reach bits)."""
        return (self.rows_array.nbytes + self.cols_array.nbytes + self.stops_array.nbytes
                + self.reach_array.nbytes)

    cdef int run(self, Workspace ws, int start, int goal, int variant, bint record,
                 Counters* c) except -9:
        """Search from padded index start to goal (free cells); FOUND or FAILED."""
        cdef Query q
        cdef int status
        check_workspace(ws, self.size)
        q.g = &ws.g[0]
        q.parent = &ws.parent[0]
        q.stamp = &ws.stamp[0]
        q.heap = &ws.heap
        q.ties = NULL if record else &ws.ties
        q.open_stamp = ws.begin()
        q.closed_stamp = q.open_stamp + 1
        q.goal = goal
        q.gx = goal % self.width
        q.gy = goal // self.width
        q.c.expanded = 0
        q.c.generated = 1
        q.c.updated = 0
        q.c.reopened = 0
        q.c.max_open = 0
        q.g[start] = 0.0
        q.parent[start] = -1
        q.stamp[start] = q.open_stamp
        q.fmin = octile(start % self.width - q.gx, start // self.width - q.gy)
        status = lazy_push(q.heap, q.fmin, 0.0, start)
        if status == 0:
            with nogil:
                status = jps_loop(&q, &self.bits, variant, record, &ws.record)
        c[0] = q.c
        if status < 0:
            raise MemoryError("open list could not grow")
        return status

    def search(self, Workspace ws, int sx, int sy, int gx, int gy, bint record=False,
               int variant=RULE_JPS):
        """Jump point search from cell (sx, sy) to (gx, gy) (unpadded) with the successor rule
        ``variant`` (:data:`JPS` or :data:`JPS2`), in ``ws`` (at least ``size`` nodes).

        Returns (status, g of the goal, expanded, generated, updated, max_open, path);
        status FOUND, FAILED (nothing is searched when the island ids differ), BAD_START or
        BAD_GOAL when the start or the goal is outside the grid or blocked: the codes of
        ``wayfinding._kernels._codes``; path the cells of :func:`jump_path` when found, else
        None.  start == goal is found at cost 0 without searching.  The expansions
        (``record``) are read back with ``ws.recorded()`` / ``ws.open_nodes()``.
        """
        cdef Counters c
        cdef int status, w = self.width
        cdef int start = (sy + 1) * w + sx + 1, goal = (gy + 1) * w + gx + 1
        if not self.has_islands:
            raise ValueError("this JumpGrid was built without island ids")
        c.expanded = c.generated = c.updated = c.reopened = c.max_open = 0
        if not (0 <= sx < w - 2 and 0 <= sy < self.height - 2) or self.islands[sy, sx] < 0:
            return (BAD_START, float("inf"), 0, 0, 0, 0, None)
        if not (0 <= gx < w - 2 and 0 <= gy < self.height - 2) or self.islands[gy, gx] < 0:
            return (BAD_GOAL, float("inf"), 0, 0, 0, 0, None)
        if start == goal:
            check_workspace(ws, self.size)
            ws.begin()
            ws.g[goal] = 0.0
            ws.parent[goal] = -1
            return (FOUND, 0.0, 0, 0, 0, 0, chain_cells(ws, goal, w))
        if self.islands[sy, sx] != self.islands[gy, gx]:
            check_workspace(ws, self.size)
            ws.begin()
            return (FAILED, float("inf"), 0, 0, 0, 0, None)
        status = self.run(ws, start, goal, variant, record, &c)
        if status == FOUND:
            return (FOUND, ws.g[goal], c.expanded, c.generated, c.updated, c.max_open,
                    chain_cells(ws, goal, w))
        return (status, float("inf"), c.expanded, c.generated, c.updated, c.max_open, None)


def jps_search(Workspace ws, const uint8_t[::1] moves, int width, int start, int goal,
               bint record):
    """Online jump point search from ``start`` to ``goal`` (padded flat indices of free
    cells), packing the grid's bits for this one query (a :class:`JumpGrid` reused across
    queries saves that).

    Returns (found, cost, expanded, generated, updated, max_open); the jump points are read
    back with :func:`jump_path` and, with ``record``, ``ws.recorded()`` / ``ws.open_nodes()``.
    """
    cdef Counters c
    cdef JumpGrid jg
    check_workspace(ws, moves.shape[0])
    jg = JumpGrid(moves, width)
    status = jg.run(ws, start, goal, RULE_JPS, record, &c)
    return (status == FOUND, ws.g[goal] if status == FOUND else float("inf"), c.expanded,
            c.generated, c.updated, c.max_open)


def jump_path(Workspace ws, int goal, int width):
    """``(n, 2)`` int64 ``(x, y)`` cells from the workspace query's start to ``goal``, every
    edge between consecutive nodes of the parent chain filled in cell by cell (its diagonal
    run first, then its straight run)."""
    return chain_cells(ws, goal, width)


cdef object chain_cells(Workspace ws, int goal, int width):
    """The cells of :func:`jump_path`."""
    cdef int32_t* parent = &ws.parent[0]
    cdef cnp.npy_intp dims[2]
    cdef Py_ssize_t n = 1, i
    cdef int v = goal, p, x, y, px, py, k, sx, sy, steps, diag
    cdef int64_t* o
    while parent[v] >= 0:
        p = parent[v]
        n += max(abs(v % width - p % width), abs(v // width - p // width))
        v = p
    dims[0] = n
    dims[1] = 2
    out = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT64, 0)
    o = <int64_t*> cnp.PyArray_DATA(out)
    v = goal
    x = v % width
    y = v // width
    i = 2 * n - 2
    o[i] = x - 1
    o[i + 1] = y - 1
    while parent[v] >= 0:
        p = parent[v]
        px = p % width
        py = p // width
        # Walking back from v: the straight run (toward the parent's row or column), then
        # the diagonal run to the parent.
        steps = max(abs(px - x), abs(py - y))
        diag = min(abs(px - x), abs(py - y))
        sx = (px > x) - (px < x)
        sy = (py > y) - (py < y)
        for k in range(steps):
            if k < steps - diag:
                if abs(px - x) > abs(py - y):
                    x += sx
                else:
                    y += sy
            else:
                x += sx
                y += sy
            i -= 2
            o[i] = x - 1
            o[i + 1] = y - 1
        v = p
    return out
