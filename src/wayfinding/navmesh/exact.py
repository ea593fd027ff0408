"""Exact Euclidean shortest paths in a polygonal walkable area (the reference for path
quality).

A shortest path between two points of a polygon with holes bends only at reflex corners of
the free space (outline corners whose inside angle exceeds 180°, convex corners of holes).
The reduced visibility graph joins two such corners when the segment between them stays in
the (closed) area and is tangent at both ends (the corners' neighbours lie on one side of
it); the start and the goal join every corner they see, and each other.  Dijkstra on it
(compiled) gives the exact length.  Visibility is decided by GEOS (``covers``, vectorised);
tangency by the exact :func:`~wayfinding.geometry.orient2d`.  Building is O(R²) visibility
tests for R reflex corners; needs the ``[geometry]`` extra.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import warn
from ..errors import InvalidQueryError, brief
from ..geometry.predicates import orient2d
from ..graph import CSRGraph
from ..results import PathResult, SearchStats
from . import build as _build


class VisibilityMap:
    """The reduced visibility graph of a walkable area (see the module).

    >>> from shapely.geometry import box
    >>> vm = VisibilityMap(box(0, 0, 10, 10).difference(box(4, 3, 6, 8)))
    >>> r = vm.find_path((1, 5), (9, 5))
    >>> round(r.cost, 6), r.path.tolist()
    (9.211103, [[1.0, 5.0], [4.0, 3.0], [6.0, 3.0], [9.0, 5.0]])
    """

    def __init__(self, area: Any = None, *, outline: Any = None, holes: Any = ()):
        shapely = _build._shapely()
        t0 = time.perf_counter()
        self.area = _build.walkable_area(area, outline=outline, holes=holes)
        shapely.prepare(self.area)
        self.corners = _reflex_corners(self.area)
        n = len(self.corners)
        a, b = np.triu_indices(n, k=1)
        ok = _tangent(self.corners, a, b) & _tangent(self.corners, b, a)
        a, b = a[ok], b[ok]
        seen = self._visible(self.corners[a], self.corners[b])
        a, b = a[seen], b[seen]
        length = np.hypot(*(self.corners[a, :2] - self.corners[b, :2]).T)
        self.graph = CSRGraph.from_edges(n, a, b, length, directed=False,
                                         coords=self.corners[:, :2] if n else None)
        self.build_time = time.perf_counter() - t0

    def _visible(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        shapely = _build._shapely()
        if not len(p):
            return np.zeros(0, dtype=bool)
        lines = shapely.linestrings(np.stack([p[:, :2], q[:, :2]], axis=1))
        return shapely.covers(self.area, lines)

    def shortest_path(self, start: ArrayLike, goal: ArrayLike) -> PathResult:
        """Deprecated name of :meth:`find_path`."""
        warn("VisibilityMap.shortest_path()", "VisibilityMap.find_path()")
        return self.find_path(start, goal)

    def find_path(self, start: ArrayLike, goal: ArrayLike) -> PathResult:
        """The exact shortest path between two points of the area: ``path`` ``(k, 2)``
        float64 corners, ``cost`` its length; ``found=False`` when they lie in different
        parts of the area.  A point outside the area raises :class:`InvalidQueryError`."""
        shapely = _build._shapely()
        t0 = time.perf_counter()
        s, g = (_point(v, name) for v, name in ((start, "start"), (goal, "goal")))
        for p, name in ((s, "start"), (g, "goal")):
            if not shapely.covers(self.area, shapely.points(p)):
                raise InvalidQueryError(f"{name} {tuple(p)} is outside the walkable area")
        n = self.graph.num_nodes
        if self._visible(s[None], g[None])[0]:
            d = float(math.hypot(*(g - s)))
            return PathResult(np.array([s, g]), d, True,
                              SearchStats(elapsed=time.perf_counter() - t0), "exact")
        xy = self.corners[:, :2]
        ds = np.full(n, np.inf)
        dg = np.full(n, np.inf)
        if n:
            vs = self._visible(np.repeat(s[None], n, axis=0), xy)
            vg = self._visible(np.repeat(g[None], n, axis=0), xy)
            ds[vs] = np.hypot(*(xy[vs] - s).T)
            dg[vg] = np.hypot(*(xy[vg] - g).T)
        # Dijkstra from every corner the start sees, through the graph, to the goal.
        src, dst, w = _edges(self.graph)
        S, G = n, n + 1
        seen_s, seen_g = np.flatnonzero(np.isfinite(ds)), np.flatnonzero(np.isfinite(dg))
        graph = CSRGraph.from_edges(
            n + 2, np.concatenate([src, np.full(len(seen_s), S), seen_g]),
            np.concatenate([dst, seen_s, np.full(len(seen_g), G)]),
            np.concatenate([w, ds[seen_s], dg[seen_g]]))
        r = graph.find_path(S, G)
        stats = SearchStats(expanded=r.stats.expanded, generated=r.stats.generated,
                            elapsed=time.perf_counter() - t0)
        if not r.found:
            return PathResult(np.empty((0, 2)), math.inf, False, stats, "exact")
        pts = np.concatenate([s[None], xy[r.path[1:-1]], g[None]])
        return PathResult(pts, float(np.hypot(*np.diff(pts, axis=0).T).sum()), True, stats,
                          "exact")


def _point(value: Any, name: str) -> np.ndarray:
    p = np.asarray(value, dtype=np.float64) if not isinstance(value, str) else None
    if p is None or p.shape != (2,) or not np.isfinite(p).all():
        raise InvalidQueryError(f"{name} must be a finite (x, y) point, got {brief(value)}")
    return p


def _edges(graph: CSRGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    src = np.repeat(np.arange(graph.num_nodes), np.diff(graph.indptr))
    return src, graph.indices.astype(np.int64), graph.weights


def _reflex_corners(area: Any) -> np.ndarray:
    """``(R, 6)`` rows (x, y, previous x, y, next x, y) of the free space's reflex corners,
    walking each ring with the free space on the left."""
    shapely = _build._shapely()
    rows = []
    for poly in getattr(area, "geoms", [area]):
        poly = shapely.geometry.polygon.orient(poly, 1.0)   # shell ccw, holes cw
        for ring in [poly.exterior, *poly.interiors]:
            pts = np.asarray(ring.coords)[:-1]
            prev, nxt = np.roll(pts, 1, axis=0), np.roll(pts, -1, axis=0)
            # Free space on the left: a right turn (clockwise) is a reflex corner.
            reflex = orient2d(prev, pts, nxt) < 0
            rows.append(np.concatenate([pts, prev, nxt], axis=1)[reflex])
    return np.concatenate(rows) if rows else np.empty((0, 6))


def _tangent(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The line from corner a to corner b leaves a's two neighbours on one side (or on it):
    a shortest path through a can bend there."""
    if not len(a):
        return np.zeros(0, dtype=bool)
    p, q = c[a, :2], c[b, :2]
    s1 = orient2d(p, q, c[a, 2:4])
    s2 = orient2d(p, q, c[a, 4:6])
    return s1 * s2 >= 0
