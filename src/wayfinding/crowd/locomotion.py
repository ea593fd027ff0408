"""Restrictors and directors (Pentheny's unified view of locomotion).

A *director* asks for a value: here a steering (``(n, 2)`` velocity change, as every
function of :mod:`~wayfinding.crowd.steering` returns).  A *restrictor* forbids values:
here a function ``(crowd, dt, candidates) -> forbidden`` over candidate velocities
``(n, c, 2)``, returning a boolean ``(n, c)``.  :class:`Locomotion` combines directors by
prioritised, weighted summation (:func:`~wayfinding.crowd.steering.truncated_sum`), then
takes, per agent, the allowed candidate velocity nearest the directed one, the allowed set
being what no restrictor forbids (the union of the restrictions).

Restrictions cascade downwards: a restriction on positions forbids the velocities that
lead there (:func:`stay_within`), one on velocities (such as
:meth:`VelocityObstacles.forbids <wayfinding.crowd.VelocityObstacles.forbids>`) acts
directly.

>>> from wayfinding.crowd import Crowd, seek
>>> crowd = Crowd()
>>> a = crowd.add((0.0, 0.0), max_speed=1.0)
>>> fence = lambda crowd, dt, v: v[..., 0] > 0.5            # never faster than 0.5 east
>>> loco = Locomotion([(1.0, lambda c, dt: seek(c, (10.0, 0.0)))], restrictors=[fence])
>>> loco.velocities(crowd, 0.1).round(6).tolist()
[[0.5, 0.0]]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._deprecated import positional_options
from .._validate import count, positive_float
from ..errors import InvalidQueryError
from ..geometry import Obstacles
from ..grid import Grid
from ..navmesh import NavMesh
from .agents import Crowd
from .steering import truncated_sum, weighted_sum

Director = Callable[[Crowd, float], np.ndarray]
Restrictor = Callable[[Crowd, float, np.ndarray], np.ndarray]


class Locomotion:
    """Directors ``[(weight, director), ...]`` in order of priority and restrictors.

    ``limit``: the steering budget of the prioritised summation, in velocity change per
    second (times ``dt`` per step; ``None``: a plain weighted sum).  Candidates: the
    directed velocity (cut to the top speed), standing still, and ``speeds`` x
    ``headings`` velocities evenly spread over the top-speed disc.  Where every candidate
    is forbidden, the one forbidden by the fewest restrictors (then nearest) is taken.
    """

    @positional_options("restrictors")
    def __init__(self, directors: Sequence[tuple[float, Director]],
                 *, restrictors: Sequence[Restrictor] = (), limit: float | None = None,
                 speeds: int = 4, headings: int = 32):
        if not directors:
            raise InvalidQueryError("give at least one (weight, director) pair")
        for k, pair in enumerate(directors):
            if not (isinstance(pair, tuple) and len(pair) == 2 and callable(pair[1])):
                raise InvalidQueryError(f"director {k} must be a (weight, function) pair")
        if not all(callable(r) for r in restrictors):
            raise InvalidQueryError("restrictors must be functions (crowd, dt, candidates)")
        self.directors = list(directors)
        self.restrictors = list(restrictors)
        self.limit = None if limit is None else positive_float("limit", limit, allow_inf=True)
        self.speeds = count("speeds", speeds)
        self.headings = count("headings", headings)
        ring = np.arange(1, self.speeds + 1) / self.speeds
        turn = 2 * math.pi * np.arange(self.headings) / self.headings
        self._disc = (ring[:, None, None] * np.stack([np.cos(turn), np.sin(turn)], 1)
                      ).reshape(-1, 2)                           # unit-speed samples

    def directed(self, crowd: Crowd, dt: float) -> np.ndarray:
        """The velocity the directors ask for, ``(n, 2)``."""
        terms = [(w, d(crowd, dt)) for w, d in self.directors]
        steer = weighted_sum(*terms) if self.limit is None \
            else truncated_sum(*terms, limit=self.limit * dt)
        return crowd.velocity + steer

    def candidates(self, crowd: Crowd, directed: np.ndarray) -> np.ndarray:
        """``(n, c, 2)``: the directed velocity (within the top speed), zero, the samples."""
        speed = np.hypot(directed[:, 0], directed[:, 1])
        top = crowd.max_speed
        cut = directed * np.minimum(1, np.divide(top, speed, out=np.ones_like(speed),
                                                 where=speed > 0))[:, None]
        disc = self._disc[None] * top[:, None, None]
        return np.concatenate([cut[:, None], np.zeros((len(top), 1, 2)), disc], 1)

    def velocities(self, crowd: Crowd, dt: float) -> np.ndarray:
        """Every agent's new velocity for a step of ``dt``: the allowed candidate nearest
        the directed velocity."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        dt = positive_float("dt", dt)
        want = self.directed(crowd, dt)
        cand = self.candidates(crowd, want)
        votes = np.zeros(cand.shape[:2])
        for r in self.restrictors:
            forbidden = np.asarray(r(crowd, dt, cand))
            if forbidden.shape != cand.shape[:2]:
                raise InvalidQueryError(f"a restrictor returned shape {forbidden.shape}, "
                                        f"expected {cand.shape[:2]}")
            votes += forbidden
        gap = np.hypot(*(cand - want[:, None]).transpose(2, 0, 1))
        best = np.argmin(np.where(votes == votes.min(1, keepdims=True), gap, np.inf), 1)
        return cand[np.arange(len(cand)), best]

    def step(self, crowd: Crowd, dt: float) -> None:
        """Advance the crowd by ``dt`` at the chosen velocities (:meth:`Crowd.step`)."""
        crowd.step(dt, velocity=self.velocities(crowd, dt))


def stay_within(world: Any) -> Restrictor:
    """A positional restriction cascaded to velocities: forbid every velocity that would
    put an agent's centre off ``world`` after the step (off a
    :class:`~wayfinding.navmesh.NavMesh`, on a blocked or outside cell of a
    :class:`~wayfinding.grid.Grid`, inside an :class:`~wayfinding.geometry.Obstacles`).
    Build the world for the agents' radius."""
    if isinstance(world, NavMesh):
        def off(p: np.ndarray) -> np.ndarray:
            return world.locate_many(p) < 0
    elif isinstance(world, Grid):
        def off(p: np.ndarray) -> np.ndarray:
            cells, inside = world.world_to_cells(p)
            return ~inside | ~world.passable[cells[:, 1], cells[:, 0]]
    elif isinstance(world, Obstacles):
        def off(p: np.ndarray) -> np.ndarray:
            return world.contains(p)
    else:
        raise InvalidQueryError(f"world must be a NavMesh, a Grid or an Obstacles, got "
                                f"{type(world).__name__}")

    def restrict(crowd: Crowd, dt: float, candidates: np.ndarray) -> np.ndarray:
        after = crowd.position[:, None] + candidates * dt
        return off(after.reshape(-1, 2)).reshape(after.shape[:2])

    return restrict
