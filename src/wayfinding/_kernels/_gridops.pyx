# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Whole-grid and geometric kernels: line of sight, connected components, clearance, path
costs."""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

from ._constants cimport ALLOW_ONE_BLOCKED, ALWAYS, SQRT2
from ._steps cimport step_of, step_offsets

cnp.import_array()

cdef bint _sight(const uint8_t[:, ::1] passable, int x0, int y0, int x1, int y1,
                 int rule) noexcept nogil:
    cdef int dx = abs(x1 - x0), dy = abs(y1 - y0)
    cdef int sx = 1 if x1 > x0 else -1
    cdef int sy = 1 if y1 > y0 else -1
    cdef long error = dx - dy
    cdef int x = x0, y = y0
    cdef bint left, right
    cdef int remaining = dx + dy
    if not passable[y0, x0] or not passable[y1, x1]:
        return False
    while remaining > 0:
        if error > 0:
            x += sx
            error -= 2 * dy
            remaining -= 1
        elif error < 0:
            y += sy
            error += 2 * dx
            remaining -= 1
        else:
            left = passable[y, x + sx]
            right = passable[y + sy, x]
            if rule == ALLOW_ONE_BLOCKED:
                if not (left or right):
                    return False
            elif rule != ALWAYS:
                if not (left and right):
                    return False
            x += sx
            y += sy
            error += 2 * dx - 2 * dy
            remaining -= 2
        if not passable[y, x]:
            return False
    return True


def line_of_sight(const uint8_t[:, ::1] passable, int x0, int y0, int x1, int y1, int rule):
    """Whether the segment between the centres of two cells crosses only passable cells.

    Every cell the segment's interior touches must be passable.  Where the segment passes
    exactly through a cell corner, the two side cells are checked like a diagonal step:
    both free for ``never`` and ``no_corner_cutting``, at least one for ``allow_one_blocked``,
    neither for ``always``.  Cells are (x, y); ``passable`` is indexed [y, x].
    """
    cdef bint ok
    with nogil:
        ok = _sight(passable, x0, y0, x1, y1, rule)
    return ok


def components(const uint8_t[::1] moves, int width, int height, int32_t[:, ::1] out):
    """Label connected components of a padded grid's move graph into ``out`` (H x W, pre-filled
    with -1); labels are 0, 1, ... in row-major order of each component's first cell.
    Returns the number of components.  Moves are symmetric, so components are undirected."""
    cdef int inner_w = width - 2
    cdef int offset[8]
    step_offsets(width, offset)
    cdef int32_t[::1] stack = np.empty(moves.shape[0], dtype=np.int32)
    cdef int x, y, i, u, v, d, top, label = 0
    cdef uint8_t m
    with nogil:
        for y in range(height):
            for x in range(inner_w):
                if out[y, x] != -1:
                    continue
                i = (y + 1) * width + x + 1
                if moves[i] == 0:
                    continue
                out[y, x] = label
                stack[0] = i
                top = 1
                while top > 0:
                    top -= 1
                    u = stack[top]
                    m = moves[u]
                    for d in range(8):
                        if (m >> d) & 1:
                            v = u + offset[d]
                            if out[v // width - 1, v % width - 1] == -1:
                                out[v // width - 1, v % width - 1] = label
                                stack[top] = v
                                top += 1
                label += 1
    return label


def label_isolated(const uint8_t[:, ::1] passable, int32_t[:, ::1] out, int first_label):
    """Give each passable cell still labelled -1 (no legal moves) a component of its own."""
    cdef int x, y, label = first_label
    with nogil:
        for y in range(passable.shape[0]):
            for x in range(passable.shape[1]):
                if passable[y, x] and out[y, x] == -1:
                    out[y, x] = label
                    label += 1
    return label


def square_clearance(const uint8_t[:, ::1] passable, int32_t[:, ::1] out):
    """For each cell, the side of the largest all-passable square with that cell at its
    top-left corner (0 on blocked cells); the map edge counts as blocked."""
    cdef int h = passable.shape[0], w = passable.shape[1], x, y, best
    with nogil:
        for y in range(h - 1, -1, -1):
            for x in range(w - 1, -1, -1):
                if not passable[y, x]:
                    out[y, x] = 0
                elif y == h - 1 or x == w - 1:
                    out[y, x] = 1
                else:
                    best = out[y + 1, x]
                    if out[y, x + 1] < best:
                        best = out[y, x + 1]
                    if out[y + 1, x + 1] < best:
                        best = out[y + 1, x + 1]
                    out[y, x] = best + 1
    return None


cdef double FAR = 1e30


cdef void _edt_1d(double* f, int n, double* d, int* v, double* z) noexcept nogil:
    """Felzenszwalb-Huttenlocher lower envelope of parabolas: d[q] = min_p (q - p)^2 + f[p]."""
    cdef int k = 0, q
    cdef double s
    v[0] = 0
    z[0] = -INFINITY
    z[1] = INFINITY
    for q in range(1, n):
        s = ((f[q] + q * q) - (f[v[k]] + v[k] * v[k])) / (2.0 * q - 2.0 * v[k])
        while s <= z[k]:
            k -= 1
            s = ((f[q] + q * q) - (f[v[k]] + v[k] * v[k])) / (2.0 * q - 2.0 * v[k])
        k += 1
        v[k] = q
        z[k] = s
        z[k + 1] = INFINITY
    k = 0
    for q in range(n):
        while z[k + 1] < q:
            k += 1
        d[q] = (q - v[k]) * (q - v[k]) + f[v[k]]


def squared_distance_transform(double[:, ::1] grid):
    """In place: each entry becomes the squared Euclidean distance (in cells) to the nearest
    entry that was 0.  Entries must be 0 (feature) or inf; at least one must be 0."""
    cdef int h = grid.shape[0], w = grid.shape[1], n = max(h, w), x, y
    cdef double[::1] f = np.empty(n, dtype=np.float64)
    cdef double[::1] d = np.empty(n, dtype=np.float64)
    cdef double[::1] z = np.empty(n + 1, dtype=np.float64)
    cdef int[::1] v = np.empty(n, dtype=np.intc)
    with nogil:
        for x in range(w):
            for y in range(h):
                f[y] = FAR if grid[y, x] == INFINITY else grid[y, x]
            _edt_1d(&f[0], h, &d[0], &v[0], &z[0])
            for y in range(h):
                grid[y, x] = d[y]
        for y in range(h):
            for x in range(w):
                f[x] = grid[y, x]
            _edt_1d(&f[0], w, &d[0], &v[0], &z[0])
            for x in range(w):
                grid[y, x] = d[x]
    return None


def path_cost(const uint8_t[::1] moves, const double[:, ::1] costs,
              const int64_t[:, ::1] path):
    """Sum of the step costs of ``(n, 2)`` cells ``(x, y)`` (steps summed in order: straight
    1, diagonal sqrt 2, times the mean of the two cells' costs); inf when a cell is outside
    or blocked or a step is not a legal move; inf for an empty path."""
    cdef double total
    with nogil:
        total = _path_cost(moves, costs, path)
    return total


cdef double _path_cost(const uint8_t[::1] moves, const double[:, ::1] costs,
                       const int64_t[:, ::1] path) noexcept nogil:
    cdef Py_ssize_t n = path.shape[0], i, h = costs.shape[0], w = costs.shape[1]
    cdef int64_t x, y, px = 0, py = 0, dx, dy
    cdef int bit
    cdef double total = 0.0, c, pc = 0.0
    if n == 0:
        return INFINITY
    for i in range(n):
        x = path[i, 0]
        y = path[i, 1]
        if x < 0 or x >= w or y < 0 or y >= h:
            return INFINITY
        c = costs[y, x]
        if c == INFINITY:
            return INFINITY
        if i:
            dx = x - px
            dy = y - py
            if dx < -1 or dx > 1 or dy < -1 or dy > 1:
                return INFINITY
            bit = step_of(dx, dy)
            if bit < 0 or not (moves[(py + 1) * (w + 2) + px + 1] >> bit) & 1:
                return INFINITY
            total += (SQRT2 if dx != 0 and dy != 0 else 1.0) * 0.5 * (pc + c)
        px = x
        py = y
        pc = c
    return total


def visible_region(const uint8_t[:, ::1] open_cells, int gx, int gy, int rule,
                   uint8_t[:, ::1] out):
    """Mark in ``out`` every open cell whose centre the centre of ``(gx, gy)`` sees through
    open cells only (:func:`line_of_sight`'s rule).  The region is star-shaped around the
    goal, so a breadth-first walk over 4-neighbours from it finds all of it, testing one
    line per cell reached.  Returns the number of cells marked."""
    cdef Py_ssize_t h = open_cells.shape[0], w = open_cells.shape[1]
    cdef int* queue = <int*> malloc(h * w * sizeof(int))
    cdef Py_ssize_t head = 0, tail = 0
    cdef int x, y, nx, ny, k
    cdef int dxs[4]
    cdef int dys[4]
    dxs[:] = [1, -1, 0, 0]
    dys[:] = [0, 0, 1, -1]
    if queue == NULL:
        raise MemoryError()
    with nogil:
        if open_cells[gy, gx]:
            out[gy, gx] = 1
            queue[tail] = gy * w + gx
            tail += 1
        while head < tail:
            y, x = queue[head] // w, queue[head] % w
            head += 1
            for k in range(4):
                nx, ny = x + dxs[k], y + dys[k]
                if 0 <= nx < w and 0 <= ny < h and not out[ny, nx] and open_cells[ny, nx] \
                        and _sight(open_cells, gx, gy, nx, ny, rule):
                    out[ny, nx] = 1
                    queue[tail] = ny * w + nx
                    tail += 1
    free(queue)
    return tail
