"""Angles in the plane: radians, counter-clockwise positive."""

from __future__ import annotations

import math


def wrap_angle(angle: float) -> float:
    """``angle`` (radians) wrapped into ``(-pi, pi]``: the turn of least magnitude to the
    same direction, a half turn counted as ``+pi`` (to the left).

    >>> wrap_angle(3 * math.pi / 2) == -math.pi / 2, wrap_angle(-math.pi) == math.pi
    (True, True)
    """
    out = math.remainder(angle, 2 * math.pi)
    return math.pi if out == -math.pi else out
