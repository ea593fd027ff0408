"""Named grid heuristics.  All are scaled by the grid's minimum cell cost (times the weight for
weighted A*), so that on any terrain they never overestimate the step costs they bound."""

from __future__ import annotations

from .._kernels._codes import HEURISTIC_CODES
from ..errors import InvalidQueryError
from .rules import Diagonal


def heuristic_code(name: str | None, diagonal: Diagonal) -> int:
    """Resolve a heuristic name (``None`` = octile, or Manhattan on 4-connected grids).

    Manhattan overestimates diagonal steps; on an 8-connected grid it is accepted but makes
    the search inexact (like weighted A*).
    """
    if name is None:
        name = "manhattan" if diagonal is Diagonal.NEVER else "octile"
    if not isinstance(name, str) or name.lower() not in HEURISTIC_CODES:
        known = ", ".join(HEURISTIC_CODES)
        raise InvalidQueryError(f"unknown heuristic {name!r}; expected one of: {known} "
                                "(or a callable, searched by wayfinding.search)")
    return HEURISTIC_CODES[name.lower()]
