# Any-angle search on the corner lattice of a grid: exact line of sight (integer
# arithmetic on doubled coordinates), Theta* and Lazy Theta*, and the visibility test the
# exact reference uses.
#
# Points are in doubled coordinates: corner (x, y) of the lattice is (2x, 2y), the centre of
# cell (x, y) is (2x + 1, 2y + 1).  ``blocked`` is the grid padded with one blocked cell all
# round, row-major with width ``pw = W + 2``: cell (x, y) is blocked[(y + 1) * pw + x + 1].
#
# A segment is clear when it crosses no blocked cell's interior, never runs along an edge
# between two blocked cells, and never passes through a *pinch* corner (two blocked cells
# touching diagonally, the other two free).
cimport cython
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t

from ._heap cimport (
    Heap,
    heap_decrease,
    heap_free,
    heap_init,
    heap_pop,
    heap_push,
    lazy_pop,
    lazy_push,
)

import numpy as np


cdef inline bint cell_blocked(const uint8_t* blocked, int pw, int x, int y) noexcept nogil:
    return blocked[(y + 1) * pw + x + 1] != 0


cdef inline bint pinch(const uint8_t* blocked, int pw, int x, int y) noexcept nogil:
    """Corner (x, y) joins two blocked cells diagonally while the other two are free."""
    cdef bint a = cell_blocked(blocked, pw, x - 1, y - 1), b = cell_blocked(blocked, pw, x, y - 1)
    cdef bint c = cell_blocked(blocked, pw, x - 1, y), d = cell_blocked(blocked, pw, x, y)
    return (a and d and not b and not c) or (b and c and not a and not d)


cdef inline int sgn(int v) noexcept nogil:
    return (v > 0) - (v < 0)


