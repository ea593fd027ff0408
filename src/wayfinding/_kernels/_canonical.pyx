# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Canonical Dijkstra on uniform grids.

Grids use the padded layout of the other grid kernels (row width ``Wp = W + 2``, a blocked
border, ``moves[i]`` the legal-step bits N, E, S, W, NE, SE, SW, NW).

Canonical Dijkstra (uniform costs 1 and sqrt 2, no corner cutting) labels cells by sweeping
canonical rays instead of pushing every cell through the open list:

* a diagonal ray continues diagonally and, from every cell it labels, starts a cardinal ray
  along each of its two components;
* a cardinal ray continues straight; the cell ``x`` it reaches from ``p`` is a *jump point*
  when, for a perpendicular side ``s``, ``x + s`` is free and ``p + s`` is blocked (a side
  wall ends).  The ray stops there and ``x`` goes on the open list with its arrival
  direction; expanding it continues straight and, for each ended side ``s``, along ``s`` and
  along the diagonal between the arrival direction and ``s``.  (Without corner cutting the
  cell ``x + s`` cannot be reached diagonally from ``p``, so the side ray is needed as well
  as the diagonal.)
* sources start all eight rays.

A ray stops at a cell already labelled with a cost not improved beyond the relative
tolerance ``TIE_EPS``.  A cell whose label is improved continues the ray, or is put back on
the open list if it is a jump point for the new arrival direction; stale open-list entries
(cost above the cell's label) are skipped when popped.

The flood's state (``Canon``) and entry points are declared in ``_canonical.pxd``;
``_goal_bounds`` floods from every source with them.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdint cimport int64_t, uint8_t, uint32_t
from libc.stdlib cimport free, realloc

from ._constants cimport SQRT2, TIE_EPS
from ._heap cimport IntVec, vec_push
from ._steps cimport step_horizontal, step_tables, step_vertical
from ._workspace cimport Workspace, check_workspace

cnp.import_array()

# Arrival code of a source: start every ray.
cdef enum:
    FROM_SOURCE = 255

# Perpendicular sides of the cardinals N, E, S, W (the first clockwise), and the diagonal
# between a cardinal and a side.
cdef int SIDE_A[4]
cdef int SIDE_B[4]
SIDE_A[:] = [1, 2, 3, 0]
SIDE_B[:] = [3, 0, 1, 2]
# DIAG[c * 4 + s]: diagonal made of cardinals c and s (N+E = NE, E+S = SE, S+W = SW, W+N = NW)
cdef int DIAG[16]
DIAG[:] = [-1, 4, -1, 7,
           4, -1, 5, -1,
           -1, 5, -1, 6,
           7, -1, 6, -1]


# ---------------------------------------------------------------- open list of jump points
# A plain binary heap of ``Entry`` (see _canonical.pxd).

cdef int eheap_push(EntryHeap* h, double g, int cell, int arrival) noexcept nogil:
    cdef Entry* grown
    cdef Py_ssize_t i, parent
    cdef Py_ssize_t cap
    if h.size == h.capacity:
        cap = 256 if h.capacity < 256 else 2 * h.capacity
        grown = <Entry*> realloc(h.items, cap * sizeof(Entry))
        if grown == NULL:
            return -1
        h.items = grown
        h.capacity = cap
    i = h.size
    h.size += 1
    while i > 0:
        parent = (i - 1) >> 1
        if h.items[parent].g <= g:
            break
        h.items[i] = h.items[parent]
        i = parent
    h.items[i].g = g
    h.items[i].cell = cell
    h.items[i].arrival = arrival
    return 0


cdef Entry eheap_pop(EntryHeap* h) noexcept nogil:
    """Remove and return the least entry (the heap must not be empty): the hole at the top
    walks down along the smaller children to a leaf, then the last entry sifts up from it."""
    cdef Entry top = h.items[0]
    cdef Entry last
    cdef Py_ssize_t i = 0, child, parent, n
    h.size -= 1
    n = h.size
    if n == 0:
        return top
    last = h.items[n]
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n:
            child += h.items[child + 1].g < h.items[child].g
        h.items[i] = h.items[child]
        i = child
    while i > 0:
        parent = (i - 1) >> 1
        if h.items[parent].g <= last.g:
            break
        h.items[i] = h.items[parent]
        i = parent
    h.items[i] = last
    return top


# ---------------------------------------------------------------- canonical Dijkstra

cdef inline int improves(Canon* c, int x, double cost) noexcept nogil:
    """Label x with ``cost`` if x is unlabelled (returns 1) or ``cost`` strictly improves
    its label (returns 2); otherwise (or out of memory) return 0."""
    cdef int result = 2
    if c.stamp[x] == c.label:
        if cost >= c.g[x] * (1.0 - TIE_EPS):
            return 0
    else:
        if c.order != NULL and vec_push(c.order, x) != 0:
            c.status = -1
            return 0
        c.stamp[x] = c.label
        result = 1
    c.g[x] = cost
    c.labels += 1
    return result


cdef void cardinal_ray(Canon* c, int x, int d, double cost) noexcept nogil:
    """Sweep from x, reached by the cardinal step d, until blocked, not improved or at a
    jump point (pushed on the open list)."""
    cdef int off = c.offset[d]
    cdef int sa = SIDE_A[d], sb = SIDE_B[d]
    cdef uint8_t mx, mp
    cdef int ended, labelled
    while True:
        if cost > c.limit:
            return
        labelled = improves(c, x, cost)
        if not labelled:
            return
        mx = c.moves[x]
        mp = c.moves[x - off]
        # A side is free at x (cardinal steps are legal between free cells) but was blocked
        # beside the previous cell.
        ended = (((mx >> sa) & ~(mp >> sa)) & 1) | ((((mx >> sb) & ~(mp >> sb)) & 1) << 1)
        if ended:
            if eheap_push(&c.heap, cost, x, d | (ended << 3)) != 0 \
                    or (c.jumps != NULL and vec_push(c.jumps, x) != 0):
                c.status = -1
            c.pushes += 1
            c.reopened += labelled == 2
            return
        if not (mx >> d) & 1:
            return
        x += off
        cost += 1.0


cdef void diagonal_ray(Canon* c, int x, int d, double cost) noexcept nogil:
    """Sweep diagonally from x (reached by the diagonal step d), starting the two cardinal
    component rays from every cell labelled."""
    cdef int off = c.offset[d]
    cdef int ca = step_vertical(d), cb = step_horizontal(d)
    cdef uint8_t mx
    while True:
        if cost > c.limit or not improves(c, x, cost):
            return
        mx = c.moves[x]
        if (mx >> ca) & 1:
            cardinal_ray(c, x + c.offset[ca], ca, cost + 1.0)
        if (mx >> cb) & 1:
            cardinal_ray(c, x + c.offset[cb], cb, cost + 1.0)
        if not (mx >> d) & 1:
            return
        x += off
        cost += SQRT2


cdef void expand(Canon* c, int x, int arrival, double gx) noexcept nogil:
    """Start the rays of an open-list entry: every direction at a source; the arrival
    direction, and per ended side the side and the diagonal toward it, at a jump point."""
    cdef uint8_t mx = c.moves[x]
    cdef int d, s, k
    if arrival == FROM_SOURCE:
        for d in range(4):
            if (mx >> d) & 1:
                cardinal_ray(c, x + c.offset[d], d, gx + 1.0)
        for d in range(4, 8):
            if (mx >> d) & 1:
                diagonal_ray(c, x + c.offset[d], d, gx + SQRT2)
        return
    d = arrival & 7
    if (mx >> d) & 1:
        cardinal_ray(c, x + c.offset[d], d, gx + 1.0)
    for k in range(2):
        if not (arrival >> (3 + k)) & 1:
            continue
        s = SIDE_A[d] if k == 0 else SIDE_B[d]
        if (mx >> s) & 1:
            cardinal_ray(c, x + c.offset[s], s, gx + 1.0)
        s = DIAG[d * 4 + s]
        if (mx >> s) & 1:
            diagonal_ray(c, x + c.offset[s], s, gx + SQRT2)


cdef int canonical_run(Canon* c, const int64_t* sources, Py_ssize_t n) noexcept nogil:
    """Flood from the sources (labelled 0); returns 0, or -1 when memory ran out."""
    cdef Py_ssize_t k
    cdef int s
    cdef Entry e
    c.heap.size = 0
    for k in range(n):
        s = <int> sources[k]
        if c.stamp[s] == c.label:
            continue
        if c.order != NULL and vec_push(c.order, s) != 0:
            return -1
        c.stamp[s] = c.label
        c.g[s] = 0.0
        c.labels += 1
        if eheap_push(&c.heap, 0.0, s, FROM_SOURCE) != 0:
            return -1
        c.pushes += 1
    while c.heap.size > 0 and c.status == 0:
        e = eheap_pop(&c.heap)
        if e.g > c.g[e.cell]:
            continue        # improved since it was pushed
        c.expanded += 1
        expand(c, e.cell, e.arrival, e.g)
    return c.status


cdef void canon_init(Canon* c, double* g, uint32_t* stamp, uint32_t label,
                     const uint8_t* moves, int width, double limit) noexcept nogil:
    cdef double length[8]
    step_tables(width, c.offset, length)
    c.g = g
    c.stamp = stamp
    c.label = label
    c.moves = moves
    c.limit = limit
    c.heap.items = NULL
    c.heap.size = 0
    c.heap.capacity = 0
    c.order = NULL
    c.jumps = NULL
    c.pushes = 0
    c.reopened = 0
    c.expanded = 0
    c.labels = 0
    c.status = 0


def flood(Workspace ws, const uint8_t[::1] moves, int width, const long long[::1] sources,
          double limit, double[:, ::1] out, bint record=False):
    """Multi-source canonical Dijkstra on a uniform no-corner-cutting grid.

    Writes the cost of every cell within ``limit`` into ``out`` (H x W, pre-filled with inf).
    Returns ``(pushes, expanded, labels, reopened, jumps)``: open-list pushes (sources
    included), entries expanded, label writes (first labels and improvements), pushes of
    cells already labelled (re-opened jump points), and with ``record`` the padded flat
    indices of the jump points pushed, in push order (int64 array; None otherwise).
    """
    cdef Canon c
    cdef IntVec jumps
    jumps.data = NULL
    jumps.size = jumps.capacity = 0
    cdef double* g = &ws.g[0]
    cdef uint32_t* stamp = &ws.stamp[0]
    cdef Py_ssize_t n = moves.shape[0], i
    cdef int h = out.shape[0], w = out.shape[1]
    cdef int status
    cdef int x, y
    cdef double gx
    if n != (h + 2) * (w + 2) or width != w + 2:
        raise ValueError("moves, width and out sizes disagree")
    check_workspace(ws, n)
    cdef uint32_t label = ws.begin()
    canon_init(&c, g, stamp, label, &moves[0], width, limit)
    if record:
        c.jumps = &jumps
    with nogil:
        status = canonical_run(&c, <const int64_t*> &sources[0], sources.shape[0]) \
            if sources.shape[0] > 0 else 0
        free(c.heap.items)
        if status == 0:
            for y in range(h):
                i = (y + 1) * width + 1
                for x in range(w):
                    # Branch-free: labelled and unlabelled cells are interleaved at random.
                    gx = g[i + x]
                    out[y, x] = gx if (stamp[i + x] == label) & (gx <= limit) else INFINITY
    if status < 0:
        free(jumps.data)
        raise MemoryError("open list could not grow")
    found = None
    if record:
        found = np.asarray(<int[:jumps.size]> jumps.data).astype(np.int64) if jumps.size \
            else np.empty(0, dtype=np.int64)
    free(jumps.data)
    return c.pushes, c.expanded, c.labels, c.reopened, found
