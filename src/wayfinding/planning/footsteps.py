"""Footstep planning for crowds (Singh et al.): each character plans timed footsteps with a
short-horizon anytime search over an inverted-pendulum locomotion model, avoiding the
footsteps other characters have already planned, in space and time.

A state is the end of a step: the COM's position and velocity, the stance foot, which foot
it is and the interval of orientations that foot may take.  An action is the parabola's
axis ``φ`` (offsets from the current heading, plus one straight at the goal), the COM
speed at the step's start and the step's duration; :func:`~wayfinding.planning.
footstep_model.step_curve` turns it into the step's COM curve.  A step is refused when
its velocity does not run forward along ``φ``, its foot spacing or COM advance is outside
the model's ``stride`` range, the COM leaves the model's ``reach`` of the foot (the leg
tilts beyond ``max_leg_angle``; the farthest points are the step's ends), its foot
orientations are empty (below) or one of its five
collision circles meets another character's at a sampled time.

Its cost is the step's energy ``P T + m/2 |v² − (v0 cos 2θ)²| + w m α L`` (``θ`` the leg's
angle from vertical at contact, ``sin θ`` the COM's distance from the new foot over ``l``;
``L`` the COM's path length); the heuristic is ``λ D``, with ``D`` the distance left to
the goal circle and ``λ`` the least energy per metre of any step (:func:`~wayfinding.
planning.footstep_model.least_energy_per_metre`: at the best speed and duration, a step's
``P T`` over the most it can advance), or ``P T_min ⌈D / stride_max⌉ + w m α D`` when that
is larger; both never overestimate.  With others to avoid, a character may also wait
(stand still over both feet for one of ``waits`` seconds, costing ``P W`` and the
``m v0² / 2`` of stopping) and so let someone pass.

Foot orientations: the new foot points between the parabola's axis and the COM's velocity
at the step's end, and within ``foot_turn`` of every orientation the previous foot may
take (``[hi_prev − turn, lo_prev + turn]``); the intersection is the new interval (empty:
no step).  Any orientation in it is then compatible with any of the previous one's: the
plan takes each interval's middle.

Search: rounds of weighted A* (:class:`~wayfinding.search.generic.AStarSearch`, the goal a
predicate) over the tree of steps with the heuristic inflated by ``ε``, from ``epsilon``
down by ``epsilon_step`` to 1, which share ``max_expansions`` (the horizon ``N_max``):
the first round answers, the later ones improve its plan with what is left; the steps a
round generates are kept for the next.  States whose position, heading, speed, foot and
time fall in one cell (:data:`CELL`) count as one node, the cheapest kept (the bound ``ε``
holds over the plans this merging keeps).  The best plan found is
returned with its round's ``ε``; when no round reaches the goal the plan leads to the
expanded state nearest to it where the character may stop (status ``PARTIAL``).  The
compiled ARA* of :mod:`wayfinding.search` needs a grid or a ``CSRGraph``; footstep states
are continuous, hence these rounds.

Collisions are tested on a time grid of ``sample_interval`` seconds shared by everyone:
at each sample the circles must keep ``clearance`` apart, which also covers the motion
between samples while the two characters' relative speed stays below ``2 clearance /
sample_interval``.  A character stands at the end of its plan from then on, so a plan
ends only where standing meets none of the others' plans.  During a step the other foot
swings (:meth:`FootstepPlan.body`) to where the next step puts it down, so a step's
swinging foot is known only once the next step is chosen: a step is tested with its
torso, shoulders and stance foot, and the swing of the step before it with each step,
wait or stop that follows.

>>> plan = plan_footsteps((0.0, 0.0), (3.0, 0.0), velocity=(1.0, 0.0))
>>> plan.status, bool(np.hypot(*(plan.com[-1] - (3.0, 0.0))) <= 0.3)
(Status.FOUND, True)
>>> bool(np.all(np.diff(plan.times) > 0)), plan.feet.shape[1]
(True, 2)
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import (
    allocation,
    count,
    finite_point,
    finite_points,
    flag,
    number,
    positive_float,
    reals,
    time_steps,
    xy,
)
from ..errors import InvalidQueryError, brief
from ..results import SearchStats, Status, _fields_equal
from ..search.generic import AStarSearch
from .footstep_model import (
    LocomotionModel,
    StepCurve,
    arc_length,
    bending_energy,
    canonical,
    curve_kind,
    least_energy_per_metre,
    solve_start,
    step_to_world,
)

#: Default ``φ`` offsets from the current heading, radians (the goal-directed one is added).
TURNS = (0.0, -0.25, 0.25, -0.5, 0.5, -0.9, 0.9, -1.3, 1.3)
#: Default step speeds as fractions of the model's preferred speed.
SPEEDS = (0.5, 1.0)
#: Default step durations as fractions of the model's preferred duration.
DURATIONS = (0.8, 1.0)
#: Default waits (standing still, only with others to avoid) as fractions of the model's
#: preferred step duration.
WAITS = (1.0,)
#: States in one cell are one node of the search: position (m), heading (rad), speed
#: (m/s) and, when there are others to avoid, time (s).
CELL = (0.1, math.pi / 16, 0.1, 0.1)


@dataclass(slots=True, repr=False, kw_only=True)
class FootstepPlan:
    """Timed footsteps and the COM trajectory of one character.

    Step ``i`` (1..k) runs from ``times[i-1]`` to ``times[i]`` (s) on the stance foot
    ``feet[i]``; row 0 is the start.  ``com``, ``com_velocity``: ``(k+1, 2)`` float64 at
    those times.  ``feet``: ``(k+1, 2)`` float64 foot positions; ``sides``: ``(k+1,)`` int8,
    +1 right foot, −1 left.  ``orientation_bounds``: ``(k+1, 2)`` float64 interval of each
    foot's orientation (radians, unwrapped, low first); ``orientations``: ``(k+1,)`` the
    chosen one (its middle).  ``curves``: ``(k, 4)`` float64 per step ``(origin x, origin
    y, φ, t0)`` and ``apex_speed``: ``(k,)``, the canonical curves (see
    :class:`~wayfinding.planning.footstep_model.StepCurve`).  ``cost``: energy in J;
    ``status``: ``FOUND`` (the last COM is within the goal radius), ``PARTIAL`` (the
    search's budget ran out: the plan leads to the state nearest the goal where the
    character may stop) or ``FAILED`` (no valid first step, or none leads to a place where
    it may stop: the record holds the start alone, and it does not avoid the others).
    ``epsilon``: the bound of the round that found it (inf unless ``FOUND``).
    ``standing``: ``(k,)`` bool, the steps that are waits: the COM stands still over both
    feet (its row of ``curves`` holds the COM, the heading and 0; ``apex_speed`` 0; its
    foot is the trailing one, still on the ground).
    """

    times: np.ndarray
    com: np.ndarray
    com_velocity: np.ndarray
    feet: np.ndarray
    sides: np.ndarray
    orientation_bounds: np.ndarray
    orientations: np.ndarray
    curves: np.ndarray
    apex_speed: np.ndarray
    cost: float
    status: Status
    epsilon: float = math.inf
    curve: str = "parabola"
    model: LocomotionModel = field(default_factory=LocomotionModel)
    stats: SearchStats = field(default_factory=SearchStats)
    standing: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        if len(self.standing) != len(self.times) - 1:
            self.standing = np.zeros(len(self.times) - 1, dtype=bool)

    @property
    def found(self) -> bool:
        """Whether the plan reaches the goal."""
        return self.status is Status.FOUND

    def __len__(self) -> int:
        return len(self.times) - 1

    def __repr__(self) -> str:
        return (f"FootstepPlan({self.status}: steps={len(self)}, "
                f"duration={self.times[-1] - self.times[0]:.3g} s, cost={self.cost:.6g})")

    def trajectory(self, t: Any) -> tuple[np.ndarray, np.ndarray]:
        """COM positions and velocities ``(m, 2)`` at the times ``t`` ``(m,)`` (s), from
        the steps' analytic curves; at a step's start time, that step's (after the heel
        strike: its speed is the action's); before the plan the character is at its start,
        from its end on standing (velocity 0) there."""
        times = _times(t)
        pos = np.repeat(self.com[-1:], len(times), axis=0)
        vel = np.zeros_like(pos)
        first = times < self.times[0]
        pos[first] = self.com[0]
        vel[first] = self.com_velocity[0]
        inside = ~first & (times < self.times[-1])
        if inside.any() and len(self):
            tt = times[inside]
            i = np.clip(np.searchsorted(self.times, tt, side="right") - 1, 0, len(self) - 1)
            tau = self.curves[i, 3] + (tt - self.times[i])
            px, py, vx, vy = step_to_world(
                self.curves[i, 0], self.curves[i, 1], self.curves[i, 2], self.sides[i + 1],
                *canonical(tau, self.apex_speed[i], self.model, self.curve == "hyperbola"))
            still = self.standing[i]
            px, py = np.where(still, self.com[i, 0], px), np.where(still, self.com[i, 1], py)
            vx, vy = np.where(still, 0.0, vx), np.where(still, 0.0, vy)
            pos[inside] = np.stack([px, py], 1)
            vel[inside] = np.stack([vx, vy], 1)
        return pos, vel

    def body(self, t: Any) -> np.ndarray:
        """Centres ``(m, 5, 2)`` of the five collision circles at the times ``t``: torso (on
        the COM), left and right shoulder (``shoulder_offset`` across the heading), the
        stance foot and the other foot; radii in ``model.radii``.

        During step ``i`` the other foot swings from ``feet[i-1]`` to ``feet[i+1]`` (where
        step ``i+1`` puts it down as it begins) in a straight line at constant speed; it
        stays at ``feet[i-1]`` during a wait, during the last step and after it.  A step
        after a wait sets its foot down as it begins (the foot it replaces lifts then)."""
        times = _times(t)
        pos, _ = self.trajectory(times)
        _, vel = self.trajectory(np.minimum(times, np.nextafter(self.times[-1], -math.inf)))
        k = len(self)
        i = np.clip(np.searchsorted(self.times, times, side="right"), 0, k)
        rows = self.com_velocity
        moving = np.hypot(rows[:, 0], rows[:, 1]) > 0
        last = np.maximum.accumulate(np.where(moving, np.arange(len(rows)), 0))
        still = (vel == 0).all(axis=1)
        vel[still] = rows[last[np.maximum(i - 1, 0)]][still]
        before = np.maximum(i - 1, 0)
        swings = (i >= 1) & (i < k) & ~np.append(False, self.standing)[i]
        other = np.where(swings[:, None], _swing(
            self.feet[before], self.feet[np.minimum(i + 1, k)], self.times[before],
            np.where(swings, self.times[i], self.times[before] + 1.0), times),
            self.feet[before])
        return _bodies(self.model, pos, vel, self.feet[i], other)


def _times(t: Any) -> np.ndarray:
    """``t`` (a time or an array of them, s) as a flat float64 array of finite times."""
    times = reals("t", t).reshape(-1)
    if not np.isfinite(times).all():
        raise InvalidQueryError(f"t {brief(t)} must be finite times")
    return times


def _bodies(model: LocomotionModel, pos: np.ndarray, vel: np.ndarray, stance: np.ndarray,
            other: np.ndarray) -> np.ndarray:
    speed = np.hypot(vel[:, 0], vel[:, 1])
    speed[speed == 0] = 1.0
    left = np.stack([-vel[:, 1], vel[:, 0]], 1) / speed[:, None] * model.shoulder_offset
    return np.stack([pos, pos + left, pos - left, stance, other], 1)


def _swing(lift: np.ndarray, land: np.ndarray, t0: Any, t1: Any, t: Any) -> np.ndarray:
    """A foot swinging from ``lift`` at time ``t0`` to ``land`` at ``t1`` (``t1 > t0``) in a
    straight line at constant speed, at the times ``t`` (clipped to the swing; arrays
    broadcast, points last)."""
    u = np.clip((np.asarray(t) - t0) / (np.asarray(t1) - t0), 0.0, 1.0)
    return lift + u[..., None] * (land - lift)


class _State:
    """A state of the search: the end of a step.  States in one cell (``key``, see
    :data:`CELL`) are one node of the search, which keeps the cheapest.  ``other``: where
    the other foot was when the step began (a root: where it stands), ``since``: when the
    step began, ``swings``: whether that foot swings during the step to the next step's
    foot (a walking step; not a wait or a root)."""

    __slots__ = ("com", "vel", "foot", "side", "lo", "hi", "time", "parent", "curve",
                 "children", "dist", "key", "heading", "other", "since", "swings")

    def __init__(self, com: tuple[float, float], vel: tuple[float, float],
                 foot: tuple[float, float], side: int, lo: float, hi: float, t: float,
                 parent: _State | None, curve: StepCurve | None, goal: tuple[float, float],
                 *, other: tuple[float, float] | None = None, since: float | None = None,
                 swings: bool = False):
        self.com, self.vel, self.foot, self.side = com, vel, foot, side
        self.lo, self.hi, self.time = lo, hi, t
        self.parent, self.curve = parent, curve
        self.other = foot if other is None else other
        self.since = t if since is None else since
        self.swings = swings
        self.children: list[tuple[_State, float]] | None = None
        self.dist = math.hypot(goal[0] - com[0], goal[1] - com[1])
        self.key: tuple[int, ...] = ()
        self.heading: float = math.atan2(vel[1], vel[0])
        if vel == (0.0, 0.0) and parent is not None:
            self.heading = parent.heading          # standing keeps the heading it had

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _State) and self.key == other.key


class _Steps:
    """The tree of footsteps as a graph for :class:`AStarSearch`."""

    def __init__(self, model: LocomotionModel, goal: tuple[float, float], radius: float,
                 actions: tuple[np.ndarray, np.ndarray, np.ndarray], hyperbola: bool,
                 others: list[FootstepPlan], dt: float, clearance: float, view: float,
                 waits: np.ndarray):
        self.model, self.goal, self.radius = model, goal, radius
        self.turns, self.speeds, self.durations = actions
        self.hyperbola, self.others, self.dt = hyperbola, others, dt
        self.clearance, self.view = clearance, view
        self.waits = waits if others else waits[:0]
        self.c_step = model.rate * float(self.durations.min())
        self.c_metre = least_energy_per_metre(model, self.speeds, self.durations,
                                              hyperbola=hyperbola)
        self._grid = np.empty((0, len(others), 5, 2))
        if others:
            radii = np.stack([o.model.radii for o in others])           # (n, 5)
            self.reach = model.radii[:, None, None] + radii[None] + clearance  # (5, n, 5)
            self.ends = np.array([o.times[-1] for o in others])

    def _others_at(self, j0: int, j1: int) -> np.ndarray:
        """The others' circles at grid times ``j0 * dt .. j1 * dt``: ``(m, n, 5, 2)``."""
        if j1 >= len(self._grid):
            last = max(j1 + 1, 2 * len(self._grid), 64)
            t = np.arange(last) * self.dt
            self._grid = np.stack([o.body(t) for o in self.others], 1)
        return self._grid[j0:j1 + 1]

    def heuristic(self, s: _State, _goal: Any) -> float:
        d = max(0.0, s.dist - self.radius)
        return max(self.c_metre * d, self.c_step * math.ceil(d / self.model.stride[2] - 1e-12)
                   + bending_energy(self.model, self.model.alpha, d))

    def is_goal(self, s: _State) -> bool:
        """Within the goal radius, and where standing from then on meets nobody."""
        return s.dist <= self.radius and self.may_stop(s)

    def may_stop(self, s: _State) -> bool:
        """Whether standing at ``s`` from its time on meets nobody (nor does the other
        foot, kept down during the step that ends there)."""
        if not self.others:
            return True
        j0 = int(math.ceil(s.time / self.dt - 1e-9))
        j1 = max(j0, int(math.ceil(float(self.ends.max()) / self.dt)) + 1)
        n = j1 - j0 + 1
        everyone = np.ones(len(self.others), dtype=bool)
        mine = _bodies(self.model, np.tile(s.com, (n, 1)),
                       np.tile((math.cos(s.heading), math.sin(s.heading)), (n, 1)),
                       np.tile(s.foot, (n, 1)), np.tile(s.other, (n, 1)))
        return not self._meets(mine, j0, j1, everyone) \
            and not self._swing_meets(s, np.array([s.other]), everyone)[0]

    def _meets(self, mine: np.ndarray, j0: int, j1: int, near: np.ndarray) -> bool:
        """Whether circles ``mine`` ``(t, 5, 2)`` at grid times ``j0 .. j1`` meet those of
        the ``near`` others."""
        theirs = self._others_at(j0, j1)[:, near]                           # (t, n, 5, 2)
        gap = mine[:, :, None, None, :] - theirs[:, None]                   # (t, 5, n, 5, 2)
        dist2 = np.einsum("...i,...i->...", gap, gap)
        return bool((dist2 < self.reach[:, near] ** 2).any())

    def key(self, s: _State) -> tuple[int, ...]:
        """The cell of a state for duplicate detection: position, heading, speed, foot and
        (with others to avoid) time."""
        heading = s.heading
        return (round(s.com[0] / CELL[0]), round(s.com[1] / CELL[0]),
                round(heading / CELL[1]) % round(2 * math.pi / CELL[1]),
                round(math.hypot(*s.vel) / CELL[2]), s.side,
                round(s.time / CELL[3]) if self.others else 0)

    def successors(self, u: _State) -> list[tuple[_State, float]]:
        if u.children is None:
            u.children = self._expand(u) + self._wait(u)
        return u.children

    def _wait(self, u: _State) -> list[tuple[_State, float]]:
        """Standing still for each of ``waits`` seconds: the COM stops over both feet (the
        trailing foot becomes the record's foot, so the next step swings the other);
        energy ``P W + m/2 v0²``.  Refused where standing meets someone, or the other foot,
        kept down during ``u``'s step, does."""
        if not len(self.waits):
            return []
        m = self.model
        foot = u.other
        lo, hi = (u.parent.lo, u.parent.hi) if u.parent is not None else (u.lo, u.hi)
        stop = 0.5 * m.mass * (u.vel[0] ** 2 + u.vel[1] ** 2)
        near = self._near(u)
        if near.any() and self._swing_meets(u, np.array([foot]), near)[0]:
            return []
        j0 = int(math.ceil(u.time / self.dt - 1e-9))
        head = (math.cos(u.heading), math.sin(u.heading))
        out = []
        for w in self.waits.tolist():
            j1 = int(math.floor((u.time + w) / self.dt + 1e-9))
            n = j1 - j0 + 1
            if near.any() and n > 0 and self._meets(
                    _bodies(m, np.tile(u.com, (n, 1)), np.tile(head, (n, 1)),
                            np.tile(u.foot, (n, 1)), np.tile(foot, (n, 1))), j0, j1, near):
                continue
            state = _State(u.com, (0.0, 0.0), foot, -u.side, lo, hi, u.time + w, u, None,
                           self.goal, other=u.foot, since=u.time)
            state.key = self.key(state)
            out.append((state, m.rate * w + stop))
        return out

    def _expand(self, u: _State) -> list[tuple[_State, float]]:
        """Every action at once: the curves, strides, orientations and costs as arrays,
        then the collision test for the steps left."""
        m, hyp = self.model, self.hyperbola
        speed0 = math.hypot(*u.vel)
        heading = u.heading
        ux, uy = math.cos(heading), math.sin(heading)
        goal_phi = math.atan2(self.goal[1] - u.com[1], self.goal[0] - u.com[0])
        phis = np.append(heading + self.turns, goal_phi)
        phi, v, dur = (a.ravel() for a in np.meshgrid(phis, self.speeds, self.durations,
                                                      indexing="ij"))
        side = -u.side
        c, s = np.cos(phi), np.sin(phi)
        vx = (c * ux + s * uy) * v
        vy = side * (-s * ux + c * uy) * v
        ok = vx > 1e-9
        phi, v, dur, vx, vy = phi[ok], v[ok], dur[ok], vx[ok], vy[ok]
        t0, apex = solve_start(vx, vy, m, hyp)
        x0, y0, _, _ = canonical(t0, apex, m, hyp)
        px, py, _, _ = step_to_world(0.0, 0.0, phi, side, x0, y0, 0.0, 0.0)
        ox, oy = u.com[0] - px, u.com[1] - py
        fx, fy, _, _ = step_to_world(ox, oy, phi, side, 0.0, -m.foot_offset, 0.0, 0.0)
        spacing = np.hypot(fx - u.foot[0], fy - u.foot[1])
        ex, ey, evx, evy = step_to_world(ox, oy, phi, side, *canonical(t0 + dur, apex, m, hyp))
        lo_s, _, hi_s = m.stride
        lo, hi = _orientations(phi, np.arctan2(evy, evx), u.lo, u.hi, m.foot_turn)
        lean = np.hypot(fx - u.com[0], fy - u.com[1])
        ok = (spacing >= lo_s) & (spacing <= hi_s) & (lo <= hi) \
            & (np.hypot(ex - u.com[0], ey - u.com[1]) <= hi_s) \
            & (lean <= m.reach) & (np.hypot(ex - fx, ey - fy) <= m.reach)
        idx = np.flatnonzero(ok)
        if not len(idx):
            return []
        theta = np.arcsin(lean[idx] / m.leg_length)
        cost = m.rate * dur[idx] \
            + 0.5 * m.mass * np.abs(v[idx] ** 2 - (speed0 * np.cos(2 * theta)) ** 2) \
            + bending_energy(m, m.alpha, arc_length(t0[idx], t0[idx] + dur[idx], apex[idx],
                                                     m, hyp))
        near = self._near(u)
        if near.any():
            keep = ~self._collide(u, idx, (ox, oy, phi, t0, dur, apex, fx, fy), side, near)
            idx, cost = idx[keep], cost[keep]
        cols = (ox[idx], oy[idx], phi[idx], t0[idx], dur[idx], apex[idx], fx[idx], fy[idx],
                ex[idx], ey[idx], evx[idx], evy[idx], lo[idx], hi[idx], cost)
        out = []
        for o_x, o_y, p, t, d, a, f_x, f_y, e_x, e_y, e_vx, e_vy, b_lo, b_hi, c in zip(
                *(col.tolist() for col in cols)):
            curve = StepCurve((o_x, o_y), p, side, t, t + d, a, hyp)
            state = _State((e_x, e_y), (e_vx, e_vy), (f_x, f_y), side, b_lo, b_hi, u.time + d,
                           u, curve, self.goal, other=u.foot, since=u.time, swings=True)
            state.key = self.key(state)
            out.append((state, c))
        return out

    def _near(self, u: _State) -> np.ndarray:
        """Which others are within the view radius when the step begins."""
        if not self.others:
            return np.zeros(0, dtype=bool)
        if math.isinf(self.view):
            return np.ones(len(self.others), dtype=bool)
        j = int(round(u.time / self.dt))
        at = self._others_at(j, j)[0, :, 0]
        return np.hypot(at[:, 0] - u.com[0], at[:, 1] - u.com[1]) <= self.view

    def _collide(self, u: _State, idx: np.ndarray, steps: tuple[np.ndarray, ...], side: int,
                 near: np.ndarray) -> np.ndarray:
        """Which of the steps ``idx`` (arrays ``steps``: origin x, y, φ, t0, duration, apex
        speed, foot x, y) meet the ``near`` others at a grid time within them (torso,
        shoulders and stance foot; the foot swinging meanwhile is tested with the next
        step), or make the foot swinging during ``u``'s step meet them."""
        ox, oy, phi, t0, dur, apex, fx, fy = (a[idx, None] for a in steps)
        hit = self._swing_meets(u, np.concatenate([fx, fy], 1), near)
        j0 = int(math.ceil(u.time / self.dt - 1e-9))
        j1 = np.floor((u.time + dur[:, 0]) / self.dt + 1e-9).astype(np.int64)
        span = max(int(j1.max()) - j0 + 1, 0)
        if span == 0:
            return hit
        grid = np.arange(j0, j0 + span)
        px, py, vx, vy = step_to_world(ox, oy, phi, side, *canonical(
            grid * self.dt - u.time + t0, apex, self.model, self.hyperbola))
        c = len(idx)
        flat = c * span
        stance = np.broadcast_to(np.stack([fx, fy], -1), (c, span, 2)).reshape(flat, 2)
        mine = _bodies(self.model, np.stack([px, py], -1).reshape(flat, 2),
                       np.stack([vx, vy], -1).reshape(flat, 2), stance,
                       stance)[:, :4].reshape(c, span, 4, 2)
        theirs = self._others_at(j0, j0 + span - 1)[:, near]               # (t, n, 5, 2)
        gap = mine[:, :, :, None, None, :] - theirs[None, :, None]         # (c, t, 4, n, 5, 2)
        meets = (np.einsum("...i,...i->...", gap, gap) < self.reach[:4, near] ** 2).any(
            axis=(2, 3, 4))
        return hit | (meets & (grid[None, :] <= j1[:, None])).any(axis=1)

    def _swing_meets(self, u: _State, lands: np.ndarray, near: np.ndarray) -> np.ndarray:
        """For each place ``lands`` ``(c, 2)`` the foot swinging during ``u``'s step may be
        put down, whether it meets the ``near`` others at a grid time of that step (it
        swings from ``u.other`` in a straight line at constant speed; it stays there when
        ``u``'s step is a wait or ``u`` is a root)."""
        j0 = int(math.ceil(u.since / self.dt - 1e-9))
        j1 = int(math.floor(u.time / self.dt + 1e-9))
        if j1 < j0 or u.since >= u.time or not near.any():
            return np.zeros(len(lands), dtype=bool)
        t = np.arange(j0, j1 + 1) * self.dt
        lift = np.asarray(u.other)
        feet = _swing(lift, lands[:, None], u.since, u.time, t) if u.swings \
            else np.broadcast_to(lift, (len(lands), len(t), 2))             # (c, t, 2)
        theirs = self._others_at(j0, j1)[:, near]                           # (t, n, 5, 2)
        gap = feet[:, :, None, None, :] - theirs[None]                      # (c, t, n, 5, 2)
        return (np.einsum("...i,...i->...", gap, gap) < self.reach[4, near] ** 2).any(
            axis=(1, 2, 3))


