"""Planning with multiple domains of control: plan quality against the grid optimum,
space-time tunnels and an agent's frames.

Run from the repository root::

    python benchmarks/multidomain.py [--out BENCHMARKS.md] [--quick]

World families (an agent of radius 0.3 on unit cells):

- ``open``: 24 × 16 grids with 7 random blocks of 1–4 × 1–4 cells (the two leftmost and
  rightmost columns free), meshes built from the grids, crossing from the left edge to the
  right;
- ``blocks``: 40 × 30 grids with 25 random blocks of up to 7 × 7 cells, meshes built from
  the grids, between two random free cells joined by a path
  (``wayfinding.grid.worlds.blocks_world``);
- ``radius``: the ``open`` worlds with meshes built for the agent's radius.

``plan_multidomain`` plans Σ1 → Σ2 (no density) → Σ3 waypoint legs until every task is
optimal; its cost over the exact grid optimum (compiled Dijkstra on the same grid domain)
is the factor the decomposition gives up.  The same agent then walks (no budget, two
tasks a frame, Σ1–Σ3): the frames until it stands on its goal, beyond the optimum's
cells.  Tunnels: the same worlds' Σ4 problems (one cell per step, the
Σ3 path's tunnel ±1 cell, ±2 steps) searched optimally with and without the tunnel.
Frames: an agent walking across with Σ4 and one crossing entity, ``max_seconds`` 10 ms
per frame (t_max of the notes), at most 2 tasks per frame.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from _report import publish, run_header, table

from wayfinding.grid import Grid
from wayfinding.grid.worlds import blocks_world
from wayfinding.navmesh import NavMesh
from wayfinding.planning.domain_grid import GridDomain
from wayfinding.planning.domain_maps import Tunnel, time_assignment
from wayfinding.planning.domain_navmesh import DensityDomain, NavMeshDomain
from wayfinding.planning.domain_spacetime import PublishedPath, SpaceTimeDomain
from wayfinding.planning.multidomain import MultiDomainPlanner, plan_multidomain
from wayfinding.planning.tasks import SpaceTimeTask
from wayfinding.search import find_path

SECTION = "## Multi-domain planning"
WORLDS, QUICK_WORLDS = 200, 20
TUNNELS, QUICK_TUNNELS = 30, 5
WALKS, QUICK_WALKS = 10, 2
FRAME_SECONDS = 0.010


def random_world(seed: int, w: int = 24, h: int = 16, blocks: int = 7) -> Grid:
    rng = np.random.default_rng(seed)
    free = np.ones((h, w), dtype=bool)
    for _ in range(blocks):
        x, y = rng.integers(2, w - 4), rng.integers(0, h - 3)
        free[y:y + rng.integers(1, 5), x:x + rng.integers(1, 5)] = False
    free[:, :2] = True
    free[:, -2:] = True
    return Grid(free)


def endpoints(seed: int) -> tuple[tuple[float, float], tuple[float, float]]:
    return (0.5, 0.5 + seed % 16), (23.5, 15.5 - (seed * 7) % 16)


def domains(grid: Grid) -> tuple[NavMeshDomain, DensityDomain, GridDomain]:
    mesh = NavMesh.build(grid)
    return (NavMeshDomain(mesh), DensityDomain(mesh, np.zeros(mesh.num_polygons)),
            GridDomain(grid, radius=0.3))


FAMILIES = ("open", "blocks", "radius")


def family(name: str, seed: int) -> tuple[NavMeshDomain, DensityDomain, GridDomain,
                                          tuple[float, float], tuple[float, float]]:
    """World ``seed`` of the family ``name``: its Σ1–Σ3 domains, start and goal."""
    if name == "blocks":
        grid, start, goal = blocks_world(40, 30, seed=seed)
    else:
        grid = random_world(seed)
        start, goal = endpoints(seed)
    mesh = NavMesh.build(grid, radius=0.3) if name == "radius" else NavMesh.build(grid)
    return (NavMeshDomain(mesh), DensityDomain(mesh, np.zeros(mesh.num_polygons)),
            GridDomain(grid, radius=0.3), start, goal)


def factor_row(name: str, n: int) -> list[str]:
    ratios, plan_s, exact_s, legs, extra = [], [], [], [], []
    for seed in range(n):
        s1, s2, s3, start, goal = family(name, seed)
        t = time.perf_counter()
        plan = plan_multidomain(s1, s2, s3, start, goal)
        plan_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        best = find_path(s3.current, s3.state(start), s3.state(goal), method="dijkstra")
        exact_s.append(time.perf_counter() - t)
        if not best.found:
            continue
        assert plan.cost >= best.cost - 1e-9, (name, seed, plan.cost, best.cost)
        ratios.append(plan.cost / best.cost if best.cost > 0 else 1.0)
        legs.append(len(plan.legs))
        planner = MultiDomainPlanner(s1, s2, s3, start, goal)
        frames = 0
        while planner.cell != planner.goal_cell and frames < 10_000:
            planner.frame()
            frames += 1
        extra.append(frames - len(best.path) + 1 if planner.cell == planner.goal_cell
                     else math.inf)
    r, x = np.array(ratios), np.array(extra)
    return [name, f"{len(r)}", f"{r.min():.3f}", f"{r.mean():.3f}", f"{np.median(r):.3f}",
            f"{np.percentile(r, 95):.3f}", f"{r.max():.3f}", f"{(r > 1.5).sum()}",
            f"{np.mean(legs):.1f}", f"{np.median(plan_s) * 1e3:.1f}",
            f"{np.median(exact_s) * 1e6:.0f}", f"{np.isfinite(x).sum()}/{len(x)}",
            f"{np.median(x):.0f}", f"{x.max():.0f}"]


def tunnel_rows(n: int) -> list[str]:
    free_x, in_x, free_g, in_g, costs = [], [], [], [], []
    for seed in range(n):
        _, _, s3 = domains(random_world(seed))
        st = SpaceTimeDomain(s3, speed_weight=0.0, horizon=120)
        a, b = (s3.state(p) for p in endpoints(seed))
        path = find_path(s3.current, a, b).path
        if not len(path):
            continue
        pts = s3.positions(path)
        length = float(np.hypot(*np.diff(pts, axis=0).T).sum())
        arrive = math.ceil(length / (2.0 * st.dt))           # one cell per step
        tunnel = Tunnel(path, time_assignment(pts, 0, arrive), dx=1, dk=2)
        start = (a[0], a[1], 0, 0, 0)
        runs = []
        for tun in (None, tunnel):
            task = SpaceTimeTask(st, start, b, tunnel=tun, arrive=arrive, epsilon=1.0)
            task.run()
            runs.append(task.plan)
        free_x.append(runs[0].stats.expanded)
        in_x.append(runs[1].stats.expanded)
        free_g.append(runs[0].stats.generated / max(runs[0].stats.expanded, 1))
        in_g.append(runs[1].stats.generated / max(runs[1].stats.expanded, 1))
        costs.append(runs[1].cost / runs[0].cost)
    return [f"{len(free_x)}", f"{np.mean(free_x):,.0f}", f"{np.mean(in_x):,.0f}",
            f"{np.mean(np.array(free_x) / np.array(in_x)):.1f}×", f"{np.mean(free_g):.2f}",
            f"{np.mean(in_g):.2f}", f"{np.mean(costs):.3f}", f"{np.max(costs):.3f}"]


def walk_rows(n: int) -> list[str]:
    first, arrive, ms, tasks = [], [], [], []
    for seed in range(n):
        grid = random_world(seed)
        mesh = NavMesh.build(grid)
        s3 = GridDomain(grid, radius=0.3)
        crossing = PublishedPath([(12.5, -4.0), (12.5, 20.0)], [0.0, 12.0], 0.4)
        s4 = SpaceTimeDomain(s3, entities=[crossing])
        start, goal = endpoints(seed)
        planner = MultiDomainPlanner(NavMeshDomain(mesh),
                                     DensityDomain(mesh, np.zeros(mesh.num_polygons)), s3,
                                     start, goal, spacetime=s4, speed=2.0)
        moved_at = None
        for frame in range(400):
            report = planner.frame(max_seconds=FRAME_SECONDS)
            ms.append(report.seconds * 1e3)
            tasks.append(len(report.tasks))
            if report.moved and moved_at is None:
                moved_at = frame
            if planner.cell == planner.goal_cell:
                arrive.append(frame + 1)
                break
        first.append(moved_at if moved_at is not None else math.inf)
    return [f"{n}", f"{np.median(first):.0f}", f"{len(arrive)}/{n}",
            f"{np.median(arrive) if arrive else math.inf:.0f}", f"{np.median(ms):.2f}",
            f"{np.percentile(ms, 99):.2f}", f"{max(ms):.2f}", f"{max(tasks)}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true", help="fewer worlds")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    factors = []
    for name in FAMILIES:
        factors.append(factor_row(name, QUICK_WORLDS if args.quick else WORLDS))
        print(f"  {factors[-1]}", file=sys.stderr, flush=True)
    tunnels = tunnel_rows(QUICK_TUNNELS if args.quick else TUNNELS)
    print(f"  {tunnels}", file=sys.stderr, flush=True)
    walks = walk_rows(QUICK_WALKS if args.quick else WALKS)
    print(f"  {walks}", file=sys.stderr, flush=True)
    body = "\n\n".join([
        run_header("multidomain.py", argv, None, time.perf_counter() - t0),
        "Settled multi-domain plans (Σ1 → Σ2 → Σ3 waypoint legs, every task optimal) per "
        "world family (`open`: 24 × 16 with 7 blocks of up to 4 × 4, left edge to right "
        "edge; `blocks`: 40 × 30 with 25 blocks of up to 7 × 7, random ends; `radius`: "
        "`open` with meshes built for the agent's radius), agent radius 0.3: their cost "
        "over the exact optimum on the same grid domain (never below 1; the factor is "
        "empirical, for these families), how many worlds exceed 1.5, the number of Σ3 "
        "legs, the median time of the whole plan and of one compiled Dijkstra on the "
        "grid; then the agent walking (no budget, two tasks a frame): how many arrive "
        "and the frames beyond the optimum's steps (median, max).",
        table(["family", "worlds", "min", "mean", "median", "p95", "max", "> 1.5", "legs",
               "plan ms", "Dijkstra µs", "arrived", "extra frames", "max"], factors),
        "Σ4 tunnels: the same crossings searched optimally in space-time (one cell per "
        "0.5 s step, arrival at that pace) without and within the tunnel of the Σ3 path "
        "(±1 cell, ±2 steps): mean nodes expanded, the mean ratio, the effective "
        "branching (generated per expanded) and the tunnel plan's energy over the free "
        "optimum (mean, max).",
        table(["problems", "expanded free", "in tunnel", "ratio", "branching free",
               "in tunnel", "cost mean", "cost max"], [tunnels]),
        f"An agent's frames (Σ1–Σ4, one entity crossing its way, `max_seconds` "
        f"{FRAME_SECONDS * 1e3:.0f} ms per frame, at most 2 tasks per frame with T0): the "
        "frame of its first step (it stands still until then), how many walks reached the "
        "goal within 400 frames and in how many frames, and the frame time (median, 99th "
        "percentile, max) in ms.",
        table(["walks", "first step", "arrived", "frames", "median ms", "p99 ms", "max ms",
               "tasks/frame"], [walks])])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
