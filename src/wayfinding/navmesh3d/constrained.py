"""The constraint domain of a voxel navmesh (:class:`~wayfinding.navmesh3d.NavMesh3D`): the
2D meshes' triangulation domain ("tri") on its convex polygons, for
``NavMesh3DQuery.find_path(..., constraints=)``.

Axis convention: the meshes follow Recast, y up, so annotations lie on the ground plane
(x, z): a world point (x, y, z) is evaluated at the 2D point (x, z) of the
:class:`~wayfinding.constraints.ConstraintSet`'s ``(n, 2)`` points (an annotation's second
coordinate is world z), and a constraint applies to every storey above the same ground.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

import numpy as np

from .._validate import count, finite_point
from ..graph.constrained import (
    ConstrainedPath,
    ConstraintDomain,
    Fields,
    _not_found,
    _query_options,
    _routed,
)
from .navmesh import NavMesh3D


class Mesh3DConstraintDomain(ConstraintDomain):
    """Σ_tri of a voxel navmesh: one state at the midpoint of each polygon edge (the
    polygons' world corners, :meth:`NavMesh3D.polygons`; an edge two polygons share, or
    two tiles with the same corners, is one state), and in each usable polygon a transition
    from each of its edge states to each other, costing the 3D distance between the
    midpoints times the polygon's area cost.  :attr:`points` are the states' ``(x, z)``
    ground points; :attr:`points3d` their ``(x, y, z)`` world points.

    ``usable``: ``(P,)`` bool per polygon (the query filter's); ``area_cost``: ``(P,)``
    float64 cost per unit length of each polygon (its area's cost, finite >= 0 where
    usable).  Off-mesh links are not part of the domain.
    """

    kind = "navmesh3d"

    def __init__(self, mesh: NavMesh3D, usable: Any, area_cost: Any):
        polys = mesh.polygons()
        ok = np.asarray(usable, dtype=bool) & np.isfinite(area_cost)
        cost = np.where(ok, np.asarray(area_cost, dtype=np.float64), 0.0)
        sizes = np.array([len(p) for p in polys], dtype=np.int64)
        corners = np.concatenate(polys) if polys else np.empty((0, 3))
        first = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        after = np.arange(len(corners)) + 1
        last = first + sizes - 1
        after[last] = first               # each polygon's corner i to corner i + 1 (wrapping)
        mids = 0.5 * (corners + corners[after])
        _, where, state = np.unique(np.round(mids, 5), axis=0, return_index=True,
                                    return_inverse=True)
        state = state.ravel()
        self._points3d = mids[where]
        src, dst, base = [np.empty(0, np.int64)], [np.empty(0, np.int64)], [np.empty(0)]
        for k in np.unique(sizes[ok]).tolist():
            ids = np.flatnonzero(ok & (sizes == k))
            edge_states = state[first[ids, None] + np.arange(k)]          # (m, k)
            pairs = np.array(list(itertools.permutations(range(k), 2)))
            a, b = edge_states[:, pairs[:, 0]].ravel(), edge_states[:, pairs[:, 1]].ravel()
            src.append(a)
            dst.append(b)
            base.append(np.linalg.norm(self._points3d[b] - self._points3d[a], axis=1)
                        * np.repeat(cost[ids], len(pairs)))
        super().__init__(self._points3d[:, [0, 2]], np.stack([np.concatenate(src),
                                                               np.concatenate(dst)], 1),
                         np.concatenate(base))
        self._points3d.flags.writeable = False
        self._usable, self._cost = ok, cost
        self._first, self._sizes, self._edge_state = first, sizes, state
        self.join_count = max(self.join_count, int(sizes.max(initial=0)))
        self.leg_cost = float(cost[ok].min()) if ok.any() else 1.0

    @property
    def points3d(self) -> np.ndarray:
        """``(n, 3)`` float64 world point ``(x, y, z)`` of each state (read-only)."""
        return self._points3d

    def polygon_states(self, polygon: int) -> np.ndarray:
        """``(k,)`` int64 states of a polygon's edges, in its corner order."""
        lo = self._first[polygon]
        return self._edge_state[lo:lo + self._sizes[polygon]]

    def _polygon_legs(self, polygon: int, point: np.ndarray, targets: np.ndarray,
                      field: Fields, t: float) -> np.ndarray:
        """Constrained costs of the straight legs inside ``polygon`` from world point
        ``point`` to the world points ``targets`` (``(m, 3)``): 3D length times the
        polygon's area cost times the mean multiplier at the four samples on (x, z);
        ``inf`` where a leg crosses a hard constraint."""
        base = np.linalg.norm(targets - point, axis=1) * self._cost[polygon]
        if field is None:
            return base
        a = np.repeat(point[None, [0, 2]], len(targets), axis=0)
        return field.transition_costs(a, targets[:, [0, 2]], base, t=t)

    def find_route(self, start_polygon: int, start: Any, goal_polygon: int, goal: Any, *,
                   constraints: Fields = None, t: float = 0.0,
                   method: str = "astar") -> ConstrainedPath:
        """The cheapest route from world point ``start`` (on ``start_polygon``) to ``goal``
        (on ``goal_polygon``) under ``constraints`` at time ``t`` (compiled A* or Dijkstra,
        ``method``): each end joins the states of its polygon's edges by straight legs (the
        polygon is convex, so they stay on it), and two ends on one polygon are also joined
        by their straight leg; legs cost as transitions do.  ``path`` is the ``(m, 3)``
        float64 world points from ``start`` to ``goal`` (repeated points dropped).  A
        polygon -1 or not usable, or no route, gives ``found=False``; a polygon outside -1
        .. P - 1 or an end that is not a finite (x, y, z) point raises
        :class:`~wayfinding.errors.InvalidQueryError`."""
        t0 = time.perf_counter()
        method, t, field, name = _query_options(self.kind, method, t, constraints)
        top = len(self._usable) - 1
        ends = (count("start_polygon", start_polygon, min=-1, max=top),
                count("goal_polygon", goal_polygon, min=-1, max=top))
        s, g = finite_point("start", start, 3), finite_point("goal", goal, 3)
        if min(ends) < 0 or not self._usable[list(ends)].all():
            return _not_found(name, t0, dims=3)
        joined = []
        for poly, p in zip(ends, (s, g)):
            states = self.polygon_states(poly)
            legs = self._polygon_legs(poly, p, self._points3d[states], field, t)
            keep = np.isfinite(legs)
            joined.append((states[keep], legs[keep]))
        direct = math.inf
        if ends[0] == ends[1]:
            direct = float(self._polygon_legs(ends[0], s, g[None], field, t)[0])
        (starts, s_legs), (goals, g_legs) = joined
        r = self._route(s[[0, 2]], g[[0, 2]], starts, s_legs, goals, g_legs, direct, field,
                        t, method)
        return _routed(name, t0, r, s, g, self._points3d)
