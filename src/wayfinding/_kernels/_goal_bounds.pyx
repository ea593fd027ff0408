# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Goal-bound box construction on grids: one flood per cell, the floods shared out over
OpenMP threads.  Floods are canonical Dijkstra (``_canonical``) on uniform no-corner-cutting
grids and plain Dijkstra otherwise.

Grids use the padded layout of the other grid kernels (row width ``Wp = W + 2``, a blocked
border, ``moves[i]`` the legal-step bits N, E, S, W, NE, SE, SW, NW).

The box of step d from cell v holds the goals t for which some optimal path from v to t
starts with d, that is (moves and costs being symmetric) ``c(v, v + d) + D(v + d, t)`` equal
to ``D(v, t)`` within a relative ``LOOSE_TIE_EPS``.  Two builds give the same boxes:

* ``goal_bounds`` floods from each goal t; every passable cell v then reads its optimal
  steps toward t from its neighbours' costs and widens their boxes by t, in one pass in
  memory order (the eight boxes of each passable cell on one cache line of a thread's own
  accumulator, widened by two directions per vector operation; the accumulators are merged
  into the caller's boxes at the end of the call).  No first-move walk: each (v, t) pair
  costs one test of v's eight steps.
* ``source_boxes`` floods from each source s and finds the first-move mask of every cell
  (the OR of its tight predecessors' masks, the source's tight neighbours getting their own
  direction bit) by an iterative memoised depth-first walk; as each cell's mask is settled
  the cell widens one bounding box per distinct mask (256 of them), merged into the eight
  boxes of s at the end of the flood.  It gives the boxes of a few cells without a whole
  build.
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
from ._portable cimport aligned_alloc, aligned_free, ctz32, prefetch_write
from ._steps cimport step_opposite, step_tables

cnp.import_array()

# Cells per task when the threads' accumulators are merged into the boxes.
cdef enum:
    MERGE_BLOCK = 4096

# Relative tolerance of the tight-edge test.  Looser than TIE_EPS on purpose: a goal box
# that takes in a near-tie move only prunes less, one that misses an optimal move is wrong.
cdef double LOOSE_TIE_EPS = 1e-10

cdef extern from *:
    """
    #include <stddef.h>
    #include <string.h>

    /* Widen the boxes of the directions in ``steps`` of one cell by the goal (x, y).  The
       cell's eight boxes are 32 uint16 kept as (xmin, ~xmax, ymin, ~ymax), so that every
       lane is lowered; with GCC and clang two directions per vector, lane by lane with
       other compilers. */
    #if defined(__GNUC__)
    typedef unsigned short wf_u16x8 __attribute__((vector_size(16)));

    static inline void wf_widen(unsigned short* box, unsigned int steps, unsigned short x,
                                unsigned short y) {
        static const wf_u16x8 pick[4] = {
            {0, 0, 0, 0, 0, 0, 0, 0},
            {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0, 0, 0, 0},
            {0, 0, 0, 0, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF},
            {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF}};
        unsigned short nx = (unsigned short) ~x, ny = (unsigned short) ~y;
        wf_u16x8 goal = {x, nx, y, ny, x, nx, y, ny};
        wf_u16x8 old, v, lower;
        unsigned int two;
        int q;
        for (q = 0; q < 4; q++) {
            two = (steps >> (2 * q)) & 3;
            memcpy(&old, box + 8 * q, 16);
            v = goal | ~pick[two];
            lower = (wf_u16x8) (v < old);
            old ^= (old ^ v) & lower;
            memcpy(box + 8 * q, &old, 16);
        }
    }
    #else
    static inline void wf_widen(unsigned short* box, unsigned int steps, unsigned short x,
                                unsigned short y) {
        unsigned short goal[4];
        int d, j;
        goal[0] = x;
        goal[1] = (unsigned short) ~x;
        goal[2] = y;
        goal[3] = (unsigned short) ~y;
        for (d = 0; d < 8; d++)
            if ((steps >> d) & 1u)
                for (j = 0; j < 4; j++)
                    if (goal[j] < box[4 * d + j])
                        box[4 * d + j] = goal[j];
    }
    #endif

    /* Merge ``count`` accumulator lanes (a multiple of 8, from a box boundary) into boxes in
       the plain (xmin, xmax, ymin, ymax) form: least of the min lanes, greatest of the max
       lanes (complemented in the accumulator). */
    static inline void wf_merge(unsigned short* out, const unsigned short* acc,
                                ptrdiff_t count) {
    #if defined(__GNUC__)
        const wf_u16x8 flip = {0, 0xFFFF, 0, 0xFFFF, 0, 0xFFFF, 0, 0xFFFF};
        wf_u16x8 o, a, lower;
        ptrdiff_t i;
        for (i = 0; i < count; i += 8) {
            memcpy(&o, out + i, 16);
            memcpy(&a, acc + i, 16);
            o ^= flip;
            lower = (wf_u16x8) (a < o);
            o ^= (o ^ a) & lower;
            o ^= flip;
            memcpy(out + i, &o, 16);
        }
    #else
        ptrdiff_t i;
        unsigned short flip, o;
        for (i = 0; i < count; i++) {
            flip = (i & 1) ? 0xFFFF : 0;
            o = (unsigned short) (out[i] ^ flip);
            if (acc[i] < o)
                o = acc[i];
            out[i] = (unsigned short) (o ^ flip);
        }
    #endif
    }

    #if defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)
    #define WF_SSE2 1
    #include <emmintrin.h>
    #endif
    /* The uniform tight-step test of two neighbouring cells v and v + 1 at once: bit d of
       *b0 (*b1) when g at the neighbour of v (v + 1) in direction d plus length[d] is at
       most scale * g of the cell (legal moves not applied). */
    static inline void wf_tight_pair(const double* g, ptrdiff_t v, const int* offset,
                                     const double* length, double scale, unsigned int* b0,
                                     unsigned int* b1) {
        unsigned int r0 = 0, r1 = 0, m;
        int d;
    #if defined(WF_SSE2)
        __m128d lim = _mm_mul_pd(_mm_loadu_pd(g + v), _mm_set1_pd(scale));
        for (d = 0; d < 8; d++) {
            m = (unsigned int) _mm_movemask_pd(_mm_cmple_pd(
                _mm_add_pd(_mm_loadu_pd(g + v + offset[d]), _mm_set1_pd(length[d])), lim));
            r0 |= (m & 1u) << d;
            r1 |= (m >> 1) << d;
        }
    #else
        double l0 = g[v] * scale, l1 = g[v + 1] * scale;
        for (d = 0; d < 8; d++) {
            m = g[v + offset[d]] + length[d] <= l0;
            r0 |= m << d;
            m = g[v + 1 + offset[d]] + length[d] <= l1;
            r1 |= m << d;
        }
    #endif
        *b0 = r0;
        *b1 = r1;
    }
    """
    void tight_pair "wf_tight_pair"(const double* g, Py_ssize_t v, const int* offset,
                                    const double* length, double scale, unsigned int* b0,
                                    unsigned int* b1) noexcept nogil
    void merge "wf_merge"(uint16_t* out, const uint16_t* acc, Py_ssize_t count) noexcept nogil
    void widen "wf_widen"(uint16_t* box, unsigned int steps, uint16_t x,
                          uint16_t y) noexcept nogil


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
    uint16_t* acc           # goal_bounds: the boxes widened so far, 32 uint16 per passable
                            # cell (in row-major order) as (xmin, ~xmax, ymin, ~ymax) per
                            # direction, all 65535 if empty
    uint32_t label
    int64_t work
    int status              # 0 ok, -1 out of memory
    # Per first-move mask m (1-255): least and greatest padded index, least and greatest
    # column of the cells whose mask is m; lo_flat[m] > hi_flat[m] when there are none.
    int lo_flat[256]
    int hi_flat[256]
    int lo_x[256]
    int hi_x[256]


cdef Scratch* scratch_new(Py_ssize_t n, const uint8_t* moves, int width,
                          Py_ssize_t accumulate) noexcept nogil:
    """A thread's scratch for floods over ``n`` padded cells (with a box accumulator for
    ``accumulate`` cells), or NULL when memory is short."""
    cdef Scratch* s = <Scratch*> calloc(1, sizeof(Scratch))
    if s == NULL:
        return NULL
    if accumulate:
        # One cache line per cell.
        s.acc = <uint16_t*> aligned_alloc(64, accumulate * 32 * sizeof(uint16_t))
        if s.acc == NULL:
            free(s)
            return NULL
        memset(s.acc, 0xFF, accumulate * 32 * sizeof(uint16_t))
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
    aligned_free(s.acc)
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
                d = ctz32(bits)
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
            d = ctz32(bits)
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


cdef int flood(Scratch* s, const double* cost, const uint8_t* moves, Py_ssize_t n, int width,
               int source, bint canonical) noexcept nogil:
    """Flood from ``source``: costs in ``s.g``, the cells reached labelled ``s.label`` in
    ``s.stamp`` and listed in ``s.order``; returns 0 or -1 (out of memory)."""
    cdef int status
    cdef int64_t src = source
    # Stamps per source: label - 1 open (plain Dijkstra), label labelled.
    if s.label >= <uint32_t> 0xFFFFFFF0:
        memset(s.stamp, 0, n * sizeof(uint32_t))
        s.label = 0
    s.label += 2
    s.order.size = 0
    if canonical:
        s.canon.label = s.label
        s.canon.labels = 0
        status = canonical_run(&s.canon, &src, 1)
        s.work += s.canon.labels
    else:
        status = dijkstra_run(s.g, s.stamp, s.label, s.pos, &s.heap, cost, moves, width,
                              source, &s.order)
        s.work += s.order.size
    return status


cdef int one_source(Scratch* s, const double* cost, const uint8_t* moves, Py_ssize_t n,
                    int width, int source, bint canonical, bint uniform, const uint16_t* col,
                    uint16_t* box) noexcept nogil:
    """Flood from ``source`` and write its 8 boxes; returns 0 or -1 (out of memory)."""
    cdef int status, m
    cdef Py_ssize_t k
    for m in range(256):
        s.lo_flat[m] = s.lo_x[m] = 0x7FFFFFFF
        s.hi_flat[m] = s.hi_x[m] = -1
    status = flood(s, cost, moves, n, width, source, canonical)
    if status == 0:
        status = first_moves(s, cost, moves, width, uniform or canonical, source, col)
    if status == 0:
        write_boxes(s, width, box)
    for k in range(s.order.size):
        s.mask[s.order.data[k]] = 0
    return status


cdef int one_goal(Scratch* s, const double* cost, const uint8_t* moves, Py_ssize_t n,
                  int width, int goal, bint canonical, bint uniform, const int32_t* free_cells,
                  Py_ssize_t nfree, const uint16_t* col) noexcept nogil:
    """Flood from ``goal`` and widen by it the boxes of the optimal steps toward it of every
    cell reached (``s.acc`` row i holds passable cell ``free_cells[i]``); returns 0 or -1
    (out of memory)."""
    cdef int offset[8]
    cdef double length[8]
    cdef Py_ssize_t i = 0
    cdef int steps, v
    cdef unsigned int b0, b1
    cdef uint16_t x = col[goal], y = <uint16_t> (goal // width - 1)
    cdef uint32_t label
    cdef int status = flood(s, cost, moves, n, width, goal, canonical)
    if status != 0:
        return status
    step_tables(width, offset, length)
    label = s.label
    uniform = uniform or canonical
    # In memory order; a cell reached has every legal neighbour reached, so the costs read
    # are this flood's.  On uniform grids two neighbouring cells are tested at once (the
    # same test as tight_steps').
    while i < nfree:
        prefetch_write(s.acc + 32 * (i + 16))
        v = free_cells[i]
        if uniform and i + 1 < nfree and free_cells[i + 1] == v + 1:
            tight_pair(s.g, v, offset, length, 1.0 + LOOSE_TIE_EPS, &b0, &b1)
            b0 &= moves[v]
            b1 &= moves[v + 1]
            if b0 and s.stamp[v] == label:
                widen(s.acc + 32 * i, b0, x, y)
            if b1 and s.stamp[v + 1] == label:
                widen(s.acc + 32 * (i + 1), b1, x, y)
            i += 2
            continue
        if s.stamp[v] == label:
            steps = tight_steps(s.g, cost, moves, v, offset, length, uniform)
            if steps:
                widen(s.acc + 32 * i, <unsigned int> steps, x, y)
        i += 1
    return 0


cdef object run(const double[::1] cost, const uint8_t[::1] moves, int width,
                const long long[::1] cells, bint canonical, uint16_t* out, Py_ssize_t rows,
                int threads, bint goals):
    """Flood from ``cells`` on up to ``threads`` threads: ``goals`` widens the ``rows`` (all
    padded cells) boxes at ``out`` by every cell; otherwise writes the boxes of each cell
    (one row of 8 x 4 per cell).  Returns the summed work of the floods."""
    cdef Py_ssize_t n = moves.shape[0], ns = cells.shape[0], k, i, j
    cdef int nt, t = 0
    cdef int64_t work = 0
    cdef int failed = 0
    cdef bint uniform = True
    cdef uint16_t* col = NULL
    cdef int32_t* free_cells = NULL
    cdef Py_ssize_t nfree = 0
    cdef int64_t* works = NULL
    cdef int* status = NULL
    cdef Scratch** team = NULL
    cdef Scratch* s = NULL
    cdef const double* cp
    cdef const uint8_t* mp
    cdef const long long* sp
    if cost.shape[0] != n or (goals and rows != n) or (not goals and rows != ns):
        raise ValueError("cost, moves and out sizes disagree")
    if width < 3 or n % width != 0:
        raise ValueError(f"width {width} does not divide the {n} padded cells")
    if threads < 1:
        raise ValueError(f"threads {threads} must be >= 1")
    for k in range(ns):
        if cells[k] < width or cells[k] >= n - width or cost[cells[k]] == INFINITY:
            raise ValueError(f"cell {cells[k]} is not a passable padded index")
    if ns == 0:
        return 0
    for i in range(n):
        if cost[i] != 1.0 and cost[i] != INFINITY:
            uniform = False
            break
    nt = <int> min(<Py_ssize_t> threads, ns)
    cp = &cost[0]
    mp = &moves[0]
    sp = &cells[0]
    col = <uint16_t*> malloc(n * sizeof(uint16_t))
    free_cells = <int32_t*> malloc(n * sizeof(int32_t))
    works = <int64_t*> calloc(nt, sizeof(int64_t))
    status = <int*> calloc(nt, sizeof(int))
    team = <Scratch**> calloc(nt, sizeof(Scratch*))
    if col == NULL or free_cells == NULL or works == NULL or status == NULL or team == NULL:
        free(col)
        free(free_cells)
        free(works)
        free(status)
        free(team)
        raise MemoryError("cannot allocate goal-bound scratch")
    with nogil:
        for i in range(n):
            col[i] = <uint16_t> (i % width - 1)     # the border's columns are never read
            if cp[i] != INFINITY:
                free_cells[nfree] = <int32_t> i
                nfree += 1
        with parallel(num_threads=nt):
            t = threadid()
            s = scratch_new(n, mp, width, nfree if goals else 0)
            team[t] = s
            if s == NULL:
                status[t] = -1
            for k in prange(ns, schedule="dynamic", chunksize=1):
                if s != NULL and status[t] == 0:
                    if goals:
                        status[t] = one_goal(s, cp, mp, n, width, <int> sp[k], canonical,
                                             uniform, free_cells, nfree, col)
                    else:
                        status[t] = one_source(s, cp, mp, n, width, <int> sp[k], canonical,
                                               uniform, col, out + 32 * k)
            if s != NULL:
                works[t] = s.work
        for t in range(nt):
            failed |= status[t]
        if goals and not failed:
            # Merge the threads' accumulators into the boxes, a block of cells per task.
            # Fewer threads than asked for may have run (all the floods on the calling
            # thread without OpenMP): the others have no scratch.
            for j in prange((nfree + MERGE_BLOCK - 1) // MERGE_BLOCK, num_threads=nt,
                            schedule="static"):
                for i in range(MERGE_BLOCK * j, min(MERGE_BLOCK * (j + 1), nfree)):
                    for t in range(nt):
                        if team[t] != NULL:
                            merge(out + 32 * <Py_ssize_t> free_cells[i], team[t].acc + 32 * i,
                                  32)
        for t in range(nt):
            if team[t] != NULL:
                scratch_free(team[t])
    for i in range(nt):
        work += works[i]
    free(col)
    free(free_cells)
    free(works)
    free(status)
    free(team)
    if failed:
        raise MemoryError("goal-bound scratch could not grow")
    return work


def goal_bounds(const double[::1] cost, const uint8_t[::1] moves, int width,
                const long long[::1] goals, bint canonical, uint16_t[:, :, ::1] boxes,
                int threads=1):
    """Widen the goal-bound boxes of every cell by ``goals`` (padded flat indices of passable
    cells), flooding from each goal on up to ``threads`` OpenMP threads (the result does not
    depend on their number).

    ``boxes`` (shape ``(padded cells, 8, 4)`` uint16, updated in place): ``boxes[v, d]`` is
    the box ``(xmin, xmax, ymin, ymax)`` of the goals some optimal path from v reaches by
    first stepping in direction d; an empty box is (65535, 0, 65535, 0).  Called with every
    passable cell as a goal (at once or over several calls) on empty boxes, it builds them.
    ``canonical`` floods with canonical Dijkstra (uniform no-corner-cutting grids only),
    otherwise with plain Dijkstra over ``cost``.  Returns the number of label writes
    (canonical) or settled cells (plain), summed over the goals.
    """
    if boxes.shape[1] != 8 or boxes.shape[2] != 4:
        raise ValueError("cost, moves and out sizes disagree")
    return run(cost, moves, width, goals, canonical, &boxes[0, 0, 0] if boxes.shape[0] else NULL,
               boxes.shape[0], threads, True)


def source_boxes(const double[::1] cost, const uint8_t[::1] moves, int width,
                 const long long[::1] sources, bint canonical, uint16_t[:, :, ::1] out,
                 int threads=1):
    """The goal-bound boxes of ``sources`` alone (padded flat indices of passable cells),
    one flood and first-move walk per source, on up to ``threads`` OpenMP threads.

    ``out[k, d]`` (shape ``(len(sources), 8, 4)`` uint16) receives the box of step d from
    ``sources[k]`` (as ``goal_bounds`` builds it).  ``canonical`` as for ``goal_bounds``.
    Returns the number of label writes (canonical) or settled cells (plain), summed over
    the sources.
    """
    if out.shape[1] != 8 or out.shape[2] != 4:
        raise ValueError("cost, moves and out sizes disagree")
    return run(cost, moves, width, sources, canonical, &out[0, 0, 0] if out.shape[0] else NULL,
               out.shape[0], threads, False)
