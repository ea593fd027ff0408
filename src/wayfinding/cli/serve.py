"""``wayfinding serve``: answer path, distance-map, flow-field and crowd queries over HTTP."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .args import non_negative_int, positive_float, positive_int

#: Each limit flag: the :class:`~wayfinding.serve.Limits` field, its parser and its help.
_LIMITS = (("max_body_bytes", positive_int, "largest request body in bytes (413 beyond)"),
           ("max_cells", positive_int, "largest grid or voxel world loaded, in cells"),
           ("max_expansions", positive_int, "expansions a path request may make (422 beyond)"),
           ("max_seconds", positive_float, "seconds a request may take (503 beyond)"),
           ("max_field_cells", positive_int,
            "cells a distance map or flow field may cover (422 beyond)"),
           ("max_agents", positive_int, "agents in one crowd (422 beyond)"),
           ("max_steps", positive_int, "crowd steps one request may ask for (422 beyond)"),
           ("max_crowds", positive_int, "crowds kept at once (429 beyond)"),
           ("crowd_idle_seconds", positive_float, "seconds an unused crowd is kept"),
           ("max_threads", positive_int, "requests worked on at once (others wait)"))



def _port(text: str) -> int:
    """A TCP port, 0 to 65535."""
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535)")
    return value

def add_serve_parser(sub: Any) -> None:
    """Register ``serve``."""
    s = sub.add_parser("serve", help="service: path, distance-map, flow-field and crowd "
                       "queries on grids, navmeshes and voxel worlds over HTTP, and the "
                       "playground page (the [serve] extra)")
    s.add_argument("maps", nargs="*", metavar="WORLD",
                   help="world files (none: the playground alone), each served under its "
                        "file name without the suffix: "
                        "Moving AI .map (grid) and .3dmap (voxels), and .npz meshes and "
                        "voxel grids the library saved (NavMesh, ClearanceMesh, NavMesh3D, "
                        "VoxelGrid), and .obj/.gltf/.glb levels (built into a 3D navmesh "
                        "with the default settings)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on")
    s.add_argument("--port", type=_port, default=8000, help="port to listen on (0: any free)")
    s.add_argument("--index", action="append", default=[], metavar="METHOD",
                   help="also answer this preprocessed method (jps_plus, subgoal, hpa, ...) "
                        "on every grid world, its indexes built at start; repeatable")
    for name, parse, text in _LIMITS:      # unset: the default of wayfinding.serve.Limits
        s.add_argument("--" + name.replace("_", "-"), type=parse, help=text)
    s.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as exc:
        raise ImportError(f"wayfinding serve needs the [serve] extra (pip install "
                          f"'wayfinding[serve]'): {exc}") from None

    from ..errors import InvalidQueryError
    from ..serve import Limits, create_app

    worlds: dict[str, str] = {}
    for path in args.maps:
        name = Path(path).stem
        if name in worlds:
            raise InvalidQueryError(f"two worlds are named {name!r}: {worlds[name]} and {path}")
        worlds[name] = path
    limits = Limits(**{name: getattr(args, name) for name, _, _ in _LIMITS
                       if getattr(args, name) is not None})
    grids = [name for name, path in worlds.items() if Path(path).suffix.lower() == ".map"]
    app = create_app(worlds, limits=limits, indexed={name: args.index for name in grids})
    print(f"playground: http://{args.host}:{args.port}/")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
