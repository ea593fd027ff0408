# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Fast marching (Sethian) for the Eikonal equation |grad T| = 1 / F on a 2D grid.

Arrays are flattened with a border of two masked cells (so the two-cell stencils of the second
order never leave the array), row width ``width``.  ``flag`` marks each cell far, narrow (on
the heap), frozen (final) or masked (blocked, or the border).  A cell's time comes from its
frozen 4-neighbours: per axis the smaller of the two, and with ``order`` 2 the one-sided
second-order difference (3 T - 4 T1 + T2) / 2h when the cell beyond is frozen and not larger;
then the upwind quadratic sum_axis c_axis (T - t_axis)^2 = h^2 / F^2 is solved for its larger
root (in units of h / F where a step's h / F passes 1e100 or falls below 1e-100, so that
times and slownesses up to the largest double are never squared).  When it has no real root, the best one-axis solution is taken.  Cells of equal time
are frozen together before their neighbours are updated, so the result does not depend on the
order of ties.
"""

from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np

from ._heap cimport Heap, HeapItem, IntVec, heap_free, heap_init, heap_pop, heap_push, \
    heap_set, vec_push

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


cdef inline int touch(double* T, uint8_t* flag, const double* slowness, Heap* heap,
                      int32_t* pos, int n, const int* axis, double h,
                      int order, bint scaled) noexcept nogil:
    """Recompute a far or narrow cell and put it on the heap; -1 if memory ran out."""
    cdef double d = solve(T, flag, n, axis, slowness[n] * h, order, scaled)
    if d == INFINITY:
        return 0
    T[n] = d
    if flag[n] == NARROW:
        heap_set(heap, pos, n, d, 0.0)
        return 0
    flag[n] = NARROW
    return heap_push(heap, pos, d, 0.0, n)


cdef int march_core(const double* slowness, double* T, uint8_t* flag, Py_ssize_t size,
                    int width, double h, int order, double limit,
                    long* frozen_out) noexcept nogil:
    """The march over flattened, bordered arrays (see :func:`march`); -1 if memory ran
    out."""
    cdef Py_ssize_t k
    cdef int axis[2]
    axis[0] = width
    axis[1] = 1
    cdef double value, step
    cdef bint scaled = False
    cdef Heap heap
    cdef IntVec batch
    cdef int32_t* pos = <int32_t*> malloc(size * sizeof(int32_t))
    cdef int u, n, d, side, status = 0
    cdef long frozen = 0
    cdef HeapItem it
    batch.data = NULL
    batch.size = 0
    batch.capacity = 0
    if pos == NULL or heap_init(&heap, 256) != 0:
        free(pos)
        return -1
    for k in range(size):
        if flag[k] == FAR:
            step = slowness[k] * h
            if not (1e-100 <= step <= 1e100):
                scaled = True
                break
    # The narrow band: every far cell next to a frozen one.
    for k in range(size):
        if flag[k] != FROZEN:
            continue
        for d in range(2):
            for side in range(-1, 2, 2):
                n = <int> k + side * axis[d]
                if flag[n] == FAR or flag[n] == NARROW:
                    if touch(T, flag, slowness, &heap, pos, n, axis, h, order, scaled) != 0:
                        status = -1
    while status == 0 and heap.size > 0:
        it = heap_pop(&heap, pos)
        value = it.f
        if value > limit:
            break
        batch.size = 0
        flag[it.node] = FROZEN
        if vec_push(&batch, it.node) != 0:
            status = -1
            break
        while heap.size > 0 and heap.items[0].f == value:
            it = heap_pop(&heap, pos)
            flag[it.node] = FROZEN
            if vec_push(&batch, it.node) != 0:
                status = -1
                break
        frozen += batch.size
        for k in range(batch.size):
            u = batch.data[k]
            for d in range(2):
                for side in range(-1, 2, 2):
                    n = u + side * axis[d]
                    if flag[n] == FAR or flag[n] == NARROW:
                        if touch(T, flag, slowness, &heap, pos, n, axis, h, order, scaled) != 0:
                            status = -1
                    elif order == 2 and flag[n] == FROZEN \
                            and flag[n + side * axis[d]] == NARROW:
                        # The cell beyond a frozen neighbour uses u in its stencil.
                        if touch(T, flag, slowness, &heap, pos, n + side * axis[d], axis,
                                 h, order, scaled) != 0:
                            status = -1
    for k in range(size):
        if flag[k] == NARROW:
            flag[k] = FAR
        if flag[k] == FAR:
            T[k] = INFINITY
    free(pos)
    heap_free(&heap)
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
