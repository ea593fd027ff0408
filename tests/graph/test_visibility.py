"""Points of visibility: corner nodes, and exact Euclidean shortest paths at radius 0 against
an independent visibility-graph oracle (shapely + networkx)."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidGridError, InvalidQueryError
from wayfinding.geometry import Obstacles
from wayfinding.graph import VisibilityGraph
from wayfinding.graph.visibility import convex_corners

shapely = pytest.importorskip("shapely")
from shapely.geometry import LineString, MultiPoint, Polygon  # noqa: E402


def test_square_corners_pushed_out():
    obs = Obstacles([[(0, 0), (2, 0), (2, 2), (0, 2)]])
    corners = convex_corners(obs, 0.5)
    assert sorted(map(tuple, corners.tolist())) == [(-0.5, -0.5), (-0.5, 2.5), (2.5, -0.5),
                                                    (2.5, 2.5)]
    g = VisibilityGraph.build(obs, radius=0.5, margin=0.0)
    assert g.num_nodes == 4 and g.num_edges == 4  # the diagonals cross the square


def test_reflex_corner_gives_no_node():
    ell = Obstacles([[(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)]])
    assert len(convex_corners(ell, 0.1)) == 5


def test_nodes_inside_other_obstacles_and_outside_bounds_are_dropped():
    obs = Obstacles([[(0, 0), (2, 0), (2, 2), (0, 2)], [(2.1, -1), (4, -1), (4, 4), (2.1, 4)]])
    g = VisibilityGraph.build(obs, radius=0.3, bounds=(-5, -5, 5, 3))
    assert g.num_nodes == 4  # (2.3, ...) nodes of the square are inside the slab's margin
    assert obs.points_clear(g.positions, radius=0.3).all()
    assert (g.positions[:, 1] <= 3).all()


def test_quantize_is_the_nearest_visible_node():
    obs = Obstacles([[(0, 0), (2, 0), (2, 2), (0, 2)]])
    g = VisibilityGraph.build(obs, radius=0.0, margin=0.01)
    q = g.quantize([(1, -0.3), (1, 2.2), (1, 1)])
    assert q[2] == -1  # inside the obstacle: sees nothing
    assert g.positions[q[0]][1] < 0 and g.positions[q[1]][1] > 2


@pytest.mark.parametrize("kwargs, text", [
    ({"radius": -0.1}, "radius"), ({"margin": -1}, "radius"),
    ({"bounds": (0, 0, 0, 1)}, "bounds"), ({"max_link": 0}, "max_link"),
])
def test_bad_inputs(kwargs, text):
    with pytest.raises(InvalidQueryError, match=text):
        VisibilityGraph.build(Obstacles([[(0, 0), (1, 0), (0, 1)]]), **kwargs)


def test_points_inside_obstacles_are_refused():
    obs = Obstacles([[(0, 0), (2, 0), (2, 2), (0, 2)]])
    g = VisibilityGraph.build(obs, radius=0.2)
    with pytest.raises(InvalidQueryError, match="goal"):
        g.find_path((-1, -1), (1.9, 1))


@pytest.mark.parametrize("join", ["quantize", "connect"])
@pytest.mark.parametrize("start, goal, name", [((1e300, 1), (-1, -1), "start"),
                                               ((-1, -1), (-3e151, 1e151), "goal")])
def test_ends_beyond_the_extent_are_refused_by_name(start, goal, name, join):
    """Points beyond ±1e150 (where squared distances overflow) are refused by name; a point
    just inside gets its path, the far leg and all (warnings are errors here)."""
    g = VisibilityGraph.build(Obstacles([[(0, 0), (2, 0), (2, 2), (0, 2)]]), radius=0.2)
    with pytest.raises(InvalidQueryError, match=f"^{name}.* beyond"):
        g.find_path(start, goal, join=join)
    r = g.find_path((-1e150, 1e150), (-1, -1), join=join)
    assert r.found and r.cost == pytest.approx(np.hypot(1e150, 1e150))


def test_obstacles_beyond_the_extent_are_refused():
    with pytest.raises(InvalidGridError, match="polygon 1 .* beyond"):
        Obstacles([[(0, 0), (1, 0), (0, 1)], [(0, 0), (1e200, 0), (0, 1e200)]])


def oracle_length(polys, a, b):
    """Euclidean shortest path among polygons: visibility graph of all vertices and the
    end points, a link when the segment does not meet any polygon's interior."""
    if np.hypot(a[0] - b[0], a[1] - b[1]) < 1e-9:
        return float(np.hypot(a[0] - b[0], a[1] - b[1]))
    shapes = [Polygon(p) for p in polys]
    pts = [tuple(a), tuple(b)] + [tuple(v) for p in polys for v in p]
    graph = nx.Graph()
    graph.add_nodes_from(range(len(pts)))
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            seg = LineString([pts[i], pts[j]])
            if seg.length and not any(seg.relate_pattern(s, "T********") for s in shapes):
                graph.add_edge(i, j, weight=seg.length)
    if not nx.has_path(graph, 0, 1):
        return None
    return nx.dijkstra_path_length(graph, 0, 1)


