"""Σ4, the space-time domain (Kapadia et al., ch. 9): states ``(x, y, vx, vy, k)`` are a
grid cell, the velocity of the step that led there (cells per step) and the time step
``k`` (time ``k · dt`` seconds).  A transition picks the next step's velocity ``v'``
(components in ``-max_speed..max_speed``; 0 waits) and moves to ``cell + v'`` at
``k + 1``.

Φ: the new cell is free of walls for the agent (:attr:`GridDomain.static_free`), the
straight move stays on free cells (a unit step follows the grid's diagonal rule, a longer
one its line of sight), ``k + 1`` is within the horizon, the new state is inside the
problem's tunnel (when it has one) and the agent's disc meets no watched entity's during
the step: both move in straight lines over the step, so their least distance is exact when
the entities' published paths turn only at step times (``k · dt``), an interpolation
otherwise.

Cost (an energy; its weights are parameters, erratum #28 of the notes): the distance
moved, ``accel_weight`` times the change of velocity, both in world units, and
``wait_weight · cell_size`` for a step spent still.  Heuristic: the straight distance to
the goal plus ``speed_weight · cell_size`` times the gap between the current speed and
the speed that reaches the goal at the problem's arrival step (``|goal − cell| / (arrive
− k)``, cells per step); the first term never overestimates, the second may (0 makes the
search's bound exact).

Dynamic entities are known by their published paths (:class:`PublishedPath`); a problem
watches only those inside the agent's foveal region at its start: within ``view_range``
and at most ``fov / 2`` off the agent's heading (its velocity, or the goal's direction
when still), and those its disc already touches.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import count, finite_points, number, positive_float
from ..errors import InvalidQueryError, brief
from ..results import _fields_equal
from .domain_base import Domain
from .domain_grid import GridDomain

#: A space-time state: cell x, cell y, velocity x, velocity y (cells per step), time step.
State = tuple[int, int, int, int, int]


@dataclass(frozen=True, eq=False)
class PublishedPath:
    """Where a dynamic entity (another agent, a vehicle) will be: ``points`` ``(n, 2)``
    float64 world positions at ``times`` ``(n,)`` float64 seconds (increasing), a disc of
    ``radius`` world units; straight lines in between, standing at the ends before and
    after."""

    points: np.ndarray
    times: np.ndarray
    radius: float

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        pts, _ = finite_points("points", self.points)
        times = np.asarray(self.times, dtype=np.float64).reshape(-1) \
            if np.ndim(self.times) else np.array([self.times], dtype=np.float64)
        if len(times) != len(pts) or not len(pts) or not np.all(np.isfinite(times)) \
                or (np.diff(times) <= 0).any():
            raise InvalidQueryError(f"times {brief(self.times)} must be {len(pts)} finite "
                                    "increasing seconds, one per point")
        object.__setattr__(self, "points", pts)
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "radius", positive_float("radius", self.radius,
                                                          allow_zero=True))

    def at(self, t: Any) -> np.ndarray:
        """``(len(t), 2)`` float64 positions at the times ``t`` (seconds)."""
        t = np.atleast_1d(np.asarray(t, dtype=np.float64))
        return np.stack([np.interp(t, self.times, self.points[:, 0]),
                         np.interp(t, self.times, self.points[:, 1])], 1)


class SpaceTimeDomain(Domain):
    """Σ4 over a :class:`GridDomain`'s walls (its dynamic obstacles are not used: in
    Σ4 everything that moves is a :class:`PublishedPath`).

    Parameters
    ----------
    grid : GridDomain
        The walls, the agent's radius and the cell size.
    entities : iterable of PublishedPath
        The dynamic entities; change them with :meth:`set_entities`.
    dt : float, default 0.5
        Seconds per step (> 0).
    max_speed : int, default 1
        The largest velocity component, cells per step (>= 1).
    accel_weight, wait_weight : float, default 0.5
        Cost of a change of velocity per cell of change, and of a step spent still per
        cell size (>= 0).
    speed_weight : float, default 0.25
        Weight of the on-time speed term of the heuristic (>= 0; 0: the heuristic never
        overestimates).
    fov : float, default 2π/3
        The foveal angle in radians, in (0, 2π].
    view_range : float, default inf
        How far the agent watches entities, world units (> 0).
    horizon : int, default 400
        The last time step a plan may reach (>= 1).
    """

    name = "spacetime"

    def __init__(self, grid: GridDomain, *, entities: Iterable[PublishedPath] = (),
                 dt: float = 0.5, max_speed: int = 1, accel_weight: float = 0.5,
                 wait_weight: float = 0.5, speed_weight: float = 0.25,
                 fov: float = 2 * math.pi / 3, view_range: float = math.inf,
                 horizon: int = 400):
        if not isinstance(grid, GridDomain):
            raise InvalidQueryError(f"grid must be a GridDomain, got {type(grid).__name__}")
        self.grid = grid
        self.dt = positive_float("dt", dt)
        self.max_speed = count("max_speed", max_speed)
        self.accel_weight = number("accel_weight", accel_weight, min=0.0)
        self.wait_weight = number("wait_weight", wait_weight, min=0.0)
        self.speed_weight = number("speed_weight", speed_weight, min=0.0)
        self.fov = number("fov", fov, min=0.0, min_open=True, max=2 * math.pi)
        self.view_range = positive_float("view_range", view_range, allow_inf=True)
        self.horizon = count("horizon", horizon)
        r = range(-self.max_speed, self.max_speed + 1)
        self.velocities = [(vx, vy) for vy in r for vx in r]
        self.set_entities(entities)
        # per problem (see problem()): watched entities, tunnel, goal and arrival step
        self._watch: list[PublishedPath] = []
        self._steps: dict[int, list[tuple[float, float, float]]] = {}
        self.tunnel: Any = None
        self.goal: tuple[int, int] = (0, 0)
        self.arrive: int | None = None
        self.window: tuple[int, int] | None = None

    def set_entities(self, entities: Iterable[PublishedPath]) -> None:
        """Replace the dynamic entities (takes effect at the next :meth:`problem`)."""
        try:
            given = list(entities)
        except TypeError:
            raise InvalidQueryError(f"entities {brief(entities)} must be an iterable of "
                                    "PublishedPath") from None
        for i, e in enumerate(given):
            if not isinstance(e, PublishedPath):
                raise InvalidQueryError(f"entities[{i}] must be a PublishedPath, got "
                                        f"{type(e).__name__}")
        self.entities = given

    def start_state(self, point: Any, *, velocity: tuple[int, int] = (0, 0),
                    step: int = 0) -> State:
        """The state at world ``point`` with ``velocity`` (cells per step) at ``step``."""
        x, y = self.grid.cell_of(point)
        if not self.grid.static_free[y, x]:
            raise InvalidQueryError(f"point {brief(point)} is in cell {(x, y)}, where the "
                                    "agent does not fit")
        vx, vy = (count("velocity", v, min=-self.max_speed, max=self.max_speed)
                  for v in velocity)
        return (x, y, vx, vy, count("step", step, min=0, max=self.horizon))

    def problem(self, start: State, goal: tuple[int, int], *, tunnel: Any = None,
                arrive: int | None = None, window: tuple[int, int] | None = None) -> None:
        """Set the problem the domain answers: ``start`` a state, ``goal`` a free cell,
        ``tunnel`` a container of allowed ``(x, y, k)`` (None: no tunnel), ``arrive`` the
        step the agent should reach the goal at (None: the heuristic has no speed term),
        ``window`` the steps ``(first, last)`` a timed goal is reached within (a state on
        the goal cell earlier is not the goal: the agent waits or walks on; none later is
        valid; None: any step).  Chooses the watched entities (foveal region at the
        start)."""
        gx, gy = self.grid.walls.cell(goal, name="goal")
        if not self.grid.static_free[gy, gx]:
            raise InvalidQueryError(f"goal cell {(gx, gy)} is blocked for the agent")
        if window is not None:
            try:
                first, last = window
            except (TypeError, ValueError):
                raise InvalidQueryError(f"window {brief(window)} must be two steps "
                                        "(first, last)") from None
            first = count("window's first step", first, min=0)
            window = (first, count("window's last step", last, min=first))
        self.goal, self.tunnel, self.window = (gx, gy), tunnel, window
        self.arrive = None if arrive is None else count("arrive", arrive, min=0)
        here = self.grid.positions([start[:2]])[0]
        heading = np.array(start[2:4], dtype=np.float64)
        if not heading.any():
            heading = self.grid.positions([self.goal])[0] - here
        t0 = start[4] * self.dt
        self._watch = []
        for e in self.entities:
            off = e.at(t0)[0] - here
            d = float(np.hypot(*off))
            if d <= self.grid.radius + e.radius:
                self._watch.append(e)
            elif d <= self.view_range and heading.any():
                cos = float(off @ heading) / (d * float(np.hypot(*heading)))
                if math.acos(max(-1.0, min(1.0, cos))) <= self.fov / 2:
                    self._watch.append(e)
        self._steps = {}

    @property
    def watched(self) -> list[PublishedPath]:
        """The entities the current problem watches."""
        return list(self._watch)

    def _at_step(self, k: int) -> list[tuple[float, float, float]]:
        """The watched entities at step ``k``: ``(x, y, radius + agent radius)`` each."""
        if k not in self._steps:
            r = self.grid.radius
            self._steps[k] = [(*e.at(k * self.dt)[0].tolist(), e.radius + r)
                              for e in self._watch]
        return self._steps[k]

    def actions(self, s: Any) -> list[State]:
        x, y, _, _, k = s
        return [(x + vx, y + vy, vx, vy, k + 1) for vx, vy in self.velocities]

    def cost(self, s: Any, n: Any) -> float:
        cs = self.grid.cell_size
        move = math.hypot(n[2], n[3])
        c = cs * (move + self.accel_weight * math.hypot(n[2] - s[2], n[3] - s[3]))
        return c + (self.wait_weight * cs if move == 0 else 0.0)

    def heuristic(self, s: Any, goal: Any) -> float:
        d = math.hypot(s[0] - goal[0], s[1] - goal[1])
        h = d * self.grid.cell_size
        if self.arrive is not None and self.speed_weight:
            left = self.arrive - s[4]
            need = d / left if left > 0 else (self.max_speed * math.sqrt(2) if d else 0.0)
            h += self.speed_weight * self.grid.cell_size * abs(need - math.hypot(s[2], s[3]))
        return h

    def is_goal(self, s: Any) -> bool:
        """Whether ``s`` stands on the problem's goal cell (within its window)."""
        w = self.window
        return (s[0], s[1]) == self.goal and (w is None or w[0] <= s[4] <= w[1])

    def valid(self, s: Any, n: Any) -> bool:
        g = self.grid
        x, y, k = n[0], n[1], n[4]
        if k > self.horizon or not g.walls.in_bounds((x, y)) or not g.static_free[y, x]:
            return False
        if self.window is not None and k > self.window[1]:
            return False
        if self.tunnel is not None and (x, y, k) not in self.tunnel:
            return False
        step = max(abs(n[2]), abs(n[3]))
        if step == 1 and not math.isfinite(g.static_grid.step_cost(s[:2], (x, y))):
            return False
        if step > 1 and not g.static_grid.line_of_sight(s[:2], (x, y)):
            return False
        if not self._watch:
            return True
        (ox, oy), cs = g.walls.origin, g.cell_size
        ax, ay = ox + (s[0] + 0.5) * cs, oy + (s[1] + 0.5) * cs
        mx, my = (x - s[0]) * cs, (y - s[1]) * cs          # the agent's move
        for (e0x, e0y, reach), (e1x, e1y, _) in zip(self._at_step(s[4]), self._at_step(k)):
            px, py = ax - e0x, ay - e0y                    # relative position and motion
            rx, ry = mx - (e1x - e0x), my - (e1y - e0y)
            rr = rx * rx + ry * ry
            tau = min(1.0, max(0.0, -(px * rx + py * ry) / rr)) if rr > 0 else 0.0
            if math.hypot(px + tau * rx, py + tau * ry) < reach:
                return False
        return True

    def valid_path(self, states: Any) -> bool:
        """Whether every transition of ``states`` (``(n, 5)``, a plan) passes Φ against
        the entities watched from its first state, without a tunnel."""
        path: list[Any] = [tuple(s) for s in np.asarray(states, np.int64).reshape(-1, 5)
                           .tolist()]
        if not path:
            return False
        self.problem(path[0], path[-1][:2])
        return all(self.valid(a, b) and (b[2], b[3]) == (b[0] - a[0], b[1] - a[1])
                   and b[4] == a[4] + 1 for a, b in zip(path, path[1:]))

    def position(self, s: Any) -> np.ndarray:
        return self.grid.positions([s[:2]])[0]

    def state(self, point: Any) -> State:
        return self.start_state(point)

    def positions(self, states: Any) -> np.ndarray:
        """``(n, 2)`` world points of a sequence of states."""
        return self.grid.positions([s[:2] for s in states])
