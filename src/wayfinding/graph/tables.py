"""All-pairs distance and next-hop tables of a small :class:`CSRGraph`.

The tables answer a path query with no search: ``next[a, b]`` is the node to step to from
``a`` on an optimal path to ``b``, so the path is read by repeated look-ups in O(path
length).  ``dist[a, b]`` is the optimal cost (a perfect A* heuristic).

**Tie rule.**  Among the out-neighbours ``v`` of ``a`` whose move cost ``w(a, v) + dist[v,
b]`` equals the optimum (within a relative ``1e-12``, the rounding of the summed costs) and
whose ``dist[v, b]`` is below ``dist[a, b]``, the first move is the lowest node id ``v``.
Every move lowers the remaining cost, so repeated look-ups reach ``b`` (every sub-path of an
optimal path is optimal).  Zero-weight edges are refused, and so is a graph where from some
node no optimal move lowers the distance (its weights below the rounding of the distances):
a cycle of them would make the rule loop.

**Memory.**  ``8 n²`` bytes of float64 distances plus ``n²`` next-hop entries in the smallest
signed integer type that holds ``n - 1`` (int8, int16 or int32): about 1 GB at 10,000
nodes, hence the ``max_nodes`` guard.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np

from .. import _saved
from .._deprecated import positional_options, warn
from .._kernels import _tables
from ..errors import IndexFormatError, InvalidGridError
from ..results import PathResult, SearchStats
from .csr import CSRGraph, GraphIndex, _cheapest_edges

#: Default node limit of :meth:`CSRPathTable.build` (about 168 MB of tables at 4,096 nodes).
MAX_TABLE_NODES = 4096

#: Relative tolerance of the tie rule (move costs this close to the optimum are ties).
TIE_RTOL = 1e-12

#: Scratch elements per vectorised block of the next-hop extraction.
_BLOCK = 1 << 22


def next_dtype(n: int) -> np.dtype:
    """The smallest signed integer dtype holding node ids ``0..n-1`` and the sentinel -1."""
    for dt in (np.int8, np.int16, np.int32):
        if n - 1 <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def table_bytes(n: int) -> int:
    """Bytes of the flat tables of an ``n``-node graph: float64 distances + next hops."""
    return n * n * (8 + next_dtype(n).itemsize)


def first_moves(graph: CSRGraph, dist_to: np.ndarray, *, slots: bool = False) -> np.ndarray:
    """First moves of every node toward k goals, by the tie rule.

    ``dist_to``: ``(n, k)`` float64 costs d(x, goal_j) (inf: unreachable).  Returns ``(n, k)``
    int64: the chosen out-neighbour's node id (``slots=False``) or its position among the
    node's out-edges (``slots=True``); -1 where the goal is unreachable or is the node itself
    (d = 0).  A move must lower d, so the moves always lead to the goal: a node whose every
    optimal move keeps d (an edge weight below the rounding of d) raises
    :class:`InvalidGridError`.  Vectorised over blocks of edges; O(m k) time.
    """
    n, k = dist_to.shape
    out = np.full((n, k), -1, dtype=np.int64)
    deg = np.diff(graph.indptr)
    nodes = np.flatnonzero(deg)
    if not len(nodes) or not k:
        return out
    per = max(1, _BLOCK // max(k, 1))
    start = 0
    while start < len(nodes):
        # A block of whole nodes with about `per` edges in all.
        lo_edge = graph.indptr[nodes[start]]
        stop = int(np.searchsorted(graph.indptr[nodes + 1], lo_edge + per, side="right"))
        stop = max(stop, start + 1)
        block = nodes[start:stop]
        e0, e1 = int(graph.indptr[block[0]]), int(graph.indptr[block[-1] + 1])
        tgt = graph.indices[e0:e1].astype(np.int64)
        cand = graph.weights[e0:e1, None] + dist_to[tgt]
        heads = graph.indptr[block] - e0
        best = np.minimum.reduceat(cand, heads, axis=0)
        owner = np.repeat(np.arange(len(block)), deg[block])
        with np.errstate(invalid="ignore"):
            tie = cand <= best[owner] * (1 + TIE_RTOL)
        tie &= np.isfinite(cand) & (dist_to[tgt] < dist_to[block][owner])
        key = tgt * (1 << 20) + (np.arange(e0, e1) - graph.indptr[block][owner])
        big = np.iinfo(np.int64).max
        pick = np.minimum.reduceat(np.where(tie, key[:, None], big), heads, axis=0)
        found = pick != big
        move = np.where(slots, pick & ((1 << 20) - 1), pick >> 20)
        rows = out[block]
        rows[found] = move[found]
        rows[dist_to[block] == 0] = -1
        stuck = (rows < 0) & (dist_to[block] > 0) & np.isfinite(dist_to[block])
        if stuck.any():
            i, j = np.argwhere(stuck)[0]
            raise InvalidGridError(
                f"no step from node {int(block[i])} lowers its distance "
                f"{float(dist_to[block[i], j])!r} to a goal: edge weights below the rounding "
                "of the distances would make the moves loop")
        out[block] = rows
        start = stop
    return out


def check_positive(graph: CSRGraph, what: str) -> None:
    """Refuse zero-weight edges (zero-cost cycles would make first moves loop)."""
    if graph.num_edges and graph.weights.min() <= 0:
        e = int(np.argmin(graph.weights))
        raise InvalidGridError(f"{what} need positive edge weights; edge {e} has weight "
                               f"{graph.weights[e]}")


@positional_options("graph")
def check_tables(dist: np.ndarray, nxt: np.ndarray, *, graph: CSRGraph | None = None) -> None:
    """Check loaded ``(n, n)`` all-pairs tables, raising :class:`IndexFormatError`: ``dist``
    is 0 on the diagonal and ``next[a, a] == a``; ``next[a, b]`` is -1 exactly where
    ``dist[a, b]`` is inf, and otherwise a node ``v`` with ``dist[v, b] < dist[a, b]``, so a
    walk by next hops always ends at ``b``.  With ``graph``, moreover ``v`` is an
    out-neighbour of ``a`` with ``dist[a, b] = w(a, v) + dist[v, b]`` and no edge leads to a
    shorter distance, so the tables hold the shortest paths."""
    n = len(dist)
    ids = np.arange(n)
    if np.any(np.diag(dist) != 0) or np.any(nxt[ids, ids] != ids):
        raise IndexFormatError("the tables' diagonal must hold dist 0 and next[a, a] == a")
    if graph is not None:
        src = np.repeat(ids, np.diff(graph.indptr))
        _saved.triangle(dist.T, "dist (transposed)", graph.indices, src, graph.weights)
        s, t, w = _cheapest_edges(src, graph.indices.astype(np.int64), graph.weights)
        key = np.append(s * n + t, n * n)       # sorted; the sentinel exceeds every pair
        w = np.append(w, np.inf)
    rows = max(1, _BLOCK // max(n, 1))
    for r0 in range(0, n, rows):
        a = np.arange(r0, min(n, r0 + rows))[:, None]
        v = nxt[a[:, 0]].astype(np.int64)
        dab = dist[a[:, 0]]
        hop = a != ids[None, :]
        if np.any((v < 0) != (hop & np.isinf(dab))):
            raise IndexFormatError("array 'next' must be -1 exactly where dist is inf")
        hop &= v >= 0
        dvb = dist[np.where(hop, v, 0), ids[None, :]]
        ok = dvb < dab
        if graph is not None:
            pair = a * n + v
            at = np.searchsorted(key, pair)
            with np.errstate(invalid="ignore"):
                ok &= (key[at] == pair) & (np.abs(w[at] + dvb - dab) <= 1e-9 * dab)
        ok |= ~hop
        if not ok.all():
            i, b = np.argwhere(~ok)[0]
            raise IndexFormatError(
                f"array 'next' holds next[{r0 + i}, {b}] = {int(v[i, b])}, not a step on a "
                f"shortest path from {r0 + i} to {b} by the distances")


class CSRPathTable(GraphIndex):
    """Flat all-pairs tables of a :class:`CSRGraph` (directed allowed).

    ``arrays["dist"]``: ``(n, n)`` float64 ``dist[a, b]``, inf when ``b`` is unreachable.
    ``arrays["next"]``: ``(n, n)`` signed ints (:func:`next_dtype`): the first node after
    ``a`` on the tie-rule optimal path to ``b``; ``a`` itself when ``a == b``; -1 when
    unreachable.  Built with one compiled Dijkstra per source (O(n (m + n log n))) and a
    vectorised next-hop extraction (O(n m)).

    >>> g = CSRGraph.from_edges(4, [0, 0, 1, 2], [1, 2, 3, 3], [1.0, 1.0, 1.0, 1.0])
    >>> t = CSRPathTable.build(g)
    >>> t.next_hop(0, 3), t.distance(0, 3), t.find_path(0, 3).path.tolist()
    (1, 2.0, [0, 1, 3])
    >>> t.find_path(3, 0).found
    False
    """

    kind = "csr_path_table"
    version = 1
    algorithm: ClassVar[str] = "table"

    def __init__(self, graph: CSRGraph, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        super().__init__(graph, arrays, options, build_time)
        self._walker = _tables.NextTable(arrays["next"])

    @classmethod
    def build(cls, graph: CSRGraph, *, max_nodes: int = MAX_TABLE_NODES) -> CSRPathTable:
        """Build the tables; graphs with more than ``max_nodes`` nodes are refused
        (:func:`table_bytes` gives the memory; raise ``max_nodes`` to accept more)."""
        if not isinstance(graph, CSRGraph):
            raise InvalidGridError(f"path tables need a CSRGraph, got {type(graph).__name__}")
        n = graph.num_nodes
        if n > max_nodes:
            raise InvalidGridError(
                f"{n} nodes is more than max_nodes={max_nodes}: the tables would take "
                f"{table_bytes(n) / 1e6:.0f} MB (O(n²)); pass a larger max_nodes to accept it")
        check_positive(graph, "path tables")
        t0 = time.perf_counter()
        dist = np.empty((n, n))
        for s in range(n):
            dist[s] = graph.distances(s)
        nxt = first_moves(graph, dist)
        nxt[np.arange(n), np.arange(n)] = np.arange(n)
        arrays = {"dist": dist, "next": np.ascontiguousarray(nxt, dtype=next_dtype(n))}
        return cls(graph, arrays, {"max_nodes": int(max_nodes)}, time.perf_counter() - t0)

    @classmethod
    def _members(cls, graph: CSRGraph, options: dict[str, Any]) -> dict[str, int]:
        n = graph.num_nodes
        _saved.integer(_saved.option(options, "max_nodes"), "option max_nodes", max(n, 1))
        return {"dist": 8 * n * n, "next": next_dtype(n).itemsize * n * n}

    @classmethod
    def _restore(cls, graph: CSRGraph, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> CSRPathTable:
        n = graph.num_nodes
        d = _saved.costs(_saved.array(arrays, "dist", np.float64, (n, n)), "dist", inf=True)
        nx = _saved.values_in(_saved.array(arrays, "next", next_dtype(n), (n, n)), "next",
                               -1, n - 1)
        check_tables(d, nx, graph=graph)
        return cls(graph, {"dist": d, "next": nx}, options, build_time)

    @property
    def dist(self) -> np.ndarray:
        """``(n, n)`` float64 optimal costs."""
        return self.arrays["dist"]

    @property
    def next(self) -> np.ndarray:
        """``(n, n)`` next-hop node ids (-1 unreachable)."""
        return self.arrays["next"]

    def distance(self, a: Any, b: Any) -> float:
        """Optimal cost from ``a`` to ``b`` (inf when unreachable)."""
        node = self.graph._node
        return float(self.dist[node(a, name="start"), node(b, name="goal")])

    def next_hop(self, a: Any, b: Any) -> int:
        """The node to step to from ``a`` toward ``b`` (``a`` when equal, -1 unreachable)."""
        node = self.graph._node
        return int(self.next[node(a, name="start"), node(b, name="goal")])

    def path(self, start: Any, goal: Any) -> PathResult:
        """Deprecated name of :meth:`find_path`."""
        warn("CSRPathTable.path()", "CSRPathTable.find_path()")
        return self.find_path(start, goal)

    def find_path(self, start: Any, goal: Any) -> PathResult:
        """The optimal path by repeated look-ups (no search, compiled); ``path`` is ``(k,)`` int64
        node ids, ``cost`` the table distance, ``stats.expanded`` the number of look-ups."""
        t0 = time.perf_counter()
        s, g = self.graph._node(start, name="start"), self.graph._node(goal, name="goal")
        if not np.isfinite(self.dist[s, g]):
            return PathResult(np.empty(0, dtype=np.int64), float("inf"), False,
                              SearchStats(elapsed=time.perf_counter() - t0), self.algorithm)
        path = self._walker.walk(s, g)
        stats = SearchStats(expanded=len(path) - 1, elapsed=time.perf_counter() - t0)
        return PathResult(path, float(self.dist[s, g]), True, stats, self.algorithm)
