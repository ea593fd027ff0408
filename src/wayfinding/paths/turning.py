"""Paths for agents with a minimum turning radius: the shortest forward path from a pose
(position and heading) to a pose, one of the six Dubins words — an arc, a tangent segment and
an arc (LSL, RSR, LSR, RSL, on Bjøre's steering circles, every one of the four circle pairs
tried) or three arcs (RLR, LRL, the middle one on a circle touching both steering circles).

Coordinates are y up: "left" turns counter-clockwise.  (On a y-down screen left and right
swap, as do the directions of the turns.)

>>> p = turning_path((0, 0), (0, 1), (10, 0), (0, -1), radius=2)
>>> p.sides, round(p.length, 4)                 # two right turns: pi + 6 + pi
('RR', 12.2832)
>>> p.word
'RSR'
>>> p = turning_path((0, 0), (1, 0), (0, 0), (-1, 0), radius=1)   # turn round: three arcs
>>> p.word, round(p.length, 4)                  # RLR and LRL tie; the first in order wins
('RLR', 7.3304)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import _turning
from .._validate import allocation, positive_float
from ..errors import InvalidQueryError
from ..geometry.obstacles import as_point
from ..results import _fields_equal

#: Turning sides: +1 left (counter-clockwise), -1 right (clockwise).
SIDES = {"L": 1, "R": -1}
#: The norms of the vectors whose squares neither overflow nor lose bits to underflow.
_SCALE_FREE = (2.0 ** -450, 2.0 ** 450)


@dataclass(frozen=True)
class TurningPath:
    """One Dubins word: ``word`` spells it (``"L"`` an arc turning counter-clockwise, ``"R"``
    clockwise, ``"S"`` a straight segment), e.g. ``"RSR"`` or ``"LRL"``; ``sides`` is its
    first and last letters, the turning sides at the start and at the goal (``"RR"``).
    ``centres``: the centre of each arc's circle, in order (two for an arc–segment–arc word,
    three for a three-arc one); ``arcs``: the angle turned on each (radians, >= 0);
    ``exit``/``enter``: where the path leaves the first circle and joins the last (the ends
    of the segment, or of the middle arc); ``length``: the whole length."""

    start: np.ndarray
    goal: np.ndarray
    radius: float
    sides: str
    centres: np.ndarray
    exit: np.ndarray
    enter: np.ndarray
    arcs: tuple[float, ...]
    length: float
    word: str

    __eq__ = _fields_equal

    def points(self, step: float) -> np.ndarray:
        """``(n, 2)`` points along the path, at most ``step`` apart (both ends included);
        a ``step`` that would take more than :data:`wayfinding._validate.MAX_CELLS` points
        is refused."""
        step = positive_float("step", step)
        allocation(f"points {step!r} apart along a path {self.length:.6g} long",
                   self.length / step + 4)
        out = [_arc(self.centres[0], self.start, SIDES[self.word[0]], self.arcs[0],
                    self.radius, step)]
        if self.word[1] == "S":
            seg = math.hypot(*(self.enter - self.exit))     # no square to overflow
            k = max(int(math.ceil(seg / step)), 1)
            out.append(self.exit + np.outer(np.arange(1, k + 1) / k, self.enter - self.exit))
        else:
            out.append(_arc(self.centres[1], self.exit, SIDES[self.word[1]], self.arcs[1],
                            self.radius, step)[1:])
        out.append(_arc(self.centres[-1], self.enter, SIDES[self.word[2]], self.arcs[-1],
                        self.radius, step)[1:])
        return np.concatenate(out)


def turning_path(start: ArrayLike, heading: ArrayLike, goal: ArrayLike,
                 goal_heading: ArrayLike, radius: float) -> TurningPath:
    """The shortest forward path from ``start`` facing ``heading`` to ``goal`` facing
    ``goal_heading`` that never turns tighter than ``radius``: the shortest of the six Dubins
    words.  The arc–segment–arc words (LSL, LSR, RSL, RSR) use the steering circles at both
    ends, a crossing tangent only when they are at least ``2 radius`` apart; when both poses
    lie on one steering circle turning the same way, that circle's arc between them stands
    for the same-side word (so a pose to itself is the empty path).  The three-arc words
    (RLR, LRL) need the two same-side steering circles at most ``4 radius`` apart, and try
    both middle circles touching them.  Ties (words within 1e-12 radii of each other) go
    to the first word in that order.

    The words are solved in the start's frame (the start at the origin facing +x), with
    ``1 - cos`` of the turn between the headings taken from its half-angle sine, so that the
    direction between nearly coinciding steering circles, which decides which way round each
    arc goes, is not lost to rounding; an arc within ``1e-12`` radians of a whole turn counts
    as none."""
    p, q = as_point(start, "start"), as_point(goal, "goal")
    d, e = _unit(heading, "heading"), _unit(goal_heading, "goal_heading")
    r = positive_float("radius", radius)
    rot = np.array([[d[0], -d[1]], [d[1], d[0]]])        # the start's frame to the world
    w = q - p
    word, arcs, length, last, via = _turning.dubins_word(d[0], d[1], e[0], e[1], w[0], w[1], r)
    if not word:   # unreachable: a same-side pair has a tangent or shares its circle
        raise InvalidQueryError("no Dubins word joins these poses")
    c1 = np.array([0.0, SIDES[word[0]] * r])
    delta = np.array(last)
    if word[1] == "S":
        centres, ends = np.array([c1, c1 + delta]), np.array(via)
    else:
        m = np.array(via[0])
        centres, ends = np.array([c1, c1 + m, c1 + delta]), np.array([m, m + delta]) / 2
    exit_, enter = p + rot @ (c1 + ends[0]), p + rot @ (c1 + ends[1])
    return TurningPath(p, q, r, word[0] + word[2], p + centres @ rot.T, exit_, enter, arcs,
                       length, word)


def _arc(c: np.ndarray, a: np.ndarray, side: int, sweep: float, r: float,
         step: float) -> np.ndarray:
    k = max(int(math.ceil(r * sweep / step)), 1)
    t0 = math.atan2(a[1] - c[1], a[0] - c[0])
    t = t0 + side * sweep * np.arange(k + 1) / k
    return c + r * np.column_stack([np.cos(t), np.sin(t)])


def _unit(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` divided by its norm, as the kernels take it (so the car planner's headings
    are these); refuses the zero vector.  A vector whose norm's square would overflow or
    underflow is first scaled by a power of two (exactly), so any length but zero works."""
    v = as_point(value, name)
    n = _turning.norm(v[0], v[1])
    if not _SCALE_FREE[0] <= n <= _SCALE_FREE[1]:
        big = float(np.abs(v).max())
        if big == 0:
            raise InvalidQueryError(f"{name} must not be the zero vector")
        v = np.ldexp(v, -math.frexp(big)[1])
        n = _turning.norm(v[0], v[1])
    return v / n
