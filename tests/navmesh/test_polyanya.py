"""PolyanyaSearch against the exact shortest paths: the visibility map of
wayfinding.navmesh.exact and a plain visibility graph with Dijkstra written here (every
corner of the area, segments kept where shapely says the closed area covers them), on random
worlds of both mesh builders and on fixed cases (start and goal in one polygon, on a vertex,
on an edge, collinear corners, holes, no route, partial paths, filters); bad input."""

import heapq
import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, MultiPolygon, Point, box
from test_query import (
    check_copies_keep_fields,
    check_found_path,
    mesh_polygons,
    random_world,
    same_fields,
)

from wayfinding.errors import InvalidQueryError
from wayfinding.grid.generate import maze
from wayfinding.navmesh import NavMesh, NavMeshQuery, QueryFilter, walkable_area
from wayfinding.navmesh.exact import VisibilityMap
from wayfinding.navmesh.polyanya import PolyanyaSearch
from wayfinding.results import Status

REL = 1e-9


def sample_points(area, rng, k):
    x0, y0, x1, y1 = area.bounds
    out = []
    while len(out) < k:
        p = rng.random(2) * [x1 - x0, y1 - y0] + [x0, y0]
        if area.contains(Point(p)):
            out.append(p)
    return np.array(out)


def visibility_dijkstra(area, s, g):
    """Shortest length from s to g in the closed area: Dijkstra over the start, the goal and
    every corner of the area's rings, joined where the segment lies in the area."""
    pts = [tuple(s), tuple(g)]
    for poly in getattr(area, "geoms", [area]):
        for ring in [poly.exterior, *poly.interiors]:
            pts += [tuple(c) for c in np.asarray(ring.coords)[:-1, :2]]
    n = len(pts)
    dist = [math.inf] * n
    dist[0] = 0.0
    heap = [(0.0, 0)]
    done = [False] * n
    while heap:
        d, i = heapq.heappop(heap)
        if done[i]:
            continue
        done[i] = True
        if i == 1:
            return d
        for j in range(n):
            if done[j]:
                continue
            nd = d + math.dist(pts[i], pts[j])
            if nd < dist[j] and area.covers(LineString([pts[i], pts[j]])):
                dist[j] = nd
                heapq.heappush(heap, (nd, j))
    return math.inf


def assert_inside(area, path):
    assert area.buffer(1e-7).covers(LineString(path))


def check_world(area, method, pairs, rng):
    mesh = NavMesh.build(area, method=method)
    search = PolyanyaSearch(mesh)
    exact = VisibilityMap(area)
    pts = sample_points(area, rng, 2 * pairs)
    for s, g in zip(pts[::2], pts[1::2]):
        r = search.find_path(s, g)
        e = exact.find_path(s, g)
        assert r.found and r.status is Status.FOUND
        assert r.cost == pytest.approx(e.cost, rel=REL)
        assert r.cost == pytest.approx(float(np.hypot(*np.diff(r.path, axis=0).T).sum()),
                                       rel=1e-12)
        assert np.array_equal(r.path[0], s) and np.array_equal(r.path[-1], g)
        assert_inside(area, r.path)
        assert len(r.corner_polygons) == len(r.path) == len(r.flags)
        assert r.corridor[0] == mesh.locate(s)
    return search


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), method=st.sampled_from(["delaunay", "subtractive"]))
def test_lengths_equal_the_visibility_map_on_random_worlds(seed, method):
    check_world(random_world(seed), method, 8, np.random.default_rng(seed + 1))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), method=st.sampled_from(["delaunay", "subtractive"]))
def test_lengths_equal_a_plain_visibility_graph(seed, method):
    area = random_world(seed, n_holes=5)
    mesh = NavMesh.build(area, method=method)
    search = PolyanyaSearch(mesh)
    pts = sample_points(area, np.random.default_rng(seed), 6)
    for s, g in zip(pts[::2], pts[1::2]):
        assert search.find_path(s, g).cost == pytest.approx(visibility_dijkstra(area, s, g),
                                                            rel=REL)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("method", ["delaunay", "subtractive"])
def test_lengths_equal_the_visibility_map_on_many_worlds(seed, method):
    check_world(random_world(seed, n_holes=40, size=60.0), method, 40,
                np.random.default_rng(seed))


def test_the_exact_path_is_never_longer_than_the_default_query():
    area = random_world(7, n_holes=25, size=40.0)
    mesh = NavMesh.build(area)
    search, query = PolyanyaSearch(mesh), NavMeshQuery(mesh)
    pts = sample_points(area, np.random.default_rng(3), 60)
    for s, g in zip(pts[::2], pts[1::2]):
        assert search.find_path(s, g).cost <= query.find_path(s, g).cost * (1 + REL)


