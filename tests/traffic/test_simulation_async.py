"""Planning as asynchronous tasks: a car keeps its previous plan while a task runs, a late
result is re-based on where the car is now, a result too old is dropped and asked again,
and threads give the same cars as inline tasks when every result arrives in time."""

from __future__ import annotations

from concurrent.futures import Future

import numpy as np
import pytest

from wayfinding.traffic.drivers import driver
from wayfinding.traffic.optimiser import CarModel
from wayfinding.traffic.roads import road_grid
from wayfinding.traffic.simulation import Traffic, add_random_cars


class Delayed:
    """Runs each task ``k`` ticks after it was submitted (the test ticks once a step) and
    lists the tasks it finished since the last :meth:`finished`."""

    def __init__(self, k):
        self.k = k
        self.pending = []
        self.done = []

    def submit(self, fn, *args):
        future = Future()
        self.pending.append([self.k, future, fn, args])
        return future

    def tick(self):
        for entry in self.pending:
            entry[0] -= 1
            if entry[0] == 0:
                result = entry[2](*entry[3])
                entry[1].set_result(result)
                self.done.append((entry[3], result))
        self.pending = [entry for entry in self.pending if entry[0] > 0]

    def finished(self):
        done, self.done = self.done, []
        return done


DRIVERS = ("cautious", "reckless")


def overtaking(**options):
    traffic = Traffic(road_grid(4, 1, spacing=200.0), lattice_within=1000.0, **options)
    traffic.add_car(0, driver=DRIVERS[0], at=40.0)
    traffic.add_car(0, driver=DRIVERS[1], at=0.0)
    return traffic


@pytest.mark.parametrize("k", [1, 3, 5])
def test_late_plans_are_rebased_on_where_the_car_is_now(k):
    executor = Delayed(k)
    traffic = overtaking(dt=0.1, executor=executor, max_age=0.6)
    speeds = [driver(name).desired_speed for name in DRIVERS]
    profiles = [None, None]
    applied = 0
    for _ in range(60):
        s, d, v = traffic.distances, traffic.offsets, traffic.speeds
        for args, result in executor.finished():
            car = [driver(name) for name in DRIVERS].index(args[4])
            # Re-based: from the car's own (s, d, v) when the result arrives, then the
            # plan's points ahead of it (none: the car keeps the plan it has).
            if result is not None:
                ps, pd, pv = result
                ahead = ps > s[car]
                profiles[car] = (np.concatenate(([s[car]], ps[ahead])),
                                 np.concatenate(([d[car]], pd[ahead])),
                                 np.concatenate(([v[car]], pv[ahead])))
        step = traffic.step([100.0, 0.0])
        executor.tick()
        applied += step.applied
        for car, profile in enumerate(profiles):
            # Between results the car keeps following the plan it has.
            if profile is None:
                want_s, want_d = s[car] + speeds[car] * 0.1, 0.0
            else:
                ps, pd, pv = profile
                want_s = s[car] + np.interp(s[car], ps, pv, right=speeds[car]) * 0.1
                want_d = np.interp(want_s, ps, pd, right=0.0)
            assert traffic.distances[car] == pytest.approx(want_s, abs=1e-12)
            assert traffic.offsets[car] == pytest.approx(want_d, abs=1e-12)
            assert traffic.distances[car] >= s[car]      # never back along its road
    assert applied > 5


def test_plans_older_than_the_limit_are_dropped_and_asked_again():
    executor = Delayed(4)
    traffic = overtaking(dt=0.1, executor=executor, max_age=0.35)
    dropped = asked = 0
    for _ in range(30):
        step = traffic.step([100.0, 0.0])
        executor.tick()
        assert step.applied == 0                       # 0.4 s late: every one too old
        dropped += step.dropped
        asked += step.asked
    assert dropped > 0 and asked >= dropped
    # Without plans the near cars drive their lanes at their speeds.
    assert traffic.offsets.tolist() == [0.0, 0.0]
    assert traffic.distances == pytest.approx([40.0 + 12.0 * 3.0, 22.0 * 3.0])


def run(threads, steps=40):
    net = road_grid(4, 4, spacing=100.0)
    with Traffic(net, dt=0.1, threads=threads, lattice_within=150.0,
                 full_within=40.0) as traffic:
        add_random_cars(traffic, 30, seed=11)
        history = []
        for _ in range(steps):
            step = traffic.step([150.0, 150.0])
            traffic.wait()
            history.append((traffic.distances, traffic.offsets, traffic.levels, step.asked,
                            step.applied, step.dropped))
        return history


def test_threads_and_inline_tasks_agree_when_results_arrive_in_time():
    inline, threaded = run(0), run(2)
    assert sum(h[4] for h in inline) > 10
    for a, b in zip(inline, threaded):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        assert a[2:] == b[2:]


def test_asks_per_step_are_capped_longest_waiting_first():
    executor = Delayed(1)
    net = road_grid(4, 4, spacing=100.0)
    with Traffic(net, dt=0.1, executor=executor, lattice_within=1e6, max_asks=3) as traffic:
        add_random_cars(traffic, 12, seed=2)
        asked_by = []
        for _ in range(12):
            before = len(executor.pending)
            step = traffic.step([150.0, 150.0])
            assert step.asked <= 3 and len(executor.pending) - before == step.asked
            asked_by.append(step.asked)
            executor.tick()
        # Capped at 3 a step, the 12 cars' first asks spread over the first steps.
        assert asked_by[:4] == [3, 3, 3, 3]
        assert sum(asked_by) > 12


def test_on_threads_without_waiting_no_car_ever_moves_back():
    net = road_grid(4, 4, spacing=100.0)
    fastest = CarModel().max_speed          # the optimiser's cars stay below it
    with Traffic(net, dt=0.1, threads=2, lattice_within=150.0, full_within=40.0,
                 max_age=0.2) as traffic:
        add_random_cars(traffic, 30, seed=13)
        last = traffic.distances
        for _ in range(40):         # results arrive whenever the workers finish them
            traffic.step([150.0, 150.0])
            moved = traffic.distances - last
            assert (moved >= 0).all() and (moved <= fastest * 0.1 + 1e-9).all()
            last = traffic.distances
