"""The tile cache: temporary obstacles that close and open the mesh tile by tile, under a
budget, the rest of the mesh shared (with its links and flags); the spans an obstacle
blocks against shapely, and the ground it leaves against the same solid built into the
level; paths keeping clear of every kind of obstacle; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recast_data import nav_test

from wayfinding.errors import InvalidGeometryError, InvalidQueryError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh3d import (
    BuildSettings,
    Level,
    NavMesh3D,
    build,
    compact,
    filter_spans,
    generate,
    rasterize,
)
from wayfinding.navmesh3d.obstacles import Box, Cylinder, OrientedBox, Prism, block_spans
from wayfinding.navmesh3d.query import WALK, NavMesh3DQuery
from wayfinding.navmesh3d.tilecache import TileCache
from wayfinding.results import Status

#: thin_walls with doors wide enough to stay open after erosion: (10/3, 2.5) and (20/3, 7.5).
DOORS = ((10 / 3, 2.5), (20 / 3, 7.5))


@pytest.fixture(scope="module")
def walls():
    return generate.thin_walls(gap=2.4)


def same_polygons(a: NavMesh3D, b: NavMesh3D) -> bool:
    if [(t.x, t.z) for t in a.tiles] != [(t.x, t.z) for t in b.tiles]:
        return False
    return all(np.array_equal(s.polymesh.polys, t.polymesh.polys)
               and np.array_equal(s.polymesh.verts, t.polymesh.verts)
               and np.array_equal(s.polymesh.areas, t.polymesh.areas)
               and np.array_equal(s.detail.verts, t.detail.verts)
               and np.array_equal(s.detail.tris, t.detail.tris)
               for s, t in zip(a.tiles, b.tiles, strict=True))


def covered(mesh: NavMesh3D, x: float, z: float) -> bool:
    """Whether a polygon of ``mesh`` holds (x, z) (seen from above)."""
    point = shapely.Point(x, z)
    return any(shapely.Polygon(p[:, [0, 2]]).covers(point) for p in mesh.polygons())


def door_box(k: int) -> Box:
    x, z = DOORS[k]
    return Box((x - 0.4, -1, z - 1.5), (x + 0.4, 2, z + 1.5))


def test_without_obstacles_it_is_the_tiled_build(walls):
    for level, size in ((walls, 16), (generate.building(storeys=2), 16)):
        cache = TileCache(level, tile_size=size, workers=2)
        mesh = build(level, tile_size=size)
        assert same_polygons(cache.mesh, mesh)
        assert cache.mesh.report.counts == mesh.report.counts
        assert cache.pending == 0 and cache.update() and cache.mesh.tile_size == size


@pytest.mark.parametrize("partition", ["watershed", "monotone", "layers"])
def test_every_partition_builds_as_build_and_comes_back_after_an_obstacle(partition):
    level, s = generate.building(storeys=2), BuildSettings(partition=partition)
    cache = TileCache(level, tile_size=16, settings=s)
    first = cache.mesh
    assert same_polygons(first, build(level, tile_size=16, settings=s))
    oid = cache.add(Cylinder((5, 0, 5), 1, 2))
    cache.update()
    assert not same_polygons(first, cache.mesh)
    cache.remove(oid)
    cache.update()
    assert same_polygons(first, cache.mesh)


def test_replaced_settings_rebuild_tiles_with_their_own_voxel_values(walls):
    # voxel values are kept with the settings: replacing one setting computes them again
    wide = BuildSettings().replace(agent_radius=0.9, region_min_size=2)
    assert wide.voxels() == BuildSettings(agent_radius=0.9, region_min_size=2).voxels()
    assert wide.voxels().walkable_radius != BuildSettings().voxels().walkable_radius
    cache = TileCache(walls, tile_size=16, settings=wide)
    oid = cache.add(door_box(0))
    cache.update()
    cache.remove(oid)
    cache.update()
    assert cache.changed and same_polygons(cache.mesh,
                                           build(walls, tile_size=16, settings=wide))


def test_without_obstacles_it_is_the_tiled_build_of_recast_s_level():
    level = nav_test()
    assert same_polygons(TileCache(level).mesh, build(level, tile_size=48))


def test_an_obstacle_in_a_door_closes_it_and_its_removal_restores_the_mesh(walls):
    cache = TileCache(walls, tile_size=16, flags=WALK)
    first = cache.mesh
    start, goal = (1.0, 0.0, 1.0), (9.0, 0.0, 9.0)
    assert NavMesh3DQuery(first).find_path(start, goal).status is Status.FOUND
    oid = cache.add(door_box(0))
    assert cache.mesh is first and cache.pending > 0
    assert cache.update() and cache.mesh is not first
    assert NavMesh3DQuery(cache.mesh).find_path(start, goal).status is Status.FAILED
    assert not covered(cache.mesh, *DOORS[0]) and covered(cache.mesh, *DOORS[1])
    cache.move(oid, door_box(1))             # the hole moves to the other door
    cache.update()
    assert covered(cache.mesh, *DOORS[0]) and not covered(cache.mesh, *DOORS[1])
    assert NavMesh3DQuery(cache.mesh).find_path(start, goal).status is Status.FAILED
    cache.move(oid, Cylinder((1.5, 0, 8), 0.8, 2))   # into a corner of the first room
    cache.update()
    path = NavMesh3DQuery(cache.mesh).find_path(start, goal)
    assert path.status is Status.FOUND and not covered(cache.mesh, 1.5, 8)
    assert covered(cache.mesh, *DOORS[0]) and covered(cache.mesh, *DOORS[1])
    cache.remove(oid)
    assert cache.update()
    assert same_polygons(cache.mesh, first)
    assert cache.mesh.report.counts == first.report.counts
    assert cache.obstacles == {}


def test_links_go_with_every_mesh_and_cross_a_blocked_door(walls):
    cache = TileCache(walls, tile_size=16, flags=WALK)
    start, goal = (1.0, 0.0, 2.5), (5.0, 0.0, 2.5)
    cache.add(door_box(0))
    cache.update()
    assert NavMesh3DQuery(cache.mesh).find_path(start, goal).status is Status.FAILED
    over = OffMeshLink((2.2, 0.0, 5.0), (4.4, 0.0, 5.0), bidirectional=True)
    cache.set_links([over])
    assert cache.mesh.links == (over,)
    path = NavMesh3DQuery(cache.mesh).find_path(start, goal)
    assert path.status is Status.FOUND
    oid = cache.add(Cylinder((8.5, 0, 2), 0.5, 2))       # a rebuild elsewhere keeps them
    cache.update()
    assert cache.mesh.links == (over,)
    assert NavMesh3DQuery(cache.mesh).find_path(start, goal).status is Status.FOUND
    cache.remove(oid)


def test_flags_changed_in_place_stay_on_shared_tiles_and_queries_see_them():
    cache = TileCache(generate.floor(size=20), tile_size=32, flags=WALK)
    first = cache.mesh
    q = NavMesh3DQuery(first)
    start, goal = (1.0, 0.0, 1.0), (19.0, 0.0, 1.0)
    assert q.find_path(start, goal).status is Status.FOUND
    cache.add(Cylinder((15, 0, 15), 1, 2))               # rebuilds the far corner only
    cache.update()
    second = cache.mesh
    shared = [k for k, (a, b) in enumerate(zip(first.tiles, second.tiles, strict=True))
              if a is b]
    assert shared and len(shared) < len(first.tiles)
    bases = np.cumsum([0] + [t.polymesh.num_polys for t in second.tiles])
    k = [k for k in shared if (second.tiles[k].x, second.tiles[k].z) == (1, 0)][0]
    second.set_flags(np.arange(bases[k], bases[k + 1]), 0)   # close the goal's tile
    assert (first.tiles[k].polymesh.flags == 0).all()
    assert q.find_path(start, goal).status is Status.FAILED  # the first mesh's query sees it
    assert NavMesh3DQuery(second).find_path(start, goal).status is Status.FAILED


def test_only_the_tiles_an_obstacle_touches_are_rebuilt():
    level = generate.floor(size=30)
    cache = TileCache(level, tile_size=16)
    s = cache.mesh.settings
    before = {(t.x, t.z): t for t in cache.mesh.tiles}
    ob = Cylinder((14.0, 0.0, 9.0), 0.5, 2.0)
    cache.add(ob)
    cache.update()
    after = {(t.x, t.z): t for t in cache.mesh.tiles}
    assert after.keys() == before.keys()
    # a tile's box: its square widened by the border of the agent's radius and 3 cells
    width, border = 16 * s.cell_size, (s.voxels().walkable_radius + 3) * s.cell_size
    (x0, _, z0), (x1, _, z1) = ob.bounds
    touched = {(tx, tz) for tx, tz in before
               if tx * width - border <= x1 and (tx + 1) * width + border >= x0
               and tz * width - border <= z1 and (tz + 1) * width + border >= z0}
    assert touched == {(2, 1), (3, 1), (2, 2), (3, 2)} == set(cache.changed)
    for place, tile in after.items():
        assert (tile is before[place]) == (place not in touched), place
    assert not covered(cache.mesh, 14.0, 9.0)
    assert cache.mesh.report.ms["rasterize"] == 0 and cache.mesh.report.ms["obstacles"] > 0


def test_every_tile_an_obstacle_blocks_a_span_of_is_queued():
    """Obstacles round the tile corners and edges (the borders overlap): each tile where
    one blocks a span is among the tiles it queues."""
    cache = TileCache(generate.floor(size=20), tile_size=16)
    rng = np.random.default_rng(7)
    edges = [k * 16 * 0.3 for k in range(5)]
    for _ in range(40):
        x, z = rng.choice(edges, 2) + rng.uniform(-2.2, 2.2, 2)
        r = rng.uniform(0.05, 0.5)
        for shape in (Cylinder((x, 0, z), r, 1), Box((x - r, -1, z - r), (x + r, 1, z + r))):
            oid = cache.add(shape)
            queued = set(cache._touched[oid])
            for place, kept in cache._kept.items():
                chf = kept.unpack()
                if block_spans(chf, chf.area.copy(), shape, 2.0):
                    assert place in queued, (shape, place)
            cache.remove(oid)


@pytest.mark.parametrize("workers", [1, 2])
def test_many_changes_end_as_the_last_obstacles_built_afresh(walls, workers):
    """Adds, moves and removes in any order leave the mesh a fresh cache makes of the
    obstacles left: every tile a change left behind was rebuilt."""
    shapes = [Cylinder((2, 0, 2), 0.7, 2), Box((6, -1, 1), (7, 1, 3)),
              OrientedBox((8, 0, 8), (1, 1, 0.3), math.pi / 6),
              Prism([(4, 6), (5, 6), (4.5, 7)], -1, 1)]
    cache = TileCache(walls, tile_size=8, workers=workers)
    ids = [cache.add(shape) for shape in shapes]
    cache.update(max_tiles=2)
    cache.move(ids[0], Cylinder((8, 0, 2), 0.7, 2))
    cache.remove(ids[1])
    cache.update(max_tiles=3)
    cache.move(ids[2], Box((1, -1, 8), (2, 1, 9)))
    cache.remove(ids[3])
    while not cache.update(max_tiles=1):
        pass
    fresh = TileCache(walls, tile_size=8)
    for oid in sorted(cache.obstacles):
        fresh.add(cache.obstacles[oid])
    fresh.update()
    assert same_polygons(cache.mesh, fresh.mesh)
    assert not same_polygons(cache.mesh, build(walls, tile_size=8))


def test_an_obstacle_blocks_only_the_storey_it_stands_on():
    level = generate.building(storeys=2)
    cache = TileCache(level, tile_size=16)
    upper = cache.add(Box((6, 3.0, 6), (8, 5.0, 8)))
    cache.update()
    assert covered_at(cache.mesh, 7, 0.0, 7) and not covered_at(cache.mesh, 7, 3.0, 7)
    cache.move(upper, Box((6, -0.5, 6), (8, 1.0, 8)))
    cache.update()
    assert not covered_at(cache.mesh, 7, 0.0, 7) and covered_at(cache.mesh, 7, 3.0, 7)
    cache.remove(upper)
    cache.update()
    mesh = cache.mesh
    cache.add(Box((6, 2.2, 6), (8, 2.6, 8)))    # in mid-air: above the agent, below a floor
    assert cache.pending > 0
    assert cache.update() and cache.changed == () and cache.mesh is mesh


def covered_at(mesh: NavMesh3D, x: float, y: float, z: float) -> bool:
    point = shapely.Point(x, z)
    return any(abs(p[:, 1].mean() - y) < 1.0 and shapely.Polygon(p[:, [0, 2]]).covers(point)
               for p in mesh.polygons())


def test_the_update_budget():
    cache = TileCache(generate.floor(size=30), tile_size=16)
    cache.add(Box((4, -1, 4), (20, 1, 20)))
    queued = cache.pending
    assert queued == 25
    first = cache.mesh
    assert not cache.update(max_tiles=1)
    assert cache.pending == queued - 1 and cache.mesh is not first and cache.changed == ((0, 0),)
    # every tile but the one rebuilt is shared with the mesh before
    assert sum(a is b for a, b in zip(first.tiles, cache.mesh.tiles, strict=True)) == \
        len(first.tiles) - 1
    assert not cache.update(max_tiles=2) and cache.pending == queued - 3
    assert not cache.update(max_seconds=0) and cache.pending == queued - 4   # one at least
    assert not cache.update(max_tiles=5, max_seconds=60) and cache.pending == queued - 9
    assert cache.update(max_seconds=60) and cache.pending == 0
    done = cache.mesh
    assert cache.update() and cache.mesh is done            # nothing queued: the same mesh
    two = TileCache(generate.floor(size=30), tile_size=16, workers=2)    # two at a time
    two.add(Box((4, -1, 4), (20, 1, 20)))
    assert not two.update(max_tiles=1) and two.pending == 24
    assert not two.update(max_tiles=3) and two.pending == 21 and len(two.changed) == 3
    assert not two.update(max_seconds=0) and two.pending == 19      # one batch at least
    assert two.update()
    assert same_polygons(two.mesh, cache.mesh)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failed_rebuild_keeps_the_tiles_done_and_the_rest_queued(monkeypatch, workers):
    from wayfinding.navmesh3d import tilecache

    cache = TileCache(generate.floor(size=20), tile_size=32, workers=workers)
    first = cache.mesh
    cache.add(Cylinder((10, 0, 10), 1, 2))
    real, calls = tilecache._finish, []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise MemoryError("out of memory")
        return real(*args, **kwargs)

    monkeypatch.setattr(tilecache, "_finish", failing)
    with pytest.raises(MemoryError):
        cache.update()
    # one at a time, the first tile is in; two at a time, the first if it was not the one
    assert len(cache.changed) == (1 if workers == 1 else len(cache.changed)) <= 1
    assert cache.pending == 4 - len(cache.changed)
    assert (cache.mesh is first) == (not cache.changed)
    assert cache.update()
    fresh = TileCache(generate.floor(size=20), tile_size=32)
    fresh.add(Cylinder((10, 0, 10), 1, 2))
    fresh.update()
    assert same_polygons(cache.mesh, fresh.mesh)


def test_obstacles_outside_the_level_queue_nothing_and_edge_ones_the_edge_tiles():
    cache = TileCache(generate.floor(size=10), tile_size=16)
    mesh = cache.mesh
    far = cache.add(Cylinder((100, 0, 100), 1, 2))
    assert cache.pending == 0 and cache.update() and cache.mesh is mesh
    cache.move(far, Box((-1.4, -1, -1.4), (-0.6, 1, -0.6)))   # in a tile's border only
    assert cache.pending == 1
    assert cache.update() and cache.mesh is mesh and cache.changed == ()
    cache.move(far, Box((-2, -1, -2), (0.5, 1, 0.5)))
    assert cache.pending == 1
    cache.update()
    assert cache.changed == ((0, 0),) and cache.mesh is not mesh
    assert not covered(cache.mesh, 0.6, 0.6) and covered(cache.mesh, 5, 5)


def test_flags_memory_and_report():
    level = generate.floor(size=20)
    cache = TileCache(level, tile_size=32, flags=WALK)
    assert all((t.polymesh.flags == WALK).all() for t in cache.mesh.tiles)
    memory = cache.memory()
    assert set(memory) == {(x, z) for x in range(3) for z in range(3)}
    assert all(0 < b < 2_000 for b in memory.values())     # compressed: a flat floor
    cache.add(Cylinder((10, 0, 10), 1, 2))
    cache.update()
    assert all((t.polymesh.flags == WALK).all() for t in cache.mesh.tiles)
    assert cache.mesh.report.counts["polygons"] == cache.mesh.num_polygons
    assert repr(cache) == "TileCache(9 tiles, 1 obstacles, 0 pending)"


def test_an_updated_mesh_saves_and_loads(tmp_path):
    cache = TileCache(generate.floor(size=20), tile_size=32)
    cache.add(Cylinder((10, 0, 10), 1, 2))
    cache.update()
    cache.mesh.save(tmp_path / "mesh.npz")
    back = NavMesh3D.load(tmp_path / "mesh.npz")
    assert same_polygons(back, cache.mesh) and back.report.counts == cache.mesh.report.counts


# ------------------------------------------------------------------ the same as geometry
def with_prisms(size: float, prisms: list[tuple[np.ndarray, float]]) -> Level:
    """A floor ``size`` square (top at 0) with upright convex prisms standing on it: (x, z)
    corners in turn and a height each, as triangles."""
    vertices = list(generate.floor(size=size).vertices.tolist())
    triangles = list(generate.floor(size=size).triangles.tolist())
    for corners, height in prisms:
        k, base = len(corners), len(vertices)
        vertices += [(x, y, z) for y in (0.0, height) for x, z in corners]
        faces = [(base + k, base + k + i, base + k + i + 1) for i in range(1, k - 1)]   # top
        faces += [(base, base + i + 1, base + i) for i in range(1, k - 1)]            # bottom
        for i in range(k):
            j = (i + 1) % k
            faces += [(base + i, base + j, base + k + j), (base + i, base + k + j, base + k + i)]
        triangles += faces
    v = np.array(vertices)
    t = np.array(triangles)
    up = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])[:, 1]
    t[up < 0] = t[up < 0][:, ::-1]           # every flat face upward: the tops walkable
    return Level(v, t)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), tile_size=st.sampled_from([16, 32]))
def test_an_obstacle_blocks_the_ground_as_the_same_solid_in_the_level_does(seed, tile_size):
    """Boxes and convex prisms as obstacles leave the ground polygons that the same shapes
    built into the level's geometry leave (Recast's rasterizer takes every cell a
    triangle touches, as an obstacle blocks every cell its footprint meets); the solids
    are lower than the agent, so no room is left inside them."""
    rng = np.random.default_rng(seed)
    solids, obstacles = [], []
    for k in range(3):
        c, h = rng.uniform(3, 17, 2), rng.uniform(0.3, 2.0, 2)
        if k == 0:
            corners = np.array([c - h, (c[0] + h[0], c[1] - h[1]), c + h,
                                (c[0] - h[0], c[1] + h[1])])
            obstacles.append(Box((c[0] - h[0], -0.5, c[1] - h[1]), (c[0] + h[0], 1.5,
                                                                     c[1] + h[1])))
        else:
            turn = rng.uniform(0, 2 * math.pi)
            angles = turn + np.sort(rng.uniform(0, 2 * math.pi, 5))
            corners = c + h[0] * np.stack([np.cos(angles), np.sin(angles)], axis=1)
            obstacles.append(Prism(corners, -0.5, 1.5))
        solids.append((corners, 1.5))
    cache = TileCache(with_prisms(20, []), tile_size=tile_size)
    for ob in obstacles:
        cache.add(ob)
    cache.update()
    built = build(with_prisms(20, solids), tile_size=tile_size)

    def ground(mesh: NavMesh3D) -> list:
        return sorted(tuple(map(tuple, p.round(4).tolist())) for p in mesh.polygons()
                      if p[:, 1].max() < 1.0)

    assert ground(cache.mesh) == ground(built)
    assert ground(cache.mesh) != ground(build(with_prisms(20, []), tile_size=tile_size))


# ------------------------------------------------------------------ the spans blocked
def test_a_tile_keeps_its_compact_heightfield_before_erosion_exactly():
    """What a tile keeps (compressed) is the level rasterized, filtered and compacted over
    the tile's square and border, with the public stages."""
    level = generate.building(storeys=2)
    s = BuildSettings()
    cache = TileCache(level, tile_size=16, settings=s)
    border = s.voxels().walkable_radius + 3
    (lo, hi), width = level.bounds, 16 + 2 * border
    for (tx, tz), kept in cache._kept.items():
        box_lo, box_hi = lo.copy(), hi.copy()
        for axis, t in ((0, tx), (2, tz)):
            box_lo[axis] = lo[axis] + np.float32(t * 16) * np.float32(s.cell_size) \
                - np.float32(border) * np.float32(s.cell_size)
            box_hi[axis] = box_lo[axis] + np.float32(width) * np.float32(s.cell_size)
        want = compact(filter_spans(rasterize(level, s, bounds=(box_lo, box_hi),
                                              size=(width, width)), s), s)
        got = kept.unpack()
        for name in ("first", "y", "h", "area", "con"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), (tx, tz, name)
        assert np.array_equal(got.bmin, want.bmin) and got.width == want.width
        assert not got.area.flags.writeable


