"""Formation metrics: slot error per step, time to reform from a step, the least
separation and the largest overlap ratio, each against a plain loop over steps and pairs;
bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from wayfinding.crowd import Run
from wayfinding.errors import InvalidQueryError
from wayfinding.groups.metrics import FormationRun


def random_run(seed, steps=12, n=5, members=(0, 2, 3)):
    rng = np.random.default_rng(seed)
    positions = rng.uniform(-2, 2, (steps, n, 2))
    radius = rng.uniform(0.2, 0.6, n)
    slots = positions[:, list(members)] + rng.normal(0, 1, (steps, len(members), 2)) \
        * np.linspace(1, 0, steps)[:, None, None]
    return FormationRun(positions, 0.5, radius, np.zeros((n, 2)), np.full(n, np.inf),
                        slots=slots, members=np.array(members))


@pytest.mark.parametrize("seed", range(5))
def test_slot_error_matches_a_loop(seed):
    run = random_run(seed)
    mean, top = run.slot_error()
    for t in range(len(run.positions)):
        gaps = [math.dist(run.positions[t, c], run.slots[t, k])
                for k, c in enumerate(run.members.tolist())]
        assert mean[t] == pytest.approx(sum(gaps) / len(gaps))
        assert top[t] == pytest.approx(max(gaps))
    assert top[-1] == 0.0 and run.summary()["final_slot_error"] == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_separation_and_overlap_match_a_loop(seed):
    run = random_run(seed)
    gaps, ratios = [], [0.0]
    for t, (i, j) in itertools.product(range(len(run.positions)),
                                       itertools.combinations(range(5), 2)):
        g = math.dist(run.positions[t, i], run.positions[t, j]) - run.radius[i] - run.radius[j]
        gaps.append(g)
        ratios.append(-g / min(run.radius[i], run.radius[j]))
    assert run.min_separation() == pytest.approx(min(gaps))
    assert run.max_overlap_ratio() == pytest.approx(max(ratios))
    # the crowd's own deepest overlap is the same pair's depth, in world units
    crowd = Run(run.positions, run.dt, run.radius, run.goal, run.arrived)
    assert crowd.max_penetration() == pytest.approx(max(0.0, -min(gaps)))


def test_time_to_reform_counts_from_the_reform_step():
    positions = np.zeros((6, 2, 2))
    positions[:, 1] = [[5.0, 0.0]] * 6
    slots = np.zeros((6, 1, 2))
    slots[:3] = [[1.0, 0.0]]                        # the old formation's slot, then (0, 0)
    positions[:, 0, 0] = [1.0, 1.0, 1.0, 0.6, 0.3, 0.05]
    run = FormationRun(positions, 0.5, np.full(2, 0.25), np.zeros((2, 2)), np.full(2, np.inf),
                       slots=slots, members=np.array([0]), reformed=3)
    assert run.time_to_reform(0.1) == 1.0           # step 5, two steps of 0.5 s after 3
    assert run.time_to_reform(0.1, start=0) == 0.0
    assert run.time_to_reform(0.01) is None
    assert run.min_separation() == 3.5 and run.max_overlap_ratio() == 0.0


def test_one_agent_has_no_pairs():
    run = FormationRun(np.zeros((3, 1, 2)), 0.1, np.ones(1), np.zeros((1, 2)), np.zeros(1),
                       slots=np.zeros((3, 1, 2)), members=np.array([0]))
    assert run.min_separation() == math.inf and run.max_overlap_ratio() == 0.0
    assert run == FormationRun(np.zeros((3, 1, 2)), 0.1, np.ones(1), np.zeros((1, 2)),
                               np.zeros(1), slots=np.zeros((3, 1, 2)), members=np.array([0]))


@pytest.mark.parametrize("tolerance, start", [(0.0, 0), (-1.0, 0), (0.1, -1), (0.1, 12),
                                               (0.1, 1.5)])
def test_bad_reform_queries_are_refused(tolerance, start):
    with pytest.raises(InvalidQueryError):
        random_run(0).time_to_reform(tolerance, start=start)


def test_groups_colour_members_by_formation():
    run = random_run(0)
    run.formation = np.array([0, 1, 1])
    assert run.groups().tolist() == [1, 0, 2, 2, 0]
