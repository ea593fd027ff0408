"""Formation shapes: slot offsets in the formation's frame (+x forward, +y left, world
units), a role per slot, and slot-count matching as members join and leave.

The parametric shapes (line, column, wedge, box, circle, abreast) are centred on the middle
of their slots' bounding box and are generated afresh for any slot count by
:meth:`FormationShape.fit` in O(n).  A user shape (:meth:`FormationShape.from_offsets`)
lists its slots from the most to the least important: fitting it to fewer slots drops
the last ones; fitting it to more repeats the whole pattern behind itself, one
``spacing`` behind its rearmost slot each time.  Roles follow the slots: the slot that
repeats slot ``i`` takes its role.  A fitted user shape is a new pattern: fit the
original each time (as :class:`~wayfinding.groups.AgentGroup` does) so slots dropped when
members left come back when others join.

>>> w = FormationShape.wedge(5, spacing=2.0)
>>> w.offsets.tolist()
[[2.0, 0.0], [0.0, 2.0], [0.0, -2.0], [-2.0, 4.0], [-2.0, -4.0]]
>>> w.extent
(4.0, 2.0)
>>> w.fit(3).offsets.tolist()
[[1.0, 0.0], [-1.0, 2.0], [-1.0, -2.0]]
>>> FormationShape.line(2).world_slots((10.0, 0.0), (0.0, 1.0)).tolist()
[[9.0, 0.0], [11.0, 0.0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, count, finite_point, positive_float, reals
from ..errors import InvalidQueryError, brief
from ..results import _fields_equal

#: The kinds of shape :meth:`FormationShape.fit` can generate for any slot count.
KINDS = ("line", "column", "wedge", "box", "circle", "abreast", "user")


def unit_heading(heading: Any, *, name: str = "heading") -> np.ndarray:
    """``heading`` (a nonzero finite ``(x, y)`` vector) scaled to length 1."""
    try:
        h = finite_point(name, heading)
    except InvalidQueryError:
        h = np.zeros(2)
    norm = math.hypot(h[0], h[1])
    if norm == 0.0:
        raise InvalidQueryError(f"{name} {brief(heading)} must be a nonzero finite (x, y) "
                                "vector")
    return h / norm


def to_world(offsets: np.ndarray, position: Any, heading: Any) -> np.ndarray:
    """Offsets ``(n, 2)`` in a frame at ``position`` facing ``heading`` as world points;
    InvalidQueryError where one lies past the largest float."""
    p = finite_point("position", position)
    h = unit_heading(heading)
    with np.errstate(over="ignore", invalid="ignore"):
        out = p + offsets[:, :1] * h + offsets[:, 1:] * np.array([-h[1], h[0]])
    if not np.isfinite(out).all():
        raise InvalidQueryError(f"position {brief(position)}: the formation's slots about it "
                                "lie past the largest float")
    return out


def _centred(offsets: np.ndarray) -> np.ndarray:
    if len(offsets):
        offsets -= (offsets.max(axis=0) + offsets.min(axis=0)) / 2
    return offsets + 0.0        # no -0.0


# The shapes below are laid out at unit spacing, then scaled.


def _line(n: int) -> np.ndarray:
    return np.column_stack([np.zeros(n), (n - 1) / 2 - np.arange(n)])


def _grid(n: int, width: int) -> np.ndarray:
    """Ranks of ``width`` slots side by side, left to right, front rank first; the last
    rank centred."""
    i = np.arange(n)
    rank, file = i // width, i % width
    in_rank = np.minimum(width, n - rank * width)
    return np.column_stack([-rank, (in_rank - 1) / 2 - file]).astype(np.float64)


def _wedge(n: int) -> np.ndarray:
    i = np.arange(n)
    rank = (i + 1) // 2
    side = np.where(i % 2 == 1, 1.0, -1.0)
    return np.column_stack([-rank, np.where(i == 0, 0.0, side * rank)])


def _circle(n: int) -> np.ndarray:
    if n == 1:
        return np.zeros((1, 2))
    r = 1 / (2 * math.sin(math.pi / n))           # neighbours on the circle 1 apart
    a = 2 * math.pi * np.arange(n) / n
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def _abreast(n: int, bend: float) -> np.ndarray:
    line = _line(n)
    half = max((n - 1) / 2, 1.0)
    with np.errstate(over="ignore"):
        line[:, 0] = bend * (line[:, 1] / half) ** 2       # the ends ahead of the middle
    return line


def _generate(kind: str, n: int, s: float, params: tuple) -> np.ndarray:
    """The slots of a parametric shape: centred at unit spacing, then scaled by ``s``, so
    that no intermediate overflows; InvalidQueryError where a slot lies past the largest
    float."""
    if kind == "line":
        out = _line(n)
    elif kind == "column":
        out = _grid(n, params[0])
    elif kind == "box":
        out = _grid(n, params[0] or max(1, math.ceil(math.sqrt(n))))
    elif kind == "wedge":
        out = _wedge(n)
    elif kind == "circle":
        out = _circle(n)
    else:
        out = _abreast(n, params[0])
    with np.errstate(over="ignore", invalid="ignore"):
        out = _centred(out) * s + 0.0       # no -0.0
    if not np.isfinite(out).all():
        raise InvalidQueryError(f"spacing {s:g}: the {kind} shape of {n} slots spans more "
                                "than the largest float")
    return out


def role_array(name: str, value: Any, n: int) -> np.ndarray:
    """``n`` integer roles as int64 (all 0 for None); a clear error otherwise."""
    if value is None:
        return np.zeros(n, dtype=np.int64)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):     # ragged sequences
        arr = np.empty(0, dtype=object)
    if arr.shape != (n,) or arr.dtype.kind not in "iu":
        raise InvalidQueryError(f"{name} {brief(value)} must be {n} integers")
    return arr.astype(np.int64)


@dataclass(frozen=True, eq=False)
class FormationShape:
    """Slots of a formation in its own frame.

    ``offsets``: ``(n, 2)`` float64, each slot's (forward, left) offset from the formation's
    reference point (world units); ``roles``: ``(n,)`` int64, each slot's role (members take
    only slots of their role, see :func:`~wayfinding.groups.assign_slots`); ``spacing``:
    the distance between neighbouring slots the shape was made with; ``kind``: one of
    :data:`KINDS`; ``params``: the kind's own parameters (for :meth:`fit`).  Build one with
    the constructors below rather than directly.
    """

    offsets: np.ndarray
    roles: np.ndarray
    spacing: float
    kind: str = field(default="user", kw_only=True)
    params: tuple = field(default=(), kw_only=True)

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        self.offsets.flags.writeable = False
        self.roles.flags.writeable = False

    def __len__(self) -> int:
        return len(self.offsets)

    @property
    def extent(self) -> tuple[float, float]:
        """``(half_width, half_length)``: the largest lateral and forward-or-back distance
        of a slot from the reference point (slots only: add the members' radius)."""
        if not len(self.offsets):
            return 0.0, 0.0
        a = np.abs(self.offsets).max(axis=0)
        return float(a[1]), float(a[0])

    @property
    def bulk_radius(self) -> float:
        """The radius of the disc about the reference point that holds every slot (add the
        members' radius for the disc that holds them)."""
        if not len(self.offsets):
            return 0.0
        return float(np.hypot(self.offsets[:, 0], self.offsets[:, 1]).max())

    def world_slots(self, position: ArrayLike, heading: ArrayLike) -> np.ndarray:
        """The slots as ``(n, 2)`` world points for the formation at ``position`` facing
        ``heading`` (a nonzero ``(x, y)`` vector, any length)."""
        return to_world(self.offsets, position, heading)

    def fit(self, n: int) -> FormationShape:
        """This shape with exactly ``n`` slots (``n >= 1``): a parametric shape generated
        afresh, a user shape cut or repeated (see the module's notes), in O(n)."""
        n = count("n", n)
        allocation(f"a formation of {n} slots", n)
        m = len(self.offsets)
        roles = self.roles[np.arange(n) % m]
        if self.kind != "user":
            return FormationShape(_generate(self.kind, n, self.spacing, self.params), roles,
                                  self.spacing, kind=self.kind, params=self.params)
        if n <= m:
            return FormationShape(self.offsets[:n].copy(), roles, self.spacing)
        i = np.arange(n)
        with np.errstate(over="ignore", invalid="ignore"):
            depth = self.offsets[:, 0].max() - self.offsets[:, 0].min() + self.spacing
            offsets = self.offsets[i % m] - np.column_stack([(i // m) * depth, np.zeros(n)])
        if not np.isfinite(offsets).all():
            raise InvalidQueryError(f"n {n}: the shape's copies, one behind another, reach "
                                    "past the largest float")
        return FormationShape(offsets, roles, self.spacing)

    @classmethod
    def _make(cls, kind: str, n: int, spacing: float, roles: Any, params: tuple = ()
              ) -> FormationShape:
        n = count("n", n)
        allocation(f"a formation of {n} slots", n)
        s = positive_float("spacing", spacing)
        return cls(_generate(kind, n, s, params), role_array("roles", roles, n), s, kind=kind,
                   params=params)

    @classmethod
    def line(cls, n: int, *, spacing: float = 2.0, roles: ArrayLike | None = None
             ) -> FormationShape:
        """``n`` slots side by side across the heading, ``spacing`` apart, left to right."""
        return cls._make("line", n, spacing, roles)

    @classmethod
    def column(cls, n: int, *, spacing: float = 2.0, files: int = 1,
               roles: ArrayLike | None = None) -> FormationShape:
        """``n`` slots in ``files`` files (``>= 1``; 1: single file), one rank behind the
        other, ``spacing`` apart; the last rank centred."""
        return cls._make("column", n, spacing, roles, (count("files", files),))

    @classmethod
    def wedge(cls, n: int, *, spacing: float = 2.0, roles: ArrayLike | None = None
              ) -> FormationShape:
        """A V: slot 0 at the point, then one slot left and one right per rank behind,
        each rank ``spacing`` back and ``spacing`` further out."""
        return cls._make("wedge", n, spacing, roles)

    @classmethod
    def box(cls, n: int, *, spacing: float = 2.0, columns: int | None = None,
            roles: ArrayLike | None = None) -> FormationShape:
        """Ranks of ``columns`` slots (default ``ceil(sqrt(n))``, kept as the shape is fitted
        when given), ``spacing`` apart both ways; the last rank centred."""
        c = 0 if columns is None else count("columns", columns)
        return cls._make("box", n, spacing, roles, (c,))

    @classmethod
    def circle(cls, n: int, *, spacing: float = 2.0, roles: ArrayLike | None = None
               ) -> FormationShape:
        """``n`` slots on a circle, neighbours ``spacing`` apart, slot 0 straight ahead,
        the rest counter-clockwise (one slot: at the centre)."""
        return cls._make("circle", n, spacing, roles)

    @classmethod
    def abreast(cls, n: int, *, spacing: float = 1.0, bend: float = 0.5,
                roles: ArrayLike | None = None) -> FormationShape:
        """Walking abreast, as social groups do: side by side ``spacing`` apart, the two
        ends ``bend * spacing`` ahead of the middle on a parabola (a U open to the front,
        so the walkers see one another; ``bend`` 0 is a line)."""
        b = positive_float("bend", bend, allow_zero=True)
        return cls._make("abreast", n, spacing, roles, (b,))

    @classmethod
    def from_offsets(cls, offsets: ArrayLike, *, roles: ArrayLike | None = None,
                     spacing: float = 2.0) -> FormationShape:
        """A user shape: ``offsets`` ``(n, 2)`` (forward, left) as given (not recentred),
        most important slot first; ``spacing``: the gap :meth:`fit` leaves between copies
        of the pattern."""
        try:
            arr = np.array(reals("offsets", offsets))
        except InvalidQueryError:
            arr = np.empty(0)
        if arr.ndim != 2 or arr.shape[1] != 2 or not len(arr) or not np.isfinite(arr).all():
            raise InvalidQueryError(f"offsets {brief(offsets)} must be a finite (n, 2) array "
                                    "with n >= 1")
        return cls(arr, role_array("roles", roles, len(arr)), positive_float("spacing", spacing))