def test_blocked_spans_are_those_whose_cell_meets_the_footprint():
    """Against shapely: a span is blocked when its cell square meets the inside of the
    footprint and its floor is in the obstacle's height range widened by a cell height
    below and the agent's height above (cells within 1e-9 m of touching may go either
    way)."""
    s = BuildSettings()
    cache = TileCache(generate.building(storeys=2), tile_size=16, settings=s)
    chf = cache._kept[(1, 0)].unpack()
    cs, ch = float(np.float32(chf.cell_size)), float(np.float32(chf.cell_height))
    shapes = [Cylinder((6.1, 0, 2.2), 1.3, 1.0), Box((5.05, 2.5, 1.1), (7.33, 3.2, 2.95)),
              OrientedBox((6, 0.2, 2.5), (1.5, 0.5, 0.4), 0.7),
              Prism([(5, 1), (7.5, 1.5), (6, 3.4)], 2.9, 4)]
    cols = np.repeat(np.arange(chf.width * chf.depth), np.diff(chf.first))
    x, z = cols % chf.width, cols // chf.width
    floor = float(chf.bmin[1]) + chf.y * ch
    for shape in shapes:
        area = chf.area.copy()
        n = block_spans(chf, area, shape, s.agent_height)
        if isinstance(shape, Cylinder):
            foot = shapely.Point(shape.centre[0], shape.centre[2])
        elif isinstance(shape, Box):
            foot = shapely.box(shape.bmin[0], shape.bmin[2], shape.bmax[0], shape.bmax[2])
        elif isinstance(shape, OrientedBox):
            foot = shapely.Polygon(shape.footprint())
        else:
            foot = shapely.Polygon(shape.points_xz)
        squares = shapely.box(chf.bmin[0] + x * cs, chf.bmin[2] + z * cs,
                              chf.bmin[0] + (x + 1) * cs, chf.bmin[2] + (z + 1) * cs)
        # sure to meet, and near enough that rounding may go either way (1e-9 m)
        if isinstance(shape, Cylinder):
            gap = shapely.distance(squares, foot)
            sure, near = gap < shape.radius - 1e-9, gap < shape.radius + 1e-9
        else:
            sure = shapely.area(shapely.intersection(squares, foot)) > 1e-9
            near = shapely.distance(squares, foot) < 1e-9
        (_, y0, _), (_, y1, _) = shape.bounds
        height = (floor - ch <= y1) & (floor + s.agent_height >= y0)
        walkable = chf.area != 0
        blocked = (area == 0) & walkable
        assert n > 0 and blocked.sum() <= n, shape
        assert not (sure & height & walkable & ~blocked).any(), shape
        assert not (blocked & ~(near & height)).any(), shape
        assert (sure & height & walkable).sum() > 0.9 * blocked.sum(), shape
        assert np.array_equal(area[~blocked], chf.area[~blocked])


