"""The library's driver personalities and the mid-level lattice step: the step equals its
stages run one by one (road lattice, node costs, top paths, turn limits, speed pass), the
presets are single driver records read by every stage, and bad input is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.traffic import DRIVERS, describe, driver
from wayfinding.traffic.lattice import (
    lattice_node_costs,
    plan_lattice,
    propagate_speeds,
    turn_speed_limits,
)
from wayfinding.traffic.levels import LatticeStep, lattice_step, optimise_step, road_lattice
from wayfinding.traffic.optimiser import CarModel, lattice_seeds, optimise_trajectory
from wayfinding.traffic.prediction import CarField, Trajectory
from wayfinding.traffic.road_field import RoadField
from wayfinding.traffic.roads import LaneSpec, LaneType, RoadNetwork, road_grid
from wayfinding.traffic.routes import DriverCosts


def cars_on(net, road, seed):
    """Four cars on ``road``'s lanes, some parked, some driving along their lane."""
    rng = np.random.default_rng(seed)
    cars = []
    for lane in net.road_lanes(road):
        s = float(rng.uniform(10.0, lane.length - 10.0))
        speed = float(rng.uniform(3.0, 9.0))
        cars.append(Trajectory([lane.point_at(s), lane.points[-1]], [speed, speed]))
        cars.append(Trajectory([lane.point_at(s / 2)], [0.0]))
    return cars


def by_hand(net, road, *, forward, costs, cars, n_sets, spacing, start, k, model):
    """The step's stages one by one."""
    positions, labels = road_lattice(net, road, forward=forward, start=start,
                                     spacing=spacing, n_sets=n_sets + 1)
    lane = labels.index("driving")
    field = CarField(cars, radius=costs.clearance)
    lattice = costs.lattice_costs()
    times = spacing * np.arange(1, n_sets + 1) / costs.desired_speed
    nodes = lattice_node_costs(positions[1:], times, labels, costs=lattice, cars=field)
    paths = plan_lattice(nodes, lane, costs=lattice, k=k)
    limits, speeds, points = [], [], []
    for p in paths:
        pts = np.vstack([positions[0, lane], positions[np.arange(1, n_sets + 1), p.lanes]])
        lim = turn_speed_limits(pts, max_speed=costs.desired_speed,
                                lateral_acceleration=model.lateral_acceleration)
        points.append(pts)
        limits.append(lim)
        speeds.append(propagate_speeds(lim[1:], np.hypot(*np.diff(pts, axis=0).T),
                                       start_limit=lim[0], deceleration=model.max_braking))
    return positions, labels, lane, times, nodes, paths, limits, speeds, points


@pytest.mark.parametrize("name", sorted(DRIVERS))
@pytest.mark.parametrize("forward, seed", [(True, 0), (False, 1), (True, 2)])
def test_the_step_equals_its_stages_by_hand(name, forward, seed):
    net = road_grid(3, 2, spacing=100.0)
    cars = cars_on(net, 2, seed)
    model = CarModel(lateral_acceleration=5.0, max_braking=4.0)
    step = lattice_step(net, 2, forward=forward, driver=driver(name), cars=cars, n_sets=7,
                        spacing=12.0, start=5.0, k=6, model=model)
    want = by_hand(net, 2, forward=forward, costs=driver(name), cars=cars, n_sets=7,
                   spacing=12.0, start=5.0, k=6, model=model)
    positions, labels, lane, times, nodes, paths, limits, speeds, points = want
    assert isinstance(step, LatticeStep) and len(step.paths) == 6
    assert np.array_equal(step.positions, positions) and step.labels == labels
    assert step.start_lane == lane and np.array_equal(step.times, times)
    assert np.array_equal(step.nodes, nodes) and step.paths == paths
    assert all(np.array_equal(a, b) for a, b in zip(step.limits, limits))
    assert all(np.array_equal(a, b) for a, b in zip(step.speeds, speeds))
    assert all(np.array_equal(step.points(i), p) for i, p in enumerate(points))
    assert step.cars.trajectories == cars and step.cars.radius == driver(name).clearance
    assert step.driver == driver(name) and step.model is model
    # The paths seed the optimiser at the same speeds.
    seeds = lattice_seeds(positions[0, lane], positions[1:], step.paths, driver=driver(name),
                          model=model)
    assert all(np.array_equal(s.speeds, np.maximum(v, 1e-3))
               for s, v in zip(seeds, step.speeds))


