"""Low-memory searches over any :class:`~wayfinding.graph.Graph`: IDA*, the simple
memory-bounded A* (open list capped, lossy) and Russell's SMA* (bounded search tree).

All three take the goal forms and heuristics of :func:`~wayfinding.search.astar` (a node, a
set of nodes, or a predicate; a callable ``h(node, goal)``, a table, or the graph's own
heuristic) and return a :class:`LowMemoryResult`.  They trade time for memory: use them only
where the open and closed lists of A* do not fit.
"""

from __future__ import annotations

import bisect
import math
import time
from dataclasses import dataclass, field
from typing import Any

from .._validate import budget, count
from ..errors import InvalidQueryError
from ..results import PathResult, SearchStats, Status, _fields_equal
from .generic import _goal_test, _hashable, _heuristic, _require_graph, edge_cost

#: Outcomes of a low-memory search.
STATUSES = (Status.FOUND, Status.FAILED, Status.OUT_OF_BUDGET)


@dataclass(slots=True, repr=False, kw_only=True)
class LowMemoryResult(PathResult):
    """A :class:`~wayfinding.results.PathResult` with the search's outcome in detail.

    ``status``: ``FOUND``; ``FAILED`` (IDA*: no path exists; memory-bounded A*: its open
    list ran dry, which may also happen when a path exists); ``OUT_OF_BUDGET`` (the
    expansion budget ran out first).  ``cutoffs``: IDA*'s f cut-off of every iteration, in
    order (empty for memory-bounded A*); ``iterations`` is their number.  ``dropped``: nodes
    the memory-bounded A* discarded or evicted because its open list was full.
    """

    cutoffs: list[float] = field(default_factory=list)
    dropped: int = 0

    __eq__ = _fields_equal

    @property
    def iterations(self) -> int:
        return len(self.cutoffs)


def _setup(graph: Any, start: Any, goal: Any, heuristic: Any, max_expansions: Any
           ) -> tuple[int | None, Any, Any]:
    """The checked expansion budget, the goal test and the heuristic (checked >= 0 and
    computed once per node)."""
    limit = budget("max_expansions", max_expansions)
    _require_graph(graph)
    _hashable(start, "start")
    is_goal, goals = _goal_test(goal)
    h = _heuristic(graph, heuristic, goals)
    cache: dict[Any, float] = {}

    def value(node: Any) -> float:
        x = cache.get(node)
        if x is None:
            x = h(node)
            if not x >= 0:
                raise InvalidQueryError(
                    f"heuristic gave {x!r} for node {node!r}; it must be a number >= 0")
            cache[node] = x
        return x
    return limit, is_goal, value


def ida_star(graph: Any, start: Any, goal: Any, *, heuristic: Any = None,
             max_expansions: int | None = None) -> LowMemoryResult:
    """Iterative-deepening A*: depth-first searches bounded by a growing f cut-off.

    The first cut-off is h(start).  Each iteration walks every path from the start whose
    nodes all have f = g + h <= cut-off (successors in the graph's order, nodes already on
    the current path skipped, so cycles end); the next cut-off is the smallest f that
    exceeded the current one.  With an admissible h the first goal reached is optimal.
    When no f exceeded the cut-off the graph holds no path (status ``FAILED``).

    Memory: the current path and one successor list per node on it (no open or closed
    list).  Time: nodes are re-expanded in every iteration, and paths reaching a node in
    several ways are all walked: exponential in the worst case, so keep it for small or
    tree-like graphs.  The walk is iterative (an explicit stack), so deep graphs do not hit
    Python's recursion limit.  ``max_expansions`` bounds the total expansions over all
    iterations (status ``OUT_OF_BUDGET``).  ``stats.max_open`` is the longest path held.

    >>> from wayfinding import AdjacencyGraph
    >>> g = AdjacencyGraph.from_edges([("S", "A", 6), ("S", "B", 15), ("A", "D", 12),
    ...                                ("B", "D", 3), ("D", "G", 6)])
    >>> r = ida_star(g, "S", "G")
    >>> r.path, r.cost, r.cutoffs
    (['S', 'A', 'D', 'G'], 24.0, [0.0, 6.0, 15.0, 18.0, 24.0])
    """
    budget, is_goal, hval = _setup(graph, start, goal, heuristic, max_expansions)
    t0 = time.perf_counter()

    cutoffs: list[float] = []
    expanded = generated = max_depth = 0
    cutoff = hval(start)
    status = Status.FAILED
    path: list[Any] = []
    cost = math.inf
    while True:
        cutoffs.append(cutoff)
        generated += 1
        if is_goal(start):
            status, path, cost = Status.FOUND, [start], 0.0
            break
        next_cutoff = math.inf
        nodes = [start]
        costs = [0.0]
        on_path = {start}
        if budget is not None and expanded >= budget:
            status = Status.OUT_OF_BUDGET
            break
        stack = [iter(graph.successors(start))]
        expanded += 1
        found = False
        while stack and not found:
            u = nodes[-1]
            for v, c in stack[-1]:
                if v in on_path:
                    continue
                g = costs[-1] + edge_cost(u, v, c)
                f = g + hval(v)
                generated += 1
                if f > cutoff:
                    next_cutoff = min(next_cutoff, f)
                    continue
                nodes.append(v)
                costs.append(g)
                if is_goal(v):
                    found = True
                    break
                if budget is not None and expanded >= budget:
                    status = Status.OUT_OF_BUDGET
                    stack.clear()
                    break
                on_path.add(v)
                stack.append(iter(graph.successors(v)))
                expanded += 1
                max_depth = max(max_depth, len(nodes))
                break
            else:
                stack.pop()
                on_path.discard(nodes.pop())
                costs.pop()
        if found:
            status, path, cost = Status.FOUND, nodes, costs[-1]
            break
        if status is Status.OUT_OF_BUDGET or math.isinf(next_cutoff):
            break
        cutoff = next_cutoff
    stats = SearchStats(expanded=expanded, generated=generated, max_open=max_depth,
                        elapsed=time.perf_counter() - t0)
    return LowMemoryResult(path, cost, status is Status.FOUND, stats, "ida_star", status=status,
                           cutoffs=cutoffs)


