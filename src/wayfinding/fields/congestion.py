"""Congestion maps (Pentheny): crowd density and flow that make paths through a crowd dearer
the more they go against or across it.

Each :meth:`CongestionMap.update` splats the agents over a (possibly coarser) map: density,
and the velocity averaged over time (``smoothing``: the weight of the new frame).  A step
whose ideal velocity is ``u`` pays the penalty ``(1 - p) * density`` where
``p = u . v / |u|^2`` (``v``: the crowd's velocity there), and nothing when ``p >= 1`` (the
crowd goes that way at least as fast): moving with a crowd is free, across it costs, against
it costs most.  :meth:`CongestionMap.graph` folds the penalties into a :class:`CSRGraph`
of the grid's moves (each step's cost times ``1 + weight * penalty`` at the cell it enters),
for compiled A*, and :meth:`CongestionMap.field` into a cost-to-goal field for
:class:`~wayfinding.fields.FlowField`.  Penalties are never negative, so distance
heuristics stay admissible.

>>> import numpy as np
>>> from wayfinding.grid import Grid
>>> grid = Grid(np.ones((5, 9), dtype=bool))
>>> crowd = CongestionMap(grid, smoothing=1.0)
>>> crowd.update([(4.0, 2.0)] * 4, [(-1.0, 0.0)] * 4)     # four agents walking left
>>> float(crowd.penalty((1.0, 0.0), (4, 2))) > 0, float(crowd.penalty((-1.0, 0.0), (4, 2)))
(True, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import _continuum_fields
from .._validate import MAX_COST, count, finite_point, number, positive_float
from ..errors import InvalidQueryError
from ..graph.csr import CSRGraph
from ..grid.grid import Grid
from .continuum import _units


class CongestionMap:
    """Density and average crowd velocity over ``grid``, in blocks of ``block`` x ``block``
    cells.  ``radius``: an agent's splat (cells, linear falloff); ``smoothing`` in (0, 1]:
    how much of each new frame enters the velocity average; ``speed``: the agents' desired
    speed (cells per second), the length of an ideal step velocity."""

    def __init__(self, grid: Grid, *, block: int = 1, radius: float = 1.5,
                 smoothing: float = 0.3, speed: float = 1.0):
        if not isinstance(grid, Grid):
            raise InvalidQueryError(f"expected a Grid, got {type(grid).__name__}")
        self.grid = grid
        self.block = count("block", block)
        self.radius = positive_float("radius", radius)
        self.smoothing = number("smoothing", smoothing, min=0, min_open=True, max=1)
        self.speed = positive_float("speed", speed)
        h, w = grid.shape
        self.shape = (-(-h // block), -(-w // block))
        self.density = np.zeros(self.shape)
        self.velocity = np.zeros(self.shape + (2,))

    def update(self, positions: ArrayLike, velocities: ArrayLike) -> None:
        """A new frame of agent ``positions`` and ``velocities`` (``(n, 2)``, cells: cell
        ``(x, y)``'s centre at ``(x, y)``).  Each agent adds ``1 - d / radius`` (clamped at 0)
        to every block whose centre is ``d`` cells away."""
        p, v = _units(positions, velocities)
        h, w = self.shape
        density, vx, vy = (np.zeros((h + 2) * (w + 2)) for _ in range(3))
        # block coordinates: block k's centre is cell k * block + (block - 1) / 2
        b = self.block
        # Velocities in units of a power of two above the largest: their weighted sums
        # cannot overflow, and the scaling is exact.
        scale = int(np.frexp(np.abs(v).max())[1]) if v.size else 0
        _continuum_fields.splat((p + 0.5) / b - 0.5, np.ldexp(v, -scale), self.radius / b,
                                w, h, density, vx, vy)

        def inner(flat: np.ndarray) -> np.ndarray:
            return flat.reshape(h + 2, w + 2)[1:-1, 1:-1]

        frame = np.ldexp(np.stack([inner(vx), inner(vy)], axis=-1), scale)
        self.density = inner(density).copy()
        self.velocity = (1 - self.smoothing) * self.velocity + self.smoothing * frame

    def penalty(self, ideal: Any, cell: Any) -> float:
        """The penalty for moving at velocity ``ideal`` (a finite, non-zero ``(x, y)``)
        through ``cell``."""
        x, y = self.grid.cell(cell)
        u = finite_point("ideal velocity", ideal)
        size = float(np.abs(u).max())
        if not size > 0:
            raise InvalidQueryError("the ideal velocity must be non-zero")
        u /= size                      # p = u.v / |u|^2 without squaring |u|
        b = self.velocity[y // self.block, x // self.block]
        density = float(self.density[y // self.block, x // self.block])
        p = float(u @ b) / size / float(u @ u)
        return 0.0 if p >= 1 or density == 0 else (1 - p) * density

    def graph(self, *, weight: float = 1.0) -> CSRGraph:
        """The grid's move graph with each step's cost times ``1 + weight * penalty``,
        the penalty taken at the cell entered for the step's direction at ``speed`` (an
        error when a step would cost more than twice ``MAX_COST``)."""
        weight = positive_float("weight", weight, allow_zero=True)
        base = self.grid.to_csr()
        w = self.grid.width
        src = np.repeat(np.arange(base.num_nodes), np.diff(base.indptr))
        dst = base.indices.astype(np.int64)
        step = np.stack([dst % w - src % w, dst // w - src // w], axis=1).astype(float)
        unit = step / np.hypot(step[:, 0], step[:, 1])[:, None]
        bx, by = (dst % w) // self.block, (dst // w) // self.block
        crowd, density = self.velocity[by, bx], self.density[by, bx]
        p = (unit * crowd).sum(axis=1) / self.speed      # u.v / |u|^2 with |u| = speed
        with np.errstate(invalid="ignore"):
            pen = np.where((p >= 1) | (density == 0), 0.0, (1 - p) * density)
        with np.errstate(over="ignore"):
            costs = base.weights * (1 + weight * pen)
        if len(costs) and not costs.max() <= 2 * MAX_COST:
            raise InvalidQueryError(f"a step would cost {costs.max():.3g}, more than "
                                    f"{2 * MAX_COST:g}: weight {weight:g} and speed "
                                    f"{self.speed:g} make the crowd's penalties too large")
        return CSRGraph(base.indptr, base.indices, costs, coords=base.coords)

    def field(self, goals: ArrayLike, *, weight: float = 1.0) -> np.ndarray:
        """``(H, W)`` cost from every cell to the nearest of ``goals`` over :meth:`graph`
        (a congestion-aware integration field for :class:`FlowField`)."""
        w = self.grid.width
        cells = self.grid.cells(goals, name="goal", passable=True)
        if not cells:
            raise InvalidQueryError("give at least one goal")
        g = self.graph(weight=weight).reversed()
        # One search from an extra node joined to every goal at no cost.
        n, goal_nodes = g.num_nodes, np.array([y * w + x for x, y in cells], dtype=np.int64)
        joined = CSRGraph(np.append(g.indptr, g.indptr[-1] + len(goal_nodes)),
                          np.concatenate([g.indices, goal_nodes]),
                          np.concatenate([g.weights, np.zeros(len(goal_nodes))]))
        return joined.distances(n)[:n].reshape(self.grid.shape)
