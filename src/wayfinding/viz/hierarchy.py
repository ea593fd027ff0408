"""Pictures of an HPA* hierarchy: the grid with its cluster borders, abstract edges,
transition nodes and a path, as SVG (no extra dependencies).

>>> from wayfinding.grid import Grid
>>> from wayfinding.grid.hpa import HPAStar
>>> g = Grid.from_ascii('''
... ......
... ..#...
... ......''')
>>> svg = render_hierarchy_svg(HPAStar.build(g, cluster_size=3), cell_px=10)
>>> svg.count('class="transition"'), 'class="borders"' in svg
(4, True)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InvalidQueryError
from ..grid.hpa import HPAStar
from .raster import Cells
from .svg import render_svg

#: Colours of the hierarchy layers.
COLOURS = {"border": "#3b6fd4", "intra": "#e0a020", "inter": "#c02060", "node": "#c02060"}

#: Lines of the base picture drawn again on top of the hierarchy layers.
_ON_TOP = ('<polyline class="path"', '<circle class="path-dot"', '<circle class="start"',
           '<circle class="goal"')


def render_hierarchy_svg(index: HPAStar, *, level: int = 1, path: Cells | None = None,
                         start: ArrayLike | None = None, goal: ArrayLike | None = None,
                         cell_px: float | None = None, title: str | None = None) -> str:
    """Draw ``index``'s grid as :func:`~wayfinding.viz.render_svg` does, then the borders of
    the level-``level`` clusters (``<path class="borders">``), that level's abstract edges
    (intra-edges as straight ``<line class="intra">`` between the nodes' cell centres, the
    inter-edges as ``<line class="inter">``) and its transition nodes
    (``<circle class="transition">``), then ``path`` (cells or a ``PathResult``) and the
    ``start``/``goal`` discs on top.  ``level``: 1 .. ``index.levels``.
    """
    if not isinstance(index, HPAStar):
        raise InvalidQueryError(f"render_hierarchy_svg needs an HPAStar index, got "
                                f"{type(index).__name__}")
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) \
            or not 1 <= level <= index.levels:
        raise InvalidQueryError(f"level {level!r} must be an integer in 1..{index.levels}")
    grid = index.grid
    base = render_svg(grid, path=path, start=start, goal=goal, cell_px=cell_px, title=title)
    lines = base.rstrip("\n").splitlines()
    on_top = [ln for ln in lines[:-1] if ln.startswith(_ON_TOP)]
    below = [ln for ln in lines[:-1] if not ln.startswith(_ON_TOP)]
    w, h = grid.width, grid.height
    side = index.layout.side(level)
    px = float(cell_px) if cell_px is not None else 800.0 / max(w, h)
    thin = max(0.08, 1.0 / px)
    cuts = [f"M{x} 0V{h}" for x in range(side, w, side)] + \
        [f"M0 {y}H{w}" for y in range(side, h, side)]
    out = [f'<path class="borders" d="{"".join(cuts)}" fill="none" '
           f'stroke="{COLOURS["border"]}" stroke-width="{2 * thin:.3g}"/>']
    nodes = index.arrays["nodes"]
    ip = index.arrays[f"indptr{level}"]
    dst = index.arrays[f"indices{level}"].astype(np.int64)
    src = np.repeat(np.arange(len(nodes)), np.diff(ip))
    keep = src < dst
    src, dst = src[keep], dst[keep]
    ya, xa = np.divmod(nodes[src], w)
    yb, xb = np.divmod(nodes[dst], w)
    inter = index.layout.cluster(nodes[src], level) != index.layout.cluster(nodes[dst], level)
    for kind, sel in (("intra", ~inter), ("inter", inter)):
        out.append(f'<g class="{kind}" stroke="{COLOURS[kind]}" stroke-width="{thin:.3g}" '
                   'shape-rendering="geometricPrecision">')
        out.extend(f'<line x1="{a}.5" y1="{b}.5" x2="{c}.5" y2="{d}.5"/>' for a, b, c, d in
                   zip(xa[sel].tolist(), ya[sel].tolist(), xb[sel].tolist(), yb[sel].tolist(),
                       strict=True))
        out.append("</g>")
    on = np.flatnonzero(index.arrays["node_level"] >= level)
    y, x = np.divmod(nodes[on], w)
    r = max(0.2, 2.5 / px)
    out.append(f'<g fill="{COLOURS["node"]}" shape-rendering="geometricPrecision">')
    out.extend(f'<circle class="transition" cx="{a}.5" cy="{b}.5" r="{r:.3g}"/>'
               for a, b in zip(x.tolist(), y.tolist(), strict=True))
    out.append("</g>")
    return "\n".join(below + out + on_top + ["</svg>"]) + "\n"
