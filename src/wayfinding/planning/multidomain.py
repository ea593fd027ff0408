"""Planning with multiple domains of control (Kapadia et al., ch. 9): one agent's problem
decomposed across four domains of rising fidelity, Σ1 static mesh → Σ2 mesh with a
density field → Σ3 grid with the agent's radius and current obstacles → Σ4 space-time,
each refining the plan of the one before (the relationship of Fig. 9.3b):

- T(Σ1) plans polygon to polygon; its plan is Σ2's tunnel: Σ2 may use only the polygons
  within ``corridor`` rings of neighbours of Π(Σ1) (``None``: all).
- T1 and T2 place their start and goal polygons at the start and goal points
  (:meth:`NavMeshDomain.placed`), the other polygons at their centres.
- T(Σ2)'s plan is decomposed into successive waypoints (:meth:`MeshGridMap.waypoints`:
  the free cells just outside the bends of the line string-pulled through its portals):
  each pair is an independent T(Σ3) problem.  The agent keeps the waypoints while it
  walks its grid leg, whatever polygons the leg crosses; a reached waypoint moves the
  start of T1 and T2 to the polygon of Π(Σ2) it stands for, whose rest of Π(Σ2) is still
  optimal.  Any other change of Π(Σ2) splits it again, and Σ2's tunnel always keeps the
  rest of Π(Σ2) open, so the cost left in Σ2 falls at each waypoint and the agent
  arrives.
- The T(Σ3) of the most imminent pair gets times along its path at the agent's ``speed``
  (:func:`time_assignment`) and so a space-time :class:`Tunnel` for T(Σ4).
- T0 executes: the agent steps along the Σ4 plan (along the imminent Σ3 plan without a
  Σ4 domain) and stands still while it has none.

Each frame (:meth:`MultiDomainPlanner.frame`) the tasks are ordered by :func:`priority`
(ties by dependency: Σ1 first, T0 last), the first ``max_tasks − 1`` with work left share
the budget in proportion to 1 / priority, and T0 acts.  Events — :meth:`set_goal`,
:meth:`set_time` (Σ2's densities), :meth:`set_obstacles` (Σ3), :meth:`set_entities` (Σ4)
and the agent's own moves — repair the tasks that watch them (their planners' repair, or
new tasks for new waypoint pairs).

Completeness and optimality are relaxed: Σ3 never plans past the next waypoint, and a
Σ2 plan through a jump link gives a grid leg the grid (which has no jumps) may not
solve.  The settled Σ3 plan, the waypoint legs joined, is never cheaper than the optimum
on the Σ3 grid; how much dearer depends on the corridor Σ1/Σ2 choose and is no proven
bound.  Measured by ``benchmarks/multidomain.py`` over 200 worlds of each family (an
agent of radius 0.3): ``open`` (24 × 16 grids, 7 blocks of up to 4 × 4 cells, meshes
built from the grids, edge to edge) at most 1.22 times the optimum (mean 1.03, 95th
percentile 1.14); ``blocks`` (40 × 30 grids, 25 blocks of up to 7 × 7, random ends) at
most 1.44 (mean 1.02, p95 1.12); ``radius`` (``open`` with meshes built for the agent's
radius) at most 1.37 (mean 1.07, p95 1.22).  The tests hold sampled worlds of each family
to 1.5, and every agent of the 600 worlds arrives, at most 13 frames after the optimum's
step count (no budget, two tasks a frame).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import count, finite_point, flag, number, positive_float, step_budget
from ..errors import InvalidQueryError
from ..results import PathResult, SearchStats, Status, _fields_equal
from .domain_grid import Cell, GridDomain
from .domain_maps import MeshGridMap, Tunnel, time_assignment
from .domain_navmesh import DensityDomain, NavMeshDomain
from .domain_spacetime import PublishedPath, SpaceTimeDomain
from .tasks import GraphTask, PlanningTask, SpaceTimeTask, TaskEvent

_START, _GOAL = TaskEvent.START_CHANGED, TaskEvent.GOAL_CHANGED
_PLAN, _WORLD = TaskEvent.PLAN_CHANGED, TaskEvent.ENVIRONMENT_CHANGED


@dataclass(slots=True, repr=False, kw_only=True)
class MultiDomainPlan(PathResult):
    """The planner's plans at one moment, as a :class:`~wayfinding.results.PathResult`:
    ``path`` the ``(n, 2)`` float64 world points of the Σ3 legs joined, ``cost`` their
    summed cost (inf while a leg is missing), ``status`` ``FOUND`` when every leg has a
    plan, ``FAILED`` when a domain proved there is none, else ``OUT_OF_BUDGET``;
    ``stats`` the expansions and seconds of every task run so far, ``algorithm``
    ``"multidomain"``.

    ``static``, ``dynamic``: ``(a,)`` int64 polygons of Π(Σ1) and Π(Σ2) (empty: none yet);
    ``waypoints``: ``(w, 2)`` int64 Σ3 cells, the agent's cell first; ``legs``: one
    ``(m, 2)`` int64 Σ3 cell path per waypoint pair (empty: not planned yet);
    ``spacetime``: ``(s, 5)`` int64 Σ4 states ``(x, y, vx, vy, k)`` of the imminent leg
    (empty: none); ``epsilon``: the largest bound of the plans (inf while one is missing
    or has no bound, as a Σ4 plan whose heuristic may overestimate).
    """

    static: Any = None
    dynamic: Any = None
    waypoints: Any = None
    legs: list[np.ndarray] = field(default_factory=list)
    spacetime: Any = None
    epsilon: float = math.inf

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        PathResult.__post_init__(self)
        for name, width in (("static", 0), ("dynamic", 0), ("waypoints", 2),
                            ("spacetime", 5)):
            if getattr(self, name) is None:
                setattr(self, name, np.empty((0, width) if width else (0,), dtype=np.int64))


@dataclass(eq=False)
class FrameReport:
    """What one frame did: ``tasks``, the tasks run as ``(name, expansions)`` in run
    order (``"T0"`` last), ``events`` the ``(name, TaskEvent)`` delivered to tasks since the
    frame before (in order), ``moved`` whether the agent took a step of a plan (a wait
    included), ``position`` its world
    point after, ``seconds`` the frame's wall time."""

    tasks: list[tuple[str, int]]
    events: list[tuple[str, TaskEvent]]
    moved: bool
    position: np.ndarray
    seconds: float

    __eq__ = _fields_equal


