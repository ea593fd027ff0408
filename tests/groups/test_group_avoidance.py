"""Group collision avoidance: groups as discs and oriented boxes, against each other and
against single agents, never overlap (at most 1% of the radius, as the issue allows)."""

import math

import numpy as np
import pytest

from wayfinding.crowd import Crowd
from wayfinding.errors import InvalidQueryError
from wayfinding.groups.avoidance import GroupAvoidance, _nearest

DT = 0.1


def towards(position, goal, speed):
    d = goal - position
    size = np.hypot(d[:, 0], d[:, 1])[:, None]
    return np.where(size > 1e-9, d / np.maximum(size, 1e-12) * np.minimum(speed, size / DT), 0)


def box_gap(c1, f1, e1, c2, f2, e2):
    """Separating-axis test: the largest separation of two oriented boxes along their four
    axes (< 0: they overlap by that much)."""
    def axes(f):
        return [f, np.array([-f[1], f[0]])]

    def extent(f, e, axis):
        a, b = axes(f)
        return e[0] * abs(a @ axis) + e[1] * abs(b @ axis)

    return max(abs((c2 - c1) @ axis) - extent(f1, e1, axis) - extent(f2, e2, axis)
               for axis in axes(f1) + axes(f2))


@pytest.mark.parametrize("offset", [0.0, 0.3, -1.0])
def test_two_disc_groups_crossing_head_on_never_overlap(offset):
    avoid = GroupAvoidance(time_horizon=5.0)
    p = np.array([[-10.0, 0.0], [10.0, offset]])
    goal = np.array([[10.0, 0.0], [-10.0, offset]])
    v = np.zeros((2, 2))
    radius = np.array([2.0, 1.5])
    closest = math.inf
    for _ in range(300):
        v = avoid.velocities(p, v, DT, preferred=towards(p, goal, 1.2), max_speed=1.5,
                             radius=radius)
        p = p + v * DT
        closest = min(closest, float(np.hypot(*(p[0] - p[1]))))
    assert closest >= radius.sum() - 0.01 * radius.min()
    assert np.allclose(p, goal, atol=0.05)                    # both arrived


@pytest.mark.parametrize("offset", [0.0, 0.5])
def test_two_box_groups_crossing_head_on_never_overlap(offset):
    avoid = GroupAvoidance(time_horizon=5.0)
    p = np.array([[-12.0, 0.0], [12.0, offset]])
    goal = np.array([[12.0, 0.0], [-12.0, offset]])
    heading = np.array([[1.0, 0.0], [-1.0, 0.0]])
    ext = np.array([[1.0, 2.0], [1.5, 1.5]])
    v = np.zeros((2, 2))
    closest = math.inf
    for _ in range(350):
        v = avoid.velocities(p, v, DT, preferred=towards(p, goal, 1.2), max_speed=1.5,
                             half_extents=ext, heading=heading)
        p = p + v * DT
        closest = min(closest, box_gap(p[0], heading[0], ext[0], p[1], heading[1], ext[1]))
    assert closest >= -0.01 * ext.min()
    assert np.allclose(p, goal, atol=0.05)


def test_a_box_group_and_a_disc_group_crossing_at_right_angles_never_overlap():
    avoid = GroupAvoidance(time_horizon=4.0)
    p = np.array([[-10.0, 0.0], [0.0, -10.0]])
    goal = np.array([[10.0, 0.0], [0.0, 10.0]])
    for shape in ({"half_extents": [[1.5, 1.0], [1.0, 1.0]], "heading": [[1, 0], [0, 1]]},
                  {"radius": [1.5, 1.0]}):
        q, v = p.copy(), np.zeros((2, 2))
        worst = math.inf
        for _ in range(300):
            v = avoid.velocities(q, v, DT, preferred=towards(q, goal, 1.0), max_speed=1.4,
                                 **shape)
            q = q + v * DT
            if "radius" in shape:
                worst = min(worst, float(np.hypot(*(q[0] - q[1]))) - 2.5)
            else:
                worst = min(worst, box_gap(q[0], np.array([1.0, 0]), np.array([1.5, 1.0]),
                                           q[1], np.array([0.0, 1]), np.array([1.0, 1.0])))
        assert worst >= -0.01
        assert np.allclose(q, goal, atol=0.05)


def stream():
    """A column of agents walking north, 7 apart, one of them where a group walking east
    from (-10, 0) at 1.2 crosses x = 0."""
    crowd = Crowd()
    for k in range(12):
        crowd.add((0.0, -10.0 / 1.2 + 7.0 * (k - 6)), velocity=(0.0, 1.0), radius=0.4,
                  max_speed=1.0)
    return crowd


def test_a_group_crosses_a_stream_of_agents_without_touching_one():
    crowd = stream()
    avoid = GroupAvoidance(time_horizon=3.0, neighbour_dist=10.0)
    p, goal, v = np.array([[-10.0, 0.0]]), np.array([[10.0, 0.0]]), np.zeros((1, 2))
    r = 1.5
    worst = math.inf
    for _ in range(400):
        v = avoid.velocities(p, v, DT, preferred=towards(p, goal, 1.2), max_speed=1.6,
                             radius=[r], agents=crowd)
        p = p + v * DT
        crowd.step(DT, velocity=crowd.velocity)          # the agents walk on regardless
        gaps = np.hypot(*(crowd.position - p[0]).T) - crowd.radius - r
        worst = min(worst, float(gaps.min()))
    assert worst >= -0.01 * 0.4
    assert np.allclose(p, goal, atol=0.05)


