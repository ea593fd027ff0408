"""The lattice planner ranks paths by their exact costs: rounded sums neither split nor make
ties, and a step whose cost passes the largest float is still a step.  The oracle scores
every lane sequence with exact fractions."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from wayfinding.traffic.lattice import LatticeCosts, plan_lattice


def exact_top_k(nodes, start, costs, k):
    """The ``k`` cheapest lane sequences by exact cost (ties by lanes): ``(cost, lanes)``,
    the cost correctly rounded."""
    scored = []
    for lanes in itertools.product(range(nodes.shape[1]), repeat=nodes.shape[0]):
        total, prev = Fraction(0), start
        for i, lane in enumerate(lanes):
            diff = abs(lane - prev)
            if diff > costs.max_lane_change or nodes[i, lane] == math.inf:
                break
            step = Fraction(costs.straight if diff == 0 else costs.lane_change) * max(diff, 1)
            total += step + Fraction(nodes[i, lane])
            prev = lane
        else:
            scored.append((total, lanes))
    scored.sort()
    return [(float(c) if c <= Fraction(np.finfo(float).max) else math.inf, lanes)
            for c, lanes in scored[:k]]


def test_paths_of_exactly_equal_cost_are_ordered_by_their_lanes():
    # Three paths cost exactly 1 + 2**-52, summed in three orders: 1 + 2**-53 + 2**-53
    # rounds to 1 (twice to even), 2**-53 + 2**-53 + 1 does not.
    t = 2.0 ** -53
    nodes = np.array([[1.0, t], [t, 1.0], [t, 1.0]])
    costs = LatticeCosts(straight=0.0, lane_change=0.0)
    got = [(p.cost, tuple(p.lanes.tolist())) for p in plan_lattice(nodes, 0, costs=costs, k=5)]
    assert got[1:4] == [(1 + 2 * t, (0, 0, 0)), (1 + 2 * t, (1, 0, 1)), (1 + 2 * t, (1, 1, 0))]
    assert got == exact_top_k(nodes, 0, costs, 5)


def test_a_lane_change_costlier_than_the_largest_float_is_still_allowed():
    # Crossing two lanes costs 2e308: past the largest float, yet a step max_lane_change
    # allows, ranked after the crossings of one lane.
    costs = LatticeCosts(lane_change=1e308, max_lane_change=2)
    nodes = np.zeros((2, 3))
    got = [(p.cost, tuple(p.lanes.tolist())) for p in plan_lattice(nodes, 0, costs=costs, k=9)]
    assert len(got) == 9 and got == exact_top_k(nodes, 0, costs, 9)
    assert got[-1] == (math.inf, (2, 0))       # two crossings of two lanes: 4e308


@pytest.mark.parametrize("seed", range(12))
def test_top_k_equals_exact_enumeration_on_costs_of_every_size(seed):
    rng = np.random.default_rng(seed)
    n_sets, n_lanes = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    # dyadic costs a few bits wide at scales 2**-60 to 2**60: sums that round, and ties
    nodes = np.ldexp(rng.integers(0, 4, (n_sets, n_lanes)).astype(float),
                     rng.choice([-60, -53, 0, 1, 53, 60], (n_sets, n_lanes)))
    nodes[rng.random((n_sets, n_lanes)) < 0.15] = np.inf
    costs = LatticeCosts(straight=float(np.ldexp(1.0, int(rng.choice([-53, 0, 53])))),
                         lane_change=float(rng.choice([0.0, 1.0, 2.0 ** -52, 2.0 ** 60])),
                         max_lane_change=int(rng.integers(0, 3)))
    start = int(rng.integers(0, n_lanes))
    got = [(p.cost, tuple(p.lanes.tolist())) for p in plan_lattice(nodes, start, costs=costs,
                                                                  k=6)]
    assert got == exact_top_k(nodes, start, costs, 6)
