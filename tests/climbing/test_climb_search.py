"""Climb search: exactness against networkx, mid-traversal starts, soft reservations,
navmesh clue links, paths on moving objects, and bad input."""

import networkx as nx
import numpy as np
import pytest

from wayfinding.climbing import (
    Capabilities,
    ClimbPosition,
    ClimbReservations,
    ElementKind,
    TraversalElement,
    build_climb_graph,
    clue_links,
    find_climb_path,
    nearest_position,
)
from wayfinding.errors import InvalidGeometryError, InvalidQueryError
from wayfinding.navmesh import NavMesh
from wayfinding.navmesh3d import build, generate
from wayfinding.navmesh3d.query import with_flags

LEDGE, PIPE, LADDER = ElementKind.LEDGE, ElementKind.PIPE, ElementKind.LADDER


def element(kind, *points):
    return TraversalElement(kind, points)


def random_markup(seed):
    rng = np.random.default_rng(seed)
    els = []
    for _ in range(12):
        x, z = rng.uniform(0, 8), rng.uniform(0, 8)
        if rng.random() < 0.5:
            els.append(element(LEDGE, (x, 0, z), (x + rng.uniform(1, 4), 0, z)))
        else:
            els.append(element(PIPE, (x, 0, z), (x, 0, z + rng.uniform(1, 4))))
    return els


def networkx_cost(g, start, goal):
    """Dijkstra on the graph with the query's ends spliced in by hand."""
    G = nx.DiGraph()
    for (u, v), w in zip(g.edges.tolist(), g.edge_lengths):
        G.add_edge(u, v, weight=w)
    for name, where in (("s", start), ("t", goal)):
        rows = g.stops[where.element]
        d = where.distance
        for dist, node in rows:
            a, b = (name, int(node)) if name == "s" else (int(node), name)
            nxt = [r for r in rows if r[0] >= d][:1] + [r for r in rows if r[0] <= d][-1:]
            if any(dist == r[0] for r in nxt):
                G.add_edge(a, b, weight=abs(dist - d))
    if start.element == goal.element:
        G.add_edge("s", "t", weight=abs(start.distance - goal.distance))
    try:
        return nx.dijkstra_path_length(G, "s", "t")
    except nx.NetworkXNoPath:
        return np.inf


@pytest.mark.parametrize("seed", range(8))
def test_astar_equals_networkx_dijkstra_on_random_markup(seed):
    els = random_markup(seed)
    g = build_climb_graph(els, capabilities=Capabilities(max_jump_distance=2.5))
    rng = np.random.default_rng(100 + seed)
    for _ in range(10):
        i, j = rng.integers(len(els), size=2)
        s = ClimbPosition(int(i), float(rng.uniform(0, els[i].length)))
        t = ClimbPosition(int(j), float(rng.uniform(0, els[j].length)))
        a = find_climb_path(g, s, t)
        d = find_climb_path(g, s, t, method="dijkstra")
        want = networkx_cost(g, s, t)
        assert a.cost == pytest.approx(want) and d.cost == pytest.approx(want)
        if a.found:
            steps = np.linalg.norm(np.diff(a.points, axis=0), axis=1)
            assert a.length == pytest.approx(a.cost)
            assert steps.sum() == pytest.approx(a.length)   # straight elements: chords
            assert np.allclose(a.points[0], els[i].point_at(s.distance))
            assert np.allclose(a.points[-1], els[j].point_at(t.distance))


