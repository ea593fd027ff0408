"""
What each grid method expands
=============================

One problem on one generated cave, solved by every fast exact method: A*, jump point search
(online, two variants), JPS+ (precomputed jump distances), JPS+ pruned by goal bounds, simple
and two-level subgoal graphs, and A* with a differential heuristic.  Blue: the nodes each
method expanded (cells, jump points or subgoals).  All find the optimal length.
"""

from wayfinding import GridSearch
from wayfinding.grid import DifferentialHeuristic, GoalBounds, JPSPlus, SubgoalGraph, generate
from wayfinding.viz import save

cave = generate.caves(64, 48, seed=7)
scenario = generate.benchmark_scenario(cave, per_bucket=2, seed=7)
far = max(scenario, key=lambda p: p.optimal)
a, b = far.start, far.goal

search = GridSearch(cave)
jps_plus = JPSPlus.build(cave)
bounds = GoalBounds.build(cave, workers=1, progress=False)    # one flood per cell
solvers = {
    "astar": lambda: search.find_path(a, b, method="astar", record=True),
    "jps": lambda: search.find_path(a, b, method="jps", record=True),
    "jps2": lambda: search.find_path(a, b, method="jps2", record=True),
    "jps_plus": lambda: jps_plus.find_path(a, b, record=True),
    "jps_plus_gb": lambda: jps_plus.find_path(a, b, record=True, bounds=bounds),
    "subgoal": lambda: SubgoalGraph.build(cave, levels=1).find_path(a, b, record=True),
    "subgoal2": lambda: SubgoalGraph.build(cave, levels=2).find_path(a, b, record=True),
    "astar_dh": lambda: DifferentialHeuristic.build(cave).find_path(a, b, record=True),
}
print(f"optimal length {far.optimal:.4f}")
for name, solve in solvers.items():
    r = solve()
    print(f"{name:12} cost {r.cost:.4f}  expanded {r.stats.expanded:5,}")
    save(f"methods-{name}.png", cave, path=r, explored=r, start=a, goal=b)
