"""Any-angle paths on grids: Theta*, Lazy Theta*, the exact shortest any-angle path, and the
smoothing of grid paths into any-angle ones.

Paths are polylines in *cell units*: cell ``(x, y)`` is the unit square ``[x, x + 1] x
[y, y + 1]``, so its centre is ``(x + 0.5, y + 0.5)`` and the lattice corners have integer
coordinates.  A path runs from the centre of the start cell to the centre of the goal cell
and bends only at corners.

A segment is in *line of sight* when it crosses no blocked cell's interior, never runs
along an edge between two blocked cells, and never passes through a *pinch* corner (two
blocked cells touching diagonally while the other two are free): no path squeezes between
diagonal corners, as with the ``no_corner_cutting`` rule.  Grazing a single blocked corner is
allowed (paths hug obstacles).  The test is exact (integer arithmetic).

Every ``no_corner_cutting`` grid path is a line-of-sight path, so the exact any-angle length
is never above the 8-connected optimum.

>>> from wayfinding.grid import Grid
>>> aa = AnyAngle(Grid.from_ascii('''
... .....
... ..#..
... .....'''))
>>> r = aa.find_path((0, 1), (4, 1), method="any_angle")
>>> round(r.cost, 4), r.path.tolist()
(4.1623, [[0.5, 1.5], [2.0, 1.0], [3.0, 1.0], [4.5, 1.5]])
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .._kernels import _anyangle
from .._scratch import SingleThread, exclusive
from ..errors import InvalidQueryError, brief
from ..geometry.funnel import funnel_path
from ..results import PathResult, SearchStats
from .grid import Grid
from .rules import Diagonal
from .search import GridSearch

#: The any-angle methods by name.
ANY_ANGLE = {
    "theta": "Theta*: any-angle A* whose nodes take any visible ancestor as parent",
    "lazy_theta": "Lazy Theta*: Theta* checking line of sight once per expansion",
    "any_angle": "the exact shortest any-angle path (visibility graph of convex corners)",
    "astar_smoothed": "A*, then string pulling through its cells and line-of-sight "
                      "shortcuts",
}

#: The exact search first bounds the length by the 8-connected optimum; when more convex
#: corners than this lie in that bound's ellipse, by Lazy Theta*'s path too (about two A*
#: searches, and the tighter ellipse halves the rest on open and cluttered maps), and each
#: corner it expands looks no farther than its sight radius (a sweep of the directions
#: left open, once per corner, kept for later searches).
TIGHTEN_ABOVE = 2500
#: ... and when that path is more than this many times the straight line, the search bounds
#: lengths to the goal from below by the corner lattice's distances too (one Dijkstra
#: search): on maze512-1 about 12 times faster; on open and cluttered maps, whose paths
#: run nearly straight, the straight line bounds as well.
WINDING = 1.1


class AnyAngle(SingleThread):
    """Any-angle searches on one grid (uniform costs, ``no_corner_cutting``).  Holds its
    search arrays: use one object per thread (a search while another thread's runs raises
    :class:`~wayfinding.errors.ConcurrentUseError`)."""

    def __init__(self, grid: Grid):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"any-angle search needs a Grid, got {type(grid).__name__}")
        if grid.diagonal is not Diagonal.NO_CORNER_CUTTING:
            raise InvalidQueryError(
                f"any-angle paths follow the no_corner_cutting rule; this grid uses "
                f"{grid.diagonal.value!r}")
        if not grid.is_uniform:
            raise InvalidQueryError("any-angle paths need uniform costs (every passable cell "
                                    "costs the same)")
        self.grid = grid
        self._blocked = np.ascontiguousarray(
            np.pad(~grid.passable, 1, constant_values=True), dtype=np.uint8).ravel()
        self._search = _anyangle.AnyAngleSearch(self._blocked, grid.width, grid.height)
        self._grid_search = GridSearch(grid)

    def line_of_sight(self, a: Any, b: Any) -> bool:
        """Whether the segment between two points (cell units; corners and cell centres
        are exact, other points are rounded to half units) is in line of sight.  Its ends
        count: a segment from or to a point off the grid or in a blocked cell is not in
        sight."""
        (ax, ay), (bx, by) = (_doubled(a, "a"), _doubled(b, "b"))
        w, h = 2 * self.grid.width, 2 * self.grid.height
        if not (0 <= ax <= w and 0 <= bx <= w and 0 <= ay <= h and 0 <= by <= h):
            return False
        return bool(_anyangle.line_of_sight(self._blocked, self.grid.width + 2, ax, ay,
                                            bx, by))

    def is_legal(self, path: Any) -> bool:
        """Whether every segment of a polyline ``(n, 2)`` (cell units) is in line of sight
        and no bend at a pinch corner squeezes from one of its free cells to the other (one
        point: whether it is in sight; no point: False)."""
        try:
            p = np.asarray(path, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidQueryError(f"a path must be an (n, 2) array of numbers, got "
                                    f"{brief(path)}") from None
        if p.size == 0:
            return False
        if p.ndim != 2 or p.shape[1] != 2:
            raise InvalidQueryError(f"a path must be an (n, 2) array, got shape {p.shape}")
        if len(p) == 1:
            return self.line_of_sight(p[0], p[0])
        if not all(self.line_of_sight(p[i], p[i + 1]) for i in range(len(p) - 1)):
            return False
        p = p[np.r_[True, np.any(p[1:] != p[:-1], axis=1)]]     # repeated points dropped
        return not any(self._squeezes(p[i - 1], p[i], p[i + 1]) for i in range(1, len(p) - 1))

    def _squeezes(self, a: np.ndarray, corner: np.ndarray, b: np.ndarray) -> bool:
        """Whether a path in sight from ``a`` to ``corner`` and on to ``b`` passes at
        ``corner`` from one free cell of a pinch to the other."""
        x, y = corner
        if x != math.floor(x) or y != math.floor(y):
            return False
        cx, cy = int(x), int(y)
        free = self.grid.passable
        h, w = free.shape

        def open_(i: int, j: int) -> bool:
            return 0 <= i < w and 0 <= j < h and bool(free[j, i])

        low_left, high_right = open_(cx - 1, cy - 1), open_(cx, cy)
        high_left, low_right = open_(cx - 1, cy), open_(cx, cy - 1)
        if low_left != high_right or high_left != low_right or low_left == high_left:
            return False                       # no pinch here
        # The free pair's two sides: which one each leg lies on (legs in sight never point
        # into the blocked pair, so the sign is never 0).
        u, v = a - corner, b - corner
        if low_right:                          # free: (+x, -y) and (-x, +y)
            return bool((u[0] - u[1] > 0) != (v[0] - v[1] > 0))
        return bool((u[0] + u[1] > 0) != (v[0] + v[1] > 0))   # free: (+x, +y), (-x, -y)

    @exclusive(algo="method")
    def find_path(self, start: Any, goal: Any, *, method: str = "theta") -> PathResult:
        """The any-angle path between the centres of cells ``start`` and ``goal`` by
        ``method`` (a name of :data:`ANY_ANGLE`).  ``path``: ``(k, 2)`` float64 corners (cell
        units), ``cost``: its length."""
        if method not in ANY_ANGLE:
            raise InvalidQueryError(f"unknown any-angle method {method!r}; expected one of: "
                                    f"{', '.join(ANY_ANGLE)}")
        grid = self.grid
        (sx, sy), (gx, gy) = grid.cell(start, name="start"), grid.cell(goal, name="goal")
        t0 = time.perf_counter()
        stats = SearchStats()
        for name, (x, y) in (("start", (sx, sy)), ("goal", (gx, gy))):
            if not grid.passable[y, x]:
                raise InvalidQueryError(f"{name} cell {(x, y)} is blocked")
        if method == "astar_smoothed":
            r = self._grid_search.find_path((sx, sy), (gx, gy))
            stats.expanded = r.stats.expanded
            if not r.found:
                return _none(method, stats, t0)
            path = self.shortcut(self.string_pull(r.path))
        else:
            if (sx, sy) == (gx, gy):
                path = np.array([[sx + 0.5, sy + 0.5]])
            else:
                if method == "any_angle":
                    found, _, nodes, stats.expanded = self._exact(sx, sy, gx, gy)
                else:
                    found, _, nodes, stats.expanded = self._search.find(
                        sx, sy, gx, gy, method == "lazy_theta")
                if not found:
                    return _none(method, stats, t0)
                path = self._search.points(nodes)
        stats.elapsed = time.perf_counter() - t0
        return PathResult(path, _length(path), True, stats, method)

    def _exact(self, sx: int, sy: int, gx: int, gy: int) -> tuple:
        """The exact search, bounded by the 8-connected optimum (every grid path is in
        sight all along; none means no any-angle path either), or by Lazy Theta*'s path
        where that bound's ellipse holds many corners; there with sight radii and, if the
        path winds, the corner lattice's lower bounds as well."""
        grid_path = self._grid_search.find_path((sx, sy), (gx, gy))
        if not grid_path.found:
            return False, math.inf, None, 0
        bound = grid_path.cost
        crowded = self._search.corners_near(sx, sy, gx, gy, bound) > TIGHTEN_ABOVE
        if crowded:
            bound = min(bound, self._search.find(sx, sy, gx, gy, True)[1])
        winding = crowded and bound > WINDING * math.hypot(gx - sx, gy - sy)
        return self._search.exact(sx, sy, gx, gy, bound, winding, crowded)

    def shortcut(self, path: Any) -> np.ndarray:
        """Line-of-sight shortcuts of a polyline or a cell path (cells become their
        centres): from each kept point, jump to the farthest later point in sight, the
        last point included.  Never longer, and legal when the input is."""
        p = _points(path)
        if len(p) < 3:
            return p
        if not np.isfinite(p).all():
            raise InvalidQueryError(f"a path's points must be finite, got {brief(path)}")
        # Half units, rounded as line_of_sight rounds them (half to even); off the grid
        # stays off it.
        g = self.grid
        doubled = np.rint(2 * p).clip(-1, [2 * g.width + 1, 2 * g.height + 1])
        return p[_anyangle.shortcut(self._blocked, g.width + 2, doubled.astype(np.int64))]

    def string_pull(self, cells: Any) -> np.ndarray:
        """The shortest polyline through a legal cell path's cells (the funnel through the
        edges between consecutive cells; a diagonal step goes through the side cell
        reached by its x step first, which ``no_corner_cutting`` keeps free).  Runs from
        the first cell's centre to the last's; never longer than the path through the
        centres."""
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
        if len(c) < 2:
            return _points(c)
        steps = np.diff(c, axis=0)
        if np.any(np.abs(steps).max(axis=1) != 1):
            raise InvalidQueryError("string_pull needs a path of neighbouring cells")
        diagonal = np.flatnonzero(np.all(steps != 0, axis=1))
        side = c[diagonal] + np.column_stack([steps[diagonal, 0], np.zeros_like(diagonal)])
        w = np.insert(c, diagonal + 1, side, axis=0)
        if not self.grid.passable[w[:, 1], w[:, 0]].all():
            raise InvalidQueryError("string_pull needs a legal path (a diagonal step's "
                                    "side cells must be free)")
        d = np.diff(w, axis=0)
        centre = w[:-1] + 0.5
        # The shared edge's ends: centre + d / 2 -/+ the normal / 2.
        mid = centre + d / 2
        normal = np.stack([-d[:, 1], d[:, 0]], axis=1) / 2      # left of the step (y up)
        start, end = w[:1] + 0.5, w[-1:] + 0.5
        left = np.concatenate([start, mid + normal, end])
        right = np.concatenate([start, mid - normal, end])
        corners, _ = funnel_path(left, right)
        return corners


def _doubled(point: Any, name: str) -> tuple[int, int]:
    try:
        x, y = (float(v) for v in point)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"{name} must be an (x, y) point, got {point!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InvalidQueryError(f"{name} must be finite, got {point!r}")
    return round(2 * x), round(2 * y)


def _points(path: Any) -> np.ndarray:
    p = np.asarray(path)
    if p.ndim != 2 or p.shape[1] != 2:
        raise InvalidQueryError(f"a path must be an (n, 2) array, got shape {p.shape}")
    return p + 0.5 if np.issubdtype(p.dtype, np.integer) else p.astype(np.float64)


def _length(path: np.ndarray) -> float:
    return float(np.hypot(*np.diff(path, axis=0).T).sum()) if len(path) > 1 else 0.0


def _none(method: str, stats: SearchStats, t0: float) -> PathResult:
    stats.elapsed = time.perf_counter() - t0
    return PathResult(np.empty((0, 2)), math.inf, False, stats, method)
