"""
Clips: a character turning a corner
===================================

A* over root poses and animation states chooses the biped's clips (starts, runs, arcs and
stops) that carry it round the corner of an L-shaped corridor to a goal pose; each clip's root
path is drawn in its colour and named at its start.
"""

import math
from pathlib import Path

from wayfinding.navmesh import NavMesh
from wayfinding.planning import default_clips, plan_movement
from wayfinding.viz.planning import render_movement_png

corridor = NavMesh.build(outline=[(0, 0), (12, 0), (12, 12), (9, 12), (9, 3), (0, 3)])
clips = default_clips()
goal = (10.5, 10.5, math.pi / 2)
plan = plan_movement(corridor, clips, (1.0, 1.5, 0.0), goal, position_tolerance=0.4,
                     heading_tolerance=math.radians(20), radius=0.3)
print(f"{len(plan.clips)} clips, {plan.time:.1f} s: {', '.join(plan.clips)}")
Path("corner-turn.png").write_bytes(render_movement_png(corridor, plan, clips, goal=goal,
                                                        position_tolerance=0.4))
