"""SVG pictures of the non-grid worlds: waypoint graphs, Dirichlet domains, points of
visibility, roadmaps, hex grids, navigation meshes and clearance meshes, with obstacles
and a path.  No
dependency beyond numpy.

The SVG's user units are world units (y down, as in every wayfinding world); the picture is
about 800 px on its longer side.  Layers, bottom to top: Dirichlet domains (a label raster
in pastel colours), obstacles (dark polygons), hexes, navigation-mesh polygons (filled by
area type, the path's corridor highlighted) with their portals (dashed) and off-mesh links
(arrows), links (thin grey), nodes (dots), the path (red polyline through its world points),
start and goal discs.

>>> from wayfinding.graph import WaypointGraph
>>> svg = render_world_svg(WaypointGraph.connect([(0, 0), (4, 0)]), path=[(0, 0), (4, 0)])
>>> svg.count('class="path"'), svg.count('class="node"')
(1, 2)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import numpy as np
from numpy.typing import ArrayLike

from .._io import atomic_write_text
from .._validate import flag
from ..errors import InvalidQueryError
from ..geometry.obstacles import as_points
from ..graph.dirichlet import DirichletDomains
from ..graph.positioned import PositionedGraph
from ..grid.hex import HexGrid
from ..navmesh import ClearanceMesh, NavMesh
from ..results import PathResult
from .raster import HEAT_LEVELS, MARKER_FRACTION, PALETTE, TARGET_PX, _ramp, bar_layout
from .svg import _num, cell_rects, colour_bar_svg

#: Colours of the world layers (the grid palette supplies path, start, goal, blocked).
WORLD_PALETTE = {"edge": "#9aa0a6", "node": "#1f5fa8", "hex_free": "#f4f3ee",
                 "hex_line": "#c9c6bb", "mesh_line": "#7d8a96", "portal": "#b8c4ce",
                 "corridor": "#ffe8a3", "link": "#8e44ad"}

#: Radius of the start and goal discs in pixels (the pictures are about
#: :data:`~wayfinding.viz.raster.TARGET_PX` on their longer side), as the grid pictures'.
MARKER_PX = MARKER_FRACTION * TARGET_PX

#: Fill colours of navigation-mesh area types (area id modulo their number).
AREA_COLOURS = ("#e8eef3", "#d6ecd2", "#cfe0f5", "#f6dccf", "#eadcf2", "#f3efc9")

#: The worlds :func:`render_world_svg` draws.
World = PositionedGraph | HexGrid | NavMesh | ClearanceMesh
#: World points or hex cells: an ``(n, 2)`` array or a sequence of pairs.
Points = np.ndarray | Sequence[Sequence[float]]
#: One layer of the picture: SVG text, or a function of the world units per pixel giving it.
Layer = str | Callable[..., str]
#: The world box ``(x0, y0, x1, y1)`` the picture shows.
Box = tuple[float, float, float, float]


def render_world_svg(world: World, *, path: PathResult | Points | None = None,
                     start: ArrayLike | None = None, goal: ArrayLike | None = None,
                     title: str | None = None, nodes: bool = True, edges: bool = True,
                     corridor: ArrayLike | None = None, radius: float = 0.0,
                     colour_bar: bool = True) -> str:
    """Draw a :class:`~wayfinding.graph.positioned.PositionedGraph` (any of the graph
    representations), a :class:`~wayfinding.grid.hex.HexGrid` or a
    :class:`~wayfinding.navmesh.NavMesh` as an SVG document.

    ``path``: a :class:`PathResult` or an ``(k, 2)`` array: world points for graphs and
    meshes, ``(q, r)`` cells for a hex grid.  ``start``/``goal``: a world point (graph, mesh)
    or a cell (hex grid).  ``nodes``/``edges``: draw the nodes and links of a graph.
    ``corridor``: polygon ids of a mesh to highlight (default: a mesh path's corridor or a
    clearance path's channel).  A :class:`~wayfinding.navmesh.ClearanceMesh` is drawn with
    its triangles shaded by their widest traversal clearance (pale yellow: narrow, through
    green and blue, to pale purple: wide), with ``colour_bar`` a strip under it giving the
    clearance of each shade in world units, and the path as the band an agent of radius
    ``radius`` (default: the path's) sweeps.
    """
    nodes = flag("nodes", nodes)
    edges = flag("edges", edges)
    colour_bar = flag("colour_bar", colour_bar)
    if title is not None and not isinstance(title, str):
        raise InvalidQueryError(f"title {title!r} must be a string")
    if corridor is None:
        corridor = getattr(path, "corridor", None)
    if corridor is None:
        corridor = getattr(path, "channel", None)
    radius = getattr(path, "radius", radius) or radius
    points = path.path if isinstance(path, PathResult) else path
    if isinstance(world, HexGrid):
        body, box = _hex_layers(world, points, start, goal)
    elif isinstance(world, NavMesh):
        body, box = _mesh_layers(world, points, start, goal, corridor)
    elif isinstance(world, ClearanceMesh):
        body, box = _clearance_layers(world, points, radius, start, goal, corridor)
    elif isinstance(world, PositionedGraph):
        body, box = _graph_layers(world, points, start, goal, nodes, edges)
    else:
        raise InvalidQueryError(f"cannot draw a {type(world).__name__}; expected a graph "
                                "representation, a HexGrid, a NavMesh or a ClearanceMesh")
    x0, y0, x1, y1 = box
    span = max(x1 - x0, y1 - y0, 1e-9)
    px = TARGET_PX / span
    top = float(world.clearance.max(initial=0)) if isinstance(world, ClearanceMesh) else 0.0
    bar = colour_bar and top > 0
    extra = bar_layout((x1 - x0) * px, (y1 - y0) * px)["extra"] / px if bar else 0.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num((x1 - x0) * px)}" '
           f'height="{_num((y1 - y0 + extra) * px)}" viewBox="{_num(x0)} {_num(y0)} '
           f'{_num(x1 - x0)} {_num(y1 - y0 + extra)}">']
    if title:
        out.append(f"<title>{escape(title)}</title>")
    out.append(f'<rect x="{_num(x0)}" y="{_num(y0)}" width="{_num(x1 - x0)}" '
               f'height="{_num(y1 - y0)}" fill="{PALETTE["free"]}"/>')
    unit = 1.0 / px
    out.extend(layer(unit) if callable(layer) else layer for layer in body)
    if bar:
        shades = _clearance_shade(np.linspace(0.0, top, HEAT_LEVELS), top)
        out.append(colour_bar_svg(x0, y1, x1 - x0, unit, span * px, (0.0, top),
                                  "clearance (world units)",
                                  colours=np.rint(shades).astype(np.uint8)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def save_world(picture_path: str | os.PathLike, world: World, **options: Any) -> Path:
    """Write :func:`render_world_svg` to an ``.svg`` file (atomically) and return its path;
    another suffix raises :class:`InvalidQueryError`."""
    target = Path(picture_path)
    if target.suffix.lower() != ".svg":
        raise InvalidQueryError(f"graph worlds are drawn as SVG only; {str(target)!r} does "
                                "not end in .svg")
    return atomic_write_text(target, render_world_svg(world, **options))


def _pts(values: np.ndarray) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in values.tolist())


def _polygon_path(polys: Sequence[np.ndarray] | np.ndarray) -> str:
    return " ".join("M" + " L".join(f"{_num(x)},{_num(y)}" for x, y in p.tolist()) + " Z"
                    for p in polys)


def _graph_layers(world: PositionedGraph, path: Points | None, start: ArrayLike | None,
                  goal: ArrayLike | None, nodes: bool, edges: bool) -> tuple[list[Layer], Box]:
    pos = world.positions
    boxes = [np.array(world.obstacles.bounds)] if len(world.obstacles) else []
    if len(pos):
        boxes.append(np.concatenate([pos.min(axis=0), pos.max(axis=0)]))
    if isinstance(world, DirichletDomains):
        boxes.append(np.array(world.bounds))
    route = None if path is None or not len(path) else as_points(path, "path")
    extra = [as_points(p, n) for p, n in ((start, "start"), (goal, "goal")) if p is not None]
    for pts in ([route] if route is not None else []) + extra:
        boxes.append(np.concatenate([pts.min(axis=0), pts.max(axis=0)]))
    b = np.stack(boxes) if boxes else np.array([[0.0, 0.0, 1.0, 1.0]])
    x0, y0 = b[:, 0].min(), b[:, 1].min()
    x1, y1 = b[:, 2].max(), b[:, 3].max()
    pad = 0.02 * max(x1 - x0, y1 - y0, 1.0)
    box = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)

    body: list[Layer] = []
    if isinstance(world, DirichletDomains):
        body.append(_domains(world))
    if len(world.obstacles):
        body.append(f'<path class="obstacles" fill="{PALETTE["blocked"]}" '
                    f'd="{_polygon_path(world.obstacles.polygons)}"/>')
    if edges and world.num_edges:
        e = world.edges
        d = " ".join(f"M{_num(a[0])},{_num(a[1])} L{_num(c[0])},{_num(c[1])}"
                     for a, c in zip(pos[e[:, 0]].tolist(), pos[e[:, 1]].tolist(),
                                     strict=True))
        body.append(lambda u: f'<path class="edges" fill="none" stroke='
                              f'"{WORLD_PALETTE["edge"]}" stroke-width="{_num(0.8 * u)}" '
                              f'd="{d}"/>')
    if nodes and len(pos):
        body.append(lambda u: f'<g fill="{WORLD_PALETTE["node"]}">' + "".join(
            f'<circle class="node" cx="{_num(x)}" cy="{_num(y)}" r="{_num(2.0 * u)}"/>'
            for x, y in pos.tolist()) + "</g>")
    body.extend(_path_and_ends(route, extra, start, goal))
    return body, box


def _domains(world: DirichletDomains) -> str:
    labels, xs, ys = world.label_raster()
    n = world.num_nodes
    hue = (np.arange(n) * 0.61803398875) % 1.0
    # pastel colours from the golden-ratio hue sequence
    rgb = np.stack([0.5 + 0.5 * np.cos(2 * np.pi * (hue + k / 3)) for k in range(3)], axis=1)
    colours = (150 + 90 * rgb).astype(np.uint8)[labels]
    rx, ry, rw, rh, col = cell_rects(colours)
    step = world.cell_size
    x0, y0 = xs[0] - step / 2, ys[0] - step / 2
    parts = [f'<g class="domains" transform="translate({_num(x0)},{_num(y0)}) '
             f'scale({step!r})" shape-rendering="crispEdges">']
    parts.extend(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#{c:06x}"/>'
                 for x, y, w, h, c in zip(rx.tolist(), ry.tolist(), rw.tolist(), rh.tolist(),
                                          col.tolist(), strict=True))
    parts.append("</g>")
    return "".join(parts)


def _mesh_layers(mesh: NavMesh, path: Points | None, start: ArrayLike | None,
                 goal: ArrayLike | None, corridor: ArrayLike | None
                 ) -> tuple[list[Layer], Box]:
    route = None if path is None or not len(path) else as_points(path, "path")
    extra = [as_points(p, n) for p, n in ((start, "start"), (goal, "goal")) if p is not None]
    pts = [mesh.vertices, mesh.link_points.reshape(-1, 2)] + \
        ([route] if route is not None else []) + extra
    allp = np.concatenate([p for p in pts if len(p)]) if any(len(p) for p in pts) \
        else np.zeros((1, 2))
    x0, y0 = allp.min(axis=0)
    x1, y1 = allp.max(axis=0)
    pad = 0.03 * max(x1 - x0, y1 - y0, 1.0)
    box = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)
    hot = set() if corridor is None else {int(c) for c in np.asarray(corridor).ravel()}
    polys = []
    for i in range(mesh.num_polygons):
        fill = WORLD_PALETTE["corridor"] if i in hot else \
            AREA_COLOURS[int(mesh.areas[i]) % len(AREA_COLOURS)]
        polys.append(f'<polygon class="polygon" points="{_pts(mesh.polygon(i))}" '
                     f'fill="{fill}"/>')
    body: list[Layer] = [f'<rect x="{_num(box[0])}" y="{_num(box[1])}" width="'
                       f'{_num(box[2] - box[0])}" height="{_num(box[3] - box[1])}" fill="'
                       f'{PALETTE["blocked"]}"/>', "".join(polys)]
    # Walls (no neighbour) solid, portals (shared edges, drawn once) dashed.
    k = np.arange(mesh.max_verts)
    valid = k[None, :] < mesh.sizes[:, None]
    nxt = np.take_along_axis(mesh.polygons, (k[None, :] + 1) % mesh.sizes[:, None], axis=1)
    pi, ki = np.nonzero(valid)
    a, b = mesh.vertices[mesh.polygons[pi, ki]], mesh.vertices[nxt[pi, ki]]
    other = mesh.neighbours[pi, ki]
    portal = (other >= 0) & (other > pi)
    wall = other < 0

    def segs(mask: np.ndarray) -> str:
        return " ".join(f"M{_num(p[0])},{_num(p[1])} L{_num(q[0])},{_num(q[1])}"
                        for p, q in zip(a[mask].tolist(), b[mask].tolist(), strict=True))

    wall_d, portal_d = segs(wall), segs(portal)
    body.append(lambda u: f'<path class="portals" fill="none" stroke="'
                          f'{WORLD_PALETTE["portal"]}" stroke-width="{_num(0.8 * u)}" '
                          f'stroke-dasharray="{_num(3 * u)} {_num(2 * u)}" d="{portal_d}"/>')
    body.append(lambda u: f'<path class="walls" fill="none" stroke="'
                          f'{WORLD_PALETTE["mesh_line"]}" stroke-width="{_num(1.2 * u)}" '
                          f'd="{wall_d}"/>')
    for i in range(len(mesh.links)):
        (sx, sy, ex, ey) = mesh.link_points[i].tolist()
        body.append(lambda u, sx=sx, sy=sy, ex=ex, ey=ey: (
            f'<line class="link" x1="{_num(sx)}" y1="{_num(sy)}" x2="{_num(ex)}" '
            f'y2="{_num(ey)}" stroke="{WORLD_PALETTE["link"]}" stroke-width="{_num(1.5 * u)}"'
            f' stroke-dasharray="{_num(4 * u)} {_num(2 * u)}"/><circle cx="{_num(ex)}" '
            f'cy="{_num(ey)}" r="{_num(3 * u)}" fill="{WORLD_PALETTE["link"]}"/>'))
    body.extend(_path_and_ends(route, extra, start, goal))
    return body, box


def _clearance_layers(mesh: ClearanceMesh, path: Points | None, radius: float,
                      start: ArrayLike | None, goal: ArrayLike | None,
                      corridor: ArrayLike | None) -> tuple[list[Layer], Box]:
    route = None if path is None or not len(path) else as_points(path, "path")
    extra = [as_points(p, n) for p, n in ((start, "start"), (goal, "goal")) if p is not None]
    allp = np.concatenate([mesh.vertices] + ([route] if route is not None else []) + extra)
    x0, y0 = allp.min(axis=0)
    x1, y1 = allp.max(axis=0)
    pad = 0.03 * max(x1 - x0, y1 - y0, 1.0)
    box = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)
    widest = mesh.clearance.max(axis=1)
    shade = _clearance_shade(widest, float(mesh.clearance.max(initial=0)))
    hot = set() if corridor is None else {int(c) for c in np.asarray(corridor).ravel()}
    tris = mesh.vertices[mesh.triangles]
    polys = []
    for i in range(mesh.num_triangles):
        red, green, blue = (int(c) for c in np.rint(shade[i]))
        fill = WORLD_PALETTE["corridor"] if i in hot else f"#{red:02x}{green:02x}{blue:02x}"
        polys.append(f'<polygon class="triangle" points="{_pts(tris[i])}" fill="{fill}"/>')
    walls = " ".join(f"M{_num(a[0])},{_num(a[1])} L{_num(b[0])},{_num(b[1])}" for a, b in
                     zip(mesh.vertices[mesh.walls[:, 0]].tolist(),
                         mesh.vertices[mesh.walls[:, 1]].tolist(), strict=True))
    body: list[Layer] = [f'<rect x="{_num(box[0])}" y="{_num(box[1])}" width="'
                       f'{_num(box[2] - box[0])}" height="{_num(box[3] - box[1])}" fill="'
                       f'{PALETTE["blocked"]}"/>', "".join(polys),
                       lambda u: f'<path class="edges" fill="none" stroke="'
                                 f'{WORLD_PALETTE["portal"]}" stroke-width="{_num(0.6 * u)}" '
                                 f'd="{_polygon_path(tris)}"/>',
                       lambda u: f'<path class="walls" fill="none" stroke="'
                                 f'{WORLD_PALETTE["mesh_line"]}" stroke-width="{_num(1.2 * u)}" '
                                 f'd="{walls}"/>']
    if route is not None and radius > 0:
        body.append(f'<polyline class="swept" points="{_pts(route)}" fill="none" stroke="'
                    f'{PALETTE["path"]}" stroke-opacity="0.25" stroke-width="{_num(2 * radius)}"'
                    ' stroke-linejoin="round" stroke-linecap="round"/>')
    body.extend(_path_and_ends(route, extra, start, goal))
    return body, box


def _clearance_shade(values: np.ndarray, top: float) -> np.ndarray:
    """``(n, 3)`` float RGB of clearances ``values`` out of ``top``: the heat ramp over
    ``sqrt(value / top)`` (narrow passages get more of it), paled so that the path stands
    out."""
    return 0.55 * _ramp(np.sqrt(values / max(top, 1e-300))) + 0.45 * 255


def _path_and_ends(route: np.ndarray | None, extra: list[np.ndarray], start: ArrayLike | None,
                   goal: ArrayLike | None) -> list[Layer]:
    out: list[Layer] = []
    if route is not None:
        out.append(lambda u: f'<polyline class="path" points="{_pts(route)}" fill="none" '
                             f'stroke="{PALETTE["path"]}" stroke-width="{_num(2.5 * u)}" '
                             'stroke-linejoin="round" stroke-linecap="round"/>')
    names = [k for k, p in (("start", start), ("goal", goal)) if p is not None]
    for key, pt in zip(names, extra, strict=True):
        x, y = pt[0].tolist()
        out.append(lambda u, key=key, x=x, y=y: f'<circle class="{key}" cx="{_num(x)}" '
                   f'cy="{_num(y)}" r="{_num(MARKER_PX * u)}" fill="{PALETTE[key]}" stroke="'
                   f'{PALETTE["outline"]}" stroke-width="{_num(MARKER_PX / 4 * u)}"/>'
                   f'<circle class="{key}-ring" cx="{_num(x)}" cy="{_num(y)}" '
                   f'r="{_num(1.15 * MARKER_PX * u)}" fill="none" stroke="{PALETTE["ring"]}" '
                   f'stroke-width="{_num(0.12 * MARKER_PX * u)}"/>')
    return out


def _hex_layers(world: HexGrid, path: Points | None, start: ArrayLike | None,
                goal: ArrayLike | None) -> tuple[list[Layer], Box]:
    h, w = world.shape
    rr, qq = np.mgrid[0:h, 0:w]
    cells = np.stack([qq.ravel(), rr.ravel()], axis=1)
    centres = world.localize(cells)
    angle0 = np.pi / 6 if world.layout == "pointy" else 0.0
    angles = angle0 + np.arange(6) * np.pi / 3
    corner = world.size * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    hexes = centres[:, None, :] + corner[None]
    lo, hi = hexes.reshape(-1, 2).min(axis=0), hexes.reshape(-1, 2).max(axis=0)
    pad = 0.02 * float((hi - lo).max())
    box = (lo[0] - pad, lo[1] - pad, hi[0] + pad, hi[1] + pad)
    costs = world.costs.ravel()
    finite = np.isfinite(costs)
    top = costs[finite].max() if finite.any() else 1.0
    body: list[Layer] = []
    groups: dict[str, list[int]] = {}
    for i in range(len(cells)):
        if not finite[i]:
            colour = PALETTE["blocked"]
        elif costs[i] <= world.min_cost or top <= world.min_cost:
            colour = WORLD_PALETTE["hex_free"]
        else:
            shade = 0.25 + 0.75 * (costs[i] - world.min_cost) / (top - world.min_cost)
            base = np.array([0xf4, 0xf3, 0xee])
            terrain = np.array([0x8c, 0x6a, 0x3f])
            c = (base + shade * (terrain - base)).astype(int)
            colour = f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"
        groups.setdefault(colour, []).append(i)
    for colour, members in groups.items():
        body.append(lambda u, colour=colour, members=members:
                    f'<path class="hexes" fill="{colour}" stroke="{WORLD_PALETTE["hex_line"]}" '
                    f'stroke-width="{_num(0.8 * u)}" d="{_polygon_path(hexes[members])}"/>')
    route = None
    if path is not None and len(path):
        route = world.localize(path)
    extra = [world.localize(world.cell(p, name=n)) for p, n in ((start, "start"),
                                                                  (goal, "goal"))
             if p is not None]
    body.extend(_path_and_ends(route, extra, start, goal))
    return body, box
