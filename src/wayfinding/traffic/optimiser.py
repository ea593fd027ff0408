"""The low-level trajectory optimiser: simulate a car following a control path, score what
it actually drove, push the path along the potential gradient and repeat while the score
falls; the best of several seeds (the lattice planner's top paths) wins.

* **Vehicle** (:class:`CarModel`): a kinematic bicycle with bounded steering, throttle,
  braking, top speed and sideways grip (the steering is capped so that ``v² / R`` stays
  within ``lateral_acceleration`` for the speed ``v`` the frame is driven at, after its
  acceleration), stepped at ``dt``.
* **Controller**: pure pursuit.  At frame ``k`` it steers towards the control path's point
  ``lookahead`` frames ahead and accelerates (within the car's limits) towards the control
  path's own speed there, ``|c[k+1] - c[k]| / dt``.
* **Score** (lower is better), a sum over the frames of three terms:

  1. potential: ``w_potential · (d · ∇P + |d| |∇P|)`` for the frame's move ``d`` and the
     gradient of ``P = road + w_cars · car_avoidance · cars`` at the new position and time
     (the road's :class:`~wayfinding.traffic.road_field.RoadField` and the cars'
     :class:`~wayfinding.traffic.prediction.CarField`): 0 when moving straight downhill,
     more the more the move climbs;
  2. speed: ``w_speed · |v - desired_speed| · dt``;
  3. collision: ``w_collision`` on each frame where the car is off the road or within
     ``2 · radius`` of another car's predicted position.
* **Loop** per seed: control path 0 samples the seed at the frame times; each next control
  path is the actual path moved against ``∇P`` (away from high potential), taking only
  the part of ``∇P`` across the car's heading at each frame (a push along the heading
  would only re-time the control path, which the speed term governs), scaled so that the
  frame pushed most moves ``push`` world units (the gradient's shape sets where the path
  bends, not how far: a step that does not depend on the weights); an iteration is kept
  only while it lowers the score, for at most ``max_iterations``.  The accepted
  scores therefore never rise, and the result is never worse than its seed.

The driver (:class:`~wayfinding.traffic.routes.DriverCosts`) sets the road field's lane
speeds (its whole factor per lane: lane type as the car sees it, road kind, avoided roads),
the desired speed and how strongly the cars repel: the same record as routes and the
lattice.  The loop over frames is Python (a few hundred frames per plan, all seeds
stepped together with numpy).

>>> from wayfinding.traffic.roads import LaneSpec, RoadNetwork
>>> from wayfinding.traffic.road_field import RoadField
>>> from wayfinding.traffic.routes import DriverCosts
>>> net = RoadNetwork()
>>> _ = net.add_road([[0, 0], [200, 0]], [LaneSpec(offset=0.0)])
>>> driver = DriverCosts(desired_speed=10.0)
>>> field = RoadField(net, car=[0, 0], heading=0.0, length=80.0, width=6.0, cell=0.5,
...                   driver=driver)
>>> seed = Trajectory([[0, 0], [60, 0]], [10.0, 10.0])
>>> plan = optimise_trajectory([seed], start=[0, 0], heading=0.0, speed=10.0, field=field,
...                            driver=driver, horizon=2.0)
>>> plan.collisions, round(float(plan.points[-1, 0]), 3), bool(plan.cost <= plan.seed_costs[0])
(0, 20.0, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError
from ..results import _fields_equal
from .lattice import LatticePath, propagate_speeds, turn_speed_limits
from .prediction import CarField, Trajectory
from .road_field import RoadField
from .routes import DriverCosts


@dataclass(frozen=True, kw_only=True)
class CarModel:
    """Simplified vehicle dynamics (a kinematic bicycle).

    ``wheelbase``: axle distance, world units (> 0).  ``max_steer``: the steering angle's
    bound, radians (in (0, π/2)).  ``max_acceleration``, ``max_braking``: world units per
    second² (> 0).  ``max_speed``: world units per second (> 0).
    ``lateral_acceleration``: the most sideways acceleration the tyres hold (> 0).
    ``radius``: the car's body as a disc, for collisions (> 0)."""

    wheelbase: float = 2.7
    max_steer: float = 0.6
    max_acceleration: float = 4.0
    max_braking: float = 8.0
    max_speed: float = 50.0
    lateral_acceleration: float = 8.0
    radius: float = 1.0

    def __post_init__(self) -> None:
        for name in ("wheelbase", "max_acceleration", "max_braking", "max_speed",
                     "lateral_acceleration", "radius"):
            _validate.positive_float(name, getattr(self, name))
        _validate.number("max_steer", self.max_steer, min=0.0, max=math.pi / 2,
                         min_open=True, max_open=True)


