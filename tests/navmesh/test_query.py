"""Navigation-mesh queries against shapely and the exact shortest paths: point location,
nearest polygon, A* + funnel (legal, never shorter than exact, equal to it when the corridor
holds the exact path), snapping, filters, area costs, off-mesh links, bad input.  The query
object, NavMeshQuery: its own scratch (two queries side by side, one thread at a time on each,
the mesh's per-thread queries), one-point and many-point calls with fixed return types (the old
array form of the mesh's one-point calls warns; the query refuses it), and partial paths
against a flood-fill oracle."""

import math
import threading
from collections import deque

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box

from wayfinding.errors import ConcurrentUseError, InvalidQueryError
from wayfinding.navmesh import END, OFFMESH, START, NavMesh, NavMeshQuery, OffMeshLink, QueryFilter
from wayfinding.navmesh.exact import VisibilityMap
from wayfinding.results import Status


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


@pytest.fixture(scope="module")
def world():
    area = random_world(5)
    return area, NavMesh.build(area)


def _answer(r):
    return r.found, r.status, round(r.cost, 12), r.path.tolist(), r.corridor.tolist()


def _pairs(area, seed, k):
    pts = sample_points(area, np.random.default_rng(seed), 2 * k)
    return list(zip(pts[:k], pts[k:], strict=True))


# ---------------------------------------------------------------------- own scratch
def test_queries_hold_their_own_scratch(world):
    area, mesh = world
    pairs = _pairs(area, 1, 12)
    expected = [_answer(mesh.find_path(a, b)) for a, b in pairs]
    one, two = NavMeshQuery(mesh), NavMeshQuery(mesh)
    assert one._kernel is not two._kernel
    # Interleaved: a search on one never disturbs the other's next answer.
    got = []
    for (a, b), (c, d) in zip(pairs, pairs[::-1], strict=True):
        got.append((_answer(one.find_path(a, b)), _answer(two.find_path(c, d))))
    assert [x for x, _ in got] == expected
    assert [y for _, y in got] == expected[::-1]


def test_one_query_per_thread_runs_side_by_side(world):
    area, mesh = world
    pairs = _pairs(area, 2, 10)
    expected = [_answer(mesh.find_path(a, b)) for a, b in pairs]
    answers, errors = [[] for _ in range(3)], []
    gate = threading.Barrier(3)

    def run(k):
        query = NavMeshQuery(mesh)
        gate.wait()
        try:
            for _ in range(5):
                answers[k].append([_answer(query.find_path(a, b)) for a, b in pairs])
        except Exception as exc:        # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and all(a == expected for part in answers for a in part)
    assert [len(part) for part in answers] == [5, 5, 5]


def test_the_mesh_serves_many_threads_with_a_query_each(world):
    area, mesh = world
    pairs = _pairs(area, 3, 8)
    expected = [_answer(mesh.find_path(a, b)) for a, b in pairs]
    seen, errors = [], []

    def run():
        try:
            for _ in range(5):
                assert [_answer(mesh.find_path(a, b)) for a, b in pairs] == expected
            seen.append(mesh._query())
        except Exception as exc:        # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and len({id(q) for q in seen}) == 3
    assert mesh._query() is mesh._query() and mesh._query() not in seen


class _HeldFilter(QueryFilter):
    """A filter whose key waits for ``release`` after setting ``entered``: a search given it
    stays inside :meth:`NavMeshQuery.find_path` until then."""

    @property
    def key(self):
        self.entered.set()
        self.release.wait(10)
        return super().key


def test_a_second_thread_on_one_query_is_refused(world):
    area, mesh = world
    query = NavMeshQuery(mesh)
    (a, b), = _pairs(area, 4, 1)
    expected = _answer(query.find_path(a, b))
    held = _HeldFilter()
    object.__setattr__(held, "entered", threading.Event())
    object.__setattr__(held, "release", threading.Event())
    t = threading.Thread(target=query.find_path, args=(a, b), kwargs={"filter": held})
    t.start()
    try:
        assert held.entered.wait(10)
        with pytest.raises(ConcurrentUseError, match="NavMeshQuery"):
            query.find_path(a, b)
        # Point queries touch no scratch: they answer meanwhile.
        assert query.locate(a) == mesh.locate(a)
    finally:
        held.release.set()
        t.join(10)
    assert _answer(query.find_path(a, b)) == expected


