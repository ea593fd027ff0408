"""Moving AI 3D scenario runs: every method against optimal lengths from a plain Dijkstra
(scipy's, over a graph built here with the cube rule), the legality checks of the near-optimal
methods, samples and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding.bench.scenarios import ScenarioReport
from wayfinding.bench.voxel import (
    OCTREE,
    find_map3d,
    legal_path,
    make_voxel_solver,
    run_scenario3d,
    sample_problems3d,
    voxel_methods,
)
from wayfinding.errors import InvalidQueryError, ScenarioFormatError
from wayfinding.results import PathResult
from wayfinding.voxel import generate
from wayfinding.voxel.anyangle import ANY_ANGLE
from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.movingai3d import Problem3D, Scenario3D, write_3dmap, write_3dscen

csgraph = pytest.importorskip("scipy.sparse.csgraph")
sparse = pytest.importorskip("scipy.sparse")


def oracle_distances(blocked: np.ndarray, source: tuple[int, int, int]) -> np.ndarray:
    """26-connected distances (costs 1, √2, √3; a move needs its whole cube free) from
    ``source`` to every voxel, ``[z, y, x]``, by scipy's Dijkstra."""
    nz, ny, nx = blocked.shape
    free = np.zeros((nz + 2, ny + 2, nx + 2), bool)
    free[1:-1, 1:-1, 1:-1] = ~blocked
    ids = np.arange(nz * ny * nx).reshape(nz, ny, nx)
    rows, cols, costs = [], [], []
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if (dx, dy, dz) == (0, 0, 0):
                    continue
                ok = ~blocked.copy()
                for cz in {0, dz}:
                    for cy in {0, dy}:
                        for cx in {0, dx}:
                            ok &= free[1 + cz:1 + cz + nz, 1 + cy:1 + cy + ny,
                                       1 + cx:1 + cx + nx]
                z, y, x = np.nonzero(ok)
                rows.append(ids[z, y, x])
                cols.append(ids[z + dz, y + dy, x + dx])
                costs.append(np.full(len(z), math.sqrt(abs(dx) + abs(dy) + abs(dz))))
    graph = sparse.csr_matrix((np.concatenate(costs), (np.concatenate(rows),
                                                       np.concatenate(cols))),
                              shape=(ids.size, ids.size))
    x, y, z = source
    return csgraph.dijkstra(graph, indices=int(ids[z, y, x])).reshape(nz, ny, nx)


def scenario_files(tmp_path, grid: VoxelGrid, n: int = 12, seed: int = 0):
    """A .3dmap and a .3dscen of ``n`` problems with the oracle's optimal lengths."""
    rng = np.random.default_rng(seed)
    z, y, x = np.nonzero(~grid.blocked)
    problems = []
    for i in range(n):
        a, b = rng.choice(len(x), 2, replace=False)
        s, g = (int(x[a]), int(y[a]), int(z[a])), (int(x[b]), int(y[b]), int(z[b]))
        d = oracle_distances(grid.blocked, s)[g[2], g[1], g[0]]
        assert math.isfinite(d)
        problems.append(Problem3D(s, g, float(d), 1.0, line=i + 3))
    write_3dmap(grid, tmp_path / "w.3dmap")
    write_3dscen(Scenario3D("w.3dmap", problems), tmp_path / "w.3dmap.3dscen")
    return tmp_path / "w.3dmap.3dscen"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    d = tmp_path_factory.mktemp("vbench")
    grid = generate.tunnels((14, 10, 12), seed=3)
    return grid, scenario_files(d, grid)


@pytest.mark.parametrize("method", list(voxel_methods()))
def test_every_method_solves_the_scenario(world, method):
    grid, scen = world
    report = run_scenario3d(scen, method=method, show_progress=False)
    assert isinstance(report, ScenarioReport)
    assert report.problems == report.solved == 12 and report.mismatches == 0, report.worst
    assert report.exact == (method not in ANY_ANGLE and method not in OCTREE)
    if report.exact:
        assert report.max_ratio == pytest.approx(1.0, abs=1e-6)
    elif method in ANY_ANGLE:
        assert report.max_ratio <= 1 + 1e-6          # the file rounds to 8 decimals
    else:
        assert report.mean_ratio >= 1 - 1e-6 and report.index_bytes > 0
        assert report.preprocess_s > 0
    assert report.median_us > 0 and report.p95_us >= report.median_us


