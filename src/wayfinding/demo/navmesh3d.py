"""The demo page's section on voxel navmeshes of 3D levels: a generated building of three
storeys joined by stairs and a hilly terrain, each built with RecastDemo's defaults; every
stage's figures and times, a top-down picture by region and a 3D view to turn around; and
a crowd crossing a level of two storeys (:func:`crowd_scene`): agents taking the stairs,
the bridge and a jump link over a gap, or walking on under the platforms, shown as an
animated GIF from above and in the 3D view."""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._io import atomic_write_text
from ..crowd.surface import Navigator3D
from ..navmesh import OffMeshLink
from ..navmesh3d import Level, NavMesh3D, build, generate, with_flags
from ..results import _fields_equal
from ..viz.navmesh3d import animate_navmesh3d, navmesh3d_html, save_navmesh3d

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
    scene = crowd_scene()
    animate_navmesh3d(out / "navmesh3d-crowd.gif", scene.mesh, scene.positions[::2],
                      colours=scene.colours()[::2], fps=10)
    atomic_write_text(out / "navmesh3d-crowd.html", navmesh3d_html(
        scene.mesh, level=scene.level, title="wayfinding crowd on two storeys",
        agents=scene.positions, colours=scene.colours(), fps=10))
    counts = {k: int(v) for k, v in zip(*np.unique(scene.routes, return_counts=True))}
    crowd = f"""<h3>A crowd on two storeys</h3>
<p>{len(scene.routes)} agents cross a level of a ground floor and three platforms 3 up
({', '.join(f'{n} {esc(k)}' for k, n in counts.items())}): up the stairs, over the bridge,
across the gap by a jump link, or on under the platforms, where agents overhead are not
their neighbours.  Each follows its path corridor on the mesh, avoids the others and its
own nearby walls with ORCA, stays on the ground of the detail mesh and flies the jump on
a parabola; {scene.arrived} of them arrived within {scene.seconds:.0f} s of simulated time
({scene.ms_per_frame:.1f} ms a frame).  Colour: height (blue low, orange high), yellow in
the air, green once arrived.</p>
<figure><img src='navmesh3d-crowd.gif' alt='a crowd crossing two storeys'><figcaption>
from above; <a href='navmesh3d-crowd.html'>watch it in 3D</a></figcaption></figure>
"""
    return f"""<h2>Voxel navmeshes of 3D levels</h2>
<p>Triangle soup (y up) rasterized into columns of solid spans, filtered for what an agent
2.0 tall, 0.6 wide, climbing 0.9 and walking slopes up to 45° can stand on, cut into
regions by watershed, traced into contours and polygons of up to 6 vertices with the height
detail of the ground: the stages Recast runs, with its demo's defaults, reproducing its
results span for span.</p>
<table><tr><th>level</th><th>triangles</th>{head}<th>build ms</th></tr>{table}</table>{figs}
{crowd}"""


#: Where each route of :func:`crowd_scene` starts and ends: (x range, y, z range) boxes.
ROUTES = {
    "stairs": (((1.0, 4.0), 0.0, (6.0, 15.0)), ((6.5, 10.0), 3.0, (10.0, 15.0))),
    "bridge": (((6.5, 10.0), 3.0, (4.0, 10.0)), ((17.8, 21.0), 3.0, (1.0, 15.0))),
    "jump": (((17.8, 21.0), 3.0, (10.0, 15.0)), ((24.5, 31.0), 3.0, (2.0, 15.0))),
    "under": (((24.5, 31.0), 0.0, (1.0, 15.0)), ((1.0, 4.5), 0.0, (5.0, 15.0))),
}


@dataclass
class CrowdScene:
    """A recorded run of :func:`crowd_scene`: ``positions`` ``(T, n, 3)`` per frame,
    ``states`` ``(T, n)`` state names, each agent's route name, the mesh (with its jump
    link) and level, how many arrived, the simulated ``seconds`` and the time a frame
    took."""

    mesh: NavMesh3D
    level: Level
    positions: np.ndarray
    states: np.ndarray
    routes: list[str]
    targets: np.ndarray
    arrived: int
    seconds: float
    ms_per_frame: float

    __eq__ = _fields_equal

    def colours(self) -> np.ndarray:
        """``(T, n, 3)`` uint8: blue to orange by height while walking, yellow on a link,
        green once arrived."""
        y = self.positions[..., 1]
        top = max(float(np.nanmax(y)), 1e-9) if y.size else 1.0
        u = np.clip(np.nan_to_num(y) / top, 0, 1)[..., None]
        out = (np.array([70, 140, 255]) * (1 - u) + np.array([255, 150, 40]) * u)
        out[self.states == "on link"] = (255, 230, 40)
        out[self.states == "arrived"] = (90, 220, 110)
        return out.astype(np.uint8)


def jump_link(mesh: NavMesh3D) -> OffMeshLink:
    """The two-way jump link over :func:`~wayfinding.navmesh3d.generate.multi_storey`'s gap,
    at z 12, from the agent's radius plus 0.3 inside one edge to as far inside the other
    (so that each end snaps onto its platform, clear of the eroded edge)."""
    r = mesh.settings.agent_radius
    a, b = generate.GAP_EDGES
    return OffMeshLink((a - r - 0.3, 3.0, 12.0), (b + r + 0.3, 3.0, 12.0),
                       bidirectional=True, kind="jump")


def crowd_scene(*, per_route: int = 6, seconds: float = 60.0, dt: float = 0.1,
                seed: int = 3) -> CrowdScene:
    """Run ``per_route`` agents on each route of :data:`ROUTES` (random starts and targets
    in its boxes, at least 1.5 apart) over :func:`~wayfinding.navmesh3d.generate.multi_storey`
    with its jump link, for ``seconds`` (or until all have arrived), recording every
    frame."""
    level = generate.multi_storey()
    mesh = with_flags(build(level))
    mesh = mesh.with_links([jump_link(mesh)])
    nav = Navigator3D(mesh)
    rng = np.random.default_rng(seed)
    routes: list[str] = []
    targets: list[tuple[float, float, float]] = []
    placed: list[tuple[float, float, float]] = []
    for name, (start, goal) in ROUTES.items():
        for _ in range(per_route):
            s = _draw(rng, start, placed)
            placed.append(s)
            t = _draw(rng, goal, targets)
            nav.add(s, target=t, max_speed=float(rng.uniform(1.2, 1.6)))
            routes.append(name)
            targets.append(t)
    frames, states = [nav.positions], [nav.states]
    t0 = time.perf_counter()
    steps = 0
    for _ in range(int(round(seconds / dt))):
        nav.update(dt)
        steps += 1
        frames.append(nav.positions)
        states.append(nav.states)
        if all(s == "arrived" for s in states[-1]):
            break
    ms = (time.perf_counter() - t0) * 1000 / max(steps, 1)
    return CrowdScene(mesh, level, np.array(frames), np.array(states), routes,
                      np.array(targets), sum(s == "arrived" for s in states[-1]),
                      steps * dt, ms)


def _draw(rng: np.random.Generator, box: tuple, taken: list,
          gap: float = 1.5) -> tuple[float, float, float]:
    """A point in ``box`` at least ``gap`` (xz) from the points ``taken`` at its height
    (the box's own point after 200 tries)."""
    (x0, x1), y, (z0, z1) = box
    for _ in range(200):
        p = (float(rng.uniform(x0, x1)), y, float(rng.uniform(z0, z1)))
        if all(abs(q[1] - y) > 1 or (q[0] - p[0]) ** 2 + (q[2] - p[2]) ** 2 >= gap * gap
               for q in taken):
            return p
    return p
