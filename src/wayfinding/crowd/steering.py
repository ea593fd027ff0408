"""Steering behaviours (after Reynolds), vectorised over a :class:`~wayfinding.crowd.Crowd`.

Each behaviour returns every agent's steering, ``(n, 2)``: the change of velocity it asks
for (a desired velocity minus the current one), in world units per second.  Combine them
with :func:`weighted_sum`, :func:`truncated_sum` (prioritised, within a budget) or
:func:`by_priority` (the first that has something to say), then hand ``velocity +
steering`` to :meth:`Crowd.step`, which applies each agent's acceleration and speed limits.
Obstacle and wall avoidance, path following and flow-field following cost ``n`` times the
obstacles, walls or path corners; for many of those, ORCA's indexed obstacles or a
:class:`~wayfinding.crowd.Navigator` scale better.

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a = crowd.add((0.0, 0.0), max_speed=2.0, max_accel=4.0)
>>> for _ in range(200):
...     crowd.step(0.1, velocity=crowd.velocity + arrive(crowd, [(6.0, 0.0)], slowing=2.0))
>>> crowd.position_of(a).round(3).tolist(), float(np.hypot(*crowd.velocity[0]).round(3))
([6.0, 0.0], 0.0)
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options, renamed_keywords
from .._validate import finite_float, positive_float, reals
from ..errors import InvalidQueryError, brief
from ..fields import FlowField
from ..geometry import Obstacles
from ..grid import Grid
from ..navmesh import NavMesh
from .agents import Crowd
from .powerlaw import _time_to_collision


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


def seek(crowd: Crowd, target: ArrayLike) -> np.ndarray:
    """Full speed straight at ``target``."""
    t = _points(crowd, target, "target")
    return _towards(t - crowd.position, crowd.max_speed) - crowd.velocity


def flee(crowd: Crowd, threat: Any) -> np.ndarray:
    """Full speed straight away from ``threat``."""
    t = _points(crowd, threat, "threat")
    return _towards(crowd.position - t, crowd.max_speed) - crowd.velocity


@positional_options("slowing")
def arrive(crowd: Crowd, target: ArrayLike, *, slowing: float = 1.0) -> np.ndarray:
    """Towards ``target``, slowing down linearly within ``slowing`` of it so as to stop on
    it (and braking no harder than each agent's ``max_accel``: the speed never exceeds the
    one it can still shed over the distance left)."""
    slowing = positive_float("slowing", slowing)
    t = _points(crowd, target, "target")
    to = t - crowd.position
    dist = np.hypot(to[:, 0], to[:, 1])
    speed = np.minimum(crowd.max_speed, crowd.max_speed * dist / slowing)
    limited = np.isfinite(crowd.max_accel)
    brake = np.sqrt(2 * np.where(limited, crowd.max_accel, 0.0) * dist)
    speed = np.where(limited, np.minimum(speed, brake), speed)
    return _towards(to, speed) - crowd.velocity


@positional_options("max_lead")
def pursue(crowd: Crowd, target: ArrayLike, target_velocity: ArrayLike, *,
           max_lead: float = math.inf) -> np.ndarray:
    """Seek where a target moving at ``target_velocity`` will be when reached: its position
    ``T`` seconds ahead, ``T`` the soonest time at which the agent at top speed can be
    there (the gap over the top speed when it cannot catch up), at most ``max_lead``."""
    t, v = _points(crowd, target, "target"), _points(crowd, target_velocity, "target_velocity")
    return seek(crowd, t + v * _lead(crowd, t, v, max_lead)[:, None])


@positional_options("max_lead")
def evade(crowd: Crowd, threat: Any, threat_velocity: Any, *, max_lead: float = math.inf
          ) -> np.ndarray:
    """Flee from where a threat moving at ``threat_velocity`` will be when it could reach
    the agent: ``T`` = the gap over the two speeds together, at most ``max_lead`` (where that
    overflows, as :func:`pursue` does: the gap over the top speed, 0 if it is 0)."""
    t, v = _points(crowd, threat, "threat"), _points(crowd, threat_velocity, "threat_velocity")
    max_lead = _check_lead(max_lead)
    gap = np.hypot(*(t - crowd.position).T)
    closing = crowd.max_speed + np.hypot(v[:, 0], v[:, 1])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lead = gap / closing
    lead = _finite_lead(lead, gap, crowd.max_speed)
    return flee(crowd, t + v * np.minimum(lead, max_lead)[:, None])


def _check_lead(max_lead: float) -> float:
    return positive_float("max_lead", max_lead, allow_zero=True, allow_inf=True)


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
    when = _finite_lead(when, np.sqrt(c), s)
    return np.minimum(np.where(c == 0, 0.0, when), max_lead)


def _finite_lead(lead: np.ndarray, gap: np.ndarray, max_speed: np.ndarray) -> np.ndarray:
    """``lead`` where it is finite; elsewhere (no solution, or a gap over a crawling speed
    that overflows) the gap over the agent's top speed, or 0 for an agent that cannot move."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        fallback = np.where(max_speed > 0, gap / max_speed, 0.0)
    return np.where(np.isfinite(lead), lead, np.where(np.isfinite(fallback), fallback, 0.0))


