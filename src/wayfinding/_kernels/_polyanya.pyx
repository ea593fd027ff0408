# Exact any-angle shortest paths over a navigation mesh of convex polygons, in the style of
# Polyanya (Cui, Harabor and Grastien, 2017).  A search node is a root (the start or a mesh
# vertex the path bends at), an interval on an edge of a polygon (the points of that edge the
# root sees through the polygons already crossed) and the polygon across the edge, into which
# the node is expanded.  Expanding projects the root's view through the interval onto the
# polygon's other edges: the part seen is an observable successor (same root, same g); the
# parts beyond either end of the interval, when that end is a corner of the free space (a
# vertex on a wall), are non-observable successors rooted at that corner.  The estimate is
# the length of the shortest way from the root through the interval to the goal (the goal
# mirrored over the interval's line when on the root's side); it is admissible and
# consistent, so the first goal node off the heap is a shortest path.  Vertex roots keep
# their best g (root-level pruning), and a node the same as one expanded already (root,
# polygon, edge and interval), at no lower g, is not expanded again.  Orientation signs are
# exact; where the root's rays cross edges is computed in floating point and snapped to the
# edge's ends within 1e-10 of the edge's length, so rays through vertices meet them
# exactly.
cimport numpy as cnp
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy

import numpy as np

from ._navmesh_locate cimport PINCH_CAP, locate_in, other_sides
from ._navmesh_points cimport HOLD_GIL_POLYGONS, plain_xy
from ._predicates cimport orient2d

cnp.import_array()

cdef double SNAP = 1e-10       # rays meeting an edge this close (by its length) to an end
cdef double SLACK = 1e-12      # relative: g values within this of a root's best are kept
cdef int LOOPS_AFTER = 8        # generated nodes per polygon before loops are looked for


cdef struct Node:
    double rx, ry          # root
    double ax, ay          # interval end near the entry edge's first vertex (E0)
    double bx, by          # interval end near its second vertex (E1)
    double g, f
    int32_t root           # vertex id of the root, -1 for the start
    int32_t poly           # polygon the node expands into
    int32_t edge           # entry edge of that polygon (vertex edge -> edge + 1)
    int32_t parent         # node expanded to make this one, -1 for the start's
    uint8_t a_end, b_end   # the interval ends are the edge's vertices E0, E1
    uint8_t goal           # the goal, seen from the root


cdef inline double dist(double ax, double ay, double bx, double by) noexcept nogil:
    return sqrt((ax - bx) * (ax - bx) + (ay - by) * (ay - by))


cdef inline double cross(double ox, double oy, double ax, double ay, double bx,
                         double by) noexcept nogil:
    """(a - o) x (b - o): positive when o, a, b turn counter-clockwise."""
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


cdef double estimate(double rx, double ry, double ax, double ay, double bx, double by,
                     double gx, double gy) noexcept nogil:
    """Length of the shortest way from r through the segment [a, b] to g: the straight
    line when it crosses the segment (after mirroring g over the segment's line when g and r
    are on one side of it), else by the nearer end."""
    cdef double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy, t, s1, s2
    if len2 == 0.0:
        return dist(rx, ry, ax, ay) + dist(ax, ay, gx, gy)
    s1 = cross(ax, ay, bx, by, rx, ry)
    s2 = cross(ax, ay, bx, by, gx, gy)
    if (s1 > 0.0 and s2 > 0.0) or (s1 < 0.0 and s2 < 0.0):
        t = 2.0 * s2 / len2           # mirror g over the line: move it by 2 s2 / |d|^2 * n
        gx = gx + t * dy
        gy = gy - t * dx
    s1 = cross(rx, ry, gx, gy, ax, ay)
    s2 = cross(rx, ry, gx, gy, bx, by)
    if (s1 <= 0.0 and s2 >= 0.0) or (s1 >= 0.0 and s2 <= 0.0):
        return dist(rx, ry, gx, gy)
    t = dist(rx, ry, ax, ay) + dist(ax, ay, gx, gy)
    s1 = dist(rx, ry, bx, by) + dist(bx, by, gx, gy)
    return t if t < s1 else s1


cdef inline double snapped(double t) noexcept nogil:
    if t < SNAP:
        return 0.0
    if t > 1.0 - SNAP:
        return 1.0
    return t


