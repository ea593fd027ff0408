"""Subgoal graphs (Uras & Koenig): simple (SSG), two-level (TSG) and N-level.

Subgoals are the free cells at convex obstacle corners: a free cell with a blocked diagonal
neighbour whose two shared cardinal neighbours are free.  Two cells are *h-reachable* when
their octile distance is their true distance, and *direct-h-reachable* when moreover the
parallelogram of their octile paths holds no obstacle and no other subgoal (then every
order of the diagonal and straight steps is a legal shortest path).

* The SSG joins every pair of direct-h-reachable subgoals by an edge of their octile
  length.
* ``levels=2`` contracts it into a TSG: a subgoal becomes *local* when every pair of its
  neighbours keeps its distance through the remaining *global* subgoals, possibly through a
  new edge between h-reachable neighbours.  Queries search the global subgoals plus the
  local ones next to the start and goal.
* ``levels=N`` repeats the partition on the global subgoals (N-level graph); queries add the
  subgoals reachable upward (to higher levels) from the start and goal.

A query first tries the straight octile path (all diagonal steps, then all straight ones,
or the reverse); otherwise it connects start and goal to their direct-h-reachable
subgoals, runs A* with the octile heuristic over the graph and follows each edge on the
grid.  Costs are optimal; uniform grids with the ``no_corner_cutting`` rule only.
"""

from __future__ import annotations

import threading
import time
from typing import Any, ClassVar

import numpy as np

from .. import _saved
from .._kernels import _subgoal_build, _subgoal_query
from .._validate import count
from ..errors import IndexFormatError, InvalidQueryError
from ..results import PathResult, SearchStats, empty_path
from .grid import Grid
from .index import GridIndex, require_grid
from .rules import SQRT2


