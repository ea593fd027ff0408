"""Fields: fast marching against scikit-fmm on the same grids, and flow-field tiles' first
route against a flow field over the whole map, in one process.

Run from the repository root::

    python benchmarks/fields.py [--out BENCHMARKS.md] [--repeats N] [--problems M]
                                 [--crowd-repeats K]

Grids: open squares of side 8, 16, 32, 64, 128, 256, 512, 1024 and 2048 with one source in a
corner and a per-cell speed field (a smooth band pattern between 0.5 and 2), and the Moving AI
maps dao/brc202d, mazes/maze512-1-0 and cities/Boston_0_512 (walls masked, unit speed, the
goal of the scenario file's middle problem as the source).  Both compute travel times of order
1 and 2 (``wayfinding.fields.eikonal_field`` and ``skfmm.travel_time``; first-order results
are checked equal to 1e-6), the two calls alternating run by run; median of ``N`` runs each
(more on the small grids, at least 50 ms of runs per call).  Target: wayfinding at least 1.5×
faster at every size.

Flow-field tiles (sectors of 16 cells) on the large maps: for ``M`` problems spread over the
scenario file, with an empty tile cache, the time to a first route an agent can follow (the
portal A* and its start sector's tile) and to every tile of the route, against
``FlowField.build`` over the whole map from the same goal (second-order fast marching and the
direction codes); medians.

Continuum crowd: the full update of one group's fields over grids of side 64, 128, 192 and
256 (one unit per 20 cells, random velocities, a wall across a third of the grid), on one
thread (the default) and with the helper thread, the whole hybrid plan with the
navigation-mesh path, and for scale a plain first-order fast march over the same grid (unit
speed, no crowd), the four alternating run by run, against the cells per millisecond of seed
003's Table 1; target 30,000 cells per ms on one thread.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
from _report import find_data_dir, fmt_x, publish, run_header, table

SECTION = "## Fields"
SIDES = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
MAPS = ("dao/brc202d", "mazes/maze512-1-0", "cities/Boston_0_512")
TILE_MAPS = ("dao/brc202d", "dao/orz100d", "cities/Boston_0_512", "random/random512-25-0",
             "mazes/maze512-8-0")


def median_time(repeats: int, fn, *args, **kwargs) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def interleaved(repeats: int, *calls) -> list[float]:
    """The median time of each call, the calls alternating run by run (a shared machine's
    load falls on all of them alike)."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(repeats):
        for spent, call in zip(times, calls):
            t0 = time.perf_counter()
            call()
            spent.append(time.perf_counter() - t0)
    return [float(np.median(t)) for t in times]


