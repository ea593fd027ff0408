"""The subgoal table (two-level subgoal graph + distances between its top-level subgoals)
against a plain Dijkstra written here and Moving AI optimal lengths."""

import heapq
import math
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import load, movingai_names

from wayfinding.errors import IndexFormatError, InvalidGridError, InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.grid.generate import random_obstacles
from wayfinding.grid.index import load_index
from wayfinding.grid.methods import make_solver
from wayfinding.grid.subgoal import SubgoalGraph, SubgoalTable
from wayfinding.results import PathResult, SearchStats, Status

SQRT2 = math.sqrt(2.0)


# --------------------------------------------------------------------------- reference code
def reference_distances(passable: np.ndarray, source: tuple[int, int]) -> np.ndarray:
    """Dijkstra on the 8-connected grid, costs 1 and sqrt 2, no corner cutting."""
    h, w = passable.shape
    dist = np.full((h, w), math.inf)
    dist[source[1], source[0]] = 0.0
    heap = [(0.0, source)]
    while heap:
        d, (x, y) = heapq.heappop(heap)
        if d > dist[y, x]:
            continue
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                nx, ny = x + dx, y + dy
                if (dx, dy) == (0, 0) or not (0 <= nx < w and 0 <= ny < h) \
                        or not passable[ny, nx]:
                    continue
                if dx and dy and not (passable[y, nx] and passable[ny, x]):
                    continue
                nd = d + (SQRT2 if dx and dy else 1.0)
                if nd < dist[ny, nx] - 1e-12:
                    dist[ny, nx] = nd
                    heapq.heappush(heap, (nd, (nx, ny)))
    return dist


def check_path(grid: Grid, r: PathResult, start, goal) -> None:
    """The path runs from start to goal over legal steps and costs what it says."""
    p = r.path
    assert p.dtype == np.int64 and p.shape[1] == 2
    assert tuple(p[0]) == tuple(start) and tuple(p[-1]) == tuple(goal)
    assert grid.passable[p[:, 1], p[:, 0]].all()
    cost = sum(grid.step_cost(tuple(a), tuple(b)) for a, b in zip(p[:-1], p[1:], strict=True))
    assert cost == pytest.approx(r.cost, abs=1e-9)


@st.composite
def grids_and_pairs(draw):
    w = draw(st.integers(2, 18))
    h = draw(st.integers(2, 18))
    density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    passable = rng.random((h, w)) >= density
    if not passable.any():
        passable[0, 0] = True
    free = np.argwhere(passable)
    picks = [tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(6)]
    return passable, picks


def grid_of(passable: np.ndarray) -> Grid:
    return Grid.from_ascii("\n".join("".join("." if c else "#" for c in row)
                                     for row in passable))


# --------------------------------------------------------------------------- exactness
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids_and_pairs(), st.sampled_from([50 * 2**20, 0]))
def test_costs_equal_a_plain_dijkstra(case, cap):
    passable, picks = case
    grid = grid_of(passable)
    table = SubgoalTable.build(grid, max_table_bytes=cap)
    for start in picks[:3]:
        dist = reference_distances(passable, start)
        for goal in picks:
            r = table.find_path(start, goal)
            want = dist[goal[1], goal[0]]
            assert r.found == math.isfinite(want)
            assert r.status == (Status.FOUND if r.found else Status.FAILED)
            assert r.algorithm == "subgoal_table"
            if r.found:
                assert r.cost == pytest.approx(want, abs=1e-9)
                check_path(grid, r, start, goal)
            else:
                assert r.cost == math.inf and r.path.shape == (0, 2)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids_and_pairs())
