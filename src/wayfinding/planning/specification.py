"""Chained specifications (Kapadia et al.): "move from the start to a goal (In | Near an
annotation with a weight)*, then to the next goal under its own constraints ...".  A patrol
is a pair of goals repeated lap after lap ("go to the corner, then patrol the alley").

A :class:`Specification` is immutable: :meth:`~Specification.then` and
:meth:`~Specification.patrol` return a longer copy.  :func:`plan_specification` plans each
leg optimally (a :class:`~wayfinding.planning.constrained.ConstraintPlanner` at epsilon 1)
from where the previous leg ended, at the time the agent starts it: the start time plus the
length of the legs before it over the agent's ``speed`` (time-varying weights are taken
then).  A leg that repeats an earlier one (same end points, the same constraint set object,
the same weights at its time) reuses its plan, so a patrol of many laps under fixed weights
plans each of its two legs once; the plan's statistics count only the searches run.

A :class:`SpecificationRunner` executes a specification: the agent walks each leg's plan at
``speed`` as time passes (:meth:`~SpecificationRunner.advance`), each leg planned anytime by
its own :class:`~wayfinding.planning.constrained.ConstraintPlanner` from the moment the
agent starts it, and repaired as the time changes the weights or a constraint moves
(:meth:`~SpecificationRunner.move_constraint`).

>>> from wayfinding.constraints import Constraint, ConstraintSet, Region
>>> from wayfinding.graph.constrained import ConstraintDomain
>>> line = ConstraintDomain([(0, 0), (1, 0), (2, 0)], [(0, 1), (1, 2), (1, 0), (2, 1)],
...                         [1.0] * 4)
>>> spec = Specification((0, 0)).then((2, 0), None).patrol((1, 0), (2, 0), None, laps=2)
>>> len(spec), [leg.goal.tolist() for leg in spec.legs][:3]
(5, [[2.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
>>> plan = plan_specification(line, spec, speed=2.0)
>>> plan.cost, plan.path[:, 0].tolist(), plan.breaks.tolist()   # 0 to 2: the straight leg
(6.0, [0.0, 2.0, 1.0, 2.0, 1.0, 2.0], [0, 1, 2, 3, 4, 5])
>>> plan.times.tolist(), plan.stats.expanded          # three distinct legs searched
([0.0, 1.0, 1.5, 2.0, 2.5, 3.0], 9)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._scratch import SingleThread, exclusive
from .._validate import count, finite_float, finite_point, flag, number, positive_float, step_budget
from ..constraints import Annotation, ConstraintSet
from ..errors import InvalidQueryError, brief
from ..graph.constrained import ConstraintDomain
from ..results import PathResult, SearchStats, Status, _fields_equal
from .constrained import ConstraintPlan, ConstraintPlanner, _constraint_set


@dataclass(frozen=True, eq=False)
class SpecificationLeg:
    """One leg of a :class:`Specification`: go to ``goal`` (``(2,)`` float64 world point)
    under ``constraints``."""

    goal: np.ndarray
    constraints: ConstraintSet

    __eq__ = _fields_equal


class Specification:
    """Move from world point ``start`` through a chain of legs, each to its goal under its
    own constraints.

    >>> spec = Specification((0, 0)).then((5, 0), None)
    >>> spec.start.tolist(), len(spec)
    ([0.0, 0.0], 1)
    """

    def __init__(self, start: Any):
        self._start = finite_point("start", start)
        self._start.flags.writeable = False
        self._legs: tuple[SpecificationLeg, ...] = ()

    @property
    def start(self) -> np.ndarray:
        """``(2,)`` float64 world point (read-only)."""
        return self._start

    @property
    def legs(self) -> tuple[SpecificationLeg, ...]:
        return self._legs

    def __len__(self) -> int:
        return len(self._legs)

    def __repr__(self) -> str:
        goals = ", ".join(str(tuple(leg.goal.tolist())) for leg in self._legs)
        return f"Specification(start={tuple(self._start.tolist())}, goals=[{goals}])"

    def _extended(self, legs: list[SpecificationLeg]) -> Specification:
        out = Specification(self._start)
        out._legs = self._legs + tuple(legs)
        return out

    def then(self, goal: Any, constraints: Any) -> Specification:
        """A copy with one more leg: to world point ``goal`` under ``constraints`` (a
        :class:`~wayfinding.constraints.ConstraintSet`, an iterable of
        :class:`~wayfinding.constraints.Constraint` or None)."""
        return self._extended([_leg(goal, constraints, "goal")])

    def patrol(self, a: Any, b: Any, constraints: Any, *, laps: int) -> Specification:
        """A copy that goes on to ``a``, then ``b``, ``laps`` times (an integer >= 1;
        2 * ``laps`` legs), all under ``constraints``."""
        laps = count("laps", laps, min=1)
        cs = _constraint_set(constraints)
        first, second = _leg(a, cs, "a"), _leg(b, cs, "b")
        return self._extended([first, second] * laps)


def _leg(goal: Any, constraints: Any, name: str) -> SpecificationLeg:
    point = finite_point(name, goal)
    point.flags.writeable = False
    return SpecificationLeg(point, _constraint_set(constraints))


@dataclass(slots=True, repr=False, kw_only=True)
class SpecificationPlan(PathResult):
    """The plan of a :class:`Specification`: ``path`` the ``(m, 2)`` float64 world points
    of its legs joined (each leg's first point, the previous one's last, kept once),
    ``cost`` the sum of the legs' costs, ``found`` whether every leg was.  ``legs``: the
    :class:`~wayfinding.planning.constrained.ConstraintPlan` of each leg in order, up to
    the first that found no path (then ``status`` is ``FAILED`` and ``path`` runs to the
    last leg found).  ``breaks``: ``(j + 1,)`` int64 index in ``path`` where each leg found
    starts, then the index of its last point (empty when none was found).  ``times``:
    ``(j + 1,)`` float64 seconds when the agent starts each leg found (the time each was
    planned at), then when it arrives at the last one's goal (empty when none was found).
    ``stats.expanded`` counts the searches run (a reused leg's once)."""

    legs: tuple[ConstraintPlan, ...] = ()
    breaks: Any = None
    times: Any = None

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        PathResult.__post_init__(self)
        if self.breaks is None:
            self.breaks = np.zeros(0, dtype=np.int64)
        if self.times is None:
            self.times = np.zeros(0)


def _length(path: np.ndarray) -> float:
    """The length of the polyline ``path`` (world units)."""
    return float(np.hypot(*np.diff(path, axis=0).T).sum()) if len(path) > 1 else 0.0


def _check(domain: Any, specification: Any) -> None:
    if not isinstance(domain, ConstraintDomain):
        raise InvalidQueryError(f"domain {brief(domain)} is not a ConstraintDomain")
    if not isinstance(specification, Specification):
        raise InvalidQueryError(f"specification {brief(specification)} is not a "
                                "Specification")
    if not len(specification):
        raise InvalidQueryError("specification has no leg: add one with then(goal, ...)")


def plan_specification(domain: ConstraintDomain, specification: Specification, *,
                       t: float = 0.0, speed: float = 1.0) -> SpecificationPlan:
    """Plan ``specification``'s legs one after the other over ``domain`` (a
    :class:`~wayfinding.graph.constrained.ConstraintDomain`), each optimally from where the
    previous one ended, at the time the agent starts it: ``t`` (seconds) for the first, then
    the previous leg's arrival, the agent walking its path's length at ``speed`` (world
    units per second, > 0; 1 by default).

    >>> from wayfinding.constraints import Constraint, ConstraintSet, Disc
    >>> from wayfinding.graph.constrained import ConstraintDomain
    >>> two = ConstraintDomain([(0, 0), (3, 4)], [(0, 1)], [5.0])
    >>> plan_specification(two, Specification((0, 0)).then((3, 4), None)).cost
    5.0
    >>> pond = ConstraintSet([Constraint.hard(Disc((0, 0), 1.0))])
    >>> plan_specification(two, Specification((3, 4)).then((0, 0), pond)).status  # goal in it
    Status.FAILED
    """
    t0 = time.perf_counter()
    _check(domain, specification)
    now = finite_float("t", t)
    speed = positive_float("speed", speed)
    done: dict[tuple[Any, ...], ConstraintPlan] = {}
    legs: list[ConstraintPlan] = []
    times = [now]
    expanded = 0
    here = specification.start
    for leg in specification.legs:
        cs = leg.constraints
        key = (*here.tolist(), *leg.goal.tolist(), id(cs), cs.base_weight(t=now),
               *(c.weight_at(now) for c in cs))
        plan = done.get(key)
        if plan is None:
            planner = ConstraintPlanner(domain, here, leg.goal, cs, t=now, epsilon=1.0)
            plan = done[key] = planner.plan()
            expanded += plan.stats.expanded
        legs.append(plan)
        if not plan.found:
            break
        now += _length(plan.path) / speed
        times.append(now)
        here = leg.goal
    found = [p for p in legs if p.found]
    parts = [found[0].path] + [p.path[1:] for p in found[1:]] if found else []
    path = np.concatenate(parts) if parts else np.empty((0, 2))
    sizes = [len(p.path) - 1 for p in found]
    breaks = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64) if found else None
    ok = len(found) == len(specification)
    stats = SearchStats(expanded=expanded, elapsed=time.perf_counter() - t0)
    return SpecificationPlan(path=path, cost=float(sum(p.cost for p in legs)) if ok
                             else math.inf, found=ok, stats=stats,
                             algorithm="specification",
                             status=Status.FOUND if ok else Status.FAILED,
                             legs=tuple(legs), breaks=breaks,
                             times=np.array(times) if found else None)


