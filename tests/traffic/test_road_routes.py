"""The road network (lane offsets, arc-length sampling, cubic curves, the generated grid) and
route A* for driver personalities against networkx's Dijkstra on the lane graph."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.errors import InvalidGeometryError
from wayfinding.traffic.drivers import describe
from wayfinding.traffic.roads import LaneSpec, LaneType, RoadNetwork, road_grid, sample_cubic
from wayfinding.traffic.routes import DriverCosts, RoutePlanner


def test_lanes_are_offset_and_directed():
    net = RoadNetwork()
    road = net.add_road([[0, 0], [10, 0], [10, 10]],
                        [LaneSpec(offset=-1.0), LaneSpec(offset=1.0, forward=False),
                         LaneSpec(offset=-3.0, type=LaneType.SIDEWALK)], kind="alley")
    fwd, back, walk = net.road_lanes(road)
    np.testing.assert_allclose(fwd.points, [[0, -1], [11, -1], [11, 10]])
    np.testing.assert_allclose(back.points, [[9, 10], [9, 1], [0, 1]])
    assert fwd.length == pytest.approx(22.0) and back.length == pytest.approx(18.0)
    assert walk.type is LaneType.SIDEWALK and walk.kind == "alley"
    np.testing.assert_allclose(fwd.point_at([0.0, 5.5, 16.0, 99.0]),
                               [[0, -1], [5.5, -1], [11, 4], [11, 10]])
    np.testing.assert_allclose(back.heading(at_end=False), [0, -1])


def test_cubic_samples_are_evenly_spaced_on_the_curve():
    ctrl = np.array([[0.0, 0.0], [40.0, 0.0], [60.0, 50.0], [100.0, 50.0]])
    pts = sample_cubic(ctrl, spacing=5.0)
    steps = np.hypot(*np.diff(pts, axis=0).T)
    assert steps.max() - steps.min() < 0.05 * steps.mean()
    np.testing.assert_allclose(pts[[0, -1]], ctrl[[0, 3]])
    u = np.linspace(0, 1, 20001)[:, None]
    curve = ((1 - u) ** 3 * ctrl[0] + 3 * (1 - u) ** 2 * u * ctrl[1]
             + 3 * (1 - u) * u ** 2 * ctrl[2] + u ** 3 * ctrl[3])
    nearest = np.hypot(*(pts[:, None] - curve[None]).transpose(2, 0, 1)).min(axis=1)
    assert nearest.max() < 0.05


def test_road_grid_connections():
    net = road_grid(3, 2, spacing=50.0)
    assert len(net.roads) == 2 * 2 + 3 * 1 and len(net.lanes) == 14
    for lane in net.lanes:
        for nxt in net.successors_of(lane.id):
            assert net.lanes[nxt].road != lane.road          # no U-turns
            assert net.gap(lane.id, nxt) < 3.5                # the junction is short


def oracle_cost(net, driver, a, b):
    lane_factor = dict(driver.lane_type)
    kind_factor = dict(driver.road_kind)
    la, lb = net.lanes[a], net.lanes[b]
    if lb.road in driver.avoid_roads:
        return math.inf
    factor = lane_factor.get(lb.type, 1.0) * kind_factor.get(lb.kind, 1.0)
    da = la.points[-1] - la.points[-2]
    db = lb.points[1] - lb.points[0]
    angle = math.atan2(abs(da[0] * db[1] - da[1] * db[0]), float(da @ db))
    gap = math.dist(la.points[-1], lb.points[0])
    return gap + lb.length * factor + driver.turn * angle


def networkx_cost(net, driver, start, goal):
    g = nx.DiGraph()
    for lane in net.lanes:
        for nxt in net.successors_of(lane.id):
            cost = oracle_cost(net, driver, lane.id, nxt)
            if cost < math.inf:
                g.add_edge(lane.id, nxt, weight=cost)
    try:
        return nx.dijkstra_path_length(g, start, goal)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return 0.0 if start == goal else math.inf


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 5), st.integers(1, 4), st.integers(0, 2),
       st.sampled_from([0.0, 5.0, 200.0]), st.floats(0.3, 3.0))
def test_route_astar_equals_networkx_dijkstra(seed, cols, rows, every, turn, highway):
    rng = np.random.default_rng(seed)
    net = road_grid(cols, rows, spacing=float(rng.uniform(20, 80)), highway_every=every)
    avoid = frozenset(int(r) for r in rng.choice(len(net.roads), size=len(net.roads) // 4,
                                                   replace=False))
    driver = DriverCosts(road_kind=(("highway", highway),), turn=turn, avoid_roads=avoid)
    start, goal = (int(v) for v in rng.integers(0, len(net.lanes), 2))
    want = networkx_cost(net, driver, start, goal)
    planner = RoutePlanner(net, driver=driver)
    for method in ("astar", "dijkstra"):
        route = planner.find_route(start, goal, method=method)
        if want == math.inf:
            assert not route.found
            continue
        assert route.found and route.cost == pytest.approx(want, rel=1e-9, abs=1e-9)
        path = route.path.tolist()
        assert path[0] == start and path[-1] == goal
        steps = sum(oracle_cost(net, driver, a, b) for a, b in zip(path, path[1:]))
        assert steps == pytest.approx(route.cost, rel=1e-9, abs=1e-9)


def test_personalities_pick_different_routes():
    # Along row 1 (streets): the highways of row 0 and columns 0, 2, 4, 6 make a detour that
    # only a driver who prefers highways takes.
    net = road_grid(8, 3, spacing=100.0, highway_every=2)
    start = next(lane.id for lane in net.lanes if lane.forward
                 and lane.points[0].tolist() == [0.0, 98.25] and lane.points[-1][0] == 100.0)
    goal = next(lane.id for lane in net.lanes if lane.forward
                and lane.points[-1].tolist() == [700.0, 98.25])
    plain = RoutePlanner(net, driver=DriverCosts()).find_route(start, goal)
    fast = RoutePlanner(net, driver=DriverCosts(road_kind=(("highway", 0.3),))).find_route(
        start, goal)
    assert {net.lanes[i].kind for i in plain.path.tolist()} == {"street"}
    assert plain.cost == pytest.approx(600.0)
    assert "highway" in {net.lanes[i].kind for i in fast.path.tolist()}
    assert fast.cost < 0.3 * 600.0 + 2 * 100.0 + 100.0


def turns(net, path):
    heads = [tuple(np.round(net.lanes[i].heading(at_end=True), 6)) for i in path]
    return sum(a != b for a, b in zip(heads, heads[1:]))


def test_a_driver_who_avoids_turns_takes_one_corner():
    net = road_grid(6, 6, spacing=50.0)
    start = next(lane.id for lane in net.lanes if lane.forward
                 and lane.points[0].tolist() == [0.0, -1.75])
    goal = next(lane.id for lane in net.lanes if lane.forward
                and lane.points[-1].tolist() == [251.75, 250.0])
    calm = RoutePlanner(net, driver=DriverCosts(turn=1000.0)).find_route(start, goal)
    assert calm.found and turns(net, calm.path.tolist()) == 1
    # Every route of this length turns at least once; any staircase is as short.
    plain = RoutePlanner(net, driver=DriverCosts()).find_route(start, goal)
    assert plain.cost <= calm.cost - 1000.0 * math.pi / 2 + 1e-9


def test_sidewalks_are_forbidden_by_default():
    net = RoadNetwork()
    net.add_road([[0, 0], [10, 0]], [LaneSpec(offset=0.0)])
    net.add_road([[10, 0], [20, 0]], [LaneSpec(offset=0.0, type=LaneType.SIDEWALK)])
    net.connect(0, 1)
    assert not RoutePlanner(net, driver=DriverCosts()).find_route(0, 1).found
    assert RoutePlanner(net, driver=DriverCosts(lane_type=())).find_route(0, 1).cost == 10.0


@pytest.mark.parametrize("call, error, message", [
    (lambda: RoadNetwork().add_road([[0, 0]], [LaneSpec(offset=0)]), InvalidGeometryError,
     "at least 2"),
    (lambda: RoadNetwork().add_road([[0, 0], [0, 0]], [LaneSpec(offset=0)]),
     InvalidGeometryError, "consecutive"),
    (lambda: RoadNetwork().add_road([[0, 0], [1, 0]], []), InvalidGeometryError, "LaneSpec"),
    (lambda: LaneSpec(offset=math.nan), InvalidGeometryError, "offset"),
    (lambda: LaneSpec(offset=0, type="driving"), InvalidGeometryError, "LaneType"),
    (lambda: LaneSpec(offset=0, width=0), InvalidGeometryError, "width"),
    (lambda: sample_cubic([[0, 0], [1, 1]], spacing=1), InvalidGeometryError, r"\(4, 2\)"),
    (lambda: sample_cubic(np.zeros((4, 2)), spacing=0), InvalidGeometryError, "spacing"),
    (lambda: road_grid(0, 2), InvalidQueryError, "columns 0"),
    (lambda: road_grid(2, 2).connect(0, 99), InvalidQueryError, "b 99"),
    (lambda: RoadNetwork().connect(0, 0), InvalidQueryError, "no lanes"),
    (lambda: RoutePlanner(road_grid(2, 2), driver=DriverCosts()).find_route(0, 50),
     InvalidQueryError, "goal 50"),
    (lambda: RoutePlanner(road_grid(2, 2), driver=DriverCosts()).find_route(0, 1,
                                                                             method="bfs"),
     InvalidQueryError, "method"),
    (lambda: RoutePlanner(road_grid(2, 2), driver=None), InvalidQueryError, "DriverCosts"),
    (lambda: RoutePlanner(None, driver=DriverCosts()), InvalidQueryError, "RoadNetwork"),
    (lambda: RoutePlanner(RoadNetwork(), driver=DriverCosts()).find_route(0, 0),
     InvalidQueryError, "no lanes"),
    (lambda: DriverCosts(road_kind=(("highway", 0),)), InvalidQueryError, "highway"),
    (lambda: DriverCosts(lane_type=(("sidewalk", 2.0),)), InvalidQueryError, "LaneType"),
    (lambda: DriverCosts(turn=-1), InvalidQueryError, "turn"),
    (lambda: DriverCosts(avoid_roads={1}), InvalidQueryError, "frozenset"),
])
def test_bad_inputs(call, error, message):
    with pytest.raises(error, match=message):
        call()


def networkx_between(net, driver, starts, goals):
    """The cheapest route from a lane of ``starts`` (its own cost counted) to one of
    ``goals`` by networkx's Dijkstra from each start lane in turn."""
    g = nx.DiGraph()
    g.add_nodes_from(range(len(net.lanes)))
    for lane in net.lanes:
        for nxt in net.successors_of(lane.id):
            cost = oracle_cost(net, driver, lane.id, nxt)
            if cost < math.inf:
                g.add_edge(lane.id, nxt, weight=cost)
    best = math.inf
    for s in set(starts):
        lane = net.lanes[s]
        own = lane.length * dict(driver.lane_type).get(lane.type, 1.0) * \
            dict(driver.road_kind).get(lane.kind, 1.0)
        if lane.road in driver.avoid_roads:
            continue
        dist = nx.single_source_dijkstra_path_length(g, s)
        best = min([best, *(own + dist[t] for t in goals if t in dist)])
    return best, g


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 5), st.integers(1, 4), st.integers(0, 2),
       st.sampled_from([0.0, 5.0, 200.0]), st.floats(0.3, 3.0), st.integers(1, 4),
       st.integers(1, 4))
