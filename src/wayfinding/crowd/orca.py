"""Optimal reciprocal collision avoidance (ORCA; van den Berg, Guy, Lin and Manocha), with
the semantics of RVO2: each agent keeps clear of the obstacle edges it faces for
``time_horizon_obst`` seconds (all of the change its own), and takes half of the velocity
change that keeps it clear of each of its nearest neighbours for ``time_horizon`` seconds
(one time step for neighbours it already overlaps); then it takes the velocity nearest its
preferred one that the half-planes allow within its top speed, or, when they allow none,
the one that violates the worst agent half-plane least while keeping the obstacle ones.
The obstacle edges are those of RVO2's obstacle tree: built once, it splits each edge that
crosses the line of an edge above it (a new convex vertex at the crossing), and each agent
takes the edges it faces nearest first, equal distances in the order the tree visits them.
The solver runs in ``_kernels/_orca.pyx``, in double precision where RVO2 uses single, so
the two differ where rounding decides: half-planes meeting in a single point (they meet
here when they miss by less than 1e-9 of the top speed), edges at nearly equal distances,
and RVO2's splits a hair from an edge's end.  Agents come from a
:class:`~wayfinding.crowd.Crowd`.

>>> from wayfinding.crowd import Crowd
>>> crowd = Crowd()
>>> a = crowd.add((-5.0, 0.0), goal=(5.0, 0.0), radius=0.5, max_speed=1.0)
>>> b = crowd.add((5.0, 0.2), goal=(-5.0, 0.2), radius=0.5, max_speed=1.0)   # nearly head on
>>> orca = ORCA(time_horizon=5.0)
>>> closest = 10.0
>>> for _ in range(200):
...     orca.step(crowd, 0.1)
...     closest = min(closest, float(np.hypot(*(crowd.position[0] - crowd.position[1]))))
>>> closest >= 1.0 - 1e-6, crowd.position_of(a).round(2).tolist()     # passed, arrived
(True, [5.0, 0.0])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._kernels import _orca
from .._validate import count, positive_float, reals
from ..errors import InvalidQueryError, brief
from ..geometry import Obstacles
from ..geometry.obstacles import MAX_EXTENT
from ..grid import Grid
from ..navmesh import NavMesh
from .agents import Crowd

#: The obstacles as the kernel takes them (``_orca.obstacle_tree``), all None and root -1
#: for none.
_Walls = tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None, np.ndarray | None,
               np.ndarray | None, np.ndarray | None, np.ndarray | None, int]


class ORCA:
    """ORCA among a crowd's agents and static obstacles.

    ``time_horizon`` and ``time_horizon_obst`` (s): how long a chosen velocity must stay
    clear of other agents and of obstacles; ``neighbour_dist`` and ``max_neighbours``: the
    agents each agent considers (the nearest within that distance; ``None`` takes the
    crowd's; ``max_neighbours=0``, as in RVO2, keeps clear of the obstacles only).
    ``obstacles``: polygons as RVO2 takes them, each an ``(m, 2)`` array of vertices,
    counter-clockwise for a solid obstacle (clockwise for one that keeps agents inside), two
    vertices for a segment; or a :class:`~wayfinding.geometry.Obstacles`; or a
    :class:`~wayfinding.grid.Grid`, whose blocked cells are obstacles and whose edge
    keeps agents inside (world coordinates by its origin and cell size); or a
    :class:`~wayfinding.navmesh.NavMesh`, whose walls keep agents on it (build it without
    the agents' radius: ORCA keeps each agent's own radius clear of the walls); ``None``
    (default): none, until a :class:`~wayfinding.crowd.Navigator` gives it the walls of
    the world its agents plan on (``()``: none even then).  Every agent
    considers every edge it faces within ``time_horizon_obst * max_speed + radius``, found
    through the obstacle tree (built here, once: RVO2's, splitting the edges that cross the
    lines of others; about 0.5 s for 10,000 edges and 10 s for 50,000, RVO2's own taking
    ten times as long).  :meth:`set_agent` gives one agent its own neighbour distance,
    neighbour count and time horizons.
    """

    def __init__(self, *, time_horizon: float = 10.0, time_horizon_obst: float = 10.0,
                 neighbour_dist: float | None = None, max_neighbours: int | None = None,
                 obstacles: Any = None):
        self.time_horizon = positive_float("time_horizon", time_horizon)
        self.time_horizon_obst = positive_float("time_horizon_obst", time_horizon_obst)
        self.neighbour_dist = None if neighbour_dist is None \
            else positive_float("neighbour_dist", neighbour_dist)
        self.max_neighbours = None if max_neighbours is None \
            else count("max_neighbours", max_neighbours, min=0)
        self.obstacles = None
        self._walls = _walls(())
        if obstacles is not None:
            self.set_obstacles(obstacles)
        self._agents: dict[int, tuple] = {}

    def set_obstacles(self, obstacles: Any) -> None:
        """Keep clear of ``obstacles`` (as the constructor takes them) from now on,
        instead of those given before."""
        self._walls = _walls(_polygons(obstacles))
        self.obstacles = obstacles

    @positional_options("preferred")
    def velocities(self, crowd: Crowd, dt: float, *, preferred: ArrayLike | None = None,
                   neighbours: Any = None, walls: Any = None,
                   wall_radius: ArrayLike | None = None) -> np.ndarray:
        """Every agent's new velocity (``(n, 2)``) for a step of ``dt`` seconds, from the
        state at its start; ``preferred`` defaults to :meth:`Crowd.preferred_velocity`.

        ``neighbours``: each agent's neighbours as :meth:`Crowd.neighbours` gives them,
        ``(rows, counts)``: ``rows`` ``(n, k)`` int rows of the crowd, nearest first, -1
        past ``counts`` ``(n,)`` (default: the crowd's nearest within the neighbour
        distance; a navigator on storeys gives those on each agent's own), cut to each
        agent's ``max_neighbours``.  ``walls``: each agent's own wall segments instead of
        the obstacles (a navmesh's local boundary), ``(ptr, segments)``: agent i's are
        ``segments[ptr[i]:ptr[i + 1]]``, ``(m, 2, 2)`` float64 (two ends, x and y), each
        kept clear of from both sides, those it faces within ``time_horizon_obst *
        max_speed + radius`` nearest first.  ``wall_radius``: how far each agent keeps
        from the walls (a number or one per agent; default its radius; 0 on a navmesh
        whose walls were already drawn in by the agents' radius)."""
        if not isinstance(crowd, Crowd):
            raise InvalidQueryError(f"expected a Crowd, got {type(crowd).__name__}")
        dt = positive_float("dt", dt)
        n = len(crowd)
        pref = crowd.velocities(preferred, dt)
        dist, k, tau, tau_obst = self._parameters(crowd)
        top = int(k.max()) if n else 0
        if neighbours is None:
            rows, counts = crowd.neighbours(distance=dist, max_neighbours=top)
        else:
            rows, counts = _lists(neighbours, n, top)
        counts = np.minimum(counts, k).astype(np.int32)    # each one's nearest k
        out = np.empty((n, 2))
        position = np.ascontiguousarray(crowd.position)
        wr = np.ascontiguousarray(crowd.radius) if wall_radius is None else \
            _per_agent("wall_radius", wall_radius, n)
        if walls is None:
            obstacles: tuple = (*self._walls, tau_obst, None, None, wr)
        else:
            reach = tau_obst * crowd.max_speed + wr
            obstacles = (*_own_walls(walls, position, reach, tau_obst), wr)
        _orca.velocities(position, np.ascontiguousarray(crowd.velocity),
                         np.ascontiguousarray(pref), np.ascontiguousarray(crowd.radius),
                         np.ascontiguousarray(crowd.max_speed), rows, counts,
                         tau, dt, out, *obstacles)
        return out

    def set_agent(self, agent: int, *, neighbour_dist: float | None = None,
                  max_neighbours: int | None = None, time_horizon: float | None = None,
                  time_horizon_obst: float | None = None) -> None:
        """Give agent ``agent`` (an id of the crowd this steps) its own parameters, as
        RVO2 allows; ``None`` keeps this object's (or the crowd's).  They are kept by the
        agent's id, so they follow it whatever row it moves to when others are removed;
        setting them again replaces them all."""
        self._agents[count("agent", agent, min=0)] = (
            math.nan if neighbour_dist is None
            else positive_float("neighbour_dist", neighbour_dist),
            math.nan if max_neighbours is None
            else count("max_neighbours", max_neighbours, min=0),
            math.nan if time_horizon is None else positive_float("time_horizon", time_horizon),
            math.nan if time_horizon_obst is None
            else positive_float("time_horizon_obst", time_horizon_obst))

    def _parameters(self, crowd: Crowd) -> tuple:
        """Per row of ``crowd``: neighbour distance, neighbour count (int32) and the two
        time horizons, each agent's own where :meth:`set_agent` gave them."""
        n = len(crowd)
        table = np.empty((n, 4))
        table[:] = (crowd.neighbour_dist if self.neighbour_dist is None
                    else self.neighbour_dist,
                    crowd.max_neighbours if self.max_neighbours is None
                    else self.max_neighbours, self.time_horizon, self.time_horizon_obst)
        if self._agents and n:
            ids = np.fromiter(self._agents, dtype=np.int64, count=len(self._agents))
            own = np.array(list(self._agents.values()))
            order = np.argsort(crowd.ids)
            at = np.minimum(np.searchsorted(crowd.ids, ids, sorter=order), n - 1)
            live = crowd.ids[order[at]] == ids    # removed (or other) agents keep no row
            rows, own = order[at[live]], own[live]
            table[rows] = np.where(np.isnan(own), table[rows], own)
        return (table[:, 0], table[:, 1].astype(np.int32),
                np.ascontiguousarray(table[:, 2]), np.ascontiguousarray(table[:, 3]))

    @positional_options("preferred")
    def step(self, crowd: Crowd, dt: float, *, preferred: ArrayLike | None = None,
             neighbours: Any = None, walls: Any = None,
             wall_radius: ArrayLike | None = None) -> None:
        """Advance the crowd by ``dt`` with ORCA's velocities (see :meth:`Crowd.step` for
        the agents' acceleration limits; RVO2 has none; ``neighbours``, ``walls`` and
        ``wall_radius`` as :meth:`velocities` takes them)."""
        crowd.step(dt, velocity=self.velocities(crowd, dt, preferred=preferred,
                                                neighbours=neighbours, walls=walls,
                                                wall_radius=wall_radius))


def _polygons(obstacles: Any) -> list:
    """Polygons from a :class:`~wayfinding.grid.Grid` (its blocked cells, and its edge as a
    clockwise polygon that keeps agents inside), a :class:`~wayfinding.navmesh.NavMesh`
    (its walls), an :class:`~wayfinding.geometry.Obstacles` or a list of vertex arrays."""
    if isinstance(obstacles, Grid):
        (ox, oy), s = obstacles.origin, obstacles.cell_size
        h, w = obstacles.shape
        edge = np.array([(ox, oy), (ox, oy + h * s), (ox + w * s, oy + h * s),
                         (ox + w * s, oy)])
        return [*Obstacles.from_grid(obstacles).polygons, edge]
    if isinstance(obstacles, Obstacles):
        return list(obstacles.polygons)
    if isinstance(obstacles, NavMesh):
        return obstacles.boundary()
    try:
        return list(obstacles)
    except TypeError:
        raise InvalidQueryError(f"obstacles {brief(obstacles)} must be polygons (a list of "
                                "vertex arrays), an Obstacles, a Grid or a NavMesh") from None


def _walls(obstacles: Any) -> _Walls:
    """The obstacle vertices and tree as the kernel takes them (``_orca.obstacle_tree``):
    points, unit edge directions, next and previous vertex, convexity (RVO2's rules: a
    segment's ends are convex; a polygon's vertex is convex when the turn there is to the
    left or straight; a vertex the tree adds is convex), each edge's children in the tree
    and the top edge."""
    points: list[np.ndarray] = []
    nxt: list[np.ndarray] = []
    prv: list[np.ndarray] = []
    for k, poly in enumerate(obstacles):
        try:
            v = np.asarray(poly, dtype=np.float64)
        except (TypeError, ValueError):
            v = np.empty(0)
        if v.ndim != 2 or v.shape[1] != 2 or len(v) < 2 \
                or not (np.abs(v) <= MAX_EXTENT).all() \
                or (np.hypot(*(np.roll(v, -1, axis=0) - v).T)[:len(v) - (len(v) == 2)]
                    == 0).any():
            raise InvalidQueryError(f"obstacle {k} must be an (m, 2) array of at least 2 "
                                    f"finite vertices within ±{MAX_EXTENT:g}, no two in a "
                                    "row equal")
        start, m = sum(len(p) for p in points), len(v)
        points.append(v)
        nxt.append(start + (np.arange(m) + 1) % m)
        prv.append(start + (np.arange(m) - 1) % m)
    if not points:
        return None, None, None, None, None, None, None, -1
    point = np.ascontiguousarray(np.concatenate(points))
    nxt_a, prv_a = np.concatenate(nxt).astype(np.int32), np.concatenate(prv).astype(np.int32)
    edge = point[nxt_a] - point
    unit = np.ascontiguousarray(edge / np.hypot(edge[:, 0], edge[:, 1])[:, None])
    before, after = point[prv_a], point[nxt_a]
    turn = (before[:, 0] - after[:, 0]) * (point[:, 1] - before[:, 1]) \
        - (before[:, 1] - after[:, 1]) * (point[:, 0] - before[:, 0])
    convex = (turn >= 0) | (nxt_a == prv_a)             # left of (prev -> next), or a segment
    return _orca.obstacle_tree(point, unit, nxt_a, prv_a, convex.astype(np.uint8))


def _per_agent(name: str, value: Any, n: int) -> np.ndarray:
    """A number or one per agent, each >= 0 and finite, as ``(n,)`` float64."""
    try:
        v = np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)))
    except (TypeError, ValueError):
        v = np.empty(0)
    if v.shape != (n,) or not (np.isfinite(v).all() and (v >= 0).all()):
        raise InvalidQueryError(f"{name} {brief(value)} must be >= 0 and finite: a number "
                                f"or one per agent ({n})")
    return v


def _lists(neighbours: Any, n: int, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Neighbour lists given as ``(rows, counts)``, checked, as the kernel takes them: at
    least ``top`` columns (-1 filled)."""
    try:
        rows, counts = neighbours
        rows = np.asarray(rows)
        counts = np.asarray(counts)
    except (TypeError, ValueError):
        rows = counts = np.empty(0)
    if rows.ndim != 2 or len(rows) != n or counts.shape != (n,) or \
            not np.issubdtype(rows.dtype, np.integer) or \
            not np.issubdtype(counts.dtype, np.integer) or \
            (counts < 0).any() or (counts > rows.shape[1]).any() or \
            (rows >= n).any() or (rows < -1).any() or \
            (rows[np.arange(rows.shape[1]) < counts[:, None]] < 0).any() or \
            (rows == np.arange(n)[:, None]).any():
        raise InvalidQueryError(f"neighbours must be (rows, counts) as Crowd.neighbours "
                                f"gives them for {n} agents: rows (n, k) of rows in "
                                "[0, n) up to counts (n,), -1 after, none its own")
    if rows.shape[1] < top:
        rows = np.pad(rows, ((0, 0), (0, top - rows.shape[1])), constant_values=-1)
    return np.ascontiguousarray(rows, np.int32), np.ascontiguousarray(counts, np.int32)


def _own_walls(walls: Any, position: np.ndarray, reach: np.ndarray,
               tau_obst: np.ndarray) -> tuple:
    """Per-agent segments as the kernel takes them: the segments pooled as two-vertex
    obstacles (vertex 2j the first end of segment j, 2j + 1 its second; both convex), and
    per agent the edges it faces (strictly outside) within its reach, nearest first."""
    try:
        ptr, segs = walls
        ptr = np.asarray(ptr)
        segs = reals("walls", segs).reshape(-1, 2, 2)
    except (TypeError, ValueError, InvalidQueryError):
        ptr = segs = None
    if ptr is None or not np.issubdtype(ptr.dtype, np.integer):
        raise InvalidQueryError("walls must be (ptr, segments): ptr integers, segments an "
                                "(m, 2, 2) array of finite ends")
    ptr = ptr.astype(np.int64)
    n = len(position)
    if ptr.shape != (n + 1,) or ptr[0] != 0 or ptr[-1] != len(segs) or \
            (np.diff(ptr) < 0).any() or not (np.abs(segs) <= MAX_EXTENT).all():
        raise InvalidQueryError(f"walls: ptr must run from 0 to the {len(segs)} segments "
                                f"in {n + 1} steps, and the segments be finite, within "
                                f"±{MAX_EXTENT:g}")
    a, b = segs[:, 0], segs[:, 1]
    e = b - a
    e2 = (e * e).sum(1)
    live = e2 > 0
    agent = np.repeat(np.arange(n), np.diff(ptr))
    p = position[agent]
    side = (a[:, 0] - p[:, 0]) * e[:, 1] - (a[:, 1] - p[:, 1]) * e[:, 0]
    t = np.clip(((p - a) * e).sum(1) / np.where(live, e2, 1.0), 0.0, 1.0)
    d2 = ((a + t[:, None] * e - p) ** 2).sum(1)
    r2 = reach[agent] ** 2
    use = live & (side != 0) & (d2 < r2)
    vertex = np.where(side < 0, 2 * np.arange(len(segs)), 2 * np.arange(len(segs)) + 1)
    order = np.lexsort((d2[use], agent[use]))
    ids = np.ascontiguousarray(vertex[use][order], np.int32)
    own_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(agent[use], minlength=n), out=own_ptr[1:])
    point = np.ascontiguousarray(segs.reshape(-1, 2))
    m = len(point)
    nxt = (np.arange(m) ^ 1).astype(np.int32)
    direction = point[nxt] - point
    length = np.hypot(direction[:, 0], direction[:, 1])
    unit = np.ascontiguousarray(direction / np.where(length > 0, length, 1.0)[:, None])
    return (point, unit, nxt, nxt, np.ones(m, np.uint8), None, None, -1, tau_obst,
            own_ptr, ids)
