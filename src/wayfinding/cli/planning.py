"""``wayfinding clips|movement|locomotion|footsteps|motion``: planning with the body.  ``clips``
prints a clip catalogue (the library's biped, or a JSON file checked field by field) and
writes it out to edit; ``movement`` plans the cheapest clip sequence from a start pose to a
goal region on the open plane, a Moving AI map, a generated map or a navigation mesh;
``locomotion`` plays a navigation-mesh path by clips, segment by segment, to its mark;
``footsteps`` plans timed footsteps for one or a few characters who avoid each other's bodies
in space and time; ``motion fit`` fits a motion model to the library's simulated character
controller, reports its deceleration fit's residuals and compares it with a saved model.

Poses are ``X,Y,HEADING``: a world point and a heading in degrees counter-clockwise from +x
(the JSON output gives headings in degrees too, except a catalogue's clip ``rotation``, in
radians as its file holds it)."""

from __future__ import annotations

import argparse
import itertools
import math
import time
from pathlib import Path
from typing import Any

from ..errors import InvalidQueryError
from .args import (
    _finite,
    add_json_option,
    non_negative_float,
    non_negative_int,
    point,
    positive_float,
    positive_int,
    three_numbers,
    to_json,
)
from .navmesh import INPUTS, read_area
from .vehicles import _load_map, map_options

#: A pose ``X,Y,HEADING``: a world point and a heading in degrees, counter-clockwise from +x.
_pose = three_numbers("a pose 'X,Y,HEADING'")

#: Where ``--from`` and ``--to`` of ``footsteps`` go when neither is given.
WALK = ((0.0, 0.0), (4.0, 0.0))


#: The help of each option of :class:`~wayfinding.planning.ControllerParams` and the
#: default it names (``turn_rate`` in degrees a second); written here so that ``--help``
#: does not import the planning package (a test holds them to the library's defaults).
CONTROLLER = {
    "min_speed": ("the slowest clip's speed, m/s", 0.5),
    "max_speed": ("the fastest clip's speed, m/s", 6.0),
    "acceleration": ("speeding up, m/s²", 4.0),
    "deceleration": ("slowing down to a lower speed, m/s² at rest", 6.0),
    "deceleration_falloff": ("the share of the deceleration lost at full speed, in [0, 1)",
                             0.5),
    "stop_deceleration": ("the stop animation's deceleration, m/s²", 8.0),
    "turn_rate": ("the fastest turn, degrees a second", 180.0),
    "lateral_acceleration": ("the most sideways acceleration in a turn, m/s²", 8.0),
    "blend_delay": ("how late commands act (the animation blend's lag), seconds", 0.1),
    "jitter": ("each step's relative speed noise, in [0, 1)", 0.0),
}


def _degrees(text: str) -> float:
    """An angle in degrees from 0 to 180."""
    value = non_negative_float(text)
    if value > 180:
        raise argparse.ArgumentTypeError(f"{text} must be from 0 to 180 degrees")
    return value


def _resolution(text: str) -> float:
    """A heading resolution in degrees, > 0 and at most 180."""
    value = positive_float(text)
    if value > 180:
        raise argparse.ArgumentTypeError(f"{text} must be at most 180 degrees")
    return value


