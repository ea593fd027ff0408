"""
One clearance mesh, three agent radii
=====================================

A clearance mesh (a local clearance triangulation) is built once for the whole walkable area
and answers for agents of every radius: a path crosses a triangle corner only where the
clearance there is at least the agent's diameter, and wraps the corners it turns with arcs
of the agent's radius.  The band drawn is what the agent sweeps; darker triangles are
narrower.
"""

import numpy as np
import shapely

from wayfinding.grid import generate
from wayfinding.navmesh import ClearanceMesh, walkable_area
from wayfinding.viz import save_world

dungeon = generate.rooms(48, 40, rooms=6, room_size=(6, 12), corridor=3, seed=5)
area = walkable_area(dungeon)
# the first and last free cell centres (in scan order) at least 2 from a wall
centres = np.argwhere(dungeon.passable)[:, ::-1] + 0.5
roomy = centres[shapely.distance(area.boundary, shapely.points(centres)) >= 2.0]
start, goal = tuple(roomy[0].tolist()), tuple(roomy[-1].tolist())

lct = ClearanceMesh.build(area)
print(f"{lct.num_triangles} triangles, {lct.steiner} Steiner vertices")
for radius in (0.3, 0.9, 1.6):
    r = lct.find_path(start, goal, radius=radius)
    print(f"radius {radius}: " + (f"length {r.cost:.3f}" if r.found else r.reason))
    save_world(f"clearance-{radius}.svg", lct, path=r, start=start, goal=goal,
               title=f"clearance mesh, radius {radius}")
