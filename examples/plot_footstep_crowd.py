"""
Footsteps: a crowd of walkers
=============================

Four walkers plan timed footsteps in turn over an inverted-pendulum model, each avoiding the
feet, shoulders and torso of those before it in space and time: left footprints blue, right
ones red, each appearing when its foot lands.
"""

import itertools

import numpy as np

from wayfinding.planning import plan_crowd
from wayfinding.viz.planning import animate_footsteps

starts = [(0.0, 0.0), (4.0, 0.2), (2.0, -1.8), (2.2, 2.2)]    # every pair meets near (2, 0)
goals = [(4.0, 0.0), (0.0, 0.2), (2.0, 2.4), (2.2, -1.8)]
crowd = plan_crowd(starts, goals, max_expansions=1500)
t = np.arange(0.0, max(p.times[-1] for p in crowd) + 0.5, 0.01)
gap = min(float((np.linalg.norm(a.body(t)[:, :, None] - b.body(t)[:, None], axis=-1)
                 - a.model.radii[:, None] - b.model.radii[None]).min())
          for a, b in itertools.combinations(crowd, 2))
print(f"{sum(p.found for p in crowd)} of {len(crowd)} arrived, least gap {gap:.3f} m")
animate_footsteps("footstep-crowd.gif", crowd, frames=60)
