"""Annotations against shapely (containment, distance, segments, bounds) and against a
brute-force ray test for lines of sight; moving them; refusing bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.constraints import Annotation, Between, Disc, LineOfSight, Region, Side
from wayfinding.errors import InvalidGeometryError, InvalidQueryError, WayfindingError
from wayfinding.geometry import Obstacles

shapely = pytest.importorskip("shapely")
from shapely import affinity  # noqa: E402
from shapely.geometry import LineString, Point, Polygon, box  # noqa: E402

#: Segments of arcs in the shapely stand-ins for discs and sectors: their chords sit within
#: radius · (1 - cos(pi / 4 / QUAD)) of the true arcs.
QUAD = 256
ARC_ERR = 5e-5


def star(seed: int, k: int = 9) -> np.ndarray:
    """A random simple polygon, star-shaped about (5, 5) (k >= 4: no angular gap over pi)."""
    rng = np.random.default_rng(seed)
    ang = (np.arange(k) + rng.uniform(0.1, 0.9, k)) * 2 * np.pi / k
    rad = rng.uniform(1.0, 4.0, k)
    return np.column_stack([5 + rad * np.cos(ang), 5 + rad * np.sin(ang)])


def samples(seed: int, n: int = 2000, lo: float = -2.0, hi: float = 12.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, (n, 2)), rng.uniform(lo, hi, (n, 2)), rng.uniform(lo, hi, (n, 2))


def sector(position, heading, fov, rng_):
    """A shapely polygon of a circular sector (a disc when fov = 2 pi)."""
    if fov >= 2 * np.pi:
        return Point(position).buffer(rng_, quad_segs=QUAD)
    ang = np.linspace(heading - fov / 2, heading + fov / 2, 4 * QUAD)
    arc = np.column_stack([np.cos(ang), np.sin(ang)]) * rng_ + position
    return Polygon(np.vstack([[position], arc]))


def visible(position, heading, fov, range_, segments):
    """The visible region as a shapely geometry: the sector less each occluder's shadow (the
    segment closed by an arc far beyond it, about the eye, between the rays through its
    ends)."""
    view = sector(position, heading, fov, range_)
    eye = np.asarray(position, float)
    for a, b in np.asarray(segments, float):
        ta, tb = (math.atan2(*(p - eye)[::-1]) for p in (a, b))
        turn = math.remainder(tb - ta, 2 * math.pi)        # the short way round, < pi
        ang = ta + np.linspace(0, turn, 33)[::-1]
        far = eye + 10 * range_ * np.column_stack([np.cos(ang), np.sin(ang)])
        view = view.difference(Polygon(np.vstack([[a, b], far])).buffer(0))
    return view


def ray_hidden(eye, p, segments) -> bool:
    """Brute force: the sight line eye -> p properly crosses one of the segments."""
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    for a, b in segments:
        if orient(eye, p, a) * orient(eye, p, b) < 0 and orient(a, b, eye) * orient(a, b, p) < 0:
            return True
    return False


def check_against(ann: Annotation, geom, seed: int, *, exact: bool) -> None:
    """contains, distance and crosses of ``ann`` against the shapely geometry ``geom``;
    where ``geom`` approximates arcs, points and segments within ARC_ERR of its border are
    left out of the comparisons of containment and crossing."""
    pts, a, b = samples(seed)
    sp = shapely.points(pts)
    want_d = shapely.distance(geom, sp)
    np.testing.assert_allclose(ann.distance(pts), want_d, atol=1e-9 if exact else ARC_ERR)
    border = shapely.distance(geom.boundary, sp)
    clear = border > (1e-9 if exact else ARC_ERR)
    np.testing.assert_array_equal(ann.contains(pts)[clear], shapely.covers(geom, sp)[clear])
    lines = shapely.linestrings(np.stack([a, b], axis=1))
    clear = shapely.distance(geom.boundary, lines) > (1e-9 if exact else ARC_ERR)
    got = ann.crosses(a, b)
    np.testing.assert_array_equal(got[clear], shapely.intersects(geom, lines)[clear])
    assert got.any() and not got.all()
    lo = np.array(ann.bounds)
    np.testing.assert_allclose(lo, geom.bounds, atol=1e-9 if exact else ARC_ERR)


@pytest.mark.parametrize("seed", range(6))
def test_region_matches_shapely(seed):
    poly = star(seed)
    check_against(Region(poly), Polygon(poly), seed, exact=True)


def test_region_orientation_and_anchor():
    square = [(0, 0), (0, 2), (2, 2), (2, 0)]      # clockwise
    r = Region(square)
    assert r.vertices.tolist() == [[2, 0], [2, 2], [0, 2], [0, 0]]
    assert not r.vertices.flags.writeable
    assert r.anchor == pytest.approx(Polygon(square).centroid.coords[0])
    ell = Region([(0, 0), (4, 0), (4, 1), (1, 1), (1, 3), (0, 3)])
    assert ell.anchor == pytest.approx(Polygon(ell.vertices).centroid.coords[0])


def test_region_border_counts_as_inside():
    r = Region([(0, 0), (2, 0), (2, 2), (0, 2)])
    assert r.contains([(0, 1), (2, 2), (1, 0)]).tolist() == [True] * 3
    assert r.crosses([(-1, 2)], [(3, 2)]).tolist() == [True]         # runs along the top
    assert r.crosses([(-1, 3)], [(1, 2)]).tolist() == [True]         # ends on the border
    assert r.crosses([(-1, 3)], [(3, 3)]).tolist() == [False]


@pytest.mark.parametrize("seed", range(3))
def test_disc_matches_shapely(seed):
    rng = np.random.default_rng(seed)
    c, r = rng.uniform(3, 7, 2), rng.uniform(0.5, 3)
    disc = Disc(c, r)
    pts, a, b = samples(seed)
    centre = Point(c)
    want = np.maximum(shapely.distance(centre, shapely.points(pts)) - r, 0)
    np.testing.assert_allclose(disc.distance(pts), want, atol=1e-12)
    np.testing.assert_array_equal(disc.contains(pts), want == 0)
    lines = shapely.linestrings(np.stack([a, b], axis=1))
    np.testing.assert_array_equal(disc.crosses(a, b), shapely.distance(centre, lines) <= r)
    assert disc.bounds == pytest.approx((c[0] - r, c[1] - r, c[0] + r, c[1] + r))


@pytest.mark.parametrize("seed", range(4))
def test_between_two_regions_is_their_convex_hull(seed):
    p, q = star(seed, 6) - 3, star(seed + 10, 5) + 3
    hull = shapely.convex_hull(shapely.union(Polygon(p), Polygon(q)))
    check_against(Between(Region(p), Region(q)), hull, seed, exact=True)


@pytest.mark.parametrize("a, b", [
    (Disc((1, 1), 1.0), Disc((8, 3), 2.5)),
    (Disc((5, 5), 3.0), Disc((6, 5), 1.0)),                       # one inside the other
    (Disc((2, 8), 1.5), Region([(6, 0), (10, 1), (9, 4)])),
    (Region([(0, 0), (2, 0), (1, 2)]), Between(Disc((8, 8), 1.0), Disc((9, 2), 0.5))),
    (Disc((5, 5), 2.0), Region([(4, 4), (9, 4), (9, 6)])),             # overlapping
    (Disc((5, 5), 2.0), Disc((5, 5), 2.0)),                            # the same disc
    (Region([(1, 1), (3, 1), (2, 4)]), Region([(1, 1), (3, 1), (2, 4)])),
])
def test_between_with_discs_is_the_convex_hull(a, b):
    def shape(ann):
        if isinstance(ann, Disc):
            return Point(ann.centre).buffer(ann.radius, quad_segs=QUAD)
        if isinstance(ann, Region):
            return Polygon(ann.vertices)
        return shapely.convex_hull(shapely.union(*(shape(x) for x in ann.parts)))
    hull = shapely.convex_hull(shapely.union(shape(a), shape(b)))
    check_against(Between(a, b), hull, 7, exact=False)


@pytest.mark.parametrize("side, frame_box", [
    ("front", (1.5, -0.5, 3.5, 0.5)), ("back", (-3.5, -0.5, -1.5, 0.5)),
    ("left", (-1.5, 0.5, 1.5, 2.5)), ("right", (-1.5, -2.5, 1.5, -0.5))])
@pytest.mark.parametrize("heading", [0.0, 0.7, -2.0])
def test_side_bands(side, frame_box, heading):
    """A 3 x 1 hut centred on (5, 5) facing ``heading``: each band is the box of depth 2 next
    to it in the hut's frame, turned and moved with the hut."""
    hut_frame = box(-1.5, -0.5, 1.5, 0.5)
    place = lambda g: affinity.translate(  # noqa: E731
        affinity.rotate(g, heading, origin=(0, 0), use_radians=True), 5, 5)
    hut = Region(np.asarray(place(hut_frame).exterior.coords)[:-1])
    band = Side(hut, side, heading=heading, depth=2.0)
    check_against(band, place(box(*frame_box)), 3, exact=True)
    assert band.anchor == pytest.approx((5, 5))


