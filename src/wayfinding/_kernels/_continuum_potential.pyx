# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Continuum-crowd potential and velocity field (Treuille et al.; the hybrid vector field of
Moersch and Hamilton) on a grid flattened with a one-cell wall border, row width
``width + 2``.

Directions are indexed 0: +x, 1: -x, 2: +y, 3: -y; step costs come from the crowd through
the model of ``_continuum_cells.pxd``.  The potential solves the anisotropic
Eikonal update ((P - Px) / Cx)^2 + ((P - Py) / Cy)^2 = 1, where per axis the entry with the
lower P_neighbour + cost is used, by fast marching from the goal cells.  :func:`update` does a
whole update in one pass over compact cells, computing each step cost when the march needs
it; ``_continuum_fields.speed_and_cost`` gives the full maps for inspection.
"""

from libc.math cimport INFINITY, fabs, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memset

from ._continuum_cells cimport Cell, Model, ahead, flow_speed, make_model, splat_into, step_cost
from ._ring cimport Ring, ring_add, ring_advance, ring_remove
from ._portable cimport (
    compare_swap_seq_cst_u64 as swap_claim,
    increment_acq_rel_i64 as take,
    load_acquire_f64 as acquire,
    load_acquire_i64 as load_count,
    load_acquire_u64 as load_claim,
    pause,
    prefetch_write as prefetch,
    store_release_f64,
    store_release_i64 as publish,
    store_seq_cst_i64 as store_flag,
    store_seq_cst_u64 as store_claim,
)


cdef inline void close(Cell* c) noexcept nogil:
    c.cx = 0.0
    c.py = -INFINITY
    c.cy = 0.0
    # Last: a thread that sees it closed sees its potential final.
    store_release_f64(&c.px, -INFINITY)


cdef inline bint is_closed(const Cell* c) noexcept nogil:
    return acquire(&c.px) == -INFINITY


cdef struct Queue:
    # Cells keyed by potential in buckets of width 1 / scale on a ring (``_ring.pxd``) wider
    # than the largest step cost, so queued keys never wrap onto each other.  Popping takes
    # the lowest non-empty bucket at or after the current one and scans it for its exact
    # minimum: cells come out in the order of a heap's; a bucket's only cell (the common
    # case) is popped without the scan.  (Three variants ran slower: entries from a pool, a
    # lowered cell leaving its old entry to be dropped when popped instead of being
    # unlinked, and a FIFO beside the buckets for cells first reached at the cheapest step
    # cost, whose keys arrive in order, 5-15%; bits of emptied buckets left set for the next
    # pop to clear, 3% more instructions and 4-12% slower.)
    Ring r
    double scale


cdef inline int64_t bucket(const Queue* q, double key) noexcept nogil:
    return (<int64_t> (key * q.scale)) & (q.r.ring - 1)


cdef inline int32_t q_pop(Queue* q, const Cell* cells) noexcept nogil:
    """Remove and return the cell of least potential (on ties the lowest index)."""
    cdef Ring* r = &q.r
    cdef int64_t found = ring_advance(r)
    cdef int32_t best = r.link[2 * (r.size + found)], n = r.link[2 * best]
    if n == r.none:     # the bucket's only cell (the common case): empty the bucket
        r.link[2 * (r.size + found)] = r.none
        r.bits[found >> 6] &= ~((<uint64_t> 1) << (found & 63))
        r.count -= 1
        return best
    while n != r.none:
        if cells[n].p < cells[best].p or (cells[n].p == cells[best].p and n < best):
            best = n
        n = r.link[2 * n]
    ring_remove(r, best)
    return best


cdef inline double solve(const Cell* e) noexcept nogil:
    """The potential from the best entries: the root of the anisotropic quadratic when both
    axes have one and it is upwind of both, else the cheaper single axis.  The root is
    (cy^2 px + cx^2 py + cx cy sqrt(cx^2 + cy^2 - (px - py)^2)) / (cx^2 + cy^2)."""
    cdef double px = e.px, cx = e.cx, py = e.py, cy = e.cy, cx2, cy2, det, root
    if px + cx == INFINITY:
        return py + cy
    if py + cy == INFINITY:
        return px + cx
    if cx == cy:     # the common case (equal costs): the root is upwind iff |px - py| <= cx
        det = px - py
        if det * det <= cx * cx:
            return 0.5 * (px + py + sqrt(2.0 * cx * cx - det * det))
        return (py if det > 0.0 else px) + cx
    cx2 = cx * cx
    cy2 = cy * cy
    det = cx2 + cy2 - (px - py) * (px - py)
    if det >= 0.0:
        root = (cy2 * px + cx2 * py + cx * cy * sqrt(det)) / (cx2 + cy2)
        if root >= px and root >= py:
            return root
    return px + cx if px + cx < py + cy else py + cy


cdef double solve_scaled(const Cell* e) noexcept nogil:
    """:func:`solve` for costs whose squares would overflow or vanish (a model whose step
    costs pass 1e90 or fall below 1e-90): the quadratic in units of the larger cost."""
    cdef double px = e.px, cx = e.cx, py = e.py, cy = e.cy
    cdef double s, a, b, d, det, root
    if px + cx == INFINITY:
        return py + cy
    if py + cy == INFINITY:
        return px + cx
    s = cx if cx > cy else cy
    a = cx / s
    b = cy / s
    d = (px - py) / s
    if cx == cy:
        if d * d <= 1.0:
            return 0.5 * (px + py + s * sqrt(2.0 - d * d))
        return (py if d > 0.0 else px) + cx
    det = a * a + b * b - d * d
    if det >= 0.0:
        root = (b * b * px + a * a * py + s * a * b * sqrt(det)) / (a * a + b * b)
        if root >= px and root >= py:
            return root
    return px + cx if px + cx < py + cy else py + cy


cdef inline double queue_scale(double alpha, double beta, double min_speed) noexcept nogil:
    """Buckets a 1024th of the cheapest step (alpha + beta) wide, wider if the ring of
    buckets spanning the dearest step (alpha + beta / min_speed) would pass 2^18."""
    cdef double scale = 1024.0 / (alpha + beta), cmax = alpha + beta / min_speed
    if cmax * scale > 250000.0:
        scale = 250000.0 / cmax
    return scale


def ring_size(double alpha, double beta, double min_speed):
    """The number of buckets of :func:`update`'s queue: its ``link`` needs cells + buckets +
    1 rows, with ``link[cells + b, 0] = cells + buckets`` for every bucket b (empty), and
    its ``bits`` buckets / 64 words of 0."""
    cdef double span = (alpha + beta / min_speed) * queue_scale(alpha, beta, min_speed) + 4.0
    cdef int64_t ring = 64
    while ring < span:
        ring *= 2
    return ring


cdef uint64_t OPEN = 0x7fffffff                   # claim: lo 0, hi open
cdef uint64_t LOW = ((<uint64_t> 1) << 32) - 1    # the hi half of a claim
cdef int BANDS = 8                # bands of rows of the set-up when a helper may come


cdef struct Shared:
    # What an update shares with a helper thread (:func:`assist`), in a buffer the field
    # keeps.  ``gate``: the update's epoch << 1, plus 1 while someone holds it (the update
    # while it resets the rest, the helper while it works), so a helper that comes late
    # for an epoch long over never touches a newer one.  The march publishes ``count``
    # (the first cells of ``order`` are frozen, up to potential ``front``) and ``done``.
    # ``claim`` holds the range of ``order`` whose velocities nobody has taken yet (lo in
    # the high 32 bits, hi in the low ones, open until the march ends): the helper takes
    # cells from its front, the update from its back once the march is over, so neither
    # waits for the other.  The set-up is ``BANDS`` bands of rows, taken by whoever comes
    # first.  ``closed``: the update has ended.  The padding keeps what each thread writes
    # on cache lines of its own (a line both touch would bounce between the cores).
    char pad0[64]
    uint64_t gate
    int64_t closed
    char pad1[64]
    int64_t count
    int64_t done
    double front
    char pad2[64]
    uint64_t claim
    char pad3[64]
    int64_t bands    # BANDS, or 1 with no helper
    int64_t band
    int64_t bands_done
    char pad4[64]


def shared_words():
    """The length of the ``uint64`` buffer :func:`update` and :func:`assist` share."""
    return (sizeof(Shared) + 7) // 8


cdef Shared* shared_of(uint64_t[::1] buf) except NULL:
    if <size_t> buf.shape[0] * 8 < sizeof(Shared):
        raise ValueError("the shared buffer must have shared_words() words")
    return <Shared*> &buf[0]


def update(double[:, ::1] cells, int32_t[:, ::1] link, uint64_t[::1] bits,
           int32_t[::1] order, uint64_t[::1] shared, const uint8_t[::1] walls,
           const double[:, ::1] positions, const double[:, ::1] velocities,
           const int32_t[::1] goals, int width, int height, double radius, int offset,
           double rho_min, double rho_max, double alpha, double beta, double min_speed,
           double[:, :, ::1] vectors, int64_t epoch):
    """One continuum-crowd update over padded flat cells (``cells``: ``(n, 8)`` rows of
    potential, best entries, density and velocity; ``order`` of n, ``link`` and ``bits``:
    scratch sized by :func:`ring_size`): splat the units, march the potential from the
    ``goals`` (flat indices) with each step's cost computed as it is needed, and write the
    velocity field to ``vectors`` ``(H, W, 2)``.  A helper thread running :func:`assist`
    with the same arrays and ``epoch`` (> 0, one more than the last) takes a share of the
    set-up and writes velocities behind the march; the update never waits for it to come,
    only for a band of the set-up it has begun.  Returns the number of cells reached."""
    cdef Py_ssize_t size = cells.shape[0], k
    cdef int x, y
    cdef Cell* cs = <Cell*> &cells[0, 0]
    cdef Model m = make_model(width, height, offset, rho_min, rho_max, alpha, beta, min_speed)
    cdef Queue q
    cdef Shared* sh = shared_of(shared)
    cdef uint64_t gate
    cdef int64_t band
    q.r.ring = ring_size(alpha, beta, min_speed)
    if link.shape[0] != size + q.r.ring + 1 or link.shape[1] != 2 \
            or bits.shape[0] != q.r.ring // 64 or order.shape[0] != size:
        raise ValueError("link, bits and order must be sized by ring_size and the cells")
    if vectors.shape[0] != height or vectors.shape[1] != width or vectors.shape[2] != 2:
        raise ValueError("vectors must be (height, width, 2)")
    q.scale = queue_scale(alpha, beta, min_speed)
    q.r.cur = 0
    q.r.count = 0
    q.r.size = <int32_t> size
    q.r.none = <int32_t> (size + q.r.ring)
    q.r.link = &link[0, 0]
    q.r.bits = &bits[0]
    with nogil:
        # Hold the gate at the new epoch (once a helper of an earlier one has let go).
        while True:
            gate = load_claim(&sh.gate)
            if gate & 1:
                pause()
            elif swap_claim(&sh.gate, gate, ((<uint64_t> epoch) << 1) | 1):
                break
        sh.closed = 0
        sh.count = 0
        sh.done = 0
        sh.front = 0.0
        sh.claim = OPEN
        sh.bands = BANDS if epoch else 1
        sh.band = 0
        sh.bands_done = 0
        store_claim(&sh.gate, (<uint64_t> epoch) << 1)
        band = take(&sh.band)
        while band < sh.bands:
            prepare(cs, walls, positions, velocities, radius, vectors, band, sh.bands)
            take(&sh.bands_done)
            band = take(&sh.band)
        while load_count(&sh.bands_done) < sh.bands:
            pause()
        start(cs, &q, goals)
        march(cs, &q, &m, sh, &order[0])
        if epoch:
            finish(cs, walls, &m, sh, &order[0], vectors)
        else:      # alone: row by row, the order memory is laid out in
            for y in range(height):
                k = (y + 1) * (width + 2) + 1
                for x in range(width):
                    if cs[k + x].p < INFINITY:
                        cell_vector(cs, walls, &m, <int> k + x, x, y, vectors)
        # Let a helper that came in leave before the arrays are handed back.
        store_flag(&sh.closed, 1)
        while load_claim(&sh.gate) & 1:
            pause()
    return sh.count


def assist(double[:, ::1] cells, const int32_t[::1] order, uint64_t[::1] shared,
           const uint8_t[::1] walls, const double[:, ::1] positions,
           const double[:, ::1] velocities, int width, int height, double radius, int offset,
           double rho_min, double rho_max, double alpha, double beta, double min_speed,
           double[:, :, ::1] vectors, int64_t epoch):
    """The helper's side of :func:`update` number ``epoch`` (same arrays): wait a little
    for it to begin, take set-up bands while any are left, then write velocities behind
    the march.  Returns at once if that update is over or another has begun."""
    cdef Model m = make_model(width, height, offset, rho_min, rho_max, alpha, beta, min_speed)
    cdef Shared* sh = shared_of(shared)
    with nogil:
        help_update(<Cell*> &cells[0, 0], &order[0], sh, walls, positions, velocities,
                    radius, &m, vectors, epoch)


cdef void help_update(Cell* cs, const int32_t* order, Shared* sh, const uint8_t[::1] walls,
                      const double[:, ::1] positions, const double[:, ::1] velocities,
                      double radius, const Model* m, double[:, :, ::1] vectors,
                      int64_t epoch) noexcept nogil:
    cdef uint64_t gate
    cdef int64_t band, waited = 0
    while True:
        gate = load_claim(&sh.gate)
        if <int64_t> (gate >> 1) > epoch:
            return
        if <int64_t> (gate >> 1) == epoch and not gate & 1 \
                and swap_claim(&sh.gate, gate, gate | 1):
            break
        waited += 1
        if waited > 1 << 20:     # the update never came (it failed on its input)
            return
        pause()
    if not load_count(&sh.closed):
        band = take(&sh.band)
        while band < sh.bands:
            prepare(cs, walls, positions, velocities, radius, vectors, band, sh.bands)
            take(&sh.bands_done)
            band = take(&sh.band)
        trail(cs, walls, m, sh, order, vectors)
    store_claim(&sh.gate, (<uint64_t> epoch) << 1)


cdef void prepare(Cell* cs, const uint8_t[::1] walls, const double[:, ::1] positions,
                  const double[:, ::1] velocities, double radius, double[:, :, ::1] vectors,
                  int band, int bands) noexcept nogil:
    """Set up band ``band`` of ``bands`` of the grid's rows: reset its cells (walls
    closed), splat the units onto it and clear its velocities.  The first and the last
    band also take the border rows.  (The queue needs no reset: every march leaves it
    empty.)"""
    cdef int width = vectors.shape[1], height = vectors.shape[0]
    cdef Py_ssize_t k, wp = width + 2
    cdef int lo = height * band // bands, hi = height * (band + 1) // bands
    cdef double shut
    cdef Py_ssize_t first = (lo + 1) * wp, last = (hi + 1) * wp
    if band == 0:
        first = 0
    if band == bands - 1:
        last = (height + 2) * wp
    for k in range(first, last):   # walls closed (plain stores: no thread reads them yet)
        shut = -INFINITY if walls[k] else INFINITY
        cs[k].p = INFINITY
        cs[k].px = shut
        cs[k].cx = INFINITY if shut > 0 else 0.0
        cs[k].py = shut
        cs[k].cy = INFINITY if shut > 0 else 0.0
        cs[k].rho = 0.0
        cs[k].vx = 0.0
        cs[k].vy = 0.0
    splat_into(positions, velocities, radius, width, height, &cs[0].rho, &cs[0].vx,
               &cs[0].vy, 8, lo, hi, False)
    if hi > lo:
        memset(&vectors[lo, 0, 0], 0, (hi - lo) * width * 2 * sizeof(double))


cdef void start(Cell* cs, Queue* q, const int32_t[::1] goals) noexcept nogil:
    """Queue the goal cells (passable) at potential 0."""
    cdef Py_ssize_t k
    cdef int32_t u
    for k in range(goals.shape[0]):
        u = goals[k]
        if cs[u].p == INFINITY:
            cs[u].p = 0.0
            ring_add(&q.r, u, bucket(q, 0.0))


cdef void march(Cell* cs, Queue* q, const Model* m, Shared* prog,
                int32_t* order) noexcept nogil:
    """Fast marching of the potential from the queued goals, publishing its progress every
    64 cells frozen and when it ends.

    It takes about three quarters of an update, and is bound by the instructions it runs
    (about 335 per cell at 128² of some 480 for the update, at some 3 a cycle: the queue
    125, the loop over the neighbours 130, step costs 45, the quadratic 40; then the
    velocities 90, set-up and splat 40), not by memory: compact per-cell arrays in place
    of the 64-byte records (potential, crowd and a state byte apart, best entries only for
    queued cells) ran no faster, while dropping the prefetch below made 256² grids a third
    slower; writing velocities behind the front from inside the march ran 10% slower.
    Writing the four neighbours out (the body once per direction, or an inline function
    GCC then keeps out of line) ran 2-23% more instructions; working out every cell's four
    step costs before the march, into an array it reads, 10% more and 8-37% slower (a
    cell needs about two, most of them the free-flow cost, which takes one test).  Records
    of 16 bytes (potential, the link of a singly linked queue, a state byte, and each
    axis's entry as two bits, its potential read back from the neighbour and its cost
    worked out again) gave the same field with a quarter of the cache misses and as many
    instructions, 1.0-1.15x as fast.  Whatever the layout, a cell costs 1.4-1.9x as much
    time on grids of 128 rows or more as on a 64 x 64 one, at the same instructions, when
    one update is repeated: the small grid's records (280 KB) stay in a core's 1 MB
    second-level cache from one update to the next, and the branch predictor learns its
    whole update by heart.  With 16 MB touched between updates, or two crowds in turn, a
    64 x 64 update costs 1.25x as much a cell; with a new crowd each time and other work
    between, as much as on the large grids.  There the march pays for the branches whose
    way depends on the field (a neighbour closed or not, reached or not, one entry or two):
    about three a cell mispredicted in a simulated predictor.  Three more variants ran no
    faster: a quadratic without the early returns for a missing entry (both sums, the
    root, then a choice; within 2%), the four neighbours' first test made without branches
    (a mask, then a loop over its bits, axis by axis; within 2% with a new crowd each
    update), and a push that reads a bucket's head only when its bit is set (4-7% slower).

    A march without the ordered queue would not give the same field.  The quadratic's root
    can exceed its upwind entries by arbitrarily little (it nears max(Px, Py) as |Px - Py|
    nears the cost), so no band of width delta above the front (Group Marching) holds cells
    that cannot depend on each other (a front travelling along an axis holds long chains of
    cells each just above the last).  And a cell keeps the least of the values it was given
    as its neighbours froze, in order: a later entry with a lower P + C can give a higher
    root, which is then dropped.  A sweeping or active-list solver iterating to a fixed
    point of the same equations reproduces neither (its field differed in 10 of 40 small
    crowded worlds, by up to 3%), and would cost about as much: each visit reads four
    neighbours, their step costs and the quadratic, two or more visits a cell."""
    cdef int32_t u, n
    cdef int d
    cdef int64_t count = 0
    cdef Cell* e
    cdef double pu, c, value, cheapest = m.alpha + m.beta
    # Step costs lie between the cheapest and alpha + beta / min_speed.
    cdef bint plain = 1e-90 < cheapest and m.alpha + m.beta / m.min_speed < 1e90
    while q.r.count > 0:
        u = q_pop(q, cs)
        close(&cs[u])
        order[count] = u
        count += 1
        pu = cs[u].p
        if (count & 63) == 0:
            store_release_f64(&prog.front, pu)
            publish(&prog.count, count)
        for d in range(4):
            # u is n's neighbour the opposite way, d ^ 1 (0 <-> 1, 2 <-> 3): keep it as
            # n's entry on that axis if it is the cheaper one, and lower n's potential if
            # it drops.  (Written out here, once per axis: an inlined function, or one
            # code path through a pointer to the axis's entry, ran 10% slower.)  The step
            # costs at least alpha + beta (speed 1), so that bound rules out most cells,
            # closed ones always, before the step's cost is worked out.
            n = u + m.nb[d]
            e = &cs[n]
            if d < 2:
                if not pu + cheapest < e.px + e.cx:
                    continue
                c = step_cost(m, &cs[ahead(m, n, d ^ 1)], d ^ 1)
                if not pu + c < e.px + e.cx:
                    continue
                e.px = pu
                e.cx = c
            else:
                if not pu + cheapest < e.py + e.cy:
                    continue
                c = step_cost(m, &cs[ahead(m, n, d ^ 1)], d ^ 1)
                if not pu + c < e.py + e.cy:
                    continue
                e.py = pu
                e.cy = c
            value = solve(e) if plain else solve_scaled(e)
            if not value < e.p:
                continue
            if e.p < INFINITY:   # queued: move it to its new bucket
                if bucket(q, value) == bucket(q, e.p):
                    e.p = value
                    continue
                ring_remove(&q.r, n)
            else:
                # Newly reached: its neighbours are read when it freezes; fetch them now.
                prefetch(&cs[n + m.nb[0]])
                prefetch(&cs[n + m.nb[1]])
                prefetch(&cs[n + m.nb[2]])
                prefetch(&cs[n + m.nb[3]])
            e.p = value
            ring_add(&q.r, n, bucket(q, value))
    publish(&prog.count, count)
    publish(&prog.done, 1)


cdef void trail(const Cell* cs, const uint8_t[::1] walls, const Model* m, Shared* prog,
                const int32_t* order, double[:, :, ::1] out) noexcept nogil:
    """Write the velocities of frozen cells from the front of the unclaimed range, in the
    march's order, each once its four neighbours are closed (frozen, or walls): their
    potentials are then final.  (Every passable neighbour of a frozen cell freezes in
    time.)  Until the march ends it keeps two cheapest steps behind the front, and when the
    next cell is not ready waits for the march to publish more: cells by the front are the
    march's to write, and reading them from another core slows it down."""
    cdef int64_t count, seen = -1, j, end
    cdef uint64_t word
    cdef int64_t lo, hi
    cdef int k, wp = m.width + 2
    cdef double behind
    while True:
        count = load_count(&prog.count)
        if count == seen and not load_count(&prog.done):
            pause()
            continue
        seen = count
        behind = INFINITY if load_count(&prog.done) else \
            acquire(&prog.front) - 2.0 * (m.alpha + m.beta)
        while True:
            word = load_claim(&prog.claim)
            lo = <int64_t> (word >> 32)
            hi = <int64_t> (word & LOW)
            if lo >= hi:
                return
            end = lo + 64
            if end > hi:
                end = hi
            if end > count:
                end = count
            j = lo
            while j < end:
                k = order[j]
                if not (cs[k].p < behind and is_closed(&cs[k - 1]) and is_closed(&cs[k + 1])
                        and is_closed(&cs[k - wp]) and is_closed(&cs[k + wp])):
                    break
                j += 1
            if j == lo:     # nothing ready: wait for the march
                pause()
                break
            if swap_claim(&prog.claim, word, ((<uint64_t> j) << 32) | <uint64_t> hi):
                while lo < j:
                    vector_of(cs, walls, m, order[lo], out)
                    lo += 1


