"""A tile cache's meshes laid out for queries from the previous layout
(``compile_mesh`` through ``DetourMesh.with_tiles``): after random sequences of obstacles
added, moved and removed (tiles rebuilt, dropped and back) and of off-mesh links changed,
the layout is the one a whole new layout of the mesh makes, array for array, and every
query answers alike (polygon ids included; slow: on Recast's level too); only the tiles
rebuilt are laid out and only the tiles whose links may change are joined again; queries
on older meshes keep their layouts; bad calls are refused."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh3d import NavMesh3D, generate
from wayfinding.navmesh3d.obstacles import Box, Cylinder
from wayfinding.navmesh3d.query import WALK, NavMesh3DQuery, compile_mesh, with_flags
from wayfinding.navmesh3d.tilecache import TileCache

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from recast_data import nav_test  # noqa: E402

LEVELS = {"terrain": lambda: generate.terrain(size=32, height=4.0),
          "storeys": lambda: generate.multi_storey(width=24)}


@pytest.fixture(scope="module")
def level():
    return LEVELS["terrain"]()


def cache_of(level) -> TileCache:
    return TileCache(level, tile_size=12, flags=WALK)


def fresh(mesh: NavMesh3D) -> NavMesh3D:
    """The same tiles and links in a mesh noted as made from none: laid out whole."""
    return dataclasses.replace(mesh)


def random_links(mesh: NavMesh3D, rng: np.random.Generator, n: int) -> list[OffMeshLink]:
    """Links between random polygons' centres: a third to a point nearby (often in a
    neighbouring tile), the rest anywhere; some one way, some with ends off the mesh."""
    polys = mesh.polygons()
    out = []
    for i in range(n):
        a = polys[rng.integers(len(polys))].mean(axis=0)
        b = a + rng.normal(0, 2.5, 3) if i % 3 == 0 else \
            polys[rng.integers(len(polys))].mean(axis=0)
        out.append(OffMeshLink(tuple(a.tolist()), tuple(b.tolist()),
                               bidirectional=bool(i % 2), radius=float(rng.uniform(0.4, 2.0))))
    return out


def assert_same_layout(mesh: NavMesh3D) -> None:
    """The layout of ``mesh`` equals a whole new layout of it, array for array."""
    got, want = compile_mesh(mesh), compile_mesh(fresh(mesh))
    assert want.tiles_joined == want.tiles_laid_out == len(mesh.tiles)
    for name in ("num_tiles", "num_polys", "num_links", "num_nodes", "nvp"):
        assert getattr(got, name) == getattr(want, name), name
    for a, b in zip(got.links(), want.links(), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got.vertices(), want.vertices())
    for a, b in zip(got.link_ends(), want.link_ends(), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got.unconnected_links(), want.unconnected_links())


def assert_same_answers(mesh: NavMesh3D, rng: np.random.Generator, n: int = 25) -> None:
    """Every query on ``mesh`` answers as on a whole new layout of it."""
    q, r = NavMesh3DQuery(mesh), NavMesh3DQuery(fresh(mesh))
    polys = mesh.polygons()
    pts = [polys[k].mean(axis=0) + rng.normal(0, 0.6, 3)
           for k in rng.integers(0, len(polys), 2 * n)]
    for a, b in zip(pts[:n], pts[n:], strict=True):
        assert q.nearest(a) == r.nearest(a)
        pa, pb = q.find_path(a, b, partial=True), r.find_path(a, b, partial=True)
        assert pa.status is pb.status
        for name in ("path", "corridor", "flags", "corner_polygons", "links"):
            np.testing.assert_array_equal(getattr(pa, name), getattr(pb, name), name)
        assert pa.cost == pb.cost
        if q.nearest(a)[0] >= 0:
            ha, hb = q.raycast(a, b), r.raycast(a, b)
            assert (ha.t, ha.point, ha.normal) == (hb.t, hb.point, hb.normal)
            np.testing.assert_array_equal(ha.polygons, hb.polygons)
        np.testing.assert_array_equal(q.polygons_in_box(a, (3, 4, 3)),
                                      r.polygons_in_box(a, (3, 4, 3)))
    for k in range(mesh.num_polygons):
        np.testing.assert_array_equal(q.wall_segments(k), r.wall_segments(k))


@pytest.mark.parametrize("name, seed", [("terrain", 0), ("terrain", 1), ("storeys", 2),
                                        ("storeys", 3)])
def test_random_obstacles_and_links_lay_out_as_a_new_layout(name, seed):
    rng = np.random.default_rng(seed)
    random_changes(cache_of(LEVELS[name]()), rng, 8)


@pytest.mark.slow
@pytest.mark.parametrize("tile_size", [32, 48])
def test_random_obstacles_on_recast_s_level_lay_out_as_a_new_layout(tile_size):
    cache = TileCache(nav_test(), tile_size=tile_size, flags=WALK, workers=2)
    random_changes(cache, np.random.default_rng(tile_size), 16)


def random_changes(cache: TileCache, rng: np.random.Generator, steps: int) -> None:
    """Random obstacles added, moved and removed and links set, ``steps`` updates, each
    mesh but every third laid out from the last laid out and checked against a whole new
    layout."""
    cache.set_links(random_links(cache.mesh, rng, 14))
    compile_mesh(cache.mesh)
    laid = cache.mesh           # the last mesh laid out
    ids: list[int] = []
    for step in range(steps):
        before = cache.mesh
        for _ in range(int(rng.integers(1, 3))):
            polys = before.polygons()
            x, y, z = polys[rng.integers(len(polys))].mean(axis=0).tolist()
            roll = rng.random()
            if roll < 0.2:    # a box over a whole tile and more: tiles dropped
                s = float(rng.uniform(2.5, 5))
                shape = Box((x - s, y - 3, z - s), (x + s, y + 3, z + s))
            else:
                shape = Cylinder((x, y - 1, z), float(rng.uniform(0.5, 2)), 3.0)
            if ids and roll > 0.8:
                cache.remove(ids.pop(int(rng.integers(len(ids)))))
            elif ids and roll > 0.6:
                cache.move(ids[int(rng.integers(len(ids)))], shape)
            else:
                ids.append(cache.add(shape))
        if step % 6 == 5:
            cache.set_links(random_links(cache.mesh, rng, 10))
        cache.update()
        if step % 3 == 1 or cache.mesh is laid:
            continue        # the next layout comes from the last laid out
        mesh = cache.mesh
        layout = compile_mesh(mesh)
        kept = {id(t) for t in laid.tiles}
        assert layout.tiles_laid_out == sum(id(t) not in kept for t in mesh.tiles)
        assert layout.tiles_joined < len(mesh.tiles)
        laid = mesh
        assert_same_layout(mesh)
        assert_same_answers(mesh, rng)


def test_tiles_dropped_and_back_and_the_chain_of_meshes(level):
    cache = cache_of(level)
    first = cache.mesh
    q = NavMesh3DQuery(first)
    lo, hi = first.tiles[40].polymesh.bmin, first.tiles[40].polymesh.bmax
    box = cache.add(Box((lo[0] - 0.5, lo[1] - 1, lo[2] - 0.5),
                        (hi[0] + 0.5, hi[1] + 1, hi[2] + 0.5)))
    cache.update()
    second = cache.mesh
    assert len(second.tiles) < len(first.tiles)       # the boxed tile has no polygon left
    cache.remove(box)
    cache.update()
    third = cache.mesh
    assert len(third.tiles) == len(first.tiles)
    layout = compile_mesh(third)        # from the first's layout, the second never laid out
    kept = {id(t) for t in first.tiles} & {id(t) for t in third.tiles}
    assert layout.tiles_laid_out == len(third.tiles) - len(kept)
    assert layout.tiles_joined <= 3 * 3 * layout.tiles_laid_out
    assert_same_layout(third)
    assert_same_layout(second)
    assert q.mesh is first and compile_mesh(first) is q._data    # the old layout stays


def test_only_links_changed_joins_only_the_tiles_at_their_ends(level):
    cache = cache_of(level)
    mesh = cache.mesh
    compile_mesh(mesh)
    rng = np.random.default_rng(5)
    cache.set_links(random_links(mesh, rng, 3))
    layout = compile_mesh(cache.mesh)
    assert layout.tiles_laid_out == 0
    assert 0 < layout.tiles_joined <= 6
    assert_same_layout(cache.mesh)
    assert_same_answers(cache.mesh, rng, 10)
    cache.set_links([])
    layout = compile_mesh(cache.mesh)
    assert layout.num_links == layout.tiles_laid_out == 0 and layout.tiles_joined <= 6
    assert_same_layout(cache.mesh)


def test_old_queries_keep_answering_on_their_layout(level):
    cache = cache_of(level)
    q = NavMesh3DQuery(cache.mesh)
    a, b = (2.0, 0.0, 2.0), (30.0, 0.0, 30.0)
    before = q.find_path(a, b, partial=True)
    for x in (8.0, 16.0, 24.0):
        cache.add(Cylinder((x, -5, x), 2.0, 20.0))
    old = {id(t) for t in q.mesh.tiles}
    cache.update()
    rebuilt = [t for t in cache.mesh.tiles if id(t) not in old]
    assert len(rebuilt) > 3
    assert NavMesh3DQuery(cache.mesh)._data.tiles_laid_out == len(rebuilt)
    again = q.find_path(a, b, partial=True)
    np.testing.assert_array_equal(before.corridor, again.corridor)
    np.testing.assert_array_equal(before.path, again.path)


def test_previous_given_and_meshes_that_share_nothing(level):
    cache = cache_of(level)
    first = cache.mesh
    compile_mesh(first)
    cache.add(Cylinder((10, -5, 10), 1.0, 20.0))
    cache.update()
    other = fresh(cache.mesh)                  # not noted: told which mesh it came from
    layout = compile_mesh(other, previous=first)
    assert layout.tiles_laid_out == len(cache.changed) < layout.num_tiles
    assert_same_layout(other)
    flagged = with_flags(cache.mesh)           # new tiles everywhere: laid out whole
    assert compile_mesh(flagged, previous=first).tiles_laid_out == len(flagged.tiles)
    whole = with_flags(cache.mesh)
    changed = dataclasses.replace(whole, tile_size=whole.tile_size + 1)
    assert compile_mesh(changed, previous=whole).tiles_laid_out == len(whole.tiles)


def test_bad_calls_are_refused_and_change_nothing(level):
    cache = cache_of(level)
    mesh = cache.mesh
    with pytest.raises(InvalidQueryError, match="previous must be a NavMesh3D"):
        compile_mesh(fresh(mesh), previous="mesh")
    layout = compile_mesh(mesh)
    n = layout.num_tiles
    keep = np.arange(n, dtype=np.int32)
    links_before = layout.links()
    for reuse, parts, match in [
            (np.array([n], np.int32), [], r"reuse\[0\] = \d+ is not -1 or a tile"),
            (np.array([-2], np.int32), [], r"reuse\[0\] = -2"),
            (keep[::-1].copy(), [], "kept tiles must keep their order"),
            (np.array([0, 0], np.int32), [], "kept tiles must keep their order"),
            (np.array([-1, 1], np.int32), [], "asks for 1 new tiles, but 0 are given"),
            (keep.astype(np.float64), [], "must hold tile indices")]:
        with pytest.raises(ValueError, match=match):
            layout.with_tiles(reuse, parts)
    for a, b in zip(links_before, layout.links(), strict=True):
        np.testing.assert_array_equal(a, b)
    same = layout.with_tiles(keep, [])
    assert same.tiles_laid_out == same.tiles_joined == 0 and same.num_polys == layout.num_polys


def test_flags_and_areas_changed_in_place_reach_the_next_meshes_queries(level):
    cache = cache_of(level)
    first = cache.mesh
    NavMesh3DQuery(first)
    rng = np.random.default_rng(7)
    first.set_flags(np.arange(0, first.num_polygons, 2), 0)
    first.set_areas(np.arange(1, first.num_polygons, 3), 5)
    for x in (6.0, 20.0):
        cache.add(Cylinder((x, -5, x), 1.5, 20.0))
        cache.update()
        mesh = cache.mesh
        q = NavMesh3DQuery(mesh)
        np.testing.assert_array_equal(q._flags, np.concatenate(
            [t.polymesh.flags for t in mesh.tiles]))
        np.testing.assert_array_equal(q._areas, np.concatenate(
            [t.polymesh.areas for t in mesh.tiles]))
        assert (q._flags == 0).any() and (q._areas == 5).any()
        assert_same_answers(mesh, rng, 10)


def test_a_query_on_a_mesh_never_changed_in_place_takes_the_layout_s_flags(level,
                                                                           monkeypatch):
    cache = cache_of(level)
    NavMesh3DQuery(cache.mesh)
    cache.add(Cylinder((10, -5, 10), 1.5, 20.0))
    cache.update()

    def refresh(self):
        raise AssertionError("the flags were read from every tile")

    monkeypatch.setattr(NavMesh3DQuery, "_refresh", refresh)
    q = NavMesh3DQuery(cache.mesh)
    np.testing.assert_array_equal(q._flags, np.concatenate(
        [t.polymesh.flags for t in cache.mesh.tiles]))
    np.testing.assert_array_equal(q._areas, np.concatenate(
        [t.polymesh.areas for t in cache.mesh.tiles]))
