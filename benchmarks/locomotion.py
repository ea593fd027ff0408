"""Locomotion planning: path processing, action-stack planning and clip playback to the mark
on generated worlds.

Run from the repository root::

    python benchmarks/locomotion.py [--out BENCHMARKS.md] [--routes R] [--quick]

A square world of side S metres with square pillars of 3 m on a 5 m lattice (each lattice
cell holds one with probability 0.3, seeded), meshed for a character of radius 0.3 m.  R
routes between random points at least S / 3 apart (seeded), each:
:func:`~wayfinding.planning.locomotion.locomotion_path` (default options: segments of 1 m
at least, tight opposite turns pushed 2 m apart or made fail-safe stops), the first
segment's :meth:`~wayfinding.planning.locomotion_plan.LocomotionPlanner.plan` with the
default biped clips, and again with a 0.7 m step forward from standing added (3 segments of
look-ahead), and a
:class:`~wayfinding.planning.locomotion_executor.LocomotionExecutor` playing the route in
0.05 s updates from standing, facing the first segment, to the goal.  Reported: median
times of path processing and of one plan, the share of routes whose character arrived and
the share that hit the mark (within 0.1 m of the goal), the action-stacks planned per route,
fail-safe stops per route and seconds of animation per metre of path.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from _report import publish, run_header, table

from wayfinding.navmesh import NavMesh
from wayfinding.planning.clips import Clip, ClipCatalogue, default_clips
from wayfinding.planning.locomotion import locomotion_path
from wayfinding.planning.locomotion_executor import LocomotionExecutor, MoveStatus
from wayfinding.planning.locomotion_plan import LocomotionPlanner, hits_mark

SECTION = "## Locomotion planning"
SIDES = (30, 60)
QUICK_SIDES = (30,)
DT = 0.05


def world(side: int, seed: int = 0) -> NavMesh:
    rng = np.random.default_rng(seed)
    holes = []
    for cx in range(5, side - 4, 5):
        for cy in range(5, side - 4, 5):
            if rng.random() < 0.3:
                holes.append([(cx - 1.5, cy - 1.5), (cx + 1.5, cy - 1.5), (cx + 1.5, cy + 1.5),
                              (cx - 1.5, cy + 1.5)])
    return NavMesh.build(outline=[(0, 0), (side, 0), (side, side), (0, side)], holes=holes,
                         radius=0.3)


def catalogue(step: bool) -> ClipCatalogue:
    """The default biped clips, with a 0.7 m step forward from standing when ``step``."""
    clips = default_clips()
    if not step:
        return clips
    return ClipCatalogue([*clips.clips, Clip("step", "standing", "standing", duration=0.7,
                                            dx=0.7)])


def row(side: int, routes: int, step: bool) -> list[str]:
    mesh = world(side)
    planner = LocomotionPlanner(catalogue(step))
    rng = np.random.default_rng(1)
    paths_t, plan_t, arrived, hit, stacks, stops, pace = [], [], 0, 0, [], [], []
    done = 0
    while done < routes:
        a = mesh.random_point(rng=rng)[1]
        b = mesh.random_point(rng=rng)[1]
        if math.dist(a, b) < side / 3:
            continue
        t = time.perf_counter()
        path = locomotion_path(mesh, a, b)
        paths_t.append(time.perf_counter() - t)
        if not path.found:
            continue
        done += 1
        p0, p1 = path.points[0], path.points[1]
        pose = (float(p0[0]), float(p0[1]), math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
        t = time.perf_counter()
        planner.plan(path, "standing", pose)
        plan_t.append(time.perf_counter() - t)
        walker = LocomotionExecutor(planner, "standing", pose)
        walker.request(path)
        steps, status = 0, walker.status
        while steps < 20000 and status not in (MoveStatus.ARRIVED, MoveStatus.FAILED):
            status = walker.update(DT)
            steps += 1
        arrived += status is MoveStatus.ARRIVED
        hit += status is MoveStatus.ARRIVED and hits_mark(walker.pose, b)
        stacks.append(walker.plans)
        stops.append(int(path.stops.sum()))
        pace.append(steps * DT / float(path.lengths().sum()))
    out = [f"{side} m", "default + step" if step else "default", f"{mesh.num_polygons:,}",
           f"{routes}",
           f"{np.median(paths_t) * 1e3:.2f}", f"{np.median(plan_t) * 1e3:.2f}",
           f"{arrived / routes:.0%}", f"{hit / routes:.0%}", f"{np.mean(stacks):.1f}",
           f"{np.mean(stops):.2f}", f"{np.median(pace):.2f}"]
    print(f"  {out}", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--routes", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="one small world, 10 routes")
    args = ap.parse_args(argv)
    sides, routes = (QUICK_SIDES, 10) if args.quick else (SIDES, max(args.routes, 1))
    t0 = time.perf_counter()
    rows = [row(side, routes, step) for side in sides for step in (False, True)]
    body = "\n\n".join([
        run_header("locomotion.py", argv, None, time.perf_counter() - t0),
        "Generated square worlds with 3 m pillars (a third of a 5 m lattice), routes between "
        "random points a third of the side or more apart, the default biped clips (and with "
        "a 0.7 m step forward from standing, which the fail-safe walks by): median "
        "time of `locomotion_path` (mesh query and post-processing) and of one look-ahead "
        "plan, the share of characters that arrived and that hit the mark (0.1 m), "
        "action-stacks planned and fail-safe stops per route, and seconds of animation per "
        "metre of path.",
        table(["world", "clips", "polygons", "routes", "path ms", "plan ms", "arrived",
               "hit the mark", "stacks", "fail-safe stops", "s / m"], rows)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
