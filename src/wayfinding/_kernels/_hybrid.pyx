# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Hybrid A* for a car (the search of :func:`wayfinding.vehicles.plan_car_path`, whose
docstring defines it): the expansion loop over the six motion primitives, the car's
rectangle tested along them on a grid or a navigation mesh, the obstacle-free Reeds–Shepp
and Dubins lengths of the heuristic and the Reeds–Shepp analytic expansion.

The floating-point operations are those of the library's Python definitions
(:func:`~wayfinding.paths.reeds_shepp_path`, :func:`~wayfinding.paths.turning_path`):
the same formulas in the same order, floored angles as Python's ``%`` has them, distances
by :func:`py_hypot` (Python's ``math.hypot`` method: correctly rounded but for near ties),
and the norms and dot products numpy takes from the BLAS with one fused multiply-add.  The
search holds no Python object but a navigation mesh's distance callable, for which it takes
the GIL back.

Poses are ``(x, y, heading)`` float64, heading in radians counter-clockwise from +x; a
car's rectangle is centred on its pose, ``a`` the half length and ``b`` the half width
(already grown by the sampling slack)."""

import numpy as np

from cpython.exc cimport PyErr_CheckSignals
from cython.operator cimport dereference as deref
from libc.math cimport (INFINITY, NAN, acos, asin, atan2, ceil, copysign, cos, fabs, floor,
                        fma, fmod, frexp, isfinite, ldexp, sin, sqrt)
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

from ._navmesh_locate cimport locate_in

#: math.pi (the double nearest pi) and twice it.
cdef double PI = 3.141592653589793
cdef double TAU = 2 * PI
#: A Reeds–Shepp segment this short (in radii) on the wrong side of zero counts as empty.
cdef double ZERO = 1e-12
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


# ------------------------------------------------------------------------------ arithmetic
cdef inline double py_mod(double a, double b) noexcept nogil:
    """``a % b`` as Python floors it (the sign of ``b``)."""
    cdef double m = fmod(a, b)
    if m != 0.0:
        if (b < 0) != (m < 0):
            m += b
    else:
        m = copysign(0.0, b)
    return m


cdef inline double wrap(double a) noexcept nogil:
    """``a`` as an angle in ``[-pi, pi)``."""
    return py_mod(a + PI, TAU) - PI


cdef double py_hypot(double x, double y) noexcept nogil:
    """sqrt(x**2 + y**2) correctly rounded but for near ties: the square root of the
    rounded sum corrected by the sum's exact residual (Python's ``math.hypot`` method)."""
    cdef double ax = fabs(x), ay = fabs(y), t, p1, e1, p2, e2, s, err, h, hh, eh, r
    cdef int ex = 0
    if ax < ay:
        t = ax
        ax = ay
        ay = t
    if ay == 0.0 or not isfinite(ax) or not isfinite(ay):
        return ax if isfinite(ay) or ay != ay else ay
    if ax > 1e150 or ay < 1e-150:
        frexp(ax, &ex)
        return ldexp(py_hypot(ldexp(ax, -ex), ldexp(ay, -ex)), ex)
    p1 = ax * ax
    e1 = fma(ax, ax, -p1)
    p2 = ay * ay
    e2 = fma(ay, ay, -p2)
    s = p1 + p2
    err = (p1 - (s - (s - p1))) + (p2 - (s - p1))     # two-sum of the squares
    h = sqrt(s)
    hh = h * h
    eh = fma(h, h, -hh)
    r = ((s - hh) - eh) + (err + e1 + e2)
    return h + r / (2.0 * h)


cdef inline double blas_dot2(double x0, double x1, double y0, double y1) noexcept nogil:
    """``x0 y0 + x1 y1`` rounded as numpy's two-element dot product (one fused
    multiply-add)."""
    return fma(x1, y1, x0 * y0)


cdef inline void unit(double c, double s, double* u) noexcept nogil:
    """The direction ``(c, s)`` divided by its norm."""
    cdef double n = sqrt(blas_dot2(c, s, c, s))
    u[0] = c / n
    u[1] = s / n


# ------------------------------------------------------------------------------ Reeds–Shepp
cdef struct Word:
    int n                # segments
    int steer[5]         # +1 left, -1 right, 0 straight
    int sign[5]          # +1 forward, -1 reverse (base words only)
    double t[5]          # signed lengths in radii


cdef inline void put(Word* w, int n, const char* letters, const char* signs, double t0,
                     double t1, double t2, double t3, double t4) noexcept nogil:
    cdef int i
    cdef double ts[5]
    ts[0] = t0
    ts[1] = t1
    ts[2] = t2
    ts[3] = t3
    ts[4] = t4
    w.n = n
    for i in range(n):
        w.steer[i] = 1 if letters[i] == b'L' else (-1 if letters[i] == b'R' else 0)
        w.sign[i] = -1 if signs[i] == b'-' else 1
        w.t[i] = ts[i]


cdef int base_csc(double x, double y, double phi, Word* out) noexcept nogil:
    cdef double u, t, xi, eta, square
    cdef int n = 0
    u = py_hypot(x - sin(phi), y - 1 + cos(phi))
    t = atan2(y - 1 + cos(phi), x - sin(phi))
    put(&out[n], 3, b"LSL", b"+++", t, u, wrap(phi - t), 0, 0)
    n += 1
    xi = x + sin(phi)
    eta = y - 1 - cos(phi)
    square = xi * xi + eta * eta - 4
    if square >= 0:
        u = sqrt(square)
        t = wrap(atan2(eta, xi) + atan2(2, u))
        put(&out[n], 3, b"LSR", b"+++", t, u, wrap(t - phi), 0, 0)
        n += 1
    return n


cdef int base_ccc(double x, double y, double phi, Word* out) noexcept nogil:
    cdef double xi = x - sin(phi), eta = y - 1 + cos(phi), gap, u, t, v
    gap = py_hypot(xi, eta)
    if gap <= 4:
        u = -2 * asin(gap / 4)
        t = wrap(atan2(eta, xi) + u / 2 + PI)
        v = wrap(phi - t + u)
        put(&out[0], 3, b"LRL", b"+-+" if v >= 0 else b"+--", t, u, v, 0, 0)
        return 1
    return 0


cdef inline void turns(double u, double w, double xi, double eta, double phi, double* t,
                       double* v) noexcept nogil:
    """First and last arcs of L t R u L w R v (see the Python definition)."""
    cdef double a = sin(u) - sin(u - w), b = cos(u) - cos(u - w) - 1
    t[0] = atan2(eta * a - xi * b, xi * a + eta * b)
    v[0] = wrap(t[0] - u + w - phi)


cdef int base_cccc(double x, double y, double phi, Word* out) noexcept nogil:
    cdef double xi = x + sin(phi), eta = y - 1 - cos(phi), gap, u, c, t = 0, v = 0
    cdef int n = 0
    gap = py_hypot(xi, eta)
    if gap <= 2:
        u = acos((2 + gap) / 4)
        turns(u, -u, xi, eta, phi, &t, &v)
        put(&out[n], 4, b"LRLR", b"++--", t, u, -u, v, 0)
        n += 1
    c = (20 - gap * gap) / 16
    if 0 <= c <= 1:
        u = -acos(c)
        turns(u, u, xi, eta, phi, &t, &v)
        put(&out[n], 4, b"LRLR", b"+--+", t, u, u, v, 0)
        n += 1
    return n


cdef int base_ccsc(double x, double y, double phi, Word* out) noexcept nogil:
    cdef double half = PI / 2, xi, eta, square, u, t, gap
    cdef int n = 0
    xi = x - sin(phi)
    eta = y - 1 + cos(phi)
    square = xi * xi + eta * eta - 4
    if square >= 0:
        u = 2 - sqrt(square)
        t = wrap(atan2(eta, xi) - atan2(u - 2, -2))
        put(&out[n], 4, b"LRSL", b"+---", t, -half, u, wrap(phi - t - half), 0)
        n += 1
    xi = x + sin(phi)
    eta = y - 1 - cos(phi)
    gap = py_hypot(xi, eta)
    if gap >= 2:
        t = atan2(xi, -eta)
        put(&out[n], 4, b"LRSR", b"+---", t, -half, 2 - gap, wrap(t + half - phi), 0)
        n += 1
    return n


cdef int base_ccscc(double x, double y, double phi, Word* out) noexcept nogil:
    cdef double half = PI / 2, xi = x + sin(phi), eta = y - 1 - cos(phi), square, u, t
    square = xi * xi + eta * eta - 4
    if square >= 0:
        u = 4 - sqrt(square)
        t = wrap(atan2(eta, xi) - atan2(u - 4, -2))
        put(&out[0], 5, b"LRSLR", b"+---+", t, -half, u, -half, wrap(t - phi))
        return 1
    return 0


cdef int base_words(int family, double x, double y, double phi, Word* out) noexcept nogil:
    if family == 0:
        return base_csc(x, y, phi, out)
    if family == 1:
        return base_ccc(x, y, phi, out)
    if family == 2:
        return base_cccc(x, y, phi, out)
    if family == 3:
        return base_ccsc(x, y, phi, out)
    return base_ccscc(x, y, phi, out)


cdef double rs_shortest(double x, double y, double phi, Word* best) noexcept nogil:
    """The shortest word (lengths in radii) to the goal ``(x, y, phi)`` from the origin
    facing +x, radius 1, and its length: every base word under time flip, reflection and,
    for the families that are not their own reverse, backward reading; ties to the first."""
    cdef double cp = cos(phi), sp = sin(phi), bx, by, gx, gy, gphi, length
    cdef double best_length = INFINITY, t
    cdef Word base[2]
    cdef Word w
    cdef int family, view, views, flip, mirror, k, m, i
    cdef bint ok
    for family in range(5):
        views = 2 if family == 1 or family == 3 else 1
        for view in range(views):
            if view == 0:
                bx, by = x, y
            else:
                bx = x * cp + y * sp
                by = x * sp - y * cp
            for flip in range(2):
                for mirror in range(2):
                    gx = -bx if flip else bx
                    gy = -by if mirror else by
                    gphi = -phi if flip != mirror else phi
                    m = base_words(family, gx, gy, gphi, base)
                    for k in range(m):
                        w = base[k]
                        ok = True
                        for i in range(w.n):
                            t = w.t[i]
                            if (t < 0) != (w.sign[i] < 0):
                                if fabs(t) > ZERO:
                                    ok = False
                                    break
                                w.t[i] = 0.0 if w.sign[i] > 0 else -0.0
                        if not ok:
                            continue
                        for i in range(w.n):
                            if flip:
                                w.t[i] = -w.t[i]
                            if mirror:
                                w.steer[i] = -w.steer[i]
                        if view == 1:
                            for i in range(w.n // 2):
                                w.t[i], w.t[w.n - 1 - i] = w.t[w.n - 1 - i], w.t[i]
                                w.steer[i], w.steer[w.n - 1 - i] = w.steer[w.n - 1 - i], w.steer[i]
                        length = 0.0
                        for i in range(w.n):
                            length += fabs(w.t[i])
                        if length < best_length - ZERO:
                            best[0] = w
                            best_length = length
    return best_length


cdef double reeds_shepp(double px, double py, double th, double qx, double qy, double gth,
                        double radius, Word* best) noexcept nogil:
    """The shortest Reeds–Shepp word from the pose to the goal pose (headings in radians)
    and its length in world units; the word's lengths stay in radii."""
    cdef double d[2]
    cdef double e[2]
    cdef double dx, dy, a0, a1
    unit(cos(th), sin(th), d)
    unit(cos(gth), sin(gth), e)
    a0 = atan2(d[1], d[0])
    a1 = atan2(e[1], e[0])
    dx = (qx - px) / radius
    dy = (qy - py) / radius
    return radius * rs_shortest(d[0] * dx + d[1] * dy, d[0] * dy - d[1] * dx,
                                wrap(a1 - a0), best)


