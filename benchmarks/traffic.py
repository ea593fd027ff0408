"""Traffic: the lattice planner's time per query and route A* on generated road grids.

Run from the repository root::

    python benchmarks/traffic.py [--out BENCHMARKS.md] [--quick]

Lattice: random node costs (integers 0-5, a fifth of the nodes unusable) on lattices of
S sets × L lanes, the 5 best paths from the middle lane with the worked example's step
costs (straight 1, lane change 2, one lane per step); wayfinding's ``plan_lattice`` against
scoring every path one by one (L^S paths, only where that stays under a second).  Routes:
``road_grid(N, N)`` (one lane each way, 100 apart, highways every 4th row and column, a
driver preferring highways ×0.6 and turning at 10 per radian) between random lane pairs;
``RoutePlanner.find_route`` with A* and with Dijkstra (the planner built once, timed apart),
and networkx's Dijkstra on the same lane graph (its edges built beforehand, not timed).
Medians per query.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time

import numpy as np
from _report import publish, run_header, table

SECTION = "## Traffic"


def enumerate_best(nodes: np.ndarray, start: int, k: int) -> list[tuple[float, tuple]]:
    n_sets, n_lanes = nodes.shape
    scored = []
    for lanes in itertools.product(range(n_lanes), repeat=n_sets):
        total, prev = 0.0, start
        for i, lane in enumerate(lanes):
            if abs(lane - prev) > 1:
                total = math.inf
                break
            total += (1.0 if lane == prev else 2.0) + nodes[i, lane]
            prev = lane
        scored.append((total, lanes))
    scored.sort()
    return [s for s in scored[:k] if s[0] < math.inf]


def lattice_rows(quick: bool) -> list[list[str]]:
    from wayfinding.traffic import LatticeCosts, plan_lattice

    sizes = ((5, 3), (8, 4), (10, 5)) if quick else ((5, 3), (8, 4), (10, 5), (20, 6), (40, 8))
    rng = np.random.default_rng(0)
    costs = LatticeCosts()
    rows = []
    for n_sets, n_lanes in sizes:
        queries = 20 if quick else 100
        mine, brute = [], []
        for q in range(queries):
            nodes = rng.integers(0, 6, (n_sets, n_lanes)).astype(float)
            nodes[rng.random(nodes.shape) < 0.2] = np.inf
            t0 = time.perf_counter()
            got = plan_lattice(nodes, n_lanes // 2, costs=costs, k=5)
            mine.append(time.perf_counter() - t0)
            if n_lanes ** n_sets <= 70_000 and q < 5:
                t0 = time.perf_counter()
                want = enumerate_best(nodes, n_lanes // 2, 5)
                brute.append(time.perf_counter() - t0)
                assert [p.cost for p in got] == [c for c, _ in want]
        paths = n_lanes ** n_sets
        rows.append([f"{n_sets} × {n_lanes}", f"{paths:,}" if paths < 10**9 else f"{paths:.1e}",
                     f"{np.median(mine) * 1e3:.3f}",
                     f"{np.median(brute) * 1e3:.1f}" if brute else "—"])
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def route_rows(quick: bool) -> list[list[str]]:
    import networkx as nx

    from wayfinding.traffic import DriverCosts, RoutePlanner, road_grid

    driver = DriverCosts(road_kind=(("highway", 0.6),), turn=10.0)
    rows = []
    for n in ((10, 20) if quick else (10, 20, 40)):
        net = road_grid(n, n, spacing=100.0, highway_every=4)
        g = nx.DiGraph()
        for lane in net.lanes:
            for nxt in net.successors_of(lane.id):
                b = net.lanes[nxt]
                da = lane.heading(at_end=True)
                db = b.heading(at_end=False)
                turn = math.acos(float(np.clip(da @ db, -1.0, 1.0)))
                cost = net.gap(lane.id, nxt) + b.length * driver.factor(b.type, b.kind,
                                                                        b.road) + 10.0 * turn
                g.add_edge(lane.id, nxt, weight=cost)
        t0 = time.perf_counter()
        planner = RoutePlanner(net, driver=driver)
        build = time.perf_counter() - t0
        rng = np.random.default_rng(1)
        pairs = rng.integers(0, len(net.lanes), (10 if quick else 30, 2))
        times: dict[str, list[float]] = {"astar": [], "dijkstra": [], "networkx": []}
        expanded: dict[str, list[int]] = {"astar": [], "dijkstra": []}
        for s, t in pairs.tolist():
            for method in ("astar", "dijkstra"):
                t0 = time.perf_counter()
                route = planner.find_route(s, t, method=method)
                times[method].append(time.perf_counter() - t0)
                expanded[method].append(route.stats.expanded)
            t0 = time.perf_counter()
            want = nx.dijkstra_path_length(g, s, t)
            times["networkx"].append(time.perf_counter() - t0)
            assert abs(want - route.cost) <= 1e-9 * max(1.0, want)
        rows.append([f"{n} × {n}", f"{len(net.lanes):,}", f"{build * 1e3:.1f}",
                     f"{np.median(times['astar']) * 1e3:.3f}",
                     f"{np.median(times['dijkstra']) * 1e3:.3f}",
                     f"{np.median(times['networkx']) * 1e3:.3f}",
                     f"{np.median(expanded['astar']):.0f}",
                     f"{np.median(expanded['dijkstra']):.0f}"])
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true", help="smaller lattices and grids")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    lattice, routes = lattice_rows(args.quick), route_rows(args.quick)
    body = "\n\n".join([
        run_header("traffic.py", argv, None, time.perf_counter() - t0),
        "Lattice planner, 5 best paths per query (random node costs, a fifth unusable, "
        "straight 1, lane change 2): median ms per query of `plan_lattice` and of scoring "
        "every lane sequence one by one (the same top 5 costs, checked).",
        table(["sets × lanes", "lane sequences", "plan_lattice ms", "enumeration ms"], lattice),
        "Route A* on `road_grid(N, N)` (highways ×0.6, turns 10 per radian), random lane "
        "pairs: the planner's one-off build, then median ms per query and nodes expanded, "
        "against networkx's Dijkstra on the same lane graph (same costs, checked).",
        table(["grid", "lanes", "planner build ms", "A* ms", "Dijkstra ms", "networkx ms",
               "A* expanded", "Dijkstra expanded"], routes)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
