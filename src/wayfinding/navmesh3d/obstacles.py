"""Temporary obstacles for a :class:`~wayfinding.navmesh3d.tilecache.TileCache`: shapes
standing on the level that block the ground under them until removed, as Detour's tile
cache obstacles do.  World units, y up; each is a frozen, validated value.

An obstacle blocks the walkable spans of every cell whose square (``cell_size`` wide) meets
the inside of its footprint (conservative: the footprint is always blocked whole), where
its height range meets the agent's space over the span: from a cell height below the
span's floor (the ground's voxel is rounded up) to ``agent_height`` above it.  The blocked
spans are then eroded by the agent's radius like walls, so paths keep about the radius
away from the footprint.

>>> Cylinder((2, 0, 3), radius=0.5, height=2).bounds
((1.5, 0.0, 2.5), (2.5, 2.0, 3.5))
>>> Prism([(0, 0), (1, 0), (0, 1), (1, 1)], 0, 1)
Traceback (most recent call last):
...
wayfinding.errors.InvalidGeometryError: a Prism's points_xz must be a convex polygon (in \
order round it), not [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from .._arrays import concatenated_ranges
from .._validate import finite_float, positive_float, reals
from ..errors import InvalidGeometryError, brief
from .compact import CompactHeightfield

Point3: TypeAlias = tuple[float, float, float]

__all__ = ["OBSTACLE_TYPES", "Box", "Cylinder", "Obstacle", "OrientedBox", "Prism", "as_obstacle",
           "block_spans"]


def _point(kind: str, name: str, value: Any, dim: int = 3) -> tuple[float, ...]:
    try:
        arr = reals(name, value, error=InvalidGeometryError)
    except InvalidGeometryError:
        arr = np.zeros(0)
    if arr.shape != (dim,):
        raise InvalidGeometryError(f"a {kind}'s {name} must be {dim} numbers, not "
                                   f"{brief(value)}")
    if not np.isfinite(arr).all():
        raise InvalidGeometryError(f"a {kind}'s {name} {arr.tolist()} is not finite")
    return tuple(arr.tolist())


def _size(kind: str, name: str, value: Any) -> float:
    return positive_float(f"a {kind}'s {name}", value, error=InvalidGeometryError)


def _convex(pts: NDArray[np.float64]) -> bool:
    """Whether the polygon ``pts`` (k, 2) is convex with an inside: its turns all one way
    (or straight on), once round."""
    edges = np.roll(pts, -1, axis=0) - pts
    edges = edges[(edges != 0).any(axis=1)]
    nxt = np.roll(edges, -1, axis=0)
    cross = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    turns = np.arctan2(cross, (edges * nxt).sum(axis=1))
    area = np.dot(pts[:, 0], np.roll(pts[:, 1], -1)) - np.dot(pts[:, 1], np.roll(pts[:, 0], -1))
    one_way = bool((turns >= 0).all() or (turns <= 0).all())
    return (one_way and area != 0 and bool((np.abs(turns) < math.pi).all())
            and abs(abs(turns.sum()) - 2 * math.pi) < 1e-6)


def _polygon_cells(corners: NDArray[np.float64], x: NDArray[np.float64],
                   z: NDArray[np.float64], half: float) -> NDArray[np.bool_]:
    """Whether each square of centre (x, z) and half side ``half`` meets the inside of the
    convex polygon ``corners`` ((k, 2), either turn): no axis of the square's or the
    polygon's edges separates them."""
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    inside = (x + half > lo[0]) & (x - half < hi[0]) & (z + half > lo[1]) & (z - half < hi[1])
    edges = np.roll(corners, -1, axis=0) - corners
    for (ex, ez) in edges.tolist():
        if ex == 0 and ez == 0:
            continue
        n = np.array([ez, -ex])
        along = corners @ n
        reach = half * (abs(n[0]) + abs(n[1]))
        centre = x * n[0] + z * n[1]
        inside &= (centre - reach < along.max()) & (centre + reach > along.min())
    return inside


