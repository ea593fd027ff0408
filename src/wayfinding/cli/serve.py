"""``wayfinding serve``: answer path and distance-map queries over HTTP."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_serve_parser(sub: Any) -> None:
    """Register ``serve``."""
    s = sub.add_parser("serve", help="service: path and distance-map queries on grids over HTTP "
                       "(the [serve] extra)")
    s.add_argument("maps", nargs="+", metavar="MAP",
                   help="Moving AI .map files; each is served under its file name without "
                        "the suffix")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on")
    s.add_argument("--port", type=int, default=8000, help="port to listen on (0: any free)")
    s.add_argument("--index", action="append", default=[], metavar="METHOD",
                   help="also answer this preprocessed method (jps_plus, subgoal, hpa, ...) "
                        "on every map, its indexes built at start; repeatable")
    s.add_argument("--max-expansions", type=int, default=1_000_000,
                   help="expansions a path request may make before it answers 422")
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
            raise InvalidQueryError(f"two maps are named {name!r}: {worlds[name]} and {path}")
        worlds[name] = path
    app = create_app(worlds, limits=Limits(max_expansions=args.max_expansions),
                     indexed={name: args.index for name in worlds})
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
