"""Climbing: climb-graph build time and climb A* time on generated facades.

Run from the repository root::

    python benchmarks/climbing.py [--out BENCHMARKS.md] [--queries Q] [--quick]

A facade of B bays by F floors (bays 3 m wide, floors 3 m high, on the wall plane y = 0):
one ledge per bay and floor (2.4 m long, gaps of 0.6 m between bays, a random third of
them missing), a pipe up every third bay boundary over the full height and a ladder up the
first bay.  The default character (jumps 2 m, rises 1 m, drops 3 m).  Build: the median of
3 builds of :func:`~wayfinding.climbing.build_climb_graph`.  Search: Q queries between
random points along random elements (the same seeded queries for A* and Dijkstra), the
median time of :func:`~wayfinding.climbing.find_climb_path` and the share found.
Generated walls (:func:`~wayfinding.climbing.climbing_wall`): build time, the ground-to-roof
climb's length and its spline's, and an AI climbing it under the shared processor.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from _report import publish, run_header, table

from wayfinding.climbing import (
    ClimbFollower,
    ClimbPosition,
    ClimbProcessor,
    ClimbSpline,
    ElementKind,
    TraversalElement,
    build_climb_graph,
    climbing_wall,
    find_climb_path,
)

SECTION = "## Climbing"
CASES = ((5, 5), (10, 10), (20, 20))
QUICK = ((5, 5), (10, 10))
#: Generated walls (bays, floors) and their seeds: climbs from the ground to the roof.
WALLS = ((6, 4), (12, 8), (24, 16))
QUICK_WALLS = ((6, 4),)
SEEDS = range(5)
DT = 0.1


def facade(bays: int, floors: int, seed: int = 0) -> list[TraversalElement]:
    rng = np.random.default_rng(seed)
    out = []
    for f in range(floors):
        for b in range(bays):
            if rng.random() < 1 / 3:
                continue
            x, z = 3.0 * b + 0.3, 3.0 * f + 2.0
            out.append(TraversalElement(ElementKind.LEDGE, [(x, 0, z), (x + 2.4, 0, z)]))
    top = 3.0 * floors + 1.0
    for b in range(0, bays + 1, 3):
        out.append(TraversalElement(ElementKind.PIPE, [(3.0 * b, 0, 0), (3.0 * b, 0, top)]))
    out.append(TraversalElement(ElementKind.LADDER, [(1.5, 0, 0), (1.5, 0, top)]))
    return out


def wall_row(bays: int, floors: int) -> list[str]:
    """One row of the generated-wall table: medians over :data:`SEEDS`."""
    builds, lengths, ratios, arrived, plans, updates, sizes = [], [], [], 0, [], [], []
    for seed in SEEDS:
        wall = climbing_wall(bays=bays, floors=floors, seed=seed)
        t = time.perf_counter()
        g = wall.graph()
        builds.append(time.perf_counter() - t)
        sizes.append((len(wall.elements), g.num_nodes))
        roof = wall.position("roof")
        path = find_climb_path(g, wall.clues(g), roof)
        lengths.append(path.length)
        ratios.append(ClimbSpline(path.points).length / path.length)
        mover, ai = ClimbProcessor(g, int(path.nodes[1])), ClimbFollower(g, roof)
        t, steps = time.perf_counter(), 0
        while steps < 20000:
            steps += 1
            state = mover.step(ai.stick(mover.state), DT)
            if np.linalg.norm(state.position - path.points[-1]) <= ai.arrive:
                arrived += 1
                break
        updates.append((time.perf_counter() - t) / steps)
        plans.append(ai.plans)
    row = [f"{bays} × {floors}", f"{int(np.median([s[0] for s in sizes])):,}",
           f"{int(np.median([s[1] for s in sizes])):,}", f"{np.median(builds) * 1e3:.1f}",
           f"{np.median(lengths):.1f}", f"{np.median(ratios):.3f}",
           f"{arrived}/{len(SEEDS)}", f"{np.mean(plans):.1f}",
           f"{np.median(updates) * 1e6:.0f}"]
    print(f"  {row}", file=sys.stderr, flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--quick", action="store_true", help="two small facades, 30 queries")
    args = ap.parse_args(argv)
    cases, queries = (QUICK, 30) if args.quick else (CASES, max(args.queries, 1))
    t0, rows = time.perf_counter(), []
    for bays, floors in cases:
        els = facade(bays, floors)
        builds = []
        for _ in range(3):
            t = time.perf_counter()
            g = build_climb_graph(els)
            builds.append(time.perf_counter() - t)
        rng = np.random.default_rng(1)
        pairs = []
        for _ in range(queries):
            i, j = rng.integers(len(els), size=2)
            pairs.append((ClimbPosition(int(i), float(rng.uniform(0, els[i].length))),
                          ClimbPosition(int(j), float(rng.uniform(0, els[j].length)))))
        times: dict[str, list[float]] = {"astar": [], "dijkstra": []}
        found = 0
        for method, spent in times.items():
            for s, e in pairs:
                t = time.perf_counter()
                r = find_climb_path(g, s, e, method=method)
                spent.append(time.perf_counter() - t)
                found += r.found and method == "astar"
        rows.append([f"{bays} × {floors}", f"{len(els):,}", f"{g.num_nodes:,}",
                     f"{len(g.edges):,}", f"{g.num_links:,}",
                     f"{np.median(builds) * 1e3:.1f}",
                     f"{np.median(times['astar']) * 1e3:.3f}",
                     f"{np.median(times['dijkstra']) * 1e3:.3f}",
                     f"{found / len(pairs):.0%}"])
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    walls = [wall_row(bays, floors) for bays, floors in
             (QUICK_WALLS if args.quick else WALLS)]
    body = "\n\n".join([
        run_header("climbing.py", argv, None, time.perf_counter() - t0),
        "Climb graphs of generated facades (bays × floors of 3 m; ledges with a third "
        "missing, a pipe every third bay, one ladder) for the default character, and climb "
        f"searches between {len(pairs)} random points along elements: median build time "
        "(3 builds), median query time of A* and Dijkstra (both exact), share of queries "
        "with a route.",
        table(["facade", "elements", "nodes", "edges", "jump/drop links", "build ms",
               "A* ms", "Dijkstra ms", "found"], rows),
        f"Generated climbing walls (`climbing_wall`, seeds {SEEDS.start}–{SEEDS.stop - 1}), "
        "climbs from the ground (the cheapest clue link) to the middle of the roof: median "
        "build time, the path's length, its Bézier spline's length against it, and an AI "
        f"climbing it (`ClimbFollower` driving `ClimbProcessor`, {DT:g} s updates): the share "
        "that reached the goal, their plans per climb, and the median time of one update "
        "(stick and step).",
        table(["wall", "elements", "nodes", "build ms", "path m", "spline / path",
               "AI arrived", "plans", "update µs"], walls)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
