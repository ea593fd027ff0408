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



cdef enum:
    PINCH_CAP = 4      # groups beyond p's that :func:`other_sides` reports


cdef inline bint at(const double[:, ::1] verts, int32_t v, double x, double y) noexcept nogil:
    return verts[v, 0] == x and verts[v, 1] == y


cdef inline int other_sides(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                            const int32_t[::1] sizes, const int32_t[:, ::1] neigh,
                            const int64_t[::1] cell_ptr, const int32_t[::1] cell_polys,
                            double ox, double oy, double cell, int nx, int ny,
                            const uint8_t* allowed, int p, double x, double y,
                            int32_t* out) noexcept nogil:
    """Where (x, y) is a vertex of polygon p and a pinch (the polygons round it fall into
    groups that meet only at the point, as where a hole touches the outline or another
    hole), one polygon of each group but p's, ``allowed`` ones only; returns how many (at
    most ``PINCH_CAP``; 0 at any other point, after a test of p's vertices).  Two polygons
    are in one group when they share an edge that ends at the point."""
    cdef int k, n = sizes[p], count = 0, found = 0, i, a, b, q
    cdef int32_t near[4 * PINCH_CAP]
    cdef uint8_t seen[4 * PINCH_CAP]
    cdef bint grew
    cdef int64_t j, c
    for k in range(n):
        if at(verts, polys[p, k], x, y):
            break
    else:
        return 0
    c = <int64_t> bucket(y - oy, cell, ny) * nx + bucket(x - ox, cell, nx)
    for j in range(cell_ptr[c], cell_ptr[c + 1]):     # the polygons with a vertex there
        q = cell_polys[j]
        if count == 4 * PINCH_CAP or not (allowed == NULL or allowed[q]):
            continue
        for k in range(sizes[q]):
            if at(verts, polys[q, k], x, y):
                near[count] = q
                seen[count] = q == p
                count += 1
                break
    for i in range(-1, count):     # p's group, then each group left from its first polygon
        if i >= 0:
            if seen[i] or found == PINCH_CAP:
                continue
            seen[i] = 1
            out[found] = near[i]
            found += 1
        grew = True
        while grew:     # mark the neighbours of marked polygons across edges at the point
            grew = False
            for a in range(count):
                if not seen[a]:
                    continue
                q = near[a]
                n = sizes[q]
                for k in range(n):
                    if at(verts, polys[q, k], x, y) or at(verts, polys[q, (k + 1) % n], x, y):
                        for b in range(count):
                            if not seen[b] and near[b] == neigh[q, k]:
                                seen[b] = 1
                                grew = True
    return found
