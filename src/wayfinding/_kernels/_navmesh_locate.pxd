# Point location on a mesh of convex polygons through uniform buckets over their bounding
# boxes (each bucket lists its polygons in increasing order): shared by the mesh query and
# the exact (Polyanya) search.  Orientation tests are exact.
from libc.stdint cimport int32_t, int64_t, uint8_t

from ._buckets cimport bucket
from ._predicates cimport orient2d


cdef inline bint in_polygon(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                            const int32_t[::1] sizes, int p, double x,
                            double y) noexcept nogil:
    """Point in the closed convex polygon p (counter-clockwise)."""
    cdef int k, n = sizes[p]
    cdef int32_t a = polys[p, n - 1], b
    for k in range(n):
        b = polys[p, k]
        if orient2d(verts[a, 0], verts[a, 1], verts[b, 0], verts[b, 1], x, y) < 0:
            return False
        a = b
    return True


cdef inline int locate_in(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                          const int32_t[::1] sizes, const int64_t[::1] cell_ptr,
                          const int32_t[::1] cell_polys, double ox, double oy, double cell,
                          int nx, int ny, const uint8_t* allowed, double x,
                          double y) noexcept nogil:
    """Lowest id of a polygon holding (x, y) (boundary included) among those whose
    ``allowed`` entry is set (every polygon when ``allowed`` is NULL), or -1: the first found
    in the point's bucket."""
    cdef int ix = bucket(x - ox, cell, nx), iy = bucket(y - oy, cell, ny), p
    cdef int64_t c, j
    if ix < 0 or iy < 0 or ix >= nx or iy >= ny:
        return -1
    c = <int64_t> iy * nx + ix
    for j in range(cell_ptr[c], cell_ptr[c + 1]):
        p = cell_polys[j]
        if (allowed == NULL or allowed[p]) and in_polygon(verts, polys, sizes, p, x, y):
            return p
    return -1
