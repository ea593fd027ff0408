"""The wavefront builder: on random worlds with obstacles at any angle the regions cover the
walkable area exactly, do not overlap, are convex (before the merge: boxes cut only along
walls), meet at most five at a point and are fewer than the constrained Delaunay triangles;
the chapter's cases (an empty room, one square); determinism; degenerate input; bad input;
the mesh serves paths, the crowd manager and pictures."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import shapely
import shapely.affinity
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import movingai_grid, movingai_names
from shapely.geometry import Polygon, box
from strategies import seeded_grids

from wayfinding.errors import InvalidGeometryError
from wayfinding.geometry import orient2d
from wayfinding.navmesh import NavMesh, walkable_area
from wayfinding.navmesh.exact import VisibilityMap
from wayfinding.navmesh.subtractive import weld
from wayfinding.navmesh.wavefront import wavefront_regions
from wayfinding.navmesh.worlds import obstacle_world


def random_world(seed, obstacles=6):
    """A 40 x 30 room with ``obstacles`` convex obstacles at any angle."""
    return obstacle_world(40, 30, obstacles=obstacles, gap=0.5, seed=seed)


def check_regions(regions, area, *, exact_convex=True):
    """Coverage, disjoint interiors and convexity of ``regions`` over ``area``."""
    geoms = [Polygon(r) for r in regions]
    tol = 1e-9 * area.area
    x0, y0, x1, y1 = area.bounds      # a fine grid keeps GEOS's overlay robust
    union = shapely.union_all(geoms, grid_size=1e-12 * max(x1 - x0, y1 - y0))
    assert union.symmetric_difference(area).area <= tol
    assert sum(g.area for g in geoms) - union.area <= tol       # interiors disjoint
    tree = shapely.STRtree(geoms)
    left, right = tree.query(geoms, predicate="intersects")
    pairs = left < right
    overlap = shapely.area(shapely.intersection(np.take(geoms, left[pairs]),
                                                np.take(geoms, right[pairs])))
    assert overlap.sum() <= tol
    for r in regions:
        assert len(r) >= 3 and Polygon(r).area > 0
        turns = orient2d(np.roll(r, 1, axis=0), r, np.roll(r, -1, axis=0))
        if exact_convex:
            assert (turns >= 0).all()
        else:
            a, c = np.roll(r, 1, axis=0), np.roll(r, -1, axis=0)
            cross = (r[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (r[:, 1] - a[:, 1]) * (
                c[:, 0] - a[:, 0])
            assert (cross >= -1e-9 * area.area).all()


def most_meeting(regions, size):
    """The most regions that share one point (corners welded, T-junctions included)."""
    _, polys, _ = weld(regions, 1e-9 * size)
    return max(Counter(v for p in polys for v in set(p)).values())


def cdt_triangles(area):
    return len(shapely.get_parts(shapely.constrained_delaunay_triangles(area)))


def sides_on_walls(region, area, tol):
    """Whether every side of ``region`` that is not axis-aligned lies along the area's
    boundary (a conforming edge)."""
    walls = area.boundary
    for p, q in zip(region, np.roll(region, -1, axis=0), strict=True):
        if abs(p[0] - q[0]) <= tol or abs(p[1] - q[1]) <= tol:
            continue
        if walls.distance(shapely.Point((p + q) / 2)) > tol:
            return False
    return True


def check_wavefront(area, seed, merge):
    """The chapter's properties of the regions of ``area``."""
    regions = wavefront_regions(area, seed=seed, merge=merge)
    size = max(area.bounds[2] - area.bounds[0], area.bounds[3] - area.bounds[1])
    check_regions(regions, area, exact_convex=False)
    assert most_meeting(regions, size) <= 5
    if merge:                   # unmerged regions may outnumber the triangles by a few
        assert len(regions) <= cdt_triangles(area)
    else:                       # the documented order: a box cut only along walls
        assert all(sides_on_walls(r, area, 1e-9 * size) for r in regions)


@pytest.mark.parametrize("world", range(4))
@pytest.mark.parametrize("merge", [False, True])
def test_regions_cover_random_worlds_exactly_without_overlap(world, merge):
    check_wavefront(random_world(world), world, merge)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=st.integers(0, 2**20), seed=st.integers(0, 2**31), merge=st.booleans(),
       obstacles=st.integers(0, 12))
def test_regions_cover_hypothesis_worlds(world, seed, merge, obstacles):
    check_wavefront(random_world(world, obstacles), seed, merge)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=seeded_grids(max_side=14), seed=st.integers(0, 2**31), merge=st.booleans())
