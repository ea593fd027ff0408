"""Pictures of vehicles and the figures printed beside them: a car's planned path on a grid
(PNG: the car's rectangle every few metres, the path coloured by gear) with its length
against two lower bounds, and a street-crossing run (GIF: the carriages, their hulls and
the pedestrians) with its arrivals and the least gap between a pedestrian and a carriage.
Pictures need Pillow (the ``[viz]`` extra)."""

from __future__ import annotations

import io
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._io import atomic_write_bytes
from .._validate import count, finite_point, positive_float
from ..errors import InvalidQueryError
from ..geometry import orient2d
from ..geometry.obstacles import closest_on_segments
from ..grid import Grid, GridSearch
from ..paths import reeds_shepp_path
from ..vehicles import CARRIAGE, CarPath, CrossingRun, Vehicle
from .raster import (
    GIF_PX,
    PALETTE,
    _pillow,
    as_grid,
    auto_scale,
    cell_colours,
    gif_canvas,
    rgb,
    write_gif,
)

#: The colours of a car's path driven forward and in reverse, and of the car's outline.
CAR_COLOURS = {"forward": "#1f5fa8", "reverse": "#d7263d", "car": "#555555"}
#: The colours of a street crossing: the ground, the carriages' boxes, their hulls (grown by
#: the pedestrians' radius), the pedestrians, their edges and their goals.
CROSSING_COLOURS = {"ground": "#fafaf7", "box": "#6b4f2a", "hull": "#b08d57",
                    "pedestrian": "#1f77b4", "edge": "#282828", "goal": "#2ca02c"}


def _cusps(path: CarPath) -> int:
    """The number of changes of gear (forward to reverse or back) along ``path``."""
    return int(np.count_nonzero(np.diff(path.gears)))


def _direction(heading: float) -> tuple[float, float]:
    return math.cos(heading), math.sin(heading)


def car_path_figures(grid: Grid, path: CarPath, start_pose: ArrayLike, goal_pose: ArrayLike,
                     *, turning_radius: float, width: float) -> dict[str, Any]:
    """The figures of a car's path on ``grid`` from ``start_pose`` to ``goal_pose`` (each
    ``(x, y, heading)``, world units and radians): its ``status``, ``length`` and ``cost``,
    its ``cusps``, the obstacle-free Reeds–Shepp length for ``turning_radius``
    (``reeds_shepp``, a lower bound) and the ``holonomic`` optimum: the shortest 8-connected
    path (no corner cutting) between the poses' cells over the cells whose centre lies at
    least ``width / 2`` from every blocked cell's centre (world units; ``inf`` when either
    cell is not among them or no such path exists) — a cell path, so a car's path may be a
    little shorter.  Also the search's ``expanded`` states and ``seconds``.

    Turning round on the spot in an open field: three arcs (two cusps) of the Reeds–Shepp
    length, and a holonomic optimum of zero:

    >>> from wayfinding.vehicles import plan_car_path
    >>> field = Grid(np.ones((20, 30), dtype=bool))
    >>> turn = plan_car_path(field, (5, 10, 0), (5, 10, math.pi), turning_radius=3,
    ...                      length=2, width=1)
    >>> f = car_path_figures(field, turn, (5, 10, 0), (5, 10, math.pi), turning_radius=3,
    ...                      width=1)
    >>> f["status"], round(f["length"], 4), f["cusps"], round(f["reeds_shepp"], 4), f["holonomic"]
    ('found', 9.4248, 2, 9.4248, 0.0)
    """
    a = finite_point("start_pose", start_pose, 3)
    b = finite_point("goal_pose", goal_pose, 3)
    r = positive_float("turning_radius", turning_radius)
    half = positive_float("width", width) / 2
    rs = reeds_shepp_path(a[:2], _direction(a[2]), b[:2], _direction(b[2]), r).length
    clear = Grid(np.where(grid.obstacle_distance * grid.cell_size >= half, 1.0, np.inf))
    ca, cb = (grid.world_to_cell(p[:2]) for p in (a, b))
    holonomic = math.inf
    if all(clear.in_bounds(c) and clear.passable[c[1], c[0]] for c in (ca, cb)):
        holonomic = float(GridSearch(clear).find_path(ca, cb).cost) * grid.cell_size
    return {"status": str(path.status), "length": path.length, "cost": path.cost,
            "cusps": _cusps(path), "reeds_shepp": rs, "holonomic": holonomic,
            "expanded": path.stats.expanded, "seconds": path.stats.elapsed}


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
    Image, ImageDraw, PngImagePlugin = _pillow()
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
    info = None
    if title:
        info = PngImagePlugin.PngInfo()
        info.add_text("Title", title)
    buf = io.BytesIO()
    img.save(buf, format="PNG", pnginfo=info)
    return buf.getvalue()


