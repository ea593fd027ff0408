"""Polygonal obstacles and clearance tests for a disc-shaped agent.

An obstacle is a simple polygon given as an ``(k, 2)`` float64 array of ``(x, y)`` vertices
(k >= 3, no repeated closing vertex); its interior is blocked.  Vertices are stored
counter-clockwise in the usual maths orientation (positive signed area with y up; on screen,
with y down, they run clockwise).

Clearance for an agent of radius ``r >= 0``: a point is clear when it is not strictly inside
any obstacle and its distance to every obstacle boundary is >= r; a segment is clear when the
capsule of radius r around it does not overlap an obstacle, i.e. the segment never enters an
obstacle's interior and stays at distance >= r from every boundary.  With r = 0 a segment may
touch a boundary (pass through a corner, run along an edge) but not cross it.

Numerics: exact formulas in float64, with one tolerance, :data:`TOLERANCE` (world units): a
distance within it of the radius counts as clear, a vertex within it of a segment counts as
lying on it.  Touching polygons are separate obstacles: at r = 0 a segment may slip between
two polygons that only share a corner or an edge; use r > 0 on maps built from cells.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._validate import finite_point, flag, positive_float, reals
from ..errors import InvalidGridError, InvalidQueryError

#: Absolute tolerance in world units of every clearance comparison.
TOLERANCE = 1e-9
#: The largest coordinate magnitude of obstacles and points: their squared distances and
#: cross products stay finite.
MAX_EXTENT = 1e150

#: Rough cap on the number of (segment, edge) pairs examined at once (memory bound).
_CHUNK_PAIRS = 1_000_000


class Obstacles:
    """An immutable set of simple polygons with vectorised clearance tests.

    ``polygons``: iterable of ``(k, 2)`` array-likes (k >= 3, finite, non-zero area, no two
    consecutive equal vertices).  Self-intersection is not checked.  Orientation is normalised
    to counter-clockwise (positive signed area).

    >>> obs = Obstacles([[(1, -1), (2, -1), (2, 1), (1, 1)]])
    >>> obs.segments_clear([[0, 0], [0, 0]], [[3, 0], [0, 3]], radius=0.5).tolist()
    [False, True]
    >>> obs.points_clear([[0, 0], [1.5, 0]], radius=0.5).tolist()
    [True, False]
    """

    def __init__(self, polygons: Iterable[ArrayLike] = ()):
        polys = []
        for i, raw in enumerate(polygons):
            poly = np.array(reals(f"polygon {i}", raw, error=InvalidGridError))
            if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
                raise InvalidGridError(
                    f"polygon {i} must be an (k, 2) array with k >= 3, got shape {poly.shape}")
            if not np.all(np.abs(poly) <= MAX_EXTENT):     # NaN fails too
                raise InvalidGridError(f"polygon {i} has a NaN or infinite vertex, or one "
                                       f"beyond ±{MAX_EXTENT:g}")
            if np.any(np.all(poly == np.roll(poly, -1, axis=0), axis=1)):
                raise InvalidGridError(f"polygon {i} repeats a vertex consecutively")
            area = _signed_area(poly)
            if abs(area) <= TOLERANCE:
                raise InvalidGridError(f"polygon {i} is degenerate (area {area:.3g})")
            if area < 0:
                poly = poly[::-1].copy()
            poly.flags.writeable = False
            polys.append(poly)
        self._polygons = tuple(polys)
        sizes = np.array([len(p) for p in polys], dtype=np.int64)
        self._start = np.zeros(len(polys) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self._start[1:])
        a = np.concatenate(polys) if polys else np.empty((0, 2))
        nxt = np.arange(len(a)) + 1
        nxt[self._start[1:] - 1] = self._start[:-1]
        self._a, self._b = a, a[nxt]
        self._owner = np.repeat(np.arange(len(polys)), sizes)
        self._plo = np.array([p.min(axis=0) for p in polys]).reshape(-1, 2)
        self._phi = np.array([p.max(axis=0) for p in polys]).reshape(-1, 2)
        for arr in (self._a, self._b, self._owner, self._plo, self._phi):
            arr.flags.writeable = False

    @classmethod
    def from_grid(cls, grid: Any) -> Obstacles:
        """The blocked cells of a :class:`~wayfinding.grid.Grid` as axis-aligned rectangles.

        Cell ``(x, y)`` covers ``[ox + x·s, ox + (x+1)·s) × [oy + y·s, oy + (y+1)·s)`` for the
        grid's ``origin`` ``(ox, oy)`` and ``cell_size`` s (the grid's world transform).  Runs
        of blocked cells along a row are merged, then equal runs in consecutive rows, so a
        Moving AI map gives a few hundred to a few thousand rectangles.  Cells outside the
        grid are not obstacles: pass ``bounds`` to the representations to keep agents inside.
        """
        blocked = ~np.asarray(grid.passable, dtype=bool)
        ox, oy = grid.origin
        s = grid.cell_size
        rects = blocked_rectangles(blocked)
        polys = [np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], dtype=np.float64) * s
                 + (ox, oy) for x0, y0, x1, y1 in rects.tolist()]
        return cls(polys)

    @property
    def polygons(self) -> tuple[np.ndarray, ...]:
        """The polygons, each ``(k, 2)`` float64, counter-clockwise, read-only."""
        return self._polygons

    @property
    def num_edges(self) -> int:
        return len(self._a)

    def __len__(self) -> int:
        return len(self._polygons)

    def __repr__(self) -> str:
        return f"Obstacles({len(self)} polygons, {self.num_edges} edges)"

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)`` of all vertices (zeros when empty)."""
        if not len(self._a):
            return (0.0, 0.0, 0.0, 0.0)
        lo, hi = self._a.min(axis=0), self._a.max(axis=0)
        return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))

    @positional_options("radius")
    def points_clear(self, points: ArrayLike, *, radius: float = 0.0) -> np.ndarray:
        """``(m,)`` bool: each point of ``points`` (``(m, 2)`` or ``(2,)``) is outside every
        obstacle and at distance >= ``radius`` from every boundary.  O(m · edges)."""
        p = as_points(points, "points")
        r = check_radius(radius)
        return self.segments_clear(p, p, radius=r)

    @positional_options("radius")
    def segments_clear(self, p: ArrayLike, q: ArrayLike, *, radius: float = 0.0) -> np.ndarray:
        """``(m,)`` bool: segment ``p[i]``–``q[i]`` is clear for an agent of ``radius``.

        ``p``, ``q``: ``(m, 2)`` (or ``(2,)``) world points.  Edges are first filtered by
        bounding boxes grown by the radius, then tested exactly; worst case O(m · edges).
        """
        p, q = as_points(p, "p"), as_points(q, "q")
        if p.shape != q.shape:
            raise InvalidQueryError(f"p {p.shape} and q {q.shape} differ in shape")
        r = check_radius(radius)
        m = len(p)
        out = np.ones(m, dtype=bool)
        if not m or not len(self._a):
            return out
        step = max(1, _CHUNK_PAIRS // max(1, self.num_edges))
        for lo in range(0, m, step):
            out[lo:lo + step] = self._chunk_clear(p[lo:lo + step], q[lo:lo + step], r)
        return out

    def _chunk_clear(self, p: np.ndarray, q: np.ndarray, r: float) -> np.ndarray:
        # broad phase: segment boxes grown by r against polygon boxes, then their edges
        slo, shi = np.minimum(p, q) - r - TOLERANCE, np.maximum(p, q) + r + TOLERANCE
        plo, phi = self._plo, self._phi
        near = (slo[:, 0, None] <= phi[None, :, 0]) & (shi[:, 0, None] >= plo[None, :, 0])
        near &= (slo[:, 1, None] <= phi[None, :, 1])
        near &= (shi[:, 1, None] >= plo[None, :, 1])
        sp, pp = np.nonzero(near)
        sizes = self._start[pp + 1] - self._start[pp]
        si = np.repeat(sp, sizes)
        ei = np.repeat(self._start[pp] - np.cumsum(sizes) + sizes, sizes) + np.arange(
            int(sizes.sum()))
        clear = np.ones(len(p), dtype=bool)
        if len(si):
            # cheap test first: a proper crossing blocks for every radius
            crossing = segments_cross(p[si], q[si], self._a[ei], self._b[ei])
            clear[si[crossing]] = False
            if r > TOLERANCE:
                left = clear[si]
                s2, e2 = si[left], ei[left]
                d = segment_gaps(p[s2], q[s2], self._a[e2], self._b[e2])
                clear[s2[d < r - TOLERANCE]] = False
        # A segment that does not cross a boundary lies wholly inside or outside each
        # polygon, apart from the places where it touches a vertex: test the pieces between
        # its endpoints and the vertices lying on it.
        todo = np.flatnonzero(clear)
        if len(todo):
            clear[todo] = ~self._pieces_inside(p[todo], q[todo], si, ei, todo)
        return clear

    def _pieces_inside(self, p: np.ndarray, q: np.ndarray, si: np.ndarray, ei: np.ndarray,
                       todo: np.ndarray) -> np.ndarray:
        """Whether some piece of each segment (cut at the vertices on it) is strictly inside
        an obstacle."""
        inside = self.contains(p)
        # vertices lying on a segment: the start vertex of a nearby edge within tolerance
        keep = np.isin(si, todo)
        s2 = np.searchsorted(todo, si[keep])
        v = self._a[ei[keep]]
        d = closest_on_segments(v, p[s2], q[s2])[0]
        on = d <= TOLERANCE
        s2, v = s2[on], v[on]
        seg = q - p
        length2 = np.einsum("ij,ij->i", seg, seg)
        mid = 0.5 * (p + q)
        inside |= self.contains(mid)
        if not len(s2):
            return inside
        t = np.einsum("ij,ij->i", v - p[s2], seg[s2]) / np.where(length2[s2] > 0,
                                                                  length2[s2], 1.0)
        t = np.clip(t, 0.0, 1.0)
        # pieces: sort (segment, t) with the endpoints 0 and 1 added, test each midpoint
        segs = np.concatenate([s2, np.arange(len(p)), np.arange(len(p))])
        ts = np.concatenate([t, np.zeros(len(p)), np.ones(len(p))])
        order = np.lexsort((ts, segs))
        segs, ts = segs[order], ts[order]
        same = segs[1:] == segs[:-1]
        a_t, b_t, owner = ts[:-1][same], ts[1:][same], segs[:-1][same]
        tm = 0.5 * (a_t + b_t)
        pts = p[owner] + tm[:, None] * seg[owner]
        hit = self.contains(pts)
        inside[owner[hit]] = True
        return inside

    def contains(self, points: ArrayLike) -> np.ndarray:
        """``(m,)`` bool: each point is strictly inside some obstacle (farther than
        :data:`TOLERANCE` from its boundary).  Even-odd rule per polygon."""
        p = as_points(points, "points")
        out = np.zeros(len(p), dtype=bool)
        if not len(p) or not len(self._a):
            return out
        step = max(1, _CHUNK_PAIRS // max(1, self.num_edges))
        for lo in range(0, len(p), step):
            out[lo:lo + step] = self._contains_chunk(p[lo:lo + step])
        return out

    def _contains_chunk(self, p: np.ndarray) -> np.ndarray:
        # candidate (point, polygon) pairs from the polygons' boxes, then their edges
        inbox = (p[:, 0, None] >= self._plo[None, :, 0]) & (p[:, 0, None] <= self._phi[None, :, 0])
        inbox &= (p[:, 1, None] >= self._plo[None, :, 1])
        inbox &= (p[:, 1, None] <= self._phi[None, :, 1])
        pi, pp = np.nonzero(inbox)
        inside = np.zeros(len(p), dtype=bool)
        if not len(pi):
            return inside
        sizes = self._start[pp + 1] - self._start[pp]
        pair = np.repeat(np.arange(len(pi)), sizes)
        ei = np.repeat(self._start[pp] - np.cumsum(sizes) + sizes, sizes) + np.arange(
            int(sizes.sum()))
        pts = p[pi[pair]]
        a, b = self._a[ei], self._b[ei]
        y = pts[:, 1]
        straddle = (a[:, 1] > y) != (b[:, 1] > y)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # masked below
            xcross = a[:, 0] + (y - a[:, 1]) * (b[:, 0] - a[:, 0]) / (b[:, 1] - a[:, 1])
        hits = np.bincount(pair[straddle & (pts[:, 0] < xcross)], minlength=len(pi))
        odd = hits % 2 == 1
        # strictly inside: no edge of that polygon within the tolerance
        near = np.bincount(pair, weights=closest_on_segments(pts, a, b)[0] <= TOLERANCE,
                           minlength=len(pi)) > 0
        inside[pi[odd & ~near]] = True
        return inside


def blocked_rectangles(blocked: np.ndarray) -> np.ndarray:
    """Cover the True cells of an ``(H, W)`` bool array (indexed ``[y, x]``) with disjoint
    rectangles: ``(k, 4)`` int64 rows ``(x0, y0, x1, y1)``, half-open cell ranges.  Runs along
    rows are merged first, then identical runs in consecutive rows; sorted by (y0, x0)."""
    b = np.asarray(blocked, dtype=bool)
    h, w = b.shape
    pad = np.zeros((h, w + 2), dtype=np.int8)
    pad[:, 1:-1] = b
    diff = np.diff(pad, axis=1)
    ys, xs0 = np.nonzero(diff == 1)
    _, xs1 = np.nonzero(diff == -1)
    if not len(ys):
        return np.empty((0, 4), dtype=np.int64)
    # runs (y, x0, x1) sorted by y then x0; stack identical runs in consecutive rows
    order = np.lexsort((ys, xs1, xs0))
    y, a, c = ys[order], xs0[order], xs1[order]
    new = np.ones(len(y), dtype=bool)
    new[1:] = (a[1:] != a[:-1]) | (c[1:] != c[:-1]) | (y[1:] != y[:-1] + 1)
    group = np.cumsum(new) - 1
    y0 = y[new]
    y1 = np.zeros(len(y0), dtype=np.int64)
    np.maximum.at(y1, group, y + 1)
    rects = np.stack([a[new], y0, c[new], y1], axis=1).astype(np.int64)
    return rects[np.lexsort((rects[:, 0], rects[:, 1]))]


def as_points(values: ArrayLike, name: str) -> np.ndarray:
    """``values`` as an ``(m, 2)`` float64 array of finite points within
    :data:`MAX_EXTENT` (a single ``(2,)`` point becomes ``(1, 2)``); raises
    :class:`InvalidQueryError` naming the bad value."""
    arr = np.array(reals(name, values))
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidQueryError(f"{name} must have shape (m, 2), got {arr.shape}")
    inside = (np.abs(arr) <= MAX_EXTENT).all(axis=1)     # NaN fails too
    if not inside.all():
        bad = int(np.flatnonzero(~inside)[0])
        raise InvalidQueryError(f"{name}[{bad}] = {arr[bad].tolist()} is not finite or lies "
                                f"beyond ±{MAX_EXTENT:g}")
    return arr


def as_point(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as one finite ``(x, y)`` float64 point; raises :class:`InvalidQueryError`
    naming it otherwise."""
    return finite_point(name, value)


def check_radius(radius: float) -> float:
    """A validated agent radius (finite, >= 0) as a float."""
    return positive_float("radius", radius, allow_zero=True)


def _signed_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _cross(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def closest_on_segments(v: np.ndarray, a: np.ndarray, b: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Distance from each point ``v[i]`` (or one point ``v``) to segment ``a[i]``–``b[i]``
    (a point when a == b), and the closest points."""
    ab = b - a
    l2 = np.einsum("ij,ij->i", ab, ab)
    t = np.einsum("ij,ij->i", v - a, ab) / np.where(l2 > 0, l2, 1.0)
    t = np.clip(t, 0.0, 1.0)
    closest = a + t[:, None] * ab
    return np.hypot(*(v - closest).T), closest


def segments_cross(p: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray, *,
                   touching: bool = False) -> np.ndarray:
    """``(n,)`` bool: segment ``p[i]``–``q[i]`` crosses ``a[i]``–``b[i]`` (``(n, 2)`` float64
    each) at a point interior to both, each strictly separating the other's ends beyond the
    tolerance.  ``touching=True``: they meet at all (an end on the other, a collinear
    overlap, a crossing), by the exact signs of the orientations, without tolerance."""
    touching = flag("touching", touching)
    pq, ab = q - p, b - a
    o1, o2 = _cross(pq, a - p), _cross(pq, b - p)
    o3, o4 = _cross(ab, p - a), _cross(ab, q - a)
    if touching:
        lo, hi = np.minimum(p, q), np.maximum(p, q)
        boxes = ((hi >= np.minimum(a, b)) & (lo <= np.maximum(a, b))).all(axis=1)
        return (o1 * o2 <= 0) & (o3 * o4 <= 0) & boxes
    t1 = TOLERANCE * np.hypot(*pq.T)
    t2 = TOLERANCE * np.hypot(*ab.T)
    return (((o1 > t1) & (o2 < -t1)) | ((o1 < -t1) & (o2 > t1))) & (
        ((o3 > t2) & (o4 < -t2)) | ((o3 < -t2) & (o4 > t2)))


def segment_gaps(p: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(n,)`` distances between segments ``p[i]``–``q[i]`` and ``a[i]``–``b[i]`` (``(n, 2)``
    float64 each, a segment whose ends coincide being a point): 0 when they cross or touch,
    else the least of the four endpoint-to-segment distances."""
    d = np.minimum.reduce([closest_on_segments(p, a, b)[0], closest_on_segments(q, a, b)[0],
                           closest_on_segments(a, p, q)[0], closest_on_segments(b, p, q)[0]])
    pq, ab = q - p, b - a
    o1, o2 = _cross(pq, a - p), _cross(pq, b - p)
    o3, o4 = _cross(ab, p - a), _cross(ab, q - a)
    crosses = (np.sign(o1) * np.sign(o2) < 0) & (np.sign(o3) * np.sign(o4) < 0)
    d[crosses] = 0.0
    return d
