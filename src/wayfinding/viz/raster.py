"""Per-cell colours shared by both renderers, and PNG output through Pillow.

:func:`cell_colours` turns a grid and its overlays into an ``(H, W, 3)`` uint8 picture, one
pixel per cell; :func:`render_png` scales it up and draws the path and endpoints on top.
:mod:`wayfinding.viz.svg` run-length encodes the same picture, so both outputs agree.
Pillow (the ``[viz]`` extra) is imported only when a PNG is made.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._io import atomic_write_bytes
from .._validate import flag
from ..errors import InvalidQueryError
from ..grid import Grid
from ..results import PathResult

#: Every colour the renderers use, as ``#rrggbb``.  ``terrain`` is the colour of the costliest
#: terrain (cheaper terrain is blended towards ``free``); ``heat`` is the distance ramp from
#: near to far; ``outline`` and ``ring`` are the light and dark edges of the start and goal
#: discs (so that they show on any colour); ``explored_mark`` and ``frontier_mark`` fill the
#: marks of sparse explored and frontier cells; ``bar`` and ``text`` are the colour bar's
#: background and lettering.
PALETTE: dict[str, Any] = {
    "free": "#f4f3ee",
    "blocked": "#2e3038",
    "terrain": "#8c6a3f",
    "explored": "#8fb8e8",
    "frontier": "#f2b45a",
    "path": "#d7263d",
    "start": "#1b9e4b",
    "goal": "#7b2cbf",
    "outline": "#ffffff",
    "ring": "#1a1a1a",
    "explored_mark": "#1f5fa8",
    "frontier_mark": "#d9822b",
    "bar": "#ffffff",
    "text": "#222222",
    "heat": ("#fde725", "#5ec962", "#21918c", "#3b528b", "#440154"),
}

#: Cells or a path as the renderers take them: an ``(n, 2)`` ``(x, y)`` array-like, or a
#: :class:`~wayfinding.results.PathResult` (its ``path``, ``expanded_nodes`` or ``open_nodes``).
Cells = PathResult | ArrayLike

#: How strongly explored/frontier cells are tinted (0 = not at all, 1 = solid colour).
TINT = 0.55
#: Lightest shade given to terrain just above cost 1, as a fraction of ``PALETTE["terrain"]``.
TERRAIN_MIN_SHADE = 0.25
#: Distinct colours of the distance heat map: banding that reads like contour lines and keeps
#: the SVG's runs long.
HEAT_LEVELS = 48
#: Smallest path width and endpoint-disc radius, in pixels (both renderers).
MIN_STROKE_PX = 2.0
MIN_RADIUS_PX = 4.0
#: Longer side of a picture in pixels when no cell size is given.
TARGET_PX = 800
#: Radius of the start and goal discs as a fraction of the picture's longer side: they keep
#: the same size on the picture whatever the map's size (never below :data:`MIN_RADIUS_PX`
#: or 0.4 of a cell).
MARKER_FRACTION = 0.012
#: Radius of a mark on a sparse explored or frontier cell, as a fraction of the picture's
#: longer side (never below :data:`MIN_MARK_PX` or 0.45 of a cell).
MARK_FRACTION = 0.004
MIN_MARK_PX = 2.5
#: Width in pixels of every animation when no size is given: the GIFs of a page line up.
GIF_PX = 560
#: Least height of an animation as a fraction of its width: a long, thin scene is centred
#: on a canvas this tall rather than drawn as a sliver.
MIN_GIF_ASPECT = 1 / 3
#: Colour bar under a heat map: the bar's height and the lettering's size as fractions of the
#: picture's longer side (at least 8 and 10 pixels).
BAR_FRACTION = 0.02
FONT_FRACTION = 0.018


def rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` -> ``(r, g, b)`` ints in 0..255."""
    h = colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


