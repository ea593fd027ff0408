"""Hybrid A* for a car with a turning radius on a grid or a 2D navigation mesh: states are
continuous poses ``(x, y, heading)`` kept one per cell and heading bin; each expansion drives
six motion primitives (forward and reverse arcs turning left, straight and right, each a
cell's diagonal long); the Reeds–Shepp analytic expansion
(:func:`~wayfinding.paths.reeds_shepp_path`, or a forward-only word when reversing is off) is
tried every few expansions and ends the search when the car's rectangle stays clear along it.

The pose is the centre of the car's rectangle (``length`` along the heading, ``width``
across), and the turning radius bounds the curvature of the centre's path.  The rectangle is
tested at samples close enough that no point of the car moves more than an eighth of a cell
between two of them, each sample's rectangle grown by half that, so every tested path is
collision-free (a touch conservative): on a grid, exactly against each blocked cell's square
and the map's edge; on a navigation mesh, the centre must lie on the mesh and no wall edge
may cross the rectangle.

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

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import budget, count, finite_point, number, positive_float
from ..errors import InvalidQueryError
from ..grid import Grid, GridSearch
from ..navmesh import NavMesh
from ..paths.reeds_shepp import _advance, reeds_shepp_path
from ..paths.turning import turning_path
from ..results import SearchStats, Status, _fields_equal

_TAU = 2 * math.pi
#: Steering of the three primitives per gear: left, straight, right.
_STEERS = (1, 0, -1)


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


def _in_chunks(test: Callable[[np.ndarray], bool], poses: np.ndarray) -> bool:
    """Whether ``test`` holds for every chunk of 48 poses (bounded temporaries)."""
    return all(test(poses[i:i + 48]) for i in range(0, len(poses), 48))


class _Body:
    """The car's rectangle, sampled along its moves: ``cell`` the size of the search's
    cells (world units), ``step`` the sampling step along the path, ``half`` the grown
    rectangle's half length and half width."""

    def __init__(self, cell: float, length: float, width: float, radius: float):
        self.cell = cell
        reach = math.hypot(length, width) / 2     # the farthest point from the centre
        shift = cell / 8                          # the most any point moves between samples
        self.step = shift / (1 + reach / radius)
        self.half = np.array([length / 2 + shift / 2, width / 2 + shift / 2])
        self.inner = min(length, width) / 2       # the radius of the inscribed disk

    def boxes(self, poses: np.ndarray) -> tuple[np.ndarray, ...]:
        """Each pose's cos and sin, its rectangle's box half extents, and the corners of
        the box round them all: ``c, s, ex, ey, lo, hi``."""
        c, s = np.cos(poses[:, 2]), np.sin(poses[:, 2])
        a, b = self.half
        ex = np.abs(a * c) + np.abs(b * s)
        ey = np.abs(a * s) + np.abs(b * c)
        lo = np.array([(poses[:, 0] - ex).min(), (poses[:, 1] - ey).min()])
        hi = np.array([(poses[:, 0] + ex).max(), (poses[:, 1] + ey).max()])
        return c, s, ex, ey, lo, hi


class _GridBody(_Body):
    """The car's rectangle on a grid: clear of blocked cells and of the map's outside."""

    def __init__(self, grid: Grid, cell: float, length: float, width: float, radius: float):
        super().__init__(cell, length, width, radius)
        cs = grid.cell_size
        self.grid = grid
        self.origin = np.asarray(grid.origin, dtype=np.float64)
        self.cs = cs
        self.blocked = ~grid.passable
        h, w = grid.shape
        self.hi = self.origin + cs * np.array([w, h], dtype=np.float64)
        far = (grid.obstacle_distance - math.sqrt(2)) * cs
        self.near = far <= math.hypot(*self.half)
        self.distances = np.empty(0)

    def aim(self, goal: np.ndarray) -> None:
        """Measure the distances to ``goal`` over the cells where the car's inscribed disk
        may stand (8-connected, corners cut)."""
        grid, cs = self.grid, self.cs
        room = grid.obstacle_distance * cs + cs / math.sqrt(2) >= self.inner
        stand = Grid(np.where(room & grid.passable, 1.0, np.inf), diagonal="always")
        self.distances = GridSearch(stand).distance_map([grid.world_to_cell(goal[:2])]) * cs

    def holonomic(self, pose: np.ndarray) -> float:
        """The distance from ``pose``'s cell to the goal's over those cells."""
        x, y = self.grid.world_to_cell(pose[:2])
        return float(self.distances[y, x])

    def clear(self, poses: np.ndarray) -> bool:
        """Whether the (grown) rectangle at every pose ``(m, 3)`` is clear."""
        cells = np.floor((poses[:, :2] - self.origin) / self.cs).astype(np.int64)
        h, w = self.blocked.shape
        if ((cells < 0) | (cells >= (w, h))).any():
            return False
        # A blocked cell (or the map's outside) is at least (distance - sqrt 2) cells from any
        # point of a cell whose centre is ``distance`` from the blocked cells' centres.
        return _in_chunks(self._clear, poses[self.near[cells[:, 1], cells[:, 0]]])

    def _clear(self, poses: np.ndarray) -> bool:
        c, s, ex, ey, lo, hi = self.boxes(poses)
        a, b = self.half
        if (lo < self.origin).any() or (hi > self.hi).any():
            return False
        x0, y0 = np.floor((lo - self.origin) / self.cs).astype(int)
        x1, y1 = np.floor((hi - self.origin) / self.cs).astype(int)
        ys, xs = np.nonzero(self.blocked[y0:y1 + 1, x0:x1 + 1])
        if not len(xs):
            return True
        half_cell = self.cs / 2
        cx = self.origin[0] + (xs + x0 + 0.5) * self.cs
        cy = self.origin[1] + (ys + y0 + 0.5) * self.cs
        dx = cx[None, :] - poses[:, 0, None]
        dy = cy[None, :] - poses[:, 1, None]
        c, s, ex, ey = c[:, None], s[:, None], ex[:, None], ey[:, None]
        spread = half_cell * (np.abs(c) + np.abs(s))   # a cell's half extent on u and on v
        hit = ((np.abs(dx) < half_cell + ex) & (np.abs(dy) < half_cell + ey)
               & (np.abs(dx * c + dy * s) < a + spread)
               & (np.abs(dy * c - dx * s) < b + spread))
        return not bool(hit.any())


