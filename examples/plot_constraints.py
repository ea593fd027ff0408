"""
Constraints: the same walk under different constraint sets
==========================================================

A walk across a yard with two buildings and a wall, planned on the grid under no
constraint, away from a guard's line of sight, near the space between the buildings and
never into a pond: each panel shows the multiplier field its constraints make (darker is
costlier, one scale for all) with the path and its cost; a second picture shows the field of
all three together.
"""

import math
from pathlib import Path

import numpy as np

from wayfinding.constraints import Between, Constraint, ConstraintSet, Disc, LineOfSight, Region
from wayfinding.geometry import Obstacles
from wayfinding.grid import Grid, GridSearch
from wayfinding.viz.constraints import render_constraint_panels, render_constraints_png

free = np.ones((28, 40), dtype=bool)
buildings = [(8, 4, 16, 12), (8, 16, 16, 24)]
for x0, y0, x1, y1 in buildings + [(26, 7, 27, 21)]:        # two buildings and a wall
    free[y0:y1, x0:x1] = False
yard = Grid(free)

guard = LineOfSight((34.5, 14.5), math.pi - 0.6, fov=math.radians(60), range=12.0,
                    occluders=Obstacles.from_grid(yard))
seen = Constraint(guard, -6, near=True)
cover = Constraint(Between(*(Region([(a, b), (c, b), (c, d), (a, d)])
                             for a, b, c, d in buildings)), 4, near=True)
pond = Constraint.hard(Disc((21.0, 14.0), 2.5))
sets = {"unconstrained": None, "away from the guard": ConstraintSet([seen]),
        "between the buildings": ConstraintSet([cover]), "never the pond": ConstraintSet([pond])}

search = GridSearch(yard)
panels = []
for label, constraints in sets.items():
    r = search.find_path((1, 14), (38, 14), constraints=constraints)
    print(f"{label:>22}: cost {r.cost:7.3f}, {r.stats.expanded} expanded")
    panels.append((label, constraints, r))
Path("constraint-panels.png").write_bytes(
    render_constraint_panels(yard, panels, start=(1.5, 14.5), goal=(38.5, 14.5)))

every = ConstraintSet([seen, cover, pond])
r = search.find_path((1, 14), (38, 14), constraints=every)
print(f"{'all three':>22}: cost {r.cost:7.3f}")
Path("constraint-field.png").write_bytes(
    render_constraints_png(yard, every, paths=[r], start=(1.5, 14.5), goal=(38.5, 14.5),
                           title="all three"))
