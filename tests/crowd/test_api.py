"""The public crowd API's old forms: options once positional still work for a release, with
a warning, and so do the old names of renamed ones (tests/test_keyword_options.py holds every
option keyword-only)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import wayfinding.crowd as crowd_api
from wayfinding.crowd import (
    ORCA,
    AnticipatoryForces,
    ContextMap,
    Crowd,
    CrowdScenario,
    PowerLaw,
    Wander,
    alignment,
    cohesion,
    scenario,
    scenarios,
    separation,
    simulate_crowd,
)
from wayfinding.crowd.scenarios import crossing


def test_a_positional_option_still_works_for_a_release_and_warns():
    def fresh():
        c = Crowd()
        for x in (0.0, 0.5, 4.0):
            c.add((x, 0.0))
        return c

    want = separation(fresh(), distance=1.0, max_neighbours=1)
    with pytest.warns(DeprecationWarning, match=r"separation\(\.\.\., distance, max_neighbours\) "
                      r"by position is deprecated; use distance=\.\.\., max_neighbours=\.\.\."):
        got = separation(fresh(), 1.0, 1)
    np.testing.assert_array_equal(got, want)
    c = fresh()
    with pytest.warns(DeprecationWarning, match=r"Crowd.neighbours\(\.\.\., distance\)"):
        rows, counts = c.neighbours(1.0)
    assert counts.tolist() == c.neighbours(distance=1.0)[1].tolist() == [1, 1, 0]
    with pytest.warns(DeprecationWarning, match=r"Wander\(\.\.\., radius, distance\)"):
        assert Wander(2.0, 3.0).distance == Wander(radius=2.0, distance=3.0).distance == 3.0
    with pytest.warns(DeprecationWarning, match=r"ContextMap\(\.\.\., lateral\)"):
        assert ContextMap(5, True) == ContextMap(5, lateral=True)
    with pytest.warns(DeprecationWarning, match=r"crossing\(\.\.\., angle\)"):
        assert crossing(135).name == crossing(angle=135).name
    with pytest.raises(TypeError, match="multiple values"):
        separation(fresh(), 1.0, distance=2.0)


def test_the_old_crowd_names_warn_and_do_the_same():
    with pytest.warns(DeprecationWarning, match=r"simulate\(\) is deprecated; use "
                      r"simulate_crowd\(\)"):
        old = crowd_api.simulate(scenario("crossing", angle=90))
    new = simulate_crowd(scenario("crossing", angle=90))
    np.testing.assert_array_equal(old.positions, new.positions)
    with warnings.catch_warnings(record=True) as caught:     # and the model by position
        warnings.simplefilter("always")
        run = crowd_api.simulate(scenario("crossing", angle=90), ORCA(time_horizon=5.0))
    assert sorted(str(w.message) for w in caught) == [
        "simulate() is deprecated; use simulate_crowd()",
        "simulate_crowd(..., avoidance) by position is deprecated; use avoidance=..."]
    assert all(w.category is DeprecationWarning for w in caught)
    assert run.completion == 1.0


@pytest.mark.parametrize("module", [crowd_api, scenarios])
def test_scenario_is_the_old_name_of_crowd_scenario_itself(module):
    with pytest.warns(DeprecationWarning, match=rf"{module.__name__}\.Scenario is deprecated; "
                      "use CrowdScenario"):
        old = module.Scenario
    assert old is CrowdScenario
    assert isinstance(scenario("crossing"), old)
    sc = old("empty", Crowd(), 0.1, 1.0)
    assert isinstance(sc, CrowdScenario) and sc.obstacles == [] and sc.noise == 0.0
    with pytest.raises(AttributeError, match="no attribute 'Scenarios'"):
        module.Scenarios  # noqa: B018


def test_simulate_crowd_takes_its_model_as_avoidance():
    want = simulate_crowd(scenario("crossing", angle=90), avoidance=ORCA(time_horizon=5.0))
    with pytest.warns(DeprecationWarning, match=r"simulate_crowd\(model=\.\.\.\) is "
                      r"deprecated; use avoidance=\.\.\."):
        got = simulate_crowd(scenario("crossing", angle=90), model=ORCA(time_horizon=5.0))
    np.testing.assert_array_equal(got.positions, want.positions)
    with pytest.raises(TypeError, match="give avoidance= only"):
        simulate_crowd(scenario("crossing"), model=None, avoidance=None)


def _pair():
    c = Crowd()
    for x in (0.0, 0.5, 4.0):
        c.add((x, 0.0), goal=(10.0, x))
    return c


@pytest.mark.parametrize("call", [separation, alignment, cohesion,
                                  lambda c, **kw: c.neighbours(**kw)[0],
                                  lambda c, **kw: c.pairs(**kw)[1]])
def test_count_is_the_old_name_of_max_neighbours(call):
    want = call(_pair(), distance=1.0, max_neighbours=1)
    with pytest.warns(DeprecationWarning, match=r"\(count=\.\.\.\) is deprecated; use "
                      r"max_neighbours=\.\.\."):
        got = call(_pair(), distance=1.0, count=1)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="give max_neighbours= only"):
        call(_pair(), count=1, max_neighbours=1)


@pytest.mark.parametrize("model", [PowerLaw, AnticipatoryForces])
def test_sensing_is_the_old_name_of_neighbour_dist(model):
    with pytest.warns(DeprecationWarning, match=r"\(sensing=\.\.\.\) is deprecated; use "
                      r"neighbour_dist=\.\.\."):
        old = model(sensing=0.6)
    assert old.neighbour_dist == 0.6
    np.testing.assert_array_equal(old.forces(_pair()),
                                  model(neighbour_dist=0.6).forces(_pair()))
    with pytest.warns(DeprecationWarning, match=rf"{model.__name__}\.sensing is deprecated; "
                      rf"use {model.__name__}\.neighbour_dist"):
        assert old.sensing == 0.6


def test_the_new_names_are_exported_once():
    assert {"CrowdScenario", "simulate_crowd", "simulate"} <= set(crowd_api.__all__)
    assert len(crowd_api.__all__) == len(set(crowd_api.__all__))
