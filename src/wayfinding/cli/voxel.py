"""``wayfinding voxel build|path|scen|render``: voxel worlds and sparse voxel octrees from
Moving AI ``.3dmap`` files or triangle meshes, one path, Moving AI 3D scenario runs and
pictures.

A world is a ``.3dmap`` file, a voxel grid saved by ``voxel build --grid`` (``.npz``) or, for
``build``, a mesh (``.obj``, ``.gltf``, ``.glb``) voxelized at ``--voxel-size``.  Methods:
the exact searches of :mod:`wayfinding.voxel.methods` (``astar`` by default), ``theta`` and
``lazy_theta`` (any-angle) and ``svo`` (the octree search with its default variant; the
octree is built, or read from ``--octree``).  ``--method`` picks one; ``--algo`` is its old
spelling, as for the 2D commands.  ``scen --json`` prints the object ``wayfinding scen
--json`` prints.  Exit status as for every command: 0, 1 when a scenario run finds
mismatches, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .args import add_json_option, add_method_option, positive_float, positive_int, to_json

MESHES = (".obj", ".gltf", ".glb")
WORLD_HELP = "a Moving AI .3dmap or a voxel grid saved by 'voxel build --grid' (.npz)"


def cell3(text: str) -> tuple[int, int, int]:
    """A voxel ``X,Y,Z`` of three integers."""
    try:
        x, y, z = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a voxel 'X,Y,Z' of three "
                                         "integers") from None
    return x, y, z


def _methods() -> dict[str, str]:
    from ..bench.voxel import voxel_methods

    return voxel_methods()


def add_voxel_parser(sub: Any) -> None:
    """Register the ``voxel`` subcommand on an argparse subparsers object."""
    methods = _methods()
    method_help = "search method (default astar). " + "; ".join(
        f"{k}: {v}" for k, v in methods.items())
    v = sub.add_parser("voxel", help="voxels: build voxel worlds and octrees, find 3D paths, "
                       "check .3dscen files, draw them",
                       description="3D voxel worlds (Moving AI .3dmap, meshes) and sparse "
                                   "voxel octrees.")
    vsub = v.add_subparsers(dest="voxel_command", required=True)

    b = vsub.add_parser("build", help="read or voxelize a world; save its grid and/or octree",
                        description="Read a .3dmap (or a saved grid), or voxelize a mesh, "
                        "and save the voxel grid and/or its sparse voxel octree.")
    b.add_argument("world", help=f"{WORLD_HELP}, or a mesh: {', '.join(MESHES)}")
    b.add_argument("--grid", metavar="OUT.npz", help="save the voxel grid here")
    b.add_argument("--octree", metavar="OUT.npz", help="build the octree and save it here")
    b.add_argument("--voxel-size", type=positive_float, default=None,
                   help="meshes: the edge of a voxel, world units (required for a mesh)")
    b.add_argument("--solid", action="store_true",
                   help="meshes: block the voxels enclosed by the surface too")
    b.add_argument("--workers", type=positive_int, default=None,
                   help="threads building the octree (default: all cores)")
    add_json_option(b)
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(run=cmd_voxel_build)

    p = vsub.add_parser("path", help="find one path between two voxels")
    p.add_argument("world", help=WORLD_HELP)
    p.add_argument("--from", dest="start", type=cell3, required=True, metavar="X,Y,Z")
    p.add_argument("--to", dest="goal", type=cell3, required=True, metavar="X,Y,Z")
    add_method_option(p, list(methods), help=method_help)
    p.add_argument("--octree", metavar="FILE", help="svo: a saved octree of this world")
    add_json_option(p)
    p.add_argument("--render", metavar="OUT", help="also draw the path (.png or .html)")
    p.set_defaults(run=cmd_voxel_path)

    s = vsub.add_parser("scen", help="solve a Moving AI .3dscen file and check the lengths",
                        description="Solve every problem of a .3dscen file (or an even "
                        "sample) and check each length against the file's optimum. "
                        f"{method_help}.")
    s.add_argument("scen", help="a Moving AI .3dscen file")
    add_method_option(s, list(methods), help=method_help)
    s.add_argument("--sample", type=positive_int, default=None, metavar="N",
                   help="solve an evenly spread sample of N problems")
    s.add_argument("--maps", action="append", metavar="DIR",
                   help="extra folder to look for the map in (repeatable)")
    s.add_argument("--octree", metavar="FILE", help="svo: a saved octree of the map")
    add_json_option(s)
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(run=cmd_voxel_scen)

    r = vsub.add_parser("render", help="draw a world: isometric .png or a 3D .html viewer")
    r.add_argument("world", help=WORLD_HELP)
    r.add_argument("-o", "--output", action="append", required=True, metavar="OUT",
                   help="picture to write (.png or .html; repeatable)")
    r.add_argument("--from", dest="start", type=cell3, metavar="X,Y,Z")
    r.add_argument("--to", dest="goal", type=cell3, metavar="X,Y,Z")
    add_method_option(r, list(methods), help=method_help)
    r.add_argument("--octree", metavar="FILE", help="svo: a saved octree of this world")
    r.add_argument("--nodes", action="store_true",
                   help="svo: outline the octree nodes the path passes")
    r.add_argument("--up", choices=("x", "y", "z"), default="y",
                   help="the world's up axis (default y)")
    r.add_argument("--size", type=positive_int, default=800,
                   help=".png: the picture's longer side in pixels (default 800)")
    r.set_defaults(run=cmd_voxel_render)


# ---------------------------------------------------------------------------- helpers
def load_world(path: str) -> Any:
    """The voxel grid of a ``.3dmap`` or a saved grid (``.npz``)."""
    from ..errors import InvalidQueryError
    from ..voxel.grid import VoxelGrid
    from ..voxel.movingai3d import read_3dmap

    suffix = Path(path).suffix.lower()
    if suffix == ".3dmap":
        return read_3dmap(path)
    if suffix == ".npz":
        return VoxelGrid.load(path)
    raise InvalidQueryError(f"{path!r}: a world is a .3dmap or a saved voxel grid (.npz)")


def _octree(args: argparse.Namespace, grid: Any) -> Any:
    from ..errors import InvalidQueryError
    from ..voxel.octree import SparseVoxelOctree

    if getattr(args, "octree", None) is None:
        return None
    if args.method != "svo":
        raise InvalidQueryError(f"--octree {args.octree}: method {args.method!r} takes no "
                                "octree (only svo does)")
    return SparseVoxelOctree.load(args.octree, grid)


def _mb(n: float) -> str:
    return f"{n / 1e6:,.2f} MB"


# ---------------------------------------------------------------------------- commands
def cmd_voxel_build(args: argparse.Namespace) -> int:
    import time

    from ..errors import InvalidQueryError
    from ..voxel.octree import SparseVoxelOctree

    if args.grid is None and args.octree is None:
        raise InvalidQueryError("nothing to save: give --grid OUT.npz and/or --octree OUT.npz")
    suffix = Path(args.world).suffix.lower()
    t0 = time.perf_counter()
    if suffix in MESHES:
        from ..navmesh3d import Level
        from ..voxel.voxelize import voxelize

        if args.voxel_size is None:
            raise InvalidQueryError(f"{args.world}: a mesh needs --voxel-size")
        level = Level.read(args.world, degenerate="drop")
        grid = voxelize(level.vertices, level.triangles, voxel_size=args.voxel_size,
                        solid=args.solid)
    else:
        if args.voxel_size is not None or args.solid:
            raise InvalidQueryError("--voxel-size and --solid only apply to meshes "
                                    f"({', '.join(MESHES)})")
        grid = load_world(args.world)
    read_s = time.perf_counter() - t0
    nx, ny, nz = grid.size
    info: dict[str, Any] = {
        "voxels": [nx, ny, nz], "free": grid.num_free, "grid_bytes": int(grid.words.nbytes),
        "dense_bytes": int(grid.num_voxels), "read_s": read_s}
    if args.grid is not None:
        grid.save(args.grid)
        info["grid"] = args.grid
    if args.octree is not None:
        tree = SparseVoxelOctree.build(grid, workers=args.workers,
                                       progress=not (args.quiet or args.json))
        tree.save(args.octree)
        mem = tree.memory()
        info.update(octree=args.octree, octree_bytes=int(mem["total"]),
                    octree_nodes=[int(n) for n in mem["nodes"]],
                    octree_build_s=tree.build_time)
    if args.json:
        print(to_json(info))
        return 0
    print(f"voxel grid: {nx} x {ny} x {nz} voxels, {grid.num_free:,} free; "
          f"{_mb(info['grid_bytes'])} bit-packed ({_mb(info['dense_bytes'])} at a byte a "
          f"voxel); read in {read_s:,.2f} s")
    if args.octree is not None:
        nodes = info["octree_nodes"]
        print(f"octree: {len(nodes)} layers, {sum(nodes):,} nodes "
              f"({', '.join(f'{n:,}' for n in nodes)} from the leaves up); "
              f"{_mb(info['octree_bytes'])} = {info['octree_bytes'] / info['grid_bytes']:.2f}"
              f" x the bit-packed grid, {info['octree_bytes'] / info['dense_bytes']:.3f} x a "
              f"byte a voxel; built in {info['octree_build_s']:,.2f} s")
    for key in ("grid", "octree"):
        if key in info:
            print(info[key])
    return 0


def _solve(args: argparse.Namespace, grid: Any) -> Any:
    from ..bench.voxel import make_voxel_solver

    solver = make_voxel_solver(grid, args.method, octree=_octree(args, grid))
    return solver.solve(args.start, args.goal)


def cmd_voxel_path(args: argparse.Namespace) -> int:
    grid = load_world(args.world)
    r = _solve(args, grid)
    if args.render:
        _save(args.render, grid, r, args)
    if args.json:
        print(to_json({
            "found": r.found, "cost": r.cost if r.found else None, "algorithm": r.algorithm,
            "path": r.path.tolist(), "expanded": r.stats.expanded,
            "generated": r.stats.generated, "elapsed_us": r.stats.elapsed * 1e6}))
    elif r.found:
        print(f"cost {r.cost:.8f}, {len(r.path) - 1} steps, {r.stats.expanded} expanded, "
              f"{r.stats.elapsed * 1e6:.0f} µs")
        print(" ".join(f"{x},{y},{z}" for x, y, z in r.path.tolist()))
    else:
        print(f"no path from {args.start} to {args.goal}")
    if args.render:
        print(f"picture: {args.render}", file=sys.stderr)
    return 0


def cmd_voxel_scen(args: argparse.Namespace) -> int:
    from ..bench.voxel import find_map3d, run_scenario3d
    from ..voxel.movingai3d import read_3dmap, read_3dscen

    scen = read_3dscen(args.scen)
    grid = octree = None
    if args.octree is not None:
        grid = read_3dmap(find_map3d(scen, maps=args.maps or ()))
        octree = _octree(args, grid)
    report = run_scenario3d(args.scen, method=args.method, sample=args.sample,
                            maps=args.maps or (), show_progress=not (args.json or args.quiet),
                            scenario=scen, grid=grid, octree=octree)
    if args.json:
        print(to_json(report.as_dict()))
    else:
        print(report.table())
        for w in report.worst:
            print(f"  {'mismatch' if report.exact else 'failure'} at line {w['line']}: "
                  f"{w['start']} -> {w['goal']}: optimal {w['optimal']}, found {w['found']}")
    return 1 if report.mismatches else 0


def _save(out: str, grid: Any, r: Any, args: argparse.Namespace,
          boxes: list[list[list[int]]] | None = None) -> None:
    from ..viz.voxel import save_voxels

    options: dict[str, Any] = {"paths": [r] if r is not None else None, "start": args.start,
                               "goal": args.goal, "up": getattr(args, "up", "y"),
                               "boxes": boxes}
    if Path(out).suffix.lower() == ".png":
        options["size"] = getattr(args, "size", 800)
    save_voxels(out, grid, **options)


def node_boxes(tree: Any, links: Any) -> list[list[list[int]]]:
    """The boxes ``[lowest cell, the cell past it]`` of octree nodes given by links."""
    out = []
    for link in dict.fromkeys(int(x) for x in links):
        (x, y, z), edge = tree.node_box(link)
        out.append([[x, y, z], [x + edge, y + edge, z + edge]])
    return out


def cmd_voxel_render(args: argparse.Namespace) -> int:
    from ..errors import InvalidQueryError

    grid = load_world(args.world)
    if (args.start is None) != (args.goal is None):
        raise InvalidQueryError("give both --from and --to, or neither")
    if args.nodes and args.method != "svo":
        raise InvalidQueryError("--nodes shows the octree nodes of an svo path: add "
                                "--method svo")
    r = None
    boxes = None
    if args.start is not None:
        from ..bench.voxel import make_voxel_solver
        from ..voxel.octree import OctreePathResult, SparseVoxelOctree

        tree = None
        if args.method == "svo":
            tree = _octree(args, grid) or SparseVoxelOctree.build(grid)
        r = make_voxel_solver(grid, args.method, octree=tree).solve(args.start, args.goal)
        if args.nodes and tree is not None and isinstance(r, OctreePathResult) and r.found:
            boxes = node_boxes(tree, r.nodes)
    for out in args.output:
        _save(out, grid, r, args, boxes)
        print(out)
    return 0
