"""Levels of detail for traffic, and the lattice a road offers a car ahead of it.

Far from the player a car only follows its route (:attr:`TrafficLod.ROUTE`: the route's
lanes joined, :meth:`~wayfinding.traffic.roads.RoadNetwork.route_points`); nearer it plans
over the lane lattice (:attr:`TrafficLod.LATTICE`: :func:`lattice_step`, which runs
:func:`road_lattice`, :func:`~wayfinding.traffic.lattice.lattice_node_costs`,
:func:`~wayfinding.traffic.lattice.plan_lattice`,
:func:`~wayfinding.traffic.lattice.turn_speed_limits` and
:func:`~wayfinding.traffic.lattice.propagate_speeds`); closest, the lattice's best paths
seed the trajectory optimiser (:attr:`TrafficLod.FULL`: :func:`optimise_step`, which runs
:func:`~wayfinding.traffic.optimiser.lattice_seeds` and
:func:`~wayfinding.traffic.optimiser.optimise_trajectory`).

>>> traffic_lod([10.0, 500.0], lattice_within=150.0)
[TrafficLod.LATTICE, TrafficLod.ROUTE]
>>> traffic_lod([10.0, 100.0, 500.0], lattice_within=150.0, full_within=50.0)
[TrafficLod.FULL, TrafficLod.LATTICE, TrafficLod.ROUTE]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError, brief
from ..results import _fields_equal
from .lattice import LatticePath, lattice_node_costs, plan_lattice
from .optimiser import CarModel, OptimisedPath, _speed_pass, lattice_seeds, optimise_trajectory
from .prediction import CarField, Trajectory
from .road_field import RoadField
from .roads import LaneType, RoadNetwork
from .routes import DriverCosts


class TrafficLod(str, Enum):
    """How much planning a car gets."""

    ROUTE = "route"
    LATTICE = "lattice"
    FULL = "full"

    def __repr__(self) -> str:
        return f"TrafficLod.{self.name}"


def traffic_lod(distances: Any, *, lattice_within: float,
                full_within: float | None = None) -> list[TrafficLod]:
    """Each car's level from its distance to the player (world units, >= 0): the full
    pipeline within ``full_within`` (inclusive; none: never), the lattice within
    ``lattice_within`` (inclusive), route following beyond."""
    d = _validate.reals("distances", distances).reshape(-1)
    if not (np.isfinite(d).all() and (d >= 0).all()):
        raise InvalidQueryError("distances must be finite and >= 0")
    near = _validate.positive_float("lattice_within", lattice_within, allow_zero=True)
    full = -1.0 if full_within is None else \
        _validate.positive_float("full_within", full_within, allow_zero=True)
    return [TrafficLod.FULL if v <= full else TrafficLod.LATTICE if v <= near
            else TrafficLod.ROUTE for v in d.tolist()]


def road_lattice(network: RoadNetwork, road: int, *, forward: bool, start: float,
                 spacing: float, n_sets: int) -> tuple[np.ndarray, list[str]]:
    """The lattice of ``road`` for a car driving it ``forward`` (or backwards): ``n_sets``
    node sets ``spacing`` apart starting ``start`` ahead, one node per lane of the road.

    Distances are fractions of each lane's length measured in the car's direction (so
    curved lanes of different lengths stay abreast); ``start`` and ``spacing`` are world
    units along the road's first lane.  Returns the ``(n_sets, n_lanes, 2)`` float64 node
    positions (sets past the road's end clamp to it) and each lane's type as the car sees
    it: ``"oncoming"`` for a driving lane against its direction, else the lane type's
    name.  Lanes keep the road's cross-section order, which the lattice takes as their
    order across the road: list a road's lanes from one side to the other."""
    if not isinstance(network, RoadNetwork):
        raise InvalidQueryError(f"network {brief(network)} must be a RoadNetwork")
    lanes = network.road_lanes(road)
    forward = _validate.flag("forward", forward)
    s0 = _validate.positive_float("start", start, allow_zero=True)
    step = _validate.positive_float("spacing", spacing)
    count = _validate.count("n_sets", n_sets, max=10**6)
    reference = lanes[0].length
    frac = np.minimum((s0 + step * np.arange(count)) / reference, 1.0)
    positions = np.empty((count, len(lanes), 2))
    labels = []
    for j, lane in enumerate(lanes):
        along = frac if lane.forward == forward else 1.0 - frac
        positions[:, j] = lane.point_at(along * lane.length)
        oncoming = lane.type is LaneType.DRIVING and lane.forward != forward
        labels.append("oncoming" if oncoming else lane.type.value)
    return positions, labels


@dataclass(frozen=True, eq=False)
class LatticeStep:
    """The mid-level step on one road (:func:`lattice_step`).

    ``positions``: ``(n_sets + 1, n_lanes, 2)`` float64, row 0 abreast of the vehicle, then
    the node sets.  ``labels``: each lane's type as the car sees it.  ``start_lane``: the
    vehicle's lane.  ``times``: ``(n_sets,)`` float64 seconds, when the vehicle reaches each
    set at the driver's desired speed.  ``nodes``: ``(n_sets, n_lanes)`` float64, the node
    costs.  ``paths``: the kept :class:`~wayfinding.traffic.lattice.LatticePath` objects,
    cheapest first.  ``limits``, ``speeds``: per path, ``(n_sets + 1,)`` float64 (the
    vehicle's first), its turn limits and its speeds after the backward pass.  ``cars``:
    the other cars' :class:`~wayfinding.traffic.prediction.CarField`.  ``driver``,
    ``model``: the :class:`~wayfinding.traffic.routes.DriverCosts` and
    :class:`~wayfinding.traffic.optimiser.CarModel` the step was planned for (which
    :func:`optimise_step` goes on with)."""

    positions: np.ndarray
    labels: list[str]
    start_lane: int
    times: np.ndarray
    nodes: np.ndarray
    paths: list[LatticePath]
    limits: list[np.ndarray]
    speeds: list[np.ndarray]
    cars: CarField
    driver: DriverCosts
    model: CarModel

    __eq__ = _fields_equal

    def points(self, path: int) -> np.ndarray:
        """``(n_sets + 1, 2)`` float64: the vehicle, then kept path ``path``'s node in each
        set."""
        index = _validate.count("path", path, min=0, max=len(self.paths) - 1)
        return _path_points(self.positions, self.start_lane, self.paths[index])


def _path_points(positions: np.ndarray, lane: int, path: LatticePath) -> np.ndarray:
    """The vehicle (row 0 of ``positions``, in ``lane``), then ``path``'s node per set."""
    sets = np.arange(1, positions.shape[0])
    return np.vstack([positions[0, lane], positions[sets, path.lanes]])


def lattice_step(network: RoadNetwork, road: int, *, forward: bool, driver: DriverCosts,
                 cars: Sequence[Trajectory] = (), n_sets: int, spacing: float,
                 start: float = 0.0, k: int = 5, model: CarModel | None = None) -> LatticeStep:
    """The mid-level planner's step for a vehicle in the first lane driving with the
    traffic on ``road`` (driven ``forward`` or backwards), ``start`` world units along it.

    The ``n_sets`` node sets ``spacing`` apart ahead of it (:func:`road_lattice`); each
    node's cost from ``driver.lattice_costs()`` around the ``cars``' predicted positions
    when the vehicle gets there at ``driver.desired_speed``
    (:func:`~wayfinding.traffic.lattice.lattice_node_costs`; the cars' field has radius
    ``driver.clearance``); the ``k`` cheapest paths
    (:func:`~wayfinding.traffic.lattice.plan_lattice`); per path, its turn limits
    (:func:`~wayfinding.traffic.lattice.turn_speed_limits` with the ``model``'s sideways
    grip) and its speeds passed back from the last set
    (:func:`~wayfinding.traffic.lattice.propagate_speeds` with the ``model``'s braking).
    ``model``: a :class:`~wayfinding.traffic.optimiser.CarModel` (none: the default one).
    The paths seed :func:`~wayfinding.traffic.optimiser.optimise_trajectory` through
    :func:`~wayfinding.traffic.optimiser.lattice_seeds`.

    >>> from wayfinding.traffic.roads import road_grid
    >>> parked = Trajectory([[50.0, -1.75]], [0.0])       # in the driving lane at set 5
    >>> step = lattice_step(road_grid(2, 1, spacing=100.0), 0, forward=True,
    ...                     driver=DriverCosts(car_avoidance=10.0), cars=[parked],
    ...                     n_sets=8, spacing=10.0, k=1)
    >>> step.labels, step.paths[0].lanes.tolist(), step.paths[0].cost
    (['driving', 'oncoming'], [0, 0, 0, 0, 1, 0, 0, 0], 11.0)
    """
    if not isinstance(driver, DriverCosts):
        raise InvalidQueryError(f"driver {driver!r} must be a DriverCosts")
    car = CarModel() if model is None else model
    if not isinstance(car, CarModel):
        raise InvalidQueryError(f"model {model!r} must be a CarModel")
    count = _validate.count("n_sets", n_sets, max=10**6)
    positions, labels = road_lattice(network, road, forward=forward, start=start,
                                     spacing=spacing, n_sets=count + 1)
    if "driving" not in labels:
        raise InvalidQueryError(f"road {road} has no lane driving "
                                f"{'forward' if forward else 'backward'}")
    lane = labels.index("driving")
    field = CarField(cars, radius=driver.clearance)
    costs = driver.lattice_costs()
    times = float(spacing) * np.arange(1, count + 1) / driver.desired_speed
    nodes = lattice_node_costs(positions[1:], times, labels, costs=costs, cars=field)
    paths = plan_lattice(nodes, lane, costs=costs, k=k)
    passes = [_speed_pass(_path_points(positions, lane, p), driver, car) for p in paths]
    return LatticeStep(positions, labels, lane, times, nodes, paths,
                       [lim for lim, _ in passes], [v for _, v in passes], field, driver, car)


def optimise_step(network: RoadNetwork, step: LatticeStep, *,
                  cell: float = 0.5) -> OptimisedPath:
    """The full level after :func:`lattice_step`: the trajectory optimiser seeded by the
    step's kept paths (:func:`~wayfinding.traffic.optimiser.lattice_seeds`,
    :func:`~wayfinding.traffic.optimiser.optimise_trajectory`) from the vehicle at the
    step's driver's desired speed, for as long as the lattice takes at that speed, among
    the step's cars, with the step's driver and car model.

    The road's potential (:class:`~wayfinding.traffic.road_field.RoadField`, cells
    ``cell`` world units wide, > 0) covers a rectangle aimed from the vehicle at the last
    set in its lane, reaching 10 past that set and a third as far behind the vehicle, and
    a lane's width (3.5) past the outermost nodes on each side.  Refuses a step that kept
    no path."""
    if not isinstance(step, LatticeStep):
        raise InvalidQueryError(f"step {step!r} must be a LatticeStep")
    if not step.paths:
        raise InvalidQueryError("step kept no path to seed the optimiser with")
    driver, car = step.driver, step.model
    start = step.positions[0, step.start_lane]
    ahead = step.positions[-1, step.start_lane] - start
    span = float(np.hypot(*ahead))
    if span == 0:
        raise InvalidQueryError("step's last set is where the vehicle stands: no road ahead")
    heading = float(np.arctan2(ahead[1], ahead[0]))
    side = np.array([-ahead[1], ahead[0]]) / span
    across = float(np.abs((step.positions - start) @ side).max())
    field = RoadField(network, car=start, heading=heading, length=(span + 10.0) * 4 / 3,
                      width=2 * across + 7.0, cell=cell, driver=driver)
    seeds = lattice_seeds(start, step.positions[1:], step.paths, driver=driver, model=car)
    return optimise_trajectory(seeds, start=start, heading=heading,
                               speed=driver.desired_speed, field=field, driver=driver,
                               cars=step.cars, model=car, horizon=span / driver.desired_speed)
