"""The simulate-and-score optimiser: never worse than its seed, accepted scores that never
rise, the best of the lattice planner's seeds, on the road, round a predicted car the seed
would hit, and the driver's personality steering each of its parts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.traffic.lattice import lattice_node_costs, plan_lattice
from wayfinding.traffic.levels import road_lattice
from wayfinding.traffic.optimiser import (
    CarModel,
    ScoreWeights,
    lattice_seeds,
    optimise_trajectory,
)
from wayfinding.traffic.prediction import CarField, Trajectory
from wayfinding.traffic.road_field import RoadField
from wayfinding.traffic.roads import LaneSpec, RoadNetwork
from wayfinding.traffic.routes import DriverCosts

START = np.array([0.0, -1.75])


def road(two_way=False):
    """A straight road along +x: lane 0 at y = -1.75 and lane 1 at y = +1.75 (oncoming
    when ``two_way``)."""
    net = RoadNetwork()
    net.add_road([[0, 0], [300, 0]], [LaneSpec(offset=-1.75),
                                      LaneSpec(offset=1.75, forward=not two_way)])
    return net


def field_for(net, driver):
    return RoadField(net, car=START, heading=0.0, length=100.0, width=10.0, cell=0.5,
                     driver=driver)


def slow_car():
    """A car ahead in lane 0, a little towards the road's edge, at 3 m/s."""
    return CarField([Trajectory([[25.0, -2.2], [300.0, -2.2]], [3.0, 3.0])], radius=2.0)


def straight_seed(y=-1.75, speed=15.0):
    return Trajectory([[0.0, y], [100.0, y]], [speed, speed])


def gaps(plan, cars):
    return cars.distance(plan.points, plan.times)


@pytest.mark.parametrize("avoidance", [1.0, 3.0])
def test_the_optimiser_steers_round_a_car_the_seed_would_hit(avoidance):
    # The push's length does not depend on how strongly the driver avoids cars.
    driver = DriverCosts(car_avoidance=avoidance)
    net, cars = road(), slow_car()
    plan = optimise_trajectory([straight_seed()], start=START, heading=0.0, speed=15.0,
                               field=field_for(net, driver), driver=driver, cars=cars)
    seed_only = optimise_trajectory([straight_seed()], start=START, heading=0.0, speed=15.0,
                                    field=field_for(net, driver), driver=driver, cars=cars,
                                    max_iterations=0)
    assert seed_only.collisions > 0 and seed_only.cost == plan.seed_costs[0]
    assert plan.collisions == 0 and gaps(plan, cars).min() >= 2.0
    assert 1 <= plan.iterations <= 4          # a few iterations, as the notes say
    assert plan.cost < plan.seed_costs[0]
    assert field_for(net, driver).on_road(plan.points).all()
    assert plan.points[:, 1].max() > 0.0      # it passes in lane 1


def test_a_driver_who_barely_avoids_cars_stops_in_a_local_minimum():
    # The cars weigh little in the score, so the loop stops once a push no longer pays:
    # fewer collisions than the seed, not none (the optimiser is local, as in the notes).
    driver = DriverCosts(car_avoidance=0.3)
    args = dict(start=START, heading=0.0, speed=15.0, field=field_for(road(), driver),
                driver=driver, cars=slow_car())
    plan = optimise_trajectory([straight_seed()], **args)
    seed = optimise_trajectory([straight_seed()], **args, max_iterations=0)
    assert 0 < plan.collisions < seed.collisions and plan.iterations < 4
    assert optimise_trajectory([straight_seed()], **args, max_iterations=8) == plan


def test_without_car_avoidance_the_driver_keeps_the_collision():
    careless = DriverCosts(car_avoidance=0.0)
    plan = optimise_trajectory([straight_seed()], start=START, heading=0.0, speed=15.0,
                               field=field_for(road(), careless), driver=careless,
                               cars=slow_car())
    assert plan.collisions > 0 and plan.iterations == 0


