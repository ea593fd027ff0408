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

from ..errors import InvalidQueryError
from ..results import PathResult, SearchStats
from .queues import BinaryHeap, BucketQueue

TERMINATIONS = ("on_select", "on_visit", "exhaustive")


def astar(graph: Any, start: Any, goal: Any, *, heuristic: Any = None,
          weight: float = 1.0, termination: str = "on_select", reopen: bool = True,
          queue: str = "heap", bucket_width: float = 1.0, record: bool = False,
          max_expansions: int | None = None) -> PathResult:
    """A* from ``start`` to ``goal`` over ``graph.successors(node) -> [(node, cost)]``.

    ``goal``: a node; a ``set``/``frozenset`` of nodes (any of them); or a predicate
    ``goal(node) -> bool``.  ``heuristic``: ``None`` (the graph's ``heuristic(node, goal)``
    if it has one, else 0), a callable ``h(node, goal)``, or a mapping ``{node: h}``; with a
    goal set the minimum over the goals is used.  ``weight`` (>= 1) multiplies h.

    ``termination``: ``"on_select"`` stops when a goal is taken off the open list (optimal
    with an admissible h); ``"on_visit"`` stops as soon as a goal is generated (faster, may
    be longer); ``"exhaustive"`` keeps searching until no open node has g below the best goal
    cost, which is optimal even with an overestimating h when ``reopen`` is true.
    ``reopen``: put closed nodes back on the open list when a cheaper route reaches them.
    ``queue``: ``"heap"`` or ``"bucket"`` (buckets of ``bucket_width``; same order).
    ``max_expansions``: stop early (``found=False``) after that many expansions.

    The result's ``path`` is a list of nodes.
    """
    t0 = time.perf_counter()
    if termination not in TERMINATIONS:
        raise InvalidQueryError(f"unknown termination {termination!r}; expected one of "
                                f"{', '.join(TERMINATIONS)}")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) \
            or not math.isfinite(weight) or weight < 1:
        raise InvalidQueryError(f"weight {weight!r} must be a finite number >= 1")
    if max_expansions is not None and (isinstance(max_expansions, bool) or not isinstance(
            max_expansions, int) or max_expansions < 0):
        raise InvalidQueryError(f"max_expansions {max_expansions!r} must be an integer >= 0")
    is_goal, goals = _goal_test(goal)
    h = _heuristic(graph, heuristic, goals)
    if queue == "heap":
        open_list: Any = BinaryHeap()
    elif queue == "bucket":
        open_list = BucketQueue(bucket_width)
    else:
        raise InvalidQueryError(f"unknown queue {queue!r}; expected 'heap' or 'bucket'")
    _hashable(start, "start")

    g: dict[Any, float] = {start: 0.0}
    parent: dict[Any, Any] = {start: None}
    closed: set[Any] = set()
    hcache: dict[Any, float] = {}
    counter = 0
    expanded = generated = reopened = updated = 0
    max_open = 1
    order: list[Any] = []
    best_goal: Any = None
    best_cost = math.inf

    def hval(node: Any) -> float:
        if node not in hcache:
            value = h(node)
            if not value >= 0:
                raise InvalidQueryError(
                    f"heuristic gave {value!r} for node {node!r}; it must be a number >= 0")
            hcache[node] = weight * value
        return hcache[node]

    open_list.push((hval(start), -0.0, counter), start)
    generated = 1
    if is_goal(start):
        best_goal, best_cost = start, 0.0
        if termination != "exhaustive":
            open_list = BinaryHeap()
    while len(open_list):
        (f, neg_g, _), u = open_list.pop()
        if u in closed or -neg_g > g[u]:
            continue  # stale entry
        gu = g[u]
        if termination == "exhaustive" and gu >= best_cost:
            continue
        closed.add(u)
        if is_goal(u):
            if gu < best_cost:
                best_goal, best_cost = u, gu
            if termination != "exhaustive":
                break
            continue
        if max_expansions is not None and expanded >= max_expansions:
            closed.discard(u)
            open_list.push((f, neg_g, counter), u)
            break
        expanded += 1
        if record:
            order.append(u)
        stop = False
        for v, cost in graph.successors(u):
            c = float(cost)
            if not c >= 0 or math.isinf(c):
                raise InvalidQueryError(
                    f"edge {u!r} -> {v!r} has cost {cost!r}; costs must be finite and >= 0")
            ng = gu + c
            if v in g and ng >= g[v]:
                continue
            if v in closed:
                if not reopen:
                    continue
                closed.discard(v)
                reopened += 1
            elif v in g:
                updated += 1
            g[v] = ng
            parent[v] = u
            counter += 1
            open_list.push((ng + hval(v), -ng, counter), v)
            generated += 1
            if termination == "on_visit" and is_goal(v):
                best_goal, best_cost = v, ng
                stop = True
                break
        max_open = max(max_open, len(open_list))
        if stop:
            break
    found = best_goal is not None
    path: list[Any] = []
    if found:
        n = best_goal
        while n is not None:
            path.append(n)
            n = parent[n]
        path.reverse()
    stats = SearchStats(expanded=expanded, generated=generated, reopened=reopened,
                        updated=updated, max_open=max_open, elapsed=time.perf_counter() - t0)
    if record:
        open_nodes = [n for n in dict.fromkeys(open_list.items()) if n not in closed]
        return PathResult(path, best_cost, found, stats, "astar", order, open_nodes)
    return PathResult(path, best_cost, found, stats, "astar")


def dijkstra(graph: Any, start: Any, goal: Any, **options: Any) -> PathResult:
    """Dijkstra's algorithm: :func:`astar` with a zero heuristic (same options)."""
    if options.pop("heuristic", None) is not None:
        raise InvalidQueryError("dijkstra takes no heuristic; use astar")
    r = astar(graph, start, goal, heuristic=_zero, **options)
    return PathResult(r.path, r.cost, r.found, r.stats, "dijkstra", r.expanded_nodes,
                      r.open_nodes)


def _zero(node: Any, goal: Any) -> float:
    return 0.0


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
                return float(table[n])
            except KeyError:
                raise InvalidQueryError(f"heuristic table has no entry for node {n!r}") \
                    from None
        return from_table
    if not callable(heuristic):
        raise InvalidQueryError(f"heuristic {heuristic!r} must be a callable h(node, goal), "
                                "a mapping or None")
    if goals is None:
        return lambda n: float(heuristic(n, None))
    if len(goals) == 1:
        target = goals[0]
        return lambda n: float(heuristic(n, target))
    return lambda n: min(float(heuristic(n, t)) for t in goals)


def reachable_costs(graph: Any, start: Any) -> dict[Any, float]:
    """Cost of the cheapest path from ``start`` to every reachable node (Dijkstra)."""
    _hashable(start, "start")
    costs: dict[Any, float] = {start: 0.0}
    heap = BinaryHeap()
    heap.push((0.0, 0), start)
    counter = 0
    done: set[Any] = set()
    while len(heap):
        (d, _), u = heap.pop()
        if u in done:
            continue
        done.add(u)
        for v, c in graph.successors(u):
            nd = d + float(c)
            if nd < costs.get(v, math.inf):
                costs[v] = nd
                counter += 1
                heap.push((nd, counter), v)
    return costs
