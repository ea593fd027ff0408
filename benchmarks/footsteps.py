"""Footstep planning: nodes and planner time per character in two-way crowds.

Run from the repository root::

    python benchmarks/footsteps.py [--out BENCHMARKS.md] [--quick]

Two-way traffic: N characters, half walking from x = 0 to x = 6 m, half from x = 6 to x = 0,
in lanes 0.8 m apart, the two directions' lanes offset by 0.2 m so that every character
meets one head on.  They plan with :func:`~wayfinding.planning.footsteps.plan_crowd` (the
default model, actions and waits, priority order with its repair, ``max_expansions``
1500): the mean nodes generated and expanded per character (its final plan), the mean and
largest planner time, the share that reached its goal, the number left without a plan
(``FAILED``: they stand at their starts) and the least gap between any two characters'
five circles, those standing included (sampled every 10 ms; < 0 would be a collision).
The same crowds with :func:`~wayfinding.planning.footsteps.run_footstep_crowd`: short
plans (``max_expansions`` 600) made again every 0.5 s against the others' current plans,
the others giving way once to a character left standing.
Then one character alone walking 6 m, on the parabola and on the exact hyperbola.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import numpy as np
from _report import publish, run_header, table

from wayfinding.planning.footsteps import (
    FootstepPlan,
    plan_crowd,
    plan_footsteps,
    run_footstep_crowd,
)
from wayfinding.results import Status

SECTION = "## Footstep planning"
CROWDS = (4, 8, 12)
QUICK = (4,)
BUDGET = 1500
ROLLING_BUDGET = 600
INTERVAL = 0.5


def two_way(n: int) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    starts, goals = [], []
    for i in range(n):
        lane = 0.8 * (i // 2)
        if i % 2 == 0:
            starts.append((0.0, lane))
            goals.append((6.0, lane))
        else:
            starts.append((6.0, lane + 0.2))
            goals.append((0.0, lane + 0.2))
    return starts, goals


def least_gap(a: FootstepPlan, b: FootstepPlan) -> float:
    t = np.arange(0.0, max(a.times[-1], b.times[-1]) + 0.5, 0.01)
    ca, cb = a.body(t), b.body(t)
    gap = np.linalg.norm(ca[:, :, None] - cb[:, None], axis=-1) \
        - a.model.radii[:, None] - b.model.radii[None]
    return float(gap.min())


def crowd_row(n: int) -> list[str]:
    starts, goals = two_way(n)
    t = time.perf_counter()
    plans = plan_crowd(starts, goals, max_expansions=BUDGET)
    total = time.perf_counter() - t
    failed = sum(p.status is Status.FAILED for p in plans)
    gaps = [least_gap(a, b) for a, b in itertools.combinations(plans, 2)] or [np.inf]
    ms = [p.stats.elapsed * 1e3 for p in plans]
    return [f"{n}", f"{np.mean([p.stats.generated for p in plans]):,.0f}",
            f"{np.mean([p.stats.expanded for p in plans]):,.0f}", f"{np.mean(ms):.0f}",
            f"{max(ms):.0f}", f"{np.mean([p.found for p in plans]):.0%}",
            f"{failed}",
            f"{min(gaps):.3f}", f"{total:.1f}"]


def rolling_row(n: int) -> list[str]:
    starts, goals = two_way(n)
    t = time.perf_counter()
    plans = run_footstep_crowd(starts, goals, max_expansions=ROLLING_BUDGET,
                               interval=INTERVAL)
    total = time.perf_counter() - t
    failed = sum(p.status is Status.FAILED for p in plans)
    gaps = [least_gap(a, b) for a, b in itertools.combinations(plans, 2)] or [np.inf]
    return [f"{n}", f"{np.mean([p.stats.expanded for p in plans]):,.0f}",
            f"{np.mean([p.found for p in plans]):.0%}", f"{failed}",
            f"{max(p.times[-1] for p in plans):.1f}", f"{min(gaps):.3f}", f"{total:.1f}"]


def solo_row(curve: str) -> list[str]:
    t = time.perf_counter()
    plan = plan_footsteps((0.0, 0.0), (6.0, 0.0), velocity=(1.2, 0.0), curve=curve)
    spent = time.perf_counter() - t
    return [curve, f"{len(plan)}", f"{plan.times[-1]:.1f}", f"{plan.cost:.0f}",
            f"{plan.epsilon:g}", f"{plan.stats.expanded:,}", f"{spent * 1e3:.0f}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the section into this Markdown file")
    ap.add_argument("--quick", action="store_true", help="one crowd of 4")
    args = ap.parse_args(argv)
    t0, rows = time.perf_counter(), []
    for n in QUICK if args.quick else CROWDS:
        rows.append(crowd_row(n))
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    rolling = []
    for n in QUICK if args.quick else CROWDS:
        rolling.append(rolling_row(n))
        print(f"  {rolling[-1]}", file=sys.stderr, flush=True)
    solo = [solo_row(c) for c in ("parabola", "hyperbola")]
    body = "\n\n".join([
        run_header("footsteps.py", argv, None, time.perf_counter() - t0),
        "Two-way traffic over 6 m (lanes 0.8 m apart, each character meeting one head on), "
        f"planned in priority order with `plan_crowd` (default model, actions and waits, "
        f"its repair on, `max_expansions` {BUDGET} shared by the anytime rounds): mean nodes "
        "generated and expanded per character's final plan, mean and largest planner time, "
        "share at the goal, characters with no plan (`FAILED`: no step led where they may "
        "stop; they stand at their starts), least gap between two characters' circles, "
        "those standing included (m, sampled every 10 ms) and the whole crowd's planning "
        "time (the repair's plans included).",
        table(["characters", "generated", "expanded", "plan ms", "max ms", "found", "failed",
               "least gap m", "total s"], rows),
        "The same crowds on a rolling horizon with `run_footstep_crowd` (`max_expansions` "
        f"{ROLLING_BUDGET} per plan, every character short of its goal planning again every "
        f"{INTERVAL} s against the others' current plans, the others giving way once to a "
        "character left standing): nodes expanded per character "
        "over all its plans, share at the goal, characters with no plan, when the last "
        "one stops (s), least gap (m) and the whole run's planning time.",
        table(["characters", "expanded", "found", "failed", "last stop s", "least gap m",
               "total s"], rolling),
        "One character walking 6 m alone (default options): steps, duration (s), energy "
        "(J), the bound of the round that found the plan, nodes expanded and planner time.",
        table(["curve", "steps", "s", "J", "epsilon", "expanded", "ms"], solo)])
    publish(body, args.out, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
