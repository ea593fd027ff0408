"""Levels made here, with known properties, for examples and tests: a floor, stairs, ramps
of a given slope, a bridge over a floor, thin walls, a building of several storeys, a
multi-storey level of platforms joined by stairs, a bridge and a gap to jump, and a
height-field terrain.  Every level is made of boxes (and ramps and terrain), triangles wound
so that their normals face out and up-facing tops are walkable.

>>> stairs(steps=4).num_triangles
60
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validate import count, positive_float
from ..errors import InvalidGeometryError
from .level import Level


class _Soup:
    """Triangles collected box by box."""

    def __init__(self) -> None:
        self.vertices: list[tuple[float, float, float]] = []
        self.triangles: list[tuple[int, int, int]] = []

    def quad(self, a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> None:
        """A quad a, b, c, d, counter-clockwise seen from the side it faces."""
        base = len(self.vertices)
        for p in (a, b, c, d):
            x, y, z = np.asarray(p, dtype=float).tolist()
            self.vertices.append((x, y, z))
        self.triangles.extend([(base, base + 2, base + 1), (base, base + 3, base + 2)])

    def box(self, lo: ArrayLike, hi: ArrayLike) -> None:
        (x0, y0, z0), (x1, y1, z1) = np.asarray(lo, float), np.asarray(hi, float)
        self.quad((x0, y1, z0), (x1, y1, z0), (x1, y1, z1), (x0, y1, z1))   # top
        self.quad((x0, y0, z0), (x0, y0, z1), (x1, y0, z1), (x1, y0, z0))   # bottom
        self.quad((x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0))   # z0 side
        self.quad((x0, y0, z1), (x0, y1, z1), (x1, y1, z1), (x1, y0, z1))   # z1 side
        self.quad((x0, y0, z0), (x0, y1, z0), (x0, y1, z1), (x0, y0, z1))   # x0 side
        self.quad((x1, y0, z0), (x1, y0, z1), (x1, y1, z1), (x1, y1, z0))   # x1 side

    def level(self) -> Level:
        return Level(np.array(self.vertices), np.array(self.triangles))


def floor(*, size: float = 10.0, thickness: float = 0.5) -> Level:
    """A square slab ``size`` wide whose top is at height 0."""
    size = positive_float("size", size)
    s = _Soup()
    s.box((0, -thickness, 0), (size, 0, size))
    return s.level()


def stairs(*, steps: int = 8, rise: float = 0.2, run: float = 0.5, width: float = 3.0) -> Level:
    """A floor with a flight of ``steps`` steps along x, each ``rise`` high and ``run``
    deep, and a landing at the top as deep as the floor before them."""
    steps = count("steps", steps)
    rise, run, width = (positive_float(n, v) for n, v in
                        (("rise", rise), ("run", run), ("width", width)))
    s = _Soup()
    length = steps * run + 6.0
    s.box((0, -0.5, 0), (length, 0, width))
    for k in range(1, steps + 1):
        x0 = 3.0 + (k - 1) * run
        s.box((x0, 0, 0), (length if k == steps else x0 + run, k * rise, width))
    return s.level()


def ramp(slope: float, *, length: float = 6.0, width: float = 3.0) -> Level:
    """A floor, a ramp of ``slope`` degrees rising along x over ``length`` (horizontal)
    and a platform at its top."""
    slope = positive_float("slope", slope)
    length, width = positive_float("length", length), positive_float("width", width)
    top = length * math.tan(math.radians(slope))
    s = _Soup()
    s.box((0, -0.5, 0), (3.0, 0, width))
    s.quad((3.0, 0, 0), (3.0 + length, top, 0), (3.0 + length, top, width), (3.0, 0, width))
    s.box((3.0 + length, top - 0.5, 0), (6.0 + length, top, width))
    return s.level()


def bridge(*, clearance: float = 3.0, span: float = 8.0, width: float = 2.0) -> Level:
    """A floor with a bridge deck ``clearance`` above it, crossing it along z, reached by
    nothing: two walkable layers, one over the other."""
    clearance = positive_float("clearance", clearance)
    s = _Soup()
    s.box((0, -0.5, 0), (span, 0, span))
    mid = span / 2
    s.box((mid - width / 2, clearance, -1.0), (mid + width / 2, clearance + 0.3, span + 1.0))
    return s.level()


def thin_walls(*, thickness: float = 0.1, size: float = 10.0, gap: float = 1.5) -> Level:
    """A floor cut in three by two walls ``thickness`` thick and 2 high across it, each
    with a door ``gap`` wide, a quarter of the way along it (the first wall) or three
    quarters (the second)."""
    thickness, gap = positive_float("thickness", thickness), positive_float("gap", gap)
    s = _Soup()
    s.box((0, -0.5, 0), (size, 0, size))
    for x, door in ((size / 3, size / 4), (2 * size / 3, 3 * size / 4)):
        x0, x1 = x - thickness / 2, x + thickness / 2
        s.box((x0, 0, 0), (x1, 2.0, door - gap / 2))
        s.box((x0, 0, door + gap / 2), (x1, 2.0, size))
    return s.level()


def building(*, storeys: int = 3, storey_height: float = 3.0, size: float = 10.0,
             slab: float = 0.3) -> Level:
    """Storeys of ``size`` square slabs, each reached from the one below by a flight of
    stairs through an opening in its slab."""
    storeys = count("storeys", storeys)
    storey_height = positive_float("storey_height", storey_height)
    s = _Soup()
    rise, run, steps = 0.2, 0.3, int(round(storey_height / 0.2))
    hole = (1.0, 1.0 + steps * run)          # the stairwell, along x, at z in [1, 3]
    for k in range(storeys):
        y = k * storey_height
        if k == 0:
            s.box((0, -slab, 0), (size, 0, size))
        else:   # the slab around the stairwell
            s.box((0, y - slab, 0), (hole[0], y, size))
            s.box((hole[1], y - slab, 0), (size, y, size))
            s.box((hole[0], y - slab, 3.0), (hole[1], y, size))
        if k + 1 < storeys:
            for j in range(1, steps):
                x0 = hole[0] + (j - 1) * run
                s.box((x0, y + (j - 1) * rise, 1.0), (x0 + run, y + j * rise, 3.0))
    return s.level()


#: Where :func:`multi_storey`'s gap lies: the edges (x) of its two sides.
GAP_EDGES = (22.0, 23.5)


def multi_storey(*, height: float = 3.0, width: float = 16.0) -> Level:
    """Two storeys over a ground floor (x -4 to 32, z 0 to ``width``): platform A
    (x 5.5 to 11) reached from the ground by a flight of 14 steps rising along x to its
    west edge (z 1 to 5), a bridge 4 wide (z 6 to 10) from A to platform B (x 17 to 22),
    and platform C (x 23.5 to 32) beyond a gap 1.5 wide (:data:`GAP_EDGES`) that nothing
    walkable crosses (an off-mesh link can: the demo's
    :func:`~wayfinding.demo.navmesh3d.jump_link`).  The platforms and the bridge are slabs
    0.3 thick with their tops at ``height`` (2.8 to 4: the ground floor runs on under
    them, and RecastDemo's agent still walks up the 15 rises of the flight, 3.6 long, to
    A), reached from the ground by the stairs only.  The stairs and the bridge
    are wide enough for two agents of RecastDemo's radius (0.6) to pass each other.

    >>> multi_storey().num_triangles
    228
    """
    height = positive_float("height", height)
    width = positive_float("width", width)
    if height < 2.8:
        raise InvalidGeometryError(f"height {height!r} must be at least 2.8: the ground "
                                   "floor runs on under the platforms")
    if height > 4.0:
        raise InvalidGeometryError(f"height {height!r} must be at most 4: the stairs (15 "
                                   "rises over 3.6) would be too steep for RecastDemo's agent")
    if width < 11.0:
        raise InvalidGeometryError(f"width {width!r} must be at least 11: the bridge "
                                   "lies at z 6 to 10")
    s = _Soup()
    s.box((-4.0, -0.5, 0), (32.0, 0, width))
    slab = 0.3
    for x0, x1 in ((5.5, 11.0), (17.0, GAP_EDGES[0]), (GAP_EDGES[1], 32.0)):
        s.box((x0, height - slab, 0), (x1, height, width))
    s.box((11.0, height - slab, 6.0), (17.0, height, 10.0))           # the bridge
    steps = 15
    rise, run = height / steps, 3.6 / steps
    for k in range(1, steps):                                          # up to A's edge
        x0 = 5.5 - (steps - k) * run
        s.box((x0, 0, 1.0), (x0 + run, k * rise, 5.0))
    return s.level()


def terrain(*, size: int = 64, cell: float = 1.0, height: float = 6.0,
            seed: int = 0) -> Level:
    """A height-field terrain of ``size x size`` quads of ``cell``, smooth hills up to
    ``height`` from a sum of random waves."""
    size = count("size", size, min=2)
    rng = np.random.default_rng(seed)
    xs = np.arange(size + 1) * cell
    gx, gz = np.meshgrid(xs, xs, indexing="ij")
    y = np.zeros_like(gx)
    for _ in range(6):
        kx, kz = rng.normal(0, 2 * math.pi / (size * cell) * 3, 2)
        y += np.sin(kx * gx + kz * gz + rng.uniform(0, 2 * math.pi))
    y = (y - y.min()) / max(np.ptp(y), 1e-9) * height
    vertices = np.stack([gx.ravel(), y.ravel(), gz.ravel()], axis=1)
    i = np.arange(size)[:, None] * (size + 1) + np.arange(size)[None, :]
    a, b, c, d = i, i + (size + 1), i + (size + 1) + 1, i + 1     # (x, z) (x+1, z) ...
    tris = np.concatenate([np.stack([a, d, c], -1).reshape(-1, 3),
                           np.stack([a, c, b], -1).reshape(-1, 3)])
    return Level(vertices, tris)
