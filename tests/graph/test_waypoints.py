"""Waypoint graphs: line-of-sight connection, quantize/localize, paths checked against
networkx and shapely."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidGridError, InvalidQueryError
from wayfinding.geometry import Obstacles
from wayfinding.graph import WaypointGraph
from wayfinding.graph.waypoints import lattice_points

shapely = pytest.importorskip("shapely")
from shapely.geometry import LineString, Polygon  # noqa: E402

WALL = Obstacles([[(4, -1), (5, -1), (5, 6), (4, 6)]])


def links_legal(path, obstacles, radius):
    return obstacles.segments_clear(path[:-1], path[1:], radius=radius).all()


def test_connect_around_a_wall():
    pts = [(0, 0), (9, 0), (4.5, 8), (0, 5)]
    g = WaypointGraph.connect(pts, WALL, radius=0.5)
    assert g.edges.tolist() == [[0, 2], [0, 3], [1, 2], [2, 3]]
    r = g.find_path((0, 0), (9, 0))
    assert r.found and r.path.tolist() == [[0, 0], [4.5, 8], [9, 0]]
    assert r.cost == pytest.approx(2 * np.hypot(4.5, 8))
    assert links_legal(r.path, WALL, 0.5)


def test_radius_blocks_a_narrow_gap():
    gap = Obstacles([[(0, 1), (10, 1), (10, 2), (0, 2)], [(0, -2), (10, -2), (10, -1),
                                                           (0, -1)]])
    ends = [(-1, 0), (11, 0)]
    assert WaypointGraph.connect(ends, gap, radius=0.9).num_edges == 1
    assert WaypointGraph.connect(ends, gap, radius=1.1).num_edges == 0


def test_max_link_and_user_edges():
    pts = [(0, 0), (1, 0), (2, 0)]
    assert WaypointGraph.connect(pts, max_link=1.0).edges.tolist() == [[0, 1], [1, 2]]
    g = WaypointGraph(pts, [(2, 1), (1, 0), (0, 1), (1, 1)], weights=[5, 1, 3, 7])
    assert g.edges.tolist() == [[0, 1], [1, 2]] and g.weights.tolist() == [1.0, 5.0]
    assert g.find_path((0, 0), (2, 0)).cost == 6.0
    assert g.quantize([(0.4, 3), (1.6, -1)]).tolist() == [0, 2]
    assert g.localize([2, 0]).tolist() == [[2, 0], [0, 0]]
    csr = g.to_csr()
    assert csr.num_nodes == 3 and csr.num_edges == 4 and csr.coords.tolist() == g.positions \
        .tolist()


@pytest.mark.parametrize("call, err, text", [
    (lambda: WaypointGraph.connect([(4.5, 0)], WALL), InvalidQueryError, "waypoint 0"),
    (lambda: WaypointGraph([(0, 0), (9, 0)], [(0, 1)], obstacles=WALL), InvalidQueryError,
     "link 0-1"),
    (lambda: WaypointGraph.connect([(0, np.nan)]), InvalidQueryError, "not finite"),
    (lambda: WaypointGraph.connect([(0, 0)], radius=-1), InvalidQueryError, "radius"),
    (lambda: WaypointGraph.connect([(0, 0), (1, 1)], max_link=0), InvalidQueryError,
     "max_link"),
    (lambda: WaypointGraph([(0, 0)], [(0, 3)]), InvalidGridError, "outside"),
    (lambda: WaypointGraph([(0, 0), (1, 0)], [(0, 1)], weights=[-1]), InvalidGridError,
     ">= 0"),
    (lambda: WaypointGraph.connect([(0, 0), (9, 0)], WALL).find_path((4.5, 2), (9, 0)),
     InvalidQueryError, "start"),
    (lambda: WaypointGraph.connect([(0, 0)]).find_path((0, 0), (1, 0), method="bfs"),
     InvalidQueryError, "unknown method"),
    (lambda: WaypointGraph.connect([(0, 0)]).find_path((0, 0), (1, 0), join="teleport"),
     InvalidQueryError, "join"),
])
def test_bad_inputs(call, err, text):
    with pytest.raises(err, match=text):
        call()


def test_no_route_is_not_found():
    g = WaypointGraph.connect([(0, 0), (9, 0)], WALL)
    r = g.find_path((0, 0), (9, 0))
    assert not r.found and r.cost == float("inf") and r.path.shape == (0, 2)


rect = st.tuples(st.floats(0, 18), st.floats(0, 18), st.floats(0.5, 4), st.floats(0.5, 4))


@settings(max_examples=30, deadline=None)
@given(st.lists(rect, min_size=1, max_size=5), st.integers(0, 10**6),
       st.sampled_from([0.0, 0.3, 1.0]), st.sampled_from([np.inf, 6.0]))
def test_connect_matches_shapely_and_paths_match_networkx(rects, seed, radius, max_link):
    polys = [[(x, y), (x + w, y), (x + w, y + h), (x, y + h)] for x, y, w, h in rects]
    obs = Obstacles(polys)
    shapes = [Polygon(p) for p in polys]
    rng = np.random.default_rng(seed)
    pts = rng.uniform(-1, 21, (60, 2))
    pts = pts[obs.points_clear(pts, radius=radius + 1e-6)][:25]
    if len(pts) < 2:
        return
    g = WaypointGraph.connect(pts, obs, radius=radius, max_link=max_link)
    want = set()
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            seg = LineString([pts[i], pts[j]])
            if seg.length > max_link:
                continue
            d = min(seg.distance(s) for s in shapes)
            if abs(d - radius) < 1e-7:
                continue  # too close to call
            inside = any(seg.relate_pattern(s, "T********") for s in shapes)
            if d >= radius and not inside:
                want.add((i, j))
    got = set(map(tuple, g.edges.tolist()))
    assert want <= got and all(
        abs(min(LineString([pts[i], pts[j]]).distance(s) for s in shapes) - radius) < 1e-7
        for i, j in got - want)
    ref = nx.Graph()
    ref.add_nodes_from(range(len(pts)))
    ref.add_weighted_edges_from((i, j, float(np.hypot(*(pts[i] - pts[j])))) for i, j in got)
    a, b = 0, len(pts) - 1
    r = g.find_path(pts[a], pts[b], method="dijkstra")
    if nx.has_path(ref, a, b):
        assert r.found and r.cost == pytest.approx(nx.dijkstra_path_length(ref, a, b))
        assert links_legal(r.path, obs, radius)
    else:
        assert not r.found


def test_lattice_points():
    obs = Obstacles([[(0, 0), (2, 0), (2, 2), (0, 2)]])
    pts = lattice_points(obs, (0, 0, 4, 4), 1.0, radius=0.2)
    assert pts.tolist() == [[2.5, 0.5], [3.5, 0.5], [2.5, 1.5], [3.5, 1.5], [0.5, 2.5],
                            [1.5, 2.5], [2.5, 2.5], [3.5, 2.5], [0.5, 3.5], [1.5, 3.5],
                            [2.5, 3.5], [3.5, 3.5]]
    with pytest.raises(InvalidQueryError, match="spacing"):
        lattice_points(obs, (0, 0, 4, 4), 0.0)
    with pytest.raises(InvalidQueryError, match="bounds"):
        lattice_points(obs, (0, 0, -4, 4), 1.0)
