"""Avoidance for agents on preplanned paths, by sweeping each agent along its own path.

Every agent follows a polyline path at one of a few fixed speeds (its gaits) and has a
collision radius (ACR).  A query for agent A looks ahead along A's path, not along its
velocity, so collisions after a corner are found before the turn:

1. **Detection.**  A's range is ``stopping + horizon × speed`` (m).  A collider C is kept
   when it is in front (``dot(A's direction, C − A) > 0``: those behind avoid A) and the
   two range spheres overlap (``|C − A| <= range_A + range_C + r_A + r_C``; the collision
   radii are added so that a collider A's sweep could touch at the end of its range is not
   dropped).  A is then advanced along its path in steps of its ACR, each taking
   ``ACR / speed`` seconds, and every kept collider along its own path for the same time;
   within each step both move in straight lines, and the exact closest approach of the two
   moving discs is tested (:func:`closest_approach`, :func:`first_contact`).  The first
   contact in time is the collision: both positions, a head-on flag (C's centre within
   ``head_on_angle`` of A's direction), the overlap ``(D − d) / D`` (``D`` the sum of the
   radii, ``d`` their least centre distance over the sweep) and the avoidance vector,
   perpendicular to A's direction and away from C's motion (away from C's centre when C
   moves along A's line or stands; A's right when C is straight ahead).
2. **Trivial resolution.**  The sweep is rerun at each other gait, nearest the agent's
   preferred speed first (ties: slower first); the first clear one is taken.  Else, when A
   can stop within its stopping distance without being touched (A slowing evenly to a halt,
   then standing, for the horizon) and stand where no collider's remaining path passes
   within the two radii (not stopped in someone's path), A stops.  Both are skipped when
   the collider is idle (preferred speed 0): waiting would not clear it, and a slower gait
   only shortens the look-ahead.
3. **Path modification.**  The avoidance point AP is A's position at the collision plus
   ``offset × ACR`` along the avoidance vector; on a navigation ``mesh``, an AP beyond a
   wall is pulled back onto the mesh, and dropped when less than ``min_offset × ACR`` is
   left; it then takes the wall's direction.  The reconnection point RP is the farthest
   point of the old path (sampled every ACR) that AP sees on the mesh and whose direction
   from AP is ahead and at least ``reconnect_angle`` off AP's direction.  A's path up to RP
   becomes two cubic Béziers through AP (tangent to A's direction at the start, to AP's
   direction at AP and to the path at RP), sampled into a polyline every half ACR.  A
   candidate is kept when every new segment stays on the mesh (raycast) and the sweep of
   the new path is clear or cleared by a gait change; else the opposite avoidance vector is
   tried; else the candidate with the least overlap is taken (``resolved`` false); with no
   candidate on the mesh, A stops (``resolved`` false).
4. **Spacing.**  With no collision, an agent closer than ``spacing`` behind a moving agent
   going the same way (directions within 30 degrees) and slower takes the fastest gait no
   faster than it (or stops).

:meth:`PathAvoidance.resolve` queries the agents one after the other and applies each
decision at once, so later agents see the speeds and paths chosen before them: the order of
the agents matters, by design.  That loop over agents is in Python; each query's work over
the colliders (range tests, sampling all their paths, the moving-disc tests over all sweep
steps) is vectorised with numpy.  Agents that waited or slowed go back to their preferred
speed as soon as its sweep is clear.

Units: metres, seconds, metres per second; angles in degrees.  Paths are ``(n, 2)`` float64
polylines, ``(x, y)``.

>>> system = PathAvoidance()
>>> a = system.add([(0, 0), (10, 0)], speed=1.0, speeds=(0.5, 1.0, 1.5), radius=0.3)
>>> b = system.add([(2, -2), (2, 8)], speed=1.0, speeds=(1.0,), radius=0.3)
>>> hit = system.detect(a)
>>> hit.collider, hit.head_on, round(hit.time, 3)
(1, False, 1.576)
>>> decision = system.query(a)
>>> decision.order, decision.speed
(<Order.SET_SPEED: 'set_speed'>, 0.5)
>>> system.query(b).order               # a has not slowed yet, and b has one gait
<Order.STOP: 'stop'>
>>> system.apply(a, decision)
>>> system.query(b).order, system.detect(b) is None
(<Order.OK: 'ok'>, True)
"""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass
from enum import Enum
from typing import Any

