"""
A navigation mesh with its portals and the funnel path
======================================================

The free cells of a generated dungeon as one walkable area, eroded by the agent's radius and
cut into convex polygons.  A query searches the polygons, then pulls the path taut through
the portals (dashed) of its corridor (highlighted) with the funnel algorithm.
"""

from wayfinding.grid import generate
from wayfinding.navmesh import NavMesh, walkable_area
from wayfinding.viz import save_world

dungeon = generate.rooms(48, 40, rooms=6, room_size=(6, 12), corridor=3, seed=5)
area = walkable_area(dungeon)                      # a shapely polygon, a cell is 1 × 1
mesh = NavMesh.build(area, radius=0.4)
x0, y0, x1, y1 = area.bounds
_, start = mesh.nearest((x0, y0))                  # the mesh points nearest two corners
_, goal = mesh.nearest((x1, y1))
r = mesh.find_path(start, goal)
print(f"{mesh.num_polygons} polygons; path {r.cost:.3f} through {len(r.corridor)} polygons, "
      f"{len(r.path) - 2} corners")
save_world("navmesh.svg", mesh, path=r, start=start, goal=goal,
           title="navigation mesh, radius 0.4")
