"""``wayfinding crowd run SCENARIO``: run one of the crowd scenarios under a local-avoidance
model (ORCA by default), or one of the formation scenarios (``formation_*``, under ORCA),
print its metrics and optionally write it as an animated GIF."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .args import add_json_option, non_negative_int, positive_float, positive_int, to_json

MODELS = ("orca", "rvo", "vo", "powerlaw", "anticipatory")


def _model(name: str) -> Any:
    """A fresh model by name (None: the scenario's own ORCA, with its obstacles)."""
    from ..crowd import AnticipatoryForces, PowerLaw, VelocityObstacles

    makers: dict[str, Callable[[], Any]] = {
        "orca": lambda: None, "rvo": VelocityObstacles.rvo, "vo": VelocityObstacles.vo,
        "powerlaw": PowerLaw, "anticipatory": AnticipatoryForces}
    return makers[name]()


def add_crowd_parser(sub: Any) -> None:
    """Register the ``crowd`` subcommand."""
    from ..crowd.scenarios import SCENARIOS
    from ..groups.scenarios import FORMATION_SCENARIOS

    c = sub.add_parser("crowd", help="crowds: run crowd scenarios under local-avoidance "
                       "models, measure and draw them",
                       description="Run the standard crowd scenarios and measure them.")
    csub = c.add_subparsers(dest="crowd_command", required=True)
    r = csub.add_parser("run", help="run a scenario, print its metrics")
    r.add_argument("scenario", choices=sorted(SCENARIOS) + sorted(FORMATION_SCENARIOS))
    r.add_argument("--agents", type=positive_int, default=None,
                   help="agents (circle, bottleneck, one_way) or per side or stream (swap, "
                   "crossing_flows) or per formation (formation_*)")
    r.add_argument("--angle", type=positive_float, default=None,
                   help="crossing angle in degrees (crossing, crossing_flows)")
    r.add_argument("--width", type=positive_float, default=None,
                   help="doorway or corridor width (bottleneck, one_way, formation_door)")
    r.add_argument("--model", choices=sorted(MODELS), default="orca",
                   help="local avoidance (only orca takes the obstacles of blocks, "
                   "bottleneck and one_way)")
    r.add_argument("--seed", type=non_negative_int, default=0, help="preferred-velocity noise seed")
    r.add_argument("--render", metavar="OUT.gif", help="write the run as an animated GIF")
    add_json_option(r)
    r.set_defaults(run=cmd_run)


def cmd_run(args: Any) -> int:
    from ..crowd.scenarios import scenario, simulate_crowd
    from ..viz.crowd import animate_run

    if args.scenario.startswith("formation_"):
        return _formation_run(args)
    options = {"circle": {"n": args.agents}, "swap": {"n": args.agents},
               "bottleneck": {"n": args.agents, "width": args.width},
               "crossing": {"angle": args.angle},
               "crossing_flows": {"n": args.agents, "angle": args.angle},
               "one_way": {"n": args.agents, "width": args.width}}.get(args.scenario, {})
    sc = scenario(args.scenario, **{k: v for k, v in options.items() if v is not None})
    agents = len(sc.crowd)
    t0 = time.perf_counter()
    run = simulate_crowd(sc, avoidance=_model(args.model), seed=args.seed)
    elapsed = time.perf_counter() - t0
    if args.render:
        animate_run(args.render, run, sc.obstacles)
    info = {"scenario": sc.name, "model": args.model, "agents": agents, **run.summary(),
            "seconds": round(elapsed, 2), "render": args.render}
    info = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in info.items()}
    print(to_json(info) if args.json else
          f"{sc.name} ({args.model}): {run.completion:.0%} of {agents} agents arrived; half by "
          f"{info['t50']} s, 90% by {info['t90']} s; {info['collisions']} overlapping "
          f"pair-steps, deepest {info['max_penetration']}; path ratio {info['path_ratio']}"
          + (f"; wrote {args.render}" if args.render else ""))
    return 0


def _formation_run(args: Any) -> int:
    """``crowd run formation_*``: run a formation scenario, print its metrics."""
    from ..errors import InvalidQueryError
    from ..groups.scenarios import formation_scenario
    from ..viz.crowd import animate_run

    if args.model != "orca":
        raise InvalidQueryError(f"{args.scenario} runs under ORCA only, not {args.model!r}")
    options = {"n": args.agents, **({"width": args.width}
                                    if args.scenario == "formation_door" else {})}
    t0 = time.perf_counter()
    run = formation_scenario(args.scenario,
                             **{k: v for k, v in options.items() if v is not None})
    elapsed = time.perf_counter() - t0
    if args.render:
        animate_run(args.render, run, run.obstacles, groups=run.groups())
    reform = run.time_to_reform(0.1) if run.reformed else None    # None: no reform
    info = {"scenario": run.name, "model": args.model, "agents": run.positions.shape[1],
            "members": len(run.members), **run.summary(), "time_to_reform": reform,
            "seconds": round(elapsed, 2), "render": args.render}
    info = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in info.items()}
    print(to_json(info) if args.json else
          f"{run.name} ({args.model}): {run.completion:.0%} of {info['agents']} agents "
          f"arrived, 90% by {info['t90']} s; slot error mean {info['slot_error_mean']}, "
          f"largest {info['slot_error_max']}, at the end {info['final_slot_error']}; "
          + ("" if not run.reformed else "reformed to within 0.1 "
             + ("never; " if reform is None else f"in {info['time_to_reform']} s; "))
          + f"least separation {info['min_separation']}, deepest overlap "
          f"{info['max_overlap_ratio']:.2%} of a radius"
          + (f"; wrote {args.render}" if args.render else ""))
    return 0
