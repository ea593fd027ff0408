# Navigation-mesh kernels: point location in convex polygons, nearest point on the mesh, A*
# over the ways into polygons (node position = the point of the entry portal, the whole
# boundary two polygons share, on the shortest two-leg way toward the goal, or an off-mesh
# link's end; its cost measured straight from the last point where the way bent) with a
# check of the best corridors' straight paths, the funnel (string pulling) over a
# corridor's portals, and whole queries in one call.
# The funnel's orientation tests are exact (the search's, which only rank ways, are not).
cimport numpy as cnp
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.object cimport PyObject, PyTypeObject
from libc.math cimport INFINITY, fabs, isfinite, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

import numpy as np

from ._buckets cimport bucket
from ._guard cimport Guard
from ._heap cimport Heap, heap_decrease, heap_free, heap_init, heap_pop, heap_push, HeapItem
from ._navmesh_locate cimport PINCH_CAP, in_polygon, locate_in, other_sides
from ._navmesh_points cimport HOLD_GIL_POLYGONS, plain_xy
from ._portable cimport monotonic
from ._predicates cimport orient2d

cnp.import_array()


# ------------------------------------------------------------------------------ location
cdef inline double closest_on(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                              const int32_t[::1] sizes, int p, double x, double y,
                              double* cx, double* cy) noexcept nogil:
    """Squared distance from (x, y) to polygon p and the closest point."""
    cdef int k, n = sizes[p]
    cdef int32_t a, b
    cdef double ax, ay, dx, dy, t, qx, qy, d, best = INFINITY
    if in_polygon(verts, polys, sizes, p, x, y):
        cx[0] = x
        cy[0] = y
        return 0.0
    for k in range(n):
        a = polys[p, k]
        b = polys[p, (k + 1) % n]
        ax = verts[a, 0]
        ay = verts[a, 1]
        dx = verts[b, 0] - ax
        dy = verts[b, 1] - ay
        t = ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)
        if t < 0.0:
            t = 0.0
        elif t > 1.0:
            t = 1.0
        qx = ax + t * dx
        qy = ay + t * dy
        d = (qx - x) * (qx - x) + (qy - y) * (qy - y)
        if d < best:
            best = d
            cx[0] = qx
            cy[0] = qy
    return best


def locate(const double[:, ::1] verts, const int32_t[:, ::1] polys, const int32_t[::1] sizes,
           const int64_t[::1] cell_ptr, const int32_t[::1] cell_polys, double ox, double oy,
           double cell, int nx, int ny, const double[:, ::1] points, int32_t[::1] out):
    """out[i] = lowest id of a polygon containing points[i] (boundary included), or -1;
    each bucket lists its polygons in increasing order."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(points.shape[0]):
            out[i] = locate_in(verts, polys, sizes, cell_ptr, cell_polys, ox, oy, cell, nx, ny,
                               NULL, points[i, 0], points[i, 1])


cdef int nearest_point(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                       const int32_t[::1] sizes, const int64_t[::1] cell_ptr,
                       const int32_t[::1] cell_polys, double ox, double oy, double cell, int nx,
                       int ny, const uint8_t[::1] allowed, double x, double y, double* bx,
                       double* by) noexcept nogil:
    """The allowed polygon nearest (x, y) (ties: lowest id; -1 when none) and the nearest
    point on it, searching the buckets ring by ring around the point's bucket."""
    cdef int64_t c, j
    cdef int ix, iy, r, gx, gy, p, best = -1, rmax = nx if nx > ny else ny
    cdef double d, bestd = INFINITY, cx = 0.0, cy = 0.0, reach
    # Buckets of points off the grid are clamped to the ring just outside it: distances to
    # the grid's buckets only grow from there.
    ix = bucket(x - ox, cell, nx)
    iy = bucket(y - oy, cell, ny)
    bx[0] = 0.0
    by[0] = 0.0
    r = 0
    while r <= rmax + 2:
        # Every point of a bucket outside rings 0..r is farther than r cells away (minus the
        # query's offset inside its own bucket).
        reach = (r - 1) * cell if r > 0 else 0.0
        if best >= 0 and bestd <= reach * reach:
            break
        for gy in range(iy - r, iy + r + 1):
            if gy < 0 or gy >= ny:
                continue
            for gx in range(ix - r, ix + r + 1):
                if gx < 0 or gx >= nx:
                    continue
                if r > 0 and gy != iy - r and gy != iy + r and gx != ix - r and gx != ix + r:
                    continue
                c = gy * nx + gx
                for j in range(cell_ptr[c], cell_ptr[c + 1]):
                    p = cell_polys[j]
                    if not allowed[p]:
                        continue
                    d = closest_on(verts, polys, sizes, p, x, y, &cx, &cy)
                    if d < bestd or (d == bestd and p < best):
                        bestd = d
                        best = p
                        bx[0] = cx
                        by[0] = cy
        r += 1
    return best


def nearest(const double[:, ::1] verts, const int32_t[:, ::1] polys, const int32_t[::1] sizes,
            const int64_t[::1] cell_ptr, const int32_t[::1] cell_polys, double ox, double oy,
            double cell, int nx, int ny, const uint8_t[::1] allowed,
            const double[:, ::1] points, int32_t[::1] out, double[:, ::1] snapped):
    """The allowed polygon nearest each point (ties: lowest id; -1 when none is allowed)
    and the nearest point on it."""
    cdef Py_ssize_t i
    cdef double bx, by
    with nogil:
        for i in range(points.shape[0]):
            out[i] = nearest_point(verts, polys, sizes, cell_ptr, cell_polys, ox, oy, cell, nx,
                                   ny, allowed, points[i, 0], points[i, 1], &bx, &by)
            snapped[i, 0] = bx
            snapped[i, 1] = by


# ------------------------------------------------------------------------------ search
cdef inline void portal_point(double ax, double ay, double bx, double by, double px,
                              double py, double gx, double gy, double* ox,
                              double* oy) noexcept nogil:
    """Where the search enters a polygon through portal a-b from (px, py): the point x of the
    portal's line that makes |p x| + |x g| least (where the segment p-g crosses the line, or
    the line of p toward g mirrored when both are on one side), kept a hundredth of the
    portal away from its ends."""
    cdef double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy
    cdef double sp = (px - ax) * dx + (py - ay) * dy, sg = (gx - ax) * dx + (gy - ay) * dy
    cdef double hp = fabs(dx * (py - ay) - dy * (px - ax))
    cdef double hg = fabs(dx * (gy - ay) - dy * (gx - ax)), t = 0.5
    if len2 > 0.0:
        # sp + (sg - sp) hp / (hp + hg), over len2, with one division.
        t = (sp * hg + sg * hp) / (len2 * (hp + hg)) if hp + hg > 0.0 else sp / len2
    if t < 0.01:
        t = 0.01
    elif t > 0.99:
        t = 0.99
    ox[0] = ax + t * dx
    oy[0] = ay + t * dy


cdef inline double cross(double ux, double uy, double vx, double vy) noexcept nogil:
    """The cross product of u and v: > 0 when v turns left of u."""
    return ux * vy - uy * vx


cdef inline double side(double ax, double ay, double bx, double by, double cx,
                        double cy) noexcept nogil:
    """Twice the signed area of a, b, c: > 0 when c is left of the ray a-b."""
    return cross(bx - ax, by - ay, cx - ax, cy - ay)