def test_route_between_lane_sets_equals_networkx(seed, cols, rows, every, turn, highway,
                                                 n_starts, n_goals):
    rng = np.random.default_rng(seed)
    net = road_grid(cols, rows, spacing=float(rng.uniform(20, 80)), highway_every=every)
    avoid = frozenset(int(r) for r in rng.choice(len(net.roads), size=len(net.roads) // 4,
                                                   replace=False))
    driver = DriverCosts(road_kind=(("highway", highway),), turn=turn, avoid_roads=avoid)
    starts = rng.integers(0, len(net.lanes), n_starts).tolist()
    goals = rng.integers(0, len(net.lanes), n_goals).tolist()
    want, g = networkx_between(net, driver, starts, goals)
    planner = RoutePlanner(net, driver=driver)
    for method in ("astar", "dijkstra"):
        route = planner.find_route_between(starts, goals, method=method)
        if want == math.inf:
            assert not route.found and route.path.size == 0
            continue
        assert route.found and route.cost == pytest.approx(want, rel=1e-9, abs=1e-9)
        lanes = route.path.tolist()
        assert lanes[0] in starts and lanes[-1] in goals
        walked = planner.lane_costs[lanes[0]] + sum(g[a][b]["weight"]
                                                    for a, b in zip(lanes, lanes[1:]))
        assert walked == pytest.approx(route.cost, rel=1e-9, abs=1e-9)


