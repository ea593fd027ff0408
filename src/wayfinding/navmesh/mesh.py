"""The navigation mesh: convex polygons over the walkable area, with their adjacency."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..errors import InvalidGeometryError
from . import build as _build

#: Default cap on the vertices of one polygon (as Recast's default).
MAX_VERTS = 6


class NavMesh:
    """Convex polygons covering a walkable area, with their shared edges.

    Arrays (read-only):

    - ``vertices``: ``(V, 2)`` float64 world points;
    - ``polygons``: ``(P, max_verts)`` int32 vertex ids, counter-clockwise (y up), padded
      with -1; ``sizes``: ``(P,)`` vertex counts;
    - ``neighbours``: ``(P, max_verts)`` int32: the polygon across edge k (from vertex k to
      vertex k + 1), -1 for a wall or padding.

    Build with :meth:`build`.

    >>> mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
    ...                      holes=[[(4, 4), (6, 4), (6, 6), (4, 6)]])
    >>> mesh.num_polygons, round(float(mesh.polygon_areas().sum()), 6)
    (4, 96.0)
    """

    def __init__(self, vertices: np.ndarray, polygons: np.ndarray, sizes: np.ndarray,
                 build_time: float = 0.0):
        self.vertices = _frozen(np.asarray(vertices, dtype=np.float64))
        self.polygons = _frozen(np.asarray(polygons, dtype=np.int32))
        self.sizes = _frozen(np.asarray(sizes, dtype=np.int32))
        self.neighbours = _frozen(_adjacency(self.polygons, self.sizes))
        self.build_time = float(build_time)

    @classmethod
    def build(cls, area: Any = None, *, outline: Any = None, holes: Any = (),
              radius: float = 0.0, max_verts: int = MAX_VERTS,
              quad_segs: int = 4) -> NavMesh:
        """Build the mesh of a walkable area for an agent of ``radius`` (world units).

        ``area``/``outline``/``holes``: see :func:`~wayfinding.navmesh.build.walkable_area`
        (shapely, WKT, GeoJSON, a Grid, or rings).  Every boundary is moved inward by
        ``radius`` (round joins, ``quad_segs`` chords per quarter circle).  Polygons have at
        most ``max_verts`` (>= 3) vertices.  Needs the ``[geometry]`` extra.
        """
        if isinstance(max_verts, bool) or not isinstance(max_verts, int) or max_verts < 3:
            raise InvalidGeometryError(f"max_verts {max_verts!r} must be an integer >= 3")
        if isinstance(radius, bool) or not isinstance(radius, (int, float)) \
                or not np.isfinite(radius) or radius < 0:
            raise InvalidGeometryError(f"radius {radius!r} must be a finite number >= 0")
        if isinstance(quad_segs, bool) or not isinstance(quad_segs, int) or quad_segs < 1:
            raise InvalidGeometryError(f"quad_segs {quad_segs!r} must be an integer >= 1")
        t0 = time.perf_counter()
        geom = _build.walkable_area(area, outline=outline, holes=holes)
        geom = _build.eroded(geom, float(radius), quad_segs)
        verts, tris = _build.triangulate(geom)
        polys = _build.merge_convex(verts, tris, max_verts)
        table = np.full((len(polys), max_verts), -1, dtype=np.int32)
        sizes = np.array([len(p) for p in polys], dtype=np.int32)
        for i, p in enumerate(polys):
            table[i, :len(p)] = p
        return cls(verts, table, sizes, time.perf_counter() - t0)

    @property
    def num_polygons(self) -> int:
        return len(self.sizes)

    @property
    def max_verts(self) -> int:
        return self.polygons.shape[1]

    def polygon(self, i: int) -> np.ndarray:
        """``(k, 2)`` corners of polygon ``i``, counter-clockwise."""
        return self.vertices[self.polygons[i, :self.sizes[i]]]

    def polygon_areas(self) -> np.ndarray:
        """``(P,)`` polygon areas (shoelace formula)."""
        idx = np.where(self.polygons >= 0, self.polygons, self.polygons[:, :1])
        p = self.vertices[idx]                        # padding repeats vertex 0: no area
        nxt = np.roll(p, -1, axis=1)
        return 0.5 * (p[..., 0] * nxt[..., 1] - nxt[..., 0] * p[..., 1]).sum(axis=1)

    def centroids(self) -> np.ndarray:
        """``(P, 2)`` vertex means of the polygons (inside, as polygons are convex)."""
        idx = np.where(self.polygons >= 0, self.polygons, 0)
        pts = self.vertices[idx] * (self.polygons >= 0)[..., None]
        return pts.sum(axis=1) / self.sizes[:, None]

    def __repr__(self) -> str:
        return (f"NavMesh({self.num_polygons} polygons, {len(self.vertices)} vertices, "
                f"max_verts {self.max_verts})")


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(arr)
    arr.flags.writeable = False
    return arr


def _adjacency(polygons: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Polygon across each edge: edges u -> v and v -> u of two polygons are shared."""
    p, m = polygons.shape
    k = np.arange(m)
    valid = k[None, :] < sizes[:, None]
    nxt_k = (k[None, :] + 1) % sizes[:, None]
    u = polygons
    v = np.take_along_axis(polygons, nxt_k, axis=1)
    out = np.full((p, m), -1, dtype=np.int32)
    pi, ki = np.nonzero(valid)
    if not len(pi):
        return out
    a, b = u[pi, ki].astype(np.int64), v[pi, ki].astype(np.int64)
    n = int(max(a.max(), b.max())) + 1
    key = a * n + b
    rev = b * n + a
    order = np.argsort(key)
    pos = np.searchsorted(key[order], rev)
    pos = np.minimum(pos, len(key) - 1)
    hit = key[order][pos] == rev
    out[pi[hit], ki[hit]] = pi[order[pos[hit]]]
    return out
