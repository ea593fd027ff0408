"""Route A* over a road network's lanes, with costs set per driver personality.

Entering lane ``b`` from lane ``a`` costs the junction piece between them (its length),
plus ``b``'s length times the driver's factors for ``b``'s lane type and road kind, plus
``turn`` per radian of heading change from ``a``'s end to ``b``'s start.  A route's cost
counts the lanes after the start lane.  A :class:`RoutePlanner` turns a network and a driver
into a compiled lane graph once (nodes: lanes at their end points), then answers routes
with its compiled A*, whose Euclidean heuristic is scaled to stay consistent, so routes are
optimal.  :meth:`RoutePlanner.find_route_between` answers the cheapest route from any of
several start lanes (their own cost counted) to any of several goal lanes, such as from one
junction to another, in one search.

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
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validate
from .._kernels import _csrsearch
from .._scratch import thread_workspace
from ..errors import InvalidQueryError, brief
from ..graph.csr import CSRGraph
from ..results import PathResult, SearchStats, _fields_equal
from .lattice import LatticeCosts
from .roads import LaneType, RoadNetwork


@dataclass(frozen=True, kw_only=True)
class DriverCosts:
    """A driver personality: one record for the three planning stages, each reading the
    fields listed below.

    ``lane_type``: ``(LaneType, factor)`` pairs for lane types (types not listed: 1;
    ``inf`` forbids the type; the default forbids sidewalks).  ``road_kind``: ``(kind,
    factor)`` pairs for road kinds (e.g. ``(("highway", 0.6),)`` prefers highways; kinds
    not listed: 1).  ``turn``: cost per radian of turning at a junction (>= 0; large avoids
    turns).  ``avoid_roads``: road ids never entered (a getaway driver's roads with
    police).  ``oncoming``: the factor replacing a driving lane's type factor where it is
    driven against the traffic.  ``desired_speed``: the speed the driver wants, world units
    per second (> 0).  ``car_avoidance``: how strongly other cars are avoided (>= 0).
    ``clearance``: how near (world units, > 0) another car's predicted position makes a
    lattice node near it.  Factors are > 0 or ``inf``.  What each stage reads:

    * route A* (:class:`RoutePlanner`): :meth:`factor` of each lane (lane type times road
      kind, ``inf`` on avoided roads) times its length, and ``turn``; routes follow lanes
      in their direction, so ``oncoming`` never applies;
    * the lattice (:meth:`lattice_costs`, :func:`~wayfinding.traffic.levels.lattice_step`):
      the lane type factors as the car sees each lane (:meth:`lane_factor`, ``oncoming``
      included) as node costs, not the road kind nor the avoided roads (a lattice runs on
      one road, which the route chose); ``car_avoidance`` near a car; ``clearance`` (also
      the radius of the cars' field ``lattice_step`` builds); ``desired_speed`` (the
      arrival times at the sets and the speed limits);
    * the trajectory optimiser: its road field
      (:class:`~wayfinding.traffic.road_field.RoadField`) reads :meth:`factor` with
      ``oncoming`` as the car sees each lane (the inverse of a cell's speed, so a travel
      time per unit length); ``desired_speed`` (its seeds and its speed term);
      ``car_avoidance`` (the weight of the cars' field).

    Named personalities: :func:`~wayfinding.traffic.drivers.driver`.

    >>> reckless = DriverCosts(lane_type=(), oncoming=1.0, car_avoidance=0.2)
    >>> reckless.lane_factor("sidewalk"), DriverCosts().lane_factor("sidewalk")
    (1.0, inf)
    >>> DriverCosts().lattice_costs().lane_type
    (('driving', 0.0), ('parking', 0.0), ('sidewalk', inf), ('shoulder', 0.0), ('oncoming', 1.0))
    """

    lane_type: tuple[tuple[LaneType, float], ...] = ((LaneType.SIDEWALK, math.inf),)
    road_kind: tuple[tuple[str, float], ...] = ()
    turn: float = 0.0
    avoid_roads: frozenset[int] = frozenset()
    oncoming: float = 2.0
    desired_speed: float = 15.0
    car_avoidance: float = 1.0
    clearance: float = 2.0

    def __post_init__(self) -> None:
        for name in ("lane_type", "road_kind"):
            if not isinstance(getattr(self, name), tuple):
                raise InvalidQueryError(f"{name} {brief(getattr(self, name))} must be a tuple "
                                        "of (name, factor) pairs")
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
        _validate.positive_float("oncoming", self.oncoming, allow_inf=True)
        _validate.positive_float("desired_speed", self.desired_speed)
        _validate.positive_float("car_avoidance", self.car_avoidance, allow_zero=True)
        _validate.positive_float("clearance", self.clearance)

    def factor(self, lane_type: LaneType, kind: str, road: int, *,
               oncoming: bool = False) -> float:
        """The factor on the length of a lane of this type and road kind on road ``road``
        (inf: never, as on every avoided road).  ``oncoming``: the lane is driven against
        its direction, so a driving lane's type factor is the driver's ``oncoming``."""
        oncoming = _validate.flag("oncoming", oncoming)
        if road in self.avoid_roads:
            return math.inf
        own = self.oncoming if oncoming and lane_type is LaneType.DRIVING else \
            dict(self.lane_type).get(lane_type, 1.0)
        return own * dict(self.road_kind).get(kind, 1.0)

    def lane_factor(self, label: str) -> float:
        """The type factor of a lane as a car sees it across a road (no road kind, no
        avoided roads): ``label`` is a :class:`LaneType` value or ``"oncoming"`` (the labels
        of :func:`~wayfinding.traffic.levels.road_lattice`)."""
        if label == "oncoming":
            return self.oncoming
        kind = _validate.choice("label", label, [t.value for t in LaneType] + ["oncoming"])
        return dict(self.lane_type).get(LaneType(kind), 1.0)

    def lattice_costs(self, *, straight: float = 1.0, lane_change: float = 2.0,
                      near_distance: float | None = None,
                      max_lane_change: int = 1) -> LatticeCosts:
        """This driver's :class:`~wayfinding.traffic.lattice.LatticeCosts`: a node in a
        lane of type factor ``f`` (:meth:`lane_factor`) adds ``max(f - 1, 0) · straight``
        (``inf`` stays forbidden), so a straight step through it costs
        ``max(f, 1) · straight``; a node within
        ``near_distance`` (none: the driver's ``clearance``) of a car adds
        ``car_avoidance``.  The step costs are the lattice's own (defaults: Fig 20.4 of
        *Driver San Francisco*, where the default driver's oncoming lane adds 1)."""
        labels = [t.value for t in LaneType] + ["oncoming"]
        base = _validate.positive_float("straight", straight, allow_zero=True)
        extra = tuple((label, max(self.lane_factor(label) - 1.0, 0.0) * base
                       if self.lane_factor(label) < math.inf else math.inf)
                      for label in labels)
        near = self.clearance if near_distance is None else near_distance
        return LatticeCosts(straight=base, lane_change=lane_change, near_car=self.car_avoidance,
                            near_distance=near, lane_type=extra,
                            max_lane_change=max_lane_change)


class RoutePlanner:
    """Routes over ``network`` for one ``driver``: the lane graph with the driver's costs,
    built once (roads added or connected afterwards are not seen; build a new planner).

    ``graph``: the :class:`~wayfinding.graph.csr.CSRGraph` of lanes (node = lane id, at the
    lane's end point; edges into lanes the driver never enters are left out).
    ``lane_costs``: ``(n_lanes,)`` float64, each lane's own cost, its length times the
    driver's :meth:`~DriverCosts.factor` (``inf``: never entered)."""

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
        a, b = head_out[src], head_in[dst]
        # the angle by atan2 of the cross and dot products: exact near 0 and pi, where
        # arccos of a rounded dot product turns a straight continuation by 2e-8 radians
        turned = np.arctan2(np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]),
                            (a * b).sum(axis=1))
        weights = gap + lane_cost[dst] + driver.turn * turned
        if len(weights) and not weights.max() <= 2 * _validate.MAX_COST:
            e = int(np.argmax(weights))
            raise InvalidQueryError(
                f"entering lane {int(dst[e])} from lane {int(src[e])} costs {weights[e]:g} for "
                f"this driver, more than a route's step may ({2 * _validate.MAX_COST:g}, "
                "twice wayfinding._validate.MAX_COST): the roads are too long or the "
                "factors too large")
        self.graph = CSRGraph.from_edges(n, src, dst, weights, coords=last)
        self.lane_costs = lane_cost
        self.lane_costs.flags.writeable = False
        # the edges turned around, each lane's row ending in a spare slot (a zero-cost
        # loop, made the lane's edge to the virtual start when it is a start lane)
        back = self.graph.reversed()
        rows = np.diff(back.indptr) + 1
        self._back_indptr = np.zeros(n + 3, np.int64)
        np.cumsum(rows, out=self._back_indptr[1:n + 1])
        self._back_indptr[n + 1:] = self._back_indptr[n]
        self._spare = self._back_indptr[1:n + 1] - 1
        own = np.ones(self._back_indptr[n], bool)
        own[self._spare] = False
        self._back_indices = np.empty(self._back_indptr[n], np.int32)
        self._back_indices[own], self._back_indices[self._spare] = back.indices, np.arange(n)
        self._back_weights = np.zeros(self._back_indptr[n])
        self._back_weights[own] = back.weights

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

    def find_route_between(self, starts: Any, goals: Any, *,
                           method: str = "astar") -> PathResult:
        """The cheapest route from any lane of ``starts`` to any lane of ``goals`` (e.g. the
        lanes leaving one junction and those arriving at another), counting the start
        lane's own cost (:attr:`lane_costs`) as well as the lanes after it.

        One compiled search runs backwards, on the edges turned around, from a virtual
        goal joined to every goal lane to a virtual start joined from every start lane at
        that lane's own cost.  ``method``: ``"astar"`` (its Euclidean heuristic aims at the
        start lanes' mean start point, scaled down so that no start lane's own cost is
        underestimated: the routes stay optimal) or ``"dijkstra"``.  Returns a
        :class:`~wayfinding.results.PathResult` whose ``path`` is the ``(n,)`` int64 lane
        ids from a start lane to a goal lane; not found when no allowed route exists
        (start lanes the driver never enters are left out).

        >>> from wayfinding.traffic.roads import road_grid
        >>> planner = RoutePlanner(road_grid(3, 1, spacing=100.0), driver=DriverCosts())
        >>> route = planner.find_route_between([0], [2, 3])    # junction 0 to 2
        >>> route.path.tolist(), route.cost
        ([0, 2], 200.0)
        >>> planner.find_route_between([1, 2], [2]).path.tolist()
        [2]
        """
        n = len(self.network.lanes)
        ends = []
        for name, lanes in (("starts", starts), ("goals", goals)):
            ids = self.network._lanes(name, lanes)
            if not ids:
                raise InvalidQueryError(f"{name} must name at least one lane")
            ends.append(sorted(set(ids)))
        _validate.choice("method", method, ("astar", "dijkstra"))
        t0 = time.perf_counter()
        usable = [s for s in ends[0] if self.lane_costs[s] < math.inf]
        source, sink = n, n + 1
        size = len(self._back_indices)
        indptr = self._back_indptr.copy()
        indptr[-1] = size + len(ends[1])
        indices = np.concatenate([self._back_indices, np.array(ends[1], np.int32)])
        weights = np.concatenate([self._back_weights, np.zeros(len(ends[1]))])
        indices[self._spare[usable]] = source
        weights[self._spare[usable]] = self.lane_costs[usable]
        coords = np.zeros((n + 2, 2))
        coords[:n] = self.graph.coords
        hscale = 0.0
        if method == "astar" and usable:
            aim = np.mean([self.network.lanes[s].points[0] for s in usable], axis=0)
            coords[n:] = aim
            reach = np.hypot(*(coords[usable] - aim).T)
            far = reach > 0
            hscale = min([self.graph.heuristic_scale,
                          *(self.lane_costs[usable][far] / reach[far]).tolist()])
        ws = thread_workspace(n + 2)
        found, cost, expanded, generated, max_open = _csrsearch.search(
            ws, indptr, indices, weights, coords, sink, source, hscale, False)
        path = ws.path_to(source)[-2:0:-1].astype(np.int64) if found else \
            np.empty(0, np.int64)
        stats = SearchStats(expanded=expanded, generated=generated, max_open=max_open,
                            elapsed=time.perf_counter() - t0)
        return PathResult(path, float(cost) if found else math.inf, bool(found), stats,
                          method)


