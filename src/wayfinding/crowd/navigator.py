"""A crowd manager: add an agent with a target, call :meth:`Navigator.update` every frame.

The navigator plans each agent's path over its world, follows it corner by corner and hands
the preferred velocities to a local-avoidance model.  Worlds:

* a :class:`~wayfinding.navmesh.NavMesh`: the straight path through the corridor of
  polygons (:meth:`NavMesh.find_path`); build it for the agents' radius, so that corners
  keep them clear of the walls: the navigator's ``radius`` is the one the mesh was built
  for, and an agent wider than that gets a :class:`ClearanceWarning`.  A target off the
  mesh moves to the nearest point on it (as the agent's target and its goal in the
  crowd);
* a :class:`~wayfinding.grid.Grid`: the grid path through cell centres, shortcut along
  lines of sight, in world coordinates (by the grid's origin and cell size); a target on a
  blocked cell or off the grid has no path;
* a :class:`~wayfinding.fields.FlowField`: no paths at all; every agent follows the field
  to its goals (the target is the field's);
* a :class:`~wayfinding.navmesh3d.NavMesh3D`: ``Navigator(mesh3d)`` is a
  :class:`~wayfinding.crowd.surface.Navigator3D`, with its own module's rules (path
  corridors, storeys, off-mesh links).

Following: an agent heads for its next corner at top speed and takes the one after once
within ``corner_radius`` of it (or one step's travel); on the last stretch it slows to stop
on the target, and has arrived within ``arrive_distance`` of it (pushed away after,
it walks back).  It replans when it strays more than ``replan_distance`` from the stretch it
is on, or on a mesh onto a polygon off its corridor (pushed off by others), and when it
has been stuck (moved less than ``stuck_distance`` over ``stuck_time`` seconds) short of its
target; after ``max_replans`` stuck replans in a row its state says :data:`STUCK` (it
keeps trying).

All per-frame work is vectorised over the agents; only new targets and replans call the
planner, agent by agent.  Each agent's path and following state are fields of the crowd
(:meth:`Crowd.add_field`), so they move with its row.

>>> from wayfinding.navmesh import NavMesh
>>> u_turn = [(0, 0), (10, 0), (10, 4), (2, 4), (2, 6), (10, 6), (10, 10), (0, 10)]
>>> nav = Navigator(NavMesh.build(outline=u_turn, radius=0.5))   # for agents of radius 0.5
>>> a = nav.add((8.0, 2.0), target=(8.0, 8.0), radius=0.5, max_speed=1.5)
>>> for _ in range(200):
...     nav.update(0.1)
>>> nav.state(a), nav.crowd.position_of(a).round(3).tolist()
('arrived', [8.0, 8.0])
"""

from __future__ import annotations

import copy
import inspect
import warnings
from abc import ABC, abstractmethod
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._validate import count, finite_point, positive_float
from ..errors import InvalidQueryError
from ..fields import FlowField
from ..fields.flow import GOAL
from ..grid import Grid, GridSearch, smooth_path
from ..navmesh import NavMesh, NavMeshQuery
from ..navmesh3d import NavMesh3D
from .agents import DEFAULT_RADIUS, Crowd
from .orca import ORCA
from .states import ARRIVED, IDLE, MOVING, NO_PATH, STUCK
from .surface import Navigator3D

_STATES = (IDLE, MOVING, ARRIVED, NO_PATH, STUCK)

#: The navigator's fields in its crowd: name, shape per agent, dtype and a new agent's value.
_FIELDS = (
    ("nav_corners", (2, 2), np.float64, 0.0),   # the path, last corner repeated
    ("nav_corridor", (1,), np.int32, -1),       # its polygons on a mesh, -1 padded
    ("nav_count", (), np.int64, 1),             # corners in the path
    ("nav_next", (), np.int64, 0),              # the corner the agent heads for
    ("nav_state", (), np.int8, 0),              # index into _STATES
    ("nav_target", (2,), np.float64, 0.0),
    ("nav_anchor", (2,), np.float64, 0.0),      # where the stuck clock last started
    ("nav_clock", (), np.float64, 0.0),
    ("nav_replans", (), np.int64, 0),
    ("nav_pending", (), np.bool_, False),       # needs a plan before the next step
)
_NO_CORRIDOR = np.zeros(0, np.int32)


