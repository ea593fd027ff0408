"""Annotations: closed 2D volumes in world units that delimit where a constraint acts.

An annotation is attached to the world (a :class:`Region`, a :class:`Disc`), to objects (the
:class:`Side` of a building, the space :class:`Between` two of them) or to an agent (its
:class:`LineOfSight`).  Each answers, vectorised over ``(n, 2)`` float64 world points
``(x, y)``:

* ``contains(points)``: ``(n,)`` bool, the point lies in the closed volume (a point within
  :data:`~wayfinding.geometry.TOLERANCE` of its border counts as in);
* ``distance(points)``: ``(n,)`` float64, the Euclidean distance to the volume, 0 inside;
* ``crosses(a, b)``: ``(k,)`` bool, segment ``a[i]``→``b[i]`` meets the closed volume (an
  endpoint inside, or a touch of its border: exact orientation signs, no sampling);
* ``bounds``: ``(xmin, ymin, xmax, ymax)``.

Objects and agents move: ``moved(offset, turn=...)`` returns a copy turned by ``turn``
radians (counter-clockwise, y up) about the annotation's ``anchor``, then shifted by
``offset``.  Annotations are immutable.

>>> room = Region([(0, 0), (4, 0), (4, 3), (0, 3)])
>>> room.contains([(1, 1), (5, 1)]).tolist(), room.distance([(1, 1), (7, 7)]).tolist()
([True, False], [0.0, 5.0])
>>> room.crosses([(-1, 1)], [(-1, 5)]).tolist(), room.moved((10, 0)).bounds
([False], (10.0, 0.0, 14.0, 3.0))
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import choice, finite_float, finite_point, number, positive_float, reals
from ..errors import InvalidGeometryError, InvalidGridError, InvalidQueryError
from ..geometry.circles import tangent
from ..geometry.obstacles import (
    TOLERANCE,
    Obstacles,
    _signed_area,
    as_points,
    closest_on_segments,
)
from ._pieces import TWO_PI, Pieces, convex_hull, crossing_pairs, segments_meet
from ._visibility import visible_pieces

#: The sides a :class:`Side` band may lie on.
SIDES = ("front", "back", "left", "right")


def _turned(points: np.ndarray, centre: np.ndarray, turn: float, offset: np.ndarray
            ) -> np.ndarray:
    """``(n, 2)`` points turned by ``turn`` radians about ``centre``, then shifted."""
    c, s = math.cos(turn), math.sin(turn)
    d = points - centre
    return np.stack([c * d[:, 0] - s * d[:, 1], s * d[:, 0] + c * d[:, 1]], axis=1) \
        + centre + offset


class Annotation(ABC):
    """A closed 2D volume in world units (the base of every annotation).

    Subclasses set ``self._pieces`` (the volume) and define ``anchor``, ``_transformed``
    and, when they can take part in a convex hull, ``_sites``."""

    _pieces: Pieces

    def contains(self, points: ArrayLike) -> np.ndarray:
        """``(n,)`` bool: each point (``(n, 2)`` or one ``(2,)``) lies in the closed volume."""
        return self._pieces.contains(as_points(points, "points"))

    def distance(self, points: ArrayLike) -> np.ndarray:
        """``(n,)`` float64: Euclidean distance from each point to the volume (0 inside)."""
        return self._pieces.distance(as_points(points, "points"))

    def crosses(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """``(k,)`` bool: segment ``a[i]``→``b[i]`` (``(k, 2)`` each) meets the closed
        volume: an endpoint lies in it or the segment touches its border."""
        pa, pb = as_points(a, "a"), as_points(b, "b")
        if pa.shape != pb.shape:
            raise InvalidQueryError(f"a {pa.shape} and b {pb.shape} differ in shape")
        return self._pieces.crosses(pa, pb)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(xmin, ymin, xmax, ymax)`` of the volume, world units."""
        return self._pieces.bounds()

    @property
    @abstractmethod
    def anchor(self) -> tuple[float, float]:
        """The point :meth:`moved` turns the annotation about."""

    def moved(self, offset: ArrayLike = (0.0, 0.0), *, turn: float = 0.0) -> Annotation:
        """A copy turned by ``turn`` radians (counter-clockwise) about :attr:`anchor`, then
        shifted by ``offset`` ``(dx, dy)`` world units."""
        shift = finite_point("offset", offset, error=InvalidGeometryError)
        angle = finite_float("turn", turn, error=InvalidGeometryError)
        return self._transformed(np.array(self.anchor), angle, shift)

    @abstractmethod
    def _transformed(self, centre: np.ndarray, turn: float, offset: np.ndarray) -> Annotation:
        """A copy turned by ``turn`` radians about ``centre``, then shifted by ``offset``."""

    def _sites(self) -> np.ndarray:
        """``(s, 3)`` discs ``(cx, cy, r)`` (r = 0 for points) whose convex hull is this
        annotation's convex hull."""
        raise InvalidGeometryError(
            f"{type(self).__name__} has no convex hull of points and discs; Between and Side "
            "take a Region, Disc, Side or Between")