def memory_bounded_astar(graph: Any, start: Any, goal: Any, *, max_open: int,
                         heuristic: Any = None,
                         max_expansions: int | None = None) -> LowMemoryResult:
    """A* whose open list never holds more than ``max_open`` nodes (the simple, lossy
    scheme; not Russell's SMA*).

    Open nodes are ordered by the key ``(f, -g, push order)``, as in :func:`astar`.  When a
    node is added to a full open list, the node with the largest key is dropped (which is
    the new node itself when its f exceeds every open node's f, or ties the largest and is
    not better by g) and forgotten, so it can be generated again later (a dropped node that
    was expanded before keeps its cost and parent, since its successors lead back through
    it).  The closed set is not bounded; closed nodes are reopened when reached more
    cheaply.  The result's cost is the sum of the cheapest edges along the returned path.

    **Neither complete nor optimal**: dropped nodes may be the only way to the goal, and
    then the search ends with status ``FAILED`` although a path exists; a found path may
    be longer than the optimum.  ``max_open=1`` is a greedy walk; with ``max_open`` at least
    the largest open list A* would need, the result is A*'s.  ``max_expansions`` bounds the
    expansions (status ``OUT_OF_BUDGET``).

    >>> from wayfinding import AdjacencyGraph
    >>> g = AdjacencyGraph.from_edges([("S", "A", 1), ("S", "B", 2), ("A", "X", 1),
    ...                                ("B", "G", 1)])
    >>> memory_bounded_astar(g, "S", "G", max_open=1).status   # B was dropped
    Status.FAILED
    >>> memory_bounded_astar(g, "S", "G", max_open=2).path
    ['S', 'B', 'G']
    """
    max_open = count("max_open", max_open)
    budget, is_goal, hval = _setup(graph, start, goal, heuristic, max_expansions)
    t0 = time.perf_counter()

    # ``open_keys`` is sorted on the negated key, so the best entry is last and the worst
    # first; ``open_key[node]`` finds a node's entry to replace it.
    open_keys: list[tuple[float, float, int, Any]] = []
    open_key: dict[Any, tuple[float, float, int, Any]] = {}
    g: dict[Any, float] = {start: 0.0}
    parent: dict[Any, Any] = {start: None}
    closed: set[Any] = set()
    ever_expanded: set[Any] = set()
    counter = 0
    expanded = generated = reopened = updated = dropped = 0
    peak = 1

    def push(node: Any, gn: float) -> None:
        nonlocal counter, dropped
        counter += 1
        entry = (-(gn + hval(node)), gn, -counter, node)
        bisect.insort(open_keys, entry, key=_sort_key)
        open_key[node] = entry
        if len(open_keys) > max_open:
            worst = open_keys.pop(0)
            del open_key[worst[3]]
            if worst[3] not in ever_expanded:
                del g[worst[3]], parent[worst[3]]
            dropped += 1

    push(start, 0.0)
    generated = 1
    status = Status.FAILED
    best = None
    while open_keys:
        entry = open_keys.pop()
        u = entry[3]
        del open_key[u]
        if is_goal(u):
            status, best = Status.FOUND, u
            break
        if budget is not None and expanded >= budget:
            status = Status.OUT_OF_BUDGET
            break
        closed.add(u)
        ever_expanded.add(u)
        expanded += 1
        gu = g[u]
        for v, c in graph.successors(u):
            ng = gu + edge_cost(u, v, c)
            if v in g and ng >= g[v]:
                continue
            if v in closed:
                closed.discard(v)
                reopened += 1
            elif v in open_key:
                old = open_key.pop(v)
                del open_keys[bisect.bisect_left(open_keys, _sort_key(old), key=_sort_key)]
                updated += 1
            g[v] = ng
            parent[v] = u
            generated += 1
            push(v, ng)
        peak = max(peak, len(open_keys))
    path: list[Any] = []
    cost = math.inf
    if best is not None:
        n = best
        while n is not None:
            path.append(n)
            n = parent[n]
        path.reverse()
        cost = sum(min(float(c) for v, c in graph.successors(a) if v == b)
                   for a, b in zip(path, path[1:]))
    stats = SearchStats(expanded=expanded, generated=generated, reopened=reopened,
                        updated=updated, max_open=peak, elapsed=time.perf_counter() - t0)
    return LowMemoryResult(path, cost, best is not None, stats, "memory_bounded_astar",
                           status=status, dropped=dropped)


