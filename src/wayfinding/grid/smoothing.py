"""Shortcuts of grid cell paths along lines of sight (HPA*'s smoothing step, also used to
straighten any legal cell path): the result is legal, joins the same ends and never costs
more."""

from __future__ import annotations

import math

import numpy as np

from ..errors import InvalidQueryError
from .grid import Grid, cell_path
from .rules import DIRECTIONS


def _line_cells(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cells of the straight walk from ``a`` to ``b``: ``max(|dx|, |dy|)`` steps, each one
    along the major axis, the minor coordinate rounded (halves rounded up)."""
    d = b - a
    n = int(np.abs(d).max())
    if n == 0:
        return a[None]
    t = np.arange(n + 1)
    return a + (2 * t[:, None] * d + n) // (2 * n)


#: Move bit of each step ``(dx, dy)``, at ``[dy + 1, dx + 1]``.
_BIT = np.zeros((3, 3), dtype=np.uint8)
for _b, (_dx, _dy) in enumerate(DIRECTIONS):
    _BIT[_dy + 1, _dx + 1] = _b


def _walk_cost(grid: Grid, walk: np.ndarray, octile: float) -> float:
    """Cost of a straight walk from :func:`_line_cells` (``octile`` its octile length), or
    ``inf`` when one of its steps is illegal."""
    d = walk[1:] - walk[:-1]
    flat = (walk[:-1, 1] + 1) * (grid.width + 2) + walk[:-1, 0] + 1
    if not np.all((grid.moves[flat] >> _BIT[d[:, 1] + 1, d[:, 0] + 1]) & 1):
        return math.inf
    if grid.is_uniform:
        return octile
    c = grid.costs[walk[:, 1], walk[:, 0]]
    base = np.where((d[:, 0] != 0) & (d[:, 1] != 0), math.sqrt(2.0), 1.0)
    return float(np.sum(base * 0.5 * (c[:-1] + c[1:])))


def smooth_path(grid: Grid, path: np.ndarray) -> np.ndarray:
    """Shortcut a legal cell path along lines of sight.

    The candidates are the path's turning points (cells where the step direction changes) and
    its last cell.  From each anchor, the farthest candidate in :meth:`Grid.line_of_sight`
    (scanning forward until the first blocked one) is joined by a straight walk when that walk
    is legal and cheaper than the part it replaces; otherwise the path is kept up to the next
    candidate, which becomes the anchor.  The result is legal, joins the same ends and never
    costs more.  ``(n, 2)`` integer ``(x, y)`` in, int64 out; ``O(turns x run)`` sight
    tests.  A path that is not a legal walk on ``grid`` (a cell outside or blocked, a step
    that is no legal move) raises :class:`InvalidQueryError`.
    """
    p = _legal_path(grid, path)
    if len(p) < 3:
        return p
    steps = np.diff(p, axis=0)
    c = grid.costs[p[:, 1], p[:, 0]]
    base = np.where(np.all(steps != 0, axis=1), math.sqrt(2.0), 1.0)
    cum = np.concatenate([[0.0], np.cumsum(base * 0.5 * (c[:-1] + c[1:]))])
    turn = np.flatnonzero(np.any(steps[1:] != steps[:-1], axis=1)) + 1
    cand = np.concatenate([[0], turn, [len(p) - 1]]).tolist()
    pts = [tuple(v) for v in p[cand].tolist()]
    floor = grid.min_cost
    out = [p[:1]]
    k, last = 0, len(cand) - 1
    while k < last:
        j = k + 1
        while j < last and grid.line_of_sight(pts[k], pts[j + 1]):
            j += 1
        i0, i1 = cand[k], cand[j]
        if j > k + 1:  # between consecutive candidates the path is already straight
            dx, dy = abs(pts[j][0] - pts[k][0]), abs(pts[j][1] - pts[k][1])
            octile = max(dx, dy) + (math.sqrt(2.0) - 1.0) * min(dx, dy)
            if octile * floor < cum[i1] - cum[i0] - 1e-9:
                walk = _line_cells(p[i0], p[i1])
                if _walk_cost(grid, walk, octile) < cum[i1] - cum[i0] - 1e-9:
                    out.append(walk[1:])
                    k = j
                    continue
        out.append(p[i0 + 1:cand[k + 1] + 1])
        k += 1
    return np.concatenate(out)


def _legal_path(grid: Grid, path: object) -> np.ndarray:
    """``path`` as ``(n, 2)`` int64 cells after checking that it walks legally on ``grid``
    (an empty path passes)."""
    if not isinstance(grid, Grid):
        raise InvalidQueryError(f"smooth_path needs a Grid, got {type(grid).__name__}")
    p = cell_path(path)
    if not len(p) or math.isfinite(grid.path_cost(p)):
        return p
    cells = [(int(x), int(y)) for x, y in p.tolist()]
    for k, cell in enumerate(cells):
        if not grid.is_passable(cell):
            raise InvalidQueryError(f"path cell {k} {cell} is outside the grid or blocked")
    k = next(k for k in range(1, len(cells))
             if not math.isfinite(grid.step_cost(cells[k - 1], cells[k])))
    raise InvalidQueryError(
        f"path step {k} from {cells[k - 1]} to {cells[k]} is not a legal move on this grid")
