"""Constraint-aware planning (Kapadia et al.): AD* over a search domain whose transition
costs a constraint set multiplies, repaired when the constraints, the time or the agent change.

A :class:`ConstraintPlanner` runs the library's :class:`~wayfinding.search.ADStar` on a
:class:`~wayfinding.graph.constrained.ConstraintDomain` (the grid's dense domain, a
navigation mesh's triangulation, dense, hybrid or adaptive highway domain, a positioned
graph's links) with the costs :meth:`ConstraintDomain.costs
<wayfinding.graph.constrained.ConstraintDomain.costs>` gives: each transition's base cost
times the mean multiplier at four samples along it, ``inf`` across a hard constraint.  The
search is rooted at the agent's goal with the heuristic aimed at the agent (Likhachev's
convention), so the agent may move along its path without a new search.  The start and goal
are world points, and the search runs on ``domain.find_path``'s query graph: a start node and
a goal node joined to the states of :meth:`ConstraintDomain.joins
<wayfinding.graph.constrained.ConstraintDomain.joins>` by their legs' costs, and to each other
by the straight leg when it is free, so a finished plan costs what ``domain.find_path`` finds
(the adaptive highway domain's ``find_path`` is its lazy search; the planner searches its
eager graph with the same joins).

:meth:`~ConstraintPlanner.plan` is anytime: its first path is within ``epsilon`` times the
optimum (2.5 by default, Kapadia et al.'s ε0) and each round lowers the bound by ``step``
down to 1 (optimal), within the budget of each call.  Changes are repaired as their
ConstraintChangeUpdate does: :meth:`~ConstraintPlanner.move_constraint`,
:meth:`~ConstraintPlanner.set_constraints` and :meth:`~ConstraintPlanner.set_time` re-cost
only the transitions in the old and new regions of influence of the constraints that changed
(:meth:`ConstraintSet.influence <wayfinding.constraints.ConstraintSet.influence>`; hard ones
become ``inf``; the transitions a region meets are the domain's
:meth:`~wayfinding.graph.constrained.ConstraintDomain.edges_meeting`), cost the end points'
legs again and hand those whose cost changed to the search, which repairs within its current
epsilon.  A change that cuts the published path (a hard constraint moved onto it) leaves the
agent without a path: its repair starts at ``epsilon0`` again, so a plan within that bound
usually comes back within fewer expansions (a sixth to a half of them in five of six cuts
measured on a walled 100 × 100 grid and a mesh's dense domain; a third more in the sixth, a
detour the inflated heuristic misjudges) and the next calls refine it (Kapadia et al.'s
real-time rule: raise epsilon when a plan is invalidated; ``raise_epsilon=False`` repairs at
the current epsilon).  A domain whose transition costs depend on more than each transition's
own segment (the adaptive highway domain) has its costs computed whole, and still hands over
only those transitions.  A change of the base weight W0 (adding or removing an attractor, or
the time changing a callable weight of one) lifts every cost: the planner then starts over
at ``epsilon0``.  A change that alters which states an end point joins starts a new search at
``epsilon0`` (the transitions are still re-costed only where the change reaches).  The start
moved to a state on the current path keeps the search (the queue is re-keyed and the agent
goes on from that state); moved off it, or the goal changed, the plan is cleared and
planning restarts at ``epsilon0``.

Constraints that cannot all be met are traded off by their weights (best effort): each plan
reports, per constraint, the share of its path's length along which that constraint is
satisfied (:attr:`ConstraintPlan.satisfied`, :func:`satisfied_shares`; the raw share inside
each annotation is :func:`inside_shares`).

>>> from wayfinding.constraints import Constraint, ConstraintSet, Region
>>> from wayfinding.graph.constrained import ConstraintDomain
>>> ring = ConstraintDomain([(0, 0), (2, 0), (2, 2), (0, 2)],
...                        [(0, 1), (1, 2), (2, 3), (3, 0), (1, 0), (2, 1), (3, 2), (0, 3)],
...                        [2.0] * 8)
>>> planner = ConstraintPlanner(ring, (0, 0), (2, 2), None, epsilon=1.0)
>>> planner.plan().path.tolist()                              # free: the straight leg
[[0.0, 0.0], [2.0, 2.0]]
>>> pillar = Region([(0.5, 0.5), (1.5, 0.5), (1.5, 1.5), (0.5, 1.5)])
>>> wall = Region([(1.5, -0.5), (2.5, -0.5), (2.5, 0.5), (1.5, 0.5)])
>>> planner.set_constraints(ConstraintSet([Constraint.hard(pillar), Constraint.hard(wall)]))
>>> plan = planner.plan()
>>> plan.path.tolist(), plan.cost, plan.satisfied.tolist()
([[0.0, 0.0], [0.0, 2.0], [2.0, 2.0]], 4.0, [1.0, 1.0])
>>> planner.move_start((7, 7)); planner.plan().path.tolist()   # off the ring: straight on
[[7.0, 7.0], [2.0, 2.0]]
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._scratch import SingleThread, exclusive
from .._validate import count, finite_float, finite_point, flag, number, step_budget
from ..constraints import Annotation, Constraint, ConstraintSet
from ..errors import InvalidQueryError, brief
from ..graph.constrained import ConstrainedPath, ConstraintDomain
from ..graph.csr import CSRGraph
from ..results import SearchStats, Status, _fields_equal
from ..search.incremental import ADStar, AnytimePath

#: Sample pieces per annotation extent when measuring the share of a path inside it: a
#: boundary crossing between two samples is then found by bisection to float precision.
_SHARE_PIECES = 32
#: The most sample pieces per path segment and annotation.
_SHARE_MAX_PIECES = 256
#: Refinements of a piece whose ends lie outside an annotation it meets (a graze).
_SHARE_REFINE = 6
#: Bisection steps that find a boundary crossing within a piece.
_SHARE_BISECT = 60
#: Sample pieces per unit of a Near constraint's reach |w| when averaging its membership.
_NEAR_PIECES = 64
#: The most such pieces per path segment.
_NEAR_MAX_PIECES = 4096


@dataclass(slots=True, repr=False, kw_only=True)
class ConstraintPlan(ConstrainedPath):
    """A constraint-aware plan: ``path`` the ``(m, 2)`` float64 world points from the start
    point to the goal point, ``cost`` its constrained cost (the legs joining the end points
    to their states included), ``nodes`` the ``(j,)`` int64 domain states it passes through.
    ``epsilon``: the bound of an anytime plan (``cost`` at most ``epsilon`` times the
    optimum; 1: optimal; inf when no path is known or the path is the previous round's after
    a change not yet repaired).  ``satisfied``: ``(c,)`` float64, per constraint of the
    planner's set in order, the share of the path's length along which it is satisfied at
    the planner's time (:func:`satisfied_shares`: 1 when the path does all it asks, for
    attractors and repellers alike; 0 without a path).  ``status`` as
    :class:`~wayfinding.search.incremental.AnytimePath`."""

    epsilon: float = math.inf
    satisfied: Any = None

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        ConstrainedPath.__post_init__(self)
        if self.satisfied is None:
            self.satisfied = np.empty(0)


def _constraint_set(constraints: Any, name: str = "constraints") -> ConstraintSet:
    """``constraints`` as a :class:`~wayfinding.constraints.ConstraintSet`: None (no
    constraint), a set, one :class:`~wayfinding.constraints.Constraint` or an iterable of them."""
    if constraints is None:
        return ConstraintSet(())
    if isinstance(constraints, ConstraintSet):
        return constraints
    if isinstance(constraints, Constraint):
        return ConstraintSet([constraints])
    if isinstance(constraints, Iterable) and not isinstance(constraints, (str, bytes)):
        items = list(constraints)
        for i, c in enumerate(items):
            if not isinstance(c, Constraint):
                raise InvalidQueryError(f"{name}[{i}] {brief(c)} is not a Constraint")
        return ConstraintSet(items)
    raise InvalidQueryError(f"{name} {brief(constraints)} must be a ConstraintSet, a "
                            "Constraint, an iterable of them or None")


def inside_shares(constraints: ConstraintSet, path: Any) -> np.ndarray:
    """``(c,)`` float64: per constraint of ``constraints``, the share of the length of
    ``path`` (``(m, 2)`` world points) inside its annotation.

    Each segment is sampled at about 32 pieces per extent of the annotation (its bounding
    box's smaller side; at most 256 pieces per segment); a boundary crossing between two
    samples is found by bisection to float precision, and a piece whose ends lie outside
    but which meets the annotation is refined.  Exact (to the annotations' border tolerance,
    :data:`~wayfinding.geometry.TOLERANCE` per crossing) when the path crosses the border at
    most once per piece, as it always does a convex annotation's.

    >>> from wayfinding.constraints import Constraint, ConstraintSet, Disc
    >>> shares = inside_shares(ConstraintSet([Constraint(Disc((5, 0), 1.0), -2)]),
    ...                        [(0, 0), (10, 0)])
    >>> shares.round(6).tolist()
    [0.2]
    """
    cs = _constraint_set(constraints)
    pts = _path_points(path)
    out = np.zeros(len(cs))
    if len(pts) < 2:
        return out
    a, b = pts[:-1], pts[1:]
    total = float(np.hypot(*(b - a).T).sum())
    if total <= 0:
        return out
    for i, c in enumerate(cs):
        out[i] = min(1.0, _inside_length(c.annotation, a, b) / total)
    return out


def satisfied_shares(constraints: Any, path: Any, *, t: float = 0.0) -> np.ndarray:
    """``(c,)`` float64 in [0, 1]: per constraint of ``constraints``, the share of the
    length of ``path`` (``(m, 2)`` world points) along which it is satisfied at time ``t``.

    A constraint's membership along the path is ``μ(x) = W_c(x) / w``: 1 inside its
    annotation and 0 outside for In and hard constraints; for Near, 1 inside falling
    linearly to 0 at ``|w|`` outside.  An attractor's share is the mean of ``μ`` over the
    path's length, a repeller's and a hard constraint's the mean of ``1 - μ``: 1 always
    means the path does what the constraint asks, for attractors and repellers alike.  A
    constraint of weight 0 at ``t`` asks nothing (1); a path of length 0 takes ``μ`` at its
    point; an empty path satisfies nothing (0).  In and hard shares are exact as
    :func:`inside_shares`; Near means are midpoint sums over pieces of at most ``|w| / 64``
    (4096 per segment at most; ``μ`` changes by at most ``1 / |w|`` per unit).

    >>> from wayfinding.constraints import Constraint, ConstraintSet, Disc
    >>> guard = Constraint(Disc((5, 0), 1.0), -2)
    >>> satisfied_shares(ConstraintSet([guard]), [(0, 0), (10, 0)]).round(6).tolist()
    [0.8]
    >>> lamp = Constraint(Disc((5, 0), 1.0), 2, near=True)     # μ: 1 inside, 0 at 2 out
    >>> satisfied_shares(ConstraintSet([lamp]), [(0, 0), (10, 0)]).round(6).tolist()
    [0.4]
    """
    cs = _constraint_set(constraints)
    t = finite_float("t", t)
    pts = _path_points(path)
    out = np.zeros(len(cs))
    if not len(pts):
        return out
    a, b = pts[:-1], pts[1:]
    length = np.hypot(*(b - a).T)
    total = float(length.sum())
    for i, c in enumerate(cs):
        w = c.weight_at(t)
        if w == 0:
            out[i] = 1.0
            continue
        if total <= 0:
            mean = float(c.weights(pts[:1], t=t)[0] / w)
        elif c.near and not c.is_hard:
            mean = _near_length(c, w, t, a, b, length) / total
        else:
            mean = _inside_length(c.annotation, a, b) / total
        mean = min(1.0, max(0.0, mean))
        out[i] = mean if w > 0 else 1.0 - mean
    return out


def _path_points(path: Any) -> np.ndarray:
    """``path`` as a finite ``(m, 2)`` float64 array of points."""
    pts = np.asarray(path, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2 or not np.isfinite(pts).all():
        raise InvalidQueryError(f"path {brief(path)} must be a finite (m, 2) array of points")
    return pts


def _near_length(c: Constraint, w: float, t: float, a: np.ndarray, b: np.ndarray,
                 length: np.ndarray) -> float:
    """The integral of a Near constraint's membership ``W_c / w`` along the segments
    ``a[i]`` → ``b[i]`` (see :func:`satisfied_shares`)."""
    x0, y0, x1, y1 = c.annotation.bounds
    r = abs(w)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    meet = ((lo[:, 0] <= x1 + r) & (hi[:, 0] >= x0 - r) & (lo[:, 1] <= y1 + r)
            & (hi[:, 1] >= y0 - r))
    if not meet.any():
        return 0.0
    pieces = np.clip(np.ceil(length[meet] * _NEAR_PIECES / r), 1,
                     _NEAR_MAX_PIECES).astype(np.int64)
    p, q = _split(a[meet], b[meet], pieces)
    mu = c.weights(0.5 * (p + q), t=t) / w
    return float((mu * np.hypot(*(q - p).T)).sum())


def _inside_length(ann: Annotation, a: np.ndarray, b: np.ndarray) -> float:
    """The length of the segments ``a[i]`` → ``b[i]`` inside ``ann`` (see
    :func:`inside_shares`)."""
    x0, y0, x1, y1 = ann.bounds
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    meet = (lo[:, 0] <= x1) & (hi[:, 0] >= x0) & (lo[:, 1] <= y1) & (hi[:, 1] >= y0)
    a, b = a[meet], b[meet]
    if not len(a):
        return 0.0
    spacing = max(min(x1 - x0, y1 - y0), 1e-9) / _SHARE_PIECES
    length = np.hypot(*(b - a).T)
    pieces = np.clip(np.ceil(length / spacing), 1, _SHARE_MAX_PIECES).astype(np.int64)
    p, q = _split(a, b, pieces)
    inside = 0.0
    for depth in range(_SHARE_REFINE + 1):
        in_p, in_q = ann.contains(p), ann.contains(q)
        both = in_p & in_q
        inside += float(np.hypot(*(q[both] - p[both]).T).sum())
        mixed = in_p != in_q
        if mixed.any():
            inner = np.where(in_p[mixed, None], p[mixed], q[mixed])
            outer = np.where(in_p[mixed, None], q[mixed], p[mixed])
            edge = _boundary(ann, inner, outer)
            inside += float(np.hypot(*(edge - inner).T).sum())
        graze = ~in_p & ~in_q
        if depth == _SHARE_REFINE or not graze.any():
            break
        graze[graze] = ann.crosses(p[graze], q[graze])
        if not graze.any():
            break
        p, q = _split(p[graze], q[graze], np.full(int(graze.sum()), 8))
    return inside


def _split(a: np.ndarray, b: np.ndarray, pieces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Segment ``a[i]`` → ``b[i]`` cut into ``pieces[i]`` equal pieces: their ends."""
    seg = np.repeat(np.arange(len(a)), pieces)
    first = np.repeat(np.cumsum(pieces) - pieces, pieces)
    k = (np.arange(len(seg)) - first).astype(np.float64)
    n = pieces[seg].astype(np.float64)
    d = b[seg] - a[seg]
    return a[seg] + d * (k / n)[:, None], a[seg] + d * ((k + 1) / n)[:, None]


def _boundary(ann: Annotation, inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """The last point inside ``ann`` from ``inner`` (inside) towards ``outer`` (outside),
    by bisection."""
    for _ in range(_SHARE_BISECT):
        mid = 0.5 * (inner + outer)
        c = ann.contains(mid)[:, None]
        inner, outer = np.where(c, mid, inner), np.where(c, outer, mid)
    return inner


class ConstraintPlanner(SingleThread):
    """AD* from world point ``start`` to ``goal`` over ``domain`` (a
    :class:`~wayfinding.graph.constrained.ConstraintDomain`) under ``constraints`` (a
    :class:`~wayfinding.constraints.ConstraintSet`, one
    :class:`~wayfinding.constraints.Constraint` or an iterable of them, or None) at time
    ``t`` (seconds, for time-varying weights), repaired as the module says.

    ``epsilon``: the first round's inflation (>= 1; 2.5 by default, Kapadia et al.'s ε0; 1 plans
    optimally at once); ``step``: how much each round lowers it (> 0); ``raise_epsilon``
    (True by default): a change that cuts the published path is repaired from ``epsilon``
    again (see the module).  One thread at a time.
    """

    _costs: np.ndarray          # the current cost of each domain transition
    _starts: np.ndarray         # the states the start and goal join (their legs are
    _goals: np.ndarray          # query edges _s_ids and _g_ids)
    _s_ids: np.ndarray
    _g_ids: np.ndarray
    _d_id: int                  # the query edge of the straight leg (-1: not free)
    _where: np.ndarray          # the query edge of each domain transition
    _leg_costs: np.ndarray      # the current cost of each leg, by query edge
    _agent: int                 # the search's agent node: the start node or a state
    _ad: ADStar | None          # the search (none when no route can join the end points)

    def __init__(self, domain: ConstraintDomain, start: Any, goal: Any,
                 constraints: Any, *, t: float = 0.0, epsilon: float = 2.5,
                 step: float = 0.5, raise_epsilon: bool = True):
        if not isinstance(domain, ConstraintDomain):
            raise InvalidQueryError(f"domain {brief(domain)} is not a ConstraintDomain")
        self._domain = domain
        self._start = finite_point("start", start)
        self._goal = finite_point("goal", goal)
        self._set = _constraint_set(constraints)
        self._t = finite_float("t", t)
        self.epsilon0 = number("epsilon", epsilon, min=1.0)
        self.step = number("step", step, min=0.0, min_open=True)
        raise_epsilon = flag("raise_epsilon", raise_epsilon)
        self.raise_epsilon = raise_epsilon
        self._repaired = domain.num_edges
        self._published: tuple[Any, ConstraintPlan] | None = None
        self._rebuild()

    # -- state ------------------------------------------------------------------------
    @property
    def domain(self) -> ConstraintDomain:
        return self._domain

    @property
    def constraints(self) -> ConstraintSet:
        """The constraint set planned under."""
        return self._set

    @property
    def t(self) -> float:
        """The time (seconds) the weights are taken at."""
        return self._t

    @property
    def start(self) -> np.ndarray:
        """The agent's position, ``(2,)`` float64 world point."""
        return self._start.copy()

    @property
    def goal(self) -> np.ndarray:
        """The goal, ``(2,)`` float64 world point."""
        return self._goal.copy()

    @property
    def costs(self) -> np.ndarray:
        """``(k,)`` float64 current cost of each domain transition (read-only view)."""
        view = self._costs.view()
        view.flags.writeable = False
        return view

    @property
    def repaired_edges(self) -> int:
        """How many transitions the last change re-costed (all of them after a start
        over)."""
        return self._repaired

    @property
    def epsilon(self) -> float:
        """The inflation of the round under way (``epsilon0`` after a start over)."""
        return self.epsilon0 if self._ad is None else self._ad.epsilon

    @property
    def finished(self) -> bool:
        """Whether the plan is optimal (the epsilon-1 round ended), or none exists."""
        return self._ad is None or self._ad.finished

    # -- planning ---------------------------------------------------------------------
    @exclusive
    def plan(self, *, max_expansions: int | None = None,
             max_seconds: float | None = None) -> ConstraintPlan:
        """Work within the budget (expansions and/or seconds; none: until optimal) and
        return the best plan published so far (see
        :meth:`ADStar.plan <wayfinding.search.incremental.ADStar.plan>`)."""
        t0 = time.perf_counter()
        max_expansions, max_seconds = step_budget(max_expansions, max_seconds)
        if self._ad is None:
            return self._none(Status.FAILED, SearchStats(elapsed=time.perf_counter() - t0))
        r = self._ad.plan(max_expansions=max_expansions, max_seconds=max_seconds)
        if self._published is None or self._published[0] is not r:
            self._published = (r, self._plan_of(r))
        stats = SearchStats(expanded=r.stats.expanded, elapsed=time.perf_counter() - t0)
        return replace(self._published[1], stats=stats)

    def _none(self, status: Status, stats: SearchStats) -> ConstraintPlan:
        """No plan (yet)."""
        return ConstraintPlan(path=np.empty((0, 2)), cost=math.inf, found=False, stats=stats,
                              algorithm=f"ad_star_{self._domain.kind}", status=status,
                              satisfied=np.zeros(len(self._set)))

    def _plan_of(self, r: AnytimePath) -> ConstraintPlan:
        """The world plan of the search's published node path ``r`` (stats left empty)."""
        nodes = np.asarray(r.path, dtype=np.int64)
        if not r.found or not len(nodes):
            return self._none(r.status, SearchStats())
        nodes = nodes[nodes < self._domain.num_nodes]
        pts = np.concatenate([self._start[None], self._domain.points[nodes], self._goal[None]])
        keep = np.ones(len(pts), dtype=bool)
        keep[1:] = np.any(pts[1:] != pts[:-1], axis=1)
        pts = pts[keep]
        return ConstraintPlan(path=pts, cost=float(r.cost), found=True, algorithm=f"ad_star_"
                              f"{self._domain.kind}", status=r.status, epsilon=r.epsilon,
                              nodes=nodes, satisfied=satisfied_shares(self._set, pts,
                                                                        t=self._t))

    # -- changes ----------------------------------------------------------------------
    @exclusive
    def set_constraints(self, constraints: Any) -> None:
        """Plan under ``constraints`` from now on: the transitions in the regions of
        influence of the constraints removed and added are re-costed (a constraint object is
        compared by identity and counted: one given twice weighs twice)."""
        new = _constraint_set(constraints)
        before = Counter(id(c) for c in self._set)
        after = Counter(id(c) for c in new)
        boxes = [box for s in (self._set, new) for c, box in zip(s, s.influence(t=self._t))
                 if before[id(c)] != after[id(c)]]
        self._change(new, self._t, boxes)

    @exclusive
    def move_constraint(self, index: int, annotation: Annotation) -> None:
        """Constraint ``index`` now lies on ``annotation`` (an object or agent moved, e.g.
        ``annotation.moved(...)``), with its weight and preposition kept: the transitions
        in its old and new regions of influence are re-costed."""
        if not len(self._set):
            raise InvalidQueryError(f"index {brief(index)}: the planner has no constraint")
        i = count("index", index, min=0, max=len(self._set) - 1)
        old = self._set[i]
        new = self._set.replaced(i, old.with_annotation(annotation))
        boxes = [self._set.influence(t=self._t)[i], new.influence(t=self._t)[i]]
        self._change(new, self._t, boxes)

    @exclusive
    def set_time(self, t: float) -> None:
        """Take the weights at time ``t`` (seconds) from now on: the transitions in the old
        and new regions of influence of the constraints whose weight changed are
        re-costed."""
        t = finite_float("t", t)
        old = self._set.influence(t=self._t)
        new = self._set.influence(t=t)
        boxes = []
        for c, a, b in zip(self._set, old, new):
            if not c.is_hard and c.weight_at(self._t) != c.weight_at(t):
                boxes += [a, b]
        self._change(self._set, t, boxes)

    @exclusive
    def move_start(self, start: Any) -> None:
        """The agent is now at world point ``start``.  On a state of the current path the
        search goes on from that state; elsewhere the plan is cleared and planning restarts
        at ``epsilon0``."""
        self._start = finite_point("start", start)
        self._published = None
        if self._ad is not None:
            on_path = np.asarray(self._ad.plan(max_expansions=0).path, dtype=np.int64)
            on_path = on_path[on_path < self._domain.num_nodes]
            at = on_path[np.all(self._domain.points[on_path] == self._start, axis=1)]
            if len(at):
                self._agent = int(at[0])
                self._ad.move_start(self._agent)
                return
        self._new_search(self._joins(self._start), self._joins(self._goal, goal=True))

    @exclusive
    def set_goal(self, goal: Any) -> None:
        """Plan to world point ``goal`` from now on: the plan is cleared and planning starts
        over at ``epsilon0``."""
        self._goal = finite_point("goal", goal)
        self._rebuild()

    def _change(self, new: ConstraintSet, t: float, boxes: list[Any]) -> None:
        """Plan under ``new`` at time ``t``: re-cost the transitions meeting ``boxes`` and
        the legs (ConstraintChangeUpdate); start over when W0 changed, and search anew
        when the joined states changed."""
        w0 = self._set.base_weight(t=self._t)
        self._set, self._t = new, t
        self._published = None
        ad = self._ad
        if ad is None or new.base_weight(t=t) != w0:
            self._rebuild()
            return
        d, n = self._domain, self._domain.num_nodes
        goals, g_legs = self._joins(self._goal, goal=True)
        same = np.array_equal(goals, self._goals)
        if not same and type(d).costs is not ConstraintDomain.costs:
            self._rebuild()                     # every cost depends on the goal's state
            return
        live = [box for box in boxes if box is not None]
        moved = d.edges_meeting(live) if live else np.empty(0, dtype=np.int64)
        fresh = self._edge_costs(moved)
        changed = fresh != self._costs[moved]
        self._costs[moved] = fresh
        self._repaired = len(moved)
        legs = [g_legs]
        if self._agent == n:
            starts, s_legs = self._joins(self._start)
            same = same and np.array_equal(starts, self._starts)
            legs.append(s_legs)
            if self._d_id >= 0:
                legs.append(np.array([d.straight_leg(self._start, self._goal, new, t=t)]))
        if not same:
            self._new_search(self._joins(self._start), (goals, g_legs))
            return
        leg_ids = np.concatenate([self._g_ids, self._s_ids, [self._d_id]])[:sum(map(len, legs))]
        leg_costs = np.concatenate(legs)
        alter = leg_costs != self._leg_costs[leg_ids]
        self._leg_costs[leg_ids] = leg_costs
        q_ids = np.concatenate([self._where[moved[changed]], leg_ids[alter]])
        if len(q_ids):
            ad.update_costs(q_ids, costs=np.concatenate([fresh[changed], leg_costs[alter]]))

    def _edge_costs(self, ids: np.ndarray) -> np.ndarray:
        """The costs of transitions ``ids`` under the current constraints and time: only
        those are computed when the domain costs transitions one by one."""
        d = self._domain
        if type(d).costs is not ConstraintDomain.costs:
            goal = int(self._goals[0]) if len(self._goals) else None
            return d.costs(self._set, t=self._t, goal=goal)[ids]
        if not len(ids):
            return np.empty(0)
        e = d.edges[ids]
        return np.asarray(self._set.transition_costs(d.points[e[:, 0]], d.points[e[:, 1]],
                                                     d.base_costs[ids], t=self._t),
                          dtype=np.float64)

    def _joins(self, point: np.ndarray, *, goal: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
        """The states ``point`` joins and its legs' costs, as ``domain.find_path`` joins
        them (the ``goal`` of a goal-dependent domain through its nearest state only)."""
        states, legs = self._domain.joins(point, self._set, t=self._t)
        if goal and type(self._domain).costs is not ConstraintDomain.costs:
            states, legs = states[:1], legs[:1]
        return states, legs

    def _rebuild(self) -> None:
        """Start over: join the end points, cost every transition and begin a new search at
        ``epsilon0`` on the query graph (none when no route can join the end points)."""
        d = self._domain
        self._published = None
        starts = self._joins(self._start)
        goals = self._joins(self._goal, goal=True)
        goal = int(goals[0][0]) if len(goals[0]) else None
        self._costs = np.array(d.costs(self._set, t=self._t, goal=goal), dtype=np.float64)
        self._repaired = d.num_edges
        self._new_search(starts, goals)

    def _new_search(self, starts: tuple[np.ndarray, np.ndarray],
                    goals: tuple[np.ndarray, np.ndarray]) -> None:
        """A new search at ``epsilon0`` on the query graph of the current transition costs,
        the start point joining ``starts`` and the goal point ``goals`` (states, legs'
        costs); none when no route can join the end points."""
        d, n = self._domain, self._domain.num_nodes
        self._published = None
        self._starts, s_legs = starts
        self._goals, g_legs = goals
        self._agent = n
        self._ad = None
        free = bool(d.segments_free(self._start[None], self._goal[None])[0])
        if not free and not (len(self._starts) and len(self._goals)):
            return
        direct = (d.straight_leg(self._start, self._goal, self._set, t=self._t) if free
                  else math.inf)
        length = float(np.hypot(*(self._goal - self._start))) * d.leg_cost
        k, j, m = d.num_edges, len(self._starts), len(self._goals)
        src = np.concatenate([d.edges[:, 0], np.full(j + free, n), self._goals])
        dst = np.concatenate([d.edges[:, 1], self._starts, np.full(free + m, n + 1)])
        # CSRGraph takes finite costs: blocked edges enter at their base cost (no more than
        # their constrained cost, so the heuristic stays admissible) and are closed before
        # the first search.
        cost = np.concatenate([self._costs, s_legs, [direct] * free, g_legs])
        base = np.concatenate([d.base_costs, s_legs, [length] * free, g_legs])
        order = np.lexsort((dst, src))
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        self._where = position[:k]
        self._s_ids = position[k:k + j]
        self._d_id = int(position[k + j]) if free else -1
        self._g_ids = position[k + j + free:]
        self._leg_costs = np.full(len(order), np.nan)       # the legs' costs, by query edge
        self._leg_costs[position[k:]] = cost[k:]
        indptr = np.zeros(n + 3, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=n + 2), out=indptr[1:])
        blocked = ~np.isfinite(cost[order])
        coords = np.concatenate([d.points, self._start[None], self._goal[None]])
        graph = CSRGraph(indptr, dst[order], np.where(blocked, base[order], cost[order]),
                         coords=coords)
        self._ad = ADStar(graph, n, n + 1, epsilon=self.epsilon0, step=self.step,
                          raise_epsilon=self.raise_epsilon)
        if blocked.any():
            self._ad.update_costs(np.flatnonzero(blocked), costs=math.inf)
