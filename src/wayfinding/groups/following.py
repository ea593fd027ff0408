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
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validate import choice, finite_points, positive_float
from ..crowd import ORCA, Crowd
from ..errors import InvalidQueryError, brief
from .shapes import FormationShape, unit_heading

MODES = ("blind", "steered", "autonomous")


class FormationFollower:
    """Walk ``shape`` along ``path`` with the agents ``agents`` of ``crowd`` in its slots.

    ``agents``: ``(n,)`` agent ids, the one in each slot of ``shape`` (``n`` slots; e.g.
    :meth:`~wayfinding.groups.AgentGroup.slot_members`); ``path``: ``(m, 2)`` world
    points (``m >= 1``; the reference point starts on the first); ``mode``: see
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
        ids = np.asarray(agents)
        if ids.shape != (len(shape),) or ids.dtype.kind not in "iu" \
                or len(np.unique(ids)) != len(ids):
            raise InvalidQueryError(f"agents {brief(agents)} must be {len(shape)} distinct "
                                    "agent ids, one per slot")
        for a in ids.tolist():
            crowd.row(a)                    # refuses an unknown id
        pts, _ = finite_points("path", path)
        keep = np.ones(len(pts), dtype=bool)
        keep[1:] = np.any(pts[1:] != pts[:-1], axis=1)
        self.path = pts[keep]
        seg = np.hypot(*np.diff(self.path, axis=0).T)
        self._arc = np.concatenate([[0.0], np.cumsum(seg)])
        self.crowd, self.agents, self.shape = crowd, ids.astype(np.int64), shape
        self._cached: np.ndarray | None = None
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
        _place([self], np.zeros(1))

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
        return self.travelled >= self._arc[-1]

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
        _advance([self], dt, _members([self]))

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
        _prefer([self], dt, out, _members([self]))
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
    followers = list(followers)
    for f in followers:
        if not isinstance(f, FormationFollower) or f.crowd is not crowd:
            raise InvalidQueryError(f"{brief(f)} is not a FormationFollower of this crowd")
    pref = crowd.preferred_velocity(dt)
    if followers:
        members = _members(followers)
        _prefer(followers, dt, pref, _advance(followers, dt, members))
    if orca is None:
        crowd.step(dt, velocity=pref)
    else:
        orca.step(crowd, dt, preferred=pref)


def _members(followers: list[FormationFollower]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All followers' member rows (looked up again only where rows moved), their positions
    and slots, and where each follower's run starts (the followers share one crowd)."""
    crowd = followers[0].crowd
    starts = np.cumsum([0] + [len(f.agents) for f in followers[:-1]])
    cached = [f._cached for f in followers if f._cached is not None]
    rows: np.ndarray | None = None
    if len(cached) == len(followers):
        rows = np.concatenate(cached)
        ids = crowd.ids
        if rows.max() >= len(ids) or \
                not (ids[rows] == np.concatenate([f.agents for f in followers])).all():
            rows = None
    if rows is None:
        rows = np.concatenate([f._rows() for f in followers])
    slots = np.concatenate([f._slots for f in followers])
    return rows, crowd.position[rows], slots, starts


def _at(arc: np.ndarray, path: np.ndarray, first: np.ndarray, counts: np.ndarray,
        s: np.ndarray) -> np.ndarray:
    """The points at distances ``s`` along the packed paths (``first``, ``counts``: each
    path's run in ``arc``, its points' distances along it, and ``path``), clamped to the
    paths' ends."""
    last = first + counts - 1
    s = np.minimum(np.maximum(s, 0.0), arc[last])
    # the number of a path's points at or before s: its searchsorted(s, side="right")
    below = np.add.reduceat(arc <= np.repeat(s, counts), first, dtype=np.intp)
    k = first + np.clip(below - 1, 0, np.maximum(counts - 2, 0))
    nxt = np.minimum(k + 1, last)
    span = arc[nxt] - arc[k]
    t = (s - arc[k]) / np.where(nxt > k, span, 1.0)
    return path[k] + t[:, None] * (path[nxt] - path[k])


