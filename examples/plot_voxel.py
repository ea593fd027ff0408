"""
Flight through a voxel city
===========================

A generated city of towers and footbridges, searched under the Moving AI 3D rule (26
neighbours, a move needs its whole cube free): exact A*, any-angle Theta*, and A* over a
sparse voxel octree, refined and smoothed.  Red: A*, teal: Theta*, orange: the octree path.
"""

from wayfinding import find_path
from wayfinding.viz.voxel import save_voxels
from wayfinding.voxel import SparseVoxelOctree, generate

city = generate.towers((40, 20, 40), seed=1)        # x, y (up), z
start, goal = (0, 1, 0), (39, 1, 39)
exact = find_path(city, start, goal, method="astar")
theta = find_path(city, start, goal, method="theta")
tree = SparseVoxelOctree.build(city)
fly = tree.find_path(start, goal)
print(f"{city.num_free:,} free voxels of {40 * 20 * 40:,}")
print(f"A*      length {exact.cost:.3f}, {exact.stats.expanded:,} expanded")
print(f"Theta*  length {theta.cost:.3f}, {theta.stats.expanded:,} expanded")
print(f"octree  length {fly.smoothed_length:.3f}, {fly.stats.expanded:,} nodes expanded")
save_voxels("voxel-city.png", city, paths=[exact.path, theta.path, fly.smoothed],
            start=start, goal=goal)
