# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Subgoal graph kernels: subgoals, clearances, direct-h-reachable subgoals, simple and
N-level subgoal graph construction, and the query (connect, A*, refine).

Grids use the padded layout of ``_gridsearch``: row width ``Wp = W + 2``, cell ``(x, y)`` at
flat index ``(y + 1) * Wp + x + 1``, ``moves[i]`` the legal-step bit mask in the order N, E, S,
W, NE, SE, SW, NW.  Steps cost 1 and sqrt 2 (uniform grids, no corner cutting).

* A *subgoal* is a free cell with a blocked diagonal neighbour whose two shared cardinal
  neighbours are free (a convex obstacle corner).
* ``clearance[i, c]`` (c = N, E, S, W) counts the steps from cell i in direction c before the
  next step would be illegal or land on a subgoal; saturated at 65535 and then extended by
  walking.
* Graph nodes are subgoal ids 0..n-1 (row-major order); every edge joins two cells whose
  octile distance is their true distance, and weighs that distance.  ``level[v]`` is 1 for
  every node of a simple subgoal graph; each contraction pass k keeps the nodes it makes
  local at level k and raises the others (see :func:`build_graph`); the top level is the
  core graph searched by every query.  CSR rows list the targets of the top level first,
  up to ``core_end[v]``.

An octile cost is always computed as ``straight + diagonal * sqrt(2)`` from integer step
counts, so equal distances compare equal bit for bit.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libcpp.algorithm cimport sort
from libcpp.vector cimport vector

from ._heap cimport Heap, HeapItem, heap_decrease, heap_free, heap_init, heap_pop, heap_push
from ._steps cimport step_offsets
from ._workspace cimport Workspace

cnp.import_array()

cdef double SQRT2 = 1.4142135623730951
# Relative tolerance of cost comparisons in the A* (as in _gridsearch) and in the witness
# searches of the contraction (distinct octile sums on maps of practical size differ by far
# more than this).
cdef double TIE_EPS = 1e-12
cdef double WITNESS_EPS = 1e-10
cdef int SATURATED = 65535
cdef double INF = float("inf")

# Step index of (dx, dy) for dx, dy in -1..1 at [(dy + 1) * 3 + dx + 1]; -1 for no step.
cdef int STEP_OF[9]
STEP_OF[:] = [7, 0, 4, 3, -1, 1, 6, 2, 5]


cdef struct GridCtx:
    const uint8_t* moves
    const uint16_t* clear     # npad x 4, cardinal clearances
    const int32_t* sid        # subgoal id per padded cell, -1 elsewhere
    int width
    int off[8]


cdef struct Edge:
    int to
    double w


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


cdef void direct_h_reachable(const GridCtx* g, int s, vector[int]* ids,
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


cdef bint octile_path(const GridCtx* g, int a, int b, vector[int]* out,
                      vector[uint8_t]* scratch) noexcept nogil:
    """Whether some path of octile length joins cells a and b (they are h-reachable).

    Such a path uses only the diagonal and the cardinal direction of the octile
    decomposition.  The two block orders are tried first, then (when ``scratch`` is given)
    a table over the parallelogram of all orders.  With ``out`` the cells after a up to b
    are appended (and nothing is appended when there is no such path).
    """
    cdef int w = g.width
    cdef int dx = b % w - a % w, dy = b // w - a // w
    cdef int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0)
    cdef int adx = dx if dx >= 0 else -dx, ady = dy if dy >= 0 else -dy
    cdef int nd, nc, d, c, od, oc, i, j, cell, r
    cdef Py_ssize_t base = out.size() if out != NULL else 0
    if adx >= ady:
        nd = ady
        nc = adx - ady
        c = STEP_OF[3 + sx + 1]
    else:
        nd = adx
        nc = ady - adx
        c = STEP_OF[(sy + 1) * 3 + 1]
    d = STEP_OF[(sy + 1) * 3 + sx + 1]
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


cdef GridCtx make_ctx(const uint8_t[::1] moves, const uint16_t[:, ::1] clear,
                      const int32_t[::1] sid, int width):
    cdef GridCtx g
    g.moves = &moves[0]
    g.clear = &clear[0, 0]
    g.sid = &sid[0]
    g.width = width
    step_offsets(width, g.off)
    return g


# --------------------------------------------------------------------------- preprocessing

