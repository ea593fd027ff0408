"""Voxel searches on the Moving AI 3D benchmark (Warframe maps Simple and A1): wayfinding's
exact methods, Theta* and Lazy Theta*, and the sparse voxel octree search (``svo``), against
pathfinding3d's A* on the same problems, in one process.

Run from the repository root::

    python benchmarks/voxel.py [--out BENCHMARKS.md] [--problems N] [--peer-problems M]
                               [--peer-seconds S] [--peer-voxels V] [--maps Simple,A1]
                               [--dijkstra-problems D] [--theta-problems T]

Problems: ``N`` spread evenly over each scenario file (all 10,000 with ``--problems
10000``); Dijkstra (which floods most of A1's 89 million voxels, about 100 s a query) runs on
``D`` and Theta* (whose line-of-sight tests at every generation take up to 20 s on a long
A1 query) on ``T`` of them, spread evenly.  Each query is timed alone (``time.perf_counter``
around the whole Python call, checks outside); the tables give the median and the 99th
percentile.  Exact methods must match the file's optimal length (mismatches are counted);
the others are checked legal (voxel moves under the cube rule for ``svo``, legs in line of
sight for Theta*) and their length is divided by the optimum.  ``svo`` is
``SparseVoxelOctree.find_path`` with its default variant, timed as called by default (path
refined to voxel moves, then smoothed) and without the smoothing; its ratio is that of the
voxel path, with the smoothed flight path's beside it.  The octree's build time (median of 3,
all cores) and memory against the dense grid are given for each map.

pathfinding3d (pure Python) runs ``AStarFinder`` with ``DiagonalMovement.only_when_no_obstacle``
and its default octile heuristic: in 3D that rule allows a planar diagonal only when both
straight neighbours are free and a corner diagonal only when all 7 other voxels of its cube
are free, and its steps cost 1, √2 and √3, so it is the benchmark's move rule exactly.  It
builds a Python object per voxel (about 0.5 KB and 2.5 µs each here), so it cannot hold A1
(89 million voxels): each of its problems runs on a crop of the map, the bounding box of our
optimal A* path grown by 2 voxels on every side and clipped to the map (voxels outside count as
blocked).  The crop holds an optimal path, so its optimum is the map's.  Simple (1.5 million
voxels) is held whole, built once; pathfinding3d's O(map) ``grid.cleanup()`` between queries is
not counted.  The first ``M`` of our problems whose crop has at most ``V`` voxels are run
(the others are counted as skipped), each with a time cap of ``S`` seconds (a query over the
cap counts as a timeout).  Its time is the search's (``find_path``), with the crop's grid
build time beside it.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _report import find_data_dir, fmt_us, fmt_x, publish, run_header, table

from wayfinding.bench.voxel import legal_path, make_voxel_solver, sample_problems3d
from wayfinding.voxel.methods import ANY_ANGLE_METHODS, EXACT_METHODS
from wayfinding.voxel.movingai3d import read_3dmap, read_3dscen
from wayfinding.voxel.octree import SparseVoxelOctree

SECTION = "## Voxel searches (Moving AI 3D)"
MAPS = ("Simple", "A1")
#: Crop margin around our optimal path for pathfinding3d, voxels.
MARGIN = 2
#: The issue's targets for the octree search on A1, µs per query (Python call included).
SVO_MEDIAN_US, SVO_P99_US = 1000.0, 20000.0


def _row(name: str, times: list[float], ratios: list[float], bad: int, exact: bool,
         base: float, extra: str = "–") -> list[str]:
    t = np.array(times)
    r = np.array(ratios) if ratios else np.array([np.nan])
    return [name, f"{len(t):,}", fmt_us(float(np.median(t))), fmt_us(float(np.percentile(t, 99))),
            fmt_x(float(np.median(t)) / base) if base > 0 else "–",
            f"{np.nanmean(r):.4f}", f"{np.nanmax(r):.4f}", extra,
            f"{bad} {'mismatches' if exact else 'failures'}"]


def _octree_search(tree: SparseVoxelOctree, *, smooth: bool) -> Any:
    def solve(start: Any, goal: Any) -> Any:
        return tree.find_path(start, goal, smooth=smooth)
    return solve


def run_ours(grid: Any, problems: list, tree: SparseVoxelOctree, slow: dict[str, int]
             ) -> tuple[list[list[str]], dict[str, Any]]:
    """Every method on the problems (the methods of ``slow`` on an even sample of as many of
    them): the table rows and the exact A* paths (for the peer's crops)."""
    runs: dict[str, Any] = {}
    for method in [*EXACT_METHODS, *ANY_ANGLE_METHODS, "svo", "svo (no smoothing)"]:
        mine = sample_problems3d(problems, slow.get(method))
        if method.startswith("svo"):
            solve, exact = _octree_search(tree, smooth=method == "svo"), False
        else:
            solver = make_voxel_solver(grid, method)
            solve, exact = solver.solve, solver.exact
        times, costs, bad, smoothed, paths = [], [], 0, [], []
        gc.collect()
        for p in mine:
            t0 = time.perf_counter()
            r = solve(p.start, p.goal)
            times.append(time.perf_counter() - t0)
            ok = r.found and (p.matches(r.cost) if exact else
                              legal_path(grid, p, r, any_angle=method in ANY_ANGLE_METHODS))
            bad += not ok
            costs.append(r.cost if r.found else np.nan)
            if method == "svo":
                smoothed.append(r.smoothed_length / grid.voxel_size if r.found else np.nan)
            if method == "astar":
                paths.append(np.asarray(r.path))
        optimal = np.array([p.optimal for p in mine])
        runs[method] = (times, np.array(costs), bad, exact, np.array(smoothed), optimal)
        if method == "astar":
            runs["paths"] = paths
        print(f"  {method}: median {fmt_us(float(np.median(times)))} µs, {bad} bad",
              file=sys.stderr, flush=True)
    base = float(np.median(runs["astar"][0]))
    rows = []
    for method, value in runs.items():
        if method == "paths":
            continue
        times, costs, bad, exact, smoothed, optimal = value
        ok = optimal > 0
        extra = f"{np.nanmean(smoothed[ok] / optimal[ok]):.4f}" if len(smoothed) else "–"
        rows.append(_row(method, times, list(costs[ok] / optimal[ok]), bad, exact, base, extra))
    return rows, runs


def peer_rows(grid: Any, problems: list, paths: list[np.ndarray], m: int, seconds: float,
              max_voxels: int, whole: bool, ours: list[float]) -> tuple[list[list[str]], str]:
    """pathfinding3d's A* on the first ``m`` problems whose crop fits ``max_voxels``; its
    "÷ A*" is over our A* times ``ours`` (one per problem) on the problems it solved."""
    try:
        from pathfinding3d.core.diagonal_movement import DiagonalMovement
        from pathfinding3d.core.grid import Grid as PGrid
        from pathfinding3d.finder.a_star import AStarFinder
        from pathfinding3d.finder.finder import ExecutionTimeException
    except ImportError:
        return [["pathfinding3d A*", "not installed"] + ["–"] * 7], ""
    free = (~grid.blocked).transpose(2, 1, 0).astype(np.int8)     # [x, y, z], 1 = walkable
    nx, ny, nz = grid.size
    finder = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle,
                         time_limit=seconds)
    shared = None
    builds: list[float] = []
    if whole:
        t0 = time.perf_counter()
        shared = PGrid(matrix=free)
        builds.append(time.perf_counter() - t0)
    times, ratios, skipped, timeouts, wrong, crop_sizes, same = [], [], 0, 0, 0, [], []
    for p, path, mine in zip(problems, paths, ours, strict=True):
        if len(times) + timeouts >= m:
            break
        if whole:
            lo, pg = np.zeros(3, np.int64), shared
        else:
            lo = np.maximum(path.min(axis=0) - MARGIN, 0)
            hi = np.minimum(path.max(axis=0) + MARGIN + 1, (nx, ny, nz))
            if int(np.prod(hi - lo)) > max_voxels:
                skipped += 1
                continue
            crop_sizes.append(int(np.prod(hi - lo)))
            t0 = time.perf_counter()
            pg = PGrid(matrix=np.ascontiguousarray(free[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]))
            builds.append(time.perf_counter() - t0)
        s = np.asarray(p.start) - lo
        g = np.asarray(p.goal) - lo
        if whole:
            pg.cleanup()
        t0 = time.perf_counter()
        try:
            found, _ = finder.find_path(pg.node(*s.tolist()), pg.node(*g.tolist()), pg)
        except ExecutionTimeException:
            timeouts += 1
            continue
        times.append(time.perf_counter() - t0)
        same.append(mine)
        pts = np.array([[n.x, n.y, n.z] for n in found], np.float64).reshape(-1, 3)
        length = float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum()) if len(pts) else \
            np.inf
        wrong += not p.matches(length)
        if p.optimal > 0:
            ratios.append(length / p.optimal)
        if not whole:
            del pg
    note = (f"pathfinding3d: {len(times)} problems solved, {timeouts} over the {seconds:g} s "
            f"cap, ")
    note += ("the whole map held once (grid built in "
             f"{builds[0]:.1f} s)" if whole else
             f"{skipped} skipped (crop over {max_voxels:,} voxels); crops of "
             f"{min(crop_sizes, default=0):,}–{max(crop_sizes, default=0):,} voxels, median "
             f"grid build {statistics.median(builds) if builds else float('nan'):.2f} s")
    if not times:
        return [["pathfinding3d A*", "0", "–", "–", "–", "–", "–", "–", note]], note
    base = float(np.median(same))
    note += f"; our A* on the same problems: median {fmt_us(base)} µs"
    return [_row("pathfinding3d A*", times, ratios, wrong, True, base)], note


