"""The demo page's section on fields: the flow field of the cave towards a goal
(Dijkstra against fast marching with the line-of-sight pass), flow-field tiles, and the
lane-formation scene of the hybrid vector field as an animation."""

from __future__ import annotations

import html
import time
from pathlib import Path

from ..fields import FlowField, FlowTiles
from ..fields.scenes import scene, simulate_scene
from ..viz.fields import animate, save_flow
from .maps import cave, longest

#: The radius of the lane scene's units (cells), simulated and drawn.
RADIUS = 0.35


def fields_section(out: Path) -> str:
    """Draw the fields and run the lanes scene; return the HTML section."""

    grid, far = cave(), longest()
    goal = far.goal
    figures, rows = [], []
    for name, options in (("dijkstra", {"method": "dijkstra"}),
                          ("eikonal", {"method": "eikonal", "order": 2, "los": True})):
        t0 = time.perf_counter()
        flow = FlowField.build(grid, [goal], **options)
        rows.append((name, (time.perf_counter() - t0) * 1e3))
        target = out / f"cave-flow-{name}.png"
        save_flow(target, grid, flow.field, vectors=flow.vectors, goal=goal)
        figures.append((f"{name} field and its flow", target.name))
    tiles = FlowTiles(grid, sector=16)
    t0 = time.perf_counter()
    route = tiles.route(far.start, goal)
    route.tile(route.sectors[0])
    first = (time.perf_counter() - t0) * 1e3
    run = simulate_scene(scene("lanes", units=20), seconds=60.0, radius=RADIUS)
    gif = animate(out / "lanes.gif", run.scene.grid, run.positions, groups=run.group,
                  every=3, radius=RADIUS)
    figures.append((f"lane formation: {run.completion:.0%} arrived, 90% by "
                    f"{run.arrival_time(0.9):.0f} s", gif.name))
    esc = html.escape
    table = "".join(f"<tr><td>{esc(n)}</td><td>{ms:,.1f}</td></tr>" for n, ms in rows)
    figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>{esc(cap)}"
                   "</figcaption></figure>" for cap, src in figures)
    return f"""<h2>Fields</h2>
<p>Integration fields towards {goal} in the cave and their flow (arrows; warm colours are
near). Fast marching travels in any direction, and with the line-of-sight pass every cell
that sees the goal heads straight at it. Flow-field tiles found a route across
{len(route.sectors)} of {tiles.columns * tiles.rows} sectors and built its first tile in
{first:.1f} ms. Below, two groups of the hybrid vector field cross a corridor and form
lanes.</p>
<table><tr><th>field</th><th>ms (whole map)</th></tr>{table}</table>{figs}
"""