class Wander:
    """Random wandering that stays smooth: a target on a circle of ``radius`` ``distance``
    ahead of each agent, nudged by up to ``jitter`` radians per second; seeded, so runs
    repeat.  Call it every step with that step's ``dt``."""

    @positional_options("radius", "distance", "jitter", "seed")
    def __init__(self, *, radius: float = 1.0, distance: float = 2.0, jitter: float = 2.0,
                 seed: int = 0):
        self.radius = positive_float("radius", radius)
        self.distance = positive_float("distance", distance, allow_zero=True)
        self.jitter = positive_float("jitter", jitter, allow_zero=True)
        self._rng = np.random.default_rng(seed)
        self._ids = np.zeros(0, dtype=np.int64)            # sorted, with their angles
        self._angles = np.zeros(0)

    def __call__(self, crowd: Crowd, dt: float) -> np.ndarray:
        dt = positive_float("dt", dt)
        ids = crowd.ids
        at = np.minimum(np.searchsorted(self._ids, ids), max(len(self._ids) - 1, 0))
        known = (self._ids[at] == ids) if len(self._ids) else np.zeros(len(ids), bool)
        angle = np.where(known, self._angles[at] if len(self._ids) else 0.0, 0.0)
        fresh = ~known
        angle[fresh] = self._rng.uniform(0, 2 * math.pi, int(fresh.sum()))
        angle = angle + self._rng.uniform(-1, 1, len(ids)) * self.jitter * dt
        order = np.argsort(ids)
        self._ids, self._angles = ids[order].copy(), angle[order]
        v = crowd.velocity
        speed = np.hypot(v[:, 0], v[:, 1])
        heading = np.where(speed[:, None] > 0, v / np.maximum(speed, 1e-300)[:, None],
                           np.array([1.0, 0.0]))
        ahead = crowd.position + heading * self.distance
        target = ahead + self.radius * np.stack([np.cos(angle), np.sin(angle)], 1)
        return seek(crowd, target)