def test_batch_calls_agree_with_single_calls(case):
    passable, picks = case
    grid = grid_of(passable)
    table = SubgoalTable.build(grid)
    starts = np.array(picks, dtype=np.int64)
    goals = starts[::-1].copy()
    batch = table.find_paths(starts, goals)
    costs = table.find_costs(starts, goals)
    listed = table.find_paths([tuple(c) for c in starts], [tuple(c) for c in goals])
    for k, (a, b) in enumerate(zip(picks, picks[::-1], strict=True)):
        one = table.find_path(a, b)
        for r in (batch[k], listed[k]):
            assert r.found == one.found and r.cost == one.cost
            np.testing.assert_array_equal(r.path, one.path)
        assert costs[k] == one.cost


def test_sparse_obstacles_with_many_entries_are_exact():
    """Sparse obstacles: an endpoint sees hundreds of top-level subgoals, so a query ranks
    the start side's rows of the table by a lower bound and skips most of them."""
    grid = random_obstacles(80, 80, density=0.02, seed=1)
    table = SubgoalTable.build(grid)
    ys, xs = np.nonzero(grid.passable)
    rng = np.random.default_rng(4)
    cells = [(int(xs[i]), int(ys[i])) for i in rng.choice(len(xs), 40, replace=False)]
    for start in cells[:4]:
        dist = reference_distances(grid.passable, start)
        for goal in cells[4:]:
            r = table.find_path(start, goal)
            assert r.cost == pytest.approx(dist[goal[1], goal[0]], abs=1e-9), (start, goal)
            check_path(grid, r, start, goal)


def test_table_holds_the_grid_distances_between_top_level_subgoals():
    grid, _ = load("gen/rooms")
    table = SubgoalTable.build(grid)
    assert table.has_table and table.num_top_subgoals > 20
    top = table.top_subgoals
    for k in range(0, len(top), 7):
        dist = reference_distances(grid.passable, tuple(int(v) for v in top[k]))
        want = dist[top[:, 1], top[:, 0]]
        np.testing.assert_allclose(table.table[k], want, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", ["gen/caves", "gen/rooms", "gen/maze4", "gen/city",
                                  *movingai_names("dao/den312d", "dao/arena2",
                                                  "dao/brc202d")])
def test_movingai_sample_problems_are_optimal(name):
    grid, scen = load(name)
    table = SubgoalTable.build(grid)
    for p in scen.problems:
        r = table.find_path(p.start, p.goal)
        assert r.found and p.matches(r.cost), (p, r.cost)
    r = table.find_path(scen.problems[-1].start, scen.problems[-1].goal)
    check_path(grid, r, scen.problems[-1].start, scen.problems[-1].goal)