def test_a_query_needs_a_mesh():
    with pytest.raises(InvalidQueryError, match="NavMesh"):
        NavMeshQuery(box(0, 0, 1, 1))


# ---------------------------------------------------------------------- one point, many points
@pytest.mark.parametrize("owner", ["mesh", "query"])
def test_one_point_calls_return_scalars_and_many_point_calls_arrays(world, owner):
    area, mesh = world
    q = mesh if owner == "mesh" else NavMeshQuery(mesh)
    pts = sample_points(area, np.random.default_rng(6), 5)
    poly = q.locate(pts[0])
    assert type(poly) is int and poly >= 0
    assert type(q.locate((-50.0, -50.0))) is int
    for rows in (pts, pts[:1], np.empty((0, 2))):
        got = q.locate_many(rows)
        assert isinstance(got, np.ndarray) and got.dtype == np.int32 and got.shape == (len(rows),)
        assert got.tolist() == [q.locate(p) for p in rows]
    near = q.nearest((-5.0, 3.0))
    assert type(near[0]) is int and type(near[1]) is tuple
    assert all(type(v) is float for v in near[1])
    polys, snapped = q.nearest_many(np.vstack([pts[:1], [(-5.0, 3.0)]]))
    assert polys.dtype == np.int32 and polys.shape == (2,) and snapped.shape == (2, 2)
    assert (int(polys[1]), tuple(snapped[1].tolist())) == near
    assert q.nearest_many(pts[:1])[0].shape == (1,)
    for many in (q.locate_many, q.nearest_many):
        with pytest.raises(InvalidQueryError, match=r"\(n, 2\) array"):
            many((1.0, 2.0))


def test_an_array_to_the_mesh_s_one_point_calls_still_works_and_warns(world):
    area, mesh = world
    pts = sample_points(area, np.random.default_rng(7), 4)
    with pytest.warns(DeprecationWarning, match=r"NavMesh\.locate_many\(\)") as caught:
        got = mesh.locate(pts)
    assert caught[0].filename == __file__          # blamed on the caller
    assert np.array_equal(got, mesh.locate_many(pts))
    with pytest.warns(DeprecationWarning, match=r"NavMesh\.nearest_many\(\)"):
        polys, snapped = mesh.nearest(pts)
    want = mesh.nearest_many(pts)
    assert np.array_equal(polys, want[0]) and np.array_equal(snapped, want[1])


def test_the_query_s_one_point_calls_refuse_an_array(world):
    area, mesh = world
    q = NavMeshQuery(mesh)
    pts = sample_points(area, np.random.default_rng(7), 4)
    with pytest.raises(InvalidQueryError, match=r"one \(x, y\) point; for an \(n, 2\) array "
                       r"use locate_many\(\)"):
        q.locate(pts)
    with pytest.raises(InvalidQueryError, match=r"use nearest_many\(\)"):
        q.nearest(pts)


def test_the_mesh_s_old_points_keyword_still_works_and_warns(world):
    area, mesh = world
    p = tuple(sample_points(area, np.random.default_rng(8), 1)[0])
    with pytest.warns(DeprecationWarning, match=r"locate\(points=\.\.\.\) is deprecated; "
                      r"use point=\.\.\."):
        assert mesh.locate(points=p) == mesh.locate(p)
    with pytest.warns(DeprecationWarning, match=r"nearest\(points=\.\.\.\) is deprecated"):
        assert mesh.nearest(points=p) == mesh.nearest(p)


# ---------------------------------------------------------------------- partial paths
def _islands(seed):
    """Three islands side by side, each a square with random holes."""
    rng = np.random.default_rng(seed)
    parts = []
    for x0 in (0.0, 14.0, 28.0):
        holes = []
        for _ in range(4):
            x, y = rng.random(2) * [8, 8] + [x0 + 1, 1]
            holes.append(box(x, y, x + 1 + rng.random(), y + 1 + rng.random()))
        parts.append(box(x0, 0, x0 + 10, 10).difference(shapely.union_all(holes)))
    area = shapely.union_all(parts)
    return area, [max(getattr(p, "geoms", [p]), key=lambda g: g.area) for p in parts]