blob = st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=3, max_size=6)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(blob, st.integers(0, 40), st.integers(0, 40)), min_size=1,
                max_size=4),
       st.tuples(st.floats(-2, 62), st.floats(-2, 62)),
       st.tuples(st.floats(-2, 62), st.floats(-2, 62)))
def test_radius_zero_paths_are_euclidean_shortest(raw, a, b):
    polys = []
    for pts, dx, dy in raw:
        hull = MultiPoint([(x + dx, y + dy) for x, y in pts]).convex_hull
        if isinstance(hull, Polygon) and hull.area > 0.5:
            polys.append(np.array(hull.exterior.coords)[:-1])
    assume(polys)
    shapes = [Polygon(p) for p in polys]
    for pt in (a, b):
        assume(all(s.exterior.distance(shapely.Point(pt)) > 1e-3 and not s.contains(
            shapely.Point(pt)) for s in shapes))
    obs = Obstacles(polys)
    g = VisibilityGraph.build(obs, radius=0.0, margin=1e-7)
    want = oracle_length(polys, a, b)
    r = g.find_path(a, b)
    if want is None:
        assert not r.found
        return
    assert r.found
    # each bend at a pushed-out corner adds at most O(margin); sharp corners push further
    assert r.cost == pytest.approx(want, abs=1e-4)
    assert obs.segments_clear(r.path[:-1], r.path[1:], radius=0.0).all()
    assert np.allclose(r.path[0], a) and np.allclose(r.path[-1], b)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([0.25, 0.6]))
def test_paths_with_radius_are_legal_and_dijkstra_agrees(seed, radius):
    rng = np.random.default_rng(seed)
    corners = rng.uniform(0, 18, (5, 2))
    sizes = rng.uniform(1, 4, (5, 2))
    polys = [[(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
             for (x, y), (w, h) in zip(corners, sizes)]
    obs = Obstacles(polys)
    g = VisibilityGraph.build(obs, radius=radius)
    ends = rng.uniform(-2, 24, (40, 2))
    ends = ends[obs.points_clear(ends, radius=radius)][:2]
    assume(len(ends) == 2)
    r1 = g.find_path(ends[0], ends[1])
    r2 = g.find_path(ends[0], ends[1], method="dijkstra")
    assert r1.found == r2.found
    if r1.found:
        assert r1.cost == pytest.approx(r2.cost)
        assert obs.segments_clear(r1.path[:-1], r1.path[1:], radius=radius).all()
        assert r1.cost == pytest.approx(np.hypot(*np.diff(r1.path, axis=0).T).sum())


def test_path_around_a_square_is_exact():
    polys = [np.array([(0, 0), (2, 0), (2, 2), (0, 2)], dtype=float)]
    g = VisibilityGraph.build(Obstacles(polys), radius=0.0, margin=1e-9)
    r = g.find_path((-1, 1), (3, 1))
    assert r.cost == pytest.approx(2 + 2 * np.sqrt(2), abs=1e-6)
    assert r.cost == pytest.approx(oracle_length(polys, (-1, 1), (3, 1)), abs=1e-6)
    assert len(r.path) == 4


def test_quantize_join_walks_to_visible_nodes():
    obs = Obstacles([[(0, 0), (2, 0), (2, 2), (0, 2)]])
    g = VisibilityGraph.build(obs, radius=0.1)
    r = g.find_path((-1, 1), (3, 1), join="quantize")
    assert r.found and obs.segments_clear(r.path[:-1], r.path[1:], radius=0.1).all()
    assert r.cost >= g.find_path((-1, 1), (3, 1)).cost - 1e-12
    empty = VisibilityGraph.build(Obstacles([[(0, 0), (1, 0), (0, 1)]]), bounds=(5, 5, 6, 6))
    direct = empty.find_path((2, 2), (3, 3))
    assert empty.num_nodes == 0 and direct.path.tolist() == [[2, 2], [3, 3]]
    with pytest.raises(InvalidQueryError, match="no nodes"):
        empty.find_path((2, 2), (3, 3), join="quantize")
