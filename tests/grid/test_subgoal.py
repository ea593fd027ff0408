"""Subgoal graphs (SSG, TSG, N-level) against plain reference definitions and grid A*."""

import math
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import generated_grid, generated_scen, load, movingai_names
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from strategies import seeded_grids_and_rngs

from wayfinding.errors import (
    IndexFormatError,
    IndexMismatchError,
    InvalidGridError,
    InvalidQueryError,
)
from wayfinding.grid import Grid, GridSearch
from wayfinding.grid.index import load_index
from wayfinding.grid.subgoal import SubgoalGraph

SQRT2 = math.sqrt(2.0)
CARDINALS = [(0, -1), (1, 0), (0, 1), (-1, 0)]  # N, E, S, W: the clearance columns


# --------------------------------------------------------------------------- reference code
def reference_subgoals(passable: np.ndarray) -> list[tuple[int, int]]:
    """Free cells with a blocked diagonal neighbour whose two shared cardinal neighbours are
    free (outside the grid counts as blocked), row by row."""
    h, w = passable.shape

    def free(x, y):
        return 0 <= x < w and 0 <= y < h and bool(passable[y, x])

    return [(x, y) for y in range(h) for x in range(w) if free(x, y) and any(
        not free(x + dx, y + dy) and free(x + dx, y) and free(x, y + dy)
        for dx in (-1, 1) for dy in (-1, 1))]


def legal(grid: Grid, a, b) -> bool:
    return math.isfinite(grid.step_cost(a, b))


def reference_clearance(grid: Grid, subgoals: set, cell, step) -> int:
    """Steps from cell along step before an illegal step or a subgoal."""
    n = 0
    x, y = cell
    while True:
        nxt = (x + step[0], y + step[1])
        if not grid.in_bounds(nxt) or not legal(grid, (x, y), nxt) or nxt in subgoals:
            return n
        x, y = nxt
        n += 1


def octile(a, b) -> float:
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return max(dx, dy) - min(dx, dy) + min(dx, dy) * SQRT2


def reference_direct_h_reachable(grid: Grid, subgoals: set, s) -> set:
    """Subgoals t whose octile parallelogram with s holds only free non-subgoal cells besides
    s and t, and along which the diagonal-first octile path is legal."""
    out = set()
    for t in subgoals:
        if t == s:
            continue
        dx, dy = t[0] - s[0], t[1] - s[1]
        sx, sy = int(np.sign(dx)), int(np.sign(dy))
        nd = min(abs(dx), abs(dy))
        nc = max(abs(dx), abs(dy)) - nd
        c = (sx, 0) if abs(dx) >= abs(dy) else (0, sy)
        cells = {(s[0] + i * sx + j * c[0], s[1] + i * sy + j * c[1])
                 for i in range(nd + 1) for j in range(nc + 1)} - {s, t}
        if any(not grid.is_passable(p) or p in subgoals for p in cells):
            continue
        path = [s]
        for step in [(sx, sy)] * nd + [c] * nc:
            path.append((path[-1][0] + step[0], path[-1][1] + step[1]))
        if math.isfinite(grid.path_cost(path)):
            out.add(t)
    return out


def as_set(cells) -> set:
    return {(int(x), int(y)) for x, y in cells}


def assert_path(grid: Grid, result, start, goal, want: float):
    assert result.found
    assert tuple(result.path[0]) == tuple(start) and tuple(result.path[-1]) == tuple(goal)
    assert math.isclose(grid.path_cost(result.path), result.cost, rel_tol=1e-12, abs_tol=1e-9)
    assert math.isclose(result.cost, want, rel_tol=1e-9, abs_tol=1e-9)


