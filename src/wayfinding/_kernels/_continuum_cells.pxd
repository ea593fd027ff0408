# The continuum grid's cell records and the model that turns the crowd on them into flow
# speeds and step costs, shared by the density and speed fields (_continuum_fields) and the
# potential update (_continuum_potential).  Grids are flattened with a one-cell wall border,
# row width ``width + 2``; directions are indexed 0: +x, 1: -x, 2: +y, 3: -y.
from libc.math cimport ceil, floor, sqrt


cdef struct Cell:
    # One cell's state, 64 bytes: the potential, its best entry per axis (neighbour potential
    # and step cost; inf while it has none), and the crowd's density and density-weighted
    # velocity sum (divided by the density only where a speed needs it).  A cell is far
    # while its potential is inf, queued while it is finite and its entries are not closed;
    # closed cells (frozen, and walls) have entries -inf + 0, which no neighbour can
    # improve on.
    double p, px, cx, py, cy, rho, vx, vy


cdef struct Model:
    double rho_min, inv_span, alpha, beta, min_speed
    int offset, width, height
    int nb[4]          # flat offsets of the directions +x, -x, +y, -y
    double sign[4]     # their signs along their axis


cdef inline Model make_model(int width, int height, int offset, double rho_min, double rho_max,
                             double alpha, double beta, double min_speed) noexcept nogil:
    cdef Model m
    m.rho_min = rho_min
    m.inv_span = 1.0 / (rho_max - rho_min)
    m.alpha = alpha
    m.beta = beta
    m.min_speed = min_speed
    m.offset = offset
    m.width = width
    m.height = height
    m.nb[0] = 1
    m.nb[1] = -1
    m.nb[2] = width + 2
    m.nb[3] = -(width + 2)
    m.sign[0] = 1.0
    m.sign[1] = -1.0
    m.sign[2] = 1.0
    m.sign[3] = -1.0
    return m


cdef inline int ahead(const Model* m, int n, int d) noexcept nogil:
    """The cell ``offset`` cells from n the way d, clamped to the grid."""
    cdef int wp = m.width + 2, x, y
    if m.offset == 1:
        return n + m.nb[d]  # callers only ask where that neighbour is not a wall
    x = n % wp - 1 + m.offset * ((d == 0) - (d == 1))
    y = n // wp - 1 + m.offset * ((d == 2) - (d == 3))
    x = 0 if x < 0 else (m.width - 1 if x > m.width - 1 else x)
    y = 0 if y < 0 else (m.height - 1 if y > m.height - 1 else y)
    return (y + 1) * wp + x + 1


cdef inline double flow_speed(const Model* m, const Cell* c, int d) noexcept nogil:
    """The speed of leaving a cell the way d when cell c lies ``offset`` cells that way:
    1 at density ``rho_min`` or below, else towards the crowd's mean velocity along d."""
    cdef double along, mix, s
    if c.rho <= m.rho_min:
        return 1.0
    along = (&c.vx)[d >> 1] * m.sign[d] / c.rho
    mix = (c.rho - m.rho_min) * m.inv_span
    mix = 0.0 if mix < 0.0 else (1.0 if mix > 1.0 else mix)
    along = 0.0 if along < 0.0 else (1.0 if along > 1.0 else along)
    s = 1.0 + mix * (along - 1.0)
    return m.min_speed if s < m.min_speed else s


cdef inline double step_cost(const Model* m, const Cell* c, int d) noexcept nogil:
    """alpha + beta / speed for leaving a cell the way d (c as in :func:`flow_speed`); the
    common case, speed 1, without a division (alpha + beta / 1 is alpha + beta)."""
    if c.rho <= m.rho_min:
        return m.alpha + m.beta
    return m.alpha + m.beta / flow_speed(m, c, d)

cdef inline double min_double(double a, double b) noexcept nogil:
    return a if a < b else b


cdef inline double clip(double v, double lo, double hi) noexcept nogil:
    return lo if v < lo else hi if v > hi else v


cdef inline void splat_into(const double[:, ::1] positions, const double[:, ::1] velocities,
                            double radius, int width, int height, double* density, double* vx,
                            double* vy, Py_ssize_t stride, int row_lo, int row_hi,
                            bint normalize) noexcept nogil:
    """:func:`splat` into arrays whose cell i sits at ``i * stride``, on the grid's rows
    ``row_lo`` to ``row_hi - 1`` only (units beside them spill in); without ``normalize``
    the velocities are left as weighted sums."""
    cdef Py_ssize_t j, n = positions.shape[0], i
    cdef int x, y, x0, x1, y0, y1
    cdef double px, py, w, dx, dy, inv_r = 1.0 / radius
    cdef int wp = width + 2
    for j in range(n):
        px = positions[j, 0]
        py = positions[j, 1]
        # The cells within the radius, clipped to the rows and columns in doubles (a far
        # unit or a huge radius is beyond any C int); the centre's own cell even when
        # p - radius rounds to p.
        if not (px + radius >= 0.0 and px - radius <= width - 1.0
                and py + radius >= row_lo and py - radius <= row_hi - 1.0):
            continue
        x0 = <int> clip(min_double(floor(px - radius) + 1.0, ceil(px)), 0.0, width - 1.0)
        x1 = <int> clip(floor(px + radius), 0.0, width - 1.0)
        y0 = <int> clip(min_double(floor(py - radius) + 1.0, ceil(py)), row_lo,
                        row_hi - 1.0)
        y1 = <int> clip(floor(py + radius), row_lo, row_hi - 1.0)
        for y in range(y0, y1 + 1):
            dy = y - py
            for x in range(x0, x1 + 1):
                dx = x - px
                w = 1.0 - sqrt(dx * dx + dy * dy) * inv_r
                if w > 0.0:
                    i = ((y + 1) * wp + x + 1) * stride
                    density[i] += w
                    vx[i] += w * velocities[j, 0]
                    vy[i] += w * velocities[j, 1]
    if not normalize:
        return
    for i in range((row_lo + 1) * wp, (row_hi + 1) * wp):   # padded rows of those rows
        if density[i * stride] > 0.0:
            vx[i * stride] /= density[i * stride]
            vy[i * stride] /= density[i * stride]
