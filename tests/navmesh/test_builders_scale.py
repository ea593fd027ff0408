"""The cutting builders at any offset and size: a subtractive mesh covers the eroded walkable
area and keeps every hole wherever the world lies and however small or large it is (within
the accepted magnitudes), and refuses a world whose features its coordinates cannot hold
apart; pieces thinner than the welding tolerance leave no degenerate polygon behind."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely import affinity
from shapely.geometry import LineString, Polygon, box

from wayfinding.errors import InvalidGeometryError
from wayfinding.geometry import orient2d
from wayfinding.navmesh import NavMesh

#: A 10 x 10 room with a square hole and a sloped triangular one.
ROOM = Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
               [[(2, 2), (4, 2), (4, 4), (2, 4)], [(6, 6), (8, 7), (7, 8)]])


def placed(scale, offset):
    """:data:`ROOM` scaled by ``scale`` (from the origin), then moved by ``offset``."""
    return affinity.translate(affinity.scale(ROOM, scale, scale, origin=(0, 0)),
                              offset, offset)


@pytest.mark.parametrize(("scale", "offset", "radius"), [
    (1.0, 1e9, 0.0), (1e-3, 1e7, 0.0), (1e-7, 0.0, 0.0), (1e-6, 0.0, 1e-7),
    (1.0, 1e5, 0.1), (1.0, 1e6, 0.1), (1.0, -1e6, 0.3), (2.0**-95, 0.0, 2.0**-100),
    (2.0**90, 0.0, 2.0**85), (2.0**-60, 2.0**-45, 0.0)])
def test_the_subtractive_mesh_covers_the_free_space_at_any_offset_and_size(scale, offset,
                                                                            radius):
    world = placed(scale, offset)
    free = world.buffer(-radius, quad_segs=4) if radius else world
    mesh = NavMesh.build(world, radius=radius, method="subtractive")
    polys = [Polygon(mesh.polygon(i)) for i in range(mesh.num_polygons)]
    union = shapely.union_all(polys)
    assert union.symmetric_difference(free).area <= 1e-9 * free.area
    assert union.hausdorff_distance(free) <= 1e-9 * 10 * scale
    assert sum(p.area for p in polys) == pytest.approx(free.area, rel=1e-9)
    for hole in world.interiors:                        # no polygon over an obstacle
        assert not union.intersects(Polygon(hole).buffer(-radius - 0.1 * scale))
    start, goal = (offset + scale, offset + scale), (offset + 9 * scale, offset + 9 * scale)
    path = mesh.find_path(start, goal)
    assert path.found
    assert LineString(path.path).difference(free).length <= 1e-9 * 10 * scale


def test_features_finer_than_the_coordinates_resolve_are_refused():
    with pytest.raises(InvalidGeometryError, match="16 float spacings"):
        NavMesh.build(placed(1e-7, 1e9), method="subtractive")


def test_a_bump_thinner_than_the_welding_tolerance_leaves_no_degenerate_polygon():
    # The 1e-7 wide corridor vanishes under the erosion but leaves each room a bump 1e-8
    # deep, thinner than the welding tolerance (4e-8).
    area = shapely.union_all([box(0, 0, 10, 10), box(10, 5, 30, 5 + 1e-7),
                              box(30, 0, 40, 10)])
    free = area.buffer(-0.4, quad_segs=4)
    mesh = NavMesh.build(area, radius=0.4, method="subtractive")
    assert (mesh.polygon_areas() > 0).all()
    for i in range(mesh.num_polygons):
        ids = mesh.polygons[i, :mesh.sizes[i]]
        assert len(set(ids.tolist())) == len(ids)
        p = mesh.vertices[ids]
        assert (orient2d(np.roll(p, 1, axis=0), p, np.roll(p, -1, axis=0)) >= 0).all()
    union = shapely.union_all([Polygon(mesh.polygon(i)) for i in range(mesh.num_polygons)])
    assert union.symmetric_difference(free).area <= 1e-9 * free.area
