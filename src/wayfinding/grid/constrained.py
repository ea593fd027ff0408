"""The dense uniform domain of a grid for constraint-aware planning: one state per cell at
the cell's centre (world units), the grid's moves by its diagonal rule as transitions, each
with the grid's step cost (1 or √2 times the mean of the two cells' costs)."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .._validate import finite_float, finite_point
from ..errors import InvalidQueryError
from ..graph.constrained import ConstrainedPath, ConstraintDomain, Fields, _query_options, checked
from ..results import PathResult, SearchStats
from .grid import Grid


class GridConstraintDomain(ConstraintDomain):
    """Σ_dense of a :class:`Grid`: state ``y * W + x`` at the centre of cell ``(x, y)`` in
    world coordinates (the grid's ``origin`` and ``cell_size``); transitions are the grid's
    legal steps, with its step costs as base costs (in steps, not world units), so without
    constraints a search here costs what the grid's own A* does.  Blocked cells are states
    without transitions.

    A world point joins the state of the cell holding it (a leg inside the cell, whose
    length in steps is its world length over ``cell_size``); two points of one cell are
    joined by their straight leg.

    >>> grid = Grid.from_ascii('''
    ... ...
    ... .#.
    ... ...''')
    >>> d = GridConstraintDomain(grid)
    >>> d.num_nodes, d.num_edges
    (9, 16)
    >>> d.find_cells((0, 0), (2, 2), None).cost
    4.0
    >>> d.find_path((0.25, 0.5), (0.75, 0.5)).cost     # within one cell: the straight leg
    0.5
    """

    kind = "grid"

    def __init__(self, grid: Grid):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"GridConstraintDomain needs a Grid, got "
                                    f"{type(grid).__name__}")
        csr = grid.to_csr()
        src = np.repeat(np.arange(csr.num_nodes), np.diff(csr.indptr))
        h, w = grid.shape
        ys, xs = np.divmod(np.arange(h * w), w)
        ox, oy = grid.origin
        pts = np.stack([ox + (xs + 0.5) * grid.cell_size, oy + (ys + 0.5) * grid.cell_size], 1)
        super().__init__(pts, np.stack([src, csr.indices], 1), csr.weights)
        self.grid = grid
        self.leg_cost = 1.0 / grid.cell_size

    def joins(self, point: Any, constraints: Fields, *, t: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray]:
        """The state of the passable cell holding ``point`` and the constrained cost of the
        leg to its centre (``(1,)`` arrays); none off the grid, in a blocked cell, or when
        the leg crosses a hard constraint."""
        p = finite_point("point", point)
        field = checked(constraints)
        t = finite_float("t", t)
        node = self._cell_state(p)
        if node >= 0:
            leg = self._legs(p[None], self.points[node][None], field, t)
            if np.isfinite(leg[0]):
                return np.array([node]), leg
        return np.empty(0, dtype=np.int64), np.empty(0)

    def _cell_state(self, p: np.ndarray) -> int:
        """The state of the passable cell holding world point ``p`` (-1: none)."""
        cells, inside = self.grid.world_to_cells(p)
        x, y = (int(v) for v in cells[0])
        if not inside[0] or not self.grid.passable[y, x]:
            return -1
        return y * self.grid.width + x

    def straight_leg(self, start: Any, goal: Any, constraints: Fields, *,
                     t: float = 0.0) -> float:
        """The constrained cost of the straight leg between the ends, world points
        ``start`` and ``goal``, under ``constraints`` at time ``t``: a leg only within one
        passable cell (the grid's moves join any others), so ``inf`` when the ends lie in
        different cells, off the grid or in a blocked cell, or the leg crosses a hard
        constraint."""
        s = finite_point("start", start)
        g = finite_point("goal", goal)
        field = checked(constraints)
        t = finite_float("t", t)
        node = self._cell_state(s)
        if node < 0 or node != self._cell_state(g):
            return math.inf
        return float(self._legs(s[None], g[None], field, t)[0])

    def find_cells(self, start: Any, goal: Any, constraints: Fields, *, t: float = 0.0,
                   method: str = "astar") -> ConstrainedPath:
        """The cheapest route between two cells ``(x, y)`` under ``constraints`` at time
        ``t``: ``path`` is the ``(m, 2)`` int64 cells (the grid's path form), ``nodes`` the
        states.  An end cell whose centre lies in a hard constraint has no path; blocked or
        out-of-grid cells raise :class:`~wayfinding.errors.InvalidQueryError`."""
        t0 = time.perf_counter()
        s = self.grid.cell(start, name="start", passable=True)
        g = self.grid.cell(goal, name="goal", passable=True)
        method, t, field, name = _query_options(self.kind, method, t, constraints)
        w = self.grid.width
        ends = [s[1] * w + s[0], g[1] * w + g[0]]
        if field is not None and np.isinf(field.multiplier(self.points[ends], t=t)).any():
            r = PathResult(np.empty(0, dtype=np.int64), math.inf, False)   # in a hard one
        else:
            r = self._search(ends[0], ends[1], field, t, method)
        stats = SearchStats(expanded=r.stats.expanded, generated=r.stats.generated,
                            max_open=r.stats.max_open, elapsed=time.perf_counter() - t0)
        if not r.found:
            return ConstrainedPath(path=np.empty((0, 2), dtype=np.int64), cost=math.inf,
                                   found=False, stats=stats, algorithm=name)
        nodes = np.asarray(r.path, dtype=np.int64)
        cells = np.stack([nodes % w, nodes // w], 1)
        return ConstrainedPath(path=cells, cost=float(r.cost), found=True, stats=stats,
                               algorithm=name, nodes=nodes)


def grid_domain(grid: Grid) -> GridConstraintDomain:
    """The grid's :class:`GridConstraintDomain`, built once per grid and kept with it (as the grid
    keeps its other derived data)."""
    cached = grid.__dict__.get(_CACHE)
    if cached is None:
        cached = grid.__dict__[_CACHE] = GridConstraintDomain(grid)
    return cached


#: Where a grid keeps its domain.
_CACHE = "_constraint_domain"
