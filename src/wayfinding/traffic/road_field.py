"""The static potential of the road ahead of a car: fast-marching travel times to the far
end of an oriented search rectangle, over the lanes the driver likes.

The rectangle is aligned with ``heading``; the car sits centred across it, a quarter of the
way along (*Driver San Francisco*: the optimiser's search area).  Each cell takes the lane
under its centre (within half the lane's width of the lane's line): its speed is ``1 / f``
for the driver's whole factor ``f`` of that lane as the car sees it,
``driver.factor(lane.type, lane.kind, lane.road, oncoming=...)`` (lane type, road kind,
``inf`` on avoided roads; a driving lane running against ``heading`` takes the driver's
``oncoming`` factor for its type's), the best lane where several overlap; cells on no lane,
or on lanes the driver forbids, are walls.  The potential is the travel time
(:func:`~wayfinding.fields.eikonal_field`, first order) to the drivable cells of the
farthest column holding any (the far end, or where the road ends inside the rectangle), so
following its gradient downhill drives ahead along the preferred lanes.

>>> from wayfinding.traffic.roads import LaneSpec, RoadNetwork
>>> from wayfinding.traffic.routes import DriverCosts
>>> net = RoadNetwork()
>>> _ = net.add_road([[0, 0], [100, 0]], [LaneSpec(offset=0.0)])
>>> field = RoadField(net, car=[10, 0], heading=0.0, length=40.0, width=8.0, cell=1.0,
...                   driver=DriverCosts())
>>> field.on_road([[20, 0], [20, 3]]).tolist()
[True, False]
>>> round(float(field.value([[20, 0]])[0]) - float(field.value([[30, 0]])[0]), 6)
10.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _validate
from ..errors import InvalidQueryError
from ..fields import eikonal_field
from .roads import RoadNetwork
from .routes import DriverCosts


class RoadField:
    """The static potential over a search rectangle (see the module).

    ``car``: the car's ``(x, y)``; ``heading``: the rectangle's direction, radians
    (counter-clockwise from +x; aim it at a point ahead on the route); ``length``,
    ``width``: the rectangle's size, world units (at least two cells each; the car is
    ``length / 4`` from its back edge); ``cell``: the grid spacing (> 0); ``driver``: whose
    factors set the speeds.  Refuses a rectangle with no drivable cell ahead of the car.
    ``values``: ``(H, W)`` float64 travel times indexed ``[across, along]`` (inf on walls);
    ``origin``: the back edge's middle; ``direction``: the unit heading."""

    __slots__ = ("values", "origin", "direction", "cell", "width", "_filled", "_grad")

    def __init__(self, network: RoadNetwork, *, car: Any, heading: float, length: float,
                 width: float, cell: float, driver: DriverCosts) -> None:
        if not isinstance(network, RoadNetwork):
            raise InvalidQueryError(f"network {network!r} must be a RoadNetwork")
        if not isinstance(driver, DriverCosts):
            raise InvalidQueryError(f"driver {driver!r} must be a DriverCosts")
        at = _validate.finite_point("car", car)
        angle = _validate.finite_float("heading", heading)
        long = _validate.positive_float("length", length)
        wide = _validate.positive_float("width", width)
        step = _validate.positive_float("cell", cell)
        cols, rows = int(round(long / step)), int(round(wide / step))
        for name, size, cells in (("length", long, cols), ("width", wide, rows)):
            if cells < 2:
                raise InvalidQueryError(f"{name} {size:g} spans {cells} cell(s) of {step:g}: "
                                        "the rectangle needs at least two cells each way")
        _validate.allocation("road field cells", float(cols) * rows)
        self.direction = np.array([math.cos(angle), math.sin(angle)])
        self.origin = at - self.direction * long / 4
        self.cell, self.width = step, wide
        centres = self._world(*np.meshgrid(np.arange(cols) + 0.5, np.arange(rows) + 0.5))
        factor = np.full(rows * cols, math.inf)
        corners = np.array([self._world(np.array(x), np.array(y))
                            for x in (0, cols) for y in (0, rows)]).reshape(4, 2)
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        for lane in network.lanes:
            if (lane.points.max(axis=0) < lo - lane.width).any() or \
                    (lane.points.min(axis=0) > hi + lane.width).any():
                continue
            with_it = driver.factor(lane.type, lane.kind, lane.road)
            against = driver.factor(lane.type, lane.kind, lane.road, oncoming=True)
            if with_it == against == math.inf:
                continue
            dist, seg = _to_polyline(centres, lane.points)
            along = np.diff(lane.points, axis=0)[seg] @ self.direction
            here = np.where(along < 0, against, with_it)
            inside = dist <= lane.width / 2
            factor[inside] = np.minimum(factor[inside], here[inside])
        speed = np.where(np.isfinite(factor), 1.0 / factor, 0.0).reshape(rows, cols)
        drivable = np.flatnonzero((speed > 0).any(axis=0))
        last = int(drivable[-1]) if drivable.size else -1
        if (last + 0.5) * step <= long / 4:
            raise InvalidQueryError(f"the search rectangle has no drivable cell ahead of the "
                                    f"car at {at.tolist()} heading {angle:g}: the road ends "
                                    "behind it, or heading leaves the road")
        goal = [(last, y) for y in np.flatnonzero(speed[:, last] > 0).tolist()]
        self.values = eikonal_field(speed, goal, cell_size=step)
        finite = np.isfinite(self.values)
        top = float(self.values[finite].max()) + long if finite.any() else long
        # Walls count as uphill: the gradient near a road's edge points off the road.
        self._filled = np.where(finite, self.values, top)
        g_across, g_along = np.gradient(self._filled, step)
        normal = np.array([-self.direction[1], self.direction[0]])
        self._grad = (g_along[..., None] * self.direction + g_across[..., None] * normal)

    def _world(self, fx: np.ndarray, fy: np.ndarray) -> np.ndarray:
        """World points of grid coordinates (cell units from the back-right corner)."""
        normal = np.array([-self.direction[1], self.direction[0]])
        u = fx.reshape(-1) * self.cell
        v = fy.reshape(-1) * self.cell - self.width / 2
        return self.origin + u[:, None] * self.direction + v[:, None] * normal

    def _grid(self, points: Any) -> tuple[np.ndarray, np.ndarray]:
        pts, _ = _validate.finite_points("points", points)
        rel = pts - self.origin
        normal = np.array([-self.direction[1], self.direction[0]])
        return rel @ self.direction / self.cell, (rel @ normal + self.width / 2) / self.cell

    def on_road(self, points: Any) -> np.ndarray:
        """``(m,)`` bool: whether each point lies in a drivable cell of the rectangle."""
        fx, fy = self._grid(points)
        rows, cols = self.values.shape
        i, j = np.floor(fx).astype(np.int64), np.floor(fy).astype(np.int64)
        ok = (i >= 0) & (i < cols) & (j >= 0) & (j < rows)
        out = np.zeros(fx.size, dtype=bool)
        out[ok] = np.isfinite(self.values[j[ok], i[ok]])
        return out

    def _bilinear(self, grid: np.ndarray, points: Any) -> np.ndarray:
        fx, fy = self._grid(points)
        rows, cols = grid.shape[:2]
        x = np.clip(fx - 0.5, 0.0, cols - 1.0)
        y = np.clip(fy - 0.5, 0.0, rows - 1.0)
        x0 = np.minimum(np.floor(x).astype(np.int64), max(cols - 2, 0))
        y0 = np.minimum(np.floor(y).astype(np.int64), max(rows - 2, 0))
        x1, y1 = np.minimum(x0 + 1, cols - 1), np.minimum(y0 + 1, rows - 1)
        tx, ty = x - x0, y - y0
        if grid.ndim == 3:
            tx, ty = tx[:, None], ty[:, None]
        return ((grid[y0, x0] * (1 - tx) + grid[y0, x1] * tx) * (1 - ty)
                + (grid[y1, x0] * (1 - tx) + grid[y1, x1] * tx) * ty)

    def value(self, points: Any) -> np.ndarray:
        """``(m,)`` float64: the potential at each point (bilinear; walls and points off
        the rectangle count as the highest travel time plus the rectangle's length)."""
        return self._bilinear(self._filled, points)

    def gradient(self, points: Any) -> np.ndarray:
        """``(m, 2)`` float64: the potential's world gradient at each point (bilinear); it
        points uphill, so ``-gradient`` leads on along the road."""
        return self._bilinear(self._grad, points)


def _to_polyline(points: np.ndarray, line: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each point's distance to the polyline ``line`` and the index of its nearest segment."""
    a, b = line[:-1], line[1:]
    ab = b - a
    rel = points[:, None, :] - a[None]
    t = np.clip((rel * ab).sum(axis=2) / (ab * ab).sum(axis=1), 0.0, 1.0)
    d = np.hypot(*(rel - t[..., None] * ab).transpose(2, 0, 1))
    seg = d.argmin(axis=1)
    return d[np.arange(points.shape[0]), seg], seg