def test_a_lawful_driver_never_passes_in_the_oncoming_lane():
    net, cars = road(two_way=True), slow_car()
    reckless = DriverCosts(oncoming=1.0)
    passing = optimise_trajectory([straight_seed()], start=START, heading=0.0, speed=15.0,
                                  field=field_for(net, reckless), driver=reckless, cars=cars)
    assert passing.collisions == 0 and passing.points[:, 1].max() > 0.0
    lawful = DriverCosts(oncoming=math.inf)
    field = field_for(net, lawful)
    kept = optimise_trajectory([straight_seed()], start=START, heading=0.0, speed=15.0,
                               field=field, driver=lawful, cars=cars)
    assert field.on_road(kept.points).all() and kept.points[:, 1].max() < 0.0


def test_the_desired_speed_picks_the_seed():
    seeds = [straight_seed(speed=8.0), straight_seed(speed=16.0)]
    for want, best in ((8.0, 0), (16.0, 1)):
        driver = DriverCosts(desired_speed=want)
        plan = optimise_trajectory(seeds, start=START, heading=0.0, speed=want,
                                   field=field_for(road(), driver), driver=driver)
        assert plan.seed == best and plan.collisions == 0
        assert plan.speeds[-1] == pytest.approx(want, rel=1e-6)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(0, 5))
def test_never_worse_than_the_seed_and_scores_never_rise(seed, k, rounds):
    rng = np.random.default_rng(seed)
    driver = DriverCosts(desired_speed=float(rng.uniform(5, 20)),
                         car_avoidance=float(rng.uniform(0, 2)))
    cars = CarField([Trajectory([[float(rng.uniform(10, 60)), float(rng.uniform(-3, 3))],
                                 [float(rng.uniform(0, 100)), float(rng.uniform(-3, 3))]],
                                [float(rng.uniform(0, 10))] * 2)
                     for _ in range(int(rng.integers(0, 3)))], radius=2.0)
    seeds = [Trajectory([[0.0, -1.75], [50.0, float(rng.uniform(-2.5, 2.5))],
                         [100.0, float(rng.uniform(-2.5, 2.5))]],
                        [float(rng.uniform(3, 20))] * 3) for _ in range(k)]
    plan = optimise_trajectory(seeds, start=START, heading=0.0,
                               speed=float(rng.uniform(0, 20)),
                               field=field_for(road(), driver), driver=driver, cars=cars,
                               max_iterations=rounds, horizon=2.0)
    assert plan.cost <= plan.seed_costs[plan.seed]
    assert (plan.final_costs <= plan.seed_costs).all()
    assert plan.cost == plan.final_costs.min() and plan.seed == int(np.argmin(plan.final_costs))
    assert plan.trace[0] == plan.seed_costs[plan.seed] and plan.trace[-1] == plan.cost
    assert (np.diff(plan.trace) < 0).all() and plan.iterations == plan.trace.size - 1 <= rounds
    assert plan.points.shape == (41, 2) and plan.times[-1] == pytest.approx(2.0)


def test_seeds_from_the_lattice_planner():
    net = road()
    driver = DriverCosts()
    positions, labels = road_lattice(net, 0, forward=True, start=10.0, spacing=10.0,
                                     n_sets=8)
    cars = slow_car()
    costs = driver.lattice_costs(near_distance=3.0)
    times = (10.0 + 10.0 * np.arange(8)) / driver.desired_speed
    nodes = lattice_node_costs(positions, times, labels, costs=costs, cars=cars)
    paths = plan_lattice(nodes, 0, costs=costs, k=5)
    seeds = lattice_seeds(START, positions, paths, driver=driver)
    assert len(seeds) == 5
    for path, traj in zip(paths, seeds):
        np.testing.assert_allclose(traj.points[0], START)
        np.testing.assert_allclose(traj.points[1:], positions[np.arange(8), path.lanes])
        assert (traj.speeds <= driver.desired_speed + 1e-9).all()
    plan = optimise_trajectory(seeds, start=START, heading=0.0, speed=15.0,
                               field=field_for(net, driver), driver=driver, cars=cars)
    assert plan.collisions == 0 and plan.cost <= plan.seed_costs.min()