def _flood(mesh, start, allowed=None):
    """The polygons reachable from ``start``: breadth-first over shared edges and links."""
    allowed = np.ones(mesh.num_polygons, bool) if allowed is None else allowed
    out = {a: [] for a in range(mesh.num_polygons)}
    for a in range(mesh.num_polygons):
        out[a] += [int(b) for b in mesh.neighbours[a, :mesh.sizes[a]] if b >= 0]
    for link, (a, b) in zip(mesh.links, mesh.link_polygons.tolist(), strict=True):
        out[a].append(b)
        if link.bidirectional:
            out[b].append(a)
    seen, todo = {start}, deque([start])
    while todo:
        for b in out[todo.popleft()]:
            if b not in seen and allowed[b]:
                seen.add(b)
                todo.append(b)
    return seen


def _check_partial(mesh, area, start, goal, allowed=None, **kw):
    r = mesh.find_path(start, goal, partial=True, **kw)
    assert r.status is Status.PARTIAL and not r.found and len(r.path) >= 2
    reach = _flood(mesh, mesh.locate(start), allowed)
    polys = {p: Polygon(mesh.polygon(p)) for p in range(mesh.num_polygons)}
    best = min(polys[p].distance(Point(goal)) for p in reach)
    end = r.path[-1]
    assert math.hypot(*(end - goal)) == pytest.approx(best, abs=1e-9)
    assert min(polys[p].distance(Point(end)) for p in reach) <= 1e-9
    assert r.path[0].tolist() == list(start) and r.goal.tolist() == list(goal)
    assert set(r.corridor.tolist()) <= reach and r.corridor[-1] in reach
    walked = [i for i in range(len(r.path) - 1) if not r.flags[i] & 4]   # not a link
    assert r.cost == pytest.approx(sum(math.dist(r.path[i], r.path[i + 1]) for i in walked)
                                   + sum(mesh.links[i].cost for i in r.links))
    assert all(area.buffer(1e-7).covers(LineString(r.path[i:i + 2])) for i in walked)
    return r


@pytest.mark.parametrize("seed", range(6))
def test_partial_path_ends_nearest_the_goal_among_the_reachable_polygons(seed):
    area, (left, middle, right) = _islands(seed)
    mesh = NavMesh.build(area)
    rng = np.random.default_rng(100 + seed)
    starts = sample_points(left, rng, 4)
    goals = np.vstack([sample_points(middle, rng, 2), sample_points(right, rng, 2)])
    for s, g in zip(starts, goals, strict=True):
        default = mesh.find_path(s, g)
        assert default.status is Status.FAILED and not default.found and not len(default.path)
        _check_partial(mesh, area, tuple(s), tuple(g))


def test_partial_paths_follow_one_way_links():
    area, (left, middle, right) = _islands(9)
    lp, mp = left.representative_point(), middle.representative_point()
    link = OffMeshLink((lp.x, lp.y), (mp.x, mp.y), cost=2.5)
    mesh = NavMesh.build(area, links=[link])
    rng = np.random.default_rng(3)
    s, g = sample_points(left, rng, 1)[0], sample_points(right, rng, 1)[0]
    r = _check_partial(mesh, area, tuple(s), tuple(g))
    assert r.links.tolist() == [0]                # through the link: the middle is nearer
    back = _check_partial(mesh, area, tuple(sample_points(middle, rng, 1)[0]), tuple(s))
    assert back.links.tolist() == []              # one way: no link back


def test_partial_paths_respect_the_filter():
    # One island split in two by a band of polygons the filter excludes.
    area = box(0, 0, 30, 10)
    region = (box(14, 0, 16, 10), 1, 2)
    mesh = NavMesh.build(area, regions=[region])
    no_band = QueryFilter(exclude=2)
    allowed = (mesh.flags & 2) == 0
    r = _check_partial(mesh, area, (2.0, 5.0), (28.0, 7.0), allowed=allowed, filter=no_band)
    assert r.path[-1].tolist() == [14.0, 7.0]
    assert mesh.find_path((2, 5), (28, 7), filter=no_band).status is Status.FAILED


