"""Shortest paths for a car that turns no tighter than a radius and may reverse (Reeds and
Shepp, 1990): from a pose (position and heading) to a pose, driving forward or backward,
switching between them at cusps.  The shortest is one of 48 words of at most five segments
(arcs of the turning circle and straight segments) in nine families: CSC, C|C|C, C|CC,
CC|C, CCu|CuC, C|CuCu|C, C|C(pi/2)SC, CSC(pi/2)|C and C|C(pi/2)SC(pi/2)|C.

Coordinates are y up, as for :func:`~wayfinding.paths.turning_path`: ``L`` turns
counter-clockwise *when driving forward*; a reversing ``L`` arc keeps the steering and so
turns the heading clockwise.

>>> p = reeds_shepp_path((0, 0), (1, 0), (-3, 0), (1, 0), radius=1)   # just behind: reverse
>>> p.word, p.segments, p.length
('L-S-L-', (-0.0, -3.0, -0.0), 3.0)
>>> p = reeds_shepp_path((0, 0), (1, 0), (0, 0), (-1, 0), radius=1)   # turn round on the spot
>>> p.word, [round(s, 4) for s in p.segments]   # three sixths of a turn, two cusps
('L+R-L+', [1.0472, -1.0472, 1.0472])
>>> p.poses(2.0)[:, 2].round(4).tolist()         # the heading after each piece
[0.0, 1.0472, 2.0944, 3.1416]
>>> reeds_shepp_path((2, 3), (0, 1), (2, 3), (0, 1), radius=1).length   # a pose to itself
0.0
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
from .turning import _unit

#: Steering of each letter: +1 left, -1 right, 0 straight.
STEERING = {"L": 1, "R": -1, "S": 0}


@dataclass(frozen=True)
class ReedsSheppPath:
    """One Reeds–Shepp word from ``start`` (facing ``heading``, radians counter-clockwise
    from +x) to ``goal`` (facing ``goal_heading``).  ``word`` spells its segments, each a
    letter (``L`` and ``R`` arcs of ``radius`` steering left or right, ``S`` straight)
    followed by ``+`` forward or ``-`` reverse, e.g. ``"L+R-L+"``; ``segments``: their signed
    lengths in world units (negative when reversing; a segment may be empty, and is then
    ``0.0`` or ``-0.0`` with the word's sign); ``length``: the sum of their absolute values."""

    start: np.ndarray
    heading: float
    goal: np.ndarray
    goal_heading: float
    radius: float
    word: str
    segments: tuple[float, ...]
    length: float

    __eq__ = _fields_equal

    def poses(self, step: float) -> np.ndarray:
        """``(n, 3)`` float64 poses ``(x, y, heading)`` along the path, at most ``step``
        apart along it, both ends and every cusp included; headings are unwrapped angles
        (radians), the last one equal to the start heading plus the turn made.  A ``step``
        that would take more than :data:`wayfinding._validate.MAX_CELLS` poses is refused."""
        step = positive_float("step", step)
        allocation(f"poses {step!r} apart along a path {self.length:.6g} long",
                   self.length / step + len(self.segments) + 1)
        x, y = self.start
        theta = self.heading
        out = [np.array([[x, y, theta]])]
        for letter, s in zip(self.word[::2], self.segments):
            k = max(int(math.ceil(abs(s) / step)), 1)
            part = _advance(x, y, theta, STEERING[letter], self.radius,
                            s * np.arange(1, k + 1) / k)
            out.append(part)
            x, y, theta = part[-1]
        return np.concatenate(out)

    def points(self, step: float) -> np.ndarray:
        """``(n, 2)`` points along the path, at most ``step`` apart along it (both ends and
        every cusp included)."""
        return self.poses(step)[:, :2]


def reeds_shepp_path(start: ArrayLike, heading: ArrayLike, goal: ArrayLike,
                     goal_heading: ArrayLike, radius: float) -> ReedsSheppPath:
    """The shortest path from ``start`` facing ``heading`` to ``goal`` facing
    ``goal_heading`` (headings are direction vectors, any length but zero) for a car that
    never turns tighter than ``radius`` but may drive backward: the shortest of the 48
    Reeds–Shepp words, whose length is at most :func:`~wayfinding.paths.turning_path`'s.
    ``radius`` is in world units, > 0; the result's angles are in radians.  Ties go to the
    first word found, in the family order of the module docstring (C|C|C words come in
    pairs of equal length, e.g. L-R+L- and R+L-R+: the second wins)."""
    p, q = as_point(start, "start"), as_point(goal, "goal")
    d, e = _unit(heading, "heading"), _unit(goal_heading, "goal_heading")
    r = positive_float("radius", radius)
    w = q - p
    a0, a1, letters, lengths, length = _turning.reeds_shepp_word(d[0], d[1], e[0], e[1],
                                                                  w[0], w[1], r)
    if not letters:   # unreachable: some CSC word joins any two poses
        raise InvalidQueryError("no Reeds–Shepp word joins these poses")
    word = "".join(f"{x}{'-' if math.copysign(1, t) < 0 else '+'}"
                   for x, t in zip(letters, lengths))
    return ReedsSheppPath(p, a0, q, a1, r, word, tuple(r * t for t in lengths), length)


def _advance(x: float, y: float, theta: float, steer: int, radius: float,
             s: np.ndarray) -> np.ndarray:
    """Poses ``(k, 3)`` after driving signed distances ``s`` from ``(x, y, theta)``
    steering ``steer`` (+1 left, -1 right, 0 straight) on circles of ``radius``: on an
    arc, the chord ``2 radius sin(s / 2 radius)`` along the mean heading, exact to
    rounding however large the radius."""
    if steer == 0:
        return np.column_stack([x + s * math.cos(theta), y + s * math.sin(theta),
                                np.full_like(s, theta)])
    half = steer * s / (2 * radius)
    chord = steer * 2 * radius * np.sin(half)
    return np.column_stack([x + chord * np.cos(theta + half),
                            y + chord * np.sin(theta + half), theta + 2 * half])
