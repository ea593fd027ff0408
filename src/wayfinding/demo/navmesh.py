"""The demo page's section on navigation meshes: the generated dungeon as a navigation
mesh and as a clearance mesh, paths for agents of several radii against the exact shortest
paths, drawn as SVG."""

from __future__ import annotations

import html
import time
from pathlib import Path
from typing import Any

from ..grid import Grid
from ..navmesh import ClearanceMesh, NavMesh, walkable_area
from ..navmesh.build import eroded
from ..navmesh.exact import VisibilityMap
from ..results import PathResult
from ..viz.graphs import save_world
from .maps import dungeon

#: Agent radii drawn on the one clearance mesh (world units; a cell is 1 × 1).
RADII = (0.2, 0.6, 1.0)


def navmesh_section(out: Path) -> str:
    """Build, query and draw the meshes into ``out``; return the HTML section."""
    try:
        import shapely  # noqa: F401
    except ImportError:
        return ("<h2>Navigation meshes</h2><p>Install <code>wayfinding[geometry]</code> "
                "(shapely) to see this section.</p>")

    grid = dungeon()
    area = walkable_area(grid)
    start, goal = _ends(grid, area)
    # The exact lengths: round joins of 16 chords a quarter turn, within 0.05% of arcs.
    exact = {r: VisibilityMap(eroded(area, r, quad_segs=16)).find_path(start, goal)
             for r in RADII}
    rows: list[tuple[str, int, float, float, PathResult, PathResult]] = []
    figures: list[tuple[str, str]] = []
    for r in RADII:
        t0 = time.perf_counter()
        mesh = NavMesh.build(area, radius=r)
        built = time.perf_counter() - t0
        t0 = time.perf_counter()
        path = mesh.find_path(start, goal)
        took = time.perf_counter() - t0
        rows.append((f"navmesh, built for r = {r}", mesh.num_polygons, built, took, path,
                     exact[r]))
        t0 = time.perf_counter()
        shortest = mesh.find_path(start, goal, method="polyanya")
        took = time.perf_counter() - t0
        rows.append((f"navmesh, r = {r}, exact search (polyanya)", mesh.num_polygons, built,
                     took, shortest, exact[r]))
        if r == RADII[0]:
            save_world(out / "navmesh.svg", mesh, path=path, start=path.start,
                       goal=path.goal, title=f"navigation mesh for radius {r}")
            figures.append((f"navigation mesh for radius {r}: {mesh.num_polygons} convex "
                            f"polygons, path {path.cost:.2f}", "navmesh.svg"))
    t0 = time.perf_counter()
    lct = ClearanceMesh.build(area)
    built = time.perf_counter() - t0
    for r in RADII:
        t0 = time.perf_counter()
        wide = lct.find_path(start, goal, radius=r)
        took = time.perf_counter() - t0
        rows.append((f"clearance mesh, r = {r}", lct.num_triangles, built, took, wide,
                     exact[r]))
        file = f"clearance-{r}.svg"
        save_world(out / file, lct, path=wide, start=start, goal=goal,
                   title=f"clearance mesh, radius {r}")
        what = f"path {wide.cost:.2f}" if wide.found else wide.reason
        figures.append((f"one clearance mesh ({lct.num_triangles} triangles, {lct.steiner} "
                        f"Steiner vertices), radius {r}: {what}", file))
    esc = html.escape
    table = "".join(
        f"<tr><td>{esc(name)}</td><td>{size:,}</td><td>{b:.3f}</td><td>{t * 1e3:.2f}</td>"
        f"<td>{_cost(p)}</td><td>{_cost(e)}</td><td>{_excess(p, e)}</td></tr>"
        for name, size, b, t, p, e in rows)
    figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>{esc(cap)}"
                   "</figcaption></figure>" for cap, src in figures)
    return f"""<h2>Navigation meshes in the dungeon</h2>
<p>The map's free cells as one walkable area, from {start} to {goal}. A navigation mesh
is built for one agent radius (the area eroded by it); a clearance mesh (local clearance
triangulation) is built once and answers for every radius: a channel is used only where
every corner it turns leaves 2 r, and the path wraps corners with arcs of radius r (the
band drawn is what the agent sweeps). The navigation mesh answers with its default route
search and with its exact search (<code>method="polyanya"</code>). Exact: the shortest path in
the eroded area.</p>
<table><tr><th>mesh</th><th>cells</th><th>build s</th><th>query ms</th><th>length</th>
<th>exact</th><th>excess</th></tr>{table}</table>{figs}
"""


def _ends(grid: Grid, area: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    """The first and last free cell centres (in scan order) at least 1.2 from a wall."""
    import numpy as np
    import shapely

    centres = np.argwhere(grid.passable)[:, ::-1] + 0.5
    room = shapely.distance(area.boundary, shapely.points(centres))
    ok = centres[room >= 1.2]
    return tuple(ok[0].tolist()), tuple(ok[-1].tolist())


def _cost(path: PathResult) -> str:
    return f"{path.cost:.3f}" if path.found else "no path"


def _excess(path: PathResult, exact: PathResult) -> str:
    if not (path.found and exact.found) or exact.cost == 0:
        return ""
    return f"{(path.cost / exact.cost - 1) * 100:.2f}%"
