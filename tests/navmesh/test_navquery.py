"""NavMeshQuery: its own scratch (two queries side by side, one thread at a time on each, the
mesh's per-thread queries), one-point and many-point calls with fixed return types (the old
array form of the one-point calls warns), and partial paths against a flood-fill oracle."""

import math
import threading
from collections import deque

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from test_query import random_world, sample_points

from wayfinding.errors import ConcurrentUseError, InvalidQueryError
from wayfinding.navmesh import NavMesh, NavMeshQuery, OffMeshLink, QueryFilter
from wayfinding.results import Status


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


@pytest.mark.parametrize("owner", ["mesh", "query"])
def test_an_array_to_a_one_point_call_still_works_and_warns(world, owner):
    area, mesh = world
    q = mesh if owner == "mesh" else NavMeshQuery(mesh)
    pts = sample_points(area, np.random.default_rng(7), 4)
    name = type(q).__name__
    with pytest.warns(DeprecationWarning, match=rf"{name}\.locate_many\(\)") as caught:
        got = q.locate(pts)
    assert caught[0].filename == __file__          # blamed on the caller
    assert np.array_equal(got, q.locate_many(pts))
    with pytest.warns(DeprecationWarning, match=rf"{name}\.nearest_many\(\)"):
        polys, snapped = q.nearest(pts)
    want = q.nearest_many(pts)
    assert np.array_equal(polys, want[0]) and np.array_equal(snapped, want[1])


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
    for q in (mesh, NavMeshQuery(mesh)):
        with pytest.warns(DeprecationWarning, match=r"random_point\(\.\.\., rng\)"):
            assert q.random_point(5) == q.random_point(rng=5)
