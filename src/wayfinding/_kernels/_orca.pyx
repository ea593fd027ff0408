# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Optimal reciprocal collision avoidance (van den Berg, Guy, Lin and Manocha): each agent's
new velocity is the one nearest its preferred velocity, within its top speed, on the allowed
side of one half-plane per neighbour; with RVO2's semantics (reciprocal half of the change,
the cut-off circle at the time horizon, the legs of the truncated cone, the time step as the
horizon for agents already overlapping; when the half-planes leave nothing, the velocity
that least violates the worst of them).

A half-plane is a line (point, unit direction); allowed velocities lie on its left:
det(direction, v - point) <= 0.
"""

from libc.math cimport fabs, sqrt
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc

cdef double EPSILON = 1e-5     # parallel lines, as RVO2


cdef struct Line:
    double px, py, dx, dy


cdef inline double det(double ax, double ay, double bx, double by) noexcept nogil:
    return ax * by - ay * bx


cdef bint on_line(const Line* lines, int n, double radius, double ox, double oy,
                  bint direction_opt, double* rx, double* ry) noexcept nogil:
    """The best velocity on line ``n`` (within the speed circle and the first ``n`` lines):
    nearest (ox, oy), or furthest along that direction with ``direction_opt``.  False if
    the line has no such point."""
    cdef const Line* l = &lines[n]
    cdef double dot = l.px * l.dx + l.py * l.dy
    cdef double disc = dot * dot + radius * radius - (l.px * l.px + l.py * l.py)
    cdef double root, lo, hi, denom, numer, t
    cdef int i
    if disc < 0.0:
        return False                 # the line misses the speed circle
    root = sqrt(disc)
    lo = -dot - root
    hi = -dot + root
    for i in range(n):
        denom = det(l.dx, l.dy, lines[i].dx, lines[i].dy)
        numer = det(lines[i].dx, lines[i].dy, l.px - lines[i].px, l.py - lines[i].py)
        if fabs(denom) <= EPSILON:   # parallel
            if numer < 0.0:
                return False
            continue
        t = numer / denom
        if denom >= 0.0:
            hi = t if t < hi else hi
        else:
            lo = t if t > lo else lo
        if lo > hi:
            return False
    if direction_opt:
        t = hi if ox * l.dx + oy * l.dy > 0.0 else lo
    else:
        t = l.dx * (ox - l.px) + l.dy * (oy - l.py)
        t = lo if t < lo else (hi if t > hi else t)
    rx[0] = l.px + t * l.dx
    ry[0] = l.py + t * l.dy
    return True


cdef int in_planes(const Line* lines, int count, double radius, double ox, double oy,
                   bint direction_opt, double* rx, double* ry) noexcept nogil:
    """The best velocity in the speed circle and all ``count`` half-planes (incremental 2-D
    linear program); returns ``count`` on success, else the first line it failed on (the
    result then holds the best velocity for the lines before it)."""
    cdef double norm, keep_x, keep_y
    cdef int i
    if direction_opt:
        rx[0] = ox * radius
        ry[0] = oy * radius
    elif ox * ox + oy * oy > radius * radius:
        norm = sqrt(ox * ox + oy * oy)
        rx[0] = ox / norm * radius
        ry[0] = oy / norm * radius
    else:
        rx[0] = ox
        ry[0] = oy
    for i in range(count):
        if det(lines[i].dx, lines[i].dy, lines[i].px - rx[0], lines[i].py - ry[0]) > 0.0:
            keep_x = rx[0]
            keep_y = ry[0]
            if not on_line(lines, i, radius, ox, oy, direction_opt, rx, ry):
                rx[0] = keep_x
                ry[0] = keep_y
                return i
    return count


cdef void least_violation(const Line* lines, int count, int hard, int first, double radius,
                          Line* scratch, double* rx, double* ry) noexcept nogil:
    """From line ``first`` on, where the half-planes leave nothing: the velocity minimising
    the largest violation of lines ``hard`` onward, keeping the first ``hard`` lines."""
    cdef double worst = 0.0, d, keep_x, keep_y, norm
    cdef int i, j, m
    cdef Line* s
    for i in range(first, count):
        if det(lines[i].dx, lines[i].dy, lines[i].px - rx[0], lines[i].py - ry[0]) <= worst:
            continue
        # Lines equidistant from line i and each earlier soft line, on the side of both.
        for m in range(hard):
            scratch[m] = lines[m]
        m = hard
        for j in range(hard, i):
            s = &scratch[m]
            d = det(lines[i].dx, lines[i].dy, lines[j].dx, lines[j].dy)
            if fabs(d) <= EPSILON:
                if lines[i].dx * lines[j].dx + lines[i].dy * lines[j].dy > 0.0:
                    continue         # same direction: line j is no stricter
                s.px = 0.5 * (lines[i].px + lines[j].px)
                s.py = 0.5 * (lines[i].py + lines[j].py)
            else:
                d = det(lines[j].dx, lines[j].dy, lines[i].px - lines[j].px,
                        lines[i].py - lines[j].py) / d
                s.px = lines[i].px + d * lines[i].dx
                s.py = lines[i].py + d * lines[i].dy
            s.dx = lines[j].dx - lines[i].dx
            s.dy = lines[j].dy - lines[i].dy
            norm = sqrt(s.dx * s.dx + s.dy * s.dy)
            s.dx /= norm
            s.dy /= norm
            m += 1
        keep_x = rx[0]
        keep_y = ry[0]
        # Furthest into line i's allowed side, against its normal.
        if in_planes(scratch, m, radius, -lines[i].dy, lines[i].dx, True, rx, ry) < m:
            rx[0] = keep_x           # numerical trouble only: keep the last result
            ry[0] = keep_y
        worst = det(lines[i].dx, lines[i].dy, lines[i].px - rx[0], lines[i].py - ry[0])


cdef inline void agent_line(double px, double py, double vx, double vy, double r,
                            double qx, double qy, double ux, double uy, double s,
                            double inv_tau, double inv_dt, Line* out) noexcept nogil:
    """The half-plane agent (p, v, r) takes against neighbour (q, u, s), taking half of the
    velocity change that avoids it for 1 / inv_tau seconds."""
    cdef double rel_x = qx - px, rel_y = qy - py, dv_x = vx - ux, dv_y = vy - uy
    cdef double dist2 = rel_x * rel_x + rel_y * rel_y, comb = r + s, comb2 = comb * comb
    cdef double wx, wy, w2, wlen, along, leg, dot, cx, cy
    if dist2 > comb2:
        # w: from the centre of the cut-off circle to the relative velocity.
        wx = dv_x - inv_tau * rel_x
        wy = dv_y - inv_tau * rel_y
        w2 = wx * wx + wy * wy
        along = wx * rel_x + wy * rel_y
        if along < 0.0 and along * along > comb2 * w2:
            wlen = sqrt(w2)          # nearest boundary point on the cut-off circle
            wx /= wlen
            wy /= wlen
            out.dx = wy
            out.dy = -wx
            cx = (comb * inv_tau - wlen) * wx
            cy = (comb * inv_tau - wlen) * wy
        else:
            leg = sqrt(dist2 - comb2)       # nearest boundary point on a leg
            if det(rel_x, rel_y, wx, wy) > 0.0:
                out.dx = (rel_x * leg - rel_y * comb) / dist2
                out.dy = (rel_x * comb + rel_y * leg) / dist2
            else:
                out.dx = -(rel_x * leg + rel_y * comb) / dist2
                out.dy = -(-rel_x * comb + rel_y * leg) / dist2
            dot = dv_x * out.dx + dv_y * out.dy
            cx = dot * out.dx - dv_x
            cy = dot * out.dy - dv_y
    else:
        # Already overlapping: get apart within one time step.
        wx = dv_x - inv_dt * rel_x
        wy = dv_y - inv_dt * rel_y
        wlen = sqrt(wx * wx + wy * wy)
        wx /= wlen
        wy /= wlen
        out.dx = wy
        out.dy = -wx
        cx = (comb * inv_dt - wlen) * wx
        cy = (comb * inv_dt - wlen) * wy
    out.px = vx + 0.5 * cx
    out.py = vy + 0.5 * cy


def velocities(const double[:, ::1] position, const double[:, ::1] velocity,
               const double[:, ::1] preferred, const double[::1] radius,
               const double[::1] max_speed, const int32_t[:, ::1] neighbours,
               const int32_t[::1] counts, double time_horizon, double dt,
               double[:, ::1] out):
    """ORCA's new velocity of every agent (``out``, ``(n, 2)``) from the state of the
    step's start: one half-plane per neighbour (``neighbours[i, :counts[i]]``, rows, in
    order), then the linear program (and its fallback)."""
    cdef Py_ssize_t n = position.shape[0], i
    cdef int k = neighbours.shape[1], c, j, failed
    cdef double inv_tau = 1.0 / time_horizon, inv_dt = 1.0 / dt, rx, ry
    cdef Line* lines = <Line*> malloc((2 * k + 1) * sizeof(Line))
    if lines == NULL:
        raise MemoryError("cannot allocate the ORCA lines")
    with nogil:
        for i in range(n):
            c = counts[i]
            for j in range(c):
                agent_line(position[i, 0], position[i, 1], velocity[i, 0], velocity[i, 1],
                           radius[i], position[neighbours[i, j], 0],
                           position[neighbours[i, j], 1], velocity[neighbours[i, j], 0],
                           velocity[neighbours[i, j], 1], radius[neighbours[i, j]],
                           inv_tau, inv_dt, &lines[j])
            failed = in_planes(lines, c, max_speed[i], preferred[i, 0], preferred[i, 1],
                               False, &rx, &ry)
            if failed < c:
                least_violation(lines, c, 0, failed, max_speed[i], &lines[k], &rx, &ry)
            out[i, 0] = rx
            out[i, 1] = ry
    free(lines)
