"""Pictures of traffic: a road network's lanes by type with routes over them (PNG), a
road's lattice with its node costs, the other cars' predicted positions, the kept paths and
the best path's speeds (PNG), and the time-dependent potential of the other cars as an
animation (GIF).  World coordinates, y up.  Needs Pillow (the ``[viz]`` extra)."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._io import atomic_write_bytes
from .._validate import allocation, count, positive_float
from ..errors import InvalidQueryError
from ..traffic import CarField, LaneType, OptimisedPath, RoadNetwork, Trajectory
from .raster import (
    GIF_PX,
    PALETTE,
    TARGET_PX,
    _pillow,
    bar_colours,
    font,
    gif_canvas,
    png_bytes,
    rgb,
    write_gif,
)

#: Lane colours by lane type.
LANE_COLOURS = {LaneType.DRIVING: "#5a5f6b", LaneType.PARKING: "#6c8ebf",
                LaneType.SIDEWALK: "#c8a878", LaneType.SHOULDER: "#a9b0a0"}
#: Route colours, in the order routes are given.
ROUTE_COLOURS = ("#d7263d", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e")
#: Lattice colours: paths after the best, the best, other cars, speed limits and speeds, the
#: optimised trajectory.
LATTICE_COLOURS = {"path": "#8fb8e8", "best": "#d7263d", "car": "#222222",
                   "limit": "#f2b45a", "speed": "#1f5fa8", "blocked": "#000000",
                   "optimised": "#2ca02c"}
BACKGROUND = (250, 250, 247)
INK = rgb("#222222")
#: Road kinds drawn wider than a street, by how many times.
KIND_WIDTH = {"highway": 2.0}


def _png(target: str | os.PathLike) -> Path:
    path = Path(target)
    if path.suffix.lower() != ".png":
        raise InvalidQueryError(f"traffic pictures are PNG files; {str(path)!r} does not end "
                                "in .png")
    return path


def _save_png(target: Path, img: Any) -> Path:
    return atomic_write_bytes(target, png_bytes(img))


def save_road_routes(picture_path: str | os.PathLike, network: RoadNetwork, *,
                     routes: Sequence[ArrayLike] = (), labels: Sequence[str] | None = None,
                     title: str | None = None, size: int = TARGET_PX) -> Path:
    """Draw ``network``'s lanes coloured by type (:data:`LANE_COLOURS`; highways wider) and
    ``routes`` over them, each a sequence of lane ids (a route's ``path``) in its own colour
    (:data:`ROUTE_COLOURS`) from a green start disc to a purple goal disc, with ``labels``
    (one per route) as a legend; write a PNG ``size`` pixels along its longer side."""
    target = _png(picture_path)
    size = count("size", size, min=64)
    if not isinstance(network, RoadNetwork) or not network.lanes:
        raise InvalidQueryError(f"network {network!r} must be a RoadNetwork with lanes")
    lines = [network.route_points(r) for r in routes]
    names = list(labels) if labels is not None else [f"route {k + 1}" for k in range(len(lines))]
    if len(names) != len(lines):
        raise InvalidQueryError(f"{len(names)} labels for {len(lines)} routes: give one each")
    pts = np.vstack([lane.points for lane in network.lanes])
    margin = 0.04 * float(np.ptp(pts, axis=0).max() or 1.0) + 4.0
    lo, hi = pts.min(axis=0) - margin, pts.max(axis=0) + margin
    width, height, scale, dx, dy = gif_canvas(float(hi[0] - lo[0]), float(hi[1] - lo[1]),
                                              size)
    f = font(max(12, size // 50))
    rows = len(names) + (title is not None)
    top = rows * (f.size + 6) + (6 if rows else 0)

    def px(xy: np.ndarray) -> list[tuple[float, float]]:
        return [((x - lo[0]) * scale + dx, (hi[1] - y) * scale + dy + top)
                for x, y in np.asarray(xy).tolist()]

    Image, ImageDraw, _ = _pillow()
    img = Image.new("RGB", (width, height + top), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for lane in network.lanes:
        w = max(1, round(min(lane.width * scale * 0.5, 4.0) * KIND_WIDTH.get(lane.kind, 1.0)))
        draw.line(px(lane.points), fill=rgb(LANE_COLOURS[lane.type]), width=w)
    stroke = max(3, round(size / 200))
    for k, line in enumerate(lines):
        colour = rgb(ROUTE_COLOURS[k % len(ROUTE_COLOURS)])
        draw.line(px(line), fill=colour, width=max(2, stroke - 2 * k), joint="curve")
    r = stroke * 1.8
    for line in lines:
        for (x, y), key in zip(px(line[[0, -1]]), ("start", "goal")):
            draw.ellipse((x - r, y - r, x + r, y + r), fill=rgb(PALETTE[key]), outline=INK)
    if title is not None:
        draw.text((8, 6), title, fill=INK, font=f)
    for k, name in enumerate(names):
        y = 6 + (k + (title is not None)) * (f.size + 6)
        colour = rgb(ROUTE_COLOURS[k % len(ROUTE_COLOURS)])
        draw.rectangle((8, y + 3, 28, y + f.size - 3), fill=colour)
        draw.text((34, y), name, fill=INK, font=f)
    return _save_png(target, img)


def _frame(positions: np.ndarray, start_lane: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The road's frame: origin at the vehicle, unit ``along`` the lattice, unit ``left``."""
    origin = positions[0, start_lane]
    span = positions[-1].mean(axis=0) - positions[0].mean(axis=0)
    length = math.hypot(*span)
    along = span / length if length > 0 else np.array([1.0, 0.0])
    return origin, along, np.array([-along[1], along[0]])


def save_lattice(picture_path: str | os.PathLike, positions: ArrayLike, *,
                 paths: Sequence[ArrayLike], nodes: ArrayLike, start_lane: int,
                 labels: Sequence[str], cars: CarField | None = None,
                 times: ArrayLike | None = None, speeds: ArrayLike | None = None,
                 limits: ArrayLike | None = None, optimised: OptimisedPath | None = None,
                 title: str | None = None, size: int = TARGET_PX) -> Path:
    """Draw a road's lattice in the road's frame (along the road left to right, its width
    stretched to show the lanes) as a PNG ``size`` pixels wide.

    ``positions``: ``(n_sets + 1, n_lanes, 2)``, row 0 abreast of the vehicle (which stands
    in ``start_lane``), then the node sets.  ``nodes``: ``(n_sets, n_lanes)`` node costs
    (>= 0), shaded light (cheap) to dark (dear), unusable ones (inf) crossed.
    ``labels``: the lanes' types.  ``paths``: ``(n_sets + 1, 2)`` polylines, the best
    first (drawn red on top).  ``cars`` and ``times`` ``(n_sets,)``: the other cars, drawn
    now (filled) and, where they are predicted at a set's arrival time within half a step
    of that set, hollow.
    ``speeds`` and ``limits`` ``(n_sets + 1,)``: the best path's propagated speeds and turn
    limits, drawn in a panel below against the distance along the road.  ``optimised``: the
    trajectory optimiser's result from these paths, drawn green over them (and its speeds
    in the panel below, when there is one)."""
    target = _png(picture_path)
    if optimised is not None and not isinstance(optimised, OptimisedPath):
        raise InvalidQueryError(f"optimised {optimised!r} must be an OptimisedPath")
    size = count("size", size, min=128)
    pos = np.asarray(positions, dtype=np.float64)
    if pos.ndim != 3 or pos.shape[2] != 2 or pos.shape[0] < 2 or not np.isfinite(pos).all():
        raise InvalidQueryError(f"positions of shape {pos.shape} must be finite "
                                "(n_sets + 1, n_lanes, 2) with n_sets >= 1")
    n_sets, n_lanes = pos.shape[0] - 1, pos.shape[1]
    cost = np.asarray(nodes, dtype=np.float64)
    if cost.shape != (n_sets, n_lanes):
        raise InvalidQueryError(f"nodes of shape {cost.shape} must be ({n_sets}, {n_lanes})")
    bad = np.argwhere(~(cost >= 0))
    if bad.size:
        i, j = bad[0].tolist()
        raise InvalidQueryError(f"node cost {float(cost[i, j])!r} at set {i}, lane {j}: node "
                                "costs are >= 0, or inf for an unusable node")
    if len(labels) != n_lanes:
        raise InvalidQueryError(f"{len(labels)} labels for {n_lanes} lanes: give one each")
    start = count("start_lane", start_lane, min=0, max=n_lanes - 1)
    drawn = [np.asarray(p, dtype=np.float64) for p in paths]
    if any(p.ndim != 2 or p.shape[1] != 2 or not np.isfinite(p).all() for p in drawn):
        raise InvalidQueryError("paths must be finite (m, 2) polylines")
    origin, along, left = _frame(pos, start)

    def frame(xy: np.ndarray) -> np.ndarray:
        d = np.asarray(xy, dtype=np.float64) - origin
        return np.stack([d @ along, d @ left], axis=-1)

    local = frame(pos)
    a_lo, a_hi = float(local[..., 0].min()), float(local[..., 0].max())
    b_lo, b_hi = float(local[..., 1].min()), float(local[..., 1].max())
    pad_b = max(2.0, 0.5 * (b_hi - b_lo) / max(n_lanes - 1, 1))
    b_lo, b_hi = b_lo - pad_b, b_hi + pad_b
    width = size
    head = 0 if title is None else 26
    lane_h = max(120, size // 4)
    show_speed = speeds is not None
    speed_h = max(120, size // 4) if show_speed else 0
    left_px, right_px = 90.0, 24.0
    sx = (width - left_px - right_px) / max(a_hi - a_lo, 1e-9)
    sy = (lane_h - 20) / max(b_hi - b_lo, 1e-9)

    def px(ab: np.ndarray) -> list[tuple[float, float]]:
        ab = np.atleast_2d(ab)
        return [(left_px + (a - a_lo) * sx, head + 10 + (b_hi - b) * sy) for a, b in ab.tolist()]

    Image, ImageDraw, _ = _pillow()
    img = Image.new("RGB", (width, head + lane_h + speed_h), BACKGROUND)
    draw = ImageDraw.Draw(img)
    f = font(12)
    if title is not None:
        draw.text((8, 5), title, fill=INK, font=f)
    for j in range(n_lanes):
        line = px(local[:, j])
        draw.line(line, fill=(200, 200, 196), width=max(2, round(sy * 1.5)))
        draw.text((6, line[0][1] - 6), str(labels[j]), fill=INK, font=f)
    others = [] if cars is None else cars.trajectories
    ts = [] if times is None else np.asarray(times, dtype=np.float64).reshape(-1).tolist()
    if ts and len(ts) != n_sets:
        raise InvalidQueryError(f"{len(ts)} times for {n_sets} sets: give one each")
    # Now (filled, anywhere), and at each set's arrival time (hollow) where it is within
    # half a step of that set: the cars that set's nodes are scored against.
    at_set = local[1:, :, 0].mean(axis=1)
    half = 0.5 * float(np.diff(local[:, :, 0].mean(axis=1)).mean())
    car_marks = [(0.0, None)] + [(float(t), float(a)) for t, a in zip(ts, at_set)] \
        if others else []

    def draw_cars(hollow: bool) -> None:
        r = 7.0
        ink = rgb(LATTICE_COLOURS["car"])
        for t, near in car_marks:
            if (near is not None) != hollow:
                continue
            for car in others:
                a, b = frame(car.position_at(t))[0].tolist()
                if near is not None and abs(a - near) > half:
                    continue
                if a_lo - 1 <= a <= a_hi + 1 and b_lo <= b <= b_hi:
                    (x, y), = px(np.array([a, b]))
                    draw.rectangle((x - r * 1.6, y - r, x + r * 1.6, y + r), outline=ink,
                                   fill=None if hollow else ink, width=2 if hollow else 1)

    if car_marks:
        draw_cars(hollow=False)
    lines = [px(frame(p)) for p in drawn]
    for line in lines[1:][::-1]:
        draw.line(line, fill=rgb(LATTICE_COLOURS["path"]), width=3)
    if lines:
        draw.line(lines[0], fill=rgb(LATTICE_COLOURS["best"]), width=4)
    if optimised is not None:
        draw.line(px(frame(optimised.points)), fill=rgb(LATTICE_COLOURS["optimised"]),
                  width=2)
    finite = cost[np.isfinite(cost)]
    dear = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    ramp = bar_colours(64)
    r = 5.0
    for i in range(n_sets):
        for j in range(n_lanes):
            (x, y), = px(local[i + 1, j])
            if math.isinf(cost[i, j]):
                ink = rgb(LATTICE_COLOURS["blocked"])
                draw.line((x - r, y - r, x + r, y + r), fill=ink, width=2)
                draw.line((x - r, y + r, x + r, y - r), fill=ink, width=2)
                continue
            shade = tuple(int(v) for v in ramp[int(round(cost[i, j] / dear * 63))])
            draw.ellipse((x - r, y - r, x + r, y + r), fill=shade, outline=INK)
    if car_marks:
        draw_cars(hollow=True)
    (vx, vy), = px(local[0, start])
    draw.polygon([(vx + 9, vy), (vx - 7, vy - 6), (vx - 7, vy + 6)], fill=rgb(PALETTE["start"]),
                 outline=INK)
    if show_speed:
        _speed_panel(draw, f, np.asarray(speeds, dtype=np.float64),
                     None if limits is None else np.asarray(limits, dtype=np.float64),
                     frame(drawn[0])[:, 0] if drawn else local[:, start, 0],
                     x_of=lambda a: left_px + (a - a_lo) * sx, top=head + lane_h,
                     height=speed_h, width=width, right=right_px, left=left_px,
                     driven=None if optimised is None else
                     (frame(optimised.points)[:, 0], optimised.speeds))
    return _save_png(target, img)


def _speed_panel(draw: Any, f: Any, speeds: np.ndarray, limits: np.ndarray | None,
                 along: np.ndarray, *, x_of: Any, top: float, height: float, width: float,
                 right: float, left: float,
                 driven: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """Speeds (dots and a line, with their values) and turn limits (a lighter line) against
    the distance along the road, 0 at the panel's bottom; ``driven``: the distances and
    speeds of an optimised trajectory (a thin line)."""
    if speeds.shape != along.shape or (limits is not None and limits.shape != along.shape):
        raise InvalidQueryError(f"speeds of shape {speeds.shape} and limits must give one "
                                f"speed for each of the {along.size} points of the best path")
    values = np.concatenate([speeds, [] if limits is None else limits,
                             [] if driven is None else driven[1]])
    most = float(values[np.isfinite(values)].max(initial=0.0)) or 1.0
    base, span = top + height - 18, height - 52

    def pt(a: float, v: float) -> tuple[float, float]:
        return x_of(a), base - min(v, most) / most * span

    draw.line((left, base, width - right, base), fill=INK, width=1)
    draw.text((6, top + 6), "speed", fill=INK, font=f)
    draw.text((6, base - span - 4), f"{most:.3g}", fill=INK, font=f)
    draw.text((6, base - 6), "0", fill=INK, font=f)
    if limits is not None:
        draw.line([pt(a, v) for a, v in zip(along.tolist(), limits.tolist())],
                  fill=rgb(LATTICE_COLOURS["limit"]), width=2)
    if driven is not None:
        draw.line([pt(a, v) for a, v in zip(driven[0].tolist(), driven[1].tolist())],
                  fill=rgb(LATTICE_COLOURS["optimised"]), width=2)
    line = [pt(a, v) for a, v in zip(along.tolist(), speeds.tolist())]
    draw.line(line, fill=rgb(LATTICE_COLOURS["speed"]), width=3)
    for (x, y), v in zip(line, speeds.tolist()):
        draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=rgb(LATTICE_COLOURS["speed"]))
        draw.text((x, y - 6), f"{v:.1f}", fill=INK, font=f, anchor="md")


def animate_car_field(picture_path: str | os.PathLike, field: CarField, *,
                      lanes: Sequence[ArrayLike], times: ArrayLike,
                      vehicle: Trajectory | None = None, resolution: float = 1.0,
                      size: int = GIF_PX, fps: float = 8.0) -> Path:
    """Write the potential of ``field``'s cars over the area of ``lanes`` (polylines
    ``(n, 2)``, drawn white) as a GIF, one frame per time of ``times`` (seconds): dark where
    the cars are predicted to be, the cars' positions as red dots, and ``vehicle``'s path
    (green) with its position at each time.  ``resolution``: the side of a sampled square,
    world units (> 0)."""
    target = Path(picture_path)
    if target.suffix.lower() != ".gif":
        raise InvalidQueryError(f"animations are GIF files, not {str(target)!r}")
    if not isinstance(field, CarField):
        raise InvalidQueryError(f"field {field!r} must be a CarField")
    if vehicle is not None and not isinstance(vehicle, Trajectory):
        raise InvalidQueryError(f"vehicle {vehicle!r} must be a Trajectory")
    polylines = [np.asarray(p, dtype=np.float64) for p in lanes]
    if not polylines or any(p.ndim != 2 or p.shape[1] != 2 or not np.isfinite(p).all()
                            for p in polylines):
        raise InvalidQueryError("lanes must be one or more finite (n, 2) polylines")
    ts = np.asarray(times, dtype=np.float64).reshape(-1)
    if ts.size == 0 or not np.isfinite(ts).all():
        raise InvalidQueryError("times must be one or more finite times")
    step = positive_float("resolution", resolution)
    size, fps = count("size", size, min=32), positive_float("fps", fps)
    pts = np.vstack(polylines)
    lo, hi = pts.min(axis=0) - 3 * field.radius, pts.max(axis=0) + 3 * field.radius
    nx = max(2, int(math.ceil((hi[0] - lo[0]) / step)))
    ny = max(2, int(math.ceil((hi[1] - lo[1]) / step)))
    allocation("field samples", float(nx) * ny * ts.size)
    xs = lo[0] + (np.arange(nx) + 0.5) * step
    ys = hi[1] - (np.arange(ny) + 0.5) * step
    samples = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    frames = np.stack([field.potential(samples, t).reshape(ny, nx) for t in ts.tolist()])
    peak = float(frames.max()) or 1.0
    ramp = bar_colours(64)
    width, height, scale, dx, dy = gif_canvas(nx * step, ny * step, size)

    def px(xy: np.ndarray) -> list[tuple[float, float]]:
        return [((x - lo[0]) * scale + dx, (hi[1] - y) * scale + dy)
                for x, y in np.atleast_2d(xy).tolist()]

    Image, ImageDraw, _ = _pillow()
    f = font(12)
    images = []
    for t, values in zip(ts.tolist(), frames):
        heat = ramp[np.rint(values / peak * 63).astype(int)]
        tile = Image.fromarray(np.ascontiguousarray(heat), "RGB").resize(
            (max(1, round(nx * step * scale)), max(1, round(ny * step * scale))),
            Image.NEAREST)
        img = Image.new("RGB", (width, height), BACKGROUND)
        img.paste(tile, (round(dx), round(dy)))
        draw = ImageDraw.Draw(img)
        for line in polylines:
            draw.line(px(line), fill=(255, 255, 255), width=1)
        for car in field.trajectories:
            (x, y), = px(car.position_at(t))
            draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=rgb(LATTICE_COLOURS["best"]))
        if vehicle is not None:
            green = rgb(PALETTE["start"])
            draw.line(px(vehicle.points), fill=green, width=2)
            (x, y), = px(vehicle.position_at(t))
            draw.ellipse((x - 4, y - 4, x + 4, y + 4), fill=green, outline=INK)
        draw.text((6, 4), f"t = {t:.1f} s", fill=INK, font=f)
        images.append(img.convert("P", palette=Image.ADAPTIVE))
    return write_gif(target, images, fps)
