# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Canonical Dijkstra on uniform grids and goal-bound box construction.

Grids use the padded layout of the other grid kernels (row width ``Wp = W + 2``, a blocked
border, ``moves[i]`` the legal-step bits N, E, S, W, NE, SE, SW, NW).

Canonical Dijkstra (uniform costs 1 and sqrt 2, no corner cutting) labels cells by sweeping
canonical rays instead of pushing every cell through the open list:

* a diagonal ray continues diagonally and, from every cell it labels, starts a cardinal ray
  along each of its two components;
* a cardinal ray continues straight; the cell ``x`` it reaches from ``p`` is a *jump point*
  when, for a perpendicular side ``s``, ``x + s`` is free and ``p + s`` is blocked (a side
  wall ends).  The ray stops there and ``x`` goes on the open list with its arrival
  direction; expanding it continues straight and, for each ended side ``s``, along ``s`` and
  along the diagonal between the arrival direction and ``s``.  (Without corner cutting the
  cell ``x + s`` cannot be reached diagonally from ``p``, so the side ray is needed as well
  as the diagonal.)
* sources start all eight rays.

A ray stops at a cell already labelled with a cost not improved beyond the relative
tolerance ``TIE_EPS``.  A cell whose label is improved continues the ray, or is put back on
the open list if it is a jump point for the new arrival direction; stale open-list entries
(cost above the cell's label) are skipped when popped.

Goal bounds: for a source ``s`` the flood's costs give the tight edges (``g[u] + c(u, v)``
equal to ``g[v]`` within a relative ``TIGHT_EPS``); the first-move mask of a cell is the OR
of its tight predecessors' masks (the source's tight neighbours get their own direction bit),
computed by an iterative memoised depth-first walk, then every cell grows the boxes of the
directions in its mask.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

from ._heap cimport Heap, HeapItem, IntVec, heap_decrease, heap_free, heap_init, heap_pop, \
    heap_push, vec_push
from ._steps cimport step_tables
from ._workspace cimport Workspace

cnp.import_array()

cdef double SQRT2 = 1.4142135623730951

# Same tolerance as the A* kernel: a cost counts as an improvement only below
# g * (1 - TIE_EPS).
cdef double TIE_EPS = 1e-12

# Relative tolerance of the tight-edge test.  Looser than TIE_EPS on purpose: a goal box
# that takes in a near-tie move only prunes less, one that misses an optimal move is wrong.
cdef double TIGHT_EPS = 1e-10

# Arrival code of a source: start every ray.
cdef enum:
    FROM_SOURCE = 255

# Perpendicular sides of the cardinals N, E, S, W (the first clockwise), and the diagonal
# between a cardinal and a side.
cdef int SIDE_A[4]
cdef int SIDE_B[4]
SIDE_A[:] = [1, 2, 3, 0]
SIDE_B[:] = [3, 0, 1, 2]
# DIAG[c * 4 + s]: diagonal made of cardinals c and s (N+E = NE, E+S = SE, S+W = SW, W+N = NW)
cdef int DIAG[16]
DIAG[:] = [-1, 4, -1, 7,
           4, -1, 5, -1,
           -1, 5, -1, 6,
           7, -1, 6, -1]
# Cardinal components of the diagonals NE, SE, SW, NW.
cdef int COMP_A[4]
cdef int COMP_B[4]
COMP_A[:] = [0, 2, 2, 0]
COMP_B[:] = [1, 1, 3, 3]
# Opposite direction.
cdef int OPPOSITE[8]
OPPOSITE[:] = [2, 3, 0, 1, 6, 7, 4, 5]


# ---------------------------------------------------------------- open list of jump points
# A plain binary heap of (g, cell, arrival) entries; a cell may appear several times (once
# per improvement), the stale entries being skipped when popped.

cdef struct Entry:
    double g
    int32_t cell
    int32_t arrival


cdef struct EntryHeap:
    Entry* items
    Py_ssize_t size
    Py_ssize_t capacity


