"""Many cars on a road network at once: route following far from a focus point, the
lattice (and the trajectory optimiser) near it, planning as asynchronous tasks, and each
car's predicted trajectory published for the others to plan around.

Each car follows its route's polyline (:class:`~wayfinding.traffic.routes.RoutePlanner`,
kept long enough ahead by :func:`~wayfinding.traffic.routes.extend_route`, so it never
stops at a route's end).  Its state is ``s``, how far it has driven along the route (world
units, never decreasing), and ``d``, its offset to the left of the route (0 in its lane).
Every step each car gets a level from its distance to the focus point
(:func:`~wayfinding.traffic.levels.traffic_lod`):

* :attr:`~wayfinding.traffic.levels.TrafficLod.ROUTE` (the simulation LOD): no dynamics;
  ``s`` grows by the driver's desired speed times ``dt`` and the car is placed on its route
  (``d`` = 0), for all such cars in one vectorised pass.
* :attr:`~wayfinding.traffic.levels.TrafficLod.LATTICE` / ``FULL``: the car asks for a plan
  (:func:`~wayfinding.traffic.levels.lattice_step`, then for ``FULL``
  :func:`~wayfinding.traffic.levels.optimise_step`) on the road it is on, among the other
  cars' published predictions, and follows it.  A plan is a profile over ``s``: the offset
  and speed at each distance along the route, ending with a return to the lane one lattice
  spacing past its last node; past it the car drives its lane at its desired speed.  A car
  on a junction piece, on the artificial end of a route or within two lattice spacings of
  its road's end gets no new plan (it keeps the one it has).

Planning runs as tasks on a thread pool (``threads`` workers; 0 runs each task inline when
asked).  A task is stamped with the time it was asked; the car keeps following its previous
plan meanwhile.  A finished task is collected at the start of the next step: older than
``max_age`` seconds it is dropped and asked again; otherwise it is re-based on where the car
is now (the profile's part behind ``s`` dropped, the car's own ``s``, ``d`` and speed put
first), so a late plan never moves a car back along its road.  ``max_asks`` caps the tasks
asked in one step (the cars waiting longest first), spreading the planning over the steps.
With every result collected in time (``threads=0``, or :meth:`Traffic.wait` before each
step), the same inputs give the same cars whatever the number of threads.

Every ``publish_every`` seconds (the first time a tenth to the whole of it after the car
is added, to spread the work over the steps) each car appends its predicted
trajectory for the next ``horizon`` seconds (a
:class:`~wayfinding.traffic.prediction.Trajectory`): the places it would reach step by step
following its current plan.
:meth:`Traffic.predicted_position` answers by time from the piece published last before
it; a planning car avoids the other cars' latest pieces.

>>> from wayfinding.traffic.roads import road_grid
>>> traffic = Traffic(road_grid(3, 1, spacing=100.0), dt=0.5)
>>> car = traffic.add_car(0, driver="normal")
>>> for _ in range(4):
...     _ = traffic.step([1000.0, 1000.0])
>>> traffic.distances.tolist(), traffic.positions.tolist()
([30.0], [[30.0, -1.75]])
"""

from __future__ import annotations

import copy
import math
import time as _time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as _wait_futures
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError, brief
from .drivers import DRIVERS
from .drivers import driver as _named_driver
from .levels import TrafficLod, lattice_step, optimise_step, traffic_lod
from .prediction import Trajectory
from .roads import LaneType, RoadNetwork
from .routes import DriverCosts, RoutePlanner, extend_route

#: A plan: ``(s, d, v)``, each ``(n,)`` float64 with ``s`` increasing.
_Profile = tuple[np.ndarray, np.ndarray, np.ndarray]


