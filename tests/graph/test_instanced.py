"""Instanced geometry: T17 (node offsets, building_of), T18 (instance and world graph), the
shared type graph left unchanged, and searches equal to those on a flattened copy."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import AdjacencyGraph, CSRGraph, InvalidGridError, InvalidQueryError
from wayfinding.graph.instanced import InstanceGraph, WorldGraph, assign_node_offsets
from wayfinding.search import astar, dijkstra


def chain(n: int) -> AdjacencyGraph:
    return AdjacencyGraph.from_edges([(i, i + 1, 1) for i in range(n - 1)], directed=False)


# ---------------------------------------------------------------------------- T17

def test_t17_offsets_follow_the_cumulative_rule():
    # first offset = world nodes, then + the previous instance's size.  (The notes' figures
    # 10000, 10200, 10300 fit sizes [200, 100, 100]; see the next test.)
    assert assign_node_offsets(10_000, [100, 200, 100]) == [10_000, 10_100, 10_300]
    assert assign_node_offsets(10_000, [200, 100, 100]) == [10_000, 10_200, 10_300]
    assert assign_node_offsets(5, []) == []


@pytest.fixture(scope="module")
def t17() -> WorldGraph:
    world = WorldGraph(CSRGraph.from_edges(10_000, [], [], []), 10_000)
    for size in (200, 100, 100):
        world.add_instance(chain(size))
    return world


@pytest.mark.parametrize(("node", "expected"), [
    (0, None), (9999, None), (10_000, (0, 0)), (10_199, (0, 199)), (10_250, (1, 50)),
    (10_399, (2, 99)), (10_300, (2, 0)), (10_001, (0, 1)),
])
def test_t17_building_of(t17, node, expected):
    assert [i.offset for i in t17.instances] == [10_000, 10_200, 10_300]
    assert t17.building_of(node) == expected


def test_t17_building_of_past_the_end(t17):
    assert t17.num_nodes == 10_400
    with pytest.raises(InvalidQueryError, match="10400"):
        t17.building_of(10_400)


def test_building_of_cache_gives_the_same_answers_in_any_order(t17):
    nodes = [10_250, 10_251, 10_000, 10_399, 10_200, 10_199, 10_300, 10_299, 5]
    expected = [t17.building_of(n) for n in nodes]
    assert [t17.building_of(n) for n in reversed(nodes)] == expected[::-1]


# ---------------------------------------------------------------------------- T18

@pytest.fixture
def t18():
    building = chain(3)
    before = copy.deepcopy(building._adj)
    world = WorldGraph(chain(10), 10)
    inst = world.add_instance(building, exits={0: 5}, entrances={5: 0})
    return world, inst, building, before


def test_t18_connections(t18):
    world, inst, building, before = t18
    assert inst.offset == 10
    assert (10, 0.0) in world.successors(5)
    assert sorted(world.successors(10)) == [(5, 0.0), (11, 1.0)]
    assert sorted(inst.successors(11)) == [(10, 1.0), (12, 1.0)]


@pytest.mark.parametrize("search", [astar, dijkstra])
def test_t18_path_into_the_building(t18, search):
    world, inst, building, before = t18
    r = search(world, 4, 12)
    assert r.path == [4, 5, 10, 11, 12]
    assert r.cost == 3
    assert building._adj == before  # the shared type graph was not touched
    assert search(world, 12, 0).cost == 7  # 12 -> 10 (2), exit to 5 (0), 5 -> 0 (5)


def test_exit_and_entrance_costs_are_settable():
    world = WorldGraph(chain(10), 10)
    world.add_instance(chain(3), exits={0: [(5, 2.5)]}, entrances={5: (0, 1.5)})
    assert (10, 1.5) in world.successors(5)
    assert (5, 2.5) in world.successors(10)
    assert astar(world, 4, 12).cost == 1 + 1.5 + 2


@pytest.mark.parametrize(("exits", "links"), [
    ({0: (5, 7)}, [(5, 7.0)]),                  # a pair is a node and its cost
    ({0: [5, 7]}, [(5, 0.0), (7, 0.0)]),        # several exits are a list
    ({0: [(5, 7), 8]}, [(5, 7.0), (8, 0.0)]),
])
def test_exit_pairs_are_a_node_and_its_cost(exits, links):
    world = WorldGraph(chain(10), 10)
    world.add_instance(chain(3), exits=exits)
    assert [e for e in world.successors(10) if e[0] < 10] == links


@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint16, int])
def test_numpy_integer_node_ids_are_accepted(kind):
    plain = WorldGraph(chain(10), 10)
    plain.add_instance(chain(3), exits={0: [(5, 2.5)], 2: 9}, entrances={5: (0, 1.5)})
    world = WorldGraph(chain(kind(10)), kind(10))
    inst = world.add_instance(chain(3), size=kind(3),
                              exits={kind(0): [(kind(5), 2.5)], kind(2): kind(9)},
                              entrances={kind(5): (kind(0), 1.5)})
    assert kind(11) in inst and inst.successors(kind(10)) == plain.instances[0].successors(10)
    for node in range(13):
        assert world.building_of(kind(node)) == plain.building_of(node)
        assert world.successors(kind(node)) == plain.successors(node)
        assert all(type(v) is int for v, _ in world.successors(kind(node)))
    assert astar(world, kind(4), kind(12)).cost == astar(plain, 4, 12).cost


def test_instances_share_one_type_graph():
    house = chain(4)
    before = copy.deepcopy(house._adj)
    world = WorldGraph(chain(20), 20)
    a = world.add_instance(house, exits={0: 2}, entrances={2: 0})
    b = world.add_instance(house, exits={0: 15, 3: 16}, entrances={15: 0, 16: 3})
    assert (a.offset, b.offset) == (20, 24)
    assert sorted(world.successors(24)) == [(15, 0.0), (25, 1.0)]
    # house b's node 3 (world 27) is entered straight from land node 16
    r = astar(world, 2, 27)
    assert r.cost == 14 and r.path[-2:] == [16, 27]
    r = astar(world, 14, 17)
    assert r.cost == 3  # no shortcut through the house: its ends are 3 apart inside
    assert house._adj == before


# ---------------------------------------------------------------------------- oracle

def _flatten_by_hand(world_edges, n_world, placed):
    """The combined graph built independently: world edges, then each instance's copy."""
    g = AdjacencyGraph({u: [] for u in range(n_world)})
    for a, b, c in world_edges:
        g.add_edge(a, b, c)
    offset = n_world
    for size, edges, exits, entrances in placed:
        for u in range(size):
            g._adj.setdefault(offset + u, [])
        for a, b, c in edges:
            g.add_edge(offset + a, offset + b, c)
        for local, w in exits.items():
            g.add_edge(offset + local, w, 0)
        for w, local in entrances.items():
            g.add_edge(w, offset + local, 0)
        offset += size
    return g


