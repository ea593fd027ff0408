# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# Incremental search (Koenig and Likhachev's LPA* and D* Lite) with mutable edge costs, in
# one kernel: a search from a root towards a target over "pull" edges (a node's rhs is the
# best g of the nodes it pulls from plus the edge cost) that pushes changes along the
# reverse "push" edges.  LPA*: root = start, pull = in-edges.  D* Lite: root = goal, target
# = the agent's position, pull = out-edges, and a key modifier km when the agent moves.
#
# Two worlds: a grid read in place (cell costs, an overlay of changed cells; the edges
# between 8-neighbours are implicit and symmetric, edge id ``node * 8 + direction``), or a
# CSR graph (edge costs in one array indexed by edge id; inf means no edge).
#
# Node state is lazy: the per-node array is allocated uninitialised and a "seen" bitmap
# (zeroed) says which nodes hold state; an unseen node reads g = rhs = inf.  Building costs
# O(1) whatever the world's size, and a search touches only the nodes it reaches.
#
# A freed planner's node array and bitmap are kept in a pool of one pair (the largest freed
# so far) and handed to the next planner of at most their size, whose first plan then
# touches pages already in memory instead of faulting on each fresh one.  The bitmap goes
# back zeroed: a second bitmap, one bit per word of it, says which words to clear, so giving
# back costs time in the nodes the searches reached, not in the world.  The pool counts the
# bytes of the pair its searches may have touched: n * (sizeof(Node) + sizeof(Slot)) + n / 8
# (24.125 per node) on a world laid out by node, 6176 per tile given out on a grid laid out
# in tiles (see ``ix``), and keeps a pair that touched no more than ``pool_cap`` bytes
# (128 MiB unless set: a 2048 x 2048 grid's pair fits, and a 4096 x 4096 grid's as long as
# its searches reach at most 21,700 of its 65,536 tiles); another pair is freed.
# ``pool_bytes`` reports those bytes, ``release_pool`` frees the pair (and the queue
# arrays kept beside it, see ``pool_items``).  Taking and giving back hold the GIL.
#
# The first plan against A* (benchmarks/dynamic.py, medians per map of the per-query ratios,
# three runs on a shared machine): 0.8-1.03x A* for D* Lite and 0.9-1.09x for LPA* on the
# Moving AI maps (LPA*'s highest on dao/den312d, where it expands what A* does and D* Lite
# fewer), 0.94-1.0x on an open 1024 x 1024 grid, 0.75-1.03x on an open 4096 x 4096 grid
# (before the changes below 0.94-1.26x, 1.32-1.43x and 0.89-1.24x).  The first search is one
# A*-like loop (``first_grid``) that leaves LPA*'s state, compiled apart (``GridKind``) for
# the grids with step masks and diagonal steps (node memory by node or in tiles, cell costs
# read or all 1: a grid known to be uniform has no cost read) without the tests the others
# make as they run (7% fewer instructions on dao/den312d); its ties wait on their stack until
# a later call needs the queue (``settled``: the first edit or replan pays for moving them,
# and measured no slower).  While that state stands (``pointed``: no g or rhs changed since),
# each reached node's VIA bits name the neighbour the path walk picks (the least g + step,
# first in step order): kept as the offers come in, a tie with the pick decided by step order
# and a gain within the rounding margin, which the rhs does not take, by its value (LOW), so
# the walk (``trace``) follows them and reads no neighbour; the path is the one the walk
# reading every neighbour takes.  That took the walk from a fifth or more of the plan on the
# open grids to about a tenth (the steps are a chain of dependent loads), and a grid path
# comes out as cells from the same call (``cells``, no node or edge array).  A freed planner's
# queue arrays serve the next one (growing them cost about a tenth of the first plan on the
# open 1024 x 1024 grid); ``place`` is inline (a lowered key no longer costs a call: 4-9% off
# the first search on the maps), the heap's loops keep its arrays in locals, a reached
# neighbour that gains nothing is passed over with one comparison, and a node offers nothing
# back to its pick (VIA: its g is that one's plus a step, so the step back gains nothing; 3%
# fewer instructions).  What remains (callgrind, instructions of the first search and path
# against A*'s search and path, 20 queries): LPA* 1.20x on dao/den312d (D* Lite's backward
# search expands fewer nodes there: both together 1.08x), 1.22x on the open 1024 x 1024 grid,
# from the loop's bookkeeping (24-byte queue items moved as each new side node rises to the
# heap's top, keys rounded to 2**-24, the "seen" bit read per neighbour, the tie stack weighed
# against the heap's top); in time the first plan is still about one A*, whose call spends
# more around its loop (checks, its path) than ``replan`` does.  Tried and left: passing over
# a reached neighbour that the cheapest step cannot improve before reading its cell cost (4%
# faster on some maps, 7-16% slower on the maze and the 4096 x 4096 grid), the loop's counters
# kept in locals, a branch-free least in the walk and the heuristic in integers (no change).
# Running the grid A* kernel itself (its workspace, converted to node state at the first edit)
# was weighed and left: its order breaks ties on f and a float g, not on LPA*'s keys, so the
# nodes it expands and the path the walk then picks among equal ones would differ from this
# planner's, and its per-cell arrays (20 bytes a cell, row by row) would fault more fresh
# pages on a large grid than these tiles.  The heap keeps its own shape (two keys, the node
# and its place; positions in the slots) rather than ``_heap.pxd``'s (f, float g, node;
# positions by node): sharing one routine would need a second position scheme in the A*
# kernels' hot loops.
cimport cython

from libc.math cimport INFINITY, fabs, floor, ldexp, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcpy

from ._constants cimport SQRT2, SQRT2_M1, TIE_EPS
from ._portable cimport ctz32, ctz64

import numpy as np


cdef struct Item:
    double k1
    double k2
    int node
    int32_t mem        # the node's place in the node memory (see IncrementalCore.ix)


cdef struct Node:
    double g
    double rhs


cdef struct Slot:      # kept apart from g and rhs: the heap's moves write only these
    int32_t pos        # heap index, -1 off the heap, ON_TIES on the tie stack
    uint32_t mark      # bit 31: in INCONS; bits 27-30: LOW and VIA; low bits: the round it
                       # was closed in


cdef int32_t ON_TIES = -2         # Node.pos of a node on the tie stack
cdef uint32_t INCONS = 0x80000000u
cdef uint32_t ROUND = 0x07ffffffu
# While the first search's state stands (IncrementalCore.pointed), a grid node's VIA bits
# give the step (N, E, ..., NW) to the neighbour :meth:`IncrementalCore.walk` picks from it,
# and LOW says that neighbour offers less than the node's rhs (a gain within the rounding
# margin, which the rhs does not take); without LOW it offers exactly the rhs.
cdef uint32_t VIA = 0x70000000u
cdef uint32_t LOW = 0x08000000u

# Grid steps: N, E, S, W, then the diagonals NE, SE, SW, NW.
cdef int DX[8]
cdef int DY[8]
DX[:] = [0, 1, 0, -1, 1, 1, -1, -1]
DY[:] = [-1, 0, 1, 0, -1, 1, 1, -1]


# The grids :meth:`IncrementalCore.first_grid` is compiled for: the common ones (step masks
# and diagonal steps; node memory by node or in tiles; cell costs read or all 1) without the
# tests for the others, which the general one makes as it runs.
cdef struct AnyGrid:
    char unused


cdef struct OctileGrid:
    char unused


cdef struct UniformOctileGrid:
    char unused


cdef struct TiledOctileGrid:
    char unused


cdef struct TiledUniformOctileGrid:
    char unused


ctypedef fused GridKind:
    AnyGrid
    OctileGrid
    UniformOctileGrid
    TiledOctileGrid
    TiledUniformOctileGrid


cdef inline bint before(Item a, Item b) noexcept nogil:
    # Bitwise, not short-circuit: compiles without branches (the heap's hot spot).
    return (a.k1 < b.k1) | ((a.k1 == b.k1) & (a.k2 < b.k2))


cdef inline bint not_after(Item a, Item b, double unit) noexcept nogil:
    """a <= b up to rounding: keys are float sums, and a geometric tie that rounds the
    wrong way must not end the search early (``unit``: see ``IncrementalCore.unit``)."""
    cdef double tol
    if b.k1 == INFINITY:
        return a.k1 < INFINITY or a.k2 <= b.k2
    tol = 1e-9 * (unit + fabs(b.k1))
    return a.k1 < b.k1 - tol or (fabs(a.k1 - b.k1) <= tol and a.k2 <= b.k2 + tol)


cdef inline double grid24(double k, double up, double down) noexcept nogil:
    """``floor(k * up + 0.5) * down`` with ``up`` 2**24 / unit and ``down`` its inverse (a
    key on the grid of 2**-24 units, see ``deep`` and ``unit``) for a finite ``k >= 0``;
    below 2**62, truncating to an integer is the floor."""
    k = k * up
    if k < 4611686018427387904.0:
        return <double> (<int64_t> (k + 0.5)) * down
    return floor(k + 0.5) * down


cdef Node* pool_block = NULL
cdef size_t pool_size = 0          # bytes of the node block
cdef uint64_t* pool_seen = NULL    # its "seen" bitmap, all zero
cdef size_t pool_seen_size = 0     # bytes
cdef size_t pool_used = 0          # bytes of the pair the searches may have touched
cdef size_t pool_layout = 0        # the last user's layout: places * 2 + tiled
cdef size_t pool_limit = 128 << 20   # bytes: a freed pair that touched more is not kept


