"""Checks of the scalar arguments at the public boundaries, the same rules everywhere.

Each check returns the value converted (a float, an int, a float64 point) or raises the
error class it is given (a :class:`~wayfinding.errors.WayfindingError` that is also a
``ValueError``; :class:`~wayfinding.errors.InvalidQueryError` unless the caller says
otherwise) naming the argument and quoting the value (cut to about 80 characters):

* bools are not numbers: ``True`` is refused where a number is wanted;
* numpy scalars (``np.int32(3)``, ``np.float64(0.5)``) count like Python's;
* NaN is always refused, infinities unless a parameter allows them;
* integers beyond the 64-bit range (``10**30``) are refused, also where a float is wanted:
  no argument means such a value, and the kernels take 64-bit integers at most;
* strings, None, lists and other objects are refused where a number is wanted.

The budgets of searches run in slices (:func:`budget`, :func:`seconds`,
:func:`step_budget`) take ``None`` for no limit and any non-negative size.

Builders that allocate from their sizes call :func:`allocation` first, which refuses a
product of sizes beyond :data:`MAX_CELLS` before any array is made.

>>> count("levels", 3), positive_float("radius", 0, allow_zero=True)
(3, 0.0)
>>> positive_float("radius", True)
Traceback (most recent call last):
...
wayfinding.errors.InvalidQueryError: radius True must be a finite number > 0
>>> try:
...     count("levels", 10**30)
... except ValueError as exc:
...     print(exc)
levels 1000000000000000000000000000000 must be an integer >= 1 of at most 64 bits
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

from .errors import InvalidQueryError, brief

#: The largest int64, the bound of every integer argument.
INT64_MAX = 2**63 - 1
#: The most cells, samples or polygon slots one build may allocate (each of them a few
#: bytes to a few dozen): more is refused before anything is allocated.
MAX_CELLS = 10**8
#: The largest finite cost of a grid cell; a graph's edge may cost twice it (a grid's
#: diagonal step costs sqrt 2 times its cells'): a path of 2**31 steps still sums to a
#: finite float.
MAX_COST = 1e250
#: The smallest cost of a grid cell: the smallest normal float.  Below it costs lose
#: precision (a diagonal step's sqrt 2 times the cell's rounds), and searches their
#: optimality.
MIN_COST = sys.float_info.min
#: The bounds of a cell's cost, as messages give them (inf, blocked, besides).
CELL_COST_BOUNDS = f"at least {MIN_COST:.17g} and at most {MAX_COST:g}"


def cell_cost_ok(value: Any) -> Any:
    """Whether cell costs (a number or an array) are ones a grid holds: ``MIN_COST`` to
    ``MAX_COST``, or inf (NaN is not)."""
    return (value >= MIN_COST) & ((value <= MAX_COST) | (value == math.inf))
#: The most time steps one simulated run may take (its duration over its step).
MAX_TIME_STEPS = 10**7
#: The most pieces a build makes one by one in Python (cells of a cutting grid, polygons):
#: more is refused before the first is made.
MAX_PIECES = 10**6

_REALS = (int, float, np.integer, np.floating)
_INTS = (int, np.integer)
_PLAIN = frozenset((float, int, np.float64))
_BIG = 2.0**63     # NaN and infinities fail the comparisons against it


def _interval(lo: float, hi: float, lo_open: bool, hi_open: bool) -> str:
    if lo == -math.inf and hi == math.inf:
        return ""
    if hi == math.inf:
        return f" {'>' if lo_open else '>='} {lo:g}"
    if lo == -math.inf:
        return f" {'<' if hi_open else '<='} {hi:g}"
    return f" in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"


def number(name: str, value: Any, *, min: float = -math.inf, max: float = math.inf,
           min_open: bool = False, max_open: bool = False, infinite: bool = False,
           error: type[Exception] = InvalidQueryError) -> float:
    """``value`` as a float after checking that it is a real number (not a bool, not an
    integer beyond int64), not NaN, finite unless ``infinite``, and within ``min``..``max``
    (either end excluded when ``min_open``/``max_open``)."""
    ok = isinstance(value, _REALS) and not isinstance(value, bool) \
        and (not isinstance(value, int) or -INT64_MAX - 1 <= value <= INT64_MAX)
    if ok:
        v = float(value)
        ok = not math.isnan(v) and (infinite or not math.isinf(v)) \
            and (v > min if min_open else v >= min) and (v < max if max_open else v <= max)
        if ok:
            return v
    raise error(f"{name} {brief(value)} must be a{'' if infinite else ' finite'} number"
                f"{_interval(min, max, min_open, max_open)}"
                + (" (inf allowed)" if infinite else ""))


def positive_float(name: str, value: Any, *, allow_zero: bool = False,
                   allow_inf: bool = False, max: float = math.inf,
                   error: type[Exception] = InvalidQueryError) -> float:
    """``value`` as a float > 0 (>= 0 with ``allow_zero``; inf with ``allow_inf``; at most
    ``max``): see :func:`number`."""
    return number(name, value, min=0.0, min_open=not allow_zero, max=max,
                  infinite=allow_inf, error=error)


def finite_float(name: str, value: Any, *,
                 error: type[Exception] = InvalidQueryError) -> float:
    """``value`` as a finite float of any sign: see :func:`number`."""
    return number(name, value, error=error)


def count(name: str, value: Any, *, min: int = 1, max: int = INT64_MAX,
          error: type[Exception] = InvalidQueryError) -> int:
    """``value`` as an int after checking that it is an integer (a Python or numpy one, not
    a bool, not a float) in ``min``..``max`` (``max`` at most :data:`INT64_MAX`)."""
    if isinstance(value, _INTS) and not isinstance(value, bool) and min <= value <= max:
        return operator.index(value)
    span = f">= {min}" if max >= INT64_MAX else f"in [{min}, {max}]"
    if isinstance(value, int) and not isinstance(value, bool) and value > INT64_MAX:
        span += " of at most 64 bits"
    raise error(f"{name} {brief(value)} must be an integer {span}")


def real_number(value: Any) -> float:
    """``value`` as a float when it is a real number (a Python or numpy int or float, not a
    bool); NaN for anything else (a string, None, a bool, an integer beyond any float), for
    the caller's own range check to refuse."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, _REALS):
        return math.nan
    try:
        return float(value)
    except OverflowError:
        return math.nan


