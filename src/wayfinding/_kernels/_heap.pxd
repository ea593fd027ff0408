# Indexed binary min-heap of (f, g, node) items with decrease-key, shared by the search
# kernels.  ``pos[node]`` holds the node's heap slot while it is on the heap.
# Order: smaller f first; on equal f, larger g first (deeper nodes); equal (f, g) pop in a
# deterministic order fixed by the sequence of operations.
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc, realloc


cdef struct HeapItem:
    double f
    float g         # only breaks ties
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


cdef inline int item_before(HeapItem a, HeapItem b) noexcept nogil:
    # Bitwise, not short-circuit: compiles without branches (the heap's hot spot).
    return (a.f < b.f) | ((a.f == b.f) & (a.g > b.g))


cdef inline void sift_up(Heap* h, int32_t* pos, Py_ssize_t i, HeapItem item) noexcept nogil:
    cdef Py_ssize_t parent
    while i > 0:
        parent = (i - 1) >> 1
        if not item_before(item, h.items[parent]):
            break
        h.items[i] = h.items[parent]
        pos[h.items[i].node] = <int32_t> i
        i = parent
    h.items[i] = item
    pos[item.node] = <int32_t> i


cdef inline int heap_push(Heap* h, int32_t* pos, double f, double g, int node) noexcept nogil:
    """Push a node that is not on the heap; returns -1 if memory ran out."""
    cdef HeapItem item
    cdef HeapItem* grown
    if h.size == h.capacity:
        grown = <HeapItem*> realloc(h.items, 2 * h.capacity * sizeof(HeapItem))
        if grown == NULL:
            return -1
        h.items = grown
        h.capacity *= 2
    item.f = f
    item.g = <float> g
    item.node = node
    h.size += 1
    sift_up(h, pos, h.size - 1, item)
    return 0


cdef inline void heap_decrease(Heap* h, int32_t* pos, int node, double f,
                               double g) noexcept nogil:
    """Lower the key of a node that is on the heap."""
    cdef HeapItem item
    item.f = f
    item.g = <float> g
    item.node = node
    sift_up(h, pos, pos[node], item)


cdef inline void heap_set(Heap* h, int32_t* pos, int node, double f, double g) noexcept nogil:
    """Give a node that is on the heap a new key, lower or higher."""
    cdef HeapItem item
    cdef Py_ssize_t i = pos[node], child, n = h.size
    item.f = f
    item.g = <float> g
    item.node = node
    if i > 0 and item_before(item, h.items[(i - 1) >> 1]):
        sift_up(h, pos, i, item)
        return
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and item_before(h.items[child + 1], h.items[child]):
            child += 1
        if not item_before(h.items[child], item):
            break
        h.items[i] = h.items[child]
        pos[h.items[i].node] = <int32_t> i
        i = child
    h.items[i] = item
    pos[node] = <int32_t> i


cdef inline HeapItem heap_pop(Heap* h, int32_t* pos) noexcept nogil:
    """Remove and return the first item; the heap must not be empty.

    Bottom-up: the hole left by the top walks down along the smaller children to a leaf
    (one comparison per level), then the last item sifts up from there; the last item is
    large, so that sift is short.
    """
    cdef HeapItem top = h.items[0]
    cdef Py_ssize_t i = 0, child, n
    h.size -= 1
    n = h.size
    if n > 0:
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n:
                child += item_before(h.items[child + 1], h.items[child])
            h.items[i] = h.items[child]
            pos[h.items[i].node] = <int32_t> i
            i = child
        sift_up(h, pos, i, h.items[n])
    pos[top.node] = -1
    return top


# Position-free variant: a node may sit on the heap several times; the caller skips
# stale items when they are popped (no pos[] array to keep up to date).
cdef inline int lazy_push(Heap* h, double f, double g, int node) noexcept nogil:
    """Push onto a heap without position tracking (stale items are skipped when popped)."""
    cdef HeapItem item
    cdef HeapItem* grown
    cdef Py_ssize_t i, parent
    if h.size == h.capacity:
        grown = <HeapItem*> realloc(h.items, 2 * h.capacity * sizeof(HeapItem))
        if grown == NULL:
            return -1
        h.items = grown
        h.capacity *= 2
    item.f = f
    item.g = <float> g
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


cdef inline int lazy_pop(Heap* h) noexcept nogil:
    """Remove the first item (the heap must not be empty) and return its node."""
    cdef int node = h.items[0].node
    cdef Py_ssize_t i = 0, child, parent, n
    cdef HeapItem last
    h.size -= 1
    n = h.size
    if n > 0:
        last = h.items[n]
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n:
                child += item_before(h.items[child + 1], h.items[child])
            h.items[i] = h.items[child]
            i = child
        while i > 0:
            parent = (i - 1) >> 1
            if not item_before(last, h.items[parent]):
                break
            h.items[i] = h.items[parent]
            i = parent
        h.items[i] = last
    return node


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
