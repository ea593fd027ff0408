"""Climbing movement shared by players and AI: one processor moves a character along a
climb graph from a controller input, whoever produces that input.

A *driver* makes the input each update: a player's stick, or for an AI the look-ahead of
a :class:`~wayfinding.climbing.ClimbSpline` through its planned path
(:class:`LookAheadDriver`, the "virtual stick").  The input is three strengths on the
character's axes, ``(right, up, depth)`` each in [-1, 1], as
:meth:`~wayfinding.climbing.LookAhead.axes` gives them; ``depth`` points into the wall
(``up x right``).  The :class:`ClimbProcessor` turns it into movement with one set of
transition thresholds:

* at a node it takes the outgoing edge closest in direction to the input: a climb edge
  within ``climb_threshold`` (the least cosine), a jump or drop only within
  ``link_threshold`` (a jump needs a more decided input);
* along an element (a climb edge) it moves forward or back when the input's component
  along the edge is at least ``along_threshold`` of its length (shimmying);
* where neither applies it makes for the nearest node within ``snap`` metres along the
  elements whose edges answer the input (the pipe just beside a ledge hang, for an input
  up), and otherwise holds;
* a jump or drop, once started, runs to its end at ``jump_speed`` whatever the input.

An input shorter than ``dead_zone`` holds.  Speeds are metres a second; a step's unused
time carries on past the nodes it reaches.

>>> from wayfinding.climbing import ElementKind, TraversalElement, build_climb_graph
>>> g = build_climb_graph([TraversalElement(ElementKind.LADDER, [(0, 0, 0), (0, 0, 6)])])
>>> mover = ClimbProcessor(g, 0, climb_speed=1.0)
>>> mover.step((0.0, 1.0, 0.0), 2.0).position.tolist()       # stick up for 2 s
[0.0, 0.0, 2.0]
>>> mover.step((1.0, 0.0, 0.0), 1.0).mode                    # right: no way there
<ClimbMode.HOLD: 'hold'>
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from .._validate import finite_points, number
from ..errors import InvalidQueryError
from ..results import _fields_equal
from .graph import ClimbGraph, EdgeKind
from .search import (
    ClimbPath,
    ClimbPosition,
    ClimbReservations,
    _ends,
    find_climb_path,
    nearest_position,
)
from .spline import LOOKAHEAD, ClimbSpline

#: The follower's default look-ahead, metres: the move resolution, shorter than the
#: spline's 2.8 m so that the input turns at the transitions of close-set elements.
FOLLOW = 2.0
#: The shortest look-ahead of a follower whose character holds still, metres.
NEAREST = 0.25


class ClimbMode(str, Enum):
    """What a character is doing: ``HOLD`` (still), ``CLIMB`` (along an element),
    ``JUMP`` or ``DROP`` (between elements); each member equals its lower-case name."""

    HOLD = "hold"
    CLIMB = "climb"
    JUMP = "jump"
    DROP = "drop"


@dataclass(frozen=True, eq=False)
class ClimbState:
    """Where a character is: at ``node`` (-1 when between nodes) or ``along`` metres along
    edge ``edge`` (-1 at a node), at ``position`` (``(3,)`` float64), doing ``mode``."""

    node: int
    edge: int
    along: float
    position: np.ndarray
    mode: ClimbMode

    __eq__ = _fields_equal


def _unit(name: str, value: Any) -> np.ndarray:
    v = finite_points(name, value, 3)[0]
    if len(v) != 1 or np.linalg.norm(v[0]) == 0:
        raise InvalidQueryError(f"{name} {v.tolist()!r} must be one non-zero direction")
    return v[0] / np.linalg.norm(v[0])


def _frame(right: Any, up: Any) -> np.ndarray:
    """The character's unit axes as rows: right, up, depth (= up x right)."""
    r, u = _unit("right", right), _unit("up", up)
    if abs(float(r @ u)) > 1e-9:
        raise InvalidQueryError(f"right {r.tolist()} and up {u.tolist()} must be "
                                "perpendicular")
    return np.stack([r, u, np.cross(u, r)])


