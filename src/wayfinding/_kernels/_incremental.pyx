# Incremental search (Koenig and Likhachev's LPA* and D* Lite) on a graph with mutable edge
# costs, in one kernel: a search from a root towards a target over "pull" edges (a node's
# rhs is the best g of the nodes it pulls from plus the edge cost) that pushes changes along
# the reverse "push" edges.  LPA*: root = start, pull = in-edges.  D* Lite: root = goal,
# target = the agent's position, pull = out-edges, and a key modifier km when the agent
# moves.  Edge costs live in one array indexed by edge id; inf means no edge.
cimport cython
from libc.math cimport INFINITY, fabs, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, qsort, realloc

from ._constants cimport SQRT2

import numpy as np


cdef struct Item:
    double k1
    double k2
    int node


cdef inline bint before(Item a, Item b) noexcept nogil:
    return a.k1 < b.k1 or (a.k1 == b.k1 and a.k2 < b.k2)


cdef inline bint not_after(Item a, Item b) noexcept nogil:
    """a <= b up to rounding: keys are float sums, and a geometric tie that rounds the
    wrong way must not end the search early."""
    cdef double tol = 1e-9 * (1.0 + fabs(b.k1))
    return a.k1 < b.k1 - tol or (fabs(a.k1 - b.k1) <= tol and a.k2 <= b.k2 + tol)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef class IncrementalCore:
    """LPA*-style state over ``n`` nodes: ``pull_ptr/pull_nbr/pull_edge`` (CSR of the
    edges a node's rhs reads, with their edge ids) and ``push_*`` (the reverse), ``cost``
    (mutable, per edge id), node ``coords`` and ``h_scale`` for the Euclidean heuristic
    towards the target."""

    cdef int n
    cdef const int64_t[::1] pull_ptr
    cdef const int32_t[::1] pull_nbr
    cdef const int64_t[::1] pull_edge
    cdef const int64_t[::1] push_ptr
    cdef const int32_t[::1] push_nbr
    cdef double[::1] cost
    cdef const double[:, ::1] coords
    cdef public double h_scale
    cdef public double[::1] g
    cdef public double[::1] rhs
    cdef int32_t[::1] pos
    cdef Item* heap
    cdef Py_ssize_t size, capacity
    cdef public int root, target
    cdef public double km
    cdef public long long expanded
    # Anytime mode (ARA*, AD*): overconsistent keys inflate the heuristic by eps; while
    # eps > 1 a node that turns overconsistent after its expansion in this round waits in
    # INCONS.  An underconsistent node is always repaired in the round (its g is too low
    # for the nodes that read it), and its repair undoes its expansion; at eps 1 the round
    # is plain LPA* / D* Lite, so it ends optimal.
    cdef public double eps
    cdef public bint anytime
    cdef uint8_t[::1] closed
    cdef uint8_t[::1] incons

    def __cinit__(self):
        self.heap = NULL

    def __init__(self, int n, const int64_t[::1] pull_ptr, const int32_t[::1] pull_nbr,
                 const int64_t[::1] pull_edge, const int64_t[::1] push_ptr,
                 const int32_t[::1] push_nbr, double[::1] cost,
                 const double[:, ::1] coords, double h_scale, int root, int target):
        self.n = n
        self.pull_ptr, self.pull_nbr, self.pull_edge = pull_ptr, pull_nbr, pull_edge
        self.push_ptr, self.push_nbr = push_ptr, push_nbr
        self.cost = cost
        self.coords = coords
        self.h_scale = h_scale
        self.g = np.full(n, np.inf)
        self.rhs = np.full(n, np.inf)
        self.pos = np.full(n, -1, dtype=np.int32)
        self.capacity = 64
        self.heap = <Item*> malloc(self.capacity * sizeof(Item))
        if self.heap == NULL:
            raise MemoryError()
        self.size = 0
        self.root, self.target, self.km, self.expanded = root, target, 0.0, 0
        self.eps, self.anytime = 1.0, False
        self.closed = np.zeros(n, dtype=np.uint8)
        self.incons = np.zeros(n, dtype=np.uint8)
        self.rhs[root] = 0.0
        self.push(root)

    def __dealloc__(self):
        free(self.heap)

    # ------------------------------------------------------------------ the queue
    cdef inline double h(self, int s) noexcept nogil:
        cdef double dx = self.coords[s, 0] - self.coords[self.target, 0]
        cdef double dy = self.coords[s, 1] - self.coords[self.target, 1]
        return self.h_scale * sqrt(dx * dx + dy * dy)

    cdef inline Item key(self, int s) noexcept nogil:
        cdef Item it
        if self.g[s] > self.rhs[s]:             # overconsistent: inflated heuristic
            it.k1 = self.rhs[s] + self.eps * self.h(s) + self.km
            it.k2 = self.rhs[s]
        else:
            it.k1 = self.g[s] + self.h(s) + self.km
            it.k2 = self.g[s]
        it.node = s
        return it

    cdef void place(self, Py_ssize_t i, Item it) noexcept nogil:
        cdef Py_ssize_t parent, child
        while i > 0:                              # up
            parent = (i - 1) >> 1
            if not before(it, self.heap[parent]):
                break
            self.heap[i] = self.heap[parent]
            self.pos[self.heap[i].node] = <int32_t> i
            i = parent
        while True:                               # down
            child = 2 * i + 1
            if child >= self.size:
                break
            if child + 1 < self.size and before(self.heap[child + 1], self.heap[child]):
                child += 1
            if not before(self.heap[child], it):
                break
            self.heap[i] = self.heap[child]
            self.pos[self.heap[i].node] = <int32_t> i
            i = child
        self.heap[i] = it
        self.pos[it.node] = <int32_t> i

    cdef int push(self, int s) except -1:
        cdef Item* grown
        if self.pos[s] >= 0:
            self.place(self.pos[s], self.key(s))
            return 0
        if self.size == self.capacity:
            grown = <Item*> realloc(self.heap, 2 * self.capacity * sizeof(Item))
            if grown == NULL:
                raise MemoryError()
            self.heap = grown
            self.capacity *= 2
        self.size += 1
        self.place(self.size - 1, self.key(s))
        return 0

    cdef void remove(self, int s) noexcept nogil:
        cdef Py_ssize_t i = self.pos[s]
        cdef Item last
        if i < 0:
            return
        self.pos[s] = -1
        self.size -= 1
        if i < self.size:
            last = self.heap[self.size]
            self.place(i, last)

    # ------------------------------------------------------------------ LPA* / D* Lite
    cdef int update(self, int s) except -1:
        cdef int64_t e
        cdef double best = INFINITY, c
        if s != self.root:
            for e in range(self.pull_ptr[s], self.pull_ptr[s + 1]):
                c = self.cost[self.pull_edge[e]] + self.g[self.pull_nbr[e]]
                if c < best:
                    best = c
            self.rhs[s] = best
        if self.g[s] != self.rhs[s]:
            if self.anytime and self.eps > 1.0 and self.closed[s] and self.g[s] > self.rhs[s]:
                self.remove(s)                    # overconsistent after its expansion
                self.incons[s] = 1
            else:                                 # an underconsistent g is never kept
                self.incons[s] = 0
                self.push(s)
        else:
            self.remove(s)
            self.incons[s] = 0
        return 0

    def nodes_changed(self, const int64_t[::1] nodes):
        """Recompute the rhs of ``nodes``, whose pull edges changed cost."""
        cdef Py_ssize_t i
        for i in range(nodes.shape[0]):
            self.update(<int> nodes[i])

    def reset_keys(self):
        """Recompute every queued key (after the heuristic's scale fell): queue again."""
        cdef Py_ssize_t i, n = self.size
        nodes = [self.heap[i].node for i in range(n)]
        for i in range(n):
            self.pos[self.heap[i].node] = -1
        self.size = 0
        for s in nodes:
            self.push(s)

    def compute(self, long long budget=-1):
        """Expand until no queued key is below the target's and the target is
        consistent; returns the target's cost, or None when ``budget`` expansions (if >= 0)
        ran out first."""
        cdef Item top, tk, fresh
        cdef int u, v
        cdef int64_t e
        cdef long long start = self.expanded
        while self.size > 0:
            if budget >= 0 and self.expanded - start >= budget:
                return None                       # out of budget: not done
            top = self.heap[0]
            tk = self.key(self.target)
            if not (not_after(top, tk) or (self.rhs[self.target] != self.g[self.target]
                                           and not self.incons[self.target])):
                break
            u = top.node
            fresh = self.key(u)
            if before(top, fresh):                # stale key (km grew): re-key it
                self.place(0, fresh)
                continue
            self.expanded += 1
            if self.g[u] > self.rhs[u]:
                self.g[u] = self.rhs[u]
                self.remove(u)
                self.closed[u] = 1
                for e in range(self.push_ptr[u], self.push_ptr[u + 1]):
                    self.update(self.push_nbr[e])
            else:
                self.g[u] = INFINITY
                self.closed[u] = 0                # its expansion is undone
                self.update(u)
                for e in range(self.push_ptr[u], self.push_ptr[u + 1]):
                    self.update(self.push_nbr[e])
        return self.g[self.target]

    def walk(self, int s, int limit):
        """From ``s``, follow the pull edge minimising cost + g until the root: (int64 node
        ids, int64 ids of the edges taken, the sum of their costs); empty and inf when the
        walk finds no way."""
        cdef int64_t e, used
        cdef double best, c, total = 0.0
        cdef int nxt
        cdef Py_ssize_t n = 1, cap = 64
        cdef int64_t* out
        cdef int64_t* taken
        cdef int64_t* grown
        empty = np.empty(0, dtype=np.int64)
        if self.g[s] == INFINITY and self.rhs[s] == INFINITY:
            return empty, empty, INFINITY
        out = <int64_t*> malloc(cap * sizeof(int64_t))
        taken = <int64_t*> malloc(cap * sizeof(int64_t))
        try:
            if out == NULL or taken == NULL:
                raise MemoryError()
            out[0] = s
            while s != self.root and n <= limit:
                best = INFINITY
                nxt = -1
                used = -1
                for e in range(self.pull_ptr[s], self.pull_ptr[s + 1]):
                    c = self.cost[self.pull_edge[e]] + self.g[self.pull_nbr[e]]
                    if c < best:
                        best = c
                        nxt = self.pull_nbr[e]
                        used = self.pull_edge[e]
                if nxt < 0:
                    break
                total += self.cost[used]
                s = nxt
                if n == cap:
                    grown = <int64_t*> realloc(out, 2 * cap * sizeof(int64_t))
                    if grown == NULL:
                        raise MemoryError()
                    out = grown
                    grown = <int64_t*> realloc(taken, 2 * cap * sizeof(int64_t))
                    if grown == NULL:
                        raise MemoryError()
                    taken, cap = grown, 2 * cap
                taken[n - 1] = used
                out[n] = s
                n += 1
            if s != self.root:
                return empty, empty, INFINITY
            return (np.asarray(<int64_t[:n]> out).copy(),
                    np.asarray(<int64_t[:n - 1]> taken).copy() if n > 1 else empty, total)
        finally:
            free(out)
            free(taken)

    def queued(self):
        """The queued nodes and whether the queue is ordered (for checks)."""
        cdef Py_ssize_t i
        nodes = [self.heap[i].node for i in range(self.size)]
        ordered = all(not before(self.heap[i], self.heap[(i - 1) >> 1])
                      for i in range(1, self.size))
        return nodes, ordered

    def next_round(self, double eps):
        """Anytime: a new round at ``eps`` (INCONS back into the queue, CLOSED emptied,
        every key recomputed)."""
        cdef int s
        self.eps = eps
        for s in np.flatnonzero(np.asarray(self.incons)).tolist():
            self.incons[s] = 0
            if self.g[s] != self.rhs[s]:
                self.push(s)
        self.closed[:] = 0
        self.reset_keys()

    def restart(self, int root, int target):
        """Forget the search and start a new one from ``root`` towards ``target``, reusing
        the arrays (no allocation)."""
        cdef Py_ssize_t i
        for i in range(self.size):
            self.pos[self.heap[i].node] = -1
        self.size = 0
        self.g[:] = INFINITY
        self.rhs[:] = INFINITY
        self.closed[:] = 0
        self.incons[:] = 0
        self.root, self.target, self.km = root, target, 0.0
        self.rhs[root] = 0.0
        self.push(root)