class PlanExecutor(Protocol):
    """What runs planning tasks: ``submit(fn, *args)`` returning a
    :class:`concurrent.futures.Future` (a :class:`~concurrent.futures.ThreadPoolExecutor`
    is one)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]: ...


class _Inline:
    """Runs each task when it is submitted."""

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args))
        return future


class _Route:
    """A car's route as driven: ``lanes`` and where each starts in ``points``
    (``offsets``), the polyline with its arc lengths ``stations``, and ``base``, the
    car's driven distance at ``points[0]``."""

    __slots__ = ("lanes", "offsets", "points", "stations", "base")

    def __init__(self, network: RoadNetwork, lanes: np.ndarray, points: np.ndarray,
                 base: float) -> None:
        self.lanes = lanes
        sizes = [network.lanes[lane].points.shape[0] for lane in lanes.tolist()]
        self.offsets = np.concatenate(([0], np.cumsum(sizes)))
        self.points = points
        self.stations = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(points, axis=0).T))))
        self.base = base

    def place(self, s: np.ndarray, d: np.ndarray) -> np.ndarray:
        """``(m, 2)``: the points ``s`` along (absolute) and ``d`` to the left."""
        rel = np.clip(s - self.base, 0.0, self.stations[-1])
        j = np.clip(np.searchsorted(self.stations, rel, side="right") - 1, 0,
                    self.stations.size - 2)
        return _on_segments(self.points, self.stations, j, rel, d)


def _on_segments(points: np.ndarray, stations: np.ndarray, j: np.ndarray, rel: np.ndarray,
                 d: np.ndarray) -> np.ndarray:
    """Points ``rel`` along the polyline's segments ``j`` and ``d`` to their left."""
    a, b = points[j], points[j + 1]
    length = stations[j + 1] - stations[j]
    safe = np.where(length > 0, length, 1.0)
    t = np.where(length > 0, (rel - stations[j]) / safe, 0.0)
    unit = (b - a) / safe[:, None]
    left = np.column_stack([-unit[:, 1], unit[:, 0]])
    return a + (b - a) * t[:, None] + left * d[:, None]


@dataclass(frozen=True)
class TrafficStep:
    """What one :meth:`Traffic.step` did: the ``time`` reached (seconds); how many cars
    were at each level (``route``, ``lattice``, ``full``); planning tasks ``asked``,
    results ``applied``, results ``dropped`` (too old, or the car no longer plans); and
    ``elapsed``, the step's wall time in seconds."""

    time: float
    route: int
    lattice: int
    full: int
    asked: int
    applied: int
    dropped: int
    elapsed: float


def _plan_task(network: RoadNetwork, lane_id: int, along: float, lane_base: float,
               driver: DriverCosts, level: TrafficLod, cars: list[Trajectory], now: float,
               n_sets: int, spacing: float) -> _Profile | None:
    """A plan for a car ``along`` world units into lane ``lane_id`` (the lane starting at
    driven distance ``lane_base``) asked at time ``now``, among the ``cars``' predicted
    trajectories."""
    lane = network.lanes[lane_id]
    road = network.road_lanes(lane.road)
    scale = lane.length / road[0].length          # own-lane units per reference unit
    sets = min(n_sets, int((lane.length - along) / (spacing * scale)))
    if sets < 2:
        return None
    cars = [_shifted(car, now) for car in cars]         # the lattice's times start at 0
    step = lattice_step(network, lane.road, forward=lane.forward, driver=driver, cars=cars,
                        n_sets=sets, spacing=spacing, start=along / scale, k=5)
    if not step.paths:
        return None
    if level is TrafficLod.FULL:
        plan = optimise_step(network, step)
        rel, d = _project(lane.points, lane.stations, plan.points)
        keep = np.concatenate(([True], rel[1:] > np.maximum.accumulate(rel)[:-1]))
        rel, d, v = rel[keep], d[keep], plan.speeds[keep]
    else:
        rel = np.minimum(along + spacing * scale * np.arange(sets + 1), lane.length)
        chosen = np.concatenate(([step.start_lane], step.paths[0].lanes))
        _, d = _project(lane.points, lane.stations,
                        step.positions[np.arange(sets + 1), chosen])
        v = step.speeds[0]
    s = lane_base + rel
    return (np.append(s, s[-1] + spacing), np.append(d, 0.0),
            np.append(v, driver.desired_speed))


def _shifted(car: Trajectory, by: float) -> Trajectory:
    """``car``'s trajectory with its times ``by`` seconds earlier (already checked)."""
    moved = copy.copy(car)
    moved.start_time = car.start_time - by
    moved.times = car.times - by
    return moved


