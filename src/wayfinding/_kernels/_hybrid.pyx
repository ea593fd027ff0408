# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Hybrid A* for a car (the search of :func:`wayfinding.vehicles.plan_car_path`, whose
docstring defines it): the expansion loop over the six motion primitives, the car's
rectangle tested along them on a grid or a navigation mesh, the obstacle-free Reeds–Shepp
and Dubins lengths of the heuristic and the analytic expansion (the Reeds–Shepp word, or
the Dubins word when the car may not reverse).

The Reeds–Shepp and Dubins words are those of the library's paths
(:func:`~wayfinding.paths.reeds_shepp_path`, :func:`~wayfinding.paths.turning_path`),
computed by the one compiled definition both share (``_turning``), headings made unit
vectors by its norm as those functions make them; the samples along a move are those of
:meth:`~wayfinding.paths.ReedsSheppPath.poses`.  The search holds no Python object but a
navigation mesh's distance callable, for which it takes the GIL back.

Poses are ``(x, y, heading)`` float64, heading in radians counter-clockwise from +x; a
car's rectangle is centred on its pose, ``a`` the half length and ``b`` the half width
(already grown by the sampling slack)."""

import numpy as np

from cpython.exc cimport PyErr_CheckSignals
from cython.operator cimport dereference as deref
from libc.math cimport INFINITY, NAN, ceil, cos, fabs, floor, isfinite, sin, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

from ._navmesh_locate cimport locate_in
from ._open_list cimport OpenItem, open_pop, open_push
from ._turning cimport PI, TAU, Dubins, Word, dubins, dubins_parts, py_mod, reeds_shepp, vec_norm

#: Poses tested together against the walls near all of them.
cdef Py_ssize_t CHUNK = 48
#: A search key holds cell coordinates in [-KEY_RANGE, KEY_RANGE) on each axis.
KEY_RANGE = 1 << 23

# Search outcomes, as :class:`wayfinding.results.Status` names them.
cdef enum:
    S_FOUND = 0
    S_FAILED = 1
    S_OUT_OF_BUDGET = 2
    S_STOPPED = -1      # a Python distance raised, or a signal handler did
FOUND = S_FOUND
FAILED = S_FAILED
OUT_OF_BUDGET = S_OUT_OF_BUDGET


# ------------------------------------------------------------------------------ free lengths
cdef inline void unit(double c, double s, double* u) noexcept nogil:
    """The direction ``(c, s)`` divided by its norm."""
    cdef double n = vec_norm(c, s)
    u[0] = c / n
    u[1] = s / n


cdef double reeds_shepp_poses(double px, double py, double th, double qx, double qy,
                              double gth, double radius, Word* best) noexcept nogil:
    """The shortest Reeds–Shepp word from the pose to the goal pose (headings in radians)
    and its length in world units; the word's lengths stay in radii."""
    cdef double d[2]
    cdef double e[2]
    unit(cos(th), sin(th), d)
    unit(cos(gth), sin(gth), e)
    return reeds_shepp(d[0], d[1], e[0], e[1], qx - px, qy - py, radius, best)


cdef double dubins_poses(double px, double py, double th, double qx, double qy, double gth,
                         double r, Dubins* best) noexcept nogil:
    """The shortest forward (Dubins) word from the pose to the goal pose (headings in
    radians) and its length."""
    cdef double d[2]
    cdef double e[2]
    unit(cos(th), sin(th), d)
    unit(cos(gth), sin(gth), e)
    dubins(d[0], d[1], e[0], e[1], qx - px, qy - py, r, best)
    return best.length


