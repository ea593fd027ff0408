"""Recording a crowd run and measuring it: completion, times to goal (t50, t90), collisions
and the deepest overlap, path-length ratio, energy and jitter.

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a = crowd.add((0.0, 0.0), goal=(4.0, 0.0), max_speed=1.0)
>>> run = record(crowd, lambda c, dt: c.step(dt), dt=0.5, seconds=10.0)
>>> run.completion, run.arrival_time(0.5), run.path_ratio()     # within its radius at 3.5 s
(1.0, 3.5, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._kernels import _neighbours
from .._validate import positive_float, time_steps
from ..results import Arrivals, _fields_equal
from .agents import Crowd

#: Metabolic energy per unit mass of walking at speed v for one second: E_S + E_W v^2
#: (J/kg/s; Whittle's constants, as used by Guy et al.'s PLEdestrians).
E_S, E_W = 2.23, 1.26


@dataclass
class Run(Arrivals):
    """A recorded run: ``positions`` ``(steps + 1, n, 2)`` (NaN once an agent has arrived
    and left), ``dt``, the agents' ``radius`` and ``goal``, and ``arrived`` (seconds, inf
    for agents that never got there)."""

    positions: np.ndarray
    dt: float
    radius: np.ndarray
    goal: np.ndarray
    arrived: np.ndarray

    __eq__ = _fields_equal

    @cached_property
    def _overlaps(self) -> tuple[int, float]:
        """Pair-steps with r_i + r_j - distance > 1e-9, and the largest r_i + r_j -
        distance (at least 0), over the agents present at each step.  Each step's pairs
        come from a neighbour query within r_i + the largest radius (every pair that
        overlaps), with room for more neighbours while some agent's list is full, so the
        memory grows with the agents, not with their pairs."""
        count, deepest = 0, 0.0
        top = float(self.radius.max(initial=0.0))
        k = 8
        for p in self.positions:
            live = np.flatnonzero(np.isfinite(p).all(axis=1))
            if len(live) < 2:
                continue
            q, r = np.ascontiguousarray(p[live]), self.radius[live]
            reach = (r + top) * (1 + 1e-9) + 1e-12
            while True:
                k = min(k, len(live) - 1)
                rows = np.empty((len(live), k), dtype=np.int32)
                held = _neighbours.nearest(q, reach, k, rows, np.empty((len(live), k)))
                if held.max() < k or k == len(live) - 1:
                    break
                k *= 2
            i, slot = np.nonzero(np.arange(k) < held[:, None])
            j = rows[i, slot]
            i, j = i[i < j], j[i < j]                     # each pair once, i < j
            gap = (r[i] + r[j]) - np.hypot(*(q[i] - q[j]).T)
            count += int((gap > 1e-9).sum())
            deepest = max(deepest, float(gap.max(initial=0.0)))
        return count, deepest

    def collisions(self) -> int:
        """Pair-steps in which two agents overlap."""
        return self._overlaps[0]

    def max_penetration(self) -> float:
        """The deepest overlap of any two agents (0 when none)."""
        return self._overlaps[1]

    def _steps(self) -> np.ndarray:
        return np.diff(self.positions, axis=0)

    def path_ratio(self) -> float:
        """Mean over the arrived agents of the length travelled over the straight distance
        from where they started to where they arrived (1 is a straight line; agents that
        arrived where they started are left out)."""
        length = np.nansum(np.hypot(*self._steps().transpose(2, 0, 1)), axis=0)
        seen = np.isfinite(self.positions[..., 0])
        last = self.positions[seen.shape[0] - 1 - np.argmax(seen[::-1], axis=0),
                              np.arange(seen.shape[1])]
        straight = np.hypot(*(last - self.positions[0]).T)
        ok = np.isfinite(self.arrived) & (straight > 0)
        return float((length[ok] / straight[ok]).mean()) if ok.any() else math.nan

    def energy(self) -> float:
        """Mean metabolic energy per agent (J/kg): the sum over its steps of
        (E_S + E_W speed^2) dt until it arrived."""
        speed = np.hypot(*self._steps().transpose(2, 0, 1)) / self.dt
        return float(np.nansum(E_S + E_W * speed ** 2, axis=0).mean() * self.dt) \
            if speed.size else 0.0

    def jitter(self) -> float:
        """Mean size of the velocity change per second (m/s^2) over all agent-steps: 0 for
        steady walking, large for agents that shake."""
        v = self._steps() / self.dt
        a = np.hypot(*np.diff(v, axis=0).transpose(2, 0, 1)) / self.dt
        return float(np.nanmean(a)) if np.isfinite(a).any() else 0.0

    def summary(self) -> dict[str, float]:
        return {"completion": self.completion, "t50": self.arrival_time(0.5),
                "t90": self.arrival_time(0.9), "collisions": self.collisions(),
                "max_penetration": self.max_penetration(), "path_ratio": self.path_ratio(),
                "energy": self.energy(), "jitter": self.jitter()}


def record(crowd: Crowd, step: Callable[[Crowd, float], None], *, dt: float,
           seconds: float, arrive_within: float | None = None,
           remove: Callable[[int], None] | None = None) -> Run:
    """Run ``step(crowd, dt)`` until every agent is within ``arrive_within`` (default: its
    radius) of its goal or ``seconds`` have passed, recording positions.  An agent counts
    as arrived at the first step it is that close, and is taken out of the crowd by
    ``remove(id)`` (default :meth:`Crowd.remove`; a :class:`~wayfinding.crowd.Navigator`'s
    own ``remove`` for its crowd), so it no longer blocks the others; the crowd is left
    with the agents still walking."""
    dt, seconds = positive_float("dt", dt), positive_float("seconds", seconds)
    ids = crowd.ids.copy()
    column = {int(a): k for k, a in enumerate(ids)}
    n, steps = len(ids), max(round(time_steps(seconds, dt, "a run")), 1)
    radius, goal = crowd.radius.copy(), crowd.goal.copy()
    near = radius if arrive_within is None else np.full(n, float(arrive_within))
    positions = np.full((steps + 1, n, 2), np.nan)
    positions[0] = crowd.position
    arrived = np.full(n, np.inf)

    def check(t: int) -> None:
        cols = np.array([column[int(a)] for a in crowd.ids], dtype=int)
        if not len(cols):
            return
        there = np.hypot(*(crowd.position - goal[cols]).T) <= near[cols]
        arrived[cols[there]] = t * dt
        for a in crowd.ids[there].tolist():
            (crowd.remove if remove is None else remove)(a)

    check(0)
    t = 0
    while t < steps and len(crowd):
        t += 1
        step(crowd, dt)
        cols = np.array([column[int(a)] for a in crowd.ids], dtype=int)
        positions[t, cols] = crowd.position
        check(t)
    return Run(positions[:t + 1], float(dt), radius, goal, arrived)