# ---------------------------------------------------------------------- input checks
def route_points(value: Cells, grid: Grid) -> np.ndarray:
    """A path as ``(n, 2)`` float positions in cell units: cells (integers) become their
    centres; a polyline (floats, as any-angle paths give) is kept, and must lie on the
    grid."""
    arr = value.path if isinstance(value, PathResult) else value
    try:
        arr = np.asarray(arr)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"path {value!r} is not an array of points") from None
    if arr.size and arr.ndim == 2 and arr.shape[1] == 2 and np.issubdtype(arr.dtype,
                                                                          np.floating):
        if not np.isfinite(arr).all() or (arr < 0).any() or (arr[:, 0] > grid.width).any() \
                or (arr[:, 1] > grid.height).any():
            raise InvalidQueryError("path points must lie on the grid (0 <= x <= width, "
                                    "0 <= y <= height)")
        return arr.astype(np.float64)
    return as_cells(value, grid, "path") + 0.5


@positional_options("attr")
def as_cells(value: Cells, grid: Grid, name: str, *, attr: str = "path") -> np.ndarray:
    """Validate ``value`` as ``(n, 2)`` ``(x, y)`` cells inside ``grid``; a
    :class:`~wayfinding.results.PathResult` gives its ``attr`` (``path``, ``expanded_nodes``
    or ``open_nodes``).  Returns an ``(n, 2)`` int64 array (``n`` may be 0)."""
    if isinstance(value, PathResult):
        value = getattr(value, attr)
        if value is None:
            raise InvalidQueryError(
                f"{name}: the PathResult has no {attr}; run the search with record=True")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"{name} {value!r} is not an array of (x, y) cells") from None
    if arr.size == 0 and arr.ndim <= 2:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidQueryError(
            f"{name} must be an (n, 2) array of (x, y) cells, got shape {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidQueryError(f"{name} must hold integer cells, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    outside = (arr[:, 0] < 0) | (arr[:, 0] >= grid.width) | (arr[:, 1] < 0) \
        | (arr[:, 1] >= grid.height)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise InvalidQueryError(
            f"{name}[{i}] = {tuple(arr[i].tolist())} is outside the "
            f"{grid.width}x{grid.height} grid")
    return arr


def as_distances(value: ArrayLike, grid: Grid) -> np.ndarray:
    """Validate a distance map: ``(H, W)`` numbers matching the grid, no NaN."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidQueryError("distances must be an (H, W) array of numbers") from None
    if arr.shape != grid.shape:
        raise InvalidQueryError(
            f"distances has shape {arr.shape}, expected the grid's shape {grid.shape} (H, W)")
    if np.isnan(arr).any():
        y, x = np.argwhere(np.isnan(arr))[0]
        raise InvalidQueryError(f"distances at (x={x}, y={y}) is NaN")
    return arr


def as_grid(grid: object) -> Grid:
    if not isinstance(grid, Grid):
        raise InvalidQueryError(f"expected a wayfinding.grid.Grid, got {type(grid).__name__}")
    return grid


def optional_cell(value: ArrayLike | None, grid: Grid, name: str) -> tuple[int, int] | None:
    return None if value is None else grid.cell(value, name=name)


def marker_radius(width_px: float, height_px: float, cell_px: float) -> float:
    """Radius in pixels of the start and goal discs on a picture ``width_px`` x
    ``height_px`` with cells ``cell_px`` wide: :data:`MARKER_FRACTION` of the longer side,
    at least :data:`MIN_RADIUS_PX` and 0.4 of a cell."""
    return max(MIN_RADIUS_PX, 0.4 * cell_px, MARKER_FRACTION * max(width_px, height_px))


def mark_radius(width_px: float, height_px: float, cell_px: float) -> float:
    """Radius in pixels of the mark drawn on a sparse explored or frontier cell."""
    return max(MIN_MARK_PX, 0.45 * cell_px, MARK_FRACTION * max(width_px, height_px))


def is_sparse(cells: np.ndarray) -> bool:
    """Whether fewer than half of ``cells`` (``(n, 2)`` ``(x, y)``) have another of them as
    a side neighbour: the scattered jump points, subgoals or landmarks that preprocessed and
    pruning searches expand, as opposed to the solid regions of A* or Dijkstra."""
    if not len(cells):
        return False
    x, y = cells[:, 0] + 1, cells[:, 1] + 1
    stride = int(x.max()) + 2
    code = np.unique(y * stride + x)
    touching = np.zeros(len(code), dtype=bool)
    for step in (1, -1, stride, -stride):
        touching |= np.isin(code + step, code)
    return bool(touching.mean() < 0.5)


def wants_marks(cells: np.ndarray | None, marks: bool | None) -> bool:
    """Whether ``cells`` are drawn as marks: ``marks`` when given, else when sparse."""
    if cells is None or not len(cells):
        return False
    if marks is None:
        return is_sparse(cells)
    if not isinstance(marks, (bool, np.bool_)):
        raise InvalidQueryError(f"marks {marks!r} must be True, False or None")
    return bool(marks)


def heat_range(grid: Grid, distances: np.ndarray | None) -> tuple[float, float] | None:
    """The least and greatest finite ``distances`` on passable cells (the ends of the heat
    ramp), or None when there are none."""
    if distances is None:
        return None
    mask = grid.passable & np.isfinite(distances)
    if not mask.any():
        return None
    vals = distances[mask]
    return float(vals.min()), float(vals.max())


def bar_layout(width_px: float, height_px: float) -> dict[str, float]:
    """Where a colour bar goes under a picture ``width_px`` x ``height_px``, in pixels:
    ``pad`` (margins), ``bar`` (the bar's height), ``font`` (the lettering's size) and
    ``extra`` (the height the bar's strip adds below the picture)."""
    longer = max(width_px, height_px)
    font = max(10.0, round(FONT_FRACTION * longer))
    bar = max(8.0, round(BAR_FRACTION * longer))
    pad = round(font / 2)
    return {"pad": pad, "bar": bar, "font": font, "extra": 3 * pad + bar + font + pad / 2}


def bar_colours(n: int) -> np.ndarray:
    """``(n, 3)`` uint8: the heat ramp from near (left) to far (right) in ``n`` steps,
    banded in :data:`HEAT_LEVELS` levels as the heat map is."""
    t = np.linspace(0.0, 1.0, max(n, 1))
    t = np.floor(t * (HEAT_LEVELS - 1) + 0.5) / (HEAT_LEVELS - 1)
    return np.clip(np.rint(_ramp(t)), 0, 255).astype(np.uint8)


def value_text(value: float) -> str:
    """A value at one end of a colour bar: four significant digits."""
    return f"{value:.4g}"


def check_label(heat_label: object) -> str:
    if not isinstance(heat_label, str):
        raise InvalidQueryError(f"heat_label {heat_label!r} must be a string")
    return heat_label


# ---------------------------------------------------------------------- colours
def _blend(base: np.ndarray, colour: str, amount: np.ndarray | float) -> np.ndarray:
    """``base`` (float RGB, ``(..., 3)``) moved ``amount`` of the way towards ``colour``."""
    target = np.asarray(rgb(colour), dtype=np.float64)
    a = np.asarray(amount, dtype=np.float64)
    if a.ndim:
        a = a[..., None]
    return base + (target - base) * a


def _ramp(t: np.ndarray) -> np.ndarray:
    """Heat colours for ``t`` in [0, 1] (0 = near): ``(n, 3)`` float RGB."""
    stops = np.array([rgb(c) for c in PALETTE["heat"]], dtype=np.float64)
    xs = np.linspace(0.0, 1.0, len(stops))
    return np.stack([np.interp(t, xs, stops[:, k]) for k in range(3)], axis=-1)


def cell_colours(grid: Grid, *, explored: Cells | None = None, frontier: Cells | None = None,
                 distances: ArrayLike | None = None) -> np.ndarray:
    """The picture of a grid, one pixel per cell: ``(H, W, 3)`` uint8 RGB indexed ``[y, x]``.

    Layers, bottom to top: blocked cells ``PALETTE["blocked"]``, passable cells
    ``PALETTE["free"]``, cells costing more than 1 shaded towards ``PALETTE["terrain"]`` (on a
    log scale, the costliest cell fully), the finite entries of ``distances`` (an ``(H, W)``
    map, e.g. from :func:`~wayfinding.grid.distance_map`) on passable cells as a heat ramp
    from its minimum (``PALETTE["heat"][0]``) to its maximum in :data:`HEAT_LEVELS` steps,
    then ``explored`` and ``frontier`` cells (``(n, 2)`` ``(x, y)`` arrays, or a PathResult's
    ``expanded_nodes`` / ``open_nodes``) tinted towards their colours.  ``inf`` distances
    leave the cell plain.
    """
    grid = as_grid(grid)
    exp = None if explored is None else as_cells(explored, grid, "explored", attr="expanded_nodes")
    fro = None if frontier is None else as_cells(frontier, grid, "frontier", attr="open_nodes")
    dist = None if distances is None else as_distances(distances, grid)

    passable = grid.passable
    img = np.empty(grid.shape + (3,), dtype=np.float64)
    img[...] = rgb(PALETTE["blocked"])
    img[passable] = rgb(PALETTE["free"])

    if not grid.is_uniform:
        costs = grid.costs
        dear = passable & (costs > 1.0)
        if dear.any():
            top = math.log(float(costs[dear].max()))
            t = np.log(costs[dear]) / top
            shade = TERRAIN_MIN_SHADE + (1.0 - TERRAIN_MIN_SHADE) * t
            img[dear] = _blend(img[dear], PALETTE["terrain"], shade)

    if dist is not None:
        mask = passable & np.isfinite(dist)
        if mask.any():
            vals = dist[mask]
            lo, hi = float(vals.min()), float(vals.max())
            t = (vals - lo) / (hi - lo) if hi > lo else np.zeros_like(vals)
            t = np.floor(t * (HEAT_LEVELS - 1) + 0.5) / (HEAT_LEVELS - 1)
            img[mask] = _ramp(t)

    for cells, key in ((exp, "explored"), (fro, "frontier")):
        if cells is not None and len(cells):
            ys, xs = cells[:, 1], cells[:, 0]
            img[ys, xs] = _blend(img[ys, xs], PALETTE[key], TINT)

    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------- PNG
def _pillow() -> tuple[ModuleType, ModuleType, ModuleType]:
    try:
        from PIL import Image, ImageDraw, PngImagePlugin
    except ImportError as exc:
        raise ImportError("render_png needs Pillow: pip install 'wayfinding[viz]'") from exc
    return Image, ImageDraw, PngImagePlugin


def png_bytes(img: Any, *, title: str | None = None) -> bytes:
    """A Pillow image encoded as PNG bytes, with ``title`` as its ``Title`` text chunk when
    given."""
    _, _, PngImagePlugin = _pillow()
    info = None
    if title:
        info = PngImagePlugin.PngInfo()
        info.add_text("Title", title)
    buf = io.BytesIO()
    img.save(buf, format="PNG", pnginfo=info)
    return buf.getvalue()


def gif_canvas(span_x: float, span_y: float, size: int) -> tuple[int, int, float, float,
                                                                   float]:
    """The canvas of an animation of a scene ``span_x`` x ``span_y`` (world units) at
    ``size``: ``(width, height, scale, dx, dy)``.  The scene is scaled by ``scale`` pixels
    a world unit to fill ``size`` pixels along its longer side; the canvas is ``size``
    pixels wide and between ``size`` * :data:`MIN_GIF_ASPECT` and ``size`` pixels tall, and
    the scene is centred on it, offset by ``(dx, dy)`` pixels."""
    span_x, span_y = max(float(span_x), 1e-9), max(float(span_y), 1e-9)
    scale = size / max(span_x, span_y)
    width = size
    height = int(min(size, max(math.ceil(span_y * scale), math.ceil(size * MIN_GIF_ASPECT))))
    return width, height, scale, (width - span_x * scale) / 2, (height - span_y * scale) / 2


def write_gif(target: str | os.PathLike, images: list[Any], fps: float) -> Path:
    """Write Pillow ``images`` (palette mode, all of one size) to ``target`` as a looping
    GIF at ``fps`` frames a second, through a temporary file and a rename."""
    if not images:
        raise InvalidQueryError("agents has no frames")
    sizes = {im.size for im in images}
    if len(sizes) != 1:
        raise InvalidQueryError(f"the frames of a GIF must share one size, got {sorted(sizes)}")
    buf = io.BytesIO()
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:],
                   duration=max(20, round(1000 / fps)), loop=0)
    return atomic_write_bytes(target, buf.getvalue())


