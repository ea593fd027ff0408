"""
Any-angle paths against grid paths
==================================

A grid path turns only by multiples of 45°; any-angle paths bend at cell corners.  The same
problem in a generated cave by A*, A* smoothed by string pulling, Theta* and the exact
shortest any-angle path.
"""

from wayfinding import GridSearch
from wayfinding.grid import AnyAngle, generate
from wayfinding.viz import save

cave = generate.caves(80, 56, seed=7)
far = max(generate.benchmark_scenario(cave, per_bucket=2, seed=7), key=lambda p: p.optimal)
paths, search = AnyAngle(cave), GridSearch(cave)
for method in ("astar", "astar_smoothed", "theta", "any_angle"):
    if method == "astar":
        r = search.find_path(far.start, far.goal)
    else:
        r = paths.find_path(far.start, far.goal, method=method)
    print(f"{method:15} length {r.cost:.4f}")
    save(f"anyangle-{method}.png", cave, path=r, start=far.start, goal=far.goal)