def test_a_wrong_optimum_is_a_mismatch(world, tmp_path):
    grid, scen = world
    lines = scen.read_text().splitlines()
    w = lines[3].split()
    w[6] = f"{float(w[6]) + 0.5:.8f}"
    lines[3] = " ".join(w)
    write_3dmap(grid, tmp_path / "w.3dmap")
    (tmp_path / "bad.3dscen").write_text("\n".join(lines) + "\n")
    report = run_scenario3d(tmp_path / "bad.3dscen", show_progress=False)
    assert report.mismatches == 1 and report.worst[0]["line"] == 4


def test_samples_are_spread_evenly_and_deterministic():
    problems = [Problem3D((0, 0, 0), (0, 0, i), float(i)) for i in range(100)]
    s = sample_problems3d(problems, 5)
    assert [p.goal[2] for p in s] == [0, 25, 50, 74, 99]
    assert sample_problems3d(problems, None) == problems == sample_problems3d(problems, 500)


def test_the_map_is_found_in_the_given_folders(world, tmp_path):
    grid, scen = world
    other = tmp_path / "maps"
    other.mkdir()
    write_3dmap(grid, other / "w.3dmap")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "w.3dmap.3dscen").write_text(scen.read_text())
    from wayfinding.voxel.movingai3d import read_3dscen

    moved = read_3dscen(tmp_path / "s" / "w.3dmap.3dscen")
    assert find_map3d(moved, maps=[other]) == other / "w.3dmap"
    with pytest.raises(ScenarioFormatError, match="not found"):
        find_map3d(moved)


def line_grid() -> VoxelGrid:
    b = np.zeros((3, 3, 3), bool)
    b[1, 1, 1] = True                         # the centre voxel
    return VoxelGrid(b)


@pytest.mark.parametrize("path, cost, goal, optimal, ok", [
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], 2.0, (2, 0, 0), 2.0, True),
    ([[0, 0, 0], [2, 0, 0]], 2.0, (2, 0, 0), 2.0, False),                # a jump of two
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], 1.5, (2, 0, 0), 1.5, False),     # not the steps' sum
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], 2.0, (2, 0, 0), 2.5, False),     # below the optimum
    ([[0, 0, 0], [1, 1, 1], [2, 2, 2]], 2 * math.sqrt(3), (2, 2, 2), 3.0, False),  # blocked
    ([[0, 1, 0], [1, 2, 1]], math.sqrt(3), (1, 2, 1), 1.0, False),       # cube holds centre
    ([[0, 0, 0], [1, 0, 0]], 1.0, (2, 0, 0), 1.0, False),                # ends elsewhere
    ([[0, 0, 0], [-1, 0, 0]], 1.0, (-1, 0, 0), 1.0, False),              # leaves the grid
])
def test_voxel_paths_are_checked_move_by_move(path, cost, goal, optimal, ok):
    p = Problem3D(tuple(path[0]), goal, optimal)
    r = PathResult(np.array(path), cost, True)
    assert legal_path(line_grid(), p, r, any_angle=False) == ok


def test_any_angle_legs_must_be_in_sight():
    g = line_grid()
    p = Problem3D((0, 0, 0), (2, 2, 2), 2 * math.sqrt(3))
    through = PathResult(np.array([[0, 0, 0], [2, 2, 2]]), 2 * math.sqrt(3), True)
    assert not legal_path(g, p, through, any_angle=True)
    around = np.array([[0, 0, 0], [2, 0, 0], [2, 2, 2]])
    length = float(np.linalg.norm(np.diff(around, axis=0), axis=1).sum())
    assert legal_path(g, p, PathResult(around, length, True), any_angle=True)
    assert not legal_path(g, p, PathResult(around, length + 1, True), any_angle=True)


def test_bad_methods_and_octrees_are_refused(world, tmp_path):
    grid, scen = world
    with pytest.raises(InvalidQueryError, match="unknown voxel method"):
        make_voxel_solver(grid, "nope")
    from wayfinding.voxel.octree import SparseVoxelOctree

    tree = SparseVoxelOctree.build(grid)
    with pytest.raises(InvalidQueryError, match="takes no octree"):
        make_voxel_solver(grid, "astar", octree=tree)
    assert make_voxel_solver(grid, "svo", octree=tree).built_s == 0.0


def test_a_problem_outside_the_map_names_its_line(world, tmp_path):
    grid, _ = world
    write_3dmap(grid, tmp_path / "w.3dmap")
    write_3dscen(Scenario3D("w.3dmap", [Problem3D((0, 0, 0), (99, 0, 0), 3.0)]),
                 tmp_path / "o.3dscen")
    with pytest.raises(ScenarioFormatError, match="line 3"):
        run_scenario3d(tmp_path / "o.3dscen", show_progress=False)