def test_partial_changes_nothing_when_the_goal_is_reachable(world):
    area, mesh = world
    for a, b in _pairs(area, 8, 6):
        full = mesh.find_path(a, b, partial=True)
        assert full.status is Status.FOUND and _answer(full) == _answer(mesh.find_path(a, b))


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_partial_must_be_a_bool(world, bad):
    with pytest.raises(InvalidQueryError, match="partial"):
        world[1].find_path((1, 1), (2, 2), partial=bad)


def test_everything_after_the_subjects_is_keyword_only(world):
    mesh = world[1]
    for call in (lambda: mesh.find_path((1, 1), (2, 2), QueryFilter()),
                 lambda: NavMeshQuery(mesh).find_path((1, 1), (2, 2), QueryFilter(), True),
                 lambda: mesh.nearest((1, 1), QueryFilter()),
                 lambda: mesh.nearest_many([(1, 1)], QueryFilter())):
        with pytest.raises(TypeError):
            call()


def test_options_once_positional_still_work_by_position_and_warn(world):
    area, mesh = world
    with pytest.warns(DeprecationWarning, match=r"QueryFilter\(\.\.\., include, exclude\)"):
        old = QueryFilter(0xFFFF, 2)
    assert old == QueryFilter(include=0xFFFF, exclude=2)
    with pytest.warns(DeprecationWarning, match=r"bidirectional=\.\.\., cost=\.\.\."):
        link = OffMeshLink((1, 1), (2, 2), True, 3.0)
    assert link == OffMeshLink((1, 1), (2, 2), bidirectional=True, cost=3.0)
    flags = np.full(mesh.num_polygons, 2)
    with pytest.warns(DeprecationWarning, match=r"with_areas\(\.\.\., areas, flags\)"):
        old_mesh = mesh.with_areas(None, flags)
    assert np.array_equal(old_mesh.flags, mesh.with_areas(flags=flags).flags)
    with pytest.warns(DeprecationWarning, match=r"random_point\(\.\.\., rng\)"):
        assert mesh.random_point(5) == mesh.random_point(rng=5)
    with pytest.raises(TypeError):                  # new with the query: keyword only
        NavMeshQuery(mesh).random_point(5)


def test_a_path_s_fields_read_late_are_those_of_its_own_query():
    """find_path's fields beyond the path, cost and status are made when first read: they
    still describe their own query after later queries, survive pickling, copying and
    replace, and a field set before it is read is kept."""
    area = random_world(5)
    mesh = NavMesh.build(area)
    q = NavMeshQuery(mesh)
    rng = np.random.default_rng(5)
    pts = sample_points(area, rng, 40)
    outside = np.array([[-3.0, 7.0], [25.0, 30.0]])
    pairs = [(a, b) for a, b in zip(pts[:20], pts[20:])] + [(outside[0], pts[0]),
                                                             (pts[1], outside[1])]
    results = [q.find_path(a, b) for a, b in pairs]
    polys = mesh_polygons(mesh)
    for (a, b), r in zip(pairs, results):
        check_found_path(r, a, b, area, polys)
        assert r.algorithm == "navmesh"
        for x, y in zip(r.corridor[:-1], r.corridor[1:]):
            assert y in mesh.neighbours[x]
        assert r.links.tolist() == [] and r.stats.expanded >= 1
        assert 0 < r.stats.elapsed < 1
    check_copies_keep_fields(q.find_path(pts[0], pts[30]))
    r = q.find_path(pts[2], pts[32])
    r.corridor = "mine"
    assert r.corridor == "mine" and r.flags[0] & START


def mesh_polygons(mesh):
    """The mesh's polygons as shapely polygons, by index."""
    return [Polygon(mesh.vertices[mesh.polygons[i, :mesh.sizes[i]]])
            for i in range(mesh.num_polygons)]


