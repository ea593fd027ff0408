"""Movement planning: A* over clip sequences toward a goal region, by world and resolution.

Run from the repository root::

    python benchmarks/movement_planning.py [--out BENCHMARKS.md] [--queries Q] [--quick]

The default biped catalogue (:func:`~wayfinding.planning.clips.default_clips`: standing,
walking at 1.4 m/s, running at 4 m/s; 17 clips) plans from standing at the origin facing +x
to Q seeded random goals (position tolerance 0.3 m, any heading and animation state) at a
given distance in an open plane, in a 30 m × 20 m room of 1 m grid cells with pillars, and on
a navigation mesh of the same room.  Each query runs at the default state resolution (0.05 m,
2.5°) and at the finest (1e-9, only coinciding states merge: the optimum), both with a
budget of 100,000 expansions: the median planning time and expansions, the share found, and
the median ratio of the default plan's duration to the optimum's (1 when the lattice loses
nothing).  A forward-only catalogue whose curvature is bounded (the heuristic then bounds
the turn to the goal region too) shows the median planning time and expansions and the
ratio of the planned root path's length to the Dubins length with that curvature (>= 1).
Maps with walls, where the straight line underestimates the way round: a 12 m × 8 m room
split by one wall and a generated 24 m × 24 m maze with 3 m corridors, as grids and as their
navigation meshes, one query across each at the defaults (the command line's): the
expansions, the time per expansion and the whole planning time (median of a few runs).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from _report import publish, run_header, table

from wayfinding.grid import Grid
from wayfinding.grid.generate import maze
from wayfinding.navmesh import NavMesh
from wayfinding.paths import turning_path
from wayfinding.planning.clips import Clip, ClipCatalogue, default_clips
from wayfinding.planning.movement import plan_movement

SECTION = "## Movement planning"
DISTANCES = (4.0, 8.0, 12.0)
QUICK_DISTANCES = (4.0, 8.0)
FINEST = {"position_resolution": 1e-9, "heading_resolution": 1e-9}
BUDGET = 100_000
PILLARS = [(8, 6), (8, 13), (15, 3), (15, 10), (15, 16), (22, 6), (22, 13)]


def room() -> tuple[Grid, NavMesh]:
    """A 30 x 20 m room with 2 x 2 m pillars, as a grid and as a navigation mesh."""
    free = np.ones((20, 30), dtype=bool)
    holes = []
    for x, y in PILLARS:
        free[y:y + 2, x:x + 2] = False
        holes.append([(x, y), (x + 2, y), (x + 2, y + 2), (x, y + 2)])
    mesh = NavMesh.build(outline=[(0, 0), (30, 0), (30, 20), (0, 20)], holes=holes)
    return Grid(free), mesh


def goals(world, start: np.ndarray, distance: float, n: int, seed: int) -> list[tuple]:
    """``n`` seeded goals at ``distance`` from ``start`` on the walkable area."""
    rng = np.random.default_rng(seed)
    out: list[tuple] = []
    while len(out) < n:
        a = rng.uniform(-math.pi, math.pi)
        g = start[:2] + distance * np.array([math.cos(a), math.sin(a)])
        if world is None or _walkable(world, g):
            out.append((float(g[0]), float(g[1]), 0.0))
    return out


def _walkable(world, p: np.ndarray) -> bool:
    if isinstance(world, NavMesh):
        return world.locate(p) >= 0
    cell = world.world_to_cell(p)
    return world.in_bounds(cell) and world.is_passable(cell) and \
        world.obstacle_distance[cell[1], cell[0]] >= 1


def row(name: str, world, start: tuple, distance: float, n: int) -> list[str]:
    clips = default_clips()
    times, expanded, finest_times, ratios, found = [], [], [], [], 0
    for goal in goals(world, np.array(start), distance, n, seed=int(distance * 10)):
        t = time.perf_counter()
        plan = plan_movement(world, clips, start, goal, position_tolerance=0.3,
                             max_expansions=BUDGET)
        times.append(time.perf_counter() - t)
        expanded.append(plan.stats.expanded)
        t = time.perf_counter()
        best = plan_movement(world, clips, start, goal, position_tolerance=0.3,
                             max_expansions=BUDGET, **FINEST)
        finest_times.append(time.perf_counter() - t)
        found += plan.found
        if plan.found and best.found:
            ratios.append(plan.time / best.time if best.time else 1.0)
    out = [name, f"{distance:g}", f"{np.median(times) * 1e3:.1f}", f"{np.median(expanded):,.0f}",
           f"{found}/{n}", f"{np.median(finest_times) * 1e3:.1f}",
           f"{np.median(ratios):.3f}" if ratios else "–",
           f"{max(ratios):.3f}" if ratios else "–"]
    print(f"  {out}", file=sys.stderr, flush=True)
    return out


def walled_room() -> Grid:
    """A 12 x 8 m room of 1 m cells split by a wall 2 m thick from its bottom edge up to
    6 m: the way across goes round the wall's end."""
    free = np.ones((8, 12), dtype=bool)
    free[0:6, 5:7] = False
    return Grid(free)


#: The maps with walls: name, map, start and goal poses.
WALLED = [
    ("12 × 8 m room, one wall", walled_room, (1.5, 1.5, 0.0), (10.5, 1.5, 0.0)),
    ("24 × 24 m maze, 3 m corridors", lambda: maze(24, 24, corridor=3, seed=0),
     (1.5, 1.5, 0.0), (21.5, 21.5, 0.0)),
]


