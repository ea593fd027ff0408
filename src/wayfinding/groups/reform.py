"""Reforming a group after a bottleneck: choose among candidate formations by an RVO-like
evaluation (Karamouzas and Overmars's formation adaptation), and measure the time to reform.

Each candidate is a set of slot offsets (``(n, 2)`` in the group's frame: +x forward, +y
left) placed at the group's position facing its heading; the members take its slots by the
optimal assignment (:func:`~wayfinding.groups.assign.assign_slots`; role-aware when
roles are given).  The candidate's time
to collision ``tc`` is the earliest of three, each inf when nothing is touched within
``time_horizon``:

- the formation going on at the group's velocity: the first contact of a slot's disc
  (the members' radius) with an obstacle, or with another agent going straight on at its
  velocity (:func:`~wayfinding.crowd.time_to_collision`) — 0 for a slot already inside;
- each member's move to its slot, straight at its top speed: its first contact with an
  obstacle (a member already touching one is judged by its slot alone);
- each member's sampled velocity — the group's velocity plus, towards its slot, the rest
  of its top speed (the group's velocity alone on its slot) — against the other agents.

Its cost, the lower the better, is the sum of

- ``deviation`` x the members' mean velocity change ``|sampled - current| / max_speed``;
- ``safety`` x ``1 / max(tc, 1e-3 s) - 1 / time_horizon`` (nothing when ``tc`` is inf);
- ``travel`` x the members' mean distance to their slots (world units);
- ``preference`` x the candidate's distance from the preferred shape: the mean distance
  between their offsets under the optimal matching (0 for the preferred one itself).

The cheapest candidate is chosen; ties go to the first.  Group peers are not obstacles to
each other here: a formation is close by design.  :func:`blend_candidates` makes candidates
part of the way from the current shape to each allowed one (the notes' 5 shapes x 3 steps =
15 evaluations).

>>> column = [[1.0, 0.0], [-1.0, 0.0]]
>>> abreast = [[0.0, 1.0], [0.0, -1.0]]
>>> members, moving = [[1.0, 0.0], [-1.0, 0.0]], [[1.0, 0.0]] * 2
>>> reform(members, moving, [column, abreast], (0.0, 0.0), (1.0, 0.0)).best
0
>>> choice = reform(members, moving, [column, abreast], (0.0, 0.0), (1.0, 0.0),
...                 velocity=(1.0, 0.0), preferred=1, preference=5.0)
>>> choice.best, choice.slots.tolist()          # the wider shape, preferred enough
(1, [[0.0, 1.0], [0.0, -1.0]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, count, finite_point, positive_float
from ..crowd.anticipation import collision_time
from ..errors import InvalidQueryError, brief
from ..geometry import Obstacles
from ..results import _fields_equal
from .assign import _points, assign_slots
from .shapes import to_world, unit_heading

_MIN_TC = 1e-3          # s: the time to collision floor of the safety penalty
_BISECTIONS = 40        # halvings of the clear part of a member's motion


@dataclass(frozen=True)
class ReformChoice:
    """The evaluation of candidate formations.  ``best``: the chosen candidate's index;
    ``costs``, ``collision_time`` (s, inf for none within the horizon) and ``travel`` (mean
    distance to the slots, world units): ``(k,)`` float64, one per candidate.  For the
    chosen one: ``slots``, each member's world slot, and ``velocities``, each member's
    sampled velocity towards it, ``(n, 2)`` float64 in the members' order."""

    best: int
    costs: np.ndarray
    collision_time: np.ndarray
    travel: np.ndarray
    slots: np.ndarray
    velocities: np.ndarray

    __eq__ = _fields_equal


