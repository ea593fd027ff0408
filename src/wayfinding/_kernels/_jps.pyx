# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Jump point search kernels: online JPS and JPS+ on uniform-cost grids.

Grids use the padded, flattened layout of the other grid kernels (row width ``Wp = W + 2``,
blocked border) and the legal-move masks ``moves`` (bit d set when the step in direction d is
legal, bit order N, E, S, W, NE, SE, SW, NW).  Only the no-corner-cutting rule is meant: a
diagonal step needs both side cells free, so forced neighbours arise on straight moves only.

Jump points.  A cell ``n`` entered by a straight step in direction ``d`` from ``p = n - d`` is
a (primary) jump point for ``d`` when, for a side ``s`` perpendicular to ``d``, ``n + s`` is
free and ``p + s`` is blocked.  With the move masks that reads
``moves[n] & ~moves[p] & sides(d) != 0`` (``p`` and ``n`` are free, so bit ``s`` of a mask
says whether the side cell is free).

JPS+ distances (``dist``, int16, shape (Np, 8)): ``dist[u, d] > 0`` is the number of steps from
``u`` in direction ``d`` to the next jump point for that direction (for a diagonal: the first
cell from which a straight jump point lies in one of its two component directions);
``dist[u, d] <= 0`` is minus the number of free steps before a wall.

Searches are A* over jump points with the octile heuristic, which is consistent on this graph
(every edge is a straight or diagonal run whose cost equals the octile distance of its ends).
The open list is either the indexed binary heap of ``_heap.pxd`` (exact) or a ring of buckets
of width ``w`` in f, LIFO inside a bucket, with closed nodes re-opened on a cheaper g (cost at
most optimal + w).  Parents are jump points; a node's arrival direction is the sign of the
coordinate difference to its parent.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc

from ._heap cimport Heap, HeapItem, IntVec, heap_decrease, heap_pop, heap_push, vec_push
from ._steps cimport step_offsets
from ._workspace cimport Workspace

cnp.import_array()

cdef double SQRT2 = 1.4142135623730951
cdef double SQRT2_M1 = 0.41421356237309515

# Relative tolerance under which two costs count as equal (see _gridsearch.TIE_EPS).
cdef double TIE_EPS = 1e-12

cdef int DX[8]
cdef int DY[8]
DX[:] = [0, 1, 0, -1, 1, 1, -1, -1]
DY[:] = [-1, 0, 1, 0, -1, 1, 1, -1]

# Direction of a step (dx, dy) in {-1, 0, 1}^2, indexed 3 * (dy + 1) + (dx + 1); -1 for none.
cdef int DIR_OF[9]
DIR_OF[:] = [7, 0, 4, 3, -1, 1, 6, 2, 5]

# Cardinal components of the diagonals NE, SE, SW, NW (vertical first).
cdef int COMP_V[8]
cdef int COMP_H[8]
COMP_V[:] = [-1, -1, -1, -1, 0, 2, 2, 0]
COMP_H[:] = [-1, -1, -1, -1, 1, 1, 3, 3]

# Side bits of each cardinal direction (the two perpendicular cardinals).
cdef uint8_t SIDES[4]
SIDES[:] = [0b1010, 0b0101, 0b1010, 0b0101]

# Diagonal between cardinal d and perpendicular cardinal s, indexed 4 * d + s.
cdef int DIAG_OF[16]
DIAG_OF[:] = [-1, 4, -1, 7,
              4, -1, 5, -1,
              -1, 5, -1, 6,
              7, -1, 6, -1]

# Directions explored after arriving by a diagonal: itself and its two components.
cdef uint8_t AFTER_DIAGONAL[8]
AFTER_DIAGONAL[:] = [0, 0, 0, 0,
                     (1 << 4) | (1 << 0) | (1 << 1),
                     (1 << 5) | (1 << 2) | (1 << 1),
                     (1 << 6) | (1 << 2) | (1 << 3),
                     (1 << 7) | (1 << 0) | (1 << 3)]


