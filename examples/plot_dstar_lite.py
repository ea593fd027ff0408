"""
D* Lite repairs its path when a wall appears
============================================

D* Lite searches backwards from the goal and keeps its search: when cells change it repairs
only what they affect instead of starting again.  Here a wall is dropped across the path in
a generated cave and the planner replans.
"""

import numpy as np

from wayfinding import Grid
from wayfinding.grid import generate
from wayfinding.search import DStarLite
from wayfinding.viz import save

cave = generate.caves(64, 48, seed=11)
far = max(generate.benchmark_scenario(cave, per_bucket=2, seed=11), key=lambda p: p.optimal)
planner = DStarLite(cave, far.start, far.goal)
first = planner.replan()
print(f"first plan: cost {first.cost:.4f}, {first.stats.expanded:,} expanded")
save("dstar-before.png", cave, path=first, start=far.start, goal=far.goal)

# %%
# Block a wall of up to 24 cells, up and down the column where the first path is halfway,
# and replan: the planner repairs its search round the wall.
x, y = (int(v) for v in first.path[len(first.path) // 2])
wall = [(x, row) for row in range(max(0, y - 12), min(cave.height - 1, y + 12))]
planner.update_costs({cell: float("inf") for cell in wall})
second = planner.replan()
print(f"after the wall: cost {second.cost:.4f}, {second.stats.expanded:,} expanded "
      f"({second.status.name})")
costs = np.array(cave.costs)
for cx, cy in wall:
    costs[cy, cx] = np.inf
save("dstar-after.png", Grid(costs), path=second, start=far.start, goal=far.goal)
