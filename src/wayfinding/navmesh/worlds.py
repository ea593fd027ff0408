"""Random obstacle worlds for building and comparing navigation meshes, after the wavefront
chapter's benchmark (Hale and Youngblood): a bounded room furnished by rules like those of
public Quake 3 levels, with obstacles at any angle.

Each obstacle is convex and one of three kinds, drawn with equal chances: a *wall* (a thin
rectangle 15–40% of the room's shorter side long, 1–3% thick), a *box* (a rectangle of
sides 4–12%) or a *pillar* (a convex polygon of 3 to 8 corners, one in each of as many
equal sectors of a circle of radius 2–6%, at a random angle within the sector's first 80%).
A quarter of the walls and boxes are axis-aligned (turned by a multiple of 90°), the others
turned by a uniform random angle.  Obstacles are drawn one after the other and an obstacle
closer than ``gap`` to one already placed or to the room's walls is drawn again, so the
obstacles are disjoint holes and the free space is connected (convex holes apart from each
other and from the outline cannot cut it).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import count, positive_float
from ..errors import InvalidGeometryError
from . import build as _build

#: Draws per obstacle before the world is refused as too crowded.
_TRIES = 200


def obstacle_world(width: float, height: float, *, obstacles: int = 20, gap: float = 1.0,
                   seed: int = 0) -> Any:
    """A ``width`` × ``height`` room (world units, corner at the origin) with ``obstacles``
    (>= 0) random convex obstacles as holes, each at least ``gap`` (> 0, world units) from
    the others and from the room's walls (see the module): a valid shapely Polygon, the
    same for the same arguments and ``seed`` (>= 0).  Raises
    :class:`~wayfinding.errors.InvalidGeometryError` when an obstacle cannot be placed in
    200 draws (too many obstacles, or too large a gap, for the room).  Needs the
    ``[geometry]`` extra.

    >>> world = obstacle_world(100, 60, obstacles=12, seed=3)
    >>> world.bounds, len(world.interiors), world.is_valid
    ((0.0, 0.0, 100.0, 60.0), 12, True)
    """
    shapely = _build._shapely()
    from shapely.geometry import Polygon

    width = positive_float("width", width, error=InvalidGeometryError)
    height = positive_float("height", height, error=InvalidGeometryError)
    obstacles = count("obstacles", obstacles, min=0, error=InvalidGeometryError)
    gap = positive_float("gap", gap, error=InvalidGeometryError)
    seed = count("seed", seed, min=0, error=InvalidGeometryError)
    rng = np.random.default_rng(seed)
    side = min(width, height)
    placed: list[np.ndarray] = []
    guards: list[Any] = []
    for i in range(obstacles):
        for _ in range(_TRIES):
            shape = _obstacle(rng, side)
            lo, hi = shape.min(axis=0), shape.max(axis=0)
            room = np.array([width, height])
            if (hi - lo > room - 2 * gap).any():
                continue
            shape = shape - lo + gap + rng.random(2) * (room - 2 * gap - (hi - lo))
            poly = Polygon(shape)
            if not any(poly.dwithin(g, gap) for g in guards):
                placed.append(shape)
                guards.append(poly)
                break
        else:
            raise InvalidGeometryError(
                f"could not place obstacle {i + 1} of {obstacles} at least gap={gap:g} from "
                f"the others in a {width:g} x {height:g} room in {_TRIES} draws; ask for "
                "fewer obstacles or a smaller gap")
    world = Polygon([(0, 0), (width, 0), (width, height), (0, height)], placed)
    return shapely.normalize(world)


def _obstacle(rng: np.random.Generator, side: float) -> np.ndarray:
    """One obstacle's corners, counter-clockwise, round the origin (see the module)."""
    kind = int(rng.integers(3))
    if kind == 2:                                       # pillar
        n = int(rng.integers(3, 9))
        angles = (np.arange(n) + 0.8 * rng.random(n)) * (2 * math.pi / n)
        radius = side * (0.02 + 0.04 * rng.random())
        return radius * np.column_stack([np.cos(angles), np.sin(angles)])
    if kind == 0:                                       # wall
        w, h = side * (0.15 + 0.25 * rng.random()), side * (0.01 + 0.02 * rng.random())
    else:                                               # box
        w, h = side * (0.04 + 0.08 * rng.random(2))
    turn = (int(rng.integers(4)) * math.pi / 2 if rng.random() < 0.25
            else rng.random() * math.pi)
    c, s = math.cos(turn), math.sin(turn)
    corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    return corners @ np.array([[c, s], [-s, c]])
