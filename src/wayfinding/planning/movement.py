"""Movement planning: A* over the states of a character that moves by animation clips.

A state is a root pose ``(x, y, heading)`` (world units, heading in radians counter-clockwise
from +x) and an animation state; each clip of a :class:`~wayfinding.planning.clips.ClipCatalogue`
that may play in that animation state is an action, its root motion applied in the state's
frame, its cost the clip's duration in seconds (plus an optional penalty per clip).  The goal
is a region: a position within ``position_tolerance`` of the goal point, in sight of it (the
straight segment between them clear), a heading within ``heading_tolerance`` of the goal
heading, and an animation state among ``end_states``.

The world is ``None`` (an open plane), a :class:`~wayfinding.grid.Grid` (its passable cells,
``cell_size`` world units each from its ``origin``) or a 2D
:class:`~wayfinding.navmesh.NavMesh`.  A clip may play only when its root path, a polyline
through poses at most ``step`` apart along the clip's arc or segment, stays farther than
``radius`` from every wall (the edges between the walkable area and the rest); with
``radius`` 0 it may not touch one.

The heuristic is a lower bound of the root path's length to the goal point less
``position_tolerance``, divided by the catalogue's largest mean root speed.  The bound is
the straight line or, on a grid or a navigation mesh once the search has expanded 1,000
states (a wall in the way, most likely), when that is larger, the exact shortest path on the
walkable area from a corner of the position's cell less the straight line to that corner:
the cell is convex, so that line is a path.  On a grid the cells are its own; on a mesh,
the polygon holding the position, its corners being its vertices and those of the
position's square of a lattice (half the median root path length of the clips wide, the
scale of the search's steps) that lie in the polygon.  Each corner's shortest path
(:class:`~wayfinding.navmesh.polyanya.PolyanyaSearch` on the mesh, every polygon walkable
whatever its flags; on a grid on ``NavMesh.build(grid)``, the same walkable area, built at
that point, so that a short search does no work over the whole map; without shapely, the
``[geometry]`` extra, a grid's heuristic keeps the straight line) is found once per query,
the first time a state needs it.  At a pinch, a corner where the walkable area touches
itself (two cells or polygons meeting only there, which no root path may pass), the way
from the corner depends on the side it leaves by: the path is found from a point ``c``
just inside the position's cell, once per side, and less ``|c - corner|`` stands for the
corner's.
No clip sequence moves its root faster on average, and the root path to any point of the
goal region is at least that long, so the heuristic is admissible and the plan is the
cheapest (with the search's own tie-breaking); it need not be consistent, so a state
reached more cheaply after its expansion is expanded again.

When the catalogue's :attr:`~wayfinding.planning.clips.ClipCatalogue.max_curvature` is
finite and not 0, every root path is a forward path turning no tighter than radius
``r = 1 / max_curvature``, at least ``r`` metres long per radian its heading turns, and the
heuristic takes the larger of that distance and ``r`` times a lower bound of the turn to the
goal region: to the goal heading window, and, unless it turns by half a turn or more, by way
of a direction toward the goal disc (a path's mean heading points from its start to its end).
Only for an exact goal (both tolerances 0) does it also take the Dubins length to the goal
pose (:func:`~wayfinding.paths.turning_path`): the Dubins length jumps between nearby goal
poses, so it bounds no region around one.  (An exact goal is met only by a clip sequence
that lands on it to the last bit; states merged even at the finest resolution may lose it.)
Both bounds are scaled by ``1 - 1e-9`` to allow for rounding.

States whose positions round to the same multiple of ``position_resolution`` and headings to
the same multiple of ``heading_resolution`` (with the same animation state) count as one: the
search keeps the cheapest route it has found to each, and the poses of the plan are those of
its clips played one after the other from the start.  With the resolutions at their smallest
(``1e-9``) only coinciding states merge and the plan is optimal over all clip sequences;
coarser ones bound the search and may miss the optimum.  Ties go as in
:class:`~wayfinding.search.AStarSearch` (the larger cost so far, then the state generated
first; clips in catalogue order; a state's heuristic is that of the first pose to reach its
lattice point), so the same inputs give the same plan.  A grid's terrain costs play no
part: a clip costs its duration wherever it plays.  The search runs in a compiled kernel
(``wayfinding._kernels._movement``) that takes the GIL back only for a corner's shortest
path.

>>> from wayfinding.planning.clips import default_clips
>>> plan = plan_movement(None, default_clips(), (0, 0, 0), (3, 0, 0),
...                      position_tolerance=0.5, end_states={"standing"})
>>> plan.status, plan.clips
(Status.FOUND, ('stand_to_walk', 'walk', 'walk_to_stand'))
>>> round(plan.time, 6), plan.poses[-1].round(6).tolist()
(2.6, [2.6, 0.0, 0.0])
>>> plan_movement(None, default_clips(), (0, 0, 0), (0, 0, 0)).clips    # already there
()
>>> plan_movement(None, default_clips(), (0, 0, 0), (9, 9, 0), max_expansions=0).status
Status.OUT_OF_BUDGET
"""

