"""Path searches on voxel navmeshes run in slices (NavMesh3DQuery.start): whatever the
budget, the result is find_path's (corridor, path, length, flags, counters), on RecastDemo's
21 path tests on nav_test and on generated levels; stale searches, searches known at once
and time budgets."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import OffMeshLink
from wayfinding.navmesh.records import QueryFilter
from wayfinding.navmesh3d import build, generate
from wayfinding.navmesh3d.query import NavMesh3DQuery, NavPath3D, with_flags
from wayfinding.results import Status
from wayfinding.sliced import SlicedSearch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from recast_data import nav_test  # noqa: E402
from test_query3d import path_tests  # noqa: E402

BUDGETS = [1, 7, 1000]


def run(search: SlicedSearch, budget: int) -> tuple[NavPath3D, int]:
    """Step ``search`` to its end with ``budget`` expansions a step: (result, steps)."""
    steps = 0
    while search.step(max_expansions=budget) is Status.RUNNING:
        steps += 1
        assert search.result().status is Status.RUNNING
    result = search.result()
    assert isinstance(result, NavPath3D)
    return result, steps + 1


def assert_same(got: NavPath3D, want: NavPath3D) -> None:
    assert got.status is want.status and got.found == want.found
    assert np.array_equal(got.corridor, want.corridor)
    assert np.array_equal(got.path, want.path)
    assert np.array_equal(got.flags, want.flags)
    assert np.array_equal(got.corner_polygons, want.corner_polygons)
    assert np.array_equal(got.links, want.links)
    assert got.cost == want.cost and got.start == want.start and got.goal == want.goal
    assert got.stats.expanded == want.stats.expanded
    assert got.stats.generated == want.stats.generated


@pytest.fixture(scope="module")
def nav_query() -> NavMesh3DQuery:
    return NavMesh3DQuery(with_flags(build(nav_test())))


@pytest.mark.parametrize("budget", BUDGETS)
def test_recast_demo_path_tests_in_slices(nav_query, budget):
    for s, e, include, exclude in path_tests():
        f = QueryFilter(include=include, exclude=exclude)
        want = nav_query.find_path(s, e, filter=f, partial=True)
        got, steps = run(nav_query.start(s, e, filter=f, partial=True), budget)
        assert_same(got, want)
        assert steps == max(1, -(-want.stats.expanded // budget)) or budget == 1000


LEVELS = {
    "stairs": (lambda: generate.stairs(steps=6, rise=0.3), 0),
    "building": (generate.building, 16),
    "terrain": (lambda: generate.terrain(size=32, seed=3), 16),
}


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("name", sorted(LEVELS))
def test_generated_levels_in_slices(name, budget):
    make, tile_size = LEVELS[name]
    mesh = with_flags(build(make(), tile_size=tile_size))
    q = NavMesh3DQuery(mesh)
    rng = np.random.default_rng(5)
    verts, tris, _ = mesh.triangles()
    pick = rng.integers(len(tris), size=40)
    pts = verts[tris[pick]].astype(np.float64).mean(axis=1)
    for a, b in zip(pts[:20], pts[20:]):
        for partial in (False, True):
            want = q.find_path(tuple(a), tuple(b), partial=partial)
            got, _ = run(q.start(tuple(a), tuple(b), partial=partial), budget)
            assert_same(got, want)


def test_links_in_slices():
    mesh = with_flags(build(generate.building(storeys=2)))
    link = OffMeshLink((9.0, 0.0, 9.0), (9.0, 3.0, 9.0), bidirectional=True, cost=0.5)
    q = NavMesh3DQuery(mesh.with_links([link]))
    want = q.find_path((8.0, 0.0, 8.0), (8.0, 3.0, 7.0))
    assert want.links.tolist() == [0]
    got, _ = run(q.start((8.0, 0.0, 8.0), (8.0, 3.0, 7.0)), 1)
    assert_same(got, want)


def test_searches_known_at_once(nav_query):
    s, e, _, _ = path_tests()[0]
    off = nav_query.start((1e4, 0, 1e4), e)                 # the start is off the mesh
    assert off.status is Status.FAILED and off.result().status is Status.FAILED
    assert off.step() is Status.FAILED
    same = nav_query.start(s, s)                            # one polygon: no expansion
    assert same.step(max_expansions=1) is Status.FOUND
    assert_same(same.result(), nav_query.find_path(s, s))
    assert same.result().stats.expanded == 0


def test_a_query_in_between_makes_the_search_stale(nav_query):
    s, e, _, _ = path_tests()[0]
    search = nav_query.start(s, e)
    assert search.step(max_expansions=3) is Status.RUNNING
    nav_query.find_path(s, e)
    with pytest.raises(InvalidQueryError, match="another query"):
        search.step(max_expansions=3)
    nav_query.nearest(s)                                    # no scratch: not stale
    other = nav_query.start(s, e)
    assert other.step(max_expansions=3) is Status.RUNNING
    nav_query.nearest(s)
    assert run(other, 1000)[0].status is Status.FOUND


def test_a_time_budget_ends_the_same(nav_query):
    s, e, _, _ = path_tests()[0]
    search = nav_query.start(s, e)
    while search.step(max_seconds=1e-6) is Status.RUNNING:
        pass
    assert_same(search.result(), nav_query.find_path(s, e))


def test_partial_searches_end_partial():
    mesh = with_flags(build(generate.multi_storey()))
    q = NavMesh3DQuery(mesh)
    a, b = (2.0, 0.0, 2.0), (28.0, 3.0, 8.0)     # platform C: only a link reaches it
    want = q.find_path(a, b, partial=True)
    search = q.start(a, b, partial=True)
    assert want.status is Status.PARTIAL
    assert search.step() is Status.PARTIAL
    assert_same(search.result(), want)


def test_bad_starts_raise(nav_query):
    with pytest.raises(InvalidQueryError):
        nav_query.start((0, 0), (1, 0, 1))
    with pytest.raises(InvalidQueryError):
        nav_query.start((0, 0, 0), (1, 0, 1), partial=1)
    with pytest.raises(InvalidQueryError):
        nav_query.start((0, 0, 0), (1, 0, 1), filter="walk")
    search = nav_query.start(*path_tests()[0][:2])
    with pytest.raises(InvalidQueryError):
        search.step(max_expansions=-1)