def test_a_sharp_lattice_turn_slows_the_seed_before_it():
    positions = np.array([[[10.0, 0.0]], [[20.0, 0.0]], [[20.0, 10.0]], [[20.0, 20.0]]])
    path = plan_lattice(np.zeros((4, 1)), 0, costs=DriverCosts().lattice_costs())[0]
    seed = lattice_seeds([0.0, 0.0], positions, [path], driver=DriverCosts(),
                         model=CarModel(lateral_acceleration=2.0, max_braking=1.0))[0]
    # The right angle at (20, 0) allows sqrt(2 · 7.07...) (the circle through its
    # neighbours); the node before it is braked for.
    assert seed.speeds[2] == pytest.approx(math.sqrt(2.0 * 5.0 * math.sqrt(2.0)))
    assert seed.speeds[2] < seed.speeds[1] < seed.speeds[0] <= 15.0


@pytest.mark.parametrize("speed", [1.0, 4.0, 10.0])
def test_the_sideways_grip_holds_while_the_car_accelerates(speed):
    # A seed turning hard to the left at 20 a second, the car starting slower and
    # accelerating: each frame's turn, taken at the speed the car moves with in that
    # frame, keeps v² · curvature within the model's sideways grip.
    model = CarModel(max_acceleration=20.0, max_steer=1.2, lateral_acceleration=8.0)
    seed = Trajectory([[0.0, -1.75], [6.0, -1.75], [6.0, 60.0]], [20.0, 20.0, 20.0])
    dt = 0.05
    plan = optimise_trajectory([seed], start=START, heading=0.0, speed=speed,
                               field=field_for(road(), DriverCosts()), driver=DriverCosts(),
                               model=model, horizon=1.5, dt=dt, max_iterations=0)
    moved = plan.speeds[1:]
    turned = np.abs(np.diff(plan.headings))
    assert (np.diff(plan.speeds) > 0).any() and turned.max() > 0
    # The heading turns by v · curvature · dt in a frame driven at v.
    assert (moved * turned / dt <= model.lateral_acceleration * (1 + 1e-9)).all()


def test_a_car_faster_than_its_top_speed_brakes_no_harder_than_it_can():
    model = CarModel(max_speed=10.0, max_braking=8.0)
    dt = 0.05
    plan = optimise_trajectory([straight_seed(speed=30.0)], start=START, heading=0.0,
                               speed=20.0, field=field_for(road(), DriverCosts()),
                               driver=DriverCosts(), model=model, horizon=3.0, dt=dt,
                               max_iterations=0)
    drops = -np.diff(plan.speeds)
    assert drops.max() == pytest.approx(model.max_braking * dt)   # braking, at full
    assert (drops <= model.max_braking * dt * (1 + 1e-9)).all()
    assert plan.speeds[-1] == model.max_speed and plan.speeds.max() == 20.0


def kwargs(**change):
    driver = DriverCosts()
    base = dict(start=START, heading=0.0, speed=10.0, field=field_for(road(), driver),
                driver=driver)
    base.update(change)
    return base


@pytest.mark.parametrize("call, message", [
    (lambda: optimise_trajectory([], **kwargs()), "one or more Trajectory"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(field=None)), "RoadField"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(driver=None)), "DriverCosts"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(cars=[])), "CarField"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(speed=-1.0)), "speed -1"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(start=[0, math.nan])), "start"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(horizon=0.0)), "horizon 0"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(dt=1e-9)), "10,000"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(lookahead=0)), "lookahead 0"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(max_iterations=-1)),
     "max_iterations -1"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(push=math.nan)), "push nan"),
    (lambda: optimise_trajectory([straight_seed()], **kwargs(model=None)), "CarModel"),
    (lambda: CarModel(max_steer=2.0), "max_steer 2"),
    (lambda: CarModel(wheelbase=0.0), "wheelbase 0"),
    (lambda: ScoreWeights(collision=-1.0), "collision -1"),
    (lambda: lattice_seeds([0, 0], np.zeros((2, 2)), [], driver=DriverCosts()),
     "n_sets, n_lanes, 2"),
    (lambda: lattice_seeds([0, 0], np.zeros((2, 2, 2)), ["path"], driver=DriverCosts()),
     "LatticePath"),
])
def test_bad_inputs(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()
