"""The relationships between domains (Kapadia et al., §9.5): the mappings λ(s, Σ, Σ') of a
state to its equivalent states in a finer domain, space-time tunnels and the decomposition
of a coarse plan into waypoint-pair problems.

- λ(Σ1 → Σ2) is the identity: both domains use the same mesh.
- λ(Σ2 → Σ3) maps a polygon to the free grid cells whose centres lie in it
  (:class:`MeshGridMap`); its single candidate is the one nearest the polygon's centre.
- λ(Σ3 → Σ4) maps a cell ``x`` at time ``t`` to ``{(x ± Δx, t ± Δt)}`` (Chebyshev
  distance ``Δx`` cells, ``Δt`` steps); the times come from :func:`time_assignment`, and
  the whole Σ3 path so mapped is the :class:`Tunnel` of the Σ4 search.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import count, finite_points, number
from ..errors import InvalidQueryError
from .domain_grid import Cell, GridDomain
from .domain_navmesh import NavMeshDomain


def time_assignment(points: Any, t_start: float, t_goal: float) -> np.ndarray:
    """Times along a path at constant speed: ``(n,)`` float64, the point at arc length
    ``a`` of a path of length ``L`` getting ``t_start + (t_goal − t_start) · a / L``
    (``t_start`` everywhere on a path of length 0).

    >>> time_assignment([(0, 0), (3, 0), (3, 1)], 10.0, 18.0).tolist()
    [10.0, 16.0, 18.0]
    """
    pts, _ = finite_points("points", points)
    t_start = number("t_start", t_start)
    t_goal = number("t_goal", t_goal, min=t_start)
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
    if arc[-1] == 0:
        return np.full(len(pts), t_start)
    return t_start + (t_goal - t_start) * arc / arc[-1]


class Tunnel:
    """The space-time tunnel of a grid path: the states ``(x, y, k)`` within ``dx`` cells
    (Chebyshev) of the path's cell ``i`` and within ``dk`` steps of its time ``steps[i]``.

    ``cells``: ``(n, 2)`` ``(x, y)``; ``steps``: ``(n,)`` times in steps (any real, from
    :func:`time_assignment` divided by the step's seconds).  ``(x, y, k) in tunnel`` tests
    a state.
    """

    def __init__(self, cells: Any, steps: Any, *, dx: int = 1, dk: int = 2):
        c = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
        k = np.asarray(steps, dtype=np.float64).reshape(-1)
        if len(k) != len(c) or not len(c) or not np.all(np.isfinite(k)):
            raise InvalidQueryError(f"steps must be {len(c)} finite times, one per cell "
                                    "(and at least one)")
        self.dx = count("dx", dx, min=0)
        self.dk = count("dk", dk, min=0)
        states: set[tuple[int, int, int]] = set()
        r = range(-self.dx, self.dx + 1)
        for (x, y), t in zip(c.tolist(), k.tolist()):
            for step in range(math.ceil(t - self.dk), math.floor(t + self.dk) + 1):
                states.update((x + ox, y + oy, step) for oy in r for ox in r)
        self._states = frozenset(states)

    def __contains__(self, state: object) -> bool:
        return state in self._states

    def __len__(self) -> int:
        return len(self._states)


class MeshGridMap:
    """λ(Σ2 → Σ3) between a mesh domain and a grid domain over the same world.

    ``owner`` ``(H, W)`` int32 is the polygon holding each cell's centre (-1: none).
    """

    def __init__(self, mesh: NavMeshDomain, grid: GridDomain):
        self.mesh, self.grid = mesh, grid
        h, w = grid.walls.shape
        ys, xs = np.mgrid[0:h, 0:w]
        centres = grid.positions(np.stack([xs.ravel(), ys.ravel()], 1))
        self.owner = mesh.mesh.locate_many(centres).reshape(h, w)
        self._cells = np.stack([xs, ys], -1)

    def cells(self, polygon: int) -> np.ndarray:
        """λ(polygon): ``(m, 2)`` int64 the cells free of walls for the agent whose centres
        lie in ``polygon``."""
        p = self.mesh.graph().node(polygon, name="polygon")
        return self._cells[(self.owner == p) & self.grid.static_free].astype(np.int64)

    def candidate(self, polygon: int, *, near: Any = None) -> Cell:
        """The single candidate of λ(polygon): its cell nearest ``near`` (a world point;
        default the polygon's centre), or, when no free cell centre lies in the polygon
        (a sliver), the free cell nearest that point; raises :class:`InvalidQueryError`
        on a grid with no free cell."""
        cells = self.cells(polygon)
        if not len(cells):
            cells = self._cells[self.grid.static_free].astype(np.int64)
            if not len(cells):
                raise InvalidQueryError("the grid has no cell where the agent fits")
        point = self.mesh.centres[polygon] if near is None else np.asarray(near, float)
        gap = np.hypot(*(self.grid.positions(cells) - point).T)
        x, y = cells[int(np.argmin(gap))]
        return int(x), int(y)

    def portal(self, a: int, b: int) -> np.ndarray | None:
        """The midpoint ``(2,)`` of the edge polygons ``a`` and ``b`` share (None when
        they share none: a jump link)."""
        m = self.mesh.mesh
        k = np.flatnonzero(m.neighbours[a, :m.sizes[a]] == b)
        if not len(k):
            return None
        i = int(k[0])
        ends = m.vertices[[m.polygons[a, i], m.polygons[a, (i + 1) % m.sizes[a]]]]
        return ends.mean(axis=0)

    def waypoints(self, polygons: Any, start: Cell, goal: Cell) -> list[Cell]:
        """The successive waypoints of a Σ2 plan (its polygons, start to goal) in Σ3:
        ``start``, then for each polygon after the first but the last, its candidate
        nearest the middle of the edge it was entered by (its centre after a jump link),
        then ``goal``, without repeats in a row.  Consecutive pairs are the Σ3 problems."""
        polys = [int(p) for p in polygons]
        out = [start]
        for a, b in zip(polys[:-2], polys[1:-1]):
            c = self.candidate(b, near=self.portal(a, b))
            if c != out[-1]:
                out.append(c)
        if goal != out[-1] or len(out) == 1:
            out.append(goal)
        return out