cdef struct Counters:
    int64_t expanded
    int64_t generated
    int64_t updated
    int64_t reopened
    int64_t max_open


cdef struct Ring:
    # Bucketed open list: ``head[slot]`` starts a LIFO chain of pool entries (valid only when
    # ``stamp[slot] == gen``); entry e is (node, next) at ``pool.data[2e]``, ``[2e + 1]``.
    int32_t* head
    uint32_t* stamp
    int64_t mask
    uint32_t gen
    double inv_width
    int64_t cursor
    int64_t last
    int64_t live
    IntVec pool


cdef struct Query:
    double* g
    int32_t* parent
    int32_t* pos
    uint32_t* stamp
    Heap* heap
    Ring* ring
    uint32_t open_stamp
    uint32_t closed_stamp
    int goal
    int gx
    int gy
    int width
    Counters c


cdef inline double octile(int ax, int ay) noexcept nogil:
    if ax < 0:
        ax = -ax
    if ay < 0:
        ay = -ay
    if ax > ay:
        return ax + SQRT2_M1 * ay
    return ay + SQRT2_M1 * ax


cdef inline int arrival(int u, int p, int width) noexcept nogil:
    """Direction of the run from parent p to u (both on one straight or diagonal line)."""
    cdef int dx = u % width - p % width
    cdef int dy = u // width - p // width
    dx = (dx > 0) - (dx < 0)
    dy = (dy > 0) - (dy < 0)
    return DIR_OF[3 * (dy + 1) + dx + 1]


cdef inline uint8_t after_straight(const uint8_t* moves, int u, int d, int back) noexcept nogil:
    """Directions explored at a jump point entered by cardinal d: d, then each forced side s
    and the diagonal between d and s."""
    cdef uint8_t forced = moves[u] & ~moves[u + back] & SIDES[d]
    cdef uint8_t dirs = <uint8_t> (1 << d)
    cdef int s
    for s in range(4):
        if (forced >> s) & 1:
            dirs |= <uint8_t> ((1 << s) | (1 << DIAG_OF[4 * d + s]))
    return dirs


# ---------------------------------------------------------------- open lists

cdef inline int ring_push(Ring* r, int32_t* pos, int node, double f) noexcept nogil:
    cdef int64_t b = <int64_t> (f * r.inv_width)
    cdef int64_t slot
    cdef int e
    if b < r.cursor:
        b = r.cursor
    if b > r.last:
        r.last = b
    slot = b & r.mask
    if r.stamp[slot] != r.gen:
        r.stamp[slot] = r.gen
        r.head[slot] = -1
    e = <int> (r.pool.size >> 1)
    if vec_push(&r.pool, node) != 0 or vec_push(&r.pool, r.head[slot]) != 0:
        return -1
    r.head[slot] = e
    pos[node] = e
    r.live += 1
    return 0


cdef inline int ring_pop(Ring* r, int32_t* pos, uint32_t* stamp,
                         uint32_t open_stamp) noexcept nogil:
    """Next live node in f-bucket order (LIFO inside a bucket), or -1 when empty."""
    cdef int64_t slot
    cdef int e, node
    while r.cursor <= r.last:
        slot = r.cursor & r.mask
        if r.stamp[slot] == r.gen and r.head[slot] >= 0:
            e = r.head[slot]
            r.head[slot] = r.pool.data[2 * e + 1]
            r.live -= 1
            node = r.pool.data[2 * e]
            if pos[node] == e and stamp[node] == open_stamp:
                return node
        else:
            r.cursor += 1
    return -1


