"""Grid search API: edge cases, bad queries, statistics, records, threads, reuse."""

import math

import numpy as np
import pytest

import wayfinding as wf
from wayfinding.grid import ALGORITHMS, GridConstraintDomain, GridSearch, find_paths

MAZE = wf.Grid.from_ascii("""
.......
.#####.
.#...#.
.#.#.#.
...#...
""")


@pytest.mark.parametrize("method", list(ALGORITHMS))
def test_start_equals_goal(method):
    r = GridSearch(MAZE).find_path((0, 0), (0, 0), method=method)
    assert r.found and r.cost == 0.0 and r.path.tolist() == [[0, 0]]


@pytest.mark.parametrize("method", list(ALGORITHMS))
def test_unreachable_is_answered_by_components(method):
    g = wf.Grid.from_ascii("..#..\n..#..")
    r = GridSearch(g).find_path((0, 0), (4, 1), method=method)
    assert not r.found and r.cost == math.inf and r.path.shape == (0, 2)
    assert r.stats.expanded == 0


BAD = {
    "outside": (((7, 0), (0, 0)), "start (7, 0) is outside the 7x5 grid"),
    "negative": (((0, -1), (0, 0)), "outside"),
    "blocked": (((0, 0), (1, 1)), "goal (1, 1) is a blocked cell"),
    "nan": (((math.nan, 0), (0, 0)), "NaN"),
    "float": (((0.0, 0.0), (1, 0)), "must hold integers"),
    "shape": (((0, 0, 0), (1, 0)), "shape (3,)"),
    "string": ((("a", 0), (1, 0)), "two integers"),
    "bool": (((True, False), (1, 0)), "two integers"),
    "none": ((None, (1, 0)), "(x, y) pair"),
}


