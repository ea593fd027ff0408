"""
ORCA: a crowd through a bottleneck
==================================

A group walks through a narrow door in a wall; ORCA keeps the agents apart from each other
and from the wall's corners while they queue.  Agents are drawn at their radius.
"""

import numpy as np

from wayfinding.crowd import scenario, simulate_crowd
from wayfinding.viz.crowd import animate_run

sc = scenario("bottleneck", n=20)
agents = len(sc.crowd)
run = simulate_crowd(sc)                            # until all arrive or time is up
m = run.summary()
print(f"{agents} agents: {m['completion']:.0%} arrived, 90% by {m['t90']:.1f} s, "
      f"deepest overlap {m['max_penetration']:.3f}")

# %%
# The wall runs 20 up and down from the door; draw the part within 4 of it.
near_door = [np.clip(wall, (-20.0, -4.0), (20.0, 4.0)) for wall in sc.obstacles]
animate_run("crowd-bottleneck.gif", run, near_door, frames=80)
