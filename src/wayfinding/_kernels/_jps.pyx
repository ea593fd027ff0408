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

Straight jumps read a :class:`JumpGrid`: for each direction the stop bits of its scans (a
cell blocked or with a forced neighbour for that direction, two bit operations per word of
the free cells as rows of bits, or as columns for vertical jumps), so one step of a scan
tests 56 cells with one load (``_jps_bits``).  Per direction, reach bits mark the cells
whose scan ends at a jump point rather than a wall (one pass over the stop bits), so a scan
never reads the free cells: a cell without the bit has nothing to scan unless the goal is on
its line.  A cell's reach bits sit beside its move mask in one 16-bit word, so an
expansion or a stop of a diagonal walk reads what it needs of its cell in one load.  A
diagonal jump scans a component direction from one of its cells only where that bit is set
or on the goal's row or column; per diagonal direction, one line of bits per diagonal of the
grid marks where either component's reach bit is set or the diagonal ends, so the walk goes
from one such cell to the next with one load per 56 cells.  The jump points (or the goal)
found beside the diagonal are successors of the node expanded, an edge being a diagonal run
then a straight run, of cost the octile distance of its ends.  Two successor rules:

* ``JPS`` (variant 0): a diagonal jump stops at the first cell with a successor beside it
  (the turning cell); that cell is queued, reached diagonally, when the diagonal goes on
  from it, and its expansion only continues the diagonal (its straight runs were scanned
  when it was reached).  A turning cell of the least f is expanded at once, the walk going
  on from it.  It expands the jump points of classic JPS, without scanning the
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
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from ._constants cimport FAILED, FOUND, SQRT2, TIE_EPS
from ._grid_cells cimport answer_without_search, plain_cells
from ._heap cimport Heap, IntVec, lazy_pop, lazy_push, vec_push
from ._jps_bits cimport LEAD, bit_words, fill_reach, fill_stops, next_backward, next_forward
from ._jps_tables cimport AFTER_DIAGONAL, AFTER_STRAIGHT, Counters, fill_after_straight, octile
from ._portable cimport ctz64, prefetch_write
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


cdef enum:
    # Bit of cardinal d's reach bit in a cell word (:attr:`Bits.cells`).
    REACH_SHIFT = 8


cdef struct WalkSetup:
    # What a diagonal walk in one direction reads (:func:`diagonal_successors`): its steps,
    # the bits of its components' reach bits in a cell word, the stop bits of its
    # components' scans (line 0) and the line of its diagonal through cell (0, 0), stepped
    # by ``line_dy`` words per row (the diagonal's line index is x +- y + const).
    int dx
    int dy
    int step
    int hshift
    int vshift
    int line_dy
    const uint64_t* hstop
    const uint64_t* vstop
    const uint64_t* line


cdef struct Bits:
    # Stop bits of the scans in each cardinal direction (N, E, S, W): E and W laid out as
    # rows (row y at y * row_words), N and S as columns (column x at x * col_words).
    const uint64_t* stop[4]
    # Per diagonal direction (NE, SE, SW, NW), one line of bits per diagonal of the grid
    # (row_words words, bit LEAD + x for the cell in column x): set where a walk in that
    # direction must stop (see :func:`diagonal_line`).
    const uint64_t* diag[4]
    # Per padded cell, its move mask (bits 0..7) and its reach bits (bit REACH_SHIFT + d set
    # when the scan from the cell in cardinal d ends at a jump point, not at a wall): what
    # an expansion or a stop of a diagonal walk reads about its cell, in one load.
    const uint16_t* cells
    WalkSetup walks[4]  # per diagonal direction (NE, SE, SW, NW)
    int row_words
    int col_words
    int width
    int height
    double inv_width    # 1 / width, for row_of


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


cdef inline int row_of(int n, const Bits* b) noexcept nogil:
    """The row of padded flat index n, n // width without a division: n + 0.5 lies strictly
    inside (row, row + 1) times width, by a margin far above the product's rounding."""
    return <int> ((n + 0.5) * b.inv_width)