# --------------------------------------------------------------------------- hand-made maps
def test_convex_corners_are_subgoals_concave_ones_are_not():
    g = Grid.from_ascii("""
        ......
        .###..
        .#....
        .#....
        ......
    """)
    sg = SubgoalGraph.build(g)
    found = as_set(sg.subgoals)
    # Outer (convex) corners of the L-shaped wall.
    assert {(0, 0), (4, 0), (4, 2), (0, 4), (2, 4)} <= found
    # Inside the concave corner: blocked diagonal but a blocked shared cardinal too.
    assert (2, 2) not in found
    # Cells along a straight wall are not corners.
    assert (2, 0) not in found and (0, 2) not in found
    assert sorted(found) == sorted(reference_subgoals(g.passable))


def test_book_example_b1_is_a_subgoal():
    # Columns A.., rows 1..: A2 blocked, A1 and B2 free -> B1 is a subgoal.
    g = Grid.from_ascii("""
        ....
        #...
        ....
    """)
    assert (1, 0) in as_set(SubgoalGraph.build(g).subgoals)


def test_no_subgoals_on_open_or_fully_blocked_maps():
    g = Grid(np.ones((6, 7), dtype=bool))
    sg = SubgoalGraph.build(g, levels=2)
    assert sg.num_subgoals == 0 and sg.top_level == 1
    assert_path(g, sg.find_path((6, 0), (0, 5)), (6, 0), (0, 5), 1 + 5 * SQRT2)
    sg = SubgoalGraph.build(Grid(np.zeros((3, 3), dtype=bool)))
    assert sg.num_subgoals == 0 and sg.num_edges == 0


#: A reconstruction of Fig. 11.6 (columns A..P = x 0..15, rows 1..9 = y 0..8): blocked B2,
#: E2, N5 and M6 make C3, F3, L5 and M4 subgoals; s = F6.
FIG_11_6 = """
    ................
    .#..#...........
    ................
    ................
    .............#..
    ............#...
    ................
    ................
    ................
"""