# ------------------------------------------------------------------------------ driving
cdef Py_ssize_t drive(double x, double y, double th, double kappa, double span, double step,
                      vector[double]& out, vector[double]& trig) noexcept nogil:
    """Append the samples ``(k, 3)`` (flat) after ``(x, y, th)`` driving ``span`` (signed)
    with curvature ``kappa`` to ``out`` and the cosine and sine of their headings ``(k,
    2)`` to ``trig``, ``k`` the fewest at most ``step`` apart (at least one); return
    ``k``.  An arc's chord is ``2 sin(kappa s / 2) / kappa`` along the mean heading, exact
    to rounding however large the radius."""
    cdef Py_ssize_t k = <Py_ssize_t> ceil(fabs(span) / step), i
    cdef double s, t, c, sn, ct, st, half, chord
    if k < 1:
        k = 1
    c = cos(th)
    sn = sin(th)
    if kappa == 0:
        for i in range(1, k + 1):
            s = span * i / k
            out.push_back(x + s * c)
            out.push_back(y + s * sn)
            out.push_back(th)
            trig.push_back(c)
            trig.push_back(sn)
    else:
        for i in range(1, k + 1):
            s = span * i / k
            half = kappa * s / 2
            chord = 2 * sin(half) / kappa
            t = th + kappa * s
            ct = cos(t)
            st = sin(t)
            out.push_back(x + chord * cos(th + half))
            out.push_back(y + chord * sin(th + half))
            out.push_back(t)
            trig.push_back(ct)
            trig.push_back(st)
    return k


# ------------------------------------------------------------------------------ bodies
cdef class Body:
    """The car's rectangle on a world: ``a``, ``b`` the grown half length and half width,
    ``step`` the sampling step along moves (world units); ``reach`` the longest move that
    may stay on the world, pi times the diagonal of its bounding box (a straight segment
    or an arc of at most a whole turn any longer leaves it); ``aimed`` once it has the
    holonomic distances to a goal, ``failure`` what a Python distance raised."""

    cdef double a, b, step, reach
    cdef bint aimed
    cdef object failure

    cdef bint clear_at(self, const double* poses, const double* trig,
                       Py_ssize_t n) noexcept nogil:
        """Whether the grown rectangle at each of the ``n`` poses ``(n, 3)`` is clear,
        ``trig`` ``(n, 2)`` the cosine and sine of their headings."""
        return False

    cdef double holonomic(self, double x, double y) noexcept nogil:
        """The holonomic distance to the goal; NaN when it failed (see ``failure``)."""
        return INFINITY

    def clear(self, const double[:, ::1] poses) -> bool:
        """Whether the grown rectangle at every pose of ``poses`` ``(n, 3)`` float64 is
        clear."""
        if poses.shape[1] != 3:
            raise ValueError(f"poses {poses.shape[0]} x {poses.shape[1]} must be (n, 3)")
        cdef vector[double] trig
        cdef Py_ssize_t i
        if not poses.shape[0]:
            return True
        for i in range(poses.shape[0]):
            trig.push_back(cos(poses[i, 2]))
            trig.push_back(sin(poses[i, 2]))
        return self.clear_at(&poses[0, 0], &trig[0], poses.shape[0])


