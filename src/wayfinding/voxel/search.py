"""Exact searches on voxel grids, compiled: A*, Dijkstra, bidirectional A* and distance maps.

Every exact method returns a shortest path under the grid's move rule (:mod:`.grid`: 6, 18 or
26 neighbours, costs 1, √2, √3, a move needing its whole cube free); the method names are in
:mod:`.methods`.  A* uses the exact distance of an empty grid of the same connectivity
(:func:`~wayfinding.voxel.grid.octile3`), which is consistent, so no voxel is expanded twice;
ties on f go to the larger g (the voxel nearer the goal), which in open space expands little
more than the path itself.  Bidirectional A* searches from both ends, each side with the
heuristic to the other's origin, always on the side with the smaller open list, and stops
when either side's least f reaches the best meeting cost found (no path left to find is
shorter).

The kernel (``wayfinding._kernels._voxel_search``) reads ``grid.padded`` by flat index: an
expansion reads the free bits of its 26 neighbours once into a mask, each move is allowed when
the voxels of its cube (each one of those neighbours) are all free (one AND).  It skips the
neighbours its parent reaches by a legal move, since one step from the parent is shorter than
two through the expanded voxel: the same expansions and results, fewer look-ups (after a
straight move, 9 neighbours of 26 are left to look up).

Scratch: a sparse set, one ``uint32`` per voxel of the padded grid naming the voxel's slot,
allocated zeroed so the operating system commits only the pages a search touches, plus 25
bytes per touched voxel and the heap.  On Moving AI's A1 (89 million voxels) the index is
362 MB of address space per side (bidirectional searches use two), committed only where
searches went: the process peaked at 724 MB resident after 500 A* and 500 bidirectional
queries there.  Searches that touch most of a big grid (Dijkstra or a distance map over
A1) need 25 bytes per voxel touched, several GB there.  It is never cleared (a query resets
a counter), so a query costs what it touches, never the size of the grid.

Measured on the Moving AI Warframe maps (500 evenly spread problems of each file, one core,
times per query including the Python call): bidirectional A* is the fastest exact method and
A* the default.

- Simple (105 x 132 x 105): A* 72 µs median, 4.1 ms p99, 0.20 ms mean; bidirectional 87 µs,
  0.34 ms, 0.10 ms; Dijkstra 8.5 ms, 164 ms, 21 ms.
- A1 (896 x 390 x 255): A* 5.0 ms median, 2.6 s p99, 207 ms mean; bidirectional 2.1 ms, 1.3 s,
  98 ms; Dijkstra 2.2 s to 106 s (5 evenly spread problems, up to 73 million expansions: A1
  is 99.9 % free, so it floods most of the level).  All 20,000 problems of both files by
  bidirectional A*: 1,043 s, every one at its optimal length.

Mean expansions: Simple 513 (A*) and 205 (bidirectional), A1 475,263 and 232,436.  The costly
problems are those whose optimum is far above the heuristic (a detour round a wall or out of a
hall): A* must expand every voxel whose f is below the optimum, a region round the start that
grows with the detour; bidirectional A* meets in the middle, each side flooding only the
voxels within about half the optimum of its own origin, so it expands half as many on A1 and
2.5 times fewer on Simple, for a median slightly above A*'s on the easy problems (two heaps,
two scratches).

3D jump point search and canonical A* were measured and not kept.  A prototype of each (exact
on 300 Simple and 100 A1 problems; scans stop at any voxel next to a blocked one) against this
module's searches on the same problems: Simple, medians 218 µs (JPS), 176 µs (canonical A*),
67 µs (A*), 81 µs (bidirectional); A1, 12.3 ms, 18.8 ms, 5.1 ms, 1.5 ms.  JPS expands fewer
voxels (35 % fewer than A* on Simple, 73 % on A1) but reads far more: under the cube rule a
diagonal jump scans along its three axes and three planar diagonals at every step, and in the
open halls of these levels each scan runs on to the next wall, about 330 voxels read per
expansion on Simple and 900 on A1 against at most 26 here (96 million voxels read per A1
query on average, ten times A*'s); canonical A* reads little but expands as many voxels as A*
and pays more for each.  The heap work JPS saves costs far less than the scans it adds, the
chapter's finding that 3D JPS is slower.
"""

from __future__ import annotations

import math
import threading
import time
from functools import lru_cache
from typing import Any

import numpy as np

from .._kernels import _voxel_search
from .._scratch import SingleThread, exclusive
from .._validate import number
from ..errors import InvalidQueryError, brief
from ..results import PathResult, SearchStats, Status
from .anyangle import theta_star
from .grid import MOVE_COSTS, MOVES, VoxelGrid
from .methods import METHODS


