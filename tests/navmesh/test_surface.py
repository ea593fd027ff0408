"""Surface queries against shapely: raycast hits, distance to walls, sliding moves, polygons
around a circle, random points (on the mesh, by area, inside the disc); bad input."""

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.ops import nearest_points
from test_query import random_world, sample_points

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import NavMesh, QueryFilter


@pytest.fixture(scope="module")
def world():
    area = random_world(11, n_holes=12)
    return area, NavMesh.build(area)


def test_raycast_matches_the_first_boundary_crossing(world):
    area, mesh = world
    rng = np.random.default_rng(4)
    starts = sample_points(area, rng, 150)
    ends = starts + rng.normal(0, 6, starts.shape)
    hits = 0
    for s, e in zip(starts, ends, strict=True):
        r = mesh.raycast(s, e)
        seg = LineString([s, e])
        if area.covers(seg):
            assert not r.hit and r.point == tuple(e)
            continue
        hits += 1
        crossing = seg.intersection(area.boundary)
        t_ref = min(Point(s).distance(g) for g in getattr(crossing, "geoms", [crossing]))
        t_ref /= math.hypot(*(e - s))
        assert r.hit and r.t == pytest.approx(t_ref, abs=1e-9)
        assert area.boundary.distance(Point(r.point)) <= 1e-9
        n = np.array(r.normal)
        assert abs(np.hypot(*n) - 1) < 1e-12 and n @ (e - s) < 0   # facing the ray
    assert hits > 30


def test_distance_to_wall_matches_the_boundary(world):
    area, mesh = world
    for p in sample_points(area, np.random.default_rng(5), 80):
        w = mesh.distance_to_wall(p, 100.0)
        assert w.distance == pytest.approx(area.boundary.distance(Point(p)), abs=1e-9)
        assert math.hypot(*(np.array(w.point) - p)) == pytest.approx(w.distance)
        near = mesh.distance_to_wall(p, w.distance * 0.5)
        assert math.isinf(near.distance)


def test_move_along_surface(world):
    area, mesh = world
    rng = np.random.default_rng(6)
    for s in sample_points(area, rng, 100):
        t = s + rng.normal(0, 0.7, 2)
        p, visited = mesh.move_along_surface(s, t)
        assert area.buffer(1e-9).covers(Point(p))
        if area.covers(LineString([s, t])):
            assert p == tuple(t)
        else:
            assert math.hypot(*(np.array(p) - t)) <= math.hypot(*(s - t)) + 1e-12
        polys = [Polygon(mesh.polygon(i)).buffer(1e-9) for i in visited]
        assert any(g.covers(Point(p)) for g in polys)
    # A wall straight ahead: the move slides along it instead of passing.
    hall = NavMesh.build(box(0, 0, 20, 12).difference(box(9, 2, 11, 10)))
    p, _ = hall.move_along_surface((8.5, 6), (9.5, 6.5))
    assert p == pytest.approx((9.0, 6.5))


@pytest.mark.parametrize("target", [
    (12.0, 3.0), (3.0, 1.5), (1e9, 1.0), (1e12, 1.0), (1e15, 5.0), (-3e13, -2e13),
    (1e300, 1e300), (2.0, -1e200),
])
def test_move_along_surface_toward_a_far_target(target):
    # A target farther than the mesh's bounding-box diagonal is first brought to that
    # distance along the same line, where the nearest wall point is well defined in floats.
    area = box(0, 0, 10, 10).difference(box(4, 4, 6, 6))
    mesh = NavMesh.build(area)
    start = np.array([1.0, 1.0])
    x0, y0, x1, y1 = area.bounds
    reach = math.hypot(x1 - x0, y1 - y0)
    d = np.subtract(target, start)
    near = start + d * min(1.0, reach / np.hypot(*d))
    p, _ = mesh.move_along_surface(start, target)
    if area.covers(LineString([start, near])):
        assert p == tuple(near)
    else:
        expect = nearest_points(area.boundary, Point(near))[0]
        assert p == pytest.approx((expect.x, expect.y), abs=1e-9)


def test_polygons_in_circle(world):
    area, mesh = world
    c = sample_points(area, np.random.default_rng(7), 1)[0]
    polys, parents, costs = mesh.polygons_in_circle(c, 1e6)
    comp = shapely.union_all([Polygon(mesh.polygon(i)) for i in polys])
    assert comp.area == pytest.approx(area.area)          # one connected part: all of it
    assert parents[0] == -1 and (np.diff(costs) >= -1e-12).all()
    for p, q in zip(polys[1:], parents[1:], strict=True):
        assert p in mesh.neighbours[q]
    small, _, _ = mesh.polygons_in_circle(c, 0.0)
    assert small.tolist() == [mesh.locate(c)]


def test_random_points(world):
    area, mesh = world
    rng = np.random.default_rng(8)
    pts = np.array([mesh.random_point(rng)[1] for _ in range(3000)])
    assert (mesh.locate(pts) >= 0).all()
    left = area.intersection(box(*area.bounds[:2], 10, area.bounds[3])).area / area.area
    assert abs((pts[:, 0] < 10).mean() - left) < 0.04
    c = sample_points(area, rng, 1)[0]
    for _ in range(50):
        p, (x, y) = mesh.random_point(rng, centre=c, radius=2.0)
        assert math.hypot(x - c[0], y - c[1]) <= 2.0 and mesh.locate((x, y)) >= 0
    assert mesh.random_point(1) == mesh.random_point(1)


def test_filters_make_walls():
    # Notches at x = 10 make the polygons meet there.
    notched = box(0, 0, 20, 4).difference(box(9.9, 3.9, 10.1, 4)).difference(
        box(9.9, 0, 10.1, 0.1))
    mesh = NavMesh.build(notched, max_verts=4)
    east = mesh.centroids()[:, 0] > 10
    gated = mesh.with_areas(flags=np.where(east, 2, 1))
    f = QueryFilter(exclude=2)
    r = gated.raycast((1, 2), (19, 2), filter=f)
    assert r.hit and r.point[0] <= 10.1 + 1e-9
    assert not mesh.raycast((1, 2), (19, 2)).hit


@pytest.mark.parametrize("call", [
    lambda m: m.raycast((50, 50), (1, 1)),
    lambda m: m.distance_to_wall((1, 1), -1),
    lambda m: m.polygons_in_circle((1, 1), float("nan")),
    lambda m: m.random_point(0, centre=(1, 1)),
    lambda m: m.move_along_surface([(1, 1), (2, 2)], (3, 3)),
    lambda m: m.random_point(0, filter=QueryFilter(include=0)),
])
def test_bad_input(call):
    with pytest.raises(InvalidQueryError):
        call(NavMesh.build(box(0, 0, 4, 4)))