def cell_name(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("A"), int(name[1:]) - 1


def test_fig_11_6_direct_h_reachable_sector():
    g = Grid.from_ascii(FIG_11_6)
    sg = SubgoalGraph.build(g)
    subgoals = as_set(sg.subgoals)
    assert {cell_name(n) for n in ("C3", "F3", "L5", "M4")} <= subgoals
    wp = g.width + 2
    clear = sg.arrays["clearance"]

    def clearance(name, direction):
        x, y = cell_name(name)
        return int(clear[(y + 1) * wp + x + 1, "NESW".index(direction)])

    assert clearance("F6", "E") == 6          # M6 is blocked
    assert clearance("F6", "N") == 2          # F3 is a subgoal
    assert clearance("G5", "E") == 4          # the first line of the E-NE sector ends at L5
    assert clearance("H4", "E") == 4          # not shorter than 4: M4 is not reachable
    reach = as_set(sg.direct_h_reachable(cell_name("F6")))
    assert cell_name("F3") in reach and cell_name("C3") in reach      # phase 1
    assert cell_name("L5") in reach                                    # phase 2
    assert cell_name("M4") not in reach
    assert reach == reference_direct_h_reachable(g, subgoals, cell_name("F6"))


def test_octile_distances_of_the_book():
    # s -> r with dx = 5, dy = 2: octile 3 + 2 sqrt 2 ~ 5.83 (Euclidean would be 5.39).
    g = Grid(np.ones((4, 7), dtype=bool))
    r = SubgoalGraph.build(g).find_path((0, 0), (5, 2))
    assert round(r.cost, 2) == 5.83 and r.stats.expanded == 0


def test_quick_check_joins_direct_h_reachable_non_subgoals():
    g = Grid.from_ascii("""
        ..........
        ..........
        ..........
        ..........
        ........#.
        ..........
    """)
    sg = SubgoalGraph.build(g)
    start, goal = (0, 0), (5, 3)
    assert start not in as_set(sg.subgoals) and goal not in as_set(sg.subgoals)
    r = sg.find_path(start, goal)
    assert_path(g, r, start, goal, 3 * SQRT2 + 2)
    assert r.stats.expanded == 0 and r.stats.generated == 0
    assert sg.find_waypoints(start, goal).tolist() == [list(start), list(goal)]


def test_search_around_an_obstacle_and_waypoints():
    g = Grid.from_ascii("""
        ......
        ..##..
        ..##..
        ......
    """)
    sg = SubgoalGraph.build(g)
    r = sg.find_path((0, 1), (5, 2), record=True)
    assert_path(g, r, (0, 1), (5, 2), 4 + 2 * SQRT2)
    assert r.stats.expanded >= 2 and len(r.expanded_nodes) == r.stats.expanded
    w = sg.find_waypoints((0, 1), (5, 2))
    assert tuple(w[0]) == (0, 1) and tuple(w[-1]) == (5, 2)
    assert as_set(w[1:-1]) <= as_set(sg.subgoals) and len(w) >= 3
    # Waypoints are h-reachable in turn: their octile lengths add up to the cost.
    assert math.isclose(sum(octile(a, b) for a, b in zip(w[:-1], w[1:])), r.cost)


def test_every_subgoal_local_leaves_an_empty_core():
    g = Grid.from_ascii("""
        .#....
        ......
    """)
    sg = SubgoalGraph.build(g, levels=2)
    assert as_set(sg.subgoals) == {(0, 1), (2, 1)}
    assert sg.top_level == 2 and sg.subgoal_levels.tolist() == [1, 1]
    r = sg.find_path((0, 0), (5, 0))
    assert_path(g, r, (0, 0), (5, 0), GridSearch(g).find_path((0, 0), (5, 0)).cost)
    assert as_set(sg.find_waypoints((0, 0), (5, 0))[1:-1]) == {(0, 1), (2, 1)}


def test_start_equals_goal_islands_and_bad_endpoints():
    g = Grid.from_ascii("""
        ..#..
        ..#..
        ..#..
    """)
    for levels in (1, 2):
        sg = SubgoalGraph.build(g, levels=levels)
        r = sg.find_path((1, 1), (1, 1))
        assert r.found and r.cost == 0.0 and r.path.tolist() == [[1, 1]]
        r = sg.find_path((0, 0), (4, 2))
        assert not r.found and math.isinf(r.cost) and r.path.shape == (0, 2)
        assert r.stats.expanded == 0
        assert sg.find_waypoints((0, 0), (4, 2)).shape == (0, 2)
        with pytest.raises(InvalidQueryError, match="blocked"):
            sg.find_path((2, 0), (0, 0))
        with pytest.raises(InvalidQueryError, match="outside"):
            sg.find_path((0, 0), (5, 0))
        with pytest.raises(InvalidQueryError, match="outside"):
            sg.find_path((-1, 0), (0, 0))
        with pytest.raises(InvalidQueryError):
            sg.find_path((0.5, 0), (0, 0))
        with pytest.raises(InvalidQueryError):
            sg.find_path("ab", (0, 0))
        r = sg.find_path(np.array([0, 0]), (np.int64(1), np.int64(2)))
        assert r.found and math.isclose(r.cost, 1 + SQRT2)
    assert SubgoalGraph.build(g).find_path((0, 0), (1, 1)).algorithm == "subgoal"
    assert SubgoalGraph.build(g, levels=2).find_path((0, 0), (1, 1)).algorithm == "subgoal2"


def test_unsupported_grids_and_options_raise():
    costs = np.ones((4, 4))
    costs[1, 1] = 3.0
    with pytest.raises(InvalidGridError, match="uniform"):
        SubgoalGraph.build(Grid(costs))
    for rule in ("never", "allow_one_blocked", "always"):
        with pytest.raises(InvalidGridError, match="diagonal"):
            SubgoalGraph.build(Grid(np.ones((4, 4), dtype=bool), diagonal=rule))
    with pytest.raises(InvalidGridError):
        SubgoalGraph.build(np.ones((4, 4), dtype=bool))
    g = Grid(np.ones((4, 4), dtype=bool))
    for bad in (0, -1, 1.5, True, "2", 101):
        with pytest.raises(InvalidQueryError, match="levels"):
            SubgoalGraph.build(g, levels=bad)


def test_long_corridor_beyond_the_saturated_clearance():
    # Clearances are stored in 16 bits; longer runs are completed by walking.
    w = 70_000
    free = np.ones((3, w), dtype=bool)
    free[1, w - 10] = False
    g = Grid(free)
    sg = SubgoalGraph.build(g, levels=2)
    wp = w + 2
    assert sg.arrays["clearance"][2 * wp + 1, 1] == 65535   # (0, 1) facing east
    start, goal = (0, 1), (w - 5, 1)
    assert (w - 11, 0) in as_set(sg.direct_h_reachable(start))
    r = sg.find_path(start, goal)
    assert_path(g, r, start, goal, w - 7 + 2 * SQRT2)


# --------------------------------------------------------------------------- random grids
def grids(max_side=40):
    """Uniform grids of 1 to ``max_side`` cells a side, (0, 0) free, and the generator that
    made them."""
    return seeded_grids_and_rngs(max_side=max_side, open_corner="always")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids(max_side=14))