def _penalty(text: str) -> tuple[str, float]:
    """``CLIP=SECONDS``: an extra cost per play of a clip."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not a penalty 'CLIP=SECONDS'")
    try:
        return name, non_negative_float(value)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r}: the penalty of {name!r} must be a "
                                         "number of seconds >= 0") from None


def _states(text: str) -> tuple[str, ...]:
    """Animation states ``NAME,NAME``."""
    names = tuple(v.strip() for v in text.split(","))
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of animation states "
                                         "'NAME,NAME'")
    return names


def _picture(suffix: str) -> Any:
    """An argument type taking a file name that ends in ``suffix`` (``.png``, ``.gif``)."""
    def parse(text: str) -> str:
        if Path(text).suffix.lower() != suffix:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {suffix[1:].upper()} file "
                                             f"(OUT{suffix})")
        return text
    return parse


def _world_options(p: Any, where: str) -> None:
    """A world to plan on: a file, or a generated map (cells of 1 world unit)."""
    map_options(p, where, size=24, corridor=3, note="; cells of 1 world unit")


def _render_option(p: Any, suffix: str, what: str) -> None:
    """``--render OUT<suffix>``: draw ``what`` to a file of that kind."""
    p.add_argument("--render", type=_picture(suffix), metavar=f"OUT{suffix}", help=what)


def _clips_option(p: Any, what: str) -> None:
    """``--clips FILE``: the clip catalogue to plan with (``what`` says which by default)."""
    p.add_argument("--clips", metavar="FILE", help=what)


def _start_state_option(p: Any) -> None:
    """``--start-state NAME``: the animation state at the start."""
    p.add_argument("--start-state", default="standing", metavar="NAME",
                   help="the animation state at the start (default standing)")


def add_planning_parsers(sub: Any) -> None:
    """Register the ``clips``, ``movement``, ``locomotion``, ``footsteps`` and ``motion``
    subcommands."""
    c = sub.add_parser(
        "clips", help="planning with the body: print a clip catalogue, check a catalogue "
        "file, write one to edit",
        description="Print the animation clips movement planning plays (the library's "
        "biped: standing, walking at 1.4 m/s, running at 4 m/s) or those of a catalogue file, "
        "checked field by field; with -o, write the catalogue as JSON to edit and give back "
        "with --clips.")
    _clips_option(c, "a clip catalogue (JSON) instead of the library's biped")
    c.add_argument("-o", "--output", metavar="OUT.json", help="write the catalogue here")
    add_json_option(c)
    c.set_defaults(run=cmd_clips)

    m = sub.add_parser(
        "movement", help="planning with the body: the cheapest sequence of animation clips "
        "from a start pose to a goal pose",
        description="Plan by A* the cheapest sequence of animation clips (each costs its "
        "duration) from a start pose, standing, to within --tolerance of a goal point and "
        "--heading-tolerance of its heading, the root path clear of the walls, on the open "
        "plane (no MAP), a map file, a generated map or the navigation mesh built from it; "
        "print the clips, when each starts, the cost and how far the plan ends from the "
        "goal pose.")
    _world_options(m, "the world: " + INPUTS + " (default: the open plane)")
    m.add_argument("--navmesh", action="store_true",
                   help="plan on the navigation mesh built from the map instead of its cells")
    m.add_argument("--from", dest="start", type=_pose, required=True, metavar="X,Y,HEADING",
                   help="start pose: the root (world units) and heading (degrees "
                   "counter-clockwise from +x)")
    m.add_argument("--to", dest="goal", type=_pose, required=True, metavar="X,Y,HEADING",
                   help="goal pose, as --from")
    _clips_option(m, "a clip catalogue (JSON, as `wayfinding clips -o` writes it; default "
                  "the library's biped)")
    _start_state_option(m)
    m.add_argument("--end-states", type=_states, default=None, metavar="NAME,NAME",
                   help="the animation states the plan may end in (default any)")
    m.add_argument("--tolerance", type=non_negative_float, default=0.25, metavar="M",
                   help="the end's largest distance from the goal point, world units "
                   "(default 0.25)")
    m.add_argument("--heading-tolerance", type=_degrees, default=180.0, metavar="DEG",
                   help="the end heading's largest difference from the goal's, degrees "
                   "(0..180, default 180: any heading)")
    m.add_argument("--radius", type=non_negative_float, default=0.0,
                   help="the root path keeps farther than this from every wall, world units "
                   "(default 0: it may not touch one)")
    m.add_argument("--penalty", type=_penalty, action="append", default=[],
                   metavar="CLIP=SECONDS", help="extra cost per play of a clip (repeat for "
                   "more clips)")
    m.add_argument("--resolution", type=positive_float, default=0.05, metavar="M",
                   help="states closer than this merge, world units (default 0.05; smaller "
                   "is closer to the optimum and slower)")
    m.add_argument("--heading-resolution", type=_resolution, default=2.5, metavar="DEG",
                   help="headings closer than this merge, degrees (default 2.5)")
    m.add_argument("--step", type=positive_float, default=0.1,
                   help="the root path's samples tested against the walls are at most this "
                   "far apart, world units (default 0.1)")
    m.add_argument("--max-expansions", type=non_negative_int, default=100_000, metavar="N",
                   help="give up after this many expansions (default 100000)")
    _render_option(m, ".png", "draw the world, the root path by clip, each clip's start and "
                   "the goal region")
    add_json_option(m)
    m.set_defaults(run=cmd_movement)

    lo = sub.add_parser(
        "locomotion", help="planning with the body: follow a navmesh path by clips, segment "
        "by segment, and hit the mark",
        description="Find the straight path on a navigation mesh (a mesh file, polygons, or "
        "the mesh built from a map for --radius), make it playable by clips (segments at "
        "least --min-segment long, tight opposite turns pushed --turn-space apart or made "
        "fail-safe stops) and play it: a locomotion executor plans action-stacks (starts, "
        "loops stretched to the segment, stops, turns on the spot) segment by segment, "
        "looking ahead, every --dt seconds; print the path, the clips played and how far "
        "from the goal the character ends.")
    _world_options(lo, "the world: " + INPUTS + " (or give --generate)")
    lo.add_argument("--radius", type=non_negative_float, default=0.3,
                    help="the character's radius the mesh is built for (maps and polygons), "
                    "world units (default 0.3)")
    lo.add_argument("--from", dest="start", type=point, required=True, metavar="X,Y",
                    help="where the character stands")
    lo.add_argument("--to", dest="goal", type=point, required=True, metavar="X,Y",
                    help="its mark")
    lo.add_argument("--heading", type=_finite, default=None, metavar="DEG",
                    help="its heading at the start, degrees counter-clockwise from +x "
                    "(default along the path's first segment)")
    lo.add_argument("--facing", type=_finite, default=None, metavar="DEG",
                    help="the facing wanted at the mark, degrees (default any)")
    _clips_option(lo, "a clip catalogue (JSON; default the library's biped)")
    _start_state_option(lo)
    lo.add_argument("--min-segment", type=positive_float, default=1.0, metavar="M",
                    help="the shortest segment of the playable path (default 1)")
    lo.add_argument("--turn-space", type=positive_float, default=2.0, metavar="M",
                    help="the room two sharp turns need back to back (default 2)")
    lo.add_argument("--sharp-turn", type=_degrees, default=60.0, metavar="DEG",
                    help="the least turn that counts as sharp, degrees (default 60)")
    lo.add_argument("--dt", type=positive_float, default=0.05,
                    help="the executor's update, seconds (default 0.05)")
    lo.add_argument("--max-seconds", type=positive_float, default=600.0,
                    help="stop playing after this long, simulated seconds (default 600)")
    _render_option(lo, ".png", "draw the mesh, the corridor, the straight and playable paths "
                   "and the actions played")
    add_json_option(lo)
    lo.set_defaults(run=cmd_locomotion, navmesh=True)

    f = sub.add_parser(
        "footsteps", help="planning with the body: timed footsteps for one or a few "
        "characters avoiding each other's bodies",
        description="Plan timed footsteps over an inverted-pendulum model of each "
        "character's centre of mass (COM), from --from to within --goal-radius of --to, "
        "each character starting at its preferred speed towards its goal.  Characters plan "
        "in order, each avoiding the five body circles of those before it in space and time "
        "(one left short of its goal plans again with the others making way), or with "
        "--rolling all replan on a rolling horizon.  Print each plan, whether two bodies "
        "meet and the least gap between them.  Give --from and --to once per character, in "
        "the same order (default one walker from 0,0 to 4,0).")
    f.add_argument("--from", dest="starts", type=point, action="append", metavar="X,Y",
                   help="a character's COM at the start, metres (repeat per character)")
    f.add_argument("--to", dest="goals", type=point, action="append", metavar="X,Y",
                   help="its goal, metres (repeat per character, in the order of --from)")
    f.add_argument("--goal-radius", type=positive_float, default=0.3, metavar="M",
                   help="a plan arrives within this of its goal, metres (default 0.3)")
    f.add_argument("--clearance", type=non_negative_float, default=0.1, metavar="M",
                   help="the gap kept between two bodies' circles, metres (default 0.1)")
    f.add_argument("--max-expansions", type=positive_int, default=1000, metavar="N",
                   help="the search's budget per plan, steps expanded (default 1000)")
    f.add_argument("--epsilon", type=positive_float, default=3.5, metavar="E",
                   help="the first round's heuristic inflation, >= 1; later rounds lower it "
                   "to 1 (default 3.5)")
    f.add_argument("--curve", choices=("parabola", "hyperbola"), default="parabola",
                   help="the COM curve of a step: parabola (fast) or hyperbola (exact, "
                   "slower; default parabola)")
    f.add_argument("--no-repair", dest="repair", action="store_false",
                   help="priority order only: a character short of its goal does not ask the "
                   "others to make way")
    f.add_argument("--rolling", type=positive_float, default=None, metavar="SECONDS",
                   help="replan every character not yet at its goal every SECONDS against the "
                   "others' current plans (a rolling horizon: pair with a small "
                   "--max-expansions)")
    f.add_argument("--duration", type=non_negative_float, default=30.0, metavar="SECONDS",
                   help="--rolling: the last replanning time (default 30)")
    f.add_argument("--com-every", type=positive_float, default=0.1, metavar="SECONDS",
                   help="--json: the COM's position every SECONDS along each plan "
                   "(default 0.1)")
    _render_option(f, ".gif", "write the crowd as an animated GIF: footprints as they land, "
                   "COM curves and bodies")
    add_json_option(f)
    f.set_defaults(run=cmd_footsteps)

    mo = sub.add_parser("motion", help="planning with the body: fit a motion model to a "
                        "character controller, report its residuals, compare it with another",
                        description="Motion models fitted to a character controller.")
    msub = mo.add_subparsers(dest="motion_command", required=True)
    fit = msub.add_parser(
        "fit", help="fit a motion model to the simulated controller, print it with the "
        "deceleration fit's residuals",
        description="Drive the library's simulated character controller (its parameters "
        "below) with deterministic commands and fit a motion model to what it measures: "
        "the speed range, the stopping distances, the deceleration dv(d) = a d² + b d + "
        "c √d (least squares, never above the measured worst case; its residuals "
        "reported), the overshoot after turns and the rotation radius; save it, draw the "
        "deceleration fit, or compare it with a saved model.")
    for name, (text, value) in CONTROLLER.items():
        fit.add_argument("--" + name.replace("_", "-"), type=non_negative_float,
                         default=None, metavar="DEG" if name == "turn_rate" else "X",
                         help=f"controller: {text} (default {value:g})")
    fit.add_argument("--rough-min", type=positive_float, default=1.0, metavar="M/S",
                     help="the game's estimate of the slowest speed, where the speeds are "
                     "explored (default 1)")
    fit.add_argument("--rough-max", type=positive_float, default=4.0, metavar="M/S",
                     help="the estimate of the fastest speed (default 4)")
    fit.add_argument("--samples", type=positive_int, default=3,
                     help="runs per command, seeded 0, 1, ... (default 3)")
    fit.add_argument("--steps", type=_at_least_two, default=5,
                     help="speeds for the stops, slow-downs, turns and circles (default 5)")
    fit.add_argument("--angle-steps", type=_at_least_two, default=7,
                     help="turn angles from 0 to 180 degrees (default 7)")
    fit.add_argument("-o", "--output", metavar="OUT.npz", help="save the model here")
    fit.add_argument("--against", metavar="MODEL.npz",
                     help="compare with a saved model: list what changed beyond "
                     "--tolerance")
    fit.add_argument("--tolerance", type=positive_float, default=0.05,
                     help="--against: the relative change flagged (default 0.05)")
    _render_option(fit, ".png", "draw the speed lost against the distance travelled and the "
                   "fitted curve")
    add_json_option(fit)
    fit.set_defaults(run=cmd_motion_fit)


def _at_least_two(text: str) -> int:
    value = positive_int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"{text} must be an integer >= 2")
    return value


def _catalogue(path: str | None) -> Any:
    """The catalogue in the file ``path``, or the library's biped."""
    from ..planning import ClipCatalogue, default_clips

    return default_clips() if path is None else ClipCatalogue.load(path)