def test_side_of_a_disc_uses_its_extent():
    band = Side(Disc((0, 0), 1.0), "left", heading=math.pi / 2, depth=0.5)
    np.testing.assert_allclose(band.bounds, (-1.5, -1, -1, 1), atol=1e-12)


@pytest.mark.parametrize("heading, fov", [
    (0.3, 1.2), (2.5, math.pi), (-1.0, 4.5), (0.0, 2 * math.pi), (3.1, 0.2)])
def test_line_of_sight_without_occluders(heading, fov):
    eye = (5.0, 5.0)
    los = LineOfSight(eye, heading, fov=fov, range=4.0)
    check_against(los, sector(eye, heading, fov, 4.0), 11, exact=False)
    pts, _, _ = samples(12)
    d = pts - eye
    off = np.abs(np.remainder(np.arctan2(d[:, 1], d[:, 0]) - heading + np.pi, 2 * np.pi)
                 - np.pi)
    want = (np.hypot(*d.T) <= 4.0) & (off <= fov / 2)
    rim = (np.abs(np.hypot(*d.T) - 4.0) < 1e-9) | (np.abs(off - fov / 2) < 1e-9)
    np.testing.assert_array_equal(los.contains(pts)[~rim], want[~rim])


OCCLUDERS = np.array([[(6, 4), (6, 6)], [(7, 5.5), (7.5, 8)], [(4, 7), (8, 6.5)],
                      [(3, 3), (4.5, 4.2)], [(5.5, 2), (9, 4)], [(20, 20), (21, 21)]])