class ClearanceWarning(UserWarning):
    """An agent wider than the navigation mesh it plans on was built for: its path's
    corners come closer to the walls than its radius."""


def _field(name: str) -> Any:
    return property(lambda self: self.crowd.field(name))


class Navigator:
    """Agents following paths over ``world`` (a :class:`~wayfinding.navmesh.NavMesh`,
    :class:`~wayfinding.grid.Grid` or :class:`~wayfinding.fields.FlowField`), with
    ``avoidance`` among them: any model with ``step(crowd, dt, *, preferred)``, such as
    :class:`~wayfinding.crowd.ORCA` (the default, ``ORCA(time_horizon=3,
    time_horizon_obst=1)``) or :class:`~wayfinding.crowd.PowerLaw`; ``None`` moves them
    straight at their preferred velocities.  An ORCA made without ``obstacles`` (the
    default one too) is copied, and the copy (:attr:`avoidance`) takes the walls of the
    world the agents plan on: a mesh's :attr:`~NavMesh.source_walls`, the walls of the area
    as given, not eroded by the radius the mesh was built for, or its
    :meth:`~NavMesh.boundary` for a mesh that has none (one loaded from a file: a radius
    further from the walls than needed, passages narrower than twice that closed); a
    grid's blocked cells and edge; a flow field's grid; so that agents pushed by others
    keep their radius clear of the walls.

    ``radius``: the agents' radius, the default of :meth:`add`'s.  ``None``: on a mesh
    built by :meth:`NavMesh.build` with a radius > 0, that radius (to 10 significant
    digits, as far as the mesh's walls keep from the walls it was built from), else 0.5.
    A ``radius`` wider than a mesh was built for (> 0) is an
    :class:`~wayfinding.errors.InvalidQueryError`; an agent added wider than that, a
    :class:`ClearanceWarning`.  A mesh built for radius 0 (:meth:`NavMesh.build`'s
    default) takes any ``radius``, with one :class:`ClearanceWarning` here (its corners
    touch the walls: agents cut them); an agent added wider than the navigator's
    ``radius`` warns again.

    ``crowd``: the agents (default: a new :class:`Crowd`); add and remove them through the
    navigator.  Distances in world units, times in seconds.

    On a :class:`~wayfinding.navmesh3d.NavMesh3D` the navigator is a
    :class:`~wayfinding.crowd.surface.Navigator3D` (agents in 3D, on the mesh's surface;
    not a subclass of this class), made with the keyword options it takes: others are an
    :class:`~wayfinding.errors.InvalidQueryError` naming them."""

    def __new__(cls, world: Any, **options: Any) -> Any:
        if cls is Navigator and isinstance(world, NavMesh3D):
            takes = [k for k in inspect.signature(Navigator3D).parameters if k != "mesh"]
            unknown = sorted(set(options) - set(takes))
            if unknown:
                raise InvalidQueryError(
                    f"Navigator on a NavMesh3D makes a Navigator3D, which takes no "
                    f"{', '.join(unknown)} (its options: {', '.join(takes)})")
            return Navigator3D(world, **options)
        return super().__new__(cls)

    def __init__(self, world: Any, *, radius: float | None = None, avoidance: Any = "orca",
                 crowd: Crowd | None = None, corner_radius: float = 0.5,
                 arrive_distance: float = 0.05, replan_distance: float = 2.0,
                 stuck_time: float = 3.0, stuck_distance: float = 0.25,
                 max_replans: int = 3):
        adapter = _ADAPTERS.get(type(world)) or next(
            (a for kind, a in _ADAPTERS.items() if isinstance(world, kind)), None)
        if adapter is None:
            raise InvalidQueryError(f"world must be a NavMesh, a Grid or a FlowField (or a "
                                    f"NavMesh3D), got {type(world).__name__}")
        self._world = adapter(world)
        built = self._world.built_for
        if radius is None:
            self.radius = built if built else DEFAULT_RADIUS
        else:
            self.radius = positive_float("radius", radius)
            if built and self.radius > built * (1 + 1e-9):
                raise InvalidQueryError(
                    f"radius {radius!r} is wider than the {built:g} the mesh was built for: "
                    f"build it with NavMesh.build(..., radius={radius!r})")
        #: The widest agent that keeps clear of the walls on the path's corners (None: any).
        self._clearance = built if built or built is None else self.radius
        if isinstance(avoidance, str) and avoidance == "orca":
            avoidance = ORCA(time_horizon=3.0, time_horizon_obst=1.0)
        if avoidance is not None and not callable(getattr(avoidance, "step", None)):
            raise InvalidQueryError("avoidance must have a step(crowd, dt, *, preferred) method")
        crowd = Crowd() if crowd is None else crowd
        if len(crowd):
            raise InvalidQueryError("give an empty crowd: agents are added through add()")
        self.corner_radius = positive_float("corner_radius", corner_radius)
        self.arrive_distance = positive_float("arrive_distance", arrive_distance)
        self.replan_distance = positive_float("replan_distance", replan_distance)
        self.stuck_time = positive_float("stuck_time", stuck_time)
        self.stuck_distance = positive_float("stuck_distance", stuck_distance)
        self.max_replans = count("max_replans", max_replans)
        for name, shape, dtype, fill in _FIELDS:
            crowd.add_field(name, shape=shape, dtype=dtype, fill=fill)
        if isinstance(avoidance, ORCA) and avoidance.obstacles is None:
            avoidance = copy.copy(avoidance)        # the caller's keeps no obstacles
            avoidance.set_obstacles(self._world.walls())
        self.world, self.avoidance, self.crowd = world, avoidance, crowd
        if built == 0:
            warnings.warn(f"the mesh was built for radius 0: agents may clip corners; build "
                          f"it with NavMesh.build(..., radius={self.radius:g})",
                          ClearanceWarning, stacklevel=2)

    _corners = _field("nav_corners")
    _corridor = _field("nav_corridor")
    _count = _field("nav_count")
    _next = _field("nav_next")
    _state = _field("nav_state")
    _target = _field("nav_target")
    _anchor = _field("nav_anchor")
    _clock = _field("nav_clock")
    _replans = _field("nav_replans")
    _pending = _field("nav_pending")

    def __len__(self) -> int:
        return len(self.crowd)

    def __repr__(self) -> str:
        return f"Navigator({len(self.crowd)} agents on a {type(self.world).__name__})"

    @positional_options("target")
    def add(self, position: ArrayLike, *, target: ArrayLike | None = None, **agent: Any) -> int:
        """Add an agent at ``position`` bound for ``target`` (none: it stays put; on a
        flow field the field's goals) with the :meth:`Crowd.add` options (its ``goal`` in
        the crowd is the target; its ``radius`` by default the navigator's); returns its
        id."""
        t = None if target is None else finite_point("target", target)
        if t is not None:
            agent.setdefault("goal", t)
        agent.setdefault("radius", self.radius)
        agent_id = self.crowd.add(position, **agent)
        i = len(self.crowd) - 1
        p = self.crowd.position[i]
        self._corners[i] = p
        self._anchor[i] = p
        self._target[i] = p if t is None else t
        plans = self._world.plans
        self._state[i] = _STATES.index(MOVING if not plans or t is not None else IDLE)
        self._pending[i] = t is not None and plans
        if self._too_wide(self.crowd.radius[i]):
            warnings.warn(f"an agent of radius {self.crowd.radius[i]:g} on a mesh built for "
                          f"{self._world.built_for:g} comes closer to its walls than its "
                          "radius", ClearanceWarning, stacklevel=3)
        return agent_id

    def set_target(self, agent: int, target: ArrayLike) -> None:
        """Send an agent to a new target (planned at the next update)."""
        if not self._world.plans:
            raise InvalidQueryError("on a flow field the targets are the field's goals")
        i, t = self.crowd.row(agent), finite_point("target", target)
        self._target[i] = self.crowd.goal[i] = t
        self._pending[i] = True
        self._replans[i] = 0
        self._state[i] = _STATES.index(MOVING)

    def remove(self, agent: int) -> None:
        """Remove an agent (the last row moves into its place, as in the crowd)."""
        self.crowd.remove(agent)

    def state(self, agent: int) -> str:
        """:data:`IDLE`, :data:`MOVING`, :data:`ARRIVED`, :data:`NO_PATH` or
        :data:`STUCK`."""
        return _STATES[self._state[self.crowd.row(agent)]]

    def path(self, agent: int) -> np.ndarray:
        """The corners still ahead of an agent, ``(k, 2)``."""
        i = self.crowd.row(agent)
        return self._corners[i, self._next[i]:self._count[i]].copy()

    def update(self, dt: float) -> None:
        """Plan where needed, advance along the paths, and step the crowd by ``dt``."""
        dt = positive_float("dt", dt)
        pref = self._world.preferred(self, dt)
        if self.avoidance is None:
            self.crowd.step(dt, velocity=pref)
        else:
            self.avoidance.step(self.crowd, dt, preferred=pref)
        self._watch(dt)

    # ------------------------------------------------------------------ internals
    def _too_wide(self, radius: float) -> bool:
        """Whether an agent of ``radius`` comes closer to the walls than its radius: wider
        than the mesh was built for or, on a mesh built for radius 0, than the
        navigator's radius."""
        limit = self._clearance
        return limit is not None and radius > limit * (1 + 1e-9)

    def _replan_strays(self) -> None:
        """Plan the agents that need it: new targets, strays and stuck ones."""
        pending = self._pending
        pending |= self._strayed()
        for i in np.flatnonzero(pending).tolist():
            self._plan(i)

    def _plan(self, i: int) -> None:
        self._pending[i] = False
        corners, corridor = self._world.route(self.crowd.position[i].copy(),
                                              self._target[i].copy())
        if corners is None:
            self._state[i] = _STATES.index(NO_PATH)
            corners = self.crowd.position[i][None].copy()
        else:
            self._target[i] = self.crowd.goal[i] = corners[-1]     # moved onto the mesh
            if _STATES[self._state[i]] != STUCK:
                self._state[i] = _STATES.index(MOVING)
        k, width = len(corners), self._corners.shape[1]
        if k > width:
            self.crowd.resize_field("nav_corners", (k, 2))
            self._corners[:, width:] = self._corners[:, width - 1:width]
        self._corners[i, :k] = corners
        self._corners[i, k:] = corners[-1]
        if len(corridor) > self._corridor.shape[1]:
            self.crowd.resize_field("nav_corridor", (len(corridor),))
        self._corridor[i] = -1
        self._corridor[i, :len(corridor)] = corridor
        self._count[i], self._next[i] = k, min(1, k - 1)
        self._anchor[i], self._clock[i] = self.crowd.position[i], 0.0

    def _follow(self, dt: float) -> np.ndarray:
        """Preferred velocities along the paths (advancing past reached corners)."""
        n = len(self.crowd)
        rows = np.arange(n)
        p, speed = self.crowd.position, self.crowd.max_speed
        corners, count, nxt = self._corners, self._count, self._next
        reach = np.maximum(self.corner_radius, speed * dt)
        for _ in range(3):                          # at most a few corners a step
            gap = np.hypot(*(corners[rows, nxt] - p).T)
            done = (gap <= reach) & (nxt < count - 1)
            if not done.any():
                break
            nxt[done] += 1
        state = self._state
        going = (state == _STATES.index(MOVING)) | (state == _STATES.index(STUCK))
        to = corners[rows, nxt] - p
        dist = np.hypot(to[:, 0], to[:, 1])
        last = nxt == count - 1
        want = np.where(last, np.minimum(speed, dist / dt), speed)
        holding = state == _STATES.index(ARRIVED)              # pushed off: back it goes
        scale = np.divide(want, dist, out=np.zeros(n), where=(dist > 0) & (going | holding))
        arrived = going & last & (dist <= self.arrive_distance)
        state[arrived] = _STATES.index(ARRIVED)
        return to * scale[:, None]

    def _strayed(self) -> np.ndarray:
        """Moving agents further than ``replan_distance`` from the stretch between their
        previous corner and their next, or off their route by the world's own rule."""
        n = len(self.crowd)
        rows, nxt, p, corners = np.arange(n), self._next, self.crowd.position, self._corners
        a, b = corners[rows, np.maximum(nxt - 1, 0)], corners[rows, nxt]
        e = b - a
        t = np.clip(((p - a) * e).sum(1) / np.maximum((e * e).sum(1), 1e-300), 0, 1)
        off = np.hypot(*(a + t[:, None] * e - p).T)
        state = self._state
        going = (state == _STATES.index(MOVING)) | (state == _STATES.index(STUCK))
        strayed = off > self.replan_distance
        if n:
            strayed |= self._world.off_route(p, self._corridor)
        return going & strayed

    def _watch(self, dt: float) -> None:
        """The stuck clocks: an agent that has not moved ``stuck_distance`` from where its
        clock started for ``stuck_time`` replans; too many times in a row: STUCK."""
        p = self.crowd.position
        anchor, clock, replans = self._anchor, self._clock, self._replans
        moved = np.hypot(*(p - anchor).T) > self.stuck_distance
        anchor[moved] = p[moved]
        clock[moved] = 0.0
        replans[moved] = 0
        state = self._state
        going = (state == _STATES.index(MOVING)) | (state == _STATES.index(STUCK))
        clock[:] = np.where(going & ~moved, clock + dt, 0.0)
        late = clock >= self.stuck_time
        replans[late] += 1
        state[late & (replans >= self.max_replans)] = _STATES.index(STUCK)
        state[moved & (state == _STATES.index(STUCK))] = _STATES.index(MOVING)
        if self._world.plans:
            self._pending[late] = True
        clock[late] = 0.0
        anchor[late] = p[late]