def _polygon(name: str, vertices: ArrayLike) -> np.ndarray:
    """``vertices`` as a counter-clockwise simple polygon, ``(k, 2)`` float64, read-only."""
    try:
        poly = Obstacles([vertices]).polygons[0]
    except InvalidGridError as exc:
        raise InvalidGeometryError(f"{name}: {exc}") from None
    k = len(poly)
    a, b = poly, np.roll(poly, -1, axis=0)
    # adjacent edges may not fold back onto each other; others may not meet at all
    u, w = b - a, np.roll(b, -1, axis=0) - b
    fold = (u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0] == 0) & (np.einsum("ij,ij->i", u, w) < 0)
    i, j = crossing_pairs(a, b, touching=True)
    touch = (j - i > 1) & (j - i < k - 1)         # neighbours share a vertex
    if fold.any() or touch.any():
        where = int(np.flatnonzero(fold)[0]) if fold.any() else int(i[touch][0])
        raise InvalidGeometryError(f"{name} is not simple: edge {where} meets another edge")
    return poly


class Region(Annotation):
    """A simple polygon: ``vertices`` ``(k, 2)`` world points (k >= 3, finite, nonzero area,
    edges meeting only their neighbours at shared vertices; either orientation, stored
    counter-clockwise).  Its anchor is its area centroid.

    >>> Region([(0, 0), (2, 0), (0, 2)]).contains([(0.5, 0.5), (2, 2)]).tolist()
    [True, False]
    """

    def __init__(self, vertices: ArrayLike):
        self._vertices = _polygon("vertices", vertices)
        self._pieces = Pieces([self._vertices])

    @property
    def vertices(self) -> np.ndarray:
        """``(k, 2)`` float64, counter-clockwise, read-only."""
        return self._vertices

    @property
    def anchor(self) -> tuple[float, float]:
        p, q = self._vertices, np.roll(self._vertices, -1, axis=0)
        cross = p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]
        c = ((p + q) * cross[:, None]).sum(axis=0) / (3.0 * cross.sum())
        return (float(c[0]), float(c[1]))

    def _transformed(self, centre: np.ndarray, turn: float, offset: np.ndarray) -> Region:
        return Region(_turned(self._vertices, centre, turn, offset))

    def _sites(self) -> np.ndarray:
        return np.column_stack([self._vertices, np.zeros(len(self._vertices))])

    def __repr__(self) -> str:
        return f"Region({len(self._vertices)} vertices, bounds={self.bounds})"


class Disc(Annotation):
    """The closed disc of ``radius`` (> 0, world units) about ``centre`` ``(x, y)``.

    >>> Disc((0, 0), 1.0).distance([(3, 4)]).tolist()
    [4.0]
    """

    def __init__(self, centre: ArrayLike, radius: float):
        self._centre = finite_point("centre", centre, error=InvalidGeometryError)
        self._radius = positive_float("radius", radius, error=InvalidGeometryError)
        self._pieces = Pieces(discs=np.array([[*self._centre, self._radius]]))

    @property
    def centre(self) -> tuple[float, float]:
        return (float(self._centre[0]), float(self._centre[1]))

    @property
    def radius(self) -> float:
        return self._radius

    @property
    def anchor(self) -> tuple[float, float]:
        return self.centre

    def _transformed(self, centre: np.ndarray, turn: float, offset: np.ndarray) -> Disc:
        return Disc(_turned(self._centre[None], centre, turn, offset)[0], self._radius)

    def _sites(self) -> np.ndarray:
        return np.array([[*self._centre, self._radius]])

    def __repr__(self) -> str:
        return f"Disc({self.centre}, {self._radius:g})"


