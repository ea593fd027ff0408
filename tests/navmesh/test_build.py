"""Navigation-mesh building: the polygons cover the walkable area exactly (areas and union
agree with shapely), are convex, counter-clockwise and capped in size; adjacency is
symmetric; every input form gives the same mesh; bad input gets a clear error."""

import json
import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPolygon, Polygon, box, mapping

from wayfinding.errors import InvalidGeometryError
from wayfinding.geometry import orient2d
from wayfinding.grid import Grid, generate
from wayfinding.navmesh import NavMesh, walkable_area
from wayfinding.navmesh.build import merge_convex, triangulate


def check_mesh(mesh, area, max_verts=6, convex_tol=0.0):
    """Exact convexity unless ``convex_tol`` allows cross products down to -tol x scale²
    (cut points are rounded)."""
    geoms = [Polygon(mesh.polygon(i)) for i in range(mesh.num_polygons)]
    areas = mesh.polygon_areas()
    assert (areas > 0).all()
    assert areas.sum() == pytest.approx(area.area, rel=1e-9, abs=1e-9)
    union = shapely.union_all(geoms)
    assert union.symmetric_difference(area).area <= 1e-9 * max(area.area, 1.0)
    for i in range(mesh.num_polygons):
        k = mesh.sizes[i]
        assert 3 <= k <= max_verts
        assert (mesh.polygons[i, k:] == -1).all() and (mesh.neighbours[i, k:] == -1).all()
        p = mesh.polygon(i)
        if convex_tol:
            a, c = np.roll(p, 1, axis=0), np.roll(p, -1, axis=0)
            cross = (p[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (p[:, 1] - a[:, 1]) * (
                c[:, 0] - a[:, 0])
            scale = max(np.ptp(mesh.vertices, axis=0).max(), 1.0)
            assert (cross >= -convex_tol * scale**2).all()
        else:
            assert (orient2d(np.roll(p, 1, axis=0), p, np.roll(p, -1, axis=0)) >= 0).all()
        for e in range(k):
            j = mesh.neighbours[i, e]
            if j < 0:
                continue
            u, v = mesh.polygons[i, e], mesh.polygons[i, (e + 1) % k]
            kj = mesh.sizes[j]
            back = [f for f in range(kj) if mesh.polygons[j, f] == v
                    and mesh.polygons[j, (f + 1) % kj] == u]
            assert len(back) == 1 and mesh.neighbours[j, back[0]] == i


def test_square_with_a_hole():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
                         holes=[[(4, 4), (6, 4), (6, 6), (4, 6)]])
    check_mesh(mesh, box(0, 0, 10, 10).difference(box(4, 4, 6, 6)))
    # A square ring needs 4 convex pieces at least; Hertel-Mehlhorn finds 4.
    assert mesh.num_polygons == 4
    assert (mesh.neighbours >= 0).sum() == 8


@st.composite
def worlds(draw):
    """A box with random rectangular and triangular holes (overlapping, touching the border
    or each other, sliver-thin), plus collinear and repeated outline vertices."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = draw(st.sampled_from([10.0, 1e4, 1e7]))
    holes = []
    for _ in range(draw(st.integers(0, 12))):
        x, y = rng.random(2) * size
        w, h = rng.random(2) * size / 5 + size * 1e-6
        if rng.random() < 0.3:
            holes.append(Polygon([(x, y), (x + w, y), (x, y + h)]))
        else:
            holes.append(box(x, y, x + w, y + h))
    outline = Polygon([(0, 0), (size / 2, 0), (size / 2, 0), (size, 0), (size, size),
                       (0, size), (0, size / 3)])
    area = outline.difference(shapely.union_all(holes)) if holes else outline
    return area


def polygonal(area):
    """The polygons of a valid version of ``area`` (None when nothing is left)."""
    area = shapely.make_valid(area)
    polys = [g for g in getattr(area, "geoms", [area]) if isinstance(g, Polygon)
             and g.area > 0]
    return None if not polys else MultiPolygon(polys) if len(polys) > 1 else polys[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(area=worlds(), max_verts=st.sampled_from([3, 4, 6, 8]))
def test_random_worlds_are_covered_exactly(area, max_verts):
    area = polygonal(area)
    if area is None:
        return
    mesh = NavMesh.build(area, max_verts=max_verts)
    check_mesh(mesh, area, max_verts)


def test_merging_reduces_the_triangles():
    grid = generate.caves(48, 48, fill=0.35, seed=2)
    area = walkable_area(grid)
    verts, tris = triangulate(area)
    polys = merge_convex(verts, tris, 6)
    assert len(polys) < 0.6 * len(tris)
    mesh = NavMesh.build(grid)
    assert mesh.polygon_areas().sum() == pytest.approx(grid.passable.sum())
    check_mesh(mesh, area)


@pytest.mark.parametrize("max_verts, want", [
    (8, [[5, 6, 7, 0, 1, 2, 3, 4]]),
    (6, [[6, 7, 0, 1, 2, 5], [2, 3, 4, 5]]),        # a second join would have 8 corners
])
def test_merging_takes_convex_polygons_of_any_size(max_verts, want):
    # Three unit squares in a row; the shared edges tie in length, so vertex ids decide.
    verts = np.array([[0, 0], [1, 0], [2, 0], [3, 0], [3, 1], [2, 1], [1, 1], [0, 1]], float)
    squares = [[0, 1, 6, 7], [1, 2, 5, 6], [2, 3, 4, 5]]
    assert merge_convex(verts, squares, max_verts) == want
    assert merge_convex(verts, np.array(squares), max_verts) == want


def test_merging_single_edges_leaves_apart_polygons_sharing_a_run_of_edges():
    # A and B share the two edges of x = 1 split at (1, 0.5); B and C share one edge.
    verts = np.array([[0, 0], [1, 0], [1, 0.5], [1, 1], [0, 1], [2, 0], [2, 1], [3, 0],
                      [3, 1]], float)
    a, b, c = [0, 1, 2, 3, 4], [1, 5, 6, 3, 2], [5, 7, 8, 6]
    assert merge_convex(verts, [a, b, c], 16, single_edge=True) == [a, [6, 3, 2, 1, 5, 7, 8]]


def test_merging_keeps_a_reflex_join_apart():
    # An L of two rectangles: their union is not convex.
    verts = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [0, 1], [1, 3], [0, 3]], float)
    polys = [[0, 1, 2, 3, 4], [4, 3, 5, 6]]
    assert merge_convex(verts, polys, 16) == polys


def test_grid_area_follows_origin_and_cell_size():
    grid = Grid.from_ascii("..#\n...\n#..", origin=(10.0, -5.0), cell_size=2.0)
    area = walkable_area(grid)
    assert area.area == pytest.approx(7 * 4.0)
    assert area.bounds == (10.0, -5.0, 16.0, 1.0)


def test_radius_erodes_every_boundary():
    area = box(0, 0, 10, 10).difference(box(4, 4, 6, 6))
    mesh = NavMesh.build(area, radius=0.5)
    want = area.buffer(-0.5, quad_segs=4)
    check_mesh(mesh, want)
    verts = mesh.vertices
    assert verts.min() == pytest.approx(0.5) and verts.max() == pytest.approx(9.5)
    # No vertex is closer than the radius to the hole.
    assert shapely.distance(shapely.points(verts), box(4, 4, 6, 6)).min() >= 0.5 - 1e-9
    with pytest.raises(InvalidGeometryError, match="nothing is left"):
        NavMesh.build(area, radius=6)


@pytest.mark.parametrize("radius", [0.0, 0.5])
@pytest.mark.parametrize("regions", [(), [(box(1, 1, 3, 3), 2, 4)]])
def test_valid_area_is_checked_once_and_never_repaired(monkeypatch, radius, regions):
    """The input is validated; GEOS's erosion and overlays give valid polygons, so building
    repairs nothing (make_valid on a large area costs as much as the rest of the build)."""
    repairs = []
    make_valid = shapely.make_valid
    monkeypatch.setattr(shapely, "make_valid",
                        lambda *a, **k: repairs.append(a) or make_valid(*a, **k))
    area = box(0, 0, 10, 10).difference(box(4, 4, 6, 6))
    mesh = NavMesh.build(area, radius=radius, regions=regions)
    check_mesh(mesh, area.buffer(-radius, quad_segs=4) if radius else area)
    assert repairs == []


def test_every_input_form_gives_the_same_mesh():
    area = box(0, 0, 8, 6).difference(box(2, 2, 3, 5))
    ref = NavMesh.build(area)
    forms = [area.wkt, mapping(area), json.dumps(mapping(area)),
             {"type": "Feature", "geometry": mapping(area), "properties": {}},
             {"type": "FeatureCollection",
              "features": [{"type": "Feature", "geometry": mapping(area)}]}]
    for form in forms:
        mesh = NavMesh.build(form)
        assert np.array_equal(mesh.vertices, ref.vertices)
        assert np.array_equal(mesh.polygons, ref.polygons)
    rings = NavMesh.build(outline=[(0, 0), (0, 6), (8, 6), (8, 0)],     # clockwise outline
                          holes=[[(2, 2), (3, 2), (3, 5), (2, 5), (2, 2)]])  # closed ring
    assert rings.polygon_areas().sum() == pytest.approx(area.area)


@pytest.mark.parametrize("kwargs, match", [
    ({"outline": [(0, 0), (2, 2), (2, 0), (0, 2)]}, "Self-intersection"),
    ({"outline": [(0, 0), (4, 0), (4, 4), (0, 4)], "holes": [[(5, 5), (6, 5), (6, 6)]]},
     "Hole lies outside shell"),
    ({"outline": [(0, 0), (1, 0), (float("nan"), 1)]}, "finite"),
    ({"outline": [(0, 0), (1e40, 0), (0, 1)]}, "magnitude"),
    ({"outline": [(0, 0), (1, 0), (1, 0)]}, "3 distinct"),
    ({"outline": [0, 1, 2]}, "shape"),
    ({"outline": [(0, 0), (4, 0), (0, 4)], "holes": 5}, "list of rings"),
    ({"outline": [(0, 0), (4, 0), (0, 4)], "holes": "ring"}, "list of rings"),
    ({"area": "POLYGON ((0 0, 1 0"}, "WKT"),
    ({"area": "LINESTRING (0 0, 1 1)"}, "Polygon or MultiPolygon"),
    ({"area": {"type": "Point", "coordinates": [0, 0]}}, "GeoJSON type"),
    ({"area": 42}, "cannot read"),
    ({}, "either"),
    ({"area": Grid.from_ascii("##\n##")}, "no passable"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(InvalidGeometryError, match=match):
        NavMesh.build(**kwargs)


@pytest.mark.parametrize("kwargs, match", [
    ({"max_verts": 2}, "max_verts"), ({"max_verts": 4.0}, "max_verts"),
    ({"radius": -1}, "radius"), ({"radius": float("inf")}, "radius"),
    ({"quad_segs": 0}, "quad_segs"), ({"method": "voronoi"}, "method"),
    ({"cell_size": 1.0}, "subtractive"),
    ({"method": "subtractive", "cell_size": 0}, "cell_size"),
    ({"method": "subtractive", "cell_size": -1.0}, "cell_size"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(InvalidGeometryError, match=match):
        NavMesh.build(box(0, 0, 1, 1), **kwargs)


SQUARE = {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}


def nested(depth, inner=None, wrap=lambda x: [x]):
    out = [] if inner is None else inner
    for _ in range(depth):
        out = wrap(out)
    return out


@pytest.mark.parametrize("area", [
    "[" * 10_000 + "]" * 10_000,
    "{" + '"a":{' * 10_000 + "}" * 10_001,
    {"type": "Polygon", "coordinates": nested(10_000)},
    nested(10_000, SQUARE, lambda x: {"type": "Feature", "geometry": x}),
    nested(10_000, SQUARE, lambda x: {"type": "FeatureCollection", "features": [x]}),
    '{"type": 5}', {"type": 5}, '{"type": "Polygon", "coordinates": [[[0, 0], [1, 0]',
    '{"type": "Polygon"', "{nonsense}", '{"type": "Polygon", "coordinates": 5}',
    {"type": "Polygon", "coordinates": [[["a", "b"], [1, 0], [1, 1]]]},
    {"type": "Polygon", "coordinates": [[[0, 0], [1, None], [1, 1]]]},
    {"type": "Polygon", "coordinates": None},
    {"type": "FeatureCollection", "features": 5},
    {"type": "FeatureCollection", "features": [5]},
    {"type": "Feature", "geometry": 5},
    {"type": "MultiPolygon", "coordinates": [[[[0, 0]]]]},
    "POLYGON " + "(" * 10_000 + "0 0, 1 0, 1 1, 0 0" + ")" * 10_000,
    "POLYGON ((0 0, 1 0, banana))", "GARBAGE", "", "\x00\xff", "POLYGON EMPTY",
    "POINT (nan nan)", "POLYGON ((0 0, 1e400 0, 1 1, 0 0))",
    {"type": "Polygon", "coordinates": [[[0, 0], [1e400, 0], [1, 1], [0, 0]]]},
    json.dumps({"type": "FeatureCollection", "features": [{"type": "Feature",
                                                           "geometry": SQUARE}] * 2})[:-3],
], ids=lambda a: a[:30] if isinstance(a, str) else None)
def test_garbage_geometry_is_an_invalid_geometry_error(area):
    with pytest.raises(InvalidGeometryError):
        NavMesh.build(area)


@pytest.mark.parametrize("kwargs, match", [
    ({"max_verts": 10**9}, "MAX_CELLS"),
    ({"max_verts": 10**30}, "max_verts .* must be an integer >= 3"),
    ({"method": "subtractive", "cell_size": 1e-6}, "MAX_PIECES"),
    ({"radius": 0.1, "quad_segs": 10**8}, "MAX_CELLS"),
])
def test_absurd_sizes_are_refused_before_allocating(kwargs, match):
    with pytest.raises(InvalidGeometryError, match=match):
        NavMesh.build(box(0, 0, 10, 10), **kwargs)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(area=worlds(), cell=st.sampled_from([None, 0.15, 0.4]))
def test_subtractive_builder_covers_exactly(area, cell):
    area = polygonal(area)
    if area is None:
        return
    size = max(area.bounds[2] - area.bounds[0], area.bounds[3] - area.bounds[1])
    mesh = NavMesh.build(area, method="subtractive",
                         cell_size=None if cell is None else cell * size)
    check_mesh(mesh, area, mesh.max_verts, convex_tol=1e-9)


def test_subtractive_cuts_and_welds():
    # One square hole in a square: the four sides' pieces, joined without T-junctions.
    area = box(0, 0, 10, 10).difference(box(4, 4, 6, 6))
    mesh = NavMesh.build(area, method="subtractive")
    check_mesh(mesh, area, mesh.max_verts)
    assert mesh.num_polygons == 4
    assert (mesh.neighbours >= 0).sum() == 8            # every cut is a shared edge
    gridded = NavMesh.build(area, method="subtractive", cell_size=2.5)
    check_mesh(gridded, area, gridded.max_verts)
    assert gridded.num_polygons == 12 + 4 * 2           # the 4 cells the hole cuts: 2 each
    r = gridded.find_path((1, 5), (9, 5))
    assert r.found and r.cost == pytest.approx(2 * math.hypot(3, 1) + 2)


@pytest.mark.parametrize("method", ["delaunay", "subtractive"])
def test_regions_mark_area_types(method):
    hall = box(0, 0, 20, 12).difference(box(9, 2, 11, 10))
    water, mud = box(0, 10, 20, 12), Polygon([(12, 0), (20, 0), (20, 11), (12, 11)])
    mesh = NavMesh.build(hall, method=method, regions=[(water, 3, 2), (mud.wkt, 5, 4)])
    check_mesh(mesh, hall, mesh.max_verts, convex_tol=1e-9 if method == "subtractive" else 0)
    for i in range(mesh.num_polygons):
        g = Polygon(mesh.polygon(i))
        inside_mud = mud.buffer(1e-9).covers(g)
        inside_water = water.buffer(1e-9).covers(g) and not inside_mud
        want = (5, 4) if inside_mud else (3, 2) if inside_water else (0, 1)
        assert (mesh.areas[i], mesh.flags[i]) == want
        assert inside_mud or inside_water or not g.intersection(water.union(mud)).area > 1e-9
    assert mesh.polygon_areas()[mesh.areas == 5].sum() == pytest.approx(
        hall.intersection(mud).area)
    assert mesh.find_path((1, 11), (19, 11)).found        # across the region borders


def test_bad_regions():
    for regions, match in (([(box(0, 0, 1, 1), 300, 1)], "area id"),
                           ([(box(0, 0, 1, 1), 1, -1)], "flags"),
                           ([(box(0, 0, 1, 1), 1)], "shape, area_id, flags"),
                           ([("POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))", 1, 1)], "Self-int")):
        with pytest.raises(InvalidGeometryError, match=match):
            NavMesh.build(box(0, 0, 4, 4), regions=regions)


def signed_area(loop):
    x, y = loop.T
    return 0.5 * float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(area=worlds())
def test_boundary_loops_are_the_walls_with_the_walkable_side_on_the_right(area):
    """Every wall edge once, reversed, in closed loops: they enclose minus the walkable area
    (clockwise outside, counter-clockwise round holes) and are as long as its boundary."""
    area = polygonal(area)
    if area is None:
        return
    mesh = NavMesh.build(area)
    loops = mesh.boundary()
    walls = {(int(mesh.polygons[p, (k + 1) % mesh.sizes[p]]), int(mesh.polygons[p, k]))
             for p, k in zip(*np.nonzero((mesh.neighbours < 0)
                                         & (np.arange(mesh.max_verts) < mesh.sizes[:, None])))}
    index = {tuple(v): i for i, v in enumerate(mesh.vertices.tolist())}
    edges = [(index[tuple(a)], index[tuple(b)]) for loop in loops
             for a, b in zip(loop.tolist(), np.roll(loop, -1, axis=0).tolist())]
    assert len(edges) == len(set(edges)) and set(edges) == walls
    assert sum(signed_area(loop) for loop in loops) == pytest.approx(-area.area, rel=1e-9)
    length = sum(float(np.hypot(*(np.roll(loop, -1, axis=0) - loop).T).sum()) for loop in loops)
    assert length == pytest.approx(area.boundary.length, rel=1e-9)


def test_boundary_of_a_room_with_a_pillar_and_of_a_pinch():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
                         holes=[[(4, 4), (6, 4), (6, 6), (4, 6)]])
    loops = sorted(mesh.boundary(), key=signed_area)
    assert [signed_area(loop) for loop in loops] == [-100.0, 4.0]
    for loop in loops:                        # just right of each edge's middle: walkable
        a, b = loop, np.roll(loop, -1, axis=0)
        mid, d = (a + b) / 2, b - a
        right, left = mid + 0.01 * np.stack([d[:, 1], -d[:, 0]], 1), \
            mid - 0.01 * np.stack([d[:, 1], -d[:, 0]], 1)
        assert (mesh.locate_many(right) >= 0).all() and (mesh.locate_many(left) < 0).all()
    # Two squares touching at (2, 2): two loops, each round its own square.
    v = np.array([(0, 0), (2, 0), (2, 2), (0, 2), (4, 2), (4, 4), (2, 4)], float)
    pinch = NavMesh(v, np.array([[0, 1, 2, 3], [2, 4, 5, 6]]), np.array([4, 4]))
    loops = pinch.boundary()
    assert [signed_area(loop) for loop in loops] == [-4.0, -4.0]
    assert sorted(sorted(map(tuple, loop.tolist())) for loop in loops) == [
        [(0, 0), (0, 2), (2, 0), (2, 2)], [(2, 2), (2, 4), (4, 2), (4, 4)]]
