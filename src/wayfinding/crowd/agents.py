"""Agents as structure-of-arrays, added and removed at any time, stepped at a fixed time step.

A :class:`Crowd` keeps one row per live agent in numpy arrays (position, velocity, radius,
maximum speed and acceleration, goal, group), packed: removing an agent moves the last row
into its place.  Agents are named by ids that never change or come back.  :meth:`Crowd.step`
is synchronous: every agent's new velocity is computed from the state at the start of the
step, then all move, so the order of the agents never matters.

>>> crowd = Crowd()
>>> a = crowd.add((0.0, 0.0), goal=(3.0, 0.0), max_speed=1.0)
>>> b = crowd.add((0.0, 2.0), goal=(0.0, 2.0))
>>> for _ in range(40):
...     crowd.step(0.1)
>>> crowd.position_of(a).round(6).tolist(), crowd.position_of(b).tolist()
([3.0, 0.0], [0.0, 2.0])
>>> crowd.remove(b)
>>> crowd.ids.tolist(), len(crowd)
([0], 1)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validate
from .._deprecated import positional_options, renamed_keywords
from .._kernels import _neighbours
from .._validate import allocation, count, finite_point, positive_float, reals
from ..errors import InvalidQueryError, brief
from ..geometry.obstacles import MAX_EXTENT

#: The radius of an agent added without one (world units).
DEFAULT_RADIUS = 0.5

_FIELDS = (("position", 2), ("velocity", 2), ("goal", 2), ("radius", 0), ("max_speed", 0),
           ("max_accel", 0), ("group", 0))


class Crowd:
    """Agents in the plane (world units and seconds).

    ``neighbour_dist`` and ``max_neighbours``: the defaults of :meth:`neighbours` (the
    nearest agents within that centre-to-centre distance, as RVO2 picks them; 0, as RVO2
    allows, gives none).
    """

    def __init__(self, *, neighbour_dist: float = 15.0, max_neighbours: int = 10):
        self.neighbour_dist = positive_float("neighbour_dist", neighbour_dist)
        self.max_neighbours = count("max_neighbours", max_neighbours, min=0)
        self._n = 0
        self._next_id = 0
        self._ids = np.zeros(16, dtype=np.int64)
        self._slot: dict[int, int] = {}
        self._data = {name: np.zeros((16, 2) if width else 16,
                                     dtype=np.int64 if name == "group" else np.float64)
                      for name, width in _FIELDS}
        self._fills: dict[str, Any] = {}        # the fields add_field added: their fill

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"Crowd({self._n} agents)"

    @property
    def ids(self) -> np.ndarray:
        """The live agents' ids, in row order (the order of every array below)."""
        return self._ids[:self._n]

    def _view(self, name: str) -> np.ndarray:
        return self._data[name][:self._n]

    @property
    def position(self) -> np.ndarray:
        """``(n, 2)`` positions (a view: writing it moves the agents)."""
        return self._view("position")

    @property
    def velocity(self) -> np.ndarray:
        return self._view("velocity")

    @property
    def goal(self) -> np.ndarray:
        return self._view("goal")

    @property
    def radius(self) -> np.ndarray:
        return self._view("radius")

    @property
    def max_speed(self) -> np.ndarray:
        return self._view("max_speed")

    @property
    def max_accel(self) -> np.ndarray:
        return self._view("max_accel")

    @property
    def group(self) -> np.ndarray:
        return self._view("group")

    def add_field(self, name: str, *, shape: tuple[int, ...] = (), dtype: Any = np.float64,
                  fill: Any = 0) -> None:
        """Keep one more value of ``shape`` and ``dtype`` per agent, as :meth:`field`
        ``name``: its rows move and grow with the agents'; a new agent's starts as
        ``fill``.  A name the crowd already has is refused."""
        if name in self._data:
            raise InvalidQueryError(f"this crowd already has a field {name!r}")
        array = np.empty((len(self._ids), *shape), dtype=dtype)
        array[:] = fill
        self._data[name] = array
        self._fills[name] = fill

    def resize_field(self, name: str, shape: tuple[int, ...]) -> None:
        """Give field ``name`` (one :meth:`add_field` added) a new ``shape`` per agent,
        keeping the values both shapes hold; the rest are its fill."""
        if name not in self._fills:
            raise InvalidQueryError(f"no added field {name!r} in this crowd")
        old = self._data[name]
        new = np.empty((len(old), *shape), dtype=old.dtype)
        new[:] = self._fills[name]
        keep = tuple(slice(0, min(a, b)) for a, b in zip(old.shape, new.shape))
        new[keep] = old[keep]
        self._data[name] = new

    def field(self, name: str) -> np.ndarray:
        """The live agents' values of a field (a view, in row order), built in or added
        by :meth:`add_field`."""
        try:
            return self._data[name][:self._n]
        except KeyError:
            raise InvalidQueryError(f"no field {name!r} in this crowd") from None

    def row(self, agent: int) -> int:
        """The row of agent ``agent`` in the arrays (rows change when agents are removed)."""
        try:
            if type(agent) is not bool:     # True would be agent 1
                return self._slot[agent]
        except (KeyError, TypeError):
            pass
        raise InvalidQueryError(f"no agent {brief(agent)} in this crowd")

    def position_of(self, agent: int) -> np.ndarray:
        return self.position[self.row(agent)].copy()

    def add(self, position: ArrayLike, *, goal: ArrayLike | None = None,
            velocity: ArrayLike = (0.0, 0.0), radius: float = DEFAULT_RADIUS,
            max_speed: float = 1.4, max_accel: float = math.inf, group: int = 0) -> int:
        """Add an agent (``goal`` defaults to where it stands) and return its id.
        ``max_accel`` 0 keeps its velocity as it is; ``inf`` (default) sets no limit.

        ``position`` and ``goal`` lie within ``±MAX_EXTENT`` (1e150, as
        :data:`wayfinding.geometry.obstacles.MAX_EXTENT` bounds world coordinates);
        ``radius``, ``max_speed`` and a finite ``max_accel`` are at most ``MAX_EXTENT``:
        beyond, the squares the avoidance models work with would overflow, and they are
        refused with :class:`~wayfinding.errors.InvalidQueryError` naming them."""
        p = _world_point("position", position)
        row = {"position": p, "goal": p if goal is None else _world_point("goal", goal),
               "velocity": finite_point("velocity", velocity),
               "radius": positive_float("radius", radius, max=MAX_EXTENT),
               "max_speed": positive_float("max_speed", max_speed, allow_zero=True,
                                           max=MAX_EXTENT),
               "max_accel": _accel(max_accel),
               "group": count("group", group, min=0)}
        if self._n == len(self._ids):
            self._grow()
        i = self._n
        for name, value in row.items():
            self._data[name][i] = value
        for name, fill in self._fills.items():
            self._data[name][i] = fill
        agent = self._next_id
        self._ids[i] = agent
        self._slot[agent] = i
        self._next_id += 1
        self._n += 1
        return agent

    def remove(self, agent: int) -> None:
        """Remove an agent; the last row moves into its place."""
        i, last = self.row(agent), self._n - 1
        if i != last:
            for array in self._data.values():
                array[i] = array[last]
            moved = int(self._ids[last])
            self._ids[i] = moved
            self._slot[moved] = i
        del self._slot[agent]
        self._n -= 1

    def _grow(self) -> None:
        size = 2 * len(self._ids)
        self._ids = np.resize(self._ids, size)
        for name, array in self._data.items():
            grown = np.zeros((size,) + array.shape[1:], dtype=array.dtype)
            grown[:self._n] = array[:self._n]
            self._data[name] = grown

    @renamed_keywords(count="max_neighbours")
    @positional_options("distance", "max_neighbours")
    def neighbours(self, *, distance: Any = None, max_neighbours: int | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Each agent's nearest other agents within ``distance`` (default the crowd's
        ``neighbour_dist``; a number or one per agent) centre to centre, at most
        ``max_neighbours`` (default the crowd's; 0 gives none): ``(rows, counts)``, ``rows``
        ``(n, max_neighbours)`` in row numbers, nearest first (ties to the lower row), -1
        past ``counts``."""
        k = self.max_neighbours if max_neighbours is None \
            else _validate.count("max_neighbours", max_neighbours, min=0)
        allocation(f"neighbour lists of {self._n} agents x {k}", self._n * k)
        d = self.neighbour_dist if distance is None else distance
        try:
            ranges = np.broadcast_to(reals("distance", d), (self._n,))
        except ValueError:      # shapes that do not broadcast
            ranges = np.empty(0)
        if len(ranges) != self._n or not (np.isfinite(ranges).all() and (ranges > 0).all()):
            raise InvalidQueryError(f"distance {brief(distance)} must be > 0 and finite: a "
                                    f"number or one per agent ({self._n})")
        rows = np.empty((self._n, k), dtype=np.int32)
        counts = _neighbours.nearest(np.ascontiguousarray(self.position),
                                     np.ascontiguousarray(ranges), k, rows,
                                     np.empty((self._n, k)))
        return rows, counts

    @renamed_keywords(count="max_neighbours")
    @positional_options("distance", "max_neighbours")
    def pairs(self, *, distance: Any = None, max_neighbours: int | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every agent with its :meth:`neighbours`, ``(n, k)`` slots each (``k``:
        ``max_neighbours``): ``(ok, offset, closing, reach)``: whether the slot holds a
        neighbour, the neighbour's position relative to the agent ``(n, k, 2)``, the agent's
        velocity relative to the neighbour's ``(n, k, 2)`` and their summed radii ``(n,
        k)``.  Empty slots hold the agent's pairing with row 0: mask them with ``ok``."""
        rows, _ = self.neighbours(distance=distance, max_neighbours=max_neighbours)
        ok = rows >= 0
        j = np.where(ok, rows, 0)
        return (ok, self.position[j] - self.position[:, None, :],
                self.velocity[:, None, :] - self.velocity[j],
                self.radius[:, None] + self.radius[j])

    def preferred_velocity(self, dt: float) -> np.ndarray:
        """Straight at the goal at top speed, slowing to arrive exactly in one step of
        ``dt`` seconds."""
        dt = positive_float("dt", dt)
        to_goal = self.goal - self.position
        dist = np.hypot(to_goal[:, 0], to_goal[:, 1])
        with np.errstate(over="ignore"):        # beyond any float: top speed
            speed = np.minimum(self.max_speed, dist / dt)
        scale = np.divide(speed, dist, out=np.zeros_like(dist), where=dist > 0)
        return to_goal * scale[:, None]

    @positional_options("name")
    def velocities(self, value: ArrayLike | None, dt: float, *, name: str = "preferred"
                   ) -> np.ndarray:
        """``value`` as a finite ``(n, 2)`` array of velocities (a copy), or
        :meth:`preferred_velocity` for ``dt`` when it is None."""
        if value is None:
            return self.preferred_velocity(dt)
        try:
            v = np.array(reals(name, value))
        except InvalidQueryError:
            v = np.empty(0)
        if v.shape != (self._n, 2) or not np.isfinite(v).all():
            raise InvalidQueryError(f"{name} must be a finite ({self._n}, 2) array")
        return v

    @positional_options("velocity")
    def step(self, dt: float, *, velocity: ArrayLike | None = None) -> None:
        """Advance ``dt`` seconds: each agent turns its velocity towards ``velocity`` (``(n,
        2)``, default :meth:`preferred_velocity`) as far as ``max_accel * dt`` allows, at most
        ``max_speed``, then moves by the new velocity times ``dt``.  A step that would take
        an agent beyond ``±MAX_EXTENT`` (see :meth:`add`) is refused with
        :class:`~wayfinding.errors.InvalidQueryError`, changing nothing."""
        dt = positive_float("dt", dt)
        want = self.velocities(velocity, dt, name="velocity")
        v = self.velocity
        # Worked out in halves (exactly half of each value, so the same answers), so that
        # no change between velocities of any finite size overflows.
        half = 0.5 * want - 0.5 * v
        size = np.hypot(half[:, 0], half[:, 1])
        with np.errstate(over="ignore"):            # beyond any float: no limit
            limit = 0.5 * self.max_accel * dt
        over = size > limit
        half[over] *= (limit[over] / size[over])[:, None]
        half += 0.5 * v
        speed = np.hypot(half[:, 0], half[:, 1])
        fast = speed > 0.5 * self.max_speed
        half[fast] *= (0.5 * self.max_speed[fast] / speed[fast])[:, None]
        new = 2.0 * half
        with np.errstate(over="ignore"):
            moved = self.position + new * dt
        _inside(moved, dt)
        v[:] = new
        self.position[:] = moved


def _inside(moved: np.ndarray, dt: float) -> None:
    """Refuse a step of ``dt`` seconds that would take agents to ``moved`` (``(n, d)``)
    beyond ``±MAX_EXTENT``."""
    out = ~(np.abs(moved) <= MAX_EXTENT).all(1)
    if out.any():
        raise InvalidQueryError(f"a step of {dt:g} s would take {int(out.sum())} agent(s) "
                                f"(row {int(np.flatnonzero(out)[0])} first) beyond "
                                f"±{MAX_EXTENT:g}, the largest world coordinate of an agent")


def _accel(value: Any) -> float:
    """A top acceleration: a number >= 0, at most ``MAX_EXTENT`` unless inf (no limit)."""
    a = positive_float("max_accel", value, allow_zero=True, allow_inf=True)
    return a if a == math.inf else positive_float("max_accel", a, allow_zero=True,
                                                  max=MAX_EXTENT)


def _world_point(name: str, value: Any, dim: int = 2) -> np.ndarray:
    """``value`` as a float64 point of ``dim`` coordinates after checking that they are
    numbers within ``±MAX_EXTENT`` (:func:`~wayfinding._validate.finite_point`, bounded)."""
    return _within(name, finite_point(name, value, dim), value)


def _within(name: str, points: np.ndarray, given: Any) -> np.ndarray:
    """``points`` (finite, any shape) if every coordinate lies within ``±MAX_EXTENT``;
    raises :class:`InvalidQueryError` naming ``name`` (given as ``given``) otherwise."""
    if not (np.abs(points) <= MAX_EXTENT).all():
        raise InvalidQueryError(f"{name} {brief(given)} lies beyond ±{MAX_EXTENT:g} (the "
                                "largest world coordinate of an agent)")
    return points
