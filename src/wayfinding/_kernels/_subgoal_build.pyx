# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Subgoal graph construction: subgoals, clearances, direct-h-reachable subgoals, simple and
N-level subgoal graphs.  Queries over the graphs are in ``_subgoal_query``.

Layout and vocabulary (subgoals, clearances, levels, octile costs) as in ``_subgoal_grid.pxd``.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libcpp.algorithm cimport sort
from libcpp.pair cimport pair
from libcpp.vector cimport vector

from ._heap cimport Heap, HeapItem, heap_decrease, heap_free, heap_init, heap_pop, heap_push
from ._steps cimport step_offsets
from ._subgoal_grid cimport (
    SATURATED,
    GridCtx,
    direct_h_reachable,
    make_ctx,
    octile_cells,
    octile_path,
)

cnp.import_array()

# Relative tolerance of cost comparisons in the witness searches of the contraction
# (distinct octile sums on maps of practical size differ by far more than this).
cdef double WITNESS_EPS = 1e-10


cdef struct Edge:
    int to
    double w



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
        by increasing degree.  Returns the number of local nodes, or -1 if out of memory; a pass that
        makes none local leaves every level as it was."""
        cdef vector[int] cand
        cdef int v, r
        cdef Py_ssize_t ci, e
        cdef long local = 0
        cdef vector[pair[Py_ssize_t, int]] order
        for v in range(self.n):
            if self.level[v] == k:
                self.level[v] = k + 1
                order.push_back(pair[Py_ssize_t, int](self.adj[v].size(), v))
        # Fewest neighbours first: their witness searches are the cheapest and their
        # shortcuts the fewest, which keeps the remaining global nodes' degrees low.
        sort(order.begin(), order.end())
        for ci in range(<Py_ssize_t> order.size()):
            cand.push_back(order[ci].second)
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
