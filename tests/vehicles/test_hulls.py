"""Contours and hulls of compound vehicles (merging, convexifying, point in polygon)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidGeometryError
from wayfinding.vehicles.hulls import (
    box_polygon,
    check_polygon,
    circular_incr,
    convexify,
    merge_boxes,
    merge_contours,
    point_in_polygon,
    signed_area,
)


def rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return box_polygon(((x0 + x1) / 2, (y0 + y1) / 2), ((x1 - x0) / 2, (y1 - y0) / 2), 0.0)


def monotone_hull(points: np.ndarray) -> np.ndarray:
    """Reference convex hull (Andrew's monotone chain), clockwise, collinear points dropped."""
    pts = sorted(map(tuple, points.tolist()))

    def half(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    ccw = half(pts)[:-1] + half(pts[::-1])[:-1]
    return np.array(ccw[::-1])


def same_polygon(a: np.ndarray, b: np.ndarray, tol: float = 1e-7) -> bool:
    if a.shape != b.shape:
        return False
    for k in range(len(a)):
        if np.allclose(np.roll(a, k, axis=0), b, atol=tol):
            return True
    return False


def on_or_inside(points: np.ndarray, poly: np.ndarray, tol: float = 1e-7) -> bool:
    a, b = poly, np.roll(poly, -1, axis=0)
    e = b - a
    for p in points:
        if (e[:, 0] * (p[1] - a[:, 1]) - e[:, 1] * (p[0] - a[:, 0]) > tol).any():
            return False
    return True


def test_circular_incr_walks_both_ways() -> None:
    assert [circular_incr(0, -1, 4), circular_incr(3, 1, 4), circular_incr(2, -3, 4)] == [3, 0, 3]


def test_box_polygon_is_clockwise_and_grown() -> None:
    box = box_polygon((1.0, 2.0), (2.0, 1.0), math.pi / 2, grow=0.5)
    assert signed_area(box) < 0
    np.testing.assert_allclose(abs(signed_area(box)), 5.0 * 3.0)
    np.testing.assert_allclose(np.sort(box[:, 0]), [-0.5, -0.5, 2.5, 2.5], atol=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    (dict(center=(0, 0), half_extents=(0, 1), heading=0.0), "half_extents"),
    (dict(center=(0, float("nan")), half_extents=(1, 1), heading=0.0), "center"),
    (dict(center=(0, 0), half_extents=(1, 1), heading=float("inf")), "heading"),
    (dict(center=(0, 0), half_extents=(1, 1), heading=0.0, grow=-1.0), "grow"),
])
def test_box_polygon_refuses_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(InvalidGeometryError, match=match):
        box_polygon(**kwargs)


@pytest.mark.parametrize("polygon", [None, 1.0, "abc", [[0, 0], [1, 1]],
                                     [[0, 0], [1, 0], [1, math.nan]]])
def test_point_in_polygon_refuses_a_bad_polygon(polygon: object) -> None:
    with pytest.raises(InvalidGeometryError, match="polygon"):
        point_in_polygon((0.5, 0.5), polygon)  # type: ignore[arg-type]
    # Either way round, a polygon holds the same points.
    assert point_in_polygon((0.5, 0.5), rect(0, 0, 1, 1)[::-1]) is True


def test_check_polygon_refuses_counterclockwise_and_short() -> None:
    with pytest.raises(InvalidGeometryError, match="clockwise"):
        check_polygon("p", rect(0, 0, 1, 1)[::-1])
    with pytest.raises(InvalidGeometryError, match="at least 3"):
        check_polygon("p", [[0, 0], [1, 1]])


def test_overlap_merge_carriage_and_horse() -> None:
    carriage, horse = rect(0, 0, 4, 2), rect(3, 0.5, 5, 1.5)
    contour = merge_contours(carriage, horse)
    assert signed_area(contour) < 0
    assert len(contour) == 8
    for point in ([4, 0.5], [4, 1.5]):
        assert np.isclose(contour, point).all(axis=1).any()
    np.testing.assert_allclose(abs(signed_area(contour)), 8 + 1)
    hull, pockets = convexify(contour)
    turns = np.linalg.det(np.stack([np.roll(hull, -1, axis=0) - hull,       # 2D cross products
                                    np.roll(hull, -2, axis=0) - np.roll(hull, -1, axis=0)],
                                   axis=1))
    assert (turns < 0).all()
    assert on_or_inside(np.concatenate([carriage, horse]), hull)
    assert same_polygon(hull, monotone_hull(contour))
    np.testing.assert_allclose(abs(signed_area(hull)),
                               abs(signed_area(contour)) + sum(abs(signed_area(t))
                                                               for t in pockets))


def test_disjoint_merge_bridges_the_closest_edges() -> None:
    left, right = rect(0, 0, 2, 2), rect(3, 0.5, 4, 1.5)
    contour = merge_contours(left, right)
    assert len(contour) == 8 and signed_area(contour) < 0
    for p in np.concatenate([left, right]):
        assert np.isclose(contour, p).all(axis=1).any()
    edges = {tuple(map(tuple, e)) for e in zip(contour.tolist(), np.roll(contour, -1, 0).tolist())}
    assert ((2.0, 2.0), (3.0, 1.5)) in edges and ((3.0, 0.5), (2.0, 0.0)) in edges
    np.testing.assert_allclose(abs(signed_area(contour)), 4 + 1 + 1.5)


@pytest.mark.parametrize("order", ["big_first", "small_first"])
def test_containment_gives_the_outer_shape(order: str) -> None:
    big, small = rect(0, 0, 4, 4), rect(1, 1, 2, 2)
    pair = (big, small) if order == "big_first" else (small, big)
    assert same_polygon(merge_contours(*pair), big)


def test_convexify_l_shape_drops_its_reflex_vertex() -> None:
    ell = np.array([[0, 2], [1, 2], [1, 1], [2, 1], [2, 0], [0, 0]], dtype=float)
    assert signed_area(ell) < 0
    hull, pockets = convexify(ell)
    assert same_polygon(hull, np.array([[0, 2], [1, 2], [2, 1], [2, 0], [0, 0]], float))
    np.testing.assert_allclose(pockets, [[[1, 2], [1, 1], [2, 1]]])


def test_point_in_polygon_rule() -> None:
    square = rect(0, 0, 2, 2)
    got = point_in_polygon([[1, 1], [5, 1], [0, 1], [2, 1], [1, 0], [1, 2], [0, 0]], square)
    assert got.tolist() == [True, False, True, False, True, False, True]
    assert point_in_polygon((1.0, 1.0), square) is True


boxes = st.lists(st.tuples(st.floats(-4, 4), st.floats(-4, 4), st.floats(0.3, 3),
                           st.floats(0.2, 1.5), st.floats(0.0, math.pi)),
                 min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(boxes, st.floats(0.0, 0.5))
def test_merged_contours_stay_clockwise_and_hulls_cover_the_boxes(rows: list, grow: float
                                                                   ) -> None:
    polys = [box_polygon(r[:2], r[2:4], r[4], grow=grow) for r in rows]
    try:
        contour = merge_boxes(rows, grow=grow)
    except InvalidGeometryError as exc:
        assume("degenerately" not in str(exc))
        raise
    assert signed_area(contour) < 0
    hull, pockets = convexify(contour)
    assert signed_area(hull) < 0
    allpts = np.concatenate(polys)
    assert on_or_inside(allpts, hull, tol=1e-6 * max(1.0, float(np.abs(allpts).max())))
    assert same_polygon(hull, monotone_hull(contour), tol=1e-6)


def test_boxes_sharing_edges_merge_after_a_tiny_nudge() -> None:
    horses = [(2.3, 0.45, 0.6, 0.25, 0.0), (2.3, -0.45, 0.6, 0.25, 0.0)]
    with pytest.raises(InvalidGeometryError, match="degenerately"):
        merge_contours(box_polygon((2.3, 0.45), (0.6, 0.25), 0.0, grow=0.3),
                       box_polygon((2.3, -0.45), (0.6, 0.25), 0.0, grow=0.3))
    contour = merge_boxes(horses, grow=0.3)
    assert signed_area(contour) < 0
    np.testing.assert_allclose(abs(signed_area(contour)), 1.8 * (0.9 + 1.1), rtol=1e-5)
    hull, _ = convexify(contour)
    assert same_polygon(hull, monotone_hull(contour), tol=1e-6)


def _inside_exactly(point, polygon) -> bool:
    """The crossing rule of point_in_polygon in exact fractions."""
    px, py = map(Fraction, point)
    count = 0
    for (ax, ay), (bx, by) in zip(polygon, np.roll(polygon, -1, axis=0)):
        ax, ay, bx, by = map(Fraction, (ax, ay, bx, by))
        if (ay > py) != (by > py) and ax + (py - ay) * (bx - ax) / (by - ay) > px:
            count += 1
    return count % 2 == 1


@pytest.mark.parametrize("scale", [1e-300, 1e-5, 1.0, 1e150, 1e300])
@pytest.mark.parametrize("seed", range(3))
def test_point_in_polygon_is_exact_on_edges_and_vertices_at_any_scale(scale, seed) -> None:
    # Points on a slanted edge, its vertices and points near it: the side of the edge is
    # decided exactly (rounding the ray's crossing put some on the wrong side, and past
    # 1e154 or below 1e-154 its products overflowed or vanished).
    rng = np.random.default_rng(seed)
    for _ in range(20):
        box = box_polygon(rng.uniform(-1, 1, 2) * scale, rng.uniform(0.2, 1, 2) * scale,
                          float(rng.uniform(-math.pi, math.pi)))
        ends = np.roll(box, -1, axis=0)
        points = np.concatenate([box, (box + ends) / 2, box + (ends - box) / 3,
                                 rng.uniform(-2, 2, (6, 2)) * scale])
        got = point_in_polygon(points, box)
        assert got.tolist() == [_inside_exactly(p, box) for p in points]
