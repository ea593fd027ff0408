"""Waypoint graphs: points and links placed by a designer, or links found by line of sight."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, positive_float
from ..errors import InvalidQueryError
from ..geometry.obstacles import Obstacles, as_points, check_radius
from .positioned import PositionedGraph, check_clear_points, visible_pairs
from .visibility import _bounds


class WaypointGraph(PositionedGraph):
    """A graph of waypoints at world positions with undirected links.

    ``points``: ``(n, 2)`` world positions; ``edges``: ``(k, 2)`` node pairs; ``weights``:
    link costs (default Euclidean length).  With ``obstacles``, every point and every link
    must be clear for the agent ``radius`` (else :class:`InvalidQueryError`), so every path
    found is legal.  Quantization: nearest waypoint (:meth:`quantize`).

    >>> g = WaypointGraph.connect([(0, 0), (4, 0), (4, 3)])
    >>> g.num_edges, g.find_path((0, 0), (4, 3)).cost
    (3, 5.0)
    """

    def __init__(self, points: ArrayLike, edges: ArrayLike = (), *,
                 weights: ArrayLike | None = None,
                 obstacles: Obstacles | None = None, radius: float = 0.0):
        super().__init__(points, edges, weights=weights, obstacles=obstacles, radius=radius)
        check_clear_points(self.positions, self.obstacles, self.radius, "waypoint")
        e = self.edges
        ok = self.links_clear(self.positions[e[:, 0]], self.positions[e[:, 1]]) if len(e) \
            else np.ones(0, dtype=bool)
        if not ok.all():
            i, j = e[int(np.flatnonzero(~ok)[0])].tolist()
            raise InvalidQueryError(f"link {i}-{j} is not clear of the obstacles for radius "
                                    f"{self.radius}")

    @classmethod
    def connect(cls, points: ArrayLike, obstacles: Obstacles | None = None, *, radius: float = 0.0,
                max_link: float = np.inf) -> WaypointGraph:
        """Link every pair of points whose straight segment is clear for ``radius`` (the
        capsule around it touches no obstacle) and at most ``max_link`` long (world units,
        > 0).  O(n²) segment tests; links are weighted by length."""
        pts = as_points(points, "points")
        r = check_radius(radius)
        obs = obstacles if obstacles is not None else Obstacles()
        check_clear_points(pts, obs, r, "waypoint")
        pairs = visible_pairs(pts, obs, r, max_link=max_link)
        return cls(pts, pairs, obstacles=obs, radius=r)


def lattice_points(obstacles: Obstacles, bounds: ArrayLike, spacing: float, *,
                   radius: float = 0.0) -> np.ndarray:
    """``(k, 2)`` float64: the points of a square lattice of step ``spacing`` (world units,
    > 0) over ``bounds`` ``(xmin, ymin, xmax, ymax)``, starting half a step inside, that are
    clear for ``radius``; row by row (y, then x).  Handy seeds for waypoints or Dirichlet
    domains on a map."""
    x0, y0, x1, y1 = _bounds(bounds)
    step = positive_float("spacing", spacing)
    allocation(f"a lattice of spacing {step:g} over {x1 - x0:g} x {y1 - y0:g}",
               ((x1 - x0) / step + 1) * ((y1 - y0) / step + 1))
    xs = np.arange(x0 + step / 2, x1, step)
    ys = np.arange(y0 + step / 2, y1, step)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1)
    return pts[obstacles.points_clear(pts, radius=check_radius(radius))] if len(pts) else pts
