# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""JPS+: jump point search over precomputed jump distances on uniform-cost grids.

Grids, move masks and jump points are those of the online search (``_jps``): padded,
flattened layout (row width ``Wp = W + 2``, blocked border), bit order N, E, S, W, NE, SE,
SW, NW, no corner cutting.

JPS+ distances (``dist``, int16, shape (Np, 8)): ``dist[u, d] > 0`` is the number of steps from
``u`` in direction ``d`` to the next jump point for that direction (for a diagonal: the first
cell from which a straight jump point lies in one of its two component directions);
``dist[u, d] <= 0`` is minus the number of free steps before a wall.

Searches are A* over jump points with the octile heuristic, which is consistent on this graph,
so closed nodes are final.  JPS+ keeps one 32-byte record per padded cell
in a per-thread :class:`PlusScratch`: g, a stamp holding the query generation and the arrival
direction, the run length back to the parent, and copies of the cell's move mask and
distances, so each touched node costs one cache line.  Its open list is a lazy-deletion heap
with a LIFO side list for successors that keep the least f, or a ring of f-buckets (LIFO
inside a bucket, closed nodes re-opened on a cheaper g: cost at most optimal + bucket width).
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport free, malloc, realloc

from ._constants cimport BAD_GOAL, BAD_START, FAILED, FOUND, SQRT2, TIE_EPS
from ._heap cimport Heap, HeapItem, IntVec, heap_free, heap_init, lazy_pop, lazy_push, vec_push
from ._jps_tables cimport (
    AFTER_DIAGONAL,
    AFTER_STRAIGHT,
    SIDES,
    Counters,
    fill_after_straight,
    octile,
)
from ._portable cimport ctz32
from ._steps cimport step_dx, step_dy, step_of, step_offsets

cnp.import_array()

# Step lengths.
cdef double LENGTH[8]
LENGTH[:] = [1.0, 1.0, 1.0, 1.0, SQRT2, SQRT2, SQRT2, SQRT2]

# Arrival direction code of the start node (explores all 8 directions).
cdef enum:
    FROM_START = 8


fill_after_straight()


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

cdef struct PNode:
    # One 32-byte record per padded cell: the search state next to the cell's move mask and
    # distances, so a touched node costs one cache line.
    double g
    uint32_t stamp          # (generation << 5) | (arrival direction << 1) | closed
    uint16_t back           # steps back to the parent along the arrival direction
    uint8_t moves
    uint8_t jumps           # bit d set when dist[d] > 0 (a jump point ahead)
    int16_t dist[8]


cdef struct Entry:
    # A bucket entry: the node, the next entry of its bucket, and g when pushed (an entry
    # is stale once the node's g has changed or it was closed).
    int32_t node
    int32_t next
    double g


cdef struct Ring:
    # Bucketed open list: ``head[slot]`` starts a LIFO chain of entries, valid only when
    # ``stamp[slot] == gen``; the ring covers the span of live f values (no wrap-around).
    int32_t* head
    uint32_t* stamp
    int64_t slots
    int64_t mask
    uint32_t gen
    double inv_width
    int64_t cursor
    int64_t last
    int64_t live
    Entry* pool
    int64_t size
    int64_t capacity


cdef struct PlusQuery:
    PNode* nodes
    Heap* heap
    IntVec* ties            # heap mode: open nodes whose f equals the least f (LIFO)
    double fmin             # heap mode: f of the last item taken from the heap
    Ring* ring              # NULL: the heap
    uint32_t base           # generation << 5: stamps of this query are base | dir << 1 | closed
    int goal
    int gx                  # padded goal coordinates
    int gy
    int width
    Counters c


cdef inline bint is_open(uint32_t stamp, uint32_t base) noexcept nogil:
    return (stamp & ~<uint32_t> 31) == base and not (stamp & 1)


