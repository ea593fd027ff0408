"""Animated GIFs of crowd runs in world coordinates: agents as discs of their radius, over
the scenario's polygon obstacles (y up).  Needs Pillow (the ``[viz]`` extra)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .._validate import count, positive_float
from ..errors import InvalidQueryError
from .raster import GIF_PX, _pillow, gif_canvas, rgb, write_gif

if TYPE_CHECKING:
    from ..crowd.metrics import Run

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
#: The one-pixel edge inside each agent's disc (discs of 3 pixels or more), so that agents in
#: contact stay apart on the picture.
EDGE = (40, 40, 40)


def animate_run(picture_path: str | os.PathLike, run: Run, obstacles: Iterable[ArrayLike] = (),
                *, groups: ArrayLike | None = None, size: int = GIF_PX, fps: float = 12.0,
                frames: int = 150) -> Path:
    """Write ``run`` (a :class:`~wayfinding.crowd.Run`) as a GIF ``size`` pixels wide (the
    scene fills ``size`` pixels along its longer side; see
    :func:`~wayfinding.viz.raster.gif_canvas`), showing at most ``frames`` frames evenly
    spread over the run, each agent a disc of its radius; ``groups`` (``(n,)`` ints) colour
    the agents (default: by the direction of their goal)."""
    target = Path(picture_path)
    if target.suffix.lower() != ".gif":
        raise InvalidQueryError(f"animations are GIF files, not {str(target)!r}")
    size, fps = count("size", size, min=32), positive_float("fps", fps)
    frames = count("frames", frames)
    pos = run.positions
    polys = [np.asarray(p, dtype=float) for p in obstacles]
    pts = np.concatenate([pos[np.isfinite(pos[..., 0])].reshape(-1, 2), run.goal,
                          *polys]) if pos.size else run.goal
    lo, hi = pts.min(axis=0) - run.radius.max() - 1, pts.max(axis=0) + run.radius.max() + 1
    width, height, scale, dx, dy = gif_canvas(float(hi[0] - lo[0]), float(hi[1] - lo[1]),
                                              size)

    def px(xy: np.ndarray) -> np.ndarray:
        return np.stack([(xy[..., 0] - lo[0]) * scale + dx,
                         (hi[1] - xy[..., 1]) * scale + dy], -1)

    if groups is None:
        heading = np.arctan2(*(run.goal - pos[0]).T[::-1])
        groups = np.floor((heading + math.pi) / (2 * math.pi) * 6).astype(int) % 6
    colours = [rgb(c) for c in COLOURS]
    Image, ImageDraw, _ = _pillow()
    base = Image.new("RGB", (width, height), (250, 250, 247))
    draw = ImageDraw.Draw(base)
    for poly in polys:
        draw.polygon([tuple(p) for p in px(poly).tolist()], fill=(90, 90, 90))
    images = []
    for t in np.unique(np.linspace(0, len(pos) - 1, min(frames, len(pos))).round().astype(int)):
        img = base.copy()
        d = ImageDraw.Draw(img)
        for (x, y), r, k in zip(px(pos[t]).tolist(), run.radius.tolist(), np.asarray(groups)):
            if math.isfinite(x) and math.isfinite(y):
                rr = max(1.0, r * scale)
                d.ellipse((x - rr, y - rr, x + rr, y + rr), fill=colours[int(k) % len(colours)],
                          outline=EDGE if rr >= 3 else None)
        images.append(img.convert("P", palette=Image.ADAPTIVE))
    return write_gif(target, images, fps)