def run_map(name: str, data: Path, n: int, m: int, seconds: float,
            max_voxels: int, slow: dict[str, int]) -> str:
    t0 = time.perf_counter()
    grid = read_3dmap(data / "maps" / "warframe" / f"{name}.3dmap")
    read_s = time.perf_counter() - t0
    scen = read_3dscen(data / "scenarios" / "warframe" / f"{name}.3dmap.3dscen")
    problems = sample_problems3d(scen.problems, n)
    builds = []
    tree = None
    for _ in range(3):
        tree = SparseVoxelOctree.build(grid)
        builds.append(tree.build_time)
    assert tree is not None
    mem = tree.memory()
    print(f"{name}: octree {statistics.median(builds):.2f} s, {mem['total'] / 1e6:.1f} MB",
          file=sys.stderr, flush=True)
    rows, runs = run_ours(grid, problems, tree, slow)
    whole = grid.num_voxels <= max_voxels
    peer, note = peer_rows(grid, problems, runs["paths"], m, seconds, max_voxels, whole,
                           runs["astar"][0])
    nx, ny, nz = grid.size
    svo = runs["svo"][0]
    head = (f"### {name} ({nx} × {ny} × {nz} voxels, {grid.num_free:,} free; "
            f"{len(problems):,} of {len(scen):,} problems)\n\n"
            f"Map read in {read_s:.2f} s.  Octree: built in {statistics.median(builds):.2f} s "
            f"(median of 3), {mem['total'] / 1e6:,.2f} MB, {sum(mem['nodes']):,} nodes in "
            f"{len(mem['nodes'])} layers; {mem['ratio_bits']:.2f} × the bit-packed grid "
            f"({mem['dense_bits'] / 1e6:,.2f} MB), {mem['ratio_bytes']:.3f} × a byte a voxel "
            f"({mem['dense_bytes'] / 1e6:,.1f} MB).  Octree search (`svo`): median "
            f"{fmt_us(float(np.median(svo)))} µs, p99 {fmt_us(float(np.percentile(svo, 99)))} "
            f"µs (the issue's targets on A1: median < {SVO_MEDIAN_US:,.0f} µs, p99 < "
            f"{SVO_P99_US:,.0f} µs).  {note} (its \"÷ A*\" is over those).")
    return head + "\n\n" + table(
        ["method", "problems", "median µs", "p99 µs", "median ÷ A*", "mean length ÷ optimum", "max",
         "smoothed ÷ optimum", "checks"], rows + peer)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--problems", type=int, default=1000)
    ap.add_argument("--peer-problems", type=int, default=20)
    ap.add_argument("--peer-seconds", type=float, default=30.0)
    ap.add_argument("--peer-voxels", type=int, default=2_000_000)
    ap.add_argument("--maps", default=",".join(MAPS))
    ap.add_argument("--dijkstra-problems", type=int, default=3)
    ap.add_argument("--theta-problems", type=int, default=20)
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    t0 = time.perf_counter()
    parts = []
    for name in args.maps.split(","):
        print(f"{name} ...", file=sys.stderr, flush=True)
        slow = {"dijkstra": args.dijkstra_problems, "theta": args.theta_problems}
        parts.append(run_map(name, data, args.problems, args.peer_problems, args.peer_seconds,
                             args.peer_voxels, slow))
    body = "\n\n".join([
        run_header("voxel.py", argv, data, time.perf_counter() - t0),
        "Times per query include the Python call; exact methods are checked against the "
        "file's optimal length, the others for legal paths (see the script's docstring).  "
        "`svo` is the octree search with its default variant as `find_path` runs it "
        "(refined and smoothed); `svo (no smoothing)` skips the smoothing.  Length ratios "
        "are to the 26-connected optimum (Theta* may go below 1).",
        *parts])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
