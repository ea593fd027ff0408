"""Very temporary obstacle avoidance: the waypoint past one circle is a true tangent point on
the shorter side (against the textbook tangent construction), a free move is left alone,
overlapping circles are passed as one, scenes of several obstacles come out clear within the
iterations (every segment checked by exact segment–circle distance), walls exclude a side on
a navigation mesh, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, box

from wayfinding import InvalidQueryError
from wayfinding.crowd.detour import detour
from wayfinding.navmesh import NavMesh

TOL = 1e-7


def segment_circle_gap(p, q, c):
    """Exact distance from centre c to segment p–q, in plain Python."""
    (px, py), (qx, qy), (cx, cy) = p, q, c
    dx, dy = qx - px, qy - py
    l2 = dx * dx + dy * dy
    t = 0.0 if l2 == 0 else max(0.0, min(1.0, ((cx - px) * dx + (cy - py) * dy) / l2))
    return math.hypot(px + t * dx - cx, py + t * dy - cy)


def assert_clears(path, circles, radius):
    for p, q in zip(path[:-1], path[1:]):
        for x, y, r in circles:
            assert segment_circle_gap(p, q, (x, y)) >= r + radius - TOL, (p, q, (x, y, r))


def tangent_points(p, c, big_r):
    """The two points where lines from p touch the circle (c, big_r), by the angle rule."""
    d = math.hypot(p[0] - c[0], p[1] - c[1])
    base = math.atan2(p[1] - c[1], p[0] - c[0])
    gamma = math.acos(big_r / d)
    return [(c[0] + big_r * math.cos(base + s * gamma), c[1] + big_r * math.sin(base + s * gamma))
            for s in (1, -1)]


@pytest.mark.parametrize("cy, r, agent", [(-0.3, 1.0, 0.5), (0.4, 1.0, 0.5), (-0.05, 2.0, 0.0),
                                          (0.7, 0.5, 0.6), (1e-3, 1.2, 0.3)])
def test_one_circle_gives_a_true_tangent_point_on_the_shorter_side(cy, r, agent):
    start, goal, centre = (0.0, 0.0), (12.0, 0.0), (6.0, cy)
    result = detour(start, goal, [(*centre, r)], agent)
    assert result.clear
    t = result.path[1]
    big_r = r + agent
    assert math.hypot(t[0] - centre[0], t[1] - centre[1]) == pytest.approx(big_r, abs=1e-9)
    radius_dir = (t[0] - centre[0], t[1] - centre[1])
    seg = (t[0] - start[0], t[1] - start[1])
    assert abs(radius_dir[0] * seg[0] + radius_dir[1] * seg[1]) < 1e-9 * big_r * math.hypot(*seg)
    sides = tangent_points(start, centre, big_r)
    lengths = [math.dist(start, s) + math.dist(s, goal) for s in sides]
    best = sides[int(np.argmin(lengths))]
    assert t.tolist() == pytest.approx(list(best), abs=1e-9)
    assert max(lengths) > min(lengths)                  # the sides really differ
    assert (t[1] > 0) == (cy < 0)                       # the side away from the centre
    assert_clears(result.path, [(*centre, r)], agent)
    assert result.path[0].tolist() == list(start) and result.path[-1].tolist() == list(goal)


def test_a_free_move_is_left_alone():
    result = detour((0, 0), (10, 0), [(5, 2.0, 1.0), (3, -1.6, 1.0)], 0.5)
    assert result.clear
    assert result.path.tolist() == [[0, 0], [10, 0]]


def test_a_symmetric_obstacle_is_passed_on_the_left():
    result = detour((0, 0), (10, 0), [(5, 0, 1.0)], 0.0)
    assert result.clear and (result.path[1:-1, 1] > 0).all()
    mirrored = detour((10, 0), (0, 0), [(5, 0, 1.0)], 0.0)      # left of the reverse move
    assert (mirrored.path[1:-1, 1] < 0).all()


def test_overlapping_circles_are_passed_as_one():
    circles = [(5.0, 0.0, 1.0), (6.6, 0.1, 1.0)]            # 1.6 apart: overlapping
    result = detour((0, 0), (12, 0), circles, 0.5, iterations=1)
    assert result.clear                                 # one pass clears both
    assert_clears(result.path, circles, 0.5)
    # The first leg is tangent to the group: one disc touched, the other on the same side.
    p, t = result.path[0], result.path[1]
    gaps = [segment_circle_gap((-1e3 * (t - p) + p), (1e3 * (t - p) + p), c[:2]) - c[2] - 0.5
            for c in circles]
    assert min(gaps) == pytest.approx(0, abs=1e-9) and max(gaps) > 0.01


def test_separate_circles_are_not_merged():
    # 3.2 apart with inflated radii 1.5: a 0.2 gap, so only the first is passed at first.
    circles = [(5.0, 0.2, 1.0), (8.2, 0.2, 1.0)]
    first = detour((0, 0), (14, 0), circles, 0.5, iterations=1)
    assert not first.clear
    both = detour((0, 0), (14, 0), circles, 0.5)
    assert both.clear
    assert_clears(both.path, circles, 0.5)


def test_start_inside_an_obstacle_is_not_clear():
    result = detour((0, 0), (10, 0), [(0.5, 0, 1.0)], 0.5)
    assert not result.clear and result.path.tolist() == [[0, 0], [10, 0]]


def test_zero_iterations_only_checks():
    assert not detour((0, 0), (10, 0), [(5, 0, 1.0)], 0.5, iterations=0).clear
    assert detour((0, 0), (10, 0), [(5, 5, 1.0)], 0.5, iterations=0).clear


@st.composite
def spread_scenes(draw):
    """1–5 circles near the line y = 0, each in its own 6-unit slab of x, so that the
    inflated discs are apart and each can be passed on either side."""
    n = draw(st.integers(1, 5))
    circles = []
    for i in range(n):
        r = draw(st.floats(0.2, 1.2))
        circles.append((6.0 * i + 5.0 + draw(st.floats(-0.5, 0.5)), draw(st.floats(-1.0, 1.0)), r))
    agent = draw(st.floats(0.0, 0.5))
    goal = (6.0 * n + 4.0, draw(st.floats(-1.0, 1.0)))
    return circles, agent, goal, 4 if n <= 3 else 2 * n


@settings(max_examples=150, deadline=None)
@given(spread_scenes())
def test_several_obstacles_converge_and_every_segment_clears(scene):
    circles, agent, goal, iterations = scene            # the default 4 up to 3 obstacles
    result = detour((0.0, 0.0), goal, circles, agent, iterations=iterations)
    assert result.clear
    assert_clears(result.path, circles, agent)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(1, 9), st.floats(-3, 3), st.floats(0.1, 1.5)),
                min_size=1, max_size=6), st.floats(0, 0.5))
def test_clear_means_clear_in_any_scene(circles, agent):
    start, goal = (0.0, 0.0), (10.0, 0.0)
    assume(all(math.hypot(x - p[0], y - p[1]) > r + agent + 1e-3
               for x, y, r in circles for p in (start, goal)))
    result = detour(start, goal, circles, agent, iterations=8)
    if result.clear:
        assert_clears(result.path, circles, agent)
    assert result.path[0].tolist() == list(start) and result.path[-1].tolist() == list(goal)


@pytest.fixture(scope="module")
def corridor():
    return NavMesh.build(outline=[(0, 0.5), (20, 0.5), (20, 4), (0, 4)])


def test_the_side_through_a_wall_is_rejected(corridor):
    start, goal, circles = (1.0, 1.0), (19.0, 1.0), [(10.0, 1.3, 0.6)]
    free = detour(start, goal, circles, 0.3)
    assert free.clear and free.path[1:-1, 1].min() < 0.5          # below: through the wall
    walled = detour(start, goal, circles, 0.3, mesh=corridor)
    assert walled.clear and (walled.path[1:-1, 1] > 1.3).all()    # above instead
    assert (corridor.locate_many(walled.path) >= 0).all()
    for p, q in zip(walled.path[:-1], walled.path[1:]):
        assert not corridor.raycast(p, q).hit
    assert_clears(walled.path, circles, 0.3)


def test_no_side_left_is_not_clear(corridor):
    result = detour((1.0, 2.2), (19.0, 2.2), [(10.0, 2.2, 1.6)], 0.3, mesh=corridor)
    assert not result.clear and result.path.tolist() == [[1.0, 2.2], [19.0, 2.2]]


@pytest.mark.parametrize("goal, circle", [
    ((3.5, 1.0), (3.0, 1.0, 0.15)), ((3.5, 0.9), (1.0, 1.0, 0.15)),
    ((3.5, 0.9), (3.0, 1.0, 0.15)), ((3.5, 1.1), (3.0, 1.0, 0.15)),
    ((3.0, 1.0), (1.0, 1.05, 0.1)),
])
def test_sides_through_a_doorway_in_line_with_its_wall(goal, circle):
    # The mesh keeps the wall and the doorway on one polygon edge line: the sides' line of
    # sight (raycast) must see through the doorway and only there.
    area = box(0, 0, 4, 2) - box(1.9, 0, 2.1, 0.8) - box(1.9, 1.2, 2.1, 2)
    result = detour((0.5, 1.0), goal, [circle], 0.05, mesh=NavMesh.build(area))
    assert result.clear and len(result.path) > 2
    assert area.covers(LineString(result.path))
    assert_clears(result.path, [circle], 0.05)


@pytest.mark.parametrize("args, kwargs, word", [
    (((math.nan, 0), (1, 0), [], 0.5), {}, "start"),
    (((0, 0), (1, 0, 2), [], 0.5), {}, "goal"),
    (((0, 0), (1, 0), [(1, 2)], 0.5), {}, "circles"),
    (((0, 0), (1, 0), [(1, 2, -1)], 0.5), {}, "circles[0]"),
    (((0, 0), (1, 0), [(1, 2, math.inf)], 0.5), {}, "circles[0]"),
    (((0, 0), (1, 0), "abc", 0.5), {}, "circles"),
    (((0, 0), (1, 0), [], -0.5), {}, "radius"),
    (((0, 0), (1, 0), [], math.nan), {}, "radius"),
    (((0, 0), (1, 0), [], 0.5), {"iterations": -1}, "iterations"),
    (((0, 0), (1, 0), [], 0.5), {"iterations": 1.5}, "iterations"),
])
def test_bad_input(args, kwargs, word):
    with pytest.raises(InvalidQueryError, match=word.replace("[", r"\[")):
        detour(*args, **kwargs)


def test_endpoints_off_the_mesh(corridor):
    with pytest.raises(InvalidQueryError, match="goal"):
        detour((1, 1), (25, 1), [], 0.3, mesh=corridor)
