"""Checks of the arrays and options of a saved index, made before any kernel sees them.

A saved file is untrusted input: its map fingerprint says which map it claims to belong to,
not that its values are sound.  Each index kind declares in ``_members`` the arrays it may
hold (and the most bytes each may take, checked before anything is decompressed) and checks
every array in ``_restore`` with these helpers: dtype and shape, values in range, CSR
pointers, finite non-negative costs, options of the right type and range.  Each raises
:class:`FileFormatError` naming the array or option and what is wrong; the reader turns it
into its own error with the file's name (``Index.load``: :class:`IndexFormatError`;
``NavMesh.load``: :class:`NavMeshFormatError`).  All checks are vectorised.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import DTypeLike

from . import _validate
from .errors import FileFormatError

T = TypeVar("T")


def array(arrays: Mapping[str, np.ndarray], name: str, dtype: DTypeLike,
          shape: Sequence[int | None]) -> np.ndarray:
    """``arrays[name]``, C-contiguous, after checking that it exists and has exactly
    ``dtype`` and ``shape`` (``None``: any length on that axis)."""
    a = arrays.get(name)
    want = np.dtype(dtype)
    text = "(" + ", ".join("n" if s is None else str(s) for s in shape) + \
        ("," if len(shape) == 1 else "") + ")"
    if a is None:
        raise FileFormatError(f"array {name!r} ({want} {text}) is missing")
    if not isinstance(a, np.ndarray) or a.dtype != want or a.ndim != len(shape) \
            or any(s is not None and s != t for s, t in zip(shape, a.shape, strict=True)):
        got = f"{a.dtype} {a.shape}" if isinstance(a, np.ndarray) else type(a).__name__
        raise FileFormatError(f"array {name!r} must be {want} of shape {text}, got {got}")
    return np.ascontiguousarray(a)


def _first_bad(a: np.ndarray, bad: np.ndarray) -> str:
    i = np.unravel_index(int(np.argmax(bad)), bad.shape)
    at = i[0] if len(i) == 1 else tuple(int(v) for v in i)
    return f"[{at}] = {a[i]}"


def values_in(a: np.ndarray, name: str, lo: float, hi: float) -> np.ndarray:
    """Check ``lo <= a <= hi`` everywhere (NaN fails); returns ``a``."""
    with np.errstate(invalid="ignore"):
        bad = ~((a >= lo) & (a <= hi))
    if bad.any():
        raise FileFormatError(f"array {name!r} holds {name}{_first_bad(a, bad)}, outside "
                               f"{lo:g}..{hi:g}")
    return a


def costs(a: np.ndarray, name: str, *, inf: bool = False) -> np.ndarray:
    """Check that ``a`` holds no NaN and no negative value, and no infinity unless ``inf``
    (infinity then means "unreachable"); returns ``a``."""
    bad = np.isnan(a) | (a < 0)
    if not inf:
        bad |= np.isinf(a)
    if bad.any():
        what = "non-negative" if inf else "finite and non-negative"
        raise FileFormatError(f"array {name!r} holds {name}{_first_bad(a, bad)}; costs must "
                               f"be {what}")
    return a


def pointers(ptr: np.ndarray, name: str, total: int) -> np.ndarray:
    """Check CSR offsets: ``ptr[0] == 0``, non-decreasing, ``ptr[-1] == total`` (the length
    of the array they index); returns ``ptr``."""
    if len(ptr) == 0 or ptr[0] != 0 or ptr[-1] != total:
        first = int(ptr[0]) if len(ptr) else None
        last = int(ptr[-1]) if len(ptr) else None
        raise FileFormatError(f"CSR offsets {name!r} must run from 0 to {total}, got "
                               f"{first}..{last}")
    down = np.diff(ptr) < 0
    if down.any():
        i = int(np.argmax(down))
        raise FileFormatError(f"CSR offsets {name!r} decrease at [{i + 1}] "
                               f"({int(ptr[i])} then {int(ptr[i + 1])})")
    return ptr


def equal(a: np.ndarray, expected: np.ndarray, name: str, what: str) -> np.ndarray:
    """Check that ``a`` equals ``expected`` (recomputed from the map); returns ``a``."""
    if a.shape != expected.shape or not np.array_equal(a, expected):
        raise FileFormatError(f"array {name!r} does not match {what}")
    return a


def integer(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    """``value`` as an int in ``lo..hi``: :func:`wayfinding._validate.count`'s rules."""
    return _validate.count(name, value, min=lo, max=_validate.INT64_MAX if hi is None else hi,
                            error=FileFormatError)


def number(value: Any, name: str, *, positive: bool = False) -> float:
    """``value`` as a finite float, > 0 when ``positive`` and >= 0 otherwise:
    :func:`wayfinding._validate.number`'s rules."""
    return _validate.number(name, value, min=0.0, min_open=positive, error=FileFormatError)


def option(options: Mapping[str, Any], name: str) -> Any:
    """``options[name]``, or an error naming the missing option."""
    if name not in options:
        raise FileFormatError(f"option {name!r} is missing")
    return options[name]


def choice(value: object, name: str, choices: Sequence[T]) -> T:
    """Check that ``value`` is one of ``choices``: :func:`wayfinding._validate.choice`'s
    rules; returns it."""
    return _validate.choice(name, value, choices, error=FileFormatError)


def triangle(table: np.ndarray, name: str, src: np.ndarray, dst: np.ndarray,
             weight: np.ndarray) -> np.ndarray:
    """Check that each row ``d`` of the distance table ``table`` (``(k, n)``, one row per
    pivot) obeys the triangle inequality along every edge ``src -> dst`` of cost ``weight``:
    ``d[dst] <= d[src] + weight`` (up to a relative 1e-9 of rounding; inf is unreachable).
    Distances that pass are a consistent heuristic's building blocks whatever else they
    hold; returns ``table``."""
    for k, row in enumerate(table):
        with np.errstate(invalid="ignore"):
            reach = row[src] + weight
            bad = row[dst] > reach + 1e-9 * reach
        if bad.any():
            e = int(np.argmax(bad))
            raise FileFormatError(
                f"array {name!r} breaks the triangle inequality: {name}[{k}, {int(dst[e])}] = "
                f"{row[dst[e]]} exceeds {name}[{k}, {int(src[e])}] = {row[src[e]]} plus "
                f"the edge's cost {weight[e]}")
    return table