cdef bint plain_rows(object v):
    """Whether v is a C-contiguous (n, 2) float64 array of finite numbers."""
    cdef cnp.ndarray a
    cdef const double* d
    cdef Py_ssize_t i
    if type(v) is not np.ndarray:
        return False
    a = <cnp.ndarray> v
    if cnp.PyArray_NDIM(a) != 2 or cnp.PyArray_DIM(a, 1) != 2 \
            or cnp.PyArray_TYPE(a) != cnp.NPY_DOUBLE or not cnp.PyArray_IS_C_CONTIGUOUS(a) \
            or not cnp.PyArray_ISNOTSWAPPED(a):
        return False
    d = <const double*> cnp.PyArray_DATA(a)
    for i in range(2 * cnp.PyArray_DIM(a, 0)):
        if not isfinite(d[i]):
            return False
    return True


cdef struct Buffers:
    # Growing outputs of a batch of queries.
    int32_t* corr
    double* corners
    uint8_t* flags
    Py_ssize_t ncorr, ncorners, cap_corr, cap_corners


cdef int append(Buffers* b, const int32_t* corr, Py_ssize_t m, const double* corners,
                const uint8_t* flags, Py_ssize_t k) noexcept nogil:
    """Append one query's corridor and corners; -1 when out of memory."""
    cdef Py_ssize_t cap
    cdef void* grown
    if b.ncorr + m > b.cap_corr:
        cap = 2 * (b.ncorr + m) + 64
        grown = realloc(b.corr, cap * sizeof(int32_t))
        if grown == NULL:
            return -1
        b.corr = <int32_t*> grown
        b.cap_corr = cap
    if b.ncorners + k > b.cap_corners:
        cap = 2 * (b.ncorners + k) + 64
        grown = realloc(b.corners, 2 * cap * sizeof(double))
        if grown == NULL:
            return -1
        b.corners = <double*> grown
        grown = realloc(b.flags, cap * sizeof(uint8_t))
        if grown == NULL:
            return -1
        b.flags = <uint8_t*> grown
        b.cap_corners = cap
    memcpy(b.corr + b.ncorr, corr, m * sizeof(int32_t))
    memcpy(b.corners + 2 * b.ncorners, corners, 2 * k * sizeof(double))
    memcpy(b.flags + b.ncorners, flags, k * sizeof(uint8_t))
    b.ncorr += m
    b.ncorners += k
    return 0


cdef struct Way:
    # A search's step out of a polygon through one of its edges: the polygon it leads into
    # (-1 for a wall, padding or an edge after the first of its portal) and the portal's
    # ends (see ``portal_run``).
    int32_t to
    int32_t a
    int32_t b


cdef struct Point:
    # A search node's point (where it enters its polygon) and its anchor (see
    # ``MeshQuery``): the anchor's point, the cost there and the wedge's left and right
    # ends (vertex ids; both -1 where it has none).
    double px
    double py
    double x
    double y
    double g
    int32_t left
    int32_t right


cdef struct Route:
    # One query's outcome: 0 no route, 1 to the goal, 2 partial, -1 out of memory.
    int code
    int expanded
    int generated
    int snap_s
    int snap_g
    double sx, sy, gx, gy
    # The corridor (polygons, and the directed link that entered each, -1 for an edge) and
    # the corners (the scratch of the query), their flags and polygons, and the length.
    Py_ssize_t m
    Py_ssize_t k
    double length
    # Found, but the path bends at a vertex inside the usable polygons (see ``MeshQuery``).
    bint inner