# ---------------------------------------------------------------------- worlds
class _PathWorld(ABC):
    """A world with paths: planned agent by agent, followed corner by corner."""

    plans = True
    #: The agents' radius the world was built for (None: unknown or any).
    built_for: float | None = None

    @abstractmethod
    def walls(self) -> Any:
        """The obstacles ORCA takes when it is given none."""

    @abstractmethod
    def route(self, start: np.ndarray, target: np.ndarray
              ) -> tuple[np.ndarray | None, np.ndarray]:
        """The path's corners from ``start`` to ``target`` (None when there is none) and,
        on a mesh, its corridor of polygons."""

    def off_route(self, points: np.ndarray, corridors: np.ndarray) -> np.ndarray:
        """Which agents have left their route by this world's own rule (beyond straying
        from the stretch they are on): none."""
        return np.zeros(len(points), dtype=bool)

    def preferred(self, nav: Navigator, dt: float) -> np.ndarray:
        nav._replan_strays()
        return nav._follow(dt)


class _MeshWorld(_PathWorld):
    """The straight path through the corridor of polygons; an agent on a polygon off its
    corridor has left its route.  Queries go through the navigator's own
    :class:`~wayfinding.navmesh.NavMeshQuery`."""

    def __init__(self, mesh: NavMesh):
        self.mesh = mesh
        self.query = NavMeshQuery(mesh)
        self.built_for = _built_for(mesh)

    def walls(self) -> Any:
        return self.mesh if self.mesh.source_walls is None else self.mesh.source_walls

    def route(self, start: np.ndarray, target: np.ndarray
              ) -> tuple[np.ndarray | None, np.ndarray]:
        r = self.query.find_path(start, target)
        return (r.path, r.corridor) if r.found else (None, _NO_CORRIDOR)

    def off_route(self, points: np.ndarray, corridors: np.ndarray) -> np.ndarray:
        poly = self.query.locate_many(points)
        return (poly >= 0) & ~(corridors == poly[:, None]).any(1)


