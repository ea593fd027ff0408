"""Pictures of vehicles: a car's planned path on a grid (PNG: the car's rectangle every few
metres, the path coloured by gear) and a street-crossing run (GIF: the carriages, their
hulls and the pedestrians).  Pictures need Pillow (the ``[viz]`` extra)."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._io import atomic_write_bytes
from .._validate import count, finite_point, positive_float
from ..errors import InvalidQueryError
from ..grid import Grid
from ..vehicles import CARRIAGE, CarPath, CrossingRun, Vehicle
from .raster import (
    GIF_PX,
    PALETTE,
    _pillow,
    as_grid,
    auto_scale,
    cell_colours,
    gif_canvas,
    png_bytes,
    rgb,
    write_gif,
)

#: The colours of a car's path driven forward and in reverse, and of the car's outline.
CAR_COLOURS = {"forward": "#1f5fa8", "reverse": "#d7263d", "car": "#555555"}
#: The colours of a street crossing: the ground, the carriages' boxes, their hulls (grown by
#: the pedestrians' radius), the pedestrians, their edges and their goals.
CROSSING_COLOURS = {"ground": "#fafaf7", "box": "#6b4f2a", "hull": "#b08d57",
                    "pedestrian": "#1f77b4", "edge": "#282828", "goal": "#2ca02c"}


def _rectangles(poses: np.ndarray, length: float, width: float) -> np.ndarray:
    """The corners of the car's rectangle at each pose, ``(n, 4, 2)``."""
    c, s = np.cos(poses[:, 2])[:, None], np.sin(poses[:, 2])[:, None]
    u = np.array([1.0, 1.0, -1.0, -1.0]) * length / 2
    v = np.array([1.0, -1.0, -1.0, 1.0]) * width / 2
    return np.stack([poses[:, 0, None] + u * c - v * s, poses[:, 1, None] + u * s + v * c],
                    axis=-1)


def _shown_poses(path: CarPath, spacing: float) -> np.ndarray:
    """The indices of the poses drawn as rectangles: one every ``spacing`` along the path,
    each cusp and the last pose."""
    steps = np.hypot(*np.diff(path.poses[:, :2], axis=0).T)
    along = np.concatenate([[0.0], np.cumsum(steps)])
    marks = np.floor(along / spacing)
    keep = np.flatnonzero(np.diff(marks) > 0) + 1
    turns = np.flatnonzero(np.diff(path.gears))
    return np.unique(np.concatenate([[0, len(path.poses) - 1], keep, turns]))


