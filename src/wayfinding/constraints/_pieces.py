"""A closed planar set as a union of pieces: simple polygons, discs and circular sectors.

Every annotation is one of these unions, so containment, distance and segment tests are
written once here.  A point belongs to the set when it lies within
:data:`~wayfinding.geometry.TOLERANCE` of a piece; the distance to a union is the least
distance to its pieces; a segment meets the union when it meets one piece.  Work is
vectorised over points (or segments) times pieces, in chunks of about a million pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .._arrays import concatenated_ranges
from ..geometry.obstacles import TOLERANCE, Obstacles, closest_on_segments, segments_cross

#: Rough cap on the number of (point, edge) pairs examined at once (memory bound).
CHUNK_PAIRS = 1_000_000
TWO_PI = 2.0 * math.pi


def chunks(n: int, width: int) -> Iterator[slice]:
    """Slices of ``range(n)`` whose rows times ``width`` stay near :data:`CHUNK_PAIRS`."""
    step = max(1, CHUNK_PAIRS // max(1, width))
    for lo in range(0, n, step):
        yield slice(lo, min(n, lo + step))


def _pairs(m: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (row, column) of an ``(m, k)`` table, row-major."""
    return np.repeat(np.arange(m), k), np.tile(np.arange(k), m)


class Pieces:
    """A union of closed pieces.

    ``polygons``: simple polygons, each ``(k, 2)`` float64 with a nonzero area (checked by
    the caller); ``discs``: ``(d, 3)`` rows ``(cx, cy, r)``; ``sectors``: ``(s, 5)`` rows
    ``(ax, ay, radius, start, span)``, the points within ``radius`` of the apex whose
    direction lies ``0..span`` radians counter-clockwise from ``start`` (span in (0, 2π]).
    """

    def __init__(self, polygons: Sequence[np.ndarray] = (),
                 discs: np.ndarray | None = None, sectors: np.ndarray | None = None):
        self.polygons = tuple(polygons)
        self.discs = np.empty((0, 3)) if discs is None else np.asarray(discs, float)
        self.sectors = np.empty((0, 5)) if sectors is None else np.asarray(sectors, float)
        self._obstacles = Obstacles(self.polygons)
        if self.polygons:
            self._a = np.concatenate(self.polygons)
            self._b = np.concatenate([np.roll(p, -1, axis=0) for p in self.polygons])
        else:
            self._a = self._b = np.empty((0, 2))
        # sector boundaries: the two radii as segments
        apex = self.sectors[:, :2]
        r, start, span = self.sectors[:, 2], self.sectors[:, 3], self.sectors[:, 4]
        self._r0 = apex + r[:, None] * np.stack([np.cos(start), np.sin(start)], axis=1)
        end = start + span
        self._r1 = apex + r[:, None] * np.stack([np.cos(end), np.sin(end)], axis=1)
        # one row per piece: kind (0 polygon, 1 disc, 2 sector), index within its kind and
        # bounding box
        sizes = np.array([len(q) for q in self.polygons], dtype=np.int64)
        self._start = np.concatenate([[0], np.cumsum(sizes)])
        counts = (len(self.polygons), len(self.discs), len(self.sectors))
        self._kind = np.repeat(np.arange(3), counts)
        self._index = np.concatenate([np.arange(k) for k in counts])
        c, rd = self.discs[:, :2], self.discs[:, 2:3]
        slo, shi = self._sector_boxes()
        self._lo = np.concatenate([np.array([q.min(axis=0) for q in self.polygons]).reshape(-1, 2),
                                   c - rd, slo])
        self._hi = np.concatenate([np.array([q.max(axis=0) for q in self.polygons]).reshape(-1, 2),
                                   c + rd, shi])

    def _sector_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(s, 2)`` lower and upper corners of each sector's bounding box."""
        apex, r = self.sectors[:, :2], self.sectors[:, 2:3]
        start, span = self.sectors[:, 3:4], self.sectors[:, 4:5]
        axes = np.arange(4) * (math.pi / 2)            # the circle's extreme points
        on_arc = _in_wedge(axes[None], start, span)
        ext = apex[:, None] + r[:, :, None] * np.stack([np.cos(axes), np.sin(axes)], axis=1)
        ext = np.where(on_arc[:, :, None], ext, apex[:, None])
        pts = np.concatenate([apex[:, None], self._r0[:, None], self._r1[:, None], ext], axis=1)
        return pts.min(axis=1), pts.max(axis=1)

    # -- bounds -------------------------------------------------------------------------
    def bounds(self) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)`` of the union."""
        low, high = self._lo.min(axis=0), self._hi.max(axis=0)
        return (float(low[0]), float(low[1]), float(high[0]), float(high[1]))

    # -- points -------------------------------------------------------------------------
    def distance(self, p: np.ndarray) -> np.ndarray:
        """``(n,)`` float64: distance from each point to the union (0 inside).

        Pieces are pruned per point: the distance to a piece's bounding box bounds its
        distance from below, and the distance to the piece of the nearest box bounds the
        answer from above; only the pieces whose lower bound is within it are measured."""
        out = np.empty(len(p))
        lo, hi = self._lo, self._hi
        for part in chunks(len(p), len(lo)):
            pc = p[part]
            gap = np.maximum(np.maximum(lo[None] - pc[:, None], pc[:, None] - hi[None]), 0.0)
            lower = np.hypot(gap[..., 0], gap[..., 1])
            upper = np.maximum(self._pair_distance(pc, lower.argmin(axis=1)), 0.0)
            # slack: the two bounds may round apart when they meet (a disc seen square on)
            rows, cols = np.nonzero(lower <= upper[:, None] * (1 + 1e-12) + TOLERANCE)
            best = upper.copy()
            np.minimum.at(best, rows, self._pair_distance(pc[rows], cols))
            out[part] = np.maximum(best, 0.0)
        if self.polygons:
            out[self._obstacles.contains(p)] = 0.0
        return out

    def _pair_distance(self, q: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Distance from each point ``q[i]`` to piece ``cols[i]`` (to a polygon's border)."""
        d = np.empty(len(q))
        kind, index = self._kind[cols], self._index[cols]
        sel = np.flatnonzero(kind == 0)
        if len(sel):
            pid = index[sel]
            sizes = self._start[pid + 1] - self._start[pid]
            edge = concatenated_ranges(self._start[pid], sizes)
            owner = np.repeat(sel, sizes)
            gaps = closest_on_segments(q[owner], self._a[edge], self._b[edge])[0]
            d[sel] = np.minimum.reduceat(gaps, np.cumsum(sizes) - sizes)
        sel = np.flatnonzero(kind == 1)
        if len(sel):
            disc = self.discs[index[sel]]
            d[sel] = np.hypot(*(q[sel] - disc[:, :2]).T) - disc[:, 2]
        sel = np.flatnonzero(kind == 2)
        if len(sel):
            d[sel] = self._sector_distance(q[sel], index[sel])
        return d

    def contains(self, p: np.ndarray) -> np.ndarray:
        """``(n,)`` bool: each point lies in the union (within the tolerance); only the
        points in its bounds are measured."""
        x0, y0, x1, y1 = self.bounds()
        out = np.zeros(len(p), dtype=bool)
        near = np.flatnonzero((p[:, 0] >= x0 - TOLERANCE) & (p[:, 0] <= x1 + TOLERANCE)
                              & (p[:, 1] >= y0 - TOLERANCE) & (p[:, 1] <= y1 + TOLERANCE))
        out[near] = self.distance(p[near]) <= TOLERANCE
        return out

    def _sector_distance(self, q: np.ndarray, which: np.ndarray) -> np.ndarray:
        """Distance from each point ``q[i]`` to sector ``which[i]``: 0 inside, else the
        least distance to its two radii and, in its wedge, to its arc."""
        s = self.sectors[which]
        apex, rad, start, span = s[:, :2], s[:, 2], s[:, 3], s[:, 4]
        dx, dy = q[:, 0] - apex[:, 0], q[:, 1] - apex[:, 1]
        in_wedge = _in_wedge(np.arctan2(dy, dx), start, span)
        d = np.minimum(closest_on_segments(q, apex, self._r0[which])[0],
                       closest_on_segments(q, apex, self._r1[which])[0])
        return np.where(in_wedge, np.minimum(d, np.maximum(np.hypot(dx, dy) - rad, 0.0)), d)

    # -- segments -----------------------------------------------------------------------
    def crosses(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``(n,)`` bool: segment ``a[i]``–``b[i]`` meets the union (touching counts)."""
        hit = self.contains(a)
        todo = np.flatnonzero(~hit)
        a, b = a[todo], b[todo]
        met = np.zeros(len(todo), dtype=bool)
        if len(self._a):
            met |= segments_meet(a, b, self._a, self._b, touching=True)
        if len(self.discs):
            c, r = self.discs[:, :2], self.discs[:, 2]
            met |= _any_pair(a, b, len(c), lambda aa, bb, cols: closest_on_segments(
                c[cols], aa, bb)[0] <= r[cols] + TOLERANCE)
        if len(self.sectors):
            apex = self.sectors[:, :2]
            met |= segments_meet(a, b, np.concatenate([apex, apex]),
                                 np.concatenate([self._r0, self._r1]), touching=True)
            met |= _any_pair(a, b, len(self.sectors), self._arc_met)
        hit[todo] = met
        return hit

    def _arc_met(self, a: np.ndarray, b: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Whether segment a–b meets the arc of sector ``cols`` (the circle's points whose
        direction lies in the wedge)."""
        s = self.sectors[cols]
        apex, rad, start, span = s[:, :2], s[:, 2], s[:, 3], s[:, 4]
        u, f = b - a, a - apex
        qa = np.einsum("ij,ij->i", u, u)
        qb = 2.0 * np.einsum("ij,ij->i", f, u)
        qc = np.einsum("ij,ij->i", f, f) - rad * rad
        disc = qb * qb - 4.0 * qa * qc
        ok = (disc >= 0) & (qa > 0)
        root = np.sqrt(np.where(ok, disc, 0.0))
        safe = np.where(qa > 0, qa, 1.0)
        met = np.zeros(len(a), dtype=bool)
        for sign in (-1.0, 1.0):
            t = (-qb + sign * root) / (2.0 * safe)
            pt = a + t[:, None] * u
            ang = np.arctan2(pt[:, 1] - apex[:, 1], pt[:, 0] - apex[:, 0])
            met |= ok & (t >= 0) & (t <= 1) & _in_wedge(ang, start, span)
        return met


def _in_wedge(angle: np.ndarray, start: np.ndarray | float, span: np.ndarray | float
              ) -> np.ndarray:
    """Whether each direction ``angle`` lies ``0..span`` radians counter-clockwise from
    ``start``."""
    return ((angle - start) % TWO_PI <= span) | (np.asarray(span) >= TWO_PI)


def _any_pair(a: np.ndarray, b: np.ndarray, k: int,
              test: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """``(n,)`` bool: ``test(a_rows, b_rows, columns)`` holds for one of the ``k`` columns
    of each segment."""
    out = np.zeros(len(a), dtype=bool)
    for part in chunks(len(a), k):
        ac, bc = a[part], b[part]
        rows, cols = _pairs(len(ac), k)
        out[part] = test(ac[rows], bc[rows], cols).reshape(len(ac), k).any(axis=1)
    return out


def segments_meet(a: np.ndarray, b: np.ndarray, e0: np.ndarray, e1: np.ndarray, *,
                  touching: bool) -> np.ndarray:
    """``(n,)`` bool: segment ``a[i]``–``b[i]`` crosses one of the edges ``e0[j]``–``e1[j]``
    (:func:`~wayfinding.geometry.segments_cross`, touching or properly): a box test
    first, then the orientation signs on the pairs whose boxes overlap."""
    out = np.zeros(len(a), dtype=bool)
    elo, ehi = np.minimum(e0, e1), np.maximum(e0, e1)
    for part in chunks(len(a), len(e0)):
        ac, bc = a[part], b[part]
        slo, shi = np.minimum(ac, bc), np.maximum(ac, bc)
        near = ((slo[:, None, :] <= ehi[None]) & (shi[:, None, :] >= elo[None])).all(axis=2)
        rows, cols = np.nonzero(near)
        if len(rows):
            met = segments_cross(ac[rows], bc[rows], e0[cols], e1[cols], touching=touching)
            out[part.start + rows[met]] = True
    return out


def crossing_pairs(a: np.ndarray, b: np.ndarray, *, touching: bool
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``i < j`` of segments ``a[i]``–``b[i]`` that cross
    (:func:`~wayfinding.geometry.segments_cross`, touching or properly): two int64 arrays,
    ordered by ``i`` then ``j``.  Candidates come from a sweep along x (the segments sorted
    by their lower x, each against those starting before it ends), then a box test in y
    and the orientation signs, in chunks: near linear for polygons of short edges."""
    n = len(a)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    order = np.argsort(lo[:, 0], kind="stable")
    ends = np.searchsorted(lo[order, 0], hi[order, 0], side="right")
    counts = np.maximum(ends - np.arange(1, n + 1), 0)
    found_i, found_j = [np.empty(0, np.int64)], [np.empty(0, np.int64)]
    total = np.cumsum(counts)
    start = 0
    while start < n:
        # rows start.. whose candidates add up to about CHUNK_PAIRS
        stop = max(start + 1, int(np.searchsorted(total, (total[start - 1] if start else 0)
                                                  + CHUNK_PAIRS, side="right")))
        rows = np.arange(start, min(stop, n))
        p = np.repeat(rows, counts[rows])
        q = concatenated_ranges(rows + 1, counts[rows])
        i, j = order[p], order[q]
        near = (lo[i, 1] <= hi[j, 1]) & (hi[i, 1] >= lo[j, 1])
        i, j = i[near], j[near]
        met = segments_cross(a[i], b[i], a[j], b[j], touching=touching)
        found_i.append(np.minimum(i[met], j[met]))
        found_j.append(np.maximum(i[met], j[met]))
        start = rows[-1] + 1
    i, j = np.concatenate(found_i), np.concatenate(found_j)
    first = np.lexsort((j, i))
    return i[first], j[first]


def convex_hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of ``(n, 2)`` points, counter-clockwise, without collinear vertices
    (Andrew's monotone chain, float64 turns: a vertex within rounding of a straight edge
    may be dropped); fewer than 3 rows when the points are collinear."""
    pts = np.unique(points, axis=0)       # sorted by x, then y
    if len(pts) < 3:
        return pts
    rows = pts.tolist()

    def turn(o: list[float], a: list[float], b: list[float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    chains: list[list[list[float]]] = []
    for order in (rows, rows[::-1]):
        chain: list[list[float]] = []
        for p in order:
            while len(chain) >= 2 and turn(chain[-2], chain[-1], p) <= 0:
                chain.pop()
            chain.append(p)
        chains.append(chain[:-1])
    return np.array(chains[0] + chains[1], dtype=np.float64)
