# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The detail mesh, the last stage of a voxel navmesh build: each convex polygon of the
polygon mesh (whose vertices sit on contour corners, with heights snapped to the voxels)
is cut into triangles that follow the ground under it, so that a point on the navmesh
knows its height to within the sample error.

Per polygon: a height patch is read from the compact heightfield over the polygon's cell
box (the polygon's own region spans, flooded outwards to the rest of the box); its edges
are sampled every ``sample_dist`` and simplified to the points that leave the ground by
more than ``max_error`` (always in the same direction along an edge, so that the two
polygons sharing it get the same points); the outline is fanned into triangles; then grid
samples inside the polygon are added one at a time, the one farthest from the current
triangles first, each followed by a new Delaunay triangulation, until every sample is
within ``max_error``.  The steps, their single-precision arithmetic, limits and orders
follow the reference build (Recast) so that the same polygons give the same triangles.

Layout of the heightfield as in ``_compact_heightfield`` (columns ``x + z * width``, their
spans ``first[c]`` to ``first[c + 1] - 1``, links in ``con``); polygon vertices are voxels
of the tile without its ``border``, polygons rows of ``nvp`` vertex indices (padded with
0xffff) then ``nvp`` neighbours.
"""

import numpy as np

cimport numpy as cnp
from libc.float cimport FLT_MAX
from libc.math cimport ceilf, fabsf, floorf, sqrtf
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t
from libc.string cimport memset
from libcpp.vector cimport vector

from ._voxel_grid cimport NOT_CONNECTED, Chf, chf_view, dir_dx, dir_dz, link, step

cnp.import_array()

cdef uint16_t NULL_IDX = 0xffff
cdef uint16_t UNSET = 0xffff
# A polygon merged from several regions has region 0: its heights are not taken from
# one region's spans but flooded from a span near its centre.
cdef uint16_t MIXED_REGIONS = 0
# Limits of the reference build, kept because they shape the result: at most 127
# vertices per polygon's detail, 32 samples per edge, 255 triangles (the rest dropped).
cdef enum:
    MAX_VERTS = 127
    MAX_TRIS = 255
    MAX_EDGE_SAMPLES = 32
# Edge faces in the Delaunay triangulation: not yet known, and outside the outline.
cdef enum:
    FACE_UNDEF = -1
    FACE_HULL = -2
# Flag of a triangle side on the polygon's outline (two bits per side).
cdef enum:
    EDGE_ON_OUTLINE = 1

cdef struct Patch:
    # heights (cell heights) of the cells xmin..xmin+width-1, zmin..zmin+depth-1 (without
    # the tile border), UNSET where none was found
    uint16_t* data
    int xmin
    int zmin
    int width
    int depth


cdef inline int nxt(int i, int n) noexcept nogil:
    return i + 1 if i + 1 < n else 0


cdef inline int prv(int i, int n) noexcept nogil:
    return i - 1 if i - 1 >= 0 else n - 1


# --- plane geometry on x, z (y is up), single precision ---

cdef inline float cross_xz(const float* p1, const float* p2, const float* p3) noexcept nogil:
    """Twice the signed area of p1 p2 p3 (positive when p3 is left of p1 -> p2)."""
    cdef float u1 = p2[0] - p1[0], v1 = p2[2] - p1[2]
    cdef float u2 = p3[0] - p1[0], v2 = p3[2] - p1[2]
    return u1 * v2 - v1 * u2


cdef inline float dist_xz(const float* p, const float* q) noexcept nogil:
    cdef float dx = q[0] - p[0], dz = q[2] - p[2]
    return sqrtf(dx * dx + dz * dz)


cdef inline float seg_dist2_xz(const float* pt, const float* p, const float* q) noexcept nogil:
    """Squared distance on x, z from pt to the segment p q."""
    cdef float pqx = q[0] - p[0], pqz = q[2] - p[2]
    cdef float dx = pt[0] - p[0], dz = pt[2] - p[2]
    cdef float d = pqx * pqx + pqz * pqz
    cdef float t = pqx * dx + pqz * dz
    if d > 0:
        t /= d
    if t < 0:
        t = 0
    elif t > 1:
        t = 1
    dx = p[0] + t * pqx - pt[0]
    dz = p[2] + t * pqz - pt[2]
    return dx * dx + dz * dz


cdef inline float seg_dist2(const float* pt, const float* p, const float* q) noexcept nogil:
    """Squared distance in 3D from pt to the segment p q."""
    cdef float pqx = q[0] - p[0], pqy = q[1] - p[1], pqz = q[2] - p[2]
    cdef float dx = pt[0] - p[0], dy = pt[1] - p[1], dz = pt[2] - p[2]
    cdef float d = pqx * pqx + pqy * pqy + pqz * pqz
    cdef float t = pqx * dx + pqy * dy + pqz * dz
    if d > 0:
        t /= d
    if t < 0:
        t = 0
    elif t > 1:
        t = 1
    dx = p[0] + t * pqx - pt[0]
    dy = p[1] + t * pqy - pt[1]
    dz = p[2] + t * pqz - pt[2]
    return dx * dx + dy * dy + dz * dz


cdef float poly_signed_dist(const float* verts, int n, const float* p) noexcept nogil:
    """Distance on x, z from p to the outline of the polygon, negative inside."""
    cdef float dmin = FLT_MAX, d
    cdef int i, j = n - 1
    cdef bint inside = False
    cdef const float* vi
    cdef const float* vj
    for i in range(n):
        vi = &verts[i * 3]
        vj = &verts[j * 3]
        if ((vi[2] > p[2]) != (vj[2] > p[2])) and \
                p[0] < (vj[0] - vi[0]) * (p[2] - vi[2]) / (vj[2] - vi[2]) + vi[0]:
            inside = not inside
        d = seg_dist2_xz(p, vj, vi)
        if d < dmin:
            dmin = d
        j = i
    return -dmin if inside else dmin


cdef float height_error(const float* p, const float* a, const float* b,
                        const float* c) noexcept nogil:
    """|y - height of triangle a b c at p's x, z| when p lies on it (within a small
    margin), else FLT_MAX."""
    cdef float v0x = c[0] - a[0], v0y = c[1] - a[1], v0z = c[2] - a[2]
    cdef float v1x = b[0] - a[0], v1y = b[1] - a[1], v1z = b[2] - a[2]
    cdef float v2x = p[0] - a[0], v2z = p[2] - a[2]
    cdef float d00 = v0x * v0x + v0z * v0z
    cdef float d01 = v0x * v1x + v0z * v1z
    cdef float d02 = v0x * v2x + v0z * v2z
    cdef float d11 = v1x * v1x + v1z * v1z
    cdef float d12 = v1x * v2x + v1z * v2z
    cdef float inv = <float> 1.0 / (d00 * d11 - d01 * d01)
    cdef float u = (d11 * d02 - d01 * d12) * inv
    cdef float v = (d00 * d12 - d01 * d02) * inv
    cdef float eps = <float> 1e-4
    if u >= -eps and v >= -eps and (u + v) <= <float> 1.0 + eps:
        return fabsf(a[1] + v0y * u + v1y * v - p[1])
    return FLT_MAX


cdef float mesh_error(const float* p, const float* verts, const int* tris,
                      int ntris) noexcept nogil:
    """The height error of p over the triangle under it, -1 where none is."""
    cdef float dmin = FLT_MAX, d
    cdef int i
    for i in range(ntris):
        d = height_error(p, &verts[tris[i * 4] * 3], &verts[tris[i * 4 + 1] * 3],
                         &verts[tris[i * 4 + 2] * 3])
        if d < dmin:
            dmin = d
    if dmin == FLT_MAX:
        return -1
    return dmin


cdef bint circumcircle(const float* p1, const float* p2, const float* p3, float* c,
                       float* r) noexcept nogil:
    """The circle through p1 p2 p3 on x, z (worked out relative to p1); False and a zero
    radius when they are collinear."""
    cdef float ax = p2[0] - p1[0], az = p2[2] - p1[2]
    cdef float bx = p3[0] - p1[0], bz = p3[2] - p1[2]
    cdef float cp = ax * bz - az * bx
    cdef float a2, b2
    if fabsf(cp) > <float> 1e-6:
        a2 = ax * ax + az * az
        b2 = bx * bx + bz * bz
        c[0] = (a2 * bz + b2 * (-az)) / (2 * cp)
        c[1] = 0
        c[2] = (a2 * (-bx) + b2 * ax) / (2 * cp)
        r[0] = sqrtf(c[0] * c[0] + c[2] * c[2])
        c[0] += p1[0]
        c[1] += p1[1]
        c[2] += p1[2]
        return True
    c[0] = p1[0]
    c[1] = p1[1]
    c[2] = p1[2]
    r[0] = 0
    return False


# --- the height patch ---

cdef uint16_t sample_height(const Patch* hp, float fx, float fy, float fz, float ics,
                            float ch, int radius) noexcept nogil:
    """The patch height at world offset fx, fz (from the mesh origin).  Where that cell
    has none, the nearest ring of cells round it (out to ``radius``) that has some gives
    the height closest to fy, rings walked as a square spiral."""
    cdef int ix = <int> floorf(fx * ics + <float> 0.01)
    cdef int iz = <int> floorf(fz * ics + <float> 0.01)
    ix -= hp.xmin
    iz -= hp.zmin
    ix = 0 if ix < 0 else (hp.width - 1 if ix > hp.width - 1 else ix)
    iz = 0 if iz < 0 else (hp.depth - 1 if iz > hp.depth - 1 else iz)
    cdef uint16_t h = hp.data[ix + iz * hp.width], nh
    if h != UNSET:
        return h
    cdef int x = 1, z = 0, dx = 1, dz = 0, tmp, nx, nz, i
    cdef int side = radius * 2 + 1
    cdef int ring_end = 8, ring_len = 16
    cdef float dmin = FLT_MAX, d
    for i in range(side * side - 1):
        nx = ix + x
        nz = iz + z
        if 0 <= nx < hp.width and 0 <= nz < hp.depth:
            nh = hp.data[nx + nz * hp.width]
            if nh != UNSET:
                d = fabsf(nh * ch - fy)
                if d < dmin:
                    h = nh
                    dmin = d
        # a ring ends: stop at the first ring that gave a height
        if i + 1 == ring_end:
            if h != UNSET:
                break
            ring_end += ring_len
            ring_len += 8
        # turn at the spiral's corners
        if x == z or (x < 0 and x == -z) or (x > 0 and x == 1 - z):
            tmp = dx
            dx = -dz
            dz = tmp
        x += dx
        z += dz
    return h


cdef void seed_near_centre(const Chf* g, const uint16_t* poly, int npoly,
                           const uint16_t* mverts, int bs, Patch* hp,
                           vector[int]& queue) noexcept nogil:
    """Seed the patch's flood with one span near the polygon's centre: from the span
    nearest in height to a polygon vertex (in its cell or the 8 round it), a depth-first
    walk over linked spans inside the box, the step straight towards the centre tried
    first, until the centre cell is reached."""
    cdef int offs[18]
    offs[:] = [0, 0, -1, -1, 0, -1, 1, -1, 1, 0, 1, 1, 0, 1, -1, 1, -1, 0]
    cdef int sx = 0, sz = 0, j, k, ax, ay, az, d, dmin = UNSET, pcx = 0, pcz = 0
    cdef Py_ssize_t si = -1, i, c
    j = 0
    while j < npoly and dmin > 0:
        k = 0
        while k < 9 and dmin > 0:
            ax = <int> mverts[poly[j] * 3] + offs[k * 2]
            ay = <int> mverts[poly[j] * 3 + 1]
            az = <int> mverts[poly[j] * 3 + 2] + offs[k * 2 + 1]
            k += 1
            if ax < hp.xmin or ax >= hp.xmin + hp.width or az < hp.zmin \
                    or az >= hp.zmin + hp.depth:
                continue
            c = (ax + bs) + <Py_ssize_t> (az + bs) * g.width
            i = g.first[c]
            while i < g.first[c + 1] and dmin > 0:
                d = ay - <int> g.y[i]
                if d < 0:
                    d = -d
                if d < dmin:
                    sx = ax
                    sz = az
                    si = i
                    dmin = d
                i += 1
        j += 1
    cdef size_t cells = <size_t> hp.width * hp.depth
    if si < 0:
        # no span in reach of any vertex (cannot happen for a mesh built from this
        # heightfield): leave every height unset
        memset(hp.data, 0xff, sizeof(uint16_t) * cells)
        queue.clear()
        return
    for j in range(npoly):
        pcx += mverts[poly[j] * 3]
        pcz += mverts[poly[j] * 3 + 2]
    pcx //= npoly
    pcz //= npoly

    queue.clear()
    queue.push_back(sx)
    queue.push_back(sz)
    queue.push_back(<int> si)
    # the patch marks the cells pushed (not the start)
    memset(hp.data, 0, sizeof(uint16_t) * cells)
    cdef int dirs[4]
    dirs[:] = [0, 1, 2, 3]
    cdef int cx = -1, cz = -1, ci = -1, toward, dr, nx, nz, px, pz
    cdef uint32_t con
    while True:
        if queue.size() < 3:
            # the walk ran out without reaching the centre: the last span popped seeds
            break
        ci = queue.back()
        queue.pop_back()
        cz = queue.back()
        queue.pop_back()
        cx = queue.back()
        queue.pop_back()
        if cx == pcx and cz == pcz:
            break
        if cx == pcx:
            toward = 1 if pcz > cz else 3
        else:
            toward = 2 if pcx > cx else 0
        # the straight step is pushed last, so popped first
        dirs[toward], dirs[3] = dirs[3], dirs[toward]
        con = g.con[ci]
        for k in range(4):
            dr = dirs[k]
            if link(con, dr) == NOT_CONNECTED:
                continue
            nx = cx + dir_dx(dr)
            nz = cz + dir_dz(dr)
            px = nx - hp.xmin
            pz = nz - hp.zmin
            if px < 0 or px >= hp.width or pz < 0 or pz >= hp.depth:
                continue
            if hp.data[px + pz * hp.width] != 0:
                continue
            hp.data[px + pz * hp.width] = 1
            queue.push_back(nx)
            queue.push_back(nz)
            queue.push_back(<int> (g.first[(nx + bs) + <Py_ssize_t> (nz + bs) * g.width]
                                   + link(con, dr)))
        dirs[toward], dirs[3] = dirs[3], dirs[toward]

    queue.clear()
    queue.push_back(cx + bs)
    queue.push_back(cz + bs)
    queue.push_back(ci)
    memset(hp.data, 0xff, sizeof(uint16_t) * cells)
    hp.data[cx - hp.xmin + (cz - hp.zmin) * hp.width] = g.y[ci]


cdef void fill_patch(const Chf* g, const uint16_t* poly, int npoly, const uint16_t* mverts,
                     int bs, Patch* hp, vector[int]& queue, uint16_t region) noexcept nogil:
    """The heights of the polygon's box: the spans of its region where a column has one
    (those next to another region seed the flood), or for a polygon of mixed regions (or
    none found) one span near its centre; then a breadth-first flood over linked spans
    gives every other reachable cell of the box the height of the first span to reach
    it."""
    cdef size_t cells = <size_t> hp.width * hp.depth
    cdef int hx, hz, x, z, d, ax, az
    cdef Py_ssize_t c, i, a
    cdef bint empty = True, edge
    cdef uint32_t con
    queue.clear()
    memset(hp.data, 0xff, sizeof(uint16_t) * cells)
    if region != MIXED_REGIONS:
        for hz in range(hp.depth):
            z = hp.zmin + hz + bs
            for hx in range(hp.width):
                x = hp.xmin + hx + bs
                c = x + <Py_ssize_t> z * g.width
                for i in range(g.first[c], g.first[c + 1]):
                    if g.reg[i] != region:
                        continue
                    hp.data[hx + hz * hp.width] = g.y[i]
                    empty = False
                    edge = False
                    for d in range(4):
                        a = step(g, x, z, i, d)
                        if a >= 0 and g.reg[a] != region:
                            edge = True
                            break
                    if edge:
                        queue.push_back(x)
                        queue.push_back(z)
                        queue.push_back(<int> i)
                    break
    if empty:
        seed_near_centre(g, poly, npoly, mverts, bs, hp, queue)

    # first in, first out (the reference reclaims the consumed front in blocks of 256,
    # which keeps this order)
    cdef size_t head = 0
    cdef int cx, cz, ci, px, pz
    while head < queue.size():
        cx = queue[head]
        cz = queue[head + 1]
        ci = queue[head + 2]
        head += 3
        con = g.con[ci]
        for d in range(4):
            if link(con, d) == NOT_CONNECTED:
                continue
            ax = cx + dir_dx(d)
            az = cz + dir_dz(d)
            px = ax - hp.xmin - bs
            pz = az - hp.zmin - bs
            if <unsigned int> px >= <unsigned int> hp.width or \
                    <unsigned int> pz >= <unsigned int> hp.depth:
                continue
            if hp.data[px + pz * hp.width] != UNSET:
                continue
            a = g.first[ax + <Py_ssize_t> az * g.width] + link(con, d)
            hp.data[px + pz * hp.width] = g.y[a]
            queue.push_back(ax)
            queue.push_back(az)
            queue.push_back(<int> a)


# --- triangulations ---

cdef void fan_outline(const float* verts, const int* hull, int nhull, int nin,
                      vector[int]& tris) noexcept nogil:
    """Triangulate the outline: start at the ear (with a polygon vertex at its tip) of
    least perimeter, then grow the strip on whichever side adds the shorter sides."""
    cdef int start = 0, left = 1, right = nhull - 1, i, pi, ni, nleft, nright
    cdef float dmin = FLT_MAX, d, dleft, dright
    for i in range(nhull):
        if hull[i] >= nin:
            continue
        pi = prv(i, nhull)
        ni = nxt(i, nhull)
        d = dist_xz(&verts[hull[pi] * 3], &verts[hull[i] * 3]) \
            + dist_xz(&verts[hull[i] * 3], &verts[hull[ni] * 3]) \
            + dist_xz(&verts[hull[ni] * 3], &verts[hull[pi] * 3])
        if d < dmin:
            start = i
            left = ni
            right = pi
            dmin = d
    push_tri(tris, hull[start], hull[left], hull[right])
    while nxt(left, nhull) != right:
        nleft = nxt(left, nhull)
        nright = prv(right, nhull)
        dleft = dist_xz(&verts[hull[left] * 3], &verts[hull[nleft] * 3]) \
            + dist_xz(&verts[hull[nleft] * 3], &verts[hull[right] * 3])
        dright = dist_xz(&verts[hull[right] * 3], &verts[hull[nright] * 3]) \
            + dist_xz(&verts[hull[left] * 3], &verts[hull[nright] * 3])
        if dleft < dright:
            push_tri(tris, hull[left], hull[nleft], hull[right])
            left = nleft
        else:
            push_tri(tris, hull[left], hull[nright], hull[right])
            right = nright


cdef inline void push_tri(vector[int]& tris, int a, int b, int c) noexcept nogil:
    tris.push_back(a)
    tris.push_back(b)
    tris.push_back(c)
    tris.push_back(0)


cdef int find_edge(const int* edges, int nedges, int s, int t) noexcept nogil:
    cdef int i
    for i in range(nedges):
        if (edges[i * 4] == s and edges[i * 4 + 1] == t) or \
                (edges[i * 4] == t and edges[i * 4 + 1] == s):
            return i
    return FACE_UNDEF


cdef void add_edge(int* edges, int* nedges, int max_edges, int s, int t, int l,
                   int r) noexcept nogil:
    """Add the edge s t with faces l (left) and r unless it is there (or the table is
    full: the reference drops it then)."""
    if nedges[0] >= max_edges:
        return
    if find_edge(edges, nedges[0], s, t) != FACE_UNDEF:
        return
    cdef int* e = &edges[nedges[0] * 4]
    e[0] = s
    e[1] = t
    e[2] = l
    e[3] = r
    nedges[0] += 1


cdef inline void set_left_face(int* e, int s, int t, int f) noexcept nogil:
    if e[0] == s and e[1] == t and e[2] == FACE_UNDEF:
        e[2] = f
    elif e[1] == s and e[0] == t and e[3] == FACE_UNDEF:
        e[3] = f


cdef bint segments_cross(const float* a, const float* b, const float* c,
                         const float* d) noexcept nogil:
    cdef float a1 = cross_xz(a, b, d), a2 = cross_xz(a, b, c), a3, a4
    if a1 * a2 < 0:
        a3 = cross_xz(c, d, a)
        a4 = a3 + a2 - a1
        if a3 * a4 < 0:
            return True
    return False


cdef bint crosses_edges(const float* pts, const int* edges, int nedges, int s1,
                        int t1) noexcept nogil:
    cdef int i, s0, t0
    for i in range(nedges):
        s0 = edges[i * 4]
        t0 = edges[i * 4 + 1]
        if s0 == s1 or s0 == t1 or t0 == s1 or t0 == t1:
            continue
        if segments_cross(&pts[s0 * 3], &pts[t0 * 3], &pts[s1 * 3], &pts[t1 * 3]):
            return True
    return False


cdef void complete_face(const float* pts, int npts, int* edges, int* nedges, int max_edges,
                        int* nfaces, int e) noexcept nogil:
    """Close the open side of edge e with the point left of it whose circumcircle holds no
    other (a point near the circle is taken only if its new sides cross no edge), or mark
    that side as outside the outline."""
    cdef int s, t, u, pt = npts, f
    cdef int* edge = &edges[e * 4]
    if edge[2] == FACE_UNDEF:
        s = edge[0]
        t = edge[1]
    elif edge[3] == FACE_UNDEF:
        s = edge[1]
        t = edge[0]
    else:
        return
    cdef float c[3]
    cdef float r = -1, d
    cdef float eps = <float> 1e-5
    cdef float tol = <float> 0.001
    c[0] = 0
    c[1] = 0
    c[2] = 0
    for u in range(npts):
        if u == s or u == t:
            continue
        if cross_xz(&pts[s * 3], &pts[t * 3], &pts[u * 3]) > eps:
            if r < 0:
                pt = u
                circumcircle(&pts[s * 3], &pts[t * 3], &pts[u * 3], c, &r)
                continue
            d = dist_xz(c, &pts[u * 3])
            if d > r * (1 + tol):
                continue
            elif d < r * (1 - tol):
                pt = u
                circumcircle(&pts[s * 3], &pts[t * 3], &pts[u * 3], c, &r)
            else:
                if crosses_edges(pts, edges, nedges[0], s, u):
                    continue
                if crosses_edges(pts, edges, nedges[0], t, u):
                    continue
                pt = u
                circumcircle(&pts[s * 3], &pts[t * 3], &pts[u * 3], c, &r)
    if pt < npts:
        set_left_face(&edges[e * 4], s, t, nfaces[0])
        f = find_edge(edges, nedges[0], pt, s)
        if f == FACE_UNDEF:
            add_edge(edges, nedges, max_edges, pt, s, nfaces[0], FACE_UNDEF)
        else:
            set_left_face(&edges[f * 4], pt, s, nfaces[0])
        f = find_edge(edges, nedges[0], t, pt)
        if f == FACE_UNDEF:
            add_edge(edges, nedges, max_edges, t, pt, nfaces[0], FACE_UNDEF)
        else:
            set_left_face(&edges[f * 4], t, pt, nfaces[0])
        nfaces[0] += 1
    else:
        set_left_face(&edges[e * 4], s, t, FACE_HULL)


cdef void delaunay(const float* pts, int npts, const int* hull, int nhull,
                   vector[int]& tris, vector[int]& edges) noexcept nogil:
    """Delaunay triangulation of the points inside the outline ``hull``, grown face by
    face from the outline's edges (at most 10 edges per point, as the reference)."""
    cdef int nfaces = 0, nedges = 0, max_edges = npts * 10, i, j, cur
    edges.resize(max_edges * 4)
    cdef int* ed = edges.data()
    j = nhull - 1
    for i in range(nhull):
        add_edge(ed, &nedges, max_edges, hull[j], hull[i], FACE_HULL, FACE_UNDEF)
        j = i
    cur = 0
    while cur < nedges:
        if ed[cur * 4 + 2] == FACE_UNDEF:
            complete_face(pts, npts, ed, &nedges, max_edges, &nfaces, cur)
        if ed[cur * 4 + 3] == FACE_UNDEF:
            complete_face(pts, npts, ed, &nedges, max_edges, &nfaces, cur)
        cur += 1

    tris.resize(nfaces * 4)
    cdef int* t
    cdef const int* e
    for i in range(nfaces * 4):
        tris[i] = -1
    for i in range(nedges):
        e = &ed[i * 4]
        if e[3] >= 0:
            t = &tris[e[3] * 4]
            if t[0] == -1:
                t[0] = e[0]
                t[1] = e[1]
            elif t[0] == e[1]:
                t[2] = e[0]
            elif t[1] == e[0]:
                t[2] = e[1]
        if e[2] >= 0:
            t = &tris[e[2] * 4]
            if t[0] == -1:
                t[0] = e[1]
                t[1] = e[0]
            elif t[0] == e[0]:
                t[2] = e[1]
            elif t[1] == e[1]:
                t[2] = e[0]
    # a face left open is dropped: the last face takes its place
    cdef size_t n
    i = 0
    while <size_t> i < tris.size() // 4:
        t = &tris[i * 4]
        if t[0] == -1 or t[1] == -1 or t[2] == -1:
            n = tris.size()
            t[0] = tris[n - 4]
            t[1] = tris[n - 3]
            t[2] = tris[n - 2]
            t[3] = tris[n - 1]
            tris.resize(n - 4)
            i -= 1
        i += 1