def reform(positions: ArrayLike, velocities: ArrayLike, candidates: Sequence[ArrayLike],
           position: ArrayLike, heading: ArrayLike, *, velocity: ArrayLike = (0.0, 0.0),
           radius: float = 0.5, max_speed: float = 1.5, obstacles: Obstacles | None = None,
           others: ArrayLike | None = None, other_velocities: ArrayLike | None = None,
           other_radius: float = 0.5, roles: ArrayLike | None = None,
           slot_roles: Sequence[ArrayLike] | None = None, preferred: int = 0,
           time_horizon: float = 5.0,
           deviation: float = 1.0, safety: float = 1.0, travel: float = 0.1,
           preference: float = 1.0) -> ReformChoice:
    """Score each candidate formation and choose the cheapest (see the module for the rule).

    ``positions``, ``velocities``: the members' ``(n, 2)`` world positions and velocities.
    ``candidates``: ``k >= 1`` slot-offset arrays, each ``(n, 2)`` in the group's frame.
    ``position``, ``heading``: the group's anchor (world) and its nonzero heading vector;
    ``velocity``: the group's (units/s, default still).
    ``radius`` (world units, > 0, default 0.5) and ``max_speed`` (units/s, > 0, default
    1.5): every member's.  ``obstacles``: polygons members must keep ``radius`` from.
    ``others``: ``(m, 2)`` positions of nearby agents not in the group, with
    ``other_velocities`` (``(m, 2)``, default still) and ``other_radius`` (>= 0).
    ``roles``: the members' ``(n,)`` int roles, and ``slot_roles`` one ``(n,)`` int array
    per candidate: a member takes only a slot of its role (default: all role 0).
    ``preferred``: the index of the preferred candidate.  ``time_horizon`` (s, > 0): later
    collisions are ignored.  ``deviation``, ``safety``, ``travel`` (per unit), ``preference``
    (per unit): the cost weights (>= 0); a higher ``travel`` keeps the current shape
    longer, a higher ``preference`` returns to the preferred one sooner.
    O(k · n³) for the assignments plus O(k · n · (m + 40 · obstacle edges)).
    """
    p = _points("positions", positions)
    v = _points("velocities", velocities)
    n = len(p)
    if v.shape != p.shape:
        raise InvalidQueryError(f"velocities {brief(velocities)} must be {n} (x, y) rows, one "
                                "per member")
    shapes = _shapes("candidates", candidates, n)
    anchor, h = finite_point("position", position), unit_heading(heading)
    gv = finite_point("velocity", velocity)
    r = positive_float("radius", radius)
    speed = positive_float("max_speed", max_speed)
    horizon = positive_float("time_horizon", time_horizon)
    weights = [positive_float(name, w, allow_zero=True) for name, w in (
        ("deviation", deviation), ("safety", safety), ("travel", travel),
        ("preference", preference))]
    best_shape = count("preferred", preferred, min=0, max=len(shapes) - 1)
    if obstacles is not None and not isinstance(obstacles, Obstacles):
        raise InvalidQueryError(f"obstacles {brief(obstacles)} must be a "
                                "wayfinding.geometry.Obstacles or None")
    walls = obstacles if obstacles is not None and len(obstacles) else None
    q, qv, qr = _others(others, other_velocities, other_radius)
    spare = max(speed - math.hypot(*gv), 0.0)       # the speed left to reach a slot
    k = len(shapes)
    if slot_roles is not None and (not isinstance(slot_roles, Sequence)
                                   or isinstance(slot_roles, str) or len(slot_roles) != k):
        raise InvalidQueryError(f"slot_roles {brief(slot_roles)} must be a sequence of {k} "
                                "role arrays, one per candidate")
    slots, sampled = np.empty((k, n, 2)), np.empty((k, n, 2))
    dist, tcs, shape_gap = np.empty((k, n)), np.empty(k), np.empty(k)
    for i, offsets in enumerate(shapes):
        world = to_world(offsets, anchor, h)
        slots[i, assign_slots(p, world, roles=roles,
                              slot_roles=None if slot_roles is None else slot_roles[i])] = world
        d = slots[i] - p
        dist[i] = np.hypot(d[:, 0], d[:, 1])
        unit = np.divide(d, dist[i, :, None], out=np.zeros_like(d), where=dist[i, :, None] > 0)
        sampled[i] = gv + unit * spare
        tcs[i] = min(_agent_time(slots[i], np.broadcast_to(gv, (n, 2)), q, qv, r + qr, horizon),
                     _agent_time(p, sampled[i], q, qv, r + qr, horizon))
        shape_gap[i] = _shape_distance(offsets, shapes[best_shape])
    if walls is not None:       # every slot's sweep, then every member's move, all at once
        reach = np.minimum(dist, speed * horizon)
        scale = np.divide(reach, dist, out=np.zeros_like(dist), where=dist > 0)
        starts = np.concatenate([slots.reshape(-1, 2), np.tile(p, (k, 1))])
        ends = np.concatenate([(slots + gv * horizon).reshape(-1, 2),
                               (p + (slots - p) * scale[..., None]).reshape(-1, 2)])
        duration = np.concatenate([np.full(k * n, horizon), (reach / speed).ravel()])
        counts = np.arange(2 * k * n) < k * n
        contact = _contact_times(walls, starts, ends, duration, r, counts)
        tcs = np.minimum(tcs, contact.reshape(2, k, n).min(axis=(0, 2)))
    travels = dist.mean(axis=1)
    change = np.hypot(*np.moveaxis(sampled - v, -1, 0)).mean(axis=1) / speed
    with np.errstate(divide="ignore"):
        penalty = np.where(np.isinf(tcs), 0.0, 1 / np.maximum(tcs, _MIN_TC) - 1 / horizon)
    costs = (weights[0] * change + weights[1] * penalty + weights[2] * travels
             + weights[3] * shape_gap)
    best = int(np.argmin(costs))
    return ReformChoice(best, costs, tcs, travels, slots[best], sampled[best])