cdef inline int relax(Query* q, int u, int v, int vx, int vy, double ng) noexcept nogil:
    """A* relaxation of v reached from u with cost ng; returns -1 if memory ran out."""
    cdef uint32_t sv = q.stamp[v]
    cdef double f
    if sv == q.closed_stamp:
        if q.ring == NULL or ng >= q.g[v] * (1.0 - TIE_EPS):
            return 0
        q.c.reopened += 1
    elif sv == q.open_stamp:
        if ng >= q.g[v] * (1.0 - TIE_EPS):
            return 0
        q.c.updated += 1
    else:
        q.c.generated += 1
    f = ng + octile(vx - q.gx, vy - q.gy)
    q.g[v] = ng
    q.parent[v] = u
    if q.ring != NULL:
        q.stamp[v] = q.open_stamp
        return ring_push(q.ring, q.pos, v, f)
    if sv == q.open_stamp:
        heap_decrease(q.heap, q.pos, v, f, ng)
        return 0
    q.stamp[v] = q.open_stamp
    return heap_push(q.heap, q.pos, f, ng, v)


cdef inline int pop_next(Query* q) noexcept nogil:
    cdef HeapItem it
    cdef int64_t size
    if q.ring != NULL:
        size = q.ring.live
        if size > q.c.max_open:
            q.c.max_open = size
        return ring_pop(q.ring, q.pos, q.stamp, q.open_stamp)
    if q.heap.size > q.c.max_open:
        q.c.max_open = q.heap.size
    if q.heap.size == 0:
        return -1
    it = heap_pop(q.heap, q.pos)
    return it.node


cdef void query_init(Query* q, Workspace ws, Ring* ring, int goal, int width) noexcept:
    q.g = &ws.g[0]
    q.parent = &ws.parent[0]
    q.pos = &ws.pos[0]
    q.stamp = &ws.stamp[0]
    q.heap = &ws.heap
    q.ring = ring
    q.open_stamp = ws.begin()
    q.closed_stamp = q.open_stamp + 1
    q.goal = goal
    q.gx = goal % width
    q.gy = goal // width
    q.width = width
    q.c.expanded = 0
    q.c.generated = 0
    q.c.updated = 0
    q.c.reopened = 0
    q.c.max_open = 0


