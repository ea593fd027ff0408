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

from libc.math cimport INFINITY, fabs, sqrt
from libc.stdint cimport int32_t
from libc.stdlib cimport calloc, free, malloc

from ._buckets cimport bucket

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


cdef inline void left_leg(double x, double y, double d2, double r, double* lx,
                          double* ly) noexcept nogil:
    """The unit direction of the left tangent from the origin to the circle of radius r at
    (x, y), d2 = x^2 + y^2 > r^2 (the right one is the mirror image)."""
    cdef double leg = sqrt(d2 - r * r)
    lx[0] = (x * leg - y * r) / d2
    ly[0] = (x * r + y * leg) / d2


cdef inline void right_leg(double x, double y, double d2, double r, double* rx,
                           double* ry) noexcept nogil:
    cdef double leg = sqrt(d2 - r * r)
    rx[0] = (x * leg + y * r) / d2
    ry[0] = (-x * r + y * leg) / d2


cdef inline void off_circle(double wx, double wy, double radius, Line* out, double* cx,
                            double* cy) noexcept nogil:
    """w runs from a circle's centre to the relative velocity: the line's direction along
    the circle there, and in (cx, cy) the change that takes the velocity to its edge."""
    cdef double wlen = sqrt(wx * wx + wy * wy)
    wx /= wlen
    wy /= wlen
    out.dx = wy
    out.dy = -wx
    cx[0] = (radius - wlen) * wx
    cy[0] = (radius - wlen) * wy


cdef inline void agent_line(double px, double py, double vx, double vy, double r,
                            double qx, double qy, double ux, double uy, double s,
                            double inv_tau, double inv_dt, Line* out) noexcept nogil:
    """The half-plane agent (p, v, r) takes against neighbour (q, u, s), taking half of the
    velocity change that avoids it for 1 / inv_tau seconds."""
    cdef double rel_x = qx - px, rel_y = qy - py, dv_x = vx - ux, dv_y = vy - uy
    cdef double dist2 = rel_x * rel_x + rel_y * rel_y, comb = r + s, comb2 = comb * comb
    cdef double wx, wy, w2, along, dot, cx, cy
    if dist2 > comb2:
        # w: from the centre of the cut-off circle to the relative velocity.
        wx = dv_x - inv_tau * rel_x
        wy = dv_y - inv_tau * rel_y
        w2 = wx * wx + wy * wy
        along = wx * rel_x + wy * rel_y
        if along < 0.0 and along * along > comb2 * w2:
            # Nearest boundary point on the cut-off circle.
            off_circle(wx, wy, comb * inv_tau, out, &cx, &cy)
        else:
            if det(rel_x, rel_y, wx, wy) > 0.0:     # nearest boundary point on a leg
                left_leg(rel_x, rel_y, dist2, comb, &out.dx, &out.dy)
            else:
                right_leg(rel_x, rel_y, dist2, comb, &out.dx, &out.dy)
                out.dx = -out.dx
                out.dy = -out.dy
            dot = dv_x * out.dx + dv_y * out.dy
            cx = dot * out.dx - dv_x
            cy = dot * out.dy - dv_y
    else:
        # Already overlapping: get apart within one time step.
        off_circle(dv_x - inv_dt * rel_x, dv_y - inv_dt * rel_y, comb * inv_dt, out, &cx,
                   &cy)
    out.px = vx + 0.5 * cx
    out.py = vy + 0.5 * cy


cdef struct Walls:
    # Obstacle vertices (RVO2's representation): polygons counter-clockwise (their inside on
    # the left of each edge; clockwise ones keep agents inside), two-vertex ones segments.
    # Edge v runs from vertex v to nxt[v]; ``unit`` its direction; ``convex`` per vertex.
    const double* point
    const double* unit
    const int32_t* nxt
    const int32_t* prv
    const unsigned char* convex
    int count
    # Uniform buckets over the edges' bounding boxes: the edges of cell (cx, cy) are
    # cell_edges[cell_start[c]:cell_start[c + 1]], c = cy * nx + cx.
    const int32_t* cell_start
    const int32_t* cell_edges
    double ox, oy, cell
    int nx, ny
    int32_t* seen             # per edge, the last agent (+1) that looked at it


cdef inline double left_of(double ax, double ay, double bx, double by, double cx,
                           double cy) noexcept nogil:
    return det(ax - cx, ay - cy, bx - ax, by - ay)


