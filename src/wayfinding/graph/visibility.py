"""Points-of-visibility graphs: nodes just outside the convex corners of the obstacles, linked
when they see each other."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InvalidQueryError
from ..geometry.obstacles import Obstacles, check_radius
from .positioned import PositionedGraph, visible_pairs

#: Default extra push (world units) of each node beyond the agent radius.
DEFAULT_MARGIN = 1e-6


class VisibilityGraph(PositionedGraph):
    """Points of visibility for a disc agent of ``radius`` among polygonal obstacles.

    Each convex corner of an obstacle gives one node, the corner of the obstacle grown by
    ``radius + margin``: ``v + d·(n1 + n2) / (1 + n1·n2)`` for the outward unit normals n1,
    n2 of its two edges, a point at distance d from both edge lines (so, for very sharp
    corners, far from the corner).  The margin keeps links that run along a grown edge
    strictly clear; it lengthens paths by O(margin) per bend.  Nodes that are not clear
    (inside or too near another obstacle) or outside ``bounds`` are dropped; two nodes are
    linked when their segment is clear for the radius (O(n²) segment tests).  At radius 0
    the shortest path between two points through this graph, with the end points connected
    to all nodes they see (``join="connect"``, the default), is the Euclidean shortest path
    up to the margin.

    Quantization (:meth:`quantize`) is the nearest node the point sees.  Like Dirichlet
    centres this is not strictly valid: two points quantized to linked nodes need not see
    each other.

    >>> obs = Obstacles([[(1, -1), (2, -1), (2, 1), (1, 1)]])
    >>> g = VisibilityGraph.build(obs)
    >>> g.num_nodes, round(g.find_path((0, 0), (3, 0)).cost, 4)
    (4, 3.8284)
    """

    default_join = "connect"

    @classmethod
    def build(cls, obstacles: Obstacles, *, radius: float = 0.0,
              margin: float = DEFAULT_MARGIN, bounds: ArrayLike | None = None,
              max_link: float = np.inf) -> VisibilityGraph:
        """Build the graph.  ``radius``: agent radius (world units, >= 0); ``margin``:
        extra push (>= 0, default 1e-6); ``bounds``: optional ``(xmin, ymin, xmax, ymax)``
        keeping only nodes inside; ``max_link``: longest link kept (default unlimited)."""
        if not isinstance(obstacles, Obstacles):
            raise InvalidQueryError(f"obstacles must be an Obstacles, got "
                                    f"{type(obstacles).__name__}")
        r = check_radius(radius)
        m = check_radius(margin)
        nodes = convex_corners(obstacles, r + m)
        if bounds is not None:
            x0, y0, x1, y1 = _bounds(bounds)
            inside = (nodes[:, 0] >= x0) & (nodes[:, 0] <= x1) & (nodes[:, 1] >= y0) & (
                nodes[:, 1] <= y1)
            nodes = nodes[inside]
        nodes = nodes[obstacles.points_clear(nodes, radius=r)] if len(nodes) else nodes
        nodes = np.unique(nodes, axis=0) if len(nodes) else nodes
        pairs = visible_pairs(nodes, obstacles, r, max_link=max_link)
        return cls(nodes, pairs, obstacles=obstacles, radius=r)

    def quantize(self, points: ArrayLike) -> np.ndarray:
        """``(m,)`` int64: the nearest node each point sees (-1 when it sees none)."""
        return self.quantize_visible(points)


def convex_corners(obstacles: Obstacles, offset: float) -> np.ndarray:
    """``(k, 2)`` float64: each convex corner of each polygon pushed outward so that it lies
    at distance ``offset`` from both its edges' lines (the grown polygon's corner)."""
    out = []
    for poly in obstacles.polygons:
        prev, nxt = np.roll(poly, 1, axis=0), np.roll(poly, -1, axis=0)
        e1, e2 = poly - prev, nxt - poly
        turn = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
        convex = turn > 0
        n1 = np.stack([e1[:, 1], -e1[:, 0]], axis=1) / np.hypot(*e1.T)[:, None]
        n2 = np.stack([e2[:, 1], -e2[:, 0]], axis=1) / np.hypot(*e2.T)[:, None]
        denom = 1.0 + np.einsum("ij,ij->i", n1, n2)
        out.append(poly[convex] + offset * (n1 + n2)[convex] / denom[convex, None])
    return np.concatenate(out) if out else np.empty((0, 2))


def _bounds(bounds: ArrayLike) -> tuple[float, float, float, float]:
    b = np.asarray(bounds, dtype=np.float64).ravel()
    if b.shape != (4,) or not np.all(np.isfinite(b)) or b[2] <= b[0] or b[3] <= b[1]:
        raise InvalidQueryError(f"bounds {bounds!r} must be (xmin, ymin, xmax, ymax) with "
                                "xmin < xmax and ymin < ymax")
    return (float(b[0]), float(b[1]), float(b[2]), float(b[3]))
