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

Regions: the same grids cut into square tiles of 10 × 10 junctions, and cut into three areas
(the west half, the north-east and the south-east quarters) joined only by every 8th road
across each border (the driver avoids the others: the bridges); ``RegionRoutes.find_route``
exact and one-bridge against the flat ``RoutePlanner.find_route`` (A*) on the same random
pairs: median ms, the flat time over the hierarchical one (> 1: faster), and the one-bridge
cost over the optimum (exact costs checked equal to the flat ones).  Optimiser: a straight
two-lane road with a slow car ahead in the car's lane, the 5 best paths of ``lattice_step``
(8 sets 10 apart; the drivers' clearance 3 is both the lattice's near-car distance and the
cars' field radius) as seeds, ``optimise_trajectory`` over 3 s at 20 frames per second with up
to 4 iterations per seed, for random car positions and speeds: median ms per plan, the
chosen path's cost over its seed's, iterations, and plans whose seed collided against plans
still colliding after optimising.

Simulation: ``Traffic`` on ``road_grid(40, 40)`` (100 apart) with C cars, N of them in the
lanes within 100 of the focus point (levels: the lattice within 150) and the rest over 400
away, drivers and goals at random, at most 10 plans asked per step; the cars are placed,
stepped 5 times, then 20 steps of 0.1 s are timed (``--quick``: fewer cars and steps), one
step every 50 ms of wall time as a game's frames would (the worker threads plan in between).
Mean and largest wall ms per step, plans applied and dropped (too old) per simulated second,
with planning inline (0 threads) and on 2 worker threads (the step then only asks and
collects).
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


def three_areas(n: int) -> tuple[np.ndarray, frozenset[int]]:
    """Regions of ``road_grid(n, n)`` (spacing 100): west half, north-east, south-east; and
    the roads across a border that are not bridges (every 8th crossing road is one)."""
    from wayfinding.traffic import road_grid

    net = road_grid(n, n, spacing=100.0, highway_every=4)
    half = (n - 1) * 100.0 / 2
    road_area = []
    for _, lanes in net.roads:
        mid = net.lanes[lanes[0]].points.mean(axis=0)
        road_area.append(0 if mid[0] < half else 1 if mid[1] < half else 2)
    ends = [net.lanes[lanes[0]].points[[0, -1]] for _, lanes in net.roads]
    area_of = np.array([0 if x < half else 1 if y < half else 2
                        for x, y in (e.mean(axis=0) for e in ends)])

    def side(p: np.ndarray) -> int:
        return 0 if p[0] < half else 1 if p[1] < half else 2

    crossing = [r for r, e in enumerate(ends) if side(e[0]) != side(e[1])]
    avoid = frozenset(r for i, r in enumerate(crossing) if i % 8)
    regions = np.array([area_of[net.lanes[i].road] for i in range(len(net.lanes))])
    return regions, avoid


def region_rows(quick: bool) -> list[list[str]]:
    from wayfinding.traffic import (
        DriverCosts,
        RegionRoutes,
        RoutePlanner,
        regions_by_tiles,
        road_grid,
    )

    rows = []
    for n in ((20, 40) if quick else (20, 40, 80)):
        net = road_grid(n, n, spacing=100.0, highway_every=4)
        for cut in ("tiles", "3 areas"):
            if cut == "tiles":
                regions, avoid = regions_by_tiles(net, size=1000.0), frozenset()
            else:
                regions, avoid = three_areas(n)
            driver = DriverCosts(road_kind=(("highway", 0.6),), turn=10.0, avoid_roads=avoid)
            planner = RoutePlanner(net, driver=driver)
            t0 = time.perf_counter()
            routes = RegionRoutes(planner, regions)
            build = time.perf_counter() - t0
            rng = np.random.default_rng(2)
            times: dict[str, list[float]] = {"flat": [], "exact": [], "one_bridge": []}
            ratio = []
            for s, t in rng.integers(0, len(net.lanes), (20 if quick else 60, 2)).tolist():
                t0 = time.perf_counter()
                flat = planner.find_route(s, t)
                times["flat"].append(time.perf_counter() - t0)
                for method in ("exact", "one_bridge"):
                    t0 = time.perf_counter()
                    got = routes.find_route(s, t, method=method)
                    times[method].append(time.perf_counter() - t0)
                    if method == "exact":
                        assert got.found == flat.found
                        assert not flat.found or abs(got.cost - flat.cost) <= 1e-9 * flat.cost
                    elif got.found and flat.cost > 0:
                        ratio.append(got.cost / flat.cost)
            med = {k: float(np.median(v)) for k, v in times.items()}
            rows.append([f"{n} × {n}", cut, f"{int(regions.max()) + 1}",
                         f"{len(routes.bridges):,}", f"{build * 1e3:.0f}",
                         f"{med['flat'] * 1e3:.3f}", f"{med['exact'] * 1e3:.3f}",
                         f"{med['flat'] / med['exact']:.2f}",
                         f"{med['one_bridge'] * 1e3:.3f}",
                         f"{med['flat'] / med['one_bridge']:.2f}",
                         f"{len(ratio)}/{len(times['flat'])}",
                         f"{np.median(ratio):.3f} / {max(ratio):.3f}" if ratio else "—"])
            print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def optimiser_rows(quick: bool) -> list[list[str]]:
    from wayfinding.traffic import (
        DriverCosts,
        LaneSpec,
        RoadField,
        RoadNetwork,
        Trajectory,
        lattice_seeds,
        lattice_step,
        optimise_trajectory,
    )

    net = RoadNetwork()
    net.add_road([[0, 0], [400, 0]], [LaneSpec(offset=-1.75), LaneSpec(offset=1.75)])
    start = np.array([0.0, -1.75])
    rng = np.random.default_rng(3)
    rows = []
    for name, driver in (("default", DriverCosts(clearance=3.0)),
                         ("timid", DriverCosts(car_avoidance=3.0, desired_speed=12.0,
                                               clearance=3.0)),
                         ("reckless", DriverCosts(car_avoidance=0.3, desired_speed=20.0,
                                                  clearance=3.0))):
        field = RoadField(net, car=start, heading=0.0, length=100.0, width=10.0, cell=0.5,
                          driver=driver)
        spent, gain, fixed, rounds, hit_before, hit_after = [], [], [], [], 0, 0
        plans = 10 if quick else 40
        for _ in range(plans):
            x, y, v = rng.uniform(15, 40), rng.uniform(-2.6, -0.9), rng.uniform(0, 6)
            slow = Trajectory([[x, y], [x + 100, y]], [v, v])
            t0 = time.perf_counter()
            step = lattice_step(net, 0, forward=True, driver=driver, cars=[slow], n_sets=8,
                                spacing=10.0, k=5)
            cars = step.cars
            seeds = lattice_seeds(start, step.positions[1:], step.paths, driver=driver)
            plan = optimise_trajectory(seeds, start=start, heading=0.0, speed=15.0,
                                       field=field, driver=driver, cars=cars)
            spent.append(time.perf_counter() - t0)
            gain.append(plan.cost / plan.seed_costs[plan.seed])
            rounds.append(plan.iterations)
            first = optimise_trajectory(seeds[plan.seed:plan.seed + 1], start=start,
                                        heading=0.0, speed=15.0, field=field, driver=driver,
                                        cars=cars, max_iterations=0)
            hit_before += first.collisions > 0
            hit_after += plan.collisions > 0
            if first.collisions:
                fixed.append(gain[-1])
        rows.append([name, f"{plans}", f"{np.median(spent) * 1e3:.1f}",
                     f"{np.median(gain):.3f} / {min(gain):.3f}",
                     f"{np.median(fixed):.3f}" if fixed else "—",
                     f"{np.median(rounds):.0f} / {max(rounds)}",
                     f"{hit_before} → {hit_after}"])
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def simulation_rows(quick: bool) -> list[list[str]]:
    from wayfinding import InvalidQueryError
    from wayfinding.traffic import Traffic, road_grid

    side = 40
    net = road_grid(side, side, spacing=100.0)
    focus = np.array([side // 2 * 100.0 + 50.0, side // 2 * 100.0])
    middle = np.array([lane.points[len(lane.points) // 2] for lane in net.lanes])
    gap = np.hypot(*(middle - focus).T)
    close, away = np.flatnonzero(gap < 100.0), np.flatnonzero(gap > 400.0)
    names = ("cautious", "normal", "reckless")
    counts = (100, 1000) if quick else (100, 1000, 5000)
    nears = (0, 10) if quick else (0, 10, 50)
    timed = 10 if quick else 20
    rows = []
    for count, near, threads in itertools.product(counts, nears, (0, 2)):
        rng = np.random.default_rng(count + near)
        with Traffic(net, threads=threads, lattice_within=150.0, max_asks=10) as traffic:
            for i in range(count):
                lanes = close if i < near else away
                lane = int(lanes[rng.integers(lanes.size)])
                goal, at = int(rng.integers(len(net.lanes))), float(rng.uniform(0.0, 60.0))
                try:
                    traffic.add_car(lane, driver=names[i % 3], goal=goal, at=at)
                except InvalidQueryError:       # a goal this driver cannot reach
                    traffic.add_car(lane, driver=names[i % 3], at=at)
            steps = []
            for _ in range(5 + timed):
                frame = time.perf_counter()
                steps.append(traffic.step(focus))
                time.sleep(max(frame + 0.05 - time.perf_counter(), 0.0))
            steps = steps[5:]
        spent = [s.elapsed for s in steps]
        planning = np.mean([s.lattice + s.full for s in steps])
        seconds = timed * traffic.dt
        rows.append([f"{count:,}", f"{planning:.0f}", f"{threads}",
                     f"{np.mean(spent) * 1e3:.1f}", f"{max(spent) * 1e3:.1f}",
                     f"{sum(s.applied for s in steps) / seconds:.0f}",
                     f"{sum(s.dropped for s in steps) / seconds:.0f}"])
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true", help="smaller lattices and grids")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    lattice, routes = lattice_rows(args.quick), route_rows(args.quick)
    regions, optimiser = region_rows(args.quick), optimiser_rows(args.quick)
    simulation = simulation_rows(args.quick)
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
               "A* expanded", "Dijkstra expanded"], routes),
        "Routes over regions linked by bridges (`RegionRoutes`) against the flat route A* on "
        "the same pairs: tiles of 10 × 10 junctions, or three areas joined by every 8th "
        "crossing road.  Exact costs equal the flat ones (checked); speed-up = flat ms / "
        "hierarchical ms; the one-bridge scheme's cost over the optimum where it finds a "
        "route (it finds none when no bridge joins the two regions directly).",
        table(["grid", "regions", "count", "bridges", "build ms", "flat A* ms", "exact ms",
               "exact speed-up", "one-bridge ms", "one-bridge speed-up",
               "one-bridge found", "one-bridge cost ratio median / max"], regions),
        "Trajectory optimiser: 5 lattice seeds, 3 s at 20 frames per second, up to 4 "
        "iterations each, a slow car ahead at a random place and speed; ms per plan (lattice "
        "costs, seeds and optimisation), the chosen path's cost over its seed's (over all "
        "plans, and over those whose seed collides), accepted "
        "iterations, and plans whose seed collides → plans still colliding.",
        table(["driver", "plans", "ms per plan", "cost ratio median / min",
               "cost ratio median where the seed collides",
               "iterations median / max", "seed collides → optimised collides"],
              optimiser),
        "Traffic simulation on `road_grid(40, 40)`: cars, those planning near the focus "
        "point (lattice level), planning threads (0: inline), mean and largest ms per step "
        "of 0.1 s (one step each 50 ms), plans applied and dropped per simulated second.",
        table(["cars", "near cars", "threads", "mean ms per step", "max ms per step",
               "plans per s", "dropped per s"], simulation)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
