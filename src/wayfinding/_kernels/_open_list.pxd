# The open list of the searches that number their nodes as they generate them (the movement
# and car planners): a ``vector`` kept as a heap by the C++ standard library's ``push_heap``
# and ``pop_heap`` under the order of ``AStarSearch``: the smaller f, then the larger cost so
# far, then the item pushed first (the smaller ``tie``, a count the caller raises with every
# push, so no two items tie).  Items that all carry g = 0 pop by f, then first pushed.
from libc.stdint cimport int32_t, int64_t
from libcpp.algorithm cimport pop_heap, push_heap
from libcpp.vector cimport vector


cdef struct OpenItem:
    double f
    double g
    int64_t tie
    int32_t node


cdef inline bint open_before(const OpenItem& u, const OpenItem& v) noexcept nogil:
    """Whether ``u`` pops before ``v``."""
    return u.f < v.f or (u.f == v.f and (u.g > v.g or (u.g == v.g and u.tie < v.tie)))


cdef inline bint open_after(const OpenItem& u, const OpenItem& v) noexcept nogil:
    """The order of std's heaps, which keep the greatest first: the first to pop."""
    return open_before(v, u)


cdef inline void open_push(vector[OpenItem]& heap, OpenItem item) noexcept nogil:
    heap.push_back(item)
    push_heap(heap.begin(), heap.end(), open_after)


cdef inline OpenItem open_pop(vector[OpenItem]& heap) noexcept nogil:
    """Remove and return the first item; the list must not be empty."""
    cdef OpenItem top = heap.front()
    pop_heap(heap.begin(), heap.end(), open_after)
    heap.pop_back()
    return top
