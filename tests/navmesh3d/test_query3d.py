"""Path queries on voxel navmeshes: RecastDemo's 21 path tests on nav_test.obj (lengths,
corners and corridors as the data's README gives them), properties on generated levels
(tiled and whole), and, slow, polygon for polygon and corner for corner against Detour."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh.records import QueryFilter
from wayfinding.navmesh3d import BuildSettings, Level, build, generate
from wayfinding.navmesh3d.query import END, START, NavMesh3DQuery, with_flags
from wayfinding.results import Status

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from recast_data import detour, nav_test, require_recast  # noqa: E402

# The README of the Recast data: the straight-path lengths, corner counts and corridor
# lengths of the 21 queries of nav_mesh_test.txt.
LENGTHS = [60.3238, 49.9686, 43.7031, 45.2917, 43.9603, 17.3544, 45.1425, 42.1721, 40.1305,
           39.3071, 19.8892, 30.2002, 16.9025, 24.8981, 23.0322, 34.5605, 28.2125, 39.1789,
           24.9736, 28.2475, 16.8865]
CORNERS = [8, 6, 7, 6, 3, 4, 8, 8, 7, 7, 4, 5, 3, 6, 3, 4, 3, 6, 2, 6, 3]
POLYGONS = [21, 18, 14, 15, 12, 8, 17, 15, 13, 12, 4, 7, 7, 8, 8, 12, 8, 9, 7, 11, 7]


def path_tests() -> list[tuple[tuple[float, ...], tuple[float, ...], int, int]]:
    """The ``pf`` lines of nav_mesh_test.txt: start, end, include and exclude flags."""
    out = []
    for line in (require_recast() / "nav_mesh_test.txt").read_text().splitlines():
        f = line.split()
        if f and f[0] == "pf":
            out.append((tuple(map(float, f[1:4])), tuple(map(float, f[4:7])), int(f[7], 16),
                        int(f[8], 16)))
    return out


@pytest.fixture(scope="module")
def nav_query() -> NavMesh3DQuery:
    return NavMesh3DQuery(with_flags(build(nav_test())))


def test_recast_demo_path_tests(nav_query):
    tests = path_tests()
    assert len(tests) == 21
    for i, (s, e, include, exclude) in enumerate(tests):
        r = nav_query.find_path(s, e, filter=QueryFilter(include=include, exclude=exclude),
                                partial=True)
        assert r.status is Status.FOUND, i
        assert abs(r.cost - LENGTHS[i]) < 1e-3, (i, r.cost)
        assert len(r.path) == CORNERS[i], i
        assert len(r.corridor) == POLYGONS[i], i
        assert r.flags[0] == START and r.flags[-1] == END


def test_unflagged_polygons_are_not_usable():
    mesh = build(generate.floor())
    q = NavMesh3DQuery(mesh)
    assert q.nearest((5, 0, 5))[0] == -1
    r = q.find_path((2, 0, 2), (8, 0, 8))
    assert r.status is Status.FAILED and len(r.path) == 0 and not r.found


def _random_on_mesh(mesh, rng, n):
    verts, tris, _ = mesh.triangles()
    pick = rng.integers(len(tris), size=n)
    w = rng.dirichlet(np.ones(3), size=n)
    return np.einsum("nk,nkd->nd", w, verts[tris[pick]].astype(np.float64))


LEVELS = {
    "stairs": lambda: generate.stairs(steps=6, rise=0.3),
    "bridge": lambda: generate.bridge(clearance=2.1),
    "building": generate.building,
    "terrain": lambda: generate.terrain(size=32, seed=3),
}


@pytest.mark.parametrize("tile_size", [0, 16])
@pytest.mark.parametrize("name", sorted(LEVELS))
def test_paths_follow_linked_polygons(name, tile_size):
    mesh = with_flags(build(LEVELS[name](), tile_size=tile_size))
    q = NavMesh3DQuery(mesh)
    ptr, to, _, side = q._data.links()
    linked = {(a, int(b)) for a in range(len(ptr) - 1) for b in to[ptr[a]:ptr[a + 1]]}
    assert all((b, a) in linked for a, b in linked)        # every link has its way back
    if tile_size:
        assert mesh.num_tiles > 1 and (side != 255).any()     # the tiles are joined
    rng = np.random.default_rng(7)
    pts = _random_on_mesh(mesh, rng, 60)
    for a, b in zip(pts[:30], pts[30:]):
        r = q.find_path(tuple(a), tuple(b), partial=True)
        assert r.status in (Status.FOUND, Status.PARTIAL)
        c = r.corridor.tolist()
        assert all((x, y) in linked for x, y in zip(c, c[1:]))
        assert r.flags[0] & START and r.flags[-1] & END
        seg = np.linalg.norm(np.diff(r.path, axis=0), axis=1)
        assert r.cost == pytest.approx(seg.sum())
        if r.status is Status.FOUND:
            assert c[-1] == q.nearest(tuple(b))[0]
            assert r.cost >= np.linalg.norm((r.path[-1] - r.path[0])[[0, 2]]) - 1e-4
        else:
            assert c[-1] != q.nearest(tuple(b))[0]


def test_nearest_lies_on_the_ground():
    mesh = with_flags(build(generate.stairs(steps=6, rise=0.3)))
    q = NavMesh3DQuery(mesh)
    pts = _random_on_mesh(mesh, np.random.default_rng(1), 50)
    for p in pts:
        poly, got = q.nearest(tuple(p))
        assert poly >= 0
        assert np.allclose(np.array(got)[[0, 2]], p[[0, 2]])     # straight below / above
        # the detail height, within the cell height the polygon's own corners may differ by
        # from the detail mesh's copies of them
        assert abs(got[1] - p[1]) <= mesh.settings.cell_height + 1e-4
    assert q.nearest((1e4, 0, 1e4))[0] == -1


def test_batch_matches_one_by_one():
    mesh = with_flags(build(generate.building()))
    q = NavMesh3DQuery(mesh)
    pts = _random_on_mesh(mesh, np.random.default_rng(3), 40)
    got = q.find_paths(pts[:20], pts[20:], partial=True)
    assert len(got) == 20
    for i in range(20):
        r = q.find_path(tuple(pts[i]), tuple(pts[20 + i]), partial=True)
        assert got.status(i) is r.status
        assert np.array_equal(got.path(i), r.path)
        assert np.array_equal(got.corridor(i), r.corridor)
        assert got.lengths[i] == r.cost


def test_bad_queries_raise():
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    with pytest.raises(InvalidQueryError):
        q.find_path((0, 0), (1, 0, 1))
    with pytest.raises(InvalidQueryError):
        q.find_path((0, float("nan"), 0), (1, 0, 1))
    with pytest.raises(InvalidQueryError):
        q.find_path((0, 0, 0), (1, 0, 1), partial=1)
    with pytest.raises(InvalidQueryError):
        q.nearest((0, 0, 0), half_extents=(-1, 1, 1))
    with pytest.raises(InvalidQueryError):
        q.nearest((0, 0, 0), filter="walk")
    with pytest.raises(InvalidQueryError):
        q.find_paths(np.zeros((3, 3)), np.zeros((2, 3)))
    with pytest.raises(InvalidQueryError):
        NavMesh3DQuery("mesh")


@pytest.mark.parametrize("call", [
    lambda q: q.nearest((True, 0.0, 5.0)),
    lambda q: q.nearest(np.array([1, 0, 0], bool)),
    lambda q: q.find_path((5.0, 0.0, 5.0), (6.0, np.False_, 5.0)),
    lambda q: q.raycast((5.0, 0.0, 5.0), [True, 0, 1]),
    lambda q: q.nearest_many([(1.0, 0.0, 1.0), (True, 0.0, 1.0)]),
    lambda q: q.find_paths([(1.0, 0.0, 1.0)], np.ones((1, 3), bool)),
], ids=range(6))
def test_bools_are_not_coordinates(call):
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    with pytest.raises(InvalidQueryError, match="finite"):
        call(q)


@pytest.mark.parametrize("flags", [-1, 1 << 16, 1.0, True])
def test_flags_beyond_16_bits_are_refused(flags):
    with pytest.raises(InvalidQueryError, match="flags"):
        with_flags(build(generate.floor()), flags=flags)


# ---------------------------------------------------------------- against Detour
def _compare_with_detour(level: Level, settings: BuildSettings, n: int, seed: int,
                         tile_size: int = 0, costs: dict[int, float] | None = None,
                         crossings: str | None = None) -> None:
    mesh = with_flags(build(level, settings=settings, tile_size=tile_size))
    q = NavMesh3DQuery(mesh)
    base, first = {}, 0
    for t in mesh.tiles:
        base[t.x, t.z] = first
        first += t.polymesh.num_polys

    def ours(ref: Any) -> int:
        return -1 if ref == -1 else base[ref[0], ref[1]] + ref[2]

    rng = np.random.default_rng(seed)
    lo, hi = level.bounds
    on_mesh = _random_on_mesh(mesh, rng, n) if mesh.num_polygons else np.zeros((0, 3))
    points = np.concatenate([on_mesh, rng.uniform(lo - 1, hi + [1, 3, 1], (n, 3))]
                            ).astype(np.float32)
    ends = rng.permutation(points)
    paths = [list(map(float, a)) + list(map(float, b)) + [1, 0] for a, b in zip(points, ends)]
    extra = {"area_costs": {str(k): v for k, v in costs.items()}} if costs else {}
    got = detour(level, settings, tile_size=tile_size, points=points.tolist(), paths=paths,
                 straight_options={None: 0, "area": 1, "all": 2}[crossings], **extra)
    walk = QueryFilter(costs=costs or {})
    for p, want in zip(points.tolist(), got["nearest"]):
        poly, at = q.nearest(tuple(p))
        assert poly == ours(want[0]), p
        if poly >= 0:
            assert np.array_equal(np.float32(at), np.float32(want[1:4])), p
    for a, want in zip(paths, got["paths"]):
        r = q.find_path(tuple(a[:3]), tuple(a[3:6]), partial=True, filter=walk,
                        crossings=crossings)
        assert r.corridor.tolist() == [ours(x) for x in want["polys"]], a
        assert np.array_equal(np.float32(r.path),
                              np.float32(np.reshape(want["straight"], (-1, 3)))), a
        assert r.flags.tolist() == want["flags"], a
        assert r.corner_polygons.tolist() == [ours(x) for x in want["refs"]], a


@pytest.mark.slow
def test_nav_test_is_detour_s():
    _compare_with_detour(nav_test(), BuildSettings(), 600, 5)


@pytest.mark.slow
@pytest.mark.parametrize("settings", ["defaults", "fine", "coarse, no filters"])
@pytest.mark.parametrize("name", sorted(LEVELS) + ["ramp 35", "thin walls"])
def test_generated_levels_are_detour_s(name, settings):
    from test_recast_oracle import LEVELS as ORACLE_LEVELS
    from test_recast_oracle import SETTINGS
    _compare_with_detour(ORACLE_LEVELS[name](), SETTINGS[settings], 150, 11)


@pytest.mark.slow
@pytest.mark.parametrize("tile_size", [16, 40])
@pytest.mark.parametrize("name", ["building", "terrain", "nav_test"])
def test_tiled_meshes_are_detour_s(name, tile_size):
    level = nav_test() if name == "nav_test" else LEVELS[name]()
    _compare_with_detour(level, BuildSettings(), 150, 13, tile_size=tile_size)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(24))
def test_random_levels_and_settings_are_detour_s(seed):
    from test_recast_oracle import random_case
    _compare_with_detour(*random_case(seed), 40, seed, tile_size=(0, 16, 32)[seed % 3])


@pytest.mark.slow
@pytest.mark.parametrize("tile_size", [0, 16])
def test_convex_volumes_and_their_costs_are_detour_s(tile_size):
    """Convex volumes mark areas (some closed, area 0) that cost three times as much."""
    from test_recast_oracle import with_volumes
    level = with_volumes(generate.terrain(size=40, seed=5), 4, n=8)
    costs = {v.area: 3.0 for v in level.volumes if v.area} | {63: 1.0}
    _compare_with_detour(level, BuildSettings(), 150, 19, tile_size=tile_size, costs=costs)


@pytest.mark.slow
@pytest.mark.parametrize("tile_size", [0, 16])
def test_area_costs_are_detour_s(tile_size):
    """Half the terrain costs four times as much to cross: corridors go round it as
    Detour's do."""
    terrain = generate.terrain(size=40, seed=5)
    centre = terrain.vertices[terrain.triangles].mean(axis=1)
    areas = np.where(centre[:, 0] < np.median(centre[:, 0]), 5, 63)
    level = Level(terrain.vertices, terrain.triangles, areas=areas)
    _compare_with_detour(level, BuildSettings(), 150, 17, tile_size=tile_size,
                         costs={5: 4.0, 63: 1.0})


