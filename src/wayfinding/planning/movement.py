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

The heuristic is the distance to the goal less ``position_tolerance``, divided by the
catalogue's largest mean root speed: on a navigation mesh the exact shortest path on the mesh
(:class:`~wayfinding.navmesh.polyanya.PolyanyaSearch`, once per position reached), on a grid
or the open plane the straight line (plan on ``NavMesh.build(grid)``, the same walkable area,
for the shortest path round a grid's walls).  No clip sequence moves its root faster on
average, and the root path to any point of the goal region is at least that long, so the
heuristic is admissible and the plan is the cheapest (with the search's own tie-breaking).

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
first; clips in catalogue order), so the same inputs give the same plan.  A grid's terrain
costs play no part: a clip costs its duration wherever it plays.

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

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import budget, finite_point, number
from ..errors import InvalidQueryError, brief
from ..geometry.angles import wrap_angle
from ..geometry.obstacles import segment_gaps, segments_cross
from ..grid import Grid
from ..navmesh import NavMesh
from ..paths import turning_path
from ..results import SearchStats, Status, _fields_equal
from ..search.generic import AStarSearch
from .clips import Clip, ClipCatalogue, local_to_world

#: The finest state resolution (metres and radians): states closer than this coincide.
FINEST = 1e-9

#: The share of a curvature bound the heuristic trusts, leaving room for rounding.
_TRUST = 1.0 - 1e-9


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


class _State:
    """A search node: a root pose and animation state, equal to another when their
    resolution keys are; ``via`` the clip that led here from ``prev``."""

    __slots__ = ("x", "y", "h", "anim", "key", "prev", "via")

    def __init__(self, x: float, y: float, h: float, anim: str, key: tuple,
                 prev: _State | None, via: Clip | None) -> None:
        self.x, self.y, self.h, self.anim, self.key = x, y, h, anim, key
        self.prev, self.via = prev, via

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _State) and self.key == other.key

    def __repr__(self) -> str:
        return f"({self.x:.6g}, {self.y:.6g}, {self.h:.6g}, {self.anim!r})"


def _walls(world: Grid | NavMesh) -> tuple[np.ndarray, np.ndarray]:
    """The world's walls as segments: starts and ends, ``(w, 2)`` float64 each."""
    if isinstance(world, NavMesh):
        loops = world.boundary()
        if not loops:
            return np.empty((0, 2)), np.empty((0, 2))
        return (np.concatenate(loops).astype(np.float64),
                np.concatenate([np.roll(v, -1, axis=0) for v in loops]).astype(np.float64))
    free = np.pad(world.passable, 1)            # the outside is not walkable
    ox, oy = world.origin
    cs = world.cell_size
    # Vertical edges: between columns x-1 and x of the padded array, at world x = x - 1.
    vy, vx = np.nonzero(free[:, 1:] != free[:, :-1])
    # Horizontal edges: between rows y-1 and y, at world y = y - 1.
    hy, hx = np.nonzero(free[1:, :] != free[:-1, :])
    a = np.concatenate([np.column_stack([vx, vy - 1]), np.column_stack([hx - 1, hy])])
    b = np.concatenate([np.column_stack([vx, vy]), np.column_stack([hx, hy])])
    origin = np.array([ox, oy])
    return origin + a * cs, origin + b * cs


