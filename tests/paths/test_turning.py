"""Turning-radius paths: the test vectors of the steering-circle notes, tangency, headings,
the shortest of the four circle pairs."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError
from wayfinding.geometry.circles import circle_tangent
from wayfinding.paths import turning_path
from wayfinding.paths.turning import SIDES


def cross2(u, v):
    """The z component of the cross product of 2D vectors (rows of) ``u`` and ``v``."""
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


@pytest.mark.parametrize("case", [
    # start, heading, goal, goal heading, sides, c1, c2, exit, enter, length
    ((0, 0), (0, 1), (10, 0), (0, -1), "RR", (2, 0), (8, 0), (2, 2), (8, 2), 2 * math.pi + 6),
    ((0, 0), (1, 0), (10, -5), (1, 0), "RL", (0, -2), (10, -3), (0.9746, -0.2536),
     (9.0254, -4.7464), 11.2556),
    ((0, 0), (1, 0), (10, 5), (1, 0), "LR", (0, 2), (10, 3), (0.9746, 0.2536),
     (9.0254, 4.7464), 11.2556),
])
def test_vectors(case):
    p, d, q, e, sides, c1, c2, ex, en, length = case
    path = turning_path(p, d, q, e, radius=2)
    assert path.sides == sides
    assert np.allclose(path.centres, [c1, c2]) and np.allclose(path.exit, ex, atol=1e-4)
    assert np.allclose(path.enter, en, atol=1e-4)
    assert path.length == pytest.approx(length, abs=1e-4)


def test_a_pose_to_itself_or_along_its_own_circle():
    still = turning_path((0.0, 1.0), (math.cos(1.0), math.sin(1.0)), (0.0, 1.0),
                         (math.cos(1.0), math.sin(1.0)), radius=0.375)
    assert still.length == 0.0
    quarter = turning_path((0, 0), (1, 0), (2, 2), (0, 1), radius=2)   # left on one circle
    assert quarter.sides == "LL" and quarter.length == pytest.approx(math.pi)


def _sweep(c, a, b, side):
    """The angle turned from ``a`` to ``b`` about ``c`` on ``side`` (+1 counter-clockwise)."""
    t0 = math.atan2(a[1] - c[1], a[0] - c[0])
    t1 = math.atan2(b[1] - c[1], b[0] - c[0])
    return (side * (t1 - t0)) % (2 * math.pi)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=6, max_size=6),
       st.floats(0.3, 5))
@example([0.0, 1.0, 0.0, 1.0, 1.0, 1.0], 0.375)   # a pose to itself
def test_tangent_headings_and_shortest(v, r):
    p, q = np.array(v[:2]), np.array(v[2:4])
    d = np.array([math.cos(v[4]), math.sin(v[4])])
    e = np.array([math.cos(v[5]), math.sin(v[5])])
    path = turning_path(p, d, q, e, radius=r)
    c1, c2 = path.centres[0], path.centres[-1]
    seg = path.enter - path.exit if path.word[1] == "S" else np.zeros(2)
    # Tangency (G1 continuity) at both joins, both circles of radius r through the poses.
    assert np.isclose(np.linalg.norm(p - c1), r) and np.isclose(np.linalg.norm(q - c2), r)
    assert np.isclose(np.linalg.norm(path.exit - c1), r)
    assert np.isclose(np.linalg.norm(path.enter - c2), r)
    if np.linalg.norm(seg) > 1e-9:
        assert abs(np.dot(path.exit - c1, seg)) < 1e-7 * max(1, np.linalg.norm(seg))
        assert abs(np.dot(path.enter - c2, seg)) < 1e-7 * max(1, np.linalg.norm(seg))
    # The start heading is tangent to circle 1 in its turning sense; likewise at the goal.
    for c, pt, h, s in ((c1, p, d, path.sides[0]), (c2, q, e, path.sides[1])):
        rad = pt - c
        assert np.isclose(cross2(rad, h), SIDES[s] * r, atol=1e-9 * max(1, r))
    # Shorter than or equal to every other circle pair.
    for sides in ("LL", "LR", "RL", "RR"):
        s1, s2 = SIDES[sides[0]], SIDES[sides[1]]
        a = p + s1 * r * np.array([-d[1], d[0]])
        b = q + s2 * r * np.array([-e[1], e[0]])
        t = circle_tangent(a, s1, r, b, s2, r)
        if t is not None:
            ta, tb = np.array(t[2]), np.array(t[3])
            other = r * (_sweep(a, p, ta, s1) + _sweep(b, tb, q, s2)) + np.linalg.norm(tb - ta)
            assert path.length <= other + 1e-9
    pts = path.points(0.25)
    assert np.allclose(pts[0], p) and np.allclose(pts[-1], q)
    assert np.max(np.linalg.norm(np.diff(pts, axis=0), axis=1)) <= 0.25 + 1e-9
    assert np.hypot(*np.diff(pts, axis=0).T).sum() <= path.length + 1e-9


def test_turning_bad_input():
    with pytest.raises(InvalidQueryError, match="radius"):
        turning_path((0, 0), (1, 0), (5, 5), (1, 0), radius=0)
    with pytest.raises(InvalidQueryError, match="zero"):
        turning_path((0, 0), (0, 0), (5, 5), (1, 0), radius=1)
    with pytest.raises(InvalidQueryError, match="finite"):
        turning_path((0, np.nan), (1, 0), (5, 5), (1, 0), radius=1)
    with pytest.raises(InvalidQueryError, match="step"):
        turning_path((0, 0), (1, 0), (5, 5), (1, 0), radius=1).points(0)


# --- Dubins words: the shortest of LSL, RSR, LSR, RSL, RLR, LRL -------------------------

def _mod(a):
    """``a`` in ``[0, 2 pi)``, as an arc's turn; within 1e-12 of a whole turn, none (the
    rule of :func:`turning_path`, whose rounding decides no finer)."""
    a %= 2 * math.pi
    return 0.0 if a > 2 * math.pi - 1e-12 else a


def dubins_reference(p, a0, q, a1, r):
    """The six word lengths, each from its closed form in the frame where the start is at
    the origin, the goal at ``(d, 0)`` and the radius 1; the shortest, times ``r``.  The
    differences of the headings' sines and cosines come from the product formulas and the
    middle arc of a three-arc word from an arcsine, so that nearly coinciding circles keep
    their distance and direction."""
    dx, dy = (q[0] - p[0]) / r, (q[1] - p[1]) / r
    d, th = math.hypot(dx, dy), math.atan2(dy, dx)
    a, b = a0 - th, a1 - th
    sa, sb, ca, cb = math.sin(a), math.sin(b), math.cos(a), math.cos(b)
    half, mean = (a0 - a1) / 2, (a0 + a1) / 2 - th
    ds, dc = 2 * math.cos(mean) * math.sin(half), -2 * math.sin(mean) * math.sin(half)
    out = []
    for side, (vx, vy) in ((1, (d + ds, -dc)), (-1, (d - ds, dc))):     # LSL, RSR
        w, seg = math.atan2(vy, vx), math.hypot(vx, vy)
        if seg == 0:                   # one circle through both poses: the arc between
            out.append(_mod(side * (b - a)))
        else:
            out.append(_mod(side * (w - a)) + seg + _mod(side * (b - w)))
    dist = math.hypot(d + sa + sb, ca + cb)                                     # LSR
    if dist >= 2:
        s = math.sqrt((dist - 2) * (dist + 2))
        w = math.atan2(-ca - cb, d + sa + sb) - math.atan2(-2, s)
        out.append(_mod(w - a) + s + _mod(w - b))
    dist = math.hypot(d - sa - sb, ca + cb)                                     # RSL
    if dist >= 2:
        s = math.sqrt((dist - 2) * (dist + 2))
        w = math.atan2(ca + cb, d - sa - sb) - math.atan2(2, s)
        out.append(_mod(a - w) + s + _mod(b - w))
    for side, (vx, vy) in ((-1, (d - ds, dc)), (1, (d + ds, -dc))):     # RLR, LRL
        dist = math.hypot(vx, vy)
        if 0 < dist <= 4:
            m0 = 2 * math.asin(dist / 4)
            for m in (2 * math.pi - m0, m0):
                t = (-side * (a - math.atan2(vy, vx)) + m / 2) % (2 * math.pi)
                out.append(_mod(t) + _mod(m) + _mod(-side * (a0 - a1) - t + m))
    return r * min(out)


def _heading(angle):
    return (math.cos(angle), math.sin(angle))


def _normal(angle):
    return np.array([-math.sin(angle), math.cos(angle)])


@pytest.mark.parametrize("gap", [1e-14, 1e-12, 1e-10, 1e-8, 1e-6])
def test_nearly_coinciding_circles(gap):
    """Steering circles ``gap`` radii apart: the goal on the start with the headings ``gap``
    radians apart, or a goal whose circle on one side is ``gap`` radii from the start's.
    The direction between the centres decides which way round each arc goes.  (OMPL's
    Dubins space, the oracle of ``test_reeds_shepp.py`` for random poses, loses it here and
    can be a whole turn longer.)"""
    rng = np.random.default_rng(round(-math.log10(gap)))
    wrong = []
    for k in range(60):
        a0, r, p = rng.uniform(-math.pi, math.pi), rng.uniform(0.25, 4), rng.uniform(-6, 6, 2)
        if k % 2:
            q, a1 = p, a0 + rng.choice([-gap, gap])
        else:
            a1, side, turn = rng.uniform(-math.pi, math.pi), rng.choice([-1, 1]), \
                rng.uniform(-math.pi, math.pi)
            q = p + side * r * (_normal(a0) - _normal(a1)) + gap * r * np.array(_heading(turn))
        want = dubins_reference(p, a0, q, a1, r)
        path = turning_path(p, _heading(a0), q, _heading(a1), radius=r)
        if path.length != pytest.approx(want, abs=1e-9 * max(1, want)):
            wrong.append((p, a0, q, a1, r, path.word, path.length, want))
    assert not wrong, f"{len(wrong)} of 60 differ, e.g. {wrong[:2]}"


@pytest.mark.parametrize("goal,angle,length", [
    ((4, 4), math.pi / 2, 5.8134370139),     # LSL-shaped
    ((0, 0), math.pi, 7.3303828584),         # turn round on the spot: a CCC word
    ((-3, 0), 0.0, 9.2831853072),            # just behind, same heading: a CCC word
])
def test_dubins_known_lengths(goal, angle, length):
    path = turning_path((0, 0), (1, 0), goal, _heading(angle), radius=1)
    assert path.length == pytest.approx(length, abs=1e-9)
    assert dubins_reference((0, 0), 0.0, goal, angle, 1) == pytest.approx(length, abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-6, 6), min_size=4, max_size=4),
       st.lists(st.floats(-math.pi, math.pi), min_size=2, max_size=2),
       st.floats(0.25, 4))
@example([0.0, 0.0, 0.0, 0.0], [0.0, math.pi], 1.0)
@example([0.0, 0.0, -3.0, 0.0], [0.0, 0.0], 1.0)
# Nearly coinciding steering circles: the goal on the start, headings 1e-9 apart; the goal
# 2.2e-9 ahead; then the goal on the start away from the origin, where an RLR loop of one
# whole turn is shortest and an RSR of two half turns was returned.
@example([0.0, 0.0, 0.0, 0.0], [0.0, 1e-9], 1.0)
@example([0.0, 0.0, 1e-9, 2e-9], [0.5, 0.5], 2.0)
@example([1.0, -2.0, 1.0, -2.0], [2.0, 2.0 - 3e-8], 0.5)
@example([2.0**-24, -3.853018107243108, 2.0**-24, -3.853018107243108], [2.0**-24, 0.0], 0.25)
def test_shortest_of_the_six_words(v, angles, r):
    p, q = v[:2], v[2:]
    path = turning_path(p, _heading(angles[0]), q, _heading(angles[1]), radius=r)
    assert path.word in ("LSL", "RSR", "LSR", "RSL", "RLR", "LRL")
    assert path.sides == path.word[0] + path.word[2]
    want = dubins_reference(p, angles[0], q, angles[1], r)
    assert path.length == pytest.approx(want, abs=1e-9 * max(1, want))
    middle = np.linalg.norm(path.enter - path.exit) if path.word[1] == "S" else 0.0
    assert path.length == pytest.approx(r * sum(path.arcs) + middle, abs=1e-9 * max(1, want))
    step = r / 16
    pts = path.points(step)
    assert np.allclose(pts[0], p) and np.allclose(pts[-1], q)
    chords = np.diff(pts, axis=0)
    size = np.hypot(*chords.T)
    assert size.max() <= step + 1e-9
    assert size.sum() <= path.length + 1e-9
    assert size.sum() == pytest.approx(path.length, rel=1e-3, abs=1e-9)
    # Curvature at most 1 / r: consecutive chords turn no more than an arc of radius r would.
    keep = size > 1e-9
    chords, size = chords[keep], size[keep]
    turn = np.abs(np.arctan2(cross2(chords[:-1], chords[1:]),
                             np.einsum("ij,ij->i", chords[:-1], chords[1:])))
    bound = 2 * np.arcsin(np.minimum(np.maximum(size[:-1], size[1:]) / (2 * r), 1))
    assert np.all(turn <= bound + 1e-7)


@pytest.mark.parametrize("scale", [1e300, 1e307])
def test_points_of_a_segment_longer_than_the_square_range(scale: float) -> None:
    # The straight segment's length is measured without squaring it (its square would
    # overflow): points sampled along a path 1e300 long are finite and that far apart.
    path = turning_path((-scale, 0), (1, 0), (scale, 1), (1, 0), radius=1)
    pts = path.points(path.length / 8)
    assert np.isfinite(pts).all() and len(pts) <= 8 + 4
    assert np.allclose(pts[[0, -1]], [(-scale, 0), (scale, 1)], rtol=1e-15)
