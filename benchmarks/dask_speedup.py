"""Dask builds and batch runs: the wall time of goal bounds, exit tables, a sparse voxel
octree and a scenario set on one process against a ``LocalCluster`` of 2 single-threaded
worker processes, with the speed-up, every Dask result checked equal to the serial one.

Run from the repository root::

    python benchmarks/dask_speedup.py [--out BENCHMARKS.md] [--quick]

Needs the ``[dask]`` extra.  The worlds are generated here (fixed seeds): goal bounds on a
``--grid`` × ``--grid`` map with 20% random obstacles; exit tables (3 levels, tiles of 8) on
the graph of a ``--graph`` × ``--graph`` cave map; the octree of ``--voxels``³ voxels of
asteroids; A* on a scenario of ``--problems`` problems drawn on a ``--scen-map`` ×
``--scen-map`` map with 25% random obstacles.

**One process**: the serial build on one thread (``GoalBounds.build(workers=1)``,
``CSRExitTables.build``, ``SparseVoxelOctree.build(workers=1)``, ``run_scenario``).
**Dask**: the ``*_dask`` call on a client of the cluster, started before the timings (its
start-up time is given apart).  Each figure is the least wall time of ``--passes`` passes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import fmt_x, publish, run_header, table  # noqa: E402

from wayfinding.bench import run_scenario  # noqa: E402
from wayfinding.bench.dask_cluster import dask_client  # noqa: E402
from wayfinding.bench.dask_exit_tables import build_exit_tables_dask  # noqa: E402
from wayfinding.bench.dask_octree import build_octree_dask  # noqa: E402
from wayfinding.bench.distributed import (  # noqa: E402
    build_goal_bounds_dask,
    solve_scenarios_dask,
)
from wayfinding.graph.exit_tables import CSRExitTables  # noqa: E402
from wayfinding.grid.generate import caves, random_obstacles, save_benchmark  # noqa: E402
from wayfinding.grid.goal_bounds import GoalBounds  # noqa: E402
from wayfinding.voxel.generate import asteroids  # noqa: E402
from wayfinding.voxel.octree import SparseVoxelOctree  # noqa: E402

SECTION = "## Dask speed-up (2 worker processes)"


def best_of(passes: int, run: Callable[[], Any],
            workers: Callable[[], dict[str, float]] = dict) -> tuple[float, float, float, Any]:
    """Of ``passes`` calls of ``run``: the least wall seconds, the least CPU seconds of this
    process, the least CPU seconds of the workers together (``workers()``: each worker's
    CPU seconds so far), and the last result."""
    wall = cpu = spent = np.inf
    out = None
    for _ in range(passes):
        before = workers()
        t, c = time.perf_counter(), time.process_time()
        out = run()
        wall = min(wall, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
        after = workers()
        spent = min(spent, sum(after[w] - before[w] for w in after))
    return wall, cpu, spent, out


def same_arrays(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return sorted(a) == sorted(b) and all(
        a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]) for k in a)


def same_runs(serial: Any, run: Any) -> bool:
    return (run.report.problems == serial.problems and run.report.solved == serial.solved
            and run.report.mismatches == serial.mismatches == 0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--grid", type=int, default=160, help="goal-bound map side (cells)")
    ap.add_argument("--graph", type=int, default=160, help="exit-table cave map side (cells)")
    ap.add_argument("--voxels", type=int, default=384, help="octree grid side (voxels)")
    ap.add_argument("--scen-map", type=int, default=512, help="scenario map side (cells)")
    ap.add_argument("--problems", type=int, default=2000, help="scenario problems")
    ap.add_argument("--passes", type=int, default=1, help="timed passes of each run")
    ap.add_argument("--quick", action="store_true", help="smoke run: small worlds")
    args = ap.parse_args(argv)
    if args.quick:
        args.grid, args.graph, args.voxels, args.scen_map, args.problems = 64, 48, 128, 128, 200
    t0 = time.perf_counter()
    load = [os.getloadavg()[0]]
    tmp = tempfile.TemporaryDirectory()
    grid = random_obstacles(args.grid, args.grid, density=0.2, seed=1)
    graph = caves(args.graph, args.graph, fill=0.35, seed=2).to_csr()
    voxels = asteroids((args.voxels,) * 3, seed=3)
    scen_map = random_obstacles(args.scen_map, args.scen_map, density=0.25, seed=4)
    scen = save_benchmark(scen_map, Path(tmp.name) / "rocks.map", problems=args.problems,
                          per_bucket=max(1, args.problems // 100), seed=5)[1]
    cases: list[tuple[str, str, Callable[[], Any], Callable[[Any], Any],
                      Callable[[Any, Any], bool]]] = [
        ("goal bounds", f"{args.grid}×{args.grid} map, {int(grid.passable.sum()):,} cells",
         lambda: GoalBounds.build(grid, workers=1, progress=False),
         lambda c: build_goal_bounds_dask(grid, client=c, progress=False),
         lambda a, b: same_arrays(a.arrays, b.arrays)),
        ("exit tables", f"cave graph, {graph.num_nodes:,} nodes, 3 levels, tiles of 8",
         lambda: CSRExitTables.build(graph, tile_size=8.0, levels=3),
         lambda c: build_exit_tables_dask(graph, tile_size=8.0, levels=3, client=c,
                                          progress=False),
         lambda a, b: same_arrays(a.arrays, b.arrays)),
        ("sparse voxel octree", f"{args.voxels}³ voxels of asteroids",
         lambda: SparseVoxelOctree.build(voxels, workers=1),
         lambda c: build_octree_dask(voxels, client=c, progress=False),
         lambda a, b: same_arrays(a.arrays, b.arrays)),
        ("scenario set (A*)", f"{args.problems:,} problems on {args.scen_map}² cells",
         lambda: run_scenario(scen, method="astar", show_progress=False),
         lambda c: solve_scenarios_dask([scen], method="astar", client=c, progress=False)[0],
         same_runs),
    ]
    serial = {name: best_of(args.passes, one) for name, _, one, _, _ in cases}
    t = time.perf_counter()
    with dask_client("local:2") as client:
        startup = time.perf_counter() - t
        rows = []
        for name, what, _, dask, equal in cases:
            wall, cpu, spent, result = best_of(args.passes, lambda dask=dask: dask(client),
                                                 lambda: client.run(time.process_time))
            one_wall, one_cpu, _, want = serial[name]
            if not equal(want, result):
                sys.exit(f"{name}: the Dask result differs from the serial one")
            rows.append([name, what, f"{one_wall:,.2f}", f"{wall:,.2f}",
                         fmt_x(one_wall / wall), f"{one_cpu:,.2f}", f"{cpu + spent:,.2f}",
                         fmt_x(one_cpu / ((cpu + spent) / 2))])
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    tmp.cleanup()
    load.append(os.getloadavg()[0])
    body = "\n".join([
        run_header("dask_speedup.py", argv, None, time.perf_counter() - t0,
                   f"dask {_dask_version()}"), "",
        "Wall seconds of each build or run on one process (the serial build on one thread) "
        "and through its Dask task graph on a `LocalCluster` of 2 single-threaded worker "
        f"processes (least of {args.passes} pass(es); the cluster started beforehand in "
        f"{startup:,.1f} s, not counted), each Dask result checked equal to the serial one "
        "(index arrays equal; scenario counts equal, no mismatch).  The machine's "
        f"{os.cpu_count()} cores may be shared with other work, which stretches the wall "
        f"times: the 1-minute load average was {load[0]:.1f} at the start and {load[1]:.1f} "
        "at the end.  So CPU seconds are given too: those of the one process (its wall time "
        "with a core to itself), and for Dask those of the caller (with the scheduler) and "
        "the 2 workers together; \"idle speed-up\" = one process CPU s ÷ (Dask CPU s ÷ 2 "
        "cores), the speed-up with the 2 cores to itself and the work evenly shared.", "",
        table(["work", "world", "one process wall s", "Dask wall s", "wall speed-up",
               "one process CPU s", "Dask CPU s (caller + workers)",
               "idle speed-up"], rows),
    ])
    publish(body, args.out, SECTION)
    return 0


def _dask_version() -> str:
    import distributed

    return str(distributed.__version__)


if __name__ == "__main__":
    raise SystemExit(main())