cdef class MeshQuery:
    """Per-thread path queries on one mesh: views on its arrays (taken once), the A* state
    (generation stamps: O(1) reset per query) and the corridor and corner scratch.

    The search's nodes are the ways into a polygon: through one of its portals (node
    ``p * W + e`` enters ``neigh[p, e]`` through the portal whose first edge is edge e of
    p, W the polygons' row width; see ``portal_run``), by an off-mesh link (node
    ``P * W + 1 + l``) or as the start (node ``P * W``); each node keeps the point where it
    enters (see ``portal_point``), so two ways into one polygon are kept apart.  With
    ``both_ways`` (every usable polygon costs the same) a node's cost is that of a taut
    way: each node keeps an anchor (the start, a corner or a node's own point), its cost
    and a wedge (the portal ends that bound the view from the anchor through the portals
    since): the next portal's point is chosen from the anchor and reached straight from it
    when inside the wedge; else the way goes round the wedge's end, which becomes the next
    anchor with the portal's ends as its wedge (a side that ends at the corner itself is
    open until the next portal bounds it).  A node's own point becomes the next anchor
    after a link or without ``both_ways``.  (A zigzag through portal points overrates a
    corridor of many portals and loses it to a longer one of few; one at each bend, the
    anchor moved to the point past the corner, lost ways round several walls' ends.)  With
    ``both_ways`` a portal node has two slots (node t and t + nodes, see :meth:`keep`):
    the way of lowest estimate, and one of higher estimate from another anchor that is
    cheaper at an end of the portal, so that a longer way which reaches a portal first
    (round a wall's far end, rated lower there by the straight-line estimate) does not
    shut out the shorter one behind it.  With ``both_ways``, a route that is not a
    straight line is searched for again from the goal to the start and the corridor of
    the shorter straight path is kept: the estimate (through points chosen toward the
    search's goal) ranks corridors of nearly equal length either way, and the two
    searches seldom err on the same query.  A shortest path bends only at corners of the
    usable region: where the kept path bends at a vertex inside it (a vertex no wall ends
    at, as meshes cut from grids or grown by wavefronts have), its corridor is not the
    shortest, and the query is answered by the exact search the filter gives (see
    :meth:`use_filter`)."""
    cdef const double[:, ::1] verts
    cdef const int32_t[:, ::1] polys
    cdef const int32_t[::1] sizes
    cdef const int32_t[:, ::1] neigh
    cdef const int64_t[::1] cell_ptr
    cdef const int32_t[::1] cell_polys
    cdef double ox, oy, cell
    cdef int nx, ny
    cdef const int64_t[::1] link_ptr
    cdef const int32_t[::1] link_to
    cdef const double[:, ::1] link_pts
    cdef const double[::1] link_cost
    cdef const int32_t[::1] link_ref
    cdef double* g
    cdef double* key
    cdef Point* point
    cdef int32_t* parent
    cdef int32_t* pos
    cdef uint32_t* stamp
    cdef uint8_t* closed
    cdef int32_t* corr
    cdef int32_t* cvia
    cdef int32_t* corr2
    cdef double* out
    cdef uint8_t* flags
    cdef int32_t* owner
    cdef double* out_b
    cdef uint8_t* flags_b
    cdef int32_t* owner_b
    cdef double* left
    cdef double* right
    cdef double* bend
    cdef int32_t* index
    cdef Way* ways
    cdef const uint8_t[::1] allowed
    cdef const double[::1] cost
    cdef const uint8_t[::1] link_ok
    cdef double h_scale
    cdef bint both_ways
    cdef const uint8_t[::1] corner
    cdef object exact
    cdef bint check      # exact is set and the mesh has no off-mesh links
    cdef Guard guard
    cdef object path_type
    cdef tuple statuses
    cdef uint32_t label
    cdef Heap heap
    cdef int n, width, start_node, start_poly, nodes

    def __init__(self, verts, polys, sizes, neigh, cell_ptr, cell_polys, double ox, double oy,
                 double cell, int nx, int ny, link_ptr, link_to, link_pts, link_cost,
                 link_ref):
        cdef Py_ssize_t i, cap
        cdef int p, e, lo
        self.verts, self.polys, self.sizes, self.neigh = verts, polys, sizes, neigh
        self.cell_ptr, self.cell_polys = cell_ptr, cell_polys
        self.ox, self.oy, self.cell, self.nx, self.ny = ox, oy, cell, nx, ny
        self.link_ptr, self.link_to = link_ptr, link_to
        self.link_pts, self.link_cost, self.link_ref = link_pts, link_cost, link_ref
        self.n = sizes.shape[0]
        self.width = polys.shape[1]
        self.start_node = self.n * self.width
        self.nodes = self.start_node + 1 + link_to.shape[0]
        cap = 2 * self.nodes + 1        # two slots per portal node (see ``keep``)
        self.g = <double*> malloc(cap * sizeof(double))
        self.key = <double*> malloc(cap * sizeof(double))
        self.point = <Point*> malloc(cap * sizeof(Point))
        self.parent = <int32_t*> malloc(cap * sizeof(int32_t))
        self.pos = <int32_t*> malloc(cap * sizeof(int32_t))
        self.stamp = <uint32_t*> malloc(cap * sizeof(uint32_t))
        self.closed = <uint8_t*> malloc(cap * sizeof(uint8_t))
        # A corridor has at most one polygon per node; its path two corners per polygon
        # and two more; a stretch's funnel one portal per polygon and two more.
        self.corr = <int32_t*> malloc(cap * sizeof(int32_t))
        self.cvia = <int32_t*> malloc(cap * sizeof(int32_t))
        self.corr2 = <int32_t*> malloc(2 * cap * sizeof(int32_t))
        self.out = <double*> malloc((4 * cap + 4) * sizeof(double))
        self.flags = <uint8_t*> malloc((2 * cap + 2) * sizeof(uint8_t))
        self.owner = <int32_t*> malloc((2 * cap + 2) * sizeof(int32_t))
        self.out_b = <double*> malloc((4 * cap + 4) * sizeof(double))
        self.flags_b = <uint8_t*> malloc((2 * cap + 2) * sizeof(uint8_t))
        self.owner_b = <int32_t*> malloc((2 * cap + 2) * sizeof(int32_t))
        self.left = <double*> malloc((2 * cap + 4) * sizeof(double))
        self.right = <double*> malloc((2 * cap + 4) * sizeof(double))
        self.bend = <double*> malloc((2 * cap + 4) * sizeof(double))
        self.index = <int32_t*> malloc((cap + 2) * sizeof(int32_t))
        self.ways = <Way*> malloc((self.nodes + 1) * sizeof(Way))   # per edge p * W + e
        if heap_init(&self.heap, 64) != 0 or self.g == NULL or self.key == NULL \
                or self.parent == NULL \
                or self.point == NULL \
                or self.pos == NULL or self.stamp == NULL or self.closed == NULL \
                or self.corr == NULL or self.cvia == NULL or self.corr2 == NULL \
                or self.out == NULL or self.flags == NULL or self.owner == NULL \
                or self.out_b == NULL or self.flags_b == NULL or self.owner_b == NULL \
                or self.left == NULL or self.right == NULL or self.bend == NULL \
                or self.index == NULL or self.ways == NULL:
            raise MemoryError()
        for i in range(cap):
            self.stamp[i] = 0
        self.label = 0
        for p in range(self.n):
            for e in range(self.width):
                i = p * self.width + e
                self.ways[i].to = -1
                if e < self.sizes[p] and self.neigh[p, e] >= 0:
                    portal_run(self.polys, self.sizes, self.neigh, p, e, &self.ways[i].a,
                               &self.ways[i].b, &lo)
                    if lo == e:
                        self.ways[i].to = self.neigh[p, e]

    def __dealloc__(self):
        free(self.g)
        free(self.key)
        free(self.point)
        free(self.parent)
        free(self.pos)
        free(self.stamp)
        free(self.closed)
        free(self.corr)
        free(self.cvia)
        free(self.corr2)
        free(self.out)
        free(self.flags)
        free(self.owner)
        free(self.out_b)
        free(self.flags_b)
        free(self.owner_b)
        free(self.left)
        free(self.right)
        free(self.bend)
        free(self.index)
        free(self.ways)
        heap_free(&self.heap)

    def portal(self, int p, int q):
        """The ends (vertex ids, in p's order) of the whole boundary polygons p and q share
        (see ``portal_run``), or None where they share none."""
        cdef int e
        if not (0 <= p < self.n):
            raise IndexError(f"polygon {p} is not in 0..{self.n - 1}")
        for e in range(self.sizes[p]):
            if self.ways[p * self.width + e].to == q:
                return self.ways[p * self.width + e].a, self.ways[p * self.width + e].b
        return None

    def locate_one(self, double x, double y):
        """The polygon holding (x, y), or -1."""
        return locate_in(self.verts, self.polys, self.sizes, self.cell_ptr, self.cell_polys,
                         self.ox, self.oy, self.cell, self.nx, self.ny, NULL, x, y)

    def use_filter(self, const uint8_t[::1] allowed, const double[::1] cost,
                   const uint8_t[::1] link_ok, double h_scale, bint both_ways,
                   const uint8_t[::1] corner=None, exact=None):
        """Set the filter of the queries that follow: allowed polygons (P,), polygon cost
        multipliers (P,), usable directed off-mesh links, the heuristic's scale (at most
        the least usable cost) and whether to search both ways (see the class).  With
        ``corner`` (V,) (1 for a vertex a wall ends at) and ``exact`` (called as
        ``exact(start, goal, partial)`` with the guard held, it returns the exact path), a
        route found both ways that bends at another vertex is answered by ``exact``."""
        if allowed.shape[0] != self.n or cost.shape[0] != self.n \
                or link_ok.shape[0] != self.link_to.shape[0]:
            raise ValueError("the filter's arrays must have one entry per polygon and per "
                             "directed off-mesh link")
        if (corner is None) != (exact is None) \
                or (corner is not None and corner.shape[0] != self.verts.shape[0]):
            raise ValueError("give corner, one entry per vertex, and exact together")
        self.allowed, self.cost, self.link_ok = allowed, cost, link_ok
        self.h_scale, self.both_ways = h_scale, both_ways
        self.corner, self.exact = corner, exact
        self.check = exact is not None and self.link_to.shape[0] == 0

    cdef inline void touch(self, int s) noexcept nogil:
        if self.stamp[s] != self.label:
            self.stamp[s] = self.label
            self.key[s] = INFINITY
            self.closed[s] = 0
            self.pos[s] = -1

    cdef inline int first_slot(self, int s) noexcept nogil:
        """The node whose second slot is s (see :meth:`keep`), or s itself."""
        return s - self.nodes if s >= self.nodes else s

    cdef inline int poly_of(self, int s) noexcept nogil:
        """The polygon node s enters."""
        s = self.first_slot(s)
        if s < self.start_node:
            return (&self.neigh[0, 0])[s]          # neigh[s // width, s % width]
        if s == self.start_node:
            return self.start_poly
        return self.link_to[s - self.start_node - 1]

    cdef Py_ssize_t corridor_of(self, int s) noexcept nogil:
        """Write the corridor ending at node s into corr/cvia; returns its length."""
        cdef Py_ssize_t m = 0, i
        cdef int t = s
        cdef int32_t tmp
        while t >= 0:
            self.corr[m] = self.poly_of(t)
            self.cvia[m] = t - self.start_node - 1 if self.start_node < t < self.nodes else -1
            m += 1
            t = self.parent[t]
        for i in range(m // 2):
            tmp = self.corr[i]
            self.corr[i] = self.corr[m - 1 - i]
            self.corr[m - 1 - i] = tmp
            tmp = self.cvia[i]
            self.cvia[i] = self.cvia[m - 1 - i]
            self.cvia[m - 1 - i] = tmp
        return m

    cdef inline void swap_corners(self) noexcept nogil:
        """Exchange the corner, flag and corner-polygon buffers with the spare ones."""
        cdef double* d = self.out
        cdef uint8_t* f = self.flags
        cdef int32_t* o = self.owner
        self.out, self.flags, self.owner = self.out_b, self.flags_b, self.owner_b
        self.out_b, self.flags_b, self.owner_b = d, f, o

    cdef bint bends_inside(self, Py_ssize_t k) noexcept nogil:
        """Whether the straight path just made (k corners, one stretch: no off-mesh
        links) bends at a vertex that is not a corner (see :meth:`use_filter`)."""
        cdef Py_ssize_t c
        cdef int i, e, p, q
        cdef int32_t v
        cdef const Way* w
        for c in range(1, k - 1):
            i = self.index[c]       # the bend is an end of portal i, corr[i - 1] -> corr[i]
            p = self.corr[i - 1]
            q = self.corr[i]
            w = self.ways + p * self.width
            for e in range(self.sizes[p]):
                if w[e].to == q:
                    break
            v = w[e].b
            if self.verts[v, 0] != self.out[2 * c] or self.verts[v, 1] != self.out[2 * c + 1]:
                v = w[e].a
            if not self.corner[v]:
                return True
        return False

    cdef Py_ssize_t straight(self, Py_ssize_t m, double sx, double sy, double gx, double gy,
                             double* length) noexcept nogil:
        """The straight path through corr[:m] into out/flags/owner and its length (links
        at their cost); returns the number of corners."""
        cdef Py_ssize_t k, i
        cdef double total = 0.0, dx, dy
        k = straight_core(self.verts, self.ways, self.width, self.sizes, self.corr,
                          self.cvia, m, self.link_pts, sx, sy, gx, gy, self.out, self.flags,
                          self.owner, self.left, self.right, self.bend, self.index)
        for i in range(1, k):
            if self.flags[i - 1] & 4:
                continue
            dx = self.out[2 * i] - self.out[2 * i - 2]
            dy = self.out[2 * i + 1] - self.out[2 * i - 1]
            total += sqrt(dx * dx + dy * dy)
        for i in range(m):
            if self.cvia[i] >= 0:
                total += self.link_cost[self.cvia[i]]
        length[0] = total
        return k

    cdef inline double end_cost(self, double ox, double oy, double og, int32_t bound,
                                int32_t end, double c) noexcept nogil:
        """The cost of a taut way from an anchor at (ox, oy), of cost og there, to the
        portal end ``end``, round its wedge's side ``bound`` where that is another vertex."""
        cdef double ex = self.verts[end, 0], ey = self.verts[end, 1], bx, by
        if bound < 0 or bound == end:
            return og + c * sqrt((ex - ox) * (ex - ox) + (ey - oy) * (ey - oy))
        bx = self.verts[bound, 0]
        by = self.verts[bound, 1]
        return og + c * (sqrt((bx - ox) * (bx - ox) + (by - oy) * (by - oy))
                         + sqrt((ex - bx) * (ex - bx) + (ey - by) * (ey - by)))

    cdef inline bint cheaper_at_an_end(self, int t, double ox, double oy, double og,
                                       int32_t nl, int32_t nr, double qx, double qy,
                                       double qg, int32_t ql, int32_t qr,
                                       double c) noexcept nogil:
        """Whether the way from the anchor (ox, oy) (cost og, wedge nl, nr) reaches an end
        of node t's portal at less cost than the way from (qx, qy) (cost qg, wedge ql, qr)."""
        cdef int32_t a = self.ways[t].a, b = self.ways[t].b
        return self.end_cost(ox, oy, og, nr, a, c) < self.end_cost(qx, qy, qg, qr, a, c) \
            or self.end_cost(ox, oy, og, nl, b, c) < self.end_cost(qx, qy, qg, ql, b, c)

    cdef int keep(self, int t, double f, double ox, double oy, double og, int32_t nl,
                  int32_t nr, double c) noexcept nogil:
        """Where a new way (estimate f, anchor and wedge as in ``Point``) into portal node
        t goes: to slot t while that is open and the way's estimate is lower, else to slot
        t + nodes while that is open and of higher estimate.  Only a way from another
        anchor than the one in t goes to t + nodes, and only where it costs less at one of
        the portal's ends (a way of higher estimate there may be the shorter way on, round
        the other end of a wall); the way a new one displaces from t moves there on the
        same terms.  Returns the slot, -1 for none, -2 when out of memory."""
        cdef int u = t + self.nodes
        cdef Point* k = &self.point[t]
        cdef bint other = k.x != ox or k.y != oy
        self.touch(u)
        if not self.closed[t] and f < self.key[t]:
            if other and self.key[t] < self.key[u] and not self.closed[u] \
                    and self.cheaper_at_an_end(t, k.x, k.y, k.g, k.left, k.right,
                                               ox, oy, og, nl, nr, c):
                self.g[u] = self.g[t]
                self.key[u] = self.key[t]
                self.point[u] = self.point[t]
                self.parent[u] = self.parent[t]
                if self.pos[u] >= 0:
                    heap_decrease(&self.heap, self.pos, u, self.key[u], self.g[u])
                elif heap_push(&self.heap, self.pos, self.key[u], self.g[u], u) != 0:
                    return -2
            return t
        if other and not self.closed[u] and f < self.key[u] \
                and self.cheaper_at_an_end(t, ox, oy, og, nl, nr, k.x, k.y, k.g, k.left,
                                           k.right, c):
            return u
        return -1

    cdef int search(self, int start, double sx, double sy, int goal, double gx, double gy,
                    double h_scale, int* expanded, int* generated) noexcept nogil:
        """A* from polygon ``start`` (at sx, sy) to ``goal`` (at gx, gy) over the polygons
        the filter set last allows: moving inside polygon p costs the distance times cost[p];
        crossing a usable (link_ok) off-mesh link l costs link_cost[l]; with ``both_ways``
        a way's cost runs from its anchor (see the class).  Of two ways into a node it
        keeps the one of smaller estimate (into a portal node with ``both_ways``: see
        :meth:`keep`).
        Returns the goal's node, -1 when the goal is not reached, -2 when out of memory."""
        cdef int s, p, q, prev, k, n, e, t
        cdef int32_t a, b, nl, nr, v
        cdef int64_t l
        cdef double nx, ny, step, ng, h, direct, ox, oy, og, vx = 0.0, vy = 0.0
        cdef double pax, pay, pbx, pby, lx = 0.0, ly = 0.0, rx = 0.0, ry = 0.0
        cdef Point at
        cdef HeapItem it
        self.label += 1
        if self.label == 0:
            for k in range(2 * self.nodes + 1):
                self.stamp[k] = 0
            self.label = 1
        self.heap.size = 0
        self.start_poly = start
        expanded[0] = 0
        generated[0] = 1
        s = self.start_node
        self.touch(s)
        self.g[s] = 0.0
        self.point[s].px = self.point[s].x = sx
        self.point[s].py = self.point[s].y = sy
        self.point[s].g = 0.0
        self.point[s].left = self.point[s].right = -1
        self.parent[s] = -1
        direct = sqrt((sx - gx) * (sx - gx) + (sy - gy) * (sy - gy))
        if start == goal:
            self.g[s] = self.cost[start] * direct
            h = 0.0
        else:
            h = h_scale * direct
        if heap_push(&self.heap, self.pos, self.g[s] + h, 0.0, s) != 0:
            return -2
        while self.heap.size > 0:
            it = heap_pop(&self.heap, self.pos)
            s = it.node
            self.closed[s] = 1
            expanded[0] += 1
            p = self.poly_of(s)
            if p == goal:
                return s
            at = self.point[s]
            if at.left >= 0:
                # The wedge's ends as seen from the anchor.
                lx = self.verts[at.left, 0] - at.x
                ly = self.verts[at.left, 1] - at.y
                rx = self.verts[at.right, 0] - at.x
                ry = self.verts[at.right, 1] - at.y
            prev = self.first_slot(s)
            prev = prev // self.width if prev < self.start_node else -1
            n = self.sizes[p]
            for e in range(n + self.link_ptr[p + 1] - self.link_ptr[p]):
                if e < n:
                    t = p * self.width + e
                    q = self.ways[t].to
                    if q < 0 or q == prev or not self.allowed[q]:
                        continue
                    self.touch(t)
                    if self.closed[t]:
                        if not self.both_ways:
                            continue
                        self.touch(t + self.nodes)
                        if self.closed[t + self.nodes]:
                            continue
                    a = self.ways[t].a              # the portal's right end
                    b = self.ways[t].b              # its left end
                    pax = self.verts[a, 0]
                    pay = self.verts[a, 1]
                    pbx = self.verts[b, 0]
                    pby = self.verts[b, 1]
                    ox = at.x
                    oy = at.y
                    og = at.g
                    portal_point(pax, pay, pbx, pby, ox, oy, gx, gy, &nx, &ny)
                    nl = b
                    nr = a
                    if at.left >= 0:
                        # Outside the anchor's wedge the way bends round the wedge's end, the
                        # next anchor.  A wedge side of length 0 (the anchor is that portal
                        # end) bounds nothing and is replaced by the next portal's end.
                        v = -1
                        if cross(rx, ry, nx - ox, ny - oy) < 0.0:
                            vx = rx
                            vy = ry
                            v = at.right
                        elif cross(lx, ly, nx - ox, ny - oy) > 0.0:
                            vx = lx
                            vy = ly
                            v = at.left
                        if v >= 0:
                            og += self.cost[p] * sqrt(vx * vx + vy * vy)
                            ox += vx
                            oy += vy
                            portal_point(pax, pay, pbx, pby, ox, oy, gx, gy, &nx, &ny)
                        else:
                            if cross(lx, ly, pbx - ox, pby - oy) >= 0.0 \
                                    and (lx != 0.0 or ly != 0.0):
                                nl = at.left
                            if cross(rx, ry, pax - ox, pay - oy) <= 0.0 \
                                    and (rx != 0.0 or ry != 0.0):
                                nr = at.right
                    ng = og + self.cost[p] * sqrt((nx - ox) * (nx - ox) + (ny - oy) * (ny - oy))
                    if not self.both_ways:    # costs differ: on from the node's own point
                        ox = nx
                        oy = ny
                        og = ng
                        nl = nr = -1
                else:
                    l = self.link_ptr[p] + e - n
                    q = self.link_to[l]
                    if not self.allowed[q] or not self.link_ok[l]:
                        continue
                    t = self.start_node + 1 + <int> l
                    self.touch(t)
                    if self.closed[t]:
                        continue
                    nx = self.link_pts[l, 2]
                    ny = self.link_pts[l, 3]
                    step = self.cost[p] * sqrt((self.link_pts[l, 0] - at.px)
                                               * (self.link_pts[l, 0] - at.px)
                                               + (self.link_pts[l, 1] - at.py)
                                               * (self.link_pts[l, 1] - at.py)) \
                        + self.link_cost[l]
                    ng = self.g[s] + step
                    ox = nx
                    oy = ny
                    og = ng
                    nl = nr = -1
                if q == goal:
                    # From the anchor straight to the goal, or round the wedge's end.
                    v = -1
                    if nr >= 0 and side(ox, oy, self.verts[nr, 0], self.verts[nr, 1],
                                        gx, gy) < 0.0:
                        v = nr
                    elif nl >= 0 and side(ox, oy, self.verts[nl, 0], self.verts[nl, 1],
                                          gx, gy) > 0.0:
                        v = nl
                    if v >= 0:
                        vx = self.verts[v, 0]
                        vy = self.verts[v, 1]
                        ng = og + self.cost[q] * (
                            sqrt((vx - ox) * (vx - ox) + (vy - oy) * (vy - oy))
                            + sqrt((gx - vx) * (gx - vx) + (gy - vy) * (gy - vy)))
                    elif nl >= 0:
                        ng = og + self.cost[q] * sqrt((gx - ox) * (gx - ox)
                                                      + (gy - oy) * (gy - oy))
                    else:
                        ng += self.cost[q] * sqrt((gx - nx) * (gx - nx) + (gy - ny) * (gy - ny))
                    h = 0.0
                else:
                    h = h_scale * sqrt((gx - nx) * (gx - nx) + (gy - ny) * (gy - ny))
                # Of two ways into one node the one kept has the smaller estimate through
                # it (g plus the heuristic from its own point).  (Keeping the smaller g in
                # the search from the goal instead lost more corridors on random worlds:
                # a way that costs a little less but enters far from the goal's side cuts
                # off the better one.)
                if self.both_ways and t < self.start_node:
                    t = self.keep(t, ng + h, ox, oy, og, nl, nr, self.cost[p])
                    if t == -2:
                        return -2
                    if t < 0:
                        continue
                elif ng + h >= self.key[t]:
                    continue
                self.g[t] = ng
                self.key[t] = ng + h
                self.point[t].px = nx
                self.point[t].py = ny
                self.point[t].x = ox
                self.point[t].y = oy
                self.point[t].g = og
                self.point[t].left = nl
                self.point[t].right = nr
                self.parent[t] = s
                if self.pos[t] >= 0:
                    heap_decrease(&self.heap, self.pos, t, ng + h, ng)
                else:
                    generated[0] += 1
                    if heap_push(&self.heap, self.pos, ng + h, ng, t) != 0:
                        return -2
        return -1

    cdef int nearest_reached(self, double x, double y, double* bx, double* by) noexcept nogil:
        """The polygon nearest (x, y) among those the last search reached (ties: lowest
        id) and the nearest point on it."""
        cdef int s, p, best = -1
        cdef double d, bestd = INFINITY, cx = 0.0, cy = 0.0
        for s in range(2 * self.nodes):
            if self.stamp[s] != self.label or not self.closed[s]:
                continue
            p = self.poly_of(s)
            d = closest_on(self.verts, self.polys, self.sizes, p, x, y, &cx, &cy)
            if d < bestd or (d == bestd and p < best):
                bestd = d
                best = p
                bx[0] = cx
                by[0] = cy
        return best

    cdef Route route(self, double sx, double sy, double gx, double gy,
                     bint partial) noexcept nogil:
        """One whole query: the endpoints' polygons (moved to the nearest allowed polygon
        when off the mesh or on a forbidden one), then :meth:`between` them, in the scratch.
        An end on a pinch vertex lies on every group of polygons that meet there: each
        pair of its groups is searched and the shortest route kept."""
        cdef Route r
        cdef int ps, pg, ns, ng, i, j, best = -1, last = 0
        cdef int32_t sides[2 * PINCH_CAP + 2]
        cdef double bx = 0.0, by = 0.0, shortest = INFINITY
        r.code = 0
        r.expanded = 0
        r.generated = 0
        r.m = 0
        r.k = 0
        r.length = INFINITY
        r.inner = False
        r.snap_s = 0
        r.snap_g = 0
        ps = locate_in(self.verts, self.polys, self.sizes, self.cell_ptr, self.cell_polys,
                       self.ox, self.oy, self.cell, self.nx, self.ny, NULL, sx, sy)
        if ps < 0 or not self.allowed[ps]:
            ps = nearest_point(self.verts, self.polys, self.sizes, self.cell_ptr,
                               self.cell_polys, self.ox, self.oy, self.cell, self.nx, self.ny,
                               self.allowed, sx, sy, &bx, &by)
            sx = bx
            sy = by
            r.snap_s = 1
        pg = locate_in(self.verts, self.polys, self.sizes, self.cell_ptr, self.cell_polys,
                       self.ox, self.oy, self.cell, self.nx, self.ny, NULL, gx, gy)
        if pg < 0 or not self.allowed[pg]:
            pg = nearest_point(self.verts, self.polys, self.sizes, self.cell_ptr,
                               self.cell_polys, self.ox, self.oy, self.cell, self.nx, self.ny,
                               self.allowed, gx, gy, &bx, &by)
            gx = bx
            gy = by
            r.snap_g = 1
        r.sx = sx
        r.sy = sy
        r.gx = gx
        r.gy = gy
        if ps < 0 or pg < 0:
            return r
        sides[0] = ps
        ns = 1 + other_sides(self.verts, self.polys, self.sizes, self.neigh, self.cell_ptr,
                             self.cell_polys, self.ox, self.oy, self.cell, self.nx, self.ny,
                             &self.allowed[0], ps, sx, sy, &sides[1])
        sides[ns] = pg
        ng = 1 + other_sides(self.verts, self.polys, self.sizes, self.neigh, self.cell_ptr,
                             self.cell_polys, self.ox, self.oy, self.cell, self.nx, self.ny,
                             &self.allowed[0], pg, gx, gy, &sides[ns + 1])
        if ns == 1 and ng == 1:
            self.between(&r, ps, pg, partial)
            return r
        for i in range(ns):
            for j in range(ng):
                last = i * ng + j
                self.between(&r, sides[i], sides[ns + j], partial)
                if r.code == -1:
                    return r
                if r.code == 1 and r.length < shortest:
                    shortest = r.length
                    best = last
        if best < 0:    # no side reaches the other: the located polygons' answer
            best = 0
        if best != last:
            self.between(&r, sides[best // ng], sides[ns + best % ng], partial)
        return r

    cdef void between(self, Route* r, int ps, int pg, bint partial) noexcept nogil:
        """The route from polygon ps at r's start to polygon pg at its goal: the search
        (both ways when asked and the mesh has no off-mesh links, which are one-way), the
        partial route when asked and the straight path; adds to r's counts."""
        cdef int node, exp1 = 0, gen1 = 0, exp2 = 0, gen2 = 0
        cdef Py_ssize_t m1, k1, i
        cdef double sx = r.sx, sy = r.sy, gx = r.gx, gy = r.gy, bx = 0.0, by = 0.0, back
        cdef double h_scale = self.h_scale
        cdef bint inner1
        r.code = 0
        r.m = 0
        r.k = 0
        r.length = INFINITY
        r.inner = False
        node = self.search(ps, sx, sy, pg, gx, gy, h_scale, &exp1, &gen1)
        r.expanded += exp1
        r.generated += gen1
        if node == -2:
            r.code = -1
            return
        r.code = 1
        if node == -1:
            if not partial:
                r.code = 0
                return
            pg = self.nearest_reached(gx, gy, &bx, &by)
            node = self.search(ps, sx, sy, pg, bx, by, h_scale, &exp2, &gen2)
            r.expanded += exp2
            r.generated += gen2
            if node < 0:
                r.code = -1
                return
            r.code = 2
            gx = bx
            gy = by
        r.m = self.corridor_of(node)
        r.k = self.straight(r.m, sx, sy, gx, gy, &r.length)
        if r.code == 1 and self.both_ways and self.link_to.shape[0] == 0 and r.k > 2:
            inner1 = self.check and self.bends_inside(r.k)
            m1 = r.m
            memcpy(self.corr2, self.corr, m1 * sizeof(int32_t))
            node = self.search(pg, gx, gy, ps, sx, sy, h_scale, &exp2, &gen2)
            r.expanded += exp2
            r.generated += gen2
            if node == -2:
                r.code = -1
                return
            r.m = self.corridor_of(node)
            for i in range(r.m):
                self.corr2[m1 + i] = self.corr[r.m - 1 - i]
            memcpy(self.corr, self.corr2 + m1, r.m * sizeof(int32_t))
            # The first straight path waits in the spare corner buffers.
            k1 = r.k
            self.swap_corners()
            r.k = self.straight(r.m, sx, sy, gx, gy, &back)
            if back < r.length:
                r.length = back
                r.inner = self.check and self.bends_inside(r.k)
            else:
                r.m = m1
                r.k = k1
                r.inner = inner1
                memcpy(self.corr, self.corr2, m1 * sizeof(int32_t))
                self.swap_corners()
        self.flags[0] |= 1
        self.flags[r.k - 1] |= 2

    def bind(self, Guard guard, path_type, tuple statuses):
        """What :meth:`find_path` needs of its caller: the guard of the query's scratch, the
        type of the paths it returns and the status of each code (0, 1, 2)."""
        self.guard, self.path_type, self.statuses = guard, path_type, statuses

    def find_path(self, start, goal, partial):
        """One path query from ``start`` to ``goal`` under the filter set last, each a tuple
        or list of two finite floats (or ints of at most 2**53) or a (2,) float64 array,
        holding the guard (see :meth:`bind`).  Returns None when another thread holds it,
        ``partial`` is not True or False, or a point is not plain (the caller then checks
        them the slow way); else a path of the bound type with ``path``, ``found``,
        ``cost`` and ``status`` set, and ``_got``: (code, corners, found, length, expanded,
        generated, snapped start, snapped goal, packed, m, seconds), and when code is not 1
        also (sx, sy, gx, gy), the points used (when it is, they are the first and last
        corners): code 0 no route (no corners, infinite length), 1 found, 2 partial (to
        the point nearest the goal that the start reaches); corners (k, 2) float64; packed
        the bytes of k + k + m + links int32: the corner polygons, the corner flags (1
        start, 2 goal, 4 a link's start), the corridor and the off-mesh links taken (their
        ids in the mesh's list); seconds the call's wall time.  A route that bends inside
        the usable region (see the class) gives the exact search's path instead."""
        if partial is not True and partial is not False:
            return None
        if self.guard is None or self.allowed is None:
            raise ValueError("bind the query and set a filter first (bind, use_filter)")
        if not self.guard.take():
            return None
        try:
            got = self.answer(start, goal, partial is True)
        finally:
            self.guard.give()
        if type(got) is not tuple:      # None, or the exact search's path
            return got
        path = (<PyTypeObject*> self.path_type).tp_new(self.path_type, <PyObject*> (), NULL)
        path._got = got
        path.path = got[1]
        path.found = got[2]
        path.cost = got[3]
        path.status = self.statuses[got[0]]
        return path

    cdef answer(self, start, goal, bint partial):
        """:meth:`find_path`'s ``_got``, None when a point is not plain, or the exact
        search's path."""
        cdef double sx, sy, gx, gy
        cdef double t0 = monotonic(), t1
        if not plain_xy(start, &sx, &sy) or not plain_xy(goal, &gx, &gy):
            return None
        cdef Route r
        cdef Py_ssize_t i, nl = 0
        cdef cnp.npy_intp dims[2]
        if self.n > HOLD_GIL_POLYGONS:
            with nogil:
                r = self.route(sx, sy, gx, gy, partial)
        else:
            r = self.route(sx, sy, gx, gy, partial)
        if r.code < 0:
            raise MemoryError()
        if r.inner:
            return self.exact((sx, sy), (gx, gy), partial)
        if r.code == 0:
            r.k = r.m = 0
        dims[0] = r.k
        dims[1] = 2
        corners = cnp.PyArray_EMPTY(2, dims, cnp.NPY_FLOAT64, 0)
        memcpy(cnp.PyArray_DATA(corners), self.out, 2 * r.k * sizeof(double))
        for i in range(r.m):
            if self.cvia[i] >= 0:
                nl += 1
        packed = PyBytes_FromStringAndSize(NULL, (2 * r.k + r.m + nl) * sizeof(int32_t))
        cdef int32_t* pk = <int32_t*> PyBytes_AS_STRING(packed)
        memcpy(pk, self.owner, r.k * sizeof(int32_t))
        pk += r.k
        for i in range(r.k):
            pk[i] = self.flags[i]
        pk += r.k
        memcpy(pk, self.corr, r.m * sizeof(int32_t))
        pk += r.m
        for i in range(r.m):
            if self.cvia[i] >= 0:
                pk[0] = self.link_ref[self.cvia[i]]
                pk += 1
        t1 = monotonic()
        if r.code == 1:
            return (1, corners, True, r.length, r.expanded, r.generated, r.snap_s == 1,
                    r.snap_g == 1, packed, r.m, t1 - t0)
        return (r.code, corners, False, r.length, r.expanded, r.generated, r.snap_s == 1,
                r.snap_g == 1, packed, r.m, t1 - t0, r.sx, r.sy, r.gx, r.gy)

    def find_many(self, starts, goals, bint partial):
        """:meth:`find` for each row of ``starts`` and ``goals``, C-contiguous (n, 2)
        float64 arrays of finite numbers, in one loop without the GIL; None when they are
        not (the caller checks them the slow way).  Returns (codes int8, lengths, expanded
        int64, corridor_ptr int64, corridors int32, corner_ptr int64, corners (k, 2),
        flags uint8)."""
        cdef Py_ssize_t nq, i
        cdef Route r
        cdef int failed = 0
        cdef Buffers buf
        cdef const double* sp
        cdef const double* gp
        if self.allowed is None:
            raise ValueError("set a filter first (use_filter)")
        if not plain_rows(starts) or not plain_rows(goals) \
                or cnp.PyArray_DIM(<cnp.ndarray> starts, 0) \
                != cnp.PyArray_DIM(<cnp.ndarray> goals, 0):
            return None
        nq = cnp.PyArray_DIM(<cnp.ndarray> starts, 0)
        sp = <const double*> cnp.PyArray_DATA(<cnp.ndarray> starts)
        gp = <const double*> cnp.PyArray_DATA(<cnp.ndarray> goals)
        cdef cnp.npy_intp dims[2]
        dims[0] = nq
        codes = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT8, 0)
        lengths = cnp.PyArray_EMPTY(1, dims, cnp.NPY_FLOAT64, 0)
        expanded = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT64, 0)
        dims[0] = nq + 1
        corridor_ptr = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT64, 0)
        corner_ptr = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT64, 0)
        cdef int8_t* cv = <int8_t*> cnp.PyArray_DATA(codes)
        cdef double* lv = <double*> cnp.PyArray_DATA(lengths)
        cdef int64_t* ev = <int64_t*> cnp.PyArray_DATA(expanded)
        cdef int64_t* rp = <int64_t*> cnp.PyArray_DATA(corridor_ptr)
        cdef int64_t* kp = <int64_t*> cnp.PyArray_DATA(corner_ptr)
        rp[0] = kp[0] = 0
        buf.corr = NULL
        buf.corners = NULL
        buf.flags = NULL
        buf.ncorr = buf.ncorners = buf.cap_corr = buf.cap_corners = 0
        try:
            with nogil:
                for i in range(nq):
                    r = self.route(sp[2 * i], sp[2 * i + 1], gp[2 * i], gp[2 * i + 1],
                                   partial)
                    if r.inner:
                        with gil:
                            failed = self.exact_into(&buf, &r, sp + 2 * i, gp + 2 * i,
                                                     partial)
                    elif r.code >= 0:
                        failed = append(&buf, self.corr, r.m, self.out, self.flags, r.k)
                    if r.code < 0 or failed:
                        failed = 1
                        break
                    cv[i] = <int8_t> r.code
                    lv[i] = r.length
                    ev[i] = r.expanded
                    rp[i + 1] = buf.ncorr
                    kp[i + 1] = buf.ncorners
            if failed:
                raise MemoryError()
            dims[0] = buf.ncorr
            corridors = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
            dims[0] = buf.ncorners
            dims[1] = 2
            corners = cnp.PyArray_EMPTY(2, dims, cnp.NPY_FLOAT64, 0)
            flags = cnp.PyArray_EMPTY(1, dims, cnp.NPY_UINT8, 0)
            if buf.ncorr:
                memcpy(cnp.PyArray_DATA(corridors), buf.corr, buf.ncorr * sizeof(int32_t))
            if buf.ncorners:
                memcpy(cnp.PyArray_DATA(corners), buf.corners,
                       2 * buf.ncorners * sizeof(double))
                memcpy(cnp.PyArray_DATA(flags), buf.flags, buf.ncorners * sizeof(uint8_t))
        finally:
            free(buf.corr)
            free(buf.corners)
            free(buf.flags)
        return codes, lengths, expanded, corridor_ptr, corridors, corner_ptr, corners, flags

    cdef int exact_into(self, Buffers* buf, Route* r, const double* s, const double* g,
                        bint partial) except -2:
        """Answer a batch's row exactly (its route bends inside, see the class): append
        the exact search's corridor and corners to buf and give r its code, length and
        count of expanded nodes.  Returns -1 when out of memory."""
        path = self.exact((s[0], s[1]), (g[0], g[1]), partial)
        cdef const double[:, ::1] corners = np.ascontiguousarray(path.path, np.float64)
        cdef const int32_t[::1] corr = np.ascontiguousarray(path.corridor, np.int32)
        cdef const uint8_t[::1] flags = np.ascontiguousarray(path.flags, np.uint8)
        r.code = self.statuses.index(path.status)
        r.length = path.cost
        r.expanded = path.stats.expanded
        if corners.shape[0] == 0 or corr.shape[0] == 0:
            return 0
        return append(buf, &corr[0], corr.shape[0], &corners[0, 0], &flags[0],
                      corners.shape[0])