cdef int start_query(Query* q, int start) noexcept nogil:
    q.g[start] = 0.0
    q.parent[start] = -1
    q.c.generated = 1
    q.stamp[start] = q.open_stamp
    cdef double f = octile(start % q.width - q.gx, start // q.width - q.gy)
    if q.ring != NULL:
        # f never falls below the start's (consistent heuristic): begin at its bucket.
        q.ring.cursor = <int64_t> (f * q.ring.inv_width)
        return ring_push(q.ring, q.pos, start, f)
    return heap_push(q.heap, q.pos, f, 0.0, start)


# ---------------------------------------------------------------- online JPS

cdef inline int jump_straight(const uint8_t* moves, int n, int d, int step, int goal,
                              int* steps) noexcept nogil:
    """First jump point (or the goal) from n in cardinal d, or -1 at a wall."""
    cdef uint8_t bit = <uint8_t> (1 << d)
    cdef uint8_t sides = SIDES[d]
    cdef uint8_t mp = moves[n], mn
    cdef int k = 0
    while mp & bit:
        n += step
        k += 1
        mn = moves[n]
        if n == goal or (mn & ~mp & sides):
            steps[0] = k
            return n
        mp = mn
    return -1


cdef inline int jump_diagonal(const uint8_t* moves, int n, int d, const int* offset, int goal,
                              int* steps) noexcept nogil:
    """First cell from n along diagonal d that is the goal or has a straight jump point in a
    component direction, or -1 at a wall."""
    cdef int cv = COMP_V[d], ch = COMP_H[d]
    cdef int ov = offset[cv], oh = offset[ch], step = offset[d]
    cdef uint8_t bit = <uint8_t> (1 << d)
    cdef int k = 0, unused
    while moves[n] & bit:
        n += step
        k += 1
        if n == goal or jump_straight(moves, n, cv, ov, goal, &unused) >= 0 \
                or jump_straight(moves, n, ch, oh, goal, &unused) >= 0:
            steps[0] = k
            return n
    return -1


cdef int jps_loop(Query* q, const uint8_t* moves, int start, bint record,
                  IntVec* rec) noexcept nogil:
    """Online JPS; returns 1 found, 0 not found, -1 out of memory."""
    cdef int offset[8]
    cdef int u, v, p, d, k, ux, uy
    cdef uint8_t dirs
    cdef double gu
    step_offsets(q.width, offset)
    if start_query(q, start) != 0:
        return -1
    while True:
        u = pop_next(q)
        if u < 0:
            return 0
        q.stamp[u] = q.closed_stamp
        q.c.expanded += 1
        if record and vec_push(rec, u) != 0:
            return -1
        if u == q.goal:
            return 1
        p = q.parent[u]
        if p < 0:
            dirs = 0xFF
        else:
            d = arrival(u, p, q.width)
            dirs = after_straight(moves, u, d, -offset[d]) if d < 4 else AFTER_DIAGONAL[d]
        dirs &= moves[u]
        gu = q.g[u]
        ux = u % q.width
        uy = u // q.width
        for d in range(8):
            if not (dirs >> d) & 1:
                continue
            if d < 4:
                v = jump_straight(moves, u, d, offset[d], q.goal, &k)
            else:
                v = jump_diagonal(moves, u, d, offset, q.goal, &k)
            if v < 0:
                continue
            if relax(q, u, v, ux + k * DX[d], uy + k * DY[d],
                     gu + (k if d < 4 else k * SQRT2)) != 0:
                return -1


def jps_search(Workspace ws, const uint8_t[::1] moves, int width, int start, int goal,
               bint record):
    """Online jump point search from ``start`` to ``goal`` (padded flat indices).

    Returns (found, cost, expanded, generated, updated, max_open); the jump points are read
    back with :func:`jump_path` and, with ``record``, ``ws.recorded()`` / ``ws.open_nodes()``.
    """
    cdef Query q
    cdef int status
    query_init(&q, ws, NULL, goal, width)
    with nogil:
        status = jps_loop(&q, &moves[0], start, record, &ws.record)
    if status < 0:
        raise MemoryError("open list could not grow")
    return (status == 1, ws.g[goal] if status == 1 else float("inf"), q.c.expanded,
            q.c.generated, q.c.updated, q.c.max_open)


# ---------------------------------------------------------------- JPS+ preprocessing

cdef inline int16_t extend_straight(bint step_ok, bint next_is_jump, int16_t next_dist) \
        noexcept nogil:
    """Straight distance of a cell from its neighbour m in the sweep direction: 0 when the step
    to m is blocked, 1 when m is a jump point for that direction, else m's distance one
    longer (a jump distance grows, a wall distance grows more negative)."""
    if not step_ok:
        return 0
    if next_is_jump:
        return 1
    return next_dist + 1 if next_dist > 0 else next_dist - 1


cdef inline int16_t extend_diagonal(bint step_ok, int16_t next_v, int16_t next_h,
                                    int16_t next_dist) noexcept nogil:
    """Diagonal distance of a cell from its diagonal neighbour m: 0 when the diagonal step is
    illegal, 1 when m has a straight jump point in a component direction, else m's
    diagonal distance one longer."""
    if not step_ok:
        return 0
    if next_v > 0 or next_h > 0:
        return 1
    return next_dist + 1 if next_dist > 0 else next_dist - 1


def sweep_line(const uint8_t[::1] free, const uint8_t[::1] jump):
    """Straight distances along one line, for direction "toward index 0" (West on a row).

    ``free[i]`` says whether cell i is passable and ``jump[i]`` whether it is a primary jump
    point for that direction (the flags are taken as given).  Returns int16 distances as
    stored by JPS+ (> 0 jump distance, <= 0 minus the free steps before a wall).
    """
    cdef Py_ssize_t n = free.shape[0], i
    if jump.shape[0] != n:
        raise ValueError(f"free has {n} cells but jump has {jump.shape[0]}")
    out = np.zeros(n, dtype=np.int16)
    cdef int16_t[::1] o = out
    for i in range(n):
        if not free[i]:
            o[i] = 0
        else:
            o[i] = extend_straight(i > 0 and free[i - 1], i > 0 and jump[i - 1],
                                   o[i - 1] if i > 0 else 0)
    return out


def primary_jump_points(const uint8_t[::1] moves, int width, uint8_t[::1] out):
    """Flag primary jump points: bit d of ``out[n]`` (d cardinal) when n is a jump point for
    travel in direction d."""
    cdef int offset[8]
    cdef Py_ssize_t n, size = moves.shape[0]
    cdef int d, p
    cdef uint8_t flags
    step_offsets(width, offset)
    with nogil:
        for n in range(width + 1, size - width - 1):
            flags = 0
            for d in range(4):
                p = <int> n - offset[d]
                # p -> n legal means both are free; then the forced-side test on the masks.
                if (moves[p] >> d) & 1 and (moves[n] & ~moves[p] & SIDES[d]):
                    flags |= <uint8_t> (1 << d)
            out[n] = flags


def jump_distances(const uint8_t[::1] moves, int width, int16_t[:, ::1] dist):
    """Fill the JPS+ table ``dist`` ((Np, 8) int16, border rows left 0) from the move masks.

    Each direction d is computed in the flat order in which ``n + offset[d]`` comes before
    ``n``: North and West (and then NE, NW) ascending, South and East (then SE, SW)
    descending; diagonals after all straight distances, which they read.
    """
    cdef int offset[8]
    cdef Py_ssize_t n, size = moves.shape[0], lo = width + 1, hi = size - width - 1
    cdef int m
    cdef uint8_t mv
    step_offsets(width, offset)
    jumps = np.zeros(size, dtype=np.uint8)
    primary_jump_points(moves, width, jumps)
    cdef const uint8_t[::1] jp = jumps
    with nogil:
        for n in range(size):
            for m in range(8):
                dist[n, m] = 0
        for n in range(lo, hi):
            mv = moves[n]
            m = <int> n + offset[0]
            dist[n, 0] = extend_straight(mv & 1, jp[m] & 1, dist[m, 0])
            m = <int> n + offset[3]
            dist[n, 3] = extend_straight((mv >> 3) & 1, (jp[m] >> 3) & 1, dist[m, 3])
        n = hi - 1
        while n >= lo:
            mv = moves[n]
            m = <int> n + offset[1]
            dist[n, 1] = extend_straight((mv >> 1) & 1, (jp[m] >> 1) & 1, dist[m, 1])
            m = <int> n + offset[2]
            dist[n, 2] = extend_straight((mv >> 2) & 1, (jp[m] >> 2) & 1, dist[m, 2])
            n -= 1
        for n in range(lo, hi):
            mv = moves[n]
            m = <int> n + offset[4]
            dist[n, 4] = extend_diagonal((mv >> 4) & 1, dist[m, 0], dist[m, 1], dist[m, 4])
            m = <int> n + offset[7]
            dist[n, 7] = extend_diagonal((mv >> 7) & 1, dist[m, 0], dist[m, 3], dist[m, 7])
        n = hi - 1
        while n >= lo:
            mv = moves[n]
            m = <int> n + offset[5]
            dist[n, 5] = extend_diagonal((mv >> 5) & 1, dist[m, 2], dist[m, 1], dist[m, 5])
            m = <int> n + offset[6]
            dist[n, 6] = extend_diagonal((mv >> 6) & 1, dist[m, 2], dist[m, 3], dist[m, 6])
            n -= 1


# ---------------------------------------------------------------- JPS+ search

cdef int plus_loop(Query* q, const int16_t* dist, const uint8_t* moves, int start,
                   bint record, IntVec* rec, const uint16_t* boxes, bint bounded) noexcept nogil:
    """JPS+; returns 1 found, 0 not found, -1 out of memory."""
    cdef int offset[8]
    cdef int u, v, p, d, k, ux, uy, rx, ry, ax, ay, dd, reach
    cdef int gx = q.gx - 1, gy = q.gy - 1     # goal in unpadded coordinates (for boxes)
    cdef uint8_t dirs
    cdef double gu
    cdef const int16_t* du
    cdef const uint16_t* box
    step_offsets(q.width, offset)
    if start_query(q, start) != 0:
        return -1
    while True:
        u = pop_next(q)
        if u < 0:
            return 0
        q.stamp[u] = q.closed_stamp
        q.c.expanded += 1
        if record and vec_push(rec, u) != 0:
            return -1
        if u == q.goal:
            return 1
        p = q.parent[u]
        if p < 0:
            dirs = 0xFF
        else:
            d = arrival(u, p, q.width)
            dirs = after_straight(moves, u, d, -offset[d]) if d < 4 else AFTER_DIAGONAL[d]
        if bounded:
            box = boxes + <Py_ssize_t> u * 32
            for d in range(8):
                if (dirs >> d) & 1 and not (box[4 * d] <= gx <= box[4 * d + 1]
                                            and box[4 * d + 2] <= gy <= box[4 * d + 3]):
                    dirs &= <uint8_t> ~(1 << d)
        gu = q.g[u]
        ux = u % q.width
        uy = u // q.width
        rx = q.gx - ux
        ry = q.gy - uy
        ax = rx if rx >= 0 else -rx
        ay = ry if ry >= 0 else -ry
        du = dist + <Py_ssize_t> u * 8
        for d in range(8):
            if not (dirs >> d) & 1:
                continue
            dd = du[d]
            reach = dd if dd >= 0 else -dd
            if d < 4:
                # The goal straight ahead, no farther than the next jump point or wall.
                if (rx == 0 and ry * DY[d] > 0 and ay <= reach) \
                        or (ry == 0 and rx * DX[d] > 0 and ax <= reach):
                    v = q.goal
                    k = ax + ay
                elif dd > 0:
                    k = dd
                    v = u + k * offset[d]
                else:
                    continue
                if relax(q, u, v, ux + k * DX[d], uy + k * DY[d], gu + k) != 0:
                    return -1
            else:
                # A target jump point where the diagonal meets the goal's row or column.
                k = ax if ax < ay else ay
                if rx * DX[d] > 0 and ry * DY[d] > 0 and k <= reach:
                    v = u + k * offset[d]
                elif dd > 0:
                    k = dd
                    v = u + k * offset[d]
                else:
                    continue
                if relax(q, u, v, ux + k * DX[d], uy + k * DY[d], gu + k * SQRT2) != 0:
                    return -1


cdef class Buckets:
    """Reusable bucketed open list (per thread): a ring of LIFO buckets plus an entry pool.

    Slots are valid only for the query generation that stamped them, so no query clears the
    ring; the pool is emptied by resetting its size.
    """
    cdef Ring ring
    cdef readonly int64_t slots

    def __cinit__(self, int64_t slots):
        cdef int64_t n = 4, i
        while n < slots:
            n <<= 1
        self.slots = n
        self.ring.head = <int32_t*> malloc(n * sizeof(int32_t))
        self.ring.stamp = <uint32_t*> malloc(n * sizeof(uint32_t))
        if self.ring.head == NULL or self.ring.stamp == NULL:
            raise MemoryError(f"cannot allocate {n} buckets")
        for i in range(n):
            self.ring.stamp[i] = 0
        self.ring.mask = n - 1
        self.ring.gen = 0
        self.ring.pool.data = NULL
        self.ring.pool.size = 0
        self.ring.pool.capacity = 0

    def __dealloc__(self):
        free(self.ring.head)
        free(self.ring.stamp)
        free(self.ring.pool.data)

    @property
    def nbytes(self):
        """Bytes held by the ring and the entry pool."""
        return self.slots * 8 + self.ring.pool.capacity * sizeof(int)

    cdef Ring* begin(self, double width):
        cdef int64_t i
        if self.ring.gen >= 0xFFFFFFF0:
            for i in range(self.slots):
                self.ring.stamp[i] = 0
            self.ring.gen = 0
        self.ring.gen += 1
        self.ring.inv_width = 1.0 / width
        self.ring.cursor = 0
        self.ring.last = -1
        self.ring.live = 0
        self.ring.pool.size = 0
        return &self.ring

    def open_nodes(self, Workspace ws):
        """Nodes still open after the last bucketed query, bucket by bucket."""
        cdef uint32_t open_stamp = 2 * ws.generation
        cdef int64_t b, slot
        cdef int e, node
        seen = []
        for b in range(self.ring.cursor, self.ring.last + 1):
            slot = b & self.ring.mask
            if self.ring.stamp[slot] != self.ring.gen:
                continue
            e = self.ring.head[slot]
            while e >= 0:
                node = self.ring.pool.data[2 * e]
                if ws.pos[node] == e and ws.stamp[node] == open_stamp:
                    seen.append(node)
                e = self.ring.pool.data[2 * e + 1]
        return np.asarray(seen, dtype=np.int64)


def plus_search(Workspace ws, const int16_t[:, ::1] dist, const uint8_t[::1] moves, int width,
                int start, int goal, bint record, Buckets buckets,
                double bucket_width, const uint16_t[:, :, ::1] boxes, bint bounded):
    """JPS+ from ``start`` to ``goal`` (padded flat indices) over the table ``dist``.

    ``buckets`` (or None for the heap) selects the bucketed open list (width ``bucket_width`` in f; the ring must
    cover ``2 * sqrt 2 * max(H, W) / bucket_width + 3`` buckets).  ``boxes`` ((Np, 8, 4)
    uint16, with ``bounded``) prunes directions whose goal box misses the goal.
    Returns (found, cost, expanded, generated, updated, reopened, max_open).
    """
    cdef Query q
    cdef int status
    cdef Ring* ring = NULL
    if buckets is not None:
        ring = buckets.begin(bucket_width)
    query_init(&q, ws, ring, goal, width)
    with nogil:
        status = plus_loop(&q, &dist[0, 0], &moves[0], start, record, &ws.record,
                           &boxes[0, 0, 0], bounded)
    if status < 0:
        raise MemoryError("open list could not grow")
    return (status == 1, ws.g[goal] if status == 1 else float("inf"), q.c.expanded,
            q.c.generated, q.c.updated, q.c.reopened, q.c.max_open)


def jump_path(Workspace ws, int goal, int width):
    """``(n, 2)`` int64 ``(x, y)`` cells from the query's start to ``goal``, every run between
    consecutive jump points of the parent chain filled in cell by cell."""
    cdef int32_t* parent = &ws.parent[0]
    cdef Py_ssize_t n = 1, i
    cdef int v = goal, p, x, y, px, py, k, sx, sy, steps
    while parent[v] >= 0:
        p = parent[v]
        x = v % width - p % width
        y = v // width - p // width
        n += max(abs(x), abs(y))
        v = p
    out = np.empty((n, 2), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    v = goal
    i = n - 1
    o[i, 0] = v % width - 1
    o[i, 1] = v // width - 1
    while parent[v] >= 0:
        p = parent[v]
        x = v % width
        y = v // width
        px = p % width
        py = p // width
        sx = (px > x) - (px < x)
        sy = (py > y) - (py < y)
        steps = max(abs(px - x), abs(py - y))
        for k in range(1, steps + 1):
            i -= 1
            o[i, 0] = x + k * sx - 1
            o[i, 1] = y + k * sy - 1
        v = p
    return out