def _project(points: np.ndarray, stations: np.ndarray,
             where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each point of ``where`` projected on the polyline: ``(along, left offset)``."""
    a, b = points[:-1], points[1:]
    seg = b - a
    length = np.hypot(seg[:, 0], seg[:, 1])
    unit = seg / length[:, None]
    rel = where[:, None, :] - a[None]
    t = np.clip((rel * unit[None]).sum(axis=2), 0.0, length[None])
    foot = a[None] + unit[None] * t[..., None]
    j = np.hypot(*(where[:, None, :] - foot).transpose(2, 0, 1)).argmin(axis=1)
    i = np.arange(where.shape[0])
    side = rel[i, j, 1] * unit[j, 0] - rel[i, j, 0] * unit[j, 1]
    return stations[j] + t[i, j], side


class Traffic:
    """Cars on ``network`` stepped together (see the module's description).

    ``dt``: seconds per step (> 0).  ``lattice_within``, ``full_within``: the levels'
    distances to the focus point (:func:`~wayfinding.traffic.levels.traffic_lod`; none:
    no car gets the full level).  ``threads``: planning worker threads (0: each task runs
    inline when asked); ``executor``: run tasks there instead (anything with
    ``submit(fn, *args)`` returning a :class:`~concurrent.futures.Future`; ``threads``
    must then be 0).  ``max_age``: seconds after which a plan's result is too old to use
    (>= ``dt``).  ``replan_every``: seconds between a planning car's requests (> 0).
    ``max_asks``: the most tasks asked in one step (>= 1), those who have waited longest
    first (ties: the lower id), which spreads the planning over the steps.
    ``n_sets``, ``spacing``: the lattice's node sets (2 to 1000) and their spacing (world
    units, > 0).
    ``ahead``: road kept ahead of each car on its route (world units, > 0).
    ``publish_every``: seconds between a car's predictions (> 0); ``horizon``: how many
    seconds each covers (> 0); a car keeps those of the last 10 seconds (at least one).
    Use it as a context manager (or call :meth:`close`) to stop its threads."""

    def __init__(self, network: RoadNetwork, *, dt: float = 0.1,
                 lattice_within: float = 150.0, full_within: float | None = None,
                 threads: int = 0, executor: PlanExecutor | None = None, max_age: float = 1.0,
                 replan_every: float = 0.5, max_asks: int = 10**9, n_sets: int = 8,
                 spacing: float = 10.0, ahead: float = 200.0, publish_every: float = 1.0,
                 horizon: float = 3.0) -> None:
        if not isinstance(network, RoadNetwork):
            raise InvalidQueryError(f"network {network!r} must be a RoadNetwork")
        self.network = network
        self.dt = _validate.positive_float("dt", dt)
        self.lattice_within = _validate.positive_float("lattice_within", lattice_within,
                                                       allow_zero=True)
        self.full_within = None if full_within is None else \
            _validate.positive_float("full_within", full_within, allow_zero=True)
        workers = _validate.count("threads", threads, min=0, max=1024)
        if executor is not None and workers:
            raise InvalidQueryError(f"threads {threads!r} must be 0 with an executor")
        if executor is not None and not callable(getattr(executor, "submit", None)):
            raise InvalidQueryError(f"executor {executor!r} has no submit method")
        self._pool = ThreadPoolExecutor(workers) if workers else None
        self._executor: PlanExecutor = executor or self._pool or _Inline()
        self.max_age = _validate.positive_float("max_age", max_age)
        if self.max_age < self.dt:
            raise InvalidQueryError(f"max_age {max_age!r} must be at least dt {dt!r}: "
                                    "every result would be too old")
        self.replan_every = _validate.positive_float("replan_every", replan_every)
        self.max_asks = _validate.count("max_asks", max_asks, max=10**9)
        self.n_sets = _validate.count("n_sets", n_sets, min=2, max=1000)
        self.spacing = _validate.positive_float("spacing", spacing)
        self.ahead = _validate.positive_float("ahead", ahead)
        self.publish_every = _validate.positive_float("publish_every", publish_every)
        self.horizon = _validate.positive_float("horizon", horizon)
        self.time = 0.0
        self._steps = 0
        self._planners: dict[DriverCosts, RoutePlanner] = {}
        self._drivers: list[DriverCosts] = []
        self._routes: list[_Route] = []
        self._plans: list[_Profile | None] = []
        self._plan_time: list[float] = []
        #: The planning task in flight per car: the time it was asked, its future.
        self._tasks: dict[int, tuple[float, Future[Any]]] = {}
        self._planned: set[int] = set()          # the cars with a plan
        self._history: list[deque[tuple[float, Trajectory | None, tuple[Any, ...]]]] = []
        self._next_publish: list[float] = []
        self._s = np.empty(0)
        self._d = np.empty(0)
        self._speed = np.empty(0)
        self._desired = np.empty(0)
        self._levels: list[TrafficLod] = []
        self._packed: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float] | None = None

    # -- cars ------------------------------------------------------------------------
    def add_car(self, lane: int, *, driver: str | DriverCosts = "normal",
                goal: int | None = None, at: float = 0.0) -> int:
        """Put a car ``at`` world units into driving lane ``lane`` (>= 0, within the lane);
        returns its id.  ``driver``: a personality's name
        (:data:`~wayfinding.traffic.drivers.DRIVERS`) or a
        :class:`~wayfinding.traffic.routes.DriverCosts`.  ``goal``: the lane its route
        leads to (none: its own lane; either way the route goes on past it, straightest
        first).  Refuses a goal the driver cannot reach."""
        costs = _named_driver(driver) if isinstance(driver, str) else driver
        if not isinstance(costs, DriverCosts):
            raise InvalidQueryError(f"driver {driver!r} must be a name or a DriverCosts")
        start = self.network._lane("lane", lane)
        if self.network.lanes[start].type is not LaneType.DRIVING:
            raise InvalidQueryError(f"lane {lane!r} is a {self.network.lanes[start].type} "
                                    "lane: cars start in a driving lane")
        along = _validate.positive_float("at", at, allow_zero=True,
                                         max=self.network.lanes[start].length)
        planner = self._planners.get(costs)
        if planner is None:
            planner = self._planners[costs] = RoutePlanner(self.network, driver=costs)
        lanes = [start]
        if goal is not None:
            route = planner.find_route(start, self.network._lane("goal", goal))
            if not route.found:
                raise InvalidQueryError(f"goal lane {goal!r} cannot be reached from lane "
                                        f"{lane!r} by this driver")
            lanes = route.path.tolist()
        ext = extend_route(planner, lanes, at=along, ahead=self.ahead)
        car = len(self._routes)
        self._drivers.append(costs)
        self._routes.append(_Route(self.network, ext.lanes, ext.points, 0.0))
        self._plans.append(None)
        self._plan_time.append(-math.inf)
        self._history.append(deque(maxlen=max(int(math.ceil(10.0 / self.publish_every)), 1)))
        self._next_publish.append(0.0)
        self._s = np.append(self._s, along)
        self._d = np.append(self._d, 0.0)
        self._speed = np.append(self._speed, costs.desired_speed)
        self._desired = np.append(self._desired, costs.desired_speed)
        self._levels.append(TrafficLod.ROUTE)
        self._packed = None
        self._publish(car)
        self._next_publish[car] = self.time + (car % 10 + 1) * self.publish_every / 10
        return car

    @property
    def count(self) -> int:
        """How many cars there are."""
        return len(self._routes)

    @property
    def distances(self) -> np.ndarray:
        """``(cars,)`` float64: how far each car has driven along its route (world
        units)."""
        return self._s.copy()

    @property
    def offsets(self) -> np.ndarray:
        """``(cars,)`` float64: each car's offset to the left of its route (world units)."""
        return self._d.copy()

    @property
    def speeds(self) -> np.ndarray:
        """``(cars,)`` float64: each car's speed (world units per second)."""
        return self._speed.copy()

    @property
    def positions(self) -> np.ndarray:
        """``(cars, 2)`` float64: where each car is."""
        return self._place(np.arange(self.count), self._s, self._d)

    @property
    def levels(self) -> list[TrafficLod]:
        """Each car's level at the last step."""
        return list(self._levels)

    def route(self, car: int) -> tuple[np.ndarray, np.ndarray, float]:
        """Car ``car``'s route as it stands: its lanes ``(n,)`` int64, its polyline
        ``(m, 2)`` float64 and the driven distance at the polyline's first point (lanes
        already driven are dropped as the car goes)."""
        r = self._routes[self._car(car)]
        return r.lanes.copy(), r.points.copy(), r.base

    def _car(self, car: Any) -> int:
        if not self.count:
            raise InvalidQueryError(f"car {car!r}: there are no cars")
        return _validate.count("car", car, min=0, max=self.count - 1)

    # -- geometry --------------------------------------------------------------------
    def _pack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        """Every route's polyline in one array: keys ``car · K + station``."""
        if self._packed is None:
            span = max(float(r.stations[-1]) for r in self._routes) + 1.0
            keys = np.concatenate([r.stations + i * span for i, r in enumerate(self._routes)])
            points = np.vstack([r.points for r in self._routes])
            first = np.cumsum([0] + [r.points.shape[0] for r in self._routes])
            base = np.array([r.base for r in self._routes])
            self._packed = (keys, points, first, base, span)
        return self._packed

    def _place(self, cars: np.ndarray, s: np.ndarray, d: np.ndarray) -> np.ndarray:
        if cars.size == 0:
            return np.empty((0, 2))
        keys, points, first, base, span = self._pack()
        total = keys[first[cars + 1] - 1] - cars * span
        rel = np.clip(s - base[cars], 0.0, total) + cars * span
        j = np.clip(np.searchsorted(keys, rel, side="right") - 1, first[cars],
                    first[cars + 1] - 2)
        return _on_segments(points, keys, j, rel, d)

    def _maintain_routes(self) -> None:
        """Keep ``ahead`` of road before every car; drop lanes it has left behind."""
        keys, _, first, base, span = self._pack()
        total = keys[first[1:] - 1] - np.arange(self.count) * span
        short = np.flatnonzero(total - (self._s - base) < self.ahead / 2)
        for car in short.tolist():
            r = self._routes[car]
            rel = float(self._s[car] - r.base)
            drop = 0
            while drop + 1 < r.lanes.size and r.stations[r.offsets[drop + 1]] <= rel:
                drop += 1
            cut = float(r.stations[r.offsets[drop]])
            planner = self._planners[self._drivers[car]]
            ext = extend_route(planner, r.lanes[drop:], at=rel - cut, ahead=self.ahead)
            self._routes[car] = _Route(self.network, ext.lanes, ext.points, r.base + cut)
        if short.size:
            self._packed = None

    def _lane_of(self, car: int) -> tuple[int, float, float] | None:
        """The lane car ``car`` is in, how far into it and where it starts (driven
        distance); none on a junction piece or past the route's last lane."""
        r = self._routes[car]
        rel = float(self._s[car] - r.base)
        i = int(np.searchsorted(r.stations[r.offsets[:-1]], rel, side="right")) - 1
        lane = self.network.lanes[int(r.lanes[i])]
        along = rel - float(r.stations[r.offsets[i]])
        if along > lane.length:
            return None
        return int(r.lanes[i]), along, r.base + float(r.stations[r.offsets[i]])

    # -- predictions -----------------------------------------------------------------
    def _advance(self, s: float, plan: _Profile | None,
                 desired: float) -> tuple[float, float, float]:
        """One step of a planning car from ``s``: its next ``(s, d, v)``."""
        if plan is None:
            return s + desired * self.dt, 0.0, desired
        v = float(np.interp(s, plan[0], plan[2], right=desired))
        nxt = s + v * self.dt
        nv = float(np.interp(nxt, plan[0], plan[2], right=desired))
        return nxt, float(np.interp(nxt, plan[0], plan[1], right=0.0)), nv

    def _publish(self, car: int) -> None:
        steps = max(int(math.ceil(self.horizon / self.dt)), 1)
        state = (self._routes[car], self._plans[car], self._s[car], self._d[car], steps,
                 self._drivers[car].desired_speed)
        self._history[car].append((self.time, None, state))
        self._next_publish[car] = self.time + self.publish_every

    def _piece(self, car: int, index: int) -> Trajectory:
        """Car ``car``'s prediction ``index`` as a trajectory (built when first asked)."""
        start, built, state = self._history[car][index]
        if built is None:
            route, plan, s0, d0, steps, desired = state
            s, d = np.empty(steps + 1), np.empty(steps + 1)
            s[0], d[0] = s0, d0
            for k in range(steps):        # the steps the car would take on its plan
                s[k + 1], d[k + 1], _ = self._advance(s[k], plan, desired)
            corners = route.base + route.stations
            at = np.concatenate((s, corners[(corners > s[0]) & (corners < s[-1])]))
            order = np.argsort(at, kind="stable")
            points = route.place(at[order], np.interp(at[order], s, d))
            travelled = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(points, axis=0).T))))
            # Each step's stretch is driven in dt: a step's speed is the mean of its two
            # stretches' (so a stretch's time, 2·length / (v0 + v1), stays near dt).
            mark = travelled[np.argsort(order, kind="stable")[:s.size]]
            pace = np.diff(mark) / self.dt
            v = np.concatenate(([pace[0]], (pace[:-1] + pace[1:]) / 2, [pace[-1]]))
            built = Trajectory(points, np.interp(travelled, mark, v), start_time=start)
            self._history[car][index] = (start, built, state)
        return built

    def prediction(self, car: int) -> Trajectory:
        """Car ``car``'s latest published predicted trajectory."""
        c = self._car(car)
        return self._piece(c, len(self._history[c]) - 1)

    def predicted_position(self, car: int, t: Any) -> np.ndarray:
        """Where car ``car`` was predicted to be at each time of ``t`` (seconds, a number or
        an array): ``(m, 2)`` float64, each from the last prediction published at or
        before that time (the oldest kept one for earlier times)."""
        c = self._car(car)
        ts = _validate.reals("t", t).reshape(-1)
        if not np.isfinite(ts).all():
            raise InvalidQueryError("t must be finite times (it holds NaN or infinity)")
        starts = np.array([entry[0] for entry in self._history[c]])
        which = np.clip(np.searchsorted(starts, ts, side="right") - 1, 0, starts.size - 1)
        out = np.empty((ts.size, 2))
        for index in np.unique(which).tolist():
            mask = which == index
            out[mask] = self._piece(c, index).position_at(ts[mask])
        return out

    # -- stepping --------------------------------------------------------------------
    def _collect(self) -> tuple[int, int]:
        applied = dropped = 0
        for car in sorted(self._tasks):
            asked, future = self._tasks[car]
            if not future.done():
                continue
            del self._tasks[car]
            result = future.result()
            if self.time - asked > self.max_age + 1e-9 or self._levels[car] is TrafficLod.ROUTE:
                dropped += 1
                continue
            applied += 1
            self._plan_time[car] = asked
            if result is None:          # no road to plan on: the current plan goes on
                continue
            s, d, v = result
            keep = s > self._s[car]
            self._planned.add(car)
            self._plans[car] = (np.concatenate(([self._s[car]], s[keep])),
                                np.concatenate(([self._d[car]], d[keep])),
                                np.concatenate(([self._speed[car]], v[keep])))
        return applied, dropped

    def _due(self, car: int) -> tuple[int, float, float] | None:
        """Where planning car ``car`` is (:meth:`_lane_of`) if it should ask for a plan
        now, else none."""
        if car in self._tasks:
            return None
        plan = self._plans[car]
        fresh = self.time - self._plan_time[car] < self.replan_every - 1e-9
        if fresh and (plan is None or self._s[car] < plan[0][-1]):
            return None
        where = self._lane_of(car)
        if where is None:               # asks again in replan_every
            self._plan_time[car] = self.time
        return where

    def _ask(self, car: int, where: tuple[int, float, float], positions: np.ndarray) -> None:
        lane, along, lane_base = where
        reach = 2.0 * self.n_sets * self.spacing
        near = np.flatnonzero(np.hypot(*(positions - positions[car]).T) <= reach)
        cars = [self.prediction(other) for other in near.tolist() if other != car]
        future = self._executor.submit(_plan_task, self.network, lane, along, lane_base,
                                       self._drivers[car], self._levels[car], cars,
                                       self.time, self.n_sets, self.spacing)
        self._tasks[car] = (self.time, future)

    def step(self, focus: Any) -> TrafficStep:
        """Advance every car by ``dt`` around ``focus`` (the player's ``(x, y)``): collect
        finished plans, set each car's level, ask for plans, move the cars, keep their
        routes long enough and publish the predictions that are due."""
        started = _time.perf_counter()
        point = _validate.finite_point("focus", focus)
        if not self.count:
            self._steps += 1
            self.time = self._steps * self.dt
            return TrafficStep(self.time, 0, 0, 0, 0, 0, 0, _time.perf_counter() - started)
        applied, dropped = self._collect()
        positions = self.positions
        self._levels = traffic_lod(np.hypot(*(positions - point).T),
                                   lattice_within=self.lattice_within,
                                   full_within=self.full_within)
        near = [c for c, lod in enumerate(self._levels) if lod is not TrafficLod.ROUTE]
        due = sorted(((self._plan_time[c], c, where) for c in near
                      if (where := self._due(c)) is not None), key=lambda e: e[:2])
        for _, c, where in due[:self.max_asks]:
            self._ask(c, where, positions)
        asked = min(len(due), self.max_asks)
        far = np.ones(self.count, dtype=bool)
        far[near] = False
        self._s[far] += self._desired[far] * self.dt
        self._d[far] = 0.0
        self._speed[far] = self._desired[far]
        for c in near:
            self._s[c], self._d[c], self._speed[c] = self._advance(
                float(self._s[c]), self._plans[c], self._drivers[c].desired_speed)
        for c in [c for c in self._planned if far[c]]:
            self._plans[c] = None
            self._planned.discard(c)
        self._steps += 1
        self.time = self._steps * self.dt
        self._maintain_routes()
        publish = np.flatnonzero(np.array(self._next_publish) <= self.time + 1e-9)
        for c in publish.tolist():
            self._publish(c)
        counts = [self._levels.count(level) for level in TrafficLod]
        return TrafficStep(self.time, counts[0], counts[1], counts[2], asked, applied,
                           dropped, _time.perf_counter() - started)

    def wait(self) -> None:
        """Block until every planning task in flight has finished (their results are
        collected by the next step)."""
        _wait_futures([future for _, future in self._tasks.values()])

    def close(self) -> None:
        """Stop the worker threads (tasks in flight finish first)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def __enter__(self) -> Traffic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def add_random_cars(traffic: Traffic, count: int, *, seed: int = 0,
                    drivers: Sequence[str] = ("cautious", "normal", "reckless")) -> list[int]:
    """Add ``count`` cars to ``traffic`` at random driving lanes, points along them,
    goals and drivers (of ``drivers``) from ``seed``; unreachable goals give a car
    without one.  Returns their ids."""
    if not isinstance(traffic, Traffic):
        raise InvalidQueryError(f"traffic {brief(traffic)} must be a Traffic")
    n = _validate.count("count", count, min=0, max=10**7)
    if isinstance(drivers, str) or not isinstance(drivers, Iterable):
        raise InvalidQueryError(f"drivers {brief(drivers)} must be a sequence of driver names")
    names = [_validate.choice("drivers", name, sorted(DRIVERS)) for name in drivers]
    if not names:
        raise InvalidQueryError("drivers must name at least one driver")
    rng = np.random.default_rng(_validate.count("seed", seed, min=0))
    driving = [lane.id for lane in traffic.network.lanes if lane.type is LaneType.DRIVING]
    if not driving:
        raise InvalidQueryError("the network has no driving lane")
    ids = []
    for _ in range(n):
        lane = driving[int(rng.integers(len(driving)))]
        goal = driving[int(rng.integers(len(driving)))]
        name = names[int(rng.integers(len(names)))]
        at = float(rng.uniform(0.0, traffic.network.lanes[lane].length))
        try:
            ids.append(traffic.add_car(lane, driver=name, goal=goal, at=at))
        except InvalidQueryError:
            ids.append(traffic.add_car(lane, driver=name, at=at))
    return ids