def _place(followers: list[FormationFollower], s: np.ndarray) -> np.ndarray:
    """Put every follower's reference point at its distance ``s`` along its path (its
    position, heading and slots; the slots of all, packed, returned)."""
    arcs = [f._arc for f in followers]
    counts = np.array([len(a) for a in arcs])
    first = np.cumsum(counts) - counts
    arc, path = np.concatenate(arcs), np.concatenate([f.path for f in followers])
    blend = np.array([f._blend for f in followers])
    facing = np.array([f.facing for f in followers])
    p = _at(arc, path, first, counts, s)
    left = arc[first + counts - 1] - s
    ahead = (_at(arc, path, first, counts, s + blend) - p).tolist()
    along = np.array([math.atan2(y, x) for x, y in ahead])
    t = np.minimum(1.0, np.maximum(0.0, 1.0 - left / blend))
    goal = np.array([math.atan2(y, x) for x, y in facing.tolist()])
    turn = (goal - along + math.pi) % (2 * math.pi) - math.pi
    a = (along + t * turn).tolist()
    turned = np.array([(math.cos(v), math.sin(v)) for v in a])
    heading = np.where(left[:, None] > 0.0, turned, facing)
    sizes = [len(f.agents) for f in followers]
    h = np.repeat(heading, sizes, axis=0)
    off = np.concatenate([f.shape.offsets for f in followers])
    slots = np.repeat(p, sizes, axis=0) + off[:, :1] * h \
        + off[:, 1:] * np.stack([-h[:, 1], h[:, 0]], axis=1)
    end = np.cumsum(sizes)
    for f, k, j in zip(followers, (end - sizes).tolist(), end.tolist()):
        f._slots = slots[k:j]
    for f, pk, hk in zip(followers, p, heading):
        f.position, f.heading = pk, hk
    return slots


def _advance(followers: list[FormationFollower], dt: float,
             members: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Move every follower's reference point ``dt`` seconds along its path, all at once,
    those whose members all stand within ``slack`` of their slots (``members``: as
    :func:`_members` gives them; returned with the new slots)."""
    rows, position, slots, starts = members
    d = position - slots
    worst = np.maximum.reduceat(np.hypot(d[:, 0], d[:, 1]), starts)
    slack = np.array([f.slack for f in followers])
    speed = np.array([f.speed for f in followers])
    travelled = np.array([f.travelled for f in followers])
    end = np.array([f._arc[-1] for f in followers])
    s = np.where(worst <= slack, np.minimum(travelled + speed * dt, end), travelled)
    before = np.array([f.position for f in followers])
    slots = _place(followers, s)
    velocity = (np.array([f.position for f in followers]) - before) / dt
    for f, sk, v in zip(followers, s.tolist(), velocity):
        f.travelled, f.velocity = sk, v
    return rows, position, slots, starts


def _prefer(followers: list[FormationFollower], dt: float, out: np.ndarray,
            members: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]) -> None:
    """Write every follower's members' preferred velocities into ``out`` (all at once;
    ``members``: as :func:`_members` gives them)."""
    rows, position, target, starts = members
    steered = np.array([f.mode == "steered" for f in followers])
    if steered.any():
        counts = np.diff(np.append(starts, len(rows)))[:, None]
        gap = (np.add.reduceat(position, starts) - np.add.reduceat(target, starts)) / counts
        velocity = np.array([f.velocity for f in followers])
        lookahead = np.array([f.lookahead for f in followers])[:, None]
        cohesion = np.array([f.cohesion for f in followers])[:, None]
        shift = np.where(steered[:, None], velocity * lookahead + cohesion * gap, 0.0)
        target = target + np.repeat(shift, counts[:, 0], axis=0)
    to = target - position          # the crowd's own rule: top speed, arriving in one step
    dist = np.hypot(to[:, 0], to[:, 1])
    speed = np.minimum(followers[0].crowd.max_speed[rows], dist / dt)
    out[rows] = to * np.divide(speed, dist, out=np.zeros_like(dist), where=dist > 0)[:, None]
