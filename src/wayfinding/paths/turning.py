"""Paths for agents with a minimum turning radius: from a pose (position and heading) to a
pose, an arc on a steering circle, a tangent segment and an arc on a second circle (after
Bjøre's steering circles, with every one of the four circle pairs tried).

Coordinates are y up: "left" turns counter-clockwise.  (On a y-down screen left and right
swap, as do the directions of the turns.)

>>> p = turning_path((0, 0), (0, 1), (10, 0), (0, -1), radius=2)
>>> p.sides, round(p.length, 4)                 # two right turns: pi + 6 + pi
('RR', 12.2832)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arguments import positive_float
from ..errors import InvalidQueryError
from ..geometry.circles import tangent
from ..geometry.obstacles import as_point

#: Turning sides: +1 left (counter-clockwise), -1 right (clockwise).
SIDES = {"L": 1, "R": -1}


@dataclass(frozen=True)
class TurningPath:
    """Arc, segment, arc.  ``centres``: the two circle centres; ``sides``: their turning
    sides (``"L"`` counter-clockwise, ``"R"`` clockwise); ``exit``/``enter``: where the path
    leaves the first circle and joins the second; ``arcs``: the angles turned on each
    (radians, >= 0); ``length``: the whole length."""

    start: np.ndarray
    goal: np.ndarray
    radius: float
    sides: str
    centres: np.ndarray
    exit: np.ndarray
    enter: np.ndarray
    arcs: tuple[float, float]
    length: float

    def points(self, step: float) -> np.ndarray:
        """``(n, 2)`` points along the path, at most ``step`` apart (both ends included)."""
        if not (isinstance(step, (int, float)) and math.isfinite(step) and step > 0):
            raise InvalidQueryError(f"step {step!r} must be a positive number")
        out = [_arc(self.centres[0], self.start, SIDES[self.sides[0]], self.arcs[0],
                    self.radius, step)]
        seg = np.linalg.norm(self.enter - self.exit)
        k = max(int(math.ceil(seg / step)), 1)
        out.append(self.exit + np.outer(np.arange(1, k + 1) / k, self.enter - self.exit))
        out.append(_arc(self.centres[1], self.enter, SIDES[self.sides[1]], self.arcs[1],
                        self.radius, step)[1:])
        return np.concatenate(out)


def turning_path(start: Any, heading: Any, goal: Any, goal_heading: Any,
                 radius: float) -> TurningPath:
    """The shortest arc–segment–arc path from ``start`` facing ``heading`` to ``goal``
    facing ``goal_heading`` that never turns tighter than ``radius``: each of the four
    choices of turning side at both ends (LL, LR, RL, RR) is tried, a crossing tangent only
    when the circles are at least ``2 radius`` apart.  When both poses lie on one steering
    circle turning the same way, that circle's arc between them is a candidate too (so a
    pose to itself is the empty path)."""
    p, q = as_point(start, "start"), as_point(goal, "goal")
    d, e = _unit(heading, "heading"), _unit(goal_heading, "goal_heading")
    r = positive_float("radius", radius)
    best: TurningPath | None = None
    for sides in ("LL", "LR", "RL", "RR"):
        s1, s2 = SIDES[sides[0]], SIDES[sides[1]]
        c1 = p + s1 * r * np.array([-d[1], d[0]])
        c2 = q + s2 * r * np.array([-e[1], e[0]])
        leg = tangent(c1, s1, r, c2, s2, r)
        if leg is not None:
            a, b = np.array(leg[2]), np.array(leg[3])
        elif s1 == s2 and np.array_equal(c1, c2):
            a = b = q             # one circle through both poses: just the arc between
        else:
            continue
        arcs = (_sweep(c1, p, a, s1), _sweep(c2, b, q, s2))
        length = r * (arcs[0] + arcs[1]) + float(np.linalg.norm(b - a))
        if best is None or length < best.length - 1e-12:
            best = TurningPath(p, q, r, sides, np.array([c1, c2]), a, b, arcs, length)
    if best is None:   # unreachable: a same-side pair has a tangent or shares its circle
        raise InvalidQueryError("no arc-segment-arc path joins these poses")
    return best


def _sweep(c: np.ndarray, a: np.ndarray, b: np.ndarray, side: int) -> float:
    t0 = math.atan2(a[1] - c[1], a[0] - c[0])
    t1 = math.atan2(b[1] - c[1], b[0] - c[0])
    sweep = (side * (t1 - t0)) % (2 * math.pi)
    return 0.0 if sweep > 2 * math.pi - 1e-12 else sweep


def _arc(c: np.ndarray, a: np.ndarray, side: int, sweep: float, r: float,
         step: float) -> np.ndarray:
    k = max(int(math.ceil(r * sweep / step)), 1)
    t0 = math.atan2(a[1] - c[1], a[0] - c[0])
    t = t0 + side * sweep * np.arange(k + 1) / k
    return c + r * np.column_stack([np.cos(t), np.sin(t)])


def _unit(value: Any, name: str) -> np.ndarray:
    v = as_point(value, name)
    n = float(np.linalg.norm(v))
    if n == 0:
        raise InvalidQueryError(f"{name} must not be the zero vector")
    return v / n