def auto_scale(grid: Grid) -> int:
    """Whole pixels per cell making the longer side about :data:`TARGET_PX` (at least 1)."""
    return max(1, round(TARGET_PX / max(grid.width, grid.height)))


def render_png(grid: Grid, *, path: Cells | None = None, explored: Cells | None = None,
               frontier: Cells | None = None, distances: ArrayLike | None = None,
               start: ArrayLike | None = None, goal: ArrayLike | None = None,
               scale: int | None = None, title: str | None = None,
               marks: bool | None = None, colour_bar: bool = True,
               heat_label: str = "cost") -> bytes:
    """Draw a grid as PNG bytes; needs Pillow (``pip install 'wayfinding[viz]'``).

    Cells are ``scale`` x ``scale`` pixel blocks (an int >= 1; default: the longer side about
    800 px), so the map is ``(W * scale) x (H * scale)`` pixels and cell ``(x, y)`` covers
    pixels ``[x*scale, (x+1)*scale)`` across and ``[y*scale, (y+1)*scale)`` down.  Colours as
    :func:`cell_colours`; ``path`` (``(n, 2)`` ``(x, y)`` cells or a PathResult) is a line
    through cell centres (or, for a float polyline in cell units, through its points) in
    ``PALETTE["path"]``; ``start`` and ``goal`` (``(x, y)`` cells) are discs with a light and
    a dark edge, :data:`MARKER_FRACTION` of the picture's longer side in radius.
    Explored and frontier cells are tinted; with ``marks`` (default: when they are sparse,
    see :func:`is_sparse`, as the jump points of JPS are) each also gets a disc a few pixels
    wide.  With ``distances`` and ``colour_bar``, a strip under the map shows the heat ramp
    from the least to the greatest finite distance, its values at the ends and
    ``heat_label`` (what the values are) in the middle; the picture is then taller than the
    map by :func:`bar_layout`'s ``extra``.  ``title`` is stored as the PNG ``Title`` text
    chunk.

    Raises :class:`~wayfinding.errors.InvalidQueryError` for arrays of the wrong shape or
    cells outside the grid, :class:`ImportError` when Pillow is missing.
    """
    colour_bar = flag("colour_bar", colour_bar)
    grid = as_grid(grid)
    if scale is None:
        s = auto_scale(grid)
    elif isinstance(scale, (bool, float)) or not isinstance(scale, (int, np.integer)) \
            or scale < 1:
        raise InvalidQueryError(f"scale {scale!r} must be an integer >= 1 (pixels per cell)")
    else:
        s = int(scale)
    if title is not None and not isinstance(title, str):
        raise InvalidQueryError(f"title {title!r} must be a string")
    heat_label = check_label(heat_label)
    cells = cell_colours(grid, explored=explored, frontier=frontier, distances=distances)
    route = None if path is None else route_points(path, grid)
    a = optional_cell(start, grid, "start")
    b = optional_cell(goal, grid, "goal")
    spots = _mark_sets(grid, explored, frontier, marks)
    ends = heat_range(grid, None if distances is None else as_distances(distances, grid)) \
        if colour_bar else None
    Image, ImageDraw, _ = _pillow()

    pixels = np.ascontiguousarray(np.repeat(np.repeat(cells, s, axis=0), s, axis=1))
    img = Image.fromarray(pixels, "RGB")
    draw = ImageDraw.Draw(img)
    map_w, map_h = img.size
    rm = mark_radius(map_w, map_h, s)
    for key, spot in spots:
        for x, y in ((spot + 0.5) * s).tolist():
            draw.ellipse((x - rm, y - rm, x + rm, y + rm), fill=rgb(PALETTE[key]),
                         outline=rgb(PALETTE["outline"]))
    width = max(round(MIN_STROKE_PX), round(0.3 * s))
    if route is not None and len(route):
        pts = [(float(x), float(y)) for x, y in (route * s).tolist()]
        if len(pts) == 1:
            r = max(1.0, width / 2)
            cx, cy = pts[0]
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=rgb(PALETTE["path"]))
        else:
            draw.line(pts, fill=rgb(PALETTE["path"]), width=width, joint="curve")
    draw_ends(draw, a, b, s, map_w, map_h)
    if ends is not None:
        img = _with_colour_bar(img, ends, heat_label)
    return png_bytes(img, title=title)