cdef inline int arrival(int ux, int uy, int p, const Bits* b) noexcept nogil:
    """Direction of the last step of the edge from parent p to u = (ux, uy): the edge is a
    diagonal run then a straight run, so the straight direction unless the offset is purely
    diagonal."""
    cdef int width = b.width
    cdef int py = row_of(p, b)
    cdef int dx = ux - (p - py * width)
    cdef int dy = uy - py
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


cdef inline int turn_now(Query* q, int u, int t, int tx, int ty, double ng) noexcept nogil:
    """The turning cell t of a diagonal from u, reached with cost ng: expanded at once (1)
    when it would go to the side list of least-f nodes, which makes it a least-f node, so
    that the walk goes on from it without a round trip through the open list; else relaxed
    as any successor (0, or -1 if memory ran out)."""
    cdef uint32_t st = q.stamp[t]
    if (q.ties == NULL or st == q.closed_stamp
            or (st == q.open_stamp and ng >= q.g[t] * (1.0 - TIE_EPS))
            or ng + octile(tx - q.gx, ty - q.gy) - q.fmin > TIE_EPS * q.fmin):
        return relax(q, u, t, tx, ty, ng)
    if st == q.open_stamp:
        q.c.updated += 1
    else:
        q.c.generated += 1
    q.g[t] = ng
    q.parent[t] = u
    q.stamp[t] = q.closed_stamp
    q.c.expanded += 1
    return 1


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


cdef inline int run_end(int k, bint reach, int gd) noexcept nogil:
    """A straight run's successor distance from the distance k of its first stop, a jump
    point when ``reach`` (the reach bit of the run's first cell) else a wall, and the goal's
    distance gd along it (<= 0 when not on it): the goal, which is free, counts when it lies
    at or before the jump point or before the wall; -1 for none."""
    if gd > 0 and (gd < k or (reach and gd == k)):
        return gd
    return k if reach else -1


cdef inline bint bit_set(const uint64_t* line, int pos) noexcept nogil:
    return (line[pos >> 6] >> (pos & 63)) & 1


cdef inline int scan_run(const uint64_t* stop, int pos, bint forward, bint reach,
                         int gd) noexcept nogil:
    """:func:`run_end` of the straight run from bit ``pos`` of a line of stop bits, toward
    higher bits when ``forward``; the free bits are not read: the reach bit tells what the
    first stop is."""
    cdef int k = next_forward(stop, pos) if forward else next_backward(stop, pos)
    return run_end(k, reach, gd)


cdef inline int jump_straight(const Bits* b, int x, int y, int d, bint reach, int gx,
                              int gy) noexcept nogil:
    """Steps from the free cell (x, y) in cardinal d, whose reach bit for d is ``reach`` (or
    which lies on the goal's row or column), to the first jump point or the goal, or -1 when
    the run ends at a wall first."""
    if d & 1:       # E, W: along row y
        return scan_run(b.stop[d] + y * b.row_words, LEAD + x, d == 1, reach,
                        (gx - x if d == 1 else x - gx) if gy == y else 0)
    return scan_run(b.stop[d] + x * b.col_words, LEAD + y, d == 2, reach,     # S, N
                    (gy - y if d == 2 else y - gy) if gx == x else 0)


cdef void fill_walks(Bits* b) noexcept nogil:
    """The :class:`WalkSetup` of each diagonal direction of ``b`` (its stop bits and lines
    of diagonal stop bits set)."""
    cdef int d, dx, dy
    cdef WalkSetup* s
    for d in range(4, 8):
        s = &b.walks[d - 4]
        dx = step_dx(d)
        dy = step_dy(d)
        s.dx = dx
        s.dy = dy
        s.step = dy * b.width + dx
        s.hshift = REACH_SHIFT + (1 if dx > 0 else 3)
        s.vshift = REACH_SHIFT + (2 if dy > 0 else 0)
        s.hstop = b.stop[1 if dx > 0 else 3]
        s.vstop = b.stop[2 if dy > 0 else 0]
        s.line = b.diag[d - 4] + diagonal_line(0, 0, d, b.height) * b.row_words
        s.line_dy = (diagonal_line(0, 1, d, b.height) - diagonal_line(0, 0, d, b.height)) \
            * b.row_words


cdef inline int diagonal_line(int x, int y, int d, int height) noexcept nogil:
    """Index of the diagonal through padded cell (x, y) in direction d: x + y for NE and SW,
    x - y + height - 1 for SE and NW (0 .. width + height - 2)."""
    return x + y if d == 4 or d == 6 else x - y + height - 1


