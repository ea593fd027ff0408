"""Online JPS on bit-packed rows (``method="jps"``): optimal against a plain Dijkstra written
here and against the Moving AI optimal lengths, across the 56-cell steps of its scans; its
reach and diagonal stop bits against a cell-by-cell walk."""

import heapq
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import load, movingai_names

import wayfinding as wf
from wayfinding._kernels import _jps
from wayfinding._kernels._codes import FOUND
from wayfinding._kernels._workspace import Workspace
from wayfinding.errors import InvalidGridError, InvalidQueryError
from wayfinding.grid import GridSearch
from wayfinding.grid.jps import jump_grid

SQRT2 = math.sqrt(2.0)
METHODS = ("jps", "jps2")


def dijkstra(passable, start, goal):
    """Cost of the cheapest 8-connected path (straight 1, diagonal sqrt 2, no corner
    cutting: a diagonal step needs both side cells free); inf when unreachable."""
    h, w = passable.shape
    dist = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d, (x, y) = heapq.heappop(heap)
        if (x, y) == goal:
            return d
        if d > dist[(x, y)]:
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
                if nd < dist.get((nx, ny), math.inf) - 1e-12:
                    dist[(nx, ny)] = nd
                    heapq.heappush(heap, (nd, (nx, ny)))
    return math.inf


def assert_path(grid, result, start, goal):
    """The path runs from start to goal by legal steps and costs what the result says."""
    path = result.path
    assert tuple(path[0]) == start and tuple(path[-1]) == goal
    for p, q in zip(path[:-1], path[1:]):
        assert math.isfinite(grid.step_cost(tuple(map(int, p)), tuple(map(int, q))))
    assert math.isclose(grid.path_cost(path), result.cost, abs_tol=1e-9)


