"""3D voxel worlds for flight: dense bit-packed voxel grids under the Moving AI 3D move rule,
their exact and any-angle searches, sparse voxel octrees (after *Warframe*), box decompositions
by wavefront expansion with portal-to-portal paths, path smoothing in 3D and the Moving AI 3D
benchmark files.

>>> import numpy as np
>>> grid = VoxelGrid(np.zeros((4, 4, 4), bool))
>>> grid.neighbours((0, 0, 0))[:3]
[((1, 0, 0), 1.0), ((0, 1, 0), 1.0), ((0, 0, 1), 1.0)]
>>> round(find_voxel_path(grid, (0, 0, 0), (3, 3, 3)).cost, 4)
5.1962
>>> tree = SparseVoxelOctree.build(grid)
>>> tree.find_path((0, 0, 0), (3, 3, 3)).found
True
"""

from . import generate
from .anyangle import theta_star
from .grid import CONNECTIVITIES, MOVE_COSTS, MOVES, VoxelGrid, octile3
from .methods import METHODS, VoxelMethod
from .movingai3d import (
    Problem3D,
    Scenario3D,
    format_3dmap,
    read_3dmap,
    read_3dscen,
    write_3dmap,
    write_3dscen,
)
from .octree import (
    FULL_LEAF,
    LINK_NULL,
    LINK_SOLID,
    SVO_VARIANTS,
    OctreePathResult,
    SparseVoxelOctree,
    SVOVariant,
    morton_decode,
    morton_encode,
    morton_parent,
    pack_link,
    unpack_link,
)
from .search import VoxelSearch, find_voxel_path, find_voxel_paths, voxel_distance_map
from .sight import line_of_sight, lines_of_sight
from .smoothing import catmull_rom, segments_clear, shortcut_voxels, smooth_flight_path
from .voxelize import voxelize
from .wavefront import VoxelRegionQuality, VoxelRegions

__all__ = [
    "CONNECTIVITIES", "FULL_LEAF", "LINK_NULL", "LINK_SOLID", "METHODS", "MOVES", "MOVE_COSTS",
    "OctreePathResult", "Problem3D", "SVOVariant", "SVO_VARIANTS", "Scenario3D",
    "SparseVoxelOctree", "VoxelGrid", "VoxelMethod", "VoxelRegionQuality", "VoxelRegions",
    "VoxelSearch", "catmull_rom",
    "find_voxel_path", "find_voxel_paths", "format_3dmap", "generate", "line_of_sight",
    "lines_of_sight", "morton_decode", "morton_encode", "morton_parent", "octile3",
    "pack_link", "read_3dmap", "read_3dscen", "segments_clear", "shortcut_voxels",
    "smooth_flight_path", "theta_star", "unpack_link", "voxel_distance_map", "voxelize",
    "write_3dmap", "write_3dscen",
]
