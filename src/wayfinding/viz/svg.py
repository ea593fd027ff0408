"""SVG output: cells as run-length merged rectangles, the path as a polyline.

Needs nothing beyond numpy.  The SVG's user units are cells (``viewBox="0 0 W H"``, cell
``(x, y)`` is the unit square at ``(x, y)``, y down); ``width``/``height`` give the size in
pixels.  Cells of equal colour are merged along rows into runs, and runs with the same
columns and colour in consecutive rows into one rectangle; the most common colour is a single
background rectangle, and the rest are grouped by colour, so a 512 x 512 Moving AI map stays
at a few hundred kilobytes to a few megabytes.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np
from numpy.typing import ArrayLike

from .._validate import flag, positive_float
from ..errors import InvalidQueryError
from ..grid import Grid
from .raster import (
    HEAT_LEVELS,
    MIN_STROKE_PX,
    PALETTE,
    TARGET_PX,
    Cells,
    _mark_sets,
    as_distances,
    as_grid,
    bar_colours,
    bar_layout,
    cell_colours,
    check_label,
    heat_range,
    mark_radius,
    marker_radius,
    optional_cell,
    route_points,
    value_text,
)


def _num(v: float) -> str:
    """A short decimal for an SVG attribute (at most 3 decimals, no exponent)."""
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def cell_rects(colours: np.ndarray) -> tuple[np.ndarray, ...]:
    """Rectangles of equal colour covering an ``(H, W, 3)`` uint8 picture.

    Returns ``(x, y, w, h, rgb)`` int64 arrays, one entry per rectangle, in cells, ``rgb``
    packed as ``0xRRGGBB``; sorted by colour, then row, then column.  Runs of equal colour in
    a row are merged, then identical runs (same columns and colour) in consecutive rows.
    """
    height, width = colours.shape[:2]
    c = colours.astype(np.int64)
    flat = ((c[..., 0] << 16) | (c[..., 1] << 8) | c[..., 2]).ravel()
    n = flat.size
    first = np.ones(n, dtype=bool)
    first[1:] = flat[1:] != flat[:-1]
    first[::width] = True
    idx = np.flatnonzero(first)
    lengths = np.diff(np.append(idx, n))
    ys, xs = np.divmod(idx, width)
    col = flat[idx]
    order = np.lexsort((ys, lengths, xs, col))
    col, xs, lengths, ys = col[order], xs[order], lengths[order], ys[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (col[1:] != col[:-1]) | (xs[1:] != xs[:-1]) | (lengths[1:] != lengths[:-1]) \
        | (ys[1:] != ys[:-1] + 1)
    g = np.flatnonzero(new)
    heights = np.diff(np.append(g, len(order)))
    xs, ys, lengths, col = xs[g], ys[g], lengths[g], col[g]
    tidy = np.lexsort((xs, ys, col))
    return xs[tidy], ys[tidy], lengths[tidy], heights[tidy], col[tidy]


def render_svg(grid: Grid, *, path: Cells | None = None, explored: Cells | None = None,
               frontier: Cells | None = None, distances: ArrayLike | None = None,
               start: ArrayLike | None = None, goal: ArrayLike | None = None,
               cell_px: float | None = None, title: str | None = None,
               marks: bool | None = None, colour_bar: bool = True,
               heat_label: str = "cost") -> str:
    """Draw a grid as an SVG document (a string).

    ``path``, ``explored`` and ``frontier``: ``(n, 2)`` arrays of ``(x, y)`` cells, or a
    :class:`~wayfinding.results.PathResult` (its ``path``, ``expanded_nodes``,
    ``open_nodes``; the last two need ``record=True``).  ``distances``: an ``(H, W)`` map such
    as :func:`~wayfinding.grid.distance_map` gives, drawn as a heat ramp (``inf`` = plain).
    ``start``/``goal``: ``(x, y)`` cells drawn as discs with a light and a dark edge, sized
    with the picture as :func:`~wayfinding.viz.render_png` does.  Colours and layers as
    :func:`~wayfinding.viz.raster.cell_colours`; the path is a ``<polyline class="path">``
    through cell centres with one point per path cell (a one-cell path also gets a dot).
    ``marks``: explored and frontier cells also drawn as discs (``<g class="marks">``;
    default: when they are sparse).  ``colour_bar``: with ``distances``, a
    ``<g class="colour-bar">`` strip under the map with the ramp, its end values and
    ``heat_label``.  ``cell_px``: pixels per cell (> 0; default: the longer side about
    800 px).  ``title`` becomes the ``<title>`` element.

    Raises :class:`~wayfinding.errors.InvalidQueryError` for arrays of the wrong shape or
    cells outside the grid.

    >>> from wayfinding.grid import Grid
    >>> svg = render_svg(Grid.from_ascii('''
    ... .#
    ... ..'''), path=[(0, 0), (0, 1), (1, 1)], cell_px=10)
    >>> svg.startswith('<svg') and 'points="0.5,0.5 0.5,1.5 1.5,1.5"' in svg
    True
    """
    colour_bar = flag("colour_bar", colour_bar)
    grid = as_grid(grid)
    if cell_px is None:
        px = TARGET_PX / max(grid.width, grid.height)
    else:
        px = positive_float("cell_px", cell_px)
    if title is not None and not isinstance(title, str):
        raise InvalidQueryError(f"title {title!r} must be a string")
    heat_label = check_label(heat_label)
    colours = cell_colours(grid, explored=explored, frontier=frontier, distances=distances)
    route = None if path is None else route_points(path, grid)
    a = optional_cell(start, grid, "start")
    b = optional_cell(goal, grid, "goal")
    spots = _mark_sets(grid, explored, frontier, marks)
    ends = heat_range(grid, None if distances is None else as_distances(distances, grid)) \
        if colour_bar else None

    w, h = grid.width, grid.height
    lay = bar_layout(w * px, h * px)
    extra = lay["extra"] / px if ends is not None else 0.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(w * px)}" '
           f'height="{_num(h * px + extra * px)}" viewBox="0 0 {w} {_num(h + extra)}" '
           'shape-rendering="crispEdges">']
    if title:
        out.append(f"<title>{escape(title)}</title>")

    xs, ys, ws, hs, col = cell_rects(colours)
    uniq, start_at, inverse = np.unique(col, return_index=True, return_inverse=True)
    area = np.bincount(inverse.ravel(), weights=(ws * hs).astype(np.float64))
    bg = int(np.argmax(area))
    out.append(f'<rect width="{w}" height="{h}" fill="#{int(uniq[bg]):06x}"/>')
    bounds = np.append(start_at, len(col))
    xs, ys, ws, hs = xs.tolist(), ys.tolist(), ws.tolist(), hs.tolist()
    for k, value in enumerate(uniq.tolist()):
        if k == bg:
            continue
        lo, hi = int(bounds[k]), int(bounds[k + 1])
        out.append(f'<g fill="#{value:06x}">')
        out.extend(f'<rect x="{x}" y="{y}" width="{rw}" height="{rh}"/>'
                   for x, y, rw, rh in zip(xs[lo:hi], ys[lo:hi], ws[lo:hi], hs[lo:hi],
                                           strict=True))
        out.append("</g>")

    if spots:
        rm = mark_radius(w * px, h * px, px) / px
        out.append(f'<g class="marks" stroke="{PALETTE["outline"]}" '
                   f'stroke-width="{_num(rm / 4)}" shape-rendering="geometricPrecision">')
        for key, spot in spots:
            out.extend(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(rm)}" '
                       f'fill="{PALETTE[key]}"/>' for x, y in (spot + 0.5).tolist())
        out.append("</g>")
    if ends is not None:
        out.append(_colour_bar(w, h, px, ends, heat_label))
    stroke = max(0.3, MIN_STROKE_PX / px)
    radius = marker_radius(w * px, h * px, px) / px
    if route is not None and len(route):
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in route.tolist())
        out.append(f'<polyline class="path" points="{pts}" fill="none" '
                   f'stroke="{PALETTE["path"]}" stroke-width="{_num(stroke)}" '
                   'stroke-linejoin="round" stroke-linecap="round" '
                   'shape-rendering="geometricPrecision"/>')
        if len(route) == 1:
            x, y = route[0].tolist()
            out.append(f'<circle class="path-dot" cx="{_num(x)}" cy="{_num(y)}" '
                       f'r="{_num(stroke)}" '
                       f'fill="{PALETTE["path"]}" shape-rendering="geometricPrecision"/>')
    for cell, key in ((a, "start"), (b, "goal")):
        if cell is not None:
            out.append(f'<circle class="{key}" cx="{cell[0]}.5" cy="{cell[1]}.5" '
                       f'r="{_num(radius)}" fill="{PALETTE[key]}" '
                       f'stroke="{PALETTE["outline"]}" stroke-width="{_num(radius / 4)}" '
                       'shape-rendering="geometricPrecision"/>'
                       f'<circle class="{key}-ring" cx="{cell[0]}.5" cy="{cell[1]}.5" '
                       f'r="{_num(radius * 1.15)}" fill="none" stroke="{PALETTE["ring"]}" '
                       f'stroke-width="{_num(radius * 0.12)}" '
                       'shape-rendering="geometricPrecision"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def colour_bar_svg(x0: float, y0: float, width: float, unit: float, longer_px: float,
                   ends: tuple[float, float], label: str, *,
                   colours: np.ndarray | None = None) -> str:
    """A ``<g class="colour-bar">`` strip ``width`` user units wide whose top left corner is
    at ``(x0, y0)``, laid out by :func:`~wayfinding.viz.raster.bar_layout` for a picture
    ``longer_px`` pixels on its longer side and ``unit`` user units a pixel: ``colours``
    (``(k, 3)`` RGB bands, default the heat ramp in
    :data:`~wayfinding.viz.raster.HEAT_LEVELS` bands) from ``ends[0]`` (left) to ``ends[1]``
    (right), the two values under its ends and ``label`` under its middle."""
    lay = {k: v * unit for k, v in bar_layout(longer_px, 0.0).items()}
    pad, bar, size = lay["pad"], lay["bar"], lay["font"]
    inner = width - 2 * pad
    bands = (bar_colours(HEAT_LEVELS) if colours is None else np.asarray(colours)).tolist()
    band = inner / len(bands)
    parts = [f'<g class="colour-bar"><rect class="bar-strip" x="{_num(x0)}" y="{_num(y0)}" '
             f'width="{_num(width)}" height="{_num(lay["extra"])}" fill="{PALETTE["bar"]}"/>']
    parts.extend(f'<rect class="bar-band" x="{_num(x0 + pad + k * band)}" '
                 f'y="{_num(y0 + pad)}" width="{_num(band * 1.02)}" height="{_num(bar)}" '
                 f'fill="#{r:02x}{g:02x}{b:02x}"/>'
                 for k, (r, g, b) in enumerate(bands))
    base = y0 + 2 * pad + bar + 0.8 * size
    style = (f'font-family="sans-serif" font-size="{_num(size)}" fill="{PALETTE["text"]}" '
             'shape-rendering="geometricPrecision"')
    parts.append(f'<text class="bar-min" x="{_num(x0 + pad)}" y="{_num(base)}" {style}>'
                 f'{escape(value_text(ends[0]))}</text>')
    parts.append(f'<text class="bar-max" x="{_num(x0 + width - pad)}" y="{_num(base)}" '
                 f'text-anchor="end" {style}>{escape(value_text(ends[1]))}</text>')
    if label:
        parts.append(f'<text class="bar-label" x="{_num(x0 + width / 2)}" y="{_num(base)}" '
                     f'text-anchor="middle" {style}>{escape(label)}</text>')
    parts.append("</g>")
    return "".join(parts)


def _colour_bar(w: int, h: int, px: float, ends: tuple[float, float], label: str) -> str:
    return colour_bar_svg(0.0, float(h), float(w), 1.0 / px, max(w, h) * px, ends, label)