def _clip_row(clip: Any) -> dict[str, Any]:
    return {**clip.to_dict(), "length": clip.length, "speed": clip.speed,
            "curvature": clip.curvature}


def cmd_clips(args: argparse.Namespace) -> int:
    clips = _catalogue(args.clips)
    if args.output:
        clips.save(args.output)
    info = {"source": args.clips or "default",
            "clips": [{k: (round(v, 6) if isinstance(v, float) else v)
                       for k, v in _clip_row(c).items()} for c in clips.clips],
            "states": sorted(clips.states), "max_speed": round(clips.max_speed, 6),
            "max_curvature": round(clips.max_curvature, 6), "output": args.output}
    if args.json:
        print(to_json(info))
        return 0
    bend = clips.max_curvature
    print(f"{args.clips or 'the default catalogue'}: {len(clips)} clips over the states "
          f"{', '.join(info['states'])}; fastest {clips.max_speed:.2f} m/s on average; "
          + ("some turn or move off a forward arc (unbounded curvature)" if math.isinf(bend)
             else "every moving clip goes straight ahead" if bend == 0
             else f"tightest arc {bend:.3f} 1/m (radius {1 / bend:.2f} m)")
          + (f"; wrote {args.output}" if args.output else ""))
    width = max(len(c.name) for c in clips.clips)
    print(f"  {'clip':<{width}}  {'from > to':<21} {'s':>5} {'dx':>6} {'dy':>6} {'turn':>6} "
          f"{'m/s':>5} {'1/m':>6}")
    for c in clips.clips:
        bend_text = "-" if c.curvature is None else f"{c.curvature:.3f}"
        print(f"  {c.name:<{width}}  {c.start_state + ' > ' + c.end_state:<21} "
              f"{c.duration:>5.2f} {c.dx:>6.2f} {c.dy:>6.2f} {math.degrees(c.rotation):>5.0f}° "
              f"{c.speed:>5.2f} {bend_text:>6}")
    return 0


