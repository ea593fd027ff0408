"""Navigation-mesh queries against shapely and the exact shortest paths: point location,
nearest polygon, A* + funnel (legal, never shorter than exact, equal to it when the corridor
holds the exact path), snapping, filters, area costs, off-mesh links, bad input."""

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import END, OFFMESH, START, NavMesh, OffMeshLink, QueryFilter
from wayfinding.navmesh.exact import VisibilityMap


def random_world(seed, n_holes=10, size=20.0):
    rng = np.random.default_rng(seed)
    holes = []
    for _ in range(n_holes):
        x, y = rng.random(2) * size
        w, h = rng.random(2) * size / 6 + 0.2
        if rng.random() < 0.4:
            ang = rng.random() * np.pi
            holes.append(shapely.affinity.rotate(box(x, y, x + w, y + h), ang, use_radians=True))
        else:
            holes.append(box(x, y, x + w, y + h))
    area = box(0, 0, size, size).difference(shapely.union_all(holes))
    parts = [g for g in getattr(area, "geoms", [area]) if isinstance(g, Polygon)]
    return max(parts, key=lambda g: g.area)      # one connected part


def sample_points(area, rng, k):
    x0, y0, x1, y1 = area.bounds
    out = []
    while len(out) < k:
        p = rng.random(2) * [x1 - x0, y1 - y0] + [x0, y0]
        if area.contains(Point(p)):
            out.append(p)
    return np.array(out)


def assert_inside(area, path):
    line = LineString(path) if len(path) > 1 else Point(path[0])
    assert area.buffer(1e-7).covers(line)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), max_verts=st.sampled_from([3, 6]))
def test_paths_legal_and_exact_when_the_corridor_holds_the_shortest(seed, max_verts):
    check_world(seed, max_verts)


def test_exact_corridors_are_common():
    # On these worlds the funnel meets the exact length on many paths (not a vacuous test).
    assert sum(check_world(seed, 6) for seed in range(4)) >= 12


def check_world(seed, max_verts):
    """Paths on a random world: legal, never shorter than exact, exact when the corridor is
    the one the shortest path crosses; returns how many were exact-checked."""
    area = random_world(seed)
    mesh = NavMesh.build(area, max_verts=max_verts)
    vm = VisibilityMap(area)
    rng = np.random.default_rng(seed)
    pts = sample_points(area, rng, 16)
    polys = [Polygon(mesh.polygon(i)) for i in range(mesh.num_polygons)]
    exact_hits = 0
    for a, b in zip(pts[:8], pts[8:], strict=True):
        r, exact = mesh.find_path(a, b), vm.find_path(a, b)
        assert r.found and exact.found
        assert not r.snapped_start and not r.snapped_goal
        assert r.path[0].tolist() == a.tolist() and r.path[-1].tolist() == b.tolist()
        assert_inside(area, r.path)
        assert r.cost >= exact.cost - 1e-9
        assert r.cost == pytest.approx(np.hypot(*np.diff(r.path, axis=0).T).sum())
        assert r.flags[0] & START and r.flags[-1] & END
        if crossed_polygons(mesh, exact.path) == r.corridor.tolist():
            # The corridor is the one the shortest path crosses: the funnel finds it.
            assert r.cost == pytest.approx(exact.cost, abs=1e-9)
            exact_hits += 1
        # Corners are on the corridor's polygons.
        for p, poly in zip(r.path, r.corner_polygons, strict=True):
            assert polys[poly].buffer(1e-9).covers(Point(p))
    return exact_hits


def crossed_polygons(mesh, path):
    """The polygons a polyline crosses, in order, from points sampled inside its segments
    (a path through a point where two polygons only touch has no corridor)."""
    line = LineString(path)
    t = (np.arange(4000) + 0.5) / 4000
    pts = np.array([line.interpolate(v, normalized=True).coords[0] for v in t])
    seq = []
    for p in mesh.locate_many(pts).tolist():
        if not seq or seq[-1] != p:
            seq.append(p)
    return seq


