"""Vehicles: planning for cars with a turning radius (hybrid A* over grids and navmeshes) and
steering pedestrians round the hulls of moving and stopped vehicles.  The obstacle-free
turning paths they build on (Dubins, Reeds–Shepp) are :mod:`wayfinding.paths`'."""

from .hybrid import CarPath, plan_car_path

__all__ = ["CarPath", "plan_car_path"]