def _world(args: argparse.Namespace, *, radius: float = 0.0) -> Any:
    """The world ``args`` name: None (the open plane), a grid or a navigation mesh (built
    from polygons or a map for an agent of ``radius``)."""
    from ..navmesh import NavMesh

    if args.map is None and args.generate is None:
        if args.navmesh:
            raise InvalidQueryError(f"{args.command} needs a map for its navigation mesh: "
                                    "give MAP or --generate KIND")
        return None
    if args.map is not None and args.generate is None \
            and Path(args.map).suffix.lower() != ".map":
        area = read_area(args.map)
        if isinstance(area, str):
            return NavMesh.build(area, radius=radius)
        if not isinstance(area, NavMesh):
            raise InvalidQueryError(f"{args.map}: a clearance mesh cannot be planned on; "
                                    "give a navigation mesh or the walkable area")
        return area
    grid = _load_map(args)
    return NavMesh.build(grid, radius=radius) if args.navmesh else grid


def _describe(args: argparse.Namespace, world: Any) -> tuple[str | None, str]:
    """The map as the output names it, and the kind of world planned on."""
    if world is None:
        return None, "plane"
    from ..navmesh import NavMesh

    kind = "navmesh" if isinstance(world, NavMesh) else "grid"
    if args.map is not None:
        return args.map, kind
    return f"{args.generate} {args.size[0]}x{args.size[1]} seed {args.seed}", kind


