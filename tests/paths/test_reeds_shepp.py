"""Reeds–Shepp paths: known lengths, OMPL's Reeds–Shepp state space as the oracle for the
shortest length, every path driven segment by segment from the start ending on the goal pose,
the 48 words, and bad input."""

import cmath
import dataclasses
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError
from wayfinding.paths import ReedsSheppPath, reeds_shepp_path, turning_path


def _words48():
    """The 48 words of Reeds and Shepp: twelve starting L+ and, for each, the time flip
    (every direction swapped) and the reflection (L and R swapped)."""
    base = ["L+S+L+", "L+S+R+", "L+R-L+", "L+R-L-", "L+R+L-", "L+R+L-R-", "L+R-L-R+",
            "L+R-S-L-", "L+R-S-R-", "L+S+L+R-", "L+S+R+L-", "L+R-S-L-R+"]
    flip, mirror = str.maketrans("+-", "-+"), str.maketrans("LR", "RL")
    return {w2 for w in base for w1 in (w, w.translate(flip)) for w2 in (w1, w1.translate(mirror))}


WORDS = _words48()


def test_the_48_words():
    assert len(WORDS) == 48 and "R-L+S+R+L-" in WORDS and "L+S+R+L-" in WORDS


def _heading(angle):
    return (math.cos(angle), math.sin(angle))


def drive(start, angle, word, segments, r):
    """The pose reached by driving ``segments`` from ``(start, angle)``: each arc a rotation
    of the position about its circle's centre (computed with complex numbers, apart from the
    library's own formulas)."""
    z, h = complex(*start), cmath.exp(1j * angle)
    for letter, s in zip(word[::2], segments):
        if letter == "S":
            z += s * h
        else:
            side = 1 if letter == "L" else -1
            centre = z + side * r * 1j * h
            turn = cmath.exp(1j * side * s / r)
            z, h = centre + (z - centre) * turn, h * turn
    return z, h


def _angle_gap(a, b):
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi)


def check_path(path, p, a0, q, a1, r):
    """The word is one of the 48, its signs match the segments', the length is their sum,
    the segments driven from the start end on the goal pose (to 1e-9), the arcs beside a
    straight segment in a four- or five-letter word are quarter turns, and the sampled
    poses start and end on the poses."""
    assert isinstance(path, ReedsSheppPath)
    assert path.word in WORDS, path.word
    assert len(path.segments) == len(path.word) // 2
    for sign, s in zip(path.word[1::2], path.segments):
        assert math.copysign(1, s) == (1 if sign == "+" else -1)
    assert path.length == pytest.approx(sum(abs(s) for s in path.segments), abs=1e-12)
    z, h = drive(p, a0, path.word, path.segments, r)
    assert abs(z - complex(*q)) <= 1e-9
    assert _angle_gap(cmath.phase(h), a1) <= 1e-9
    letters = path.word[::2]
    if len(letters) > 3 and "S" in letters:
        k = letters.index("S")      # the arcs between the segment and a cusp
        quarters = [path.segments[i] for i in ((k - 1,) if k == 2 else ()) +
                    ((k + 1,) if k == 1 or len(letters) == 5 else ())]
        assert np.allclose(np.abs(quarters), math.pi / 2 * r, rtol=1e-12)
    step = r / 4
    poses = path.poses(step)
    assert np.allclose(poses[0], [*p, a0], atol=1e-12)
    assert np.allclose(poses[-1, :2], q, rtol=0, atol=1e-9)
    assert _angle_gap(poses[-1, 2], a1) <= 1e-9
    assert np.hypot(*np.diff(poses[:, :2], axis=0).T).max() <= step + 1e-12
    assert np.array_equal(path.points(step), poses[:, :2])


@pytest.mark.parametrize("goal,angle,length,word", [
    ((4, 4), math.pi / 2, 5.8134370139, "L+S+L+"),    # pi / 4 + 3 sqrt(2) + pi / 4: forward
    ((0, 0), math.pi, math.pi, "L+R-L+"),              # turn round: three sixths of a turn
    ((-3, 0), 0.0, 3.0, "L-S-L-"),                     # just behind: straight back
])
def test_known_lengths(goal, angle, length, word):
    path = reeds_shepp_path((0, 0), (1, 0), goal, _heading(angle), radius=1)
    assert path.length == pytest.approx(length, abs=1e-9)
    assert path.word == word
    check_path(path, (0, 0), 0.0, goal, angle, 1)