@cython.cdivision(True)
cdef bint clear(const uint8_t* blocked, int pw, int px, int py, int qx, int qy) noexcept nogil:
    """Line of sight between two points in doubled coordinates (see the module)."""
    cdef int dx = qx - px, dy = qy - py, sx = sgn(dx), sy = sgn(dy)
    cdef int adx = dx if dx >= 0 else -dx, ady = dy if dy >= 0 else -dy
    cdef int cx, cy, nx, ny, k, lo, hi, line
    cdef long long tx, ty
    if dx == 0 and dy == 0:
        return True
    if dx == 0 and px % 2 == 0:                  # along the vertical lattice line x = px / 2
        line = px // 2
        lo = py if py < qy else qy
        hi = qy if py < qy else py
        k = lo
        while k < hi:                             # half units [k, k + 1) of the line
            if (cell_blocked(blocked, pw, line - 1, k // 2)
                    and cell_blocked(blocked, pw, line, k // 2)):
                return False
            if k > lo and k % 2 == 0 and pinch(blocked, pw, line, k // 2):
                return False
            k += 1
        return True
    if dy == 0 and py % 2 == 0:                  # along the horizontal line y = py / 2
        line = py // 2
        lo = px if px < qx else qx
        hi = qx if px < qx else px
        k = lo
        while k < hi:
            if (cell_blocked(blocked, pw, k // 2, line - 1)
                    and cell_blocked(blocked, pw, k // 2, line)):
                return False
            if k > lo and k % 2 == 0 and pinch(blocked, pw, k // 2, line):
                return False
            k += 1
        return True
    # The cell the segment enters first (a point on a lattice line enters by the direction).
    cx = px // 2 if px % 2 else (px // 2 if sx > 0 else px // 2 - 1)
    cy = py // 2 if py % 2 else (py // 2 if sy > 0 else py // 2 - 1)
    if dx == 0:
        cx = px // 2
    if dy == 0:
        cy = py // 2
    while True:
        if cell_blocked(blocked, pw, cx, cy):
            return False
        # Distances (doubled) to the next vertical and horizontal lattice lines.
        nx = (2 * (cx + 1) - px) if sx > 0 else (px - 2 * cx)
        ny = (2 * (cy + 1) - py) if sy > 0 else (py - 2 * cy)
        if (dx == 0 or nx >= adx) and (dy == 0 or ny >= ady):
            return True                           # q lies in (or on the border of) this cell
        # Compare the crossing parameters nx / adx and ny / ady exactly.
        if dx == 0:
            cy += sy
            continue
        if dy == 0:
            cx += sx
            continue
        tx = <long long> nx * ady
        ty = <long long> ny * adx
        if tx < ty:
            cx += sx
        elif ty < tx:
            cy += sy
        else:                                     # through a lattice corner, not at q
            if (cell_blocked(blocked, pw, cx + sx, cy)
                    and cell_blocked(blocked, pw, cx, cy + sy)):
                return False
            cx += sx
            cy += sy


cdef bint free_point(const uint8_t* blocked, int pw, int x, int y) noexcept nogil:
    """Whether a point (doubled coordinates, within the grid) lies in no blocked cell's
    interior, on no edge between two blocked cells and on no corner of four."""
    if x % 2 and y % 2:
        return not cell_blocked(blocked, pw, x // 2, y // 2)
    if y % 2:
        return not (cell_blocked(blocked, pw, x // 2 - 1, y // 2)
                    and cell_blocked(blocked, pw, x // 2, y // 2))
    if x % 2:
        return not (cell_blocked(blocked, pw, x // 2, y // 2 - 1)
                    and cell_blocked(blocked, pw, x // 2, y // 2))
    return not (cell_blocked(blocked, pw, x // 2 - 1, y // 2 - 1)
                and cell_blocked(blocked, pw, x // 2, y // 2 - 1)
                and cell_blocked(blocked, pw, x // 2 - 1, y // 2)
                and cell_blocked(blocked, pw, x // 2, y // 2))


def line_of_sight(const uint8_t[::1] blocked, int pw, int px, int py, int qx, int qy):
    """Whether the segment between two points (doubled coordinates) is clear, its ends
    included (a segment of no length too); an end off the grid is not."""
    return sees(&blocked[0], pw, 2 * (pw - 2), 2 * (blocked.shape[0] // pw - 2), px, py, qx,
                qy)


# The octile distance is at most this many times the straight one (sqrt(4 - 2 sqrt 2),
# at 22.5 degrees, rounded up).
cdef double OCTILE_STRETCH = 1.0824
cdef double SQRT2 = sqrt(2.0)

def shortcut(const uint8_t[::1] blocked, int pw, const int64_t[:, ::1] points):
    """The indices of the points a line-of-sight shortcut keeps (doubled coordinates,
    ``(n, 2)``, n >= 1, each within -1 and twice the grid's size plus 1): from each kept
    point, the farthest later point in sight (:func:`line_of_sight`), the last included."""
    cdef Py_ssize_t n = points.shape[0], i = 0, j, k = 1
    cdef int64_t w2 = 2 * (pw - 2), h2 = 2 * (<int64_t> blocked.shape[0] // pw - 2)
    out = np.zeros(n, dtype=np.int64)
    cdef int64_t[::1] kept = out
    with nogil:
        while i < n - 1:
            j = n - 1
            while j > i + 1 and not sees(&blocked[0], pw, w2, h2, points[i, 0], points[i, 1],
                                         points[j, 0], points[j, 1]):
                j -= 1
            kept[k] = j
            k += 1
            i = j
    return out[:k]


cdef inline bint sees(const uint8_t* blocked, int pw, int64_t w2, int64_t h2, int64_t ax,
                      int64_t ay, int64_t bx, int64_t by) noexcept nogil:
    """:func:`line_of_sight` between two points (doubled), off the grid refused."""
    if not (0 <= ax <= w2 and 0 <= ay <= h2 and 0 <= bx <= w2 and 0 <= by <= h2):
        return False
    return (free_point(blocked, pw, <int> ax, <int> ay) and free_point(blocked, pw, <int> bx,
                                                                      <int> by)
            and clear(blocked, pw, <int> ax, <int> ay, <int> bx, <int> by))


cdef int DX[8]
cdef int DY[8]
DX[:] = [1, 1, 0, -1, -1, -1, 0, 1]
DY[:] = [0, 1, 1, 1, 0, -1, -1, -1]


cdef class AnyAngleSearch:
    """Theta* and Lazy Theta* over the corner lattice of one grid, with the cell centres of
    the start and the goal as end nodes (ids V and V + 1, V = (W + 1)(H + 1) corners, corner
    (x, y) = y (W + 1) + x).  Holds its own search arrays: one object per thread."""

    cdef const uint8_t[::1] blocked
    cdef readonly int w, h, pw, nv
    cdef readonly uint8_t[::1] usable
    cdef double[::1] g
    cdef int32_t[::1] parent
    cdef int32_t[::1] pos
    cdef uint32_t[::1] seen
    cdef uint32_t[::1] done
    cdef uint32_t gen
    cdef int cs[4]          # start cell, goal cell (x, y)
    cdef readonly long long los_checks
    cdef int32_t[::1] convex        # corners with exactly one blocked cell round them
    cdef int8_t[::1] quad           # per corner: the blocked cell's quadrant, bits x and y
    cdef int tw, th                 # tiles of TILE x TILE corners across and down
    cdef int32_t[::1] tile_start    # the convex corners by tile (row-major), as CSR
    cdef int32_t[::1] tile_corners
    cdef int32_t[::1] tile_x2       # their doubled coordinates and blocked cells' quadrants
    cdef int32_t[::1] tile_y2
    cdef int8_t[::1] tile_quad
    cdef bint detour                # the exact search's lower bound uses ``lattice``
    cdef double[::1] lattice        # per corner: its distance to the goal's cell's corners
    cdef uint8_t[::1] settled
    cdef double[::1] tile_low       # per tile: the least lower bound of its corners
    cdef int32_t[::1] radii         # per corner: its sight radius (:meth:`sight_radius`)
    cdef int64_t[::1] arcs          # scratch of the radius sweep: two arc lists

    def __init__(self, const uint8_t[::1] blocked, int w, int h):
        cdef int x, y, free
        self.blocked = blocked
        self.w, self.h, self.pw = w, h, w + 2
        self.nv = (w + 1) * (h + 1)
        self.usable = np.zeros(self.nv, dtype=np.uint8)
        for y in range(h + 1):
            for x in range(w + 1):
                free = (4 - cell_blocked(&blocked[0], self.pw, x - 1, y - 1)
                        - cell_blocked(&blocked[0], self.pw, x, y - 1)
                        - cell_blocked(&blocked[0], self.pw, x - 1, y)
                        - cell_blocked(&blocked[0], self.pw, x, y))
                if free > 0 and not pinch(&blocked[0], self.pw, x, y):
                    self.usable[y * (w + 1) + x] = 1
        quad = np.full(self.nv, -1, dtype=np.int8)
        for y in range(h + 1):
            for x in range(w + 1):
                if not self.usable[y * (w + 1) + x]:
                    continue
                bits = [cell_blocked(&blocked[0], self.pw, x - 1 + k % 2, y - 1 + k // 2)
                        for k in range(4)]
                if sum(bits) == 1:
                    quad[y * (w + 1) + x] = bits.index(True)
        self.quad = quad
        self.convex = np.flatnonzero(quad >= 0).astype(np.int32)
        convex = np.asarray(self.convex)
        self.tw, self.th = w // TILE + 1, h // TILE + 1
        tile = (convex // (w + 1) // TILE) * self.tw + convex % (w + 1) // TILE
        by_tile = convex[np.argsort(tile, kind="stable")]
        self.tile_corners = by_tile
        self.tile_x2 = (2 * (by_tile % (w + 1))).astype(np.int32)
        self.tile_y2 = (2 * (by_tile // (w + 1))).astype(np.int32)
        self.tile_quad = quad[by_tile]
        self.tile_start = np.concatenate(
            [[0], np.cumsum(np.bincount(tile, minlength=self.tw * self.th))]).astype(np.int32)
        self.g = np.zeros(self.nv + 2)
        self.parent = np.zeros(self.nv + 2, dtype=np.int32)
        self.pos = np.full(self.nv + 2, -1, dtype=np.int32)
        self.seen = np.zeros(self.nv + 2, dtype=np.uint32)
        self.done = np.zeros(self.nv + 2, dtype=np.uint32)
        self.gen = 0
        self.los_checks = 0
        self.detour = False
        # Made on first use (a search that needs them): 13 bytes a corner.
        self.lattice = np.empty(0)
        self.settled = np.empty(0, dtype=np.uint8)
        self.tile_low = np.zeros(self.tw * self.th)
        self.radii = np.empty(0, dtype=np.int32)
        self.arcs = np.empty(2 * 4 * ARCS, dtype=np.int64)

    cdef inline void point(self, int v, int* x2, int* y2) noexcept nogil:
        if v < self.nv:
            x2[0] = 2 * (v % (self.w + 1))
            y2[0] = 2 * (v // (self.w + 1))
        elif v == self.nv:
            x2[0] = 2 * self.cs[0] + 1
            y2[0] = 2 * self.cs[1] + 1
        else:
            x2[0] = 2 * self.cs[2] + 1
            y2[0] = 2 * self.cs[3] + 1

    cdef inline double dist(self, int a, int b) noexcept nogil:
        cdef int ax, ay, bx, by
        self.point(a, &ax, &ay)
        self.point(b, &bx, &by)
        return 0.5 * sqrt(<double> ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)))

    cdef inline bint los(self, int a, int b) noexcept nogil:
        cdef int ax, ay, bx, by
        self.point(a, &ax, &ay)
        self.point(b, &bx, &by)
        self.los_checks += 1
        return clear(&self.blocked[0], self.pw, ax, ay, bx, by)

    cdef int neighbours(self, int v, int* out) noexcept nogil:
        """The nodes one lattice step (or cell) from v that v sees; returns their number."""
        cdef int n = 0, k, x, y, nx, ny, u
        if v >= self.nv:                          # a cell centre: its cell's corners
            x = self.cs[0] if v == self.nv else self.cs[2]
            y = self.cs[1] if v == self.nv else self.cs[3]
            for k in range(4):
                u = (y + k // 2) * (self.w + 1) + x + k % 2
                if self.usable[u]:
                    out[n] = u
                    n += 1
            return n
        x = v % (self.w + 1)
        y = v // (self.w + 1)
        for k in range(8):
            nx = x + DX[k]
            ny = y + DY[k]
            if nx < 0 or ny < 0 or nx > self.w or ny > self.h:
                continue
            u = ny * (self.w + 1) + nx
            if self.usable[u] and clear(&self.blocked[0], self.pw, 2 * x, 2 * y, 2 * nx,
                                        2 * ny):
                out[n] = u
                n += 1
        for k in range(2):                        # the start's and the goal's centres
            if self.cs[2 * k] <= x <= self.cs[2 * k] + 1 \
                    and self.cs[2 * k + 1] <= y <= self.cs[2 * k + 1] + 1:
                out[n] = self.nv + k
                n += 1
        return n

    cdef int begin(self, Heap* heap, int sx, int sy, int gx, int gy) except -1:
        """A new search from the centre of (sx, sy) to that of (gx, gy): the start queued."""
        cdef int s = self.nv
        self.cs[0], self.cs[1], self.cs[2], self.cs[3] = sx, sy, gx, gy
        self.gen += 1
        self.detour = False
        if heap_init(heap, 256) != 0:
            raise MemoryError()
        self.g[s] = 0.0
        self.parent[s] = s
        self.seen[s] = self.gen
        heap_push(heap, &self.pos[0], self.dist(s, s + 1), 0.0, s)
        return 0

    cdef inline void meet(self, int u) noexcept nogil:
        """First sight of u in this search: no cost yet, not queued."""
        if self.seen[u] != self.gen:
            self.seen[u] = self.gen
            self.g[u] = 1e300
            self.pos[u] = -1

    cdef inline void offer(self, Heap* heap, int u, int p, double cand) noexcept nogil:
        """u reached through parent p at cost cand: keep it if cheaper."""
        cdef int ux, uy
        self.point(u, &ux, &uy)
        self.offer_at(heap, u, p, cand, self.low_at(u, ux, uy))

    cdef inline void offer_at(self, Heap* heap, int u, int p, double cand,
                              double rest) noexcept nogil:
        """:meth:`offer` with u's lower bound to the goal, ``rest``, worked out."""
        if cand < self.g[u]:
            self.g[u] = cand
            self.parent[u] = p
            if self.pos[u] >= 0:
                heap_decrease(heap, &self.pos[0], u, cand + rest, cand)
            else:
                heap_push(heap, &self.pos[0], cand + rest, cand, u)

    cdef inline double low_at(self, int u, int ux, int uy) noexcept nogil:
        """A lower bound on the length to the goal from u, at doubled (ux, uy): the
        straight line, and in the exact search with ``detour`` u's distance over the
        corner lattice divided by ``OCTILE_STRETCH`` (:meth:`detour_field`)."""
        cdef int ex = 2 * self.cs[2] + 1, ey = 2 * self.cs[3] + 1
        cdef double line = 0.5 * sqrt(<double> ((ex - ux) * (ex - ux) + (ey - uy) * (ey - uy)))
        cdef double around
        if not self.detour or u >= self.nv:
            return line
        around = self.lattice[u] / OCTILE_STRETCH
        return line if line > around else around

    cdef object result(self, bint found, int s, int goal, Py_ssize_t expanded):
        """(found, cost, node ids from s to goal, expanded)."""
        cdef int v = goal
        if not found:
            return False, float("inf"), np.empty(0, dtype=np.int64), expanded
        chain = [goal]
        while v != s:
            v = self.parent[v]
            chain.append(v)
        chain.reverse()
        return True, self.g[goal], np.array(chain, dtype=np.int64), expanded

    def find(self, int sx, int sy, int gx, int gy, bint lazy):
        """Search from the centre of cell (sx, sy) to that of (gx, gy).  Returns (found,
        cost, node ids from start to goal, expanded)."""
        cdef Heap heap
        cdef int s = self.nv, goal = self.nv + 1, v, u, p, k, n, best_p
        cdef int nbr[10]
        cdef int nbr2[10]
        cdef double cand, best_g
        cdef Py_ssize_t expanded = 0
        cdef bint found = False
        self.begin(&heap, sx, sy, gx, gy)
        try:
            with nogil:
                while heap.size > 0:
                    v = heap_pop(&heap, &self.pos[0]).node
                    self.done[v] = self.gen
                    expanded += 1
                    if lazy and v != s and not self.los(self.parent[v], v):
                        # Lazy Theta*: the assumed parent is not in sight; take the best
                        # expanded neighbour instead.
                        n = self.neighbours(v, nbr2)
                        best_g = 1e300
                        best_p = -1
                        for k in range(n):
                            u = nbr2[k]
                            if self.done[u] == self.gen and u != v:
                                cand = self.g[u] + self.dist(u, v)
                                if cand < best_g:
                                    best_g = cand
                                    best_p = u
                        self.g[v] = best_g
                        self.parent[v] = best_p
                    if v == goal:
                        found = True
                        break
                    n = self.neighbours(v, nbr)
                    for k in range(n):
                        u = nbr[k]
                        if self.done[u] == self.gen:
                            continue
                        self.meet(u)
                        p = self.parent[v]
                        if lazy or self.los(p, u):
                            cand = self.g[p] + self.dist(p, u)
                        else:
                            p = v
                            cand = self.g[v] + self.dist(v, u)
                        self.offer(&heap, u, p, cand)
                # Leave pos[] clean for the next search.
                for k in range(heap.size):
                    self.pos[heap.items[k].node] = -1
        finally:
            heap_free(&heap)
        return self.result(found, s, goal, expanded)

    def points(self, nodes):
        """``(k, 2)`` float64 positions (cell units) of node ids."""
        cdef int x2, y2
        out = np.empty((len(nodes), 2))
        for i, v in enumerate(nodes):
            self.point(v, &x2, &y2)
            out[i, 0] = 0.5 * x2
            out[i, 1] = 0.5 * y2
        return out

    def exact(self, int sx, int sy, int gx, int gy, double bound, bint detour,
              bint sighted):
        """The shortest any-angle path from the centre of cell (sx, sy) to that of (gx, gy):
        A* over the visibility graph of the convex corners (only lines tangent at both
        ends).  Returns (found, cost, node ids, expanded).

        ``bound``: the length of some path between them (inf if none is known), lowered to
        the goal's cost once the search reaches it.  A node v looks only at the tiles of
        corners u that may lie on a path within the bound (g(v) + |vu| + |u goal|, from
        the tile's nearest points), so the search keeps to an ellipse about the shortest
        path instead of trying every corner of the grid.

        ``detour``: bound lengths to the goal from below by the corner lattice's distance
        as well (:meth:`detour_field`), which on winding maps keeps the search far closer
        to its path than the straight line does.  ``sighted``: a node looks only as far as
        its sight radius (:meth:`sight_radius`, worked out once per corner and kept), which
        on cluttered maps is far shorter than the bound."""
        cdef Heap heap
        cdef int s = self.nv, goal = self.nv + 1, v, tx, ty, t, tx0, tx1, ty0, ty1
        cdef int vx, vy, ex, ey, px, py, vq
        cdef Py_ssize_t expanded = 0, j
        cdef bint found = False
        cdef double budget, near, reach, limit = bound + 1e-9 * (1.0 + bound)   # rounding
        self.begin(&heap, sx, sy, gx, gy)
        self.point(goal, &ex, &ey)
        try:
            if detour:
                self.detour_field(limit)
            if sighted and self.radii.shape[0] == 0:
                self.radii = np.full(self.nv, UNSWEPT, dtype=np.int32)
            with nogil:
                while heap.size > 0:
                    v = heap_pop(&heap, &self.pos[0]).node
                    self.done[v] = self.gen
                    expanded += 1
                    if v == goal:
                        found = True
                        break
                    self.point(v, &vx, &vy)
                    self.point(self.parent[v], &px, &py)
                    if self.seen[goal] == self.gen and self.g[goal] < limit:
                        limit = self.g[goal] + 1e-9 * (1.0 + self.g[goal])
                    budget = limit - self.g[v]
                    vq = self.quad[v] if v < self.nv else -1
                    self.relax(&heap, v, vq, goal, ex, ey, -1, vx, vy, px - vx, py - vy,
                               budget)
                    # Tiles within the budget of v (corners at doubled coordinates), and
                    # within its sight radius where that is known to be short.
                    reach = budget
                    if sighted and v < self.nv:
                        if self.radii[v] == UNSWEPT:
                            self.radii[v] = self.sight_radius(vx // 2, vy // 2)
                        if self.radii[v] <= SIGHT_CAP and self.radii[v] < reach:
                            reach = self.radii[v]
                    tx0, tx1 = tile_range(vx, reach, self.tw)
                    ty0, ty1 = tile_range(vy, reach, self.th)
                    for ty in range(ty0, ty1 + 1):
                        for tx in range(tx0, tx1 + 1):
                            t = ty * self.tw + tx
                            near = rect_distance(ex, ey, tx, ty)
                            if self.detour and self.tile_low[t] > near:
                                near = self.tile_low[t]
                            if rect_distance(vx, vy, tx, ty) + near > budget:
                                continue
                            for j in range(self.tile_start[t], self.tile_start[t + 1]):
                                self.relax(&heap, v, vq, self.tile_corners[j],
                                           self.tile_x2[j], self.tile_y2[j],
                                           self.tile_quad[j], vx, vy, px - vx, py - vy,
                                           budget)
                for j in range(heap.size):
                    self.pos[heap.items[j].node] = -1
        finally:
            heap_free(&heap)
        return self.result(found, s, goal, expanded)

    cdef int detour_field(self, double bound) except -1:
        """Turn ``detour`` on for this search: ``lattice`` holds each corner's distance to
        the nearest corner of the goal's cell along the corner lattice (unit steps along
        edges not between two blocked cells, diagonals of free cells), out to the
        stretch times ``bound`` (inf beyond, where no path within the bound goes), and
        ``tile_low`` the least over each tile's convex corners of that distance divided by
        the stretch.

        Divided by ``OCTILE_STRETCH`` it never exceeds a length: along a clear segment from
        a corner, column by column (by rows if steeper), the lattice path through the lower
        corner of each column's first cell, a cell the segment crosses, costs the octile
        distance, at most the stretch times the segment's length; from a corner to the
        goal's centre it ends at a corner of the goal's cell.  So the bound is consistent,
        and so is its maximum with the straight line."""
        cdef Heap heap
        cdef int w1 = self.w + 1, pw = self.pw, u, x, y, k, j
        cdef double du, reach = OCTILE_STRETCH * bound, least
        cdef double* dist
        cdef uint8_t* settled
        cdef const uint8_t* b = &self.blocked[0]
        cdef int gx = self.cs[2], gy = self.cs[3], failed = 0
        if self.lattice.shape[0] == 0:
            self.lattice = np.empty(self.nv)
            self.settled = np.empty(self.nv, dtype=np.uint8)
        dist = &self.lattice[0]
        settled = &self.settled[0]
        if heap_init(&heap, 1024) != 0:
            raise MemoryError()
        try:
            with nogil:
                for k in range(self.nv):
                    dist[k] = INFINITY
                    settled[k] = 0
                for k in range(4):
                    u = (gy + k // 2) * w1 + gx + k % 2
                    dist[u] = 0.0
                    failed |= lazy_push(&heap, 0.0, 0.0, u)
                while heap.size > 0 and heap.items[0].f <= reach and not failed:
                    u = lazy_pop(&heap)
                    if settled[u]:
                        continue
                    settled[u] = 1
                    du = dist[u]
                    x = u % w1
                    y = u // w1
                    k = y * pw + x          # the padded cell below-left of corner (x, y)
                    # Along the four edges (not between two blocked cells), then across
                    # the four cells (free); the padding blocks every step off the grid.
                    if not (b[k + 1] and b[k + pw + 1]):
                        failed |= self.reach(&heap, u + 1, du + 1.0)
                    if not (b[k] and b[k + pw]):
                        failed |= self.reach(&heap, u - 1, du + 1.0)
                    if not (b[k + pw] and b[k + pw + 1]):
                        failed |= self.reach(&heap, u + w1, du + 1.0)
                    if not (b[k] and b[k + 1]):
                        failed |= self.reach(&heap, u - w1, du + 1.0)
                    if not b[k + pw + 1]:
                        failed |= self.reach(&heap, u + w1 + 1, du + SQRT2)
                    if not b[k + pw]:
                        failed |= self.reach(&heap, u + w1 - 1, du + SQRT2)
                    if not b[k + 1]:
                        failed |= self.reach(&heap, u - w1 + 1, du + SQRT2)
                    if not b[k]:
                        failed |= self.reach(&heap, u - w1 - 1, du + SQRT2)
                if not failed:
                    for k in range(self.tw * self.th):
                        least = INFINITY
                        for j in range(self.tile_start[k], self.tile_start[k + 1]):
                            if dist[self.tile_corners[j]] < least:
                                least = dist[self.tile_corners[j]]
                        self.tile_low[k] = least / OCTILE_STRETCH
        finally:
            heap_free(&heap)
        if failed:
            raise MemoryError()
        self.detour = True
        return 0

    cdef inline int reach(self, Heap* heap, int u, double d) noexcept nogil:
        """Lower corner u's lattice distance to d if that is less (0, or -1 if out of
        memory)."""
        if d < self.lattice[u]:
            self.lattice[u] = d
            return lazy_push(heap, d, 0.0, u)
        return 0

    def sight(self, int cx, int cy):
        """:meth:`sight_radius` of corner (cx, cy) (0 <= cx <= W, 0 <= cy <= H)."""
        if not (0 <= cx <= self.w and 0 <= cy <= self.h):
            raise ValueError("the corner must lie on the grid")
        return self.sight_radius(cx, cy)

    cdef int32_t sight_radius(self, int cx, int cy) noexcept nogil:
        """How far (in cells along the major axis, at most ``SIGHT_CAP``) any clear segment
        from corner (cx, cy) may reach: every corner it sees lies within that many columns
        or rows of it; ``SIGHT_CAP + 1`` if some sight line may go farther.

        Per octant (slopes 0 to 1 from the corner along a major axis), column by column,
        the directions still open are a list of closed arcs of slopes (exact fractions); a
        blocked cell of column i, row j shuts the open arc of the rays crossing its
        interior, slopes j / i to (j + 1) / (i - 1).  A ray that crosses none stays open;
        along the axis itself (slope 0, no interior crossed) it shuts on an edge between
        two blocked cells or a pinch.  So the arcs hold every sight line, and more."""
        cdef int k, far = 0
        for k in range(8):
            far = max(far, self.octant_reach(cx, cy, k & 1, 1 - (k & 2), 1 - ((k & 4) >> 1)))
            if far > SIGHT_CAP:
                break
        return far

    cdef int octant_reach(self, int cx, int cy, int swap, int sx, int sy) noexcept nogil:
        """:meth:`sight_radius` in one octant: a point (p, q) of it, 0 <= q <= p, lies at
        (cx + sx p, cy + sy q), or (cx + sx q, cy + sy p) with ``swap``.  The arcs, four
        numbers each (low and high slopes as fractions), fill two lists of ``ARCS`` in
        turn; more arcs than that give up (no radius)."""
        cdef int64_t* cur = &self.arcs[0]
        cdef int64_t* nxt = &self.arcs[4 * ARCS]
        cdef int64_t* tmp
        cdef int n = 1, m, a, i, j, jlo, jhi, x, y, pw = self.pw, w = self.w, h = self.h
        cdef int64_t ln, ld, hn, hd, sn, sd, en, ed
        cdef const uint8_t* b = &self.blocked[0]
        cur[0], cur[1], cur[2], cur[3] = 0, 1, 1, 1     # the arc [0/1, 1/1]
        for i in range(1, SIGHT_CAP + 2):
            m = 0
            for a in range(n):
                ln, ld, hn, hd = cur[4 * a], cur[4 * a + 1], cur[4 * a + 2], cur[4 * a + 3]
                # Rows whose shadow may meet the arc: j / i < hi and (j + 1) / (i - 1) > lo.
                jlo = <int> ((ln * (i - 1)) // ld) - 1
                jhi = <int> ((hn * i) // hd) + 1
                if jlo < 0:
                    jlo = 0
                if jhi > i - 1:
                    jhi = i - 1
                for j in range(jlo, jhi + 1):
                    if not octant_shut(b, pw, w, h, cx, cy, swap, sx, sy, i, j):
                        continue
                    # Its shadow: slopes strictly between j / i and (j + 1) / (i - 1).
                    sn, sd = j, i
                    en, ed = j + 1, i - 1
                    if not (sn * hd < hn * sd and (ed == 0 or en * ld > ln * ed)):
                        continue                    # it misses the arc
                    if ln * sd <= sn * ld:          # the arc's part below the shadow
                        if m == ARCS:
                            return SIGHT_CAP + 1
                        nxt[4 * m], nxt[4 * m + 1] = ln, ld
                        nxt[4 * m + 2], nxt[4 * m + 3] = sn, sd
                        m += 1
                    if ed == 0 or en * hd > hn * ed:
                        ln = -1                     # nothing of it above the shadow
                        break
                    ln, ld = en, ed
                if ln >= 0:
                    if m == ARCS:
                        return SIGHT_CAP + 1
                    nxt[4 * m], nxt[4 * m + 1], nxt[4 * m + 2], nxt[4 * m + 3] = ln, ld, hn, hd
                    m += 1
            # The axis (slope 0 alone) shuts on an edge between two blocked cells of this
            # column or at a pinch where the column begins.
            if m > 0 and nxt[0] == 0 and nxt[2] == 0:
                x = cx + (0 if swap else sx * (i - 1))     # where the column begins
                y = cy + (sy * (i - 1) if swap else 0)
                if (octant_shut(b, pw, w, h, cx, cy, swap, sx, sy, i, 0)
                        and octant_shut(b, pw, w, h, cx, cy, swap, sx, sy, i, -1)) \
                        or (i > 1 and 0 <= x <= w and 0 <= y <= h and pinch(b, pw, x, y)):
                    m = drop_first(nxt, m)
            if m == 0:
                return i - 1
            tmp = cur
            cur = nxt
            nxt = tmp
            n = m
        return SIGHT_CAP + 1

    def corners_near(self, int sx, int sy, int gx, int gy, double bound):
        """How many convex corners lie in the tiles that may hold a corner of a path within
        ``bound`` from the centre of cell (sx, sy) to that of (gx, gy)."""
        cdef int tx, ty, t, n = 0
        for ty in range(self.th):
            for tx in range(self.tw):
                if rect_distance(2 * sx + 1, 2 * sy + 1, tx, ty) \
                        + rect_distance(2 * gx + 1, 2 * gy + 1, tx, ty) <= bound:
                    t = ty * self.tw + tx
                    n += self.tile_start[t + 1] - self.tile_start[t]
        return n

    cdef inline void relax(self, Heap* heap, int v, int vq, int u, int ux, int uy, int uq,
                           int vx, int vy, int ax, int ay, double budget) noexcept nogil:
        """The exact search's step from v (at doubled (vx, vy), its blocked cell's quadrant
        vq; (ax, ay) from v back to its parent) to u (at (ux, uy), quadrant uq; -1 for no
        corner): taken when the line is taut at both ends and the path wraps v's blocked
        cell (:func:`wraps`), u may lie on a path within the bound, the step is cheaper
        than u's cost so far, and it is clear."""
        cdef int dx = ux - vx, dy = uy - vy
        cdef double step, rest
        if not (taut(vq, dx, dy) and taut(uq, dx, dy) and wraps(vq, ax, ay, dx, dy)):
            return
        if self.done[u] == self.gen:
            return
        step = 0.5 * sqrt(<double> (dx * dx + dy * dy))
        rest = self.low_at(u, ux, uy)
        if step + rest > budget:
            return
        if self.seen[u] == self.gen and self.g[v] + step >= self.g[u]:
            return
        self.los_checks += 1
        if not clear(&self.blocked[0], self.pw, vx, vy, ux, uy):
            return
        self.meet(u)
        self.offer_at(heap, u, v, self.g[v] + step, rest)


cdef inline bint wraps(int q, int ax, int ay, int dx, int dy) noexcept nogil:
    """Whether a path that comes to a corner whose blocked cell lies in quadrant q (-1:
    no corner) from direction (ax, ay) (from the corner back to the parent; (0, 0) at the
    start) may leave it along (dx, dy): a bend must wrap the blocked cell, which then lies
    inside the angle between the two, or a shorter path cuts the corner and it is not on a
    shortest path that way.  A straight line through the corner passes."""
    cdef int bx, by
    cdef long long turn, left, right
    if q < 0 or (ax == 0 and ay == 0):
        return True
    bx = 1 if q % 2 else -1
    by = 1 if q // 2 else -1
    turn = <long long> ax * dy - <long long> ay * dx
    if turn == 0:
        return True
    left = <long long> ax * by - <long long> ay * bx
    right = <long long> bx * dy - <long long> by * dx
    return (left > 0) == (turn > 0) and (right > 0) == (turn > 0) and left != 0 \
        and right != 0


cdef inline bint taut(int q, int dx, int dy) noexcept nogil:
    """Whether a path may bend along direction (dx, dy) at a corner whose blocked cell
    lies in quadrant q (-1: no corner): the line must touch the blocked cell only at the
    corner."""
    cdef int qx, qy
    if q < 0:
        return True
    qx = 1 if q % 2 else -1
    qy = 1 if q // 2 else -1
    return (dx * qx) * (dy * qy) <= 0


# The sight radius sweep: corners not swept yet, and how far it looks at most.
cdef int32_t UNSWEPT = -1
cdef int SIGHT_CAP = 64
cdef int ARCS = 256


cdef inline bint cell_shut(const uint8_t* blocked, int pw, int w, int h, int x,
                           int y) noexcept nogil:
    """Cell (x, y) is blocked or off the grid."""
    return x < 0 or y < 0 or x >= w or y >= h or cell_blocked(blocked, pw, x, y)


cdef inline int drop_first(int64_t* arcs, int n) noexcept nogil:
    """Remove the first of n arcs; returns how many are left."""
    cdef int k
    for k in range(4, 4 * n):
        arcs[k - 4] = arcs[k]
    return n - 1


cdef inline bint octant_shut(const uint8_t* blocked, int pw, int w, int h, int cx, int cy,
                             int swap, int sx, int sy, int i, int j) noexcept nogil:
    """Cell (i - 1 to i, j to j + 1) of the octant of :meth:`AnyAngleSearch.octant_reach`
    is blocked or off the grid."""
    if swap:
        return cell_shut(blocked, pw, w, h, cx + (j if sx > 0 else -j - 1),
                         cy + (i - 1 if sy > 0 else -i))
    return cell_shut(blocked, pw, w, h, cx + (i - 1 if sx > 0 else -i),
                     cy + (j if sy > 0 else -j - 1))


cdef int TILE = 16       # corners per side of the exact search's tiles


cdef inline (int, int) tile_range(int at, double budget, int tiles) noexcept nogil:
    """The tiles along one axis within ``budget`` (cell units) of doubled coordinate
    ``at``."""
    cdef double lo = 0.5 * at - budget, hi = 0.5 * at + budget
    if not lo > 0.0:
        lo = 0.0
    if not hi < (tiles - 1) * TILE:
        hi = (tiles - 1) * TILE
    return <int> lo // TILE, <int> hi // TILE


cdef inline double rect_distance(int px, int py, int tx, int ty) noexcept nogil:
    """The distance (cell units) from doubled point (px, py) to the box of the corners of
    tile (tx, ty), corners (tx TILE, ty TILE) to (tx TILE + TILE - 1, ty TILE + TILE - 1)."""
    cdef double x = 0.5 * px, y = 0.5 * py, dx = 0.0, dy = 0.0
    cdef double x0 = tx * TILE, y0 = ty * TILE
    if x < x0:
        dx = x0 - x
    elif x > x0 + TILE - 1:
        dx = x - (x0 + TILE - 1)
    if y < y0:
        dy = y0 - y
    elif y > y0 + TILE - 1:
        dy = y - (y0 + TILE - 1)
    return sqrt(dx * dx + dy * dy)
