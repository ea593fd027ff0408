"""``wayfinding constraints field|compare`` and ``wayfinding multidomain``: constraint-aware
and multi-domain planning on Moving AI maps.  ``constraints field`` gives the multiplier field
of a constraints file over a map (its statistics, a heat map); ``constraints compare`` plans
the same start and goal under several constraints files side by side; ``multidomain`` plans
across a static navigation mesh, a mesh with a density field, the grid and space-time.

Constraints files are JSON (the format: :mod:`wayfinding.constraints.files`).  The grid
``path`` and ``navmesh path`` commands take one with ``--constraints FILE`` through the
helpers here."""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._io import atomic_write_bytes
from ..errors import InvalidQueryError
from .args import _finite, add_json_option, cell, point, positive_int, to_json

if TYPE_CHECKING:
    import numpy as np

    from ..constraints import ConstraintSet
    from ..grid import Grid

#: The help of ``--constraints``.
CONSTRAINTS_HELP = ("plan under the constraint set of this JSON file: named annotations "
                    "and in/near/hard constraints on them, weights or schedules of weights "
                    "(the format: wayfinding.constraints.files)")
#: The help of ``--time``.
TIME_HELP = "with --constraints: the time, seconds, the file's weight schedules are read at " \
    "(default 0)"


def add_constraint_options(p: argparse.ArgumentParser) -> None:
    """``--constraints FILE`` and ``--time T`` on a path command."""
    p.add_argument("--constraints", metavar="FILE", help=CONSTRAINTS_HELP)
    p.add_argument("--time", type=_finite, default=None, metavar="T", help=TIME_HELP)


def path_constraints(args: argparse.Namespace) -> ConstraintSet | None:
    """The set ``--constraints`` names (None without it; ``--time`` alone is refused)."""
    from ..constraints.files import load_constraints

    if args.constraints is None:
        if args.time is not None:
            raise InvalidQueryError("--time goes with --constraints")
        return None
    return load_constraints(args.constraints)


def plan_time(args: argparse.Namespace) -> float:
    """``--time``, 0 when not given."""
    return 0.0 if args.time is None else args.time


def cell_points(grid: Grid, cells: Any) -> np.ndarray:
    """``(m, 2)`` float64 world points of the centres of ``(m, 2)`` cells ``(x, y)``."""
    import numpy as np

    xy = np.asarray(cells, dtype=np.float64).reshape(-1, 2)
    return np.asarray(grid.origin) + (xy + 0.5) * grid.cell_size


def _length(points: Any) -> float:
    """The length of a polyline of ``(m, 2)`` world points."""
    import numpy as np

    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    return float(np.hypot(*np.diff(pts, axis=0).T).sum())


def shares(constraints: ConstraintSet, points: Any) -> list[float]:
    """Per constraint, the share of the path's length inside its annotation (all 0 without
    a path)."""
    from ..planning.constrained import inside_shares

    if len(points) < 2:
        return [0.0] * len(constraints)
    return [round(v, 6) for v in inside_shares(constraints, points).tolist()]


def _describe(constraints: ConstraintSet, t: float) -> list[str]:
    """Each constraint in a few words: ``near LineOfSight, weight -6``."""
    out = []
    for c in constraints:
        kind = type(c.annotation).__name__
        if c.is_hard:
            out.append(f"hard {kind}")
        else:
            out.append(f"{'near' if c.near else 'in'} {kind}, weight {c.weight_at(t):g}")
    return out


def print_shares(constraints: ConstraintSet, values: list[float], t: float) -> None:
    """One line per constraint: what it is and the share of the path inside it."""
    for i, (text, share) in enumerate(zip(_describe(constraints, t), values)):
        print(f"  constraints[{i}] {text}: {share * 100:.1f}% of the length inside")


def png_target(text: str, option: str) -> str:
    """``text`` when it names a PNG file; a constraint heat map is drawn only as PNG."""
    if Path(text).suffix.lower() != ".png":
        raise InvalidQueryError(f"{option} {text!r}: the constraint field is drawn as PNG "
                                "only; give OUT.png")
    return text


# ------------------------------------------------------------------------------ commands

