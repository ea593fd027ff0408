"""Tiled exit tables: every route valid and terminating, "no route" exactly when
unreachable, one-way edges respected, length ratio to Dijkstra measured."""


import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import IndexMismatchError, InvalidGridError, InvalidQueryError
from wayfinding.graph.csr import CSRGraph, GraphIndex
from wayfinding.graph.exit_tables import CSRExitTables, _key
from wayfinding.graph.tables import table_bytes
from wayfinding.grid import Grid, generate

scipy_csgraph = pytest.importorskip("scipy.sparse.csgraph")
#: A small open cave, as the 4.8 measurements' arena.
ARENA = generate.caves(48, 48, fill=0.35, seed=2)


def geometric_graph(seed, n=60, directed=True, one_way=0.3):
    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2)) * 12
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    s, t = np.nonzero((d < 2.5) & (d > 0))
    keep = s < t
    s, t = s[keep], t[keep]
    back = rng.random(len(s)) >= one_way if directed else np.ones(len(s), bool)
    src = np.concatenate([s, t[back]])
    dst = np.concatenate([t, s[back]])
    return CSRGraph.from_edges(n, src, dst, d[src, dst] + 0.01, coords=xy)


def check_all_pairs(g, et):
    ref = scipy_csgraph.shortest_path(g.to_scipy(), method="D")
    worst = 1.0
    for a in range(g.num_nodes):
        for b in range(g.num_nodes):
            r = et.find_path(a, b)
            assert r.found == bool(np.isfinite(ref[a, b])), (a, b)
            if not r.found:
                continue
            assert r.path[0] == a and r.path[-1] == b
            total = 0.0
            for u, v in zip(r.path[:-1], r.path[1:]):
                lo, hi = g.indptr[u], g.indptr[u + 1]
                hit = np.flatnonzero(g.indices[lo:hi] == v)
                assert len(hit), (u, v)
                total += g.weights[lo + hit].min()
            assert r.cost == pytest.approx(total) and r.cost >= ref[a, b] * (1 - 1e-12)
            if ref[a, b] > 0:
                worst = max(worst, r.cost / ref[a, b])
    return worst


def sampled_ratios(g, et, seed, pairs=150):
    """Route-to-optimum cost ratios of ``pairs`` random pairs of live nodes (reachable,
    distinct); "found" must agree with :meth:`CSRGraph.find_path`."""
    rng = np.random.default_rng(seed)
    live = np.flatnonzero(np.diff(g.indptr))
    ratios = []
    for a, b in rng.choice(live, size=(pairs, 2)):
        r, opt = et.find_path(int(a), int(b)), g.find_path(int(a), int(b))
        assert r.found == opt.found
        if r.found and opt.cost > 0:
            ratios.append(r.cost / opt.cost)
    return np.array(ratios)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), tile=st.floats(0.8, 5.0), directed=st.booleans(),
       levels=st.integers(2, 4))
def test_routes_valid_and_reach_iff_reachable(seed, tile, directed, levels):
    g = geometric_graph(seed, n=40, directed=directed)
    et = CSRExitTables.build(g, tile_size=tile, levels=levels)
    assert et.levels == levels
    check_all_pairs(g, et)


