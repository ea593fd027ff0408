# Uniform buckets over the plane: which bucket an offset from the grid's corner falls in.
from libc.math cimport floor


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