def test_two_walls_level():
    # Two long walls with gaps at opposite ends: the shortest path zigzags through both.
    area = box(0, 0, 30, 20).difference(box(8, 0, 9, 16)).difference(box(20, 4, 21, 20))
    mesh = NavMesh.build(area)
    for s, g in [((2, 2), (28, 18)), ((2, 18), (28, 2)), ((5, 10), (25, 10))]:
        r = PolyanyaSearch(mesh).find_path(s, g)
        assert r.cost == pytest.approx(visibility_dijkstra(area, s, g), rel=REL)
        assert_inside(area, r.path)


def test_start_and_goal_in_one_polygon_is_the_segment():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)])
    r = PolyanyaSearch(mesh).find_path((1, 1), (9, 8))
    assert r.path.tolist() == [[1.0, 1.0], [9.0, 8.0]]
    assert r.cost == pytest.approx(math.hypot(8, 7), rel=1e-15)
    same = PolyanyaSearch(mesh).find_path((3, 3), (3, 3))
    assert same.found and same.cost == 0.0 and same.path.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_hole_doctest_path():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
                         holes=[[(4, 3), (6, 3), (6, 8), (4, 8)]])
    r = PolyanyaSearch(mesh).find_path((1, 5), (9, 5))
    assert r.path.tolist() == [[1.0, 5.0], [4.0, 3.0], [6.0, 3.0], [9.0, 5.0]]
    assert r.cost == pytest.approx(2 * math.hypot(3, 2) + 2, rel=1e-15)


@pytest.mark.parametrize("method", ["delaunay", "subtractive"])
def test_start_and_goal_on_vertices_and_edges(method):
    area = box(0, 0, 12, 10).difference(box(3, 2, 5, 8)).difference(box(7, 2, 9, 8))
    mesh = NavMesh.build(area, method=method)
    search = PolyanyaSearch(mesh)
    exact = VisibilityMap(area)
    verts = mesh.vertices
    ends = list(verts)                                        # every vertex
    for p in range(mesh.num_polygons):                        # every edge's midpoint
        row = mesh.polygons[p, :mesh.sizes[p]]
        ends += [(verts[a] + verts[b]) / 2 for a, b in zip(row, np.roll(row, -1))]
    rng = np.random.default_rng(0)
    picks = rng.choice(len(ends), size=(40, 2))
    for i, j in picks:
        s, g = ends[i], ends[j]
        r = search.find_path(s, g)
        assert r.found and not r.snapped_start and not r.snapped_goal
        assert r.cost == pytest.approx(exact.find_path(s, g).cost, rel=REL, abs=1e-12)


def test_collinear_corners():
    # Holes whose corners line up: the shortest path runs along the line through them.
    area = (box(0, 0, 20, 10).difference(box(3, 4, 5, 6)).difference(box(8, 4, 10, 6))
            .difference(box(13, 4, 15, 6)))
    for method in ("delaunay", "subtractive"):
        search = PolyanyaSearch(NavMesh.build(area, method=method))
        for s, g in [((1, 6), (19, 6)), ((1, 4), (19, 4)), ((4, 7), (14, 3)),
                     ((5, 6), (13, 6)), ((1, 5), (19, 5.5))]:
            assert search.find_path(s, g).cost == pytest.approx(
                visibility_dijkstra(area, s, g), rel=REL)


def test_a_maze_is_searched_once_through():
    """A maze's shortest paths bend at nearly every turn, and one node (root, polygon, edge,
    interval) was made again and again at one g (root-level pruning keeps ties): expanded
    each time, the copies doubled bend after bend until memory ran out.  Exact, and about
    one node expanded a polygon."""
    area = walkable_area(maze(65, 65, seed=4))
    mesh = NavMesh.build(area)
    search, exact = PolyanyaSearch(mesh), VisibilityMap(area)
    pts = sample_points(area, np.random.default_rng(4), 40)
    for s, g in zip(pts[::2], pts[1::2]):
        r = search.find_path(s, g)
        assert r.cost == pytest.approx(exact.find_path(s, g).cost, rel=REL)
        assert r.stats.expanded <= 2 * len(mesh.polygons)


def test_goal_unreachable_and_partial():
    mesh = NavMesh.build(MultiPolygon([box(0, 0, 4, 10), box(6, 0, 10, 10)]))
    search = PolyanyaSearch(mesh)
    r = search.find_path((1, 5), (9, 5))
    assert not r.found and r.status is Status.FAILED and len(r.path) == 0
    assert math.isinf(r.cost)
    p = search.find_path((1, 5), (9, 5), partial=True)
    assert not p.found and p.status is Status.PARTIAL
    assert p.path.tolist() == [[1.0, 5.0], [4.0, 5.0]] and p.cost == pytest.approx(3.0)


