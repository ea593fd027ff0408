"""Slot assignment: the optimal method against brute force over every permutation (with
scipy and with the library's own solver), roles, the sorted heuristic, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.groups import assign as assign_module
from wayfinding.groups.assign import assign_slots
from wayfinding.groups.shapes import FormationShape


def total(positions, slots, member_of_slot):
    return np.hypot(*(slots - positions[member_of_slot]).T).sum()


def brute(positions, slots, roles=None, slot_roles=None):
    n = len(slots)
    roles = np.zeros(n, int) if roles is None else np.asarray(roles)
    slot_roles = np.zeros(n, int) if slot_roles is None else np.asarray(slot_roles)
    perms = np.array(list(itertools.permutations(range(n))))     # member of each slot
    ok = (roles[perms] == slot_roles).all(axis=1)
    d = np.hypot(*(slots[None] - positions[perms[ok]]).transpose(2, 0, 1))
    return d.sum(axis=1).min()


@pytest.fixture(params=["scipy", "own"])
def solver(request, monkeypatch):
    if request.param == "own":
        monkeypatch.setattr(assign_module, "_linear_sum_assignment", None)
    else:
        pytest.importorskip("scipy")
    return request.param


points = st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20)), min_size=n, max_size=n),
    st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20)), min_size=n, max_size=n),
    st.lists(st.integers(0, 2), min_size=n, max_size=n), st.randoms(use_true_random=False)))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])   # patch is fixed
@given(case=points)
def test_optimal_matches_brute_force(solver, case):
    pos, slots, roles, rnd = case
    pos, slots = np.array(pos, float) / 2, np.array(slots, float) / 2
    out = assign_slots(pos, slots)
    assert sorted(out.tolist()) == list(range(len(slots)))
    assert total(pos, slots, out) == pytest.approx(brute(pos, slots), rel=1e-9, abs=1e-9)
    slot_roles = list(roles)
    rnd.shuffle(slot_roles)
    out = assign_slots(pos, slots, roles=roles, slot_roles=slot_roles)
    assert (np.asarray(roles)[out] == slot_roles).all()
    assert total(pos, slots, out) == pytest.approx(
        brute(pos, slots, roles, slot_roles), rel=1e-9, abs=1e-9)


def test_own_solver_on_a_larger_random_case_matches_scipy(monkeypatch):
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(3)
    pos, slots = rng.uniform(-10, 10, (40, 2)), rng.uniform(-10, 10, (40, 2))
    cost = np.hypot(*(slots[:, None] - pos[None]).transpose(2, 0, 1))
    r, c = optimize.linear_sum_assignment(cost)
    monkeypatch.setattr(assign_module, "_linear_sum_assignment", None)
    out = assign_slots(pos, slots)
    assert total(pos, slots, out) == pytest.approx(cost[r, c].sum(), rel=1e-12)


def test_sorted_matches_ranks_front_to_back_left_to_right():
    slots = np.array([[2.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    pos = np.array([[-5.0, -3.0], [-4.0, 3.0], [9.0, 0.0]])      # front member is row 2
    assert assign_slots(pos, slots, method="sorted").tolist() == [2, 1, 0]
    # heading -x: forward is -x, left is -y; ties in depth broken by the left
    pos = np.array([[0.0, 5.0], [0.0, 1.0], [0.0, 2.0]])
    assert assign_slots(pos, slots, method="sorted", heading=(-1.0, 0.0)).tolist() == [0, 2, 1]


def test_sorted_is_not_always_optimal():
    slots = np.array([[0.0, 0.0], [0.0, 10.0]])
    pos = np.array([[0.1, 0.0], [0.0, 10.0]])       # a hair ahead: takes the left slot
    s = assign_slots(pos, slots, method="sorted")
    o = assign_slots(pos, slots)
    assert s.tolist() == [1, 0] and o.tolist() == [0, 1]
    assert total(pos, slots, o) < total(pos, slots, s)


@pytest.mark.parametrize("kwargs, match", [
    ({"positions": [[0.0, 0.0]], "slots": [[0.0, 0.0], [1.0, 0.0]]}, "1 members"),
    ({"roles": [0, 0], "slot_roles": [0, 1]}, "role 0 has 2 members but 1 slots"),
    ({"roles": [0.5, 0.0]}, "roles"),
    ({"slot_roles": [0]}, "slot_roles"),
    ({"method": "greedy"}, "method"),
    ({"heading": (0.0, 0.0)}, "heading"),
    ({"positions": [[np.nan, 0.0], [0.0, 0.0]]}, "positions"),
    ({"slots": [[0.0, 0.0, 0.0]]}, "slots"),
    ({"positions": [[True, False], [0, 0]]}, "positions"),
])
def test_bad_input(kwargs, match):
    args = {"positions": [[0.0, 0.0], [1.0, 0.0]], "slots": [[0.0, 1.0], [1.0, 1.0]]}
    args.update(kwargs)
    with pytest.raises(InvalidQueryError, match=match):
        assign_slots(args.pop("positions"), args.pop("slots"), **args)


def test_ragged_roles_are_refused():
    with pytest.raises(InvalidQueryError, match="roles"):
        assign_slots([[0.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [1.0, 1.0]], roles=[[0, 1], [1]])
    with pytest.raises(InvalidQueryError, match="roles"):
        FormationShape.line(3, roles=[[0, 1], [1]])


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])   # patch is fixed
@given(case=points, power=st.sampled_from([1020, -1069]))
def test_far_out_and_tiny_points_assign_as_their_unscaled_copies(solver, case, power):
    # Scaled by 2**1020 the distances pass the largest float (scipy found the matrix of
    # infinities infeasible); by 2**-1069 they are subnormal.  Scaling changes no choice.
    pos, slots, _, _ = case
    pos, slots = np.array(pos, float) / 2, np.array(slots, float) / 2
    far_pos, far_slots = np.ldexp(pos, power), np.ldexp(slots, power)
    out = assign_slots(far_pos, far_slots)
    assert sorted(out.tolist()) == list(range(len(slots)))
    assert total(pos, slots, out) == pytest.approx(brute(pos, slots), rel=1e-9, abs=1e-9)
    for heading in [(1.0, 1.0), (-1.0, 0.5)]:
        assert assign_slots(far_pos, far_slots, method="sorted", heading=heading).tolist() \
            == assign_slots(pos, slots, method="sorted", heading=heading).tolist()
