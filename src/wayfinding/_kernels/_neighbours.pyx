# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Nearest neighbours among moving points (agents) through a uniform grid of buckets rebuilt
for every query batch.

For each point i: the up to ``k`` other points j with |p_j - p_i| < range_i (strictly), the
nearest first; ties go to the lower index.  That is the k-nearest rule of RVO2's agent
neighbour search (there the range shrinks to the farthest kept neighbour once k are held,
which keeps the same set).
"""

from libc.math cimport floor, sqrt
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc

from ._buckets cimport bucket, keep_nearest, sort_into_buckets

import numpy as np


def nearest(const double[:, ::1] points, const double[::1] ranges, int k,
            int32_t[:, ::1] out, double[:, ::1] dist2):
    """Fill ``out[i, :count]`` with the neighbours of point i (nearest first, -1 after) and
    ``dist2`` with their squared distances; return the counts (``int32``, one per point).
    ``ranges``: per point, > 0.  ``out`` and ``dist2``: ``(n, k)``."""
    cdef Py_ssize_t n = points.shape[0], i, j, c, cells, at
    cdef double lo_x, lo_y, hi_x, hi_y, size = 0.0, r, r2, d2, dx, dy, x, y
    cdef int gx, gy, cx, cy, cx0, cx1, cy0, cy1, a, b, held
    cdef int32_t* start
    cdef int32_t* members
    cdef int32_t* cell_of
    counts = np.zeros(n, dtype=np.int32)
    cdef int32_t[::1] cnt = counts
    if n == 0 or k <= 0:
        return counts
    lo_x = hi_x = points[0, 0]
    lo_y = hi_y = points[0, 1]
    for i in range(n):
        lo_x = points[i, 0] if points[i, 0] < lo_x else lo_x
        hi_x = points[i, 0] if points[i, 0] > hi_x else hi_x
        lo_y = points[i, 1] if points[i, 1] < lo_y else lo_y
        hi_y = points[i, 1] if points[i, 1] > hi_y else hi_y
        size = ranges[i] if ranges[i] > size else size
    # Buckets as wide as the longest range, fewer (wider) if there would be over 4n + 64
    # (counted in floating point: points far apart never overflow the count).
    while (floor((hi_x - lo_x) / size) + 1) * (floor((hi_y - lo_y) / size) + 1) \
            > 4.0 * n + 64:
        size *= 2.0
    gx = <int> floor((hi_x - lo_x) / size) + 1
    gy = <int> floor((hi_y - lo_y) / size) + 1
    cells = <Py_ssize_t> gx * gy
    start = <int32_t*> malloc((cells + 1) * sizeof(int32_t))
    members = <int32_t*> malloc(n * sizeof(int32_t))
    cell_of = <int32_t*> malloc(n * sizeof(int32_t))
    if start == NULL or members == NULL or cell_of == NULL:
        free(start)
        free(members)
        free(cell_of)
        raise MemoryError("cannot allocate the neighbour buckets")
    with nogil:
        for i in range(n):
            cx = bucket(points[i, 0] - lo_x, size, gx)
            cy = bucket(points[i, 1] - lo_y, size, gy)
            cx = gx - 1 if cx > gx - 1 else (0 if cx < 0 else cx)
            cy = gy - 1 if cy > gy - 1 else (0 if cy < 0 else cy)
            cell_of[i] = cy * gx + cx
        sort_into_buckets(cell_of, n, cells, start, members)
        for i in range(n):
            x = points[i, 0]
            y = points[i, 1]
            r = ranges[i]
            r2 = r * r
            held = 0
            cx0 = bucket(x - r - lo_x, size, gx)
            cx1 = bucket(x + r - lo_x, size, gx)
            cy0 = bucket(y - r - lo_y, size, gy)
            cy1 = bucket(y + r - lo_y, size, gy)
            cx0 = 0 if cx0 < 0 else cx0
            cy0 = 0 if cy0 < 0 else cy0
            cx1 = gx - 1 if cx1 > gx - 1 else cx1
            cy1 = gy - 1 if cy1 > gy - 1 else cy1
            for b in range(cy0, cy1 + 1):
                for a in range(cx0, cx1 + 1):
                    c = <Py_ssize_t> b * gx + a
                    for at in range(start[c], start[c + 1]):
                        j = members[at]
                        if j == i:
                            continue
                        dx = points[j, 0] - x
                        dy = points[j, 1] - y
                        d2 = dx * dx + dy * dy
                        if d2 < r2:
                            held = keep_nearest(&out[i, 0], &dist2[i, 0], held, k,
                                                <int32_t> j, d2)
            cnt[i] = held
            for a in range(held, k):
                out[i, a] = -1
    free(start)
    free(members)
    free(cell_of)
    return counts