class MultiDomainPlanner:
    """One agent planning across Σ1–Σ4 with interleaved, prioritised tasks.

    Parameters
    ----------
    static : NavMeshDomain
        Σ1.
    dynamic : DensityDomain
        Σ2, on the same mesh as ``static``.
    grid : GridDomain
        Σ3, over the same world (the mesh may have been built from the grid).
    start, goal : (x, y)
        World points: on the mesh, in cells of the grid where the agent fits.
    spacetime : SpaceTimeDomain, optional
        Σ4 over ``grid``; without it the agent executes the Σ3 plan.
    speed : float, default 1.0
        The agent's speed for the time assignment (world units per second, > 0).
    corridor : int or None, default 1
        Rings of neighbouring polygons around Π(Σ1) in Σ2's tunnel (>= 0; None: no
        tunnel).
    tunnel_cells, tunnel_steps : int, default 1 and 2
        The Σ4 tunnel's half widths, cells and steps (>= 0).
    epsilon, epsilon_step : float, default 2.5 and 0.5
        Every task's first inflation and its decrease per round.
    raise_epsilon : bool, default False
        Whether a change that cuts a Σ1–Σ3 plan starts its repair at ``epsilon``
        (:class:`~wayfinding.search.ADStar`'s option).
    max_tasks : int, default 2
        Tasks run per frame, T0 included (>= 2).
    dt : float, default 0.5
        Seconds per executed step without a Σ4 domain (Σ4's ``dt`` with one).
    t : float, default 0.0
        The current time in seconds (Σ2's densities are read at it).
    """

    def __init__(self, static: NavMeshDomain, dynamic: DensityDomain, grid: GridDomain,
                 start: Any, goal: Any, *, spacetime: SpaceTimeDomain | None = None,
                 speed: float = 1.0, corridor: int | None = 1, tunnel_cells: int = 1,
                 tunnel_steps: int = 2, epsilon: float = 2.5, epsilon_step: float = 0.5,
                 raise_epsilon: bool = False, max_tasks: int = 2, dt: float = 0.5,
                 t: float = 0.0):
        for name, value, kind in (("static", static, NavMeshDomain),
                                  ("dynamic", dynamic, DensityDomain),
                                  ("grid", grid, GridDomain)):
            if not isinstance(value, kind):
                raise InvalidQueryError(f"{name} must be a {kind.__name__}, got "
                                        f"{type(value).__name__}")
        if dynamic.mesh is not static.mesh:
            raise InvalidQueryError("static and dynamic must use the same NavMesh")
        if spacetime is not None and (not isinstance(spacetime, SpaceTimeDomain)
                                      or spacetime.grid is not grid):
            raise InvalidQueryError("spacetime must be a SpaceTimeDomain over grid")
        self.static, self.dynamic, self.grid, self.spacetime = static, dynamic, grid, spacetime
        self.speed = positive_float("speed", speed)
        self.corridor = None if corridor is None else count("corridor", corridor, min=0)
        self.tunnel_cells = count("tunnel_cells", tunnel_cells, min=0)
        self.tunnel_steps = count("tunnel_steps", tunnel_steps, min=0)
        self.epsilon = number("epsilon", epsilon, min=1.0)
        self.epsilon_step = number("epsilon_step", epsilon_step, min=0.0, min_open=True)
        raise_epsilon = flag("raise_epsilon", raise_epsilon)
        self.raise_epsilon = raise_epsilon
        self.max_tasks = count("max_tasks", max_tasks, min=2)
        self.dt = spacetime.dt if spacetime is not None else positive_float("dt", dt)
        self.t = number("t", t)
        self.map = MeshGridMap(static, grid)
        self._ends = (finite_point("start", start), finite_point("goal", goal))
        self._polygons = (static.state(start), static.state(goal))
        self.cell, self.goal_cell = grid.state(start), grid.state(goal)
        self.position = grid.position(self.cell)
        self.velocity = (0, 0)
        self.events: list[tuple[str, TaskEvent]] = []
        self.stats = SearchStats()
        self._reset()

    # ------------------------------------------------------------------ tasks
    def _reset(self) -> None:
        """New Σ1 and Σ2 tasks for the current start and goal; no finer ones yet."""
        a, b = self._polygons
        self.t1 = GraphTask(self.static, a, b, 4, watches=frozenset({_START, _GOAL}),
                            epsilon=self.epsilon, step=self.epsilon_step,
                            raise_epsilon=self.raise_epsilon, ends=self._ends)
        self.t2 = GraphTask(self.dynamic, a, b, 3, t=self.t, epsilon=self.epsilon,
                            step=self.epsilon_step, raise_epsilon=self.raise_epsilon,
                            ends=self._ends)
        self._corridor = np.ones(len(self.dynamic.sources), dtype=bool)
        self._static_plan: tuple[int, ...] = ()
        self._dynamic_plan: tuple[int, ...] = ()
        self.waypoints: list[Cell] = []
        self._entered: list[int] = []      # per waypoint, the Σ2 polygon it stands for
        self.legs: list[GraphTask] = []
        self.t4: SpaceTimeTask | None = None
        self._leg_plan: tuple[Any, ...] = ()
        if self.corridor is not None:
            self._set_corridor(np.zeros(len(self._corridor), dtype=bool))

    def _set_corridor(self, inside: np.ndarray) -> None:
        """Σ2's tunnel: edges with both ends in it keep their cost, the others are cut."""
        if self._dynamic_plan:                 # the rest of Π(Σ2) stays open
            on = np.zeros(self.static.num_states, dtype=bool)
            on[list(self._dynamic_plan)] = True
            inside = inside | (on[self.dynamic.sources] & on[self.dynamic.targets])
        costs = self.dynamic.edge_costs(t=self.t, ends=self._ends)
        changed = np.flatnonzero(inside != self._corridor)
        self.t2.update_costs(changed, costs=np.where(inside[changed], costs[changed], math.inf))
        self._corridor = inside

    @property
    def tasks(self) -> list[tuple[str, PlanningTask]]:
        """The live tasks in dependency order, named ``"T1"``, ``"T2"``, ``"T3[i]"``,
        ``"T4"``."""
        out: list[tuple[str, PlanningTask]] = [("T1", self.t1), ("T2", self.t2)]
        out += [(f"T3[{i}]", t) for i, t in enumerate(self.legs)]
        if self.t4 is not None:
            out.append(("T4", self.t4))
        return out

    def _cascade(self) -> None:
        """Pass changed plans down the chain (PLAN_CHANGED)."""
        p1 = tuple(self.t1.plan.path.tolist()) if self.t1.plan.found else ()
        if p1 != self._static_plan:
            self._static_plan = p1
            self._emit("T2", self.t2, _PLAN)
            if self.corridor is not None:
                self._set_corridor(self._rings(p1))
        p2 = tuple(self.t2.plan.path.tolist()) if self.t2.plan.found else ()
        if p2 != self._dynamic_plan:
            # the agent moving on along Π(Σ2) leaves its waypoints as they are
            on = bool(p2) and len(p2) <= len(self._dynamic_plan) \
                and self._dynamic_plan[-len(p2):] == p2 and bool(self.legs)
            self._dynamic_plan = p2
            if not on:
                self._split(p2)
        first = self.legs[0] if self.legs else None
        key = (id(first), tuple(map(tuple, first.plan.path.tolist()))) \
            if first is not None and first.plan.found else ()
        if key != self._leg_plan:
            self._leg_plan = key
            self._refine()
            if self.t4 is not None:
                self._emit("T4", self.t4, _PLAN)

    def _rings(self, polygons: tuple[int, ...]) -> np.ndarray:
        """Edges of Σ2 inside the corridor of ``polygons``."""
        keep = np.zeros(self.static.num_states, dtype=bool)
        keep[list(polygons)] = True
        for _ in range(self.corridor or 0):
            src, dst = self.static.sources, self.static.targets
            keep[dst[keep[src]]] = True
        d = self.dynamic
        return keep[d.sources] & keep[d.targets]

    def _split(self, polygons: tuple[int, ...]) -> None:
        """Σ3 tasks for the waypoint pairs of Π(Σ2) (kept where a pair is unchanged)."""
        if not polygons:
            self.waypoints, self._entered, self.legs = [], [], []
            return
        points, index = self.map.waypoints(polygons, self.cell, self.goal_cell)
        old = {(t.start, t.goal): t for t in self.legs}
        self.waypoints, self._entered = points, [polygons[i] for i in index]
        self.legs = [old.get(pair) or GraphTask(
            self.grid, *pair, 2, watches=frozenset({_START, _PLAN, _WORLD}),
            epsilon=self.epsilon, step=self.epsilon_step, raise_epsilon=self.raise_epsilon)
            for pair in zip(points, points[1:])]
        for i, task in enumerate(self.legs):
            if task not in old.values():
                self._emit(f"T3[{i}]", task, _PLAN)

    def _refine(self, *, tunnel: bool = True) -> None:
        """A Σ4 task from the agent's state in the tunnel of the imminent Σ3 plan (from its
        cell nearest the agent on), the times at ``speed`` from now; without ``tunnel``,
        the same problem in the whole space-time domain."""
        if self.spacetime is None or not self.legs or not self.legs[0].plan.found:
            self.t4 = None
            return
        leg = np.asarray(self.legs[0].plan.path, dtype=np.int64)
        near = int(np.argmin(np.abs(leg - np.array(self.cell)).max(axis=1)))
        cells = np.concatenate([[self.cell], leg[near:]]) if tuple(leg[near]) != self.cell \
            else leg[near:]
        k0 = self._step()
        pts = self.grid.positions(cells)
        length = float(np.hypot(*np.diff(pts, axis=0).T).sum())
        arrive = k0 + max(1, math.ceil(length / (self.speed * self.dt)))
        around = Tunnel(cells, time_assignment(pts, k0, arrive), dx=self.tunnel_cells,
                        dk=self.tunnel_steps) if tunnel else None
        self.t4 = SpaceTimeTask(self.spacetime, self._state(), self.legs[0].goal,
                                tunnel=around, arrive=arrive, epsilon=self.epsilon,
                                step=self.epsilon_step)

    def _step(self) -> int:
        """The current time step."""
        return int(round(self.t / self.dt))

    def _state(self) -> tuple[int, int, int, int, int]:
        """The agent's Σ4 state now."""
        return (self.cell[0], self.cell[1], self.velocity[0], self.velocity[1], self._step())

    # ------------------------------------------------------------------ frames
    def think(self, *, max_expansions: int | None = None,
              max_seconds: float | None = None) -> list[tuple[str, int]]:
        """Run the ``max_tasks − 1`` most urgent tasks with work left within the budget
        (split in proportion to 1 / priority; none: each runs until optimal), then pass
        their plans down.  Returns ``(name, expansions)`` per task run."""
        max_expansions, max_seconds = step_budget(max_expansions, max_seconds)
        order = {name: i for i, (name, _) in enumerate(self.tasks)}
        waiting = self.corridor is not None and not self._static_plan  # Σ2 needs Π(Σ1)
        ready = sorted(((t.priority, order[n], n, t) for n, t in self.tasks
                        if t.priority < math.inf and not (waiting and t is self.t2)),
                       key=lambda r: r[:2])
        chosen = ready[:self.max_tasks - 1]
        total = sum(1.0 / r[0] for r in chosen)
        ran = []
        for p, _, name, task in chosen:
            share = (1.0 / p) / total
            budget = None if max_expansions is None else max(1, int(max_expansions * share))
            seconds = None if max_seconds is None else max_seconds * share
            t0 = time.perf_counter()
            ran.append((name, task.run(max_expansions=budget, max_seconds=seconds)))
            self.stats.expanded += ran[-1][1]
            self.stats.elapsed += time.perf_counter() - t0
            self._cascade()
        return ran

    @property
    def settled(self) -> bool:
        """Whether nothing is left to plan until an event: a mesh domain proved there is no
        path, or every task's plan is optimal (or proven impossible) and the chain is
        complete."""
        if any(t.finished and not t.plan.found for t in (self.t1, self.t2)):
            return True
        complete = bool(self.legs)
        if self.spacetime is not None and self.legs and self.legs[0].plan.found:
            complete = complete and self.t4 is not None
        return complete and all(t.priority == math.inf for _, t in self.tasks)

    def act(self) -> bool:
        """T0: one step of ``dt`` along the Σ4 plan (the imminent Σ3 plan without a Σ4
        domain); without one the agent stands still (returns False) and time passes.

        A Σ4 plan that starts earlier than now (the agent stood still while it was
        searched) is taken later if it is still valid so shifted in time, else T(Σ4)
        plans again.  When T(Σ4) finds no plan in its tunnel (the entities hold the agent
        up longer than the tunnel's time window allows), it plans again from now in the
        whole space-time domain, and again each frame while that finds none."""
        nxt: Any = None
        if self.t4 is not None and self.t4.finished and not self.t4.plan.found:
            self._refine(tunnel=False)
        elif self.t4 is not None and self.t4.plan.found:
            nxt = self._spacetime_step(self.t4)
        elif self.spacetime is None and self.legs and self.legs[0].plan.found \
                and len(self.legs[0].plan.path) > 1:
            c = self.legs[0].plan.path[1]
            nxt = (int(c[0]), int(c[1]))
            self.legs[0].move_start(nxt)
            self._emit("T3[0]", self.legs[0], _START)
        self.t += self.dt
        if nxt is None:
            self.velocity = (0, 0)
            return False
        self._move_agent(nxt)
        return True

    def _spacetime_step(self, task: SpaceTimeTask) -> Cell | None:
        """The next cell along ``task``'s plan (None: stand still), the plan aligned with
        now first."""
        path = task.plan.path
        now = self._state()
        if tuple(path[0].tolist()) != now:
            shifted = path.copy()
            shifted[:, 4] += now[4] - path[0, 4]
            shifted[0] = now
            if not task.domain.valid_path(shifted):
                self._refine()
                return None
            task.plan.path = shifted
        if len(task.plan.path) < 2:
            return None
        x, y, vx, vy, k = (int(v) for v in task.plan.path[1])
        self.velocity = (vx, vy)
        task.move_start((x, y, vx, vy, k))
        return x, y

    def frame(self, *, max_expansions: int | None = None,
              max_seconds: float | None = None) -> FrameReport:
        """One frame: :meth:`think` within the budget, then T0 :meth:`act` s."""
        t0 = time.perf_counter()
        ran = self.think(max_expansions=max_expansions, max_seconds=max_seconds)
        moved = self.act()
        events, self.events = self.events, []
        return FrameReport(ran + [("T0", 0)], events, moved, self.position.copy(),
                           time.perf_counter() - t0)

    # ------------------------------------------------------------------ events
    def _emit(self, name: str, task: PlanningTask, event: TaskEvent) -> None:
        """Log ``event`` delivered to ``task`` (named ``name``) if the task watches it."""
        if event in task.watches:
            self.events.append((name, event))

    def _move_agent(self, cell: Cell) -> None:
        """START_CHANGED: the agent is in ``cell``.  A reached waypoint retires its leg,
        and T1 and T2 start again from the polygon of Π(Σ2) it stands for: the rest of
        Π(Σ2) from there is still optimal, so the waypoints stay.  Between waypoints the
        coarse tasks keep their start, whatever polygons the grid leg crosses."""
        self.cell = cell
        self.position = self.grid.position(cell)
        if self.legs and cell == self.legs[0].goal and len(self.legs) > 1:
            self.legs.pop(0)
            self.waypoints.pop(0)
            self._entered.pop(0)
            poly = self._entered[0]
            if poly != self.t1.start:
                self.t1.move_start(poly)
                self.t2.move_start(poly)
                self._emit("T1", self.t1, _START)
                self._emit("T2", self.t2, _START)
        if self.waypoints:
            self.waypoints[0] = cell
        self._cascade()

    def set_goal(self, goal: Any) -> None:
        """GOAL_CHANGED: plan to the world point ``goal`` from where the agent is."""
        poly, cell = self.static.state(goal), self.grid.state(goal)
        self._ends = (self.position.copy(), finite_point("goal", goal))
        self._polygons = (self.static.state(self.position), poly)
        self.goal_cell = cell
        self._reset()
        self._emit("T1", self.t1, _GOAL)
        self._emit("T2", self.t2, _GOAL)

    def set_time(self, t: float) -> None:
        """ENVIRONMENT_CHANGED for Σ2: its densities are now those at time ``t``."""
        t = number("t", t)
        old = self.dynamic.edge_costs(t=self.t, ends=self._ends)
        new = self.dynamic.edge_costs(t=t, ends=self._ends)
        self.t = t
        changed = np.flatnonzero((old != new) & self._corridor)
        self.t2.update_costs(changed, costs=new[changed])
        self._emit("T2", self.t2, _WORLD)

    def set_obstacles(self, obstacles: Any) -> None:
        """ENVIRONMENT_CHANGED for Σ3: the dynamic obstacles' discs are now
        ``obstacles`` (``(m, 3)`` ``(x, y, radius)``)."""
        changes = self.grid.set_obstacles(obstacles)
        for i, task in enumerate(self.legs):
            task.update_costs(changes)
            self._emit(f"T3[{i}]", task, _WORLD)
        self._leg_plan = ()
        self._cascade()

    def set_entities(self, entities: list[PublishedPath]) -> None:
        """ENVIRONMENT_CHANGED for Σ4: the entities' published paths are now
        ``entities``; the Σ4 task plans again."""
        if self.spacetime is None:
            raise InvalidQueryError("set_entities needs a spacetime domain")
        self.spacetime.set_entities(entities)
        self._refine()
        if self.t4 is not None:
            self._emit("T4", self.t4, _WORLD)

    # ------------------------------------------------------------------ results
    def result(self) -> MultiDomainPlan:
        """The plans as they stand (see :class:`MultiDomainPlan`)."""
        t1, t2 = self.t1.plan, self.t2.plan
        legs = [t.plan.path.astype(np.int64) if t.plan.found
                else np.empty((0, 2), dtype=np.int64) for t in self.legs]
        complete = bool(legs) and all(t.plan.found for t in self.legs)
        if complete:
            joined = np.concatenate([legs[0]] + [leg[1:] for leg in legs[1:]])
            path, cost = self.grid.positions(joined), float(sum(t.plan.cost for t in self.legs))
        else:
            path, cost = np.empty((0, 2)), math.inf
        failed = any(t.finished and not t.plan.found for _, t in self.tasks)
        status = Status.FOUND if complete else Status.FAILED if failed \
            else Status.OUT_OF_BUDGET
        plans = [t.plan for _, t in self.tasks]
        eps = max((p.epsilon for p in plans), default=math.inf) if complete else math.inf
        st = self.t4.plan.path if self.t4 is not None and self.t4.plan.found \
            else np.empty((0, 5), dtype=np.int64)
        return MultiDomainPlan(
            path, cost, complete, SearchStats(self.stats.expanded,
                                              elapsed=self.stats.elapsed),
            "multidomain", status=status,
            static=np.asarray(t1.path if t1.found else [], dtype=np.int64),
            dynamic=np.asarray(t2.path if t2.found else [], dtype=np.int64),
            waypoints=np.array(self.waypoints, dtype=np.int64).reshape(-1, 2), legs=legs,
            spacetime=st, epsilon=float(eps))


