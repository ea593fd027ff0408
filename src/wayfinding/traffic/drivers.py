"""Named driver personalities: each one :class:`~wayfinding.traffic.routes.DriverCosts`,
whose fields route A*, the lattice and the trajectory optimiser each read as its
docstring lists (routes and the optimiser's road field: lane type, road kind and avoided
roads; the lattice: lane type as the car sees it).

* ``cautious``: pays 1.5 times a highway's length and 20 per radian turned (on routes;
  the road field drives highways 1.5 times slower), never takes a sidewalk, pays 11 times
  a stretch against the traffic (the lattice and the road field), keeps 5 from other cars
  (20 for a lattice node nearer), wants 12 a second.
* ``normal``: the shortest roads, no sidewalks, 3 times a stretch against the traffic (it
  overtakes), keeps 3 from other cars (10 for a node nearer), wants 15 a second.
* ``reckless``: pays half a highway's length (routes and the road field), twice a
  sidewalk's, no more against the traffic than with it, shaves past other cars (2, 5 for
  a node nearer), wants 22 a second.

>>> driver("reckless").desired_speed, driver("cautious").lattice_costs().type_cost("oncoming")
(22.0, 10.0)
>>> describe(driver("normal"))
'route: sidewalk never; lattice: sidewalk never, oncoming +2, within 3 of a car +10; speed 15'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

from .. import _validate
from ..errors import InvalidQueryError, brief
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



def describe(costs: DriverCosts) -> str:
    """A driver personality's numbers at each stage in one line (for help texts and
    pages): its route factors and turn cost, what a lattice node adds by lane type and near
    a car, its desired speed."""
    if not isinstance(costs, DriverCosts):
        raise InvalidQueryError(f"costs {brief(costs)} must be a DriverCosts")

    def factor(f: float) -> str:
        return "never" if f == math.inf else f"x{f:g}"

    route = [f"{t.value} {factor(f)}" for t, f in costs.lane_type]
    route += [f"{k} {factor(f)}" for k, f in costs.road_kind]
    route += [f"{costs.turn:g} a radian turned"] if costs.turn else []
    lattice = [f"{t} {'never' if c == math.inf else f'+{c:g}'}"
               for t, c in costs.lattice_costs().lane_type if c]
    lattice += [f"within {costs.clearance:g} of a car +{costs.car_avoidance:g}"]
    return (f"route: {', '.join(route) or 'lengths'}; lattice: {', '.join(lattice)}; "
            f"speed {costs.desired_speed:g}")
