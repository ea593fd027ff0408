"""Scenario sets and goal bounds as Dask task graphs equal the serial runs (2-worker
LocalCluster, threads only, generated maps)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("distributed", reason="the [dask] extra (dask[distributed]) is absent")


from wayfinding.bench import run_scenario  # noqa: E402
from wayfinding.bench.distributed import (  # noqa: E402
    build_goal_bounds_dask,
    solve_scenarios_dask,
)
from wayfinding.errors import InvalidGridError, InvalidQueryError  # noqa: E402
from wayfinding.grid import Grid, read_map, read_scen  # noqa: E402
from wayfinding.grid.generate import maze, random_obstacles, save_benchmark  # noqa: E402
from wayfinding.grid.goal_bounds import GoalBounds  # noqa: E402
from wayfinding.grid.hpa import HPAStar  # noqa: E402
from wayfinding.grid.jps import JPSPlus  # noqa: E402
from wayfinding.grid.methods import make_solver  # noqa: E402


@pytest.fixture(scope="module")
def scen_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("dask_scen")
    a = save_benchmark(random_obstacles(24, 18, density=0.3, seed=3), root / "rand.map",
                       per_bucket=4, seed=1)[1]
    b = save_benchmark(maze(21, 15, seed=2), root / "maze.map", per_bucket=4, seed=2)[1]
    return [a, b]


@pytest.mark.parametrize("method", ["astar", "jps", "jps_plus"])
def test_scenarios_equal_serial_run(dask_client, scen_files, method):
    runs = solve_scenarios_dask(scen_files, method=method, client=dask_client, batch=5,
                                progress=False)
    assert len(runs) == len(scen_files)
    for path, run in zip(scen_files, runs):
        scen = read_scen(path)
        solve = make_solver(read_map(scen.find_map()), method, progress=False)
        serial = [solve(p.start, p.goal) for p in scen.problems]
        assert run.found.tolist() == [bool(r.found) for r in serial]
        want = np.array([r.cost if r.found else math.nan for r in serial])
        np.testing.assert_array_equal(run.lengths, want)
        # the file's optimal lengths (independent Dijkstra floods) are met
        opt = np.array([p.optimal for p in scen.problems])
        assert np.all(np.abs(run.lengths - opt) <= 1e-3)
        report = run_scenario(path, method=method, show_progress=False)
        for name in ("problems", "solved", "mismatches", "worst", "algorithm", "map"):
            assert getattr(run.report, name) == getattr(report, name), name
        assert run.report.mean_expanded == pytest.approx(report.mean_expanded)
        assert run.report.max_ratio == pytest.approx(report.max_ratio)


@pytest.mark.parametrize("method", ["astar_gb", "jps_plus_gb", "hpa"])
def test_preprocessed_indexes_built_once_per_map(dask_client, scen_files, method, monkeypatch):
    builds = []
    real = GoalBounds.build.__func__, JPSPlus.build.__func__, HPAStar.build.__func__

    def counted(k):
        def build(cls, grid, **kw):
            builds.append((cls.__name__, grid.fingerprint))
            return real[k](cls, grid, **kw)
        return classmethod(build)

    for k, cls in enumerate((GoalBounds, JPSPlus, HPAStar)):
        monkeypatch.setattr(cls, "build", counted(k))
    runs = solve_scenarios_dask(scen_files, method=method, client=dask_client, batch=3,
                                progress=False)
    needs = {"astar_gb": 1, "jps_plus_gb": 2, "hpa": 1}[method]
    assert len(builds) == needs * len(scen_files) == len(set(builds))
    monkeypatch.undo()
    for path, run in zip(scen_files, runs):
        serial = run_scenario(path, method=method, show_progress=False)
        assert run.report.index_bytes == serial.index_bytes > 0
        assert run.report.preprocess_s > 0
        assert run.report.mismatches == serial.mismatches
        assert run.found.sum() == serial.solved


def test_same_scenario_twice(dask_client, scen_files):
    twice = solve_scenarios_dask([scen_files[0], scen_files[0]], method="jps_plus",
                                 client=dask_client, batch=4, progress=False)
    assert twice[0].found.tolist() == twice[1].found.tolist()
    np.testing.assert_array_equal(twice[0].lengths, twice[1].lengths)


def test_scenarios_report_wrong_problems_as_serial(dask_client, tmp_path):
    grid = random_obstacles(16, 12, density=0.2, seed=5)
    mp, sp = save_benchmark(grid, tmp_path / "w.map", per_bucket=3, seed=4)
    text = sp.read_text().splitlines()
    fields = text[1].split("\t")
    fields[-1] = f"{float(fields[-1]) + 1:.8f}"  # a wrong optimum on the first problem
    text[1] = "\t".join(fields)
    sp.write_text("\n".join(text) + "\n")
    run, = solve_scenarios_dask([read_scen(sp)], client=dask_client, batch=2, progress=False)
    serial = run_scenario(sp, show_progress=False)
    assert run.report.mismatches == serial.mismatches == 1
    assert run.report.worst == serial.worst


def test_scenarios_bad_input(dask_client, scen_files):
    with pytest.raises(InvalidQueryError, match="'nope'"):
        solve_scenarios_dask(scen_files, method="nope", client=dask_client)
    with pytest.raises(InvalidQueryError, match="no scenarios"):
        solve_scenarios_dask([], client=dask_client)
    with pytest.raises(ValueError, match="batch"):
        solve_scenarios_dask(scen_files, client=dask_client, batch=0)
    with pytest.raises(InvalidQueryError, match="takes no"):
        solve_scenarios_dask(scen_files, method="jps", client=dask_client, weight=2.0)
    with pytest.raises(InvalidQueryError, match="takes no search options"):
        solve_scenarios_dask(scen_files, method="astar_gb", client=dask_client, weight=2.0)
    with pytest.raises(InvalidQueryError, match="distributed.Client.*str"):
        solve_scenarios_dask(scen_files, client="tcp://127.0.0.1:8786")


@pytest.mark.parametrize("grid", [
    random_obstacles(14, 11, density=0.3, seed=7),
    random_obstacles(12, 9, density=0.25, seed=8).with_options(diagonal="always"),
    Grid(np.where(np.random.default_rng(9).random((9, 13)) < 0.2, np.inf,
                  np.random.default_rng(10).integers(1, 5, (9, 13)).astype(float))),
], ids=["canonical", "corner-cutting", "weighted"])
def test_goal_bounds_equal_serial_build(dask_client, grid):
    serial = GoalBounds.build(grid, workers=1, progress=False)
    built = build_goal_bounds_dask(grid, client=dask_client, batch=7, progress=False)
    assert isinstance(built, GoalBounds)
    np.testing.assert_array_equal(built.boxes, serial.boxes)
    assert built.options["flood"] == serial.options["flood"]
    s, g = (0, 0), (grid.width - 1, grid.height - 1)
    if np.isfinite(grid.costs[0, 0]) and np.isfinite(grid.costs[-1, -1]):
        assert built.find_path(s, g).cost == serial.find_path(s, g).cost


def test_goal_bounds_bad_input(dask_client):
    with pytest.raises(InvalidGridError, match="Grid"):
        build_goal_bounds_dask(np.ones((3, 3)), client=dask_client)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch"):
        build_goal_bounds_dask(maze(7, 7), client=dask_client, batch=-1)
    with pytest.raises(InvalidQueryError, match="distributed.Client.*LocalCluster"):
        build_goal_bounds_dask(maze(7, 7), client=dask_client.cluster)


@pytest.mark.slow
def test_own_local_cluster_when_no_client(scen_files):
    grid = maze(9, 7, seed=4)
    built = build_goal_bounds_dask(grid, batch=5, progress=False)
    np.testing.assert_array_equal(built.boxes,
                                  GoalBounds.build(grid, workers=1, progress=False).boxes)
    run, = solve_scenarios_dask(scen_files[:1], batch=8, progress=False)
    assert run.report.mismatches == 0 and run.found.all()
