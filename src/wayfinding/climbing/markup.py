"""Traversal markup: climbable elements (ledges, pipes, ladders) as 3D polylines, the
climbing capabilities of a character, and the boxes and triangles that block jumps.

Coordinates are world units (metres), z up, within ``±``:data:`MAX_EXTENT`.

>>> ledge = TraversalElement(ElementKind.LEDGE, [(0, 0, 3), (4, 0, 3)])
>>> ledge.length, ledge.point_at(1.5).tolist()
(4.0, [1.5, 0.0, 3.0])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from .._validate import finite_points, number, reals
from ..errors import InvalidGeometryError, InvalidQueryError
from ..results import _fields_equal

#: The largest coordinate magnitude of elements and blockers, metres: the products of two
#: squared lengths that closest points between segments take stay finite.
MAX_EXTENT = 1e75


def _within(name: str, values: np.ndarray, *,
            error: type[Exception] = InvalidGeometryError) -> None:
    """Refuse ``values`` with a coordinate beyond ``±MAX_EXTENT`` (they are finite)."""
    if not (np.abs(values) <= MAX_EXTENT).all():
        bad = np.abs(values).max()
        raise error(f"{name} reach {bad:g} metres from the origin, beyond ±{MAX_EXTENT:g}")


class ElementKind(str, Enum):
    """What a traversal element is: a horizontal ``LEDGE`` to hang from and shimmy along, a
    vertical ``PIPE`` or a ``LADDER``; each member equals its lower-case name."""

    LEDGE = "ledge"
    PIPE = "pipe"
    LADDER = "ladder"


def _rigid(rotation: Any, translation: Any) -> tuple[np.ndarray, np.ndarray]:
    """A rigid transform checked: a ``(3, 3)`` rotation (orthonormal, determinant +1) and
    a ``(3,)`` translation, as float64 arrays."""
    r = reals("rotation", rotation)
    if r.shape != (3, 3) or not np.isfinite(r).all() \
            or not np.allclose(r @ r.T, np.eye(3), atol=1e-9) or np.linalg.det(r) < 0:
        raise InvalidQueryError(f"rotation {r.tolist()!r} must be a (3, 3) rotation matrix "
                                "(orthonormal, determinant +1)")
    t = finite_points("translation", translation, 3)[0]
    if len(t) != 1:
        raise InvalidQueryError(f"translation {t.tolist()!r} must be one (x, y, z) point")
    return r, t[0]


def transform_points(points: Any, rotation: Any, translation: Any) -> np.ndarray:
    """``points`` (``(n, 3)``) moved by the rigid transform ``p -> rotation @ p +
    translation``: ``(n, 3)`` float64."""
    r, t = _rigid(rotation, translation)
    pts = finite_points("points", points, 3)[0]
    return pts @ r.T + t


@dataclass(frozen=True, eq=False)
class TraversalElement:
    """One climbable element: its ``kind`` and its ``points``, an ``(n, 3)`` float64
    polyline (n >= 2, no zero-length segment, coordinates within ``±MAX_EXTENT``).
    Distances along it are arc lengths from its first point."""

    kind: ElementKind
    points: np.ndarray
    cumulative: np.ndarray = field(init=False, repr=False, compare=False)

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        kind = self.kind
        if not isinstance(kind, ElementKind):
            try:
                kind = ElementKind(kind)
            except ValueError:
                raise InvalidGeometryError(
                    f"unknown element kind {kind!r}; expected one of "
                    f"{', '.join(k.value for k in ElementKind)}") from None
        pts = finite_points("points", self.points, 3, error=InvalidGeometryError)[0]
        if len(pts) < 2:
            raise InvalidGeometryError(f"an element needs at least 2 points, got {len(pts)}")
        _within("points", pts)
        seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        if (seg <= 0).any():
            raise InvalidGeometryError(
                f"element segment {int(np.flatnonzero(seg <= 0)[0])} has zero length")
        pts.flags.writeable = False
        cum = np.concatenate([[0.0], np.cumsum(seg)])
        cum.flags.writeable = False
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "points", pts)
        object.__setattr__(self, "cumulative", cum)

    @property
    def length(self) -> float:
        """Arc length of the polyline."""
        return float(self.cumulative[-1])

    def point_at(self, distance: float) -> np.ndarray:
        """The ``(3,)`` point ``distance`` along the element (0 .. :attr:`length`)."""
        return self._point_at(number("distance", distance, min=0.0, max=self.length))

    def _point_at(self, d: float) -> np.ndarray:
        i = min(int(np.searchsorted(self.cumulative, d, side="right")) - 1,
                len(self.points) - 2)
        a, b = self.cumulative[i], self.cumulative[i + 1]
        return self.points[i] + (d - a) / (b - a) * (self.points[i + 1] - self.points[i])

    def closest(self, point: Any) -> tuple[float, np.ndarray]:
        """The distance along the element of its point nearest ``point`` and that point;
        ties go to the smaller distance."""
        return self._closest(finite_points("point", point, 3)[0][0])

    def _closest(self, p: np.ndarray) -> tuple[float, np.ndarray]:
        a, b = self.points[:-1], self.points[1:]
        ab = b - a
        t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.einsum("ij,ij->i", ab, ab), 0, 1)
        q = a + t[:, None] * ab
        gap = q - p                 # hypot: no overflow for points far out
        i = int(np.argmin(np.hypot(np.hypot(gap[:, 0], gap[:, 1]), gap[:, 2])))
        return float(self.cumulative[i] + t[i] * (self.cumulative[i + 1] - self.cumulative[i])
                     ), q[i]

    def transformed(self, rotation: Any, translation: Any) -> TraversalElement:
        """This element moved by a rigid transform (see :func:`transform_points`)."""
        return TraversalElement(self.kind, transform_points(self.points, rotation,
                                                            translation))


@dataclass(frozen=True, kw_only=True)
class Capabilities:
    """What one character can climb and how far it can leap.

    ``kinds``: the element kinds it can use (others are left out of its graph).
    ``max_jump_distance``: the longest jump, straight-line metres (>= 0; 0: no jumps, and
    drops only straight down).  ``max_jump_height``: the highest rise of a jump, metres
    (>= 0).  ``max_drop_height``: the deepest fall of a drop, metres (>= 0; 0: no drops).
    ``max_jump_angle``: the steepest rise of a jump above the horizontal, degrees in
    [0, 90] (90: any).  A link that rises is a jump, one that falls a drop (its horizontal
    reach is bounded by ``max_jump_distance``), a level one a jump.
    """

    kinds: frozenset[ElementKind] = frozenset(ElementKind)
    max_jump_distance: float = 2.0
    max_jump_height: float = 1.0
    max_drop_height: float = 3.0
    max_jump_angle: float = 90.0

    def __post_init__(self) -> None:
        try:
            kinds = frozenset(ElementKind(k) for k in self.kinds)
        except (ValueError, TypeError):
            raise InvalidQueryError(f"kinds {self.kinds!r} must be element kinds") from None
        object.__setattr__(self, "kinds", kinds)
        for name in ("max_jump_distance", "max_jump_height", "max_drop_height"):
            object.__setattr__(self, name, number(name, getattr(self, name), min=0.0))
        object.__setattr__(self, "max_jump_angle",
                           number("max_jump_angle", self.max_jump_angle, min=0.0, max=90.0))

    @property
    def reach(self) -> float:
        """The farthest any link can span, metres."""
        return math.hypot(self.max_jump_distance, self.max_drop_height)


@dataclass(frozen=True, eq=False, kw_only=True)
class Blockers:
    """Geometry that blocks jumps and drops: ``boxes``, an ``(n, 2, 3)`` float64 array of
    axis-aligned boxes ``(min corner, max corner)``, and ``triangles``, an ``(m, 3, 3)``
    float64 array (coordinates within ``±MAX_EXTENT``).  A link is blocked when its segment
    enters a box's interior or crosses a triangle between the segment's ends; touching a
    box's surface does not block (elements sit on walls)."""

    boxes: np.ndarray = field(default_factory=lambda: np.empty((0, 2, 3)))
    triangles: np.ndarray = field(default_factory=lambda: np.empty((0, 3, 3)))

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        for name, shape in (("boxes", 2), ("triangles", 3)):
            a = reals(name, getattr(self, name), error=InvalidGeometryError)
            if a.size == 0:
                a = np.empty((0, shape, 3))
            if a.ndim != 3 or a.shape[1:] != (shape, 3) or not np.isfinite(a).all():
                raise InvalidGeometryError(
                    f"{name} of shape {a.shape} must be a finite (n, {shape}, 3) array")
            _within(name, a)
            if name == "boxes" and (a[:, 0] > a[:, 1]).any():
                bad = int(np.flatnonzero((a[:, 0] > a[:, 1]).any(axis=1))[0])
                raise InvalidGeometryError(f"box {bad} has min corner {a[bad, 0].tolist()} "
                                           f"above its max corner {a[bad, 1].tolist()}")
            a = np.array(a, dtype=np.float64)
            a.flags.writeable = False
            object.__setattr__(self, name, a)

    def blocks(self, a: Any, b: Any) -> bool:
        """Whether the segment from ``a`` to ``b`` (``(3,)`` points) is blocked."""
        return self._blocks(finite_points("a", a, 3)[0][0], finite_points("b", b, 3)[0][0])

    def _blocks(self, p: np.ndarray, q: np.ndarray) -> bool:
        return bool(self._blocks_many(p[None], q[None])[0])

    def _blocks_many(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Whether each segment ``p[k]``-``q[k]`` (``(n, 3)`` arrays) is blocked: ``(n,)``
        bool, tested in chunks of about :data:`_CHUNK` segment-shape pairs."""
        out = np.zeros(len(p), dtype=bool)
        per = max(1, _CHUNK // max(len(self.boxes), len(self.triangles), 1))
        for k in range(0, len(p), per):
            a, b = p[k:k + per], q[k:k + per]
            out[k:k + per] = _box_hit(self.boxes, a, b) | _triangle_hit(self.triangles, a, b)
        return out


_CHUNK = 1 << 18


def _box_hit(boxes: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Whether each segment p[k]-q[k] meets the open interior of any box: the slab test on
    the segment-box pairs whose bounding boxes overlap."""
    out = np.zeros(len(p), dtype=bool)
    if not len(boxes) or not len(p):
        return out
    lo, hi = boxes[:, 0], boxes[:, 1]
    near = ((np.minimum(p, q)[:, None] < hi[None]) & (np.maximum(p, q)[:, None] > lo[None])
            ).all(axis=2)
    s, b = np.nonzero(near)
    if not len(s):
        return out
    ps, d, lo, hi = p[s], q[s] - p[s], lo[b], hi[b]
    t0, t1 = np.zeros(len(s)), np.ones(len(s))
    ok = np.ones(len(s), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(3):
            dk, pk = d[:, k], ps[:, k]
            flat = dk == 0
            a, c = (lo[:, k] - pk) / dk, (hi[:, k] - pk) / dk
            t0 = np.where(flat, t0, np.maximum(t0, np.minimum(a, c)))
            t1 = np.where(flat, t1, np.minimum(t1, np.maximum(a, c)))
            ok &= ~flat | ((lo[:, k] < pk) & (pk < hi[:, k]))
    out[s[ok & (t0 < t1)]] = True
    return out


def _triangle_hit(tris: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Whether each segment p[k]-q[k] crosses any triangle strictly between its ends
    (Möller–Trumbore; a segment lying in a triangle's plane does not cross it)."""
    if not len(tris) or not len(p):
        return np.zeros(len(p), dtype=bool)
    d = (q - p)[:, None, :]
    e1, e2 = (tris[:, 1] - tris[:, 0])[None], (tris[:, 2] - tris[:, 0])[None]
    h = np.cross(d, e2)
    det = np.einsum("ntk,ntk->nt", np.broadcast_to(e1, h.shape), h)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / det
        s = p[:, None, :] - tris[None, :, 0]
        u = inv * np.einsum("ntk,ntk->nt", s, h)
        qv = np.cross(s, e1)
        v = inv * np.einsum("ntk,ntk->nt", qv, np.broadcast_to(d, qv.shape))
        t = inv * np.einsum("ntk,ntk->nt", np.broadcast_to(e2, qv.shape), qv)
    hit = (det != 0) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0) & (t < 1)
    return hit.any(axis=1)