def cmd_movement(args: argparse.Namespace) -> int:
    from ..geometry.angles import wrap_angle
    from ..planning import plan_movement

    clips = _catalogue(args.clips)
    world = _world(args)
    start, goal = ((x, y, math.radians(h)) for x, y, h in (args.start, args.goal))
    t0 = time.perf_counter()
    plan = plan_movement(world, clips, start, goal, start_state=args.start_state,
                         position_tolerance=args.tolerance,
                         heading_tolerance=math.radians(args.heading_tolerance),
                         end_states=args.end_states, penalties=dict(args.penalty),
                         radius=args.radius, position_resolution=args.resolution,
                         heading_resolution=math.radians(args.heading_resolution),
                         step=args.step, max_expansions=args.max_expansions)
    elapsed = time.perf_counter() - t0
    source, kind = _describe(args, world)
    if args.render:
        from .._io import atomic_write_bytes
        from ..viz.planning import render_movement_png

        what = "no plan" if not plan.found else f"{len(plan.clips)} clips, {plan.time:.2f} s"
        atomic_write_bytes(args.render, render_movement_png(
            world, plan, clips, goal=goal, position_tolerance=args.tolerance,
            title=f"movement by clips on {source or 'the open plane'}: {what}"))
    end = plan.poses[-1] if plan.found else None
    bend = clips.max_curvature
    dubins = None
    if end is not None and 0 < bend < math.inf:
        from ..paths import turning_path

        (x0, y0, h0), (x1, y1, h1) = plan.poses[0].tolist(), end.tolist()
        dubins = turning_path((x0, y0), (math.cos(h0), math.sin(h0)), (x1, y1),
                              (math.cos(h1), math.sin(h1)), 1.0 / bend).length
    info = {"map": source, "world": kind, "status": str(plan.status),
            "clips": list(plan.clips), "states": list(plan.states),
            "times": [round(v, 4) for v in plan.times.tolist()],
            "poses": [[round(x, 4), round(y, 4), round(math.degrees(h), 4)]
                      for x, y, h in plan.poses.tolist()],
            "time": plan.time, "cost": plan.cost, "length": plan.length, "dubins": dubins,
            "position_error": None if end is None else math.dist(end[:2], goal[:2]),
            "heading_error": None if end is None else
            abs(math.degrees(wrap_angle(float(end[2]) - goal[2]))),
            "expanded": plan.stats.expanded, "seconds": elapsed, "render": args.render}
    info = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in info.items()}
    if args.json:
        print(to_json(info))
        return 0
    where = f"on {source} ({kind})" if source else "on the open plane"
    if not plan.found:
        print(f"{info['status']}: no clip sequence {where} after {info['expanded']} expansions "
              f"in {elapsed * 1e3:,.1f} ms" + (f"; wrote {args.render}" if args.render else ""))
        return 0
    print(f"{info['status']} {where}: {len(plan.clips)} clips, {plan.time:.2f} s (cost "
          f"{plan.cost:.2f}), {plan.length:.2f} m of root motion"
          + ("" if dubins is None else f" (the Dubins path between its ends: {dubins:.2f} m)")
          + f"; ends "
          f"{info['position_error']:.3f} m from the goal point, {info['heading_error']:.1f}° "
          f"from its heading; {info['expanded']} expansions in {elapsed * 1e3:,.1f} ms"
          + (f"; wrote {args.render}" if args.render else ""))
    width = max((len(n) for n in plan.clips), default=0)
    for k, (name, t, (x, y, h)) in enumerate(zip(plan.clips, info["times"], info["poses"])):
        print(f"  {k + 1:>2}. {t:>6.2f} s  {name:<{width}}  from ({x:.2f}, {y:.2f}) facing "
              f"{round(h)}°")
    x, y, h = info["poses"][-1]
    print(f"      {info['times'][-1]:>6.2f} s  {plan.states[-1]:<{width}}  at ({x:.2f}, "
          f"{y:.2f}) facing {round(h)}°")
    return 0


