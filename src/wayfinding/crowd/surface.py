"""A crowd on a voxel navmesh (:class:`~wayfinding.navmesh3d.NavMesh3D`): agents that walk
its storeys, stairs and bridges, avoid each other with ORCA and cross its off-mesh links,
as Detour's ``dtCrowd`` runs them.

Each agent keeps a :class:`~wayfinding.navmesh3d.corridor.PathCorridor` to its target.  A
frame (:meth:`Navigator3D.update`) runs these stages in turn:

0. **validity**: an agent whose corridor holds a polygon its filter no longer allows (after
   :meth:`~wayfinding.navmesh3d.NavMesh3D.set_flags` or ``set_areas``) plans again from
   where it stands to the target it was given; after such a change, the walls are read
   again and an agent with :data:`NO_PATH` tries again;
1. **corners**: each walking agent's next corners through its corridor, the corridor first
   shortcut toward the corner after the next where the agent sees it
   (:meth:`~wayfinding.navmesh3d.corridor.PathCorridor.optimize_visibility`); and, as in
   Detour, one agent a frame, the one that has waited longest if that is at least
   ``topology_interval`` seconds, has its corridor searched again locally
   (:meth:`~wayfinding.navmesh3d.corridor.PathCorridor.optimize_topology`);
2. **links**: an agent within ``2.25 * radius`` (xz) of an off-mesh link's start that is
   its next corner leaves the ground: state :data:`ON_LINK` (see below), once no other
   agent walking on stands within the two radii of the far end (but for those waiting
   there to take the same link back: they cross in the air), nor is flying there (it
   waits);
3. **boundary**: each walking agent's walls, Detour's local boundary: the wall segments of
   the polygons of its local neighbourhood (reached from its own through portals within
   ``collision_range`` of it, none overlapping another in xz), those within that range in
   xz whose height span comes within the agent's height of its feet (refreshed when it
   has moved a quarter of the range or changed polygon);
4. **avoidance** (agents idle too, as in Detour): ORCA (:class:`~wayfinding.crowd.ORCA`)
   in xz toward the next corner at top speed (slowing to stop on the target), against
   its own walls (kept clear by the part of its radius the mesh's ``agent_radius`` has
   not already drawn them in by) and its neighbours within ``collision_range`` whose
   feet are less than half their two heights apart in y (Detour's rule: agents on
   another storey are not neighbours); agents on links are nobody's neighbours;
5. **move**: each walking agent moves by its velocity (those idle stand: they only
   give way), then four passes of Detour's
   collision handling part agents that overlap (each moves by the mean of 0.7 of half its
   overlap with each neighbour, by the rule of stage 4); then it slides along the surface
   from its corridor's first polygon to where that took it
   (:meth:`~wayfinding.navmesh3d.corridor.PathCorridor.move_position`), which also puts it
   on the detail mesh's ground (its y) and mends its corridor;
6. **links in flight**: an agent on a link moves from where it left the ground to the
   link's start in the first 15% of the crossing, then to its end, in a straight line
   (``kind`` other than ``"jump"``) or along a parabola rising ``jump_height`` above the
   higher end (``"jump"``); the crossing lasts the link's length (3D) over the agent's top
   speed (Detour's: half its length in xz over that speed).  Then it walks on from the far
   end, on the ground of the polygon it lands on.

States (:meth:`Navigator3D.state`): :data:`IDLE` (no target), :data:`MOVING`,
:data:`ON_LINK`, :data:`ARRIVED` (within ``arrive_distance`` of its target in xz, on its
polygon; pushed away it walks back), :data:`NO_PATH` (its position or target has no usable
polygon near it: it stays put, and tries again when flags or areas change).  A target
out of reach moves to the nearest point the search reached, as a 2D navigator moves a
target off its mesh onto it.

Changing meshes: flags and areas changed in place take effect at the next frame (stage 0);
a :class:`~wayfinding.navmesh3d.tilecache.TileCache`'s next mesh after an update is given
with :meth:`Navigator3D.set_mesh`, which keeps the corridors off the tiles rebuilt.

Per-agent work is Python over compiled queries (corners, raycasts, slides, boundaries);
ORCA and the collision passes run over all agents at once: about 0.05 ms per agent and
frame (200 agents on a 64 x 64 terrain: 10 ms a frame; the demo's 24 on two storeys:
about 2 ms).

>>> from wayfinding.navmesh3d import build, generate, with_flags
>>> nav = Navigator3D(with_flags(build(generate.stairs())))
>>> a = nav.add((1.0, 0.0, 1.5), target=(8.5, 1.6, 1.5))
>>> for _ in range(120):
...     nav.update(0.1)
>>> nav.state(a), nav.position(a).round(1).tolist()
('arrived', [8.5, 1.7, 1.5])
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._arrays import concatenated_ranges
from .._validate import positive_float
from ..errors import InvalidQueryError, brief
from ..navmesh.records import DEFAULT_FILTER, END, OFFMESH, QueryFilter
from ..navmesh3d import NavMesh3D, NavMesh3DQuery
from ..navmesh3d.corridor import PathCorridor, polygon_map
from ..navmesh3d.query import _point
from ..results import _fields_equal
from .agents import Crowd
from .orca import ORCA
from .states import ARRIVED, IDLE, MOVING, NO_PATH, ON_LINK

__all__ = ["ARRIVED", "IDLE", "MOVING", "NO_PATH", "ON_LINK", "Navigator3D"]

_STATES = (IDLE, MOVING, ARRIVED, NO_PATH, ON_LINK)
_IDLE, _MOVING, _ARRIVED, _NO_PATH, _ON_LINK = range(5)

#: The corners each agent looks ahead (Detour's crowd: 4).
_LOOK_AHEAD = 4


@dataclass
class _Flight:
    """An agent's crossing of an off-mesh link: from ``launch`` (where it left the ground)
    to the link's ``start`` then ``end``, over ``duration`` seconds."""

    launch: np.ndarray
    start: np.ndarray
    end: np.ndarray
    duration: float
    jump: bool
    t: float = 0.0
    #: a target given while in flight, planned on landing
    pending: tuple[float, float, float] | None = None

    __eq__ = _fields_equal


