"""
Flow fields with arrows
=======================

A flow field answers for every cell at once: the integration field (cost to the goal) and,
from it, the direction to walk.  Exact Dijkstra moves in eight directions; fast marching
travels in any direction, and with the line-of-sight pass every cell that sees the goal
heads straight at it.  Yellow is near the goal, purple far.
"""

from wayfinding.fields import FlowField
from wayfinding.grid import generate
from wayfinding.viz.fields import save_flow

cave = generate.caves(48, 32, seed=7)
goal = max(generate.benchmark_scenario(cave, per_bucket=2, seed=7),
           key=lambda p: p.optimal).goal
for name, options in (("dijkstra", {"method": "dijkstra"}),
                      ("eikonal", {"method": "eikonal", "order": 2, "los": True})):
    flow = FlowField.build(cave, [goal], **options)
    far = flow.field[flow.field < float("inf")].max()
    print(f"{name:8} cost from the farthest reachable cell {far:.2f}")
    save_flow(f"flow-{name}.png", cave, flow.field, vectors=flow.vectors, goal=goal)