def find_subgoals(const uint8_t[::1] free, int width):
    """Subgoal ids of the padded cells (``free``: 1 passable, 0 blocked or border), -1 for
    other cells; ids follow the flat index order.  Returns (sid int32, cells int32)."""
    cdef Py_ssize_t npad = free.shape[0], i
    cdef int k, dx, dy, n = 0
    sid_arr = np.full(npad, -1, dtype=np.int32)
    cdef int32_t[::1] sid = sid_arr
    cdef vector[int] cells
    with nogil:
        for i in range(width + 1, npad - width - 1):
            if not free[i]:
                continue
            for k in range(4):
                dx = 1 if k == 0 or k == 1 else -1
                dy = 1 if k == 0 or k == 2 else -1
                if not free[i + dx + dy * width] and free[i + dx] and free[i + dy * width]:
                    sid[i] = n
                    n += 1
                    cells.push_back(<int> i)
                    break
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] o = out
    for k in range(n):
        o[k] = cells[k]
    return sid_arr, out


def clearances(const uint8_t[::1] moves, const int32_t[::1] sid, int width):
    """Cardinal clearances (npad, 4) uint16 in the order N, E, S, W, one sweep each."""
    cdef Py_ssize_t npad = sid.shape[0]
    out = np.zeros((npad, 4), dtype=np.uint16)
    cdef uint16_t[:, ::1] cl = out
    cdef int off[8]
    cdef int c, o, v
    cdef Py_ssize_t i, k
    step_offsets(width, off)
    with nogil:
        for c in range(4):
            o = off[c]
            for k in range(npad):
                # A positive offset needs the cell ahead first: sweep backwards.
                i = npad - 1 - k if o > 0 else k
                if (moves[i] >> c) & 1 and sid[i + o] < 0:
                    v = cl[i + o, c] + 1
                    cl[i, c] = SATURATED if v > SATURATED else v
    return out


def reachable_from(const uint8_t[::1] moves, const uint16_t[:, ::1] clear,
                   const int32_t[::1] sid, int width, int cell):
    """Ids and octile distances of the subgoals direct-h-reachable from a padded cell."""
    cdef GridCtx g = make_ctx(moves, clear, sid, width)
    cdef vector[int] ids
    cdef vector[double] costs
    direct_h_reachable(&g, cell, &ids, &costs)
    return (np.array([ids[k] for k in range(ids.size())], dtype=np.int64),
            np.array([costs[k] for k in range(costs.size())], dtype=np.float64))


