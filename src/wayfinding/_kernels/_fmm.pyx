# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Fast marching (Sethian) for the Eikonal equation |grad T| = 1 / F on a 2D grid.

Arrays are flattened with a border of two masked cells (so the two-cell stencils of the second
order never leave the array), row width ``width``.  ``flag`` marks each cell far, narrow (in
the band, see ``Band``), frozen (final) or masked (blocked, or the border).  A cell's time
comes from its frozen 4-neighbours: per axis the smaller of the two, and with ``order`` 2 the
one-sided second-order difference (3 T - 4 T1 + T2) / 2h when the cell beyond is frozen and
not larger; then the upwind quadratic sum_axis c_axis (T - t_axis)^2 = h^2 / F^2 is solved
for its larger root (in units of h / F where a step's h / F passes 1e100 or falls below
1e-100, so that times and slownesses up to the largest double are never squared).  When it
has no real root, the best one-axis solution is taken.  Cells of equal time are frozen
together before their neighbours are updated, so the result does not depend on the order of
ties.  The narrow band is a ring of buckets scanned for their least time at the first order
(see ``Band``), a binary heap at the second.
"""

from libc.math cimport INFINITY, fabs, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

import numpy as np

from ._heap cimport Heap, IntVec, heap_free, heap_init, heap_pop, heap_push, heap_set, \
    vec_push
from ._portable cimport prefetch_write as prefetch
from ._ring cimport Ring, ring_add, ring_advance, ring_remove

cdef enum:
    FAR = 0
    NARROW = 1
    FROZEN = 2
    MASKED = 3

cdef enum:
    PAD = 2    # border cells around the grid in :func:`eikonal`

cdef double NINE_FOURTHS = 9.0 / 4.0
cdef double ONE_THIRD = 1.0 / 3.0


cdef inline double solve(const double* T, const uint8_t* flag, int i, const int* axis,
                         double step, int order, bint scaled) noexcept nogil:
    """The time of cell ``i`` from its frozen neighbours (inf when it has none); ``step``
    is the cell's slowness times h.  With ``scaled`` (a march whose steps pass 1e100 or
    fall below 1e-100) the quadratic is solved for ``(T - m) / step``, ``m`` the smallest
    neighbour time, so that no square of a time or a slowness is formed."""
    cdef double coef[2]
    cdef double t[2]
    cdef double v1, v2, a = 0.0, b = 0.0, c = 0.0, det, best, m = INFINITY, s
    cdef int d, side, n, n2
    for d in range(2):
        v1 = INFINITY
        v2 = INFINITY
        for side in range(-1, 2, 2):
            n = i + side * axis[d]
            if flag[n] == FROZEN and T[n] < v1:
                v1 = T[n]
                v2 = INFINITY
                n2 = n + side * axis[d]
                if order == 2 and flag[n2] == FROZEN and T[n2] <= v1:
                    v2 = T[n2]
        if v2 < INFINITY:
            coef[d] = NINE_FOURTHS
            t[d] = ONE_THIRD * (4.0 * v1 - v2)
        elif v1 < INFINITY:
            coef[d] = 1.0
            t[d] = v1
        else:
            coef[d] = 0.0
            t[d] = 0.0
        a += coef[d]
        b -= 2.0 * coef[d] * t[d]
        c += coef[d] * t[d] * t[d]
        if coef[d] > 0.0 and t[d] < m:
            m = t[d]
    if m == INFINITY:
        return INFINITY
    if not scaled:
        c -= step * step
        det = b * b - 4.0 * a * c
        if det >= 0.0:
            return (-b + sqrt(det)) / (2.0 * a)
    else:
        if step == 0.0:                   # below the smallest double: no time passes
            return m
        b = 0.0
        c = -1.0
        for d in range(2):
            if coef[d] > 0.0:
                s = (t[d] - m) / step
                b -= 2.0 * coef[d] * s
                c += coef[d] * s * s
        det = b * b - 4.0 * a * c
        if det >= 0.0:
            return m + (-b + sqrt(det)) / (2.0 * a) * step
    best = INFINITY
    for d in range(2):
        if coef[d] > 0.0 and t[d] + step / sqrt(coef[d]) < best:
            best = t[d] + step / sqrt(coef[d])
    return best


cdef struct Band:
    # The narrow band, keyed by time: a binary heap (``pos``: each cell's slot), or, where
    # the march's steps and times allow (``buckets``), buckets of width 1 / scale on a ring
    # (``_ring.pxd``) wider than the dearest step.  A cell goes into the bucket of its time,
    # or the current one should its time be below it; the least time is found by the lowest
    # non-empty bucket and a scan of it, so cells leave in the heap's order.
    bint buckets
    Heap heap
    int32_t* pos
    Ring r
    double scale


cdef inline int64_t band_bucket(const Band* q, double t) noexcept nogil:
    cdef int64_t b = <int64_t> (t * q.scale)
    return b if b > q.r.cur else q.r.cur


cdef inline void band_link(Band* q, int n, double t) noexcept nogil:
    ring_add(&q.r, n, band_bucket(q, t) & (q.r.ring - 1))


cdef inline int band_least(Band* q, const double* T) noexcept nogil:
    """The band's cell of least time (on ties the lowest index), left in the band."""
    cdef int64_t found
    cdef int32_t n, best
    if not q.buckets:
        return q.heap.items[0].node
    found = ring_advance(&q.r)
    best = q.r.link[2 * (q.r.size + found)]
    n = q.r.link[2 * best]
    while n != q.r.none:
        if T[n] < T[best] or (T[n] == T[best] and n < best):
            best = n
        n = q.r.link[2 * n]
    return best