def _ends(args: argparse.Namespace) -> tuple[list[tuple[float, float]],
                                             list[tuple[float, float]]]:
    """The characters' starts and goals."""
    if args.starts is None and args.goals is None:
        return [WALK[0]], [WALK[1]]
    starts, goals = args.starts or [], args.goals or []
    if len(starts) != len(goals):
        raise InvalidQueryError(f"{len(starts)} --from and {len(goals)} --to: give one of "
                                "each per character")
    return starts, goals


def _plan_row(plan: Any, start: tuple[float, float], goal: tuple[float, float],
              every: float) -> dict[str, Any]:
    """One character's plan as the JSON output holds it."""
    import numpy as np

    from .._validate import allocation
    allocation("--com-every samples", (float(plan.times[-1]) - float(plan.times[0])) / every + 1)
    t = np.arange(float(plan.times[0]), float(plan.times[-1]) + every / 2, every)
    com, _ = plan.trajectory(t)
    return {"from": list(start), "to": list(goal), "status": str(plan.status),
            "steps": len(plan), "waits": int(plan.standing.sum()),
            "duration": round(float(plan.times[-1] - plan.times[0]), 4),
            "cost": round(plan.cost, 4), "epsilon": plan.epsilon,
            "expanded": plan.stats.expanded, "times": _rounded(plan.times),
            "feet": _rounded(plan.feet),
            "sides": ["right" if s > 0 else "left" for s in plan.sides.tolist()],
            "orientations": _rounded(np.degrees(plan.orientations)), "com": _rounded(plan.com),
            "com_samples": _rounded(np.column_stack([t, com]))}


def cmd_footsteps(args: argparse.Namespace) -> int:
    from ..demo.planning import least_gap
    from ..planning import plan_crowd, run_footstep_crowd
    from ..planning.footsteps import clashes
    from ..viz.planning import animate_footsteps

    starts, goals = _ends(args)
    options = {"goal_radius": args.goal_radius, "clearance": args.clearance,
               "max_expansions": args.max_expansions, "epsilon": args.epsilon,
               "curve": args.curve}
    t0 = time.perf_counter()
    if args.rolling is None:
        plans = plan_crowd(starts, goals, repair=args.repair, **options)
    elif not args.repair:
        raise InvalidQueryError("--no-repair is for planning in priority order; --rolling "
                                "replans instead")
    else:
        plans = run_footstep_crowd(starts, goals, interval=args.rolling,
                                   duration=args.duration, **options)
    elapsed = time.perf_counter() - t0
    if args.render:
        animate_footsteps(args.render, plans)
    pairs = list(itertools.combinations(range(len(plans)), 2))
    met = [[i, j] for i, j in pairs if clashes(plans[i], plans[j])]
    gap = min((least_gap(plans[i], plans[j]) for i, j in pairs), default=None)
    info = {"mode": "priority" if args.rolling is None else "rolling",
            "plans": [_plan_row(p, s, g, args.com_every)
                      for p, s, g in zip(plans, starts, goals)],
            "clashes": met, "least_gap": None if gap is None else round(gap, 4),
            "seconds": round(elapsed, 3), "render": args.render}
    if args.json:
        print(to_json(info))
        return 0
    how = ("in priority order" + (" with repair"
                                  if args.repair and len(plans) > 1 else "")
           if args.rolling is None else f"on a rolling horizon, replanning every "
           f"{args.rolling:g} s")
    arrived = sum(p.found for p in plans)
    print(f"footsteps for {len(plans)} character{'s' if len(plans) > 1 else ''} {how}: "
          f"{arrived} arrived; planned in {elapsed * 1e3:,.0f} ms"
          + (f"; wrote {args.render}" if args.render else ""))
    for k, row in enumerate(info["plans"]):
        eps = "" if math.isinf(row["epsilon"]) else f" (ε {row['epsilon']:g})"
        waits = f" ({row['waits']} waits)" if row["waits"] else ""
        print(f"  {k}: {row['status']}, {row['steps']} steps{waits} in {row['duration']:g} s, "
              f"{row['cost']:.1f} J{eps}; from {_xy(row['from'])} towards {_xy(row['to'])}, "
              f"ends at {_xy(row['com'][-1])}")
    if gap is not None:
        meet = ("bodies meet: " + ", ".join(f"{i} and {j}" for i, j in met)) if met \
            else "no two bodies meet"
        print(f"  {meet}; least gap {gap:.3f} m")
    return 0


def _rounded(values: Any, digits: int = 4) -> Any:
    """An array as nested lists of floats rounded to ``digits`` (no ``-0.0``)."""
    import numpy as np

    return (np.round(np.asarray(values, dtype=np.float64), digits) + 0.0).tolist()


def _xy(p: Any) -> str:
    return f"({p[0]:.2f}, {p[1]:.2f})"