def _hull_pieces(sites: np.ndarray) -> Pieces:
    """The convex hull of discs ``(cx, cy, r)`` as a union: the convex polygon of the
    points where pairs of discs touch their outer common tangents, and the discs.  Every
    such point lies on a disc, so the polygon lies in the hull; and the hull's border is
    made of those tangents and of arcs of the discs, so polygon and discs cover it."""
    pts = [tuple(c) for c in sites[sites[:, 2] == 0, :2].tolist()]   # points: themselves
    rows = sites.tolist()
    for i, (xi, yi, ri) in enumerate(rows):
        for j, (xj, yj, rj) in enumerate(rows):
            if i != j and (ri > 0 or rj > 0):
                t = tangent((xi, yi), 1, ri, (xj, yj), 1, rj)
                if t is not None:
                    pts += [t[2], t[3]]
    discs = sites[sites[:, 2] > 0]
    polygons = []
    if len(pts) >= 3:
        hull = convex_hull(np.array(pts, dtype=np.float64))
        if len(hull) >= 3 and _signed_area(hull) > TOLERANCE:
            polygons.append(hull)
    return Pieces(polygons, discs=discs)


class Between(Annotation):
    """The convex hull of two annotations ``a`` and ``b`` (each a :class:`Region`,
    :class:`Disc`, :class:`Side` or :class:`Between`): "between these two buildings".
    Exact for discs too (tangent segments and arcs).  Its anchor is the midpoint of theirs.

    >>> gap = Between(Region([(0, 0), (1, 0), (1, 1), (0, 1)]),
    ...               Region([(4, 0), (5, 0), (5, 1), (4, 1)]))
    >>> gap.contains([(2.5, 0.5), (2.5, 1.5)]).tolist()
    [True, False]
    """

    def __init__(self, a: Annotation, b: Annotation):
        for name, ann in (("a", a), ("b", b)):
            if not isinstance(ann, Annotation):
                raise InvalidGeometryError(f"Between's {name} {ann!r} is not an Annotation")
        self._a, self._b = a, b
        self._site_array = np.concatenate([a._sites(), b._sites()])
        self._pieces = _hull_pieces(self._site_array)

    @property
    def parts(self) -> tuple[Annotation, Annotation]:
        return (self._a, self._b)

    @property
    def anchor(self) -> tuple[float, float]:
        (ax, ay), (bx, by) = self._a.anchor, self._b.anchor
        return (0.5 * (ax + bx), 0.5 * (ay + by))

    def _transformed(self, centre: np.ndarray, turn: float, offset: np.ndarray) -> Between:
        return Between(self._a._transformed(centre, turn, offset),
                       self._b._transformed(centre, turn, offset))

    def _sites(self) -> np.ndarray:
        return self._site_array

    def __repr__(self) -> str:
        return f"Between({self._a!r}, {self._b!r})"


