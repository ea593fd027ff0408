"""Chained specifications (Kapadia et al.): "move from the start to a goal (In | Near an
annotation with a weight)*, then to the next goal under its own constraints ...".  A patrol
is a pair of goals repeated lap after lap ("go to the corner, then patrol the alley").

A :class:`Specification` is immutable: :meth:`~Specification.then` and
:meth:`~Specification.patrol` return a longer copy.  :func:`plan_specification` plans each
leg optimally (a :class:`~wayfinding.planning.constrained.ConstraintPlanner` at epsilon 1)
from where the previous leg ended, and joins the legs' paths; a leg that repeats an earlier
one (same end points, the same constraint set object) reuses its plan, so a patrol of many
laps plans each of its two legs once.

>>> from wayfinding.constraints import Constraint, ConstraintSet, Region
>>> from wayfinding.graph.constrained import ConstraintDomain
>>> line = ConstraintDomain([(0, 0), (1, 0), (2, 0)], [(0, 1), (1, 2), (1, 0), (2, 1)],
...                         [1.0] * 4)
>>> spec = Specification((0, 0)).then((2, 0), None).patrol((1, 0), (2, 0), None, laps=2)
>>> len(spec), [leg.goal.tolist() for leg in spec.legs][:3]
(5, [[2.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
>>> plan = plan_specification(line, spec)
>>> plan.cost, plan.path[:, 0].tolist(), plan.breaks.tolist()
(6.0, [0.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0], [0, 2, 3, 4, 5, 6])
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import count, finite_float, finite_point
from ..constraints import ConstraintSet
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
    starts, then the index of its last point (empty when none was found)."""

    legs: tuple[ConstraintPlan, ...] = ()
    breaks: Any = None

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        PathResult.__post_init__(self)
        if self.breaks is None:
            self.breaks = np.zeros(0, dtype=np.int64)


def plan_specification(domain: ConstraintDomain, specification: Specification, *,
                       t: float = 0.0) -> SpecificationPlan:
    """Plan ``specification``'s legs one after the other over ``domain`` (a
    :class:`~wayfinding.graph.constrained.ConstraintDomain`) at time ``t`` (seconds, for
    time-varying weights), each optimally from where the previous one ended.

    >>> from wayfinding.graph.constrained import ConstraintDomain
    >>> two = ConstraintDomain([(0, 0), (3, 4)], [(0, 1)], [5.0])
    >>> plan_specification(two, Specification((0, 0)).then((3, 4), None)).cost
    5.0
    >>> plan_specification(two, Specification((3, 4)).then((0, 0), None)).status  # one-way
    Status.FAILED
    """
    t0 = time.perf_counter()
    if not isinstance(domain, ConstraintDomain):
        raise InvalidQueryError(f"domain {brief(domain)} is not a ConstraintDomain")
    if not isinstance(specification, Specification):
        raise InvalidQueryError(f"specification {brief(specification)} is not a "
                                "Specification")
    if not len(specification):
        raise InvalidQueryError("specification has no leg: add one with then(goal, ...)")
    t = finite_float("t", t)
    done: dict[tuple[Any, ...], ConstraintPlan] = {}
    legs: list[ConstraintPlan] = []
    here = specification.start
    for leg in specification.legs:
        key = (*here.tolist(), *leg.goal.tolist(), id(leg.constraints))
        plan = done.get(key)
        if plan is None:
            planner = ConstraintPlanner(domain, here, leg.goal, leg.constraints, t=t,
                                        epsilon=1.0)
            plan = done[key] = planner.plan()
        legs.append(plan)
        if not plan.found:
            break
        here = leg.goal
    found = [p for p in legs if p.found]
    parts = [found[0].path] + [p.path[1:] for p in found[1:]] if found else []
    path = np.concatenate(parts) if parts else np.empty((0, 2))
    sizes = [len(p.path) - 1 for p in found]
    breaks = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64) if found else None
    ok = len(found) == len(specification)
    stats = SearchStats(expanded=sum(p.stats.expanded for p in legs),
                        elapsed=time.perf_counter() - t0)
    return SpecificationPlan(path=path, cost=float(sum(p.cost for p in legs)) if ok
                             else math.inf, found=ok, stats=stats,
                             algorithm="specification",
                             status=Status.FOUND if ok else Status.FAILED,
                             legs=tuple(legs), breaks=breaks)