class _World:
    """Collision tests of root paths against a world's walls, and its distances."""

    def __init__(self, world: Any, goal: np.ndarray) -> None:
        if world is not None and not isinstance(world, (Grid, NavMesh)):
            raise InvalidQueryError(f"world {type(world).__name__} must be None, a Grid or a "
                                    "NavMesh")
        self.world = world
        self.goal = goal
        if world is None:
            self.wa = self.wb = np.empty((0, 2))
        else:
            self.wa, self.wb = _walls(world)
        self.known: dict[tuple[float, float], float] = {}
        self.lo = np.minimum(self.wa, self.wb)
        self.hi = np.maximum(self.wa, self.wb)

    def inside(self, point: np.ndarray) -> bool:
        """Whether ``point`` is on the walkable area."""
        if self.world is None:
            return True
        if isinstance(self.world, NavMesh):
            return self.world.locate(point) >= 0
        cell = self.world.world_to_cell(point)
        return self.world.in_bounds(cell) and self.world.is_passable(cell)

    def clear(self, points: np.ndarray, radius: float) -> bool:
        """Whether the polyline through ``points`` ``(m, 2)`` stays farther than ``radius``
        from every wall (with ``radius`` 0: touches none)."""
        if not len(self.wa):
            return True
        lo, hi = points.min(axis=0) - radius, points.max(axis=0) + radius
        near = np.nonzero((self.hi[:, 0] >= lo[0]) & (self.lo[:, 0] <= hi[0])
                          & (self.hi[:, 1] >= lo[1]) & (self.lo[:, 1] <= hi[1]))[0]
        if not len(near):
            return True
        # Every (piece of the path, wall) pair: not meeting, and farther apart than radius.
        pieces = np.repeat(np.arange(len(points) - 1), len(near))
        walls = np.tile(near, len(points) - 1)
        pair = (points[pieces], points[pieces + 1], self.wa[walls], self.wb[walls])
        if segments_cross(*pair, touching=True).any():
            return False
        return radius == 0.0 or bool((segment_gaps(*pair) > radius).all())

    def distance(self, x: float, y: float) -> float:
        """A lower bound of the root path's length from ``(x, y)`` to the goal point: the
        exact shortest path on a navigation mesh (``inf`` when none reaches the goal), the
        straight line elsewhere.  Remembered per position: states that differ only in
        heading or animation state share it."""
        if self.world is None or isinstance(self.world, Grid):
            return math.hypot(x - self.goal[0], y - self.goal[1])
        d = self.known.get((x, y))
        if d is None:
            found = self.world.find_path((x, y), self.goal, method="polyanya")
            d = self.known[x, y] = float(found.cost) if found.found else math.inf
        return d


class _ClipGraph:
    """The lazily generated state graph: successors of a state are the states after each
    clip that may play in it and whose root path is clear."""

    def __init__(self, catalogue: ClipCatalogue, world: _World, radius: float, step: float,
                 resolution: tuple[float, float], penalties: Mapping[str, float]) -> None:
        self.catalogue, self.world, self.radius = catalogue, world, radius
        self.pr, self.hr = resolution
        self.turns = max(1, round(2 * math.pi / self.hr))
        # Each clip's root path from the origin facing +x, turned and moved onto each state.
        self.moves = {state: [(clip, clip.root_path((0.0, 0.0, 0.0), step),
                               clip.duration + penalties.get(clip.name, 0.0))
                              for clip in catalogue.following(state)]
                      for state in catalogue.states}

    def state(self, x: float, y: float, h: float, anim: str, prev: _State | None,
              via: Clip | None) -> _State:
        # Headings a whole turn apart share a key even when hr does not divide a turn.
        key = (round(x / self.pr), round(y / self.pr),
               round((h % (2 * math.pi)) / self.hr) % self.turns, anim)
        return _State(x, y, h, anim, key, prev, via)

    def successors(self, u: _State) -> Iterator[tuple[_State, float]]:
        pose = (u.x, u.y, u.h)
        for clip, local, cost in self.moves[u.anim]:
            points = np.column_stack(local_to_world(pose, local[:, 0], local[:, 1]))
            if self.world.clear(points, self.radius):
                end = clip.end_pose((u.x, u.y, u.h))
                yield self.state(float(end[0]), float(end[1]), float(end[2]), clip.end_state,
                                 u, clip), cost


