"""Route quality of the navigation-mesh path query against the exact shortest paths (the
reduced visibility graph of :mod:`wayfinding.navmesh.exact`, built from the area alone): a
level with two free-standing walls (where a search over polygons with one point per polygon
went round the wrong end of a wall, up to 2.8 times the shortest; now within 1%), random
worlds of boxes and of thin walls (every path at most 5% longer than the shortest, most of
them equal to it), and every path legal (inside the walkable area, its length the length of
its polyline)."""

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, box

from wayfinding.navmesh import NavMesh, NavMeshQuery, QueryFilter
from wayfinding.navmesh.exact import VisibilityMap


def two_walls():
    """A 20 x 10 room with two walls standing apart in it, each open at both ends."""
    return box(0, 0, 20, 10).difference(box(6, 2, 6.3, 8)).difference(box(13.7, 2, 14, 8))


def random_world(seed, n_holes):
    rng = np.random.default_rng(seed)
    holes = []
    for _ in range(n_holes):
        x, y = rng.random(2) * 100
        w, h = rng.random(2) * 12.5 + 1
        if rng.random() < 0.3:
            holes.append(shapely.geometry.Polygon([(x, y), (x + w, y), (x, y + h)]))
        else:
            holes.append(shapely.affinity.rotate(box(x, y, x + w, y + h), rng.random() * 180))
    area = box(0, 0, 100, 100).difference(shapely.union_all(holes))
    return max(shapely.get_parts(area), key=lambda g: g.area)


def thin_walls(seed):
    """A 100 x 100 square minus 3 to 59 thin straight walls (0.2-1.8 thick, 5-35 long, flat
    ends) at random angles, overlapping; its largest connected part."""
    rng = np.random.default_rng(seed)
    walls = []
    for _ in range(rng.integers(3, 60)):
        x, y = rng.random(2) * 100
        angle, length = rng.random() * np.pi, rng.random() * 30 + 5
        end = (x + length * np.cos(angle), y + length * np.sin(angle))
        walls.append(LineString([(x, y), end]).buffer(rng.random() * 0.8 + 0.1, cap_style=2))
    area = box(0, 0, 100, 100).difference(shapely.union_all(walls))
    return max(shapely.get_parts(area), key=lambda g: g.area)


def points_in(area, rng, k):
    shapely.prepare(area)
    x0, y0, x1, y1 = area.bounds
    out = []
    while len(out) < k:
        p = rng.random((4 * k, 2)) * [x1 - x0, y1 - y0] + [x0, y0]
        out.extend(p[shapely.contains_xy(area, p[:, 0], p[:, 1])][:k - len(out)])
    return np.array(out)


def excess(area, pairs):
    """Per pair: our path's length over the exact shortest, minus 1; each path checked legal."""
    mesh, exact = NavMesh.build(area), VisibilityMap(area)
    grown = area.buffer(1e-7)
    out = []
    for a, b in pairs:
        r = mesh.find_path(a, b)
        assert r.found
        assert r.path[0].tolist() == list(a) and r.path[-1].tolist() == list(b)
        assert r.cost == pytest.approx(np.hypot(*np.diff(r.path, axis=0).T).sum(), rel=1e-12)
        if len(r.path) > 1:
            assert grown.covers(LineString(r.path))
        best = exact.find_path(a, b).cost
        assert r.cost >= best * (1 - 1e-9)
        out.append(r.cost / best - 1 if best > 0 else 0.0)
    return np.array(out)


def test_the_two_wall_level_gets_the_shortest_path_or_nearly():
    area = two_walls()
    pts = points_in(area, np.random.default_rng(1), 400)
    got = excess(area, zip(pts[:200], pts[200:]))
    assert got.max() <= 0.01                      # measured: 0.17%
    assert np.mean(got < 1e-9) >= 0.95


@pytest.mark.parametrize("start, goal", [((7.0, 7.5), (1.4, 7.4)), ((7.0, 2.5), (19, 2.2)),
                                         ((1, 5), (19, 5)), ((10, 9), (10, 1))])
def test_the_two_wall_level_goes_round_the_near_end_of_each_wall(start, goal):
    """Between the walls, the way out is round the end nearer the goal."""
    area = two_walls()
    r = NavMesh.build(area).find_path(start, goal)
    assert r.cost == pytest.approx(VisibilityMap(area).find_path(start, goal).cost, rel=1e-12)


@pytest.mark.parametrize("seed", range(1, 13))
def test_random_worlds_are_within_five_percent_of_the_shortest(seed):
    area = random_world(seed, 3 + 3 * seed)
    pts = points_in(area, np.random.default_rng(seed + 100), 80)
    got = excess(area, zip(pts[:40], pts[40:]))
    assert got.max() <= 0.05
    assert np.mean(got < 1e-9) >= 0.8             # most paths are the shortest itself


def test_a_corridor_of_many_portals_is_not_lost_to_a_longer_one_of_few():
    """The shortest way threads seven polygons; a zigzag through the points where it
    crosses each portal rated it above ways through five and six polygons, and the query
    went 5.8% longer than the shortest."""
    area = random_world(2035, 26)
    start, goal = (29.83, 86.409), (14.508, 48.087)
    r = NavMesh.build(area).find_path(start, goal)
    assert r.cost == pytest.approx(VisibilityMap(area).find_path(start, goal).cost, rel=1e-9)


