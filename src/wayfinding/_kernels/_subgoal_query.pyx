# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Subgoal graph queries: connect the start and goal to the graph, A* over its top level,
refine the route to cells.  The graphs are built by ``_subgoal_build``.

Layout and vocabulary (subgoals, clearances, levels, octile costs) as in ``_subgoal_grid.pxd``.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY as INF
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libcpp.vector cimport vector

from ._constants cimport TIE_EPS
from ._heap cimport Heap, HeapItem, heap_decrease, heap_pop, heap_push
from ._subgoal_grid cimport (
    GridCtx,
    direct_h_reachable,
    make_ctx,
    octile_cells,
    octile_path,
    octile_steps,
    octile_xy,
)
from ._subgoal_steps cimport add_octile_steps
from ._workspace cimport Workspace

cnp.import_array()


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
        """Count the steps of the octile path from cell a to cell b."""
        cdef int w = self.g.width
        add_octile_steps(b % w - a % w, b // w - a // w, &self.straight, &self.diagonal)

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