def test_a_pose_to_itself_and_scaling():
    still = reeds_shepp_path((2.5, -1), (0, 3), (2.5, -1), (0, 3), radius=0.375)
    assert still.length == 0.0 and all(s == 0 for s in still.segments)
    assert still.poses(1.0).shape == (len(still.segments) + 1, 3)
    # Scaling the poses and the radius together scales the length and the segments.
    a = reeds_shepp_path((0, 0), (1, 0), (1, 2), (-1, 1), radius=1)
    b = reeds_shepp_path((0, 0), (1, 0), (2.5, 5), (-1, 1), radius=2.5)
    assert a.word == b.word and b.length == pytest.approx(2.5 * a.length, rel=1e-14)
    assert np.allclose(b.segments, 2.5 * np.array(a.segments), rtol=1e-14)


def test_straight_and_single_arc_goals():
    """Goals straight ahead or behind along any heading, and goals one arc of a steering
    circle away: rounding puts the other arcs a hair on either side of zero."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        a, r, p = rng.uniform(-math.pi, math.pi), rng.uniform(0.2, 3), rng.uniform(-10, 10, 2)
        along = r * rng.uniform(-0.5, 0.5)     # up to half a radius ahead or behind
        q = p + along * np.array(_heading(a))
        path = reeds_shepp_path(p, _heading(a), q, _heading(a), radius=r)
        check_path(path, p, a, q, a, r)
        assert path.length == pytest.approx(abs(along), abs=1e-9)
        if along > 0:
            forward = turning_path(p, _heading(a), q, _heading(a), radius=r)
            assert forward.length == pytest.approx(along, abs=1e-9)
        side, turn = rng.choice([-1, 1]), rng.uniform(-3, 3)
        centre = p + side * r * np.array([-math.sin(a), math.cos(a)])
        b = a + side * turn
        q = centre - side * r * np.array([-math.sin(b), math.cos(b)])
        path = reeds_shepp_path(p, _heading(a), q, _heading(b), radius=r)
        check_path(path, p, a, q, b, r)
        assert path.length <= r * abs(turn) + 1e-9


def random_poses(seed, n):
    """``n`` poses and radii: radii log-uniform in [0.1, 5], starts in [-10, 10]^2, goals
    within 5 radii of the start along each axis (where every family is shortest somewhere)
    or anywhere in the square."""
    rng = np.random.default_rng(seed)
    r = np.exp(rng.uniform(math.log(0.1), math.log(5), n))
    p = rng.uniform(-10, 10, (n, 2))
    near = rng.random(n) < 0.7
    q = np.where(near[:, None], p + r[:, None] * rng.uniform(-5, 5, (n, 2)),
                 rng.uniform(-10, 10, (n, 2)))
    angles = rng.uniform(-math.pi, math.pi, (n, 2))
    return list(zip(p, angles[:, 0], q, angles[:, 1], r))


def ompl_lengths(poses, space):
    """Lengths by OMPL's Reeds–Shepp or Dubins state space (its distance is in world units:
    the radius times the length for a unit radius)."""
    ob = pytest.importorskip("ompl.base")
    out = []
    for p, a0, q, a1, r in poses:
        s = getattr(ob, space)(float(r))
        u, v = s.allocState(), s.allocState()
        for state, (x, y), a in ((u, p, a0), (v, q, a1)):
            state.setX(float(x))
            state.setY(float(y))
            state.setYaw(float(a))
        out.append(s.distance(u, v))
    return out


def compare_with_ompl(seed, n):
    poses = random_poses(seed, n)
    rs = ompl_lengths(poses, "ReedsSheppStateSpace")
    dubins = ompl_lengths(poses, "DubinsStateSpace")
    wrong = []
    for (p, a0, q, a1, r), want_rs, want_dubins in zip(poses, rs, dubins):
        path = reeds_shepp_path(p, _heading(a0), q, _heading(a1), radius=r)
        forward = turning_path(p, _heading(a0), q, _heading(a1), radius=r)
        check_path(path, p, a0, q, a1, r)
        if abs(path.length - want_rs) > 1e-9 or abs(forward.length - want_dubins) > 1e-9 \
                or path.length > forward.length + 1e-12:
            wrong.append((p, a0, q, a1, r, path.word, path.length, want_rs, forward.length,
                          want_dubins))
    assert not wrong, f"{len(wrong)} of {n} differ, e.g. {wrong[:3]}"


@pytest.mark.parametrize("seed", range(4))
def test_lengths_equal_ompl(seed):
    """Reeds–Shepp and Dubins lengths equal OMPL's to 1e-9; Reeds–Shepp never longer."""
    compare_with_ompl(seed, 75)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 110))