def _shapes(name: str, values: Any, n: int) -> list[np.ndarray]:
    """``values`` (a non-empty sequence of slot-offset arrays) as ``(n, 2)`` float arrays."""
    if isinstance(values, np.ndarray) and values.ndim == 3:
        values = list(values)
    if not isinstance(values, Sequence) or isinstance(values, str) or not len(values):
        raise InvalidQueryError(f"{name} {brief(values)} must be a non-empty sequence of "
                                "(n, 2) slot-offset arrays")
    shapes = [_points(f"{name}[{i}]", c) for i, c in enumerate(values)]
    for i, s in enumerate(shapes):
        if len(s) != n:
            raise InvalidQueryError(f"{name}[{i}] has {len(s)} slots for {n} members: one "
                                    "slot per member")
    return shapes


def _others(others: Any, velocities: Any, radius: Any
            ) -> tuple[np.ndarray, np.ndarray, float]:
    if others is None:
        if velocities is not None:
            raise InvalidQueryError("other_velocities given without others")
        return np.empty((0, 2)), np.empty((0, 2)), 0.0
    q = _points("others", others)
    qv = np.zeros_like(q) if velocities is None else _points("other_velocities", velocities)
    if qv.shape != q.shape:
        raise InvalidQueryError(f"other_velocities {brief(velocities)} must be {len(q)} "
                                "(x, y) rows, one per other agent")
    return q, qv, positive_float("other_radius", radius, allow_zero=True)


def _contact_times(walls: Obstacles, a: np.ndarray, b: np.ndarray, duration: np.ndarray,
                   r: float, touching_counts: np.ndarray) -> np.ndarray:
    """Per row, the first time a disc of radius ``r`` moving from ``a`` to ``b`` in
    ``duration`` seconds touches an obstacle; inf for none.  A disc already touching one
    gives 0 where ``touching_counts``, else inf (skipped).  The clear part of a blocked
    motion, a prefix, is found by bisection."""
    out = np.full(len(a), np.inf)
    touching = ~walls.points_clear(a, radius=r)
    out[touching & touching_counts] = 0.0
    rows = np.flatnonzero(~touching & (duration > 0))
    rows = rows[~walls.segments_clear(a[rows], b[rows], radius=r)]
    if not len(rows):
        return out
    a, b = a[rows], b[rows]
    lo, hi = np.zeros(len(rows)), np.ones(len(rows))      # clear up to lo, blocked at hi
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        ok = walls.segments_clear(a, a + (b - a) * mid[:, None], radius=r)
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    out[rows] = lo * duration[rows]
    return out