@dataclass(frozen=True, kw_only=True)
class ScoreWeights:
    """The score's weights (>= 0): ``potential``, ``speed`` and ``collision`` on its three
    terms, ``cars`` on the cars' field inside the potential (times the driver's
    ``car_avoidance``)."""

    potential: float = 1.0
    speed: float = 0.5
    collision: float = 100.0
    cars: float = 10.0

    def __post_init__(self) -> None:
        for name in ("potential", "speed", "collision", "cars"):
            _validate.positive_float(name, getattr(self, name), allow_zero=True)


@dataclass(frozen=True, eq=False)
class OptimisedPath:
    """The best optimised trajectory of a plan.

    ``times`` ``(n,)`` seconds; ``points`` ``(n, 2)`` the positions actually driven,
    ``headings`` ``(n,)`` radians and ``speeds`` ``(n,)`` at each frame; ``cost`` its score;
    ``seed`` the index of the seed it came from; ``iterations`` the accepted iterations;
    ``trace`` ``(iterations + 1,)`` that seed's accepted scores (non-increasing);
    ``collisions`` the frames counted as collisions; ``seed_costs`` and ``final_costs``
    ``(k,)`` every seed's score before and after optimising."""

    times: np.ndarray
    points: np.ndarray
    headings: np.ndarray
    speeds: np.ndarray
    cost: float
    seed: int
    iterations: int
    trace: np.ndarray
    collisions: int
    seed_costs: np.ndarray
    final_costs: np.ndarray

    __eq__ = _fields_equal


def lattice_seeds(start: Any, positions: Any, paths: Sequence[LatticePath], *,
                  driver: DriverCosts, model: CarModel = CarModel()) -> list[Trajectory]:
    """The lattice planner's paths as seed trajectories: from ``start`` through each path's
    nodes, at the driver's desired speed capped at each node by its turn
    (:func:`~wayfinding.traffic.lattice.turn_speed_limits` with the model's sideways grip)
    and braked for ahead (:func:`~wayfinding.traffic.lattice.propagate_speeds` with its
    braking).

    ``start``: the car's ``(x, y)``.  ``positions``: ``(n_sets, n_lanes, 2)`` the lattice's
    nodes (e.g. from :func:`~wayfinding.traffic.levels.road_lattice`).  ``paths``: from
    :func:`~wayfinding.traffic.lattice.plan_lattice`.  Speeds are at least 0.001, so a seed
    never stalls.

    >>> positions = np.array([[[10.0, 0.0], [10.0, 3.0]], [[20.0, 0.0], [20.0, 3.0]]])
    >>> from wayfinding.traffic.lattice import plan_lattice
    >>> best = plan_lattice(np.zeros((2, 2)), 0, costs=DriverCosts().lattice_costs(), k=1)
    >>> seed = lattice_seeds([0, 0], positions, best, driver=DriverCosts(desired_speed=12.0))
    >>> seed[0].points.tolist(), seed[0].speeds.tolist()
    ([[0.0, 0.0], [10.0, 0.0], [20.0, 0.0]], [12.0, 12.0, 12.0])
    """
    at = _validate.finite_point("start", start)
    pos = _validate.reals("positions", positions)
    if pos.ndim != 3 or pos.shape[2] != 2 or 0 in pos.shape or not np.isfinite(pos).all():
        raise InvalidQueryError(f"positions of shape {pos.shape} must be a finite "
                                "(n_sets, n_lanes, 2) array")
    out = []
    for path in paths:
        if not isinstance(path, LatticePath) or path.lanes.shape != (pos.shape[0],) \
                or not ((path.lanes >= 0) & (path.lanes < pos.shape[1])).all():
            raise InvalidQueryError(f"path {path!r} must be a LatticePath with one lane of "
                                    f"the {pos.shape[1]} per set of the {pos.shape[0]}")
        pts = np.vstack([at, pos[np.arange(pos.shape[0]), path.lanes]])
        _, speeds = _speed_pass(pts, driver, model)
        out.append(Trajectory(pts, np.maximum(speeds, 1e-3)))
    return out


