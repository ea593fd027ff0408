"""
Lanes in a continuum crowd
==========================

Two groups cross a corridor in opposite directions, steered by the hybrid vector field (a
continuum-crowd field near the units, a long-range path beyond): each group's field sees
the other as density and flows round it, and lanes form.
"""

from wayfinding.fields.scenes import scene, simulate_scene
from wayfinding.viz.fields import animate

run = simulate_scene(scene("lanes", units=20), seconds=60.0)
print(f"{run.completion:.0%} of {len(run.group)} units arrived, "
      f"90% by {run.arrival_time(0.9):.1f} s")
animate("lanes.gif", run.scene.grid, run.positions, groups=run.group, every=4)
