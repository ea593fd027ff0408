"""The ``wayfinding`` command line: one module per command family (``grid``: path, scen,
index, render; ``demo``; ``world``; ``navmesh``; ``navmesh3d``; ``fields``; ``crowd``;
``vehicles``; ``traffic``; ``climbing``; ``generate``; ``serve``), their shared argument
types in ``args``, and ``main``, which parses a command line and runs it."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