def test_funnel_equals_exact_in_a_corridor():
    # A zig-zag corridor: the corridor holds the only route, so the funnel is exact.
    area = box(0, 0, 30, 10).difference(shapely.union_all(
        [box(5, 0, 7, 7), box(12, 3, 14, 10), box(19, 0, 21, 7), box(24, 3, 26, 10)]))
    mesh = NavMesh.build(area)
    exact = VisibilityMap(area).find_path((1, 1), (29, 1))
    r = mesh.find_path((1, 1), (29, 1))
    assert r.cost == pytest.approx(exact.cost, abs=1e-9)
    assert np.allclose(r.path, exact.path)


def test_locate_and_nearest_against_shapely():
    area = random_world(3)
    mesh = NavMesh.build(area)
    polys = [Polygon(mesh.polygon(i)) for i in range(mesh.num_polygons)]
    rng = np.random.default_rng(0)
    pts = rng.random((400, 2)) * 26 - 3
    got = mesh.locate_many(pts)
    for p, poly in zip(pts, got, strict=True):
        holders = [i for i, g in enumerate(polys) if g.covers(Point(p))]
        assert poly == (min(holders) if holders else -1)
    near, snapped = mesh.nearest_many(pts)
    for p, poly, q in zip(pts, near, snapped, strict=True):
        d = min(g.distance(Point(p)) for g in polys)
        assert math.hypot(*(q - p)) == pytest.approx(d, abs=1e-9)
        assert polys[poly].distance(Point(q)) <= 1e-9
    assert mesh.locate((5000.0, 5000.0)) == -1


def test_off_mesh_points_snap_and_say_so():
    mesh = NavMesh.build(box(0, 0, 10, 10).difference(box(4, 4, 6, 6)))
    r = mesh.find_path((-3, 5), (5, 5))           # outside the outline; inside the hole
    assert r.found and r.snapped_start and r.snapped_goal
    assert r.start.tolist() == [0.0, 5.0]
    assert math.hypot(r.goal[0] - 5, r.goal[1] - 5) == pytest.approx(1.0)
    inside = mesh.find_path((1, 1), (9, 9))
    assert not inside.snapped_start and not inside.snapped_goal


def test_filters_and_area_costs():
    # Two routes round a wall: north through a "water" strip, south the long way.
    area = box(0, 0, 20, 12).difference(box(9, 2, 11, 10))
    mesh = NavMesh.build(area, max_verts=4)
    north = np.array([Polygon(mesh.polygon(i)).centroid.y > 10 for i in
                      range(mesh.num_polygons)])
    water = mesh.with_areas(areas=np.where(north, 3, 0), flags=np.where(north, 2, 1))
    a, b = (1, 9), (19, 9)
    short = water.find_path(a, b)
    assert short.path[:, 1].max() >= 10               # through the north strip
    dear = water.find_path(a, b, filter=QueryFilter(costs={3: 50.0}))
    assert dear.path[:, 1].min() <= 2 + 1e-9 < 10 > dear.path[:, 1].max()  # the south
    banned = water.find_path(a, b, filter=QueryFilter(exclude=2))
    assert banned.path[:, 1].min() <= 2 + 1e-9 < 10 > banned.path[:, 1].max()
    assert not set(banned.corridor.tolist()) & set(np.flatnonzero(north).tolist())
    only_water = water.find_path((1, 11), (19, 11), filter=QueryFilter(include=2))
    assert only_water.found and (water.flags[only_water.corridor] == 2).all()
    with pytest.raises(InvalidQueryError):
        mesh.with_areas(areas=np.full(mesh.num_polygons, 300))


def test_off_mesh_links():
    # Two islands joined by a one-way drop and a two-way ladder.
    area = MultiPolygon([box(0, 0, 10, 10), box(20, 0, 30, 10)])
    drop = OffMeshLink((9.5, 8), (20.5, 8), kind="drop", user_id=7)
    mesh = NavMesh.build(area, links=[drop])
    r = mesh.find_path((1, 8), (29, 8))
    assert r.found and r.links.tolist() == [0]
    k = int(np.flatnonzero(r.flags & OFFMESH)[0])
    assert r.path[k].tolist() == [9.5, 8.0] and r.path[k + 1].tolist() == [20.5, 8.0]
    assert r.cost == pytest.approx(8.5 + 11 + 8.5)
    assert not mesh.find_path((29, 8), (1, 8)).found      # one way
    ladder = OffMeshLink((9.5, 2), (20.5, 2), bidirectional=True, cost=1.0, kind="ladder",
                         flags=4)
    both = NavMesh.build(area, links=[drop, ladder])
    back = both.find_path((29, 2), (1, 2))
    assert back.found and back.links.tolist() == [1] and back.cost == pytest.approx(18.0)
    assert not both.find_path((29, 2), (1, 2), filter=QueryFilter(exclude=4)).found
    # The ladder is cheap: going east uses it rather than the drop.
    assert both.find_path((1, 5), (29, 5)).links.tolist() == [1]
    with pytest.raises(Exception, match="snap"):
        NavMesh.build(area, links=[OffMeshLink((15, 5), (20.5, 5))])


