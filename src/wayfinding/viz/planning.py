"""Pictures of planning with the body, seen from above (x right, y up): a movement plan over
its world (the root path coloured by clip, each clip's start pose as an arrow with its name,
the goal region), a locomotion plan (the corridor, the processed points and the actions
played along them), a crowd of footstep plans (GIF: footprints appearing at their times, the
centre-of-mass curves and the five circles of each body) and a fitted deceleration model
against the losses it was fitted to.  PNG and GIF through Pillow (the ``[viz]`` extra).

>>> from wayfinding.planning import default_clips, plan_movement
>>> plan = plan_movement(None, default_clips(), (0, 0, 0), (3, 0, 0), position_tolerance=0.5)
>>> render_movement_png(None, plan, default_clips(), goal=(3, 0, 0))[:4]
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

from .._validate import count, finite_point, finite_points, positive_float
from ..errors import InvalidQueryError
from ..grid import Grid
from ..navmesh import NavMesh
from ..planning.clips import ClipCatalogue
from ..planning.footsteps import FootstepPlan
from ..planning.locomotion import LocomotionPath
from ..planning.locomotion_plan import ROLES, Action
from ..planning.motion_fitting import MotionModelFit
from ..planning.movement import MovementPlan
from .raster import (
    GIF_PX,
    TARGET_PX,
    _pillow,
    cell_colours,
    font,
    gif_canvas,
    png_bytes,
    rgb,
    write_gif,
)

#: The colours of the pictures, ``#rrggbb``: the walkable area and the rest, the goal
#: region, the corridor, the raw and processed paths, fail-safe stops, lettering; ``clips``
#: (the root path's colours, clip by clip in catalogue order) and ``roles`` (by
#: :data:`~wayfinding.planning.locomotion_plan.ROLES`); ``left``/``right`` feet, the
#: centre-of-mass curves and bodies by character (``people``), the measured losses and the
#: fitted curve.
COLOURS: dict[str, Any] = {
    "free": "#f4f3ee", "blocked": "#2e3038", "goal": "#7b2cbf", "corridor": "#dce8f5",
    "raw": "#9a9a9a", "points": "#1a1a1a", "stop": "#d7263d", "text": "#222222",
    "clips": ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#17becf", "#bcbd22", "#7f7f7f"),
    "roles": dict(zip(ROLES, ("#17becf", "#2ca02c", "#1f77b4", "#d62728", "#9467bd",
                              "#8c564b", "#ff7f0e", "#e377c2"))),
    "left": "#1f5fa8", "right": "#d7263d",
    "people": ("#1b9e4b", "#7b2cbf", "#d9822b", "#1f77b4", "#8c564b", "#e377c2"),
    "measured": "#9a9a9a", "fit": "#d7263d", "background": "#fbfaf6",
}


class _View:
    """World to pixels, y up: the box ``lo``-``hi`` (world units) with a margin, scaled to
    ``size`` pixels along its longer side."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray, size: int, margin: float) -> None:
        self.lo, self.hi = lo - margin, hi + margin
        span = np.maximum(self.hi - self.lo, 1e-9)
        self.scale = size / float(span.max())
        self.width, self.height = (max(1, int(round(v * self.scale))) for v in span)

    def px(self, points: ArrayLike) -> list[tuple[float, float]]:
        q = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        return [(float(x), float(y)) for x, y in
                zip((q[:, 0] - self.lo[0]) * self.scale, (self.hi[1] - q[:, 1]) * self.scale)]


def _world_box(world: Grid | NavMesh | None) -> np.ndarray:
    """The world's corners ``(2, 2)`` (none for the open plane: ``(0, 2)``)."""
    if isinstance(world, NavMesh):
        v = np.asarray(world.vertices, dtype=np.float64)[:, :2]
        return np.array([v.min(axis=0), v.max(axis=0)])
    if isinstance(world, Grid):
        o = np.asarray(world.origin, dtype=np.float64)
        return np.array([o, o + np.array([world.width, world.height]) * world.cell_size])
    if world is not None:
        raise InvalidQueryError(f"world {type(world).__name__} must be None, a Grid or a "
                                "NavMesh")
    return np.empty((0, 2))


