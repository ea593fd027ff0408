"""Groups: formations and ORCA per step, 100 groups of 20 agents on a 256² map.

Run from the repository root::

    python benchmarks/groups.py [--out BENCHMARKS.md] [--steps S] [--quick]

The map: :func:`wayfinding.grid.generate.caves` (256 x 256, open country: fill 0.3, seed 1).  Each
group is a box of 20 (spacing 1.2, radius 0.4, top speed 1.5) whose reference point walks a
path planned for its bulk (on the cells at least the bulk radius plus one from a blocked
cell), 60 to 180 cells long, from a start at least two bulks clear of the other groups'.
One step is :func:`wayfinding.groups.step_formations` with ORCA (time horizons 2 s for
agents and obstacles, the grid's blocked cells as obstacles): every reference point moves,
the members get their preferred velocities, and one ORCA step moves the whole crowd.  The
split: ORCA's ``step`` (neighbours, ORCA, move) timed apart, the formation update the
rest.  After the warm-up steps, median, 90th percentile and best of S steps, one thread.
Target: at most 5 ms per step.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from _report import publish, run_header, table  # noqa: E402

SECTION = "## Groups"
SIZE, GROUPS, MEMBERS = 256, 100, 20
SPACING, RADIUS, SPEED, DT, TAU = 1.2, 0.4, 1.5, 0.1, 2.0


def scene(groups: int):
    """The map, the crowd, its followers and ORCA with the timing of its steps."""
    import wayfinding
    from wayfinding.crowd import ORCA, Crowd
    from wayfinding.grid import Grid, generate
    from wayfinding.groups import FormationFollower, FormationShape

    class TimedORCA(ORCA):
        def __init__(self, **options):
            super().__init__(**options)
            self.times: list[float] = []

        def step(self, *args, **kwargs):
            t0 = time.perf_counter()
            super().step(*args, **kwargs)
            self.times.append(time.perf_counter() - t0)

    grid = generate.caves(SIZE, SIZE, fill=0.3, seed=1)
    shape = FormationShape.box(MEMBERS, spacing=SPACING)
    bulk = shape.bulk_radius + RADIUS
    roomy = Grid(grid.obstacle_distance >= bulk + 1.0)
    free = np.argwhere(roomy.passable)[:, ::-1]          # (x, y) cells
    rng = np.random.default_rng(0)
    crowd = Crowd()
    followers, starts = [], []
    while len(followers) < groups:
        a, b = free[rng.integers(len(free), size=2)]
        if not 60 <= math.dist(a, b) <= 180 or any(math.dist(a, s) < 2 * bulk for s in starts):
            continue
        result = wayfinding.find_path(roomy, tuple(a), tuple(b))
        if not result.found:
            continue
        path = np.array([grid.cell_to_world(c) for c in result.path.tolist()])
        ids = [crowd.add(p, radius=RADIUS, max_speed=SPEED)
               for p in shape.world_slots(path[0], path[1] - path[0])]
        followers.append(FormationFollower(crowd, ids, shape, path))
        starts.append(a)
    orca = TimedORCA(time_horizon=TAU, time_horizon_obst=TAU, obstacles=grid)
    return grid, crowd, followers, orca


def run(groups: int, warm: int, steps: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-step total and ORCA times (s) after ``warm`` steps, and the set-up time."""
    from wayfinding.groups import step_formations

    t0 = time.perf_counter()
    _, crowd, followers, orca = scene(groups)
    setup = time.perf_counter() - t0
    total = []
    for _ in range(warm + steps):
        t0 = time.perf_counter()
        step_formations(crowd, followers, DT, orca=orca)
        total.append(time.perf_counter() - t0)
    return np.array(total[warm:]), np.array(orca.times[warm:]), setup


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--steps", type=int, default=200, help="timed steps (at least 50)")
    ap.add_argument("--quick", action="store_true", help="50 steps after 10 warm-up steps")
    args = ap.parse_args(argv)
    steps, warm = (50, 10) if args.quick else (max(args.steps, 50), 20)
    t0, load = time.perf_counter(), os.getloadavg()[0]
    total, orca, setup = run(GROUPS, warm, steps)
    form = total - orca
    rows = [[name, f"{np.median(t) * 1e3:.2f}", f"{np.percentile(t, 90) * 1e3:.2f}",
             f"{t.min() * 1e3:.2f}"]
            for name, t in (("formation update", form), ("ORCA step", orca),
                            ("whole step", total))]
    med = np.median(total) * 1e3
    verdict = "met" if med <= 5.0 else "not met"
    print(f"  {rows}", file=sys.stderr, flush=True)
    body = "\n\n".join([
        run_header("groups.py", argv, None, time.perf_counter() - t0, "",
                   note=f"load average {load:.1f} at the start"),
        f"{GROUPS} box formations of {MEMBERS} agents ({GROUPS * MEMBERS:,} agents) on a "
        f"{SIZE}² caves map (`grid.generate.caves({SIZE}, {SIZE}, fill=0.3, seed=1)`), each "
        "walking a path planned for its bulk; one step is `step_formations(..., "
        "orca=ORCA(time_horizon=2.0, "
        f"time_horizon_obst=2.0, obstacles=grid))` with dt {DT} s, one thread.  {steps} "
        f"steps after {warm} warm-up steps (set-up, including the obstacle tree: "
        f"{setup:.1f} s).  ORCA step: neighbours, ORCA and the move; formation update: the "
        "rest (reference points along their paths, slots, the members' and the other agents' "
        "preferred velocities).  "
        f"Target: at most 5 ms per step (median): {verdict} ({med:.2f} ms).",
        table(["stage", "median ms", "p90 ms", "best ms"], rows)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