cdef inline int diagonal_successors(Query* q, const Bits* b, int u, int ux, int uy, int d,
                                    bint to_wall) noexcept nogil:
    """Relax the jump points (and the goal) reached from u by a diagonal run in d and a
    straight run in one of its components, as successors of u; returns -1 if memory ran out.

    ``to_wall`` (JPS2): the run goes on to the wall.  Otherwise it ends at the first cell
    with a successor found beside it (the turning cell), which is itself queued, reached
    diagonally, when the diagonal goes on from it; arriving diagonally, a node only
    continues its diagonal (its straight runs were scanned when it was reached).  A
    turning cell of the least f is expanded at once (:func:`turn_now`): the walk goes on
    from it, as its successors' parent.

    The walk visits only the cells where something can happen: the next stop bit of its
    diagonal (a reach bit of a component set, or no further step), or the goal's row or
    column, whichever comes first; the cells between have no successor beside them."""
    cdef const WalkSetup* s = &b.walks[d - 4]
    cdef uint8_t bit = <uint8_t> (1 << d)
    cdef int jh, jv, k, r, steps = 0
    cdef int n = u, x = ux, y = uy, dx = s.dx, dy = s.dy
    cdef bint reach
    cdef uint16_t cell
    cdef double gd, g0 = q.g[u]
    cdef const uint64_t* line
    cdef const uint64_t* hstop      # the stop bits of the cell's row and column
    cdef const uint64_t* vstop
    if not (b.cells[u] & bit):
        return 0
    line = s.line + x * b.row_words + y * s.line_dy
    while True:
        # The step from the walk's cell (x, y) is legal: go to the next cell that needs a
        # look.
        if dx > 0:
            k = next_forward(line, LEAD + x)
        else:
            k = next_backward(line, LEAD + x)
        r = (q.gx - x) * dx
        if 0 < r < k:
            k = r
        r = (q.gy - y) * dy
        if 0 < r < k:
            k = r
        n += k * s.step
        x += k * dx
        y += k * dy
        hstop = s.hstop + y * b.row_words
        vstop = s.vstop + x * b.col_words
        # What this cell may need next does not depend on its cell word: start loading it.
        prefetch_write(hstop + ((LEAD + x) >> 6))
        prefetch_write(vstop + ((LEAD + y) >> 6))
        steps += k
        gd = g0 + steps * SQRT2
        if n == q.goal:
            return relax(q, u, n, x, y, gd)
        # A scan only where its reach bit says it ends at a jump point, or on the goal's
        # row or column.
        cell = b.cells[n]
        jh = -1
        reach = (cell >> s.hshift) & 1
        if reach or y == q.gy:
            jh = scan_run(hstop, LEAD + x, dx > 0, reach, (q.gx - x) * dx if y == q.gy else 0)
        if jh > 0 and relax(q, u, n + jh * dx, x + jh * dx, y, gd + jh) != 0:
            return -1
        jv = -1
        reach = (cell >> s.vshift) & 1
        if reach or x == q.gx:
            jv = scan_run(vstop, LEAD + y, dy > 0, reach, (q.gy - y) * dy if x == q.gx else 0)
        if jv > 0 and relax(q, u, n + jv * dy * b.width, x, y + jv * dy, gd + jv) != 0:
            return -1
        if not (cell & bit):
            return 0
        if not to_wall and (jh > 0 or jv > 0):
            k = turn_now(q, u, n, x, y, gd)
            if k != 1:
                return k
            # Expanded here: arriving diagonally, it only continues the diagonal.
            u = n
            g0 = gd
            steps = 0


cdef inline void prefetch_lines(const Bits* b, uint32_t dirs, int x, int y) noexcept nogil:
    """Start loading the lines of diagonal stop bits the expansion of cell (x, y) in
    ``dirs`` walks, read after its straight scans."""
    cdef uint32_t walks = dirs >> 4
    cdef int d
    while walks:
        d = ctz64(walks)
        walks &= walks - 1
        prefetch_write(b.walks[d].line + x * b.row_words + y * b.walks[d].line_dy
                       + ((LEAD + x) >> 6))


