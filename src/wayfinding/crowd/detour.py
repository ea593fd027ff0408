"""Very temporary obstacle avoidance: bend a straight move round circular obstacles that the
navigation mesh does not know about (crates, parked agents, debris).

Each circle ``(x, y, r)`` is inflated by the agent's radius; inflated discs that overlap or
touch form one *cluster*, passed as a whole.  The first cluster met along the path is passed
on one side of its convex hull (the convex hull of its inflated discs): from the segment's
start ``a`` the two tangent lines to the hull touch it at tangent points ``T``; the side whose
``|a T| + |T b|`` is shorter (``b`` the segment's end) is taken, ties to the left of ``a → b``
(but a side whose new segments enter no other disc goes before one whose do, which keeps the
iteration from bending back into the obstacle it just left).
The segment ``a → b`` becomes ``a → T → corners → T' → b``: ``T`` is where the path first
touches the hull, ``T'`` (on the tangent line from ``b``) where it leaves it, and the corners
are the intersections of tangent lines of the hull turned by at most 45 degrees each (the hull
circumscribed by a polygon).  Every new segment lies on a line that supports the hull, so it
never enters an inflated disc of the cluster (it may touch one); ``a → T`` is tangent to a
disc at ``T``.  Then the whole new path is checked again and the first blocking cluster
passed, up to ``iterations`` times (the iteration of the method: a few are usually enough).

A side is excluded when a tangent does not exist (``a`` or ``b`` inside an inflated disc or
inside the cluster's hull), when one of its new points lies inside another inflated disc,
or, with a navigation ``mesh``, when a new point is off the mesh or a new segment crosses a
wall (:meth:`~wayfinding.navmesh.NavMesh.raycast` hits): objects along walls are passed on
the open side.  When no side is left, the path is returned as it stands, not clear.

Units: world units; a segment *clears* a disc when its distance to the centre is at least the
inflated radius less a tolerance of ``1e-9`` times the scene's scale.

>>> result = detour((0, 0), (10, 0), [(5, -0.3, 1.0)], 0.5)
>>> result.clear, len(result.path)
(True, 5)
>>> result.path[1].round(3).tolist()                # the tangent point, passing on the left
[4.637, 1.155]
>>> detour((0, 0), (10, 0), [(5, 3, 1.0)], 0.5).path.tolist()      # nothing in the way
[[0.0, 0.0], [10.0, 0.0]]
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._validate import count, positive_float
from ..errors import InvalidQueryError
from ..geometry.obstacles import as_point

#: Largest turn between two consecutive tangent lines round a cluster (radians): a corner
#: lies at most ``1 / cos(MAX_TURN / 2)`` (1.08) times the disc's radius from its centre.
MAX_TURN = math.pi / 4

_REL_TOL = 1e-9


class Detour(NamedTuple):
    """What :func:`detour` returns: ``path``, ``(k, 2)`` float64 points from start to goal
    (k >= 2), and ``clear``: whether every segment of it clears every inflated disc."""

    path: np.ndarray
    clear: bool


def detour(start: ArrayLike, goal: ArrayLike, circles: Any, radius: float, *, mesh: Any = None,
           iterations: int = 4) -> Detour:
    """Bend the move ``start → goal`` round ``circles`` for an agent of ``radius``.

    ``circles``: ``(n, 3)`` ``(x, y, r)`` obstacles, r >= 0 (n may be 0); ``radius``: the
    agent's radius (>= 0), added to each r.  ``mesh``: an optional
    :class:`~wayfinding.navmesh.NavMesh` holding ``start`` and ``goal``; sides that leave it
    are excluded.  ``iterations`` (>= 0): how many blocking clusters may be passed.  See the
    module docstring for the construction; the result is deterministic.
    """
    a, b = as_point(start, "start"), as_point(goal, "goal")
    disc = _circles(circles)
    r = positive_float("radius", radius, allow_zero=True)
    iterations = count("iterations", iterations, min=0)
    if mesh is not None:
        for name, p in (("start", a), ("goal", b)):
            if mesh.locate(p) < 0:
                raise InvalidQueryError(f"{name} {p.tolist()} is not on the navigation mesh")
    centres, radii = disc[:, :2], disc[:, 2] + r
    keep = radii > 0
    centres, radii = centres[keep], radii[keep]
    scale = max(1.0, float(np.abs(np.concatenate([a, b, centres.ravel()])).max()))
    tol = _REL_TOL * scale
    labels = clusters(centres, radii)
    path = np.array([a, b])
    for _ in range(iterations):
        found = _first_block(path, centres, radii, tol)
        if found is None:
            return Detour(path, True)
        seg, circle = found
        members = labels == labels[circle]
        new = _pass(path[seg], path[seg + 1], centres, radii, members, tol, mesh)
        if new is None:
            return Detour(path, False)
        path = np.concatenate([path[:seg + 1], new, path[seg + 1:]])
    return Detour(path, _first_block(path, centres, radii, tol) is None)


def clusters(centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Label each disc with the smallest index of the group of discs linked to it by
    overlapping or touching: ``(n,)`` int64 (discs ``(n, 2)`` centres and ``(n,)`` radii)."""
    n = len(radii)
    gap = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    linked = gap <= radii[:, None] + radii[None, :]
    labels = np.arange(n)
    for _ in range(n):
        nxt = np.where(linked, labels[None, :], n).min(axis=1)
        if np.array_equal(nxt, labels):
            break
        labels = nxt
    return labels