def _canvas(world: Grid | NavMesh | None, view: _View, highlight: Sequence[int] = ()) -> Any:
    """A picture of ``world`` on ``view``: walkable area light, the rest dark (the open
    plane all light), the polygons in ``highlight`` tinted as a corridor."""
    Image, ImageDraw, _ = _pillow()
    if world is None:
        return Image.new("RGB", (view.width, view.height), rgb(COLOURS["free"]))
    img = Image.new("RGB", (view.width, view.height), rgb(COLOURS["blocked"]))
    if isinstance(world, Grid):
        cells = np.ascontiguousarray(np.flipud(cell_colours(world)))
        (x0, y1), (x1, y0) = view.px(_world_box(world))
        size = (max(1, round(x1 - x0)), max(1, round(y1 - y0)))
        img.paste(Image.fromarray(cells, "RGB").resize(size, Image.NEAREST),
                  (round(x0), round(y0)))
        return img
    draw = ImageDraw.Draw(img)
    corridor = set(int(i) for i in highlight)
    for i in range(world.num_polygons):
        colour = COLOURS["corridor" if i in corridor else "free"]
        draw.polygon(view.px(world.polygon(i)[:, :2]), fill=rgb(colour), outline=rgb(colour))
    return img


def _arrow(draw: Any, view: _View, pose: ArrayLike, length: float, colour: str,
           width: int) -> None:
    """An arrow ``length`` world units long from ``pose``'s position along its heading."""
    x, y, h = np.asarray(pose, dtype=np.float64)[:3]
    tip = (x + length * math.cos(h), y + length * math.sin(h))
    wing = 0.4 * length
    left = (tip[0] - wing * math.cos(h - 0.5), tip[1] - wing * math.sin(h - 0.5))
    right = (tip[0] - wing * math.cos(h + 0.5), tip[1] - wing * math.sin(h + 0.5))
    draw.line(view.px([(x, y), tip]), fill=rgb(colour), width=width)
    draw.polygon(view.px([tip, left, right]), fill=rgb(colour))


def _label(draw: Any, at: tuple[float, float], text: str, colour: str, lettering: Any,
           placed: list[tuple[float, float, float, float]]) -> None:
    """Write ``text`` at ``at``, moved down a line at a time past the boxes of the labels
    ``placed`` before it (which it joins), so that labels of coinciding poses stay apart, and
    left of the picture's right edge."""
    x, y = at
    wide = draw.textbbox((0, 0), text, font=lettering)[2]
    x = max(0.0, min(x, draw.im.size[0] - wide - 2))      # kept inside the picture
    while True:
        box = draw.textbbox((x, y), text, font=lettering)
        if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                   for b in placed):
            break
        y += box[3] - box[1] + 2
    placed.append(box)
    draw.text((x, y), text, fill=rgb(colour), font=lettering)


def _title(title: object) -> str | None:
    if title is not None and not isinstance(title, str):
        raise InvalidQueryError(f"title {title!r} must be a string")
    return title


def _titled(img: Any, title: str | None) -> Any:
    """``img`` under a band holding ``title`` (``img`` itself when there is none)."""
    if not title:
        return img
    Image, ImageDraw, _ = _pillow()
    out = Image.new("RGB", (img.width, img.height + 28), rgb(COLOURS["background"]))
    out.paste(img, (0, 28))
    ImageDraw.Draw(out).text((6, 6), title, fill=rgb(COLOURS["text"]), font=font(16))
    return out