cdef int compare_ints(const void* a, const void* b) noexcept nogil:
    cdef int x = (<const int*> a)[0], y = (<const int*> b)[0]
    return (x > y) - (x < y)


cdef Py_ssize_t sort_unique(int* values, Py_ssize_t n) noexcept nogil:
    """Sort ``values`` in place and drop repeats; returns the new length."""
    cdef Py_ssize_t i, m = 0
    qsort(values, n, sizeof(int), compare_ints)
    for i in range(n):
        if m == 0 or values[i] != values[m - 1]:
            values[m] = values[i]
            m += 1
    return m


def grid_cells_changed(IncrementalCore core, double[:, ::1] cells_cost,
                       const int64_t[:, ::1] cells, const double[::1] values,
                       const int64_t[::1] by_source, const int64_t[::1] src,
                       const int64_t[::1] dst, int need_sides, bint backward):
    """Set the costs of grid ``cells`` (``(k, 2)`` x, y) to ``values``, recompute the cost of
    every edge leaving the 3 x 3 block round each (a step costs its length times the mean of
    its two cells; a diagonal step needs ``need_sides`` free side cells), and update the
    nodes whose pull edges changed.  Edges are sorted by source (``by_source``: offsets).
    Returns the lowest cost per unit length among the finite recomputed edges (inf if none).
    """
    cdef Py_ssize_t h = cells_cost.shape[0], w = cells_cost.shape[1], k = cells.shape[0]
    cdef Py_ssize_t i, nb = 0, no = 0, m
    cdef int x, y, dx, dy, node, sx, sy, tx, ty, sides
    cdef int64_t e
    cdef double c, floor = INFINITY, length
    cdef int* block = <int*> malloc(9 * k * sizeof(int) + 1)
    cdef int* owners = NULL
    if block == NULL:
        raise MemoryError()
    try:
        for i in range(k):
            x, y = <int> cells[i, 0], <int> cells[i, 1]
            cells_cost[y, x] = values[i]
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    if 0 <= x + dx < w and 0 <= y + dy < h:
                        block[nb] = (y + dy) * w + x + dx
                        nb += 1
        nb = sort_unique(block, nb)
        m = 0
        for i in range(nb):
            m += by_source[block[i] + 1] - by_source[block[i]]
        owners = <int*> malloc(m * sizeof(int) + 1)
        if owners == NULL:
            raise MemoryError()
        for i in range(nb):
            for e in range(by_source[block[i]], by_source[block[i] + 1]):
                sx, sy = <int> (src[e] % w), <int> (src[e] // w)
                tx, ty = <int> (dst[e] % w), <int> (dst[e] // w)
                c = 0.5 * (cells_cost[sy, sx] + cells_cost[ty, tx])
                length = 1.0
                if sx != tx and sy != ty:
                    length = SQRT2
                    sides = (cells_cost[sy, tx] < INFINITY) + (cells_cost[ty, sx] < INFINITY)
                    if sides < need_sides:
                        c = INFINITY
                c *= length
                core.cost[e] = c
                if c < INFINITY and c / length < floor:
                    floor = c / length
                owners[no] = <int> (src[e] if backward else dst[e])
                no += 1
        no = sort_unique(owners, no)
        for i in range(no):
            core.update(owners[i])
    finally:
        free(block)
        free(owners)
    return floor
