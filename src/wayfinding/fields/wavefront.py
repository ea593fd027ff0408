"""The wavefront planner (Kapadia et al.; Garcia et al.): synchronous Bellman updates over a
whole grid, vectorised with numpy the way the GPU version runs one thread per cell.

Every iteration reads one copy of the cost-to-goal ``g`` and writes the other: a cell takes
the cheapest ``g(neighbour) + step cost`` over its legal moves (the grid's diagonal rule and
cost rule), remembering that neighbour as its predecessor.  The goal is 0, unknown cells
``inf``.  Three stopping rules: ``"reach"`` (the start has a value: fewest iterations, not
optimal with varying costs; the first value is the cheapest route with the fewest steps, but
predecessors are rewritten in the same synchronous iteration, so the path they give may
already be cheaper, and the start reports that path's cost), ``"converge"`` (nothing
changed: optimal, whole map) and ``"minimal"`` (optimal with the fewest iterations: the
starts are recomputed from their neighbours every iteration, and other cells read their
new values through them; the run stops once every start has a value and no cell updated
in that iteration is cheaper than the dearest of them).  :meth:`Wavefront.move_obstacle`
repairs the plan: the cells whose predecessor chain got dearer are reset, and the next
:meth:`Wavefront.run` recomputes them.

>>> import numpy as np
>>> from wayfinding.grid import Grid
>>> costs = np.ones((3, 6))
>>> costs[0, 1:5] = 10.0                      # an expensive stretch of the top row
>>> grid = Grid(costs, diagonal="never")
>>> reach = Wavefront(grid, (0, 0), starts=[(5, 0)], stop="reach")
>>> reach.run(), reach.cost((5, 0))   # first reached at 41 along the top row, but its
(5, 25.0)
>>> grid.path_cost(reach.path((5, 0)))  # predecessors already turn into the second row
25.0
>>> best = Wavefront(grid, (0, 0), starts=[(5, 0)], stop="minimal")
>>> best.run() >= 5, best.cost((5, 0))        # the detour through the second row
(True, 7.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._validate import choice, count
from ..errors import InvalidQueryError
from ..grid.grid import Grid
from ..grid.rules import DIRECTIONS, SQRT2

STOPS = ("reach", "converge", "minimal")


class Wavefront:
    """A wavefront plan towards ``goal`` over ``grid`` for agents at ``starts``."""

    def __init__(self, grid: Grid, goal: ArrayLike, *, starts: ArrayLike = (),
                 stop: str = "minimal") -> None:
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"expected a Grid, got {type(grid).__name__}")
        choice("stop", stop, STOPS)
        self.grid = grid
        self.stop = stop
        self.goal = grid.cell(goal, name="goal", passable=True)
        self.costs = np.array(grid.costs, dtype=np.float64)
        self.starts = grid.cells(starts, name="start", passable=True)
        if stop != "converge" and not self.starts:
            raise InvalidQueryError(f"stop={stop!r} needs at least one start")
        self.g = np.full(grid.shape, np.inf)
        self.pred = np.full(grid.shape, -1, dtype=np.int64)
        self.g[self.goal[1], self.goal[0]] = 0.0
        self._steps = self._step_costs()
        self.iterations = 0

    def _step_costs(self) -> np.ndarray:
        """``(8, H, W)``: the cost of stepping from each cell to its neighbour in each
        direction (inf where the move is not legal)."""
        h, w = self.grid.shape
        grid = Grid(self.costs, diagonal=self.grid.diagonal)
        moves = grid.moves.reshape(h + 2, w + 2)[1:-1, 1:-1]
        c = np.pad(self.costs, 1, constant_values=np.inf)
        out = np.full((8, h, w), np.inf)
        for d, (dx, dy) in enumerate(DIRECTIONS):
            there = c[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
            length = SQRT2 if dx and dy else 1.0
            out[d] = np.where((moves >> d) & 1 == 1, length * 0.5 * (self.costs + there),
                              np.inf)
        return out

    def cost(self, cell: Any) -> float:
        """The cost to the goal from ``cell`` found so far (inf: not reached)."""
        x, y = self.grid.cell(cell)
        return float(self.g[y, x])

    def path(self, start: ArrayLike) -> np.ndarray:
        """The cells from ``start`` to the goal following the predecessors (``(n, 2)``);
        empty when ``start`` has no value yet."""
        x, y = self.grid.cell(start, name="start")
        if not np.isfinite(self.g[y, x]):
            return np.empty((0, 2), dtype=np.int64)
        w = self.grid.width
        out = [(x, y)]
        while (x, y) != self.goal and len(out) <= self.g.size:
            p = int(self.pred[y, x])
            x, y = p % w, p // w
            out.append((x, y))
        return np.array(out, dtype=np.int64)

    @positional_options("max_iterations")
    def run(self, *, max_iterations: int | None = None) -> int:
        """Iterate until the stopping rule holds, an iteration changes nothing (a start the
        goal cannot be reached from keeps cost inf) or ``max_iterations`` (>= 0) have run;
        returns the number of iterations run.  Afterwards each start's cost (and that of the
        cells on its path) is the cost of the path :meth:`path` returns."""
        h, w = self.grid.shape
        gx, gy = self.goal
        index = np.arange(h * w).reshape(h, w)
        pad_index = np.pad(index, 1, constant_values=-1)
        done = 0
        limit = count("max_iterations", max_iterations, min=0) \
            if max_iterations is not None else 4 * h * w + 4
        while done < limit:
            g = self.g
            pad = np.pad(g, 1, constant_values=np.inf)
            best = np.full((h, w), np.inf)
            best_pred = np.full((h, w), -1, dtype=np.int64)
            for d, (dx, dy) in enumerate(DIRECTIONS):
                cand = pad[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] + self._steps[d]
                better = cand < best
                best = np.where(better, cand, best)
                best_pred = np.where(better, pad_index[1 + dy:1 + dy + h, 1 + dx:1 + dx + w],
                                     best_pred)
            best[gy, gx] = 0.0
            best_pred[gy, gx] = -1
            updated = best < g
            new_g = np.where(updated, best, g)
            pred = np.where(updated, best_pred, self.pred)
            if self.stop == "minimal":
                for sx, sy in self.starts:       # the starts are always recomputed
                    if (sx, sy) != self.goal:    # (and count as updated if they fell)
                        new_g[sy, sx], pred[sy, sx] = best[sy, sx], best_pred[sy, sx]
            still = np.array_equal(new_g, g) and np.array_equal(pred, self.pred)
            self.pred = pred
            self.g = new_g
            done += 1
            self.iterations += 1
            if still or self._stopped(updated):
                break
        for start in self.starts:
            self._settle(start)
        return done

    def _settle(self, start: tuple[int, int]) -> None:
        """Give the cells on ``start``'s predecessor chain the cost of that chain: a
        synchronous update may lower a predecessor (and change its own predecessor) in the
        same iteration, so a value can be dearer than the path it now leads along."""
        path = self.path(start)
        if len(path) < 2 or tuple(path[-1]) != self.goal:
            return
        acc = 0.0
        for (ax, ay), (bx, by) in zip(path[-2::-1].tolist(), path[:0:-1].tolist()):
            acc += float(self._steps[DIRECTIONS.index((bx - ax, by - ay)), ay, ax])
            self.g[ay, ax] = min(self.g[ay, ax], acc)

    def _stopped(self, updated: np.ndarray) -> bool:
        start_g = [self.g[y, x] for x, y in self.starts]
        if self.stop == "reach":
            return all(np.isfinite(v) for v in start_g)
        if self.stop == "converge":
            return not updated.any()
        if not all(np.isfinite(v) for v in start_g):
            return False
        return not (updated & (self.g < max(start_g))).any()

    def move_obstacle(self, old: Any, new: Any) -> None:
        """An obstacle moves from cell ``old`` (now free, cost 1) to cell ``new``: update
        the costs and reset every cell whose path to the goal got dearer (its chain of
        predecessors runs through ``new`` or takes a step whose cost rose), to be
        recomputed by the next :meth:`run`; cheaper steps are taken up by the run."""
        ox, oy = self.grid.cell(old, name="old")
        nx, ny = self.grid.cell(new, name="new")
        if (nx, ny) == self.goal:
            raise InvalidQueryError("an obstacle cannot move onto the goal")
        self.costs[oy, ox] = 1.0
        self.costs[ny, nx] = np.inf
        before = self._steps
        self._steps = self._step_costs()
        h, w = self.grid.shape
        pred = self.pred.ravel()
        has = pred >= 0
        # Cells whose step to their predecessor got dearer (or illegal: a corner now cut)
        # are bad, and so is the obstacle's new cell; cheaper steps need no reset, the next
        # run lowers them.
        here = np.flatnonzero(has)
        step = np.array(DIRECTIONS)
        dx, dy = pred[here] % w - here % w, pred[here] // w - here // w
        code = np.full(len(here), -1)
        for d, (sx, sy) in enumerate(step):
            code[(dx == sx) & (dy == sy)] = d
        ys, xs = here // w, here % w
        bad = np.zeros(h * w, dtype=bool)
        bad[here] = self._steps[code, ys, xs] > before[code, ys, xs]
        bad[ny * w + nx] = True
        # Cells whose predecessor is bad become bad, down the predecessor tree.
        while True:
            grown = bad.copy()
            grown[has] |= bad[pred[has]]
            if np.array_equal(grown, bad):
                break
            bad = grown
        bad[self.goal[1] * w + self.goal[0]] = False
        g = self.g.ravel()
        g[bad] = np.inf
        pred[bad] = -1
        self.g = g.reshape(h, w)
        self.pred = pred.reshape(h, w)
