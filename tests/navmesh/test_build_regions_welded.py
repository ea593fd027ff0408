"""Meshes cut along marked regions are welded where the pieces meet: on random areas with
random region polygons every interior edge has a neighbour (the walls are exactly the
area's outline and holes), the polygons stay convex and cover the area, each lies in the
area its region gives it, and paths cross region borders."""

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPolygon, Polygon, box

from wayfinding.navmesh import NavMesh


@st.composite
def marked_worlds(draw):
    """A 10 x 10 box (scaled) less random boxes and triangles, and 1..4 regions: convex
    hulls of random points or boxes, overlapping each other, the outline and the holes."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = draw(st.sampled_from([10.0, 1e4]))
    holes = []
    for _ in range(int(rng.integers(0, 6))):
        x, y = rng.random(2) * size
        w, h = (rng.random(2) * 0.2 + 0.02) * size
        holes.append(Polygon([(x, y), (x + w, y), (x, y + h)]) if rng.random() < 0.3
                     else box(x, y, x + w, y + h))
    area = box(0, 0, size, size)
    if holes:
        area = shapely.make_valid(area.difference(shapely.union_all(holes)))
        polys = [g for g in shapely.get_parts(area) if isinstance(g, Polygon) and g.area > 0]
        area = polys[0] if len(polys) == 1 else MultiPolygon(polys)
    regions = []
    for i in range(int(rng.integers(1, 5))):
        if rng.random() < 0.5:
            shape = shapely.convex_hull(shapely.MultiPoint(rng.random((6, 2)) * 1.2 * size
                                                           - 0.1 * size))
        else:
            x, y = rng.random(2) * size
            w, h = (rng.random(2) * 0.6 + 0.05) * size
            shape = box(x, y, x + w, y + h)
        regions.append((shape, i + 1, 1 << i))
    return area, regions


def wall_length(mesh):
    return sum(float(np.hypot(*(np.roll(loop, -1, axis=0) - loop).T).sum())
               for loop in mesh.boundary())


def components(mesh):
    """The polygons' connected components through shared edges, as a label per polygon."""
    label = np.full(mesh.num_polygons, -1)
    for start in range(mesh.num_polygons):
        if label[start] >= 0:
            continue
        label[start], todo = start, [start]
        while todo:
            p = todo.pop()
            for q in mesh.neighbours[p, :mesh.sizes[p]].tolist():
                if q >= 0 and label[q] < 0:
                    label[q] = start
                    todo.append(q)
    return label


@pytest.mark.parametrize("method", ["delaunay", "subtractive", "wavefront"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=marked_worlds())
def test_region_borders_are_shared_edges(method, world):
    area, regions = world
    mesh = NavMesh.build(area, method=method, regions=regions)
    assert wall_length(mesh) == pytest.approx(area.boundary.length, rel=1e-9)
    geoms = [Polygon(mesh.polygon(i)) for i in range(mesh.num_polygons)]
    assert mesh.polygon_areas().sum() == pytest.approx(area.area, rel=1e-9)
    assert shapely.union_all(geoms).symmetric_difference(area).area <= 1e-9 * area.area
    scale = float(np.ptp(mesh.vertices, axis=0).max())
    for i in range(mesh.num_polygons):
        p = mesh.polygon(i)
        a, c = np.roll(p, 1, axis=0), np.roll(p, -1, axis=0)
        cross = (p[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (p[:, 1] - a[:, 1]) * (
            c[:, 0] - a[:, 0])
        assert (cross >= -1e-9 * scale**2).all()
    # Each polygon's area is that of the last region holding its centroid (0 outside every
    # region), and the polygon lies in that region and out of every later one (exact
    # predicates: overlays of shapes touching along an edge may misjudge sides).
    tol = 1e-9 * scale
    for i, g in enumerate(geoms):
        holding = [k for k, (shape, _, _) in enumerate(regions) if shape.contains(g.centroid)]
        last = holding[-1] if holding else -1
        want = regions[last][1:] if holding else (0, 1)
        assert (mesh.areas[i], mesh.flags[i]) == want
        assert last < 0 or regions[last][0].buffer(tol).covers(g)
        assert not any(shape.buffer(-tol).intersects(g) for shape, _, _ in regions[last + 1:])
    # As many connected pieces as the area has; paths join polygons of different areas.
    label = components(mesh)
    assert len(set(label.tolist())) == len(shapely.get_parts(area))
    for comp in set(label.tolist()):
        members = np.flatnonzero(label == comp)
        ids = {int(mesh.areas[p]): p for p in members}
        if len(ids) < 2:
            continue
        (_, p), (_, q) = sorted(ids.items())[:2]
        start = np.asarray(geoms[p].representative_point().coords[0])
        goal = np.asarray(geoms[q].representative_point().coords[0])
        r = mesh.find_path(start, goal)
        assert r.found
        assert r.cost >= float(np.hypot(*(goal - start))) * (1 - 1e-12)


def test_a_region_across_a_room_leaves_no_walls_inside():
    """A slanted band across the room: its two borders are shared edges, one component."""
    room = box(0, 0, 10, 10).difference(box(4, 4, 6, 6))
    band = Polygon([(0, 3), (10, 6.7), (10, 7.9), (0, 4.1)])
    mesh = NavMesh.build(room, regions=[(band, 7, 2)])
    assert wall_length(mesh) == pytest.approx(room.boundary.length, rel=1e-9)
    assert len(set(components(mesh).tolist())) == 1
    assert {int(a) for a in mesh.areas} == {0, 7}
    r = mesh.find_path((1, 1), (9, 9))
    assert r.found


@pytest.mark.parametrize("cell_size", [None, 2.5])
def test_subtractive_keeps_an_island_inside_another_part_s_hole(cell_size):
    area = box(0, 0, 10, 10).difference(box(2, 2, 8, 8)).union(box(4, 4, 6, 6))
    mesh = NavMesh.build(area, method="subtractive", cell_size=cell_size)
    total = sum(Polygon(mesh.polygon(i)).area for i in range(mesh.num_polygons))
    assert total == pytest.approx(68.0, rel=1e-12)