def _least_turn(h: float, dx: float, dy: float, gh: float, tol: float, htol: float) -> float:
    """A lower bound (radians) of how far the heading of a forward path turns in all (the
    integral of its absolute curvature) from heading ``h`` to a point within ``tol`` of the
    offset ``(dx, dy)`` with a heading within ``htol`` of ``gh``: the turn to the goal heading
    window and, while it turns by less than half a turn in all, by way of the direction from
    start to end (the mean of its headings), which lies between the bearings of the goal
    disc's tangents."""
    window = max(0.0, abs(wrap_angle(gh - h)) - htol)
    dist = math.hypot(dx, dy)
    if dist <= tol:
        return window
    bearing, spread = math.atan2(dy, dx), math.asin(tol / dist)
    # Turning to a direction and on to the window is piecewise linear in the direction:
    # least at the ends of the bearings or where it bends upwards inside them.
    ways = [bearing - spread, bearing + spread] + [
        a for a in (h, gh - htol, gh + htol) if abs(wrap_angle(a - bearing)) <= spread]
    via = min(abs(wrap_angle(a - h)) + max(0.0, abs(wrap_angle(gh - a)) - htol) for a in ways)
    return max(window, min(math.pi, via))


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
    walls = _World(world, g[:2])
    for name, point in (("start", s), ("goal", g)):
        if not walls.inside(point[:2]):
            raise InvalidQueryError(f"{name} {brief(tuple(point[:2].tolist()))} is off the "
                                    "walkable area")
    if not walls.clear(np.array([s[:2], s[:2]]), radius):
        raise InvalidQueryError(f"start {brief(tuple(s[:2].tolist()))} is within radius "
                                f"{radius:g} of a wall")

    graph = _ClipGraph(clips, walls, radius, step, (pr, hr), extra)
    vmax = clips.max_speed
    gx, gy, gh = g

    def reached(u: _State) -> bool:
        return (u.anim in ends and math.hypot(u.x - gx, u.y - gy) <= tol
                and abs(wrap_angle(u.h - gh)) <= htol
                and walls.clear(np.array([[u.x, u.y], [gx, gy]]), 0.0))

    kappa = clips.max_curvature
    turning = 1.0 / kappa if 0.0 < kappa < math.inf else 0.0    # metres per radian turned
    exact = tol == 0.0 and htol == 0.0

    def heuristic(u: _State, _goal: Any) -> float:
        if vmax == 0.0:
            return 0.0
        bound = walls.distance(u.x, u.y) - tol
        if turning:
            bound = max(bound, _TRUST * turning * _least_turn(u.h, gx - u.x, gy - u.y, gh,
                                                              tol, htol))
            if exact:
                bound = max(bound, _TRUST * turning_path(
                    (u.x, u.y), (math.cos(u.h), math.sin(u.h)), (gx, gy),
                    (math.cos(gh), math.sin(gh)), turning).length)
        return max(0.0, bound) / vmax

    first = graph.state(float(s[0]), float(s[1]), float(s[2]), start_state, None, None)
    result = AStarSearch(graph, first, reached, heuristic=heuristic).run(
        max_expansions=max_expansions)
    if not result.found:
        return MovementPlan((), np.empty((0, 3)), (), np.empty(0), math.inf, math.inf,
                            math.inf, result.status, result.stats)
    chain: list[_State] = []
    node: _State | None = result.path[-1]
    while node is not None:
        chain.append(node)
        node = node.prev
    chain.reverse()
    played = [n.via for n in chain[1:] if n.via is not None]
    durations = np.array([0.0] + [c.duration for c in played])
    times = np.cumsum(durations)
    return MovementPlan(
        tuple(c.name for c in played),
        np.array([[n.x, n.y, n.h] for n in chain], dtype=np.float64),
        tuple(n.anim for n in chain), times, float(times[-1]),
        float(times[-1] + sum(extra.get(c.name, 0.0) for c in played)),
        float(sum(c.length for c in played)), result.status, result.stats)
