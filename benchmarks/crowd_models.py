"""Crowd models per step on one scenario: wayfinding against JuPedSim and PySocialForce.

Run from the repository root::

    python benchmarks/crowd_models.py [--out BENCHMARKS.md] [--steps S]

The scenario: N agents (radius 0.3 m, top speed 1.3 m/s) on a jittered lattice 2 m apart
(0.25 agents per m²) in a square room, all bound for the exit along its east wall, time
step 0.05 s; the first S steps, before anyone reaches the exit.  Models:

* wayfinding, the cheapest: flow-field following (a field over the room in 1 m cells,
  built once, outside the timing) plus separation from the 6 nearest within 1 m;
* wayfinding's time-to-collision power law, anticipatory forces and ORCA (10 nearest;
  the power law and ORCA within 5 m, ORCA's horizon 3 s), heading straight for the exit;
* JuPedSim's collision-free speed model (``CollisionFreeSpeedModel``, its defaults, the
  room as its geometry, one exit stage);
* PySocialForce (its defaults, groups off), at the smaller sizes only: it is quadratic.

Per step: each model's whole update (neighbours, forces or velocities, the move).  Medians.
Target: under 16 ms per step for 10,000 agents with the cheapest model.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys
import tempfile
import time

import numpy as np
from _report import publish, run_header, table

SECTION = "## Crowd models"
SIZES = (1000, 5000, 10000)
SOCIAL_FORCE_SIZES = (250, 1000)
DT, RADIUS, SPEED, SPACING = 0.05, 0.3, 1.3, 2.0


def room(n: int) -> tuple[float, np.ndarray]:
    """The room's side and the agents' start: a lattice ``SPACING`` apart, jittered,
    clear of the exit by 8 m."""
    side = math.ceil(math.sqrt(n))
    length = side * SPACING + 10.0
    ij = np.stack(np.divmod(np.arange(n), side), 1).astype(float)
    jitter = np.random.default_rng(0).uniform(-0.3, 0.3, (n, 2))
    return length, 2.0 + ij[:, ::-1] * SPACING + jitter


def timed(update, steps: int, warm: int = 2) -> list[float]:
    for _ in range(warm):
        update()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        update()
        times.append(time.perf_counter() - t0)
    return times


def ours(model: str, n: int, steps: int) -> list[float]:
    from wayfinding.crowd import ORCA, AnticipatoryForces, Crowd, PowerLaw, follow_flow, separation
    from wayfinding.fields import FlowField
    from wayfinding.grid import Grid

    length, start = room(n)
    cells = int(math.ceil(length))
    crowd = Crowd(neighbour_dist=5.0, max_neighbours=10)
    for p in start:
        crowd.add(p, goal=(length - 0.5, p[1]), radius=RADIUS, max_speed=SPEED,
                  max_accel=5.0)
    if model == "flow":
        flow = FlowField.build(Grid(np.ones((cells, cells))), [(cells - 1, y)
                                                                for y in range(cells)])

        def update() -> None:
            steer = follow_flow(crowd, flow) + separation(crowd, distance=1.0, max_neighbours=6)
            crowd.step(DT, velocity=crowd.velocity + steer)
        return timed(update, steps)
    avoid = {"powerlaw": lambda: PowerLaw(max_neighbours=10, neighbour_dist=5.0),
             "anticipatory": lambda: AnticipatoryForces(max_neighbours=10),
             "orca": lambda: ORCA(time_horizon=3.0, time_horizon_obst=3.0)}[model]()
    return timed(lambda: avoid.step(crowd, DT), steps)


def jupedsim(n: int, steps: int) -> list[float]:
    import jupedsim as jps
    import shapely

    length, start = room(n)
    sim = jps.Simulation(model=jps.CollisionFreeSpeedModel(), dt=DT,
                         geometry=shapely.box(0, 0, length, length))
    exit_id = sim.add_exit_stage(shapely.box(length - 1, 0, length, length))
    journey = sim.add_journey(jps.JourneyDescription([exit_id]))
    for p in start:
        sim.add_agent(jps.CollisionFreeSpeedModelAgentParameters(
            journey_id=journey, stage_id=exit_id, position=(float(p[0]), float(p[1])),
            radius=RADIUS, desired_speed=SPEED))
    return timed(sim.iterate, steps)


def import_social_force():
    """PySocialForce, imported from a scratch directory: on import it opens a log file
    in the working directory."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            import pysocialforce
        finally:
            os.chdir(here)
    logging.disable(logging.CRITICAL)                       # it logs every step
    return pysocialforce


def social_force(n: int, steps: int) -> list[float]:
    psf = import_social_force()
    length, start = room(n)
    state = np.concatenate([start, np.zeros((n, 2)),
                            np.stack([np.full(n, length - 0.5), start[:, 1]], 1)], 1)
    sim = psf.Simulator(state)
    sim.config.config.setdefault("scene", {})["enable_group"] = False
    sim.forces = sim.make_forces(sim.config)
    return timed(sim.step, steps, warm=1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--steps", type=int, default=50)
    args = ap.parse_args(argv)
    import jupedsim as jps
    psf = import_social_force()

    t0, rows = time.perf_counter(), []
    for n in sorted(set(SIZES) | set(SOCIAL_FORCE_SIZES)):
        cells = [f"{n:,}"]
        runs = [ours(model, n, args.steps)
                for model in ("flow", "powerlaw", "anticipatory", "orca")]
        runs.append(jupedsim(n, args.steps))
        runs.append(social_force(n, max(args.steps // 10, 3))
                    if n in SOCIAL_FORCE_SIZES else None)
        cells += ["–" if r is None else f"{np.median(r) * 1e3:.2f}" for r in runs]
        rows.append(cells)
        print(f"  {cells}", file=sys.stderr, flush=True)
    peers = f"JuPedSim {jps.__version__}, PySocialForce {psf.__version__}"
    body = "\n\n".join([
        run_header("crowd_models.py", argv, None, time.perf_counter() - t0, peers),
        "Milliseconds per step, medians of the first "
        f"{args.steps} steps (PySocialForce: {max(args.steps // 10, 3)}), one thread each: "
        "N agents 2 m apart in a square room walking to the exit along its east wall, time "
        "step 0.05 s.  Flow + separation: wayfinding's cheapest model (a flow field built "
        "once, `follow_flow` + `separation`, `Crowd.step`).  Target: under 16 ms per step "
        "for 10,000 agents with it.",
        table(["agents", "flow + separation", "power law", "anticipatory forces", "ORCA",
               "JuPedSim CSM", "PySocialForce"], rows)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
