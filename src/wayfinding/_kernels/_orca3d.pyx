# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Optimal reciprocal collision avoidance in 3D, with the semantics of RVO2-3D: each agent
takes half of the velocity change that keeps it clear of each of its nearest neighbours for
its time horizon (one time step for neighbours it already overlaps), as one half-space per
neighbour bounded by a plane; then the velocity nearest its preferred one inside its speed
sphere and every half-space (an incremental 3-D linear program over planes, lines and
points), or, when they leave nothing, the velocity that violates the worst half-space least
(a 4-D program solved as 3-D programs over the projected planes).

A plane is (point, unit normal); allowed velocities v satisfy dot(normal, v - point) >= 0.

Also here, for flying agents: ``nearest`` (the k nearest neighbours through uniform buckets,
searched in shells), ``sweep_boxes`` (moving axis-aligned boxes through a voxel grid without
entering blocked voxels) and ``voxel_push`` (steering away from nearby blocked voxels).

Work is in double precision where RVO2-3D uses single, and the cone's plane is worked out
in a form without cancellation (see ``agent_plane``).  Where RVO2-3D divides by zero (a
relative velocity exactly on the axis of a neighbour's cone, as for two agents flying
exactly head on, or exactly at the centre of the time-step sphere of an overlapping one) a
plane is still made, on the side at right angles to the axis that is horizontal and to its
right seen from above (the side the 2D solver's leg test picks; along x when the axis is
vertical), the two agents of a pair taking opposite sides; two agents at one point with one
velocity part along x (see ``sideways``).
"""

from libc.math cimport INFINITY, ceil, fabs, floor, fmax, sqrt
from libc.stdint cimport int32_t, uint8_t
from libc.stdlib cimport free, malloc

from ._buckets cimport bucket, keep_nearest, sort_into_buckets

import numpy as np

cdef double EPSILON = 1e-5      # near-parallel planes and lines, as RVO2-3D


cdef struct Plane:
    double px, py, pz          # a point of the plane
    double nx, ny, nz          # its unit normal, towards the allowed side


cdef inline double norm3(double x, double y, double z) noexcept nogil:
    """The length of (x, y, z), without overflow or underflow for finite components far
    from 1 (scaled by the largest where the squares would leave the normal range)."""
    cdef double s = x * x + y * y + z * z, big
    if 1e-290 < s < 1e290:
        return sqrt(s)
    big = fmax(fabs(x), fmax(fabs(y), fabs(z)))
    if big == 0.0 or big == INFINITY:
        return big
    x /= big
    y /= big
    z /= big
    return big * sqrt(x * x + y * y + z * z)


cdef inline double violation(const Plane* p, const double* v) noexcept nogil:
    """How far velocity v lies outside plane p (> 0: outside)."""
    return p.nx * (p.px - v[0]) + p.ny * (p.py - v[1]) + p.nz * (p.pz - v[2])


cdef bint on_line(const Plane* planes, int plane_no, const double* lp, const double* ld,
                  double radius, const double* opt, bint direction_opt,
                  double* result) noexcept nogil:
    """The best velocity on the line (point ``lp``, unit direction ``ld``) inside the speed
    sphere and the first ``plane_no`` planes: nearest ``opt``, or furthest along ``opt``
    with ``direction_opt``.  False if there is none (``result`` untouched)."""
    cdef double dot = lp[0] * ld[0] + lp[1] * ld[1] + lp[2] * ld[2]
    # The line's squared distance from 0, |lp x ld|^2, taken directly (not as |lp|^2 -
    # dot^2, which loses it to rounding when lp lies far out).
    cdef double gx = lp[1] * ld[2] - lp[2] * ld[1], gy = lp[2] * ld[0] - lp[0] * ld[2]
    cdef double gz = lp[0] * ld[1] - lp[1] * ld[0]
    cdef double disc = radius * radius - (gx * gx + gy * gy + gz * gz)
    cdef double root, lo, hi, numer, denom, t
    cdef const Plane* q
    cdef int i
    if disc < 0.0:
        return False                   # the speed sphere misses the line
    root = sqrt(disc)
    lo = -dot - root
    hi = -dot + root
    for i in range(plane_no):
        q = &planes[i]
        numer = q.nx * (q.px - lp[0]) + q.ny * (q.py - lp[1]) + q.nz * (q.pz - lp[2])
        denom = ld[0] * q.nx + ld[1] * q.ny + ld[2] * q.nz
        if denom * denom <= EPSILON:   # (nearly) parallel to plane i
            if numer > 0.0:
                return False
            continue
        t = numer / denom
        if denom >= 0.0:
            lo = t if t > lo else lo
        else:
            hi = t if t < hi else hi
        if lo > hi:
            return False
    if direction_opt:
        t = hi if opt[0] * ld[0] + opt[1] * ld[1] + opt[2] * ld[2] > 0.0 else lo
    else:
        t = ld[0] * (opt[0] - lp[0]) + ld[1] * (opt[1] - lp[1]) + ld[2] * (opt[2] - lp[2])
        t = lo if t < lo else (hi if t > hi else t)
    result[0] = lp[0] + t * ld[0]
    result[1] = lp[1] + t * ld[1]
    result[2] = lp[2] + t * ld[2]
    return True


cdef bint on_plane(const Plane* planes, int plane_no, double radius, const double* opt,
                   bint direction_opt, double* result) noexcept nogil:
    """The best velocity on plane ``plane_no`` inside the speed sphere and the planes
    before it (a 2-D linear program); False if there is none."""
    cdef const Plane* p = &planes[plane_no]
    cdef const Plane* q
    cdef double dist = p.px * p.nx + p.py * p.ny + p.pz * p.nz
    cdef double r2 = radius * radius, disc_r2, cx, cy, cz, along, wx, wy, wz, w2, s
    cdef double ld[3]
    cdef double lp[3]
    cdef double mx, my, mz, c2, scale
    cdef int i
    if fabs(dist) > radius:
        return False                   # the speed sphere misses the plane
    disc_r2 = r2 - dist * dist         # squared radius of the circle cut from the sphere
    cx = dist * p.nx
    cy = dist * p.ny
    cz = dist * p.nz
    if direction_opt:
        along = opt[0] * p.nx + opt[1] * p.ny + opt[2] * p.nz
        wx = opt[0] - along * p.nx
        wy = opt[1] - along * p.ny
        wz = opt[2] - along * p.nz
        w2 = wx * wx + wy * wy + wz * wz
        if w2 <= EPSILON:
            result[0] = cx
            result[1] = cy
            result[2] = cz
        else:
            s = sqrt(disc_r2 / w2)
            result[0] = cx + s * wx
            result[1] = cy + s * wy
            result[2] = cz + s * wz
    else:
        # The projection of opt on the plane, c + w with w the part of opt across the
        # normal (not opt minus its part along it: no cancellation for a huge opt), cut to
        # the circle.
        along = opt[0] * p.nx + opt[1] * p.ny + opt[2] * p.nz
        wx = opt[0] - along * p.nx
        wy = opt[1] - along * p.ny
        wz = opt[2] - along * p.nz
        w2 = norm3(wx, wy, wz)
        s = sqrt(disc_r2)
        s = s / w2 if w2 > s else 1.0
        result[0] = cx + s * wx
        result[1] = cy + s * wy
        result[2] = cz + s * wz
    for i in range(plane_no):
        q = &planes[i]
        if violation(q, result) > 0.0:
            # The line where plane i meets this plane.
            mx = q.ny * p.nz - q.nz * p.ny
            my = q.nz * p.nx - q.nx * p.nz
            mz = q.nx * p.ny - q.ny * p.nx
            c2 = mx * mx + my * my + mz * mz
            if c2 <= EPSILON:
                return False           # (nearly) parallel: plane i leaves nothing of it
            c2 = sqrt(c2)
            ld[0] = mx / c2
            ld[1] = my / c2
            ld[2] = mz / c2
            # In this plane, at right angles to the line.
            mx = ld[1] * p.nz - ld[2] * p.ny
            my = ld[2] * p.nx - ld[0] * p.nz
            mz = ld[0] * p.ny - ld[1] * p.nx
            scale = ((q.px - p.px) * q.nx + (q.py - p.py) * q.ny + (q.pz - p.pz) * q.nz) \
                / (mx * q.nx + my * q.ny + mz * q.nz)
            lp[0] = p.px + scale * mx
            lp[1] = p.py + scale * my
            lp[2] = p.pz + scale * mz
            if not on_line(planes, i, lp, ld, radius, opt, direction_opt, result):
                return False
    return True


cdef int in_planes(const Plane* planes, int count, double radius, const double* opt,
                   bint direction_opt, double* result) noexcept nogil:
    """The best velocity inside the speed sphere and all ``count`` half-spaces (incremental
    3-D linear program); returns ``count`` on success, else the plane it failed on (the
    result then holds the best velocity for the planes before it)."""
    cdef double keep[3]
    cdef double norm = norm3(opt[0], opt[1], opt[2])
    cdef int i
    if direction_opt:                  # opt is a unit direction
        result[0] = opt[0] * radius
        result[1] = opt[1] * radius
        result[2] = opt[2] * radius
    elif norm > radius:                # (no square to overflow for a huge opt)
        result[0] = opt[0] / norm * radius
        result[1] = opt[1] / norm * radius
        result[2] = opt[2] / norm * radius
    else:
        result[0] = opt[0]
        result[1] = opt[1]
        result[2] = opt[2]
    for i in range(count):
        if violation(&planes[i], result) > 0.0:
            keep[0] = result[0]
            keep[1] = result[1]
            keep[2] = result[2]
            if not on_plane(planes, i, radius, opt, direction_opt, result):
                result[0] = keep[0]
                result[1] = keep[1]
                result[2] = keep[2]
                return i
    return count


cdef void least_violation(const Plane* planes, int count, int first, double radius,
                          Plane* scratch, double* result) noexcept nogil:
    """From plane ``first`` on, where the half-spaces leave nothing: the velocity that
    minimises the largest violation (RVO2-3D's 4-D program).  For each plane i it violates
    by more than the worst so far: the planes equidistant from plane i and each earlier
    one, then the velocity furthest into plane i's allowed side that keeps them."""
    cdef double worst = 0.0, mx, my, mz, c2, scale, ax, ay, az
    cdef double keep[3]
    cdef double opt[3]
    cdef const Plane* p
    cdef const Plane* q
    cdef Plane* s
    cdef int i, j, m
    for i in range(first, count):
        p = &planes[i]
        if violation(p, result) <= worst:
            continue
        m = 0
        for j in range(i):
            q = &planes[j]
            s = &scratch[m]
            mx = q.ny * p.nz - q.nz * p.ny
            my = q.nz * p.nx - q.nx * p.nz
            mz = q.nx * p.ny - q.ny * p.nx
            c2 = mx * mx + my * my + mz * mz
            if c2 <= EPSILON:          # (nearly) parallel
                if p.nx * q.nx + p.ny * q.ny + p.nz * q.nz > 0.0:
                    continue           # same way: plane j is no stricter
                s.px = 0.5 * (p.px + q.px)
                s.py = 0.5 * (p.py + q.py)
                s.pz = 0.5 * (p.pz + q.pz)
            else:
                # A point where the two planes meet, reached from plane i's point at right
                # angles to their common line.
                ax = my * p.nz - mz * p.ny
                ay = mz * p.nx - mx * p.nz
                az = mx * p.ny - my * p.nx
                scale = ((q.px - p.px) * q.nx + (q.py - p.py) * q.ny + (q.pz - p.pz) * q.nz) \
                    / (ax * q.nx + ay * q.ny + az * q.nz)
                s.px = p.px + scale * ax
                s.py = p.py + scale * ay
                s.pz = p.pz + scale * az
            s.nx = q.nx - p.nx
            s.ny = q.ny - p.ny
            s.nz = q.nz - p.nz
            c2 = sqrt(s.nx * s.nx + s.ny * s.ny + s.nz * s.nz)
            s.nx /= c2
            s.ny /= c2
            s.nz /= c2
            m += 1
        keep[0] = result[0]
        keep[1] = result[1]
        keep[2] = result[2]
        opt[0] = p.nx
        opt[1] = p.ny
        opt[2] = p.nz
        if in_planes(scratch, m, radius, opt, True, result) < m:
            result[0] = keep[0]        # rounding only: the last result already fits
            result[1] = keep[1]
            result[2] = keep[2]
        worst = violation(p, result)


cdef inline void sideways(double rx, double ry, double rz, bint later,
                          double* n) noexcept nogil:
    """A unit vector at right angles to (rx, ry, rz), opposite for (-rx, -ry, -rz):
    horizontal and to its right (as seen from above); along +x when it points straight up
    and -x straight down; for (0, 0, 0), -x for the agent of the pair that comes
    ``later`` in the rows and +x for the other."""
    cdef double h = sqrt(rx * rx + ry * ry)
    n[1] = 0.0
    n[2] = 0.0
    if h > 0.0:
        n[0] = ry / h
        n[1] = -rx / h
    elif rz != 0.0:
        n[0] = 1.0 if rz > 0.0 else -1.0
    else:
        n[0] = -1.0 if later else 1.0


cdef bint agent_plane(const double* p, const double* v, double r, const double* q,
                      const double* u, double s, double inv_tau, double inv_dt, bint later,
                      Plane* out) noexcept nogil:
    """The half-space agent (p, v, r) takes against neighbour (q, u, s): half of the
    velocity change that keeps them apart for 1 / inv_tau seconds (1 / inv_dt when they
    already overlap).  ``later``: the agent's row comes after the neighbour's (which way
    two agents at one point with one velocity part).  False, with no plane, where the
    velocity obstacle lies beyond every float (a horizon so short for the distance that
    rel / tau overflows): no velocity meets it."""
    cdef double rpx = q[0] - p[0], rpy = q[1] - p[1], rpz = q[2] - p[2]
    cdef double rvx = v[0] - u[0], rvy = v[1] - u[1], rvz = v[2] - u[2]
    cdef double d2 = rpx * rpx + rpy * rpy + rpz * rpz, comb = r + s, comb2 = comb * comb
    cdef double wx, wy, wz, along, wlen, push, b, c, cx, cy, cz, disc, d, ux, uy, uz, x, ca
    cdef double n[3]
    if d2 > comb2:
        # w: from the centre of the cut-off sphere to the relative velocity.
        wx = rvx - inv_tau * rpx
        wy = rvy - inv_tau * rpy
        wz = rvz - inv_tau * rpz
        wlen = norm3(wx, wy, wz)
        if not wlen < INFINITY:
            return False
        # along: w's unit direction dotted with rp (no square of w to overflow).
        along = (wx / wlen) * rpx + (wy / wlen) * rpy + (wz / wlen) * rpz if wlen > 0.0 \
            else 0.0
        if along < 0.0 and along * along > comb2:
            # Nearest boundary point on the cut-off sphere.
            n[0] = wx / wlen
            n[1] = wy / wlen
            n[2] = wz / wlen
            push = comb * inv_tau - wlen
        else:
            # Nearest boundary point on the cone: the cone is the union of the spheres
            # (t * rel, t * comb), t > 0; the relative velocity is nearest the surface of
            # the one with t = (b + sqrt(b^2 - a c)) / a (RVO2-3D), where b^2 - a c =
            # |rel x v|^2 comb^2 / (d2 - comb2).  Worked out in that form, with w = v - t
            # rel from the part of v across the axis, (rel x v) x rel / d2, so that no
            # difference of nearly equal numbers decides its direction; and along the
            # unit axis u = rel / |rel|, with the sine x and cosine ca of the cone's
            # half-angle, so that no product of rel, rel and v overflows.
            d = norm3(rpx, rpy, rpz)
            ux = rpx / d
            uy = rpy / d
            uz = rpz / d
            x = comb / d
            ca = sqrt((1.0 - x) * (1.0 + x))
            cx = uy * rvz - uz * rvy
            cy = uz * rvx - ux * rvz
            cz = ux * rvy - uy * rvx
            c = norm3(cx, cy, cz)
            b = ux * rvx + uy * rvy + uz * rvz
            if c > 0.0:
                disc = c * x / ca
                wx = cy * uz - cz * uy - disc * ux
                wy = cz * ux - cx * uz - disc * uy
                wz = cx * uy - cy * ux - disc * uz
                wlen = c / ca
                n[0] = wx / wlen
                n[1] = wy / wlen
                n[2] = wz / wlen
                push = x * (b + disc) - wlen
            else:
                # On the axis: every side is nearest; take the cone's normal on the side
                # ``sideways`` picks (the limit of the above from that side).
                sideways(rpx, rpy, rpz, later, n)
                n[0] = ca * n[0] - x * ux
                n[1] = ca * n[1] - x * uy
                n[2] = ca * n[2] - x * uz
                push = x * b
    else:
        # Already overlapping: get apart within one time step.
        wx = rvx - inv_dt * rpx
        wy = rvy - inv_dt * rpy
        wz = rvz - inv_dt * rpz
        wlen = norm3(wx, wy, wz)
        if wlen > 0.0:
            n[0] = wx / wlen
            n[1] = wy / wlen
            n[2] = wz / wlen
        else:
            sideways(rpx, rpy, rpz, later, n)
        push = comb * inv_dt - wlen
    out.nx = n[0]
    out.ny = n[1]
    out.nz = n[2]
    out.px = v[0] + 0.5 * push * n[0]
    out.py = v[1] + 0.5 * push * n[1]
    out.pz = v[2] + 0.5 * push * n[2]
    return True


cdef inline double cells_for(const double* lo, const double* hi, double size) noexcept nogil:
    """How many buckets of ``size`` span the box (lo, hi), in floating point."""
    return (floor((hi[0] - lo[0]) / size) + 1) * (floor((hi[1] - lo[1]) / size) + 1) \
        * (floor((hi[2] - lo[2]) / size) + 1)


def nearest(const double[:, ::1] points, const double[::1] ranges, int k,
            int32_t[:, ::1] out, double[:, ::1] dist2):
    """Each point's up to ``k`` nearest other points j with |p_j - p_i| < ranges[i]
    (strictly; RVO2-3D's rule), nearest first, ties to the lower index: written to ``out[i,
    :count]`` (-1 after) with their squared distances in ``dist2``; returns the counts
    (``int32``).  ``points`` ``(n, 3)``; ``ranges`` ``(n,)``, > 0; ``out`` and ``dist2``
    ``(n, k)``.  Points are sorted into uniform buckets, as wide as the longest range or
    narrower (down to an eighth of it) while there are at most 2n + 64 of them; a query
    visits shells of buckets around its own, nearest first, and stops once the range is
    covered or it holds k points nearer than any unvisited bucket can be."""
    cdef Py_ssize_t n = points.shape[0], i, j, c, cells, at
    cdef double lo[3]
    cdef double hi[3]
    cdef double size = 0.0, longest, r, r2, d2, dx, dy, dz, bound
    cdef int g[3]
    cdef int home[3]
    cdef int c0[3]
    cdef int c1[3]
    cdef int a, b, e, d, held, cc, m, far
    cdef int32_t* start
    cdef int32_t* members
    cdef int32_t* cell_of
    counts = np.zeros(n, dtype=np.int32)
    cdef int32_t[::1] cnt = counts
    if n == 0 or k <= 0:
        for i in range(n):
            for a in range(k):
                out[i, a] = -1
        return counts
    for d in range(3):
        lo[d] = hi[d] = points[0, d]
    for i in range(n):
        for d in range(3):
            lo[d] = points[i, d] if points[i, d] < lo[d] else lo[d]
            hi[d] = points[i, d] if points[i, d] > hi[d] else hi[d]
        size = ranges[i] if ranges[i] > size else size
    longest = size
    while cells_for(lo, hi, size) > 4.0 * n + 64:
        size *= 2.0
    while size > 0.125 * longest and cells_for(lo, hi, 0.5 * size) <= 2.0 * n + 64:
        size *= 0.5
    for d in range(3):
        g[d] = <int> floor((hi[d] - lo[d]) / size) + 1
    cells = <Py_ssize_t> g[0] * g[1] * g[2]
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
            for d in range(3):
                cc = bucket(points[i, d] - lo[d], size, g[d])
                c0[d] = g[d] - 1 if cc > g[d] - 1 else (0 if cc < 0 else cc)
            cell_of[i] = <int32_t> ((<Py_ssize_t> c0[2] * g[1] + c0[1]) * g[0] + c0[0])
        sort_into_buckets(cell_of, n, cells, start, members)
        for i in range(n):
            r = ranges[i]
            r2 = r * r
            held = 0
            far = 0
            for d in range(3):
                cc = bucket(points[i, d] - lo[d], size, g[d])
                home[d] = g[d] - 1 if cc > g[d] - 1 else (0 if cc < 0 else cc)
                far = far if far > home[d] else home[d]
                far = far if far > g[d] - 1 - home[d] else g[d] - 1 - home[d]
            m = 0
            while m <= far:
                # Shell m: the buckets m steps from the point's own (Chebyshev).
                for d in range(3):
                    c0[d] = home[d] - m if home[d] - m > 0 else 0
                    c1[d] = home[d] + m if home[d] + m < g[d] - 1 else g[d] - 1
                for e in range(c0[2], c1[2] + 1):
                    for b in range(c0[1], c1[1] + 1):
                        for a in range(c0[0], c1[0] + 1):
                            if a - home[0] != m and home[0] - a != m \
                                    and b - home[1] != m and home[1] - b != m \
                                    and e - home[2] != m and home[2] - e != m:
                                continue      # inside the shell: visited already
                            c = (<Py_ssize_t> e * g[1] + b) * g[0] + a
                            for at in range(start[c], start[c + 1]):
                                j = members[at]
                                if j == i:
                                    continue
                                dx = points[j, 0] - points[i, 0]
                                dy = points[j, 1] - points[i, 1]
                                dz = points[j, 2] - points[i, 2]
                                d2 = dx * dx + dy * dy + dz * dz
                                if d2 < r2:
                                    held = keep_nearest(&out[i, 0], &dist2[i, 0], held, k,
                                                        <int32_t> j, d2)
                # Every bucket beyond lies at least m buckets from the point.
                bound = m * size
                if bound >= r or (held == k and dist2[i, k - 1] < bound * bound):
                    break
                m += 1
            cnt[i] = held
            for a in range(held, k):
                out[i, a] = -1
    free(start)
    free(members)
    free(cell_of)
    return counts


def velocities(const double[:, ::1] position, const double[:, ::1] velocity,
               const double[:, ::1] preferred, const double[::1] radius,
               const double[::1] max_speed, const int32_t[:, ::1] neighbours,
               const int32_t[::1] counts, const double[::1] time_horizon, double dt,
               double[:, ::1] out):
    """ORCA's new velocity of every agent (``out``, ``(n, 3)``) from the state at the step's
    start: one half-space per neighbour (``neighbours[i, :counts[i]]``, rows, in that order),
    then the 3-D linear program, and its fallback where the half-spaces leave nothing.
    ``position``, ``velocity``, ``preferred``: ``(n, 3)``; ``radius``, ``max_speed``,
    ``time_horizon``: ``(n,)``, per agent; ``dt`` > 0 (s)."""
    cdef Py_ssize_t n = position.shape[0], i
    cdef int k = neighbours.shape[1], c, j, failed
    cdef double inv_dt = 1.0 / dt, big, speed
    cdef double result[3]
    cdef Plane* planes = <Plane*> malloc((2 * k + 1) * sizeof(Plane))
    if planes == NULL:
        raise MemoryError("cannot allocate the ORCA planes")
    with nogil:
        for i in range(n):
            c = 0
            for j in range(counts[i]):
                c += agent_plane(&position[i, 0], &velocity[i, 0], radius[i],
                                 &position[neighbours[i, j], 0],
                                 &velocity[neighbours[i, j], 0], radius[neighbours[i, j]],
                                 1.0 / time_horizon[i], inv_dt, neighbours[i, j] < i,
                                 &planes[c])
            failed = in_planes(planes, c, max_speed[i], &preferred[i, 0], False, result)
            if failed < c:
                least_violation(planes, c, failed, max_speed[i], &planes[k], result)
            big = fmax(fabs(result[0]), fmax(fabs(result[1]), fabs(result[2])))
            if big > 0.0:
                speed = big * sqrt((result[0] / big) * (result[0] / big)
                                   + (result[1] / big) * (result[1] / big)
                                   + (result[2] / big) * (result[2] / big))
                if speed > max_speed[i]:     # rounding, on planes far outside the sphere
                    result[0] *= max_speed[i] / speed
                    result[1] *= max_speed[i] / speed
                    result[2] *= max_speed[i] / speed
            out[i, 0] = result[0]
            out[i, 1] = result[1]
            out[i, 2] = result[2]
    free(planes)


def planes(const double[:, ::1] position, const double[:, ::1] velocity,
           const double[::1] radius, const int32_t[::1] rows, int agent,
           double time_horizon, double dt):
    """The half-spaces agent ``agent`` takes against the agents of ``rows`` (in order):
    ``(m, 6)`` float64, each a point and a unit normal (allowed: dot(normal, v - point) >=
    0); NaN where ``agent_plane`` finds the obstacle beyond every velocity."""
    cdef Py_ssize_t m = rows.shape[0], j
    cdef Plane pl
    result = np.full((m, 6), np.nan)
    cdef double[:, ::1] o = result
    for j in range(m):
        if not agent_plane(&position[agent, 0], &velocity[agent, 0], radius[agent],
                           &position[rows[j], 0], &velocity[rows[j], 0], radius[rows[j]],
                           1.0 / time_horizon, 1.0 / dt, rows[j] < agent, &pl):
            continue
        o[j, 0] = pl.px
        o[j, 1] = pl.py
        o[j, 2] = pl.pz
        o[j, 3] = pl.nx
        o[j, 4] = pl.ny
        o[j, 5] = pl.nz
    return result


cdef bint layer_free(const uint8_t[:, :, ::1] free, int axis, long layer, long lo1, long hi1,
                     long lo2, long hi2) noexcept nogil:
    """Whether every voxel of layer ``layer`` along ``axis`` within the ranges ``lo1..hi1``
    and ``lo2..hi2`` of the two other axes (in the order x, y, z) is free; voxels outside
    the grid are blocked.  ``free``: the grid's padded array, voxel (x, y, z) at ``[z + 1,
    y + 1, x + 1]``."""
    cdef long n[3]
    cdef long c[3]
    cdef long a, b
    cdef int o1 = 1 if axis == 0 else 0, o2 = 1 if axis == 2 else 2
    n[0] = free.shape[2] - 2
    n[1] = free.shape[1] - 2
    n[2] = free.shape[0] - 2
    if layer < 0 or layer >= n[axis] or lo1 < 0 or hi1 >= n[o1] or lo2 < 0 or hi2 >= n[o2]:
        return False
    c[axis] = layer
    for a in range(lo1, hi1 + 1):
        c[o1] = a
        for b in range(lo2, hi2 + 1):
            c[o2] = b
            if not free[c[2] + 1, c[1] + 1, c[0] + 1]:
                return False
    return True


def sweep_boxes(const uint8_t[:, :, ::1] free, double ox, double oy, double oz, double size,
                double[:, ::1] position, const double[:, ::1] move, const double[::1] half,
                uint8_t[:, ::1] stopped):
    """Move each axis-aligned box (centre ``position[i]``, half-edge ``half[i]``) by
    ``move[i]``, one axis at a time (x, then y, then z), stopping an axis's move a hair
    (1e-7 voxel) before the first voxel layer it would enter that holds a blocked voxel
    the box overlaps on the two other axes; ``stopped[i, axis]`` says which were cut.
    Voxels outside the grid are blocked.  Only layers the box enters are checked, so a box
    that already overlaps blocked voxels can still move away from them.  ``free``: the
    grid's padded array (``VoxelGrid.padded``); origin (ox, oy, oz) and voxel edge
    ``size`` in world units; ``position`` is updated in place."""
    cdef Py_ssize_t n = position.shape[0], i
    cdef double origin[3]
    cdef double skin = 1e-7 * size, d, h, p
    cdef int axis, o1, o2
    cdef long lo1, hi1, lo2, hi2, c0, c1, layer
    cdef bint hit
    origin[0] = ox
    origin[1] = oy
    origin[2] = oz
    with nogil:
        for i in range(n):
            h = half[i]
            for axis in range(3):
                stopped[i, axis] = 0
                d = move[i, axis]
                if d == 0.0:
                    continue
                o1 = 1 if axis == 0 else 0
                o2 = 1 if axis == 2 else 2
                lo1 = <long> floor((position[i, o1] - h - origin[o1]) / size)
                hi1 = <long> ceil((position[i, o1] + h - origin[o1]) / size) - 1
                lo2 = <long> floor((position[i, o2] - h - origin[o2]) / size)
                hi2 = <long> ceil((position[i, o2] + h - origin[o2]) / size) - 1
                p = position[i, axis] - origin[axis]
                hit = False
                if d > 0.0:
                    c0 = <long> ceil((p + h) / size) - 1
                    c1 = <long> ceil((p + h + d) / size) - 1
                    layer = c0 + 1
                    while layer <= c1:
                        if not layer_free(free, axis, layer, lo1, hi1, lo2, hi2):
                            hit = True
                            break
                        layer += 1
                    if hit:
                        p = layer * size - h - skin
                else:
                    c0 = <long> floor((p - h) / size)
                    c1 = <long> floor((p - h + d) / size)
                    layer = c0 - 1
                    while layer >= c1:
                        if not layer_free(free, axis, layer, lo1, hi1, lo2, hi2):
                            hit = True
                            break
                        layer -= 1
                    if hit:
                        p = (layer + 1) * size + h + skin
                if hit:
                    position[i, axis] = origin[axis] + p
                    stopped[i, axis] = 1
                else:
                    position[i, axis] += d


def voxel_push(const uint8_t[:, :, ::1] free, double ox, double oy, double oz, double size,
               const double[:, ::1] position, const double[::1] half,
               const double[::1] margin, const double[::1] normal_speed,
               const double[::1] speed, double[:, ::1] out):
    """Each agent's velocity away from the blocked voxels near it (``out``, ``(n, 3)``):
    over the 27 voxels around its own, those blocked (or outside the grid) that its box
    (half-edge ``half[i]``) grown by ``margin[i]`` overlaps, each contributes w * (
    ``normal_speed[i]`` * a_n + ``speed[i]`` * a_t), where a is the unit vector from the
    voxel's centre to the agent, a_n its component along the axis of the grown box's least
    overlap with the voxel (the contact normal), a_t the rest, and w = min(1, that least
    overlap / margin); the sum is cut to length ``speed[i]``.  ``half + margin`` must
    stay below ``size`` (then the 27 voxels hold all it can overlap).  ``free``: the
    grid's padded array; origin and voxel edge in world units."""
    cdef Py_ssize_t n = position.shape[0], i
    cdef long nx = free.shape[2] - 2, ny = free.shape[1] - 2, nz = free.shape[0] - 2
    cdef long cell[3]
    cdef long v[3]
    cdef double origin[3]
    cdef double p[3]
    cdef double push[3]
    cdef double away[3]
    cdef double reach, depth, ext, lo_v, w, length
    cdef int a, b, e, d, normal
    cdef bint blocked
    origin[0] = ox
    origin[1] = oy
    origin[2] = oz
    with nogil:
        for i in range(n):
            reach = half[i] + margin[i]
            for d in range(3):
                p[d] = position[i, d]
                cell[d] = <long> floor((p[d] - origin[d]) / size)
                push[d] = 0.0
            for e in range(-1, 2):
                for b in range(-1, 2):
                    for a in range(-1, 2):
                        v[0] = cell[0] + a
                        v[1] = cell[1] + b
                        v[2] = cell[2] + e
                        blocked = v[0] < 0 or v[0] >= nx or v[1] < 0 or v[1] >= ny \
                            or v[2] < 0 or v[2] >= nz
                        if not blocked:
                            blocked = not free[v[2] + 1, v[1] + 1, v[0] + 1]
                        if not blocked:
                            continue
                        depth = INFINITY
                        normal = 0
                        length = 0.0
                        for d in range(3):
                            lo_v = origin[d] + v[d] * size
                            ext = (lo_v + size if lo_v + size < p[d] + reach
                                   else p[d] + reach) \
                                - (lo_v if lo_v > p[d] - reach else p[d] - reach)
                            if ext < depth:
                                depth = ext
                                normal = d
                            away[d] = p[d] - (lo_v + 0.5 * size)
                            length += away[d] * away[d]
                        if depth <= 0.0 or length == 0.0:
                            continue
                        w = depth / margin[i]
                        w = (1.0 if w > 1.0 else w) / sqrt(length)
                        for d in range(3):
                            push[d] += w * away[d] * (normal_speed[i] if d == normal
                                                      else speed[i])
            length = sqrt(push[0] * push[0] + push[1] * push[1] + push[2] * push[2])
            length = 1.0 if length <= speed[i] else speed[i] / length
            for d in range(3):
                out[i, d] = push[d] * length
