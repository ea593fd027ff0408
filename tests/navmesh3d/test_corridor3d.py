"""The path corridor on voxel navmeshes: its corners against fresh path queries, moves on
and off it, its shortcuts, validity under filters, off-mesh links, and bad input."""

from dataclasses import replace

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh.records import END, OFFMESH, QueryFilter
from wayfinding.navmesh3d import MeshTile, NavMesh3DQuery, build, generate, with_flags
from wayfinding.navmesh3d.corridor import (
    PathCorridor,
    _merge_end_moved,
    _merge_start_moved,
    _merge_start_shortcut,
    polygon_map,
)
from wayfinding.navmesh3d.obstacles import Cylinder
from wayfinding.navmesh3d.query import WALK
from wayfinding.navmesh3d.tilecache import TileCache
from wayfinding.results import Status

LEVELS = {
    "building": lambda: with_flags(build(generate.building(storeys=3))),
    "building-tiled": lambda: with_flags(build(generate.building(storeys=2), tile_size=16)),
    "terrain-tiled": lambda: with_flags(build(generate.terrain(size=32, seed=1),
                                              tile_size=16)),
    "multi-storey": lambda: with_flags(build(generate.multi_storey())),
}
_meshes: dict = {}


def query(name):
    if name not in _meshes:
        _meshes[name] = NavMesh3DQuery(LEVELS[name]())
    return _meshes[name]


def pairs(q, n, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        _, a = q.random_point(rng=rng)
        _, b = q.random_point(rng=rng)
        if q.find_path(a, b).found:
            out.append((a, b))
    return out


def fresh_corners(q, c):
    """The corners of a fresh path query from the corridor's position to its target, the
    start and those within 0.01 of it dropped, as the corridor drops them."""
    r = q.find_path(c.position, c.target)
    pts = r.path[1:] if len(r.path) > 1 else r.path
    d = np.hypot(pts[:, 0] - c.position[0], pts[:, 2] - c.position[2])
    k = 0
    while k < len(pts) - 1 and d[k] <= 0.01:
        k += 1
    return r, pts[k:]


def is_chain(q, polygons):
    """Whether each polygon of the corridor links to the next."""
    ptr, to, _, _ = q._data.links()
    for a, b in zip(polygons[:-1].tolist(), polygons[1:].tolist()):
        if a < len(ptr) - 1 and b not in to[ptr[a]:ptr[a + 1]].tolist():
            return False
    return True


def on_ground(q, c, polygon=None, point=None):
    """Whether a point (the corridor's position) lies on a polygon's ground (its first
    polygon's): by the polygon's height there or, on its outline, by the nearest point."""
    polygon = int(c.polygons[0]) if polygon is None else int(polygon)
    point = c.position if point is None else point
    h = q.height(polygon, point)
    if h is None:
        _, p = q.nearest(point, half_extents=(1e-3, 0.5, 1e-3))
        h = p[1]
    return abs(h - point[1]) < 1e-4


def length(c):
    pts = np.vstack([c.position, c.corners().points])
    return float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum())


@pytest.mark.parametrize("name", sorted(LEVELS))
def test_corners_are_a_fresh_path_queries(name):
    q = query(name)
    for a, b in pairs(q, 40, seed=7):
        c = PathCorridor(q, a, b)
        r, expected = fresh_corners(q, c)
        got = c.corners()
        assert np.array_equal(c.polygons, r.corridor)
        assert got.points.shape == expected.shape
        np.testing.assert_allclose(got.points, expected, atol=1e-5)
        assert got.flags[-1] & END and got.polygons[-1] == -1
        assert c.status is Status.FOUND


def test_max_corners_cuts_the_corners():
    q = query("multi-storey")
    c = PathCorridor(q, (1, 0, 8), (19, 3, 8))
    all_corners = c.corners()
    assert len(all_corners) >= 3
    two = c.corners(max_corners=2)
    np.testing.assert_array_equal(two.points, all_corners.points[:2])
    assert not two.flags[-1] & END