cdef Node* take_nodes(size_t* nbytes, uint64_t** seen, size_t* seen_bytes,
                      size_t* used, size_t* layout) noexcept:
    """A node array of at least ``nbytes[0]`` bytes and a zeroed bitmap of at least
    ``seen_bytes[0]``: the pooled pair if it is big enough (the sizes are then set to
    its, ``used[0]`` to the bytes its searches touched and ``layout[0]`` to its last
    user's layout), else fresh ones (``seen[0]`` NULL if the bitmap could not be had;
    ``used[0]`` 0)."""
    global pool_block, pool_size, pool_seen, pool_seen_size, pool_used
    cdef Node* block
    used[0] = 0
    if pool_block != NULL and pool_size >= nbytes[0] and pool_seen_size >= seen_bytes[0]:
        block, seen[0] = pool_block, pool_seen
        nbytes[0], seen_bytes[0], used[0] = pool_size, pool_seen_size, pool_used
        layout[0] = pool_layout
        pool_block, pool_size, pool_seen, pool_seen_size, pool_used = NULL, 0, NULL, 0, 0
        return block
    seen[0] = <uint64_t*> calloc(seen_bytes[0], 1)
    return <Node*> malloc(nbytes[0])


cdef void give_nodes(Node* block, size_t nbytes, uint64_t* seen, size_t seen_bytes,
                     size_t used, size_t layout) noexcept:
    """Keep a node array and its bitmap (zeroed by the caller), whose searches touched
    ``used`` bytes of them, last in ``layout``, in the pool if they are larger than the
    pooled pair and touched no more than the cap, else free them."""
    global pool_block, pool_size, pool_seen, pool_seen_size, pool_used, pool_layout
    if block != NULL and seen != NULL and pool_size < nbytes and used <= pool_limit:
        free(pool_block)
        free(pool_seen)
        pool_block, pool_size, pool_seen, pool_seen_size = block, nbytes, seen, seen_bytes
        pool_used, pool_layout = used, layout
    else:
        free(block)
        free(seen)


# A freed planner's queue arrays, the heap's [0] and the tie stack's [1] (each the largest
# freed so far within the cap), serve the next planner, which need not grow them again.
cdef Item* pool_items[2]
cdef Py_ssize_t pool_items_cap[2]


cdef Item* take_items(int which, Py_ssize_t* cap) noexcept:
    """The pooled queue array ``which``, its capacity set in ``cap[0]``, if one is kept,
    else a new one of ``cap[0]`` items (NULL if it could not be had)."""
    cdef Item* items = pool_items[which]
    if items == NULL:
        return <Item*> malloc(cap[0] * sizeof(Item))
    cap[0] = pool_items_cap[which]
    pool_items[which] = NULL
    pool_items_cap[which] = 0
    return items


cdef void give_items(int which, Item* items, Py_ssize_t cap) noexcept:
    """Keep a queue array of ``cap`` items as pool array ``which`` if it is larger than the
    one kept and within the cap, else free it."""
    if items != NULL and cap > pool_items_cap[which] and \
            <size_t> cap * sizeof(Item) <= pool_limit:
        free(pool_items[which])
        pool_items[which], pool_items_cap[which] = items, cap
    else:
        free(items)


cdef void free_items(size_t limit) noexcept:
    """Free the pooled queue arrays above ``limit`` bytes."""
    cdef int which
    for which in range(2):
        if <size_t> pool_items_cap[which] * sizeof(Item) > limit:
            free(pool_items[which])
            pool_items[which], pool_items_cap[which] = NULL, 0


def pool_bytes():
    """Bytes of node memory kept from freed planners for the next ones (the bytes their
    searches touched: a block laid out in tiles holds only its tiles in use)."""
    return pool_used


def pool_cap(long long nbytes=-1):
    """The most bytes of node memory the pool keeps; with ``nbytes`` >= 0, set it first (a
    pooled block above the new cap is freed).  Returns the cap in force before."""
    global pool_limit
    cdef size_t old = pool_limit
    if nbytes >= 0:
        pool_limit = <size_t> nbytes
        if pool_used > pool_limit:
            release_pool()
        free_items(pool_limit)
    return old


def release_pool():
    """Free the node memory and queue arrays kept from freed planners; returns the bytes of
    node memory freed."""
    global pool_block, pool_size, pool_seen, pool_seen_size, pool_used
    cdef size_t freed = pool_used
    free(pool_block)
    free(pool_seen)
    pool_block, pool_size, pool_seen, pool_seen_size, pool_used = NULL, 0, NULL, 0, 0
    free_items(0)
    return freed