@dataclass(frozen=True)
class Cylinder:
    """An upright cylinder: ``centre`` the centre of its base (x, y, z), ``radius`` and
    ``height`` (> 0) upward from it."""

    centre: Point3
    radius: float
    height: float

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "centre", _point("Cylinder", "centre", self.centre))
        put(self, "radius", _size("Cylinder", "radius", self.radius))
        put(self, "height", _size("Cylinder", "height", self.height))

    @property
    def bounds(self) -> tuple[Point3, Point3]:
        """The smallest and largest corner of the box around it."""
        x, y, z = self.centre
        r = self.radius
        return (x - r, y, z - r), (x + r, y + self.height, z + r)

    def cells(self, x: NDArray[np.float64], z: NDArray[np.float64],
              half: float) -> NDArray[np.bool_]:
        """Whether each square of centre (x, z) and half side ``half`` meets its
        footprint's inside."""
        dx = np.maximum(np.abs(x - self.centre[0]) - half, 0.0)
        dz = np.maximum(np.abs(z - self.centre[2]) - half, 0.0)
        return dx * dx + dz * dz < self.radius * self.radius


@dataclass(frozen=True)
class Box:
    """An axis-aligned box between its corners ``bmin`` and ``bmax`` (x, y, z), ``bmin``
    below ``bmax`` on every axis."""

    bmin: Point3
    bmax: Point3

    def __post_init__(self) -> None:
        lo = _point("Box", "bmin", self.bmin)
        hi = _point("Box", "bmax", self.bmax)
        if not all(a < b for a, b in zip(lo, hi, strict=True)):
            raise InvalidGeometryError(f"a Box's bmin {list(lo)} must be below its bmax "
                                       f"{list(hi)} on every axis")
        object.__setattr__(self, "bmin", lo)
        object.__setattr__(self, "bmax", hi)

    @property
    def bounds(self) -> tuple[Point3, Point3]:
        return self.bmin, self.bmax

    def cells(self, x: NDArray[np.float64], z: NDArray[np.float64],
              half: float) -> NDArray[np.bool_]:
        (x0, _, z0), (x1, _, z1) = self.bmin, self.bmax
        return (x + half > x0) & (x - half < x1) & (z + half > z0) & (z - half < z1)


@dataclass(frozen=True)
class OrientedBox:
    """A box turned about the vertical: ``centre`` (x, y, z), ``half_extents`` (> 0) along
    its own axes, and ``yaw`` in radians: its own x axis points along (cos yaw, sin yaw)
    in (x, z), as in Detour's oriented box obstacles."""

    centre: Point3
    half_extents: Point3
    yaw: float

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "centre", _point("OrientedBox", "centre", self.centre))
        half = _point("OrientedBox", "half_extents", self.half_extents)
        if not all(h > 0 for h in half):
            raise InvalidGeometryError(f"an OrientedBox's half_extents {list(half)} must be "
                                       f"> 0")
        put(self, "half_extents", half)
        put(self, "yaw", finite_float("an OrientedBox's yaw", self.yaw,
                                      error=InvalidGeometryError))

    def footprint(self) -> NDArray[np.float64]:
        """Its four (x, z) corners, counterclockwise seen from above (y up)."""
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        hx, _, hz = self.half_extents
        local = np.array([(-hx, -hz), (hx, -hz), (hx, hz), (-hx, hz)])
        return np.stack([self.centre[0] + local[:, 0] * c - local[:, 1] * s,
                         self.centre[2] + local[:, 0] * s + local[:, 1] * c], axis=1)

    @property
    def bounds(self) -> tuple[Point3, Point3]:
        corners = self.footprint()
        lo, hi = corners.min(axis=0).tolist(), corners.max(axis=0).tolist()
        y, hy = self.centre[1], self.half_extents[1]
        return (lo[0], y - hy, lo[1]), (hi[0], y + hy, hi[1])

    def cells(self, x: NDArray[np.float64], z: NDArray[np.float64],
              half: float) -> NDArray[np.bool_]:
        return _polygon_cells(self.footprint(), x, z, half)