def _speed_pass(points: np.ndarray, driver: DriverCosts,
                model: CarModel) -> tuple[np.ndarray, np.ndarray]:
    """A path's turn limits (the driver's desired speed capped by the model's sideways
    grip) and its speeds after the backward pass with the model's braking, ``(n,)`` each
    for the ``(n, 2)`` ``points``."""
    limits = turn_speed_limits(points, max_speed=driver.desired_speed,
                               lateral_acceleration=model.lateral_acceleration)
    steps = np.hypot(*np.diff(points, axis=0).T)
    speeds = propagate_speeds(limits[1:], steps, start_limit=float(limits[0]),
                              deceleration=model.max_braking)
    return limits, speeds


def _simulate(control: np.ndarray, start: np.ndarray, heading: float, speed: float,
              model: CarModel, dt: float, lookahead: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drive every control path ``(k, n, 2)`` from the same state: positions ``(k, n, 2)``,
    headings and speeds ``(k, n)``."""
    k, n, _ = control.shape
    pos = np.empty((k, n, 2))
    head = np.empty((k, n))
    vel = np.empty((k, n))
    pos[:, 0], head[:, 0], vel[:, 0] = start, heading, speed
    wish = np.hypot(*np.diff(control, axis=1).transpose(2, 0, 1)) / dt
    rows = np.arange(k)
    for i in range(n - 1):
        p, h, v = pos[:, i], head[:, i], vel[:, i]
        target = control[rows, min(i + lookahead, n - 1)]
        to = target - p
        dist = np.maximum(np.hypot(to[:, 0], to[:, 1]), 1e-9)
        alpha = np.arctan2(to[:, 1], to[:, 0]) - h
        accel = np.clip((wish[:, i] - v) / dt, -model.max_braking, model.max_acceleration)
        # Above top speed (a start faster than the model's) it brakes, no harder than it can.
        v2 = np.clip(v + accel * dt, 0.0, np.maximum(model.max_speed,
                                                     v - model.max_braking * dt))
        # The frame is driven at v2: its curvature is capped for that speed.
        grip = model.lateral_acceleration / np.maximum(v2 * v2, 1e-9)
        curvature = np.clip(2.0 * np.sin(alpha) / dist, -grip, grip)
        steer = np.clip(np.arctan(curvature * model.wheelbase), -model.max_steer,
                        model.max_steer)
        h2 = h + v2 / model.wheelbase * np.tan(steer) * dt
        pos[:, i + 1] = p + (v2 * dt)[:, None] * np.column_stack([np.cos(h2), np.sin(h2)])
        head[:, i + 1], vel[:, i + 1] = h2, v2
    return pos, head, vel


def _potential_gradient(points: np.ndarray, times: np.ndarray, field: RoadField,
                        cars: CarField | None, weight: float) -> np.ndarray:
    """``∇P`` at ``points`` ``(k, n, 2)`` at ``times`` ``(n,)``."""
    k, n, _ = points.shape
    flat = points.reshape(-1, 2)
    grad = field.gradient(flat)
    if cars is not None and weight > 0:
        grad = grad + weight * cars.gradient(flat, np.tile(times, k))
    return grad.reshape(k, n, 2)


def _score(pos: np.ndarray, vel: np.ndarray, times: np.ndarray, field: RoadField,
           cars: CarField | None, driver: DriverCosts, weights: ScoreWeights,
           model: CarModel, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Each path's score ``(k,)`` and its collision frames ``(k,)``."""
    k, n, _ = pos.shape
    grad = _potential_gradient(pos, times, field, cars, weights.cars * driver.car_avoidance)
    move = np.diff(pos, axis=1)
    g = grad[:, 1:]
    climb = (move * g).sum(axis=2) + np.hypot(*move.transpose(2, 0, 1)) * \
        np.hypot(*g.transpose(2, 0, 1))
    flat = pos[:, 1:].reshape(-1, 2)
    hit = ~field.on_road(flat)
    if cars is not None and cars.trajectories:
        hit |= cars.distance(flat, np.tile(times[1:], k)) < 2.0 * model.radius
    hits = hit.reshape(k, n - 1)
    cost = (weights.potential * climb.sum(axis=1)
            + weights.speed * np.abs(vel[:, 1:] - driver.desired_speed).sum(axis=1) * dt
            + weights.collision * hits.sum(axis=1))
    return cost, hits.sum(axis=1)


def optimise_trajectory(seeds: Sequence[Trajectory], *, start: Any, heading: float,
                        speed: float, field: RoadField, driver: DriverCosts,
                        cars: CarField | None = None, model: CarModel = CarModel(),
                        weights: ScoreWeights = ScoreWeights(), horizon: float = 3.0,
                        dt: float = 0.05, lookahead: int = 8, push: float = 3.0,
                        max_iterations: int = 4, start_time: float = 0.0) -> OptimisedPath:
    """Simulate-and-score optimisation of each seed; the lowest-scoring result wins (ties:
    the earlier seed).  See the module for the model, controller, score and loop.

    ``seeds``: at least one :class:`~wayfinding.traffic.prediction.Trajectory` (e.g. from
    :func:`lattice_seeds`), read at ``start_time + dt · frame``.  ``start``, ``heading``
    (radians), ``speed`` (>= 0; above the model's top speed the car brakes down to it): the
    car's state at ``start_time`` (seconds).  ``field``: the road's static potential;
    ``cars``: the other cars' predicted field (none: an empty road).  ``horizon``: seconds
    simulated (> 0); ``dt``: the frame, seconds (> 0; at most 10,000 frames).
    ``lookahead``: the controller's frames ahead (>= 1).  ``push``: how far, world units,
    the frame pushed most moves sideways per iteration (>= 0).  ``max_iterations``: the
    most improvements tried per seed (>= 0; the notes: 3–4 reach a local minimum)."""
    trajs = list(seeds)
    if not trajs or not all(isinstance(t, Trajectory) for t in trajs):
        raise InvalidQueryError(f"seeds {trajs!r} must be one or more Trajectory")
    if not isinstance(field, RoadField):
        raise InvalidQueryError(f"field {field!r} must be a RoadField")
    if not isinstance(driver, DriverCosts):
        raise InvalidQueryError(f"driver {driver!r} must be a DriverCosts")
    if cars is not None and not isinstance(cars, CarField):
        raise InvalidQueryError(f"cars {cars!r} must be a CarField or None")
    if not isinstance(model, CarModel) or not isinstance(weights, ScoreWeights):
        raise InvalidQueryError("model must be a CarModel and weights a ScoreWeights")
    at = _validate.finite_point("start", start)
    head = _validate.finite_float("heading", heading)
    v0 = _validate.positive_float("speed", speed, allow_zero=True)
    span = _validate.positive_float("horizon", horizon)
    step = _validate.positive_float("dt", dt)
    frames = span / step
    if frames > 10_000:
        raise InvalidQueryError(f"horizon {span:g} / dt {step:g} is {frames:.3g} frames, "
                                "more than 10,000")
    ahead = _validate.count("lookahead", lookahead)
    shove = _validate.positive_float("push", push, allow_zero=True)
    rounds = _validate.count("max_iterations", max_iterations, min=0)
    t0 = _validate.finite_float("start_time", start_time)
    n = int(math.ceil(frames - 1e-9)) + 1
    times = t0 + step * np.arange(n)
    control = np.stack([t.position_at(times) for t in trajs])
    pos, hd, vel = _simulate(control, at, head, v0, model, step, ahead)
    cost, hits = _score(pos, vel, times, field, cars, driver, weights, model, step)
    seed_costs = cost.copy()
    traces = [[float(c)] for c in cost]
    active = np.ones(len(trajs), dtype=bool)
    car_weight = weights.cars * driver.car_avoidance
    for _ in range(rounds):
        if not active.any():
            break
        grad = _potential_gradient(pos, times, field, cars, car_weight)
        side = np.stack([-np.sin(hd), np.cos(hd)], axis=2)
        across = (grad * side).sum(axis=2)
        peak = np.abs(across).max(axis=1)
        scale = np.divide(shove, peak, out=np.zeros_like(peak), where=peak > 1e-12)
        nxt = pos - (scale[:, None] * across)[..., None] * side
        nxt[:, 0] = at
        p2, h2, v2 = _simulate(nxt, at, head, v0, model, step, ahead)
        c2, k2 = _score(p2, v2, times, field, cars, driver, weights, model, step)
        better = active & (c2 < cost)
        active = better
        pos[better], hd[better], vel[better] = p2[better], h2[better], v2[better]
        cost[better], hits[better] = c2[better], k2[better]
        for i in np.flatnonzero(better).tolist():
            traces[i].append(float(c2[i]))
    best = int(np.argmin(cost))
    return OptimisedPath(times, pos[best], hd[best], vel[best], float(cost[best]), best,
                         len(traces[best]) - 1, np.array(traces[best]), int(hits[best]),
                         seed_costs, cost.copy())