def test_a_car_in_the_way_makes_the_step_swerve_and_brake():
    net = road_grid(2, 1, spacing=100.0)
    parked = Trajectory([[50.0, -1.75]], [0.0])
    step = lattice_step(net, 0, forward=True, driver=driver("normal"), cars=[parked],
                        n_sets=9, spacing=10.0, k=3,
                        model=CarModel(lateral_acceleration=8.0, max_braking=3.0))
    best = step.paths[0].lanes.tolist()
    assert best == [0, 0, 0, 0, 1, 0, 0, 0, 0]
    # Straight ahead costs the straight steps and one node near the parked car.
    assert step.nodes[4, 0] == 10.0 and step.nodes[4, 1] == 2.0
    assert step.paths[0].cost == 9.0 + 2 * 1.0 + 2.0        # two lane changes, oncoming
    speeds = step.speeds[0]
    assert speeds[0] == speeds[-1] == 15.0 and speeds.min() < 15.0
    # An empty road: straight on at the desired speed.
    empty = lattice_step(net, 0, forward=True, driver=driver("reckless"), n_sets=4,
                         spacing=10.0, k=1)
    assert empty.paths[0].lanes.tolist() == [0] * 4 and empty.paths[0].cost == 4.0
    assert empty.speeds[0].tolist() == [22.0] * 5 and empty.cars.trajectories == []
    assert empty.driver == driver("reckless") and empty.model == CarModel()


@pytest.mark.parametrize("name", sorted(DRIVERS))
def test_the_full_level_optimises_from_the_steps_paths(name):
    net = road_grid(3, 1, spacing=100.0)
    slow = Trajectory([[30.0, -1.75], [200.0, -1.75]], [4.0, 4.0])
    model = CarModel(max_braking=5.0)
    costs = driver(name)
    step = lattice_step(net, 0, forward=True, driver=costs, cars=[slow], n_sets=8,
                        spacing=10.0, k=4, model=model)
    assert step.driver is costs and step.model is model
    plan = optimise_step(net, step)
    # By hand: the road field over 80 ahead plus 10, a third of 90 behind, the lanes
    # 3.5 apart plus 3.5 on each side.
    start = step.positions[0, 0]
    field = RoadField(net, car=start, heading=0.0, length=120.0, width=14.0, cell=0.5,
                      driver=costs)
    seeds = lattice_seeds(start, step.positions[1:], step.paths, driver=costs, model=model)
    want = optimise_trajectory(seeds, start=start, heading=0.0, speed=costs.desired_speed,
                               field=field, driver=costs, cars=step.cars, model=model,
                               horizon=80.0 / costs.desired_speed)
    assert plan == want and plan.cost <= plan.seed_costs[plan.seed]
    assert len(plan.seed_costs) == 4 and field.on_road(plan.points).all()


def test_presets_are_driver_records_read_by_every_stage():
    assert sorted(DRIVERS) == ["cautious", "normal", "reckless"]
    for name, costs in DRIVERS.items():
        assert isinstance(costs, DriverCosts) and driver(name) is costs
    cautious, normal, reckless = (driver(n) for n in ("cautious", "normal", "reckless"))
    # Speeds, car avoidance and the oncoming lane's lattice cost rise and fall together.
    assert cautious.desired_speed < normal.desired_speed < reckless.desired_speed
    assert cautious.car_avoidance > normal.car_avoidance > reckless.car_avoidance
    lattice = [d.lattice_costs() for d in (cautious, normal, reckless)]
    assert [c.type_cost("oncoming") for c in lattice] == [10.0, 2.0, 0.0]
    assert [c.near_distance for c in lattice] == [5.0, 3.0, 2.0]
    # The reckless driver's sidewalk factor is its route factor and its lattice cost.
    assert reckless.factor(LaneType.SIDEWALK, "street", 0) == 2.0
    assert lattice[2].type_cost("sidewalk") == 1.0 and lattice[1].type_cost("sidewalk") == math.inf
    with pytest.raises(TypeError):
        DRIVERS["sleepy"] = normal      # type: ignore[index]
    assert describe(cautious) == ("route: sidewalk never, highway x1.5, 20 a radian turned; "
                                  "lattice: sidewalk never, oncoming +10, within 5 of a car "
                                  "+20; speed 12")
    assert describe(DriverCosts(lane_type=())).startswith("route: lengths; lattice: oncoming")


