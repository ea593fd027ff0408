"""Surface queries against shapely: raycast hits, distance to walls, sliding moves, polygons
around a circle, random points (on the mesh, by area, inside the disc); bad input."""

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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
    pts = np.array([mesh.random_point(rng=rng)[1] for _ in range(3000)])
    assert (mesh.locate_many(pts) >= 0).all()
    left = area.intersection(box(*area.bounds[:2], 10, area.bounds[3])).area / area.area
    assert abs((pts[:, 0] < 10).mean() - left) < 0.04
    c = sample_points(area, rng, 1)[0]
    for _ in range(50):
        p, (x, y) = mesh.random_point(rng=rng, centre=c, radius=2.0)
        assert math.hypot(x - c[0], y - c[1]) <= 2.0 and mesh.locate((x, y)) >= 0
    assert mesh.random_point(rng=1) == mesh.random_point(rng=1)


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
    lambda m: m.random_point(rng=0, centre=(1, 1)),
    lambda m: m.move_along_surface([(1, 1), (2, 2)], (3, 3)),
    lambda m: m.random_point(rng=0, filter=QueryFilter(include=0)),
])
def test_bad_input(call):
    with pytest.raises(InvalidQueryError):
        call(NavMesh.build(box(0, 0, 4, 4)))


def first_exit(area, s, e):
    """The largest t in [0, 1] such that the segment from s to s + t (e - s) stays in the
    (closed) area; inf when all of it does."""
    seg = LineString([s, e])
    outside = seg.difference(area)
    parts = [g for g in getattr(outside, "geoms", [outside])
             if not g.is_empty and g.length > 1e-12 * seg.length]
    if not parts:
        return math.inf
    return min(seg.project(Point(g.coords[0])) for g in parts) / seg.length


def doorway_room(low, high):
    # A wall at x 1.9..2.1 with a doorway at y low..high: the merge leaves a polygon whose
    # wall edges and doorway edge lie on one line.
    return box(0, 0, 4, 2) - box(1.9, 0, 2.1, low) - box(1.9, high, 2.1, 2)


@pytest.mark.parametrize("low, high, s, e", [
    (0.8, 1.2, (3.453, 1.083), (1.199, 0.845)),      # through the doorway: no wall
    (0.2, 0.6, (0.607, 0.048), (3.557, 0.249)),      # into the wall beside the doorway
])
def test_raycast_with_a_wall_and_a_doorway_on_one_line(low, high, s, e):
    area = doorway_room(low, high)
    r = NavMesh.build(area).raycast(s, e)
    t_ref = first_exit(area, s, e)
    assert r.hit == math.isfinite(t_ref)
    if r.hit:
        assert r.t == pytest.approx(t_ref, rel=1e-9)


@st.composite
def awkward_worlds(draw):
    """Rooms of grid-aligned boxes (many edges on shared lines), slivers, pairs of holes
    almost touching, and outlines with extra vertices along their edges."""
    size = 8.0
    holes = []
    for _ in range(draw(st.integers(1, 6))):
        x, y = draw(st.integers(0, 7)), draw(st.integers(0, 7))
        w, h = draw(st.integers(1, 3)), draw(st.sampled_from([1.0, 2.0, 1e-3]))
        holes.append(box(x, y, x + w, y + h))
        kind = draw(st.sampled_from(["none", "near", "beside"]))
        if kind == "near":        # a second hole a hair's breadth away
            gap = draw(st.sampled_from([1e-6, 1e-4]))
            holes.append(box(x + w + gap, y, x + w + gap + 1, y + h))
        elif kind == "beside":    # a second hole in line, leaving a doorway
            holes.append(box(x, y + h + 0.5, x + w, y + h + 1.5))
    area = box(0, 0, size, size).difference(shapely.union_all(holes))
    parts = [g for g in getattr(area, "geoms", [area]) if isinstance(g, Polygon)]
    area = max(parts, key=lambda g: g.area)
    if draw(st.booleans()):
        area = shapely.segmentize(area, draw(st.sampled_from([0.5, 1.5])))
    return area, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(awkward_worlds())
def test_raycast_matches_shapely_on_awkward_worlds(world):
    area, seed = world
    mesh = NavMesh.build(area)
    rng = np.random.default_rng(seed)
    starts = sample_points(area, rng, 30)
    x0, y0, x1, y1 = area.bounds
    ends = rng.random(starts.shape) * [x1 - x0, y1 - y0] + [x0, y0]
    # Half the rays pass exactly through a corner of the mesh (not one where two walls
    # touch: the mesh does not join the polygons on either side of such a pinch).
    rings = [area.exterior, *area.interiors]
    corners = np.concatenate([np.asarray(r.coords)[:-1] for r in rings])
    _, inverse, counts = np.unique(corners, axis=0, return_inverse=True, return_counts=True)
    pinched = {tuple(c) for c in corners[counts[inverse.ravel()] > 1].tolist()}
    fine = [v for v in mesh.vertices.tolist() if tuple(v) not in pinched]
    through = np.array(fine)[rng.integers(len(fine), size=len(starts) // 2)]
    ends[::2] = starts[::2] + rng.choice([1.5, 3.0], size=(len(through), 1)) * (
        through - starts[::2])
    for s, e in zip(starts, ends, strict=True):
        if mesh.locate(s) < 0:
            continue
        r = mesh.raycast(s, e)
        t_ref = first_exit(area, s, e)
        assert r.hit == math.isfinite(t_ref), (s, e, r.t, t_ref)
        if r.hit:
            assert r.t == pytest.approx(t_ref, rel=1e-9), (s, e)
