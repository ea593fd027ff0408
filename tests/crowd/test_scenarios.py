"""The scenario suite under ORCA: everyone arrives, overlaps stay shallow, replays repeat,
bad input is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.crowd import ORCA
from wayfinding.crowd.scenarios import SCENARIOS, scenario, simulate_crowd


@pytest.mark.parametrize("name, options, deepest", [
    ("crossing", {"angle": 90}, 0.0), ("crossing", {"angle": 135}, 0.0),
    ("crossing", {"angle": 180}, 0.0), ("swap", {"n": 16}, 0.15),
    ("bottleneck", {"n": 20}, 0.1), ("circle", {"n": 60, "size": 40}, 0.3 * 3.0),
    ("blocks", {}, 0.3 * 4.0)])
def test_every_scenario_completes_with_shallow_overlaps(name, options, deepest):
    run = simulate_crowd(scenario(name, **options))
    assert run.completion == 1.0
    assert run.max_penetration() <= deepest + 1e-9
    assert 1.0 <= run.path_ratio() < 1.5 and np.isfinite(run.energy())


def test_replays_repeat_and_the_seed_matters():
    runs = [simulate_crowd(scenario("swap", n=9), seed=s) for s in (3, 3, 4)]
    np.testing.assert_array_equal(runs[0].positions, runs[1].positions)
    assert runs[0].positions.shape != runs[2].positions.shape or \
        not np.array_equal(runs[0].positions, runs[2].positions, equal_nan=True)


def test_bad_scenarios():
    for bad in ("parade", ["swap"], None, 3):
        with pytest.raises(InvalidQueryError, match="unknown scenario"):
            scenario(bad)
    with pytest.raises(InvalidQueryError, match="angle"):
        scenario("crossing", angle=0)
    with pytest.raises(InvalidQueryError, match="width"):
        scenario("bottleneck", width=0)
    with pytest.raises(InvalidQueryError, match="width"):
        scenario("one_way", width=0.5)
    with pytest.raises(InvalidQueryError, match="angle"):
        scenario("crossing_flows", angle=200)
    for name, option in (("circle", "n"), ("circle", "size"), ("crossing", "angle"),
                         ("crossing", "distance"), ("swap", "n"), ("swap", "gap"),
                         ("bottleneck", "n"), ("bottleneck", "width"),
                         ("crossing_flows", "n"), ("crossing_flows", "angle"),
                         ("one_way", "n"), ("one_way", "width"), ("one_way", "length")):
        for bad in (math.nan, math.inf, -1, 0, True, "2", None, [3]):
            with pytest.raises(InvalidQueryError, match=option):
                scenario(name, **{option: bad})
    for bad in (-1, 1.5, math.nan, "0", True):
        with pytest.raises(InvalidQueryError, match="seed"):
            simulate_crowd(scenario("crossing"), seed=bad)
    assert sorted(SCENARIOS) == ["blocks", "bottleneck", "circle", "crossing",
                                 "crossing_flows", "one_way", "swap"]


@pytest.mark.parametrize("given", [None, "orca"])
def test_no_one_walks_through_the_walls_of_a_scenario(given):
    """The default ORCA and one made without obstacles both take the scenario's walls (the
    latter as a copy: the one given keeps none)."""
    orca = ORCA(time_horizon=5.0, time_horizon_obst=2.0) if given else None
    sc = scenario("bottleneck", n=16)
    walls = sc.obstacles
    run = simulate_crowd(sc, avoidance=orca)
    p = run.positions.reshape(-1, 2)
    p = p[np.isfinite(p).all(1)]
    for box in walls:
        (x0, y0), (x1, y1) = box.min(0), box.max(0)
        inside = (p[:, 0] > x0) & (p[:, 0] < x1) & (p[:, 1] > y0) & (p[:, 1] < y1)
        assert not inside.any()
    assert run.completion == 1.0
    if orca is not None:
        assert orca.obstacles is None
