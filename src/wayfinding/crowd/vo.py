"""Velocity obstacles (VO) and reciprocal velocity obstacles (RVO; van den Berg, Lin and
Manocha 2008), chosen by scoring a deterministic set of candidate velocities.

For agent i and neighbour j (relative position ``p = x_j - x_i``, combined radius ``R``) a
candidate velocity ``c`` is taken to give the pair the relative velocity ``u = (v_i - v_j)
+ (c - v_i) / weight``: ``weight`` is i's share of the avoidance, the neighbour making the
rest of the change.  ``weight`` 1 is the VO (the neighbour keeps its velocity); 0.5 is the
RVO (the cone's apex at ``(v_i + v_j) / 2``: ``2c - v_i - v_j`` must avoid the VO).  The
candidate's time to collision with j is the first time the discs would touch under ``u``
(inf if never or only after ``time_horizon``; for a pair already overlapping: 0 while
``u`` closes them, inf once it does not).  ``tc(c)`` is the earliest over the neighbours.

The rule: a candidate is *free* when ``tc(c)`` is inf.  When any is free the agent takes
the free candidate nearest its preferred velocity; otherwise the one of least penalty
``safety / tc(c) + |c - preferred|`` (tc floored at 1e-9 s).  Ties go to the first in
the candidate order: the preferred velocity (clamped to the top speed), the current
velocity (clamped), then per neighbour (nearest first) the preferred velocity projected
onto the cone's left leg, its right leg and its cut-off circle (for an overlapping pair,
onto the separating half-plane), each nudged just outside, then the polar grid: the
zero velocity and ``rings`` speeds up to the top speed in ``spokes`` directions starting
at the preferred direction.  Every candidate lies within the agent's top-speed disc.
No sampling noise: the same state gives the same velocities.

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a = crowd.add((-5.0, 0.0), goal=(5.0, 0.0), radius=0.5, max_speed=1.0)
>>> b = crowd.add((5.0, 0.2), goal=(-5.0, 0.2), radius=0.5, max_speed=1.0)   # nearly head on
>>> rvo, closest = VelocityObstacles.rvo(), 10.0
>>> for _ in range(150):
...     rvo.step(crowd, 0.1)
...     closest = min(closest, float(np.hypot(*(crowd.position[0] - crowd.position[1]))))
>>> closest >= 1.0, crowd.position_of(a).round(2).tolist()     # passed, arrived
(True, [5.0, 0.0])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._validate import allocation, count, positive_float, reals
from ..errors import InvalidQueryError
from .agents import Crowd
from .powerlaw import _time_to_collision

_NUDGE = 1e-6          # relative push of a projected candidate out of its cone


class VelocityObstacles:
    """VO / RVO collision avoidance by candidate velocities (see the module for the rule).

    ``weight`` in (0, 1]: each agent's share of the avoidance of a pair (1: VO, 0.5: RVO,
    the default; lower settles more slowly, higher overshoots and oscillates).
    ``time_horizon`` (s, default 5): collisions predicted later are ignored.  ``safety``
    (m, default 1): the penalty weight of an imminent collision when no candidate is free.
    ``rings`` and ``spokes`` (default 5 and 16): the polar grid of sampled velocities.
    ``neighbour_dist`` and ``max_neighbours``: the agents each agent considers (the
    nearest within that distance; ``None`` takes the crowd's).  Work per step is about
    ``agents * (3 + 3 max_neighbours + rings * spokes) * max_neighbours``.
    """

    def __init__(self, *, weight: float = 0.5, time_horizon: float = 5.0, safety: float = 1.0,
                 rings: int = 5, spokes: int = 16, neighbour_dist: float | None = None,
                 max_neighbours: int | None = None):
        self.weight = positive_float("weight", weight)
        if self.weight > 1:
            raise InvalidQueryError(f"weight {weight!r} must be in (0, 1]")
        self.time_horizon = positive_float("time_horizon", time_horizon)
        self.safety = positive_float("safety", safety)
        self.rings, self.spokes = count("rings", rings), count("spokes", spokes)
        allocation(f"{self.rings} rings x {self.spokes} spokes of candidate velocities",
                   self.rings * self.spokes)
        self.neighbour_dist = None if neighbour_dist is None \
            else positive_float("neighbour_dist", neighbour_dist)
        self.max_neighbours = None if max_neighbours is None \
            else count("max_neighbours", max_neighbours)

    @classmethod
    def vo(cls, **options: Any) -> VelocityObstacles:
        """Plain velocity obstacles: ``weight`` 1, each agent dodges all the way."""
        return cls(weight=1.0, **options)

    @classmethod
    def rvo(cls, **options: Any) -> VelocityObstacles:
        """Reciprocal velocity obstacles: ``weight`` 0.5, each agent takes half."""
        return cls(weight=0.5, **options)

    def __repr__(self) -> str:
        return (f"VelocityObstacles(weight={self.weight:g}, time_horizon={self.time_horizon:g},"
                f" safety={self.safety:g}, rings={self.rings}, spokes={self.spokes})")

    def _pairs(self, crowd: Crowd) -> tuple:
        """Per agent and neighbour slot: valid mask, p, v_i - v_j, R (``(n, k)``...)."""
        return crowd.pairs(distance=self.neighbour_dist, max_neighbours=self.max_neighbours)

    @positional_options("preferred")
    def candidates(self, crowd: Crowd, dt: float, *, preferred: ArrayLike | None = None
                   ) -> np.ndarray:
        """Every agent's candidate velocities, ``(n, m, 2)`` with ``m = 3 + 3 k + rings *
        spokes`` (``k`` the neighbour count cap), in the documented order; NaN for the
        projections onto absent neighbours.  Arguments as :meth:`velocities`."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        pref = crowd.velocities(preferred, positive_float("dt", dt))
        return self._candidates(crowd, pref, self._pairs(crowd))

    def _candidates(self, crowd: Crowd, preferred: np.ndarray, pairs: tuple) -> np.ndarray:
        ok, p, rel, big_r = pairs
        n, w, h = len(crowd), self.weight, self.time_horizon
        vmax, v = crowd.max_speed, crowd.velocity
        # The preferred velocity in each pair's relative-velocity space.
        u_pref = rel + (preferred[:, None, :] - v[:, None, :]) / w
        dist2 = (p * p).sum(-1)
        inside = dist2 <= big_r * big_r
        # Overlapping pairs at subnormal distances overflow here; their legs are masked.
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            leg = np.sqrt(np.maximum(dist2 - big_r * big_r, 0.0))
            px, py = p[..., 0], p[..., 1]
            left = np.stack([px * leg - py * big_r, px * big_r + py * leg], -1) / dist2[..., None]
            right = np.stack([px * leg + py * big_r, -px * big_r + py * leg], -1) \
                / dist2[..., None]
            out_left = np.stack([-left[..., 1], left[..., 0]], -1)
            out_right = np.stack([right[..., 1], -right[..., 0]], -1)
            along_l = np.maximum((u_pref * left).sum(-1), 0.0)[..., None]
            along_r = np.maximum((u_pref * right).sum(-1), 0.0)[..., None]
            on_left = along_l * (left + _NUDGE * out_left)
            on_right = along_r * (right + _NUDGE * out_right)
            # The cut-off circle: centre p / h, radius R / h.
            centre = p / h
            off = u_pref - centre
            size = np.sqrt((off * off).sum(-1))
            away = np.where((size > 0)[..., None], off / np.where(size > 0, size, 1.0)[..., None],
                            -p / np.sqrt(np.maximum(dist2, 1e-300))[..., None])
            on_cut = centre + away * (big_r / h * (1 + _NUDGE))[..., None]
            # Overlapping: the preferred velocity with its closing part along p removed.
            unit = p / np.sqrt(np.where(dist2 > 0, dist2, 1.0))[..., None]
            unit = np.where((dist2 > 0)[..., None], unit, np.array([1.0, 0.0]))
            closing = np.maximum((u_pref * unit).sum(-1), 0.0)
            scale = np.maximum(np.sqrt((u_pref * u_pref).sum(-1)), 1.0) * _NUDGE
            apart = u_pref - (closing + scale)[..., None] * unit
        on_left = np.where((ok & ~inside)[..., None], on_left, np.nan)
        on_right = np.where((ok & ~inside)[..., None], on_right, np.nan)
        third = np.where(inside[..., None], apart, on_cut)
        third = np.where(ok[..., None], third, np.nan)
        projected = np.stack([on_left, on_right, third], 2)             # (n, k, 3, 2)
        # Back from relative-velocity space: c = v_i + w (u - (v_i - v_j)).
        projected = v[:, None, None, :] + w * (projected - rel[:, :, None, :])
        projected = projected.reshape(n, -1, 2)
        heading = np.arctan2(preferred[:, 1], preferred[:, 0])
        angle = heading[:, None] + 2 * math.pi * np.arange(self.spokes) / self.spokes
        speeds = np.arange(1, self.rings + 1) / self.rings
        grid = (speeds[None, :, None, None] * vmax[:, None, None, None]
                * np.stack([np.cos(angle), np.sin(angle)], -1)[:, None, :, :])
        grid = grid.reshape(n, -1, 2)
        both = np.concatenate([preferred[:, None], v[:, None], projected, np.zeros((n, 1, 2)),
                               grid], 1)
        speed = np.hypot(both[..., 0], both[..., 1])     # no overflow for huge ones
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            fast = speed > vmax[:, None]
            both = np.where(fast[..., None], both * (vmax[:, None] / speed)[..., None], both)
        return both

    def _collision_times(self, c: np.ndarray, pairs: tuple, velocity: np.ndarray
                         ) -> np.ndarray:
        """The earliest time to collision (s) of each candidate ``c`` (``(n, m, 2)``) over
        the neighbours, ``(n, m)``: inf when free within the time horizon."""
        ok, p, rel, big_r = pairs
        u = rel[:, None] + (c[:, :, None, :] - velocity[:, None, None, :]) / self.weight
        pp, rr = p[:, None], big_r[:, None]
        tau = _time_to_collision(pp, u, rr)
        inside = (pp * pp).sum(-1) <= rr * rr
        top = np.abs(u).max(-1, keepdims=True)      # u in units of its largest: the sign of
        closing = ((u / np.where(top > 0, top, 1.0)) * pp).sum(-1) > 0   # u.pp, no overflow
        tau = np.where(inside, np.where(closing, 0.0, np.inf), tau)
        tau = np.where(ok[:, None] & (tau <= self.time_horizon), tau, np.inf)
        return tau.min(-1, initial=np.inf)

    def forbids(self, crowd: Crowd, dt: float, candidates: np.ndarray) -> np.ndarray:
        """The velocity obstacles as a restriction (see
        :class:`~wayfinding.crowd.Locomotion`): which of the candidate velocities
        ``(n, c, 2)`` are not free, ``(n, c)`` booleans.  A NaN candidate (as
        :meth:`candidates` gives for absent neighbours) is no velocity: forbidden."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        positive_float("dt", dt)
        n = len(crowd)
        try:
            c = reals("candidates", candidates)
        except InvalidQueryError:
            c = np.empty(0)
        if c.ndim != 3 or len(c) != n or c.shape[2] != 2 or np.isinf(c).any():
            raise InvalidQueryError(f"candidates must be an ({n}, c, 2) array of finite "
                                    "numbers or NaN")
        absent = np.isnan(c).any(-1)
        if n < 2:
            return absent
        times = self._collision_times(np.where(absent[..., None], 0.0, c), self._pairs(crowd),
                                      crowd.velocity)
        return np.isfinite(times) | absent

    @positional_options("preferred")
    def velocities(self, crowd: Crowd, dt: float, *, preferred: ArrayLike | None = None
                   ) -> np.ndarray:
        """Every agent's new velocity (``(n, 2)``) for a step of ``dt`` seconds, from the
        state at its start; ``preferred`` defaults to :meth:`Crowd.preferred_velocity`."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        dt = positive_float("dt", dt)
        pref = crowd.velocities(preferred, dt)
        n = len(crowd)
        if n < 2:
            speed = np.hypot(pref[:, 0], pref[:, 1])
            fast = speed > crowd.max_speed
            pref[fast] *= (crowd.max_speed[fast] / speed[fast])[:, None]
            return pref
        pairs = self._pairs(crowd)
        c = self._candidates(crowd, pref, pairs)
        valid = np.isfinite(c).all(-1)
        c = np.where(valid[..., None], c, 0.0)
        tc = self._collision_times(c, pairs, crowd.velocity)
        miss = np.hypot(c[..., 0] - pref[:, None, 0], c[..., 1] - pref[:, None, 1])
        free = valid & np.isinf(tc)
        penalty = np.where(free, miss, self.safety / np.maximum(tc, 1e-9) + miss)
        penalty = np.where(valid, penalty, np.inf)
        # Free candidates first: lift every other one above all free ones.
        any_free = free.any(1, keepdims=True)
        penalty = np.where(any_free & ~free, np.inf, penalty)
        best = np.argmin(penalty, axis=1)
        return c[np.arange(n), best].copy()

    @positional_options("preferred")
    def step(self, crowd: Crowd, dt: float, *, preferred: ArrayLike | None = None) -> None:
        """Advance the crowd by ``dt`` with these velocities (see :meth:`Crowd.step` for
        the agents' acceleration limits)."""
        crowd.step(dt, velocity=self.velocities(crowd, dt, preferred=preferred))
