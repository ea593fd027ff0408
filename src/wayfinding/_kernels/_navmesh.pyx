# Navigation-mesh kernels: point location in convex polygons, nearest point on the mesh, A*
# over polygons (node position = where the line toward the goal crosses the entry edge, or
# an off-mesh link's end) and the funnel (string pulling) over a corridor's portals.
# Orientation tests are exact.
cimport numpy as cnp
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc

import numpy as np

from ._heap cimport Heap, heap_decrease, heap_free, heap_init, heap_pop, heap_push, HeapItem
from ._predicates cimport orient2d

cnp.import_array()


# ------------------------------------------------------------------------------ location
cdef inline bint inside(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                        const int32_t[::1] sizes, int p, double x, double y) noexcept nogil:
    """Point in the closed convex polygon p (counter-clockwise)."""
    cdef int k, n = sizes[p]
    cdef int32_t a, b
    for k in range(n):
        a = polys[p, k]
        b = polys[p, (k + 1) % n]
        if orient2d(verts[a, 0], verts[a, 1], verts[b, 0], verts[b, 1], x, y) < 0:
            return False
    return True


cdef inline double closest_on(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                              const int32_t[::1] sizes, int p, double x, double y,
                              double* cx, double* cy) noexcept nogil:
    """Squared distance from (x, y) to polygon p and the closest point."""
    cdef int k, n = sizes[p]
    cdef int32_t a, b
    cdef double ax, ay, dx, dy, t, qx, qy, d, best = INFINITY
    if inside(verts, polys, sizes, p, x, y):
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


cdef inline int bucket_of(double v, double origin, double cell, int n) noexcept nogil:
    cdef double f = (v - origin) / cell
    if f < 0.0:
        return -1
    if f >= n:
        return n
    return <int> f


cdef inline int locate_point(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                             const int32_t[::1] sizes, const int64_t[::1] cell_ptr,
                             const int32_t[::1] cell_polys, double ox, double oy,
                             double cell, int nx, int ny, double x, double y) noexcept nogil:
    """Lowest id of a polygon containing (x, y) (boundary included), or -1."""
    cdef int ix = bucket_of(x, ox, cell, nx), iy = bucket_of(y, oy, cell, ny), p, best = -1
    cdef int64_t c, j
    if ix < 0 or iy < 0 or ix >= nx or iy >= ny:
        return -1
    c = iy * nx + ix
    for j in range(cell_ptr[c], cell_ptr[c + 1]):
        p = cell_polys[j]
        if (best < 0 or p < best) and inside(verts, polys, sizes, p, x, y):
            best = p
    return best


def locate(const double[:, ::1] verts, const int32_t[:, ::1] polys, const int32_t[::1] sizes,
           const int64_t[::1] cell_ptr, const int32_t[::1] cell_polys, double ox, double oy,
           double cell, int nx, int ny, const double[:, ::1] points, int32_t[::1] out):
    """out[i] = lowest id of a polygon containing points[i] (boundary included), or -1."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(points.shape[0]):
            out[i] = locate_point(verts, polys, sizes, cell_ptr, cell_polys, ox, oy, cell, nx,
                                  ny, points[i, 0], points[i, 1])


def nearest(const double[:, ::1] verts, const int32_t[:, ::1] polys, const int32_t[::1] sizes,
            const int64_t[::1] cell_ptr, const int32_t[::1] cell_polys, double ox, double oy,
            double cell, int nx, int ny, const uint8_t[::1] allowed,
            const double[:, ::1] points, int32_t[::1] out, double[:, ::1] snapped):
    """The allowed polygon nearest each point (ties: lowest id) and the nearest point on it,
    searching the buckets ring by ring around the point's bucket."""
    cdef Py_ssize_t i
    cdef int64_t c, j
    cdef int ix, iy, r, gx, gy, p, best, rmax = nx if nx > ny else ny
    cdef double x, y, d, bestd, cx = 0.0, cy = 0.0, bx = 0.0, by = 0.0, reach
    with nogil:
        for i in range(points.shape[0]):
            x = points[i, 0]
            y = points[i, 1]
            # Buckets of points off the grid are clamped to the ring just outside it:
            # distances to the grid's buckets only grow from there.
            ix = bucket_of(x, ox, cell, nx)
            iy = bucket_of(y, oy, cell, ny)
            best = -1
            bestd = INFINITY
            r = 0
            while r <= rmax + 2:
                # Every point of a bucket outside rings 0..r is farther than r cells away
                # (minus the query's offset inside its own bucket).
                reach = (r - 1) * cell if r > 0 else 0.0
                if best >= 0 and bestd <= reach * reach:
                    break
                for gy in range(iy - r, iy + r + 1):
                    if gy < 0 or gy >= ny:
                        continue
                    for gx in range(ix - r, ix + r + 1):
                        if gx < 0 or gx >= nx:
                            continue
                        if r > 0 and gy != iy - r and gy != iy + r and gx != ix - r \
                                and gx != ix + r:
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
                                bx = cx
                                by = cy
                r += 1
            out[i] = best
            snapped[i, 0] = bx
            snapped[i, 1] = by


