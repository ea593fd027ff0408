"""``wayfinding vehicle``: ``path`` plans a car's path by hybrid A* on a Moving AI map or a
generated one (or on the navigation mesh built from it) and compares its length with the
Reeds–Shepp lower bound and the holonomic optimum; ``crossing`` runs pedestrians across a
street of moving carriages under hull steering and measures their arrivals and the least
gap to a carriage."""

from __future__ import annotations

import argparse
import math
import time
from typing import TYPE_CHECKING, Any

from ..errors import InvalidQueryError
from .args import (
    add_json_option,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    three_numbers,
    to_json,
)
from .generate import KINDS

if TYPE_CHECKING:
    from ..grid import Grid

#: The generator of each ``--generate`` kind in :mod:`wayfinding.grid.generate`.
GENERATORS = {"caves": "caves", "rooms": "rooms", "maze": "maze", "random": "random_obstacles",
              "city": "city"}


#: A pose ``X,Y,HEADING``: a world point and a heading in degrees, counter-clockwise from +x.
_pose = three_numbers("a pose 'X,Y,HEADING'")


def _size(text: str) -> tuple[int, int]:
    """A map size ``W,H`` in cells, each from 8 to 4096."""
    try:
        w, h = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size 'W,H' of two integers") \
            from None
    if not (8 <= w <= 4096 and 8 <= h <= 4096):
        raise argparse.ArgumentTypeError(f"size {w},{h} must be from 8 to 4096 cells a side")
    return w, h


def add_vehicle_parser(sub: Any) -> None:
    """Register the ``vehicle`` subcommand and its ``path`` and ``crossing`` commands."""
    v = sub.add_parser("vehicle", help="vehicles and traversal: car paths with a turning "
                       "radius by hybrid A*, pedestrians crossing a street of carriages",
                       description="Plan paths for cars and steer pedestrians round "
                       "vehicles.")
    vsub = v.add_subparsers(dest="vehicle_command", required=True)
    p = vsub.add_parser(
        "path", help="plan a car's path by hybrid A* on a grid, print it against its "
        "lower bounds",
        description="Plan a drivable, collision-free path for a car (a rectangle turning no "
        "tighter than its radius) between two poses on a Moving AI .map or a generated map "
        "(cell (x, y) is the unit square at (x, y); y grows with the row) or on the "
        "navigation mesh built from it, and compare its "
        "length with the obstacle-free Reeds-Shepp length (a lower bound) and the holonomic "
        "optimum (the shortest 8-connected cell path over the cells at least half the car's "
        "width from every blocked cell).")
    map_options(p, "a Moving AI .map file (or give --generate)", size=64, corridor=5)
    p.add_argument("--from", dest="start", type=_pose, required=True, metavar="X,Y,HEADING",
                   help="start pose: the car's centre (world units) and heading (degrees "
                   "counter-clockwise from +x)")
    p.add_argument("--to", dest="goal", type=_pose, required=True, metavar="X,Y,HEADING",
                   help="goal pose, as --from")
    p.add_argument("--radius", type=positive_float, default=4.0,
                   help="turning radius of the car's centre, world units (default 4)")
    p.add_argument("--length", type=positive_float, default=3.0,
                   help="the car's length, world units (default 3)")
    p.add_argument("--width", type=positive_float, default=1.5,
                   help="the car's width, world units (default 1.5)")
    p.add_argument("--no-reverse", dest="reverse", action="store_false",
                   help="drive forward only")
    p.add_argument("--reverse-cost", type=_reverse_cost, default=1.0,
                   help="cost of a unit driven in reverse, >= 1 (default 1)")
    p.add_argument("--navmesh", action="store_true",
                   help="plan on the navigation mesh built from the map (the car's centre "
                   "on the mesh, its rectangle inside the mesh's walls) instead of its cells")
    p.add_argument("--max-expansions", type=non_negative_int, default=200_000,
                   help="give up after this many expansions (default 200000)")
    add_json_option(p)
    p.add_argument("--render", metavar="OUT.png",
                   help="draw the map, the car every car length and the path by gear")
    p.set_defaults(run=cmd_car_path)

    c = vsub.add_parser(
        "crossing", help="pedestrians cross a street of moving carriages, steering round "
        "their hulls; print the metrics",
        description="Pedestrians walk from the kerb at y = 0 to y = 10 across a two-lane "
        "street of moving carriages (lanes at y = 3 and y = 7), steering round the carriages' "
        "convex hulls; print how many arrive, when, and the least gap between a "
        "pedestrian's disc and a carriage.")
    c.add_argument("--pedestrians", type=positive_int, default=5,
                   help="pedestrians, spread along the kerb (default 5)")
    c.add_argument("--carriages", type=positive_int, default=3,
                   help="carriages per lane, 11 m apart (default 3)")
    c.add_argument("--radius", type=positive_float, default=0.3,
                   help="pedestrian radius, m (default 0.3)")
    c.add_argument("--speed", type=positive_float, default=1.4,
                   help="pedestrian speed, m/s (default 1.4)")
    c.add_argument("--carriage-speed", type=non_negative_float, default=1.0,
                   help="carriage speed, m/s (default 1)")
    c.add_argument("--margin", type=non_negative_float, default=0.25,
                   help="extra clearance kept from the carriages, m (default 0.25)")
    c.add_argument("--brake-horizon", type=non_negative_float, default=2.0,
                   help="how far ahead (s) a pedestrian looks for a carriage whose way it "
                   "would cut, slowing down to pass behind it; 0 turns braking off "
                   "(default 2)")
    c.add_argument("--dt", type=positive_float, default=0.05,
                   help="time step, s (default 0.05)")
    c.add_argument("--duration", type=positive_float, default=40.0,
                   help="simulated time, s (default 40)")
    c.add_argument("--seed", type=non_negative_int, default=0,
                   help="seed of the start and carriage jitter (default 0)")
    add_json_option(c)
    c.add_argument("--render", metavar="OUT.gif", help="write the run as an animated GIF")
    c.set_defaults(run=cmd_crossing)


