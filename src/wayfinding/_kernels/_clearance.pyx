# distutils: language = c++
# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Local clearance triangulation build: Lawson flips to constrained Delaunay, refinement by
wall splits at hidden gaps, and the traversal clearance of every corner.

The same steps, in the same order, with the same floating-point operations as
:class:`wayfinding.navmesh.lct.Triangulation` (whose docstrings define every quantity), so
the triangles, the Steiner vertices and the clearances are identical bit for bit.  What
changes is the bookkeeping: stamps instead of sets, a memo of each triangle's corner
clearances beside the cache keyed by the corner's three vertices, hash maps for the
edge owners, and the regions a refinement test looked at kept as id lists or bitsets.

Distances use :func:`hypot`, correctly rounded (as Python's ``math.hypot`` is), never the C
library's, which may differ in the last bit.  Triangles are ``(T, 3)`` int32
counter-clockwise, edge ``k`` from corner ``k`` to ``k + 1``; neighbours ``-1`` at walls.
"""

import numpy as np

cimport cython
from libc.math cimport INFINITY, NAN, isnan
from cython.operator cimport dereference as deref
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp.algorithm cimport make_heap, pop_heap
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

from ._hypot cimport hypot
from ._portable cimport ctz64
from ._predicates cimport incircle, orient2d

#: The relative gap between two squared lengths below which :func:`shorter` compares the
#: lengths themselves.
cdef double SQUARE_MARGIN = 2.0 ** -40


# ------------------------------------------------------------------------------ distances
def hypot_many(const double[::1] x, const double[::1] y, double[::1] out):
    """``out[i] = hypot(x[i], y[i])`` for float64 arrays of one length: the distances the
    build uses, to check against ``math.hypot``."""
    cdef Py_ssize_t i
    if not x.shape[0] == y.shape[0] == out.shape[0]:
        raise ValueError(f"arrays of lengths {x.shape[0]}, {y.shape[0]} and {out.shape[0]}")
    with nogil:
        for i in range(x.shape[0]):
            out[i] = hypot(x[i], y[i])


cdef inline void segment_offset(double px, double py, double ax, double ay, double bx,
                                double by, double lo, double hi, double* ox,
                                double* oy) noexcept nogil:
    """The vector from p to the point of the part ``lo <= s <= hi`` of the segment
    a + s (b - a) nearest to it (its length is the distance)."""
    cdef double dx = bx - ax, dy = by - ay
    cdef double dd = dx * dx + dy * dy
    cdef double along = (px - ax) * dx + (py - ay) * dy, s
    if dd > 0:
        # Division only where it can matter: a zero or negative ratio and one of 1 or
        # more are clamped the same way from either side of lo = 0 or hi = 1.
        if lo == 0.0 and along <= 0.0:
            s = 0.0
        elif hi == 1.0 and along >= dd:
            s = 1.0
        else:
            s = along / dd
    else:
        s = lo
    if lo > s:
        s = lo
    if hi < s:
        s = hi
    ox[0] = ax + s * dx - px
    oy[0] = ay + s * dy - py


cdef inline double segment_distance(double px, double py, double ax, double ay, double bx,
                                    double by, double lo, double hi) noexcept nogil:
    """Distance from p to the part ``lo <= s <= hi`` of the segment a + s (b - a)."""
    cdef double ox, oy
    segment_offset(px, py, ax, ay, bx, by, lo, hi, &ox, &oy)
    return hypot(ox, oy)


cdef inline bint shorter(double ox, double oy, double limit) noexcept nogil:
    """``hypot(ox, oy) < limit``, decided from the squares unless they are too close to
    call (or out of the range where squaring keeps every bit that matters)."""
    cdef double dd, ll
    if 1e-130 < limit < 1e130:
        dd = ox * ox + oy * oy
        ll = limit * limit
        if dd < ll * (1.0 - SQUARE_MARGIN):
            return True
        if dd > ll * (1.0 + SQUARE_MARGIN) and dd < INFINITY:
            return False
    return hypot(ox, oy) < limit


cdef inline bint wedge_part(double bx, double by, double cx, double cy, double ax, double ay,
                            double px, double py, double qx, double qy, double* ox,
                            double* oy) noexcept nogil:
    """Whether some of segment pq lies inside the wedge at b left of the ray along (cx, cy)
    and right of the ray along (ax, ay) (both relative to b); then the vector from b to the
    nearest point of that part."""
    cdef double lo = 0.0, hi = 1.0, v
    cdef double rx = px - bx, ry = py - by, dx = qx - px, dy = qy - py
    cdef double f0 = cx * ry - cy * rx, f1 = cx * dy - cy * dx
    cdef int j
    for j in range(2):
        if j == 1:
            f0 = ay * rx - ax * ry
            f1 = ay * dx - ax * dy
        # Keep f0 + s f1 >= 0.
        if f1 > 0:
            v = -f0 / f1
            if v > lo:
                lo = v
        elif f1 < 0:
            v = -f0 / f1
            if v < hi:
                hi = v
        elif f0 < 0:
            return False
    if lo > hi:
        return False
    segment_offset(bx, by, px, py, qx, qy, lo, hi, ox, oy)
    return True


# ------------------------------------------------------------------------------ tables
cdef inline uint64_t mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef inline int64_t edge_key(int u, int w) noexcept nogil:
    return (<int64_t>u << 32) | <uint32_t>w


cdef struct Wall:
    double d
    int t
    int k
    double fx
    double fy


cdef struct Point:
    double x
    double y


cdef struct Triangle:
    int v[3]            # corners, counter-clockwise
    int nb[3]           # the triangle across edge k (corner k to k + 1), -1 at a wall
    double cl[3]        # corner clearances while the triangle stays as it is (NaN unknown)
    int changed         # the change that last hit it (-1 none)
    int seen            # stamp of the last hidden-gap test that looked at it


cdef bint wall_after(const Wall& a, const Wall& b) noexcept nogil:
    """Whether a comes after b by distance, then triangle, then edge."""
    if a.d != b.d:
        return a.d > b.d
    if a.t != b.t:
        return a.t > b.t
    return a.k > b.k


@cython.final
cdef class Mesh:
    """A mutable constrained triangulation of a walkable area (see the module)."""

    cdef vector[Point] P
    cdef vector[Triangle] T
    cdef vector[int] vtri
    cdef unordered_map[int64_t, int] owner
    # Corner clearances keyed by their three vertices (open addressing, -1 keys empty).
    cdef vector[int] ckeys
    cdef vector[double] cvals
    cdef size_t csize
    cdef int changes
    # Scratch: stamps for the triangles a search has seen.
    cdef vector[int] seen_corner, seen_fan
    cdef int stamp_corner, stamp_gap, stamp_fan
    cdef vector[int] stack, stack2, fan_out, crossed, region
    cdef vector[Wall] walls
    cdef public int dup_u, dup_w
    cdef double end_margin

    def __init__(self, const double[:, ::1] vertices, const int32_t[:, ::1] triangles,
                 double end_margin):
        """``end_margin``: a foot closer than this fraction of a wall's length to one of
        its ends does not split it.  ``dup_u``, ``dup_w`` name the first edge used twice in
        one direction (-1 when none; the later use is left out)."""
        cdef Py_ssize_t i, n = vertices.shape[0], m = triangles.shape[0]
        cdef int t, k, u, w
        if vertices.shape[1] != 2 or triangles.shape[1] != 3:
            raise ValueError(f"need (V, 2) vertices and (T, 3) triangles, got "
                             f"({n}, {vertices.shape[1]}) and ({m}, {triangles.shape[1]})")
        for t in range(m):
            for k in range(3):
                if not 0 <= triangles[t, k] < n:
                    raise ValueError(f"triangle {t} has vertex id {triangles[t, k]}, outside "
                                     f"0..{n - 1}")
        self.dup_u = self.dup_w = -1
        self.end_margin = end_margin
        cdef Point point
        cdef Triangle tri
        for i in range(n):
            point.x = vertices[i, 0]
            point.y = vertices[i, 1]
            self.P.push_back(point)
        self.vtri.assign(n, -1)
        for t in range(m):
            for k in range(3):
                tri.v[k] = triangles[t, k]
                tri.nb[k] = -1
                tri.cl[k] = NAN
            tri.changed = -1
            tri.seen = 0
            self.T.push_back(tri)
        for t in range(m):
            for k in range(3):
                u = self.T[t].v[k]
                w = self.T[t].v[(k + 1) % 3]
                if self.owner.count(edge_key(u, w)):
                    if self.dup_u < 0:
                        self.dup_u, self.dup_w = u, w
                    continue
                self.owner[edge_key(u, w)] = t
        for t in range(m):
            for k in range(3):
                u = self.T[t].v[k]
                w = self.T[t].v[(k + 1) % 3]
                if self.owner.count(edge_key(w, u)):
                    self.T[t].nb[k] = self.owner[edge_key(w, u)]
            for k in range(3):
                self.vtri[self.T[t].v[k]] = t
        self.ckeys.assign(3 * 1024, -1)
        self.cvals.assign(1024, 0.0)
        self.csize = 0
        self.changes = 0
        self.seen_corner.assign(m, 0)
        self.seen_fan.assign(m, 0)
        self.stamp_corner = self.stamp_gap = self.stamp_fan = 0

    # -------------------------------------------------------------------------- arrays
    def arrays(self):
        """``(V, 2)`` float64 vertices, ``(T, 3)`` int32 triangles and neighbours."""
        cdef Py_ssize_t n = self.P.size(), m = self.T.size(), i
        cdef int k
        v = np.empty((n, 2), dtype=np.float64)
        t = np.empty((m, 3), dtype=np.int32)
        b = np.empty((m, 3), dtype=np.int32)
        cdef double[:, ::1] vv = v
        cdef int32_t[:, ::1] tt = t, bb = b
        for i in range(n):
            vv[i, 0] = self.P[i].x
            vv[i, 1] = self.P[i].y
        for i in range(m):
            for k in range(3):
                tt[i, k] = self.T[i].v[k]
                bb[i, k] = self.T[i].nb[k]
        return v, t, b

    def clearances(self):
        """``(T, 3)`` float64 traversal clearance of every corner."""
        cdef Py_ssize_t m = self.T.size(), t
        cdef int k
        out = np.empty((m, 3), dtype=np.float64)
        cdef double[:, ::1] o = out
        for t in range(m):
            for k in range(3):
                o[t, k] = self.cl(<int>t, k)
        return out

    # -------------------------------------------------------------------------- changes
    cdef inline int index(self, int t, int u) noexcept nogil:
        if self.T[t].v[0] == u:
            return 0
        return 1 if self.T[t].v[1] == u else 2

    cdef void touch(self, int t) noexcept nogil:
        self.T[t].changed = self.changes
        self.T[t].cl[0] = self.T[t].cl[1] = self.T[t].cl[2] = NAN

    cdef void grow_triangles(self) noexcept nogil:
        """A new triangle (corners unset) and room for it in the scratch arrays."""
        cdef Triangle tri
        cdef int k
        for k in range(3):
            tri.v[k] = -1
            tri.nb[k] = -1
            tri.cl[k] = NAN
        tri.changed = -1
        tri.seen = 0
        self.T.push_back(tri)
        self.seen_corner.push_back(0)
        self.seen_fan.push_back(0)

    cdef inline void repoint(self, int t, int u, int new) noexcept nogil:
        if t >= 0:
            self.T[t].nb[self.index(t, u)] = new

    cdef inline void own(self, int u, int w, int t) noexcept nogil:
        self.owner[edge_key(u, w)] = t

    # -------------------------------------------------------------------------- Delaunay
    cdef bint illegal(self, int t, int k) noexcept nogil:
        cdef int n = self.T[t].nb[k]
        if n < 0:
            return False
        cdef int u = self.T[t].v[k], w = self.T[t].v[(k + 1) % 3]
        cdef int o = self.T[t].v[(k + 2) % 3]
        cdef int p = self.T[n].v[(self.index(n, w) + 2) % 3]
        return incircle(self.P[u].x, self.P[u].y, self.P[w].x, self.P[w].y, self.P[o].x,
                        self.P[o].y, self.P[p].x, self.P[p].y) > 0

    cdef void flip(self, int t, int k) noexcept nogil:
        cdef int n = self.T[t].nb[k]
        cdef int u = self.T[t].v[k], w = self.T[t].v[(k + 1) % 3]
        cdef int x = self.T[t].v[(k + 2) % 3]
        cdef int j = self.index(n, w)
        cdef int y = self.T[n].v[(j + 2) % 3]
        cdef int a = self.T[t].nb[(k + 1) % 3], b = self.T[t].nb[(k + 2) % 3]
        cdef int c = self.T[n].nb[(j + 1) % 3], d = self.T[n].nb[(j + 2) % 3]
        self.T[t].v[0], self.T[t].v[1], self.T[t].v[2] = x, u, y
        self.T[t].nb[0], self.T[t].nb[1], self.T[t].nb[2] = b, c, n
        self.T[n].v[0], self.T[n].v[1], self.T[n].v[2] = y, w, x
        self.T[n].nb[0], self.T[n].nb[1], self.T[n].nb[2] = d, a, t
        self.repoint(c, y, t)
        self.repoint(a, x, n)
        self.owner.erase(edge_key(u, w))
        self.owner.erase(edge_key(w, u))
        self.own(x, u, t)
        self.own(u, y, t)
        self.own(y, x, t)
        self.own(y, w, n)
        self.own(w, x, n)
        self.own(x, y, n)
        self.vtri[x] = self.vtri[u] = self.vtri[y] = t
        self.vtri[w] = n
        self.touch(t)
        self.touch(n)
        self.changes += 1

    cdef void legalize(self, vector[int64_t]& edges) noexcept nogil:
        """Flip the directed edges on the stack, and those their flips expose, until every
        free edge is locally Delaunay."""
        cdef int64_t e
        cdef int u, w, t, k, x, y
        cdef unordered_map[int64_t, int].iterator it
        while edges.size():
            e = edges.back()
            edges.pop_back()
            it = self.owner.find(e)
            if it == self.owner.end():
                continue
            t = deref(it).second
            u = <int>(e >> 32)
            w = <int><uint32_t>e
            k = self.index(t, u)
            if self.illegal(t, k):
                x = self.T[t].v[(k + 2) % 3]
                self.flip(t, k)
                y = self.T[t].v[2]
                edges.push_back(edge_key(x, u))
                edges.push_back(edge_key(u, y))
                edges.push_back(edge_key(y, w))
                edges.push_back(edge_key(w, x))

    def make_delaunay(self):
        """Legalize every free edge (in the order the edges were first owned)."""
        cdef vector[int64_t] edges
        cdef int t, k, u, w
        cdef int m = self.T.size()
        for t in range(m):
            for k in range(3):
                u = self.T[t].v[k]
                w = self.T[t].v[(k + 1) % 3]
                if u < w and self.owner[edge_key(u, w)] == t:
                    edges.push_back(edge_key(u, w))
        self.legalize(edges)

    cdef int split_wall(self, int t, int k, double px, double py) noexcept nogil:
        """Split the wall on edge k of t at p and restore the Delaunay property; the new
        vertex, or -1 when the split would fold a triangle."""
        cdef int u = self.T[t].v[k], w = self.T[t].v[(k + 1) % 3]
        cdef int x = self.T[t].v[(k + 2) % 3]
        if (orient2d(self.P[u].x, self.P[u].y, px, py, self.P[x].x, self.P[x].y) <= 0
                or orient2d(px, py, self.P[w].x, self.P[w].y, self.P[x].x, self.P[x].y) <= 0):
            return -1
        cdef int m = self.P.size(), t2 = self.T.size()
        cdef Point point
        point.x = px
        point.y = py
        self.P.push_back(point)
        cdef int across_wx = self.T[t].nb[(k + 1) % 3]
        cdef int across_xu = self.T[t].nb[(k + 2) % 3]
        self.grow_triangles()
        self.T[t].v[0], self.T[t].v[1], self.T[t].v[2] = u, m, x
        self.T[t].nb[0], self.T[t].nb[1], self.T[t].nb[2] = -1, t2, across_xu
        self.T[t2].v[0], self.T[t2].v[1], self.T[t2].v[2] = m, w, x
        self.T[t2].nb[0], self.T[t2].nb[1], self.T[t2].nb[2] = -1, across_wx, t
        self.repoint(across_wx, x, t2)
        self.owner.erase(edge_key(u, w))
        self.own(u, m, t)
        self.own(m, x, t)
        self.own(m, w, t2)
        self.own(w, x, t2)
        self.own(x, m, t2)
        self.vtri.push_back(t)
        self.vtri[u] = self.vtri[x] = t
        self.vtri[w] = t2
        self.touch(t)
        self.touch(t2)
        self.changes += 1
        cdef vector[int64_t] edges
        edges.push_back(edge_key(x, u))
        edges.push_back(edge_key(w, x))
        self.legalize(edges)
        return m

    # -------------------------------------------------------------------------- clearance
    cdef double corner(self, int t, int k) noexcept nogil:
        """Traversal clearance of corner k of t (see lct)."""
        cdef int b = self.T[t].v[k], c = self.T[t].v[(k + 1) % 3]
        cdef int a = self.T[t].v[(k + 2) % 3]
        cdef double bx = self.P[b].x, by = self.P[b].y
        if self.T[t].nb[(k + 1) % 3] < 0:
            return segment_distance(bx, by, self.P[c].x, self.P[c].y, self.P[a].x, self.P[a].y,
                                    0.0, 1.0)
        cdef double cx = self.P[c].x - bx, cy = self.P[c].y - by
        cdef double ax = self.P[a].x - bx, ay = self.P[a].y - by
        cdef double best = hypot(ax, ay), other = hypot(cx, cy), d, ox, oy
        if other < best:
            best = other
        cdef int first = self.T[t].nb[(k + 1) % 3], m, j, p, q, n
        self.stamp_corner += 1
        cdef int stamp = self.stamp_corner
        self.seen_corner[t] = stamp
        self.seen_corner[first] = stamp
        self.stack2.clear()
        self.stack2.push_back(first)
        while self.stack2.size():
            m = self.stack2.back()
            self.stack2.pop_back()
            for j in range(3):
                p = self.T[m].v[j]
                q = self.T[m].v[(j + 1) % 3]
                n = self.T[m].nb[j]
                if p == b or q == b or (n >= 0 and self.seen_corner[n] == stamp):
                    continue
                if not wedge_part(bx, by, cx, cy, ax, ay, self.P[p].x, self.P[p].y, self.P[q].x,
                                  self.P[q].y, &ox, &oy):
                    continue
                if n < 0:
                    d = hypot(ox, oy)
                    if d < best:
                        best = d
                elif shorter(ox, oy, best):
                    self.seen_corner[n] = stamp
                    self.stack2.push_back(n)
        return best

    cdef double cl(self, int t, int k) noexcept nogil:
        """Corner k of t's clearance, from the memo, the cache (its three vertices) or
        measured (then cached)."""
        cdef double v = self.T[t].cl[k]
        if not isnan(v):
            return v
        cdef int b = self.T[t].v[k], c = self.T[t].v[(k + 1) % 3]
        cdef int a = self.T[t].v[(k + 2) % 3]
        cdef size_t cap = self.cvals.size()
        cdef size_t i = mix((<uint64_t>b * 0x9E3779B97F4A7C15ULL)
                            ^ (<uint64_t>c * 0xC2B2AE3D27D4EB4FULL) ^ <uint64_t>a) & (cap - 1)
        while self.ckeys[3 * i] >= 0:
            if self.ckeys[3 * i] == b and self.ckeys[3 * i + 1] == c \
                    and self.ckeys[3 * i + 2] == a:
                v = self.cvals[i]
                self.T[t].cl[k] = v
                return v
            i = (i + 1) & (cap - 1)
        v = self.corner(t, k)
        self.ckeys[3 * i] = b
        self.ckeys[3 * i + 1] = c
        self.ckeys[3 * i + 2] = a
        self.cvals[i] = v
        self.csize += 1
        if 2 * self.csize > cap:
            self.rehash()
        self.T[t].cl[k] = v
        return v

    cdef void rehash(self) noexcept nogil:
        cdef vector[int] keys = self.ckeys
        cdef vector[double] vals = self.cvals
        cdef size_t cap = 2 * vals.size(), i, j
        cdef int b, c, a
        self.ckeys.assign(3 * cap, -1)
        self.cvals.assign(cap, 0.0)
        for j in range(vals.size()):
            b = keys[3 * j]
            if b < 0:
                continue
            c = keys[3 * j + 1]
            a = keys[3 * j + 2]
            i = mix((<uint64_t>b * 0x9E3779B97F4A7C15ULL)
                    ^ (<uint64_t>c * 0xC2B2AE3D27D4EB4FULL) ^ <uint64_t>a) & (cap - 1)
            while self.ckeys[3 * i] >= 0:
                i = (i + 1) & (cap - 1)
            self.ckeys[3 * i] = b
            self.ckeys[3 * i + 1] = c
            self.ckeys[3 * i + 2] = a
            self.cvals[i] = vals[j]

    cdef void fan(self, int v) noexcept nogil:
        """The triangles with v as a corner into fan_out, clockwise from vtri[v] across the
        edge ending at v, then the other way when a wall stops the turn (none for a vertex
        of no triangle)."""
        cdef int step, t, s, turn
        self.fan_out.clear()
        if self.vtri[v] < 0:
            return
        self.stamp_fan += 1
        s = self.stamp_fan
        for turn in range(2):
            step = 2 if turn == 0 else 0
            t = self.vtri[v]
            while True:
                if self.seen_fan[t] != s:
                    self.seen_fan[t] = s
                    self.fan_out.push_back(t)
                t = self.T[t].nb[(self.index(t, v) + step) % 3]
                if t < 0 or t == self.vtri[v]:
                    break
            if t >= 0:
                break

    cdef bint walk(self, int v, double fx, double fy, int wu, int ww) noexcept nogil:
        """The triangles the segment from v to f on wall wu-ww crosses into ``crossed``;
        False when another wall or a vertex is in the way (fan_out holds v's fan)."""
        cdef double vx = self.P[v].x, vy = self.P[v].y
        cdef int i, t = -1, k, c, a, u = -1, w = -1, n, z, turn
        for i in range(<int>self.fan_out.size()):
            t = self.fan_out[i]
            k = self.index(t, v)
            c = self.T[t].v[(k + 1) % 3]
            a = self.T[t].v[(k + 2) % 3]
            if (orient2d(vx, vy, self.P[c].x, self.P[c].y, fx, fy) > 0
                    and orient2d(vx, vy, self.P[a].x, self.P[a].y, fx, fy) < 0):
                u, w = c, a
                break
        else:
            return False
        self.crossed.clear()
        self.crossed.push_back(t)
        while u != wu or w != ww:
            n = self.T[t].nb[self.index(t, u)]
            if n < 0:
                return False
            z = self.T[n].v[(self.index(n, w) + 2) % 3]
            turn = orient2d(vx, vy, fx, fy, self.P[z].x, self.P[z].y)
            if turn == 0:
                return False
            t = n
            self.crossed.push_back(t)
            if turn > 0:
                w = z
            else:
                u = z
        return True

    cdef bint gap(self, int v, int* ht, int* hk, double* hx, double* hy) noexcept nogil:
        """A hidden gap at v (see lct): True with the wall's triangle, edge and foot, or
        False; the triangles looked at are left in ``region``."""
        cdef double vx = self.P[v].x, vy = self.P[v].y, reach = 0.0
        cdef double c, sx, sy, s, claimed, ox, oy
        cdef int i, j, t, k, p, q, n, m
        cdef Wall wall
        self.stamp_gap += 1
        cdef int stamp = self.stamp_gap
        self.fan(v)
        self.region.clear()
        self.stack.clear()
        for i in range(<int>self.fan_out.size()):
            t = self.fan_out[i]
            self.T[t].seen = stamp
            self.region.push_back(t)
            self.stack.push_back(t)
        self.walls.clear()
        while self.stack.size():
            t = self.stack.back()
            self.stack.pop_back()
            for k in range(3):
                if self.T[t].v[k] != v:
                    c = self.T[t].cl[k]
                    if isnan(c):
                        c = self.cl(t, k)
                    if c > reach:
                        reach = c
            for k in range(3):
                p = self.T[t].v[k]
                q = self.T[t].v[(k + 1) % 3]
                if p == v or q == v:
                    continue
                n = self.T[t].nb[k]
                if n >= 0:
                    if self.T[n].seen == stamp:
                        continue
                    segment_offset(vx, vy, self.P[p].x, self.P[p].y, self.P[q].x,
                                   self.P[q].y, 0.0, 1.0, &ox, &oy)
                    if shorter(ox, oy, reach):
                        self.T[n].seen = stamp
                        self.region.push_back(n)
                        self.stack.push_back(n)
                    continue
                sx = self.P[q].x - self.P[p].x
                sy = self.P[q].y - self.P[p].y
                s = ((vx - self.P[p].x) * sx + (vy - self.P[p].y) * sy) / (sx * sx + sy * sy)
                if self.end_margin < s < 1 - self.end_margin:
                    wall.fx = self.P[p].x + s * sx
                    wall.fy = self.P[p].y + s * sy
                    wall.t = t
                    wall.k = k
                    self.walls.push_back(wall)
        # Walls no nearer than the reach are never tried: the rest, nearest first.
        j = 0
        for i in range(<int>self.walls.size()):
            wall = self.walls[i]
            if shorter(wall.fx - vx, wall.fy - vy, reach):
                wall.d = hypot(wall.fx - vx, wall.fy - vy)
                self.walls[j] = wall
                j += 1
        self.walls.resize(j)
        make_heap(self.walls.begin(), self.walls.end(), wall_after)
        while self.walls.size():
            pop_heap(self.walls.begin(), self.walls.end(), wall_after)
            wall = self.walls.back()
            self.walls.pop_back()
            if not self.walk(v, wall.fx, wall.fy, self.T[wall.t].v[wall.k],
                             self.T[wall.t].v[(wall.k + 1) % 3]):
                continue
            if self.crossed.size() < 2:
                continue
            claimed = -INFINITY
            for j in range(<int>self.crossed.size()):
                m = self.crossed[j]
                if self.T[m].seen != stamp:
                    self.T[m].seen = stamp
                    self.region.push_back(m)
            for j in range(<int>self.crossed.size()):
                m = self.crossed[j]
                for k in range(3):
                    if self.T[m].v[k] != v:
                        c = self.cl(m, k)
                        if c > claimed:
                            claimed = c
            if wall.d < claimed:
                ht[0], hk[0], hx[0], hy[0] = wall.t, wall.k, wall.fx, wall.fy
                return True
        return False

    def hidden_gaps(self, int count):
        """The vertices below ``count`` with a hidden gap."""
        cdef int v, t, k
        cdef double fx, fy
        if not 0 <= count <= <int>self.P.size():
            raise ValueError(f"{count} vertices to test, outside 0..{self.P.size()}")
        return [v for v in range(count) if self.gap(v, &t, &k, &fx, &fy)]

    def refine(self, int max_ratio):
        """Split walls at the feet of hidden gaps until none is left; the Steiner vertices
        added, or ``-(added)`` when more than ``max_ratio`` per input vertex were needed."""
        cdef int originals = self.P.size()
        cdef int64_t limit = <int64_t>max_ratio * (originals if originals > 1 else 1)
        cdef int added = 0, v, i, t, k
        cdef double fx, fy
        cdef bint found, stop = False
        cdef vector[int] todo, when
        cdef vector[vector[int]] regions
        cdef vector[vector[uint64_t]] bits
        when.assign(originals, -1)
        regions.resize(originals)
        bits.resize(originals)
        for v in range(originals):
            todo.push_back(v)
        with nogil:
            while todo.size():
                for i in range(<int>todo.size()):
                    v = todo[i]
                    found = self.gap(v, &t, &k, &fx, &fy)
                    when[v] = self.changes
                    self.keep_region(regions[v], bits[v])
                    if not found or self.split_wall(t, k, fx, fy) < 0:
                        continue
                    added += 1
                    if added > limit:
                        stop = True
                        break
                todo.clear()
                if stop:
                    break
                for v in range(originals):
                    if when[v] >= 0 and self.region_changed(regions[v], bits[v], when[v]):
                        todo.push_back(v)
        return -added if stop else added

    cdef void keep_region(self, vector[int]& ids, vector[uint64_t]& bits) noexcept nogil:
        """Keep ``region`` as an id list, or as a bitset over the triangles when that is
        smaller."""
        cdef size_t m = self.T.size(), i
        cdef int t
        ids.clear()
        bits.clear()
        if 32 * self.region.size() <= m:
            ids = self.region
            return
        bits.assign((m + 63) // 64, 0)
        for i in range(self.region.size()):
            t = self.region[i]
            bits[t >> 6] |= (<uint64_t>1) << (t & 63)

    cdef bint region_changed(self, vector[int]& ids, vector[uint64_t]& bits,
                             int when) noexcept nogil:
        cdef size_t i
        cdef int t
        cdef uint64_t word
        for i in range(ids.size()):
            if self.T[ids[i]].changed >= when:
                return True
        for i in range(bits.size()):
            word = bits[i]
            while word:
                t = <int>(64 * i) + ctz64(word)
                if self.T[t].changed >= when:
                    return True
                word &= word - 1
        return False
