"""The action-stack planner of locomotion planning: which clips of a
:class:`~wayfinding.planning.clips.ClipCatalogue` carry a character along the next segment of
a :class:`~wayfinding.planning.locomotion.LocomotionPath`, and in what end state.

The catalogue's states fall in two kinds.  A **transfer** state has a straight looped clip
(start and end state the same, moving forward without turning, with a root speed above zero
at both ends; the first such clip in catalogue order is its loop): walking, running.  Every
other state is a **stance** (standing, crouching).  The clips then play these roles:

* **pre-transfer**: from a stance into a transfer state (a start, possibly turning: the 8
  directional stand-to-run starts);
* **transfer**: the loop, played for any distance (its speed adjusted);
* **post-transfer**: from a transfer state into a stance (a stop, possibly turning);
* **transfer turns**: clips of a transfer state to itself that turn (turning while running);
* **direct**: any clip from one state to the wanted end state that lands on the mark alone
  (a step clip for a short move).

**Planning one segment** (:meth:`LocomotionPlanner.plan_segment`) to a target point, either
stopping there in a stance (with a facing, or any) or passing through in a transfer state,
takes the quickest of: a direct clip that hits the mark; or a post-transfer chosen first,
then the transfer, then the pre-transfer (the action-stack is built backward from the wanted
end state: first chosen, last executed), where the transfer's length is what the segment
leaves between the two clips — a pre- and post-transfer that need more room than the segment
has do not fit.  A non-transfer clip may be turned by at most ``max_twist`` over its playing
(the pre-transfer's direction adjustment, the post-transfer's facing adjustment); the
transfer's heading is solved so that the post-transfer ends exactly on the target.  These
two shapes are all a segment weighs: several stance clips in a row (two steps) are not
tried before the fail-safe, so a plan may be slower than the quickest sequence of clips.

**Missing clips** are decomposed: when neither way exists from the current state, the
planner plays a clip that stays in place into another stance (crouch to stand) or turns
on the spot, and plans again from there (at most ``max_prefix`` such clips).  Still nothing
gives the **fail-safe**: turn toward the target on the spot and walk there by step clips
(stance clips to the same stance that move forward, stretched by at most ``max_stretch``):
repeats of one step clip, the quickest that lands on the mark; it keeps the stance, so it
fails when another ``end_state`` is wanted.

**Look-ahead** (:meth:`LocomotionPlanner.plan`): the end state of the path's first segment
comes from the next ones (``look_ahead`` segments in all): the character passes through the
segment's end moving when the next segments can be planned from there moving, and stops
there otherwise (and at the goal, and at the path's fail-safe stops).

**Hitting the mark** is the acceptance measure: :meth:`ActionStack.end_pose` replays the
actions clip by clip, and :func:`hits_mark` checks the pose against the target within the
position and facing tolerances.

>>> import math
>>> from wayfinding.planning.clips import default_clips
>>> planner = LocomotionPlanner(default_clips())
>>> stack = planner.plan_segment("standing", (0, 0, 0), (20, 0), facing=math.pi / 2)
>>> [a.clip.name for a in stack.actions]
['stand_to_walk', 'walk_to_run', 'run', 'run_to_walk', 'walk_to_stand', 'turn_left_90']
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import count, finite_point, flag, number, positive_float
from ..errors import InvalidQueryError, brief
from ..geometry.angles import wrap_angle
from ..results import Status
from .clips import Clip, ClipCatalogue, local_to_world
from .locomotion import LocomotionPath


class Role(str, Enum):
    """The role of an :class:`Action` in its stack (see the module text); each member
    equals its lower-case name as a string."""

    DIRECT = "direct"
    PRE_TRANSFER = "pre_transfer"
    TRANSFER = "transfer"
    POST_TRANSFER = "post_transfer"
    TRANSFER_TURN = "transfer_turn"
    STANCE = "stance"
    TURN = "turn"
    STEP = "step"

    def __repr__(self) -> str:
        return f"Role.{self.name}"


#: Every :class:`Role`, in declaration order.
ROLES = tuple(Role)
#: The most sequences of turns on the spot one facing adjustment expands.
TURN_EXPANSIONS = 4096

_UNINTERRUPTIBLE = frozenset((Role.PRE_TRANSFER, Role.POST_TRANSFER, Role.DIRECT, Role.STANCE))

Pose = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Action:
    """One clip of a plan.

    ``clip``: the :class:`~wayfinding.planning.clips.Clip`; ``role``: its :class:`Role`;
    ``start``/``end``: the root poses ``(x, y, heading)`` before and after it; ``twist``:
    radians the clip is turned by over its playing (its start heading is ``start``'s plus
    ``twist``); ``loops``: how many times the clip plays (a transfer: the loop lengths it
    covers, any fraction; every other clip: 1); ``stretch``: the scale of the clip's motion
    (1: as authored; a step may be stretched, a transfer never is); ``duration``: seconds.
    Pre- and post-transfers, direct clips and stance changes are not interruptible.
    """

    clip: Clip
    role: Role
    start: Pose
    end: Pose
    twist: float
    loops: float
    stretch: float
    duration: float

    @property
    def interruptible(self) -> bool:
        return self.role not in _UNINTERRUPTIBLE


def _play(clip: Clip, pose: Pose, twist: float = 0.0, stretch: float = 1.0) -> Pose:
    """The end pose of ``clip`` played from ``pose`` turned by ``twist`` with its motion
    scaled by ``stretch``."""
    turned = (pose[0], pose[1], pose[2] + twist)
    x, y = local_to_world(turned, clip.dx * stretch, clip.dy * stretch)
    return (x, y, turned[2] + clip.rotation)


def _play_chain(clips: Sequence[Clip], pose: Pose, twist: float) -> Pose:
    """The end pose of ``clips`` played one after another from ``pose``, the first turned
    by ``twist``."""
    for k, c in enumerate(clips):
        pose = _play(c, pose, twist if k == 0 else 0.0)
    return pose


def _action(clip: Clip, role: Role, pose: Pose, twist: float = 0.0,
            stretch: float = 1.0) -> Action:
    return Action(clip, role, pose, _play(clip, pose, twist, stretch), twist, 1.0, stretch,
                  clip.duration)


@dataclass(frozen=True, slots=True)
class ActionStack:
    """The actions planned for one segment, in execution order (built backward: the last
    was chosen first).

    ``state``: the animation state after them; ``status``:
    :attr:`~wayfinding.results.Status.FOUND` or :attr:`~wayfinding.results.Status.FAILED`
    (no action reaches the target, fail-safe included); ``replanned``: how many leading
    actions decomposed a missing clip (the rest was planned again after them);
    ``fail_safe``: whether the turn-and-step fail-safe was used.
    """

    actions: tuple[Action, ...]
    state: str
    status: Status
    replanned: int
    fail_safe: bool

    @property
    def found(self) -> bool:
        return self.status is Status.FOUND

    @property
    def duration(self) -> float:
        """Seconds the actions take."""
        return sum(a.duration for a in self.actions)

    def end_pose(self, pose: ArrayLike) -> np.ndarray:
        """The pose ``(x, y, heading)`` after replaying the actions clip by clip from
        ``pose`` (each transfer along its heading, each other clip with its twist and
        stretch): float64 ``(3,)``."""
        p: Pose = tuple(finite_point("pose", pose, 3).tolist())
        for a in self.actions:
            if a.role is Role.TRANSFER:
                p = (p[0], p[1], p[2] + a.twist)
                p = (*local_to_world(p, a.loops * a.clip.dx, 0.0), p[2])
            else:
                p = _play(a.clip, p, a.twist, a.stretch)
        return np.array(p)


def hits_mark(pose: ArrayLike, target: ArrayLike, *, facing: float | None = None,
              position_tolerance: float = 0.1, facing_tolerance: float = math.radians(10)
              ) -> bool:
    """Whether ``pose`` ``(x, y, heading)`` lies within ``position_tolerance`` (world
    units) of ``target`` ``(x, y)`` and, when ``facing`` (radians) is given, its heading
    within ``facing_tolerance`` (radians) of it.

    >>> hits_mark((1.0, 0.05, 0.1), (1, 0), facing=0.0)
    True
    """
    p = finite_point("pose", pose, 3)
    t = finite_point("target", target)
    tol = positive_float("position_tolerance", position_tolerance, allow_zero=True)
    ftol = positive_float("facing_tolerance", facing_tolerance, allow_zero=True)
    f = None if facing is None else number("facing", facing)
    if math.hypot(p[0] - t[0], p[1] - t[1]) > tol:
        return False
    return f is None or abs(wrap_angle(float(p[2]) - f)) <= ftol


class LocomotionPlanner:
    """Plans action-stacks from the clips of ``catalogue`` (see the module text).

    ``position_tolerance``: how far from the target an end pose may be (world units, >= 0);
    ``facing_tolerance``: how far from the wanted facing (radians, >= 0); ``max_twist``: the
    most a non-transfer clip may be turned over its playing (radians, >= 0); ``max_stretch``:
    the most a step clip's motion may be scaled up or down (a fraction in ``[0, 1)``);
    ``look_ahead``: segments weighed by :meth:`plan` (>= 1; 2-3 in practice);
    ``max_prefix``: clips played in place before planning again (>= 0).
    """

    def __init__(self, catalogue: ClipCatalogue, *, position_tolerance: float = 0.1,
                 facing_tolerance: float = math.radians(10), max_twist: float = math.radians(15),
                 max_stretch: float = 0.2, look_ahead: int = 3, max_prefix: int = 2) -> None:
        if not isinstance(catalogue, ClipCatalogue):
            raise InvalidQueryError(f"catalogue must be a ClipCatalogue, got "
                                    f"{type(catalogue).__name__}")
        self.catalogue = catalogue
        self.position_tolerance = positive_float("position_tolerance", position_tolerance,
                                                 allow_zero=True)
        self.facing_tolerance = positive_float("facing_tolerance", facing_tolerance,
                                               allow_zero=True)
        self.max_twist = positive_float("max_twist", max_twist, allow_zero=True)
        self.max_stretch = number("max_stretch", max_stretch, min=0.0, max=1.0, max_open=True)
        self.look_ahead = count("look_ahead", look_ahead)
        self.max_prefix = count("max_prefix", max_prefix, min=0)
        self.loops: dict[str, Clip] = {}
        for c in catalogue.clips:
            if c.start_state == c.end_state and c.dx > 0 and c.dy == 0 and c.rotation == 0 \
                    and c.start_speed > 0 and c.end_speed > 0 and c.start_state not in self.loops:
                self.loops[c.start_state] = c

    def __repr__(self) -> str:
        return f"LocomotionPlanner({self.catalogue!r}, transfers {sorted(self.loops)})"

    def is_transfer(self, state: str) -> bool:
        """Whether ``state`` has a transfer loop."""
        return state in self.loops

    def check_state(self, state: str) -> str:
        """``state`` checked to be one of the catalogue's animation states (else
        :class:`~wayfinding.errors.InvalidQueryError`)."""
        if not isinstance(state, str):
            raise InvalidQueryError(f"animation state {brief(state)} must be a string")
        self.catalogue.following(state)         # refuses an unknown state
        return state

    def _avoided(self, avoid: Sequence[str]) -> frozenset[str]:
        """``avoid`` as a set of the catalogue's states (a lone string or an unknown state
        is refused)."""
        if isinstance(avoid, str) or not all(isinstance(a, str) for a in avoid):
            raise InvalidQueryError(f"avoid {brief(avoid)} must be a list of animation states")
        unknown = sorted(set(avoid) - self.catalogue.states)
        if unknown:
            raise InvalidQueryError(f"avoid names unknown animation state {unknown[0]!r}")
        return frozenset(avoid)

    # ------------------------------------------------------------------ one segment
    def plan_segment(self, state: str, pose: ArrayLike, target: ArrayLike, *,
                     facing: float | None = None, through: bool = False,
                     end_state: str | None = None, avoid: Sequence[str] = ()) -> ActionStack:
        """The action-stack that takes a character in animation ``state`` at ``pose``
        ``(x, y, heading)`` to ``target`` ``(x, y)``.

        ``through=False``: it stops there in a stance, facing ``facing`` (radians; ``None``:
        any).  ``through=True``: it passes the target moving in a transfer state (any
        facing).  ``end_state``: the state to be in there (a stance when stopping, a
        transfer state when passing through; ``None``: any).  ``avoid``: animation states
        not to enter (no running here).  An unknown ``state`` raises
        :class:`~wayfinding.errors.InvalidQueryError`.
        """
        self.check_state(state)
        p = finite_point("pose", pose, 3)
        start: Pose = (float(p[0]), float(p[1]), float(p[2]))
        tx, ty = finite_point("target", target).tolist()
        f = None if facing is None else number("facing", facing)
        through = flag("through", through)
        if end_state is not None:
            self.check_state(end_state)
            if self.is_transfer(end_state) is not through:
                kind = "transfer state" if through else "stance"
                raise InvalidQueryError(f"end_state {end_state!r} must be a {kind} "
                                        f"with through={through}")
        banned = self._avoided(avoid)
        goal = _Goal((tx, ty), f, through, end_state, banned)
        return self._plan(state, start, goal)

    def _plan(self, state: str, pose: Pose, goal: _Goal) -> ActionStack:
        best = self._best(state, pose, goal)
        if best is not None:
            return ActionStack(tuple(best[1]), best[2], Status.FOUND, 0, False)
        prefix = self._decompose(state, pose, goal)
        if prefix is not None:
            return prefix
        return self._fail_safe(state, pose, goal)

    def _ends_ok(self, state: str, goal: _Goal) -> bool:
        return self.is_transfer(state) is goal.through and \
            (goal.end_state is None or state == goal.end_state)

    def _best(self, state: str, pose: Pose, goal: _Goal
              ) -> tuple[float, list[Action], str] | None:
        """The quickest direct or pre/transfer/post way, or None.  A stop whose facing no
        clip meets is also tried as a stop in any facing followed by turns on the spot."""
        best: tuple[float, list[Action], str] | None = None
        for c in self.catalogue.following(state):
            if c.end_state in goal.avoid or not self._ends_ok(c.end_state, goal):
                continue
            act = self._direct(c, pose, goal)
            if act is not None and (best is None or act.duration < best[0] - 1e-12):
                best = (act.duration, [act], c.end_state)
        for t, loop in self.loops.items():
            if t in goal.avoid:
                continue
            got = self._via_transfer(state, pose, t, loop, goal)
            if got is not None and (best is None or got[0] < best[0] - 1e-12):
                best = got
        if goal.facing is not None and not goal.through:
            free = _Goal(goal.target, None, False, goal.end_state, goal.avoid)
            got = self._best(state, pose, free)
            if got is not None:
                turn = self._turn_on_spot(got[2], got[1][-1].end, goal.facing)
                if turn is not None:
                    total = got[0] + sum(a.duration for a in turn)
                    if best is None or total < best[0] - 1e-12:
                        best = (total, [*got[1], *turn], got[2])
        return best

    def _twist_to(self, want: float) -> float | None:
        """The twist that turns by ``want`` radians, or None beyond :attr:`max_twist`."""
        w = wrap_angle(want)
        return w if abs(w) <= self.max_twist + 1e-12 else None

    def _facing_ok(self, heading: float, goal: _Goal) -> bool:
        return goal.facing is None or \
            abs(wrap_angle(heading - goal.facing)) <= self.facing_tolerance + 1e-12

    def _direct(self, clip: Clip, pose: Pose, goal: _Goal) -> Action | None:
        """``clip`` alone, twisted toward the target (and facing), when it hits the mark."""
        x, y, h = pose
        tx, ty = goal.target
        if math.hypot(clip.dx, clip.dy) > 0:
            aim = math.atan2(ty - y, tx - x) - h - math.atan2(clip.dy, clip.dx)
        else:
            aim = 0.0 if goal.facing is None else goal.facing - h - clip.rotation
        twist = self._twist_to(aim)
        if twist is None:
            return None
        act = _action(clip, Role.DIRECT, pose, twist)
        ex, ey, eh = act.end
        if math.hypot(ex - tx, ey - ty) > self.position_tolerance:
            return None
        if not goal.through and not self._facing_ok(eh, goal):
            return None
        return act

    def _chains(self, state: str, into: Any, depth: int = 2) -> list[tuple[Clip, ...]]:
        """Chains of at most ``depth`` transition clips (each changing the state) from
        ``state`` whose last clip ends in a state ``into`` accepts, through transfer states
        only (stand to walk, walk to run), in catalogue order."""
        out: list[tuple[Clip, ...]] = []
        paths: list[tuple[Clip, ...]] = [()]
        for _ in range(depth):
            grown = []
            for chain in paths:
                at = chain[-1].end_state if chain else state
                for c in self.catalogue.following(at):
                    if c.end_state == c.start_state or any(c.end_state == x.start_state
                                                           for x in chain):
                        continue
                    if self.is_transfer(c.end_state):
                        grown.append((*chain, c))
                    if into(c.end_state):
                        out.append((*chain, c))
            paths = grown
        return out

    def _via_transfer(self, state: str, pose: Pose, t: str, loop: Clip, goal: _Goal
                      ) -> tuple[float, list[Action], str] | None:
        """The quickest pre-transfer + transfer in ``t`` + post-transfer, chosen backward:
        each of them a chain of at most two clips (stand to walk, walk to run)."""
        avoid = goal.avoid
        if goal.through:
            posts: list[tuple[Clip, ...]] = [()]
        else:
            posts = [chain for chain in self._chains(
                t, lambda s: self._ends_ok(s, goal) and s not in avoid)
                if not any(c.end_state in avoid for c in chain)]
        pres: list[tuple[Clip, ...]]
        if state == t:
            pres = [(), *((c,) for c in self.catalogue.following(t)
                          if c.end_state == t and c.rotation != 0)]
        else:
            pres = [chain for chain in self._chains(state, lambda s: s == t)
                    if not any(c.end_state in avoid for c in chain)]
        best: tuple[float, list[Action], str] | None = None
        for post in posts:                          # the end is chosen first
            for pre in pres:
                got = self._fit(pose, pre, loop, post, goal, state == t)
                if got is not None and (best is None or got[0] < best[0] - 1e-12):
                    best = got
        return best

    def _root(self, f: Any, aim: float) -> float | None:
        """The heading within :attr:`max_twist` of ``aim`` where ``f`` (its first value)
        is zero, the nearest to ``aim`` of those found by bisection between 33 evenly
        spaced headings; None when there is none."""
        if self.max_twist == 0:
            return aim if abs(f(aim)[0]) <= 1e-9 else None
        hs = np.linspace(aim - self.max_twist, aim + self.max_twist, 33).tolist()
        vals = [f(h)[0] for h in hs]
        roots = [h for h, v in zip(hs, vals) if v == 0]
        for a, b, fa, fb in zip(hs[:-1], hs[1:], vals[:-1], vals[1:]):
            if fa * fb < 0 and abs(fa) < math.pi / 2 and abs(fb) < math.pi / 2:
                for _ in range(60):
                    m = (a + b) / 2
                    fm = f(m)[0]
                    if fm == 0:
                        a = b = m
                        break
                    a, fa, b = (m, fm, b) if fa * fm > 0 else (a, fa, m)
                roots.append((a + b) / 2)
        return min(roots, key=lambda h: abs(h - aim), default=None)

    def _fit(self, pose: Pose, pre: tuple[Clip, ...], loop: Clip, post: tuple[Clip, ...],
             goal: _Goal, moving: bool) -> tuple[float, list[Action], str] | None:
        """Solve the transfer's heading so that ``post`` ends on the target after ``pre``
        and the loop (``pre``'s first clip twisted to aim along it, ``post``'s first clip
        twisted toward the facing); None when the clips do not fit the segment."""
        if not pre and not moving:
            return None
        h0 = pose[2]
        tx, ty = goal.target
        aim = h0 + sum(c.rotation for c in pre)          # the heading with no twist
        post_turn = sum(c.rotation for c in post)

        def solve(h: float) -> tuple[float, Pose, float, float, float]:
            """How far the way from the pre-transfer's end to the post-transfer's start
            turns from heading ``h`` (0 when the transfer runs along ``h``), and those
            points and the post-transfer's twist."""
            tw3 = 0.0
            if post and goal.facing is not None:
                tw3 = max(-self.max_twist, min(self.max_twist,
                                               wrap_angle(goal.facing - h - post_turn)))
            sx, sy = tx, ty
            if post:
                ox, oy, _ = _play_chain(post, (0.0, 0.0, h), tw3)
                sx, sy = tx - ox, ty - oy
            e = _play_chain(pre, pose, h - aim) if pre else pose
            if math.hypot(sx - e[0], sy - e[1]) <= 1e-9:
                return 0.0, e, sx, sy, tw3
            return wrap_angle(math.atan2(sy - e[1], sx - e[0]) - h), e, sx, sy, tw3

        heading = self._root(solve, aim)
        if heading is None:
            return None
        _, e, sx, sy, tw3 = solve(heading)
        tw1 = heading - aim
        distance = math.hypot(sx - e[0], sy - e[1])
        stack: list[Action] = []                         # pushed from the end
        p: Pose = (sx, sy, heading)
        for k, c in enumerate(post):
            stack.append(_action(c, Role.POST_TRANSFER, p, tw3 if k == 0 else 0.0))
            p = stack[-1].end
        if post:
            stack = stack[::-1]
            if not self._facing_ok(p[2], goal) or \
                    math.hypot(p[0] - tx, p[1] - ty) > self.position_tolerance:
                return None
        stack.append(Action(loop, Role.TRANSFER, e, (sx, sy, heading),
                            wrap_angle(heading - e[2]), distance / loop.dx, 1.0,
                            distance / loop.speed))
        played: list[Action] = []
        p = pose
        for k, c in enumerate(pre):
            played.append(_action(c, Role.TRANSFER_TURN if moving else Role.PRE_TRANSFER, p,
                                  tw1 if k == 0 else 0.0))
            p = played[-1].end
        stack.extend(reversed(played))
        stack.reverse()                                  # in execution order
        end_state = post[-1].end_state if post else loop.end_state
        return sum(a.duration for a in stack), stack, end_state

    # ------------------------------------------------------------------ fallbacks
    def _decompose(self, state: str, pose: Pose, goal: _Goal) -> ActionStack | None:
        """Clips played in place (stance changes, turns on the spot twisted toward the
        target), then a plan again: the quickest, over at most :attr:`max_prefix` such
        clips; None when none helps."""
        frontier: list[tuple[float, list[Action], str, Pose]] = [(0.0, [], state, pose)]
        best: ActionStack | None = None
        for _ in range(self.max_prefix):
            grown = []
            for spent, acts, s, p in frontier:
                for c in self.catalogue.following(s):
                    if c.dx or c.dy or self.is_transfer(c.end_state) or c.end_state in goal.avoid \
                            or (c.end_state == s and c.rotation == 0):
                        continue
                    if c.end_state == s:                 # a turn, twisted toward the target
                        aim = math.atan2(goal.target[1] - p[1], goal.target[0] - p[0])
                        act = _action(c, Role.TURN, p, max(-self.max_twist, min(
                            self.max_twist, wrap_angle(aim - p[2] - c.rotation))))
                    else:
                        act = _action(c, Role.STANCE, p)
                    then = self._best(c.end_state, act.end, goal)
                    if then is not None:
                        total = spent + act.duration + then[0]
                        if best is None or total < best.duration - 1e-12:
                            best = ActionStack((*acts, act, *then[1]), then[2], Status.FOUND,
                                               len(acts) + 1, False)
                    grown.append((spent + act.duration, [*acts, act], c.end_state, act.end))
            frontier = grown
        return best

    def _turn_on_spot(self, state: str, pose: Pose, want: float) -> list[Action] | None:
        """The quickest turns on the spot in ``state`` to heading ``want`` (within
        :attr:`facing_tolerance`), the wanted turn shared evenly among their twists (each at
        most :attr:`max_twist`); at most 32 turns, none turning past two full turns; None
        when the catalogue cannot turn that way.  Sequences of as many turns whose net
        rotations fall in the same :attr:`facing_tolerance`-wide bin count as one (the
        quickest is kept), and at most :data:`TURN_EXPANSIONS` sequences are expanded."""
        turns = [c for c in self.catalogue.following(state)
                 if c.end_state == state and c.rotation != 0 and not c.dx and not c.dy]
        left = wrap_angle(want - pose[2])
        heap: list[tuple[float, int, float, tuple[int, ...]]] = [(0.0, 0, 0.0, ())]
        seen: set[tuple[int, int]] = set()
        width = max(self.facing_tolerance, 1e-9)
        while heap and len(seen) < TURN_EXPANSIONS:
            spent, k, net, chain = heapq.heappop(heap)
            key = (round(net / width), k)
            if key in seen:
                continue
            seen.add(key)
            miss = wrap_angle(left - net)
            share = max(-k * self.max_twist, min(k * self.max_twist, miss))
            if abs(miss - share) <= self.facing_tolerance + 1e-12:
                out: list[Action] = []
                p = pose
                for i in chain:
                    out.append(_action(turns[i], Role.TURN, p, share / k))
                    p = out[-1].end
                return out
            if k < 32:
                for i, c in enumerate(turns):
                    if abs(net + c.rotation) <= 4 * math.pi:
                        heapq.heappush(heap, (spent + c.duration, k + 1, net + c.rotation,
                                              (*chain, i)))
        return None

    def _fail_safe(self, state: str, pose: Pose, goal: _Goal) -> ActionStack:
        """Turn toward the target, step there, turn to the facing: never stuck while the
        catalogue has a turn on the spot and a step forward.  Each step clip is tried
        (as many of it as the distance needs, all stretched alike), the quickest first
        (ties: catalogue order); the first that hits the mark is taken.  Fails when the
        character is moving, passes through, or is wanted in another stance."""
        failed = ActionStack((), state, Status.FAILED, 0, True)
        if self.is_transfer(state) or goal.through or goal.end_state not in (None, state):
            return failed
        x, y, _ = pose
        tx, ty = goal.target
        dist = math.hypot(tx - x, ty - y)
        walks: list[list[Action]] = [[]]
        if dist > self.position_tolerance:
            turn = self._turn_on_spot(state, pose, math.atan2(ty - y, tx - x))
            if turn is None:
                return failed
            start = turn[-1].end if turn else pose
            aim = math.atan2(ty - start[1], tx - start[0])
            twist = wrap_angle(aim - start[2])
            twist = twist if abs(twist) <= self.max_twist else 0.0
            options = []
            for k, c in enumerate(self.catalogue.following(state)):
                if c.end_state == state and c.dx > 0 and not c.dy and not c.rotation:
                    n = max(1, math.ceil(dist / (c.dx * (1 + self.max_stretch))))
                    options.append((n * c.duration, k, c, n))
            walks = []
            for _, _, step, n in sorted(options, key=lambda o: o[:2]):
                stretch = max(1 - self.max_stretch, dist / (n * step.dx))
                acts = list(turn)
                p = start
                for _ in range(n):
                    acts.append(_action(step, Role.STEP, p, twist, stretch))
                    p = acts[-1].end
                walks.append(acts)
        for acts in walks:
            p = acts[-1].end if acts else pose
            if goal.facing is not None:
                turn = self._turn_on_spot(state, p, goal.facing)
                if turn is None:
                    return failed
                acts = acts + turn
                p = acts[-1].end if acts else p
            if hits_mark(p, goal.target, facing=goal.facing,
                         position_tolerance=self.position_tolerance,
                         facing_tolerance=self.facing_tolerance):
                return ActionStack(tuple(acts), state, Status.FOUND, 0, True)
        return failed

    # ------------------------------------------------------------------ look-ahead
    def plan(self, path: LocomotionPath, state: str, pose: ArrayLike, *,
             facing: float | None = None, avoid: Sequence[str] = ()) -> ActionStack:
        """The action-stack for the first segment of ``path`` (from ``pose`` to its second
        point), its end state chosen by looking ahead (see the module text): pass through
        moving when the next ``look_ahead - 1`` segments can be planned from there (each
        passing through moving or stopping at its end), else stop there facing the next
        segment.  ``facing``: the facing wanted at the path's goal; ``avoid``: as for
        :meth:`plan_segment`."""
        if not isinstance(path, LocomotionPath):
            raise InvalidQueryError(f"path must be a LocomotionPath, got {type(path).__name__}")
        if len(path.points) < 2:
            raise InvalidQueryError("path holds no segment to plan (it was not found)")
        p = finite_point("pose", pose, 3)
        start: Pose = (float(p[0]), float(p[1]), float(p[2]))
        f = None if facing is None else number("facing", facing)
        self.check_state(state)
        banned = self._avoided(avoid)
        for got in self._passing(path, 1, state, start, f, banned):
            if self._ahead_ok(path, 2, got[2], got[1][-1].end, f, banned):
                return ActionStack(tuple(got[1]), got[2], Status.FOUND, 0, False)
        stop = self._segment_goal(path, 1, False, f, banned)
        assert stop is not None                 # a segment may always end by stopping
        return self._plan(state, start, stop)

    def _passing(self, path: LocomotionPath, i: int, state: str, pose: Pose,
                 facing: float | None, banned: frozenset[str]
                 ) -> list[tuple[float, list[Action], str]]:
        """The quickest way through point ``i`` moving, one per transfer state, quickest
        first (ties: catalogue order); none at the goal or a fail-safe stop."""
        goal = self._segment_goal(path, i, True, facing, banned)
        if goal is None:
            return []
        out = []
        for t in self.loops:
            got = self._best(state, pose, _Goal(goal.target, None, True, t, banned))
            if got is not None:
                out.append(got)
        return sorted(out, key=lambda g: g[0])

    def _segment_goal(self, path: LocomotionPath, i: int, through: bool,
                      facing: float | None, banned: frozenset[str]) -> _Goal | None:
        """The goal of the segment ending at point ``i``: stopping there facing the next
        segment (``facing`` at the path's goal), or passing through moving; None for
        passing through the path's goal or one of its fail-safe stops."""
        pts = path.points
        last = i == len(pts) - 1
        if through and (last or path.stops[i]):
            return None
        if through:
            want = None
        elif last:
            want = facing
        else:
            want = math.atan2(pts[i + 1][1] - pts[i][1], pts[i + 1][0] - pts[i][0])
        return _Goal((float(pts[i][0]), float(pts[i][1])), want, through, None, banned)

    def _ahead_ok(self, path: LocomotionPath, i: int, state: str, pose: Pose,
                  facing: float | None, banned: frozenset[str], depth: int = 1) -> bool:
        """Whether the segment ending at point ``i`` and the next ones, up to
        :attr:`look_ahead` segments counted from the first, can be planned from ``pose`` in
        ``state``: each passing through moving (in any transfer state) or stopping."""
        if depth >= self.look_ahead or i >= len(path.points):
            return True
        for got in self._passing(path, i, state, pose, facing, banned):
            if self._ahead_ok(path, i + 1, got[2], got[1][-1].end, facing, banned, depth + 1):
                return True
        stop = self._segment_goal(path, i, False, facing, banned)
        return stop is not None and self._best(state, pose, stop) is not None


@dataclass(frozen=True, slots=True)
class _Goal:
    target: tuple[float, float]
    facing: float | None
    through: bool
    end_state: str | None
    avoid: frozenset[str]