cdef int eheap_push(EntryHeap* h, double g, int cell, int arrival) noexcept nogil:
    cdef Entry* grown
    cdef Py_ssize_t i, parent
    cdef Py_ssize_t cap
    if h.size == h.capacity:
        cap = 256 if h.capacity < 256 else 2 * h.capacity
        grown = <Entry*> realloc(h.items, cap * sizeof(Entry))
        if grown == NULL:
            return -1
        h.items = grown
        h.capacity = cap
    i = h.size
    h.size += 1
    while i > 0:
        parent = (i - 1) >> 1
        if h.items[parent].g <= g:
            break
        h.items[i] = h.items[parent]
        i = parent
    h.items[i].g = g
    h.items[i].cell = cell
    h.items[i].arrival = arrival
    return 0


cdef Entry eheap_pop(EntryHeap* h) noexcept nogil:
    """Remove and return the least entry (the heap must not be empty): the hole at the top
    walks down along the smaller children to a leaf, then the last entry sifts up from it."""
    cdef Entry top = h.items[0]
    cdef Entry last
    cdef Py_ssize_t i = 0, child, parent, n
    h.size -= 1
    n = h.size
    if n == 0:
        return top
    last = h.items[n]
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n:
            child += h.items[child + 1].g < h.items[child].g
        h.items[i] = h.items[child]
        i = child
    while i > 0:
        parent = (i - 1) >> 1
        if h.items[parent].g <= last.g:
            break
        h.items[i] = h.items[parent]
        i = parent
    h.items[i] = last
    return top


# ---------------------------------------------------------------- canonical Dijkstra

cdef struct Canon:
    # Scratch and results of one canonical flood.
    double* g
    uint32_t* stamp
    uint32_t label          # stamp of a labelled cell in this flood
    const uint8_t* moves
    int offset[8]
    double limit
    EntryHeap heap
    IntVec* order           # when not NULL: every newly labelled cell, in labelling order
    IntVec* jumps           # when not NULL: every jump point pushed, in push order
    long pushes
    long reopened
    long expanded
    long labels
    int status              # 0 ok, -1 out of memory


cdef inline int improves(Canon* c, int x, double cost) noexcept nogil:
    """Label x with ``cost`` if x is unlabelled (returns 1) or ``cost`` strictly improves
    its label (returns 2); otherwise (or out of memory) return 0."""
    cdef int result = 2
    if c.stamp[x] == c.label:
        if cost >= c.g[x] * (1.0 - TIE_EPS):
            return 0
    else:
        if c.order != NULL and vec_push(c.order, x) != 0:
            c.status = -1
            return 0
        c.stamp[x] = c.label
        result = 1
    c.g[x] = cost
    c.labels += 1
    return result


cdef void cardinal_ray(Canon* c, int x, int d, double cost) noexcept nogil:
    """Sweep from x, reached by the cardinal step d, until blocked, not improved or at a
    jump point (pushed on the open list)."""
    cdef int off = c.offset[d]
    cdef int sa = SIDE_A[d], sb = SIDE_B[d]
    cdef uint8_t mx, mp
    cdef int ended, labelled
    while True:
        if cost > c.limit:
            return
        labelled = improves(c, x, cost)
        if not labelled:
            return
        mx = c.moves[x]
        mp = c.moves[x - off]
        # A side is free at x (cardinal steps are legal between free cells) but was blocked
        # beside the previous cell.
        ended = (((mx >> sa) & ~(mp >> sa)) & 1) | ((((mx >> sb) & ~(mp >> sb)) & 1) << 1)
        if ended:
            if eheap_push(&c.heap, cost, x, d | (ended << 3)) != 0 \
                    or (c.jumps != NULL and vec_push(c.jumps, x) != 0):
                c.status = -1
            c.pushes += 1
            c.reopened += labelled == 2
            return
        if not (mx >> d) & 1:
            return
        x += off
        cost += 1.0


