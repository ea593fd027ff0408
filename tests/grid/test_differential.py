"""Differential heuristics on grids: admissibility and exactness at the pivots, optimal A*
against the scipy oracle on random grids (every diagonal rule, weighted terrain) and on Moving
AI problems, fewer expansions where octile is poor, pivot selection, save/load, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from grid_oracle import legal_steps, oracle_costs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import GENERATED, generated_grid, load, movingai_names
from strategies import TERRAIN, seeded_cost_problems

from wayfinding.errors import (
    IndexFormatError,
    IndexMismatchError,
    InvalidGridError,
    InvalidQueryError,
)
from wayfinding.grid import Grid, GridSearch, distance_map
from wayfinding.grid.differential import DifferentialHeuristic
from wayfinding.grid.index import load_index

RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]


def spiral(size: int, scale: int = 1) -> Grid:
    """A square spiral corridor (``scale`` cells wide): cells close on the map are far apart
    along it."""
    a = np.full((size, size), "@")
    x0, y0, x1, y1 = 0, 0, size - 1, size - 1
    # carve rings two cells apart, each open to the next one at its top-left corner
    while x0 <= x1 and y0 <= y1:
        for x in range(x0, x1 + 1):
            a[y0, x] = "."
        for y in range(y0, y1 + 1):
            a[y, x1] = "."
        if y1 - 2 < y0 or x1 - 2 < x0:
            break
        for x in range(x1, x0 - 1, -1):
            a[y1, x] = "."
        for y in range(y1, y0 + 1, -1):
            a[y, x0] = "."
        a[y0 + 2, x0] = "."
        x0, y0, x1, y1 = x0 + 2, y0 + 2, x1 - 2, y1 - 2
        a[y0, x0 - 1] = "."
    a = np.kron(a == ".", np.ones((scale, scale), dtype=bool))
    return Grid(np.where(a, 1.0, np.inf))


@pytest.fixture(scope="module")
def cave() -> Grid:
    return generated_grid("caves")


@pytest.fixture(scope="module")
def cave_dh(cave) -> DifferentialHeuristic:
    return DifferentialHeuristic.build(cave, pivots=8)


def free_cells(grid: Grid) -> list[tuple[int, int]]:
    return list(grid.iter_cells())


# ---------------------------------------------------------------------------- the bound

def test_spiral_is_one_corridor():
    g = spiral(21)
    assert g.components.max() == 0
    d = distance_map(g, (0, 0))
    assert np.nanmax(np.where(np.isfinite(d), d, np.nan)) > 100


def test_bound_is_admissible_on_a_cave(cave, cave_dh):
    rng = np.random.default_rng(7)
    cells = free_cells(cave)
    for k in rng.choice(len(cells), 12, replace=False):
        goal = cells[k]
        truth = distance_map(cave, goal)
        h = cave_dh.heuristic_map(goal)
        reach = np.isfinite(truth)
        # octile alone already exceeds Dijkstra's float sums by an ulp here and there
        assert np.all(h[reach] <= truth[reach] * (1 + 1e-12))
        # and sharper than octile somewhere
        ys, xs = np.mgrid[0:cave.height, 0:cave.width]
        dx, dy = np.abs(xs - goal[0]), np.abs(ys - goal[1])
        octile = np.maximum(dx, dy) + (math.sqrt(2) - 1) * np.minimum(dx, dy)
        assert np.any(h[reach] > octile[reach] + 1.0)


def test_bound_is_exact_at_every_pivot(cave, cave_dh):
    for i, (px, py) in enumerate(cave_dh.pivots.tolist()):
        truth = distance_map(cave, (px, py))
        np.testing.assert_array_equal(cave_dh.distances(i), truth)
        h = cave_dh.heuristic_map((px, py))
        reach = np.isfinite(truth)
        np.testing.assert_allclose(h[reach], truth[reach], rtol=1e-11)
        y, x = np.argwhere(reach)[len(np.argwhere(reach)) // 2]
        assert cave_dh.heuristic((int(x), int(y)), (px, py)) == \
            pytest.approx(truth[y, x], rel=1e-11)
        assert cave_dh.heuristic((px, py), (int(x), int(y))) == \
            pytest.approx(truth[y, x], rel=1e-11)


@pytest.mark.parametrize("rule", RULES)
def test_bound_is_consistent_on_weighted_terrain(rule):
    rng = np.random.default_rng(3)
    costs = rng.choice([1.0, 1.5, 2.0, 5.0], size=(18, 22))
    costs[rng.random(costs.shape) < 0.25] = np.inf
    costs[0, 0] = 1.0
    grid = Grid(costs, diagonal=rule)
    dh = DifferentialHeuristic.build(grid, pivots=4)
    steps = list(legal_steps(costs, rule))
    for goal in free_cells(grid)[::37]:
        h = dh.heuristic_map(goal)
        truth = oracle_costs(costs, rule, goal)
        reach = np.isfinite(truth)
        assert np.all(h[reach] <= truth[reach] * (1 + 1e-12))
        for (ax, ay), (bx, by), c in steps:
            if reach[ay, ax]:
                assert h[ay, ax] <= c + h[by, bx] + 1e-9


# ---------------------------------------------------------------------------- optimal A*

@st.composite
def cases(draw):
    costs, start, goal = draw(seeded_cost_problems(max_side=24, terrain=TERRAIN))
    pivots = draw(st.integers(1, 5))
    return costs, start, goal, pivots


def assert_legal(grid, r, start, goal):
    assert tuple(r.path[0]) == start and tuple(r.path[-1]) == goal
    assert grid.path_cost(r.path) == pytest.approx(r.cost, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_astar_dh_matches_oracle(rule, case):
    costs, start, goal, k = case
    grid = Grid(costs, diagonal=rule)
    dh = DifferentialHeuristic.build(grid, pivots=k)
    truth = oracle_costs(costs, rule, start)
    want = truth[goal[1], goal[0]]
    r = dh.find_path(start, goal)
    assert r.algorithm == "astar_dh"
    if math.isinf(want):
        assert not r.found and math.isinf(r.cost) and len(r.path) == 0
        return
    assert r.found
    assert math.isclose(r.cost, want, rel_tol=1e-9, abs_tol=1e-9)
    assert_legal(grid, r, start, goal)
    h = dh.heuristic_map(goal)
    to_goal = oracle_costs(costs, rule, goal)
    reach = np.isfinite(to_goal)
    assert np.all(h[reach] <= to_goal[reach] * (1 + 1e-12))


@pytest.mark.parametrize("rule", RULES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), data=st.data())
def test_user_pivots_and_weighted_astar(rule, case, data):
    costs, start, goal, _ = case
    grid = Grid(costs, diagonal=rule)
    cells = free_cells(grid)
    chosen = data.draw(st.lists(st.sampled_from(cells), min_size=1, max_size=3, unique=True))
    dh = DifferentialHeuristic.build(grid, pivots=chosen)
    assert dh.pivots.tolist() == [list(c) for c in chosen]
    want = oracle_costs(costs, rule, start)[goal[1], goal[0]]
    r = dh.find_path(start, goal)
    assert r.found == math.isfinite(want)
    w = GridSearch(grid).find_path(start, goal, method="weighted_astar", weight=2.0,
                                   differential=dh)
    assert w.algorithm == "weighted_astar_dh"
    assert w.found == math.isfinite(want)
    if r.found:
        assert math.isclose(r.cost, want, rel_tol=1e-9, abs_tol=1e-9)
        assert want * (1 - 1e-9) <= w.cost <= 2.0 * want * (1 + 1e-9) + 1e-9
        assert_legal(grid, w, start, goal)


def test_pivot_goal_expands_only_optimal_cells(cave, cave_dh):
    """With the goal at a pivot h is exact, so A* expands only cells on optimal paths: checks
    that the kernel's bound equals the Python one."""
    goal = tuple(cave_dh.pivots[0].tolist())
    to_goal = distance_map(cave, goal)
    search = GridSearch(cave)
    rng = np.random.default_rng(11)
    cells = free_cells(cave)
    for k in rng.choice(len(cells), 10, replace=False):
        start = cells[k]
        if not math.isfinite(to_goal[start[1], start[0]]):
            continue
        r = search.find_path(start, goal, differential=cave_dh, record=True)
        from_start = distance_map(cave, start)
        ex = r.expanded_nodes
        through = from_start[ex[:, 1], ex[:, 0]] + to_goal[ex[:, 1], ex[:, 0]]
        np.testing.assert_allclose(through, r.cost, rtol=1e-9)
        assert r.stats.expanded == len(ex)


