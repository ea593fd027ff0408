"""
Lanes: two groups crossing a corridor
=====================================

The lane-formation scene of the hybrid vector field: two groups cross a corridor in opposite
directions, each steered by its own plan, a continuum-crowd field over the group's region
(slow where the group is dense and moving another way) and a long-range path beyond it.
Units accelerate towards their field's velocity, slide along walls and are pushed apart
where they overlap.  Colours show the groups.
"""

from wayfinding.fields.scenes import scene, simulate_scene
from wayfinding.viz.fields import animate

run = simulate_scene(scene("lanes", units=20), seconds=60.0)
print(f"{run.completion:.0%} of {len(run.group)} units arrived, "
      f"90% by {run.arrival_time(0.9):.1f} s")
animate("lanes.gif", run.scene.grid, run.positions, groups=run.group, every=4)