@st.composite
def wide_problems(draw):
    """A grid up to 150 cells wide or tall (scans cross several 56-cell steps) with blocks
    scattered at some density, and two free cells."""
    w = draw(st.integers(2, 150))
    h = draw(st.integers(2, max(2, 3000 // w)))
    if draw(st.booleans()):
        w, h = h, w
    density = draw(st.sampled_from([0.0, 0.02, 0.1, 0.3]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    passable = rng.random((h, w)) >= density
    free = np.argwhere(passable)
    if len(free) < 2:
        passable[0, 0] = passable[h - 1, w - 1] = True
        free = np.argwhere(passable)
    i = draw(st.integers(0, len(free) - 1))
    j = draw(st.integers(0, len(free) - 1))
    return passable, (int(free[i][1]), int(free[i][0])), (int(free[j][1]), int(free[j][0]))


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=wide_problems())
def test_random_grids_match_dijkstra(method, problem):
    passable, start, goal = problem
    grid = wf.Grid(passable)
    r = GridSearch(grid).find_path(start, goal, method=method)
    expected = dijkstra(passable, start, goal)
    if math.isinf(expected):
        assert not r.found and r.cost == math.inf and len(r.path) == 0
    else:
        assert r.found and r.cost == pytest.approx(expected, abs=1e-9)
        assert_path(grid, r, start, goal)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("length", [54, 55, 56, 57, 58, 63, 64, 65, 112, 113, 200])
def test_forced_neighbour_at_every_scan_offset(method, length):
    """A corridor whose side opens ``length`` cells from the start: the jump must stop there
    in both directions along rows and along columns, wherever the opening falls in a step."""
    w = length + 6
    passable = np.zeros((5, w), dtype=bool)
    passable[2, :] = True           # the corridor
    passable[1, length + 1:] = True  # opens north after `length` cells from x = 1
    for grid, start, goal in [
        (wf.Grid(passable), (1, 2), (length + 2, 0 + 1)),
        (wf.Grid(passable[:, ::-1].copy()), (w - 2, 2), (w - 3 - length, 1)),
        (wf.Grid(passable.T.copy()), (2, 1), (1, length + 2)),
        (wf.Grid(passable.T[::-1].copy()), (2, w - 2), (1, w - 3 - length)),
    ]:
        r = GridSearch(grid).find_path(start, goal, method=method)
        assert r.cost == pytest.approx(dijkstra(grid.passable, start, goal), abs=1e-9)
        assert_path(grid, r, start, goal)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("offset", [1, 55, 56, 57, 120])
def test_goal_inside_long_runs(method, offset):
    """The goal on a long open row or column ends the jump wherever it lies."""
    grid = wf.Grid(np.ones((3, 130), dtype=bool))
    r = GridSearch(grid).find_path((0, 1), (offset, 1), method=method)
    assert r.cost == offset and r.stats.expanded == 2
    tall = wf.Grid(np.ones((130, 3), dtype=bool))
    r = GridSearch(tall).find_path((1, 129), (1, 129 - offset), method=method)
    assert r.cost == offset and r.stats.expanded == 2


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", movingai_names("dao/arena2", "dao/den312d", "dao/brc202d",
                                                "mazes/maze512-1-0", "rooms/8room_000",
                                                "random/random512-25-0"))
def test_movingai_sample_is_optimal(method, name):
    grid, scen = load(name)
    search = GridSearch(grid)
    for p in scen.problems:
        r = search.find_path(p.start, p.goal, method=method)
        assert r.found and abs(r.cost - p.optimal) <= max(1e-3, 1e-5 * p.optimal), \
            (p.line, r.cost, p.optimal)


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", movingai_names())
def test_movingai_every_problem_is_optimal(method, name):
    grid, scen = load(name, sample=None)
    search = GridSearch(grid)
    for p in scen.problems:
        r = search.find_path(p.start, p.goal, method=method)
        assert r.found and abs(r.cost - p.optimal) <= max(1e-3, 1e-5 * p.optimal), \
            (p.line, r.cost, p.optimal)


def test_bit_copy_is_made_once_per_grid_and_sized_to_it():
    grid = wf.Grid(np.ones((7, 130), dtype=bool))
    jg = jump_grid(grid)
    assert jump_grid(grid) is jg
    assert (jg.width, jg.height, jg.size) == (132, 9, 132 * 9)
    # Rows of (64 lead bits + 132 cells) / 64 + 2 words, columns of (64 + 9) / 64 + 2; two
    # directions of stop bits of each; a 16-bit word per cell (its move mask and reach
    # bits); and four directions of diagonal stop bits, one row-sized line per diagonal
    # (132 + 9 - 1 of them).
    rw = (64 + 132) // 64 + 2
    assert jg.nbytes == 2 * 8 * (9 * rw + 132 * ((64 + 9) // 64 + 2)) + 2 * 132 * 9 \
        + 4 * 8 * 140 * rw
    assert jump_grid(wf.Grid(np.ones((7, 130), dtype=bool))) is not jg


def test_kernel_refuses_bad_inputs():
    grid = wf.Grid(np.ones((3, 4), dtype=bool))
    with pytest.raises(ValueError, match="not a padded grid"):
        _jps.JumpGrid(grid.moves[:-1], grid.width + 2)
    with pytest.raises(ValueError, match="islands must have shape"):
        _jps.JumpGrid(grid.moves, grid.width + 2, np.zeros((2, 2), dtype=np.int32))
    with pytest.raises(ValueError, match="without island ids"):
        _jps.JumpGrid(grid.moves, grid.width + 2).search(Workspace(30), (0, 0), (1, 1))
    with pytest.raises(ValueError, match="workspace holds 29 nodes"):
        jump_grid(grid).search(Workspace(29), (0, 0), (3, 2))
    with pytest.raises(TypeError):
        jump_grid(grid).search(None, (0, 0), (3, 2))


def test_kernel_answers_none_to_endpoints_that_are_not_two_int_tuples():
    grid = wf.Grid(np.ones((3, 4), dtype=bool))
    jg, ws = jump_grid(grid), Workspace(30)
    found = jg.search(ws, (0, 0), (3, 2))
    assert found[0] == FOUND and found[-1].tolist()[-1] == [3, 2]
    for start, goal in [([0, 0], (3, 2)), ((0, 0), (3, np.int64(2))), ((0, 0, 0), (3, 2)),
                        ((0.0, 0), (3, 2)), ((True, 0), (3, 2)), ((0, 0), None)]:
        assert jg.search(ws, start, goal) is None, (start, goal)
    # Nothing was searched: the workspace still holds the query before.
    assert _jps.jump_path(ws, grid.index((3, 2)), grid.width + 2).tolist() \
        == found[-1].tolist()


@pytest.mark.parametrize("method", METHODS)
def test_bad_queries_give_the_errors_of_jps(method):
    grid = wf.Grid.from_ascii("""
    ....
    .#..
    ....""")
    search = GridSearch(grid)
    for options in ({"weight": 2.0}, {"heuristic": "manhattan"}, {"bounds": object()},
                    {"differential": object()}):
        with pytest.raises(InvalidQueryError, match=f"{method} uses the octile heuristic"):
            search.find_path((0, 0), (3, 2), method=method, **options)
    with pytest.raises(InvalidQueryError, match=r"start \(1, 1\) is a blocked cell"):
        search.find_path((1, 1), (3, 2), method=method)
    with pytest.raises(InvalidQueryError, match=r"goal \(9, 0\) is outside the 4x3 grid"):
        search.find_path((0, 0), (9, 0), method=method)
    with pytest.raises(InvalidQueryError, match=f"{method} does not run in slices"):
        search.start((0, 0), (3, 2), method=method)
    terrain = wf.Grid(np.array([[1.0, 2.0], [1.0, 1.0]]))
    with pytest.raises(InvalidGridError, match="JPS needs a uniform-cost grid"):
        GridSearch(terrain).find_path((0, 0), (1, 1), method=method)
    corners = wf.Grid(np.ones((2, 2), dtype=bool), diagonal="always")
    with pytest.raises(InvalidGridError, match="JPS supports the diagonal rule"):
        GridSearch(corners).find_path((0, 0), (1, 1), method=method)


@pytest.mark.parametrize("method", METHODS)
def test_trivial_queries(method):
    grid = wf.Grid.from_ascii("""
    ..#.
    ..#.""")
    search = GridSearch(grid)
    r = search.find_path((1, 1), (1, 1), method=method, record=True)
    assert r.found and r.cost == 0 and r.path.tolist() == [[1, 1]]
    assert r.stats.expanded == 0 and len(r.expanded_nodes) == 0 and len(r.open_nodes) == 0
    r = search.find_path((0, 0), (3, 1), method=method)
    assert not r.found and r.cost == math.inf and r.stats.expanded == 0
    assert r.algorithm == method


#: (dx, dy) of the steps N, E, S, W, NE, SE, SW, NW (y grows downward).
STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1))


def reference_reach(moves, width, height):
    """``(4, height, width)`` bool over the padded grid, walking cell by cell: the straight
    scan from cell (x, y) in cardinal d ends at a jump point (a free cell with a side cell
    free beside it and blocked one step back) before a blocked cell.  A cell is free when it
    has a legal move; scans run on inner lines only (rows 1 .. H - 2 for E and W, columns
    1 .. W - 2 for N and S)."""

    def free(x, y):
        return 0 <= x < width and 0 <= y < height and moves[y * width + x] != 0

    reach = np.zeros((4, height, width), dtype=bool)
    for d, (dx, dy) in enumerate(STEPS[:4]):
        for y in range(height):
            for x in range(width):
                if (dy == 0 and not 0 < y < height - 1) or (dx == 0 and not 0 < x < width - 1):
                    continue
                cx, cy = x + dx, y + dy
                while free(cx, cy):
                    if any(free(cx + sx, cy + sy) and not free(cx - dx + sx, cy - dy + sy)
                           for sx, sy in ((dy, dx), (-dy, -dx))):
                        reach[d, y, x] = True
                        break
                    cx, cy = cx + dx, cy + dy
    return reach


@st.composite
def bit_grids(draw):
    """A grid up to 130 cells wide (rows cross the 64-bit words) or tall, blocks scattered."""
    w = draw(st.integers(1, 130))
    h = draw(st.integers(1, max(1, 600 // w)))
    if draw(st.booleans()):
        w, h = h, w
    density = draw(st.sampled_from([0.0, 0.05, 0.2, 0.4]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    return rng.random((h, w)) >= density


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(passable=bit_grids())
def test_reach_and_diagonal_stop_bits_match_a_cell_walk(passable):
    grid = wf.Grid(passable)
    jg = jump_grid(grid)
    moves = np.asarray(grid.moves)
    width, height = grid.width + 2, grid.height + 2
    reach = reference_reach(moves, width, height)
    for d in range(4):
        np.testing.assert_array_equal(jg.reach_bits(d), reach[d], err_msg=f"direction {d}")
    # A diagonal walk stops where it has no further step or a component's scan reaches a
    # jump point.
    masks = moves.reshape(height, width)
    for d in range(4, 8):
        dx, dy = STEPS[d]
        expected = (((masks >> d) & 1) == 0) | reach[1 if dx > 0 else 3] \
            | reach[2 if dy > 0 else 0]
        np.testing.assert_array_equal(jg.diagonal_stops(d), expected, err_msg=f"direction {d}")


def test_bit_accessors_refuse_other_directions():
    jg = jump_grid(wf.Grid(np.ones((3, 3), dtype=bool)))
    with pytest.raises(ValueError, match="cardinal direction 0..3, got 4"):
        jg.reach_bits(4)
    with pytest.raises(ValueError, match="diagonal direction 4..7, got 3"):
        jg.diagonal_stops(3)
