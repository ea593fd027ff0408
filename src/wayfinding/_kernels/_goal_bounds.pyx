# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Goal-bound box construction on grids: one flood per source, the sources shared out over
OpenMP threads.  Floods are canonical Dijkstra (``_canonical``) on uniform no-corner-cutting
grids and plain Dijkstra otherwise.

Grids use the padded layout of the other grid kernels (row width ``Wp = W + 2``, a blocked
border, ``moves[i]`` the legal-step bits N, E, S, W, NE, SE, SW, NW).

Goal bounds: for a source ``s`` the flood's costs give the tight edges (``g[u] + c(u, v)``
equal to ``g[v]`` within a relative ``LOOSE_TIE_EPS``); the first-move mask of a cell is the OR
of its tight predecessors' masks (the source's tight neighbours get their own direction bit),
computed by an iterative memoised depth-first walk.  As each cell's mask is settled, the cell
widens one bounding box per distinct mask (256 of them, flat in the thread's scratch); the
boxes of the eight first moves are merged from those at the end of the flood.
"""

cimport numpy as cnp
from cython.parallel cimport parallel, prange, threadid
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from ._canonical cimport Canon, canon_init, canonical_run
from ._dijkstra cimport relax_neighbours
from ._heap cimport Heap, HeapItem, IntVec, heap_free, heap_init, heap_pop, heap_push, vec_push
from ._steps cimport step_opposite, step_tables

cnp.import_array()

# Relative tolerance of the tight-edge test.  Looser than TIE_EPS on purpose: a goal box
# that takes in a near-tie move only prunes less, one that misses an optimal move is wrong.
cdef double LOOSE_TIE_EPS = 1e-10

cdef extern from *:
    int __builtin_ctz(unsigned int) nogil


cdef struct Scratch:
    # One thread's flood state, reused from source to source.
    double* g
    uint32_t* stamp
    uint8_t* mask           # first-move mask of each finished cell, 0 for the others
                            # (cleared after each flood along ``order``)
    int32_t* pos            # heap slots (plain Dijkstra)
    Heap heap               # open list (plain Dijkstra)
    Canon canon             # canonical flood (owns its own open list)
    IntVec order            # cells labelled by the current flood
    IntVec stack            # the depth-first walk of first_moves
    uint32_t label
    long work
    int status              # 0 ok, -1 out of memory
    # Per first-move mask m (1-255): least and greatest padded index, least and greatest
    # column of the cells whose mask is m; lo_flat[m] > hi_flat[m] when there are none.
    int lo_flat[256]
    int hi_flat[256]
    int lo_x[256]
    int hi_x[256]


cdef Scratch* scratch_new(Py_ssize_t n, const uint8_t* moves, int width) noexcept nogil:
    """A thread's scratch for floods over ``n`` padded cells, or NULL when memory is short."""
    cdef Scratch* s = <Scratch*> calloc(1, sizeof(Scratch))
    if s == NULL:
        return NULL
    s.g = <double*> calloc(n, sizeof(double))     # blocked cells' g is read, then masked off
    s.stamp = <uint32_t*> calloc(n, sizeof(uint32_t))
    s.pos = <int32_t*> malloc(n * sizeof(int32_t))
    s.mask = <uint8_t*> calloc(n, 1)
    canon_init(&s.canon, s.g, s.stamp, 0, moves, width, INFINITY)
    s.canon.order = &s.order
    if s.g == NULL or s.stamp == NULL or s.pos == NULL or s.mask == NULL \
            or heap_init(&s.heap, 1024) != 0:
        scratch_free(s)
        return NULL
    return s


cdef void scratch_free(Scratch* s) noexcept nogil:
    free(s.g)
    free(s.stamp)
    free(s.pos)
    free(s.mask)
    heap_free(&s.heap)
    free(s.canon.heap.items)
    free(s.order.data)
    free(s.stack.data)
    free(s)


cdef int dijkstra_run(double* g, uint32_t* stamp, uint32_t label, int32_t* pos, Heap* heap,
                      const double* cost, const uint8_t* moves, int width, int source,
                      IntVec* order) noexcept nogil:
    """Plain Dijkstra from one source to exhaustion (any costs and diagonal rule).  Settled
    cells get ``stamp == label``; open ones ``label - 1``.  Appends settled cells to
    ``order``.  Returns 0 or -1 (out of memory)."""
    cdef int offset[8]
    cdef double length[8]
    cdef uint32_t open_stamp = label - 1
    cdef int u
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
        if relax_neighbours(heap, pos, g, stamp, NULL, cost, moves, offset, length, u,
                            open_stamp, label) != 0:
            return -1
    return 0


cdef inline int tight_steps(const double* g, const double* cost, const uint8_t* moves, int v,
                            const int* offset, const double* length, bint uniform) noexcept nogil:
    """Bits d of the neighbours u = v + offset[d] with g[u] + c(u, v) <= g[v] (relative
    tolerance LOOSE_TIE_EPS) and g[u] < g[v]: the last steps of optimal paths into v."""
    cdef double lim = g[v] * (1.0 + LOOSE_TIE_EPS)
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


cdef inline void settle(Scratch* s, int v, uint32_t m, const uint16_t* col) noexcept nogil:
    """Widen the box of the cells whose first-move mask is ``m`` by cell v."""
    cdef int x = col[v]
    if v < s.lo_flat[m]:
        s.lo_flat[m] = v
    if v > s.hi_flat[m]:
        s.hi_flat[m] = v
    if x < s.lo_x[m]:
        s.lo_x[m] = x
    if x > s.hi_x[m]:
        s.hi_x[m] = x


cdef int first_moves(Scratch* s, const double* cost, const uint8_t* moves, int width,
                     bint uniform, int source, const uint16_t* col) noexcept nogil:
    """First-move masks of every cell in ``s.order`` (labelled ``s.label``): bit d of
    ``s.mask[v]`` is set when some optimal path from the source to v starts with step d
    (``s.mask`` is 0 on entry and stays 0 at the source).  A finished cell widens the box of
    its mask.  Returns 0 or -1 (out of memory)."""
    cdef int offset[8]
    cdef double length[8]
    cdef const double* g = s.g
    cdef uint8_t* mask = s.mask
    cdef IntVec* stack = &s.stack
    cdef Py_ssize_t k
    cdef int v, u, d, bits
    cdef Py_ssize_t base
    cdef uint32_t m, t
    step_tables(width, offset, length)
    for k in range(s.order.size):
        v = s.order.data[k]
        if mask[v] or v == source:
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
                u = v + offset[d]       # the step u -> v is step_opposite(d)
                t = mask[u]
                if u == source:
                    m |= 1 << step_opposite(d)
                elif t:
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
                mask[v] = <uint8_t> m
                settle(s, v, m, col)
            v = -1
            while stack.size > 0:
                stack.size -= 1
                u = stack.data[stack.size]
                if not mask[u]:
                    v = u
                    break
            if v < 0:
                break
    return 0


cdef void write_boxes(Scratch* s, int width, uint16_t* box) noexcept nogil:
    """Merge the per-mask boxes into the 8 boxes (xmin, xmax, ymin, ymax; unpadded cells)
    of the first moves, written to ``box`` (8 x 4); an empty box is (65535, 0, 65535, 0)."""
    cdef int lo_f[8]
    cdef int hi_f[8]
    cdef int lo_x[8]
    cdef int hi_x[8]
    cdef int d, m
    cdef unsigned int bits
    for d in range(8):
        lo_f[d] = lo_x[d] = 0x7FFFFFFF
        hi_f[d] = hi_x[d] = -1
    for m in range(1, 256):
        if s.lo_flat[m] > s.hi_flat[m]:
            continue
        bits = <unsigned int> m
        while bits:
            d = __builtin_ctz(bits)
            bits &= bits - 1
            lo_f[d] = min(lo_f[d], s.lo_flat[m])
            hi_f[d] = max(hi_f[d], s.hi_flat[m])
            lo_x[d] = min(lo_x[d], s.lo_x[m])
            hi_x[d] = max(hi_x[d], s.hi_x[m])
    for d in range(8):
        if hi_f[d] < 0:
            box[4 * d] = 65535
            box[4 * d + 1] = 0
            box[4 * d + 2] = 65535
            box[4 * d + 3] = 0
        else:
            # Row-major padded indices: the least and greatest index lie on the first and last
            # rows.
            box[4 * d] = <uint16_t> lo_x[d]
            box[4 * d + 1] = <uint16_t> hi_x[d]
            box[4 * d + 2] = <uint16_t> (lo_f[d] // width - 1)
            box[4 * d + 3] = <uint16_t> (hi_f[d] // width - 1)


cdef int one_source(Scratch* s, const double* cost, const uint8_t* moves, Py_ssize_t n,
                    int width, int source, bint canonical, bint uniform, const uint16_t* col,
                    uint16_t* box) noexcept nogil:
    """Flood from ``source`` and write its 8 boxes; returns 0 or -1 (out of memory)."""
    cdef int status, m
    cdef Py_ssize_t k
    cdef int64_t src = source
    # Stamps per source: label - 1 open (plain Dijkstra), label labelled.
    if s.label >= <uint32_t> 0xFFFFFFF0:
        memset(s.stamp, 0, n * sizeof(uint32_t))
        s.label = 0
    s.label += 2
    s.order.size = 0
    for m in range(256):
        s.lo_flat[m] = s.lo_x[m] = 0x7FFFFFFF
        s.hi_flat[m] = s.hi_x[m] = -1
    if canonical:
        s.canon.label = s.label
        s.canon.labels = 0
        status = canonical_run(&s.canon, &src, 1)
        s.work += s.canon.labels
    else:
        status = dijkstra_run(s.g, s.stamp, s.label, s.pos, &s.heap, cost, moves, width,
                              source, &s.order)
        s.work += s.order.size
    if status == 0:
        status = first_moves(s, cost, moves, width, uniform or canonical, source, col)
    if status == 0:
        write_boxes(s, width, box)
    for k in range(s.order.size):
        s.mask[s.order.data[k]] = 0
    return status


def goal_bounds(const double[::1] cost, const uint8_t[::1] moves, int width,
                const long long[::1] sources, bint canonical, bint uniform,
                uint16_t[:, :, ::1] out, int threads=1):
    """Goal-bound boxes of ``sources`` (padded flat indices of passable cells), flooded on
    up to ``threads`` OpenMP threads (the result does not depend on their number).

    ``out[k, d]`` (shape ``(len(sources), 8, 4)`` uint16) receives the box ``(xmin, xmax,
    ymin, ymax)`` of the goals some optimal path from ``sources[k]`` reaches by first
    stepping in direction d; an empty box is (65535, 0, 65535, 0).  ``canonical`` floods
    with canonical Dijkstra (uniform no-corner-cutting grids only), otherwise with plain
    Dijkstra over ``cost``; ``uniform`` (every passable cell costs 1) skips the cost
    look-ups in the tight-edge test.  Returns the number of label writes (canonical) or settled
    cells (plain), summed over the sources.
    """
    cdef Py_ssize_t n = moves.shape[0], ns = sources.shape[0], k, i
    cdef int nt, t = 0
    cdef long work = 0
    cdef int failed = 0
    cdef uint16_t* col = NULL
    cdef long* works = NULL
    cdef int* status = NULL
    cdef Scratch* s = NULL
    cdef const double* cp
    cdef const uint8_t* mp
    cdef const long long* sp
    cdef uint16_t* op
    if cost.shape[0] != n or out.shape[0] != ns or out.shape[1] != 8 or out.shape[2] != 4:
        raise ValueError("cost, moves and out sizes disagree")
    if width < 3 or n % width != 0:
        raise ValueError(f"width {width} does not divide the {n} padded cells")
    if threads < 1:
        raise ValueError(f"threads {threads} must be >= 1")
    if ns == 0:
        return 0
    nt = <int> min(<Py_ssize_t> threads, ns)
    cp = &cost[0]
    mp = &moves[0]
    sp = &sources[0]
    op = &out[0, 0, 0]
    col = <uint16_t*> malloc(n * sizeof(uint16_t))
    works = <long*> calloc(nt, sizeof(long))
    status = <int*> calloc(nt, sizeof(int))
    if col == NULL or works == NULL or status == NULL:
        free(col)
        free(works)
        free(status)
        raise MemoryError("cannot allocate goal-bound scratch")
    with nogil:
        for i in range(n):
            col[i] = <uint16_t> (i % width - 1)     # the border's columns are never read
        with parallel(num_threads=nt):
            t = threadid()
            s = scratch_new(n, mp, width)
            if s == NULL:
                status[t] = -1
            for k in prange(ns, schedule="dynamic", chunksize=1):
                if s != NULL and status[t] == 0:
                    status[t] = one_source(s, cp, mp, n, width, <int> sp[k], canonical,
                                           uniform, col, op + 32 * k)
            if s != NULL:
                works[t] = s.work
                scratch_free(s)
    for i in range(nt):
        work += works[i]
        failed |= status[i]
    free(col)
    free(works)
    free(status)
    if failed:
        raise MemoryError("goal-bound scratch could not grow")
    return work