def render_movement_png(world: Grid | NavMesh | None, plan: MovementPlan,
                        clips: ClipCatalogue, *, goal: ArrayLike | None = None,
                        position_tolerance: float = 0.25, size: int = TARGET_PX,
                        title: str | None = None) -> bytes:
    """A movement ``plan`` over ``world`` (``None``: the open plane; a
    :class:`~wayfinding.grid.Grid` or a :class:`~wayfinding.navmesh.NavMesh`) as PNG bytes
    ``size`` pixels along the longer side (>= 64): the root path of each clip (from
    ``clips``, the catalogue it was planned with) in the clip's colour
    (``COLOURS["clips"]`` by catalogue order), the start pose of each clip as an arrow with
    the clip's name, and the goal region: a circle of ``position_tolerance`` round ``goal``
    (``(x, y, heading)``) with an arrow along its heading.  ``title`` is written in a band
    above the picture and stored as the PNG ``Title`` text chunk."""
    if not isinstance(plan, MovementPlan):
        raise InvalidQueryError(f"plan {plan!r} is not a MovementPlan")
    if not isinstance(clips, ClipCatalogue):
        raise InvalidQueryError(f"clips {clips!r} is not a ClipCatalogue")
    unknown = [n for n in plan.clips if n not in clips]
    if unknown:
        raise InvalidQueryError(f"the plan plays {unknown[0]!r}, which clips does not hold")
    g = None if goal is None else finite_point("goal", goal, 3)
    tol = positive_float("position_tolerance", position_tolerance, allow_zero=True)
    size = count("size", size, min=64)
    title = _title(title)
    paths = [clips[n].root_path(p, 0.05)[:, :2] for p, n in zip(plan.poses[:-1], plan.clips)]
    parts = [_world_box(world), plan.poses[:, :2]] + paths
    if g is not None:
        parts.append(np.array([g[:2] - tol, g[:2] + tol]))
    pts = np.concatenate([p for p in parts if len(p)] or [np.zeros((1, 2))])
    view = _View(pts.min(axis=0), pts.max(axis=0), size, 0.5)
    img = _canvas(world, view)
    _, ImageDraw, _ = _pillow()
    draw = ImageDraw.Draw(img)
    line = max(2, round(0.06 * view.scale))
    order = {name: k for k, name in enumerate(clips)}
    palette = COLOURS["clips"]
    if g is not None:
        (cx, cy), = view.px(g[:2])
        r = max(3.0, tol * view.scale)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=rgb(COLOURS["goal"]), width=line)
        _arrow(draw, view, g, 0.6, COLOURS["goal"], line)
    for path, name in zip(paths, plan.clips):
        draw.line(view.px(path), fill=rgb(palette[order[name] % len(palette)]), width=2 * line,
                  joint="curve")
    text = font(max(10, round(size / 60)))
    placed: list[tuple[float, float, float, float]] = []
    for pose, name in zip(plan.poses[:-1], plan.clips):
        _arrow(draw, view, pose, 0.35, COLOURS["text"], max(1, line // 2))
        (x, y), = view.px(pose[:2])
        _label(draw, (x + 4, y + 4), name, palette[order[name] % len(palette)], text, placed)
    return png_bytes(_titled(img, title), title=title)


def render_locomotion_png(mesh: NavMesh, path: LocomotionPath, *,
                          actions: Sequence[Action] = (), raw: ArrayLike | None = None,
                          track: ArrayLike | None = None, size: int = TARGET_PX,
                          title: str | None = None) -> bytes:
    """A locomotion plan on ``mesh`` as PNG bytes ``size`` pixels along the longer side
    (>= 64): the ``path``'s corridor tinted, the ``raw`` straight path (``(n, 2)``, thin
    grey) it was processed from, the processed points (dots; fail-safe stops as red
    squares), the ``actions`` played (each from its start to its end pose in its role's
    colour, ``COLOURS["roles"]``, named at its start unless it is a transfer) and the
    ``track`` of the root (``(m, 2)``, thin dark).  ``title`` as for
    :func:`render_movement_png`."""
    if not isinstance(mesh, NavMesh):
        raise InvalidQueryError(f"mesh {mesh!r} is not a NavMesh")
    if not isinstance(path, LocomotionPath):
        raise InvalidQueryError(f"path {path!r} is not a LocomotionPath")
    bad = [a for a in actions if not isinstance(a, Action)]
    if bad:
        raise InvalidQueryError(f"actions holds {bad[0]!r}, not an Action")
    line_pts = np.empty((0, 2)) if raw is None else finite_points("raw", raw)[0]
    walked = np.empty((0, 2)) if track is None else finite_points("track", track)[0]
    size = count("size", size, min=64)
    title = _title(title)
    box = _world_box(mesh)
    view = _View(box[0], box[1], size, 0.5)
    img = _canvas(mesh, view, path.corridor.tolist())
    _, ImageDraw, _ = _pillow()
    draw = ImageDraw.Draw(img)
    line = max(2, round(0.06 * view.scale))
    if len(line_pts) > 1:
        draw.line(view.px(line_pts), fill=rgb(COLOURS["raw"]), width=max(1, line // 2))
    if len(path.points) > 1:
        draw.line(view.px(path.points), fill=rgb(COLOURS["points"]), width=1)
    for a in actions:
        draw.line(view.px([a.start[:2], a.end[:2]]), fill=rgb(COLOURS["roles"][a.role]),
                  width=2 * line)
    if len(walked) > 1:
        draw.line(view.px(walked), fill=rgb(COLOURS["points"]), width=max(1, line // 2))
    r = max(3.0, 0.12 * view.scale)
    for (x, y), stop in zip(view.px(path.points), path.stops.tolist()):
        if stop:
            draw.rectangle((x - r, y - r, x + r, y + r), fill=rgb(COLOURS["stop"]))
        else:
            draw.ellipse((x - r, y - r, x + r, y + r), fill=rgb(COLOURS["points"]))
    text = font(max(10, round(size / 70)))
    placed: list[tuple[float, float, float, float]] = []
    for a in actions:
        if a.role != "transfer":
            _arrow(draw, view, a.start, 0.4, COLOURS["roles"][a.role], max(1, line // 2))
            (x, y), = view.px(a.start[:2])
            _label(draw, (x + 4, y + 4), a.clip.name, COLOURS["text"], text, placed)
    return png_bytes(_titled(img, title), title=title)


def animate_footsteps(picture_path: str | os.PathLike, plans: Sequence[FootstepPlan], *,
                      size: int = GIF_PX, fps: float = 12.0, frames: int = 120) -> Path:
    """Write a crowd of footstep ``plans`` as a GIF ``size`` pixels wide (y up), over at
    most ``frames`` frames evenly spread from the first plan's start to half a second
    after the last ends: each footprint appears at the time its foot lands (left feet in
    ``COLOURS["left"]``, right in ``["right"]``), each character's centre-of-mass curve is
    drawn thin in its colour, and the five circles of its body at the frame's time."""
    target = Path(picture_path)
    if target.suffix.lower() != ".gif":
        raise InvalidQueryError(f"animations are GIF files, not {str(target)!r}")
    crowd = list(plans)
    if not crowd:
        raise InvalidQueryError("plans holds no footstep plan")
    bad = [p for p in crowd if not isinstance(p, FootstepPlan)]
    if bad:
        raise InvalidQueryError(f"plans holds {bad[0]!r}, not a FootstepPlan")
    size, fps = count("size", size, min=32), positive_float("fps", fps)
    frames = count("frames", frames)
    t0 = min(float(p.times[0]) for p in crowd)
    t1 = max(float(p.times[-1]) for p in crowd) + 0.5
    fine = np.linspace(t0, t1, 200)
    curves = [p.trajectory(fine)[0] for p in crowd]
    pts = np.concatenate(curves + [p.feet for p in crowd])
    reach = max(float(p.model.radii.max()) + p.model.shoulder_offset for p in crowd)
    lo, hi = pts.min(axis=0) - reach - 0.3, pts.max(axis=0) + reach + 0.3
    width, height, scale, dx, dy = gif_canvas(float(hi[0] - lo[0]), float(hi[1] - lo[1]), size)

    def px(xy: np.ndarray) -> list[tuple[float, float]]:
        return [(float((x - lo[0]) * scale + dx), float((hi[1] - y) * scale + dy))
                for x, y in np.asarray(xy).reshape(-1, 2).tolist()]

    people = COLOURS["people"]
    keys = ["background", "left", "right", "text"] + [f"person{k}" for k in range(len(people))]
    ink = {key: k for k, key in enumerate(keys)}                  # the frames' palette
    colours = [COLOURS[k] for k in keys[:4]] + list(people)
    Image, ImageDraw, _ = _pillow()
    base = Image.new("P", (width, height), ink["background"])
    base.putpalette([c for colour in colours for c in rgb(colour)])
    draw = ImageDraw.Draw(base)
    for k, curve in enumerate(curves):
        draw.line(px(curve), fill=ink[f"person{k % len(people)}"], width=1)
    images = []
    for t in np.linspace(t0, t1, frames).tolist():
        img = base.copy()
        d = ImageDraw.Draw(img)
        for p in crowd:
            fr = max(1.0, p.model.foot_radius * scale)
            landed = p.times <= t
            for (x, y), side in zip(px(p.feet[landed]), p.sides[landed].tolist()):
                d.ellipse((x - fr, y - fr, x + fr, y + fr),
                          fill=ink["right" if side > 0 else "left"])
        for k, p in enumerate(crowd):
            colour = ink[f"person{k % len(people)}"]
            for (x, y), radius in zip(px(p.body([t])[0]), p.model.radii.tolist()):
                r = max(1.0, radius * scale)
                d.ellipse((x - r, y - r, x + r, y + r), outline=colour, width=2)
        d.text((6, 4), f"{t - t0:4.1f} s", fill=ink["text"])
        images.append(img)
    return write_gif(target, images, fps)


def render_deceleration_png(fit: MotionModelFit, *, size: int = TARGET_PX,
                            title: str | None = None) -> bytes:
    """A fitted deceleration model as PNG bytes ``size`` pixels wide (>= 64, two thirds as
    tall): the speed each slow-down run of ``fit`` (a command from a speed to a lower
    non-zero one, no turn) had lost against the distance it had travelled since the switch
    (thin grey, every sample), and the fitted ``Δv(d) = a d² + b d + c √d`` over the same
    distances (red), with axes in metres and m/s; ``title`` as for
    :func:`render_movement_png`.  A fit without a deceleration fit raises
    :class:`~wayfinding.errors.InvalidQueryError`."""
    if not isinstance(fit, MotionModelFit):
        raise InvalidQueryError(f"fit {fit!r} is not a MotionModelFit")
    if fit.deceleration is None:
        raise InvalidQueryError("fit holds no deceleration fit (it stopped before the "
                                "slow-downs)")
    size = count("size", size, min=64)
    title = _title(title)
    measured = []
    for run in fit.runs:
        c = run.command
        if 0 < c.goal_speed < c.start_speed and c.turn == 0 and not c.circle:
            for t in run.trajectories:
                along = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(t.position,
                                                                            axis=0).T))))
                measured.append(np.column_stack([along, t.speed[0] - t.speed]))
    a, b, c3 = fit.deceleration.coefficients.tolist()
    far = max([float(m[:, 0].max()) for m in measured] + [1.0])
    d = np.linspace(0.0, far, 200)
    curve = np.column_stack([d, a * d * d + b * d + c3 * np.sqrt(d)])
    ys = np.concatenate([m[:, 1] for m in measured] + [curve[:, 1]])
    lo_y, hi_y = min(0.0, float(ys.min())), max(float(ys.max()), 1e-6)
    Image, ImageDraw, _ = _pillow()
    w, h = size, max(48, size * 2 // 3)
    pad = max(30, size // 12)
    img = Image.new("RGB", (w, h), rgb(COLOURS["background"]))
    draw = ImageDraw.Draw(img)

    def px(q: np.ndarray) -> list[tuple[float, float]]:
        x = pad + q[:, 0] / far * (w - 2 * pad)
        y = h - pad - (q[:, 1] - lo_y) / (hi_y - lo_y) * (h - 2 * pad)
        return list(zip(x.tolist(), y.tolist()))

    ink = rgb(COLOURS["text"])
    draw.line(px(np.array([[0.0, hi_y], [0.0, lo_y], [far, lo_y]])), fill=ink, width=1)
    for m in measured:
        draw.line(px(m), fill=rgb(COLOURS["measured"]), width=1)
    draw.line(px(curve), fill=rgb(COLOURS["fit"]), width=max(2, size // 300))
    text = font(max(10, size // 60))
    draw.text((w - pad, h - pad + 4), f"{far:.1f} m", fill=ink, font=text, anchor="ra")
    draw.text((pad - 4, pad), f"{hi_y:.1f} m/s", fill=ink, font=text, anchor="rm")
    draw.text((w / 2, h - pad + 4), "distance since the switch", fill=ink, font=text,
              anchor="ma")
    return png_bytes(_titled(img, title), title=title)