def _reverse_cost(text: str) -> float:
    value = positive_float(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be a number >= 1")
    return value


def map_options(p: Any, where: str, *, size: int, corridor: int, note: str = "") -> None:
    """A map to plan on (:func:`_load_map`): a file (``where`` says which), or a generated
    one of ``size`` × ``size`` cells by default, its mazes and rooms with corridors
    ``corridor`` cells wide; ``note`` ends the ``--generate`` help."""
    p.add_argument("map", nargs="?", help=where)
    p.add_argument("--generate", choices=KINDS, metavar="KIND",
                   help=f"plan on a generated map instead: {', '.join(KINDS)} (as "
                   f"`wayfinding generate` makes them{note})")
    p.add_argument("--size", type=_size, default=(size, size), metavar="W,H",
                   help=f"--generate: columns and rows (default {size},{size})")
    p.add_argument("--corridor", type=positive_int, default=corridor,
                   help=f"--generate maze and rooms: corridor width in cells (default "
                   f"{corridor})")
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="--generate: random seed (default 0)")


def _load_map(args: argparse.Namespace) -> Grid:
    """The map file, or the generated map, the arguments name."""
    from ..grid import generate, read_map

    if (args.map is None) == (args.generate is None):
        raise InvalidQueryError("give a .map file or --generate KIND, not both or neither")
    if args.map is not None:
        return read_map(args.map)
    w, h = args.size
    extra = {"corridor": args.corridor} if args.generate in ("maze", "rooms") else {}
    return getattr(generate, GENERATORS[args.generate])(w, h, seed=args.seed, **extra)


def cmd_car_path(args: argparse.Namespace) -> int:
    from ..navmesh import NavMesh
    from ..vehicles import car_path_bounds, plan_car_path
    from ..viz.vehicles import save_car_path

    grid = _load_map(args)
    start, goal = ((x, y, math.radians(h)) for x, y, h in (args.start, args.goal))
    car = {"length": args.length, "width": args.width}
    world = NavMesh.build(grid) if args.navmesh else grid
    path = plan_car_path(world, start, goal, turning_radius=args.radius, **car,
                         reverse=args.reverse, reverse_cost=args.reverse_cost,
                         max_expansions=args.max_expansions)
    rs, holonomic = car_path_bounds(grid, start, goal, turning_radius=args.radius,
                                    width=args.width)
    if args.render:
        save_car_path(args.render, grid, path, **car, start_pose=start, goal_pose=goal,
                      title=f"car path: {args.map or args.generate}")
    info = {"map": args.map or f"{args.generate} {args.size[0]}x{args.size[1]} seed "
            f"{args.seed}", "world": "navmesh" if args.navmesh else "grid",
            "status": str(path.status), "length": path.length, "cost": path.cost,
            "cusps": path.cusps, "reeds_shepp": rs, "holonomic": holonomic,
            "expanded": path.stats.expanded, "seconds": path.stats.elapsed,
            "render": args.render}
    info = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in info.items()}
    if args.json:
        print(to_json(info))
        return 0
    bounds = {"the Reeds-Shepp lower bound": info["reeds_shepp"],
              "the holonomic optimum": info["holonomic"]}
    if path.found:
        against = ", ".join(f"{path.length / v:.3f} x {k} {v}" if math.isfinite(v) else
                            f"no {k.split(' ', 1)[1]}" for k, v in bounds.items())
        print(f"{info['status']}: length {info['length']} (cost {info['cost']}), "
              f"{info['cusps']} cusp{'' if info['cusps'] == 1 else 's'}; {against}; "
              f"{info['expanded']} expansions in {info['seconds']} s")
    else:
        against = ", ".join(f"{k} {v if math.isfinite(v) else 'none'}"
                            for k, v in bounds.items())
        print(f"{info['status']}: no path after {info['expanded']} expansions in "
              f"{info['seconds']} s; {against}")
    if args.render:
        print(args.render)
    return 0


def cmd_crossing(args: argparse.Namespace) -> int:
    from ..vehicles import street_crossing
    from ..viz.vehicles import animate_crossing

    t0 = time.perf_counter()
    run = street_crossing(pedestrians=args.pedestrians, carriages=args.carriages,
                          radius=args.radius, speed=args.speed,
                          carriage_speed=args.carriage_speed, dt=args.dt,
                          duration=args.duration, margin=args.margin, seed=args.seed,
                          brake_horizon=args.brake_horizon)
    elapsed = time.perf_counter() - t0
    if args.render:
        animate_crossing(args.render, run)
    info = {**run.summary(), "seconds": round(elapsed, 2), "render": args.render}
    info = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in info.items()}
    print(to_json(info) if args.json else
          f"street crossing: {info['arrived']} of {info['pedestrians']} pedestrians arrived"
          + ("" if not info["arrived"] else
             f", on average after {info['t_mean']} s, the last after {info['t_last']} s")
          + f"; least gap to a carriage {info['least_gap']} m; {info['carriages']} carriages, "
          f"{info['steps']} steps in {info['seconds']} s"
          + (f"; wrote {args.render}" if args.render else ""))
    return 0