def test_without_avoidance_the_stream_would_be_hit():
    """The scenario above is a real test: going straight the group meets an agent."""
    crowd = stream()
    p = np.array([[-10.0, 0.0]])
    worst = math.inf
    for _ in range(400):
        p = p + towards(p, np.array([[10.0, 0.0]]), 1.2) * DT
        crowd.step(DT, velocity=crowd.velocity)
        worst = min(worst, float((np.hypot(*(crowd.position - p[0]).T) - 1.9).min()))
    assert worst < 0


def test_nearest_velocity_matches_a_brute_force_search():
    rng = np.random.default_rng(3)
    for _ in range(30):
        k = int(rng.integers(1, 5))
        normal = rng.normal(size=(k, 2))
        normal /= np.hypot(normal[:, 0], normal[:, 1])[:, None]
        planes = list(zip(rng.uniform(-1, 1, (k, 2)), normal, strict=True))
        pref = rng.uniform(-2, 2, 2)
        got = _nearest(pref, 1.5, planes)
        g = np.stack(np.meshgrid(np.linspace(-1.5, 1.5, 301), np.linspace(-1.5, 1.5, 301)),
                     -1).reshape(-1, 2)
        g = g[np.hypot(g[:, 0], g[:, 1]) <= 1.5]
        viol = np.max([-(g - pt) @ nm for pt, nm in planes], axis=0)
        worst_got = max(-(got - pt) @ nm for pt, nm in planes)
        if (viol <= 0).any():                                # feasible: the nearest
            assert worst_got <= 1e-8
            best = g[viol <= 0][np.argmin(np.hypot(*(g[viol <= 0] - pref).T))]
            assert np.hypot(*(got - pref)) <= np.hypot(*(best - pref)) + 1e-9
        else:                                                # the least violation
            assert worst_got <= viol.min() + 1e-6


def test_no_groups_take_no_velocities():
    v = GroupAvoidance().velocities([], [], DT, preferred=[], max_speed=1.0, radius=[])
    assert v.shape == (0, 2)


@pytest.mark.parametrize("options, match", [
    ({}, "either radius"),
    ({"radius": [1.0, 1.0], "half_extents": [[1, 1], [1, 1]]}, "either radius"),
    ({"radius": [1.0, -1.0]}, "radius"),
    ({"radius": [1.0]}, "radius"),
    ({"half_extents": [[1, 1], [1, 1]]}, "heading"),
    ({"half_extents": [[1, 1], [1, 1]], "heading": [[1, 0], [0, 0]]}, "heading"),
    ({"half_extents": [[1, 0], [1, 1]], "heading": [[1, 0], [1, 0]]}, "half_extents"),
    ({"radius": [1.0, 1.0], "agents": "crowd"}, "Crowd"),
    ({"radius": [1.0, 1.0], "max_speed": -1.0}, "max_speed"),
    ({"radius": [1.0, 1.0], "preferred": [[0, 0]]}, "preferred"),
    ({"radius": [1.0, 1.0], "preferred": [[0, 0], [math.nan, 0]]}, "preferred"),
])
def test_bad_arguments_are_refused(options, match):
    kw = {"preferred": np.zeros((2, 2)), "max_speed": 1.0, **options}
    with pytest.raises(InvalidQueryError, match=match):
        GroupAvoidance().velocities([[0, 0], [5, 0]], np.zeros((2, 2)), DT, **kw)


@pytest.mark.parametrize("options", [{"time_horizon": 0}, {"sides": 2},
                                     {"agent_share": 1.5}, {"neighbour_dist": -1}])
def test_bad_parameters_are_refused(options):
    with pytest.raises(InvalidQueryError):
        GroupAvoidance(**options)


def test_polygons_of_too_many_sides_to_allocate_are_refused_at_once():
    with pytest.raises(InvalidQueryError, match="MAX_CELLS"):
        GroupAvoidance(sides=10**9)


def test_ragged_top_speeds_are_refused():
    with pytest.raises(InvalidQueryError, match="max_speed"):
        GroupAvoidance().velocities([[0, 0], [5, 0]], [[1, 0], [-1, 0]], 0.1,
                                    preferred=[[1, 0], [-1, 0]], max_speed=[[1, 2], [3]],
                                    radius=[1.0, 1.0])


@pytest.mark.parametrize("preferred, want", [
    ([[1.0, 0.0], [-1.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]),      # into each other: stop
    ([[-1.0, 0.0], [1.0, 0.0]], [[-1.0, 0.0], [1.0, 0.0]]),     # apart
    ([[0.0, 1.0], [0.0, -1.0]], [[0.0, 1.0], [0.0, -1.0]]),     # sliding along the faces
])
def test_touching_groups_are_kept_from_overlapping(preferred, want):
    # Two boxes face to face: the origin on their Minkowski sum's boundary divided by zero
    avoid = GroupAvoidance()
    v = avoid.velocities([[0.0, 0.0], [2.0, 0.0]], np.zeros((2, 2)), DT,
                         preferred=np.array(preferred), max_speed=1.5,
                         half_extents=[[1.0, 1.0], [1.0, 1.0]], heading=[[1.0, 0.0]] * 2)
    np.testing.assert_allclose(v, want, atol=1e-12)
