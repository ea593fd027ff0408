"""Flow fields: which way to go from every cell, read off an integration field.

Each cell stores one byte (:attr:`FlowField.codes`): the index (0-7, in the order of
:data:`wayfinding.grid.rules.DIRECTIONS`) of the legal step to the neighbour with the lowest
field value, when that value is below the cell's own; :data:`NONE` on walls and unreachable
cells.  A cell no neighbour is lower than is :data:`GOAL` if it is one of the field's goals;
any other such cell points along cells of its value to the nearest whose way down leads to a
goal, and where none does (a pit of a given field) is :data:`NONE`.  Because every step goes
strictly down, following the codes from any reachable cell of a built field ends at a goal:
no dead ends, no loops; in a given field with pits, descents that end in a pit reach no goal.
:attr:`FlowField.vectors` are continuous unit directions (the upwind gradient), and
:meth:`FlowField.sample` interpolates them bilinearly at any position, for agents between
cell centres.  Several sources make a multi-destination field; :meth:`FlowField.destinations`
says which one each cell leads to.

>>> from wayfinding.grid import Grid
>>> grid = Grid.from_ascii('''
... .....
... .###.
... .....''')
>>> flow = FlowField.build(grid, [(3, 2)])
>>> flow.descend((0, 0)).tolist()
[[0, 0], [0, 1], [0, 2], [1, 2], [2, 2], [3, 2]]
>>> flow.sample([(0.0, 0.5)]).round(3).tolist()      # between two cells, heading down
[[0.0, 1.0]]
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import allocation, choice, count, finite_points, flag, positive_float, reals
from ..errors import InvalidQueryError
from ..grid.grid import Grid
from ..grid.rules import DIRECTIONS
from .integration import dijkstra_field, eikonal_field, visible_cells

#: Code of a cell with no lower neighbour (a goal).
GOAL = 8
#: Code of a wall or an unreachable cell.
NONE = 255

_STEPS = np.array(DIRECTIONS, dtype=np.int64)                  # (8, 2) dx, dy
_UNIT = _STEPS / np.hypot(_STEPS[:, 0], _STEPS[:, 1])[:, None]
_DIRECTION_INDEX = {step: d for d, step in enumerate(DIRECTIONS)}


class FlowField:
    """The flow of ``field`` (``(H, W)``, e.g. from :func:`eikonal_field`; ``inf`` where
    unreachable; its finite values less than the largest float apart) over ``grid``, whose
    diagonal rule decides which steps are legal, towards ``goals`` (``(x, y)`` passable
    cells where the flow may end; by default the cells of the field's lowest value, the
    sources of an integration field)."""

    def __init__(self, grid: Grid, field: Any, *, goals: ArrayLike | None = None):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"expected a Grid, got {type(grid).__name__}")
        values = reals("field", field)
        if values.shape != grid.shape:
            raise InvalidQueryError(f"field has shape {values.shape}, the grid {grid.shape}")
        if np.isnan(values).any() or (values == -np.inf).any():
            raise InvalidQueryError("field values must not be NaN or -inf")
        self.grid = grid
        self.field = np.where(grid.passable, values, np.inf)
        reach = np.isfinite(self.field)
        with np.errstate(over="ignore"):      # differences of the field must be finite
            span = float(np.ptp(self.field[reach])) if reach.any() else 0.0
        if not math.isfinite(span):
            raise InvalidQueryError("field values must span less than the largest float "
                                    f"(they run from {self.field[reach].min():g} to "
                                    f"{self.field[reach].max():g})")
        if goals is None:
            sinks = reach & (self.field == (self.field[reach].min() if reach.any() else 0.0))
        else:
            sinks = np.zeros(grid.shape, dtype=bool)
            for x, y in grid.cells(goals, name="goal", passable=True):
                if not reach[y, x]:
                    raise InvalidQueryError(f"goal {(x, y)} has no finite field value")
                sinks[y, x] = True
        self.codes = _codes(grid, self.field)
        _level_out(self, sinks)
        #: Cells that see the goal (:meth:`build` with ``los=True``), else None.
        self.visible: np.ndarray | None = None
        self._goal: tuple[int, int] | None = None

    @classmethod
    def build(cls, grid: Grid, goals: ArrayLike, *, method: str = "eikonal", order: int = 2,
              limit: float = math.inf, los: bool = False) -> FlowField:
        """The flow towards the nearest of ``goals`` (``(x, y)`` cells): ``method``
        ``"eikonal"`` (fast marching of ``order`` 1 or 2) or ``"dijkstra"``.  ``los``
        (eikonal, one goal): the line-of-sight pass; cells that see the goal
        (:attr:`visible`) point straight at it.

        Every cell a path reaches (within ``limit``) flows to a goal: cells that fast
        marching, which spreads across cell sides, cannot reach (linked only corner to
        corner under the ``always`` or ``allow_one_blocked`` rule) get the cheapest way on
        over the grid's steps, and where steps add nothing to the field (costs far below
        its rounding) cells of one value point along them to a way down."""
        los = flag("los", los)
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"expected a Grid, got {type(grid).__name__}")
        choice("method", method, ("eikonal", "dijkstra"))
        goals = grid.cells(goals, name="goal", passable=True)
        if method == "dijkstra":
            if los:
                raise InvalidQueryError("the line-of-sight pass goes with method='eikonal'")
            return cls(grid, dijkstra_field(grid, goals, limit=limit), goals=goals)
        field = eikonal_field(grid, goals, order=order, limit=limit, los=los)
        flow = _settled(grid, field, goals, limit)
        if los:
            flow._goal = goals[0]
            flow.visible = visible_cells(grid, flow._goal) & np.isfinite(flow.field)
        return flow

    @property
    def nbytes(self) -> int:
        """Bytes of the direction codes (one per cell)."""
        return self.codes.nbytes

    def step(self, cell: Any) -> tuple[int, int] | None:
        """The next cell from ``cell``; None at a goal, a wall or an unreachable cell."""
        x, y = self.grid.cell(cell)
        code = int(self.codes[y, x])
        if code >= GOAL:
            return None
        dx, dy = DIRECTIONS[code]
        return x + dx, y + dy

    def descend(self, cell: Any) -> np.ndarray:
        """The cells from ``cell`` to the goal it flows to, as an ``(n, 2)`` array; empty
        when ``cell`` is a wall or cannot reach a goal (or flows into a pit)."""
        x, y = self.grid.cell(cell)
        path = [(x, y)]
        while self.codes[y, x] < GOAL:
            dx, dy = DIRECTIONS[self.codes[y, x]]
            x, y = x + dx, y + dy
            path.append((x, y))
        if self.codes[y, x] == NONE:
            return np.empty((0, 2), dtype=np.int64)
        return np.array(path, dtype=np.int64)

    def destinations(self) -> np.ndarray:
        """``(H, W)`` int64: the flat index ``y * W + x`` of the goal each cell flows to
        (-1 on walls and unreachable cells, and where the flow ends in a pit)."""
        h, w = self.grid.shape
        codes = self.codes.ravel()
        here = np.arange(h * w)
        moving = codes < GOAL
        nxt = here.copy()
        nxt[moving] = here[moving] + _STEPS[codes[moving], 1] * w + _STEPS[codes[moving], 0]
        # Pointer jumping: after k rounds every cell points 2^k steps ahead.
        while True:
            jumped = nxt[nxt]
            if np.array_equal(jumped, nxt):
                break
            nxt = jumped
        return np.where(codes[nxt] == NONE, -1, nxt).reshape(h, w)

    @cached_property
    def vectors(self) -> np.ndarray:
        """``(H, W, 2)`` float64 unit directions of steepest descent (``dx, dy``): per axis
        the one-sided difference towards the lower neighbour; the step of :attr:`codes`
        where neither axis goes down; zero at goals and on walls."""
        t = self.field
        pad = np.pad(t, 1, constant_values=np.inf)
        out = np.zeros(t.shape + (2,))
        for axis, (lo, hi) in enumerate(((pad[1:-1, :-2], pad[1:-1, 2:]),
                                         (pad[:-2, 1:-1], pad[2:, 1:-1]))):
            best = np.minimum(lo, hi)
            with np.errstate(invalid="ignore"):
                drop = np.where(np.isfinite(t) & (best < t), t - best, 0.0)
            out[..., axis] = np.where(hi < lo, drop, -drop)
        length = np.hypot(out[..., 0], out[..., 1])
        moving = self.codes < GOAL
        flat = moving & (length == 0)
        out[flat] = _UNIT[self.codes[flat]]
        length[flat] = 1.0
        out[moving] /= length[moving][:, None]
        if self.visible is not None:  # straight at the goal
            assert self._goal is not None           # set with visible
            ys, xs = np.nonzero(self.visible & moving)
            to_goal = np.stack([self._goal[0] - xs, self._goal[1] - ys], axis=1)
            out[ys, xs] = to_goal / np.hypot(to_goal[:, 0], to_goal[:, 1])[:, None]
        return out

    def sample(self, points: ArrayLike) -> np.ndarray:
        """Unit directions at ``points`` (``(k, 2)`` x, y; cell ``(x, y)``'s centre is at
        ``(x, y)``), interpolated bilinearly from the four nearest cells that have a
        direction; zero where none has."""
        mixed, _ = bilinear(self.vectors, self.codes < GOAL, points)
        length = np.hypot(mixed[:, 0], mixed[:, 1])
        out = np.zeros_like(mixed)
        ok = length > 1e-12
        out[ok] = mixed[ok] / length[ok][:, None]
        return out

    def sample_world(self, points: ArrayLike) -> np.ndarray:
        """:meth:`sample` at world points (by the grid's origin and cell size)."""
        g = self.grid
        return self.sample((_points(points) - np.asarray(g.origin)) / g.cell_size - 0.5)

    def sample_field(self, points: ArrayLike) -> np.ndarray:
        """Field values at ``points``, interpolated bilinearly from the four nearest
        reachable cells (inf where none is)."""
        mixed, total = bilinear(self.field, np.isfinite(self.field), points)
        return np.where(total > 0, mixed, np.inf)

    def trace(self, point: ArrayLike, *, step: float = 0.25,
              max_steps: int | None = None) -> np.ndarray:
        """Follow the sampled directions from ``point`` in steps of ``step`` cells until
        the nearest cell is a goal, no direction is left or ``max_steps`` (default: cells /
        step) are taken; ``(n, 2)`` points."""
        step = positive_float("step", step)
        h, w = self.grid.shape
        limit = count("max_steps", max_steps, min=0) if max_steps is not None \
            else h * w / step + 1
        allocation(f"a trace of {limit:.3g} steps", limit)
        limit = int(limit)
        p = _points([point])[0]
        out = [p.copy()]
        for _ in range(limit):
            x, y = int(round(p[0])), int(round(p[1]))
            if 0 <= x < w and 0 <= y < h and self.codes[y, x] == GOAL:
                break
            d = self.sample(p[None])[0]
            if not d.any():
                break
            p = p + step * d
            out.append(p.copy())
        return np.array(out)

def _settled(grid: Grid, field: np.ndarray, sources: list[tuple[int, int]],
            limit: float = math.inf) -> FlowField:
    """The flow of a fast-marching ``field`` from ``sources`` (``(x, y)`` cells) that leads
    every cell a path reaches within ``limit`` to a source (see :meth:`FlowField.build`)."""
    return FlowField(grid, _reach_corners(grid, field, sources, limit), goals=sources)


def _reach_corners(grid: Grid, field: np.ndarray, goals: list[tuple[int, int]],
                   limit: float) -> np.ndarray:
    """``field`` with the cells of the goals' islands it leaves unreached (linked to the
    rest only corner to corner) given the cheapest way on over the grid's steps from the
    reached cells (Dijkstra), up to ``limit``."""
    islands = grid.components
    missing = np.isin(islands, [islands[y, x] for x, y in goals]) & ~np.isfinite(field)
    if not missing.any():
        return field
    field = field.copy()
    heap = []
    for y, x in np.argwhere(missing).tolist():
        best = min((field[ny, nx] + c for (nx, ny), c in grid.neighbours((x, y))),
                   default=math.inf)
        if best <= limit:
            heap.append((best, x, y))
    heapq.heapify(heap)
    while heap:
        t, x, y = heapq.heappop(heap)
        if not t < field[y, x]:
            continue
        field[y, x] = t
        for (nx, ny), c in grid.neighbours((x, y)):
            if missing[ny, nx] and t + c < field[ny, nx] and t + c <= limit:
                heapq.heappush(heap, (t + c, nx, ny))
    return field


def _level_out(flow: FlowField, goals: np.ndarray) -> None:
    """Point each cell coded :data:`GOAL` that is not among ``goals`` (``(H, W)`` bool; its
    neighbours no lower: steps that add nothing to the field, or a pit) along cells of its
    value to the nearest whose way down leads to a goal, breadth first; code :data:`NONE`
    those with none."""
    codes, field, grid = flow.codes, flow.field, flow.grid
    stuck = (codes == GOAL) & ~goals
    if not stuck.any():
        return
    ends = flow.destinations()               # here every reachable cell's descent ends
    leads = (ends >= 0) & goals.ravel()[ends]           # at a goal or at a stuck cell
    frontier = deque({(nx, ny) for y, x in np.argwhere(stuck).tolist()
                      for (nx, ny), _ in grid.neighbours((x, y)) if leads[ny, nx]})
    while frontier:
        x, y = frontier.popleft()
        for (nx, ny), _ in grid.neighbours((x, y)):
            if stuck[ny, nx] and field[ny, nx] >= field[y, x]:
                codes[ny, nx] = _DIRECTION_INDEX[x - nx, y - ny]
                stuck[ny, nx] = False
                frontier.append((nx, ny))
    codes[stuck] = NONE


def _codes(grid: Grid, t: np.ndarray) -> np.ndarray:
    """The direction code of every cell (see the module)."""
    h, w = grid.shape
    moves = grid.moves.reshape(h + 2, w + 2)[1:-1, 1:-1]
    pad = np.pad(t, 1, constant_values=np.inf)
    best = np.full(t.shape, np.inf)
    code = np.full(t.shape, GOAL, dtype=np.uint8)
    for d, (dx, dy) in enumerate(DIRECTIONS):
        nb = np.where((moves >> d) & 1 == 1, pad[1 + dy:1 + dy + h, 1 + dx:1 + dx + w], np.inf)
        lower = nb < best
        best = np.where(lower, nb, best)
        code[lower] = d
    code[~(best < t)] = GOAL
    code[~np.isfinite(t)] = NONE
    return code


def bilinear(values: np.ndarray, usable: np.ndarray, points: ArrayLike
             ) -> tuple[np.ndarray, np.ndarray]:
    """Interpolate ``values`` (``(H, W)`` or ``(H, W, k)``) bilinearly at ``points``
    (``(n, 2)`` x, y; cell ``(x, y)``'s centre at ``(x, y)``) from the ``usable`` cells
    among the four around each, their weights renormalised: ``(interpolated (0 where no
    cell is usable), total usable weight)``."""
    p = _points(points)
    h, w = usable.shape
    base = np.floor(p)
    f = p - base
    # Far points clipped to just off the grid before the cast (beyond any int64).
    x0 = np.clip(base[:, 0], -2, w).astype(np.int64)
    y0 = np.clip(base[:, 1], -2, h).astype(np.int64)
    out = np.zeros((len(p),) + values.shape[2:])
    total = np.zeros(len(p))
    for dx, dy, wt in ((0, 0, (1 - f[:, 0]) * (1 - f[:, 1])), (1, 0, f[:, 0] * (1 - f[:, 1])),
                       (0, 1, (1 - f[:, 0]) * f[:, 1]), (1, 1, f[:, 0] * f[:, 1])):
        xs, ys = x0 + dx, y0 + dy
        inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        xs, ys = np.clip(xs, 0, w - 1), np.clip(ys, 0, h - 1)
        weight = np.where(inside & usable[ys, xs] & (wt > 0), wt, 0.0)
        here = values[ys, xs]
        here = np.where(weight.reshape((-1,) + (1,) * (here.ndim - 1)) > 0, here, 0.0)
        out += weight.reshape((-1,) + (1,) * (out.ndim - 1)) * here
        total += weight
    good = total > 0
    out[good] /= total[good].reshape((-1,) + (1,) * (out.ndim - 1))
    return out, total


def _points(points: Any) -> np.ndarray:
    """One ``(x, y)`` point or an ``(n, 2)`` array of them as ``(n, 2)`` float64, checked
    to be finite numbers."""
    return finite_points("points", points)[0]