@pytest.mark.parametrize("case", BAD, ids=str)
def test_bad_queries_raise_invalid_query(case):
    (a, b), msg = BAD[case]
    with pytest.raises(wf.InvalidQueryError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        wf.find_path(MAZE, a, b)


@pytest.mark.parametrize("options,msg", [
    ({"method": "fast"}, "unknown method 'fast'"),
    ({"heuristic": "cosine"}, "unknown heuristic 'cosine'"),
    ({"method": "weighted_astar", "weight": 0.5}, "weight 0.5"),
    ({"method": "weighted_astar", "weight": math.nan}, "weight nan"),
    ({"method": "astar", "weight": 2}, "only used by 'weighted_astar'"),
    ({"agent_size": 0}, "agent_size 0"),
    ({"method": "bidirectional", "record": True}, "record=True"),
])
def test_bad_options(options, msg):
    with pytest.raises(wf.InvalidQueryError, match=msg):
        wf.find_path(MAZE, (0, 0), (6, 4), **options)


def test_numpy_cells_are_accepted():
    a = wf.find_path(MAZE, np.array([0, 0]), np.int64(6) and (np.int64(6), np.int32(4)))
    assert a.found and a.cost == pytest.approx(wf.find_path(MAZE, (0, 0), (6, 4)).cost)


def test_record_returns_expansion_order_and_open_list():
    r = wf.find_path(MAZE, (0, 0), (6, 4), record=True)
    assert len(r.expanded_nodes) == r.stats.expanded
    assert r.expanded_nodes[0].tolist() == [0, 0]
    assert r.expanded_nodes[-1].tolist() == [6, 4]
    closed = {tuple(c) for c in r.expanded_nodes.tolist()}
    assert not closed & {tuple(c) for c in r.open_nodes.tolist()}
    plain = wf.find_path(MAZE, (0, 0), (6, 4))
    assert plain.expanded_nodes is None and plain.cost == r.cost


def test_dijkstra_expands_at_least_as_much_as_astar():
    a = wf.find_path(MAZE, (0, 0), (4, 3))
    d = wf.find_path(MAZE, (0, 0), (4, 3), method="dijkstra")
    assert a.cost == pytest.approx(d.cost)
    assert a.stats.expanded <= d.stats.expanded


def test_results_are_deterministic():
    runs = [wf.find_path(MAZE, (0, 4), (6, 4)).path.tolist() for _ in range(3)]
    other = GridSearch(MAZE).find_path((0, 4), (6, 4)).path.tolist()
    assert runs[0] == runs[1] == runs[2] == other


def test_workspace_is_reused_without_clearing():
    g = wf.Grid(np.ones((64, 64), dtype=bool))
    s = GridSearch(g)
    before = s.nbytes
    costs = [s.find_path((0, 0), (x, 63)).cost for x in range(64)]
    assert costs == pytest.approx([63 + (math.sqrt(2) - 1) * min(x, 63) for x in range(64)])
    assert s.nbytes == before
    assert before <= 16 * 66 * 66 + 16 * 4096  # node arrays + initial open list


def test_agent_size_paths_avoid_narrow_gaps():
    g = wf.Grid.from_ascii("""
    ........
    ...#....
    ...#....
    ........
    ........
    """)
    small = wf.find_path(g, (0, 1), (6, 1))
    big = wf.find_path(g, (0, 1), (6, 1), agent_size=2)
    assert big.found and big.cost > small.cost
    footprint = g.for_agent(2)
    assert all(footprint.is_passable(tuple(c)) for c in big.path)
    with pytest.raises(wf.InvalidQueryError, match="blocked"):
        wf.find_path(g, (2, 1), (6, 1), agent_size=2)


def test_callable_heuristic_runs_the_generic_search():
    calls = []

    def h(node, goal):
        calls.append(node)
        return 0.0

    r = wf.find_path(MAZE, (0, 0), (6, 4), heuristic=h)
    assert calls and r.found
    assert r.cost == pytest.approx(wf.find_path(MAZE, (0, 0), (6, 4)).cost)
    assert r.path.shape[1] == 2


def test_distance_map_sources_and_limit():
    g = wf.Grid(np.ones((5, 9), dtype=bool), diagonal="never")
    d = wf.distance_map(g, [(0, 2), (8, 2)])
    assert d[2, 4] == 4 and d[0, 0] == 2 and d[2, 8] == 0
    near = wf.distance_map(g, (0, 2), limit=3)
    assert near[2, 3] == 3 and math.isinf(near[2, 4])
    with pytest.raises(wf.InvalidQueryError):
        wf.distance_map(g, [])
    with pytest.raises(wf.InvalidQueryError):
        wf.distance_map(g, (0, 2), limit=-1)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_find_paths_on_threads_equals_sequential(threads):
    rng = np.random.default_rng(3)
    free = rng.random((40, 40)) > 0.25
    g = wf.Grid(free)
    cells = [tuple(int(v) for v in c[::-1]) for c in np.argwhere(free)]
    idx = rng.choice(len(cells), size=(30, 2))
    starts = [cells[i] for i in idx[:, 0]]
    goals = [cells[j] for j in idx[:, 1]]
    batch = find_paths(g, starts, goals, threads=threads)
    one = [wf.find_path(g, a, b) for a, b in zip(starts, goals)]
    assert [r.cost for r in batch] == [r.cost for r in one]
    assert all(np.array_equal(a.path, b.path) for a, b in zip(batch, one))


def test_find_paths_rejects_bad_batches():
    with pytest.raises(wf.InvalidQueryError, match="2 starts but 1 goals"):
        find_paths(MAZE, [(0, 0), (0, 0)], [(6, 4)])
    with pytest.raises(wf.InvalidQueryError, match="threads"):
        find_paths(MAZE, [(0, 0)], [(6, 4)], threads=0)


@pytest.mark.parametrize("world", [MAZE.passable, "maze", None])
def test_searches_and_domains_need_a_grid(world):
    with pytest.raises(wf.InvalidQueryError, match="needs a Grid, got"):
        GridSearch(world)
    with pytest.raises(wf.InvalidQueryError, match="GridConstraintDomain needs a Grid, got"):
        GridConstraintDomain(world)


@pytest.mark.parametrize("workspace", ["x", 5, np.zeros(100)])
def test_a_search_refuses_what_is_no_workspace(workspace):
    with pytest.raises(wf.InvalidQueryError, match="workspace must be a Workspace, got"):
        GridSearch(MAZE, workspace=workspace)


def test_result_repr_and_len():
    r = wf.find_path(MAZE, (0, 0), (6, 0))
    assert "cost=6" in repr(r) and len(r) == 7
    assert "not found" in repr(wf.find_path(wf.Grid.from_ascii(".#."), (0, 0), (2, 0)))


@pytest.mark.parametrize("diagonal", ["never", "no_corner_cutting", "always"])
@pytest.mark.parametrize("method", ["astar", "weighted_astar", "greedy", "dijkstra"])
def test_a_plain_query_in_one_call_is_the_sliced_search(method, diagonal):
    """``find_path`` with no options runs in one compiled call; ``start`` runs the same
    search in slices: the same path, cost and counters, on uniform and weighted grids."""
    rng = np.random.default_rng(len(method) + 7 * len(diagonal))
    for weighted in (False, True):
        costs = rng.uniform(1, 4, (24, 31)) if weighted else np.ones((24, 31))
        costs[rng.random(costs.shape) < 0.25] = np.inf
        grid = wf.Grid(costs, diagonal=diagonal)
        search = GridSearch(grid)
        free = np.argwhere(grid.passable)
        for _ in range(40):
            (sy, sx), (gy, gx) = free[rng.choice(len(free), 2)]
            a, b = (int(sx), int(sy)), (int(gx), int(gy))
            once = search.find_path(a, b, method=method)
            sliced = search.start(a, b, method=method)
            while sliced.step(max_expansions=7) == "running":
                pass
            slow = sliced.result()
            assert (once.found, once.cost, once.status) == (slow.found, slow.cost, slow.status)
            assert once.path.tolist() == slow.path.tolist() and once.algorithm == method
            for name in ("expanded", "generated", "updated", "max_open"):
                assert getattr(once.stats, name) == getattr(slow.stats, name), name
            # Points given other ways (numpy ints, lists) take the checked road: same answer.
            other = search.find_path(np.array(a), list(b), method=method)
            assert other.cost == once.cost and other.path.tolist() == once.path.tolist()


def test_a_plain_query_refuses_coordinates_beyond_any_c_integer():
    with pytest.raises(wf.InvalidQueryError, match="outside"):
        GridSearch(MAZE).find_path((2**70, 0), (0, 0))
    with pytest.raises(wf.InvalidQueryError, match="blocked"):
        GridSearch(MAZE).find_path((0, 0), (1, 1), method="dijkstra")
