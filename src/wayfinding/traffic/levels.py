"""Levels of detail for traffic, and the lattice a road offers a car ahead of it.

Far from the player a car only follows its route (:attr:`TrafficLod.ROUTE`: the route's
lanes joined, :meth:`~wayfinding.traffic.roads.RoadNetwork.route_points`); nearer it plans
over the lane lattice (:attr:`TrafficLod.LATTICE`: :func:`road_lattice`, then
:func:`~wayfinding.traffic.lattice.lattice_node_costs`,
:func:`~wayfinding.traffic.lattice.plan_lattice` and
:func:`~wayfinding.traffic.lattice.propagate_speeds`); closest, the lattice's best paths
seed the trajectory optimiser (:attr:`TrafficLod.FULL`:
:func:`~wayfinding.traffic.optimiser.lattice_seeds` and
:func:`~wayfinding.traffic.optimiser.optimise_trajectory`).

>>> traffic_lod([10.0, 500.0], lattice_within=150.0)
[TrafficLod.LATTICE, TrafficLod.ROUTE]
>>> traffic_lod([10.0, 100.0, 500.0], lattice_within=150.0, full_within=50.0)
[TrafficLod.FULL, TrafficLod.LATTICE, TrafficLod.ROUTE]
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError
from .roads import LaneType, RoadNetwork


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
    lanes = network.road_lanes(road)
    if not isinstance(forward, bool):
        raise InvalidQueryError(f"forward {forward!r} must be a bool")
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