@pytest.mark.slow
@pytest.mark.parametrize("crossings", ["area", "all"])
@pytest.mark.parametrize("tile_size", [0, 16])
def test_crossing_corners_are_detour_s(tile_size, crossings):
    """Corners where paths cross areas, or every polygon edge, as Detour's straight-path
    options add them."""
    terrain = generate.terrain(size=40, seed=5)
    centre = terrain.vertices[terrain.triangles].mean(axis=1)
    areas = np.where(np.hypot(centre[:, 0] - 20, centre[:, 2] - 20) < 9, 5, 63)
    level = Level(terrain.vertices, terrain.triangles, areas=areas)
    _compare_with_detour(level, BuildSettings(), 150, 19, tile_size=tile_size,
                         costs={5: 1.5, 63: 1.0}, crossings=crossings)


def test_crossing_corners_lie_on_the_path_and_its_portals():
    terrain = generate.terrain(size=24, seed=3, height=1.5)
    centre = terrain.vertices[terrain.triangles].mean(axis=1)
    level = Level(terrain.vertices, terrain.triangles,
                  areas=np.where(centre[:, 0] < 12, 5, 63))
    q = NavMesh3DQuery(with_flags(build(level, tile_size=16)))
    rng = np.random.default_rng(4)
    pts = _random_on_mesh(q.mesh, rng, 40)
    areas = np.concatenate([t.polymesh.areas for t in q.mesh.tiles])
    seen = {"area": 0, "all": 0}
    for a, b in zip(pts[:20], pts[20:]):
        plain = q.find_path(tuple(a), tuple(b))
        assert plain.found
        for mode in ("area", "all"):
            r = q.find_path(tuple(a), tuple(b), crossings=mode)
            turn = np.zeros(len(r.path), bool)      # the plain path's corners, kept in order
            k = 0
            for corner in plain.path:
                while not np.array_equal(r.path[k], corner):
                    k += 1
                turn[k] = True
            assert np.array_equal(r.flags[turn], plain.flags)
            added = np.flatnonzero(~turn)
            assert (r.flags[added] == 0).all()
            seen[mode] += len(added)
            for k in added:      # on the segment between the turns around it, in xz
                before = r.path[:k][turn[:k]][-1, [0, 2]]
                after = r.path[k + 1:][turn[k + 1:]][0, [0, 2]]
                u, w = after - before, r.path[k, [0, 2]] - before
                assert abs(u[0] * w[1] - u[1] * w[0]) <= 1e-3 * max(np.hypot(*u), 1)
            if mode == "area":     # each added corner leads into another area
                for k in added:
                    i = r.corridor.tolist().index(r.corner_polygons[k])
                    assert areas[r.corridor[i]] != areas[r.corridor[i - 1]]
    assert seen["all"] > seen["area"] > 0
    with pytest.raises(InvalidQueryError, match="crossings"):
        q.find_path(tuple(pts[0]), tuple(pts[1]), crossings="some")


def test_batch_results_index_rows_from_the_end():
    q = NavMesh3DQuery(with_flags(build(generate.floor(size=20))))
    a = np.array([[2.0, 0.0, 2.0], [3.0, 0.0, 17.0]])
    b = np.array([[17.0, 0.0, 17.0], [4.0, 0.0, 3.0]])
    paths = q.find_paths(a, b)
    assert np.array_equal(paths.path(-1), paths.path(1))
    assert np.array_equal(paths.corridor(-2), paths.corridor(0))
    hits = q.raycast_many(a, b)
    assert np.array_equal(hits[-1].polygons, hits[1].polygons)
    for bad in (2, -3):
        with pytest.raises(IndexError):
            paths.path(bad)
        with pytest.raises(IndexError):
            hits[bad]


def test_with_flags_gives_the_new_mesh_areas_of_its_own():
    mesh = build(generate.floor())
    flagged = with_flags(mesh)
    flagged.set_areas(0, 5)
    assert mesh.tiles[0].polymesh.areas[0] != 5
    assert flagged.tiles[0].polymesh.areas[0] == 5
