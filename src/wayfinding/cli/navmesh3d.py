"""``wayfinding navmesh3d build|info|render|path|raycast|nearest``: build a voxel navmesh
from a 3D level (OBJ, glTF), report every stage's figures, draw it (top-down SVG/PNG or a
3D HTML viewer) and query it (as Detour answers).  With no option, the build uses
RecastDemo's defaults; the queries treat every polygon as walkable ground, as RecastDemo
flags it.  ``build --ledge-links`` adds jump and drop links along the mesh's ledges
(:func:`~wayfinding.navmesh3d.links.ledge_links`), saved with it; ``path`` marks the
corners where a path takes one."""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import Counter
from typing import Any

from .args import (
    add_json_option,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    three_numbers,
    to_json,
)

LEVELS = "a level: .obj, .gltf or .glb (glTF needs the mesh extra)"


def add_navmesh3d_parser(sub: Any) -> None:
    """Register the ``navmesh3d`` subcommand on an argparse subparsers object."""
    from ..navmesh3d import BuildSettings

    n = sub.add_parser("navmesh3d", help="navigation meshes 3D: build, query and draw voxel "
                       "navmeshes of 3D levels",
                       description="Voxel navigation meshes of 3D levels, built as Recast "
                                   "builds them.")
    nsub = n.add_subparsers(dest="navmesh3d_command", required=True)
    b = nsub.add_parser("build", help="build a navmesh from a level and save it (.npz)")
    b.add_argument("level", help=LEVELS)
    b.add_argument("-o", "--output", required=True, metavar="OUT.npz")
    defaults = BuildSettings()
    for f in dataclasses.fields(BuildSettings):
        flag = "--" + f.name.replace("_", "-")
        value = getattr(defaults, f.name)
        if isinstance(value, bool):
            b.add_argument(flag, type=_on_off, metavar="on|off", default=None,
                           help=f"(default {'on' if value else 'off'})")
        elif f.name == "partition":
            b.add_argument(flag, choices=("watershed", "monotone", "layers"), default=None,
                           help=f"(default {value})")
        elif f.name == "compat":
            b.add_argument(flag, choices=("recast", "none"), default=None,
                           help="recast: reproduce Recast's results (default); none: let the "
                                "grid cover the whole level")
        elif isinstance(value, int):
            b.add_argument(flag, type=positive_int, default=None, help=f"(default {value})")
        else:
            kind = positive_float if f.name in ("cell_size", "cell_height", "agent_height") \
                else non_negative_float
            b.add_argument(flag, type=kind, default=None, help=f"(default {value})")
    b.add_argument("--tile-size", type=non_negative_int, default=0,
                   help="build tile by tile, tiles this many cells wide (default 0: whole)")
    b.add_argument("--workers", type=positive_int, default=1,
                   help="threads building tiles (default 1)")
    b.add_argument("--degenerate", choices=("error", "drop", "keep"), default="error",
                   help="what to do with degenerate triangles (default: refuse the level)")
    b.add_argument("--ledge-links", action="store_true",
                   help="add jump and drop links along the mesh's ledges, checked against "
                        "the level")
    b.add_argument("--max-drop", type=positive_float, default=None,
                   help="with --ledge-links: the deepest drop (default twice the agent height)")
    b.add_argument("--max-jump", type=positive_float, default=None,
                   help="with --ledge-links: the longest link in xz (default the agent height "
                        "plus twice its radius)")
    b.add_argument("--max-jump-up", type=non_negative_float, default=None,
                   help="with --ledge-links: how high a jump may land above its start "
                        "(default 0: no higher than the climb)")
    b.add_argument("--link-spacing", type=positive_float, default=None,
                   help="with --ledge-links: samples along a ledge this far apart (default "
                        "the agent radius)")
    add_json_option(b)
    b.set_defaults(run=cmd_navmesh3d_build)
    i = nsub.add_parser("info", help="a saved navmesh's figures, stage by stage")
    i.add_argument("mesh", metavar="MESH.npz")
    add_json_option(i)
    i.set_defaults(run=cmd_navmesh3d_info)
    r = nsub.add_parser("render", help="draw a saved navmesh: .svg/.png top down, .html 3D")
    r.add_argument("mesh", metavar="MESH.npz")
    r.add_argument("-o", "--output", required=True, metavar="OUT.svg|OUT.png|OUT.html")
    r.add_argument("--level", help="draw the level's geometry too (.html)")
    r.set_defaults(run=cmd_navmesh3d_render)
    p = nsub.add_parser("path", help="the straight path between two points of a saved mesh")
    p.add_argument("mesh", metavar="MESH.npz")
    p.add_argument("--from", dest="start", type=point3, required=True, metavar="X,Y,Z")
    p.add_argument("--to", dest="goal", type=point3, required=True, metavar="X,Y,Z")
    p.add_argument("--partial", action="store_true",
                   help="when the goal cannot be reached, the path to the nearest polygon")
    p.add_argument("--crossings", choices=("area", "all"), default=None,
                   help="add a corner where the path crosses into another area (area) or "
                        "crosses any polygon edge (all)")
    add_json_option(p)
    p.set_defaults(run=cmd_navmesh3d_path)
    c = nsub.add_parser("raycast", help="walk a segment over a saved mesh to the first wall")
    c.add_argument("mesh", metavar="MESH.npz")
    c.add_argument("--from", dest="start", type=point3, required=True, metavar="X,Y,Z")
    c.add_argument("--to", dest="goal", type=point3, required=True, metavar="X,Y,Z")
    add_json_option(c)
    c.set_defaults(run=cmd_navmesh3d_raycast)
    e = nsub.add_parser("nearest", help="the polygon of a saved mesh nearest a point")
    e.add_argument("mesh", metavar="MESH.npz")
    e.add_argument("--at", type=point3, required=True, metavar="X,Y,Z")
    add_json_option(e)
    e.set_defaults(run=cmd_navmesh3d_nearest)


