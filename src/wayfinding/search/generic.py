"""A* and Dijkstra in pure Python over any :class:`~wayfinding.graph.Graph`.

This is the slow, general path: any hashable nodes, user heuristics (callables or tables),
goal sets and predicates, closed-node reopening for inconsistent heuristics, and the
termination rules of the textbooks.  Ties in f go to the larger g, then to the node pushed
first; a node's cost is only updated when strictly cheaper.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._validate import flag, number, step_budget
from ..errors import InvalidQueryError, brief
from ..results import PathResult, SearchStats, Status
from .queues import BinaryHeap, BucketQueue

TERMINATIONS = ("on_select", "on_visit", "exhaustive")


class AStarSearch:
    """An A* search that can run in slices: ``step(max_expansions, max_seconds)`` until it is
    done (as :class:`~wayfinding.sliced.SlicedSearch`).

    Options as :func:`astar`.  ``status`` (a :class:`~wayfinding.results.Status`) is
    ``RUNNING`` until the search ends ``FOUND`` or ``FAILED``; :meth:`result` gives the path
    so far (not found, status ``RUNNING``, while it runs).  Stepping in slices of any size
    gives the same result as one run.

    >>> from wayfinding import AdjacencyGraph
    >>> g = AdjacencyGraph.from_edges([("a", "b", 1), ("b", "c", 1)])
    >>> s = AStarSearch(g, "a", "c")
    >>> [s.step(max_expansions=1) for _ in range(3)]
    [Status.RUNNING, Status.FOUND, Status.FOUND]
    >>> s.result().path
    ['a', 'b', 'c']
    """

    def __init__(self, graph: Any, start: Any, goal: Any, *, heuristic: Any = None,
                 weight: float = 1.0, termination: str = "on_select", reopen: bool = True,
                 queue: str = "heap", bucket_width: float = 1.0, record: bool = False,
                 path_dims: int | None = None):
        if termination not in TERMINATIONS:
            raise InvalidQueryError(f"unknown termination {termination!r}; expected one of "
                                    f"{', '.join(TERMINATIONS)}")
        weight = number("weight", weight, min=1.0)
        if path_dims not in (None, 1, 2):
            raise InvalidQueryError(f"path_dims {path_dims!r} must be None, 1 or 2")
        _require_graph(graph)
        self._is_goal, goals = _goal_test(goal)
        self._h = _heuristic(graph, heuristic, goals)
        if queue == "heap":
            self._open: Any = BinaryHeap()
        elif queue == "bucket":
            self._open = BucketQueue(bucket_width)
        else:
            raise InvalidQueryError(f"unknown queue {queue!r}; expected 'heap' or 'bucket'")
        _hashable(start, "start")
        self._graph = graph
        self._weight = float(weight)
        self._termination = termination
        self._reopen = flag("reopen", reopen)
        self._record = flag("record", record)
        self._path_dims = path_dims
        self.algorithm = "dijkstra" if heuristic is zero_heuristic else "astar"
        self._g: dict[Any, float] = {start: 0.0}
        self._parent: dict[Any, Any] = {start: None}
        self._closed: set[Any] = set()
        self._hcache: dict[Any, float] = {}
        self._counter = 0
        self._expanded = self._reopened = self._updated = 0
        self._generated = 1
        self._max_open = 1
        self._order: list[Any] = []
        self._best_goal: Any = None
        self._best_cost = math.inf
        self._elapsed = 0.0
        self.status = Status.RUNNING
        self._open.push((self._hval(start), -0.0, self._counter), start)
        if self._is_goal(start):
            self._best_goal, self._best_cost = start, 0.0
            if termination != "exhaustive":
                self._open = BinaryHeap()

    def _hval(self, node: Any) -> float:
        if node not in self._hcache:
            value = self._h(node)
            if not value >= 0:
                raise InvalidQueryError(
                    f"heuristic gave {value!r} for node {node!r}; it must be a number >= 0")
            self._hcache[node] = self._weight * value
        return self._hcache[node]

    def step(self, max_expansions: int | None = None,
             max_seconds: float | None = None) -> Status:
        """Expand up to ``max_expansions`` more nodes for at most ``max_seconds`` (no limit
        when None; a timed step makes at least one expansion) and return the status."""
        max_expansions, max_seconds = step_budget(max_expansions, max_seconds)
        if self.status is not Status.RUNNING:
            return self.status
        t0 = time.perf_counter()
        try:
            self._run(max_expansions, math.inf if max_seconds is None else t0 + max_seconds)
        finally:
            self._elapsed += time.perf_counter() - t0
        return self.status

    def run(self, *, max_expansions: int | None = None) -> PathResult:
        """Run on to the end, or for at most ``max_expansions`` expansions, and return the
        result: as :meth:`result`, but a search its budget stopped is ``OUT_OF_BUDGET``
        (not ``RUNNING``)."""
        self.step(max_expansions=max_expansions)
        result = self.result()
        if result.status is Status.RUNNING:
            result.status = Status.OUT_OF_BUDGET
        return result

    def _finish(self) -> None:
        self.status = Status.FOUND if self._best_goal is not None else Status.FAILED

    def _run(self, budget: int | None, deadline: float) -> None:
        g, parent, closed, open_list = self._g, self._parent, self._closed, self._open
        is_goal, exhaustive = self._is_goal, self._termination == "exhaustive"
        done = 0
        while len(open_list):
            (f, neg_g, order), u = open_list.pop()
            if u in closed or -neg_g > g[u]:
                continue  # stale entry
            gu = g[u]
            if exhaustive and gu >= self._best_cost:
                continue
            if is_goal(u):
                closed.add(u)
                if gu < self._best_cost:
                    self._best_goal, self._best_cost = u, gu
                if not exhaustive:
                    break
                continue
            if (budget is not None and done >= budget) \
                    or (done and deadline < math.inf and time.perf_counter() >= deadline):
                open_list.push((f, neg_g, order), u)  # same key: same order
                return
            closed.add(u)
            done += 1
            self._expanded += 1
            if self._record:
                self._order.append(u)
            for v, cost in self._graph.successors(u):
                ng = gu + edge_cost(u, v, cost)
                if v in g and ng >= g[v]:
                    continue
                if v in closed:
                    if not self._reopen:
                        continue
                    closed.discard(v)
                    self._reopened += 1
                elif v in g:
                    self._updated += 1
                g[v] = ng
                parent[v] = u
                self._counter += 1
                open_list.push((ng + self._hval(v), -ng, self._counter), v)
                self._generated += 1
                if self._termination == "on_visit" and is_goal(v):
                    self._best_goal, self._best_cost = v, ng
                    self._max_open = max(self._max_open, len(open_list))
                    self._finish()
                    return
            self._max_open = max(self._max_open, len(open_list))
        self._finish()

    def result(self) -> PathResult:
        """The outcome so far: the path to the best goal once the search has ended."""
        found = self.status is Status.FOUND
        nodes: list[Any] = []
        if found:
            n = self._best_goal
            while n is not None:
                nodes.append(n)
                n = self._parent[n]
            nodes.reverse()
        path: list[Any] | np.ndarray = nodes
        stats = SearchStats(expanded=self._expanded, generated=self._generated,
                            reopened=self._reopened, updated=self._updated,
                            max_open=self._max_open, elapsed=self._elapsed)
        cost = self._best_cost if found else math.inf
        if self._path_dims is not None:
            path = np.array(nodes, dtype=np.int64).reshape(
                (-1, self._path_dims) if self._path_dims > 1 else -1)
        if self._record:
            open_nodes = [n for n in dict.fromkeys(self._open.items())
                          if n not in self._closed]
            return PathResult(path, cost, found, stats, self.algorithm, list(self._order),
                              open_nodes, self.status)
        return PathResult(path, cost, found, stats, self.algorithm, status=self.status)


def astar(graph: Any, start: Any, goal: Any, *, max_expansions: int | None = None,
          **options: Any) -> PathResult:
    """A* from ``start`` to ``goal`` over ``graph.successors(node) -> [(node, cost)]``.

    ``goal``: a node; a ``set``/``frozenset`` of nodes (any of them); or a predicate
    ``goal(node) -> bool``.  ``heuristic``: ``None`` (the graph's ``heuristic(node, goal)``
    if it has one, else 0), a callable ``h(node, goal)``, or a mapping ``{node: h}``; with a
    goal set the minimum over the goals is used (admissible when h is admissible for each
    goal); with a predicate a callable is called as ``h(node, None)`` and the graph's own
    heuristic is not used (h = 0 unless one is given).  ``weight`` (>= 1) multiplies h.

    ``termination``: ``"on_select"`` stops when a goal is taken off the open list (optimal
    with an admissible h); ``"on_visit"`` stops as soon as a goal is generated (faster, may
    be longer); ``"exhaustive"`` keeps searching until no open node has g below the best goal
    cost, which is optimal even with an overestimating h when ``reopen`` is true.
    ``reopen``: put closed nodes back on the open list when a cheaper route reaches them.
    ``queue``: ``"heap"`` or ``"bucket"`` (buckets of ``bucket_width``; same order).
    ``record``: keep the expansion order and the final open list.
    ``path_dims``: ``None`` (the path is a list of nodes), 1 or 2: an int64 array of shape
    ``(n,)`` or ``(n, 2)`` (integer nodes or cells).
    ``max_expansions``: stop early (``found=False``, status ``OUT_OF_BUDGET``) after that
    many expansions.

    The result's ``path`` is a list of nodes (unless ``path_dims``).  :class:`AStarSearch`
    runs the same search in slices.
    """
    return AStarSearch(graph, start, goal, **options).run(max_expansions=max_expansions)


def dijkstra(graph: Any, start: Any, goal: Any, **options: Any) -> PathResult:
    """Dijkstra's algorithm: :func:`astar` with a zero heuristic (same options)."""
    if options.pop("heuristic", None) is not None:
        raise InvalidQueryError("dijkstra takes no heuristic; use astar")
    max_expansions = options.pop("max_expansions", None)
    return AStarSearch(graph, start, goal, heuristic=zero_heuristic, **options).run(
        max_expansions=max_expansions)


