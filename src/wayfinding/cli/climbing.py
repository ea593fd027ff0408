"""``wayfinding climb path``: a climb path on a generated climbing wall
(:func:`~wayfinding.climbing.climbing_wall`) for a character's capabilities, from the ground
(through the cheapest clue link), an element or a point to the roof or another place;
prints its steps by kind, length and cost, and draws the wall, the path and its Bézier
spline."""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from typing import Any

from .args import add_json_option, non_negative_float, non_negative_int, positive_int, to_json

#: What ``--from`` and ``--to`` take.
PLACES = ("ground (the cheapest clue link), an element's name (its middle), NAME:D (D metres "
          "along it) or a point X,Y,Z (the nearest climbable point)")


#: The help of each capability option.
CAPABILITIES = {"max_jump_distance": "the longest jump, straight-line metres",
                "max_jump_height": "the highest rise of a jump, metres",
                "max_drop_height": "the deepest drop, metres",
                "max_jump_angle": "the steepest jump above the horizontal, degrees (0..90)"}


def place(text: str) -> tuple[str, Any]:
    """A place on the wall: ``("ground", None)``, ``("point", (x, y, z))`` or ``("element",
    (name, distance or None))``."""
    if text == "ground":
        return "ground", None
    if "," in text:
        try:
            xyz = tuple(float(v) for v in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a point 'X,Y,Z' of three "
                                             "numbers") from None
        if len(xyz) != 3 or not all(math.isfinite(v) for v in xyz):
            raise argparse.ArgumentTypeError(f"{text!r} is not a point 'X,Y,Z' of three "
                                             "finite numbers")
        return "point", xyz
    name, sep, at = text.partition(":")
    if not name:
        raise argparse.ArgumentTypeError(f"{text!r} names no element")
    if not sep:
        return "element", (name, None)
    try:
        return "element", (name, non_negative_float(at))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r}: the distance along {name!r} must be a "
                                         "number >= 0") from None


def _kinds(text: str) -> frozenset[str]:
    from ..climbing import ElementKind

    names = {k.value for k in ElementKind}
    kinds = frozenset(v.strip() for v in text.split(","))
    if not kinds <= names:
        raise argparse.ArgumentTypeError(
            f"{text!r}: element kinds are {', '.join(sorted(names))}")
    return kinds


def add_climb_parser(sub: Any) -> None:
    """Register the ``climb`` subcommand and its ``path`` command."""
    from ..climbing import Capabilities

    c = sub.add_parser("climb", help="vehicles and traversal: climb paths over ledges, pipes "
                       "and ladders on a generated climbing wall",
                       description="Climb graphs of traversal markup and climb paths on them.")
    csub = c.add_subparsers(dest="climb_command", required=True)
    p = csub.add_parser(
        "path", help="a climb path on a generated wall, its steps, length and cost",
        description="Generate a climbing wall (bays 3 m wide, floors 3 m high, ledges, "
        "pipes, ladders and blockers over a navmesh ground), build its climb graph for the "
        "character's capabilities and find the cheapest climb between two places.")
    p.add_argument("--seed", type=non_negative_int, default=0, help="the wall's seed (default 0)")
    p.add_argument("--bays", type=positive_int, default=6, help="bays across (2..64, default 6)")
    p.add_argument("--floors", type=positive_int, default=4,
                   help="floors up (1..32, default 4)")
    p.add_argument("--from", dest="start", type=place, default=("ground", None),
                   metavar="PLACE", help=f"where the climb starts: {PLACES} (default ground)")
    p.add_argument("--to", dest="goal", type=place, default=("element", ("roof", None)),
                   metavar="PLACE", help="where it ends, as --from (default roof)")
    defaults = Capabilities()
    for f in dataclasses.fields(Capabilities):
        value = getattr(defaults, f.name)
        if f.name == "kinds":
            p.add_argument("--kinds", type=_kinds, default=None, metavar="KIND,...",
                           help="the element kinds the character climbs (default all: "
                           f"{','.join(sorted(k.value for k in value))})")
        else:
            p.add_argument("--" + f.name.replace("_", "-"), type=non_negative_float,
                           default=None, metavar="M" if "angle" not in f.name else "DEG",
                           help=f"{CAPABILITIES[f.name]} (default {value:g})")
    p.add_argument("--method", choices=("astar", "dijkstra"), default="astar",
                   help="search method (default astar; both exact)")
    p.add_argument("--render", metavar="OUT.png",
                   help="draw the wall, its links, the path and its spline")
    add_json_option(p)
    p.set_defaults(run=cmd_climb_path)


