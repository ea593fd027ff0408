"""Batch path queries on a navigation mesh (``NavMeshQuery.find_paths``): the same paths as
one ``find_path`` call per pair (corners, flags, corridors, lengths, status), found, failed,
partial and snapped pairs and off-mesh links mixed in one batch; the lengths checked against
the exact shortest paths (the visibility graph of the area) and their polylines; bad input."""

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import MultiPolygon, box

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import END, OFFMESH, START, NavMesh, NavMeshQuery, OffMeshLink, QueryFilter
from wayfinding.navmesh.exact import VisibilityMap
from wayfinding.navmesh.query import NavPaths
from wayfinding.results import Status


def world(seed, n_holes=12):
    rng = np.random.default_rng(seed)
    holes = [shapely.affinity.rotate(box(x, y, x + w, y + h), a)
             for (x, y), (w, h), a in zip(rng.random((n_holes, 2)) * 40,
                                          rng.random((n_holes, 2)) * 6 + 0.5,
                                          rng.random(n_holes) * 180)]
    area = box(0, 0, 40, 40).difference(shapely.union_all(holes))
    return max(shapely.get_parts(area), key=lambda g: g.area)


def same_as_single(q, starts, goals, **options):
    """find_paths against find_path, pair by pair; returns the batch."""
    got = q.find_paths(starts, goals, **options)
    assert isinstance(got, NavPaths) and len(got) == len(starts)
    for i, (a, b) in enumerate(zip(starts, goals)):
        one = q.find_path(a, b, **options)
        assert got.status(i) == one.status
        assert got.lengths[i] == one.cost or (math.isinf(one.cost)
                                              and math.isinf(got.lengths[i]))
        np.testing.assert_array_equal(got.path(i), one.path)
        np.testing.assert_array_equal(got.corridor(i), one.corridor)
        np.testing.assert_array_equal(got.flags[got.corner_ptr[i]:got.corner_ptr[i + 1]],
                                      one.flags)
        assert got.expanded[i] == one.stats.expanded
    return got


@pytest.mark.parametrize("seed", range(4))
def test_batch_paths_are_the_single_paths_and_never_shorter_than_exact(seed):
    area = world(seed)
    mesh = NavMesh.build(area)
    q = NavMeshQuery(mesh)
    rng = np.random.default_rng(seed)
    pts = rng.random((120, 2)) * 44 - 2            # some off the mesh: snapped
    got = same_as_single(q, pts[:60], pts[60:])
    exact = VisibilityMap(area)
    inside = shapely.contains_xy(area, pts[:, 0], pts[:, 1])
    assert (~inside).sum() > 5                      # some snapped
    for i in range(len(got)):
        path = got.path(i)
        assert got.codes[i] == 1 and path.shape[1] == 2
        assert got.lengths[i] == pytest.approx(np.hypot(*np.diff(path, axis=0).T).sum(),
                                               rel=1e-12)
        if inside[i] and inside[60 + i]:
            best = exact.find_path(path[0], path[-1]).cost
            assert best * (1 - 1e-9) <= got.lengths[i] <= best * 1.05 + 1e-9
        f = got.flags[got.corner_ptr[i]:got.corner_ptr[i + 1]]
        assert f[0] & START and f[-1] & END


def test_failed_and_partial_pairs_in_one_batch():
    islands = MultiPolygon([box(0, 0, 4, 10), box(6, 0, 10, 10)])
    q = NavMeshQuery(NavMesh.build(islands))
    starts = np.array([[1.0, 5.0], [1.0, 1.0], [7.0, 2.0]])
    goals = np.array([[9.0, 5.0], [2.0, 9.0], [9.0, 9.0]])
    got = same_as_single(q, starts, goals)
    assert got.codes.tolist() == [0, 1, 1] and got.path(0).shape == (0, 2)
    assert math.isinf(got.lengths[0]) and got.status(0) is Status.FAILED
    part = same_as_single(q, starts, goals, partial=True)
    assert part.codes.tolist() == [2, 1, 1] and part.status(0) is Status.PARTIAL
    assert part.path(0).tolist() == [[1.0, 5.0], [4.0, 5.0]]


def test_batches_take_links_and_filters():
    area = MultiPolygon([box(0, 0, 4, 4), box(6, 0, 10, 4)])
    link = OffMeshLink((3.5, 2), (6.5, 2), bidirectional=False, cost=10.0)
    mesh = NavMesh.build(area, links=[link])
    q = NavMeshQuery(mesh)
    starts, goals = np.array([[1.0, 1.0], [9.0, 3.0]]), np.array([[9.0, 1.0], [1.0, 3.0]])
    got = same_as_single(q, starts, goals)
    assert got.codes.tolist() == [1, 0]
    assert OFFMESH in got.flags[got.corner_ptr[0]:got.corner_ptr[1]].tolist()
    none = same_as_single(q, starts, goals, filter=QueryFilter(costs={0: math.inf}))
    assert none.codes.tolist() == [0, 0]


