"""Tangent segments between circles that a path wraps (steering circles, corner circles of
an agent's clearance)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validate import choice, flag, positive_float, xy
from ..errors import InvalidGeometryError
from .predicates import Pt


def circle_tangent(c0: ArrayLike, s0: int, r0: float, c1: ArrayLike, s1: int, r1: float, *,
                   clamp: bool = False) -> tuple[float, float, Pt, Pt] | None:
    """The segment that leaves circle 0 (centre ``c0``, radius ``r0``) and touches circle 1,
    for a path going round circle i counter-clockwise (y up) when ``s_i`` is +1, clockwise
    when -1 (a radius 0 is a point): its unit direction ``(ux, uy)`` and its two ends.

    None when there is none: equal centres, or circles wrapped opposite ways that overlap.
    With ``clamp``, overlapping circles give the segment at their touching limit instead.

    >>> circle_tangent((0, 0), 1, 1.0, (4, 0), 1, 1.0)[2:]       # both left turns: below
    ((0.0, -1.0), (4.0, -1.0))

    Centres must be finite points, sides +1 or -1, radii finite and >= 0
    (:class:`~wayfinding.errors.InvalidGeometryError` otherwise).
    """
    clamp = flag("clamp", clamp)
    c0 = xy("c0", c0, error=InvalidGeometryError)
    c1 = xy("c1", c1, error=InvalidGeometryError)
    s0 = choice("side s0", s0, (1, -1), error=InvalidGeometryError)
    s1 = choice("side s1", s1, (1, -1), error=InvalidGeometryError)
    r0 = positive_float("r0", r0, allow_zero=True, error=InvalidGeometryError)
    r1 = positive_float("r1", r1, allow_zero=True, error=InvalidGeometryError)
    return tangent(c0, s0, r0, c1, s1, r1, clamp=clamp)


def tangent(c0: Pt | np.ndarray, s0: int, r0: float, c1: Pt | np.ndarray, s1: int, r1: float, *,
            clamp: bool = False) -> tuple[float, float, Pt, Pt] | None:
    """:func:`circle_tangent` without its checks, for callers that made them."""
    dx, dy = float(c1[0]) - float(c0[0]), float(c1[1]) - float(c0[1])
    ll = dx * dx + dy * dy
    k = s1 * r1 - s0 * r0
    if ll == 0 or (ll < k * k and not clamp):
        return None
    lam = math.sqrt(max(ll - k * k, 0.0))
    ux, uy = (lam * dx + k * dy) / ll, (lam * dy - k * dx) / ll
    # Each centre lies on its turning side of the direction of travel.
    return (ux, uy, (c0[0] + s0 * r0 * uy, c0[1] - s0 * r0 * ux),
            (c1[0] + s1 * r1 * uy, c1[1] - s1 * r1 * ux))
