"""
Climbing: from the ground to the roof
=====================================

A generated building face of ledges, pipes and ladders becomes a climb graph for the default
character: climbs along elements, jumps and drops where line of sight allows.  A clue link hands
the climber over from the navmesh ground; a second climber, who finds the first one's edges
reserved, takes another way up.  The spline is the smoothed path a controller steers along.
"""

from wayfinding.climbing import ClimbReservations, ClimbSpline, climbing_wall, find_climb_path
from wayfinding.viz.climbing import save_climb

wall = climbing_wall(seed=3)
graph = wall.graph()
first = find_climb_path(graph, wall.clues(graph), wall.position("roof"))
held = ClimbReservations()
held.reserve("first", first.edges[first.edges >= 0])
second = find_climb_path(graph, wall.clues(graph), wall.position("roof"), reservations=held,
                         agent="second")
print(f"first climber {first.length:.1f} m, second {second.length:.1f} m")
save_climb("climbing.png", graph, blockers=wall.blockers, paths=[first, second],
           splines=[ClimbSpline(first.points)], clues=wall.clues(graph))
