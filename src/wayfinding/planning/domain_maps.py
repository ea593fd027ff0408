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
from ..geometry.funnel import funnel_path
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
        """The midpoint ``(2,)`` of the boundary polygons ``a`` and ``b`` share (None when
        they share none: a jump link)."""
        ends = self.mesh.mesh.shared_boundary(a, b)
        return None if ends is None else ends.mean(axis=0)

    def jump(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """The take-off and landing points ``(2,)`` of an off-mesh link from polygon ``a``
        to ``b`` (their centres when no link joins them)."""
        m = self.mesh.mesh
        for link, (u, v) in zip(m.links, m.link_polygons.tolist()):
            if (u, v) == (a, b):
                return np.asarray(link.start, float)[:2], np.asarray(link.end, float)[:2]
            if link.bidirectional and (v, u) == (a, b):
                return np.asarray(link.end, float)[:2], np.asarray(link.start, float)[:2]
        return self.mesh.centres[a], self.mesh.centres[b]

    def waypoints(self, polygons: Any, start: Cell,
                  goal: Cell) -> tuple[list[Cell], list[int]]:
        """The successive waypoints of a Σ2 plan (its polygons, start to goal) in Σ3 and,
        per waypoint, the index in ``polygons`` of the polygon it stands for.

        The plan's run of polygons between off-mesh links is string-pulled
        (:func:`~wayfinding.geometry.funnel_path`) from ``start``'s centre to ``goal``'s
        (or to the link's take-off point, from its landing point): each bend, at the end of
        the portal into polygon ``i``, gives the free cell nearest the point half a cell
        diagonal outside the bend (on the bisector, away from the corner the line turns
        round: the cell a grid path bending there passes), standing for polygon ``i``; a
        link gives the candidates nearest its two ends.  ``start`` comes first
        (index 0) and ``goal`` last (the last index), without repeats in a row (a repeated
        cell keeps the later index).  Consecutive pairs are the Σ3 problems."""
        polys = [int(p) for p in polygons]
        out, index = [start], [0]

        def add(cell: Cell, i: int) -> None:
            if cell == out[-1]:
                index[-1] = i
            else:
                out.append(cell)
                index.append(i)

        here = self.grid.position(start)
        first = 0
        for i in range(1, len(polys) + 1):
            if i < len(polys) and self.portal(polys[i - 1], polys[i]) is not None:
                continue
            end = self.grid.position(goal) if i == len(polys) \
                else self.jump(polys[i - 1], polys[i])[0]
            for point, k in self._bends(polys[first:i], here, end):
                add(self.nearest_free(point), first + k)
            if i < len(polys):
                off, here = self.jump(polys[i - 1], polys[i])
                add(self.candidate(polys[i - 1], near=off), i - 1)
                add(self.candidate(polys[i], near=here), i)
                first = i
        if goal != out[-1] or len(out) == 1:
            out.append(goal)
            index.append(len(polys) - 1)
        else:
            index[-1] = len(polys) - 1
        return out, index

    def nearest_free(self, point: Any) -> Cell:
        """The cell nearest the world point ``point`` where the agent fits among the walls;
        raises :class:`InvalidQueryError` on a grid with no such cell."""
        cells = self._cells[self.grid.static_free]
        if not len(cells):
            raise InvalidQueryError("the grid has no cell where the agent fits")
        gap = np.hypot(*(self.grid.positions(cells) - np.asarray(point, float)).T)
        x, y = cells[int(np.argmin(gap))]
        return int(x), int(y)

    def _bends(self, polys: list[int], start: np.ndarray,
               end: np.ndarray) -> list[tuple[np.ndarray, int]]:
        """The bends of the shortest line from ``start`` to ``end`` through the portals of
        the run ``polys``, each moved half a cell diagonal outward along its bisector:
        ``(point, i)`` with ``i`` the position in ``polys`` of the polygon entered at the
        bend."""
        if len(polys) < 2:
            return []
        centres = self.mesh.centres
        left, right = [start], [start]
        for a, b in zip(polys, polys[1:]):
            ends = self.mesh.mesh.shared_boundary(a, b)
            if ends is None:
                raise InvalidQueryError(f"polygons {a} and {b} of the run share no boundary")
            u, v = ends
            d = centres[b] - centres[a]
            ahead = d[0] * (v - u)[1] - d[1] * (v - u)[0] > 0     # v left of a -> b
            left.append(v if ahead else u)
            right.append(u if ahead else v)
        left.append(end)
        right.append(end)
        corners, portal = funnel_path(np.array(left), np.array(right))
        out = []
        for j in range(1, len(corners) - 1):
            k = int(portal[j])
            if not 0 < k < len(polys):
                continue
            into, out_of = corners[j] - corners[j - 1], corners[j + 1] - corners[j]
            lengths = np.hypot(*into), np.hypot(*out_of)
            away = into / max(lengths[0], 1e-300) - out_of / max(lengths[1], 1e-300)
            size = float(np.hypot(*away))
            shift = away / size * self.grid.cell_size * math.sqrt(0.5) \
                if min(lengths) > 0 and size > 1e-12 else 0.0
            out.append((corners[j] + shift, k))
        return out
