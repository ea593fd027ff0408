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
    stats = SearchStats(exp, gen, 0, upd, mo, _clock() - t0)
    if record:
        # A node whose g improved sits on the heap more than once: keep its first item.
        heap = ws.open_nodes()
        first = np.sort(np.unique(heap, return_index=True)[1])
        return PathResult(path, cost, found, stats, name, grid.cells_of(ws.recorded()),
                          grid.cells_of(heap[first]), state)
    return PathResult(path, cost, found, stats, name, None, None, state)
