# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Optimal reciprocal collision avoidance (van den Berg, Guy, Lin and Manocha): each agent's
new velocity is the one nearest its preferred velocity, within its top speed, on the allowed
side of one half-plane per neighbour; with RVO2's semantics (reciprocal half of the change,
the cut-off circle at the time horizon, the legs of the truncated cone, the time step as the
horizon for agents already overlapping; when the half-planes leave nothing, the velocity
that least violates the worst of them).  Obstacle edges come from RVO2's obstacle tree
(``obstacle_tree``, built once: each node an edge, the edges crossing its line split
there), each agent taking the edges it faces nearest first, in the tree's order at equal
distances.

A half-plane is a line (point, unit direction); allowed velocities lie on its left:
det(direction, v - point) <= 0.
"""

from libc.math cimport INFINITY, fabs, hypot, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc, realloc

import numpy as np

cdef double EPSILON = 1e-5     # parallel lines, as RVO2
cdef double SLACK = 1e-9       # lines missing each other by less (times the top speed) meet
cdef int BLOCK = 256           # edges between looks at a candidate splitting edge's counts


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
    cdef double gap = det(l.dx, l.dy, l.px, l.py)        # the line's distance from 0
    cdef double disc = radius * radius - gap * gap
    cdef double root, lo, hi, denom, numer, t, slack = SLACK * radius
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
            if numer < -slack:
                return False
            continue
        t = numer / denom
        if denom >= 0.0:
            hi = t if t < hi else hi
        else:
            lo = t if t > lo else lo
        if lo > hi + slack:
            return False
    if lo > hi:                      # lines meeting in one point, but for rounding
        lo = hi = 0.5 * (lo + hi)
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
        norm = hypot(ox, oy)             # no overflow for a huge preferred velocity
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


cdef inline void off_circle(double wx, double wy, double radius, double rel_x, double rel_y,
                            bint later, Line* out, double* cx, double* cy) noexcept nogil:
    """w runs from a circle's centre to the relative velocity: the line's direction along
    the circle there, and in (cx, cy) the change that takes the velocity to its edge.  For
    w zero (every way out as near) the change is at right angles to the relative position
    rel (to its right, opposite for -rel); for rel zero too (two agents at one point with
    one velocity) along +x for the agent of the pair that comes ``later`` in the rows and
    -x for the other (the lower row to the left, as the navigators part them)."""
    cdef double wlen = hypot(wx, wy), h
    if wlen > 0.0:
        wx /= wlen
        wy /= wlen
    else:
        h = sqrt(rel_x * rel_x + rel_y * rel_y)
        if h > 0.0:
            wx = rel_y / h
            wy = -rel_x / h
        else:
            wx = 1.0 if later else -1.0
            wy = 0.0
    out.dx = wy
    out.dy = -wx
    cx[0] = (radius - wlen) * wx
    cy[0] = (radius - wlen) * wy


cdef inline bint agent_line(double px, double py, double vx, double vy, double r,
                            double qx, double qy, double ux, double uy, double s,
                            double inv_tau, double inv_dt, bint later, Line* out) noexcept nogil:
    """The half-plane agent (p, v, r) takes against neighbour (q, u, s), taking half of the
    velocity change that avoids it for 1 / inv_tau seconds.  ``later``: the agent's row
    comes after the neighbour's (which way two agents at one point with one velocity
    part).  False, with no line, where the velocity obstacle lies beyond every float (a
    horizon so short for the distance that rel / tau overflows): no velocity meets it."""
    cdef double rel_x = qx - px, rel_y = qy - py, dv_x = vx - ux, dv_y = vy - uy
    cdef double dist2 = rel_x * rel_x + rel_y * rel_y, comb = r + s, comb2 = comb * comb
    cdef double wx, wy, wlen, along, dot, cx, cy
    if dist2 > comb2:
        # w: from the centre of the cut-off circle to the relative velocity.
        wx = dv_x - inv_tau * rel_x
        wy = dv_y - inv_tau * rel_y
        # along: w's unit direction dotted with rel (no square of w to overflow).
        wlen = hypot(wx, wy)
        if not wlen < INFINITY:
            return False
        along = (wx / wlen) * rel_x + (wy / wlen) * rel_y if wlen > 0.0 else 0.0
        if along < 0.0 and along * along > comb2:
            # Nearest boundary point on the cut-off circle.
            off_circle(wx, wy, comb * inv_tau, rel_x, rel_y, later, out, &cx, &cy)
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
        off_circle(dv_x - inv_dt * rel_x, dv_y - inv_dt * rel_y, comb * inv_dt, rel_x, rel_y,
                   later, out, &cx, &cy)
    out.px = vx + 0.5 * cx
    out.py = vy + 0.5 * cy
    return True


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
    # The obstacle tree (see ``obstacle_tree``): each edge is one node, with the edges on the
    # left and on the right of its line below it (-1: none); ``root`` the top one.
    const int32_t* left
    const int32_t* right
    int root


cdef inline double left_of(double ax, double ay, double bx, double by, double cx,
                           double cy) noexcept nogil:
    """How far c lies left of the line a -> b (times |b - a|)."""
    return det(ax - cx, ay - cy, bx - ax, by - ay)


cdef int near_edges(const Walls* w, double x, double y, double range2, int32_t* found,
                    double* found_d2, int32_t* stack) noexcept nogil:
    """The edges an agent at (x, y) faces (strictly on their outer side) within
    sqrt(range2): RVO2's obstacle neighbours, nearest first, equal distances in the order
    the tree visits them (at each node: the agent's side, the node, the other side, which
    is skipped when the node's line is out of range).  ``stack`` holds ``count + 1``."""
    cdef int held = 0, top = 0, v, item, at
    cdef double ax, ay, bx, by, side, ex, ey, e2, t, d2
    if w.root < 0:
        return 0
    stack[0] = 2 * w.root
    top = 1
    while top:
        top -= 1
        item = stack[top]
        v = item >> 1
        ax = w.point[2 * v]
        ay = w.point[2 * v + 1]
        bx = w.point[2 * w.nxt[v]]
        by = w.point[2 * w.nxt[v] + 1]
        side = left_of(ax, ay, bx, by, x, y)
        if not item & 1:                  # first the agent's side, then the node
            stack[top] = item | 1
            top += 1
            v = w.left[v] if side >= 0.0 else w.right[v]
            if v >= 0:
                stack[top] = 2 * v
                top += 1
            continue
        ex = bx - ax
        ey = by - ay
        e2 = ex * ex + ey * ey
        # The squared distance to the node's line (RVO2's formula; over |e| first where
        # side's square would overflow).
        t = side * side / e2 if fabs(side) < 1e150 else (side / sqrt(e2)) * (side / sqrt(e2))
        if not t < range2:
            continue
        if side < 0.0:
            t = ((x - ax) * ex + (y - ay) * ey) / e2
            if t < 0.0:
                d2 = (x - ax) * (x - ax) + (y - ay) * (y - ay)
            elif t > 1.0:
                d2 = (x - bx) * (x - bx) + (y - by) * (y - by)
            else:
                d2 = (x - ax - t * ex) * (x - ax - t * ex) + (y - ay - t * ey) * (y - ay - t * ey)
            if d2 < range2:
                at = held
                while at > 0 and d2 < found_d2[at - 1]:
                    found[at] = found[at - 1]
                    found_d2[at] = found_d2[at - 1]
                    at -= 1
                found[at] = v
                found_d2[at] = d2
                held += 1
        v = w.right[v] if side >= 0.0 else w.left[v]
        if v >= 0:
            stack[top] = 2 * v
            top += 1
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


cdef struct Tree:
    # Growing arrays of the vertices (``Walls``' fields) and of the tree's children.
    double* point
    double* unit
    int32_t* nxt
    int32_t* prv
    int32_t* left
    int32_t* right
    unsigned char* convex
    int count, capacity, root


cdef struct Task:
    # Edges still to be put under node ``parent`` (-1: the root) on its side ``side``.
    int32_t* edges
    int n, parent, side


cdef bint grow(void** a, size_t size) noexcept nogil:
    cdef void* b = realloc(a[0], size)
    if b == NULL:
        return False
    a[0] = b
    return True


cdef bint add_vertex(Tree* t) noexcept nogil:
    """Room for one more vertex; False when out of memory."""
    cdef int c = 2 * t.capacity + 16
    if t.count < t.capacity:
        return True
    if not (grow(<void**> &t.point, 2 * c * sizeof(double))
            and grow(<void**> &t.unit, 2 * c * sizeof(double))
            and grow(<void**> &t.nxt, c * sizeof(int32_t))
            and grow(<void**> &t.prv, c * sizeof(int32_t))
            and grow(<void**> &t.left, c * sizeof(int32_t))
            and grow(<void**> &t.right, c * sizeof(int32_t))
            and grow(<void**> &t.convex, c * sizeof(unsigned char))):
        return False
    t.capacity = c
    return True


cdef inline double edge_side(const Tree* t, int i, int v) noexcept nogil:
    """How far vertex v lies left of edge i's line (times the edge's length)."""
    cdef int j = t.nxt[i]
    return left_of(t.point[2 * i], t.point[2 * i + 1], t.point[2 * j], t.point[2 * j + 1],
                   t.point[2 * v], t.point[2 * v + 1])


cdef int best_split(const double* ends, int n) noexcept nogil:
    """RVO2's choice of the edge to split ``n`` edges by (``ends``: their ax, then their ay,
    bx and by): the first that minimises the larger of the counts of edges on its left and on its
    right (then the smaller), an edge crossing its line (beyond EPSILON at both ends)
    counting on both sides.  A candidate is dropped once its counts (which only grow) are
    no better than the best's, looked at every ``BLOCK`` edges."""
    cdef int i, j, j0, j1, lo, hi, best = 0, best_hi = n, best_lo = n, a, b
    cdef double s1, s2, ax, ay, ex, ey, eps = EPSILON
    cdef int on_left, on_right
    for i in range(n):
        a = 0
        b = 0
        ax = ends[i]
        ay = ends[n + i]
        ex = ends[2 * n + i] - ax
        ey = ends[3 * n + i] - ay
        j1 = 0
        while j1 < n:
            j0 = j1
            j1 = j0 + BLOCK if j0 + BLOCK < n else n
            for j in range(j0, j1):
                s1 = (ax - ends[j]) * ey - (ay - ends[n + j]) * ex       # as left_of
                s2 = (ax - ends[2 * n + j]) * ey - (ay - ends[3 * n + j]) * ex
                on_left = (s1 >= -eps) & (s2 >= -eps)
                on_right = (s1 <= eps) & (s2 <= eps)
                a += on_left | (on_right ^ 1)          # crossing: on both sides
                b += on_left ^ 1
            if i >= j0 and i < j1:
                a -= 1                                 # edge i itself, on its line
            hi = a if a > b else b
            lo = a + b - hi
            if hi > best_hi or (hi == best_hi and lo >= best_lo):
                break                                  # no better than the best so far
        hi = a if a > b else b
        lo = a + b - hi
        if hi < best_hi or (hi == best_hi and lo < best_lo):
            best_hi = hi
            best_lo = lo
            best = i
    return best


cdef inline void put(Task* task, int edge) noexcept nogil:
    task.edges[task.n] = edge
    task.n += 1


cdef bint split_node(Tree* t, Task* task, Task* below) noexcept nogil:
    """Make the best splitting edge of ``task`` a node, and the edges on its left and right
    (``below[0]`` and ``below[1]``), splitting each edge that crosses its line with a new
    convex vertex on it.  False when out of memory."""
    cdef int k, j, i, jn, v, best, n = task.n
    cdef double s1, s2, ix, iy, jx, jy, f
    cdef double* ends = <double*> malloc(4 * n * sizeof(double))
    below[0].edges = <int32_t*> malloc(n * sizeof(int32_t))
    below[1].edges = <int32_t*> malloc(n * sizeof(int32_t))
    below[0].n = below[1].n = 0
    below[0].side = 0
    below[1].side = 1
    if ends == NULL or below[0].edges == NULL or below[1].edges == NULL:
        free(ends)
        return False
    for k in range(n):
        j = task.edges[k]
        ends[k] = t.point[2 * j]
        ends[n + k] = t.point[2 * j + 1]
        ends[2 * n + k] = t.point[2 * t.nxt[j]]
        ends[3 * n + k] = t.point[2 * t.nxt[j] + 1]
    best = best_split(ends, n)
    free(ends)
    i = task.edges[best]
    below[0].parent = below[1].parent = i
    if task.parent < 0:
        t.root = i
    elif task.side == 0:
        t.left[task.parent] = i
    else:
        t.right[task.parent] = i
    for k in range(task.n):
        if k == best:
            continue
        j = task.edges[k]
        jn = t.nxt[j]
        s1 = edge_side(t, i, j)
        s2 = edge_side(t, i, jn)
        if s1 >= -EPSILON and s2 >= -EPSILON:
            put(&below[0], j)
            continue
        if s1 <= EPSILON and s2 <= EPSILON:
            put(&below[1], j)
            continue
        if not add_vertex(t):
            return False
        v = t.count
        t.count += 1
        # Where edge j crosses edge i's line: the share f of the way from j to jn.
        ix = t.point[2 * t.nxt[i]] - t.point[2 * i]
        iy = t.point[2 * t.nxt[i] + 1] - t.point[2 * i + 1]
        jx = t.point[2 * jn] - t.point[2 * j]
        jy = t.point[2 * jn + 1] - t.point[2 * j + 1]
        f = det(ix, iy, t.point[2 * j] - t.point[2 * i], t.point[2 * j + 1] - t.point[2 * i + 1]) \
            / det(ix, iy, -jx, -jy)
        t.point[2 * v] = t.point[2 * j] + f * jx
        t.point[2 * v + 1] = t.point[2 * j + 1] + f * jy
        t.unit[2 * v] = t.unit[2 * j]
        t.unit[2 * v + 1] = t.unit[2 * j + 1]
        t.convex[v] = True
        t.nxt[v] = jn
        t.prv[v] = j
        t.left[v] = t.right[v] = -1
        t.nxt[j] = v
        t.prv[jn] = v
        put(&below[0 if s1 > 0.0 else 1], j)         # the part from j on the side of j
        put(&below[1 if s1 > 0.0 else 0], v)
    return True


cdef bint build(Tree* t) noexcept nogil:
    """The tree over all of ``t``'s edges, depth first, each left subtree before its right
    one; False when out of memory."""
    cdef int top = 0, capacity = 64, v, side
    cdef Task* stack = <Task*> malloc(capacity * sizeof(Task))
    cdef Task task
    cdef Task below[2]
    cdef bint ok = stack != NULL
    t.root = -1
    if ok and t.count:
        stack[0].edges = <int32_t*> malloc(t.count * sizeof(int32_t))
        stack[0].n = t.count
        stack[0].parent = -1
        stack[0].side = 0
        ok = stack[0].edges != NULL
        if ok:
            top = 1
            for v in range(t.count):
                stack[0].edges[v] = v
    while ok and top:
        top -= 1
        task = stack[top]
        below[0].edges = below[1].edges = NULL
        below[0].n = below[1].n = 0
        ok = split_node(t, &task, below)
        free(task.edges)
        for side in range(1, -1, -1):             # the right one first, to come out last
            if ok and below[side].n:
                if top == capacity:
                    capacity *= 2
                    ok = grow(<void**> &stack, capacity * sizeof(Task))
                if ok:
                    stack[top] = below[side]
                    top += 1
                    continue
            free(below[side].edges)
    while top:
        top -= 1
        free(stack[top].edges)
    free(stack)
    return ok


def obstacle_tree(const double[:, ::1] point, const double[:, ::1] unit,
                  const int32_t[::1] nxt, const int32_t[::1] prv,
                  const unsigned char[::1] convex):
    """RVO2's obstacle tree over the edges of ``m`` vertices (``Walls``' arrays): each node
    an edge, the edges left of its line (within EPSILON) in its left subtree, those right
    of it in its right one; an edge that crosses the line is split there by a new convex
    vertex, numbered as RVO2 numbers it (from ``m`` on, in the order the nodes are made,
    depth first, left before right).  Returns ``(point, unit, nxt, prv, convex, left,
    right, root)``: the vertices' arrays with the new vertices appended, each edge's
    children in the tree (-1: none) and the top edge (-1 without edges)."""
    cdef int m = point.shape[0], v, n
    cdef Tree t
    cdef bint ok = True
    cdef double[:, ::1] o_point, o_unit
    cdef int32_t[::1] o_nxt, o_prv, o_left, o_right
    cdef unsigned char[::1] o_convex
    t.point = t.unit = NULL
    t.nxt = t.prv = t.left = t.right = NULL
    t.convex = NULL
    t.count = t.capacity = 0
    while ok and t.capacity < m:                  # room for the m vertices given
        t.count = t.capacity
        ok = add_vertex(&t)
    t.count = m
    if ok:
        for v in range(m):
            t.point[2 * v] = point[v, 0]
            t.point[2 * v + 1] = point[v, 1]
            t.unit[2 * v] = unit[v, 0]
            t.unit[2 * v + 1] = unit[v, 1]
            t.nxt[v] = nxt[v]
            t.prv[v] = prv[v]
            t.convex[v] = convex[v]
            t.left[v] = t.right[v] = -1
        with nogil:
            ok = build(&t)
    n = t.count
    if ok:
        o_point = np.empty((n, 2))
        o_unit = np.empty((n, 2))
        o_nxt = np.empty(n, np.int32)
        o_prv = np.empty(n, np.int32)
        o_convex = np.empty(n, np.uint8)
        o_left = np.empty(n, np.int32)
        o_right = np.empty(n, np.int32)
        for v in range(n):
            o_point[v, 0] = t.point[2 * v]
            o_point[v, 1] = t.point[2 * v + 1]
            o_unit[v, 0] = t.unit[2 * v]
            o_unit[v, 1] = t.unit[2 * v + 1]
            o_nxt[v] = t.nxt[v]
            o_prv[v] = t.prv[v]
            o_convex[v] = t.convex[v]
            o_left[v] = t.left[v]
            o_right[v] = t.right[v]
    free(t.point)
    free(t.unit)
    free(t.nxt)
    free(t.prv)
    free(t.left)
    free(t.right)
    free(t.convex)
    if not ok:
        raise MemoryError("cannot allocate the obstacle tree")
    return (o_point.base, o_unit.base, o_nxt.base, o_prv.base, o_convex.base, o_left.base,
            o_right.base, t.root)


cdef Walls walls(const double[:, ::1] point, const double[:, ::1] unit,
                const int32_t[::1] nxt, const int32_t[::1] prv,
                const unsigned char[::1] convex, const int32_t[::1] left,
                const int32_t[::1] right, int root):
    """The ``Walls`` over the arrays of ``obstacle_tree``."""
    cdef Walls w
    w.count = point.shape[0]
    w.root = root if w.count else -1
    w.left = w.right = NULL
    if w.count:
        w.point = &point[0, 0]
        w.unit = &unit[0, 0]
        w.nxt = &nxt[0]
        w.prv = &prv[0]
        w.convex = &convex[0]
        if left is not None:
            w.left = &left[0]
            w.right = &right[0]
        else:
            w.root = -1
    return w


def velocities(const double[:, ::1] position, const double[:, ::1] velocity,
               const double[:, ::1] preferred, const double[::1] radius,
               const double[::1] max_speed, const int32_t[:, ::1] neighbours,
               const int32_t[::1] counts, const double[::1] time_horizon, double dt,
               double[:, ::1] out, const double[:, ::1] wall_point=None,
               const double[:, ::1] wall_unit=None, const int32_t[::1] wall_next=None,
               const int32_t[::1] wall_prev=None, const unsigned char[::1] wall_convex=None,
               const int32_t[::1] tree_left=None, const int32_t[::1] tree_right=None,
               int tree_root=-1, const double[::1] time_horizon_obst=None,
               const int64_t[::1] edge_ptr=None, const int32_t[::1] edge_ids=None,
               const double[::1] wall_radius=None):
    """ORCA's new velocity of every agent (``out``, ``(n, 2)``) from the state of the
    step's start: one half-plane per obstacle edge it faces within ``time_horizon_obst *
    max_speed + radius`` (nearest first, kept hard), then one per neighbour
    (``neighbours[i, :counts[i]]``, rows, in order), then the linear program (and its
    fallback).  ``time_horizon`` and ``time_horizon_obst`` (needed with walls) are per
    agent.  The ``wall_*`` and ``tree_*`` arrays are those of ``obstacle_tree``.  With
    ``edge_ptr`` and ``edge_ids`` each agent takes its own edges instead of the tree's:
    agent i those of ``edge_ids[edge_ptr[i]:edge_ptr[i + 1]]`` (edges by their first
    vertex, nearest first; the ``tree_*`` arrays are then unused).  ``wall_radius``: the
    radius each agent keeps from the obstacles (default its ``radius``)."""
    cdef Py_ssize_t n = position.shape[0], i
    cdef int k = neighbours.shape[1], c, j, failed, m = 0, hard
    cdef double inv_dt = 1.0 / dt, rx, ry, reach, speed
    cdef Walls w
    cdef Line* lines
    cdef int32_t* edges = NULL
    cdef int32_t* stack = NULL
    cdef double* edge_d2 = NULL
    cdef bint own = edge_ptr is not None
    cdef const double* wr = NULL
    if wall_radius is not None and wall_radius.shape[0] != n:
        raise ValueError("wall_radius needs one radius per agent")
    if n:
        wr = &radius[0] if wall_radius is None else &wall_radius[0]
    if own and (edge_ids is None or wall_point is None or edge_ptr.shape[0] != n + 1):
        raise ValueError("edge_ptr needs n + 1 entries, edge_ids and the walls")
    if wall_point is not None:
        m = wall_point.shape[0]
        w = walls(wall_point, wall_unit, wall_next, wall_prev, wall_convex, tree_left,
                  tree_right, tree_root)
    else:
        w.count = 0
        w.root = -1
    lines = <Line*> malloc((2 * (k + m) + 1) * sizeof(Line))
    edges = <int32_t*> malloc((m + 1) * sizeof(int32_t))
    stack = <int32_t*> malloc((m + 1) * sizeof(int32_t))
    edge_d2 = <double*> malloc((m + 1) * sizeof(double))
    if lines == NULL or edges == NULL or edge_d2 == NULL or stack == NULL:
        free(lines)
        free(edges)
        free(edge_d2)
        free(stack)
        raise MemoryError("cannot allocate the ORCA lines")
    with nogil:
        for i in range(n):
            hard = 0
            if own:
                c = <int>(edge_ptr[i + 1] - edge_ptr[i])
                if c:
                    hard = obstacle_lines(&w, &edge_ids[edge_ptr[i]], c, position[i, 0],
                                          position[i, 1], velocity[i, 0], velocity[i, 1],
                                          wr[i], 1.0 / time_horizon_obst[i], lines)
            elif m:
                reach = time_horizon_obst[i] * max_speed[i] + wr[i]
                c = near_edges(&w, position[i, 0], position[i, 1], reach * reach, edges,
                               edge_d2, stack)
                hard = obstacle_lines(&w, edges, c, position[i, 0], position[i, 1],
                                      velocity[i, 0], velocity[i, 1], wr[i],
                                      1.0 / time_horizon_obst[i],
                                      lines)
            c = hard
            for j in range(counts[i]):
                c += agent_line(position[i, 0], position[i, 1], velocity[i, 0],
                                velocity[i, 1], radius[i], position[neighbours[i, j], 0],
                                position[neighbours[i, j], 1], velocity[neighbours[i, j], 0],
                                velocity[neighbours[i, j], 1], radius[neighbours[i, j]],
                                1.0 / time_horizon[i], inv_dt, neighbours[i, j] < i,
                                &lines[c])
            failed = in_planes(lines, c, max_speed[i], preferred[i, 0], preferred[i, 1],
                               False, &rx, &ry)
            if failed < c:
                least_violation(lines, c, hard, failed, max_speed[i], &lines[k + m], &rx,
                                &ry)
            speed = hypot(rx, ry)
            if speed > max_speed[i]:         # rounding, on lines far outside the speed circle
                rx *= max_speed[i] / speed
                ry *= max_speed[i] / speed
            out[i, 0] = rx
            out[i, 1] = ry
    free(lines)
    free(edges)
    free(edge_d2)
    free(stack)


def obstacle_neighbours(const double[:, ::1] wall_point, const double[:, ::1] wall_unit,
                        const int32_t[::1] wall_next, const int32_t[::1] wall_prev,
                        const unsigned char[::1] wall_convex, const int32_t[::1] tree_left,
                        const int32_t[::1] tree_right, int tree_root, double x, double y,
                        double reach):
    """The obstacle neighbours (edges, by their first vertex) of an agent at (x, y) whose
    obstacle range is ``reach``, in the order its half-planes are made."""
    cdef int m = wall_point.shape[0], c = 0
    cdef int32_t[::1] found = np.empty(m + 1, np.int32)
    cdef double[::1] found_d2 = np.empty(m + 1)
    cdef int32_t[::1] stack = np.empty(m + 1, np.int32)
    cdef Walls w = walls(wall_point, wall_unit, wall_next, wall_prev, wall_convex, tree_left,
                         tree_right, tree_root)
    if m:
        c = near_edges(&w, x, y, reach * reach, &found[0], &found_d2[0], &stack[0])
    return np.asarray(found[:c]).tolist()
