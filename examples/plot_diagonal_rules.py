"""
Diagonal rules in a dungeon
===========================

A generated dungeon of rooms and corridors searched under each diagonal rule: ``never``
(4-connected), ``no_corner_cutting`` (the default, Moving AI's rule), ``allow_one_blocked``
and ``always``.  The looser the rule, the shorter the path.
"""

from wayfinding import Diagonal, GridSearch
from wayfinding.grid import generate
from wayfinding.viz import save

dungeon = generate.rooms(48, 40, rooms=6, room_size=(6, 12), corridor=2, seed=5)
free = list(dungeon.iter_cells())
a, b = free[0], free[-1]
for rule in Diagonal:
    grid = dungeon.with_options(diagonal=rule)
    r = GridSearch(grid).find_path(a, b, record=True)
    print(f"{rule.value:18} cost {r.cost:8.3f}  expanded {r.stats.expanded:5,}")
    save(f"dungeon-{rule.value}.png", grid, path=r, explored=r, start=a, goal=b)
