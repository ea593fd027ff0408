"""
A navigator: planning and avoidance together
============================================

A navigator takes agents with targets, plans each one's path over a navigation mesh, follows
it corner by corner and hands the preferred velocities to ORCA, which also keeps the agents
off the walls.  Here eight agents each way pass round the inner wall of a U-turn.  The
agents' radius is given once, to the mesh.
"""

import numpy as np

from wayfinding.crowd import ORCA, Navigator, record
from wayfinding.navmesh import NavMesh
from wayfinding.viz.crowd import animate_run

u_turn = [(0, 0), (12, 0), (12, 4), (3, 4), (3, 6), (12, 6), (12, 10), (0, 10)]
nav = Navigator(NavMesh.build(outline=u_turn, radius=0.3),
                avoidance=ORCA(time_horizon=2.0, time_horizon_obst=1.0))
for k in range(8):
    x = 11.0 - 0.9 * k
    nav.add((x, 1.0 + 2.0 * (k % 2)), target=(x, 8.0 + 1.0 * (k % 2)))   # lower arm to upper
    nav.add((x, 7.5 + 1.5 * (k % 2)), target=(x, 1.0 + 2.0 * (k % 2)))   # and back
run = record(nav.crowd, lambda crowd, dt: nav.update(dt), dt=0.1, seconds=60,
             remove=nav.remove)
print(f"{len(run.arrived)} agents: {run.completion:.0%} arrived, "
      f"90% by {run.arrival_time(0.9):.1f} s")

# %%
# The walls to draw: the outline's frame and the inner wall, as solid polygons.
walls = [np.array(b, float) for b in ([(-1, -1), (13, -1), (13, 0), (-1, 0)],
                                      [(-1, 10), (13, 10), (13, 11), (-1, 11)],
                                      [(-1, -1), (0, -1), (0, 11), (-1, 11)],
                                      [(12, -1), (13, -1), (13, 11), (12, 11)],
                                      [(3, 4), (12, 4), (12, 6), (3, 6)])]
animate_run("crowd-navigation.gif", run, walls, frames=80)
