"""Probabilistic roadmaps: random collision-free samples linked to their nearest neighbours."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, count
from ..errors import InvalidQueryError
from ..geometry.obstacles import Obstacles, check_radius
from .positioned import PositionedGraph, visible_pairs
from .visibility import _bounds

#: Sampling rounds (each draws 2n points) before giving up on a too-small free space.
MAX_ROUNDS = 50


class Roadmap(PositionedGraph):
    """A probabilistic roadmap (PRM) for a disc agent of ``radius``.

    ``n`` points are drawn uniformly in ``bounds`` with ``numpy.random.default_rng(seed)``
    (so the same arguments give the same roadmap), rejecting those that are not clear; each
    is linked to its ``k`` nearest samples (Euclidean; ties to the lowest index) when the
    link is clear.  The roadmap may fall into several components (:attr:`components`,
    :attr:`num_components`).  k-nearest search is brute force in chunks, O(n²) time and
    O(n) memory per chunk row; link tests O(n·k) segment tests.

    >>> rm = Roadmap.build(Obstacles(), (0, 0, 10, 10), n=20, k=4, seed=1)
    >>> rm.num_nodes, rm.num_components
    (20, 1)
    """

    default_join = "quantize"

    @classmethod
    def build(cls, obstacles: Obstacles, bounds: ArrayLike, *, n: int = 500, k: int = 8,
              radius: float = 0.0, seed: int = 0, max_link: float = np.inf) -> Roadmap:
        """Sample and link the roadmap.  ``bounds``: ``(xmin, ymin, xmax, ymax)`` world
        units; ``n`` >= 1 samples; ``k`` >= 1 neighbours; ``max_link`` drops longer links.
        Raises :class:`InvalidQueryError` when fewer than n clear points turn up in
        :data:`MAX_ROUNDS` rounds of 2n draws."""
        if not isinstance(obstacles, Obstacles):
            raise InvalidQueryError(f"obstacles must be an Obstacles, got "
                                    f"{type(obstacles).__name__}")
        n, k = count("n", n), count("k", k)
        allocation(f"a roadmap of {n} samples and {k} neighbours each", n * k)
        r = check_radius(radius)
        x0, y0, x1, y1 = _bounds(bounds)
        rng = np.random.default_rng(seed)
        found: list[np.ndarray] = []
        have = 0
        for _ in range(MAX_ROUNDS):
            draw = rng.uniform((x0, y0), (x1, y1), size=(2 * n, 2))
            ok = draw[obstacles.points_clear(draw, radius=r)]
            found.append(ok)
            have += len(ok)
            if have >= n:
                break
        if have < n:
            raise InvalidQueryError(f"only {have} of {n} samples are clear for radius {r} "
                                    f"after {MAX_ROUNDS} rounds; the free space in {bounds!r} "
                                    "is too small")
        pts = np.concatenate(found)[:n]
        pairs = visible_pairs(pts, obstacles, r, max_link=max_link,
                              candidates=k_nearest(pts, k))
        return cls(pts, pairs, obstacles=obstacles, radius=r)

    @property
    def num_components(self) -> int:
        return int(self.components.max()) + 1 if self.num_nodes else 0


def k_nearest(points: np.ndarray, k: int) -> np.ndarray:
    """``(n·min(k, n-1), 2)`` int64 pairs ``(i, j)``: j among the k nearest other points of
    i (Euclidean, ties to the lowest index).  Brute force in row chunks."""
    n = len(points)
    k = min(k, n - 1)
    if k < 1:
        return np.empty((0, 2), dtype=np.int64)
    step = max(1, 2_000_000 // n)
    out = []
    idx = np.arange(n)
    for lo in range(0, n, step):
        rows = idx[lo:lo + step]
        diff = points[rows, None, :] - points[None, :, :]
        d2 = diff[..., 0] ** 2 + diff[..., 1] ** 2
        d2[np.arange(len(rows)), rows] = np.inf
        # order by (distance, index): stable argsort on distance keeps index order on ties
        near = np.argsort(d2, axis=1, kind="stable")[:, :k]
        out.append(np.stack([np.repeat(rows, k), near.ravel()], axis=1))
    return np.concatenate(out).astype(np.int64)