cdef void finish(const Cell* cs, const uint8_t[::1] walls, const Model* m, Shared* prog,
                 const int32_t* order, double[:, :, ::1] out) noexcept nogil:
    """After the march: close the unclaimed range at the number of cells frozen and write
    velocities from its back, 64 cells at a time, until it meets the other thread."""
    cdef uint64_t word
    cdef int64_t lo, hi, first
    while True:
        word = load_claim(&prog.claim)
        if swap_claim(&prog.claim, word, (word & ~LOW)
                      | <uint64_t> prog.count):
            break
    while True:
        word = load_claim(&prog.claim)
        lo = <int64_t> (word >> 32)
        hi = <int64_t> (word & LOW)
        if lo >= hi:
            return
        first = hi - 64 if hi - 64 > lo else lo
        if swap_claim(&prog.claim, word, ((<uint64_t> lo) << 32) | <uint64_t> first):
            while first < hi:
                vector_of(cs, walls, m, order[first], out)
                first += 1


cdef inline void vector_of(const Cell* cs, const uint8_t[::1] walls, const Model* m, int k,
                           double[:, :, ::1] out) noexcept nogil:
    cell_vector(cs, walls, m, k, k % (m.width + 2) - 1, k // (m.width + 2) - 1, out)


cdef inline void cell_vector(const Cell* cs, const uint8_t[::1] walls, const Model* m, int k,
                             int x, int y, double[:, :, ::1] out) noexcept nogil:
    """A reached cell's velocity (cell k is (x, y)): the unit negative gradient of the
    potential (central differences, one-sided beside walls and unreached cells) times the
    flow speed in the direction it points along each axis (0 into a wall)."""
    cdef int wp = m.width + 2, dx, dy
    cdef double here = cs[k].p, lo, hi, gx, gy, norm, sx, sy, scale
    lo = cs[k - 1].p if cs[k - 1].p < INFINITY else here
    hi = cs[k + 1].p if cs[k + 1].p < INFINITY else here
    gx = lo - hi
    lo = cs[k - wp].p if cs[k - wp].p < INFINITY else here
    hi = cs[k + wp].p if cs[k + wp].p < INFINITY else here
    gy = lo - hi
    norm = gx * gx + gy * gy
    if not (1e-290 < norm < INFINITY):    # the squares overflowed or vanished: rescale
        scale = fabs(gx) if fabs(gx) > fabs(gy) else fabs(gy)
        if scale == 0.0:
            return
        gx /= scale
        gy /= scale
        norm = gx * gx + gy * gy
    norm = sqrt(norm)
    dx = 0 if gx > 0 else 1
    dy = 2 if gy > 0 else 3
    sx = 0.0 if walls[k + m.nb[dx]] else flow_speed(m, &cs[ahead(m, k, dx)], dx)
    sy = 0.0 if walls[k + m.nb[dy]] else flow_speed(m, &cs[ahead(m, k, dy)], dy)
    norm = 1.0 / norm
    out[y, x, 0] = gx * norm * sx
    out[y, x, 1] = gy * norm * sy
