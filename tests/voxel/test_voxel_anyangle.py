"""Theta* and Lazy Theta* on voxel grids: every leg in line of sight, the length never above
the grid's optimum (a plain Dijkstra here) nor below the straight line, and the Moving AI 3D
sample solved within its optimal lengths."""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from movingai_data import require_movingai

from wayfinding.errors import InvalidQueryError
from wayfinding.results import Status
from wayfinding.voxel.anyangle import theta_star
from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.movingai3d import read_3dmap, read_3dscen
from wayfinding.voxel.sight import lines_of_sight


def dijkstra(grid: VoxelGrid, start: tuple[int, ...], goal: tuple[int, ...]) -> float:
    """The optimal cost under the grid's moves and cube rule, from a plain Dijkstra."""
    dist = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if u == goal:
            return d
        if d > dist[u]:
            continue
        x, y, z = u
        for dx, dy, dz in grid.moves:
            v = (x + int(dx), y + int(dy), z + int(dz))
            if not all(0 <= v[i] < grid.size[i] for i in range(3)):
                continue
            cube = grid.blocked[min(z, v[2]):max(z, v[2]) + 1, min(y, v[1]):max(y, v[1]) + 1,
                                min(x, v[0]):max(x, v[0]) + 1]
            if cube.any():
                continue
            nd = d + math.sqrt(abs(dx) + abs(dy) + abs(dz))
            if nd < dist.get(v, math.inf):
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return math.inf


@st.composite
def problems(draw: Any) -> tuple[VoxelGrid, tuple[int, int, int], tuple[int, int, int]]:
    nx, ny, nz = (draw(st.integers(1, 9)) for _ in range(3))
    density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    blocked = rng.random((nz, ny, nx)) < density
    free = np.argwhere(~blocked)
    if len(free) == 0:
        blocked[0, 0, 0] = False
        free = np.argwhere(~blocked)
    a, b = free[rng.integers(len(free), size=2)]
    conn = draw(st.sampled_from([6, 18, 26]))
    start = (int(a[2]), int(a[1]), int(a[0]))
    goal = (int(b[2]), int(b[1]), int(b[0]))
    return VoxelGrid(blocked, connectivity=conn), start, goal


@settings(max_examples=150, deadline=None)
@given(problems(), st.booleans())
def test_paths_are_in_sight_and_no_longer_than_the_optimum(
        problem: tuple[VoxelGrid, tuple[int, int, int], tuple[int, int, int]],
        lazy: bool) -> None:
    grid, start, goal = problem
    r = theta_star(grid, start, goal, lazy=lazy)
    best = dijkstra(grid, start, goal)
    assert r.algorithm == ("lazy_theta" if lazy else "theta")
    if math.isinf(best):
        assert not r.found and r.status == Status.FAILED and r.path.shape == (0, 3)
        assert r.cost == math.inf
        return
    assert r.found and r.status == Status.FOUND
    path = r.path
    assert path.dtype == np.int64 and path.shape[1] == 3
    assert tuple(path[0]) == start and tuple(path[-1]) == goal
    assert lines_of_sight(grid, path[:-1], path[1:]).all()
    legs = np.linalg.norm(np.diff(path, axis=0), axis=1).sum()
    assert r.cost == pytest.approx(legs, abs=1e-9)
    assert r.cost <= best + 1e-9
    assert r.cost >= math.dist(start, goal) - 1e-9
    assert r.stats.expanded >= 1 and r.stats.generated >= r.stats.expanded


@pytest.mark.parametrize("lazy", [False, True])
def test_an_open_grid_gives_the_straight_line(lazy: bool) -> None:
    grid = VoxelGrid(np.zeros((7, 9, 11), bool))
    r = theta_star(grid, (0, 0, 0), (10, 3, 6), lazy=lazy)
    assert r.path.tolist() == [[0, 0, 0], [10, 3, 6]]
    assert r.cost == pytest.approx(math.sqrt(100 + 9 + 36))


@pytest.mark.parametrize("lazy", [False, True])
def test_ends(lazy: bool) -> None:
    blocked = np.zeros((3, 3, 3), bool)
    blocked[:, :, 1] = True
    grid = VoxelGrid(blocked)
    same = theta_star(grid, (0, 1, 1), (0, 1, 1), lazy=lazy)
    assert same.found and same.path.tolist() == [[0, 1, 1]] and same.cost == 0.0
    cut = theta_star(grid, (0, 0, 0), (2, 0, 0), lazy=lazy)
    assert not cut.found and cut.status == Status.FAILED
    with pytest.raises(InvalidQueryError, match=r"goal \(1, 0, 0\) is blocked"):
        theta_star(grid, (0, 0, 0), (1, 0, 0), lazy=lazy)
    with pytest.raises(InvalidQueryError, match=r"start \(3, 0, 0\) is outside"):
        theta_star(grid, (3, 0, 0), (0, 0, 0), lazy=lazy)
    with pytest.raises(InvalidQueryError, match="three integers"):
        theta_star(grid, (0, 0), (0, 0, 0), lazy=lazy)


def test_searches_reuse_their_scratch() -> None:
    # Many queries in a row on two grids of different sizes give the same answers as fresh.
    rng = np.random.default_rng(4)
    grids = [VoxelGrid(rng.random((6, 7, 8)) < 0.2), VoxelGrid(rng.random((3, 4, 5)) < 0.2)]
    for _ in range(30):
        grid = grids[int(rng.integers(2))]
        free = np.argwhere(~grid.blocked)
        a, b = free[rng.integers(len(free), size=2)][:, ::-1]
        first = theta_star(grid, a, b)
        again = theta_star(grid, a, b)
        assert first.cost == again.cost or (math.isinf(first.cost) and math.isinf(again.cost))
        assert first.path.tolist() == again.path.tolist()


@pytest.mark.parametrize("lazy", [False, True])
def test_movingai_simple_within_the_optimum(lazy: bool) -> None:
    root = require_movingai()
    scen = read_3dscen(root / "scenarios" / "warframe" / "Simple.3dmap.3dscen")
    grid = read_3dmap(scen.find_map())
    for p in scen.problems[::400]:
        r = theta_star(grid, p.start, p.goal, lazy=lazy)
        assert r.found
        assert r.cost <= p.optimal + p.tolerance
        assert r.cost >= math.dist(p.start, p.goal) - 1e-9
        assert lines_of_sight(grid, r.path[:-1], r.path[1:]).all()


@pytest.mark.slow
@pytest.mark.parametrize("lazy", [False, True])
def test_movingai_simple_every_problem_within_the_optimum(lazy: bool) -> None:
    root = require_movingai()
    scen = read_3dscen(root / "scenarios" / "warframe" / "Simple.3dmap.3dscen")
    grid = read_3dmap(scen.find_map())
    above = [p.line for p in scen if not theta_star(grid, p.start, p.goal, lazy=lazy).cost
             <= p.optimal + p.tolerance]
    assert not above, f"longer than the optimum on lines {above[:10]}"


@pytest.mark.parametrize("world", [None, np.zeros((2, 2, 2), bool)])
@pytest.mark.parametrize("lazy", [False, True])
def test_theta_star_needs_a_voxel_grid(world, lazy) -> None:
    with pytest.raises(InvalidQueryError, match="needs a VoxelGrid"):
        theta_star(world, (0, 0, 0), (1, 1, 1), lazy=lazy)


def test_lazy_takes_only_true_or_false() -> None:
    with pytest.raises(InvalidQueryError, match="True or False"):
        theta_star(VoxelGrid(np.zeros((2, 2, 2), bool)), (0, 0, 0), (1, 1, 1), lazy="no")