def test_points_off_the_mesh_are_snapped_as_the_query_does():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
                         holes=[[(4, 3), (6, 3), (6, 8), (4, 8)]])
    r = PolyanyaSearch(mesh).find_path((-3, 5), (5, 5))
    q = NavMeshQuery(mesh).find_path((-3, 5), (5, 5))
    assert r.snapped_start and r.snapped_goal
    assert np.allclose(r.start, q.start) and np.allclose(r.goal, q.goal)
    assert r.found and r.cost <= q.cost * (1 + REL)


def test_filter_excludes_polygons():
    # A wall of flag-2 polygons across the middle: excluding them forces the way round.
    area = box(0, 0, 10, 10).difference(box(4, 0, 6, 7))
    mesh = NavMesh.build(area, regions=[(box(0, 7, 10, 10), 0, 2)])
    search = PolyanyaSearch(mesh)
    r = search.find_path((1, 1), (9, 1))
    assert r.found and r.cost == pytest.approx(visibility_dijkstra(area, (1, 1), (9, 1)))
    assert not search.find_path((1, 1), (9, 1), filter=QueryFilter(exclude=2)).found
    assert search.find_path((1, 1), (3, 6), filter=QueryFilter(exclude=2)).found


def test_bad_input():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)])
    search = PolyanyaSearch(mesh)
    with pytest.raises(InvalidQueryError, match="start"):
        search.find_path((math.nan, 1), (2, 2))
    with pytest.raises(InvalidQueryError, match="goal"):
        search.find_path((1, 1), "here")
    with pytest.raises(InvalidQueryError, match="partial"):
        search.find_path((1, 1), (2, 2), partial=1)
    with pytest.raises(InvalidQueryError, match="QueryFilter"):
        search.find_path((1, 1), (2, 2), filter={"costs": {}})
    with pytest.raises(InvalidQueryError, match="costs other than 1"):
        search.find_path((1, 1), (2, 2), filter=QueryFilter(costs={0: 2.0}))
    with pytest.raises(InvalidQueryError, match="NavMesh"):
        PolyanyaSearch("mesh")
    assert "PolyanyaSearch" in repr(search)


def test_start_and_goal_on_inner_vertices():
    # Cut by a grid, the mesh has vertices with no wall by them: a path from one sees every
    # polygon round it.
    area = box(0, 0, 12, 10).difference(box(3, 2, 5, 8))
    mesh = NavMesh.build(area, method="subtractive", cell_size=2.0)
    search, exact = PolyanyaSearch(mesh), VisibilityMap(area)
    verts = mesh.vertices
    inner = [v for v in verts if 0 < v[0] < 12 and 0 < v[1] < 10
             and not area.boundary.distance(Point(v)) == 0]
    assert len(inner) >= 10
    for s in inner:
        for g in verts[::4]:
            assert search.find_path(s, g).cost == pytest.approx(exact.find_path(s, g).cost,
                                                                rel=REL, abs=1e-12)


def test_a_path_s_fields_read_late_are_those_of_its_own_query():
    """Fields beyond the path, cost and status are made when first read: they describe
    their own query after later ones (found, failed, partial, snapped), equal the values
    worked out here from the path and the mesh, survive pickling, copying and replace, and
    a field set before it is read is kept; the query's method="polyanya" gives the same."""

    from wayfinding.navmesh import END, START

    area = random_world(11)
    mesh = NavMesh.build(area)
    search, query = PolyanyaSearch(mesh), NavMeshQuery(mesh)
    rng = np.random.default_rng(11)
    pts = [p for p in rng.random((200, 2)) * 20 if area.covers(Point(p))][:30]
    pairs = list(zip(pts[:14], pts[14:28])) + [((-3.0, 7.0), pts[0]), (pts[1], (25.0, 30.0))]
    results = [search.find_path(a, b) for a, b in pairs]
    polys = mesh_polygons(mesh)
    for (a, b), r in zip(pairs, results):
        check_found_path(r, a, b, area, polys)
        assert r.algorithm == "polyanya" and r.status is Status.FOUND
        assert r.links.dtype == np.int32 and r.links.tolist() == []
        assert r.stats.generated >= 1 and 0 < r.stats.elapsed < 1
        assert r.expanded_nodes is None and r.open_nodes is None
        same_fields(query.find_path(a, b, method="polyanya"), r, skip=("stats",))
    check_copies_keep_fields(search.find_path(pts[0], pts[20]))
    r = search.find_path(pts[2], pts[22])
    r.corridor = "mine"
    assert r.corridor == "mine" and r.flags[0] & START
    # No route, then the partial path: their fields, read after a later query.
    islands = NavMesh.build(MultiPolygon([box(0, 0, 4, 10), box(6, 0, 10, 10)]))
    two = PolyanyaSearch(islands)
    failed = two.find_path((1, 5), (9, 5))
    part = two.find_path((1, 5), (9, 5), partial=True)
    two.find_path((1, 1), (3, 9))
    assert failed.algorithm == "polyanya" and failed.start.tolist() == [1.0, 5.0]
    assert failed.goal.tolist() == [9.0, 5.0] and failed.path.shape == (0, 2)
    assert failed.flags.dtype == np.uint8 and len(failed.flags) == 0
    assert len(failed.corridor) == len(failed.corner_polygons) == len(failed.links) == 0
    assert not failed.snapped_start and not failed.snapped_goal
    assert part.status is Status.PARTIAL and not part.found
    assert part.start.tolist() == [1.0, 5.0] and part.goal.tolist() == [9.0, 5.0]
    assert part.path.tolist() == [[1.0, 5.0], [4.0, 5.0]]
    assert part.flags.tolist() == [START, END] and part.stats.generated >= failed.stats.generated
    assert part.corridor.tolist() == part.corner_polygons.tolist()[:1] * len(part.corridor)