# ------------------------------------------------------------------------------ Dubins
cdef inline double turn(double angle) noexcept nogil:
    """``angle`` in ``[0, 2 pi)``; within 1e-12 of a whole turn, none."""
    cdef double sweep = py_mod(angle, TAU)
    return 0.0 if sweep > TAU - 1e-12 else sweep


cdef double dubins(double px, double py, double th, double qx, double qy, double gth,
                   double r) noexcept nogil:
    """The length of the shortest forward (Dubins) path between the poses."""
    cdef double d[2]
    cdef double e[2]
    cdef double wx = qx - px, wy = qy - py, g0, g1, phi, sin_phi, versine, best = INFINITY
    cdef double dx, dy, ll, k, lam, ux, uy, h, seg, length, dist, hm, nx, ny, mx, my
    cdef double ha, hb, half_s
    cdef int word, s1, s2, side
    # LSL, LSR, RSL, RSR, RLR, LRL
    cdef int first[6]
    cdef int last[6]
    first[:] = [1, 1, -1, -1, -1, 1]
    last[:] = [1, -1, 1, -1, -1, 1]
    unit(cos(th), sin(th), d)
    unit(cos(gth), sin(gth), e)
    g0 = blas_dot2(d[0], d[1], wx, wy)
    g1 = blas_dot2(-d[1], d[0], wx, wy)
    phi = atan2(d[0] * e[1] - d[1] * e[0], d[0] * e[0] + d[1] * e[1])
    sin_phi = sin(phi)
    half_s = sin(phi / 2)
    versine = 2 * (half_s * half_s)
    for word in range(6):
        s1 = first[word]
        s2 = last[word]
        dx = g0 + r * (-s2 * sin_phi)
        dy = g1 + r * ((s2 - s1) - s2 * versine)
        if word < 4:
            ll = dx * dx + dy * dy
            k = s2 * r - s1 * r
            if not (ll == 0 or ll < k * k):
                lam = sqrt(max(ll - k * k, 0.0))
                ux = (lam * dx + k * dy) / ll
                uy = (lam * dy - k * dx) / ll
                h = atan2(uy, ux)
                seg = sqrt(max(blas_dot2(dx, dy, dx, dy) - ((s2 - s1) * r) * ((s2 - s1) * r),
                               0.0))
                length = r * (turn(s1 * h) + turn(s2 * (phi - h))) + seg
            elif s1 == s2 and dx == 0 and dy == 0:
                length = r * (turn(s1 * phi) + 0.0) + 0.0
            else:
                continue
            if length < best - 1e-12:
                best = length
        else:
            dist = sqrt(blas_dot2(dx, dy, dx, dy))
            if dist == 0 or dist > 4 * r:
                continue
            hm = sqrt(max(4 * r * r - dist * dist / 4, 0.0))
            nx = -dy / dist
            ny = dx / dist
            for side in range(2):
                if side == 0:
                    mx = dx / 2 + hm * nx
                    my = dy / 2 + hm * ny
                else:
                    mx = dx / 2 - hm * nx
                    my = dy / 2 - hm * ny
                ha = atan2(my, mx) + s1 * PI / 2
                hb = atan2(my - dy, mx - dx) + s1 * PI / 2
                length = r * (turn(s1 * ha) + turn(-s1 * (hb - ha)) + turn(s1 * (phi - hb)))
                if length < best - 1e-12:
                    best = length
    return best


