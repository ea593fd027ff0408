"""Polygonal obstacles: validation, grid conversion and clearance against shapely."""

import warnings

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from movingai_data import generated_grid

from wayfinding.errors import InvalidGridError, InvalidQueryError
from wayfinding.geometry import Obstacles
from wayfinding.geometry.obstacles import blocked_rectangles
from wayfinding.grid import Grid

shapely = pytest.importorskip("shapely")
from shapely.geometry import LineString, Point, Polygon  # noqa: E402

SQUARE = [(0, 0), (2, 0), (2, 2), (0, 2)]


@pytest.mark.parametrize("poly, reason", [
    ([(0, 0), (1, 0)], "k >= 3"),
    ([(0, 0), (1, 0), (np.nan, 1)], "NaN"),
    ([(0, 0), (1, 1), (2, 2)], "degenerate"),
    ([(0, 0), (1, 0), (1, 0), (0, 1)], "repeats"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], "k >= 3"),
])
def test_bad_polygons(poly, reason):
    with pytest.raises(InvalidGridError, match=reason):
        Obstacles([poly])


def test_orientation_is_counter_clockwise():
    cw = Obstacles([SQUARE[::-1]]).polygons[0]
    x, y = cw[:, 0], cw[:, 1]
    assert np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y) > 0
    assert not cw.flags.writeable


@pytest.mark.parametrize("radius", [-1.0, float("nan"), "wide"])
def test_bad_radius(radius):
    with pytest.raises(InvalidQueryError, match="radius"):
        Obstacles([SQUARE]).segments_clear([0, 5], [5, 5], radius=radius)


def test_bad_points():
    obs = Obstacles([SQUARE])
    with pytest.raises(InvalidQueryError, match="not finite"):
        obs.points_clear([[0, np.nan]])
    with pytest.raises(InvalidQueryError, match="shape"):
        obs.points_clear([[0, 1, 2]])
    with pytest.raises(InvalidQueryError, match="differ"):
        obs.segments_clear([[0, 0], [1, 1]], [[0, 0]])


# Touching cases at radius 0: boundary contact is allowed, entering the interior is not.
@pytest.mark.parametrize("p, q, clear", [
    ((-1, 0), (3, 0), True),       # along the bottom edge
    ((-1, -1), (3, 3), False),     # the diagonal through two corners
    ((0, 0), (2, 2), False),       # the diagonal from corner to corner
    ((-1, 1), (1, 3), True),       # touches the corner (0, 2) only
    ((2, 0), (3, 5), True),        # leaves from a corner outward
    ((1, 0), (1, -3), True),       # leaves from an edge outward
    ((1, 0), (1, 1), False),       # from an edge inward
    ((0, 1), (2, 1), False),       # edge to edge through the middle
    ((1, 1), (1, 1), False),       # a point inside
    ((-1, 2), (1, 2), True),       # along the top edge, ending on it
])
def test_touching_cases_radius_zero(p, q, clear):
    obs = Obstacles([SQUARE])
    assert obs.segments_clear([p], [q], radius=0.0)[0] == clear
    line = LineString([p, q]) if p != q else Point(p)
    assert (not line.relate_pattern(Polygon(SQUARE), "T********")) == clear


convex = st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=3, max_size=7)
point = st.tuples(st.floats(-8, 8), st.floats(-8, 8))


def _hull(raw):
    hull = shapely.MultiPoint(raw).convex_hull
    return hull if isinstance(hull, Polygon) and hull.area > 1e-3 else None


@settings(max_examples=60, deadline=None)
@given(st.lists(convex, min_size=1, max_size=3), st.lists(st.tuples(point, point),
                                                          min_size=1, max_size=20),
       st.sampled_from([0.0, 0.25, 1.0, 2.5]))
def test_segments_clear_matches_shapely(raw_polys, segments, radius):
    polys = [h for h in map(_hull, raw_polys) if h is not None]
    assume(polys)
    obs = Obstacles([np.array(h.exterior.coords)[:-1] for h in polys])
    p = np.array([s[0] for s in segments])
    q = np.array([s[1] for s in segments])
    got = obs.segments_clear(p, q, radius=radius)
    for i, (a, b) in enumerate(segments):
        geom = LineString([a, b]) if a != b else Point(a)
        if radius > 0:
            d = min(geom.distance(h) for h in polys)
            assume(abs(d - radius) > 1e-7)
            want = d >= radius
        else:
            # skip contacts closer than the tolerance that shapely's exact arithmetic may
            # count as entering (the touching cases are in the table above)
            clearly_in = any(geom.intersects(h.buffer(-1e-6)) for h in polys)
            assume(clearly_in or min(geom.distance(h.exterior) for h in polys) > 1e-7)
            want = not any(geom.relate_pattern(h, "T********") for h in polys)
        assert got[i] == want, (a, b, radius)


