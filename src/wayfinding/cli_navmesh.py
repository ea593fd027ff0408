"""``wayfinding navmesh build|path|render``: build a navigation mesh from a Moving AI map,
a WKT or a GeoJSON file, save it, find straight paths on it and draw it."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from .cli_world import _point
from .errors import InvalidGeometryError, InvalidQueryError

INPUTS = ".map (Moving AI), .wkt, .geojson/.json, or a saved mesh .npz"


def add_navmesh_parser(sub: Any) -> None:
    """Register the ``navmesh`` subcommand on an argparse subparsers object."""
    n = sub.add_parser("navmesh", help="build, query and draw navigation meshes",
                       description="Navigation meshes from polygons or maps: " + INPUTS)
    nsub = n.add_subparsers(dest="navmesh_command", required=True)

    def common(p: Any) -> None:
        p.add_argument("input", help=INPUTS)
        p.add_argument("--radius", type=float, default=0.0,
                       help="agent radius in world units when building (default 0)")
        p.add_argument("--max-verts", type=int, default=6,
                       help="vertices per polygon at most (default 6)")

    b = nsub.add_parser("build", help="build a mesh and save it (.npz)")
    common(b)
    b.add_argument("-o", "--output", required=True, metavar="OUT.npz")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.set_defaults(run=cmd_build)
    p = nsub.add_parser("path", help="find the straight path between two world points")
    common(p)
    p.add_argument("--from", dest="start", type=_point, required=True, metavar="X,Y")
    p.add_argument("--to", dest="goal", type=_point, required=True, metavar="X,Y")
    p.add_argument("--exact", action="store_true",
                   help="also compute the exact shortest length (needs polygon input)")
    p.add_argument("-o", "--output", metavar="OUT.svg", help="draw the mesh and the path")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=cmd_path)
    r = nsub.add_parser("render", help="draw a mesh (SVG)")
    common(r)
    r.add_argument("-o", "--output", required=True, metavar="OUT.svg")
    r.set_defaults(run=cmd_render)


def read_area(path: str) -> Any:
    """The walkable area (or a saved mesh) a file holds, by its suffix."""
    from .grid import read_map
    from .navmesh import NavMesh

    suffix = Path(path).suffix.lower()
    if suffix == ".npz":
        return NavMesh.load(path)
    if suffix == ".map":
        return read_map(path)
    if suffix in (".wkt", ".geojson", ".json"):
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidGeometryError(f"cannot read {path}: {exc}") from None
    raise InvalidQueryError(f"{path}: unknown input type {suffix!r}; give {INPUTS}")


def load_mesh(args: argparse.Namespace) -> tuple[Any, Any]:
    """(mesh, the walkable area it came from or None for a saved mesh)."""
    from .navmesh import NavMesh

    source = read_area(args.input)
    if isinstance(source, NavMesh):
        return source, None
    return NavMesh.build(source, radius=args.radius, max_verts=args.max_verts), source


def _summary(mesh: Any) -> dict[str, Any]:
    return {"polygons": mesh.num_polygons, "vertices": len(mesh.vertices),
            "links": len(mesh.links), "area": float(mesh.polygon_areas().sum()),
            "build_s": round(mesh.build_time, 4)}


def cmd_build(args: argparse.Namespace) -> int:
    mesh, _ = load_mesh(args)
    mesh.save(args.output)
    info = _summary(mesh) | {"output": args.output}
    if args.json:
        print(json.dumps(info))
    else:
        print(f"navmesh: {info['polygons']} polygons, {info['vertices']} vertices, area "
              f"{info['area']:.4g}, built in {info['build_s']:.3f} s -> {args.output}")
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    mesh, source = load_mesh(args)
    t0 = time.perf_counter()
    r = mesh.find_path(args.start, args.goal)
    elapsed = time.perf_counter() - t0
    info: dict[str, Any] = {"found": r.found, "cost": r.cost if r.found else None,
                            "path": r.path.tolist(), "corridor": len(r.corridor),
                            "snapped_start": r.snapped_start, "snapped_goal": r.snapped_goal,
                            "query_ms": round(elapsed * 1e3, 3)}
    if args.exact:
        if source is None:
            raise InvalidQueryError("--exact needs the polygon input, not a saved mesh")
        from .navmesh import walkable_area
        from .navmesh.exact import VisibilityMap

        area = walkable_area(source)
        if args.radius:
            from .navmesh.build import eroded
            area = eroded(area, args.radius)
        exact = VisibilityMap(area).shortest_path(r.start, r.goal)
        info["exact"] = exact.cost if exact.found else None
    if args.output:
        from .viz.graphs import save_world

        save_world(args.output, mesh, path=r, start=r.start, goal=r.goal,
                   title=f"navmesh: {args.input}")
    if args.json:
        print(json.dumps(info))
        return 0
    snaps = [n for n, s in (("start", r.snapped_start), ("goal", r.snapped_goal)) if s]
    if snaps:
        print(f"snapped to the mesh: {' and '.join(snaps)}")
    if r.found:
        print(f"path: length {r.cost:.4f}, {len(r.path)} corners, {len(r.corridor)} polygons, "
              f"{elapsed * 1e3:.3f} ms")
        if "exact" in info:
            print(f"exact shortest: {info['exact']:.4f} (excess "
                  f"{(r.cost / info['exact'] - 1) * 100 if info['exact'] else 0:.3f}%)")
    else:
        print("path: not found")
    if args.output:
        print(args.output)
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from .viz.graphs import save_world

    mesh, _ = load_mesh(args)
    save_world(args.output, mesh, title=f"navmesh: {args.input}")
    print(args.output)
    return 0
