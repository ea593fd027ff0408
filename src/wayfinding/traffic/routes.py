"""Route A* over a road network's lanes, with costs set per driver personality.

Entering lane ``b`` from lane ``a`` costs the junction piece between them (its length),
plus ``b``'s length times the driver's factors for ``b``'s lane type and road kind, plus
``turn`` per radian of heading change from ``a``'s end to ``b``'s start.  A route's cost
counts the lanes after the start lane.  The heuristic, the straight-line distance to the
goal lane's start times the smallest factor plus the goal lane's own cost, is consistent,
so routes are optimal.

>>> from wayfinding.traffic.roads import road_grid
>>> net = road_grid(3, 1, spacing=100.0)     # two roads in a row, a lane each way
>>> route = find_route(net, 0, 2, driver=DriverCosts())
>>> route.found, route.path.tolist(), route.cost
(True, [0, 2], 100.0)
>>> find_route(net, 0, 2, driver=DriverCosts(avoid_roads=frozenset({1}))).found
False
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError
from ..results import PathResult
from ..search.generic import astar
from .roads import LaneType, RoadNetwork


@dataclass(frozen=True, kw_only=True)
class DriverCosts:
    """A driver personality as a cost table.

    ``lane_type``: ``(LaneType, factor)`` pairs multiplying a lane's length (types not
    listed: 1; ``inf`` forbids the type; the default forbids sidewalks).  ``road_kind``:
    ``(kind, factor)`` pairs for road kinds (e.g. ``(("highway", 0.6),)`` prefers highways;
    kinds not listed: 1).  ``turn``: cost per radian of turning at a junction (>= 0; large
    avoids turns).  ``avoid_roads``: road ids never entered (a getaway driver's roads with
    police).  Factors are > 0 or ``inf``."""

    lane_type: tuple[tuple[LaneType, float], ...] = ((LaneType.SIDEWALK, math.inf),)
    road_kind: tuple[tuple[str, float], ...] = ()
    turn: float = 0.0
    avoid_roads: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        for entry in (*self.lane_type, *self.road_kind):
            if not (isinstance(entry, tuple) and len(entry) == 2):
                raise InvalidQueryError(f"cost entry {entry!r} must be a (name, factor) pair")
            _validate.positive_float(f"factor of {entry[0]!r}", entry[1], allow_inf=True)
        for key, _ in self.lane_type:
            if not isinstance(key, LaneType):
                raise InvalidQueryError(f"lane_type key {key!r} must be a LaneType")
        _validate.positive_float("turn", self.turn, allow_zero=True)
        if not isinstance(self.avoid_roads, frozenset):
            raise InvalidQueryError(f"avoid_roads {self.avoid_roads!r} must be a frozenset")

    def factor(self, lane_type: LaneType, kind: str, road: int) -> float:
        """The factor on the length of a lane of this type and road kind (inf: never)."""
        if road in self.avoid_roads:
            return math.inf
        return dict(self.lane_type).get(lane_type, 1.0) * dict(self.road_kind).get(kind, 1.0)


class _DriverView:
    """The lane graph as one driver sees it (the graph protocol of the generic search)."""

    def __init__(self, net: RoadNetwork, driver: DriverCosts) -> None:
        self.net = net
        self.turn = driver.turn
        self.lane_cost = [lane.length * driver.factor(lane.type, lane.kind, lane.road)
                          for lane in net.lanes]
        # Junction pieces count with factor 1, so the smallest factor is at most 1.
        self.min_factor = min([1.0, *(c / lane.length for c, lane in zip(
            self.lane_cost, net.lanes, strict=True) if c < math.inf and lane.length > 0)])

    def edge_cost(self, a: int, b: int) -> float:
        la, lb = self.net.lanes[a], self.net.lanes[b]
        cos = float(np.clip(la.heading(at_end=True) @ lb.heading(at_end=False), -1.0, 1.0))
        return self.net.gap(a, b) + self.lane_cost[b] + self.turn * math.acos(cos)

    def successors(self, lane: int) -> Iterable[tuple[int, float]]:
        for b in self.net._next[lane]:
            if self.lane_cost[b] < math.inf:
                yield b, self.edge_cost(lane, b)

    def heuristic(self, lane: int, goal: int) -> float:
        if lane == goal:
            return 0.0
        end = self.net.lanes[lane].points[-1]
        start = self.net.lanes[goal].points[0]
        return self.min_factor * float(np.hypot(*(start - end))) + self.lane_cost[goal]


def find_route(network: RoadNetwork, start: int, goal: int, *, driver: DriverCosts,
               method: str = "astar") -> PathResult:
    """The cheapest route for ``driver`` from lane ``start`` to lane ``goal``.

    ``method``: ``"astar"`` or ``"dijkstra"`` (same routes, more expansions).  Returns a
    :class:`~wayfinding.results.PathResult` whose ``path`` is the ``(n,)`` int64 lane ids
    from ``start`` to ``goal`` (``network.route_points(path)`` is the polyline to follow);
    not found when no allowed route exists (e.g. the goal lane is forbidden)."""
    if not isinstance(network, RoadNetwork):
        raise InvalidQueryError(f"network {network!r} must be a RoadNetwork")
    if not isinstance(driver, DriverCosts):
        raise InvalidQueryError(f"driver {driver!r} must be a DriverCosts")
    s, g = network._lane("start", start), network._lane("goal", goal)
    _validate.choice("method", method, ("astar", "dijkstra"))
    view = _DriverView(network, driver)
    h = view.heuristic if method == "astar" else (lambda lane, goal: 0.0)
    result = astar(view, s, g, heuristic=h, path_dims=1)
    result.algorithm = f"route {method}"
    return result