def _sort_key(entry: tuple[float, float, int, Any]) -> tuple[float, float, int]:
    return entry[:3]


class _TreeNode:
    """A node of SMA*'s in-memory search tree (one path from the start to ``state``)."""

    __slots__ = ("state", "g", "f", "own_f", "depth", "parent", "slot", "succ", "known",
                 "children")

    def __init__(self, state: Any, g: float, f: float, depth: int, parent: Any, slot: int):
        self.state = state
        self.g = g
        self.f = f
        self.own_f = f
        self.depth = depth
        self.parent = parent
        self.slot = slot  # index in the parent's successor list
        self.succ: list[tuple[Any, float]] | None = None  # generated on first selection
        self.known: list[float | None] = []  # f of each successor: None until generated
        self.children: dict[int, _TreeNode] = {}  # successors held in memory, by index


def sma_star(graph: Any, start: Any, goal: Any, *, max_nodes: int, heuristic: Any = None,
             max_expansions: int | None = None) -> LowMemoryResult:
    """Russell's simplified memory-bounded A* (SMA*): a best-first tree search that holds
    at most ``max_nodes`` search nodes and forgets the worst ones.

    The search tree grows one successor at a time from the leaf of lowest f (deepest first
    on ties); a successor's f is ``max(parent's f, g + h)``.  When memory is full, the
    shallowest leaf of highest f is dropped and its f is kept by its parent, whose f is
    backed up to the smallest f of its successors once all were generated; a forgotten
    subtree is regenerated when its parent is again the best choice.  A node at depth
    ``max_nodes - 1`` that is not a goal cannot be extended in memory and gets f = inf.
    Nodes already on the path to a node are not generated again below it (no cycles).

    With an admissible heuristic it is **complete and optimal whenever some optimal path
    has at most** ``max_nodes`` **nodes** (both ends included); with less memory it
    returns the best path that fits, or status ``FAILED`` when none does.  Unlike
    :func:`memory_bounded_astar` it does not lose a path that fits in memory.  Each step
    scans the nodes in
    memory (O(max_nodes)), and forgotten parts are searched again: slow, for small
    memory budgets.  ``max_expansions`` bounds the successor generations.
    ``stats.max_open`` is the largest number of nodes held.

    >>> from wayfinding import AdjacencyGraph
    >>> g = AdjacencyGraph.from_edges([("S", "A", 1), ("S", "B", 2), ("A", "X", 1),
    ...                                ("B", "G", 1)])
    >>> r = sma_star(g, "S", "G", max_nodes=3)
    >>> r.path, r.cost
    (['S', 'B', 'G'], 3.0)
    """
    max_nodes = count("max_nodes", max_nodes, min=2)
    budget, is_goal, h = _setup(graph, start, goal, heuristic, max_expansions)
    t0 = time.perf_counter()
    root = _TreeNode(start, 0.0, h(start), 0, None, -1)
    memory: list[_TreeNode] = [root]
    expanded = generated = dropped = 0
    generated = 1
    peak = 1
    status = Status.FAILED
    best: _TreeNode | None = None
    while True:
        n = _best_candidate(memory, is_goal)
        if n is None or math.isinf(n.f):
            break
        if is_goal(n.state):
            status, best = Status.FOUND, n
            break
        if budget is not None and expanded >= budget:
            status = Status.OUT_OF_BUDGET
            break
        expanded += 1
        if n.succ is None:
            on_path = set()
            a: _TreeNode | None = n
            while a is not None:
                on_path.add(a.state)
                a = a.parent
            n.succ = [(v, edge_cost(n.state, v, c)) for v, c in graph.successors(n.state)
                      if v not in on_path]
            n.known = [None] * len(n.succ)
        i = _next_slot(n)
        if i is not None:
            v, c = n.succ[i]
            g = n.g + c
            f = max(n.f, g + h(v), n.known[i] or 0.0)
            generated += 1
            if n.depth + 1 >= max_nodes - 1 and not is_goal(v):
                n.known[i] = math.inf  # cannot be extended within memory
            else:
                if len(memory) >= max_nodes:
                    victim = _worst_leaf(memory, n)
                    memory.remove(victim)
                    parent = victim.parent
                    del parent.children[victim.slot]
                    parent.known[victim.slot] = victim.f
                    dropped += 1
                child = _TreeNode(v, g, f, n.depth + 1, n, i)
                n.children[i] = child
                n.known[i] = f
                memory.append(child)
                peak = max(peak, len(memory))
        _back_up(n)
    path: list[Any] = []
    cost = math.inf
    if best is not None:
        cost = best.g
        a = best
        while a is not None:
            path.append(a.state)
            a = a.parent
        path.reverse()
    stats = SearchStats(expanded=expanded, generated=generated, max_open=peak,
                        elapsed=time.perf_counter() - t0)
    return LowMemoryResult(path, cost, best is not None, stats, "sma_star", status=status,
                           dropped=dropped)