class Side(Annotation):
    """The band of ``depth`` (> 0, world units) on one side of an object.

    ``annotation``: the object (a :class:`Region`, :class:`Disc`, :class:`Side` or
    :class:`Between`); ``side``: ``"front"``, ``"back"``, ``"left"`` or ``"right"``;
    ``heading``: the object's facing, radians counter-clockwise from +x.  In the object's
    frame (u along the heading, v to its left) the object spans ``[u0, u1] × [v0, v1]``
    (its extent, discs included); the front band is ``[u1, u1 + depth] × [v0, v1]``, the
    back ``[u0 - depth, u0] × [v0, v1]``, the left ``[u0, u1] × [v1, v1 + depth]`` and the
    right ``[u0, u1] × [v0 - depth, v0]``.  Its anchor is the object's.

    >>> hut = Region([(0, 0), (2, 0), (2, 1), (0, 1)])
    >>> Side(hut, "front", heading=0.0, depth=3.0).bounds
    (2.0, 0.0, 5.0, 1.0)
    """

    def __init__(self, annotation: Annotation, side: str, *, heading: float, depth: float):
        if not isinstance(annotation, Annotation):
            raise InvalidGeometryError(f"Side's annotation {annotation!r} is not an Annotation")
        self._object = annotation
        self._side = choice("side", side, SIDES, error=InvalidGeometryError)
        self._heading = finite_float("heading", heading, error=InvalidGeometryError)
        self._depth = positive_float("depth", depth, error=InvalidGeometryError)
        sites = annotation._sites()
        u = np.array([math.cos(self._heading), math.sin(self._heading)])
        v = np.array([-u[1], u[0]])
        pu, pv, r = sites[:, :2] @ u, sites[:, :2] @ v, sites[:, 2]
        u0, u1 = float((pu - r).min()), float((pu + r).max())
        v0, v1 = float((pv - r).min()), float((pv + r).max())
        d = self._depth
        lo_u, hi_u, lo_v, hi_v = {"front": (u1, u1 + d, v0, v1), "back": (u0 - d, u0, v0, v1),
                                  "left": (u0, u1, v1, v1 + d),
                                  "right": (u0, u1, v0 - d, v0)}[self._side]
        corners = np.array([(lo_u, lo_v), (hi_u, lo_v), (hi_u, hi_v), (lo_u, hi_v)])
        self._corners = corners @ np.stack([u, v])
        self._corners.flags.writeable = False
        self._pieces = Pieces([self._corners])

    @property
    def corners(self) -> np.ndarray:
        """``(4, 2)`` float64: the band's rectangle, counter-clockwise, read-only."""
        return self._corners

    @property
    def annotation(self) -> Annotation:
        """The object whose side this is."""
        return self._object

    @property
    def side(self) -> str:
        return str(self._side)

    @property
    def heading(self) -> float:
        return self._heading

    @property
    def depth(self) -> float:
        return self._depth

    @property
    def anchor(self) -> tuple[float, float]:
        return self._object.anchor

    def _transformed(self, centre: np.ndarray, turn: float, offset: np.ndarray) -> Side:
        return Side(self._object._transformed(centre, turn, offset), self._side,
                    heading=self._heading + turn, depth=self._depth)

    def _sites(self) -> np.ndarray:
        return np.column_stack([self._corners, np.zeros(4)])

    def __repr__(self) -> str:
        return (f"Side({self._object!r}, {self._side!r}, heading={self._heading:g}, "
                f"depth={self._depth:g})")


def _occluder_segments(occluders: Any) -> np.ndarray:
    """``occluders`` (an :class:`~wayfinding.geometry.Obstacles` or ``(k, 2, 2)`` segments)
    as a ``(k, 2, 2)`` float64 array of segments."""
    if isinstance(occluders, Obstacles):
        if not len(occluders):
            return np.empty((0, 2, 2))
        polys = occluders.polygons
        a = np.concatenate(polys)
        b = np.concatenate([np.roll(p, -1, axis=0) for p in polys])
        return np.stack([a, b], axis=1)
    seg = np.array(reals("occluders", occluders, error=InvalidGeometryError))
    if seg.size == 0:
        return np.empty((0, 2, 2))
    if seg.ndim != 3 or seg.shape[1:] != (2, 2):
        raise InvalidGeometryError(
            f"occluders must be an Obstacles or a (k, 2, 2) array of segments, got shape "
            f"{seg.shape}")
    if not np.isfinite(seg).all():
        raise InvalidGeometryError("occluders hold a NaN or infinite coordinate")
    return seg


