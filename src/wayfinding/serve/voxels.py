"""Voxel worlds: 3D path queries on a :class:`~wayfinding.voxel.VoxelGrid` by the voxel
methods, the expansion budget and the deadline checked when the search ends."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidQueryError
from ..voxel import METHODS, VoxelGrid, VoxelSearch
from .limits import BadCoordinates, Limits, check_deadline, over_budget
from .protocol import coordinates, path_json
from .worlds import World


class VoxelWorld(World):
    """A :class:`VoxelGrid` (each thread's :class:`VoxelSearch`); cells are ``[x, y, z]``
    integers, paths ``(n, 3)`` voxels."""

    kind = "voxel"
    queries = ("path",)

    def __init__(self, name: str, grid: VoxelGrid, limits: Limits):
        if grid.num_voxels > limits.max_cells:
            raise InvalidQueryError(f"world {name!r} has {grid.num_voxels} voxels, more than "
                                    f"the limit of {limits.max_cells}")
        super().__init__(name, list(METHODS))
        self.grid = grid

    def extent(self) -> dict[str, Any]:
        nx, ny, nz = self.grid.size
        return {"size": [nx, ny, nz], "connectivity": self.grid.connectivity}

    def cell(self, value: Any, field: str) -> tuple[int, ...]:
        """A free voxel: 400 ``bad coordinates`` otherwise."""
        c = coordinates(value, field, tuple(self.grid.size))
        if not self.grid.is_free(c):
            raise BadCoordinates(f"{field} {value} is a blocked voxel")
        return c

    def path(self, body: dict[str, Any], limits: Limits, deadline: float) -> dict[str, Any]:
        start, goal = self.cell(body.get("start"), "start"), self.cell(body.get("goal"), "goal")
        method = self.method(body, "astar")
        search = self.own("search", lambda: VoxelSearch(self.grid))
        result = search.find_path(start, goal, method=method)
        check_deadline(deadline, "the search", limits)
        if result.stats.expanded > limits.max_expansions:
            raise over_budget(result.stats.expanded, limits)
        return path_json(result)