cdef int near_edges(const Walls* w, int agent, double x, double y, double range2,
                    int32_t* found, double* found_d2) noexcept nogil:
    """The edges an agent at (x, y) faces (on their outer side) within sqrt(range2), nearest
    first (ties to the lower vertex): the obstacle neighbours of RVO2, from the buckets
    that the square around the agent overlaps."""
    cdef int v, held = 0, at, cx, cy, b
    cdef double ax, ay, bx, by, ex, ey, t, qx, qy, d2, reach = sqrt(range2)
    cdef int cx0 = bucket(x - reach - w.ox, w.cell, w.nx)
    cdef int cx1 = bucket(x + reach - w.ox, w.cell, w.nx)
    cdef int cy0 = bucket(y - reach - w.oy, w.cell, w.ny)
    cdef int cy1 = bucket(y + reach - w.oy, w.cell, w.ny)
    cx0 = 0 if cx0 < 0 else cx0
    cy0 = 0 if cy0 < 0 else cy0
    cx1 = w.nx - 1 if cx1 > w.nx - 1 else cx1
    cy1 = w.ny - 1 if cy1 > w.ny - 1 else cy1
    for cy in range(cy0, cy1 + 1):
        for cx in range(cx0, cx1 + 1):
            for b in range(w.cell_start[cy * w.nx + cx], w.cell_start[cy * w.nx + cx + 1]):
                v = w.cell_edges[b]
                if w.seen[v] == agent + 1:
                    continue
                w.seen[v] = agent + 1
                ax = w.point[2 * v]
                ay = w.point[2 * v + 1]
                bx = w.point[2 * w.nxt[v]]
                by = w.point[2 * w.nxt[v] + 1]
                if not left_of(ax, ay, bx, by, x, y) < 0.0:
                    continue
                ex = bx - ax
                ey = by - ay
                t = ((x - ax) * ex + (y - ay) * ey) / (ex * ex + ey * ey)
                t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
                qx = ax + t * ex - x
                qy = ay + t * ey - y
                d2 = qx * qx + qy * qy
                if not d2 < range2:
                    continue
                at = held
                while at > 0 and (d2 < found_d2[at - 1]
                                  or (d2 == found_d2[at - 1] and v < found[at - 1])):
                    found[at] = found[at - 1]
                    found_d2[at] = found_d2[at - 1]
                    at -= 1
                found[at] = v
                found_d2[at] = d2
                held += 1
    return held


cdef inline void set_line(Line* l, double px, double py, double dx, double dy) noexcept nogil:
    l.px = px
    l.py = py
    l.dx = dx
    l.dy = dy


cdef inline void circle_line(Line* l, double cx, double cy, double vx, double vy,
                             double radius) noexcept nogil:
    """The half-plane tangent to the circle (centre, radius) nearest velocity v."""
    cdef double ux = vx - cx, uy = vy - cy, norm = sqrt(ux * ux + uy * uy)
    ux /= norm
    uy /= norm
    set_line(l, cx + radius * ux, cy + radius * uy, uy, -ux)


