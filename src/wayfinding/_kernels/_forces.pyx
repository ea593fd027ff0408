# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Pair forces of the time-to-collision models, for arrays of pairs and summed over each
agent's neighbours.

A pair: the neighbour at ``w`` relative to the agent, the agent's velocity ``v`` relative to
the neighbour's, their summed radius ``r``.  tau is the first time > 0 with |w - v tau| = r
(none when the discs never touch, only graze, or move together; a relative speed below
1e-6 counts as moving together, below 1e-6 of the largest of w, v and r for a pair with one
of them beyond 1e75, which is worked out in units of it).

* ``POWER_LAW`` (Karamouzas, Skinner and Guy 2014; parameters k, m, tau0, max_force): r is
  cut to 0.99 of the distance of an overlapping pair; the force is minus the gradient of
  E(tau) = k tau^-m exp(-tau / tau0) with respect to the agent's position, at most
  ``max_force`` long.
* ``ANTICIPATORY`` (Guy and Karamouzas's force model; parameters horizon, max_force):
  tau is 0 for an overlapping pair; within the horizon the force points from the
  neighbour's predicted centre to the agent's at tau (``v tau - w``; none when they
  coincide), of size min((horizon - tau) / tau, max_force).
"""

from libc.math cimport INFINITY, exp, fabs, fmax, frexp, hypot, ldexp, pow, sqrt
from libc.stdint cimport int32_t

#: Pairs with a coordinate, velocity or radius beyond this are worked out in units of the
#: largest (tau does not change with the units), so that no square overflows.
cdef double HUGE = 1e75


cpdef enum:
    POWER_LAW = 0
    ANTICIPATORY = 1


cdef struct Law:
    int kind
    double k, m, tau0, max_force        # the anticipatory model reads tau0 as its horizon


cdef inline double units(double wx, double wy, double vx, double vy, double r) noexcept nogil:
    """1, or for a pair with a value beyond HUGE the power of two that brings the largest
    below 1 (dividing by it is exact)."""
    cdef double big = fmax(fmax(fabs(wx), fabs(wy)), fmax(fmax(fabs(vx), fabs(vy)), r))
    cdef int e
    if not HUGE < big < INFINITY:
        return 1.0
    frexp(big, &e)
    return ldexp(1.0, e)


cdef inline void pair_force(double wx, double wy, double vx, double vy, double r,
                            const Law* law, double* fx, double* fy) noexcept nogil:
    cdef double u = units(wx, wy, vx, vy, r)
    if u != 1.0:
        wx /= u
        wy /= u
        vx /= u
        vy /= u
        r /= u
    if law.kind == ANTICIPATORY:
        anticipatory(wx, wy, vx, vy, r, law, fx, fy)
    else:
        power_law(wx, wy, vx, vy, r, u, law, fx, fy)


cdef inline void anticipatory(double wx, double wy, double vx, double vy, double r,
                              const Law* law, double* fx, double* fy) noexcept nogil:
    cdef double h = law.tau0, a, b, c, disc, tau, dx, dy, size, push
    fx[0] = 0.0
    fy[0] = 0.0
    c = wx * wx + wy * wy - r * r
    if c < 0.0:
        tau = 0.0
    else:
        a = vx * vx + vy * vy
        b = wx * vx + wy * vy
        disc = b * b - a * c
        if not (disc > 0.0 and a > 1e-12):
            return
        tau = (b - sqrt(disc)) / a
        if not tau > 0.0:
            return
    if not tau <= h:
        return
    dx = vx * tau - wx
    dy = vy * tau - wy
    size = hypot(dx, dy)                # no underflow for tiny offsets
    if not size > 0.0:
        return
    push = law.max_force if tau <= h / (law.max_force + 1.0) else (h - tau) / tau
    fx[0] = dx * push / size
    fy[0] = dy * push / size


cdef inline void power_law(double wx, double wy, double vx, double vy, double r, double u,
                           const Law* law, double* fx, double* fy) noexcept nogil:
    """The force of a pair given in units of ``u`` world units (its gradient per world
    unit: 1 / u of that per unit of u)."""
    cdef double dist = hypot(wx, wy), a, b, c, disc, root, tau, scale, size, gx, gy
    fx[0] = 0.0
    fy[0] = 0.0
    if r > 0.99 * dist:
        r = 0.99 * dist
    a = vx * vx + vy * vy
    b = wx * vx + wy * vy
    c = wx * wx + wy * wy - r * r
    disc = b * b - a * c
    if not (disc > 0.0 and a > 1e-12):
        return
    root = sqrt(disc)
    tau = (b - root) / a
    if not tau > 0.0:
        return
    scale = law.k * exp(-tau / law.tau0) * pow(tau, -law.m) \
        * (law.m / tau + 1.0 / law.tau0) / a / u
    # The force is -scale * g / root with g = v root - (b v - a w); its direction is taken
    # from g alone, so that a scale or a 1 / root that overflows (tau next to 0) still
    # gives the capped force along it.
    gx = vx * root - (b * vx - a * wx)
    gy = vy * root - (b * vy - a * wy)
    size = hypot(gx, gy)
    if not size > 0.0:
        return
    if scale * (size / root) > law.max_force:
        fx[0] = -gx / size * law.max_force
        fy[0] = -gy / size * law.max_force
    else:
        fx[0] = -scale * (gx / root)
        fy[0] = -scale * (gy / root)


def pairs(int kind, const double[:, ::1] w, const double[:, ::1] v, const double[::1] r,
          double k, double m, double tau0, double max_force, double[:, ::1] out):
    """The force (model ``kind``) of every pair ``i`` (``w[i]``, ``v[i]``, ``r[i]``) into
    ``out[i]``."""
    cdef Law law = Law(kind, k, m, tau0, max_force)
    cdef Py_ssize_t i
    with nogil:
        for i in range(w.shape[0]):
            pair_force(w[i, 0], w[i, 1], v[i, 0], v[i, 1], r[i], &law, &out[i, 0],
                       &out[i, 1])


def neighbours(int kind, const double[:, ::1] position, const double[:, ::1] velocity,
               const double[::1] radius, const int32_t[:, ::1] rows,
               const int32_t[::1] counts, double k, double m, double tau0,
               double max_force, double[:, ::1] out):
    """Add to ``out[i]`` the forces (model ``kind``) on agent i of its neighbours
    ``rows[i, :counts[i]]``."""
    cdef Law law = Law(kind, k, m, tau0, max_force)
    cdef Py_ssize_t i
    cdef int s
    cdef int32_t j
    cdef double fx, fy
    with nogil:
        for i in range(position.shape[0]):
            for s in range(counts[i]):
                j = rows[i, s]
                pair_force(position[j, 0] - position[i, 0], position[j, 1] - position[i, 1],
                           velocity[i, 0] - velocity[j, 0], velocity[i, 1] - velocity[j, 1],
                           radius[i] + radius[j], &law, &fx, &fy)
                out[i, 0] += fx
                out[i, 1] += fy