class ClimbProcessor:
    """The climbing state machine of one character on ``graph``, starting at ``start`` (a
    node id or a :class:`~wayfinding.climbing.ClimbPosition`).

    ``right`` and ``up``: the character's axes in the world (perpendicular; default x and
    z, facing a wall along x).  ``climb_speed`` and ``jump_speed``: metres a second (> 0).
    ``climb_threshold`` and ``link_threshold``: the least cosine between the input and an
    edge for taking it at a node, ``along_threshold`` for moving along an element, each
    in (0, 1].  ``snap``: how far along the elements it makes for a transition, metres
    (>= 0).  ``dead_zone``: the shortest input that moves, in [0, 1).  See the module
    docstring for the rules.
    """

    def __init__(self, graph: ClimbGraph, start: Any, *, right: Any = (1.0, 0.0, 0.0),
                 up: Any = (0.0, 0.0, 1.0), climb_speed: float = 1.0,
                 jump_speed: float = 4.0, climb_threshold: float = 0.5,
                 link_threshold: float = 0.7, along_threshold: float = 0.05,
                 snap: float = 1.0, dead_zone: float = 0.2):
        if not isinstance(graph, ClimbGraph):
            raise InvalidQueryError(f"graph {graph!r} is not a ClimbGraph")
        self.graph = graph
        self.axes = _frame(right, up)
        """``(3, 3)`` float64: the character's right, up and depth directions as rows."""
        self.climb_speed = number("climb_speed", climb_speed, min=0.0, min_open=True)
        self.jump_speed = number("jump_speed", jump_speed, min=0.0, min_open=True)
        self.climb_threshold = number("climb_threshold", climb_threshold, min=0.0,
                                      min_open=True, max=1.0)
        self.link_threshold = number("link_threshold", link_threshold, min=0.0,
                                     min_open=True, max=1.0)
        self.along_threshold = number("along_threshold", along_threshold, min=0.0,
                                      min_open=True, max=1.0)
        self.dead_zone = number("dead_zone", dead_zone, min=0.0, max=1.0, max_open=True)
        e = graph.edges
        self._order = np.argsort(e[:, 0], kind="stable") if len(e) else np.empty(0, np.int64)
        self._first = np.searchsorted(e[self._order, 0], np.arange(graph.num_nodes + 1)) \
            if len(e) else np.zeros(graph.num_nodes + 1, np.int64)
        span = graph.nodes[e[:, 1]] - graph.nodes[e[:, 0]] if len(e) else np.empty((0, 3))
        self._dir = span / np.linalg.norm(span, axis=1, keepdims=True) if len(e) else span
        self.snap = number("snap", snap, min=0.0)
        self._node, self._edge, self._along = self._place(start)
        self._mode = ClimbMode.HOLD
        self._seeking_transition = False    # making for a transition along an element

    def _place(self, start: Any) -> tuple[int, int, float]:
        g = self.graph
        if isinstance(start, ClimbPosition):
            e = start.element
            if isinstance(e, bool) or not isinstance(e, (int, np.integer)) \
                    or not 0 <= e < len(g.elements) or not len(g.stops[e]):
                raise InvalidQueryError(f"start element {e!r} is not a climbable element "
                                        f"of the graph (0..{len(g.elements) - 1})")
            rows = g.stops[e]
            d = number("start distance", start.distance, min=float(rows[0, 0]),
                       max=float(rows[-1, 0]))
            k = int(np.searchsorted(rows[:, 0], d))
            if rows[k, 0] == d:
                return int(rows[k, 1]), -1, 0.0
            u, v = int(rows[k - 1, 1]), int(rows[k, 1])
            return -1, g.edge_ids[(u, v)], d - float(rows[k - 1, 0])
        if isinstance(start, (int, np.integer)) and not isinstance(start, bool) \
                and 0 <= start < g.num_nodes:
            return int(start), -1, 0.0
        raise InvalidQueryError(f"start {start!r} must be a node id "
                                f"(0..{g.num_nodes - 1}) or a ClimbPosition")

    @property
    def state(self) -> ClimbState:
        """Where the character is now."""
        g = self.graph
        if self._edge < 0:
            pos = g.nodes[self._node].copy()
        else:
            u, v = g.edges[self._edge]
            t = self._along / float(g.edge_lengths[self._edge])
            pos = g.nodes[u] + t * (g.nodes[v] - g.nodes[u])
        return ClimbState(self._node, self._edge, self._along, pos, self._mode)

    def step(self, stick: Any, dt: float) -> ClimbState:
        """Move for ``dt`` seconds (>= 0) under ``stick``, the ``(right, up, depth)``
        input (``(3,)``, each in [-1, 1]); return the new state."""
        s = finite_points("stick", stick, 3)[0]
        if len(s) != 1 or (np.abs(s) > 1).any():
            raise InvalidQueryError(f"stick {s.tolist()!r} must be one (right, up, depth) "
                                    "input, each in [-1, 1]")
        left = number("dt", dt, min=0.0)
        want = s[0] @ self.axes
        strength = min(float(np.linalg.norm(want)), 1.0)
        aim = want / np.linalg.norm(want) if strength > 0 else want
        still = strength < self.dead_zone or strength == 0
        g = self.graph
        self._mode = ClimbMode.HOLD
        for _ in range(4 * len(g.edges) + 4):              # a step crosses few nodes
            committed = self._edge >= 0 and g.edge_kinds[self._edge] != EdgeKind.CLIMB
            if left <= 0 or (still and not committed):
                break
            if self._edge < 0 and not self._choose(aim):
                break
            e = self._edge
            kind = EdgeKind(int(g.edge_kinds[e]))
            if kind is EdgeKind.CLIMB:
                if not self._seeking_transition:
                    c = float(aim @ self._dir[e])
                    if abs(c) < self.along_threshold and not self._reach_for(aim):
                        break
                    if c <= -self.along_threshold:
                        self._turn()
                e = self._edge
                speed = self.climb_speed * strength
                self._mode = ClimbMode.CLIMB
            else:
                speed = self.jump_speed
                self._mode = ClimbMode.JUMP if kind is EdgeKind.JUMP else ClimbMode.DROP
            rest = float(g.edge_lengths[e]) - self._along
            if speed * left < rest:
                self._along += speed * left
                left = 0.0
            else:
                left -= rest / speed
                self._node, self._edge, self._along = int(g.edges[e, 1]), -1, 0.0
                self._seeking_transition = False
        return self.state

    def _turn(self) -> None:
        """Turn round on the current climb edge."""
        u, v = self.graph.edges[self._edge]
        self._edge = self.graph.edge_ids[(int(v), int(u))]
        self._along = float(self.graph.edge_lengths[self._edge]) - self._along

    def _best(self, node: int, aim: np.ndarray, *, away_from: int = -1) -> int:
        """The edge out of ``node`` (not back to ``away_from``) closest in direction to
        ``aim`` within its kind's threshold, or -1."""
        out = self._order[self._first[node]:self._first[node + 1]]
        out = out[self.graph.edges[out, 1] != away_from]
        if not len(out):
            return -1
        cos = self._dir[out] @ aim
        link = self.graph.edge_kinds[out] != EdgeKind.CLIMB
        ok = cos >= np.where(link, self.link_threshold, self.climb_threshold)
        return int(out[ok][int(np.argmax(cos[ok]))]) if ok.any() else -1

    def _choose(self, aim: np.ndarray) -> bool:
        """At a node: start along the edge the input asks for, or else along elements
        towards the nearest node within ``snap`` metres that has one; whether there is
        either."""
        node = self._node
        best = self._best(node, aim)
        self._seeking_transition = best < 0
        if best < 0:
            best = self._towards(node, aim)
            if best < 0:
                return False
        self._node, self._edge, self._along = -1, best, 0.0
        return True

    def _towards(self, node: int, aim: np.ndarray) -> int:
        """The first climb edge of the shortest way along elements (at most ``snap``
        metres) from ``node`` to a node where the input's edge starts, or -1."""
        g = self.graph
        reached = {node: (0.0, -1, -1)}                 # node: metres, first edge, from
        todo = [(0.0, node)]
        while todo:
            metres, n = heapq.heappop(todo)
            if metres > reached[n][0]:
                continue                                # a stale entry
            if n != node and self._best(n, aim, away_from=reached[n][2]) >= 0:
                return reached[n][1]
            for e in self._order[self._first[n]:self._first[n + 1]].tolist():
                m = int(g.edges[e, 1])
                far = metres + float(g.edge_lengths[e])
                if g.edge_kinds[e] == EdgeKind.CLIMB and far <= self.snap \
                        and far < reached.get(m, (np.inf,))[0]:
                    reached[m] = (far, e if n == node else reached[n][1], n)
                    heapq.heappush(todo, (far, m))
        return -1

    def _reach_for(self, aim: np.ndarray) -> bool:
        """Between nodes, with an input across the element: head for the nearer end within
        ``snap`` metres where the input's edge starts; whether there is one."""
        g = self.graph
        u, v = (int(n) for n in g.edges[self._edge])
        ahead = float(g.edge_lengths[self._edge]) - self._along
        ends = sorted((d, k) for k, (d, node, back) in enumerate(
            ((ahead, v, u), (self._along, u, v)))
            if d <= self.snap and self._best(node, aim, away_from=back) >= 0)
        if not ends:
            return False
        if ends[0][1] == 1:
            self._turn()
        self._seeking_transition = True
        return True