def _neighbourhood(crowd: Crowd, distance: float, max_neighbours: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    rows, counts = crowd.neighbours(distance=distance, max_neighbours=max_neighbours)
    return rows, rows >= 0


@renamed_keywords(count="max_neighbours")
@positional_options("distance", "max_neighbours")
def separation(crowd: Crowd, *, distance: float = 3.0, max_neighbours: int = 10) -> np.ndarray:
    """Away from the neighbours within ``distance`` (the ``max_neighbours`` nearest), each
    pushing in proportion to 1 / its distance, at top speed at most."""
    rows, ok = _neighbourhood(crowd, distance, max_neighbours)
    d = crowd.position[:, None, :] - crowd.position[np.where(ok, rows, 0)]
    d2 = (d * d).sum(-1)
    push = np.where((ok & (d2 > 0))[..., None], d / np.where(d2 > 0, d2, 1)[..., None], 0)
    total = push.sum(1)
    length = np.hypot(total[:, 0], total[:, 1])
    return _towards(total, np.minimum(crowd.max_speed, length * crowd.max_speed)) \
        - np.where((length > 0)[:, None], crowd.velocity, 0)


@renamed_keywords(count="max_neighbours")
@positional_options("distance", "max_neighbours")
def alignment(crowd: Crowd, *, distance: float = 5.0, max_neighbours: int = 10) -> np.ndarray:
    """Towards the mean velocity of the neighbours within ``distance`` (the
    ``max_neighbours`` nearest; none: no steer)."""
    rows, ok = _neighbourhood(crowd, distance, max_neighbours)
    n = ok.sum(1)
    mean = np.where(ok[..., None], crowd.velocity[np.where(ok, rows, 0)], 0).sum(1) \
        / np.maximum(n, 1)[:, None]
    return np.where((n > 0)[:, None], mean - crowd.velocity, 0.0)


@renamed_keywords(count="max_neighbours")
@positional_options("distance", "max_neighbours")
def cohesion(crowd: Crowd, *, distance: float = 5.0, max_neighbours: int = 10) -> np.ndarray:
    """Seek the centre of the neighbours within ``distance`` (the ``max_neighbours``
    nearest; none: no steer)."""
    rows, ok = _neighbourhood(crowd, distance, max_neighbours)
    n = ok.sum(1)
    centre = np.where(ok[..., None], crowd.position[np.where(ok, rows, 0)], 0).sum(1) \
        / np.maximum(n, 1)[:, None]
    centre = np.where((n > 0)[:, None], centre, crowd.position)
    return np.where((n > 0)[:, None], seek(crowd, centre), 0.0)


@positional_options("lookahead", "margin")
def avoid_obstacles(crowd: Crowd, centres: Any, radii: Any, *, lookahead: float = 2.0,
                    margin: float = 0.1) -> np.ndarray:
    """Steer round the round obstacles (``centres`` ``(m, 2)``, ``radii`` ``(m,)``) that the
    agent would come within ``margin`` of within ``lookahead`` seconds going straight on:
    against the soonest, at top speed along the tangent from the agent to it (grown by
    the agent's radius and the margin), on the side away from its centre (the left when
    dead ahead); straight away from it when already that close.  Nothing ahead: no steer.
    Cost ``n * m``."""
    lookahead = positive_float("lookahead", lookahead)
    margin = positive_float("margin", margin, allow_zero=True)
    c = _array(centres, (-1, 2), "centres")
    r = _array(radii, (len(c),), "radii")
    if (r < 0).any():
        raise InvalidQueryError("radii must be >= 0")
    n = len(crowd)
    if not len(c):
        return np.zeros((n, 2))
    p, v = crowd.position, crowd.velocity
    w = c[None] - p[:, None]                                       # (n, m, 2)
    reach = r[None] + crowd.radius[:, None] + margin
    t = np.where((w * w).sum(2) <= reach * reach, 0.0,
                 _time_to_collision(w, np.broadcast_to(v[:, None], w.shape), reach))
    t = np.where(t <= lookahead, t, np.inf)
    rows = np.arange(n)
    k = np.argmin(t, 1)
    hit = np.isfinite(t[rows, k])
    to, big = w[rows, k], reach[rows, k]
    d = np.hypot(to[:, 0], to[:, 1])
    left_of = v[:, 0] * to[:, 1] - v[:, 1] * to[:, 0] > 0          # centre left of heading
    turn = np.arcsin(np.clip(big / np.maximum(d, 1e-300), 0, 1)) * np.where(left_of, -1, 1)
    cos, sin = np.cos(turn), np.sin(turn)
    unit = to / np.maximum(d, 1e-300)[:, None]
    tangent = np.stack([unit[:, 0] * cos - unit[:, 1] * sin,
                        unit[:, 0] * sin + unit[:, 1] * cos], 1)
    desired = np.where((d > big)[:, None], tangent, -unit) * crowd.max_speed[:, None]
    return np.where(hit[:, None], desired - v, 0.0)


@positional_options("lookahead", "spread")
def avoid_walls(crowd: Crowd, walls: Any, *, lookahead: float = 1.0,
                spread: float = math.pi / 4) -> np.ndarray:
    """Feelers against walls: three rays from each agent, ahead (``radius + lookahead *
    speed`` long) and ``spread`` radians to either side (half as long).  For the feeler
    that reaches deepest past a wall, steer along the wall's normal towards the agent's
    side: cancel the velocity into the wall and add top speed times the share of the
    feeler beyond it.  ``walls``: segments
    ``(k, 2, 2)``, or the walls of an :class:`~wayfinding.geometry.Obstacles`, a
    :class:`~wayfinding.navmesh.NavMesh` or a :class:`~wayfinding.grid.Grid`'s blocked
    cells.  Cost ``n * k``."""
    lookahead = positive_float("lookahead", lookahead)
    spread = positive_float("spread", spread, allow_zero=True)
    a, b = wall_segments(walls)
    p, v = crowd.position, crowd.velocity
    speed = np.hypot(v[:, 0], v[:, 1])
    heading = v / np.where(speed > 0, speed, 1)[:, None]
    length = crowd.radius + lookahead * speed
    best = np.zeros(len(p))
    out = np.zeros((len(p), 2))
    for turn, share in ((0.0, 1.0), (spread, 0.5), (-spread, 0.5)):
        cos, sin = math.cos(turn), math.sin(turn)
        ray = np.stack([heading[:, 0] * cos - heading[:, 1] * sin,
                        heading[:, 0] * sin + heading[:, 1] * cos], 1) \
            * (share * length)[:, None]                            # (n, 2)
        e = b - a                                                  # (k, 2)
        denom = ray[:, None, 0] * e[None, :, 1] - ray[:, None, 1] * e[None, :, 0]
        d = a[None] - p[:, None]                                   # (n, k, 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (d[..., 0] * e[None, :, 1] - d[..., 1] * e[None, :, 0]) / denom
            u = (d[..., 0] * ray[:, None, 1] - d[..., 1] * ray[:, None, 0]) / denom
        t = np.where((denom != 0) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1), t, np.inf)
        k = np.argmin(t, 1) if len(a) else np.zeros(len(p), dtype=np.int64)
        near = t[np.arange(len(p)), k] if len(a) else np.full(len(p), np.inf)
        depth = np.where(np.isfinite(near), 1 - near, 0.0)
        normal = np.stack([-e[k, 1], e[k, 0]], 1) if len(a) else np.zeros((len(p), 2))
        normal /= np.maximum(np.hypot(normal[:, 0], normal[:, 1]), 1e-300)[:, None]
        towards = ((p - a[k] if len(a) else p) * normal).sum(1) < 0
        normal[towards] *= -1
        deeper = depth > best
        into = np.maximum(-(v * normal).sum(1), 0)
        out[deeper] = normal[deeper] * (crowd.max_speed * depth + into)[deeper, None]
        best = np.maximum(best, depth)
    return out