cdef int obstacle_lines(const Walls* w, const int32_t* edges, int count, double px,
                        double py, double vx, double vy, double r, double inv_tau,
                        Line* lines) noexcept nogil:
    """The half-planes of an agent (p, v, r) against the obstacle edges it faces (nearest
    first), each skipped when earlier ones already cover it; returns how many."""
    cdef int e, j, n = 0, o1, o2
    cdef double r1x, r1y, r2x, r2y, d1, d2, r2 = r * r, ox, oy, s, dlx, dly, dline
    cdef double lx, ly, rx, ry, norm, lcx, lcy, rcx, rcy, cvx, cvy, t, tl, tr
    cdef double dcut, dleft, dright, ux, uy
    cdef bint covered, left_foreign, right_foreign
    for e in range(count):
        o1 = edges[e]
        o2 = w.nxt[o1]
        r1x = w.point[2 * o1] - px
        r1y = w.point[2 * o1 + 1] - py
        r2x = w.point[2 * o2] - px
        r2y = w.point[2 * o2 + 1] - py
        # Already covered by an earlier half-plane (both ends of the edge's cut-off)?
        covered = False
        for j in range(n):
            if det(inv_tau * r1x - lines[j].px, inv_tau * r1y - lines[j].py, lines[j].dx,
                   lines[j].dy) - inv_tau * r >= -EPSILON \
                    and det(inv_tau * r2x - lines[j].px, inv_tau * r2y - lines[j].py,
                            lines[j].dx, lines[j].dy) - inv_tau * r >= -EPSILON:
                covered = True
                break
        if covered:
            continue
        d1 = r1x * r1x + r1y * r1y
        d2 = r2x * r2x + r2y * r2y
        ox = w.point[2 * o2] - w.point[2 * o1]
        oy = w.point[2 * o2 + 1] - w.point[2 * o1 + 1]
        s = (-r1x * ox - r1y * oy) / (ox * ox + oy * oy)
        dlx = -r1x - s * ox
        dly = -r1y - s * oy
        dline = dlx * dlx + dly * dly
        # Already touching the edge: get off it at once.
        if s < 0.0 and d1 <= r2:
            if w.convex[o1]:
                norm = sqrt(d1)
                set_line(&lines[n], 0.0, 0.0, -r1y / norm, r1x / norm)
                n += 1
            continue
        if s > 1.0 and d2 <= r2:
            if w.convex[o2] and det(r2x, r2y, w.unit[2 * o2], w.unit[2 * o2 + 1]) >= 0.0:
                norm = sqrt(d2)
                set_line(&lines[n], 0.0, 0.0, -r2y / norm, r2x / norm)
                n += 1
            continue
        if s >= 0.0 and s <= 1.0 and dline <= r2:
            set_line(&lines[n], 0.0, 0.0, -w.unit[2 * o1], -w.unit[2 * o1 + 1])
            n += 1
            continue
        # Clear of it: the legs of its velocity obstacle.
        if s < 0.0 and dline <= r2:
            if not w.convex[o1]:
                continue            # seen edge-on past a concave vertex: nothing to add
            o2 = o1                 # both legs from the first vertex
            left_leg(r1x, r1y, d1, r, &lx, &ly)
            right_leg(r1x, r1y, d1, r, &rx, &ry)
        elif s > 1.0 and dline <= r2:
            if not w.convex[o2]:
                continue
            o1 = o2                 # both legs from the second vertex
            left_leg(r2x, r2y, d2, r, &lx, &ly)
            right_leg(r2x, r2y, d2, r, &rx, &ry)
        else:
            if w.convex[o1]:
                left_leg(r1x, r1y, d1, r, &lx, &ly)
            else:
                lx = -w.unit[2 * o1]
                ly = -w.unit[2 * o1 + 1]
            if w.convex[o2]:
                right_leg(r2x, r2y, d2, r, &rx, &ry)
            else:
                rx = w.unit[2 * o1]
                ry = w.unit[2 * o1 + 1]
        # A leg from a convex vertex may not point into the neighbouring edge: that edge's
        # own line takes its place (and is left to that edge's half-plane).
        left_foreign = False
        right_foreign = False
        if w.convex[o1] and det(lx, ly, -w.unit[2 * w.prv[o1]],
                                -w.unit[2 * w.prv[o1] + 1]) >= 0.0:
            lx = -w.unit[2 * w.prv[o1]]
            ly = -w.unit[2 * w.prv[o1] + 1]
            left_foreign = True
        if w.convex[o2] and det(rx, ry, w.unit[2 * o2], w.unit[2 * o2 + 1]) <= 0.0:
            rx = w.unit[2 * o2]
            ry = w.unit[2 * o2 + 1]
            right_foreign = True
        lcx = inv_tau * (w.point[2 * o1] - px)
        lcy = inv_tau * (w.point[2 * o1 + 1] - py)
        rcx = inv_tau * (w.point[2 * o2] - px)
        rcy = inv_tau * (w.point[2 * o2 + 1] - py)
        cvx = rcx - lcx
        cvy = rcy - lcy
        t = 0.5 if o1 == o2 else ((vx - lcx) * cvx + (vy - lcy) * cvy) / (cvx * cvx + cvy * cvy)
        tl = (vx - lcx) * lx + (vy - lcy) * ly
        tr = (vx - rcx) * rx + (vy - rcy) * ry
        if (t < 0.0 and tl < 0.0) or (o1 == o2 and tl < 0.0 and tr < 0.0):
            circle_line(&lines[n], lcx, lcy, vx, vy, r * inv_tau)   # the left cut-off circle
            n += 1
            continue
        if t > 1.0 and tr < 0.0:
            circle_line(&lines[n], rcx, rcy, vx, vy, r * inv_tau)   # the right one
            n += 1
            continue
        # Else the nearest of the cut-off segment and the two legs.
        dcut = INFINITY if (t < 0.0 or t > 1.0 or o1 == o2) else \
            (vx - lcx - t * cvx) * (vx - lcx - t * cvx) + (vy - lcy - t * cvy) * (vy - lcy - t * cvy)
        dleft = INFINITY if tl < 0.0 else \
            (vx - lcx - tl * lx) * (vx - lcx - tl * lx) + (vy - lcy - tl * ly) * (vy - lcy - tl * ly)
        dright = INFINITY if tr < 0.0 else \
            (vx - rcx - tr * rx) * (vx - rcx - tr * rx) + (vy - rcy - tr * ry) * (vy - rcy - tr * ry)
        if dcut <= dleft and dcut <= dright:
            ux = -w.unit[2 * o1]
            uy = -w.unit[2 * o1 + 1]
            set_line(&lines[n], lcx + r * inv_tau * -uy, lcy + r * inv_tau * ux, ux, uy)
            n += 1
        elif dleft <= dright:
            if left_foreign:
                continue
            set_line(&lines[n], lcx + r * inv_tau * -ly, lcy + r * inv_tau * lx, lx, ly)
            n += 1
        else:
            if right_foreign:
                continue
            set_line(&lines[n], rcx + r * inv_tau * ry, rcy + r * inv_tau * -rx, -rx, -ry)
            n += 1
    return n


