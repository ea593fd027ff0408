# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Continuum-crowd fields (Treuille et al.; the hybrid vector field of Moersch and Hamilton)
on a grid flattened with a one-cell wall border, row width ``width``.

Directions are indexed 0: +x, 1: -x, 2: +y, 3: -y.  ``speed[i, d]`` is the flow speed in
(0, 1] for leaving cell i in direction d, ``cost[i, d]`` the cost of the step to the
neighbour that way (inf into a wall); a cell's four values are side by side in memory.  The potential solves the anisotropic Eikonal update
((P - Px) / Cx)^2 + ((P - Py) / Cy)^2 = 1, where per axis the entry with the lower
P_neighbour + cost is used, by fast marching from the goal cells.
"""

from libc.math cimport INFINITY, floor, sqrt
from libc.stdint cimport int32_t, uint8_t
from libc.stdlib cimport free, malloc

from ._heap cimport Heap, HeapItem, heap_decrease, heap_free, heap_init, heap_pop, heap_push

cdef enum:
    FAR = 0
    NARROW = 1
    FROZEN = 2
    WALL = 3


cdef inline double clamp01(double v) noexcept nogil:
    return 0.0 if v < 0.0 else (1.0 if v > 1.0 else v)


def splat(const double[:, ::1] positions, const double[:, ::1] velocities, double radius,
          int width, int height, double[::1] density, double[::1] vx, double[::1] vy):
    """Add each unit's density 1 - distance / radius (clamped at 0) to the cells around it
    and its velocity times that weight to (vx, vy); then divide the sums by the density.
    Positions are in cells (cell (x, y)'s centre at (x, y)); arrays are padded flat."""
    cdef Py_ssize_t j, n = positions.shape[0], i, size = density.shape[0]
    cdef int x, y, x0, x1, y0, y1
    cdef double px, py, w, dx, dy, inv_r = 1.0 / radius
    cdef int wp = width + 2
    with nogil:
        for j in range(n):
            px = positions[j, 0]
            py = positions[j, 1]
            x0 = <int> floor(px - radius) + 1
            x1 = <int> floor(px + radius)
            y0 = <int> floor(py - radius) + 1
            y1 = <int> floor(py + radius)
            if x0 < 0:
                x0 = 0
            if y0 < 0:
                y0 = 0
            if x1 > width - 1:
                x1 = width - 1
            if y1 > height - 1:
                y1 = height - 1
            for y in range(y0, y1 + 1):
                dy = y - py
                for x in range(x0, x1 + 1):
                    dx = x - px
                    w = 1.0 - sqrt(dx * dx + dy * dy) * inv_r
                    if w > 0.0:
                        i = (y + 1) * wp + x + 1
                        density[i] += w
                        vx[i] += w * velocities[j, 0]
                        vy[i] += w * velocities[j, 1]
        for i in range(size):
            if density[i] > 0.0:
                vx[i] /= density[i]
                vy[i] /= density[i]


def speed_and_cost(const uint8_t[::1] walls, const double[::1] density,
                   const double[::1] vx, const double[::1] vy, int width, int height,
                   int offset, double rho_min, double rho_max, double alpha, double beta,
                   double min_speed, double[:, ::1] speed, double[:, ::1] cost):
    """The anisotropic speed and cost maps (``(cells, 4)``): for leaving a cell in
    direction d, the density and velocity ``offset`` cells that way give the flow speed
    1 + clamp((rho - rho_min) / (rho_max - rho_min)) * (clamp(v . n_d) - 1), at least
    ``min_speed``, and the cost alpha + beta / speed; a step into a wall costs inf."""
    cdef int wp = width + 2, x, y, d, j, k, tx, ty
    cdef int step_x[4]
    cdef int step_y[4]
    step_x[:] = [1, -1, 0, 0]
    step_y[:] = [0, 0, 1, -1]
    cdef double s, flow, inv_span = 1.0 / (rho_max - rho_min)
    cdef double* sp
    cdef double* co
    with nogil:
        for y in range(height):
            for x in range(width):
                k = (y + 1) * wp + x + 1
                sp = &speed[k, 0]
                co = &cost[k, 0]
                for d in range(4):
                    if walls[k] or walls[k + step_y[d] * wp + step_x[d]]:
                        sp[d] = 0.0
                        co[d] = INFINITY
                        continue
                    tx = x + offset * step_x[d]
                    ty = y + offset * step_y[d]
                    tx = 0 if tx < 0 else (width - 1 if tx > width - 1 else tx)
                    ty = 0 if ty < 0 else (height - 1 if ty > height - 1 else ty)
                    j = (ty + 1) * wp + tx + 1
                    if density[j] <= rho_min:
                        s = 1.0
                    else:
                        flow = clamp01(vx[j] * step_x[d] + vy[j] * step_y[d])
                        s = 1.0 + clamp01((density[j] - rho_min) * inv_span) * (flow - 1.0)
                        if s < min_speed:
                            s = min_speed
                    sp[d] = s
                    co[d] = alpha + beta / s


cdef struct Entry:
    # A narrow cell's best entry per axis: neighbour potential and step cost.
    double px, cx, py, cy


cdef inline double solve(const Entry* e) noexcept nogil:
    """The potential from the best entries: the anisotropic quadratic when both axes have
    one and its root is upwind of both, else the cheaper single axis."""
    cdef double a, b, c, det, root, hi, ix2, iy2
    cdef double px = e.px, cx = e.cx, py = e.py, cy = e.cy
    if px + cx == INFINITY:
        return py + cy
    if py + cy == INFINITY:
        return px + cx
    ix2 = 1.0 / (cx * cx)
    iy2 = 1.0 / (cy * cy)
    a = ix2 + iy2
    b = -2.0 * (px * ix2 + py * iy2)
    c = px * px * ix2 + py * py * iy2 - 1.0
    det = b * b - 4.0 * a * c
    hi = px if px > py else py
    if det >= 0.0:
        root = (-b + sqrt(det)) / (2.0 * a)
        if root >= hi:
            return root
    return px + cx if px + cx < py + cy else py + cy


def potential(const double[:, ::1] cost, double[::1] P, uint8_t[::1] flag, int width):
    """Fast marching of the potential from the cells with ``flag`` FROZEN (their P given;
    walls and the border are flagged WALL); P is inf where unreachable.  Each narrow cell
    keeps its best entry per axis, updated as its neighbours freeze, so a new value needs
    no look at the other neighbours.  Returns the number of cells frozen."""
    cdef Py_ssize_t size = P.shape[0], k
    cdef int wp = width + 2, u, n, d
    cdef int nb[4]
    nb[:] = [1, -1, wp, -wp]
    # Entering n from the neighbour at n + nb[d] uses n's cost that way: d itself.
    cdef Heap heap
    cdef HeapItem top
    cdef double* p = &P[0]
    cdef uint8_t* fl = &flag[0]
    cdef const double* c4 = &cost[0, 0]
    cdef int32_t* pos = <int32_t*> malloc(size * sizeof(int32_t))
    cdef Entry* entry = <Entry*> malloc(size * sizeof(Entry))
    cdef long frozen = 0
    cdef int status = 0
    if pos == NULL or entry == NULL or heap_init(&heap, 4096) != 0:
        free(pos)
        free(entry)
        raise MemoryError("cannot allocate the narrow band")
    with nogil:
        for k in range(size):
            if fl[k] == FROZEN:
                for d in range(4):
                    n = <int> k + nb[d]
                    if fl[n] <= NARROW and enter(p, fl, c4, entry, &heap, pos, n, d ^ 1,
                                                 p[k]) != 0:
                        status = -1
        while status == 0 and heap.size > 0:
            top = heap_pop(&heap, pos)
            u = top.node
            fl[u] = FROZEN
            frozen += 1
            for d in range(4):
                n = u + nb[d]
                # From n, u lies the opposite way: d ^ 1 (0 <-> 1, 2 <-> 3).
                if fl[n] <= NARROW and enter(p, fl, c4, entry, &heap, pos, n, d ^ 1,
                                             p[u]) != 0:
                    status = -1
        for k in range(size):
            if fl[k] != FROZEN:
                p[k] = INFINITY
    free(pos)
    free(entry)
    heap_free(&heap)
    if status < 0:
        raise MemoryError("the narrow band could not grow")
    return frozen


cdef inline int enter(double* p, uint8_t* fl, const double* c4, Entry* entry, Heap* heap,
                      int32_t* pos, int n, int d, double pu) noexcept nogil:
    """A neighbour of cell n, the way d from it, froze at potential pu: keep it as n's
    entry on that axis if it is the cheaper one, and lower n's value if it drops."""
    cdef Entry* e = &entry[n]
    cdef double c = c4[4 * n + d], value
    if c == INFINITY:
        return 0
    if fl[n] == FAR:
        e.px = INFINITY
        e.cx = INFINITY
        e.py = INFINITY
        e.cy = INFINITY
        p[n] = INFINITY
    if d < 2:
        if not pu + c < e.px + e.cx:
            return 0
        e.px = pu
        e.cx = c
    else:
        if not pu + c < e.py + e.cy:
            return 0
        e.py = pu
        e.cy = c
    value = solve(e)
    if not value < p[n]:
        if fl[n] == FAR:
            fl[n] = NARROW
            p[n] = value
            return heap_push(heap, pos, value, 0.0, n)
        return 0
    p[n] = value
    if fl[n] == NARROW:
        heap_decrease(heap, pos, n, value, 0.0)
        return 0
    fl[n] = NARROW
    return heap_push(heap, pos, value, 0.0, n)


def vectors(const double[::1] P, const double[:, ::1] speed, int width, int height,
            double[:, :, ::1] out):
    """The velocity field: the unit negative gradient of P (central differences, one-sided
    beside walls) times the flow speed in the direction it points along each axis."""
    cdef int wp = width + 2, x, y, k
    cdef double here, lo, hi, gx, gy, norm
    with nogil:
        for y in range(height):
            for x in range(width):
                k = (y + 1) * wp + x + 1
                here = P[k]
                if here == INFINITY:
                    out[y, x, 0] = 0.0
                    out[y, x, 1] = 0.0
                    continue
                lo = P[k - 1] if P[k - 1] < INFINITY else here
                hi = P[k + 1] if P[k + 1] < INFINITY else here
                gx = lo - hi
                lo = P[k - wp] if P[k - wp] < INFINITY else here
                hi = P[k + wp] if P[k + wp] < INFINITY else here
                gy = lo - hi
                norm = sqrt(gx * gx + gy * gy)
                if norm == 0.0:
                    out[y, x, 0] = 0.0
                    out[y, x, 1] = 0.0
                    continue
                out[y, x, 0] = gx / norm * (speed[k, 0] if gx > 0 else speed[k, 1])
                out[y, x, 1] = gy / norm * (speed[k, 2] if gy > 0 else speed[k, 3])
