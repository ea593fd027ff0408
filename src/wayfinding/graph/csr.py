"""Graphs in compressed sparse row form, searched by compiled A* and Dijkstra, and the base of
their preprocessed indexes (differential heuristics, goal bounds)."""

from __future__ import annotations

import hashlib
import math
import time
import warnings
from functools import cached_property
from typing import Any, ClassVar, cast

import numpy as np

from .._deprecated import positional_options, renamed_keywords
from .._index import Index, check_world
from .._kernels import _codes, _csrsearch
from .._kernels._workspace import Workspace
from .._scratch import thread_workspace
from .._validate import MAX_COST, finite_float, flag
from ..errors import InvalidGridError, InvalidQueryError, brief
from ..results import PathResult, SearchStats
from ..sliced import SlicedSearch
from . import constrained as _constrained  # a module reference: it builds on this one

# Counters of the compiled run, in the order of its ``counters``.
_COUNTERS = ("expanded", "generated", "max_open")


class CSRGraph:
    """A directed graph of ``n`` integer nodes ``0..n-1`` in CSR arrays.

    ``indptr``: ``(n + 1,)`` int64; node u's edges are ``indptr[u]:indptr[u + 1]``.
    ``indices``: ``(m,)`` int32 edge targets.  ``weights``: ``(m,)`` float64 costs, finite and
    >= 0.  ``coords``: optional ``(n, 2)`` or ``(n, 3)`` float64 node positions; with them, A*
    uses the Euclidean distance scaled by the smallest cost per unit length over all edges,
    which keeps it admissible and consistent for any weights.

    >>> g = CSRGraph.from_edges(3, [0, 1], [1, 2], [2.0, 3.0])
    >>> r = g.find_path(0, 2)
    >>> r.path.tolist(), r.cost
    ([0, 1, 2], 5.0)
    """

    def __init__(self, indptr: Any, indices: Any, weights: Any, *, coords: Any = None):
        ip = _integers(indptr, "indptr")
        ix = np.asarray(indices)
        w = np.asarray(weights)
        if ip.ndim != 1 or len(ip) < 1 or ip[0] != 0 or np.any(np.diff(ip) < 0):
            raise InvalidGridError("indptr must be a non-decreasing 1D array starting at 0")
        n = len(ip) - 1
        if n >= 2**31 - 1:
            raise InvalidGridError(f"{n} nodes is too many (2**31 - 2 max)")
        if ix.ndim != 1 or w.ndim != 1 or len(ix) != ip[-1] or len(w) != ip[-1]:
            raise InvalidGridError(
                f"indices {ix.shape} and weights {w.shape} must both have indptr[-1] = "
                f"{int(ip[-1])} entries")
        if len(ix) and not np.issubdtype(ix.dtype, np.integer):
            raise InvalidGridError(f"indices must be integers, got {ix.dtype}")
        if len(ix) and (ix.min() < 0 or ix.max() >= n):
            raise InvalidGridError(f"edge target out of range 0..{n - 1}")
        w = _reals(w, "weights")
        if len(w) and not (np.all(w >= 0) and w.max() <= 2 * MAX_COST):   # NaN fails both
            bad = int(np.flatnonzero(~((w >= 0) & (w <= 2 * MAX_COST)))[0])
            raise InvalidGridError(
                f"edge {bad} has weight {w[bad]}; weights must be >= 0 and at most "
                f"{2 * MAX_COST:g}")
        self.indptr = ip
        self.indices = np.ascontiguousarray(ix, dtype=np.int32)
        self.weights = w
        self._coords = np.empty((0, 2), dtype=np.float64)
        self._hscale = 0.0
        if coords is not None:
            xy = _reals(coords, "coords")
            if xy.ndim != 2 or xy.shape[0] != n or xy.shape[1] not in (2, 3):
                raise InvalidGridError(f"coords must have shape ({n}, 2) or ({n}, 3), "
                                       f"got {xy.shape}")
            if not np.all(np.isfinite(xy)):
                raise InvalidGridError("coords contain NaN or infinity")
            self._coords = xy
            src = np.repeat(np.arange(n), np.diff(ip))
            d = xy[self.indices] - xy[src]
            length = np.hypot(d[:, 0], d[:, 1])      # no squares: they overflow beyond 1e154
            if d.shape[1] == 3:
                length = np.hypot(length, d[:, 2])
            ratio = self.weights[length > 0] / length[length > 0]
            self._hscale = float(ratio.min()) if ratio.size else 0.0
        for arr in (self.indptr, self.indices, self.weights, self._coords):
            arr.flags.writeable = False

    @classmethod
    def _trusted(cls, indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray,
                 coords: np.ndarray, hscale: float) -> CSRGraph:
        """A graph on arrays the library built and checked itself, shared as they are (no
        copy, no check, no O(edges) pass): ``indptr`` int64, ``indices`` int32, ``weights``
        float64 >= 0 (``inf``: an edge no finite path takes; a goal reached only through
        one has cost ``inf``), ``coords`` ``(n, 2)`` float64 (or ``(0, 2)``) and the
        heuristic scale ``hscale`` (an admissible one for these weights, 0 for none)."""
        g = cls.__new__(cls)
        g.indptr, g.indices, g.weights = indptr, indices, weights
        g._coords, g._hscale = coords, float(hscale)
        return g

    @classmethod
    def from_edges(cls, n: int, sources: Any, targets: Any, weights: Any, *,
                   directed: bool = True, coords: Any = None) -> CSRGraph:
        """Build from parallel arrays of edges; ``directed=False`` adds each edge both ways.
        Edges keep their input order within a node (stable sort)."""
        directed = flag("directed", directed, error=InvalidGridError)
        s = _integers(sources, "sources").ravel()
        t = _integers(targets, "targets").ravel()
        w = _reals(weights, "weights").ravel()
        if not (len(s) == len(t) == len(w)):
            raise InvalidGridError(
                f"sources ({len(s)}), targets ({len(t)}) and weights ({len(w)}) differ in length")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise InvalidGridError(f"n {n!r} must be an integer >= 0")
        if len(s) and (min(s.min(), t.min()) < 0 or max(s.max(), t.max()) >= n):
            raise InvalidGridError(f"edge endpoint out of range 0..{n - 1}")
        if not directed:
            s, t, w = np.concatenate([s, t]), np.concatenate([t, s]), np.concatenate([w, w])
        order = np.argsort(s, kind="stable")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(s, minlength=n), out=indptr[1:])
        return cls(indptr, t[order], w[order], coords=coords)

    @classmethod
    def from_grid(cls, grid: Any) -> CSRGraph:
        """Deprecated: use ``grid.to_csr()`` (:meth:`wayfinding.grid.Grid.to_csr`)."""
        warnings.warn("CSRGraph.from_grid(grid) is deprecated; use grid.to_csr()",
                      DeprecationWarning, stacklevel=2)
        return grid.to_csr()

    @property
    def num_nodes(self) -> int:
        return len(self.indptr) - 1

    @property
    def num_edges(self) -> int:
        return len(self.indices)

    @property
    def coords(self) -> np.ndarray | None:
        return self._coords if len(self._coords) else None

    def __repr__(self) -> str:
        return f"CSRGraph({self.num_nodes} nodes, {self.num_edges} edges)"

    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 of indptr, indices, weights and coords: identifies the graph for indexes."""
        h = hashlib.sha256()
        h.update(f"csr|{self.num_nodes}|{self.num_edges}|{self._coords.shape}|".encode())
        for arr in (self.indptr, self.indices, self.weights, self._coords):
            h.update(arr.tobytes())
        return h.hexdigest()

    @cached_property
    def is_symmetric(self) -> bool:
        """True when every edge u -> v has a reverse edge v -> u of the same cost (after
        reducing parallel edges to the cheapest), i.e. the graph is undirected."""
        src = np.repeat(np.arange(self.num_nodes, dtype=np.int64), np.diff(self.indptr))
        fwd = _cheapest_edges(src, self.indices.astype(np.int64), self.weights)
        bwd = _cheapest_edges(self.indices.astype(np.int64), src, self.weights)
        return all(np.array_equal(a, b) for a, b in zip(fwd, bwd))

    def reversed(self) -> CSRGraph:
        """The graph with every edge turned around (same nodes, costs and coords)."""
        src = np.repeat(np.arange(self.num_nodes, dtype=np.int64), np.diff(self.indptr))
        return CSRGraph.from_edges(self.num_nodes, self.indices, src, self.weights,
                                   coords=self.coords)

    @cached_property
    def weak_components(self) -> np.ndarray:
        """``(n,)`` int32 component ids, edges taken both ways, numbered in order of each
        component's smallest node."""
        out = np.empty(self.num_nodes, dtype=np.int32)
        _csrsearch.weak_components(self.indptr, self.indices, out)
        out.flags.writeable = False
        return out

    def node(self, value: Any, *, name: str = "node") -> int:
        """Validate a node id; raises :class:`InvalidQueryError` naming the value."""
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InvalidQueryError(f"{name} {value!r} must be an integer node id")
        if not 0 <= value < self.num_nodes:
            raise InvalidQueryError(f"{name} {value} is outside 0..{self.num_nodes - 1}")
        return int(value)

    #: :meth:`node` without the check for an old positional ``name``: the library's own
    #: per-query checks, which give ``name`` by keyword.
    _node = node
    node = positional_options("name")(node)

    # Graph protocol
    def successors(self, node: int) -> list[tuple[int, float]]:
        u = self._node(node)
        lo, hi = self.indptr[u], self.indptr[u + 1]
        return list(zip(self.indices[lo:hi].tolist(), self.weights[lo:hi].tolist()))

    @property
    def heuristic_scale(self) -> float:
        """The factor on Euclidean distance that :meth:`heuristic` uses (0 without
        coordinates): the lowest ratio of an edge's weight to its length."""
        return float(self._hscale)

    def heuristic(self, node: int, goal: int) -> float:
        """Scaled Euclidean distance between node coordinates (0 without coords)."""
        a, b = self._node(node), self._node(goal, name="goal")
        if not self._hscale:
            return 0.0
        d = [p - q for p, q in zip(self._coords[a].tolist(), self._coords[b].tolist())]
        return self._hscale * math.hypot(*d)      # no squares: they overflow beyond 1e154

    @renamed_keywords(algo="method")
    def find_path(self, start: Any, goal: Any, *, method: str = "astar", record: bool = False,
                  differential: Any = None, bounds: Any = None,
                  zones: Any = None, constraints: Any = None, t: float = 0.0) -> PathResult:
        """Compiled A* (``"astar"``) or Dijkstra (``"dijkstra"``) from start to goal.
        ``path`` is an ``(n,)`` int64 array of node ids.

        ``differential``: a :class:`~wayfinding.graph.differential.CSRDifferentialHeuristic`
        of this graph (A* only): h becomes the larger of the Euclidean and the pivot bound.
        ``bounds``: a :class:`~wayfinding.graph.goal_bounds.CSRGoalBounds` of this graph: an
        edge is followed only when the goal lies in its box.  ``zones``: a
        :class:`~wayfinding.graph.zone_tables.CSRZoneTable` of this graph (A* only): h is
        raised to the cluster bound, and closed nodes are reopened since that bound is not
        consistent.  All keep the search optimal; the algorithm is reported with ``_dh`` /
        ``_gb`` / ``_zones`` appended.  An index built for
        another graph raises :class:`IndexMismatchError`.

        ``constraints``: a :class:`~wayfinding.constraints.ConstraintSet` whose multiplier
        field at time ``t`` (seconds) multiplies each edge's weight (the mean at four samples
        along the straight segment between its nodes' coords), hard constraints forbidding
        the edges that cross them; the search runs on :attr:`constraint_domain` and returns
        a :class:`~wayfinding.graph.constrained.ConstrainedPath` (``path`` and ``nodes``
        the node ids; no path when an end node lies in a hard constraint).  It needs
        ``(n, 2)`` coords and takes none of the other options.
        """
        record = flag("record", record)
        if constraints is not None:
            if record or differential is not None or bounds is not None or zones is not None:
                raise InvalidQueryError("constraints cannot be combined with record, "
                                        "differential, bounds or zones")
            return self._constrained_path(start, goal, method, constraints, t)
        t0 = time.perf_counter()
        ws = thread_workspace(self.num_nodes)
        run, finish, _ = self._begin(start, goal, method, record, differential, bounds, zones, ws)
        found = run.advance() == _codes.FOUND
        exp, gen, mo = run.counters
        return finish(found, SearchStats(expanded=exp, generated=gen, max_open=mo,
                                         elapsed=time.perf_counter() - t0))

    @cached_property
    def constraint_domain(self) -> _constrained.ConstraintDomain:
        """The graph as a :class:`~wayfinding.graph.constrained.ConstraintDomain`: its nodes
        as states at their ``(n, 2)`` coords, its edges (those of finite weight) as
        transitions with their weights as base costs.  A graph without coords, or with
        ``(n, 3)`` ones, raises :class:`InvalidQueryError` (constraints live on a plane)."""
        if self.coords is None or self._coords.shape[1] != 2:
            raise InvalidQueryError(f"constraints need (n, 2) node coords; this graph has "
                                    f"{'none' if self.coords is None else self._coords.shape}")
        src = np.repeat(np.arange(self.num_nodes), np.diff(self.indptr))
        ok = np.isfinite(self.weights)
        edges = np.stack([src[ok], self.indices[ok]], 1)
        return _constrained.ConstraintDomain(self._coords, edges, self.weights[ok])

    def _constrained_path(self, start: Any, goal: Any, method: str, constraints: Any,
                          t: float) -> PathResult:
        """:meth:`find_path` under ``constraints`` at time ``t``."""
        t0 = time.perf_counter()
        s, g = self._node(start, name="start"), self._node(goal, name="goal")
        if method not in ("astar", "dijkstra"):
            raise InvalidQueryError(f"unknown method {method!r} for CSRGraph; "
                                    "expected 'astar' or 'dijkstra'")
        field = _constrained.checked(constraints)
        t = finite_float("t", t)
        domain = self.constraint_domain
        name = f"{method}_{domain.kind}"
        if field is not None and np.isinf(field.multiplier(domain.points[[s, g]], t=t)).any():
            r = PathResult(np.empty(0, dtype=np.int64), math.inf, False)   # in a hard one
        else:
            r = domain._search(s, g, field, t, method)
        stats = SearchStats(expanded=r.stats.expanded, generated=r.stats.generated,
                            max_open=r.stats.max_open, elapsed=time.perf_counter() - t0)
        nodes = np.asarray(r.path, dtype=np.int64) if r.found else np.empty(0, dtype=np.int64)
        return _constrained.ConstrainedPath(path=nodes, found=r.found, stats=stats,
                                            cost=float(r.cost) if r.found else math.inf,
                                            algorithm=name, nodes=nodes)

    @renamed_keywords(algo="method")
    def start(self, start: Any, goal: Any, *, method: str = "astar", record: bool = False,
              differential: Any = None, bounds: Any = None, zones: Any = None,
              workspace: Any = None) -> SlicedSearch:
        """Begin a search to run in slices (see :mod:`wayfinding.sliced`); options as
        :meth:`find_path`, and the same result.  ``workspace``: scratch of at least
        :attr:`num_nodes` nodes (a :class:`~wayfinding.Workspace`) to reuse; by default the
        search gets its own.  A query started on that workspace before the search ends makes
        it refuse to step on.

        >>> g = CSRGraph.from_edges(3, [0, 1], [1, 2], [2.0, 3.0])
        >>> search = g.start(0, 2)
        >>> search.step(max_expansions=1), search.step()
        (Status.RUNNING, Status.FOUND)
        >>> search.result().path.tolist()
        [0, 1, 2]
        """
        t0 = time.perf_counter()
        record = flag("record", record)
        if workspace is None:
            workspace = Workspace(self.num_nodes)
        elif not isinstance(workspace, Workspace) or workspace.size < self.num_nodes:
            raise InvalidQueryError(f"workspace must be a Workspace of at least "
                                    f"{self.num_nodes} nodes, got {workspace!r}")
        run, finish, name = self._begin(start, goal, method, record, differential, bounds, zones,
                                        workspace)
        return SlicedSearch(run, finish, name, _COUNTERS, setup=time.perf_counter() - t0)

    def _begin(self, start: Any, goal: Any, method: str, record: bool, differential: Any,
               bounds: Any, zones: Any, ws: Any) -> tuple:
        """Check a query and set up its compiled search: ``(run, finish, name)``."""
        s, g = self._node(start, name="start"), self._node(goal, name="goal")
        if method not in ("astar", "dijkstra"):
            raise InvalidQueryError(f"unknown method {method!r} for CSRGraph; "
                                    "expected 'astar' or 'dijkstra'")
        extra: dict[str, np.ndarray] = {}
        name = method
        if differential is not None:
            self._check_index(differential, "csr_differential", "differential")
            if method != "astar":
                raise InvalidQueryError(
                    f"a differential heuristic needs method='astar', not {method!r}")
            extra["to_pivot"] = differential.to_pivot
            extra["from_pivot"] = differential.from_pivot
            name += "_dh"
        if zones is not None:
            self._check_index(zones, "csr_zones", "zones")
            if method != "astar":
                raise InvalidQueryError(f"a zone heuristic needs method='astar', not {method!r}")
            extra["zone"] = zones.zone
            extra["zone_table"] = zones.zone_dist
            name += "_zones"
        if bounds is not None:
            self._check_index(bounds, "csr_goal_bounds", "bounds")
            extra["boxes"] = bounds.boxes
            name += "_gb"
        hscale = self._hscale if method == "astar" else 0.0
        run = _csrsearch.CSRRun(ws, self.indptr, self.indices, self.weights, self._coords, s,
                                g, hscale, record, **extra)

        def finish(found: bool, stats: SearchStats) -> PathResult:
            path = ws.path_to(g) if found else np.empty(0, dtype=np.int64)
            if record:
                return PathResult(path, run.cost, found, stats, name, ws.recorded(),
                                  ws.open_nodes())
            return PathResult(path, run.cost, found, stats, name)

        return run, finish, name

    def _check_index(self, index: Any, kind: str, name: str) -> None:
        if not isinstance(index, GraphIndex) or index.kind != kind:
            raise InvalidQueryError(f"{name} must be a {kind} index, got "
                                    f"{type(index).__name__}")
        check_world(f"the {kind} index", index.graph, self)

    def distances(self, source: Any) -> np.ndarray:
        """Dijkstra costs from ``source`` to every node: ``(n,)`` float64, ``inf`` unreached."""
        s = self._node(source, name="source")
        ws = thread_workspace(self.num_nodes)
        _csrsearch.search(ws, self.indptr, self.indices, self.weights, self._coords, s, -1,
                          0.0, False)
        out = np.full(self.num_nodes, np.inf)
        _csrsearch.distances(ws, out)
        return out

    def to_scipy(self) -> Any:
        """The graph as a ``scipy.sparse.csr_array`` (needs scipy); parallel edges are
        reduced to their minimum."""
        from scipy import sparse

        n = self.num_nodes
        src = np.repeat(np.arange(n), np.diff(self.indptr))
        order = np.lexsort((self.weights, self.indices, src))
        key = src[order] * n + self.indices[order]
        first = np.ones(len(key), dtype=bool)
        first[1:] = key[1:] != key[:-1]
        keep = order[first]
        return sparse.csr_array((self.weights[keep], (src[keep], self.indices[keep])),
                                shape=(n, n))