def test_lengths_equal_ompl_exhaustive(seed):
    compare_with_ompl(seed, 1000)


def test_lengths_equal_ompl_on_a_lattice():
    """Goals on the integer lattice around the start and headings in eighths of a turn:
    aligned and symmetric poses where words meet and segments vanish."""
    poses = [((0.0, 0.0), k0 * math.pi / 4, (float(x), float(y)), k1 * math.pi / 4, 1.0)
             for x in range(-3, 4) for y in range(-3, 4) for k0 in (0, 3) for k1 in range(8)]
    wrong = []
    for (p, a0, q, a1, r), want in zip(poses, ompl_lengths(poses, "ReedsSheppStateSpace")):
        path = reeds_shepp_path(p, _heading(a0), q, _heading(a1), radius=r)
        check_path(path, p, a0, q, a1, r)
        if abs(path.length - want) > 1e-9:
            wrong.append((q, a0, a1, path.word, path.length, want))
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("gap", [1e-14, 1e-11, 1e-8, 1e-5])
def test_nearly_coinciding_circles_equal_ompl(gap):
    """The goal on the start with the headings ``gap`` radians apart, or a goal whose
    steering circle on one side is ``gap`` radii from the start's."""
    rng = np.random.default_rng(round(-math.log10(gap)))
    poses = []
    for k in range(40):
        a0, r, p = rng.uniform(-math.pi, math.pi), rng.uniform(0.25, 4), rng.uniform(-6, 6, 2)
        if k % 2:
            poses.append((p, a0, p, a0 + rng.choice([-gap, gap]), r))
        else:
            a1, side, turn = rng.uniform(-math.pi, math.pi, 3)
            normals = np.array([[-math.sin(a0), math.cos(a0)], [-math.sin(a1), math.cos(a1)]])
            q = p + math.copysign(r, side) * (normals[0] - normals[1]) \
                + gap * r * np.array(_heading(turn))
            poses.append((p, a0, q, a1, r))
    wrong = []
    for (p, a0, q, a1, r), want in zip(poses, ompl_lengths(poses, "ReedsSheppStateSpace")):
        path = reeds_shepp_path(p, _heading(a0), q, _heading(a1), radius=r)
        check_path(path, p, a0, q, a1, r)
        if abs(path.length - want) > 1e-9:
            wrong.append((p, a0, q, a1, r, path.word, path.length, want))
    assert not wrong, f"{len(wrong)} of 40 differ, e.g. {wrong[:2]}"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(-8, 8), min_size=4, max_size=4),
       st.lists(st.floats(-math.pi, math.pi), min_size=2, max_size=2),
       st.floats(0.25, 4))
@example([0.0, 0.0, 0.0, 0.0], [0.0, math.pi], 1.0)
@example([0.0, 0.0, 0.0, 0.0], [0.0, 0.0], 1.0)
@example([1.0, 1.0, 1.0, 1.0 + 1e-12], [0.5, 0.5], 2.0)
def test_paths_reach_the_goal_and_are_symmetric(v, angles, r):
    p, q = v[:2], v[2:]
    path = reeds_shepp_path(p, _heading(angles[0]), q, _heading(angles[1]), radius=r)
    check_path(path, p, angles[0], q, angles[1], r)
    forward = turning_path(p, _heading(angles[0]), q, _heading(angles[1]), radius=r)
    assert path.length <= forward.length + 1e-9
    # Driven backward, the path goes from the goal to the start: the same length.
    back = reeds_shepp_path(q, _heading(angles[1]), p, _heading(angles[0]), radius=r)
    assert back.length == pytest.approx(path.length, abs=1e-9 * max(1, path.length))