cdef void diagonal_ray(Canon* c, int x, int d, double cost) noexcept nogil:
    """Sweep diagonally from x (reached by the diagonal step d), starting the two cardinal
    component rays from every cell labelled."""
    cdef int off = c.offset[d]
    cdef int ca = COMP_A[d - 4], cb = COMP_B[d - 4]
    cdef uint8_t mx
    while True:
        if cost > c.limit or not improves(c, x, cost):
            return
        mx = c.moves[x]
        if (mx >> ca) & 1:
            cardinal_ray(c, x + c.offset[ca], ca, cost + 1.0)
        if (mx >> cb) & 1:
            cardinal_ray(c, x + c.offset[cb], cb, cost + 1.0)
        if not (mx >> d) & 1:
            return
        x += off
        cost += SQRT2


cdef void expand(Canon* c, int x, int arrival, double gx) noexcept nogil:
    """Start the rays of an open-list entry: every direction at a source; the arrival
    direction, and per ended side the side and the diagonal toward it, at a jump point."""
    cdef uint8_t mx = c.moves[x]
    cdef int d, s, k
    if arrival == FROM_SOURCE:
        for d in range(4):
            if (mx >> d) & 1:
                cardinal_ray(c, x + c.offset[d], d, gx + 1.0)
        for d in range(4, 8):
            if (mx >> d) & 1:
                diagonal_ray(c, x + c.offset[d], d, gx + SQRT2)
        return
    d = arrival & 7
    if (mx >> d) & 1:
        cardinal_ray(c, x + c.offset[d], d, gx + 1.0)
    for k in range(2):
        if not (arrival >> (3 + k)) & 1:
            continue
        s = SIDE_A[d] if k == 0 else SIDE_B[d]
        if (mx >> s) & 1:
            cardinal_ray(c, x + c.offset[s], s, gx + 1.0)
        s = DIAG[d * 4 + s]
        if (mx >> s) & 1:
            diagonal_ray(c, x + c.offset[s], s, gx + SQRT2)


cdef int canonical_run(Canon* c, const int64_t* sources, Py_ssize_t n) noexcept nogil:
    """Flood from the sources (labelled 0); returns 0, or -1 when memory ran out."""
    cdef Py_ssize_t k
    cdef int s
    cdef Entry e
    c.heap.size = 0
    for k in range(n):
        s = <int> sources[k]
        if c.stamp[s] == c.label:
            continue
        if c.order != NULL and vec_push(c.order, s) != 0:
            return -1
        c.stamp[s] = c.label
        c.g[s] = 0.0
        c.labels += 1
        if eheap_push(&c.heap, 0.0, s, FROM_SOURCE) != 0:
            return -1
        c.pushes += 1
    while c.heap.size > 0 and c.status == 0:
        e = eheap_pop(&c.heap)
        if e.g > c.g[e.cell]:
            continue        # improved since it was pushed
        c.expanded += 1
        expand(c, e.cell, e.arrival, e.g)
    return c.status


cdef void canon_init(Canon* c, double* g, uint32_t* stamp, uint32_t label,
                     const uint8_t* moves, int width, double limit) noexcept nogil:
    cdef double length[8]
    step_tables(width, c.offset, length)
    c.g = g
    c.stamp = stamp
    c.label = label
    c.moves = moves
    c.limit = limit
    c.heap.items = NULL
    c.heap.size = 0
    c.heap.capacity = 0
    c.order = NULL
    c.jumps = NULL
    c.pushes = 0
    c.reopened = 0
    c.expanded = 0
    c.labels = 0
    c.status = 0


