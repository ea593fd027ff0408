"""The wavefront builder: convex regions grown one at a time from seeds by jumps to events,
after Hale and Youngblood's iterative wavefront edge expansion.

A region is an axis-aligned box (its four *classification edges*, top, bottom, right, left)
cut by the half-planes of the walls it conforms to, so it is convex, and its sides are at
most four axis-aligned ones plus one on each wall it met at a slant (its *order*).  Walls
are the edges of the walkable area (outline and holes) and of the regions already placed,
each directed with the unclaimed space on its left.  The loop:

1. *Seeding.*  One seed next to every edge of the area (a point a little off the edge's
   middle, inside), taken in an order drawn from ``numpy.random.default_rng(seed)``.  A seed
   already claimed by a region is dropped.  When none is left, seeds are put next to every
   edge of the placed regions (outside them), and dropped again when claimed; when those
   run out too, one seed goes at the most inward point of every piece of unclaimed space
   larger than ``1e-12`` times the squared world size (GEOS's ``polylabel``), again after
   each such round; the loop ends when there is no such piece, or when a round placed no
   region (only pieces thinner than the collision tolerance below are left then).  A seed
   grows from a square of half-side ``min(d / 2, u)``, ``d`` its distance to the nearest
   wall and ``u = 1e-3`` times the world size (the unit seed); a seed closer than the
   collision tolerance to a wall is dropped.
2. *Edge classification.*  Walls facing away from the seed (exact
   :func:`~wayfinding.geometry.orient2d`) are dropped; the others go to the first of the
   categories +y, −y, +x, −x whose 90° wedge round the seed they enter.  A wall parallel to
   its category's classification edge gives one event, its point closest to the seed
   (case A); another wall whose closest point is an end gives that end, the intruding
   vertex (case B); any other wall splits (case C): its closest point, then its two ends.
   Events are sorted by distance to the seed, ties in wall order; a split's ends come right
   after their split point and before every farther event (the pseudo-distance is ``d + ε``
   with ``ε`` infinitesimal).  Events that would move no edge (inside the region, or only
   beyond stopped edges) are skipped.
3. *Edge expansion.*  Each event in turn moves the classification edges facing it (at most
   two) to it, all at once, then the region is checked: a wall crossing its inside (by more
   than ``1e-11`` times the world size) is a collision.  A collision is resolved by cutting
   the region with the wall's half-plane (a conforming edge) when the region before the jump
   lies on the wall's free side and the cut side stays within the wall's ends; otherwise the
   jump is undone and each moved edge in turn is contracted: it is swept from where it was
   towards the event and goes as far as the first wall it meets (or, if the region's
   conforming sides would then pass their walls' ends, to the farthest such end on the way
   that keeps them within), and an edge that falls short of the event stops for good.  The
   region is done when the events run out or all four edges have stopped.
4. *Reseeding*, as in step 1, until no seed is left.

With ``merge``, adjacent regions whose union is convex are merged afterwards (shared edges
longest first, as Hertel–Mehlhorn).  Regions are welded as the subtractive builder's pieces:
a corner lying on a neighbour's side becomes a (collinear) vertex of that side too, so a
polygon may have more than ``max_verts`` vertices.

Regions grow in :func:`~wayfinding.navmesh.build.unit_frame` (the area moved near the origin
and scaled to a size of about 1), so the tolerances above keep their meaning at any offset
and size; corners closer than the collision tolerance are merged.

Needs the ``[geometry]`` extra (shapely) for the walkable area and the last seeding rule.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import count, flag
from ..errors import InvalidGeometryError
from ..geometry.predicates import orient2d
from . import build as _build
from . import subtractive as _subtractive

#: The unit seed's half-side, as a fraction of the world size.
UNIT_SEED = 1e-3
#: How far (a fraction of the world size) a wall must reach into a region to collide.
OVERLAP = 1e-11

_TOP, _BOTTOM, _RIGHT, _LEFT = range(4)     # classification edges in category order
#: How many events :meth:`_Region.grow` scans at a time for the next one that moves an edge.
_SCAN = 64


class _Walls:
    """Directed wall segments ``a -> b`` with the unclaimed space on their left, growing as
    regions are placed."""

    def __init__(self, a: np.ndarray, b: np.ndarray):
        self.a, self.b = a, b
        self._boxes()

    def add(self, a: np.ndarray, b: np.ndarray) -> None:
        self.a, self.b = np.concatenate([self.a, a]), np.concatenate([self.b, b])
        self._boxes()

    def _boxes(self) -> None:
        lo, hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        self.x0, self.y0 = np.ascontiguousarray(lo[:, 0]), np.ascontiguousarray(lo[:, 1])
        self.x1, self.y1 = np.ascontiguousarray(hi[:, 0]), np.ascontiguousarray(hi[:, 1])

    def crossing(self, poly: np.ndarray, tol: float) -> np.ndarray:
        """The ids of the walls reaching into convex counter-clockwise ``poly`` shrunk by
        ``tol`` (:func:`_crossing`); walls clear of its bounding box are skipped."""
        x0, y0 = poly.min(axis=0).tolist()
        x1, y1 = poly.max(axis=0).tolist()
        near = np.flatnonzero((self.x0 < x1) & (self.y0 < y1) & (self.x1 > x0)
                              & (self.y1 > y0))
        if not len(near):
            return near
        return near[_crossing(self.a[near], self.b[near], poly, tol)[0]]

    def distance(self, p: np.ndarray) -> np.ndarray:
        """Distances from a point ``p`` (``(2,)``) to every wall, ``(W,)``, or from each of
        ``(n, 2)`` points, ``(n, W)``."""
        p = p[..., None, :]
        d = self.b - self.a
        t = np.clip(((p - self.a) * d).sum(-1) / np.maximum((d * d).sum(-1), 1e-300), 0, 1)
        near = self.a + t[..., None] * d - p
        return np.hypot(near[..., 0], near[..., 1])

    def winding(self, p: np.ndarray) -> int:
        """The winding number of the walls round ``p``: 1 where ``p`` is unclaimed walkable
        space, less elsewhere (``p`` off every wall)."""
        a, b = self.a, self.b
        side = orient2d(a, b, p)
        up = (a[:, 1] <= p[1]) & (b[:, 1] > p[1]) & (side > 0)
        down = (b[:, 1] <= p[1]) & (a[:, 1] > p[1]) & (side < 0)
        return int(up.sum()) - int(down.sum())


def _crossing(a: np.ndarray, b: np.ndarray, poly: np.ndarray, tol: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which segments ``a -> b`` reach into convex counter-clockwise ``poly`` shrunk by
    ``tol``, with the parameter interval ``[t0, t1]`` of the part inside (Cyrus–Beck).
    A few segments (the usual case) are tested one by one in floats, with the same
    arithmetic, faster than arrays that small."""
    p = poly
    e = np.concatenate([p[1:], p[:1]]) - p
    length = np.hypot(e[:, 0], e[:, 1])
    keep = length > 0
    sides = int(np.count_nonzero(keep))
    if sides < 3:                               # no inside
        return np.zeros(len(a), bool), np.zeros(len(a)), np.ones(len(a))
    if sides < len(p):
        p, e, length = p[keep], e[keep], length[keep]
    if len(a) <= _FEW:
        return _crossing_few(a, b, p, e, length, tol)
    # f(x) = distance of x inside the line of each side, for both ends of every segment.
    fa = (e[None, :, 0] * (a[:, None, 1] - p[None, :, 1])
          - e[None, :, 1] * (a[:, None, 0] - p[None, :, 0])) / length - tol
    fb = (e[None, :, 0] * (b[:, None, 1] - p[None, :, 1])
          - e[None, :, 1] * (b[:, None, 0] - p[None, :, 0])) / length - tol
    out = (fa < 0) & (fb < 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(fa != fb, -fa / (fb - fa), 0.0)
    t0 = np.where((fa < 0) & (fb >= 0), t, 0.0).max(axis=1)
    t1 = np.where((fa >= 0) & (fb < 0), t, 1.0).min(axis=1)
    hit = ~out.any(axis=1) & (t0 <= t1)
    return hit, t0, t1


#: Up to how many segments :func:`_crossing` tests one by one.
_FEW = 8


def _crossing_few(a: np.ndarray, b: np.ndarray, p: np.ndarray, e: np.ndarray,
                  length: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_crossing` for a few segments, against sides from ``p`` along ``e``."""
    sides = list(zip(p[:, 0].tolist(), p[:, 1].tolist(), e[:, 0].tolist(), e[:, 1].tolist(),
                     length.tolist()))
    hits, t0s, t1s = [], [], []
    for (ax, ay), (bx, by) in zip(a.tolist(), b.tolist()):
        t0, t1, out = 0.0, 1.0, False
        for px, py, ex, ey, n in sides:
            fa = (ex * (ay - py) - ey * (ax - px)) / n - tol
            fb = (ex * (by - py) - ey * (bx - px)) / n - tol
            if fa < 0 and fb < 0:
                out = True
            elif fa < 0:
                t0 = max(t0, -fa / (fb - fa))
            elif fb < 0:
                t1 = min(t1, -fa / (fb - fa))
        hits.append(not out and t0 <= t1)
        t0s.append(t0)
        t1s.append(t1)
    return np.array(hits, bool), np.array(t0s), np.array(t1s)


def _box_poly(box: np.ndarray, cuts: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The region of ``box`` ``(x0, y0, x1, y1)`` cut by the half-planes left of ``cuts``
    (an axis-aligned cut clamps the box, a sloped one clips it)."""
    x0, y0, x1, y1 = box.tolist()
    sloped = []
    for a, b in cuts:
        if a[1] == b[1]:
            if b[0] < a[0]:
                y1 = min(y1, float(a[1]))
            else:
                y0 = max(y0, float(a[1]))
        elif a[0] == b[0]:
            if b[1] > a[1]:
                x1 = min(x1, float(a[0]))
            else:
                x0 = max(x0, float(a[0]))
        else:
            sloped.append((a, b))
    if x0 >= x1 or y0 >= y1:
        return np.empty((0, 2))
    poly = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    for a, b in sloped:
        poly = _subtractive._clip(poly, a, b, keep_left=True)
    return poly


class _Region:
    """One region growing from a seed square (see the module)."""

    def __init__(self, walls: _Walls, seed: np.ndarray, half: float, tol: float):
        self.walls, self.seed, self.tol = walls, seed, tol
        self.box = np.concatenate([seed - half, seed + half])
        self.cuts: list[tuple[np.ndarray, np.ndarray]] = []
        self.cut_ids: set[int] = set()
        self.stopped = [False] * 4
        self.current = self.poly(self.box)          # the region's polygon now

    def poly(self, box: np.ndarray) -> np.ndarray:
        return _box_poly(box, self.cuts)

    def events(self) -> np.ndarray:
        """``(E, 2)`` event points of the walls facing the seed, nearest first."""
        a, b, s = self.walls.a, self.walls.b, self.seed
        facing = np.flatnonzero(orient2d(a, b, s) > 0)
        a, b = a[facing], b[facing]
        d = b - a
        t = np.clip(((s - a) * d).sum(1) / np.maximum((d * d).sum(1), 1e-300), 0, 1)
        close = a + t[:, None] * d
        dist = np.hypot(*(close - s).T)
        category = _categories(a - s, b - s)
        parallel = np.where(category < 2, d[:, 1] == 0, d[:, 0] == 0)
        split = ~parallel & (t > 0) & (t < 1)
        # A split's ends: rank 1, right after the split point (rank 0) at the same distance.
        ends = np.flatnonzero(split)
        key = np.concatenate([dist, dist[ends], dist[ends]])
        rank = np.concatenate([np.zeros(len(dist)), np.ones(2 * len(ends))])
        order = np.concatenate([2 * np.arange(len(dist)), 2 * ends, 2 * ends + 1])
        points = np.concatenate([close, a[ends], b[ends]])
        return points[np.lexsort((order, rank, key))]

    def grow(self) -> np.ndarray:
        """Expand by the events in turn (step 3), skipping those that would move no edge;
        the region's final polygon."""
        points = self.events()
        reach = np.concatenate([points, -points], axis=1)     # (x, y, -x, -y) per event
        at = 0
        while at < len(points) and not all(self.stopped):
            # An event moves an edge when it lies beyond it: x > x1, y > y1, x < x0 or
            # y < y0, stopped edges never.  Events that move none now never will.
            x0, y0, x1, y1 = self.box.tolist()
            limit = np.array([x1, y1, -x0, -y0])
            limit[[self.stopped[e] for e in (_RIGHT, _TOP, _LEFT, _BOTTOM)]] = np.inf
            while at < len(points):
                moves = (reach[at:at + _SCAN] > limit).any(axis=1)
                if moves.any():
                    break
                at += _SCAN
            else:
                break
            at += int(np.argmax(moves))
            self._jump(points[at])
            at += 1
        return self.current

    def _target(self, point: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self.box
        px, py = point
        new = self.box.copy()
        if py > y1 and not self.stopped[_TOP]:
            new[3] = py
        if py < y0 and not self.stopped[_BOTTOM]:
            new[1] = py
        if px > x1 and not self.stopped[_RIGHT]:
            new[2] = px
        if px < x0 and not self.stopped[_LEFT]:
            new[0] = px
        return new

    def _hits(self, poly: np.ndarray) -> np.ndarray:
        """The walls (ids) reaching into ``poly``, but those it conforms to."""
        if len(poly) < 3:
            return np.empty(0, np.int64)
        hit = self.walls.crossing(poly, self.tol)
        return np.array([k for k in hit.tolist() if k not in self.cut_ids], np.int64) \
            if self.cut_ids else hit

    def _jump(self, point: np.ndarray) -> None:
        new = self._target(point)
        if (new == self.box).all():
            return
        old_poly = self.current
        cuts, cut_ids = list(self.cuts), set(self.cut_ids)
        poly = self.poly(new)
        hits = self._hits(poly)
        while len(hits):
            for k in hits:
                cut = self._conforming(int(k), old_poly, poly)
                if cut is not None:
                    poly = cut
                    break
            else:
                break
            hits = self._hits(poly)
        if not len(hits) and len(poly) >= 3 and self._within_ends(poly):
            self.box, self.current = new, poly
            return
        self.cuts, self.cut_ids = cuts, cut_ids      # undo the jump, contract each edge
        for edge in range(4):
            if new[_SLOT[edge]] != self.box[_SLOT[edge]]:
                self._sweep(edge, new[_SLOT[edge]])

    def _side(self, a: np.ndarray, b: np.ndarray, poly: np.ndarray) -> bool:
        """Whether the corners of ``poly`` on the line of wall ``a -> b`` lie within its
        ends."""
        ax, ay = float(a[0]), float(a[1])
        dx, dy = float(b[0]) - ax, float(b[1]) - ay
        length = math.hypot(dx, dy)
        tol = self.tol
        for x, y in poly.tolist():
            if abs(dx * (y - ay) - dy * (x - ax)) <= tol * length:
                t = ((x - ax) * dx + (y - ay) * dy) / length
                if t < -tol or t > length + tol:
                    return False
        return True

    def _within_ends(self, poly: np.ndarray) -> bool:
        """Whether every conforming side of ``poly`` lies within its wall's ends."""
        return all(self._side(a, b, poly) for a, b in self.cuts)

    def _conforming(self, k: int, old_poly: np.ndarray, poly: np.ndarray
                    ) -> np.ndarray | None:
        """``poly`` cut by wall ``k``'s half-plane, if the region before the jump lies on
        its free side and the cut side stays within the wall's ends; else None."""
        a, b = self.walls.a[k], self.walls.b[k]
        d = b - a
        length = math.hypot(*d)
        if length == 0:
            return None
        inside = (d[0] * (old_poly[:, 1] - a[1]) - d[1] * (old_poly[:, 0] - a[0])) / length
        if (inside < -self.tol).any():
            return None
        cut = _subtractive._clip(poly, a, b, keep_left=True)
        if len(cut) < 3 or not self._side(a, b, cut):
            return None
        self.cuts.append((a, b))
        self.cut_ids.add(k)
        return cut

    def _sweep(self, edge: int, target: float) -> None:
        """Move ``edge`` towards ``target`` as far as it can go, and stop it for good if
        that is short of ``target`` (the contraction).  It can go as far as the first wall
        it meets, or less where a conforming side would pass its wall's end: the places
        tried are that wall contact and the walls' ends on the way, farthest first."""
        slot = _SLOT[edge]
        axis, sign = slot % 2, (1 if edge in (_TOP, _RIGHT) else -1)
        here = self.box[slot]
        swept = self.box.copy()
        swept[slot ^ 2] = here                    # the band between old and new position
        swept[slot] = target
        poly = _box_poly(swept, self.cuts)
        limit = target
        if len(poly) >= 3:
            hit = self._hits(poly)
            if len(hit):
                # The part of each wall in the band itself (not shrunk), its ends exact.
                a, b = self.walls.a[hit], self.walls.b[hit]
                _, t0, t1 = _crossing(a, b, poly, 0.0)
                step = (b - a)[:, axis]
                ends = np.stack([np.where(t0 <= 0, a[:, axis], a[:, axis] + t0 * step),
                                 np.where(t1 >= 1, b[:, axis], a[:, axis] + t1 * step)])
                limit = min(limit, ends.min()) if sign > 0 else max(limit, ends.max())
        tries = {limit} | {float(p[axis]) for a, b in self.cuts for p in (a, b)
                           if 0 < sign * (p[axis] - here) < sign * (limit - here)}
        for place in sorted(tries, key=lambda v: -sign * v):
            new = self.box.copy()
            new[slot] = place
            poly = self.poly(new)
            if len(poly) >= 3 and not len(self._hits(poly)) and self._within_ends(poly):
                self.box, self.current = new, poly
                if place != target:
                    self.stopped[edge] = True
                return
        self.stopped[edge] = True


#: Each classification edge's coordinate in the box ``(x0, y0, x1, y1)``.
_SLOT = {_TOP: 3, _BOTTOM: 1, _RIGHT: 2, _LEFT: 0}


def _categories(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The first of the wedges +y, −y, +x, −x (0..3) round the origin that each segment
    ``a -> b`` enters (a segment through the origin counts as +y)."""
    out = np.full(len(a), 3)
    for c, (u, v) in reversed(list(enumerate(((0, 1), (0, -1), (1, 0), (-1, 0))))):
        # Wedge c: along·(u, v) >= |across|, i.e. two half-planes through the origin.
        lo, hi = np.zeros(len(a)), np.ones(len(a))
        empty = np.zeros(len(a), bool)
        for w in ((u - v, v + u), (u + v, v - u)):
            fa, fb = a @ np.array(w, float), b @ np.array(w, float)
            empty |= (fa < 0) & (fb < 0)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(fa != fb, -fa / (fb - fa), 0.0)
            lo = np.where((fa < 0) & (fb >= 0), np.maximum(lo, t), lo)
            hi = np.where((fa >= 0) & (fb < 0), np.minimum(hi, t), hi)
        out = np.where(~empty & (lo <= hi), c, out)
    return out


def _rings(area: Any) -> tuple[np.ndarray, np.ndarray]:
    """The edges of a (Multi)Polygon, directed with the area on their left."""
    from shapely.geometry.polygon import orient

    a_list, b_list = [], []
    for part in getattr(area, "geoms", [area]):
        part = orient(part, 1.0)
        for ring in (part.exterior, *part.interiors):
            pts = np.asarray(ring.coords, np.float64)[:-1]
            nxt = np.roll(pts, -1, axis=0)
            keep = (pts != nxt).any(axis=1)
            a_list.append(pts[keep])
            b_list.append(nxt[keep])
    return np.concatenate(a_list), np.concatenate(b_list)


def _edge_seeds(a: np.ndarray, b: np.ndarray, walls: _Walls) -> list[np.ndarray]:
    """A point a little inside the middle of each edge ``a -> b`` (on its left): a quarter of
    the edge's length or half the middle's distance to the nearest other wall off it,
    whichever is less."""
    mids = (a + b) / 2
    nearest = np.full(len(a), np.inf)           # to a wall off the middle; inf for none
    for at in range(0, len(a), _CHUNK):
        dist = walls.distance(mids[at:at + _CHUNK])
        nearest[at:at + _CHUNK] = np.where(dist > 0, dist, np.inf).min(axis=1, initial=np.inf)
    seeds = []
    for i, near in enumerate(nearest.tolist()):
        d = b[i] - a[i]
        length = math.hypot(*d)
        if length == 0:
            continue
        normal = np.array([-d[1], d[0]]) / length
        step = min(length / 4, near / 2)
        if step > 0:
            seeds.append(mids[i] + step * normal)
    return seeds


#: How many edge middles :func:`_edge_seeds` measures against the walls at once.
_CHUNK = 256


def wavefront_regions(area: Any, *, seed: int = 0, merge: bool = True) -> list[np.ndarray]:
    """Convex regions covering a walkable area (anything
    :func:`~wayfinding.navmesh.build.walkable_area` reads; see the module), each a
    counter-clockwise ``(k, 2)`` float64 array.  ``seed`` (an int >= 0): the seed of
    ``numpy.random.default_rng`` that orders the first seeds, so the same ``seed`` gives
    the same regions; ``merge``: merge adjacent regions whose union is convex.  Bad input
    raises :class:`~wayfinding.errors.InvalidGeometryError`.

    An empty room is one region; a room with a square pillar, four (a ring of boxes), as
    a mesh through :meth:`~wayfinding.navmesh.NavMesh.build`:

    >>> from shapely.geometry import box
    >>> [r.tolist() for r in wavefront_regions(box(0, 0, 4, 3))]
    [[[0.0, 0.0], [4.0, 0.0], [4.0, 3.0], [0.0, 3.0]]]
    >>> from wayfinding.navmesh import NavMesh
    >>> mesh = NavMesh.build(box(0, 0, 10, 10).difference(box(4, 4, 6, 6)),
    ...                      method="wavefront", seed=0)
    >>> mesh.num_polygons, round(float(mesh.polygon_areas().sum()), 6)
    (4, 96.0)
    >>> round(mesh.find_path((1, 5), (9, 5)).cost, 6)
    8.324555
    """
    shapely = _build._shapely()
    from shapely.ops import polylabel

    area = _build.walkable_area(area)
    seed = count("seed", seed, min=0, error=InvalidGeometryError)
    merge = flag("merge", merge, error=InvalidGeometryError)
    area, shift, scale = _build.unit_frame(area)
    x0, y0, x1, y1 = area.bounds
    size = max(x1 - x0, y1 - y0)
    tol, unit, tiny = OVERLAP * size, UNIT_SEED * size, 1e-12 * size * size
    a, b = _rings(area)
    walls = _Walls(a, b)
    rng = np.random.default_rng(seed)
    seeds = _edge_seeds(a, b, walls)
    seeds = [seeds[i] for i in rng.permutation(len(seeds))]
    regions: list[np.ndarray] = []
    placed = -1
    stage = 0                   # 0: next to the area's edges, 1: the regions', 2: polylabel
    while True:
        if not seeds:
            if stage == 0:
                stage = 1
                ring_a = np.concatenate(regions) if regions else np.empty((0, 2))
                ring_b = np.concatenate([np.roll(r, -1, axis=0) for r in regions]) \
                    if regions else np.empty((0, 2))
                seeds = _edge_seeds(ring_b, ring_a, walls)    # outside: reversed edges
                continue
            rest = shapely.difference(area, shapely.union_all(
                [shapely.Polygon(r) for r in regions]))
            pieces = [g for g in shapely.get_parts(rest) if g.area > tiny]
            seeds = [np.array(polylabel(g, tolerance=g.area / g.length / 50).coords[0])
                     for g in pieces]
            if not seeds or stage == 2 and len(regions) == placed:
                break
            stage, placed = 2, len(regions)
        s = seeds.pop(0)
        if walls.winding(s) != 1:
            continue                                   # claimed: dropped
        clear = walls.distance(s).min()
        if clear <= tol:
            continue
        poly = _Region(walls, s, min(clear / 2, unit), tol).grow()
        # Corners repeated to within the tolerance (a cut's rounding) would fold the ring.
        poly = poly[np.hypot(*(poly - np.roll(poly, 1, axis=0)).T) > tol]
        if len(poly) < 3 or _subtractive._area(poly) <= tiny:
            continue
        regions.append(poly)
        walls.add(np.roll(poly, -1, axis=0), poly)     # reversed: unclaimed on the left
    return [r * scale + shift for r in (_merged(regions, tol) if merge and regions
                                        else regions)]


def _merged(regions: list[np.ndarray], tol: float) -> list[np.ndarray]:
    """Adjacent regions welded, then merged across single shared edges, longest first,
    while the union stays convex (:func:`~wayfinding.navmesh.build.merge_convex`)."""
    verts, polys, _ = _subtractive.weld(regions, tol)
    unbounded = sum(map(len, polys))               # no merged polygon has more corners
    return [verts[r] for r in _build.merge_convex(verts, polys, unbounded, single_edge=True)]
