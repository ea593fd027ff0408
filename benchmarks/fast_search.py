"""Fast optimal grid search against our own A*, on Moving AI scenarios, in one process.

Run from the repository root::

    python benchmarks/fast_search.py [--data DIR] [--out BENCHMARKS.md] [--quick]
                                     [--sets dao,mazes,...] [--gb-max-cells N]
                                     [--index-dir DIR]

Per map: every method of ``wayfinding.grid.methods`` answers every problem of the map's
scenario file; only the query call is timed (``time.perf_counter``), after one warm-up query.
Preprocessing is timed once per map (``index.build_time``) with its memory (``index.nbytes``).
Every cost is checked against the file's optimum.  Goal bounds need one flood per cell, so
they are built only on maps with at most ``--gb-max-cells`` passable cells.  With
``--index-dir``, indexes are read from ``DIR/<map>.<kind>.npz`` when such a file exists for the
map (``wayfinding index build`` writes them, resumably) and saved there after a build; the
preprocessing column then shows the time recorded when the index was built, and prebuilt goal
bounds are used whatever ``--gb-max-cells`` says.  A last table
compares canonical Dijkstra distance maps with plain Dijkstra ones.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _report import find_data_dir, fmt_us, fmt_x, publish, run_header, table

from wayfinding.grid import Grid, GridSearch, read_map, read_scen
from wayfinding.grid.index import GridIndex
from wayfinding.grid.methods import INDEX_SPECS, PREPROCESSED, make_solver

SECTION = "## Fast optimal grid search"
SETS = {
    "dao": ("dao/arena2", "dao/brc202d"),
    "mazes": ("mazes/maze512-1-0",),
    "random": ("random/random512-25-0",),
    "rooms": ("rooms/8room_000",),
    "cities": ("cities/Berlin_0_256",),
}
METHODS = ("astar", "jps", "jps_plus", "jps_plus_buckets", "astar_gb", "jps_plus_gb",
           "subgoal", "subgoal2", "astar_dh")
TARGETS = {"jps_plus": 100.0, "jps_plus_gb": 500.0, "subgoal2": 50.0}
REFERENCE_MEAN_US = {"dao/arena2": 14.0, "dao/brc202d": 80.0}


@dataclass
class MapRun:
    name: str
    grid: Grid
    problems: int
    times: dict[str, np.ndarray] = field(default_factory=dict)
    wrong: dict[str, int] = field(default_factory=dict)
    worst_excess: dict[str, float] = field(default_factory=dict)
    expanded: dict[str, float] = field(default_factory=dict)
    indexes: dict[str, GridIndex] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def index_file(kind: str, name: str, index_dir: Path | None) -> Path | None:
    return index_dir / f"{name.split('/')[-1]}.{kind}.npz" if index_dir else None


def has_file(kind: str, name: str, index_dir: Path | None) -> bool:
    path = index_file(kind, name, index_dir)
    return path is not None and path.exists()


def get_index(kind: str, grid: Grid, name: str, index_dir: Path | None) -> GridIndex:
    """Build the index, or read it from ``index_dir`` when a file for this map is there."""
    spec = INDEX_SPECS[kind]
    path = index_file(kind, name, index_dir)
    if path is not None and path.exists():
        index = spec.cls.load(path, grid)
        if spec.matches(index):
            print(f"  {name}: loaded {kind} from {path}", file=sys.stderr, flush=True)
            return index
    print(f"  {name}: building {kind}", file=sys.stderr, flush=True)
    extra = {"progress": sys.stderr.isatty()} if kind == "goal_bounds" else {}
    index = spec.build(grid, **extra)
    if path is not None:
        index.save(path)
    return index


def run_map(data: Path, name: str, limit: int | None, gb_max_cells: int,
            index_dir: Path | None = None) -> MapRun:
    scen = read_scen(data / "scenarios" / f"{name}.map.scen")
    grid = read_map(scen.find_map(search=[data / "maps" / name.split("/")[0]]))
    scen.check_map(grid)
    problems = scen.problems[:limit] if limit else scen.problems
    run = MapRun(name, grid, len(problems))
    cells = int(grid.passable.sum())
    for kind in INDEX_SPECS:
        if kind == "goal_bounds" and cells > gb_max_cells and not has_file(kind, name, index_dir):
            run.skipped[kind] = f"{cells:,} cells > --gb-max-cells {gb_max_cells:,}"
            continue
        run.indexes[kind] = get_index(kind, grid, name, index_dir)
    for method in METHODS:
        needs = PREPROCESSED[method].needs if method in PREPROCESSED else ()
        missing = [s.name for s in needs if s.name not in run.indexes]
        if missing:
            run.skipped[method] = "no " + ", ".join(missing) + " index"
            continue
        solve = make_solver(grid, method, indexes=[run.indexes[s.name] for s in needs])
        solve(problems[0].start, problems[0].goal)  # warm-up
        times = np.empty(len(problems))
        wrong, excess, expanded = 0, 0.0, 0
        for i, p in enumerate(problems):
            t0 = time.perf_counter()
            r = solve(p.start, p.goal)
            times[i] = time.perf_counter() - t0
            expanded += r.stats.expanded
            if not (r.found and p.matches(r.cost)):
                wrong += 1
                excess = max(excess, r.cost - p.optimal)
        run.times[method], run.wrong[method] = times, wrong
        run.worst_excess[method], run.expanded[method] = excess, expanded / len(problems)
        print(f"  {name}: {method:17s} median {np.median(times) * 1e6:9.1f} µs  mean "
              f"{np.mean(times) * 1e6:9.1f} µs  wrong {wrong}", file=sys.stderr, flush=True)
    return run


def index_for(method: str, run: MapRun) -> list[GridIndex]:
    needs = PREPROCESSED[method].needs if method in PREPROCESSED else ()
    return [run.indexes[s.name] for s in needs]


def map_table(run: MapRun) -> str:
    base = run.times["astar"]
    rows = []
    for method in METHODS:
        if method in run.skipped:
            rows.append([method] + ["–"] * 7 + [run.skipped[method]])
            continue
        t = run.times[method]
        ix = index_for(method, run)
        wrong = run.wrong[method]
        note = f"{wrong:,} not optimal (worst +{run.worst_excess[method]:.3f})" if wrong else ""
        rows.append([
            method, fmt_us(float(np.median(t))), fmt_us(float(np.mean(t))),
            fmt_x(float(np.median(base) / np.median(t))),
            fmt_x(float(np.mean(base) / np.mean(t))), f"{run.expanded[method]:,.0f}",
            f"{sum(i.build_time for i in ix):,.2f}" if ix else "–",
            f"{sum(i.nbytes for i in ix) / 2**20:,.1f}" if ix else "–",
            f"{run.problems - wrong:,}/{run.problems:,}" + (f" — {note}" if note else ""),
        ])
    h, w = run.grid.shape
    head = (f"### {run.name} ({w}×{h}, {int(run.grid.passable.sum()):,} passable cells, "
            f"{run.problems:,} problems)\n\n")
    return head + table(["method", "median µs", "mean µs", "speed-up (medians)",
                         "speed-up (means)", "mean expanded", "preprocessing s",
                         "index MiB", "optimal"], rows)


def canonical_rows(data: Path, names: list[str], sources: int) -> list[list[str]]:
    rows = []
    for name in names:
        grid = read_map(next((data / "maps").glob(f"*/{name.split('/')[1]}.map")))
        search = GridSearch(grid)
        free = np.argwhere(grid.passable)
        picks = free[np.linspace(0, len(free) - 1, sources).astype(int)]
        plain, canon = [], []
        for y, x in picks:
            for method, out in (("dijkstra", plain), ("canonical", canon)):
                t0 = time.perf_counter()
                d = search.distance_map((int(x), int(y)), method=method)
                out.append(time.perf_counter() - t0)
                if method == "dijkstra":
                    ref = d
            fin = np.isfinite(ref)
            if not (np.array_equal(fin, np.isfinite(d))
                    and np.allclose(d[fin], ref[fin], rtol=0, atol=1e-9)):
                sys.exit(f"{name}: canonical distances differ from Dijkstra's from {x},{y}")
        rows.append([name, f"{sources}", f"{np.median(plain) * 1e3:,.2f}",
                     f"{np.median(canon) * 1e3:,.2f}",
                     fmt_x(float(np.median(plain) / np.median(canon)))])
    return rows


def targets_table(runs: list[MapRun], canon: list[list[str]]) -> str:
    rows = []
    for method, goal in TARGETS.items():
        for run in runs:
            if not run.name.startswith("dao/"):
                continue
            if method not in run.times:
                rows.append([f"{method} speed-up over A* (means), {run.name}", f"≥ {goal:g}×",
                             "not run: " + run.skipped.get(method, "?"), "not met"])
                continue
            x = float(np.mean(run.times["astar"]) / np.mean(run.times[method]))
            rows.append([f"{method} speed-up over A* (means), {run.name}", f"≥ {goal:g}×",
                         fmt_x(x), "met" if x >= goal else "not met"])
    for run in runs:
        ref = REFERENCE_MEAN_US.get(run.name)
        if ref is not None and "jps_plus" in run.times:
            v = float(np.mean(run.times["jps_plus"])) * 1e6
            rows.append([f"JPS+ mean µs over the whole {run.name} scenario", f"≤ {ref:g}",
                         f"{v:.1f}", "met" if v <= ref else "not met"])
    for name, _, _, _, x in canon:
        if name.startswith(("dao/", "random/")):
            val = float(x.rstrip("×").replace(",", ""))
            rows.append([f"canonical Dijkstra speed-up over Dijkstra, {name}", "≥ 2×", x,
                         "met" if val >= 2 else "not met"])
    return table(["target", "goal", "measured", "status"], rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help=f"Markdown file whose '{SECTION}' section is replaced")
    ap.add_argument("--quick", action="store_true", help="first 100 problems per map")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated map sets")
    ap.add_argument("--gb-max-cells", type=int, default=60_000,
                    help="build goal bounds only on maps with at most this many passable cells")
    ap.add_argument("--index-dir", type=Path,
                    help="read prebuilt indexes from, and save new ones to, this folder")
    ap.add_argument("--sources", type=int, default=9,
                    help="sources per map for the distance-map comparison")
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    t0 = time.perf_counter()
    names = [n for s in args.sets.split(",") for n in SETS[s.strip()]]
    if args.index_dir:
        args.index_dir.mkdir(parents=True, exist_ok=True)
    runs = [run_map(data, n, 100 if args.quick else None, args.gb_max_cells, args.index_dir)
            for n in names]
    canon_maps = [n for n in names if n.startswith(("dao/", "random/", "rooms/"))]
    canon = canonical_rows(data, canon_maps, args.sources)
    parts = [
        run_header("fast_search.py", argv, data, time.perf_counter() - t0),
        "Every method answers every problem of the map's scenario file in one process; only "
        "the query call is timed, after one warm-up query.  Speed-ups divide our compiled A*'s "
        "time (`GridSearch`, octile, the same kernel as in the section above) by the method's, "
        "as ratios of medians and of means over the same problems.  Preprocessing and index "
        "memory are the indexes' `build_time` and `nbytes`; goal bounds are built on 2 worker "
        "processes.  Every cost is checked against the file's optimum (max(1e-3, 1e-5 × "
        "length)); `jps_plus_buckets` is approximate by design (cost ≤ optimum + 0.1).",
        "### Targets", targets_table(runs, canon),
        *(map_table(r) for r in runs),
        "### Canonical Dijkstra against Dijkstra (full distance maps)",
        "Median ms per map over evenly spread sources; both maps are checked equal.",
        table(["map", "sources", "Dijkstra ms", "canonical ms", "speed-up"], canon),
    ]
    body = "\n\n".join(parts)
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
