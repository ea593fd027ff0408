"""Online jump point search (``jps``, ``jps2``) against JPS+ and A*, on Moving AI scenarios.

Run from the repository root::

    python benchmarks/online_jps.py [--data DIR] [--out BENCHMARKS.md] [--passes N]
                                    [--max-problems N] [--maps dao/arena2,...]

Per map, the problems of its scenario file (all of them, or ``--max-problems`` spread evenly
over the file) are answered by every method in one process: ``GridSearch.find_path`` with
``method="astar"``, ``"jps"`` and ``"jps2"``, and ``JPSPlus.find_path``.  Each pass
(``--passes``) runs every method over all the problems in turn (a method's queries follow
one another, as in a game's stream of queries; A* only in the first ``--astar-passes``);
each problem's time is its fastest call (``time.perf_counter`` around the whole Python
call), and the tables give the mean and the median of those times over the problems.  The
grid's bit copy (online JPS) and the JPS+ table are built before timing, with one warm-up
query.  Every cost is checked against the file's optimum (max(1e-3, 1e-5 × length)).

Target (issue 25): online JPS mean <= 1.5 × the JPS+ mean on every dao/sc-like map: the dao
maps arena2, brc202d, den312d and, as there is no StarCraft map in the data, the largest
game-like map (cities/Boston_0_512, 512×512; as in ``fast_search.py``).  The best online
variant per map is named, and the other map families are measured for comparison.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _report import find_data_dir, fmt_us, fmt_x, publish, run_header, table

from wayfinding.grid import GridSearch, read_map, read_scen
from wayfinding.grid.jps import JPSPlus

SECTION = "## Online jump point search"
#: Maps held to the target (dao and the sc1-class stand-in), then the other families.
TARGET_MAPS = ("dao/arena2", "dao/brc202d", "dao/den312d", "cities/Boston_0_512")
OTHER_MAPS = ("dao/orz100d", "mazes/maze512-1-0", "rooms/8room_000", "random/random512-25-0")
ONLINE = ("jps", "jps2")
METHODS = (*ONLINE, "jps_plus", "astar")
TARGET = 1.5


def spread(items: list, n: int) -> list:
    """``n`` items spread evenly over ``items`` (all of them when ``n`` <= 0 or larger)."""
    if n <= 0 or len(items) <= n:
        return items
    return [items[i] for i in np.linspace(0, len(items) - 1, n).round().astype(int)]


def measure(data: Path, name: str, passes: int, astar_passes: int, max_problems: int) -> dict:
    """Per-problem fastest times (s), expansions and the count of optimal answers."""
    grid = read_map(data / "maps" / f"{name}.map")
    every = read_scen(data / "scenarios" / f"{name}.map.scen").problems
    problems = [p for p in spread(every, max_problems) if p.start != p.goal]
    search = GridSearch(grid)
    plus = JPSPlus.build(grid)
    calls = {m: (lambda s, g, m=m: search.find_path(s, g, method=m)) for m in ONLINE}
    calls["astar"] = lambda s, g: search.find_path(s, g)
    calls["jps_plus"] = plus.find_path
    first = problems[0]
    for m in METHODS:  # warm-up: builds the bit copy, JPS+ scratch, workspaces
        calls[m](first.start, first.goal)
    best = {m: np.full(len(problems), np.inf) for m in METHODS}
    expanded = {m: np.zeros(len(problems)) for m in METHODS}
    optimal = dict.fromkeys(METHODS, 0)
    clock = time.perf_counter
    for rep in range(passes):
        for m in METHODS:
            if m == "astar" and rep >= astar_passes:
                continue
            call, times, exp = calls[m], best[m], expanded[m]
            for i, p in enumerate(problems):
                t0 = clock()
                r = call(p.start, p.goal)
                dt = clock() - t0
                if dt < times[i]:
                    times[i] = dt
                if rep == 0:
                    exp[i] = r.stats.expanded
                    optimal[m] += abs(r.cost - p.optimal) <= max(1e-3, 1e-5 * p.optimal)
    return {"grid": grid, "n": len(problems), "total": len(every), "best": best,
            "expanded": expanded, "optimal": optimal}


def map_table(res: dict) -> str:
    plus_mean = res["best"]["jps_plus"].mean()
    plus_median = np.median(res["best"]["jps_plus"])
    rows = []
    for m in METHODS:
        t = res["best"][m]
        rows.append([m, fmt_us(t.mean()), fmt_us(float(np.median(t))),
                     fmt_x(t.mean() / plus_mean), fmt_x(float(np.median(t)) / plus_median),
                     f"{res['expanded'][m].mean():,.0f}", f"{res['optimal'][m]:,}/{res['n']:,}"])
    return table(["method", "mean µs", "median µs", "÷ jps_plus (means)",
                  "÷ jps_plus (medians)", "expanded (mean)", "optimal"], rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", help="Moving AI folder (with maps/ and scenarios/)")
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--passes", type=int, default=5, help="timed passes (default 5)")
    ap.add_argument("--astar-passes", type=int, default=1,
                    help="of which A* runs in the first N (default 1)")
    ap.add_argument("--max-problems", type=int, default=1000,
                    help="problems per map, spread over the file (0: all; default 1000)")
    ap.add_argument("--maps", help="comma-separated maps (default: the target maps and "
                    + ", ".join(OTHER_MAPS) + ")")
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    names = args.maps.split(",") if args.maps else [*TARGET_MAPS, *OTHER_MAPS]
    t0 = time.perf_counter()
    results = {}
    for name in names:
        print(f"{name} ...", file=sys.stderr)
        results[name] = measure(data, name, args.passes, args.astar_passes,
                                args.max_problems)
    seconds = time.perf_counter() - t0

    targets, fastest, sections = [], [], []
    for name, res in results.items():
        best = res["best"]
        plus = best["jps_plus"].mean()
        winner = min(ONLINE, key=lambda m: best[m].mean())
        fastest.append([name, winner, fmt_us(best[winner].mean()),
                        *(fmt_x(best[m].mean() / plus) for m in ONLINE)])
        if name in TARGET_MAPS:
            ratio = best["jps"].mean() / plus
            targets.append([f"jps mean ÷ jps_plus mean, {name}", f"≤ {TARGET:g}×",
                            fmt_x(ratio), "met" if ratio <= TARGET else "not met"])
        h, w = res["grid"].shape
        sections.append(f"### {name} ({w}×{h}, {res['n']:,} of {res['total']:,} problems)\n\n"
                        + map_table(res))
    body = "\n\n".join([
        run_header("online_jps.py", argv, data, seconds),
        "Online jump point search scans its straight jumps on bit copies of the grid (56 "
        "cells per step, rows and columns, per direction the stop bits and a bit that says "
        "whether a cell's scan ends at a jump point); a diagonal jump scans a straight "
        "direction from one of its cells only where that bit is set or on the goal's row or "
        "column, going from one such cell to the next on a line of bits per diagonal, and "
        "makes the jump points found successors of the node expanded.  `jps` stops the "
        "diagonal at the first cell with such a successor (queued to continue the diagonal, "
        "or expanded at once when its f is the least); `jps2` runs it on to the wall, "
        "never queueing the cells where it turns.  Every method answers the same problems in "
        f"one process, in {args.passes} passes, each running the methods one after the other "
        f"over all the problems (A* in the first {args.astar_passes}); a problem's time is "
        "its fastest call (the whole Python call), the tables give the mean and median "
        "over the problems.  There is no StarCraft map in the data: the largest game-like "
        "map, cities/Boston_0_512, stands for the sc1-class map.",
        "### Targets",
        table(["target", "goal", "measured", "status"], targets),
        "### Fastest online variant per map",
        table(["map", "fastest", "its mean µs", *(f"{m} ÷ jps_plus (means)" for m in ONLINE)],
              fastest),
        *sections,
    ])
    publish(body, args.out, SECTION)


if __name__ == "__main__":
    main()
