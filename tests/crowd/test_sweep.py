"""Path-sweep avoidance for agents on preplanned paths, on the chapter's derived cases: a
collider behind is not checked, crossing paths are settled by a gait change (checked by a
fine brute-force simulation of both paths), a head-on pair in a corridor gets a detour about
5 ACR aside (pulled in by a narrow mesh, least overlap when it cannot clear), a stationary
blocker is passed on the side away from it, the stop rule, the detection range s + 2v, the
overlap example, a candidate leaving the mesh is rejected, a collision round a corner is
seen before the turn, spacing behind a slower walker; the moving-disc test against fine
time sampling; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.crowd.sweep import (
    Order,
    PathAvoidance,
    closest_approach,
    detection_range,
    first_contact,
)
from wayfinding.navmesh import NavMesh


def walk(path, speed, times):
    """Plain-Python positions along a polyline at constant speed, stopping at its end."""
    path = [np.asarray(p, dtype=float) for p in path]
    out = []
    for t in times:
        left = speed * t
        for p, q in zip(path[:-1], path[1:]):
            seg = math.dist(p, q)
            if left <= seg:
                out.append(p + (q - p) * (left / seg))
                break
            left -= seg
        else:
            out.append(path[-1])
    return np.array(out)


def least_gap(system, a, b, seconds=20.0):
    ts = np.linspace(0, seconds, 20001)
    pa = walk(system.remaining(a), system.speed[a], ts)
    pb = walk(system.remaining(b), system.speed[b], ts)
    return np.hypot(*(pa - pb).T).min()


def test_a_collider_behind_is_not_checked():
    system = PathAvoidance()
    a = system.add([(0, 0), (20, 0)], speed=1.0, radius=0.4)
    system.add([(-1.5, 0), (20, 0)], speed=2.0, radius=0.4)          # catching up from behind
    assert system.detect(a) is None
    ahead = PathAvoidance()                                          # control: the same in front
    b = ahead.add([(0, 0), (20, 0)], speed=2.0, radius=0.4)
    ahead.add([(1.5, 0), (20, 0)], speed=1.0, radius=0.4)
    assert ahead.detect(b) is not None


def test_crossing_paths_are_settled_by_a_gait_change():
    system = PathAvoidance()
    a = system.add([(-2, 0), (10, 0)], speed=1.0, speeds=(0.5, 1.0, 1.5), radius=0.3)
    b = system.add([(0, -2), (0, 10)], speed=1.0, radius=0.3)
    hit = system.detect(a)
    assert hit is not None and hit.collider == b and not hit.head_on
    assert math.hypot(*(hit.position - hit.collider_position)) == pytest.approx(0.6)
    assert least_gap(system, a, b) < 0.6                             # they would collide
    decisions = system.resolve()
    assert decisions[0].order is Order.SET_SPEED and decisions[0].speed != 1.0
    assert decisions[1].order is Order.OK
    assert least_gap(system, a, b) >= 0.6                            # and now they pass


@pytest.fixture(scope="module")
def wide():
    return NavMesh.build(outline=[(-5, -3), (40, -3), (40, 6), (-5, 6)])


def head_on(mesh, width_top=None):
    system = PathAvoidance(mesh=mesh)
    a = system.add([(0, 1.5), (30, 1.5)], speed=1.0, speeds=(0.8, 1.0, 1.2), radius=0.4,
                   stopping=0.5)
    system.add([(5, 1.5), (-5, 1.5)], speed=1.0, radius=0.4, stopping=0.5)
    return system, a


@pytest.mark.parametrize("mesh", [None, "wide"])
def test_head_on_gets_a_detour_about_five_radii_aside(mesh, request):
    system, a = head_on(None if mesh is None else request.getfixturevalue(mesh))
    hit = system.detect(a)
    assert hit.head_on and hit.overlap == pytest.approx(1.0)
    decision = system.query(a)
    assert decision.order is Order.NEW_PATH and decision.resolved
    side = decision.path[:, 1] - 1.5
    assert side.min() == pytest.approx(-5 * 0.4, abs=1e-9)          # A's right: -y
    assert side.max() <= 1e-9
    assert decision.path[0].tolist() == [0, 1.5] and decision.path[-1].tolist() == [30, 1.5]
    system.apply(a, decision)
    assert system.detect(a) is None


def test_head_on_in_a_narrow_corridor_is_clamped_to_the_mesh():
    mesh = NavMesh.build(outline=[(-5, 0.5), (40, 0.5), (40, 2.5), (-5, 2.5)])
    system, a = head_on(mesh)
    decision = system.query(a)
    assert decision.order is Order.NEW_PATH
    side = decision.path[:, 1] - 1.5
    assert -1.0 <= side.min() < -0.9                                 # pulled in to the wall
    assert (mesh.locate_many(decision.path) >= 0).all()


def test_too_narrow_gives_the_least_overlap():
    mesh = NavMesh.build(outline=[(-5, 0.95), (40, 0.95), (40, 2.05), (-5, 2.05)])
    system, a = head_on(mesh)
    decision = system.query(a)
    assert decision.order is Order.NEW_PATH and not decision.resolved
    again = system.detect(a, speed=1.0, path=decision.path)
    assert again is not None and again.overlap < decision.collision.overlap
    assert (mesh.locate_many(decision.path) >= 0).all()


def test_a_candidate_leaving_the_mesh_is_rejected():
    # The right (-y) side is 0.3 wide: less than one ACR is left, so the left is taken.
    mesh = NavMesh.build(outline=[(-5, 1.2), (40, 1.2), (40, 6), (-5, 6)])
    free, a = head_on(None)
    assert free.query(a).path[:, 1].min() < 1.2                     # right, without a mesh
    system, a = head_on(mesh)
    decision = system.query(a)
    assert decision.order is Order.NEW_PATH and decision.resolved
    assert decision.path[:, 1].max() == pytest.approx(1.5 + 2.0)
    assert (mesh.locate_many(decision.path) >= 0).all()
    for p, q in zip(decision.path[:-1], decision.path[1:]):
        assert not mesh.raycast(p, q).hit


@pytest.mark.parametrize("offset, side", [(0.1, -1), (-0.1, 1), (0.0, -1)])
def test_a_stationary_blocker_is_passed_on_the_far_side(offset, side):
    system = PathAvoidance()
    a = system.add([(0, 0), (30, 0)], speed=1.0, speeds=(0.5, 1.0), radius=0.4, stopping=0.5)
    system.add([(3, offset)], speed=0.0, radius=0.4)
    hit = system.detect(a)
    assert hit.head_on and np.allclose(hit.avoidance, [0, side])
    decision = system.query(a)
    assert decision.order is Order.NEW_PATH and decision.resolved
    lateral = decision.path[:, 1]
    assert (lateral.max() if side > 0 else -lateral.min()) == pytest.approx(2.0)
    system.apply(a, decision)
    assert least_gap(system, a, 1, 40) >= 0.8


def test_the_stop_rule():
    system = PathAvoidance()
    a = system.add([(-2, 0), (10, 0)], speed=1.0, radius=0.3, stopping=0.3)
    system.add([(0, -2), (0, 10)], speed=1.0, radius=0.3)
    decision = system.query(a)
    assert decision.order is Order.STOP and decision.speed == 0
    # Stopping takes 1.8 m: A would end up on B's path, so no stop but a new path.
    late = PathAvoidance()
    c = late.add([(-2, 0), (10, 0)], speed=1.0, radius=0.3, stopping=1.8)
    late.add([(0, -2), (0, 10)], speed=1.0, radius=0.3)
    assert late.detect(c) is not None
    assert late.query(c).order is Order.NEW_PATH


@pytest.mark.parametrize("speed, stopping", [(1.0, 0.5), (1.4, 0.0), (0.7, 1.3)])
def test_detection_range_is_stopping_plus_two_seconds(speed, stopping):
    expected = stopping + 2 * speed
    assert detection_range(speed, stopping) == pytest.approx(expected)
    for gap, seen in ((-0.01, True), (0.01, False)):
        system = PathAvoidance()
        a = system.add([(0, 0), (30, 0)], speed=speed, radius=0.4, stopping=stopping)
        system.add([(expected + 0.8 + gap, 0)], speed=0.0, radius=0.4)   # touching at D
        assert (system.detect(a) is not None) == seen


def test_colliders_beyond_both_ranges_are_ignored():
    for x, seen in ((5.7, True), (5.9, False)):     # ranges 2.5 + 2.5, plus D 0.8
        system = PathAvoidance()
        a = system.add([(0, 0), (30, 0)], speed=1.0, radius=0.4, stopping=0.5)
        system.add([(x, 0), (-30, 0)], speed=1.0, radius=0.4, stopping=0.5)
        assert (system.detect(a) is not None) == seen


def test_overlap_percentage_example():
    system = PathAvoidance()
    a = system.add([(0, 0), (30, 0)], speed=1.0, radius=0.5)
    system.add([(1.5, 0.4)], speed=0.0, radius=0.5)                    # D 1.0, passes 0.4 off
    assert system.detect(a).overlap == pytest.approx(0.6)


def test_a_collision_round_a_corner_is_seen_before_the_turn():
    system = PathAvoidance()
    a = system.add([(1.5, 0), (3, 0), (3, 10)], speed=1.0, radius=0.4, stopping=0.5)
    system.add([(3, 1.5)], speed=0.0, radius=0.4)
    hit = system.detect(a)
    assert hit is not None and hit.position[0] == pytest.approx(3) and hit.position[1] > 0
    assert hit.forward.tolist() == pytest.approx([0, 1])
    straight = PathAvoidance()                      # extrapolating A's velocity misses it
    b = straight.add([(1.5, 0), (30, 0)], speed=1.0, radius=0.4, stopping=0.5)
    straight.add([(3, 1.5)], speed=0.0, radius=0.4)
    assert straight.detect(b) is None


def test_spacing_behind_a_slower_walker():
    for spacing, order in ((3.0, Order.SET_SPEED), (0.0, Order.OK)):
        system = PathAvoidance(spacing=spacing)
        a = system.add([(0, 0), (40, 0)], speed=1.4, speeds=(1.0, 1.2, 1.4), radius=0.4)
        system.add([(2.0, 0), (40, 0)], speed=1.2, radius=0.4)
        assert system.detect(a) is None
        decision = system.query(a)
        assert decision.order is order
        if order is Order.SET_SPEED:
            assert decision.speed == 1.2


def test_advance_moves_along_the_path():
    system = PathAvoidance()
    a = system.add([(0, 0), (3, 0), (3, 4)], speed=1.0)
    system.advance(4.0)
    assert system.position(a).tolist() == pytest.approx([3, 1])
    system.advance(10.0)
    assert system.position(a).tolist() == pytest.approx([3, 4])


point = st.tuples(st.floats(-5, 5), st.floats(-5, 5))


@settings(max_examples=300, deadline=None)
@given(point, point, point, point, st.floats(0.05, 2.0))
@example(a0=(0.0, 0.0), a1=(0.0, 0.0), c0=(0.0, 1.0), c1=(0.0, 0.0), reach=0.05)  # on a sample
def test_moving_discs_against_fine_sampling(a0, a1, c0, c1, reach):
    tau, dist = closest_approach(a0, a1, c0, c1)
    u = np.linspace(0, 1, 20001)[:, None]
    gap = np.hypot(*((np.array(c0) + u * (np.subtract(c1, c0)))
                     - (np.array(a0) + u * np.subtract(a1, a0))).T)
    speed = math.hypot(*(np.subtract(c1, c0) - np.subtract(a1, a0)))
    assert gap.min() >= float(dist) - 1e-9
    assert gap.min() <= float(dist) + speed / 20000 + 1e-9
    first = float(first_contact(a0, a1, c0, c1, reach))
    inside = np.flatnonzero(gap <= reach)
    if abs(gap.min() - reach) < 1e-6:
        return                                              # grazing: either answer is fair
    if not len(inside):
        assert first == math.inf
    else:
        assert first - 1e-9 <= u[inside[0], 0] <= first + 1e-4


def test_first_contact_when_already_touching():
    assert first_contact((0, 0), (1, 0), (0.5, 0), (0.5, 0), 1.0) == 0.0


@pytest.mark.parametrize("kwargs, word", [
    ({"horizon": 0}, "horizon"), ({"head_on_angle": 120}, "head_on_angle"),
    ({"offset": -1}, "offset"), ({"spacing": math.nan}, "spacing"), ({"mesh": "x"}, "mesh"),
])
def test_bad_settings(kwargs, word):
    with pytest.raises(InvalidQueryError, match=word):
        PathAvoidance(**kwargs)


@pytest.mark.parametrize("path, kwargs, word", [
    ([(0, 0), (math.nan, 1)], {"speed": 1.0}, "path"),
    ([(0, 0)], {"speed": 1.0}, "two distinct points"),
    ([(0, 0), (0, 0)], {"speed": 1.0}, "two distinct points"),
    ([(0, 0), (1, 0)], {"speed": -1.0}, "speed"),
    ([(0, 0), (1, 0)], {"speed": 1.0, "speeds": (0.0, 1.0)}, "speeds"),
    ([(0, 0), (1, 0)], {"speed": 1.0, "speeds": "fast"}, "speeds"),
    ([(0, 0), (1, 0)], {"speed": 1.0, "radius": 0}, "radius"),
    ([(0, 0), (1, 0)], {"speed": 1.0, "stopping": -1}, "stopping"),
    ([[0, 0, 0]], {"speed": 0.0}, "path"),
    ([(0, 0)], {"speed": 0.0, "speeds": (-1.0,)}, "speeds"),
    ([(0, 0)], {"speed": 0.0, "speeds": (math.nan,)}, "speeds"),
    ([(0, 0), (1, 0)], {"speed": 1.0, "speeds": object()}, "speeds"),
    ([(0, 0), (1, 0)], {"speed": 1.0, "speeds": (True, 1.0)}, "speeds"),
])
def test_bad_agents(path, kwargs, word):
    system = PathAvoidance()
    with pytest.raises(InvalidQueryError, match=word):
        system.add(path, **kwargs)
    assert len(system) == 0


def test_bad_queries():
    system = PathAvoidance()
    system.add([(0, 0), (1, 0)], speed=1.0)
    for bad in (1, -1, "0", True):
        with pytest.raises(InvalidQueryError, match="agent"):
            system.query(bad)
    with pytest.raises(InvalidQueryError, match="speed"):
        system.detect(0, speed=-2.0)
    with pytest.raises(InvalidQueryError, match="dt"):
        system.advance(0)
    with pytest.raises(InvalidQueryError, match="broadcast"):
        closest_approach([(0, 0)] * 2, [(0, 0)] * 3, (0, 0), (0, 0))
    for bad in ("x", None, object(), [(0, "1")]):
        with pytest.raises(InvalidQueryError, match="a0"):
            closest_approach(bad, (0, 0), (1, 0), (1, 1))
    for bad in (math.nan, math.inf, -1.0, "x", None):
        with pytest.raises(InvalidQueryError, match="reach"):
            first_contact((0, 0), (1, 0), (0, 1), (1, 1), bad)