def test_regions_cover_the_cells_of_random_grids(grid, seed, merge):
    # Passable cells touching at corners only, one-cell corridors, several parts.
    check_wavefront(walkable_area(grid), seed, merge)


@pytest.mark.slow
@pytest.mark.parametrize("name", movingai_names("dao/den312d"))
def test_a_moving_ai_map_is_covered_by_fewer_regions_than_triangles(name):
    area = walkable_area(movingai_grid(name))
    mesh = NavMesh.build(area, method="wavefront")
    regions = [mesh.polygon(i) for i in range(mesh.num_polygons)]
    check_regions(regions, area)
    assert len(regions) <= cdt_triangles(area)
    assert most_meeting(regions, max(area.bounds)) <= 5


def test_an_empty_room_is_one_region_equal_to_the_room():
    mesh = NavMesh.build(outline=[(-2, 1), (7, 1), (7, 4.5), (-2, 4.5)], method="wavefront")
    assert mesh.num_polygons == 1
    assert sorted(map(tuple, mesh.polygon(0).tolist())) == [(-2, 1), (-2, 4.5), (7, 1),
                                                             (7, 4.5)]


@pytest.mark.parametrize("seed", range(5))
def test_one_square_in_the_middle_needs_few_regions(seed):
    area = box(0, 0, 10, 10).difference(box(4, 4, 6, 6))
    mesh = NavMesh.build(area, method="wavefront", seed=seed)
    assert 4 <= mesh.num_polygons <= 8
    check_regions([mesh.polygon(i) for i in range(mesh.num_polygons)], area)


def test_a_sloped_wall_becomes_a_side_of_the_region_that_meets_it():
    # A triangle notch cut from the room's top right: the region there gains a sloped side.
    area = Polygon([(0, 0), (10, 0), (10, 6), (6, 10), (0, 10)])
    regions = wavefront_regions(area, merge=False)
    check_regions(regions, area)
    assert len(regions) == 1 and len(regions[0]) == 5


def test_the_same_seed_gives_the_same_mesh_and_seeds_change_the_start():
    area = random_world(7)
    one = NavMesh.build(area, method="wavefront", seed=11)
    two = NavMesh.build(area, method="wavefront", seed=11)
    assert np.array_equal(one.vertices, two.vertices)
    assert np.array_equal(one.polygons, two.polygons)
    others = {NavMesh.build(area, method="wavefront", seed=s).vertices.tobytes()
              for s in range(4)}
    assert len(others) > 1


DEGENERATE = {
    "collinear outline corners": Polygon([(0, 0), (3, 0), (6, 0), (10, 0), (10, 5),
                                          (10, 10), (0, 10), (0, 5)]),
    "collinear hole corners": Polygon(
        [(0, 0), (10, 0), (10, 10), (0, 10)], [[(3, 3), (5, 3), (7, 3), (7, 7), (3, 7)]]),
    "holes touching at a corner": Polygon(
        [(0, 0), (10, 0), (10, 10), (0, 10)],
        [[(2, 2), (5, 2), (5, 5), (2, 5)], [(5, 5), (8, 6), (6, 8)]]),
    "hole touching the outline": Polygon(
        [(0, 0), (10, 0), (10, 10), (0, 10)], [[(0, 5), (3, 4), (3, 6)]]),
    "sliver hole": Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
                           [[(1, 5), (9, 5.001), (9, 5.0015)]]),
    "sliver room": Polygon([(0, 0), (10, 0.0), (10, 1e-3), (0, 2e-3)]),
    "thin corridor at a slant": Polygon([(0, 0), (10, 9.99), (10, 10), (0, 0.01)]),
    "comb": Polygon([(0, 0), (9, 0), (9, 3)] + [(x, y) for i in range(8, 0, -2)
                                                 for x, y in ((i, 3), (i, 1), (i - 1, 1),
                                                              (i - 1, 3))] + [(0, 3)]),
}


@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_input_is_covered_without_a_crash(name):
    area = DEGENERATE[name]
    assert area.is_valid
    for merge in (False, True):
        regions = wavefront_regions(area, merge=merge)
        check_regions(regions, area, exact_convex=False)
    mesh = NavMesh.build(area, method="wavefront")
    assert mesh.polygon_areas().sum() == pytest.approx(area.area, rel=1e-9)


#: A valid outline whose regions met a cut rounded back onto their own corner (a ring
#: folding on itself that GEOS's union could not place).
FOLDING = Polygon([(0.0, 60.0), (60.0, 36.0), (69.5547580414302, 36.0),
                   (53.69111504562248, 26.365935300124633),
                   (81.77070923533832, 11.423172058080274),
                   (82.6942855603357, 4.430304389874873), (100.0, 13.353165993995905),
                   (100.0, 0.0), (2.684691724893195, 7.295476895514737),
                   (1.1057483004088737, 0.0)])


