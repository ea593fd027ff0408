"""``wayfinding field flow|scene``: draw the flow field of a map towards a goal, or run one
of the hybrid vector field's scenes and write it as an animated GIF."""

from __future__ import annotations

import time
from typing import Any

from .args import add_json_option, cell, positive_float, positive_int, to_json

SCENE_UNITS = {"lanes": 30, "congestion": 90, "maze": 20}


def add_fields_parser(sub: Any) -> None:
    """Register the ``field`` subcommand."""
    from ..fields.scenes import SCENES

    f = sub.add_parser("field", help="fields: draw flow fields towards a goal, run "
                       "continuum-crowd scenes",
                       description="Integration and flow fields over a Moving AI map, and "
                       "the continuum-crowd scenes.")
    fsub = f.add_subparsers(dest="field_command", required=True)
    p = fsub.add_parser("flow", help="draw the flow towards a goal (heat map and arrows)")
    p.add_argument("map", help="a Moving AI .map file")
    p.add_argument("--to", dest="goal", type=cell, required=True, metavar="X,Y")
    p.add_argument("--method", choices=["eikonal", "dijkstra"], default="eikonal")
    p.add_argument("--order", type=int, choices=[1, 2], default=2,
                   help="fast-marching order (eikonal; default 2)")
    p.add_argument("--los", action="store_true", help="the line-of-sight pass (eikonal)")
    p.add_argument("--every", type=positive_int, default=None, metavar="N",
                   help="an arrow on every N-th cell (default: about 32 across)")
    p.add_argument("-o", "--output", action="append", required=True, metavar="OUT",
                   help="picture to write (.png or .svg; repeatable)")
    add_json_option(p)
    p.set_defaults(run=cmd_flow)
    s = fsub.add_parser("scene", help="run a continuum-crowd scene")
    s.add_argument("scene", choices=SCENES)
    s.add_argument("--units", type=positive_int, default=None,
                   help="units per group (default: lanes 30, congestion 90, maze 20)")
    s.add_argument("--seconds", type=positive_float, default=120.0,
                   help="time simulated (default 120)")
    s.add_argument("--render", metavar="OUT.gif", help="write the run as an animated GIF")
    add_json_option(s)
    s.set_defaults(run=cmd_scene)


def cmd_flow(args: Any) -> int:
    from ..fields import FlowField
    from ..grid import read_map
    from ..viz.fields import save_flow

    grid = read_map(args.map)
    t0 = time.perf_counter()
    flow = FlowField.build(grid, [args.goal], method=args.method, order=args.order,
                           los=args.los)
    elapsed = time.perf_counter() - t0
    for out in args.output:
        save_flow(out, grid, flow.field, vectors=flow.vectors, every=args.every,
                  goal=args.goal)
    reach = int((flow.codes < 255).sum())
    info = {"map": args.map, "goal": list(args.goal), "method": args.method,
            "reachable_cells": reach, "seconds": round(elapsed, 4), "outputs": args.output}
    print(to_json(info) if args.json else
          f"{reach} cells flow to {args.goal} ({args.method}, {elapsed * 1e3:.1f} ms); "
          f"wrote {', '.join(args.output)}")
    return 0


def cmd_scene(args: Any) -> int:
    from ..fields.scenes import scene, simulate_scene
    from ..viz.fields import animate

    sc = scene(args.scene, units=args.units or SCENE_UNITS[args.scene])
    t0 = time.perf_counter()
    run = simulate_scene(sc, seconds=args.seconds)
    elapsed = time.perf_counter() - t0
    if args.render:
        animate(args.render, sc.grid, run.positions, groups=run.group, every=2)
    info = {"scene": args.scene, "units": int(len(run.group)),
            "completion": run.completion, "t50": run.arrival_time(0.5),
            "t90": run.arrival_time(0.9), "closest": round(run.closest, 3),
            "seconds": round(elapsed, 2), "render": args.render}
    print(to_json(info) if args.json else
          f"{args.scene}: {run.completion:.0%} of {len(run.group)} units arrived; half by "
          f"{info['t50']:.1f} s, 90% by {info['t90']:.1f} s"
          + (f"; wrote {args.render}" if args.render else ""))
    return 0