def wall_segments(walls: Any) -> tuple[np.ndarray, np.ndarray]:
    """The ends ``(a, b)``, ``(k, 2)`` each, of the wall segments given as ``(k, 2, 2)`` or
    as an :class:`~wayfinding.geometry.Obstacles`, a :class:`~wayfinding.navmesh.NavMesh`
    (its walls) or a :class:`~wayfinding.grid.Grid` (its blocked cells)."""
    if isinstance(walls, Grid):
        walls = Obstacles.from_grid(walls)
    if isinstance(walls, (Obstacles, NavMesh)):
        loops = walls.polygons if isinstance(walls, Obstacles) else walls.boundary()
        if not loops:
            return np.zeros((0, 2)), np.zeros((0, 2))
        a = np.concatenate(loops)
        return a, np.concatenate([np.roll(loop, -1, axis=0) for loop in loops])
    seg = _array(walls, (-1, 2, 2), "walls")
    return seg[:, 0], seg[:, 1]


@positional_options("ahead", "predict", "slowing")
def follow_path(crowd: Crowd, path: Any, *, ahead: float = 1.0, predict: float = 0.5,
                slowing: float = 1.0) -> np.ndarray:
    """Follow a polyline (``(m, 2)``, shared by all agents, or a list of one per agent):
    project where the agent will be in ``predict`` seconds onto the path (its nearest
    point), then seek the point ``ahead`` further along it; within ``ahead`` of the end,
    arrive at the end (slowing within ``slowing`` of it).  An agent off the path heads
    back onto it on the way."""
    ahead = positive_float("ahead", ahead)
    predict = positive_float("predict", predict, allow_zero=True)
    pts, counts = _paths(crowd, path)
    n = len(pts)
    rows = np.arange(n)
    a, e = pts[:, :-1], pts[:, 1:] - pts[:, :-1]                   # (n, m - 1, 2)
    seg = np.hypot(e[..., 0], e[..., 1])
    start = np.concatenate([np.zeros((n, 1)), np.cumsum(seg, 1)], 1)     # (n, m)
    q = crowd.position + crowd.velocity * predict
    t = np.clip(((q[:, None] - a) * e).sum(2) / np.where(seg > 0, seg * seg, 1), 0, 1)
    gap = ((a + t[..., None] * e - q[:, None]) ** 2).sum(2)
    k = np.argmin(gap, 1)                                          # padding: never nearer
    s = start[rows, k] + t[rows, k] * seg[rows, k] + ahead
    end = s >= start[rows, counts - 1]
    j = np.minimum((start[:, 1:] <= s[:, None]).sum(1), start.shape[1] - 2)
    frac = np.divide(s - start[rows, j], seg[rows, j], out=np.zeros(n), where=seg[rows, j] > 0)
    target = a[rows, j] + e[rows, j] * np.clip(frac, 0, 1)[:, None]
    last = pts[rows, counts - 1]
    return np.where(end[:, None], arrive(crowd, np.where(end[:, None], last, crowd.position),
                                         slowing=slowing), seek(crowd, target))


