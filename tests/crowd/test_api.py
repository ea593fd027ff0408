"""The public crowd API's shape: options are keyword-only everywhere (positional ones still
work for a release, with a warning), and the old names of renamed ones warn."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import wayfinding.crowd as crowd_api
from wayfinding.crowd import (
    ORCA,
    ContextMap,
    Crowd,
    CrowdScenario,
    Wander,
    scenario,
    separation,
    simulate_crowd,
)
from wayfinding.crowd.scenarios import crossing


def public_callables():
    """Every public function, class constructor and public method of wayfinding.crowd and
    of its public modules, by qualified name."""
    modules = [crowd_api] + [importlib.import_module(f"wayfinding.crowd.{m.name}")
                             for m in pkgutil.iter_modules(crowd_api.__path__)
                             if not m.name.startswith("_")]
    found = {}
    for module in modules:
        for name, obj in vars(module).items():
            home = getattr(obj, "__module__", "") or ""
            if name.startswith("_") or not home.startswith("wayfinding.crowd"):
                continue
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    if inspect.isfunction(member):
                        found[f"{home}.{obj.__qualname__}.{attr}"] = member
            elif inspect.isfunction(obj):
                found[f"{home}.{obj.__qualname__}"] = obj
    return found


def test_the_walk_finds_the_api():
    names = public_callables()
    assert len(names) > 60
    for name in ("wayfinding.crowd.agents.Crowd.neighbours", "wayfinding.crowd.steering.arrive",
                 "wayfinding.crowd.navigator.Navigator.__init__",
                 "wayfinding.crowd.scenarios.simulate_crowd"):
        assert name in names


def test_no_option_can_be_given_by_position():
    positional = {
        name: [p.name for p in inspect.signature(func).parameters.values()
               if p.default is not p.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
        for name, func in public_callables().items()}
    assert {name: params for name, params in positional.items() if params} == {}


def test_a_positional_option_still_works_for_a_release_and_warns():
    def fresh():
        c = Crowd()
        for x in (0.0, 0.5, 4.0):
            c.add((x, 0.0))
        return c

    want = separation(fresh(), distance=1.0, count=1)
    with pytest.warns(DeprecationWarning, match=r"separation\(\.\.\., distance, count\) by "
                      r"position is deprecated; use distance=\.\.\., count=\.\.\."):
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
    with pytest.warns(DeprecationWarning, match="Scenario is deprecated; use CrowdScenario"):
        sc = crowd_api.Scenario("empty", Crowd(), 0.1, 1.0)
    assert isinstance(sc, CrowdScenario) and sc.obstacles == [] and sc.noise == 0.0
    with pytest.warns(DeprecationWarning):     # and the model by position, as before
        run = crowd_api.simulate(scenario("crossing", angle=90), ORCA(time_horizon=5.0))
    assert run.completion == 1.0


def test_the_new_names_are_exported_once():
    assert {"CrowdScenario", "simulate_crowd", "Scenario", "simulate"} <= set(crowd_api.__all__)
    assert len(crowd_api.__all__) == len(set(crowd_api.__all__))