import numpy as np

from .._deprecated import positional_options
from .._validate import positive_float, reals
from ..errors import InvalidQueryError, brief
from ..geometry.obstacles import as_points
from ..results import _fields_equal


class Order(Enum):
    """What a query tells the agent to do."""

    OK = "ok"
    SET_SPEED = "set_speed"
    STOP = "stop"
    NEW_PATH = "new_path"


@dataclass(frozen=True)
class Collision:
    """The first collision found by a sweep.

    ``collider``: the other agent's id; ``time``: seconds from now to first contact;
    ``distance``: how far along its path A is then (m); ``position``/``collider_position``:
    both centres at first contact; ``forward``: A's unit direction there; ``head_on``: C's
    centre within the head-on angle of it; ``overlap``: ``(D − d) / D``, ``D`` the sum of
    the radii and ``d`` the least centre distance over the sweep (0 touching, 1 through the
    centre); ``avoidance``: the unit avoidance vector (perpendicular to ``forward``)."""

    collider: int
    time: float
    distance: float
    position: np.ndarray
    collider_position: np.ndarray
    forward: np.ndarray
    head_on: bool
    overlap: float
    avoidance: np.ndarray

    __eq__ = _fields_equal


@positional_options("path", "collision", "resolved")
@dataclass(frozen=True)
class Decision:
    """A query's answer: the ``order``, the ``speed`` to walk at (m/s; 0 for a stop), the
    new ``path`` for :attr:`Order.NEW_PATH` (``(n, 2)``, from the agent's position), the
    ``collision`` that caused it and whether it is ``resolved`` (false when only the
    overlap could be reduced or the agent had to stop in someone's way)."""

    order: Order
    speed: float
    _: KW_ONLY
    path: np.ndarray | None = None
    collision: Collision | None = None
    resolved: bool = True

    __eq__ = _fields_equal


@positional_options("horizon")
def detection_range(speed: float, stopping: float, *, horizon: float = 2.0) -> float:
    """How far ahead along its path an agent looks: ``stopping + horizon × speed`` (m)."""
    return positive_float("stopping", stopping, allow_zero=True) \
        + positive_float("horizon", horizon) * positive_float("speed", speed, allow_zero=True)


def _motion(a0: Any, a1: Any, c0: Any, c1: Any) -> tuple[np.ndarray, np.ndarray]:
    arrays = [reals(name, v) for name, v in (("a0", a0), ("a1", a1), ("c0", c0), ("c1", c1))]
    try:
        a0, a1, c0, c1 = np.broadcast_arrays(*arrays)
    except ValueError:
        raise InvalidQueryError("a0, a1, c0, c1 must broadcast together") from None
    if a0.shape[-1:] != (2,) or not all(np.isfinite(v).all() for v in (a0, a1, c0, c1)):
        raise InvalidQueryError("a0, a1, c0, c1 must be finite (..., 2) points")
    return c0 - a0, (c1 - c0) - (a1 - a0)


