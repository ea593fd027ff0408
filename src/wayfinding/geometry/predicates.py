"""Exact geometric predicates: the orientation of three points and the in-circle test.

Both return the exact sign of a determinant of float64 coordinates (no epsilon): a quick
floating-point evaluation with a proven error bound decides almost every case, and exact
expansion arithmetic (error-free sums and fused multiply-add products) decides the rest, so
collinear and cocircular points give 0 and nearly degenerate ones the true side.

Exactness holds when every coordinate is 0 or has a magnitude in [2**-100, 2**100] (about
7.9e-31 to 1.3e30), where no intermediate product can overflow or underflow; other values
raise :class:`~wayfinding.errors.InvalidGeometryError`, as do NaN and infinities.

Points are ``(x, y)`` pairs or ``(n, 2)`` arrays (broadcast against each other); y grows
upward for "counter-clockwise" (on screen, with y down, it reads clockwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._kernels import _predicates
from .._validate import reals
from ..errors import InvalidGeometryError

#: Largest coordinate magnitude accepted (2**100).
MAX_COORD = 2.0**100
#: Smallest nonzero coordinate magnitude accepted (2**-100).
MIN_COORD = 2.0**-100

#: One ``(x, y)`` point.
Pt = tuple[float, float]


@positional_options("name")
def check_coordinates(values: ArrayLike, *, name: str = "coordinates") -> np.ndarray:
    """``values`` as float64, refusing NaN, infinities and magnitudes outside the exact range
    (0, or [:data:`MIN_COORD`, :data:`MAX_COORD`])."""
    arr = reals(name, values, error=InvalidGeometryError)
    mag = np.abs(arr)
    bad = ~np.isfinite(arr) | (mag > MAX_COORD) | ((mag < MIN_COORD) & (mag != 0))
    if bad.any():
        v = arr[bad].ravel()[0]
        raise InvalidGeometryError(
            f"{v!r} in {name}: coordinates must be finite and 0 or of magnitude "
            f"between 2**-100 and 2**100 for exact predicates")
    return arr


def _points(values: ArrayLike, name: str) -> np.ndarray:
    arr = check_coordinates(values, name=name)
    if arr.ndim == 0 or arr.shape[-1] != 2 or arr.ndim > 2:
        raise InvalidGeometryError(f"{name} must be an (x, y) point or an (n, 2) array, got "
                                   f"shape {arr.shape}")
    return arr


def _signs(kernel: Callable[..., None], *points: ArrayLike, names: str) -> int | np.ndarray:
    arrs = [_points(p, n) for p, n in zip(points, names.split(), strict=True)]
    scalar = all(a.ndim == 1 for a in arrs)
    try:
        full = np.broadcast_arrays(*(np.atleast_2d(a) for a in arrs))
    except ValueError:
        raise InvalidGeometryError(
            f"{', '.join(names.split())} have incompatible shapes "
            f"{[a.shape for a in arrs]}") from None
    flat = [np.ascontiguousarray(a) for a in full]
    out = np.empty(len(flat[0]), dtype=np.int8)
    kernel(*flat, out)
    return int(out[0]) if scalar else out


@overload
def orient2d(a: Pt, b: Pt, c: Pt) -> int: ...


@overload
def orient2d(a: ArrayLike, b: ArrayLike, c: ArrayLike) -> Any: ...


def orient2d(a: ArrayLike, b: ArrayLike, c: ArrayLike) -> int | np.ndarray:
    """Sign of the turn a → b → c: +1 counter-clockwise (c left of the directed line a–b,
    y up), -1 clockwise, 0 collinear.  Points or ``(n, 2)`` arrays: returns an int or an
    int8 array.

    >>> orient2d((0, 0), (1, 0), (0, 1)), orient2d((0, 0), (1, 1), (3, 3))
    (1, 0)
    >>> orient2d((0.1, 0.3), (0.2, 0.2), (0.3, 0.1))   # 0.1, 0.2, 0.3 are rounded in binary
    -1
    """
    return _signs(_predicates.orient2d_many, a, b, c, names="a b c")


@overload
def incircle(a: Pt, b: Pt, c: Pt, d: Pt) -> int: ...


@overload
def incircle(a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> Any: ...


def incircle(a: ArrayLike, b: ArrayLike, c: ArrayLike, d: ArrayLike) -> int | np.ndarray:
    """Sign of d against the circle through a, b, c: +1 inside, -1 outside, 0 on it when
    a, b, c turn counter-clockwise (the sign flips when they turn clockwise; 0 either way
    for cocircular points).  Points or ``(n, 2)`` arrays.

    >>> incircle((0, 0), (2, 0), (0, 2), (1, 1)), incircle((0, 0), (2, 0), (0, 2), (2, 2))
    (1, 0)
    """
    return _signs(_predicates.incircle_many, a, b, c, d, names="a b c d")
