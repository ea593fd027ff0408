# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Continuum-crowd density and speed fields (Treuille et al.) on a grid flattened with a
one-cell wall border, row width ``width + 2``: the crowd splatted onto the cells, and the
anisotropic speed and cost maps it gives.

Directions are indexed 0: +x, 1: -x, 2: +y, 3: -y.  The flow speed for leaving a cell in
direction d, in (0, 1], comes from the crowd's density and velocity ``offset`` cells that way;
the step costs alpha + beta / speed (inf into a wall).  The potential over these costs is
solved by ``_continuum_potential``.
"""

from libc.math cimport INFINITY
from libc.stdint cimport uint8_t

from ._continuum_cells cimport Cell, Model, ahead, flow_speed, make_model, splat_into


def splat(const double[:, ::1] positions, const double[:, ::1] velocities, double radius,
          int width, int height, double[::1] density, double[::1] vx, double[::1] vy):
    """Add each unit's density 1 - distance / radius (clamped at 0) to the cells around it
    and its velocity times that weight to (vx, vy); then divide the sums by the density.
    Positions are in cells (cell (x, y)'s centre at (x, y)); arrays are padded flat."""
    with nogil:
        splat_into(positions, velocities, radius, width, height, &density[0], &vx[0], &vy[0],
                   1, 0, height, True)


def speed_and_cost(const double[:, ::1] cells, const uint8_t[::1] walls, int width,
                   int height, int offset, double rho_min, double rho_max, double alpha,
                   double beta, double min_speed, double[:, ::1] speed, double[:, ::1] cost):
    """The anisotropic speed and cost maps (``(cells, 4)``) after an update: for
    leaving a cell in direction d, the density and velocity ``offset`` cells that way give
    the flow speed 1 + clamp((rho - rho_min) / (rho_max - rho_min)) * (clamp(v . n_d) - 1),
    at least ``min_speed``, and the cost alpha + beta / speed; 0 and inf into a wall."""
    cdef Model m = make_model(width, height, offset, rho_min, rho_max, alpha, beta, min_speed)
    cdef const Cell* cs = <const Cell*> &cells[0, 0]
    cdef int x, y, k, d
    cdef double s
    with nogil:
        for y in range(height):
            for x in range(width):
                k = (y + 1) * (width + 2) + x + 1
                for d in range(4):
                    if walls[k] or walls[k + m.nb[d]]:
                        speed[k, d] = 0.0
                        cost[k, d] = INFINITY
                        continue
                    s = flow_speed(&m, &cs[ahead(&m, k, d)], d)
                    speed[k, d] = s
                    cost[k, d] = alpha + beta / s
