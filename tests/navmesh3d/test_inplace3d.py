"""Polygon flags and areas changed in place (NavMesh3D.set_flags / set_areas): a ring
walked one way or the other as its sides close or grow dear, seen by queries made before
the change, on meshes sharing the tiles and on loaded meshes; bad changes refused whole."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding.errors import InvalidGeometryError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh.records import QueryFilter
from wayfinding.navmesh3d import Level, NavMesh3D, build
from wayfinding.navmesh3d.query import NavMesh3DQuery, with_flags
from wayfinding.results import Status


def slabs(*boxes: tuple[tuple[float, float], tuple[float, float]]) -> Level:
    """Flat slabs at height 0 over the xz rectangles ((x0, z0), (x1, z1))."""
    verts, tris = [], []
    for (x0, z0), (x1, z1) in boxes:
        b = len(verts)
        verts += [(x0, 0, z0), (x1, 0, z0), (x1, 0, z1), (x0, 0, z1)]
        tris += [(b, b + 2, b + 1), (b, b + 3, b + 2)]
    return Level(np.array(verts, float), np.array(tris))


#: A ring round a hole; its west side (x < 3) is nearer the start and goal than its east.
RING = slabs(((0, 0), (12, 3)), ((0, 9), (12, 12)), ((0, 3), (3, 9)), ((9, 3), (12, 9)))
S, G = (2.0, 0.0, 1.5), (2.0, 0.0, 10.5)
WEST, EAST = (1.5, 0.0, 6.0), (10.5, 0.0, 6.0)


@pytest.fixture(params=[0, 8], ids=["whole", "tiled"])
def ring(request) -> NavMesh3D:
    return with_flags(build(RING, tile_size=request.param))


def side_of(path: np.ndarray) -> str:
    return "west" if path[:, 0].max() < 6 else "east"


def test_closing_a_side_by_flags_sends_the_path_round_the_other(ring):
    q = NavMesh3DQuery(ring)                     # made before the changes
    first = q.find_path(S, G)
    assert first.status is Status.FOUND and side_of(first.path) == "west"
    west = q.nearest(WEST)[0]
    ring.set_flags(west, 0)
    r = q.find_path(S, G)
    assert r.status is Status.FOUND and side_of(r.path) == "east" and r.cost > first.cost
    assert west not in r.corridor.tolist()
    assert q.nearest(WEST, half_extents=(1, 1, 1))[0] != west
    east = q.nearest(EAST)[0]
    ring.set_flags(np.array([east]), np.array([0]))
    assert q.find_path(S, G).status is Status.FAILED
    ring.set_flags([west, east], 1)              # open again
    again = q.find_path(S, G)
    assert np.array_equal(again.path, first.path) and again.cost == first.cost


def test_a_dear_area_sends_the_path_round_the_other_side(ring):
    q = NavMesh3DQuery(ring)
    dear = QueryFilter(costs={5: 50.0})
    assert side_of(q.find_path(S, G, filter=dear).path) == "west"
    west = q.nearest(WEST)[0]
    ring.set_areas([west], [5])
    r = q.find_path(S, G, filter=dear)
    assert r.status is Status.FOUND and side_of(r.path) == "east"
    assert side_of(q.find_path(S, G).path) == "west"       # area 5 costs 1 by default
    closed = QueryFilter(costs={5: float("inf")})
    assert west not in q.find_path(S, G, filter=closed).corridor.tolist()
    assert ring.tiles[0].polymesh.areas.dtype == np.uint8


def test_the_change_is_made_in_the_tiles_arrays(ring):
    arrays = [t.polymesh.flags for t in ring.tiles]
    n = ring.num_polygons
    ring.set_flags(np.arange(n), np.arange(n) % 3)
    assert all(t.polymesh.flags is a for t, a in zip(ring.tiles, arrays, strict=True))
    assert np.concatenate(arrays).tolist() == (np.arange(n) % 3).tolist()


def test_meshes_sharing_the_tiles_see_the_change(ring):
    linked = ring.with_links([OffMeshLink((1.0, 0.0, 1.0), (1.0, 0.0, 2.0))])
    q = NavMesh3DQuery(linked)
    assert q.find_path(S, G).status is Status.FOUND
    ring.set_flags(np.arange(ring.num_polygons), 0)
    assert q.find_path(S, G).status is Status.FAILED


def test_a_loaded_mesh_changes_too(ring, tmp_path):
    ring.save(tmp_path / "ring.npz")
    back = NavMesh3D.load(tmp_path / "ring.npz")
    q = NavMesh3DQuery(back)
    back.set_flags(q.nearest(WEST)[0], 0)
    assert side_of(q.find_path(S, G).path) == "east"


def test_sliced_and_batch_queries_see_the_change(ring):
    q = NavMesh3DQuery(ring)
    ring.set_flags(q.nearest(WEST)[0], 0)
    search = q.start(S, G)
    while search.step(max_expansions=1) is Status.RUNNING:
        pass
    assert side_of(search.result().path) == "east"
    assert side_of(q.find_paths(np.array([S]), np.array([G])).path(0)) == "east"


@pytest.mark.parametrize(("call", "match"), [
    (lambda m: m.set_flags(-1, 1), "polygons -1 must be polygon ids"),
    (lambda m: m.set_flags(10**6, 1), "polygons 1000000 must be polygon ids"),
    (lambda m: m.set_flags(1.0, 1), "polygons 1.0 must be polygon ids"),
    (lambda m: m.set_flags(True, 1), "polygons True must be polygon ids"),
    (lambda m: m.set_flags([[0]], 1), "must be polygon ids"),
    (lambda m: m.set_flags([0, 1], 0x10000), r"flags 65536 must be .* \[0, 65535\]"),
    (lambda m: m.set_flags([0, 1], [1, 2, 3]), r"one per polygon \(2\)"),
    (lambda m: m.set_flags([0, 1], 0.5), "flags 0.5 must be"),
    (lambda m: m.set_areas([0, 1], 64), r"areas 64 must be .* \[0, 63\]"),
    (lambda m: m.set_areas([0, 1], -1), "areas -1 must be"),
])
def test_bad_changes_are_refused_and_change_nothing(ring, call, match):
    flags = np.concatenate([t.polymesh.flags for t in ring.tiles])
    areas = np.concatenate([t.polymesh.areas for t in ring.tiles])
    revision = ring.revision[0]
    with pytest.raises(InvalidGeometryError, match=match):
        call(ring)
    assert np.array_equal(np.concatenate([t.polymesh.flags for t in ring.tiles]), flags)
    assert np.array_equal(np.concatenate([t.polymesh.areas for t in ring.tiles]), areas)
    assert ring.revision[0] == revision