#: A finite world point ``X,Y,Z`` (y up).
point3 = three_numbers("a world point 'X,Y,Z'")


def _on_off(text: str) -> bool:
    if text.lower() in ("on", "true", "yes", "1"):
        return True
    if text.lower() in ("off", "false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not on or off")


def _settings(args: argparse.Namespace) -> Any:
    from ..navmesh3d import BuildSettings

    given = {f.name: getattr(args, f.name) for f in dataclasses.fields(BuildSettings)
             if getattr(args, f.name, None) is not None}
    if given.get("compat") == "none":
        given["compat"] = None
    return BuildSettings(**given)


def _figures(mesh: Any) -> dict[str, Any]:
    report = mesh.report
    return {"tiles": mesh.num_tiles, "tile_size": mesh.tile_size, "links": len(mesh.links),
            "counts": dict(report.counts), "ms": {k: round(v, 3) for k, v in report.ms.items()},
            "total_ms": round(report.total_ms, 3),
            "bytes_per_column": round(report.bytes_per_column, 2)}


def _print_figures(info: dict[str, Any], mesh: Any) -> None:
    c = info["counts"]
    kinds = sorted(Counter(x.kind for x in mesh.links).items())
    by_kind = f" ({', '.join(f'{n:,} {k}' for k, n in kinds)})" if kinds else ""
    rows = [("heightfield grid", f"{c.get('grid_width', 0)} x {c.get('grid_depth', 0)}"),
            ("solid spans", f"{c.get('spans', 0):,}"),
            ("compact spans", f"{c.get('compact_spans', 0):,}"),
            ("regions", f"{c.get('regions', 0):,}"),
            ("contours", f"{c.get('contours', 0):,}"),
            ("polygon mesh", f"{c.get('poly_verts', 0):,} vertices, "
                             f"{c.get('polygons', 0):,} polygons"),
            ("detail mesh", f"{c.get('detail_verts', 0):,} vertices, "
                            f"{c.get('detail_tris', 0):,} triangles"),
            ("tiles", f"{info['tiles']} (tile size {info['tile_size'] or 'whole'})"),
            ("off-mesh links", f"{info['links']:,}{by_kind}"),
            ("memory", f"{info['bytes_per_column']:.1f} bytes per column")]
    for name, value in rows:
        print(f"{name:18s}{value}")
    print("build times (ms): " + ", ".join(f"{k} {v:.2f}" for k, v in info["ms"].items())
          + f"; total {info['total_ms']:.2f}")


_LINK_OPTIONS = ("max_drop", "max_jump", "max_jump_up", "link_spacing")


def cmd_navmesh3d_build(args: argparse.Namespace) -> int:
    from ..errors import InvalidQueryError
    from ..navmesh3d import Level, build
    from ..navmesh3d.links import ledge_links

    given = [n for n in _LINK_OPTIONS if getattr(args, n) is not None]
    if given and not args.ledge_links:
        raise InvalidQueryError(f"--{given[0].replace('_', '-')} needs --ledge-links")
    level = Level.read(args.level, degenerate=args.degenerate)
    mesh = build(level, settings=_settings(args), tile_size=args.tile_size,
                 workers=args.workers, progress=not args.json)
    if args.ledge_links:
        options = {("spacing" if n == "link_spacing" else n): getattr(args, n) for n in given}
        mesh = mesh.with_links(ledge_links(mesh, level=level, **options))
    mesh.save(args.output)
    info = _figures(mesh) | {"output": args.output}
    if args.json:
        print(to_json(info))
    else:
        _print_figures(info, mesh)
        print(args.output)
    return 0


def cmd_navmesh3d_info(args: argparse.Namespace) -> int:
    from ..navmesh3d import NavMesh3D

    mesh = NavMesh3D.load(args.mesh)
    info = _figures(mesh) | {"settings": {f.name: getattr(mesh.settings, f.name)
                                          for f in dataclasses.fields(mesh.settings)}}
    if args.json:
        print(to_json(info))
    else:
        _print_figures(info, mesh)
    return 0