@pytest.mark.slow
@pytest.mark.parametrize("name", movingai_names())
def test_every_movingai_problem_is_optimal(name):
    grid, scen = load(name, sample=None)
    if not grid.is_uniform:
        pytest.skip(f"{name} has weighted terrain")
    table = SubgoalTable.build(grid)
    starts = np.array([p.start for p in scen.problems], dtype=np.int64)
    goals = np.array([p.goal for p in scen.problems], dtype=np.int64)
    costs = table.find_costs(starts, goals)
    wrong = [(p, c) for p, c in zip(scen.problems, costs, strict=True) if not p.matches(c)]
    assert not wrong, f"{len(wrong)} of {len(costs)} not optimal, first {wrong[0]}"
    for k in range(0, len(starts), max(1, len(starts) // 50)):
        check_path(grid, table.find_path(scen.problems[k].start, scen.problems[k].goal),
                   scen.problems[k].start, scen.problems[k].goal)


# --------------------------------------------------------------------------- behaviour
def test_tables_that_fit_only_as_step_counts_take_four_bytes_a_pair_or_each_pair_once(
        tmp_path):
    grid, scen = load("gen/rooms")
    m = SubgoalTable.build(grid).num_top_subgoals
    pairs = m * (m + 1) // 2
    caps = (8 * m * m, 8 * m * m - 1, 4 * m * m, 4 * m * m - 1, 4 * pairs, 4 * pairs - 1)
    full, square, tight, triangle, tighter, bare = (
        SubgoalTable.build(grid, max_table_bytes=cap) for cap in caps)
    assert full.arrays["table"].dtype == np.float64 and full.arrays["table"].nbytes == 8 * m * m
    for t in (square, tight):
        assert t.arrays["table"].dtype == np.uint32 and t.arrays["table"].shape == (m, m)
        np.testing.assert_array_equal(t.table, full.table)
    rows, cols = np.tril_indices(m)
    for t in (triangle, tighter):
        assert t.arrays["table"].dtype == np.uint32 and t.arrays["table"].shape == (pairs,)
        np.testing.assert_array_equal(t.table, full.table)
        entries = t.arrays["table"]          # the lower triangle row by row, steps packed
        np.testing.assert_array_equal((entries & 0xFFFF) + (entries >> 16) * SQRT2,
                                      full.table[rows, cols])
    np.testing.assert_array_equal(square.arrays["table"][rows, cols], triangle.arrays["table"])
    assert not bare.has_table and bare.table.shape == (0, 0)
    backs = []
    for k, t in enumerate((square, triangle)):
        t.save(tmp_path / f"{k}.npz")
        backs.append(SubgoalTable.load(tmp_path / f"{k}.npz", grid))
        np.testing.assert_array_equal(backs[-1].arrays["table"], t.arrays["table"])
    for p in scen.problems[::3]:
        want = full.find_path(p.start, p.goal)
        for t in (square, triangle, *backs, bare):
            r = t.find_path(p.start, p.goal)
            assert r.cost == pytest.approx(want.cost, abs=1e-9)
            check_path(grid, r, p.start, p.goal)


def test_distances_beyond_the_entries_leave_the_table_unbuilt():
    """An entry holds up to 65,534 steps of each kind: a longer distance (two top-level
    subgoals joined by one edge of 65,535 straight steps) leaves no table."""
    from wayfinding._kernels._subgoal_table import build_table

    def table(dx: int, dy: int):
        diagonal, straight = min(dx, dy), abs(dx - dy)
        return build_table(np.arange(2, dtype=np.int32), np.arange(2, dtype=np.int32),
                           np.array([0, 1, 2]), np.array([1, 2]), np.array([1, 0], np.int32),
                           np.full(2, straight + diagonal * SQRT2),
                           np.array([[0, 0], [dx, dy]], dtype=np.int32))

    fits = table(65_534 + 65_534, 65_534)          # 65,534 steps of each kind
    assert fits.tolist() == [0, 65_534 | 65_534 << 16, 0]      # pairs (0, 0), (1, 0), (1, 1)
    assert table(65_535, 0) is None and table(65_535, 65_535) is None


def test_without_a_table_queries_search_the_graph():
    grid, scen = load("gen/rooms")
    full, bare = SubgoalTable.build(grid), SubgoalTable.build(grid, max_table_bytes=0)
    assert full.has_table and not bare.has_table and bare.table.shape == (0, 0)
    for p in scen.problems[::5]:
        a, b = full.find_path(p.start, p.goal), bare.find_path(p.start, p.goal)
        assert a.cost == pytest.approx(b.cost, abs=1e-9) and b.algorithm == "subgoal_table"


def test_waypoints_are_subgoals_on_the_path():
    grid, scen = load("gen/caves")
    table = SubgoalTable.build(grid)
    cells = {tuple(c) for c in table.graph.subgoals.tolist()}
    for p in scen.problems[::10]:
        way = table.find_waypoints(p.start, p.goal)
        path = {tuple(c) for c in table.find_path(p.start, p.goal).path.tolist()}
        assert tuple(way[0]) == p.start and tuple(way[-1]) == p.goal
        assert all(tuple(c) in cells and tuple(c) in path for c in way[1:-1].tolist())


def test_start_equals_goal_and_islands():
    grid = Grid.from_ascii("""
        ..#..
        ..#..
        ..#..""")
    table = SubgoalTable.build(grid)
    r = table.find_path((1, 1), (1, 1))
    assert r.found and r.cost == 0 and r.path.tolist() == [[1, 1]]
    r = table.find_path((0, 0), (4, 2))
    assert not r.found and r.cost == math.inf and r.status == Status.FAILED
    assert table.find_costs(np.array([[0, 0]]), np.array([[4, 2]]))[0] == math.inf


def test_results_are_ordinary_path_results():
    grid, scen = load("gen/rooms")
    table = SubgoalTable.build(grid)
    p = scen.problems[-1]
    r = table.find_path(p.start, p.goal)
    assert type(r) is PathResult and type(r.stats) is SearchStats
    same = PathResult(r.path, r.cost, r.found, r.stats, r.algorithm)
    assert same == r and same.status is r.status
    assert r.stats.elapsed > 0 and r.expanded_nodes is None and r.open_nodes is None
    assert "subgoal_table" in repr(r)


def test_queries_from_several_threads_agree():
    grid, scen = load("gen/city")
    table = SubgoalTable.build(grid)
    want = [table.find_path(p.start, p.goal).cost for p in scen.problems]
    got: dict[int, list[float]] = {}

    def run(k):
        got[k] = [table.find_path(p.start, p.goal).cost for p in scen.problems]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(v == want for v in got.values())


def test_the_solver_method():
    grid, scen = load("gen/maze4")
    solve = make_solver(grid, "subgoal_table")
    for p in scen.problems[::10]:
        assert p.matches(solve(p.start, p.goal).cost)


# --------------------------------------------------------------------------- bad input
def test_bad_queries_raise():
    grid = Grid.from_ascii("""
        ...
        .#.
        ...""")
    table = SubgoalTable.build(grid)
    for start, goal, word in [((1, 1), (0, 0), "start"), ((0, 0), (1, 1), "goal"),
                              ((3, 0), (0, 0), "start"), ((0, 0), (0, -1), "goal"),
                              ((0, 0), (2**70, 0), "goal"), ("a", (0, 0), "start"),
                              ((0.5, 0), (0, 0), "start"), ((0, 0), None, "goal")]:
        with pytest.raises(InvalidQueryError, match=word):
            table.find_path(start, goal)
    with pytest.raises(InvalidQueryError, match="2 starts but 1 goals"):
        table.find_paths([(0, 0), (2, 2)], [(0, 0)])
    with pytest.raises(InvalidQueryError, match="goals"):
        table.find_costs(np.array([[0, 0]]), np.array([[1, 1]]))
    with pytest.raises(InvalidQueryError, match="starts"):
        table.find_paths(np.array([[5, 0]]), np.array([[1, 0]]))


def test_bad_builds_raise():
    grid = Grid.from_ascii("..\n..")
    for cap in (-1, 1.5, "x"):
        with pytest.raises(InvalidQueryError, match="max_table_bytes"):
            SubgoalTable.build(grid, max_table_bytes=cap)
    with pytest.raises(InvalidGridError):
        SubgoalTable.build(Grid.from_ascii("..\n..", diagonal="always"))


# --------------------------------------------------------------------------- saved index
def test_save_and_load_round_trip(tmp_path):
    grid, scen = load("gen/caves")
    table = SubgoalTable.build(grid)
    path = tmp_path / "caves.subgoal_table.npz"
    table.save(path)
    for back in (SubgoalTable.load(path, grid), load_index(path, grid)):
        assert type(back) is SubgoalTable and back.options == table.options
        np.testing.assert_array_equal(back.table, table.table)
        for p in scen.problems[::7]:
            assert back.find_path(p.start, p.goal).cost == table.find_path(p.start, p.goal).cost
    with pytest.raises(IndexFormatError):
        SubgoalGraph.load(path, grid)


def _resave(index: SubgoalTable, path, **arrays) -> None:
    SubgoalTable(index.grid, {**index.arrays, **arrays}, index.options,
                 index.build_time).save(path)


@pytest.mark.parametrize("change, message", [
    (lambda t: t * 0.5, "octile"),
    (lambda t: np.where(np.eye(len(t), dtype=bool), 1.0, t), "itself"),
    (lambda t: t + np.triu(np.full(t.shape, 1e-3), 1), "symmetric"),
    (lambda t: np.full_like(t, np.nan), "not a distance"),
    (lambda t: t[:-1, :-1].copy(), "shape"),
    (lambda t: t + 100 * (1 - np.eye(len(t))), "triangle"),
    (lambda t: t.astype(np.float32), "float64"),
])
def test_a_corrupt_table_is_rejected(tmp_path, change, message):
    grid, _ = load("gen/rooms")
    table = SubgoalTable.build(grid)
    path = tmp_path / "bad.npz"
    _resave(table, path, table=change(table.table))
    with pytest.raises(IndexFormatError, match=message):
        SubgoalTable.load(path, grid)


def _diagonal(t: np.ndarray) -> np.ndarray:
    """Which entries of a packed table, square or triangle, are pairs (i, i)."""
    if t.ndim == 2:
        return np.eye(len(t), dtype=bool)
    rows, cols = np.tril_indices(int((np.sqrt(8 * len(t) + 1) - 1) / 2))
    return rows == cols


# Packed tables: straight steps in the low 16 bits of each entry, diagonal ones above; as
# a square, or as the lower triangle row by row.
@pytest.mark.parametrize("form", ["square", "triangle"])
@pytest.mark.parametrize("change, message", [
    (lambda t: (t >> 1) & np.uint32(0x7FFF7FFF), "octile"),        # both counts halved
    (lambda t: np.where(_diagonal(t), np.uint32(1), t), "itself"),
    (lambda t: np.full_like(t, 0xFFFF), "not a distance"),         # 65,535 straight steps
    (lambda t: t[:-1, :-1].copy() if t.ndim == 2 else t[:-1].copy(), "shape"),
    (lambda t: t.reshape(-1) if t.ndim == 2 else t[:, None].copy(), "shape"),
    (lambda t: t + np.uint32(100) * ~_diagonal(t), "triangle"),
])
def test_a_corrupt_packed_table_is_rejected(tmp_path, change, message, form):
    grid, _ = load("gen/rooms")
    m = SubgoalTable.build(grid).num_top_subgoals
    table = SubgoalTable.build(grid, max_table_bytes=8 * m * m - 1 if form == "square"
                               else 4 * m * m - 1)
    assert table.arrays["table"].ndim == (2 if form == "square" else 1)
    path = tmp_path / "bad.npz"
    _resave(table, path, table=change(table.arrays["table"]))
    with pytest.raises(IndexFormatError, match=message):
        SubgoalTable.load(path, grid)


def test_an_asymmetric_packed_square_is_rejected(tmp_path):
    grid, _ = load("gen/rooms")
    m = SubgoalTable.build(grid).num_top_subgoals
    table = SubgoalTable.build(grid, max_table_bytes=4 * m * m)
    t = table.arrays["table"]
    _resave(table, tmp_path / "bad.npz", table=t + np.triu(np.ones(t.shape, np.uint32), 1))
    with pytest.raises(IndexFormatError, match="symmetric"):
        SubgoalTable.load(tmp_path / "bad.npz", grid)


def test_a_packed_table_beyond_the_cap_is_rejected(tmp_path):
    grid, _ = load("gen/rooms")
    m = SubgoalTable.build(grid).num_top_subgoals
    table = SubgoalTable.build(grid, max_table_bytes=4 * m * m - 1)
    SubgoalTable(grid, table.arrays, {"max_table_bytes": 2 * m * (m + 1) - 1},
                 table.build_time).save(tmp_path / "over.npz")
    with pytest.raises(IndexFormatError, match="larger than this wayfinding index allows"):
        SubgoalTable.load(tmp_path / "over.npz", grid)