def walled_rows(repeats: int) -> list[list[str]]:
    """One query across each map with walls, on its grid and on its navigation mesh, at the
    defaults of :func:`plan_movement`: expansions, microseconds per expansion, the median
    planning time, whether it was found and the plan's duration."""
    clips = default_clips()
    rows = []
    for name, make, start, goal in WALLED:
        grid = make()
        for kind, world in (("grid", grid), ("navmesh", NavMesh.build(grid))):
            times = []
            for _ in range(repeats):
                t = time.perf_counter()
                plan = plan_movement(world, clips, start, goal, max_expansions=BUDGET)
                times.append(time.perf_counter() - t)
            total = float(np.median(times))
            n = plan.stats.expanded
            out = [name, kind, f"{n:,}", f"{total / max(n, 1) * 1e6:.2f}",
                   f"{total * 1e3:.1f}", "yes" if plan.found else str(plan.status),
                   f"{plan.time:.2f}" if plan.found else "–"]
            print(f"  {out}", file=sys.stderr, flush=True)
            rows.append(out)
    return rows


def forward_arcs(kappa: float) -> ClipCatalogue:
    """Forward clips of 1 m whose root curvature is at most ``kappa``: straight, and arcs
    of curvature ``kappa`` and ``kappa / 2`` each way."""
    out = [Clip("straight", "w", "w", duration=1.0, dx=1.0)]
    for name, k in (("left", kappa), ("right", -kappa), ("soft_left", kappa / 2),
                    ("soft_right", -kappa / 2)):
        r = 1 / abs(k)
        out.append(Clip(name, "w", "w", duration=1.0, dx=r * math.sin(abs(k)),
                        dy=math.copysign(r * (1 - math.cos(k)), k), rotation=k))
    return ClipCatalogue(out)


def dubins_row(kappa: float, n: int) -> list[str]:
    clips = forward_arcs(kappa)
    ratios, expanded, times, found = [], [], [], 0
    headings = np.random.default_rng(8).uniform(-math.pi, math.pi, n)
    for goal, heading in zip(goals(None, np.zeros(3), 6.0, n, seed=7), headings.tolist()):
        t = time.perf_counter()
        plan = plan_movement(None, clips, (0, 0, 0), (goal[0], goal[1], heading),
                             start_state="w", position_tolerance=0.5, heading_tolerance=0.5,
                             position_resolution=0.1, heading_resolution=math.radians(5),
                             max_expansions=BUDGET)
        times.append(time.perf_counter() - t)
        expanded.append(plan.stats.expanded)
        if not plan.found:
            continue
        found += 1
        x, y, h = plan.poses[-1]
        d = turning_path((0, 0), (1, 0), (x, y), (math.cos(h), math.sin(h)),
                         radius=1 / kappa).length
        ratios.append(plan.length / d)
    out = [f"{kappa:g}", f"{np.median(times) * 1e3:.1f}", f"{np.median(expanded):,.0f}",
           f"{found}/{n}", f"{min(ratios):.3f}" if ratios else "–",
           f"{np.median(ratios):.3f}" if ratios else "–"]
    print(f"  {out}", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="two distances, 4 queries")
    args = ap.parse_args(argv)
    distances, n = (QUICK_DISTANCES, 4) if args.quick else (DISTANCES, max(args.queries, 1))
    t0 = time.perf_counter()
    grid, mesh = room()
    start = (4.0, 10.0, 0.0)
    rows = []
    for distance in distances:
        rows.append(row("open plane", None, start, distance, n))
        rows.append(row("grid room", grid, start, distance, n))
        rows.append(row("navmesh room", mesh, start, distance, n))
    dubins = [dubins_row(kappa, n) for kappa in (0.5, 1.0)]
    walled = walled_rows(3 if args.quick else 5)
    body = "\n\n".join([
        run_header("movement_planning.py", argv, None, time.perf_counter() - t0),
        f"`plan_movement` with the default biped catalogue from standing to {n} seeded goals "
        "at each distance (position tolerance 0.3 m, any heading and state; the room: 30 m × "
        "20 m with seven 2 m pillars, as 1 m grid cells and as a navigation mesh): median "
        "planning time and expansions at the default state resolution (0.05 m, 2.5°), the "
        "share found, the median time at the finest resolution (the optimum), and the median "
        "and largest ratio of the default plan's duration to the optimum's.",
        table(["world", "distance m", "ms", "expanded", "found", "finest ms",
               "duration / optimum", "worst"], rows),
        "Forward-only clips (1 m each: straight, and arcs of curvature κ and κ/2 each way) "
        "to goals 6 m away with a seeded heading (tolerances 0.5 m and 0.5 rad, states merged "
        "at 0.1 m and 5°): the median planning time and expansions (the heuristic takes the "
        "larger of the distance and 1/κ times the least turn to the goal region), and the "
        "planned root path's length over the Dubins length of radius 1/κ between the same "
        "poses (never below 1).",
        table(["κ 1/m", "ms", "expanded", "found", "min length / Dubins", "median"], dubins),
        "Maps with walls (1 m cells; the maze generated with seed 0), as grids and as their "
        "navigation meshes: one query across each, from standing at (1.5, 1.5) facing +x to "
        "the far side (the room: (10.5, 1.5); the maze: (21.5, 21.5)) at the defaults "
        "(position tolerance 0.25 m, any heading and state, 0.05 m and 2.5°, 100,000 "
        "expansions): the expansions, the time per expansion and the median planning time "
        "of a few runs.",
        table(["map", "world", "expanded", "µs / expansion", "ms", "found", "plan s"],
              walled),
    ])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
