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
from ..errors import InvalidQueryError
from ..grid import Grid
from ..results import PathResult

#: Every colour the renderers use, as ``#rrggbb``.  ``terrain`` is the colour of the costliest
#: terrain (cheaper terrain is blended towards ``free``); ``heat`` is the distance ramp from
#: near to far.
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


def write_gif(target: str | os.PathLike, images: list[Any], fps: float) -> Path:
    """Write Pillow ``images`` (palette mode) to ``target`` as a looping GIF at ``fps``
    frames a second, through a temporary file and a rename."""
    if not images:
        raise InvalidQueryError("agents has no frames")
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
               scale: int | None = None, title: str | None = None) -> bytes:
    """Draw a grid as PNG bytes; needs Pillow (``pip install 'wayfinding[viz]'``).

    Cells are ``scale`` x ``scale`` pixel blocks (an int >= 1; default: the longer side about
    800 px), so the image is ``(W * scale) x (H * scale)`` pixels and cell ``(x, y)`` covers
    pixels ``[x*scale, (x+1)*scale)`` across and ``[y*scale, (y+1)*scale)`` down.  Colours as
    :func:`cell_colours`; ``path`` (``(n, 2)`` ``(x, y)`` cells or a PathResult) is a line
    through cell centres (or, for a float polyline in cell units, through its points) in
    ``PALETTE["path"]``; ``start`` and ``goal`` (``(x, y)`` cells)
    are discs.  ``title`` is stored as the PNG ``Title`` text chunk.

    Raises :class:`~wayfinding.errors.InvalidQueryError` for arrays of the wrong shape or
    cells outside the grid, :class:`ImportError` when Pillow is missing.
    """
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
    cells = cell_colours(grid, explored=explored, frontier=frontier, distances=distances)
    route = None if path is None else route_points(path, grid)
    a = optional_cell(start, grid, "start")
    b = optional_cell(goal, grid, "goal")
    Image, ImageDraw, PngImagePlugin = _pillow()

    pixels = np.ascontiguousarray(np.repeat(np.repeat(cells, s, axis=0), s, axis=1))
    img = Image.fromarray(pixels, "RGB")
    draw = ImageDraw.Draw(img)
    width = max(round(MIN_STROKE_PX), round(0.3 * s))
    if route is not None and len(route):
        pts = [(float(x), float(y)) for x, y in (route * s).tolist()]
        if len(pts) == 1:
            r = max(1.0, width / 2)
            cx, cy = pts[0]
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=rgb(PALETTE["path"]))
        else:
            draw.line(pts, fill=rgb(PALETTE["path"]), width=width, joint="curve")
    radius = max(MIN_RADIUS_PX, 0.4 * s)
    for cell, key in ((a, "start"), (b, "goal")):
        if cell is not None:
            cx, cy = (cell[0] + 0.5) * s, (cell[1] + 0.5) * s
            draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius),
                         fill=rgb(PALETTE[key]), outline=rgb(PALETTE["outline"]))

    info = None
    if title:
        info = PngImagePlugin.PngInfo()
        info.add_text("Title", title)
    buf = io.BytesIO()
    img.save(buf, format="PNG", pnginfo=info)
    return buf.getvalue()