@settings(max_examples=40, deadline=None)
@given(st.lists(convex, min_size=1, max_size=3), st.lists(point, min_size=1, max_size=30),
       st.sampled_from([0.0, 0.5, 1.5]))
@example([[(0.0, 1.0), (0.0, 5e-324), (1.0, 0.0)]], [(0.0, 1.0)], 0.0)   # subnormal edge
@example([[(0.0, 0.0), (0.0, 1.0038700320045331e-184), (1.0, 1.0), (1.0, 0.0)]], [(0.0, 0.0)], 0.0)
def test_points_clear_matches_shapely(raw_polys, points, radius):
    polys = [h for h in map(_hull, raw_polys) if h is not None]
    assume(polys)
    obs = Obstacles([np.array(h.exterior.coords)[:-1] for h in polys])
    got = obs.points_clear(points, radius=radius)
    for i, pt in enumerate(points):
        with warnings.catch_warnings():     # GEOS warns on coordinates near 1e-300
            warnings.simplefilter("ignore", RuntimeWarning)
            d = min(Point(pt).distance(h) for h in polys)
            db = min(Point(pt).distance(h.exterior) for h in polys)
        assume(np.isfinite(d) and np.isfinite(db))
        assume(abs(db - radius) > 1e-7 and db > 1e-7)
        assert got[i] == (d > 0 and db >= radius), (pt, radius)


def test_non_convex_polygon_chord():
    # a U shape: the segment across the opening stays outside, one across the arms does not
    u = [(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)]
    obs = Obstacles([u])
    assert obs.segments_clear([(1, 3)], [(2, 3)], radius=0.0)[0]         # across the opening
    assert obs.segments_clear([(1.5, 1)], [(1.5, 3)], radius=0.0)[0]     # inside the notch
    assert not obs.segments_clear([(0.5, 2)], [(2.5, 2)], radius=0.0)[0]  # through both arms
    assert obs.segments_clear([(1, 1)], [(2, 3)], radius=0.0)[0]          # corner to corner, notch


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=6, max_size=6), min_size=1, max_size=6))
def test_blocked_rectangles_cover_exactly(rows):
    blocked = np.array(rows, dtype=bool)
    rects = blocked_rectangles(blocked)
    cover = np.zeros(blocked.shape, dtype=int)
    for x0, y0, x1, y1 in rects:
        cover[y0:y1, x0:x1] += 1
    assert np.array_equal(cover, blocked.astype(int))


def test_from_grid_uses_the_world_transform():
    g = Grid.from_ascii("""
    ..#.
    .##.
    ....""", origin=(10.0, -4.0), cell_size=2.0)
    obs = Obstacles.from_grid(g)
    assert len(obs) == 2
    blocked = np.argwhere(~g.passable)[:, ::-1]
    free = np.argwhere(g.passable)[:, ::-1]
    centre = np.array(g.origin) + (np.array([0.5, 0.5]) * g.cell_size)
    assert not obs.points_clear(centre + blocked * g.cell_size).any()
    assert obs.points_clear(centre + free * g.cell_size, radius=0.9).sum() >= 1
    assert obs.points_clear(centre + free * g.cell_size, radius=0.0).all()
    assert obs.bounds == (12.0, -4.0, 16.0, 0.0)


@pytest.mark.parametrize("kind", ["caves", "city"])
def test_from_a_game_map_is_compact(kind):
    g = generated_grid(kind)
    obs = Obstacles.from_grid(g)
    assert len(obs) < (~g.passable).sum() / 5
    rects = blocked_rectangles(~g.passable)
    cover = np.zeros(g.shape, dtype=int)
    for x0, y0, x1, y1 in rects:
        cover[y0:y1, x0:x1] += 1
    assert np.array_equal(cover, (~g.passable).astype(int))
