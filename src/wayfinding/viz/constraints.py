"""Pictures of constraint-aware navigation, seen from above (x right, y up): the multiplier
field of a :class:`~wayfinding.constraints.ConstraintSet` as a heat map over a grid or a
navigation mesh, its annotations outlined (attractors, repellers and hard ones apart, hard
ones hatched), paths over it, the same start and goal under several constraint sets side by
side (one scale for all), the frames of a repair as a GIF, and a multi-domain plan (the
coarse polygons, the waypoints, the grid legs and the space-time trajectory).  PNG and GIF
through Pillow (the ``[viz]`` extra).

The heat ramp is the library's (:data:`~wayfinding.viz.raster.PALETTE` ``"heat"``, light
to dark in :data:`~wayfinding.viz.raster.HEAT_LEVELS` bands): a pixel is darker where the
multiplier at its centre is higher, from 1 (the field's floor) to ``top``.

>>> from wayfinding.constraints import Constraint, ConstraintSet, Disc
>>> from wayfinding.grid import Grid
>>> field = ConstraintSet([Constraint(Disc((5, 3), 1.0), -4, near=True)])
>>> render_constraints_png(Grid.from_ascii('''
... ..........
... ..........
... ..........
... ..........
... ..........
... ..........'''), field, size=100)[:4]
b'\\x89PNG'
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import count, finite_float, finite_point, number, positive_float
from ..constraints import ConstraintSet
from ..errors import InvalidQueryError, brief
from ..graph.constrained import checked
from ..grid import Grid
from ..navmesh import NavMesh
from ..planning.multidomain import MultiDomainPlan, MultiDomainPlanner
from ..results import PathResult
from .planning import _title, _titled, _View, _world_box
from .raster import (
    GIF_PX,
    HEAT_LEVELS,
    PALETTE,
    TARGET_PX,
    _pillow,
    _ramp,
    _with_colour_bar,
    marker_radius,
    png_bytes,
    rgb,
    write_gif,
)

#: The colours of the pictures, ``#rrggbb``: the unwalkable rest of the world, the fill,
#: hatching and outline of hard constraints, the outlines of attractors (weight > 0) and
#: repellers (weight < 0), the paths (one colour per path, in order), the gap between
#: panels; for multi-domain plans the outline of Σ1's polygons, the fill of Σ2's, the grid
#: legs, the waypoints and the space-time trajectory.
COLOURS: dict[str, Any] = {
    "blocked": "#2e3038", "hard": "#d9d9d9", "hatch": "#6b6b6b", "hard_edge": "#111111",
    "attract": "#0b6e2e", "repel": "#f08c00",
    "paths": ("#d7263d", "#1f77b4", "#e377c2", "#8c564b"),
    "gap": "#ffffff", "static": "#08519c", "dynamic": "#c6dbef", "waypoint": "#111111",
    "spacetime": "#d7263d", "legs": "#f08c00",
}
#: Period and width of the hatching inside hard constraints, pixels.
HATCH_PERIOD, HATCH_WIDTH = 8, 2
#: Width of an annotation's outline, pixels (on each side of its border).
OUTLINE_PX = 1
#: Pixels between the panels of a side-by-side figure.
PANEL_GAP = 8
#: The colour bar's label.
BAR_LABEL = "cost multiplier"

#: A path as the pictures take it: a :class:`~wayfinding.results.PathResult` (its ``path``)
#: or an ``(n, 2)`` array; see :func:`render_constraints_png`.
Route = PathResult | ArrayLike
#: A panel or frame: ``(label, constraints, path)``.
Panel = tuple[str, ConstraintSet | None, Route | None]


def _world(world: object) -> Grid | NavMesh:
    if not isinstance(world, (Grid, NavMesh)):
        raise InvalidQueryError(f"world {brief(world)} must be a Grid or a NavMesh")
    return world


def _route(world: Grid | NavMesh, path: Route, name: str = "path") -> np.ndarray:
    """``path`` as ``(n, 2)`` float64 world points: a PathResult gives its ``path``; on a
    grid, integer ``(x, y)`` cells become their centres (the grid's ``origin`` and
    ``cell_size``), floats are world points already."""
    arr = path.path if isinstance(path, PathResult) else path
    try:
        pts = np.asarray(arr)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"{name} {brief(path)} is not an array of points") from None
    if pts.size == 0:
        return np.empty((0, 2))
    if pts.ndim != 2 or pts.shape[1] != 2 or pts.dtype == bool \
            or not np.issubdtype(pts.dtype, np.number):
        raise InvalidQueryError(f"{name} must be an (n, 2) array of points, got "
                                f"{brief(path)}")
    if isinstance(world, Grid) and np.issubdtype(pts.dtype, np.integer):
        return np.asarray(world.origin) + (pts + 0.5) * world.cell_size
    out = pts.astype(np.float64)
    if not np.isfinite(out).all():
        raise InvalidQueryError(f"{name} holds a NaN or infinite coordinate")
    return out


class _Field:
    """The multiplier field of one world on one view: pixel centres, the walkable ones and
    the rasterised annotations."""

    def __init__(self, world: Grid | NavMesh, size: int) -> None:
        box = _world_box(world)
        self.world = world
        self.view = _View(box[0], box[1], size, 0.0)
        v = self.view
        self.xs = v.lo[0] + (np.arange(v.width) + 0.5) / v.scale
        self.ys = v.hi[1] - (np.arange(v.height) + 0.5) / v.scale
        gx, gy = np.meshgrid(self.xs, self.ys)
        self.points = np.stack([gx.ravel(), gy.ravel()], axis=1)
        self.walkable = self._walkable()

    def _walkable(self) -> np.ndarray:
        """``(H, W)`` bool: the pixels whose centre is walkable."""
        v, world = self.view, self.world
        if isinstance(world, Grid):
            cells, inside = world.world_to_cells(self.points)
            ok = inside & world.passable[cells[:, 1], cells[:, 0]]
            return ok.reshape(v.height, v.width)
        Image, ImageDraw, _ = _pillow()
        mask = Image.new("L", (v.width, v.height), 0)
        draw = ImageDraw.Draw(mask)
        for i in range(world.num_polygons):
            draw.polygon(self._px(world.polygon(i)[:, :2]), fill=1, outline=1)
        return np.asarray(mask, dtype=bool)

    def _px(self, points: ArrayLike) -> list[tuple[float, float]]:
        """World points to pixel coordinates (pixel centres at half integers)."""
        return [(x - 0.5, y - 0.5) for x, y in self.view.px(points)]

    def multiplier(self, constraints: ConstraintSet | None, t: float) -> np.ndarray:
        """``(H, W)`` float64: the multiplier at each walkable pixel's centre (inf inside a
        hard constraint), NaN elsewhere."""
        out = np.full(self.walkable.shape, np.nan)
        if constraints is None:
            out[self.walkable] = 1.0
        else:
            out[self.walkable] = constraints.multiplier(self.points[self.walkable.ravel()], t=t)
        return out

    def inside(self, annotation: Any) -> np.ndarray:
        """``(H, W)`` bool: the pixels whose centre ``annotation`` holds (tested only within
        its bounds)."""
        v = self.view
        x0, y0, x1, y1 = annotation.bounds
        i = np.flatnonzero((self.xs >= x0) & (self.xs <= x1))
        j = np.flatnonzero((self.ys >= y0) & (self.ys <= y1))
        out = np.zeros((v.height, v.width), dtype=bool)
        if len(i) and len(j):
            block = self.points.reshape(v.height, v.width, 2)[j[0]:j[-1] + 1, i[0]:i[-1] + 1]
            out[j[0]:j[-1] + 1, i[0]:i[-1] + 1] = annotation.contains(
                block.reshape(-1, 2)).reshape(block.shape[:2])
        return out


def _top(fields: list[np.ndarray]) -> float:
    """The largest finite multiplier of ``fields`` (1 when there is none above 1)."""
    finite = [f[np.isfinite(f)] for f in fields]
    return max([1.0] + [float(f.max()) for f in finite if f.size])


def _border(mask: np.ndarray) -> np.ndarray:
    """``(H, W)`` bool: the pixels within :data:`OUTLINE_PX` of a change of ``mask``."""
    edge = np.zeros_like(mask)
    edge[:, 1:] |= mask[:, 1:] != mask[:, :-1]
    edge[:, :-1] |= mask[:, 1:] != mask[:, :-1]
    edge[1:] |= mask[1:] != mask[:-1]
    edge[:-1] |= mask[1:] != mask[:-1]
    for _ in range(OUTLINE_PX - 1):
        grown = edge.copy()
        grown[1:] |= edge[:-1]
        grown[:-1] |= edge[1:]
        grown[:, 1:] |= edge[:, :-1]
        grown[:, :-1] |= edge[:, 1:]
        edge = grown
    return edge


def multiplier_colours(values: np.ndarray, top: float) -> np.ndarray:
    """``(..., 3)`` uint8: the heat colour of each multiplier in ``values`` (finite, >= 1)
    on the ramp from 1 to ``top``, banded in :data:`~wayfinding.viz.raster.HEAT_LEVELS`
    levels (values above ``top`` get its colour)."""
    span = top - 1.0
    t = np.clip((values - 1.0) / span, 0.0, 1.0) if span > 0 else np.zeros_like(values)
    t = np.floor(t * (HEAT_LEVELS - 1) + 0.5) / (HEAT_LEVELS - 1)
    return np.clip(np.rint(_ramp(t)), 0, 255).astype(np.uint8)


def _paint(field: _Field, m: np.ndarray, constraints: ConstraintSet | None, t: float,
           top: float, paths: Sequence[np.ndarray], start: np.ndarray | None,
           goal: np.ndarray | None) -> Any:
    """The picture of one field ``m`` with its annotations, ``paths`` and end points."""
    Image, ImageDraw, _ = _pillow()
    v = field.view
    img = np.empty((v.height, v.width, 3), dtype=np.uint8)
    img[...] = rgb(COLOURS["blocked"])
    finite = np.isfinite(m)
    img[finite] = multiplier_colours(m[finite], top)
    hard = np.isinf(m)
    jj, ii = np.nonzero(hard)
    img[jj, ii] = rgb(COLOURS["hard"])
    stripe = (ii + jj) % HATCH_PERIOD < HATCH_WIDTH
    img[jj[stripe], ii[stripe]] = rgb(COLOURS["hatch"])
    for c in constraints or ():
        if c.is_hard:
            colour = COLOURS["hard_edge"]
        else:
            w = c.weight_at(t)
            if w == 0:
                continue
            colour = COLOURS["attract" if w > 0 else "repel"]
        img[_border(field.inside(c.annotation))] = rgb(colour)
    out = Image.fromarray(np.ascontiguousarray(img), "RGB")
    draw = ImageDraw.Draw(out)
    width = max(2, round(max(v.width, v.height) / 160))
    palette = COLOURS["paths"]
    for k, pts in enumerate(paths):
        if len(pts) > 1:
            draw.line(field._px(pts), fill=rgb(palette[k % len(palette)]), width=width,
                      joint="curve")
    radius = marker_radius(v.width, v.height, 0.0)
    edge = max(1, round(radius / 5))
    for point, key in ((start, "start"), (goal, "goal")):
        if point is not None:
            (cx, cy), = field._px(point[None])
            outer = radius + edge
            draw.ellipse((cx - outer, cy - outer, cx + outer, cy + outer),
                         fill=rgb(PALETTE["ring"]))
            draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius),
                         fill=rgb(PALETTE[key]), outline=rgb(PALETTE["outline"]), width=edge)
    return out


def _listed(values: Any, name: str, what: str) -> list[Any]:
    """``values`` (an iterable) as a list; anything else raises
    :class:`~wayfinding.errors.InvalidQueryError`."""
    if isinstance(values, (str, bytes)):
        raise InvalidQueryError(f"{name} {brief(values)} must be a sequence of {what}")
    try:
        return list(values)
    except TypeError:
        raise InvalidQueryError(f"{name} {brief(values)} must be a sequence of {what}") \
            from None


def _ends(start: ArrayLike | None, goal: ArrayLike | None
          ) -> tuple[np.ndarray | None, np.ndarray | None]:
    return (None if start is None else finite_point("start", start),
            None if goal is None else finite_point("goal", goal))


def _top_option(top: float | None, fields: list[np.ndarray]) -> float:
    """``top`` checked (a finite multiplier >= 1), or the largest one of ``fields``."""
    return _top(fields) if top is None else number("top", top, min=1.0)


def render_constraints_png(world: Grid | NavMesh, constraints: ConstraintSet | None, *,
                           paths: Sequence[Route] = (), start: ArrayLike | None = None,
                           goal: ArrayLike | None = None, t: float = 0.0,
                           size: int = TARGET_PX, top: float | None = None,
                           title: str | None = None, colour_bar: bool = True) -> bytes:
    """The multiplier field of ``constraints`` (a
    :class:`~wayfinding.constraints.ConstraintSet`, or None: 1 everywhere) at time ``t``
    over ``world`` (a :class:`~wayfinding.grid.Grid` or a
    :class:`~wayfinding.navmesh.NavMesh`) as PNG bytes ``size`` pixels along the longer
    side (>= 64; y up, the world's bounds filling the picture).

    Each walkable pixel (its centre in a passable cell, or on a polygon) is coloured by the
    multiplier at its centre on the heat ramp from 1 to ``top`` (default: the largest
    finite multiplier drawn), the rest ``COLOURS["blocked"]``; pixels inside a hard
    constraint are ``COLOURS["hard"]`` hatched with ``COLOURS["hatch"]``.  Each annotation
    is outlined (its border, as its ``contains`` gives it at pixel centres): hard ones in
    ``COLOURS["hard_edge"]``, attractors in ``["attract"]``, repellers in ``["repel"]``.
    ``paths`` (PathResults or ``(n, 2)`` arrays: world points, or on a grid integer cells
    drawn through their centres) are lines in ``COLOURS["paths"]`` by order; ``start`` and
    ``goal`` (world points) discs in the palette's start and goal colours.  With
    ``colour_bar`` a strip under the picture gives the ramp from 1 to ``top``; ``title`` is
    written in a band above it and stored as the PNG ``Title`` text chunk.

    Raises :class:`~wayfinding.errors.InvalidQueryError` for a bad argument,
    :class:`ImportError` when Pillow is missing."""
    world = _world(world)
    field = checked(constraints)
    t = finite_float("t", t)
    size = count("size", size, min=64)
    title = _title(title)
    routes = [_route(world, p, f"paths[{k}]")
              for k, p in enumerate(_listed(paths, "paths", "paths"))]
    a, b = _ends(start, goal)
    grid = _Field(world, size)
    m = grid.multiplier(field, t)
    hi = _top_option(top, [m])
    img = _paint(grid, m, field, t, hi, routes, a, b)
    if colour_bar:
        img = _with_colour_bar(img, (1.0, hi), BAR_LABEL)
    return png_bytes(_titled(img, title), title=title)


def _panel_title(label: str, path: Route | None) -> str:
    """A panel's title: its label, with the path's cost when it is a PathResult."""
    if not isinstance(label, str):
        raise InvalidQueryError(f"a panel's label {brief(label)} must be a string")
    if isinstance(path, PathResult):
        return f"{label}: cost {path.cost:.2f}" if path.found else f"{label}: no path"
    return label


def _panels(world: Grid | NavMesh, panels: Sequence[Panel], start: ArrayLike | None,
            goal: ArrayLike | None, t: float, size: int, top: float | None
            ) -> tuple[list[Any], float]:
    """The titled pictures of ``panels`` on one scale, and that scale's top."""
    world = _world(world)
    items = _listed(panels, "panels", "(label, constraints, path) panels")
    if not items:
        raise InvalidQueryError("panels holds no (label, constraints, path) panel")
    t = finite_float("t", t)
    size = count("size", size, min=64)
    a, b = _ends(start, goal)
    parsed = []
    for k, item in enumerate(items):
        if not isinstance(item, tuple) or len(item) != 3:
            raise InvalidQueryError(f"panels[{k}] {brief(item)} is not a (label, "
                                    "constraints, path) tuple")
        label, cs, path = item
        routes = [] if path is None else [_route(world, path, f"panels[{k}] path")]
        parsed.append((_panel_title(label, path), checked(cs), routes))
    grid = _Field(world, size)
    fields = [grid.multiplier(cs, t) for _, cs, _ in parsed]
    hi = _top_option(top, fields)
    return [_titled(_paint(grid, m, cs, t, hi, routes, a, b), title)
            for (title, cs, routes), m in zip(parsed, fields)], hi


def render_constraint_panels(world: Grid | NavMesh, panels: Sequence[Panel], *,
                             start: ArrayLike | None = None, goal: ArrayLike | None = None,
                             t: float = 0.0, size: int = 400, columns: int | None = None,
                             top: float | None = None, title: str | None = None) -> bytes:
    """The same world under several constraint sets side by side, as PNG bytes: each of
    ``panels`` is a ``(label, constraints, path)`` tuple drawn as
    :func:`render_constraints_png` draws one (``size`` pixels along its longer side,
    ``path`` a PathResult, an ``(n, 2)`` array or None), titled with its label and, when
    ``path`` is a :class:`~wayfinding.results.PathResult`, its cost ("no path" when it
    found none).  All panels share one heat scale, from 1 to ``top`` (default: the largest
    finite multiplier in any of them), given by one colour bar under the figure.  Panels
    run ``columns`` to a row (default: two, or one panel alone), :data:`PANEL_GAP` pixels
    apart; ``title`` is stored as the PNG ``Title`` text chunk."""
    pictures, hi = _panels(world, panels, start, goal, t, size, top)
    cols = min(2, len(pictures)) if columns is None else count("columns", columns)
    title = _title(title)
    Image, _, _ = _pillow()
    w, h = pictures[0].size
    rows = math.ceil(len(pictures) / cols)
    cols = min(cols, len(pictures))
    sheet = Image.new("RGB", (cols * w + (cols - 1) * PANEL_GAP,
                              rows * h + (rows - 1) * PANEL_GAP), rgb(COLOURS["gap"]))
    for k, pic in enumerate(pictures):
        sheet.paste(pic, ((k % cols) * (w + PANEL_GAP), (k // cols) * (h + PANEL_GAP)))
    return png_bytes(_with_colour_bar(sheet, (1.0, hi), BAR_LABEL), title=title)


def animate_constraints(picture_path: str | os.PathLike, world: Grid | NavMesh,
                        frames: Sequence[Panel], *, start: ArrayLike | None = None,
                        goal: ArrayLike | None = None, t: float = 0.0, size: int = GIF_PX,
                        fps: float = 2.0, top: float | None = None) -> Path:
    """Write ``frames`` (``(label, constraints, path)`` tuples, drawn and titled as the
    panels of :func:`render_constraint_panels`, on one heat scale) as a looping GIF
    ``size`` pixels along the longer side of the world at ``fps`` frames a second, through
    a temporary file and a rename; returns its path.  The picture path must end in
    ``.gif``."""
    target = Path(picture_path)
    if target.suffix.lower() != ".gif":
        raise InvalidQueryError(f"animations are GIF files, not {str(target)!r}")
    fps = positive_float("fps", fps)
    pictures, _ = _panels(world, frames, start, goal, t, size, top)
    Image, _, _ = _pillow()
    return write_gif(target, [p.convert("P", palette=Image.Palette.ADAPTIVE, colors=255)
                              for p in pictures], fps)


def render_multidomain_png(planner: MultiDomainPlanner, *, plan: MultiDomainPlan | None = None,
                           size: int = TARGET_PX, title: str | None = None) -> bytes:
    """A multi-domain ``plan`` (default: the ``planner``'s current
    :meth:`~wayfinding.planning.MultiDomainPlanner.result`) as PNG bytes ``size`` pixels
    along the longer side (>= 64, y up): the grid Σ3's blocked cells, the mesh's polygons
    (outlined thin), those of Π(Σ2) filled ``COLOURS["dynamic"]`` and those of Π(Σ1)
    outlined boldly in ``["static"]``, the grid legs joined (``["legs"]``), the waypoints as squares
    (``["waypoint"]``), the space-time trajectory of the imminent leg as dots at each step's
    cell (``["spacetime"]``), and the agent and goal as discs; ``title`` as for
    :func:`render_constraints_png`."""
    if not isinstance(planner, MultiDomainPlanner):
        raise InvalidQueryError(f"planner {brief(planner)} is not a MultiDomainPlanner")
    result = planner.result() if plan is None else plan
    if not isinstance(result, MultiDomainPlan):
        raise InvalidQueryError(f"plan {brief(plan)} is not a MultiDomainPlan")
    size = count("size", size, min=64)
    title = _title(title)
    mesh, grid = planner.static.mesh, planner.grid
    field = _Field(grid.walls, size)
    Image, ImageDraw, _ = _pillow()
    v = field.view
    img = np.empty((v.height, v.width, 3), dtype=np.uint8)
    img[...] = rgb(COLOURS["blocked"])
    img[field.walkable] = rgb(PALETTE["free"])
    out = Image.fromarray(img, "RGB")
    draw = ImageDraw.Draw(out)
    width = max(2, round(max(v.width, v.height) / 160))
    dynamic = set(result.dynamic.tolist())
    for i in range(mesh.num_polygons):
        draw.polygon(field._px(mesh.polygon(i)[:, :2]), outline=rgb(PALETTE["blocked"]),
                     fill=rgb(COLOURS["dynamic"]) if i in dynamic else None)
    for i in result.static.tolist():
        draw.polygon(field._px(mesh.polygon(i)[:, :2]), outline=rgb(COLOURS["static"]),
                     width=width)
    if len(result.path) > 1:
        draw.line(field._px(result.path), fill=rgb(COLOURS["legs"]), width=width,
                  joint="curve")
    r = max(2.0, width * 1.5)
    if len(result.spacetime):
        for x, y in field._px(grid.positions(result.spacetime[:, :2])):
            draw.ellipse((x - r, y - r, x + r, y + r), fill=rgb(COLOURS["spacetime"]))
    if len(result.waypoints):
        for x, y in field._px(grid.positions(result.waypoints)):
            draw.rectangle((x - r, y - r, x + r, y + r), outline=rgb(COLOURS["waypoint"]),
                           width=max(1, width // 2))
    radius = marker_radius(v.width, v.height, 0.0)
    for point, key in ((planner.position, "start"),
                       (grid.position(planner.goal_cell), "goal")):
        (cx, cy), = field._px(np.asarray(point, dtype=np.float64)[None])
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius),
                     fill=rgb(PALETTE[key]), outline=rgb(PALETTE["outline"]))
    return png_bytes(_titled(out, title), title=title)
