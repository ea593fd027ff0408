# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A* and Dijkstra over a graph in compressed sparse row form.

Node ``u``'s out-edges are ``indices[indptr[u]:indptr[u + 1]]`` with costs ``weights[...]``.
The optional heuristic is the Euclidean distance between node coordinates times ``hscale``,
raised to a differential (pivot) bound when pivot tables are given, or to a zone-table (cluster)
bound when a node-to-zone map and a zone-to-zone table are given; optional goal-bounding
boxes prune the edges whose box does not contain the goal.  ``goal_bounds`` builds those boxes.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, ldexp, nextafterf, sqrt
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from ._budget cimport Budget, make_budget, spent
from ._constants cimport DH_EPS, FAILED, FOUND, RUNNING, TIE_EPS
from ._heap cimport Heap, HeapItem, IntVec, heap_decrease, heap_pop, heap_push, vec_push
from ._portable cimport ctz64
from ._workspace cimport Workspace

cnp.import_array()

# Goal-bounding build: an edge u -> v counts as tight (on a shortest path) when
# g[u] + w <= g[v] * (1 + TIE_EPS), the searches' own tie tolerance; a looser test only makes
# boxes larger (still exact).

_NO_TABLE = np.empty((0, 1), dtype=np.float64)
_NO_BOXES = np.empty((0, 4), dtype=np.float32)
_NO_ZONES = np.empty(0, dtype=np.int32)


cdef struct Pivots:
    const double* to_table      # (k, n) d(x, p), any strides
    const double* from_table    # (k, n) d(p, x), any strides
    Py_ssize_t to_step          # elements between the entries of consecutive nodes
    Py_ssize_t from_step
    Py_ssize_t* to_row          # row offsets of the pivots the goal reaches (d(goal, p) < inf)
    double* to_goal             # d(goal, p) * (1 + DH_EPS)
    int to_count
    Py_ssize_t* from_row        # row offsets of the pivots that reach the goal (d(p, goal) < inf)
    double* from_goal           # d(p, goal) * (1 - DH_EPS)
    int from_count


cdef inline double pivot_bound(const Pivots* pv, int v) noexcept nogil:
    """max over pivots of d(v, p) - d(goal, p) and d(p, goal) - d(p, v), each lowered by the
    rounding margin; inf when some pivot proves that v cannot reach the goal."""
    cdef double best = 0.0, t
    cdef int i
    for i in range(pv.to_count):
        t = pv.to_table[pv.to_row[i] + v * pv.to_step] * (1.0 - DH_EPS) - pv.to_goal[i]
        best = t if t > best else best
    for i in range(pv.from_count):
        t = pv.from_goal[i] - pv.from_table[pv.from_row[i] + v * pv.from_step] \
            * (1.0 + DH_EPS)
        best = t if t > best else best
    return best


cdef inline double euclid(const double[:, ::1] xy, int a, int b) noexcept nogil:
    cdef double s = 0.0, t
    cdef Py_ssize_t k
    for k in range(xy.shape[1]):
        t = xy[a, k] - xy[b, k]
        s += t * t
    if s < INFINITY:
        return sqrt(s)
    # Squares (or the difference) beyond the largest float: the same in units of 2**600.
    s = 0.0
    for k in range(xy.shape[1]):
        t = ldexp(xy[a, k], -600) - ldexp(xy[b, k], -600)
        s += t * t
    return ldexp(sqrt(s), 600)


cdef struct Extras:
    Pivots pv
    bint use_dh             # some pivot gives a bound toward this goal
    const float* boxes      # (m, 4) goal-bounding boxes, or NULL
    double bx, by           # the goal's first two coordinates
    const int32_t* zone     # (n,) zone of each node, or NULL
    const double* zcol      # zone table column of the goal's zone: zcol[zone * zstep]
    Py_ssize_t zstep


cdef struct NoExtras:
    int unused


# The search loop is compiled twice, plain and with pivots/boxes, so plain A* pays nothing
# for them.
ctypedef fused ExtraSource:
    Extras
    NoExtras


cdef struct Counts:
    long expanded
    long generated
    long max_open