def check_found_path(r, a, b, area, polys):
    """The fields every mesh search gives a path it found from point a to point b of
    ``area`` (``polys``: :func:`mesh_polygons`), worked out from the path and the mesh."""
    from wayfinding.navmesh import NavPath

    assert isinstance(r, NavPath) and r.found
    assert r.snapped_start == (not area.covers(Point(a)))
    assert r.snapped_goal == (not area.covers(Point(b)))
    if not r.snapped_start:
        assert r.start.tolist() == list(a)
    if not r.snapped_goal:
        assert r.goal.tolist() == list(b)
    assert r.start.tolist() == r.path[0].tolist() and r.goal.tolist() == r.path[-1].tolist()
    assert r.flags.dtype == np.uint8 and r.flags[0] & START and r.flags[-1] & END
    assert not (r.flags[1:-1] & (START | END)).any()
    assert polys[r.corridor[0]].buffer(1e-9).covers(Point(r.start))
    assert polys[r.corridor[-1]].buffer(1e-9).covers(Point(r.goal))
    for corner, p in zip(r.path, r.corner_polygons):
        assert polys[p].buffer(1e-9).covers(Point(corner))
    assert math.isclose(r.cost, float(np.hypot(*np.diff(r.path, axis=0).T).sum()))


def same_fields(x, y, skip=()):
    """Assert that two paths hold equal values in every :class:`NavPath` field but
    ``skip``."""
    import dataclasses

    from wayfinding.navmesh import NavPath

    for f in dataclasses.fields(NavPath):
        if f.name not in skip:
            u, v = getattr(x, f.name), getattr(y, f.name)
            assert (np.array_equal(u, v) if isinstance(u, np.ndarray) else u == v), f.name


def check_copies_keep_fields(r):
    """A path pickled, copied, deep-copied or replaced holds the same fields."""
    import copy
    import dataclasses
    import pickle

    for other in (pickle.loads(pickle.dumps(r)), copy.copy(r), copy.deepcopy(r),
                  dataclasses.replace(r, cost=r.cost)):
        same_fields(other, r)


def test_a_way_back_over_the_line_it_crossed_bends_at_the_shared_end():
    # Four polygons round the tip (0, 0) of a wedge-shaped hole: the corridor crosses y = 0
    # upwards through one portal and back down through the next, both on that line and
    # sharing the tip.  Seen from the start, the second portal is seen from behind (not
    # edge-on): the way bends at the tip, not at the second portal's far end (inside the hole).
    verts = np.array([(-8, -16), (24, -16), (0, 0), (-8, 0), (1, 0), (1, 4), (-8, 3),
                      (1, -0.5), (8.5, -4.25), (8.5, 12), (3.5, 12)], float)
    polys = [[0, 1, 2, 3], [3, 2, 4, 5, 6], [7, 4, 2], [7, 8, 9, 10, 5, 4]]
    table = np.full((4, 6), -1, np.int32)
    for i, p in enumerate(polys):
        table[i, :len(p)] = p
    mesh = NavMesh(verts, table, np.array([len(p) for p in polys], np.int32))
    free = shapely.union_all([Polygon(verts[p]) for p in polys])
    start, goal = (12.5, -12.5), (8.3, -0.8)
    r = mesh.find_path(start, goal)
    assert r.corridor.tolist() == [0, 1, 2, 3]
    assert r.path.tolist() == [[12.5, -12.5], [0.0, 0.0], [8.3, -0.8]]
    assert r.cost == pytest.approx(mesh.find_path(start, goal, method="polyanya").cost, abs=1e-12)
    assert free.buffer(1e-9).covers(LineString(r.path))
    assert mesh.find_paths(np.array([start]), np.array([goal])).path(0).tolist() == r.path.tolist()


@pytest.mark.parametrize("method", ["astar", "polyanya"])
def test_a_path_s_fields_are_made_on_first_read_and_a_field_given_before_is_kept(method):
    mesh = NavMesh.build(random_world(3))
    a, b = (1.0, 1.0), (19.0, 19.0)
    whole = mesh.find_path(a, b, method=method)
    assert whole.corridor is not None and whole.stats.expanded > 0
    path = mesh.find_path(a, b, method=method)
    mine = np.array([7, 8, 9], np.int32)
    path.corridor = mine
    path.snapped_goal = True
    assert path.flags.tolist() == whole.flags.tolist()     # the rest made from the answer
    assert path.corridor is mine and path.snapped_goal is True
    assert path.corner_polygons.tolist() == whole.corner_polygons.tolist()
    assert path.start.tolist() == whole.start.tolist()
    assert path.algorithm == whole.algorithm