cdef int jps_loop(Query* q, const Bits* b, int variant, bint record,
                  IntVec* rec) noexcept nogil:
    """Online JPS from start (already pushed); returns FOUND, FAILED or -1 (out of memory)."""
    cdef int offset[8]
    cdef int u, v, p, d, k, ux, uy, w = b.width
    cdef uint16_t cu
    cdef uint32_t dirs
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
        cu = b.cells[u]
        p = q.parent[u]
        uy = row_of(u, b)
        ux = u - uy * w
        if p < 0:
            dirs = 0xFF
        else:
            d = arrival(ux, uy, p, b)
            if d < 4:
                dirs = AFTER_STRAIGHT[256 * d + (cu & 0xFF)]
            elif variant == RULE_JPS:
                dirs = 1u << d
            else:
                dirs = AFTER_DIAGONAL[d]
        # A straight run needs a scan only where it ends at a jump point or on the goal's
        # row or column.
        dirs &= cu & ((cu >> REACH_SHIFT) | 0xF0 | (0xA if uy == q.gy else 0)
                      | (0x5 if ux == q.gx else 0))
        gu = q.g[u]
        prefetch_lines(b, dirs, ux, uy)
        # The directions to explore, lowest bit first: the cardinals, then the diagonals.
        while dirs:
            d = ctz64(dirs)
            dirs &= dirs - 1
            if d < 4:
                k = jump_straight(b, ux, uy, d, (cu >> (REACH_SHIFT + d)) & 1, q.gx, q.gy)
                if k > 0 and relax(q, u, u + k * offset[d], ux + k * step_dx(d),
                                   uy + k * step_dy(d), gu + k) != 0:
                    return -1
            elif diagonal_successors(q, b, u, ux, uy, d, variant == RULE_JPS2) != 0:
                return -1


cdef inline bint cell_reach(const Bits* b, int x, int y, int d) noexcept nogil:
    """The reach bit of padded cell (x, y) for cardinal d."""
    return (b.cells[y * b.width + x] >> (REACH_SHIFT + d)) & 1


cdef void fill_diagonals(Bits* b, uint64_t* diag, Py_ssize_t block) noexcept nogil:
    """The diagonal stop bits of ``b`` (blocks of ``block`` words per diagonal direction,
    zeroed): a cell stops a walk in diagonal d when it has no legal step in d or the reach
    bit of the horizontal or the vertical component of d is set there."""
    cdef int x, y, d, pos, n
    cdef uint64_t* line
    for y in range(b.height):
        for x in range(b.width):
            n = y * b.width + x
            pos = LEAD + x
            for d in range(4, 8):
                if (not (b.cells[n] >> d) & 1
                        or cell_reach(b, x, y, 1 if step_dx(d) > 0 else 3)
                        or cell_reach(b, x, y, 2 if step_dy(d) > 0 else 0)):
                    line = diag + (d - 4) * block + diagonal_line(x, y, d, b.height) * b.row_words
                    line[pos >> 6] |= (<uint64_t> 1) << (pos & 63)


