"""Optimal reciprocal collision avoidance between agents (ORCA; van den Berg, Guy, Lin and
Manocha), with the semantics of RVO2: each agent takes half of the velocity change that
keeps it clear of each of its nearest neighbours for ``time_horizon`` seconds (one time
step for neighbours it already overlaps), then the velocity nearest its preferred one that
the half-planes allow within its top speed, or, when they allow none, the one that
violates the worst of them least.  The solver runs in ``_kernels/_orca.pyx``; agents come
from a :class:`~wayfinding.crowd.Crowd`.

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a = crowd.add((-5.0, 0.0), goal=(5.0, 0.0), radius=0.5, max_speed=1.0)
>>> b = crowd.add((5.0, 0.2), goal=(-5.0, 0.2), radius=0.5, max_speed=1.0)   # nearly head on
>>> orca = ORCA(time_horizon=5.0)
>>> closest = 10.0
>>> for _ in range(200):
...     orca.step(crowd, 0.1)
...     closest = min(closest, float(np.hypot(*(crowd.position[0] - crowd.position[1]))))
>>> closest >= 1.0 - 1e-6, crowd.position_of(a).round(2).tolist()     # passed, arrived
(True, [5.0, 0.0])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._kernels import _orca
from ..errors import InvalidQueryError
from .agents import Crowd


class ORCA:
    """ORCA among a crowd's agents.  ``time_horizon`` (s): how long a chosen velocity must
    stay clear of other agents; ``neighbour_dist`` and ``max_neighbours``: the neighbours
    each agent considers (the nearest within that distance); ``None`` takes the crowd's."""

    def __init__(self, *, time_horizon: float = 10.0, neighbour_dist: float | None = None,
                 max_neighbours: int | None = None):
        if isinstance(time_horizon, bool) or not isinstance(time_horizon, (int, float)) \
                or not math.isfinite(time_horizon) or time_horizon <= 0:
            raise InvalidQueryError(f"time_horizon {time_horizon!r} must be a number > 0")
        self.time_horizon = float(time_horizon)
        self.neighbour_dist = neighbour_dist
        self.max_neighbours = max_neighbours

    def velocities(self, crowd: Crowd, dt: float, preferred: Any = None) -> np.ndarray:
        """Every agent's new velocity (``(n, 2)``) for a step of ``dt`` seconds, from the
        state at its start; ``preferred`` defaults to :meth:`Crowd.preferred_velocity`."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        if isinstance(dt, bool) or not isinstance(dt, (int, float)) or not math.isfinite(dt) \
                or dt <= 0:
            raise InvalidQueryError(f"dt {dt!r} must be a number > 0")
        n = len(crowd)
        try:
            pref = crowd.preferred_velocity(dt) if preferred is None else \
                np.array(preferred, dtype=np.float64)
        except (TypeError, ValueError):
            pref = np.empty(0)
        if pref.shape != (n, 2) or not np.isfinite(pref).all():
            raise InvalidQueryError(f"preferred must be a finite ({n}, 2) array")
        rows, counts = crowd.neighbours(self.neighbour_dist, self.max_neighbours)
        out = np.empty((n, 2))
        _orca.velocities(np.ascontiguousarray(crowd.position),
                         np.ascontiguousarray(crowd.velocity), np.ascontiguousarray(pref),
                         np.ascontiguousarray(crowd.radius),
                         np.ascontiguousarray(crowd.max_speed), rows, counts,
                         self.time_horizon, float(dt), out)
        return out

    def step(self, crowd: Crowd, dt: float, preferred: Any = None) -> None:
        """Advance the crowd by ``dt`` with ORCA's velocities (see :meth:`Crowd.step` for
        the agents' acceleration limits; RVO2 has none)."""
        crowd.step(dt, velocity=self.velocities(crowd, dt, preferred))
