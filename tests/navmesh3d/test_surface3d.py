"""Surface queries on voxel navmeshes (raycast, move along the surface, distance to the
nearest wall, polygons in a box, wall segments, ground height, random points): properties
on generated levels, and (slow) the same answers as Detour's on nav_test.obj and the
generated levels, whole and in tiles."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh3d import BuildSettings, Level, build, generate
from wayfinding.navmesh3d.query import NavMesh3DQuery, with_flags

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from recast_data import detour, nav_test  # noqa: E402
from test_query3d import LEVELS, _random_on_mesh  # noqa: E402


@pytest.fixture(scope="module", params=[0, 16], ids=["whole", "tiled"])
def building(request):
    mesh = with_flags(build(generate.building(), tile_size=request.param))
    return mesh, NavMesh3DQuery(mesh)


def _outline(q: NavMesh3DQuery, p: int) -> np.ndarray:
    return q._fans()[0][p]


def _inside(v: np.ndarray, x: float, z: float, eps: float = 1e-4) -> bool:
    """Whether (x, z) lies in the convex polygon v (either winding), within eps."""
    e = np.roll(v, -1, axis=0) - v
    cross = e[:, 0] * (z - v[:, 1]) - e[:, 1] * (x - v[:, 0])
    scale = np.linalg.norm(e, axis=1)
    return bool((cross >= -eps * scale).all() or (cross <= eps * scale).all())


def test_raycast_walks_linked_polygons(building):
    mesh, q = building
    ptr, to, _, _ = q._data.links()
    rng = np.random.default_rng(2)
    pts = _random_on_mesh(mesh, rng, 80)
    for a, b in zip(pts[:40], pts[40:]):
        r = q.raycast(tuple(a), tuple(b))
        c = r.polygons.tolist()
        assert c and c[0] == q.nearest(tuple(a))[0]
        assert all(y in to[ptr[x]:ptr[x + 1]] for x, y in zip(c, c[1:]))
        if r.hit:
            assert 0 <= r.t <= 1
            assert math.hypot(r.normal[0], r.normal[2]) == pytest.approx(1, abs=1e-5)
            assert r.normal[1] == 0
            assert r.normal[0] * (b - a)[0] + r.normal[2] * (b - a)[2] <= 1e-6  # faces back
        else:
            assert r.point == tuple(map(float, b)) and r.normal == (0.0, 0.0, 0.0)
            assert _inside(_outline(q, c[-1]), b[0], b[2])


def test_raycast_on_open_floor_reaches_and_stops_at_the_edge():
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    r = q.raycast((5, 0, 5), (6, 0, 6))
    assert not r.hit
    r = q.raycast((5, 0, 5), (50, 0, 5))
    assert r.hit and 0 < r.t < 1
    assert abs(r.normal[0]) == pytest.approx(1) and r.point[0] < 10.5


def test_move_along_surface_stays_on_the_mesh(building):
    mesh, q = building
    rng = np.random.default_rng(4)
    pts = _random_on_mesh(mesh, rng, 60)
    for a in pts:
        b = a + np.r_[rng.normal(0, 1.5), 0, rng.normal(0, 1.5)]
        r = q.move_along_surface(tuple(a), tuple(b))
        assert r.polygons[0] == q.nearest(tuple(a))[0]
        last = int(r.polygons[-1])
        assert _inside(_outline(q, last), r.point[0], r.point[2])
        h = q.height(last, r.point)
        if h is not None:
            assert r.point[1] == pytest.approx(h)
        # never farther from the target than the start is
        d0 = math.hypot(*(b - a)[[0, 2]])
        assert math.hypot(r.point[0] - b[0], r.point[2] - b[2]) <= d0 + 1e-4


def test_distance_to_wall_is_the_nearest_wall(building):
    mesh, q = building
    rng = np.random.default_rng(5)
    for a in _random_on_mesh(mesh, rng, 30):
        w = q.distance_to_wall(tuple(a), 3.0)
        walls = [s for p in q.polygons_in_box(tuple(a), (3.5, 50, 3.5))
                 for s in q.wall_segments(int(p))]
        if w.point is None:
            assert w.distance == math.inf
            continue
        assert 0 <= w.distance <= 3.0
        assert math.hypot(w.point[0] - a[0], w.point[2] - a[2]) == pytest.approx(
            w.distance, abs=1e-4)
        # the hit lies on one of the walls around
        assert any(_on_segment(w.point, s) for s in walls)


def _on_segment(p: Any, s: np.ndarray) -> bool:
    a, b = s[0][[0, 2]].astype(np.float64), s[1][[0, 2]].astype(np.float64)
    x = np.array([p[0], p[2]])
    t = np.clip(np.dot(x - a, b - a) / max(np.dot(b - a, b - a), 1e-12), 0, 1)
    return bool(np.linalg.norm(a + t * (b - a) - x) < 1e-3)


def test_polygons_in_box_hold_the_nearest(building):
    mesh, q = building
    for a in _random_on_mesh(mesh, np.random.default_rng(6), 30):
        p, _ = q.nearest(tuple(a))
        assert p in q.polygons_in_box(tuple(a), (2, 4, 2)).tolist()
    assert len(q.polygons_in_box((1e4, 0, 1e4), (1, 1, 1))) == 0


def test_wall_segments_lie_on_the_outline(building):
    mesh, q = building
    for p in range(0, q._data.num_polys, 3):
        v = _outline(q, p)
        for s in q.wall_segments(p):
            for end in s:
                assert _inside(v, float(end[0]), float(end[2]), 1e-3)


def test_random_points_are_on_the_mesh_and_uniform():
    mesh = with_flags(build(generate.floor()))
    q = NavMesh3DQuery(mesh)
    rng = np.random.default_rng(9)
    pts = np.array([q.random_point(rng=rng)[1] for _ in range(2000)])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    # the floor is one flat square: the four quarters get a quarter each
    mid = (lo + hi) / 2
    quarters = np.histogram2d(pts[:, 0], pts[:, 2], bins=2,
                              range=[[lo[0], hi[0]], [lo[2], hi[2]]])[0].ravel()
    assert (abs(quarters / len(pts) - 0.25) < 0.04).all(), quarters
    assert np.allclose(pts[:, 1], pts[0, 1], atol=0.2)
    c = (float(mid[0]), float(pts[0, 1]), float(mid[2]))
    for _ in range(100):
        p, at = q.random_point(rng=rng, centre=c, radius=1.5)
        assert math.hypot(at[0] - c[0], at[2] - c[2]) <= 1.5
        assert q.find_path(c, at).found


def test_random_points_follow_the_ground(building):
    mesh, q = building
    rng = np.random.default_rng(3)
    for _ in range(100):
        p, at = q.random_point(rng=rng)
        assert _inside(_outline(q, p), at[0], at[2])
        assert q.height(p, at) == pytest.approx(at[1], abs=1e-4)


def test_random_points_far_from_the_origin_are_on_the_ground():
    # A 20 x 20 floor with a 4 x 4 hole, 1e5 from the origin: a point drawn on a polygon's
    # edge may fall just outside it by the float32 rounding of its vertices.
    far = 1e5
    rects = [(0, 0, 20, 8), (0, 12, 20, 20), (0, 8, 8, 12), (12, 8, 20, 12)]
    verts = np.array([[x + far, 0.0, z + far] for x0, z0, x1, z1 in rects
                      for x, z in ((x0, z0), (x1, z0), (x1, z1), (x0, z1))])
    tris = np.array([t for k in range(4) for t in ([4 * k, 4 * k + 2, 4 * k + 1],
                                                    [4 * k, 4 * k + 3, 4 * k + 2])])
    q = NavMesh3DQuery(with_flags(build(Level(verts, tris))))
    rng = np.random.default_rng(0)
    for _ in range(1000):
        p, at = q.random_point(rng=rng)
        assert _inside(_outline(q, p), at[0], at[2], 1e-2)
        assert at[1] == pytest.approx(0.0, abs=0.5)


@pytest.mark.parametrize("rng", ["abc", -1, 1.5, True])
def test_a_bad_seed_is_refused(rng):
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    with pytest.raises(InvalidQueryError, match="rng"):
        q.random_point(rng=rng)


def test_bad_surface_queries_raise():
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    for huge in (3e38, 1e39, 1e300):
        with pytest.raises(InvalidQueryError, match="within 1e30"):
            q.raycast((5, 0, 5), (huge, 0, 5))
        with pytest.raises(InvalidQueryError, match="within 1e30"):
            q.raycast_many([(5, 0, 5)], [(huge, 0, 5)])
    with pytest.raises(InvalidQueryError, match="off the mesh"):
        q.raycast((1e4, 0, 1e4), (1, 0, 1))
    with pytest.raises(InvalidQueryError, match="end"):
        q.raycast((5, 0, 5), (1, float("nan"), 1))
    with pytest.raises(InvalidQueryError):
        q.move_along_surface((5, 0), (1, 0, 1))
    with pytest.raises(InvalidQueryError, match="radius"):
        q.distance_to_wall((5, 0, 5), -1)
    with pytest.raises(InvalidQueryError, match="off the mesh"):
        q.distance_to_wall((1e4, 0, 5), 1)
    with pytest.raises(InvalidQueryError, match="polygon"):
        q.wall_segments(10**6)
    with pytest.raises(InvalidQueryError, match="polygon"):
        q.height(-1, (0, 0, 0))
    with pytest.raises(InvalidQueryError):
        q.polygons_in_box((0, 0, 0), (1, -1, 1))
    with pytest.raises(InvalidQueryError, match="radius"):
        q.random_point(centre=(5, 0, 5))
    with pytest.raises(InvalidQueryError, match="usable"):
        NavMesh3DQuery(build(generate.floor())).random_point(rng=1)


# ---------------------------------------------------------------- against Detour
def _compare_with_detour(level: Level, settings: BuildSettings, n: int, seed: int,
                         tile_size: int = 0) -> None:
    mesh = with_flags(build(level, settings=settings, tile_size=tile_size))
    q = NavMesh3DQuery(mesh)
    base, first, where = {}, 0, []
    for t in mesh.tiles:
        base[t.x, t.z] = first
        where += [[t.x, t.z, i] for i in range(t.polymesh.num_polys)]
        first += t.polymesh.num_polys

    def ours(ref: Any) -> int:
        return -1 if ref == -1 else base[ref[0], ref[1]] + ref[2]

    rng = np.random.default_rng(seed)
    if not mesh.num_polygons:
        return
    a = _random_on_mesh(mesh, rng, n).astype(np.float32)
    far = rng.permutation(a)
    near = (a + rng.normal(0, 1.0, a.shape) * [1, 0, 1]).astype(np.float32)
    rays = [list(map(float, x)) + list(map(float, y)) for x, y in
            zip(np.r_[a, a], np.r_[far, near])]
    moves = [list(map(float, x)) + list(map(float, y)) for x, y in zip(a, near)]
    boxes = [list(map(float, x)) + [float(e) for e in rng.uniform(0.2, 4, 3)] for x in a]
    polys = [q.nearest(tuple(x))[0] for x in a]
    heights = [[where[p]] + list(map(float, x)) for p, x in zip(polys, a) if p >= 0]
    got = detour(level, settings, tile_size=tile_size, raycasts=rays, moves=moves,
                 boxes=boxes, heights=heights)
    for ray, want in zip(rays, got["raycasts"]):
        if want["start"] == -1:
            with pytest.raises(InvalidQueryError):
                q.raycast(tuple(ray[:3]), tuple(ray[3:]))
            continue
        r = q.raycast(tuple(ray[:3]), tuple(ray[3:]))
        assert r.polygons.tolist() == [ours(x) for x in want["polys"]], ray
        if want["t"] is None:
            assert not r.hit, ray
        else:
            assert np.float32(r.t) == np.float32(want["t"]), ray
            if r.t < 1 or r.hit:
                assert np.array_equal(np.float32(r.normal), np.float32(want["normal"])), ray
    for m, want in zip(moves, got["moves"]):
        if want["start"] == -1:
            continue
        r = q.move_along_surface(tuple(m[:3]), tuple(m[3:]))
        assert r.polygons.tolist() == [ours(x) for x in want["visited"]], m
        assert np.float32(r.point[0]) == np.float32(want["pos"][0]), m
        assert np.float32(r.point[2]) == np.float32(want["pos"][2]), m
        y = want["height"] if want["height"] is not None else want["pos"][1]
        assert np.float32(r.point[1]) == np.float32(y), m
    for b, want in zip(boxes, got["boxes"]):
        assert q.polygons_in_box(tuple(b[:3]), tuple(b[3:])).tolist() == \
            [ours(x) for x in want], b
    for h, want in zip(heights, got["heights"]):
        mine = q.height(ours(h[0]), tuple(h[1:]))
        assert (mine is None) == (want is None), h
        if mine is not None:
            assert np.float32(mine) == np.float32(want), h


@pytest.mark.slow
def test_nav_test_surface_is_detour_s():
    _compare_with_detour(nav_test(), BuildSettings(), 400, 5)


@pytest.mark.slow
@pytest.mark.parametrize("settings", ["defaults", "coarse, no filters"])
@pytest.mark.parametrize("name", sorted(LEVELS) + ["thin walls"])
def test_generated_surface_is_detour_s(name, settings):
    from test_recast_oracle import LEVELS as ORACLE_LEVELS
    from test_recast_oracle import SETTINGS
    _compare_with_detour(ORACLE_LEVELS[name](), SETTINGS[settings], 120, 11)


@pytest.mark.slow
@pytest.mark.parametrize("tile_size", [16, 40])
@pytest.mark.parametrize("name", ["building", "nav_test"])
def test_tiled_surface_is_detour_s(name, tile_size):
    level = nav_test() if name == "nav_test" else LEVELS[name]()
    _compare_with_detour(level, BuildSettings(), 120, 13, tile_size=tile_size)


def test_cli_queries(tmp_path, capsys):
    from wayfinding.cli import main

    generate.stairs(steps=3).to_obj(tmp_path / "s.obj")
    mesh = str(tmp_path / "s.npz")
    assert main(["navmesh3d", "build", str(tmp_path / "s.obj"), "-o", mesh, "--json"]) == 0
    capsys.readouterr()
    assert main(["navmesh3d", "path", mesh, "--from", "1,0,1.5", "--to", "7,1,1.5"]) == 0
    assert "path (found)" in capsys.readouterr().out
    assert main(["navmesh3d", "raycast", mesh, "--from", "100,0,1", "--to", "1,0,1"]) == 1
    assert "off the mesh" in capsys.readouterr().out
    assert main(["navmesh3d", "nearest", mesh, "--at", "100,0,1"]) == 0
    assert "no polygon" in capsys.readouterr().out
    for bad in ("1,nan,1", "1,2", "a,b,c"):
        with pytest.raises(SystemExit) as exc:
            main(["navmesh3d", "nearest", mesh, "--at", bad])
        assert exc.value.code == 2
        assert "X,Y,Z" in capsys.readouterr().err or bad == "1,nan,1"