from __future__ import annotations

import functools
import math
import time
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels import _movement
from .._validate import budget, finite_point, number
from ..errors import InvalidQueryError, brief
from ..geometry.buckets import box_buckets
from ..grid import Grid
from ..navmesh import NavMesh
from ..results import SearchStats, Status, _fields_equal
from .clips import ClipCatalogue

#: The finest state resolution (metres and radians): states closer than this coincide.
FINEST = 1e-9

#: The kernel's outcomes.
_STATUS = {_movement.FOUND: Status.FOUND, _movement.FAILED: Status.FAILED,
           _movement.OUT_OF_BUDGET: Status.OUT_OF_BUDGET}

#: The expansions the search makes before its heuristic takes the shortest paths round the
#: walls too (few searches that need no more meet a wall).
_FIELD_AFTER = 1_000

#: The least turn of a forward path to the goal region (see the kernel's ``least_turn``).
_least_turn = _movement.least_turn


@dataclass(frozen=True)
class MovementPlan:
    """A planned clip sequence.

    ``clips``: the names of the clips, in playing order; ``poses``: ``(n + 1, 3)`` float64
    ``(x, y, heading)``, the root at the start and after each clip (heading unwrapped);
    ``states``: the ``n + 1`` animation states there; ``times``: ``(n + 1,)`` float64 seconds
    from the start; ``time``: the whole duration; ``cost``: the time plus the clips'
    penalties; ``length``: the root path's length (world units).  When no plan was found
    ``clips`` and ``states`` are empty, ``poses`` is ``(0, 3)``, ``times`` ``(0,)``, and
    ``time``, ``cost`` and ``length`` are ``inf``.  ``status``: :attr:`Status.FOUND`,
    :attr:`Status.FAILED` (no clip sequence reaches the goal region) or
    :attr:`Status.OUT_OF_BUDGET`; ``stats``: the search's counters.
    """

    clips: tuple[str, ...]
    poses: np.ndarray
    states: tuple[str, ...]
    times: np.ndarray
    time: float
    cost: float
    length: float
    status: Status
    stats: SearchStats

    __eq__ = _fields_equal

    @property
    def found(self) -> bool:
        """Whether a plan reaches the goal region."""
        return self.status is Status.FOUND

    def __repr__(self) -> str:
        state = f"{len(self.clips)} clips, {self.time:.6g} s" if self.found else str(self.status)
        return f"MovementPlan({state}, expanded={self.stats.expanded})"


#: Per world planned on (grids and meshes do not change; an entry goes with its world): its
#: walls' segments and buckets, from which each query makes its own :class:`Walls` (whose
#: scratch is its own).
_WALLS: weakref.WeakKeyDictionary[Grid | NavMesh, tuple[Any, ...]] = weakref.WeakKeyDictionary()


def _walls(world: Grid | NavMesh | None) -> _movement.Walls:
    """The world's walls (the edges between the walkable area and the rest) as segments in
    uniform buckets."""
    if world is None:
        return _movement.Walls(*_wall_segments(None))
    parts = _WALLS.get(world)
    if parts is None:
        parts = _WALLS[world] = _wall_segments(world)
    return _movement.Walls(*parts)


def _wall_segments(world: Grid | NavMesh | None) -> tuple[Any, ...]:
    """:func:`_walls`' arguments: the segments' ends and their buckets."""
    if world is None:
        a = b = np.empty((0, 2))
    elif isinstance(world, NavMesh):
        loops = world.boundary()
        a = np.concatenate(loops).astype(np.float64) if loops else np.empty((0, 2))
        b = np.concatenate([np.roll(v, -1, axis=0) for v in loops]).astype(np.float64) \
            if loops else np.empty((0, 2))
    else:
        free = np.pad(world.passable, 1)            # the outside is not walkable
        cs = world.cell_size
        # Vertical edges: between columns x-1 and x of the padded array, at world x = x - 1.
        vy, vx = np.nonzero(free[:, 1:] != free[:, :-1])
        # Horizontal edges: between rows y-1 and y, at world y = y - 1.
        hy, hx = np.nonzero(free[1:, :] != free[:-1, :])
        origin = np.array(world.origin, dtype=np.float64)
        a = origin + np.concatenate([np.column_stack([vx, vy - 1]),
                                     np.column_stack([hx - 1, hy])]) * cs
        b = origin + np.concatenate([np.column_stack([vx, vy]),
                                     np.column_stack([hx, hy])]) * cs
    a, b = np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64)
    size = world.cell_size if isinstance(world, Grid) else \
        float(np.hypot(*(b - a).T).mean()) if len(a) else 1.0
    return (a, b, *box_buckets(np.minimum(a, b), np.maximum(a, b), size))