cdef inline int ring_push(Ring* r, int node, double f, double g) noexcept nogil:
    cdef int64_t b = <int64_t> (f * r.inv_width)
    cdef int64_t slot, cap
    cdef Entry* grown
    if r.size == r.capacity:
        cap = 256 if r.capacity < 256 else 2 * r.capacity
        grown = <Entry*> realloc(r.pool, cap * sizeof(Entry))
        if grown == NULL:
            return -1
        r.pool = grown
        r.capacity = cap
    if b < r.cursor:
        b = r.cursor
    if b > r.last:
        r.last = b
    slot = b & r.mask
    if r.stamp[slot] != r.gen:
        r.stamp[slot] = r.gen
        r.head[slot] = -1
    r.pool[r.size].node = node
    r.pool[r.size].next = r.head[slot]
    r.pool[r.size].g = g
    r.head[slot] = <int32_t> r.size
    r.size += 1
    r.live += 1
    return 0


cdef inline int ring_pop(Ring* r, PNode* nodes, uint32_t base) noexcept nogil:
    """Next live node in f-bucket order (LIFO inside a bucket), or -1 when empty."""
    cdef int64_t slot
    cdef int e, node
    while r.cursor <= r.last:
        slot = r.cursor & r.mask
        if r.stamp[slot] == r.gen and r.head[slot] >= 0:
            e = r.head[slot]
            r.head[slot] = r.pool[e].next
            r.live -= 1
            node = r.pool[e].node
            if is_open(nodes[node].stamp, base) and nodes[node].g == r.pool[e].g:
                return node
        else:
            r.cursor += 1
    return -1


cdef inline int plus_relax(PlusQuery* q, int v, int vx, int vy, int k, int d,
                           double ng) noexcept nogil:
    """A* relaxation of v at (vx, vy), k steps from its would-be parent in direction d, with
    cost ng."""
    cdef PNode* nv = &q.nodes[v]
    cdef uint32_t sv = nv.stamp
    cdef double f
    if (sv & ~<uint32_t> 31) == q.base:
        if ng >= nv.g * (1.0 - TIE_EPS):
            return 0
        if sv & 1:
            # Final with the heap; the bucketed list re-opens it when it gets cheaper.
            if q.ring == NULL:
                return 0
            q.c.reopened += 1
        else:
            q.c.updated += 1
    else:
        q.c.generated += 1
    nv.g = ng
    nv.back = <uint16_t> k
    nv.stamp = q.base | <uint32_t> (d << 1)
    f = ng + octile(vx - q.gx, vy - q.gy)
    if q.ring != NULL:
        return ring_push(q.ring, v, f, ng)
    if f - q.fmin <= TIE_EPS * q.fmin:
        # f never drops below the least f (consistent heuristic): a successor that keeps it
        # is expanded next, from the LIFO side list, without heap traffic.
        return vec_push(q.ties, v)
    return lazy_push(q.heap, f, ng, v)


cdef inline int plus_pop(PlusQuery* q) noexcept nogil:
    cdef int u
    if q.ring != NULL:
        if q.ring.live > q.c.max_open:
            q.c.max_open = q.ring.live
        return ring_pop(q.ring, q.nodes, q.base)
    if q.heap.size + q.ties.size > q.c.max_open:
        q.c.max_open = q.heap.size + q.ties.size
    while q.ties.size > 0:
        q.ties.size -= 1
        u = q.ties.data[q.ties.size]
        if is_open(q.nodes[u].stamp, q.base):
            return u
    while q.heap.size > 0:
        q.fmin = q.heap.items[0].f
        u = lazy_pop(q.heap)
        if is_open(q.nodes[u].stamp, q.base):
            return u
    return -1