@pytest.mark.parametrize("seed, start, goal", [(449, (53.183, 99.801), (7.995, 2.047)),
                                              (1031, (1.292, 86.353), (32.229, 66.92))])
def test_a_way_round_a_wall_s_end_goes_on_from_that_corner(seed, start, goal):
    """Past a bend the estimate runs on from the corner it bent round.  Run on from the
    point where the way crossed the next portal (a zigzag at every bend), it lost the
    shortest ways here, which bend round several walls' ends, and took corridors 5.2% and
    5.5% longer."""
    area = thin_walls(seed)
    r = NavMesh.build(area).find_path(start, goal)
    assert r.cost == pytest.approx(VisibilityMap(area).find_path(start, goal).cost, rel=1e-9)


@pytest.mark.parametrize("seed", range(1, 7))
def test_thin_wall_worlds_are_within_five_percent_of_the_shortest(seed):
    area = thin_walls(seed)
    pts = points_in(area, np.random.default_rng(seed + 200), 80)
    got = excess(area, zip(pts[:40], pts[40:]))
    assert got.max() <= 0.05
    assert np.mean(got < 1e-9) >= 0.9


@pytest.mark.slow
def test_many_random_worlds_are_within_five_percent_of_the_shortest():
    worst = 0.0
    for seed in range(1, 61):
        area = random_world(seed, int(np.random.default_rng(seed).integers(3, 40)))
        pts = points_in(area, np.random.default_rng(99), 120)
        worst = max(worst, excess(area, zip(pts[:60], pts[60:])).max())
    assert worst <= 0.05


def test_a_shorter_way_reaching_a_portal_second_is_kept():
    """From beside a wall, the ways round its two ends meet at one portal; the longer one,
    rated lower there by the straight-line estimate, reaches it first.  The portal keeps
    the shorter one too (it is cheaper at one of the portal's ends), so the route is the
    shortest (it was 5.8% longer when a portal kept one way)."""
    area = thin_walls(31)
    start, goal = (10.748, 47.656), (77.283, 82.181)
    r = NavMesh.build(area).find_path(start, goal)
    assert r.cost == pytest.approx(VisibilityMap(area).find_path(start, goal).cost, rel=1e-9)


def test_a_uniform_area_cost_keeps_the_shortest_routes():
    """Every polygon at one cost: the same corridors as at cost 1 (the check both ways
    compares straight lengths, which a uniform cost scales alike)."""
    area = two_walls()
    mesh = NavMesh.build(area)
    pts = points_in(area, np.random.default_rng(3), 100)
    dear = QueryFilter(costs={0: 3.0})
    for a, b in zip(pts[:50], pts[50:]):
        plain, scaled = mesh.find_path(a, b), mesh.find_path(a, b, filter=dear)
        assert scaled.corridor.tolist() == plain.corridor.tolist()
        assert scaled.cost == plain.cost


def test_area_costs_steer_the_route_round_a_dear_strip():
    """Where polygons cost differently the search weighs them: the route avoids a dear strip
    that the shortest path crosses."""
    area = box(0, 0, 20, 12).difference(box(9, 2, 11, 10))
    mesh = NavMesh.build(area, max_verts=4)
    north = np.array([shapely.geometry.Polygon(mesh.polygon(i)).centroid.y > 10
                      for i in range(mesh.num_polygons)])
    water = mesh.with_areas(areas=np.where(north, 3, 0))
    q = NavMeshQuery(water)
    r = q.find_path((1, 9), (19, 9), filter=QueryFilter(costs={3: 50.0}))
    assert r.path[:, 1].max() < 10 and not north[r.corridor].any()
    assert q.find_path((1, 9), (19, 9)).path[:, 1].max() >= 10


PINCHES = [
    # A triangular hole touching the bottom wall at (5, 0): from the pinch to (10, 0) is
    # 5 along the wall, not round the hole.
    (shapely.geometry.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
                              [[(5, 0), (6, 2), (4, 2)]]), (5.0, 0.0), (10.0, 0.0)),
    (shapely.geometry.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
                              [[(5, 0), (6, 2), (4, 2)]]), (5.0, 0.0), (0.0, 0.0)),
    # Two square holes touching at (4, 4).
    (shapely.geometry.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
                              [[(2, 2), (4, 2), (4, 4), (2, 4)], [(4, 4), (6, 4), (6, 6), (4, 6)]]),
     (4.0, 4.0), (5.0, 2.5)),
    (shapely.geometry.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)],
                              [[(2, 2), (4, 2), (4, 4), (2, 4)], [(4, 4), (6, 4), (6, 6), (4, 6)]]),
     (4.0, 4.0), (3.0, 5.0)),
]


@pytest.mark.parametrize("method", ["delaunay", "subtractive", "wavefront"])
@pytest.mark.parametrize("area, pinch, other", PINCHES)
def test_an_end_on_a_pinch_vertex_lies_on_both_sides_of_it(area, pinch, other, method):
    """A point where a hole touches the outline or another hole is in the polygons of every
    side that meet there: both queries start (and end) on the side of the shortest route."""
    mesh = NavMesh.build(area, method=method)
    shortest = float(np.hypot(*np.subtract(other, pinch)))
    for query in ("astar", "polyanya"):
        for a, b in ((pinch, other), (other, pinch)):
            r = mesh.find_path(a, b, method=query)
            assert r.found and r.cost == pytest.approx(shortest, rel=1e-12), (query, a, b)