class SpecificationRunner(SingleThread):
    """Execute ``specification`` over ``domain`` (a
    :class:`~wayfinding.graph.constrained.ConstraintDomain`) from time ``t`` (seconds): the
    agent walks each leg's plan at ``speed`` (world units per second, > 0) as
    :meth:`advance` lets time pass, and a leg reached starts the next one.

    Each leg is planned by its own
    :class:`~wayfinding.planning.constrained.ConstraintPlanner` (``epsilon``, ``step`` and
    ``raise_epsilon`` as there), made when the agent starts the leg, at that time.  As time
    passes the planner takes the weights at the new time (repairing the regions of the
    constraints whose weight changed), and :meth:`move_constraint` repairs a moved one.  The
    agent finishes the transition it is on (a domain state is its next stop, or the leg's
    goal on its last one) before it follows a repaired path; until a plan is known, it waits
    where it is.  One thread at a time.

    >>> from wayfinding.graph.constrained import ConstraintDomain
    >>> line = ConstraintDomain([(0, 0), (1, 0), (2, 0)], [(0, 1), (1, 2), (1, 0), (2, 1)],
    ...                         [1.0] * 4)
    >>> runner = SpecificationRunner(line, Specification((0, 0)).then((2, 0), None)
    ...                              .then((0, 0), None), speed=2.0)
    >>> _ = runner.advance(0.75); runner.position.tolist(), runner.leg
    ([1.5, 0.0], 0)
    >>> _ = runner.advance(1.0); runner.position.tolist(), runner.leg, runner.t
    ([0.5, 0.0], 1, 1.75)
    >>> _ = runner.advance(5.0); runner.done, runner.walked[:, 0].tolist(), runner.t
    (True, [0.0, 1.5, 2.0, 0.5, 0.0], 6.75)
    >>> runner.arrivals.tolist()
    [1.0, 2.0]
    """

    _planner: ConstraintPlanner | None      # the current leg's (none once done)
    _heading: np.ndarray                    # where the agent walks to first: its planner's start
    _last: bool                             # whether it is on its transition to the leg's goal
    _followed: ConstraintPlan               # the plan it follows

    def __init__(self, domain: ConstraintDomain, specification: Specification, *,
                 t: float = 0.0, speed: float = 1.0, epsilon: float = 2.5, step: float = 0.5,
                 raise_epsilon: bool = True):
        raise_epsilon = flag("raise_epsilon", raise_epsilon)
        _check(domain, specification)
        self._domain = domain
        self._spec = specification
        self._t = finite_float("t", t)
        self.speed = positive_float("speed", speed)
        self._epsilon, self._step, self._raise = epsilon, step, raise_epsilon
        self._sets = [leg.constraints for leg in specification.legs]
        self._leg = 0
        self._position = specification.start.copy()
        self._walked = [self._position.copy()]
        self._arrivals: list[float] = []
        self._planner = None
        self._start_leg()

    @property
    def specification(self) -> Specification:
        return self._spec

    @property
    def t(self) -> float:
        """The time now (seconds)."""
        return self._t

    @property
    def leg(self) -> int:
        """The index of the leg under way (``len(specification)`` once done)."""
        return self._leg

    @property
    def done(self) -> bool:
        """Whether the agent reached the last leg's goal."""
        return self._leg == len(self._spec)

    @property
    def position(self) -> np.ndarray:
        """The agent's position, ``(2,)`` float64 world point."""
        return self._position.copy()

    @property
    def walked(self) -> np.ndarray:
        """``(m, 2)`` float64 world points the agent went through, from the start to its
        position (the path walked)."""
        return np.array(self._walked)

    @property
    def arrivals(self) -> np.ndarray:
        """``(j,)`` float64 seconds when the agent reached each leg's goal so far."""
        return np.array(self._arrivals)

    @property
    def planner(self) -> ConstraintPlanner | None:
        """The current leg's planner (None once done)."""
        return self._planner

    @property
    def constraints(self) -> tuple[ConstraintSet, ...]:
        """Each leg's constraint set, as moved so far."""
        return tuple(self._sets)

    def _start_leg(self) -> None:
        """Plan the leg under way from the agent's position at the time now."""
        if self.done:
            self._planner = None
            return
        goal = self._spec.legs[self._leg].goal
        self._planner = ConstraintPlanner(self._domain, self._position, goal,
                                          self._sets[self._leg], t=self._t,
                                          epsilon=self._epsilon, step=self._step,
                                          raise_epsilon=self._raise)
        self._heading = self._position.copy()
        self._last = False
        self._followed = self._planner.plan(max_expansions=0)

    @exclusive
    def advance(self, dt: float, *, max_expansions: int | None = None,
                max_seconds: float | None = None) -> ConstraintPlan | None:
        """Let ``dt`` seconds (>= 0) pass: the current leg's planner works within the budget
        (expansions and/or seconds, given to each of its calls of
        :meth:`ConstraintPlanner.plan
        <wayfinding.planning.constrained.ConstraintPlanner.plan>`; none: until optimal),
        the agent walks its plan at ``speed``, reaching goals and starting the next legs
        within ``dt``, and the planner takes the weights at the new time.  Returns the plan
        the agent last followed (None once done)."""
        dt = number("dt", dt, min=0.0)
        max_expansions, max_seconds = step_budget(max_expansions, max_seconds)
        left = dt
        while self._planner is not None:
            if self._last:                                # on the transition to the goal
                route = np.stack([self._position, self._planner.goal])
            else:
                self._followed = self._planner.plan(max_expansions=max_expansions,
                                                    max_seconds=max_seconds)
                if not self._followed.found:
                    break                                             # wait for a plan
                route = self._followed.path
                if np.any(route[0] != self._position):
                    route = np.concatenate([self._position[None], route])
            steps = np.hypot(*np.diff(route, axis=0).T)
            reach = np.concatenate([[0.0], np.cumsum(steps)])
            walk = self.speed * left
            if walk >= reach[-1]:                                     # the leg's goal
                self._walked.extend(route[1:])
                self._position = route[-1].copy()
                used = float(reach[-1]) / self.speed
                self._t += used
                self._arrivals.append(self._t)
                left = max(0.0, left - used)
                self._leg += 1
                self._start_leg()
                continue
            if walk <= 0:
                break                                       # no time left to set off
            k = int(np.searchsorted(reach, walk, side="right"))       # next stop: route[k]
            f = (walk - reach[k - 1]) / steps[k - 1]
            here = route[k - 1] + f * (route[k] - route[k - 1])
            self._walked.extend(route[1:k])
            if np.any(here != self._walked[-1]):
                self._walked.append(here)
            self._position = here
            if k == len(route) - 1:
                self._last = True
            elif np.any(route[k] != self._heading):
                self._heading = route[k].copy()                   # a state: the search
                self._planner.move_start(self._heading)           # goes on from there
            break
        self._t += left
        if self._planner is None:
            return None
        self._planner.set_time(self._t)
        return self._followed

    @exclusive
    def move_constraint(self, index: int, annotation: Annotation) -> None:
        """Constraint ``index`` of the current leg's set now lies on ``annotation`` (weight
        and preposition kept); the planner repairs the regions it left and entered, and
        every later leg that holds the same constraint object sees it moved too."""
        if self._planner is None:
            raise InvalidQueryError("the specification is done: no constraint to move")
        cs = self._sets[self._leg]
        if not len(cs):
            raise InvalidQueryError(f"index {brief(index)}: leg {self._leg} has no constraint")
        i = count("index", index, min=0, max=len(cs) - 1)
        old = cs[i]
        new = old.with_annotation(annotation)
        for j in range(self._leg, len(self._sets)):
            s = self._sets[j]
            if any(c is old for c in s):
                self._sets[j] = ConstraintSet([new if c is old else c for c in s],
                                              base=s.base)
        self._planner.set_constraints(self._sets[self._leg])
