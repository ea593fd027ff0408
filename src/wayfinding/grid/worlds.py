"""Random block worlds for planning between two ends: an open grid with rectangular blocks
dropped at random, and a start and a goal on free cells joined by a path.

Each block is ``1..largest`` cells wide and high (drawn apart), its top-left cell anywhere
but the last row and column; blocks may overlap and run off the map.  The start and the goal
are two free cells drawn at random; a goal on another island than the start is drawn again
among the start's island's cells, so a path always joins them.
"""

from __future__ import annotations

import numpy as np

from .._validate import MAX_PIECES, count
from ..errors import InvalidGridError
from .grid import Grid

#: Largest side :func:`blocks_world` accepts (the grid itself caps the cell count too).
_MAX_SIDE = 16384

__all__ = ["blocks_world"]


def blocks_world(width: int, height: int, *, blocks: int = 25, largest: int = 7,
                 seed: int = 0) -> tuple[Grid, tuple[float, float], tuple[float, float]]:
    """A ``width`` × ``height`` (>= 2 cells) uniform-cost :class:`Grid` (unit cells, origin
    at 0, the default diagonal rule) with ``blocks`` (0 to 10**6) random blocks of up to
    ``largest`` (>= 1) × ``largest`` cells (see the module), and its start and goal: the
    centres of two free cells joined by a path, world ``(x, y)`` float.  The same for the
    same arguments and ``seed`` (>= 0).  Raises :class:`~wayfinding.errors.InvalidGridError`
    on a bad argument or when the blocks leave no free cell.

    >>> grid, start, goal = blocks_world(40, 30, seed=3)
    >>> grid.shape, grid.connected(grid.world_to_cell(start), grid.world_to_cell(goal))
    ((30, 40), True)
    """
    w = count("width", width, min=2, max=_MAX_SIDE, error=InvalidGridError)
    h = count("height", height, min=2, max=_MAX_SIDE, error=InvalidGridError)
    blocks = count("blocks", blocks, min=0, max=MAX_PIECES, error=InvalidGridError)
    largest = count("largest", largest, min=1, max=_MAX_SIDE, error=InvalidGridError)
    rng = np.random.default_rng(count("seed", seed, min=0, error=InvalidGridError))
    free = np.ones((h, w), dtype=bool)
    for _ in range(blocks):
        x, y = rng.integers(0, w - 1), rng.integers(0, h - 1)
        free[y:y + rng.integers(1, largest + 1), x:x + rng.integers(1, largest + 1)] = False
    cells = np.argwhere(free)
    if not len(cells):
        raise InvalidGridError(f"{blocks} blocks of up to {largest} x {largest} cells left no "
                               f"free cell in the {w} x {h} grid (seed {seed})")
    grid = Grid(free)
    (ay, ax), (by, bx) = cells[rng.integers(len(cells), size=2)]
    island = grid.components
    if island[by, bx] != island[ay, ax]:
        ours = np.argwhere(island == island[ay, ax])
        by, bx = ours[rng.integers(len(ours))]
    return grid, grid.cell_to_world((ax, ay)), grid.cell_to_world((bx, by))