# ------------------------------------------------------------------------------ search
cdef inline void portal_point(double ax, double ay, double bx, double by, double px,
                              double py, double gx, double gy, double* ox,
                              double* oy) noexcept nogil:
    """Where the search enters a polygon through portal a-b from (px, py): the portal's
    crossing with the line toward the goal (g), kept a hundredth of the portal away from its
    ends; the portal's midpoint when that line is parallel to it."""
    cdef double dx = bx - ax, dy = by - ay, rx = gx - px, ry = gy - py
    cdef double den = dx * ry - dy * rx, t = 0.5
    if den != 0.0:
        t = ((px - ax) * ry - (py - ay) * rx) / den
        if t < 0.01:
            t = 0.01
        elif t > 0.99:
            t = 0.99
    ox[0] = ax + t * dx
    oy[0] = ay + t * dy

cdef class MeshQuery:
    """Per-thread path queries on one mesh: views on its arrays (taken once) and the A*
    state over its polygons (generation stamps: O(1) reset per query)."""
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
    cdef double* g
    cdef double* px
    cdef double* py
    cdef int32_t* parent
    cdef int32_t* via
    cdef int32_t* pos
    cdef uint32_t* stamp
    cdef uint8_t* closed
    cdef uint32_t label
    cdef Heap heap
    cdef int n

    def __init__(self, verts, polys, sizes, neigh, cell_ptr, cell_polys, double ox, double oy,
                 double cell, int nx, int ny, link_ptr, link_to, link_pts, link_cost):
        self.verts, self.polys, self.sizes, self.neigh = verts, polys, sizes, neigh
        self.cell_ptr, self.cell_polys = cell_ptr, cell_polys
        self.ox, self.oy, self.cell, self.nx, self.ny = ox, oy, cell, nx, ny
        self.link_ptr, self.link_to = link_ptr, link_to
        self.link_pts, self.link_cost = link_pts, link_cost
        n = self.n = sizes.shape[0]
        self.g = <double*> malloc(max(n, 1) * sizeof(double))
        self.px = <double*> malloc(max(n, 1) * sizeof(double))
        self.py = <double*> malloc(max(n, 1) * sizeof(double))
        self.parent = <int32_t*> malloc(max(n, 1) * sizeof(int32_t))
        self.via = <int32_t*> malloc(max(n, 1) * sizeof(int32_t))
        self.pos = <int32_t*> malloc(max(n, 1) * sizeof(int32_t))
        self.stamp = <uint32_t*> malloc(max(n, 1) * sizeof(uint32_t))
        self.closed = <uint8_t*> malloc(max(n, 1) * sizeof(uint8_t))
        if heap_init(&self.heap, 64) != 0 or self.g == NULL or self.px == NULL \
                or self.py == NULL or self.parent == NULL or self.via == NULL \
                or self.pos == NULL or self.stamp == NULL or self.closed == NULL:
            raise MemoryError()
        for i in range(n):
            self.stamp[i] = 0
        self.label = 0

    def __dealloc__(self):
        free(self.g)
        free(self.px)
        free(self.py)
        free(self.parent)
        free(self.via)
        free(self.pos)
        free(self.stamp)
        free(self.closed)
        heap_free(&self.heap)

    def locate_one(self, double x, double y):
        """The polygon holding (x, y), or -1."""
        return locate_point(self.verts, self.polys, self.sizes, self.cell_ptr, self.cell_polys,
                            self.ox, self.oy, self.cell, self.nx, self.ny, x, y)

    cdef inline void touch(self, int p) noexcept nogil:
        if self.stamp[p] != self.label:
            self.stamp[p] = self.label
            self.g[p] = INFINITY
            self.closed[p] = 0
            self.pos[p] = -1

    cdef int search(self, const uint8_t[::1] allowed, const double[::1] cost,
                    const uint8_t[::1] link_ok, int start, double sx, double sy, int goal,
                    double gx, double gy, double h_scale, int* expanded,
                    int* generated) noexcept nogil:
        """A* from polygon ``start`` (at sx, sy) to ``goal`` (at gx, gy) over the allowed
        polygons: moving inside polygon p costs the distance times cost[p]; crossing a usable
        (link_ok) off-mesh link l costs link_cost[l].  1 found, 0 not, -1 out of memory."""
        cdef int p, q, k, n, e, found = 0
        cdef int32_t a, b
        cdef int64_t l
        cdef double nx, ny, step, ng, h
        cdef HeapItem it
        self.label += 1
        if self.label == 0:
            for k in range(self.n):
                self.stamp[k] = 0
            self.label = 1
        self.heap.size = 0
        expanded[0] = 0
        generated[0] = 1
        self.touch(start)
        self.g[start] = 0.0
        self.px[start] = sx
        self.py[start] = sy
        self.parent[start] = -1
        self.via[start] = -1
        h = h_scale * sqrt((sx - gx) * (sx - gx) + (sy - gy) * (sy - gy))
        if heap_push(&self.heap, self.pos, h, 0.0, start) != 0:
            return -1
        while self.heap.size > 0:
            it = heap_pop(&self.heap, self.pos)
            p = it.node
            self.closed[p] = 1
            expanded[0] += 1
            if p == goal:
                return 1
            n = self.sizes[p]
            for e in range(n + self.link_ptr[p + 1] - self.link_ptr[p]):
                if e < n:
                    q = self.neigh[p, e]
                    if q < 0 or not allowed[q]:
                        continue
                    a = self.polys[p, e]
                    b = self.polys[p, (e + 1) % n]
                    portal_point(self.verts[a, 0], self.verts[a, 1], self.verts[b, 0],
                                 self.verts[b, 1], self.px[p], self.py[p], gx, gy, &nx, &ny)
                    step = cost[p] * sqrt((nx - self.px[p]) * (nx - self.px[p])
                                          + (ny - self.py[p]) * (ny - self.py[p]))
                else:
                    l = self.link_ptr[p] + e - n
                    q = self.link_to[l]
                    if not allowed[q] or not link_ok[l]:
                        continue
                    nx = self.link_pts[l, 2]
                    ny = self.link_pts[l, 3]
                    step = cost[p] * sqrt((self.link_pts[l, 0] - self.px[p])
                                          * (self.link_pts[l, 0] - self.px[p])
                                          + (self.link_pts[l, 1] - self.py[p])
                                          * (self.link_pts[l, 1] - self.py[p])) \
                        + self.link_cost[l]
                self.touch(q)
                if self.closed[q]:
                    continue
                ng = self.g[p] + step
                if q == goal:
                    ng += cost[q] * sqrt((gx - nx) * (gx - nx) + (gy - ny) * (gy - ny))
                    h = 0.0
                else:
                    h = h_scale * sqrt((gx - nx) * (gx - nx) + (gy - ny) * (gy - ny))
                if ng >= self.g[q]:
                    continue
                self.g[q] = ng
                self.px[q] = nx
                self.py[q] = ny
                self.parent[q] = p
                self.via[q] = -1 if e < n else <int32_t> (self.link_ptr[p] + e - n)
                if self.pos[q] >= 0:
                    heap_decrease(&self.heap, self.pos, q, ng + h, ng)
                else:
                    generated[0] += 1
                    if heap_push(&self.heap, self.pos, ng + h, ng, q) != 0:
                        return -1
        return 0

    def find(self, const uint8_t[::1] allowed, const double[::1] cost,
             const uint8_t[::1] link_ok, double h_scale, int start, double sx, double sy,
             int goal, double gx, double gy):
        """A* over the polygons, then the funnel through the corridor.  Returns (found,
        expanded, generated, corridor, via, corners, flags, corner polygons, length), where
        via[i] is the directed off-mesh link that entered corridor[i] (-1 for an edge), flags
        mark each link's start (4) and length counts links at their cost."""
        cdef int expanded = 0, generated = 0, status, p, k = 0
        cdef Py_ssize_t m, i, got
        with nogil:
            status = self.search(allowed, cost, link_ok, start, sx, sy, goal, gx, gy, h_scale,
                                 &expanded, &generated)
        if status < 0:
            raise MemoryError()
        if status == 0:
            return False, expanded, generated, None, None, None, None, None, INFINITY
        p = goal
        while p >= 0:
            k += 1
            p = self.parent[p]
        corridor = np.empty(k, dtype=np.int32)
        via = np.empty(k, dtype=np.int32)
        cdef int32_t[::1] cv = corridor
        cdef int32_t[::1] vv = via
        p = goal
        while p >= 0:
            k -= 1
            cv[k] = p
            vv[k] = self.via[p]
            p = self.parent[p]
        m = len(corridor)
        out = np.empty((2 * m + 2, 2))
        flags = np.empty(2 * m + 2, dtype=np.uint8)
        owner = np.empty(2 * m + 2, dtype=np.int32)
        cdef double[:, ::1] ov = out
        cdef uint8_t[::1] fv = flags
        cdef int32_t[::1] wv = owner
        cdef double length = 0.0
        with nogil:
            got = straight_core(self.verts, self.polys, self.sizes, self.neigh, cv, vv,
                                self.link_pts, sx, sy, gx, gy, ov, fv, wv)
            for i in range(1, got):
                if fv[i - 1] & 4:
                    continue
                length += sqrt((ov[i, 0] - ov[i - 1, 0]) * (ov[i, 0] - ov[i - 1, 0])
                               + (ov[i, 1] - ov[i - 1, 1]) * (ov[i, 1] - ov[i - 1, 1]))
            for i in range(m):
                if vv[i] >= 0:
                    length += self.link_cost[vv[i]]
        if got < 0:
            raise MemoryError()
        return (True, expanded, generated, corridor, via, out[:got], flags[:got],
                owner[:got], length)