def test_points_given_every_way_give_one_path():
    """Points read in the kernel (tuples, lists, float64 arrays, ints) and those checked in
    Python first (float32 arrays, numpy scalars) and strided arrays give the same path; bad
    points raise either way."""
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
                         holes=[[(4, 3), (6, 3), (6, 8), (4, 8)]])
    search = PolyanyaSearch(mesh)
    want = search.find_path((1.0, 5.0), (9.0, 5.0))
    assert want.path.tolist() == [[1, 5], [4, 3], [6, 3], [9, 5]]
    for s, g in [([1.0, 5.0], [9.0, 5.0]), (np.array([1.0, 5.0]), np.array([9.0, 5.0])),
                 ((1, 5), (9, 5)), (np.array([1, 5], np.float32), np.array([9, 5])),
                 ((np.float64(1), np.int32(5)), [np.float32(9), 5]),
                 (np.array([1.0, 0.0, 5.0])[::2], np.array([5.0, 9.0])[::-1])]:
        r = search.find_path(s, g)
        assert r.path.tolist() == want.path.tolist() and r.cost == want.cost
        assert r.start.tolist() == [1.0, 5.0] and r.goal.tolist() == [9.0, 5.0]
    for bad in [(1.0, math.nan), (math.inf, 5.0), (1.0,), "ab", (1.0, 5.0, 2.0), None,
                np.array([1.0, np.nan])]:
        with pytest.raises(InvalidQueryError):
            search.find_path(bad, (9.0, 5.0))
        with pytest.raises(InvalidQueryError):
            search.find_path((1.0, 5.0), bad)


# A random world (15 obstacles) whose subtractive mesh, 1e7 from the origin, has polygons
# convex only to rounding: a root's view came round three polygons for ever.
LOOPING_WORLD = (
    "MULTIPOLYGON (((0 60, 35.131581 60, 33.860852 58.814876, 33.176755 58.969524, "
    "33.500115 56.036343, 33.660797 50.947085, 36.021033 49.221606, 42.254905 54.072908, "
    "41.774061 54.510497, 37.769786 55.9602, 36.770516 60, 51.745009 60, 51.538393 "
    "57.319045, 60 54.646531, 60 36, 100 36, 100 0, 28.985638 0, 41.412008 5.945442, "
    "28.770395 23.216643, 25.133093 0, 0 0, 0 60), (1.583391 5.939425, 5.115383 4.288225, "
    "5.746455 4.557517, 8.075199 5.118764, 7.674391 6.739379, 3.71069 9.735603, 1.630428 "
    "8.613085, 1.215315 7.555705, 0.287473 6.954624, 1.583391 5.939425), (55.345208 "
    "28.284949, 60.332982 29.917875, 57.304792 34.925633, 52.983495 33.180727, 44.211468 "
    "28.977212, 55.345208 28.284949), (63.767879 7.79127, 67.939151 9.467212, 66.577501 "
    "12.856237, 62.40623 11.180295, 63.767879 7.79127), (12.8473 10.49936, 15.563452 "
    "12.796865, 12.189607 16.785485, 9.473455 14.48798, 12.8473 10.49936), (54.774024 "
    "4.165993, 58.875074 7.394261, 52.682744 4.248607, 54.774024 4.165993)), ((60 60, 60 "
    "56.555522, 55.917607 60, 60 60)))")


def test_a_view_that_comes_round_by_rounding_does_not_loop():
    far = 1e7
    world = affinity.translate(shapely.from_wkt(LOOPING_WORLD), far, -far)
    mesh = NavMesh.build(world, radius=1.0, method="subtractive")
    start, goal = (76.41529748742 + far, 21.77926900965 - far), (20.53469123931 + far,
                                                                 2.90021282778 - far)
    r = mesh.find_path(start, goal, method="polyanya")
    assert r.found and r.cost == pytest.approx(70.829115, abs=1e-5)
    assert r.stats.generated < 20 * len(mesh.polygons)
