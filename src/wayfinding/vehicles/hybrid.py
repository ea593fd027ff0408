"""Hybrid A* for a car with a turning radius on a grid or a 2D navigation mesh: states are
continuous poses ``(x, y, heading)`` kept one per cell and heading bin; each expansion drives
six motion primitives (forward and reverse arcs turning left, straight and right, each a
cell's diagonal long); the analytic expansion, the shortest obstacle-free word to the goal
(:func:`~wayfinding.paths.reeds_shepp_path`, or :func:`~wayfinding.paths.turning_path`'s
Dubins word when reversing is off), is tried every few expansions and ends the search when
the car's rectangle stays clear along it.

The pose is the centre of the car's rectangle (``length`` along the heading, ``width``
across), and the turning radius bounds the curvature of the centre's path.  The rectangle is
tested at samples close enough that no point of the car moves more than an eighth of a cell
between two of them, each sample's rectangle grown by half that, so every tested path is
collision-free (a touch conservative): on a grid, exactly against each blocked cell's square
and the map's edge; on a navigation mesh, the centre must lie on the mesh and no wall edge
may cross the rectangle.

The search runs in a compiled kernel (``wayfinding._kernels._hybrid``) without the GIL, so
plans can run on threads; on a navigation mesh it takes the GIL back for each holonomic
distance (a mesh path query).  Open nodes pop by f, ties to the first pushed, so the same
inputs give the same path.

>>> from wayfinding.grid import Grid
>>> open_field = Grid(np.ones((20, 30), dtype=bool))
>>> r = plan_car_path(open_field, (5, 10, 0), (25, 10, 0), turning_radius=3, length=2,
...                   width=1)
>>> r.found, round(r.length, 6), r.poses[-1].round(6).tolist()
(True, 20.0, [25.0, 10.0, 0.0])
>>> plan_car_path(open_field, (5, 10, 0), (25, 10, 0), turning_radius=3, length=2,
...               width=1, max_expansions=0).status
Status.OUT_OF_BUDGET
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels import _hybrid
from .._validate import allocation, budget, count, finite_point, flag, number, positive_float
from ..errors import InvalidQueryError
from ..grid import Grid, GridSearch
from ..navmesh import NavMesh
from ..paths import reeds_shepp_path
from ..results import SearchStats, Status, _fields_equal

#: The kernel's outcomes.
_STATUS = {_hybrid.FOUND: Status.FOUND, _hybrid.FAILED: Status.FAILED,
           _hybrid.OUT_OF_BUDGET: Status.OUT_OF_BUDGET}


@dataclass(frozen=True)
class CarPath:
    """A car's planned path: ``poses`` ``(n, 3)`` float64 ``(x, y, heading)`` (world units,
    heading in radians counter-clockwise from +x, unwrapped so it is continuous), sampled
    finely along the path; ``gears`` ``(n,)`` int8: +1 where the car drives forward into
    that sample, -1 in reverse (the first sample takes the gear of the second); ``length``:
    the distance the car's centre drives (arc lengths, both gears); ``cost``: the length with
    reverse driving weighted by ``reverse_cost``; ``found``/``status`` as for
    :class:`~wayfinding.results.PathResult` (empty poses and ``inf`` when not found);
    ``stats``: the search's counters."""

    poses: np.ndarray
    gears: np.ndarray
    length: float
    cost: float
    found: bool
    status: Status
    stats: SearchStats

    __eq__ = _fields_equal

    @property
    def cusps(self) -> int:
        """The number of changes of gear (forward to reverse or back) along the path."""
        return int(np.count_nonzero(np.diff(self.gears)))


