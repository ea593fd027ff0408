"""Vehicles: planning for cars with a turning radius (hybrid A* over grids and navmeshes) and
steering pedestrians round the hulls of moving and stopped vehicles.  The obstacle-free
turning paths they build on (Dubins, Reeds–Shepp) are :mod:`wayfinding.paths`'."""

from .hull_patching import VehiclePatcher
from .hull_steering import (
    CARRIAGE,
    CrossingRun,
    Direction,
    Vehicle,
    VehicleHull,
    avoid_hulls,
    braking_factor,
    relative_direction,
    street_crossing,
)
from .hulls import box_polygon, convexify, merge_boxes, merge_contours, point_in_polygon
from .hybrid import CarPath, car_path_bounds, plan_car_path
from .pockets import hug_contour, pocket_path

__all__ = ["CARRIAGE", "CarPath", "CrossingRun", "Direction", "Vehicle", "VehicleHull",
           "VehiclePatcher", "avoid_hulls", "box_polygon", "braking_factor", "car_path_bounds",
           "convexify",
           "hug_contour", "merge_boxes", "merge_contours", "plan_car_path", "pocket_path",
           "point_in_polygon", "relative_direction", "street_crossing"]
