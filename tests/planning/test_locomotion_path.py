"""Locomotion paths: a navmesh path as corridor and points, post-processed for clip playback
(minimum segment length, tight opposite turns pushed apart or made fail-safe stops)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import NavMesh
from wayfinding.planning.locomotion import LocomotionPath, locomotion_path, process_path
from wayfinding.results import Status

pytest.importorskip("shapely")

ZIGZAG = [(0, 0), (5, 0), (5, 1.2), (10, 1.2)]     # two opposite 90-degree turns 1.2 m apart


def step_corridor(half: float) -> NavMesh:
    """A corridor along y=0 that steps up to y=1.2 at x=5; each arm ``2 * half`` wide."""
    return NavMesh.build(outline=[(-1, -half), (5 + half, -half), (5 + half, 1.2 - half),
                                  (11, 1.2 - half), (11, 1.2 + half), (5 - half, 1.2 + half),
                                  (5 - half, half), (-1, half)])


def test_close_points_merge_and_segments_keep_the_minimum() -> None:
    p = process_path([(0, 0), (3, 0), (3.4, 0.3), (3.6, 0.2), (8, 0), (8.5, 0.5)],
                     min_segment=1.0)
    assert (p.lengths()[:-1] >= 1.0).all()
    assert p.points[0].tolist() == [0, 0] and p.points[-1].tolist() == [8.5, 0.5]
    assert p.lengths()[:3].sum() >= 2.0       # the first three segments cover 2-3 m
    assert not p.stops.any() and p.found and p.status is Status.FOUND


def test_a_short_last_segment_drops_the_point_before_the_goal() -> None:
    p = process_path([(0, 0), (4, 0), (4.5, 0.2)], min_segment=1.0)
    assert p.points.tolist() == [[0, 0], [4.5, 0.2]]


def test_only_the_goal_forces_a_segment_under_the_minimum() -> None:
    p = process_path([(0, 0), (0.3, 0), (0.5, 0.1)], min_segment=1.0)
    assert p.points.tolist() == [[0, 0], [0.5, 0.1]]


def test_a_short_middle_segment_merges_into_its_midpoint() -> None:
    p = process_path([(0, 0), (5, 0), (5.4, 0.2), (10, 0)], min_segment=1.0)
    assert np.allclose(p.points, [(0, 0), (5.2, 0.1), (10, 0)])


def test_no_minimum_keeps_the_points() -> None:
    pts = [(0, 0), (1, 0), (1.1, 0), (2, 1)]
    assert process_path(pts, min_segment=0.0, turn_space=0.0).points.tolist() == \
        np.asarray(pts, dtype=float).tolist()


def test_tight_opposite_turns_are_pushed_apart_in_open_space() -> None:
    p = process_path(ZIGZAG, turn_space=2.0)
    assert np.allclose(p.points, [(0, 0), (5, -0.4), (5, 1.6), (10, 1.2)])
    assert np.isclose(p.lengths()[1], 2.0) and not p.stops.any()
    turns = p.turns()
    assert turns[0] * turns[1] < 0


def test_turns_the_same_way_are_not_separated() -> None:
    pts = [(0, 0), (5, 0), (5, 1.2), (0, 1.2)]     # a U-turn: both turns to the left
    p = process_path(pts, turn_space=2.0)
    assert p.points.tolist() == np.asarray(pts, dtype=float).tolist()


def test_gentle_opposite_turns_are_not_separated() -> None:
    pts = [(0, 0), (5, 0), (6, 0.3), (11, 0.3)]
    p = process_path(pts, turn_space=2.0, sharp_turn=math.radians(45))
    assert p.points.tolist() == np.asarray(pts, dtype=float).tolist()


def test_turns_pushed_apart_where_the_corridor_has_room() -> None:
    mesh = step_corridor(1.0)
    p = process_path(ZIGZAG, mesh=mesh, turn_space=2.0)
    assert np.allclose(p.points, [(0, 0), (5, -0.4), (5, 1.6), (10, 1.2)])
    assert not p.stops.any()


def test_turns_without_room_become_a_fail_safe_stop() -> None:
    mesh = step_corridor(0.3)
    p = process_path(ZIGZAG, mesh=mesh, turn_space=2.0)
    assert p.points.tolist() == np.asarray(ZIGZAG, dtype=float).tolist()
    assert p.stops.tolist() == [False, True, False, False]


def test_merging_respects_the_walls() -> None:
    mesh = step_corridor(0.3)
    p = process_path([(0, 0), (5, 0), (5, 1.2), (10, 1.2)], mesh=mesh, min_segment=1.5,
                     turn_space=0.0)
    # the 1.2 m step cannot be cut: its midpoint and both shortcuts run into the walls
    assert p.points.tolist() == np.asarray(ZIGZAG, dtype=float).tolist()
    assert np.allclose(process_path(ZIGZAG, min_segment=1.5, turn_space=0.0).points,
                       [(0, 0), (5, 0.6), (10, 1.2)])


def test_a_mesh_path_keeps_its_corridor() -> None:
    mesh = NavMesh.build(outline=[(0, 0), (8, 0), (8, 7), (10, 7), (10, 0), (20, 0),
                                  (20, 10), (0, 10)])             # a wall 7 m high
    got = mesh.find_path((2, 2), (18, 2))
    p = locomotion_path(mesh, (2, 2), (18, 2), min_segment=3.0)
    assert isinstance(p, LocomotionPath) and p.found
    assert p.corridor.tolist() == list(got.corridor)
    assert p.points[0].tolist() == [2, 2] and p.points[-1].tolist() == [18, 2]
    assert (p.lengths() >= 3.0).all()
    # the 2 m across the wall's top cannot merge at its midpoint (in the wall): the
    # segments before and after it meet above the wall instead
    assert len(got.path) == 4 and np.allclose(p.points, [(2, 2), (62 / 7, 54 / 7), (18, 2)])
    assert all(not mesh.raycast(a, b).hit for a, b in zip(p.points[:-1], p.points[1:]))


def test_no_route_is_a_failed_status() -> None:
    mesh = NavMesh.build("MULTIPOLYGON (((0 0, 4 0, 4 10, 0 10, 0 0)),"
                         " ((6 0, 10 0, 10 10, 6 10, 6 0)))")
    p = locomotion_path(mesh, (1, 5), (9, 5))
    assert not p.found and p.status is Status.FAILED
    assert p.points.shape == (0, 2) and p.stops.shape == (0,) and p.corridor.shape == (0,)


def test_start_equal_to_goal_is_one_zero_segment() -> None:
    mesh = NavMesh.build(outline=[(0, 0), (4, 0), (4, 4), (0, 4)])
    p = locomotion_path(mesh, (1, 1), (1, 1))
    assert p.found and p.points.tolist() == [[1, 1], [1, 1]]


def test_records_compare_by_value() -> None:
    assert process_path(ZIGZAG) == process_path(ZIGZAG)
    assert process_path(ZIGZAG) != process_path(ZIGZAG, turn_space=0.0)


@pytest.mark.parametrize("options, message", [
    ({"min_segment": -1.0}, "min_segment"),
    ({"min_segment": math.nan}, "min_segment"),
    ({"turn_space": True}, "turn_space"),
    ({"sharp_turn": 4.0}, "sharp_turn"),
    ({"mesh": "mesh"}, "mesh must be a NavMesh"),
    ({"corridor": ["a"]}, "corridor"),
    ({"corridor": [0.5]}, "corridor"),
])
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(InvalidQueryError, match=message):
        process_path(ZIGZAG, **options)


@pytest.mark.parametrize("points, message", [
    ([(0, 0)], "start and a goal"),
    ([(0, 0), (1, math.inf)], "finite"),
    ("path", "points"),
])
def test_bad_points_are_refused(points: object, message: str) -> None:
    with pytest.raises(InvalidQueryError, match=message):
        process_path(points)  # type: ignore[arg-type]


def test_locomotion_path_refuses_a_non_mesh_and_bad_options() -> None:
    with pytest.raises(InvalidQueryError, match="NavMesh"):
        locomotion_path([(0, 0)], (0, 0), (1, 1))  # type: ignore[arg-type]
    mesh = NavMesh.build(outline=[(0, 0), (4, 0), (4, 4), (0, 4)])
    with pytest.raises(InvalidQueryError, match="min_segment"):
        locomotion_path(mesh, (1, 1), (3, 3), min_segment=-2)


coords = st.floats(-20, 20, allow_nan=False).map(lambda v: round(v, 3))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(coords, coords), min_size=2, max_size=12),
       st.floats(0.0, 4.0))
def test_open_space_segments_keep_the_minimum(points: list, min_segment: float) -> None:
    p = process_path(points, min_segment=min_segment, turn_space=0.0)
    assert p.points[0].tolist() == list(map(float, points[0]))
    assert p.points[-1].tolist() == list(map(float, points[-1]))
    if len(p.points) > 2:
        assert (p.lengths() >= min_segment).all()
    assert np.array_equal(p.points, open_space_merge(points, min_segment))


def open_space_merge(points: list, min_segment: float) -> np.ndarray:
    """The minimum-segment rule in open space, written out plainly: the shortest segment
    (the first of equals) below ``min_segment`` is mended, an inner one by merging its ends
    into their midpoint, the first by dropping its later end, the last its earlier end."""
    path = [np.array(q, dtype=np.float64) for q in points]
    while len(path) > 2:
        lengths = [float(np.hypot(*(b - a))) for a, b in zip(path[:-1], path[1:])]
        i = int(np.argmin(lengths))
        if lengths[i] >= min_segment:
            break
        if 0 < i < len(path) - 2:
            path[i:i + 2] = [(path[i] + path[i + 1]) / 2]
        else:
            del path[1 if i == 0 else i]
    return np.array(path)


@pytest.mark.parametrize("corridor, message", [
    ([[1, 2], [3]], "flat sequence of polygon ids"),
    ([[1, 2], [3, 4]], "flat sequence of polygon ids"),
    ([1.5, 2], "flat sequence of polygon ids"),
    ([True], "flat sequence of polygon ids"),
    ([3, -1], r"polygon ids in \[0, 2147483647\]"),
    ([2**40], r"polygon ids in \[0, 2147483647\]"),
])
def test_a_bad_corridor_is_refused(corridor: object, message: str) -> None:
    with pytest.raises(InvalidQueryError, match=message):
        process_path([(0, 0), (5, 0)], corridor=corridor)  # type: ignore[arg-type]


def unmarked_tight_pairs(p: LocomotionPath, turn_space: float, sharp: float) -> list[int]:
    """The inner points ``i`` where ``i`` and ``i + 1`` turn at least ``sharp`` each, in
    opposite directions, closer than ``turn_space``, and ``i`` is no fail-safe stop."""
    d = np.diff(p.points, axis=0)
    turn = [math.atan2(u[0] * v[1] - u[1] * v[0], u @ v) for u, v in zip(d[:-1], d[1:])]
    return [i for i in range(1, len(p.points) - 2)
            if turn[i - 1] * turn[i] < 0 and min(abs(turn[i - 1]), abs(turn[i])) >= sharp
            and math.dist(p.points[i], p.points[i + 1]) < turn_space - 1e-9 and not p.stops[i]]


def test_a_push_that_makes_the_pair_before_it_tight_marks_that_pair() -> None:
    # Pushing the pair at points 2 and 3 apart turned the path the other way at point 2,
    # so points 1 and 2 became tight opposite turns with no stop.
    points = [(0.917, -0.148), (1.085, 0.111), (1.42, 0.433), (2.182, 0.076),
              (1.41, 0.457), (1.172, 0.088), (1.592, -0.558), (1.642, 0.08)]
    p = process_path(points, min_segment=0.0, turn_space=2.0, sharp_turn=0.5)
    assert unmarked_tight_pairs(p, 2.0, 0.5) == []
    assert p.stops.tolist() == [False, True] + [False] * 6


step = st.floats(-1, 1, allow_nan=False).map(lambda v: round(v, 3))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(step, step), min_size=4, max_size=10),
       st.sampled_from([0.0, 0.5, 1.0]), st.sampled_from([1.0, 2.0, 4.0]),
       st.sampled_from([0.5, math.pi / 3, 2.0]))
def test_open_space_leaves_no_tight_opposite_turns_unmarked(steps: list, min_segment: float,
                                                           turn_space: float,
                                                           sharp: float) -> None:
    points = np.cumsum(steps, axis=0)       # a random walk of steps shorter than the room
    p = process_path(points, min_segment=min_segment, turn_space=turn_space, sharp_turn=sharp)
    assert unmarked_tight_pairs(p, turn_space, sharp) == []