# ------------------------------------------------------------------------------ driving
cdef Py_ssize_t drive(double x, double y, double th, double kappa, double span, double step,
                      vector[double]& out, vector[double]& trig) noexcept nogil:
    """Append the samples ``(k, 3)`` (flat) after ``(x, y, th)`` driving ``span`` (signed)
    with curvature ``kappa`` to ``out`` and the cosine and sine of their headings ``(k,
    2)`` to ``trig``, ``k`` the fewest at most ``step`` apart (at least one); return
    ``k``."""
    cdef Py_ssize_t k = <Py_ssize_t> ceil(fabs(span) / step), i
    cdef double s, t, c, sn, ct, st
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
            t = th + kappa * s
            ct = cos(t)
            st = sin(t)
            out.push_back(x + (st - sn) / kappa)
            out.push_back(y + (c - ct) / kappa)
            out.push_back(t)
            trig.push_back(ct)
            trig.push_back(st)
    return k


# ------------------------------------------------------------------------------ bodies
cdef class Body:
    """The car's rectangle on a world: ``a``, ``b`` the grown half length and half width,
    ``step`` the sampling step along moves (world units); ``aimed`` once it has the
    holonomic distances to a goal, ``failure`` what a Python distance raised."""

    cdef double a, b, step
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
cdef struct Open:
    double f
    int64_t tie
    int32_t node