def car_path_bounds(grid: Grid, start_pose: Any, goal_pose: Any, *, turning_radius: float,
                    width: float) -> tuple[float, float]:
    """Two lower bounds on the length of a car's path on ``grid`` from ``start_pose`` to
    ``goal_pose`` (each ``(x, y, heading)``: world units, heading in radians): the
    obstacle-free Reeds–Shepp length for ``turning_radius`` (world units, > 0), and the
    holonomic optimum: the length of the shortest 8-connected path (no corner cutting)
    between the poses' cells over the cells whose centre lies at least ``width / 2`` (world
    units, > 0) from every blocked cell's centre, ``inf`` when either cell is off the map or
    not among them, or no such path exists.  The holonomic optimum is a cell path's length,
    so a car's path may be a little shorter.  Returns ``(reeds_shepp, holonomic)`` in world
    units.  Raises :class:`~wayfinding.errors.InvalidQueryError` for a bad argument.

    Turning round on the spot in an open field: three arcs of radius 3 whose lengths add up
    to 3 pi, and a holonomic optimum of zero:

    >>> from wayfinding.grid import Grid
    >>> field = Grid(np.ones((20, 30), dtype=bool))
    >>> rs, holonomic = car_path_bounds(field, (5, 10, 0), (5, 10, math.pi), turning_radius=3,
    ...                                 width=1)
    >>> round(rs, 4), holonomic
    (9.4248, 0.0)
    """
    if not isinstance(grid, Grid):
        raise InvalidQueryError(f"grid {type(grid).__name__} must be a Grid")
    a = finite_point("start_pose", start_pose, 3)
    b = finite_point("goal_pose", goal_pose, 3)
    r = positive_float("turning_radius", turning_radius)
    half = positive_float("width", width) / 2
    rs = reeds_shepp_path(a[:2], (math.cos(a[2]), math.sin(a[2])), b[:2],
                          (math.cos(b[2]), math.sin(b[2])), r).length
    clear = Grid(np.where(grid.obstacle_distance * grid.cell_size >= half, 1.0, np.inf))
    ends = [grid.world_to_cell(p[:2]) for p in (a, b)]
    if not all(clear.in_bounds(c) and clear.passable[c[1], c[0]] for c in ends):
        return rs, math.inf
    return rs, float(GridSearch(clear).find_path(*ends).cost) * grid.cell_size