def flood(Workspace ws, const uint8_t[::1] moves, int width, const long long[::1] sources,
          double limit, double[:, ::1] out, bint record=False):
    """Multi-source canonical Dijkstra on a uniform no-corner-cutting grid.

    Writes the cost of every cell within ``limit`` into ``out`` (H x W, pre-filled with inf).
    Returns ``(pushes, expanded, labels, reopened, jumps)``: open-list pushes (sources
    included), entries expanded, label writes (first labels and improvements), pushes of
    cells already labelled (re-opened jump points), and with ``record`` the padded flat
    indices of the jump points pushed, in push order (int64 array; None otherwise).
    """
    cdef Canon c
    cdef IntVec jumps
    jumps.data = NULL
    jumps.size = jumps.capacity = 0
    cdef uint32_t label = ws.begin()
    cdef double* g = &ws.g[0]
    cdef uint32_t* stamp = &ws.stamp[0]
    cdef Py_ssize_t n = moves.shape[0], i
    cdef int h = out.shape[0], w = out.shape[1]
    cdef int status
    cdef int x, y
    cdef double gx
    if n != (h + 2) * (w + 2) or width != w + 2 or ws.size < n:
        raise ValueError("moves, width, out and workspace sizes disagree")
    canon_init(&c, g, stamp, label, &moves[0], width, limit)
    if record:
        c.jumps = &jumps
    with nogil:
        status = canonical_run(&c, <const int64_t*> &sources[0], sources.shape[0]) \
            if sources.shape[0] > 0 else 0
        free(c.heap.items)
        if status == 0:
            for y in range(h):
                i = (y + 1) * width + 1
                for x in range(w):
                    # Branch-free: labelled and unlabelled cells are interleaved at random.
                    gx = g[i + x]
                    out[y, x] = gx if (stamp[i + x] == label) & (gx <= limit) else INFINITY
    if status < 0:
        free(jumps.data)
        raise MemoryError("open list could not grow")
    found = None
    if record:
        found = np.asarray(<int[:jumps.size]> jumps.data).astype(np.int64) if jumps.size \
            else np.empty(0, dtype=np.int64)
    free(jumps.data)
    return c.pushes, c.expanded, c.labels, c.reopened, found


# ---------------------------------------------------------------- goal bounds

cdef int dijkstra_run(double* g, uint32_t* stamp, uint32_t label, int32_t* pos, Heap* heap,
                      const double* cost, const uint8_t* moves, int width, int source,
                      IntVec* order) noexcept nogil:
    """Plain Dijkstra from one source to exhaustion (any costs and diagonal rule).  Settled
    cells get ``stamp == label``; open ones ``label - 1``.  Appends settled cells to
    ``order``.  Returns 0 or -1 (out of memory)."""
    cdef int offset[8]
    cdef double length[8]
    cdef uint32_t open_stamp = label - 1
    cdef int u, v, d
    cdef uint8_t m
    cdef double gu, cu, ng
    cdef HeapItem it
    step_tables(width, offset, length)
    heap.size = 0
    stamp[source] = open_stamp
    g[source] = 0.0
    if heap_push(heap, pos, 0.0, 0.0, source) != 0:
        return -1
    while heap.size > 0:
        it = heap_pop(heap, pos)
        u = it.node
        stamp[u] = label
        if vec_push(order, u) != 0:
            return -1
        gu = g[u]
        cu = cost[u]
        m = moves[u]
        for d in range(8):
            if not (m >> d) & 1:
                continue
            v = u + offset[d]
            if stamp[v] == label:
                continue
            ng = gu + length[d] * 0.5 * (cu + cost[v])
            if stamp[v] == open_stamp:
                if ng < g[v] * (1.0 - TIE_EPS):
                    g[v] = ng
                    heap_decrease(heap, pos, v, ng, ng)
                continue
            g[v] = ng
            stamp[v] = open_stamp
            if heap_push(heap, pos, ng, ng, v) != 0:
                return -1
    return 0


cdef extern from *:
    int __builtin_ctz(unsigned int) nogil