def _paths(crowd: Crowd, path: Any) -> tuple[np.ndarray, np.ndarray]:
    """Polylines as a ``(n, m, 2)`` array, each padded by repeating its last corner (at
    least two corners), and their lengths in corners."""
    n = len(crowd)
    if isinstance(path, (list, tuple)) and len(path) == n and n and np.ndim(path[0]) == 2:
        lines = [_array(p, (-1, 2), f"path {i}") for i, p in enumerate(path)]
    else:
        lines = [_array(path, (-1, 2), "path")]
    if any(len(p) == 0 for p in lines):
        raise InvalidQueryError("a path needs at least one corner")
    m = max(2, max(len(p) for p in lines))
    padded = np.stack([np.concatenate([p, np.repeat(p[-1:], m - len(p), 0)]) for p in lines])
    counts = np.array([len(p) for p in lines], dtype=np.int64)
    if len(lines) == 1:
        return np.broadcast_to(padded, (n, m, 2)), np.full(n, counts[0])
    return padded, counts


def follow_flow(crowd: Crowd, flow: FlowField) -> np.ndarray:
    """Top speed along a :class:`~wayfinding.fields.FlowField`, its directions interpolated
    bilinearly at each agent's position (world coordinates, by the grid's origin and cell
    size); where it gives none (walls, goal cells, off the grid): stop."""
    if not isinstance(flow, FlowField):
        raise InvalidQueryError(f"expected a FlowField, got {type(flow).__name__}")
    return flow.sample_world(crowd.position) * crowd.max_speed[:, None] - crowd.velocity