# ------------------------------------------------------------------------------ funnel
cdef inline int turn(double ax, double ay, double bx, double by, double cx,
                     double cy) noexcept nogil:
    """``orient2d``, with the degenerate cases of two equal points (a funnel's end at its
    apex, a portal end shared by the next portal) answered at once: 0, which the exact
    slow path would also find."""
    if (ax == bx and ay == by) or (bx == cx and by == cy) or (ax == cx and ay == cy):
        return 0
    return orient2d(ax, ay, bx, by, cx, cy)


cdef inline bint edge_on(double ax, double ay, double bx, double by, double cx,
                        double cy) noexcept nogil:
    """Whether a lies on the line through b and c, to within a sine of 1e-9 of the angle
    at c."""
    cdef double px = bx - cx, py = by - cy, qx = ax - cx, qy = ay - cy
    cdef double cross = px * qy - py * qx
    return cross * cross <= 1e-18 * (px * px + py * py) * (qx * qx + qy * qy)


cdef Py_ssize_t funnel_core(const double* left, const double* right, Py_ssize_t n,
                            double* out, int32_t* index) noexcept nogil:
    """String pulling through n portals (x, y interleaved; portal 0 is the start point
    twice, the last the goal twice): writes the corners and the portal each came from;
    returns their number (at most n)."""
    cdef Py_ssize_t i = 1, apex_i = 0, k = 1, side, other
    cdef double ax = left[0], ay = left[1], nx, ny, sign
    cdef double ex[2]                  # the funnel's ends: 0 left, 1 right
    cdef double ey[2]
    cdef Py_ssize_t ei[2]
    cdef const double* ends
    cdef bint moved
    ex[0] = ex[1] = ax
    ey[0] = ey[1] = ay
    ei[0] = ei[1] = 0
    out[0] = ax
    out[1] = ay
    index[0] = 0
    while i < n:
        moved = False
        for side in range(1, -1, -1):             # the right end first, then the left
            other = 1 - side
            sign = 1.0 if side == 1 else -1.0
            ends = right if side == 1 else left
            nx = ends[2 * i]
            ny = ends[2 * i + 1]
            # A side tightens when its new end turns towards the other side (or stays).
            if sign * turn(ax, ay, ex[side], ey[side], nx, ny) < 0:
                continue
            if (ax == ex[side] and ay == ey[side]) \
                    or sign * turn(ax, ay, ex[other], ey[other], nx, ny) < 0:
                ex[side] = nx
                ey[side] = ny
                ei[side] = i
                continue
            # The new end crosses the other side: that side's end is a corner.  When that
            # end is this portal's own and the apex lies on the portal's line (or past it
            # by a rounding of nearly collinear vertices), the portal is seen edge-on: the
            # way goes round the nearer end.  (Seen from well behind, as when the way
            # crosses a line and comes back over it at the next portal, it bends at the
            # other side's end.)
            if ei[other] == i and edge_on(ax, ay, ex[other], ey[other], nx, ny) \
                    and (nx - ax) * (nx - ax) + (ny - ay) * (ny - ay) \
                    < (ex[other] - ax) * (ex[other] - ax) + (ey[other] - ay) * (ey[other] - ay):
                ex[other] = nx
                ey[other] = ny
            ax = ex[other]
            ay = ey[other]
            apex_i = ei[other]
            if out[2 * k - 2] != ax or out[2 * k - 1] != ay:
                out[2 * k] = ax
                out[2 * k + 1] = ay
                index[k] = <int32_t> apex_i
                k += 1
            ex[0] = ex[1] = ax
            ey[0] = ey[1] = ay
            ei[0] = ei[1] = apex_i
            i = apex_i + 1
            moved = True
            break
        if not moved:
            i += 1
    if out[2 * k - 2] != left[2 * n - 2] or out[2 * k - 1] != left[2 * n - 1]:
        out[2 * k] = left[2 * n - 2]
        out[2 * k + 1] = left[2 * n - 1]
        index[k] = <int32_t> (n - 1)
        k += 1
    return k


