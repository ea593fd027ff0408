"""Space-time A* on grids: states are (cell, time step); every action (a move allowed by the
grid's diagonal rule, or waiting) takes one step.  A reservation table holds the cells and
moves other agents have claimed, so agents plan around each other (cooperative A*, after
Silver); timed doors are cells that are open only during given steps.

A path is found when the agent stands on the goal and nothing claims the goal afterwards, so
it can stay.  Its ``path`` lists the cell at each step from ``start_time`` (waits repeat a
cell) and its ``cost`` is the number of steps.

>>> from wayfinding.grid import Grid
>>> grid = Grid.from_ascii('''
... .....
... ##.##
... .....''')
>>> space_time_astar(grid, (1, 2), (2, 0)).cost             # alone: 3 steps up the gap
3.0
>>> table = ReservationTable()                              # agent 1 comes down the gap
>>> table.reserve([(2, 0), (2, 1), (2, 2), (3, 2), (4, 2)], agent=1)
>>> r = space_time_astar(grid, (1, 2), (2, 0), table)       # agent 2 steps aside first
>>> r.cost, r.path.tolist()
(5.0, [[1, 2], [0, 2], [1, 2], [2, 2], [2, 1], [2, 0]])
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .._validate import INT64_MAX, count, flag
from ..errors import InvalidQueryError, brief
from ..grid.grid import Grid
from ..grid.rules import DIRECTIONS
from ..results import PathResult, SearchStats

Cell = tuple[int, int]


class ReservationTable:
    """Cells and moves claimed by agents at discrete time steps."""

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int, int], int] = {}
        self._moves: dict[tuple[Cell, Cell, int], int] = {}
        self._parked: dict[Cell, tuple[int, int]] = {}

    def reserve(self, path: Iterable[Any], *, start_time: int = 0, agent: int = 0,
                park: bool = True) -> None:
        """Claim each cell of ``path`` (``(x, y)`` integer pairs) at its step (from
        ``start_time``, an integer >= 0) and each move between them; with ``park``, the last
        cell stays claimed from then on.  Bad input raises
        :class:`~wayfinding.errors.InvalidQueryError` and claims nothing."""
        park = flag("park", park)
        start_time = count("start_time", start_time, min=0)
        cells = [_cell(c) for c in path]
        if not cells:
            raise InvalidQueryError("cannot reserve an empty path")
        for i, c in enumerate(cells):
            self._cells[(c[0], c[1], start_time + i)] = agent
            if i:
                self._moves[(cells[i - 1], c, start_time + i - 1)] = agent
        if park:
            self._parked[cells[-1]] = (start_time + len(cells) - 1, agent)

    def occupied(self, cell: Cell, t: int) -> bool:
        """Whether ``cell`` is claimed at step ``t``."""
        if (cell[0], cell[1], t) in self._cells:
            return True
        parked = self._parked.get(cell)
        return parked is not None and t >= parked[0]

    def swap(self, a: Cell, b: Cell, t: int) -> bool:
        """Whether someone moves from ``b`` to ``a`` during step ``t`` (a head-on swap)."""
        return (b, a, t) in self._moves

    def claimed_after(self, cell: Cell, t: int, *, until: float = math.inf) -> bool:
        """Whether ``cell`` is claimed at any step after ``t`` (up to ``until``)."""
        parked = self._parked.get(cell)
        if parked is not None and parked[0] <= until:
            return True
        return any(c[:2] == cell and t < c[2] <= until for c in self._cells)


def space_time_astar(grid: Any, start: Any, goal: Any, table: ReservationTable | None = None,
                     *, start_time: int = 0, horizon: int | None = None,
                     closed: Callable[[Cell, int], bool] | None = None) -> PathResult:
    """The fewest-steps path from ``start`` to ``goal`` that avoids the table's claims (no
    shared cell, no head-on swap) and the cells ``closed(cell, t)`` says are shut at step
    ``t`` (timed doors).  ``horizon``: the last step searched (default: start_time plus
    four times the grid's width plus height).  No path within it gives ``found=False``.
    As the agent then stays on the goal, the goal must be unclaimed and open at every step
    after its arrival up to the horizon (a door on the goal that shuts for good before the
    horizon leaves no path)."""
    if not isinstance(grid, Grid):
        raise InvalidQueryError(f"space-time A* needs a Grid, got {type(grid).__name__}")
    if table is not None and not isinstance(table, ReservationTable):
        raise InvalidQueryError(f"table must be a ReservationTable, got {brief(table)}")
    if closed is not None and not callable(closed):
        raise InvalidQueryError(f"closed must be a callable closed(cell, t), got "
                                f"{brief(closed)}")
    table = table if table is not None else ReservationTable()
    s, g = grid.cell(start, name="start"), grid.cell(goal, name="goal")
    for name, c in (("start", s), ("goal", g)):
        if not grid.passable[c[1], c[0]]:
            raise InvalidQueryError(f"{name} cell {c} is blocked")
    start_time = count("start_time", start_time, min=0)
    last = start_time + 4 * (grid.width + grid.height) if horizon is None \
        else count("horizon", horizon, min=0)
    shut = closed or (lambda cell, t: False)
    # the agent stays on the goal: it must be open at every later step up to the horizon
    goal_shut = -1 if closed is None else max(
        (u for u in range(start_time + 1, last + 1) if closed(g, u)), default=-1)
    w = grid.width + 2
    masks = grid.moves
    t0 = time.perf_counter()
    stats = SearchStats()

    def h(c: Cell) -> int:
        return max(abs(c[0] - g[0]), abs(c[1] - g[1]))

    begin = (s[0], s[1], start_time)
    parent: dict[tuple[int, int, int], tuple[int, int, int] | None] = {begin: None}
    heap = [(h(s), -start_time, begin)]
    seen = {begin}
    found = None
    while heap:
        _, _, state = heapq.heappop(heap)
        x, y, t = state
        stats.expanded += 1
        if (x, y) == g and not table.claimed_after(g, t, until=last) and t >= goal_shut:
            found = state
            break
        if t >= last:
            continue
        bits = int(masks[(y + 1) * w + x + 1])
        options = [(x, y)] + [(x + dx, y + dy) for k, (dx, dy) in enumerate(DIRECTIONS)
                              if bits >> k & 1]
        for nx, ny in options:
            nxt = (nx, ny, t + 1)
            if nxt in seen or table.occupied((nx, ny), t + 1) or shut((nx, ny), t + 1) \
                    or table.swap((x, y), (nx, ny), t):
                continue
            seen.add(nxt)
            parent[nxt] = state
            stats.generated += 1
            heapq.heappush(heap, (t + 1 - start_time + h((nx, ny)), -(t + 1), nxt))
    stats.elapsed = time.perf_counter() - t0
    if found is None:
        return PathResult(np.empty((0, 2), dtype=np.int64), math.inf, False, stats,
                          "space_time_astar")
    chain = []
    cur: tuple[int, int, int] | None = found
    while cur is not None:
        chain.append(cur[:2])
        cur = parent[cur]
    chain.reverse()
    return PathResult(np.array(chain, dtype=np.int64), float(len(chain) - 1), True, stats,
                      "space_time_astar")


def _pair(value: Any, what: str) -> tuple[int, int]:
    """``value`` as a pair of integers, or :class:`InvalidQueryError` naming it."""
    try:
        a, b = value
        return (count(what, a, min=-INT64_MAX), count(what, b, min=-INT64_MAX))
    except (TypeError, ValueError, InvalidQueryError):
        raise InvalidQueryError(f"{what} {brief(value)} must be a pair of integers") from None


def _cell(value: Any) -> Cell:
    return _pair(value, "cell")


def door(intervals: Iterable[tuple[int, int]], cells: Iterable[Any]
         ) -> Callable[[Cell, int], bool]:
    """A ``closed`` test for :func:`space_time_astar`: ``cells`` are open only during the
    steps of ``intervals`` (``(first, last)`` inclusive integer pairs) and shut at every
    other step."""
    spans = [_pair(span, "interval") for span in intervals]
    shut_cells = {_cell(c) for c in cells}

    def closed(cell: Cell, t: int) -> bool:
        return cell in shut_cells and not any(a <= t <= b for a, b in spans)
    return closed