@pytest.mark.parametrize("seed", range(4))
def test_reserved_costs_equal_networkx_between_nodes(seed):
    els = random_markup(seed)
    g = build_climb_graph(els, capabilities=Capabilities(max_jump_distance=2.5))
    rng = np.random.default_rng(200 + seed)
    res = ClimbReservations(penalty=3.0)
    res.reserve("other", rng.choice(len(g.edges), size=len(g.edges) // 3, replace=False))
    extra = res.extra(g, excluding="me")
    G = nx.DiGraph()
    for (u, v), w in zip(g.edges.tolist(), g.edge_lengths + extra):
        G.add_edge(u, v, weight=w)
    for _ in range(10):
        s, t = (int(k) for k in rng.integers(g.num_nodes, size=2))
        p = find_climb_path(g, s, t, reservations=res, agent="me")
        try:
            want = 0.0 if s == t else nx.dijkstra_path_length(G, s, t)
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            want = np.inf
        assert p.cost == pytest.approx(want)
        assert find_climb_path(g, s, t).cost <= p.cost          # the kept graph is unchanged
        if p.found:
            assert p.cost == pytest.approx(p.length + extra[p.edges].sum())


def test_mid_traversal_start_between_nodes():
    els = [element(LEDGE, (0, 0, 3), (4, 0, 3)), element(LADDER, (4, 0, 3), (4, 0, 9))]
    g = build_climb_graph(els)
    p = find_climb_path(g, ClimbPosition(0, 0.5), ClimbPosition(1, 6.0))
    assert p.found and p.cost == pytest.approx(3.5 + 6.0)
    assert p.nodes[0] == -1 and p.nodes[-1] >= 0
    assert np.allclose(p.points[0], (0.5, 0, 3)) and np.allclose(p.points[-1], (4, 0, 9))
    back = find_climb_path(g, ClimbPosition(0, 1.5), ClimbPosition(0, 0.5))
    assert back.cost == pytest.approx(1.0) and len(back.points) == 2
    same = find_climb_path(g, 2, 2)
    assert same.found and same.cost == 0 and len(same.points) == 1


def two_ascents():
    """Two ladders to one roof ledge: left short (6 m), right a little longer."""
    return [element(LADDER, (0, 0, 0), (0, 0, 6)), element(LADDER, (2, 0, 0), (2, 0, 6)),
            element(LEDGE, (0, 0, 6), (2, 0, 6)), element(LEDGE, (-2, 0, 0), (4, 0, 0))]


def test_reservation_changes_the_route_and_is_released():
    g = build_climb_graph(two_ascents(), capabilities=Capabilities(max_jump_distance=0,
                                                                   max_drop_height=0))
    start, goal = ClimbPosition(3, 2.5), ClimbPosition(2, 0.5)   # below x = 0.5; roof x = 0.5
    first = find_climb_path(g, start, goal)
    assert first.points[:, 0].min() == pytest.approx(0.0)           # left ladder
    res = ClimbReservations(penalty=10.0)
    res.reserve("bot1", first.edges)
    second = find_climb_path(g, start, goal, reservations=res, agent="bot2")
    assert second.points[:, 0].max() == pytest.approx(2.0)          # right ladder
    assert second.length > first.length
    assert second.cost < first.length + 10 * (len(first.edges))     # cheaper than the jam
    own = find_climb_path(g, start, goal, reservations=res, agent="bot1")
    assert own == first
    res.release("bot1")
    assert find_climb_path(g, start, goal, reservations=res, agent="bot2") == first
    assert res.extra(g).sum() == 0


def test_small_penalty_keeps_the_shorter_route():
    g = build_climb_graph(two_ascents(), capabilities=Capabilities(max_jump_distance=0,
                                                                   max_drop_height=0))
    start, goal = ClimbPosition(3, 2.5), ClimbPosition(2, 0.5)
    first = find_climb_path(g, start, goal)
    res = ClimbReservations(penalty=0.1)
    res.reserve("bot1", first.edges)
    second = find_climb_path(g, start, goal, reservations=res, agent="bot2")
    assert np.array_equal(second.points, first.points) and second.cost > first.cost


def test_clue_links_from_a_2d_navmesh_hand_off_to_the_climb():
    mesh = NavMesh.build(outline=[(-5, -5), (10, -5), (10, 10), (-5, 10)])
    els = [element(LADDER, (0, 2, 0.5), (0, 2, 6)), element(LEDGE, (0, 2, 6), (4, 2, 6))]
    g = build_climb_graph(els)
    clues = clue_links(g, mesh, max_distance=1.0)
    foot = [c for c in clues if c.end == "foot" and c.element == 0]
    assert len(foot) == 1 and np.allclose(foot[0].ground, (0, 2, 0))
    assert foot[0].length == pytest.approx(0.5)
    assert not [c for c in clues if c.end == "top" and c.element == 0]    # 6 m up
    p = find_climb_path(g, foot[0], ClimbPosition(1, 4.0))
    assert np.allclose(p.points[0], (0, 2, 0)) and p.cost == pytest.approx(0.5 + 5.5 + 4)
    assert p.nodes[0] == -1 and p.edges[0] == -1


def test_clue_links_from_a_navmesh3d():
    mesh = with_flags(build(generate.floor(size=6)))
    g = build_climb_graph([element(LADDER, (3, 3, 0.3), (3, 3, 5))])
    clues = clue_links(g, mesh, max_distance=1.0)
    assert [c.end for c in clues] == ["foot"]
    assert clues[0].ground[:2] == pytest.approx((3, 3), abs=0.5)
    assert abs(clues[0].ground[2]) < 0.3 and clues[0].polygon >= 0


def test_path_on_a_moving_object_equals_the_path_planned_on_moved_markup():
    els = two_ascents() + [element(PIPE, (1, 0, 1), (1, 0, 5))]
    caps = Capabilities(max_jump_distance=2.5)           # no link right at a threshold
    g = build_climb_graph(els, capabilities=caps)
    start, goal = ClimbPosition(3, 0.7), ClimbPosition(2, 1.9)
    path = find_climb_path(g, start, goal)
    for angle, shift in ((0.4, (3, 1, 0)), (2.5, (-7, 2, 4))):
        c, s = np.cos(angle), np.sin(angle)
        rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])     # a turning, rising platform
        moved = find_climb_path(build_climb_graph([e.transformed(rot, shift) for e in els],
                                                  capabilities=caps), start, goal)
        carried = path.transformed(rot, shift)
        assert np.allclose(carried.points, moved.points)
        assert np.array_equal(carried.nodes, moved.nodes)
        assert np.array_equal(carried.edges, moved.edges)
        assert carried.cost == pytest.approx(moved.cost)