def _agent_time(p: np.ndarray, v: np.ndarray, q: np.ndarray, qv: np.ndarray, reach: float,
                horizon: float) -> float:
    """The earliest time a member going at ``v`` touches another agent going straight on;
    inf for none within the horizon."""
    if not len(q):
        return math.inf
    tau = collision_time(q[None] - p[:, None], v[:, None] - qv[None], np.full((1, 1), reach))
    first = float(tau.min())
    return first if first <= horizon else math.inf


def _shape_distance(offsets: np.ndarray, preferred: np.ndarray) -> float:
    """The mean distance between two shapes' slots under their optimal matching."""
    match = assign_slots(offsets, preferred)
    return float(np.hypot(*(preferred - offsets[match]).T).mean())


def blend_candidates(positions: ArrayLike, position: ArrayLike, heading: ArrayLike,
                     shapes: Sequence[ArrayLike], *, steps: int = 3) -> list[np.ndarray]:
    """Candidates between the members' current shape and each of ``shapes``, for
    :func:`reform`: per shape, ``steps`` slot-offset arrays ``(n, 2)`` a fraction ``1 /
    steps``, ``2 / steps``, ... 1 of the way from each member's offset (its position in the
    frame at ``position`` facing ``heading``) to the shape's slot it takes by the optimal
    assignment; the last is the shape itself.  ``len(shapes) * steps`` arrays, shape by shape.

    >>> [c.tolist() for c in blend_candidates([[0.0, 0.0]], (0.0, 0.0), (1.0, 0.0),
    ...                                       [[[0.0, 2.0]]], steps=2)]
    [[[0.0, 1.0]], [[0.0, 2.0]]]
    """
    p = _points("positions", positions)
    anchor, h = finite_point("position", position), unit_heading(heading)
    steps = count("steps", steps)
    rel = p - anchor
    current = np.column_stack([rel @ h, rel @ np.array([-h[1], h[0]])])
    targets = _shapes("shapes", shapes, len(p))
    allocation(f"{len(targets)} x {steps} blended candidates", 2.0 * len(p) * len(targets) * steps)
    out: list[np.ndarray] = []
    for offsets in targets:
        start = current[assign_slots(current, offsets)]     # each slot's member, now
        out.extend(start + (offsets - start) * (j / steps) for j in range(1, steps + 1))
    return out


def time_to_reform(positions: ArrayLike, slots: ArrayLike, *, tolerance: float) -> int | None:
    """The first step at which every member is within ``tolerance`` (world units, > 0) of
    its slot, or None if none is.  ``positions``: ``(steps, n, 2)`` member positions over
    time; ``slots``: their slots, ``(steps, n, 2)`` or one ``(n, 2)`` for every step.

    >>> time_to_reform([[[0.0, 0.0]], [[0.5, 0.0]], [[1.0, 0.0]]], [[1.0, 0.0]],
    ...                tolerance=0.1)
    2
    """
    tol = positive_float("tolerance", tolerance)
    track = np.asarray(positions, dtype=np.float64) if _numeric(positions) else None
    if track is None or track.ndim != 3 or track.shape[2] != 2 or not np.isfinite(track).all():
        raise InvalidQueryError(f"positions {brief(positions)} must be a finite "
                                "(steps, n, 2) array")
    target = np.asarray(slots, dtype=np.float64) if _numeric(slots) else None
    if target is None or target.shape not in (track.shape, track.shape[1:]) \
            or not np.isfinite(target).all():
        raise InvalidQueryError(f"slots {brief(slots)} must be a finite {track.shape} or "
                                f"{track.shape[1:]} array")
    gap = np.hypot(*np.moveaxis(track - target, -1, 0))
    formed = np.flatnonzero((gap <= tol).all(axis=1))
    return int(formed[0]) if len(formed) else None


def _numeric(value: Any) -> bool:
    try:
        return np.asarray(value).dtype.kind in "iuf"
    except (TypeError, ValueError):
        return False