class _MeshBody(_Body):
    """The car's rectangle on a navigation mesh: its centre on the mesh and no wall edge
    crossing it."""

    def __init__(self, mesh: NavMesh, cell: float, length: float, width: float,
                 radius: float):
        super().__init__(cell, length, width, radius)
        self.mesh = mesh
        loops = mesh.boundary()
        self.a = np.concatenate(loops) if loops else np.empty((0, 2))
        self.b = np.concatenate([np.roll(v, -1, axis=0) for v in loops]) if loops \
            else np.empty((0, 2))
        d = self.b - self.a
        self.normal = np.column_stack([-d[:, 1], d[:, 0]]) / np.hypot(d[:, 0], d[:, 1])[:, None]
        self.lo = np.minimum(self.a, self.b)
        self.hi = np.maximum(self.a, self.b)
        self.goal = np.zeros(2)

    def aim(self, goal: np.ndarray) -> None:
        """Measure the distances to ``goal``."""
        self.goal = goal[:2]

    def holonomic(self, pose: np.ndarray) -> float:
        """The shortest path of a point on the mesh (its straight path's length)."""
        r = self.mesh.find_path(pose[:2], self.goal)
        return float(r.cost) if r.found else math.inf

    def clear(self, poses: np.ndarray) -> bool:
        """Whether the (grown) rectangle at every pose ``(m, 3)`` is clear."""
        if (self.mesh.locate_many(poses[:, :2]) < 0).any():
            return False
        return _in_chunks(self._clear, poses)

    def _clear(self, poses: np.ndarray) -> bool:
        c, s, ex, ey, lo, hi = self.boxes(poses)
        a, b = self.half
        near = np.nonzero((self.hi > lo).all(1) & (self.lo < hi).all(1))[0]
        if not len(near):
            return True
        pa, pb, n = self.a[near], self.b[near], self.normal[near]
        c, s = c[:, None], s[:, None]
        x, y = poses[:, 0, None], poses[:, 1, None]

        def apart(ux: np.ndarray, uy: np.ndarray, half: float) -> np.ndarray:
            """Whether the wall lies wholly beyond ``half`` along the rectangle's axis."""
            ta = (pa[:, 0] - x) * ux + (pa[:, 1] - y) * uy
            tb = (pb[:, 0] - x) * ux + (pb[:, 1] - y) * uy
            return (np.minimum(ta, tb) >= half) | (np.maximum(ta, tb) <= -half)

        across = np.abs((x - pa[:, 0]) * n[:, 0] + (y - pa[:, 1]) * n[:, 1]) >= (
            a * np.abs(c * n[:, 0] + s * n[:, 1]) + b * np.abs(c * n[:, 1] - s * n[:, 0]))
        return bool((apart(c, s, a) | apart(-s, c, b) | across).all())


