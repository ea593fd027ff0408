"""Planning tasks of the multi-domain planner (Kapadia et al., §9.4): each task keeps a
plan for one problem ⟨Σ, start, goal⟩ valid, and ideally optimal, while its start, goal
and costs change, with an anytime dynamic planner; tasks exchange :class:`TaskEvent` s and
are run in the order of their :func:`priority`.

Σ1, Σ2 and Σ3 tasks run the library's :class:`~wayfinding.search.ADStar` on the domain's
compiled graph (the mesh's :class:`~wayfinding.graph.CSRGraph`, the grid); the Σ4 task
runs rounds of weighted A* (:class:`~wayfinding.search.AStarSearch`, the inflation
lowered by ``step`` each round down to 1), as space-time states are not a fixed graph.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from enum import Enum
from typing import Any

import numpy as np

from .._validate import count, flag, number
from ..results import SearchStats, Status
from ..search.generic import AStarSearch
from ..search.incremental import ADStar, AnytimePath
from .domain_grid import Cell, GridDomain
from .domain_navmesh import NavMeshDomain
from .domain_spacetime import SpaceTimeDomain, State


class TaskEvent(str, Enum):
    """What a task watches: its start or goal moved, the plan it refines changed, or the
    environment (costs) changed."""

    START_CHANGED = "start_changed"
    GOAL_CHANGED = "goal_changed"
    PLAN_CHANGED = "plan_changed"
    ENVIRONMENT_CHANGED = "environment_changed"

    def __str__(self) -> str:
        return self.value


def task_priority(hops: int, epsilon: float, *, finished: bool = False) -> float:
    """The priority of a task (Eq. 9.2/9.3; the smallest runs first): 1 for the execution
    task T0 (``hops`` 0), else ``hops · Ω`` with ``hops`` the number of edges from the
    task to T0 in the dependency chain and Ω 1 when the task has no valid plan
    (``epsilon`` inf, as :class:`~wayfinding.search.AnytimePath` says), ``epsilon`` when
    its plan is inflated, inf when it is optimal or ``finished`` (nothing left to do).

    >>> [task_priority(h, e) for h, e in ((0, math.inf), (1, math.inf), (2, 2.5), (3, 1.0))]
    [1.0, 1.0, 5.0, inf]
    """
    finished = flag("finished", finished)
    hops = count("hops", hops, min=0)
    epsilon = number("epsilon", epsilon, min=1.0, infinite=True)
    if hops == 0:
        return 1.0
    if finished or epsilon == 1.0:
        return math.inf
    return float(hops) * (1.0 if math.isinf(epsilon) else epsilon)


class PlanningTask(ABC):
    """A task: ``plan`` (an :class:`~wayfinding.search.AnytimePath`, ``epsilon`` inf while
    it has no valid one), ``hops`` to T0, the :class:`TaskEvent` s it ``watches``; :meth:`run`
    works within a budget and returns the expansions it made."""

    def __init__(self, domain: Any, hops: int, watches: frozenset[TaskEvent]):
        self.domain = domain
        self.hops = count("hops", hops)
        self.watches = frozenset(watches)
        self.plan = AnytimePath(np.empty((0,), dtype=np.int64), math.inf, False,
                                SearchStats(), domain.name, status=Status.OUT_OF_BUDGET)

    @property
    def finished(self) -> bool:
        """Whether the plan is optimal (or proven impossible) for the current problem."""
        return False

    @property
    def priority(self) -> float:
        """The task's :func:`task_priority` now."""
        return task_priority(self.hops, self.plan.epsilon, finished=self.finished)

    @abstractmethod
    def run(self, *, max_expansions: int | None = None,
            max_seconds: float | None = None) -> int:
        """Work within the budget; returns the nodes expanded."""


