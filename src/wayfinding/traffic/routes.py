"""Route A* over a road network's lanes, with costs set per driver personality.

Entering lane ``b`` from lane ``a`` costs the junction piece between them (its length),
plus ``b``'s length times the driver's factors for ``b``'s lane type and road kind, plus
``turn`` per radian of heading change from ``a``'s end to ``b``'s start.  A route's cost
counts the lanes after the start lane.  A :class:`RoutePlanner` turns a network and a driver
into a compiled lane graph once (nodes: lanes at their end points), then answers routes
with its compiled A*, whose Euclidean heuristic is scaled to stay consistent, so routes are
optimal.

>>> from wayfinding.traffic.roads import road_grid
>>> net = road_grid(3, 1, spacing=100.0)     # two roads in a row, a lane each way
>>> route = RoutePlanner(net, driver=DriverCosts()).find_route(0, 2)
>>> route.found, route.path.tolist(), route.cost
(True, [0, 2], 100.0)
>>> RoutePlanner(net, driver=DriverCosts(avoid_roads=frozenset({1}))).find_route(0, 2).found
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError
from ..graph.csr import CSRGraph
from ..results import PathResult
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


class RoutePlanner:
    """Routes over ``network`` for one ``driver``: the lane graph with the driver's costs,
    built once (roads added or connected afterwards are not seen; build a new planner).

    ``graph``: the :class:`~wayfinding.graph.csr.CSRGraph` of lanes (node = lane id, at the
    lane's end point; edges into lanes the driver never enters are left out)."""

    def __init__(self, network: RoadNetwork, *, driver: DriverCosts) -> None:
        if not isinstance(network, RoadNetwork):
            raise InvalidQueryError(f"network {network!r} must be a RoadNetwork")
        if not isinstance(driver, DriverCosts):
            raise InvalidQueryError(f"driver {driver!r} must be a DriverCosts")
        self.network, self.driver = network, driver
        lanes = network.lanes
        n = len(lanes)
        src = np.array([a for a in range(n) for _ in network._next[a]], dtype=np.int64)
        dst = np.array([b for a in range(n) for b in network._next[a]], dtype=np.int64)
        lane_cost = np.array([lane.length * driver.factor(lane.type, lane.kind, lane.road)
                              for lane in lanes])
        first = np.array([lane.points[0] for lane in lanes]).reshape(n, 2)
        last = np.array([lane.points[-1] for lane in lanes]).reshape(n, 2)
        head_in = np.array([lane.heading(at_end=False) for lane in lanes]).reshape(n, 2)
        head_out = np.array([lane.heading(at_end=True) for lane in lanes]).reshape(n, 2)
        keep = lane_cost[dst] < math.inf
        src, dst = src[keep], dst[keep]
        gap = np.hypot(*(first[dst] - last[src]).T)
        cos = np.clip((head_out[src] * head_in[dst]).sum(axis=1), -1.0, 1.0)
        weights = gap + lane_cost[dst] + driver.turn * np.arccos(cos)
        self.graph = CSRGraph.from_edges(n, src, dst, weights, coords=last)

    def find_route(self, start: int, goal: int, *, method: str = "astar") -> PathResult:
        """The cheapest route from lane ``start`` to lane ``goal``.

        ``method``: ``"astar"`` or ``"dijkstra"`` (same routes, more expansions).  Returns a
        :class:`~wayfinding.results.PathResult` whose ``path`` is the ``(n,)`` int64 lane ids
        from ``start`` to ``goal`` (``network.route_points(path)`` is the polyline to
        follow); not found when no allowed route exists (e.g. the goal lane is forbidden)."""
        s = self.network._lane("start", start)
        g = self.network._lane("goal", goal)
        _validate.choice("method", method, ("astar", "dijkstra"))
        return self.graph.find_path(s, g, method=method)
