"""``wayfinding navmesh build|path|render``: build a navigation mesh (or, with
``--clearance``, a local clearance triangulation) from a Moving AI map, a WKT or a GeoJSON
file, save it, find paths on it and draw it."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from ..errors import InvalidGeometryError, InvalidQueryError, NavMeshFormatError
from .args import JSON_HELP, non_negative_float, point, positive_int, to_json

INPUTS = ".map (Moving AI), .wkt, .geojson/.json, or a saved mesh .npz"


def add_navmesh_parser(sub: Any) -> None:
    """Register the ``navmesh`` subcommand on an argparse subparsers object."""
    n = sub.add_parser("navmesh", help="navigation meshes 2D: build, query and draw navigation "
                       "and clearance meshes",
                       description="Navigation meshes from polygons or maps: " + INPUTS)
    nsub = n.add_subparsers(dest="navmesh_command", required=True)

    def common(p: Any) -> None:
        p.add_argument("input", help=INPUTS)
        p.add_argument("--radius", type=non_negative_float, default=0.0,
                       help="agent radius in world units (default 0): the mesh is built for "
                            "it, or with --clearance the path is found for it")
        p.add_argument("--clearance", action="store_true",
                       help="build a local clearance triangulation: one mesh for agents of "
                            "every radius")
        p.add_argument("--max-verts", type=positive_int, default=6,
                       help="vertices per polygon at most (default 6)")

    b = nsub.add_parser("build", help="build a mesh and save it (.npz)")
    common(b)
    b.add_argument("-o", "--output", required=True, metavar="OUT.npz")
    b.add_argument("--json", action="store_true", help=JSON_HELP)
    b.set_defaults(run=cmd_navmesh_build)
    p = nsub.add_parser("path", help="find the path between two world points")
    common(p)
    p.add_argument("--from", dest="start", type=point, required=True, metavar="X,Y")
    p.add_argument("--to", dest="goal", type=point, required=True, metavar="X,Y")
    p.add_argument("--exact", action="store_true",
                   help="also compute the exact shortest length (needs polygon input)")
    p.add_argument("-o", "--output", metavar="OUT.svg", help="draw the mesh and the path")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(run=cmd_navmesh_path)
    r = nsub.add_parser("render", help="draw a mesh (SVG)")
    common(r)
    r.add_argument("-o", "--output", required=True, metavar="OUT.svg")
    r.set_defaults(run=cmd_navmesh_render)


def read_area(path: str) -> Any:
    """The walkable area (or a saved mesh) a file holds, by its suffix."""
    from ..grid import read_map

    suffix = Path(path).suffix.lower()
    if suffix == ".npz":
        return _load_mesh_file(path)
    if suffix == ".map":
        return read_map(path)
    if suffix in (".wkt", ".geojson", ".json"):
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidGeometryError(f"cannot read {path}: {exc}") from None
    raise InvalidQueryError(f"{path}: unknown input type {suffix!r}; give {INPUTS}")


def _load_mesh_file(path: str) -> Any:
    from ..navmesh import ClearanceMesh, NavMesh

    try:
        return NavMesh.load(path)
    except NavMeshFormatError as first:
        try:
            return ClearanceMesh.load(path)
        except NavMeshFormatError:
            raise first from None


def load_mesh(args: argparse.Namespace) -> tuple[Any, Any]:
    """(mesh, the walkable area it came from or None for a saved mesh)."""
    from ..navmesh import ClearanceMesh, NavMesh

    source = read_area(args.input)
    if isinstance(source, (NavMesh, ClearanceMesh)):
        return source, None
    if args.clearance:
        return ClearanceMesh.build(source), source
    return NavMesh.build(source, radius=args.radius, max_verts=args.max_verts), source


def _summary(mesh: Any) -> dict[str, Any]:
    from ..navmesh import ClearanceMesh

    if isinstance(mesh, ClearanceMesh):
        return {"triangles": mesh.num_triangles, "vertices": len(mesh.vertices),
                "steiner": mesh.steiner, "build_s": round(mesh.build_time, 4)}
    return {"polygons": mesh.num_polygons, "vertices": len(mesh.vertices),
            "links": len(mesh.links), "area": float(mesh.polygon_areas().sum()),
            "build_s": round(mesh.build_time, 4)}


def cmd_navmesh_build(args: argparse.Namespace) -> int:
    mesh, _ = load_mesh(args)
    mesh.save(args.output)
    info = _summary(mesh) | {"output": args.output}
    if args.json:
        print(to_json(info))
    elif "triangles" in info:
        print(f"clearance mesh: {info['triangles']} triangles, {info['vertices']} vertices "
              f"({info['steiner']} Steiner), built in {info['build_s']:.3f} s -> "
              f"{args.output}")
    else:
        print(f"navmesh: {info['polygons']} polygons, {info['vertices']} vertices, area "
              f"{info['area']:.4g}, built in {info['build_s']:.3f} s -> {args.output}")
    return 0


def cmd_navmesh_path(args: argparse.Namespace) -> int:
    from ..navmesh import ClearanceMesh

    mesh, source = load_mesh(args)
    clear = isinstance(mesh, ClearanceMesh)
    t0 = time.perf_counter()
    r = mesh.find_path(args.start, args.goal, radius=args.radius) if clear else \
        mesh.find_path(args.start, args.goal)
    elapsed = time.perf_counter() - t0
    info: dict[str, Any] = {"found": r.found, "cost": r.cost if r.found else None,
                            "path": r.path.tolist(), "query_ms": round(elapsed * 1e3, 3)}
    if clear:
        info |= {"radius": r.radius, "channel": len(r.channel), "turns": len(r.turns),
                 "reason": r.reason}
    else:
        info |= {"corridor": len(r.corridor), "snapped_start": r.snapped_start,
                 "snapped_goal": r.snapped_goal}
    start = args.start if clear else r.start
    goal = args.goal if clear else r.goal
    if args.exact:
        if source is None:
            raise InvalidQueryError("--exact needs the polygon input, not a saved mesh")
        from ..navmesh import walkable_area
        from ..navmesh.exact import VisibilityMap

        area = walkable_area(source)
        if args.radius:
            from ..navmesh.build import eroded
            area = eroded(area, args.radius, quad_segs=16 if clear else 4)
        exact = VisibilityMap(area).find_path(start, goal)
        info["exact"] = exact.cost if exact.found else None
    if args.output:
        from ..viz.graphs import save_world

        save_world(args.output, mesh, path=r, start=start, goal=goal,
                   title=f"navmesh: {args.input}")
    if args.json:
        print(to_json(info))
        return 0
    snaps = [n for n, s in (("start", info.get("snapped_start")),
                            ("goal", info.get("snapped_goal"))) if s]
    if snaps:
        print(f"snapped to the mesh: {' and '.join(snaps)}")
    if r.found:
        where = f"{len(r.channel)} triangles" if clear else f"{len(r.corridor)} polygons"
        print(f"path: length {r.cost:.4f}, {len(r.path)} points, {where}, "
              f"{elapsed * 1e3:.3f} ms")
        if info.get("exact"):
            print(f"exact shortest: {info['exact']:.4f} (excess "
                  f"{(r.cost / info['exact'] - 1) * 100:.3f}%)")
    else:
        print(f"path: not found{' (' + r.reason + ')' if clear else ''}")
    if args.output:
        print(args.output)
    return 0


def cmd_navmesh_render(args: argparse.Namespace) -> int:
    from ..viz.graphs import save_world

    mesh, _ = load_mesh(args)
    save_world(args.output, mesh, title=f"navmesh: {args.input}")
    print(args.output)
    return 0
