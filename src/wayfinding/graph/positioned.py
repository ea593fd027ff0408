"""The shared base of graphs whose nodes sit at world points (waypoints, Dirichlet domains,
points of visibility, roadmaps): quantize/localize, conversion to :class:`CSRGraph` and path
finding between world points through the compiled search."""

from __future__ import annotations

import time
from functools import cached_property
from typing import Any

import numpy as np

from .._deprecated import positional_options, renamed_keywords
from ..errors import InvalidGridError, InvalidQueryError
from ..geometry.nearest import PointIndex
from ..geometry.obstacles import Obstacles, as_points, check_radius
from ..results import PathResult, SearchStats
from .constrained import ConstraintDomain
from .csr import CSRGraph


class PositionedGraph:
    """An undirected graph of ``n`` nodes at world positions, with optional obstacles.

    ``positions``: ``(n, 2)`` float64 world points.  ``edges``: ``(k, 2)`` int node pairs,
    each an undirected link; self-loops and duplicates are dropped, pairs stored ``i < j``
    sorted.  ``weights``: ``(k,)`` link costs (default: the Euclidean length, world units).
    ``obstacles`` and ``radius`` (agent radius, world units, >= 0) are what links and queries
    are checked against.  Nodes are ``0..n-1`` in the order of ``positions``.
    """

    #: How :meth:`find_path` joins its end points to the graph by default ("quantize" or
    #: "connect"); subclasses choose.
    default_join = "quantize"

    def __init__(self, positions: Any, edges: Any = (), *, weights: Any = None,
                 obstacles: Obstacles | None = None, radius: float = 0.0):
        pos = as_points(positions, "positions") if len(np.asarray(positions)) else \
            np.empty((0, 2))
        e = np.asarray(edges)
        if e.size == 0:
            e = np.empty((0, 2), dtype=np.int64)
        if e.ndim != 2 or e.shape[1] != 2 or not np.issubdtype(e.dtype, np.integer):
            raise InvalidGridError(f"edges must be an (k, 2) integer array, got {e.shape} "
                                   f"{e.dtype}")
        if len(e) and (e.min() < 0 or e.max() >= len(pos)):
            raise InvalidGridError(f"an edge names a node outside 0..{len(pos) - 1}")
        if obstacles is not None and not isinstance(obstacles, Obstacles):
            raise InvalidGridError(f"obstacles must be an Obstacles, got "
                                   f"{type(obstacles).__name__}")
        e = np.sort(e.astype(np.int64), axis=1)
        if weights is None:
            w = np.hypot(*(pos[e[:, 1]] - pos[e[:, 0]]).T) if len(e) else np.empty(0)
        else:
            w = np.asarray(weights, dtype=np.float64).ravel()
            if len(w) != len(e):
                raise InvalidGridError(f"{len(w)} weights for {len(e)} edges")
            if len(w) and (not np.all(np.isfinite(w)) or w.min() < 0):
                raise InvalidGridError("edge weights must be finite and >= 0")
        keep = e[:, 0] != e[:, 1]
        e, w = e[keep], w[keep]
        order = np.lexsort((w, e[:, 1], e[:, 0]))
        e, w = e[order], w[order]
        first = np.ones(len(e), dtype=bool)
        first[1:] = np.any(e[1:] != e[:-1], axis=1)
        self._positions = pos
        self._edges, self._weights = e[first], w[first]
        self._obstacles = obstacles if obstacles is not None else Obstacles()
        self._radius = check_radius(radius)
        for arr in (self._positions, self._edges, self._weights):
            arr.flags.writeable = False

    @property
    def positions(self) -> np.ndarray:
        """``(n, 2)`` float64 node positions (read-only)."""
        return self._positions

    @property
    def edges(self) -> np.ndarray:
        """``(k, 2)`` int64 undirected links ``i < j``, sorted (read-only)."""
        return self._edges

    @property
    def weights(self) -> np.ndarray:
        """``(k,)`` float64 link costs, parallel to :attr:`edges`."""
        return self._weights

    @property
    def obstacles(self) -> Obstacles:
        return self._obstacles

    @property
    def radius(self) -> float:
        return self._radius

    @property
    def num_nodes(self) -> int:
        return len(self._positions)

    @property
    def num_edges(self) -> int:
        return len(self._edges)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.num_nodes} nodes, {self.num_edges} edges)"

    @cached_property
    def csr(self) -> CSRGraph:
        """The graph as a :class:`CSRGraph` (each link both ways, coords = positions)."""
        return CSRGraph.from_edges(self.num_nodes, self._edges[:, 0], self._edges[:, 1],
                                   self._weights, directed=False, coords=self._positions)

    def to_csr(self) -> CSRGraph:
        """Same as :attr:`csr`."""
        return self.csr

    @cached_property
    def components(self) -> np.ndarray:
        """``(n,)`` int32 connected-component id of each node (numbered by smallest node)."""
        return self.csr.weak_components

    @cached_property
    def _point_index(self) -> PointIndex:
        return PointIndex(self._positions)

    def _nodes_exist(self) -> None:
        if not self.num_nodes:
            raise InvalidQueryError(f"{type(self).__name__} has no nodes")

    def quantize(self, points: Any) -> np.ndarray:
        """``(m,)`` int64 node of each world point (``(m, 2)`` or ``(2,)``): the nearest node
        position (Euclidean; ties to the lowest node), found with a bucket grid."""
        self._nodes_exist()
        return self._point_index.nearest(points)

    def quantize_visible(self, points: Any, *, max_distance: float = np.inf) -> np.ndarray:
        """``(m,)`` int64: the nearest node whose straight link from the point is clear for
        the radius (and no longer than ``max_distance``), or -1 when none is.

        Candidates are tried nearest first (ties to the lowest node), 32 per round, so a
        point that sees a close node costs O(n) for the sort and a few segment tests."""
        self._nodes_exist()
        p = as_points(points, "points")
        out = np.full(len(p), -1, dtype=np.int64)
        for i in range(len(p)):
            d = np.hypot(*(self._positions - p[i]).T)
            order = np.lexsort((np.arange(len(d)), d))
            order = order[d[order] <= max_distance]
            for lo in range(0, len(order), 32):
                cand = order[lo:lo + 32]
                ok = self._obstacles.segments_clear(np.repeat(p[i:i + 1], len(cand), axis=0),
                                                    self._positions[cand], radius=self._radius)
                if ok.any():
                    out[i] = cand[int(np.argmax(ok))]
                    break
        return out

    def localize(self, nodes: Any) -> np.ndarray:
        """``(m, 2)`` float64 world point of each node (its position)."""
        ids = np.asarray(nodes)
        if ids.size and not np.issubdtype(ids.dtype, np.integer):
            raise InvalidQueryError(f"nodes must be integers, got {ids.dtype}")
        ids = np.atleast_1d(ids).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_nodes):
            raise InvalidQueryError(f"node outside 0..{self.num_nodes - 1}: "
                                    f"{ids[(ids < 0) | (ids >= self.num_nodes)][0]}")
        return self._positions[ids]

    def links_clear(self, a: Any, b: Any) -> np.ndarray:
        """``(m,)`` bool: the straight link between world points ``a[i]`` and ``b[i]`` is
        clear of the obstacles for the radius."""
        return self._obstacles.segments_clear(a, b, radius=self._radius)

    @cached_property
    def constraint_domain(self) -> ConstraintDomain:
        """The graph as a :class:`~wayfinding.graph.constrained.ConstraintDomain`: its nodes
        as states, each link both ways with its weight as base cost; a query point joins
        the nearest node whose straight link is clear (:meth:`links_clear`)."""
        return _LinkDomain(self)

    @renamed_keywords(algo="method")
    def find_path(self, start: Any, goal: Any, *, method: str = "astar",
                  join: str | None = None, constraints: Any = None,
                  t: float = 0.0) -> PathResult:
        """A path between two world points through the graph (compiled A* or Dijkstra).

        ``join`` says how the end points enter the graph: ``"quantize"`` walks from each
        point straight to its node (:meth:`quantize`, or the nearest visible node when that
        link is blocked); ``"connect"`` links each end point to every node it sees (and to
        each other) in a temporary copy of the graph, O(n · segment test + edges) per query,
        giving the shortest path the graph allows.  Default: :attr:`default_join`.

        ``path`` is an ``(k, 2)`` float64 array of world points from ``start`` to ``goal``
        (repeated points dropped); ``cost`` adds the straight end legs (Euclidean) to the
        graph cost.  Points inside an obstacle or closer to one than the radius raise
        :class:`InvalidQueryError`; no route gives ``found=False``.

        ``constraints``: a :class:`~wayfinding.constraints.ConstraintSet` whose multiplier
        field at time ``t`` (seconds) multiplies each link's weight and each end leg's
        length, hard constraints forbidding what crosses them; the search runs on
        :attr:`constraint_domain` (each end point joins its eight nearest nodes by clear legs
        that cross no hard constraint, and a clear straight leg between the end points is a
        route too; ``join`` must be left unset) and returns a
        :class:`~wayfinding.graph.constrained.ConstrainedPath`.
        """
        if constraints is not None:
            if join is not None:
                raise InvalidQueryError("join cannot be combined with constraints (end points "
                                        "join their nearest node with a clear leg)")
            self._nodes_exist()
            s, g = as_points(start, "start"), as_points(goal, "goal")
            if len(s) != 1 or len(g) != 1:
                raise InvalidQueryError("start and goal must each be one (x, y) point")
            check_clear_points(np.concatenate([s, g]), self._obstacles, self._radius,
                               "end point")
            return self.constraint_domain.find_path(s[0], g[0], constraints=constraints, t=t,
                                                    method=method)
        t0 = time.perf_counter()
        s = as_points(start, "start")
        g = as_points(goal, "goal")
        if len(s) != 1 or len(g) != 1:
            raise InvalidQueryError("start and goal must each be one (x, y) point")
        join = self.default_join if join is None else join
        if method not in ("astar", "dijkstra"):
            raise InvalidQueryError(f"unknown method {method!r}; expected 'astar' or "
                                    "'dijkstra'")
        if join not in ("quantize", "connect"):
            raise InvalidQueryError(f"unknown join {join!r}; expected 'quantize' or 'connect'")
        for name, pt in (("start", s), ("goal", g)):
            if not self._obstacles.points_clear(pt, radius=self._radius)[0]:
                raise InvalidQueryError(f"{name} {pt[0].tolist()} is inside an obstacle or "
                                        f"closer than the radius {self._radius} to one")
        if join == "connect":
            return self._connected_path(s, g, method, t0)
        self._nodes_exist()
        ends = []
        for pt in (s, g):
            node = int(self.quantize(pt)[0])
            if node < 0 or not self.links_clear(pt, self._positions[node:node + 1])[0]:
                node = int(self.quantize_visible(pt)[0])
            ends.append(node)
        if min(ends) < 0:
            return _not_found(method, t0)
        r = self.csr.find_path(ends[0], ends[1], method=method)
        if not r.found:
            return _not_found(method, t0, r.stats)
        pts = np.concatenate([s, self._positions[r.path], g])
        cost = r.cost + float(np.hypot(*(s[0] - pts[1]))) + float(np.hypot(*(g[0] - pts[-2])))
        return _result(pts, cost, r, t0)

    def _connected_path(self, s: np.ndarray, g: np.ndarray, method: str,
                        t0: float) -> PathResult:
        n = self.num_nodes
        pos = self._positions
        src, dst, w = [self._edges[:, 0]], [self._edges[:, 1]], [self._weights]
        for k, pt in ((n, s), (n + 1, g)):
            seen = np.flatnonzero(self.links_clear(np.repeat(pt, n, axis=0), pos))
            src.append(np.full(len(seen), k, dtype=np.int64))
            dst.append(seen)
            w.append(np.hypot(*(pos[seen] - pt).T))
        if self.links_clear(s, g)[0]:
            src.append(np.array([n]))
            dst.append(np.array([n + 1]))
            w.append(np.array([float(np.hypot(*(g[0] - s[0])))]))
        coords = np.concatenate([pos, s, g])
        graph = CSRGraph.from_edges(n + 2, np.concatenate(src), np.concatenate(dst),
                                    np.concatenate(w), directed=False, coords=coords)
        r = graph.find_path(n, n + 1, method=method)
        if not r.found:
            return _not_found(method, t0, r.stats)
        return _result(coords[r.path], r.cost, r, t0)


