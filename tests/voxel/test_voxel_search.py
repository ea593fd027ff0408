"""Exact voxel searches against a plain Dijkstra over ``VoxelGrid.neighbours`` on random small
worlds of every connectivity, distance maps, and bad input."""

from __future__ import annotations

import heapq
import math
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError, WayfindingError
from wayfinding.results import Status
from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.methods import ANY_ANGLE_METHODS, EXACT_METHODS, METHODS
from wayfinding.voxel.search import (
    VoxelSearch,
    find_voxel_path,
    find_voxel_paths,
    voxel_distance_map,
)

Cell = tuple[int, int, int]


def plain_dijkstra(grid: VoxelGrid, source: Cell) -> dict[Cell, float]:
    """Every reachable voxel's distance from ``source``, by the grid's own neighbours."""
    dist = {source: 0.0}
    heap = [(0.0, source)]
    while heap:
        d, c = heapq.heappop(heap)
        if d > dist[c]:
            continue
        for n, w in grid.neighbours(c):
            if d + w < dist.get(n, math.inf):
                dist[n] = d + w
                heapq.heappush(heap, (d + w, n))
    return dist


@st.composite
def worlds(draw: st.DrawFn) -> tuple[VoxelGrid, Cell, Cell]:
    """A random world of up to 7 x 7 x 7 voxels, a connectivity and two free voxels."""
    shape = tuple(draw(st.integers(1, 7)) for _ in range(3))
    density = draw(st.sampled_from([0.0, 0.15, 0.3, 0.45]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    blocked = rng.random(shape) < density
    blocked.flat[draw(st.integers(0, blocked.size - 1))] = False
    grid = VoxelGrid(blocked, connectivity=draw(st.sampled_from([6, 18, 26])))
    free = np.argwhere(~blocked)[:, ::-1]
    a = free[draw(st.integers(0, len(free) - 1))]
    b = free[draw(st.integers(0, len(free) - 1))]
    return grid, (int(a[0]), int(a[1]), int(a[2])), (int(b[0]), int(b[1]), int(b[2]))


def check_path(grid: VoxelGrid, path: np.ndarray, start: Cell, goal: Cell, cost: float) -> None:
    assert path.dtype == np.int64 and path.ndim == 2 and path.shape[1] == 3
    assert tuple(path[0]) == start and tuple(path[-1]) == goal
    total = 0.0
    for a, b in zip(path[:-1], path[1:], strict=True):
        step = b - a
        assert grid.can_move(tuple(a), tuple(step)), (a, b)
        total += math.sqrt(float(np.abs(step).sum()))
    assert total == pytest.approx(cost, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(worlds())
def test_exact_methods_match_a_plain_dijkstra(world: tuple[VoxelGrid, Cell, Cell]) -> None:
    grid, start, goal = world
    expected = plain_dijkstra(grid, start).get(goal, math.inf)
    search = VoxelSearch(grid)
    for method in EXACT_METHODS:
        r = search.find_path(start, goal, method=method)
        assert r.algorithm == method
        if math.isinf(expected):
            assert not r.found and r.status is Status.FAILED
            assert r.cost == math.inf and r.path.shape == (0, 3)
        else:
            assert r.found and r.status is Status.FOUND
            assert r.cost == pytest.approx(expected, abs=1e-9)
            check_path(grid, r.path, start, goal, r.cost)
            assert r.stats.expanded >= 1 or start == goal


@settings(max_examples=100, deadline=None)
@given(worlds(), st.sampled_from([math.inf, 0.0, 1.0, 2.5]))
def test_distance_map_matches_a_plain_dijkstra(world: tuple[VoxelGrid, Cell, Cell],
                                               max_cost: float) -> None:
    grid, start, _ = world
    expected = np.full(grid.shape, math.inf)
    for (x, y, z), d in plain_dijkstra(grid, start).items():
        if d <= max_cost:
            expected[z, y, x] = d
    got = voxel_distance_map(grid, start, limit=max_cost)
    assert got.shape == grid.shape and got.dtype == np.float64
    np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))
    np.testing.assert_allclose(got[np.isfinite(got)], expected[np.isfinite(expected)],
                               atol=1e-9)


def test_a_wall_with_one_hole_is_crossed_through_it() -> None:
    blocked = np.zeros((5, 5, 5), bool)
    blocked[:, :, 2] = True
    blocked[2, 2, 2] = False                     # the hole at (2, 2, 2)
    grid = VoxelGrid(blocked)
    r = find_voxel_path(grid, (0, 0, 0), (4, 4, 4))
    # Through the cube rule the hole is entered and left only straight along x.
    assert [2, 2, 2] in r.path.tolist()
    i = r.path.tolist().index([2, 2, 2])
    assert r.path[i - 1].tolist() == [1, 2, 2] and r.path[i + 1].tolist() == [3, 2, 2]
    assert r.cost == pytest.approx(2 + 2 * (math.sqrt(3) + math.sqrt(2)))


def test_start_equals_goal_and_unreachable() -> None:
    blocked = np.zeros((1, 3, 3), bool)
    blocked[0, :, 1] = True
    grid = VoxelGrid(blocked)
    for method in EXACT_METHODS:
        same = find_voxel_path(grid, (0, 1, 0), (0, 1, 0), method=method)
        assert same.found and same.cost == 0.0 and same.path.tolist() == [[0, 1, 0]]
        cut = find_voxel_path(grid, (0, 1, 0), (2, 1, 0), method=method)
        assert not cut.found and cut.status is Status.FAILED and cut.path.shape == (0, 3)


def test_find_paths_in_order_and_any_angle_dispatch() -> None:
    grid = VoxelGrid(np.zeros((4, 4, 4), bool))
    starts = np.array([[0, 0, 0], [3, 3, 3]])
    goals = np.array([[3, 0, 0], [0, 0, 3]])
    out = find_voxel_paths(grid, starts, goals, method="bidirectional")
    assert [r.cost for r in out] == pytest.approx([3.0, 3 * math.sqrt(2)])
    for method in ANY_ANGLE_METHODS:
        r = find_voxel_path(grid, (0, 0, 0), (3, 1, 0), method=method)
        assert r.algorithm == method and r.cost == pytest.approx(math.sqrt(10))
    assert set(METHODS) == set(EXACT_METHODS) | set(ANY_ANGLE_METHODS)


def test_module_functions_serve_threads_at_once() -> None:
    rng = np.random.default_rng(3)
    grid = VoxelGrid(rng.random((6, 6, 6)) < 0.2)
    free = [tuple(int(v) for v in c) for c in np.argwhere(~grid.blocked)[:, ::-1]]
    expected = plain_dijkstra(grid, free[0])
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for c in free[::3]:
                r = find_voxel_path(grid, free[0], c)
                assert r.cost == pytest.approx(expected.get(c, math.inf), abs=1e-9)
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.parametrize(("call", "words"), [
    (lambda g: find_voxel_path(g, (0, 0, 0), (9, 0, 0)), "outside"),
    (lambda g: find_voxel_path(g, (-1, 0, 0), (1, 0, 0)), "outside"),
    (lambda g: find_voxel_path(g, (1, 1, 1), (0, 0, 0)), "blocked"),
    (lambda g: find_voxel_path(g, (0, 0), (1, 0, 0)), "start"),
    (lambda g: find_voxel_path(g, (0, 0, 0), (1, 0, 0), method="jps"), "unknown"),
    (lambda g: find_voxel_path(g, (0, 0, 0), (1, 0, 0), method=None), "unknown"),
    (lambda g: find_voxel_paths(g, [[0, 0, 0]], [[1, 0, 0], [2, 0, 0]]), "goals"),
    (lambda g: find_voxel_paths(g, [[0, 0]], [[1, 0, 0]]), "shape"),
    (lambda g: voxel_distance_map(g, (0, 0, 0), limit=-1.0), "limit"),
    (lambda g: voxel_distance_map(g, (0, 0, 0), limit=math.nan), "limit"),
    (lambda g: voxel_distance_map(g, (1, 1, 1)), "blocked"),
    (lambda g: VoxelSearch(np.zeros((2, 2, 2), bool)), "VoxelGrid"),
])
def test_bad_input_is_refused_clearly(call, words: str) -> None:
    blocked = np.zeros((3, 3, 3), bool)
    blocked[1, 1, 1] = True
    with pytest.raises(InvalidQueryError, match=words) as info:
        call(VoxelGrid(blocked))
    assert isinstance(info.value, WayfindingError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("call", [
    lambda g: voxel_distance_map(g, (0, 0, 0), limit=True),
    lambda g: voxel_distance_map(g, (0, 0, 0), limit="3"),
    lambda g: voxel_distance_map(g, (0, 0, 0), limit=None),
])
def test_a_limit_that_is_not_a_number_is_refused(call) -> None:
    with pytest.raises(InvalidQueryError, match="limit"):
        call(VoxelGrid(np.zeros((2, 2, 2), bool)))


@pytest.mark.parametrize("call", [
    lambda g: find_voxel_path(g, (True, 0, 0), (1, 1, 1)),
    lambda g: find_voxel_path(g, (0, 0, 0), [1, np.True_, 1], method="bidirectional"),
    lambda g: find_voxel_paths(g, [(True, 0, 0)], [(1, 1, 1)]),
    lambda g: voxel_distance_map(g, (0, False, 0)),
])
def test_bools_are_no_voxels(call) -> None:
    with pytest.raises(InvalidQueryError, match="bools"):
        call(VoxelGrid(np.zeros((2, 2, 2), bool)))