def cmd_motion_fit(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    import numpy as np

    from ..planning import (
        ControllerParams,
        MotionModel,
        SimulatedController,
        SimulationSettings,
        compare_models,
        fit_motion_model,
    )

    given = {name: getattr(args, name) for name in CONTROLLER if getattr(args, name) is not None}
    if "turn_rate" in given:
        given["turn_rate"] = math.radians(given["turn_rate"])
    params = ControllerParams(**given)
    old = None if args.against is None else MotionModel.load(args.against)
    t0 = time.perf_counter()
    fit = fit_motion_model(SimulatedController(params=params), rough_min_speed=args.rough_min,
                           rough_max_speed=args.rough_max,
                           settings=SimulationSettings(samples=args.samples,
                                                       jitter=params.jitter),
                           steps=args.steps, angle_steps=args.angle_steps)
    elapsed = time.perf_counter() - t0
    model, decel = fit.model, fit.deceleration
    if model is not None and args.output:
        model.save(args.output)
    if args.render:
        from .._io import atomic_write_bytes
        from ..viz.planning import render_deceleration_png

        atomic_write_bytes(args.render, render_deceleration_png(
            fit, title="speed lost against the distance travelled"))
    changes = None
    if old is not None and model is not None:
        changes = [{"quantity": c.quantity,
                    "at": None if c.at is None else
                    [round(math.degrees(c.at[0]), 4), round(c.at[1], 4)]
                    if isinstance(c.at, tuple) else round(c.at, 4),
                    "old": round(c.old, 4), "new": round(c.new, 4),
                    "relative": round(c.relative, 4)}
                   for c in compare_models(old, model, tolerance=args.tolerance).changes]
    controller = asdict(params)
    controller["turn_rate"] = math.degrees(params.turn_rate)
    tables: dict[str, Any] = dict.fromkeys(
        ("min_speed", "max_speed", "stop_speeds", "stop_distances", "overshoot_angles",
         "overshoot_speeds", "overshoot", "radius_speeds", "radii"))
    if model is not None:
        tables = {"min_speed": round(model.min_speed, 4), "max_speed": round(model.max_speed, 4),
                  "stop_speeds": _rounded(model.stop_speeds),
                  "stop_distances": _rounded(model.stop_distances),
                  "overshoot_angles": _rounded(np.degrees(model.overshoot_angles)),
                  "overshoot_speeds": _rounded(model.overshoot_speeds),
                  "overshoot": _rounded(model.overshoot),
                  "radius_speeds": _rounded(model.radius_speeds), "radii": _rounded(model.radii)}
    info = {"controller": {k: round(v, 6) for k, v in controller.items()},
            "fitted": model is not None,
            "failures": [[what, str(reason)] for what, reason in fit.failures], **tables,
            "deceleration": None if decel is None else _rounded(decel.coefficients, 6),
            "residuals": None if decel is None else _rounded(decel.residuals, 6),
            "rms": None if decel is None else round(decel.rms, 6),
            "max_error": None if decel is None else round(decel.max_error, 6),
            "runs": len(fit.runs), "changes": changes,
            "output": args.output if model is not None else None,
            "seconds": round(elapsed, 3), "render": args.render}
    if args.json:
        print(to_json(info))
        return 0
    if model is None:
        print(f"no motion model after {len(fit.runs)} command runs: "
              + "; ".join(f"{what}: {reason}" for what, reason in fit.failures)
              + (f" (deceleration fit's rms residual {decel.rms:.3f} m/s)" if decel else "")
              + ("; nothing saved" if args.output else "")
              + (f"; wrote {args.render}" if args.render else ""))
        return 0
    print(f"motion model from {len(fit.runs)} command runs in {elapsed * 1e3:,.0f} ms: speeds "
          f"{model.min_speed:.3f} to {model.max_speed:.3f} m/s"
          + (f"; wrote {args.output}" if args.output else "")
          + (f"; wrote {args.render}" if args.render else ""))
    if decel is not None:
        a, b, c = decel.coefficients.tolist()
        print(f"  deceleration dv(d) = {a:.4f} d² {b:+.4f} d {c:+.4f} √d m/s; residuals over "
              f"{len(decel.residuals)} distances: rms {decel.rms:.4f}, largest "
              f"{decel.max_error:.4f} m/s")
    print("  stopping distance: " + ", ".join(
        f"{d:.2f} m from {v:.2f} m/s" for v, d in zip(info["stop_speeds"],
                                                     info["stop_distances"])))
    print("  rotation radius: " + ", ".join(
        f"{r:.2f} m at {v:.2f} m/s" for v, r in zip(info["radius_speeds"], info["radii"])))
    print("  overshoot at the fastest speed: " + ", ".join(
        f"{o[-1]:.2f} m after {t:g}°" for t, o in zip(info["overshoot_angles"],
                                                     info["overshoot"])))
    if changes is not None:
        print(f"  against {args.against}: " + ("no change beyond "
                                              f"{args.tolerance:g}" if not changes else
                                              f"{len(changes)} changes beyond "
                                              f"{args.tolerance:g}"))
        for ch in changes:
            at = "" if ch["at"] is None else f" at {ch['at']}"
            print(f"    {ch['quantity']}{at}: {ch['old']:g} -> {ch['new']:g} "
                  f"({ch['relative']:.1%})")
    return 0


def cmd_locomotion(args: argparse.Namespace) -> int:
    import numpy as np

    from .._validate import time_steps
    from ..planning import (
        LocomotionExecutor,
        LocomotionPlanner,
        MoveStatus,
        hits_mark,
        locomotion_path,
    )
    from ..progress import progress

    clips = _catalogue(args.clips)
    planner = LocomotionPlanner(clips)
    planner.check_state(args.start_state)
    mesh = _world(args, radius=args.radius)
    source, _ = _describe(args, mesh)
    facing = None if args.facing is None else math.radians(args.facing)
    t0 = time.perf_counter()
    path = locomotion_path(mesh, args.start, args.goal, min_segment=args.min_segment,
                           turn_space=args.turn_space, sharp_turn=math.radians(args.sharp_turn))
    played: list[Any] = []
    track: list[Any] = []
    status, walker = MoveStatus.FAILED, None
    if path.found:
        (x0, y0), (x1, y1) = path.points[0], path.points[1]
        track.append(path.points[0])
        heading = math.radians(args.heading) if args.heading is not None \
            else math.atan2(y1 - y0, x1 - x0)
        walker = LocomotionExecutor(planner, args.start_state, (x0, y0, heading))
        walker.request(path, facing=facing)
        total = math.ceil(time_steps(args.max_seconds, args.dt, "playing"))
        for _ in progress(range(total), total, label="playing", enabled=not args.json):
            status = walker.update(args.dt)
            a = walker.action
            if a is not None and (not played or a is not played[-1]):
                played.append(a)
            track.append(walker.pose[:2])
            if status in (MoveStatus.ARRIVED, MoveStatus.FAILED):
                break
    elapsed = time.perf_counter() - t0
    end = walker.pose if walker is not None else None
    if args.render:
        from .._io import atomic_write_bytes
        from ..viz.planning import render_locomotion_png

        raw = mesh.find_path(args.start, args.goal)
        atomic_write_bytes(args.render, render_locomotion_png(
            mesh, path, actions=played, raw=raw.path if raw.found else None,
            track=np.array(track) if track else None,
            title=f"locomotion on {source}: {status.value}"))

    def pose(p: Any) -> list[float]:
        return [round(float(p[0]), 4), round(float(p[1]), 4),
                round(math.degrees(float(p[2])), 4)]

    info = {"map": source, "path_status": str(path.status), "status": status.value,
            "points": _rounded(path.points), "stops": path.stops.tolist(),
            "corridor": len(path.corridor),
            "actions": [{"clip": a.clip.name, "role": a.role.value, "start": pose(a.start),
                         "end": pose(a.end), "duration": round(a.duration, 4),
                         "loops": round(a.loops, 4)} for a in played],
            "plans": 0 if walker is None else walker.plans,
            "end": None if end is None else pose(end),
            "miss": None if end is None else round(math.dist(end[:2], args.goal), 4),
            "hits_mark": end is not None and status is MoveStatus.ARRIVED
            and hits_mark(end, args.goal, facing=facing),
            "simulated_seconds": round(max(len(track) - 1, 0) * args.dt, 4),
            "seconds": round(elapsed, 3),
            "render": args.render}
    if args.json:
        print(to_json(info))
        return 0
    where = f"on {source}"
    if not path.found:
        print(f"no path {where} from {_xy(args.start)} to {_xy(args.goal)} ({path.status})"
              + (f"; wrote {args.render}" if args.render else ""))
        return 0
    stops = int(path.stops.sum())
    print(f"{status.value} {where}: {len(path.points) - 1} segments"
          + (f" ({stops} fail-safe stop{'s' if stops > 1 else ''})" if stops else "")
          + f", {len(played)} actions in {info['plans']} action-stacks, "
          f"{info['simulated_seconds']:g} s played; ends {info['miss']:.3f} m from the mark"
          + (" (hits it)" if info["hits_mark"] else " (misses it)")
          + f"; {elapsed * 1e3:,.1f} ms" + (f"; wrote {args.render}" if args.render else ""))
    width = max((len(a["clip"]) for a in info["actions"]), default=0)
    for a in info["actions"]:
        x, y, h = a["start"]
        print(f"  {a['clip']:<{width}}  {a['role']:<13} {a['duration']:>5.2f} s  from "
              f"({x:.2f}, {y:.2f}) facing {round(h)}°")
    return 0