def test_clearance_sets_the_near_distance():
    assert DriverCosts().lattice_costs().near_distance == 2.0
    assert DriverCosts(clearance=4.5).lattice_costs().near_distance == 4.5
    assert DriverCosts(clearance=4.5).lattice_costs(near_distance=1.0).near_distance == 1.0


def sidewalk_road():
    net = RoadNetwork()
    net.add_road([[0, 0], [50, 0]], [LaneSpec(offset=-3.0, type=LaneType.SIDEWALK),
                                     LaneSpec(offset=3.0, type=LaneType.SIDEWALK)])
    return net


def blocked_step():
    """A step whose driver forbids every lane of the road: it keeps no path."""
    return lattice_step(road_grid(2, 1), 0, forward=True, n_sets=2, spacing=5.0,
                        driver=DriverCosts(lane_type=((LaneType.DRIVING, math.inf),),
                                           oncoming=math.inf))


@pytest.mark.parametrize("call, message", [
    (lambda: driver("sleepy"), "unknown driver 'sleepy'; expected one of 'cautious', "
     "'normal', 'reckless'"),
    (lambda: driver(3), "unknown driver 3"),
    (lambda: DriverCosts(clearance=0.0), "clearance 0"),
    (lambda: DriverCosts(clearance=math.nan), "clearance nan"),
    (lambda: lattice_step(road_grid(2, 1), 0, forward=True, driver="normal", n_sets=2,
                          spacing=5.0), "driver 'normal' must be a DriverCosts"),
    (lambda: lattice_step(road_grid(2, 1), 0, forward=True, driver=DriverCosts(), n_sets=2,
                          spacing=5.0, model=8.0), "model 8.0 must be a CarModel"),
    (lambda: lattice_step(road_grid(2, 1), 5, forward=True, driver=DriverCosts(), n_sets=2,
                          spacing=5.0), "road"),
    (lambda: lattice_step(road_grid(2, 1), 0, forward=True, driver=DriverCosts(), n_sets=0,
                          spacing=5.0), "n_sets 0"),
    (lambda: lattice_step(road_grid(2, 1), 0, forward=True, driver=DriverCosts(), n_sets=2,
                          spacing=-1.0), "spacing -1"),
    (lambda: lattice_step(road_grid(2, 1), 0, forward=True, driver=DriverCosts(), n_sets=2,
                          spacing=5.0, k=0), "k 0"),
    (lambda: lattice_step(road_grid(2, 1), 0, forward=True, driver=DriverCosts(), n_sets=2,
                          spacing=5.0, cars=[[0.0, 0.0]]), "must be a Trajectory"),
    (lambda: lattice_step(sidewalk_road(), 0, forward=False, driver=DriverCosts(), n_sets=2,
                          spacing=5.0), "road 0 has no lane driving backward"),
    (lambda: lattice_step(road_grid(2, 1), 0, forward=True, driver=DriverCosts(), n_sets=2,
                          spacing=5.0, k=1).points(1), "path 1"),
    (lambda: optimise_step(road_grid(2, 1), None), "step None must be a LatticeStep"),
    (lambda: optimise_step(road_grid(2, 1), blocked_step()), "step kept no path"),
    (lambda: optimise_step(road_grid(2, 1), lattice_step(
        road_grid(2, 1), 0, forward=True, driver=DriverCosts(), n_sets=1, spacing=5.0),
        cell=0.0), "cell 0"),
])
def test_bad_inputs(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()