def plan_car_path(world: Grid | NavMesh, start_pose: Any, goal_pose: Any, *,
                  turning_radius: float, length: float, width: float, reverse: bool = True,
                  reverse_cost: float = 1.0, cell_size: float | None = None,
                  heading_bins: int = 72, expansion_every: int = 5,
                  max_expansions: int | None = 200_000) -> CarPath:
    """Plan a drivable, collision-free path for a car from ``start_pose`` to ``goal_pose``
    (each ``(x, y, heading)``: world units, heading in radians counter-clockwise from +x;
    the path's headings start from the start's taken in ``[-pi, pi]``, as
    :func:`math.remainder` takes it) by hybrid A*, on a :class:`~wayfinding.grid.Grid`
    (its blocked cells and the outside of the map are obstacles) or a
    :class:`~wayfinding.navmesh.NavMesh` (the car's centre stays on the mesh and its
    rectangle inside the mesh's walls; areas and off-mesh links are not used).

    ``turning_radius`` (world units, > 0): the tightest turn of the car's centre;
    ``length``, ``width`` (world units, > 0): the car's rectangle, centred on the pose;
    ``reverse``: whether the car may back up, each reversed unit costing ``reverse_cost``
    (>= 1, default 1) — with ``reverse=False`` the analytic expansion drives the Dubins
    word and the heuristic takes the Dubins length; ``cell_size`` (world units, > 0): the
    side of the search's cells, primitives being a cell's diagonal long and collision
    samples an eighth of a cell apart (default: the grid's cell size; on a navigation mesh,
    the car's width); ``heading_bins`` (>= 4, default 72): the heading resolution of the
    closed set; ``expansion_every`` (>= 1, default 5): the analytic expansion is tried on
    the start and every this many expansions; ``max_expansions``: a budget (``None``:
    none), after which the status is ``OUT_OF_BUDGET``.

    The heuristic is the larger of the obstacle-free Reeds–Shepp (or Dubins) length and a
    holonomic distance: on a grid, over the cells where the car's inscribed disk may stand
    (8-connected); on a mesh, a point's shortest path.  Where the holonomic distance is
    infinite the goal is unreachable and the search fails without expanding.  Not optimal:
    states are binned and primitives discrete.  ``stats.elapsed`` times the search alone,
    after the set-up (the car's rectangle on the world, the holonomic distances).  Raises
    :class:`~wayfinding.errors.InvalidQueryError` for a bad option or a start or goal
    where the car does not fit, a ``cell_size`` so small that the world spans more than
    2**23 cells either side of 0, or a ``turning_radius`` so small beside the car (or a
    ``cell_size`` so small) that a move across the world would take more samples than a
    build may allocate (:data:`wayfinding._validate.MAX_CELLS`).  A move longer than pi
    times the world's diagonal cannot stay on it and is not sampled."""
    if not isinstance(world, (Grid, NavMesh)):
        raise InvalidQueryError(f"world {type(world).__name__} must be a Grid or a NavMesh")
    start = finite_point("start_pose", start_pose, 3)
    # The headings driven are the start's taken in [-pi, pi]: turns are lost to rounding
    # on a heading of a million radians or more.
    start = np.array([start[0], start[1], math.remainder(start[2], math.tau)])
    goal = finite_point("goal_pose", goal_pose, 3)
    radius = positive_float("turning_radius", turning_radius)
    car_length = positive_float("length", length)
    car_width = positive_float("width", width)
    reverse = flag("reverse", reverse)
    back_cost = number("reverse_cost", reverse_cost, min=1.0)
    if cell_size is not None:
        cell = positive_float("cell_size", cell_size)
    else:
        cell = world.cell_size if isinstance(world, Grid) else car_width
    if isinstance(world, Grid):
        corner = np.asarray(world.origin)
        corners = np.array([corner, corner + world.cell_size * np.array(world.shape[::-1])])
    else:
        corners = world.vertices
    if corners.size and float(np.abs(corners).max()) / cell >= _hybrid.KEY_RANGE:
        raise InvalidQueryError(f"cell_size {cell!r} is too small for this world: the search "
                                f"takes at most {_hybrid.KEY_RANGE} cells either side of 0")
    if corners.size:
        # The longest move that may stay on the world (see _hybrid.Body) and its samples.
        span = np.ptp(corners, axis=0)
        step = _sampling(cell, car_length, car_width, radius)[0]
        allocation(f"a car {car_length!r} x {car_width!r} turning no tighter than "
                   f"turning_radius {radius!r}, sampled for cell_size {cell!r} "
                   f"({step:.3g} apart) along a move across the world",
                   math.pi * math.hypot(*span) / step if step > 0 else math.inf)
    bins = count("heading_bins", heading_bins, min=4, max=1 << 16)
    every = count("expansion_every", expansion_every)
    limit = budget("max_expansions", max_expansions)
    body: _hybrid.Body
    if isinstance(world, Grid):
        body = grid_body = _grid_body(world, cell, car_length, car_width, radius)
        _check_poses(body, start, goal)
        grid_body.aim(_grid_distances(world, goal, min(car_length, car_width) / 2))
    else:
        body = mesh_body = _mesh_body(world, cell, car_length, car_width, radius)
        _check_poses(body, start, goal)
        mesh_body.aim(_mesh_distance(world, goal))
    t0 = time.perf_counter()
    status, poses, gears, path_length, cost, expanded, generated, max_open = _hybrid.plan(
        body, start, goal, radius=radius, reverse=reverse, back_cost=back_cost, cell=cell,
        bins=bins, every=every, limit=-1 if limit is None or limit >= 1 << 63 else limit)
    stats = SearchStats(expanded=expanded, generated=generated, max_open=max_open,
                        elapsed=time.perf_counter() - t0)
    return CarPath(poses, gears, path_length, cost, status == _hybrid.FOUND, _STATUS[status],
                   stats)