@pytest.mark.parametrize("name", ["building", "multi-storey", "terrain-tiled"])
def test_following_the_corners_reaches_the_target_on_the_ground(name):
    q = query(name)
    for a, b in pairs(q, 8, seed=3):
        c = PathCorridor(q, a, b)
        for _ in range(2000):
            nxt = c.corners(max_corners=1).points[0]
            step = np.array(nxt) - c.position
            d = np.hypot(step[0], step[2])
            if d < 1e-6:
                break
            c.move_position(np.array(c.position) + step * min(1.0, 0.3 / d))
            assert on_ground(q, c)
            assert is_chain(q, c.polygons)
        assert np.hypot(c.position[0] - c.target[0], c.position[2] - c.target[2]) < 1e-3
        assert len(c.polygons) == 1


def test_a_move_off_the_corridor_mends_it():
    q = query("multi-storey")
    c = PathCorridor(q, (1.5, 0, 14.0), (28.0, 0, 14.0))       # along the ground
    before = set(c.polygons.tolist())
    # step sideways, across polygons the corridor does not hold
    for _ in range(40):
        x, y, z = c.position
        c.move_position((x, y, z - 0.25))
    assert c.position[2] < 5.0 and int(c.polygons[0]) not in before
    assert on_ground(q, c)
    assert is_chain(q, c.polygons)
    assert c.corners().points[-1] == pytest.approx(c.target)


def test_a_slide_stops_at_walls_and_keeps_the_ground():
    q = query("multi-storey")
    c = PathCorridor(q, (8.0, 3.0, 12.0), (8.0, 3.0, 13.0))     # on platform A
    for _ in range(30):                                        # walk off its east edge
        x, y, z = c.position
        c.move_position((x + 0.5, y, z))
    assert c.position[0] < 11.0 and c.position[1] > 2.5         # still up there


def detour(q, a, mid, b):
    """A corridor from ``a`` to ``b`` through the polygons of a detour by ``mid``."""
    c = PathCorridor(q, a, mid)
    rest = PathCorridor(q, mid, b)
    c.polygons = np.concatenate([c.polygons, rest.polygons[1:]])
    c.target = rest.target
    return c


@pytest.mark.parametrize("name", ["terrain-tiled", "building-tiled"])
def test_visibility_shortcuts_drop_detours_and_never_lengthen(name):
    q = query(name)
    rng = np.random.default_rng(2)
    changed = shorter = 0
    for a, b in pairs(q, 40, seed=13):
        _, mid = q.random_point(rng=rng)
        c = detour(q, a, mid, b)
        if len(np.unique(c.polygons)) != len(c.polygons):
            continue
        before = length(c)
        corners = c.corners()
        aim = corners.points[min(1, len(corners) - 1)]        # a ray just reaching it
        reach = np.hypot(aim[0] - c.position[0], aim[2] - c.position[2]) + 0.02
        kept = c.polygons.copy()
        if c.optimize_visibility(aim, reach):
            changed += 1
            assert not np.array_equal(kept, c.polygons)
        else:
            assert np.array_equal(kept, c.polygons)
        assert length(c) <= before + 1e-6
        shorter += length(c) < before - 1e-6
        assert is_chain(q, c.polygons) and on_ground(q, c, c.polygons[-1], c.target)
    assert changed >= 3 and shorter >= 1