cdef class _Builder:
    """Adjacency lists under construction and the witness-search scratch.

    ``adj`` holds every edge.  During pass k, ``live[v]`` (for a node v still global)
    holds its edges to nodes still global: entries to nodes made local are dropped lazily
    when met, so witness searches stop paying for the growing number of local nodes.
    """
    cdef GridCtx g
    cdef const int32_t* cells
    cdef int n
    cdef vector[vector[Edge]] adj
    cdef vector[vector[Edge]] live
    cdef vector[int32_t] level
    cdef vector[double] dist
    cdef vector[uint32_t] stamp
    cdef vector[uint32_t] tmark
    cdef vector[uint32_t] feed
    cdef vector[int32_t] tidx
    cdef vector[double] direct
    cdef vector[int32_t] pos
    cdef vector[uint8_t] scratch
    cdef Heap heap
    cdef uint32_t gen
    cdef uint32_t tgen
    cdef long witness_searches
    cdef long settled
    cdef vector[int] nb
    cdef vector[double] nbw
    cdef vector[int] pend
    cdef vector[double] pendw

    def __cinit__(self):
        if heap_init(&self.heap, 1024) != 0:
            raise MemoryError("cannot allocate the open list")

    def __dealloc__(self):
        heap_free(&self.heap)

    cdef void next_generation(self) noexcept nogil:
        cdef int v
        if self.gen >= 0x7FFFFFF0:
            for v in range(self.n):
                self.stamp[v] = 0
            self.gen = 0
        self.gen += 2

    cdef double target_limit(self, int i, uint32_t closed_s) noexcept nogil:
        """The largest c(p, s) + c(s, q) over the targets q = nb[j > i] (p = nb[i]) neither
        settled nor already joined to p by a short enough edge, widened by the tolerance;
        -1 when there is none.  Local targets count until settled."""
        cdef double best = -1.0, via
        cdef int j
        for j in range(i + 1, <int> self.nb.size()):
            via = (self.nbw[i] + self.nbw[j]) * (1.0 + WITNESS_EPS)
            if self.stamp[self.nb[j]] != closed_s and self.direct[j] > via and via > best:
                best = via
        return best

    cdef inline int reach(self, int v, double nd, uint32_t open_s) noexcept nogil:
        """Relax node v to distance nd in a witness search; -1 if out of memory."""
        cdef int32_t* pos = self.pos.data()
        if self.stamp[v] == open_s:
            if nd < self.dist[v]:
                self.dist[v] = nd
                heap_decrease(&self.heap, pos, v, nd, nd)
            return 0
        self.stamp[v] = open_s
        self.dist[v] = nd
        return heap_push(&self.heap, pos, nd, nd, v)

    cdef int witness(self, int i, int s, int k) noexcept nogil:
        """Dijkstra from p = nb[i] through the nodes still global in pass k other than s,
        towards the targets q = nb[j > i] (marked in ``tmark``).

        It stops once every target is settled or the next distance exceeds c(p, s) + c(s, q)
        for every target q still open.  Local targets are reached from the global nodes
        next to them, flagged in ``feed`` beforehand.  Returns -1 if out of memory.
        """
        cdef uint32_t open_s, closed_s
        cdef int u, v, j, q, p = self.nb[i]
        cdef double nd, du, limit
        cdef Py_ssize_t e, m
        cdef HeapItem it
        cdef vector[Edge]* row
        cdef int32_t* pos = self.pos.data()
        self.next_generation()
        open_s = self.gen
        closed_s = open_s + 1
        # Targets joined to p by an edge: that edge may already be the witness.
        self.direct.assign(self.nb.size(), 1e300)
        for e in range(<Py_ssize_t> self.adj[p].size()):
            v = self.adj[p][e].to
            if self.tmark[v] == self.tgen:
                self.direct[self.tidx[v]] = self.adj[p][e].w
        limit = self.target_limit(i, closed_s)
        if limit < 0.0:
            return 0
        for j in range(i + 1, <int> self.nb.size()):
            q = self.nb[j]
            if self.level[q] <= k:
                for e in range(<Py_ssize_t> self.adj[q].size()):
                    self.feed[self.adj[q][e].to] = self.tgen
        self.witness_searches += 1
        self.heap.size = 0
        self.dist[p] = 0.0
        self.stamp[p] = open_s
        if heap_push(&self.heap, pos, 0.0, 0.0, p) != 0:
            return -1
        while self.heap.size > 0:
            it = heap_pop(&self.heap, pos)
            u = it.node
            if it.f > limit:
                break
            self.stamp[u] = closed_s
            self.settled += 1
            if self.tmark[u] == self.tgen:
                limit = self.target_limit(i, closed_s)
                if limit < 0.0:
                    break
            if u != p and (u == s or self.level[u] <= k):
                continue
            du = self.dist[u]
            if u == p or self.feed[u] == self.tgen:
                # Every edge: the local targets are among them.
                row = &self.adj[u]
                for e in range(<Py_ssize_t> row.size()):
                    v = row[0][e].to
                    if v == s or self.stamp[v] == closed_s or (
                            self.level[v] <= k and self.tmark[v] != self.tgen):
                        continue
                    nd = du + row[0][e].w
                    if nd <= limit and self.reach(v, nd, open_s) != 0:
                        return -1
                continue
            row = &self.live[u]
            e = 0
            m = <Py_ssize_t> row.size()
            while e < m:
                v = row[0][e].to
                if self.level[v] <= k:  # made local: drop it from the live edges
                    m -= 1
                    row[0][e] = row[0][m]
                    row.pop_back()
                    continue
                nd = du + row[0][e].w
                e += 1
                if v == s or self.stamp[v] == closed_s or nd > limit:
                    continue
                if self.reach(v, nd, open_s) != 0:
                    return -1
        return 0

    cdef double found(self, int q) noexcept nogil:
        """Length of the witness path to target q after :meth:`witness` (huge if none)."""
        cdef double d = self.direct[self.tidx[q]]
        if (self.stamp[q] == self.gen or self.stamp[q] == self.gen + 1) and self.dist[q] < d:
            return self.dist[q]
        return d

    cdef int try_local(self, int s, int k, long* added) noexcept nogil:
        """Make s (of level k + 1 for now) local at level k if every pair (p, q) of its
        neighbours of level >= k either has a path avoiding s and the local nodes no longer
        than c(p, s) + c(s, q), or is h-reachable (then the edge p-q of their octile length
        is added).  Returns 1 if s became local, 0 if not, -1 if out of memory."""
        cdef int p, q, i, j, v
        cdef Py_ssize_t e
        cdef double via
        cdef Edge edge
        cdef vector[int]* nb = &self.nb
        cdef vector[double]* nbw = &self.nbw
        nb.clear()
        nbw.clear()
        for e in range(<Py_ssize_t> self.adj[s].size()):
            v = self.adj[s][e].to
            if self.level[v] >= k:
                nb.push_back(v)
                nbw.push_back(self.adj[s][e].w)
        self.pend.clear()
        self.pendw.clear()
        for i in range(<int> nb.size() - 1):
            p = nb[0][i]
            self.tgen += 1
            for j in range(i + 1, <int> nb.size()):
                self.tmark[nb[0][j]] = self.tgen
                self.tidx[nb[0][j]] = j
            if self.witness(i, s, k) != 0:
                return -1
            for j in range(i + 1, <int> nb.size()):
                q = nb[0][j]
                via = nbw[0][i] + nbw[0][j]
                if self.found(q) <= via * (1.0 + WITNESS_EPS):
                    continue
                if not octile_path(&self.g, self.cells[p], self.cells[q], NULL,
                                   &self.scratch):
                    return 0
                self.pend.push_back(p)
                self.pend.push_back(q)
                self.pendw.push_back(octile_cells(&self.g, self.cells[p], self.cells[q]))
        self.level[s] = k
        for e in range(<Py_ssize_t> self.pendw.size()):
            p = self.pend[2 * e]
            q = self.pend[2 * e + 1]
            edge.w = self.pendw[e]
            edge.to = q
            self.adj[p].push_back(edge)
            if self.level[p] > k and self.level[q] > k:
                self.live[p].push_back(edge)
            edge.to = p
            self.adj[q].push_back(edge)
            if self.level[p] > k and self.level[q] > k:
                self.live[q].push_back(edge)
            added[0] += 1
        return 1

    cdef long contract_pass(self, int k, long* added) noexcept nogil:
        """Partition the level-k nodes into local (stay k) and global (k + 1), trying them
        in id order.  Returns the number of local nodes, or -1 if out of memory; a pass that
        makes none local leaves every level as it was."""
        cdef vector[int] cand
        cdef int v, r
        cdef Py_ssize_t ci, e
        cdef long local = 0
        for v in range(self.n):
            if self.level[v] == k:
                self.level[v] = k + 1
                cand.push_back(v)
        self.live.clear()
        self.live.resize(self.n)
        for ci in range(<Py_ssize_t> cand.size()):
            v = cand[ci]
            for e in range(<Py_ssize_t> self.adj[v].size()):
                if self.level[self.adj[v][e].to] > k:
                    self.live[v].push_back(self.adj[v][e])
        for ci in range(<Py_ssize_t> cand.size()):
            r = self.try_local(cand[ci], k, added)
            if r < 0:
                return -1
            local += r
        self.live.clear()
        if local == 0:
            for ci in range(<Py_ssize_t> cand.size()):
                self.level[cand[ci]] = k
        return local


