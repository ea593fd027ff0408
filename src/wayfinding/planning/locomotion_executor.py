"""The executor of locomotion planning: plays the action-stacks a
:class:`~wayfinding.planning.locomotion_plan.LocomotionPlanner` makes, segment by segment
along a :class:`~wayfinding.planning.locomotion.LocomotionPath`, takes new move requests
without stopping and starting again where it need not, and tells the AI how it stands.

A request is taken at the next moment the character may be interrupted: at once when it is
idle or in a transfer or turning clip, else when the playing start, stop or stance change
ends (those are never cut short).  **Request coalescing**: when the new path agrees with
the one being followed over what the current action-stack was planned from (the points of
the planner's look-ahead from the segment's end, their fail-safe stops, and the facing
wanted when the goal lies among them), the current action-stack is kept and only the rest
of the path is replaced; otherwise the stack is dropped and the next one is planned from
where the character stands.

:attr:`LocomotionExecutor.status` is a :class:`MoveStatus`: ``IDLE``, ``WAITING`` (a
request taken, not yet moving), ``MOVING`` (in a clip that may be interrupted), ``BUSY``
(in a clip that may not), ``ARRIVED`` (at the goal of the last request) or ``FAILED`` (no
plan: the character stays where it is, in its state).

Planning is what costs: a :class:`LocomotionScheduler` lets only a budget of characters plan
per update, the moving ones that need their next action-stack first, then the standing ones,
then those with a new request to take; the rest wait.

**Pose matching**: a transfer should end on a whole cycle of its loop, so that the stop
after it starts on the foot it was authored for.  The loop's root moves as planned; its
animation plays at :attr:`LocomotionExecutor.rate`, steered each update toward the rate that
plays the remaining whole cycles in the remaining time.  ``rate_change`` is the change a
transfer needs (whole cycles over the cycles at the authored rate, less 1); beyond
``pose_tolerance`` the pose is ignored (the rate eases back to 1).  The rate moves by at
most ``max_rate_change`` per second and is kept across clip switches (the next clip plays
at it, as it eases back), so no clip visibly jumps in speed; ``phase_error`` is the part of a
cycle the last matched transfer ended off its whole cycle.

>>> from wayfinding.planning.clips import default_clips
>>> from wayfinding.planning.locomotion import process_path
>>> from wayfinding.planning.locomotion_plan import LocomotionPlanner
>>> walker = LocomotionExecutor(LocomotionPlanner(default_clips()), "standing", (0, 0, 0))
>>> walker.request(process_path([(0, 0), (20, 0)])); walker.status
MoveStatus.WAITING
>>> walker.update(0.1), walker.action.clip.name
(MoveStatus.BUSY, 'stand_to_walk')
>>> while walker.update(0.1) is not MoveStatus.ARRIVED: pass
>>> walker.pose.round(6).tolist(), walker.state
([20.0, 0.0, 0.0], 'standing')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum

import numpy as np
from numpy.typing import ArrayLike

from .._validate import count, finite_point, flag, number, positive_float
from ..errors import InvalidQueryError
from .locomotion import LocomotionPath
from .locomotion_plan import Action, ActionStack, LocomotionPlanner, Role


class MoveStatus(str, Enum):
    """How a :class:`LocomotionExecutor` stands (see the module text); each member equals
    its lower-case name as a string."""

    IDLE = "idle"
    WAITING = "waiting"
    MOVING = "moving"
    BUSY = "busy"
    ARRIVED = "arrived"
    FAILED = "failed"

    def __repr__(self) -> str:
        return f"MoveStatus.{self.name}"


class LocomotionExecutor:
    """Plays a character's action-stacks; see the module text.

    ``planner``: the :class:`~wayfinding.planning.locomotion_plan.LocomotionPlanner`;
    ``state``: the character's animation state; ``pose``: its root pose ``(x, y,
    heading)``; ``pose_tolerance``: the largest playback-rate change (a fraction, >= 0) used
    to end a transfer on a whole loop cycle; ``max_rate_change``: how fast the playback rate
    may change (per second, > 0).  Counters for the AI and for debugging: ``plans``
    (action-stacks planned), ``coalesced`` (requests that kept the current stack),
    ``replaced`` (requests that dropped it).
    """

    def __init__(self, planner: LocomotionPlanner, state: str, pose: ArrayLike, *,
                 pose_tolerance: float = 0.1, max_rate_change: float = 0.5) -> None:
        if not isinstance(planner, LocomotionPlanner):
            raise InvalidQueryError(f"planner must be a LocomotionPlanner, got "
                                    f"{type(planner).__name__}")
        planner.check_state(state)
        self.planner = planner
        self.state = state
        self._pose = finite_point("pose", pose, 3).copy()
        self._path: LocomotionPath | None = None
        self._facing: float | None = None
        self._index = 0                  # the path point the current stack leads to
        self._pending: tuple[LocomotionPath, float | None] | None = None
        self._actions: list[Action] = []
        self._clock = 0.0                # seconds into the current action
        self.status = MoveStatus.IDLE
        self.plans = self.coalesced = self.replaced = 0
        self.stack: ActionStack | None = None
        self.pose_tolerance = positive_float("pose_tolerance", pose_tolerance, allow_zero=True)
        self.max_rate_change = positive_float("max_rate_change", max_rate_change)
        self.rate = 1.0
        self.rate_change: float | None = None
        self.phase_error: float | None = None
        self._started: Action | None = None
        self._phase = 0.0                # loop cycles played in the current transfer
        self._whole: int | None = None   # the whole cycles it is to end on, None: any

    def __repr__(self) -> str:
        return f"LocomotionExecutor({self.state!r}, {self.status})"

    @property
    def pose(self) -> np.ndarray:
        """The root pose ``(x, y, heading)`` now: float64 ``(3,)``.  Along a playing clip
        that may be interrupted it moves by the part of the clip played, straight from the
        clip's start to its end (a transfer keeps its heading, any other clip turns
        evenly); in any other clip it is the pose at the clip's start."""
        a = self.action
        if a is None or not a.interruptible or a.duration == 0:
            return self._pose.copy()
        f = min(self._clock / a.duration, 1.0)
        h = a.end[2] if a.role is Role.TRANSFER else a.start[2] + f * (a.end[2] - a.start[2])
        return np.array([a.start[0] + f * (a.end[0] - a.start[0]),
                         a.start[1] + f * (a.end[1] - a.start[1]), h])

    @property
    def action(self) -> Action | None:
        """The action playing, or None."""
        return self._actions[0] if self._actions else None

    def request(self, path: LocomotionPath, *, facing: float | None = None) -> None:
        """Ask the character to follow ``path`` (from where it stands) to its goal, facing
        ``facing`` (radians, or any) there; taken at the next :meth:`update` where the
        character may be interrupted.  A later request replaces one not yet taken."""
        if not isinstance(path, LocomotionPath):
            raise InvalidQueryError(f"path must be a LocomotionPath, got {type(path).__name__}")
        if len(path.points) < 2:
            raise InvalidQueryError("path holds no segment to follow (it was not found)")
        f = None if facing is None else number("facing", facing)
        self._pending = (path, f)
        if self.status in (MoveStatus.IDLE, MoveStatus.ARRIVED, MoveStatus.FAILED):
            self.status = MoveStatus.WAITING

    @property
    def need(self) -> int:
        """The planning work this character waits for, by priority: 3 an action-stack while
        in a transfer state (moving), 2 an action-stack in a stance, 1 a new request to
        take, 0 none."""
        a = self.action
        path = self._path
        if a is None and path is not None and self._index < len(path.points) - 1:
            return 3 if self.planner.is_transfer(self.state) else 2
        return int(self._pending is not None and (a is None or a.interruptible))

    def update(self, dt: float, *, plan: bool = True) -> MoveStatus:
        """Advance ``dt`` seconds (>= 0): take a pending request where allowed, play the
        actions, plan the next segment when a stack ends; returns :attr:`status`.
        ``plan=False`` defers the planning work (taking a request, planning a stack): the
        character plays what it has, then waits (``WAITING``)."""
        dt = positive_float("dt", dt, allow_zero=True)
        plan = flag("plan", plan)
        adjusted = False
        while True:
            a = self.action
            if self._pending is not None and (a is None or a.interruptible) and plan:
                self._take()
                a = self.action
            if a is None:
                if not plan and self.need:
                    self.status = MoveStatus.WAITING
                    return self.status
                if not self._next_stack():
                    return self.status
                continue
            if a is not self._started:
                self._begin(a)
            if not adjusted:
                self._adjust_rate(a, dt)
                adjusted = True
            transfer = a.role is Role.TRANSFER
            speed = 1.0 if transfer else self.rate       # action seconds per second
            left = (a.duration - self._clock) / speed
            if dt < left:
                self._clock += dt * speed
                self._phase += dt * self.rate / a.clip.duration
                self.status = MoveStatus.MOVING if a.interruptible else MoveStatus.BUSY
                return self.status
            dt -= left
            self._phase += left * self.rate / a.clip.duration
            if transfer and self._whole is not None:
                self.phase_error = abs(self._phase - self._whole)
            self._end_action()

    # ------------------------------------------------------------------ internals
    def _begin(self, a: Action) -> None:
        """Start playing ``a``: for a transfer, the rate change that ends it on a whole
        loop cycle, and whether that is within :attr:`pose_tolerance`."""
        self._started, self._phase, self._whole = a, 0.0, None
        if a.role is Role.TRANSFER and a.loops > 0:
            whole = max(1, round(a.loops))
            self.rate_change = whole / a.loops - 1.0
            self.phase_error = None
            if abs(self.rate_change) <= self.pose_tolerance:
                self._whole = whole

    def _adjust_rate(self, a: Action, dt: float) -> None:
        """Move the playback rate toward what ``a`` wants, by at most
        :attr:`max_rate_change` per second: the rate that plays the transfer's remaining
        whole cycles in its remaining time (kept within 0.5-2), else 1."""
        want = 1.0
        left = a.duration - self._clock
        if self._whole is not None and left > 0:
            want = min(2.0, max(0.5, (self._whole - self._phase) * a.clip.duration / left))
        step = self.max_rate_change * dt
        self.rate += max(-step, min(step, want - self.rate))

    def _end_action(self) -> None:
        a = self._actions.pop(0)
        self._pose = np.array(a.end)
        self.state = a.clip.end_state
        self._clock = 0.0

    def _finish_early(self) -> None:
        """End the playing interruptible clip where it has got to (see :attr:`pose`)."""
        self._pose = self.pose
        a = self._actions[0]
        self.state = a.clip.end_state
        self._actions = []
        self._clock = 0.0

    def _take(self) -> None:
        """Take the pending request, coalescing it with the current one where it may."""
        assert self._pending is not None
        path, facing = self._pending
        self._pending = None
        if self._path is not None and self._actions and self._same_ahead(path, facing):
            self._path, self._facing, self._index = path, facing, 1
            self.coalesced += 1
            return
        if self._actions:
            self.replaced += 1
            self._finish_early()
        self._path, self._facing, self._index = path, facing, 0

    def _same_ahead(self, path: LocomotionPath, facing: float | None) -> bool:
        """Whether ``path`` agrees with the followed path over the current stack's
        look-ahead."""
        old = self._path
        assert old is not None
        n = self.planner.look_ahead
        tol = self.planner.position_tolerance
        a = old.points[self._index:self._index + n]
        b = path.points[1:1 + n]
        if len(a) != len(b) or not np.all(np.hypot(*(a - b).T) <= tol):
            return False
        if not np.array_equal(old.stops[self._index:self._index + n], path.stops[1:1 + n]):
            return False
        goal_seen = self._index + n >= len(old.points)
        return not goal_seen or facing == self._facing

    def _next_stack(self) -> bool:
        """Plan the next segment (True) or settle the status when there is none."""
        path = self._path
        if path is None:
            if self.status is not MoveStatus.FAILED:
                self.status = MoveStatus.IDLE if self.status is not MoveStatus.ARRIVED \
                    else MoveStatus.ARRIVED
            return False
        if self._index >= len(path.points) - 1:
            self._path = None
            self.status = MoveStatus.ARRIVED
            return False
        rest = LocomotionPath(np.vstack([self._pose[:2], path.points[self._index + 1:]]),
                              np.concatenate([[False], path.stops[self._index + 1:]]),
                              path.corridor, path.status)
        if math.hypot(*(rest.points[1] - rest.points[0])) <= self.planner.position_tolerance \
                and len(rest.points) > 2:
            self._index += 1                   # already at this point
            return True
        stack = self.planner.plan(rest, self.state, self._pose, facing=self._facing)
        self.plans += 1
        self.stack = stack
        if not stack.found:
            self._path = None
            self.status = MoveStatus.FAILED
            return False
        self._actions = list(stack.actions)
        self._index += 1
        if not self._actions:                  # on the mark already
            return True
        self._clock = 0.0
        return True


