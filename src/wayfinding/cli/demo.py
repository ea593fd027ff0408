"""``wayfinding demo``: solve and draw generated maps, and write a page."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_demo_parser(sub: Any) -> None:
    """Register ``demo``."""
    d = sub.add_parser("demo", help="every family: solve and draw generated worlds, "
                       "write an HTML page")
    d.add_argument("--out", default="wayfinding-demo", help="output folder")
    d.add_argument("--quiet", action="store_true", help="no progress bar")
    d.set_defaults(run=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    page = run_demo(Path(args.out), show_progress=not args.quiet)
    print(f"demo written to {page}")
    return 0
