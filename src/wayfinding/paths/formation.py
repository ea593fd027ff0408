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

A formation with a minimum turning radius reaches a pose (a position and a heading) along
the shortest Dubins path (:func:`~wayfinding.paths.turning_path`): :meth:`Formation.path_to`
finds it, :meth:`Formation.follow` moves the front row along it, facing the path's tangent.

>>> f = Formation(rows=3, columns=2, spacing=1.0, style="column")
>>> f.slots.shape
(3, 2, 2)
>>> f.advance((5.0, 0.0), step=0.5).slots[0].tolist()    # the front row, heading +x
[[0.5, 0.5], [0.5, -0.5]]
>>> path = f.path_to((0.5, 6.0), (-1.0, 0.0), radius=2.0)     # turn round to the left
>>> path.word, len(f.follow(path, step=0.5)) > 0, f.heading.round(9).tolist()
('LSL', True, [-1.0, 0.0])
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, choice, count, finite_point, finite_points, positive_float
from ..errors import InvalidQueryError
from .turning import SIDES, TurningPath, _unit, turning_path

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
        self.heading = _unit(heading, "heading")
        back = -self.heading * self.spacing
        row = self._front_row(columns)
        self.slots = np.stack([row + k * back for k in range(rows)])

    def _front_row(self, columns: int | None = None) -> np.ndarray:
        n = self.slots.shape[1] if columns is None else columns
        left = np.array([-self.heading[1], self.heading[0]])
        offsets = ((n - 1) / 2 - np.arange(n)) * self.spacing
        return self.position + offsets[:, None] * left

    def advance(self, target: ArrayLike, step: float) -> Formation:
        """Move the formation up to ``step`` towards ``target`` (turning to face it; onto it
        exactly when it is no farther), then let the rows behind follow by the chosen
        style.  Returns self."""
        t = finite_point("target", target)
        step = positive_float("step", step, allow_zero=True)
        d = t - self.position
        dist = math.hypot(d[0], d[1])     # no square to overflow or underflow
        if dist > 0:
            self.heading = d / dist
            self.position = t.copy() if step >= dist else self.position + self.heading * step
        return self._pull_rows()

    def _pull_rows(self) -> Formation:
        """Place the front row at the position across the heading; the rows behind follow."""
        self.slots[0] = self._front_row()
        for k in range(1, len(self.slots)):
            self.slots[k] = _column(self.slots[k - 1], self.slots[k], self.spacing) \
                if self.style == "column" else \
                _band(self.slots[k - 1], self.slots[k], self.spacing, self.heading)
        return self

    def path_to(self, target: ArrayLike, heading: ArrayLike, radius: float) -> TurningPath:
        """The shortest forward path (one of the six Dubins words) from the formation's
        position and heading to ``target`` facing ``heading`` that never turns tighter than
        ``radius`` (world units, > 0); :meth:`follow` moves the formation along it."""
        return turning_path(self.position, self.heading, target, heading, radius)

    def follow(self, path: ArrayLike | TurningPath, step: float) -> list[np.ndarray]:
        """Advance along ``path`` by ``step`` per update to its end; returns the slots after
        each update.  ``path``: an ``(n, 2)`` polyline (the formation turns to face each
        point in turn), or a :class:`~wayfinding.paths.TurningPath` starting at the
        formation's pose (the front row's centre runs along the curve facing its tangent, and
        ends at the path's goal facing its goal heading)."""
        if isinstance(path, TurningPath):
            return self._follow_turning(path, step)
        pts, _ = finite_points("path", path)
        step = positive_float("step", step)
        hops = np.diff(np.vstack([self.position, pts]), axis=0)
        updates = float(np.hypot(hops[:, 0], hops[:, 1]).sum()) / step + len(pts)
        allocation(f"{updates:.3g} updates of {self.slots.size // 2} slots",
                   updates * (self.slots.size // 2))
        frames = []
        for p in pts:
            # ceil(hop / step) updates, the last onto the point itself (however the
            # steps before it rounded, at any scale)
            for left in range(math.ceil(math.hypot(*(p - self.position)) / step), 0, -1):
                reach = step if left > 1 else max(step, math.hypot(*(p - self.position)))
                frames.append(self.advance(p, reach).slots.copy())
        return frames

    def _follow_turning(self, path: TurningPath, step: float) -> list[np.ndarray]:
        step = positive_float("step", step)
        if math.hypot(*(path.start - self.position)) > 1e-9 * max(1.0, path.radius) or \
                float(np.dot(_heading_at(path, 0.0), self.heading)) < 1 - 1e-9:
            raise InvalidQueryError(
                f"the turning path starts at {path.start.tolist()} facing "
                f"{_heading_at(path, 0.0).tolist()}, not at the formation's pose "
                f"{self.position.tolist()} facing {self.heading.tolist()}")
        updates = math.ceil(path.length / step)
        allocation(f"{updates} updates of {self.slots.size // 2} slots",
                   updates * (self.slots.size // 2))
        frames = []
        for k in range(1, updates + 1):
            s = path.length * k / updates
            self.position, self.heading = _position_at(path, s), _heading_at(path, s)
            frames.append(self._pull_rows().slots.copy())
        if updates:      # exactly the goal pose, not its rounded evaluation
            self.position = path.goal.copy()
            self.heading = _heading_at(path, path.length)
            frames[-1] = self._pull_rows().slots.copy()
        return frames


def _piece(path: TurningPath, s: float) -> tuple[int, float]:
    """The piece (0, 1 or 2) of ``path`` at arc length ``s`` and the length along it."""
    lengths = [path.radius * path.arcs[0],
               path.radius * path.arcs[1] if path.word[1] != "S"
               else math.hypot(*(path.enter - path.exit)),
               path.radius * path.arcs[-1]]
    for k in range(2):
        if s <= lengths[k]:
            return k, s
        s -= lengths[k]
    return 2, min(s, lengths[2])


def _piece_start(path: TurningPath, k: int) -> np.ndarray:
    return (path.start, path.exit, path.enter)[k]


def _position_at(path: TurningPath, s: float) -> np.ndarray:
    """The point of ``path`` at arc length ``s``."""
    k, u = _piece(path, s)
    a = _piece_start(path, k)
    if k == 1 and path.word[1] == "S":
        d = path.enter - path.exit
        n = math.hypot(*d)
        return a + d * (u / n) if n > 0 else a.copy()
    c = path.centres[min(k, len(path.centres) - 1)]
    turn = SIDES[path.word[k]] * u / path.radius
    rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    return c + rot @ (a - c)


def _heading_at(path: TurningPath, s: float) -> np.ndarray:
    """The unit tangent of ``path`` at arc length ``s``."""
    k, _ = _piece(path, s)
    if k == 1 and path.word[1] == "S":
        d = path.enter - path.exit
        n = math.hypot(*d)
        if n > 0:
            return d / n
        k = 2          # an empty segment: the heading where the last arc begins
    c = path.centres[min(k, len(path.centres) - 1)]
    r = _position_at(path, s) - c
    side = SIDES[path.word[k]]
    return side * np.array([-r[1], r[0]]) / path.radius

def _column(ahead: np.ndarray, row: np.ndarray, spacing: float) -> np.ndarray:
    d = ahead - row
    dist = np.hypot(d[:, :1], d[:, 1:])         # no square to overflow
    unit = np.divide(d, dist, out=np.zeros_like(d), where=dist > 0)
    return ahead - unit * spacing


def _band(ahead: np.ndarray, row: np.ndarray, spacing: float,
          heading: np.ndarray) -> np.ndarray:
    n = len(row)
    move = (ahead - row).mean(axis=0)
    if not np.any(move):
        return row.copy()
    move = move / math.hypot(*move)
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