@pytest.mark.parametrize("name", ["building", "terrain-tiled"])
def test_visibility_and_topology_never_lengthen_random_paths(name):
    q = query(name)
    rng = np.random.default_rng(5)
    for a, b in pairs(q, 15, seed=11):
        c = PathCorridor(q, a, b)
        for _ in range(10):                                    # wander off the corridor
            x, y, z = c.position
            c.move_position((x + rng.uniform(-0.4, 0.4), y, z + rng.uniform(-0.4, 0.4)))
        before = length(c)
        corners = c.corners()
        c.optimize_visibility(corners.points[min(1, len(corners) - 1)], 18.0)
        mid = length(c)
        assert mid <= before + 1e-6
        c.optimize_topology(max_hops=16)
        assert length(c) <= mid + 1e-6
        assert is_chain(q, c.polygons)
        assert c.corners().points[-1] == pytest.approx(c.target)


def test_topology_rejoins_detours_by_shorter_routes():
    q = query("terrain-tiled")
    rng = np.random.default_rng(4)
    changed = 0
    for a, b in pairs(q, 30, seed=17):
        _, mid = q.random_point(rng=rng)
        c = detour(q, a, mid, b)
        if len(np.unique(c.polygons)) != len(c.polygons):
            continue
        before = length(c)
        if c.optimize_topology(max_hops=32):
            changed += 1
            assert length(c) < before
        assert length(c) <= before + 1e-6 and is_chain(q, c.polygons)
    assert changed >= 5


def test_move_target_extends_the_corridor():
    q = query("multi-storey")
    c = PathCorridor(q, (2.0, 0, 14.0), (20.0, 0, 14.0))
    for _ in range(20):
        x, y, z = c.target
        c.move_target((x + 0.4, y, z))
    assert c.target[0] == pytest.approx(28.0, abs=1e-4)
    assert on_ground(q, c, c.polygons[-1], c.target)
    assert is_chain(q, c.polygons)


def flagged(mesh, polygons, flags):
    """The mesh with ``polygons`` given ``flags`` (the others keep theirs)."""
    all_flags = np.concatenate([t.polymesh.flags for t in mesh.tiles]).copy()
    all_flags[polygons] = flags
    tiles, k = [], 0
    for t in mesh.tiles:
        n = t.polymesh.num_polys
        tiles.append(MeshTile(t.x, t.z, replace(t.polymesh, flags=all_flags[k:k + n]),
                              t.detail))
        k += n
    return replace(mesh, tiles=tuple(tiles))