def cmd_navmesh3d_render(args: argparse.Namespace) -> int:
    from ..navmesh3d import Level, NavMesh3D
    from ..viz.navmesh3d import save_navmesh3d

    mesh = NavMesh3D.load(args.mesh)
    level = Level.read(args.level, degenerate="keep") if args.level else None
    print(save_navmesh3d(args.output, mesh, level=level))
    return 0


def _query(path: str) -> Any:
    """A query on the saved mesh, its polygons flagged walkable as RecastDemo flags them."""
    from ..navmesh3d import NavMesh3D
    from ..navmesh3d.query import NavMesh3DQuery, with_flags

    return NavMesh3DQuery(with_flags(NavMesh3D.load(path)))


def _xyz(p: Any) -> list[float]:
    return [float(v) for v in p]


def cmd_navmesh3d_path(args: argparse.Namespace) -> int:
    q = _query(args.mesh)
    t0 = time.perf_counter()
    r = q.find_path(args.start, args.goal, partial=args.partial, crossings=args.crossings)
    ms = (time.perf_counter() - t0) * 1e3
    # A corner leading into a link's node (numbered after the polygons) is the link's
    # start; a path that starts on its first link's start has no corner before it.
    first_node = q.mesh.num_polygons
    starts_at = {i: p - first_node for i, p in enumerate(r.corner_polygons.tolist())
                 if p >= first_node}
    if len(r.links) and len(r.path) and int(r.links[0]) not in starts_at.values():
        starts_at[0] = int(r.links[0])
    offmesh = sorted(starts_at)
    taken = []
    for k in r.links.tolist():
        x = q.mesh.links[k]
        taken.append({"link": k, "kind": x.kind, "bidirectional": bool(x.bidirectional),
                      "start": _xyz(x.start), "end": _xyz(x.end)})
    info = {"status": r.status.name.lower(), "length": r.cost if len(r.path) else None,
            "points": [_xyz(p) for p in r.path], "polygons": r.corridor.tolist(),
            "offmesh": offmesh, "links": taken, "query_ms": ms}
    if args.json:
        print(to_json(info))
        return 0
    if not len(r.path):
        print("path: not found (an end is off the mesh or the goal cannot be reached)")
        return 0
    plural = "" if len(taken) == 1 else "s"
    print(f"path ({info['status']}): length {r.cost:.4f}, {len(r.path)} points, "
          f"{len(r.corridor) - len(taken)} polygons, {len(taken)} off-mesh link{plural}, "
          f"{ms:.3f} ms")
    for i, p in enumerate(r.path):
        k = starts_at.get(i)
        mark = "" if k is None else \
            f"  <- off-mesh link {k} ({q.mesh.links[k].kind}) to the next point"
        print(f"  {p[0]:.4f},{p[1]:.4f},{p[2]:.4f}{mark}")
    return 0


def cmd_navmesh3d_raycast(args: argparse.Namespace) -> int:
    from ..errors import InvalidQueryError
    from ..navmesh3d.query import FAR

    for name, point in (("--from", args.start), ("--to", args.goal)):
        if not all(abs(v) <= FAR for v in point):
            raise InvalidQueryError(f"{name} {_xyz(point)} must lie within 1e30 of the origin")
    q = _query(args.mesh)
    try:
        r = q.raycast(args.start, args.goal)
    except InvalidQueryError as exc:         # the start is off the mesh: status 1
        if args.json:
            print(to_json({"hit": False, "t": None, "point": None, "normal": None,
                           "polygons": []}))
            return 1
        print(f"raycast: {exc}")
        return 1
    info = {"hit": r.hit, "t": r.t if r.hit else None, "point": _xyz(r.point),
            "normal": _xyz(r.normal) if r.hit else None, "polygons": r.polygons.tolist()}
    if args.json:
        print(to_json(info))
    elif r.hit:
        print(f"wall at t {r.t:.6f}: {r.point[0]:.4f},{r.point[1]:.4f},{r.point[2]:.4f}, "
              f"normal {r.normal[0]:.4f},{r.normal[2]:.4f}; {len(r.polygons)} polygons "
              "crossed")
    else:
        print(f"no wall: the end is reached over {len(r.polygons)} polygons")
    return 0


def cmd_navmesh3d_nearest(args: argparse.Namespace) -> int:
    q = _query(args.mesh)
    poly, at = q.nearest(args.at)
    info = {"polygon": poly, "point": _xyz(at) if poly >= 0 else None}
    if args.json:
        print(to_json(info))
    elif poly >= 0:
        print(f"polygon {poly} at {at[0]:.4f},{at[1]:.4f},{at[2]:.4f}")
    else:
        print("no polygon within the search box (2, 4, 2) of the point")
    return 0