cdef class PolyanyaKernel:
    """Polyanya search on one mesh: views on its arrays, the edge each portal is on the
    other side (taken once), and the scratch of a search (nodes, heap, per-vertex best g
    and a table of the nodes expanded, under generation stamps), kept between calls and
    grown on demand."""
    cdef const double[:, ::1] verts
    cdef const int32_t[:, ::1] polys
    cdef const int32_t[::1] sizes
    cdef const int32_t[:, ::1] neigh
    cdef const int64_t[::1] cell_ptr
    cdef const int32_t[::1] cell_polys
    cdef double ox, oy, cell
    cdef int nx, ny
    cdef int32_t[:, ::1] opposite
    cdef const uint8_t[::1] allowed
    cdef const uint8_t[::1] corner
    cdef object allowed_obj, corner_obj     # the arrays behind allowed and corner
    cdef Node* nodes
    cdef int32_t* heap
    cdef double* root_g
    cdef uint32_t* root_stamp
    cdef int32_t* whole_root
    cdef double* whole_g
    cdef uint32_t* whole_stamp
    cdef int32_t* seen            # expanded nodes by their place (open addressing)
    cdef uint32_t* seen_stamp
    cdef Py_ssize_t seen_cap, n_seen
    cdef uint32_t label
    cdef Py_ssize_t n_nodes, cap, n_heap, heap_cap
    cdef int expanded, generated, failed, goal_poly, start_poly
    cdef double gx, gy

    def __init__(self, verts, polys, sizes, neigh, cell_ptr, cell_polys, double ox, double oy,
                 double cell, int nx, int ny):
        cdef Py_ssize_t p, k, j, n, m, v = verts.shape[0]
        cdef int32_t q, a, b
        self.verts, self.polys, self.sizes, self.neigh = verts, polys, sizes, neigh
        self.cell_ptr, self.cell_polys = cell_ptr, cell_polys
        self.ox, self.oy, self.cell, self.nx, self.ny = ox, oy, cell, nx, ny
        opp = np.full((polys.shape[0], polys.shape[1]), -1, dtype=np.int32)
        self.opposite = opp
        for p in range(polys.shape[0]):
            n = self.sizes[p]
            for k in range(n):
                q = self.neigh[p, k]
                if q < 0:
                    continue
                a = self.polys[p, k]
                b = self.polys[p, (k + 1) % n]
                m = self.sizes[q]
                for j in range(m):
                    if self.polys[q, j] == b and self.polys[q, (j + 1) % m] == a:
                        self.opposite[p, k] = j
                        break
        self.cap = 1024
        self.heap_cap = 1024
        self.nodes = <Node*> malloc(self.cap * sizeof(Node))
        self.heap = <int32_t*> malloc(self.heap_cap * sizeof(int32_t))
        self.root_g = <double*> malloc((v + 1) * sizeof(double))
        self.root_stamp = <uint32_t*> malloc((v + 1) * sizeof(uint32_t))
        self.whole_root = <int32_t*> malloc(polys.shape[0] * sizeof(int32_t))
        self.whole_g = <double*> malloc(polys.shape[0] * sizeof(double))
        self.whole_stamp = <uint32_t*> malloc(polys.shape[0] * sizeof(uint32_t))
        self.seen_cap = 1024
        self.seen = <int32_t*> malloc(self.seen_cap * sizeof(int32_t))
        self.seen_stamp = <uint32_t*> calloc(self.seen_cap, sizeof(uint32_t))
        if not (self.nodes and self.heap and self.root_g and self.root_stamp
                and self.whole_root and self.whole_g and self.whole_stamp and self.seen
                and self.seen_stamp):
            raise MemoryError("no memory for the Polyanya search's scratch")
        for p in range(v + 1):
            self.root_stamp[p] = 0
        for p in range(polys.shape[0]):
            self.whole_stamp[p] = 0
        self.label = 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.heap)
        free(self.root_g)
        free(self.root_stamp)
        free(self.whole_root)
        free(self.whole_g)
        free(self.whole_stamp)
        free(self.seen)
        free(self.seen_stamp)

    # -------------------------------------------------------------------- heap
    cdef inline bint before(self, int32_t i, int32_t j) noexcept nogil:
        """Node i comes off the heap before node j: lower f, then higher g."""
        cdef Node* a = &self.nodes[i]
        cdef Node* b = &self.nodes[j]
        return a.f < b.f or (a.f == b.f and a.g > b.g)

    cdef void heap_push(self, int32_t i) noexcept nogil:
        cdef Py_ssize_t c, up
        cdef int32_t* grown
        if self.n_heap == self.heap_cap:
            grown = <int32_t*> realloc(self.heap, 2 * self.heap_cap * sizeof(int32_t))
            if grown == NULL:
                self.failed = 1
                return
            self.heap = grown
            self.heap_cap *= 2
        c = self.n_heap
        self.n_heap += 1
        while c > 0:
            up = (c - 1) >> 1
            if not self.before(i, self.heap[up]):
                break
            self.heap[c] = self.heap[up]
            c = up
        self.heap[c] = i

    cdef int32_t heap_pop(self) noexcept nogil:
        cdef int32_t top = self.heap[0], last
        cdef Py_ssize_t c = 0, child, n
        self.n_heap -= 1
        n = self.n_heap
        if n == 0:
            return top
        last = self.heap[n]
        while True:
            child = 2 * c + 1
            if child >= n:
                break
            if child + 1 < n and self.before(self.heap[child + 1], self.heap[child]):
                child += 1
            if not self.before(self.heap[child], last):
                break
            self.heap[c] = self.heap[child]
            c = child
        self.heap[c] = last
        return top

    # --------------------------------------------------------- expanded nodes
    cdef inline bint same_place(self, int32_t i, int32_t j) noexcept nogil:
        """Nodes i and j have one root, polygon, entry edge and interval."""
        cdef Node* a = &self.nodes[i]
        cdef Node* b = &self.nodes[j]
        return (a.root == b.root and a.poly == b.poly and a.edge == b.edge
                and a.ax == b.ax and a.ay == b.ay and a.bx == b.bx and a.by == b.by)

    cdef Py_ssize_t slot_of(self, int32_t i) noexcept nogil:
        """The slot of node i's place in the table of expanded nodes: the slot of an
        expanded node at the same place, or the empty slot where it would go."""
        cdef Node* nd = &self.nodes[i]
        cdef uint64_t h = <uint32_t> nd.root, bits
        cdef double part[4]
        cdef int k
        cdef Py_ssize_t mask = self.seen_cap - 1, at
        part[0] = nd.ax + 0.0       # (+ 0.0: -0.0 and 0.0 hash alike)
        part[1] = nd.ay + 0.0
        part[2] = nd.bx + 0.0
        part[3] = nd.by + 0.0
        h = ((h * 0x9E3779B97F4A7C15ULL) ^ ((<uint64_t> <uint32_t> nd.poly) << 20)
             ^ <uint64_t> nd.edge)
        for k in range(4):
            memcpy(&bits, &part[k], 8)
            h = (h ^ bits) * 0xFF51AFD7ED558CCDULL
            h ^= h >> 29
        at = <Py_ssize_t> (h & <uint64_t> mask)
        while self.seen_stamp[at] == self.label and not self.same_place(self.seen[at], i):
            at = (at + 1) & mask
        return at

    cdef bint expanded_before(self, int32_t i) noexcept nogil:
        """Whether a node at node i's place (root, polygon, edge, interval) was expanded
        at a g no higher (within the slack); if not, i takes its place.  (Ties of g at a
        vertex root are kept by root-level pruning, and each would expand the same nodes
        again: on a maze their number doubles with every bend.)"""
        cdef Py_ssize_t at, k, cap
        cdef int32_t* old
        cdef uint32_t* old_stamp
        cdef Node* nd = &self.nodes[i]
        if 2 * (self.n_seen + 1) > self.seen_cap:
            old, old_stamp, cap = self.seen, self.seen_stamp, self.seen_cap
            self.seen = <int32_t*> malloc(2 * cap * sizeof(int32_t))
            self.seen_stamp = <uint32_t*> calloc(2 * cap, sizeof(uint32_t))
            if self.seen == NULL or self.seen_stamp == NULL:
                free(self.seen)
                free(self.seen_stamp)
                self.seen, self.seen_stamp = old, old_stamp
                self.failed = 1
                return True
            self.seen_cap = 2 * cap
            for k in range(cap):
                if old_stamp[k] == self.label:
                    at = self.slot_of(old[k])
                    self.seen[at] = old[k]
                    self.seen_stamp[at] = self.label
            free(old)
            free(old_stamp)
        at = self.slot_of(i)
        if self.seen_stamp[at] == self.label:
            if nd.g >= self.nodes[self.seen[at]].g * (1.0 - SLACK) - SLACK:
                return True
        else:
            self.seen_stamp[at] = self.label
            self.n_seen += 1
        self.seen[at] = i
        return False

    # -------------------------------------------------------------------- nodes
    cdef bint root_ok(self, int32_t root, double g) noexcept nogil:
        """Root-level pruning: a vertex root reached at g is kept unless a shorter way to it
        is known (ties kept); the best g is recorded."""
        cdef Py_ssize_t v = root if root >= 0 else self.verts.shape[0]
        if self.root_stamp[v] != self.label:
            self.root_stamp[v] = self.label
            self.root_g[v] = g
            return True
        if g > self.root_g[v] * (1.0 + SLACK) + SLACK:
            return False
        if g < self.root_g[v]:
            self.root_g[v] = g
        return True

    cdef Node* new_node(self) noexcept nogil:
        cdef Node* grown
        if self.n_nodes == self.cap:
            grown = <Node*> realloc(self.nodes, 2 * self.cap * sizeof(Node))
            if grown == NULL:
                self.failed = 1
                return NULL
            self.nodes = grown
            self.cap *= 2
        self.n_nodes += 1
        return &self.nodes[self.n_nodes - 1]

    cdef void push(self, int32_t parent, double rx, double ry, int32_t root, double g,
                   int32_t poly, int32_t edge, double ax, double ay, double bx, double by,
                   uint8_t a_end, uint8_t b_end) noexcept nogil:
        """A node into polygon ``poly`` through its edge ``edge``, interval [a, b].

        A root's view never enters a polygon twice through one edge along one chain of
        nodes; where polygons are convex only to rounding it can come round again, for
        ever.  Once a search has generated ``LOOPS_AFTER`` nodes a polygon (far more than a
        search without such loops makes), a node that repeats an ancestor of its root's so
        is dropped."""
        cdef int32_t a = parent
        if self.generated > LOOPS_AFTER * self.sizes.shape[0]:
            while a >= 0 and self.nodes[a].root == root:
                if self.nodes[a].poly == poly and self.nodes[a].edge == edge:
                    return
                a = self.nodes[a].parent
        cdef Node* nd = self.new_node()
        if nd == NULL:
            return
        nd.rx, nd.ry, nd.root, nd.g = rx, ry, root, g
        nd.ax, nd.ay, nd.bx, nd.by = ax, ay, bx, by
        nd.a_end, nd.b_end, nd.goal = a_end, b_end, 0
        nd.poly, nd.edge, nd.parent = poly, edge, parent
        nd.f = g + estimate(rx, ry, ax, ay, bx, by, self.gx, self.gy)
        self.generated += 1
        self.heap_push(<int32_t> (self.n_nodes - 1))

    cdef void push_goal(self, int32_t parent, double rx, double ry, int32_t root, double g,
                        int32_t poly) noexcept nogil:
        cdef Node* nd = self.new_node()
        if nd == NULL:
            return
        nd.rx, nd.ry, nd.root, nd.g = rx, ry, root, g
        nd.ax, nd.ay, nd.bx, nd.by = self.gx, self.gy, self.gx, self.gy
        nd.a_end, nd.b_end, nd.goal = 0, 0, 1
        nd.poly, nd.edge, nd.parent = poly, -1, parent
        nd.f = g + dist(rx, ry, self.gx, self.gy)
        self.generated += 1
        self.heap_push(<int32_t> (self.n_nodes - 1))

    cdef bint holds_goal(self, int32_t p) noexcept nogil:
        """The goal lies in the closed polygon p (always in the polygon it was located in)."""
        cdef int k, n = self.sizes[p]
        cdef int32_t a, b
        if p == self.goal_poly:
            return True
        for k in range(n):
            a = self.polys[p, k]
            b = self.polys[p, (k + 1) % n]
            if orient2d(self.verts[a, 0], self.verts[a, 1], self.verts[b, 0], self.verts[b, 1],
                        self.gx, self.gy) < 0:
                return False
        return True

    cdef void whole(self, int32_t parent, int32_t p, int32_t skip, double rx, double ry,
                    int32_t root, double g) noexcept nogil:
        """The root sees all of polygon p (it lies on p's boundary): every edge of p but
        ``skip`` becomes a successor, whole."""
        cdef int k, n = self.sizes[p]
        cdef int32_t x, y, q
        # Once per polygon and root (at its best g): round a vertex with no wall by it (the
        # start on an inner vertex), the turn round the root would not end.
        if self.whole_stamp[p] == self.label and self.whole_root[p] == root:
            if self.whole_g[p] <= g:
                return
        self.whole_stamp[p], self.whole_root[p], self.whole_g[p] = self.label, root, g
        if self.holds_goal(p):
            self.push_goal(parent, rx, ry, root, g, p)
            return
        for k in range(n):
            q = self.neigh[p, k]
            if k == skip or q < 0 or not self.allowed[q]:
                continue
            x = self.polys[p, k]
            y = self.polys[p, (k + 1) % n]
            self.push(parent, rx, ry, root, g, q, self.opposite[p, k],
                      self.verts[y, 0], self.verts[y, 1], self.verts[x, 0], self.verts[x, 1],
                      1, 1)

    cdef void expand(self, int32_t ni) noexcept nogil:
        cdef Node nd = self.nodes[ni]
        cdef int32_t p = nd.poly, j = nd.edge, e0, e1, x, y, q
        cdef int n = self.sizes[p], i, k, sx0, sy0, sx1, sy1
        cdef double e0x, e0y, e1x, e1y, g2, t1, t0, ox, oy, dx, dy
        cdef double xx, xy, yx, yy
        e0 = self.polys[p, j]
        e1 = self.polys[p, (j + 1) % n]
        e0x, e0y = self.verts[e0, 0], self.verts[e0, 1]
        e1x, e1y = self.verts[e1, 0], self.verts[e1, 1]
        if orient2d(e0x, e0y, e1x, e1y, nd.rx, nd.ry) == 0:
            # The root is on the entry edge's line.
            if ((nd.rx - nd.ax) * (nd.rx - nd.bx) + (nd.ry - nd.ay) * (nd.ry - nd.by)
                    <= 0.0):
                # On the interval, so on p's boundary: it sees all of p.
                self.whole(ni, p, j, nd.rx, nd.ry, nd.root, nd.g)
                return
            # Beyond the interval (seeing it edge-on): the path may bend into p at either
            # end, where that end is a corner.
            if nd.a_end and self.corner[e0]:
                g2 = nd.g + dist(nd.rx, nd.ry, e0x, e0y)
                if self.root_ok(e0, g2):
                    self.whole(ni, p, j, e0x, e0y, e0, g2)
            if nd.b_end and self.corner[e1]:
                g2 = nd.g + dist(nd.rx, nd.ry, e1x, e1y)
                if self.root_ok(e1, g2):
                    self.whole(ni, p, j, e1x, e1y, e1, g2)
            return
        # The root sees p through the entry edge from outside: a root among p's other
        # vertices (or the start back in its polygon) comes of rounding where a polygon is
        # not quite convex, and its view of p is had round the root itself.
        if nd.root < 0:
            if p == self.start_poly:
                return
        else:
            for i in range(n):
                if self.polys[p, i] == nd.root:
                    return
        if self.holds_goal(p):
            sx1 = orient2d(nd.rx, nd.ry, nd.bx, nd.by, self.gx, self.gy)
            sx0 = orient2d(nd.rx, nd.ry, nd.ax, nd.ay, self.gx, self.gy)
            if sx0 <= 0 and sx1 >= 0:
                self.push_goal(ni, nd.rx, nd.ry, nd.root, nd.g, p)
                return
            # Hidden from the root: seen from the corner at the interval's end on its side.
            if sx1 < 0 and nd.b_end and self.corner[e1]:
                g2 = nd.g + dist(nd.rx, nd.ry, e1x, e1y)
                if self.root_ok(e1, g2):
                    self.push_goal(ni, e1x, e1y, e1, g2, p)
            elif sx0 > 0 and nd.a_end and self.corner[e0]:
                g2 = nd.g + dist(nd.rx, nd.ry, e0x, e0y)
                if self.root_ok(e0, g2):
                    self.push_goal(ni, e0x, e0y, e0, g2, p)
        # The other edges, from E1 round to E0 (counter-clockwise): each is cut by the ray
        # through b (beyond it: E1's side) and the ray through a (beyond: E0's side).
        for i in range(1, n):
            k = (j + i) % n
            q = self.neigh[p, k]
            if q < 0 or not self.allowed[q]:
                continue
            x = self.polys[p, k]
            y = self.polys[p, (k + 1) % n]
            xx, xy = self.verts[x, 0], self.verts[x, 1]
            yx, yy = self.verts[y, 0], self.verts[y, 1]
            dx, dy = yx - xx, yy - xy
            # t1: where the E1-side part of the edge ends; t0: where the E0-side part starts.
            sx1 = orient2d(nd.rx, nd.ry, nd.bx, nd.by, xx, xy)
            sy1 = orient2d(nd.rx, nd.ry, nd.bx, nd.by, yx, yy)
            if sy1 < 0:
                t1 = 1.0
            elif sx1 < 0:
                ox = cross(nd.rx, nd.ry, nd.bx, nd.by, xx, xy)
                oy = cross(nd.rx, nd.ry, nd.bx, nd.by, yx, yy)
                t1 = snapped(ox / (ox - oy)) if ox != oy else 1.0
            else:
                t1 = 0.0
            sx0 = orient2d(nd.rx, nd.ry, nd.ax, nd.ay, xx, xy)
            sy0 = orient2d(nd.rx, nd.ry, nd.ax, nd.ay, yx, yy)
            if sx0 > 0:
                t0 = 0.0
            elif sy0 > 0:
                ox = cross(nd.rx, nd.ry, nd.ax, nd.ay, xx, xy)
                oy = cross(nd.rx, nd.ry, nd.ax, nd.ay, yx, yy)
                t0 = snapped(ox / (ox - oy)) if ox != oy else 0.0
            else:
                t0 = 1.0
            if t1 > t0:                 # rounding: the rays cross within the edge
                t1 = t0 = 0.5 * (t0 + t1)
            # Seen from the root: [t1, t0] (the new interval runs from y's end to x's end),
            # unless the whole edge lies beyond one of the rays; a single point only when it
            # is a corner the path may bend round.
            if sy1 >= 0 and sx0 <= 0 and (
                    t1 < t0 or (t1 == 0.0 and self.corner[x])
                    or (t1 == 1.0 and self.corner[y])):
                self.push(ni, nd.rx, nd.ry, nd.root, nd.g, q, self.opposite[p, k],
                          yx if t0 == 1.0 else xx + t0 * dx,
                          yy if t0 == 1.0 else xy + t0 * dy,
                          xx if t1 == 0.0 else xx + t1 * dx,
                          xy if t1 == 0.0 else xy + t1 * dy, t0 == 1.0, t1 == 0.0)
            if t1 > 0.0 and nd.b_end and self.corner[e1]:
                g2 = nd.g + dist(nd.rx, nd.ry, e1x, e1y)
                if self.root_ok(e1, g2):
                    self.push(ni, e1x, e1y, e1, g2, q, self.opposite[p, k],
                              yx if t1 == 1.0 else xx + t1 * dx,
                              yy if t1 == 1.0 else xy + t1 * dy, xx, xy, t1 == 1.0, 1)
            if t0 < 1.0 and nd.a_end and self.corner[e0]:
                g2 = nd.g + dist(nd.rx, nd.ry, e0x, e0y)
                if self.root_ok(e0, g2):
                    self.push(ni, e0x, e0y, e0, g2, q, self.opposite[p, k],
                              yx, yy, xx if t0 == 0.0 else xx + t0 * dx,
                              xy if t0 == 0.0 else xy + t0 * dy, 1, t0 == 0.0)

    cdef int32_t search(self, int32_t start_poly, double sx, double sy) noexcept nogil:
        """The goal node of a shortest path, -1 when none, -2 out of memory."""
        cdef int32_t ni
        cdef Node* nd
        self.n_nodes = 0
        self.n_heap = 0
        self.expanded = 0
        self.generated = 0
        self.failed = 0
        self.n_seen = 0
        self.label += 1
        if self.label == 0:
            for ni in range(self.verts.shape[0] + 1):
                self.root_stamp[ni] = 0
            for ni in range(self.sizes.shape[0]):
                self.whole_stamp[ni] = 0
            for ni in range(self.seen_cap):
                self.seen_stamp[ni] = 0
            self.label = 1
        self.start_poly = start_poly
        self.whole(-1, start_poly, -1, sx, sy, -1, 0.0)
        while self.n_heap > 0 and not self.failed:
            ni = self.heap_pop()
            nd = &self.nodes[ni]
            if nd.goal:
                return ni
            if nd.root >= 0 and nd.g > self.root_g[nd.root] * (1.0 + SLACK) + SLACK:
                continue
            if self.expanded_before(ni):
                continue
            self.expanded += 1
            self.expand(ni)
        return -2 if self.failed else -1

    cdef int32_t locate(self, double x, double y) noexcept nogil:
        """Lowest id of a usable polygon holding (x, y) (boundary included), or -1."""
        if self.allowed.shape[0] == 0:
            return -1
        return locate_in(self.verts, self.polys, self.sizes, self.cell_ptr, self.cell_polys,
                         self.ox, self.oy, self.cell, self.nx, self.ny, &self.allowed[0], x, y)

    cdef void hold(self, object a, object c) except *:
        """Take a filter's arrays ``allowed`` and ``corner`` (see :meth:`find`), kept for
        the next calls given the same arrays."""
        cdef const uint8_t[::1] allowed = a, corner = c
        if (allowed.shape[0] != self.sizes.shape[0]
                or corner.shape[0] != self.verts.shape[0]):
            raise ValueError("allowed must have one entry per polygon and corner one per "
                             "vertex")
        self.allowed, self.corner = allowed, corner
        self.allowed_obj, self.corner_obj = a, c

    cdef int32_t run(self, double sx, double sy, double gx, double gy, int* start_poly,
                     int* goal_poly) noexcept nogil:
        """Locate the ends not given (-1) and search: the goal node, -1 when there is no
        route or an end lies on no usable polygon, -2 out of memory.  A start on a pinch
        vertex is searched from each group of polygons that meet there (``start_poly`` is
        set to the one of the shortest path); a goal there is in each (``holds_goal``)."""
        cdef int32_t sides[PINCH_CAP + 1]
        cdef int32_t end, best = -1
        cdef int i, ns, expanded = 0, generated = 0
        cdef double shortest = INFINITY
        if start_poly[0] < 0:
            start_poly[0] = self.locate(sx, sy)
        if goal_poly[0] < 0:
            goal_poly[0] = self.locate(gx, gy)
        if start_poly[0] < 0 or goal_poly[0] < 0:
            return -1
        self.goal_poly, self.gx, self.gy = goal_poly[0], gx, gy
        sides[0] = start_poly[0]
        ns = 1 + other_sides(self.verts, self.polys, self.sizes, self.neigh, self.cell_ptr,
                             self.cell_polys, self.ox, self.oy, self.cell, self.nx, self.ny,
                             &self.allowed[0], sides[0], sx, sy, &sides[1])
        if ns == 1:
            return self.search(sides[0], sx, sy)
        for i in range(ns):
            end = self.search(sides[i], sx, sy)
            expanded += self.expanded
            generated += self.generated
            if end == -2:
                return end
            if end >= 0 and self.nodes[end].f < shortest:
                shortest = self.nodes[end].f
                best = i
        if best < 0:
            best = 0
        if best != ns - 1:
            end = self.search(sides[best], sx, sy)
        start_poly[0] = sides[best]
        self.expanded, self.generated = expanded, generated
        return end

    def find(self, allowed, corner, double sx, double sy, double gx, double gy,
             int start_poly=-1, int goal_poly=-1):
        """Shortest path from (sx, sy) to (gx, gy) over the polygons with ``allowed`` set;
        ``corner``: per vertex, 1 where the path may bend (a vertex on a wall).  The start's
        and goal's polygons are given, or -1 to find them here.

        Returns (code, start polygon, goal polygon, expanded, generated, length, points
        (k, 2) float64, polygons of the points (k,) int32, polygons walked (m,) int32): code
        1 found (the points run from the start through the bends to the goal), 0 no route,
        -1 the start and -2 the goal lie on no usable polygon (nothing searched)."""
        if allowed is not self.allowed_obj or corner is not self.corner_obj:
            self.hold(allowed, corner)
        if not (-1 <= start_poly < self.sizes.shape[0] and -1 <= goal_poly < self.sizes.shape[0]):
            raise ValueError(f"polygons {start_poly}, {goal_poly} are not on the mesh")
        return self.answer(sx, sy, gx, gy, start_poly, goal_poly)

    def find_at(self, allowed, corner, start, goal):
        """:meth:`find` from ``start`` to ``goal``, each a tuple or list of two finite
        floats (or ints of at most 2**53) or a (2,) float64 array: ``(sx, sy, gx, gy,
        answer)``, the points as floats and :meth:`find`'s answer; None when either point
        is not so given."""
        cdef double sx, sy, gx, gy
        if allowed is not self.allowed_obj or corner is not self.corner_obj:
            self.hold(allowed, corner)
        if not plain_xy(start, &sx, &sy) or not plain_xy(goal, &gx, &gy):
            return None
        return (sx, sy, gx, gy, self.answer(sx, sy, gx, gy, -1, -1))

    cdef object answer(self, double sx, double sy, double gx, double gy, int start_poly,
                       int goal_poly):
        """:meth:`find`'s answer, the arrays held and the polygons checked."""
        cdef int32_t end, ni, par, last
        cdef Py_ssize_t k = 0, m = 0, i, n
        cdef double length = 0.0, px, py
        if self.sizes.shape[0] > HOLD_GIL_POLYGONS:
            with nogil:
                end = self.run(sx, sy, gx, gy, &start_poly, &goal_poly)
        else:
            end = self.run(sx, sy, gx, gy, &start_poly, &goal_poly)
        if start_poly < 0 or goal_poly < 0:
            return (-1 if start_poly < 0 else -2, start_poly, goal_poly, 0, 0, 0.0, None, None,
                    None)
        if end == -2:
            raise MemoryError("no memory for the Polyanya search's nodes")
        if end < 0:
            return (0, start_poly, goal_poly, self.expanded, self.generated, 0.0, None, None,
                    None)
        # Count the bends (where the root changes) and the polygons, then fill from the end.
        ni = end
        while ni >= 0:
            par = self.nodes[ni].parent
            if par < 0 or self.nodes[par].root != self.nodes[ni].root:
                k += 1
            m += 1
            ni = par
        pts = np.empty((k + 1, 2))
        owners = np.empty(k + 1, np.int32)
        walked = np.empty(m + 1, np.int32)
        cdef double[:, ::1] pv = pts
        cdef int32_t[::1] ov = owners, wv = walked
        pv[k, 0], pv[k, 1] = gx, gy
        ov[k] = self.nodes[end].poly
        wv[0] = start_poly
        ni = end
        while ni >= 0:
            par = self.nodes[ni].parent
            wv[m] = self.nodes[ni].poly
            m -= 1
            if par < 0 or self.nodes[par].root != self.nodes[ni].root:
                k -= 1
                pv[k, 0], pv[k, 1] = self.nodes[ni].rx, self.nodes[ni].ry
                ov[k] = self.nodes[par].poly if par >= 0 else start_poly
            ni = par
        # Drop repeated points (a start or goal on a bend) and repeated polygons; measure.
        k = 1
        n = pv.shape[0]
        for i in range(1, n):
            px, py = pv[k - 1, 0], pv[k - 1, 1]
            if pv[i, 0] == px and pv[i, 1] == py:
                if i == n - 1 and k > 1:
                    ov[k - 1] = ov[i]       # the goal on the last bend: one point
                elif i == n - 1:
                    pv[k, 0], pv[k, 1], ov[k] = px, py, ov[i]     # the start is the goal
                    k += 1
                continue
            length += sqrt((pv[i, 0] - px) * (pv[i, 0] - px) + (pv[i, 1] - py) * (pv[i, 1] - py))
            pv[k, 0], pv[k, 1], ov[k] = pv[i, 0], pv[i, 1], ov[i]
            k += 1
        m = 1
        last = wv[0]
        for i in range(1, wv.shape[0]):
            if wv[i] != last:
                last = wv[m] = wv[i]
                m += 1
        return (1, start_poly, goal_poly, self.expanded, self.generated, length, pts[:k],
                owners[:k], walked[:m])