class GraphTask(PlanningTask):
    """A Σ1, Σ2 or Σ3 problem on :class:`~wayfinding.search.ADStar`: ``start`` and
    ``goal`` are polygons (mesh domains, whose ``ends`` points may stand for them: see
    :meth:`NavMeshDomain.placed`) or cells (grid domain); ``epsilon``, ``step`` and
    ``raise_epsilon`` as ADStar's (``raise_epsilon``: a change that cuts the plan starts
    the repair at ``epsilon``, the third real-time guarantee of §9.6)."""

    def __init__(self, domain: NavMeshDomain | GridDomain, start: Any, goal: Any, hops: int,
                 *, watches: frozenset[TaskEvent] = frozenset(TaskEvent), epsilon: float = 2.5,
                 step: float = 0.5, raise_epsilon: bool = False, t: float = 0.0,
                 ends: Any = None):
        super().__init__(domain, hops, watches)
        world = domain.current if isinstance(domain, GridDomain) \
            else domain.graph(t=t, ends=ends)
        self.planner = ADStar(world, start, goal, epsilon=epsilon, step=step,
                              raise_epsilon=raise_epsilon)
        self.start, self.goal = start, goal
        self._finished = False

    @property
    def finished(self) -> bool:
        return self._finished

    def update_costs(self, changes: Any, *, costs: Any = None) -> None:
        """Repair after costs changed: ``{edge_id: cost}`` or ``{(x, y): cost}``, or an
        array of those keys with ``costs`` (as the planners' ``update_costs``)."""
        if len(changes):
            self.planner.update_costs(changes, costs=costs)
            self.plan = self.planner.plan(max_expansions=0)
            self._finished = False

    def move_start(self, start: Any) -> None:
        """The agent is now at ``start``."""
        if start != self.start:
            self.start = start
            self.planner.move_start(start)
            self.plan = self.planner.plan(max_expansions=0)
            self._finished = False

    def run(self, *, max_expansions: int | None = None,
            max_seconds: float | None = None) -> int:
        self.plan = self.planner.plan(max_expansions=max_expansions, max_seconds=max_seconds)
        self._finished = self.planner.finished
        return self.plan.stats.expanded


class SpaceTimeTask(PlanningTask):
    """A Σ4 problem: from the state ``start`` to the cell ``goal`` inside ``tunnel`` (a
    container of ``(x, y, k)``, or None), arriving near step ``arrive`` (within the steps
    ``window`` for a timed goal, see :meth:`SpaceTimeDomain.problem`); ``plan.path`` is
    ``(n, 5)`` int64 states.  The plan's ``epsilon`` is the round's inflation, or inf (no
    bound) when the domain's time-aware heuristic may overestimate (``speed_weight`` > 0
    with an ``arrive`` step)."""

    def __init__(self, domain: SpaceTimeDomain, start: State, goal: Cell, *, tunnel: Any = None,
                 arrive: int | None = None, window: tuple[int, int] | None = None,
                 hops: int = 1, epsilon: float = 2.5, step: float = 0.5):
        super().__init__(domain, hops, frozenset({TaskEvent.PLAN_CHANGED,
                                                  TaskEvent.ENVIRONMENT_CHANGED}))
        self.epsilon0 = number("epsilon", epsilon, min=1.0)
        self.step = number("step", step, min=0.0, min_open=True)
        self.start, self.goal, self.tunnel, self.arrive = start, goal, tunnel, arrive
        self.plan.path = np.empty((0, 5), dtype=np.int64)
        domain.problem(start, goal, tunnel=tunnel, arrive=arrive, window=window)
        self.window = domain.window
        self._eps = self.epsilon0
        self._search = self._round()
        self._finished = False

    def move_start(self, state: State) -> None:
        """The agent took the plan's first step, to ``state``: the plan keeps its rest
        and bound, and a round under way starts again from ``state``."""
        path = self.plan.path
        if len(path) > 1 and tuple(path[1].tolist()) == tuple(state):
            self.plan.path = path[1:]
            self.plan.cost -= self.domain.cost(tuple(path[0].tolist()), state)
        self.start = state
        if not self._finished:
            self._search = self._round()

    def _round(self) -> AStarSearch:
        d = self.domain
        return AStarSearch(d, self.start, d.is_goal, weight=self._eps,
                           heuristic=lambda s, _: d.heuristic(s, d.goal))

    @property
    def finished(self) -> bool:
        return self._finished

    def run(self, *, max_expansions: int | None = None,
            max_seconds: float | None = None) -> int:
        d = self.domain
        d.problem(self.start, self.goal, tunnel=self.tunnel, arrive=self.arrive,
                  window=self.window)
        spent = 0
        while not self._finished:
            left = None if max_expansions is None else max_expansions - spent
            if left is not None and left <= 0:
                break
            before = self._search.result().stats.expanded
            status = self._search.step(max_expansions=left, max_seconds=max_seconds)
            result = self._search.result()
            spent += result.stats.expanded - before
            if status is Status.RUNNING:
                break
            if result.found:
                bound = math.inf if d.speed_weight and self.arrive is not None else self._eps
                self.plan = AnytimePath(np.array(result.path, dtype=np.int64).reshape(-1, 5),
                                        result.cost, True, result.stats, d.name,
                                        epsilon=bound)
            elif not self.plan.found:
                self.plan = AnytimePath(np.empty((0, 5), dtype=np.int64), math.inf, False,
                                        result.stats, d.name, status=Status.FAILED)
            if self._eps <= 1.0 or not result.found:
                self._finished = True
            else:
                self._eps = max(1.0, self._eps - self.step)
                self._search = self._round()
            if max_seconds is not None:
                break
        return spent