cdef inline int tight_steps(const double* g, const double* cost, const uint8_t* moves, int v,
                            const int* offset, const double* length, bint uniform) noexcept nogil:
    """Bits d of the neighbours u = v + offset[d] with g[u] + c(u, v) <= g[v] (relative
    tolerance TIGHT_EPS) and g[u] < g[v]: the last steps of optimal paths into v."""
    cdef double lim = g[v] * (1.0 + TIGHT_EPS)
    cdef int d, u, bits = 0
    cdef uint8_t mv = moves[v]
    if uniform:
        for d in range(8):
            # Reads g of blocked neighbours too (any value): the legal-move bit masks it.
            # Steps cost >= 1, so a tight neighbour has a smaller g.
            bits |= ((g[v + offset[d]] + length[d] <= lim) & (mv >> d) & 1) << d
        return bits
    for d in range(8):
        if (mv >> d) & 1:
            u = v + offset[d]
            bits |= ((g[u] + length[d] * 0.5 * (cost[u] + cost[v]) <= lim)
                     & (g[u] < g[v])) << d
    return bits


cdef int first_moves(const double* g, uint32_t* stamp, uint32_t label, const double* cost,
                     const uint8_t* moves, int width, bint uniform, int source, IntVec* order,
                     IntVec* stack) noexcept nogil:
    """First-move masks of every cell in ``order`` (labelled ``label``): bit d of the mask of
    v is set when some optimal path from the source to v starts with step d.  A finished
    cell gets ``stamp = label + 1 + mask`` (one load then tells both).  Returns 0 or -1
    (out of memory)."""
    cdef int offset[8]
    cdef double length[8]
    cdef uint32_t done = label + 1
    cdef uint32_t t
    cdef Py_ssize_t k
    cdef int v, u, d, bits
    cdef Py_ssize_t base
    cdef uint32_t m
    step_tables(width, offset, length)
    stamp[source] = done
    for k in range(order.size):
        v = order.data[k]
        if stamp[v] - done < 256:
            continue
        # Iterative memoised depth-first walk over tight predecessors (they have smaller g,
        # so there are no cycles).
        stack.size = 0
        while True:
            bits = tight_steps(g, cost, moves, v, offset, length, uniform)
            m = 0
            base = stack.size
            while bits:
                d = __builtin_ctz(bits)
                bits &= bits - 1
                u = v + offset[d]       # the step u -> v is OPPOSITE[d]
                t = stamp[u] - done
                if u == source:
                    m |= 1 << OPPOSITE[d]
                elif t < 256:
                    m |= t
                elif vec_push(stack, u) != 0:
                    return -1
            if stack.size > base:
                # Come back to v once the predecessors above it on the stack are finished.
                if vec_push(stack, v) != 0:
                    return -1
                stack.data[stack.size - 1] = stack.data[base]
                stack.data[base] = v
            else:
                stamp[v] = done + m
            v = -1
            while stack.size > 0:
                stack.size -= 1
                u = stack.data[stack.size]
                if stamp[u] - done >= 256:
                    v = u
                    break
            if v < 0:
                break
    return 0


cdef void grow_boxes(const uint32_t* stamp, uint32_t done, int width, int height,
                     uint16_t* box) noexcept nogil:
    """Write the 8 boxes (xmin, xmax, ymin, ymax; unpadded cells) of a source into ``box``
    (8 x 4) from the first-move masks of the cells stamped ``done + mask`` (the source's
    own mask is empty)."""
    cdef int lo_x[8]
    cdef int hi_x[8]
    cdef int lo_y[8]
    cdef int hi_y[8]
    cdef int d, x, y, i, w = width - 2
    cdef unsigned int m, row
    for d in range(8):
        lo_x[d] = 65535
        lo_y[d] = 65535
        hi_x[d] = 0
        hi_y[d] = 0
    for y in range(height):
        i = (y + 1) * width + 1
        row = 0
        for x in range(w):
            m = stamp[i + x] - done     # the mask, or >= 256 when the cell has none
            if m >= 256:
                continue
            row |= m
            while m:
                d = __builtin_ctz(m)
                m &= m - 1
                if x < lo_x[d]:
                    lo_x[d] = x
                if x > hi_x[d]:
                    hi_x[d] = x
        while row:
            d = __builtin_ctz(row)
            row &= row - 1
            if y < lo_y[d]:
                lo_y[d] = y
            hi_y[d] = y
    for d in range(8):
        box[4 * d] = <uint16_t> lo_x[d]
        box[4 * d + 1] = <uint16_t> hi_x[d]
        box[4 * d + 2] = <uint16_t> lo_y[d]
        box[4 * d + 3] = <uint16_t> hi_y[d]