def save_car_path(picture_path: str | os.PathLike, grid: Grid, path: CarPath,
                  **options: Any) -> Path:
    """Write :func:`render_car_png`'s picture (``options`` go to it) to ``picture_path``, a
    ``.png`` file, through a temporary file and a rename."""
    target = Path(picture_path)
    if target.suffix.lower() != ".png":
        raise InvalidQueryError(f"car paths are drawn as PNG files, not {str(target)!r}")
    return atomic_write_bytes(target, render_car_png(grid, path, **options))


def _arrival_steps(run: CrossingRun) -> np.ndarray:
    """The first step at which each pedestrian stands on its goal (``-1``: never)."""
    there = np.hypot(*(run.positions - run.goals[None]).transpose(2, 0, 1)) <= 1e-9
    return np.where(there.any(axis=0), there.argmax(axis=0), -1)


def crossing_gaps(run: CrossingRun) -> np.ndarray:
    """The gap between each pedestrian's disc and the nearest carriage box at each step,
    ``(steps + 1, n)`` float64 (world units; negative where a disc overlaps a box)."""
    out = np.empty(run.positions.shape[:2])
    for t, (points, boxes) in enumerate(zip(run.positions, run.boxes)):
        a = np.broadcast_to(boxes, (len(points), *boxes.shape)).reshape(-1, 2)
        b = np.broadcast_to(np.roll(boxes, -1, axis=1), (len(points), *boxes.shape))
        v = np.repeat(points, boxes.shape[0] * 4, axis=0)
        dist = closest_on_segments(v, a, b.reshape(-1, 2))[0].reshape(len(points), -1, 4)
        inside = (np.asarray(orient2d(a, b.reshape(-1, 2), v)) < 0).reshape(dist.shape)
        signed = np.where(inside.all(axis=2), -1.0, 1.0) * dist.min(axis=2)
        out[t] = signed.min(axis=1) - run.radius
    return out


def crossing_figures(run: CrossingRun) -> dict[str, Any]:
    """The figures of a street-crossing run: ``pedestrians``, ``arrived`` (how many stand
    on their goal at the end), ``completion`` (their share), the mean and latest arrival
    times ``t_mean`` and ``t_last`` in seconds (of those who arrived; ``nan`` when none
    did), the ``least_gap`` between a pedestrian's disc and a carriage box over the run
    (world units; negative would mean an overlap), the ``steps`` simulated and the
    ``carriages`` (groups of :data:`~wayfinding.vehicles.CARRIAGE`'s boxes)."""
    arrive = _arrival_steps(run)[run.reached] * run.dt
    n = len(run.goals)
    return {"pedestrians": n, "carriages": _carriage_count(run),
            "arrived": int(run.reached.sum()),
            "completion": float(run.reached.sum()) / n,
            "t_mean": float(arrive.mean()) if len(arrive) else math.nan,
            "t_last": float(arrive.max()) if len(arrive) else math.nan,
            "least_gap": float(crossing_gaps(run).min()), "steps": len(run.positions) - 1}


def _carriage_count(run: CrossingRun) -> int:
    """The number of carriages in ``run``: its boxes in groups of
    :data:`~wayfinding.vehicles.CARRIAGE`'s parts."""
    parts = len(CARRIAGE)
    if run.boxes.shape[1] % parts:
        raise InvalidQueryError(f"a crossing run's {run.boxes.shape[1]} boxes are not "
                                f"carriages of {parts} parts")
    return run.boxes.shape[1] // parts


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
    fleet = [Vehicle(CARRIAGE) for _ in range(_carriage_count(run))]     # placed per frame
    ends = np.concatenate([run.positions[0], run.goals])
    lo, hi = ends.min(axis=0) - (8.0, 1.0), ends.max(axis=0) + (8.0, 1.0)
    width, height, scale, dx, dy = gif_canvas(float(hi[0] - lo[0]), float(hi[1] - lo[1]), size)

    def px(xy: np.ndarray) -> list[tuple[float, float]]:
        return [(float((x - lo[0]) * scale + dx), float((hi[1] - y) * scale + dy))
                for x, y in np.asarray(xy).reshape(-1, 2).tolist()]

    arrive = _arrival_steps(run)
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