def draw_ends(draw: Any, start: tuple[int, int] | None, goal: tuple[int, int] | None,
              s: float, map_w: float, map_h: float) -> None:
    """Draw the ``start`` and ``goal`` cells' discs with Pillow's ``draw`` on a map of
    ``map_w`` x ``map_h`` pixels with cells ``s`` pixels wide: :func:`marker_radius` wide,
    a light edge inside and a dark ring outside."""
    radius = marker_radius(map_w, map_h, s)
    edge = max(1, round(radius / 5))
    for cell, key in ((start, "start"), (goal, "goal")):
        if cell is not None:
            cx, cy = (cell[0] + 0.5) * s, (cell[1] + 0.5) * s
            outer = radius + edge
            draw.ellipse((cx - outer, cy - outer, cx + outer, cy + outer),
                         fill=rgb(PALETTE["ring"]))
            draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius),
                         fill=rgb(PALETTE[key]), outline=rgb(PALETTE["outline"]), width=edge)


def _mark_sets(grid: Grid, explored: Cells | None, frontier: Cells | None,
               marks: bool | None) -> list[tuple[str, np.ndarray]]:
    """The explored and frontier cells to draw as marks, with their colour keys."""
    out = []
    for value, name, attr in ((explored, "explored", "expanded_nodes"),
                              (frontier, "frontier", "open_nodes")):
        if value is None:
            continue
        cells = as_cells(value, grid, name, attr=attr)
        if wants_marks(cells, marks):
            out.append((f"{name}_mark", cells.astype(np.float64)))
    return out


