"""Σ_adaptive, the adaptive highway domain of a navigation mesh (Kapadia et al. 6.2.4): the
dense domain with one onward transition per state where no constraint acts, so that a
search skips ahead in straight runs there and branches fully near constraints."""

from __future__ import annotations

import heapq
import math
import time
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import count, finite_float, finite_point, positive_float
from ..constraints import SAMPLES
from ..errors import InvalidQueryError, brief
from ..graph.constrained import (
    ConstrainedPath,
    ConstraintDomain,
    Fields,
    _query_options,
    _routed,
    checked,
)
from ..results import PathResult, SearchStats

if TYPE_CHECKING:
    from .constraint_domains import DenseMeshDomain

# The role of a transition, which decides when the field enables it.
_SKIP = 0       # onto a skip state: enabled while its run's |W| integral is within threshold
_FULL = 1       # the same step onto the full state: enabled when that integral exceeds it
_STEP = 2       # the last step of a run, onto a full state: always enabled
_LINK = 3       # a skip state onto the full state at its point: enabled near the goal and
                # where the run's next step crosses a hard constraint


class AdaptiveDomain(ConstraintDomain):
    """Σ_adaptive (the adaptive highway domain) of a mesh: the points of a dense domain
    ``dense`` (a :class:`~wayfinding.navmesh.constraint_domains.DenseMeshDomain`; the
    mesh's own, kept with it, is ``constraint_domain(mesh, "dense", spacing=...)``) as
    states with search context, expanded with fewer branches where no constraint acts.

    It is searched two ways.  :meth:`find_path` (and so ``NavMesh.find_path(...,
    domain="adaptive")``) runs the chapter's lazily evaluated search over the dense
    lattice: each point one state, its direction and remaining skips set by its current
    best parent, so points off the runs are never generated.  The planner
    (:class:`~wayfinding.planning.ConstraintPlanner`) needs a fixed graph to repair, and
    repairs on the eager graph below, whose states carry the search context.

    The eager graph: a state is *full* (a lattice point; states ``0..n-1`` are the dense
    domain's states, in its order) or a *skip state* ``(q, d, k)``: a point, one of the 8
    lattice directions and ``k`` remaining skips, ``1 <= k < K`` (``K = max_skips``, default
    4, the chapter's value).  A full state ``p`` has, for each direction ``d`` with a dense
    transition to ``q = p + d``, a successor at ``q``: the skip state ``(q, d, K - 1)``
    while the integral of ``Σ_c |W_c|`` along ``p → q`` is at most ``threshold``, else the
    full state ``q``.  A skip state ``(q, d, k)`` has one successor, at ``q + d``: the skip
    state ``(q + d, d, k - 1)`` (the full state when ``k = 1``) while the integral along its
    whole run, from the full state ``q - (K - k)·d`` it left through ``q + d``, is at most
    ``threshold``, else the full state ``q + d``.  So a run skips at most K steps, and
    density stays full where constraints act.  The integral is the 4-sample Riemann sum of
    the transition costs (world units times weight; ``inf`` across a hard constraint);
    ``threshold`` (>= 0, default 0: skip only where no soft constraint acts) is the
    parameter the chapter leaves open.

    Where ``q + d`` has no dense transition (a wall, the mesh's edge) the skip state
    branches as the full state ``q`` does; where its next step crosses a hard constraint,
    it steps onto the full state ``q`` at no cost.  A state at the goal's point reaches the
    goal (a transition of cost 0 onto the full state there), and a skip state within K
    lattice steps of it in x and y steps onto the full state at its point at no cost, so
    that the search branches fully near the goal (a run reaches the goal's point itself
    only if it lies on the run's line).  A query point joins its nearest full state
    (:meth:`join`, as the planner joins it).

    The domain holds every alternative as a transition, and :meth:`costs` disables those
    the field and the goal rule out (cost ``inf``): a change of constraints is a change of
    costs, which :class:`~wayfinding.planning.ConstraintPlanner` repairs.  Every path here
    is a path of the dense domain, so it never costs less than the dense optimum; every
    path over the full states whose moves are uncancelled runs of K steps, single steps out
    of a full state where the field cancels skipping, and an uncancelled run of at most K
    steps onto the goal is a path here too, so it never costs more than the best of those
    (without constraints: the uniform lattice of spacing ``K·spacing`` from the start's
    state, with a last short run onto the goal).

    On the eager graph a search expands more states than the dense search does: each
    point carries up to ``1 + 8·(K - 1)`` states, and a search that floods an area (AD*
    searching back from the goal and proving its plan optimal) meets many of them.  The
    lazy search expands fewer than the dense one (docs/quickstart/constraints.md has the
    measured figures).

    ``state_point``: ``(N,)`` int64 the full state at each state's point; ``direction``:
    ``(N,)`` int64 index in :data:`~wayfinding.navmesh.constraint_domains.DIRECTIONS` of
    each state's direction (-1 for a full state); ``remaining``: ``(N,)`` int64 its
    remaining skips (0 for a full state); ``dense``: the dense domain it refines.

    >>> from wayfinding.constraints import Constraint, ConstraintSet, Disc
    >>> from wayfinding.navmesh import DenseMeshDomain, NavMesh
    >>> mesh = NavMesh.build(outline=[(0, 0), (32, 0), (32, 20), (0, 20)])
    >>> pond = ConstraintSet([Constraint.hard(Disc((16, 10), 1.5))])
    >>> dense = DenseMeshDomain(mesh, spacing=0.5)
    >>> r = AdaptiveDomain(dense).find_path((2, 10), (30, 13), constraints=pond)
    >>> d = dense.find_path((2, 10), (30, 13), constraints=pond)
    >>> round(r.cost - d.cost, 9), r.stats.expanded < d.stats.expanded
    (0.0, True)
    """

    kind = "adaptive"

    #: On the eager graph (the planner's) a query point joins its nearest full state only:
    #: each further state it entered by would start another lattice of runs, and the
    #: search would expand them all.
    join_count = 1

    def __init__(self, dense: DenseMeshDomain, *, max_skips: int = 4, threshold: float = 0.0):
        if not (isinstance(dense, ConstraintDomain) and dense.kind == "dense"):
            raise InvalidQueryError(f"dense {brief(dense)} must be a mesh's dense domain "
                                    "(DenseMeshDomain)")
        k = count("max_skips", max_skips, min=1, max=64)
        self.threshold = positive_float("threshold", threshold, allow_zero=True)
        self.dense = dense
        self.mesh = dense.mesh
        self.max_skips = k
        self.spacing = dense.spacing
        n = dense.num_nodes
        nb, step = dense.neighbour, dense.edge_of
        src, dst, role, via, run = [], [], [], [], []

        def add(s: np.ndarray, t: np.ndarray, r: int, e: np.ndarray, steps: np.ndarray) -> None:
            src.append(s)
            dst.append(t)
            role.append(np.full(len(s), r, dtype=np.int8))
            via.append(e)
            run.append(steps)

        # chains of skip states out of every full state, one direction each
        ids = np.repeat(np.arange(n), 8)
        at, code = ids.copy(), np.tile(np.arange(8), n)
        steps = np.full((len(ids), k), -1, dtype=np.int64)
        where, direction, remaining = [np.arange(n)], [np.full(n, -1)], [np.zeros(n, np.int64)]
        first = np.full((n, 8), -1, dtype=np.int64)       # skip state (p + d, d, K - 1)
        blocked_ids, blocked_at = [], []
        total = n
        for j in range(k):
            nxt = nb[at, code]
            ok = nxt >= 0
            if j:
                blocked_ids.append(ids[~ok])
                blocked_at.append(at[~ok])
            ids, at, code, nxt = ids[ok], at[ok], code[ok], nxt[ok]
            steps = steps[ok]
            steps[:, j] = step[at, code]
            if j + 1 < k:
                new = total + np.arange(len(ids))
                total += len(ids)
                add(ids, new, _SKIP, steps[:, j], steps)
                add(ids, nxt, _FULL, steps[:, j], steps)
                where.append(nxt)
                direction.append(code)
                remaining.append(np.full(len(ids), k - 1 - j, dtype=np.int64))
                if not j:
                    first[at, code] = new
                ids, at = new, nxt
            else:
                add(ids, nxt, _STEP, steps[:, j], steps)
        # a skip state whose run cannot go on branches as the full state at its point does
        if k > 1:
            s_ids, s_at = np.concatenate(blocked_ids), np.concatenate(blocked_at)
            rows, codes = np.nonzero(nb[s_at] >= 0)
            e = step[s_at[rows], codes]
            one = np.full((len(e), k), -1, dtype=np.int64)
            one[:, 0] = e
            add(s_ids[rows], first[s_at[rows], codes], _SKIP, e, one)
            add(s_ids[rows], nb[s_at[rows], codes], _FULL, e, one)
        self.state_point = np.concatenate(where).astype(np.int64)
        self.direction = np.concatenate(direction).astype(np.int64)
        self.remaining = np.concatenate(remaining)
        # every skip state onto the full state at its point (goal; hard constraint ahead)
        skip = np.arange(n, total)
        q, d = self.state_point[skip], self.direction[skip]
        pad = np.full((len(skip), k), -1, dtype=np.int64)
        pad[:, 0] = np.where(nb[q, d] >= 0, step[q, d], -1)
        add(skip, q, _LINK, np.full(len(skip), -1), pad)

        s, t = np.concatenate(src), np.concatenate(dst)
        order = np.lexsort((t, s))
        self._role = np.concatenate(role)[order]
        self._via = np.concatenate(via)[order]
        self._run = np.concatenate(run)[order]
        base = np.append(dense.base_costs, 0.0)[self._via]
        super().__init__(dense.points[self.state_point], np.stack([s[order], t[order]], 1),
                         base)
        for arr in (self.state_point, self.direction, self.remaining, self._role, self._via,
                    self._run):
            arr.flags.writeable = False

    # -- costs ------------------------------------------------------------------------
    def weight_integrals(self, constraints: Fields, *, t: float = 0.0) -> np.ndarray:
        """``(k_dense,)`` float64 per transition of :attr:`dense`: the integral of
        ``Σ_c |W_c|`` along it at time ``t`` (the mean at the 4 samples times its length;
        ``inf`` where it crosses a hard constraint)."""
        field = checked(constraints)
        t = finite_float("t", t)
        d = self.dense
        out = np.zeros(d.num_edges)
        if field is None:
            return out
        for c, box in zip(field, field.influence(t=t)):
            if box is None:
                continue
            ids = d.edges_meeting([box])
            a, b = d.points[d.edges[ids, 0]], d.points[d.edges[ids, 1]]
            if c.is_hard:
                out[ids[c.annotation.crosses(a, b)]] = np.inf
                continue
            frac = np.array(SAMPLES)
            pts = (a[None] + frac[:, None, None] * (b - a)[None]).reshape(-1, 2)
            w = np.abs(c.weights(pts, t=t)).reshape(len(frac), -1).mean(axis=0)
            out[ids] += w * d.base_costs[ids]
        return out

    def costs(self, constraints: Fields, *, t: float = 0.0,
              goal: int | None = None) -> np.ndarray:
        """``(k,)`` float64 cost of each transition under ``constraints`` at time ``t``:
        a step costs what its dense transition costs
        (:meth:`~wayfinding.graph.constrained.ConstraintDomain.costs`), a transition onto
        the full state at a skip state's point 0; ``inf`` for the transitions the adaptive
        rule rules out for this field and ``goal`` (a state, standing for the full state
        at its point; None: no goal link)."""
        t = finite_float("t", t)
        field = checked(constraints)
        if goal is not None:
            goal = int(self.state_point[count("goal", goal, min=0, max=self.num_nodes - 1)])
        dense = self.dense.costs(field, t=t)
        area = np.append(self.weight_integrals(field, t=t), 0.0)
        out = np.append(dense, 0.0)[self._via]
        role = self._role
        within = area[self._run].sum(axis=1) <= self.threshold
        out[(role == _SKIP) & ~within] = np.inf
        out[(role == _FULL) & within] = np.inf
        link = role == _LINK
        ahead = self._run[link, 0]
        open_ = (ahead >= 0) & ~np.isfinite(area[ahead])
        if goal is not None:
            lattice = self.dense.lattice
            near = np.abs(lattice[self._edges[link, 1]] - lattice[goal]).max(axis=1)
            open_ |= near <= self.max_skips
        out[np.flatnonzero(link)[~open_]] = np.inf
        return out

    def _edge_extent(self) -> tuple[np.ndarray, np.ndarray]:
        """A transition's cost depends on its run from the full state it left (and a link
        on the step ahead of it): the box of those dense transitions and its own ends."""
        return self._extent

    @cached_property
    def _extent(self) -> tuple[np.ndarray, np.ndarray]:
        d = self.dense
        a, b = d.points[d.edges[:, 0]], d.points[d.edges[:, 1]]
        lo = np.vstack([np.minimum(a, b), np.full((1, 2), np.inf)])
        hi = np.vstack([np.maximum(a, b), np.full((1, 2), -np.inf)])
        p, q = self._points[self._edges[:, 0]], self._points[self._edges[:, 1]]
        low = np.minimum(np.minimum(p, q), lo[self._run].min(axis=1))
        high = np.maximum(np.maximum(p, q), hi[self._run].max(axis=1))
        low.flags.writeable = high.flags.writeable = False
        return low, high

    def _join_states(self) -> np.ndarray:
        """Query points join full states."""
        return np.arange(self.dense.num_nodes, dtype=np.int64)

    def segments_free(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``(m,)`` bool: segment ``a[i]`` → ``b[i]`` stays on the mesh (as in the dense
        domain)."""
        return self.dense.segments_free(a, b)

    @cached_property
    def _leg_piece(self) -> float:
        """Legs are costed in pieces of at most ``spacing``, as in the dense domain."""
        return float(self.spacing)

    # -- the lazy search ---------------------------------------------------------------
    def find_path(self, start: Any, goal: Any, *, constraints: Fields = None, t: float = 0.0,
                  method: str = "astar") -> ConstrainedPath:
        """The route from world point ``start`` to ``goal`` under ``constraints`` at time
        ``t`` found by the chapter's lazily evaluated search over :attr:`dense` (A*, or
        Dijkstra for ``method="dijkstra"``), not by a search of the eager graph.

        Each lattice point is one state.  When a state is generated (or generated again
        by a cheaper parent) it takes its direction, remaining skips and the |W| integral
        of its run from that parent: a full state branches along its dense transitions,
        each successor a skip state with ``max_skips - 1`` skips left where the step's
        integral is within ``threshold`` (else a full state); a skip state has one
        successor, the next point in its direction, with one skip fewer (a full state at
        the last), while the run's integral stays within ``threshold``; it branches as a
        full state does where the run cannot go on (a wall, a hard constraint, the
        threshold) and within ``max_skips`` lattice steps (in x and y) of a goal's state.
        Points off the runs are never generated.  Should the open list run out before the
        goal, the skip states that went on are expanded again as full states, so a route
        is found exactly when the dense domain has one.  The ends join :attr:`dense` as its own
        queries do (its 8 nearest states; the straight leg between the ends where free).

        The route is a dense route: every step a dense transition, its ``cost`` the sum
        of their constrained costs and the legs', never below the dense optimum.  A
        generated point keeps one parent, so the search is not exact on any fixed graph;
        with ``max_skips=1``, or where every step's integral exceeds ``threshold``, it is
        the dense search.  The heuristic (Euclidean, as the dense domain's) is consistent,
        so a closed state is never reopened.  Ties in f go to the smaller heuristic, then
        to the state generated first.  ``nodes`` are :attr:`dense` states; ``stats``
        counts the start and each lattice point expanded.
        """
        t0 = time.perf_counter()
        s = finite_point("start", start)
        g = finite_point("goal", goal)
        method, t, field, name = _query_options(self.kind, method, t, constraints)
        dense = self.dense
        starts, s_legs = dense.joins(s, field, t=t)
        goals, g_legs = dense.joins(g, field, t=t)
        direct = dense.straight_leg(s, g, field, t=t)
        scale = 0.0 if method == "dijkstra" else self._heuristic_scale
        nodes, cost, stats = self._lazy(s, g, starts, s_legs, goals, g_legs, direct, field,
                                        t, scale)
        found = math.isfinite(cost)
        route = PathResult(np.asarray(nodes if found else [], dtype=np.int64), cost, found,
                           stats, name)
        return _routed(name, t0, route, s, g, dense.points)

    @cached_property
    def _heuristic_scale(self) -> float:
        return min(self.dense.base_graph.heuristic_scale, self.dense.leg_cost)

    @cached_property
    def _lattice_lists(self) -> tuple[list, list, list, list]:
        """The dense lattice as Python lists for the search loop: each point's 8
        neighbours and transitions (-1: none), its lattice index and its world point."""
        d = self.dense
        return (d.neighbour.tolist(), d.edge_of.tolist(), d.lattice.tolist(),
                d.points.tolist())

    def _step_lists(self, field: Fields, t: float) -> tuple[list, list]:
        """The constrained cost and the |W| integral of each dense transition for
        ``field`` at ``t`` as lists, kept for the last few sets and times asked."""
        key = (id(field), t)
        with self._lock:
            hit = self._lazy_fields.get(key)
            if hit is not None and hit[0] is field:
                return hit[1], hit[2]
        cost = self.dense.costs(field, t=t).tolist()
        area = self.weight_integrals(field, t=t).tolist()
        with self._lock:
            self._lazy_fields[key] = (field, cost, area)
            while len(self._lazy_fields) > 4:
                del self._lazy_fields[next(iter(self._lazy_fields))]
        return cost, area

    @cached_property
    def _lazy_fields(self) -> dict[tuple, tuple[Any, list, list]]:
        return {}

    def _lazy(self, s: np.ndarray, g: np.ndarray, starts: np.ndarray, s_legs: np.ndarray,
              goals: np.ndarray, g_legs: np.ndarray, direct: float, field: Fields, t: float,
              scale: float) -> tuple[list[int], float, SearchStats]:
        """The lazy A* (:meth:`find_path`): the dense states of the route and its cost
        (``inf``: none), and the search's statistics."""
        nb, eo, lat, pts = self._lattice_lists
        step, area = self._step_lists(field, t)
        k, limit = self.max_skips, self.threshold
        gx, gy = float(g[0]), float(g[1])
        leg = dict(zip(goals.tolist(), g_legs.tolist()))
        if leg:
            box = np.asarray([lat[v] for v in leg])
            x0, y0 = (box.min(axis=0) - k).tolist()
            x1, y1 = (box.max(axis=0) + k).tolist()
        else:
            x0, y0, x1, y1 = 1, 1, 0, 0          # no goal state: nowhere near one
        everywhere = tuple((c, k - 1, 0.0) for c in range(8))
        hypot, push, pop, inf = math.hypot, heapq.heappush, heapq.heappop, math.inf
        best: dict[int, float] = {}
        parent: dict[int, int] = {}
        run: dict[int, tuple[int, int, float]] = {}     # direction, skips left, integral
        closed: set[int] = set()
        heap: list[tuple[float, float, int, int]] = []
        goal, seq = -2, 0
        found = direct
        if math.isfinite(direct):
            push(heap, (direct, 0.0, seq, goal))
            seq += 1
        for u, c in zip(starts.tolist(), s_legs.tolist()):
            if c < best.get(u, inf):
                best[u], parent[u], run[u] = c, -1, (-1, 0, 0.0)
                h = scale * hypot(pts[u][0] - gx, pts[u][1] - gy)
                push(heap, (c + h, h, seq, u))
                seq += 1
        expanded, most = 1, len(heap)
        narrow: list[int] = []        # skip states expanded with their one successor
        while heap or narrow:
            if not heap:
                # exhausted without the goal: branch fully where runs went on, so that
                # the search reaches every point the dense domain does
                for u in narrow:
                    closed.discard(u)
                    run[u] = (-1, 0, 0.0)
                    h = scale * hypot(pts[u][0] - gx, pts[u][1] - gy)
                    push(heap, (best[u] + h, h, seq, u))
                    seq += 1
                narrow.clear()
            _, _, _, u = pop(heap)
            if u == goal:
                break
            if u in closed:
                continue
            closed.add(u)
            expanded += 1
            gu = best[u]
            if u in leg and gu + leg[u] < found:
                found = gu + leg[u]
                parent[goal] = u
                push(heap, (found, 0.0, seq, goal))
                seq += 1
            d, left, acc = run[u]
            lx, ly = lat[u]
            branches = everywhere
            if left and not (x0 <= lx <= x1 and y0 <= ly <= y1):
                e = eo[u][d]
                if e >= 0 and step[e] < inf and acc + area[e] <= limit:
                    branches = ((d, left - 1, acc + area[e]),)
                    narrow.append(u)
            for c, rest, a in branches:
                e = eo[u][c]
                if e < 0:
                    continue
                w = step[e]
                if w == inf:
                    continue
                v = nb[u][c]
                gv = gu + w
                if gv >= best.get(v, inf) or v in closed:
                    continue
                if rest == k - 1:
                    a = area[e]
                    if a > limit:
                        rest = 0
                best[v], parent[v] = gv, u
                run[v] = (c, rest, a) if rest else (-1, 0, 0.0)
                h = scale * hypot(pts[v][0] - gx, pts[v][1] - gy)
                push(heap, (gv + h, h, seq, v))
                seq += 1
            most = max(most, len(heap))
        stats = SearchStats(expanded=expanded, generated=seq, max_open=most)
        if not math.isfinite(found):
            return [], inf, stats
        nodes = []
        v = parent.get(goal, -1)
        while v >= 0:
            nodes.append(v)
            v = parent[v]
        return nodes[::-1], found, stats
