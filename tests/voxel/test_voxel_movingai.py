"""The exact voxel searches solve the Moving AI 3D benchmark (Warframe's Simple and A1) at the
optimal lengths its scenario files give: an evenly spread sample by default, every problem in
the slow suite."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from movingai_data import require_movingai

from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.movingai3d import Problem3D, read_3dmap, read_3dscen
from wayfinding.voxel.search import VoxelSearch

#: The fastest exact method measured on these maps (see wayfinding.voxel.search).
FASTEST = "bidirectional"
#: Problems of each file in the default suite (A1's are slower: 89 million voxels).
SAMPLE = {"Simple": {FASTEST: 100, "astar": 100}, "A1": {FASTEST: 30, "astar": 15}}


@cache
def load(name: str) -> tuple[VoxelGrid, list[Problem3D]]:
    root = require_movingai()
    grid = read_3dmap(root / "maps" / "warframe" / f"{name}.3dmap")
    problems = read_3dscen(root / "scenarios" / "warframe" / f"{name}.3dmap.3dscen").problems
    return grid, problems


def spread(problems: list[Problem3D], n: int | None) -> list[Problem3D]:
    if n is None or n >= len(problems):
        return problems
    return [problems[i] for i in np.linspace(0, len(problems) - 1, n).round().astype(int)]


def solve(name: str, method: str, n: int | None) -> None:
    grid, problems = load(name)
    search = VoxelSearch(grid)
    wrong = []
    for p in spread(problems, n):
        r = search.find_path(p.start, p.goal, method=method)
        if not r.found or not p.matches(r.cost):
            wrong.append((p.line, p.optimal, r.cost))
        elif p is problems[0]:
            assert grid.path_cost(r.path) == pytest.approx(r.cost, abs=1e-9)
    assert not wrong, f"{len(wrong)} problems of {name} not at the optimum: {wrong[:5]}"


@pytest.mark.parametrize("name", ["Simple", "A1"])
@pytest.mark.parametrize("method", [FASTEST, "astar"])
def test_a_sample_is_solved_at_the_optimal_length(name: str, method: str) -> None:
    solve(name, method, SAMPLE[name][method])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Simple", "A1"])
def test_every_problem_is_solved_at_the_optimal_length(name: str) -> None:
    solve(name, FASTEST, None)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Simple", "A1"])
def test_astar_solves_a_wide_sample_at_the_optimal_length(name: str) -> None:
    solve(name, "astar", 500)


def test_paths_are_moves_of_the_grid() -> None:
    grid, problems = load("Simple")
    for p in spread(problems, 20):
        r = VoxelSearch(grid).find_path(p.start, p.goal, method=FASTEST)
        steps = np.diff(r.path, axis=0)
        assert all(grid.can_move(tuple(a), tuple(d)) for a, d in zip(r.path[:-1], steps,
                                                                     strict=True))
        assert grid.path_cost(r.path) == pytest.approx(r.cost, abs=1e-9)