class VoxelSearch(SingleThread):
    """The searches of one :class:`~wayfinding.voxel.grid.VoxelGrid` with their own scratch,
    reused across queries: one object per thread (a call while another thread's is under
    way raises :class:`~wayfinding.errors.ConcurrentUseError`).  The scratch is allocated at
    the first query (a second side's at the first bidirectional one); ``nbytes`` is its size.

    >>> from wayfinding.voxel.grid import VoxelGrid
    >>> search = VoxelSearch(VoxelGrid(np.zeros((3, 4, 5), bool)))
    >>> r = search.find_path((0, 0, 0), (4, 3, 2))
    >>> r.path.tolist(), round(r.cost, 4)
    ([[0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 2], [4, 3, 2]], 5.8783)
    """

    def __init__(self, grid: VoxelGrid):
        if not isinstance(grid, VoxelGrid):
            raise InvalidQueryError(f"VoxelSearch needs a VoxelGrid, got "
                                    f"{type(grid).__name__}")
        self.grid = grid
        self._moves: Any = None
        self._sides: list[Any] = []

    def __repr__(self) -> str:
        return f"VoxelSearch({self.grid!r})"

    @property
    def nbytes(self) -> int:
        """Bytes of scratch allocated (address space; the pages committed are fewer)."""
        return sum(s.nbytes for s in self._sides)

    def _scratch(self, n: int) -> tuple[Any, list[Any]]:
        if self._moves is None:
            g = self.grid
            self._moves = _voxel_search.VoxelMoves(g.padded, *_tables(g.size[0], g.size[1],
                                                                       g.connectivity))
        while len(self._sides) < n:
            self._sides.append(_voxel_search.VoxelScratch(self._moves.size))
        return self._moves, self._sides[:n]

    @exclusive
    def find_path(self, start: Any, goal: Any, *, method: str = "astar") -> PathResult:
        """A path from voxel ``start`` to ``goal`` (``(x, y, z)`` each) by ``method`` (a name
        of :data:`~wayfinding.voxel.methods.METHODS`).

        The result's ``path`` is an ``int64[n, 3]`` array of voxels from start to goal (each
        step a move of the grid; the any-angle methods give the voxels where the path turns),
        ``cost`` its length in voxel units; ``start == goal`` gives the one-voxel path of cost
        0.  An unreachable goal gives ``found`` false, status ``FAILED``, cost inf, an empty
        ``(0, 3)`` path.  Raises :class:`~wayfinding.errors.InvalidQueryError` for an end
        outside the grid or blocked, or an unknown method.
        """
        _check_method(method)
        grid = self.grid
        s = grid.cell(start, name="start", free=True)
        g = grid.cell(goal, name="goal", free=True)
        if not METHODS[method].exact:
            return theta_star(grid, s, g, lazy=method == "lazy_theta")
        t0 = time.perf_counter()
        if method == "bidirectional":
            moves, (fw, bw) = self._scratch(2)
            out = _voxel_search.bidirectional(fw, bw, moves, _flat(grid, s), _flat(grid, g))
        else:
            moves, (ws,) = self._scratch(1)
            out = _voxel_search.astar(ws, moves, _flat(grid, s), _flat(grid, g),
                                      method == "astar")
        found, cost, flat, expanded, generated, updated, max_open = out
        stats = SearchStats(expanded=expanded, generated=generated, updated=updated,
                            max_open=max_open, elapsed=time.perf_counter() - t0)
        if not found:
            return PathResult(np.empty((0, 3), np.int64), math.inf, False, stats, method,
                              status=Status.FAILED)
        return PathResult(_cells(grid, flat), float(cost), True, stats, method,
                          status=Status.FOUND)

    def find_paths(self, starts: Any, goals: Any, *, method: str = "astar"
                   ) -> list[PathResult]:
        """:meth:`find_path` for each row of the ``(m, 3)`` arrays ``starts`` and ``goals``
        (all checked before the first search), results in input order."""
        _check_method(method)
        a = self.grid.cells(starts, name="starts", free=True)
        b = self.grid.cells(goals, name="goals", free=True)
        if len(a) != len(b):
            raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
        return [self.find_path(s, g, method=method) for s, g in zip(a, b, strict=True)]

    @exclusive
    def distance_map(self, source: Any, *, limit: float = math.inf) -> np.ndarray:
        """``float64[nz, ny, nx]``: the length of the shortest path from voxel ``source`` to
        every voxel (Dijkstra), inf where blocked, unreachable or beyond ``limit`` (as the
        grids' :meth:`~wayfinding.grid.GridSearch.distance_map`)."""
        grid = self.grid
        s = grid.cell(source, name="source", free=True)
        bound = number("limit", limit, min=0.0, infinite=True)
        moves, (ws,) = self._scratch(1)
        out = np.full(grid.shape, math.inf)
        _voxel_search.flood(ws, moves, _flat(grid, s), bound, out)
        return out