@cython.final
cdef class IncrementalCore:
    """LPA*-style state over ``n`` nodes, on a grid (:meth:`on_grid`) or a graph
    (:meth:`on_graph`).  The heuristic towards the target is ``h_scale`` times the octile
    (Manhattan without diagonal steps) distance on a grid, the Euclidean distance of the
    node ``coords`` on a graph."""

    cdef int n
    cdef bint grid
    cdef readonly bint tiled          # grid: node memory in tiles (see ``ix``)
    cdef int tw                       # tiles of 16 x 16 cells per row of tiles
    cdef int32_t* tile_at             # tiled: per tile, its place in the node memory (0: none)
    cdef int32_t tiles                # tiled: places given to tiles so far (the first is none's)
    cdef size_t used                  # bytes of the node memory searches may have touched
    cdef size_t layout                # places * 2 + tiled: where this core's searches write
    cdef size_t prior_layout          # the layout of the node memory's earlier user
    # graph world
    cdef const int64_t[::1] pull_ptr
    cdef const int32_t[::1] pull_nbr
    cdef const int64_t[::1] pull_edge
    cdef const int64_t[::1] push_ptr
    cdef const int32_t[::1] push_nbr
    cdef const int64_t[::1] push_edge
    cdef double[::1] cost
    cdef const double[:, ::1] coords
    # grid world
    cdef const double[:, ::1] base
    cdef const double* basep
    cdef int w, h, ndir, need_sides
    cdef double inv_w                 # 1 / w: a node's row without an integer division
    cdef int held, held_x, held_y     # the last node ``dist`` measured to, and its x, y
    cdef double* own
    cdef uint64_t* mine
    cdef const uint8_t[::1] moves     # the grid's legal-step masks, if given (padded, W + 2)
    cdef const uint8_t* movesp        # NULL when not given
    cdef bint uniform                 # with the masks: every passable cell costs 1
    # state
    cdef public double h_scale
    cdef Node* nodes
    cdef Slot* slots                  # in the same block as ``nodes``, after them
    cdef size_t node_bytes
    cdef uint64_t* seen
    cdef uint64_t* dirty              # bit i: word i of ``seen`` may be non-zero
    cdef size_t seen_bytes
    cdef Py_ssize_t words
    cdef public long long initialised
    cdef Item* heap
    cdef Py_ssize_t size, capacity
    cdef public int root, target
    cdef public double km
    # Keys' rounding and the tolerances of ties are taken in this unit (a power of two,
    # 1 unless set: about the least step's cost where that is below 1), so a world of
    # small costs is searched as the same world scaled up: with 1, steps of 1e-9 fell
    # under the 2**-24 grid of the keys and the tolerance, and ties chose the path.
    cdef double unit_, up24, down24   # the unit, 2**24 / unit and unit / 2**24
    cdef public long long expanded
    # Keys break ties on the larger g while no node is underconsistent (every queued node
    # then gets its exact g when expanded, whatever the order of ties, as in A*); the first
    # underconsistent node switches to LPA*'s smaller-g order, which repairs need.  In the
    # larger-g order k1 is rounded to 2**-24 so that float noise does not break ties.
    cdef bint deep
    # Anytime mode (ARA*, AD*): overconsistent keys inflate the heuristic by eps; while
    # eps > 1 a node that turns overconsistent after its expansion in this round waits in
    # INCONS.  An underconsistent node is always repaired in the round (its g is too low
    # for the nodes that read it), and its repair undoes its expansion; at eps 1 the round
    # is plain LPA* / D* Lite, so it ends optimal.
    cdef public double eps
    cdef public bint anytime
    cdef uint32_t round
    cdef int32_t* incons
    cdef Py_ssize_t n_incons, cap_incons
    # The first search (larger-g order, not anytime) keeps a node whose k1 equals the k1
    # being expanded on a stack rather than the heap, as A* does: it is least or tied, and
    # is expanded unless the heap's top comes before it.  The stack goes back into the heap
    # whenever the search stops or changes order.
    cdef Item* ties
    cdef Py_ssize_t n_ties, cap_ties
    cdef bint tying
    cdef double fu
    # Nothing expanded since the search (re)started: the next grid search may run as
    # :meth:`first_grid`.
    cdef bint fresh
    # The state :meth:`first_grid` left stands (no node's g or rhs changed since): each
    # reached node's VIA bits name the neighbour the walk picks, and the walk follows them.
    cdef bint pointed
    # The last walk's nodes and edge ids (see :meth:`trace`), kept for the next.
    cdef int64_t* route
    cdef int64_t* route_edges
    cdef Py_ssize_t cap_route

    def __cinit__(self):
        self.heap = NULL
        self.nodes = NULL
        self.seen = NULL
        self.tile_at = NULL
        self.dirty = NULL
        self.own = NULL
        self.mine = NULL
        self.movesp = NULL
        self.incons = NULL
        self.ties = NULL
        self.route = NULL
        self.route_edges = NULL
        self.cap_route = 0
        self.unit = 1.0

    @property
    def unit(self):
        """The unit of the keys' rounding and of the tolerances (a power of two)."""
        return self.unit_

    @unit.setter
    def unit(self, double value):
        self.unit_, self.up24, self.down24 = value, 16777216.0 / value, value / 16777216.0

    def __dealloc__(self):
        give_items(0, self.heap, self.capacity)
        if self.dirty != NULL:
            self.clear_seen()
        else:                                     # setup failed: the bitmap is not clean
            free(self.seen)
            self.seen = NULL
        give_nodes(self.nodes, self.node_bytes, self.seen, self.seen_bytes, self.touched(),
                   self.layout)
        free(self.tile_at)
        free(self.dirty)
        free(self.own)
        free(self.mine)
        free(self.incons)
        give_items(1, self.ties, self.cap_ties)
        free(self.route)
        free(self.route_edges)

    cdef size_t touched(self) noexcept:
        """The bytes of the node memory and bitmap the searches may have touched, this
        core's and its earlier users': the tiles given out (their nodes, slots and bits)
        when tiled, else the whole of its places (a prefix of the block); the larger of
        this and the earlier users' when both wrote in the same places (the same layout, or
        prefixes), else the sum."""
        cdef size_t own, places
        if self.tiled:
            own = <size_t> self.tiles * 256 * (sizeof(Node) + sizeof(Slot)) + \
                <size_t> self.tiles * 32
        else:
            places = self.layout >> 1
            own = places * (sizeof(Node) + sizeof(Slot)) + (places + 7) // 8
        if self.prior_layout == self.layout or not (self.tiled or self.prior_layout & 1):
            return own if own > self.used else self.used
        return own + self.used

    cdef int setup(self, int n, double h_scale, int root, int target) except -1:
        cdef Py_ssize_t places = n               # node memory: one place per node
        self.n = n
        self.held = -1
        self.h_scale = h_scale
        self.tiled = self.grid and n * (sizeof(Node) + sizeof(Slot)) > pool_limit
        if self.tiled:                           # whole tiles of 16 x 16 cells, and none's
            self.tw = (self.w + 15) >> 4
            places = (<Py_ssize_t> self.tw * ((self.h + 15) >> 4) + 1) * 256
            self.tile_at = <int32_t*> calloc(self.tw * ((self.h + 15) >> 4), sizeof(int32_t))
            self.tiles = 1
            if self.tile_at == NULL:
                raise MemoryError()
        self.words = (places + 63) // 64
        self.node_bytes = places * (sizeof(Node) + sizeof(Slot)) + 1
        self.seen_bytes = (self.words + 1) * sizeof(uint64_t)
        self.layout = <size_t> places * 2 + self.tiled
        self.prior_layout = self.layout
        self.nodes = take_nodes(&self.node_bytes, &self.seen, &self.seen_bytes, &self.used,
                                &self.prior_layout)
        self.slots = <Slot*> (self.nodes + places)   # uninitialised; ``seen`` zeroed
        self.dirty = <uint64_t*> calloc((self.words >> 6) + 1, sizeof(uint64_t))
        self.capacity = 64
        self.heap = take_items(0, &self.capacity)
        self.cap_incons = 16
        self.incons = <int32_t*> malloc(self.cap_incons * sizeof(int32_t))
        self.cap_ties = 64
        self.ties = take_items(1, &self.cap_ties)
        if self.nodes == NULL or self.seen == NULL or self.dirty == NULL or self.heap == NULL \
                or self.incons == NULL or self.ties == NULL:
            raise MemoryError()
        self.eps, self.anytime = 1.0, False
        self.start_over(root, target, False)      # the bitmap came zeroed
        return 0

    @staticmethod
    def on_grid(const double[:, ::1] costs, int need_sides, bint diagonal, double h_scale,
                int root, int target):
        """A grid world read in place: ``costs`` (H, W) cell costs (inf blocked, never
        written), diagonal steps (``diagonal``) legal with ``need_sides`` free side cells;
        nodes ``y * W + x``."""
        cdef IncrementalCore core = IncrementalCore.__new__(IncrementalCore)
        core.grid = True
        core.base = costs
        core.basep = &costs[0, 0]
        core.h, core.w = costs.shape[0], costs.shape[1]
        core.inv_w = 1.0 / core.w
        core.ndir = 8 if diagonal else 4
        core.need_sides = need_sides
        core.setup(core.h * core.w, h_scale, root, target)
        return core

    def use_moves(self, const uint8_t[::1] moves, bint uniform=False):
        """Grid: the legal steps of every cell as bit masks (bit d for the step ``d`` in the
        order N, E, S, W, NE, SE, SW, NW) over the grid padded with a blocked border,
        flattened ((H + 2) * (W + 2)), built from the costs this core reads under its
        diagonal rule; the first search then reads one mask per cell instead of testing
        its neighbours' costs.  ``uniform``: every passable cell costs 1, so a step costs
        its length and the first search reads no cell cost."""
        if not self.grid or moves.shape[0] != (self.h + 2) * (self.w + 2):
            raise ValueError(f"move masks of {moves.shape[0]} cells for a "
                             f"{self.w} x {self.h} grid padded by one cell")
        self.moves = moves
        self.movesp = &moves[0]
        self.uniform = uniform

    @staticmethod
    def on_graph(int n, const int64_t[::1] pull_ptr, const int32_t[::1] pull_nbr,
                 const int64_t[::1] pull_edge, const int64_t[::1] push_ptr,
                 const int32_t[::1] push_nbr, const int64_t[::1] push_edge, double[::1] cost,
                 const double[:, ::1] coords, double h_scale, int root, int target):
        """A graph world: CSR of the edges a node's rhs reads (``pull_*``, with edge ids)
        and the reverse (``push_*``), ``cost`` per edge id (read live), node ``coords``."""
        cdef IncrementalCore core = IncrementalCore.__new__(IncrementalCore)
        core.grid = False
        core.pull_ptr, core.pull_nbr, core.pull_edge = pull_ptr, pull_nbr, pull_edge
        core.push_ptr, core.push_nbr, core.push_edge = push_ptr, push_nbr, push_edge
        core.cost = cost
        core.coords = coords
        core.setup(n, h_scale, root, target)
        return core

    # ------------------------------------------------------------------ lazy state
    # A node's state lives at its place ``ix(node)`` in the node memory (and the bitmaps):
    # the node id itself, except on a grid whose node memory is above the pool's cap:
    # there the places run tile by tile, 16 x 16 cells each (256 places, 4 KiB of g and
    # rhs), and a tile gets the next free one of the node memory when a search first
    # reaches it (``tile_at``; tile 0, never given out, reads as unseen).  The tiles in use
    # are then a prefix of the node memory, few on a wide grid where a search is a thin
    # line across it: the pair is pooled by those bytes, and the next planner's search
    # finds them in memory instead of faulting a page or two per tile.  (On a world within
    # the cap, tiles cost more in index arithmetic than they save.)
    cdef inline Py_ssize_t ixy(self, int x, int y) noexcept nogil:
        if self.tiled:
            return (<Py_ssize_t> self.tile_at[(y >> 4) * self.tw + (x >> 4)] << 8) | \
                ((y & 15) << 4) | (x & 15)
        return y * self.w + x

    cdef inline Py_ssize_t claim(self, int x, int y) noexcept nogil:
        """Tiled: the place of cell (x, y), its tile given the next free tile of the node
        memory if it had none."""
        cdef Py_ssize_t t = (y >> 4) * self.tw + (x >> 4)
        if self.tile_at[t] == 0:
            self.tile_at[t] = self.tiles
            self.tiles += 1
        return (<Py_ssize_t> self.tile_at[t] << 8) | ((y & 15) << 4) | (x & 15)

    cdef inline Py_ssize_t ix(self, int s) noexcept nogil:
        cdef int y
        if not self.tiled:
            return s
        y = self.row(s)
        return self.ixy(s - y * self.w, y)

    cdef inline bint known_at(self, Py_ssize_t m) noexcept nogil:
        return (self.seen[m >> 6] >> (m & 63)) & 1

    cdef inline bint known(self, int s) noexcept nogil:
        return self.known_at(self.ix(s))

    cdef inline Node* at(self, int s) noexcept nogil:
        """Node ``s``'s state, created (g = rhs = inf, not queued) on first use."""
        cdef Py_ssize_t m = self.ix(s)
        cdef Node* x = &self.nodes[m]
        cdef int y
        if not self.known_at(m):
            if self.tiled and m < 256:            # no tile yet
                y = self.row(s)
                m = self.claim(s - y * self.w, y)
                x = &self.nodes[m]
            self.seen[m >> 6] |= (<uint64_t> 1) << (m & 63)
            self.dirty[m >> 12] |= (<uint64_t> 1) << ((m >> 6) & 63)
            x.g = INFINITY
            x.rhs = INFINITY
            self.slots[m].pos = -1
            self.slots[m].mark = 0
            self.initialised += 1
        return x

    cdef void clear_seen(self) noexcept nogil:
        """Zero the words of ``seen`` that ``dirty`` flags (in time proportional to the
        nodes that hold state, not to the world), then ``dirty``."""
        cdef Py_ssize_t i, nd = (self.words >> 6) + 1
        cdef uint64_t bits
        for i in range(nd):
            bits = self.dirty[i]
            while bits:
                self.seen[(i << 6) + <Py_ssize_t> ctz64(bits)] = 0
                bits &= bits - 1
            self.dirty[i] = 0

    cdef inline double g_of(self, int s) noexcept nogil:
        cdef Py_ssize_t m = self.ix(s)
        return self.nodes[m].g if self.known_at(m) else INFINITY

    # ------------------------------------------------------------------ the world
    cdef inline int row(self, int s) noexcept nogil:
        """``s // w``: (s + 0.5) / w lies at least 0.5 / w from an integer, far beyond the
        product's rounding error for any int ``s``."""
        return <int> ((s + 0.5) * self.inv_w)

    cdef inline double cell(self, int s) noexcept nogil:
        if self.mine != NULL and (self.mine[s >> 6] >> (s & 63)) & 1:
            return self.own[s]
        return self.basep[s]

    cdef inline double step(self, int u, int ux, int uy, int d, double cu, int* v) noexcept nogil:
        """The cost of the grid step from ``u`` (at ux, uy, cost cu) in direction ``d``
        (inf when illegal); its end in ``v``."""
        cdef int x = ux + DX[d], y = uy + DY[d], sides
        cdef double cv
        if x < 0 or x >= self.w or y < 0 or y >= self.h:
            return INFINITY
        v[0] = y * self.w + x
        cv = self.cell(v[0])
        if cv == INFINITY:
            return INFINITY
        if d < 4:
            return 0.5 * (cu + cv)
        if self.need_sides:
            sides = (self.cell(uy * self.w + x) < INFINITY) + \
                (self.cell(y * self.w + ux) < INFINITY)
            if sides < self.need_sides:
                return INFINITY
        return SQRT2 * (0.5 * (cu + cv))

    cdef inline int around(self, int u, int* vs, double* cs) noexcept nogil:
        """The steps out of grid cell ``u``: ends in ``vs``, costs in ``cs`` (inf when
        illegal), for each of the ``ndir`` directions; returns ndir."""
        cdef int uy = self.row(u), ux = u - uy * self.w, d, x, y
        cdef double cu = self.cell(u), cv
        cdef double side[4]
        for d in range(4):
            x, y = ux + DX[d], uy + DY[d]
            cs[d] = INFINITY
            side[d] = INFINITY
            if 0 <= x < self.w and 0 <= y < self.h:
                vs[d] = y * self.w + x
                side[d] = cv = self.cell(vs[d])
                cs[d] = 0.5 * (cu + cv)
        if self.ndir == 4:
            return 4
        for d in range(4, 8):
            x, y = ux + DX[d], uy + DY[d]
            cs[d] = INFINITY
            if 0 <= x < self.w and 0 <= y < self.h:
                # side cells of NE, SE, SW, NW: (N, E), (S, E), (S, W), (N, W)
                if (side[0 if DY[d] < 0 else 2] < INFINITY) + \
                        (side[1 if DX[d] > 0 else 3] < INFINITY) >= self.need_sides:
                    vs[d] = y * self.w + x
                    cs[d] = SQRT2 * (0.5 * (cu + self.cell(vs[d])))
        return 8

    cdef inline double dist(self, int a, int b) noexcept nogil:
        cdef double dx, dy
        cdef int ay
        if self.grid:
            if b != self.held:            # nearly always the target: its x, y are kept
                self.held, self.held_y = b, self.row(b)
                self.held_x = b - self.held_y * self.w
            ay = self.row(a)
            dx = fabs(<double> (a - ay * self.w - self.held_x))
            dy = fabs(<double> (ay - self.held_y))
            if self.ndir == 4:
                return dx + dy
            return (dx + SQRT2_M1 * dy) if dx > dy else (dy + SQRT2_M1 * dx)
        dx = self.coords[a, 0] - self.coords[b, 0]
        dy = self.coords[a, 1] - self.coords[b, 1]
        if dx * dx + dy * dy < INFINITY:
            return sqrt(dx * dx + dy * dy)
        # Squares (or the difference) beyond the largest float: the same in units of 2**600.
        dx = ldexp(self.coords[a, 0], -600) - ldexp(self.coords[b, 0], -600)
        dy = ldexp(self.coords[a, 1], -600) - ldexp(self.coords[b, 1], -600)
        return ldexp(sqrt(dx * dx + dy * dy), 600)

    def distance(self, int a, int b):
        """The heuristic's distance (unscaled) between two nodes."""
        return self.dist(a, b)

    # ------------------------------------------------------------------ the queue
    cdef inline Item key(self, int s) noexcept nogil:
        cdef Item it
        cdef Py_ssize_t m = self.ix(s)
        cdef Node* x = &self.nodes[m]
        cdef double hv = 0.0 if s == self.target else self.h_scale * self.dist(s, self.target)
        if x.g > x.rhs:             # overconsistent: inflated heuristic
            it.k1 = x.rhs + self.eps * hv + self.km
            it.k2 = -x.rhs if self.deep else x.rhs
        else:
            it.k1 = x.g + hv + self.km
            it.k2 = -x.g if self.deep else x.g
        if self.deep:       # rounding noise must not decide ties: keys on a 2**-24 grid
            it.k1 = floor(it.k1 * self.up24 + 0.5) * self.down24
        it.node = s
        it.mem = <int32_t> m
        return it

    cdef inline void place(self, Py_ssize_t i, Item it) noexcept nogil:
        """Put ``it`` at heap index ``i`` (a hole) and move it up or down to its place."""
        cdef Py_ssize_t parent
        cdef Item* heap = self.heap               # locals: stores through slots may alias
        cdef Slot* slots = self.slots
        cdef Item moved
        while i > 0:                              # up
            parent = (i - 1) >> 1
            moved = heap[parent]
            if not before(it, moved):
                break
            heap[i] = moved
            slots[moved.mem].pos = <int32_t> i
            i = parent
        self.sink(i, it)

    cdef inline void sink(self, Py_ssize_t i, Item it) noexcept nogil:
        """Put ``it`` at heap index ``i`` (a hole), moved down below its smaller children
        while they come first."""
        cdef Py_ssize_t child, n = self.size
        cdef Item* heap = self.heap
        cdef Slot* slots = self.slots
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and before(heap[child + 1], heap[child]):
                child += 1
            if not before(heap[child], it):
                break
            heap[i] = heap[child]
            slots[heap[i].mem].pos = <int32_t> i
            i = child
        heap[i] = it
        slots[it.mem].pos = <int32_t> i

    cdef inline int push(self, int s) except -1:
        cdef Item* grown
        cdef Item it
        if self.slots[self.ix(s)].pos >= 0:
            self.place(self.slots[self.ix(s)].pos, self.key(s))
            return 0
        if self.slots[self.ix(s)].pos == ON_TIES:          # its rhs only fell: still least or tied
            return 0
        it = self.key(s)
        if self.tying:
            if it.k1 == self.fu:
                if self.n_ties == self.cap_ties:
                    grown = <Item*> realloc(self.ties, 2 * self.cap_ties * sizeof(Item))
                    if grown == NULL:
                        raise MemoryError()
                    self.ties, self.cap_ties = grown, 2 * self.cap_ties
                self.ties[self.n_ties] = it
                self.n_ties += 1
                self.slots[self.ix(s)].pos = ON_TIES
                return 0
        if self.size == self.capacity:
            grown = <Item*> realloc(self.heap, 2 * self.capacity * sizeof(Item))
            if grown == NULL:
                raise MemoryError()
            self.heap = grown
            self.capacity *= 2
        self.size += 1
        self.place(self.size - 1, it)
        return 0

    cdef inline void remove(self, int s) noexcept nogil:
        """Take ``s`` off the heap (or the tie stack)."""
        cdef Py_ssize_t m = self.ix(s)
        cdef Py_ssize_t i = self.slots[m].pos
        self.slots[m].pos = -1                    # off the tie stack: skipped there
        if i >= 0:
            self.take_out(i)

    cdef inline void take_out(self, Py_ssize_t i) noexcept nogil:
        """Close the hole at heap index ``i`` (its item's slot already cleared).  Bottom-up:
        the hole walks down along the smaller children to a leaf (one comparison per
        level), then the last item rises from there."""
        cdef Py_ssize_t child, parent, n
        cdef Item last, moved
        cdef Item* heap = self.heap
        cdef Slot* slots = self.slots
        self.size -= 1
        n = self.size
        if i == n:
            return
        last = heap[n]
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n:
                child += before(heap[child + 1], heap[child])
            moved = heap[child]
            heap[i] = moved
            slots[moved.mem].pos = <int32_t> i
            i = child
        while i > 0:
            parent = (i - 1) >> 1
            moved = heap[parent]
            if not before(last, moved):
                break
            heap[i] = moved
            slots[moved.mem].pos = <int32_t> i
            i = parent
        heap[i] = last
        slots[last.mem].pos = <int32_t> i

    cdef int untie(self) except -1:
        """Move the tie stack into the heap: appended, then sifted up one by one, or the
        whole heap rebuilt bottom-up when they are many (a search that stopped on an open
        grid leaves a tie beside each step)."""
        cdef Py_ssize_t i, old = self.size, n
        cdef Item* grown
        cdef int s
        self.tying = False
        if self.size + self.n_ties > self.capacity:
            n = self.capacity
            while n < self.size + self.n_ties:
                n *= 2
            grown = <Item*> realloc(self.heap, n * sizeof(Item))
            if grown == NULL:
                raise MemoryError()
            self.heap, self.capacity = grown, n
        n = old
        for i in range(self.n_ties):
            s = self.ties[i].node
            if self.slots[self.ix(s)].pos == ON_TIES:
                self.heap[n] = self.key(s)
                self.slots[self.ix(s)].pos = <int32_t> n
                n += 1
        self.n_ties = 0
        if 16 * (n - old) >= n:
            self.size = n
            for i in range(n // 2 - 1, -1, -1):
                self.sink(i, self.heap[i])
        else:
            for i in range(old, n):
                self.size = i + 1
                self.place(i, self.heap[i])
        return 0

    cdef inline int settled(self) except -1:
        """Move ties the first search left on the stack into the heap.  The first search
        leaves them there (a search on an open grid leaves one beside each step): every call
        that reads or changes the queue, the keys or the target moves them first, so it
        finds the heap the search would have left, in the time of the call that needs it."""
        if self.n_ties > 0 and not self.tying:
            self.untie()
        return 0

    cdef int rekey(self) except -1:
        """Recompute every queued key: queue again."""
        self.untie()
        cdef Py_ssize_t i, n = self.size
        self.size = 0
        for i in range(n):                        # each item moves up only from its slot
            self.size += 1
            self.place(i, self.key(self.heap[i].node))
        return 0

    # ------------------------------------------------------------------ LPA* / D* Lite
    cdef double best_pull(self, int s, int* via, int64_t* edge, double* step) noexcept nogil:
        """min over the edges ``s`` pulls from of cost + g, with that neighbour, edge id
        (-1 when none is finite) and edge cost."""
        cdef double best = INFINITY, c, cu
        cdef int d, v = -1, ux, uy
        cdef int64_t e
        via[0] = -1
        edge[0] = -1
        cdef int vs[8]
        cdef double cs[8]
        if self.grid:
            if self.movesp != NULL and self.mine == NULL:
                return self.best_pull_masked(s, via, edge, step, INFINITY)
            if self.cell(s) == INFINITY:
                return INFINITY
            for d in range(self.around(s, vs, cs)):
                if cs[d] == INFINITY:
                    continue
                c = cs[d] + self.g_of(vs[d])
                if c < best:
                    best, via[0], edge[0], step[0] = c, vs[d], 8 * <int64_t> s + d, cs[d]
            return best
        for e in range(self.pull_ptr[s], self.pull_ptr[s + 1]):
            c = self.cost[self.pull_edge[e]] + self.g_of(self.pull_nbr[e])
            if c < best:
                best, via[0], edge[0] = c, self.pull_nbr[e], self.pull_edge[e]
                step[0] = self.cost[self.pull_edge[e]]
        return best

    cdef inline double best_pull_masked(self, int s, int* via, int64_t* edge, double* step,
                                        double bound) noexcept nogil:
        """:meth:`best_pull` on a grid with step masks and no changed cells: the same
        minimum, first in the same order, over the legal steps only.  ``bound``: at least
        that minimum (inf if not known); a neighbour whose g plus the cheapest step of its
        length (h_scale per unit) is above it cannot give the minimum, and is passed over
        before its cell cost is read."""
        cdef int sy = self.row(s), w = self.w, d, v
        cdef int sx = s - sy * w
        cdef Py_ssize_t m
        cdef bint tiled = self.tiled
        cdef uint8_t bits = self.movesp[s + 2 * sy + w + 3]
        cdef double best = INFINITY, cu = self.basep[s], c, cs
        cdef double least = self.h_scale, least_diagonal = SQRT2 * self.h_scale
        for d in range(8):
            if not (bits >> d) & 1:
                continue
            v = s + DY[d] * w + DX[d]
            m = self.ixy(sx + DX[d], sy + DY[d]) if tiled else v
            if not self.known_at(m) or \
                    self.nodes[m].g + (least if d < 4 else least_diagonal) > bound:
                continue
            cs = 0.5 * (cu + self.basep[v])
            if d >= 4:
                cs = SQRT2 * cs
            c = cs + self.nodes[m].g
            if c < best:
                best, via[0], edge[0], step[0] = c, v, 8 * <int64_t> s + d, cs
        return best

    cdef int settle(self, int s) except -1:
        """Queue ``s`` (or move it to INCONS, or take it out) after its g or rhs changed."""
        cdef Node* x = &self.nodes[self.ix(s)]
        cdef Slot* m = &self.slots[self.ix(s)]
        if x.g != x.rhs:
            if x.g < x.rhs and self.deep:
                self.deep = False
                self.rekey()
            if self.anytime and self.eps > 1.0 and (m.mark & ROUND) == self.round \
                    and x.g > x.rhs:
                self.remove(s)                    # overconsistent after its expansion
                if not m.mark & INCONS:
                    m.mark |= INCONS
                    self.add_incons(s)
            else:                                 # an underconsistent g is never kept
                m.mark &= ~INCONS
                self.push(s)
        else:
            self.remove(s)
            m.mark &= ~INCONS
        return 0

    cdef int add_incons(self, int s) except -1:
        cdef int32_t* grown
        if self.n_incons == self.cap_incons:
            grown = <int32_t*> realloc(self.incons, 2 * self.cap_incons * sizeof(int32_t))
            if grown == NULL:
                raise MemoryError()
            self.incons, self.cap_incons = grown, 2 * self.cap_incons
        self.incons[self.n_incons] = s
        self.n_incons += 1
        return 0

    cdef int update(self, int s) except -1:
        """Recompute the rhs of ``s`` from every edge it pulls from."""
        cdef int via
        cdef int64_t edge
        cdef double c
        cdef Node* x = self.at(s)
        self.pointed = False
        if s != self.root:
            x.rhs = self.best_pull(s, &via, &edge, &c)
        return self.settle(s)

    cdef inline int offer(self, int v, double c) except -1:
        """``v`` may pull ``c`` (a lower g behind one of its edges).  A gain below TIE_EPS
        of its rhs is rounding noise (the same cost summed in another order), as A* takes
        it: taking it would expand ``v`` again, and every node behind it."""
        cdef Node* x
        if v == self.root:
            return 0
        x = self.at(v)
        if c < x.rhs * (1.0 - TIE_EPS):
            x.rhs = c
            if x.g > x.rhs and not self.anytime:   # settle's only outcome here: queued
                self.slots[self.ix(v)].mark &= ~INCONS
                return self.push(v)
            self.settle(v)
        return 0

    cdef inline int recheck(self, int v, double c) except -1:
        """The g behind ``v``'s edge of cost ``c`` rose: recompute ``v`` if its rhs came
        that way."""
        if v != self.root and self.known(v) and self.nodes[self.ix(v)].rhs >= c:
            self.update(v)
        return 0

    cdef int expand_over(self, int u) except -1:
        cdef Node* x = &self.nodes[self.ix(u)]
        cdef Slot* m = &self.slots[self.ix(u)]
        cdef double gu, cu, c
        cdef int d, v = -1, ux, uy
        cdef int64_t e
        x.g = x.rhs
        self.pointed = False
        self.remove(u)
        m.mark = (m.mark & INCONS) | self.round
        cdef int vs[8]
        cdef double cs[8]
        gu = x.g
        if self.grid:
            for d in range(self.around(u, vs, cs)):
                if cs[d] < INFINITY:
                    self.offer(vs[d], cs[d] + gu)
            return 0
        for e in range(self.push_ptr[u], self.push_ptr[u + 1]):
            self.offer(self.push_nbr[e], self.cost[self.push_edge[e]] + gu)
        return 0

    cdef int expand_under(self, int u) except -1:
        cdef int vs[8]
        cdef double cs[8]
        cdef Node* x = &self.nodes[self.ix(u)]
        cdef Slot* m = &self.slots[self.ix(u)]
        cdef double old = x.g, cu, c
        cdef int d, v = -1, ux, uy
        cdef int64_t e
        x.g = INFINITY
        self.pointed = False
        m.mark &= INCONS                          # its expansion is undone
        self.update(u)
        if old == INFINITY:
            return 0
        if self.grid:
            cu = self.cell(u)
            if cu == INFINITY:
                # A blocked cell has no steps now: its old neighbours all re-read theirs.
                ux, uy = u % self.w, u // self.w
                for d in range(self.ndir):
                    v = -1
                    if 0 <= ux + DX[d] < self.w and 0 <= uy + DY[d] < self.h:
                        v = (uy + DY[d]) * self.w + ux + DX[d]
                        if v != self.root and self.known(v):
                            self.update(v)
                return 0
            for d in range(self.around(u, vs, cs)):
                if cs[d] < INFINITY:
                    self.recheck(vs[d], cs[d] + old)
            return 0
        for e in range(self.push_ptr[u], self.push_ptr[u + 1]):
            self.recheck(self.push_nbr[e], self.cost[self.push_edge[e]] + old)
        return 0

    def nodes_changed(self, const int64_t[::1] nodes):
        """Recompute the rhs of ``nodes``, whose pull edges changed cost."""
        cdef Py_ssize_t i
        self.settled()
        self.pointed = False
        for i in range(nodes.shape[0]):
            self.update(<int> nodes[i])

    def reset_keys(self):
        """Recompute every queued key (after the heuristic's scale fell)."""
        self.rekey()

    def move_target(self, int s):
        """The target moved to ``s`` (D* Lite's agent): queued keys stay lower bounds, as
        km grows by the heuristic's step; they are refreshed when they come up."""
        self.settled()
        self.km += self.h_scale * self.dist(self.target, s)
        self.target = s

    cdef inline bint due(self, Item top, Item tk) noexcept nogil:
        """Whether the top key still comes before the target's.  LPA*'s order puts every
        key whose k1 ties with the target's (up to rounding) first, since none has a
        larger g: so the whole band of rounding ties is expanded, whatever order rounding
        gave it.  While no node is underconsistent, the larger-g order stops at the target,
        as A* does."""
        if self.deep or tk.k1 == INFINITY:
            return not_after(top, tk, self.unit_)
        return top.k1 <= tk.k1 + 1e-9 * (self.unit_ + fabs(tk.k1))

    def compute(self, long long budget=-1):
        """Expand until no queued key is below the target's and the target is
        consistent; returns the target's cost, or None when ``budget`` expansions (if >= 0)
        ran out first."""
        cdef Item top, tk, fresh
        cdef int u
        cdef bint tied
        cdef long long start = self.expanded
        cdef Node* t = self.at(self.target)
        cdef AnyGrid any_grid
        cdef OctileGrid octile
        cdef UniformOctileGrid uniform_octile
        cdef TiledOctileGrid tiled_octile
        cdef TiledUniformOctileGrid tiled_uniform_octile
        if self.fresh and budget < 0 and self.grid and self.mine == NULL and self.deep \
                and not self.anytime and self.km == 0.0 and self.eps == 1.0:
            try:
                if self.movesp == NULL or self.ndir != 8:
                    self.first_grid(&any_grid)
                elif self.tiled:
                    if self.uniform:
                        self.first_grid(&tiled_uniform_octile)
                    else:
                        self.first_grid(&tiled_octile)
                elif self.uniform:
                    self.first_grid(&uniform_octile)
                else:
                    self.first_grid(&octile)
            finally:
                self.fresh = False
            return t.g                            # its ties wait on the stack (see ``settled``)
        self.fresh = False
        self.settled()
        try:
            while True:
                while self.n_ties > 0 and \
                        self.slots[self.ties[self.n_ties - 1].mem].pos != ON_TIES:
                    self.n_ties -= 1              # taken off the stack meanwhile
                tied = self.n_ties > 0 and (self.size == 0 or
                                            not before(self.heap[0], self.ties[self.n_ties - 1]))
                if tied:
                    top = self.ties[self.n_ties - 1]
                elif self.size > 0:
                    top = self.heap[0]
                else:
                    break
                if budget >= 0 and self.expanded - start >= budget:
                    return None                   # out of budget: not done
                tk = self.key(self.target)
                if not (self.due(top, tk) or (t.rhs != t.g and not self.slots[self.ix(self.target)].mark & INCONS)):
                    break
                u = top.node
                # A queued key is recomputed whenever its node's g, rhs, the heuristic's
                # scale or the order change: only km makes the heap's keys stale.
                fresh = self.key(u) if tied or self.km != 0.0 else top
                if tied:
                    self.n_ties -= 1
                    self.slots[self.ix(u)].pos = -1
                    if before(top, fresh):        # stale key: into the queue again
                        self.push(u)
                        continue
                elif before(top, fresh):          # stale key (km grew): re-key it
                    self.place(0, fresh)
                    continue
                self.expanded += 1
                self.tying = self.deep and not self.anytime
                self.fu = fresh.k1
                if self.nodes[self.ix(u)].g > self.nodes[self.ix(u)].rhs:
                    self.expand_over(u)
                else:
                    self.expand_under(u)
        finally:
            self.untie()
        return t.g

    cdef int first_grid(self, GridKind* kind) except -1:
        """:meth:`compute`'s first search on a grid with no changed cells and km 0, as one
        loop: the same expansions in the same order and the same state left behind (an
        expanded node has g = rhs, a reached one its rhs and key on the queue), without
        the general steps' tests for underconsistent nodes, anytime rounds, stale keys
        and changed cells."""
        cdef Node* nodes = self.nodes
        cdef Slot* slots = self.slots
        cdef uint64_t* seen = self.seen
        cdef uint64_t* dirty = self.dirty
        cdef const double* cost = self.basep
        cdef int w = self.w, hgt = self.h, need = self.need_sides
        cdef int target = self.target, root = self.root
        cdef int ty = self.row(target)
        cdef int tx = target - ty * w
        cdef double hs = self.h_scale, tol, unit = self.unit_
        cdef double up = self.up24, down = self.down24
        cdef Node* t = &nodes[self.ix(target)]
        cdef Py_ssize_t mu, mv
        cdef bint masked, uniform, tiled, diag
        cdef Py_ssize_t tw = self.tw
        cdef const int32_t* tile_at = self.tile_at
        cdef Node* x
        cdef Item top, it, moved
        cdef Item* grown
        cdef Item* heap
        cdef int u, v, d, ux, uy, vx = 0, vy = 0
        cdef int32_t p
        cdef double gu, cu = 1.0, cv, c, dx, dy, tk
        cdef double side[4]
        cdef int off[8]                           # the steps' offsets from a node
        cdef double length[8]                     # and their lengths
        cdef bint tied
        cdef uint32_t rnd = self.round
        cdef const uint8_t* masks = self.movesp
        cdef uint8_t bits = 0
        cdef uint64_t word
        cdef Py_ssize_t i, parent
        if GridKind is AnyGrid:
            masked, uniform, tiled, diag = masks != NULL, self.uniform, self.tiled, self.ndir == 8
        elif GridKind is OctileGrid:
            masked, uniform, tiled, diag = True, False, False, True
        elif GridKind is UniformOctileGrid:
            masked, uniform, tiled, diag = True, True, False, True
        elif GridKind is TiledOctileGrid:
            masked, uniform, tiled, diag = True, False, True, True
        else:
            masked, uniform, tiled, diag = True, True, True, True
        for d in range(8):
            off[d] = DY[d] * w + DX[d]
            length[d] = 1.0 if d < 4 else SQRT2
        while True:
            tied = self.n_ties > 0 and (self.size == 0 or
                                        not before(self.heap[0], self.ties[self.n_ties - 1]))
            if tied:
                top = self.ties[self.n_ties - 1]
            elif self.size > 0:
                top = self.heap[0]
            else:
                break
            if t.g == t.rhs and t.g < INFINITY:   # the target is done: stop past its key
                tk = grid24(t.g, up, down)
                tol = 1e-9 * (unit + fabs(tk))
                if not (top.k1 < tk - tol or (fabs(top.k1 - tk) <= tol and
                                              top.k2 <= tol - t.g)):
                    break
            u = top.node
            mu = top.mem
            x = &nodes[mu]
            uy = self.row(u)
            ux = u - uy * w
            if tied and x.rhs == -top.k2:         # its key as stacked
                self.n_ties -= 1
                slots[mu].pos = -1
                self.fu = top.k1
            elif tied:                            # its rhs fell since: its key again
                self.n_ties -= 1
                slots[mu].pos = -1
                if u == target:
                    dx = 0.0
                else:
                    dx = fabs(<double> (ux - tx))
                    dy = fabs(<double> (uy - ty))
                    if diag:
                        dx = (dx + SQRT2_M1 * dy) if dx > dy else (dy + SQRT2_M1 * dx)
                    else:
                        dx = dx + dy
                    dx = hs * dx
                self.fu = grid24(x.rhs + dx, up, down)
            else:                                 # the heap's first
                slots[mu].pos = -1
                self.take_out(0)
                self.fu = top.k1
            self.expanded += 1
            x.g = gu = x.rhs
            slots[mu].mark = (slots[mu].mark & (VIA | LOW)) | rnd
            if not uniform:
                cu = cost[u]
            if masked:                            # its padded cell: (uy + 1) (w + 2) + ux + 1
                bits = masks[u + 2 * uy + w + 3] & (0xff if diag else 0x0f)
                if u != root:
                    # Not back to its pick (VIA): g(u) = rhs(u) is at least that one's g
                    # plus the step, so the step back gains nothing.
                    bits = bits & ~(1 << ((slots[mu].mark >> 28) & 7))
            else:                                 # every direction, N, E, S, W first
                bits = 0xff if diag else 0x0f
            while bits:                           # the legal steps, in the order N .. NW
                d = ctz32(bits)
                bits = bits & (bits - 1)
                if masked:
                    v = u + off[d]
                    if uniform:                   # the mean of two 1s: exactly the length
                        c = gu + length[d]
                    else:
                        c = gu + length[d] * (0.5 * (cu + cost[v]))   # length 1: the mean
                    if tiled:
                        vx, vy = ux + DX[d], uy + DY[d]
                elif d < 4:
                    vx, vy = ux + DX[d], uy + DY[d]
                    side[d] = INFINITY
                    if vx < 0 or vx >= w or vy < 0 or vy >= hgt:
                        continue
                    v = vy * w + vx
                    side[d] = cv = cost[v]
                    if cv == INFINITY:
                        continue
                    c = gu + 0.5 * (cu + cv)
                else:
                    vx, vy = ux + DX[d], uy + DY[d]
                    if vx < 0 or vx >= w or vy < 0 or vy >= hgt:
                        continue
                    if (side[0 if DY[d] < 0 else 2] < INFINITY) + \
                            (side[1 if DX[d] > 0 else 3] < INFINITY) < need:
                        continue
                    v = vy * w + vx
                    cv = cost[v]
                    if cv == INFINITY:
                        continue
                    c = gu + SQRT2 * (0.5 * (cu + cv))
                # (The root needs no test: it is reached, with rhs 0, so nothing lowers it.)
                mv = ((<Py_ssize_t> tile_at[(vy >> 4) * tw + (vx >> 4)] << 8) |
                      ((vy & 15) << 4) | (vx & 15)) if tiled else v
                x = &nodes[mv]
                word = seen[mv >> 6]
                if not (word >> (mv & 63)) & 1:
                    if tiled and mv < 256:        # no tile yet
                        mv = self.claim(vx, vy)
                        x = &nodes[mv]
                        word = seen[mv >> 6]
                    if word == 0:                 # the word's first bit: flag it
                        dirty[mv >> 12] |= (<uint64_t> 1) << ((mv >> 6) & 63)
                    seen[mv >> 6] = word | ((<uint64_t> 1) << (mv & 63))
                    x.g = INFINITY
                    slots[mv].mark = <uint32_t> (d ^ 2) << 28   # the way back: d reversed
                    self.initialised += 1
                    p = -1
                elif c > x.rhs:                   # no gain (most reached neighbours)
                    continue
                elif c < x.rhs * (1.0 - TIE_EPS):
                    p = slots[mv].pos
                    slots[mv].mark = (slots[mv].mark & ROUND) | (<uint32_t> (d ^ 2) << 28)
                    if p == ON_TIES:              # still least or tied
                        x.rhs = c
                        continue
                else:
                    if c == x.rhs and not slots[mv].mark & LOW:   # a tie with its pick
                        if (d ^ 2) < <int> ((slots[mv].mark >> 28) & 7):
                            slots[mv].mark = (slots[mv].mark & ~VIA) | \
                                (<uint32_t> (d ^ 2) << 28)
                    else:                         # a gain within the rounding margin
                        self.tie_via(mv, ux + DX[d], uy + DY[d], d ^ 2, c)
                    continue
                x.rhs = c
                if v == target:
                    dx = 0.0
                else:
                    dx = fabs(<double> (ux - tx + DX[d]))
                    dy = fabs(<double> (uy - ty + DY[d]))
                    if diag:
                        dx = (dx + SQRT2_M1 * dy) if dx > dy else (dy + SQRT2_M1 * dx)
                    else:
                        dx = dx + dy
                    dx = hs * dx
                it.k1 = grid24(c + dx, up, down)
                it.k2 = -c
                it.node = v
                it.mem = <int32_t> mv
                if p >= 0:
                    self.place(p, it)
                elif it.k1 == self.fu:
                    if self.n_ties == self.cap_ties:
                        grown = <Item*> realloc(self.ties, 2 * self.cap_ties * sizeof(Item))
                        if grown == NULL:
                            raise MemoryError()
                        self.ties, self.cap_ties = grown, 2 * self.cap_ties
                    self.ties[self.n_ties] = it
                    self.n_ties += 1
                    slots[mv].pos = ON_TIES
                else:
                    if self.size == self.capacity:
                        grown = <Item*> realloc(self.heap, 2 * self.capacity * sizeof(Item))
                        if grown == NULL:
                            raise MemoryError()
                        self.heap = grown
                        self.capacity *= 2
                    i = self.size                 # sift up from a new leaf
                    self.size += 1
                    heap = self.heap
                    while i > 0:
                        parent = (i - 1) >> 1
                        moved = heap[parent]
                        if not before(it, moved):
                            break
                        heap[i] = moved
                        slots[moved.mem].pos = <int32_t> i
                        i = parent
                    heap[i] = it
                    slots[mv].pos = <int32_t> i
        self.pointed = True
        return 0

    cdef void tie_via(self, Py_ssize_t mv, int vx, int vy, int dw, double c) noexcept nogil:
        """:meth:`first_grid`: the neighbour at step ``dw`` from cell (vx, vy), at place
        ``mv``, offers it ``c``, at most its rhs and not below it by the rounding margin:
        it becomes the one the walk picks (VIA) if ``c`` is below what the current one
        offers (its g plus the step, as the walk sums them), or equal and first in the
        walk's order; LOW then says whether the pick offers less than the rhs."""
        cdef Slot* m = &self.slots[mv]
        cdef int p = (m.mark >> 28) & 7, px = vx + DX[p], py = vy + DY[p]
        cdef double cs = 0.5 * (self.basep[vy * self.w + vx] + self.basep[py * self.w + px])
        if p >= 4:
            cs = SQRT2 * cs
        cs = cs + self.nodes[self.ixy(px, py)].g
        if c < cs or (c == cs and dw < p):
            m.mark = (m.mark & ~VIA) | (<uint32_t> dw << 28)
            cs = c
        m.mark = (m.mark | LOW) if cs < self.nodes[mv].rhs else (m.mark & ~LOW)

    cdef int grow_route(self) except -1:
        """Double the route buffers (or make the first ones)."""
        cdef Py_ssize_t cap = 2 * self.cap_route if self.cap_route else 256
        cdef int64_t* grown = <int64_t*> realloc(self.route, cap * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError()
        self.route = grown
        grown = <int64_t*> realloc(self.route_edges, cap * sizeof(int64_t))
        if grown == NULL:
            raise MemoryError()
        self.route_edges, self.cap_route = grown, cap
        return 0

    cdef Py_ssize_t trace(self, int s, int limit, double* total) except -1:
        """From ``s``, follow the pull edge minimising cost + g (first in edge order among
        equals) until the root: its nodes into ``route``, the ids of the edges taken into
        ``route_edges``, the sum of their costs into ``total``; returns the number of nodes,
        0 when the walk finds no way (within ``limit`` steps)."""
        cdef double c, bound, cs, cn, sum = 0.0
        cdef int nxt, d, x, y, w = self.w, root = self.root
        cdef int off[8]
        cdef int64_t used
        cdef Py_ssize_t n = 1, m, tw = self.tw, tile = -1, base = 0
        cdef bint masked = self.grid and self.movesp != NULL and self.mine == NULL
        cdef bint tiled = self.tiled, uniform = self.uniform
        cdef const int32_t* tile_at = self.tile_at
        cdef const Slot* slots = self.slots
        cdef const double* cost = self.basep
        cdef int64_t* route
        cdef int64_t* edges
        cdef int start = s
        total[0] = 0.0
        if self.g_of(s) == INFINITY and (not self.known(s) or self.nodes[self.ix(s)].rhs == INFINITY):
            return 0
        if self.grid and self.cell(root) == INFINITY:   # s == root, blocked: no way
            return 0
        if self.cap_route == 0:
            self.grow_route()
        route, edges = self.route, self.route_edges
        route[0] = s
        if self.pointed:
            # The first search named each node's pick (VIA): no neighbour is read.  Locals,
            # as the stores into the route may alias the core's fields.
            for d in range(8):
                off[d] = DY[d] * w + DX[d]
            cs = self.basep[s]
            y = self.row(s)
            x = s - y * w
            while s != root and n <= limit:
                if tiled:
                    if (y >> 4) * tw + (x >> 4) != tile:   # into another tile
                        tile = (y >> 4) * tw + (x >> 4)
                        base = <Py_ssize_t> tile_at[tile] << 8
                    m = base | ((y & 15) << 4) | (x & 15)
                else:
                    m = s
                d = (slots[m].mark >> 28) & 7
                edges[n - 1] = 8 * <int64_t> s + d
                s, x, y = s + off[d], x + DX[d], y + DY[d]
                if uniform:                       # the mean of two 1s: 1
                    c = 1.0
                else:
                    cn = cost[s]
                    c = 0.5 * (cs + cn)
                    cs = cn
                if d >= 4:
                    c = SQRT2 * c
                sum += c
                route[n] = s
                n += 1
                if n == self.cap_route:
                    self.grow_route()
                    route, edges = self.route, self.route_edges
            total[0] = sum
            return n if s == root else self.trace_tight(start, total)
        while s != root and n <= limit:
            # With masks, a first pass reads only the cells that may give a g + step within
            # the node's rhs (one of them, or one a rounding tie above it): its least is the
            # minimum when it is within that bound, else all are read.
            bound = self.nodes[self.ix(s)].rhs if masked else INFINITY
            if not masked or bound == INFINITY or \
                    not self.best_pull_masked(s, &nxt, &used, &c, bound) <= bound:
                self.best_pull(s, &nxt, &used, &c)
            if nxt < 0:
                break
            total[0] += c
            s = nxt
            if n == self.cap_route:
                self.grow_route()
            self.route_edges[n - 1] = used
            self.route[n] = s
            n += 1
        return n if s == root else self.trace_tight(start, total)

    cdef Py_ssize_t trace_tight(self, int s, double* total) except -1:
        """:meth:`trace` where the greedy walk finds no way, as when it comes back on itself
        round a cycle of zero-cost edges or of steps below the rounding of g: a depth-first
        search from ``s`` over the pull edges whose cost + g is within the queue's tolerance
        of the least at their node, each node entered once; the first way found to the root
        (0 when there is none)."""
        cdef int root = self.root, u, v, k, cnt, nxt
        cdef int vs[8]
        cdef double cs[8]
        cdef double best, bound, c, step
        cdef int64_t used, e = -1, lo
        cdef Py_ssize_t n = 1, i
        cdef uint8_t* entered = <uint8_t*> calloc(self.n + 1, 1)
        cdef int* tried = <int*> malloc((self.n + 1) * sizeof(int))
        if entered == NULL or tried == NULL:
            free(entered)
            free(tried)
            raise MemoryError()
        total[0] = 0.0
        try:
            if self.cap_route == 0:
                self.grow_route()
            self.route[0] = s
            entered[s] = 1
            tried[0] = 0
            while n > 0 and self.route[n - 1] != root:
                u = <int> self.route[n - 1]
                best = self.best_pull(u, &nxt, &used, &step)
                bound = best + 1e-9 * (self.unit_ + fabs(best))
                v = -1
                k = tried[n - 1]
                if self.grid:
                    cnt = self.around(u, vs, cs)
                    while k < cnt and v < 0:
                        if cs[k] < INFINITY and not entered[vs[k]] \
                                and cs[k] + self.g_of(vs[k]) <= bound:
                            v, e = vs[k], 8 * <int64_t> u + k
                        k += 1
                else:
                    lo = self.pull_ptr[u]
                    cnt = <int> (self.pull_ptr[u + 1] - lo)
                    while k < cnt and v < 0:
                        c = self.cost[self.pull_edge[lo + k]]
                        if not entered[self.pull_nbr[lo + k]] \
                                and c + self.g_of(self.pull_nbr[lo + k]) <= bound:
                            v, e = self.pull_nbr[lo + k], self.pull_edge[lo + k]
                        k += 1
                tried[n - 1] = k
                if v < 0:          # a dead end: back to the node before
                    n -= 1
                    continue
                entered[v] = 1
                if n == self.cap_route:
                    self.grow_route()
                self.route_edges[n - 1] = e
                self.route[n] = v
                tried[n] = 0
                n += 1
        finally:
            free(entered)
            free(tried)
        for i in range(n - 1):
            total[0] += self.edge_cost(self.route_edges[i])
        return n

    def walk(self, int s, int limit):
        """From ``s``, follow the pull edge minimising cost + g until the root: (int64 node
        ids, int64 ids of the edges taken, the sum of their costs); empty and inf when the
        walk finds no way."""
        cdef double total
        cdef Py_ssize_t n = self.trace(s, limit, &total)
        nodes = np.empty(n, dtype=np.int64)
        edges = np.empty(n - 1 if n > 1 else 0, dtype=np.int64)
        cdef int64_t[::1] o = nodes
        cdef int64_t[::1] e = edges
        if n == 0:
            return nodes, edges, INFINITY
        memcpy(&o[0], self.route, n * sizeof(int64_t))
        if n > 1:
            memcpy(&e[0], self.route_edges, (n - 1) * sizeof(int64_t))
        return nodes, edges, total

    def cells(self, int s, int limit, bint reverse):
        """Grid: :meth:`walk`'s path from ``s`` as cells, ((n, 2) int64 (x, y), from the
        root's end when ``reverse``; the sum of its step costs); empty and inf when the
        walk finds no way."""
        cdef double total
        cdef Py_ssize_t n = self.trace(s, limit, &total), i
        cdef int64_t node, y, w = self.w
        cdef const int64_t* route = self.route
        cdef double inv_w = self.inv_w
        out = np.empty((n, 2), dtype=np.int64)
        cdef int64_t[:, ::1] o = out
        for i in range(n):
            node = route[n - 1 - i if reverse else i]
            y = <int64_t> ((node + 0.5) * inv_w)   # as :meth:`row`
            o[i, 0] = node - y * w
            o[i, 1] = y
        return out, total if n else INFINITY

    cdef double edge_cost(self, int64_t e) noexcept nogil:
        cdef int u, v = -1
        if not self.grid:
            return self.cost[e]
        u = <int> (e >> 3)
        return self.step(u, u % self.w, u // self.w, <int> (e & 7), self.cell(u), &v)

    def edge_costs(self, const int64_t[::1] edges):
        """The current cost of each edge id (as :meth:`walk` gives them)."""
        out = np.empty(edges.shape[0])
        cdef double[::1] o = out
        cdef Py_ssize_t i
        for i in range(edges.shape[0]):
            o[i] = self.edge_cost(edges[i])
        return out

    def set_cells(self, const int64_t[:, ::1] cells, const double[::1] values):
        """Grid: set the costs of ``cells`` ((k, 2) x, y) to ``values`` and update every
        node whose steps they change (the 3 x 3 block round each: a cell's steps, and the
        diagonal steps it is a side cell of).  Returns the lowest finite new value (inf if
        none): no step costs less per unit of length."""
        cdef Py_ssize_t i, k = cells.shape[0], nb = 0
        cdef int x, y, dx, dy, s
        cdef double floor = INFINITY
        cdef int* block
        self.settled()
        self.pointed = False
        if self.own == NULL:
            self.own = <double*> malloc(self.n * sizeof(double) + 1)   # uninitialised
            self.mine = <uint64_t*> calloc(self.words + 1, sizeof(uint64_t))
            if self.own == NULL or self.mine == NULL:
                raise MemoryError()
        block = <int*> malloc(9 * k * sizeof(int) + 1)
        if block == NULL:
            raise MemoryError()
        try:
            for i in range(k):
                x, y = <int> cells[i, 0], <int> cells[i, 1]
                s = y * self.w + x
                self.own[s] = values[i]
                self.mine[s >> 6] |= (<uint64_t> 1) << (s & 63)
                if values[i] < floor:
                    floor = values[i]
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        if 0 <= x + dx < self.w and 0 <= y + dy < self.h:
                            block[nb] = (y + dy) * self.w + x + dx
                            nb += 1
            nb = sort_unique(block, nb)
            for i in range(nb):
                self.update(block[i])
        finally:
            free(block)
        return floor

    @property
    def g(self):
        """Every node's g (inf where the search never reached), for checks."""
        return self.dense(True)

    @property
    def rhs(self):
        """Every node's rhs (inf where the search never reached), for checks."""
        return self.dense(False)

    cdef dense(self, bint g):
        out = np.full(self.n, np.inf)
        cdef double[::1] o = out
        cdef int s
        for s in range(self.n):
            if self.known(s):
                o[s] = self.nodes[self.ix(s)].g if g else self.nodes[self.ix(s)].rhs
        return out

    def queued(self):
        """The queued nodes and whether the queue is ordered (for checks)."""
        cdef Py_ssize_t i
        self.settled()
        nodes = [self.heap[i].node for i in range(self.size)]
        ordered = all(not before(self.heap[i], self.heap[(i - 1) >> 1])
                      for i in range(1, self.size)) and \
            all(self.slots[self.heap[i].mem].pos == i and
                self.heap[i].mem == self.ix(self.heap[i].node) for i in range(self.size))
        return nodes, ordered

    def next_round(self, double eps):
        """Anytime: a new round at ``eps`` (INCONS back into the queue, CLOSED emptied,
        every key recomputed)."""
        cdef Py_ssize_t i
        cdef int s
        cdef Node* x
        cdef Slot* m
        self.settled()
        self.eps = eps
        self.round = (self.round % ROUND) + 1     # CLOSED emptied
        for i in range(self.n_incons):
            s = self.incons[i]
            x = &self.nodes[self.ix(s)]
            m = &self.slots[self.ix(s)]
            if m.mark & INCONS:
                m.mark &= ~INCONS
                if x.g != x.rhs:
                    self.push(s)
        self.n_incons = 0
        self.rekey()

    cdef int start_over(self, int root, int target, bint clear) except -1:
        if clear:
            self.clear_seen()
        self.initialised = 0
        self.size = 0
        self.n_ties = 0
        self.tying = False
        self.n_incons = 0
        self.round = 1
        self.deep = True
        self.root, self.target, self.km = root, target, 0.0
        self.fresh = True
        self.pointed = False
        self.at(root).rhs = 0.0
        self.push(root)
        return 0

    def restart(self, int root, int target):
        """Forget the search and start a new one from ``root`` towards ``target`` (edge
        costs kept), reusing the memory."""
        self.start_over(root, target, True)


def grid_cells(const int64_t[:] nodes, int w):
    """The (x, y) cells of grid nodes ``y * w + x`` (ids of int range, as a core's are):
    (n, 2) int64, without an integer division per node (see :meth:`IncrementalCore.row`)."""
    out = np.empty((nodes.shape[0], 2), dtype=np.int64)
    cdef int64_t[:, ::1] o = out
    cdef double inv_w = 1.0 / w
    cdef Py_ssize_t i
    cdef int64_t s, y
    for i in range(nodes.shape[0]):
        s = nodes[i]
        y = <int64_t> ((s + 0.5) * inv_w)
        o[i, 0] = s - y * w
        o[i, 1] = y
    return out


cdef int compare_ints(const void* a, const void* b) noexcept nogil:
    cdef int x = (<const int*> a)[0], y = (<const int*> b)[0]
    return (x > y) - (x < y)


cdef Py_ssize_t sort_unique(int* values, Py_ssize_t n) noexcept nogil:
    """Sort ``values`` in place and drop repeats; returns the new length."""
    cdef Py_ssize_t i, m = 0
    qsort(values, n, sizeof(int), compare_ints)
    for i in range(n):
        if m == 0 or values[i] != values[m - 1]:
            values[m] = values[i]
            m += 1
    return m