def funnel(const double[:, ::1] left, const double[:, ::1] right, double[:, ::1] out,
           int32_t[::1] index):
    """String pulling through portals: ``left[i]``/``right[i]`` are the ends of portal i as
    seen walking through the corridor (portal 0 is the start point twice, the last the goal
    twice).  Writes the corners (start, bends, goal) into ``out`` (n + 1 rows) and, per
    corner, the portal it came from; returns their number."""
    cdef Py_ssize_t n = left.shape[0]
    if n < 1 or right.shape[0] != n or out.shape[0] < n + 1 or index.shape[0] < n + 1:
        raise ValueError("funnel needs n >= 1 portals and room for n + 1 corners")
    return funnel_core(&left[0, 0], &right[0, 0], n, &out[0, 0], &index[0])


cdef inline void portal_run(const int32_t[:, ::1] polys, const int32_t[::1] sizes,
                            const int32_t[:, ::1] neigh, int p, int e, int32_t* a,
                            int32_t* b, int* first) noexcept nogil:
    """The portal from polygon p into q = neigh[p, e]: the run of p's edges that border q,
    which holds edge e (two convex polygons share one segment, split into several edges
    where a vertex lies on it): its ends a, b (p's vertices, in p's order) and its first
    edge."""
    cdef int size = sizes[p], lo = e, hi = e, q = neigh[p, e], steps = 1
    while steps < size and neigh[p, (lo + size - 1) % size] == q:
        lo = (lo + size - 1) % size
        steps += 1
    while steps < size and neigh[p, (hi + 1) % size] == q:
        hi = (hi + 1) % size
        steps += 1
    a[0] = polys[p, lo]
    b[0] = polys[p, (hi + 1) % size]
    first[0] = lo