def _check_method(method: Any) -> None:
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidQueryError(f"unknown voxel search method {brief(method)}; known: "
                                f"{', '.join(METHODS)}")


def _flat(grid: VoxelGrid, cell: tuple[int, int, int]) -> int:
    nx, ny, _ = grid.size
    return ((cell[2] + 1) * (ny + 2) + cell[1] + 1) * (nx + 2) + cell[0] + 1


def _cells(grid: VoxelGrid, flat: np.ndarray) -> np.ndarray:
    nx, ny, _ = grid.size
    sy, sz = nx + 2, (nx + 2) * (ny + 2)
    return np.stack([flat % sy - 1, (flat // sy) % (ny + 2) - 1, flat // sz - 1], axis=1)


@lru_cache(maxsize=32)
def _tables(nx: int, ny: int, connectivity: int) -> tuple[np.ndarray, ...]:
    """The kernel's move tables for a padded grid of ``nx x ny`` voxels per layer: each
    move's flat offset, cost, mask of the neighbours its cube holds, step ``(dx, dy, dz)``,
    and the parent-pruning table (``prune[a, k]``: the move from the parent to the neighbour
    k of a voxel reached by move a, -2 when that neighbour is the parent, -1 when it is not a
    neighbour of the parent)."""
    n = connectivity
    moves = MOVES[:n]
    index = {tuple(int(v) for v in d): k for k, d in enumerate(MOVES)}
    need = np.zeros(n, np.uint32)
    for k, d in enumerate(moves):
        for corner in np.ndindex(2, 2, 2):
            c = tuple(int(v) for v in np.array(corner) * d)
            if c != (0, 0, 0):
                need[k] |= np.uint32(1 << index[c])
    prune = np.full((n, n), -1, np.int8)
    for a, da in enumerate(moves):
        for k, dk in enumerate(moves):
            r = tuple(int(v) for v in da + dk)
            if r == (0, 0, 0):
                prune[a, k] = -2
            elif r in index and index[r] < n:
                prune[a, k] = index[r]
    offsets = moves @ np.array([1, nx + 2, (nx + 2) * (ny + 2)], np.int64)
    costs = MOVE_COSTS[:n].copy()
    deltas = moves.astype(np.int32)
    out = (offsets, costs, need, deltas, prune)
    for table in out:
        table.flags.writeable = False
    return out


_local = threading.local()


def _searcher(grid: VoxelGrid) -> VoxelSearch:
    """This thread's search on ``grid`` (kept for the last grid searched on this thread)."""
    cached = getattr(_local, "search", None)
    if cached is not None and cached.grid is grid:
        return cached
    if not isinstance(grid, VoxelGrid):
        raise InvalidQueryError(f"expected a VoxelGrid, got {type(grid).__name__}")
    search = VoxelSearch(grid)
    _local.search = search
    return search


def find_voxel_path(grid: VoxelGrid, start: Any, goal: Any, *, method: str = "astar"
                    ) -> PathResult:
    """:meth:`VoxelSearch.find_path` on this thread's search of ``grid`` (its scratch is
    kept for the next query on the same grid).

    >>> from wayfinding.voxel.grid import VoxelGrid
    >>> grid = VoxelGrid(np.zeros((1, 1, 4), bool))
    >>> find_voxel_path(grid, (0, 0, 0), (3, 0, 0), method="dijkstra").cost
    3.0
    """
    return _searcher(grid).find_path(start, goal, method=method)


def find_voxel_paths(grid: VoxelGrid, starts: Any, goals: Any, *, method: str = "astar"
                     ) -> list[PathResult]:
    """:meth:`VoxelSearch.find_paths` on this thread's search of ``grid``."""
    return _searcher(grid).find_paths(starts, goals, method=method)


def voxel_distance_map(grid: VoxelGrid, source: Any, *, limit: float = math.inf
                       ) -> np.ndarray:
    """:meth:`VoxelSearch.distance_map` on this thread's search of ``grid``."""
    return _searcher(grid).distance_map(source, limit=limit)