def test_bad_input():
    with pytest.raises(InvalidQueryError, match="radius"):
        reeds_shepp_path((0, 0), (1, 0), (5, 5), (1, 0), radius=0)
    with pytest.raises(InvalidQueryError, match="radius"):
        reeds_shepp_path((0, 0), (1, 0), (5, 5), (1, 0), radius=math.nan)
    with pytest.raises(InvalidQueryError, match="radius"):
        reeds_shepp_path((0, 0), (1, 0), (5, 5), (1, 0), radius=True)
    with pytest.raises(InvalidQueryError, match="goal_heading .*zero"):
        reeds_shepp_path((0, 0), (1, 0), (5, 5), (0, 0), radius=1)
    with pytest.raises(InvalidQueryError, match="start"):
        reeds_shepp_path((0, np.inf), (1, 0), (5, 5), (1, 0), radius=1)
    with pytest.raises(InvalidQueryError, match="goal"):
        reeds_shepp_path((0, 0), (1, 0), (5, 5, 5), (1, 0), radius=1)
    for step in (0, -1, math.nan, "1"):
        with pytest.raises(InvalidQueryError, match="step"):
            reeds_shepp_path((0, 0), (1, 0), (5, 5), (1, 0), radius=1).poses(step)


@pytest.mark.parametrize("scale", [2.0 ** 1020, 2.0 ** -1020, 2.0 ** -1074])
def test_headings_of_any_length_but_zero(scale: float) -> None:
    # A heading whose squared norm overflows or underflows is the same direction (scaled by
    # a power of two, exactly the same unit vector).
    unit = reeds_shepp_path((0, 0), (1, 1), (1, 0), (-1, 0), radius=1)
    scaled = reeds_shepp_path((0, 0), (scale, scale), (1, 0), (-scale, 0), radius=1)
    assert (scaled.word, scaled.segments) == (unit.word, unit.segments)
    forward = turning_path((0, 0), (1, 1), (1, 0), (-1, 0), radius=1)
    assert turning_path((0, 0), (scale, scale), (1, 0), (-scale, 0), radius=1) == forward


@pytest.mark.parametrize("radius", [1e6, 1e9, 1e12])
def test_poses_on_a_wide_circle_turn_with_the_start(radius: float) -> None:
    # Turning the start turns every pose: the samples of an arc of a huge radius keep
    # their precision whatever the heading (a difference of sines would lose it).  The
    # same word is sampled from both starts (solving for the turned goal, rounded, would
    # give another word: see test_goals_far_closer_than_the_radius_are_reached).
    angle = 0.7
    c, s = math.cos(angle), math.sin(angle)
    ahead = (3 * math.cos(1 / radius), 3 * math.sin(1 / radius))     # ~3 along the arc
    base = reeds_shepp_path((0, 0), (1, 0), ahead, (1, 0), radius=radius)
    turned = dataclasses.replace(base, heading=angle)
    p, q = base.poses(0.25), turned.poses(0.25)
    rotated = np.column_stack([c * p[:, 0] - s * p[:, 1], s * p[:, 0] + c * p[:, 1]])
    np.testing.assert_allclose(q[:, :2], rotated, rtol=0, atol=1e-12)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e160, 1e200, 2.0**1000])
@pytest.mark.parametrize("goal", [(0.6, -0.05), (-0.39, 0.26)])    # RSR; RLR, turning round
def test_far_and_tiny_worlds_scale_the_unit_answer(scale: float, goal: tuple) -> None:
    # Squares of distances overflow past 1e154 and underflow below 1e-162: the words are
    # scale-free all the same.
    a, b = math.radians(35), math.radians(-70 if goal[0] > 0 else 215)
    args = ((-0.4, 0.25), _heading(a), goal, _heading(b))
    for shortest in (reeds_shepp_path, turning_path):
        unit = shortest(*args, radius=0.01)
        scaled = shortest(*[np.multiply(v, scale) if i % 2 == 0 else v
                            for i, v in enumerate(args)], radius=0.01 * scale)
        assert scaled.word == unit.word
        assert scaled.length == pytest.approx(unit.length * scale, rel=1e-12)


