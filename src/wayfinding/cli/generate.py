"""``wayfinding generate``: write a seeded map (caves, rooms, maze, random, city) as a Moving AI
``.map`` and, beside it, a ``.scen`` with optimal lengths from the library's Dijkstra."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .args import non_negative_float, non_negative_int, positive_int

if TYPE_CHECKING:
    from ..grid import Grid

KINDS = ("caves", "rooms", "maze", "random", "city")


def add_generate_parser(sub: Any) -> None:
    """Register the ``generate`` subcommand on an argparse subparsers object."""
    g = sub.add_parser(
        "generate", help="grids: write a generated map (.map) and its scenario (.scen)",
        description="Generate a map with a seed (the same seed gives the same map everywhere) "
        "and write it as a Moving AI .map file; unless --no-scen, also write OUT.scen with "
        "problems in Moving AI buckets (floor(length / 4)) and their optimal lengths.")
    g.add_argument("kind", choices=KINDS, help="caves (cellular automaton), rooms (rooms and "
                   "corridors), maze, random (obstacles at a density), city (blocks and streets)")
    g.add_argument("output", metavar="OUT.map", help="the map file to write")
    g.add_argument("--width", type=positive_int, default=256, help="columns (default 256)")
    g.add_argument("--height", type=positive_int, default=256, help="rows (default 256)")
    g.add_argument("--seed", type=non_negative_int, default=0, help="random seed (default 0)")
    g.add_argument("--density", type=non_negative_float, default=0.25,
                   help="random: probability that a cell is blocked (default 0.25)")
    g.add_argument("--fill", type=non_negative_float, default=0.45,
                   help="caves: initial rock probability (default 0.45)")
    g.add_argument("--corridor", type=positive_int, default=1,
                   help="maze and rooms: corridor width in cells (default 1)")
    g.add_argument("--rooms", type=positive_int, default=12, help="rooms: how many (default 12)")
    g.add_argument("--per-bucket", type=positive_int, default=10,
                   help="problems per bucket in the scenario (default 10)")
    g.add_argument("--problems", type=positive_int, default=None,
                   help="stop the scenario after this many problems (default: fill every "
                   "bucket)")
    g.add_argument("--no-scen", action="store_true", help="write the map only")
    g.set_defaults(run=cmd_generate)


def make_map(args: argparse.Namespace) -> Grid:
    """The grid that ``args`` describe."""
    from ..grid import generate

    w, h, seed = args.width, args.height, args.seed
    builders = {
        "caves": lambda: generate.caves(w, h, fill=args.fill, seed=seed),
        "rooms": lambda: generate.rooms(w, h, rooms=args.rooms, corridor=args.corridor,
                                        seed=seed),
        "maze": lambda: generate.maze(w, h, corridor=args.corridor, seed=seed),
        "random": lambda: generate.random_obstacles(w, h, density=args.density, seed=seed),
        "city": lambda: generate.city(w, h, seed=seed),
    }
    return builders[args.kind]()


def cmd_generate(args: argparse.Namespace) -> int:
    from ..grid import generate, write_map

    grid = make_map(args)
    if args.no_scen:
        write_map(grid, args.output)
        print(f"{args.output}: {grid.width}x{grid.height}, "
              f"{int(grid.passable.sum()):,} passable cells")
        return 0
    map_path, scen_path = generate.save_benchmark(
        grid, args.output, per_bucket=args.per_bucket, problems=args.problems, seed=args.seed)
    print(f"{map_path}: {grid.width}x{grid.height}, {int(grid.passable.sum()):,} passable "
          f"cells; {scen_path}")
    return 0