@pytest.mark.parametrize("heading, fov", [(0.2, 2.0), (1.5, 4.0), (0.0, 2 * math.pi)])
def test_line_of_sight_with_occluders(heading, fov):
    eye = np.array([5.0, 5.0])
    los = LineOfSight(eye, heading, fov=fov, range=4.5, occluders=OCCLUDERS)
    pts, _, _ = samples(21, n=1500)
    inside_sector = LineOfSight(eye, heading, fov=fov, range=4.5).contains(pts)
    want = np.array([s and not ray_hidden(eye, p, OCCLUDERS) for p, s in
                     zip(pts, inside_sector)])
    np.testing.assert_array_equal(los.contains(pts), want)
    check_against(los, visible(eye, heading, fov, 4.5, OCCLUDERS), 22, exact=False)


def test_line_of_sight_behind_obstacles():
    walls = Obstacles([[(6, 4), (7, 4), (7, 6), (6, 6)], [(2, 2), (3, 2), (3, 3)]])
    los = LineOfSight((5, 5), 0.0, fov=2 * math.pi, range=4.0, occluders=walls)
    assert los.contains([(5.9, 5), (6.5, 5), (8, 5), (6.5, 7.5), (4, 5)]).tolist() == [
        True, False, False, True, True]
    segs = np.concatenate([[p, np.roll(p, -1, axis=0)] for p in walls.polygons],
                          axis=1).transpose(1, 0, 2)
    check_against(los, visible((5, 5), 0.0, 2 * math.pi, 4.0, segs), 5, exact=False)


def test_moved_turns_about_the_anchor_then_shifts():
    poly = star(1)
    r = Region(poly)
    moved = r.moved((1.0, -2.0), turn=0.5)
    cx, cy = r.anchor
    want = affinity.translate(affinity.rotate(Polygon(poly), 0.5, origin=(cx, cy),
                                              use_radians=True), 1.0, -2.0)
    assert Polygon(moved.vertices).symmetric_difference(want).area < 1e-9
    assert Disc((1, 2), 3).moved((1, 1)).centre == (2, 3)
    assert Disc((1, 2), 3).moved(turn=1.0).centre == pytest.approx((1, 2))
    los = LineOfSight((0, 0), 0.0, fov=1.0, range=2.0).moved((3, 0), turn=math.pi / 2)
    assert los.position == (3, 0) and los.heading == pytest.approx(math.pi / 2)
    assert los.contains([(3, 1.5), (4.5, 0)]).tolist() == [True, False]