def generator(name: str, value: Any, *, error: type[Exception] = InvalidQueryError
              ) -> np.random.Generator:
    """``value`` as a numpy random Generator: a Generator as it is, None for a fresh one,
    else a seed (an integer >= 0)."""
    if isinstance(value, np.random.Generator):
        return value
    if value is None:
        return np.random.default_rng()
    return np.random.default_rng(count(name, value, min=0, error=error))


def time_steps(duration: float, dt: float, what: str, *,
               error: type[Exception] = InvalidQueryError) -> float:
    """``duration / dt`` (both checked > 0 already), the steps of a simulated run, refused
    beyond :data:`MAX_TIME_STEPS` before any is taken."""
    steps = duration / dt
    if not steps <= MAX_TIME_STEPS:
        raise error(f"{what} of {duration:g} s in steps of {dt:g} s would take {steps:.3g} "
                    f"steps, more than the {MAX_TIME_STEPS:.0e} a run may take "
                    "(wayfinding._validate.MAX_TIME_STEPS)")
    return steps


def budget(name: str, value: Any, *, error: type[Exception] = InvalidQueryError
           ) -> int | None:
    """An expansion budget: ``None`` (no limit) or an integer >= 0 (a Python or numpy one,
    not a bool), returned as an int.  Any size is taken: a budget beyond what a search can
    spend means no limit."""
    # Not count(min=0): a budget has no upper bound (count refuses beyond int64) and its
    # message offers None.
    if value is None:
        return None
    if isinstance(value, _INTS) and not isinstance(value, bool) and value >= 0:
        return operator.index(value)
    raise error(f"{name} {brief(value)} must be an integer >= 0 or None")


def seconds(name: str, value: Any, *, error: type[Exception] = InvalidQueryError
            ) -> float | None:
    """A time budget: ``None`` (no limit) or a number >= 0 (not a bool, not NaN; inf means
    no limit), returned as a float."""
    # Not number(min=0, infinite=True): a time budget has no upper bound (number refuses
    # integers beyond int64) and its message offers None.
    if value is None:
        return None
    if isinstance(value, _REALS) and not isinstance(value, bool) and value >= 0:
        return float(value)
    raise error(f"{name} {brief(value)} must be a number >= 0 or None")


def step_budget(max_expansions: Any, max_seconds: Any, *,
                error: type[Exception] = InvalidQueryError) -> tuple[int | None, float | None]:
    """The budget of one slice of a search, both parts checked: :func:`budget` and
    :func:`seconds`.

    >>> step_budget(10, None), step_budget(None, 0)
    ((10, None), (None, 0.0))
    """
    if max_seconds is None and (max_expansions is None or (
            type(max_expansions) is int and max_expansions >= 0)):
        return max_expansions, None        # the common slice, checked without calls
    return (budget("max_expansions", max_expansions, error=error),
            seconds("max_seconds", max_seconds, error=error))


def choice(name: str, value: Any, options: Iterable[Any], *,
           error: type[Exception] = InvalidQueryError) -> Any:
    """``value`` after checking that it is one of ``options``: an int option matches only an
    integer (not ``2.0``, not ``True``), a bool option only itself, any other option what
    equals it (an unhashable or array-like value is simply not one of them)."""
    options = tuple(options)
    for option in options:
        if isinstance(option, bool) or isinstance(value, bool):
            ok = value is option
        elif isinstance(option, int):
            ok = isinstance(value, _INTS) and value == option
        else:
            try:
                ok = bool(value == option)
            except (TypeError, ValueError):     # arrays and odd comparisons
                ok = False
        if ok:
            return value
    raise error(f"unknown {name} {brief(value)}; expected one of "
                f"{', '.join(repr(o) for o in options)}")


