"""Formation slots that follow a path (Bjøre's Column and Band moves): the first row stays a
straight line across the formation's heading, centred on its position; the rows behind
follow it.

- **Column**: each slot moves towards the slot ahead of it in its column until it is
  ``spacing`` behind it.  Columns stay connected; rows bend.
- **Band**: each row turns as a whole.  Its inner unit (left on a left turn, y up) moves
  towards the unit ahead of it until ``spacing`` behind; the others line up beside it,
  ``spacing`` apart, across the row's new heading.  Rows stay straight.

Slots are targets for the units, not their positions: a unit can leave its slot and path
back to it.

>>> f = Formation(rows=3, columns=2, spacing=1.0, style="column")
>>> f.slots.shape
(3, 2, 2)
>>> f.advance((5.0, 0.0), step=0.5).slots[0].tolist()    # the front row, heading +x
[[0.5, 0.5], [0.5, -0.5]]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, choice, count, finite_point, finite_points, positive_float
from ..errors import InvalidQueryError

STYLES = ("column", "band")


class Formation:
    """``rows`` x ``columns`` slots ``spacing`` apart, at ``position`` facing ``heading``
    (y up; column 0 is on the left).  ``slots``: ``(rows, columns, 2)``."""

    def __init__(self, rows: int, columns: int, spacing: float, *, style: str = "column",
                 position: ArrayLike = (0.0, 0.0), heading: ArrayLike = (1.0, 0.0)):
        rows, columns = count("rows", rows), count("columns", columns)
        allocation(f"a formation of {rows} x {columns} slots", rows * columns)
        self.spacing = positive_float("spacing", spacing)
        self.style = choice("style", style, STYLES)
        self.position = finite_point("position", position)
        h = np.asarray(heading, dtype=np.float64)
        if h.shape != (2,) or not np.isfinite(h).all() or not np.any(h):
            raise InvalidQueryError(f"heading {heading!r} must be a nonzero (x, y) vector")
        self.heading = h / np.linalg.norm(h)
        back = -self.heading * self.spacing
        row = self._front_row(columns)
        self.slots = np.stack([row + k * back for k in range(rows)])

    def _front_row(self, columns: int | None = None) -> np.ndarray:
        n = self.slots.shape[1] if columns is None else columns
        left = np.array([-self.heading[1], self.heading[0]])
        offsets = ((n - 1) / 2 - np.arange(n)) * self.spacing
        return self.position + offsets[:, None] * left

    def advance(self, target: ArrayLike, step: float) -> Formation:
        """Move the formation up to ``step`` towards ``target`` (turning to face it), then
        let the rows behind follow by the chosen style.  Returns self."""
        t = finite_point("target", target)
        step = positive_float("step", step, allow_zero=True)
        d = t - self.position
        dist = float(np.linalg.norm(d))
        if dist > 0:
            self.heading = d / dist
            self.position = self.position + self.heading * min(step, dist)
        self.slots[0] = self._front_row()
        for k in range(1, len(self.slots)):
            self.slots[k] = _column(self.slots[k - 1], self.slots[k], self.spacing) \
                if self.style == "column" else \
                _band(self.slots[k - 1], self.slots[k], self.spacing, self.heading)
        return self

    def follow(self, path: ArrayLike, step: float) -> list[np.ndarray]:
        """Advance along a polyline by ``step`` per update to its end; returns the slots
        after each update."""
        pts, _ = finite_points("path", path)
        step = positive_float("step", step)
        hops = np.diff(np.vstack([self.position, pts]), axis=0)
        updates = float(np.hypot(hops[:, 0], hops[:, 1]).sum()) / step + len(pts)
        allocation(f"{updates:.3g} updates of {self.slots.size // 2} slots",
                   updates * (self.slots.size // 2))
        frames = []
        for p in pts:
            while np.linalg.norm(p - self.position) > 1e-12:
                frames.append(self.advance(p, step).slots.copy())
        return frames


def _column(ahead: np.ndarray, row: np.ndarray, spacing: float) -> np.ndarray:
    d = ahead - row
    dist = np.linalg.norm(d, axis=1, keepdims=True)
    unit = np.divide(d, dist, out=np.zeros_like(d), where=dist > 0)
    return ahead - unit * spacing


def _band(ahead: np.ndarray, row: np.ndarray, spacing: float,
          heading: np.ndarray) -> np.ndarray:
    n = len(row)
    move = (ahead - row).mean(axis=0)
    if not np.any(move):
        return row.copy()
    move = move / np.linalg.norm(move)
    right = np.array([move[1], -move[0]])        # the row's right-hand perpendicular
    out = np.empty_like(row)
    # The row turns right when the front moves to its right: anchor its rightmost unit.
    if float(np.dot(heading, right)) > 0:
        order, offset = list(range(n - 1, -1, -1)), -right * spacing
    else:
        order, offset = list(range(n)), right * spacing
    first = order[0]
    out[first] = _column(ahead[first:first + 1], row[first:first + 1], spacing)[0]
    for prev, c in zip(order, order[1:]):
        out[c] = out[prev] + offset
    return out
