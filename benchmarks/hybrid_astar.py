"""Hybrid A* for a car: planner time and path length against two lower bounds.

Run from the repository root::

    python benchmarks/hybrid_astar.py [--out BENCHMARKS.md] [--quick]

Generated 64 × 64 maps (caves; rooms 10 to 18 on a side joined by corridors 5 wide; two
seeds each) and a car 3 long, 1.5 wide, turning
radius 4 (cell size 1).  Per map, random pose pairs where the car fits, at least 20 apart
and joined by a path of the car's centre; per pair, the median planner time of three runs of
``plan_car_path`` (reverse allowed, cost factor 1) — the search alone (its
``stats.elapsed``) and the whole call (with the set-up: the car's rectangle on the world and
the holonomic distances to the goal) — and its length divided by the two lower bounds of
``car_path_bounds``: the obstacle-free Reeds–Shepp length and the holonomic optimum (grid
A*, 8-connected without corner cutting, over the cells whose centre is at least half the
car's width from every blocked cell's centre).  Medians per map kind; the rooms once more
as the navigation mesh built from the grid (``NavMesh.build(grid)``), same pairs and the
same bounds.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable

import numpy as np
from _report import publish, run_header, table

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.grid.generate import caves, rooms
from wayfinding.navmesh import NavMesh
from wayfinding.vehicles import car_path_bounds, plan_car_path

SECTION = "## Hybrid A* (cars)"
CAR = {"turning_radius": 4.0, "length": 3.0, "width": 1.5}
MAPS = {"caves": lambda seed: caves(64, 64, seed=seed),
        "rooms": lambda seed: rooms(64, 64, rooms=8, room_size=(10, 18), corridor=5,
                                    seed=seed)}


def fits(grid: Grid, pose: np.ndarray) -> bool:
    """Whether the planner takes ``pose`` for the car (a search of no expansions)."""
    try:
        plan_car_path(grid, pose, pose, **CAR, max_expansions=0)
    except InvalidQueryError:
        return False
    return True


def pairs(grid: Grid, n: int, seed: int
          ) -> list[tuple[np.ndarray, np.ndarray, tuple[float, float]]]:
    """``n`` random pose pairs where the car fits, at least 20 apart and joined by a
    holonomic path, each with its two lower bounds."""
    rng = np.random.default_rng(seed)
    out: list[tuple[np.ndarray, np.ndarray, tuple[float, float]]] = []
    while len(out) < n:
        a, b = (np.array([*rng.uniform(2, 62, 2), rng.uniform(-math.pi, math.pi)])
                for _ in range(2))
        if math.dist(a[:2], b[:2]) >= 20 and fits(grid, a) and fits(grid, b):
            bounds = car_path_bounds(grid, a, b, turning_radius=CAR["turning_radius"],
                                     width=CAR["width"])
            if math.isfinite(bounds[1]):
                out.append((a, b, bounds))
    return out


def measure(kind: str, make: Callable[[int], Grid], seeds: tuple[int, ...], per_map: int, *,
            mesh: bool) -> list[str]:
    """One table row: the pairs of every seed's map, planned on the grid or on its
    navigation mesh."""
    times, calls, by_rs, by_holo, failed = [], [], [], [], 0
    for seed in seeds:
        grid = make(seed)
        world: Grid | NavMesh = NavMesh.build(grid) if mesh else grid
        for a, b, (rs, holo) in pairs(grid, per_map, seed):
            runs, walls = [], []
            for _ in range(3):
                t0 = time.perf_counter()
                r = plan_car_path(world, a, b, **CAR)
                walls.append(time.perf_counter() - t0)
                runs.append(r.stats.elapsed)
            if not r.found:
                failed += 1
                continue
            times.append(float(np.median(runs)))
            calls.append(float(np.median(walls)))
            by_rs.append(r.length / rs)
            by_holo.append(r.length / holo)
    return [kind, str(len(times) + failed), str(failed), *(
        [f"{np.median(times) * 1e3:.1f}", f"{max(times) * 1e3:.1f}",
         f"{np.median(calls) * 1e3:.1f}", f"{np.median(by_rs):.3f}", f"{np.median(by_holo):.3f}",
         f"{min(by_holo):.3f}–{max(by_holo):.3f}"] if times else ["–"] * 6)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true", help="two pairs per map, one seed")
    args = ap.parse_args(argv)
    per_map, seeds = (2, (1,)) if args.quick else (5, (1, 2))
    t0, rows = time.perf_counter(), []
    for kind, make in MAPS.items():
        rows.append(measure(kind, make, seeds, per_map, mesh=False))
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    rows.append(measure("rooms as a navmesh", MAPS["rooms"], seeds, per_map, mesh=True))
    print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    body = "\n\n".join([
        run_header("hybrid_astar.py", argv, None, time.perf_counter() - t0),
        "`plan_car_path` on generated 64 × 64 maps (two seeds each), a car 3 × 1.5 with "
        "turning radius 4, random pose pairs at least 20 apart: the median planner time "
        "(of three runs per pair; the search, its largest, and the whole call with its "
        "set-up), and the path length divided by the obstacle-free "
        "Reeds–Shepp length and by the holonomic optimum (grid A* over the cells the car's "
        "width fits, a cell-path length, so a ratio a little under 1 is possible).  The "
        "last row plans the rooms' pairs on the navigation mesh built from the same grid.",
        table(["map", "pairs", "failed", "median ms", "max ms", "call ms", "length ÷ Reeds–Shepp",
               "length ÷ holonomic", "÷ holonomic range"], rows)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