def test_spiral_expansions_fall():
    grid = spiral(15, scale=3)
    dh = DifferentialHeuristic.build(grid, pivots=4)
    search = GridSearch(grid)
    rng = np.random.default_rng(5)
    cells = free_cells(grid)
    plain, with_dh = [], []
    for _ in range(40):
        a, b = (cells[i] for i in rng.choice(len(cells), 2, replace=False))
        r0 = search.find_path(a, b)
        r1 = search.find_path(a, b, differential=dh)
        assert r1.cost == pytest.approx(r0.cost, rel=1e-12)
        plain.append(r0.stats.expanded)
        with_dh.append(r1.stats.expanded)
    assert np.mean(with_dh) < 0.5 * np.mean(plain)


@pytest.mark.parametrize("name", ["gen/maze1", *movingai_names("mazes/maze512-1-0")])
def test_maze_expansions_fall_and_costs_agree(name):
    grid, scen = load(name)
    dh = DifferentialHeuristic.build(grid, pivots=8)
    search = GridSearch(grid)
    plain, with_dh = [], []
    for p in scen.problems[::5]:
        r0 = search.find_path(p.start, p.goal)
        r1 = search.find_path(p.start, p.goal, differential=dh)
        assert r1.cost == pytest.approx(r0.cost, rel=1e-12)
        plain.append(r0.stats.expanded)
        with_dh.append(r1.stats.expanded)
    assert np.mean(with_dh) < 0.5 * np.mean(plain)