class LocomotionScheduler:
    """Updates many :class:`LocomotionExecutor` objects under a planning budget: at most
    ``budget`` (>= 1) of them may plan in one :meth:`update` (each listed once), served by their
    :attr:`~LocomotionExecutor.need` (an action-stack for a moving character first, then
    for a standing one, then a new request), then by how many updates they have waited,
    then by their order.  The others play what they have and wait; a moving character
    that runs out of actions stops where its stack ended.

    >>> from wayfinding.planning.clips import default_clips
    >>> from wayfinding.planning.locomotion import process_path
    >>> from wayfinding.planning.locomotion_plan import LocomotionPlanner
    >>> planner = LocomotionPlanner(default_clips())
    >>> crowd = [LocomotionExecutor(planner, "standing", (0, y, 0)) for y in (0, 5)]
    >>> for c, y in zip(crowd, (0, 5)):
    ...     c.request(process_path([(0, y), (20, y)]))
    >>> scheduler = LocomotionScheduler(crowd, budget=1)
    >>> scheduler.update(0.1), scheduler.served
    ([MoveStatus.BUSY, MoveStatus.WAITING], [0])
    """

    def __init__(self, executors: Sequence[LocomotionExecutor], *, budget: int = 1) -> None:
        self.executors = list(executors)
        if not all(isinstance(e, LocomotionExecutor) for e in self.executors):
            raise InvalidQueryError("executors must be LocomotionExecutor objects")
        seen: dict[int, int] = {}
        for i, e in enumerate(self.executors):
            if id(e) in seen:
                raise InvalidQueryError(f"executors {seen[id(e)]} and {i} are the same "
                                        f"executor; each character may be listed once")
            seen[id(e)] = i
        self.budget = count("budget", budget)
        self.waited = [0] * len(self.executors)
        self.served: list[int] = []

    def update(self, dt: float) -> list[MoveStatus]:
        """Update every executor by ``dt`` seconds, the :attr:`budget` neediest planning
        (their indices, served first to last, in :attr:`served`); their statuses."""
        needs = [e.need for e in self.executors]
        order = sorted((i for i, n in enumerate(needs) if n),
                       key=lambda i: (-needs[i], -self.waited[i], i))
        self.served = order[:self.budget]
        granted = set(self.served)
        out = []
        for i, e in enumerate(self.executors):
            out.append(e.update(dt, plan=i in granted))
            self.waited[i] = 0 if i in granted or not needs[i] else self.waited[i] + 1
        return out