def add_constraints_parsers(sub: Any) -> None:
    """Register ``constraints`` (``field``, ``compare``) and ``multidomain``."""
    from .planning import _render_option, _world_options

    c = sub.add_parser("constraints", help="constraint-aware planning: the multiplier field "
                       "of a constraints file and paths under several files side by side",
                       description="Constraint-aware planning on a Moving AI map (cells of "
                       "1 world unit at the map's origin). A constraints file is JSON: "
                       "named annotations (region, disc, between, side, line_of_sight) and "
                       "constraints on them (in/near with a weight or a schedule of "
                       "weights, hard).")
    csub = c.add_subparsers(dest="constraints_command", required=True)
    f = csub.add_parser("field", help="the multiplier field of a constraints file over a map: "
                        "statistics and a heat map")
    f.add_argument("map", help="a Moving AI .map file")
    f.add_argument("file", help="a constraints file (.json)")
    f.add_argument("--time", type=_finite, default=0.0, metavar="T",
                   help="seconds: when the weight schedules are read (default 0)")
    _render_option(f, ".png", "draw the field as a heat map, annotations outlined")
    f.add_argument("--size", type=positive_int, default=640, metavar="PX",
                   help="--render: pixels along the longer side (>= 64, default 640)")
    add_json_option(f)
    f.set_defaults(run=cmd_field)

    m = csub.add_parser("compare", help="the same start and goal under several constraints "
                        "files: cost, length and satisfaction side by side")
    m.add_argument("map", help="a Moving AI .map file")
    m.add_argument("files", nargs="+", metavar="FILE",
                   help="constraints files (.json), one run each")
    m.add_argument("--from", dest="start", type=cell, required=True, metavar="X,Y")
    m.add_argument("--to", dest="goal", type=cell, required=True, metavar="X,Y")
    m.add_argument("--method", choices=("astar", "dijkstra"), default="astar",
                   help="search method (default astar)")
    m.add_argument("--time", type=_finite, default=0.0, metavar="T",
                   help="seconds: when the weight schedules are read (default 0)")
    _render_option(m, ".png", "draw each file's field and path side by side, on one scale")
    add_json_option(m)
    m.set_defaults(run=cmd_compare)

    md = sub.add_parser("multidomain", help="constraint-aware planning: one agent's plan "
                        "across a static mesh, a mesh with a density field, the grid and "
                        "space-time, each refining the one before",
                        description="Plan across four domains of rising fidelity: the "
                        "navigation mesh built from the map gives a corridor of polygons, "
                        "the mesh with a density field a route in it, its waypoints grid "
                        "legs, and the imminent leg a space-time trajectory. The legs' cost "
                        "is compared with the grid's optimum.")
    _world_options(md, "a Moving AI .map file (or give --generate)")
    md.add_argument("--from", dest="start", type=point, required=True, metavar="X,Y",
                    help="world point in a free cell")
    md.add_argument("--to", dest="goal", type=point, required=True, metavar="X,Y",
                    help="world point in a free cell")
    md.add_argument("--rings", type=_rings, default=1, metavar="N",
                    help="rings of neighbouring polygons around the static plan that the "
                    "density plan may use (default 1; 'all' for no tunnel)")
    md.add_argument("--no-spacetime", dest="spacetime", action="store_false",
                    help="plan no space-time trajectory for the imminent leg")
    md.add_argument("--max-frames", type=positive_int, default=10_000, metavar="N",
                    help="frames of thinking at most (default 10000)")
    _render_option(md, ".png", "draw the corridor, the waypoints, the legs and the trajectory")
    add_json_option(md)
    md.set_defaults(run=cmd_multidomain)


def _rings(text: str) -> int | None:
    if text == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer >= 0 or 'all'") \
            from None
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"{value} must be from 0 to 1000, or 'all'")
    return value


def _grid(path: str) -> Grid:
    from ..grid import read_map

    return read_map(path)


def cmd_field(args: argparse.Namespace) -> int:
    import numpy as np

    from ..constraints.files import load_constraints

    grid = _grid(args.map)
    field = load_constraints(args.file)
    ys, xs = np.nonzero(grid.passable)
    centres = cell_points(grid, np.stack([xs, ys], 1))
    m = field.multiplier(centres, t=args.time)
    finite = m[np.isfinite(m)]
    inside = [int(c.annotation.contains(centres).sum()) if len(centres) else 0
              for c in field]
    info: dict[str, Any] = {
        "map": args.map, "constraints": args.file, "t": args.time, "cells": int(len(m)),
        "base_weight": field.base_weight(t=args.time),
        "min": float(finite.min()) if len(finite) else None,
        "max": float(finite.max()) if len(finite) else None,
        "mean": float(finite.mean()) if len(finite) else None,
        "raised": int((finite > 1.0).sum()), "hard": int(np.isinf(m).sum()),
        "inside": inside, "render": args.render}
    if args.render:
        from ..viz.constraints import render_constraints_png

        atomic_write_bytes(args.render, render_constraints_png(
            grid, field, t=args.time, size=args.size,
            title=f"{Path(args.file).name} at t={args.time:g}"))
    if args.json:
        print(to_json(info))
        return 0
    print(f"{args.file} over {args.map} at t={args.time:g}: {info['cells']} free cells, "
          f"base weight W0 {info['base_weight']:g}")
    if len(finite):
        print(f"  multiplier from {info['min']:.4g} to {info['max']:.4g} (mean "
              f"{info['mean']:.4g}); {info['raised']} cells above 1, {info['hard']} in hard "
              "constraints")
    for i, (text, n) in enumerate(zip(_describe(field, args.time), inside)):
        print(f"  constraints[{i}] {text}: {n} cells inside")
    if args.render:
        print(f"picture: {args.render}", file=sys.stderr)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from ..constraints.files import load_constraints
    from ..grid import GridSearch

    grid = _grid(args.map)
    sets = [load_constraints(f) for f in args.files]
    search = GridSearch(grid)
    results = [search.find_path(args.start, args.goal, constraints=cs, t=args.time,
                                method=args.method) for cs in sets]
    runs = []
    for name, cs, r in zip(args.files, sets, results):
        pts = cell_points(grid, r.path) if r.found else cell_points(grid, [])
        runs.append({"constraints": name, "found": r.found,
                     "cost": r.cost if r.found else None,
                     "length": round(_length(pts), 6) if r.found else None,
                     "satisfaction": shares(cs, pts), "expanded": r.stats.expanded})
    start, goal = (cell_points(grid, [c])[0] for c in (args.start, args.goal))
    if args.render:
        from ..viz.constraints import render_constraint_panels

        atomic_write_bytes(args.render, render_constraint_panels(
            grid, [(Path(n).name, cs, r) for n, cs, r in zip(args.files, sets, results)],
            start=start, goal=goal, t=args.time,
            title=f"{args.start} to {args.goal} under {len(sets)} constraint sets"))
    if args.json:
        print(to_json({"map": args.map, "from": list(args.start), "to": list(args.goal),
                       "method": args.method, "t": args.time, "runs": runs,
                       "render": args.render}))
        return 0
    width = max(len(n) for n in args.files)
    print(f"{args.map}: {args.start} to {args.goal} at t={args.time:g}, {args.method}")
    print(f"  {'constraints':<{width}}  {'cost':>12} {'length':>10} {'expanded':>9}  "
          "inside each constraint")
    for run in runs:
        inside = " ".join(f"{s * 100:.0f}%" for s in run["satisfaction"]) or "-"
        if run["found"]:
            print(f"  {run['constraints']:<{width}}  {run['cost']:>12.6f} "
                  f"{run['length']:>10.3f} {run['expanded']:>9}  {inside}")
        else:
            print(f"  {run['constraints']:<{width}}  {'no path':>12} {'-':>10} "
                  f"{run['expanded']:>9}  -")
    if args.render:
        print(f"picture: {args.render}", file=sys.stderr)
    return 0


