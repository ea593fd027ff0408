"""Offline simulation of a character controller, measured as a black box.

A character controller takes a goal speed and a goal heading each frame and moves the
character by whatever its animations do.  :class:`CharacterController` is the step interface
any controller offers (a game's own can be wrapped in it); :class:`SimulatedController` is a
deterministic one with documented acceleration and deceleration curves, a dedicated stop,
a turn rate, a delay standing for the animation blend and optional speed noise.

:func:`simulate` runs one :class:`MotionCommand` several times (one seed per sample): the
character is brought to a stable straight speed, the command switches to its goal and the
harness records the trajectory until the motion is stable again.  It only measures: nothing
measured is fed back into the commands.  A run that does not settle within its time limit
is flagged :attr:`RunFailure.UNSTABLE`, one whose controller reports NaN or infinity
:attr:`RunFailure.NON_FINITE`; failure is a normal outcome, never an exception.

>>> run = simulate(SimulatedController(), MotionCommand(start_speed=2.0, goal_speed=0.0))
>>> run.failure is None, len(run.trajectories)
(True, 3)
>>> round(float(run.trajectories[0].speed[-1]), 6), run.trajectories[0].distance > 0
(0.0, True)
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

import numpy as np

from .._validate import count, flag, number, positive_float, time_steps
from ..errors import InvalidQueryError
from ..geometry.angles import wrap_angle
from ..results import _fields_equal


class CharacterController(Protocol):
    """The step interface of a character controller, as the harness drives it.

    ``reset(seed)`` puts the character at rest at the origin facing +x (heading 0) and
    seeds whatever varies between samples; ``step(goal_speed, goal_heading, dt)`` advances
    ``dt`` seconds under the command (m/s, radians) and returns the character's
    ``(x, y, heading, speed)`` after it (metres, radians, m/s); ``recentre()`` moves the
    character back to the origin keeping its heading, speed and pending commands (the
    harness calls it when the character strays far, for floating-point precision).
    """

    def reset(self, seed: int) -> None: ...

    def step(self, goal_speed: float, goal_heading: float, dt: float
             ) -> tuple[float, float, float, float]: ...

    def recentre(self) -> None: ...


@dataclass(frozen=True, kw_only=True)
class ControllerParams:
    """The motion of a :class:`SimulatedController`; speeds in m/s, accelerations in m/s²,
    angles in radians, times in seconds.

    ``min_speed``/``max_speed`` (``0 < min_speed < max_speed``): the walk and run clips'
    range; a goal speed above 0 is clamped into it, so goal speeds outside the range are
    not met.  ``acceleration`` (> 0): speeding up.  ``deceleration`` (> 0) and
    ``deceleration_falloff`` (in [0, 1)): slowing down to a lower goal speed above 0 at
    ``deceleration * (1 - deceleration_falloff * v / max_speed)`` (the faster, the longer it
    takes to lose 1 m/s).  ``stop_deceleration`` (> 0): the stop animation, played when
    the goal speed is 0.  ``turn_rate`` (> 0, rad/s) and ``lateral_acceleration`` (> 0):
    the heading turns toward its goal at most ``min(turn_rate, lateral_acceleration / v)``.
    ``blend_delay`` (>= 0): commands act this late (the animation blend's lag).
    ``jitter`` (in [0, 1)): each step's speed (moved and reported) is the true speed times
    ``1 + jitter * u`` with ``u`` uniform in [-1, 1] from the reset's seed.
    """

    min_speed: float = 0.5
    max_speed: float = 6.0
    acceleration: float = 4.0
    deceleration: float = 6.0
    deceleration_falloff: float = 0.5
    stop_deceleration: float = 8.0
    turn_rate: float = math.pi
    lateral_acceleration: float = 8.0
    blend_delay: float = 0.1
    jitter: float = 0.0

    def __post_init__(self) -> None:
        lo = positive_float("min_speed", self.min_speed)
        number("max_speed", self.max_speed, min=lo, min_open=True)
        for name in ("acceleration", "deceleration", "stop_deceleration", "turn_rate",
                     "lateral_acceleration"):
            positive_float(name, getattr(self, name))
        number("deceleration_falloff", self.deceleration_falloff, min=0.0, max=1.0,
               max_open=True)
        positive_float("blend_delay", self.blend_delay, allow_zero=True)
        number("jitter", self.jitter, min=0.0, max=1.0, max_open=True)


class SimulatedController:
    """A deterministic character controller following :class:`ControllerParams`.

    Each step: the command given ``blend_delay`` seconds ago becomes the goal (rest until
    then); the speed moves toward the goal speed clamped into the clip range
    (or toward 0 with the stop animation when the goal speed is 0) by the curve's rate times
    ``dt``, never past it; the heading turns toward the goal heading by at most the turn
    limit times ``dt`` (the short way; a half turn goes left); the character then moves
    ``dt`` times the (jittered) speed along the new heading.  The same seed gives the same
    trajectory.
    """

    def __init__(self, *, params: ControllerParams | None = None) -> None:
        self.params = ControllerParams() if params is None else params
        self.reset(0)

    def reset(self, seed: int) -> None:
        """Put the character at rest at the origin facing +x; ``seed`` seeds the jitter."""
        self._rng = np.random.default_rng(count("seed", seed, min=0))
        self._x = self._y = self._heading = self._speed = self._time = 0.0
        self._pending: deque[tuple[float, float, float]] = deque()
        self._goal = (0.0, 0.0)

    def recentre(self) -> None:
        """Move the character back to the origin, keeping everything else."""
        self._x = self._y = 0.0

    def step(self, goal_speed: float, goal_heading: float, dt: float
             ) -> tuple[float, float, float, float]:
        """Advance ``dt`` seconds (> 0) under the command (``goal_speed`` >= 0 m/s,
        ``goal_heading`` radians): see the class."""
        if not (type(goal_speed) is float and type(goal_heading) is float
                and type(dt) is float and 0.0 <= goal_speed < math.inf
                and -math.inf < goal_heading < math.inf and 0.0 < dt < math.inf):
            goal_speed = positive_float("goal_speed", goal_speed, allow_zero=True)
            goal_heading = number("goal_heading", goal_heading)
            dt = positive_float("dt", dt)
        p = self.params
        self._time += dt
        self._pending.append((self._time, goal_speed, goal_heading))
        while self._pending and self._pending[0][0] <= self._time - p.blend_delay + 1e-12:
            _, speed, heading = self._pending.popleft()
            self._goal = (speed, heading)
        speed_goal, heading_goal = self._goal
        v = self._speed
        if speed_goal <= 0.0:
            v = max(v - p.stop_deceleration * dt, 0.0)
        else:
            target = min(max(speed_goal, p.min_speed), p.max_speed)
            if v < target:
                v = min(v + p.acceleration * dt, target)
            else:
                rate = p.deceleration * (1.0 - p.deceleration_falloff * v / p.max_speed)
                v = max(v - rate * dt, target)
        self._speed = v
        limit = p.turn_rate if v <= 0.0 else min(p.turn_rate, p.lateral_acceleration / v)
        error = wrap_angle(heading_goal - self._heading)
        self._heading = wrap_angle(self._heading + min(max(error, -limit * dt), limit * dt))
        moved = v * (1.0 + p.jitter * self._rng.uniform(-1.0, 1.0)) if p.jitter else v
        self._x += moved * dt * math.cos(self._heading)
        self._y += moved * dt * math.sin(self._heading)
        return self._x, self._y, self._heading, moved


@dataclass(frozen=True, kw_only=True)
class MotionCommand:
    """One deterministic command: hold ``start_speed`` straight (heading 0) until stable,
    then switch to ``goal_speed`` (m/s, >= 0) and turn by ``turn`` (radians, in [-pi, pi],
    positive to the left) — or, with ``circle``, turn left as fast as the controller lets
    at ``goal_speed`` (the goal heading kept a quarter turn ahead)."""

    start_speed: float
    goal_speed: float
    turn: float = 0.0
    circle: bool = False

    def __post_init__(self) -> None:
        positive_float("start_speed", self.start_speed, allow_zero=True)
        positive_float("goal_speed", self.goal_speed, allow_zero=True)
        number("turn", self.turn, min=-math.pi, max=math.pi)
        object.__setattr__(self, "circle", flag("circle", self.circle))


@dataclass(frozen=True, kw_only=True)
class SimulationSettings:
    """How :func:`simulate` runs and judges a command.

    ``dt`` (> 0, s): the frame time.  ``samples`` (>= 1): runs per command, seeded 0, 1...
    ``window`` (> 0, s): motion is stable when, over the last ``window`` seconds, the
    speed's spread (max - min) is at most ``speed_tolerance`` (m/s, plus ``2 * jitter``
    times the speed for a noisy controller) and the rotational speed's spread at most
    ``turn_tolerance`` (rad/s) — and, for a command that is not a circle, the rotational
    speed itself within ``turn_tolerance`` of 0.  ``max_time`` (> window, s): each phase's
    limit.  ``recentre_distance`` (> 0, m): how far the character may stray from the
    origin before it is moved back.  ``jitter`` (in [0, 1)): the controller's expected
    relative speed noise.
    """

    dt: float = 1.0 / 30.0
    samples: int = 3
    window: float = 0.5
    speed_tolerance: float = 0.01
    turn_tolerance: float = 0.01
    max_time: float = 30.0
    recentre_distance: float = 1000.0
    jitter: float = 0.0

    def __post_init__(self) -> None:
        positive_float("dt", self.dt)
        count("samples", self.samples)
        positive_float("window", self.window)
        positive_float("speed_tolerance", self.speed_tolerance)
        positive_float("turn_tolerance", self.turn_tolerance)
        number("max_time", self.max_time, min=self.window, min_open=True)
        time_steps(self.max_time, self.dt, "a run")
        time_steps(self.window, self.dt, "a window")
        positive_float("recentre_distance", self.recentre_distance)
        number("jitter", self.jitter, min=0.0, max=1.0, max_open=True)


@dataclass(frozen=True, eq=False)
class MotionTrace:
    """One sample's measured motion after the switch, one row per frame (the switch
    itself first).

    ``time``: ``(n,)`` float64 seconds since the switch; ``position``: ``(n, 2)`` float64
    metres relative to the character's place at the switch; ``heading``: ``(n,)`` radians,
    unwrapped; ``turn_rate``: ``(n,)`` rad/s (0 at the switch); ``speed``: ``(n,)`` m/s.
    """

    time: np.ndarray
    position: np.ndarray
    heading: np.ndarray
    turn_rate: np.ndarray
    speed: np.ndarray

    __eq__ = _fields_equal

    @property
    def distance(self) -> float:
        """Metres travelled along the path since the switch."""
        return float(np.hypot(*np.diff(self.position, axis=0).T).sum())

    def stable_speed(self, window: float) -> float:
        """The mean speed over the last ``window`` seconds."""
        return float(self.speed[self.time > self.time[-1] - window + 1e-9].mean())

    def stable_turn_rate(self, window: float) -> float:
        """The mean rotational speed over the last ``window`` seconds."""
        return float(self.turn_rate[self.time > self.time[-1] - window + 1e-9].mean())


class RunFailure(str, Enum):
    """Why a command's run failed; each member equals its lower-case name as a string.

    ``UNSTABLE``: the motion did not settle within the phase's time limit; ``NON_FINITE``:
    the controller reported NaN or infinity.

    >>> RunFailure.UNSTABLE == "unstable", str(RunFailure.NON_FINITE)
    (True, 'non_finite')
    """

    UNSTABLE = "unstable"
    NON_FINITE = "non_finite"

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"RunFailure.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@dataclass(frozen=True)
class CommandRun:
    """All samples of one command: ``trajectories`` (one per sample that settled, in seed
    order) and ``failure``: ``None``, or the :class:`RunFailure` of ``seed``, the first
    sample that failed (then no trajectories)."""

    command: MotionCommand
    trajectories: tuple[MotionTrace, ...]
    failure: RunFailure | None = field(default=None, kw_only=True)
    seed: int | None = field(default=None, kw_only=True)

    def spread(self, window: float) -> float:
        """The standard deviation of the stable speed across samples (m/s)."""
        return float(np.std([t.stable_speed(window) for t in self.trajectories]))


class _Unsettled(Exception):
    def __init__(self, reason: RunFailure) -> None:
        self.reason = reason


def _phase(controller: CharacterController, speed: float, heading: float | None,
           settings: SimulationSettings, state: list[float], record: bool
           ) -> list[tuple[float, ...]]:
    """Run one command until stable.  ``state`` is ``[ox, oy, heading, x, y, speed]``: the
    offset the recentring removed, the last heading (unwrapped), the last position (with the
    offset added back) and speed, updated in place.  Returns the frames ``(t, x, y, heading,
    turn_rate, speed)`` when ``record``."""
    dt, window = settings.dt, settings.window
    keep = max(int(round(window / dt)), 2)
    speeds: deque[float] = deque(maxlen=keep)
    rates: deque[float] = deque(maxlen=keep)
    frames: list[tuple[float, ...]] = []
    for k in range(1, int(math.ceil(settings.max_time / dt)) + 1):
        goal = state[2] + math.pi / 2 if heading is None else heading
        x, y, h, v = controller.step(speed, goal, dt)
        if not all(map(math.isfinite, (x, y, h, v))):
            raise _Unsettled(RunFailure.NON_FINITE)
        unwrapped = state[2] + wrap_angle(h - state[2])
        rate = (unwrapped - state[2]) / dt
        state[2:] = [unwrapped, x + state[0], y + state[1], v]
        if record:
            frames.append((k * dt, state[3], state[4], unwrapped, rate, v))
        if math.hypot(x, y) > settings.recentre_distance:
            controller.recentre()
            state[0] += x
            state[1] += y
        speeds.append(v)
        rates.append(rate)
        if len(speeds) == keep:
            tol = settings.speed_tolerance + 2 * settings.jitter * max(speeds)
            if max(speeds) - min(speeds) <= tol \
                    and max(rates) - min(rates) <= settings.turn_tolerance \
                    and (heading is None or abs(rate) <= settings.turn_tolerance):
                return frames
    raise _Unsettled(RunFailure.UNSTABLE)


def _sample(controller: CharacterController, command: MotionCommand, seed: int,
            settings: SimulationSettings) -> MotionTrace:
    controller.reset(seed)
    state = [0.0] * 6
    _phase(controller, command.start_speed, 0.0, settings, state, False)
    first = (0.0, state[3], state[4], state[2], 0.0, state[5])
    heading = None if command.circle else state[2] + command.turn
    frames = _phase(controller, command.goal_speed, heading, settings, state, True)
    arr = np.array([first, *frames], dtype=np.float64)
    return MotionTrace(arr[:, 0], arr[:, 1:3] - arr[0, 1:3], arr[:, 3], arr[:, 4], arr[:, 5])


def simulate(controller: CharacterController, command: MotionCommand, *,
             settings: SimulationSettings | None = None) -> CommandRun:
    """Run ``command`` ``settings.samples`` times on ``controller`` (seeds 0, 1...) and
    return the measured trajectories, or the failure of the first sample that did not
    settle: see the module."""
    if not isinstance(command, MotionCommand):
        raise InvalidQueryError(f"command {command!r:.80} must be a MotionCommand")
    settings = SimulationSettings() if settings is None else settings
    if not isinstance(settings, SimulationSettings):
        raise InvalidQueryError(f"settings {settings!r:.80} must be a SimulationSettings")
    out = []
    for seed in range(settings.samples):
        try:
            out.append(_sample(controller, command, seed, settings))
        except _Unsettled as exc:
            return CommandRun(command, (), failure=exc.reason, seed=seed)
    return CommandRun(command, tuple(out))

