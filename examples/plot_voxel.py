"""
Flight through a voxel city
===========================

A generated city of towers and footbridges, searched under the Moving AI 3D rule (26
neighbours, a move needs its whole cube free): exact A*, any-angle Theta*, and A* over a
sparse voxel octree, refined and smoothed.  Red: A*, teal: Theta*, orange: the octree path.
Then a swarm flies across the city.
"""

import numpy as np

from wayfinding import find_path
from wayfinding.crowd import FlightCrowd
from wayfinding.viz.voxel import animate_voxels, save_voxels
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

# %%
# A swarm: twelve agents from near the west edge to near the east edge, low among the
# towers, each flying its own smoothed octree path and avoiding the others with ORCA in 3D.
rng = np.random.default_rng(1)
crowd = FlightCrowd(world=city)
while len(crowd.position) < 12:
    a = (1, int(rng.integers(1, 8)), int(rng.integers(1, 39)))
    b = (38, int(rng.integers(1, 8)), int(rng.integers(1, 39)))
    route = tree.find_path(a, b) if city.is_free(a) and city.is_free(b) else None
    if route is not None and route.found:               # voxel units to world units
        path = city.voxel_size * route.smoothed + np.asarray(city.origin)
        crowd.add(path[0], path=path, radius=0.35, max_speed=3.0)
frames = [crowd.position.copy()]
while len(frames) < 900 and not crowd.arrived().all():
    crowd.step(0.1)
    frames.append(crowd.position.copy())
print(f"{int(crowd.arrived().sum())} of 12 arrived in {0.1 * (len(frames) - 1):.1f} s")
animate_voxels("voxel-swarm.gif", city, np.stack(frames)[::3], fps=10)