MAPS = ["gen/caves", "gen/maze1", "gen/rooms",
        *movingai_names("dao/arena2", "mazes/maze512-1-0", "rooms/8room_000")]


@pytest.mark.parametrize("name", MAPS)
def test_sample_is_optimal(name):
    grid, scen = load(name)
    scen.check_map(grid)
    dh = DifferentialHeuristic.build(grid, pivots=8)
    wrong = []
    for p in scen.problems:
        r = dh.find_path(p.start, p.goal)
        if not (r.found and p.matches(r.cost)):
            wrong.append((p.line, p.start, p.goal, p.optimal, r.cost))
    assert len(scen.problems) > 50
    assert wrong == []


# ---------------------------------------------------------------------------- pivots

def test_first_pivot_is_farthest_from_the_first_cell_of_the_largest_island():
    grid = Grid.from_ascii("""
        ..@.......
        ..@.......
        @@@.......
        ...@@@@...
        ..........""")
    dh = DifferentialHeuristic.build(grid, pivots=1)
    comp = grid.components
    sizes = np.bincount(comp[comp >= 0])
    ys, xs = np.nonzero(comp == np.argmax(sizes))
    first = (int(xs[0]), int(ys[0]))  # row-major first cell
    d = distance_map(grid, first)
    far = np.argwhere(d == d[np.isfinite(d)].max())[0]
    assert dh.pivots.tolist() == [[int(far[1]), int(far[0])]]


def test_next_pivots_maximise_the_distance_to_the_chosen_ones(cave, cave_dh):
    piv = [tuple(p) for p in cave_dh.pivots.tolist()]
    assert len(set(piv)) == 8
    for j in range(1, len(piv)):
        mind = np.min([distance_map(cave, p) for p in piv[:j]], axis=0)
        finite = np.isfinite(mind)
        assert mind[piv[j][1], piv[j][0]] == mind[finite].max()


