"""Any-angle paths on voxel grids: Theta* and Lazy Theta*.

A path runs between voxel centres and turns only at voxel centres; each straight leg is in
line of sight (:mod:`wayfinding.voxel.sight`: it touches no blocked voxel, not even at an
edge or a corner), so the path can be flown and is never longer than the grid's optimal path
under its move rule (the cube rule of the Moving AI 3D benchmark).  Lengths are Euclidean, in
voxel units.  Searches expand the grid's moves (6, 18 or 26 neighbours) with the straight-line
distance to the goal as heuristic; ties on f go to the larger g.  Neither method is exact for
the true shortest any-angle path, which may turn between voxel centres.

>>> import numpy as np
>>> from wayfinding.voxel.grid import VoxelGrid
>>> wall = np.zeros((3, 5, 5), bool)
>>> wall[:, 1:4, 2] = True                       # a wall at x = 2 with a gap at y = 0 and 4
>>> r = theta_star(VoxelGrid(wall), (0, 2, 1), (4, 2, 1))
>>> r.path.tolist(), round(r.cost, 4)
([[0, 2, 1], [1, 0, 1], [3, 0, 1], [4, 2, 1]], 6.4721)
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

import numpy as np

from .._kernels import _voxel_anyangle
from .._scratch import thread_workspace
from .._validate import flag
from ..results import PathResult, SearchStats, Status
from .grid import MOVE_COSTS, MOVES, VoxelGrid, _require_grid

#: The any-angle methods by name.
ANY_ANGLE = {
    "theta": "Theta*: A* whose nodes take their parent's parent when it is in sight",
    "lazy_theta": "Lazy Theta*: Theta* checking line of sight once per expansion",
}


def theta_star(grid: VoxelGrid, start: Any, goal: Any, *, lazy: bool = False) -> PathResult:
    """An any-angle path from the centre of voxel ``start`` to that of ``goal`` by Theta*
    (or Lazy Theta* with ``lazy``).

    Returns a :class:`~wayfinding.results.PathResult` whose ``path`` is an ``(n, 3)`` int64
    array of the voxels ``(x, y, z)`` where it turns, start and goal included (an empty
    ``(0, 3)`` array when no path exists), ``cost`` its Euclidean length in voxel units (world
    length: times ``grid.voxel_size``; points: ``grid.cells_to_world(path)``) and
    ``algorithm`` ``"theta"`` or ``"lazy_theta"``.  Raises
    :class:`~wayfinding.errors.InvalidQueryError` for an end outside the grid or blocked.

    Theta* gives each generated voxel its parent's parent when that one sees it, else the
    parent.  Lazy Theta* defers the sight check to the voxel's expansion, where an unseen
    parent is replaced by the best expanded neighbour; a voxel that costs more after that
    goes back on the open list instead of being expanded, so both methods expand voxels in
    order of true cost and neither returns a path longer than the grid's optimal path.
    An unreachable goal is found so only after the search has swept the start's whole
    component: test ``grid.connected(start, goal)`` first (its labels are computed once per
    grid) where that matters.  Searches borrow this thread's scratch
    (:func:`wayfinding._scratch.thread_workspace`, 20 bytes per voxel of the padded grid);
    concurrent calls on other threads are safe.
    """
    _require_grid(grid, "theta_star")
    lazy = flag("lazy", lazy)
    s = grid.cell(start, name="start", free=True)
    g = grid.cell(goal, name="goal", free=True)
    padded = grid.padded
    nz, ny, nx = grid.shape
    sy, sz = nx + 2, (nx + 2) * (ny + 2)
    offsets, costs, cube, cube_n = _tables(nx, ny, grid.connectivity)
    flat_s = (s[2] + 1) * sz + (s[1] + 1) * sy + s[0] + 1
    flat_g = (g[2] + 1) * sz + (g[1] + 1) * sy + g[0] + 1
    ws = thread_workspace(padded.size)
    t0 = time.perf_counter()
    found, cost, flat, expanded, generated, updated, max_open, _ = _voxel_anyangle.theta_star(
        ws, padded, offsets, costs, cube, cube_n, flat_s, flat_g, bool(lazy))
    stats = SearchStats(expanded=expanded, generated=generated, updated=updated,
                        max_open=max_open, elapsed=time.perf_counter() - t0)
    algorithm = "lazy_theta" if lazy else "theta"
    if not found:
        return PathResult(np.empty((0, 3), np.int64), float("inf"), False, stats, algorithm,
                          status=Status.FAILED)
    path = np.stack([flat % sy - 1, (flat // sy) % (ny + 2) - 1, flat // sz - 1], axis=1)
    return PathResult(path, float(cost), True, stats, algorithm, status=Status.FOUND)


@lru_cache(maxsize=32)
def _tables(nx: int, ny: int, connectivity: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The move tables of the kernel for a padded grid of ``nx x ny`` voxels per layer: flat
    offset and cost of each move, and the flat offsets of the voxels of its cube other than
    its origin (its end included; rows padded with 0)."""
    strides = np.array([1, nx + 2, (nx + 2) * (ny + 2)], np.int64)
    moves = MOVES[:connectivity]
    cube = np.zeros((connectivity, 7), np.int64)
    cube_n = np.zeros(connectivity, np.int32)
    for k, d in enumerate(moves):
        corners = [np.array(c) for c in np.ndindex(2, 2, 2)]
        offs = sorted({int((c * d) @ strides) for c in corners} - {0},
                      key=lambda o: (o != int(d @ strides), abs(o)))
        cube[k, :len(offs)] = offs
        cube_n[k] = len(offs)
    for a in (cube, cube_n, strides):
        a.flags.writeable = False
    offsets = moves @ strides
    costs = MOVE_COSTS[:connectivity].copy()
    offsets.flags.writeable = costs.flags.writeable = False
    return offsets, costs, cube, cube_n
