"""Slot assignment: which member takes which slot of a formation.

``method="optimal"`` gives an assignment of least total distance (members to their slots,
Euclidean): ``scipy.optimize.linear_sum_assignment`` when scipy is installed, otherwise
the library's own shortest-augmenting-path Hungarian method (O(n³), exact).
``method="sorted"`` is the cheap O(n log n) heuristic: members and slots each sorted by
their projection on the heading (front first), then by their lateral position (left
first), and matched in that order.  It keeps ranks together but is *not* optimal.

With roles, a member takes only a slot of its own role: each role is assigned on its own
(which is optimal, as a slot of another role is out of bounds).

>>> slots = [[1.0, 0.0], [0.0, 0.0]]
>>> assign_slots([[0.0, 0.1], [1.0, 0.1]], slots).tolist()
[1, 0]
>>> assign_slots([[0.0, 0.1], [1.0, 0.1]], slots, roles=[0, 1], slot_roles=[0, 1]).tolist()
[0, 1]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import choice, reals
from ..errors import InvalidQueryError, brief
from .shapes import role_array, unit_heading

try:
    from scipy.optimize import linear_sum_assignment as _linear_sum_assignment
except ImportError:       # scipy is optional: the own solver below is exact too
    _linear_sum_assignment = None

METHODS = ("optimal", "sorted")


def _points(name: str, value: Any) -> np.ndarray:
    try:
        arr = reals(name, value)
    except InvalidQueryError:
        arr = np.empty(0)
    if arr.ndim != 2 or arr.shape[1] != 2 or not np.isfinite(arr).all():
        raise InvalidQueryError(f"{name} {brief(value)} must be a finite (n, 2) array")
    return arr


def _hungarian(cost: np.ndarray) -> np.ndarray:
    """For a square cost matrix ``(n, n)`` (finite floats), the column of each row in an
    assignment of least total cost: shortest augmenting paths with row and column
    potentials, O(n³)."""
    n = len(cost)
    u = np.zeros(n + 1)
    v = np.zeros(n + 1)
    match = np.zeros(n + 1, dtype=np.int64)     # match[j]: the row (1-based) on column j
    way = np.zeros(n + 1, dtype=np.int64)
    for i in range(1, n + 1):
        match[0] = i
        j0 = 0
        minv = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = match[j0]
            free = ~used[1:]
            reduced = cost[i0 - 1] - u[i0] - v[1:]
            better = free & (reduced < minv[1:])
            minv[1:][better] = reduced[better]
            way[1:][better] = j0
            masked = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(masked)) + 1
            delta = masked[j1 - 1]
            u[match[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
    col = np.empty(n, dtype=np.int64)
    col[match[1:] - 1] = np.arange(n)
    return col


def _optimal(members: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """Member index per slot minimising the total distance."""
    cost = np.hypot(slots[:, None, 0] - members[None, :, 0],
                    slots[:, None, 1] - members[None, :, 1])
    if _linear_sum_assignment is not None:
        rows, cols = _linear_sum_assignment(cost)
        out = np.empty(len(slots), dtype=np.int64)
        out[rows] = cols
        return out
    return _hungarian(cost)


def _order(points: np.ndarray, h: np.ndarray) -> np.ndarray:
    forward = points @ h
    left = points @ np.array([-h[1], h[0]])
    return np.lexsort((-left, -forward))         # front first, then left first


def assign_slots(positions: ArrayLike, slots: ArrayLike, *, roles: ArrayLike | None = None,
                 slot_roles: ArrayLike | None = None, method: str = "optimal",
                 heading: ArrayLike = (1.0, 0.0)) -> np.ndarray:
    """The member (a row of ``positions``) that takes each slot: ``(n,)`` int64, one per
    row of ``slots``; each member takes exactly one slot.

    ``positions`` and ``slots``: ``(n, 2)`` world points (as many members as slots: fit
    the shape first, :meth:`~wayfinding.groups.FormationShape.fit`).  ``roles`` and
    ``slot_roles``: ``(n,)`` ints (default all 0); each role must have as many members as
    slots.  ``method``: ``"optimal"`` (least total distance) or ``"sorted"`` (the O(n log n)
    heuristic along ``heading``, a nonzero ``(x, y)`` vector); see the module's notes.
    """
    p = _points("positions", positions)
    s = _points("slots", slots)
    method = choice("method", method, METHODS)
    h = unit_heading(heading)
    n = len(s)
    if len(p) != n:
        raise InvalidQueryError(f"{len(p)} members cannot take {n} slots one each: fit the "
                                "shape to the members first")
    r = role_array("roles", roles, n)
    sr = role_array("slot_roles", slot_roles, n)
    # Both scaled by one power of two into [-1, 1], which changes no choice, so that no
    # distance or projection overflows (nor rounds among subnormals) however far out they are.
    top = max(np.abs(p).max(initial=0.0), np.abs(s).max(initial=0.0))
    if top > 0:
        p, s = np.ldexp(p, -math.frexp(top)[1]), np.ldexp(s, -math.frexp(top)[1])
    out = np.empty(n, dtype=np.int64)
    for role in np.unique(np.concatenate([r, sr])):
        who, where = np.flatnonzero(r == role), np.flatnonzero(sr == role)
        if len(who) != len(where):
            raise InvalidQueryError(f"role {role} has {len(who)} members but {len(where)} "
                                    "slots; each role needs as many members as slots")
        if method == "optimal":
            out[where] = who[_optimal(p[who], s[where])]
        else:
            out[where[_order(s[where], h)]] = who[_order(p[who], h)]
    return out