class LookAheadDriver:
    """The AI's driver: the stick that follows ``spline`` (a
    :class:`~wayfinding.climbing.ClimbSpline` through a climb path), its look-ahead
    ``distance`` metres ahead (>= 0, default 2.8) read on the character's ``right`` and
    ``up`` axes (as :class:`ClimbProcessor` takes them)."""

    def __init__(self, spline: ClimbSpline, *, right: Any = (1.0, 0.0, 0.0),
                 up: Any = (0.0, 0.0, 1.0), distance: float = LOOKAHEAD):
        if not isinstance(spline, ClimbSpline):
            raise InvalidQueryError(f"spline {spline!r} is not a ClimbSpline")
        self.spline = spline
        self.axes = _frame(right, up)
        self.distance = number("distance", distance, min=0.0)
        self.progress = 0.0
        """Metres along the spline of the character's last place."""

    def stick(self, position: Any) -> np.ndarray:
        """The ``(3,)`` input for a character at ``position``: the unit look-ahead vector
        on its axes (zeros at the spline's end).  The character's place on the spline is
        searched from where it was last up to the look-ahead beyond, so that it keeps its
        progress where the path passes near itself."""
        ahead = self.spline.lookahead(position, distance=self.distance,
                                      span=(self.progress, self.progress + self.distance))
        self.progress = ahead.distance
        return ahead.axes(self.axes[0], self.axes[1])


