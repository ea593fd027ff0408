"""Steering behaviours (after Reynolds), vectorised over a :class:`~wayfinding.crowd.Crowd`.

Each behaviour returns every agent's steering, ``(n, 2)``: the change of velocity it asks
for (a desired velocity minus the current one), in world units per second.  Combine them
with :func:`weighted_sum` or :func:`by_priority`, then hand ``velocity + steering`` to
:meth:`Crowd.step`, which applies each agent's acceleration and speed limits.

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a = crowd.add((0.0, 0.0), max_speed=2.0, max_accel=4.0)
>>> for _ in range(200):
...     crowd.step(0.1, crowd.velocity + arrive(crowd, [(6.0, 0.0)], slowing=2.0))
>>> crowd.position_of(a).round(3).tolist(), float(np.hypot(*crowd.velocity[0]).round(3))
([6.0, 0.0], 0.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InvalidQueryError
from .agents import Crowd, check_number


def _points(crowd: Crowd, value: Any, name: str) -> np.ndarray:
    """One point per agent, or one point for all."""
    try:
        p = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        p = np.empty(0)
    if p.shape == (2,):
        p = np.broadcast_to(p, (len(crowd), 2))
    if p.shape != (len(crowd), 2) or not np.isfinite(p).all():
        raise InvalidQueryError(f"{name} must be a finite (x, y) or ({len(crowd)}, 2) array")
    return p


def _towards(vectors: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """``vectors`` scaled to length ``speed`` (zero vectors stay zero)."""
    length = np.hypot(vectors[:, 0], vectors[:, 1])
    scale = np.divide(speed, length, out=np.zeros_like(length), where=length > 0)
    return vectors * scale[:, None]


def seek(crowd: Crowd, target: Any) -> np.ndarray:
    """Full speed straight at ``target``."""
    t = _points(crowd, target, "target")
    return _towards(t - crowd.position, crowd.max_speed) - crowd.velocity


def flee(crowd: Crowd, threat: Any) -> np.ndarray:
    """Full speed straight away from ``threat``."""
    t = _points(crowd, threat, "threat")
    return _towards(crowd.position - t, crowd.max_speed) - crowd.velocity


def arrive(crowd: Crowd, target: Any, slowing: float = 1.0) -> np.ndarray:
    """Towards ``target``, slowing down linearly within ``slowing`` of it so as to stop on
    it (and braking no harder than each agent's ``max_accel``: the speed never exceeds the
    one it can still shed over the distance left)."""
    slowing = check_number(slowing, "slowing")
    t = _points(crowd, target, "target")
    to = t - crowd.position
    dist = np.hypot(to[:, 0], to[:, 1])
    speed = np.minimum(crowd.max_speed, crowd.max_speed * dist / slowing)
    limited = np.isfinite(crowd.max_accel)
    brake = np.sqrt(2 * np.where(limited, crowd.max_accel, 0.0) * dist)
    speed = np.where(limited, np.minimum(speed, brake), speed)
    return _towards(to, speed) - crowd.velocity


def pursue(crowd: Crowd, target: Any, target_velocity: Any, max_lead: float = math.inf
           ) -> np.ndarray:
    """Seek where a target moving at ``target_velocity`` will be when reached: its position
    ``T`` seconds ahead, ``T`` the soonest time at which the agent at top speed can be
    there (the gap over the top speed when it cannot catch up), at most ``max_lead``."""
    t, v = _points(crowd, target, "target"), _points(crowd, target_velocity, "target_velocity")
    return seek(crowd, t + v * _lead(crowd, t, v, max_lead)[:, None])


def evade(crowd: Crowd, threat: Any, threat_velocity: Any, max_lead: float = math.inf
          ) -> np.ndarray:
    """Flee from where a threat moving at ``threat_velocity`` will be when it could reach
    the agent: ``T`` = the gap over the two speeds together, at most ``max_lead``."""
    t, v = _points(crowd, threat, "threat"), _points(crowd, threat_velocity, "threat_velocity")
    max_lead = _check_lead(max_lead)
    gap = np.hypot(*(t - crowd.position).T)
    closing = crowd.max_speed + np.hypot(v[:, 0], v[:, 1])
    lead = np.divide(gap, closing, out=np.zeros_like(gap), where=closing > 0)
    return flee(crowd, t + v * np.minimum(lead, max_lead)[:, None])


def _check_lead(max_lead: float) -> float:
    return check_number(max_lead, "max_lead", zero=True, infinite=True)


def _lead(crowd: Crowd, t: np.ndarray, v: np.ndarray, max_lead: float) -> np.ndarray:
    """The smallest T >= 0 with |t + v T - p| = max_speed T (the interception time); the
    gap over the top speed when there is none; at most ``max_lead``."""
    max_lead = _check_lead(max_lead)
    d = t - crowd.position
    s = crowd.max_speed
    a = (v * v).sum(1) - s * s
    b = 2 * (d * v).sum(1)
    c = (d * d).sum(1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        disc = b * b - 4 * a * c
        root = np.sqrt(np.maximum(disc, 0))
        lin = np.where(b < 0, -c / b, np.inf)                # a == 0: b T + c = 0
        r1, r2 = (-b - root) / (2 * a), (-b + root) / (2 * a)
        quad = np.where(r1 >= 0, np.where((r2 >= 0) & (r2 < r1), r2, r1),
                        np.where(r2 >= 0, r2, np.inf))
        when = np.where(np.abs(a) < 1e-12, lin, np.where(disc >= 0, quad, np.inf))
        fallback = np.where(s > 0, np.sqrt(c) / s, 0.0)
    when = np.where(np.isfinite(when), when, fallback)
    return np.minimum(np.where(c == 0, 0.0, when), max_lead)


class Wander:
    """Random wandering that stays smooth: a target on a circle of ``radius`` ``distance``
    ahead of each agent, nudged by up to ``jitter`` radians per second; seeded, so runs
    repeat.  Call it every step with that step's ``dt``."""

    def __init__(self, radius: float = 1.0, distance: float = 2.0, jitter: float = 2.0,
                 seed: int = 0):
        self.radius = check_number(radius, "radius")
        self.distance = check_number(distance, "distance", zero=True)
        self.jitter = check_number(jitter, "jitter", zero=True)
        self._rng = np.random.default_rng(seed)
        self._angle: dict[int, float] = {}

    def __call__(self, crowd: Crowd, dt: float) -> np.ndarray:
        dt = check_number(dt, "dt")
        ids = crowd.ids.tolist()
        for agent in ids:
            self._angle.setdefault(agent, float(self._rng.uniform(0, 2 * math.pi)))
        nudge = self._rng.uniform(-1, 1, len(ids)) * self.jitter * dt
        angle = np.array([self._angle[a] for a in ids]) + nudge
        self._angle = dict(zip(ids, angle.tolist()))
        v = crowd.velocity
        speed = np.hypot(v[:, 0], v[:, 1])
        heading = np.where(speed[:, None] > 0, v / np.maximum(speed, 1e-300)[:, None],
                           np.array([1.0, 0.0]))
        ahead = crowd.position + heading * self.distance
        target = ahead + self.radius * np.stack([np.cos(angle), np.sin(angle)], 1)
        return seek(crowd, target)