def test_same_polygon_and_unreachable():
    mesh = NavMesh.build(MultiPolygon([box(0, 0, 4, 4), box(6, 0, 10, 4)]))
    r = mesh.find_path((1, 1), (3, 2))
    assert r.found and r.path.tolist() == [[1, 1], [3, 2]] and r.cost == pytest.approx(
        math.hypot(2, 1))
    assert not mesh.find_path((1, 1), (8, 2)).found


@pytest.mark.parametrize("bad", [(1, float("nan")), (1, 2, 3), "here", [[1, 2], [3, 4]]])
def test_bad_queries(bad):
    mesh = NavMesh.build(box(0, 0, 4, 4))
    with pytest.raises(InvalidQueryError):
        mesh.find_path(bad, (1, 1))
    with pytest.raises(InvalidQueryError):
        mesh.find_path((1, 1), (2, 2), filter="none")


def test_exact_lengths_agree_with_extremitypathfinder():
    epf = pytest.importorskip("extremitypathfinder")
    for seed in range(4):
        area = shapely.geometry.polygon.orient(random_world(seed, n_holes=15), 1.0)
        env = epf.PolygonEnvironment()
        env.store(list(area.exterior.coords)[:-1],
                  [list(h.coords)[:-1] for h in area.interiors], validate=False)
        vm = VisibilityMap(area)
        pts = sample_points(area, np.random.default_rng(seed), 30)
        for a, b in zip(pts[:15], pts[15:], strict=True):
            _, length = env.find_shortest_path(tuple(a), tuple(b))
            assert vm.find_path(a, b).cost == pytest.approx(length, abs=1e-9)


def test_save_and_load(tmp_path):
    area = MultiPolygon([box(0, 0, 10, 10), box(20, 0, 30, 10)])
    links = [OffMeshLink((9.5, 8), (20.5, 8), kind="drop", user_id=7),
             OffMeshLink((9.5, 2), (20.5, 2), bidirectional=True, cost=1.0, flags=4)]
    mesh = NavMesh.build(area, links=links)
    mesh = mesh.with_areas(areas=np.arange(mesh.num_polygons) % 3)
    mesh.save(tmp_path / "m.npz")
    back = NavMesh.load(tmp_path / "m.npz")
    for name in ("vertices", "polygons", "sizes", "neighbours", "areas", "flags",
                 "link_points", "link_polygons"):
        assert np.array_equal(getattr(back, name), getattr(mesh, name)), name
    assert [(x.kind, x.user_id, x.cost, x.bidirectional) for x in back.links] == \
        [("drop", 7, None, False), ("jump", 0, 1.0, True)]
    a = mesh.find_path((1, 2), (29, 8))
    b = back.find_path((1, 2), (29, 8))
    assert a.path.tolist() == b.path.tolist() and a.links.tolist() == b.links.tolist()


def test_load_refuses_bad_files(tmp_path):
    from wayfinding.errors import NavMeshFormatError

    with pytest.raises(NavMeshFormatError, match="not found"):
        NavMesh.load(tmp_path / "none.npz")
    (tmp_path / "x.npz").write_text("hello")
    with pytest.raises(NavMeshFormatError, match="not a saved"):
        NavMesh.load(tmp_path / "x.npz")
    mesh = NavMesh.build(box(0, 0, 4, 4))
    mesh.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as data:
        arrays = dict(data)
    arrays["polygons"] = arrays["polygons"] + 100
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(NavMeshFormatError, match="malformed"):
        NavMesh.load(tmp_path / "bad.npz")
