"""Exact line of sight between voxel centres.

Voxel ``(x, y, z)`` is the closed unit cube ``[x, x + 1] x [y, y + 1] x [z, z + 1]`` in voxel
units, its centre ``(x + 0.5, y + 0.5, z + 0.5)``.  Two voxels *see* each other when every voxel
whose closed cube the straight segment between their centres touches is free: the voxels it
passes through and, where it passes exactly through an edge or a corner, all 4 or 8 voxels
around it.  This is the continuous form of the cube rule of the moves (between neighbours the
two agree, for any connectivity: sight ignores the grid's ``connectivity``); a segment in sight
keeps a positive distance from every blocked voxel, so any shortcut in sight can be flown.
A blocked end sees nothing.

The test walks the voxels along the segment with integer arithmetic only (no floating-point
drift): the crossings of the voxel boundaries of two axes are compared as exact fractions.

>>> import numpy as np
>>> from wayfinding.voxel.grid import VoxelGrid
>>> g = VoxelGrid.from_cells((3, 3, 1), [(1, 0, 0)])
>>> line_of_sight(g, (0, 0, 0), (2, 0, 0)), line_of_sight(g, (0, 1, 0), (2, 2, 0))
(False, True)
>>> line_of_sight(g, (0, 0, 0), (1, 1, 0))  # through the edge beside the blocked voxel
False
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels import _voxels
from ..errors import InvalidQueryError
from .grid import VoxelGrid, _require_grid


def line_of_sight(grid: VoxelGrid, a: Any, b: Any) -> bool:
    """Whether the centres of cells ``a`` and ``b`` (``(x, y, z)``, inside the grid) see each
    other (see the module); raises :class:`~wayfinding.errors.InvalidQueryError` for a cell
    outside the grid."""
    _require_grid(grid, "line_of_sight")
    ca = np.array([grid.cell(a, name="a")], np.int64)
    cb = np.array([grid.cell(b, name="b")], np.int64)
    out = np.zeros(1, np.uint8)
    _voxels.lines_of_sight(grid.padded, ca, cb, out)
    return bool(out[0])


def lines_of_sight(grid: VoxelGrid, a: Any, b: Any) -> np.ndarray:
    """Line of sight for many pairs: ``bool[m]``, true where the centres of cells ``a[i]`` and
    ``b[i]`` (``(m, 3)`` integer arrays of cells ``(x, y, z)`` inside the grid) see each
    other."""
    _require_grid(grid, "lines_of_sight")
    ca = np.ascontiguousarray(grid.cells(a, name="a"))
    cb = np.ascontiguousarray(grid.cells(b, name="b"))
    if len(ca) != len(cb):
        raise InvalidQueryError(f"a and b must hold as many cells, got {len(ca)} and "
                                f"{len(cb)}")
    out = np.zeros(len(ca), np.uint8)
    _voxels.lines_of_sight(grid.padded, ca, cb, out)
    return out.astype(bool)