def test_a_tilted_object_carries_its_graph_and_path():
    """Links were chosen under the object's own up; its graph and paths move with it."""
    els = two_ascents() + [element(PIPE, (1, 0, 1), (1, 0, 5))]
    g = build_climb_graph(els)
    start, goal = ClimbPosition(3, 0.7), ClimbPosition(2, 1.9)
    c, s = np.cos(0.4), np.sin(0.4)
    rot, shift = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]), (3, 1, 0)
    moved = find_climb_path(g.transformed(rot, shift), start, goal)
    carried = find_climb_path(g, start, goal).transformed(rot, shift)
    assert np.allclose(moved.points, carried.points)
    assert np.array_equal(moved.edges, carried.edges) and moved.cost == carried.cost


@pytest.mark.parametrize("start, goal, options", [
    (ClimbPosition(5, 0.0), 0, {}),
    (ClimbPosition(0, 9.0), 0, {}),
    (ClimbPosition(True, 0.0), 0, {}),
    (0, 99, {}),
    (0, "roof", {}),
    (0, 1, {"method": "bfs"}),
    (0, 1, {"reservations": {}}),
    ([], 1, {}),
    (0, [1, 2], {}),
])
def test_bad_queries_are_refused(start, goal, options):
    g = build_climb_graph([element(LADDER, (0, 0, 0), (0, 0, 6))])
    with pytest.raises(InvalidQueryError):
        find_climb_path(g, start, goal, **options)