class ClimbFollower:
    """An AI driver that climbs to ``goal`` on ``graph``: it plans a climb path
    (:func:`~wayfinding.climbing.find_climb_path`, with ``reservations`` for ``agent``),
    follows its spline's look-ahead (:class:`LookAheadDriver`) and plans again from where
    the character is when it strays more than ``replan`` metres (> 0) from the spline or
    holds still farther than ``arrive`` metres (>= 0) from its end, as a player's
    character can be found mid-climb.  Before planning again for a character holding
    still it halves its look-ahead, down to :data:`NEAREST`, so that the input points at
    the transition just ahead; the look-ahead comes back once the character moves.
    ``right``, ``up`` and ``distance`` (default :data:`FOLLOW`, 2 m) as for
    :class:`LookAheadDriver`."""

    def __init__(self, graph: ClimbGraph, goal: Any, *, right: Any = (1.0, 0.0, 0.0),
                 up: Any = (0.0, 0.0, 1.0), distance: float = FOLLOW,
                 replan: float = 1.0, arrive: float = 0.25,
                 reservations: ClimbReservations | None = None, agent: Hashable = None):
        if not isinstance(graph, ClimbGraph):
            raise InvalidQueryError(f"graph {graph!r} is not a ClimbGraph")
        _ends(graph, goal, "goal", None, goal=True)                   # checked once
        self.graph, self.goal = graph, goal
        self.right, self.up = _frame(right, up)[:2]
        self.distance = number("distance", distance, min=0.0)
        self.replan = number("replan", replan, min=0.0, min_open=True)
        self.arrive = number("arrive", arrive, min=0.0)
        self.reservations, self.agent = reservations, agent
        self.path: ClimbPath | None = None
        """The path followed (None before the first stick)."""
        self.plans = 0
        """How many paths were planned."""
        self._driver: LookAheadDriver | None = None
        self._held = 0                  # updates the character has held still

    def stick(self, state: ClimbState) -> np.ndarray:
        """The ``(3,)`` input for a character in ``state`` (zeros when the goal cannot be
        reached or is reached)."""
        if not isinstance(state, ClimbState):
            raise InvalidQueryError(f"state {state!r} is not a ClimbState")
        d = self._driver
        flying = state.mode in (ClimbMode.JUMP, ClimbMode.DROP)
        self._held = self._held + 1 if state.mode is ClimbMode.HOLD else 0
        short = d is not None and (
            d.progress < d.spline.length - 1e-9
            or float(np.linalg.norm(d.spline.at(d.spline.length) - state.position))
            > self.arrive)
        if d is not None and state.mode is not ClimbMode.HOLD:
            d.distance = self.distance
        if d is not None and self._held > 1 and short and d.distance > NEAREST:
            d.distance = max(d.distance / 2, NEAREST)    # held: look nearer first
            self._held = 1
        astray = d is not None and not flying and (
            float(np.linalg.norm(d.spline.at(d.progress) - state.position)) > self.replan
            or (self._held > 1 and short))
        if astray and self.path is not None \
                and np.array_equal(self.path.points[0], state.position):
            return np.zeros(3)                   # planned from here already: stuck
        if self.path is None or astray:
            self._held = 0
            here: Any = state.node if state.node >= 0 else \
                nearest_position(self.graph, state.position)
            self.path = find_climb_path(self.graph, here, self.goal,
                                        reservations=self.reservations, agent=self.agent)
            self.plans += 1
            self._driver = d = None if len(self.path.points) < 2 else LookAheadDriver(
                ClimbSpline(self.path.points), right=self.right, up=self.up,
                distance=self.distance)
        if d is None:
            return np.zeros(3)
        return d.stick(state.position)
