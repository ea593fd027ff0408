# Grid context and octile walks shared by the subgoal graph build (_subgoal_build) and the
# subgoal query (_subgoal_query): cardinal clearances, the subgoals direct-h-reachable from a
# cell, and paths of octile length between two cells.
#
# Grids use the padded layout of ``_gridsearch``: row width ``Wp = W + 2``, cell ``(x, y)`` at
# flat index ``(y + 1) * Wp + x + 1``, ``moves[i]`` the legal-step bit mask in the order N, E, S,
# W, NE, SE, SW, NW.  Steps cost 1 and sqrt 2 (uniform grids, no corner cutting).
#
# * A *subgoal* is a free cell with a blocked diagonal neighbour whose two shared cardinal
#   neighbours are free (a convex obstacle corner).
# * ``clearance[i, c]`` (c = N, E, S, W) counts the steps from cell i in direction c before the
#   next step would be illegal or land on a subgoal; saturated at 65535 and then extended by
#   walking.
# * Graph nodes are subgoal ids 0..n-1 (row-major order); every edge joins two cells whose
#   octile distance is their true distance, and weighs that distance.  ``level[v]`` is 1 for
#   every node of a simple subgoal graph; each contraction pass k keeps the nodes it makes
#   local at level k and raises the others (see ``_subgoal_build.build_graph``); the top
#   level is the core graph searched by every query.  CSR rows list the targets of the top
#   level first, up to ``core_end[v]``.
#
# An octile cost is always computed as ``straight + diagonal * sqrt(2)`` from integer step
# counts, so equal distances compare equal bit for bit.
from libc.stdint cimport int32_t, uint8_t, uint16_t
from libcpp.vector cimport vector

from ._constants cimport SQRT2
from ._steps cimport step_of, step_offsets

# Stored clearances saturate here and are then extended by walking.
cdef enum:
    SATURATED = 65535


cdef struct GridCtx:
    const uint8_t* moves
    const uint16_t* clear     # npad x 4, cardinal clearances
    const int32_t* sid        # subgoal id per padded cell, -1 elsewhere
    int width
    int off[8]


cdef inline double octile_steps(int straight, int diagonal) noexcept nogil:
    return straight + diagonal * SQRT2


cdef inline double octile_xy(int dx, int dy) noexcept nogil:
    if dx < 0:
        dx = -dx
    if dy < 0:
        dy = -dy
    if dx >= dy:
        return octile_steps(dx - dy, dy)
    return octile_steps(dy - dx, dx)


