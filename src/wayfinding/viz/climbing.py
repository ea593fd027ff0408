"""Pictures of climb graphs seen from the front (x right, z up, y into the picture): the
blockers as grey boxes, the ground line, the elements coloured by kind, the jump and drop
links, clue links down to the ground, climb paths and their Bézier splines, and the
characters' positions.  PNG through Pillow (the ``[viz]`` extra).

>>> from wayfinding.climbing import climbing_wall, find_climb_path
>>> wall = climbing_wall(bays=3, floors=2)
>>> g = wall.graph()
>>> png = render_climb_png(g, blockers=wall.blockers)
>>> png[:4]
b'\\x89PNG'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._io import atomic_write_bytes
from .._validate import count, finite_points
from ..climbing import Blockers, ClimbGraph, ClimbPath, ClimbSpline, ClueLink, EdgeKind
from ..errors import InvalidQueryError
from .raster import TARGET_PX, _pillow, font, png_bytes, rgb

#: The colours of the picture, ``#rrggbb``: elements by kind, links by kind, the paths in
#: turn (``paths``), their splines, blockers, the ground and the background.
COLOURS: dict[str, Any] = {
    "ledge": "#1f77b4", "pipe": "#2ca02c", "ladder": "#8c564b",
    "jump": "#ff7f0e", "drop": "#9467bd", "clue": "#17becf",
    "paths": ("#d7263d", "#1b9e4b", "#7b2cbf", "#e377c2"), "spline": "#222222",
    "blocker": "#b8b8b8", "ground": "#6b5a45", "background": "#fbfaf6", "node": "#444444",
}


def _xz(points: np.ndarray) -> np.ndarray:
    return np.asarray(points, dtype=np.float64).reshape(-1, 3)[:, [0, 2]]


def render_climb_png(graph: ClimbGraph, *, blockers: Blockers | None = None,
                     paths: Sequence[ClimbPath] = (), splines: Sequence[ClimbSpline] = (),
                     clues: Sequence[ClueLink] = (), characters: Any = None,
                     links: bool = True, title: str | None = None,
                     size: int = TARGET_PX) -> bytes:
    """``graph`` from the front as PNG bytes ``size`` pixels along its longer side (>= 64):
    ``blockers``' boxes, the ground (height 0) when clue links are given, the elements by
    kind, the jump and drop ``links`` (thin), the ``clues``, each of ``paths`` in its
    colour (thick) with the ``splines`` (thin, dark) over them, ``characters`` (``(n, 3)``
    positions) as discs, and a ``title`` line."""
    if not isinstance(graph, ClimbGraph):
        raise InvalidQueryError(f"graph {graph!r} is not a ClimbGraph")
    size = count("size", size, min=64)
    block = Blockers() if blockers is None else blockers
    if not isinstance(block, Blockers):
        raise InvalidQueryError(f"blockers {block!r} is not a Blockers")
    for name, items, kind in (("paths", paths, ClimbPath), ("splines", splines, ClimbSpline),
                              ("clues", clues, ClueLink)):
        bad = [x for x in items if not isinstance(x, kind)]
        if bad:
            raise InvalidQueryError(f"{name} holds {bad[0]!r}, not a {kind.__name__}")
    people = np.empty((0, 3)) if characters is None else \
        finite_points("characters", characters, 3)[0]
    parts = [_xz(e.points) for e in graph.elements] + [_xz(graph.nodes)]
    parts += [_xz(block.boxes.reshape(-1, 3))] + [_xz(p.points) for p in paths]
    parts += [_xz(np.array([c.ground, c.climb])) for c in clues] + [_xz(people)]
    pts = np.concatenate([p for p in parts if len(p)] or [np.zeros((1, 2))])
    lo, hi = pts.min(axis=0) - 1.0, pts.max(axis=0) + 1.0
    span = hi - lo
    scale = size / float(span.max())
    head = 28 if title else 0
    width, height = int(round(span[0] * scale)), int(round(span[1] * scale)) + head
    Image, ImageDraw, _ = _pillow()
    img = Image.new("RGB", (max(width, 1), max(height, 1)), rgb(COLOURS["background"]))
    draw = ImageDraw.Draw(img)

    def px(points: np.ndarray) -> list[tuple[float, float]]:
        q = _xz(points)
        return [(float(x), float(z)) for x, z in
                zip((q[:, 0] - lo[0]) * scale, (hi[1] - q[:, 1]) * scale + head)]

    line = max(1, round(scale * 0.08))
    for lo_box, hi_box in block.boxes:
        (x0, z1), (x1, z0) = px(np.array([lo_box, hi_box]))
        draw.rectangle((x0, z0, x1, z1), fill=rgb(COLOURS["blocker"]))
    if clues:
        (gx0, gz), (gx1, _) = px(np.array([(lo[0], 0.0, 0.0), (hi[0], 0.0, 0.0)]))
        draw.line((gx0, gz, gx1, gz), fill=rgb(COLOURS["ground"]), width=line)
    if links:
        for (u, v), kind in zip(graph.edges.tolist(), graph.edge_kinds.tolist()):
            if kind != EdgeKind.CLIMB and (u < v or (v, u) not in graph.edge_ids):
                colour = COLOURS["jump" if kind == EdgeKind.JUMP else "drop"]
                draw.line(px(graph.nodes[[u, v]]), fill=rgb(colour), width=1)
    for e in graph.elements:
        draw.line(px(e.points), fill=rgb(COLOURS[e.kind.value]), width=2 * line)
    for c in clues:
        draw.line(px(np.array([c.ground, c.climb])), fill=rgb(COLOURS["clue"]), width=line)
    dot = max(1.5, line * 0.8)
    for x, z in px(graph.nodes):
        draw.ellipse((x - dot, z - dot, x + dot, z + dot), fill=rgb(COLOURS["node"]))
    for k, p in enumerate(paths):
        if len(p.points) > 1:
            draw.line(px(p.points), fill=rgb(COLOURS["paths"][k % len(COLOURS["paths"])]),
                      width=3 * line, joint="curve")
    for s in splines:
        draw.line(px(s.samples), fill=rgb(COLOURS["spline"]), width=max(1, line))
    r = max(3.0, 0.3 * scale)
    for k, (x, z) in enumerate(px(people)):
        draw.ellipse((x - r, z - r, x + r, z + r),
                     fill=rgb(COLOURS["paths"][k % len(COLOURS["paths"])]),
                     outline=rgb(COLOURS["spline"]))
    if title:
        draw.text((6, 6), title, fill=rgb(COLOURS["spline"]), font=font(16))
    return png_bytes(img)


def save_climb(picture_path: str | os.PathLike, graph: ClimbGraph, **options: Any) -> Path:
    """Write :func:`render_climb_png` of ``graph`` (with ``options``) to ``picture_path``
    (a ``.png`` file, through a temporary file and a rename) and return it."""
    target = Path(picture_path)
    if target.suffix.lower() != ".png":
        raise InvalidQueryError(f"climb pictures are PNG files, not {str(target)!r}")
    return atomic_write_bytes(target, render_climb_png(graph, **options))
