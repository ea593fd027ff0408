# Binary min-heap of (f, g, node) items with lazy deletion, shared by the search kernels.
# Order: smaller f first; on equal f, larger g first (deeper nodes, fewer re-expansions);
# equal (f, g) pop in a deterministic order fixed by the push sequence.
from libc.stdlib cimport free, malloc, realloc


cdef struct HeapItem:
    double f
    float g         # only breaks ties; staleness is decided by the caller's node arrays
    int node


cdef struct Heap:
    HeapItem* items
    Py_ssize_t size
    Py_ssize_t capacity


cdef inline int heap_init(Heap* h, Py_ssize_t capacity) noexcept nogil:
    if capacity < 16:
        capacity = 16
    h.items = <HeapItem*> malloc(capacity * sizeof(HeapItem))
    h.size = 0
    h.capacity = capacity
    return 0 if h.items != NULL else -1


cdef inline void heap_free(Heap* h) noexcept nogil:
    free(h.items)
    h.items = NULL
    h.size = 0
    h.capacity = 0


cdef inline bint item_before(HeapItem a, HeapItem b) noexcept nogil:
    if a.f != b.f:
        return a.f < b.f
    return a.g > b.g


cdef inline int heap_push(Heap* h, double f, double g, int node) noexcept nogil:
    """Push an item; returns -1 if memory ran out."""
    cdef Py_ssize_t i, parent
    cdef HeapItem item
    cdef HeapItem* grown
    if h.size == h.capacity:
        grown = <HeapItem*> realloc(h.items, 2 * h.capacity * sizeof(HeapItem))
        if grown == NULL:
            return -1
        h.items = grown
        h.capacity *= 2
    item.f = f
    item.g = g
    item.node = node
    i = h.size
    h.size += 1
    while i > 0:
        parent = (i - 1) >> 1
        if not item_before(item, h.items[parent]):
            break
        h.items[i] = h.items[parent]
        i = parent
    h.items[i] = item
    return 0


cdef inline HeapItem heap_pop(Heap* h) noexcept nogil:
    """Remove and return the first item; the heap must not be empty."""
    cdef HeapItem top = h.items[0]
    cdef HeapItem last
    cdef Py_ssize_t i = 0, child, n
    h.size -= 1
    n = h.size
    if n > 0:
        last = h.items[n]
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and item_before(h.items[child + 1], h.items[child]):
                child += 1
            if not item_before(h.items[child], last):
                break
            h.items[i] = h.items[child]
            i = child
        h.items[i] = last
    return top


cdef struct IntVec:
    int* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef inline int vec_push(IntVec* v, int value) noexcept nogil:
    """Append a value, growing the buffer; returns -1 if memory ran out."""
    cdef int* grown
    cdef Py_ssize_t cap
    if v.size == v.capacity:
        cap = 64 if v.capacity < 64 else 2 * v.capacity
        grown = <int*> realloc(v.data, cap * sizeof(int))
        if grown == NULL:
            return -1
        v.data = grown
        v.capacity = cap
    v.data[v.size] = value
    v.size += 1
    return 0
