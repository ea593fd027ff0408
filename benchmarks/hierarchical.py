"""Hierarchical search (HPA*) against our compiled A* and JPS+, on Moving AI scenarios, in one
process, with the issue's targets.

Run from the repository root::

    python benchmarks/hierarchical.py [--data DIR] [--out BENCHMARKS.md] [--quick]
                                      [--maps dao/arena2,...] [--cluster-size N]
                                      [--sample N] [--passes N]

Per map: our compiled A* (``GridSearch``, octile), JPS+ (``JPSPlus``) and HPA* with one and two
levels (corridor refinement, the default, with and without smoothing; and the edge-by-edge
refinement of Botea et al.) answer the same problems: up to ``--sample`` problems spread
evenly over the map's scenario file.  The methods take turns on each problem and the whole set
runs ``--passes`` times; each method's time on a problem is its least over the passes (the
machine is shared, so a single pass is noisy).  Only the query call is timed
(``time.perf_counter``), after one warm-up pass over 50 problems.  Every HPA* path is checked
(right ends, legal steps, cost the sum of its steps, not below the optimum) and its length is
compared with the file's optimum.  The targets: HPA*'s default (``hpa``) at most 1% longer than
the optimum on average on every map, and at least 5x faster than A* (ratio of means) on the
512 x 512-class maps (both sides at least 400 cells).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _report import find_data_dir, fmt_us, fmt_x, publish, run_header, table

from wayfinding.grid import GridSearch, JPSPlus, read_map, read_scen
from wayfinding.grid.hpa import CLUSTER_SIZE, HPAStar

SECTION = "## Hierarchical search (HPA*)"
MAPS = ("dao/arena2", "dao/brc202d", "rooms/8room_000", "rooms/32room_000",
        "mazes/maze512-1-0", "mazes/maze512-8-0", "random/random512-10-0",
        "random/random512-25-0", "random/random512-40-0", "cities/Boston_0_512")
#: (row label, index: 0 A*, -1 JPS+, else HPA* levels, smooth, refine).
METHODS = (("astar", 0, False, ""), ("jps_plus", -1, False, ""),
           ("hpa", 1, False, "corridor"), ("hpa_smooth", 1, True, "corridor"),
           ("hpa (edges)", 1, False, "edges"),
           ("hpa2", 2, False, "corridor"), ("hpa2_smooth", 2, True, "corridor"),
           ("hpa2 (edges)", 2, False, "edges"))
#: The issue's targets for the default method.
MAX_EXCESS = 0.01
MIN_SPEEDUP = 5.0
#: Maps whose both sides are at least this many cells are in the 512 x 512 class.
LARGE = 400


def run_map(data: Path, name: str, sample: int, passes: int, cluster_size: int
            ) -> tuple[str, list[str]]:
    """The map's table and its row of the targets table."""
    scen = read_scen(data / "scenarios" / f"{name}.map.scen")
    grid = read_map(scen.find_map(search=[data / "maps" / name.split("/")[0]]))
    scen.check_map(grid)
    every = scen.problems
    pick = np.unique(np.linspace(0, len(every) - 1, min(sample, len(every))).astype(int))
    problems = [every[i] for i in pick]
    indexes = {}
    for levels in (1, 2):
        print(f"  {name}: building HPA* with {levels} level(s)", file=sys.stderr, flush=True)
        indexes[levels] = HPAStar.build(grid, cluster_size=cluster_size, levels=levels)
    indexes[-1] = JPSPlus.build(grid)
    search = GridSearch(grid)
    solvers = {}
    for label, which, smooth, refine in METHODS:
        if which == 0:
            solvers[label] = search.find_path
        elif which < 0:
            solvers[label] = indexes[-1].find_path
        else:
            solvers[label] = (lambda ix, sm, rf: lambda a, b: ix.find_path(
                a, b, smooth=sm, refine=rf))(indexes[which], smooth, refine)
    for p in problems[:50]:  # warm-up
        for solve in solvers.values():
            solve(p.start, p.goal)
    n = len(problems)
    times = {k: np.full(n, np.inf) for k in solvers}
    ratios = {k: np.ones(n) for k in solvers}
    expanded = {k: 0 for k in solvers}
    bad = {k: 0 for k in solvers}
    for rep in range(passes):
        for i, p in enumerate(problems):
            for label, solve in solvers.items():
                t0 = time.perf_counter()
                r = solve(p.start, p.goal)
                dt = time.perf_counter() - t0
                times[label][i] = min(times[label][i], dt)
                if rep:
                    continue
                expanded[label] += r.stats.expanded
                tol = max(1e-3, 1e-5 * p.optimal)
                ok = r.found and tuple(r.path[0]) == p.start and tuple(r.path[-1]) == p.goal \
                    and abs(grid.path_cost(r.path) - r.cost) <= 1e-6 * max(1.0, r.cost) \
                    and r.cost >= p.optimal - tol
                bad[label] += not ok
                if r.found and p.optimal > 0:
                    ratios[label][i] = r.cost / p.optimal
        print(f"  {name}: pass {rep + 1}/{passes} done", file=sys.stderr, flush=True)
    base = times["astar"]
    rows = []
    for label, which, _, _ in METHODS:
        t = times[label]
        ix = indexes.get(which)
        hpa = isinstance(ix, HPAStar)
        rows.append([
            label, fmt_us(float(np.median(t))), fmt_us(float(np.mean(t))),
            fmt_x(float(np.median(base) / np.median(t))),
            fmt_x(float(np.mean(base) / np.mean(t))), f"{expanded[label] / n:,.0f}",
            f"{ix.build_time:,.2f}" if ix else "–",
            f"{ix.nbytes / 2**20:,.2f}" if ix else "–",
            f"{100 * (ratios[label].mean() - 1):.3f}%", f"{100 * (ratios[label].max() - 1):.2f}%",
            f"{n - bad[label]:,}/{n:,}" if hpa else "–",
        ])
        print(f"  {name}: {label:13s} mean {np.mean(t) * 1e6:9.1f} µs  "
              f"excess {100 * (ratios[label].mean() - 1):.3f}%  bad {bad[label]}",
              file=sys.stderr, flush=True)
    h, w = grid.shape
    nodes = ", ".join(f"{int((ix.arrays['node_level'] >= lv).sum()):,} level-{lv} nodes"
                      for lv, ix in indexes.items() if isinstance(ix, HPAStar))
    head = (f"### {name} ({w}×{h}, {int(grid.passable.sum()):,} passable cells, "
            f"{n:,} of {len(every):,} problems; {nodes})\n\n")
    body = table(["method", "median µs", "mean µs", "speed-up (medians)", "speed-up (means)",
                  "mean expanded", "preprocessing s", "index MiB", "mean excess",
                  "max excess", "valid"], rows)
    excess = ratios["hpa"].mean() - 1
    speedup = float(np.mean(base) / np.mean(times["hpa"]))
    large = min(h, w) >= LARGE
    target = [name, f"{w}×{h}", f"{100 * excess:.3f}%",
              "met" if excess <= MAX_EXCESS else "not met", fmt_x(speedup),
              ("met" if speedup >= MIN_SPEEDUP else "not met") if large else "– (not 512²)",
              fmt_x(float(np.mean(base) / np.mean(times["jps_plus"])))]
    return head + body, target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help=f"Markdown file whose '{SECTION}' section is replaced")
    ap.add_argument("--quick", action="store_true", help="100 problems per map, one pass")
    ap.add_argument("--maps", default=",".join(MAPS), help="comma-separated map names")
    ap.add_argument("--cluster-size", type=int, default=CLUSTER_SIZE,
                    help="level-1 cluster side")
    ap.add_argument("--sample", type=int, default=1000, help="problems per map (spread evenly)")
    ap.add_argument("--passes", type=int, default=3, help="passes over the problems")
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    sample, passes = (100, 1) if args.quick else (args.sample, args.passes)
    t0 = time.perf_counter()
    tables, targets = [], []
    for name in args.maps.split(","):
        text, row = run_map(data, name.strip(), sample, passes, args.cluster_size)
        tables.append(text)
        targets.append(row)
    parts = [
        run_header("hierarchical.py", argv, data, time.perf_counter() - t0),
        f"Up to {sample:,} problems per map, spread evenly over the map's scenario file; the "
        f"methods take turns on each problem, {passes} pass(es) over the set, and a method's "
        "time on a problem is its least over the passes (only the query call is timed, after "
        "a warm-up pass over 50 problems).  "
        f"HPA*: {args.cluster_size}×{args.cluster_size} level-1 clusters, level-2 clusters of "
        "3×3 level-1 clusters, one transition per entrance.  `hpa`, `hpa2` (the methods of "
        "those names, the default refinement): the abstract path is refined by a compiled A* "
        "restricted to the top-level clusters it crosses; `_smooth` adds line-of-sight "
        "shortcutting; `(edges)`: each abstract edge refined on its own (Botea et al.; "
        "`refine=\"edges\"`).  Speed-ups divide our compiled A*'s time (`GridSearch`, octile) "
        "by the method's, as ratios of medians and of means.  Mean expanded counts the "
        "abstract search's and the refinement's expansions (not the two insertion distance "
        "maps).  Preprocessing and index memory are the index's `build_time` and `nbytes`.  "
        "Excess: the cost found over the file's optimum, less one (problems of length 0 left "
        "out); a path is valid when it joins the right cells by legal steps, its cost is the "
        "sum of its steps and not below the optimum.",
        "### Targets\n\n"
        f"`hpa` (the default hierarchical method): mean excess at most {MAX_EXCESS:.0%} on "
        f"every map, and at least {MIN_SPEEDUP:.0f}× faster than A* (ratio of means) on "
        f"512²-class maps (both sides at least {LARGE} cells).  The last column gives JPS+'s "
        "speed-up over A* on the same problems (exact paths).\n\n"
        + table(["map", "size", "hpa mean excess", "≤ 1%", "hpa speed-up (means)", "≥ 5×",
                 "jps_plus speed-up (means)"], targets),
        *tables,
    ]
    publish("\n\n".join(parts), args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