class SubgoalGraph(GridIndex):
    """A subgoal graph of a uniform, ``no_corner_cutting`` grid.

    Build with :meth:`build`.  ``arrays``:

    * ``subgoals`` ``(n, 2)`` int32 ``(x, y)`` cells, row-major; node ``i`` is ``subgoals[i]``;
    * ``level`` ``(n,)`` int8: 1 for every node of an SSG; after contraction 1 = local,
      higher = more global; ``top_level`` ``(1,)`` int32 is the level of the core graph
      (it may hold no node when every subgoal could be made local);
    * ``indptr`` ``(n + 1,)`` int64, ``targets`` int32, ``costs`` float64: the undirected
      edges in CSR form (each stored both ways), weighing the octile distance; each row
      lists its top-level targets first, up to ``core_end[i]`` ``(n,)`` int64;
    * ``subgoal_id`` ``(Hp * Wp,)`` int32: node id of each padded cell (-1 if none);
    * ``clearance`` ``(Hp * Wp, 4)`` uint16: steps from each padded cell in the directions
      N, E, S, W before an obstacle or a subgoal (saturated at 65535).

    Queries may run on several threads at once: each thread gets its own scratch.

    >>> g = Grid.from_ascii('''
    ... ......
    ... ..##..
    ... ..##..
    ... ......''')
    >>> sg = SubgoalGraph.build(g)
    >>> sg.subgoals.tolist()
    [[1, 0], [4, 0], [1, 3], [4, 3]]
    >>> r = sg.find_path((0, 1), (5, 2))
    >>> r.found, round(r.cost, 4), r.algorithm
    (True, 6.8284, 'subgoal')
    """

    kind: ClassVar[str] = "subgoal"
    version: ClassVar[int] = 1

    def __init__(self, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        super().__init__(grid, arrays, options, build_time)
        self._local = threading.local()
        self._top = int(arrays["top_level"][0])
        self._xy = np.ascontiguousarray(arrays["subgoals"], dtype=np.int32)
        wp = grid.width + 2
        self._cells = np.ascontiguousarray(
            (self._xy[:, 1] + 1) * wp + self._xy[:, 0] + 1, dtype=np.int32)
        self._components = grid.components
        #: Counts from the build (subgoals, edges, per-pass local nodes); empty after load.
        self.build_info: dict[str, Any] = {}
        n = int(options.get("levels", 1))
        self.algorithm = "subgoal" if n == 1 else f"subgoal{n}"

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(cls, grid: Grid, *, levels: int = 1) -> SubgoalGraph:
        """Build the subgoal graph of ``grid``.

        ``levels``: 1 (default) the simple subgoal graph; 2 the two-level graph (slower to
        build, faster queries); N >= 3 repeats the partition N - 1 times (stops early when a
        pass makes no subgoal local).  Raises :class:`InvalidGridError` for grids that are not
        uniform with the ``no_corner_cutting`` rule.
        """
        require_grid(grid, "a subgoal graph")
        levels = count("levels", levels, max=100)
        t0 = time.perf_counter()
        wp = grid.width + 2
        sid, cells, clearance = _cell_arrays(grid)
        level, indptr, core_end, targets, costs, info = _subgoal_build.build_graph(
            grid.moves, clearance, sid, wp, cells, int(levels))
        arrays = {"subgoals": _xy(cells, wp), "level": level, "indptr": indptr,
                  "core_end": core_end,
                  "targets": targets, "costs": costs, "subgoal_id": sid,
                  "clearance": clearance,
                  "top_level": np.array([info["top_level"]], dtype=np.int32)}
        out = cls(grid, arrays, {"levels": int(levels)}, time.perf_counter() - t0)
        out.build_info = info
        return out

    @classmethod
    def _members(cls, grid: Grid, options: dict[str, Any]) -> dict[str, int]:
        _saved.integer(_saved.option(options, "levels"), "option levels", 1, 100)
        npad = (grid.height + 2) * (grid.width + 2)
        n = len(_cell_arrays(grid)[1])
        # Each edge is stored both ways; no graph has more than n (n - 1) entries, and none
        # built from a map comes near 256 per padded cell.
        edges = min(n * max(n - 1, 0), 256 * npad)
        return {"subgoals": 8 * n, "level": n, "indptr": 8 * (n + 1), "core_end": 8 * n,
                "targets": 4 * edges, "costs": 8 * edges, "subgoal_id": 4 * npad,
                "clearance": 8 * npad, "top_level": 4}

    @classmethod
    def _restore(cls, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> SubgoalGraph:
        require_grid(grid, "a subgoal graph")
        levels = options["levels"]
        npad = (grid.height + 2) * (grid.width + 2)
        wp = grid.width + 2
        # The per-cell arrays follow from the grid: recompute and compare them.
        sid, cells, clearance = _cell_arrays(grid)
        n = len(cells)
        a = {name: _saved.array(arrays, name, dtype, shape) for name, dtype, shape in (
            ("subgoals", np.int32, (n, 2)), ("level", np.int8, (n,)),
            ("indptr", np.int64, (n + 1,)), ("core_end", np.int64, (n,)),
            ("targets", np.int32, (None,)), ("costs", np.float64, (None,)),
            ("subgoal_id", np.int32, (npad,)), ("clearance", np.uint16, (npad, 4)),
            ("top_level", np.int32, (1,)))}
        _saved.equal(a["subgoal_id"], sid, "subgoal_id", "the map's subgoals")
        _saved.equal(a["clearance"], clearance, "clearance", "the map's clearances")
        _saved.equal(a["subgoals"], _xy(cells, wp), "subgoals", "the map's subgoals")
        top = int(_saved.values_in(a["top_level"], "top_level", 1, levels)[0])
        _saved.values_in(a["level"], "level", 1, top)
        indptr, targets, costs = a["indptr"], a["targets"], a["costs"]
        e = len(targets)
        if len(costs) != e:
            raise IndexFormatError(f"arrays 'targets' and 'costs' differ in length ({e} and "
                                   f"{len(costs)})")
        _saved.pointers(indptr, "indptr", e)
        _saved.values_in(targets, "targets", 0, n - 1)
        below = a["core_end"] < indptr[:-1]
        if below.any() or np.any(a["core_end"] > indptr[1:]):
            i = int(np.argmax(below | (a["core_end"] > indptr[1:])))
            raise IndexFormatError(f"array 'core_end' holds core_end[{i}] = "
                                   f"{int(a['core_end'][i])}, outside its row "
                                   f"{int(indptr[i])}..{int(indptr[i + 1])}")
        # Every edge weighs the octile distance between its ends, computed as the kernels
        # do (straight steps + diagonal steps x sqrt 2).
        src = np.repeat(np.arange(n), np.diff(indptr))
        d = np.abs(a["subgoals"][src].astype(np.int64) - a["subgoals"][targets])
        octile = np.abs(d[:, 0] - d[:, 1]) + np.minimum(d[:, 0], d[:, 1]) * SQRT2
        wrong = costs != octile
        if wrong.any():
            i = int(np.argmax(wrong))
            raise IndexFormatError(f"array 'costs' holds costs[{i}] = {costs[i]!r}, not the "
                                   f"octile distance {octile[i]!r} between its ends")
        return cls(grid, a, options, build_time)

    # ------------------------------------------------------------------ properties
    @property
    def levels(self) -> int:
        """The ``levels`` the graph was built with."""
        return int(self.options["levels"])

    @property
    def subgoals(self) -> np.ndarray:
        """``(n, 2)`` int32 ``(x, y)`` cells of the subgoals (node order)."""
        return self.arrays["subgoals"]

    @property
    def subgoal_levels(self) -> np.ndarray:
        """``(n,)`` int8 level of each subgoal (the highest is the core graph)."""
        return self.arrays["level"]

    @property
    def top_level(self) -> int:
        """Level of the core graph's subgoals (1 for an SSG)."""
        return self._top

    @property
    def num_subgoals(self) -> int:
        return len(self.arrays["subgoals"])

    @property
    def num_edges(self) -> int:
        """Undirected edges."""
        return len(self.arrays["targets"]) // 2

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """``((m, 2) int64 node pairs with u < v, (m,) float64 costs)``: every edge once."""
        indptr, targets = self.arrays["indptr"], self.arrays["targets"]
        src = np.repeat(np.arange(self.num_subgoals, dtype=np.int64), np.diff(indptr))
        keep = src < targets
        pairs = np.stack([src[keep], targets[keep].astype(np.int64)], axis=1)
        return pairs, self.arrays["costs"][keep]

    def direct_h_reachable(self, cell: Any) -> np.ndarray:
        """``(k, 2)`` int64 cells of the subgoals direct-h-reachable from a passable cell."""
        c = self.grid.cell(cell, passable=True)
        ids, _ = _subgoal_build.reachable_from(self.grid.moves, self.arrays["clearance"],
                                         self.arrays["subgoal_id"], self.grid.width + 2,
                                         self.grid.index(c))
        return self.arrays["subgoals"][ids].astype(np.int64).reshape(-1, 2)

    # ------------------------------------------------------------------ queries
    def _query(self) -> _subgoal_query.SubgoalQuery:
        q = getattr(self._local, "query", None)
        if q is None:
            a = self.arrays
            q = _subgoal_query.SubgoalQuery(
                self.grid.moves, a["clearance"], a["subgoal_id"], self.grid.width + 2,
                self._cells, self._xy, a["level"], a["indptr"], a["core_end"], a["targets"],
                a["costs"], self._top, self._components)
            self._local.query = q
        return q

    def find_path(self, start: Any, goal: Any, *, record: bool = False) -> PathResult:
        """Optimal path between two ``(x, y)`` cells.

        ``stats.expanded`` / ``generated`` count graph nodes (start and goal included); both
        are 0 when the straight octile path answered.  ``record=True`` also returns the
        cells of the expanded graph nodes (in order) and of those left open.  Blocked or
        out-of-grid endpoints raise :class:`InvalidQueryError`; endpoints on different
        islands give ``found=False`` without searching.
        """
        t0 = time.perf_counter()
        if not (type(start) is tuple and type(goal) is tuple and len(start) == 2
                and len(goal) == 2 and type(start[0]) is int and type(start[1]) is int
                and type(goal[0]) is int and type(goal[1]) is int):
            start = self.grid.cell(start, name="start")
            goal = self.grid.cell(goal, name="goal")
        q = self._query()
        status, cost, exp, gen, upd, mo, path = q.query(start[0], start[1], goal[0], goal[1],
                                                        record)
        if status < 0:
            self.grid.cell(start, name="start", passable=True)
            self.grid.cell(goal, name="goal", passable=True)
            name, cell = ("start", start) if status == -1 else ("goal", goal)
            raise InvalidQueryError(f"{name} {cell} is not a passable cell of the grid")
        stats = SearchStats(expanded=exp, generated=gen, updated=upd, max_open=mo,
                            elapsed=time.perf_counter() - t0)
        if record:
            grid = self.grid
            return PathResult(path, cost, status > 0, stats, self.algorithm,
                              grid.cells_of(q.recorded()), grid.cells_of(q.open_cells()))
        return PathResult(path, cost, status > 0, stats, self.algorithm)

    def find_waypoints(self, start: Any, goal: Any) -> np.ndarray:
        """``(k, 2)`` int64 cells of the high-level path: start, the subgoals passed, goal
        (empty if unreachable; just the start when start == goal)."""
        r = self.find_path(start, goal)
        if not r.found:
            return empty_path()
        return self._query().waypoints()


def _cell_arrays(grid: Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Subgoal id per padded cell, padded cells of the subgoals, and cardinal clearances."""
    wp = grid.width + 2
    free = np.zeros((grid.height + 2, wp), dtype=np.uint8)
    free[1:-1, 1:-1] = grid.passable
    sid, cells = _subgoal_build.find_subgoals(free.ravel(), wp)
    return sid, cells, _subgoal_build.clearances(grid.moves, sid, wp)


def _xy(cells: np.ndarray, wp: int) -> np.ndarray:
    return np.stack([cells % wp - 1, cells // wp - 1], axis=1).astype(np.int32).reshape(-1, 2)
