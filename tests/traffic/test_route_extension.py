"""Artificial route extension: road enough ahead of a car at any point of its route, taken
from the lanes that go on straightest (as the driver allows) and, past the network's end, an
artificial straight piece; a car driving the extended route never stops at its end."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.traffic.prediction import Trajectory
from wayfinding.traffic.roads import road_grid
from wayfinding.traffic.routes import DriverCosts, RoutePlanner, extend_route


def arc_length(points):
    return float(np.hypot(*np.diff(points, axis=0).T).sum())


def lane_at(net, start, end):
    return next(lane.id for lane in net.lanes
                if np.allclose(lane.points[0], start) and np.allclose(lane.points[-1], end))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 1.0), st.floats(1.0, 900.0))
def test_there_is_always_road_enough_ahead(seed, where, ahead):
    rng = np.random.default_rng(seed)
    net = road_grid(4, 3, spacing=100.0)
    planner = RoutePlanner(net, driver=DriverCosts())
    start, goal = (int(v) for v in rng.integers(0, len(net.lanes), 2))
    route = planner.find_route(start, goal)
    if not route.found:
        return
    base = net.route_points(route.path)
    at = where * arc_length(base)
    ext = extend_route(planner, route.path, at=at, ahead=ahead)
    assert ext.lanes[:route.path.size].tolist() == route.path.tolist()
    assert ext.added == ext.lanes.size - route.path.size
    total = arc_length(ext.points)
    assert total - at >= ahead - 1e-6
    # Nothing more than needed: without the last lane or the artificial piece it is short.
    if ext.artificial > 0:
        assert total - at == pytest.approx(ahead)
    elif ext.added:
        shorter = net.route_points(ext.lanes[:-1])
        assert arc_length(shorter) - at < ahead
    else:
        assert ahead <= arc_length(base) - at
    for a, b in zip(ext.lanes.tolist(), ext.lanes.tolist()[1:]):
        assert b in net.successors_of(a)


def test_the_extension_goes_straight_on_and_respects_the_driver():
    net = road_grid(4, 3, spacing=100.0)
    first = lane_at(net, [0, 98.25], [100, 98.25])         # eastbound on row 1
    ahead = lane_at(net, [100, 98.25], [200, 98.25])
    plain = extend_route(RoutePlanner(net, driver=DriverCosts()), [first], at=0.0, ahead=150.0)
    assert plain.lanes.tolist() == [first, ahead] and plain.artificial == 0.0
    blocked = DriverCosts(avoid_roads=frozenset({net.lanes[ahead].road}))
    turned = extend_route(RoutePlanner(net, driver=blocked), [first], at=0.0, ahead=150.0)
    second = turned.lanes[1]
    assert second != ahead and net.lanes[second].road != net.lanes[first].road
    assert abs(net.lanes[second].heading(at_end=False) @ [1.0, 0.0]) < 1e-9   # a corner


def test_a_dead_end_gets_an_artificial_straight_piece():
    net = road_grid(2, 1, spacing=100.0)        # one road: a lane each way, no successors
    planner = RoutePlanner(net, driver=DriverCosts())
    ext = extend_route(planner, [0], at=90.0, ahead=25.0)
    assert ext.added == 0 and ext.artificial == pytest.approx(15.0)
    np.testing.assert_allclose(ext.points[-1], [115.0, -1.75])


def test_a_car_on_the_extended_route_keeps_driving():
    net = road_grid(2, 1, spacing=100.0)
    planner = RoutePlanner(net, driver=DriverCosts())
    speed = 10.0
    plain = Trajectory(net.route_points([0]), np.full(2, speed))
    ext = extend_route(planner, [0], at=90.0, ahead=2 * speed)
    moving = Trajectory(ext.points, np.full(len(ext.points), speed))
    # From x = 90 (t = 9) the plain route stops the car at its end within a second; the
    # extended one keeps two seconds of road in front of it.
    t = np.array([9.0, 10.0, 11.0])
    assert plain.position_at(t)[:, 0].tolist() == [90.0, 100.0, 100.0]
    np.testing.assert_allclose(moving.position_at(t)[:, 0], [90.0, 100.0, 110.0])


@pytest.mark.parametrize("call, message", [
    (lambda p: extend_route(None, [0], at=0.0, ahead=1.0), "RoutePlanner"),
    (lambda p: extend_route(p, [], at=0.0, ahead=1.0), "at least one"),
    (lambda p: extend_route(p, [99], at=0.0, ahead=1.0), "lanes 99"),
    (lambda p: extend_route(p, [0], at=-1.0, ahead=1.0), "at -1"),
    (lambda p: extend_route(p, [0], at=0.0, ahead=0.0), "ahead 0"),
    (lambda p: extend_route(p, [0], at=math.nan, ahead=1.0), "at nan"),
])
def test_bad_inputs(call, message):
    planner = RoutePlanner(road_grid(3, 1), driver=DriverCosts())
    with pytest.raises(InvalidQueryError, match=message):
        call(planner)


def test_a_long_extension_around_a_loop_is_the_lane_by_lane_one():
    # around a block the straightest lanes come back: whole turns are appended at once,
    # and the result is still the shortest run of straightest lanes that is long enough
    net = road_grid(2, 2, spacing=10.0)
    planner = RoutePlanner(net, driver=DriverCosts())
    ext = extend_route(planner, [0], at=3.0, ahead=5000.0)
    lanes = ext.lanes.tolist()
    for a, b in zip(lanes, lanes[1:]):
        nxt = planner.network.successors_of(a)
        head = net.lanes[a].heading(at_end=True)
        assert b == max(sorted(nxt), key=lambda c: float(head @ net.lanes[c].heading(
            at_end=False)))
    assert ext.added == len(lanes) - 1 > 100 and ext.artificial == 0.0
    assert arc_length(ext.points) - 3.0 >= 5000.0
    assert arc_length(net.route_points(lanes[:-1])) - 3.0 < 5000.0


@pytest.mark.parametrize("at, ahead", [(0.0, 1e300), (1e300, 1.0), (1.7e308, 1.7e308)])
def test_an_extension_beyond_any_route_is_refused_at_once(at, ahead):
    # around a loop the lanes needed are counted before any is appended
    planner = RoutePlanner(road_grid(2, 2, spacing=10.0), driver=DriverCosts())
    with pytest.raises(InvalidQueryError, match="route extension"):
        extend_route(planner, [0], at=at, ahead=ahead)


def test_an_artificial_piece_that_overflows_is_refused():
    planner = RoutePlanner(road_grid(2, 1, spacing=10.0), driver=DriverCosts())
    assert extend_route(planner, [0], at=1e300, ahead=1e300).artificial == 2e300
    with pytest.raises(InvalidQueryError, match="ahead"):
        extend_route(planner, [0], at=1.7e308, ahead=1.7e308)


def test_ragged_route_lanes_are_refused():
    planner = RoutePlanner(road_grid(3, 1), driver=DriverCosts())
    with pytest.raises(InvalidQueryError, match="sequence of lane ids"):
        extend_route(planner, [[0, 2], [4]], at=0.0, ahead=1.0)
