"""Levels of detail and a road's lattice: node positions per lane, lane types as the car
sees them, and the whole mid-level step on a road (lattice, costs, plan, speeds)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.traffic.lattice import (
    LatticeCosts,
    lattice_node_costs,
    plan_lattice,
    propagate_speeds,
)
from wayfinding.traffic.levels import TrafficLod, road_lattice, traffic_lod
from wayfinding.traffic.prediction import CarField, Trajectory
from wayfinding.traffic.roads import LaneSpec, LaneType, RoadNetwork


def two_way_road():
    net = RoadNetwork()
    road = net.add_road([[0, 0], [100, 0]],
                        [LaneSpec(offset=-5.0, type=LaneType.PARKING), LaneSpec(offset=-2.0),
                         LaneSpec(offset=2.0, forward=False)])
    return net, road


def test_lod_by_distance():
    assert traffic_lod([0.0, 150.0, 150.5], lattice_within=150.0) == [
        TrafficLod.LATTICE, TrafficLod.LATTICE, TrafficLod.ROUTE]
    assert traffic_lod([0.0, 40.0, 40.5, 150.5], lattice_within=150.0, full_within=40.0) == [
        TrafficLod.FULL, TrafficLod.FULL, TrafficLod.LATTICE, TrafficLod.ROUTE]


def test_road_lattice_positions_and_labels():
    net, road = two_way_road()
    pos, labels = road_lattice(net, road, forward=True, start=10.0, spacing=40.0, n_sets=4)
    assert labels == ["parking", "driving", "oncoming"]
    np.testing.assert_allclose(pos[:, 1], [[10, -2], [50, -2], [90, -2], [100, -2]])
    np.testing.assert_allclose(pos[:, 2], [[10, 2], [50, 2], [90, 2], [100, 2]])
    back, labels = road_lattice(net, road, forward=False, start=10.0, spacing=40.0, n_sets=2)
    assert labels == ["parking", "oncoming", "driving"]
    np.testing.assert_allclose(back[:, 2], [[90, 2], [50, 2]])


def test_mid_level_step_goes_around_a_stopped_car():
    net, road = two_way_road()
    pos, labels = road_lattice(net, road, forward=True, start=10.0, spacing=10.0, n_sets=6)
    stopped = Trajectory([[40.0, -2.0]], [0.0])
    costs = LatticeCosts(lane_type=(("oncoming", 1.0), ("parking", 0.5)), near_car=50.0)
    nodes = lattice_node_costs(pos, np.arange(1.0, 7.0), labels, costs=costs,
                               cars=CarField([stopped], radius=2.0))
    # The car at x = 40 blocks the driving lane at set 3: the best path leaves it there
    # for the cheaper parking lane (0.5) rather than the oncoming one (1).
    best = plan_lattice(nodes, 1, costs=costs, k=5)[0]
    assert best.lanes[3] == 0 and best.lanes[0] == 1 and best.cost < 50.0
    assert nodes[3, 1] == 50.0
    speeds = propagate_speeds(np.full(6, 20.0), np.full(6, 10.0), start_limit=20.0,
                              deceleration=1.0)
    assert speeds.tolist() == [20.0] * 7


def test_planned_path_becomes_a_trajectory_queried_by_time():
    net, road = two_way_road()
    pos, labels = road_lattice(net, road, forward=True, start=10.0, spacing=10.0, n_sets=4)
    costs = LatticeCosts()
    best = plan_lattice(lattice_node_costs(pos, np.arange(1.0, 5.0), labels, costs=costs),
                        1, costs=costs, k=1)[0]
    points = np.vstack([[[0.0, -2.0]], pos[np.arange(4), best.lanes]])
    speeds = propagate_speeds(np.array([10.0, 10.0, 10.0, 0.0]), np.full(4, 10.0),
                              start_limit=10.0, deceleration=5.0)
    assert speeds.tolist() == [10.0, 10.0, 10.0, 10.0, 0.0]
    car = Trajectory(points, speeds)
    # Three steps at 10 m/s, then braking 10 → 0 over the last 10 m (2 s at 5 m/s²).
    assert car.duration == pytest.approx(5.0)
    np.testing.assert_allclose(car.position_at([1.5, 4.0, 9.0]),
                               [[15.0, -2.0], [30.0 + 10 - 2.5, -2.0], [40.0, -2.0]])


@pytest.mark.parametrize("call, message", [
    (lambda: traffic_lod([-1.0], lattice_within=1.0), "distances"),
    (lambda: traffic_lod([1.0], lattice_within=-1.0), "lattice_within"),
    (lambda: traffic_lod([1.0], lattice_within=1.0, full_within=math.nan), "full_within"),
    (lambda: road_lattice(two_way_road()[0], 5, forward=True, start=0, spacing=1, n_sets=1),
     "road 5"),
    (lambda: road_lattice(two_way_road()[0], 0, forward=1, start=0, spacing=1, n_sets=1),
     "forward"),
    (lambda: road_lattice(two_way_road()[0], 0, forward=True, start=0, spacing=0, n_sets=1),
     "spacing 0"),
    (lambda: road_lattice(two_way_road()[0], 0, forward=True, start=0, spacing=1, n_sets=0),
     "n_sets 0"),
])
def test_bad_inputs(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()


def test_a_road_lattice_of_something_else_than_a_network_is_refused():
    with pytest.raises(InvalidQueryError, match="RoadNetwork"):
        road_lattice(None, 0, forward=True, start=0.0, spacing=10.0, n_sets=2)