def _check_poses(body: _hybrid.Body, start: np.ndarray, goal: np.ndarray) -> None:
    """Refuse a start or goal where the car's rectangle is not clear."""
    for name, pose in (("start_pose", start), ("goal_pose", goal)):
        if not body.clear(pose[None]):
            raise InvalidQueryError(f"{name} {pose.tolist()} puts the car on an obstacle "
                                    "or off the map")


def _sampling(cell: float, length: float, width: float, radius: float
              ) -> tuple[float, float, float]:
    """The sampling step along moves and the grown rectangle's half length and half width:
    no point of the car moves more than an eighth of a cell between samples, and each
    sample's rectangle is grown by half that."""
    reach = math.hypot(length, width) / 2     # the farthest point from the centre
    shift = cell / 8
    return shift / (1 + reach / radius), length / 2 + shift / 2, width / 2 + shift / 2


def _grid_body(grid: Grid, cell: float, length: float, width: float,
               radius: float) -> _hybrid.GridBody:
    """The car's rectangle on a grid: clear of blocked cells and of the map's outside."""
    step, a, b = _sampling(cell, length, width, radius)
    cs = grid.cell_size
    # A blocked cell (or the map's outside) is at least (distance - sqrt 2) cells from any
    # point of a cell whose centre is ``distance`` from the blocked cells' centres.
    near = (grid.obstacle_distance - math.sqrt(2)) * cs <= math.hypot(a, b)
    return _hybrid.GridBody(np.ascontiguousarray(~grid.passable, dtype=np.uint8),
                            np.ascontiguousarray(near, dtype=np.uint8), *grid.origin, cs, a,
                            b, step)


def _grid_distances(grid: Grid, goal: np.ndarray, inner: float) -> np.ndarray:
    """The distances ``(h, w)`` float64 to ``goal`` over the cells where the car's
    inscribed disk (radius ``inner``) may stand (8-connected, corners cut)."""
    cs = grid.cell_size
    room = grid.obstacle_distance * cs + cs / math.sqrt(2) >= inner
    stand = Grid(np.where(room & grid.passable, 1.0, np.inf), diagonal="always")
    distances = GridSearch(stand).distance_map([grid.world_to_cell(goal[:2])]) * cs
    return np.ascontiguousarray(distances, dtype=np.float64)


def _mesh_body(mesh: NavMesh, cell: float, length: float, width: float,
               radius: float) -> _hybrid.MeshBody:
    """The car's rectangle on a navigation mesh: its centre on the mesh and no wall edge
    crossing it."""
    step, a, b = _sampling(cell, length, width, radius)
    loops = mesh.boundary()
    start = np.concatenate(loops) if loops else np.empty((0, 2))
    end = np.concatenate([np.roll(v, -1, axis=0) for v in loops]) if loops \
        else np.empty((0, 2))
    d = end - start
    normals = np.column_stack([-d[:, 1], d[:, 0]]) / np.hypot(d[:, 0], d[:, 1])[:, None]
    return _hybrid.MeshBody(mesh.vertices, mesh.polygons, mesh.sizes, *mesh._buckets,
                            np.ascontiguousarray(start), np.ascontiguousarray(end),
                            np.ascontiguousarray(normals), a, b, step)


def _mesh_distance(mesh: NavMesh, goal: np.ndarray) -> Callable[[float, float], float]:
    """The shortest path of a point on the mesh to ``goal`` (its straight path's length),
    from ``(x, y)``."""
    target = goal[:2].copy()

    def distance(x: float, y: float) -> float:
        r = mesh.find_path((x, y), target)
        return float(r.cost) if r.found else math.inf
    return distance