cdef Py_ssize_t straight_core(const double[:, ::1] verts, const Way* ways, int width,
                              const int32_t[::1] sizes, const int32_t* corridor,
                              const int32_t* via, Py_ssize_t m, const double[:, ::1] link_pts,
                              double sx, double sy, double gx, double gy, double* out,
                              uint8_t* flags, int32_t* owner, double* left, double* right,
                              double* bend, int32_t* index) noexcept nogil:
    """The straight path through a corridor of m polygons (and per polygon the off-mesh
    link that entered it or -1), over a mesh's ways (rows of ``width``; see
    ``MeshQuery``): the funnel over each stretch between links.  Writes
    corners (x, y interleaved), their flags (4 at a link's start) and polygons; ``out``
    needs room for 2 m + 2 corners, left/right/bend for m + 2 points, index for m + 2.
    Returns the number of corners."""
    cdef Py_ssize_t first = 0, i, j, e, n, c, k = 0, got
    cdef int p, q
    cdef const Way* w
    cdef double px = sx, py = sy, ex, ey
    for i in range(1, m + 1):
        if i < m and via[i] < 0:
            continue
        # Stretch corridor[first:i] from (px, py) to the link's start (or the goal).
        if i == m:
            ex = gx
            ey = gy
        else:
            ex = link_pts[via[i], 0]
            ey = link_pts[via[i], 1]
        left[0] = px
        left[1] = py
        right[0] = px
        right[1] = py
        n = 1
        for j in range(first, i - 1):
            p = corridor[j]
            q = corridor[j + 1]
            w = ways + p * width
            for e in range(sizes[p]):
                if w[e].to == q:
                    break
            left[2 * n] = verts[w[e].b, 0]
            left[2 * n + 1] = verts[w[e].b, 1]
            right[2 * n] = verts[w[e].a, 0]
            right[2 * n + 1] = verts[w[e].a, 1]
            n += 1
        left[2 * n] = ex
        left[2 * n + 1] = ey
        right[2 * n] = ex
        right[2 * n + 1] = ey
        n += 1
        got = funnel_core(left, right, n, bend, index)
        # After a link the stretch starts at the link's end, already written.
        for c in range(0 if k == 0 else 1, got):
            out[2 * k] = bend[2 * c]
            out[2 * k + 1] = bend[2 * c + 1]
            flags[k] = 0
            # A bend on portal t lies on both polygons; the one entered is given.
            owner[k] = corridor[first + index[c] if index[c] < n - 1 else i - 1]
            k += 1
        if i < m:
            flags[k - 1] = 4
            px = link_pts[via[i], 2]
            py = link_pts[via[i], 3]
            out[2 * k] = px
            out[2 * k + 1] = py
            flags[k] = 0
            owner[k] = corridor[i]
            k += 1
            first = i
    return k
