"""A lane-aware road network: roads with a centre line and lanes offset from it, lane types,
and junction connections from the end of one lane to the start of another.

A road's centre line is a polyline (world units; sample a curve with :func:`sample_cubic`).
Each lane is the centre line offset sideways (``offset`` > 0 to the left of the road's
direction); a lane with ``forward=False`` runs from the road's end to its start, so a driver
on a forward lane meets it as oncoming traffic.  Every lane is a directed polyline
measured by arc length: :meth:`Lane.point_at` gives the point ``s`` world units along it.

>>> net = RoadNetwork()
>>> road = net.add_road([[0, 0], [100, 0]], [LaneSpec(offset=-2.0),
...                     LaneSpec(offset=2.0, forward=False)])
>>> [(lane.id, lane.forward, lane.length) for lane in net.road_lanes(road)]
[(0, True, 100.0), (1, False, 100.0)]
>>> net.lanes[1].point_at(25.0).tolist()
[75.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from .. import _validate
from ..errors import InvalidGeometryError, InvalidQueryError, brief


class LaneType(str, Enum):
    """What a lane is for; drivers weigh each type by their personality."""

    DRIVING = "driving"
    PARKING = "parking"
    SIDEWALK = "sidewalk"
    SHOULDER = "shoulder"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, kw_only=True)
class LaneSpec:
    """One lane of a road's cross-section: ``offset`` from the centre line (world units,
    > 0 to the left of the road's direction), ``type``, ``forward`` (runs with the road's
    direction) and ``width`` (world units, > 0)."""

    offset: float
    type: LaneType = LaneType.DRIVING
    forward: bool = True
    width: float = 3.5

    def __post_init__(self) -> None:
        _validate.finite_float("offset", self.offset, error=InvalidGeometryError)
        _validate.positive_float("width", self.width, error=InvalidGeometryError)
        if not isinstance(self.type, LaneType):
            raise InvalidGeometryError(f"lane type {self.type!r} must be a LaneType")
        object.__setattr__(self, "forward", _validate.flag("forward", self.forward,
                                                           error=InvalidGeometryError))


class Lane:
    """A directed lane: ``points`` ``(n, 2)`` float64 in driving order, ``stations``
    ``(n,)`` the arc length at each point, and the lane's ``id``, ``road``, ``type``,
    ``forward``, ``width`` and its road's ``kind``."""

    __slots__ = ("id", "road", "type", "forward", "width", "kind", "points", "stations")

    def __init__(self, id: int, road: int, spec: LaneSpec, kind: str,
                 points: np.ndarray) -> None:
        self.id, self.road, self.kind = id, road, kind
        self.type, self.forward, self.width = spec.type, spec.forward, spec.width
        self.points = points
        self.stations = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(points, axis=0).T))))

    @property
    def length(self) -> float:
        """The lane's length, world units."""
        return float(self.stations[-1])

    def point_at(self, s: Any) -> np.ndarray:
        """The point(s) ``s`` world units along the lane (a number: ``(2,)``; an array:
        ``(m, 2)``), clamped to the lane's ends."""
        arr = _validate.reals("s", s)
        if not np.isfinite(arr).all():
            raise InvalidQueryError("s must be finite (it holds NaN or infinity)")
        flat = arr.reshape(-1)
        out = np.column_stack([np.interp(flat, self.stations, self.points[:, 0]),
                               np.interp(flat, self.stations, self.points[:, 1])])
        return out[0] if arr.ndim == 0 else out

    def heading(self, *, at_end: bool) -> np.ndarray:
        """The unit direction of travel at the lane's start or end, ``(2,)`` float64."""
        at_end = _validate.flag("at_end", at_end)
        a, b = (self.points[-2], self.points[-1]) if at_end else (self.points[0], self.points[1])
        d = b - a
        return d / np.hypot(*d)

    def __repr__(self) -> str:
        return (f"Lane({self.id}, road={self.road}, {self.type.value}, "
                f"{'forward' if self.forward else 'backward'}, length={self.length:.6g})")


def _offset_polyline(line: np.ndarray, offset: float) -> np.ndarray:
    """``line`` moved ``offset`` to its left, each vertex along the mean of its segments'
    normals scaled so that straight parts keep their distance exactly."""
    seg = np.diff(line, axis=0)
    unit = seg / np.hypot(*seg.T)[:, None]
    normals = np.column_stack([-unit[:, 1], unit[:, 0]])
    vertex = np.vstack([normals[:1], normals[:-1] + normals[1:], normals[-1:]])
    vertex /= np.hypot(*vertex.T)[:, None]
    # The miter: scale by 1 / cos(half the turn) so each segment stays `offset` away.
    cos = np.ones(len(line))
    cos[1:-1] = (vertex[1:-1] * normals[:-1]).sum(axis=1)
    return line + vertex * (offset / cos)[:, None]