def zero_heuristic(node: Any, goal: Any) -> float:
    """h = 0: A* with it is Dijkstra's algorithm."""
    return 0.0


def _require_graph(graph: Any) -> None:
    """Refuse what has no ``successors`` method (the :class:`~wayfinding.graph.Graph`
    protocol) with :class:`InvalidQueryError`."""
    if not callable(getattr(graph, "successors", None)):
        raise InvalidQueryError(f"graph {brief(graph)} must have a successors(node) method "
                                "yielding (neighbour, cost) pairs")


def _hashable(node: Any, name: str) -> None:
    try:
        hash(node)
    except TypeError:
        raise InvalidQueryError(f"{name} {node!r} is not hashable; nodes must be") from None


def _goal_test(goal: Any) -> tuple[Callable[[Any], bool], list[Any] | None]:
    if isinstance(goal, (set, frozenset)):
        if not goal:
            raise InvalidQueryError("goal set is empty")
        members = frozenset(goal)
        return members.__contains__, list(members)
    if callable(goal) and not isinstance(goal, (tuple, str, int)):
        return goal, None
    _hashable(goal, "goal")
    return (lambda n: n == goal), [goal]


def _heuristic(graph: Any, heuristic: Any, goals: list[Any] | None) -> Callable[[Any], float]:
    if heuristic is None:
        own = getattr(graph, "heuristic", None)
        if own is None or goals is None:
            return lambda n: 0.0
        heuristic = own
    if isinstance(heuristic, Mapping):
        table = heuristic

        def from_table(n: Any) -> float:
            try:
                return _h_number(table[n], n)
            except KeyError:
                raise InvalidQueryError(f"heuristic table has no entry for node {n!r}") \
                    from None
        return from_table
    if not callable(heuristic):
        raise InvalidQueryError(f"heuristic {heuristic!r} must be a callable h(node, goal), "
                                "a mapping or None")
    if goals is None:
        return lambda n: _h_number(heuristic(n, None), n)
    if len(goals) == 1:
        target = goals[0]
        return lambda n: _h_number(heuristic(n, target), n)
    return lambda n: min(_h_number(heuristic(n, t), n) for t in goals)


def _h_number(value: Any, node: Any) -> float:
    """A heuristic's value as a float (its sign is checked where it is used)."""
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidQueryError(f"heuristic gave {value!r} for node {node!r}; it must be a "
                                "number >= 0") from None


def edge_cost(u: Any, v: Any, cost: Any) -> float:
    """An edge's cost from a graph's ``successors`` as a float, checked finite and >= 0 (a
    bool is not a cost)."""
    try:
        c = math.nan if isinstance(cost, (bool, np.bool_)) else float(cost)
    except (TypeError, ValueError, OverflowError):
        c = math.nan
    if not c >= 0 or math.isinf(c):
        raise InvalidQueryError(
            f"edge {u!r} -> {v!r} has cost {cost!r}; costs must be finite and >= 0")
    return c


def reachable_costs(graph: Any, start: Any) -> dict[Any, float]:
    """Cost of the cheapest path from ``start`` to every reachable node (Dijkstra)."""
    search = AStarSearch(graph, start, _never, heuristic=zero_heuristic)
    search.step()
    return dict(search._g)


def _never(node: Any) -> bool:
    return False