def build_graph(const uint8_t[::1] moves, const uint16_t[:, ::1] clear,
                const int32_t[::1] sid, int width, const int32_t[::1] cells, int levels):
    """Build the subgoal graph: direct-h-reachable edges between subgoals, then up to
    ``levels - 1`` contraction passes (pass k splits the level-k nodes into local, kept at k,
    and global, raised to k + 1; a pass that makes nothing local ends the partitioning).

    Returns (level int8, indptr int64, core_end int64, targets int32, costs float64, info)
    where ``info`` is a dict of counts per pass.
    """
    cdef _Builder b = _Builder()
    cdef int n = cells.shape[0]
    cdef int i, j, k, top = 1
    cdef Py_ssize_t e, m
    cdef vector[int] ids
    cdef vector[double] costs
    cdef vector[int64_t] keys
    cdef Edge edge
    cdef long added, local
    cdef int64_t key
    b.g = make_ctx(moves, clear, sid, width)
    b.cells = &cells[0]
    b.n = n
    b.adj.resize(n)
    b.level.assign(n, 1)
    b.dist.assign(n, 0.0)
    b.stamp.assign(n, 0)
    b.tmark.assign(n, 0)
    b.feed.assign(n, 0)
    b.tidx.assign(n, 0)
    b.pos.assign(n, -1)
    b.gen = 0
    b.tgen = 0
    b.witness_searches = 0
    b.settled = 0
    with nogil:
        for i in range(n):
            ids.clear()
            costs.clear()
            direct_h_reachable(&b.g, cells[i], &ids, &costs)
            for e in range(<Py_ssize_t> ids.size()):
                j = ids[e]
                keys.push_back(<int64_t> i * n + j)
                keys.push_back(<int64_t> j * n + i)
        sort(keys.begin(), keys.end())
        m = 0
        for e in range(<Py_ssize_t> keys.size()):
            if m == 0 or keys[e] != keys[m - 1]:
                keys[m] = keys[e]
                m += 1
        keys.resize(m)
        for e in range(m):
            key = keys[e]
            i = <int> (key // n)
            j = <int> (key % n)
            edge.to = j
            edge.w = octile_cells(&b.g, cells[i], cells[j])
            b.adj[i].push_back(edge)
    ssg_edges = m // 2
    passes = []
    for k in range(1, levels):
        added = 0
        with nogil:
            local = b.contract_pass(k, &added)
        if local < 0:
            raise MemoryError("open list could not grow")
        passes.append({"level": k, "local": int(local), "added_edges": int(added)})
        if local == 0:
            break
        top = k + 1
    # CSR with each row's top-level targets first.
    level_arr = np.empty(n, dtype=np.int8)
    indptr_arr = np.zeros(n + 1, dtype=np.int64)
    core_arr = np.zeros(n, dtype=np.int64)
    cdef int8_t[::1] lv = level_arr
    cdef int64_t[::1] indptr = indptr_arr
    cdef int64_t[::1] core = core_arr
    for i in range(n):
        lv[i] = <int8_t> b.level[i]
        indptr[i + 1] = indptr[i] + <int64_t> b.adj[i].size()
    total = int(indptr_arr[n])
    targets_arr = np.empty(total, dtype=np.int32)
    costs_arr = np.empty(total, dtype=np.float64)
    cdef int32_t[::1] tg = targets_arr
    cdef double[::1] cs = costs_arr
    cdef int64_t at
    cdef int pick
    with nogil:
        for i in range(n):
            at = indptr[i]
            for pick in range(2):
                for e in range(<Py_ssize_t> b.adj[i].size()):
                    edge = b.adj[i][e]
                    if (b.level[edge.to] == top) == (pick == 0):
                        tg[at] = edge.to
                        cs[at] = edge.w
                        at += 1
                if pick == 0:
                    core[i] = at
    info = {"subgoals": n, "ssg_edges": int(ssg_edges), "edges": total // 2,
            "passes": passes, "top_level": top,
            "witness_searches": int(b.witness_searches), "witness_settled": int(b.settled)}
    return level_arr, indptr_arr, core_arr, targets_arr, costs_arr, info


# --------------------------------------------------------------------------- queries

cdef struct Search:
    double* g
    int32_t* parent
    int32_t* pos
    uint32_t* stamp
    Heap* heap
    int* ties              # LIFO of open nodes whose f equals the expanded node's
    Py_ssize_t nties
    uint32_t open_s
    uint32_t closed_s
    const int32_t* xy
    int gx
    int gy
    int n
    int u
    int goal
    double fu
    double bound           # cost of the best goal path generated so far
    long generated
    long updated


cdef inline int relax(Search* a, int v, double ng) noexcept nogil:
    """Offer node v the cost ng through the node being expanded; -1 if out of memory.

    A new node whose f equals the expanded node's goes on the LIFO tie list instead of the
    heap: it is among the least, and depth-first order among equal f matches the
    larger-g tie-breaking (as in the grid A*).  Nodes whose f exceeds the cost of a goal
    path already generated are left out: they would never be expanded.
    """
    cdef double h, f
    if a.stamp[v] == a.closed_s:
        return 0
    if a.stamp[v] == a.open_s and ng >= a.g[v] * (1.0 - TIE_EPS):
        return 0
    h = octile_xy(a.xy[2 * v] - a.gx, a.xy[2 * v + 1] - a.gy) if v < a.n else 0.0
    f = ng + h
    if f > a.bound:
        return 0
    if v == a.goal:
        a.bound = ng * (1.0 + TIE_EPS)
    a.g[v] = ng
    a.parent[v] = a.u
    if a.stamp[v] == a.open_s:
        a.updated += 1
        if a.pos[v] >= 0:  # else it waits on the tie list, where it stays least
            heap_decrease(a.heap, a.pos, v, f, ng)
        return 0
    a.stamp[v] = a.open_s
    a.generated += 1
    if f - a.fu <= TIE_EPS * a.fu:
        a.pos[v] = -1
        a.ties[a.nties] = v
        a.nties += 1
        return 0
    return heap_push(a.heap, a.pos, f, ng, v)


cdef class SubgoalQuery:
    """Per-thread query scratch over one subgoal graph (not thread-safe).

    ``components`` is the grid's ``(H, W)`` int32 island ids (-1 on blocked cells).

    Node ids: subgoals 0..n-1, then the start cell (n) and the goal cell (n + 1) when they
    are not subgoals themselves.
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
    cdef int n
    cdef int top
    cdef Workspace ws
    cdef uint32_t qstamp
    cdef vector[uint32_t] mark
    cdef vector[uint32_t] gmark
    cdef vector[double] gcost
    cdef vector[uint32_t] xstamp
    cdef vector[int32_t] xhead
    cdef vector[int] xnext
    cdef vector[int] xto
    cdef vector[double] xcost
    cdef vector[int] sids
    cdef vector[double] scosts
    cdef vector[int] gids
    cdef vector[double] gcosts
    cdef vector[int] stack
    cdef vector[int] closure
    cdef vector[int] nodes
    cdef vector[int] cellpath
    cdef vector[int] record
    cdef vector[int] ties
    cdef vector[uint8_t] scratch
    cdef int start_cell
    cdef int goal_cell
    cdef int straight
    cdef int diagonal
    cdef bint searched
    cdef int start_node
    cdef Py_ssize_t nties
    cdef const int32_t* comp
    cdef int height

    def __cinit__(self, const uint8_t[::1] moves, const uint16_t[:, ::1] clear,
                  const int32_t[::1] sid, int width, const int32_t[::1] cells,
                  const int32_t[:, ::1] xy, const int8_t[::1] level,
                  const int64_t[::1] indptr, const int64_t[::1] core_end,
                  const int32_t[::1] targets, const double[::1] costs, int top,
                  const int32_t[:, ::1] components):
        self.keep = (moves, clear, sid, cells, xy, level, indptr, core_end, targets, costs,
                     components)
        self.comp = &components[0, 0]
        self.height = components.shape[0]
        self.g = make_ctx(moves, clear, sid, width)
        self.n = cells.shape[0]
        self.cells = &cells[0]
        self.xy = &xy[0, 0]
        self.level = &level[0]
        self.indptr = &indptr[0]
        self.core_end = &core_end[0]
        self.targets = &targets[0]
        self.costs = &costs[0]
        self.top = top
        self.ws = Workspace(self.n + 2)
        self.qstamp = 0
        self.mark.assign(self.n + 2, 0)
        self.gmark.assign(self.n + 2, 0)
        self.gcost.assign(self.n + 2, 0.0)
        self.xstamp.assign(self.n + 2, 0)
        self.xhead.assign(self.n + 2, -1)
        self.ties.assign(self.n + 2, 0)

    @property
    def nbytes(self):
        """Bytes of per-query scratch (node arrays and marks)."""
        return self.ws.nbytes + (self.n + 2) * 24

    cdef uint32_t next_query(self):
        cdef Py_ssize_t v
        if self.qstamp >= 0xFFFFFFF0:
            for v in range(self.n + 2):
                self.mark[v] = 0
                self.gmark[v] = 0
                self.xstamp[v] = 0
            self.qstamp = 0
        self.qstamp += 1
        return self.qstamp

    cdef void climb(self, uint32_t q, bint collect) noexcept nogil:
        """Mark the nodes below the top level reachable upward (to ever higher levels) from
        the nodes on the stack; with ``collect`` also list them in ``closure``."""
        cdef int p, v, lp
        cdef int64_t e
        while self.stack.size() > 0:
            p = self.stack.back()
            self.stack.pop_back()
            lp = self.level[p]
            if lp >= self.top or self.mark[p] == q:
                continue
            self.mark[p] = q
            if collect:
                self.closure.push_back(p)
            for e in range(self.indptr[p], self.indptr[p + 1]):
                v = self.targets[e]
                if lp < self.level[v] < self.top and self.mark[v] != q:
                    self.stack.push_back(v)

    cdef void assemble(self, int s, int t, uint32_t q, int* S, int* G) noexcept nogil:
        """Connect start and goal and gather the search graph: the top level, plus the nodes
        reachable upward from the start's and the goal's subgoals (marked usable).  Paths
        enter the goal's side downward from the top level, so the edges from top nodes
        into those are listed per top node."""
        cdef int n = self.n, p, v, k
        cdef int64_t e
        cdef Py_ssize_t i
        self.sids.clear()
        self.scosts.clear()
        self.stack.clear()
        self.closure.clear()
        self.xnext.clear()
        self.xto.clear()
        self.xcost.clear()
        if self.g.sid[t] >= 0:
            G[0] = self.g.sid[t]
            self.stack.push_back(G[0])
        else:
            G[0] = n + 1
            self.gids.clear()
            self.gcosts.clear()
            direct_h_reachable(&self.g, t, &self.gids, &self.gcosts)
            for i in range(<Py_ssize_t> self.gids.size()):
                v = self.gids[i]
                self.gmark[v] = q
                self.gcost[v] = self.gcosts[i]
                self.stack.push_back(v)
        self.climb(q, True)
        if self.g.sid[s] >= 0:
            S[0] = self.g.sid[s]
            self.stack.push_back(S[0])
        else:
            S[0] = n
            direct_h_reachable(&self.g, s, &self.sids, &self.scosts)
            for i in range(<Py_ssize_t> self.sids.size()):
                self.stack.push_back(self.sids[i])
        self.climb(q, False)
        for i in range(<Py_ssize_t> self.closure.size()):
            p = self.closure[i]
            for e in range(self.indptr[p], self.indptr[p + 1]):
                v = self.targets[e]
                if self.level[v] < self.top:
                    continue
                if self.xstamp[v] != q:
                    self.xstamp[v] = q
                    self.xhead[v] = -1
                k = <int> self.xto.size()
                self.xto.push_back(p)
                self.xcost.push_back(self.costs[e])
                self.xnext.push_back(self.xhead[v])
                self.xhead[v] = k

    cdef int astar(self, Search* a, int S, int G, uint32_t q, bint record,
                   long* expanded, long* max_open) noexcept nogil:
        """A* over the assembled graph; 1 found, 0 not, -1 out of memory."""
        cdef int n = self.n, u, v, k
        cdef int64_t e, end
        cdef double gu
        cdef Py_ssize_t i
        cdef HeapItem it
        cdef int top = self.top
        a.nties = 0
        a.bound = INF
        a.goal = G
        a.stamp[S] = a.open_s
        a.g[S] = 0.0
        a.parent[S] = -1
        a.generated = 1
        a.fu = octile_cells(&self.g, self.start_cell, self.goal_cell)
        if heap_push(a.heap, a.pos, a.fu, 0.0, S) != 0:
            return -1
        while True:
            if a.nties > 0:
                a.nties -= 1
                u = a.ties[a.nties]
            elif a.heap.size > 0:
                it = heap_pop(a.heap, a.pos)
                u = it.node
                a.fu = it.f
            else:
                return 0
            if a.stamp[u] == a.closed_s:
                continue
            a.stamp[u] = a.closed_s
            expanded[0] += 1
            if record:
                self.record.push_back(u)
            if u == G:
                return 1
            a.u = u
            gu = a.g[u]
            if u == n:
                for i in range(<Py_ssize_t> self.sids.size()):
                    if relax(a, self.sids[i], gu + self.scosts[i]) != 0:
                        return -1
            elif self.level[u] >= top:
                end = self.core_end[u]
                for e in range(self.indptr[u], end):
                    if relax(a, self.targets[e], gu + self.costs[e]) != 0:
                        return -1
                if self.xstamp[u] == q:
                    k = self.xhead[u]
                    while k >= 0:
                        if relax(a, self.xto[k], gu + self.xcost[k]) != 0:
                            return -1
                        k = self.xnext[k]
            else:
                for e in range(self.indptr[u], self.indptr[u + 1]):
                    v = self.targets[e]
                    if self.level[v] >= top or self.mark[v] == q:
                        if relax(a, v, gu + self.costs[e]) != 0:
                            return -1
            if u < n and self.gmark[u] == q and G == n + 1:
                if relax(a, n + 1, gu + self.gcost[u]) != 0:
                    return -1
            if a.heap.size + a.nties > max_open[0]:
                max_open[0] = a.heap.size + a.nties

    cdef inline int cell_of(self, int node) noexcept nogil:
        if node < self.n:
            return self.cells[node]
        return self.start_cell if node == self.n else self.goal_cell

    cdef int refine(self, int G) noexcept nogil:
        """Turn the parent chain ending at G into the cell path; -2 if an edge cannot be
        followed (never for a consistent graph)."""
        cdef int v = G, a, b
        cdef Py_ssize_t i
        cdef int32_t* parent = &self.ws.parent[0]
        self.nodes.clear()
        while v != -1:
            self.nodes.push_back(v)
            v = parent[v]
        self.cellpath.clear()
        self.cellpath.push_back(self.start_cell)
        self.straight = 0
        self.diagonal = 0
        for i in range(<Py_ssize_t> self.nodes.size() - 1, 0, -1):
            a = self.cell_of(self.nodes[i])
            b = self.cell_of(self.nodes[i - 1])
            if not octile_path(&self.g, a, b, &self.cellpath, &self.scratch):
                return -2
            self.count_steps(a, b)
        return 1

    cdef inline void count_steps(self, int a, int b) noexcept nogil:
        cdef int w = self.g.width
        cdef int dx = b % w - a % w, dy = b // w - a // w
        if dx < 0:
            dx = -dx
        if dy < 0:
            dy = -dy
        if dx >= dy:
            self.straight += dx - dy
            self.diagonal += dy
        else:
            self.straight += dy - dx
            self.diagonal += dx

    def query(self, int sx, int sy, int tx, int ty, bint record=False):
        """Shortest path from cell (sx, sy) to cell (tx, ty).

        Returns (status, cost, expanded, generated, updated, max_open, path): status -1 when
        the start and -2 when the goal is outside the grid or blocked (nothing else is
        done), 3 for start == goal, 2 when the straight octile path was free, 1 when found
        by the graph search, 0 when not found (different islands are not searched).
        ``path`` is ``(n, 2)`` int64 ``(x, y)`` cells, empty when not found.
        """
        cdef Search a
        cdef uint32_t q
        cdef int S = -1, G = -1, status = 0
        cdef long expanded = 0, max_open = 0
        cdef int s, t, w = self.g.width
        cdef int cs, ct
        if not (0 <= sx < w - 2 and 0 <= sy < self.height):
            return -1, INF, 0, 0, 0, 0, None
        if not (0 <= tx < w - 2 and 0 <= ty < self.height):
            return -2, INF, 0, 0, 0, 0, None
        cs = self.comp[sy * (w - 2) + sx]
        ct = self.comp[ty * (w - 2) + tx]
        if cs < 0:
            return -1, INF, 0, 0, 0, 0, None
        if ct < 0:
            return -2, INF, 0, 0, 0, 0, None
        s = (sy + 1) * w + sx + 1
        t = (ty + 1) * w + tx + 1
        self.start_cell = s
        self.goal_cell = t
        self.searched = False
        self.record.clear()
        self.nodes.clear()
        self.cellpath.clear()
        self.straight = 0
        self.diagonal = 0
        if s == t:
            self.cellpath.push_back(s)
            self.nodes.push_back(self.n)
            return 3, 0.0, 0, 0, 0, 0, self.path()
        if cs != ct:
            return 0, INF, 0, 0, 0, 0, self.path()
        self.cellpath.push_back(s)
        # Direct-h-reachable cells are joined by either block order, so the quick check needs
        # no table (its cost would grow with the area between start and goal).
        if octile_path(&self.g, s, t, &self.cellpath, NULL):
            self.nodes.push_back(self.n + 1)
            self.nodes.push_back(self.n)
            self.count_steps(s, t)
            return 2, octile_steps(self.straight, self.diagonal), 0, 0, 0, 0, self.path()
        self.cellpath.clear()
        self.searched = True
        q = self.next_query()
        a.open_s = self.ws.begin()
        a.closed_s = a.open_s + 1
        a.g = &self.ws.g[0]
        a.parent = &self.ws.parent[0]
        a.pos = &self.ws.pos[0]
        a.stamp = &self.ws.stamp[0]
        a.heap = &self.ws.heap
        a.ties = self.ties.data()
        a.xy = self.xy
        a.gx = tx
        a.gy = ty
        a.n = self.n
        a.generated = 0
        a.updated = 0
        with nogil:
            self.assemble(s, t, q, &S, &G)
            self.start_node = S
            status = self.astar(&a, S, G, q, record, &expanded, &max_open)
            self.nties = a.nties
            if status == 1:
                status = self.refine(G)
        if status == -1:
            raise MemoryError("open list could not grow")
        if status == -2:
            raise RuntimeError("a subgoal graph edge could not be followed on the grid")
        if status == 0:
            self.cellpath.clear()
            return 0, INF, expanded, a.generated, a.updated, max_open, self.path()
        return 1, octile_steps(self.straight, self.diagonal), expanded, a.generated, \
            a.updated, max_open, self.path()

    def path(self):
        """``(n, 2)`` int64 ``(x, y)`` cells of the last path found."""
        cdef Py_ssize_t m = self.cellpath.size(), i
        cdef int w = self.g.width, c
        out = np.empty((m, 2), dtype=np.int64)
        cdef int64_t[:, ::1] o = out
        for i in range(m):
            c = self.cellpath[i]
            o[i, 0] = c % w - 1
            o[i, 1] = c // w - 1
        return out

    def waypoints(self):
        """``(k, 2)`` int64 cells of the last path's graph nodes: start, subgoals, goal."""
        cdef Py_ssize_t m = self.nodes.size(), i
        cdef int w = self.g.width, c
        out = np.empty((m, 2), dtype=np.int64)
        cdef int64_t[:, ::1] o = out
        for i in range(m):
            c = self.cell_of(self.nodes[m - 1 - i])
            o[i, 0] = c % w - 1
            o[i, 1] = c // w - 1
        return out

    def recorded(self):
        """Flat padded cells of the graph nodes expanded by the last recorded query."""
        return np.array([self.cell_of(self.record[i]) for i in range(self.record.size())],
                        dtype=np.int64)

    def open_cells(self):
        """Flat padded cells of the graph nodes left open by the last query (none after a
        straight-path answer)."""
        if not self.searched:
            return np.empty(0, dtype=np.int64)
        cdef uint32_t open_s = self.ws.stamp[self.start_node] & ~(<uint32_t> 1)
        nodes = list(self.ws.open_nodes())
        nodes += [self.ties[i] for i in range(self.nties)
                  if self.ws.stamp[self.ties[i]] == open_s]
        return np.array([self.cell_of(v) for v in nodes], dtype=np.int64)