def velocities(const double[:, ::1] position, const double[:, ::1] velocity,
               const double[:, ::1] preferred, const double[::1] radius,
               const double[::1] max_speed, const int32_t[:, ::1] neighbours,
               const int32_t[::1] counts, const double[::1] time_horizon, double dt,
               double[:, ::1] out, const double[:, ::1] wall_point=None,
               const double[:, ::1] wall_unit=None, const int32_t[::1] wall_next=None,
               const int32_t[::1] wall_prev=None, const unsigned char[::1] wall_convex=None,
               const int32_t[::1] cell_start=None, const int32_t[::1] cell_edges=None,
               tuple buckets=(0.0, 0.0, 1.0, 0, 0), const double[::1] time_horizon_obst=None):
    """ORCA's new velocity of every agent (``out``, ``(n, 2)``) from the state of the
    step's start: one half-plane per obstacle edge it faces within ``time_horizon_obst *
    max_speed + radius`` (nearest first, kept hard), then one per neighbour
    (``neighbours[i, :counts[i]]``, rows, in order), then the linear program (and its
    fallback).  ``time_horizon`` and ``time_horizon_obst`` (needed with walls) are per
    agent.  The ``wall_*`` arrays describe the obstacle vertices, ``cell_start``,
    ``cell_edges`` and ``buckets`` = (ox, oy, cell, nx, ny) their buckets (see ``Walls``)."""
    cdef Py_ssize_t n = position.shape[0], i
    cdef int k = neighbours.shape[1], c, j, failed, m = 0, hard
    cdef double inv_dt = 1.0 / dt, rx, ry, reach
    cdef Walls w
    cdef Line* lines
    cdef int32_t* edges = NULL
    cdef double* edge_d2 = NULL
    if wall_point is not None:
        m = wall_point.shape[0]
    w.count = m
    if m:
        w.point = &wall_point[0, 0]
        w.unit = &wall_unit[0, 0]
        w.nxt = &wall_next[0]
        w.prv = &wall_prev[0]
        w.convex = &wall_convex[0]
        w.cell_start = &cell_start[0]
        w.cell_edges = &cell_edges[0]
        w.ox, w.oy, w.cell, w.nx, w.ny = buckets
    lines = <Line*> malloc((2 * (k + m) + 1) * sizeof(Line))
    edges = <int32_t*> malloc((m + 1) * sizeof(int32_t))
    edge_d2 = <double*> malloc((m + 1) * sizeof(double))
    w.seen = <int32_t*> calloc(m + 1, sizeof(int32_t))
    if lines == NULL or edges == NULL or edge_d2 == NULL or w.seen == NULL:
        free(lines)
        free(edges)
        free(edge_d2)
        free(w.seen)
        raise MemoryError("cannot allocate the ORCA lines")
    with nogil:
        for i in range(n):
            hard = 0
            if m:
                reach = time_horizon_obst[i] * max_speed[i] + radius[i]
                c = near_edges(&w, <int> i, position[i, 0], position[i, 1], reach * reach,
                               edges, edge_d2)
                hard = obstacle_lines(&w, edges, c, position[i, 0], position[i, 1],
                                      velocity[i, 0], velocity[i, 1], radius[i],
                                      1.0 / time_horizon_obst[i],
                                      lines)
            c = counts[i]
            for j in range(c):
                agent_line(position[i, 0], position[i, 1], velocity[i, 0], velocity[i, 1],
                           radius[i], position[neighbours[i, j], 0],
                           position[neighbours[i, j], 1], velocity[neighbours[i, j], 0],
                           velocity[neighbours[i, j], 1], radius[neighbours[i, j]],
                           1.0 / time_horizon[i], inv_dt, &lines[hard + j])
            c += hard
            failed = in_planes(lines, c, max_speed[i], preferred[i, 0], preferred[i, 1],
                               False, &rx, &ry)
            if failed < c:
                least_violation(lines, c, hard, failed, max_speed[i], &lines[k + m], &rx,
                                &ry)
            out[i, 0] = rx
            out[i, 1] = ry
    free(lines)
    free(edges)
    free(edge_d2)
    free(w.seen)