class _GridWorld(_PathWorld):
    """The grid path through cell centres, shortcut along lines of sight; a target on a
    blocked cell or off the grid has no path."""

    def __init__(self, grid: Grid):
        self.grid = grid
        self.search = GridSearch(grid)      # the navigator's own search scratch

    def walls(self) -> Any:
        return self.grid

    def route(self, start: np.ndarray, target: np.ndarray
              ) -> tuple[np.ndarray | None, np.ndarray]:
        grid = self.grid
        (sx, sy), (gx, gy) = grid.world_to_cell(start), grid.world_to_cell(target)
        h, w = grid.shape
        if not (0 <= sx < w and 0 <= sy < h and 0 <= gx < w and 0 <= gy < h) \
                or not (grid.passable[sy, sx] and grid.passable[gy, gx]):
            return None, _NO_CORRIDOR
        r = self.search.find_path((sx, sy), (gx, gy))
        if not r.found:
            return None, _NO_CORRIDOR
        cells = smooth_path(grid, r.path).astype(np.float64)
        centres = np.asarray(grid.origin) + (cells + 0.5) * grid.cell_size
        # Start and target join their own cells' centres (within one free cell).
        return np.concatenate([start[None], centres, target[None]]), _NO_CORRIDOR


class _FlowWorld:
    """No paths: every agent follows the field to its goals; agents on a goal cell have
    arrived (and walk on when pushed off it)."""

    plans = False
    built_for: float | None = None

    def __init__(self, flow: FlowField):
        self.flow = flow

    def walls(self) -> Any:
        return self.flow.grid

    def preferred(self, nav: Navigator, dt: float) -> np.ndarray:
        flow, p = self.flow, nav.crowd.position
        cells, inside = flow.grid.world_to_cells(p)
        there = inside & (flow.codes[cells[:, 1], cells[:, 0]] == GOAL)
        state = nav._state
        state[:] = _STATES.index(ARRIVED)
        state[~there] = _STATES.index(MOVING)                  # pushed off: back it goes
        return np.where(there[:, None], 0.0, flow.sample_world(p) * nav.crowd.max_speed[:, None])


