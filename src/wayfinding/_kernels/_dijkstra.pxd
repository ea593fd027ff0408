# The relaxation step of the plain grid Dijkstra floods (_gridsearch.flood, _goal_bounds):
# a step costs its length times the mean of its two cells' costs.  Cells are open while
# ``stamp`` holds ``open_stamp`` and settled at ``closed_stamp``; anything else is unseen.
from libc.stdint cimport int32_t, uint8_t, uint32_t

from ._constants cimport TIE_EPS
from ._heap cimport Heap, heap_decrease, heap_push


cdef inline int relax_neighbours(Heap* heap, int32_t* pos, double* g, uint32_t* stamp,
                                 int32_t* parent, const double* cost, const uint8_t* moves,
                                 const int* offset, const double* length, int u,
                                 uint32_t open_stamp, uint32_t closed_stamp) noexcept nogil:
    """Open or lower the neighbours of the settled cell u through its legal steps, making u
    their parent where ``parent`` is not NULL.  Returns 0, or -1 if the heap cannot grow."""
    cdef double gu = g[u], cu = cost[u], ng
    cdef uint8_t m = moves[u]
    cdef int d, v
    for d in range(8):
        if not (m >> d) & 1:
            continue
        v = u + offset[d]
        if stamp[v] == closed_stamp:
            continue
        ng = gu + length[d] * 0.5 * (cu + cost[v])
        if stamp[v] == open_stamp:
            if ng < g[v] * (1.0 - TIE_EPS):
                g[v] = ng
                if parent != NULL:
                    parent[v] = u
                heap_decrease(heap, pos, v, ng, ng)
            continue
        g[v] = ng
        if parent != NULL:
            parent[v] = u
        stamp[v] = open_stamp
        if heap_push(heap, pos, ng, ng, v) != 0:
            return -1
    return 0