cdef struct Loop:
    # The state of a search between two slices (node arrays and open list: the workspace).
    int goal
    double hscale
    bint record
    bint use_h
    uint32_t open_stamp
    Counts c


cdef int best_first(Workspace ws, const int64_t[::1] indptr, const int32_t[::1] indices,
                    const double[::1] weights, const double[:, ::1] coords, Loop* s,
                    const ExtraSource* ex, const Budget* budget) noexcept nogil:
    """A* (Dijkstra without a heuristic), resumed where the last slice stopped; returns
    FOUND, FAILED, RUNNING (the budget ran out) or -1 (out of memory)."""
    cdef uint32_t open_stamp = s.open_stamp, closed_stamp = open_stamp + 1
    cdef double* g = &ws.g[0]
    cdef int32_t* parent = &ws.parent[0]
    cdef uint32_t* stamp = &ws.stamp[0]
    cdef Heap* heap = &ws.heap
    cdef int32_t* pos = &ws.pos[0]
    cdef int goal = s.goal
    cdef double hscale = s.hscale
    cdef bint use_h = s.use_h, record = s.record
    cdef int u, v, status = FAILED
    cdef int64_t e
    cdef double gu, ng, hv, hd
    cdef long expanded = s.c.expanded, generated = s.c.generated, max_open = s.c.max_open
    cdef long done = 0
    cdef HeapItem it
    cdef const float* box
    while heap.size > 0:
        if spent(budget, done):
            status = RUNNING
            break
        it = heap_pop(heap, pos)
        u = it.node
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
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if stamp[v] == closed_stamp:
                # The zone bound is admissible but not consistent: a closed node is
                # reopened when a cheaper way to it turns up.
                if ExtraSource is Extras:
                    if ex.zone == NULL or gu + weights[e] >= g[v]:
                        continue
                else:
                    continue
            if ExtraSource is Extras:
                if ex.boxes != NULL:
                    box = ex.boxes + 4 * e
                    if not (box[0] <= ex.bx and ex.bx <= box[1]
                            and box[2] <= ex.by and ex.by <= box[3]):
                        continue
            ng = gu + weights[e]
            if stamp[v] == open_stamp and ng >= g[v]:
                continue
            hv = hscale * euclid(coords, v, goal) if use_h else 0.0
            if ExtraSource is Extras:
                if ex.use_dh:
                    hd = pivot_bound(&ex.pv, v)
                    if hd == INFINITY:
                        continue
                    hv = hd if hd > hv else hv
                if ex.zone != NULL:
                    hd = ex.zcol[ex.zone[v] * ex.zstep]
                    if hd == INFINITY:
                        continue
                    hv = hd if hd > hv else hv
            g[v] = ng
            parent[v] = u
            if stamp[v] == open_stamp:
                heap_decrease(heap, pos, v, ng + hv, ng)
                continue
            stamp[v] = open_stamp
            if heap_push(heap, pos, ng + hv, ng, v) != 0:
                status = -1
                break
            generated += 1
        if status < 0:
            break
        if heap.size > max_open:
            max_open = heap.size
    s.c.expanded = expanded
    s.c.generated = generated
    s.c.max_open = max_open
    return status