def font(size: float) -> Any:
    """Pillow's default font at ``size`` pixels."""
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _with_colour_bar(img: Any, ends: tuple[float, float], heat_label: str) -> Any:
    """``img`` with a colour bar strip added below it (see :func:`bar_layout`)."""
    Image, ImageDraw, _ = _pillow()
    w, h = img.size
    lay = bar_layout(w, h)
    pad, bar, size = int(lay["pad"]), int(lay["bar"]), lay["font"]
    out = Image.new("RGB", (w, h + int(math.ceil(lay["extra"]))), rgb(PALETTE["bar"]))
    out.paste(img, (0, 0))
    n = max(1, w - 2 * pad)
    strip = np.ascontiguousarray(np.repeat(bar_colours(n)[None], bar, axis=0))
    out.paste(Image.fromarray(strip, "RGB"), (pad, h + pad))
    draw = ImageDraw.Draw(out)
    f = font(size)
    y = h + 2 * pad + bar
    ink = rgb(PALETTE["text"])
    draw.text((pad, y), value_text(ends[0]), fill=ink, font=f, anchor="la")
    draw.text((w - pad, y), value_text(ends[1]), fill=ink, font=f, anchor="ra")
    if heat_label:
        draw.text((w / 2, y), heat_label, fill=ink, font=f, anchor="ma")
    return out
