"""Formation following: a formation's reference point walks a path, and its members get
preferred velocities towards their slots.

Modes (:data:`MODES`):

- ``"blind"``: each member heads for its slot at top speed, arriving in one step as
  :meth:`~wayfinding.crowd.Crowd.preferred_velocity` does for a goal, and ignores
  everyone else.
- ``"steered"``: each member arrives at its slot extrapolated ``lookahead`` seconds along
  the reference point's velocity (so it keeps pace rather than trailing), the target
  pulled by ``cohesion`` (0 to 1) times the gap from the slots' barycentre to the
  members': 1 keeps the slots around where the members are, so the group closes up
  rather than strung out when some lag.  In formation the gap is zero.
- ``"autonomous"``: the slot is the member's goal, as in ``"blind"``, and the crowd's
  :class:`~wayfinding.crowd.ORCA` turns the preferred velocities into collision-free ones
  among all the crowd's agents (members and others alike).

The reference point moves at ``speed`` along the path, waiting while a member lags more
than ``slack`` behind its slot.  It faces where the path leads (the point one bulk radius
ahead), and over the last ``max(bulk radius, spacing)`` of the path turns to ``facing``:
at the goal the slots stand rotated to ``facing`` and the members stop in them.

>>> crowd = Crowd()
>>> line = FormationShape.line(2)
>>> ids = [crowd.add(p) for p in line.world_slots((0.0, 0.0), (1.0, 0.0))]
>>> f = FormationFollower(crowd, ids, line, [(0.0, 0.0), (4.0, 0.0)], facing=(0.0, 1.0))
>>> for _ in range(100):
...     f.step(0.1)
>>> f.arrived, crowd.position.round(6).tolist(), crowd.velocity.round(6).tolist()
(True, [[3.0, 0.0], [5.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validate import choice, finite_points, positive_float
from ..crowd import ORCA, Crowd
from ..errors import InvalidQueryError, brief
from ..geometry.obstacles import MAX_EXTENT
from .shapes import FormationShape, unit_heading

MODES = ("blind", "steered", "autonomous")


class FormationFollower:
    """Walk ``shape`` (slots within ``±MAX_EXTENT`` of its reference point) along ``path``
    with the agents ``agents`` of ``crowd`` in its slots.

    ``agents``: ``(n,)`` agent ids, the one in each slot of ``shape`` (``n`` slots; e.g.
    :meth:`~wayfinding.groups.AgentGroup.slot_members`); ``path``: ``(m, 2)`` world
    points (``m >= 1``, within ``±MAX_EXTENT`` as agents are; the reference point starts on
    the first); ``mode``: see
    :data:`MODES`; ``speed``: the reference point's speed (world units/s; default 0.9 times
    the slowest member's top speed); ``facing``: the heading at the goal (a nonzero ``(x,
    y)`` vector; default the path's last direction); ``cohesion`` (0 to 1) and
    ``lookahead`` (s, >= 0): the ``"steered"`` mode's; ``slack``: how far (world units)
    a member may lag behind its slot before the reference point waits (default the
    shape's spacing); ``orca``: the avoidance of ``"autonomous"`` (default ``ORCA()``).
    """

    def __init__(self, crowd: Crowd, agents: ArrayLike, shape: FormationShape,
                 path: ArrayLike, *, mode: str = "blind", speed: float | None = None,
                 facing: ArrayLike | None = None, cohesion: float = 0.0,
                 lookahead: float = 1.0, slack: float | None = None,
                 orca: ORCA | None = None):
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        if not isinstance(shape, FormationShape):
            raise InvalidQueryError(f"shape {brief(shape)} must be a FormationShape")
        if shape.bulk_radius > MAX_EXTENT:
            raise InvalidQueryError(f"shape of bulk radius {shape.bulk_radius:g} has slots "
                                    f"beyond ±{MAX_EXTENT:g}, the largest world coordinate "
                                    "of an agent")
        try:
            ids = np.asarray(agents)
        except (ValueError, TypeError):     # ragged sequences
            ids = np.empty(0, dtype=object)
        if ids.shape != (len(shape),) or ids.dtype.kind not in "iu" \
                or len(np.unique(ids)) != len(ids):
            raise InvalidQueryError(f"agents {brief(agents)} must be {len(shape)} distinct "
                                    "agent ids, one per slot")
        for a in ids.tolist():
            crowd.row(a)                    # refuses an unknown id
        pts, _ = finite_points("path", path)
        if not len(pts):
            raise InvalidQueryError("path must hold at least one point")
        if not (np.abs(pts) <= MAX_EXTENT).all():
            raise InvalidQueryError(f"path {brief(path)} lies beyond ±{MAX_EXTENT:g}, the "
                                    "largest world coordinate of an agent")
        keep = np.ones(len(pts), dtype=bool)
        keep[1:] = np.any(pts[1:] != pts[:-1], axis=1)
        self.path = pts[keep]
        seg = np.hypot(*np.diff(self.path, axis=0).T)
        self._arc = np.concatenate([[0.0], np.cumsum(seg)])
        self.crowd, self.agents, self.shape = crowd, ids.astype(np.int64), shape
        self._cached: np.ndarray | None = None
        self._batch: _Batch | None = None
        self.mode = choice("mode", mode, MODES)
        rows = self._rows()
        self.speed = 0.9 * float(crowd.max_speed[rows].min()) if speed is None \
            else positive_float("speed", speed)
        last = self.path[-1] - self.path[-2] if len(self.path) > 1 else np.array([1.0, 0.0])
        self.facing = unit_heading(last if facing is None else facing, name="facing")
        self.cohesion = positive_float("cohesion", cohesion, allow_zero=True, max=1.0)
        self.lookahead = positive_float("lookahead", lookahead, allow_zero=True)
        self.slack = shape.spacing if slack is None else positive_float("slack", slack)
        if orca is not None and not isinstance(orca, ORCA):
            raise InvalidQueryError(f"orca {brief(orca)} must be an ORCA or None")
        self.orca = ORCA() if orca is None and self.mode == "autonomous" else orca
        self._blend = max(shape.bulk_radius, shape.spacing)
        #: The reference point's distance along the path (world units).
        self.travelled = 0.0
        self.velocity = np.zeros(2)
        #: The reference point and its heading, and the slots (world).
        self.position: np.ndarray
        self.heading: np.ndarray
        self._slots: np.ndarray
        _place(_Batch.of([self]), np.zeros(1))

    def _rows(self) -> np.ndarray:
        """The members' rows of the crowd (looked up again only after rows moved)."""
        rows = self._cached
        ids = self.crowd.ids
        if rows is None or rows.max() >= len(ids) or not (ids[rows] == self.agents).all():
            rows = np.array([self.crowd.row(a) for a in self.agents.tolist()], dtype=np.int64)
            self._cached = rows
        return rows

    @property
    def arrived(self) -> bool:
        """Whether the reference point has reached the end of the path."""
        return bool(self.travelled >= self._arc[-1])

    def slots(self) -> np.ndarray:
        """The slots now, ``(n, 2)`` world points, in slot order."""
        return self._slots.copy()

    def slot_error(self) -> np.ndarray:
        """Each member's distance to its slot now, ``(n,)``."""
        d = self.crowd.position[self._rows()] - self._slots
        return np.hypot(d[:, 0], d[:, 1])

    def advance(self, dt: float) -> None:
        """Move the reference point ``dt`` seconds along the path (unless a member lags
        more than ``slack``)."""
        dt = positive_float("dt", dt)
        batch = _Batch.of([self])
        _advance(batch, dt, _members(batch))

    def preferred(self, dt: float, *, out: np.ndarray | None = None) -> np.ndarray:
        """Every crowd agent's preferred velocity, ``(len(crowd), 2)``: the members' by the
        mode, the others' :meth:`Crowd.preferred_velocity` (or, given ``out``, an ``(n,
        2)`` float64 array, as it holds them: only the members' rows are written)."""
        dt = positive_float("dt", dt)
        crowd = self.crowd
        if out is None:
            out = crowd.preferred_velocity(dt)
        elif not isinstance(out, np.ndarray) or out.shape != (len(crowd), 2) \
                or out.dtype != np.float64:
            raise InvalidQueryError(f"out must be a ({len(crowd)}, 2) float64 array")
        batch = _Batch.of([self])
        _prefer(batch, dt, out, _members(batch))
        return out

    def step(self, dt: float) -> None:
        """One step: move the reference point, then the crowd by the members' preferred
        velocities (through ORCA in ``"autonomous"`` mode)."""
        self.advance(dt)
        pref = self.preferred(dt)
        if self.orca is not None and self.mode == "autonomous":
            self.orca.step(self.crowd, dt, preferred=pref)
        else:
            self.crowd.step(dt, velocity=pref)


def step_formations(crowd: Crowd, followers: Sequence[FormationFollower], dt: float, *,
                    orca: ORCA | None = None) -> None:
    """One step of several formations in one crowd: every follower's reference point
    moves, then the crowd moves once by the members' preferred velocities (the other
    agents': :meth:`Crowd.preferred_velocity`), through ``orca`` when given (then every
    agent avoids every other, whatever each follower's mode)."""
    if not isinstance(crowd, Crowd):
        raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
    if orca is not None and not isinstance(orca, ORCA):
        raise InvalidQueryError(f"orca {brief(orca)} must be an ORCA or None")
    dt = positive_float("dt", dt)
    if not isinstance(followers, Iterable):
        raise InvalidQueryError(f"followers {brief(followers)} must be a sequence of "
                                "FormationFollowers")
    followers = list(followers)
    for f in followers:
        if not isinstance(f, FormationFollower) or f.crowd is not crowd:
            raise InvalidQueryError(f"{brief(f)} is not a FormationFollower of this crowd")
    pref = crowd.preferred_velocity(dt)
    if followers:
        batch = _Batch.of(followers)
        _prefer(batch, dt, pref, _advance(batch, dt, _members(batch)))
    if orca is None:
        crowd.step(dt, velocity=pref)
    else:
        orca.step(crowd, dt, preferred=pref)


class _Batch:
    """Followers stepped together with their paths, shapes and members packed (these are
    fixed once a follower is made); the first follower keeps the last batch it led."""

    def __init__(self, followers: list[FormationFollower]):
        self.followers = followers
        arcs = [f._arc for f in followers]
        counts = np.array([len(a) for a in arcs])
        self.first = np.cumsum(counts) - counts
        self.last = self.first + counts - 1
        self.arc, self.path = np.concatenate(arcs), np.concatenate([f.path for f in followers])
        # (follower, distance along its path) as complex numbers, which sort
        # lexicographically: one exact searchsorted finds every follower's segment
        self.key = np.empty(len(self.arc), dtype=np.complex128)
        self.key.real = np.repeat(np.arange(len(followers)), counts)
        self.key.imag = self.arc
        self.end = self.arc[self.last]
        self.blend = np.array([f._blend for f in followers])
        self.sizes = np.array([len(f.agents) for f in followers])
        self.starts = np.cumsum(self.sizes) - self.sizes
        self.runs = list(zip(self.starts.tolist(), np.cumsum(self.sizes).tolist()))
        self.offsets = np.concatenate([f.shape.offsets for f in followers])
        self.agents = np.concatenate([f.agents for f in followers])
        self.rows: np.ndarray | None = None

    @classmethod
    def of(cls, followers: list[FormationFollower]) -> _Batch:
        """The batch of ``followers`` (packed again unless it is the last one their first
        follower led)."""
        held = followers[0]._batch
        if held is None or len(held.followers) != len(followers) \
                or any(a is not b for a, b in zip(held.followers, followers)):
            held = followers[0]._batch = cls(followers)
        return held


def _members(batch: _Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All the batch's member rows (looked up again only after rows moved), their
    positions and their slots."""
    followers = batch.followers
    crowd = followers[0].crowd
    rows, ids = batch.rows, crowd.ids
    if rows is None or rows.max() >= len(ids) or not (ids[rows] == batch.agents).all():
        rows = batch.rows = np.concatenate([f._rows() for f in followers])
    return rows, crowd.position[rows], np.concatenate([f._slots for f in followers])


def _at(batch: _Batch, s: np.ndarray) -> np.ndarray:
    """Each follower's point at its distance ``s`` along its path (clamped to the ends)."""
    s = np.minimum(np.maximum(s, 0.0), batch.end)
    query = np.empty(len(s), dtype=np.complex128)
    query.real, query.imag = np.arange(len(s)), s
    # each path's searchsorted(s, side="right") - 1, as far as its last segment
    k = np.minimum(np.searchsorted(batch.key, query, side="right") - 1,
                   np.maximum(batch.last - 1, batch.first))
    nxt = np.minimum(k + 1, batch.last)
    arc, path = batch.arc, batch.path
    t = (s - arc[k]) / np.where(nxt > k, arc[nxt] - arc[k], 1.0)
    return path[k] + t[:, None] * (path[nxt] - path[k])


def _place(batch: _Batch, s: np.ndarray) -> np.ndarray:
    """Put every follower's reference point at its distance ``s`` along its path (its
    position, heading and slots; the slots of all, packed, returned)."""
    followers = batch.followers
    facing = np.array([f.facing for f in followers])
    p = _at(batch, s)
    left = batch.end - s
    ahead = (_at(batch, s + batch.blend) - p).tolist()
    along = np.array([math.atan2(y, x) for x, y in ahead])
    t = np.minimum(1.0, np.maximum(0.0, 1.0 - left / batch.blend))
    goal = np.array([math.atan2(y, x) for x, y in facing.tolist()])
    turn = (goal - along + math.pi) % (2 * math.pi) - math.pi
    a = (along + t * turn).tolist()
    turned = np.array([[math.cos(v) for v in a], [math.sin(v) for v in a]]).T
    heading = np.where(left[:, None] > 0.0, turned, facing)
    h, off = np.repeat(heading, batch.sizes, axis=0), batch.offsets
    slots = np.repeat(p, batch.sizes, axis=0) + off[:, :1] * h \
        + off[:, 1:] * np.stack([-h[:, 1], h[:, 0]], axis=1)
    for f, (k, j), pk, hk in zip(followers, batch.runs, p, heading):
        f.position, f.heading, f._slots = pk, hk, slots[k:j]
    return slots


def _advance(batch: _Batch, dt: float, members: tuple[np.ndarray, np.ndarray, np.ndarray]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Move every follower's reference point ``dt`` seconds along its path, all at once,
    those whose members all stand within ``slack`` of their slots (``members``: as
    :func:`_members` gives them; returned with the new slots)."""
    followers = batch.followers
    rows, position, slots = members
    d = position - slots
    worst = np.maximum.reduceat(np.hypot(d[:, 0], d[:, 1]), batch.starts)
    slack = np.array([f.slack for f in followers])
    speed = np.array([f.speed for f in followers])
    travelled = np.array([f.travelled for f in followers])
    s = np.where(worst <= slack, np.minimum(travelled + speed * dt, batch.end), travelled)
    before = np.array([f.position for f in followers])
    slots = _place(batch, s)
    velocity = (np.array([f.position for f in followers]) - before) / dt
    for f, sk, v in zip(followers, s.tolist(), velocity):
        f.travelled, f.velocity = sk, v
    return rows, position, slots


def _prefer(batch: _Batch, dt: float, out: np.ndarray,
            members: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    """Write every follower's members' preferred velocities into ``out`` (all at once;
    ``members``: as :func:`_members` gives them)."""
    followers = batch.followers
    rows, position, target = members
    slots, top = target, followers[0].crowd.max_speed[rows]
    small = np.zeros((len(followers), 2))       # the shift scaled by 2**-1000
    steered = np.array([f.mode == "steered" for f in followers])
    with np.errstate(over="ignore", invalid="ignore"):
        if steered.any():
            starts, counts = batch.starts, batch.sizes[:, None]
            gap = (np.add.reduceat(position, starts) - np.add.reduceat(target, starts)) / counts
            velocity = np.array([f.velocity for f in followers])
            lookahead = np.array([f.lookahead for f in followers])[:, None]
            cohesion = np.array([f.cohesion for f in followers])[:, None]
            shift = np.where(steered[:, None], velocity * lookahead + cohesion * gap, 0.0)
            small = np.where(steered[:, None], velocity * (lookahead * 2.0 ** -1000)
                             + cohesion * 2.0 ** -1000 * gap, 0.0)
            target = target + np.repeat(shift, batch.sizes, axis=0)
        to = target - position      # the crowd's own rule: top speed, arriving in one step
        dist = np.hypot(to[:, 0], to[:, 1])
    far = ~np.isfinite(dist)
    if far.any():       # a target past the largest float: the same sum scaled by 2**-1000
        to[far] = (slots[far] - position[far]) * 2.0 ** -1000 \
            + np.repeat(small, batch.sizes, axis=0)[far]
        dist[far] = np.hypot(to[far, 0], to[far, 1])
    speed = np.where(far, top, np.minimum(top, dist / dt))
    out[rows] = to * np.divide(speed, dist, out=np.zeros_like(dist), where=dist > 0)[:, None]