@dataclass(frozen=True, eq=False)
class RouteExtension:
    """A route with road enough ahead: ``lanes`` ``(n,)`` int64, the route's lanes then
    those appended; ``points`` ``(m, 2)`` float64, the polyline to follow (the lanes joined,
    then the artificial point when there is one); ``added``, how many lanes were appended;
    ``artificial``, the length of the straight piece past the network's end (0 when the
    roads went on far enough)."""

    lanes: np.ndarray
    points: np.ndarray
    added: int
    artificial: float

    __eq__ = _fields_equal


def extend_route(planner: RoutePlanner, lanes: Any, *, at: float,
                 ahead: float) -> RouteExtension:
    """Artificial route extension: keep at least ``ahead`` world units of road in front of a
    car ``at`` world units along a route, so that it keeps driving (and its prediction and
    speed stay steady) instead of stopping dead at the route's end.

    ``lanes``: the route's lane ids in order (e.g. a route's ``path``).  ``at``: how far
    along the route's polyline (``network.route_points(lanes)``, junction pieces included)
    the car is (>= 0).  ``ahead``: the road length wanted in front of it (> 0).  While the
    route is too short, the lane the planner's driver may enter that continues straightest
    (least heading change; ties: the lower lane id) is appended; where no lane goes on, an
    artificial point extends the last lane straight ahead by the length still missing.

    >>> from wayfinding.traffic.roads import road_grid
    >>> planner = RoutePlanner(road_grid(4, 1, spacing=100.0), driver=DriverCosts())
    >>> ext = extend_route(planner, [0], at=60.0, ahead=150.0)
    >>> ext.lanes.tolist(), ext.added, ext.artificial
    ([0, 2, 4], 2, 0.0)
    >>> ext = extend_route(planner, [0, 2, 4], at=290.0, ahead=30.0)
    >>> ext.lanes.tolist(), ext.artificial, ext.points[-1].tolist()
    ([0, 2, 4], 20.0, [320.0, -1.75])
    """
    if not isinstance(planner, RoutePlanner):
        raise InvalidQueryError(f"planner {planner!r} must be a RoutePlanner")
    net = planner.network
    route = net._lanes("lanes", lanes)
    if not route:
        raise InvalidQueryError("lanes must name at least one lane")
    pos = _validate.positive_float("at", at, allow_zero=True)
    want = _validate.positive_float("ahead", ahead)
    graph = planner.graph
    length = net.lanes[route[0]].length + sum(net.gap(a, b) + net.lanes[b].length
                                              for a, b in zip(route, route[1:]))
    added = 0
    # The lane appended after a lane is always the same, so the appended lanes end in a
    # cycle once one comes back: the whole turns of it still needed are appended at once.
    seen = {route[-1]: (len(route) - 1, length)}
    while length - pos < want:
        last = route[-1]
        nxt = graph.indices[graph.indptr[last]:graph.indptr[last + 1]].tolist()
        if not nxt:
            break
        head = net.lanes[last].heading(at_end=True)
        best = max(sorted(nxt), key=lambda b: float(head @ net.lanes[b].heading(at_end=False)))
        length += net.gap(last, best) + net.lanes[best].length
        route.append(best)
        added += 1
        if best in seen:
            at, before = seen.pop(best)
            cycle, turn = route[at + 1:], length - before
            need = (want - (length - pos)) / turn
            _validate.allocation("route extension lanes", added + need * len(cycle),
                                 limit=_validate.MAX_PIECES)
            turns = max(math.ceil(need) - 1, 0)
            route += cycle * turns
            length += turns * turn
            added += turns * len(cycle)
            seen.clear()
        seen[best] = (len(route) - 1, length)
    points = net.route_points(route)
    missing = max(want - (length - pos), 0.0)
    if not math.isfinite(missing):
        raise InvalidQueryError(f"ahead {want:g} of at {pos:g} past the route's end "
                                "overflows: no finite road reaches it")
    if missing > 0:
        tip = points[-1] + net.lanes[route[-1]].heading(at_end=True) * missing
        points = np.vstack([points, tip])
    return RouteExtension(np.array(route, dtype=np.int64), points, added, missing)