def cases(data: Path):
    """(name, speed array (0 = wall), source (x, y))."""
    from wayfinding.grid import read_map, read_scen

    for n in SIDES:
        yy, xx = np.mgrid[0:n, 0:n] / n
        speed = 1.25 + 0.75 * np.sin(9 * xx + 4 * yy) * np.cos(7 * yy)
        yield f"open {n}² (speeds 0.5-2)", speed, (0, 0)
    for name in MAPS:
        grid = read_map(data / "maps" / f"{name}.map")
        scen = read_scen(data / "scenarios" / f"{name}.map.scen")
        goal = scen.problems[len(scen.problems) // 2].goal
        yield f"{name} ({grid.width}×{grid.height})", grid.passable.astype(float), \
            (int(goal[0]), int(goal[1]))


def run(data: Path, repeats: int) -> list[list[str]]:
    import skfmm

    from wayfinding.fields import eikonal_field

    rows = []
    for name, speed, (x, y) in cases(data):
        phi = np.ones(speed.shape)
        phi[y, x] = 0.0
        phi = np.ma.MaskedArray(phi, speed == 0)
        peer_speed = np.where(speed > 0, speed, 1.0)
        row = [name]
        ratios = []
        for order in (1, 2):
            ours = eikonal_field(speed, [(x, y)], order=order)
            theirs = np.ma.filled(skfmm.travel_time(phi, peer_speed, order=order), np.inf)
            if order == 1:
                both = np.isfinite(ours) & np.isfinite(theirs)
                if not np.allclose(ours[both], theirs[both], rtol=0, atol=1e-6):
                    raise AssertionError(f"{name}: first-order times differ from scikit-fmm")
            once = median_time(1, skfmm.travel_time, phi, peer_speed, order=order)
            runs = max(repeats, min(2000, int(0.05 / max(once, 1e-6))))
            t_ours, t_peer = interleaved(
                runs, partial(eikonal_field, speed, [(x, y)], order=order),
                partial(skfmm.travel_time, phi, peer_speed, order=order))
            ratios.append(t_peer / t_ours)
            row += [f"{t_ours * 1e3:,.3f}", f"{t_peer * 1e3:,.3f}", fmt_x(t_peer / t_ours)]
        row.append("met" if min(ratios) >= 1.5 else "not met")
        rows.append(row)
        print(f"  {name}: {row[1:]}", file=sys.stderr, flush=True)
    return rows


PAPER_CELLS_PER_MS = {64: 1024, 128: 910, 192: 996, 256: 1008}   # seed 003, Table 1


def continuum_rows(repeats: int) -> list[list[str]]:
    from wayfinding.fields import eikonal_field
    from wayfinding.fields.continuum import ContinuumField, HybridPlanner
    from wayfinding.grid import Grid

    rng = np.random.default_rng(1)
    rows = []
    for side, paper in PAPER_CELLS_PER_MS.items():
        free = np.ones((side, side), dtype=bool)
        free[side // 3, side // 8: -side // 8] = False          # a wall to go round
        grid = Grid(free)
        n = side * side // 20
        ys, xs = np.nonzero(free)
        pick = rng.choice(len(xs), n, replace=False)
        pos = np.stack([xs[pick], ys[pick]], 1) + rng.uniform(-0.4, 0.4, (n, 2))
        vel = rng.uniform(-1, 1, (n, 2))
        goal = (side // 2, 2)
        single, helped = ContinuumField(grid), ContinuumField(grid, threads=2)
        helped.update(pos, vel, [goal])    # warm-up (the helper thread starts)
        planner = HybridPlanner(grid, margin=side)
        t_single, t_helped, t_plan, t_march = interleaved(
            repeats, partial(single.update, pos, vel, [goal]),
            partial(helped.update, pos, vel, [goal]), partial(planner.plan, pos, vel, goal),
            partial(eikonal_field, free.astype(float), [goal], order=1))
        cells = side * side
        rate = cells / (t_single * 1e3)     # cells per ms on one thread
        rows.append([f"{side}² ({n:,} units)"])
        for t in (t_single, t_helped, t_plan, t_march):
            rows[-1] += [f"{t * 1e3:.2f}", f"{cells / (t * 1e3):,.0f}"]
        rows[-1] += [fmt_x(t_single / t_march), f"{paper:,}", fmt_x(rate / paper),
                     "met" if rate >= 30000 else "not met"]
        print(f"  continuum {side}: {rows[-1][1:]}", file=sys.stderr, flush=True)
    return rows


def tile_rows(data: Path, problems: int) -> list[list[str]]:
    from wayfinding.fields import FlowField, FlowTiles
    from wayfinding.grid import read_map, read_scen

    rows = []
    for name in TILE_MAPS:
        grid = read_map(data / "maps" / f"{name}.map")
        scen = [p for p in read_scen(data / "scenarios" / f"{name}.map.scen").problems
                if p.optimal > 100]
        scen = [scen[i] for i in np.linspace(0, len(scen) - 1, problems).astype(int)]
        t0 = time.perf_counter()
        tiles = FlowTiles(grid, sector=16)
        build = time.perf_counter() - t0
        first, whole_route, full, sectors = [], [], [], []
        for p in scen:
            tiles.clear_cache()
            t0 = time.perf_counter()
            route = tiles.route(p.start, p.goal)
            route.tile(route.sectors[0])
            first.append(time.perf_counter() - t0)
            route.prepare()
            whole_route.append(time.perf_counter() - t0)
            sectors.append(len(route.sectors))
            t0 = time.perf_counter()
            FlowField.build(grid, [p.goal])
            full.append(time.perf_counter() - t0)
        f, g = float(np.median(first)), float(np.median(full))
        rows.append([f"{name} ({grid.width}×{grid.height})", f"{build:.2f}",
                     f"{np.median(sectors):.0f} of {tiles.columns * tiles.rows}",
                     f"{f * 1e3:,.1f}", f"{np.median(whole_route) * 1e3:,.1f}",
                     f"{g * 1e3:,.1f}", fmt_x(g / f)])
        print(f"  tiles {name}: {rows[-1][1:]}", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="Moving AI folder (maps/, scenarios/)")
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--problems", type=int, default=25)
    ap.add_argument("--crowd-repeats", type=int, default=101,
                    help="runs per continuum-crowd median (each a few ms)")
    args = ap.parse_args(argv)
    data = find_data_dir(args.data)
    import skfmm

    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    rows = run(data, args.repeats)
    tiles = tile_rows(data, args.problems)
    crowd = continuum_rows(args.crowd_repeats)
    body = "\n\n".join([
        run_header("fields.py", argv, data, time.perf_counter() - t0,
                   f"scikit-fmm {skfmm.__version__}"),
        "Fast marching (travel times from one source, walls masked), median ms, the two "
        "libraries alternating call by call; target: wayfinding ≥ 1.5× faster than "
        "scikit-fmm at every size, both orders.",
        table(["grid", "order 1: wayfinding ms", "scikit-fmm ms", "speed-up",
               "order 2: wayfinding ms", "scikit-fmm ms", "speed-up", "target ≥ 1.5×"],
              rows),
        f"Flow-field tiles (sectors of 16 cells), {args.problems} problems per map (optimum "
        "over 100), medians, with an empty tile cache: the first route (portal A* and the "
        "start sector's tile, enough to start moving), then every tile of the route, against "
        "one flow field over the whole map.",
        table(["map", "sectors and portals built s", "sectors crossed",
               "first route ms", "all route tiles ms", "whole-map flow field ms",
               "speed-up (first route)"], tiles),
        "Continuum crowd (hybrid vector field), one group of side²/20 units over the whole "
        "grid (a wall across a third of it): the field update (density and velocity "
        "splatting, anisotropic speed and cost, fast-marching potential, velocity field) on "
        "the calling thread (the default) and with the helper thread (`threads=2`), the "
        "full hybrid plan (navigation-mesh path, destination point, field; one thread) and, "
        "for scale, plain first-order fast marching over the same grid at unit speed with no "
        "crowd (`eikonal_field`, one thread), alternating call by call, medians of "
        f"{args.crowd_repeats} runs; against seed 003's Table 1.  Target: at least 30,000 "
        "cells per ms on one thread.  Load average "
        f"(1 minute) at the start of the run: {load:.1f} on {os.cpu_count()} cores.",
        table(["grid", "field update ms", "cells per ms", "threads=2 ms", "cells per ms",
               "hybrid plan ms", "cells per ms", "plain fast march ms", "cells per ms",
               "update ÷ plain march", "paper cells per ms", "one thread ÷ paper",
               "target ≥ 30,000"],
              crowd)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