cdef class GridBody(Body):
    """The car on a grid: ``blocked`` ``(h, w)`` uint8 (1 blocked), ``near`` ``(h, w)``
    uint8 (1 where a blocked cell or the map's edge may touch a rectangle centred in the
    cell), the grid's origin ``(ox, oy)`` and cell size ``cs``; :meth:`aim` gives the
    holonomic distances."""

    cdef const uint8_t[:, ::1] blocked
    cdef const uint8_t[:, ::1] near
    cdef const double[:, ::1] distances
    cdef double ox, oy, cs, hx, hy
    cdef int w, h

    def __init__(self, const uint8_t[:, ::1] blocked, const uint8_t[:, ::1] near, double ox,
                 double oy, double cs, double a, double b, double step):
        self.blocked, self.near = blocked, near
        self.h, self.w = blocked.shape[0], blocked.shape[1]
        if near.shape[0] != self.h or near.shape[1] != self.w:
            raise ValueError("blocked and near must have one shape")
        self.ox, self.oy, self.cs = ox, oy, cs
        self.hx = ox + cs * self.w
        self.hy = oy + cs * self.h
        self.a, self.b, self.step = a, b, step
        self.reach = PI * cs * sqrt(<double> self.w * self.w + <double> self.h * self.h)

    def aim(self, const double[:, ::1] distances) -> None:
        """Take ``distances`` ``(h, w)`` float64, each cell's holonomic distance to the
        goal (``inf`` where it cannot reach it)."""
        if distances.shape[0] != self.h or distances.shape[1] != self.w:
            raise ValueError("distances must have the grid's shape")
        self.distances = distances
        self.aimed = True

    cdef double holonomic(self, double x, double y) noexcept nogil:
        cdef Py_ssize_t cx = <Py_ssize_t> floor((x - self.ox) / self.cs)
        cdef Py_ssize_t cy = <Py_ssize_t> floor((y - self.oy) / self.cs)
        return self.distances[cy, cx]

    cdef bint clear_at(self, const double* p, const double* trig,
                       Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i, cx, cy, x0, x1, y0, y1, gx, gy
        cdef double x, y, c, s, ex, ey, half = self.cs / 2, spread, dx, dy
        cdef double a = self.a, b = self.b
        for i in range(n):
            cx = <Py_ssize_t> floor((p[3 * i] - self.ox) / self.cs)
            cy = <Py_ssize_t> floor((p[3 * i + 1] - self.oy) / self.cs)
            if cx < 0 or cy < 0 or cx >= self.w or cy >= self.h:
                return False
        for i in range(n):
            x = p[3 * i]
            y = p[3 * i + 1]
            cx = <Py_ssize_t> floor((x - self.ox) / self.cs)
            cy = <Py_ssize_t> floor((y - self.oy) / self.cs)
            if not self.near[cy, cx]:
                continue
            c = trig[2 * i]
            s = trig[2 * i + 1]
            ex = fabs(a * c) + fabs(b * s)
            ey = fabs(a * s) + fabs(b * c)
            if x - ex < self.ox or y - ey < self.oy or x + ex > self.hx or y + ey > self.hy:
                return False
            x0 = <Py_ssize_t> floor((x - ex - self.ox) / self.cs)
            x1 = <Py_ssize_t> floor((x + ex - self.ox) / self.cs)
            y0 = <Py_ssize_t> floor((y - ey - self.oy) / self.cs)
            y1 = <Py_ssize_t> floor((y + ey - self.oy) / self.cs)
            if x1 >= self.w:
                x1 = self.w - 1
            if y1 >= self.h:
                y1 = self.h - 1
            spread = half * (fabs(c) + fabs(s))
            for gy in range(y0, y1 + 1):
                for gx in range(x0, x1 + 1):
                    if not self.blocked[gy, gx]:
                        continue
                    dx = (self.ox + (gx + 0.5) * self.cs) - x
                    dy = (self.oy + (gy + 0.5) * self.cs) - y
                    if (fabs(dx) < half + ex and fabs(dy) < half + ey
                            and fabs(dx * c + dy * s) < a + spread
                            and fabs(dy * c - dx * s) < b + spread):
                        return False
        return True


cdef class MeshBody(Body):
    """The car on a navigation mesh: the mesh's polygons and point-location buckets (as its
    compiled point queries take them), its walls from ``wall_a`` to ``wall_b`` ``(m, 2)``
    float64 with unit normals ``normals`` ``(m, 2)``; :meth:`aim` gives the holonomic
    distance."""

    cdef const double[:, ::1] verts
    cdef const int32_t[:, ::1] polys
    cdef const int32_t[::1] sizes
    cdef const int64_t[::1] cell_ptr
    cdef const int32_t[::1] cell_polys
    cdef double box_x, box_y, box_cell
    cdef int nx, ny
    cdef const double[:, ::1] wall_a
    cdef const double[:, ::1] wall_b
    cdef const double[:, ::1] normals
    cdef object distance
    cdef vector[int32_t] near

    def __init__(self, const double[:, ::1] verts, const int32_t[:, ::1] polys,
                 const int32_t[::1] sizes, const int64_t[::1] cell_ptr,
                 const int32_t[::1] cell_polys, double box_x, double box_y, double box_cell,
                 int nx, int ny, const double[:, ::1] wall_a, const double[:, ::1] wall_b,
                 const double[:, ::1] normals, double a, double b, double step):
        if (wall_b.shape[0] != wall_a.shape[0] or normals.shape[0] != wall_a.shape[0]
                or wall_a.shape[1] != 2 or wall_b.shape[1] != 2 or normals.shape[1] != 2):
            raise ValueError("wall_a, wall_b and normals must be (m, 2) of one length")
        self.verts, self.polys, self.sizes = verts, polys, sizes
        self.cell_ptr, self.cell_polys = cell_ptr, cell_polys
        self.box_x, self.box_y, self.box_cell, self.nx, self.ny = box_x, box_y, box_cell, nx, ny
        self.wall_a, self.wall_b, self.normals = wall_a, wall_b, normals
        self.a, self.b, self.step = a, b, step
        self.reach = 0.0
        if verts.shape[0]:
            lo = np.min(verts, axis=0)
            hi = np.max(verts, axis=0)
            self.reach = PI * float(np.hypot(hi[0] - lo[0], hi[1] - lo[1]))

    def aim(self, distance: object) -> None:
        """Take ``distance``, a callable ``(x, y) -> float``: a point's holonomic distance
        to the goal (``inf`` where it cannot reach it)."""
        if not callable(distance):
            raise ValueError("distance must be callable")
        self.distance = distance
        self.aimed = True

    cdef double holonomic(self, double x, double y) noexcept nogil:
        with gil:
            return self.call(x, y)

    cdef double call(self, double x, double y) noexcept:
        try:
            return float(self.distance(x, y))
        except BaseException as e:
            self.failure = e
            return NAN

    cdef bint clear_at(self, const double* p, const double* trig,
                       Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i, lo_i, hi_i, j, m = self.wall_a.shape[0]
        cdef double x, y, c, s, ex, ey, lox, loy, hix, hiy, ax, ay, bx, by, n0, n1, ta, tb
        cdef double a = self.a, b = self.b
        cdef int32_t w
        for i in range(n):
            if locate_in(self.verts, self.polys, self.sizes, self.cell_ptr, self.cell_polys,
                         self.box_x, self.box_y, self.box_cell, self.nx, self.ny, NULL,
                         p[3 * i], p[3 * i + 1]) < 0:
                return False
        lo_i = 0
        while lo_i < n:
            hi_i = min(lo_i + CHUNK, n)
            lox = loy = INFINITY
            hix = hiy = -INFINITY
            for i in range(lo_i, hi_i):
                c = trig[2 * i]
                s = trig[2 * i + 1]
                ex = fabs(a * c) + fabs(b * s)
                ey = fabs(a * s) + fabs(b * c)
                lox = min(lox, p[3 * i] - ex)
                loy = min(loy, p[3 * i + 1] - ey)
                hix = max(hix, p[3 * i] + ex)
                hiy = max(hiy, p[3 * i + 1] + ey)
            self.near.clear()
            for j in range(m):
                ax, ay = self.wall_a[j, 0], self.wall_a[j, 1]
                bx, by = self.wall_b[j, 0], self.wall_b[j, 1]
                if (max(ax, bx) > lox and max(ay, by) > loy and min(ax, bx) < hix
                        and min(ay, by) < hiy):
                    self.near.push_back(<int32_t> j)
            for i in range(lo_i, hi_i):
                x = p[3 * i]
                y = p[3 * i + 1]
                c = trig[2 * i]
                s = trig[2 * i + 1]
                for w in self.near:
                    ax, ay = self.wall_a[w, 0], self.wall_a[w, 1]
                    bx, by = self.wall_b[w, 0], self.wall_b[w, 1]
                    ta = (ax - x) * c + (ay - y) * s
                    tb = (bx - x) * c + (by - y) * s
                    if min(ta, tb) >= a or max(ta, tb) <= -a:
                        continue
                    ta = (ax - x) * -s + (ay - y) * c
                    tb = (bx - x) * -s + (by - y) * c
                    if min(ta, tb) >= b or max(ta, tb) <= -b:
                        continue
                    n0, n1 = self.normals[w, 0], self.normals[w, 1]
                    if fabs((x - ax) * n0 + (y - ay) * n1) >= (
                            a * fabs(c * n0 + s * n1) + b * fabs(c * n1 - s * n0)):
                        continue
                    return False
            lo_i = hi_i
        return True


# ------------------------------------------------------------------------------ search
cdef class _Query:
    """One query's constants and node arrays (per node: pose, cost so far, parent, the
    steering and signed length of the primitive that reached it)."""

    cdef Body body
    cdef double gx, gy, gth, radius, back_cost, cell
    cdef bint reverse
    cdef int bins
    cdef vector[double] px, py, pth, g, spans
    cdef vector[int32_t] parent
    cdef vector[int8_t] steer
    # the outcome: counters, the node the analytic expansion left from and its samples,
    # signed segment lengths and sample counts; what interrupted the search
    cdef int64_t expanded, generated, max_open
    cdef int32_t last
    cdef vector[double] tail, tail_trig, tail_spans
    cdef vector[Py_ssize_t] tail_counts
    cdef object failure

    cdef uint64_t key(self, double x, double y, double th) noexcept nogil:
        """The pose's search cell and heading bin, packed."""
        cdef int64_t ix = <int64_t> floor(x / self.cell), iy = <int64_t> floor(y / self.cell)
        cdef int64_t hb = (<int64_t> (py_mod(th, TAU) / TAU * self.bins)) % self.bins
        return ((<uint64_t> ix & 0xFFFFFF) << 40) | ((<uint64_t> iy & 0xFFFFFF) << 16) \
            | <uint64_t> hb

    cdef double free_length(self, double x, double y, double th) noexcept nogil:
        """The obstacle-free Reeds–Shepp (or Dubins) length from the pose to the goal."""
        cdef Word w
        cdef Dubins b
        if self.reverse:
            return reeds_shepp_poses(x, y, th, self.gx, self.gy, self.gth, self.radius, &w)
        return dubins_poses(x, y, th, self.gx, self.gy, self.gth, self.radius, &b)

    cdef double heuristic(self, double x, double y, double th, double holo) noexcept nogil:
        """The larger of the obstacle-free length and ``holo``, the pose's holonomic
        distance (NaN, when that failed, passes through)."""
        cdef double free
        if holo != holo:
            return holo
        free = self.free_length(x, y, th)
        return free if free > holo else holo

    cdef bint reaches(self, double x, double y, double th, const int* steer,
                      const double* lengths, int n) noexcept nogil:
        """Whether the word of ``n`` segments (``steer``, signed ``lengths``) from the pose
        ends at the goal, as :meth:`expansion` requires."""
        cdef double kappa, half, chord, length = 0.0
        cdef double tolerance = self.cell + fabs(self.gx) + fabs(self.gy)
        cdef int i
        for i in range(n):
            kappa = steer[i] / self.radius
            if kappa == 0:
                x += lengths[i] * cos(th)
                y += lengths[i] * sin(th)
            else:
                half = kappa * lengths[i] / 2
                chord = 2 * sin(half) / kappa
                x += chord * cos(th + half)
                y += chord * sin(th + half)
                th += kappa * lengths[i]
            length += fabs(lengths[i])
        tolerance = 1e-9 * (tolerance + length)
        return (vec_norm(x - self.gx, y - self.gy) <= tolerance
                and fabs(py_mod(th - self.gth + PI, TAU) - PI) <= 1e-9)

    cdef bint expansion(self, double x, double y, double th, vector[double]& out,
                        vector[double]& trig, vector[double]& spans,
                        vector[Py_ssize_t]& counts) noexcept nogil:
        """The analytic expansion from the pose, the shortest Reeds–Shepp word to the goal
        (forward only, the shortest Dubins word): append its samples, its non-empty
        segments' signed lengths and their sample counts, and say whether the car stays
        clear along it and it ends at the goal: within 1e-9 of its length, the search's
        cell and the goal's coordinates, and 1e-9 radians (a radius so large beside the
        distance to the goal that the goal is lost to rounding in the word's arithmetic
        gives a word that misses it)."""
        cdef Word w
        cdef Dubins b
        cdef int i, n
        cdef int steer[5]
        cdef double lengths[5]
        cdef Py_ssize_t at, k
        cdef double s
        if self.reverse:
            reeds_shepp_poses(x, y, th, self.gx, self.gy, self.gth, self.radius, &w)
            n = w.n
            for i in range(n):
                steer[i] = w.steer[i]
                lengths[i] = self.radius * w.t[i]
        else:
            dubins_poses(x, y, th, self.gx, self.gy, self.gth, self.radius, &b)
            if b.word < 0:
                return False
            n = 3
            dubins_parts(&b, self.radius, steer, lengths)
        if not self.reaches(x, y, th, steer, lengths, n):
            return False
        for i in range(n):
            s = lengths[i]
            if s == 0:
                continue
            if fabs(s) > self.body.reach:
                return False
            at = out.size() // 3
            k = drive(x, y, th, steer[i] / self.radius, s, self.body.step, out, trig)
            if not self.body.clear_at(&out[3 * at], &trig[2 * at], k):
                return False
            spans.push_back(s)
            counts.push_back(k)
            x = out[out.size() - 3]
            y = out[out.size() - 2]
            th = out[out.size() - 1]
        return True

    cdef int run(self, double sx, double sy, double sth, int every,
                 int64_t limit) noexcept nogil:
        """The search from the start pose: S_FOUND (the path ends at node ``last`` and
        the tail), S_FAILED, S_OUT_OF_BUDGET or S_STOPPED."""
        cdef vector[OpenItem] heap
        cdef unordered_map[uint64_t, int32_t] best
        cdef unordered_map[uint64_t, int32_t].iterator found
        cdef vector[uint8_t] closed
        cdef vector[double] part, part_trig
        cdef OpenItem top
        cdef int64_t tie = 1
        cdef uint64_t k2
        cdef int32_t i, j
        cdef int st, gear
        cdef Py_ssize_t k
        cdef double x, y, th, span, weight, gnew, h, ex, ey, eth, step = self.body.step
        cdef double diagonal = self.cell * sqrt(2.0)
        h = self.body.holonomic(sx, sy)
        if h != h:
            return S_STOPPED
        if not isfinite(h):
            return S_FAILED
        self.add(sx, sy, sth, 0.0, -1, 0.0, 0)
        closed.push_back(0)
        best[self.key(sx, sy, sth)] = 0
        # Items carry g = 0: equal f pops the first pushed, whatever the cost so far.
        open_push(heap, OpenItem(self.heuristic(sx, sy, sth, h), 0.0, 0, 0))
        self.generated = 1
        while heap.size():
            if <int64_t> heap.size() > self.max_open:
                self.max_open = heap.size()
            top = open_pop(heap)
            i = top.node
            x, y, th = self.px[i], self.py[i], self.pth[i]
            if best[self.key(x, y, th)] != i:
                continue
            if limit >= 0 and self.expanded >= limit:
                return S_OUT_OF_BUDGET
            closed[i] = 1
            self.expanded += 1
            if (self.expanded - 1) % every == 0:
                self.tail.clear()
                self.tail_trig.clear()
                self.tail_spans.clear()
                self.tail_counts.clear()
                if self.expansion(x, y, th, self.tail, self.tail_trig, self.tail_spans,
                                  self.tail_counts):
                    self.last = i
                    return S_FOUND
            if self.expanded % 4096 == 0 and self.interrupted():
                return S_STOPPED
            for gear in range(1, -2 if self.reverse else 0, -2):
                if diagonal > self.body.reach:     # every primitive leaves the world
                    break
                span = diagonal * gear
                weight = fabs(span) * (self.back_cost if span < 0 else 1.0)
                for st in range(1, -2, -1):
                    part.clear()
                    part_trig.clear()
                    k = drive(x, y, th, st / self.radius, span, step, part, part_trig)
                    if not self.body.clear_at(&part[0], &part_trig[0], k):
                        continue
                    ex, ey, eth = part[3 * k - 3], part[3 * k - 2], part[3 * k - 1]
                    k2 = self.key(ex, ey, eth)
                    found = best.find(k2)
                    if found != best.end() and closed[deref(found).second]:
                        continue
                    gnew = self.g[i] + weight
                    if found != best.end() and self.g[deref(found).second] <= gnew:
                        continue
                    h = self.heuristic(ex, ey, eth, self.body.holonomic(ex, ey))
                    if h != h:
                        return S_STOPPED
                    if not isfinite(h):
                        continue
                    j = self.px.size()
                    self.add(ex, ey, eth, gnew, i, span, <int8_t> st)
                    closed.push_back(0)
                    best[k2] = j
                    open_push(heap, OpenItem(gnew + h, 0.0, tie, j))
                    tie += 1
                    self.generated += 1
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

    cdef void add(self, double x, double y, double th, double g, int32_t parent, double span,
                  int8_t steer) noexcept nogil:
        self.px.push_back(x)
        self.py.push_back(y)
        self.pth.push_back(th)
        self.g.push_back(g)
        self.parent.push_back(parent)
        self.spans.push_back(span)
        self.steer.push_back(steer)


def plan(Body body, const double[::1] start, const double[::1] goal, *, double radius,
         bint reverse, double back_cost, double cell, int bins, int every, int64_t limit):
    """Hybrid A* from ``start`` to ``goal`` (poses ``(3,)`` float64) for the car ``body``
    (aimed at ``goal``) on its world: ``radius`` the turning radius, ``reverse`` whether it
    may back up at ``back_cost`` per unit, ``cell`` the search cells' side, ``bins`` the
    heading bins, ``every`` the analytic expansion's period, ``limit`` the expansions
    allowed (< 0: no limit).  Returns ``(status, poses (n, 3) float64, gears (n,) int8,
    length, cost, expanded, generated, max_open)``, status one of ``FOUND``, ``FAILED``,
    ``OUT_OF_BUDGET``; a search that finds no path returns empty arrays and infinite length
    and cost.  Open nodes pop by f, ties to the first pushed.  Runs without the GIL but for
    a mesh body's Python distance."""
    cdef _Query q = _Query()
    cdef int status
    if start.shape[0] != 3 or goal.shape[0] != 3:
        raise ValueError("start and goal must be (3,) poses")
    if not body.aimed:
        raise ValueError("the body has no holonomic distances: aim it first")
    if every < 1 or bins < 1 or not cell > 0 or not radius > 0:
        raise ValueError("every and bins must be >= 1, cell and radius > 0")
    q.body = body
    q.gx, q.gy, q.gth = goal[0], goal[1], goal[2]
    q.radius, q.reverse, q.back_cost, q.cell, q.bins = radius, reverse, back_cost, cell, bins
    body.failure = None
    with nogil:
        status = q.run(start[0], start[1], start[2], every, limit)
    if body.failure is not None:
        raise body.failure
    if q.failure is not None:
        raise q.failure
    if status != S_FOUND:
        return (status, np.empty((0, 3)), np.empty(0, dtype=np.int8), INFINITY, INFINITY,
                q.expanded, q.generated, q.max_open)
    return _found(q)


cdef tuple _found(_Query q):
    """The record of the path to node ``q.last`` followed by the analytic expansion: the
    primitives re-driven from each parent's pose (the same samples as in the search)."""
    cdef vector[int32_t] chain
    cdef vector[double] samples, trig
    cdef vector[int8_t] gears
    cdef Py_ssize_t k, m, n
    cdef int32_t node, par
    cdef double length = 0.0, cost = 0.0, s
    cdef int8_t gear
    cdef double[:, ::1] pv
    cdef int8_t[::1] gv
    cdef int32_t i = q.last
    while i >= 0:
        chain.push_back(i)
        i = q.parent[i]
    node = chain.back()
    samples.push_back(q.px[node])
    samples.push_back(q.py[node])
    samples.push_back(q.pth[node])
    gears.push_back(0)
    for k in range(<Py_ssize_t> chain.size() - 2, -1, -1):
        node = chain[k]
        par = q.parent[node]
        s = q.spans[node]
        n = drive(q.px[par], q.py[par], q.pth[par], q.steer[node] / q.radius, s,
                  q.body.step, samples, trig)
        gear = 1 if s > 0 else -1
        gears.resize(gears.size() + n, gear)
        length += fabs(s)
        cost += fabs(s) * (q.back_cost if s < 0 else 1.0)
    samples.insert(samples.end(), q.tail.begin(), q.tail.end())
    for k in range(<Py_ssize_t> q.tail_spans.size()):
        s = q.tail_spans[k]
        gear = 1 if s > 0 else -1
        gears.resize(gears.size() + q.tail_counts[k], gear)
        length += fabs(s)
        cost += fabs(s) * (q.back_cost if s < 0 else 1.0)
    gear = gears[1] if gears.size() > 1 else 1
    gears[0] = gear
    m = samples.size() // 3
    poses = np.empty((m, 3))
    pv = poses
    for k in range(m):
        pv[k, 0] = samples[3 * k]
        pv[k, 1] = samples[3 * k + 1]
        pv[k, 2] = samples[3 * k + 2]
    out_gears = np.empty(gears.size(), dtype=np.int8)
    gv = out_gears
    for k in range(<Py_ssize_t> gears.size()):
        gv[k] = gears[k]
    return (S_FOUND, poses, out_gears, length, cost, q.expanded, q.generated, q.max_open)