def test_route_between_skips_forbidden_start_lanes_and_aims_its_search():
    net = RoadNetwork()
    net.add_road([[0, 0], [10, 0]], [LaneSpec(offset=0.0, type=LaneType.SIDEWALK)])
    net.add_road([[0, 5], [10, 5]], [LaneSpec(offset=0.0)])
    net.add_road([[10, 0], [30, 0]], [LaneSpec(offset=0.0)])
    net.connect(0, 2)
    net.connect(1, 2)
    planner = RoutePlanner(net, driver=DriverCosts())
    route = planner.find_route_between([0, 1], [2])
    assert route.path.tolist() == [1, 2]
    assert route.cost == pytest.approx(10.0 + math.hypot(0, 5) + 20.0)
    assert not planner.find_route_between([0], [2]).found
    grid = RoutePlanner(road_grid(12, 12, spacing=50.0), driver=DriverCosts())
    ends = [grid.find_route_between([0, 1], list(range(400, 420)), method=method)
            for method in ("astar", "dijkstra")]
    assert ends[0].cost == pytest.approx(ends[1].cost)
    assert ends[0].stats.expanded < ends[1].stats.expanded


@pytest.mark.parametrize("starts, goals, method, message", [
    ([], [1], "astar", "starts must name"),
    ([0], np.empty(0, dtype=int), "astar", "goals must name"),
    ([0, 99], [1], "astar", "starts 99"),
    ([0], [1, -1], "astar", "goals -1"),
    ([0], [1], "bfs", "method"),
])
def test_route_between_refuses_bad_inputs(starts, goals, method, message):
    planner = RoutePlanner(road_grid(2, 2), driver=DriverCosts())
    with pytest.raises(InvalidQueryError, match=message):
        planner.find_route_between(starts, goals, method=method)