def _inside(world: Grid | NavMesh | None, point: np.ndarray) -> bool:
    """Whether ``point`` is on the walkable area."""
    if world is None:
        return True
    if isinstance(world, NavMesh):
        return world.locate(point) >= 0
    cell = world.world_to_cell(point)
    return world.in_bounds(cell) and world.is_passable(cell)


def _field(world: Grid | NavMesh | None, goal: np.ndarray, spacing: float) -> _movement.Field:
    """The lower bound of a position's shortest path to the goal point from its cell's
    corners (none on the open plane; on a navigation mesh, with the corners of a lattice
    ``spacing`` wide); a grid's mesh is built at the first corner (without shapely, the
    ``[geometry]`` extra, the field bounds nothing and the heuristic keeps the straight
    line)."""
    if world is None:
        return _movement.Field()
    target = (float(goal[0]), float(goal[1]))

    @functools.cache
    def mesh() -> NavMesh | None:
        if isinstance(world, NavMesh):
            # Every polygon is walkable for movement; the exact search skips those with no
            # flags, so it searches a copy flagged all through.
            return world if world.flags.all() else \
                world.with_areas(flags=np.ones(world.num_polygons, np.uint16))
        try:
            return NavMesh.build(world)
        except ImportError:             # no shapely (the [geometry] extra): no field
            return None

    def distance(x: float, y: float) -> float:
        walkable = mesh()
        if walkable is None or walkable.locate((x, y)) < 0:
            return -math.inf            # no mesh, or a corner off it: it bounds nothing
        found = walkable.find_path((x, y), target, method="polyanya")
        return float(found.cost) if found.found else math.inf

    if isinstance(world, NavMesh):
        lo, hi = world.vertices.min(axis=0), world.vertices.max(axis=0)
        spacing = max(spacing, float((hi - lo).max()) * 1e-6)
        return _movement.MeshField(world.vertices, world.polygons, world.sizes,
                                   world.neighbours, *world._buckets, distance, float(lo[0]),
                                   float(lo[1]), spacing, int((hi[0] - lo[0]) // spacing) + 2)
    ox, oy = world.origin
    free = np.ascontiguousarray(world.passable).view(np.uint8)
    return _movement.GridField(float(ox), float(oy), float(world.cell_size), free, distance)


def _spacing(clips: ClipCatalogue) -> float:
    """The side of a navigation mesh's lattice squares for the distance field: half the
    median root path length of the clips that move (1 when none does), the scale of the
    search's steps."""
    lengths = [c.length for c in clips.clips if c.length > 0]
    return float(np.median(lengths)) / 2 if lengths else 1.0


def plan_movement(world: Grid | NavMesh | None, clips: ClipCatalogue, start: Any, goal: Any,
                  *, start_state: str = "standing", position_tolerance: float = 0.25,
                  heading_tolerance: float = math.pi, end_states: Iterable[str] | None = None,
                  penalties: Mapping[str, float] | None = None, radius: float = 0.0,
                  position_resolution: float = 0.05,
                  heading_resolution: float = math.radians(2.5), step: float = 0.1,
                  max_expansions: int | None = 100_000) -> MovementPlan:
    """The cheapest clip sequence from ``start`` (pose ``(x, y, heading)``, in animation
    state ``start_state``) to the goal region around ``goal`` (pose ``(x, y, heading)``);
    see the module docstring.

    ``position_tolerance`` (world units, >= 0) and ``heading_tolerance`` (radians in
    [0, π]; π: any heading) bound the end pose; ``end_states`` the animation states the plan
    may end in (default: any).  ``penalties``: extra cost (>= 0, seconds) per play of the
    clips it names.  ``radius`` (world units, >= 0): the root path keeps farther than this
    from every wall (the character's disc; 0: a point that may not touch a wall).
    ``position_resolution`` (world units) and ``heading_resolution``
    (radians), both >= 1e-9: the lattice on which states merge.  ``step`` (world units,
    > 0): the largest gap between the root path's samples tested against the walls.
    ``max_expansions``: the search's budget (``None``: no limit); a search it stops ends
    ``OUT_OF_BUDGET``.

    Raises :class:`~wayfinding.errors.InvalidQueryError` for a bad argument, a start off the
    walkable area or within ``radius`` of a wall, or a goal point off the walkable area.
    """
    if not isinstance(clips, ClipCatalogue):
        raise InvalidQueryError(f"clips {brief(clips)} must be a ClipCatalogue")
    s = finite_point("start", start, 3)
    g = finite_point("goal", goal, 3)
    if not isinstance(start_state, str) or start_state not in clips.states:
        raise InvalidQueryError(f"unknown start_state {brief(start_state)}; the catalogue has "
                                f"{', '.join(sorted(clips.states))}")
    tol = number("position_tolerance", position_tolerance, min=0.0)
    htol = number("heading_tolerance", heading_tolerance, min=0.0, max=math.pi)
    if end_states is None:
        ends = frozenset(clips.states)
    else:
        if isinstance(end_states, str):
            raise InvalidQueryError(f"end_states {brief(end_states)} must be a collection of "
                                    "animation states, not one string")
        ends = frozenset(e for e in end_states if isinstance(e, str))
        unknown = [e for e in end_states if not isinstance(e, str) or e not in clips.states]
        if not ends or unknown:
            raise InvalidQueryError(f"end_states {brief(end_states)} must name animation "
                                    f"states of the catalogue ({', '.join(sorted(clips.states))})")
    if penalties is not None and not isinstance(penalties, Mapping):
        raise InvalidQueryError(f"penalties {brief(penalties)} must be a mapping of clip names "
                                "to seconds")
    extra = dict(penalties or {})
    for name, value in extra.items():
        if not isinstance(name, str) or name not in clips:
            raise InvalidQueryError(f"penalties name an unknown clip {brief(name)}")
        extra[name] = number(f"penalty of {name!r}", value, min=0.0)
    pr = number("position_resolution", position_resolution, min=FINEST)
    hr = number("heading_resolution", heading_resolution, min=FINEST, max=math.pi)
    radius = number("radius", radius, min=0.0)
    step = number("step", step, min=0.0, min_open=True)
    max_expansions = budget("max_expansions", max_expansions)
    if world is not None and not isinstance(world, (Grid, NavMesh)):
        raise InvalidQueryError(f"world {type(world).__name__} must be None, a Grid or a "
                                "NavMesh")
    t0 = time.perf_counter()
    walls = _walls(world)
    for name, point in (("start", s), ("goal", g)):
        if not _inside(world, point[:2]):
            raise InvalidQueryError(f"{name} {brief(tuple(point[:2].tolist()))} is off the "
                                    "walkable area")
    if not walls.clear(np.array([s[:2], s[:2]]), radius):
        raise InvalidQueryError(f"start {brief(tuple(s[:2].tolist()))} is within radius "
                                f"{radius:g} of a wall")

    names = sorted(clips.states)
    index = {name: i for i, name in enumerate(names)}
    played = clips.clips
    number_of = {clip.name: i for i, clip in enumerate(played)}
    samples = [clip.root_path((0.0, 0.0, 0.0), step)[:, :2] for clip in played]
    follow = [[number_of[c.name] for c in clips.following(name)] for name in names]
    kappa = clips.max_curvature
    status, poses, used, *counts = _movement.plan(
        walls, _field(world, g, _spacing(clips)),
        np.array([index[c.start_state] for c in played], dtype=np.int32),
        np.array([index[c.end_state] for c in played], dtype=np.int32),
        np.array([c.dx for c in played]), np.array([c.dy for c in played]),
        np.array([c.rotation for c in played]),
        np.array([c.duration + extra.get(c.name, 0.0) for c in played]),
        np.concatenate([[0], np.cumsum([len(p) for p in samples])]).astype(np.int64),
        np.ascontiguousarray(np.concatenate(samples)),
        np.concatenate([[0], np.cumsum([len(f) for f in follow])]).astype(np.int64),
        np.array([c for f in follow for c in f], dtype=np.int32),
        np.array([name in ends for name in names], dtype=np.uint8), s, index[start_state], g,
        tol=tol, htol=htol, radius=radius, position_resolution=pr, heading_resolution=hr,
        vmax=clips.max_speed, turning=1.0 / kappa if 0.0 < kappa < math.inf else 0.0,
        exact=tol == 0.0 and htol == 0.0,
        field_after=_FIELD_AFTER,
        limit=-1 if max_expansions is None or max_expansions >= 1 << 63 else max_expansions)
    expanded, generated, reopened, updated, max_open = counts
    stats = SearchStats(expanded=expanded, generated=generated, reopened=reopened,
                        updated=updated, max_open=max_open,
                        elapsed=time.perf_counter() - t0)
    result = _STATUS[status]
    if result is not Status.FOUND:
        return MovementPlan((), np.empty((0, 3)), (), np.empty(0), math.inf, math.inf,
                            math.inf, result, stats)
    chosen = [played[i] for i in used.tolist()]
    times = np.cumsum([0.0] + [c.duration for c in chosen])
    return MovementPlan(
        tuple(c.name for c in chosen), poses,
        (start_state, *(c.end_state for c in chosen)), times, float(times[-1]),
        float(times[-1] + sum(extra.get(c.name, 0.0) for c in chosen)),
        float(sum(c.length for c in chosen)), result, stats)
