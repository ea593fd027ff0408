"""The run metrics on runs made by hand (their values worked out), and recording (arrivals,
removal, time limit)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.crowd import Crowd
from wayfinding.crowd.metrics import E_S, E_W, Run, record


def hand_run():
    """Agent 0 walks (0,0) -> (3,0) at 1 m/s, then stops; agent 1 walks down from (1,1)
    to (1,-1) (overlapping agent 0 at t = 1 s) and arrives at 2 s; radii 0.3, dt 1."""
    p = np.full((4, 2, 2), np.nan)
    p[:, 0] = [(0, 0), (1, 0), (2, 0), (3, 0)]
    p[:3, 1] = [(1, 1), (1, 0.2), (1, -1)]
    return Run(p, 1.0, np.array([0.3, 0.3]), np.array([(3.0, 0.0), (1.0, -1.0)]),
               np.array([3.0, 2.0]))


def test_metrics_of_a_run_worked_by_hand():
    run = hand_run()
    assert run.completion == 1.0 and run.arrival_time(0.5) == 2.0
    assert run.arrival_time(1.0) == 3.0
    # Distances per step: (1,1)-(0,0): 1.41; (1,0.2)-(1,0): 0.2 -> overlap 0.4; then 1.41.
    assert run.collisions() == 1 and run.max_penetration() == pytest.approx(0.4)
    # Agent 1 went 0.8 + 1.2 = 2 for a straight 2: ratio 1; agent 0: 3 for 3.
    assert run.path_ratio() == pytest.approx(1.0)
    # Energy: agent 0 three steps at 1 m/s; agent 1 steps at 0.8 and 1.2 m/s.
    e0 = 3 * (E_S + E_W * 1.0)
    e1 = (E_S + E_W * 0.64) + (E_S + E_W * 1.44)
    assert run.energy() == pytest.approx((e0 + e1) / 2)
    # Jitter: agent 0 steady (0, 0); agent 1 from (0,-0.8) to (0,-1.2): 0.4.
    assert run.jitter() == pytest.approx((0 + 0 + 0.4) / 3)
    with pytest.raises(InvalidQueryError, match="share"):
        run.arrival_time(0)


def test_record_removes_arrivals_and_stops_at_the_limit():
    crowd = Crowd()
    near = crowd.add((0, 0), goal=(2, 0), max_speed=1.0, radius=0.5)
    far = crowd.add((0, 5), goal=(50, 5), max_speed=1.0, radius=0.5)
    run = record(crowd, lambda c, dt: c.step(dt), dt=0.5, seconds=10.0)
    assert run.arrived[0] == 1.5 and run.arrived[1] == math.inf      # within 0.5 at 1.5 s
    assert run.positions.shape == (21, 2, 2) and np.isnan(run.positions[4:, 0]).all()
    assert crowd.ids.tolist() == [far] and near not in crowd.ids
    assert run.completion == 0.5 and run.arrival_time(1.0) == math.inf
    for bad in ({"dt": 0, "seconds": 1}, {"dt": 0.1, "seconds": math.nan}):
        with pytest.raises(InvalidQueryError):
            record(Crowd(), lambda c, dt: None, **bad)


def pairwise_overlaps(run):
    """Collisions and deepest overlap the plain way: every pair at every step."""
    p = run.positions
    i, j = np.triu_indices(p.shape[1], 1)
    gap = (run.radius[i] + run.radius[j])[None] - np.hypot(*(p[:, i] - p[:, j]).T).T
    return int(np.nansum(gap > 1e-9)), float(max(np.nanmax(gap, initial=0.0), 0.0))


@pytest.mark.parametrize("seed", range(4))
def test_collisions_and_overlaps_are_those_of_every_pair(seed):
    """Agents of mixed radii walking through each other without avoidance (packed, so
    that some overlap many others at once), arriving and leaving: the same figures as
    every pair at every step."""
    rng = np.random.default_rng(seed)
    crowd = Crowd()
    for _ in range(60):
        crowd.add(rng.uniform(-4, 4, 2), goal=rng.uniform(-4, 4, 2),
                  radius=rng.choice([0.1, 0.3, 1.5]), max_speed=rng.uniform(0.5, 2))
    run = record(crowd, lambda c, dt: c.step(dt), dt=0.2, seconds=8.0)
    count, deepest = pairwise_overlaps(run)
    assert count > 100 and 0 < deepest
    assert run.collisions() == count and run.max_penetration() == deepest
    assert hand_run().collisions() == 1


def test_overlap_metrics_take_memory_in_the_agents_not_their_pairs():
    """3,000 agents over 4 steps: 4.5 million pairs a step, which every-pair arrays would
    take hundreds of megabytes for."""
    import tracemalloc
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 300, (4, 3000, 2))
    run = Run(p, 0.1, np.full(3000, 0.5), p[-1], np.full(3000, np.inf))
    tracemalloc.start()
    try:
        run.collisions(), run.max_penetration()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6