cdef class CSRRun:
    """A* or Dijkstra over a CSR graph that runs in slices: :meth:`advance` until it is done.

    Arguments as :func:`search`.  The search state lives in ``ws``: a query started on the
    same workspace before this one is done makes it :attr:`stale`.
    """
    cdef Workspace ws
    cdef const int64_t[::1] indptr
    cdef const int32_t[::1] indices
    cdef const double[::1] weights
    cdef const double[:, ::1] coords
    cdef const double[:, :] to_pivot, from_pivot, zone_table
    cdef const float[:, ::1] boxes
    cdef const int32_t[::1] zone
    cdef Extras ex
    cdef bint plain
    cdef Loop s
    cdef readonly int status

    def __cinit__(self, Workspace ws, const int64_t[::1] indptr, const int32_t[::1] indices,
                  const double[::1] weights, const double[:, ::1] coords, int start, int goal,
                  double hscale, bint record, const double[:, :] to_pivot=_NO_TABLE,
                  const double[:, :] from_pivot=_NO_TABLE, const float[:, ::1] boxes=_NO_BOXES,
                  const int32_t[::1] zone=_NO_ZONES, const double[:, :] zone_table=_NO_TABLE):
        cdef Py_ssize_t n = indptr.shape[0] - 1
        cdef Py_ssize_t k = to_pivot.shape[0], i
        cdef double d, hv, hd
        cdef Extras* ex = &self.ex
        cdef Pivots* pv = &ex.pv
        pv.to_count = 0
        pv.from_count = 0
        pv.to_row = NULL
        pv.from_row = NULL
        pv.to_goal = NULL
        pv.from_goal = NULL
        pv.to_table = NULL
        pv.from_table = NULL
        pv.to_step = 1
        pv.from_step = 1
        if k > 0 and (to_pivot.shape[1] != n or from_pivot.shape[0] != k
                      or from_pivot.shape[1] != n):
            raise ValueError(f"pivot tables must both have shape ({k}, {n})")
        ex.boxes = NULL
        ex.bx = 0.0
        ex.by = 0.0
        if boxes.shape[0] > 0 and goal >= 0:
            if boxes.shape[0] != indices.shape[0] or coords.shape[0] != n:
                raise ValueError(
                    f"boxes need one row per edge ({indices.shape[0]}) and coords")
            ex.boxes = &boxes[0, 0]
            ex.bx = coords[goal, 0]
            ex.by = coords[goal, 1]
        if k > 0 and goal >= 0:
            pv.to_table = &to_pivot[0, 0]
            pv.from_table = &from_pivot[0, 0]
            pv.to_step = to_pivot.strides[1] // sizeof(double)
            pv.from_step = from_pivot.strides[1] // sizeof(double)
            pv.to_row = <Py_ssize_t*> malloc(k * sizeof(Py_ssize_t))
            pv.from_row = <Py_ssize_t*> malloc(k * sizeof(Py_ssize_t))
            pv.to_goal = <double*> malloc(k * sizeof(double))
            pv.from_goal = <double*> malloc(k * sizeof(double))
            if pv.to_row == NULL or pv.from_row == NULL or pv.to_goal == NULL \
                    or pv.from_goal == NULL:
                raise MemoryError("cannot allocate the pivot list")
            for i in range(k):
                d = to_pivot[i, goal]
                if d < INFINITY:
                    pv.to_row[pv.to_count] = i * (to_pivot.strides[0] // sizeof(double))
                    pv.to_goal[pv.to_count] = d * (1.0 + DH_EPS)
                    pv.to_count += 1
                d = from_pivot[i, goal]
                if d < INFINITY:
                    pv.from_row[pv.from_count] = i * (from_pivot.strides[0] // sizeof(double))
                    pv.from_goal[pv.from_count] = d * (1.0 - DH_EPS)
                    pv.from_count += 1
        ex.use_dh = pv.to_count + pv.from_count > 0
        ex.zone = NULL
        ex.zcol = NULL
        ex.zstep = 1
        if zone.shape[0] > 0 and goal >= 0:
            if zone.shape[0] != n or zone_table.shape[0] != zone_table.shape[1]:
                raise ValueError(f"zone needs {n} entries and zone_table a square shape")
            if not 0 <= zone[goal] < zone_table.shape[1]:
                raise ValueError("the goal's zone is outside the zone table")
            ex.zone = &zone[0]
            ex.zcol = &zone_table[0, zone[goal]]
            ex.zstep = zone_table.strides[0] // sizeof(double)
        self.plain = not (ex.use_dh or ex.boxes != NULL or ex.zone != NULL)
        self.ws = ws
        self.indptr = indptr
        self.indices = indices
        self.weights = weights
        self.coords = coords
        if not self.plain:  # keep the index arrays alive while the search runs
            self.to_pivot = to_pivot
            self.from_pivot = from_pivot
            self.boxes = boxes
            self.zone = zone
            self.zone_table = zone_table
        self.s.goal = goal
        self.s.hscale = hscale
        self.s.record = record
        self.s.use_h = hscale > 0.0 and goal >= 0 and coords.shape[0] > 0
        self.s.open_stamp = ws.begin()
        self.s.c.expanded = 0
        self.s.c.generated = 1
        self.s.c.max_open = 1
        hv = hscale * euclid(coords, start, goal) if self.s.use_h else 0.0
        if ex.use_dh:
            hd = pivot_bound(pv, start)
            hv = hd if hd > hv else hv
        ws.stamp[start] = self.s.open_stamp
        ws.g[start] = 0.0
        ws.parent[start] = -1
        if heap_push(&ws.heap, &ws.pos[0], hv, 0.0, start) != 0:
            raise MemoryError("open list could not grow")
        self.status = RUNNING

    def __dealloc__(self):
        free(self.ex.pv.to_row)
        free(self.ex.pv.from_row)
        free(self.ex.pv.to_goal)
        free(self.ex.pv.from_goal)

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
        """(expanded, generated, max_open) so far."""
        return self.s.c.expanded, self.s.c.generated, self.s.c.max_open

    def advance(self, int64_t max_expansions=-1, double max_seconds=INFINITY):
        """Expand up to ``max_expansions`` more nodes (< 0: no limit) for at most
        ``max_seconds``; returns the status: 2 running, 1 found, 0 failed."""
        if self.status != RUNNING:
            return self.status
        if self.stale:
            raise ValueError("another query has started on this workspace")
        cdef Budget b = make_budget(max_expansions, max_seconds)
        cdef Workspace ws = self.ws
        cdef NoExtras none
        cdef int status
        with nogil:
            if self.plain:
                status = best_first(ws, self.indptr, self.indices, self.weights, self.coords,
                                    &self.s, &none, &b)
            else:
                status = best_first(ws, self.indptr, self.indices, self.weights, self.coords,
                                    &self.s, &self.ex, &b)
        if status < 0:
            self.status = FAILED
            raise MemoryError("open list could not grow")
        self.status = status
        return status


def search(Workspace ws, const int64_t[::1] indptr, const int32_t[::1] indices,
           const double[::1] weights, const double[:, ::1] coords, int start, int goal,
           double hscale, bint record, const double[:, :] to_pivot=_NO_TABLE,
           const double[:, :] from_pivot=_NO_TABLE, const float[:, ::1] boxes=_NO_BOXES,
           const int32_t[::1] zone=_NO_ZONES, const double[:, :] zone_table=_NO_TABLE):
    """A* from ``start`` to ``goal`` (Dijkstra when ``hscale`` is 0 or ``goal`` is -1, which
    floods everything).  Returns (found, cost, expanded, generated, max_open).

    ``to_pivot``/``from_pivot``: optional ``(k, n)`` distances d(x, p) and d(p, x) for k
    pivots, in any memory order (the same array twice on a symmetric graph); h becomes the
    larger of the Euclidean bound and the differential bound, and nodes it proves cut off
    from the goal are not pushed.
    ``boxes``: optional ``(m, 4)`` float32 per-edge (xmin, xmax, ymin, ymax); an edge is only
    followed when the goal's first two coordinates lie inside its box.
    ``zone``/``zone_table``: optional ``(n,)`` zone ids in ``0..z-1`` and ``(z, z)`` lower
    bounds between zones (inf: no path); h becomes at least ``zone_table[zone[v],
    zone[goal]]``, nodes whose zone cannot reach the goal's are not pushed, and closed nodes
    are reopened (the bound need not be consistent).  :class:`CSRRun` runs the same search
    in slices.
    """
    run = CSRRun(ws, indptr, indices, weights, coords, start, goal, hscale, record, to_pivot,
                 from_pivot, boxes, zone, zone_table)
    found = run.advance() == FOUND
    return (found, run.cost) + run.counters


def distances(Workspace ws, double[::1] out):
    """Copy the settled costs of the last flood (``search`` with goal -1) into ``out``
    (pre-filled with inf)."""
    cdef uint32_t closed_stamp = 2 * ws.generation + 1
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            if ws.stamp[i] == closed_stamp:
                out[i] = ws.g[i]
    return None


cdef inline int uf_find(int32_t* root, int x) noexcept nogil:
    while root[x] != x:
        root[x] = root[root[x]]
        x = root[x]
    return x


def weak_components(const int64_t[::1] indptr, const int32_t[::1] indices, int32_t[::1] out):
    """Label the weakly connected components (edges taken both ways) ``0, 1, ...`` in order
    of their smallest node into ``out`` (n,); returns their number."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, u
    cdef int64_t e
    cdef int a, b, count = 0
    cdef int32_t* root = &out[0] if n > 0 else NULL
    if n == 0:
        return 0
    with nogil:
        for u in range(n):
            root[u] = <int32_t> u
        for u in range(n):
            for e in range(indptr[u], indptr[u + 1]):
                a = uf_find(root, <int> u)
                b = uf_find(root, indices[e])
                if a < b:
                    root[b] = a
                elif b < a:
                    root[a] = b
        # Links only point to smaller nodes, so in ascending order a node's link has already
        # been replaced by its component's label (stored as -1 - label to tell it apart).
        for u in range(n):
            a = root[u]
            if a == u:
                root[u] = -1 - count
                count += 1
            else:
                root[u] = root[a]
        for u in range(n):
            root[u] = -1 - root[u]
    return count


cdef inline float round_down(double x) noexcept nogil:
    cdef float f = <float> x
    if f > x:
        f = nextafterf(f, -INFINITY)
    return f


cdef inline float round_up(double x) noexcept nogil:
    cdef float f = <float> x
    if f < x:
        f = nextafterf(f, INFINITY)
    return f


cdef int propagate(int u, int cur, int s, const int64_t[::1] indptr,
                   const int32_t[::1] indices, const double[::1] weights, double* g,
                   const uint32_t* stamp, uint32_t closed_stamp, const int32_t* rank,
                   uint64_t[:, ::1] masks, IntVec* work) noexcept nogil:
    """OR the first-edge set of ``u`` into its tight successors; successors already processed
    (rank <= cur) whose set grew go on ``work``.  Returns -1 if memory ran out."""
    cdef int64_t e
    cdef int v
    cdef Py_ssize_t w, words = masks.shape[1]
    cdef uint64_t old, new
    cdef bint grew
    for e in range(indptr[u], indptr[u + 1]):
        v = indices[e]
        if v == s or v == u or stamp[v] != closed_stamp:
            continue
        if g[u] + weights[e] > g[v] * (1.0 + TIE_EPS):
            continue
        grew = False
        for w in range(words):
            old = masks[v, w]
            new = old | masks[u, w]
            if new != old:
                masks[v, w] = new
                grew = True
        if grew and rank[v] <= cur and vec_push(work, v) != 0:
            return -1
    return 0


def goal_bounds(Workspace ws, const int64_t[::1] indptr, const int32_t[::1] indices,
                const double[::1] weights, const double[:, ::1] coords, int first, int last,
                uint64_t[:, ::1] masks, int32_t[::1] order, float[:, ::1] out):
    """Goal-bounding boxes of the out-edges of nodes ``first..last-1``.

    For each such node s: a Dijkstra flood from s, then the set of s's out-edges that begin
    some shortest path to each reached node t (propagated over the tight edges in settling
    order, bit j of ``masks[t]`` for s's j-th edge), then each edge's box grown over the first
    two coordinates of its nodes.  Writes ``out[e] = (xmin, xmax, ymin, ymax)`` rounded
    outward to float32, ``(inf, -inf, inf, -inf)`` for an edge that starts no shortest path.
    ``masks``: (n, words) uint64 scratch with ``64 * words`` >= the largest out-degree;
    ``order``: (n,) int32 scratch.
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef Py_ssize_t words = masks.shape[1], w
    cdef Py_ssize_t maxdeg = 64 * words
    cdef double* g = &ws.g[0]
    cdef int32_t* rank = &ws.parent[0]
    cdef uint32_t* stamp = &ws.stamp[0]
    cdef Heap* heap = &ws.heap
    cdef int32_t* pos = &ws.pos[0]
    cdef double* box = <double*> malloc(4 * maxdeg * sizeof(double))
    cdef IntVec work
    cdef uint32_t open_stamp, closed_stamp
    cdef int s, u, v, t, j, cnt, idx, status = 0
    cdef int64_t e, e0
    cdef double ng, x, y
    cdef uint64_t m
    cdef HeapItem it
    work.data = NULL
    work.size = 0
    work.capacity = 0
    if box == NULL:
        raise MemoryError("cannot allocate the box buffer")
    for s in range(first, last):
        if indptr[s + 1] - indptr[s] > maxdeg:
            free(box)
            raise ValueError(f"node {s} has more than {maxdeg} out-edges")
    for s in range(first, last):
        open_stamp = ws.begin()
        closed_stamp = open_stamp + 1
        with nogil:
            # Flood.
            stamp[s] = open_stamp
            g[s] = 0.0
            for w in range(words):
                masks[s, w] = 0
            cnt = 0
            if heap_push(heap, pos, 0.0, 0.0, s) != 0:
                status = -1
            while status == 0 and heap.size > 0:
                it = heap_pop(heap, pos)
                u = it.node
                if stamp[u] == closed_stamp:
                    continue
                stamp[u] = closed_stamp
                rank[u] = cnt
                order[cnt] = u
                cnt += 1
                for e in range(indptr[u], indptr[u + 1]):
                    v = indices[e]
                    if stamp[v] == closed_stamp:
                        continue
                    ng = g[u] + weights[e]
                    if stamp[v] == open_stamp:
                        if ng < g[v]:
                            g[v] = ng
                            heap_decrease(heap, pos, v, ng, ng)
                        continue
                    g[v] = ng
                    stamp[v] = open_stamp
                    for w in range(words):
                        masks[v, w] = 0
                    if heap_push(heap, pos, ng, ng, v) != 0:
                        status = -1
                        break
            if status < 0:
                break
            # First-edge sets: seed s's tight edges, then propagate in settling order.
            e0 = indptr[s]
            for e in range(e0, indptr[s + 1]):
                v = indices[e]
                if v != s and weights[e] <= g[v] * (1.0 + TIE_EPS):
                    j = <int> (e - e0)
                    masks[v, j >> 6] |= (<uint64_t> 1) << (j & 63)
            for idx in range(1, cnt):
                if propagate(order[idx], idx, s, indptr, indices, weights, g, stamp,
                             closed_stamp, rank, masks, &work) != 0:
                    status = -1
                while status == 0 and work.size > 0:
                    work.size -= 1
                    if propagate(work.data[work.size], idx, s, indptr, indices, weights, g,
                                 stamp, closed_stamp, rank, masks, &work) != 0:
                        status = -1
                if status < 0:
                    break
            if status < 0:
                break
            # Boxes.
            for j in range(<int> (indptr[s + 1] - e0)):
                box[4 * j] = INFINITY
                box[4 * j + 1] = -INFINITY
                box[4 * j + 2] = INFINITY
                box[4 * j + 3] = -INFINITY
            for idx in range(1, cnt):
                t = order[idx]
                x = coords[t, 0]
                y = coords[t, 1]
                for w in range(words):
                    m = masks[t, w]
                    while m != 0:
                        j = <int> (64 * w) + ctz64(m)
                        m &= m - 1
                        if x < box[4 * j]:
                            box[4 * j] = x
                        if x > box[4 * j + 1]:
                            box[4 * j + 1] = x
                        if y < box[4 * j + 2]:
                            box[4 * j + 2] = y
                        if y > box[4 * j + 3]:
                            box[4 * j + 3] = y
            for j in range(<int> (indptr[s + 1] - e0)):
                out[e0 + j, 0] = round_down(box[4 * j])
                out[e0 + j, 1] = round_up(box[4 * j + 1])
                out[e0 + j, 2] = round_down(box[4 * j + 2])
                out[e0 + j, 3] = round_up(box[4 * j + 3])
    free(box)
    free(work.data)
    if status < 0:
        raise MemoryError("out of memory while building goal bounds")
    return None
