"""The traffic simulation: far cars placed kinematically along their routes at their
drivers' speeds, routes that never end, levels from the distance to the focus point, the
predicted trajectories each car publishes, and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.traffic.drivers import driver
from wayfinding.traffic.levels import TrafficLod, traffic_lod
from wayfinding.traffic.roads import LaneSpec, LaneType, RoadNetwork, road_grid
from wayfinding.traffic.routes import DriverCosts
from wayfinding.traffic.simulation import Traffic, add_random_cars

FAR = [1e6, 1e6]


def along(points, s):
    """The point ``s`` along a polyline (the test's own interpolation)."""
    seg = np.diff(points, axis=0)
    length = np.hypot(*seg.T)
    stations = np.concatenate(([0.0], np.cumsum(length)))
    j = int(np.clip(np.searchsorted(stations, s, side="right") - 1, 0, len(seg) - 1))
    while length[j] == 0 and j > 0:
        j -= 1
    return points[j] + seg[j] * (s - stations[j]) / length[j]


def test_a_far_car_drives_its_straight_road_exactly_at_its_speed():
    with Traffic(road_grid(4, 1, spacing=100.0), dt=0.25) as traffic:
        traffic.add_car(0, driver="reckless", at=12.5)
        for k in range(1, 121):       # 30 s: past the grid's end, on the artificial road
            traffic.step(FAR)
            assert traffic.positions[0] == pytest.approx([12.5 + 22.0 * 0.25 * k, -1.75],
                                                         abs=1e-9)
        assert traffic.levels == [TrafficLod.ROUTE]


@pytest.mark.parametrize("name", ["cautious", "normal", "reckless"])
def test_far_cars_move_along_their_turning_routes_at_their_speed(name):
    net = road_grid(3, 3, spacing=80.0)
    with Traffic(net, dt=0.1, ahead=120.0) as traffic:
        ids = add_random_cars(traffic, 12, seed=3, drivers=[name])
        speed = driver(name).desired_speed
        start = traffic.distances
        for k in range(1, 301):
            traffic.step(FAR)
            assert traffic.distances == pytest.approx(start + speed * 0.1 * k, abs=1e-9)
            for car in ids:
                lanes, points, base = traffic.route(car)
                want = along(points, traffic.distances[car] - base)
                assert traffic.positions[car] == pytest.approx(want, abs=1e-9)
                # The route is a chain of lanes the network connects.
                assert all(b in net.successors_of(a) for a, b in zip(lanes, lanes[1:]))


def test_cars_never_stop_at_their_routes_end():
    net = road_grid(3, 2, spacing=60.0)
    with Traffic(net, dt=0.2, ahead=50.0) as traffic:
        goal = next(lane.id for lane in net.lanes[1:] if lane.forward)
        traffic.add_car(0, driver="normal", goal=goal)
        dead_end = RoadNetwork()
        road = dead_end.add_road([[0, 0], [30, 0]], [LaneSpec(offset=0.0)])
        alone = Traffic(dead_end, dt=0.2, ahead=50.0)
        alone.add_car(dead_end.road_lanes(road)[0].id)
        before, alone_before = traffic.positions, alone.positions
        for _ in range(200):           # 40 s at 15 a second: far past both routes
            traffic.step(FAR)
            alone.step(FAR)
            moved = np.hypot(*(traffic.positions - before).T)
            assert moved == pytest.approx([15.0 * 0.2], abs=1e-9) or moved[0] > 0
            assert alone.positions[0] - alone_before[0] == pytest.approx([3.0, 0.0], abs=1e-9)
            before, alone_before = traffic.positions, alone.positions
        assert traffic.distances[0] == pytest.approx(600.0)
        assert alone.positions[0] == pytest.approx([600.0, 0.0])


def test_levels_follow_the_distance_to_the_focus():
    net = road_grid(5, 5, spacing=100.0)
    with Traffic(net, lattice_within=120.0, full_within=40.0) as traffic:
        add_random_cars(traffic, 40, seed=5)
        focus = np.array([200.0, 200.0])
        before = traffic.positions
        step = traffic.step(focus)
        want = traffic_lod(np.hypot(*(before - focus).T), lattice_within=120.0,
                           full_within=40.0)
        assert traffic.levels == want
        assert (step.route, step.lattice, step.full) == tuple(
            want.count(level) for level in TrafficLod)
        assert step.time == pytest.approx(0.1)


def overtaking(**options):
    traffic = Traffic(road_grid(4, 1, spacing=200.0), lattice_within=1000.0, **options)
    traffic.add_car(0, driver="cautious", at=40.0)
    traffic.add_car(0, driver="reckless", at=0.0)
    return traffic


@pytest.mark.parametrize("full", [None, 1000.0])
def test_a_fast_near_car_plans_past_a_slow_one(full):
    with overtaking(full_within=full) as traffic:
        widest, last = 0.0, traffic.distances
        for _ in range(60):
            traffic.step([100.0, 0.0])
            assert (traffic.distances >= last).all()
            last = traffic.distances
            widest = max(widest, float(traffic.offsets[1]))
        assert traffic.levels[1] is (TrafficLod.LATTICE if full is None else TrafficLod.FULL)
        assert widest > 1.0                       # it pulled out towards the oncoming lane
        assert traffic.distances[1] > traffic.distances[0]      # and got past


def test_predictions_are_appended_about_every_second_and_queryable_by_time():
    with Traffic(road_grid(4, 4, spacing=100.0), dt=0.1, publish_every=1.0,
                 horizon=1.5) as traffic:
        add_random_cars(traffic, 20, seed=7)
        seen = [[traffic.prediction(car).start_time] for car in range(traffic.count)]
        times, where = [], []
        for _ in range(50):
            traffic.step(FAR)
            times.append(traffic.time)
            where.append(traffic.positions)
            for car in range(traffic.count):
                start = traffic.prediction(car).start_time
                if seen[car][-1] != start:
                    seen[car].append(start)
        for car, starts in enumerate(seen):
            # On adding, then a tenth to the whole second later (spread over the cars),
            # then every second.
            assert starts[:2] == pytest.approx([0.0, (car % 10 + 1) / 10])
            assert np.diff(starts[1:]) == pytest.approx(np.ones(len(starts) - 2))
        where = np.array(where)
        for car in range(traffic.count):
            # Far cars only drive their routes: every prediction is exact.
            assert traffic.predicted_position(car, times) == pytest.approx(where[:, car],
                                                                           abs=1e-9)
            assert traffic.predicted_position(car, 2.0).shape == (1, 2)


def test_a_planning_cars_predictions_match_where_it_then_was():
    with overtaking(dt=0.1, publish_every=0.5, horizon=0.5) as traffic:
        times, where, published, plans = [], [], [], []
        for _ in range(60):
            step = traffic.step([100.0, 0.0])
            if step.applied:
                plans.append(step.time)
            times.append(traffic.time)
            where.append(traffic.positions[1])
            published.append(traffic.prediction(1).start_time)
        error = np.hypot(*(traffic.predicted_position(1, times) - np.array(where)).T)
        assert len(plans) > 5
        for t, since, e in zip(times, published, error):
            if not any(since < p <= t for p in plans):
                assert e < 0.1       # the plan it was predicted with: only timing differs
            else:
                assert e < 3.5       # a later plan moved it: by a lane at most


def sidewalk_network():
    net = RoadNetwork()
    net.add_road([[0, 0], [50, 0]], [LaneSpec(offset=-1.75),
                                    LaneSpec(offset=-5.0, type=LaneType.SIDEWALK)])
    net.add_road([[100, 0], [150, 0]], [LaneSpec(offset=-1.75)])
    return net


@pytest.mark.parametrize("options, message", [
    ({"dt": 0.0}, "dt"),
    ({"dt": float("nan")}, "dt"),
    ({"lattice_within": -1.0}, "lattice_within"),
    ({"full_within": -1.0}, "full_within"),
    ({"threads": -1}, "threads"),
    ({"threads": 1.5}, "threads"),
    ({"threads": 2, "executor": object()}, "threads"),
    ({"executor": object()}, "submit"),
    ({"max_age": 0.05}, "max_age"),
    ({"replan_every": 0.0}, "replan_every"),
    ({"max_asks": 0}, "max_asks"),
    ({"n_sets": 1}, "n_sets"),
    ({"spacing": -2.0}, "spacing"),
    ({"ahead": 0.0}, "ahead"),
    ({"publish_every": 0.0}, "publish_every"),
    ({"horizon": float("inf")}, "horizon"),
])
def test_bad_options_are_refused(options, message):
    with pytest.raises(InvalidQueryError, match=message):
        Traffic(sidewalk_network(), **options)


def test_bad_networks_are_refused():
    with pytest.raises(InvalidQueryError, match="RoadNetwork"):
        Traffic([[0, 0], [1, 1]])


@pytest.mark.parametrize("lane, options, message", [
    (1, {}, "sidewalk"),
    (3, {}, "lane"),
    (-1, {}, "lane"),
    (0, {"at": 60.0}, "at"),
    (0, {"at": -1.0}, "at"),
    (0, {"driver": "speedy"}, "driver"),
    (0, {"driver": 3}, "driver"),
    (0, {"goal": 2}, "cannot be reached"),
    (0, {"goal": 9}, "goal"),
])
def test_bad_cars_are_refused_and_change_nothing(lane, options, message):
    with Traffic(sidewalk_network()) as traffic:
        with pytest.raises(InvalidQueryError, match=message):
            traffic.add_car(lane, **options)
        assert traffic.count == 0
        traffic.add_car(0, driver=DriverCosts(desired_speed=5.0))
        assert traffic.count == 1


def test_bad_queries_are_refused():
    with Traffic(sidewalk_network()) as traffic:
        with pytest.raises(InvalidQueryError, match="no cars"):
            traffic.prediction(0)
        traffic.add_car(0)
        for focus in ([np.nan, 0.0], [1.0], "here"):
            with pytest.raises(InvalidQueryError, match="focus"):
                traffic.step(focus)
        for car in (1, -1, 0.0, True):
            with pytest.raises(InvalidQueryError, match="car"):
                traffic.prediction(car)
        with pytest.raises(InvalidQueryError, match="t must be finite"):
            traffic.predicted_position(0, [0.0, np.inf])
        with pytest.raises(InvalidQueryError, match="drivers"):
            add_random_cars(traffic, 2, drivers=["speedy"])
        with pytest.raises(InvalidQueryError, match="drivers"):
            add_random_cars(traffic, 2, drivers=[])
        with pytest.raises(InvalidQueryError, match="count"):
            add_random_cars(traffic, -2)
        assert traffic.count == 1


def test_random_cars_need_a_traffic_and_a_sequence_of_drivers():
    with pytest.raises(InvalidQueryError, match="Traffic"):
        add_random_cars(None, 3)
    with Traffic(road_grid(3, 2)) as traffic:
        for drivers in (None, 5):
            with pytest.raises(InvalidQueryError, match="drivers"):
                add_random_cars(traffic, 3, drivers=drivers)
