"""Integration fields: the cost from every cell to the nearest source.

:func:`dijkstra_field` is exact for the grid's moves (8-connected by its diagonal rule, steps
costing length times the mean cell cost), the Core distance map.  :func:`eikonal_field` solves
the Eikonal equation ``|grad T| = cost`` by fast marching (first or second order): travel
times in any direction rather than along grid steps, so it is within a few percent of the
Euclidean distance in the open where 8-connected costs are up to 8% long.  Both return float64
``(H, W)`` arrays indexed ``[y, x]``, ``inf`` where unreachable.

>>> import numpy as np
>>> from wayfinding.grid import Grid
>>> grid = Grid(np.ones((15, 25), dtype=bool))              # open ground
>>> float(np.hypot(20, 10).round(3))                        # straight to (20, 10)
22.361
>>> float(eikonal_field(grid, [(0, 0)], order=2)[10, 20].round(3))
22.596
>>> float(dijkstra_field(grid, [(0, 0)])[10, 20].round(3))  # 10 + 10 sqrt 2
24.142
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import _fmm, _gridops
from .._validate import choice, flag, number, positive_float, reals
from ..errors import InvalidQueryError
from ..grid.grid import Grid, cell_items
from ..grid.search import GridSearch

# Cell states of the fast-marching kernel.
_FAR, _FROZEN, _MASKED = 0, 2, 3
_PAD = 2  # border cells around the grid (the second-order stencil reaches two cells)


def dijkstra_field(grid: Grid, sources: Any, *, limit: float = math.inf) -> np.ndarray:
    """Exact multi-source Dijkstra over the grid's moves (see
    :meth:`GridSearch.distance_map <wayfinding.grid.GridSearch.distance_map>`)."""
    _require_grid(grid)
    return GridSearch(grid).distance_map(sources, limit=limit, method="dijkstra")


def eikonal_field(world: Any, sources: Any = (), *, initial: Any = None, order: int = 1,
                  cell_size: float = 1.0, limit: float = math.inf,
                  los: bool = False) -> np.ndarray:
    """Fast-marching travel times from ``sources`` over ``world``.

    ``world``: a :class:`Grid` (a cell's cost is its slowness: time per unit length; blocked
    cells are walls) or an ``(H, W)`` array of speeds (> 0; 0 is a wall).  ``sources``:
    ``(x, y)`` cells at time 0.  ``initial``: an ``(H, W)`` array of known times (``nan`` or
    ``inf`` elsewhere), e.g. exact distances near a curve, or costs carried over from a
    neighbouring field; those cells stay as given.  ``order``: 1 or 2 (one-sided second-order
    differences where the two cells behind are known).  ``cell_size``: the spacing ``h``.
    Cells costing more than ``limit`` are left ``inf``.

    ``los`` (one source, on a :class:`Grid`): the line-of-sight pass of flow-field tiles.
    Cells that see the source across cells of its own cost (:func:`visible_cells`) get the
    exact time, straight-line distance times that cost, and the march starts from their
    edge, so the field has no diamond-shaped artefacts near the goal.
    """
    if los is not False:
        los = flag("los", los)
    # Plain arguments pass at once (the checks cost as much as a march over a small grid).
    if not (type(order) is int and (order == 1 or order == 2)):
        choice("order", order, (1, 2))
    if not (type(cell_size) is float and 0.0 < cell_size < math.inf):
        cell_size = positive_float("cell_size", cell_size)
    lim = limit if type(limit) is float and limit >= 0.0 else \
        number("limit", limit, min=0, infinite=True)
    if los:
        if not isinstance(world, Grid) or initial is not None:
            raise InvalidQueryError("the line-of-sight pass needs a Grid and no initial times")
        cells = _cells(sources, ~world.passable)
        if len(cells) != 1:
            raise InvalidQueryError("the line-of-sight pass needs exactly one source")
        initial = line_of_sight_times(world, cells[0]) * cell_size
        sources = ()
    if initial is None:
        return _march_sources(world, sources, order, cell_size, lim)
    slowness, walls = _slowness(world)
    h, w = walls.shape
    times = np.full((h + 2 * _PAD, w + 2 * _PAD), np.inf)
    state = np.full(times.shape, _MASKED, dtype=np.uint8)
    inner = (slice(_PAD, _PAD + h), slice(_PAD, _PAD + w))
    state[inner] = np.where(walls, _MASKED, _FAR)
    known = _known_times(initial, walls)
    if known is not None:
        times[inner][known[0]] = known[1]
        state[inner][known[0]] = _FROZEN
    for x, y in _cells(sources, walls):
        times[_PAD + y, _PAD + x] = 0.0
        state[_PAD + y, _PAD + x] = _FROZEN
    if not (state == _FROZEN).any():
        raise InvalidQueryError("give at least one source or initial time")
    slow = np.zeros(times.shape)
    slow[inner] = slowness
    _fmm.march(slow.ravel(), times.ravel(), state.ravel(), w + 2 * _PAD, cell_size,
               order, lim)
    out = times[inner].copy()
    out[out > lim] = np.inf
    return out


def _march_sources(world: Any, sources: Any, order: int, cell_size: float,
                   limit: float) -> np.ndarray:
    """:func:`eikonal_field` from source cells only, in one kernel call (which checks the
    speeds and the sources' cells)."""
    if isinstance(world, Grid):
        values, costs = world.costs, True
    elif type(world) is np.ndarray and world.dtype == np.float64 and world.ndim == 2 \
            and world.size:
        values, costs = world, False
    else:
        values, costs = _speed_array(world), False
    values = np.ascontiguousarray(values, dtype=np.float64)
    cells = sources
    out, code, bad = _fmm.eikonal(values, cells, costs, cell_size, order, limit)
    if code == 5:       # not a list of (int, int) tuples: check and normalise them
        items = _source_items(sources)
        try:
            cells = np.array(items, dtype=np.int64).reshape(-1, 2)
        except OverflowError:
            h, w = values.shape
            raise InvalidQueryError(f"a source of {items} is outside the {w}x{h} "
                                    "grid") from None
        out, code, bad = _fmm.eikonal(values, cells, costs, cell_size, order, limit)
    if code == 1:
        raise InvalidQueryError("speeds must be finite and >= 0 (0 is a wall)")
    if code == 2:
        h, w = values.shape
        raise InvalidQueryError(f"source {tuple(np.asarray(cells[bad]).tolist())} is "
                                f"outside the {w}x{h} grid")
    if code == 3:
        raise InvalidQueryError(f"source {tuple(np.asarray(cells[bad]).tolist())} is a wall")
    if code == 4:
        raise InvalidQueryError("give at least one source or initial time")
    assert out is not None                              # code 0
    return out


def visible_cells(grid: Grid, goal: ArrayLike) -> np.ndarray:
    """``(H, W)`` bool: the cells whose centres the centre of ``goal`` sees across cells of
    the goal's own cost (the grid's line-of-sight rule), connected to the goal through such
    cells."""
    _require_grid(grid)
    x, y = grid.cell(goal, name="goal", passable=True)
    same = np.ascontiguousarray(grid.costs == grid.costs[y, x], dtype=np.uint8)
    out = np.zeros(grid.shape, dtype=np.uint8)
    _gridops.visible_region(same, x, y, grid.diagonal.code, out)
    return out.astype(bool)


def line_of_sight_times(grid: Grid, goal: ArrayLike) -> np.ndarray:
    """The exact cost from ``goal`` to each of its :func:`visible_cells` (straight-line
    distance in cells times the goal's cost), ``nan`` elsewhere."""
    seen = visible_cells(grid, goal)
    x, y = grid.cell(goal, name="goal", passable=True)
    ys, xs = np.mgrid[0:grid.height, 0:grid.width]
    return np.where(seen, np.hypot(xs - x, ys - y) * grid.costs[y, x], np.nan)


def _require_grid(grid: Any) -> None:
    if not isinstance(grid, Grid):
        raise InvalidQueryError(f"expected a Grid, got {type(grid).__name__}")


def _slowness(world: Any) -> tuple[np.ndarray, np.ndarray]:
    """(1 / speed per cell, wall mask) of a Grid or a speed array."""
    if isinstance(world, Grid):
        costs = world.costs
        walls = ~np.isfinite(costs)
        return np.where(walls, 0.0, costs), walls
    speed = _speed_array(world).astype(np.float64)
    if not np.isfinite(speed).all() or (speed < 0).any():
        raise InvalidQueryError("speeds must be finite and >= 0 (0 is a wall)")
    walls = speed == 0
    with np.errstate(divide="ignore", over="ignore"):
        return np.where(walls, 0.0, 1.0 / np.where(walls, 1.0, speed)), walls


def _speed_array(world: Any) -> np.ndarray:
    """``world`` as a 2D numeric array (of speeds), or a clear error."""
    speed = np.asarray(world)
    if speed.ndim != 2 or speed.size == 0 or speed.dtype.kind not in "biuf":
        raise InvalidQueryError(f"world must be a Grid or a 2D array of speeds, got "
                                f"{type(world).__name__} {getattr(speed, 'shape', '')}")
    return speed


def _source_items(sources: Any) -> list[tuple[int, int]]:
    """The ``(x, y)`` integer pairs of ``sources`` (a single cell or a sequence of them),
    not yet checked against a grid."""
    cells = []
    for c in cell_items(sources):
        try:
            if any(isinstance(v, (bool, np.bool_)) for v in c):
                raise ValueError
            x, y = (int(v) for v in c)
            if (x, y) != tuple(c):
                raise ValueError
        except (TypeError, ValueError, OverflowError):
            raise InvalidQueryError(f"source {c!r} must be an (x, y) pair of integers") \
                from None
        cells.append((x, y))
    return cells


def _cells(sources: Any, walls: np.ndarray) -> list[tuple[int, int]]:
    """Validated ``(x, y)`` source cells (a single cell or a sequence of them)."""
    cells = []
    h, w = walls.shape
    for x, y in _source_items(sources):
        if not (0 <= x < w and 0 <= y < h):
            raise InvalidQueryError(f"source {(x, y)} is outside the {w}x{h} grid")
        if walls[y, x]:
            raise InvalidQueryError(f"source {(x, y)} is a wall")
        cells.append((x, y))
    return cells


def _known_times(initial: Any, walls: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(mask, values) of the cells whose times ``initial`` fixes."""
    if initial is None:
        return None
    values = reals("initial", initial)
    if values.shape != walls.shape:
        raise InvalidQueryError(f"initial has shape {values.shape}, the world {walls.shape}")
    known = np.isfinite(values)
    if (values[known] < 0).any():
        raise InvalidQueryError("initial times must be >= 0")
    if (known & walls).any():
        y, x = np.argwhere(known & walls)[0]
        raise InvalidQueryError(f"initial time given for the wall cell {(int(x), int(y))}")
    return known, values[known]
