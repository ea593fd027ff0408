"""
World graphs on a dungeon
=========================

The same generated dungeon as world graphs built from its walls for an agent of radius 0.3
(a link is kept only when the capsule round it is clear): a waypoint lattice, Dirichlet
domains (the area each lattice point is nearest), points of visibility and a probabilistic
roadmap; then a small hex map.  Each draws one path.
"""

import numpy as np

from wayfinding.geometry import Obstacles
from wayfinding.graph import DirichletDomains, Roadmap, VisibilityGraph, WaypointGraph
from wayfinding.graph.waypoints import lattice_points
from wayfinding.grid import HexGrid, generate
from wayfinding.viz import save_world

dungeon = generate.rooms(40, 32, rooms=5, room_size=(6, 10), corridor=3, seed=5)
walls = Obstacles.from_grid(dungeon)               # blocked cells merged into rectangles
bounds = (0.0, 0.0, float(dungeon.width), float(dungeon.height))
radius = 0.3
free = np.argwhere(dungeon.passable)[:, ::-1] + 0.5  # free cell centres, (x, y)
start, goal = free[0], free[-1]
lattice = lattice_points(walls, bounds, 2.0, radius=radius)
worlds = {
    "waypoints": WaypointGraph.connect(lattice, walls, radius=radius, max_link=3.0),
    "dirichlet": DirichletDomains(lattice, obstacles=walls, radius=radius, bounds=bounds,
                                  adjacency="raster", cell_size=0.25),
    "visibility": VisibilityGraph.build(walls, radius=radius, bounds=bounds),
    "roadmap": Roadmap.build(walls, bounds, n=300, k=8, radius=radius, seed=1),
}
for name, world in worlds.items():
    r = world.find_path(start, goal)
    print(f"{name:10} {world.num_nodes:4} nodes {world.num_edges:5} links  path {r.cost:.2f}")
    save_world(f"world-{name}.svg", world, path=r, start=start, goal=goal, title=name)

# %%
# Hex maps use axial cells; digits are tile costs.
hexes = HexGrid.from_ascii("""
. . . . . . . . . . . .
 . . # # # . . 3 3 . . .
  . . . . # . . 3 3 . # .
   . # . . # . . . . . # .
    . # . . . . # # . . # .
     . . . 2 2 . . # . . . .
      . . . 2 2 . . . . . . .
""")
r = hexes.find_path((0, 0), (11, 6))
print(f"hex grid: cost {r.cost:.2f}, {r.stats.expanded} expanded")
save_world("world-hex.svg", hexes, path=r, start=(0, 0), goal=(11, 6), title="hex")
