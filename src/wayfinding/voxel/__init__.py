"""3D voxel worlds for flight: dense bit-packed voxel grids under the Moving AI 3D move rule,
their exact and any-angle searches, sparse voxel octrees and the Moving AI 3D benchmark files.

>>> import numpy as np
>>> grid = VoxelGrid(np.zeros((4, 4, 4), bool))
>>> grid.neighbours((0, 0, 0))[:3]
[((1, 0, 0), 1.0), ((0, 1, 0), 1.0), ((0, 0, 1), 1.0)]
"""

from .grid import CONNECTIVITIES, MOVE_COSTS, MOVES, VoxelGrid, octile3
from .movingai3d import (
    Problem3D,
    Scenario3D,
    format_3dmap,
    read_3dmap,
    read_3dscen,
    write_3dmap,
    write_3dscen,
)

__all__ = ["CONNECTIVITIES", "MOVES", "MOVE_COSTS", "Problem3D", "Scenario3D", "VoxelGrid",
           "format_3dmap", "octile3", "read_3dmap", "read_3dscen", "write_3dmap", "write_3dscen"]