def _cheapest_edges(src: np.ndarray, dst: np.ndarray,
                    w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edges sorted by (src, dst), parallel edges reduced to the cheapest."""
    order = np.lexsort((w, dst, src))
    s, d, c = src[order], dst[order], w[order]
    first = np.ones(len(s), dtype=bool)
    first[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    return s[first], d[first], c[first]


#: Every graph index kind by name, filled as the subclasses are defined.
GRAPH_INDEX_KINDS: dict[str, type[GraphIndex]] = {}


class GraphIndex(Index):
    """Base of the preprocessed :class:`CSRGraph` indexes: arrays and options saved to a
    versioned ``.npz`` with the graph's fingerprint (SHA-256 of indptr, indices, weights and
    coords), refused for another graph."""

    # The registry only ever receives GraphIndex subclasses (``Index.__init_subclass__``).
    kinds: ClassVar[dict[str, type[Index]]] = cast("dict[str, type[Index]]", GRAPH_INDEX_KINDS)
    world_type = CSRGraph
    world_name = "graph"

    @property
    def graph(self) -> CSRGraph:
        """The graph the index was built for."""
        return self.world

    @staticmethod
    def describe_world(world: CSRGraph) -> dict[str, Any]:
        return {"nodes": world.num_nodes, "edges": world.num_edges}


def _reals(values: Any, name: str) -> np.ndarray:
    """``values`` as a C-contiguous float64 array; :class:`InvalidGridError` unless they
    are real numbers (bools count as numbers here, as in numpy)."""
    try:
        arr = np.asarray(values)
        if arr.dtype.kind not in "biuf":
            raise TypeError
        return np.ascontiguousarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidGridError(f"{name} must be real numbers, got {brief(values)}") from None

def _integers(values: Any, name: str) -> np.ndarray:
    """``values`` as int64, refusing anything that is not already integer-typed."""
    arr = np.asarray(values)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise InvalidGridError(f"{name} must be integers, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)