cdef inline bint before(const Open& u, const Open& v) noexcept nogil:
    return u.f < v.f or (u.f == v.f and u.tie < v.tie)


cdef void push(vector[Open]& heap, Open item) noexcept nogil:
    cdef Py_ssize_t i = heap.size(), parent
    heap.push_back(item)
    while i > 0:
        parent = (i - 1) >> 1
        if not before(item, heap[parent]):
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = item


cdef Open pop(vector[Open]& heap) noexcept nogil:
    cdef Open top = heap[0], last = heap.back()
    cdef Py_ssize_t i = 0, child, n
    heap.pop_back()
    n = heap.size()
    if n == 0:
        return top
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and before(heap[child + 1], heap[child]):
            child += 1
        if not before(heap[child], last):
            break
        heap[i] = heap[child]
        i = child
    heap[i] = last
    return top


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

    cdef double heuristic(self, double x, double y, double th) noexcept nogil:
        """The larger of the obstacle-free Reeds–Shepp (or Dubins) length and the
        holonomic distance."""
        cdef Word w
        cdef double free, holo
        if self.reverse:
            free = reeds_shepp(x, y, th, self.gx, self.gy, self.gth, self.radius, &w)
        else:
            free = dubins(x, y, th, self.gx, self.gy, self.gth, self.radius)
        holo = self.body.holonomic(x, y)
        if holo != holo:
            return holo
        return free if free > holo else holo

    cdef bint expansion(self, double x, double y, double th, vector[double]& out,
                        vector[double]& trig, vector[double]& spans,
                        vector[Py_ssize_t]& counts) noexcept nogil:
        """The analytic expansion from the pose: append its samples, its non-empty
        segments' signed lengths and their sample counts, and say whether the car stays
        clear along it (and, forward only, whether it never reverses)."""
        cdef Word w
        cdef int i
        cdef Py_ssize_t at, k
        cdef double s
        reeds_shepp(x, y, th, self.gx, self.gy, self.gth, self.radius, &w)
        if not self.reverse:
            for i in range(w.n):
                if copysign(1.0, w.t[i]) < 0:
                    return False
        for i in range(w.n):
            s = self.radius * w.t[i]
            if s == 0:
                continue
            at = out.size() // 3
            k = drive(x, y, th, w.steer[i] / self.radius, s, self.body.step, out, trig)
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
        cdef vector[Open] heap
        cdef unordered_map[uint64_t, int32_t] best
        cdef unordered_map[uint64_t, int32_t].iterator found
        cdef vector[uint8_t] closed
        cdef vector[double] part, part_trig
        cdef Open top
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
        h = self.heuristic(sx, sy, sth)
        if h != h:
            return S_STOPPED
        push(heap, Open(h, 0, 0))
        self.generated = 1
        while heap.size():
            if <int64_t> heap.size() > self.max_open:
                self.max_open = heap.size()
            top = pop(heap)
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
                    h = self.heuristic(ex, ey, eth)
                    if h != h:
                        return S_STOPPED
                    if not isfinite(h):
                        continue
                    j = self.px.size()
                    self.add(ex, ey, eth, gnew, i, span, <int8_t> st)
                    closed.push_back(0)
                    best[k2] = j
                    push(heap, Open(gnew + h, tie, j))
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