def test_moved_objects_carry_their_bands_and_hulls():
    hut = Region([(0, 0), (2, 0), (2, 1), (0, 1)])
    band = Side(hut, "front", heading=0.0, depth=1.0).moved((0, 0), turn=math.pi)
    np.testing.assert_allclose(band.bounds, (-1, 0, 0, 1), atol=1e-12)
    gap = Between(Disc((0, 0), 1), Disc((4, 0), 1)).moved((0, 3))
    assert gap.contains([(2, 3), (2, 0)]).tolist() == [True, False]
    tri = [(6, 0), (9, 1), (7, 3)]
    turned = Between(Region(tri), Disc((1, 1), 1.0)).moved((2, -1), turn=1.0)
    hull = shapely.convex_hull(shapely.union(Polygon(tri),
                                             Point(1, 1).buffer(1.0, quad_segs=QUAD)))
    cx, cy = Polygon(tri).centroid.coords[0]
    pivot = ((cx + 1) / 2, (cy + 1) / 2)          # midway between the parts' anchors
    assert turned.anchor == pytest.approx((pivot[0] + 2, pivot[1] - 1))
    want = affinity.translate(affinity.rotate(hull, 1.0, origin=pivot, use_radians=True), 2, -1)
    check_against(turned, want, 9, exact=False)


def test_a_line_of_sight_ignores_occluders_through_its_eye_and_beyond_its_range():
    los = LineOfSight((0, 0), 0.0, fov=math.pi, range=3.0,
                      occluders=[[(0, -1), (0, 1)], [(5, -1), (5, 1)], [(1, 0), (1, 0)]])
    assert los.contains([(2, 0)]).tolist() == [True]


def test_a_line_of_sight_past_parallel_collinear_and_radial_occluders():
    segs = np.array([[(2, -1), (2, 1)], [(2.5, -1), (2.5, 1)], [(1, 1.5), (3, 1.5)],
                     [(2, 1.5), (4, 1.5)], [(1, -1), (3, -3)], [(3, 0.5), (4, 0.5)]])
    los = LineOfSight((0, 0), 0.0, fov=2.0, range=4.0, occluders=segs)
    pts, _, _ = samples(3, n=800, lo=-1, hi=5)
    inside_sector = LineOfSight((0, 0), 0.0, fov=2.0, range=4.0).contains(pts)
    want = [s and not ray_hidden((0, 0), p, segs) for p, s in zip(pts, inside_sector)]
    np.testing.assert_array_equal(los.contains(pts), want)
    check_against(los, visible((0, 0), 0.0, 2.0, 4.0, segs), 4, exact=False)


@pytest.mark.parametrize("make, match", [
    (lambda: Region([(0, 0), (1, 0)]), "k >= 3"),
    (lambda: Region([(0, 0), (1, 0), (math.nan, 1)]), "NaN"),
    (lambda: Region([(0, 0), (1, 1), (2, 2)]), "degenerate"),
    (lambda: Region([(0, 0), (1, 0), (1, 0), (0, 1)]), "repeats"),
    (lambda: Region([(0, 0), (3, 3), (3, 0), (0, 2)]), "not simple"),
    (lambda: Region([(0, 0), (4, 0), (4, 2), (2, 0.0), (2, -1)]), "not simple"),
    (lambda: Region([(0, 0), (3, 0), (1, 0), (1, 1)]), "not simple"),
    (lambda: Region([(True, 0), (1, 0), (0, 1)]), "numbers"),
    (lambda: Region("abc"), "numbers"),
    (lambda: Region([[0, 0, 0], [1, 0, 0], [0, 1, 0]]), r"\(k, 2\)"),
    (lambda: Disc((0, 0), 0.0), "radius"),
    (lambda: Disc((0, 0), -1.0), "radius"),
    (lambda: Disc((0, math.nan), 1.0), "centre"),
    (lambda: Disc((0, 0), math.inf), "radius"),
    (lambda: Between(Disc((0, 0), 1), "wall"), "not an Annotation"),
    (lambda: Between(Disc((0, 0), 1), LineOfSight((0, 0), 0, fov=1, range=1)), "convex hull"),
    (lambda: Side(Disc((0, 0), 1), "top", heading=0, depth=1), "side"),
    (lambda: Side(Disc((0, 0), 1), "front", heading=0, depth=0), "depth"),
    (lambda: Side(Disc((0, 0), 1), "front", heading=math.nan, depth=1), "heading"),
    (lambda: Side(None, "front", heading=0, depth=1), "not an Annotation"),
    (lambda: LineOfSight((0, 0), 0, fov=0.0, range=1), "fov"),
    (lambda: LineOfSight((0, 0), 0, fov=7.0, range=1), "fov"),
    (lambda: LineOfSight((0, 0), 0, fov=-1.0, range=1), "fov"),
    (lambda: LineOfSight((0, 0), 0, fov=1.0, range=-1), "range"),
    (lambda: LineOfSight((0, 0), 0, fov=1.0, range=0), "range"),
    (lambda: LineOfSight((0, 0), math.inf, fov=1.0, range=1), "heading"),
    (lambda: LineOfSight((0, 0), 0, fov=1.0, range=1, occluders=[(0, 1), (1, 1)]),
     r"\(k, 2, 2\)"),
    (lambda: LineOfSight((0, 0), 0, fov=1.0, range=1, occluders=[[(0, 1), (1, math.nan)]]),
     "NaN"),
    (lambda: Disc((0, 0), 1).moved((math.nan, 0)), "offset"),
    (lambda: Disc((0, 0), 1).moved((1, 0), turn=math.inf), "turn"),
])
def test_bad_annotations(make, match):
    with pytest.raises(InvalidGeometryError, match=match):
        make()


