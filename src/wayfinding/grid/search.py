"""Compiled grid searches: A*, weighted A*, greedy best-first, Dijkstra, BFS, bidirectional A*,
and multi-source distance maps.

A :class:`GridSearch` owns the per-query scratch (node arrays with generation stamps, the open
list); the :class:`Grid` stays read-only, so one grid serves many searches and threads.
Ties in f are broken toward larger g, then by push order: results are deterministic.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .._deprecated import renamed_keywords, warn
from .._index import check_world
from .._kernels import _canonical, _codes, _gridsearch
from .._kernels._workspace import Workspace
from .._scratch import SingleThread, exclusive
from .._validate import choice, count, flag, number
from ..errors import InvalidQueryError
from ..results import PathResult, SearchStats, empty_path
from ..sliced import SlicedSearch
from .constrained import grid_domain
from .grid import Grid
from .heuristics import heuristic_code
from .index import require_grid
from .jps import ONLINE_RULES, _find_path_jps
from .one_call import one_call
from .rules import Diagonal

#: Algorithm names accepted by :meth:`GridSearch.find_path` and the CLI.
ALGORITHMS = {
    "astar": "A* (optimal)",
    "weighted_astar": "weighted A*: f = g + w*h, cost <= w x optimal (weight, default 2)",
    "greedy": "greedy best-first: ordered by h alone (fast, not optimal)",
    "dijkstra": "Dijkstra (optimal, no heuristic)",
    "bfs": "breadth-first: fewest steps (optimal on uniform 4-connected grids)",
    "bidirectional": "bidirectional A* (optimal)",
    "jps": "jump point search: A* over jump points (optimal; uniform no_corner_cutting grids)",
    "jps2": "jump point search whose diagonal jumps run to the wall, never queueing the "
            "cells where they turn (optimal; uniform no_corner_cutting grids)",
}

# Counters of the compiled runs, in the order of their ``counters``.
_COUNTERS = ("expanded", "generated", "updated", "max_open")
_FOUND_CODE = _codes.FOUND     # read once: the one-shot search compares with it per query

# Algorithms :meth:`GridSearch.find_path` runs in one compiled call when given no options.
_ONE_CALL = frozenset({"astar", "weighted_astar", "greedy", "dijkstra"})

#: Algorithms that accept goal bounds (``bounds=`` in :meth:`GridSearch.find_path`).
BOUNDED_ALGORITHMS = ("astar", "weighted_astar", "dijkstra")

#: Distance-map methods of :meth:`GridSearch.distance_map`.
DISTANCE_METHODS = ("auto", "canonical", "dijkstra")


class GridSearch(SingleThread):
    """Search scratch for one grid (or several of at most the same size).

    One thread at a time: a call while another thread's call (or a sliced search it
    started) is under way raises :class:`~wayfinding.errors.ConcurrentUseError`.  Use one
    per thread (:func:`find_paths` does).  A ``workspace`` given must not be shared with
    another thread either.

    >>> g = Grid.from_ascii('''
    ... ....
    ... .##.
    ... ....''')
    >>> r = GridSearch(g).find_path((0, 1), (3, 1))
    >>> r.found, round(r.cost, 4), r.path.tolist()
    (True, 5.0, [[0, 1], [0, 0], [1, 0], [2, 0], [3, 0], [3, 1]])
    """

    def __init__(self, grid: Grid, *, workspace: Workspace | None = None):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"GridSearch needs a Grid, got {type(grid).__name__}")
        if workspace is not None and not isinstance(workspace, Workspace):
            raise InvalidQueryError(f"workspace must be a Workspace, got "
                                    f"{type(workspace).__name__}")
        self.grid = grid
        n = (grid.height + 2) * (grid.width + 2)
        self._ws = workspace if workspace is not None and workspace.size >= n else Workspace(n)
        self._back: Workspace | None = None
        self._hkind = heuristic_code(None, grid.diagonal)   # the default heuristic's code

    @property
    def nbytes(self) -> int:
        """Bytes of search state held (node arrays and open lists)."""
        return self._ws.nbytes + (self._back.nbytes if self._back is not None else 0)

    @exclusive(algo="method")
    def find_path(self, start: Any, goal: Any, *, method: str = "astar",
                  heuristic: str | None = None, weight: float | None = None,
                  agent_size: int = 1, record: bool = False,
                  differential: Any = None, bounds: Any = None, constraints: Any = None,
                  t: float = 0.0) -> PathResult:
        """Find a path from ``start`` to ``goal`` (``(x, y)`` cells).

        ``method``: one of :data:`ALGORITHMS`.  ``heuristic``: ``"octile"`` (default, or
        ``"manhattan"`` on 4-connected grids), ``"euclidean"``, ``"chebyshev"``, ``"zero"``.
        ``weight`` (>= 1, default 2) only for ``weighted_astar``.  ``agent_size`` (cells,
        >= 1): the agent covers that square below-right of its cell (see
        :meth:`Grid.for_agent`).  ``record=True`` also returns the expansion order and the
        final open list (not for ``bidirectional``).  ``differential``: a
        :class:`~wayfinding.grid.differential.DifferentialHeuristic` built for this grid (only
        ``astar`` and ``weighted_astar``); h is then the larger of the base heuristic and the
        pivot bound, and the algorithm is reported as ``astar_dh`` / ``weighted_astar_dh``.
        ``bounds``: a :class:`~wayfinding.grid.goal_bounds.GoalBounds` built for this grid;
        steps whose box does not hold the goal are skipped (``astar``, ``weighted_astar``,
        ``dijkstra``).

        ``constraints``: a :class:`~wayfinding.constraints.ConstraintSet` whose multiplier
        field (evaluated at cell centres in world units, at time ``t`` seconds) multiplies
        each step's cost, hard constraints forbidding the steps that cross them: the search
        runs on the grid's dense domain (:class:`~wayfinding.grid.constrained.GridConstraintDomain`)
        and returns a :class:`~wayfinding.graph.constrained.ConstrainedPath`
        (``astar`` or ``dijkstra`` only, with no other option).

        Blocked or out-of-grid endpoints raise :class:`InvalidQueryError`; an unreachable
        goal gives ``found=False`` without searching (island ids differ).
        """
        if constraints is not None:
            _constrained_only(method, heuristic=heuristic, weight=weight,
                              agent_size=agent_size, record=record, differential=differential,
                              bounds=bounds)
            return grid_domain(self.grid).find_cells(start, goal, constraints, t=t,
                                                     method=method)
        if type(method) is str and method in ONLINE_RULES:
            if heuristic not in (None, "octile") or weight is not None \
                    or differential is not None or bounds is not None:
                raise InvalidQueryError(f"{method} uses the octile heuristic and takes no "
                                        "weight, differential or bounds")
            grid = self.grid if type(agent_size) is int and agent_size == 1 \
                else self.grid.for_agent(agent_size)
            return _find_path_jps(grid, start, goal, workspace=self._ws, record=record,
                                  method=method)
        t0 = time.perf_counter()
        if type(method) is str and method in _ONE_CALL and weight is None and record is False \
                and differential is None and bounds is None \
                and type(agent_size) is int and agent_size == 1:
            return self._find_at_once(start, goal, method, heuristic, t0)
        begun = self._begin(start, goal, method, heuristic, weight, agent_size, record,
                            differential, bounds, t0)
        if isinstance(begun, PathResult):
            return begun
        run, finish, _ = begun
        found = run.advance() == _FOUND_CODE
        exp, gen, upd, mo = run.counters
        return finish(found, SearchStats(expanded=exp, generated=gen, updated=upd, max_open=mo,
                                         elapsed=time.perf_counter() - t0))

    @exclusive(algo="method")
    def start(self, start: Any, goal: Any, *, method: str = "astar",
              heuristic: str | None = None, weight: float | None = None,
              agent_size: int = 1, record: bool = False,
              differential: Any = None, bounds: Any = None) -> SlicedSearch:
        """Begin a search to run in slices (see :mod:`wayfinding.sliced`); options as
        :meth:`find_path`, every algorithm but ``jps``, and the same result.  While it runs
        the search keeps this object's scratch: a query on this ``GridSearch`` before it ends
        makes it refuse to step on.

        >>> g = Grid.from_ascii('''
        ... ....
        ... .##.
        ... ....''')
        >>> search = GridSearch(g).start((0, 1), (3, 1))
        >>> [search.step(max_expansions=4) for _ in range(3)]
        [Status.RUNNING, Status.RUNNING, Status.FOUND]
        >>> search.result().cost
        5.0
        """
        if type(method) is str and method in ONLINE_RULES:
            raise InvalidQueryError(f"{method} does not run in slices; 'astar' gives the same "
                                    "cost")
        t0 = time.perf_counter()
        begun = self._begin(start, goal, method, heuristic, weight, agent_size, record,
                            differential, bounds, t0)
        if isinstance(begun, PathResult):
            return SlicedSearch.done(begun)
        run, finish, name = begun
        return SlicedSearch(run, finish, name, _COUNTERS, setup=time.perf_counter() - t0,
                            owner=self)

    def _find_at_once(self, start: Any, goal: Any, method: str, heuristic: str | None,
                      t0: float) -> PathResult:
        """:meth:`find_path` of the best-first ``method`` with its default weight and no
        other option, in one compiled call (the same search as :meth:`_begin`'s run)."""
        grid = self.grid
        hkind = self._hkind if heuristic is None else heuristic_code(heuristic, grid.diagonal)
        rest = (0 if method == "dijkstra" else hkind,
                grid.min_cost * (2.0 if method == "weighted_astar" else 1.0), method == "greedy")
        return one_call(grid, grid._cell_search.find, self._ws, start, goal, rest, t0, method)

    def _begin(self, start: Any, goal: Any, method: str, heuristic: str | None,
               weight: float | None, agent_size: int, record: bool, differential: Any,
               bounds: Any, t0: float) -> PathResult | tuple:
        """Check a query and set up its compiled search: ``(run, finish, name)``, or the
        result when it is known without searching."""
        grid = self.grid if type(agent_size) is int and agent_size == 1 \
            else self.grid.for_agent(agent_size)
        s = grid.cell(start, name="start", passable=True)
        g = grid.cell(goal, name="goal", passable=True)
        if type(method) is not str or method not in ALGORITHMS:
            choice("method", method, ALGORITHMS)
        hkind = heuristic_code(heuristic, grid.diagonal)
        record = flag("record", record)
        scale = grid.min_cost
        if method == "weighted_astar":
            scale *= 2.0 if weight is None else number("weight", weight, min=1)
        elif weight is not None:
            raise InvalidQueryError(f"weight is only used by 'weighted_astar', not {method!r}")
        if record and method == "bidirectional":
            raise InvalidQueryError("record=True is not available for 'bidirectional'")
        boxes = None if bounds is None else _bounds_boxes(bounds, grid, method)
        pivots = _pivot_table(differential, grid, method, scale / grid.min_cost)
        name = method + ("_dh" if differential is not None else "")
        if s == g or grid.components[s[1], s[0]] != grid.components[g[1], g[0]]:
            found = s == g
            return PathResult(np.array([s], dtype=np.int64) if found else empty_path(),
                              0.0 if found else math.inf, found,
                              SearchStats(elapsed=time.perf_counter() - t0), name,
                              *((empty_path(), empty_path()) if record else (None, None)))
        width = grid.width + 2
        a, b = grid.index(s), grid.index(g)
        ws = self._ws
        if method == "bidirectional":
            if self._back is None:
                self._back = Workspace(ws.size)
            back = self._back
            both = _gridsearch.BidirectionalRun(ws, back, grid.padded_costs, grid.moves, width,
                                                a, b, hkind, scale)
            run: _gridsearch.BidirectionalRun | _gridsearch.BfsRun | _gridsearch.GridRun = both

            def path() -> np.ndarray:
                return np.concatenate([ws.path_cells(both.meet, width),
                                       back.path_cells(both.meet, width)[::-1][1:]])
        elif method == "bfs":
            run = _gridsearch.BfsRun(ws, grid.moves, width, a, b, record)

            def path() -> np.ndarray:
                return ws.path_cells(b, width)
        else:
            run = _gridsearch.GridRun(ws, grid.padded_costs, grid.moves, width, a, b,
                                      0 if method == "dijkstra" else hkind, scale,
                                      method == "greedy", record, grid.is_uniform, **pivots,
                                      bounds=boxes)

            def path() -> np.ndarray:
                return ws.path_cells(b, width)

        def finish(found: bool, stats: SearchStats) -> PathResult:
            cells = path() if found else empty_path()
            cost = (grid.path_cost(cells) if found else math.inf) \
                if isinstance(run, _gridsearch.BfsRun) else run.cost
            if record:
                return PathResult(cells, cost, found, stats, name,
                                  grid.cells_of(ws.recorded()), grid.cells_of(ws.open_nodes()))
            return PathResult(cells, cost, found, stats, name)

        return run, finish, name

    @exclusive
    def distance_map(self, sources: Any, *, limit: float = math.inf,
                     agent_size: int = 1, method: str = "auto") -> np.ndarray:
        """Cost of the cheapest path from the nearest of ``sources`` to every cell.

        ``sources``: one ``(x, y)`` cell or a sequence of them (passable).  Cells costing more
        than ``limit`` are left out.  Returns ``(H, W)`` float64 indexed ``[y, x]``, ``inf``
        where unreachable or beyond the limit.  ``method``: ``"dijkstra"``, ``"canonical"``
        (canonical Dijkstra, same costs, faster; uniform no-corner-cutting grids only,
        :class:`InvalidGridError` otherwise) or ``"auto"`` (canonical where supported).
        """
        choice("distance-map method", method, DISTANCE_METHODS)
        lim = number("limit", limit, min=0, infinite=True)
        grid = self.grid if type(agent_size) is int and agent_size == 1 \
            else self.grid.for_agent(agent_size)
        if method == "canonical":
            require_grid(grid, "canonical Dijkstra")
        elif method == "auto":
            method = "canonical" if grid.is_uniform \
                and grid.diagonal is Diagonal.NO_CORNER_CUTTING else "dijkstra"
        cells = _cell_list(grid, sources, "source")
        out = np.full(grid.shape, np.inf)
        flat = np.array([grid.index(c) for c in cells], dtype=np.int64)
        if method == "canonical":
            _canonical.flood(self._ws, grid.moves, grid.width + 2, flat, lim, out)
        else:
            _gridsearch.flood(self._ws, grid.padded_costs, grid.moves, grid.width + 2, flat,
                              lim, out)
        return out


def _constrained_only(method: Any, **options: Any) -> None:
    """Refuse what a constrained grid search does not take: methods other than A* and
    Dijkstra, and the options of the grid's own searches."""
    if method not in ("astar", "dijkstra"):
        raise InvalidQueryError(f"method {method!r} does not take constraints; a constrained "
                                "search uses 'astar' or 'dijkstra'")
    given = [name for name, value in options.items()
             if value is not None and value is not False and not (
                 name == "agent_size" and type(value) is int and value == 1)]
    if given:
        raise InvalidQueryError(f"{', '.join(given)} cannot be combined with constraints")


def _pivot_table(differential: Any, grid: Grid, method: str,
                 weight: float) -> dict[str, Any]:
    """Extra kernel keyword arguments for a differential heuristic: none without one."""
    if differential is None:
        return {}
    if getattr(differential, "kind", None) != "differential":
        raise InvalidQueryError(f"differential must be a DifferentialHeuristic, got "
                                f"{type(differential).__name__}")
    if method not in ("astar", "weighted_astar"):
        raise InvalidQueryError(
            f"a differential heuristic works with 'astar' and 'weighted_astar', not {method!r}")
    check_world("the differential heuristic", differential.grid, grid)
    return {"pivots": differential.table, "pscale": weight}


def _bounds_boxes(bounds: Any, grid: Grid, method: str) -> np.ndarray:
    """The box array of goal bounds checked against the grid searched."""
    if method not in BOUNDED_ALGORITHMS:
        raise InvalidQueryError(f"goal bounds work with {', '.join(BOUNDED_ALGORITHMS)}, "
                                f"not {method!r}")
    if getattr(bounds, "kind", None) != "goal_bounds":
        raise InvalidQueryError(f"bounds must be a GoalBounds index, got "
                                f"{type(bounds).__name__}")
    check_world("the goal bounds", bounds.grid, grid)
    return bounds.boxes


def _cell_list(grid: Grid, cells: Any, name: str) -> list[tuple[int, int]]:
    out = grid.cells(cells, name=name, passable=True)
    if not out:
        raise InvalidQueryError(f"no {name} cells given")
    return out


_local = threading.local()


def _searcher(grid: Grid) -> GridSearch:
    """A per-thread GridSearch reusing this thread's workspace across grids."""
    cached = getattr(_local, "search", None)
    if cached is not None and cached.grid is grid:
        return cached
    ws = cached._ws if cached is not None else None
    search = GridSearch(grid, workspace=ws)
    _local.search = search
    return search


@renamed_keywords(algo="method")
def find_path(grid: Grid, start: Any, goal: Any, **options: Any) -> PathResult:
    """Deprecated name of :func:`wayfinding.find_path` for grids (options as
    :meth:`GridSearch.find_path`)."""
    warn("wayfinding.grid.find_path()", "wayfinding.find_path()")
    return _searcher(grid).find_path(start, goal, **options)


def distance_map(grid: Grid, sources: Any, **options: Any) -> np.ndarray:
    """Multi-source distance map; options as :meth:`GridSearch.distance_map`."""
    return _searcher(grid).distance_map(sources, **options)


@renamed_keywords(algo="method")
def find_paths(grid: Grid, starts: Sequence[Any], goals: Sequence[Any], *, threads: int = 1,
               **options: Any) -> list[PathResult]:
    """Solve ``starts[i] -> goals[i]`` for every i, on ``threads`` threads (the kernels
    release the GIL).  Options as :meth:`GridSearch.find_path`; results in input order."""
    starts, goals = list(starts), list(goals)
    if len(starts) != len(goals):
        raise InvalidQueryError(f"{len(starts)} starts but {len(goals)} goals")
    pairs = list(zip(starts, goals))
    threads = min(count("threads", threads), max(len(pairs), 1))
    if threads == 1 or len(pairs) < 2:
        search = GridSearch(grid)
        return [search.find_path(a, b, **options) for a, b in pairs]
    chunks = [pairs[k::threads] for k in range(threads)]

    def run(chunk: list[tuple[Any, Any]]) -> list[PathResult]:
        search = GridSearch(grid)
        return [search.find_path(a, b, **options) for a, b in chunk]

    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(pool.map(run, chunks))
    out: list[PathResult] = [None] * len(pairs)  # type: ignore[list-item]
    for k, part in enumerate(parts):
        out[k::threads] = part
    return out