@dataclass(frozen=True)
class Prism:
    """An upright prism: the convex polygon ``points_xz`` ((k, 2), k >= 3, in order round
    it, either turn; points in a line allowed) between heights ``ymin`` and ``ymax``, as a
    level's :class:`~wayfinding.navmesh3d.ConvexVolume`."""

    points_xz: tuple[tuple[float, float], ...]
    ymin: float
    ymax: float

    def __post_init__(self) -> None:
        try:
            pts = np.asarray(self.points_xz, dtype=np.float64)
        except (TypeError, ValueError):
            pts = np.zeros(0)
        if pts.ndim != 2 or pts.shape[1:] != (2,) or len(pts) < 3:
            raise InvalidGeometryError(f"a Prism's points_xz must be 3 or more (x, z) points, "
                                       f"not {brief(self.points_xz)}")
        if not np.isfinite(pts).all():
            raise InvalidGeometryError(f"a Prism's points_xz {pts.tolist()} are not all "
                                       f"finite")
        lo = finite_float("a Prism's ymin", self.ymin, error=InvalidGeometryError)
        hi = finite_float("a Prism's ymax", self.ymax, error=InvalidGeometryError)
        if not lo < hi:
            raise InvalidGeometryError(f"a Prism needs ymin < ymax, not {lo} and {hi}")
        if not _convex(pts):
            raise InvalidGeometryError(f"a Prism's points_xz must be a convex polygon (in "
                                       f"order round it), not "
                                       f"{[tuple(p) for p in pts.tolist()]}")
        object.__setattr__(self, "points_xz", tuple(map(tuple, pts.tolist())))
        object.__setattr__(self, "ymin", lo)
        object.__setattr__(self, "ymax", hi)

    @property
    def bounds(self) -> tuple[Point3, Point3]:
        pts = np.asarray(self.points_xz)
        (x0, z0), (x1, z1) = pts.min(axis=0).tolist(), pts.max(axis=0).tolist()
        return (x0, self.ymin, z0), (x1, self.ymax, z1)

    def cells(self, x: NDArray[np.float64], z: NDArray[np.float64],
              half: float) -> NDArray[np.bool_]:
        return _polygon_cells(np.asarray(self.points_xz), x, z, half)


#: Any temporary obstacle.
Obstacle: TypeAlias = Cylinder | Box | OrientedBox | Prism

#: The temporary obstacle shapes a tile cache takes.
OBSTACLE_TYPES = (Cylinder, Box, OrientedBox, Prism)


def as_obstacle(obstacle: object) -> Obstacle:
    """``obstacle`` after checking it is one of the obstacle types."""
    if not isinstance(obstacle, OBSTACLE_TYPES):
        raise InvalidGeometryError(f"an obstacle must be a Cylinder, Box, OrientedBox or "
                                   f"Prism, not {type(obstacle).__name__} "
                                   f"{brief(obstacle)}")
    return obstacle


def block_spans(chf: CompactHeightfield, area: NDArray[np.uint8], obstacle: Obstacle,
                agent_height: float) -> int:
    """Set to 0 the ``area`` (one per span of ``chf``) of the spans ``obstacle`` blocks (see
    the module; cells as the heightfield was built, single precision sizes from ``bmin``);
    the number of spans it blocks."""
    (x0, y0, z0), (x1, y1, z1) = obstacle.bounds
    cs, ch = float(np.float32(chf.cell_size)), float(np.float32(chf.cell_height))
    ox, oy, oz = (float(v) for v in chf.bmin)
    ix0 = max(math.floor((x0 - ox) / cs), 0)
    ix1 = min(math.ceil((x1 - ox) / cs), chf.width)
    iz0 = max(math.floor((z0 - oz) / cs), 0)
    iz1 = min(math.ceil((z1 - oz) / cs), chf.depth)
    if ix0 >= ix1 or iz0 >= iz1:
        return 0
    xs = ox + (np.arange(ix0, ix1) + 0.5) * cs
    zs = oz + (np.arange(iz0, iz1) + 0.5) * cs
    iz, ix = np.nonzero(obstacle.cells(xs[None, :], zs[:, None], cs / 2))
    cols = (ix + ix0) + (iz + iz0) * chf.width
    starts = chf.first[cols]
    n = chf.first[cols + 1] - starts
    spans = concatenated_ranges(starts, n)
    floor = oy + chf.y[spans] * ch
    spans = spans[(floor - ch <= y1) & (floor + agent_height >= y0)]
    area[spans] = 0
    return len(spans)
