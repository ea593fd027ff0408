"""Nearest-point queries over a fixed point set with a uniform bucket grid."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._arrays import concatenated_ranges
from ..errors import InvalidQueryError
from .obstacles import as_points


class PointIndex:
    """Exact nearest neighbour (Euclidean) among ``points`` for batches of queries.

    The points are sorted into square buckets of side about ``sqrt(area / n)`` (at most
    1001 × 1001 buckets).  A query scans square rings of buckets around its own until the
    best distance found is below the distance to the unscanned rings, so on evenly spread
    points a query costs O(1) expected instead of O(n).  All queries of a batch advance ring
    by ring together (vectorised).  Ties go to the lowest point index.

    >>> PointIndex([(0, 0), (10, 0)]).nearest([(4, 0), (5, 0), (6, 0)]).tolist()
    [0, 0, 1]
    """

    def __init__(self, points: ArrayLike):
        pts = as_points(points, "points")
        if not len(pts):
            raise InvalidQueryError("a PointIndex needs at least one point")
        self._points = pts
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        span = np.maximum(hi - lo, 1e-12)
        size = float(np.sqrt(span[0] * span[1] / len(pts))) if np.all(hi > lo) else 0.0
        size = max(size, float(span.max()) / 1000, 1e-12)
        self._lo, self._size = lo, size
        self._shape = np.floor(span / size).astype(np.int64) + 1
        b = np.clip(np.floor((pts - lo) / size).astype(np.int64), 0, self._shape - 1)
        key = b[:, 1] * self._shape[0] + b[:, 0]
        self._order = np.argsort(key, kind="stable")
        self._start = np.zeros(int(self._shape.prod()) + 1, dtype=np.int64)
        np.cumsum(np.bincount(key, minlength=int(self._shape.prod())), out=self._start[1:])

    def nearest(self, queries: ArrayLike) -> np.ndarray:
        """``(m,)`` int64: index of the nearest point to each query (``(m, 2)`` or ``(2,)``).

        A query outside the points' box starts at the first ring that reaches the buckets."""
        q = as_points(queries, "queries")
        m = len(q)
        best = np.full(m, -1, dtype=np.int64)
        best_d2 = np.full(m, np.inf)
        nx, ny = (int(v) for v in self._shape)
        b = np.floor((q - self._lo) / self._size)
        b = np.clip(b, -4 * (nx + ny), 4 * (nx + ny)).astype(np.int64)
        bx, by = b[:, 0], b[:, 1]
        first = np.maximum.reduce([np.zeros(m, dtype=np.int64), -bx, bx - (nx - 1), -by,
                                   by - (ny - 1)])
        reach = np.maximum.reduce([bx, nx - 1 - bx, by, ny - 1 - by])
        pending = np.arange(m)
        step = 0
        while len(pending):
            ring = first[pending] + step
            qb, ox, oy = _ring_cells(pending, ring)
            ox += bx[qb]
            oy += by[qb]
            ok = (ox >= 0) & (ox < nx) & (oy >= 0) & (oy < ny)
            qb, key = qb[ok], (oy * nx + ox)[ok]
            counts = self._start[key + 1] - self._start[key]
            owner = qb.repeat(counts)
            start = np.repeat(self._start[key] - np.cumsum(counts) + counts, counts)
            cand = self._order[start + np.arange(len(owner))]
            diff = self._points[cand] - q[owner]
            d2 = diff[:, 0] * diff[:, 0] + diff[:, 1] * diff[:, 1]
            if len(owner):
                order = np.lexsort((cand, d2, owner))
                owner, cand, d2 = owner[order], cand[order], d2[order]
                head = np.ones(len(owner), dtype=bool)
                head[1:] = owner[1:] != owner[:-1]
                o, c, d = owner[head], cand[head], d2[head]
                better = (d < best_d2[o]) | ((d == best_d2[o]) & (c < best[o]))
                best[o[better]], best_d2[o[better]] = c[better], d[better]
            # lower bound on the distance from each query to the unscanned buckets: the
            # nearest side of the scanned square that does not reach the grid's edge
            p = pending
            lo_x, hi_x = bx[p] - ring, bx[p] + ring + 1
            lo_y, hi_y = by[p] - ring, by[p] + ring + 1
            side = np.stack([
                np.where(lo_x > 0, q[p, 0] - (self._lo[0] + lo_x * self._size), np.inf),
                np.where(hi_x < nx, self._lo[0] + hi_x * self._size - q[p, 0], np.inf),
                np.where(lo_y > 0, q[p, 1] - (self._lo[1] + lo_y * self._size), np.inf),
                np.where(hi_y < ny, self._lo[1] + hi_y * self._size - q[p, 1], np.inf)])
            margin = np.maximum(side.min(axis=0), 0.0)
            done = (reach[p] <= ring) | (best_d2[p] < margin * margin)
            pending = p[~done]
            step += 1
        return best

    @property
    def points(self) -> np.ndarray:
        return self._points


def _ring_cells(owners: np.ndarray, rings: np.ndarray) -> tuple[np.ndarray, ...]:
    """Bucket offsets at Chebyshev distance exactly ``rings[i]`` for each owner:
    ``(owner, dx, dy)`` int64 arrays, ``8·r`` cells per owner (1 when r = 0)."""
    sizes = np.where(rings == 0, 1, 8 * rings)
    owner = np.repeat(owners, sizes)
    r = np.repeat(rings, sizes)
    t = concatenated_ranges(0, sizes)
    side, pos = np.divmod(t, np.maximum(2 * r, 1))
    dx = np.select([side == 0, side == 1, side == 2], [pos - r, r, r - pos], -r)
    dy = np.select([side == 0, side == 1, side == 2], [-r, pos - r, r], r - pos)
    zero = r == 0
    dx[zero], dy[zero] = 0, 0
    return owner, dx, dy