def _resolve(wall: Any, graph: Any, clues: list[Any], where: tuple[str, Any], name: str
             ) -> Any:
    """A place as :func:`~wayfinding.climbing.find_climb_path` takes it."""
    from ..climbing import nearest_position
    from ..errors import InvalidQueryError

    kind, value = where
    if kind == "ground":
        if not clues:
            raise InvalidQueryError(f"{name}: no clue link joins the ground to the climb")
        return clues
    if kind == "point":
        return nearest_position(graph, value)
    element, distance = value
    return wall.position(element, distance=distance)


def cmd_climb_path(args: Any) -> int:
    from ..climbing import Capabilities, ClimbSpline, EdgeKind, climbing_wall, find_climb_path
    from ..viz.climbing import save_climb

    options = {f.name: getattr(args, f.name) for f in dataclasses.fields(Capabilities)
               if getattr(args, f.name) is not None}
    caps = Capabilities(**options)
    t0 = time.perf_counter()
    wall = climbing_wall(bays=args.bays, floors=args.floors, seed=args.seed)
    graph = wall.graph(capabilities=caps)
    built = time.perf_counter() - t0
    clues = wall.clues(graph)
    start = _resolve(wall, graph, clues, args.start, "--from")
    goal = _resolve(wall, graph, clues, args.goal, "--to")
    t0 = time.perf_counter()
    path = find_climb_path(graph, start, goal, method=args.method)
    searched = time.perf_counter() - t0
    owner = graph.edge_elements()
    steps = {"climb": 0, "jump": 0, "drop": 0, "clue": 0}
    route: list[str] = []
    for e in path.edges.tolist():
        kind = "clue" if e < 0 else EdgeKind(int(graph.edge_kinds[e])).name.lower()
        steps[kind] += 1
        if e >= 0 and owner[e] >= 0 and (not route or route[-1] != wall.names[owner[e]]):
            route.append(wall.names[owner[e]])
    spline = ClimbSpline(path.points) if len(path.points) > 1 else None
    if args.render:
        save_climb(args.render, graph, blockers=wall.blockers, clues=clues,
                   paths=[path] if path.found else [],
                   splines=[spline] if spline is not None else [],
                   title=f"climbing wall, seed {args.seed}: "
                   + (f"{path.length:.1f} m, cost {path.cost:.1f}" if path.found
                      else "no climb"))
    info = {"seed": args.seed, "bays": args.bays, "floors": args.floors,
            "elements": len(wall.elements), "nodes": graph.num_nodes,
            "edges": len(graph.edges), "links": graph.num_links, "found": path.found,
            "length": round(path.length, 4), "cost": round(path.cost, 4), "steps": steps,
            "route": route, "points": [[round(v, 4) for v in p] for p in path.points.tolist()],
            "spline_length": None if spline is None else round(spline.length, 4),
            "build_seconds": round(built, 4), "search_seconds": round(searched, 5),
            "render": args.render}
    if args.json:
        print(to_json(info))
    elif not path.found:
        print(f"climbing wall seed {args.seed} ({args.bays} x {args.floors}): no climb "
              "between these places for this character"
              + (f"; wrote {args.render}" if args.render else ""))
    else:
        kinds = ", ".join(f"{n} {k}" for k, n in steps.items() if n)
        print(f"climbing wall seed {args.seed} ({args.bays} x {args.floors}, "
              f"{graph.num_nodes} nodes, {graph.num_links} jump/drop links): "
              f"{len(path.edges)} steps ({kinds}), {path.length:.2f} m, cost {path.cost:.2f}"
              f"; along {' > '.join(route) or 'no element'}"
              + (f"; wrote {args.render}" if args.render else ""))
    return 0