@pytest.mark.parametrize("step", [1e-12, 5e-324])
def test_a_step_too_fine_to_sample_is_refused(step: float) -> None:
    # Two million million samples would be asked of numpy: refused before allocating.
    args = ((0, 0), (1, 0), (3, 1), (0, 1))
    with pytest.raises(InvalidQueryError, match="step|apart"):
        reeds_shepp_path(*args, radius=1).poses(step)
    with pytest.raises(InvalidQueryError, match="step|apart"):
        turning_path(*args, radius=1).points(step)


def drive_chords(start, angle, word, segments, r):
    """The pose reached by driving ``segments`` from ``(start, angle)``, each arc as its
    chord ``2 r sin(s / 2 r)`` along the heading halfway round it: exact to rounding
    relative to the segment however large the radius (``drive`` goes through the arc's
    centre, ``r`` away)."""
    z, heading = complex(*start), angle
    for letter, s in zip(word[::2], segments):
        if letter == "S":
            z += s * cmath.exp(1j * heading)
        else:
            turn = (1 if letter == "L" else -1) * s / r
            z += 2 * r * math.sin(s / (2 * r)) * cmath.exp(1j * (heading + turn / 2))
            heading += turn
    return z, heading


@pytest.mark.parametrize("ratio", [1e13, 1e40, 1e150, 1e290])
@pytest.mark.parametrize("seed", range(3))
def test_goals_far_closer_than_the_radius_are_reached(ratio: float, seed: int) -> None:
    # The radius 1e13 to 1e290 times the distance between the poses: in units of the
    # radius the goal's offsets are below the rounding of 1, and the word is as tiny (when
    # the headings nearly agree), yet driving it reaches the goal pose; driven backward it
    # is as long, as is its mirror image, and it is at least the distance and the turn.
    rng = np.random.default_rng(seed)
    for k in range(40):
        dist = 10.0 ** rng.uniform(-5, 5)
        r = ratio * dist if k % 2 else 10.0 ** rng.uniform(-5, 5)
        dist = r / ratio if not k % 2 else dist
        a0 = rng.uniform(-math.pi, math.pi)
        a1 = a0 + [0.0, rng.uniform(-3, 3) * math.sqrt(dist / r),
                   rng.choice([-1, 1]) * 10.0 ** rng.uniform(-16, -1),
                   rng.uniform(-math.pi, math.pi)][k % 4]
        p = rng.uniform(-2, 2, 2) * dist
        q = p + dist * np.array(_heading(rng.uniform(-math.pi, math.pi)))
        path = reeds_shepp_path(p, _heading(a0), q, _heading(a1), radius=r)
        assert path.word in WORDS
        z, heading = drive_chords(p, path.heading, path.word, path.segments, r)
        scale = path.length + np.abs(p).sum() + np.abs(q).sum()
        assert abs(z - complex(*q)) <= 1e-13 * scale, (p, a0, q, a1, r, path)
        assert _angle_gap(heading, path.goal_heading) <= 1e-15, (p, a0, q, a1, r, path)
        assert path.length >= math.hypot(*(q - p)) * (1 - 1e-12)
        (d0, d1), (e0, e1) = _heading(a0), _heading(a1)
        turn = abs(math.atan2(d0 * e1 - d1 * e0, d0 * e0 + d1 * e1))
        assert path.length >= r * (turn - 1e-15)     # the headings made unit: rounding
        back = reeds_shepp_path(q, _heading(a1), p, _heading(a0), radius=r)
        mirror = reeds_shepp_path(p * [1, -1], _heading(-a0), q * [1, -1], _heading(-a1),
                                  radius=r)
        assert back.length == pytest.approx(path.length, rel=1e-9)
        assert mirror.length == pytest.approx(path.length, rel=1e-9)
