"""Crowds: ORCA per step against RVO2 (pyrvo), in one process.

Run from the repository root::

    python benchmarks/crowd.py [--out BENCHMARKS.md] [--steps S]

Circle with RVO2's parameters (time step 0.25 s, neighbour distance 15, 10 neighbours, time
horizons 10 s, radius 1.5, top speed 2): N agents on a circle of radius 200 (N = 250), 400
(1,000) or 1,000 (5,000), each heading for its antipode with RVO2's example preferred
velocity (the goal vector, cut to length 1); and a packed square of N agents 3.5 apart,
each bound for its mirror image through the centre, without and with a square pillar in
every lattice square (about 4 obstacle edges per agent).  Both simulations run the same S steps
from the start; per step, wayfinding's time covers the neighbour query, ORCA and the move
(``ORCA.step``), RVO2's covers ``do_step`` (its k-d tree, ORCA and the move); setting the
preferred velocities is left out of both.  Medians of the per-step times, their ratio, and
means.  Target: wayfinding at most 1.0× RVO2's time at 1,000 and 5,000 agents.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from _report import fmt_x, publish, run_header, table

SECTION = "## Crowds"
CASES = ((250, 200.0), (1000, 400.0), (5000, 1000.0))
SPACING = 3.5     # the packed square: lattice spacing (radius 1.5)
DT, DIST, NEIGHBOURS, TAU, RADIUS, SPEED = 0.25, 15.0, 10, 10.0, 1.5, 2.0


def circle(n: int, size: float) -> tuple[np.ndarray, np.ndarray]:
    a = 2 * math.pi * np.arange(n) / n
    start = size * np.stack([np.cos(a), np.sin(a)], 1)
    return start, -start


def square(n: int, size: float) -> tuple[np.ndarray, np.ndarray]:
    """n agents packed on a square lattice (a little jittered), each bound for its mirror
    image through the centre: they meet at once and stay dense."""
    side = math.ceil(math.sqrt(n))
    ij = np.stack(np.divmod(np.arange(n), side), 1).astype(float)
    jitter = np.random.default_rng(0).uniform(-0.5, 0.5, (n, 2))
    start = (ij - (side - 1) / 2) * SPACING + jitter
    return start, -start


def pillars(n: int, size: float) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The packed square with a square pillar (side 0.5) in the middle of every lattice
    square: about 4 n obstacle edges among the agents."""
    start, goal = square(n, size)
    side = math.ceil(math.sqrt(n))
    k = np.arange(side - 1) - (side - 2) / 2
    centres = np.stack(np.meshgrid(k, k), -1).reshape(-1, 2) * SPACING
    box = np.array([(-0.25, -0.25), (0.25, -0.25), (0.25, 0.25), (-0.25, 0.25)])  # CCW
    return start, goal, [c + box for c in centres]


def preferred(position: np.ndarray, goal: np.ndarray) -> np.ndarray:
    v = goal - position
    length = np.hypot(v[:, 0], v[:, 1])
    return np.where(length[:, None] > 1, v / np.maximum(length, 1e-300)[:, None], v)


def ours(scene, n: int, size: float, steps: int) -> list[float]:
    from wayfinding.crowd import ORCA, Crowd

    start, goal, *walls = scene(n, size)
    crowd = Crowd(neighbour_dist=DIST, max_neighbours=NEIGHBOURS)
    for p, g in zip(start, goal):
        crowd.add(p, goal=g, radius=RADIUS, max_speed=SPEED)
    orca = ORCA(time_horizon=TAU, time_horizon_obst=TAU, obstacles=walls[0] if walls else ())
    times = []
    for _ in range(steps):
        pref = preferred(crowd.position, crowd.goal)
        t0 = time.perf_counter()
        orca.step(crowd, DT, preferred=pref)
        times.append(time.perf_counter() - t0)
    return times


def rvo2(scene, n: int, size: float, steps: int) -> list[float]:
    import pyrvo

    start, goal, *walls = scene(n, size)
    sim = pyrvo.RVOSimulator(DT, DIST, NEIGHBOURS, TAU, TAU, RADIUS, SPEED)
    for p in start:
        sim.add_agent((float(p[0]), float(p[1])))
    for poly in walls[0] if walls else ():
        sim.add_obstacle([(float(x), float(y)) for x, y in poly])
    sim.process_obstacles()
    times = []
    for _ in range(steps):
        pos = np.array([[sim.get_agent_position(i).x, sim.get_agent_position(i).y]
                        for i in range(n)])
        for i, v in enumerate(preferred(pos, goal)):
            sim.set_agent_pref_velocity(i, (float(v[0]), float(v[1])))
        t0 = time.perf_counter()
        sim.do_step()
        times.append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--steps", type=int, default=1000)
    args = ap.parse_args(argv)
    import pyrvo  # noqa: F401  (fail early when the peer is missing)

    t0, rows = time.perf_counter(), []
    for name, scene in (("circle", circle), ("packed square", square),
                        ("packed square with pillars", pillars)):
        for n, size in CASES:
            mine, theirs = ours(scene, n, size, args.steps), rvo2(scene, n, size, args.steps)
            a, b = np.median(mine), np.median(theirs)
            rows.append([f"{name}, {n:,}", f"{a * 1e3:.3f}", f"{b * 1e3:.3f}", fmt_x(a / b),
                         f"{np.mean(mine) * 1e3:.3f}", f"{np.mean(theirs) * 1e3:.3f}"])
            print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    body = "\n\n".join([
        run_header("crowd.py", argv, None, time.perf_counter() - t0,
                   "pyrvo 0.4.3 (RVO2 2.0.3)"),
        f"ORCA per step, the first {args.steps} steps, medians and means: wayfinding's "
        "`ORCA.step` (neighbours, ORCA, move) against RVO2's `do_step`, one thread each.  "
        "Circle: RVO2's scenario (radius 200, 400 or 1,000; at speed 1 the agents reach the "
        "middle after 800, 1,600 and 4,000 steps, so for 1,000 and 5,000 agents this is the "
        "sparser approach); packed square: a lattice 3.5 apart, each agent bound for its "
        "mirror image through the centre (dense throughout); with pillars: a square pillar "
        "(side 0.5) in every lattice square, about 4 obstacle edges per agent (the time "
        "horizon for obstacles is 10 s too).  Target: at most 1.0× RVO2 at 1,000 and 5,000 "
        "agents.",
        table(["scene, agents", "wayfinding ms", "RVO2 ms", "wayfinding ÷ RVO2",
               "wayfinding mean ms", "RVO2 mean ms"], rows)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