def _orientations(phi: np.ndarray, heading: np.ndarray, lo: float, hi: float, turn: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The next foot's orientation interval: between ``phi`` and ``heading`` and within
    ``turn`` of every angle in ``[lo, hi]`` (low > high when empty)."""
    b = phi + (heading - phi + math.pi) % (2 * math.pi) - math.pi
    b_lo, b_hi = np.minimum(phi, b), np.maximum(phi, b)
    a_lo, a_hi = hi - turn, lo + turn
    shift = 2 * math.pi * np.round((0.5 * (a_lo + a_hi) - 0.5 * (b_lo + b_hi)) / (2 * math.pi))
    return np.maximum(a_lo, b_lo + shift), np.minimum(a_hi, b_hi + shift)


def _fractions(name: str, value: Any, scale: float, *, positive: bool = True,
               empty: bool = False) -> np.ndarray:
    """``value`` (a sequence of finite numbers, > 0 when ``positive``; may be empty when
    ``empty``) times ``scale``, as an array."""
    try:
        arr = reals(name, value)
    except InvalidQueryError:
        arr = np.array([np.nan])
    if arr.ndim != 1 or (len(arr) == 0 and not empty) or not np.isfinite(arr).all() \
            or (positive and not (arr > 0).all()):
        raise InvalidQueryError(f"{name} {value!r} must be a{'' if empty else ' non-empty'} "
                                f"sequence of finite numbers{' > 0' if positive else ''}")
    return arr * scale


def _actions(model: LocomotionModel, turns: Any, speeds: Any, durations: Any
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    speeds_ = _fractions("speeds", speeds, model.speeds[1])
    lo_v, _, hi_v = model.speeds
    speeds_ = speeds_[(speeds_ >= lo_v - 1e-12) & (speeds_ <= hi_v + 1e-12)]
    durations_ = _fractions("durations", durations, model.step_duration[1])
    lo_t, _, hi_t = model.step_duration
    durations_ = durations_[(durations_ >= lo_t - 1e-12) & (durations_ <= hi_t + 1e-12)]
    if not len(speeds_) or not len(durations_):
        raise InvalidQueryError(f"speeds {speeds!r} and durations {durations!r} (fractions "
                                "of the preferred values) leave no action within the "
                                "model's limits")
    return _fractions("turns", turns, 1.0, positive=False), speeds_, durations_


def plan_footsteps(start: Any, goal: Any, *, velocity: Any, model: LocomotionModel | None = None,
                   others: Any = (), start_time: float = 0.0, side: str = "left",
                   goal_radius: float = 0.3, curve: str = "parabola", turns: Any = TURNS,
                   speeds: Any = SPEEDS, durations: Any = DURATIONS, epsilon: float = 3.5,
                   epsilon_step: float = 1.0, max_expansions: int = 1000,
                   max_seconds: float | None = None, sample_interval: float = 0.05,
                   clearance: float = 0.1, view_radius: float = math.inf,
                   waits: Any = WAITS) -> FootstepPlan:
    """Plan footsteps for one character from its COM at ``start`` to within
    ``goal_radius`` of ``goal`` (see the module).

    ``velocity``: the COM's ``(vx, vy)`` at the start (m/s, not zero: the planner walks).
    ``model``: the :class:`~wayfinding.planning.footstep_model.LocomotionModel` (None: the
    defaults).  ``others``: the :class:`FootstepPlan` of characters to avoid.
    ``start_time`` (s, >= 0, on the shared clock).  ``side``: the foot on the ground at the
    start (``"left"`` or ``"right"``; the first step is the other).  ``curve``:
    ``"parabola"`` or ``"hyperbola"`` (exact, slower).  ``turns``: ``φ`` offsets (radians)
    from the heading; ``speeds`` and ``durations``: fractions of the model's preferred
    speed and duration (those outside its limits are dropped).  ``epsilon`` (>= 1) and
    ``epsilon_step`` (> 0): the rounds' inflations.  ``max_expansions``: ``N_max``, for
    all the rounds together (>= 1).  ``max_seconds``: no new round after that long (None: no limit).
    ``sample_interval`` (s, at most the shortest step), ``clearance`` (m, >= 0),
    ``view_radius`` (m; others farther at a step's start are ignored).  ``waits``:
    durations of standing still as fractions of the preferred step duration (``()``:
    never wait; used only with others to avoid).
    """
    t0 = time.perf_counter()
    com = xy("start", start)
    vel = finite_point("velocity", velocity)
    if not np.hypot(*vel) > 0:
        raise InvalidQueryError(f"velocity {velocity!r} must not be zero: a footstep plan "
                                "starts walking")
    start_time = number("start_time", start_time, min=0.0)
    stance = {"left": -1, "right": 1}.get(side) if isinstance(side, str) else None
    if stance is None:
        raise InvalidQueryError(f"side {side!r} must be 'left' or 'right'")
    graph, search = _setup(
        goal, model, others, goal_radius=goal_radius, curve=curve, turns=turns, speeds=speeds,
        durations=durations, epsilon=epsilon, epsilon_step=epsilon_step,
        max_expansions=max_expansions, max_seconds=max_seconds,
        sample_interval=sample_interval, clearance=clearance, view_radius=view_radius,
        waits=waits)
    return _search(graph, _start(graph, com, vel, stance, start_time), *search, t0)[0]


def _start(graph: _Steps, com: Any, vel: Any, stance: int, start_time: float) -> _State:
    """The root walking from ``com`` at ``vel``, the stance foot beside it (the other foot
    opposite, where a wait puts it down)."""
    heading = math.atan2(vel[1], vel[0])
    off = -stance * graph.model.foot_offset
    foot = (com[0] - math.sin(heading) * off, com[1] + math.cos(heading) * off)
    root = _State((float(com[0]), float(com[1])), (float(vel[0]), float(vel[1])), foot,
                  stance, heading, heading, start_time, None, None, graph.goal,
                  other=(2 * float(com[0]) - foot[0], 2 * float(com[1]) - foot[1]))
    root.key = graph.key(root)
    return root


def _setup(goal: Any, model: LocomotionModel | None, others: Any, *, goal_radius: float = 0.3,
           curve: str = "parabola", turns: Any = TURNS, speeds: Any = SPEEDS,
           durations: Any = DURATIONS, epsilon: float = 3.5, epsilon_step: float = 1.0,
           max_expansions: int = 1000, max_seconds: float | None = None,
           sample_interval: float = 0.05, clearance: float = 0.1,
           view_radius: float = math.inf, waits: Any = WAITS
           ) -> tuple[_Steps, tuple[str, float, float, int, float | None]]:
    """The checked options of :func:`plan_footsteps` as the graph of steps and the search's
    ``(curve, epsilon, epsilon_step, max_expansions, max_seconds)``."""
    model = LocomotionModel() if model is None else model
    if not isinstance(model, LocomotionModel):
        raise InvalidQueryError(f"model must be a LocomotionModel, got {type(model).__name__}")
    target = xy("goal", goal)
    if isinstance(others, FootstepPlan) or not isinstance(others, Iterable):
        raise InvalidQueryError(f"others {brief(others)} must be a sequence of "
                                "FootstepPlan records")
    others = list(others)
    for o in others:
        if not isinstance(o, FootstepPlan):
            raise InvalidQueryError(f"others must be FootstepPlan records, got "
                                    f"{type(o).__name__}")
    goal_radius = positive_float("goal_radius", goal_radius)
    hyperbola = curve_kind(curve)
    actions = _actions(model, turns, speeds, durations)
    pauses = _fractions("waits", waits, model.step_duration[1], empty=True)
    epsilon = number("epsilon", epsilon, min=1.0)
    epsilon_step = positive_float("epsilon_step", epsilon_step)
    max_expansions = count("max_expansions", max_expansions)
    if max_seconds is not None:
        max_seconds = positive_float("max_seconds", max_seconds, allow_zero=True)
    dt = positive_float("sample_interval", sample_interval, max=model.step_duration[0])
    clearance = positive_float("clearance", clearance, allow_zero=True)
    view = positive_float("view_radius", view_radius, allow_inf=True)
    graph = _Steps(model, target, goal_radius, actions, hyperbola, others, dt, clearance, view,
                   pauses)
    return graph, (curve, epsilon, epsilon_step, max_expansions, max_seconds)


def _search(graph: _Steps, root: _State, curve: str, epsilon: float, epsilon_step: float,
            max_expansions: int, max_seconds: float | None, t0: float
            ) -> tuple[FootstepPlan, np.ndarray]:
    """The anytime rounds from ``root`` (see the module) and the plan's energy per step;
    ``t0``: when planning began."""
    model = graph.model
    stats = SearchStats()
    best: tuple[float, float, _State] | None = None      # cost, epsilon, last state
    nearest = root
    eps = epsilon
    while True:
        search = AStarSearch(graph, root, graph.is_goal, heuristic=graph.heuristic,
                             weight=eps, record=True)
        result = search.run(max_expansions=max_expansions - stats.expanded)
        stats.expanded += result.stats.expanded
        stats.generated += result.stats.generated
        stats.max_open = max(stats.max_open, result.stats.max_open)
        if result.found and (best is None or result.cost < best[0]):
            best = (result.cost, eps, result.path[-1])
        for s in result.expanded_nodes:
            if s.dist < nearest.dist and graph.may_stop(s):
                nearest = s
        if eps <= 1.0 or stats.expanded >= max_expansions or (
                max_seconds is not None and time.perf_counter() - t0 >= max_seconds):
            break
        eps = max(1.0, eps - epsilon_step)
    if best is not None:
        last, status, bound = best[2], Status.FOUND, best[1]
    else:
        last, bound = nearest, math.inf
        status = Status.PARTIAL if nearest is not root or graph.may_stop(root) \
            and root.children else Status.FAILED
    stats.elapsed = time.perf_counter() - t0
    return _record(last, model, graph, status, bound, curve, stats)


def _record(last: _State, model: LocomotionModel, graph: _Steps, status: Status,
            epsilon: float, curve: str, stats: SearchStats) -> tuple[FootstepPlan, np.ndarray]:
    chain = []
    s: _State | None = last
    while s is not None:
        chain.append(s)
        s = s.parent
    chain.reverse()
    steps = chain[1:]
    bounds = np.array([(s.lo, s.hi) for s in chain])
    costs = np.array([next(c for child, c in a.children or () if child is b)
                      for a, b in zip(chain, steps)], dtype=np.float64)
    plan = FootstepPlan(
        times=np.array([s.time for s in chain]),
        com=np.array([s.com for s in chain]),
        com_velocity=np.array([s.vel for s in chain]),
        feet=np.array([s.foot for s in chain]),
        sides=np.array([s.side for s in chain], dtype=np.int8),
        orientation_bounds=bounds, orientations=bounds.mean(axis=1),
        curves=np.array([(*s.curve.origin, s.curve.phi, s.curve.t0) if s.curve is not None
                         else (*s.com, s.heading, 0.0) for s in steps]).reshape(-1, 4),
        apex_speed=np.array([s.curve.vx if s.curve is not None else 0.0 for s in steps]),
        cost=float(sum(costs.tolist())), status=status, epsilon=epsilon, curve=curve,
        model=model, stats=stats,
        standing=np.array([s.curve is None for s in steps], dtype=bool))
    return plan, costs


def clashes(a: FootstepPlan, b: FootstepPlan, *, sample_interval: float = 0.05,
            clearance: float = 0.0) -> bool:
    """Whether two characters' five circles come closer than ``clearance`` at a time
    ``0, dt, 2 dt ..`` (``dt = sample_interval``, s, > 0) until both stand; ``clearance``
    in metres (>= 0).  The 50 numbers of each sample's circle gaps count against
    :data:`~wayfinding._validate.MAX_CELLS`."""
    for name, plan in (("a", a), ("b", b)):
        if not isinstance(plan, FootstepPlan):
            raise InvalidQueryError(f"{name} must be a FootstepPlan, got {type(plan).__name__}")
    dt = positive_float("sample_interval", sample_interval)
    clearance = positive_float("clearance", clearance, allow_zero=True)
    end = max(a.times[-1], b.times[-1])
    allocation("clash samples", 50.0 * (end / dt + 1.0))
    t = np.arange(0.0, end + dt, dt)
    gap = a.body(t)[:, :, None] - b.body(t)[:, None]
    reach = a.model.radii[:, None] + b.model.radii[None] + clearance
    return bool((np.einsum("...i,...i->...", gap, gap) < reach ** 2).any())


def plan_crowd(starts: Any, goals: Any, *, velocities: Any = None,
               models: Any = None, repair: bool = True, **options: Any) -> list[FootstepPlan]:
    """Footstep plans for a crowd, in priority order: character ``i`` plans against the
    plans of characters ``0 .. i-1`` (which then stand at their ends).

    ``repair``: when character ``i`` does not reach its goal, it plans again against the
    characters standing still alone (those without a plan), the earlier characters whose
    plans its new one meets plan again against everyone else, and the exchange is kept when
    more characters reach their goals.  A character left without a plan (``FAILED``) stands
    at its start: the earlier plans that meet it are planned again around it.

    ``starts``, ``goals``: ``(n, 2)`` COM positions.  ``velocities``: ``(n, 2)`` start
    velocities (None: each character's preferred speed towards its goal).  ``models``: one
    :class:`~wayfinding.planning.footstep_model.LocomotionModel` for all, a sequence of
    ``n``, or None (the defaults).  Other options as :func:`plan_footsteps`.
    """
    p, g, v, ms = _crowd(starts, goals, velocities, models, options)
    repair = flag("repair", repair)
    dt = options.get("sample_interval", 0.05)
    gap = options.get("clearance", 0.1)

    def plan(i: int, others: list[FootstepPlan]) -> FootstepPlan:
        return plan_footsteps(p[i], g[i], velocity=v[i], model=ms[i], others=others,
                              **options)

    def replan(plans: list[FootstepPlan], mine: FootstepPlan) -> list[FootstepPlan]:
        """``plans`` with those that meet ``mine`` planned again against all the others."""
        out = list(plans) + [mine]
        for j in range(len(plans)):
            if clashes(out[j], mine, sample_interval=dt, clearance=gap):
                out[j] = plan(j, out[:j] + out[j + 1:])
        return out[:-1]

    plans: list[FootstepPlan] = []
    for i in range(len(p)):
        mine = plan(i, list(plans))
        if repair and not mine.found:
            ahead = plan(i, [o for o in plans if o.status is Status.FAILED])
            if ahead.found:
                moved = replan(plans, ahead)
                if sum(o.found for o in moved) + 1 > sum(o.found for o in plans) + mine.found:
                    plans, mine = moved, ahead
            if mine.status is Status.FAILED:
                plans = replan(plans, mine)
        plans.append(mine)
    return plans


def run_footstep_crowd(starts: Any, goals: Any, *, velocities: Any = None, models: Any = None,
                       interval: float = 0.5, duration: float = 30.0,
                       give_way: bool = True, **options: Any) -> list[FootstepPlan]:
    """Footstep plans for a crowd planned on a rolling horizon: first in priority order as
    :func:`plan_crowd` without its repair, then every ``interval`` seconds each character
    that has not reached its goal plans again, in order, against the others' current plans,
    keeping its steps up to the one after its step under way at that time (the foot
    swinging meanwhile lands where that one begins; a wait under way: up to its end) and
    planning from there, or from standing where its plan stopped; so does a character
    whose plan meets one left without a plan (``FAILED``: standing at its start).  What a
    character has done is never changed: a plan that ends with a walking step under way is
    kept until the next replanning time, as is one for which no first step is found.  With
    a short horizon (``max_expansions``) no early plan reaches far into the others' way,
    and those boxed in try again once the others have moved.

    A character still standing from then on short of its goal (``give_way``) plans once
    against those standing alone; when that plan reaches its goal, the others whose plans
    it meets plan again around it (in order, each against all the current plans), and the
    exchange is kept when none is left without a tail and none meets it any more.  This
    breaks the deadlock of a character whose start is next to another's goal: the other
    stops in front of it, which boxes it in.

    ``interval`` (s, > 0): the replanning period.  ``duration`` (s, >= 0): the last
    replanning time.  ``give_way``: whether the others give way to a character standing
    (once per character).  Other options as :func:`plan_crowd`.  Each record holds the steps
    walked and planned: ``cost`` their energy (a stand until a replanning time costs as
    a wait), ``status`` and ``epsilon`` those of the last plan, ``stats`` summed over the
    character's plans.

    >>> plan, = run_footstep_crowd([(0.0, 0.0)], [(3.0, 0.0)], max_expansions=40)
    >>> plan.status.name, bool(plan.stats.expanded > 40)
    ('FOUND', True)
    """
    p, g, v, ms = _crowd(starts, goals, velocities, models, options)
    interval = positive_float("interval", interval)
    duration = positive_float("duration", duration, allow_zero=True)
    time_steps(duration, interval, "replanning")
    give_way = flag("give_way", give_way)
    plans: list[FootstepPlan] = []
    costs: list[np.ndarray] = []
    for i in range(len(p)):
        t0 = time.perf_counter()
        graph, search = _setup(g[i], ms[i], plans, **options)
        plan, cost = _search(graph, _start(graph, p[i], v[i], -1, 0.0), *search, t0)
        plans.append(plan)
        costs.append(cost)
    dt = options.get("sample_interval", 0.05)
    gap = options.get("clearance", 0.1)

    def replan(i: int, t: float, others: list[FootstepPlan]
               ) -> tuple[FootstepPlan, np.ndarray] | None:
        """Character ``i``'s plan made again at ``t`` against ``others`` (None: kept)."""
        t0 = time.perf_counter()
        graph, search = _setup(g[i], ms[i], others, **options)
        resumed = _resume(plans[i], costs[i], t, graph)
        if resumed is None:
            return None
        head, head_cost, root = resumed
        tail, tail_cost = _search(graph, root, *search, t0)
        if tail.status is Status.FAILED:
            return None
        plan, cost = _join(head, tail, plans[i].stats), np.concatenate([head_cost, tail_cost])
        plan.cost = float(sum(cost.tolist()))
        return plan, cost

    def way(i: int, t: float) -> None:
        """The others give way to character ``i`` at ``t`` (see above)."""
        ahead = replan(i, t, [o for j, o in enumerate(plans) if j != i and _stands(o, t)])
        if ahead is None or not ahead[0].found:
            return
        moved, spent = list(plans), list(costs)
        moved[i], spent[i] = ahead
        for j in range(len(p)):
            if j != i and clashes(moved[j], moved[i], sample_interval=dt, clearance=gap):
                new = replan(j, t, moved[:j] + moved[j + 1:])
                if new is None:
                    return
                moved[j], spent[j] = new
        if any(clashes(o, moved[i], sample_interval=dt, clearance=gap)
               for j, o in enumerate(moved) if j != i):
            return
        plans[:], costs[:] = moved, spent

    gave: set[int] = set()
    t = interval
    while t <= duration + 1e-9 and not all(o.found for o in plans):
        for i in range(len(p)):
            if plans[i].found and not any(
                    o.status is Status.FAILED and clashes(plans[i], o, sample_interval=dt,
                                                         clearance=gap) for o in plans):
                continue
            new = replan(i, t, plans[:i] + plans[i + 1:])
            if new is not None:
                plans[i], costs[i] = new
            if give_way and i not in gave and not plans[i].found and _stands(plans[i], t):
                gave.add(i)
                way(i, t)
        t += interval
    return plans


def _stands(plan: FootstepPlan, t: float) -> bool:
    """Whether ``plan`` takes no step ending after ``t`` (it stands, or waits, from then
    on)."""
    return not bool((~plan.standing & (plan.times[1:] > t + 1e-9)).any())


def _resume(plan: FootstepPlan, cost: np.ndarray, t: float, graph: _Steps
            ) -> tuple[FootstepPlan, np.ndarray, _State] | None:
    """The steps of ``plan`` kept when it is planned again at time ``t`` (those begun
    before ``t`` and, when the last of them walks, the next, on whose foot the foot
    swinging at ``t`` lands; or all and a stand until ``t`` when they have all ended),
    their energies and the search's root at their end; None when the plan ends with a
    walking step under way at ``t`` or has not begun by then."""
    m = plan.model
    j = int(np.searchsorted(plan.times, t - 1e-9))        # steps 1..j have begun
    if j == 0:
        return None
    if 1 <= j <= len(plan) and not plan.standing[j - 1]:
        if j == len(plan):
            return None
        j += 1
    moving = np.flatnonzero(np.hypot(*plan.com_velocity[:j + 1].T) > 0)
    vel = plan.com_velocity[moving[-1]] if len(moving) else (1.0, 0.0)
    heading = math.atan2(vel[1], vel[0])
    if j <= len(plan):
        head = _rows(plan, j + 1)
        cost = cost[:j]
    else:
        j = len(plan.times) - 1
        k = max(j - 1, 0)
        foot = plan.feet[k] if j else 2 * plan.com[j] - plan.feet[j]
        v0 = plan.com_velocity[j]
        stand = m.rate * (t - plan.times[j]) + 0.5 * m.mass * float(v0 @ v0)
        head = FootstepPlan(
            times=np.append(plan.times, t), com=np.vstack([plan.com, plan.com[j]]),
            com_velocity=np.vstack([plan.com_velocity, (0.0, 0.0)]),
            feet=np.vstack([plan.feet, foot]),
            sides=np.append(plan.sides, -plan.sides[j]).astype(np.int8),
            orientation_bounds=np.vstack([plan.orientation_bounds,
                                          plan.orientation_bounds[k]]),
            orientations=np.append(plan.orientations, plan.orientations[k]),
            curves=np.vstack([plan.curves, (*plan.com[j], heading, 0.0)]),
            apex_speed=np.append(plan.apex_speed, 0.0), cost=0.0, status=plan.status,
            curve=plan.curve, model=m, standing=np.append(plan.standing, True))
        cost = np.append(cost, stand)
        j += 1
    lo, hi = head.orientation_bounds[j]
    root = _State(tuple(head.com[j].tolist()), tuple(head.com_velocity[j].tolist()),
                  tuple(head.feet[j].tolist()), int(head.sides[j]), float(lo), float(hi),
                  float(head.times[j]), None, None, graph.goal,
                  other=tuple(head.feet[j - 1].tolist()), since=float(head.times[j - 1]),
                  swings=not head.standing[j - 1])
    root.heading = heading
    root.key = graph.key(root)
    return head, cost, root


def _rows(plan: FootstepPlan, n: int) -> FootstepPlan:
    """The first ``n`` rows of ``plan`` (its first ``n - 1`` steps)."""
    return FootstepPlan(
        times=plan.times[:n], com=plan.com[:n], com_velocity=plan.com_velocity[:n],
        feet=plan.feet[:n], sides=plan.sides[:n], orientation_bounds=plan.orientation_bounds[:n],
        orientations=plan.orientations[:n], curves=plan.curves[:n - 1],
        apex_speed=plan.apex_speed[:n - 1], cost=0.0, status=plan.status, curve=plan.curve,
        model=plan.model, standing=plan.standing[:n - 1])


def _join(head: FootstepPlan, tail: FootstepPlan, stats: SearchStats) -> FootstepPlan:
    """``head``'s steps then ``tail``'s (which starts at ``head``'s end), ``stats`` and
    ``tail``'s summed."""
    total = SearchStats(expanded=stats.expanded + tail.stats.expanded,
                        generated=stats.generated + tail.stats.generated,
                        max_open=max(stats.max_open, tail.stats.max_open),
                        elapsed=stats.elapsed + tail.stats.elapsed)
    return FootstepPlan(
        times=np.append(head.times, tail.times[1:]), com=np.vstack([head.com, tail.com[1:]]),
        com_velocity=np.vstack([head.com_velocity, tail.com_velocity[1:]]),
        feet=np.vstack([head.feet, tail.feet[1:]]),
        sides=np.append(head.sides, tail.sides[1:]).astype(np.int8),
        orientation_bounds=np.vstack([head.orientation_bounds, tail.orientation_bounds[1:]]),
        orientations=np.append(head.orientations, tail.orientations[1:]),
        curves=np.vstack([head.curves, tail.curves]),
        apex_speed=np.append(head.apex_speed, tail.apex_speed), cost=0.0,
        status=tail.status, epsilon=tail.epsilon, curve=tail.curve, model=tail.model,
        stats=total, standing=np.append(head.standing, tail.standing))


def _crowd(starts: Any, goals: Any, velocities: Any, models: Any, options: dict[str, Any]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[LocomotionModel]]:
    """A crowd's checked starts, goals, start velocities and models."""
    p, _ = finite_points("starts", starts)
    g, _ = finite_points("goals", goals)
    if len(p) != len(g):
        raise InvalidQueryError(f"starts and goals hold {len(p)} and {len(g)} points; "
                                "they must match")
    if "others" in options or "velocity" in options or "model" in options:
        raise InvalidQueryError("the crowd sets others, velocity and model itself; use "
                                "velocities= and models=")
    if models is None or isinstance(models, LocomotionModel):
        ms = [models or LocomotionModel()] * len(p)
    else:
        ms = list(models) if isinstance(models, Iterable) else []
        if len(ms) != len(p) or not all(isinstance(m, LocomotionModel) for m in ms):
            raise InvalidQueryError(f"models {brief(models)} must be one LocomotionModel, "
                                    f"None or {len(p)} LocomotionModels, one per character")
    if velocities is None:
        d = g - p
        norm = np.hypot(d[:, 0], d[:, 1])
        norm[norm == 0] = 1.0
        heading = d / norm[:, None]
        heading[np.hypot(d[:, 0], d[:, 1]) == 0] = (1.0, 0.0)
        v = heading * np.array([m.speeds[1] for m in ms])[:, None]
    else:
        v, _ = finite_points("velocities", velocities)
        if len(v) != len(p):
            raise InvalidQueryError(f"velocities holds {len(v)} for {len(p)} characters")
    return p, g, v, ms
