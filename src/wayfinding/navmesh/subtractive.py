"""The subtractive builder: start from convex pieces of the outline and cut each obstacle out
of them, one convex obstacle at a time (hybrid vector-field pathfinding, section 3.1.2).

Removing a convex obstacle O from a convex polygon P leaves the pieces

    P ∩ H_1 ∩ … ∩ H_(i-1) ∩ ¬H_i     for each side i of O,

where H_j is the inner half-plane of side j: the part of P beyond side i and within the
lines extended from the sides before it.  Each piece is convex (an intersection of half-planes
with P); they are disjoint and cover P minus O; a side whose outer half-plane misses P makes
no piece, and a P inside O makes none at all.  Optionally the start pieces are first cut by a
coarse square grid of side ``cell``, which bounds how long a polygon can be (the paper's cure
for inaccurate traversal costs across long polygons).

Pieces split along lines leave T-junctions: a vertex of one polygon in the middle of a
neighbour's edge.  They are welded by inserting such vertices into the neighbour's edge
(collinear corners keep it convex), so neighbours share whole edges.  Vertices closer than
``1e-9`` times the world's size are merged first (or 16 float spacings of its coordinates,
where that is more: :func:`weld_tolerance`), and pieces thinner than that dropped.

Pieces are cut in :func:`~wayfinding.navmesh.build.unit_frame` (the area moved near the
origin and scaled to a size of about 1), so a world far from the origin, tiny or huge is cut
as it would be at unit size, and its own corners come back exactly.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._deprecated import positional_options, renamed_keywords
from .._validate import MAX_PIECES, allocation
from ..errors import InvalidGeometryError
from ..geometry.predicates import orient2d
from . import build as _build


def _clip(poly: np.ndarray, a: np.ndarray, b: np.ndarray, keep_left: bool) -> np.ndarray:
    """The part of convex ``poly`` on the left (or right) of the line a -> b, closed."""
    d = b - a
    side = d[0] * (poly[:, 1] - a[1]) - d[1] * (poly[:, 0] - a[0])
    if not keep_left:
        side = -side
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        sp, sq = side[i], side[(i + 1) % n]
        if sp >= 0:
            out.append(p)
        if (sp > 0 > sq) or (sp < 0 < sq):
            t = sp / (sp - sq)
            out.append(p + t * (q - p))
    return np.array(out) if out else np.empty((0, 2))


def _area(poly: np.ndarray) -> float:
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def subtract(piece: np.ndarray, obstacle: np.ndarray, tiny: float) -> list[np.ndarray] | None:
    """Convex ``piece`` minus convex ``obstacle`` (both counter-clockwise): the pieces left,
    or None when they do not overlap (the piece is kept as it is)."""
    rest = piece
    out = []
    n = len(obstacle)
    for i in range(n):
        a, b = obstacle[i], obstacle[(i + 1) % n]
        beyond = _clip(rest, a, b, keep_left=False)      # outside side i
        if _area(beyond) > tiny:
            out.append(beyond)
        rest = _clip(rest, a, b, keep_left=True)
        if _area(rest) <= tiny:
            return None                                  # no overlap: keep the piece
    return out                                           # rest = piece ∩ obstacle, dropped


def _convex_parts(geom: Any) -> list[np.ndarray]:
    """Convex pieces of a polygon without holes (its constrained Delaunay triangles merged
    by Hertel–Mehlhorn), counter-clockwise."""
    verts, tris = _build.triangulate(geom)
    return [verts[p] for p in _build.merge_convex(verts, tris, 1 << 30)]


@renamed_keywords(cell="cell_size")
@positional_options("cell_size")
def subtractive_pieces(area: Any, *, cell_size: float | None = None) -> list[np.ndarray]:
    """Convex pieces covering a valid walkable (Multi)Polygon, by subtraction (cut in
    :func:`~wayfinding.navmesh.build.unit_frame`, so at any offset and size alike)."""
    from shapely.geometry import Polygon

    x0, y0, x1, y1 = area.bounds
    if cell_size is not None:
        allocation(f"a subtractive grid of cell {cell_size:g} over {x1 - x0:g} x {y1 - y0:g}",
                   math.ceil((x1 - x0) / cell_size) * math.ceil((y1 - y0) / cell_size),
                   limit=MAX_PIECES, error=InvalidGeometryError)
    area, shift, scale = _build.unit_frame(area)
    parts = list(getattr(area, "geoms", [area]))
    pieces: list[np.ndarray] = []
    owner: list[int] = []               # the part each piece comes from
    obstacles: list[tuple[int, np.ndarray]] = []
    for i, part in enumerate(parts):
        found = _convex_parts(Polygon(part.exterior))
        pieces += found
        owner += [i] * len(found)
        for hole in part.interiors:
            obstacles += [(i, obs) for obs in _convex_parts(Polygon(hole))]
    x0, y0, x1, y1 = area.bounds
    tiny = 1e-12 * max(x1 - x0, y1 - y0) ** 2
    if cell_size is not None:
        side = cell_size / scale
        grid = []
        for gx in np.arange(x0, x1, side):
            for gy in np.arange(y0, y1, side):
                grid.append(np.array([[gx, gy], [gx + side, gy], [gx + side, gy + side],
                                      [gx, gy + side]]))
        cut, cut_owner = [], []
        for p, i in zip(pieces, owner):
            for g in grid:
                q = p
                for k in range(4):
                    q = _clip(q, g[k], g[(k + 1) % 4], keep_left=True)
                    if len(q) < 3:
                        break
                if _area(q) > tiny:
                    cut.append(q)
                    cut_owner.append(i)
        pieces, owner = cut, cut_owner
    # A part's holes cut only its own pieces (another part may lie inside one of them).
    for at, obs in obstacles:
        lo, hi = obs.min(axis=0), obs.max(axis=0)
        kept, kept_owner = [], []
        for p, i in zip(pieces, owner):
            if i != at or (p.max(axis=0) < lo).any() or (p.min(axis=0) > hi).any():
                kept.append(p)
                kept_owner.append(i)
                continue
            rest = subtract(p, obs, tiny)
            out = [p] if rest is None else rest
            kept += out
            kept_owner += [i] * len(out)
        pieces, owner = kept, kept_owner
    return [p * scale + shift for p in pieces]


def weld_tolerance(area: Any) -> float:
    """The tolerance to weld pieces cut from ``area`` at: ``1e-9`` times its size, or 16
    float spacings of its largest coordinate where that is more (cut points are rounded to
    them).  In the latter case two of the area's own corners that it would merge are
    refused with :class:`InvalidGeometryError`: the coordinates cannot hold the area's
    features apart once it is cut."""
    shapely = _build._shapely()
    corners = np.unique(shapely.get_coordinates(area), axis=0)
    x0, y0, x1, y1 = area.bounds
    tol = 16 * float(np.spacing(np.abs(corners).max()))
    if tol <= 1e-9 * max(x1 - x0, y1 - y0):
        return 1e-9 * max(x1 - x0, y1 - y0)
    _, inverse, counts = np.unique(np.round(corners / tol), axis=0, return_inverse=True,
                                   return_counts=True)
    group = inverse.ravel()
    merged = np.flatnonzero(counts[group] > 1)
    if len(merged):
        first = merged[0]
        p, q = (tuple(corners[i].tolist())
                for i in (first, np.flatnonzero(group == group[first])[1]))
        raise InvalidGeometryError(
            f"the walkable area's corners {p} and {q} are within {tol:.3g} (16 float "
            f"spacings at its coordinates) of each other: features this fine cannot be held "
            f"apart so far from the origin; move the area nearer the origin or scale it up")
    return tol


def _thickness(ring: np.ndarray) -> float:
    """Twice a convex ring's area over its perimeter: between a third of its width and its
    width."""
    perimeter = float(np.hypot(*(np.roll(ring, -1, axis=0) - ring).T).sum())
    return 2 * _area(ring - ring[0]) / perimeter if perimeter > 0 else 0.0


@positional_options("junctions")
def weld(pieces: list[np.ndarray], tol: float, *, junctions: bool = True
         ) -> tuple[np.ndarray, list[list[int]], list[int]]:
    """Shared vertex ids for the pieces, with every vertex lying inside a neighbour's edge
    inserted into that edge.  ``tol`` > 0: points within ``tol`` are merged and "inside an
    edge" means within ``tol`` of it; ``tol`` = 0: equal points only, and exactly on the edge
    (:func:`~wayfinding.geometry.orient2d`).  ``junctions=False`` skips that insertion (for
    pieces known to meet edge to edge).  Returns the vertices, the polygons and the indices
    of the pieces kept: a piece left with fewer than 3 vertices, or thinner than ``tol``
    (twice its area over its perimeter; its corners would be taken for junctions on its own
    and its neighbours' edges), is dropped."""
    pts = np.concatenate(pieces)
    keys = np.round(pts / tol).astype(np.int64) if tol > 0 else pts
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    verts = pts[first]
    scale = float(np.ptp(verts, axis=0).max()) if len(verts) else 1.0
    polys: list[list[int]] = []
    kept: list[int] = []
    at = 0
    for i_piece, p in enumerate(pieces):
        ids = inverse[at:at + len(p)].ravel().tolist()
        at += len(p)
        ring = [v for i, v in enumerate(ids) if v != ids[i - 1]]
        if len(ring) >= 3 and (tol == 0 or _thickness(verts[ring]) > tol):
            polys.append(ring)
            kept.append(i_piece)
    if len(pieces) == len(polys) == 1 or not junctions:
        return verts, polys, kept
    # Insert T-junction vertices: for each edge, the vertices (of the pieces kept) strictly
    # inside it, looked up in buckets of about the median edge length along the edge.
    lo = verts.min(axis=0)
    lengths = [float(np.hypot(*(verts[r[k]] - verts[r[k - 1]]))) for r in polys
               for k in range(len(r))]
    cellsz = max(float(np.median(lengths)) if lengths else scale, tol, 1e-300)
    buckets: dict[tuple[int, int], list[int]] = {}
    used = np.unique(np.concatenate([np.asarray(r) for r in polys])) if polys \
        else np.empty(0, np.int64)
    cells = np.floor((verts[used] - lo) / cellsz).astype(np.int64).tolist()
    for i, (x, y) in zip(used.tolist(), cells):
        buckets.setdefault((x, y), []).append(i)
    out = []
    for ring in polys:
        new: list[int] = []
        for k in range(len(ring)):
            u, v = ring[k], ring[(k + 1) % len(ring)]
            new.append(u)
            a, b = verts[u], verts[v]
            d = b - a
            length2 = float(d @ d)
            steps = int(np.sqrt(length2) / cellsz) + 2
            along = a + np.linspace(0.0, 1.0, steps)[:, None] * d
            cells = {(cx + dx, cy + dy)
                     for cx, cy in np.floor((along - lo) / cellsz).astype(np.int64).tolist()
                     for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
            cand = [w for cell in cells for w in buckets.get(cell, ()) if w != u and w != v]
            if not cand:
                continue
            c = verts[cand]
            t = ((c - a) @ d) / length2
            if tol > 0:
                off = np.abs(d[0] * (c[:, 1] - a[1]) - d[1] * (c[:, 0] - a[0]))
                on = (t > 0) & (t < 1) & (off <= tol * np.sqrt(length2))
            else:                       # exactly on the line, strictly between the ends
                k = 0 if abs(d[0]) >= abs(d[1]) else 1
                lo_k, hi_k = min(a[k], b[k]), max(a[k], b[k])
                on = (orient2d(a, b, c) == 0) & (c[:, k] > lo_k) & (c[:, k] < hi_k)
            for _, w in sorted(zip(t[on].tolist(), np.asarray(cand)[on].tolist())):
                new.append(int(w))
        out.append(new)
    return verts, out, kept