def cmd_multidomain(args: argparse.Namespace) -> int:
    import numpy as np

    from ..grid import GridSearch
    from ..navmesh import NavMesh
    from ..planning import (
        DensityDomain,
        GridDomain,
        MultiDomainPlanner,
        NavMeshDomain,
        SpaceTimeDomain,
        plan_multidomain,
    )
    from .planning import _describe as describe_map
    from .vehicles import _load_map

    grid = _load_map(args)
    mesh = NavMesh.build(grid)
    static = NavMeshDomain(mesh)
    dynamic = DensityDomain(mesh, np.zeros(mesh.num_polygons))
    cells = GridDomain(grid)
    spacetime = SpaceTimeDomain(cells) if args.spacetime else None
    options = {"spacetime": spacetime, "corridor": args.rings}
    t0 = time.perf_counter()
    plan = plan_multidomain(static, dynamic, cells, args.start, args.goal,
                            max_frames=args.max_frames, **options)
    seconds = time.perf_counter() - t0
    start_cell, goal_cell = cells.state(args.start), cells.state(args.goal)
    best = GridSearch(grid).find_path(start_cell, goal_cell)
    optimum = best.cost if best.found else math.inf
    st = plan.spacetime
    info: dict[str, Any] = {
        "map": describe_map(args, grid)[0], "from": list(args.start), "to": list(args.goal),
        "status": plan.status.name.lower(), "cost": plan.cost, "optimum": optimum,
        "ratio": plan.cost / optimum if plan.found and optimum > 0 else None,
        "epsilon": plan.epsilon, "static": plan.static.tolist(),
        "dynamic": plan.dynamic.tolist(), "waypoints": plan.waypoints.tolist(),
        "legs": [max(len(leg) - 1, 0) for leg in plan.legs],
        "spacetime_states": int(len(st)),
        "spacetime_seconds": float((st[-1, 4] - st[0, 4]) * spacetime.dt)
        if spacetime is not None and len(st) else None,
        "seconds": round(seconds, 4), "render": args.render}
    if args.render:
        from ..viz.constraints import render_multidomain_png

        view = MultiDomainPlanner(static, dynamic, cells, args.start, args.goal, **options)
        atomic_write_bytes(args.render, render_multidomain_png(
            view, plan=plan, title=f"multi-domain: {info['map']}"))
    if args.json:
        print(to_json(info))
        return 0
    print(f"{info['map']}: {info['status']} in {seconds:.3f} s")
    print(f"  corridor: {len(info['static'])} polygons of the static mesh, "
          f"{len(info['dynamic'])} of the density mesh")
    print(f"  {len(info['waypoints'])} waypoints: "
          + " ".join(f"{x},{y}" for x, y in info["waypoints"]))
    if plan.found:
        print(f"  grid legs: {', '.join(str(n) for n in info['legs'])} steps; cost "
              f"{plan.cost:.4f}, optimum {optimum:.4f} (ratio {info['ratio']:.4f})")
    if info["spacetime_seconds"] is not None:
        print(f"  space-time: {info['spacetime_states']} states over "
              f"{info['spacetime_seconds']:g} s of the imminent leg")
    if args.render:
        print(f"picture: {args.render}", file=sys.stderr)
    return 0
