"""Σ3, the grid domain (Kapadia et al., ch. 9): cells as states, an agent of some radius
with no orientation or speed, dynamic obstacles at their current positions only.

A cell is free for the agent when its disc (of ``radius``, at the cell's centre) meets no
wall cell's square, no obstacle's disc and does not leave the grid.  Transitions go to the
neighbouring free cells by the grid's diagonal rule; a straight step costs ``cell_size``
and a diagonal one ``√2 · cell_size`` (the Euclidean distance), the heuristic is the
Euclidean distance between cell centres.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import finite_point, positive_float
from ..errors import InvalidQueryError, brief
from ..grid.grid import Grid
from ..grid.rules import DIRECTIONS
from .domain_base import Domain

Cell = tuple[int, int]


def obstacle_discs(obstacles: Any) -> np.ndarray:
    """``obstacles`` (``(m, 3)`` ``(x, y, radius)`` world units, radius >= 0; None or empty
    for none) as a float64 array; raises :class:`InvalidQueryError` naming a bad value."""
    if obstacles is None:
        return np.zeros((0, 3))
    try:
        arr = np.asarray(obstacles, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"obstacles {brief(obstacles)} must be (m, 3) numbers") \
            from None
    if arr.size == 0:
        return np.zeros((0, 3))
    if arr.ndim != 2 or arr.shape[1] != 3 or not np.all(np.isfinite(arr)) \
            or (arr[:, 2] < 0).any():
        raise InvalidQueryError(f"obstacles must be (m, 3) finite (x, y, radius) rows with "
                                f"radius >= 0, got {brief(obstacles)}")
    return arr


class GridDomain(Domain):
    """Σ3 over ``grid`` (its walls, diagonal rule, ``origin`` and ``cell_size``).

    Parameters
    ----------
    grid : Grid
        The walls: blocked cells; cell costs are not used (the cost is the distance).
    radius : float, default 0.0
        The agent's radius in world units (>= 0).
    obstacles : array_like, optional
        Dynamic obstacles' current discs, ``(m, 3)`` ``(x, y, radius)``; change them with
        :meth:`set_obstacles`.

    ``static_free`` ``(H, W)`` bool is where the agent fits among the walls alone;
    ``free`` also keeps clear of the obstacles.
    """

    name = "grid"

    def __init__(self, grid: Grid, *, radius: float = 0.0, obstacles: Any = None):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"grid must be a Grid, got {type(grid).__name__}")
        self.walls = grid
        self.radius = positive_float("radius", radius, allow_zero=True)
        self.cell_size = grid.cell_size
        h, w = grid.shape
        ys, xs = np.mgrid[0:h, 0:w]
        self._centres = np.stack([grid.origin[0] + (xs + 0.5) * self.cell_size,
                                  grid.origin[1] + (ys + 0.5) * self.cell_size], -1)
        reach = int(math.ceil(self.radius / self.cell_size + 0.5))
        pad = np.zeros((h + 2 * reach, w + 2 * reach), dtype=bool)  # outside: a wall
        pad[reach:reach + h, reach:reach + w] = grid.passable
        free = grid.passable.copy()
        for dy in range(-reach, reach + 1):
            for dx in range(-reach, reach + 1):
                gap = self.cell_size * math.hypot(max(abs(dx) - 0.5, 0.0),
                                                  max(abs(dy) - 0.5, 0.0))
                if gap < self.radius:
                    free &= pad[reach + dy:reach + dy + h, reach + dx:reach + dx + w]
        free.flags.writeable = False
        self.static_free = free
        self.static_grid = self._grid(free)
        self.obstacles = np.zeros((0, 3))
        self.free = free
        self.current = self.static_grid
        self.set_obstacles(obstacles)

    def _grid(self, free: np.ndarray) -> Grid:
        return Grid(np.where(free, self.cell_size, np.inf), diagonal=self.walls.diagonal,
                    origin=self.walls.origin, cell_size=self.cell_size)

    def set_obstacles(self, obstacles: Any) -> dict[Cell, float]:
        """Move the dynamic obstacles to ``obstacles`` (as the constructor's) and return
        the cells whose cost changed, ``{(x, y): cost}`` (``inf``: now blocked), as
        :meth:`ADStar.update_costs <wayfinding.search.ADStar.update_costs>` takes them."""
        discs = obstacle_discs(obstacles)
        free = self.static_free.copy()
        if len(discs):
            # each disc tests the cells of one square around the grid cell nearest its
            # centre, wide enough for the largest reach (at most the grid)
            h, w = free.shape
            reach = discs[:, 2] + self.radius
            side = min(int(math.ceil(reach.max() / self.cell_size)) + 1, max(h, w))
            offs = np.arange(-side, side + 1)
            home = np.floor((discs[:, :2] - self.walls.origin) / self.cell_size)
            home = np.clip(home, 0, [w - 1, h - 1]).astype(np.int64)
            xs = home[:, 0, None, None] + offs[None, None, :]
            ys = home[:, 1, None, None] + offs[None, :, None]
            xs, ys = np.broadcast_arrays(xs, ys)
            cx = self.walls.origin[0] + (xs + 0.5) * self.cell_size
            cy = self.walls.origin[1] + (ys + 0.5) * self.cell_size
            hit = (np.hypot(cx - discs[:, 0, None, None], cy - discs[:, 1, None, None])
                   < reach[:, None, None]) & (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            free[ys[hit], xs[hit]] = False
        ys, xs = np.nonzero(free != self.free)
        self.obstacles, self.free = discs, free
        self.current = self._grid(free)
        return {(int(x), int(y)): (self.cell_size if free[y, x] else math.inf)
                for x, y in zip(xs, ys)}

    def actions(self, s: Any) -> list[Cell]:
        x, y = self.walls.cell(s, name="state")
        return [(x + dx, y + dy) for dx, dy in DIRECTIONS
                if self.walls.in_bounds((x + dx, y + dy))]

    def cost(self, s: Any, n: Any) -> float:
        return self.current.step_cost(s, n)

    def valid(self, s: Any, n: Any) -> bool:
        return math.isfinite(self.current.step_cost(s, n))

    def heuristic(self, s: Any, goal: Any) -> float:
        return self.cell_size * math.hypot(s[0] - goal[0], s[1] - goal[1])

    def position(self, s: Any) -> np.ndarray:
        x, y = self.walls.cell(s, name="state")
        return self._centres[y, x].copy()

    def cell_of(self, point: Any) -> Cell:
        """The cell holding the world point ``(x, y)``, free or not; raises
        :class:`InvalidQueryError` for a point off the grid."""
        p = finite_point("point", point)
        (cell,), (inside,) = self.walls.world_to_cells(p[None])
        if not inside:
            raise InvalidQueryError(f"point {tuple(p.tolist())} is off the grid")
        return int(cell[0]), int(cell[1])

    def state(self, point: Any) -> Cell:
        cell = self.cell_of(point)
        if not self.free[cell[1], cell[0]]:
            raise InvalidQueryError(f"point {tuple(np.asarray(point).tolist())} is in cell "
                                    f"{cell}, where the agent of radius {self.radius:g} "
                                    "does not fit")
        return cell

    def positions(self, cells: Any) -> np.ndarray:
        """``(n, 2)`` float64 world centres of ``(n, 2)`` ``(x, y)`` cells."""
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
        return self._centres[c[:, 1], c[:, 0]]