@pytest.mark.parametrize("cols,rows,spacing", [(2, 1, 10.0), (3, 2, 50.0), (5, 4, 100.0)])
def test_a_road_grid_names_each_junctions_leaving_and_arriving_lanes(cols, rows, spacing):
    net = road_grid(cols, rows, spacing=spacing)
    assert sorted(net.junctions) == [(x, y) for x in range(cols) for y in range(rows)]
    lanes = len(net.lanes)
    for (x, y), (leaving, arriving) in net.junctions.items():
        here = np.array([x, y]) * spacing
        assert leaving and len(leaving) == len(arriving)
        for i in leaving:       # a lane leaves at its start and arrives at its end, 1.75 off
            assert np.hypot(*(net.lanes[i].points[0] - here)) == pytest.approx(1.75)
        for i in arriving:
            assert np.hypot(*(net.lanes[i].points[-1] - here)) == pytest.approx(1.75)
            assert set(net.successors_of(i)) <= set(leaving)
    every = [i for pair in net.junctions.values() for i in pair[0]]
    assert sorted(every) == list(range(lanes))      # each lane leaves exactly one junction
    assert RoadNetwork().junctions == {}


@pytest.mark.parametrize("centreline, message", [
    ([[0, 0], [5, 0], [0, 0]], "vertex 1"),            # turns straight back: no offset
    ([[0, 0], [5, 0], [0, 1e-9]], "vertex 1"),         # nearly: the offset overflows
    ([[-1e308, 0], [1e308, 0]], "finite length"),
])
def test_a_centreline_whose_lanes_are_not_finite_is_refused(centreline, message):
    net = RoadNetwork()
    with pytest.raises(InvalidGeometryError, match=message):
        net.add_road(centreline, [LaneSpec(offset=-1.0), LaneSpec(offset=1.0)])
    assert net.lanes == [] and net.roads == []       # nothing added
    net.add_road([[0, 0], [5, 0], [5, 5]], [LaneSpec(offset=1.0)])
    assert np.isfinite(net.lanes[0].points).all() and net.lanes[0].id == 0


@pytest.mark.parametrize("call, message", [
    (lambda p: p.network.route_points([[0, 2], [3]]), "sequence of lane ids"),
    (lambda p: p.find_route_between([[0], [1, 2]], [3]), "sequence of lane ids"),
    (lambda p: p.find_route_between([0], [[1, 2], [3]]), "sequence of lane ids"),
    (lambda p: DriverCosts(lane_type=None), "lane_type"),
    (lambda p: DriverCosts(road_kind=5), "road_kind"),
    (lambda p: describe(None), "DriverCosts"),
])
def test_ragged_lanes_and_malformed_driver_fields_are_refused(call, message):
    planner = RoutePlanner(road_grid(3, 2), driver=DriverCosts())
    with pytest.raises(InvalidQueryError, match=message):
        call(planner)


@pytest.mark.parametrize("net, driver", [
    (lambda: road_grid(3, 2, spacing=1e300), DriverCosts()),
    (lambda: road_grid(3, 2), DriverCosts(road_kind=(("street", 1e300),))),
])
def test_a_lane_graph_too_costly_to_search_names_the_step(net, driver):
    with pytest.raises(InvalidQueryError, match=r"entering lane \d+ from lane \d+ costs"):
        RoutePlanner(net(), driver=driver)


def test_going_straight_on_along_a_diagonal_costs_no_turn():
    # the lanes' unit headings are equal, but their rounded dot product is 1 - 2e-16,
    # whose arccos is a 2e-8 radian "turn": a straight continuation must cost none
    net = RoadNetwork()
    for line in ([[0, 0], [3, 7]], [[3, 7], [6, 14]]):
        net.add_road(line, [LaneSpec(offset=-1.0)])
    net.connect(0, 1)
    route = RoutePlanner(net, driver=DriverCosts(turn=1e6)).find_route(0, 1)
    assert route.cost == net.gap(0, 1) + net.lanes[1].length