_ADAPTERS: dict[type, Any] = {NavMesh: _MeshWorld, Grid: _GridWorld, FlowField: _FlowWorld}


def _built_for(mesh: NavMesh) -> float | None:
    """The agents' radius ``mesh`` was built for: how far the corners of its walls keep
    from the walls of the area it was built from (each of them that far, up to rounding:
    the median of at most 256 of them, to 10 significant digits); None for a mesh that
    does not know that area (one loaded from a file)."""
    if not mesh.source_walls:
        return None
    wall = (np.arange(mesh.polygons.shape[1]) < mesh.sizes[:, None]) & (mesh.neighbours < 0)
    corners = np.unique(mesh.polygons[wall])
    if not len(corners):
        return None
    pick = corners[np.linspace(0, len(corners) - 1, min(len(corners), 256)).astype(np.int64)]
    pts = mesh.vertices[pick]
    a = np.concatenate(mesh.source_walls)
    ab = np.concatenate([np.roll(loop, -1, axis=0) for loop in mesh.source_walls]) - a
    length2 = np.maximum((ab * ab).sum(1), 1e-300)
    nearest = np.empty(len(pts))
    step = max(1, 1_000_000 // len(a))
    for k in range(0, len(pts), step):
        v = pts[k:k + step, None, :] - a[None]
        t = np.clip((v * ab).sum(2) / length2, 0.0, 1.0)
        nearest[k:k + step] = np.hypot(*np.moveaxis(v - t[..., None] * ab, 2, 0)).min(1)
    return float(f"{np.median(nearest):.10g}")