def render_car_png(grid: Grid, path: CarPath, *, length: float, width: float,
                   start_pose: ArrayLike | None = None, goal_pose: ArrayLike | None = None,
                   spacing: float | None = None, scale: int | None = None,
                   title: str | None = None) -> bytes:
    """Draw a car's ``path`` on ``grid`` as PNG bytes: the map as
    :func:`~wayfinding.viz.render_png` draws it (``scale`` pixels a cell, default about
    800 pixels along the longer side; y grows downwards, as rows do), the path of the car's
    centre in ``CAR_COLOURS["forward"]`` or ``["reverse"]`` by gear, the car's ``length`` x
    ``width`` rectangle (world units) outlined every ``spacing`` world units along the path
    (default: the car's length), at each cusp and at the end, and outlined boldly at
    ``start_pose`` and ``goal_pose`` (``(x, y, heading)``; default: the path's ends) in the
    palette's start and goal colours.  ``title`` is stored as the PNG ``Title`` text chunk.
    Raises :class:`~wayfinding.errors.InvalidQueryError` for a bad option,
    :class:`ImportError` when Pillow is missing."""
    grid = as_grid(grid)
    car_l, car_w = positive_float("length", length), positive_float("width", width)
    gap = car_l if spacing is None else positive_float("spacing", spacing)
    s = auto_scale(grid) if scale is None else count("scale", scale)
    if title is not None and not isinstance(title, str):
        raise InvalidQueryError(f"title {title!r} must be a string")
    ends = [None if p is None else finite_point(n, p, 3)[None]
            for n, p in (("start_pose", start_pose), ("goal_pose", goal_pose))]
    if path.found:
        ends = [path.poses[:1] if ends[0] is None else ends[0],
                path.poses[-1:] if ends[1] is None else ends[1]]
    Image, ImageDraw, _ = _pillow()
    origin = np.asarray(grid.origin)

    def px(xy: np.ndarray) -> list[tuple[float, float]]:
        return [(float(x), float(y)) for x, y in ((xy - origin) / grid.cell_size * s).tolist()]

    cells = cell_colours(grid)
    img = Image.fromarray(np.ascontiguousarray(np.repeat(np.repeat(cells, s, 0), s, 1)), "RGB")
    draw = ImageDraw.Draw(img)
    stroke = max(2, round(0.15 * s))
    if path.found:
        for box in _rectangles(path.poses[_shown_poses(path, gap)], car_l, car_w):
            draw.polygon(px(box), outline=rgb(CAR_COLOURS["car"]), width=max(1, stroke // 2))
        cut = np.flatnonzero(np.diff(path.gears)) + 1
        for lo, hi in zip(np.concatenate([[0], cut]), np.concatenate([cut, [len(path.gears)]])):
            run = path.poses[max(lo - 1, 0):hi, :2]
            key = "forward" if path.gears[lo] > 0 else "reverse"
            if len(run) > 1:
                draw.line(px(run), fill=rgb(CAR_COLOURS[key]), width=stroke, joint="curve")
    for pose, key in zip(ends, ("start", "goal")):
        if pose is not None:
            draw.polygon(px(_rectangles(pose, car_l, car_w)[0]), outline=rgb(PALETTE[key]),
                         width=stroke)
    return png_bytes(img, title=title)


def save_car_path(picture_path: str | os.PathLike, grid: Grid, path: CarPath,
                  **options: Any) -> Path:
    """Write :func:`render_car_png`'s picture (``options`` go to it) to ``picture_path``, a
    ``.png`` file, through a temporary file and a rename."""
    target = Path(picture_path)
    if target.suffix.lower() != ".png":
        raise InvalidQueryError(f"car paths are drawn as PNG files, not {str(target)!r}")
    return atomic_write_bytes(target, render_car_png(grid, path, **options))


def _carriage_poses(boxes: np.ndarray) -> np.ndarray:
    """Each carriage's position and heading ``(k, 3)`` from its world boxes ``(k * p, 4,
    2)``: the heading turns the body-to-first-horse offset of
    :data:`~wayfinding.vehicles.CARRIAGE` into the world's, and the position puts the body
    where it is."""
    local = np.asarray(CARRIAGE)[:2, :2]
    centres = boxes.mean(axis=1).reshape(-1, len(CARRIAGE), 2)[:, :2]
    seen, offset = centres[:, 1] - centres[:, 0], local[1] - local[0]
    heading = np.arctan2(seen[:, 1], seen[:, 0]) - math.atan2(offset[1], offset[0])
    c, s = np.cos(heading), np.sin(heading)
    body = np.column_stack([c * local[0, 0] - s * local[0, 1], s * local[0, 0] + c * local[0, 1]])
    return np.column_stack([centres[:, 0] - body, heading])


def animate_crossing(picture_path: str | os.PathLike, run: CrossingRun, *,
                     size: int = GIF_PX, fps: float = 12.0, frames: int = 150) -> Path:
    """Write a street-crossing ``run`` as a GIF ``size`` pixels wide (y up): each
    carriage's boxes and its hull grown by the pedestrians' radius (the set their centres
    must stay out of), the pedestrians as discs of their radius and their goals, over at
    most ``frames`` frames evenly spread up to a second after the last arrival.  The view
    spans the pedestrians' starts and goals and 8 m either side."""
    target = Path(picture_path)
    if target.suffix.lower() != ".gif":
        raise InvalidQueryError(f"animations are GIF files, not {str(target)!r}")
    size, fps = count("size", size, min=32), positive_float("fps", fps)
    frames = count("frames", frames)
    fleet = [Vehicle(CARRIAGE) for _ in range(run.carriages)]     # placed per frame
    ends = np.concatenate([run.positions[0], run.goals])
    lo, hi = ends.min(axis=0) - (8.0, 1.0), ends.max(axis=0) + (8.0, 1.0)
    width, height, scale, dx, dy = gif_canvas(float(hi[0] - lo[0]), float(hi[1] - lo[1]), size)

    def px(xy: np.ndarray) -> list[tuple[float, float]]:
        return [(float((x - lo[0]) * scale + dx), float((hi[1] - y) * scale + dy))
                for x, y in np.asarray(xy).reshape(-1, 2).tolist()]

    arrive = run.arrival_steps()
    last = len(run.positions) - 1
    if run.reached.all():
        last = min(last, int(arrive.max()) + math.ceil(1.0 / run.dt))
    Image, ImageDraw, _ = _pillow()
    ink = {key: k for k, key in enumerate(CROSSING_COLOURS)}      # the frames' palette
    base = Image.new("P", (width, height), ink["ground"])
    base.putpalette([c for key in CROSSING_COLOURS for c in rgb(CROSSING_COLOURS[key])])
    draw = ImageDraw.Draw(base)
    rr = max(1.0, run.radius * scale)
    for x, y in px(run.goals):
        draw.rectangle((x - rr / 2, y - rr / 2, x + rr / 2, y + rr / 2), fill=ink["goal"])
    images = []
    for t in np.unique(np.linspace(0, last, min(frames, last + 1)).round().astype(int)):
        img = base.copy()
        d = ImageDraw.Draw(img)
        for car, (x, y, heading) in zip(fleet, _carriage_poses(run.boxes[t])):
            car.move((x, y), float(heading))
            d.polygon(px(car.hull(run.radius).hull), outline=ink["hull"], width=2)
        for box in run.boxes[t]:
            d.polygon(px(box), fill=ink["box"])
        for x, y in px(run.positions[t]):
            d.ellipse((x - rr, y - rr, x + rr, y + rr), fill=ink["pedestrian"],
                      outline=ink["edge"])
        images.append(img)
    return write_gif(target, images, fps)
