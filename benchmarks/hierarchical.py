"""Hierarchical search (HPA*) against our compiled A*, on Moving AI scenarios, in one process.

Run from the repository root::

    python benchmarks/hierarchical.py [--data DIR] [--out BENCHMARKS.md] [--quick]
                                      [--maps dao/arena2,...] [--cluster-size N]

Per map: our compiled A* (``GridSearch``, octile) and HPA* with one and two levels, with and
without smoothing, answer every problem of the map's scenario file; only the query call is
timed (``time.perf_counter``), after one warm-up query.  The HPA* index is built once per
level count (``build_time``, ``nbytes``).  Every HPA* path is checked (right ends, legal
steps, cost the sum of its steps, not below the optimum) and its length is compared with the
file's optimum.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _report import find_data_dir, fmt_us, fmt_x, publish, run_header, table

from wayfinding.grid import GridSearch, read_map, read_scen
from wayfinding.grid.hpa import HPAStar

SECTION = "## Hierarchical search (HPA*)"
MAPS = ("dao/arena2", "dao/brc202d", "rooms/8room_000")
#: (row label, levels, smooth); levels 0 is the compiled A*.
METHODS = (("astar", 0, False), ("hpa", 1, False), ("hpa_smooth", 1, True),
           ("hpa2", 2, False), ("hpa2_smooth", 2, True))


def run_map(data: Path, name: str, limit: int | None, cluster_size: int) -> str:
    scen = read_scen(data / "scenarios" / f"{name}.map.scen")
    grid = read_map(scen.find_map(search=[data / "maps" / name.split("/")[0]]))
    scen.check_map(grid)
    problems = scen.problems[:limit] if limit else scen.problems
    indexes = {}
    for levels in (1, 2):
        print(f"  {name}: building HPA* with {levels} level(s)", file=sys.stderr, flush=True)
        indexes[levels] = HPAStar.build(grid, cluster_size=cluster_size, levels=levels)
    search = GridSearch(grid)
    results = {}
    for label, levels, smooth in METHODS:
        if levels:
            index = indexes[levels]

            def solve(a, b, index=index, smooth=smooth):
                return index.find_path(a, b, smooth=smooth)
        else:
            solve = search.find_path
        solve(problems[0].start, problems[0].goal)  # warm-up
        times = np.empty(len(problems))
        ratios, expanded, bad = [], 0, 0
        for i, p in enumerate(problems):
            t0 = time.perf_counter()
            r = solve(p.start, p.goal)
            times[i] = time.perf_counter() - t0
            expanded += r.stats.expanded
            tol = max(1e-3, 1e-5 * p.optimal)
            ok = r.found and tuple(r.path[0]) == p.start and tuple(r.path[-1]) == p.goal \
                and abs(grid.path_cost(r.path) - r.cost) <= 1e-6 * max(1.0, r.cost) \
                and r.cost >= p.optimal - tol
            bad += not ok
            if r.found and p.optimal > 0:
                ratios.append(r.cost / p.optimal)
        results[label] = (times, expanded / len(problems), np.array(ratios), bad)
        print(f"  {name}: {label:12s} median {np.median(times) * 1e6:9.1f} µs  mean "
              f"{np.mean(times) * 1e6:9.1f} µs  mean ratio {np.mean(ratios):.4f}  bad {bad}",
              file=sys.stderr, flush=True)
    base = results["astar"][0]
    rows = []
    for label, levels, _ in METHODS:
        t, exp, ratio, bad = results[label]
        ix = indexes.get(levels)
        rows.append([
            label, fmt_us(float(np.median(t))), fmt_us(float(np.mean(t))),
            fmt_x(float(np.median(base) / np.median(t))),
            fmt_x(float(np.mean(base) / np.mean(t))), f"{exp:,.0f}",
            f"{ix.build_time:,.2f}" if ix else "–",
            f"{ix.nbytes / 2**20:,.2f}" if ix else "–",
            f"{ix.kept_nbytes / 2**20:,.2f}" if ix else "–",
            f"{ratio.mean():.4f}", f"{ratio.max():.4f}",
            f"{len(problems) - bad:,}/{len(problems):,}",
        ])
    h, w = grid.shape
    nodes = ", ".join(f"{ix.num_nodes:,} level-1 nodes" if lv == 1 else
                      f"{int((ix.arrays['node_level'] >= 2).sum()):,} level-2 nodes"
                      for lv, ix in indexes.items())
    head = (f"### {name} ({w}×{h}, {int(grid.passable.sum()):,} passable cells, "
            f"{len(problems):,} problems; {nodes})\n\n")
    return head + table(["method", "median µs", "mean µs", "speed-up (medians)",
                         "speed-up (means)", "mean expanded", "preprocessing s", "index MiB",
                         "kept edges MiB",
                         "mean length ratio", "max length ratio", "valid"], rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help=f"Markdown file whose '{SECTION}' section is replaced")
    ap.add_argument("--quick", action="store_true", help="first 100 problems per map")
    ap.add_argument("--maps", default=",".join(MAPS), help="comma-separated map names")
    ap.add_argument("--cluster-size", type=int, default=10, help="level-1 cluster side")
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    t0 = time.perf_counter()
    tables = [run_map(data, n.strip(), 100 if args.quick else None, args.cluster_size)
              for n in args.maps.split(",")]
    parts = [
        run_header("hierarchical.py", argv, data, time.perf_counter() - t0),
        "Every method answers every problem of the map's scenario file in one process; only "
        "the query call is timed, after one warm-up query (HPA* makes each top-level "
        "cluster's padded arrays on its first query there, so the means include that).  "
        f"HPA*: {args.cluster_size}×{args.cluster_size} level-1 clusters, level-2 clusters of "
        "3×3 level-1 clusters; `_smooth` adds line-of-sight shortcutting.  Speed-ups divide "
        "our compiled A*'s time (`GridSearch`, octile) by the method's, as ratios of medians "
        "and of means.  Mean expanded counts the abstract search's and the refinement "
        "searches' expansions (not the two insertion distance maps).  Preprocessing and index "
        "memory are the index's `build_time` and `nbytes`; kept edges are the refined abstract "
        "edges the index keeps for later queries (`kept_nbytes`, after the run; the "
        "two methods of a level count share one index).  Length ratios divide the cost "
        "found by the file's optimum (problems of length 0 left out); a path is valid when it "
        "joins the right cells by legal steps, its cost is the sum of its steps and not below "
        "the optimum.",
        *tables,
    ]
    body = "\n\n".join(parts)
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