def test_subgoals_clearances_and_reachability_match_the_definitions(case):
    grid, rng = case
    sg = SubgoalGraph.build(grid)
    subgoals = reference_subgoals(grid.passable)
    assert [tuple(c) for c in sg.subgoals.tolist()] == subgoals
    sset = set(subgoals)
    wp = grid.width + 2
    clear = sg.arrays["clearance"]
    for cell in grid.iter_cells():
        for k, step in enumerate(CARDINALS):
            assert clear[(cell[1] + 1) * wp + cell[0] + 1, k] == \
                reference_clearance(grid, sset, cell, step), (cell, step)
        assert as_set(sg.direct_h_reachable(cell)) == \
            reference_direct_h_reachable(grid, sset, cell), cell
    # Every SSG edge joins direct-h-reachable subgoals at their octile distance, both ways.
    pairs, costs = sg.edges()
    cells = [tuple(c) for c in sg.subgoals.tolist()]
    for (u, v), c in zip(pairs.tolist(), costs):
        assert cells[v] in reference_direct_h_reachable(grid, sset, cells[u])
        assert c == pytest.approx(octile(cells[u], cells[v]))
    assert sg.num_edges == len(pairs)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids(), data=st.data())
def test_paths_are_legal_and_optimal_on_random_grids(case, data):
    grid, rng = case
    free = np.argwhere(grid.passable)
    graphs = [SubgoalGraph.build(grid, levels=lv) for lv in (1, 2, 3)]
    search = GridSearch(grid)
    for _ in range(6):
        sy, sx = free[data.draw(st.integers(0, len(free) - 1))]
        gy, gx = free[data.draw(st.integers(0, len(free) - 1))]
        start, goal = (int(sx), int(sy)), (int(gx), int(gy))
        want = search.find_path(start, goal)
        for sg in graphs:
            r = sg.find_path(start, goal)
            if not want.found:
                assert not r.found and math.isinf(r.cost) and len(r.path) == 0
                continue
            assert_path(grid, r, start, goal, want.cost)
            back = sg.find_path(goal, start)
            assert math.isclose(back.cost, r.cost, rel_tol=1e-12)