cdef class JumpGrid:
    """The stop bits of the scans in each cardinal direction, the stop bits of the walks in
    each diagonal direction, per cell its move mask and reach bits, and (optionally) the
    island ids of a padded grid: what the online jump point searches read (made in O(map)
    operations, the straight bits in O(map / 64) word operations).

    ``moves``: padded, flattened move masks (no-corner-cutting rule), rows ``width`` wide.  A
    cell counts as free when it has a legal move: a free cell without one has no free
    4-neighbour, so it can never be beside a run nor on one.  ``islands``: ``(H, W)`` int32
    island ids (-1 blocked) of the unpadded grid, or None; :meth:`search` needs them.
    ``nbytes``: bytes of the arrays (four bits and a 16-bit cell word per padded cell, and
    four lines of bits per diagonal of the grid).
    """

    cdef readonly int width, height
    cdef readonly Py_ssize_t size
    cdef object stops_array, cells_array, diag_array, islands_ref
    cdef const int32_t[:, ::1] islands
    cdef bint has_islands
    cdef Bits bits

    def __init__(self, const uint8_t[::1] moves, int width, object islands=None):
        cdef Py_ssize_t n = moves.shape[0], i
        cdef int height, x, y, rw, cw
        cdef uint64_t[::1] rows, cols, stops, reach, diag
        cdef uint16_t[::1] cells
        cdef Py_ssize_t hw, cw_all, dw
        cdef const uint64_t* lines[4]
        if width < 3 or n % width != 0 or n // width < 3:
            raise ValueError(f"moves of size {n} are not a padded grid of row width {width}")
        height = <int> (n // width)
        self.width = width
        self.height = height
        self.size = n
        rw = bit_words(width)
        cw = bit_words(height)
        # The free cells by rows and by columns, read to make the stop and reach bits.
        rows = np.zeros(height * rw, dtype=np.uint64)
        cols = np.zeros(width * cw, dtype=np.uint64)
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
        # Reach bits, in the layout of the stop bits (E, W, S, N), then in the cell words.
        hw = height * rw
        cw_all = width * cw
        reach = np.zeros(2 * hw + 2 * cw_all, dtype=np.uint64)
        fill_reach(&rows[0], &stops[0], &stops[hw], &reach[0], &reach[hw], height, rw)
        fill_reach(&cols[0], &stops[2 * hw], &stops[2 * hw + cw_all], &reach[2 * hw],
                   &reach[2 * hw + cw_all], width, cw)
        lines[0] = &reach[2 * hw + cw_all]
        lines[1] = &reach[0]
        lines[2] = &reach[2 * hw]
        lines[3] = &reach[hw]
        self.cells_array = np.empty(n, dtype=np.uint16)
        cells = self.cells_array
        for y in range(height):
            for x in range(width):
                i = y * width + x
                cells[i] = (moves[i]
                            | bit_set(lines[0] + x * cw, LEAD + y) << REACH_SHIFT
                            | bit_set(lines[1] + y * rw, LEAD + x) << (REACH_SHIFT + 1)
                            | bit_set(lines[2] + x * cw, LEAD + y) << (REACH_SHIFT + 2)
                            | bit_set(lines[3] + y * rw, LEAD + x) << (REACH_SHIFT + 3))
        # Diagonal stop bits, one block of width + height - 1 lines per diagonal direction.
        dw = (width + height - 1) * rw
        self.diag_array = np.zeros(4 * dw, dtype=np.uint64)
        diag = self.diag_array
        self.bits.stop[1] = &stops[0]
        self.bits.stop[3] = &stops[height * rw]
        self.bits.stop[2] = &stops[2 * height * rw]
        self.bits.stop[0] = &stops[2 * height * rw + width * cw]
        self.bits.cells = &cells[0]
        self.bits.row_words = rw
        self.bits.col_words = cw
        self.bits.width = width
        self.bits.height = height
        self.bits.inv_width = 1.0 / width
        for i in range(4):
            self.bits.diag[i] = &diag[i * dw]
        fill_diagonals(&self.bits, &diag[0], dw)
        fill_walks(&self.bits)
        self.has_islands = islands is not None
        if self.has_islands:
            self.islands = islands
            if self.islands.shape[0] != height - 2 or self.islands.shape[1] != width - 2:
                raise ValueError(f"islands must have shape ({height - 2}, {width - 2})")
            self.islands_ref = islands

    @property
    def nbytes(self):
        """Bytes of the arrays (four directions of stop bits, the cell words, four
        directions of diagonal stop bits)."""
        return self.stops_array.nbytes + self.cells_array.nbytes + self.diag_array.nbytes

    def reach_bits(self, int d):
        """``(height, width)`` bool over the padded grid: the reach bit of each cell for
        cardinal d (N, E, S, W), set when the straight scan from the cell in d ends at a
        jump point (a free cell with a forced neighbour for d) before a blocked cell."""
        if not 0 <= d < 4:
            raise ValueError(f"d must be a cardinal direction 0..3, got {d}")
        out = np.zeros((self.height, self.width), dtype=bool)
        cdef cnp.uint8_t[:, ::1] o = out.view(np.uint8)
        cdef int x, y
        for y in range(self.height):
            for x in range(self.width):
                o[y, x] = cell_reach(&self.bits, x, y, d)
        return out

    def diagonal_stops(self, int d):
        """``(height, width)`` bool over the padded grid: the diagonal stop bit of each cell
        for diagonal d (NE, SE, SW, NW = 4..7), set when the cell has no legal step in d or
        the reach bit of one of d's components is set there."""
        if not 4 <= d < 8:
            raise ValueError(f"d must be a diagonal direction 4..7, got {d}")
        out = np.zeros((self.height, self.width), dtype=bool)
        cdef cnp.uint8_t[:, ::1] o = out.view(np.uint8)
        cdef int x, y
        for y in range(self.height):
            for x in range(self.width):
                o[y, x] = bit_set(self.bits.diag[d - 4]
                                  + diagonal_line(x, y, d, self.height) * self.bits.row_words,
                                  LEAD + x)
        return out

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

    def search(self, Workspace ws not None, object start, object goal, bint record=False,
               int variant=RULE_JPS):
        """Jump point search from cell ``start`` to ``goal`` (unpadded ``(x, y)``, each a
        tuple of two ints) with the successor rule ``variant`` (:data:`JPS` or
        :data:`JPS2`), in ``ws`` (at least ``size`` nodes).

        Returns None, searching nothing, when ``start`` or ``goal`` is not such a tuple;
        else (status, g of the goal, expanded, generated, updated, max_open, path); status
        FOUND, FAILED (nothing is searched when the island ids differ), BAD_START or
        BAD_GOAL when the start or the goal is outside the grid or blocked: the codes of
        ``wayfinding._kernels._codes``; path the cells of :func:`jump_path` when found, else
        None.  start == goal is found at cost 0 without searching.  The expansions
        (``record``) are read back with ``ws.recorded()`` / ``ws.open_nodes()``.
        """
        if not plain_cells(start, goal):
            return None
        return self.search_cells(ws, (<tuple> start)[0], (<tuple> start)[1],
                                 (<tuple> goal)[0], (<tuple> goal)[1], record, variant)

    cdef object search_cells(self, Workspace ws, int sx, int sy, int gx, int gy, bint record,
                             int variant):
        """:meth:`search` from cell (sx, sy) to (gx, gy)."""
        cdef Counters c
        cdef int status, w = self.width
        cdef int start = (sy + 1) * w + sx + 1, goal = (gy + 1) * w + gx + 1
        if not self.has_islands:
            raise ValueError("this JumpGrid was built without island ids")
        c.expanded = c.generated = c.updated = c.reopened = c.max_open = 0
        answer = answer_without_search(ws, self.islands, sx, sy, gx, gy)
        if answer is not None:
            return answer
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


cdef inline Py_ssize_t walk_run(int64_t* o, Py_ssize_t i, int* x, int* y, int dx, int dy,
                                 int k) noexcept:
    """Write the ``k`` cells of a run from (x, y) by (dx, dy) backwards into ``o`` before
    slot ``i``; returns the new slot and leaves (x, y) at the run's end."""
    while k > 0:
        x[0] += dx
        y[0] += dy
        i -= 2
        o[i] = x[0]
        o[i + 1] = y[0]
        k -= 1
    return i


cdef object chain_cells(Workspace ws, int goal, int width):
    """The cells of :func:`jump_path`."""
    cdef int32_t* parent = &ws.parent[0]
    cdef cnp.npy_intp dims[2]
    cdef Py_ssize_t n = 1, i
    cdef int v = goal, p, x, y, px, py, ax, ay, k, sx, sy, hx, hy, diag
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
    x = v % width - 1     # unpadded
    y = v // width - 1
    i = 2 * n - 2
    o[i] = x
    o[i + 1] = y
    while parent[v] >= 0:
        p = parent[v]
        px = p % width - 1
        py = p // width - 1
        # Walking back from v: the straight run (toward the parent's row or column), then
        # the diagonal run to the parent.
        sx = (px > x) - (px < x)
        sy = (py > y) - (py < y)
        ax = (px - x) * sx
        ay = (py - y) * sy
        if ax > ay:
            hx, hy, diag = sx, 0, ay
            k = ax - ay
        else:
            hx, hy, diag = 0, sy, ax
            k = ay - ax
        i = walk_run(o, i, &x, &y, hx, hy, k)
        i = walk_run(o, i, &x, &y, sx, sy, diag)
        v = p
    return out
