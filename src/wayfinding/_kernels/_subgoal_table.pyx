# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Two-level subgoal graph with a distance table between its top-level subgoals.

``build_table`` runs one Dijkstra over the top level from each top-level subgoal; the
top level of a two-level subgoal graph keeps the grid distances between its subgoals, so
the table holds those distances, as straight and diagonal step counts, one entry per pair
(the caller keeps that triangle, or the square of step counts, or of float64 lengths,
where it fits; the square reads faster: a row's entries near each other on the map are
near each other in memory).
``TableQuery`` answers a query without a graph search:

1. start == goal, different islands, or a free block-order octile path between them;
2. otherwise each endpoint's *entries*: its direct-h-reachable top-level subgoals and the
   top-level neighbours of its direct-h-reachable local subgoals, at their least cost;
3. the cost is the least of ``d(start, u) + D[u, v] + d(v, goal)`` over entry pairs, of
   the routes through one subgoal direct-h-reachable from both endpoints, and of those
   through an edge between two such local subgoals (one per endpoint);
4. the route between two top-level subgoals follows, from each node, the edge ``e`` to
   ``y`` least in ``cost(e) + D[y, v]``; each graph edge is then walked on the grid.

The two-level property makes this exact: some shortest path runs in the graph of the top
level and the endpoints' direct-h-reachable subgoals, and such a path may leave the start
from the last start-side subgoal it visits and reach the goal from the first goal-side
one (those legs are octile, hence shortest).

