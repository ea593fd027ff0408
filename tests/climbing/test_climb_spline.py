"""Climb-path smoothing: the Bézier spline through the path points and the look-ahead
controller input."""

import numpy as np
import pytest

from wayfinding.climbing import (
    ClimbPosition,
    ClimbSpline,
    ElementKind,
    TraversalElement,
    build_climb_graph,
    find_climb_path,
)
from wayfinding.errors import InvalidQueryError


def test_spline_passes_through_the_points_and_rounds_corners_outward():
    pts = np.array([(0, 0, 0), (0, 0, 4), (4, 0, 4)], dtype=float)
    s = ClimbSpline(pts)
    assert np.allclose(s.controls[:, 0], pts[:-1]) and np.allclose(s.controls[:, 3], pts[1:])
    assert any(np.allclose(q, (0, 0, 4)) for q in s.samples)
    assert s.length > 8.0                     # the corner bulges outward: longer
    bulge = s.samples[:, 0].min()             # up the pipe, it swings out to x < 0
    assert bulge < 0


def test_bezier_matches_de_casteljau():
    rng = np.random.default_rng(2)
    s = ClimbSpline(rng.uniform(0, 5, (5, 3)), samples=8)
    for span, ctrl in enumerate(s.controls):
        for k, t in enumerate(np.linspace(0, 1, 9)[:-1]):
            pts = ctrl.copy()
            for n in range(3, 0, -1):
                pts = (1 - t) * pts[:n] + t * pts[1:n + 1]
            assert np.allclose(s.samples[span * 8 + k], pts[0])


@pytest.mark.parametrize("at", [0.0, 1.0, 2.5, 4.0])
def test_lookahead_sits_2_8_m_along_a_straight_climb(at):
    s = ClimbSpline([(0, 0, 0), (0, 0, 2), (0, 0, 4), (0, 0, 8)])
    a = s.lookahead((0.3, 0.0, at))
    assert np.allclose(a.position, (0, 0, at)) and a.distance == pytest.approx(at)
    assert np.allclose(a.target, (0, 0, at + 2.8))
    assert np.allclose(a.axes(right=(1, 0, 0), up=(0, 0, 1)), (0, 1, 0))   # all up


def test_lookahead_stops_at_the_end():
    s = ClimbSpline([(0, 0, 0), (0, 0, 2)])
    assert np.allclose(s.lookahead((0, 0, 1.5)).target, (0, 0, 2))


def test_right_turn_on_a_ledge_reads_right_past_the_corner():
    s = ClimbSpline([(0, 0, 0), (0, 0, 4), (6, 0, 4)])
    early = s.lookahead((0, 0, 0.2)).axes(right=(1, 0, 0), up=(0, 0, 1))
    late = s.lookahead((0, 0, 3.0)).axes(right=(1, 0, 0), up=(0, 0, 1))
    assert early[1] > abs(early[0])          # still mostly up
    assert late[0] > late[1]                 # the target has turned the corner: right
    assert abs(late[2]) < 1e-12              # in the wall's plane: no depth


def test_smoothing_a_planned_climb():
    els = [TraversalElement(ElementKind.LADDER, [(0, 0, 0), (0, 0, 6)]),
           TraversalElement(ElementKind.LEDGE, [(0, 0, 6), (5, 0, 6)])]
    p = find_climb_path(build_climb_graph(els), ClimbPosition(0, 0.5), ClimbPosition(1, 4.0))
    s = ClimbSpline(p.points)
    assert np.allclose(s.at(0), p.points[0]) and np.allclose(s.at(s.length), p.points[-1])
    assert s.length >= p.length


@pytest.mark.parametrize("make", [
    lambda: ClimbSpline([(0, 0, 0)]),
    lambda: ClimbSpline([(0, 0, 0), (0, 0, 0)]),
    lambda: ClimbSpline([(0, 0), (1, 1)]),
    lambda: ClimbSpline([(0, 0, 0), (0, 0, 1)], samples=1),
    lambda: ClimbSpline([(0, 0, 0), (0, 0, 1)]).lookahead((0, 0, 0), distance=-1),
    lambda: ClimbSpline([(0, 0, 0), (0, 0, 1)]).lookahead((0, 0, 0)).axes((0, 0, 0), (0, 0, 1)),
])
def test_bad_input_is_refused(make):
    with pytest.raises(InvalidQueryError):
        make()


def test_a_projection_window_keeps_a_follower_on_its_part_of_the_path():
    # up 4 m, right 1 m, down 4 m: the way down passes 1 m from the way up
    s = ClimbSpline([(0, 0, 0), (0, 0, 4), (1, 0, 4), (1, 0, 0)])
    near_start = (0.6, 0.0, 1.0)                         # nearer the way down
    assert s.project(near_start) > s.length / 2
    assert s.project(near_start, span=(0.0, 2.8)) < 1.5
    a = s.lookahead(near_start, span=(0.0, 2.8))
    assert a.vector[2] > 0                               # still climbing up
    assert s.project((5, 0, 5), span=(3.0, 3.0)) == pytest.approx(3.0, abs=0.2)


@pytest.mark.parametrize("span", [(2.0, 1.0), (0.0,), (np.nan, 1.0), "all"])
def test_bad_projection_windows_are_refused(span):
    s = ClimbSpline([(0, 0, 0), (0, 0, 4)])
    with pytest.raises(InvalidQueryError):
        s.project((0, 0, 1), span=span)


def test_more_samples_than_a_build_may_allocate_are_refused_at_once():
    with pytest.raises(InvalidQueryError, match="MAX_CELLS"):
        ClimbSpline([(0, 0, 0), (0, 0, 2), (0, 0, 4)], samples=10**9)


@pytest.mark.filterwarnings("error")
def test_splines_reach_as_far_as_the_markup_and_no_farther():
    from wayfinding.climbing.markup import MAX_EXTENT

    s = ClimbSpline([(0, 0, 0), (MAX_EXTENT, 0, 0), (MAX_EXTENT, MAX_EXTENT, 0)])
    assert np.isfinite(s.length) and s.length >= 2 * MAX_EXTENT
    assert np.isfinite(s.at(s.length / 2)).all()
    with pytest.raises(InvalidQueryError, match="beyond"):
        ClimbSpline([(0, 0, 0), (1e200, 0, 0), (1e200, 1e200, 0)])   # its length overflowed
