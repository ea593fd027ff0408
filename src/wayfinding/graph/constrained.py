"""Search domains for constraint-aware planning (Kapadia et al.): states at world points,
directed transitions with base costs, and those costs multiplied by a constraint set's
multiplier field (:class:`wayfinding.constraints.ConstraintSet`).

The domains themselves are built by the worlds: the dense uniform grid
(:func:`wayfinding.grid.constrained.grid_domain`), the triangulation, dense, hybrid and
adaptive highway domains of a navigation mesh (:mod:`wayfinding.navmesh.constraint_domains`)
and a positioned graph's own links (``PositionedGraph.find_path(..., constraints=)``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._validate import choice, finite_float, finite_point
from ..constraints import BASE, SAMPLES, ConstraintSet
from ..errors import InvalidGridError, InvalidQueryError, brief
from ..results import PathResult, SearchStats, _fields_equal
from .csr import CSRGraph

#: A constraint set, or None for the base costs.
Fields = ConstraintSet | None

#: How many nearest states :meth:`ConstraintDomain.join` tries per round.
_JOIN_ROUND = 32


@dataclass(slots=True, repr=False, kw_only=True)
class ConstrainedPath(PathResult):
    """A path through a :class:`ConstraintDomain`: ``path`` is an ``(m, 2)`` float64 array
    of world points from the start point to the goal point (the end points joined to their
    states by straight legs, repeated points dropped; a grid's search between cells gives
    its ``(m, 2)`` int64 cells instead), ``cost`` the constrained cost of the whole route
    (legs included); ``nodes`` the ``(j,)`` int64 domain states it passes through, in order
    (empty when not found)."""

    nodes: Any = None

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        PathResult.__post_init__(self)
        if self.nodes is None:
            self.nodes = np.empty(0, dtype=np.int64)


class ConstraintDomain:
    """A search domain Σ = ⟨S, A⟩: ``n`` states at world points and ``k`` directed
    transitions with base costs.

    ``points``: ``(n, 2)`` float64 world point of each state (several states may share a
    point when they carry search context, as the adaptive highway domain's do).  ``edges``:
    ``(k, 2)`` int64 ``(source, target)`` pairs; they are stored sorted by (source, target),
    without duplicates or self-loops, so that **domain edge i is CSR edge id i** of
    :attr:`base_graph` (``indptr`` gives each state's run of edges): an incremental planner
    builds on :attr:`base_graph` and hands ``{i: costs[i]}`` to its ``update_costs``.
    ``base_costs``: ``(k,)`` float64 finite costs >= 0 (the transition's length times the
    world's own cost, e.g. a grid's step cost).  Duplicate pairs keep the cheapest cost.

    A constraint set turns the base costs into :meth:`costs`: each transition's base cost
    times the mean multiplier at four samples along it, ``inf`` where it crosses a hard
    constraint.  The multiplier is >= 1, so the Euclidean heuristic of :meth:`graph` stays
    admissible.

    >>> d = ConstraintDomain([[0, 0], [1, 0], [2, 0]], [[0, 1], [1, 2], [1, 0], [2, 1]],
    ...                      [1.0, 1.0, 1.0, 1.0])
    >>> d.num_nodes, d.num_edges, d.edges.tolist()
    (3, 4, [[0, 1], [1, 0], [1, 2], [2, 1]])
    >>> r = d.find_path((0, 0), (2, 0), None)
    >>> r.path.tolist(), r.cost, r.nodes.tolist()
    ([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], 2.0, [0, 1, 2])
    """

    #: Name of the domain kind, used in results' ``algorithm``.
    kind = "domain"

    def __init__(self, points: Any, edges: Any, base_costs: Any):
        pts = np.ascontiguousarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 2 or not np.isfinite(pts).all():
            raise InvalidGridError(f"points must be a finite (n, 2) array, got shape "
                                   f"{pts.shape}")
        e = np.asarray(edges)
        if e.size == 0:
            e = np.empty((0, 2), dtype=np.int64)
        if e.ndim != 2 or e.shape[1] != 2 or not np.issubdtype(e.dtype, np.integer):
            raise InvalidGridError(f"edges must be a (k, 2) integer array, got {e.shape} "
                                   f"{e.dtype}")
        n = len(pts)
        if len(e) and (e.min() < 0 or e.max() >= n):
            raise InvalidGridError(f"an edge names a state outside 0..{n - 1}")
        w = np.asarray(base_costs, dtype=np.float64).ravel()
        if len(w) != len(e):
            raise InvalidGridError(f"{len(w)} base costs for {len(e)} edges")
        if len(w) and (not np.isfinite(w).all() or w.min() < 0):
            raise InvalidGridError("base costs must be finite and >= 0")
        e = e.astype(np.int64)
        keep = e[:, 0] != e[:, 1]
        e, w = e[keep], w[keep]
        order = np.lexsort((w, e[:, 1], e[:, 0]))
        e, w = e[order], w[order]
        first = np.ones(len(e), dtype=bool)
        first[1:] = np.any(e[1:] != e[:-1], axis=1)
        self._points = pts
        self._edges, self._base = np.ascontiguousarray(e[first]), np.ascontiguousarray(w[first])
        self._indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(self._edges[:, 0], minlength=n), out=self._indptr[1:])
        for arr in (self._points, self._edges, self._base, self._indptr):
            arr.flags.writeable = False

    # -- data -------------------------------------------------------------------------
    @property
    def points(self) -> np.ndarray:
        """``(n, 2)`` float64 world point of each state (read-only)."""
        return self._points

    @property
    def edges(self) -> np.ndarray:
        """``(k, 2)`` int64 ``(source, target)`` transitions sorted by (source, target)."""
        return self._edges

    @property
    def base_costs(self) -> np.ndarray:
        """``(k,)`` float64 cost of each transition without constraints."""
        return self._base

    @property
    def indptr(self) -> np.ndarray:
        """``(n + 1,)`` int64: state u's edges are ``indptr[u]:indptr[u + 1]``."""
        return self._indptr

    @property
    def num_nodes(self) -> int:
        return len(self._points)

    @property
    def num_edges(self) -> int:
        return len(self._edges)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.num_nodes} states, {self.num_edges} edges)"

    @cached_property
    def base_graph(self) -> CSRGraph:
        """The domain as a :class:`CSRGraph` with the base costs; its edge id i is domain
        edge i, and its coords are :attr:`points`."""
        return CSRGraph(self._indptr, self._edges[:, 1], self._base, coords=self._points)

    # -- costs ------------------------------------------------------------------------
    def costs(self, constraints: Fields, *, t: float = 0.0,
              goal: int | None = None) -> np.ndarray:
        """``(k,)`` float64 cost of each transition under ``constraints`` (a
        :class:`~wayfinding.constraints.ConstraintSet`, or None for the base costs) at time
        ``t`` (seconds, for time-varying weights): the base cost times the mean multiplier
        at the samples 1/8, 3/8, 5/8, 7/8 along it; ``inf`` where the transition crosses a
        hard constraint.  ``goal``: the goal state, for domains whose transitions depend
        on it (the adaptive highway domain keeps the states near it fully branched).

        Only the transitions whose bounding box meets a constraint's influence are sampled;
        elsewhere the field is the background ``max(1, 1.1 ** W0)`` (the same cost as
        :meth:`~wayfinding.constraints.ConstraintSet.transition_costs` gives, to rounding)."""
        t = finite_float("t", t)
        field = checked(constraints)
        if field is None:
            return np.array(self._base)
        m0 = np.power(BASE, np.maximum(np.full((len(SAMPLES), 1), field.base_weight(t=t)), 0.0))
        out = m0.mean(axis=0)[0] * self._base
        boxes = [box for box in field.influence(t=t) if box is not None]
        if boxes:
            lo, hi = self._segment_boxes
            ids = _meeting(lo, hi, boxes)
            e = self._edges[ids]
            out[ids] = field.transition_costs(self._points[e[:, 0]], self._points[e[:, 1]],
                                              self._base[ids], t=t)
        return out

    def graph(self, constraints: Fields, *, t: float = 0.0,
              goal: int | None = None) -> CSRGraph:
        """The domain under ``constraints`` as a :class:`CSRGraph` (coords :attr:`points`,
        so A* uses the Euclidean heuristic, admissible since multipliers are >= 1).  The
        transitions a hard constraint blocks (cost ``inf``) are left out, so its edge ids
        are the domain's only when none is blocked; a planner that repairs uses
        :attr:`base_graph` and :meth:`costs` instead."""
        c = self.costs(constraints, t=t, goal=goal)
        ok = np.isfinite(c)
        if ok.all():
            return CSRGraph(self._indptr, self._edges[:, 1], c, coords=self._points)
        return CSRGraph.from_edges(self.num_nodes, self._edges[ok, 0], self._edges[ok, 1],
                                   c[ok], coords=self._points)

    def edges_meeting(self, boxes: Any) -> np.ndarray:
        """``(m,)`` int64 sorted ids of the edges whose cost may depend on the field within
        any of ``boxes`` (``(b, 4)`` ``(xmin, ymin, xmax, ymax)``): those whose bounding box
        meets one (for repairing a plan when constraints change)."""
        return _meeting(*self._edge_extent(), boxes)

    def _edge_extent(self) -> tuple[np.ndarray, np.ndarray]:
        """``(k, 2)`` lower and upper corners of the region each edge's cost depends on."""
        return self._segment_boxes

    @cached_property
    def _segment_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(k, 2)`` lower and upper corners of each edge's segment (read-only)."""
        a = self._points[self._edges[:, 0]]
        b = self._points[self._edges[:, 1]]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        lo.flags.writeable = hi.flags.writeable = False
        return lo, hi

    # -- joining and searching --------------------------------------------------------
    def segments_free(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``(m,)`` bool: the straight segment ``a[i]`` → ``b[i]`` stays in the world's free
        space (used to join query points to states; every segment here)."""
        return np.ones(len(a), dtype=bool)

    def _join_states(self) -> np.ndarray:
        """The states a query point may join (all here)."""
        return np.arange(self.num_nodes, dtype=np.int64)

    def join(self, point: Any, constraints: Fields, *, t: float = 0.0) -> tuple[int, float]:
        """The state a query point enters the domain by, and the constrained cost of the
        straight leg to it: the nearest state (Euclidean, ties to the lowest id) whose leg
        is free (:meth:`segments_free`) and crosses no hard constraint; ``(-1, inf)`` when
        none is.  The same leg, reversed, leaves the domain at the goal."""
        p = finite_point("point", point)
        checked(constraints)
        t = finite_float("t", t)
        cand = self._join_states()
        d = np.hypot(*(self._points[cand] - p).T)
        order = cand[np.lexsort((cand, d))]
        for lo in range(0, len(order), _JOIN_ROUND):
            near = order[lo:lo + _JOIN_ROUND]
            a = np.repeat(p[None], len(near), axis=0)
            b = self._points[near]
            ok = self.segments_free(a, b)
            legs = np.full(len(near), np.inf)
            if ok.any():
                legs[ok] = self._legs(a[ok], b[ok], constraints, t)
            good = np.isfinite(legs)
            if good.any():
                i = int(np.argmax(good))
                return int(near[i]), float(legs[i])
        return -1, float("inf")

    def _leave(self, point: np.ndarray, constraints: Fields, t: float) -> tuple[int, float]:
        """The goal's state and the cost of the leg from it to the goal point."""
        node, _ = self.join(point, constraints, t=t)
        if node < 0:
            return node, float("inf")
        return node, float(self._legs(self._points[node][None], point[None], constraints, t)[0])

    #: Base cost per world unit of a leg joining a query point to a state.
    leg_cost = 1.0

    def _legs(self, a: np.ndarray, b: np.ndarray, constraints: Fields, t: float) -> np.ndarray:
        """``(m,)`` constrained costs of the straight legs ``a[i]`` → ``b[i]``."""
        base = np.hypot(*(b - a).T) * self.leg_cost
        if constraints is None:
            return base
        return constraints.transition_costs(a, b, base, t=t)

    def find_path(self, start: Any, goal: Any, constraints: Fields, *, t: float = 0.0,
                  method: str = "astar") -> ConstrainedPath:
        """The cheapest route from world point ``start`` to ``goal`` through the domain
        under ``constraints`` at time ``t`` (compiled A* or Dijkstra, ``method``).

        Each end point joins its nearest state reachable by a free straight leg that
        crosses no hard constraint (:meth:`join`); the legs' constrained costs are part of
        ``cost``.  No such state, or no route, gives ``found=False``.
        """
        t0 = time.perf_counter()
        s = finite_point("start", start)
        g = finite_point("goal", goal)
        method = choice("method", method, ("astar", "dijkstra"))
        t = finite_float("t", t)
        checked(constraints)
        u, leg_s = self.join(s, constraints, t=t)
        v, leg_g = self._leave(g, constraints, t)
        name = f"{method}_{self.kind}"
        if u < 0 or v < 0:
            return _not_found(name, t0)
        r = self._search(u, v, constraints, t, method)
        if not r.found:
            return _not_found(name, t0, r.stats)
        nodes = np.asarray(r.path, dtype=np.int64)
        pts = np.concatenate([s[None], self._points[nodes], g[None]])
        keep = np.ones(len(pts), dtype=bool)
        keep[1:] = np.any(pts[1:] != pts[:-1], axis=1)
        stats = SearchStats(expanded=r.stats.expanded, generated=r.stats.generated,
                            max_open=r.stats.max_open, elapsed=time.perf_counter() - t0)
        return ConstrainedPath(path=pts[keep], cost=float(r.cost) + leg_s + leg_g, found=True,
                               stats=stats, algorithm=name, nodes=nodes)

    def _search(self, u: int, v: int, constraints: Fields, t: float, method: str
                ) -> PathResult:
        """A search from state ``u`` to state ``v`` (``path``: the states)."""
        return self.graph(constraints, t=t, goal=v).find_path(u, v, method=method)


def _meeting(lo: np.ndarray, hi: np.ndarray, boxes: Any) -> np.ndarray:
    """``(m,)`` int64 sorted ids of the boxes ``lo[i]``–``hi[i]`` that meet any of
    ``boxes`` (``(b, 4)`` ``(xmin, ymin, xmax, ymax)``)."""
    hit = np.zeros(len(lo), dtype=bool)
    for x0, y0, x1, y1 in np.asarray(boxes, dtype=np.float64).reshape(-1, 4):
        hit |= (lo[:, 0] <= x1) & (hi[:, 0] >= x0) & (lo[:, 1] <= y1) & (hi[:, 1] >= y0)
    return np.flatnonzero(hit).astype(np.int64)


def checked(constraints: Any) -> ConstraintSet | None:
    """``constraints`` after checking that it is a
    :class:`~wayfinding.constraints.ConstraintSet` or None."""
    if constraints is not None and not isinstance(constraints, ConstraintSet):
        raise InvalidQueryError(f"constraints {brief(constraints)} must be a ConstraintSet "
                                "(wayfinding.constraints) or None")
    return constraints


def _not_found(name: str, t0: float, stats: SearchStats | None = None) -> ConstrainedPath:
    st = stats if stats is not None else SearchStats()
    st.elapsed = time.perf_counter() - t0
    return ConstrainedPath(path=np.empty((0, 2)), cost=float("inf"), found=False, stats=st,
                           algorithm=name)