cdef int band_take(Band* q, const double* T, double value, IntVec* out) noexcept nogil:
    """Remove every cell of time ``value``, the band's least (after :func:`band_least`),
    into ``out``: one pass over the least bucket, which holds them all (a maze's corridors
    bring many cells to one time at once).  -1 if memory ran out."""
    cdef int32_t n, after
    if not q.buckets:
        while q.heap.size > 0 and q.heap.items[0].f == value:
            if vec_push(out, heap_pop(&q.heap, q.pos).node) != 0:
                return -1
        return 0
    n = q.r.link[2 * (q.r.size + (q.r.cur & (q.r.ring - 1)))]
    while n != q.r.none:
        after = q.r.link[2 * n]
        if T[n] == value:
            ring_remove(&q.r, n)
            if vec_push(out, n) != 0:
                return -1
        n = after
    return 0


cdef int band_init(Band* q, const double* slowness, const double* T, const uint8_t* flag,
                   Py_ssize_t size, double h, int order, bint* scaled) noexcept nogil:
    """An empty band for a march over these cells: buckets for a first-order march where
    every step (slowness times h) lies in [1e-100, 1e100] and the dearest step with the
    spread of the known times spans at most 250,000 buckets of at most a quarter of the
    cheapest step (1024th where that fits), else the heap (second-order times along a
    maze's corridors crowd one bucket with times a rounding apart, which its scans would
    take one by one); ``scaled`` set where a step lies outside that range.  -1 if memory
    ran out."""
    cdef Py_ssize_t k
    cdef double step, lo = INFINITY, hi = 0.0, t_lo = INFINITY, t_hi = -INFINITY, span
    cdef int64_t ring = 64
    scaled[0] = False
    for k in range(size):
        if flag[k] == FAR:
            step = slowness[k] * h
            if not (1e-100 <= step <= 1e100):
                scaled[0] = True
            if step < lo:
                lo = step
            if step > hi:
                hi = step
        elif flag[k] == FROZEN:
            if T[k] < t_lo:
                t_lo = T[k]
            if T[k] > t_hi:
                t_hi = T[k]
    q.pos = NULL
    q.r.link = NULL
    q.r.bits = NULL
    q.r.count = 0
    q.buckets = False
    if order == 1 and not scaled[0] and lo <= hi and t_lo <= t_hi \
            and size + 1000000 < 2147483647:
        q.scale = 1024.0 / lo
        span = (t_hi - t_lo + hi) * q.scale
        if span > 250000.0:
            q.scale = 250000.0 / (t_hi - t_lo + hi)
            span = 250000.0
        q.buckets = q.scale * lo >= 4.0 and fabs(t_lo) * q.scale < 1e15 \
            and fabs(t_hi) * q.scale < 1e15
    if q.buckets:
        while ring < span + 4.0:
            ring *= 2
        q.r.ring = ring
        q.r.cur = <int64_t> (t_lo * q.scale)
        q.r.size = <int32_t> size
        q.r.none = <int32_t> (size + ring)
        q.r.link = <int32_t*> malloc(2 * (size + ring + 1) * sizeof(int32_t))
        q.r.bits = <uint64_t*> calloc(ring // 64, sizeof(uint64_t))
        if q.r.link == NULL or q.r.bits == NULL:
            return -1
        for k in range(ring):
            q.r.link[2 * (size + k)] = q.r.none
        return 0
    q.pos = <int32_t*> malloc(size * sizeof(int32_t))
    if q.pos == NULL or heap_init(&q.heap, 256) != 0:
        return -1
    return 0


cdef inline void band_free(Band* q) noexcept nogil:
    free(q.pos)
    free(q.r.link)
    free(q.r.bits)
    if not q.buckets:
        heap_free(&q.heap)


cdef inline Py_ssize_t band_size(const Band* q) noexcept nogil:
    return q.r.count if q.buckets else q.heap.size


cdef inline int touch(double* T, uint8_t* flag, const double* slowness, Band* q, int n,
                      const int* axis, double h, int order, bint scaled) noexcept nogil:
    """Recompute a far or narrow cell and put it in the band; -1 if memory ran out."""
    cdef double d = solve(T, flag, n, axis, slowness[n] * h, order, scaled)
    if d == INFINITY:
        return 0
    if not q.buckets:
        T[n] = d
        if flag[n] == NARROW:
            heap_set(&q.heap, q.pos, n, d, 0.0)
            return 0
        flag[n] = NARROW
        return heap_push(&q.heap, q.pos, d, 0.0, n)
    if flag[n] == NARROW:
        if band_bucket(q, d) == band_bucket(q, T[n]):
            T[n] = d
            return 0
        ring_remove(&q.r, n)
    else:
        # Newly in the band: the rows beside it are read when it freezes; fetch them now.
        prefetch(&T[n + axis[0]])
        prefetch(&T[n - axis[0]])
        prefetch(&flag[n + axis[0]])
        prefetch(&flag[n - axis[0]])
        prefetch(&q.r.link[2 * (n + axis[0])])
        prefetch(&slowness[n + axis[0]])
    flag[n] = NARROW
    T[n] = d
    band_link(q, n, d)
    return 0


cdef int march_core(const double* slowness, double* T, uint8_t* flag, Py_ssize_t size,
                    int width, double h, int order, double limit,
                    long* frozen_out) noexcept nogil:
    """The march over flattened, bordered arrays (see :func:`march`); -1 if memory ran
    out."""
    cdef Py_ssize_t k
    cdef int axis[2]
    axis[0] = width
    axis[1] = 1
    cdef double value
    cdef bint scaled
    cdef Band q
    cdef IntVec batch
    cdef int u, n, d, side, status = 0
    cdef long frozen = 0
    batch.data = NULL
    batch.size = 0
    batch.capacity = 0
    q.heap.items = NULL
    if band_init(&q, slowness, T, flag, size, h, order, &scaled) != 0:
        band_free(&q)
        return -1
    # The narrow band: every far cell next to a frozen one.
    for k in range(size):
        if flag[k] != FROZEN:
            continue
        for d in range(2):
            for side in range(-1, 2, 2):
                n = <int> k + side * axis[d]
                if flag[n] == FAR or flag[n] == NARROW:
                    if touch(T, flag, slowness, &q, n, axis, h, order, scaled) != 0:
                        status = -1
    while status == 0 and band_size(&q) > 0:
        value = T[band_least(&q, T)]
        if value > limit:
            break
        batch.size = 0
        if band_take(&q, T, value, &batch) != 0:
            status = -1
            break
        for k in range(batch.size):
            flag[batch.data[k]] = FROZEN
        frozen += batch.size
        for k in range(batch.size):
            u = batch.data[k]
            for d in range(2):
                for side in range(-1, 2, 2):
                    n = u + side * axis[d]
                    if flag[n] == FAR or flag[n] == NARROW:
                        if touch(T, flag, slowness, &q, n, axis, h, order, scaled) != 0:
                            status = -1
                    elif order == 2 and flag[n] == FROZEN \
                            and flag[n + side * axis[d]] == NARROW:
                        # The cell beyond a frozen neighbour uses u in its stencil.
                        if touch(T, flag, slowness, &q, n + side * axis[d], axis, h,
                                 order, scaled) != 0:
                            status = -1
    for k in range(size):
        if flag[k] == NARROW:
            flag[k] = FAR
        if flag[k] == FAR:
            T[k] = INFINITY
    band_free(&q)
    free(batch.data)
    frozen_out[0] = frozen
    return status


def march(const double[::1] slowness, double[::1] T, uint8_t[::1] flag, int width,
          double h, int order, double limit):
    """Fast marching from the frozen cells.  ``slowness``: 1 / F per cell;
    ``T``: times, final for frozen cells (the rest is overwritten: inf where not reached
    within ``limit``); ``flag``: FAR, FROZEN or MASKED per cell (updated).  Returns the
    number of cells frozen by the march."""
    cdef long frozen = 0
    cdef int status
    with nogil:
        status = march_core(&slowness[0], &T[0], &flag[0], T.shape[0], width, h, order,
                            limit, &frozen)
    if status < 0:
        raise MemoryError("the narrow band could not grow")
    return frozen


cdef object plain_pairs(object sources):
    """A list or tuple of ``(x, y)`` tuples of Python ints as an ``(n, 2)`` int64 array, or
    None for anything else."""
    cdef Py_ssize_t n, j
    cdef int64_t[:, ::1] out
    if type(sources) is not list and type(sources) is not tuple:
        return None
    n = len(sources)
    cells = np.empty((n, 2), dtype=np.int64)
    out = cells
    for j in range(n):
        c = sources[j]
        if type(c) is not tuple or len(c) != 2 or type(c[0]) is not int \
                or type(c[1]) is not int:
            return None
        try:
            out[j, 0] = c[0]
            out[j, 1] = c[1]
        except OverflowError:
            return None
    return cells


def eikonal(const double[:, ::1] world, sources, bint costs, double h, int order,
            double limit):
    """Travel times ``(H, W)`` from ``sources`` (``(x, y)`` rows of a C-contiguous ``(n, 2)``
    int64 array, or a list or tuple of ``(x, y)`` tuples of ints; time 0) in one call.

    ``world``: per cell the speed F (``costs`` false: F > 0, 0 a wall) or the slowness
    1 / F (``costs`` true, a Grid's costs: not finite is a wall).  Returns ``(times, code,
    index)``: ``times`` float64, inf where unreached or above ``limit``; ``code`` 0 when
    done, 1 when ``world[index]`` (flat) is not a valid speed or cost, 2 when source
    ``index`` is outside the grid, 3 when it is a wall, 4 when there is no source, 5 (and
    no times) when ``sources`` is neither form (the caller normalises it)."""
    cdef const int64_t[:, ::1] cells
    if isinstance(sources, np.ndarray):
        if sources.dtype != np.int64 or sources.ndim != 2 or sources.shape[1] != 2 \
                or not sources.flags.c_contiguous:
            return None, 5, 0
        cells = sources
    else:
        given = plain_pairs(sources)
        if given is None:
            return None, 5, 0
        cells = given
    cdef Py_ssize_t hh = world.shape[0], ww = world.shape[1]
    cdef Py_ssize_t pw = ww + 2 * PAD, size = (hh + 2 * PAD) * pw
    cdef Py_ssize_t x, y, k, j
    cdef double v
    cdef long frozen = 0
    cdef int status = 0, code = 0
    cdef Py_ssize_t bad = 0
    out = np.empty((hh, ww), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef double* T = <double*> malloc(size * sizeof(double))
    cdef double* slow = <double*> malloc(size * sizeof(double))
    cdef uint8_t* flag = <uint8_t*> malloc(size * sizeof(uint8_t))
    if T == NULL or slow == NULL or flag == NULL:
        free(T)
        free(slow)
        free(flag)
        raise MemoryError("cannot allocate the fast-marching arrays")
    with nogil:
        memset(flag, MASKED, size * sizeof(uint8_t))
        for k in range(size):
            T[k] = INFINITY
            slow[k] = 0.0
        for y in range(hh):
            k = (y + PAD) * pw + PAD
            for x in range(ww):
                v = world[y, x]
                if costs:
                    if v < INFINITY:                       # inf or nan: a wall
                        flag[k + x] = FAR
                        slow[k + x] = v
                elif not (v >= 0.0 and v < INFINITY):      # nan, negative or inf
                    code = 1
                elif v > 0.0:
                    flag[k + x] = FAR
                    slow[k + x] = 1.0 / v
                if code:
                    bad = y * ww + x
                    break
            if code:
                break
        if code == 0 and cells.shape[0] == 0:
            code = 4
        if code == 0:
            for j in range(cells.shape[0]):
                x = cells[j, 0]
                y = cells[j, 1]
                if x < 0 or x >= ww or y < 0 or y >= hh:
                    code = 2
                elif flag[(y + PAD) * pw + PAD + x] == MASKED:
                    code = 3
                if code:
                    bad = j
                    break
                k = (y + PAD) * pw + PAD + x
                T[k] = 0.0
                flag[k] = FROZEN
        if code == 0:
            status = march_core(slow, T, flag, size, <int> pw, h, order, limit, &frozen)
            for y in range(hh):
                k = (y + PAD) * pw + PAD
                for x in range(ww):
                    v = T[k + x]
                    o[y, x] = v if v <= limit else INFINITY
    free(T)
    free(slow)
    free(flag)
    if status < 0:
        raise MemoryError("the narrow band could not grow")
    return out, code, bad