def flag(name: str, value: Any, *, error: type[Exception] = InvalidQueryError) -> bool:
    """``value`` as a bool: ``True`` or ``False`` (numpy's too); ``1``, ``"no"``, None and
    anything else are refused (a truthy value is not taken to mean yes)."""
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise error(f"{name} {brief(value)} must be True or False")


def reals(name: str, value: Any, *, error: type[Exception] = InvalidQueryError
          ) -> np.ndarray:
    """``value`` as a float64 array after checking that it holds numbers: no bools (also
    among the numbers of a tuple or list, or of its tuples or lists), strings, None or
    other objects (nor integers beyond int64, which numpy keeps as objects).  Shapes and
    finiteness are the caller's to check."""
    if isinstance(value, (tuple, list)) and any(
            isinstance(v, (bool, np.bool_)) or isinstance(v, (tuple, list))
            and any(isinstance(w, (bool, np.bool_)) for w in v) for v in value):
        arr = np.empty(0, dtype=bool)
    else:
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):     # ragged sequences
            arr = np.empty(0, dtype=object)
    if arr.dtype.kind in "iuf":
        return arr.astype(np.float64, copy=False)
    raise error(f"{name} {brief(value)} must be numbers"
                + (" (not bools)" if arr.dtype.kind == "b" else ""))


def finite_point(name: str, value: Any, dim: int = 2, *,
                 error: type[Exception] = InvalidQueryError) -> np.ndarray:
    """``value`` as a float64 array of shape ``(dim,)`` after checking that it holds
    ``dim`` finite numbers (none of them a bool)."""
    try:
        arr = reals(name, value, error=error)
    except error:
        arr = np.empty(0)
    if arr.shape != (dim,) or not np.isfinite(arr).all():
        axes = "(x, y)" if dim == 2 else "(x, y, z)" if dim == 3 else f"{dim}-d"
        why = " (it holds NaN or infinity)" if arr.shape == (dim,) else ""
        raise error(f"{name} {brief(value)} must be a finite {axes} point{why}")
    return arr


def finite_points(name: str, value: Any, dim: int = 2, *,
                  error: type[Exception] = InvalidQueryError) -> tuple[np.ndarray, bool]:
    """One point or an ``(n, dim)`` array of them as a float64 ``(n, dim)`` array, and
    whether one point was given, after checking that they are finite numbers (no bools,
    strings or objects)."""
    try:
        arr = reals(name, value, error=error)
    except error:
        arr = np.empty(0)
    if arr.ndim not in (1, 2) or arr.shape[-1] != dim:
        axes = "(x, y)" if dim == 2 else "(x, y, z)" if dim == 3 else f"{dim}-d"
        raise error(f"{name} {brief(value)} must be an {axes} point or an (n, {dim}) array "
                    "of numbers")
    if not np.isfinite(arr).all():
        raise error(f"{name} {brief(value)} must be finite (it holds NaN or infinity)")
    return np.ascontiguousarray(arr.reshape(-1, dim)), arr.ndim == 1


def xy(name: str, value: Any, *, error: type[Exception] = InvalidQueryError
       ) -> tuple[float, float]:
    """One finite ``(x, y)`` point as two floats: :func:`finite_point` with a fast path
    for a tuple or list of two Python or numpy floats (or int64-sized ints), for per-query
    use."""
    if (type(value) is tuple or type(value) is list) and len(value) == 2:
        x, y = value
        if type(x) in _PLAIN and type(y) in _PLAIN and -_BIG < x < _BIG and -_BIG < y < _BIG:
            return float(x), float(y)
    elif type(value) is np.ndarray and value.shape == (2,) and value.dtype.char == "d":
        x, y = value.tolist()
        if -math.inf < x < math.inf and -math.inf < y < math.inf:
            return x, y
    x, y = finite_point(name, value, error=error).tolist()
    return x, y


def allocation(what: str, size: float, *, limit: int = MAX_CELLS,
               error: type[Exception] = InvalidQueryError) -> None:
    """Refuse a build that would allocate ``size`` cells, samples or slots for ``what``
    when that is more than ``limit`` (:data:`MAX_CELLS` unless given), before it
    allocates anything."""
    if not size <= limit:       # NaN refused too
        which = "MAX_CELLS" if limit == MAX_CELLS else "MAX_PIECES" if limit == MAX_PIECES \
            else f"{limit:g}"
        raise error(f"{what} would need {size:.3g} cells, more than the {limit:.0e} a build "
                    f"may allocate (wayfinding._validate.{which})")
