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
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validate import positive_float
from ..errors import InvalidQueryError
from ..geometry.obstacles import as_point
from ..results import _fields_equal
from .turning import _unit

_PI, _TAU = math.pi, 2 * math.pi
#: A segment this short (in radii) on the wrong side of zero counts as empty: a rounding
#: error, not a change of direction.
_ZERO = 1e-12
#: Steering of each letter: +1 left, -1 right, 0 straight.
STEERING = {"L": 1, "R": -1, "S": 0}

Word = tuple[str, tuple[float, ...]]     # letters, signed lengths in radii


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
        (radians), the last one equal to the start heading plus the turn made."""
        step = positive_float("step", step)
        x, y = self.start
        theta = self.heading
        out = [np.array([[x, y, theta]])]
        for letter, s in zip(self.word[::2], self.segments):
            k = max(int(math.ceil(abs(s) / step)), 1)
            part = _advance(x, y, theta, STEERING[letter] / self.radius,
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
    a0, a1 = math.atan2(d[1], d[0]), math.atan2(e[1], e[0])
    dx, dy = (q - p) / r
    c, s = d
    best: Word | None = None
    best_length = math.inf
    for letters, lengths in _words(c * dx + s * dy, c * dy - s * dx, _wrap(a1 - a0)):
        length = sum(abs(t) for t in lengths)
        if length < best_length - _ZERO:
            best, best_length = (letters, lengths), length
    if best is None:   # unreachable: some CSC word joins any two poses
        raise InvalidQueryError("no Reeds–Shepp word joins these poses")
    letters, lengths = best
    word = "".join(f"{x}{'-' if math.copysign(1, t) < 0 else '+'}"
                   for x, t in zip(letters, lengths))
    return ReedsSheppPath(p, a0, q, a1, r, word, tuple(r * t for t in lengths),
                          r * best_length)


def _advance(x: float, y: float, theta: float, kappa: float,
             s: np.ndarray) -> np.ndarray:
    """Poses ``(k, 3)`` after driving signed distances ``s`` from ``(x, y, theta)`` with
    curvature ``kappa`` (positive left)."""
    if kappa == 0:
        return np.column_stack([x + s * math.cos(theta), y + s * math.sin(theta),
                                np.full_like(s, theta)])
    t = theta + kappa * s
    return np.column_stack([x + (np.sin(t) - math.sin(theta)) / kappa,
                            y + (math.cos(theta) - np.cos(t)) / kappa, t])


def _wrap(a: float) -> float:
    """``a`` as an angle in ``[-pi, pi)``."""
    return (a + _PI) % _TAU - _PI


def _signed(lengths: tuple[float, ...], signs: str) -> tuple[float, ...] | None:
    """``lengths`` if each has its sign in ``signs`` (``+`` or ``-``), those a rounding error
    on the wrong side of zero made empty (``0.0`` or ``-0.0``); else None."""
    out = []
    for t, sign in zip(lengths, signs):
        if (t < 0) != (sign == "-"):
            if abs(t) > _ZERO:
                return None
            t = 0.0 if sign == "+" else -0.0
        out.append(t)
    return tuple(out)


# --- The base words, in the frame of a start at the origin facing +x and a radius of 1 ----
# Each takes the goal (x, y, phi) and yields (letters, signs, signed lengths) for the
# words of its kind that reach it with arcs of at most pi (as every shortest path has).
# L+ t from the origin ends at (sin t, 1 - cos t); the left circle of a pose (x, y, phi)
# has its centre at (x - sin phi, y + cos phi), the right one at (x + sin phi, y - cos phi).

Base = Callable[[float, float, float], Iterator[tuple[str, str, tuple[float, ...]]]]


def _csc(x: float, y: float, phi: float) -> Iterator[tuple[str, str, tuple[float, ...]]]:
    # L+S+L+: the centres differ by u along the heading t after the first arc.
    u, t = math.hypot(x - math.sin(phi), y - 1 + math.cos(phi)), \
        math.atan2(y - 1 + math.cos(phi), x - math.sin(phi))
    yield "LSL", "+++", (t, u, _wrap(phi - t))
    # L+S+R+: the centres differ by rot(t) (u, -2), with u^2 = |difference|^2 - 4.
    xi, eta = x + math.sin(phi), y - 1 - math.cos(phi)
    square = xi * xi + eta * eta - 4
    if square >= 0:
        u = math.sqrt(square)
        t = _wrap(math.atan2(eta, xi) + math.atan2(2, u))
        yield "LSR", "+++", (t, u, _wrap(t - phi))


def _ccc(x: float, y: float, phi: float) -> Iterator[tuple[str, str, tuple[float, ...]]]:
    # L+R-L±: the left circles 4 |sin(u / 2)| apart, the middle one touching both; the
    # centres differ by 4 sin(u / 2) (cos, sin)(t - u / 2), and phi = t - u + v.
    xi, eta = x - math.sin(phi), y - 1 + math.cos(phi)
    gap = math.hypot(xi, eta)
    if gap <= 4:
        u = -2 * math.asin(gap / 4)
        t = _wrap(math.atan2(eta, xi) + u / 2 + _PI)
        v = _wrap(phi - t + u)
        yield "LRL", "+-" + ("+" if v >= 0 else "-"), (t, u, v)


def _turns(u: float, w: float, xi: float, eta: float, phi: float) -> tuple[float, float]:
    """First and last arcs of L t R u L w R v whose right circles' centres differ by
    ``(xi, eta)`` = 2 rot(t) (sin u - sin(u - w), cos u - cos(u - w) - 1), with
    phi = t - u + w - v."""
    a, b = math.sin(u) - math.sin(u - w), math.cos(u) - math.cos(u - w) - 1
    t = math.atan2(eta * a - xi * b, xi * a + eta * b)
    return t, _wrap(t - u + w - phi)


def _cccc(x: float, y: float, phi: float) -> Iterator[tuple[str, str, tuple[float, ...]]]:
    xi, eta = x + math.sin(phi), y - 1 - math.cos(phi)
    gap = math.hypot(xi, eta)
    # L+R+L-R-, the middle arcs equal: 2 cos u - 1 = gap / 2 (Reeds and Shepp's root of
    # |2 cos u - 1| = gap / 2).
    if gap <= 2:
        u = math.acos((2 + gap) / 4)
        t, v = _turns(u, -u, xi, eta, phi)
        yield "LRLR", "++--", (t, u, -u, v)
    # L+R-L-R+, the middle arcs equal and at most pi / 2: 5 - 4 cos u = gap^2 / 4.
    c = (20 - gap * gap) / 16
    if 0 <= c <= 1:
        u = -math.acos(c)
        t, v = _turns(u, u, xi, eta, phi)
        yield "LRLR", "+--+", (t, u, u, v)


def _ccsc(x: float, y: float, phi: float) -> Iterator[tuple[str, str, tuple[float, ...]]]:
    half = _PI / 2
    # L+R-(pi/2)S-L-: the left centres differ by rot(t) (-2, u - 2).
    xi, eta = x - math.sin(phi), y - 1 + math.cos(phi)
    square = xi * xi + eta * eta - 4
    if square >= 0:
        u = 2 - math.sqrt(square)
        t = _wrap(math.atan2(eta, xi) - math.atan2(u - 2, -2))
        yield "LRSL", "+---", (t, -half, u, _wrap(phi - t - half))
    # L+R-(pi/2)S-R-: the start's left centre and the goal's right one differ by
    # (2 - u) (sin t, -cos t).
    xi, eta = x + math.sin(phi), y - 1 - math.cos(phi)
    gap = math.hypot(xi, eta)
    if gap >= 2:
        t = math.atan2(xi, -eta)
        yield "LRSR", "+---", (t, -half, 2 - gap, _wrap(t + half - phi))


def _ccscc(x: float, y: float, phi: float) -> Iterator[tuple[str, str, tuple[float, ...]]]:
    # L+R-(pi/2)S-L-(pi/2)R+: the start's left centre and the goal's right one differ by
    # rot(t) (-2, u - 4).
    half = _PI / 2
    xi, eta = x + math.sin(phi), y - 1 - math.cos(phi)
    square = xi * xi + eta * eta - 4
    if square >= 0:
        u = 4 - math.sqrt(square)
        t = _wrap(math.atan2(eta, xi) - math.atan2(u - 4, -2))
        yield "LRSLR", "+---+", (t, -half, u, -half, _wrap(t - phi))


#: The families in order, and whether each needs the backward view (the word read from the
#: goal to the start) as well as the time-flipped and reflected ones.
_FAMILIES: tuple[tuple[Base, bool], ...] = (
    (_csc, False), (_ccc, True), (_cccc, False), (_ccsc, True), (_ccscc, False))


def _words(x: float, y: float, phi: float) -> Iterator[Word]:
    """Every base word under the symmetries: time flip (drive each segment the other way:
    the goal (-x, y, -phi)), reflection (swap L and R: (x, -y, -phi)) and, for the families
    that are not their own reverse, reading the word backward (the goal
    (x cos phi + y sin phi, x sin phi - y cos phi, phi), the segments in reverse order)."""
    cp, sp = math.cos(phi), math.sin(phi)
    for base, backward in _FAMILIES:
        views = [(x, y, False)] + ([(x * cp + y * sp, x * sp - y * cp, True)] if backward
                                   else [])
        for bx, by, reverse in views:
            for flip in (False, True):
                for mirror in (False, True):
                    gx, gy = -bx if flip else bx, -by if mirror else by
                    gphi = -phi if flip != mirror else phi
                    for letters, signs, raw in base(gx, gy, gphi):
                        lengths = _signed(raw, signs)
                        if lengths is None:
                            continue
                        if flip:
                            lengths = tuple(-t for t in lengths)
                        if mirror:
                            letters = letters.translate(_SWAP)
                        if reverse:
                            letters, lengths = letters[::-1], lengths[::-1]
                        yield letters, lengths


_SWAP = str.maketrans("LR", "RL")