def _array(value: Any, shape: tuple[int, ...], name: str) -> np.ndarray:
    """``value`` as a finite float array of ``shape`` (-1: any length)."""
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        arr = np.empty(0)
    if arr.ndim != len(shape) or any(w not in (-1, s) for w, s in zip(shape, arr.shape)) \
            or not np.isfinite(arr).all():
        want = ", ".join("k" if w == -1 else str(w) for w in shape)
        raise InvalidQueryError(f"{name} must be a finite ({want}) array")
    return arr


def _weighted(terms: tuple) -> list[np.ndarray]:
    """The ``(weight, steering)`` pairs as weighted ``(n, 2)`` arrays, checked: finite
    weights and steerings, all of one length."""
    if not terms:
        raise InvalidQueryError("give at least one (weight, steering) pair")
    out: list[np.ndarray] = []
    for k, term in enumerate(terms):
        if not (isinstance(term, tuple) and len(term) == 2):
            raise InvalidQueryError(f"term {k} {brief(term)} must be a (weight, steering) pair")
        w = finite_float(f"weight {k}", term[0])
        out.append(w * _array(term[1], (len(out[0]) if out else -1, 2), f"steering {k}"))
    return out


def weighted_sum(*terms: tuple[float, np.ndarray]) -> np.ndarray:
    """The sum of ``(weight, steering)`` pairs."""
    # At least one term: the sum is an array.
    return cast(np.ndarray, sum(_weighted(terms)))


def truncated_sum(*terms: tuple[float, np.ndarray], limit: Any) -> np.ndarray:
    """Prioritised summation: per agent, add the ``(weight, steering)`` pairs in order of
    importance, each cut to at most what is left of ``limit`` (one size for all or one per
    agent, e.g. ``max_accel * dt``) once the length of the total so far is taken off (a
    running length, Reynolds' rule: a term that shortens the total leaves room for the
    next).  The total is never longer than ``limit``, and a high-priority steering takes
    the budget before a lower one has any."""
    steer = _weighted(terms)
    n = len(steer[0])
    try:
        cap = np.broadcast_to(reals("limit", limit), (n,))
    except (InvalidQueryError, ValueError):
        cap = np.empty(0)
    if len(cap) != n or not (cap >= 0).all():
        raise InvalidQueryError(f"limit {brief(limit)} must be >= 0: a number or one per "
                                f"agent ({n})")
    total = np.zeros((n, 2))
    for t in steer:
        left = cap - np.hypot(total[:, 0], total[:, 1])
        size = np.hypot(t[:, 0], t[:, 1])
        scale = np.divide(np.maximum(left, 0), size, out=np.ones(n),
                          where=(size > left) & (size > 0))
        total += t * scale[:, None]
    return total


def by_priority(*steerings: np.ndarray, threshold: float = 1e-3) -> np.ndarray:
    """Per agent, the first steering whose size exceeds ``threshold`` (else the last): the
    behaviours in order of importance, a lower one acting only when the ones above it have
    nothing to say."""
    if not steerings:
        raise InvalidQueryError("give at least one steering")
    threshold = positive_float("threshold", threshold, allow_zero=True)
    out = _array(steerings[-1], (-1, 2), f"steering {len(steerings) - 1}")
    decided = np.zeros(len(out), dtype=bool)
    for k, s in enumerate(steerings[:-1]):
        s = _array(s, (len(out), 2), f"steering {k}")
        take = ~decided & (np.hypot(s[:, 0], s[:, 1]) > threshold)
        out[take] = s[take]
        decided |= take
    return out