def closest_approach(a0: Any, a1: Any, c0: Any, c1: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two discs' centres moving in straight lines over one interval, A from ``a0`` to
    ``a1`` and C from ``c0`` to ``c1`` (``(..., 2)``, broadcast): the fraction of the
    interval (0..1) at which they are closest (the earliest) and that centre distance."""
    d0, w = _motion(a0, a1, c0, c1)
    ww = (w * w).sum(-1)
    tau = np.clip(np.divide(-(d0 * w).sum(-1), ww, out=np.zeros_like(ww), where=ww > 0),
                  0.0, 1.0)
    gap = d0 + tau[..., None] * w
    return tau, np.hypot(gap[..., 0], gap[..., 1])


def first_contact(a0: Any, a1: Any, c0: Any, c1: Any, reach: Any) -> np.ndarray:
    """The earliest fraction (0..1) of the interval at which the centres of
    :func:`closest_approach` come within ``reach`` (the sum of the radii), ``inf`` when they
    do not."""
    d0, w = _motion(a0, a1, c0, c1)
    reach = reals("reach", reach)
    if not (np.isfinite(reach).all() and (reach >= 0).all()):
        raise InvalidQueryError(f"reach {brief(reach)} must be >= 0 and finite")
    a = (w * w).sum(-1)
    b = (d0 * w).sum(-1)
    c = (d0 * d0).sum(-1) - reach * reach
    disc = b * b - a * c
    root = np.sqrt(np.maximum(disc, 0.0))
    tau = np.divide(-b - root, a, out=np.full(np.broadcast(a, disc).shape, np.inf),
                    where=(a > 0) & (disc >= 0))
    tau = np.where((tau >= 0) & (tau <= 1), tau, np.inf)
    return np.where(c <= 0, 0.0, tau)


class PathAvoidance:
    """Agents on preplanned paths and the queries that keep them apart (see the module).

    ``horizon`` (s, > 0, default 2): look-ahead time; ``head_on_angle`` (degrees, 0..90,
    default 10); ``offset`` (ACRs, > 0, default 5): how far aside the avoidance point lies;
    ``min_offset`` (ACRs, > 0, default 1): the least offset kept after pulling the point
    onto the mesh; ``reconnect_angle`` (degrees, 0..90, default 8); ``spacing`` (m, >= 0,
    default 0 = off): the least distance behind a slower agent going the same way;
    ``mesh``: an optional :class:`~wayfinding.navmesh.NavMesh` the paths lie on.

    Agents are numbered 0, 1, … in the order they are added.
    """

    def __init__(self, *, horizon: float = 2.0, head_on_angle: float = 10.0,
                 offset: float = 5.0, min_offset: float = 1.0, reconnect_angle: float = 8.0,
                 spacing: float = 0.0, mesh: Any = None):
        self.horizon = positive_float("horizon", horizon)
        self.head_on_angle = _angle(head_on_angle, "head_on_angle")
        self.offset = positive_float("offset", offset)
        self.min_offset = positive_float("min_offset", min_offset)
        self.reconnect_angle = _angle(reconnect_angle, "reconnect_angle")
        self.spacing = positive_float("spacing", spacing, allow_zero=True)
        if mesh is not None and not (hasattr(mesh, "raycast") and hasattr(mesh, "locate")):
            raise InvalidQueryError(f"mesh {mesh!r} must be a NavMesh")
        self.mesh = mesh
        self._paths: list[np.ndarray] = []
        self._speeds: list[np.ndarray] = []
        self.progress = np.zeros(0)        # m walked along each path
        self.speed = np.zeros(0)           # current speed, m/s
        self.preferred = np.zeros(0)
        self.radius = np.zeros(0)
        self.stopping = np.zeros(0)
        self._pts = np.zeros((0, 2, 2))
        self._cum = np.zeros((0, 2))

    def __len__(self) -> int:
        return len(self._paths)

    # ------------------------------------------------------------------ agents
    def add(self, path: Any, *, speed: float, speeds: Any = None, radius: float = 0.4,
            stopping: float = 0.0) -> int:
        """Add an agent walking ``path`` (``(n, 2)``; one point for an idle agent) at its
        preferred ``speed`` (m/s, 0 for idle), with gaits ``speeds`` (m/s, > 0; default just
        ``speed``), collision ``radius`` (m) and ``stopping`` distance (m, from its
        animation data); returns its id."""
        pts = _path(path, "path")
        speed = positive_float("speed", speed, allow_zero=True)
        if speed > 0 and len(pts) < 2:
            raise InvalidQueryError("a moving agent's path needs two distinct points")
        try:
            gaits = np.unique(np.array([speed]) if speeds is None else reals("speeds", speeds))
        except InvalidQueryError:
            gaits = np.zeros(0)
        gaits = gaits[gaits > 0] if speed == 0 and speeds is None else gaits
        if (speed > 0 and not len(gaits)) or not np.isfinite(gaits).all() \
                or (gaits <= 0).any():
            raise InvalidQueryError(f"speeds {speeds!r} must be numbers > 0")
        radius = positive_float("radius", radius)
        stopping = positive_float("stopping", stopping, allow_zero=True)
        self._paths.append(pts)
        self._speeds.append(np.union1d(gaits, [speed]) if speed > 0 else gaits)
        for name, value in (("progress", 0.0), ("speed", speed), ("preferred", speed),
                            ("radius", radius), ("stopping", stopping)):
            setattr(self, name, np.append(getattr(self, name), value))
        self._pack()
        return len(self._paths) - 1

    def _pack(self) -> None:
        """Pad every path to one length (repeating its last point) for vectorised sampling."""
        n = max(max(len(p) for p in self._paths), 2)
        self._pts = np.empty((len(self._paths), n, 2))
        self._cum = np.empty((len(self._paths), n))
        for i, p in enumerate(self._paths):
            self._pts[i, :len(p)] = p
            self._pts[i, len(p):] = p[-1]
            self._cum[i] = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(
                self._pts[i], axis=0).T))])

    def _row(self, agent: Any) -> int:
        if isinstance(agent, bool) or not isinstance(agent, (int, np.integer)) \
                or not 0 <= agent < len(self._paths):
            raise InvalidQueryError(f"no agent {agent!r} (ids 0..{len(self._paths) - 1})")
        return int(agent)

    def position(self, agent: int) -> np.ndarray:
        """The agent's centre, ``(2,)``."""
        i = self._row(agent)
        return self._sample(np.array([i]), self.progress[[i]][:, None])[0, 0]

    def remaining(self, agent: int) -> np.ndarray:
        """The rest of the agent's path, from its position: ``(n, 2)``."""
        i = self._row(agent)
        p, cum = self._paths[i], self._cum[i, :len(self._paths[i])]
        return np.vstack([self.position(i), p[cum > self.progress[i]]])

    def set_path(self, agent: int, path: Any) -> None:
        """Give the agent a new path (it starts at its first point)."""
        i = self._row(agent)
        pts = _path(path, "path")
        if self.preferred[i] > 0 and len(pts) < 2:
            raise InvalidQueryError("a moving agent's path needs two distinct points")
        self._paths[i] = pts
        self.progress[i] = 0.0
        self._pack()

    def apply(self, agent: int, decision: Decision) -> None:
        """Carry out a query's decision."""
        i = self._row(agent)
        if decision.order is Order.NEW_PATH:
            self.set_path(i, decision.path)
        self.speed[i] = decision.speed

    def resolve(self) -> list[Decision]:
        """Query every agent in id order, applying each decision before the next query."""
        out = []
        for i in range(len(self)):
            decision = self.query(i)
            self.apply(i, decision)
            out.append(decision)
        return out

    def advance(self, dt: float) -> None:
        """Move every agent ``dt`` seconds along its path at its speed (stopping at the end)."""
        dt = positive_float("dt", dt)
        self.progress = np.minimum(self.progress + self.speed * dt, self._cum[:, -1])

    # ------------------------------------------------------------------ sampling
    def _sample(self, rows: np.ndarray, s: np.ndarray) -> np.ndarray:
        """Points at arc lengths ``s`` (``(m, k)``) along the paths of ``rows``: ``(m, k, 2)``."""
        return _along(self._pts[rows], self._cum[rows], s)

    def _range(self, speed: np.ndarray) -> np.ndarray:
        return np.where(speed > 0, self.stopping, 0.0) + self.horizon * speed

    def _colliders(self, i: int, start: np.ndarray, forward: np.ndarray, reach: float
                   ) -> np.ndarray:
        """Rows in front of agent ``i`` whose range sphere meets ``reach`` around it."""
        pos = self._sample(np.arange(len(self)), self.progress[:, None])[:, 0]
        rel = pos - start
        near = np.hypot(rel[:, 0], rel[:, 1]) \
            <= reach + self._range(self.speed) + self.radius + self.radius[i]
        keep = (rel @ forward > 0) & near
        keep[i] = False
        return np.flatnonzero(keep)

    def _sweep(self, i: int, times: np.ndarray, a_pos: np.ndarray, s_a: np.ndarray,
               path: np.ndarray, cum: np.ndarray, rows: np.ndarray) -> Collision | None:
        """Agent ``i`` at ``a_pos`` (``(k + 1, 2)``) at ``times`` against ``rows`` moving
        along their paths: the first collision, or None."""
        if not len(rows) or len(times) < 2:
            return None
        s_c = self.progress[rows, None] + self.speed[rows, None] * times[None, :]
        c_pos = self._sample(rows, s_c)                              # (m, k + 1, 2)
        a0, a1 = a_pos[None, :-1], a_pos[None, 1:]
        c0, c1 = c_pos[:, :-1], c_pos[:, 1:]
        reach = (self.radius[i] + self.radius[rows])[:, None]
        frac = first_contact(a0, a1, c0, c1, reach)                  # (m, k)
        if not np.isfinite(frac).any():
            return None
        dt = np.diff(times)
        when = np.where(np.isfinite(frac), times[None, :-1] + frac * dt[None, :], np.inf)
        j, k = np.unravel_index(np.argmin(when.T), when.T.shape)[::-1]   # earliest, low row
        f = float(frac[j, k])
        pa = a_pos[k] + f * (a_pos[k + 1] - a_pos[k])
        pc = c_pos[j, k] + f * (c_pos[j, k + 1] - c_pos[j, k])
        dist_a = float(s_a[k] + f * (s_a[k + 1] - s_a[k]))
        forward = _direction(path, cum, dist_a)
        to_c = pc - pa
        norm = math.hypot(*to_c)
        head_on = norm == 0 or float(forward @ to_c) >= norm * math.cos(
            math.radians(self.head_on_angle))
        _, gaps = closest_approach(a0[0], a1[0], c0[j], c1[j])
        big_d = float(reach[j, 0])
        overlap = (big_d - float(gaps.min())) / big_d
        left = np.array([-forward[1], forward[0]])
        motion = (c1[j, k] - c0[j, k]) / dt[k] if dt[k] > 0 else np.zeros(2)
        side = _sign(float(left @ motion), 1e-9 * (1 + math.hypot(*motion)))
        if side == 0:
            side = _sign(float(left @ to_c), 1e-9 * (1 + norm))
        avoid = -left if side >= 0 else left                  # away; A's right when even
        return Collision(int(rows[j]), float(when[j, k]), dist_a, pa, pc, forward,
                         bool(head_on), float(overlap), avoid)

    # ------------------------------------------------------------------ detection
    @positional_options("speed", "path")
    def detect(self, agent: int, *, speed: float | None = None, path: Any = None
               ) -> Collision | None:
        """The first collision on agent ``agent``'s sweep at ``speed`` (default: its
        current speed) along ``path`` (default: the rest of its own path), or None."""
        i = self._row(agent)
        v = self.speed[i] if speed is None else positive_float("speed", speed, allow_zero=True)
        pts = self.remaining(i) if path is None else _path(path, "path")
        if v <= 0 or len(pts) < 2:
            return None
        cum = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
        reach = float(self.stopping[i] + self.horizon * v)
        length = min(reach, float(cum[-1]))
        acr = float(self.radius[i])
        steps = max(1, math.ceil(length / acr - 1e-9))
        s_a = np.minimum(np.arange(steps + 1) * acr, length)
        a_pos = _along(pts[None], cum[None], s_a[None])[0]
        rows = self._colliders(i, pts[0], _direction(pts, cum, 0.0), reach)
        return self._sweep(i, s_a / v, a_pos, s_a, pts, cum, rows)

    def _stop_is_clear(self, i: int) -> bool:
        """Whether agent ``i`` can slow evenly to a halt over its stopping distance, then
        stand for the horizon, without being touched by the colliders in front, at a spot
        off their remaining paths."""
        pts = self.remaining(i)
        v = float(self.speed[i])
        stop = float(self.stopping[i]) if v > 0 else 0.0
        if len(pts) < 2:
            pts = np.vstack([pts, pts])
            cum = np.zeros(2)
        else:
            cum = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
        stop = min(stop, float(cum[-1]))
        t_stop = 2 * stop / v if v > 0 else 0.0
        pace = max(v, float(self.preferred[i]), 1e-9)
        total = t_stop + self.horizon
        steps = max(1, math.ceil(total / (self.radius[i] / pace)))
        times = np.linspace(0.0, total, steps + 1)
        u = np.minimum(times / t_stop, 1.0) if t_stop > 0 else np.ones_like(times)
        s_a = stop * (1 - (1 - u) ** 2)
        a_pos = _along(pts[None], cum[None], s_a[None])[0]
        forward = _direction(pts, cum, 0.0) if cum[-1] > 0 else np.array([1.0, 0.0])
        rows = self._colliders(i, pts[0], forward, stop + self.horizon * pace)
        if self._sweep(i, times, a_pos, s_a, pts, cum, rows) is not None:
            return False
        return not (self._path_gaps(rows, a_pos[-1]) < self.radius[i] + self.radius[rows]).any()

    def _path_gaps(self, rows: np.ndarray, point: np.ndarray) -> np.ndarray:
        """Each row's least distance from ``point`` to the rest of its path, ``(m,)``."""
        if not len(rows):
            return np.zeros(0)
        cum, prog = self._cum[rows], self.progress[rows, None]
        starts = self._sample(rows, np.maximum(cum[:, :-1], prog))
        ends = self._pts[rows, 1:]
        d = ends - starts
        l2 = (d * d).sum(-1)
        t = np.clip(np.divide(((point - starts) * d).sum(-1), l2, out=np.zeros_like(l2),
                              where=l2 > 0), 0.0, 1.0)
        off = point - (starts + t[..., None] * d)
        gap = np.hypot(off[..., 0], off[..., 1])
        here = self._sample(rows, prog)[:, 0]
        return np.minimum(np.where(cum[:, 1:] > prog, gap, np.inf).min(1),
                          np.hypot(*(point - here).T))

    # ------------------------------------------------------------------ the query
    def query(self, agent: int) -> Decision:
        """What agent ``agent`` should do this frame (see the module): keep going, change
        speed, stop, or take a new path."""
        i = self._row(agent)
        want = float(self.preferred[i])
        if want == 0:
            return Decision(Order.OK, 0.0)
        hit = self.detect(i, speed=want)
        if hit is None:
            return self._set_speed(i, self._spaced(i, want))
        if self.preferred[hit.collider] > 0:          # an idle collider stays put
            for s in self._gaits(i, skip=want):
                if self.detect(i, speed=s) is None:
                    return self._set_speed(i, s, hit)
            if self._stop_is_clear(i):
                return Decision(Order.STOP, 0.0, collision=hit)
        return self._modify(i, hit, want)

    def _gaits(self, i: int, skip: float) -> list[float]:
        gaits = self._speeds[i]
        order = np.lexsort((gaits, np.abs(gaits - self.preferred[i])))
        return [float(s) for s in gaits[order] if s != skip]

    def _set_speed(self, i: int, s: float, hit: Collision | None = None) -> Decision:
        if s == self.speed[i]:
            return Decision(Order.OK, s, collision=hit)
        return Decision(Order.STOP if s == 0 else Order.SET_SPEED, s, collision=hit)

    def _spaced(self, i: int, s: float) -> float:
        """``s``, or the fastest gait no faster than a slower agent less than ``spacing``
        ahead going the same way (0 when there is none)."""
        if self.spacing == 0 or len(self) < 2:
            return s
        pts = self.remaining(i)
        cum = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
        forward = _direction(pts, cum, 0.0)
        rows = np.flatnonzero((self.speed > 0) & (np.arange(len(self)) != i))
        if not len(rows):
            return s
        pos = self._sample(rows, self.progress[rows, None])
        ahead = self._sample(rows, self.progress[rows, None] + 1e-3)
        heading = ahead[:, 0] - pos[:, 0]
        norm = np.hypot(heading[:, 0], heading[:, 1])
        rel = pos[:, 0] - pts[0]
        close = np.hypot(rel[:, 0], rel[:, 1]) < self.spacing
        same = (heading @ forward) >= math.cos(math.radians(30.0)) * norm
        lead = close & same & (norm > 0) & (rel @ forward > 0) & (self.speed[rows] < s)
        if not lead.any():
            return s
        cap = float(self.speed[rows][lead].min())
        slower = self._speeds[i][self._speeds[i] <= cap]
        return float(slower.max()) if len(slower) else 0.0

    def _modify(self, i: int, hit: Collision, v: float) -> Decision:
        """Path modification round the collision (see the module), or a stop."""
        best: tuple[float, np.ndarray] | None = None
        for sign in (1.0, -1.0):
            path = self._candidate(i, hit, sign * hit.avoidance)
            if path is None:
                continue
            again = self.detect(i, speed=v, path=path)
            if again is None or any(self.detect(i, speed=s, path=path) is None
                                    for s in self._gaits(i, skip=v)):
                return Decision(Order.NEW_PATH, v, path=path, collision=hit)
            if best is None or again.overlap < best[0]:
                best = (again.overlap, path)
        if best is None:
            return Decision(Order.STOP, 0.0, collision=hit, resolved=False)
        return Decision(Order.NEW_PATH, v, path=best[1], collision=hit, resolved=False)

    def _candidate(self, i: int, hit: Collision, avoid: np.ndarray) -> np.ndarray | None:
        """The spliced path through the avoidance point on side ``avoid``, or None when it
        cannot be made on the mesh."""
        acr = float(self.radius[i])
        pts = self.remaining(i)
        cum = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
        origin = hit.position
        ap = origin + self.offset * acr * avoid
        tangent = hit.forward
        mesh = self.mesh
        if mesh is not None:
            if mesh.locate(origin) < 0:
                return None
            ray = mesh.raycast(origin, ap)
            if ray.hit:
                reach = ray.t * self.offset * acr - 1e-6 * acr
                if reach < self.min_offset * acr:
                    return None
                ap = origin + reach * avoid
                wall = np.array([-ray.normal[1], ray.normal[0]])
                tangent = wall if wall @ hit.forward >= 0 else -wall
        # Reconnection: the farthest sample of the old path ahead of AP, seen from it, at
        # least reconnect_angle off AP's direction.
        s = np.append(np.arange(hit.distance + acr, cum[-1], acr), cum[-1])
        s = s[s > hit.distance]
        if not len(s):
            return None
        rp = _along(pts[None], cum[None], s[None])[0]
        to = rp - ap
        along = to @ tangent
        across = np.abs(to[:, 0] * tangent[1] - to[:, 1] * tangent[0])
        ok = (along > 0) & (np.degrees(np.arctan2(across, along)) >= self.reconnect_angle)
        for k in np.flatnonzero(ok)[::-1]:
            if mesh is None or not mesh.raycast(ap, rp[k]).hit:
                break
        else:
            return None
        s_rp, rp = float(s[k]), rp[k]
        first = _bezier(pts[0], _direction(pts, cum, 0.0), ap, tangent, acr)
        second = _bezier(ap, tangent, rp, _direction(pts, cum, s_rp), acr)
        new = np.vstack([first, second[1:]])
        if mesh is not None:
            if (mesh.locate_many(new) < 0).any() or any(
                    mesh.raycast(p, q).hit for p, q in zip(new[:-1], new[1:])):
                return None
        rest = pts[cum > s_rp + 1e-9]
        return _path(np.vstack([new, rest]), "path")


def _angle(value: Any, name: str) -> float:
    v = positive_float(name, value, allow_zero=True)
    if v > 90:
        raise InvalidQueryError(f"{name} {value!r} must be an angle in degrees, 0..90")
    return v


def _sign(x: float, tol: float) -> int:
    return 1 if x > tol else -1 if x < -tol else 0


def _path(value: Any, name: str) -> np.ndarray:
    """A finite ``(n, 2)`` polyline without repeated consecutive points."""
    pts = as_points(value, name)
    if not len(pts):
        raise InvalidQueryError(f"{name} has no points")
    keep = np.ones(len(pts), dtype=bool)
    keep[1:] = np.hypot(*np.diff(pts, axis=0).T) > 0
    return pts[keep]


def _along(pts: np.ndarray, cum: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Points at arc lengths ``s`` (``(m, k)``, clamped to each path) along ``m`` polylines
    ``pts`` (``(m, n, 2)``, n >= 1) with cumulative lengths ``cum`` (``(m, n)``)."""
    if pts.shape[1] == 1:
        return np.repeat(pts, s.shape[1], axis=1)
    s = np.clip(s, 0.0, cum[:, -1:])
    idx = np.clip((cum[:, None, :] <= s[:, :, None]).sum(-1) - 1, 0, pts.shape[1] - 2)
    c0 = np.take_along_axis(cum, idx, 1)
    c1 = np.take_along_axis(cum, idx + 1, 1)
    seg = c1 - c0
    f = np.clip(np.divide(s - c0, seg, out=np.zeros_like(s), where=seg > 0), 0.0, 1.0)
    p0 = np.take_along_axis(pts, idx[..., None], 1)
    p1 = np.take_along_axis(pts, idx[..., None] + 1, 1)
    return p0 + f[..., None] * (p1 - p0)


def _direction(pts: np.ndarray, cum: np.ndarray, s: float) -> np.ndarray:
    """The unit direction of the polyline (no repeated points) at arc length ``s``."""
    k = int(np.clip(np.searchsorted(cum, s, side="right") - 1, 0, len(pts) - 2))
    d = pts[k + 1] - pts[k]
    return d / math.hypot(*d)


def _bezier(p0: np.ndarray, t0: np.ndarray, p1: np.ndarray, t1: np.ndarray, acr: float
            ) -> np.ndarray:
    """The cubic Bézier from ``p0`` (unit tangent ``t0``) to ``p1`` (tangent ``t1``), its
    handles a third of the chord long, sampled about every half ``acr``."""
    chord = math.hypot(*(p1 - p0))
    n = max(4, math.ceil(chord / (0.5 * acr)))
    u = np.linspace(0.0, 1.0, n + 1)[:, None]
    q1, q2 = p0 + t0 * chord / 3, p1 - t1 * chord / 3
    return ((1 - u) ** 3 * p0 + 3 * (1 - u) ** 2 * u * q1 + 3 * (1 - u) * u ** 2 * q2
            + u ** 3 * p1)