def test_selection_is_deterministic(cave, cave_dh):
    again = DifferentialHeuristic.build(cave, pivots=8)
    assert again.pivots.tolist() == cave_dh.pivots.tolist()
    np.testing.assert_array_equal(again.table, cave_dh.table)
    longer = DifferentialHeuristic.build(cave, pivots=12)
    assert longer.pivots[:8].tolist() == cave_dh.pivots.tolist()


def test_islands_each_get_pivots_and_specks_do_not():
    grid = Grid.from_ascii("""
        ........@.........
        ........@.........
        ........@.........
        @@@@@@@@@@@@@@@@@@
        .@.@.@............""")
    dh = DifferentialHeuristic.build(grid, pivots=8)
    comp = grid.components
    owners = {int(comp[y, x]) for x, y in dh.pivots.tolist()}
    big = {int(comp[0, 0]), int(comp[0, 9]), int(comp[4, 6])}
    assert big <= owners
    specks = {int(comp[4, 0]), int(comp[4, 2]), int(comp[4, 4])}
    assert not owners & specks
    search = GridSearch(grid)
    assert not dh.find_path((0, 0), (17, 0)).found
    for a, b in [((0, 0), (7, 2)), ((9, 2), (17, 0)), ((6, 4), (17, 4))]:
        assert dh.find_path(a, b).cost == pytest.approx(search.find_path(a, b).cost)


def test_tiny_map_gets_fewer_pivots():
    grid = Grid.from_ascii("...")
    dh = DifferentialHeuristic.build(grid, pivots=8)
    assert 1 <= len(dh.pivots) <= 3
    assert len({tuple(p) for p in dh.pivots.tolist()}) == len(dh.pivots)
    assert dh.find_path((0, 0), (2, 0)).cost == 2.0


def test_blocked_map_has_no_pivots():
    grid = Grid.from_ascii("@@\n@@")
    dh = DifferentialHeuristic.build(grid, pivots=3)
    assert dh.pivots.shape == (0, 2)
    assert dh.table.shape == (0, 16)


def test_layout_and_memory(cave, cave_dh):
    h, w = cave.shape
    assert cave_dh.table.shape == (8, (h + 2) * (w + 2))
    assert cave_dh.table.dtype == np.float64
    assert cave_dh.nbytes >= 8 * 8 * (h + 2) * (w + 2)
    x, y = cave_dh.pivots[0].tolist()
    assert cave_dh.table[0, (y + 1) * (w + 2) + x + 1] == 0.0
    border = cave_dh.table[:, : w + 2]
    assert np.all(np.isinf(border))
    info = cave_dh.info()
    assert info["kind"] == "differential" and info["options"] == {"pivots": 8}


def test_start_equals_goal_and_record(cave, cave_dh):
    cell = tuple(cave_dh.pivots[1].tolist())
    r = cave_dh.find_path(cell, cell)
    assert r.found and r.cost == 0.0 and r.path.tolist() == [list(cell)]
    a, b = free_cells(cave)[0], free_cells(cave)[-1]
    rec = cave_dh.find_path(a, b, record=True)
    assert rec.expanded_nodes.shape == (rec.stats.expanded, 2)
    assert rec.algorithm == "astar_dh"


# ---------------------------------------------------------------------------- save / load

def test_save_load_round_trip(tmp_path, cave, cave_dh):
    path = tmp_path / "cave.dh.npz"
    cave_dh.save(path)
    back = DifferentialHeuristic.load(path, cave)
    assert isinstance(back, DifferentialHeuristic)
    np.testing.assert_array_equal(back.table, cave_dh.table)
    assert back.pivots.tolist() == cave_dh.pivots.tolist()
    assert back.options == cave_dh.options
    assert isinstance(load_index(path, cave), DifferentialHeuristic)
    a, b = free_cells(cave)[0], free_cells(cave)[-1]
    r0, r1 = cave_dh.find_path(a, b), back.find_path(a, b)
    assert r0.cost == r1.cost and r0.stats.expanded == r1.stats.expanded


