"""Differential heuristics ("Euclidean embeddings") for :class:`CSRGraph` A*.

Dijkstra distances from k pivot nodes give, by the triangle inequality, lower bounds on the
distance between any two nodes x and goal::

    d(x, goal) >= d(x, p) - d(goal, p)        d(x, goal) >= d(p, goal) - d(p, x)

A* takes the largest of these over the pivots and the Euclidean bound.  The bound is
admissible and consistent on directed graphs too, so both tables (to and from each pivot) are
kept; on a symmetric (undirected) graph they are equal and stored once.  A pivot that does not
reach the goal (or that the goal does not reach) gives no bound; a pivot that proves a node
cannot reach the goal lets the search drop that node.

Pivots are placed by farthest-point selection (:func:`select_pivots`) or given by the user.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _saved, _validate
from .._kernels._codes import DH_EPS  # bound margin: lowers each difference by DH_EPS * sum
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError
from ..results import PathResult
from .csr import CSRGraph, GraphIndex


def select_pivots(count: int, labels: np.ndarray,
                  flood: Callable[[int], np.ndarray]) -> list[int]:
    """Farthest-point pivot selection over ``n`` nodes.

    ``labels``: ``(n,)`` island ids (-1 for nodes that can never be pivots, e.g. blocked
    cells).  ``flood(node)``: ``(n,)`` distances from that node (inf where unreached); it is
    called at most twice per pivot, so callers may cache it to reuse the rows.

    The first pivot is the node farthest from a fixed node (the lowest-numbered) of the largest
    island.  Each next pivot is the node farthest from all pivots so far (largest minimum
    distance), unless some island holds no pivot yet and its extent (the largest distance from
    its fixed node) is larger than that minimum distance: then it goes to the farthest node of
    that island (the one with the most uncovered nodes).  Single-node islands have extent 0,
    so pivots are not spent on specks.  Selection stops early when every remaining candidate
    is at distance 0 (the map has fewer useful places than ``count``).  Ties go to the lowest
    node id, so the choice is deterministic.
    """
    usable = labels >= 0
    mind = np.where(usable, np.inf, -np.inf)
    pivots: list[int] = []
    extents: dict[int, tuple[int, float]] = {}
    while len(pivots) < count:
        uncovered = usable & np.isposinf(mind)
        island_pick = None
        if uncovered.any():
            counts = np.bincount(labels[uncovered])
            island = int(np.argmax(counts))
            members = uncovered & (labels == island)
            fixed = int(np.argmax(members))
            if fixed not in extents:
                d = flood(fixed)
                reach = np.where(members & np.isfinite(d), d, -1.0)
                far = int(np.argmax(reach))
                extents[fixed] = (far, float(reach[far]))
            island_pick = extents[fixed]
        covered = usable & np.isfinite(mind)
        far_pick = None
        if covered.any():
            score = np.where(covered, mind, -1.0)
            j = int(np.argmax(score))
            far_pick = (j, float(score[j]))
        if not pivots:
            pick = island_pick
        elif island_pick is not None and (far_pick is None or island_pick[1] >= far_pick[1]):
            pick = island_pick
        else:
            pick = far_pick
        if pick is None or (pivots and pick[1] <= 0.0):
            break
        pivots.append(pick[0])
        d = flood(pick[0])
        mind = np.where(usable, np.minimum(mind, d), -np.inf)
    return pivots


def pivot_count(value: Any) -> int:
    """Validate a requested number of pivots (an integer >= 1)."""
    return _validate.count("pivots", value)


class CSRDifferentialHeuristic(GraphIndex):
    """Pivot distance tables of a :class:`CSRGraph`, used by ``find_path(differential=)``.

    ``arrays["pivots"]``: ``(k,)`` int64 pivot node ids.  ``arrays["from_pivot"]``:
    ``(k, n)`` float64 d(p, x), inf where unreached.  ``arrays["to_pivot"]`` (directed graphs
    only): ``(k, n)`` float64 d(x, p).  Both are stored node-major (Fortran order).  Memory
    ``8 k n`` bytes (twice that when directed).

    >>> g = CSRGraph.from_edges(4, [0, 1, 2], [1, 2, 3], [1.0, 2.0, 3.0], directed=False)
    >>> dh = CSRDifferentialHeuristic.build(g, pivots=[0])
    >>> dh.heuristic(3, 1) == 6.0 * (1 - 1e-12) - 1.0 * (1 + 1e-12)
    True
    >>> r = g.find_path(0, 3, differential=dh)
    >>> r.algorithm, r.cost, r.stats.expanded
    ('astar_dh', 6.0, 4)
    """

    kind = "csr_differential"
    version = 1

    @classmethod
    def build(cls, graph: CSRGraph, *,
              pivots: int | Sequence[int] = 8) -> CSRDifferentialHeuristic:
        """Build the tables: ``pivots`` is the number of pivots to place by farthest-point
        selection (default 8; fewer on graphs with fewer useful places; islands are the weakly
        connected components, and on a directed graph the distance between a pivot and a node
        is the nearer of d(p, x) and d(x, p)) or a sequence of distinct node ids chosen by the
        user (e.g. entrances, bases, flag rooms).

        Cost: one Dijkstra per pivot (two on a directed graph) plus a few for the selection.
        """
        if not isinstance(graph, CSRGraph):
            raise InvalidGridError(f"a differential heuristic needs a CSRGraph, got "
                                   f"{type(graph).__name__}")
        t0 = time.perf_counter()
        symmetric = graph.is_symmetric
        back = None if symmetric else graph.reversed()
        rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}

        def tables(node: int) -> tuple[np.ndarray, np.ndarray]:
            if node not in rows:
                out = graph.distances(node)
                rows[node] = (out, out if back is None else back.distances(node))
            return rows[node]

        if isinstance(pivots, (int, np.integer)) and not isinstance(pivots, bool):
            count = pivot_count(pivots)
            labels = np.asarray(graph.weak_components, dtype=np.int64)
            chosen = select_pivots(count, labels,
                                   lambda v: np.minimum(*tables(v)))
            options: dict[str, Any] = {"pivots": count}
        else:
            chosen = _node_list(graph, pivots)
            options = {"pivots": chosen}
        n = graph.num_nodes
        arrays: dict[str, np.ndarray] = {"pivots": np.array(chosen, dtype=np.int64)}
        # Node-major memory (a node's k distances side by side): the search reads all k for
        # each node it generates.
        frm = np.empty((n, len(chosen)))
        to = None if symmetric else np.empty((n, len(chosen)))
        for i, p in enumerate(chosen):
            f, t = tables(p)
            frm[:, i] = f
            if to is not None:
                to[:, i] = t
        arrays["from_pivot"] = frm.T
        if to is not None:
            arrays["to_pivot"] = to.T
        options["symmetric"] = bool(symmetric)
        return cls(graph, arrays, options, time.perf_counter() - t0)

    @classmethod
    def _members(cls, graph: CSRGraph, options: dict[str, Any]) -> dict[str, int]:
        given = _saved.option(options, "pivots")
        if isinstance(given, list):
            if not given or not all(isinstance(v, int) and not isinstance(v, bool)
                                    and 0 <= v < graph.num_nodes for v in given):
                raise IndexFormatError(f"option pivots {given!r} must be a count or a "
                                       "non-empty list of node ids")
            k = len(given)
        else:
            k = _saved.integer(given, "option pivots", 1, max(graph.num_nodes, 1))
        symmetric = _saved.option(options, "symmetric")
        if symmetric is not graph.is_symmetric:
            raise IndexFormatError(f"option symmetric {symmetric!r} does not match the graph "
                                   f"(symmetric: {graph.is_symmetric})")
        out = {"pivots": 8 * k, "from_pivot": 8 * k * graph.num_nodes}
        if not symmetric:
            out["to_pivot"] = out["from_pivot"]
        return out

    @classmethod
    def _restore(cls, graph: CSRGraph, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> CSRDifferentialHeuristic:
        n = graph.num_nodes
        piv = _saved.array(arrays, "pivots", np.int64, (None,))
        k = len(piv)
        given = options["pivots"]
        if isinstance(given, list):
            _saved.equal(piv, np.array(given, dtype=np.int64), "pivots",
                          "the pivots of the options")
        elif not 1 <= k <= given:
            raise IndexFormatError(f"array 'pivots' holds {k} pivots; the options ask for "
                                   f"1 to {given}")
        _saved.values_in(piv, "pivots", 0, n - 1)
        if len(np.unique(piv)) != k:
            raise IndexFormatError(f"array 'pivots' repeats a node: {piv.tolist()}")
        src = np.repeat(np.arange(n), np.diff(graph.indptr))
        out = {"pivots": piv}
        # Distances from (to) a pivot grow by at most an edge's cost along (against) it:
        # then the bound is admissible and consistent, whatever else the file holds.
        for name, a, b in (("from_pivot", src, graph.indices), ("to_pivot", graph.indices, src)):
            if name == "to_pivot" and options["symmetric"]:
                continue
            d = _saved.costs(_saved.array(arrays, name, np.float64, (k, n)), name, inf=True)
            if np.any(d[np.arange(k), piv] != 0):
                raise IndexFormatError(f"array {name!r} does not give 0 at each pivot")
            out[name] = np.asfortranarray(_saved.triangle(d, name, a, b, graph.weights))
        return cls(graph, out, options, build_time)

    @property
    def pivots(self) -> np.ndarray:
        """``(k,)`` int64 pivot node ids."""
        return self.arrays["pivots"]

    @property
    def from_pivot(self) -> np.ndarray:
        """``(k, n)`` float64 d(p, x)."""
        return self.arrays["from_pivot"]

    @property
    def to_pivot(self) -> np.ndarray:
        """``(k, n)`` float64 d(x, p) (the same array as ``from_pivot`` when symmetric)."""
        return self.arrays.get("to_pivot", self.arrays["from_pivot"])

    def heuristic(self, node: Any, goal: Any) -> float:
        """The differential bound on d(node, goal) alone (without the Euclidean one), as the
        search uses it: inf when a pivot proves the goal unreachable from ``node``."""
        x, g = self.graph._node(node, name="node"), self.graph._node(goal, name="goal")
        return float(self.heuristic_map(g)[x])

    def heuristic_map(self, goal: Any) -> np.ndarray:
        """``(n,)`` float64 bound on d(x, goal) for every node x (see :meth:`heuristic`)."""
        g = self.graph._node(goal, name="goal")
        best = np.zeros(self.graph.num_nodes)
        with np.errstate(invalid="ignore"):
            for to, frm in zip(self.to_pivot, self.from_pivot):
                if np.isfinite(to[g]):
                    best = np.maximum(best, to * (1 - DH_EPS) - to[g] * (1 + DH_EPS))
                if np.isfinite(frm[g]):
                    best = np.maximum(best, frm[g] * (1 - DH_EPS) - frm * (1 + DH_EPS))
        return best

    def find_path(self, start: Any, goal: Any, *, record: bool = False,
                  bounds: Any = None) -> PathResult:
        """A* on the graph with this heuristic (``algorithm`` ``"astar_dh"``); ``bounds``
        adds goal-bounding pruning."""
        return self.graph.find_path(start, goal, record=record, differential=self,
                                    bounds=bounds)


def _node_list(graph: CSRGraph, values: Any) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise InvalidQueryError(f"pivots {values!r} must be an integer >= 1 or a sequence "
                                "of node ids")
    nodes = [graph._node(v, name="pivot") for v in list(values)]
    if not nodes:
        raise InvalidQueryError("pivots is empty; give at least one node")
    if len(set(nodes)) != len(nodes):
        raise InvalidQueryError(f"pivots {nodes} repeat a node")
    return nodes