class Navigator3D:
    """Agents walking a :class:`~wayfinding.navmesh3d.NavMesh3D` (see the module for a
    frame's stages): the vocabulary of :class:`~wayfinding.crowd.Navigator` (``add``,
    ``set_target``, ``remove``, ``state``, ``path``, ``update``) with 3D positions
    ``(x, y, z)``, y up.

    ``mesh``: its polygons need flags the ``filter`` includes
    (:func:`~wayfinding.navmesh3d.with_flags`).  ``radius`` and ``height``: the agents'
    defaults (world units; default the mesh's ``agent_radius`` and ``agent_height``).
    ``avoidance``: an :class:`~wayfinding.crowd.ORCA` (default ``ORCA(time_horizon=3,
    time_horizon_obst=1)``; its ``obstacles`` are not used: walls come from the mesh) or
    ``None`` to move at the preferred velocities.  ``collision_range``: how far (xz)
    agents look for walls and neighbours (default 12 radii, Detour's);
    ``path_range``: how far a visibility shortcut reaches (default 30 radii);
    ``topology_interval``: seconds an agent waits between local searches (Detour: 0.5;
    one agent a frame); ``jump_height``:
    the apex of a jump above its higher end.  Times in seconds."""

    def __init__(self, mesh: NavMesh3D, *, filter: QueryFilter = DEFAULT_FILTER,
                 radius: float | None = None, height: float | None = None,
                 avoidance: Any = "orca", collision_range: float | None = None,
                 path_range: float | None = None, topology_interval: float = 0.5,
                 arrive_distance: float = 0.05, jump_height: float = 1.0,
                 crowd: Crowd | None = None):
        if not isinstance(mesh, NavMesh3D):
            raise InvalidQueryError(f"mesh must be a NavMesh3D, got {type(mesh).__name__}")
        if not isinstance(filter, QueryFilter):
            raise InvalidQueryError(f"filter must be a QueryFilter, got {type(filter).__name__}")
        s = mesh.settings
        self.mesh, self.filter = mesh, filter
        self.query = NavMesh3DQuery(mesh)
        self.radius = positive_float("radius", s.agent_radius if radius is None else radius)
        self.height = positive_float("height", s.agent_height if height is None else height)
        self.collision_range = positive_float(
            "collision_range", 12 * self.radius if collision_range is None else collision_range)
        self.path_range = positive_float(
            "path_range", 30 * self.radius if path_range is None else path_range)
        self.topology_interval = positive_float("topology_interval", topology_interval)
        self.arrive_distance = positive_float("arrive_distance", arrive_distance)
        self.jump_height = positive_float("jump_height", jump_height, allow_zero=True)
        if isinstance(avoidance, str) and avoidance == "orca":
            avoidance = ORCA(time_horizon=3.0, time_horizon_obst=1.0)
        elif isinstance(avoidance, ORCA):
            avoidance = copy.copy(avoidance)
        elif avoidance is not None:
            raise InvalidQueryError(f"avoidance must be an ORCA or None, got {brief(avoidance)}")
        self.avoidance = avoidance
        crowd = Crowd(neighbour_dist=self.collision_range) if crowd is None else crowd
        if not isinstance(crowd, Crowd) or len(crowd):
            raise InvalidQueryError("give an empty Crowd: agents are added through add()")
        for name, shape, dtype, fill in (("surface_y", (), np.float64, 0.0),
                                         ("surface_height", (), np.float64, 0.0),
                                         ("surface_state", (), np.int8, _IDLE),
                                         ("surface_clock", (), np.float64, 0.0)):
            crowd.add_field(name, shape=shape, dtype=dtype, fill=fill)
        self.crowd = crowd
        self._corridors: dict[int, PathCorridor] = {}
        self._goals: dict[int, tuple[float, float, float]] = {}      # as given
        self._flights: dict[int, _Flight] = {}
        self._waiting: dict[int, int] = {}          # the link an agent waits to take
        self._boundaries: dict[int, tuple[np.ndarray, int, np.ndarray]] = {}
        self._walls = _WallTable(self.query, filter)
        self._revision = mesh.revision[0]
        #: The last frame's stages (corners, boundary, avoidance, move, links) in ms.
        self.stage_ms: dict[str, float] = {}

    def __len__(self) -> int:
        return len(self.crowd)

    def __repr__(self) -> str:
        return f"Navigator3D({len(self.crowd)} agents on {self.mesh!r})"

    # ------------------------------------------------------------------ agents
    def add(self, position: ArrayLike, *, target: ArrayLike | None = None,
            radius: float | None = None, height: float | None = None,
            max_speed: float = 1.4, max_accel: float = math.inf, group: int = 0) -> int:
        """Add an agent at ``position`` (x, y, z; put on the nearest ground) bound for
        ``target`` (none: it stays put); returns its id.  A position with no usable
        polygon near it is an :class:`~wayfinding.errors.InvalidQueryError`."""
        p = _point(position, "position")
        poly, ground = self.query.nearest(p, filter=self.filter)
        if poly < 0:
            raise InvalidQueryError(f"position {brief(position)} is off the mesh: no usable "
                                    "polygon near it")
        t = None if target is None else _point(target, "target")
        r = self.radius if radius is None else positive_float("radius", radius)
        h = self.height if height is None else positive_float("height", height)
        agent = self.crowd.add((ground[0], ground[2]), radius=r, max_speed=max_speed,
                               max_accel=max_accel, group=group)
        i = self.crowd.row(agent)
        self.crowd.field("surface_y")[i] = ground[1]
        self.crowd.field("surface_height")[i] = h
        self._corridors[agent] = PathCorridor(self.query, ground, ground, filter=self.filter)
        self._plan(agent, ground if t is None else t, idle=t is None)
        return agent

    def set_target(self, agent: int, target: ArrayLike) -> None:
        """Send an agent to a new target (planned now; an agent on a link plans from the
        link's far end when it lands)."""
        i = self.crowd.row(agent)
        t = _point(target, "target")
        if self.crowd.field("surface_state")[i] == _ON_LINK:
            self._flights[agent].pending = t
            return
        self._plan(agent, t)

    def remove(self, agent: int) -> None:
        """Remove an agent."""
        self.crowd.remove(agent)
        for table in (self._corridors, self._goals, self._flights, self._waiting,
                      self._boundaries):
            table.pop(agent, None)

    def state(self, agent: int) -> str:
        """:data:`IDLE`, :data:`MOVING`, :data:`ON_LINK`, :data:`ARRIVED` or
        :data:`NO_PATH`."""
        return _STATES[self.crowd.field("surface_state")[self.crowd.row(agent)]]

    def position(self, agent: int) -> np.ndarray:
        """An agent's position ``(x, y, z)``."""
        i = self.crowd.row(agent)
        x, z = self.crowd.position[i]
        return np.array([x, self.crowd.field("surface_y")[i], z])

    @property
    def positions(self) -> np.ndarray:
        """``(n, 3)`` positions of the agents in the crowd's row order (a copy)."""
        p = self.crowd.position
        return np.column_stack([p[:, 0], self.crowd.field("surface_y"), p[:, 1]])

    @property
    def states(self) -> list[str]:
        """The agents' states in the crowd's row order."""
        return [_STATES[k] for k in self.crowd.field("surface_state").tolist()]

    def corridor(self, agent: int) -> PathCorridor:
        """An agent's corridor (live: it changes as the agent moves)."""
        self.crowd.row(agent)
        return self._corridors[agent]

    def path(self, agent: int) -> np.ndarray:
        """The corners still ahead of an agent, ``(k, 3)``."""
        self.crowd.row(agent)
        return self._corridors[agent].corners().points.copy()

    def set_mesh(self, mesh: NavMesh3D) -> None:
        """Walk ``mesh`` from now on: the next mesh of a
        :class:`~wayfinding.navmesh3d.tilecache.TileCache` after an update that rebuilt
        tiles (:attr:`~wayfinding.navmesh3d.tilecache.TileCache.changed`).  Corridors whose
        polygons all lie on tiles the two meshes share carry over
        (:meth:`~wayfinding.navmesh3d.corridor.PathCorridor.adopt`); the others are planned
        again from where their agents stand to the targets they were given (:data:`NO_PATH`
        for an agent with no usable polygon under it: an obstacle dropped on it); agents in
        flight fly on and plan again when they land.  All corridors move to the new mesh,
        or (on an error) none."""
        if not isinstance(mesh, NavMesh3D):
            raise InvalidQueryError(f"mesh must be a NavMesh3D, got {type(mesh).__name__}")
        if mesh.settings != self.mesh.settings:
            raise InvalidQueryError("the new mesh must be built with the same settings")
        old, mapping = self.mesh, polygon_map(self.mesh, mesh)
        query = NavMesh3DQuery(mesh)
        walls = _WallTable(query, self.filter)
        state = self.crowd.field("surface_state")
        adopted: dict[int, tuple[PathCorridor, bool | None]] = {}
        for agent, c in self._corridors.items():      # all carried over, or none
            moved = copy.copy(c)
            try:        # a corridor left on an older mesh maps from its own
                whole: bool | None = moved.adopt(
                    query, mapping=mapping if c.query.mesh is old else None)
            except InvalidQueryError:
                moved, whole = c, None              # no usable polygon under it
            adopted[agent] = (moved, whole)
        self.mesh, self.query, self._walls = mesh, query, walls
        self._revision = mesh.revision[0]
        self._boundaries.clear()
        for i, agent in enumerate(self.crowd.ids.tolist()):
            moved, whole = adopted[agent]
            c = self._corridors[agent]
            c.__dict__.update(moved.__dict__)       # the same corridor object, moved on
            goal = self._goals[agent]
            if state[i] == _ON_LINK:
                if not whole and self._flights[agent].pending is None:
                    self._flights[agent].pending = goal     # planned on landing
            elif whole is None:
                state[i] = _NO_PATH                 # it stays put until planned again
            elif not whole or state[i] == _NO_PATH:
                self._plan(agent, goal, idle=state[i] == _IDLE)

    def _repair(self, agent: int, *, idle: bool = False) -> None:
        """Stage 0 for an agent whose corridor holds a polygon its filter no longer
        allows (the mesh's flags or areas changed): cut it there, then plan again from
        where it stands to the target it was given (:data:`NO_PATH` when no usable
        polygon is near it)."""
        try:
            self._corridors[agent].trim_invalid()
        except InvalidQueryError:
            self.crowd.field("surface_state")[self.crowd.row(agent)] = _NO_PATH
            return
        self._plan(agent, self._goals[agent], idle=idle)

    def _plan(self, agent: int, target: tuple[float, float, float], *,
              idle: bool = False) -> None:
        self._goals[agent] = target
        i = self.crowd.row(agent)
        state = self.crowd.field("surface_state")
        c = self._corridors[agent]
        try:
            if c.query is self.query:
                c.replan(target=target)
            else:               # left on an older mesh (see set_mesh): start afresh
                c = PathCorridor(self.query, self.position(agent), target,
                                 filter=self.filter)
                self._corridors[agent] = c
        except InvalidQueryError:
            state[i] = _NO_PATH
            return
        state[i] = _IDLE if idle else _MOVING
        self.crowd.goal[i] = (c.target[0], c.target[2])
        self._boundaries.pop(agent, None)

    # ------------------------------------------------------------------ a frame
    def update(self, dt: float) -> None:
        """Advance every agent ``dt`` seconds (see the module for the stages; the time each
        took, in ms, is kept in :attr:`stage_ms`)."""
        dt = positive_float("dt", dt)
        crowd = self.crowd
        n = len(crowd)
        ids = crowd.ids.tolist()
        state = crowd.field("surface_state")
        ys = crowd.field("surface_y")
        clock = _StageClock()
        pref = np.zeros((n, 2))
        walking = np.zeros(n, bool)
        waited = crowd.field("surface_clock")
        going = (state == _MOVING) & (waited >= self.topology_interval)
        if going.any():                  # the one agent that has waited longest
            i = int(np.argmax(np.where(going, waited, -1.0)))
            waited[i] = 0.0
            self._corridors[ids[i]].optimize_topology()
        revised = self.mesh.revision[0] != self._revision
        if revised:                      # flags or areas changed: walls and stranded agents
            self._revision = self.mesh.revision[0]
            self._boundaries.clear()
        corridors = self._corridors
        for i, agent in enumerate(ids):                       # stages 0-2
            if revised and state[i] == _NO_PATH:
                self._plan(agent, self._goals[agent])
            now = state[i]
            if now in (_MOVING, _ARRIVED, _IDLE) and not corridors[agent].is_valid():
                self._repair(agent, idle=now == _IDLE)
                now = state[i]
            if now in (_MOVING, _ARRIVED):
                self._steer(i, agent, dt, pref)
            walking[i] = state[i] in (_MOVING, _ARRIVED, _IDLE)
        walking &= state != _ON_LINK
        clock.lap("corners")
        walls = self._boundary(walking)                       # stage 3
        clock.lap("boundary")
        if self.avoidance is None:                            # stage 4
            v = pref
        else:
            wall_radius = np.maximum(crowd.radius - self.mesh.settings.agent_radius, 0.0)
            v = self.avoidance.velocities(crowd, dt, preferred=pref,
                                          neighbours=self._neighbours(state != _ON_LINK),
                                          walls=walls, wall_radius=wall_radius)
        v[~walking] = 0.0
        clock.lap("avoidance")
        crowd.step(dt, velocity=v)                            # stage 5
        self._separate(walking)
        moved = crowd.position
        rows = np.flatnonzero(walking)
        xzs, heights, landed = moved[rows].tolist(), ys[rows].tolist(), []
        for i, (x, z), y in zip(rows.tolist(), xzs, heights):
            c = corridors[ids[i]]
            c.move_position((x, y, z))
            landed.append(c.position)
        if landed:
            got = np.array(landed, np.float64)
            moved[rows] = got[:, [0, 2]]
            ys[rows] = got[:, 1]
        clock.lap("move")
        for i in np.flatnonzero(state == _ON_LINK).tolist():  # stage 6
            self._fly(i, ids[i], dt)
        crowd.field("surface_clock")[:] += dt
        clock.lap("links")
        self.stage_ms = clock.ms

    def _steer(self, i: int, agent: int, dt: float, pref: np.ndarray) -> None:
        """Stages 1-2 for one agent: its preferred velocity (xz) into ``pref[i]`` (left
        zero when it stops, or takes the link state when it leaves the ground)."""
        crowd, c = self.crowd, self._corridors[agent]
        self._waiting.pop(agent, None)
        corners = c.corners(max_corners=_LOOK_AHEAD)
        if len(corners) > 1 and \
                c.optimize_visibility(tuple(corners.points[1].tolist()), self.path_range):
            corners = c.corners(max_corners=_LOOK_AHEAD)
        if not len(corners):
            return
        px, pz = crowd.position[i].tolist()
        flag = int(corners.flags[0])
        nx, _, nz = corners.points[0].tolist()
        tx, tz = nx - px, nz - pz
        dist = math.hypot(tx, tz)
        if flag & OFFMESH and dist <= 2.25 * crowd.radius[i]:
            link = int(corners.polygons[0]) - self.mesh.num_polygons
            if self._clear_to_land(i, agent, link):
                self._take_off(i, agent, link)
            return
        speed = float(crowd.max_speed[i])
        if flag & END:
            if dist <= self.arrive_distance:
                crowd.field("surface_state")[i] = _ARRIVED
                return
            speed = min(speed, dist / dt)
        if dist > 0:
            pref[i] = (tx * (speed / dist), tz * (speed / dist))

    def _separate(self, walking: np.ndarray) -> None:
        """Stage 5's first half, Detour's collision handling: four passes that each move
        every walking agent by the mean of 0.7 of half its overlap with each neighbour
        (same rule as ORCA's: on its storey, on the ground), apart along their centres."""
        crowd = self.crowd
        n = len(crowd)
        if n < 2 or not walking.any():
            return
        grounded = crowd.field("surface_state") != _ON_LINK
        reach = 2 * float(crowd.radius.max())
        for _ in range(4):
            rows = self._near(grounded, reach, 8)[0]
            hit_ok = rows >= 0
            j = np.where(hit_ok, rows, 0)
            p = crowd.position
            diff = p[:, None, :] - p[j]
            dist = np.hypot(diff[..., 0], diff[..., 1])
            pen = crowd.radius[:, None] + crowd.radius[j] - dist
            hit = hit_ok & (pen > 0) & walking[:, None]
            if not hit.any():
                return
            # centres that coincide part along x, the lower row to the left
            same = dist < 1e-4
            diff[same] = np.stack([np.where(np.arange(n)[:, None] < j, -1e-4, 1e-4)[same],
                                   np.zeros(int(same.sum()))], axis=-1)
            dist = np.maximum(dist, 1e-4)
            push = diff * (0.35 * pen / dist)[..., None] * hit[..., None]
            count = hit.sum(1)
            p += push.sum(1) / np.maximum(count, 1)[:, None]

    # ------------------------------------------------------------------ links
    def _clear_to_land(self, i: int, agent: int, link: int) -> bool:
        """Whether no other agent walking on (:data:`MOVING`, not itself waiting at the far
        end to take the same link back) stands within the two radii of the far end of
        ``link`` (xz, on its storey), nor is landing there: else the agent waits at the
        start.  Agents standing still there (arrived, idle) are landed beside, and the
        collision passes part them."""
        ends = self.mesh.links[link]
        me = self.position(agent)
        a, b = np.asarray(ends.start, float), np.asarray(ends.end, float)
        far = b if np.hypot(*(b - me)[[0, 2]]) >= np.hypot(*(a - me)[[0, 2]]) else a
        crowd = self.crowd
        p, y = crowd.position, crowd.field("surface_y")
        state = crowd.field("surface_state")
        h = crowd.field("surface_height")
        near = (np.hypot(p[:, 0] - far[0], p[:, 1] - far[2]) < crowd.radius + crowd.radius[i]) \
            & (np.abs(y - far[1]) < (h + h[i]) / 2) & (state == _MOVING)
        near[i] = False
        ids = crowd.ids
        if any(self._waiting.get(int(ids[k])) != link for k in np.flatnonzero(near).tolist()):
            self._waiting[agent] = link
            return False
        r = crowd.radius[i]
        return not any(np.hypot(*(f.end - far)[[0, 2]]) < 2 * r
                       for f in self._flights.values())

    def _take_off(self, i: int, agent: int, link: int) -> None:
        """Stage 2 for one agent: onto ``link``, its corridor moved past it."""
        self._waiting.pop(agent, None)
        c = self._corridors[agent]
        start, end = (np.array(p) for p in c.move_over_link(link))
        launch = self.position(agent)
        length = float(np.linalg.norm(end - start))
        speed = max(self.crowd.max_speed[i], 1e-9)
        self._flights[agent] = _Flight(launch, start, end, length / speed,
                                       self.mesh.links[link].kind == "jump")
        self.crowd.field("surface_state")[i] = _ON_LINK
        self.crowd.velocity[i] = 0.0

    def _fly(self, i: int, agent: int, dt: float) -> None:
        f = self._flights[agent]
        f.t += dt
        crowd = self.crowd
        if f.t >= f.duration:
            crowd.position[i] = (f.end[0], f.end[2])
            crowd.field("surface_y")[i] = f.end[1]
            crowd.field("surface_state")[i] = _MOVING
            del self._flights[agent]
            self._boundaries.pop(agent, None)
            if f.pending is not None:
                self._plan(agent, f.pending)
            return
        ta = 0.15 * f.duration
        if f.t < ta:
            p = f.launch + (f.start - f.launch) * (f.t / ta)
        else:
            u = (f.t - ta) / (f.duration - ta)
            p = f.start + (f.end - f.start) * u
            if f.jump:
                p[1] += 4 * u * (1 - u) * (max(f.start[1], f.end[1]) + self.jump_height
                                           - (f.start[1] + f.end[1]) / 2)
        crowd.position[i] = (p[0], p[2])
        crowd.field("surface_y")[i] = p[1]

    # ------------------------------------------------------------------ avoidance
    def _neighbours(self, grounded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each agent's neighbours for ORCA (stage 4), Detour's rule: the nearest agents
        on the ground (not on a link) within the neighbour distance whose feet are less
        than half the two agents' heights apart in y, at most the neighbour count (ORCA's
        or the crowd's), as ``(rows, counts)``."""
        crowd, orca = self.crowd, self.avoidance
        k = crowd.max_neighbours if orca.max_neighbours is None else orca.max_neighbours
        return self._near(grounded, orca.neighbour_dist, k)

    def _near(self, grounded: np.ndarray, distance: float, k: int
              ) -> tuple[np.ndarray, np.ndarray]:
        """Each agent's nearest ``k`` agents within ``distance`` (xz) that are on the
        ground and on its storey (feet less than half the two heights apart in y), as
        ``(rows, counts)``: the storey is checked before the nearest are kept, so agents
        on another storey close by take no one's place."""
        crowd = self.crowd
        n = len(crowd)
        ys, hs = crowd.field("surface_y"), crowd.field("surface_height")
        look = min(max(n - 1, 0), 2 * k)
        while True:
            rows, raw = crowd.neighbours(distance=distance, max_neighbours=look)
            j = np.where(rows >= 0, rows, 0)
            ok = (rows >= 0) & grounded[j] & \
                (np.abs(ys[j] - ys[:, None]) < (hs[j] + hs[:, None]) / 2)
            kept = ok.sum(1)
            if look >= n - 1 or not ((kept < k) & (raw >= look)).any():
                break
            look = min(n - 1, 4 * look)           # some lists were full of others
        order = np.argsort(~ok, axis=1, kind="stable")          # the kept ones first
        packed = np.take_along_axis(np.where(ok, rows, -1), order, axis=1)[:, :k]
        return packed, np.minimum(kept, k)

    def _boundary(self, walking: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each walking agent's walls (stage 3) as ``(ptr, segments (m, 2, 2))`` in xz."""
        crowd = self.crowd
        ys, hs = crowd.field("surface_y"), crowd.field("surface_height")
        parts: list[np.ndarray] = []
        sizes = np.zeros(len(crowd), np.int64)
        reach = self.collision_range
        ids, xzs = crowd.ids.tolist(), crowd.position.tolist()
        for i in np.flatnonzero(walking).tolist():
            agent = ids[i]
            x, z = xzs[i]
            first = int(self._corridors[agent].polygons[0])
            got = self._boundaries.get(agent)
            if got is None or got[1] != first or \
                    math.hypot(got[0][0] - x, got[0][1] - z) > reach / 4:
                segs = self._walls.near(x, ys[i], z, reach, hs[i])
                got = (np.array([x, z]), first, segs)
                self._boundaries[agent] = got
            parts.append(got[2])
            sizes[i] = len(got[2])
        ptr = np.zeros(len(crowd) + 1, np.int64)
        np.cumsum(sizes, out=ptr[1:])
        segs = np.concatenate(parts) if parts else np.zeros((0, 2, 2))
        return ptr, segs


class _StageClock:
    """Milliseconds per named stage of one frame."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.ms[stage] = (now - self._t) * 1000
        self._t = now


class _WallTable:
    """Every polygon's wall segments under a filter (again after the mesh's flags or
    areas change), and the walls near a point."""

    def __init__(self, query: NavMesh3DQuery, filter: QueryFilter):
        self.query, self.filter = query, filter
        self._read()

    def _read(self) -> None:
        query = self.query
        self.revision = query.mesh.revision[0]
        parts = [query.wall_segments(p, filter=self.filter)
                 for p in range(query.mesh.num_polygons)]
        sizes = np.array([len(w) for w in parts], np.int64)
        self.ptr = np.zeros(len(parts) + 1, np.int64)
        np.cumsum(sizes, out=self.ptr[1:])
        self.segs = np.concatenate(parts).astype(np.float64) if len(parts) \
            else np.zeros((0, 2, 3))

    def near(self, x: float, y: float, z: float, reach: float, height: float
             ) -> np.ndarray:
        """The walls (xz, ``(k, 2, 2)``) of the polygons of Detour's local neighbourhood of
        (x, y, z) (reached from its polygon through portals within ``reach`` of it in xz,
        none overlapping another in xz:
        :meth:`~wayfinding.navmesh3d.NavMesh3DQuery.local_neighbourhood`), those within
        ``reach`` of it whose height span comes within ``height`` of ``y``."""
        if self.revision != self.query.mesh.revision[0]:
            self._read()
        polys = self.query.local_neighbourhood((x, y, z), reach,
                                               filter=self.filter).polygons
        if not len(polys):
            return np.zeros((0, 2, 2))
        lo, hi = self.ptr[polys], self.ptr[polys + 1]
        n = hi - lo
        idx = concatenated_ranges(lo, n)
        s = self.segs[idx]
        a, b = s[:, 0, [0, 2]], s[:, 1, [0, 2]]
        e = b - a
        e2 = np.maximum((e * e).sum(1), 1e-300)
        p = np.array([x, z])
        t = np.clip(((p - a) * e).sum(1) / e2, 0.0, 1.0)
        d = np.hypot(*(a + t[:, None] * e - p).T)
        ylo, yhi = s[:, :, 1].min(1), s[:, :, 1].max(1)
        keep = (d <= reach) & (ylo <= y + height) & (yhi >= y - height)
        return np.ascontiguousarray(s[keep][:, :, [0, 2]])

