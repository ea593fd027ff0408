"""The :class:`PathResult` of a grid search kernel that answers a query in one call (the
plain searches of :mod:`~wayfinding.grid.search` and online jump point search)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .._kernels._codes import BAD_START, FAILED, FOUND
from .._kernels._workspace import Workspace
from ..results import PathResult, SearchStats, Status, empty_path
from .grid import Grid

_clock = time.perf_counter
_FOUND, _FAILED = Status.FOUND, Status.FAILED
_new = object.__new__


def one_call(grid: Grid, ask: Callable[..., tuple | None], ws: Workspace, start: Any,
             goal: Any, options: tuple, t0: float, name: str, *, record: bool = False
             ) -> PathResult:
    """The :class:`PathResult` of a one-call grid kernel, ``ask(ws, start, goal,
    *options)``, for the query begun at ``t0`` by algorithm ``name``; with ``record`` also
    the expansions and open list it left in ``ws``.  Plain ``(int, int)`` tuples go straight
    to the kernel, which checks bounds, blocked cells and islands and answers (status, cost,
    expanded, generated, updated, max_open, path), or None to anything else: other points
    are normalised (and validated) here first.  A start or goal outside the grid or blocked
    raises the grid's own error."""
    try:
        answer = ask(ws, start, goal, *options)
        if answer is None:
            start = grid.cell(start, name="start", passable=True)
            goal = grid.cell(goal, name="goal", passable=True)
            answer = ask(ws, start, goal, *options)
            assert answer is not None                           # plain tuples now
    except OverflowError:  # a coordinate beyond any C integer: raises
        grid.cell(start, name="start")
        grid.cell(goal, name="goal")
        raise
    status, cost, exp, gen, upd, mo, path = answer
    if status == FOUND:
        found, state = True, _FOUND
    elif status == FAILED:
        found, state, path = False, _FAILED, empty_path()
    else:  # raises: out of the grid or blocked
        grid.cell(start if status == BAD_START else goal,
                  name="start" if status == BAD_START else "goal", passable=True)
        raise AssertionError("unreachable")
    # Filled field by field: the records' generated __init__ costs a tenth of a short query.
    stats = _new(SearchStats)
    stats.expanded, stats.generated, stats.reopened = exp, gen, 0
    stats.updated, stats.max_open, stats.elapsed = upd, mo, _clock() - t0
    result = _new(PathResult)
    result.path, result.cost, result.found, result.stats = path, cost, found, stats
    result.algorithm, result.status = name, state
    result.expanded_nodes = result.open_nodes = None
    if record:
        # A node whose g improved sits on the heap more than once: keep its first item.
        heap = ws.open_nodes()
        first = np.sort(np.unique(heap, return_index=True)[1])
        result.expanded_nodes = grid.cells_of(ws.recorded())
        result.open_nodes = grid.cells_of(heap[first])
    return result