@pytest.mark.parametrize(("area", "offset"), [
    (FOLDING, 0.0),
    (box(0, 0, 10, 10).difference(box(2, 2, 4, 4)), 1e9),
    (box(0, 0, 0.01, 0.01).difference(box(0.002, 0.002, 0.004, 0.004)), 1e7),
    (box(0, 0, 1e-6, 1e-6).difference(box(2e-7, 2e-7, 4e-7, 4e-7)), 0.0),
])
def test_regions_cover_folding_cuts_far_and_small_worlds(area, offset):
    far = shapely.affinity.translate(area, offset, offset)
    area = shapely.affinity.translate(far, -offset, -offset)    # exactly, as the regions
    for merge in (False, True):                 # checked back at the origin
        regions = [r - offset for r in wavefront_regions(far, merge=merge)]
        check_regions(regions, area, exact_convex=False)
    mesh = NavMesh.build(far, method="wavefront")
    assert mesh.polygon_areas().sum() == pytest.approx(area.area, rel=1e-9)


def test_an_area_thinner_than_the_welding_tolerance_is_refused():
    with pytest.raises(InvalidGeometryError, match="nowhere wider than"):
        NavMesh.build(box(0, 0, 1, 1e-12), method="wavefront")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"seed": True}, "seed"),
    ({"merge": "yes"}, "merge"),
    ({"merge": 1}, "merge"),
    ({"method": "delaunay", "seed": 3}, "wavefront"),
    ({"method": "subtractive", "merge": False}, "wavefront"),
])
def test_bad_options_are_refused(kwargs, match):
    kwargs = {"method": "wavefront", **kwargs}
    with pytest.raises(InvalidGeometryError, match=match):
        NavMesh.build(box(0, 0, 10, 10), **kwargs)


@pytest.mark.parametrize(("area", "kwargs", "match"), [
    (3, {}, "cannot read a walkable area"),
    ("POLYGON ((0 0, 4 4, 4 0, 0 4, 0 0))", {}, "invalid walkable area"),
    (box(0, 0, 1, 1), {"seed": -2}, "seed"),
    (box(0, 0, 1, 1), {"merge": None}, "merge"),
])
def test_the_regions_function_refuses_bad_input(area, kwargs, match):
    with pytest.raises(InvalidGeometryError, match=match):
        wavefront_regions(area, **kwargs)


def test_an_invalid_area_is_refused():
    with pytest.raises(InvalidGeometryError, match="invalid walkable area"):
        NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
                      holes=[[(-2, 4), (3, 4), (3, 6), (-2, 6)]], method="wavefront")


def test_paths_on_the_mesh_are_found_and_no_shorter_than_the_exact_ones():
    area = random_world(3)
    mesh = NavMesh.build(area, method="wavefront")
    exact = VisibilityMap(area)
    rng = np.random.default_rng(0)
    points = [p for p in rng.uniform([0, 0], [40, 30], (60, 2))
              if area.contains(shapely.Point(p))][:20]
    for start, goal in zip(points[::2], points[1::2], strict=False):
        r, best = mesh.find_path(start, goal), exact.find_path(start, goal)
        assert r.found and best.found
        assert r.cost >= best.cost - 1e-9
        assert r.cost <= 1.5 * best.cost + 1e-9
        assert area.buffer(1e-9).covers(shapely.LineString(r.path))


def test_the_crowd_manager_walks_agents_across_the_mesh():
    from wayfinding.crowd.navigator import ARRIVED, Navigator

    area = box(0, 0, 20, 12).difference(shapely.affinity.rotate(box(8, 3, 12, 9), 30))
    nav = Navigator(NavMesh.build(area, radius=0.3, method="wavefront"))
    ids = [nav.add((1.5, 1.5 + 3 * k), target=(18.5, 10.5 - 3 * k), radius=0.3,
                   max_speed=1.5) for k in range(3)]
    for _ in range(600):
        nav.update(0.05)
    assert [nav.state(a) for a in ids] == [ARRIVED] * 3


def test_the_mesh_is_drawn():
    from wayfinding.viz import render_world_svg

    mesh = NavMesh.build(random_world(1), method="wavefront")
    r = mesh.find_path((1, 1), (39, 29))
    svg = render_world_svg(mesh, path=r, start=r.start, goal=r.goal)
    assert svg.startswith("<svg") and svg.count("<polygon") >= mesh.num_polygons
