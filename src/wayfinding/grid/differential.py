"""Differential heuristics ("Euclidean embeddings") for grid A*.

Exact Dijkstra distances from k pivot cells bound the distance between any two cells by the
triangle inequality: ``d(x, goal) >= |d(p, x) - d(p, goal)|``.  A* uses the largest of these
bounds and the grid's own heuristic (octile, or Manhattan when 4-connected, times the minimum
cell cost).  Grid steps cost the same both ways, so the bound is admissible and consistent
for every diagonal rule and any terrain costs.  Each difference is lowered by ``1e-12`` times
the sum of the two distances, more than the worst rounding error of float sums of up to
thousands of steps, so rounding does not lift the bound above the true one; what rounding
can do to consistency stays inside the search kernel's relative tie tolerance (also
``1e-12``).

The bound is sharp along the pivots' shortest-path trees, so pivots on the rim of the map
(farthest-point selection, the default) or at places agents often head for work best.  On
maps where the straight-line heuristic is poor (mazes, spirals, rooms) it cuts expansions
by large factors; it costs ``8 k`` bytes per cell.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _saved
from .._validate import count as check_count
from ..errors import IndexFormatError, InvalidQueryError
from ..graph.differential import DH_EPS, pivot_count, select_pivots
from ..results import PathResult
from .grid import Grid
from .index import GridIndex, require_grid
from .rules import DIRECTIONS, SQRT2, Diagonal
from .search import GridSearch, _searcher


class DifferentialHeuristic(GridIndex):
    """Distances from k pivot cells to every cell, used as an A* heuristic.

    ``arrays["pivots"]``: ``(k, 2)`` int64 ``(x, y)`` pivot cells.  ``arrays["distances"]``:
    ``(k, Np)`` float64 distances from each pivot over the padded layout (``Np = (H + 2) *
    (W + 2)``, cell ``(x, y)`` at ``(y + 1) * (W + 2) + x + 1``), inf on blocked, border and
    unreachable cells, stored cell-major (Fortran order).  Works on every diagonal rule and
    on weighted terrain.

    >>> g = Grid.from_ascii('''
    ... .....
    ... ####.
    ... .....''')
    >>> dh = DifferentialHeuristic.build(g, pivots=[(0, 0)])
    >>> round(dh.heuristic((0, 0), (0, 2)), 6)  # octile says 2; the wall makes it 10
    10.0
    >>> r = dh.find_path((0, 0), (0, 2))
    >>> r.algorithm, round(r.cost, 6), r.stats.expanded
    ('astar_dh', 10.0, 11)
    """

    kind = "differential"
    version = 1

    @classmethod
    def build(cls, grid: Grid, *,
              pivots: int | Sequence[Any] = 8) -> DifferentialHeuristic:
        """Build the tables.

        ``pivots``: the number of pivots to place by farthest-point selection (an integer
        >= 1, default 8; fewer on maps with fewer useful places; see
        :func:`wayfinding.graph.differential.select_pivots`: the first pivot is the cell
        farthest from a fixed cell of the largest island, each next one the cell farthest from
        the pivots so far, islands without a pivot getting one when they are wider than that
        distance), or a sequence of distinct passable ``(x, y)`` cells chosen by the user.
        More pivots give a sharper heuristic for ``8 * (H + 2) * (W + 2)`` bytes and one
        Dijkstra each.
        """
        grid = require_grid(grid, "a differential heuristic", uniform=False,
                            diagonals=tuple(Diagonal))
        t0 = time.perf_counter()
        search = GridSearch(grid)
        h, w = grid.shape
        rows: dict[int, np.ndarray] = {}

        def flood(node: int) -> np.ndarray:
            if node not in rows:
                rows[node] = search.distance_map((node % w, node // w)).ravel()
            return rows[node]

        if isinstance(pivots, (int, np.integer)) and not isinstance(pivots, bool):
            count = pivot_count(pivots)
            labels = np.asarray(grid.components, dtype=np.int64).ravel()
            chosen = select_pivots(count, labels, flood)
            options: dict[str, Any] = {"pivots": count}
        else:
            cells = _cell_list(grid, pivots)
            chosen = [y * w + x for x, y in cells]
            options = {"pivots": [list(c) for c in cells]}
        # Cell-major memory (a cell's k distances side by side): the search reads all k for
        # each cell it generates, so this saves cache misses (10-25 % faster than row-major).
        table = np.full((h + 2, w + 2, len(chosen)), np.inf)
        for i, node in enumerate(chosen):
            table[1:-1, 1:-1, i] = flood(node).reshape(h, w)
        cells_arr = np.array([(p % w, p // w) for p in chosen], dtype=np.int64).reshape(-1, 2)
        arrays = {"pivots": cells_arr, "distances": table.reshape((h + 2) * (w + 2), len(chosen)).T}
        for arr in arrays.values():
            arr.flags.writeable = False
        return cls(grid, arrays, options, time.perf_counter() - t0)

    @classmethod
    def _members(cls, grid: Grid, options: dict[str, Any]) -> dict[str, int]:
        k = _pivot_option(grid, _saved.option(options, "pivots"))
        return {"pivots": 16 * k, "distances": 8 * k * (grid.height + 2) * (grid.width + 2)}

    @classmethod
    def _restore(cls, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> DifferentialHeuristic:
        require_grid(grid, "a differential heuristic", uniform=False, diagonals=tuple(Diagonal))
        h, w = grid.shape
        n = (h + 2) * (w + 2)
        piv = _saved.array(arrays, "pivots", np.int64, (None, 2))
        k = len(piv)
        given = options["pivots"]
        if isinstance(given, list):
            _saved.equal(piv, np.array(given, dtype=np.int64).reshape(-1, 2), "pivots",
                          "the pivots of the options")
        elif not 1 <= k <= given:
            raise IndexFormatError(f"array 'pivots' holds {k} pivots; the options ask for "
                                   f"1 to {given}")
        _saved.values_in(piv[:, 0], "pivots[:, 0]", 0, w - 1)
        _saved.values_in(piv[:, 1], "pivots[:, 1]", 0, h - 1)
        flat = (piv[:, 1] + 1) * (w + 2) + piv[:, 0] + 1
        if not np.all(np.isfinite(grid.padded_costs[flat])) or len(np.unique(flat)) != k:
            raise IndexFormatError(f"array 'pivots' holds {piv.tolist()}: pivots must be "
                                   "distinct passable cells")
        dist = _saved.costs(_saved.array(arrays, "distances", np.float64, (k, n)),
                             "distances", inf=True)
        if np.any(dist[np.arange(k), flat] != 0):
            raise IndexFormatError("array 'distances' does not give 0 at each pivot")
        # Along every legal step, distances from a pivot differ by at most the step's cost:
        # then the heuristic is admissible and consistent, whatever else the file holds.
        src, dst, cost = _steps(grid)
        _saved.triangle(dist, "distances", src, dst, cost)
        return cls(grid, {"pivots": piv, "distances": np.asfortranarray(dist)}, options,
                   build_time)

    @property
    def pivots(self) -> np.ndarray:
        """``(k, 2)`` int64 ``(x, y)`` pivot cells."""
        return self.arrays["pivots"]

    @property
    def table(self) -> np.ndarray:
        """``(k, Np)`` float64 distances from each pivot over the padded layout (Fortran
        order)."""
        return self.arrays["distances"]

    def distances(self, i: int) -> np.ndarray:
        """``(H, W)`` float64 distances from pivot ``i`` (inf where unreachable), ``[y, x]``."""
        i = check_count("pivot index", i, min=0, max=len(self.pivots) - 1)
        h, w = self.grid.shape
        return self.table[i].reshape(h + 2, w + 2)[1:-1, 1:-1]

    def heuristic(self, cell: Any, goal: Any) -> float:
        """h(cell, goal) as A* uses it: the larger of the grid heuristic and the pivot bound."""
        x, y = self.grid.cell(cell, name="cell")
        return float(self.heuristic_map(goal)[y, x])

    def heuristic_map(self, goal: Any) -> np.ndarray:
        """``(H, W)`` float64 h(x, goal) for every cell x, ``[y, x]`` (values on blocked or
        unreachable cells are meaningless)."""
        gx, gy = self.grid.cell(goal, name="goal")
        h, w = self.grid.shape
        ys, xs = np.mgrid[0:h, 0:w]
        dx, dy = np.abs(xs - gx), np.abs(ys - gy)
        if self.grid.diagonal is Diagonal.NEVER:
            base = (dx + dy) * self.grid.min_cost
        else:
            base = (np.maximum(dx, dy) + (SQRT2 - 1.0) * np.minimum(dx, dy)) \
                * self.grid.min_cost
        best = np.zeros((h, w))
        with np.errstate(invalid="ignore"):
            for i in range(len(self.pivots)):
                d = self.distances(i)
                dg = d[gy, gx]
                if not np.isfinite(dg):
                    continue
                bound = np.maximum(d * (1 - DH_EPS) - dg * (1 + DH_EPS),
                                   dg * (1 - DH_EPS) - d * (1 + DH_EPS))
                best = np.fmax(best, bound)
        return np.maximum(base, best)

    def find_path(self, start: Any, goal: Any, *, record: bool = False) -> PathResult:
        """A* with this heuristic (``algorithm`` ``"astar_dh"``), on this thread's reusable
        search scratch; see :meth:`GridSearch.find_path` for the result."""
        return _searcher(self.grid).find_path(start, goal, record=record, differential=self)


def _cell_list(grid: Grid, values: Any) -> list[tuple[int, int]]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise InvalidQueryError(f"pivots {values!r} must be an integer >= 1 or a sequence "
                                "of (x, y) cells")
    cells = [grid.cell(tuple(v) if isinstance(v, (list, np.ndarray)) else v, name="pivot",
                       passable=True) for v in values]
    if not cells:
        raise InvalidQueryError("pivots is empty; give at least one cell")
    if len(set(cells)) != len(cells):
        raise InvalidQueryError(f"pivots {cells} repeat a cell")
    return cells


def _pivot_option(grid: Grid, value: Any) -> int:
    """The most pivots a saved index may hold by its ``pivots`` option (a count >= 1 or a
    list of ``[x, y]`` cells); raises :class:`IndexFormatError` for anything else."""
    if isinstance(value, list):
        if not value or not all(isinstance(c, list) and len(c) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in c) for c in value):
            raise IndexFormatError(f"option pivots {value!r} must be a count or a non-empty "
                                   "list of [x, y] cells")
        return len(value)
    return _saved.integer(value, "option pivots", 1, grid.width * grid.height)


def _steps(grid: Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every legal step of ``grid`` over the padded layout: sources, targets and costs (1 or
    sqrt 2 times the mean of the two cells' costs)."""
    wp = grid.width + 2
    moves, costs = grid.moves, grid.padded_costs
    src, dst, cost = [], [], []
    for bit, (dx, dy) in enumerate(DIRECTIONS):
        u = np.flatnonzero((moves >> bit) & 1)
        v = u + dy * wp + dx
        src.append(u)
        dst.append(v)
        cost.append((SQRT2 if dx and dy else 1.0) * 0.5 * (costs[u] + costs[v]))
    return np.concatenate(src), np.concatenate(dst), np.concatenate(cost)