def _neighbourhood(crowd: Crowd, distance: float, count: int) -> tuple[np.ndarray, np.ndarray]:
    rows, counts = crowd.neighbours(distance, count)
    return rows, rows >= 0


def separation(crowd: Crowd, distance: float = 3.0, count: int = 10) -> np.ndarray:
    """Away from the neighbours within ``distance``, each pushing in proportion to
    1 / its distance, at top speed at most."""
    rows, ok = _neighbourhood(crowd, distance, count)
    d = crowd.position[:, None, :] - crowd.position[np.where(ok, rows, 0)]
    d2 = (d * d).sum(-1)
    push = np.where((ok & (d2 > 0))[..., None], d / np.where(d2 > 0, d2, 1)[..., None], 0)
    total = push.sum(1)
    length = np.hypot(total[:, 0], total[:, 1])
    return _towards(total, np.minimum(crowd.max_speed, length * crowd.max_speed)) \
        - np.where((length > 0)[:, None], crowd.velocity, 0)


def alignment(crowd: Crowd, distance: float = 5.0, count: int = 10) -> np.ndarray:
    """Towards the mean velocity of the neighbours within ``distance`` (none: no steer)."""
    rows, ok = _neighbourhood(crowd, distance, count)
    n = ok.sum(1)
    mean = np.where(ok[..., None], crowd.velocity[np.where(ok, rows, 0)], 0).sum(1) \
        / np.maximum(n, 1)[:, None]
    return np.where((n > 0)[:, None], mean - crowd.velocity, 0.0)


def cohesion(crowd: Crowd, distance: float = 5.0, count: int = 10) -> np.ndarray:
    """Seek the centre of the neighbours within ``distance`` (none: no steer)."""
    rows, ok = _neighbourhood(crowd, distance, count)
    n = ok.sum(1)
    centre = np.where(ok[..., None], crowd.position[np.where(ok, rows, 0)], 0).sum(1) \
        / np.maximum(n, 1)[:, None]
    centre = np.where((n > 0)[:, None], centre, crowd.position)
    return np.where((n > 0)[:, None], seek(crowd, centre), 0.0)


def weighted_sum(*terms: tuple[float, np.ndarray]) -> np.ndarray:
    """The sum of ``(weight, steering)`` pairs."""
    if not terms:
        raise InvalidQueryError("give at least one (weight, steering) pair")
    return sum(float(w) * np.asarray(s, dtype=np.float64) for w, s in terms)


def by_priority(*steerings: np.ndarray, threshold: float = 1e-3) -> np.ndarray:
    """Per agent, the first steering whose size exceeds ``threshold`` (else the last): the
    behaviours in order of importance, a lower one acting only when the ones above it have
    nothing to say."""
    if not steerings:
        raise InvalidQueryError("give at least one steering")
    out = np.array(steerings[-1], dtype=np.float64)
    decided = np.zeros(len(out), dtype=bool)
    for s in steerings[:-1]:
        s = np.asarray(s, dtype=np.float64)
        take = ~decided & (np.hypot(s[:, 0], s[:, 1]) > threshold)
        out[take] = s[take]
        decided |= take
    return out
