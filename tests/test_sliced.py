"""Time-sliced searches: for every compiled grid algorithm, CSR A*/Dijkstra (with their
indexes) and the generic search, a search run in slices of any size gives exactly the one-shot
result (path, cost, counters, recorded expansions and open list); time budgets; a search whose
scratch was taken refuses to go on; bad input."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import generated_grid, generated_scen
from strategies import seeded_csr_graphs, seeded_grids

from wayfinding import (
    AdjacencyGraph,
    CSRGraph,
    Grid,
    GridSearch,
    InvalidQueryError,
    SlicedSearch,
    Workspace,
    find_path,
    start_search,
)
from wayfinding.graph.differential import CSRDifferentialHeuristic
from wayfinding.graph.goal_bounds import CSRGoalBounds
from wayfinding.graph.zone_tables import CSRZoneTable
from wayfinding.grid.differential import DifferentialHeuristic
from wayfinding.grid.goal_bounds import GoalBounds
from wayfinding.search import AStarSearch

RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]
GRID_ALGOS = ["astar", "weighted_astar", "greedy", "dijkstra", "bfs", "bidirectional"]
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]


def run_in_slices(search, rng, timed=False):
    """Step with random budgets (some empty) until the search ends; returns the statuses."""
    statuses = []
    while search.status == "running":
        if timed and rng.random() < 0.3:
            statuses.append(search.step(max_seconds=float(rng.choice([0.0, 1e-6]))))
        else:
            statuses.append(search.step(max_expansions=int(rng.integers(0, 6))))
        assert len(statuses) < 100_000
    return statuses


def assert_same(a, b):
    """Two results are identical but for the elapsed time."""
    assert a.found == b.found and a.algorithm == b.algorithm
    assert a.cost == b.cost or (math.isinf(a.cost) and math.isinf(b.cost))
    np.testing.assert_array_equal(np.asarray(a.path), np.asarray(b.path))
    sa, sb = a.stats, b.stats
    assert (sa.expanded, sa.generated, sa.reopened, sa.updated, sa.max_open) == \
        (sb.expanded, sb.generated, sb.reopened, sb.updated, sb.max_open)
    for x, y in ((a.expanded_nodes, b.expanded_nodes), (a.open_nodes, b.open_nodes)):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def grids(max_side=12):
    """Grids of 1 to ``max_side`` cells a side, half with terrain, any diagonal rule; they may
    have no free cell."""
    return seeded_grids(max_side=max_side, densities=(0.0, 0.2, 0.35), terrain=(1.0, 1.5, 3.0),
                        open_corner="never", rules=RULES)


def free_cells(grid):
    ys, xs = np.nonzero(grid.passable)
    return list(zip(xs.tolist(), ys.tolist()))


# ------------------------------------------------------------------------------------ grids

@settings(max_examples=150, deadline=None, suppress_health_check=HEALTH)
@given(grid=grids(), data=st.data())
def test_grid_slices_equal_one_shot(grid, data):
    cells = free_cells(grid)
    if not cells:
        return
    algo = data.draw(st.sampled_from(GRID_ALGOS))
    a, b = data.draw(st.sampled_from(cells)), data.draw(st.sampled_from(cells))
    options = {"method": algo}
    if algo != "bidirectional":
        options["record"] = data.draw(st.booleans())
    if algo == "weighted_astar":
        options["weight"] = data.draw(st.sampled_from([1.0, 1.5, 3.0]))
    if algo != "bfs":
        options["heuristic"] = data.draw(st.sampled_from([None, "euclidean", "zero"]))
    one_shot = GridSearch(grid).find_path(a, b, **options)
    search = GridSearch(grid).start(a, b, **options)
    statuses = run_in_slices(search, np.random.default_rng(data.draw(st.integers(0, 99))),
                             timed=data.draw(st.booleans()))
    assert set(statuses[:-1]) <= {"running"}
    assert search.status == ("found" if one_shot.found else "failed")
    assert_same(search.result(), one_shot)
    assert search.step(max_expansions=3) == search.status  # an ended search stays ended


@pytest.mark.parametrize("algo", GRID_ALGOS)
def test_grid_slices_equal_one_shot_on_a_benchmark_map(algo):
    grid = generated_grid("caves")
    problems = generated_scen("caves")[::35]
    rng = np.random.default_rng(7)
    finder, slicer = GridSearch(grid), GridSearch(grid)
    for p in problems:
        one_shot = finder.find_path(p.start, p.goal, method=algo)
        search = slicer.start(p.start, p.goal, method=algo)
        while search.step(max_expansions=int(rng.integers(1, 200))) == "running":
            pass
        assert_same(search.result(), one_shot)
        if algo in ("astar", "dijkstra", "bidirectional"):
            assert abs(search.result().cost - p.optimal) <= 1e-3


def test_grid_slices_with_indexes_and_agent_size():
    grid = generated_grid("caves")
    dh = DifferentialHeuristic.build(grid, pivots=4)
    problems = generated_scen("caves")[::90]
    rng = np.random.default_rng(3)
    for options in ({"differential": dh}, {"differential": dh, "method": "weighted_astar"},
                    {"agent_size": 2, "record": True}):
        for p in problems:
            try:
                one_shot = GridSearch(grid).find_path(p.start, p.goal, **options)
            except InvalidQueryError:  # an endpoint too close to a wall for a wide agent
                continue
            search = GridSearch(grid).start(p.start, p.goal, **options)
            run_in_slices(search, rng)
            assert_same(search.result(), one_shot)


def test_grid_slices_with_goal_bounds():
    grid = Grid.from_ascii("""
        ..........
        .####.###.
        .#......#.
        .#.####.#.
        ...#..#...
        """)
    gb = GoalBounds.build(grid, workers=1, progress=False)
    rng = np.random.default_rng(5)
    cells = free_cells(grid)
    for _ in range(60):
        a, b = cells[rng.integers(len(cells))], cells[rng.integers(len(cells))]
        for algo in ("astar", "dijkstra"):
            one_shot = GridSearch(grid).find_path(a, b, method=algo, bounds=gb)
            search = GridSearch(grid).start(a, b, method=algo, bounds=gb)
            run_in_slices(search, rng)
            assert_same(search.result(), one_shot)


def test_known_answers_end_at_once():
    grid = Grid.from_ascii("..#..")
    same = GridSearch(grid).start((0, 0), (0, 0))
    assert same.status == "found" and same.result().path.tolist() == [[0, 0]]
    apart = GridSearch(grid).start((0, 0), (4, 0), method="bfs", record=True)
    assert apart.status == "failed" and apart.result().stats.expanded == 0
    assert apart.step() == "failed"


def test_result_while_running_reports_progress():
    grid = Grid(np.ones((30, 30), dtype=bool))
    search = GridSearch(grid).start((0, 0), (29, 29), method="dijkstra")
    assert search.step(max_expansions=10) == "running"
    r = search.result()
    assert not r.found and len(r.path) == 0 and r.stats.expanded == 10
    assert "running" in repr(search)


def test_budgets_beyond_32_bits_are_taken_on_every_platform():
    """The compiled budgets are 64-bit (C ``long`` is 32-bit on Windows)."""
    grid = Grid(np.ones((30, 30), dtype=bool))
    for method in ("astar", "bfs"):
        search = GridSearch(grid).start((0, 0), (29, 29), method=method)
        assert search.step(max_expansions=2**40) == "found"
    graph = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0])
    assert graph.start(0, 2).step(max_expansions=2**40) == "found"


def test_timed_steps_stop_near_their_budget_and_always_progress():
    grid = Grid(np.ones((700, 700), dtype=bool))
    search = GridSearch(grid).start((0, 0), (699, 699), method="dijkstra")
    search.step(max_seconds=0.0)
    assert search.stats.expanded >= 1
    t0 = time.perf_counter()
    assert search.step(max_seconds=0.005) == "running"
    spent = time.perf_counter() - t0
    assert spent < 0.2  # the clock is read every 16 expansions
    before = search.stats.expanded
    search.step(max_seconds=0.005, max_expansions=7)
    assert search.stats.expanded - before == 7  # the expansion cap binds first
    while search.step(max_seconds=0.01) == "running":
        pass
    assert_same(search.result(),
                GridSearch(grid).find_path((0, 0), (699, 699), method="dijkstra"))


def test_a_search_whose_scratch_was_taken_refuses_to_step():
    grid = Grid(np.ones((20, 20), dtype=bool))
    finder = GridSearch(grid)
    search = finder.start((0, 0), (19, 19))
    search.step(max_expansions=3)
    finder.find_path((0, 0), (5, 5))
    with pytest.raises(InvalidQueryError, match="another query"):
        search.step()
    for algo in ("bfs", "bidirectional"):
        search = finder.start((0, 0), (19, 19), method=algo)
        finder.start((1, 1), (2, 2), method=algo)
        with pytest.raises(InvalidQueryError, match="another query"):
            search.step()


def test_two_searches_on_two_finders_interleave():
    grid = generated_grid("caves")
    problems = generated_scen("caves")[::30][:4]
    searches = [GridSearch(grid).start(p.start, p.goal) for p in problems]
    while any(s.step(max_expansions=25) == "running" for s in searches):
        pass
    for s, p in zip(searches, problems):
        assert abs(s.result().cost - p.optimal) <= 1e-3


# -------------------------------------------------------------------------------- CSR graphs

def tied_or_geometric_graphs(max_nodes=14):
    """Graphs with 2D coordinates, weights at least the Euclidean length or tied (0, 1, 2.5)
    half the time each, directed or not."""
    return seeded_csr_graphs(max_nodes=max_nodes, dims=(2,), weights=("ties", "geometric"),
                             ties=(0.0, 1.0, 2.5))


@settings(max_examples=120, deadline=None, suppress_health_check=HEALTH)
@given(g=tied_or_geometric_graphs(), data=st.data())
def test_csr_slices_equal_one_shot(g, data):
    a = data.draw(st.integers(0, g.num_nodes - 1))
    b = data.draw(st.integers(0, g.num_nodes - 1))
    index = data.draw(st.sampled_from([None, "differential", "bounds", "zones"]))
    options = {"method": "astar" if index in ("differential", "zones")
               else data.draw(st.sampled_from(["astar", "dijkstra"])),
               "record": data.draw(st.booleans())}
    if index == "differential":
        options["differential"] = CSRDifferentialHeuristic.build(g, pivots=2)
    elif index == "bounds":
        options["bounds"] = CSRGoalBounds.build(g)
    elif index == "zones":
        options["zones"] = CSRZoneTable.build(g, zones=np.arange(g.num_nodes) % 3)
    one_shot = g.find_path(a, b, **options)
    search = g.start(a, b, **options)
    run_in_slices(search, np.random.default_rng(data.draw(st.integers(0, 99))))
    assert_same(search.result(), one_shot)


def test_csr_search_keeps_its_own_scratch_unless_given_one():
    grid = Grid(np.ones((15, 15), dtype=bool))
    g = grid.to_csr()
    search = g.start(0, g.num_nodes - 1)
    search.step(max_expansions=5)
    g.find_path(0, 30)  # runs on this thread's shared scratch, not the search's
    assert search.step() == "found"
    assert search.result().cost == pytest.approx(14 * math.sqrt(2))
    ws = Workspace(g.num_nodes)
    first = g.start(0, g.num_nodes - 1, workspace=ws)
    g.start(0, 1, workspace=ws)
    with pytest.raises(InvalidQueryError, match="another query"):
        first.step()
    with pytest.raises(InvalidQueryError, match="Workspace of at least"):
        g.start(0, 1, workspace=Workspace(3))
    with pytest.raises(InvalidQueryError, match="Workspace"):
        g.start(0, 1, workspace="scratch")


# ----------------------------------------------------------------------------- generic graphs

def test_generic_search_in_timed_slices_equals_one_shot():
    rng = np.random.default_rng(11)
    edges = [(int(u), int(v), float(c)) for u, v, c in
             zip(rng.integers(0, 200, 900), rng.integers(0, 200, 900), rng.uniform(0, 5, 900))]
    graph = AdjacencyGraph.from_edges(edges)
    for goal in range(0, 200, 17):
        one_shot = find_path(graph, 0, goal)
        search = start_search(graph, 0, goal)
        assert isinstance(search, AStarSearch)
        run_in_slices(search, rng, timed=True)
        assert_same(search.result(), one_shot)


# ------------------------------------------------------------------------------ start_search

def test_start_search_routes_like_find_path():
    grid = Grid.from_ascii("""
        .....
        .###.
        .....
        """)
    rng = np.random.default_rng(2)
    cases = [(grid, (0, 0), (4, 2), {}), (grid, (0, 0), (4, 2), {"method": "bfs"}),
             (grid, (0, 0), {(4, 2), (4, 0)}, {}),
             (grid, (0, 0), (4, 2), {"heuristic": lambda c, g: 0.0}),
             (grid, (0, 0), {(4, 2)}, {"method": "dijkstra"}),
             (grid.to_csr(), 0, 14, {"method": "dijkstra"}),
             (grid.to_csr(), 0, {14, 4}, {})]
    for world, a, b, options in cases:
        search = start_search(world, a, b, **options)
        run_in_slices(search, rng)
        assert_same(search.result(), find_path(world, a, b, **options))
    assert isinstance(start_search(grid, (0, 0), (4, 2)), SlicedSearch)


# --------------------------------------------------------------------------------- bad input

def test_bad_input():
    grid = Grid.from_ascii("..#..")
    search = GridSearch(grid).start((0, 0), (1, 0))
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(InvalidQueryError, match="max_expansions"):
            search.step(max_expansions=bad)
    for bad in (-0.1, math.nan, "1", False):
        with pytest.raises(InvalidQueryError, match="max_seconds"):
            search.step(max_seconds=bad)
    assert search.status == "running"  # bad input changed nothing
    assert search.step(max_expansions=np.int64(1)) == "running"
    assert search.step(max_expansions=10**30) == "found"
    with pytest.raises(InvalidQueryError, match="jps"):
        GridSearch(grid).start((0, 0), (1, 0), method="jps")
    with pytest.raises(InvalidQueryError, match="blocked"):
        GridSearch(grid).start((0, 0), (2, 0))
    with pytest.raises(InvalidQueryError, match="unknown method"):
        start_search(grid, (0, 0), (1, 0), method="nope")
    with pytest.raises(InvalidQueryError, match="needs a Grid"):
        start_search(AdjacencyGraph.from_edges([(0, 1, 1)]), 0, 1, method="bfs")
    with pytest.raises(InvalidQueryError, match="no heuristic"):
        start_search(grid, (0, 0), {(1, 0)}, method="dijkstra", heuristic=lambda c, g: 0.0)
    with pytest.raises(InvalidQueryError, match="path_dims"):
        AStarSearch(AdjacencyGraph.from_edges([(0, 1, 1)]), 0, 1, path_dims=3)
    generic = AStarSearch(AdjacencyGraph.from_edges([(0, 1, 1)]), 0, 1)
    with pytest.raises(InvalidQueryError, match="max_seconds"):
        generic.step(max_seconds=-1)


def test_a_stale_search_names_its_owner_s_type():
    from wayfinding.navmesh3d import NavMesh3DQuery, build, generate, with_flags
    q = NavMesh3DQuery(with_flags(build(generate.floor(size=30), tile_size=16)))
    first = q.start((1, 0, 1), (28, 0, 28))
    q.find_path((1, 0, 1), (5, 0, 5))
    with pytest.raises(InvalidQueryError, match="its own NavMesh3DQuery$"):
        first.step()