Layout and vocabulary (subgoals, clearances, levels, octile costs) as in ``_subgoal_grid.pxd``.
"""

import numpy as np

cimport numpy as cnp
from cpython.object cimport PyObject
from libc.math cimport INFINITY as INF, NAN, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libcpp.algorithm cimport sort
from libcpp.pair cimport pair
from libcpp.queue cimport priority_queue
from libcpp.vector cimport vector

from ._grid_cells cimport plain_cells
from ._portable cimport monotonic
from ._subgoal_grid cimport (
    GridCtx,
    direct_h_reachable,
    make_ctx,
    octile_cells,
    octile_path_d,
    octile_steps,
    octile_xy,
)
from ._subgoal_steps cimport add_octile_steps

cnp.import_array()

ctypedef pair[double, int] Item

# A packed table entry holds a distance's straight steps in its low 16 bits and its
# diagonal steps in the high ones (exact, in half the bytes of a double); NO_PATH between
# islands.  A count of STEPS_LIMIT or more does not fit (the table is then not built).
cdef enum:
    STEPS_BITS = 16
    STEPS_LIMIT = 0xFFFF
cdef uint32_t NO_PATH = 0xFFFFFFFF
#: Pairs of entries (start side x goal side) above which the start side is sorted by its
#: bound before the table is read (below, sorting costs more than it saves).
cdef Py_ssize_t SORTED_PAIRS = 1024
#: A bound times this is compared with the best cost, so that rounding of the sums (about
#: 1e-16 of the cost) never rules out the best route.
cdef double BOUND_SLACK = 1.0 - 1e-12

cdef object _new = object.__new__

cdef extern from "structmember.h":
    """
    static inline Py_ssize_t wf_member_offset(PyObject* d) {
        /* Offset of an object slot of a member descriptor, -1 for anything else. */
        if (Py_TYPE(d) != &PyMemberDescr_Type) return -1;
        PyMemberDef* m = ((PyMemberDescrObject*) d)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY)) return -1;
        return m->offset;
    }
    static inline PyObject* wf_alloc(PyObject* cls) {
        /* A new instance of a record class whose fields are all object slots, as
           object.__new__ makes it (fields unset). */
        return ((PyTypeObject*) cls)->tp_alloc((PyTypeObject*) cls, 0);
    }
    static inline void wf_put(PyObject* obj, Py_ssize_t off, PyObject* v) {
        PyObject** slot = (PyObject**) ((char*) obj + off);
        PyObject* old = *slot;
        Py_INCREF(v);
        *slot = v;
        Py_XDECREF(old);
    }
    """
    Py_ssize_t wf_member_offset(PyObject* d)
    void wf_put(PyObject* obj, Py_ssize_t off, PyObject* v)
    object wf_alloc(object cls)

# The fields of the result records in the order of the offsets below.
RESULT_FIELDS = ("path", "cost", "found", "stats", "algorithm", "expanded_nodes",
                 "open_nodes", "status")
STATS_FIELDS = ("expanded", "generated", "reopened", "updated", "max_open", "elapsed")


cdef bint slot_offsets(cls, tuple names, Py_ssize_t* out):
    """Whether every field of ``names`` is a writable object slot of ``cls`` (a record
    class with ``__slots__``, no other instance state and object's ``__new__``); their
    offsets go to ``out``."""
    cdef Py_ssize_t i
    if hasattr(cls, "__dict__") and "__dict__" in getattr(cls, "__dict__", {}):
        return False
    if not isinstance(cls, type) or cls.__new__ is not object.__new__:
        return False
    for i in range(len(names)):
        d = None
        for base in cls.__mro__:
            if names[i] in base.__dict__:
                d = base.__dict__[names[i]]
                break
        if d is None:
            return False
        out[i] = wf_member_offset(<PyObject*> d)
        if out[i] < 0:
            return False
    return True


cdef inline void put(object obj, Py_ssize_t off, object v):
    wf_put(<PyObject*> obj, off, <PyObject*> v)


def build_table(const int32_t[::1] top_nodes, const int32_t[::1] top_index,
                const int64_t[::1] indptr, const int64_t[::1] core_end,
                const int32_t[::1] targets, const double[::1] costs,
                const int32_t[:, ::1] xy):
    """The grid distances between the ``m`` top-level subgoals ``top_nodes`` (cells
    ``xy[v]``) as their straight and diagonal steps (16 bits each, straight low; all bits
    set between islands), the lower triangle row by row (``m (m + 1) / 2`` uint32, the
    pair ``(i, k)``, ``k <= i``, at ``i (i + 1) / 2 + k``), by Dijkstra over the top-level
    edges (row ``v`` of the CSR graph up to ``core_end[v]``); ``top_index[v]`` is the row
    of node v.  ``None`` when a distance has 65,535 steps of one kind or more."""
    cdef Py_ssize_t m = top_nodes.shape[0], i, k
    out = np.full(m * (m + 1) // 2, NO_PATH, dtype=np.uint32)
    if m == 0:
        return out
    cdef uint32_t[::1] d = out
    cdef double[::1] dist = np.empty(m, dtype=np.float64)
    cdef int[::1] straight = np.empty(m, dtype=np.intc)
    cdef int[::1] diagonal = np.empty(m, dtype=np.intc)
    cdef priority_queue[Item] heap
    cdef Item it
    cdef int u, v, ku, kv
    cdef int64_t e, slot
    cdef double du, nd
    cdef uint32_t w
    cdef bint fits = True
    with nogil:
        for i in range(m):
            for k in range(m):
                dist[k] = INF
            dist[i] = 0.0
            straight[i] = 0
            diagonal[i] = 0
            heap.push(Item(-0.0, <int> i))
            while not heap.empty():
                it = heap.top()
                heap.pop()
                ku = it.second
                du = -it.first
                if du > dist[ku]:
                    continue
                u = top_nodes[ku]
                for e in range(indptr[u], core_end[u]):
                    v = targets[e]
                    kv = top_index[v]
                    nd = du + costs[e]
                    if nd < dist[kv]:
                        dist[kv] = nd
                        straight[kv] = straight[ku]
                        diagonal[kv] = diagonal[ku]
                        add_octile_steps(xy[v, 0] - xy[u, 0], xy[v, 1] - xy[u, 1],
                                         &straight[kv], &diagonal[kv])
                        heap.push(Item(-nd, kv))
            for k in range(m):
                if dist[k] < INF:
                    if straight[k] >= STEPS_LIMIT or diagonal[k] >= STEPS_LIMIT:
                        fits = False
                        break
                    # Both directions of a pair come from different runs: keep the shorter,
                    # so that route following from either end agrees with the table.
                    # (Distinct step counts of these sizes differ by far more than the
                    # sums' rounding.)
                    w = <uint32_t> straight[k] | (<uint32_t> diagonal[k] << STEPS_BITS)
                    slot = pair_slot(i, k)
                    if steps_length(w) < steps_length(d[slot]):
                        d[slot] = w
            if not fits:
                break
    return out if fits else None


cdef inline int64_t pair_slot(int64_t i, int64_t k) noexcept nogil:
    """The place of the pair ``(i, k)`` in a lower triangle stored row by row."""
    cdef int64_t hi = i if i > k else k
    return ((hi * (hi + 1)) >> 1) + i + k - hi


cdef Py_ssize_t triangle_size(Py_ssize_t entries) noexcept nogil:
    """The ``m`` of a lower triangle of ``entries`` pairs (``m (m + 1) / 2``), or -1."""
    cdef Py_ssize_t m = <Py_ssize_t> ((sqrt(8.0 * entries + 1.0) - 1.0) / 2.0)
    while m * (m + 1) // 2 < entries:
        m += 1
    while m > 0 and m * (m + 1) // 2 > entries:
        m -= 1
    return m if m * (m + 1) // 2 == entries else -1


cdef inline double steps_length(uint32_t w) noexcept nogil:
    """The length of a table entry: straight + diagonal x sqrt 2 (inf between islands)."""
    if w == NO_PATH:
        return INF
    return octile_steps(w & STEPS_LIMIT, w >> STEPS_BITS)


def table_square(const uint32_t[::1] triangle):
    """The ``(m, m)`` packed table of a packed lower triangle (as :func:`build_table` gives;
    ``ValueError`` for a length that is no ``m (m + 1) / 2``)."""
    cdef Py_ssize_t m = triangle_size(triangle.shape[0]), i, k
    if m < 0:
        raise ValueError(f"{triangle.shape[0]} entries are not a triangle of m (m + 1) / 2")
    out = np.empty((m, m), dtype=np.uint32)
    cdef uint32_t[:, ::1] d = out
    with nogil:
        for i in range(m):
            for k in range(i + 1):
                d[i, k] = triangle[pair_slot(i, k)]
                d[k, i] = d[i, k]
    return out


def table_lengths(const uint32_t[:, ::1] table):
    """The float64 lengths of a packed ``(m, m)`` table's entries (inf between islands; NaN
    where an entry holds 65,535 steps of one kind, which no built table does)."""
    out = np.empty((table.shape[0], table.shape[1]), dtype=np.float64)
    cdef double[:, ::1] d = out
    cdef Py_ssize_t i, k
    cdef uint32_t w
    with nogil:
        for i in range(table.shape[0]):
            for k in range(table.shape[1]):
                w = table[i, k]
                if w != NO_PATH and ((w & STEPS_LIMIT) == STEPS_LIMIT
                                     or (w >> STEPS_BITS) == STEPS_LIMIT):
                    d[i, k] = NAN
                else:
                    d[i, k] = steps_length(w)
    return out


cdef struct State:
    double dist
    uint32_t stamp        # query number of the last query that reached the node
    int32_t parent        # previous node on the way from the endpoint, -1 from the endpoint


cdef struct Side:
    State* node
    vector[int]* entries  # top-level subgoals reached
    vector[int]* locals   # local direct-h-reachable subgoals


cdef class TableQuery:
    """Per-thread query scratch over one two-level subgoal graph and its table (not
    thread-safe).

    ``level``/``top``: node levels and the top level; ``top_index[v]``: row of node v in
    ``table`` (-1 below the top level); ``components``: the grid's ``(H, W)`` int32 island
    ids (-1 on blocked cells).  ``result``/``stats``/``algorithm``/``found``/``failed``:
    the result record classes, the method name and the two status values given to results.
    """
    cdef GridCtx g
    cdef object keep
    cdef const int32_t* cells
    cdef const int32_t* xy
    cdef const int8_t* level
    cdef const int64_t* indptr
    cdef const int64_t* core_end
    cdef const int32_t* targets
    cdef const double* costs
    cdef const int32_t* top_index
    cdef const double* lengths    # the table as float64 lengths, or
    cdef const uint32_t* steps    # packed, as a square or a triangle (one, or neither)
    cdef bint square
    cdef const int32_t* comp
    cdef int n
    cdef int m
    cdef int top
    cdef int height
    cdef uint32_t q
    cdef vector[uint32_t] mark
    cdef vector[State] state_s
    cdef vector[State] state_t
    cdef vector[int] entries_s
    cdef vector[int] entries_t
    cdef vector[int] locals_s
    cdef vector[int] locals_t
    cdef vector[int] ids
    cdef vector[double] idcosts
    cdef vector[Item] order_t
    cdef vector[Item] order_s
    cdef vector[int] nodes
    cdef vector[int] cellpath
    cdef vector[uint8_t] scratch
    cdef int start_cell
    cdef int goal_cell
    cdef int straight
    cdef int diagonal
    cdef long expanded
    cdef long generated
    cdef object result_cls
    cdef bint slots
    cdef Py_ssize_t result_off[8]
    cdef Py_ssize_t stats_off[6]
    cdef object stats_cls
    cdef object algorithm
    cdef object found_status
    cdef object failed_status

    def __cinit__(self, const uint8_t[::1] moves, const uint16_t[:, ::1] clear,
                  const int32_t[::1] sid, int width, const int32_t[::1] cells,
                  const int32_t[:, ::1] xy, const int8_t[::1] level, const int64_t[::1] indptr,
                  const int64_t[::1] core_end, const int32_t[::1] targets,
                  const double[::1] costs, int top, const int32_t[::1] top_index,
                  table, const int32_t[:, ::1] components,
                  result, stats, str algorithm, found, failed):
        self.keep = (moves, clear, sid, cells, xy, level, indptr, core_end, targets, costs,
                     top_index, table, components)
        self.g = make_ctx(moves, clear, sid, width)
        self.n = cells.shape[0]
        cdef const double[:, ::1] lengths
        cdef const uint32_t[:, ::1] square
        cdef const uint32_t[::1] triangle
        self.cells = &cells[0] if self.n > 0 else NULL
        self.xy = &xy[0, 0] if self.n > 0 else NULL
        self.level = &level[0] if self.n > 0 else NULL
        self.indptr = &indptr[0]
        self.core_end = &core_end[0] if self.n > 0 else NULL
        self.targets = &targets[0] if targets.shape[0] > 0 else NULL
        self.costs = &costs[0] if costs.shape[0] > 0 else NULL
        self.top_index = &top_index[0] if self.n > 0 else NULL
        self.lengths = NULL
        self.steps = NULL
        self.square = table.ndim == 2           # float64 tables are always square
        self.m = table.shape[0] if self.square else triangle_size(table.shape[0])
        if self.m < 0:
            raise ValueError(f"{table.shape[0]} entries are not a triangle of m (m + 1) / 2")
        if self.m > 0 and table.dtype == np.float64:
            lengths = table
            self.lengths = &lengths[0, 0]
        elif self.m > 0 and self.square:
            square = table
            self.steps = &square[0, 0]
        elif self.m > 0:
            triangle = table
            self.steps = &triangle[0]
        self.comp = &components[0, 0]
        self.height = components.shape[0]
        self.top = top
        self.q = 0
        self.mark.assign(self.n, 0)
        cdef State zero
        zero.dist = 0.0
        zero.stamp = 0
        zero.parent = -1
        self.state_s.assign(self.n, zero)
        self.state_t.assign(self.n, zero)
        self.result_cls = result
        self.stats_cls = stats
        self.slots = slot_offsets(result, RESULT_FIELDS, self.result_off) \
            and slot_offsets(stats, STATS_FIELDS, self.stats_off)
        self.algorithm = algorithm
        self.found_status = found
        self.failed_status = failed

    @property
    def nbytes(self):
        """Bytes of per-query scratch."""
        return self.n * 36

    cdef void next_query(self) noexcept nogil:
        cdef Py_ssize_t v
        if self.q >= <uint32_t> 0xFFFFFFF0:
            for v in range(self.n):
                self.mark[v] = 0
                self.state_s[v].stamp = 0
                self.state_t[v].stamp = 0
            self.q = 0
        self.q += 1

    cdef void endpoint(self, int cell, vector[int]* ids, vector[double]* costs) noexcept nogil:
        """List one endpoint's direct-h-reachable subgoals (or itself, when it is a
        subgoal)."""
        ids.clear()
        costs.clear()
        if self.g.sid[cell] >= 0:
            ids.push_back(self.g.sid[cell])
            costs.push_back(0.0)
        else:
            direct_h_reachable(&self.g, cell, ids, costs)

    cdef inline void reach(self, Side* side, int v, double c, int parent) noexcept nogil:
        """Offer top-level subgoal v the cost c through ``parent`` (-1: the endpoint)."""
        cdef State* x = &side.node[v]
        if x.stamp != self.q:
            x.stamp = self.q
            self.generated += 1
            side.entries.push_back(v)
        elif c >= x.dist:
            return
        x.dist = c
        x.parent = parent

    cdef void settle(self, Side* side, vector[int]* ids, vector[double]* costs,
                     bint goal) noexcept nogil:
        """The endpoint's entries: its top-level direct-h-reachable subgoals and the
        top-level neighbours of its local ones, each at its least cost (in ``entries``);
        its local subgoals go to ``locals`` (marked on the goal's side)."""
        cdef int u
        cdef int64_t e
        cdef double du
        cdef Py_ssize_t i
        cdef State* x
        side.entries.clear()
        side.locals.clear()
        for i in range(<Py_ssize_t> ids.size()):
            u = ids[0][i]
            du = costs[0][i]
            self.expanded += 1
            if self.top_index[u] >= 0:
                self.reach(side, u, du, -1)
                continue
            x = &side.node[u]
            x.stamp = self.q
            x.dist = du
            x.parent = -1
            side.locals.push_back(u)
            if goal:
                self.mark[u] = self.q
            for e in range(self.indptr[u], self.core_end[u]):
                self.reach(side, self.targets[e], du + self.costs[e], u)

    cdef void by_cost(self, vector[int]* nodes, const State* state,
                      vector[Item]* out) noexcept nogil:
        cdef Py_ssize_t i
        out.clear()
        for i in range(<Py_ssize_t> nodes.size()):
            out.push_back(Item(state[nodes[0][i]].dist, nodes[0][i]))
        sort(out.begin(), out.end())

    cdef inline double entry(self, int64_t a, int64_t b) noexcept nogil:
        """The table's distance between the top-level subgoals of rows a and b."""
        if self.lengths != NULL:
            return self.lengths[a * self.m + b]
        if self.square:
            return steps_length(self.steps[a * self.m + b])
        return steps_length(self.steps[pair_slot(a, b)])

    cdef inline void count_steps(self, int dx, int dy) noexcept nogil:
        """Count the steps of an octile path over ``dx`` columns and ``dy`` rows."""
        add_octile_steps(dx, dy, &self.straight, &self.diagonal)

    cdef int solve(self, int sx, int sy, int tx, int ty) noexcept nogil:
        """Fill ``cellpath``/``straight``/``diagonal``.  Returns -1 (start) or -2 (goal)
        outside the grid or blocked, 0 not found, 1 found, -3 when a graph edge cannot be
        walked on the grid (never for a consistent index)."""
        cdef int w = self.g.width, s, t, cs, ct
        cdef Side S, T
        cdef Py_ssize_t i, j, nt
        cdef int u, v, x, y, bu = -1, bv = -1, bx = -1, by = -1, a, ax, ay, bx_, by_
        cdef double best = INF, du, c, least
        cdef int64_t row
        cdef int64_t e
        self.cellpath.clear()
        self.nodes.clear()
        self.straight = 0
        self.diagonal = 0
        self.expanded = 0
        self.generated = 0
        if not (0 <= sx < w - 2 and 0 <= sy < self.height):
            return -1
        if not (0 <= tx < w - 2 and 0 <= ty < self.height):
            return -2
        cs = self.comp[sy * (w - 2) + sx]
        ct = self.comp[ty * (w - 2) + tx]
        if cs < 0:
            return -1
        if ct < 0:
            return -2
        s = (sy + 1) * w + sx + 1
        t = (ty + 1) * w + tx + 1
        if cs != ct:
            return 0
        self.cellpath.push_back(s)
        if s == t:
            return 1
        if octile_path_d(&self.g, s, tx - sx, ty - sy, &self.cellpath, NULL):
            self.count_steps(tx - sx, ty - sy)
            return 1
        self.next_query()
        S.node = self.state_s.data()
        S.entries, S.locals = &self.entries_s, &self.locals_s
        T.node = self.state_t.data()
        T.entries, T.locals = &self.entries_t, &self.locals_t
        self.endpoint(s, &self.ids, &self.idcosts)
        self.settle(&S, &self.ids, &self.idcosts, False)
        self.endpoint(t, &self.ids, &self.idcosts)
        self.settle(&T, &self.ids, &self.idcosts, True)
        # A shortest path in the graph of the top level and both endpoints' subgoals can
        # start at any start-side subgoal x and end at any goal-side subgoal y directly
        # (those legs are octile).  Between them it either crosses the top level (entries u
        # and v, then the table), or x == y, or x and y are local and joined by an edge.
        self.by_cost(&self.entries_t, self.state_t.data(), &self.order_t)
        nt = self.order_t.size()
        # Goal-side entries in increasing cost: once d(start, u) + d(v, goal) reaches the
        # best cost, no later v can improve on it.  No route through u costs less than
        # d(start, u) + octile(u, goal) (the table and the legs are grid distances), so a
        # row whose bound reaches the best cost is not read; with many pairs the rows go
        # in increasing order of the bound, and the first routes rule out most of the
        # rest (on large open maps most of the table's lines would be cache misses).
        if nt > 0:
            self.order_s.clear()
            for i in range(<Py_ssize_t> self.entries_s.size()):
                u = self.entries_s[i]
                self.order_s.push_back(Item(self.state_s[u].dist + octile_xy(
                    self.xy[2 * u] - tx, self.xy[2 * u + 1] - ty), u))
            if <Py_ssize_t> self.order_s.size() * nt > SORTED_PAIRS:
                sort(self.order_s.begin(), self.order_s.end())
            for i in range(<Py_ssize_t> self.order_s.size()):
                if self.order_s[i].first * BOUND_SLACK >= best:
                    continue
                u = self.order_s[i].second
                du = self.state_s[u].dist
                if du + self.order_t[0].first >= best:
                    continue
                row = self.top_index[u]
                for j in range(nt):
                    c = du + self.order_t[j].first
                    if c >= best:
                        break
                    v = self.order_t[j].second
                    c += self.entry(row, self.top_index[v])
                    if c < best:
                        best, bu, bv = c, u, v
        for i in range(<Py_ssize_t> self.locals_s.size()):
            x = self.locals_s[i]
            du = self.state_s[x].dist
            # d(x, goal) >= octile(x, goal): no way on from x can beat ``best``.
            if du + octile_cells(&self.g, self.cells[x], t) >= best:
                continue
            if self.mark[x] == self.q:
                c = du + self.state_t[x].dist
                if c < best:
                    best, bx, by = c, x, -1
            for e in range(self.core_end[x], self.indptr[x + 1]):
                y = self.targets[e]
                if self.mark[y] == self.q:
                    c = du + self.costs[e] + self.state_t[y].dist
                    if c < best:
                        best, bx, by = c, x, y
        if best == INF:
            self.cellpath.clear()
            return 0
        # The node route.
        if bx >= 0:
            self.nodes.push_back(bx)
            if by >= 0:
                self.nodes.push_back(by)
        else:
            if self.state_s[bu].parent >= 0:
                self.nodes.push_back(self.state_s[bu].parent)
            self.nodes.push_back(bu)
            x = bu
            row = self.top_index[bv]
            i = 0
            while x != bv:
                least = INF
                y = -1
                for e in range(self.indptr[x], self.core_end[x]):
                    c = self.costs[e] + self.entry(row, self.top_index[self.targets[e]])
                    if c < least:
                        least, y = c, self.targets[e]
                i += 1
                if y < 0 or i > self.m:
                    return -3
                self.nodes.push_back(y)
                x = y
            if self.state_t[bv].parent >= 0:
                self.nodes.push_back(self.state_t[bv].parent)
        a, ax, ay = s, sx, sy
        for i in range(<Py_ssize_t> self.nodes.size()):
            v = self.nodes[i]
            bx_, by_ = self.xy[2 * v], self.xy[2 * v + 1]
            if not octile_path_d(&self.g, a, bx_ - ax, by_ - ay, &self.cellpath,
                                 &self.scratch):
                return -3
            self.count_steps(bx_ - ax, by_ - ay)
            a, ax, ay = self.cells[v], bx_, by_
        if not octile_path_d(&self.g, a, tx - ax, ty - ay, &self.cellpath, &self.scratch):
            return -3
        self.count_steps(tx - ax, ty - ay)
        return 1

    cdef void to_xy(self, int64_t* o, Py_ssize_t k) noexcept nogil:
        """Write the ``k`` cells of ``cellpath`` as ``(x, y)``: consecutive cells are
        neighbours, so each follows from the previous without a division."""
        cdef int w = self.g.width, cell = self.cellpath[0], prev, delta
        cdef int64_t x = cell % w - 1, y = cell // w - 1
        cdef Py_ssize_t i
        o[0] = x
        o[1] = y
        prev = cell
        for i in range(1, k):
            cell = self.cellpath[i]
            delta = cell - prev
            prev = cell
            if delta > 1:
                y += 1
                x += delta - w
            elif delta < -1:
                y -= 1
                x += delta + w
            else:
                x += delta
            o[2 * i] = x
            o[2 * i + 1] = y

    cdef object result(self, int status, double t0):
        """The :class:`PathResult` of the last ``solve`` (built without its __init__)."""
        cdef cnp.npy_intp dims[2]
        cdef Py_ssize_t k = self.cellpath.size() if status == 1 else 0
        cdef int64_t* o
        if status == -3:
            raise RuntimeError("a subgoal graph edge could not be followed on the grid")
        dims[0] = k
        dims[1] = 2
        path = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT64, 0)
        o = <int64_t*> cnp.PyArray_DATA(path)
        if k > 0:
            self.to_xy(o, k)
        if status == 1:
            cost, found, flag = octile_steps(self.straight, self.diagonal), True, \
                self.found_status
        else:
            cost, found, flag = INF, False, self.failed_status
        if self.slots:
            st = wf_alloc(self.stats_cls)
            r = wf_alloc(self.result_cls)
            put(st, self.stats_off[0], self.expanded)
            put(st, self.stats_off[1], self.generated)
            put(st, self.stats_off[2], 0)
            put(st, self.stats_off[3], 0)
            put(st, self.stats_off[4], 0)
            put(r, self.result_off[0], path)
            put(r, self.result_off[1], cost)
            put(r, self.result_off[2], found)
            put(r, self.result_off[3], st)
            put(r, self.result_off[4], self.algorithm)
            put(r, self.result_off[5], None)
            put(r, self.result_off[6], None)
            put(r, self.result_off[7], flag)
            put(st, self.stats_off[5], monotonic() - t0)
            return r
        st = _new(self.stats_cls)
        r = _new(self.result_cls)
        st.expanded, st.generated, st.reopened, st.updated, st.max_open = \
            self.expanded, self.generated, 0, 0, 0
        r.path, r.cost, r.found, r.stats, r.algorithm = path, cost, found, st, self.algorithm
        r.expanded_nodes, r.open_nodes, r.status = None, None, flag
        st.elapsed = monotonic() - t0
        return r

    def find_path(self, start, goal):
        """The :class:`PathResult` from cell ``start`` to cell ``goal`` (each a tuple of two
        ints), or an int: -1 (start) or -2 (goal) outside the grid or blocked, -4 when an
        endpoint is not a tuple of two ints."""
        cdef double t0 = monotonic()
        cdef int status
        cdef long a, b, c, d
        if not plain_cells(start, goal):
            return -4
        sx, sy = <tuple> start
        tx, ty = <tuple> goal
        try:
            a, b, c, d = sx, sy, tx, ty
        except OverflowError:
            return -4
        if not (-1 <= a <= 1 << 30 and -1 <= b <= 1 << 30):
            return -1
        if not (-1 <= c <= 1 << 30 and -1 <= d <= 1 << 30):
            return -2
        status = self.solve(<int> a, <int> b, <int> c, <int> d)
        if status == -1 or status == -2:
            return status
        return self.result(status, t0)

    def find_paths(self, const int64_t[:, ::1] starts, const int64_t[:, ::1] goals):
        """:meth:`find_path` for each row ``(x, y)`` of ``starts`` and ``goals`` (checked
        passable by the caller); a list of results in row order."""
        cdef Py_ssize_t k = starts.shape[0], i
        cdef int status
        cdef double t0
        out = [None] * k
        for i in range(k):
            t0 = monotonic()
            with nogil:
                status = self.solve(<int> starts[i, 0], <int> starts[i, 1], <int> goals[i, 0],
                                    <int> goals[i, 1])
            if status == -1 or status == -2:
                raise ValueError(f"row {i}: {'start' if status == -1 else 'goal'} is not a "
                                 "passable cell of the grid")
            out[i] = self.result(status, t0)
        return out

    def find_costs(self, const int64_t[:, ::1] starts, const int64_t[:, ::1] goals):
        """``(k,)`` float64 optimal costs for the rows of ``starts`` and ``goals`` (checked
        passable by the caller), inf between islands; no path is built into a result."""
        cdef Py_ssize_t k = starts.shape[0], i
        cdef int status = 0
        out = np.empty(k, dtype=np.float64)
        cdef double[::1] o = out
        with nogil:
            for i in range(k):
                status = self.solve(<int> starts[i, 0], <int> starts[i, 1], <int> goals[i, 0],
                                    <int> goals[i, 1])
                if status < 0:
                    break
                o[i] = octile_steps(self.straight, self.diagonal) if status == 1 else INF
        if status < 0:
            raise ValueError(f"row {i}: a subgoal graph query failed with status {status}")
        return out

    def waypoints(self):
        """``(k, 2)`` int64 cells of the subgoals the last path passes through (empty after
        a straight octile path or when not found)."""
        cdef Py_ssize_t m = self.nodes.size(), i
        cdef int w = self.g.width, c
        out = np.empty((m, 2), dtype=np.int64)
        cdef int64_t[:, ::1] o = out
        for i in range(m):
            c = self.cells[self.nodes[i]]
            o[i, 0] = c % w - 1
            o[i, 1] = c // w - 1
        return out
