"""One driver personality for the three planning stages, each reading its fields: lane type
factors and car avoidance become the lattice's node costs (the default driver reproduces
Fig 20.4); the whole per-lane factor (lane type, road kind, avoided roads) weighs routes
and the optimiser's road field, and desired speed and car avoidance its weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.traffic.lattice import LatticeCosts, lattice_node_costs, plan_lattice
from wayfinding.traffic.levels import road_lattice
from wayfinding.traffic.optimiser import lattice_seeds, optimise_trajectory
from wayfinding.traffic.prediction import CarField, Trajectory
from wayfinding.traffic.road_field import RoadField
from wayfinding.traffic.roads import LaneType, road_grid
from wayfinding.traffic.routes import DriverCosts, RoutePlanner, extend_route


def worked_lattice():
    """The worked example's four sets: lane 0 with traffic, lane 1 oncoming; a parked car
    beside set 0 in the oncoming lane, an oncoming car reaching set 2 with the vehicle."""
    xs = np.array([10.0, 20.0, 30.0, 40.0])
    positions = np.stack([np.stack([xs, np.zeros(4)], 1), np.stack([xs, np.full(4, 4.0)], 1)],
                         axis=1)
    cars = CarField([Trajectory([[10.0, 4.0]], [0.0]),
                     Trajectory([[60.0, 2.0], [-40.0, 2.0]], [10.0, 10.0])], radius=2.0)
    return positions, cars


def plan(driver, k=16):
    positions, cars = worked_lattice()
    costs = driver.lattice_costs()
    nodes = lattice_node_costs(positions, [1.0, 2.0, 3.0, 4.0], ["driving", "oncoming"],
                               costs=costs, cars=cars)
    return {tuple(p.lanes.tolist()): p.cost for p in plan_lattice(nodes, 0, costs=costs, k=k)}


def test_the_default_driver_is_the_worked_example():
    costs = DriverCosts().lattice_costs()
    assert dict(costs.lane_type)["oncoming"] == 1.0 and costs.near_car == 1.0
    assert (costs.straight, costs.lane_change) == (LatticeCosts().straight,
                                                    LatticeCosts().lane_change)
    paths = plan(DriverCosts())
    assert paths[(0, 0, 0, 0)] == 5.0 and paths[(1, 1, 1, 1)] == 11.0
    assert min(paths, key=paths.get) == (0, 0, 0, 0)


def test_personalities_change_the_lattice():
    reckless = plan(DriverCosts(oncoming=1.0, car_avoidance=0.0))
    # No cost for the oncoming lane nor for the cars: only the steps count.
    assert reckless[(0, 0, 0, 0)] == 4.0 and reckless[(1, 1, 1, 1)] == 2.0 + 3.0
    lawful = plan(DriverCosts(oncoming=math.inf))
    assert all(1 not in lanes for lanes in lawful)
    timid = plan(DriverCosts(car_avoidance=10.0))
    assert timid[(0, 0, 0, 0)] == 4.0 + 10.0
    # A lane type the driver likes (factor < 1) costs nothing extra, never less.
    fond = DriverCosts(lane_type=((LaneType.PARKING, 0.5),)).lattice_costs()
    assert dict(fond.lane_type)["parking"] == 0.0
    assert dict(DriverCosts(lane_type=((LaneType.SHOULDER, 3.0),)).lattice_costs(
        straight=2.0).lane_type)["shoulder"] == 4.0


def three_tiers(driver):
    """Route, lattice and optimiser on a generated street (one lane each way) with a car
    stopped in the driving lane at x = 40, all read from one driver record."""
    net = road_grid(3, 1, spacing=100.0)
    planner = RoutePlanner(net, driver=driver)
    route = extend_route(planner, planner.find_route(0, 2).path, at=0.0, ahead=150.0)
    assert net.lanes[int(route.lanes[0])].road == 0
    start = net.lanes[int(route.lanes[0])].points[0]
    stopped = CarField([Trajectory([[40.0, -1.75]], [0.0])], radius=2.0)
    positions, labels = road_lattice(net, 0, forward=True, start=10.0, spacing=10.0,
                                     n_sets=8)
    costs = driver.lattice_costs(near_distance=3.0)
    arrive = (10.0 + 10.0 * np.arange(8)) / driver.desired_speed
    nodes = lattice_node_costs(positions, arrive, labels, costs=costs, cars=stopped)
    paths = plan_lattice(nodes, 0, costs=costs, k=5)
    field = RoadField(net, car=start, heading=0.0, length=80.0, width=10.0, cell=0.5,
                      driver=driver)
    plan = optimise_trajectory(lattice_seeds(start, positions, paths, driver=driver),
                               start=start, heading=0.0, speed=15.0, field=field,
                               driver=driver, cars=stopped)
    return paths, field, plan


def test_one_driver_record_runs_the_three_tiers():
    paths, field, plan = three_tiers(DriverCosts(oncoming=1.0))
    assert any(1 in p.lanes.tolist() for p in paths)
    assert plan.collisions == 0 and plan.points[:, 1].max() > 0.0      # passes oncoming
    assert field.on_road(plan.points).all()
    paths, field, plan = three_tiers(DriverCosts(oncoming=math.inf))
    assert all(1 not in p.lanes.tolist() for p in paths)
    # The lawful driver never leaves its lane (it has no way round the stopped car: the
    # optimiser pushes sideways only, so braking for a blocked lane is not found).
    assert plan.points[:, 1].max() < 0.0 and field.on_road(plan.points).all()


def test_road_kind_and_avoided_roads_reach_routes_and_the_road_field_not_the_lattice():
    net = road_grid(3, 1, spacing=100.0, highway_every=1)      # every road a highway
    slow = DriverCosts(road_kind=(("highway", 3.0),))
    assert slow.lattice_costs() == DriverCosts().lattice_costs()
    assert RoutePlanner(net, driver=slow).find_route(0, 2).cost == 300.0
    probe = [[20.0, -1.75], [40.0, -1.75]]

    def field(driver):
        return RoadField(net, car=[10.0, -1.75], heading=0.0, length=60.0, width=10.0,
                         cell=0.5, driver=driver)
    assert np.diff(field(slow).value(probe))[0] == pytest.approx(3.0 * np.diff(
        field(DriverCosts()).value(probe))[0])
    away = DriverCosts(avoid_roads=frozenset({0}))
    assert away.lattice_costs() == DriverCosts().lattice_costs()
    assert RoutePlanner(net, driver=DriverCosts()).find_route(3, 1).found
    assert not RoutePlanner(net, driver=away).find_route(3, 1).found
    with pytest.raises(InvalidQueryError, match="no drivable cell ahead"):
        field(away)


@pytest.mark.parametrize("call, message", [
    (lambda: DriverCosts(oncoming=0.0), "oncoming 0"),
    (lambda: DriverCosts(desired_speed=0.0), "desired_speed 0"),
    (lambda: DriverCosts(desired_speed=math.inf), "desired_speed inf"),
    (lambda: DriverCosts(car_avoidance=-1.0), "car_avoidance -1"),
    (lambda: DriverCosts().lane_factor("bus"), "label 'bus'"),
    (lambda: DriverCosts().lattice_costs(straight=-1.0), "straight -1"),
    (lambda: DriverCosts().lattice_costs(max_lane_change=-1), "max_lane_change -1"),
])
def test_bad_inputs(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()