def test_validity_and_trimming_under_a_filter():
    mesh = LEVELS["multi-storey"]()
    q0 = NavMesh3DQuery(mesh)
    path = q0.find_path((1, 0, 8), (19, 3, 8))
    middle = int(path.corridor[len(path.corridor) // 2])
    q = NavMesh3DQuery(flagged(mesh, [middle], 3))
    c = PathCorridor(q, (1, 0, 8), (19, 3, 8))
    closed = QueryFilter(exclude=2)
    assert c.is_valid()
    assert not c.is_valid(filter=closed)
    k = c.polygons.tolist().index(middle)
    assert c.is_valid(filter=closed, max_look_ahead=k)
    assert c.trim_invalid(filter=closed)
    assert c.polygons.tolist() == path.corridor[:k].tolist()
    assert c.status is Status.PARTIAL and c.filter is closed
    assert on_ground(q, c, c.polygons[-1], c.target)
    assert not c.trim_invalid()
    c.replan(target=(19, 3, 8))                         # no way round the closed polygon
    assert middle not in c.polygons.tolist()


def test_trimming_the_first_polygon_restarts_on_the_position():
    mesh = LEVELS["multi-storey"]()
    first = NavMesh3DQuery(mesh).nearest((1, 0, 8))[0]
    q = NavMesh3DQuery(flagged(mesh, [first], 3))
    c = PathCorridor(q, (1, 0, 8), (19, 3, 8))
    closed = QueryFilter(exclude=2)
    assert c.trim_invalid(filter=closed)
    poly, point = q.nearest((1, 0, 8), filter=closed)
    assert c.polygons.tolist() == [poly] != [first]
    assert c.position == c.target == point


def test_trimming_with_nothing_usable_near_raises_and_changes_nothing():
    mesh = LEVELS["multi-storey"]()
    q = NavMesh3DQuery(flagged(mesh, np.arange(mesh.num_polygons), 3))
    c = PathCorridor(q, (1, 0, 8), (19, 3, 8))
    kept = (c.polygons.copy(), c.position, c.target)
    with pytest.raises(InvalidQueryError, match="off the usable mesh"):
        c.trim_invalid(filter=QueryFilter(exclude=2))
    assert np.array_equal(c.polygons, kept[0]) and (c.position, c.target) == kept[1:]
    assert c.filter == QueryFilter()


def linked():
    mesh = LEVELS["multi-storey"]()
    a, b = generate.GAP_EDGES
    link = OffMeshLink((a - 0.9, 3.0, 12.0), (b + 0.9, 3.0, 12.0), bidirectional=True,
                       kind="jump")
    return NavMesh3DQuery(mesh.with_links([link]))


@pytest.mark.parametrize("direction", [1, -1])
def test_moving_over_a_link(direction):
    q = linked()
    start, goal = (19.0, 3.0, 8.0), (27.0, 3.0, 8.0)
    if direction < 0:
        start, goal = goal, start
    c = PathCorridor(q, start, goal)
    links = c.links()
    assert [k for k, _ in links] == [0]
    node = q.mesh.num_polygons
    corners = c.corners()
    at = len(corners) - 1                        # they stop at the link's start
    assert corners.flags[at] & OFFMESH and corners.polygons[at] == node
    assert not corners.flags[:at].any()
    fresh = q.find_path(c.position, c.target)
    np.testing.assert_allclose(corners.points, fresh.path[1:at + 2], atol=1e-5)
    with pytest.raises(InvalidQueryError, match="not the next off-mesh link"):
        c.move_over_link(1)
    kept = c.polygons.copy()
    launch, land = c.move_over_link(0)
    assert not np.array_equal(kept, c.polygons) and node not in c.polygons.tolist()
    assert np.hypot(launch[0] - corners.points[at][0], launch[2] - corners.points[at][2]) < 0.05
    assert (land[0] - launch[0]) * direction > 2.0                  # across the gap
    assert c.position == land and on_ground(q, c)
    assert c.corners().points[-1] == pytest.approx(c.target)
    assert c.corners().flags[-1] & END and c.links() == []


@pytest.mark.parametrize("bad, match", [
    (dict(position=(np.nan, 0, 0)), "position"),
    (dict(position=(1, 2)), "position"),
    (dict(target="here"), "target"),
    (dict(position=(500.0, 0, 500.0)), "position .* off the mesh"),
    (dict(target=(500.0, 0, 500.0)), "target .* off the mesh"),
])
def test_bad_corridors(bad, match):
    q = query("multi-storey")
    args = dict(position=(1, 0, 8), target=(19, 3, 8)) | bad
    with pytest.raises(InvalidQueryError, match=match):
        PathCorridor(q, args["position"], args["target"])


def test_bad_calls_change_nothing():
    q = query("multi-storey")
    with pytest.raises(InvalidQueryError, match="NavMesh3DQuery"):
        PathCorridor("mesh", (1, 0, 8), (19, 3, 8))
    c = PathCorridor(q, (1, 0, 8), (19, 3, 8))
    kept = (c.polygons.copy(), c.position, c.target)
    for call, match in [(lambda: c.corners(max_corners=0), "max_corners"),
                        (lambda: c.move_position((np.inf, 0, 0)), "position"),
                        (lambda: c.move_target(None), "target"),
                        (lambda: c.optimize_visibility((2, 0, 8), -1.0), "distance"),
                        (lambda: c.optimize_topology(max_hops=0), "max_hops"),
                        (lambda: c.is_valid(filter="all"), "QueryFilter"),
                        (lambda: c.move_over_link(0), "not the next off-mesh link")]:
        with pytest.raises(InvalidQueryError, match=match):
            call()
        assert np.array_equal(c.polygons, kept[0]) and (c.position, c.target) == kept[1:]


@pytest.mark.parametrize("path, visited, expected", [
    ([1, 2, 3, 4], [1, 2], [2, 3, 4]),            # moved on along the corridor
    ([1, 2, 3, 4], [1, 9], [9, 1, 2, 3, 4]),      # off it: back the way it came
    ([1, 2, 3], [1, 9, 3], [3]),                  # round and onto its last polygon
    ([1, 2, 3], [7], [1, 2, 3]),                  # nothing shared: unchanged
])
def test_merging_a_moved_start(path, visited, expected):
    got = _merge_start_moved(np.array(path, np.int32), np.array(visited, np.int32))
    assert got.tolist() == expected


@pytest.mark.parametrize("path, visited, expected", [
    ([1, 2, 3], [3, 7], [1, 2, 3, 7]),
    ([1, 2, 3], [3, 2, 6], [1, 2, 6]),            # back along it, then off
    ([1, 2, 3], [8], [1, 2, 3]),
])
def test_merging_a_moved_end(path, visited, expected):
    got = _merge_end_moved(np.array(path, np.int32), np.array(visited, np.int32))
    assert got.tolist() == expected


@pytest.mark.parametrize("path, visited, expected", [
    ([1, 2, 3, 4, 5], [1, 8, 4], [1, 8, 4, 5]),
    ([1, 2, 3], [1], [1, 2, 3]),                  # nothing gained
    ([1, 2, 3], [9, 8], [1, 2, 3]),
])
def test_merging_a_shortcut(path, visited, expected):
    got = _merge_start_shortcut(np.array(path, np.int32), np.array(visited, np.int32))
    assert got.tolist() == expected


def test_polygon_map_keeps_shared_tiles_and_drops_rebuilt_ones():
    cache = TileCache(generate.floor(size=30.0), tile_size=32, flags=WALK)
    old = cache.mesh
    cache.add(Cylinder((15.0, -1.0, 15.0), radius=2.0, height=4.0))
    cache.update()
    new = cache.mesh
    m = polygon_map(old, new)
    assert m.shape == (old.num_polygons,)
    base = 0
    for t in old.tiles:
        ids = m[base:base + t.polymesh.num_polys]
        if (t.x, t.z) in cache.changed:
            assert (ids == -1).all()
        else:
            new_polys = new.polygons()
            for k, j in zip(range(base, base + len(ids)), ids.tolist()):
                np.testing.assert_array_equal(old.polygons()[k], new_polys[j])
        base += t.polymesh.num_polys
    assert polygon_map(old, old).tolist() == list(range(old.num_polygons))
    with pytest.raises(InvalidQueryError, match="new must be a NavMesh3D"):
        polygon_map(old, "mesh")


def test_adopting_a_tile_cache_s_next_mesh():
    cache = TileCache(generate.floor(size=30.0), tile_size=32, flags=WALK)
    q0 = NavMesh3DQuery(cache.mesh)
    away = PathCorridor(q0, (2.0, 0, 2.0), (8.0, 0, 3.0))            # one corner tile
    across = PathCorridor(q0, (2.0, 0, 15.0), (28.0, 0, 15.0))       # through the middle
    cache.add(Cylinder((15.0, -1.0, 15.0), radius=2.0, height=4.0))
    cache.update()
    q1 = NavMesh3DQuery(cache.mesh)
    assert away.adopt(q1) and away.query is q1
    np.testing.assert_allclose(away.corners().points,
                               q1.find_path(away.position, away.target).path[1:], atol=1e-5)
    kept = across.polygons.copy()
    assert not across.adopt(q1)
    assert across.status is Status.PARTIAL and 0 < len(across.polygons) < len(kept)
    assert on_ground(q1, across, across.polygons[-1], across.target)
    across.replan(target=(28.0, 0, 15.0))
    assert across.status is Status.FOUND
    with pytest.raises(InvalidQueryError, match="mapping"):
        across.adopt(q0, mapping=np.zeros(3))


@pytest.fixture
def linked_floor():
    """A tiled floor with a free link from one corner to the other: corridors across it
    end on the link's landing polygon."""
    m = with_flags(build(generate.floor(size=30), tile_size=16))
    return m.with_links([OffMeshLink((2, 0, 2), (27, 0, 27), cost=0.0)])


def test_trim_invalid_never_ends_a_corridor_on_a_link(linked_floor):
    q = NavMesh3DQuery(linked_floor)
    c = PathCorridor(q, (1, 0, 1), (28, 0, 28))
    assert c.links() and c.polygons[-1] < linked_floor.num_polygons
    linked_floor.set_flags(int(c.polygons[-1]), 0)         # the landing closes
    assert c.trim_invalid()
    assert c.polygons.tolist() == [q.nearest((1, 0, 1))[0]] and not c.links()
    assert q.nearest(c.target)[0] == c.polygons[-1]
    assert c.goal == (28.0, 0.0, 28.0)


def test_adopt_never_ends_a_corridor_on_a_link():
    cache = TileCache(generate.floor(size=30), tile_size=32, flags=WALK)
    cache.set_links([OffMeshLink((3, 0, 3), (25, 0, 25), cost=0.0)])
    c = PathCorridor(NavMesh3DQuery(cache.mesh), (2, 0, 2), (26, 0, 26))
    assert c.links()
    cache.add(Cylinder((26, 0, 26), radius=0.5, height=2))
    cache.update()
    q2 = NavMesh3DQuery(cache.mesh)
    assert not c.adopt(q2)
    assert c.query is q2 and not c.links() and len(c.polygons) == 1
    assert c.polygons[0] < cache.mesh.num_polygons


def test_a_partial_path_stopped_on_a_link_ends_before_it(linked_floor):
    q = NavMesh3DQuery(linked_floor)
    start, goal = q.nearest((1, 0, 1))[0], q.nearest((3, 0, 28))[0]
    linked_floor.set_flags([p for p in range(linked_floor.num_polygons)
                            if p not in (start, goal)], 0)
    c = PathCorridor(q, (1, 0, 1), (3, 0, 28))
    assert c.status is Status.PARTIAL and c.polygons.tolist() == [start]
    assert q.nearest(c.target)[0] == start
    corners = c.corners()
    assert corners.flags[-1] & END and corners.points[-1] == pytest.approx(c.target)


def test_replan_heads_for_the_goal_a_cut_fell_short_of():
    m = with_flags(build(generate.floor(size=30), tile_size=16))
    c = PathCorridor(NavMesh3DQuery(m), (1.0, 0.0, 1.5), (28.0, 0.0, 28.0))
    mid = int(c.polygons[len(c.polygons) // 2])
    m.set_flags(mid, 0)
    assert c.trim_invalid() and c.target[0] < 20
    m.set_flags(mid, 1)
    c.replan()
    assert c.status is Status.FOUND and c.target[0] == pytest.approx(28.0)


@pytest.mark.parametrize("mapping, reason", [
    (lambda n, top: np.zeros(n), "integers"),
    (lambda n, top: np.full(n, top), r"\[-1, "),
    (lambda n, top: np.full(n, -2), r"\[-1, "),
])
def test_adopt_rejects_a_bad_mapping(mapping, reason):
    m = with_flags(build(generate.floor(size=30), tile_size=16))
    q = NavMesh3DQuery(m)
    c = PathCorridor(q, (1.0, 0.0, 1.5), (28.0, 0.0, 28.0))
    before = c.polygons.copy()
    with pytest.raises(InvalidQueryError, match=reason):
        c.adopt(q, mapping=mapping(q._data.num_nodes, q._data.num_nodes))
    assert c.query is q and np.array_equal(c.polygons, before)