def goal_bounds(const double[::1] cost, const uint8_t[::1] moves, int width,
                const long long[::1] sources, bint canonical, bint uniform,
                uint16_t[:, :, ::1] out):
    """Goal-bound boxes of ``sources`` (padded flat indices of passable cells).

    ``out[k, d]`` (shape ``(len(sources), 8, 4)`` uint16) receives the box ``(xmin, xmax,
    ymin, ymax)`` of the goals some optimal path from ``sources[k]`` reaches by first
    stepping in direction d; an empty box is (65535, 0, 65535, 0).  ``canonical`` floods
    with canonical Dijkstra (uniform no-corner-cutting grids only), otherwise with plain
    Dijkstra over ``cost``; ``uniform`` (every passable cell costs 1) skips the cost
    look-ups in the tight-edge test.  Returns the number of label writes (canonical) or settled
    cells (plain), summed over the sources.
    """
    cdef Py_ssize_t n = moves.shape[0], k, ns = sources.shape[0]
    cdef double* g = NULL
    cdef uint32_t* stamp = NULL
    cdef int32_t* pos = NULL
    cdef Heap heap
    cdef IntVec order, stack
    cdef Canon c
    cdef uint32_t label = 0
    cdef int status = 0, s
    cdef long work = 0
    cdef int64_t src
    if cost.shape[0] != n or out.shape[0] != ns or out.shape[1] != 8 or out.shape[2] != 4:
        raise ValueError("cost, moves and out sizes disagree")
    if ns == 0:
        return 0
    order.data = NULL
    order.size = order.capacity = 0
    stack.data = NULL
    stack.size = stack.capacity = 0
    heap.items = NULL
    g = <double*> malloc(n * sizeof(double))
    stamp = <uint32_t*> malloc(n * sizeof(uint32_t))
    pos = <int32_t*> malloc(n * sizeof(int32_t))
    if g == NULL or stamp == NULL or pos == NULL or heap_init(&heap, 1024):
        free(g)
        free(stamp)
        free(pos)
        heap_free(&heap)
        raise MemoryError("cannot allocate goal-bound scratch")
    with nogil:
        memset(stamp, 0, n * sizeof(uint32_t))
        memset(g, 0, n * sizeof(double))       # blocked cells' g is read, then masked off
        canon_init(&c, g, stamp, 0, &moves[0], width, INFINITY)
        c.order = &order
        for k in range(ns):
            s = <int> sources[k]
            # Stamps per source: label - 1 open (plain Dijkstra), label labelled, label + 1 +
            # mask first moves done.
            if label >= <uint32_t> 0xFFFFF000:
                memset(stamp, 0, n * sizeof(uint32_t))
                label = 0
            label += 512
            order.size = 0
            if canonical:
                c.label = label
                c.labels = 0
                src = s
                status = canonical_run(&c, &src, 1)
                work += c.labels
            else:
                status = dijkstra_run(g, stamp, label, pos, &heap, &cost[0], &moves[0],
                                      width, s, &order)
                work += order.size
            if status == 0:
                status = first_moves(g, stamp, label, &cost[0], &moves[0], width,
                                     uniform or canonical, s, &order, &stack)
            if status != 0:
                break
            grow_boxes(stamp, label + 1, width, n // width - 2, &out[k, 0, 0])
        free(c.heap.items)
    free(g)
    free(stamp)
    free(pos)
    heap_free(&heap)
    free(order.data)
    free(stack.data)
    if status != 0:
        raise MemoryError("goal-bound scratch could not grow")
    return work