def test_upper_levels_halve_the_tiles():
    g = geometric_graph(3, n=120, directed=True)
    et = CSRExitTables.build(g, tile_size=1.0, levels=4)
    tiles = et.options["tiles"]
    assert len(tiles) == 3
    # Each upper node is a component below; every component of one level sits inside one
    # tile of the level above (2 x 2 tiles below).
    comp0, comp1 = et.arrays["comp"], et.arrays["l1_comp"]
    live = comp0 >= 0
    tile0 = et.arrays["tile"][live]
    tw0 = tiles[0][0]
    up = et.arrays["l1_tile"][comp0[live]]
    tw1 = tiles[1][0]
    assert np.all(up % tw1 == (tile0 % tw0) // 2) and np.all(up // tw1 == (tile0 // tw0) // 2)
    assert len(et.arrays["l1_centre"]) == len(np.unique(comp1[comp1 >= 0]))
    check_all_pairs(g, et)


def test_near_goals_are_exact():
    # Inside the goal tile's 3 x 3 block on an open grid, routes are optimal.
    grid = Grid(np.ones((12, 12), dtype=bool))
    g = grid.to_csr()
    et = CSRExitTables.build(g, tile_size=4.0)
    ref = scipy_csgraph.shortest_path(g.to_scipy(), method="D")
    for a in range(0, 144, 7):
        for b in range(144):
            if np.abs(g.coords[a] // 4 - g.coords[b] // 4).max() <= 1:
                assert et.find_path(a, b).cost == pytest.approx(ref[a, b])


def test_one_way_cliff():
    # 4.9: a falling (one-way) edge is used downward only; from the bottom the route
    # takes the long way round.
    xy = np.array([[0, 0], [1, 0], [2, 0], [2, 1], [2, 2], [1, 2], [0, 2], [0, 1]], float)
    ring = list(range(8))
    src = ring[:-1] + ring[1:]
    dst = ring[1:] + ring[:-1]
    src.append(0)
    dst.append(7)   # the cliff edge 0 -> 7 (down); no 7 -> 0 edge except the ring
    g = CSRGraph.from_edges(8, src, dst, [1.0] * 14 + [0.5], coords=xy)
    et = CSRExitTables.build(g, tile_size=1.0)
    assert et.find_path(0, 7).path.tolist() == [0, 7]
    up = et.find_path(7, 0).path.tolist()
    assert up == [7, 6, 5, 4, 3, 2, 1, 0]
    check_all_pairs(g, et)


def test_components_are_strongly_connected_sets():
    # 4.9: N1 -> N2 -> N3 -> N1 is one component; N4 reached only by N3 -> N4 is alone.
    xy = np.array([[0.1, 0.1], [0.2, 0.1], [0.3, 0.1], [0.4, 0.1]])
    g = CSRGraph.from_edges(4, [0, 1, 2, 2], [1, 2, 0, 3], [1.0] * 4, coords=xy)
    et = CSRExitTables.build(g, tile_size=1.0)
    comp = et.arrays["comp"]
    assert comp[0] == comp[1] == comp[2] != comp[3]
    assert et.num_components == 2
    assert not et.find_path(3, 0).found and et.find_path(0, 3).path.tolist() == [0, 1, 2, 3]


def test_arena_routes_and_sizes(tmp_path):
    grid = ARENA
    g = grid.to_csr()
    et = CSRExitTables.build(g, tile_size=8.0)
    sizes = et.table_sizes()
    assert sizes["total"] == et.nbytes < sizes["flat"] == table_bytes(g.num_nodes)
    live = np.flatnonzero(np.diff(g.indptr))
    ratios = sampled_ratios(g, et, seed=7)
    assert min(ratios) >= 1 - 1e-12 and max(ratios) < 1.5
    et.save(tmp_path / "e.npz")
    back = GraphIndex.load(tmp_path / "e.npz", g)
    assert back.find_path(int(live[0]), int(live[-1])).path.tolist() == \
        et.find_path(int(live[0]), int(live[-1])).path.tolist()
    with pytest.raises(IndexMismatchError):
        CSRExitTables.load(tmp_path / "e.npz", geometric_graph(1))


@pytest.mark.parametrize("grid, tile, levels", [
    (generate.maze(63, 63, seed=2), 4.0, 3),
    (generate.rooms(64, 64, seed=1), 4.0, 4),
    (generate.maze(63, 63, seed=0), 6.0, 4),
])
def test_upper_components_take_no_long_detour(grid, tile, levels):
    # Neighbouring components with a wall between them once formed one upper component, and
    # routes went round the wall: 3 to 15 times the optimum on these maps.
    g = grid.to_csr()
    ratios = sampled_ratios(g, CSRExitTables.build(g, tile_size=tile, levels=levels), seed=2)
    assert len(ratios) > 100 and min(ratios) >= 1 - 1e-12 and max(ratios) < 2.5


def test_more_levels_shrink_the_top_table(tmp_path):
    # 4.8: the tables shrink from 2 to 3 levels and barely change from 3 to 4.
    g = ARENA.to_csr()
    sizes = {lv: CSRExitTables.build(g, tile_size=4.0, levels=lv).table_sizes()
             for lv in (2, 3, 4)}
    assert sizes[3]["top"] < sizes[2]["top"] / 10 and sizes[4]["top"] < sizes[3]["top"]
    assert sizes[3]["total"] < 0.9 * sizes[2]["total"]
    assert abs(sizes[4]["total"] - sizes[3]["total"]) < 0.05 * sizes[3]["total"]
    et = CSRExitTables.build(g, tile_size=4.0, levels=3)
    et.save(tmp_path / "e3.npz")
    back = GraphIndex.load(tmp_path / "e3.npz", g)
    assert back.levels == 3
    live = np.flatnonzero(np.diff(g.indptr))
    rng = np.random.default_rng(3)
    ref = scipy_csgraph.shortest_path(g.to_scipy(), method="D", indices=live[:40])
    for i, a in enumerate(live[:40]):
        for b in rng.choice(live, 30):
            r = back.find_path(int(a), int(b))
            assert r.found == bool(np.isfinite(ref[i, b]))
            assert r.path.tolist() == et.find_path(int(a), int(b)).path.tolist()
            if r.found:
                assert r.cost >= ref[i, b] * (1 - 1e-12)


@pytest.mark.parametrize("levels", [2, 3, 4])
def test_tiny_graphs(levels, tmp_path):
    # Upper levels may be left with one component or none at all.
    for n, src, dst in ((0, [], []), (1, [], []), (2, [0], [1]), (3, [0, 1, 2], [1, 0, 0])):
        xy = np.arange(2.0 * n).reshape(n, 2)
        g = CSRGraph.from_edges(n, src, dst, [1.0] * len(src), coords=xy)
        et = CSRExitTables.build(g, tile_size=100.0, levels=levels)
        et.save(tmp_path / "t.npz")
        back = GraphIndex.load(tmp_path / "t.npz", g)
        if n:
            check_all_pairs(g, back)


def test_bad_inputs():
    g = geometric_graph(0)
    with pytest.raises(InvalidQueryError, match="tile_size"):
        CSRExitTables.build(g, tile_size=0)
    with pytest.raises(InvalidQueryError, match="coords"):
        CSRExitTables.build(CSRGraph.from_edges(2, [0], [1], [1.0]), tile_size=1.0)
    with pytest.raises(InvalidGridError, match="positive"):
        CSRExitTables.build(CSRGraph.from_edges(2, [0], [1], [0.0], coords=[[0, 0], [1, 0]]),
                            tile_size=1.0)
    with pytest.raises(InvalidQueryError, match="max_centres"):
        CSRExitTables.build(g, tile_size=1.0, max_centres=2)
    for bad in (1, 2.0, True, "3"):
        with pytest.raises(InvalidQueryError, match="levels"):
            CSRExitTables.build(g, tile_size=1.0, levels=bad)
    et = CSRExitTables.build(g, tile_size=3.0)
    with pytest.raises(InvalidQueryError, match="outside"):
        et.find_path(0, 1000)


def test_memory_grows_with_nodes_and_links_not_components_times_nodes():
    # A line of 600 nodes in tiles of one node each: 600 components.  Distances to every
    # centre held at once took components x nodes x 8 bytes and as much again per
    # components x components matrix (24 MB here; 24 GB on a 512 x 512 maze).
    n = 600
    xy = np.stack([np.arange(n), np.zeros(n)], axis=1).astype(float)
    g = CSRGraph.from_edges(n, np.arange(n - 1), np.arange(1, n), np.ones(n - 1), coords=xy,
                            directed=False)
    tracemalloc.start()
    try:
        et = CSRExitTables.build(g, tile_size=1.0, levels=6)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(et.arrays[_key(0, "centre")]) == n
    assert peak < 4 * et.nbytes + 2e6, (peak, et.nbytes)
    assert et.find_path(0, n - 1).cost == n - 1


def test_steps_below_the_rounding_of_the_distances_never_loop():
    # As for the path tables: the exits went round the 1e-20 cycle and the walk raised.
    xy = np.array([[0.0, 0.0], [1e-20, 0.0], [1.0, 0.0]])
    g = CSRGraph.from_edges(3, [0, 1, 0, 1], [1, 0, 2, 2], [1e-20, 1e-20, 1.0, 1.0], coords=xy)
    tables = CSRExitTables.build(g, tile_size=0.5)
    for a in (0, 1):
        r = tables.find_path(a, 2)
        assert r.found and r.path.tolist() == [a, 2] and r.cost == 1.0
    chain = CSRGraph.from_edges(3, [0, 1], [1, 2], [1e-20, 1.0], coords=xy)
    with pytest.raises(InvalidGridError, match="lowers its distance"):
        CSRExitTables.build(chain, tile_size=0.5)
