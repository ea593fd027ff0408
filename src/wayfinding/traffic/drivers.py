"""Named driver personalities: each one :class:`~wayfinding.traffic.routes.DriverCosts`
read by every planning stage (route A*, the lattice and the trajectory optimiser).

* ``cautious``: pays 1.5 times a highway's length and 20 per radian turned, never takes a
  sidewalk, pays 11 times a stretch against the traffic, keeps 5 from other cars (20 for a
  lattice node nearer), wants 12 a second.
* ``normal``: the shortest roads, no sidewalks, 3 times a stretch against the traffic (it
  overtakes), keeps 3 from other cars (10 for a node nearer), wants 15 a second.
* ``reckless``: pays half a highway's length, twice a sidewalk's, no more against the
  traffic than with it, shaves past other cars (2, 5 for a node nearer), wants 22 a second.

>>> driver("reckless").desired_speed, driver("cautious").lattice_costs().type_cost("oncoming")
(22.0, 10.0)
>>> sorted(DRIVERS)
['cautious', 'normal', 'reckless']
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .. import _validate
from .roads import LaneType
from .routes import DriverCosts

#: The driver personalities by name (read-only).
DRIVERS: Mapping[str, DriverCosts] = MappingProxyType({
    "cautious": DriverCosts(road_kind=(("highway", 1.5),), turn=20.0, oncoming=11.0,
                            desired_speed=12.0, car_avoidance=20.0, clearance=5.0),
    "normal": DriverCosts(oncoming=3.0, desired_speed=15.0, car_avoidance=10.0,
                          clearance=3.0),
    "reckless": DriverCosts(lane_type=((LaneType.SIDEWALK, 2.0),), road_kind=(("highway", 0.5),),
                            oncoming=1.0, desired_speed=22.0, car_avoidance=5.0,
                            clearance=2.0),
})


def driver(name: str) -> DriverCosts:
    """The driver personality called ``name`` (one of :data:`DRIVERS`); an unknown name is
    refused with the names there are."""
    return DRIVERS[_validate.choice("driver", name, sorted(DRIVERS))]

