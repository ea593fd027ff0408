# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Goal-bound box construction on grids, by canonical Dijkstra (``_canonical``) on uniform
no-corner-cutting grids or plain Dijkstra otherwise.

Grids use the padded layout of the other grid kernels (row width ``Wp = W + 2``, a blocked
border, ``moves[i]`` the legal-step bits N, E, S, W, NE, SE, SW, NW).

Goal bounds: for a source ``s`` the flood's costs give the tight edges (``g[u] + c(u, v)``
equal to ``g[v]`` within a relative ``LOOSE_TIE_EPS``); the first-move mask of a cell is the OR
of its tight predecessors' masks (the source's tight neighbours get their own direction bit),
computed by an iterative memoised depth-first walk, then every cell grows the boxes of the
directions in its mask.
"""

cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from ._canonical cimport Canon, canon_init, canonical_run
from ._dijkstra cimport relax_neighbours
from ._heap cimport Heap, HeapItem, IntVec, heap_free, heap_init, heap_pop, heap_push, vec_push
from ._steps cimport step_opposite, step_tables

cnp.import_array()

# Relative tolerance of the tight-edge test.  Looser than TIE_EPS on purpose: a goal box
# that takes in a near-tie move only prunes less, one that misses an optimal move is wrong.
cdef double LOOSE_TIE_EPS = 1e-10


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


cdef extern from *:
    int __builtin_ctz(unsigned int) nogil


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
                u = v + offset[d]       # the step u -> v is step_opposite(d)
                t = stamp[u] - done
                if u == source:
                    m |= 1 << step_opposite(d)
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
