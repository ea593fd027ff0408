"""Pictures of fields: an integration field or potential as a heat map with the flow's
arrows on top (SVG or PNG), and animated GIFs of agents moving over a map.

>>> import numpy as np
>>> from wayfinding.grid import Grid
>>> from wayfinding.fields import FlowField
>>> grid = Grid(np.ones((6, 8), dtype=bool))
>>> flow = FlowField.build(grid, [(7, 3)])
>>> svg = render_flow_svg(grid, flow.field, vectors=flow.vectors, every=2, goal=(7, 3))
>>> svg.count('class="arrows"')
1
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._io import atomic_write_bytes, atomic_write_text
from .._validate import count, positive_float
from ..errors import InvalidQueryError
from ..grid.grid import Grid
from .raster import (
    GIF_PX,
    PALETTE,
    Cells,
    _pillow,
    as_grid,
    cell_colours,
    draw_ends,
    gif_canvas,
    optional_cell,
    png_bytes,
    render_png,
    rgb,
    write_gif,
)
from .svg import _num, render_svg

#: Arrows across the longer side of the map when ``every`` is not given.
ARROWS_ACROSS = 32

#: The first lines of the SVG drawn over the arrows (the path, the discs, the colour bar).
_OVER_ARROWS = ('<g class="marks"', '<g class="colour-bar"', '<polyline class="path"',
                '<circle class="path-dot"', '<circle class="start"', '<circle class="goal"',
                "</svg>")


@positional_options("every", "passable_only")
def arrow_segments(vectors: ArrayLike, grid: Grid, *, every: int | None = None,
                   passable_only: bool = True) -> np.ndarray:
    """``(k, 3, 2, 2)`` line segments (shaft and two head strokes, from and to, in cell
    units with cell ``(x, y)``'s centre at ``(x + 0.5, y + 0.5)``) of the non-zero vectors
    on every ``every``-th cell."""
    v = np.asarray(vectors, dtype=np.float64)
    if v.shape != grid.shape + (2,) or not np.isfinite(v).all():
        raise InvalidQueryError(f"vectors must be a finite {grid.shape + (2,)} array, got "
                                f"shape {v.shape}")
    step = count("every", every) if every is not None \
        else max(1, max(grid.shape) // ARROWS_ACROSS)
    ys, xs = np.mgrid[step // 2:grid.height:step, step // 2:grid.width:step]
    ys, xs = ys.ravel(), xs.ravel()
    d = v[ys, xs]
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 1e-9
    if passable_only:
        keep &= grid.passable[ys, xs]
    ys, xs, d, length = ys[keep], xs[keep], d[keep], length[keep]
    unit = d / length[:, None]
    size = 0.8 * step * np.minimum(length, 1.0)[:, None]
    centre = np.stack([xs + 0.5, ys + 0.5], axis=1)
    tail, tip = centre - 0.5 * size * unit, centre + 0.5 * size * unit
    side = np.stack([-unit[:, 1], unit[:, 0]], axis=1)
    head = 0.3 * size
    left = tip - head * unit + 0.6 * head * side
    right = tip - head * unit - 0.6 * head * side
    return np.stack([np.stack([tail, tip], 1), np.stack([left, tip], 1),
                     np.stack([right, tip], 1)], axis=1)


def render_flow_svg(grid: Grid, field: ArrayLike | None = None, *,
                    vectors: ArrayLike | None = None, every: int | None = None,
                    path: Cells | None = None, start: ArrayLike | None = None,
                    goal: ArrayLike | None = None, cell_px: float | None = None,
                    title: str | None = None, colour_bar: bool = True,
                    heat_label: str = "cost to the goal") -> str:
    """An SVG of ``field`` (``(H, W)``: an integration field or potential, as a heat map)
    with ``vectors`` (``(H, W, 2)``, e.g. :attr:`FlowField.vectors`) as arrows on every
    ``every``-th cell (default: about :data:`ARROWS_ACROSS` across), and the path,
    endpoints and colour bar (labelled ``heat_label``) of
    :func:`~wayfinding.viz.render_svg`."""
    svg = render_svg(grid, distances=_finite_field(field, grid), path=path, start=start,
                     goal=goal, cell_px=cell_px, title=title, colour_bar=colour_bar,
                     heat_label=heat_label)
    if vectors is None:
        return svg
    segs = arrow_segments(vectors, grid, every=every)
    stroke = 0.08 * (every or max(1, max(grid.shape) // ARROWS_ACROSS))
    d = " ".join(f"M{_num(a)} {_num(b)}L{_num(c)} {_num(e)}"
                 for a, b, c, e in segs.reshape(-1, 4).tolist())
    group = (f'<path class="arrows" d="{d}" fill="none" stroke="{PALETTE["outline"]}" '
             f'stroke-width="{_num(stroke)}" stroke-linecap="round" '
             'shape-rendering="geometricPrecision"/>')
    lines = svg.splitlines()
    # the arrows go over the cells, under the path, the discs and the colour bar
    at = next(i for i, line in enumerate(lines) if line.startswith(_OVER_ARROWS))
    return "\n".join(lines[:at] + [group] + lines[at:]) + "\n"


def render_flow_png(grid: Grid, field: ArrayLike | None = None, *,
                    vectors: ArrayLike | None = None, every: int | None = None,
                    path: Cells | None = None, start: ArrayLike | None = None,
                    goal: ArrayLike | None = None, scale: int | None = None,
                    title: str | None = None, colour_bar: bool = True,
                    heat_label: str = "cost to the goal") -> bytes:
    """The PNG counterpart of :func:`render_flow_svg` (needs Pillow)."""
    if vectors is None:
        return render_png(grid, distances=_finite_field(field, grid), path=path, start=start,
                          goal=goal, scale=scale, title=title, colour_bar=colour_bar,
                          heat_label=heat_label)
    a = optional_cell(start, as_grid(grid), "start")
    b = optional_cell(goal, grid, "goal")
    segments = arrow_segments(vectors, grid, every=every).reshape(-1, 2, 2)
    data = render_png(grid, distances=_finite_field(field, grid), path=path, scale=scale,
                      title=title, colour_bar=colour_bar, heat_label=heat_label)
    Image, ImageDraw, _ = _pillow()
    img = Image.open(io.BytesIO(data)).convert("RGB")
    s = img.width / grid.width
    draw = ImageDraw.Draw(img)
    width = max(1, round(0.08 * s * (every or max(1, max(grid.shape) // ARROWS_ACROSS))))
    for seg in segments * s:
        draw.line([tuple(seg[0]), tuple(seg[1])], fill=rgb(PALETTE["outline"]), width=width)
    draw_ends(draw, a, b, s, grid.width * s, grid.height * s)    # the discs over the arrows
    return png_bytes(img, title=title)


def save_flow(picture_path: str | os.PathLike, grid: Grid, field: ArrayLike | None = None,
              **options: Any) -> Path:
    """Write :func:`render_flow_svg` or :func:`render_flow_png` by the suffix (atomically)."""
    target = Path(picture_path)
    if target.suffix.lower() == ".svg":
        return atomic_write_text(target, render_flow_svg(grid, field, **options))
    if target.suffix.lower() == ".png":
        return atomic_write_bytes(target, render_flow_png(grid, field, **options))
    raise InvalidQueryError(f"cannot tell the picture format of {str(target)!r}; use .svg "
                            "or .png")


def animate(picture_path: str | os.PathLike, grid: Grid, frames: ArrayLike, *,
            groups: ArrayLike | None = None, field: ArrayLike | None = None,
            radius: float = 0.35, scale: int | None = None, fps: float = 10.0,
            every: int = 1, size: int = GIF_PX) -> Path:
    """An animated GIF of agents over ``grid``: ``frames`` is ``(T, n, 2)`` positions in
    cells (a cell's centre at its (x, y); NaN: not there), every ``every``-th frame drawn,
    each agent a disc of ``radius`` cells; ``groups`` (``(n,)`` ints) colour them,
    ``field`` is the background heat map.  The GIF is ``size`` pixels wide, the map filling
    it along its longer side (see :func:`~wayfinding.viz.raster.gif_canvas`), or, with
    ``scale`` (whole pixels a cell), exactly ``W * scale`` x ``H * scale``.  Needs
    Pillow."""
    pos = np.asarray(frames, dtype=np.float64)
    if pos.ndim != 3 or pos.shape[2] != 2 or not len(pos):
        raise InvalidQueryError(f"frames must have shape (T, n, 2), got {pos.shape}")
    fps, every = positive_float("fps", fps), count("every", every)
    radius = positive_float("radius", radius)
    target = Path(picture_path)
    if target.suffix.lower() != ".gif":
        raise InvalidQueryError(f"animations are GIF files, not {str(target)!r}")
    Image, ImageDraw, _ = _pillow()
    cells = cell_colours(grid, distances=_finite_field(field, grid))
    if scale is None:
        width, height, s, dx, dy = gif_canvas(grid.width, grid.height, count("size", size,
                                                                              min=32))
    else:
        s = float(count("scale", scale))
        width, height, dx, dy = grid.width * int(s), grid.height * int(s), 0.0, 0.0
    mapped = Image.fromarray(np.ascontiguousarray(cells), "RGB").resize(
        (max(1, round(grid.width * s)), max(1, round(grid.height * s))), Image.NEAREST)
    base = Image.new("RGB", (width, height), rgb(PALETTE["bar"]))
    base.paste(mapped, (round(dx), round(dy)))
    kinds = np.zeros(pos.shape[1], dtype=int) if groups is None else np.asarray(groups)
    colours = [rgb(c) for c in ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")]
    r = max(1.0, radius * s)
    images = []
    for frame in pos[::every]:
        img = base.copy()
        draw = ImageDraw.Draw(img)
        for (x, y), k in zip(frame.tolist(), kinds.tolist()):
            if math.isfinite(x) and math.isfinite(y):
                cx, cy = (x + 0.5) * s + round(dx), (y + 0.5) * s + round(dy)
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colours[k % len(colours)],
                             outline=(40, 40, 40) if r >= 3 else None)
        images.append(img.convert("P", palette=Image.ADAPTIVE))
    return write_gif(target, images, fps)


def _finite_field(field: ArrayLike | None, grid: Grid) -> np.ndarray | None:
    if field is None:
        return None
    f = np.asarray(field, dtype=np.float64)
    if f.shape != grid.shape:
        raise InvalidQueryError(f"field has shape {f.shape}, the grid {grid.shape}")
    return np.where(np.isfinite(f), f, np.inf)
