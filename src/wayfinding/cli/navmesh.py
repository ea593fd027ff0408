"""``wayfinding navmesh build|path|render``: build a navigation mesh (or, with
``--clearance``, a local clearance triangulation) from a Moving AI map, a WKT or a GeoJSON
file, save it, find paths on it and draw it."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from .._io import atomic_write_bytes
from ..errors import InvalidGeometryError, InvalidQueryError, NavMeshFormatError
from .args import add_json_option, non_negative_float, point, positive_float, positive_int, to_json
from .constraints import (
    add_constraint_options,
    path_constraints,
    plan_time,
    png_target,
    print_shares,
    shares,
)

INPUTS = ".map (Moving AI), .wkt, .geojson/.json, or a saved mesh .npz"
#: The search domains of ``navmesh path --constraints`` (as
#: :data:`wayfinding.navmesh.constraint_domains.DOMAINS`, written here so that ``--help``
#: does not import the mesh package).
DOMAINS = ("tri", "dense", "hybrid", "adaptive")
#: The spacing of the dense domains when ``--spacing`` is not given, world units.
SPACING = 1.0


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
    add_json_option(b)
    b.set_defaults(run=cmd_navmesh_build)
    p = nsub.add_parser("path", help="find the path between two world points")
    common(p)
    p.add_argument("--from", dest="start", type=point, required=True, metavar="X,Y")
    p.add_argument("--to", dest="goal", type=point, required=True, metavar="X,Y")
    p.add_argument("--exact", action="store_true",
                   help="also compute the exact shortest length (needs polygon input)")
    p.add_argument("-o", "--output", metavar="OUT.svg", help="draw the mesh and the path "
                   "(with --constraints: the constraint field under the path, OUT.png)")
    add_json_option(p)
    add_constraint_options(p)
    p.add_argument("--domain", choices=DOMAINS, default=None,
                   help="with --constraints: the search domain: tri (edge midpoints of the "
                   "mesh cut along the annotations, the default), dense (points every "
                   "--spacing), hybrid (dense with the tri highways), adaptive (dense, "
                   "skipping ahead where no constraint acts)")
    p.add_argument("--spacing", type=positive_float, default=None, metavar="S",
                   help="with --domain dense, hybrid or adaptive: the points' spacing, world "
                   "units (default 1)")
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

    field = path_constraints(args)
    if field is None and (args.domain is not None or args.spacing is not None):
        raise InvalidQueryError("--domain and --spacing go with --constraints")
    if field is not None:
        return _constrained_path(args, field)
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


def _constrained_path(args: argparse.Namespace, field: Any) -> int:
    """``navmesh path --constraints FILE``: the mesh's constrained search in ``--domain``."""
    from ..navmesh import NavMesh

    if args.clearance or args.exact:
        raise InvalidQueryError("--clearance and --exact cannot be combined with --constraints")
    domain = args.domain or "tri"
    if domain == "tri" and args.spacing is not None:
        raise InvalidQueryError("--spacing goes with --domain dense, hybrid or adaptive")
    spacing = None if domain == "tri" else args.spacing or SPACING
    if args.output:
        png_target(args.output, "-o")
    mesh, _ = load_mesh(args)
    if not isinstance(mesh, NavMesh):
        raise InvalidQueryError(f"{args.input}: a clearance mesh takes no --constraints")
    t = plan_time(args)
    t0 = time.perf_counter()
    r = mesh.find_path(args.start, args.goal, constraints=field, domain=domain,
                       spacing=spacing, t=t)
    elapsed = time.perf_counter() - t0
    inside = shares(field, r.path)
    if args.output:
        from ..viz.constraints import render_constraints_png

        atomic_write_bytes(args.output, render_constraints_png(
            mesh, field, paths=[r] if r.found else [], start=args.start, goal=args.goal,
            t=t, title=f"{args.constraints} at t={t:g}, {domain} domain"))
    if args.json:
        print(to_json({"found": r.found, "cost": r.cost if r.found else None,
                       "path": r.path.tolist(), "query_ms": round(elapsed * 1e3, 3),
                       "domain": domain, "spacing": spacing, "states": len(r.nodes),
                       "expanded": r.stats.expanded, "constraints": args.constraints,
                       "t": t, "satisfaction": inside}))
        return 0
    if r.found:
        print(f"path: cost {r.cost:.4f}, {len(r.path)} points, {len(r.nodes)} states of the "
              f"{domain} domain, {r.stats.expanded} expanded, {elapsed * 1e3:.3f} ms, under "
              f"{args.constraints} at t={t:g}")
        print_shares(field, inside, t)
    else:
        print(f"path: not found under {args.constraints} at t={t:g}")
    if args.output:
        print(args.output)
    return 0


def cmd_navmesh_render(args: argparse.Namespace) -> int:
    from ..viz.graphs import save_world

    mesh, _ = load_mesh(args)
    save_world(args.output, mesh, title=f"navmesh: {args.input}")
    print(args.output)
    return 0