def segment_distances(p: np.ndarray, q: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """``(s, n)`` distance from each of ``n`` points to each segment ``p[i] → q[i]``."""
    d = q - p
    l2 = (d * d).sum(1)
    rel = centres[None, :, :] - p[:, None, :]
    t = (rel * d[:, None, :]).sum(-1) / np.where(l2 > 0, l2, 1.0)[:, None]
    t = np.clip(t, 0.0, 1.0)
    off = rel - t[..., None] * d[:, None, :]
    return np.hypot(off[..., 0], off[..., 1])


def _circles(circles: Any) -> np.ndarray:
    try:
        c = np.array(circles, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"circles {circles!r} is not an (n, 3) array of (x, y, r)") \
            from None
    if c.size == 0:
        return np.zeros((0, 3))
    if c.ndim != 2 or c.shape[1] != 3:
        raise InvalidQueryError(f"circles must have shape (n, 3) as (x, y, r), got {c.shape}")
    bad = ~np.isfinite(c).all(1) | (c[:, 2] < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidQueryError(f"circles[{i}] = {c[i].tolist()} must be finite with r >= 0")
    return c


def _first_block(path: np.ndarray, centres: np.ndarray, radii: np.ndarray, tol: float
                 ) -> tuple[int, int] | None:
    """The first segment entering an inflated disc and, of the discs it enters, the one it
    enters first: ``(segment, disc)``, or None when the path is clear."""
    if not len(radii):
        return None
    p, q = path[:-1], path[1:]
    dist = segment_distances(p, q, centres)
    blocked = dist < radii[None, :] - tol
    rows = np.flatnonzero(blocked.any(1))
    if not len(rows):
        return None
    s = int(rows[0])
    d = q[s] - p[s]
    length = math.hypot(*d)
    rel = centres - p[s]
    along = rel @ d / length if length > 0 else np.zeros(len(radii))
    across2 = np.maximum((rel * rel).sum(1) - along * along, 0.0)
    entry = along - np.sqrt(np.maximum(radii * radii - across2, 0.0))
    entry = np.where(blocked[s], entry, np.inf)
    return s, int(np.argmin(entry))


def _pass(a: np.ndarray, b: np.ndarray, centres: np.ndarray, radii: np.ndarray,
          members: np.ndarray, tol: float, mesh: Any) -> np.ndarray | None:
    """The points to put between ``a`` and ``b`` to pass the cluster ``members`` on the
    better usable side, or None."""
    candidates = []
    for side in (1.0, -1.0):                                   # left of a → b first
        pts = _wrap(a, b, centres[members], radii[members], side, tol)
        if pts is None:
            continue
        inside = np.hypot(*(pts[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)) \
            < radii[None, :] - tol
        if inside.any() or (mesh is not None and not _on_mesh(mesh, a, pts, b)):
            continue
        chain = np.vstack([a, pts, b])
        runs_into = bool((segment_distances(chain[:-1], chain[1:], centres)
                          < radii[None, :] - tol).any())
        t = pts[0]
        candidates.append((runs_into, math.hypot(*(t - a)) + math.hypot(*(b - t)), pts))
    if not candidates:
        return None
    if len(candidates) == 2:
        (left_into, left_len, _), (right_into, right_len, right) = candidates
        if (right_into, right_len) < (left_into, left_len - tol):
            return right                                       # better, or strictly shorter
    return candidates[0][2]


def _wrap(a: np.ndarray, b: np.ndarray, centres: np.ndarray, radii: np.ndarray, side: float,
          tol: float) -> np.ndarray | None:
    """``T``, the corners and ``T'`` of the pass from ``a`` to ``b`` round the hull of the
    discs, on the left of ``a → b`` (``side`` 1) or on its right (-1); None when a tangent
    does not exist."""
    d = b - a
    length = math.hypot(*d)
    if length == 0:
        return None
    ex = d / length
    ey = side * np.array([-ex[1], ex[0]])                     # mirrored for the right side
    rel = centres - a
    x, y = rel @ ex, rel @ ey
    da, db = np.hypot(x, y), np.hypot(length - x, y)
    if (da < radii - tol).any() or (db < radii - tol).any():
        return None
    alpha_a = np.arcsin(np.minimum(radii / np.maximum(da, 1e-300), 1.0))
    alpha_b = np.arcsin(np.minimum(radii / np.maximum(db, 1e-300), 1.0))
    phi = np.arctan2(y, x)                                     # seen from a, from a → b
    rho = np.arctan2(-y, length - x)                           # seen from b, from b → a
    # A point on a disc's edge sees it over exactly pi: allowed (the tangent there).
    limit = math.pi + 1e-12
    if (phi + alpha_a).max() - (phi - alpha_a).min() > limit \
            or (rho + alpha_b).max() - (rho - alpha_b).min() > limit:
        return None                                            # inside the cluster's hull
    psi_a = float((phi + alpha_a).max())        # heading leaving a, hull on the right
    psi_b = float((rho - alpha_b).min())        # heading arriving at b
    turn = psi_a - psi_b
    if turn <= 0:
        return None
    m = max(1, math.ceil(turn / MAX_TURN - 1e-12))
    psi = psi_a - turn * np.arange(m + 1) / m
    normal = np.stack([-np.sin(psi), np.cos(psi)], 1)          # left of the heading: outward
    support = normal @ np.stack([x, y]) + radii[None, :]       # (m + 1, discs)
    touch = support.argmax(1)
    h = support.max(1)
    n0, n1, h0, h1 = normal[:-1], normal[1:], h[:-1], h[1:]
    det = n0[:, 0] * n1[:, 1] - n0[:, 1] * n1[:, 0]
    corners = np.stack([(h0 * n1[:, 1] - h1 * n0[:, 1]) / det,
                        (n0[:, 0] * h1 - n1[:, 0] * h0) / det], 1)
    first = np.array([x[touch[0]], y[touch[0]]]) + radii[touch[0]] * normal[0]
    last = np.array([x[touch[-1]], y[touch[-1]]]) + radii[touch[-1]] * normal[-1]
    local = np.vstack([first, corners, last])
    return a + local[:, :1] * ex + local[:, 1:] * ey


def _on_mesh(mesh: Any, a: np.ndarray, pts: np.ndarray, b: np.ndarray) -> bool:
    """Every point of ``a, pts…, b`` on the mesh and every segment free of walls."""
    chain = np.vstack([a, pts, b])
    if (mesh.locate_many(chain) < 0).any():
        return False
    return not any(mesh.raycast(p, q).hit for p, q in zip(chain[:-1], chain[1:]))
