"""All-pairs path tables and zone tables (cluster heuristic) against scipy's shortest_path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import IndexMismatchError, InvalidGridError, InvalidQueryError
from wayfinding.graph.csr import CSRGraph, GraphIndex
from wayfinding.graph.tables import CSRPathTable, next_dtype, table_bytes
from wayfinding.graph.zone_tables import CSRZoneTable

scipy_csgraph = pytest.importorskip("scipy.sparse.csgraph")


def random_graph(seed, n=40, m=160, directed=True, coords=True):
    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2)) * 10
    s, t = rng.integers(0, n, m), rng.integers(0, n, m)
    w = np.round(np.linalg.norm(xy[s] - xy[t], axis=1) * rng.uniform(1, 2, m), 1) + 0.1
    return CSRGraph.from_edges(n, s, t, w, directed=directed,
                               coords=xy if coords else None)


def oracle(g):
    return scipy_csgraph.shortest_path(g.to_scipy(), method="D")


def tie_rule_move(g, dist, a, b):
    """Lowest neighbour id among the moves of optimal cost (plain reference)."""
    best = min((w + dist[v, b] for v, w in g.successors(a)), default=np.inf)
    if not np.isfinite(best) or a == b:
        return -1
    return min(v for v, w in g.successors(a) if w + dist[v, b] <= best * (1 + 1e-12))


def path_cost(g, path):
    total = 0.0
    for u, v in zip(path[:-1], path[1:]):
        total += min(w for x, w in g.successors(int(u)) if x == v)
    return total


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tables_match_scipy_and_tie_rule(seed, directed):
    g = random_graph(seed, directed=directed)
    t = CSRPathTable.build(g)
    ref = oracle(g)
    assert np.array_equal(t.dist, ref)
    assert t.next.dtype == np.int8
    n = g.num_nodes
    for a in range(n):
        for b in range(n):
            want = a if a == b else tie_rule_move(g, ref, a, b)
            assert t.next_hop(a, b) == want
            r = t.find_path(a, b)
            assert r.found == bool(np.isfinite(ref[a, b]))
            if r.found:
                assert r.path[0] == a and r.path[-1] == b
                assert path_cost(g, r.path) == pytest.approx(ref[a, b], rel=1e-12)


def test_worked_example_next_hops():
    # ch1 1.11: NEXT[B][A] = D and NEXT[D][A] = E; the look-ups follow B, D, E, A.
    A, B, D, E = 0, 1, 2, 3
    g = CSRGraph.from_edges(4, [B, D, E, B], [D, E, A, A], [1.0, 1.0, 1.0, 5.0])
    t = CSRPathTable.build(g)
    assert t.next_hop(B, A) == D and t.next_hop(D, A) == E
    assert t.find_path(B, A).path.tolist() == [B, D, E, A]
    assert t.distance(B, A) == 3.0
    assert not t.find_path(A, B).found and t.next_hop(A, B) == -1


def test_memory_arithmetic():
    # ch1 1.11: 1,000 nodes -> 10**6 entries; 50 zones of 20 nodes -> 20,000.
    assert table_bytes(1000) == 1000 * 1000 * (8 + 2)
    assert 50 * 20 ** 2 == 20_000
    assert next_dtype(128) == np.int8 and next_dtype(129) == np.int16
    assert next_dtype(40_000) == np.int32


def test_bad_inputs():
    g = random_graph(0)
    with pytest.raises(InvalidGridError, match="max_nodes"):
        CSRPathTable.build(g, max_nodes=10)
    t = CSRPathTable.build(g)
    with pytest.raises(InvalidQueryError, match="outside"):
        t.find_path(0, 99)
    z = CSRGraph.from_edges(2, [0], [1], [0.0])
    with pytest.raises(InvalidGridError, match="positive"):
        CSRPathTable.build(z)
    with pytest.raises(InvalidGridError, match="weight"):
        CSRGraph.from_edges(2, [0], [1], [-1.0])
    with pytest.raises(InvalidQueryError, match="zones must be"):
        CSRZoneTable.build(g, zones=[0, 1])
    with pytest.raises(InvalidQueryError, match="exactly one"):
        CSRZoneTable.build(g)


def test_save_load_and_mismatch(tmp_path):
    g = random_graph(3)
    t = CSRPathTable.build(g)
    t.save(tmp_path / "t.npz")
    back = GraphIndex.load(tmp_path / "t.npz", g)
    assert isinstance(back, CSRPathTable) and np.array_equal(back.next, t.next)
    assert t.nbytes == t.dist.nbytes + t.next.nbytes and t.build_time > 0
    with pytest.raises(IndexMismatchError):
        CSRPathTable.load(tmp_path / "t.npz", random_graph(4))
    zt = CSRZoneTable.build(g, zone_size=3.0)
    zt.save(tmp_path / "z.npz")
    assert np.array_equal(CSRZoneTable.load(tmp_path / "z.npz", g).zone_dist, zt.zone_dist)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.floats(1.0, 6.0), directed=st.booleans())
def test_cluster_heuristic_admissible_and_astar_optimal(seed, size, directed):
    g = random_graph(seed, n=30, m=90, directed=directed)
    zt = CSRZoneTable.build(g, zone_size=size)
    ref = oracle(g)
    h = zt.zone_dist[zt.zone[:, None], zt.zone[None, :]]
    assert np.all(h <= ref * (1 + 1e-12))
    # Exact definition: the smallest distance between any two members of the zones.
    for a in range(zt.num_zones):
        for b in range(zt.num_zones):
            block = ref[np.ix_(zt.zone == a, zt.zone == b)]
            assert zt.zone_dist[a, b] == pytest.approx(block.min(), rel=1e-12)
    for a in range(0, 30, 3):
        for b in range(30):
            r = zt.find_path(a, b)
            assert r.found == bool(np.isfinite(ref[a, b]))
            if r.found:
                assert r.cost == pytest.approx(ref[a, b], rel=1e-9)


def test_cluster_heuristic_is_not_consistent():
    # Zone 1 = {1, 2} touches the goal zone through node 2 only; edge 0 -> 1 costs 1 but
    # h drops from d(zone 0, zone 2) = 12 to d(zone 1, zone 2) = 1: inconsistent, still
    # admissible, and A* (with reopening) stays optimal.
    g = CSRGraph.from_edges(4, [0, 1, 0, 2], [1, 2, 3, 3], [1.0, 10.0, 20.0, 1.0])
    zt = CSRZoneTable.build(g, zones=[0, 1, 1, 2])
    assert zt.heuristic(0, 3) == 12.0 and zt.heuristic(1, 3) == 1.0
    assert zt.heuristic(0, 3) > 1.0 + zt.heuristic(1, 3)
    assert zt.find_path(0, 3).cost == 12.0


def test_island_pruned_by_zones():
    # Island test (ch1 1.11): the goal's zone is unreachable, nothing is expanded.
    g = CSRGraph.from_edges(5, [0, 1, 2, 3], [1, 2, 0, 4], [1.0] * 4, directed=False)
    zt = CSRZoneTable.build(g, zones=[0, 0, 0, 1, 1])
    r = zt.find_path(0, 4)
    assert not r.found and r.stats.expanded == 1 and not zt.reachable(0, 4)


def test_steps_below_the_rounding_of_the_distances_never_loop():
    # 0 <-> 1 costs 1e-20 each way, below the rounding of the distance 1 to node 2: the
    # lowest-id tie was 0 -> 1 -> 0 ..., and the walk raised a RuntimeError.
    g = CSRGraph.from_edges(3, [0, 1, 0, 1], [1, 0, 2, 2], [1e-20, 1e-20, 1.0, 1.0])
    table = CSRPathTable.build(g)
    for a in (0, 1):
        r = table.find_path(a, 2)
        assert r.found and r.path.tolist() == [a, 2] and r.cost == 1.0
    # Where only such a step leads on, no table can step down to the goal: refused.
    chain = CSRGraph.from_edges(3, [0, 1], [1, 2], [1e-20, 1.0])
    with pytest.raises(InvalidGridError, match="lowers its distance"):
        CSRPathTable.build(chain)