# ------------------------------------------------------------------ clearance
def clearance(path: np.ndarray, shape) -> float:
    """The xz distance from a path to an obstacle's footprint (0 when it enters it)."""
    line = shapely.LineString(path[:, [0, 2]]) if len(path) > 1 else shapely.Point(
        path[0, [0, 2]])
    if isinstance(shape, Cylinder):
        return line.distance(shapely.Point(shape.centre[0], shape.centre[2])) - shape.radius
    if isinstance(shape, Box):
        foot = shapely.box(shape.bmin[0], shape.bmin[2], shape.bmax[0], shape.bmax[2])
    elif isinstance(shape, OrientedBox):
        foot = shapely.Polygon(shape.footprint())
    else:
        foot = shapely.Polygon(shape.points_xz)
    return line.distance(foot)


def shape_of(kind: int, x: float, z: float, a: float, b: float, turn: float):
    if kind == 0:
        return Cylinder((x, -50, z), a, 100)
    if kind == 1:
        return Box((x - a, -50, z - b), (x + a, 50, z + b))
    if kind == 2:
        return OrientedBox((x, 0, z), (a, 50, b), turn)
    k = 3 + int(turn) % 5
    angles = (np.arange(k) + np.linspace(0, 0.3 * b, k)) * 2 * math.pi / k + turn
    return Prism(np.stack([x + a * np.cos(angles), z + a * np.sin(angles)], axis=1), -50, 50)