def plan_car_path(world: Grid | NavMesh, start_pose: Any, goal_pose: Any, *,
                  turning_radius: float, length: float, width: float, reverse: bool = True,
                  reverse_cost: float = 1.0, cell_size: float | None = None,
                  heading_bins: int = 72, expansion_every: int = 5,
                  max_expansions: int | None = 200_000) -> CarPath:
    """Plan a drivable, collision-free path for a car from ``start_pose`` to ``goal_pose``
    (each ``(x, y, heading)``: world units, heading in radians counter-clockwise from +x)
    by hybrid A*, on a :class:`~wayfinding.grid.Grid` (its blocked cells and the outside
    of the map are obstacles) or a :class:`~wayfinding.navmesh.NavMesh` (the car's centre
    stays on the mesh and its rectangle inside the mesh's walls; areas and off-mesh links
    are not used).

    ``turning_radius`` (world units, > 0): the tightest turn of the car's centre;
    ``length``, ``width`` (world units, > 0): the car's rectangle, centred on the pose;
    ``reverse``: whether the car may back up, each reversed unit costing ``reverse_cost``
    (>= 1, default 1) — with ``reverse=False`` the analytic expansion takes only forward
    Reeds–Shepp words and the heuristic the Dubins length; ``cell_size`` (world units,
    > 0): the side of the search's cells, primitives being a cell's diagonal long and
    collision samples an eighth of a cell apart (default: the grid's cell size; on a
    navigation mesh, the car's width); ``heading_bins`` (>= 4, default 72): the heading
    resolution of the closed set; ``expansion_every`` (>= 1, default 5): the analytic
    expansion is tried on the start and every this many expansions; ``max_expansions``: a
    budget (``None``: none), after which the status is ``OUT_OF_BUDGET``.

    The heuristic is the larger of the obstacle-free Reeds–Shepp (or Dubins) length and a
    holonomic distance: on a grid, over the cells where the car's inscribed disk may stand
    (8-connected); on a mesh, a point's shortest path.  Where the holonomic distance is
    infinite the goal is unreachable and the search fails without expanding.  Not optimal:
    states are binned and primitives discrete.  Raises
    :class:`~wayfinding.errors.InvalidQueryError` for a bad option or a start or goal
    where the car does not fit."""
    if not isinstance(world, (Grid, NavMesh)):
        raise InvalidQueryError(f"world {type(world).__name__} must be a Grid or a NavMesh")
    start = finite_point("start_pose", start_pose, 3)
    goal = finite_point("goal_pose", goal_pose, 3)
    radius = positive_float("turning_radius", turning_radius)
    car_length = positive_float("length", length)
    car_width = positive_float("width", width)
    if not isinstance(reverse, bool):
        raise InvalidQueryError(f"reverse {reverse!r} must be True or False")
    back_cost = number("reverse_cost", reverse_cost, min=1.0)
    if cell_size is not None:
        cell = positive_float("cell_size", cell_size)
    else:
        cell = world.cell_size if isinstance(world, Grid) else car_width
    bins = count("heading_bins", heading_bins, min=4, max=1 << 16)
    every = count("expansion_every", expansion_every)
    limit = budget("max_expansions", max_expansions)
    body: _GridBody | _MeshBody
    if isinstance(world, Grid):
        body = _GridBody(world, cell, car_length, car_width, radius)
    else:
        body = _MeshBody(world, cell, car_length, car_width, radius)
    for name, pose in (("start_pose", start), ("goal_pose", goal)):
        if not body.clear(pose[None]):
            raise InvalidQueryError(f"{name} {pose.tolist()} puts the car on an obstacle "
                                    "or off the map")
    body.aim(goal)
    return _Search(body, start, goal, radius, reverse, back_cost, bins, every, limit).run()


