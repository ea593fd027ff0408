"""Routes over regions linked by bridges: the exact abstract search against the flat route
A* on road grids cut into tiles, and the one-bridge scheme of the notes against the best
route that crosses once (networkx on a two-layer graph), never below the optimum."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.traffic.regions import RegionRoutes, regions_by_tiles
from wayfinding.traffic.roads import LaneSpec, RoadNetwork, road_grid
from wayfinding.traffic.routes import DriverCosts, RoutePlanner


def edge_costs(planner):
    g = planner.graph
    src = np.repeat(np.arange(g.num_nodes), np.diff(g.indptr))
    out: dict[tuple[int, int], float] = {}
    for a, b, w in zip(src.tolist(), g.indices.tolist(), g.weights.tolist()):
        out[(a, b)] = min(w, out.get((a, b), math.inf))
    return out


def check_route(planner, route, start, goal):
    path = route.path.tolist()
    assert path[0] == start and path[-1] == goal
    costs = edge_costs(planner)
    assert sum(costs[(a, b)] for a, b in zip(path, path[1:])) == pytest.approx(
        route.cost, rel=1e-9, abs=1e-9)


def one_crossing_cost(planner, regions, start, goal):
    """The best route staying in the start's region, crossing once straight into the goal's
    and staying there (within one region: the best route that never leaves it)."""
    rs, rg = regions[start], regions[goal]
    g = nx.DiGraph()
    for (a, b), w in edge_costs(planner).items():
        for layer, region in ((0, rs), (1, rg)):
            if regions[a] == regions[b] == region:
                g.add_edge((layer, a), (layer, b), weight=w)
        if rs != rg and regions[a] == rs and regions[b] == rg:
            g.add_edge((0, a), (1, b), weight=w)
    target = (1 if rs != rg else 0, goal)
    if start == goal:
        return 0.0
    try:
        return nx.dijkstra_path_length(g, (0, start), target)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return math.inf


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 7), st.integers(1, 6), st.integers(0, 3),
       st.sampled_from([0.0, 3.0, 80.0]), st.sampled_from([60.0, 150.0, 250.0]))
def test_exact_regions_equal_the_flat_route(seed, cols, rows, every, turn, tile):
    rng = np.random.default_rng(seed)
    net = road_grid(cols, rows, spacing=50.0, highway_every=every)
    avoid = frozenset(int(r) for r in rng.choice(len(net.roads), size=len(net.roads) // 5,
                                                   replace=False))
    driver = DriverCosts(road_kind=(("highway", 0.5),), turn=turn, avoid_roads=avoid)
    planner = RoutePlanner(net, driver=driver)
    regions = regions_by_tiles(net, size=tile)
    routes = RegionRoutes(planner, regions)
    for start, goal in rng.integers(0, len(net.lanes), (6, 2)).tolist():
        flat = planner.find_route(start, goal)
        got = routes.find_route(start, goal)
        assert got.found == flat.found
        if flat.found:
            assert got.cost == pytest.approx(flat.cost, rel=1e-9, abs=1e-9)
            check_route(planner, got, start, goal)
        bridge = routes.find_route(start, goal, method="one_bridge")
        want = one_crossing_cost(planner, routes.regions, start, goal)
        assert bridge.found == (want < math.inf)
        if bridge.found:
            assert bridge.cost == pytest.approx(want, rel=1e-9, abs=1e-9)
            assert bridge.cost >= flat.cost - 1e-9 * max(1.0, flat.cost)
            check_route(planner, bridge, start, goal)


def three_areas():
    """Area 0 holds road a, area 1 road b, area 2 roads c and d: a -> b -> c is short
    (through area 1), the direct bridge a -> d -> c from area 0 into area 2 is long."""
    net = RoadNetwork()
    one = [LaneSpec(offset=0.0)]
    a = net.add_road([[0, 0], [10, 0]], one)
    b = net.add_road([[10, 0], [20, 0]], one)
    c = net.add_road([[20, 0], [30, 0]], one)
    d = net.add_road([[10, 0], [10, 50], [20, 50], [20, 0]], one)
    for x, y in ((a, b), (b, c), (a, d), (d, c)):
        net.connect(x, y)
    return net, np.array([0, 1, 2, 2])


def test_one_bridge_is_not_optimal_through_a_third_area():
    net, regions = three_areas()
    planner = RoutePlanner(net, driver=DriverCosts())
    routes = RegionRoutes(planner, regions)
    exact = routes.find_route(0, 2)
    assert exact.path.tolist() == [0, 1, 2] and exact.cost == 20.0
    bridge = routes.find_route(0, 2, method="one_bridge")
    assert bridge.path.tolist() == [0, 3, 2] and bridge.cost == 120.0
    assert routes.bridges.tolist() == [[0, 1], [0, 3], [1, 2]]
    # Without the long bridge no bridge joins areas 0 and 2: the scheme finds nothing.
    only = RegionRoutes(RoutePlanner(net, driver=DriverCosts(avoid_roads=frozenset({3}))),
                        regions)
    assert not only.find_route(0, 2, method="one_bridge").found
    assert only.find_route(0, 2).cost == 20.0


def test_start_equals_goal_and_unreachable_goal():
    net, regions = three_areas()
    routes = RegionRoutes(RoutePlanner(net, driver=DriverCosts()), regions)
    for method in ("exact", "one_bridge"):
        same = routes.find_route(3, 3, method=method)
        assert same.found and same.path.tolist() == [3] and same.cost == 0.0
        back = routes.find_route(2, 0, method=method)
        assert not back.found and back.cost == math.inf and back.path.size == 0


def test_tiles_keep_a_roads_lanes_together():
    net = road_grid(4, 4, spacing=100.0)       # roads' middles at 0, 50, ..., 300
    regions = regions_by_tiles(net, size=200.0)
    for _, lanes in net.roads:
        assert len({int(regions[i]) for i in lanes}) == 1
    assert sorted(set(regions.tolist())) == [0, 1, 2, 3]


@pytest.mark.parametrize("call, message", [
    (lambda p: RegionRoutes(None, np.zeros(4, dtype=int)), "RoutePlanner"),
    (lambda p: RegionRoutes(p, np.zeros(3, dtype=int)), r"\(4,\) integers"),
    (lambda p: RegionRoutes(p, np.zeros(4)), "integers"),
    (lambda p: RegionRoutes(p, np.array([0, -1, 0, 0])), ">= 0"),
    (lambda p: RegionRoutes(p, np.zeros(4, dtype=int)).find_route(0, 9), "goal 9"),
    (lambda p: RegionRoutes(p, np.zeros(4, dtype=int)).find_route(0, 1, method="flat"),
     "method"),
    (lambda p: regions_by_tiles(p.network, size=0), "size"),
    (lambda p: regions_by_tiles(None, size=1.0), "RoadNetwork"),
])
def test_bad_inputs(call, message):
    planner = RoutePlanner(three_areas()[0], driver=DriverCosts())
    with pytest.raises(InvalidQueryError, match=message):
        call(planner)


@pytest.mark.parametrize("size", [1.0, 1e-10, 1e-300])
def test_tiny_tiles_number_every_road_row_by_row(size):
    # tiles smaller than the roads' spacing give each road its own region, numbered by
    # (tile row, tile column) of its middle however many tiles that makes
    net = road_grid(3, 2, spacing=50.0)
    centre = {road: np.mean([net.lanes[i].points.mean(axis=0) for i in lanes], axis=0)
              for road, (_, lanes) in enumerate(net.roads)}
    middles = [centre[lane.road] for lane in net.lanes]
    want = sorted({(float(y), float(x)) for x, y in middles})
    assert len(want) == len(net.roads)
    got = regions_by_tiles(net, size=size)
    assert got.tolist() == [want.index((float(y), float(x))) for x, y in middles]


def test_tiles_too_small_for_the_extent_are_refused():
    with pytest.raises(InvalidQueryError, match="too small"):
        regions_by_tiles(road_grid(3, 2, spacing=50.0), size=1e-310)


def test_ragged_regions_are_refused():
    planner = RoutePlanner(road_grid(3, 1), driver=DriverCosts())
    with pytest.raises(InvalidQueryError, match="regions"):
        RegionRoutes(planner, [[0, 0], [1]])