def test_load_refuses_another_map(tmp_path, cave_dh):
    path = tmp_path / "cave.dh.npz"
    cave_dh.save(path)
    other = generated_grid("city")
    with pytest.raises(IndexMismatchError, match="another map"):
        DifferentialHeuristic.load(path, other)


def test_load_refuses_a_damaged_table(tmp_path, cave):
    dh = DifferentialHeuristic.build(cave, pivots=2)
    dh.arrays = {"pivots": dh.pivots, "distances": dh.table[:, :-1]}
    path = tmp_path / "bad.npz"
    dh.save(path)
    with pytest.raises(IndexFormatError, match="shape"):
        DifferentialHeuristic.load(path, cave)


# ---------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("pivots", [0, -2, 1.5, True, "8", [], [(0, 0), (0, 0)], [(99, 0)],
                                    [(2, 0)], [(0,)], None])
def test_build_rejects_bad_pivots(pivots):
    grid = Grid.from_ascii("..@.\n....")
    with pytest.raises(InvalidQueryError):
        DifferentialHeuristic.build(grid, pivots=pivots)


def test_build_rejects_a_non_grid():
    with pytest.raises(InvalidGridError):
        DifferentialHeuristic.build(np.ones((3, 3)))


@pytest.mark.parametrize("method", ["dijkstra", "greedy", "bfs", "bidirectional"])
def test_other_algorithms_refuse_a_differential(cave, cave_dh, method):
    a, b = free_cells(cave)[:2]
    with pytest.raises(InvalidQueryError, match="differential"):
        GridSearch(cave).find_path(a, b, method=method, differential=cave_dh)


def test_differential_must_be_an_index(cave):
    a, b = free_cells(cave)[:2]
    with pytest.raises(InvalidQueryError, match="DifferentialHeuristic"):
        GridSearch(cave).find_path(a, b, differential=np.zeros((1, 4)))


def test_differential_of_another_grid_is_refused(cave_dh):
    other = generated_grid("city")
    a, b = free_cells(other)[:2]
    with pytest.raises(IndexMismatchError):
        GridSearch(other).find_path(a, b, differential=cave_dh)


def test_differential_of_the_unit_agent_is_refused_for_a_larger_one(cave, cave_dh):
    roomy = np.argwhere(cave.clearance >= 2)
    (ay, ax), (by, bx) = roomy[0], roomy[-1]
    a, b = (int(ax), int(ay)), (int(bx), int(by))
    with pytest.raises(IndexMismatchError):
        GridSearch(cave).find_path(a, b, agent_size=2, differential=cave_dh)


def test_same_map_rebuilt_is_accepted(cave_dh):
    twin = GENERATED["caves"]()
    a, b = free_cells(twin)[0], free_cells(twin)[-1]
    r = GridSearch(twin).find_path(a, b, differential=cave_dh)
    assert r.found and r.algorithm == "astar_dh"


def test_bad_pivot_index(cave_dh):
    with pytest.raises(InvalidQueryError):
        cave_dh.distances(8)
    with pytest.raises(InvalidQueryError):
        cave_dh.distances(-1)


def test_queries_validate_cells(cave_dh):
    with pytest.raises(InvalidQueryError):
        cave_dh.find_path((-1, 0), (10, 10))
    with pytest.raises(InvalidQueryError):
        cave_dh.heuristic_map((10**6, 0))


def test_table_memory_order_does_not_change_results(cave):
    dh = DifferentialHeuristic.build(cave, pivots=4)
    twin = DifferentialHeuristic(cave, {"pivots": dh.pivots,
                                          "distances": np.ascontiguousarray(dh.table)},
                                 dh.options, 0.0)
    assert dh.table.flags.f_contiguous and twin.table.flags.c_contiguous
    cells = free_cells(cave)
    for a, b in zip(cells[::997], cells[::-1][::997]):
        r0, r1 = dh.find_path(a, b), twin.find_path(a, b)
        assert r0.cost == r1.cost and r0.stats.expanded == r1.stats.expanded