def sample_cubic(control: Any, *, spacing: float) -> np.ndarray:
    """A cubic Bézier curve sampled at (nearly) equal arc-length steps of about ``spacing``.

    ``control``: ``(4, 2)`` float64, the control points (x, y).  ``spacing``: the wanted
    distance between samples, world units (> 0).  Returns ``(n, 2)`` float64 starting and
    ending at the curve's ends, with ``n >= 2``.

    >>> sample_cubic([[0, 0], [1, 0], [2, 0], [3, 0]], spacing=1.0).tolist()
    [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 0.0]]
    """
    ctrl, _ = _validate.finite_points("control", control, error=InvalidGeometryError)
    if ctrl.shape != (4, 2):
        raise InvalidGeometryError(f"control of shape {ctrl.shape} must be (4, 2)")
    step = _validate.positive_float("spacing", spacing, error=InvalidGeometryError)
    u = np.linspace(0.0, 1.0, 1025)[:, None]
    dense = ((1 - u) ** 3 * ctrl[0] + 3 * (1 - u) ** 2 * u * ctrl[1]
             + 3 * (1 - u) * u ** 2 * ctrl[2] + u ** 3 * ctrl[3])
    arc = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(dense, axis=0).T))))
    _validate.allocation("cubic samples", arc[-1] / step)
    n = max(int(round(arc[-1] / step)), 1) + 1
    want = np.linspace(0.0, arc[-1], n)
    return np.column_stack([np.interp(want, arc, dense[:, 0]), np.interp(want, arc, dense[:, 1])])


class RoadNetwork:
    """Roads, their lanes and the junction connections between lanes.

    Lanes are numbered in the order roads add them.  A connection ``a -> b`` lets a car
    leave lane ``a`` at its end and enter lane ``b`` at its start (the junction piece between
    them is a straight segment from one to the other, of length :meth:`gap`)."""

    def __init__(self) -> None:
        self.lanes: list[Lane] = []
        #: Per road: its kind and its lane ids.
        self.roads: list[tuple[str, list[int]]] = []
        #: Per named junction (``(x, y)`` of :func:`road_grid`): the ids of the lanes leaving
        #: it and of the lanes arriving at it; empty for a network built road by road.
        self.junctions: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
        self._next: list[list[int]] = []

    def add_road(self, centreline: Any, lanes: Sequence[LaneSpec], *,
                 kind: str = "street") -> int:
        """Add a road and its lanes; returns the road's id.

        ``centreline``: ``(n, 2)`` float64, n >= 2, no two consecutive points equal.
        ``lanes``: its cross-section, at least one :class:`LaneSpec`.  ``kind``: a name
        drivers weigh (e.g. ``"street"``, ``"highway"``, ``"alley"``, ``"dirt"``)."""
        line, _ = _validate.finite_points("centreline", centreline, error=InvalidGeometryError)
        with np.errstate(over="ignore"):
            seg = np.hypot(*np.diff(line, axis=0).T)
        if line.shape[0] < 2 or not ((seg > 0) & (seg < np.inf)).all():
            raise InvalidGeometryError(f"centreline of {line.shape[0]} points must have at "
                                       "least 2, no two consecutive ones equal or too far "
                                       "apart for a finite length")
        specs = list(lanes)
        if not specs or not all(isinstance(s, LaneSpec) for s in specs):
            raise InvalidGeometryError(f"lanes {specs!r} must be one or more LaneSpec")
        if not isinstance(kind, str):
            raise InvalidGeometryError(f"kind {kind!r} must be a string")
        road = len(self.roads)
        ids = []
        offsets = []
        for spec in specs:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                pts = _offset_polyline(line, spec.offset)
            ok = np.isfinite(pts).all(axis=1)
            step = np.hypot(*np.diff(pts, axis=0).T)
            ok[1:] &= (step > 0) & (step < np.inf)
            if not ok.all():
                bad = int(np.argmin(ok))
                raise InvalidGeometryError(
                    f"centreline vertex {bad} {line[bad].tolist()!r}: the lane at offset "
                    f"{spec.offset:g} has no finite, nonzero segment there (the centreline "
                    "turns back too sharply for that offset, or its points are too far out)")
            offsets.append(pts)
        for spec, pts in zip(specs, offsets):
            lane = Lane(len(self.lanes), road, spec, kind, pts if spec.forward else pts[::-1])
            self.lanes.append(lane)
            self._next.append([])
            ids.append(lane.id)
        self.roads.append((kind, ids))
        return road

    def road_lanes(self, road: int) -> list[Lane]:
        """The lanes of ``road``, in the order its cross-section gave them."""
        r = _validate.count("road", road, min=0, max=len(self.roads) - 1)
        return [self.lanes[i] for i in self.roads[r][1]]

    def _lane(self, name: str, lane: Any) -> int:
        if not self.lanes:
            raise InvalidQueryError(f"{name} {lane!r}: the network has no lanes")
        return _validate.count(name, lane, min=0, max=len(self.lanes) - 1)

    def _lanes(self, name: str, lanes: Any) -> list[int]:
        """``lanes`` (a lane id or a sequence of them) as a list of checked lane ids."""
        try:
            flat = np.asarray(lanes).reshape(-1).tolist()
        except (ValueError, TypeError):     # ragged sequences
            raise InvalidQueryError(f"{name} {brief(lanes)} must be a sequence of lane "
                                    "ids") from None
        return [self._lane(name, lane) for lane in flat]

    def connect(self, a: int, b: int) -> None:
        """Let cars go from the end of lane ``a`` to the start of lane ``b``."""
        a, b = self._lane("a", a), self._lane("b", b)
        if b not in self._next[a]:
            self._next[a].append(b)

    def successors_of(self, lane: int) -> list[int]:
        """The lanes a car may enter at the end of ``lane``, in connection order."""
        return list(self._next[self._lane("lane", lane)])

    def gap(self, a: int, b: int) -> float:
        """The length of the junction piece from the end of lane ``a`` to the start of
        ``b``, world units."""
        a, b = self._lane("a", a), self._lane("b", b)
        return float(np.hypot(*(self.lanes[b].points[0] - self.lanes[a].points[-1])))

    def route_points(self, lanes: Any) -> np.ndarray:
        """The polyline a car follows along a route's ``lanes`` (ids in order, e.g. a
        route's ``path``): ``(n, 2)`` float64, the lanes' points joined by their junction
        pieces."""
        ids = self._lanes("lanes", lanes)
        if not ids:
            raise InvalidQueryError("lanes must name at least one lane")
        return np.vstack([self.lanes[i].points for i in ids])