cdef int plus_loop(PlusQuery* q, bint record, IntVec* rec, const uint16_t* boxes,
                   bint bounded) noexcept nogil:
    """JPS+ from the node already pushed; returns FOUND, FAILED or -1 (out of memory).

    Per expansion: the arrival direction gives the directions to explore; of those only the
    ones with a jump point ahead (positive distance) and the one direction in which the goal
    lies (aligned straight, or strictly inside a diagonal's quadrant) can yield a successor.
    """
    cdef int offset[8]
    cdef int u, d, k, ux, uy, rx, ry, ax, ay, dd, gd, width = q.width
    cdef int bx = q.gx - 1, by = q.gy - 1     # goal in unpadded coordinates (for boxes)
    cdef unsigned int dirs, cand, positive, gbit
    cdef double gu
    cdef PNode* nu
    cdef const uint16_t* box
    step_offsets(width, offset)
    while True:
        u = plus_pop(q)
        if u < 0:
            return FAILED
        nu = &q.nodes[u]
        nu.stamp |= 1
        q.c.expanded += 1
        if record and vec_push(rec, u) != 0:
            return -1
        if u == q.goal:
            return FOUND
        d = (nu.stamp >> 1) & 15
        if d == FROM_START:
            dirs = 0xFF
        elif d < 4:
            dirs = AFTER_STRAIGHT[256 * d + nu.moves]
        else:
            dirs = AFTER_DIAGONAL[d]
        positive = nu.jumps
        gu = nu.g
        ux = u % width
        uy = u // width
        rx = q.gx - ux
        ry = q.gy - uy
        ax = rx if rx >= 0 else -rx
        ay = ry if ry >= 0 else -ry
        gd = step_of((rx > 0) - (rx < 0), (ry > 0) - (ry < 0))
        gbit = dirs & (1u << gd)
        cand = dirs & (positive | gbit)
        if bounded and cand:
            box = boxes + <Py_ssize_t> u * 32
            for d in range(8):
                if (cand >> d) & 1 and not (box[4 * d] <= bx <= box[4 * d + 1]
                                            and box[4 * d + 2] <= by <= box[4 * d + 3]):
                    cand &= ~(1u << d)
        if cand & gbit:
            cand &= ~gbit
            dd = nu.dist[gd]
            # Straight: the goal itself when no farther than the next jump point or wall.
            # Diagonal: a target jump point where the run meets the goal's row or column.
            k = ax + ay if gd < 4 else (ax if ax < ay else ay)
            if k > (dd if dd >= 0 else -dd):
                k = dd          # beyond reach: the jump point, if any (positive dd)
            if k > 0 and plus_relax(q, u + k * offset[gd], ux + k * step_dx(gd),
                                    uy + k * step_dy(gd), k, gd, gu + k * LENGTH[gd]) != 0:
                return -1
        while cand:
            d = ctz32(cand)
            cand &= cand - 1
            k = nu.dist[d]
            if plus_relax(q, u + k * offset[d], ux + k * step_dx(d), uy + k * step_dy(d), k,
                          d, gu + k * LENGTH[d]) != 0:
                return -1


