"""Search domains for constraint-aware planning (Kapadia et al.): states at world points,
directed transitions with base costs, and those costs multiplied by a constraint set's
multiplier field (:class:`wayfinding.constraints.ConstraintSet`).

The domains themselves are built by the worlds: the dense uniform grid
(:func:`wayfinding.grid.constrained.grid_domain`), the triangulation, dense, hybrid and
adaptive highway domains of a navigation mesh (:mod:`wayfinding.navmesh.constraint_domains`)
and a positioned graph's own links (``PositionedGraph.find_path(..., constraints=)``).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._arrays import concatenated_ranges
from .._scratch import PerThread
from .._validate import choice, finite_float, finite_point
from ..constraints import BASE, SAMPLES, ConstraintSet
from ..errors import InvalidGridError, InvalidQueryError, brief
from ..results import PathResult, SearchStats, _fields_equal
from .csr import CSRGraph

#: A constraint set, or None for the base costs.
Fields = ConstraintSet | None

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
    point, as the adaptive highway domain's states with a direction and remaining skips
    do).  ``edges``: ``(k, 2)`` int64 ``(source, target)`` pairs; they are stored sorted
    by (source, target), without duplicates or self-loops, so that **domain edge i is CSR
    edge id i** of :attr:`base_graph` (``indptr`` gives each state's run of edges): an
    incremental planner builds on :attr:`base_graph` and hands ``{i: costs[i]}`` to its
    ``update_costs``.  ``base_costs``: ``(k,)`` float64 finite costs >= 0 (the
    transition's length times the world's own cost, e.g. a grid's step cost).  Duplicate
    pairs keep the cheapest cost.

    A constraint set turns the base costs into :meth:`costs`: each transition's base cost
    times the mean multiplier at four samples along it, ``inf`` where it crosses a hard
    constraint.  The multiplier is >= 1, so the Euclidean heuristic of :meth:`graph` stays
    admissible.  Only the transitions near a constraint (its influence box) are costed
    again per constraint set and time; the rest take the background multiplier, so a
    query costs the work near the constraints and the search, not the whole domain.

    >>> d = ConstraintDomain([[0, 0], [1, 0], [2, 0]], [[0, 1], [1, 2], [1, 0], [2, 1]],
    ...                      [1.0, 1.0, 1.0, 1.0])
    >>> d.num_nodes, d.num_edges, d.edges.tolist()
    (3, 4, [[0, 1], [1, 0], [1, 2], [2, 1]])
    >>> d.find_path((0, 1), (2, 1)).nodes.tolist()    # the straight leg: free space here
    []
    >>> from wayfinding.constraints import Constraint, Disc
    >>> pond = ConstraintSet([Constraint.hard(Disc((1, 1), 0.5))])
    >>> r = d.find_path((0, 1), (2, 1), constraints=pond)
    >>> r.path.tolist(), round(r.cost, 6), r.nodes.tolist()
    ([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0]], 2.828427, [1])
    >>> d.find_path((0.5, 0), (0.5, 0)).cost      # start == goal: nothing to walk
    0.0
    """

    #: Name of the domain kind, used in results' ``algorithm``.
    kind = "domain"

    #: How many of its nearest states a query point joins (:meth:`joins`).
    join_count = 8

    #: Base cost per world unit of a leg joining a query point to a state.
    leg_cost = 1.0

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
        self._lock = threading.Lock()
        self._fields: OrderedDict[tuple, tuple[Any, np.ndarray, np.ndarray]] = OrderedDict()
        self._scratch: PerThread[SimpleNamespace] = PerThread()

    def __getstate__(self) -> dict[str, Any]:
        """The domain without its lock and cached fields (and, as ``PerThread`` copies,
        without per-thread scratch), so that a copy or a pickle holds only what defines it."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_fields")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._fields = OrderedDict()

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
        on it (the adaptive highway domain's goal link).

        Only the transitions whose bounding box meets a constraint's influence are sampled
        (kept for the last few constraint sets and times asked); elsewhere the field is the
        background ``max(1, 1.1 ** W0)`` (the same cost as
        :meth:`~wayfinding.constraints.ConstraintSet.transition_costs` gives, to
        rounding)."""
        t = finite_float("t", t)
        field = checked(constraints)
        m0, ids, values = self._field(field, t)
        out = self._base * m0
        out[ids] = values
        return out

    def _field(self, field: ConstraintSet | None, t: float
               ) -> tuple[float, np.ndarray, np.ndarray]:
        """The background multiplier and the re-costed transitions (ids, costs) of a field
        at time ``t``, cached by (the set's identity, t)."""
        if field is None:
            return 1.0, np.empty(0, dtype=np.int64), np.empty(0)
        key = (id(field), t)
        with self._lock:
            hit = self._fields.get(key)
            if hit is not None and hit[0] is field:
                self._fields.move_to_end(key)
                return _background_multiplier(field, t), hit[1], hit[2]
        m0 = _background_multiplier(field, t)
        boxes = [box for box in field.influence(t=t) if box is not None]
        ids = self.edges_meeting(boxes) if boxes else np.empty(0, dtype=np.int64)
        e = self._edges[ids]
        values = field.transition_costs(self._points[e[:, 0]], self._points[e[:, 1]],
                                        self._base[ids], t=t)
        for arr in (ids, values):
            arr.flags.writeable = False
        with self._lock:
            self._fields[key] = (field, ids, values)
            while len(self._fields) > _KEPT_FIELDS:
                self._fields.popitem(last=False)
        return m0, ids, values

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
            base = self.base_graph
            return CSRGraph._trusted(base.indptr, base.indices, c, base._coords,
                                     base.heuristic_scale)
        return CSRGraph.from_edges(self.num_nodes, self._edges[ok, 0], self._edges[ok, 1],
                                   c[ok], coords=self._points)

    def edges_meeting(self, boxes: Any) -> np.ndarray:
        """``(m,)`` int64 sorted ids of the edges whose cost may depend on the field within
        any of ``boxes`` (``(b, 4)`` ``(xmin, ymin, xmax, ymax)``): those whose bounding box
        meets one (for repairing a plan when constraints change)."""
        index, sources = self._edge_index
        states = sources[index.meeting(boxes)]
        ids = concatenated_ranges(self._indptr[states], np.diff(self._indptr)[states])
        lo, hi = self._edge_extent()
        lo, hi = lo[ids], hi[ids]
        hit = np.zeros(len(ids), dtype=bool)
        for x0, y0, x1, y1 in np.asarray(boxes, dtype=np.float64).reshape(-1, 4):
            hit |= (lo[:, 0] <= x1) & (hi[:, 0] >= x0) & (lo[:, 1] <= y1) & (hi[:, 1] >= y0)
        return np.sort(ids[hit])

    def _edge_extent(self) -> tuple[np.ndarray, np.ndarray]:
        """``(k, 2)`` lower and upper corners of the region each edge's cost depends on."""
        return self._segment_boxes

    @cached_property
    def _edge_index(self) -> tuple[BoxIndex, np.ndarray]:
        """The states with transitions, indexed by the box holding their transitions'
        extents (a state's transitions are one run of ids), and those states."""
        lo, hi = self._edge_extent()
        sources = np.flatnonzero(np.diff(self._indptr) > 0)
        if not len(sources):
            return BoxIndex(np.empty((0, 2)), np.empty((0, 2))), sources
        first = self._indptr[sources]
        return BoxIndex(np.minimum.reduceat(lo, first, axis=0),
                        np.maximum.reduceat(hi, first, axis=0)), sources

    @cached_property
    def _segment_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(k, 2)`` lower and upper corners of each edge's segment (read-only)."""
        a = self._points[self._edges[:, 0]]
        b = self._points[self._edges[:, 1]]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        lo.flags.writeable = hi.flags.writeable = False
        return lo, hi

    # -- joining ----------------------------------------------------------------------
    def segments_free(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``(m,)`` bool: the straight segment ``a[i]`` → ``b[i]`` stays in the world's free
        space (used to join query points to states; every segment here)."""
        return np.ones(len(a), dtype=bool)

    def _join_states(self) -> np.ndarray:
        """The states a query point may join (all here)."""
        return np.arange(self.num_nodes, dtype=np.int64)

    @cached_property
    def _state_index(self) -> BoxIndex:
        pts = self._points[self._join_states()]
        return BoxIndex(pts, pts)

    def joins(self, point: Any, constraints: Fields, *, t: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray]:
        """The states a query point enters the domain by, and the constrained costs of the
        straight legs to them: ``(j,)`` int64 states and ``(j,)`` float64 costs, the
        :attr:`join_count` nearest states (Euclidean, ties to the lowest id) whose leg is
        free (:meth:`segments_free`) and crosses no hard constraint, nearest first; none
        when no state has such a leg.  The same legs, reversed, leave the domain at the
        goal (a leg costs the same both ways)."""
        p = finite_point("point", point)
        field = checked(constraints)
        t = finite_float("t", t)
        states = self._join_states()
        got_s: list[np.ndarray] = []
        got_c: list[np.ndarray] = []
        found, done = 0, -1.0
        radius = self._state_index.cell
        while found < self.join_count and done < self._state_index.reach(p):
            ids = self._state_index.meeting([(p[0] - radius, p[1] - radius,
                                              p[0] + radius, p[1] + radius)])
            d = np.hypot(*(self._points[states[ids]] - p).T)
            new = (d > done) & (d <= radius)
            ids, d = states[ids[new]], d[new]
            order = np.lexsort((ids, d))
            near = ids[order]
            if len(near):
                a = np.repeat(p[None], len(near), axis=0)
                ok = self.segments_free(a, self._points[near])
                legs = np.full(len(near), np.inf)
                if ok.any():
                    legs[ok] = self._legs(a[ok], self._points[near[ok]], field, t)
                good = np.isfinite(legs)
                got_s.append(near[good])
                got_c.append(legs[good])
                found += int(good.sum())
            done, radius = radius, 2.0 * radius
        if not got_s:
            return np.empty(0, dtype=np.int64), np.empty(0)
        return (np.concatenate(got_s)[:self.join_count],
                np.concatenate(got_c)[:self.join_count])

    def join(self, point: Any, constraints: Fields, *, t: float = 0.0) -> tuple[int, float]:
        """The nearest of :meth:`joins`' states and the cost of its leg; ``(-1, inf)`` when
        there is none."""
        states, legs = self.joins(point, constraints, t=t)
        return (int(states[0]), float(legs[0])) if len(states) else (-1, float("inf"))

    def straight_leg(self, start: Any, goal: Any, constraints: Fields, *,
                     t: float = 0.0) -> float:
        """The constrained cost of the straight leg between the ends, world points
        ``start`` and ``goal``, under ``constraints`` at time ``t``, costed as
        :meth:`joins`' legs are; ``inf`` when the leg is not free (:meth:`segments_free`)
        or crosses a hard constraint.  :meth:`find_path` takes the leg as a route of its
        own where it is finite.

        >>> d = ConstraintDomain([[0, 0], [1, 0]], [[0, 1], [1, 0]], [1.0, 1.0])
        >>> d.straight_leg((0, 1), (2, 1), None)
        2.0
        >>> from wayfinding.constraints import Constraint, Disc
        >>> d.straight_leg((0, 1), (2, 1), ConstraintSet([Constraint.hard(Disc((1, 1), 0.5))]))
        inf
        """
        s = finite_point("start", start)
        g = finite_point("goal", goal)
        field = checked(constraints)
        t = finite_float("t", t)
        if not self.segments_free(s[None], g[None])[0]:
            return float("inf")
        return float(self._legs(s[None], g[None], field, t)[0])

    @cached_property
    def _leg_piece(self) -> float:
        """Longest piece of a leg costed by one 4-sample sum (world units): the median
        transition length, so that a long leg is costed as finely as the domain's paths."""
        lo, hi = self._segment_boxes
        length = np.hypot(*(hi - lo).T)
        length = length[length > 0]
        return float(np.median(length)) if len(length) else float("inf")

    def _legs(self, a: np.ndarray, b: np.ndarray, constraints: Fields, t: float) -> np.ndarray:
        """``(m,)`` constrained costs of the straight legs ``a[i]`` → ``b[i]``, each costed
        in pieces of at most :attr:`_leg_piece` (the sum of their 4-sample costs)."""
        length = np.hypot(*(b - a).T)
        if constraints is None:
            return length * self.leg_cost
        pieces = np.maximum(1, np.ceil(length / self._leg_piece)).astype(np.int64)
        leg = np.repeat(np.arange(len(a)), pieces)
        first = np.concatenate([[0], np.cumsum(pieces)[:-1]])
        k = np.arange(len(leg)) - np.repeat(first, pieces)
        f0 = (k / pieces[leg])[:, None]
        f1 = ((k + 1) / pieces[leg])[:, None]
        pa = a[leg] + f0 * (b - a)[leg]
        pb = a[leg] + f1 * (b - a)[leg]
        part = constraints.transition_costs(pa, pb, (length / pieces * self.leg_cost)[leg], t=t)
        return np.add.reduceat(part, first) if len(a) else np.empty(0)

    # -- searching --------------------------------------------------------------------
    def find_path(self, start: Any, goal: Any, *, constraints: Fields = None, t: float = 0.0,
                  method: str = "astar") -> ConstrainedPath:
        """The cheapest route from world point ``start`` to ``goal`` through the domain
        under ``constraints`` at time ``t`` (compiled A* or Dijkstra, ``method``).

        Each end point joins the domain through its :attr:`join_count` nearest states
        reachable by a free straight leg that crosses no hard constraint (:meth:`joins`),
        and the straight leg from ``start`` to ``goal`` itself (:meth:`straight_leg`) is a
        route when it is free;
        the legs' constrained costs are part of ``cost`` (a leg is costed as transitions
        are, in pieces no longer than the domain's median transition).  No route gives
        ``found=False``.
        """
        t0 = time.perf_counter()
        s = finite_point("start", start)
        g = finite_point("goal", goal)
        method, t, field, name = _query_options(self.kind, method, t, constraints)
        starts, s_legs = self.joins(s, field, t=t)
        goals, g_legs = self.joins(g, field, t=t)
        if self._goal_dependent and len(goals):
            goals, g_legs = goals[:1], g_legs[:1]
        direct = self.straight_leg(s, g, field, t=t)
        r = self._route(s, g, starts, s_legs, goals, g_legs, direct, field, t, method)
        return _routed(name, t0, r, s, g, self._points)

    @cached_property
    def _goal_dependent(self) -> bool:
        """Whether the domain's costs depend on the goal state (it overrides
        :meth:`costs`): then a query joins the goal through its nearest state only, and
        its costs are not cached."""
        return type(self).costs is not ConstraintDomain.costs

    def _search(self, u: int, v: int, constraints: Fields, t: float, method: str
                ) -> PathResult:
        """A search from state ``u`` to state ``v`` (``path``: the states)."""
        zero = np.zeros(1)
        p, q = self._points[u], self._points[v]
        return self._route(p, q, np.array([u]), zero, np.array([v]), zero, math.inf,
                           constraints, t, method)

    @cached_property
    def _layout(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """The query graph's CSR layout: the states, then a start node ``n`` and a goal
        node ``n + 1``.  Each state's row holds its transitions and one last slot onto the
        goal node (cost ``inf`` unless the state is a goal's join); the start node's row
        holds :attr:`join_count` + 1 slots (the start's legs and the direct leg).  Returns
        indptr, indices, each domain edge's position, and the heuristic scale."""
        n, k = self.num_nodes, self.num_edges
        slots = self.join_count + 1
        indptr = np.empty(n + 3, dtype=np.int64)
        indptr[:n + 1] = self._indptr + np.arange(n + 1)
        indptr[n + 2] = indptr[n + 1] = indptr[n] + slots
        where = np.arange(k, dtype=np.int64) + self._edges[:, 0]
        indices = np.full(indptr[-1], n + 1, dtype=np.int32)
        indices[where] = self._edges[:, 1]
        indices[indptr[n]:] = n
        scale = min(self.base_graph.heuristic_scale, self.leg_cost)
        for arr in (indptr, indices, where):
            arr.flags.writeable = False
        return indptr, indices, where, scale

    def _route(self, s: np.ndarray, g: np.ndarray, starts: np.ndarray, s_legs: np.ndarray,
               goals: np.ndarray, g_legs: np.ndarray, direct: float, field: Fields,
               t: float, method: str) -> PathResult:
        """The cheapest route from point ``s`` through one of ``starts`` (legs ``s_legs``)
        to one of ``goals`` (legs ``g_legs``) and on to point ``g``, or straight there for
        ``direct``; ``path`` holds the states between."""
        n = self.num_nodes
        indptr, _, where, scale = self._layout
        if not len(starts) and not math.isfinite(direct):
            return PathResult(np.empty(0, dtype=np.int64), math.inf, False)
        sc = self._query_scratch(field, t, goals)
        row = indptr[n]
        sc.indices[row:row + len(starts)] = starts
        sc.weights[row:row + len(starts)] = s_legs
        sc.indices[row + len(starts)] = n + 1
        sc.weights[row + len(starts)] = direct
        slot = indptr[goals + 1] - 1
        sc.weights[slot] = g_legs
        sc.coords[n], sc.coords[n + 1] = s, g
        try:
            graph = CSRGraph._trusted(indptr, sc.indices, sc.weights, sc.coords, scale)
            r = graph.find_path(n, n + 1, method=method)
        finally:
            sc.weights[slot] = np.inf
            sc.weights[row:indptr[n + 1]] = np.inf
            sc.indices[row:indptr[n + 1]] = n
        if not r.found or not math.isfinite(r.cost):
            return PathResult(np.empty(0, dtype=np.int64), math.inf, False, r.stats)
        return PathResult(np.asarray(r.path[1:-1], dtype=np.int64), r.cost, True, r.stats,
                          r.algorithm)

    def _query_scratch(self, field: Fields, t: float, goals: np.ndarray) -> Any:
        """This thread's query arrays, holding the costs of ``field`` at ``t``: a copy of
        the background with the transitions near the constraints costed again (when the
        set or the time changed since this thread's last query)."""
        indptr, indices, where, _ = self._layout
        sc = self._scratch.mine()
        if sc is None:
            sc = self._scratch.keep(SimpleNamespace(
                indices=np.array(indices), weights=np.full(len(indices), np.inf),
                coords=np.zeros((self.num_nodes + 2, 2)), key=None))
            sc.coords[:self.num_nodes] = self._points
        if self._goal_dependent:
            sc.key = None
            sc.weights[where] = self.costs(field, t=t, goal=int(goals[0]) if len(goals)
                                           else None)
            return sc
        if sc.key is not None and sc.key[0] is field and sc.key[1] == t:
            return sc
        m0, ids, values = self._field(field, t)
        sc.key = None
        with self._lock:
            background = self._backgrounds.get(m0)
            if background is None:
                background = np.full(len(indices), np.inf)
                background[where] = self._base * m0
                background.flags.writeable = False
                self._backgrounds.clear()        # one kept: it changes with W0 only
                self._backgrounds[m0] = background
        np.copyto(sc.weights, background)
        sc.weights[where[ids]] = values
        sc.key = (field, t)
        return sc

    @cached_property
    def _backgrounds(self) -> dict[float, np.ndarray]:
        """The query weights at a background multiplier (no constraint nearby)."""
        return {}


#: Constraint sets (and times) whose re-costed transitions a domain keeps.
_KEPT_FIELDS = 4


def _background_multiplier(field: ConstraintSet, t: float) -> float:
    """The mean multiplier of a transition far from every constraint of ``field`` at
    ``t``: ``max(1, 1.1 ** W0)`` (as the 4-sample mean rounds it)."""
    m0 = np.power(BASE, np.maximum(np.full(len(SAMPLES), field.base_weight(t=t)), 0.0))
    return float(m0.mean())


class BoxIndex:
    """Which of ``m`` axis-aligned boxes (``lo``, ``hi``: ``(m, 2)`` corners; points when
    equal) meet query boxes, without scanning them all: boxes up to the bucket side are
    sorted into square buckets by their lower corner; the few larger ones are checked one
    by one."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray):
        self._lo, self._hi = lo, hi
        m = len(lo)
        if not m:
            self._origin, self.cell = np.zeros(2), 1.0
            self._shape = np.ones(2, dtype=np.int64)
            self._order = self._big = np.empty(0, dtype=np.int64)
            self._start = np.zeros(2, dtype=np.int64)
            return
        extent = (hi - lo).max(axis=1)
        origin, top = lo.min(axis=0), hi.max(axis=0)
        span = np.maximum(top - origin, 1e-12)
        cell = max(float(np.quantile(extent, 0.99)), float(np.sqrt(span.prod() / m)),
                   float(span.max()) / 2000, 1e-12)
        small = extent <= cell
        self._big = np.flatnonzero(~small)
        self._origin, self.cell = origin, cell
        self._shape = np.floor(span / cell).astype(np.int64) + 1
        ids = np.flatnonzero(small)
        b = np.clip(np.floor((lo[ids] - origin) / cell).astype(np.int64), 0, self._shape - 1)
        key = b[:, 1] * self._shape[0] + b[:, 0]
        order = np.argsort(key, kind="stable")
        self._order = ids[order]
        self._start = np.searchsorted(key[order], np.arange(int(self._shape.prod()) + 1))
        self._extent = (origin, top)

    def reach(self, p: np.ndarray) -> float:
        """The distance from ``p`` beyond which no box lies."""
        if not len(self._lo):
            return 0.0
        lo, hi = self._extent
        return float(np.hypot(*np.maximum(np.abs(p - lo), np.abs(p - hi))))

    def meeting(self, boxes: Any) -> np.ndarray:
        """``(j,)`` int64 sorted ids of the boxes that meet any of ``boxes`` (``(b, 4)``
        ``(xmin, ymin, xmax, ymax)``; touching counts)."""
        out = [np.empty(0, dtype=np.int64)]
        w, h = self._shape
        for x0, y0, x1, y1 in np.asarray(boxes, dtype=np.float64).reshape(-1, 4):
            cx0, cy0 = np.floor((np.array([x0, y0]) - self.cell - self._origin) / self.cell)
            cx1, cy1 = np.floor((np.array([x1, y1]) - self._origin) / self.cell)
            cx0, cx1 = int(max(cx0, 0)), int(min(cx1, w - 1))
            cy0, cy1 = int(max(cy0, 0)), int(min(cy1, h - 1))
            parts = [self._big]
            if cx0 <= cx1 and cy0 <= cy1:
                rows = np.arange(cy0, cy1 + 1) * w
                parts.append(self._order[concatenated_ranges(
                    self._start[rows + cx0],
                    self._start[rows + cx1 + 1] - self._start[rows + cx0])])
            ids = np.concatenate(parts)
            lo, hi = self._lo[ids], self._hi[ids]
            hit = (lo[:, 0] <= x1) & (hi[:, 0] >= x0) & (lo[:, 1] <= y1) & (hi[:, 1] >= y0)
            out.append(ids[hit])
        return np.unique(np.concatenate(out))


def checked(constraints: Any) -> ConstraintSet | None:
    """``constraints`` after checking that it is a
    :class:`~wayfinding.constraints.ConstraintSet` or None."""
    if constraints is not None and not isinstance(constraints, ConstraintSet):
        raise InvalidQueryError(f"constraints {brief(constraints)} must be a ConstraintSet "
                                "(wayfinding.constraints) or None")
    return constraints


def _query_options(kind: str, method: Any, t: Any, constraints: Any
                   ) -> tuple[str, float, ConstraintSet | None, str]:
    """A constrained query's checked ``method`` (``"astar"`` or ``"dijkstra"``), time ``t``
    and ``constraints`` (:func:`checked`), and its algorithm name ``{method}_{kind}``."""
    method = choice("method", method, ("astar", "dijkstra"))
    return method, finite_float("t", t), checked(constraints), f"{method}_{kind}"


def _not_found(name: str, t0: float, stats: SearchStats | None = None, *,
               dims: int = 2) -> ConstrainedPath:
    st = stats if stats is not None else SearchStats()
    st.elapsed = time.perf_counter() - t0
    return ConstrainedPath(path=np.empty((0, dims)), cost=float("inf"), found=False, stats=st,
                           algorithm=name)


def _routed(name: str, t0: float, r: PathResult, start: np.ndarray, goal: np.ndarray,
            coords: np.ndarray) -> ConstrainedPath:
    """The :class:`ConstrainedPath` of route ``r`` (node ids through states at ``coords``)
    from world point ``start`` to ``goal``, repeated points dropped."""
    if not r.found:
        return _not_found(name, t0, r.stats, dims=coords.shape[1])
    nodes = np.asarray(r.path, dtype=np.int64)
    pts = np.concatenate([start[None], coords[nodes], goal[None]])
    keep = np.ones(len(pts), dtype=bool)
    keep[1:] = np.any(pts[1:] != pts[:-1], axis=1)
    stats = SearchStats(expanded=r.stats.expanded, generated=r.stats.generated,
                        max_open=r.stats.max_open, elapsed=time.perf_counter() - t0)
    return ConstrainedPath(path=pts[keep], cost=float(r.cost), found=True, stats=stats,
                           algorithm=name, nodes=nodes)