@pytest.mark.parametrize("call, match", [
    (lambda d: d.contains([(0, math.nan)]), "not finite"),
    (lambda d: d.distance([(0, 1, 2)]), r"shape \(m, 2\)"),
    (lambda d: d.distance("here"), "numbers"),
    (lambda d: d.crosses([(0, 0)], [(1, 1), (2, 2)]), "differ in shape"),
    (lambda d: d.crosses([(0, 0)], [(1, math.inf)]), "not finite"),
])
def test_bad_points(call, match):
    with pytest.raises(WayfindingError, match=match) as info:
        call(Disc((0, 0), 1.0))
    assert isinstance(info.value, InvalidQueryError)


def test_one_point_and_no_points():
    d = Disc((0, 0), 1.0)
    assert d.contains((0.5, 0)).tolist() == [True]
    assert d.distance(np.empty((0, 2))).shape == (0,)
    assert d.crosses(np.empty((0, 2)), np.empty((0, 2))).shape == (0,)


@pytest.mark.parametrize("seed", range(3))
def test_line_of_sight_past_random_crossing_occluders(seed):
    rng = np.random.default_rng(seed)
    segs = rng.uniform(1, 9, (10, 2, 2))
    eye = np.array([5.0, 5.0])
    gap = [shapely.distance(Point(eye), LineString(s)) for s in segs]
    segs = segs[np.array(gap) > 0.05]
    heading, fov = rng.uniform(-3, 3), rng.uniform(1, 2 * np.pi)
    los = LineOfSight(eye, heading, fov=fov, range=4.0, occluders=segs)
    pts, _, _ = samples(seed + 30, n=1000)
    inside_sector = LineOfSight(eye, heading, fov=fov, range=4.0).contains(pts)
    want = [s and not ray_hidden(eye, p, segs) for p, s in zip(pts, inside_sector)]
    np.testing.assert_array_equal(los.contains(pts), want)
    check_against(los, visible(eye, heading, fov, 4.0, segs), seed + 40, exact=False)


def test_a_walled_in_eye_sees_only_itself():
    d = 1e-5
    square = [(5 - d, 5 - d), (5 + d, 5 - d), (5 + d, 5 + d), (5 - d, 5 + d)]
    walls = [[square[i], square[(i + 1) % 4]] for i in range(4)]
    los = LineOfSight((5, 5), 0.0, fov=2 * math.pi, range=3.0, occluders=walls)
    assert los.contains([(5, 5), (6, 5)]).tolist() == [True, False]
    np.testing.assert_allclose(los.distance([(5, 5), (8, 9)]), [0, 5], atol=1e-4)
    assert los.crosses([(0, 5)], [(9, 5)]).tolist() == [True]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80), st.booleans())
def test_crossing_pairs_are_every_pair_that_crosses(seed, n, touching):
    # Segments on a small lattice: shared ends, collinear overlaps, equal x ranges.
    from wayfinding.constraints._pieces import crossing_pairs
    from wayfinding.geometry.obstacles import segments_cross

    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 6, (2, n, 2)).astype(float)
    i, j = np.triu_indices(n, 1)
    met = segments_cross(a[i], b[i], a[j], b[j], touching=touching)
    got = crossing_pairs(a, b, touching=touching)
    assert got[0].tolist() == i[met].tolist() and got[1].tolist() == j[met].tolist()


def test_a_region_of_many_vertices_is_checked_quickly():
    # A circle of 50,000 edges: the sweep looks at the few edges each one's x range meets.
    n = 50_000
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    region = Region(np.stack([20 * np.cos(t), 20 * np.sin(t)], axis=1))
    assert len(region.vertices) == n
    with pytest.raises(InvalidGeometryError, match="is not simple"):
        Region([(0, 0), (4, 0), (4, 4), (1, -2)])
