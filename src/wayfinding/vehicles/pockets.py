"""Planning next to one vehicle: its pockets as a local navigation mesh, and wall hugging.

The pocket triangles :func:`~wayfinding.vehicles.hulls.convexify` leaves between a
vehicle's merged contour and its convex hull cover the walkable space inside the hull (say
between a carriage and its horses).  With a **band** of triangles between the hull and a copy
of it scaled about its centre until it holds both ends of a query, they triangulate a ring
round the contour.  :func:`pocket_path` walks that ring's triangle adjacency from the start's
triangle to the goal's: the band goes round the vehicle, so there are two corridors (one per
side; the pockets hang off the band as trees, entered through their **mouth**, the hull edge
that closes them), each pulled taut by the funnel
(:func:`~wayfinding.geometry.funnel.funnel_path`), and the shorter is the shortest path that
keeps out of the contour.

:func:`hug_contour` is the alternative: walk along the contour on the side with the shorter
walk until the goal is in sight, aiming at the furthest contour corner on that side in sight
of the agent.  The contour is already grown by the agent radius, so both keep that distance
from the vehicle's boxes.

Polygons are clockwise ``(n, 2)`` float64 arrays of ``(x, y)`` points (y up), as in
:mod:`wayfinding.vehicles.hulls`.

>>> from wayfinding.vehicles.hulls import convexify, merge_boxes
>>> contour = merge_boxes([(0, 0, 1.5, 0.8, 0), (2.3, 0.45, 0.6, 0.25, 0),
...                        (2.3, -0.45, 0.6, 0.25, 0)])          # a carriage and two horses
>>> hull, pockets = convexify(contour)
>>> pocket_path((2.5, 0.0), (2.5, 3.0), contour, hull, pockets).round(3).tolist()
[[2.5, 0.0], [2.9, 0.2], [2.9, 0.7], [2.5, 3.0]]
>>> hug_contour((2.5, 3.0), (2.5, 0.0), contour).round(3).tolist()
[2.9, 0.7]
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validate import finite_point, reals
from ..errors import InvalidGeometryError, InvalidQueryError, brief
from ..geometry.funnel import funnel_path
from .hulls import _boundary_gaps, _cross, check_polygon, point_in_polygon

#: Most triangle corridors :func:`pocket_path` compares: a ring round one contour has one
#: each way round, and no more.
_MAX_CORRIDORS = 2


def pocket_path(start: ArrayLike, goal: ArrayLike, contour: ArrayLike, hull: ArrayLike,
                pockets: ArrayLike) -> np.ndarray | None:
    """The shortest path from ``start`` to ``goal`` keeping out of ``contour``, across the
    ``pockets`` (``(k, 3, 2)`` triangles filling ``hull`` minus ``contour``, as
    :func:`~wayfinding.vehicles.hulls.convexify` returns them) and a band round ``hull``.

    Returns the corners ``(c, 2)`` float64 from ``start`` to ``goal`` (one row when they
    coincide), or ``None`` when the triangles do not make a ring round the contour (a
    pocket with a T-junction, say, left by a straight contour vertex): the pockets are not
    usable and the caller hugs the wall instead.  Ends inside the contour (more than a
    hair's breadth from its boundary) raise :class:`~wayfinding.errors.InvalidQueryError`.
    """
    p = finite_point("start", start)
    g = finite_point("goal", goal)
    c = check_polygon("contour", contour)
    h = check_polygon("hull", hull)
    tris = reals("pockets", pockets, error=InvalidGeometryError)
    if tris.size == 0:
        tris = tris.reshape(0, 3, 2)
    if tris.ndim != 3 or tris.shape[1:] != (3, 2) or not np.isfinite(tris).all():
        raise InvalidGeometryError(f"pockets {brief(pockets)} must be finite (k, 3, 2) "
                                   "triangles")
    eps = 1e-9 * max(1.0, float(np.abs(h).max()))
    _outside("start", p, c, eps)
    _outside("goal", g, c, eps)
    # The ring is built in units of a power of two near the world's size (exactly), so
    # that its products neither overflow nor underflow however far out or small it is.
    k = math.frexp(max(float(np.abs(v).max(initial=0.0)) for v in (p, g, c, h, tris)))[1]
    ps, gs, cs, hs, ts = (np.ldexp(v, -k) for v in (p, g, c, h, tris))
    path = _ring_path(ps, gs, cs, hs, ts, math.ldexp(eps, -k))
    return None if path is None else np.ldexp(path, k)


def hug_contour(start: ArrayLike, goal: ArrayLike, contour: ArrayLike) -> np.ndarray:
    """The next waypoint, ``(2,)`` float64, of an agent hugging ``contour`` on its way from
    ``start`` to ``goal`` (both outside the contour or on its boundary).

    The goal itself when the segment keeps out of the contour.  Otherwise, from the point
    where the segment first enters the contour, the walk along the contour is followed on
    the side (clockwise or anticlockwise) that reaches a corner in sight of the goal in the
    shorter distance, and the waypoint is the furthest corner of that walk in sight of the
    agent: the agent slides along the contour, at the distance it was grown by, until it
    sees the goal.
    """
    p = finite_point("start", start)
    g = finite_point("goal", goal)
    c = check_polygon("contour", contour)
    eps = 1e-9 * max(1.0, float(np.abs(c).max()))
    _outside("start", p, c, eps)
    _outside("goal", g, c, eps)
    return _hug(p, g, c, eps)


def _outside(name: str, point: np.ndarray, contour: np.ndarray, eps: float) -> None:
    if _strictly_inside(point[None], contour, eps)[0]:
        raise InvalidQueryError(f"{name} {point.tolist()} lies inside the contour")


def _ring_path(p: np.ndarray, g: np.ndarray, contour: np.ndarray, hull: np.ndarray,
               pockets: np.ndarray, eps: float) -> np.ndarray | None:
    mesh = _ring(contour, hull, pockets, np.stack([p, g]), eps)
    if mesh is None:
        return None
    verts, tris, links = mesh
    ts, tg = _locate(verts, tris, p, eps), _locate(verts, tris, g, eps)
    if ts < 0 or tg < 0:
        return None
    best: tuple[float, np.ndarray] | None = None
    for portals in _corridors(links, ts, tg):
        ends = np.array(portals, dtype=np.int64).reshape(-1, 2)
        # A portal through an end point is crossed for free; the funnel wants none.
        keep = ~(_on_segment(p, verts[ends[:, 0]], verts[ends[:, 1]], eps)
                 | _on_segment(g, verts[ends[:, 0]], verts[ends[:, 1]], eps))
        left = np.concatenate([p[None], verts[ends[keep, 0]], g[None]])
        right = np.concatenate([p[None], verts[ends[keep, 1]], g[None]])
        corners, _ = funnel_path(left, right)
        length = float(np.hypot(*np.diff(corners, axis=0).T).sum())
        if best is None or length < best[0]:
            best = (length, corners)
    return None if best is None else best[1]


def _ring(contour: np.ndarray, hull: np.ndarray, pockets: np.ndarray, ends: np.ndarray,
          eps: float) -> tuple[np.ndarray, np.ndarray, list[list[tuple[int, int, int]]]] | None:
    """The pockets and a band round the hull as one triangle mesh: welded vertices
    ``(V, 2)``, anticlockwise triangles ``(T, 3)`` and, per triangle, its neighbours
    ``(triangle, left vertex, right vertex)`` as seen crossing into them; ``None`` unless
    the triangles' open edges are exactly the contour and the band's outer ring.

    The band runs through every contour vertex on the hull's boundary, so a pocket whose
    mouth is part of a hull edge (the straight vertices convexify drops, as two horses'
    aligned fronts) shares that part with the band."""
    hull = contour[_boundary_gaps(hull, contour) <= eps]
    centre = hull.mean(axis=0)
    e = np.roll(hull, -1, axis=0) - hull
    normal = np.stack([-e[:, 1], e[:, 0]], axis=1)        # outwards: the hull runs clockwise
    reach = ((hull - centre) * normal).sum(axis=1)
    need = float((((ends - centre)[:, None, :] * normal[None]).sum(axis=2) / reach).max())
    outer = centre + 2.0 * max(1.0, need) * (hull - centre)
    nxt = np.roll(np.arange(len(hull)), -1)
    band = np.concatenate([np.stack([hull, hull[nxt], outer[nxt]], axis=1),
                           np.stack([hull, outer[nxt], outer], axis=1)])
    pts = np.concatenate([pockets, band]).reshape(-1, 2)
    verts, ids = np.unique(np.concatenate([pts, contour, outer]), axis=0, return_inverse=True)
    ids = ids.reshape(-1)
    tris = ids[: len(pts)].reshape(-1, 3).copy()
    ring_ids = ids[len(pts):]
    a, b, cc = (verts[tris[:, k]] for k in range(3))
    turn = _cross(b - a, cc - a)
    if (turn == 0).any():
        return None
    tris[turn < 0] = tris[turn < 0][:, [0, 2, 1]]
    edges: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for t, tri in enumerate(tris.tolist()):
        for k in range(3):
            u, v = tri[k], tri[(k + 1) % 3]
            edges.setdefault((min(u, v), max(u, v)), []).append((t, k))
    walls = set()
    for loop in (ring_ids[: len(contour)], ring_ids[len(contour):]):
        for u, v in zip(loop.tolist(), np.roll(loop, -1).tolist()):
            walls.add((min(u, v), max(u, v)))
    links: list[list[tuple[int, int, int]]] = [[] for _ in tris]
    for key, sides in edges.items():
        if len(sides) > 2 or (len(sides) == 1) != (key in walls):
            return None
        if len(sides) == 2:
            (t1, k1), (t2, k2) = sides
            links[t1].append((t2, int(tris[t1, (k1 + 1) % 3]), int(tris[t1, k1])))
            links[t2].append((t1, int(tris[t2, (k2 + 1) % 3]), int(tris[t2, k2])))
    if len(walls) != sum(len(s) == 1 for s in edges.values()):
        return None
    return verts, tris, links


def _on_segment(point: np.ndarray, a: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """Whether ``point`` lies within ``eps`` of each segment a→b (``(n, 2)`` ends)."""
    e = b - a
    t = np.clip(((point - a) * e).sum(axis=1) / (e * e).sum(axis=1), 0.0, 1.0)
    return np.asarray(np.hypot(*(a + t[:, None] * e - point).T) <= eps)


def _locate(verts: np.ndarray, tris: np.ndarray, point: np.ndarray, eps: float) -> int:
    """The first triangle holding ``point`` (its edges included, to ``eps``), or -1."""
    a, b, c = (verts[tris[:, k]] for k in range(3))
    ok = np.ones(len(tris), dtype=bool)
    for u, v in ((a, b), (b, c), (c, a)):
        e = v - u
        ok &= _cross(e, point - u) >= -eps * np.hypot(e[:, 0], e[:, 1])
    hit = np.flatnonzero(ok)
    return int(hit[0]) if len(hit) else -1


def _corridors(links: list[list[tuple[int, int, int]]], start: int, goal: int
               ) -> list[list[tuple[int, int]]]:
    """The portals ``(left, right)`` of every simple corridor from triangle ``start`` to
    ``goal`` (depth first, neighbours in stored order)."""
    found: list[list[tuple[int, int]]] = []
    stack: list[tuple[int, list[int], list[tuple[int, int]]]] = [(start, [start], [])]
    while stack and len(found) < _MAX_CORRIDORS:
        t, seen, portals = stack.pop()
        if t == goal:
            found.append(portals)
            continue
        for u, left, right in reversed(links[t]):
            if u not in seen:
                stack.append((u, [*seen, u], [*portals, (left, right)]))
    return found


def _entry(p: np.ndarray, q: np.ndarray, contour: np.ndarray, eps: float) -> float | None:
    """The parameter along p→q where the segment first enters the contour's interior, or
    ``None`` when it keeps out (touching the boundary is fine)."""
    a, e = contour, np.roll(contour, -1, axis=0) - contour
    d = q - p
    length2 = float(d @ d)
    if length2 == 0:
        return None
    den = _cross(d, e)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = _cross(a - p, e) / den
        u = _cross(a - p, d) / den
    crossing = t[(t > 1e-9) & (t < 1 - 1e-9) & (u > 1e-9) & (u < 1 - 1e-9)]
    s = ((a - p) @ d) / length2
    near = np.hypot(*(p + s[:, None] * d - a).T) <= eps
    cuts = np.unique(np.concatenate([[0.0, 1.0], crossing, s[near & (s > 0) & (s < 1)]]))
    mids = p + ((cuts[:-1] + cuts[1:]) / 2)[:, None] * d
    inside = np.flatnonzero(_strictly_inside(mids, contour, eps))
    return float(cuts[inside[0]]) if len(inside) else None


def _clear(p: np.ndarray, q: np.ndarray, contour: np.ndarray, eps: float) -> bool:
    """Whether the segment p→q keeps out of the contour's interior (touching is fine)."""
    return _entry(p, q, contour, eps) is None


def _strictly_inside(points: np.ndarray, contour: np.ndarray, eps: float) -> np.ndarray:
    inside = np.asarray(point_in_polygon(points, contour)).reshape(-1)
    return inside & (_boundary_gaps(contour, points) > eps)


def _hug(p: np.ndarray, g: np.ndarray, contour: np.ndarray, eps: float) -> np.ndarray:
    s0 = _entry(p, g, contour, eps)
    if s0 is None:
        return g
    hit = p + s0 * (g - p)
    m = len(contour)
    _, k = _foot(hit, contour)
    best: tuple[float, list[int]] = (math.inf, [(k + 1) % m])
    for step, first in ((1, (k + 1) % m), (-1, k)):
        walked, at, i, corners = 0.0, hit, first, []
        for _ in range(m):
            walked += float(np.hypot(*(contour[i] - at)))
            at = contour[i]
            corners.append(i)
            if walked >= best[0]:
                break
            if _clear(at, g, contour, eps):
                best = (walked, corners)
                break
            i = (i + step) % m
    corners = best[1]
    seen = next((i for i in reversed(corners) if _clear(p, contour[i], contour, eps)),
                corners[0])
    return contour[seen]


def _foot(point: np.ndarray, contour: np.ndarray) -> tuple[np.ndarray, int]:
    """The point of the contour's boundary nearest ``point`` and the index of its edge
    (the first of equally near ones)."""
    a, e = contour, np.roll(contour, -1, axis=0) - contour
    rel = point - a
    t = np.clip((rel * e).sum(axis=1) / (e * e).sum(axis=1), 0.0, 1.0)
    foot = a + t[:, None] * e
    k = int(np.argmin(np.hypot(*(point - foot).T)))
    return foot[k], k