cdef class PlusScratch:
    """Per-thread JPS+ query state over one table: a 32-byte record per padded cell (g,
    stamp with the arrival direction, steps back to the parent, and copies of the cell's move
    mask, eight distances and which of them lead to a jump point), the heap, the bucket ring
    (allocated on the first bucketed query) and the record buffer.

    Stamps carry a query generation, so no query clears the records or the ring.  Not
    thread-safe: one per thread.
    """
    cdef PNode* nodes
    cdef readonly Py_ssize_t size
    cdef readonly int width
    cdef readonly int height
    cdef readonly double path_cost
    cdef uint32_t generation
    cdef Heap heap
    cdef Ring ring
    cdef IntVec record
    cdef IntVec ties
    cdef bint bucketed
    cdef const int32_t[:, ::1] islands

    def __cinit__(self, const int16_t[:, ::1] dist, const uint8_t[::1] moves,
                  const int32_t[:, ::1] islands, int width):
        cdef Py_ssize_t i
        cdef int d
        self.nodes = NULL
        self.heap.items = NULL
        self.ring.head = NULL
        self.ring.stamp = NULL
        self.ring.slots = 0
        self.ring.gen = 0
        self.ring.pool = NULL
        self.ring.size = 0
        self.ring.capacity = 0
        self.record.data = NULL
        self.record.size = 0
        self.record.capacity = 0
        self.ties.data = NULL
        self.ties.size = 0
        self.ties.capacity = 0
        self.bucketed = False
        self.generation = 0
        self.size = moves.shape[0]
        if width < 3 or self.size % width != 0 or self.size // width < 3:
            raise ValueError(f"{self.size} padded cells do not form rows of width {width}")
        if dist.shape[0] != self.size or dist.shape[1] != 8:
            raise ValueError(f"dist has shape ({dist.shape[0]}, {dist.shape[1]}), "
                             f"expected ({self.size}, 8)")
        if islands.shape[0] != self.size // width - 2 or islands.shape[1] != width - 2:
            raise ValueError(f"islands has shape ({islands.shape[0]}, {islands.shape[1]}), "
                             f"expected ({self.size // width - 2}, {width - 2})")
        self.islands = islands
        self.width = width
        self.height = <int> (self.size // width)
        self.nodes = <PNode*> malloc(self.size * sizeof(PNode))
        if self.nodes == NULL or heap_init(&self.heap, 256) != 0:
            raise MemoryError("cannot allocate the JPS+ node records")
        with nogil:
            for i in range(self.size):
                self.nodes[i].stamp = 0
                self.nodes[i].moves = moves[i]
                self.nodes[i].jumps = 0
                for d in range(8):
                    self.nodes[i].dist[d] = dist[i, d]
                    if dist[i, d] > 0:
                        self.nodes[i].jumps |= <uint8_t> (1 << d)

    def __dealloc__(self):
        free(self.nodes)
        heap_free(&self.heap)
        free(self.ring.head)
        free(self.ring.stamp)
        free(self.ring.pool)
        free(self.record.data)
        free(self.ties.data)

    @property
    def nbytes(self):
        """Bytes held: node records, heap, bucket ring and lists."""
        return (self.size * sizeof(PNode) + self.heap.capacity * sizeof(HeapItem)
                + self.ring.slots * 8 + self.ring.capacity * sizeof(Entry)
                + (self.record.capacity + self.ties.capacity) * sizeof(int))

    @property
    def bucket_slots(self):
        """Buckets in the ring (0 until a bucketed query)."""
        return self.ring.slots

    cdef int _reserve_ring(self, int64_t need) except -1:
        cdef int64_t n = 4, i
        while n < need:
            n <<= 1
        if n <= self.ring.slots:
            return 0
        free(self.ring.head)
        free(self.ring.stamp)
        self.ring.head = <int32_t*> malloc(n * sizeof(int32_t))
        self.ring.stamp = <uint32_t*> malloc(n * sizeof(uint32_t))
        if self.ring.head == NULL or self.ring.stamp == NULL:
            free(self.ring.head)
            free(self.ring.stamp)
            self.ring.head = NULL
            self.ring.stamp = NULL
            self.ring.slots = 0
            raise MemoryError(f"cannot allocate {n} buckets")
        for i in range(n):
            self.ring.stamp[i] = 0
        self.ring.slots = n
        self.ring.mask = n - 1
        self.ring.gen = 0
        return 0

    cdef int _query(self, int sx, int sy, int gx, int gy, bint record, double bucket_width,
                    const uint16_t* boxes, Counters* c) except -9:
        """One query; returns FOUND, FAILED, BAD_START or BAD_GOAL."""
        cdef int64_t need
        cdef PlusQuery q
        cdef int start, status, w = self.width
        cdef Py_ssize_t i
        cdef double f
        c.expanded = 0
        c.generated = 0
        c.updated = 0
        c.reopened = 0
        c.max_open = 0
        if not (0 <= sx < w - 2 and 0 <= sy < self.height - 2) or self.islands[sy, sx] < 0:
            return BAD_START
        if not (0 <= gx < w - 2 and 0 <= gy < self.height - 2) or self.islands[gy, gx] < 0:
            return BAD_GOAL
        if self.islands[sy, sx] != self.islands[gy, gx]:
            return FAILED
        # Generation stamps: nothing is cleared unless the counter wraps.
        if self.generation >= (1u << 26):
            for i in range(self.size):
                self.nodes[i].stamp = 0
            self.generation = 0
        self.generation += 1
        self.heap.size = 0
        self.record.size = 0
        self.ties.size = 0
        self.bucketed = False
        q.nodes = self.nodes
        q.heap = &self.heap
        q.ties = &self.ties
        q.ring = NULL
        q.base = self.generation << 5
        q.width = w
        q.gx = gx + 1
        q.gy = gy + 1
        q.goal = q.gy * w + q.gx
        q.c = c[0]
        start = (sy + 1) * w + sx + 1
        self.nodes[start].g = 0.0
        self.nodes[start].back = 0
        self.nodes[start].stamp = q.base | (FROM_START << 1)
        if start == q.goal:
            self.nodes[start].stamp |= 1
            return FOUND
        q.c.generated = 1
        f = octile(sx - gx, sy - gy)
        q.fmin = f
        if bucket_width > 0:
            # An open node's f stays within twice the longest run (sqrt 2 * longest side)
            # above the least f, so the ring never wraps onto a live bucket.
            need = <int64_t> (2.0 * SQRT2 * max(w, self.height) / bucket_width) + 4
            self._reserve_ring(need)
            if self.ring.gen >= 0xFFFFFFF0:
                for i in range(self.ring.slots):
                    self.ring.stamp[i] = 0
                self.ring.gen = 0
            self.ring.gen += 1
            self.ring.inv_width = 1.0 / bucket_width
            self.ring.cursor = <int64_t> (f * self.ring.inv_width)
            self.ring.last = -1
            self.ring.live = 0
            self.ring.size = 0
            self.bucketed = True
            q.ring = &self.ring
            status = ring_push(q.ring, start, f, 0.0)
        else:
            status = lazy_push(q.heap, f, 0.0, start)
        if status == 0:
            with nogil:
                status = plus_loop(&q, record, &self.record, boxes, boxes != NULL)
        c[0] = q.c
        if status < 0:
            raise MemoryError("open list could not grow")
        return status

    cdef double _chain_cost(self, int goal) noexcept:
        """Exact cost of the parent chain ending at a reached node."""
        cdef int64_t straight = 0, diagonal = 0
        cdef int v = goal, d
        cdef int offset[8]
        step_offsets(self.width, offset)
        while self.nodes[v].back > 0:
            d = (self.nodes[v].stamp >> 1) & 15
            if d < 4:
                straight += self.nodes[v].back
            else:
                diagonal += self.nodes[v].back
            v -= self.nodes[v].back * offset[d]
        return straight + diagonal * SQRT2

    def search(self, int sx, int sy, int gx, int gy, bint record=False,
               double bucket_width=0.0, object boxes=None):
        """JPS+ from cell (sx, sy) to (gx, gy) (unpadded).

        ``bucket_width > 0`` selects the bucketed open list (f buckets of that width, LIFO
        inside, closed nodes re-opened: cost <= optimal + width); else the exact heap.
        ``boxes``: None or a C-contiguous (Np, 8, 4) uint16 goal-bounding array; direction
        d is explored at node u only when the goal lies in ``boxes[u, d]``.

        Returns (status, g of the goal, expanded, generated, updated, reopened, max_open);
        status FOUND, FAILED (nothing is searched when the island ids of ``islands`` differ),
        BAD_START or BAD_GOAL when the start or the goal is outside the grid or blocked (island
        id < 0): the codes of ``wayfinding._kernels._codes``.
        start == goal is found at cost 0 without searching.
        """
        cdef const uint16_t[:, :, ::1] bv
        cdef const uint16_t* bp = NULL
        cdef Counters c
        cdef int status
        if boxes is not None:
            bv = boxes
            if bv.shape[0] != self.size or bv.shape[1] != 8 or bv.shape[2] != 4:
                raise ValueError(f"boxes must have shape ({self.size}, 8, 4)")
            bp = &bv[0, 0, 0]
        status = self._query(sx, sy, gx, gy, record, bucket_width, bp, &c)
        return (status, self.nodes[(gy + 1) * self.width + gx + 1].g if status == FOUND
                else float("inf"), c.expanded, c.generated, c.updated, c.reopened, c.max_open)

    def costs(self, const int32_t[:, ::1] queries, double[::1] out, double bucket_width=0.0,
              object boxes=None):
        """Cost of each query row (sx, sy, gx, gy) into ``out`` (inf when unreachable), the
        cost of the path a single query would return.  Returns the index of the first row
        with a blocked or out-of-grid endpoint, or -1 when every row was answered."""
        cdef const uint16_t[:, :, ::1] bv
        cdef const uint16_t* bp = NULL
        cdef Counters c
        cdef Py_ssize_t i
        cdef int status
        if queries.shape[1] != 4 or out.shape[0] != queries.shape[0]:
            raise ValueError("queries must be (n, 4) and out (n,)")
        if boxes is not None:
            bv = boxes
            if bv.shape[0] != self.size or bv.shape[1] != 8 or bv.shape[2] != 4:
                raise ValueError(f"boxes must have shape ({self.size}, 8, 4)")
            bp = &bv[0, 0, 0]
        for i in range(queries.shape[0]):
            status = self._query(queries[i, 0], queries[i, 1], queries[i, 2], queries[i, 3],
                                 False, bucket_width, bp, &c)
            if status < 0:
                return i
            out[i] = self._chain_cost((queries[i, 3] + 1) * self.width + queries[i, 2] + 1) \
                if status == FOUND else float("inf")
        return -1

    def path(self, int gx, int gy):
        """``(n, 2)`` int64 ``(x, y)`` cells from the last query's start to the reached goal
        (gx, gy), each run between consecutive jump points filled in cell by cell; sets
        ``path_cost`` to the path's exact cost (straight steps + sqrt 2 x diagonal steps)."""
        cdef int w = self.width
        cdef int goal = (gy + 1) * w + gx + 1
        cdef Py_ssize_t i = 0
        cdef cnp.npy_intp dims[2]
        cdef int v = goal, d, k, steps
        cdef int64_t x = gx, y = gy
        cdef int64_t straight = 0, diagonal = 0
        cdef int64_t* o
        cdef int offset[8]
        step_offsets(w, offset)
        if not (0 <= gx < w - 2 and 0 <= gy < self.height - 2) \
                or (self.nodes[goal].stamp >> 5) != self.generation:
            raise ValueError(f"cell ({gx}, {gy}) was not reached by the last query")
        while self.nodes[v].back > 0:
            d = (self.nodes[v].stamp >> 1) & 15
            if d < 4:
                straight += self.nodes[v].back
            else:
                diagonal += self.nodes[v].back
            v -= self.nodes[v].back * offset[d]
        dims[0] = straight + diagonal + 1
        dims[1] = 2
        out = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT64, 0)
        o = <int64_t*> cnp.PyArray_DATA(out)
        # Walk back from the goal, writing cells from the end of the array.
        i = 2 * dims[0]
        v = goal
        while True:
            i -= 2
            o[i] = x
            o[i + 1] = y
            steps = self.nodes[v].back
            if steps == 0:
                break
            d = (self.nodes[v].stamp >> 1) & 15
            for k in range(steps - 1):
                x -= step_dx(d)
                y -= step_dy(d)
                i -= 2
                o[i] = x
                o[i + 1] = y
            x -= step_dx(d)
            y -= step_dy(d)
            v -= steps * offset[d]
        self.path_cost = straight + diagonal * SQRT2
        return out

    def recorded(self):
        """Expansion order of the last recorded query (padded flat indices)."""
        return np.asarray(<int[:self.record.size]> self.record.data).astype(np.int64) \
            if self.record.size else np.empty(0, dtype=np.int64)

    def open_nodes(self):
        """Nodes still open after the last query (padded flat indices, each once)."""
        cdef uint32_t base = self.generation << 5
        cdef int64_t b, slot
        cdef Py_ssize_t i
        cdef int e, node
        seen = []
        if self.bucketed:
            for b in range(self.ring.cursor, self.ring.last + 1):
                slot = b & self.ring.mask
                if self.ring.stamp[slot] != self.ring.gen:
                    continue
                e = self.ring.head[slot]
                while e >= 0:
                    node = self.ring.pool[e].node
                    if is_open(self.nodes[node].stamp, base) \
                            and self.nodes[node].g == self.ring.pool[e].g:
                        seen.append(node)
                    e = self.ring.pool[e].next
        else:
            for i in range(self.ties.size):
                node = self.ties.data[i]
                if is_open(self.nodes[node].stamp, base) and node not in seen:
                    seen.append(node)
            for i in range(self.heap.size):
                node = self.heap.items[i].node
                if is_open(self.nodes[node].stamp, base) and node not in seen:
                    seen.append(node)
        return np.asarray(seen, dtype=np.int64)
