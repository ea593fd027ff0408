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

:class:`SubgoalTable` adds to the two-level graph the grid distances between its top-level
subgoals (8 bytes a pair, or, where those do not fit, 4 as step counts, or 4 each pair
once; capped at 50 MiB by default), so a query needs no graph search: the least sum over
the top-level subgoals joined to the start and to the goal.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np

from .. import _saved
from .._kernels import _subgoal_build, _subgoal_query, _subgoal_table
from .._scratch import PerThread
from .._validate import count, flag
from ..errors import IndexFormatError, InvalidQueryError
from ..results import PathResult, SearchStats, Status, empty_path
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
        self._local: PerThread[_subgoal_query.SubgoalQuery] = PerThread()
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
        arrays, info = _graph_arrays(grid, int(levels))
        out = cls(grid, arrays, {"levels": int(levels)}, time.perf_counter() - t0)
        out.build_info = info
        return out

    @classmethod
    def _members(cls, grid: Grid, options: dict[str, Any]) -> dict[str, int]:
        _saved.integer(_saved.option(options, "levels"), "option levels", 1, 100)
        return _graph_members(grid)

    @classmethod
    def _restore(cls, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> SubgoalGraph:
        require_grid(grid, "a subgoal graph")
        return cls(grid, _check_graph(grid, arrays, options["levels"]), options, build_time)

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
        q = self._local.mine()
        if q is None:
            a = self.arrays
            q = self._local.keep(_subgoal_query.SubgoalQuery(
                self.grid.moves, a["clearance"], a["subgoal_id"], self.grid.width + 2,
                self._cells, self._xy, a["level"], a["indptr"], a["core_end"], a["targets"],
                a["costs"], self._top, self._components))
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
        if record is not False:
            record = flag("record", record)
        q = self._query()
        try:
            status, cost, exp, gen, upd, mo, path = q.query(start[0], start[1], goal[0],
                                                            goal[1], record)
        except OverflowError:  # a coordinate beyond any C integer: raises
            self.grid.cell(start, name="start")
            self.grid.cell(goal, name="goal")
            raise
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


_GRAPH_ARRAYS = ("subgoals", "level", "indptr", "core_end", "targets", "costs", "subgoal_id",
                 "clearance", "top_level")


def _graph_arrays(grid: Grid, levels: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays of the ``levels``-level subgoal graph of ``grid`` and the build's counts."""
    wp = grid.width + 2
    sid, cells, clearance = _cell_arrays(grid)
    level, indptr, core_end, targets, costs, info = _subgoal_build.build_graph(
        grid.moves, clearance, sid, wp, cells, levels)
    arrays = {"subgoals": _xy(cells, wp), "level": level, "indptr": indptr,
              "core_end": core_end, "targets": targets, "costs": costs, "subgoal_id": sid,
              "clearance": clearance,
              "top_level": np.array([info["top_level"]], dtype=np.int32)}
    return arrays, info


def _graph_members(grid: Grid) -> dict[str, int]:
    """Most bytes of each saved subgoal graph array for ``grid``."""
    npad = (grid.height + 2) * (grid.width + 2)
    n = len(_cell_arrays(grid)[1])
    # Each edge is stored both ways; no graph has more than n (n - 1) entries, and none
    # built from a map comes near 256 per padded cell.
    edges = min(n * max(n - 1, 0), 256 * npad)
    return {"subgoals": 8 * n, "level": n, "indptr": 8 * (n + 1), "core_end": 8 * n,
            "targets": 4 * edges, "costs": 8 * edges, "subgoal_id": 4 * npad,
            "clearance": 8 * npad, "top_level": 4}


def _check_graph(grid: Grid, arrays: dict[str, np.ndarray], levels: int
                 ) -> dict[str, np.ndarray]:
    """The saved subgoal graph arrays, checked against ``grid`` (raises
    :class:`IndexFormatError`)."""
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
        raise IndexFormatError(f"array 'costs' holds costs[{i}] = {costs[i]}, not the "
                               f"octile distance {octile[i]} between its ends")
    return a


#: Default cap on the bytes of a :class:`SubgoalTable`'s distance table (50 MiB).
MAX_TABLE_BYTES = 50 * 2**20


class SubgoalTable(GridIndex):
    """A two-level subgoal graph with a table of the grid distances between its top-level
    subgoals, for queries without a graph search.

    Build with :meth:`build`.  A query that is not answered by the straight octile path
    connects the start and the goal to their direct-h-reachable subgoals and, through the
    local ones among those, to their top-level neighbours; it then takes the least
    ``d(start, u) + table[u, v] + d(v, goal)`` over those top-level subgoals ``u`` and ``v``
    (and the routes through one subgoal direct-h-reachable from both endpoints, or an edge
    between two local ones); the route between ``u`` and ``v`` follows, at each top-level
    subgoal, the edge that keeps the table's distance.  Costs are optimal; uniform grids
    with the ``no_corner_cutting`` rule only.

    ``arrays``: those of the two-level :class:`SubgoalGraph` plus ``table`` ``(m, m)``
    float64, ``m`` the number of top-level subgoals in node order (inf between islands).
    Where its ``8 m²`` bytes exceed ``max_table_bytes``, packed step counts instead
    (uint32: each distance as its straight steps, low 16 bits, and diagonal steps, high
    16 bits; exact; all bits set between islands): ``(m, m)`` where ``4 m²`` bytes fit,
    else each pair once, ``(m (m + 1) / 2,)``, the lower triangle row by row (pair
    ``(i, k)``, ``k <= i``, at ``i (i + 1) / 2 + k``; a little slower to read).
    :attr:`table` gives the lengths.  Where none fits, or where a distance takes 65,535
    steps of one kind or more, the table is left empty (``(0, 0)``, :attr:`has_table`
    false) and queries run the two-level graph's A* instead.

    Queries may run on several threads at once: each thread gets its own scratch.

    >>> g = Grid.from_ascii('''
    ... ......
    ... ..##..
    ... ..##..
    ... ......''')
    >>> st = SubgoalTable.build(g)
    >>> r = st.find_path((0, 1), (5, 2))
    >>> r.found, round(r.cost, 4), r.algorithm
    (True, 6.8284, 'subgoal_table')
    """

    kind: ClassVar[str] = "subgoal_table"
    version: ClassVar[int] = 1
    algorithm: ClassVar[str] = "subgoal_table"

    def __init__(self, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        super().__init__(grid, arrays, options, build_time)
        self._local: PerThread[_subgoal_table.TableQuery | _GraphSearch] = PerThread()
        self.graph = SubgoalGraph(grid, {k: arrays[k] for k in _GRAPH_ARRAYS}, {"levels": 2},
                                  build_time)
        """The two-level :class:`SubgoalGraph` the table is built on (sharing its arrays)."""
        top = arrays["level"] == self.graph.top_level
        self._top_index = np.full(len(top), -1, dtype=np.int32)
        self._top_index[top] = np.arange(int(top.sum()), dtype=np.int32)

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(cls, grid: Grid, *, max_table_bytes: int = MAX_TABLE_BYTES) -> SubgoalTable:
        """Build the two-level subgoal graph of ``grid`` and its distance table.

        ``max_table_bytes``: the table (8 bytes per ordered pair of top-level subgoals,
        or, where that does not fit, 4 as step counts, or 4 per unordered pair) is built
        only when it fits; otherwise queries search the graph (:attr:`has_table` false).
        Raises :class:`InvalidGridError` for grids that are not uniform with the
        ``no_corner_cutting`` rule.
        """
        require_grid(grid, "a subgoal table")
        cap = count("max_table_bytes", max_table_bytes, min=0)
        t0 = time.perf_counter()
        arrays, _ = _graph_arrays(grid, 2)
        arrays["table"] = _top_table(arrays, cap)
        return cls(grid, arrays, {"max_table_bytes": int(cap)}, time.perf_counter() - t0)

    @classmethod
    def _members(cls, grid: Grid, options: dict[str, Any]) -> dict[str, int]:
        cap = _saved.integer(_saved.option(options, "max_table_bytes"),
                             "option max_table_bytes", 0)
        n = len(_cell_arrays(grid)[1])
        return {**_graph_members(grid), "table": min(cap, 8 * n * n)}

    @classmethod
    def _restore(cls, grid: Grid, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> SubgoalTable:
        require_grid(grid, "a subgoal table")
        a = _check_graph(grid, arrays, 2)
        top = np.flatnonzero(a["level"] == int(a["top_level"][0]))
        raw = arrays.get("table")
        m = len(top)
        packed = isinstance(raw, np.ndarray) and raw.dtype == np.uint32
        allowed: list[tuple[int, ...]]
        # (Its size is held to max_table_bytes like every array's to its limit.)
        if packed and getattr(raw, "ndim", 0) == 1:        # each pair once
            table = _saved.array(arrays, "table", np.uint32, (None,))
            allowed = [(m * (m + 1) // 2,)]
        else:
            table = _saved.array(arrays, "table", np.uint32 if packed else np.float64,
                                 (None, None))
            # (0, 0) where the table did not fit or a distance outgrew the packed entries
            allowed = [(m, m)] if packed else [(0, 0), (m, m)]
        if table.shape not in allowed:
            raise IndexFormatError(
                f"array 'table' ({table.dtype}) has shape {table.shape}, not "
                f"{' or '.join(map(str, allowed))} for {m} top-level subgoals")
        if table.size:
            _check_table(_lengths(table), a, top)
        return cls(grid, {**a, "table": table}, options, build_time)

    # ------------------------------------------------------------------ properties
    @property
    def has_table(self) -> bool:
        """Whether the distance table was built (it fits ``max_table_bytes``)."""
        return self.arrays["table"].size > 0 or self.num_top_subgoals == 0

    @property
    def table(self) -> np.ndarray:
        """``(m, m)`` float64 grid distances between the top-level subgoals (in the order
        of :attr:`top_subgoals`; inf between islands; from a packed table, a new array);
        ``(0, 0)`` when not built."""
        return _lengths(self.arrays["table"])

    @property
    def top_subgoals(self) -> np.ndarray:
        """``(m, 2)`` int32 ``(x, y)`` cells of the top-level subgoals (table order)."""
        return self.arrays["subgoals"][self._top_index >= 0]

    @property
    def num_top_subgoals(self) -> int:
        return int(np.count_nonzero(self._top_index >= 0))

    # ------------------------------------------------------------------ queries
    def _query(self) -> _subgoal_table.TableQuery | _GraphSearch:
        q = self._local.mine()
        if q is None and not self.has_table:
            q = self._local.keep(_GraphSearch(self.graph, self.algorithm))
        if q is None:
            a, g = self.arrays, self.graph
            q = self._local.keep(_subgoal_table.TableQuery(
                self.grid.moves, a["clearance"], a["subgoal_id"], self.grid.width + 2,
                g._cells, g._xy, a["level"], a["indptr"], a["core_end"], a["targets"], a["costs"],
                g.top_level, self._top_index, a["table"], self.grid.components, PathResult,
                SearchStats, self.algorithm, Status.FOUND, Status.FAILED))
        return q

    def find_path(self, start: Any, goal: Any) -> PathResult:
        """Optimal path between two ``(x, y)`` cells.

        ``stats.expanded`` counts the subgoals direct-h-reachable from the two endpoints and
        ``generated`` the top-level subgoals joined to them (both 0 when the straight octile
        path answered).  Blocked or
        out-of-grid endpoints raise :class:`InvalidQueryError`; endpoints on different
        islands give ``found=False`` without searching.  Without a table
        (:attr:`has_table` false) the two-level graph is searched.
        """
        r = (self._local.mine() or self._query()).find_path(start, goal)
        if r.__class__ is int:
            a = self.grid.cell(start, name="start", passable=True)
            b = self.grid.cell(goal, name="goal", passable=True)
            r = self._query().find_path(a, b)
            if r.__class__ is int:  # pragma: no cover - the cells were checked above
                raise InvalidQueryError(f"cells {a} and {b} cannot be queried")
        return r

    def find_paths(self, starts: Any, goals: Any) -> list[PathResult]:
        """:meth:`find_path` for each pair ``starts[i] -> goals[i]`` (sequences or
        ``(k, 2)`` arrays of ``(x, y)`` cells, all checked before the first query), in one
        compiled loop; results in input order."""
        a, b = self._pairs(starts, goals)
        return self._query().find_paths(a, b)

    def find_costs(self, starts: Any, goals: Any) -> np.ndarray:
        """``(k,)`` float64 optimal costs of ``starts[i] -> goals[i]`` (as
        :meth:`find_paths`; inf between islands), without building results."""
        a, b = self._pairs(starts, goals)
        return self._query().find_costs(a, b)

    def find_waypoints(self, start: Any, goal: Any) -> np.ndarray:
        """``(k, 2)`` int64 cells of the high-level path: start, the subgoals passed, goal
        (empty if unreachable; just the start when start == goal)."""
        r = self.find_path(start, goal)
        if not r.found:
            return empty_path()
        if len(r.path) == 1:
            return r.path
        mid = self._query().waypoints()
        return np.concatenate([r.path[:1], mid, r.path[-1:]])

    def _pairs(self, starts: Any, goals: Any) -> tuple[np.ndarray, np.ndarray]:
        a, b = _cells(self.grid, starts, "starts"), _cells(self.grid, goals, "goals")
        if len(a) != len(b):
            raise InvalidQueryError(f"{len(a)} starts but {len(b)} goals")
        return a, b


def _cells(grid: Grid, values: Any, name: str) -> np.ndarray:
    """``(k, 2)`` int64 passable cells: integer arrays are checked at once, anything else
    cell by cell (:meth:`Grid.cells`)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu" and values.ndim == 2 \
            and values.shape[1] == 2:
        a = np.ascontiguousarray(values, dtype=np.int64)
        h, w = grid.shape
        inside = (a[:, 0] >= 0) & (a[:, 0] < w) & (a[:, 1] >= 0) & (a[:, 1] < h)
        ok = inside.copy()
        ok[inside] = grid.passable[a[inside, 1], a[inside, 0]]
        if ok.all():
            return a
        values = [tuple(c) for c in a[~ok][:1].tolist()]
    return np.array(grid.cells(values, name=name, passable=True),
                    dtype=np.int64).reshape(-1, 2)


class _GraphSearch:
    """The queries of a :class:`SubgoalTable` whose table was not built: A* over its
    two-level graph, with the same entry points as the table's kernel."""

    def __init__(self, graph: SubgoalGraph, algorithm: str):
        self.graph = graph
        self.algorithm = algorithm

    def find_path(self, start: Any, goal: Any) -> PathResult:
        r = self.graph.find_path(start, goal)
        r.algorithm = self.algorithm
        return r

    def find_paths(self, starts: np.ndarray, goals: np.ndarray) -> list[PathResult]:
        return [self.find_path((int(a[0]), int(a[1])), (int(b[0]), int(b[1])))
                for a, b in zip(starts, goals, strict=True)]

    def find_costs(self, starts: np.ndarray, goals: np.ndarray) -> np.ndarray:
        return np.array([r.cost for r in self.find_paths(starts, goals)], dtype=np.float64)

    def waypoints(self) -> np.ndarray:
        return self.graph._query().waypoints()[1:-1]


def _top_table(arrays: dict[str, np.ndarray], cap: int) -> np.ndarray:
    """The distance table between the top-level subgoals in the first form that fits
    ``cap`` bytes: float64 lengths, the square of packed step counts, their triangle;
    ``(0, 0)`` where none fits, or where a distance outgrows the packed entries."""
    top = np.flatnonzero(arrays["level"] == int(arrays["top_level"][0])).astype(np.int32)
    none = np.zeros((0, 0), dtype=np.float64)
    m = len(top)
    if 2 * m * (m + 1) > cap:
        return none
    index = np.full(len(arrays["level"]), -1, dtype=np.int32)
    index[top] = np.arange(m, dtype=np.int32)
    steps = _subgoal_table.build_table(top, index, arrays["indptr"], arrays["core_end"],
                                       arrays["targets"], arrays["costs"],
                                       np.ascontiguousarray(arrays["subgoals"], np.int32))
    if steps is None:
        return none
    if 4 * m * m > cap:
        return steps
    square = _subgoal_table.table_square(steps)
    return _subgoal_table.table_lengths(square) if 8 * m * m <= cap else square


def _lengths(table: np.ndarray) -> np.ndarray:
    """A table's ``(m, m)`` float64 lengths, whatever its form."""
    if table.dtype != np.uint32:
        return table
    if table.ndim == 1:
        table = _subgoal_table.table_square(table)
    return _subgoal_table.table_lengths(table)


def _check_table(table: np.ndarray, a: dict[str, np.ndarray], top: np.ndarray) -> None:
    """Check a loaded distance table: symmetric, zero on the diagonal, at least the octile
    distance between its subgoals and obeying the triangle inequality along every top-level
    edge (raises :class:`IndexFormatError`)."""
    if np.isnan(table).any() or (table < 0).any():
        i = np.unravel_index(int(np.argmax(np.isnan(table) | (table < 0))), table.shape)
        raise IndexFormatError(f"array 'table' holds table{list(i)} = {table[i]}, not a "
                               f"distance")
    if not np.array_equal(table, table.T):
        i = np.unravel_index(int(np.argmax(table != table.T)), table.shape)
        raise IndexFormatError(f"array 'table' is not symmetric at {list(i)}")
    if np.any(np.diagonal(table) != 0):
        raise IndexFormatError("array 'table' holds a non-zero distance from a subgoal to "
                               "itself")
    xy = a["subgoals"][top].astype(np.int64)
    for k in range(len(top)):
        d = np.abs(xy - xy[k])
        octile = np.abs(d[:, 0] - d[:, 1]) + np.minimum(d[:, 0], d[:, 1]) * SQRT2
        low = table[k] < octile * (1 - 1e-12)
        if low.any():
            j = int(np.argmax(low))
            raise IndexFormatError(f"array 'table' holds table[{k}, {j}] = {table[k, j]}, "
                                   f"below the octile distance {octile[j]}")
    index = np.full(len(a["level"]), -1, dtype=np.int64)
    index[top] = np.arange(len(top))
    indptr, core_end = a["indptr"], a["core_end"]
    src = np.concatenate([np.full(int(core_end[u] - indptr[u]), index[u]) for u in top]) \
        if len(top) else np.zeros(0, dtype=np.int64)
    edges = np.concatenate([np.arange(indptr[u], core_end[u]) for u in top]) \
        if len(top) else np.zeros(0, dtype=np.int64)
    dst = index[a["targets"][edges]]
    if (dst < 0).any():
        raise IndexFormatError("a top-level row of 'targets' lists a subgoal below the top "
                               "level before 'core_end'")
    _saved.triangle(table, "table", src, dst, a["costs"][edges])
