"""Navmesh patching for stopped vehicles, time-sliced, with the avoidance signal.

A moving vehicle is avoided by hull steering
(:func:`~wayfinding.vehicles.hull_steering.avoid_hulls`); a stopped one is cut out of the
navigation mesh, so that a path request it blocks is refused. Many vehicles may stop in the
same frame, so :meth:`VehiclePatcher.step` rebuilds the mesh for at most ``per_step`` of the
waiting vehicles a frame. The signal follows the vehicle: avoidance is switched on as soon
as it moves and off only once a rebuild covering it, stopped, has finished; a stopped
vehicle whose hole no longer fits it (it was moved, or lost or gained a part, without
moving) is avoided again at once until a rebuild cuts its new shape.

>>> from wayfinding.vehicles.hull_steering import Vehicle
>>> street = [(0, 0), (0, 6), (20, 6), (20, 0)]
>>> cart = Vehicle([(0.0, 0.0, 2.0, 3.5, 0.0)], position=(10.0, 3.0), velocity=(1.0, 0.0))
>>> patcher = VehiclePatcher(street, [cart], radius=0.3)
>>> patcher.navmesh.find_path((1, 3), (19, 3)).found, patcher.avoiding(cart)
(True, True)
>>> cart.move((10.0, 3.0), 0.0)          # it stops across the street
>>> patcher.update(); patcher.avoiding(cart)
True
>>> patcher.step(); patcher.navmesh.find_path((1, 3), (19, 3)).found, patcher.avoiding(cart)
(False, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import ArrayLike

from .._validate import count, positive_float
from ..errors import InvalidGeometryError, InvalidQueryError
from ..navmesh import NavMesh, walkable_area
from .hull_steering import Vehicle, VehicleHull, _instances


class VehiclePatcher:
    """Keeps a navmesh of ``outline`` (an ``(n, 2)`` ring) with stopped ``vehicles`` cut out.

    ``radius``: the agents' radius (world units, >= 0) for the mesh; ``per_step``: the most
    waiting vehicles one :meth:`step` covers (>= 1). A vehicle is stopped when its velocity
    is zero. Needs the ``[geometry]`` extra (the mesh is built with shapely).
    """

    def __init__(self, outline: ArrayLike, vehicles: Sequence[Vehicle], *, radius: float = 0.0,
                 per_step: int = 1) -> None:
        self._outline = walkable_area(outline=outline)
        self._radius = positive_float("radius", radius, allow_zero=True,
                                      error=InvalidGeometryError)
        self._per_step = count("per_step", per_step)
        self._vehicles = _instances("vehicles", vehicles, Vehicle)
        self._cut = {id(v): _stopped(v) for v in self._vehicles}
        self._waiting: list[Vehicle] = []
        self._in_mesh: dict[int, bool] = {}
        self._shapes: dict[int, tuple[Any, ...]] = {}
        self.navmesh = self._build()

    def avoiding(self, vehicle: Vehicle) -> bool:
        """Whether hull steering must avoid ``vehicle``: it moves, or its patch is pending."""
        return not self._cut[self._key(vehicle)]

    def hulls(self, radius: float) -> list[VehicleHull]:
        """The hulls for agents of ``radius`` of the vehicles that must be avoided."""
        return [v.hull(radius) for v in self._vehicles if self.avoiding(v)]

    def update(self) -> None:
        """Take note of vehicles that started or stopped: one that moves is avoided at once
        and waits for its hole to be removed; one that stopped waits for its hole; one cut
        out whose pose or parts changed is avoided at once and waits for its new hole."""
        for v in self._vehicles:
            stopped = _stopped(v)
            moved = self._in_mesh[id(v)] and _shape(v) != self._shapes[id(v)]
            if not stopped or moved:
                self._cut[id(v)] = False
            if (stopped != self._in_mesh[id(v)] or moved) and v not in self._waiting:
                self._waiting.append(v)

    def step(self) -> None:
        """Rebuild the mesh for at most ``per_step`` waiting vehicles (one rebuild)."""
        if not self._waiting:
            return
        done, self._waiting = self._waiting[: self._per_step], self._waiting[self._per_step:]
        for v in done:
            self._cut[id(v)] = _stopped(v)
        self.navmesh = self._build()

    @property
    def waiting(self) -> int:
        """How many vehicles wait for a rebuild."""
        return len(self._waiting)

    def _key(self, vehicle: Vehicle) -> int:
        if id(vehicle) not in self._cut:
            raise InvalidQueryError("the vehicle is not one of this patcher's")
        return id(vehicle)

    def _build(self) -> NavMesh:
        area: Any = self._outline
        self._in_mesh = dict(self._cut)
        self._shapes = {id(v): _shape(v) for v in self._vehicles}
        for v in self._vehicles:
            if self._cut[id(v)]:
                area = area.difference(walkable_area(outline=v.hull(0.0).contour))
        return NavMesh.build(area, radius=self._radius)


def _stopped(vehicle: Vehicle) -> bool:
    return not vehicle.velocity.any()


def _shape(vehicle: Vehicle) -> tuple[Any, ...]:
    """What the vehicle's hole depends on: its pose and its parts."""
    return (vehicle.position.tobytes(), vehicle.heading, vehicle.parts.tobytes())