class _LinkDomain(ConstraintDomain):
    """A positioned graph's links as a constraint domain (see
    :attr:`PositionedGraph.constraint_domain`)."""

    kind = "graph"

    def __init__(self, graph: PositionedGraph):
        e = graph.edges
        super().__init__(graph.positions, np.concatenate([e, e[:, ::-1]]),
                         np.concatenate([graph.weights, graph.weights]))
        self._obstacles, self._radius = graph.obstacles, graph.radius

    def segments_free(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self._obstacles.segments_clear(a, b, radius=self._radius)


def _result(points: np.ndarray, cost: float, r: PathResult, t0: float) -> PathResult:
    keep = np.ones(len(points), dtype=bool)
    keep[1:] = np.any(points[1:] != points[:-1], axis=1)
    stats = SearchStats(expanded=r.stats.expanded, generated=r.stats.generated,
                        max_open=r.stats.max_open, elapsed=time.perf_counter() - t0)
    return PathResult(points[keep], float(cost), True, stats, r.algorithm)


def _not_found(method: str, t0: float, stats: SearchStats | None = None) -> PathResult:
    st = stats if stats is not None else SearchStats()
    st.elapsed = time.perf_counter() - t0
    return PathResult(np.empty((0, 2)), float("inf"), False, st, method)


@positional_options("max_link", "candidates")
def visible_pairs(positions: np.ndarray, obstacles: Obstacles, radius: float, *,
                  max_link: float = np.inf, candidates: np.ndarray | None = None) -> np.ndarray:
    """``(k, 2)`` int64 node pairs ``i < j`` whose straight link is clear for ``radius`` and
    at most ``max_link`` long; ``candidates`` (``(c, 2)`` pairs) restricts the pairs tried,
    else all pairs are (O(n²) segment tests)."""
    max_link = float(max_link)
    if not max_link > 0:
        raise InvalidQueryError(f"max_link {max_link!r} must be > 0")
    n = len(positions)
    if candidates is None:
        i, j = np.triu_indices(n, k=1)
        pairs = np.stack([i, j], axis=1).astype(np.int64)
    else:
        pairs = np.sort(np.asarray(candidates, dtype=np.int64).reshape(-1, 2), axis=1)
        pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
    if not len(pairs):
        return pairs
    length = np.hypot(*(positions[pairs[:, 1]] - positions[pairs[:, 0]]).T)
    pairs = pairs[length <= max_link]
    ok = obstacles.segments_clear(positions[pairs[:, 0]], positions[pairs[:, 1]],
                                  radius=radius)
    return pairs[ok]


def check_clear_points(points: np.ndarray, obstacles: Obstacles, radius: float,
                       name: str) -> None:
    """Raise :class:`InvalidQueryError` naming the first point that is inside an obstacle or
    closer to one than ``radius``."""
    ok = obstacles.points_clear(points, radius=radius) if len(points) else np.ones(0, dtype=bool)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise InvalidQueryError(f"{name} {bad} at {points[bad].tolist()} is inside an "
                                f"obstacle or closer than the radius {radius} to one")