def plan_multidomain(static: NavMeshDomain, dynamic: DensityDomain, grid: GridDomain,
                     start: Any, goal: Any, *, max_frames: int = 10_000,
                     **options: Any) -> MultiDomainPlan:
    """Plan from ``start`` to ``goal`` with a :class:`MultiDomainPlanner` (``options`` as
    its) that thinks, without acting and with no budget per frame, until it is
    :attr:`~MultiDomainPlanner.settled` or ``max_frames`` frames have passed; returns its
    :meth:`~MultiDomainPlanner.result`.

    >>> from wayfinding.grid import Grid
    >>> from wayfinding.navmesh import NavMesh
    >>> grid = Grid.from_ascii('''
    ... ........
    ... ..##....
    ... ........''')
    >>> mesh = NavMesh.build(grid)
    >>> static, dynamic = NavMeshDomain(mesh), DensityDomain(mesh, np.zeros(mesh.num_polygons))
    >>> plan = plan_multidomain(static, dynamic, GridDomain(grid), (0.5, 0.5), (7.5, 2.5))
    >>> plan.status, round(plan.cost, 4), plan.waypoints.tolist()
    (Status.FOUND, 7.8284, [[0, 0], [4, 0], [7, 2]])
    >>> plan_multidomain(static, dynamic, GridDomain(grid), (0.5, 0.5), (0.5, 0.5)).cost
    0.0
    """
    max_frames = count("max_frames", max_frames)
    options.setdefault("max_tasks", 1_000_000)
    planner = MultiDomainPlanner(static, dynamic, grid, start, goal, **options)
    for _ in range(max_frames):
        if planner.settled:
            break
        planner.think()
    return planner.result()

