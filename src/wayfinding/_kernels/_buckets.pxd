# Uniform buckets over the plane or space: which bucket an offset from the grid's corner
# falls in, the points of each bucket, and the k nearest points found in them.
from libc.math cimport floor
from libc.stdint cimport int32_t


cdef inline int bucket(double offset, double size, int count) noexcept nogil:
    """The bucket of ``offset`` (from the grid's corner, along one axis) in buckets of
    ``size``: -1 before the first (or NaN), ``count`` past the last.  Worked out in floating
    point, so points far off the grid never overflow the integer."""
    cdef double k = floor(offset / size)
    if not k >= 0.0:
        return -1
    if k >= count:
        return count
    return <int> k


cdef inline void sort_into_buckets(const int32_t* cell_of, Py_ssize_t n, Py_ssize_t cells,
                                   int32_t* start, int32_t* members) noexcept nogil:
    """Counting sort of points 0..n-1 by bucket (``cell_of[i]`` < ``cells``): bucket c holds
    ``members[start[c]:start[c + 1]]``, in index order (``start`` has ``cells + 1`` slots)."""
    cdef Py_ssize_t c, i
    for c in range(cells + 1):
        start[c] = 0
    for i in range(n):
        start[cell_of[i] + 1] += 1
    for c in range(cells):
        start[c + 1] += start[c]
    for i in range(n):
        members[start[cell_of[i]]] = <int32_t> i
        start[cell_of[i]] += 1
    for c in range(cells, 0, -1):
        start[c] = start[c - 1]
    start[0] = 0


cdef inline int keep_nearest(int32_t* idx, double* d2s, int held, int k, int32_t j,
                             double d2) noexcept nogil:
    """Insert (j, d2) into the sorted list of ``held`` entries (at most k kept; ties to
    the lower index); return the new count."""
    cdef int at = held if held < k else k - 1
    if held == k and not (d2 < d2s[k - 1] or (d2 == d2s[k - 1] and j < idx[k - 1])):
        return held
    while at > 0 and (d2 < d2s[at - 1] or (d2 == d2s[at - 1] and j < idx[at - 1])):
        idx[at] = idx[at - 1]
        d2s[at] = d2s[at - 1]
        at -= 1
    idx[at] = j
    d2s[at] = d2
    return held + 1 if held < k else k