class _Search:
    """One hybrid A* query's state."""

    def __init__(self, body: _GridBody | _MeshBody, start: np.ndarray, goal: np.ndarray,
                 radius: float, reverse: bool, back_cost: float, bins: int, every: int,
                 limit: int | None):
        self.body, self.start, self.goal = body, start, goal
        self.radius, self.reverse, self.back_cost = radius, reverse, back_cost
        self.bins, self.every, self.limit = bins, every, limit
        self.goal_dir = (math.cos(goal[2]), math.sin(goal[2]))
        self.spans = [body.cell * math.sqrt(2) * g for g in ((1, -1) if reverse else (1,))]

    def _key(self, pose: np.ndarray) -> tuple[int, int, int]:
        cell = self.body.cell
        return (math.floor(pose[0] / cell), math.floor(pose[1] / cell),
                int(pose[2] % _TAU / _TAU * self.bins) % self.bins)

    def _heuristic(self, pose: np.ndarray) -> float:
        direction = (math.cos(pose[2]), math.sin(pose[2]))
        if self.reverse:
            free = reeds_shepp_path(pose[:2], direction, self.goal[:2], self.goal_dir,
                                    self.radius).length
        else:
            free = turning_path(pose[:2], direction, self.goal[:2], self.goal_dir,
                                self.radius).length
        return max(self.body.holonomic(pose), free)

    def _drive(self, pose: np.ndarray, kappa: float, span: float) -> np.ndarray:
        """Samples ``(k, 3)`` after ``pose`` (excluded) driving ``span`` (signed) with
        curvature ``kappa``."""
        k = max(int(math.ceil(abs(span) / self.body.step)), 1)
        return _advance(float(pose[0]), float(pose[1]), float(pose[2]), kappa,
                        span * np.arange(1, k + 1) / k)

    def _expansion(self, pose: np.ndarray) -> tuple[list[np.ndarray], list[float]] | None:
        """The analytic expansion's samples per segment and signed segment lengths, if the
        car stays clear along it."""
        direction = (math.cos(pose[2]), math.sin(pose[2]))
        rs = reeds_shepp_path(pose[:2], direction, self.goal[:2], self.goal_dir,
                              self.radius)
        if not self.reverse and "-" in rs.word:
            return None
        parts, spans = [], []
        for letter, s in zip(rs.word[::2], rs.segments):
            if s == 0:
                continue
            part = self._drive(pose, {"L": 1, "R": -1, "S": 0}[letter] / self.radius, s)
            if not self.body.clear(part):
                return None
            parts.append(part)
            spans.append(s)
            pose = part[-1]
        return parts, spans

    def run(self) -> CarPath:
        """Search until the analytic expansion reaches the goal, the open list empties or
        the budget is spent."""
        t0 = time.perf_counter()
        stats = SearchStats()
        start = self.start
        if not math.isfinite(self.body.holonomic(start)):
            stats.elapsed = time.perf_counter() - t0
            return _failed(Status.FAILED, stats)
        # per node: pose, g, parent, arriving samples, signed span
        poses, gs, parents = [start], [0.0], [-1]
        samples: list[np.ndarray] = [start[None]]
        spans: list[float] = [0.0]
        best = {self._key(start): 0}
        closed: set[tuple[int, int, int]] = set()
        heap = [(self._heuristic(start), 0, 0)]
        stats.generated = 1
        tie = 1
        while heap:
            stats.max_open = max(stats.max_open, len(heap))
            _, _, i = heapq.heappop(heap)
            pose = poses[i]
            key = self._key(pose)
            if key in closed or best.get(key) != i:
                continue
            if self.limit is not None and stats.expanded >= self.limit:
                stats.elapsed = time.perf_counter() - t0
                return _failed(Status.OUT_OF_BUDGET, stats)
            closed.add(key)
            stats.expanded += 1
            if (stats.expanded - 1) % self.every == 0:
                tail = self._expansion(pose)
                if tail is not None:
                    stats.elapsed = time.perf_counter() - t0
                    return self._result(i, parents, samples, spans, tail, stats)
            for span in self.spans:
                weight = abs(span) * (self.back_cost if span < 0 else 1.0)
                for steer in _STEERS:
                    part = self._drive(pose, steer / self.radius, span)
                    if not self.body.clear(part):
                        continue
                    end = part[-1]
                    k2 = self._key(end)
                    if k2 in closed:
                        continue
                    g = gs[i] + weight
                    j = best.get(k2)
                    if j is not None and gs[j] <= g:
                        continue
                    h = self._heuristic(end)
                    if not math.isfinite(h):
                        continue
                    j = len(poses)
                    poses.append(end)
                    gs.append(g)
                    parents.append(i)
                    samples.append(part)
                    spans.append(span)
                    best[k2] = j
                    heapq.heappush(heap, (g + h, tie, j))
                    tie += 1
                    stats.generated += 1
        stats.elapsed = time.perf_counter() - t0
        return _failed(Status.FAILED, stats)

    def _result(self, i: int, parents: list[int], samples: list[np.ndarray],
                spans: list[float], tail: tuple[list[np.ndarray], list[float]],
                stats: SearchStats) -> CarPath:
        """The record of the path to node ``i`` followed by the analytic expansion
        ``tail``."""
        chain = []
        while i >= 0:
            chain.append(i)
            i = parents[i]
        chain.reverse()
        parts = [samples[j] for j in chain] + tail[0]
        signed = [spans[j] for j in chain[1:]] + tail[1]
        gears = [np.full(len(samples[chain[0]]), 0, dtype=np.int8)]
        gears += [np.full(len(p), 1 if s > 0 else -1, dtype=np.int8)
                  for p, s in zip(parts[1:], signed)]
        gear = np.concatenate(gears)
        gear[0] = gear[1] if len(gear) > 1 else 1
        length = float(sum(abs(s) for s in signed))
        cost = float(sum(abs(s) * (self.back_cost if s < 0 else 1.0) for s in signed))
        return CarPath(np.concatenate(parts), gear, length, cost, True, Status.FOUND, stats)


def _failed(status: Status, stats: SearchStats) -> CarPath:
    """The record of a search that found no path."""
    return CarPath(np.empty((0, 3)), np.empty(0, dtype=np.int8), math.inf, math.inf, False,
                   status, stats)