@st.composite
def worlds(draw):
    n_world = draw(st.integers(1, 8))
    wn = st.integers(0, n_world - 1)
    world_edges = draw(st.lists(st.tuples(wn, wn, st.integers(0, 9)), max_size=15))
    types = []
    for _ in range(draw(st.integers(1, 2))):
        size = draw(st.integers(1, 5))
        ln = st.integers(0, size - 1)
        types.append((size, draw(st.lists(st.tuples(ln, ln, st.integers(0, 9)), max_size=8))))
    placed = []
    for _ in range(draw(st.integers(1, 4))):
        size, edges = types[draw(st.integers(0, len(types) - 1))]
        ln = st.integers(0, size - 1)
        exits = draw(st.dictionaries(ln, wn, max_size=2))
        entrances = draw(st.dictionaries(wn, ln, max_size=2))
        placed.append((size, edges, exits, entrances))
    return n_world, world_edges, types, placed


@settings(max_examples=60, deadline=None)
@given(worlds(), st.data())
def test_world_graph_search_equals_flattened_copy(spec, data):
    n_world, world_edges, types, placed = spec
    land = AdjacencyGraph({u: [] for u in range(n_world)})
    for a, b, c in world_edges:
        land.add_edge(a, b, c)
    type_graphs = {}
    for size, edges in types:
        g = AdjacencyGraph({u: [] for u in range(size)})
        for a, b, c in edges:
            g.add_edge(a, b, c)
        type_graphs[id(edges)] = g
    snapshots = {k: copy.deepcopy(g._adj) for k, g in type_graphs.items()}
    world = WorldGraph(land, n_world)
    for _size, edges, exits, entrances in placed:
        world.add_instance(type_graphs[id(edges)], exits=exits, entrances=entrances)
    flat = _flatten_by_hand(world_edges, n_world, placed)
    assert world.num_nodes == len(flat)
    for u in range(world.num_nodes):
        assert sorted(world.successors(u)) == sorted(flat.successors(u))
    s = data.draw(st.integers(0, world.num_nodes - 1))
    t = data.draw(st.integers(0, world.num_nodes - 1))
    a, b = dijkstra(world, s, t), dijkstra(flat, s, t)
    assert a.found == b.found and a.cost == b.cost
    assert sorted(world.flatten().successors(s)) == sorted(flat.successors(s))
    for k, g in type_graphs.items():
        assert g._adj == snapshots[k]


# ---------------------------------------------------------------------------- bad input

def test_bad_inputs():
    world = WorldGraph(chain(10), 10)
    with pytest.raises(InvalidQueryError, match="exit target 10"):
        world.add_instance(chain(3), exits={0: 10})
    with pytest.raises(InvalidQueryError, match="exit node 3"):
        world.add_instance(chain(3), exits={3: 1})
    with pytest.raises(InvalidQueryError, match="entrance node -1"):
        world.add_instance(chain(3), entrances={-1: 0})
    with pytest.raises(InvalidQueryError, match="entrance target 7"):
        world.add_instance(chain(3), entrances={1: 7})
    with pytest.raises(InvalidGridError, match="cost"):
        world.add_instance(chain(3), exits={0: [(1, -1.0)]})
    assert world.instances == [] and world.num_nodes == 10  # nothing was placed
    with pytest.raises(InvalidGridError, match="size"):
        world.add_instance(object.__new__(type("G", (), {"successors": lambda s, n: []})))
    with pytest.raises(InvalidGridError, match="world_node_count"):
        WorldGraph(chain(3), -1)
    with pytest.raises(InvalidGridError, match="size"):
        assign_node_offsets(10, [5, -1])
    with pytest.raises(InvalidQueryError, match="node 'x'"):
        world.successors("x")
    inst = InstanceGraph(AdjacencyGraph.from_edges([(0, 5, 1)]), 20, size=2)
    with pytest.raises(InvalidGridError, match="leaves"):
        inst.successors(20)
