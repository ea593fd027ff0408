"""
A* and Dijkstra in a generated cave
===================================

The same problem solved by A* and by Dijkstra's algorithm, with the cells each one expanded
(blue) and its open list when it stopped (orange), then the cost from the start to every
cell as a heat map.
"""

from wayfinding import GridSearch
from wayfinding.grid import generate
from wayfinding.viz import save

cave = generate.caves(96, 64, seed=7)
scenario = generate.benchmark_scenario(cave, per_bucket=2, seed=7)
far = max(scenario, key=lambda p: p.optimal)       # the scenario's longest problem
search = GridSearch(cave)
print(f"from {far.start} to {far.goal}, optimal length {far.optimal:.4f}")

# %%
# A* expands the cells towards the goal; Dijkstra spreads evenly round the start.
for method in ("astar", "dijkstra"):
    r = search.find_path(far.start, far.goal, method=method, record=True)
    print(f"{method:9} cost {r.cost:.4f}, {r.stats.expanded:,} cells expanded")
    save(f"cave-{method}.png", cave, path=r, explored=r, frontier=r,
         start=far.start, goal=far.goal)

# %%
# The distance map: the cost from the start to every reachable cell (yellow near, purple
# far).
distances = search.distance_map(far.start)
save("cave-distances.png", cave, distances=distances, start=far.start)
