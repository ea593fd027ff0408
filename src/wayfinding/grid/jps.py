"""Jump point search on uniform-cost grids: online JPS and the preprocessed JPS+ index.

Both need a uniform-cost grid (steps cost 1 and sqrt 2) with the ``no_corner_cutting``
diagonal rule; other grids raise :class:`InvalidGridError`.  Both are A* over jump points with
the octile heuristic and return optimal costs; the result's path is the full cell path (every
consecutive pair one legal step), expanded from the jump points.

A cell ``n`` entered by a straight step in direction ``d`` is a jump point when, for a side
``s`` perpendicular to ``d``, ``n + s`` is free and ``n - d + s`` is blocked (a wall beside the
run ends there).  At a jump point the search continues in ``d``, in each such side ``s`` and in
the diagonal between ``d`` and ``s``; after a diagonal step it continues in that diagonal and
its two straight components; from the start in all 8 directions.  The goal is always a jump
point.  Ties in f are broken toward larger g, so results are deterministic.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .. import _saved
from .._deprecated import warn
from .._index import check_world
from .._kernels import _jps, _jps_plus
from .._kernels._codes import BAD_START, FAILED, FOUND
from .._kernels._workspace import Workspace
from .._scratch import PerThread, thread_workspace
from .._validate import flag, positive_float
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError
from ..results import PathResult, SearchStats, empty_path
from .grid import Grid
from .index import GridIndex, require_grid
from .one_call import one_call

#: Largest grid side JPS+ accepts (its distances are stored as int16).
MAX_SIDE = 32000

#: Most buckets a bucketed JPS+ query may allocate (8 bytes each).
MAX_BUCKETS = 1 << 24

_clock = time.perf_counter

#: Algorithm names of JPS+ results by (goal bounds given, bucketed).
_PLUS_NAMES = {(False, False): "jps_plus", (False, True): "jps_plus_buckets",
               (True, False): "jps_plus_gb", (True, True): "jps_plus_gb_buckets"}


#: Online jump point search methods: name -> successor rule of the compiled search (see
#: :func:`_find_path_jps`).
ONLINE_RULES = {"jps": _jps.JPS, "jps2": _jps.JPS2}

def jump_grid(grid: Grid) -> _jps.JumpGrid:
    """The bit-packed copy of ``grid`` the online jump point searches read (built on first
    use, O(map), and cached on the grid); :class:`InvalidGridError` unless ``grid`` is
    uniform-cost with the ``no_corner_cutting`` rule."""
    require_grid(grid, "JPS")
    return grid._jump_grid


def find_path_jps(grid: Grid, start: Any, goal: Any, *, workspace: Workspace | None = None,
                  record: bool = False) -> PathResult:
    """Deprecated name of ``GridSearch(grid).find_path(start, goal, method="jps")``."""
    warn("find_path_jps()", 'GridSearch(grid).find_path(start, goal, method="jps")')
    return _find_path_jps(grid, start, goal, workspace=workspace, record=record)


def _find_path_jps(grid: Grid, start: Any, goal: Any, *, workspace: Workspace | None = None,
                   record: bool = False, method: str = "jps") -> PathResult:
    """Online jump point search (no preprocessing) from ``start`` to ``goal`` (``(x, y)``).

    ``method``: ``"jps"`` or ``"jps2"``, both optimal.  A diagonal jump scans a straight
    direction from one of its cells only where that scan ends at a jump point (or on the
    goal's row or column), and the jump points found are successors of the node expanded.
    ``"jps"`` stops the diagonal at the first cell with such a successor, queued to continue
    the diagonal; ``"jps2"`` runs it on to the wall, so turning cells are never queued
    (fewer expansions, longer scans: faster on mazes and rooms, slower on open maps).
    Jumps scan the grid's bit copy (:func:`jump_grid`, made on the grid's first query).
    ``workspace``: search scratch for at least ``(H + 2) * (W + 2)`` nodes (default: one per
    thread, reused).  ``record=True`` also returns the expanded jump points in order
    and the open list when the search stopped.  Blocked or out-of-grid endpoints raise
    :class:`InvalidQueryError`; a goal on another island gives ``found=False`` without
    searching.  Algorithm name ``method``.

    >>> g = Grid.from_ascii('''
    ... .....
    ... .....''')
    >>> r = _find_path_jps(g, (0, 1), (4, 0))
    >>> r.found, round(r.cost, 6), len(r.path)
    (True, 4.414214, 5)
    """
    t0 = _clock()
    if record is not False:
        record = flag("record", record)
    try:
        jg = grid.__dict__["_jump_grid"]
    except (AttributeError, KeyError):
        jg = None
    if jg is None:   # outside the handler: a refusal does not carry the KeyError along
        jg = jump_grid(grid)
    if workspace is None:
        ws = thread_workspace(jg.size)
    elif type(workspace) is Workspace and workspace.size >= jg.size:
        ws = workspace
    elif not isinstance(workspace, Workspace):
        raise InvalidQueryError(f"workspace must be a Workspace, got {type(workspace).__name__}")
    elif workspace.size < jg.size:
        raise InvalidQueryError(f"workspace holds {workspace.size} nodes; this grid needs "
                                f"{jg.size} ((H + 2) * (W + 2))")
    else:
        ws = workspace
    return one_call(grid, jg.search, ws, start, goal, (record, ONLINE_RULES[method]), t0,
                    method, record=record)


def primary_jump_points(grid: Grid) -> np.ndarray:
    """``(H, W, 4)`` bool: ``[y, x, d]`` is True when cell (x, y) is a jump point for travel
    in cardinal direction d (N, E, S, W), under the ``no_corner_cutting`` rule."""
    require_grid(grid, "JPS")
    flags = np.zeros((grid.height + 2) * (grid.width + 2), dtype=np.uint8)
    _jps_plus.primary_jump_points(grid.moves, grid.width + 2, flags)
    inner = flags.reshape(grid.height + 2, grid.width + 2)[1:-1, 1:-1]
    return ((inner[:, :, None] >> np.arange(4, dtype=np.uint8)) & 1).astype(bool)


class JPSPlus(GridIndex):
    """JPS+: jump point search with the jumps precomputed (Rabin and Silva).

    ``arrays["dist"]`` is ``(Np, 8)`` int16 over the padded layout (``Np = (H + 2) * (W + 2)``,
    cell (x, y) at row ``(y + 1) * (W + 2) + x + 1``; directions N, E, S, W, NE, SE, SW, NW):
    ``> 0`` is the number of steps to the next jump point in that direction, ``<= 0`` minus
    the number of free steps before a wall: 16 bytes per padded cell (``nbytes``).  Grid
    sides up to :data:`MAX_SIDE`.

    Queries run in per-thread scratch (:meth:`scratch`, made on a thread's first query: a
    32-byte record per padded cell holding the search state next to a copy of the cell's
    move mask and distances, so each touched node costs one cache line), so one index serves
    many threads; the compiled search releases the GIL.  Queries do no O(map) work.

    >>> g = Grid.from_ascii('''
    ... .....
    ... .....''')
    >>> jp = JPSPlus.build(g)
    >>> r = jp.find_path((0, 1), (4, 0))
    >>> r.found, round(r.cost, 6), r.path.tolist()
    (True, 4.414214, [[0, 1], [1, 0], [2, 0], [3, 0], [4, 0]])
    """

    kind = "jps_plus"
    version = 1

    def __init__(self, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        super().__init__(grid, arrays, options, build_time)
        self._n = (grid.height + 2) * (grid.width + 2)
        self._local: PerThread[_jps_plus.PlusScratch] = PerThread()
        # Narrowest bucket width whose ring stays within MAX_BUCKETS.
        self._min_width = 2.0 * math.sqrt(2.0) * (max(grid.shape) + 2) / (MAX_BUCKETS - 4)

    @classmethod
    def build(cls, grid: Grid) -> JPSPlus:
        """Precompute the jump and wall distances of every cell (compiled, O(map))."""
        require_grid(grid, "JPS+")
        if max(grid.shape) > MAX_SIDE:
            raise InvalidGridError(
                f"JPS+ stores distances as int16 and accepts grid sides up to {MAX_SIDE}; "
                f"this grid is {grid.width}x{grid.height}")
        t0 = time.perf_counter()
        dist = np.zeros(((grid.height + 2) * (grid.width + 2), 8), dtype=np.int16)
        _jps_plus.jump_distances(grid.moves, grid.width + 2, dist)
        return cls(grid, {"dist": dist}, {}, time.perf_counter() - t0)

    @classmethod
    def _members(cls, grid: Grid, options: dict[str, Any]) -> dict[str, int]:
        if options:
            raise IndexFormatError(f"a jps_plus index has no options, got {options!r}")
        return {"dist": 16 * (grid.height + 2) * (grid.width + 2)}

    @classmethod
    def _restore(cls, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> JPSPlus:
        require_grid(grid, "JPS+")
        n = (grid.height + 2) * (grid.width + 2)
        dist = _saved.array(arrays, "dist", np.int16, (n, 8))
        # The table is a function of the map, rebuilt in a few milliseconds: a file whose
        # distances differ (a jump out of the map, through a wall...) is refused.
        _saved.equal(dist, cls.build(grid).arrays["dist"], "dist",
                      "the jump distances of the map")
        return cls(grid, {"dist": dist}, options, build_time)

    @property
    def distances(self) -> np.ndarray:
        """``(H, W, 8)`` int16 view of the table, indexed ``[y, x, d]`` (for debug views)."""
        h, w = self.grid.shape
        return self.arrays["dist"].reshape(h + 2, w + 2, 8)[1:-1, 1:-1]

    def scratch(self) -> _jps_plus.PlusScratch:
        """This thread's query state (created on first use; ``nbytes`` tells its size)."""
        return self._local.mine() or self._local.keep(_jps_plus.PlusScratch(
            self.arrays["dist"], self.grid.moves, self.grid.components, self.grid.width + 2))

    def find_path(self, start: Any, goal: Any, *, buckets: bool = False,
                  bucket_width: float = 0.1, bounds: Any = None,
                  record: bool = False) -> PathResult:
        """Find a path from ``start`` to ``goal`` (``(x, y)`` cells).

        ``buckets=True`` orders the open list by buckets of width ``bucket_width`` (cost
        units, > 0) in f, last in first out inside a bucket, and re-opens closed nodes when a
        cheaper g is found.  It may expand a node whose f exceeds the least f by up to one
        bucket, so the returned cost is at most **the optimal cost + bucket_width** (a
        bounded-suboptimal search; the heap, the default, is exact).  The ring of buckets is
        allocated on a thread's first bucketed query and reused: the next power of two above
        ``2 sqrt 2 (max(H, W) + 2) / bucket_width`` buckets, 8 bytes each (at most
        :data:`MAX_BUCKETS`, which bounds how narrow the buckets may be).

        ``bounds``: goal-bounding data, an object whose ``.boxes`` is a C-contiguous
        ``(Np, 8, 4)`` uint16 array (padded flat index, direction, then ``(xmin, xmax, ymin,
        ymax)`` in unpadded cells; an empty box has ``xmin > xmax``) holding every goal for
        which the step in that direction begins an optimal path.  A direction is explored at
        a node only if the goal lies in its box.

        ``record=True`` also returns the expanded jump points in order and the final open
        list.  Blocked or out-of-grid endpoints raise :class:`InvalidQueryError`; a goal on
        another island gives ``found=False`` without searching.  Algorithm name
        ``"jps_plus"``, with ``"_gb"`` when bounded and ``"_buckets"`` when bucketed.
        """
        t0 = _clock()
        # Plain (int, int) tuples go straight to the kernel, which checks bounds, blocked
        # cells and islands; anything else is normalised (and validated) first.
        if not (type(start) is tuple and len(start) == 2 and type(start[0]) is int
                and type(start[1]) is int):
            start = self.grid.cell(start, name="start", passable=True)
        if not (type(goal) is tuple and len(goal) == 2 and type(goal[0]) is int
                and type(goal[1]) is int):
            goal = self.grid.cell(goal, name="goal", passable=True)
        if record is not False:
            record = flag("record", record)
        boxes = None if bounds is None else self._check_boxes(bounds)
        width = 0.0
        if buckets is not False and flag("buckets", buckets):
            width = bucket_width if type(bucket_width) is float \
                and self._min_width <= bucket_width < math.inf \
                else self._check_bucket_width(bucket_width)
        scratch = self._local.mine() or self.scratch()
        gx, gy = goal
        try:
            status, cost, exp, gen, upd, reo, mo = scratch.search(start[0], start[1], gx, gy,
                                                                  record, width, boxes)
        except OverflowError:  # a coordinate beyond any C integer: raises
            self.grid.cell(start, name="start")
            self.grid.cell(goal, name="goal")
            raise
        name = _PLUS_NAMES[boxes is not None, width > 0.0]
        if status == FOUND:
            path = scratch.path(gx, gy)
            cost = scratch.path_cost
        elif status == FAILED:
            path = empty_path()
        else:  # raises: out of the grid or blocked
            self.grid.cell(start if status == BAD_START else goal,
                           name="start" if status == BAD_START else "goal", passable=True)
            raise AssertionError("unreachable")
        stats = SearchStats(exp, gen, reo, upd, mo, _clock() - t0)
        if record:
            grid = self.grid
            return PathResult(path, cost, status == FOUND, stats, name,
                              grid.cells_of(scratch.recorded()),
                              grid.cells_of(scratch.open_nodes()))
        return PathResult(path, cost, status == FOUND, stats, name)

    def path_costs(self, starts: Any, goals: Any, *, buckets: bool = False,
                   bucket_width: float = 0.1, bounds: Any = None) -> np.ndarray:
        """Costs of many queries ``starts[i] -> goals[i]`` in one compiled loop.

        ``starts``, ``goals``: ``(n, 2)`` integer ``(x, y)`` cells.  Returns ``(n,)`` float64,
        each the cost :meth:`find_path` would return with the same options (``inf`` when
        unreachable), without building paths or result objects.  Blocked or out-of-grid
        cells raise :class:`InvalidQueryError` naming the first bad row.
        """
        a = self._cell_array(starts, "starts")
        b = self._cell_array(goals, "goals")
        if len(a) != len(b):
            raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
        boxes = None if bounds is None else self._check_boxes(bounds)
        width = self._check_bucket_width(bucket_width) if flag("buckets", buckets) else 0.0
        out = np.empty(len(a))
        if len(a):
            queries = np.ascontiguousarray(np.concatenate([a, b], axis=1), dtype=np.int32)
            bad = self.scratch().costs(queries, out, width, boxes)
            if bad >= 0:
                self.grid.cell(tuple(int(v) for v in a[bad]), name=f"starts[{bad}]",
                               passable=True)
                self.grid.cell(tuple(int(v) for v in b[bad]), name=f"goals[{bad}]",
                               passable=True)
                raise AssertionError("unreachable")
        return out

    def _cell_array(self, cells: Any, name: str) -> np.ndarray:
        arr = np.asarray(cells)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise InvalidQueryError(f"{name} must be an (n, 2) array of (x, y) cells, got "
                                    f"shape {arr.shape}")
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise InvalidQueryError(f"{name} must hold integers, got dtype {arr.dtype}")
        h, w = self.grid.shape
        outside = (arr[:, 0] < 0) | (arr[:, 0] >= w) | (arr[:, 1] < 0) | (arr[:, 1] >= h)
        if outside.any():
            k = int(np.argmax(outside))
            self.grid.cell(tuple(int(v) for v in arr[k]), name=f"{name}[{k}]")
        return arr.astype(np.int64, copy=False)

    def _check_boxes(self, bounds: Any) -> np.ndarray:
        check_world("the goal bounds", getattr(bounds, "grid", self.grid), self.grid)
        boxes = getattr(bounds, "boxes", None)
        if not isinstance(boxes, np.ndarray) or boxes.dtype != np.uint16 \
                or boxes.shape != (self._n, 8, 4) or not boxes.flags.c_contiguous:
            got = (f"{boxes.dtype} array of shape {boxes.shape}"
                   + ("" if boxes.flags.c_contiguous else ", not C-contiguous")) \
                if isinstance(boxes, np.ndarray) else type(boxes).__name__
            raise InvalidQueryError(
                f"bounds.boxes must be a C-contiguous uint16 array of shape ({self._n}, 8, 4) "
                f"(padded cells x directions x (xmin, xmax, ymin, ymax)); got {got}")
        return boxes

    def _check_bucket_width(self, bucket_width: Any) -> float:
        bucket_width = positive_float("bucket_width", bucket_width)
        if bucket_width < self._min_width:
            raise InvalidQueryError(
                f"bucket_width {bucket_width!r} is too small for a {self.grid.width}x"
                f"{self.grid.height} grid: the ring would exceed {MAX_BUCKETS} buckets "
                f"(use >= {self._min_width:.3g})")
        return float(bucket_width)
