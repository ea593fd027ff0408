"""Constraints on paths and the multiplier field they make.

A soft constraint ``Constraint(annotation, w)`` attracts (``w > 0``) or repels (``w < 0``):

* In (``near=False``): ``W_c(x) = w`` inside the annotation, 0 outside (a sharp edge);
* Near (``near=True``): ``W_c(x) = w · max(0, 1 - r(x) / |w|)`` with ``r(x)`` the distance
  to the annotation (0 inside): full weight inside, a linear fall-off to 0 at ``|w|`` world
  units outside (the influence radius is tied to the weight, as in the notes).

``w`` is a number or a callable ``t -> w`` (time of day, alert state...).  A hard
constraint, ``Constraint.hard(annotation)``, forbids the volume: "Not In" with w = -inf.

A :class:`ConstraintSet` adds the weights up into the multiplier field
``m(x) = max(1, 1.1 ** (W0 - Σ W_c(x)))``, infinite inside a hard constraint.  The base
weight ``W0`` (default: the sum of the positive weights) lifts the background so that
attractors lower the cost there and the multiplier never falls below 1: a path's cost is
never below its length, so a Euclidean heuristic stays admissible.  A transition ``a → b``
costs the mean of ``m`` at the 4 midpoint samples ``1/8, 3/8, 5/8, 7/8`` of the segment
times its base cost (default its length) — a Riemann sum of the path integral of ``m``, so
splitting a transition leaves its cost unchanged up to the sums' error — and is infinite
when the segment meets a hard constraint's volume (an exact test, not the samples).

>>> from wayfinding.constraints import Disc
>>> guard = Constraint(Disc((0, 0), 1.0), -5, near=True)
>>> ConstraintSet([guard]).multiplier([(0, 0), (3, 0), (7, 0)]).round(5).tolist()
[1.61051, 1.331, 1.0]
>>> ConstraintSet([Constraint.hard(Disc((5, 0), 1.0))]).transition_costs(
...     [(0, 0), (0, 0)], [(10, 0), (0, 3)]).tolist()
[inf, 3.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike

from .._validate import finite_float, flag, number, reals
from ..errors import InvalidQueryError, brief
from ..geometry.obstacles import TOLERANCE, as_points
from .annotations import Annotation

#: The base of the multiplier field: a weight of w scales costs by ``1.1 ** -w``.
BASE = 1.1
#: Where a transition's multiplier is sampled, as fractions of its length.
SAMPLES = (0.125, 0.375, 0.625, 0.875)
#: Transitions costed at once by :meth:`ConstraintSet.transition_costs` (memory bound).
_CHUNK_SEGMENTS = 1 << 18
#: The largest total weight ``|W0| + Σ |w|`` of a set: ``1.1 ** 7000`` is about 1e290, so
#: multipliers (and costs of transitions up to 1e18 long) stay finite.
_MAX_TOTAL = 7000.0

#: A weight: a number, or a callable from the time to a number.
Weight = float | Callable[[float], float]
#: ``(xmin, ymin, xmax, ymax)`` world units.
Box = tuple[float, float, float, float]


def _weight(value: Any, name: str) -> Weight:
    if callable(value):
        return value
    try:
        w = number(name, value)
    except InvalidQueryError:
        raise InvalidQueryError(f"{name} {brief(value)} must be a finite number or a callable "
                                "t -> weight") from None
    return _bounded(w, name)


def _bounded(w: float, name: str) -> float:
    if abs(w) > _MAX_TOTAL:
        raise InvalidQueryError(f"{name} {w:g} is beyond ±{_MAX_TOTAL:g}: the "
                                f"multiplier 1.1 ** |w| would overflow; use a hard "
                                "constraint to forbid a volume")
    return w


def _evaluate(value: Weight, name: str, t: float) -> float:
    if not callable(value):
        return value
    got = value(t)
    try:
        w = number(f"{name}(t={t:g})", got)
    except InvalidQueryError:
        raise InvalidQueryError(f"{name}(t={t:g}) returned {brief(got)}, not a finite "
                                "number") from None
    return _bounded(w, f"{name}(t={t:g})")


def _time(t: Any) -> float:
    return finite_float("t", t)


class Constraint:
    """A soft constraint on ``annotation`` with ``weight`` (w > 0 attracts, w < 0 repels):
    In (sharp edge) or, with ``near=True``, Near (linear fall-off over ``|w|`` world
    units).  ``weight`` is a finite number or a callable ``t -> w`` (checked when called).
    :meth:`hard` makes a hard one.

    >>> from wayfinding.constraints import Disc
    >>> c = Constraint(Disc((0, 0), 1.0), lambda t: 3.0 if t < 12 else -3.0, near=True)
    >>> c.weights([(2, 0)], t=0.0).tolist(), c.weights([(2, 0)], t=20.0).tolist()
    ([2.0], [-2.0])
    """

    def __init__(self, annotation: Annotation, weight: Weight, *, near: bool = False):
        if not isinstance(annotation, Annotation):
            raise InvalidQueryError(f"annotation {brief(annotation)} is not an Annotation")
        self._annotation = annotation
        self._weight = _weight(weight, "weight")
        self._near = flag("near", near)
        self._hard = False

    @classmethod
    def hard(cls, annotation: Annotation) -> Constraint:
        """A hard constraint: never enter ``annotation`` (transitions that meet it cost
        inf; its weight is -inf inside, 0 outside)."""
        out = cls(annotation, 0.0)
        out._hard = True
        out._weight = -math.inf
        return out

    @property
    def annotation(self) -> Annotation:
        return self._annotation

    @property
    def weight(self) -> Weight:
        """The weight as given: a number (-inf when hard) or a callable ``t -> w``."""
        return self._weight

    @property
    def near(self) -> bool:
        return self._near

    @property
    def is_hard(self) -> bool:
        return self._hard

    def weight_at(self, t: float) -> float:
        """The weight at time ``t`` (-inf when hard)."""
        return _evaluate(self._weight, "weight", _time(t))

    def with_annotation(self, annotation: Annotation) -> Constraint:
        """The same constraint (weight, preposition, hardness) on another annotation."""
        if self._hard:
            return Constraint.hard(annotation)
        return Constraint(annotation, self._weight, near=self._near)

    def weights(self, points: ArrayLike, *, t: float = 0.0) -> np.ndarray:
        """``(n,)`` float64: ``W_c`` at each point at time ``t`` (-inf inside a hard one)."""
        p = as_points(points, "points")
        return self._weights(p, self.weight_at(t))

    def _weights(self, p: np.ndarray, w: float) -> np.ndarray:
        out = np.zeros(len(p))
        box = self._box(w)
        if box is None:
            return out
        x0, y0, x1, y1 = box
        todo = np.flatnonzero((p[:, 0] >= x0) & (p[:, 0] <= x1) & (p[:, 1] >= y0)
                              & (p[:, 1] <= y1))
        if not len(todo):
            return out
        q = p[todo]
        if self._hard or not self._near:
            out[todo] = np.where(self._annotation.contains(q), w, 0.0)
        else:
            reach = abs(w)
            out[todo] = w * np.maximum(0.0, 1.0 - self._annotation.distance(q) / reach)
        return out

    def _box(self, w: float) -> Box | None:
        """Bounds of where ``W_c`` may be nonzero for weight ``w`` (None: nowhere)."""
        if w == 0 and not self._hard:
            return None
        grow = TOLERANCE + (abs(w) if self._near and not self._hard else 0.0)
        x0, y0, x1, y1 = self._annotation.bounds
        return (x0 - grow, y0 - grow, x1 + grow, y1 + grow)

    def __repr__(self) -> str:
        if self._hard:
            return f"Constraint.hard({self._annotation!r})"
        w = self._weight if callable(self._weight) else f"{self._weight:g}"
        return f"Constraint({self._annotation!r}, {w}, near={self._near})"


class ConstraintSet:
    """Active constraints and the multiplier field they make.

    ``constraints``: :class:`Constraint` objects (any mix of In, Near and hard); ``base``:
    the base weight W0, a number, a callable ``t -> W0`` or None for the default, the sum of
    the positive weights at the time asked (the conservative choice: the multiplier is >= 1
    wherever the attractors overlap).  A higher W0 lifts every cost and makes a distance
    heuristic less informed.  ``|W0| + Σ |w|`` must stay within 7000 (``1.1 ** 7000`` is
    about 1e290), so that no multiplier overflows: a weight beyond that is refused with
    :class:`~wayfinding.errors.InvalidQueryError` (when given, or for callables when
    evaluated).  Immutable.

    >>> from wayfinding.constraints import Disc
    >>> camp = Constraint(Disc((0, 0), 1.0), 3, near=True)
    >>> field = ConstraintSet([camp])
    >>> field.base_weight(), field.multiplier([(0, 0), (9, 9)]).round(3).tolist()
    (3.0, [1.0, 1.331])
    >>> ConstraintSet([camp], base=0).multiplier([(0, 0)]).tolist()   # clamped: no pull
    [1.0]
    """

    def __init__(self, constraints: Iterable[Constraint], *, base: Weight | None = None):
        items = tuple(constraints)
        for i, c in enumerate(items):
            if not isinstance(c, Constraint):
                raise InvalidQueryError(f"constraint {i} {brief(c)} is not a Constraint")
        self._constraints = items
        self._base = None if base is None else _weight(base, "base")
        if not any(callable(c.weight) for c in items if not c.is_hard) \
                and not callable(self._base):
            self._total(self._soft_weights(0.0), 0.0)

    @property
    def constraints(self) -> tuple[Constraint, ...]:
        return self._constraints

    @property
    def base(self) -> Weight | None:
        """The base weight as given (None: the sum of the positive weights)."""
        return self._base

    def __len__(self) -> int:
        return len(self._constraints)

    def __iter__(self) -> Iterator[Constraint]:
        return iter(self._constraints)

    @overload
    def __getitem__(self, index: int) -> Constraint: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Constraint, ...]: ...

    def __getitem__(self, index: int | slice) -> Constraint | tuple[Constraint, ...]:
        """A constraint by its place, or a tuple of them for a slice."""
        return self._constraints[index]

    def __repr__(self) -> str:
        base = "" if self._base is None else f", base={self._base}"
        return f"ConstraintSet({list(self._constraints)!r}{base})"

    def replaced(self, index: int, constraint: Constraint) -> ConstraintSet:
        """A copy with constraint ``index`` replaced by ``constraint`` (same base)."""
        if not isinstance(constraint, Constraint):
            raise InvalidQueryError(f"constraint {brief(constraint)} is not a Constraint")
        items = list(self._constraints)
        try:
            items[index] = constraint
        except (IndexError, TypeError):
            raise InvalidQueryError(f"index {brief(index)} is not one of the "
                                    f"{len(items)} constraints") from None
        return ConstraintSet(items, base=self._base)

    def base_weight(self, *, t: float = 0.0) -> float:
        """W0 at time ``t``: ``base`` if given, else the sum of the positive soft weights."""
        t = _time(t)
        return self._w0(self._soft_weights(t), t)

    def _soft_weights(self, t: float) -> list[tuple[Constraint, float]]:
        return [(c, c.weight_at(t)) for c in self._constraints if not c.is_hard]

    def _w0(self, soft: list[tuple[Constraint, float]], t: float) -> float:
        if self._base is not None:
            return _evaluate(self._base, "base", t)
        return float(sum(w for _, w in soft if w > 0))

    def _total(self, soft: list[tuple[Constraint, float]], t: float) -> float:
        """W0 at ``t``, after checking that ``|W0| + Σ |w|`` keeps the multiplier finite."""
        w0 = self._w0(soft, t)
        total = abs(w0) + sum(abs(w) for _, w in soft)
        if total > _MAX_TOTAL:
            raise InvalidQueryError(
                f"the weights at t={t:g} add up to {total:g} (|W0| + Σ|w|), beyond "
                f"{_MAX_TOTAL:g}: the multiplier 1.1 ** (W0 - ΣW) would overflow")
        return w0

    def weights(self, points: ArrayLike, *, t: float = 0.0) -> np.ndarray:
        """``(n,)`` float64: ``Σ W_c`` of the soft constraints at each point at time ``t``."""
        p = as_points(points, "points")
        return self._sum(p, self._soft_weights(_time(t)))

    @staticmethod
    def _sum(p: np.ndarray, soft: list[tuple[Constraint, float]]) -> np.ndarray:
        total = np.zeros(len(p))
        for c, w in soft:
            total += c._weights(p, w)
        return total

    def multiplier(self, points: ArrayLike, *, t: float = 0.0) -> np.ndarray:
        """``(n,)`` float64: ``max(1, 1.1 ** (W0 - Σ W_c))`` at each point at time ``t``,
        inf inside a hard constraint."""
        p = as_points(points, "points")
        t = _time(t)
        m = self._soft_multiplier(p, t)
        for c in self._constraints:
            if c.is_hard:
                m[c._weights(p, -math.inf) < 0] = np.inf
        return m

    def _soft_multiplier(self, p: np.ndarray, t: float) -> np.ndarray:
        soft = self._soft_weights(t)
        w0 = self._total(soft, t)
        with np.errstate(over="ignore"):        # r / |w| for a subnormal Near weight
            return np.power(BASE, np.maximum(w0 - self._sum(p, soft), 0.0))

    def transition_costs(self, a: ArrayLike, b: ArrayLike, base: ArrayLike | None = None, *,
                         t: float = 0.0) -> np.ndarray:
        """``(k,)`` float64: the cost of each transition ``a[i] → b[i]`` (``(k, 2)`` world
        points each) at time ``t``: the mean multiplier at the 4 samples times ``base[i]``
        (``(k,)``, finite, >= 0; default the segment lengths); inf where the segment meets
        a hard constraint's volume."""
        pa, pb = as_points(a, "a"), as_points(b, "b")
        if pa.shape != pb.shape:
            raise InvalidQueryError(f"a {pa.shape} and b {pb.shape} differ in shape")
        t = _time(t)
        if base is None:
            cost = np.hypot(*(pb - pa).T)
        else:
            cost = reals("base", base)
            if cost.shape != (len(pa),):
                raise InvalidQueryError(
                    f"base must have shape ({len(pa)},), one cost per transition, got "
                    f"{cost.shape}")
            bad = ~(np.isfinite(cost) & (cost >= 0))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise InvalidQueryError(f"base[{i}] = {float(cost[i])!r} must be finite and >= 0")
        frac = np.array(SAMPLES)
        out = np.empty(len(pa))
        for lo in range(0, len(pa), _CHUNK_SEGMENTS):
            sa, sb = pa[lo:lo + _CHUNK_SEGMENTS], pb[lo:lo + _CHUNK_SEGMENTS]
            pts = sa[None] + frac[:, None, None] * (sb - sa)[None]
            m = self._soft_multiplier(pts.reshape(-1, 2), t).reshape(len(frac), -1)
            out[lo:lo + len(sa)] = m.mean(axis=0) * cost[lo:lo + len(sa)]
        for c in self._constraints:
            if c.is_hard:
                out[c.annotation.crosses(pa, pb)] = np.inf
        return out

    def influence(self, *, t: float = 0.0) -> list[Box | None]:
        """Per constraint, in order, the bounds ``(xmin, ymin, xmax, ymax)`` of where it
        changes the field at time ``t`` (its annotation's bounds, grown by ``|w|`` for Near
        and by the tolerance), or None where it changes nothing (weight 0).  The region a
        repair must re-cost when the constraint moves is the union of its old and new
        bounds.  With the default base, an attractor's weight also sets W0, which shifts
        the whole field: changing it (or the time, for callable weights) changes every
        cost (see :meth:`base_weight`)."""
        t = _time(t)
        return [c._box(c.weight_at(t)) for c in self._constraints]