cdef inline double octile_cells(const GridCtx* g, int a, int b) noexcept nogil:
    return octile_xy(a % g.width - b % g.width, a // g.width - b // g.width)


cdef inline int card_clear(const GridCtx* g, int cell, int c) noexcept nogil:
    """Cardinal clearance of ``cell`` in direction ``c`` (0..3)."""
    cdef int n = g.clear[4 * cell + c]
    cdef int o, cur
    if n < SATURATED:
        return n
    o = g.off[c]
    cur = cell + n * o
    while (g.moves[cur] >> c) & 1 and g.sid[cur + o] < 0:
        cur += o
        n += 1
    return n


cdef inline void direct_h_reachable(const GridCtx* g, int s, vector[int]* ids,
                                    vector[double]* costs) noexcept nogil:
    """Append the subgoals direct-h-reachable from cell ``s`` and their octile distances.

    Phase 1 looks one step past the clearance in each of the 8 directions.  Phase 2 walks
    each diagonal d and, from every cell on it, casts lines along its two cardinals c: a line
    ends at a subgoal or before an obstacle, is at most as long as the previous one, and
    shorter by one if the previous one ended at a subgoal; a subgoal ending a line that got
    shorter is direct-h-reachable.  Each target appears once.
    """
    cdef int c, i, d, c1, c2, m1, m2, l, t, cur, k
    for c in range(4):
        l = card_clear(g, s, c)
        t = s + (l + 1) * g.off[c]
        if g.sid[t] >= 0:
            ids.push_back(g.sid[t])
            costs.push_back(octile_steps(l + 1, 0))
    for i in range(4):
        d = 4 + i
        c1 = i
        c2 = (i + 1) & 3
        m1 = card_clear(g, s, c1)
        m2 = card_clear(g, s, c2)
        cur = s
        k = 0
        while (g.moves[cur] >> d) & 1:
            cur += g.off[d]
            k += 1
            if g.sid[cur] >= 0:
                ids.push_back(g.sid[cur])
                costs.push_back(octile_steps(0, k))
                break
            if m1 > 0:
                l = card_clear(g, cur, c1)
                if l < m1:
                    m1 = l
                    t = cur + (l + 1) * g.off[c1]
                    if g.sid[t] >= 0:
                        ids.push_back(g.sid[t])
                        costs.push_back(octile_steps(l + 1, k))
            if m2 > 0:
                l = card_clear(g, cur, c2)
                if l < m2:
                    m2 = l
                    t = cur + (l + 1) * g.off[c2]
                    if g.sid[t] >= 0:
                        ids.push_back(g.sid[t])
                        costs.push_back(octile_steps(l + 1, k))


cdef inline bint walk(const uint8_t* moves, int cur, int d, int od, int nd, int c, int oc,
                      int nc, bint diagonal_first, vector[int]* out) noexcept nogil:
    """Try ``nd`` steps d and ``nc`` steps c in one of the two block orders."""
    cdef int r, dir1, off1, n1, dir2, off2, n2
    if diagonal_first:
        dir1, off1, n1, dir2, off2, n2 = d, od, nd, c, oc, nc
    else:
        dir1, off1, n1, dir2, off2, n2 = c, oc, nc, d, od, nd
    for r in range(n1):
        if not (moves[cur] >> dir1) & 1:
            return False
        cur += off1
        if out != NULL:
            out.push_back(cur)
    for r in range(n2):
        if not (moves[cur] >> dir2) & 1:
            return False
        cur += off2
        if out != NULL:
            out.push_back(cur)
    return True


cdef inline bint octile_path_d(const GridCtx* g, int a, int dx, int dy, vector[int]* out,
                               vector[uint8_t]* scratch) noexcept nogil:
    """:func:`octile_path` from cell ``a`` to the cell ``dx`` columns and ``dy`` rows away
    (no division when the caller knows them)."""
    cdef int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0)
    cdef int adx = dx if dx >= 0 else -dx, ady = dy if dy >= 0 else -dy
    cdef int nd, nc, d, c, od, oc, i, j, cell, r
    cdef Py_ssize_t base = out.size() if out != NULL else 0
    if adx >= ady:
        nd = ady
        nc = adx - ady
        c = step_of(sx, 0)
    else:
        nd = adx
        nc = ady - adx
        c = step_of(0, sy)
    d = step_of(sx, sy)
    od = g.off[d] if d >= 0 else 0
    oc = g.off[c] if c >= 0 else 0
    if walk(g.moves, a, d, od, nd, c, oc, nc, True, out):
        return True
    if out != NULL:
        out.resize(base)
    if nd == 0 or nc == 0:
        return False
    if walk(g.moves, a, d, od, nd, c, oc, nc, False, out):
        return True
    if out != NULL:
        out.resize(base)
    if scratch == NULL:
        return False
    # reach[i * (nc + 1) + j]: cell a + i*od + j*oc is reachable by i diagonal and j straight
    # steps.
    scratch.assign((nd + 1) * (nc + 1), 0)
    cdef uint8_t* reach = scratch.data()
    reach[0] = 1
    for i in range(nd + 1):
        for j in range(nc + 1):
            if i == 0 and j == 0:
                continue
            cell = a + i * od + j * oc
            if i > 0 and reach[(i - 1) * (nc + 1) + j] \
                    and (g.moves[cell - od] >> d) & 1:
                reach[i * (nc + 1) + j] = 1
            elif j > 0 and reach[i * (nc + 1) + j - 1] and (g.moves[cell - oc] >> c) & 1:
                reach[i * (nc + 1) + j] = 1
    if not reach[nd * (nc + 1) + nc]:
        return False
    if out != NULL:
        out.resize(base + nd + nc)
        i, j = nd, nc
        r = nd + nc
        while r > 0:
            r -= 1
            cell = a + i * od + j * oc
            out[0][base + r] = cell
            if i > 0 and reach[(i - 1) * (nc + 1) + j] and (g.moves[cell - od] >> d) & 1:
                i -= 1
            else:
                j -= 1
    return True


cdef inline bint octile_path(const GridCtx* g, int a, int b, vector[int]* out,
                             vector[uint8_t]* scratch) noexcept nogil:
    """Whether some path of octile length joins cells a and b (they are h-reachable).

    Such a path uses only the diagonal and the cardinal direction of the octile
    decomposition.  The two block orders are tried first, then (when ``scratch`` is given)
    a table over the parallelogram of all orders.  With ``out`` the cells after a up to b
    are appended (and nothing is appended when there is no such path).
    """
    cdef int w = g.width
    return octile_path_d(g, a, b % w - a % w, b // w - a // w, out, scratch)


cdef inline GridCtx make_ctx(const uint8_t[::1] moves, const uint16_t[:, ::1] clear,
                             const int32_t[::1] sid, int width):
    cdef GridCtx g
    g.moves = &moves[0]
    g.clear = &clear[0, 0]
    g.sid = &sid[0]
    g.width = width
    step_offsets(width, g.off)
    return g