# ------------------------------------------------------------------------------ funnel
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
            if sign * orient2d(ax, ay, ex[side], ey[side], nx, ny) < 0:
                continue
            if (ax == ex[side] and ay == ey[side]) \
                    or sign * orient2d(ax, ay, ex[other], ey[other], nx, ny) < 0:
                ex[side] = nx
                ey[side] = ny
                ei[side] = i
                continue
            # The new end crosses the other side: that side's end is a corner.
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


cdef Py_ssize_t straight_core(const double[:, ::1] verts, const int32_t[:, ::1] polys,
                              const int32_t[::1] sizes, const int32_t[:, ::1] neigh,
                              const int32_t[::1] corridor, const int32_t[::1] via,
                              const double[:, ::1] link_pts, double sx, double sy, double gx,
                              double gy, double[:, ::1] out, uint8_t[::1] flags,
                              int32_t[::1] owner) noexcept nogil:
    """The straight path through a corridor (polygons, and per polygon the off-mesh link
    that entered it or -1): the funnel over each stretch between links.  Writes corners,
    their flags (4 at a link's start) and polygons; ``out`` needs 2 len(corridor) + 2 rows.
    Returns the number of corners, -1 when out of memory."""
    cdef Py_ssize_t m = corridor.shape[0], first = 0, i, j, e, n, c, k = 0, got
    cdef int p, q, size
    cdef int32_t a, b
    cdef double px = sx, py = sy, ex, ey
    cdef double* left = <double*> malloc((2 * m + 4) * sizeof(double))
    cdef double* right = <double*> malloc((2 * m + 4) * sizeof(double))
    cdef double* bend = <double*> malloc((2 * m + 4) * sizeof(double))
    cdef int32_t* index = <int32_t*> malloc((m + 2) * sizeof(int32_t))
    if left == NULL or right == NULL or bend == NULL or index == NULL:
        free(left)
        free(right)
        free(bend)
        free(index)
        return -1
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
            size = sizes[p]
            for e in range(size):
                if neigh[p, e] == q:
                    break
            a = polys[p, e]
            b = polys[p, (e + 1) % size]
            left[2 * n] = verts[b, 0]
            left[2 * n + 1] = verts[b, 1]
            right[2 * n] = verts[a, 0]
            right[2 * n + 1] = verts[a, 1]
            n += 1
        left[2 * n] = ex
        left[2 * n + 1] = ey
        right[2 * n] = ex
        right[2 * n + 1] = ey
        n += 1
        got = funnel_core(left, right, n, bend, index)
        # After a link the stretch starts at the link's end, already written.
        for c in range(0 if k == 0 else 1, got):
            out[k, 0] = bend[2 * c]
            out[k, 1] = bend[2 * c + 1]
            flags[k] = 0
            # A bend on portal t lies on both polygons; the one entered is given.
            owner[k] = corridor[first + index[c] if index[c] < n - 1 else i - 1]
            k += 1
        if i < m:
            flags[k - 1] = 4
            px = link_pts[via[i], 2]
            py = link_pts[via[i], 3]
            out[k, 0] = px
            out[k, 1] = py
            flags[k] = 0
            owner[k] = corridor[i]
            k += 1
            first = i
    free(left)
    free(right)
    free(bend)
    free(index)
    return k
