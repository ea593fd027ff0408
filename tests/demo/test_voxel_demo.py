"""The demo's swarm: every agent crosses the city on its octree path without entering a
blocked voxel or overlapping another agent."""

import numpy as np

from wayfinding.demo.voxel import RADIUS, demo_city, swarm
from wayfinding.voxel.octree import SparseVoxelOctree


def test_the_swarm_crosses_the_city_clear_of_voxels_and_of_each_other():
    grid = demo_city()
    run = swarm(grid, SparseVoxelOctree.build(grid), agents=16, seed=4)
    assert run.arrived == 16
    pos = run.positions
    cells = np.floor((pos.reshape(-1, 3) - np.asarray(grid.origin)) / grid.voxel_size)
    cells = cells.astype(np.int64)
    assert not grid.blocked[cells[:, 2], cells[:, 1], cells[:, 0]].any()
    gaps = np.linalg.norm(pos[:, :, None] - pos[:, None], axis=-1)
    gaps[:, np.arange(16), np.arange(16)] = np.inf
    assert gaps.min() > 2 * RADIUS * 0.95
    # The agents start near the west edge and end near the east edge.
    nx = grid.size[0]
    assert (pos[0, :, 0] < 3 * grid.voxel_size).all()
    assert (pos[-1, :, 0] > (nx - 3) * grid.voxel_size).all()
