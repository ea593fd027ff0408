"""Vehicles: planning for cars with a turning radius (hybrid A* over grids and navmeshes) and
steering pedestrians round the hulls of moving and stopped vehicles."""

__all__: list[str] = []
