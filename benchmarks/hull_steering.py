"""Hull steering: hull build time, waypoint query time and street-crossing quality.

Run from the repository root::

    python benchmarks/hull_steering.py [--out BENCHMARKS.md] [--quick]

Build: the median time of merging and convexifying a carriage of 1, 2 or 3 boxes (body and
horses, grown by 0.3 m) from scratch.  Query: the median time of one
:func:`~wayfinding.vehicles.hull_steering.avoid_hulls` call for an agent whose straight line
crosses one carriage, among V carriages on a 10 m grid (the rest left out by the broad
phase).  Pockets: the median time of one ``avoid_hulls`` call for an agent in a pocket (or
heading for one) whose straight line meets the contour, planning across the pockets or
hugging the contour, and the length an agent walks (0.1 m steps towards its waypoints)
over the shortest path's length.  Crossing:
:func:`~wayfinding.vehicles.hull_steering.street_crossing` runs with N pedestrians (seeds
0..S-1), braking off (horizon 0) and on (the default 2 s): the time per simulated step, the
smallest gap between an agent disc and a carriage box (must stay >= 0), the nearest a
pedestrian stood in a carriage's lane ahead of its front, the share of agents arriving, and
the mean arrival time over the straight walk's time (10 m at 1.4 m/s).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np
from _report import publish, run_header, table

from wayfinding.vehicles.hull_steering import (
    CARRIAGE,
    CrossingRun,
    Vehicle,
    avoid_hulls,
    street_crossing,
)
from wayfinding.vehicles.hulls import convexify, merge_boxes
from wayfinding.vehicles.pockets import pocket_path

#: A base with four teeth on top (deep pockets between them).
COMB = [(0.0, 0.0, 4.0, 0.5, 0.0)] + [(x, 1.3, 0.4, 1.0, 0.0) for x in (-3.5, -1.5, 0.5, 2.5)]
#: (name, parts, start, goal): agents leaving or entering pockets.
POCKETS = [("carriage: between the horses to behind", CARRIAGE, (2.5, 0.0), (-5.0, 0.5)),
           ("carriage: behind to between the horses", CARRIAGE, (-5.0, 0.5), (2.5, 0.0)),
           ("comb: beside to the far pocket", COMB, (-6.0, 1.2), (3.5, 1.0))]

SECTION = "## Hull steering"


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def walked(p: np.ndarray, goal: np.ndarray, hulls: list, pockets: str) -> float:
    """The length an agent walks, 0.1 m at a time towards its waypoints, to ``goal``."""
    total = 0.0
    for _ in range(2000):
        gap = avoid_hulls(p, goal, hulls, margin=0.0, pockets=pockets) - p
        d = float(np.hypot(*gap))
        if d == 0:
            break
        step = gap * min(1.0, 0.1 / d)
        total += float(np.hypot(*step))
        p = p + step
    return total


def ahead(run: CrossingRun) -> float:
    """The nearest a pedestrian stood in a carriage's lane ahead of its front, in metres."""
    b = run.boxes.reshape(len(run.boxes), -1, len(CARRIAGE), 4, 2)
    lo, hi = b.min(axis=(2, 3)), b.max(axis=(2, 3))
    sign = np.repeat([1.0, -1.0], b.shape[1] // 2)
    pos = run.positions[:, :, None, :]
    r = run.radius
    lane = (pos[..., 1] > lo[:, None, :, 1] - r) & (pos[..., 1] < hi[:, None, :, 1] + r)
    gap = np.where(sign > 0, pos[..., 0] - hi[:, None, :, 0], lo[:, None, :, 0] - pos[..., 0])
    return float(np.where(lane & (gap > 0), gap, np.inf).min())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true", help="fewer repeats, seeds and vehicles")
    args = ap.parse_args(argv)
    repeat, seeds, fleets = (20, 1, (1, 10)) if args.quick else (200, 5, (1, 10, 100))
    t_start = time.perf_counter()
    build = []
    for parts in (1, 2, 3):
        t = median_time(lambda k=parts: convexify(merge_boxes(CARRIAGE[:k], grow=0.3)), repeat)
        build.append([str(parts), f"{t * 1e6:.0f}"])
    query = []
    for v in fleets:
        side = int(np.ceil(np.sqrt(v)))
        hulls = [Vehicle(CARRIAGE, position=(10.0 * (i % side), 10.0 * (i // side))).hull(0.3)
                 for i in range(v)]
        t = median_time(lambda h=hulls: avoid_hulls((-3.0, 0.2), (6.0, 0.2), h), repeat)
        query.append([str(v), f"{t * 1e6:.0f}"])
    pocket = []
    for name, parts, start, goal in POCKETS:
        h = Vehicle(parts).hull(0.0)
        p, g = np.array(start), np.array(goal)
        path = pocket_path(p, g, h.contour, h.hull, h.pockets)
        if path is None:
            raise RuntimeError(f"{name}: the pockets are not usable")
        best = float(np.hypot(*np.diff(path, axis=0).T).sum())
        row = [name]
        for mode in ("plan", "hug"):
            t = median_time(lambda m=mode, p=p, g=g, h=h: avoid_hulls(p, g, [h], margin=0.0,
                                                                      pockets=m), repeat)
            row += [f"{t * 1e6:.0f}", f"{walked(p, g, [h], mode) / best:.3f}"]
        pocket.append(row)
    crossing = []
    for n in (1, 5):
        for brake in (0.0, 2.0):
            step_t, gap, near, arrived, ratio = [], np.inf, np.inf, [], []
            for seed in range(seeds):
                t0 = time.perf_counter()
                run = street_crossing(pedestrians=n, seed=seed, duration=30.0,
                                      brake_horizon=brake)
                steps = len(run.positions) - 1
                step_t.append((time.perf_counter() - t0) / steps)
                gap = min(gap, float(run.gaps().min()))
                near = min(near, ahead(run))
                arrived.extend(run.reached.tolist())
                at = run.arrival_steps()[run.reached] * run.dt
                ratio.extend((at / (10.0 / 1.4)).tolist())
            crossing.append([str(n), f"{brake:g}", str(seeds), f"{np.median(step_t) * 1e3:.2f}",
                             f"{gap:.3f}", f"{near:.2f}", f"{np.mean(arrived):.0%}",
                             f"{np.mean(ratio):.2f}"])
    body = "\n\n".join([
        run_header("hull_steering.py", argv, None, time.perf_counter() - t_start),
        "Hull build (merge the grown boxes, then convexify), median µs:",
        table(["boxes", "build µs"], build),
        "One `avoid_hulls` query whose line crosses one carriage, among V carriages, "
        "median µs:",
        table(["vehicles", "query µs"], query),
        "An agent leaving or entering a pocket (radius 0): one `avoid_hulls` query, median "
        "µs, and the length walked ÷ the shortest path's, planning across the pockets or "
        "hugging the contour:",
        table(["scenario", "plan µs", "plan walk ÷ shortest", "hug µs",
               "hug walk ÷ shortest"], pocket),
        "Street crossing (two lanes of carriages at 1 m/s, pedestrians at 1.4 m/s, "
        "dt 0.05 s, 30 s), braking off (0) and on (horizon 2 s): time per step, smallest "
        "disc-to-box gap, nearest stand in a carriage's lane ahead of its front, arrivals, "
        "and arrival time ÷ straight-walk time:",
        table(["pedestrians", "brake s", "seeds", "step ms", "min gap m", "nearest ahead m",
               "arrived", "time ÷ straight"], crossing)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
