"""The demo page's section on voxel navmeshes of 3D levels: a generated building of three
storeys joined by stairs and a hilly terrain, each built with RecastDemo's defaults; every
stage's figures and times, a top-down picture by region and a 3D view to turn around."""

from __future__ import annotations

import html
from pathlib import Path

from ..navmesh3d import Level, build, generate
from ..viz.navmesh3d import save_navmesh3d

#: Stage figures shown, in order, with their labels.
FIGURES = (("grid", "heightfield grid"), ("spans", "solid spans"),
           ("compact_spans", "compact spans"), ("regions", "regions"),
           ("contours", "contours"), ("polygons", "polygons"),
           ("detail_tris", "detail triangles"))


def navmesh3d_section(out: Path) -> str:
    """Build and draw the two levels into ``out``; return the HTML section."""
    levels: list[tuple[str, str, Level]] = [
        ("building", "a building of three storeys joined by stairs through their slabs",
         generate.building(storeys=3)),
        ("terrain", "a hilly terrain of 64 × 64 quads", generate.terrain(size=64, seed=2)),
    ]
    rows, figures = [], []
    for name, what, level in levels:
        mesh = build(level)
        c = mesh.report.counts
        values = {"grid": f"{c['grid_width']} × {c['grid_depth']}",
                  **{k: f"{c[k]:,}" for k, _ in FIGURES[1:]}}
        rows.append((name, f"{level.num_triangles:,}", values, mesh.report.total_ms))
        save_navmesh3d(out / f"navmesh3d-{name}.svg", mesh)
        save_navmesh3d(out / f"navmesh3d-{name}.html", mesh, level=level)
        figures.append((name, what, mesh.num_polygons))
    esc = html.escape
    head = "".join(f"<th>{esc(label)}</th>" for _, label in FIGURES)
    table = "".join(
        f"<tr><td>{esc(n)}</td><td>{t}</td>"
        + "".join(f"<td>{v[k]}</td>" for k, _ in FIGURES) + f"<td>{ms:.1f}</td></tr>"
        for n, t, v, ms in rows)
    figs = "".join(
        f"<figure><img src='navmesh3d-{n}.svg' alt='{esc(w)}'><figcaption>{esc(w)}: "
        f"{p:,} polygons coloured by region, seen from above; "
        f"<a href='navmesh3d-{n}.html'>turn it around in 3D</a></figcaption></figure>"
        for n, w, p in figures)
    return f"""<h2>Voxel navmeshes of 3D levels</h2>
<p>Triangle soup (y up) rasterized into columns of solid spans, filtered for what an agent
2.0 tall, 0.6 wide, climbing 0.9 and walking slopes up to 45° can stand on, cut into
regions by watershed, traced into contours and polygons of up to 6 vertices with the height
detail of the ground: the stages Recast runs, with its demo's defaults, reproducing its
results span for span.</p>
<table><tr><th>level</th><th>triangles</th>{head}<th>build ms</th></tr>{table}</table>{figs}
"""
