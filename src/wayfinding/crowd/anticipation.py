"""Anticipatory collision avoidance by time-to-collision forces (Guy and Karamouzas's
force model).

Each agent feels a goal force ``k (preferred - velocity)`` and, from every neighbour it
would touch within the time horizon ``t_H`` if both went straight on, an avoidance force:
along the direction from the neighbour's predicted centre to its own at the time to
collision tau, of size ``(t_H - tau) / tau`` (strong when imminent, nothing at the
horizon), at most ``max_force``.  Agents that already overlap have tau = 0: the largest
force, along their current centre offset.  All forces come from the state at the start
of the step; then one explicit Euler step through :meth:`Crowd.step`.  (Overlap is handled
by that tau = 0 force, not by shrinking the radii.)  There is no noise: a pair exactly head
on, mirror images of each other, is pushed only along the line between them and brakes to
a stand-still; a little noise on the preferred velocities breaks the tie.

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a = crowd.add((-6.0, 0.0), goal=(6.0, 0.0), radius=0.5, max_speed=1.5)
>>> b = crowd.add((6.0, 0.1), goal=(-6.0, 0.1), radius=0.5, max_speed=1.5)
>>> model, closest = AnticipatoryForces(), 12.0
>>> for _ in range(800):
...     model.step(crowd, 0.02)
...     closest = min(closest, float(np.hypot(*(crowd.position[0] - crowd.position[1]))))
>>> closest > 1.0, bool(np.allclose(crowd.position_of(a), (6.0, 0.0), atol=0.05))
(True, True)
>>> float(model.magnitude(1.0)), float(model.magnitude(0.0))      # t_H 4 s, cap 20
(3.0, 20.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options, renamed_keywords, warn
from .._kernels import _forces
from .._validate import count, positive_float, reals
from ..errors import InvalidQueryError, brief
from .agents import Crowd
from .powerlaw import ForceModel, _pair_arrays, _time_to_collision


def collision_time(w: Any, v: Any, radius: Any) -> np.ndarray:
    """Time to collision tau (s) with overlap as 0: 0 where the discs already overlap
    (``|w| < radius``), else :func:`~wayfinding.crowd.time_to_collision` (the first
    contact going straight on; inf when they never touch, run parallel, diverge or only
    graze).  ``w``: the neighbour's position relative to this agent, ``v``: this agent's
    velocity relative to the neighbour; shapes that broadcast to ``(..., 2)``, ``(..., 2)``
    and ``(...)``, finite numbers, radius > 0 (else :class:`~wayfinding.errors.InvalidQueryError`
    naming the argument)."""
    shape, (w, v), r = _pair_arrays(w, v, radius)
    inside = np.hypot(w[:, 0], w[:, 1]) < r          # (no square to overflow)
    return np.where(inside, 0.0, _time_to_collision(w, v, r)).reshape(shape[:-1])


class AnticipatoryForces(ForceModel):
    """The time-to-collision force model.

    ``k`` (1/s, default 2): goal-force gain; too low is sluggish, too high overwhelms
    avoidance.  ``time_horizon`` t_H (s, default 4; 0.1 reacts too late, 20 over-avoids):
    collisions predicted later are ignored.  ``max_force`` (m/s^2 per neighbour, default
    20): the cap on each avoidance force.  ``neighbour_dist`` (m): neighbours within this
    centre-to-centre distance; ``None`` (default) takes, per agent i, ``t_H (|v_i| + max_j
    |v_j|) + r_i + max_j r_j`` from the current velocities, which holds every neighbour
    that could collide within t_H, so only ``max_neighbours`` (``None``: the crowd's)
    prunes, nearest first.
    """

    @renamed_keywords(sensing="neighbour_dist")
    def __init__(self, *, k: float = 2.0, time_horizon: float = 4.0, max_force: float = 20.0,
                 neighbour_dist: float | None = None, max_neighbours: int | None = None):
        self.k = positive_float("k", k)
        self.time_horizon = positive_float("time_horizon", time_horizon)
        self.max_force = positive_float("max_force", max_force)
        self.neighbour_dist = None if neighbour_dist is None \
            else positive_float("neighbour_dist", neighbour_dist)
        self.max_neighbours = None if max_neighbours is None \
            else count("max_neighbours", max_neighbours)

    def magnitude(self, tau: Any) -> np.ndarray:
        """The avoidance force's size at time to collision ``tau`` (s): ``min((t_H - tau) /
        tau, max_force)``, exactly (no ``+ 0.001`` in the denominator; tau = 0 gives the
        cap); 0 for tau beyond t_H (and inf)."""
        tau = reals("tau", tau)
        if np.isnan(tau).any() or (tau < 0).any():
            raise InvalidQueryError(f"tau {brief(tau)} must be >= 0 (inf allowed)")
        h = self.time_horizon
        # (h - tau) / tau >= max_force exactly when tau <= h / (max_force + 1)
        capped = tau <= h / (self.max_force + 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            free = (h - tau) / np.where(capped, 1.0, tau)
        return np.where(capped, self.max_force, np.where(tau < h, free, 0.0))

    def pair_forces(self, w: Any, v: Any, radius: Any) -> np.ndarray:
        """The avoidance force on an agent from a neighbour at relative position ``w``
        with relative velocity ``v`` (as :func:`collision_time`; ``(..., 2)``, radius
        ``(...)``): 0 unless 0 <= tau <= t_H; then :meth:`magnitude` along ``v tau - w``
        (the neighbour's predicted centre to the agent's, which is the current offset when
        overlapping), 0 for coincident centres.  Compiled (``_kernels/_forces.pyx``)."""
        shape, flat, r = _pair_arrays(w, v, radius)
        out = np.empty_like(flat[0])
        _forces.pairs(_forces.ANTICIPATORY, flat[0], flat[1], r, 0.0, 0.0,
                      self.time_horizon, self.max_force, out)
        return out.reshape(shape)

    @property
    def sensing(self) -> float | None:
        """Deprecated name of :attr:`neighbour_dist`."""
        warn("AnticipatoryForces.sensing", "AnticipatoryForces.neighbour_dist")
        return self.neighbour_dist

    def sensing_distance(self, crowd: Crowd) -> np.ndarray:
        """Each agent's neighbour search distance, ``(n,)`` (see the class)."""
        n = len(crowd)
        if self.neighbour_dist is not None:
            return np.full(n, self.neighbour_dist)
        speed = np.hypot(crowd.velocity[:, 0], crowd.velocity[:, 1])
        return self.time_horizon * (speed + speed.max(initial=0.0)) + crowd.radius \
            + crowd.radius.max(initial=0.0)

    @positional_options("preferred", "dt")
    def forces(self, crowd: Crowd, *, preferred: ArrayLike | None = None, dt: float = 0.02
               ) -> np.ndarray:
        """Every agent's total force (m/s^2), ``(n, 2)``: ``k (preferred - velocity)``
        (``preferred`` defaults to :meth:`Crowd.preferred_velocity` for ``dt``) plus the
        avoidance forces of its neighbours, all from the crowd's present state."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        pref = crowd.velocities(preferred, dt)
        total = self.k * (pref - crowd.velocity)
        if len(crowd) < 2:
            return total
        rows, counts = crowd.neighbours(distance=self.sensing_distance(crowd),
                                        max_neighbours=self.max_neighbours)
        _forces.neighbours(_forces.ANTICIPATORY, np.ascontiguousarray(crowd.position),
                           np.ascontiguousarray(crowd.velocity),
                           np.ascontiguousarray(crowd.radius), rows, counts, 0.0, 0.0,
                           self.time_horizon, self.max_force, total)
        return total
