"""Dynamic and anytime search on Moving AI maps: D* Lite's repair after k random changes near
the agent against a fresh A* on the changed map, and AD*'s time to a first path and to the
optimal one, in one process.

Run from the repository root::

    python benchmarks/dynamic.py [--out BENCHMARKS.md] [--problems N]

Maps: dao/arena2, dao/brc202d, dao/den312d.  For each of N problems (spread over the
scenario file, optimum over 100): D* Lite plans once; then the agent walks a quarter of the
path, k cells within 5 cells of it are blocked or freed (not the agent's or the goal's), and
both D* Lite's repair (``move_start``, ``update_costs``, ``replan``) and a fresh compiled A*
on the changed map are timed; their costs are checked equal.  AD* (epsilon 3, step 0.5)
plans in slices of 100 expansions: the time to its first path (and that path's length over
the optimum) and to epsilon 1.  Medians over the problems.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _report import find_data_dir, fmt_us, fmt_x, publish, run_header, table

SECTION = "## Dynamic search"
MAPS = ("dao/arena2", "dao/brc202d", "dao/den312d")
KS = (1, 5, 20)


def run_map(name: str, data: Path, n: int) -> list[list[str]]:
    from wayfinding.grid import Grid, GridSearch, read_map, read_scen
    from wayfinding.search import DStarLite

    grid = read_map(data / "maps" / f"{name}.map")
    probs = [p for p in read_scen(data / "scenarios" / f"{name}.map.scen").problems
             if p.optimal > 100]
    probs = [probs[i] for i in np.linspace(0, len(probs) - 1, min(n, len(probs))).astype(int)]
    rng = np.random.default_rng(5)
    rows = []
    for k in KS:
        repair, fresh, first, exp_r, exp_f = [], [], [], [], []
        for p in probs:
            planner = DStarLite(grid, p.start, p.goal)
            t = time.perf_counter()
            r0 = planner.replan()
            first.append(time.perf_counter() - t)
            here = tuple(r0.path[len(r0.path) // 4])
            costs = np.array(grid.costs)
            changes = {}
            while len(changes) < k:
                x = int(np.clip(here[0] + rng.integers(-5, 6), 0, grid.width - 1))
                y = int(np.clip(here[1] + rng.integers(-5, 6), 0, grid.height - 1))
                if (x, y) not in (here, tuple(p.goal)):
                    changes[(x, y)] = 1.0 if np.isinf(costs[y, x]) else np.inf
            for (x, y), c in changes.items():
                costs[y, x] = c
            t = time.perf_counter()
            planner.move_start(here)
            planner.update_costs(changes)
            r1 = planner.replan()
            repair.append(time.perf_counter() - t)
            exp_r.append(r1.stats.expanded)
            t = time.perf_counter()
            ref = GridSearch(Grid(costs)).find_path(here, p.goal)
            fresh.append(time.perf_counter() - t)
            exp_f.append(ref.stats.expanded)
            if ref.found != r1.found or (ref.found and abs(ref.cost - r1.cost) > 1e-6):
                raise AssertionError(f"{name}: D* Lite {r1.cost} != A* {ref.cost}")
        rows.append([name, str(k), fmt_us(float(np.median(first))),
                     fmt_us(float(np.median(repair))), fmt_us(float(np.median(fresh))),
                     fmt_x(float(np.median(fresh)) / float(np.median(repair))),
                     f"{np.median(exp_r):,.0f}", f"{np.median(exp_f):,.0f}"])
        print(f"  {name} k={k}: repair {fmt_us(float(np.median(repair)))} µs, fresh A* "
              f"{fmt_us(float(np.median(fresh)))} µs", file=sys.stderr, flush=True)
    return rows


def anytime_rows(name: str, data: Path, n: int) -> list[list[str]]:
    from wayfinding.grid import GridSearch, read_map, read_scen
    from wayfinding.search import ADStar

    grid = read_map(data / "maps" / f"{name}.map")
    probs = [p for p in read_scen(data / "scenarios" / f"{name}.map.scen").problems
             if p.optimal > 100]
    probs = [probs[i] for i in np.linspace(0, len(probs) - 1, min(n, len(probs))).astype(int)]
    first, final, astar, ratio = [], [], [], []
    search = GridSearch(grid)
    for p in probs:
        planner = ADStar(grid, p.start, p.goal, epsilon=3.0, step=0.5)
        t0 = time.perf_counter()
        r = planner.plan(max_expansions=100)
        while not r.found:
            r = planner.plan(max_expansions=100)
        first.append(time.perf_counter() - t0)
        ratio.append(r.cost / p.optimal)
        while r.epsilon > 1:
            r = planner.plan(max_expansions=100)
        final.append(time.perf_counter() - t0)
        if not p.matches(r.cost):
            raise AssertionError(f"{name}: AD* {r.cost} != optimum {p.optimal}")
        t0 = time.perf_counter()
        search.find_path(p.start, p.goal)
        astar.append(time.perf_counter() - t0)
    return [[name, fmt_us(float(np.median(first))), f"{np.mean(ratio):.4f}",
             fmt_us(float(np.median(final))), fmt_us(float(np.median(astar)))]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--problems", type=int, default=100)
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    t0 = time.perf_counter()
    rows = [row for name in MAPS for row in run_map(name, data, args.problems)]
    any_rows = [row for name in MAPS for row in anytime_rows(name, data, args.problems)]
    body = "\n\n".join([
        run_header("dynamic.py", argv, data, time.perf_counter() - t0),
        "A fresh A* includes building the changed grid (`Grid(costs)`), as a game would "
        "after an edit; the repair includes `move_start` and `update_costs`.  Target: the "
        "repair at least 5× faster than a fresh A* for small k.",
        table(["map", "k changes", "D* Lite first plan µs", "repair µs", "fresh A* µs",
               "fresh ÷ repair", "repair expanded", "A* expanded"], rows),
        "AD*, epsilon 3 down to 1 by 0.5, in slices of 100 expansions:",
        table(["map", "first path µs", "first length ÷ optimum", "optimal path µs",
               "A* µs"], any_rows)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
