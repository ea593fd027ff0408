"""``wayfinding world``: build a world representation from a Moving AI map's obstacles (or a
hex picture), optionally find a path between two world points, print a summary and draw it."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from ..errors import InvalidQueryError
from .args import (
    add_json_option,
    add_method_option,
    non_negative_float,
    non_negative_int,
    point,
    positive_float,
    positive_int,
    to_json,
)

if TYPE_CHECKING:
    from ..graph import DirichletDomains, Roadmap, VisibilityGraph, WaypointGraph
    from ..grid import HexGrid

KINDS = ("waypoints", "dirichlet", "visibility", "roadmap", "hex")


def add_world_parser(sub: Any) -> None:
    """Register the ``world`` subcommand on an argparse subparsers object."""
    w = sub.add_parser(
        "world", help="graphs and world graphs: build a waypoint, Dirichlet, visibility, "
        "roadmap or hex world, find a path, draw it",
        description="Build a world representation from the obstacles of a Moving AI .map "
        "(blocked cells become rectangles; cell (x, y) is the unit square at (x, y)) or, for "
        "hex, from an ASCII hex picture; optionally find a path between two world points.")
    w.add_argument("kind", choices=KINDS, help="representation to build")
    w.add_argument("map", help="a Moving AI .map file (hex: an ASCII hex picture)")
    w.add_argument("--from", dest="start", type=point, metavar="X,Y",
                   help="path start (world point)")
    w.add_argument("--to", dest="goal", type=point, metavar="X,Y",
                   help="path goal (world point)")
    w.add_argument("--radius", type=non_negative_float, default=0.3,
                   help="agent radius in world units (default 0.3)")
    w.add_argument("--spacing", type=positive_float, default=2.0,
                   help="waypoints/dirichlet: lattice step of the points (default 2)")
    w.add_argument("--max-link", type=positive_float, default=None,
                   help="longest link (default: 1.5 x spacing for waypoints, else none)")
    w.add_argument("--adjacency", choices=("auto", "exact", "raster"), default="auto",
                   help="dirichlet: how bordering domains are found (exact needs the "
                   "[geometry] extra; default auto = exact)")
    w.add_argument("--samples", type=positive_int, default=500,
                   help="roadmap: samples (default 500)")
    w.add_argument("--k", type=positive_int, default=8, help="roadmap: neighbours (default 8)")
    w.add_argument("--seed", type=non_negative_int, default=0,
                   help="roadmap: random seed (default 0)")
    w.add_argument("--layout", default="pointy", help="hex: pointy or flat (default pointy)")
    w.add_argument("--size", type=positive_float, default=1.0, help="hex: hex size (default 1)")
    add_method_option(w, ("astar", "dijkstra"))
    w.add_argument("-o", "--output", metavar="OUT.svg", help="draw the world (and path)")
    add_json_option(w)
    w.set_defaults(run=cmd_world)


def build_world(args: argparse.Namespace
                ) -> HexGrid | VisibilityGraph | Roadmap | WaypointGraph | DirichletDomains:
    """The representation the arguments describe."""
    from ..geometry import Obstacles
    from ..graph import DirichletDomains, Roadmap, VisibilityGraph, WaypointGraph
    from ..graph.waypoints import lattice_points
    from ..grid import HexGrid, read_map

    if args.kind == "hex":
        return HexGrid.from_file(args.map, layout=args.layout, size=args.size)
    grid = read_map(args.map)
    obstacles = Obstacles.from_grid(grid)
    s = grid.cell_size
    bounds = (grid.origin[0], grid.origin[1], grid.origin[0] + grid.width * s,
              grid.origin[1] + grid.height * s)
    r = args.radius
    if args.kind == "visibility":
        return VisibilityGraph.build(obstacles, radius=r, bounds=bounds,
                                     max_link=args.max_link or float("inf"))
    if args.kind == "roadmap":
        return Roadmap.build(obstacles, bounds, n=args.samples, k=args.k, radius=r,
                             seed=args.seed, max_link=args.max_link or float("inf"))
    points = lattice_points(obstacles, bounds, args.spacing, radius=r)
    if not len(points):
        raise InvalidQueryError(f"no lattice point with spacing {args.spacing} is clear for "
                                f"radius {r}")
    if args.kind == "waypoints":
        return WaypointGraph.connect(points, obstacles, radius=r,
                                     max_link=args.max_link or 1.5 * args.spacing)
    return DirichletDomains(points, obstacles=obstacles, radius=r, bounds=bounds,
                            adjacency=args.adjacency)


def cmd_world(args: argparse.Namespace) -> int:
    from ..grid import HexGrid

    if (args.start is None) != (args.goal is None):
        raise InvalidQueryError("give both --from and --to, or neither")
    t0 = time.perf_counter()
    world = build_world(args)
    build = time.perf_counter() - t0
    if isinstance(world, HexGrid):
        summary: dict[str, Any] = {"kind": "hex", "nodes": int(world.passable.sum()),
                                   "edges": world.to_csr().num_edges // 2}
    else:
        summary = {"kind": args.kind, "nodes": world.num_nodes, "edges": world.num_edges,
                   "components": int(world.components.max()) + 1 if world.num_nodes else 0}
    summary["build_s"] = round(build, 4)
    result = None
    if args.start is not None:
        if isinstance(world, HexGrid):
            a, b = (world.cell(world.quantize(p)[0], name=n, passable=True)
                    for p, n in ((args.start, "start"), (args.goal, "goal")))
            result = world.find_path(a, b, method=args.method)
        else:
            result = world.find_path(args.start, args.goal, method=args.method)
        summary.update(found=result.found, cost=result.cost if result.found else None,
                       path=result.path.tolist())
    if args.output:
        from ..viz.graphs import save_world

        ends = {}
        if result is not None:
            ends = {"start": args.start, "goal": args.goal} if not isinstance(world, HexGrid) \
                else {"start": result.path[0], "goal": result.path[-1]} if result.found else {}
        save_world(args.output, world, path=result, title=f"{args.kind}: {args.map}", **ends)
    if args.json:
        print(to_json(summary))
        return 0
    line = (f"{summary['kind']}: {summary['nodes']} nodes, {summary['edges']} edges, "
            f"built in {build:.3f} s")
    if "components" in summary:
        line += f", {summary['components']} components"
    print(line)
    if result is not None:
        print(f"path: cost {result.cost:.4f}, {len(result.path)} points" if result.found
              else "path: not found")
    if args.output:
        print(args.output)
    return 0
