"""The lattice planner: the worked example of Driver San Francisco (Fig 20.4: path costs 5
and 11), its top-k against exhaustive enumeration of every lattice path, the backward speed
pass (Fig 20.5: 70 → 30 → 50 mph) and bad inputs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.traffic.lattice import (
    LatticeCosts,
    lattice_node_costs,
    plan_lattice,
    propagate_speeds,
    turn_speed_limits,
)
from wayfinding.traffic.prediction import CarField, Trajectory


def worked_example():
    """Four sets 10 m apart, lane 0 with traffic at y = 0, lane 1 oncoming at y = 4; the
    vehicle drives 10 m/s, so it reaches set i at t = i + 1.  A parked car sits next to
    set 0 in the oncoming lane; an oncoming car on the centre line reaches set 2 with it."""
    xs = np.array([10.0, 20.0, 30.0, 40.0])
    positions = np.stack([np.stack([xs, np.zeros(4)], 1), np.stack([xs, np.full(4, 4.0)], 1)],
                         axis=1)
    parked = Trajectory([[10.0, 4.0]], [0.0])
    oncoming = Trajectory([[60.0, 2.0], [-40.0, 2.0]], [10.0, 10.0])
    costs = LatticeCosts()
    nodes = lattice_node_costs(positions, [1.0, 2.0, 3.0, 4.0], ["driving", "oncoming"],
                               costs=costs, cars=CarField([parked, oncoming], radius=2.0))
    return nodes, costs


def test_worked_example_path_costs_5_and_11():
    nodes, costs = worked_example()
    paths = plan_lattice(nodes, 0, costs=costs, k=16)
    assert paths[0].cost == 5.0 and paths[0].lanes.tolist() == [0, 0, 0, 0]
    by_lanes = {tuple(p.lanes.tolist()): p.cost for p in paths}
    assert by_lanes[(1, 1, 1, 1)] == 11.0
    # The oncoming path's first node alone: lane change 2 + near a car 1 + oncoming 1.
    assert by_lanes[(1, 0, 0, 0)] == 4.0 + 2.0 + 2.0 + 1.0
    assert len(paths) == 2 ** 4     # with two lanes every lane sequence is a path


def test_moving_car_is_near_only_when_it_is_there():
    nodes, _ = worked_example()
    # The oncoming car passes set 2 at t = 3 only: sets 0, 1 and 3 are clear in lane 0.
    assert nodes[:, 0].tolist() == [0.0, 0.0, 1.0, 0.0]
    assert nodes[:, 1].tolist() == [2.0, 1.0, 2.0, 1.0]


def enumerate_top_k(nodes, start, costs, k):
    n_sets, n_lanes = nodes.shape
    scored = []
    for lanes in itertools.product(range(n_lanes), repeat=n_sets):
        total, prev = 0.0, start
        for i, lane in enumerate(lanes):
            diff = abs(lane - prev)
            if diff > costs.max_lane_change:
                total = math.inf
                break
            total += (costs.straight if diff == 0 else costs.lane_change * diff) + nodes[i, lane]
            prev = lane
        if total < math.inf:
            scored.append((total, lanes))
    scored.sort()
    return scored[:k]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 4), st.integers(1, 8),
       st.integers(0, 3), st.integers(0, 4), st.integers(0, 3))
def test_top_k_equals_exhaustive_enumeration(seed, n_sets, n_lanes, k, straight, change,
                                             max_change):
    rng = np.random.default_rng(seed)
    nodes = rng.integers(0, 6, (n_sets, n_lanes)).astype(float)
    nodes[rng.random((n_sets, n_lanes)) < 0.2] = np.inf
    start = int(rng.integers(0, n_lanes))
    costs = LatticeCosts(straight=straight, lane_change=change, max_lane_change=max_change)
    got = [(p.cost, tuple(p.lanes.tolist())) for p in plan_lattice(nodes, start, costs=costs,
                                                                  k=k)]
    assert got == enumerate_top_k(nodes, start, costs, k)


def test_no_usable_path_is_an_empty_list():
    nodes = np.zeros((3, 2))
    nodes[1] = np.inf
    assert plan_lattice(nodes, 0, costs=LatticeCosts(), k=5) == []


def test_lane_type_costs_and_blocked_nodes():
    costs = LatticeCosts(lane_type=(("sidewalk", math.inf), ("oncoming", 3.0)))
    positions = np.zeros((2, 3, 2))
    nodes = lattice_node_costs(positions, [0.0, 1.0], ["driving", "oncoming", "sidewalk"],
                               costs=costs, blocked=np.array([[False] * 3, [True, False, False]]))
    assert nodes.tolist() == [[0.0, 3.0, math.inf], [math.inf, 3.0, math.inf]]


def test_speed_propagation_worked_example():
    # Set 4 is the desired 70 mph, set 3 nearly straight (70), set 2 a 30 mph corner; one
    # step of braking allows +20 mph out of 30 (2·a·d = 50² - 30²).
    speeds = propagate_speeds([70.0, 30.0, 70.0, 70.0], [1.0, 1.0, 1.0, 1.0], start_limit=70.0,
                              deceleration=(50.0 ** 2 - 30.0 ** 2) / 2)
    assert speeds[1:].tolist() == [50.0, 30.0, 70.0, 70.0]
    assert speeds[0] == pytest.approx(math.sqrt(50.0 ** 2 + 1600.0))
    assert speeds[0] < 70.0


def test_speed_propagation_only_limits_earlier_nodes():
    limits = np.array([90.0, 90.0, 90.0, 10.0, 90.0])
    speeds = propagate_speeds(limits, np.full(5, 5.0), start_limit=90.0, deceleration=2.0)
    assert speeds[5] == 90.0 and speeds[4] == 10.0
    assert np.all(np.diff(speeds[:5]) <= 0)
    assert np.all(speeds[1:] <= limits)



@settings(max_examples=60, deadline=None)
@given(limits=st.lists(st.integers(0, 100), min_size=1, max_size=6),
       data=st.data(), start=st.integers(0, 100), braking=st.integers(0, 50),
       scale=st.sampled_from([(520, 100), (520, 600), (-540, -100), (-520, -600), (0, 1000)]))
def test_speed_propagation_of_far_out_or_tiny_speeds_is_the_plain_one_scaled(
        limits, data, start, braking, scale):
    # Speeds times 2**k, distances times 2**j and the braking times 2**(2k - j) give the
    # same speeds times 2**k (v**2 overflowed, or underflowed to a stop, before).
    k, j = scale
    dist = data.draw(st.lists(st.integers(0, 20), min_size=len(limits), max_size=len(limits)))
    plain = propagate_speeds(limits, dist, start_limit=start, deceleration=braking)
    scaled = propagate_speeds(np.ldexp(np.array(limits, float), k),
                              np.ldexp(np.array(dist, float), j),
                              start_limit=math.ldexp(start, k),
                              deceleration=math.ldexp(braking, 2 * k - j))
    np.testing.assert_allclose(np.ldexp(scaled, -k), plain, rtol=1e-14, atol=0)


def test_turn_limits_from_the_circle_through_each_node():
    # A right angle whose three points lie on a circle of radius 10 (centred at (10, 0)).
    pts = [[0.0, 0.0], [10.0, 10.0], [20.0, 0.0], [30.0, 0.0], [40.0, 0.0], [30.0, 0.0]]
    limits = turn_speed_limits(pts, max_speed=30.0, lateral_acceleration=8.1)
    assert limits[1] == pytest.approx(9.0)            # sqrt(8.1 · 10)
    assert limits[3] == 30.0                           # on a straight: the desired speed
    assert limits[4] == 0.0                            # turns back
    assert limits[0] == limits[-1] == 30.0
    # Fed into the backward pass, the corner slows the approach and not what follows.
    speeds = propagate_speeds(limits[1:], np.full(5, 10.0), start_limit=limits[0],
                              deceleration=2.0)
    assert speeds[0] == pytest.approx(math.sqrt(81.0 + 40.0)) and speeds[1] == pytest.approx(9.0)


@pytest.mark.parametrize("call, message", [
    (lambda: turn_speed_limits([[0, 0], [1, 1]], max_speed=0, lateral_acceleration=1),
     "max_speed"),
    (lambda: turn_speed_limits([[0, 0], [1, 1]], max_speed=1, lateral_acceleration=-1),
     "lateral_acceleration"),
    (lambda: turn_speed_limits([[0, math.inf]], max_speed=1, lateral_acceleration=1),
     "finite"),
    (lambda: plan_lattice(np.zeros(3), 0, costs=LatticeCosts()), "n_sets, n_lanes"),
    (lambda: plan_lattice(np.full((2, 2), np.nan), 0, costs=LatticeCosts()), "NaN"),
    (lambda: plan_lattice(-np.ones((2, 2)), 0, costs=LatticeCosts()), "negative"),
    (lambda: plan_lattice(np.zeros((2, 2)), 2, costs=LatticeCosts()), "start_lane 2"),
    (lambda: plan_lattice(np.zeros((2, 2)), 0, costs=LatticeCosts(), k=0), "k 0"),
    (lambda: LatticeCosts(straight=-1), "straight -1"),
    (lambda: LatticeCosts(max_lane_change=1.5), "max_lane_change 1.5"),
    (lambda: LatticeCosts(lane_type=(("oncoming", float("nan")),)), "oncoming"),
    (lambda: LatticeCosts(lane_type=("oncoming",)), "pair"),
    (lambda: propagate_speeds([1, 2], [1], start_limit=1, deceleration=1), "distances"),
    (lambda: propagate_speeds([1, -2], [1, 1], start_limit=1, deceleration=1), "limits"),
    (lambda: propagate_speeds([1, 2], [1, 1], start_limit=1, deceleration=-1), "deceleration"),
    (lambda: lattice_node_costs(np.zeros((2, 2)), [0, 1], ["a", "b"], costs=LatticeCosts()),
     "n_sets, n_lanes, 2"),
    (lambda: lattice_node_costs(np.zeros((2, 2, 2)), [0], ["a", "b"], costs=LatticeCosts()),
     "arrival_times"),
    (lambda: lattice_node_costs(np.zeros((2, 2, 2)), [0, 1], ["a"], costs=LatticeCosts()),
     "lane_types"),
    (lambda: lattice_node_costs(np.zeros((2, 2, 2)), [0, 1], ["a", "b"], costs=LatticeCosts(),
                                blocked=np.zeros((2, 2))), "bool"),
])
def test_bad_inputs(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()


def test_more_kept_paths_than_a_build_may_make_are_refused_at_once():
    # 3**14 paths: keeping 100,000 at each of 42 nodes would take minutes in Python
    with pytest.raises(InvalidQueryError, match="MAX_PIECES"):
        plan_lattice(np.zeros((14, 3)), 0, costs=LatticeCosts(), k=100_000)
    # a k beyond the lattice's paths is fine: there are only 2**8 of them
    assert len(plan_lattice(np.zeros((8, 2)), 0, costs=LatticeCosts(), k=10**18)) == 256


@pytest.mark.parametrize("scale", [1e-300, 1e-5, 1e5, 1e300])
def test_turn_limits_scale_with_the_path_however_far_out(scale):
    # the radius through three points grows with them: the limit by its square root
    points = np.array([[0.0, 0.0], [1.0, 0.0], [0.3, 0.8], [2.0, 1.0]])
    unit = turn_speed_limits(points, max_speed=1e300, lateral_acceleration=2.0)
    scaled = turn_speed_limits(points * scale, max_speed=1e300, lateral_acceleration=2.0)
    np.testing.assert_allclose(scaled[1:-1], unit[1:-1] * math.sqrt(scale), rtol=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda: plan_lattice(np.zeros((2, 2)), 0, costs=None), "LatticeCosts"),
    (lambda: LatticeCosts(lane_type=None), "lane_type"),
    (lambda: lattice_node_costs(np.zeros((2, 2, 2)), [0.0, 1.0], 5, costs=LatticeCosts()),
     "lane_types"),
    (lambda: lattice_node_costs(np.zeros((2, 2, 2)), [0.0, 1.0], ["driving"] * 2,
                                costs=None), "LatticeCosts"),
    (lambda: lattice_node_costs(np.zeros((2, 2, 2)), [0.0, 1.0], ["driving"] * 2,
                                costs=LatticeCosts(), cars=[1]), "CarField"),
    (lambda: lattice_node_costs(np.zeros((2, 2, 2)), [0.0, 1.0], ["driving"] * 2,
                                costs=LatticeCosts(), blocked=[[True, False], [False]]),
     "blocked"),
    (lambda: CarField(None, radius=1.0), "trajectories"),
])
def test_lattice_arguments_of_the_wrong_kind_are_refused(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call()