def test_bad_reservations_and_clues_are_refused():
    with pytest.raises(InvalidQueryError):
        ClimbReservations(penalty=-1)
    with pytest.raises(InvalidQueryError):
        ClimbReservations().reserve("a", [0.5])
    g = build_climb_graph([element(LADDER, (0, 0, 0), (0, 0, 6))])
    with pytest.raises(InvalidQueryError):
        clue_links(g, object())
    with pytest.raises(InvalidQueryError):
        clue_links(g, NavMesh.build(outline=[(0, 0), (1, 0), (1, 1)]), max_distance=0)


def test_unreachable_goal_is_not_found():
    g = build_climb_graph([element(LADDER, (0, 0, 0), (0, 0, 6)),
                           element(LADDER, (9, 0, 0), (9, 0, 6))])
    p = find_climb_path(g, ClimbPosition(0, 1.0), ClimbPosition(1, 1.0))
    assert not p.found and p.cost == np.inf and p.points.shape == (0, 3)


def test_a_character_found_mid_climb_starts_from_the_nearest_point():
    els = [element(LEDGE, (0, 0, 3), (4, 0, 3)), element(LADDER, (4, 0, 3), (4, 0, 9))]
    g = build_climb_graph(els)
    here = nearest_position(g, (1.2, -0.3, 2.6))
    assert here == ClimbPosition(0, pytest.approx(1.2))
    p = find_climb_path(g, here, ClimbPosition(1, 6.0))
    assert p.cost == pytest.approx(2.8 + 6.0) and np.allclose(p.points[0], (1.2, 0, 3))
    with pytest.raises(InvalidQueryError):
        nearest_position(g, (0, 0))
    with pytest.raises(InvalidQueryError):
        nearest_position(build_climb_graph(els, capabilities=Capabilities(kinds=())), (0, 0, 0))


def test_one_compiled_search_serves_every_way_on_and_off(monkeypatch):
    from wayfinding.climbing import search as module
    from wayfinding.climbing.scenes import climbing_wall
    from wayfinding.graph import CSRGraph

    wall = climbing_wall(bays=4, floors=3, seed=1)
    g = wall.graph()
    clues = wall.clues(g)
    res = ClimbReservations(penalty=5.0)
    res.reserve("bot1", find_climb_path(g, clues, wall.position("roof")).edges)
    calls = []
    kernel = module._csrsearch.search

    def counted(*args):
        calls.append(args[5:7])
        return kernel(*args)

    def refused(*args, **kwargs):
        raise AssertionError("a query built a graph")

    monkeypatch.setattr(module._csrsearch, "search", counted)
    monkeypatch.setattr(CSRGraph, "from_edges", refused)
    mid = ClimbPosition(0, 0.5 * g.elements[0].length)
    for start, goal in ((clues, wall.position("roof")), (mid, clues), (mid, 7)):
        for options in ({}, {"reservations": res, "agent": "bot2"}):
            calls.clear()
            assert find_climb_path(g, start, goal, **options).found
            assert calls == [(g.num_nodes, g.num_nodes + 1)]


@pytest.mark.parametrize("seed", range(3))
def test_searches_to_and_between_clue_lists_equal_dijkstra(seed):
    # to a list of clue links A* runs backwards, aiming at the start; between two lists
    # it is Dijkstra's; with and without reservations, and the arrays are put back
    from wayfinding.climbing.scenes import climbing_wall

    wall = climbing_wall(bays=5, floors=3, seed=seed)
    g = wall.graph()
    clues = wall.clues(g)
    res = ClimbReservations(penalty=3.0)
    res.reserve("bot1", find_climb_path(g, clues, wall.position("roof")).edges)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        e = int(rng.integers(len(g.elements)))
        here = ClimbPosition(e, float(rng.uniform(0, g.elements[e].length)))
        for start, goal in ((here, clues), (clues, here), (clues, clues[::-1])):
            for options in ({}, {"reservations": res, "agent": "bot2"}):
                p = find_climb_path(g, start, goal, **options)
                want = find_climb_path(g, start, goal, method="dijkstra", **options)
                assert p.cost == pytest.approx(want.cost, rel=1e-12)
                on_graph = (p.nodes[:-1] >= 0) & (p.nodes[1:] >= 0)
                assert np.array_equal(g.edges[p.edges[on_graph]],
                                      np.stack([p.nodes[:-1], p.nodes[1:]], 1)[on_graph])
    assert find_climb_path(g, clues, wall.position("roof")) == \
        find_climb_path(g, clues, wall.position("roof"))