@pytest.mark.parametrize("levels", [1, 2, 3])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_graph_layout(levels, case):
    """Edges are stored both ways with equal octile costs, each row lists its top-level
    targets first (up to ``core_end``), and levels run from 1 to the top level."""
    grid, _ = case
    sg = SubgoalGraph.build(grid, levels=levels)
    a = sg.arrays
    n = sg.num_subgoals
    level = a["level"]
    top = sg.top_level
    assert 1 <= top <= levels
    assert n == 0 or (level.min() >= 1 and level.max() <= top)
    cells = [tuple(c) for c in sg.subgoals.tolist()]
    seen = {}
    for u in range(n):
        lo, mid, hi = a["indptr"][u], a["core_end"][u], a["indptr"][u + 1]
        assert lo <= mid <= hi
        assert np.all(level[a["targets"][lo:mid]] == top)
        assert np.all(level[a["targets"][mid:hi]] < top)
        for v, c in zip(a["targets"][lo:hi].tolist(), a["costs"][lo:hi]):
            assert v != u
            assert c == octile(cells[u], cells[v])
            seen[(u, v)] = c
    assert all(seen[(v, u)] == c for (u, v), c in seen.items())
    assert len(seen) == 2 * sg.num_edges


def graph_matrix(sg: SubgoalGraph, keep: np.ndarray | None = None) -> csr_array:
    """The subgoal graph as a sparse matrix, restricted to the nodes in ``keep``."""
    a = sg.arrays
    n = sg.num_subgoals
    src = np.repeat(np.arange(n), np.diff(a["indptr"]))
    dst = a["targets"].astype(np.int64)
    w = a["costs"]
    if keep is not None:
        ok = keep[src] & keep[dst]
        src, dst, w = src[ok], dst[ok], w[ok]
    return csr_array((w, (src, dst)), shape=(n, n))


def upward(sg: SubgoalGraph, node: int) -> set:
    """The node and every node reachable from it by edges to ever higher levels."""
    a = sg.arrays
    level = a["level"]
    seen, todo = set(), [node]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for v in a["targets"][a["indptr"][p]:a["indptr"][p + 1]]:
            if level[v] > level[p]:
                todo.append(int(v))
    return seen


@pytest.mark.parametrize("levels", [2, 3])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_two_level_property(levels, case):
    """The core (top level) plus two subgoals and the nodes upward from them (just the two
    for a TSG) keeps their SSG distance, which is their grid distance."""
    grid, rng = case
    ssg = SubgoalGraph.build(grid)
    tsg = SubgoalGraph.build(grid, levels=levels)
    n = ssg.num_subgoals
    if n < 2:
        return
    assert np.array_equal(ssg.subgoals, tsg.subgoals)
    full = dijkstra(graph_matrix(ssg), directed=True)
    top = tsg.subgoal_levels == tsg.top_level
    search = GridSearch(grid)
    for _ in range(40):
        s, t = (int(v) for v in rng.integers(0, n, size=2))
        keep = top.copy()
        extra = upward(tsg, s) | upward(tsg, t)
        if levels == 2:
            assert extra - {s, t} <= set(np.flatnonzero(top).tolist())
        keep[list(extra)] = True
        d = dijkstra(graph_matrix(tsg, keep), directed=True, indices=s)[t]
        assert d == pytest.approx(full[s, t], rel=1e-12)
        want = search.find_path(tuple(tsg.subgoals[s]), tuple(tsg.subgoals[t])).cost
        assert full[s, t] == pytest.approx(want, rel=1e-12)


# --------------------------------------------------------------------------- Moving AI maps
SCENARIOS = ["gen/caves", "gen/maze1", "gen/random25", "gen/rooms",
             *movingai_names("dao/arena2", "mazes/maze512-1-0", "random/random512-25-0",
                             "rooms/8room_000")]


@pytest.fixture(scope="module", params=SCENARIOS)
def scenario(request):
    grid, scen = load(request.param)
    return scen, grid


@pytest.mark.parametrize("levels", [1, 2, 3])
def test_movingai_sample_problems_are_optimal(scenario, levels):
    scen, grid = scenario
    sg = SubgoalGraph.build(grid, levels=levels)
    wrong = []
    for p in scen.problems:
        r = sg.find_path(p.start, p.goal)
        if not (r.found and p.matches(r.cost)
                and math.isclose(grid.path_cost(r.path), r.cost, rel_tol=1e-12)
                and tuple(r.path[0]) == p.start and tuple(r.path[-1]) == p.goal):
            wrong.append((p.line, p.start, p.goal, p.optimal, r.cost))
    assert wrong == []