LEVELS = {"floor": generate.floor(size=16),
          "terrain": generate.terrain(size=16, height=1.5, seed=3)}
CACHES: dict[str, TileCache] = {}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level=st.sampled_from(sorted(LEVELS)), kind=st.integers(0, 3),
       centre=st.tuples(st.floats(3, 13), st.floats(3, 13)),
       size=st.tuples(st.floats(0.2, 2.5), st.floats(0.2, 2.5)), turn=st.floats(0, 6.3),
       seed=st.integers(0, 2**32 - 1))
def test_paths_keep_clear_of_every_obstacle(level, kind, centre, size, turn, seed):
    """After an update, every straight path keeps out of each obstacle's footprint, at
    least the agent's radius less a cell away (erosion keeps the radius; contour
    simplification may cut a corner by less than a cell)."""
    if level not in CACHES:
        CACHES[level] = TileCache(LEVELS[level], tile_size=24, flags=WALK)
    cache = CACHES[level]
    shapes = [shape_of(kind, *centre, *size, turn),
              shape_of((kind + 1) % 4, 16 - centre[0], 16 - centre[1], *size[::-1], turn)]
    ids = [cache.add(shape) for shape in shapes]
    try:
        cache.update()
        q = NavMesh3DQuery(cache.mesh)
        s = cache.mesh.settings
        rng = np.random.default_rng(seed)
        for _ in range(12):
            a, b = rng.uniform(0.5, 15.5, (2, 2))
            path = q.find_path((a[0], 5, a[1]), (b[0], 5, b[1]), half_extents=(2, 20, 2))
            if path.status is not Status.FOUND:
                continue
            for shape in shapes:
                assert clearance(path.path, shape) >= s.agent_radius - s.cell_size, shape
    finally:
        for oid in ids:
            cache.remove(oid)
        cache.update()


