"""Steering pedestrians round compound vehicles by their convex hulls.

A :class:`Vehicle` is a set of oriented boxes in its own frame (a carriage and its horses;
parts come and go at runtime) placed in the world by a pose and moving with one velocity.
:meth:`Vehicle.hull` grows the boxes by an agent radius, merges and convexifies them
(:mod:`wayfinding.vehicles.hulls`) once per set of parts and radius in the vehicle's frame,
and places the result in the world once per pose: every agent asking for the same radius
gets the same :class:`VehicleHull` object.

:func:`avoid_hulls` gives an agent's next waypoint against a list of hulls, treating the agent as
a point:

* hulls whose bounding box misses the box round the agent's segment are skipped (the broad
  phase);
* a segment that misses every hull is walked straight;
* otherwise, on the first hull hit, the furthest hull vertex visible from the agent is found
  on each side of the hit edge (walking down the clockwise indices goes right, up goes left)
  and the side whose vertex turns the heading least is taken; an agent crossing the path of
  a moving vehicle (:func:`relative_direction` is ``CROSSING``) takes the side behind it;
  when the way to that vertex hits another hull, the agent aims round that one instead
  (once per hull at most);
* an agent or destination inside a hull or on its boundary (in a pocket between the real
  contour and the hull, such as an interaction point on the vehicle), when the straight
  line meets the contour, takes the shortest path across the hull's pocket triangles and a
  band round the hull (``pockets="plan"``, :func:`~wayfinding.vehicles.pockets.pocket_path`)
  or hugs the contour (``pockets="hug"``, and wherever the pockets are not usable:
  :func:`~wayfinding.vehicles.pockets.hug_contour`); a destination inside the contour
  itself gives way to the nearest point of the contour;
* an agent inside the contour itself (a vehicle drove onto it) heads for the nearest point
  outside.

:func:`braking_factor` gives the share of its speed an agent keeps so as to pass behind a
moving vehicle rather than cut into its way ahead; :func:`street_crossing` puts both to work
on pedestrians crossing a street of moving carriages.

>>> cart = Vehicle([(0.0, 0.0, 2.0, 1.0, 0.0)], position=(5.0, 0.0))
>>> hull = cart.hull(0.5)
>>> hull is cart.hull(0.5)
True
>>> avoid_hulls((0.0, 3.0), (10.0, 3.0), [hull]).tolist()
[10.0, 3.0]
>>> avoid_hulls((0.0, 0.2), (10.0, 0.2), [hull], margin=0.0).round(3).tolist()
[2.5, 1.5]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from .._validate import (
    choice,
    count,
    finite_point,
    finite_points,
    number,
    positive_float,
    time_steps,
)
from ..crowd import Crowd
from ..errors import InvalidGeometryError, InvalidQueryError, brief
from ..geometry import orient2d
from ..geometry.obstacles import closest_on_segments
from ..results import _fields_equal
from .hulls import (
    _boundary_gaps,
    _cross,
    _following,
    _inside,
    box_polygon,
    convexify,
    merge_boxes,
    point_in_polygon,
)
from .pockets import _clear, _foot, _hug, _ring_path, _strictly_inside

_T = TypeVar("_T")


@dataclass(frozen=True, eq=False)
class VehicleHull:
    """One vehicle's shapes in world coordinates for one agent radius.

    ``contour``: the merged clockwise contour of the grown boxes, ``(n, 2)`` float64;
    ``hull``: its clockwise convex hull, ``(m, 2)``; ``pockets``: the triangles between
    them, ``(k, 3, 2)``; ``lo``/``hi``: the hull's bounding box corners, ``(2,)``;
    ``velocity``: the vehicle's velocity, ``(2,)`` world units per second.
    """

    contour: np.ndarray
    hull: np.ndarray
    pockets: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    velocity: np.ndarray

    __eq__ = _fields_equal


class Vehicle:
    """A compound vehicle: oriented boxes in its own frame, a pose and a velocity.

    ``parts``: rows ``(cx, cy, half_length, half_width, heading)`` in the vehicle's frame
    (metres, radians); ``position``/``heading``: the frame's origin and angle in the world;
    ``velocity``: world units per second (only the whole vehicle's velocity is modelled).
    """

    def __init__(self, parts: ArrayLike, *, position: ArrayLike = (0.0, 0.0),
                 heading: float = 0.0, velocity: ArrayLike = (0.0, 0.0)) -> None:
        rows, _ = finite_points("parts", parts, dim=5, error=InvalidGeometryError)
        self._parts = [_part(r) for r in rows]
        self._corners: np.ndarray | None = None        # the parts' corners in its frame
        self._local: dict[float, tuple[np.ndarray, int, int]] = {}   # contour, hull, pockets
        self._world: dict[float, VehicleHull] = {}
        self.move(position, heading, velocity=velocity)

    @property
    def parts(self) -> np.ndarray:
        """The parts, ``(p, 5)`` float64 rows ``(cx, cy, half_length, half_width, heading)``."""
        return np.array(self._parts, dtype=np.float64).reshape(-1, 5)

    def add_part(self, part: ArrayLike) -> None:
        """Add a box ``(cx, cy, half_length, half_width, heading)`` in the vehicle's frame."""
        self._parts.append(_part(finite_point("part", part, dim=5, error=InvalidGeometryError)))
        self._corners = None
        self._local.clear()
        self._world.clear()

    def remove_part(self, index: int) -> None:
        """Remove the part at ``index`` (a vehicle keeps at least one part)."""
        if len(self._parts) == 1 or not -len(self._parts) <= index < len(self._parts):
            raise InvalidQueryError(f"index {index!r} must name one of the {len(self._parts)} "
                                    "parts, and the last part cannot be removed")
        del self._parts[index]
        self._corners = None
        self._local.clear()
        self._world.clear()

    def move(self, position: ArrayLike, heading: float, *,
             velocity: ArrayLike = (0.0, 0.0)) -> None:
        """Place the vehicle: frame origin ``position``, angle ``heading``, ``velocity``."""
        self.position = finite_point("position", position, error=InvalidGeometryError)
        self.heading = number("heading", heading, error=InvalidGeometryError)
        self.velocity = finite_point("velocity", velocity, error=InvalidGeometryError)
        self._world.clear()

    def _advance(self, dt: float) -> None:
        """Move the vehicle by its velocity for ``dt`` seconds (checked by the caller)."""
        self.position = self.position + self.velocity * dt
        self._world.clear()

    def boxes(self) -> np.ndarray:
        """The parts' corners in the world, ``(p, 4, 2)`` float64, each box clockwise."""
        if self._corners is None:
            self._corners = np.stack([box_polygon(r[:2], r[2:4], r[4]) for r in self._parts])
        return self._place(self._corners)

    def hull(self, radius: float) -> VehicleHull:
        """The hull for agents of ``radius`` (>= 0), built once per parts and radius and
        placed once per pose."""
        r = positive_float("radius", radius, allow_zero=True, error=InvalidGeometryError)
        if r not in self._world:
            if r not in self._local:
                contour = merge_boxes(self._parts, grow=r)
                hull, pockets = convexify(contour)
                self._local[r] = (np.concatenate([contour, hull, pockets.reshape(-1, 2)]),
                                  len(contour), len(hull))
            shapes, c, m = self._local[r]
            placed = self._place(shapes)              # one product for the three shapes
            hull = placed[c:c + m]
            self._world[r] = VehicleHull(placed[:c], hull, placed[c + m:].reshape(-1, 3, 2),
                                         hull.min(axis=0), hull.max(axis=0),
                                         self.velocity.copy())
        return self._world[r]

    def _place(self, local: np.ndarray) -> np.ndarray:
        cos, sin = math.cos(self.heading), math.sin(self.heading)
        return local @ np.array([[cos, sin], [-sin, cos]]) + self.position


def _instances(name: str, value: Any, kind: type[_T]) -> list[_T]:
    """``value``, a sequence of ``kind`` objects, as a list, or
    :class:`~wayfinding.errors.InvalidQueryError` naming ``name``."""
    try:
        items = list(value)
    except TypeError:
        raise InvalidQueryError(f"{name} {brief(value)} must be a sequence of "
                                f"{kind.__name__} objects") from None
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            raise InvalidQueryError(f"{name}[{i}] {brief(item)} must be a {kind.__name__}")
    return items


def _part(row: np.ndarray) -> tuple[float, ...]:
    if not (row[2:4] > 0).all():
        raise InvalidGeometryError(f"part {row.tolist()} must have half_length and half_width "
                                   "> 0")
    return tuple(row.tolist())


def _clip(p: np.ndarray, q: np.ndarray, hull: np.ndarray) -> tuple[float, float, int]:
    """The parameter interval of p→q inside the convex clockwise ``hull`` and the index of
    the edge where it enters (-1 when p is already inside); empty when t0 >= t1."""
    e = _following(hull) - hull
    num, den = -_cross(e, p - hull), _cross(e, q - p)
    if ((den == 0) & (num <= 0)).any():
        return 1.0, 0.0, -1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = num / den
    enter = np.where(den < 0, t, -np.inf)
    k = int(enter.argmax())                  # the first edge entered last
    t0, entry = (float(enter[k]), k) if enter[k] > 0 else (0.0, -1)
    return t0, float(np.where(den > 0, t, 1.0).min(initial=1.0)), entry


def _crosses_hull(p: np.ndarray, q: np.ndarray, hull: np.ndarray, eps: float) -> bool:
    t0, t1, _ = _clip(p, q, hull)
    return (t1 - t0) * float(np.hypot(*(q - p))) > eps


def _nearest_outside(point: np.ndarray, contour: np.ndarray, margin: float) -> np.ndarray:
    foot, k = _foot(point, contour)
    e = contour[(k + 1) % len(contour)] - contour[k]
    normal = np.array([-e[1], e[0]])                # outwards: the contour runs clockwise
    return foot + normal / float(np.hypot(*normal)) * max(margin, 1e-6)


def _in_hull(p: np.ndarray, goal: np.ndarray, h: VehicleHull, pockets: str, eps: float
             ) -> np.ndarray:
    """The next waypoint p→goal when one end lies in the hull and the way is not clear:
    across the local mesh of the pockets, or along the contour; a goal inside the contour
    gives way to its nearest point on the contour."""
    if _strictly_inside(goal[None], h.contour, eps)[0]:
        goal, _ = _foot(goal, h.contour)
    if pockets == "plan":
        path = _ring_path(p, goal, h.contour, h.hull, h.pockets, eps)
        if path is not None:
            return path[min(1, len(path) - 1)]
    return _hug(p, goal, h.contour, eps)


def _angle(u: np.ndarray, v: np.ndarray) -> float:
    return abs(math.atan2(float(_cross(u, v)), float(u @ v)))


def avoid_hulls(position: ArrayLike, destination: ArrayLike, hulls: Sequence[VehicleHull], *,
                margin: float = 0.05, cross_angle: float = math.pi / 3,
                pockets: str = "plan") -> np.ndarray:
    """The agent's next waypoint, ``(2,)`` float64, against ``hulls`` grown by its radius.

    ``margin`` (>= 0, world units) pushes a chosen hull vertex outwards from the hull's
    centre, keeping the agent clear of a moving hull; ``cross_angle`` (radians in
    ``[0, pi/2]``): an agent whose heading makes at least this angle with a moving vehicle's
    velocity (and its opposite) is crossing its path and passes behind it. ``pockets``: how
    an agent or destination inside a hull finds its way when the straight line meets the
    contour: ``"plan"`` (the default) takes the shortest path across the hull's pocket
    triangles and a band round the hull
    (:func:`~wayfinding.vehicles.pockets.pocket_path`), hugging the wall where the pockets
    are not usable; ``"hug"`` always hugs the contour
    (:func:`~wayfinding.vehicles.pockets.hug_contour`). The destination itself comes back
    when nothing is in the way.
    """
    p = finite_point("position", position)
    goal = finite_point("destination", destination)
    pad = positive_float("margin", margin, allow_zero=True)
    limit = number("cross_angle", cross_angle, min=0.0, max=math.pi / 2)
    mode = choice("pockets", pockets, ("plan", "hug"))
    return _avoid(p, goal, _instances("hulls", hulls, VehicleHull), pad, limit, mode)


def _avoid(p: np.ndarray, goal: np.ndarray, hulls: Sequence[VehicleHull], pad: float,
           limit: float, mode: str) -> np.ndarray:
    """:func:`avoid_hulls` on checked arguments."""
    for h in _near(p, p, hulls):
        eps = 1e-9 * max(1.0, float(np.abs(h.hull).max()))
        if point_in_polygon(p, h.contour) and _boundary_gaps(h.contour, p[None])[0] > eps:
            return _nearest_outside(p, h.contour, pad)
    target = goal
    for _ in range(len(hulls) + 1):
        first: tuple[float, VehicleHull, int] | None = None
        for h in _near(p, target, hulls):
            eps = 1e-9 * max(1.0, float(np.abs(h.hull).max()))
            ends = np.stack([p, target])
            if (np.asarray(point_in_polygon(ends, h.hull))
                    | (_boundary_gaps(h.hull, ends) <= eps)).any():
                if not _clear(p, target, h.contour, eps):
                    return _in_hull(p, target, h, mode, eps)
                continue
            t0, t1, entry = _clip(p, target, h.hull)
            if (t1 - t0) * float(np.hypot(*(target - p))) > eps and (
                    first is None or t0 < first[0]):
                first = (t0, h, entry)
        if first is None:
            return target
        target = _side_vertex(p, goal - p, first[1], first[2], limit, pad)
    return target


class Direction(Enum):
    """An agent's heading relative to a vehicle's velocity."""

    STILL = "still"            #: the vehicle does not move (or the agent stands)
    SAME = "same"              #: within ``cross_angle`` of the vehicle's velocity
    OPPOSITE = "opposite"      #: within ``cross_angle`` of its reverse
    CROSSING = "crossing"      #: across its path: the agent passes behind it


def relative_direction(heading: ArrayLike, velocity: ArrayLike, *,
                       cross_angle: float = math.pi / 3) -> Direction:
    """How an agent heading along ``heading`` (``(2,)``) moves relative to a vehicle moving
    at ``velocity`` (``(2,)``); ``cross_angle`` in radians, ``[0, pi/2]``.

    >>> relative_direction((0.0, 1.0), (2.0, 0.0)), relative_direction((-1.0, 0.1), (2.0, 0.0))
    (<Direction.CROSSING: 'crossing'>, <Direction.OPPOSITE: 'opposite'>)
    """
    u = finite_point("heading", heading)
    v = finite_point("velocity", velocity)
    limit = number("cross_angle", cross_angle, min=0.0, max=math.pi / 2)
    if not u.any() or not v.any():
        return Direction.STILL
    if _angle(u, v) < limit:
        return Direction.SAME
    if _angle(u, -v) < limit:
        return Direction.OPPOSITE
    return Direction.CROSSING


def braking_factor(position: ArrayLike, velocity: ArrayLike, hulls: Sequence[VehicleHull], *,
                   horizon: float = 2.0) -> float:
    """The share of its intended ``velocity`` (``(2,)``, world units per second) an agent at
    ``position`` keeps so as to pass behind the moving vehicles whose way it would cut,
    in ``[0, 1]``.

    A moving vehicle's **way ahead** is the ground its hull sweeps in the next ``horizon``
    seconds (>= 0).  An agent that would enter a way ahead keeping ``velocity`` for
    ``horizon`` seconds (the vehicles keeping theirs; the hulls are grown by the agent's
    radius, so the agent counts as a point) slows to the largest share of ``velocity`` that
    keeps it out of every way ahead over the horizon (sampled every 1/64, then refined to
    1/4096): a vehicle whose path the agent crosses (:class:`Direction` ``CROSSING``)
    passes first and the agent crosses behind it, or in front only with a horizon's worth
    of the vehicle's travel to spare; an agent does not overtake a vehicle going its way
    (``SAME``) into its way ahead.  1 when nothing is in the way, or when no share keeps
    out (the agent is in a vehicle's way already, as one meeting it head on
    (``OPPOSITE``) in its lane: braking cannot help, the waypoint must take it out).
    Agents inside a hull and hulls whose vehicle stands are left out.

    >>> cart = Vehicle([(0.0, 0.0, 1.0, 0.5, 0.0)], position=(-3.0, 2.0), velocity=(1.0, 0.0))
    >>> # at full speed the agent would meet the cart in its lane: it slows so as to keep out
    >>> # of the cart's way for the next 2 s (asked again every step, it waits for the cart)
    >>> round(braking_factor((0.0, 0.0), (0.0, 1.4), [cart.hull(0.3)]), 3)
    0.428
    >>> braking_factor((0.0, 0.0), (0.0, 1.4), [cart.hull(0.3)], horizon=0.5)
    1.0
    """
    p = finite_point("position", position)
    u = finite_point("velocity", velocity)
    span = positive_float("horizon", horizon, allow_zero=True)
    return _Ways(_instances("hulls", hulls, VehicleHull), span).braking(p, u)


class _Ways:
    """The moving hulls' ways ahead over ``span`` seconds, shared by every agent braking
    against the same hulls: their bounding boxes, and each swept polygon once asked for."""

    def __init__(self, hulls: Sequence[VehicleHull], span: float) -> None:
        self.span = span
        self.moving = [h for h in hulls if h.velocity.any()] if span > 0 else []
        if self.moving:
            self.vel = np.array([h.velocity for h in self.moving]) * span
            low = np.array([h.lo for h in self.moving])
            high = np.array([h.hi for h in self.moving])
            self.top = np.maximum(high, high + self.vel)
            self.bottom = np.minimum(low, low + self.vel)
        self.swept: dict[int, tuple[np.ndarray, float]] = {}

    def way(self, k: int) -> tuple[np.ndarray, float]:
        """Moving hull ``k``'s way ahead and its tolerance."""
        if k not in self.swept:
            h = self.moving[k]
            self.swept[k] = (_swept(h.hull, self.vel[k]),
                             1e-9 * max(1.0, float(np.abs(h.hull).max())))
        return self.swept[k]

    def braking(self, p: np.ndarray, u: np.ndarray) -> float:
        """:func:`braking_factor` of an agent at ``p`` meaning to walk at ``u``."""
        if not self.moving:
            return 1.0
        span, vel = self.span, self.vel
        ends = np.stack([np.broadcast_to(p, vel.shape), p - vel, p + u * span - vel])
        near = (ends.min(axis=0) <= self.top).all(axis=1) \
            & (self.bottom <= ends.max(axis=0)).all(axis=1)   # the broad phase
        ways = []
        for k in np.flatnonzero(near):
            h = self.moving[k]
            if not _inside(p[None], h.hull)[0]:
                ways.append((*self.way(k), h.velocity))

        def enters(shares: np.ndarray) -> np.ndarray:
            out = np.zeros(len(shares), dtype=bool)
            for way, eps, v in ways:
                out |= _sweeps(p, (shares[:, None] * u - v) * span, way, eps)
            return out

        if not ways:
            return 1.0
        shares = np.linspace(0.0, 1.0, 65)                # steps of 1/64, exact
        blocked = enters(shares)
        free = np.flatnonzero(~blocked)
        if not blocked[-1] or not len(free):
            return 1.0
        # Bisect between the last free share and the next, to 1/4096: the midpoints are
        # exact multiples of 1/4096, all tested in one call.
        fine = shares[free[-1]] + np.arange(65) / 4096
        hit = enters(fine)
        lo, hi = 0, 64                           # the agent keeps out at lo, enters at hi
        for _ in range(6):
            mid = (lo + hi) // 2
            if hit[mid]:
                hi = mid
            else:
                lo = mid
        return float(fine[lo])


def _swept(hull: np.ndarray, move: np.ndarray) -> np.ndarray:
    """The clockwise convex polygon a convex clockwise ``hull`` sweeps moving by ``move``
    (non-zero): each vertex between two edges facing back (their outward normal at or
    against ``move``) stays, one between two edges facing forward moves, and one between a
    back and a front edge does both, in the order of the walk."""
    e = _following(hull) - hull
    front = (-e[:, 1] * move[0] + e[:, 0] * move[1] > 0).tolist()   # outward normal · move
    out = []
    for i, corner in enumerate(hull):
        before, after = front[i - 1], front[i]
        if not before:
            out.append(corner)
        if before or after:
            out.append(corner + move)
        if before and not after:
            out.append(corner)
    return np.array(out)


def _sweeps(p: np.ndarray, moves: np.ndarray, hull: np.ndarray, eps: float) -> np.ndarray:
    """Whether the segments from p by each of ``moves`` (``(n, 2)``) pass through the convex
    clockwise ``hull`` (more than ``eps`` of them inside), ``(n,)`` bool."""
    a, e = hull, _following(hull) - hull
    num = -_cross(e, p - a)                                  # (m,)
    den = _cross(e[None], moves[:, None, :])                 # (n, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = num[None] / den
    t0 = np.where(den < 0, t, 0.0).max(axis=1, initial=0.0)
    t1 = np.where(den > 0, t, 1.0).min(axis=1, initial=1.0)
    blocked = ((den == 0) & (num[None] <= 0)).any(axis=1)
    return np.asarray(~blocked & ((t1 - t0) * np.hypot(*moves.T) > eps))


def _near(p: np.ndarray, q: np.ndarray, hulls: Sequence[VehicleHull]) -> list[VehicleHull]:
    """The broad phase: hulls whose bounding box meets the segment p→q's."""
    lo, hi = np.minimum(p, q), np.maximum(p, q)
    return [h for h in hulls if (h.lo <= hi).all() and (lo <= h.hi).all()]


def _side_vertex(p: np.ndarray, heading: np.ndarray, h: VehicleHull, entry: int,
                 limit: float, pad: float) -> np.ndarray:
    """The furthest vertex visible from p on the chosen side of hull edge ``entry``."""
    hull = h.hull
    m = len(hull)
    eps = 1e-9 * max(1.0, float(np.abs(hull).max()))
    sides = []
    for start, step in ((entry, -1), ((entry + 1) % m, 1)):
        k = start
        for _ in range(m - 1):
            nxt = (k + step) % m
            if _crosses_hull(p, hull[nxt], hull, eps):
                break
            k = nxt
        sides.append(hull[k])
    if relative_direction(heading, h.velocity, cross_angle=limit) is Direction.CROSSING:
        pick = min(sides, key=lambda v: float(v @ h.velocity))
    else:
        pick = min(sides, key=lambda v: _angle(v - p, heading))
    out = pick - hull.mean(axis=0)
    return pick + out / float(np.hypot(*out)) * pad


@dataclass(frozen=True, eq=False)
class CrossingRun:
    """A street-crossing run: ``positions`` of the pedestrians at every step,
    ``(steps + 1, n, 2)`` float64; the carriages' world ``boxes`` (ungrown) at every step,
    ``(steps + 1, b, 4, 2)``; their ``goals``, ``(n, 2)``; whether each ``reached`` its goal,
    ``(n,)`` bool; the pedestrians' ``radius`` and the step ``dt`` in seconds."""

    positions: np.ndarray
    boxes: np.ndarray
    goals: np.ndarray
    reached: np.ndarray
    radius: float
    dt: float

    __eq__ = _fields_equal

    @property
    def carriages(self) -> int:
        """The number of carriages: the boxes in groups of :data:`CARRIAGE`'s parts."""
        parts = len(CARRIAGE)
        if self.boxes.shape[1] % parts:
            raise InvalidQueryError(f"a crossing run's {self.boxes.shape[1]} boxes are not "
                                    f"carriages of {parts} parts")
        return self.boxes.shape[1] // parts

    def arrival_steps(self) -> np.ndarray:
        """The first step at which each pedestrian stands on its goal, ``(n,)`` int64
        (``-1``: never)."""
        there = np.hypot(*(self.positions - self.goals[None]).transpose(2, 0, 1)) <= 1e-9
        return np.where(there.any(axis=0), there.argmax(axis=0), -1)

    def gaps(self) -> np.ndarray:
        """The gap between each pedestrian's disc and the nearest carriage box at each step,
        ``(steps + 1, n)`` float64 (world units; negative where a disc overlaps a box)."""
        t, n, b = *self.positions.shape[:2], self.boxes.shape[1]
        shape = (t, n, b, 4, 2)
        v = np.broadcast_to(self.positions[:, :, None, None, :], shape).reshape(-1, 2)
        a = np.broadcast_to(self.boxes[:, None], shape).reshape(-1, 2)
        z = np.broadcast_to(np.roll(self.boxes, -1, axis=2)[:, None], shape).reshape(-1, 2)
        dist = closest_on_segments(v, a, z)[0].reshape(shape[:-1])
        inside = (np.asarray(orient2d(a, z, v)) < 0).reshape(shape[:-1]).all(axis=3)
        signed = np.where(inside, -1.0, 1.0) * dist.min(axis=3)
        return signed.min(axis=2, initial=np.inf) - self.radius

    def summary(self) -> dict[str, float]:
        """The run's figures: ``pedestrians``, ``carriages`` (groups of :data:`CARRIAGE`'s
        boxes), ``arrived`` (how many stand on their goal at the end) and ``completion``
        (their share), the mean and latest arrival times ``t_mean`` and ``t_last`` in
        seconds (of those who arrived; ``nan`` when none did), the ``least_gap`` between a
        pedestrian's disc and a carriage box over the run (world units; negative would mean
        an overlap) and the ``steps`` simulated."""
        arrive = self.arrival_steps()[self.reached] * self.dt
        n = len(self.goals)
        return {"pedestrians": n, "carriages": self.carriages, "arrived": int(self.reached.sum()),
                "completion": float(self.reached.sum()) / n,
                "t_mean": float(arrive.mean()) if len(arrive) else math.nan,
                "t_last": float(arrive.max()) if len(arrive) else math.nan,
                "least_gap": float(self.gaps().min()), "steps": len(self.positions) - 1}


#: One carriage in its own frame, heading +x: the body and two horses side by side ahead of
#: it, a little apart from the body and from each other.
CARRIAGE = ((0.0, 0.0, 1.5, 0.8, 0.0), (2.3, 0.45, 0.6, 0.25, 0.0), (2.3, -0.45, 0.6, 0.25, 0.0))


def street_crossing(*, pedestrians: int = 1, carriages: int = 3, radius: float = 0.3,
                    speed: float = 1.4, carriage_speed: float = 1.0, dt: float = 0.05,
                    duration: float = 40.0, margin: float = 0.25, seed: int = 0,
                    brake_horizon: float = 2.0) -> CrossingRun:
    """Pedestrians cross a two-lane street of moving carriages, steering with :func:`avoid_hulls`.

    The street runs along x with lanes at y = 3 (carriages driving +x) and y = 7 (driving
    -x), ``carriages`` per lane spaced 11 m apart; pedestrians start on the kerb at y = 0 at
    x spread over [-3, 3] (jittered by ``seed``) and head for y = 10. Each step every
    pedestrian walks at ``speed`` (m/s) towards its waypoint against the hulls grown by
    ``radius + margin`` (m) (a :class:`~wayfinding.crowd.Crowd` moves them, at most
    ``speed``), then the carriages advance. ``dt`` and ``duration`` in seconds.
    ``brake_horizon`` (seconds, >= 0): how far ahead a pedestrian looks for a carriage
    whose way it would cut, slowing down by :func:`braking_factor` to pass behind it; 0
    turns braking off.
    """
    n = count("pedestrians", pedestrians)
    k = count("carriages", carriages)
    r = positive_float("radius", radius)
    v = positive_float("speed", speed)
    cv = positive_float("carriage_speed", carriage_speed, allow_zero=True)
    step = positive_float("dt", dt)
    steps = math.ceil(time_steps(positive_float("duration", duration), step, "a crossing"))
    pad = positive_float("margin", margin, allow_zero=True)
    grow = r + pad
    look = positive_float("brake_horizon", brake_horizon, allow_zero=True)
    rng = np.random.default_rng(seed)
    xs = np.linspace(-3.0, 3.0, n) + rng.uniform(-0.3, 0.3, n)
    goals = np.stack([xs, np.full(n, 10.0)], axis=1)
    crowd = Crowd()
    for x, goal in zip(xs, goals):
        crowd.add((x, 0.0), goal=goal, radius=r, max_speed=v)
    pos = crowd.position
    fleet = []
    for lane_y, sign in ((3.0, 1.0), (7.0, -1.0)):
        for i in range(k):
            x = -sign * (6.0 + 11.0 * i) + rng.uniform(-1.0, 1.0)
            fleet.append(Vehicle(CARRIAGE, position=(x, lane_y),
                                 heading=0.0 if sign > 0 else math.pi,
                                 velocity=(sign * cv, 0.0)))
    positions, boxes = [pos.copy()], [np.concatenate([c.boxes() for c in fleet])]
    done = np.zeros(n, dtype=bool)
    limit = math.pi / 3                                  # avoid_hulls' cross_angle
    for _ in range(steps):
        hulls = [c.hull(grow) for c in fleet]
        ways = _Ways(hulls, look)
        want = np.zeros((n, 2))
        for a in np.flatnonzero(~done):
            gap = _avoid(pos[a], goals[a], hulls, pad, limit, "plan") - pos[a]
            want[a] = gap / step * min(1.0, v * step / max(float(np.hypot(*gap)), 1e-300))
            want[a] *= ways.braking(pos[a], want[a])
        crowd.step(step, velocity=want)
        pos = crowd.position
        done = np.hypot(*(goals - pos).T) <= 1e-9
        for c in fleet:
            c._advance(step)
        positions.append(pos.copy())
        boxes.append(np.concatenate([c.boxes() for c in fleet]))
    return CrossingRun(np.stack(positions), np.stack(boxes), goals, done, r, step)