cdef inline bint on_outline(int a, int b, const int* hull, int nhull) noexcept nogil:
    """Whether a -> b is a side of the outline (interior samples come after it)."""
    cdef int i, j = nhull - 1
    if a >= nhull or b >= nhull:
        return False
    for i in range(nhull):
        if a == hull[j] and b == hull[i]:
            return True
        j = i
    return False


cdef void flag_outline_sides(vector[int]& tris, const int* hull, int nhull) noexcept nogil:
    cdef size_t i
    cdef int a, b, c
    for i in range(0, tris.size(), 4):
        a = tris[i]
        b = tris[i + 1]
        c = tris[i + 2]
        tris[i + 3] = ((EDGE_ON_OUTLINE if on_outline(a, b, hull, nhull) else 0)
                       | (EDGE_ON_OUTLINE if on_outline(b, c, hull, nhull) else 0) << 2
                       | (EDGE_ON_OUTLINE if on_outline(c, a, hull, nhull) else 0) << 4)


cdef inline float jitter(int i, uint32_t k) noexcept nogil:
    """A fixed pseudo-random offset in [-1, 1] for sample i (k: one per axis)."""
    return <float> ((<uint32_t> i * k) & 0xffff) / <float> 65535.0 * <float> 2.0 \
        - <float> 1.0