# ------------------------------------------------------------------ bad input
def test_bad_obstacles_are_refused_naming_the_value():
    with pytest.raises(InvalidGeometryError, match="radius"):
        Cylinder((0, 0, 0), -1, 2)
    with pytest.raises(InvalidGeometryError, match="height"):
        Cylinder((0, 0, 0), 1, 0)
    with pytest.raises(InvalidGeometryError, match=r"centre \[0.0, nan, 0.0\] is not finite"):
        Cylinder((0, float("nan"), 0), 1, 2)
    with pytest.raises(InvalidGeometryError, match="centre must be 3 numbers"):
        Cylinder((0, 0), 1, 2)                               # type: ignore[arg-type]
    with pytest.raises(InvalidGeometryError, match="centre must be 3 numbers"):
        Cylinder((True, 0, 0), 1, 2)
    with pytest.raises(InvalidGeometryError, match="bmax must be 3 numbers"):
        Box((0, 0, 0), np.ones(3, bool))
    with pytest.raises(InvalidGeometryError, match="below its bmax"):
        Box((0, 0, 0), (1, 1, 0))
    with pytest.raises(InvalidGeometryError, match="half_extents"):
        OrientedBox((0, 0, 0), (1, -1, 1), 0)
    with pytest.raises(InvalidGeometryError, match="yaw"):
        OrientedBox((0, 0, 0), (1, 1, 1), math.inf)
    with pytest.raises(InvalidGeometryError, match="convex"):
        Prism([(0, 0), (2, 0), (1, 0.5), (1, 2)], 0, 1)      # a dent
    with pytest.raises(InvalidGeometryError, match="convex"):
        Prism([(0, 0), (1, 0), (2, 0)], 0, 1)                # flat
    with pytest.raises(InvalidGeometryError, match="ymin < ymax"):
        Prism([(0, 0), (1, 0), (0, 1)], 1, 1)
    with pytest.raises(InvalidGeometryError, match="3 or more"):
        Prism([(0, 0), (1, 0)], 0, 1)
    assert Prism(np.array([(0, 0), (0, 1), (1, 1), (1, 0)]), 0, 1).points_xz[1] == (0.0, 1.0)
    assert Cylinder((1, 2, 3), 1, 2) == Cylinder([1.0, 2.0, 3.0], 1.0, 2.0)


