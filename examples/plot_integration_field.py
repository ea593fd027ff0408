"""
An integration field as a heat map
==================================

The cost from every cell to a goal over weighted terrain (fast marching, second order): a
band of water across the cave costs three times as much to cross as open ground, so the
cost climbs faster there.  Yellow is near the goal, purple far.
"""

import numpy as np

from wayfinding import Grid
from wayfinding.fields import eikonal_field
from wayfinding.grid import generate
from wayfinding.viz import save

cave = generate.caves(64, 40, seed=7)
goal = max(generate.benchmark_scenario(cave, per_bucket=2, seed=7),
           key=lambda p: p.optimal).goal
costs = np.array(cave.costs)
band = costs[:, 28:36]                              # columns 28 to 35
band[np.isfinite(band)] = 3.0                       # water where the cave is open
terrain = Grid(costs)
field = eikonal_field(terrain, [goal], order=2)
reachable = field[np.isfinite(field)]
print(f"goal {goal}; costs from 0 to {reachable.max():.2f} over {reachable.size:,} cells")
save("integration-field.png", terrain, distances=field, goal=goal)