def test_an_empty_batch():
    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    got = q.find_paths(np.empty((0, 2)), np.empty((0, 2)))
    assert len(got) == 0 and got.corners.shape == (0, 2) and got.corner_ptr.tolist() == [0]


def test_rows_out_of_range_raise():
    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    got = q.find_paths([[1, 1], [2, 2]], [[4, 4], [3, 3]])
    assert got.path(-1).tolist() == [[2.0, 2.0], [3.0, 3.0]]
    with pytest.raises(IndexError):
        got.path(2)
    with pytest.raises(TypeError):
        got.corridor(1.5)


@pytest.mark.parametrize("starts, goals, words", [
    ([[1, 1]], [[2, 2], [3, 3]], "as many"),
    ([1, 1], [[2, 2]], "(n, 2)"),
    ([[1, math.nan]], [[2, 2]], "starts"),
    ([[1, 1]], [[2, 2, 2]], "goals"),
    ([["a", 1]], [[2, 2]], "starts"),
])
def test_bad_batches_are_refused(starts, goals, words):
    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    with pytest.raises(InvalidQueryError, match=words.replace("(", r"\(").replace(")", r"\)")):
        q.find_paths(starts, goals)


@pytest.mark.parametrize("bad", [None, 1, "yes"])
def test_partial_must_be_a_bool(bad):
    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    with pytest.raises(InvalidQueryError, match="partial"):
        q.find_paths([[1, 1]], [[2, 2]], partial=bad)


@pytest.mark.parametrize("point", [(1, 2), [1.0, 2.0], np.array([1.0, 2.0]),
                                   (np.float32(1), np.int64(2)), np.array([1, 2])])
def test_single_queries_take_every_point_form(point):
    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    r = q.find_path(point, (4, 4))
    assert r.found and r.path[0].tolist() == [1.0, 2.0] and r.start.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("bad", [(1, math.inf), (1, 2, 3), "ab", (None, 2), ((1, 2), 3)])
def test_single_queries_refuse_bad_points(bad):
    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    with pytest.raises(InvalidQueryError, match="start"):
        q.find_path(bad, (4, 4))


def _array_forms(a):
    """``a`` (an (n, 2) float64 array) in forms the compiled loop does not read in place."""
    return [a.tolist(), a.astype(">f8"), np.asfortranarray(a), a.astype(np.float32),
            np.repeat(a, 2, axis=0)[::2], np.round(a).astype(np.int64)]


@pytest.mark.parametrize("form", range(6))
def test_batches_in_every_array_form_give_the_same_paths(form):
    area = world(11)
    q = NavMeshQuery(NavMesh.build(area))
    pts = np.random.default_rng(form).random((40, 2)) * 40
    starts, goals = pts[:20], pts[20:]
    s, g = _array_forms(starts)[form], _array_forms(goals)[form]
    ref = np.asarray(s, dtype=np.float64), np.asarray(g, dtype=np.float64)
    got, want = q.find_paths(s, g), same_as_single(q, np.ascontiguousarray(ref[0]),
                                                   np.ascontiguousarray(ref[1]))
    for name in ("codes", "lengths", "expanded", "corridor_ptr", "corridors", "corner_ptr",
                 "corners", "flags"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_rows_of_float_arrays_are_refused(bad):
    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    goals = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    goals[2, 1] = bad
    with pytest.raises(InvalidQueryError, match="goals"):
        q.find_paths(np.ones((3, 2)), goals)


def test_single_query_takes_a_big_endian_point():
    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    r = q.find_path(np.array([1.0, 2.0], dtype=">f8"), (4, 4))
    assert r.path.tolist() == [[1.0, 2.0], [4.0, 4.0]] and r.start.tolist() == [1.0, 2.0]


def test_a_batch_is_refused_while_another_thread_holds_the_query():
    import threading

    from wayfinding.errors import ConcurrentUseError

    q = NavMeshQuery(NavMesh.build(box(0, 0, 5, 5)))
    held, release = threading.Event(), threading.Event()

    def hold():
        with q._busy:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    try:
        assert held.wait(10)
        with pytest.raises(ConcurrentUseError, match="NavMeshQuery"):
            q.find_paths([[1, 1]], [[4, 4]])
    finally:
        release.set()
        t.join(10)
    assert q.find_paths([[1, 1]], [[4, 4]]).codes.tolist() == [1]