@pytest.mark.slow
@pytest.mark.parametrize("name", movingai_names())
def test_every_movingai_problem_is_optimal_three_levels(name):
    # Levels 1 and 2 run on every problem in test_methods.py (as "subgoal" and "subgoal2").
    grid, scen = load(name, sample=None)
    sg = SubgoalGraph.build(grid, levels=3)
    wrong = [p.line for p in scen.problems if not p.matches(sg.find_path(p.start, p.goal).cost)]
    assert wrong == []


def test_two_level_graph_of_a_cave_is_smaller():
    grid = generated_grid("caves")
    ssg = SubgoalGraph.build(grid)
    tsg = SubgoalGraph.build(grid, levels=2)
    assert ssg.num_subgoals == tsg.num_subgoals > 0
    core = int((tsg.subgoal_levels == tsg.top_level).sum())
    assert 0 < core < tsg.num_subgoals
    assert tsg.build_info["passes"][0]["local"] == tsg.num_subgoals - core


# --------------------------------------------------------------------------- persistence
def test_save_load_round_trip(tmp_path):
    grid, scen = generated_grid("rooms"), generated_scen("rooms")
    sg = SubgoalGraph.build(grid, levels=2)
    path = tmp_path / "rooms.npz"
    sg.save(path)
    for loaded in (SubgoalGraph.load(path, grid), load_index(path, grid)):
        assert isinstance(loaded, SubgoalGraph) and loaded.levels == 2
        assert loaded.options == {"levels": 2}
        for name, arr in sg.arrays.items():
            assert np.array_equal(loaded.arrays[name], arr) and \
                loaded.arrays[name].dtype == arr.dtype
        for p in scen.problems[::10]:
            a, b = sg.find_path(p.start, p.goal), loaded.find_path(p.start, p.goal)
            assert a.cost == b.cost and np.array_equal(a.path, b.path)


def test_load_refuses_another_map_and_broken_files(tmp_path):
    grid = Grid.from_ascii("""
        .....
        .##..
        .....
    """)
    path = tmp_path / "sg.npz"
    SubgoalGraph.build(grid).save(path)
    other = Grid.from_ascii("""
        .....
        .#...
        .....
    """)
    with pytest.raises(IndexMismatchError):
        SubgoalGraph.load(path, other)
    with np.load(path) as data:
        arrays = dict(data)
    del arrays["indptr"]
    broken = tmp_path / "broken.npz"
    np.savez(broken, **arrays)
    with pytest.raises(IndexFormatError):
        SubgoalGraph.load(broken, grid)
    with np.load(path) as data:
        good = dict(data)
    edits = {
        "'clearance' must be uint16 of shape": lambda a: a.update(
            clearance=a["clearance"][:-1]),
        "'clearance' does not match": lambda a: a["clearance"].__setitem__((9, 1), 7),
        "'targets' holds targets": lambda a: a["targets"].__setitem__(0, 99),
    }
    for message, edit in edits.items():
        arrays = {k: v.copy() for k, v in good.items()}
        edit(arrays)
        np.savez(broken, **arrays)
        with pytest.raises(IndexFormatError, match=message):
            SubgoalGraph.load(broken, grid)


def test_threads_have_their_own_scratch():
    grid, scen = generated_grid("rooms"), generated_scen("rooms")
    sg = SubgoalGraph.build(grid, levels=2)
    want = [sg.find_path(p.start, p.goal).cost for p in scen.problems]
    got = {}

    def run(k):
        got[k] = [sg.find_path(p.start, p.goal).cost for p in scen.problems]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[k] == want for k in range(3))
