"""
A 3D navigation mesh of a generated level
=========================================

A generated level (triangle soup, y up) becomes a navigation mesh the way Recast builds one:
rasterized into columns of solid spans, filtered for what an agent can stand on, cut into
regions by watershed, traced into contours and convex polygons.  Seen from above, polygons
coloured by region; then a few agents walk a level of two storeys.
"""

import numpy as np

from wayfinding.crowd.surface import Navigator3D
from wayfinding.navmesh3d import build, generate, with_flags
from wayfinding.viz.navmesh3d import animate_navmesh3d, save_navmesh3d

level = generate.terrain(size=48, seed=2)         # smooth hills; the steep slopes drop out
mesh = build(level)
counts = mesh.report.counts
print(f"{level.num_triangles:,} triangles -> {counts['spans']:,} spans, "
      f"{counts['regions']} regions, {mesh.num_polygons} polygons "
      f"in {mesh.report.total_ms:.1f} ms")
save_navmesh3d("navmesh3d-terrain.png", mesh)

# %%
# A level of a ground floor and platforms 3 up, joined by a flight of stairs: eight agents
# walk up to the first platform, each following its path corridor on the mesh and avoiding
# the others.  Seen from above, the polygons shaded by height.
level = generate.multi_storey()
mesh = with_flags(build(level))
nav = Navigator3D(mesh)
for k in range(8):
    nav.add((1.5 + 2.0 * (k % 2), 0.0, 7.0 + k), target=(7.0 + 2.0 * (k % 2), 3.0, 7.5 + k))
frames = [nav.positions]
for _ in range(400):
    nav.update(0.1)
    frames.append(nav.positions)
    if all(s == "arrived" for s in nav.states):
        break
arrived = sum(s == "arrived" for s in nav.states)
print(f"{arrived} of {len(nav.states)} arrived in {0.1 * (len(frames) - 1):.1f} s")
animate_navmesh3d("navmesh3d-stairs.gif", mesh, np.array(frames)[::2], fps=10)
