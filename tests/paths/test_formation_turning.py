"""Formations with a minimum turning radius: every Dubins word reached, the front row's
centre on the curve, the goal heading at the end, the radius never beaten, bad input."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError
from wayfinding.paths import Formation, turning_path

RADIUS = 2.0

#: Goal poses from the origin facing +x, each reached by the named word (radius 2).
WORDS = {
    "LSL": ((10.0, 10.0), (-1.0, 0.0)),
    "RSR": ((10.0, -10.0), (-1.0, 0.0)),
    "LSR": ((10.0, 10.0), (1.0, 0.0)),
    "RSL": ((10.0, -10.0), (1.0, 0.0)),
    "RLR": ((0.0, 1.0), (-1.0, 0.0)),
    "LRL": ((0.0, -1.0), (-1.0, 0.0)),
}


def menger(points):
    """The curvature of the circle through each three consecutive points."""
    a, b, c = points[:-2], points[1:-1], points[2:]
    ab, bc, ca = b - a, c - b, a - c
    cross = ab[:, 0] * bc[:, 1] - ab[:, 1] * bc[:, 0]
    sides = (np.linalg.norm(ab, axis=1) * np.linalg.norm(bc, axis=1)
             * np.linalg.norm(ca, axis=1))
    return 2 * np.abs(cross) / sides


@pytest.mark.parametrize("word", sorted(WORDS))
@pytest.mark.parametrize("style", ["column", "band"])
def test_formation_follows_each_dubins_word(word, style):
    goal, goal_heading = WORDS[word]
    f = Formation(rows=3, columns=3, spacing=0.5, style=style)
    path = f.path_to(goal, goal_heading, radius=RADIUS)
    assert path.word == word
    assert path == turning_path((0, 0), (1, 0), goal, goal_heading, radius=RADIUS)
    frames = f.follow(path, step=0.1)
    centres = np.array([s[0].mean(axis=0) for s in frames])
    # The front row's centre lies on the curve (a dense sampling of it, 2 mm apart) ...
    curve = path.points(0.002)
    near = np.min(np.linalg.norm(centres[:, None] - curve[None], axis=2), axis=1)
    assert near.max() < 2e-3
    # ... moves along it at most one step per update, covering its whole length ...
    hops = np.linalg.norm(np.diff(np.vstack([(0.0, 0.0), centres]), axis=0), axis=1)
    assert hops.max() <= 0.1 + 1e-9
    assert len(frames) == math.ceil(path.length / 0.1)
    # ... never turns tighter than the radius ...
    assert menger(np.vstack([(0.0, 0.0), centres])).max() <= 1 / RADIUS + 1e-6
    # ... and ends at the goal, facing the goal heading, its front row across it.
    assert np.allclose(f.position, goal) and np.allclose(frames[-1][0].mean(axis=0), goal)
    assert np.allclose(f.heading, goal_heading, atol=1e-9)
    across = frames[-1][0][0] - frames[-1][0][-1]
    assert abs(float(np.dot(across, goal_heading))) < 1e-9
    assert np.isclose(float(np.linalg.norm(across)), 1.0)


def test_front_row_faces_the_tangent_on_the_way():
    f = Formation(rows=1, columns=2, spacing=1.0)
    path = f.path_to(*WORDS["LSR"], radius=RADIUS)
    frames = f.follow(path, step=0.1)
    centres = np.array([s[0].mean(axis=0) for s in frames])
    chords = np.diff(centres, axis=0)
    across = np.array([s[0][0] - s[0][1] for s in frames])     # left minus right unit
    # Each chord is nearly along the heading, i.e. nearly perpendicular to the row.
    cos = np.abs((chords * across[1:]).sum(axis=1)) / np.linalg.norm(chords, axis=1)
    assert cos.max() < 0.1 / RADIUS


def test_column_rows_trail_on_a_turning_path():
    f = Formation(rows=4, columns=2, spacing=1.0, style="column")
    for slots in f.follow(f.path_to(*WORDS["RSR"], radius=RADIUS), step=0.2):
        for k in range(1, 4):
            assert np.allclose(np.linalg.norm(slots[k] - slots[k - 1], axis=1), 1.0)


def test_a_pose_to_itself_is_no_move():
    f = Formation(rows=2, columns=2, spacing=1.0, position=(3.0, 4.0), heading=(0.0, 1.0))
    assert f.follow(f.path_to((3.0, 4.0), (0.0, 1.0), radius=1.0), step=0.5) == []
    assert np.allclose(f.position, (3.0, 4.0))


def test_turning_path_bad_input():
    f = Formation(rows=2, columns=2, spacing=1.0)
    with pytest.raises(InvalidQueryError, match="radius"):
        f.path_to((5.0, 5.0), (1.0, 0.0), radius=0.0)
    with pytest.raises(InvalidQueryError, match="heading"):
        f.path_to((5.0, 5.0), (0.0, 0.0), radius=1.0)
    elsewhere = turning_path((1.0, 0.0), (1.0, 0.0), (5.0, 5.0), (1.0, 0.0), radius=1.0)
    with pytest.raises(InvalidQueryError, match="formation's pose"):
        f.follow(elsewhere, step=0.5)
    facing_away = turning_path((0.0, 0.0), (0.0, 1.0), (5.0, 5.0), (1.0, 0.0), radius=1.0)
    with pytest.raises(InvalidQueryError, match="formation's pose"):
        f.follow(facing_away, step=0.5)
    with pytest.raises(InvalidQueryError, match="step"):
        f.follow(f.path_to((5.0, 5.0), (1.0, 0.0), radius=1.0), step=0.0)
    assert np.allclose(f.position, (0.0, 0.0))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-8, 8), min_size=2, max_size=2), st.floats(-math.pi, math.pi),
       st.floats(-math.pi, math.pi), st.floats(0.5, 3))
@example([0.0, 0.0], 0.0, 0.0, 1.0)                      # its own pose
@example([0.0, 2.0], 0.0, math.pi, 1.0)                  # a half turn on one circle
def test_any_pose_is_reached_on_the_curve(goal, start_angle, goal_angle, radius):
    heading = (math.cos(start_angle), math.sin(start_angle))
    goal_heading = np.array([math.cos(goal_angle), math.sin(goal_angle)])
    f = Formation(rows=2, columns=2, spacing=0.5, heading=heading)
    path = f.path_to(goal, goal_heading, radius=radius)
    frames = f.follow(path, step=0.25)
    assert np.allclose(f.position, goal, atol=1e-9)
    assert np.allclose(f.heading, goal_heading, atol=1e-9)
    if frames:
        centres = np.vstack([(0.0, 0.0), [s[0].mean(axis=0) for s in frames]])
        curve = path.points(0.005)
        near = np.min(np.linalg.norm(centres[:, None] - curve[None], axis=2), axis=1)
        assert near.max() < 5e-3
        hops = np.linalg.norm(np.diff(centres, axis=0), axis=1)
        keep = hops > 1e-9
        if keep.sum() >= 2:
            moved = np.vstack([centres[:1], centres[1:][keep]])
            assert menger(moved).max() <= 1 / radius + 1e-6
