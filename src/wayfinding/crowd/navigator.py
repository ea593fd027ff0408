"""A crowd manager: add an agent with a target, call :meth:`Navigator.update` every frame.

The navigator plans each agent's path over its world, follows it corner by corner and hands
the preferred velocities to a local-avoidance model.  Worlds:

* a :class:`~wayfinding.navmesh.NavMesh`: the straight path through the corridor of
  polygons (:meth:`NavMesh.find_path`); build it for the agents' radius, so that corners
  keep them clear of the walls.  A target off the mesh moves to the nearest point on it
  (as the agent's target and its goal in the crowd);
* a :class:`~wayfinding.grid.Grid`: the grid path through cell centres, shortcut along
  lines of sight, in world coordinates (by the grid's origin and cell size); a target on a
  blocked cell or off the grid has no path;
* a :class:`~wayfinding.fields.FlowField`: no paths at all; every agent follows the field
  to its goals (the target is the field's).

Following: an agent heads for its next corner at top speed and takes the one after once
within ``corner_radius`` of it (or one step's travel); on the last stretch it slows to stop
on the target, and has arrived within ``arrive_distance`` of it (pushed away after,
it walks back).  It replans when it strays more than ``replan_distance`` from the stretch it
is on, or on a mesh onto a polygon off its corridor (pushed off by others), and when it
has been stuck (moved less than ``stuck_distance`` over ``stuck_time`` seconds) short of its
target; after ``max_replans`` stuck replans in a row its state says :data:`STUCK` (it
keeps trying).

All per-frame work is vectorised over the agents; only new targets and replans call the
planner, agent by agent.

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

from typing import Any

import numpy as np

from ..errors import InvalidQueryError
from ..fields import FlowField
from ..fields.flow import GOAL
from ..grid import Grid, find_path, smooth_path
from ..navmesh import NavMesh
from .agents import Crowd, _point, check_count, check_number

#: Agent states.
IDLE, MOVING, ARRIVED, NO_PATH, STUCK = "idle", "moving", "arrived", "no path", "stuck"
_STATES = (IDLE, MOVING, ARRIVED, NO_PATH, STUCK)


class Navigator:
    """Agents following paths over ``world`` (a :class:`~wayfinding.navmesh.NavMesh`,
    :class:`~wayfinding.grid.Grid` or :class:`~wayfinding.fields.FlowField`), with
    ``avoidance`` among them: any model with ``step(crowd, dt, preferred)``, such as
    :class:`~wayfinding.crowd.ORCA` (the default, ``ORCA(time_horizon=3,
    time_horizon_obst=1)`` with the walls of the world the agents plan on: a mesh's
    :attr:`~NavMesh.source_walls`, the walls of the area as given, not eroded by the radius
    the mesh was built for, or its :meth:`~NavMesh.boundary` for a mesh that has none (one
    loaded from a file: a radius further from the walls than needed, passages narrower
    than twice that closed); a grid's blocked cells and edge; a flow field's grid; so that
    agents pushed by others keep their radius clear of the walls) or
    :class:`~wayfinding.crowd.PowerLaw`; ``None`` moves them straight at their preferred
    velocities.  ``crowd``: the agents (default: a new
    :class:`Crowd`); add and remove them through the navigator.  Distances in world
    units, times in seconds."""

    def __init__(self, world: Any, *, avoidance: Any = "orca", crowd: Crowd | None = None,
                 corner_radius: float = 0.5, arrive_distance: float = 0.05,
                 replan_distance: float = 2.0,
                 stuck_time: float = 3.0, stuck_distance: float = 0.25,
                 max_replans: int = 3):
        if not isinstance(world, (NavMesh, Grid, FlowField)):
            raise InvalidQueryError(f"world must be a NavMesh, a Grid or a FlowField, got "
                                    f"{type(world).__name__}")
        if avoidance == "orca":
            from .orca import ORCA
            walls = world.grid if isinstance(world, FlowField) else world
            if isinstance(world, NavMesh) and world.source_walls is not None:
                walls = world.source_walls
            avoidance = ORCA(time_horizon=3.0, time_horizon_obst=1.0, obstacles=walls)
        if avoidance is not None and not callable(getattr(avoidance, "step", None)):
            raise InvalidQueryError("avoidance must have a step(crowd, dt, preferred) method")
        self.world, self.avoidance = world, avoidance
        self.crowd = Crowd() if crowd is None else crowd
        if len(self.crowd):
            raise InvalidQueryError("give an empty crowd: agents are added through add()")
        self.corner_radius = check_number(corner_radius, "corner_radius")
        self.arrive_distance = check_number(arrive_distance, "arrive_distance")
        self.replan_distance = check_number(replan_distance, "replan_distance")
        self.stuck_time = check_number(stuck_time, "stuck_time")
        self.stuck_distance = check_number(stuck_distance, "stuck_distance")
        self.max_replans = check_count(max_replans, "max_replans")
        self._corners = np.zeros((16, 2, 2))        # per row: the path, last corner repeated
        self._corridor = np.full((16, 1), -1, np.int32)   # its polygons on a mesh, -1 padded
        self._count = np.zeros(16, dtype=np.int64)  # corners in each path
        self._next = np.zeros(16, dtype=np.int64)   # the corner each agent heads for
        self._state = np.zeros(16, dtype=np.int8)   # index into _STATES
        self._target = np.zeros((16, 2))
        self._anchor = np.zeros((16, 2))            # where the stuck clock last started
        self._clock = np.zeros(16)
        self._replans = np.zeros(16, dtype=np.int64)
        self._pending = np.zeros(16, dtype=bool)    # needs a plan before the next step

    def __len__(self) -> int:
        return len(self.crowd)

    def __repr__(self) -> str:
        return f"Navigator({len(self.crowd)} agents on a {type(self.world).__name__})"

    def add(self, position: Any, target: Any = None, **agent: Any) -> int:
        """Add an agent at ``position`` bound for ``target`` (none: it stays put; on a
        flow field the field's goals) with the :meth:`Crowd.add` options (its ``goal`` in
        the crowd is the target); returns its id."""
        t = None if target is None else _point(target, "target")
        if t is not None:
            agent.setdefault("goal", t)
        agent_id = self.crowd.add(position, **agent)
        i = len(self.crowd) - 1
        if i == len(self._count):
            self._grow()
        p = self.crowd.position[i]
        self._corners[i] = p
        self._corridor[i] = -1
        self._count[i], self._next[i], self._clock[i], self._replans[i] = 1, 0, 0.0, 0
        self._anchor[i] = p
        self._target[i] = p if t is None else t
        flow = isinstance(self.world, FlowField)
        self._state[i] = _STATES.index(MOVING if flow or t is not None else IDLE)
        self._pending[i] = t is not None and not flow
        return agent_id

    def set_target(self, agent: int, target: Any) -> None:
        """Send an agent to a new target (planned at the next update)."""
        if isinstance(self.world, FlowField):
            raise InvalidQueryError("on a flow field the targets are the field's goals")
        i, t = self.crowd.row(agent), _point(target, "target")
        self._target[i] = self.crowd.goal[i] = t
        self._pending[i] = True
        self._replans[i] = 0
        self._state[i] = _STATES.index(MOVING)

    def remove(self, agent: int) -> None:
        """Remove an agent (the last row moves into its place, as in the crowd)."""
        i, last = self.crowd.row(agent), len(self.crowd) - 1
        for array in self._arrays():
            array[i] = array[last]
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
        dt = check_number(dt, "dt")
        n = len(self.crowd)
        if not isinstance(self.world, FlowField):
            self._pending[:n] |= self._strayed()
        for i in np.flatnonzero(self._pending[:n]).tolist():
            self._plan(i)
        pref = self._follow(dt) if not isinstance(self.world, FlowField) \
            else self._flow()
        if self.avoidance is None:
            self.crowd.step(dt, pref)
        else:
            self.avoidance.step(self.crowd, dt, pref)
        self._watch(dt)

    # ------------------------------------------------------------------ internals
    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (self._corners, self._corridor, self._count, self._next, self._state,
                self._target, self._anchor, self._clock, self._replans, self._pending)

    def _grow(self) -> None:
        size = 2 * len(self._count)
        (self._corners, self._corridor, self._count, self._next, self._state, self._target,
         self._anchor, self._clock, self._replans, self._pending) = (
            np.concatenate([a, np.zeros((size - len(a),) + a.shape[1:], a.dtype)])
            for a in self._arrays())
        self._corridor[size // 2:] = -1

    def _plan(self, i: int) -> None:
        self._pending[i] = False
        corners, corridor = self._route(self.crowd.position[i].copy(),
                                        self._target[i].copy())
        if corners is None:
            self._state[i] = _STATES.index(NO_PATH)
            corners = self.crowd.position[i][None].copy()
        else:
            self._target[i] = self.crowd.goal[i] = corners[-1]     # moved onto the mesh
            if _STATES[self._state[i]] != STUCK:
                self._state[i] = _STATES.index(MOVING)
        k = len(corners)
        if k > self._corners.shape[1]:
            grown = np.zeros((len(self._corners), k, 2))
            grown[:, :self._corners.shape[1]] = self._corners
            grown[:, self._corners.shape[1]:] = self._corners[:, -1:]
            self._corners = grown
        self._corners[i, :k] = corners
        self._corners[i, k:] = corners[-1]
        if len(corridor) > self._corridor.shape[1]:
            self._corridor = np.pad(self._corridor, ((0, 0), (0, len(corridor)
                                                             - self._corridor.shape[1])),
                                    constant_values=-1)
        self._corridor[i] = -1
        self._corridor[i, :len(corridor)] = corridor
        self._count[i], self._next[i] = k, min(1, k - 1)
        self._anchor[i], self._clock[i] = self.crowd.position[i], 0.0

    def _route(self, start: np.ndarray, target: np.ndarray
               ) -> tuple[np.ndarray | None, np.ndarray]:
        """The path's corners from ``start`` to ``target`` (None when there is none) and,
        on a mesh, its corridor of polygons."""
        world, none = self.world, np.zeros(0, np.int32)
        if isinstance(world, NavMesh):
            r = world.find_path(start, target)
            return (r.path, r.corridor) if r.found else (None, none)
        (sx, sy), (gx, gy) = world.world_to_cell(start), world.world_to_cell(target)
        h, w = world.shape
        if not (0 <= sx < w and 0 <= sy < h and 0 <= gx < w and 0 <= gy < h) \
                or not (world.passable[sy, sx] and world.passable[gy, gx]):
            return None, none
        r = find_path(world, (sx, sy), (gx, gy))
        if not r.found:
            return None, none
        cells = smooth_path(world, r.path).astype(np.float64)
        centres = np.asarray(world.origin) + (cells + 0.5) * world.cell_size
        # Start and target join their own cells' centres (within one free cell).
        return np.concatenate([start[None], centres, target[None]]), none

    def _follow(self, dt: float) -> np.ndarray:
        """Preferred velocities along the paths (advancing past reached corners)."""
        n = len(self.crowd)
        rows = np.arange(n)
        p, speed = self.crowd.position, self.crowd.max_speed
        count, nxt = self._count[:n], self._next[:n]
        reach = np.maximum(self.corner_radius, speed * dt)
        for _ in range(3):                          # at most a few corners a step
            gap = np.hypot(*(self._corners[rows, nxt] - p).T)
            done = (gap <= reach) & (nxt < count - 1)
            if not done.any():
                break
            nxt[done] += 1
        state = self._state[:n]
        going = (state == _STATES.index(MOVING)) | (state == _STATES.index(STUCK))
        to = self._corners[rows, nxt] - p
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
        previous corner and their next, or, on a mesh, on a polygon off their corridor."""
        n = len(self.crowd)
        rows, nxt, p = np.arange(n), self._next[:n], self.crowd.position
        a, b = self._corners[rows, np.maximum(nxt - 1, 0)], self._corners[rows, nxt]
        e = b - a
        t = np.clip(((p - a) * e).sum(1) / np.maximum((e * e).sum(1), 1e-300), 0, 1)
        off = np.hypot(*(a + t[:, None] * e - p).T)
        state = self._state[:n]
        going = (state == _STATES.index(MOVING)) | (state == _STATES.index(STUCK))
        strayed = off > self.replan_distance
        if isinstance(self.world, NavMesh) and n:
            poly = self.world.locate_many(p)
            strayed |= (poly >= 0) & ~(self._corridor[:n] == poly[:, None]).any(1)
        return going & strayed

    def _flow(self) -> np.ndarray:
        """Preferred velocities along the flow field; agents on a goal cell have arrived
        (and walk on when pushed off it)."""
        flow: FlowField = self.world
        n = len(self.crowd)
        cells, inside = flow.grid.world_to_cells(self.crowd.position)
        there = inside & (flow.codes[cells[:, 1], cells[:, 0]] == GOAL)
        state = self._state[:n]
        state[:] = _STATES.index(ARRIVED)
        state[~there] = _STATES.index(MOVING)                  # pushed off: back it goes
        return np.where(there[:, None], 0.0,
                        flow.sample_world(self.crowd.position) * self.crowd.max_speed[:, None])

    def _watch(self, dt: float) -> None:
        """The stuck clocks: an agent that has not moved ``stuck_distance`` from where its
        clock started for ``stuck_time`` replans; too many times in a row: STUCK."""
        n = len(self.crowd)
        p = self.crowd.position
        moved = np.hypot(*(p - self._anchor[:n]).T) > self.stuck_distance
        self._anchor[:n][moved] = p[moved]
        self._clock[:n][moved] = 0.0
        self._replans[:n][moved] = 0
        state = self._state[:n]
        going = (state == _STATES.index(MOVING)) | (state == _STATES.index(STUCK))
        self._clock[:n] = np.where(going & ~moved, self._clock[:n] + dt, 0.0)
        late = self._clock[:n] >= self.stuck_time
        self._replans[:n][late] += 1
        state[late & (self._replans[:n] >= self.max_replans)] = _STATES.index(STUCK)
        state[moved & (state == _STATES.index(STUCK))] = _STATES.index(MOVING)
        if not isinstance(self.world, FlowField):
            self._pending[:n] |= late
        self._clock[:n][late] = 0.0
        self._anchor[:n][late] = p[late]