cdef float min_extent(const float* verts, int n) noexcept nogil:
    """The polygon's least width: over its sides, the least of the greatest distance of
    another vertex from the side."""
    cdef float dmin = FLT_MAX, dmax, d
    cdef int i, j, ni
    for i in range(n):
        ni = (i + 1) % n
        dmax = 0
        for j in range(n):
            if j == i or j == ni:
                continue
            d = seg_dist2_xz(&verts[j * 3], &verts[i * 3], &verts[ni * 3])
            if d > dmax:
                dmax = d
        if dmax < dmin:
            dmin = dmax
    return sqrtf(dmin)


cdef void poly_detail(const float* poly, int npoly, float sample_dist, float max_error,
                      int radius, float cs, float ch, const Patch* hp, float* verts,
                      int* nverts_out, vector[int]& tris, vector[int]& edges,
                      vector[int]& samples) noexcept nogil:
    cdef float edge[(MAX_EDGE_SAMPLES + 1) * 3]
    cdef int hull[MAX_VERTS]
    cdef int idx[MAX_EDGE_SAMPLES]
    cdef int nhull = 0, nverts = npoly, i, j, k, m, nn, nidx, a, b, maxi
    cdef float ics = <float> 1.0 / cs
    cdef const float* vj
    cdef const float* vi
    cdef const float* tmp
    cdef float dx, dy, dz, d, u, maxd, dev
    cdef float* pos
    cdef bint swapped
    for i in range(npoly * 3):
        verts[i] = poly[i]
    edges.clear()
    tris.clear()
    cdef float extent = min_extent(verts, nverts)

    # the outline, each side sampled from its lesser end (by x, then z) so that both
    # polygons on a side get the same points
    if sample_dist > 0:
        j = npoly - 1
        for i in range(npoly):
            vj = &poly[j * 3]
            vi = &poly[i * 3]
            swapped = False
            if fabsf(vj[0] - vi[0]) < <float> 1e-6:
                if vj[2] > vi[2]:
                    tmp = vj
                    vj = vi
                    vi = tmp
                    swapped = True
            elif vj[0] > vi[0]:
                tmp = vj
                vj = vi
                vi = tmp
                swapped = True
            dx = vi[0] - vj[0]
            dy = vi[1] - vj[1]
            dz = vi[2] - vj[2]
            d = sqrtf(dx * dx + dz * dz)
            nn = 1 + <int> floorf(d / sample_dist)
            if nn >= MAX_EDGE_SAMPLES:
                nn = MAX_EDGE_SAMPLES - 1
            if nverts + nn >= MAX_VERTS:
                nn = MAX_VERTS - 1 - nverts
            for k in range(nn + 1):
                u = <float> k / <float> nn
                pos = &edge[k * 3]
                pos[0] = vj[0] + dx * u
                pos[1] = vj[1] + dy * u
                pos[2] = vj[2] + dz * u
                pos[1] = sample_height(hp, pos[0], pos[1], pos[2], ics, ch, radius) * ch
            # keep the samples that stray most, until the rest are within the error
            idx[0] = 0
            idx[1] = nn
            nidx = 2
            k = 0
            while k < nidx - 1:
                a = idx[k]
                b = idx[k + 1]
                maxd = 0
                maxi = -1
                for m in range(a + 1, b):
                    dev = seg_dist2(&edge[m * 3], &edge[a * 3], &edge[b * 3])
                    if dev > maxd:
                        maxd = dev
                        maxi = m
                if maxi != -1 and maxd > max_error * max_error:
                    for m in range(nidx, k, -1):
                        idx[m] = idx[m - 1]
                    idx[k + 1] = maxi
                    nidx += 1
                else:
                    k += 1
            hull[nhull] = j
            nhull += 1
            if swapped:
                for k in range(nidx - 2, 0, -1):
                    verts[nverts * 3] = edge[idx[k] * 3]
                    verts[nverts * 3 + 1] = edge[idx[k] * 3 + 1]
                    verts[nverts * 3 + 2] = edge[idx[k] * 3 + 2]
                    hull[nhull] = nverts
                    nhull += 1
                    nverts += 1
            else:
                for k in range(1, nidx - 1):
                    verts[nverts * 3] = edge[idx[k] * 3]
                    verts[nverts * 3 + 1] = edge[idx[k] * 3 + 1]
                    verts[nverts * 3 + 2] = edge[idx[k] * 3 + 2]
                    hull[nhull] = nverts
                    nhull += 1
                    nverts += 1
            j = i
    else:
        # without samples the outline is the polygon (the reference leaves it empty here
        # and cannot triangulate it)
        for i in range(npoly):
            hull[i] = i
        nhull = npoly

    nverts_out[0] = nverts
    # slivers and small polygons get no interior samples
    if extent < sample_dist * 2:
        fan_outline(verts, hull, nhull, npoly, tris)
        flag_outline_sides(tris, hull, nhull)
        return
    fan_outline(verts, hull, nhull, npoly, tris)
    if tris.size() == 0:
        return

    cdef float bmin[3]
    cdef float bmax[3]
    cdef float pt[3]
    cdef float best[3]
    cdef float bestd
    cdef int x0, x1, z0, z1, x, z, nsamples, it, besti
    cdef int* s
    if sample_dist > 0:
        for k in range(3):
            bmin[k] = poly[k]
            bmax[k] = poly[k]
        for i in range(1, npoly):
            for k in range(3):
                if poly[i * 3 + k] < bmin[k]:
                    bmin[k] = poly[i * 3 + k]
                if poly[i * 3 + k] > bmax[k]:
                    bmax[k] = poly[i * 3 + k]
        x0 = <int> floorf(bmin[0] / sample_dist)
        x1 = <int> ceilf(bmax[0] / sample_dist)
        z0 = <int> floorf(bmin[2] / sample_dist)
        z1 = <int> ceilf(bmax[2] / sample_dist)
        samples.clear()
        for z in range(z0, z1):
            for x in range(x0, x1):
                pt[0] = x * sample_dist
                pt[1] = (bmax[1] + bmin[1]) * <float> 0.5
                pt[2] = z * sample_dist
                # not too near the outline
                if poly_signed_dist(poly, npoly, pt) > -sample_dist / 2:
                    continue
                samples.push_back(x)
                samples.push_back(sample_height(hp, pt[0], pt[1], pt[2], ics, ch, radius))
                samples.push_back(z)
                samples.push_back(0)
        nsamples = <int> (samples.size() // 4)
        for it in range(nsamples):
            if nverts >= MAX_VERTS:
                break
            best[0] = 0
            best[1] = 0
            best[2] = 0
            bestd = 0
            besti = -1
            for i in range(nsamples):
                s = &samples[i * 4]
                if s[3]:
                    continue
                # jittered off the grid so that its symmetry makes no degenerate faces
                pt[0] = s[0] * sample_dist + jitter(i, 0x8da6b343) * cs * <float> 0.1
                pt[1] = s[1] * ch
                pt[2] = s[2] * sample_dist + jitter(i, 0xd8163841) * cs * <float> 0.1
                if tris.size() == 0:
                    continue
                d = mesh_error(pt, verts, tris.data(), <int> (tris.size() // 4))
                if d < 0:
                    continue
                if d > bestd:
                    bestd = d
                    besti = i
                    best[0] = pt[0]
                    best[1] = pt[1]
                    best[2] = pt[2]
            if bestd <= max_error or besti == -1:
                break
            samples[besti * 4 + 3] = 1
            verts[nverts * 3] = best[0]
            verts[nverts * 3 + 1] = best[1]
            verts[nverts * 3 + 2] = best[2]
            nverts += 1
            edges.clear()
            tris.clear()
            delaunay(verts, nverts, hull, nhull, tris, edges)
    nverts_out[0] = nverts
    if tris.size() > MAX_TRIS * 4:
        tris.resize(MAX_TRIS * 4)
    flag_outline_sides(tris, hull, nhull)


def build(const int64_t[::1] first, const uint32_t[::1] con, const uint16_t[::1] y,
          const uint16_t[::1] reg, int width, int depth, float cs, float ch,
          const uint16_t[:, ::1] mverts, const uint16_t[:, ::1] polys,
          const uint16_t[::1] regs, const float[::1] bmin, int border,
          float max_edge_error, float sample_dist, float max_error):
    """The detail mesh of a polygon mesh over its compact heightfield (``first``, ``con``,
    ``y`` and the region ``reg`` of every span, on a ``width`` x ``depth`` grid of cells
    ``cs`` by ``ch``).  ``mverts`` (n, 3) and ``polys`` (npolys, 2 * nvp) are the
    polygon mesh in voxels without the ``border``, ``regs`` each polygon's region (0:
    merged from several), ``bmin`` its origin; a height missing under a sample is looked
    for up to ``ceil(max_edge_error)`` cells away.  Returns ``(meshes, verts, tris)``:
    per polygon its first vertex, vertex count, first triangle and triangle count; the
    vertices (world units, float32); the triangles as three vertex indices within their
    polygon's and the flags of the sides on its outline."""
    cdef int npolys = polys.shape[0], nvp = polys.shape[1] // 2
    meshes_arr = np.zeros((npolys, 4), dtype=np.uint32)
    if npolys == 0 or mverts.shape[0] == 0:
        return (np.zeros((0, 4), dtype=np.uint32), np.zeros((0, 3), dtype=np.float32),
                np.zeros((0, 4), dtype=np.uint8))
    cdef uint32_t[:, ::1] meshes = meshes_arr
    cdef Chf g
    g = chf_view(&first[0], &con[0] if con.shape[0] else NULL, NULL, width, depth, y.shape[0])
    g.y = &y[0] if y.shape[0] else NULL
    g.reg = &reg[0] if reg.shape[0] else NULL
    cdef int radius = <int> ceilf(max_edge_error)
    if radius < 1:
        radius = 1
    cdef vector[int] bounds, edges, tris, queue, samples
    cdef vector[uint16_t] patch_data
    cdef vector[float] out_verts
    cdef vector[uint8_t] out_tris
    cdef float verts[256 * 3]
    cdef float poly[6 * 3]
    cdef uint16_t pidx[6]
    cdef int i, j, npoly, xmin, xmax, zmin, zmax, maxw = 0, maxd = 0, nverts, ntris
    cdef float ox = bmin[0], oy = bmin[1], oz = bmin[2]
    cdef Patch hp
    if nvp > 6:
        raise ValueError(f"polygons of {nvp} vertices: at most 6")
    with nogil:
        bounds.resize(npolys * 4)
        for i in range(npolys):
            xmin = width
            xmax = 0
            zmin = depth
            zmax = 0
            for j in range(nvp):
                if polys[i, j] == NULL_IDX:
                    break
                xmin = min(xmin, <int> mverts[polys[i, j], 0])
                xmax = max(xmax, <int> mverts[polys[i, j], 0])
                zmin = min(zmin, <int> mverts[polys[i, j], 2])
                zmax = max(zmax, <int> mverts[polys[i, j], 2])
            xmin = max(0, xmin - 1)
            xmax = min(width, xmax + 1)
            zmin = max(0, zmin - 1)
            zmax = min(depth, zmax + 1)
            bounds[i * 4] = xmin
            bounds[i * 4 + 1] = xmax
            bounds[i * 4 + 2] = zmin
            bounds[i * 4 + 3] = zmax
            if xmin >= xmax or zmin >= zmax:
                continue
            maxw = max(maxw, xmax - xmin)
            maxd = max(maxd, zmax - zmin)
        patch_data.resize(max(1, maxw * maxd))
        hp.data = patch_data.data()

        for i in range(npolys):
            npoly = 0
            for j in range(nvp):
                if polys[i, j] == NULL_IDX:
                    break
                pidx[j] = polys[i, j]
                poly[j * 3] = mverts[pidx[j], 0] * cs
                poly[j * 3 + 1] = mverts[pidx[j], 1] * ch
                poly[j * 3 + 2] = mverts[pidx[j], 2] * cs
                npoly += 1
            hp.xmin = bounds[i * 4]
            hp.zmin = bounds[i * 4 + 2]
            hp.width = bounds[i * 4 + 1] - bounds[i * 4]
            hp.depth = bounds[i * 4 + 3] - bounds[i * 4 + 2]
            fill_patch(&g, pidx, npoly, &mverts[0, 0], border, &hp, queue, regs[i])
            nverts = 0
            poly_detail(poly, npoly, sample_dist, max_error, radius, cs, ch, &hp, verts,
                        &nverts, tris, edges, samples)
            ntris = <int> (tris.size() // 4)
            meshes[i, 0] = <uint32_t> (out_verts.size() // 3)
            meshes[i, 1] = <uint32_t> nverts
            meshes[i, 2] = <uint32_t> (out_tris.size() // 4)
            meshes[i, 3] = <uint32_t> ntris
            # to world units, a cell height above the floor as the reference puts it
            for j in range(nverts):
                out_verts.push_back(verts[j * 3] + ox)
                out_verts.push_back(verts[j * 3 + 1] + (oy + ch))
                out_verts.push_back(verts[j * 3 + 2] + oz)
            for j in range(ntris * 4):
                out_tris.push_back(<uint8_t> tris[j])
    verts_arr = np.empty((out_verts.size() // 3, 3), dtype=np.float32)
    tris_arr = np.empty((out_tris.size() // 4, 4), dtype=np.uint8)
    cdef float[:, ::1] vv = verts_arr
    cdef uint8_t[:, ::1] tt = tris_arr
    cdef size_t n
    with nogil:
        for n in range(out_verts.size()):
            vv[n // 3, n % 3] = out_verts[n]
        for n in range(out_tris.size()):
            tt[n // 4, n % 4] = out_tris[n]
    return meshes_arr, verts_arr, tris_arr
