"""The demo page's section on world representations: the five non-grid worlds built on the
generated dungeon (and a small hex picture), each with one path, drawn as SVG."""

from __future__ import annotations

import html
import time
from pathlib import Path

import numpy as np

from ..geometry import Obstacles
from ..graph import DirichletDomains, Roadmap, VisibilityGraph, WaypointGraph
from ..graph.waypoints import lattice_points
from ..grid import HexGrid
from ..viz.graphs import save_world
from .maps import dungeon

#: A small hex map for the demo: '#' blocked, digits are tile costs.
DEMO_HEX = """
. . . . . . . . . . . .
 . . # # # . . 3 3 . . .
  . . . . # . . 3 3 . # .
   . # . . # . . . . . # .
    . # . . . . # # . . # .
     . . . 2 2 . . # . . . .
      . . . 2 2 . . . . . . .
"""


#: Roadmap samples: enough for the dungeon's 3-cell corridors to be found.
SAMPLES = 600


def world_section(out: Path) -> str:
    """Build and draw the five representations into ``out``; return the HTML section."""

    grid = dungeon()
    obstacles = Obstacles.from_grid(grid)
    bounds = (0.0, 0.0, float(grid.width), float(grid.height))
    radius = 0.3
    free = np.argwhere(grid.passable)[:, ::-1] + 0.5
    start, goal = free[0], free[-1]
    lattice = lattice_points(obstacles, bounds, 2.0, radius=radius)
    builders = {
        "waypoints": lambda: WaypointGraph.connect(lattice, obstacles, radius=radius,
                                                   max_link=3.0),
        "dirichlet": lambda: DirichletDomains(lattice, obstacles=obstacles, radius=radius,
                                              bounds=bounds, adjacency="raster",
                                              cell_size=0.25),
        "visibility": lambda: VisibilityGraph.build(obstacles, radius=radius, bounds=bounds),
        "roadmap": lambda: Roadmap.build(obstacles, bounds, n=SAMPLES, k=8, radius=radius),
    }
    rows, figures = [], []
    for name, build in builders.items():
        t0 = time.perf_counter()
        world = build()
        took = time.perf_counter() - t0
        r = world.find_path(start, goal)
        file = f"world-{name}.svg"
        save_world(out / file, world, path=r, start=start, goal=goal, title=name)
        cost = f"{r.cost:.2f}" if r.found else "no path"
        rows.append((name, world.num_nodes, world.num_edges, took, cost))
        figures.append((f"{name}: {world.num_nodes} nodes, path {cost}", file))
    hexes = HexGrid.from_ascii(DEMO_HEX)
    t0 = time.perf_counter()
    r = hexes.find_path((0, 0), (11, 6))
    took = time.perf_counter() - t0
    save_world(out / "world-hex.svg", hexes, path=r, start=(0, 0), goal=(11, 6), title="hex")
    rows.append(("hex (A*)", int(hexes.passable.sum()), hexes.to_csr().num_edges // 2, took,
                 f"{r.cost:.2f}"))
    figures.append((f"hex grid: A* cost {r.cost:.2f}, {r.stats.expanded} expanded",
                    "world-hex.svg"))
    esc = html.escape
    table = "".join(f"<tr><td>{esc(n)}</td><td>{a:,}</td><td>{b:,}</td><td>{t:.3f}</td>"
                    f"<td>{esc(c)}</td></tr>" for n, a, b, t, c in rows)
    figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>{esc(cap)}"
                   "</figcaption></figure>" for cap, src in figures)
    return f"""<h2>World representations in the dungeon</h2>
<p>Blocked cells merged into {len(obstacles)} rectangles; agent radius {radius}; path from
{tuple(start.tolist())} to {tuple(goal.tolist())} (world units, cell (x, y) is the unit square
at (x, y)). Waypoints and Dirichlet seeds: a lattice of step 2 (Dirichlet links from a
label raster of {grid.width * 4}×{grid.height * 4} samples); roadmap: {SAMPLES} samples, 8
nearest. Build time includes every line-of-sight test.</p>
<table><tr><th>world</th><th>nodes</th><th>links</th><th>build s</th><th>path cost</th></tr>
{table}</table>{figs}
"""