def test_bad_calls_are_refused_and_change_nothing():
    cache = TileCache(generate.floor(size=10), tile_size=16)
    oid = cache.add(Cylinder((5, 0, 5), 1, 2))
    cache.update()
    mesh = cache.mesh
    with pytest.raises(InvalidQueryError, match="no obstacle has id 99"):
        cache.remove(99)
    with pytest.raises(InvalidQueryError, match="must be an integer"):
        cache.move("1", Cylinder((5, 0, 5), 1, 2))          # type: ignore[arg-type]
    with pytest.raises(InvalidGeometryError, match="must be a Cylinder, Box"):
        cache.add((5, 0, 5))                                 # type: ignore[arg-type]
    with pytest.raises(InvalidGeometryError, match="must be a Cylinder, Box"):
        cache.move(oid, None)                                # type: ignore[arg-type]
    assert cache.pending == 0 and list(cache.obstacles) == [oid] and cache.mesh is mesh
    with pytest.raises(InvalidQueryError, match="max_tiles"):
        cache.update(max_tiles=0)
    with pytest.raises(InvalidQueryError, match="max_seconds"):
        cache.update(max_seconds=-1)
    cache.remove(oid)
    with pytest.raises(InvalidQueryError, match="no obstacle has id 1"):
        cache.remove(oid)
    with pytest.raises(InvalidQueryError, match="tile_size"):
        TileCache(generate.floor(), tile_size=0)
    with pytest.raises(InvalidQueryError, match="flags"):
        TileCache(generate.floor(), flags=-1)
    with pytest.raises(InvalidQueryError, match="settings must be BuildSettings"):
        TileCache(generate.floor(), settings={})             # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="needs a Level"):
        TileCache("level.obj")                               # type: ignore[arg-type]