def _successor_f(node: _TreeNode, i: int) -> float | None:
    child = node.children.get(i)
    return child.f if child is not None else node.known[i]


def _next_slot(node: _TreeNode) -> int | None:
    """The successor to generate: the first never generated, else the forgotten one of
    lowest f (None when every successor is in memory or hopeless)."""
    best, best_f = None, math.inf
    for i, known in enumerate(node.known):
        if i in node.children:
            continue
        if known is None:
            return i
        if known < best_f:
            best, best_f = i, known
    return best


def _expandable(node: _TreeNode) -> bool:
    if node.succ is None:
        return True
    return any(i not in node.children and (k is None or not math.isinf(k))
               for i, k in enumerate(node.known))


def _best_candidate(memory: list[_TreeNode], is_goal: Any) -> _TreeNode | None:
    """The node of lowest f, deepest on ties (then the oldest), among the goals and the
    nodes with a successor still to generate."""
    best = None
    for node in memory:
        if not (is_goal(node.state) or _expandable(node)):
            continue
        if best is None or node.f < best.f or (node.f == best.f and node.depth > best.depth):
            best = node
    return best


def _worst_leaf(memory: list[_TreeNode], keep: _TreeNode) -> _TreeNode:
    """The leaf of highest f, shallowest on ties (then the newest), other than the root
    and ``keep``."""
    worst = None
    for node in memory:
        if node.children or node.parent is None or node is keep:
            continue
        if worst is None or node.f > worst.f or (node.f == worst.f and
                                                  node.depth <= worst.depth):
            worst = node
    if worst is None:  # pragma: no cover - excluded by the depth limit
        raise AssertionError("SMA*: no leaf to forget")
    return worst


def _back_up(node: _TreeNode | None) -> None:
    """Once all successors of a node were generated, its f is the smallest of theirs
    (never below its own); changes propagate to the ancestors."""
    while node is not None and node.succ is not None:
        values = []
        for i in range(len(node.succ)):
            v = _successor_f(node, i)
            if v is None:
                return
            values.append(v)
        new = max(node.own_f, min(values, default=math.inf))
        if new == node.f:
            return
        node.f = new
        node = node.parent
