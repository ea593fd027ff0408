# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Movement planning by animation clips (the search of
:func:`wayfinding.planning.movement.plan_movement`, whose module docstring defines it): the
A* loop over root poses and animation states merged on a lattice, each clip's root path
tested against the walls, the goal region's test and the heuristic.

The arithmetic is that of the Python definitions it stands for, step for step: a clip's
samples and end pose turned into the world as ``local_to_world`` does, lattice keys rounded
half to even as ``round`` does, distances to the goal by ``math.hypot``'s correctly rounded
``hypot``, headings wrapped by ``math.remainder``, the Dubins length by the library's one
compiled definition (``_turning``), a wall met by the orientation signs of
:func:`~wayfinding.geometry.obstacles.segments_cross` (``touching=True``) and a clearance by
:func:`~wayfinding.geometry.obstacles.segment_gaps` (with numpy's ``hypot``, the C
library's).  Ties go as in
:class:`~wayfinding.search.AStarSearch`: the smaller f, then the larger cost so far, then the
state generated first; a state's heuristic is the one of the first pose that reached its
lattice key.

Walls are segments ``(m, 2)`` float64 from ``a`` to ``b`` listed in uniform buckets (as
:func:`~wayfinding.geometry.buckets.box_buckets` lists boxes).  The distance field bounds a
pose's shortest path to the goal point from below: its cell's (a grid's) or polygon's (a
navigation mesh's, with the corners of its lattice square inside that polygon) corners'
shortest paths, asked of a Python callable once per corner (and side, at a pinch), less the
straight line to each corner (the cell or polygon is convex, so that line is a path); the
heuristic takes it once the search has made a given number of expansions."""

import numpy as np

from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport INFINITY, NAN, asin, atan2, cos, fabs, floor, isfinite, remainder, rint, sin
from libc.math cimport hypot as c_hypot
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy
from cython.operator cimport dereference as deref
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

from ._buckets cimport bucket
from ._hypot cimport hypot
from ._navmesh_locate cimport in_polygon, locate_in
from ._open_list cimport OpenItem, open_pop, open_push
from ._predicates cimport orient2d
from ._turning cimport PI, TAU, Dubins, dubins, py_mod, vec_norm

# Search outcomes, as :class:`wayfinding.results.Status` names them.
cdef enum:
    S_FOUND = 0
    S_FAILED = 1
    S_OUT_OF_BUDGET = 2
    S_STOPPED = -1      # the distance callable raised, or a signal handler did
FOUND = S_FOUND
FAILED = S_FAILED
OUT_OF_BUDGET = S_OUT_OF_BUDGET


# ------------------------------------------------------------------------------ walls
cdef inline double cross(double ux, double uy, double vx, double vy) noexcept nogil:
    return ux * vy - uy * vx


cdef inline double point_gap(double vx, double vy, double ax, double ay, double bx,
                             double by) noexcept nogil:
    """The distance from ``v`` to the segment ``a``–``b`` (a point when they coincide), as
    ``closest_on_segments`` works it out (numpy's ``hypot``: the C library's)."""
    cdef double abx = bx - ax, aby = by - ay
    cdef double l2 = abx * abx + aby * aby
    cdef double t = ((vx - ax) * abx + (vy - ay) * aby) / (l2 if l2 > 0 else 1.0)
    if t < 0.0:
        t = 0.0
    elif t > 1.0:
        t = 1.0
    return c_hypot(vx - (ax + t * abx), vy - (ay + t * aby))


cdef inline bint meets(double px, double py, double qx, double qy, double ax, double ay,
                       double bx, double by) noexcept nogil:
    """Whether the segments ``p``–``q`` and ``a``–``b`` meet at all (``segments_cross`` with
    ``touching=True``)."""
    cdef double pqx = qx - px, pqy = qy - py, abx = bx - ax, aby = by - ay
    cdef double o1 = cross(pqx, pqy, ax - px, ay - py), o2 = cross(pqx, pqy, bx - px, by - py)
    cdef double o3 = cross(abx, aby, px - ax, py - ay), o4 = cross(abx, aby, qx - ax, qy - ay)
    return (o1 * o2 <= 0 and o3 * o4 <= 0
            and max(px, qx) >= min(ax, bx) and min(px, qx) <= max(ax, bx)
            and max(py, qy) >= min(ay, by) and min(py, qy) <= max(ay, by))


cdef inline bint farther(double px, double py, double qx, double qy, double ax, double ay,
                         double bx, double by, double radius) noexcept nogil:
    """Whether the segments (which do not meet) are more than ``radius`` apart: the least of
    the four endpoint-to-segment distances (``segment_gaps``)."""
    return (point_gap(px, py, ax, ay, bx, by) > radius
            and point_gap(qx, qy, ax, ay, bx, by) > radius
            and point_gap(ax, ay, px, py, qx, qy) > radius
            and point_gap(bx, by, px, py, qx, qy) > radius)


cdef class Walls:
    """Wall segments from ``a`` to ``b`` (``(m, 2)`` float64 each) and the uniform buckets
    that list them: ``ptr`` (int64) and ``members`` (int32) as
    :func:`~wayfinding.geometry.buckets.box_buckets` returns them for the walls' boxes, with
    its corner ``(ox, oy)``, bucket size ``cell`` and counts ``nx``, ``ny``."""

    cdef const double[:, ::1] a
    cdef const double[:, ::1] b
    cdef const int64_t[::1] ptr
    cdef const int32_t[::1] members
    cdef double ox, oy, cell
    cdef int nx, ny
    cdef vector[int64_t] seen
    cdef int64_t stamp
    cdef vector[int32_t] near

    def __init__(self, const double[:, ::1] a, const double[:, ::1] b,
                 const int64_t[::1] ptr, const int32_t[::1] members, double ox, double oy,
                 double cell, int nx, int ny):
        if a.shape[0] != b.shape[0] or a.shape[1] != 2 or b.shape[1] != 2:
            raise ValueError("a and b must be (m, 2) of one length")
        if ptr.shape[0] != <Py_ssize_t> nx * ny + 1 or not cell > 0:
            raise ValueError("ptr must have nx * ny + 1 entries and cell be > 0")
        self.a, self.b, self.ptr, self.members = a, b, ptr, members
        self.ox, self.oy, self.cell, self.nx, self.ny = ox, oy, cell, nx, ny
        self.seen.assign(a.shape[0], 0)

    cdef bint clear_at(self, const double* p, Py_ssize_t n, double radius) noexcept nogil:
        """Whether the polyline through the ``n`` points ``p`` ``(n, 2)`` stays farther than
        ``radius`` from every wall (with ``radius`` 0: meets none)."""
        cdef double lox = INFINITY, loy = INFINITY, hix = -INFINITY, hiy = -INFINITY
        cdef double ax, ay, bx, by
        cdef Py_ssize_t i, j
        cdef int x0, x1, y0, y1, gx, gy
        cdef int64_t k
        cdef int32_t w
        if self.a.shape[0] == 0:
            return True
        for i in range(n):
            lox = min(lox, p[2 * i])
            hix = max(hix, p[2 * i])
            loy = min(loy, p[2 * i + 1])
            hiy = max(hiy, p[2 * i + 1])
        lox -= radius
        loy -= radius
        hix += radius
        hiy += radius
        x0 = max(bucket(lox - self.ox, self.cell, self.nx), 0)
        x1 = min(bucket(hix - self.ox, self.cell, self.nx), self.nx - 1)
        y0 = max(bucket(loy - self.oy, self.cell, self.ny), 0)
        y1 = min(bucket(hiy - self.oy, self.cell, self.ny), self.ny - 1)
        self.near.clear()
        self.stamp += 1
        for gy in range(y0, y1 + 1):
            for gx in range(x0, x1 + 1):
                k = <int64_t> gy * self.nx + gx
                for j in range(self.ptr[k], self.ptr[k + 1]):
                    w = self.members[j]
                    if self.seen[w] == self.stamp:
                        continue
                    self.seen[w] = self.stamp
                    ax, ay, bx, by = self.a[w, 0], self.a[w, 1], self.b[w, 0], self.b[w, 1]
                    if (max(ax, bx) >= lox and min(ax, bx) <= hix and max(ay, by) >= loy
                            and min(ay, by) <= hiy):
                        self.near.push_back(w)
        if self.near.size() == 0:
            return True
        for i in range(n - 1):
            for w in self.near:
                if meets(p[2 * i], p[2 * i + 1], p[2 * i + 2], p[2 * i + 3], self.a[w, 0],
                         self.a[w, 1], self.b[w, 0], self.b[w, 1]):
                    return False
        if radius == 0.0:
            return True
        for i in range(n - 1):
            for w in self.near:
                if not farther(p[2 * i], p[2 * i + 1], p[2 * i + 2], p[2 * i + 3],
                               self.a[w, 0], self.a[w, 1], self.b[w, 0], self.b[w, 1],
                               radius):
                    return False
        return True

    def clear(self, const double[:, ::1] points, double radius) -> bool:
        """Whether the polyline through ``points`` ``(n, 2)`` float64 (n >= 2) stays farther
        than ``radius`` from every wall (with ``radius`` 0: meets none)."""
        if points.shape[1] != 2 or points.shape[0] < 2:
            raise ValueError("points must be (n, 2) with n >= 2")
        return self.clear_at(&points[0, 0], points.shape[0], radius)


# ------------------------------------------------------------------------------ distance fields
cdef inline double corner_bound(double best, double d, double x, double y, double vx,
                                double vy) noexcept nogil:
    """The larger of ``best`` and the bound at ``(x, y)`` that corner ``(vx, vy)`` gives:
    its value ``d`` less the straight line to it; NaN when ``d`` is (the callable failed)."""
    if d != d:
        return d
    d -= hypot(x - vx, y - vy)
    return d if d > best else best


cdef class Field:
    """A lower bound of the shortest path from a point to the goal point: the largest, over
    its cell's or polygon's corners, of the corner's shortest path (asked of
    ``distance(x, y)`` once per corner) less the straight line to the corner; 0 where it
    knows no cell (the base class); ``failure`` what the callable raised (or the error for
    a NaN it returned).

    At a pinch corner (where the walkable area touches itself at one point) the corner's
    shortest path depends on the side it leaves by, so it is asked from a point ``c`` just
    inside the position's cell or polygon instead, and the corner's value is that path
    less ``|c - corner|`` (the bound of a path that passes by the corner); the value is
    kept per corner and side.  Values are kept in hash maps made as corners are asked: a
    query that never asks one allocates nothing."""

    cdef object distance
    cdef object failure
    cdef unordered_map[int64_t, double] known

    cdef double bound(self, double x, double y) noexcept nogil:
        return 0.0

    cdef double call(self, double x, double y) noexcept:
        """The callable's answer at ``(x, y)``, NaN (with ``failure`` set) when it raised or
        gave NaN."""
        cdef double d
        try:
            d = float(self.distance(x, y))
        except BaseException as e:
            self.failure = e
            return NAN
        if d != d:
            self.failure = ValueError(f"the shortest path from ({x!r}, {y!r}) to the goal "
                                      "is NaN")
        return d

    cdef double ask(self, int64_t key, double x, double y) noexcept nogil:
        """The callable's answer at ``(x, y)``, kept under ``key`` (NaN when it failed)."""
        cdef unordered_map[int64_t, double].iterator it = self.known.find(key)
        cdef double d
        if it != self.known.end():
            return deref(it).second
        with gil:
            d = self.call(x, y)
        if d == d:
            self.known[key] = d
        return d

    cdef double inside(self, int64_t key, double vx, double vy, double cx,
                       double cy) noexcept nogil:
        """The value of corner ``(vx, vy)`` seen from the side of the point ``(cx, cy)``
        (within its convex cell or polygon, not the corner): the callable's answer at
        ``c`` less ``|c - v|``, kept under ``key``."""
        cdef double d = self.ask(key, cx, cy)
        return d - hypot(cx - vx, cy - vy) if d == d else d

    def at(self, double x, double y) -> float:
        """The bound at ``(x, y)`` (0 off the field's cells)."""
        cdef double d = self.bound(x, y)
        if self.failure is not None:
            failure, self.failure = self.failure, None
            raise failure
        return d


cdef class GridField(Field):
    """The field over a grid's cells: ``w`` x ``h`` cells of side ``cs`` from ``(ox, oy)``,
    walkable where ``free`` (``(h, w)`` uint8, ``[y, x]``) is set; ``distance(x, y)`` a
    point's shortest path to the goal point (``inf``: none; ``-inf``: it bounds nothing).
    A grid corner is a pinch where exactly two diagonally opposite cells about it are
    free."""

    cdef const uint8_t[:, ::1] free
    cdef double ox, oy, cs
    cdef int w, h

    def __init__(self, double ox, double oy, double cs, const uint8_t[:, ::1] free,
                 distance: object):
        if not callable(distance) or free.shape[0] < 1 or free.shape[1] < 1 or not cs > 0:
            raise ValueError("distance must be callable, free at least 1 x 1, cs > 0")
        self.ox, self.oy, self.cs, self.free = ox, oy, cs, free
        self.h, self.w = free.shape[0], free.shape[1]
        self.distance = distance

    cdef inline bint open_at(self, int i, int j) noexcept nogil:
        return 0 <= i < self.w and 0 <= j < self.h and self.free[j, i] != 0

    cdef double bound(self, double x, double y) noexcept nogil:
        cdef int cx = bucket(x - self.ox, self.cs, self.w)
        cdef int cy = bucket(y - self.oy, self.cs, self.h)
        cdef int i, j
        cdef int64_t key
        cdef bint sw, se, nw, ne
        cdef double best = 0.0, vx, vy, d, t
        if cx < 0 or cy < 0 or cx >= self.w or cy >= self.h or not self.free[cy, cx]:
            return 0.0
        for j in range(cy, cy + 2):
            for i in range(cx, cx + 2):
                vx = self.ox + i * self.cs
                vy = self.oy + j * self.cs
                key = 2 * (<int64_t> j * (self.w + 1) + i)
                sw, se = self.open_at(i - 1, j - 1), self.open_at(i, j - 1)
                nw, ne = self.open_at(i - 1, j), self.open_at(i, j)
                if (sw and ne and not se and not nw) or (se and nw and not sw and not ne):
                    # A pinch: from just inside this cell, on the diagonal to its centre.
                    t = self.cs * 2.0 ** -20
                    while (vx + t == vx or vy + t == vy) and t < 0.25 * self.cs:
                        t *= 2.0
                    d = self.inside(key + (j == cy), vx, vy,
                                    vx + (t if i == cx else -t), vy + (t if j == cy else -t))
                else:
                    d = self.ask(key, vx, vy)
                best = corner_bound(best, d, x, y, vx, vy)
                if best != best:
                    return best
        return best


cdef class MeshField(Field):
    """The field over a navigation mesh's convex polygons (its vertices, polygons, sizes,
    neighbours and point-location buckets, as its compiled queries take them);
    ``distance(x, y)`` a point's shortest path to the goal point (``inf``: none; ``-inf``:
    it bounds nothing).  A position's corners are its polygon's vertices and the corners of
    its square of a lattice ``spacing`` wide from ``(lx, ly)`` that lie in that polygon (so
    a large polygon bounds no worse than a grid of that spacing).  A vertex is a pinch for
    a polygon when the lowest polygon holding it (where the callable's search starts) is
    not met turning about the vertex from that polygon through shared edges."""

    cdef const double[:, ::1] verts
    cdef const int32_t[:, ::1] polys
    cdef const int32_t[::1] sizes
    cdef const int32_t[:, ::1] neighbours
    cdef const int64_t[::1] cell_ptr
    cdef const int32_t[::1] cell_polys
    cdef double box_x, box_y, box_cell, lx, ly, spacing
    cdef int nx, ny
    cdef int64_t columns
    cdef unordered_map[int64_t, double] corners

    def __init__(self, const double[:, ::1] verts, const int32_t[:, ::1] polys,
                 const int32_t[::1] sizes, const int32_t[:, ::1] neighbours,
                 const int64_t[::1] cell_ptr, const int32_t[::1] cell_polys, double box_x,
                 double box_y, double box_cell, int nx, int ny, distance: object, double lx,
                 double ly, double spacing, int64_t columns):
        if not callable(distance) or not spacing > 0 or columns < 1:
            raise ValueError("distance must be callable, spacing > 0 and columns >= 1")
        if (sizes.shape[0] != polys.shape[0] or neighbours.shape[0] != polys.shape[0]
                or neighbours.shape[1] != polys.shape[1]):
            raise ValueError("polys, sizes and neighbours must have one row per polygon")
        self.verts, self.polys, self.sizes, self.neighbours = verts, polys, sizes, neighbours
        self.cell_ptr, self.cell_polys = cell_ptr, cell_polys
        self.box_x, self.box_y, self.box_cell, self.nx, self.ny = box_x, box_y, box_cell, nx, ny
        self.lx, self.ly, self.spacing, self.columns = lx, ly, spacing, columns
        self.distance = distance

    cdef bint vertex_of(self, int p, double x, double y) noexcept nogil:
        """Whether ``(x, y)`` is a vertex of polygon ``p`` (a corner already counted)."""
        cdef int k
        for k in range(self.sizes[p]):
            if self.verts[self.polys[p, k], 0] == x and self.verts[self.polys[p, k], 1] == y:
                return True
        return False

    cdef int index_of(self, int p, int32_t v) noexcept nogil:
        """Where vertex ``v`` stands in polygon ``p`` (-1: not there)."""
        cdef int k
        for k in range(self.sizes[p]):
            if self.polys[p, k] == v:
                return k
        return -1

    cdef bint fan_has(self, int p, int k, int q) noexcept nogil:
        """Whether polygon ``q`` is met turning about vertex ``k`` of polygon ``p`` either way
        through the edges the polygons share at that vertex."""
        cdef int32_t v = self.polys[p, k]
        cdef int way, cur, kc, nb, e, steps
        if q == p:
            return True
        for way in range(2):
            cur, kc = p, k
            for steps in range(self.polys.shape[0]):
                e = kc if way == 0 else (kc + self.sizes[cur] - 1) % self.sizes[cur]
                nb = self.neighbours[cur, e]
                if nb < 0 or nb == p:
                    break
                if nb == q:
                    return True
                kc = self.index_of(nb, v)
                if kc < 0:
                    break
                cur = nb
        return False

    cdef double vertex(self, int p, int k) noexcept nogil:
        """The value of vertex ``k`` of polygon ``p`` (NaN when the callable failed)."""
        cdef int64_t slot = <int64_t> p * self.polys.shape[1] + k
        cdef unordered_map[int64_t, double].iterator it = self.corners.find(slot)
        cdef int32_t v = self.polys[p, k]
        cdef double vx = self.verts[v, 0], vy = self.verts[v, 1], cx = 0.0, cy = 0.0, t, px, py
        cdef double d
        cdef int q, i, n = self.sizes[p]
        cdef bint inner
        if it != self.corners.end():
            return deref(it).second
        q = locate_in(self.verts, self.polys, self.sizes, self.cell_ptr, self.cell_polys,
                      self.box_x, self.box_y, self.box_cell, self.nx, self.ny, NULL, vx, vy)
        if q >= 0 and self.fan_has(p, k, q):
            d = self.ask(v, vx, vy)
        else:
            # A pinch: from a point strictly inside p on the way to its vertex mean.
            for i in range(n):
                cx += self.verts[self.polys[p, i], 0] / n
                cy += self.verts[self.polys[p, i], 1] / n
            t = 2.0 ** -20
            d = -INFINITY           # a degenerate polygon: the corner bounds nothing
            while t <= 1.0:
                px, py = vx + t * (cx - vx), vy + t * (cy - vy)
                inner = True
                for i in range(n):
                    if orient2d(self.verts[self.polys[p, i], 0], self.verts[self.polys[p, i], 1],
                                self.verts[self.polys[p, (i + 1) % n], 0],
                                self.verts[self.polys[p, (i + 1) % n], 1], px, py) <= 0:
                        inner = False
                        break
                if inner:
                    d = self.inside(self.verts.shape[0] + slot, vx, vy, px, py)
                    break
                t *= 2.0
        if d == d:
            self.corners[slot] = d
        return d

    cdef double bound(self, double x, double y) noexcept nogil:
        cdef int p = locate_in(self.verts, self.polys, self.sizes, self.cell_ptr,
                               self.cell_polys, self.box_x, self.box_y, self.box_cell,
                               self.nx, self.ny, NULL, x, y)
        cdef int k
        cdef int32_t v
        cdef int64_t i, j, ci, cj
        cdef double best = 0.0, d, vx, vy
        if p < 0:
            return 0.0
        for k in range(self.sizes[p]):
            v = self.polys[p, k]
            best = corner_bound(best, self.vertex(p, k), x, y, self.verts[v, 0],
                                self.verts[v, 1])
            if best != best:
                return best
        ci = <int64_t> floor((x - self.lx) / self.spacing)
        cj = <int64_t> floor((y - self.ly) / self.spacing)
        for j in range(cj, cj + 2):
            for i in range(ci, ci + 2):
                vx = self.lx + i * self.spacing
                vy = self.ly + j * self.spacing
                if (not in_polygon(self.verts, self.polys, self.sizes, p, vx, vy)
                        or self.vertex_of(p, vx, vy)):
                    continue
                d = self.ask(-1 - (j * self.columns + i), vx, vy)
                best = corner_bound(best, d, x, y, vx, vy)
                if best != best:
                    return best
        return best


# ------------------------------------------------------------------------------ heuristic
cdef inline double wrap_angle(double a) noexcept nogil:
    """``a`` wrapped into ``(-pi, pi]`` (``wayfinding.geometry.angles.wrap_angle``)."""
    cdef double out = remainder(a, TAU)
    return PI if out == -PI else out


cpdef double least_turn(double h, double dx, double dy, double gh, double tol,
                        double htol) noexcept nogil:
    """A lower bound (radians) of how far the heading of a forward path turns in all (the
    integral of its absolute curvature) from heading ``h`` to a point within ``tol`` of the
    offset ``(dx, dy)`` with a heading within ``htol`` of ``gh``: the turn to the goal
    heading window and, while it turns by less than half a turn in all, by way of the
    direction from start to end (the mean of its headings), which lies between the bearings
    of the goal disc's tangents.  Turning to a direction and on to the window is piecewise
    linear in the direction: least at the ends of the bearings or where it bends upwards
    inside them."""
    cdef double window = max(0.0, fabs(wrap_angle(gh - h)) - htol)
    cdef double dist = hypot(dx, dy), bearing, spread, via, a, t
    cdef double ways[5]
    cdef double cands[3]
    cdef int n = 2, i
    if dist <= tol:
        return window
    bearing = atan2(dy, dx)
    spread = asin(tol / dist)
    ways[0] = bearing - spread
    ways[1] = bearing + spread
    cands[0], cands[1], cands[2] = h, gh - htol, gh + htol
    for i in range(3):
        a = cands[i]
        if fabs(wrap_angle(a - bearing)) <= spread:
            ways[n] = a
            n += 1
    via = INFINITY
    for i in range(n):
        t = fabs(wrap_angle(ways[i] - h)) + max(0.0, fabs(wrap_angle(gh - ways[i])) - htol)
        if t < via:
            via = t
    return max(window, min(PI, via))


# ------------------------------------------------------------------------------ search
cdef inline uint64_t bits(double v) noexcept nogil:
    cdef uint64_t u
    memcpy(&u, &v, 8)
    return u


cdef inline uint64_t mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb3f99e1ab35bULL
    h ^= h >> 33
    return h


cdef class _Query:
    """One query's constants, its lattice keys (an open-addressing table of key slots:
    cost so far, heuristic, closed) and its pushed nodes (pose, animation state, parent
    node, the clip that led there)."""

    cdef Walls walls
    cdef Field field
    cdef double radius, gx, gy, gh, tol, htol, vmax, turning, pr, hr
    cdef int64_t turns, field_after
    cdef bint exact
    cdef const uint8_t[::1] ends
    # the clips: states, root motion, cost, samples (local (x, y) from ptr[c] to ptr[c + 1])
    cdef const int32_t[::1] c_from
    cdef const int32_t[::1] c_to
    cdef const double[::1] c_dx
    cdef const double[::1] c_dy
    cdef const double[::1] c_rot
    cdef const double[::1] c_cost
    cdef const int64_t[::1] s_ptr
    cdef const double[:, ::1] samples
    cdef const int64_t[::1] f_ptr
    cdef const int32_t[::1] follow
    # key slots
    cdef vector[double] kx, ky, sg, sh
    cdef vector[int64_t] kh
    cdef vector[int32_t] kanim
    cdef vector[uint8_t] closed
    cdef vector[int32_t] table
    cdef uint64_t mask
    # nodes
    cdef vector[double] node_x, node_y, node_h
    cdef vector[int32_t] node_anim, node_parent, node_clip, node_slot
    # the outcome
    cdef int64_t expanded, generated, reopened, updated, max_open
    cdef int32_t last
    cdef object failure

    cdef int32_t slot(self, double x, double y, double h, int32_t anim) noexcept nogil:
        """The key slot of the pose (made when new: cost so far inf, heuristic NaN)."""
        cdef double qx = rint(x / self.pr) + 0.0, qy = rint(y / self.pr) + 0.0
        cdef int64_t qh = (<int64_t> rint(py_mod(h, TAU) / self.hr)) % self.turns
        cdef uint64_t at = mix(bits(qx) * 0x9E3779B97F4A7C15ULL ^ bits(qy) * 0xC2B2AE3D27D4EB4FULL
                               ^ (<uint64_t> qh) * 0x165667B19E3779F9ULL ^ <uint64_t> anim)
        cdef int32_t s
        cdef Py_ssize_t i
        while True:
            at &= self.mask
            s = self.table[at]
            if s < 0:
                break
            if (self.kx[s] == qx and self.ky[s] == qy and self.kh[s] == qh
                    and self.kanim[s] == anim):
                return s
            at += 1
        s = self.kx.size()
        self.table[at] = s
        self.kx.push_back(qx)
        self.ky.push_back(qy)
        self.kh.push_back(qh)
        self.kanim.push_back(anim)
        self.sg.push_back(INFINITY)
        self.sh.push_back(NAN)
        self.closed.push_back(0)
        if 2 * self.kx.size() > self.table.size():
            self.table.assign(2 * self.table.size(), -1)
            self.mask = self.table.size() - 1
            for i in range(<Py_ssize_t> self.kx.size()):
                self.rehash(<int32_t> i)
        return s

    cdef void rehash(self, int32_t s) noexcept nogil:
        cdef uint64_t at = mix(bits(self.kx[s]) * 0x9E3779B97F4A7C15ULL
                               ^ bits(self.ky[s]) * 0xC2B2AE3D27D4EB4FULL
                               ^ (<uint64_t> self.kh[s]) * 0x165667B19E3779F9ULL
                               ^ <uint64_t> self.kanim[s])
        while True:
            at &= self.mask
            if self.table[at] < 0:
                self.table[at] = s
                return
            at += 1

    cdef int32_t node(self, double x, double y, double h, int32_t anim, int32_t parent,
                      int32_t clip, int32_t slot) noexcept nogil:
        self.node_x.push_back(x)
        self.node_y.push_back(y)
        self.node_h.push_back(h)
        self.node_anim.push_back(anim)
        self.node_parent.push_back(parent)
        self.node_clip.push_back(clip)
        self.node_slot.push_back(slot)
        return self.node_x.size() - 1

    cdef double heuristic(self, double x, double y, double h) noexcept nogil:
        """The movement module's heuristic (NaN when the field's callable failed)."""
        cdef double bound, d, t
        cdef double dd[2]
        cdef double ee[2]
        cdef Dubins w
        if self.vmax == 0.0:
            return 0.0
        bound = hypot(x - self.gx, y - self.gy)
        if self.expanded >= self.field_after:
            d = self.field.bound(x, y)
            if d != d:
                return d
            if d > bound:
                bound = d
        bound = bound - self.tol
        if self.turning != 0.0:
            t = (1.0 - 1e-9) * self.turning * least_turn(h, self.gx - x, self.gy - y, self.gh,
                                                         self.tol, self.htol)
            bound = max(bound, t)
            if self.exact:
                dd[0], dd[1] = cos(h), sin(h)
                ee[0], ee[1] = cos(self.gh), sin(self.gh)
                d = vec_norm(dd[0], dd[1])
                dd[0], dd[1] = dd[0] / d, dd[1] / d
                d = vec_norm(ee[0], ee[1])
                ee[0], ee[1] = ee[0] / d, ee[1] / d
                dubins(dd[0], dd[1], ee[0], ee[1], self.gx - x, self.gy - y, self.turning, &w)
                if w.word >= 0:
                    bound = max(bound, (1.0 - 1e-9) * w.length)
        return max(0.0, bound) / self.vmax

    cdef bint reached(self, int32_t i) noexcept nogil:
        """Whether node ``i`` lies in the goal region."""
        cdef double seg[4]
        cdef double x = self.node_x[i], y = self.node_y[i]
        if not self.ends[self.node_anim[i]]:
            return False
        if not hypot(x - self.gx, y - self.gy) <= self.tol:
            return False
        if not fabs(wrap_angle(self.node_h[i] - self.gh)) <= self.htol:
            return False
        seg[0], seg[1], seg[2], seg[3] = x, y, self.gx, self.gy
        return self.walls.clear_at(seg, 2, 0.0)

    cdef int run(self, double sx, double sy, double sh, int32_t anim,
                 int64_t limit) noexcept nogil:
        """The search from the start pose: S_FOUND (the plan ends at node ``last``),
        S_FAILED, S_OUT_OF_BUDGET or S_STOPPED."""
        cdef vector[OpenItem] heap
        cdef vector[double] pts
        cdef OpenItem top
        cdef int64_t tie = 0, j, k
        cdef int32_t i, s, v, c, at
        cdef double x, y, h, co, si, lx, ly, ex, ey, eh, ng, hv
        self.table.assign(1024, -1)
        self.mask = 1023
        s = self.slot(sx, sy, sh, anim)
        i = self.node(sx, sy, sh, anim, -1, -1, s)
        self.sg[s] = 0.0
        hv = self.heuristic(sx, sy, sh)
        if hv != hv:
            return S_STOPPED
        self.sh[s] = hv
        self.generated = 1
        self.max_open = 1
        if self.reached(i):
            self.last = i
            return S_FOUND
        open_push(heap, OpenItem(hv, 0.0, tie, i))
        while heap.size():
            top = open_pop(heap)
            i = top.node
            s = self.node_slot[i]
            if self.closed[s] or top.g > self.sg[s]:
                continue
            if self.reached(i):
                self.last = i
                return S_FOUND
            if limit >= 0 and self.expanded >= limit:
                return S_OUT_OF_BUDGET
            self.closed[s] = 1
            self.expanded += 1
            if self.expanded % 4096 == 0 and self.interrupted():
                return S_STOPPED
            x, y, h = self.node_x[i], self.node_y[i], self.node_h[i]
            co = cos(h)
            si = sin(h)
            for k in range(self.f_ptr[self.node_anim[i]], self.f_ptr[self.node_anim[i] + 1]):
                c = self.follow[k]
                pts.clear()
                for j in range(self.s_ptr[c], self.s_ptr[c + 1]):
                    lx = self.samples[j, 0]
                    ly = self.samples[j, 1]
                    pts.push_back(x + co * lx - si * ly)
                    pts.push_back(y + si * lx + co * ly)
                if not self.walls.clear_at(&pts[0], self.s_ptr[c + 1] - self.s_ptr[c],
                                           self.radius):
                    continue
                ex = x + co * self.c_dx[c] - si * self.c_dy[c]
                ey = y + si * self.c_dx[c] + co * self.c_dy[c]
                eh = h + self.c_rot[c]
                ng = self.sg[s] + self.c_cost[c]
                at = self.c_to[c]
                v = self.slot(ex, ey, eh, at)
                if ng >= self.sg[v]:
                    continue
                if self.closed[v]:
                    self.closed[v] = 0
                    self.reopened += 1
                elif isfinite(self.sg[v]):
                    self.updated += 1
                hv = self.sh[v]
                if hv != hv:
                    hv = self.heuristic(ex, ey, eh)
                    if hv != hv:
                        return S_STOPPED
                    self.sh[v] = hv
                self.sg[v] = ng
                j = self.node(ex, ey, eh, at, i, c, v)
                tie += 1
                open_push(heap, OpenItem(ng + hv, ng, tie, <int32_t> j))
                self.generated += 1
            if <int64_t> heap.size() > self.max_open:
                self.max_open = heap.size()
        return S_FAILED

    cdef bint interrupted(self) noexcept nogil:
        """Whether a signal handler raised (the exception kept in ``failure``)."""
        with gil:
            try:
                PyErr_CheckSignals()
            except BaseException as e:
                self.failure = e
                return True
            return False


def plan(Walls walls not None, Field field not None, const int32_t[::1] clip_from,
         const int32_t[::1] clip_to, const double[::1] dx, const double[::1] dy,
         const double[::1] rotation, const double[::1] cost, const int64_t[::1] sample_ptr,
         const double[:, ::1] samples, const int64_t[::1] follow_ptr,
         const int32_t[::1] follow, const uint8_t[::1] ends, const double[::1] start,
         int start_state, const double[::1] goal, *, double tol, double htol, double radius,
         double position_resolution, double heading_resolution, double vmax,
         double turning, bint exact, int64_t field_after, int64_t limit):
    """The cheapest clip sequence from ``start`` (pose ``(3,)`` float64, animation state
    ``start_state``) to the goal region round ``goal`` (pose ``(3,)``): clip ``c`` plays
    from state ``clip_from[c]`` to ``clip_to[c]`` moving the root ``(dx[c], dy[c])`` in its
    frame and turning it by ``rotation[c]``, for ``cost[c]``; its root path's local samples
    are ``samples[sample_ptr[c]:sample_ptr[c + 1]]`` ``(k, 2)``; the clips that may play in
    state ``a`` are ``follow[follow_ptr[a]:follow_ptr[a + 1]]`` in catalogue order; the
    plan may end in the states whose ``ends`` entry is set.  The other options as
    ``plan_movement`` has them (``turning`` the least turning radius, 0 when unbounded;
    ``vmax`` the top mean speed; ``field_after`` the expansions made before the heuristic
    asks ``field`` too; ``limit`` the expansions allowed, < 0: no limit).

    Returns ``(status, poses (n + 1, 3) float64, clips (n,) int32, expanded, generated,
    reopened, updated, max_open)``, status one of ``FOUND``, ``FAILED``, ``OUT_OF_BUDGET``
    (no poses nor clips unless found).  Runs without the GIL but for the field's
    callable."""
    cdef _Query q = _Query()
    cdef int status, a
    cdef int nstates = follow_ptr.shape[0] - 1
    cdef Py_ssize_t c, n = clip_from.shape[0]
    if start.shape[0] != 3 or goal.shape[0] != 3:
        raise ValueError("start and goal must be (3,) poses")
    if (clip_to.shape[0] != n or dx.shape[0] != n or dy.shape[0] != n
            or rotation.shape[0] != n or cost.shape[0] != n or sample_ptr.shape[0] != n + 1
            or samples.shape[1] != 2 or ends.shape[0] != nstates):
        raise ValueError("the clip arrays must have one length per clip")
    for c in range(n):
        if (not 0 <= clip_from[c] < nstates or not 0 <= clip_to[c] < nstates
                or sample_ptr[c + 1] - sample_ptr[c] < 2 or sample_ptr[c + 1] > samples.shape[0]):
            raise ValueError(f"clip {c} has a bad state or fewer than two samples")
    for c in range(follow.shape[0]):
        if not 0 <= follow[c] < n:
            raise ValueError(f"follow[{c}] names no clip")
    for a in range(nstates):
        if not 0 <= follow_ptr[a] <= follow_ptr[a + 1] <= follow.shape[0]:
            raise ValueError("follow_ptr must rise from 0 to the length of follow")
    if sample_ptr[0] != 0:
        raise ValueError("sample_ptr must start at 0")
    if not 0 <= start_state < nstates:
        raise ValueError("start_state names no state")
    if not position_resolution > 0 or not heading_resolution > 0:
        raise ValueError("the resolutions must be > 0")
    q.walls, q.field = walls, field
    q.c_from, q.c_to, q.c_dx, q.c_dy, q.c_rot, q.c_cost = clip_from, clip_to, dx, dy, rotation, cost
    q.s_ptr, q.samples, q.f_ptr, q.follow, q.ends = sample_ptr, samples, follow_ptr, follow, ends
    q.gx, q.gy, q.gh, q.tol, q.htol, q.radius = goal[0], goal[1], goal[2], tol, htol, radius
    q.pr, q.hr = position_resolution, heading_resolution
    q.turns = max(1, <int64_t> rint(TAU / heading_resolution))
    q.vmax, q.turning, q.exact, q.field_after = vmax, turning, exact, field_after
    q.last = -1
    field.failure = None
    with nogil:
        status = q.run(start[0], start[1], start[2], start_state, limit)
    if field.failure is not None:
        failure, field.failure = field.failure, None
        raise failure
    if q.failure is not None:
        raise q.failure
    stats = (q.expanded, q.generated, q.reopened, q.updated, q.max_open)
    if status != S_FOUND:
        return (status, np.empty((0, 3)), np.empty(0, dtype=np.int32), *stats)
    cdef vector[int32_t] chain
    cdef int32_t i = q.last
    while i >= 0:
        chain.push_back(i)
        i = q.node_parent[i]
    m = chain.size()
    poses = np.empty((m, 3))
    clips = np.empty(m - 1, dtype=np.int32)
    cdef double[:, ::1] pv = poses
    cdef int32_t[::1] cv = clips
    for c in range(m):
        i = chain[m - 1 - c]
        pv[c, 0], pv[c, 1], pv[c, 2] = q.node_x[i], q.node_y[i], q.node_h[i]
        if c:
            cv[c - 1] = q.node_clip[i]
    return (S_FOUND, poses, clips, *stats)