def road_grid(columns: int, rows: int, *, spacing: float = 100.0,
              highway_every: int = 0) -> RoadNetwork:
    """A city of ``columns`` × ``rows`` junctions ``spacing`` apart joined by two-way roads
    (one lane each way, 3.5 wide), every lane connected at each junction to every lane
    leaving it except the U-turn.  With ``highway_every`` = k > 0 every k-th row and column
    is of kind ``"highway"``, the rest ``"street"``.  Junction ``(x, y)`` (at world point
    ``(x * spacing, y * spacing)``) lists its leaving and arriving lanes in
    :attr:`RoadNetwork.junctions`.

    >>> net = road_grid(3, 2)
    >>> leaving, arriving = net.junctions[(0, 0)]
    >>> len(net.roads), len(leaving), len(arriving)
    (7, 2, 2)
    """
    cols = _validate.count("columns", columns)
    rws = _validate.count("rows", rows)
    gap = _validate.positive_float("spacing", spacing, error=InvalidGeometryError)
    every = _validate.count("highway_every", highway_every, min=0)
    _validate.allocation("road grid junctions", cols * rows * 4.0)
    net = RoadNetwork()
    into: dict[tuple[int, int], list[int]] = {}
    out_of: dict[tuple[int, int], list[tuple[int, int]]] = {}
    specs = [LaneSpec(offset=-1.75), LaneSpec(offset=1.75, forward=False)]
    for y in range(rws):
        for x in range(cols):
            for dx, dy in ((1, 0), (0, 1)):
                if x + dx >= cols or y + dy >= rws:
                    continue
                line = [[x * gap, y * gap], [(x + dx) * gap, (y + dy) * gap]]
                major = y if dy == 0 else x
                kind = "highway" if every and major % every == 0 else "street"
                fwd, back = net.roads[net.add_road(line, specs, kind=kind)][1]
                a, b = (x, y), (x + dx, y + dy)
                into.setdefault(b, []).append(fwd)
                into.setdefault(a, []).append(back)
                out_of.setdefault(a, []).append((fwd, back))
                out_of.setdefault(b, []).append((back, fwd))
    for junction, arriving in into.items():
        for lane in arriving:
            for leaving, twin in out_of.get(junction, []):
                if twin != lane:
                    net.connect(lane, leaving)
    net.junctions = {j: ([lane for lane, _ in out_of[j]], into[j]) for j in sorted(into)}
    return net
