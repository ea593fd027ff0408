"""Canonical Dijkstra: exact distance maps on uniform-cost grids, faster than plain Dijkstra.

Only jump points go through the open list; every other cell gets its cost written directly by
canonical sweeps (diagonal rays that start their two cardinal component rays from every cell,
cardinal rays that stop where a side wall ends).  The costs equal plain Dijkstra's on every
cell.  Uniform costs (1 straight, sqrt 2 diagonal) and the ``no_corner_cutting`` rule only;
:meth:`GridSearch.distance_map` picks it by itself (``method="auto"``) where it applies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import _canonical
from .._kernels._workspace import Workspace
from .._validate import number
from ..errors import InvalidQueryError
from ..results import _fields_equal
from .grid import Grid
from .index import require_grid
from .search import _cell_list, _searcher


@dataclass(frozen=True)
class CanonicalStats:
    """Counters of one canonical flood.

    ``pushes``: open-list pushes (sources and jump points, re-openings included);
    ``expanded``: open-list entries expanded (stale ones skipped); ``labels``: cost writes
    (first labels and improvements); ``reopened``: jump points pushed on a cell that already
    had a (worse) label; ``reached``: cells with a finite cost in the result;
    ``jump_points``: ``(k, 2)`` int64 ``(x, y)`` cells of the jump points pushed, in push
    order (a cell may repeat when re-opened).
    """

    pushes: int
    expanded: int
    labels: int
    reopened: int
    reached: int
    jump_points: np.ndarray = field(repr=False)

    __eq__ = _fields_equal


def canonical_flood(grid: Grid, sources: ArrayLike, *, limit: float = math.inf,
                    workspace: Workspace | None = None) -> tuple[np.ndarray, CanonicalStats]:
    """Canonical Dijkstra from ``sources``: the distance map and the search counters.

    ``sources``: one passable ``(x, y)`` cell or a sequence of them.  ``limit`` (>= 0): cells
    costing more are left out.  ``workspace``: reusable scratch for at least ``(H + 2) *
    (W + 2)`` cells (one is made otherwise).  Returns ``(H, W)`` float64 indexed ``[y, x]``
    (``inf`` where unreachable or beyond the limit) and :class:`CanonicalStats`.
    Raises :class:`InvalidGridError` unless the grid is uniform with ``no_corner_cutting``.
    """
    require_grid(grid, "canonical Dijkstra")
    cells = _cell_list(grid, sources, "source")
    lim = number("limit", limit, min=0, infinite=True)
    if workspace is not None and not isinstance(workspace, Workspace):
        raise InvalidQueryError(f"workspace must be a Workspace, got {type(workspace).__name__}")
    n = (grid.height + 2) * (grid.width + 2)
    ws = workspace if workspace is not None and workspace.size >= n else Workspace(n)
    out = np.full(grid.shape, np.inf)
    flat = np.array([grid.index(c) for c in cells], dtype=np.int64)
    pushes, expanded, labels, reopened, jumps = _canonical.flood(
        ws, grid.moves, grid.width + 2, flat, lim, out, True)
    assert jumps is not None  # recorded: the last argument is True
    reached = int(np.count_nonzero(np.isfinite(out)))
    return out, CanonicalStats(int(pushes), int(expanded), int(labels), int(reopened),
                               reached, grid.cells_of(jumps))


def canonical_distance_map(grid: Grid, sources: ArrayLike, *,
                           limit: float = math.inf) -> np.ndarray:
    """Distance map by canonical Dijkstra: the contract of :meth:`GridSearch.distance_map`.

    ``(H, W)`` float64 indexed ``[y, x]``, ``inf`` where unreachable or costing more than
    ``limit``.  Uniform ``no_corner_cutting`` grids only (:class:`InvalidGridError`
    otherwise).  Reuses this thread's search scratch.

    >>> g = Grid.from_ascii('''
    ... ...
    ... .#.
    ... ...''')
    >>> canonical_distance_map(g, (0, 0)).round(3).tolist()
    [[0.0, 1.0, 2.0], [1.0, inf, 3.0], [2.0, 3.0, 4.0]]
    """
    require_grid(grid, "canonical Dijkstra")
    return _searcher(grid).distance_map(sources, limit=limit, method="canonical")
