"""Paths for a group's bulk: the group plans as one disc as wide as its formation, and
takes a narrower formation on the stretches where the full one does not fit.

A formation is given by its slot offsets, ``(n, 2)`` float64 in the formation's frame (+x
forward, +y left).  Its members follow the path: member ``i`` stands at distance
``s + x_i`` along it (``s``: the group's own distance along the path), ``y_i`` to the left
of it.  So the group sweeps a band of half-width ``max |y_i| + member_radius`` around the
path, its *swept radius*, and a path of that clearance keeps every member clear of the
walls, whatever its turns (a group that follows its path needs its width only, not the disc
round all its slots).  A :class:`~wayfinding.groups.FormationShape` gives its offsets as
``shape.offsets``.

>>> from wayfinding.grid import Grid
>>> free = np.ones((6, 12), dtype=bool)
>>> free[:2, 5:7] = free[4:, 5:7] = False              # a door two cells wide
>>> line = [[0.0, 1.0], [0.0, 0.0], [0.0, -1.0]]       # three abreast: too wide
>>> column = [[0.0, 0.0], [-1.0, 0.0], [-2.0, 0.0]]     # one behind the other: fits
>>> plan = plan_group_path(Grid(free), (1.5, 3.0), (10.5, 3.0), offsets=line,
...                        member_radius=0.4, narrow=column)
>>> plan.found, plan.radius, plan.narrow_radius
(True, 1.4, 0.4)
>>> ''.join("LC"[f] for f in plan.formation)            # per segment: line or column
'LLCCCCCLL'
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import finite_float, finite_point, positive_float
from ..crowd.detour import segment_distances
from ..errors import InvalidQueryError
from ..grid import Grid, GridSearch
from ..navmesh import ClearanceMesh
from ..results import _fields_equal

#: Values of :attr:`GroupPlan.formation`: the full formation, the narrow one.
BULK, NARROW = 0, 1


@dataclass(slots=True, repr=False, kw_only=True)
class GroupPlan:
    """A plan for a group's bulk.

    ``path``: ``(m, 2)`` float64 world points; ``formation``: ``(m - 1,)`` int8, per
    segment :data:`BULK` (the full formation) or :data:`NARROW`; ``cost``: the plan's cost
    (world units: on a grid the search's cost times the cell size, on a clearance mesh the
    path's length); ``found``; ``radius``, ``narrow_radius``: the swept radii of the full
    and the narrow formation (None when none was given); ``offsets``, ``narrow``: the two
    formations' slot offsets (``narrow`` None when none was given); ``reason``: why there is
    no plan ("" when found).
    """

    path: np.ndarray
    formation: np.ndarray
    cost: float
    found: bool
    radius: float
    offsets: np.ndarray
    narrow: np.ndarray | None = None
    narrow_radius: float | None = None
    reason: str = ""
    _along: np.ndarray = field(init=False, compare=False)

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        steps = np.diff(self.path, axis=0)
        self._along = np.concatenate([[0.0], np.cumsum(np.hypot(steps[:, 0], steps[:, 1]))])

    def __repr__(self) -> str:
        return (f"GroupPlan(found={self.found}, points={len(self.path)}, cost={self.cost:.6g}, "
                f"narrow segments={int(np.sum(self.formation == NARROW))})")

    @property
    def length(self) -> float:
        """The path's length (world units)."""
        return float(self._along[-1]) if len(self._along) else 0.0

    def slots(self, s: float) -> np.ndarray:
        """The members' slots ``(n, 2)`` in world coordinates when the group stands ``s``
        along the path (clamped to the path): member ``i`` at ``s + x_i`` along the path
        (clamped to it), ``y_i`` to its left, ``x_i`` from the formation of the segment at
        ``s`` and ``y_i`` from that of the segment where the member stands (so members file
        into the narrow formation as they reach its stretch, each within the swept radius of
        its own segment)."""
        if not self.found:
            raise InvalidQueryError("the plan has no path: no slots along it")
        s = min(max(finite_float("s", s), 0.0), self.length)
        forms = (self.offsets, self.offsets if self.narrow is None else self.narrow)
        if len(self.path) == 1:
            return np.repeat(self.path, len(self.offsets), axis=0)
        seg = self._segment(np.array([s]))[0]
        at = np.clip(s + forms[self.formation[seg]][:, 0], 0.0, self.length)
        segs = self._segment(at)
        lateral = np.where(self.formation[segs] == NARROW, forms[1][:, 1], forms[0][:, 1])
        a, b = self.path[segs], self.path[segs + 1]
        d = b - a
        size = np.hypot(d[:, 0], d[:, 1])
        u = d / size[:, None]
        t = (at - self._along[segs])[:, None]
        return a + u * t + lateral[:, None] * np.stack([-u[:, 1], u[:, 0]], axis=1)

    def _segment(self, s: np.ndarray) -> np.ndarray:
        """The segment holding each distance along the path (the earlier one at a corner)."""
        return np.clip(np.searchsorted(self._along, s, side="left") - 1, 0, len(self.path) - 2)


def swept_radius(offsets: ArrayLike, member_radius: float) -> float:
    """The half-width of the band a formation sweeps when its members follow a path: the
    largest sideways offset plus the members' radius.

    >>> swept_radius([[0.0, 1.0], [0.0, -1.5], [-1.0, 0.0]], 0.5)
    2.0
    """
    return float(np.abs(_offsets("offsets", offsets)[:, 1]).max()) + \
        positive_float("member_radius", member_radius)


def plan_group_path(world: Any, start: ArrayLike, goal: ArrayLike, *, offsets: ArrayLike,
                    member_radius: float, narrow: ArrayLike | None = None,
                    search: GridSearch | None = None) -> GroupPlan:
    """Plan for a group whose formation has slot ``offsets`` (``(n, 2)``, +x forward, +y
    left) and whose members have radius ``member_radius`` (world units), from ``start`` to
    ``goal`` (world points), in ``world``: a :class:`~wayfinding.grid.Grid` or a
    :class:`~wayfinding.navmesh.ClearanceMesh`.

    The group plans as a disc of its :func:`swept_radius`.  On a grid the disc is the
    square of ``k = ceil(2 radius / cell_size)`` cells an agent of ``agent_size`` k covers
    (:meth:`Grid.for_agent`), and the path runs between the centres of the squares
    nearest ``start`` and ``goal``; on a clearance mesh it is a path of clearance
    ``radius`` (:meth:`ClearanceMesh.find_path`) from ``start`` to ``goal``.  When the full
    formation finds no path and ``narrow`` (another formation of as many slots, e.g. a
    column) is given, the plan is the narrow formation's path, and each of its segments
    takes the full formation again where the full bulk clears it (on a grid: every cell
    under the bounding square of the bulk swept along the segment is free; on a mesh: the
    segment, split into pieces at most the full swept radius long, keeps that radius from
    every wall; the mesh draws the path's arcs as chords every
    :data:`~wayfinding.navmesh.clearance.ARC_STEP`, which cut a corner of radius ``rho`` by
    up to ``rho (1 - cos(ARC_STEP / 2))``).  On a grid the swept squares stay on free cells
    under the ``never`` and ``no_corner_cutting`` rules; the rules that let a diagonal step
    cut a corner let the bulk cut it too.  No path is ``found=False`` with its ``reason``.
    ``search``: a :class:`~wayfinding.grid.GridSearch` over the same grid to plan with (its
    node arrays are then reused from plan to plan; default: a new one)."""
    offs = _offsets("offsets", offsets)
    thin = None if narrow is None else _offsets("narrow", narrow)
    if thin is not None and len(thin) != len(offs):
        raise InvalidQueryError(f"narrow has {len(thin)} slots; offsets has {len(offs)}: "
                                "a narrower formation needs as many")
    r = positive_float("member_radius", member_radius)
    radius = swept_radius(offs, r)
    thin_radius = None if thin is None else swept_radius(thin, r)
    done: dict[str, Any] = {"radius": radius, "offsets": offs, "narrow": thin,
                            "narrow_radius": thin_radius}
    planner: Any
    if isinstance(world, Grid):
        if search is None:
            search = GridSearch(world)
        elif not isinstance(search, GridSearch) or search.grid is not world:
            raise InvalidQueryError("search must be a GridSearch over the grid planned on")
        planner = functools.partial(_grid_route, search)
    elif isinstance(world, ClearanceMesh):
        if search is not None:
            raise InvalidQueryError("search is for plans on a grid, not on a ClearanceMesh")
        planner = _mesh_route
    else:
        raise InvalidQueryError(f"world must be a Grid or a ClearanceMesh, got "
                                f"{type(world).__name__}")
    path, cost, reason = planner(world, start, goal, radius)
    if path is not None:
        return GroupPlan(path=path, formation=np.zeros(len(path) - 1, dtype=np.int8),
                         cost=cost, found=True, **done)
    if thin_radius is not None and thin_radius < radius:
        path, cost, why = planner(world, start, goal, thin_radius)
        if path is not None:
            if isinstance(world, Grid):
                wide = _grid_fits(world, path, radius)
            else:
                path = _subdivide(path, radius)
                wide = _mesh_fits(world, path, radius)
            return GroupPlan(path=path, formation=np.where(wide, BULK, NARROW).astype(np.int8),
                             cost=cost, found=True, **done)
        reason = f"{reason}; the narrow formation: {why}"
    return GroupPlan(path=np.empty((0, 2)), formation=np.empty(0, dtype=np.int8),
                     cost=math.inf, found=False, reason=reason, **done)


def _offsets(name: str, value: ArrayLike) -> np.ndarray:
    try:
        offs = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        offs = np.empty(0)
    if offs.ndim != 2 or offs.shape[1] != 2 or len(offs) == 0 or not np.isfinite(offs).all():
        raise InvalidQueryError(f"{name} must be a finite (n, 2) array of slot offsets with "
                                f"n >= 1, got {value!r:.80}")
    return offs


def _agent_size(grid: Grid, radius: float) -> int:
    """The side (cells) of the smallest square of cells that holds a disc of ``radius``."""
    return max(1, math.ceil(2.0 * radius / grid.cell_size - 1e-9))


def _grid_route(search: GridSearch, grid: Grid, start: ArrayLike, goal: ArrayLike,
                radius: float) -> tuple[np.ndarray | None, float, str]:
    """The path of square centres for a disc of ``radius`` (None and the reason when none)."""
    k = _agent_size(grid, radius)
    seen = grid.for_agent(k)
    origin, cs = np.asarray(grid.origin), grid.cell_size
    ends = []
    for name, point in (("start", start), ("goal", goal)):
        p = finite_point(name, point)
        cell = np.floor((p - origin) / cs - k / 2 + 0.5).astype(np.int64)
        h, w = grid.shape
        if not (0 <= cell[0] < w and 0 <= cell[1] < h) or not seen.passable[cell[1], cell[0]]:
            return None, math.inf, f"the bulk ({k} x {k} cells) does not fit at the {name}"
        ends.append((int(cell[0]), int(cell[1])))
    result = search.find_path(ends[0], ends[1], agent_size=k)
    if not result.found:
        return None, math.inf, f"no path for the bulk ({k} x {k} cells)"
    return origin + (result.path + k / 2) * cs, float(result.cost) * cs, ""


def _grid_fits(grid: Grid, path: np.ndarray, radius: float) -> np.ndarray:
    """Per segment of ``path``: whether every cell under the bounding square of a disc of
    ``radius`` swept along it is free (through the grid's square clearance)."""
    p = (path - np.asarray(grid.origin)) / grid.cell_size
    r = radius / grid.cell_size
    lo = np.floor(np.minimum(p[:-1], p[1:]) - r + 1e-9).astype(np.int64)
    hi = np.ceil(np.maximum(p[:-1], p[1:]) + r - 1e-9).astype(np.int64)
    side = (hi - lo).max(axis=1)
    h, w = grid.shape
    inside = (lo >= 0).all(1) & (lo[:, 0] + side <= w) & (lo[:, 1] + side <= h)
    clear = grid.clearance[np.clip(lo[:, 1], 0, h - 1), np.clip(lo[:, 0], 0, w - 1)]
    return inside & (clear >= side)


def _mesh_route(mesh: ClearanceMesh, start: ArrayLike, goal: ArrayLike, radius: float
                ) -> tuple[np.ndarray | None, float, str]:
    result = mesh.find_path(finite_point("start", start), finite_point("goal", goal), radius=radius)
    if not result.found:
        return None, math.inf, result.reason
    path = result.path
    keep = np.concatenate([[True], np.any(path[1:] != path[:-1], axis=1)])
    return path[keep], float(result.cost), ""


def _subdivide(path: np.ndarray, most: float) -> np.ndarray:
    """``path`` with every segment split evenly into pieces at most ``most`` long."""
    steps = np.diff(path, axis=0)
    parts = np.maximum(1, np.ceil(np.hypot(steps[:, 0], steps[:, 1]) / most)).astype(np.int64)
    seg = np.repeat(np.arange(len(steps)), parts)
    t = (np.arange(len(seg)) - np.repeat(np.cumsum(parts) - parts, parts)) / parts[seg]
    return np.concatenate([path[seg] + t[:, None] * steps[seg], path[-1:]])


def _mesh_fits(mesh: ClearanceMesh, path: np.ndarray, radius: float) -> np.ndarray:
    """Per segment of ``path``: whether it keeps ``radius`` from every wall of ``mesh``."""
    a, b = path[:-1], path[1:]
    wa, wb = mesh.vertices[mesh.walls[:, 0]], mesh.vertices[mesh.walls[:, 1]]
    near = np.full(len(a), math.inf)
    step = max(1, 1_000_000 // max(len(wa), 1))
    for i in range(0, len(a), step):
        near[i:i + step] = _gaps(a[i:i + step], b[i:i + step], wa, wb).min(
            axis=1, initial=math.inf)
    return near >= radius


def _gaps(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``(m, w)``: the distance between each segment ``a[i] b[i]`` and each ``c[j] d[j]``
    (0 where they cross, else the least distance from an end of one to the other)."""
    def side(o: np.ndarray, p: np.ndarray, x: np.ndarray) -> np.ndarray:
        u, v = (p - o)[:, None, :], x[None, :, :] - o[:, None, :]
        return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]

    crossing = (side(a, b, c) * side(a, b, d) < 0) & (side(c, d, a) * side(c, d, b) < 0).T
    near = np.minimum(np.minimum(segment_distances(c, d, a), segment_distances(c, d, b)).T,
                      np.minimum(segment_distances(a, b, c), segment_distances(a, b, d)))
    return np.where(crossing, 0.0, near)