class LineOfSight(Annotation):
    """What an agent at ``position`` facing ``heading`` (radians) sees: the points within
    ``range`` (> 0, world units) whose direction is within ``fov / 2`` of the heading
    (``fov`` in (0, 2π] radians), less those hidden behind ``occluders``.

    ``occluders``: None, an :class:`~wayfinding.geometry.Obstacles` (its polygons' edges) or
    a ``(k, 2, 2)`` array of segments.  A point is hidden when the sight line from the
    position to it properly crosses an occluder (a ray test); a sight line that only grazes
    an occluder's end sees past it.  Occluders passing within
    :data:`~wayfinding.geometry.TOLERANCE` of the position are ignored (an agent standing on
    a wall is not blinded by it), and so are occluders of length 0.  ``distance`` and
    ``crosses`` use the visible region, the union of triangles up to the occluders and
    sectors of open view: with k occluders in range it has O(k) pieces (built in O(k²) for
    their crossings), and a query of n points measures each against the pieces whose
    bounding boxes come near it.  The anchor is
    the position; ``moved`` turns the heading with it, the occluders stay in the world.

    >>> eye = LineOfSight((0, 0), 0.0, fov=math.pi / 2, range=10.0,
    ...                   occluders=[[(5, -1), (5, 1)]])
    >>> eye.contains([(4, 0), (6, 0), (6, 3), (0, 5)]).tolist()
    [True, False, True, False]
    """

    def __init__(self, position: ArrayLike, heading: float, *, fov: float, range: float,
                 occluders: Any = None):
        self._position = finite_point("position", position, error=InvalidGeometryError)
        self._heading = finite_float("heading", heading, error=InvalidGeometryError)
        self._fov = number("fov", fov, min=0.0, min_open=True, max=TWO_PI,
                           error=InvalidGeometryError)
        self._range = positive_float("range", range, error=InvalidGeometryError)
        self._occluders = occluders
        segs = np.empty((0, 2, 2)) if occluders is None else _occluder_segments(occluders)
        start = self._heading - 0.5 * self._fov
        sector = np.array([[*self._position, self._range, start, self._fov]])
        self._sector = Pieces(sectors=sector)
        if len(segs):
            gap = closest_on_segments(np.broadcast_to(self._position, (len(segs), 2)),
                                      segs[:, 0], segs[:, 1])[0]
            length = np.hypot(*(segs[:, 1] - segs[:, 0]).T)
            segs = segs[(gap <= self._range) & (gap > TOLERANCE) & (length > 0)]
        self._segments = segs
        self._pieces = visible_pieces(self._position, start, self._fov, self._range, segs) \
            if len(segs) else self._sector

    @property
    def position(self) -> tuple[float, float]:
        return (float(self._position[0]), float(self._position[1]))

    @property
    def heading(self) -> float:
        return self._heading

    @property
    def fov(self) -> float:
        return self._fov

    @property
    def range(self) -> float:
        return self._range

    @property
    def occluders(self) -> Any:
        """The occluders as given (None: none)."""
        return self._occluders

    @property
    def anchor(self) -> tuple[float, float]:
        return self.position

    def contains(self, points: ArrayLike) -> np.ndarray:
        p = as_points(points, "points")
        inside = self._sector.contains(p)
        if len(self._segments):
            todo = np.flatnonzero(inside)
            eye = np.broadcast_to(self._position, (len(todo), 2))
            inside[todo] = ~segments_meet(eye, p[todo], self._segments[:, 0],
                                          self._segments[:, 1], touching=False)
        return inside

    def distance(self, points: ArrayLike) -> np.ndarray:
        p = as_points(points, "points")
        d = self._pieces.distance(p)
        d[self.contains(p)] = 0.0
        return d

    def _transformed(self, centre: np.ndarray, turn: float, offset: np.ndarray
                     ) -> LineOfSight:
        return LineOfSight(_turned(self._position[None], centre, turn, offset)[0],
                           self._heading + turn, fov=self._fov, range=self._range,
                           occluders=self._occluders)

    def __repr__(self) -> str:
        return (f"LineOfSight({self.position}, {self._heading:g}, fov={self._fov:g}, "
                f"range={self._range:g}, occluders={len(self._segments)} in range)")

