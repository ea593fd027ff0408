"""Hulls of compound vehicles: oriented boxes, merged contours and convex shells.

A vehicle (a carriage and its horses) is a set of oriented boxes seen from above. Each box
is grown by the agent radius on every side (a conservative stand-in for the rounded
Minkowski sum), so an agent counts as a point against the grown shapes. The boxes are merged
one at a time into one **contour** (:func:`merge_contours`: partial overlap, disjoint shapes
joined by two bridge edges, one shape inside the other), which is then made convex by
removing reflex vertices (:func:`convexify`); each removed vertex leaves a **pocket
triangle** with its two neighbours, and the pockets together cover the walkable space
between the contour and the hull.

Every polygon is an ``(n, 2)`` float64 array of ``(x, y)`` world points (y up) in
**clockwise** order (negative signed area), without the first point repeated.

>>> a = box_polygon((0.0, 0.0), (2.0, 1.0), 0.0)
>>> b = box_polygon((2.5, 0.0), (1.0, 0.5), 0.0)
>>> contour = merge_contours(a, b)
>>> len(contour), signed_area(contour) < 0
(8, True)
>>> hull, pockets = convexify(contour)
>>> len(hull), len(pockets)
(6, 2)
>>> bool(point_in_polygon((3.0, 0.6), hull)), bool(point_in_polygon((3.0, 0.6), contour))
(True, False)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import finite_point, finite_points, number, positive_float
from ..errors import InvalidGeometryError
from ..geometry.predicates import MIN_COORD, orient2d

#: Extra growth tried in turn, relative to the boxes' extent, for a box that touches the
#: contour degenerately (:func:`merge_boxes`).
NUDGES = (0.0, 1e-9, 1e-7, 1e-5)
#: Relative tolerance of the contour walk (points closer than this times the shapes' size
#: are the same point).
_EPS = 1e-9


def circular_incr(cur: int, inc: int, size: int) -> int:
    """Index ``cur`` moved by ``inc`` (negative walks backwards) round a loop of ``size``."""
    return (cur + size + inc) % size


def signed_area(polygon: np.ndarray) -> float:
    """Signed area of a polygon: negative when its vertices run clockwise (y up); its sign
    is kept when the area itself overflows or underflows (``±inf``, ``±0.0``)."""
    area, k = _scaled_area(polygon)
    try:
        return math.ldexp(area, 2 * k)
    except OverflowError:
        return math.copysign(math.inf, area)


def _scaled_area(polygon: np.ndarray) -> tuple[float, int]:
    """``(a, k)``: the signed area is ``a * 4**k``, ``a`` computed on the polygon scaled by
    ``2**-k`` into ``[-1, 1]`` (exactly), where no product overflows or underflows."""
    k = math.frexp(float(np.abs(polygon).max(initial=0.0)))[1]
    unit = np.ldexp(polygon, -k)
    x, y = unit[:, 0], unit[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)), k


def box_polygon(center: ArrayLike, half_extents: ArrayLike, heading: float, *,
                grow: float = 0.0) -> np.ndarray:
    """The four corners of an oriented box, clockwise, ``(4, 2)`` float64.

    ``center`` is the box centre ``(x, y)``; ``half_extents`` its half length along its
    heading and half width across it (both > 0); ``heading`` the angle of its long axis from
    the x axis in radians; ``grow`` (>= 0, world units) is added to both half extents, as
    for the agent radius.
    """
    c = finite_point("center", center, error=InvalidGeometryError)
    h = finite_point("half_extents", half_extents, error=InvalidGeometryError)
    if not (h > 0).all():
        raise InvalidGeometryError(f"half_extents {h.tolist()} must both be > 0")
    angle = number("heading", heading, error=InvalidGeometryError)
    pad = positive_float("grow", grow, allow_zero=True, error=InvalidGeometryError)
    hx, hy = h + pad
    local = np.array([[-hx, hy], [hx, hy], [hx, -hy], [-hx, -hy]])
    cos, sin = math.cos(angle), math.sin(angle)
    return local @ np.array([[cos, sin], [-sin, cos]]) + c


def check_polygon(name: str, value: Any, *, clockwise: bool = True) -> np.ndarray:
    """``value`` as an ``(n, 2)`` float64 polygon with n >= 3, clockwise with a non-zero
    area unless ``clockwise`` is false, or :class:`~wayfinding.errors.InvalidGeometryError`."""
    pts, one = finite_points(name, value, error=InvalidGeometryError)
    if one or len(pts) < 3:
        raise InvalidGeometryError(f"{name} must have at least 3 (x, y) vertices, "
                                   f"not {1 if one else len(pts)}")
    if clockwise and _scaled_area(pts)[0] >= 0:
        raise InvalidGeometryError(f"{name} must run clockwise with a non-zero area "
                                   f"(signed area {signed_area(pts):.6g})")
    return pts


def point_in_polygon(points: ArrayLike, polygon: np.ndarray) -> np.ndarray | bool:
    """Whether each point lies inside ``polygon`` (crossing count of a ray towards +x).

    Edges are half-open in y (an edge counts when exactly one of its ends lies above the
    point's y), so a ray through a vertex is counted once; points on the left and bottom
    edges count as inside, points on the right and top edges as outside.  Which side of an
    edge a point lies on is decided exactly (:func:`~wayfinding.geometry.orient2d`, on the
    coordinates scaled together by a power of two), so points on an edge or a vertex keep
    that rule at any scale; coordinates below ``2**-190`` times the largest count as 0.
    One point gives a bool, ``(n, 2)`` points an ``(n,)`` bool array.
    """
    pts, one = finite_points("points", points, error=InvalidGeometryError)
    inside = _inside(pts, check_polygon("polygon", polygon, clockwise=False))
    return bool(inside[0]) if one else inside


def _inside(pts: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """:func:`point_in_polygon` of checked points ``(n, 2)``, ``(n,)`` bool."""
    a, b = polygon, _following(polygon)
    straddle = (a[:, 1] > pts[:, 1:]) != (b[:, 1] > pts[:, 1:])
    i, j = np.nonzero(straddle)
    # The ray crosses a straddling edge right of the point when the point is left of the
    # edge directed upward.
    up = (a[j, 1] < b[j, 1])[:, None]
    lo, hi = np.where(up, a[j], b[j]), np.where(up, b[j], a[j])
    big = max(float(np.abs(pts).max(initial=0.0)), float(np.abs(polygon).max(initial=0.0)))
    shift = 90 - math.frexp(big)[1]              # the largest magnitude into [2**89, 2**90)
    lo, hi, p = (np.ldexp(v, shift) for v in (lo, hi, pts[i]))
    for v in (lo, hi, p):
        v[np.abs(v) < MIN_COORD] = 0.0
    left = np.asarray(orient2d(lo, hi, p)) > 0 if len(i) else np.zeros(0, dtype=bool)
    return np.bincount(i[left], minlength=len(pts)) % 2 == 1


def _cross(u: np.ndarray, v: np.ndarray) -> Any:
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def _following(poly: np.ndarray) -> np.ndarray:
    """Each vertex's successor round the polygon ``(n, 2)`` (``np.roll`` by -1, cheaper)."""
    return np.concatenate([poly[1:], poly[:1]])


def _hits(p: np.ndarray, q: np.ndarray, poly: np.ndarray, eps: float
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parameters ``t`` along p→q, ``u`` along each edge, and whether the segment p→q meets
    that edge of ``poly`` (parallel edges never do)."""
    a, b = poly, _following(poly)
    d, e = q - p, b - a
    den = _cross(d, e)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = _cross(a - p, e) / den
        u = _cross(a - p, d) / den
    ok = (np.abs(den) > eps * eps) & (t > eps) & (t <= 1 + eps) & (u >= -eps) & (u <= 1 + eps)
    return t, u, ok


def _scale(*polys: np.ndarray) -> float:
    pts = np.concatenate(polys)
    return float(max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1]), 1.0))


def merge_contours(contour: ArrayLike, shape: ArrayLike) -> np.ndarray:
    """The outer contour of the union of two clockwise polygons, clockwise.

    Three cases: **overlap** (the boundary walk switches polygon at each crossing),
    **containment** (the outer polygon comes back) and **disjoint** polygons (joined by two
    bridge edges replacing the closest pair of facing edges whose bridges cross no edge).
    The walk starts at the lowest, then leftmost, vertex of the two, which lies on the outer
    boundary, so a union enclosing a hole gives its outer contour. Raises
    :class:`~wayfinding.errors.InvalidGeometryError` for polygons that are not clockwise or
    whose walk does not close (degenerate overlaps such as shared collinear edges).
    """
    alt = check_polygon("contour", contour)
    cur = check_polygon("shape", shape)
    eps = _EPS * _scale(alt, cur)
    if _touches(alt, cur, eps * 10) or _touches(cur, alt, eps * 10):
        raise InvalidGeometryError("the shapes overlap degenerately: a vertex of one lies on "
                                   "the boundary of the other (shared vertices or collinear "
                                   "edges)")
    both = np.concatenate([cur, alt])
    start = int(np.lexsort((both[:, 0], both[:, 1]))[0])
    if start >= len(cur):
        cur, alt, start = alt, cur, start - len(cur)
    first = cur
    out = [cur[start]]
    p, nxt = cur[start], circular_incr(start, 1, len(cur))
    crossed = False
    for _ in range(4 * (len(cur) + len(alt)) + 8):
        t, _u, ok = _hits(p, cur[nxt], alt, eps)
        if ok.any():
            edge = int(np.flatnonzero(ok)[np.argmin(t[ok])])
            p = p + t[edge] * (cur[nxt] - p)
            nxt = circular_incr(edge, 1, len(alt))
            cur, alt = alt, cur
            crossed = True
        else:
            p = cur[nxt]
            nxt = circular_incr(nxt, 1, len(cur))
        if np.hypot(*(p - out[0])) <= eps * 10:
            break
        out.append(p)
    else:
        raise InvalidGeometryError("the contour walk did not close: the shapes overlap "
                                   "degenerately (shared collinear edges or vertices)")
    if crossed:
        merged = _drop_duplicates(np.array(out), eps)
        if len(merged) < 3 or signed_area(merged) >= 0 or not _covers(
                merged, np.concatenate([cur, alt]), eps * 1e3):
            raise InvalidGeometryError("the contour walk lost part of the shapes: they "
                                       "overlap degenerately (shared collinear edges or "
                                       "vertices)")
        return merged
    other = alt if cur is first else cur
    if np.any(point_in_polygon(other, first)):
        return first.copy()
    return _bridge(first, other)


def _touches(poly: np.ndarray, points: np.ndarray, tol: float) -> bool:
    """Whether some point lies within ``tol`` of the polygon's boundary."""
    return bool((_boundary_gaps(poly, points) <= tol).any())


def _boundary_gaps(poly: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Distance from each point to the polygon's boundary, ``(n,)``; computed on both
    scaled by a power of two into ``[-1, 1]`` (exactly), so no product overflows or
    underflows however far out or small they are."""
    k = math.frexp(max(float(np.abs(poly).max(initial=0.0)),
                       float(np.abs(points).max(initial=0.0))))[1]
    a, points = np.ldexp(poly, -k), np.ldexp(points, -k)
    e = _following(a) - a
    rel = points[:, None, :] - a[None]
    with np.errstate(invalid="ignore"):      # a repeated vertex: an edge of length 0
        t = np.nan_to_num(np.clip((rel * e).sum(axis=2) / (e * e).sum(axis=1), 0.0, 1.0))
    return np.ldexp(np.hypot(*(rel - t[..., None] * e).transpose(2, 0, 1)).min(axis=1), k)


def _covers(poly: np.ndarray, points: np.ndarray, tol: float) -> bool:
    """Whether every point lies inside ``poly`` or within ``tol`` of its boundary."""
    return bool(((_boundary_gaps(poly, points) <= tol) | point_in_polygon(points, poly)).all())


def _drop_duplicates(poly: np.ndarray, eps: float) -> np.ndarray:
    keep = np.hypot(*(poly - np.roll(poly, 1, axis=0)).T) > eps * 10
    return poly[keep]


def _crosses_any(p: np.ndarray, q: np.ndarray, polys: tuple[np.ndarray, ...], eps: float
                 ) -> bool:
    for poly in polys:
        t, u, _ = _hits(p, q, poly, eps)
        if ((t > eps) & (t < 1 - eps) & (u > eps) & (u < 1 - eps)).any():
            return True
    return False


def _bridge(one: np.ndarray, two: np.ndarray) -> np.ndarray:
    """Join two disjoint clockwise polygons by removing edge A→D of ``one`` and edge C→B of
    ``two`` and adding the bridges A→B and C→D (the pair of shortest total bridge length
    whose bridges cross no edge and keep the result clockwise)."""
    eps = _EPS * _scale(one, two)
    n, m = len(one), len(two)
    best: tuple[float, int, int] | None = None
    for i in range(n):
        a, d = one[i], one[(i + 1) % n]
        for j in range(m):
            c, b = two[j], two[(j + 1) % m]
            cost = float(np.hypot(*(b - a)) + np.hypot(*(d - c)))
            if best is not None and cost >= best[0]:
                continue
            if _crosses_any(a, b, (one, two), eps) or _crosses_any(c, d, (one, two), eps):
                continue
            if _cross(b - a, c - b) == 0 and _cross(d - c, a - d) == 0:
                continue
            merged = np.concatenate([one[: i + 1], np.roll(two, -((j + 1) % m), axis=0),
                                     one[i + 1:]])
            if signed_area(merged) < 0 and not _crosses_any(a, b, (np.array([c, d]),), eps):
                best = (cost, i, j)
    if best is None:
        raise InvalidGeometryError("no pair of bridge edges joins the two shapes")
    _, i, j = best
    return np.concatenate([one[: i + 1], np.roll(two, -((j + 1) % m), axis=0), one[i + 1:]])


def merge_boxes(boxes: ArrayLike, *, grow: float = 0.0) -> np.ndarray:
    """The merged clockwise contour of oriented boxes, each row ``(cx, cy, half_length,
    half_width, heading)``, grown by ``grow`` (the agent radius), added one at a time.

    A box that touches the contour degenerately (a shared vertex, a collinear edge, as two
    horses side by side) is grown a little more, by :data:`NUDGES` times the boxes' extent
    in turn, until it merges: the contour only ever gets larger, so stays conservative.
    """
    rows, _ = finite_points("boxes", boxes, dim=5, error=InvalidGeometryError)
    pad = positive_float("grow", grow, allow_zero=True, error=InvalidGeometryError)
    extent = float(np.abs(rows[:, :2]).max() + np.abs(rows[:, 2:4]).max() + pad + 1.0)
    contour = box_polygon(rows[0, :2], rows[0, 2:4], float(rows[0, 4]), grow=pad)
    for r in rows[1:]:
        for k, nudge in enumerate(NUDGES):
            poly = box_polygon(r[:2], r[2:4], float(r[4]), grow=pad + nudge * extent)
            try:
                contour = merge_contours(contour, poly)
                break
            except InvalidGeometryError as exc:
                if "degenerately" not in str(exc) or k == len(NUDGES) - 1:
                    raise
    return contour


def _ear(hull: list[np.ndarray], i: int) -> bool:
    """Whether no other vertex lies in or on the triangle that removing vertex ``i`` adds."""
    prev, here, nxt = hull[i - 1], hull[i], hull[(i + 1) % len(hull)]
    pts = np.array(hull)
    tri = np.array([prev, here, nxt])
    others = ~(pts[:, None, :] == tri[None]).all(axis=2).any(axis=1)
    q = pts[others]
    inside = np.ones(len(q), dtype=bool)
    for a, b in ((prev, here), (here, nxt), (nxt, prev)):
        inside &= _cross(b - a, q - a) >= 0
    return not inside.any()


def convexify(contour: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The convex hull of a clockwise contour by reflex-vertex removal, and its pockets.

    Walks from the last vertex towards the first; a straight vertex is removed, and so is a
    reflex one whose triangle with its two neighbours holds no other vertex (so the polygon
    stays simple); after a removal the walk looks again at the next vertex, whose corner
    changed, and passes repeat until none is removed. Returns the clockwise hull ``(m, 2)``
    and the pocket triangles ``(k, 3, 2)`` (previous, removed, next vertex), which together
    cover the space between contour and hull.
    """
    hull = list(check_polygon("contour", contour))
    pockets = []
    removed = True
    while removed and len(hull) > 3:
        removed = False
        i = len(hull) - 1
        while i >= 0 and len(hull) > 3:
            prev, here, nxt = hull[i - 1], hull[i], hull[(i + 1) % len(hull)]
            turn = float(_cross(here - prev, nxt - here))
            if turn == 0 or (turn > 0 and _ear(hull, i)):
                if turn > 0:
                    pockets.append([prev, here, nxt])
                del hull[i]
                removed = True
                i = min(len(hull) - 1, i)
            else:
                i -= 1
    return np.array(hull), np.array(pockets).reshape(-1, 3, 2)
