"""Flying agents: 3D path following, ORCA in 3D with the semantics of RVO2-3D, and flight
through a voxel world without entering its blocked voxels.

:func:`orca3d_velocities` is ORCA among spheres (van den Berg, Guy, Lin and Manocha; the
3D form of :class:`~wayfinding.crowd.ORCA`, without obstacles, as RVO2-3D): each agent
takes half of the velocity change that keeps it clear of each of its nearest neighbours
for ``time_horizon`` seconds (one time step for neighbours it already overlaps), one
half-space per neighbour, then the velocity nearest its preferred one inside its speed
sphere that every half-space allows, or, when they allow none, the one that violates the
worst least.  The solver runs in ``_kernels/_orca3d.pyx`` in double precision where RVO2-3D
uses single; neighbours are found through uniform buckets (RVO2-3D: a k-d tree), the same
set (the nearest within ``neighbour_dist``, strictly) with ties to the lower row.

:class:`FlightCrowd` keeps flying agents as structure-of-arrays; each follows a polyline
of world points (a voxel path turned into world coordinates, say), and
:meth:`FlightCrowd.step` runs three stages: preferred velocities from path following, ORCA
among the agents, then the move, which in a :class:`~wayfinding.voxel.VoxelGrid` world
never lets an agent's box enter a blocked voxel.

>>> crowd = FlightCrowd(time_horizon=5.0)
>>> a = crowd.add((-5.0, 0.0, 0.0), goal=(5.0, 0.0, 0.0), radius=0.5, max_speed=1.0)
>>> b = crowd.add((5.0, 0.0, 0.1), goal=(-5.0, 0.0, 0.1), radius=0.5, max_speed=1.0)
>>> closest = 10.0
>>> for _ in range(200):
...     crowd.step(0.1)
...     closest = min(closest, float(np.linalg.norm(crowd.position[0] - crowd.position[1])))
>>> closest >= 1.0 - 1e-6, (crowd.position[a].round(3) + 0.0).tolist(), crowd.arrived().tolist()
(True, [5.0, 0.0, 0.0], [True, True])
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .._kernels import _orca3d
from .._validate import count, finite_point, positive_float
from ..errors import InvalidQueryError, brief
from ..geometry.obstacles import MAX_EXTENT
from ..voxel.grid import VoxelGrid
from .agents import _inside, _within, _world_point
from .flight_steering import (
    _array,
    _lengths,
    _points,
    _speeds,
    _towards,
    avoid_voxels,
    neighbours3,
)

#: Segments of its path, from the current one on, among which an agent looks for the
#: nearest point each step (progress along a path never goes back).
_WINDOW = 2


def orca3d_velocities(position: Any, velocity: Any, preferred: Any, radius: Any,
                      max_speed: Any, dt: float, *, time_horizon: Any = 10.0,
                      neighbour_dist: float = 15.0, max_neighbours: int = 10
                      ) -> np.ndarray:
    """ORCA's new velocity of every agent, ``(n, 3)`` float64, for a step of ``dt``
    seconds, from the state at its start (RVO2-3D's ``computeNewVelocity``).

    ``position``, ``velocity``, ``preferred``: ``(n, 3)`` (world units, per second;
    positions within ``±MAX_EXTENT``, 1e150, as
    :data:`wayfinding.geometry.obstacles.MAX_EXTENT` bounds world coordinates);
    ``radius`` (> 0), ``max_speed`` (>= 0), both at most ``MAX_EXTENT``, and
    ``time_horizon`` (s, > 0): a number or one per agent.  Each agent avoids its
    ``max_neighbours`` nearest others closer than ``neighbour_dist`` centre to centre (0
    neighbours: it takes its preferred velocity, cut to its top speed).  Longer horizons
    react earlier and more cautiously; RVO2-3D's example uses 10 s with neighbours within
    15 units.
    """
    p = _within("position", _points(position), position)
    v = _array(velocity, len(p), "velocity")
    n = len(p)
    pref = _array(preferred, n, "preferred")
    r = _speeds(radius, n, "radius", top=MAX_EXTENT)
    if not (r > 0).all():
        raise InvalidQueryError(f"radius {brief(radius)} must be > 0")
    top = _speeds(max_speed, n, top=MAX_EXTENT)
    tau = _speeds(time_horizon, n, "time_horizon")
    if not (tau > 0).all():
        raise InvalidQueryError(f"time_horizon {brief(time_horizon)} must be > 0")
    dt = positive_float("dt", dt)
    neighbour_dist = positive_float("neighbour_dist", neighbour_dist)
    rows, counts = neighbours3(p, distance=neighbour_dist, max_neighbours=max_neighbours)
    out = np.empty((n, 3))
    _orca3d.velocities(p, np.ascontiguousarray(v), np.ascontiguousarray(pref), r, top, rows,
                       counts, tau, dt, out)
    return out


class FlightCrowd:
    """Flying agents in 3D (world units and seconds), each following its own path.

    Options (keyword-only):

    - ``world``: a :class:`~wayfinding.voxel.VoxelGrid` whose blocked voxels the agents
      never enter (``None``, default: open space).  Against the voxels an agent is an
      axis-aligned box of half-edge ``wall_radius``; each step moves it one axis at a time
      (x, y, z), stopping an axis's move just before the first voxel layer holding a
      blocked voxel the box overlaps, and zeroing that component of its velocity (it
      slides along walls).  The space outside the grid counts as blocked.
    - ``wall_radius``: that half-edge, below half a voxel; ``None`` (default) for each
      agent's ``min(radius, 0.45 * voxel_size)``.  Below half a voxel, a box flying along
      any path of the grid's moves (the cube rule) touches only the free voxels of the
      moves, so every voxel path can be flown, while agents keep their full ``radius``
      from each other.  Any-angle legs (Theta*, line-of-sight smoothing) are clear for a
      point but may pass nearer a blocked voxel than the box's half-edge: there the box
      slides along it, and the walls' push (next) steers it round the corner.
    - ``wall_margin`` (in (0, 1], default 0.8): the walls push an agent away once its box
      comes this fraction of the way from centred in a voxel to touching that voxel's
      faces (an agent at a voxel's centre feels none): its preferred velocity gets
      :func:`~wayfinding.crowd.flight_steering.avoid_voxels`, at its top speed along the
      walls (round an edge its box would catch on) and, off them, no faster than leaves
      the margin in one step (so as not to bounce between the walls of a narrow slot).
    - ``time_horizon`` (s, > 0, default 5): how long a chosen velocity must keep clear of
      the other agents (each agent may have its own, see :meth:`add`).
    - ``neighbour_dist`` (> 0, default 10) and ``max_neighbours`` (>= 0, default 10): the
      agents each one avoids, the nearest closer than that, centre to centre.
    - ``ahead`` (> 0, default 1): path following seeks the point this far (along the path)
      beyond the agent's nearest point on its path; larger cuts corners more.
    - ``slowing`` (> 0, default 1): an agent slows linearly within this distance of its
      path's end (measured along the path), and stops on the end.

    Agents are rows ``0, 1, ...`` in the order they were added (they are never removed;
    :meth:`arrived` says which are done).
    """

    def __init__(self, *, world: VoxelGrid | None = None, wall_radius: float | None = None,
                 wall_margin: float = 0.8, time_horizon: float = 5.0,
                 neighbour_dist: float = 10.0, max_neighbours: int = 10, ahead: float = 1.0,
                 slowing: float = 1.0):
        if world is not None and not isinstance(world, VoxelGrid):
            raise InvalidQueryError(f"world must be a VoxelGrid or None, got "
                                    f"{type(world).__name__}")
        self.world = world
        self.wall_radius = None if wall_radius is None else positive_float(
            "wall_radius", wall_radius,
            max=math.inf if world is None else math.nextafter(0.5 * world.voxel_size, 0))
        self.wall_margin = positive_float("wall_margin", wall_margin, max=1.0)
        self.time_horizon = positive_float("time_horizon", time_horizon)
        self.neighbour_dist = positive_float("neighbour_dist", neighbour_dist)
        self.max_neighbours = count("max_neighbours", max_neighbours, min=0)
        self.ahead = positive_float("ahead", ahead)
        self.slowing = positive_float("slowing", slowing)
        self._n = 0
        self._vec = {name: np.zeros((16, 3)) for name in ("position", "velocity")}
        self._num = {name: np.zeros(16) for name in ("radius", "max_speed", "time_horizon")}
        self._seg = np.zeros(16, dtype=np.int64)        # current segment within the path
        self._paths: list[np.ndarray] = []
        self._packed: tuple[np.ndarray, ...] | None = None
        #: Seconds each stage of the last :meth:`step` took: ``steer`` (path following
        #: and the walls' push), ``orca`` (neighbours, planes, linear programs), ``move``.
        self.timings: dict[str, float] = {}

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"FlightCrowd({self._n} agents)"

    @property
    def position(self) -> np.ndarray:
        """``(n, 3)`` positions (a view: writing it moves the agents)."""
        return self._vec["position"][:self._n]

    @property
    def velocity(self) -> np.ndarray:
        """``(n, 3)`` velocities (a view)."""
        return self._vec["velocity"][:self._n]

    @property
    def radius(self) -> np.ndarray:
        """``(n,)`` radii (a view)."""
        return self._num["radius"][:self._n]

    @property
    def max_speed(self) -> np.ndarray:
        """``(n,)`` top speeds (a view)."""
        return self._num["max_speed"][:self._n]

    @property
    def time_horizons(self) -> np.ndarray:
        """``(n,)`` each agent's time horizon (a view)."""
        return self._num["time_horizon"][:self._n]

    def path(self, agent: int) -> np.ndarray:
        """Agent ``agent``'s path, ``(m, 3)`` (a copy)."""
        return self._paths[self._row(agent)].copy()

    def _row(self, agent: Any) -> int:
        if type(agent) is bool or not isinstance(agent, (int, np.integer)) \
                or not 0 <= agent < self._n:
            raise InvalidQueryError(f"no agent {brief(agent)} in this crowd of {self._n}")
        return int(agent)

    def add(self, position: Any, *, path: Any = None, goal: Any = None,
            velocity: Any = (0.0, 0.0, 0.0), radius: float = 0.5, max_speed: float = 2.0,
            time_horizon: float | None = None) -> int:
        """Add an agent and return its row.  It follows ``path`` (an ``(m, 3)`` polyline of
        world points, m >= 1, from its first corner to its last; it joins it at the
        nearest point of its first segments), or flies straight to ``goal``, or, with
        neither, holds ``position``.  ``radius`` (> 0), ``max_speed`` (>= 0),
        ``time_horizon`` (s, default the crowd's).  Positions, goals and path corners lie
        within ``±MAX_EXTENT`` (1e150), and ``radius`` and ``max_speed`` are at most it, as
        :meth:`Crowd.add <wayfinding.crowd.Crowd.add>` has them."""
        p = _world_point("position", position, 3)
        if path is not None and goal is not None:
            raise InvalidQueryError("give an agent a path or a goal, not both")
        line = _polyline(path, "path") if path is not None else \
            np.stack([p, _world_point("goal", goal, 3)]) if goal is not None else p[None]
        row = (finite_point("velocity", velocity, 3),
               positive_float("radius", radius, max=MAX_EXTENT),
               positive_float("max_speed", max_speed, allow_zero=True, max=MAX_EXTENT),
               self.time_horizon if time_horizon is None
               else positive_float("time_horizon", time_horizon))
        if self._n == len(self._seg):
            self._grow()
        i = self._n
        self._vec["position"][i] = p
        self._vec["velocity"][i] = row[0]
        self._num["radius"][i], self._num["max_speed"][i], self._num["time_horizon"][i] = \
            row[1:]
        self._seg[i] = 0
        self._paths.append(line)
        self._packed = None
        self._n += 1
        return i

    def set_path(self, agent: int, path: Any) -> None:
        """Give agent ``agent`` a new path (``(m, 3)``, m >= 1) to follow from its start."""
        i = self._row(agent)
        self._paths[i] = _polyline(path, "path")
        self._seg[i] = 0
        self._packed = None

    def _grow(self) -> None:
        size = 2 * len(self._seg)
        for d in (self._vec, self._num):
            for name, a in d.items():
                grown = np.zeros((size, *a.shape[1:]))
                grown[:self._n] = a[:self._n]
                d[name] = grown
        self._seg = np.resize(self._seg, size)

    def _pack(self) -> tuple[np.ndarray, ...]:
        """The paths as flat arrays: corners ``(M, 3)`` (each path at least 2, a
        one-corner path doubled), the first corner of each path ``(n + 1,)``, the arc
        length at each corner within its path, the same made increasing across paths (each
        path's offset by the lengths before it), and each path's length."""
        if self._packed is None:
            lines = [p if len(p) > 1 else np.repeat(p, 2, 0) for p in self._paths]
            pts = np.ascontiguousarray(np.concatenate(lines)) if lines else np.zeros((0, 3))
            ptr = np.zeros(len(lines) + 1, dtype=np.int64)
            ptr[1:] = np.cumsum([len(p) for p in lines])
            seg = np.sqrt((np.diff(pts, axis=0) ** 2).sum(1)) if len(pts) else np.zeros(0)
            seg = np.append(seg, 0.0)
            seg[ptr[1:] - 1] = 0.0                      # no segment across two paths
            glob = np.concatenate([[0.0], np.cumsum(seg)[:-1]])
            base = glob[ptr[:-1]]
            cum = glob - np.repeat(base, np.diff(ptr))
            total = cum[ptr[1:] - 1]
            self._packed = (pts, ptr, cum, glob, total)
        return self._packed

    def progress(self) -> tuple[np.ndarray, np.ndarray]:
        """Where each agent is on its path: ``(s, remaining)``, ``(n,)`` each, the arc
        length of its nearest point among the path's current segments (never going back)
        and the length left after it.  Advances each agent's current segment."""
        n = self._n
        if n == 0:
            return np.zeros(0), np.zeros(0)
        pts, ptr, cum, _, total = self._pack()
        p = self.position
        last = ptr[1:] - 2                               # first corner of the last segment
        seg = np.clip(self._seg[:n] + ptr[:-1], ptr[:-1], last)
        j = np.minimum(seg[:, None] + np.arange(_WINDOW), last[:, None])     # (n, W)
        a = pts[j]
        e = pts[j + 1] - a
        e2 = (e * e).sum(2)
        t = np.clip(np.divide(((p[:, None] - a) * e).sum(2), e2, out=np.zeros_like(e2),
                              where=e2 > 0), 0.0, 1.0)
        gap = a + t[..., None] * e - p[:, None]
        k = np.argmin((gap * gap).sum(2), axis=1)
        rows = np.arange(n)
        jk = j[rows, k]
        self._seg[:n] = jk - ptr[:-1]
        s = cum[jk] + t[rows, k] * np.sqrt(e2[rows, k])
        return s, np.maximum(total - s, 0.0)

    def preferred_velocity(self, dt: float) -> np.ndarray:
        """Every agent's preferred velocity, ``(n, 3)``, for a step of ``dt`` seconds:
        towards the point ``ahead`` further along its path than its nearest point (see
        :meth:`progress`) at top speed, slowed linearly within ``slowing`` of the path's
        end (along the path); within ``ahead`` of the end, arriving at the end, never
        faster than reaches it in one step."""
        dt = positive_float("dt", dt)
        n = self._n
        if n == 0:
            return np.zeros((0, 3))
        pts, ptr, cum, glob, total = self._pack()
        p, top = self.position, self.max_speed
        s, remaining = self.progress()
        goal_s = s + self.ahead
        end = goal_s >= total
        first, last = ptr[:-1], ptr[1:] - 2
        base = glob[first]
        j = np.clip(np.searchsorted(glob, base + goal_s, side="right") - 1, first, last)
        length = cum[j + 1] - cum[j]
        frac = np.clip(np.divide(goal_s - cum[j], length, out=np.zeros(n),
                                 where=length > 0), 0.0, 1.0)
        target = pts[j] + frac[:, None] * (pts[j + 1] - pts[j])
        target[end] = pts[ptr[1:][end] - 1]
        to = target - p
        dist = _lengths(to)
        with np.errstate(over="ignore"):    # beyond any float: no slowing, no cap
            speed = np.minimum(top, top * np.where(end, dist, remaining) / self.slowing)
            speed = np.where(end, np.minimum(speed, dist / dt), speed)
        want = _towards(to, speed)
        if self.world is not None:
            half = self._wall_half()
            margin = self.wall_margin * (0.5 * self.world.voxel_size - half)
            want += avoid_voxels(p, self.world.padded, self.world.origin,
                                 self.world.voxel_size, half, margin, speed=top,
                                 normal_speed=np.minimum(top, margin / dt))
        return want

    def _wall_half(self) -> np.ndarray:
        """Each agent's box half-edge against the voxels."""
        s = self.world.voxel_size if self.world is not None else math.inf
        return np.ascontiguousarray(np.minimum(self.radius, 0.45 * s)
                                    if self.wall_radius is None
                                    else np.full(self._n, self.wall_radius))

    def velocities(self, dt: float, *, preferred: Any = None) -> np.ndarray:
        """ORCA's new velocity of every agent (:func:`orca3d_velocities` with this crowd's
        options and each agent's time horizon), ``(n, 3)``, for a step of ``dt`` seconds;
        ``preferred`` (``(n, 3)``) defaults to :meth:`preferred_velocity`."""
        dt = positive_float("dt", dt)
        pref = self.preferred_velocity(dt) if preferred is None \
            else _array(preferred, self._n, "preferred")
        return orca3d_velocities(self.position, self.velocity, pref, self.radius,
                                 self.max_speed, dt, time_horizon=self.time_horizons,
                                 neighbour_dist=self.neighbour_dist,
                                 max_neighbours=self.max_neighbours)

    def step(self, dt: float, *, preferred: Any = None) -> None:
        """Advance ``dt`` seconds: preferred velocities (``preferred``, ``(n, 3)``, or
        :meth:`preferred_velocity`), ORCA's velocities from the state at the step's start,
        then every agent moves by its velocity times ``dt`` (in a world: stopped at
        blocked voxels, see the class).  :attr:`timings` holds each stage's seconds."""
        dt = positive_float("dt", dt)
        t0 = time.perf_counter()
        pref = self.preferred_velocity(dt) if preferred is None \
            else _array(preferred, self._n, "preferred")
        t1 = time.perf_counter()
        v = self.velocities(dt, preferred=pref)
        t2 = time.perf_counter()
        self.move(v, dt)
        t3 = time.perf_counter()
        self.timings = {"steer": t1 - t0, "orca": t2 - t1, "move": t3 - t2}

    def move(self, velocity: Any, dt: float) -> None:
        """Set every agent's velocity to ``velocity`` (``(n, 3)``) and move it for ``dt``
        seconds; in a world, a move cut short by a blocked voxel zeroes that component of
        the velocity.  A move that would take an agent beyond ``±MAX_EXTENT`` (where no
        world stops it first) is refused with
        :class:`~wayfinding.errors.InvalidQueryError`, changing nothing."""
        dt = positive_float("dt", dt)
        v = np.array(_array(velocity, self._n, "velocity"))
        with np.errstate(over="ignore"):
            step = v * dt
            _inside(self.position + step if self.world is None
                    else np.where(np.isfinite(step), 0.0, step), dt)
        if self.world is None:
            self.position[:] += step
        else:
            g = self.world
            s = g.voxel_size
            half = self._wall_half()
            pos = np.ascontiguousarray(self.position)
            stopped = np.zeros((self._n, 3), dtype=np.uint8)
            _orca3d.sweep_boxes(g.padded, *g.origin, s, pos, np.ascontiguousarray(step),
                                half, stopped)
            self.position[:] = pos
            v[stopped.astype(bool)] = 0.0
        self.velocity[:] = v

    def arrived(self, *, tolerance: float | None = None) -> np.ndarray:
        """Which agents are within ``tolerance`` (default a tenth of their radius) of
        their path's end, ``(n,)`` bool."""
        pts, ptr, *_ = self._pack()
        tol = 0.1 * self.radius if tolerance is None \
            else positive_float("tolerance", tolerance, allow_zero=True)
        return _lengths(pts[ptr[1:] - 1] - self.position) <= tol


def _polyline(path: Any, name: str) -> np.ndarray:
    """``path`` as a finite ``(m, 3)`` float64 array within ``±MAX_EXTENT``, m >= 1 (a
    copy)."""
    try:
        a = np.array(path, dtype=np.float64)
    except (TypeError, ValueError):
        a = np.empty(0)
    if a.ndim != 2 or a.shape[1] != 3 or len(a) == 0 or not (np.abs(a) <= MAX_EXTENT).all():
        raise InvalidQueryError(f"{name} {brief(path)} must be a finite (m, 3) array of "
                                f"world points within ±{MAX_EXTENT:g}, m >= 1")
    return a