def test_queries_on_threads_equal_the_same_queries_inline():
    from concurrent.futures import ThreadPoolExecutor

    from wayfinding.climbing.scenes import climbing_wall

    wall = climbing_wall(bays=5, floors=4, seed=2)
    g = wall.graph()
    clues = wall.clues(g)
    res = ClimbReservations(penalty=4.0)
    res.reserve("bot1", find_climb_path(g, clues, wall.position("roof")).edges)
    queries = [(ClimbPosition(e, 0.4 * g.elements[e].length), goal, options)
               for e in range(0, len(g.elements), 3)
               for goal in (clues, wall.position("roof"))
               for options in ({}, {"reservations": res, "agent": "bot2"})]
    want = [find_climb_path(g, s, t, **o) for s, t, o in queries]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            got = list(pool.map(lambda q: find_climb_path(g, q[0], q[1], **q[2]), queries))
            assert got == want


@pytest.mark.parametrize("change, message", [
    ({"length": -5.0}, "length"),
    ({"length": np.nan}, "length"),
    ({"length": np.inf}, "length"),
    ({"node": 1.5}, "node"),
    ({"node": True}, "node"),
    ({"node": "x"}, "node"),
    ({"ground": np.array([np.nan, 0.0, 0.0])}, "ground"),
    ({"ground": "x"}, "ground"),
])
def test_a_malformed_clue_link_is_refused_at_either_end(change, message):
    # a clue link made by hand: a negative or non-finite length, a node that is not an
    # integer of the graph or a ground that is not a finite point is bad input, never a
    # negative cost or a raw error
    from dataclasses import replace

    from wayfinding.climbing.scenes import climbing_wall

    wall = climbing_wall(bays=3, floors=2, seed=1)
    g = wall.graph()
    bad = replace(wall.clues(g)[0], **change)
    for start, goal in ((bad, 5), (5, bad), ([bad], 5)):
        with pytest.raises(InvalidQueryError, match=message):
            find_climb_path(g, start, goal)


def test_the_nearest_position_of_a_point_far_out_is_still_found():
    # squared distances of 1e300 overflow; the point is finite, so it has a nearest place
    # (at that distance both pipes are equally near: the lower index wins)
    g = build_climb_graph([element(PIPE, (0, 0, 0), (0, 0, 9)),
                           element(PIPE, (5, 0, 0), (5, 0, 9))])
    assert nearest_position(g, (1e300, 0, 5)) == ClimbPosition(0, 5.0)
    assert nearest_position(g, (-1e300, 3e299, 20)) == ClimbPosition(0, 9.0)
    assert nearest_position(g, (1e308, 1e308, -1e308)) == ClimbPosition(0, 0.0)


def test_malformed_reservations_positions_and_graphs_are_refused():
    from wayfinding.climbing.scenes import climbing_wall

    wall = climbing_wall(bays=3, floors=2, seed=1)
    with pytest.raises(InvalidQueryError, match="edges"):
        ClimbReservations().reserve("a", [[0, 1], [2]])
    with pytest.raises(InvalidQueryError, match="ClimbGraph"):
        ClimbReservations().extra(None)
    for bad in (np.nan, -1.0, 1e9):
        with pytest.raises(InvalidQueryError, match="distance"):
            wall.position("roof", distance=bad)
    with pytest.raises(InvalidGeometryError, match="elements"):
        build_climb_graph(3)
