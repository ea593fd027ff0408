"""Continuous-time pathfinding among moving obstacles and timed doors (safe-interval A*).

The agent moves along the edges of a positioned graph (a :class:`CSRGraph` with 2D
coordinates, or a :class:`Grid`, whose cell ``(x, y)`` sits at the point ``(x, y)``) in
straight lines at ``speed``: an edge of cost ``c`` takes ``c / speed`` seconds.  It may wait
at nodes.  Obstacles are discs moving along piecewise-linear trajectories; doors close
nodes or edges during time intervals.  Time is continuous: nothing is sampled.

The search state is a node together with one of its *safe intervals* (the maximal stretches
of time during which the agent can stand there), and its g is the earliest arrival time in
that interval, so states carry time while the state space stays finite.  Successors are
generated lazily when a state is expanded: for each edge and each safe interval of its far
end, the earliest departure at which waiting, then crossing the edge, touches no obstacle and
no closed door.  The sets of unsafe departure times are found in closed form (for one
obstacle segment they form a single interval, since the distance is a convex function of
departure and crossing time) and cached per node and edge.  With the time-to-go heuristic
(straight-line distance times the graph's cost per unit length, over speed) the first goal
state taken off the open list is the earliest possible arrival.

>>> from wayfinding.grid import Grid
>>> grid = Grid.from_ascii('''
... .....
... ##.##
... .....''')
>>> door = {(2, 1): [(0.0, 5.0)]}                   # the gap is shut until t = 5
>>> plan = ContinuousPlanner(grid, doors=door).plan((2, 2), (2, 0))
>>> float(plan.cost), plan.arrive.tolist()          # wait below the gap, then go through
(6.0, [0.0, 5.0, 6.0])
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import finite_float, flag, number, positive_float
from ..errors import InvalidQueryError
from ..graph.csr import CSRGraph
from ..grid.grid import Grid
from ..results import PathResult, SearchStats, _fields_equal

Interval = tuple[float, float]


class MovingObstacle:
    """A disc of ``radius`` moving in straight lines through ``points`` (k >= 2) at
    ``times``.

    ``times`` increase; the first is finite.  The disc exists from ``times[0]`` to
    ``times[-1]`` only; a last time of ``inf`` (with the last two points equal) leaves it
    standing there for good.  :meth:`linear` makes one moving at a constant velocity.
    """

    def __init__(self, points: Any, times: Any, radius: float):
        p = np.array(points, dtype=np.float64)
        t = np.array(times, dtype=np.float64).reshape(-1)
        if p.ndim != 2 or p.shape[1] != 2 or len(p) != len(t) or len(t) < 2:
            raise InvalidQueryError(f"a moving obstacle needs k >= 2 (x, y) points and k "
                                    f"times, got points {p.shape} and times {t.shape}")
        if not np.isfinite(p).all() or np.isnan(t).any() or np.isinf(t[:-1]).any():
            raise InvalidQueryError("obstacle points must be finite, and its times too but "
                                    "for the last")
        if (np.diff(t) <= 0).any():
            raise InvalidQueryError(f"obstacle times {t.tolist()} must increase")
        if math.isinf(t[-1]) and not (p[-1] == p[-2]).all():
            raise InvalidQueryError("an obstacle that lasts forever must end standing still "
                                    "(its last two points equal)")
        dt = np.diff(t)
        vel = np.zeros((len(dt), 2))
        moving = np.isfinite(dt)
        vel[moving] = np.diff(p, axis=0)[moving] / dt[moving, None]
        self._set(t[:-1], t[1:], p[:-1], vel, radius)

    @classmethod
    def linear(cls, point: Any, velocity: Any, radius: float, *, start: float = 0.0,
               end: float = math.inf) -> MovingObstacle:
        """A disc at ``point`` at time ``start`` moving at ``velocity`` until ``end``
        (which may be inf)."""
        p = np.array(point, dtype=np.float64).reshape(-1)
        v = np.array(velocity, dtype=np.float64).reshape(-1)
        if p.shape != (2,) or v.shape != (2,) or not np.isfinite([*p, *v]).all():
            raise InvalidQueryError(f"point {point!r} and velocity {velocity!r} must be "
                                    "finite (x, y) pairs")
        start = finite_float("start", start)
        if not end > start:
            raise InvalidQueryError(f"end {end!r} must come after start {start}")
        ob = cls.__new__(cls)
        ob._set(np.array([start]), np.array([float(end)]), p[None], v[None], radius)
        return ob

    def _set(self, t0: np.ndarray, t1: np.ndarray, q0: np.ndarray, vel: np.ndarray,
             radius: float) -> None:
        self.radius = positive_float("radius", radius)
        # Segment k: centre q0[k] + (s - t0[k]) * vel[k] for s in [t0[k], t1[k]].
        self.t0, self.t1, self.q0, self.vel = t0, t1, q0, vel

    def position(self, t: float) -> np.ndarray | None:
        """Centre at time ``t``; None when the obstacle does not exist then."""
        if not self.t0[0] <= t <= self.t1[-1]:
            return None
        k = min(int(np.searchsorted(self.t1, t)), len(self.t1) - 1)
        return self.q0[k] + (t - self.t0[k]) * self.vel[k]


@dataclass(slots=True, kw_only=True)
class TimedPath(PathResult):
    """A :class:`PathResult` with times: the agent reaches ``path[i]`` at ``arrive[i]`` and
    leaves it at ``depart[i]`` (inf at the goal); ``cost`` is the time from the start time
    to the arrival at the goal."""

    arrive: np.ndarray = field(default_factory=lambda: np.empty(0))
    depart: np.ndarray = field(default_factory=lambda: np.empty(0))
    points: np.ndarray = field(default_factory=lambda: np.empty((0, 2)))

    __eq__ = _fields_equal

    def position(self, t: float) -> np.ndarray:
        """Where the agent is at time ``t`` (waiting at nodes, straight along edges)."""
        if not self.found:
            raise InvalidQueryError("no path was found")
        t = float(t)
        if t <= self.arrive[0]:
            return self.points[0].copy()
        i = int(np.searchsorted(self.arrive, t, side="right")) - 1
        if i == len(self.arrive) - 1 or t <= self.depart[i]:
            return self.points[i].copy()
        s = (t - self.depart[i]) / (self.arrive[i + 1] - self.depart[i])
        return self.points[i] + s * (self.points[i + 1] - self.points[i])


class ContinuousPlanner:
    """Earliest-arrival paths in continuous time on ``world`` (a :class:`Grid` or a
    :class:`CSRGraph` with 2D coordinates) for a disc agent of ``radius`` moving at
    ``speed``, among ``obstacles`` (:class:`MovingObstacle`) and ``doors``: a mapping from
    a node (a cell on grids) or an edge ``(a, b)`` (closed both ways) to the intervals
    ``[(t0, t1), ...]`` during which it is shut.  An agent touching an obstacle or a shut door
    is allowed; overlapping one is not.
    """

    def __init__(self, world: Any, *, speed: float = 1.0, radius: float = 0.0,
                 obstacles: Iterable[MovingObstacle] = (),
                 doors: Mapping[Any, Iterable[Interval]] | None = None):
        if isinstance(world, Grid):
            self._grid: Grid | None = world
            graph = world.to_csr()
        elif isinstance(world, CSRGraph):
            self._grid = None
            graph = world
        else:
            raise InvalidQueryError(f"world must be a Grid or a CSRGraph, got "
                                    f"{type(world).__name__}")
        xy = graph.coords
        if xy is None or xy.shape[1] != 2:
            raise InvalidQueryError("continuous-time planning needs a CSRGraph with 2D "
                                    "coordinates")
        self.speed = positive_float("speed", speed)
        self.radius = positive_float("radius", radius, allow_zero=True)
        self.graph = graph
        self._xy: np.ndarray = xy
        self._sources = np.repeat(np.arange(graph.num_nodes), np.diff(graph.indptr))
        self._obstacles = list(obstacles)
        for ob in self._obstacles:
            if not isinstance(ob, MovingObstacle):
                raise InvalidQueryError(f"obstacles must be MovingObstacle, got {ob!r}")
        obs = self._obstacles
        # Every obstacle segment, with the radii of the obstacle and the agent added up.
        self._t0 = np.concatenate([ob.t0 for ob in obs]) if obs else np.empty(0)
        self._t1 = np.concatenate([ob.t1 for ob in obs]) if obs else np.empty(0)
        self._q0 = np.concatenate([ob.q0 for ob in obs]) if obs else np.empty((0, 2))
        self._vel = np.concatenate([ob.vel for ob in obs]) if obs else np.empty((0, 2))
        self._rad = np.concatenate([np.full(len(ob.t0), ob.radius + self.radius)
                                    for ob in obs]) if obs else np.empty(0)
        self._boxes = _segment_boxes(self._t0, self._t1, self._q0, self._vel, self._rad)
        self._node_doors: dict[int, list[Interval]] = {}
        self._edge_doors: dict[tuple[int, int], list[Interval]] = {}
        for key, spans in (doors or {}).items():
            self._add_door(key, spans)
        self._safe: dict[int, list[Interval]] = {}
        self._edge_unsafe: dict[int, list[Interval]] = {}

    def _node(self, value: Any, name: str) -> int:
        if self._grid is not None:
            x, y = self._grid.cell(value, name=name, passable=True)
            return y * self._grid.width + x
        return self.graph._node(value, name=name)

    def _add_door(self, key: Any, spans: Iterable[Interval]) -> None:
        intervals = []
        for span in spans:
            try:
                a, b = (float(v) for v in span)
            except (TypeError, ValueError):
                raise InvalidQueryError(f"door interval {span!r} must be a pair of times") \
                    from None
            if math.isnan(a) or math.isnan(b) or a > b:
                raise InvalidQueryError(f"door interval {span!r} must have start <= end")
            intervals.append((a, b))
        # An edge is a pair of nodes; on grids a node is itself a pair, so an edge is a
        # pair of pairs.
        is_edge = isinstance(key, tuple) and (self._grid is None or (
            len(key) == 2 and isinstance(key[0], (tuple, list, np.ndarray))))
        if is_edge:
            if len(key) != 2:
                raise InvalidQueryError(f"door edge {key!r} must be a pair of nodes")
            a, b = self._node(key[0], "door end"), self._node(key[1], "door end")
            if b not in self._neighbours(a):
                raise InvalidQueryError(f"door edge {key!r} is not an edge of the world")
            for pair in ((a, b), (b, a)):
                self._edge_doors.setdefault(pair, []).extend(intervals)
        else:
            self._node_doors.setdefault(self._node(key, "door"), []).extend(intervals)

    def _neighbours(self, u: int) -> np.ndarray:
        return self.graph.indices[self.graph.indptr[u]:self.graph.indptr[u + 1]]

    # ---------------------------------------------------------------- unsafe time sets

    def _near(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Obstacle segments whose swept box (grown by the combined radius) meets the box
        ``lo..hi``."""
        b = self._boxes
        return np.flatnonzero((b[:, 0] <= hi[0]) & (b[:, 1] >= lo[0])
                              & (b[:, 2] <= hi[1]) & (b[:, 3] >= lo[1]))

    def safe_intervals(self, node: int) -> list[Interval]:
        """The maximal closed time intervals during which the agent may stand at ``node``
        (a node id of the graph)."""
        if node not in self._safe:
            a = self._xy[node]
            unsafe = list(self._node_doors.get(node, []))
            for k in self._near(a, a):
                span = _point_unsafe(a, self._t0[k], self._t1[k], self._q0[k], self._vel[k],
                                     self._rad[k])
                if span is not None:
                    unsafe.append(span)
            self._safe[node] = _complement(_merge(unsafe))
        return self._safe[node]

    def _departures_unsafe(self, e: int, u: int, v: int, span: float) -> list[Interval]:
        """Merged open intervals of departure times at which crossing edge ``e`` (u -> v,
        taking ``span`` seconds) overlaps an obstacle or a shut door."""
        if e not in self._edge_unsafe:
            a, b = self._xy[u], self._xy[v]
            unsafe = [(c0 - span, c1) for c0, c1 in self._edge_doors.get((u, v), [])]
            if span > 0:
                for k in self._near(np.minimum(a, b), np.maximum(a, b)):
                    window = _edge_unsafe(a, b, span, self._t0[k], self._t1[k], self._q0[k],
                                          self._vel[k], self._rad[k])
                    if window is not None:
                        unsafe.append(window)
            self._edge_unsafe[e] = _merge(unsafe)
        return self._edge_unsafe[e]

    # ------------------------------------------------------------------------- search

    def plan(self, start: Any, goal: Any, *, start_time: float = 0.0, park: bool = True,
             max_time: float = math.inf) -> TimedPath:
        """The earliest-arrival path from ``start`` (at ``start_time``) to ``goal``.

        ``park``: the agent stays at the goal, so it must be able to stand there for good
        (otherwise reaching it is enough).  ``max_time``: give up on arrivals after that
        time.  The start must be safe at ``start_time``.
        """
        park = flag("park", park)
        t0 = time.perf_counter()
        s, g = self._node(start, "start"), self._node(goal, "goal")
        t_start = finite_float("start_time", start_time)
        t_max = number("max_time", max_time, infinite=True)
        first = _interval_at(self.safe_intervals(s), t_start)
        if first is None:
            raise InvalidQueryError(f"the start {start!r} is not safe at time {t_start}: an "
                                    "obstacle or a shut door is there")
        graph, xy, speed = self.graph, self._xy, self.speed
        hscale = graph.heuristic_scale / speed
        goal_xy = xy[g]

        def h(node: int) -> float:
            d = xy[node] - goal_xy
            return hscale * math.hypot(d[0], d[1])

        best: dict[tuple[int, int], float] = {(s, first): t_start}
        parent: dict[tuple[int, int], tuple[tuple[int, int], float] | None] = {
            (s, first): None}
        closed: set[tuple[int, int]] = set()
        heap = [(t_start + h(s), -t_start, 0, (s, first))]
        counter = expanded = 0
        found: tuple[int, int] | None = None
        while heap:
            _, neg_t, _, state = heapq.heappop(heap)
            if state in closed:
                continue
            closed.add(state)
            expanded += 1
            u, i = state
            t_u = -neg_t
            end_u = self.safe_intervals(u)[i][1]
            if u == g and (not park or math.isinf(end_u)):
                found = state
                break
            for e in range(graph.indptr[u], graph.indptr[u + 1]):
                v = int(graph.indices[e])
                span = graph.weights[e] / speed
                unsafe = self._departures_unsafe(e, u, v, span)
                for j, (lo_v, hi_v) in enumerate(self.safe_intervals(v)):
                    if hi_v < t_u + span:
                        continue
                    if lo_v > end_u + span:
                        break
                    tau = _earliest_outside(unsafe, max(t_u, lo_v - span))
                    arrival = tau + span
                    if tau > end_u or arrival > hi_v or arrival > t_max:
                        continue
                    key = (v, j)
                    if key in closed or arrival >= best.get(key, math.inf):
                        continue
                    best[key] = arrival
                    parent[key] = (state, tau)
                    counter += 1
                    heapq.heappush(heap, (arrival + h(v), -arrival, counter, key))
        stats = SearchStats(expanded=expanded, generated=counter + 1, max_open=len(heap),
                            elapsed=time.perf_counter() - t0)
        if found is None:
            empty = np.empty((0, 2) if self._grid is not None else 0, dtype=np.int64)
            return TimedPath(empty, math.inf, False, stats, "sipp")
        nodes, arrive, depart = [], [], []
        step: tuple[int, int] | None = found
        leave = math.inf
        while step is not None:
            nodes.append(step[0])
            arrive.append(best[step])
            depart.append(leave)
            link = parent[step]
            step, leave = (None, math.inf) if link is None else link
        nodes.reverse()
        arrive.reverse()
        depart.reverse()
        ids = np.array(nodes, dtype=np.int64)
        path = np.stack([ids % self._grid.width, ids // self._grid.width], axis=1) \
            if self._grid is not None else ids
        return TimedPath(path, arrive[-1] - t_start, True, stats, "sipp",
                         arrive=np.array(arrive), depart=np.array(depart),
                         points=xy[ids].copy())


# ------------------------------------------------------------------------ interval algebra

def _merge(spans: list[Interval]) -> list[Interval]:
    """Sorted, merged union of open intervals (empty ones dropped; touching ones kept apart,
    since the shared end point is safe)."""
    out: list[Interval] = []
    for lo, hi in sorted(s for s in spans if s[0] < s[1]):
        if out and lo < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _complement(unsafe: list[Interval]) -> list[Interval]:
    """The closed intervals of time outside merged open ``unsafe`` intervals."""
    out: list[Interval] = []
    lo = -math.inf
    for a, b in unsafe:
        out.append((lo, a))
        lo = b
    out.append((lo, math.inf))
    return out


def _interval_at(safe: list[Interval], t: float) -> int | None:
    for i, (lo, hi) in enumerate(safe):
        if lo <= t <= hi:
            return i
    return None


def _earliest_outside(unsafe: list[Interval], t: float) -> float:
    """The earliest time >= t in none of the merged open intervals."""
    for lo, hi in unsafe:
        if hi <= t:
            continue
        if lo >= t:
            break
        t = hi
    return t


def _below(p: np.ndarray, q: np.ndarray, r: float) -> Interval | None:
    """The open interval of s where |p + s q| < r (None when empty)."""
    a2 = float(q @ q)
    a1 = 2.0 * float(p @ q)
    a0 = float(p @ p) - r * r
    if a2 == 0.0:
        return (-math.inf, math.inf) if a0 < 0 else None
    disc = a1 * a1 - 4.0 * a2 * a0
    if disc <= 0:
        return None
    root = math.sqrt(disc)
    # The numerically stable pair of roots.
    t = -0.5 * (a1 + math.copysign(root, a1))  # never 0, since root > 0
    r1, r2 = t / a2, a0 / t
    return (min(r1, r2), max(r1, r2))


def _point_unsafe(a: np.ndarray, t0: float, t1: float, q0: np.ndarray, vel: np.ndarray,
                  r: float) -> Interval | None:
    """Times in [t0, t1] at which the segment's disc (combined radius r) covers point a."""
    span = _below(q0 - a - t0 * vel, vel, r)
    if span is None:
        return None
    lo, hi = max(span[0], t0), min(span[1], t1)
    return (lo, hi) if lo < hi else None


def _edge_unsafe(a: np.ndarray, b: np.ndarray, span: float, t0: float, t1: float,
                 q0: np.ndarray, vel: np.ndarray, r: float) -> Interval | None:
    """The departure times tau at which moving from a to b during [tau, tau + span] comes
    closer than r to the segment's disc (centre q0 + (s - t0) vel for s in [t0, t1]).

    The separation c + s B - tau w (w = (b - a) / span, B = w - vel) is affine in the
    crossing time s and in tau, so its square is convex, and so is its minimum over the
    allowed s (the polygon tau <= s <= tau + span, t0 <= s <= t1): the unsafe taus form one
    interval.  That minimum is a quadratic in tau between the breakpoints where the best s
    changes from one bound to another or to the free minimiser; each piece is solved exactly.
    """
    w = (b - a) / span
    c = a - q0 + t0 * vel
    big_b = w - vel
    bb = float(big_b @ big_b)
    lo_dom, hi_dom = t0 - span, t1
    # The free minimiser s* = alpha + beta * tau (when B != 0).
    alpha = -float(c @ big_b) / bb if bb > 0 else 0.0
    beta = float(w @ big_b) / bb if bb > 0 else 0.0
    points = [lo_dom, hi_dom, t0, t1 - span]
    if bb > 0:
        if beta != 1.0:
            points += [alpha / (1.0 - beta), (span - alpha) / (beta - 1.0)]
        if beta != 0.0:
            points += [(t0 - alpha) / beta, (t1 - alpha) / beta]
    cuts = sorted({p for p in points if lo_dom <= p <= hi_dom and math.isfinite(p)})
    if math.isinf(hi_dom):
        cuts.append(math.inf)
    found_lo, found_hi = math.inf, -math.inf
    for x, y in zip(cuts, cuts[1:]):
        mid = 0.5 * (x + y) if math.isfinite(y) else x + 1.0 + abs(x)
        s_lo, s_hi = max(mid, t0), min(mid + span, t1)
        if s_lo > s_hi:
            continue
        if bb == 0.0:  # the separation does not depend on s
            p, q = 0.0, 0.0
        else:
            star = alpha + beta * mid
            if star <= s_lo:
                p, q = (0.0, 1.0) if mid >= t0 else (t0, 0.0)
            elif star >= s_hi:
                p, q = (span, 1.0) if mid + span <= t1 else (t1, 0.0)
            else:
                p, q = alpha, beta
        # s = p + q tau: separation (c + p B) + tau (q B - w).
        part = _below(c + p * big_b, q * big_b - w, r)
        if part is None:
            continue
        lo, hi = max(part[0], x), min(part[1], y)
        if lo < hi:
            found_lo, found_hi = min(found_lo, lo), max(found_hi, hi)
    if found_lo < found_hi:
        return (found_lo, found_hi)
    return None


def _segment_boxes(t0: np.ndarray, t1: np.ndarray, q0: np.ndarray, vel: np.ndarray,
                   rad: np.ndarray) -> np.ndarray:
    """Per obstacle segment: the box (xmin, xmax, ymin, ymax) its disc sweeps."""
    if len(t0) == 0:
        return np.empty((0, 4))
    dt = t1 - t0
    with np.errstate(invalid="ignore"):
        travel = np.where(np.isinf(dt)[:, None] & (vel != 0), np.copysign(np.inf, vel),
                          vel * np.where(np.isinf(dt), 0.0, dt)[:, None])
    q1 = q0 + travel
    lo, hi = np.minimum(q0, q1) - rad[:, None], np.maximum(q0, q1) + rad[:, None]
    return np.stack([lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1]], axis=1)
