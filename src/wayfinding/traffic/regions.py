"""Route A* over regions linked by bridges: the city cut into areas, an abstract search over
the lanes where a route crosses from one area into another, refined into lanes.

A :class:`RegionRoutes` takes a :class:`~wayfinding.traffic.routes.RoutePlanner` (its lane
graph and driver costs) and a region id per lane.  A *bridge* is a lane-graph edge from a
lane of one region into a lane of another; its lanes are *portals*.  The build computes,
inside each region only, the cheapest cost from every lane entered by a bridge to every
lane a bridge leaves from: these *shortcuts* and the bridges are the abstract graph.  Two
ways to route:

* ``method="exact"``: one compiled A* over the lanes and the shortcuts that expands lanes
  only inside the start's and the goal's regions and, in every other region, only its
  portals (a zone bound of 0 or infinity, set per query): the abstract search with the two
  ends' regions searched lane by lane.  Any route splits into stretches inside one region
  joined by bridges, and a shortcut is the cheapest of each stretch, so the cost is **the
  flat planner's optimum**; each shortcut taken is refined into lanes by A* inside its
  region.
* ``method="one_bridge"``: the notes' scheme (*Driver San Francisco*: three areas linked by
  bridges; path to a bridge joining both areas, then from the bridge to the goal).  In one
  region the route stays inside it; across regions it takes the best single bridge that
  leads from the start's region straight into the goal's.  Its cost is exactly the best
  route that leaves the start's region once, straight into the goal's, and never leaves
  that; it is **not optimal** when the best route passes a third region (or, within one
  region, leaves it), so its cost is never below the optimum and has no upper bound in
  general (no route at all when no bridge joins the two regions).

>>> from wayfinding.traffic.roads import road_grid
>>> from wayfinding.traffic.routes import DriverCosts, RoutePlanner
>>> net = road_grid(4, 1, spacing=100.0)            # three roads in a row
>>> planner = RoutePlanner(net, driver=DriverCosts())
>>> regions = regions_by_tiles(net, size=150.0)     # x < 150 | x >= 150
>>> routes = RegionRoutes(planner, regions)
>>> routes.find_route(0, 4).path.tolist(), routes.find_route(0, 4).cost
([0, 2, 4], 200.0)
>>> planner.find_route(0, 4).cost
200.0
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .. import _validate
from .._kernels import _csrsearch
from .._kernels._workspace import Workspace
from .._scratch import SingleThread, exclusive
from ..errors import InvalidQueryError
from ..graph.csr import CSRGraph
from ..results import PathResult, SearchStats
from .roads import RoadNetwork
from .routes import RoutePlanner


def regions_by_tiles(network: RoadNetwork, *, size: float) -> np.ndarray:
    """A region id per lane from square tiles ``size`` world units wide (> 0): the tile
    holding the middle of the lane's road (the mean of its lanes' midpoints, so the lanes
    of a road share a region), numbered row by row over the tiles in use
    (ids 0, 1, ... in order of (tile row, tile column)).  Returns ``(n_lanes,)`` int64.

    >>> from wayfinding.traffic.roads import road_grid
    >>> regions_by_tiles(road_grid(3, 1, spacing=100.0), size=150.0).tolist()
    [0, 0, 1, 1]
    """
    if not isinstance(network, RoadNetwork):
        raise InvalidQueryError(f"network {network!r} must be a RoadNetwork")
    side = _validate.positive_float("size", size)
    if not network.lanes:
        return np.empty(0, dtype=np.int64)
    mids = np.array([lane.point_at(lane.length / 2) for lane in network.lanes])
    road = np.array([lane.road for lane in network.lanes])
    centre = np.column_stack([np.bincount(road, mids[:, i]) / np.bincount(road)
                              for i in (0, 1)])
    mids = centre[road]
    with np.errstate(over="ignore"):
        tiles = np.floor(mids / side)      # whole numbers as floats: no integer overflow
    if not np.isfinite(tiles).all():
        raise InvalidQueryError(f"size {side:g} is too small for the network's extent: "
                                "its tile numbers overflow")
    order = np.lexsort((tiles[:, 0], tiles[:, 1]))
    ordered = tiles[order]
    new = np.concatenate([[True], (ordered[1:] != ordered[:-1]).any(axis=1)])
    ids = np.empty(len(tiles), dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids


class RegionRoutes(SingleThread):
    """Hierarchical routes over ``planner``'s lane graph cut into ``regions``.

    ``regions``: ``(n_lanes,)`` integers >= 0, each lane's region (e.g. from
    :func:`regions_by_tiles`).  Built once from the planner (same driver, same lanes);
    ``bridges`` is the ``(m, 2)`` int64 array of ``(from lane, to lane)`` edges between
    regions and ``bridge_costs`` their ``(m,)`` float64 costs.  Holds its own search
    scratch: one thread at a time per object."""

    __slots__ = ("planner", "regions", "bridges", "bridge_costs", "_bridge_of", "_nodes",
                 "_local", "_inside", "_inside_back", "_shortcuts", "_graph", "_coords",
                 "_zone", "_table", "_ws")

    def __init__(self, planner: RoutePlanner, regions: Any) -> None:
        if not isinstance(planner, RoutePlanner):
            raise InvalidQueryError(f"planner {planner!r} must be a RoutePlanner")
        graph = planner.graph
        n = graph.num_nodes
        try:
            labels = np.asarray(regions)
        except (ValueError, TypeError):     # ragged sequences
            labels = np.empty(0, dtype=object)
        if labels.shape != (n,) or (n and labels.dtype.kind not in "iu"):
            raise InvalidQueryError(f"regions of shape {labels.shape} and dtype {labels.dtype} "
                                    f"must be ({n},) integers, one region per lane")
        if n and labels.min() < 0:
            raise InvalidQueryError(f"regions must be >= 0 (lane "
                                    f"{int(np.argmin(labels))} has {int(labels.min())})")
        self.planner = planner
        #: ``(n_lanes,)`` int64: each lane's region, renumbered 0.. in order of the ids given.
        self.regions = np.unique(labels, return_inverse=True)[1].astype(np.int64).reshape(n)
        reg = self.regions
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.indptr))
        dst = graph.indices.astype(np.int64)
        weights = graph.weights
        cross = reg[src] != reg[dst]
        self.bridges = np.column_stack([src[cross], dst[cross]]).reshape(-1, 2)
        self.bridge_costs = weights[cross].copy()
        self._bridge_of: dict[tuple[int, int], float] = {}
        for (a, b), w in zip(self.bridges.tolist(), self.bridge_costs.tolist()):
            self._bridge_of[(a, b)] = min(w, self._bridge_of.get((a, b), math.inf))
        coords = graph.coords if graph.coords is not None else np.zeros((n, 2))
        # Each region's own lane graph, on local ids, forwards and reversed.
        count = int(reg.max()) + 1 if n else 0
        self._nodes = [np.flatnonzero(reg == r) for r in range(count)]
        self._local = np.empty(n, dtype=np.int64)
        for nodes in self._nodes:
            self._local[nodes] = np.arange(nodes.size)
        self._inside: list[CSRGraph] = []
        for r, nodes in enumerate(self._nodes):
            keep = ~cross & (reg[src] == r)
            sub = CSRGraph.from_edges(nodes.size, self._local[src[keep]],
                                      self._local[dst[keep]], weights[keep],
                                      coords=coords[nodes])
            self._inside.append(sub)
        self._inside_back = [sub.reversed() for sub in self._inside]
        # Shortcuts: inside each region, every entry to every exit at its cheapest cost
        # there (left out where a lane edge already costs that).
        exits, entries = np.unique(self.bridges[:, 0]), np.unique(self.bridges[:, 1])
        s_src, s_dst, s_w = [], [], []
        for r in range(count):
            outs = exits[reg[exits] == r]
            for e in entries[reg[entries] == r].tolist():
                d = self._inside[r].distances(int(self._local[e]))[self._local[outs]]
                row = slice(int(graph.indptr[e]), int(graph.indptr[e + 1]))
                at = np.minimum(np.searchsorted(outs, dst[row]), max(outs.size - 1, 0))
                lane_edge = np.full(outs.size, math.inf)
                hit = outs[at] == dst[row] if outs.size else np.zeros(0, dtype=bool)
                np.minimum.at(lane_edge, at[hit], weights[row][hit])
                ok = (d < lane_edge) & (outs != e)
                s_src.append(np.full(int(ok.sum()), e, dtype=np.int64))
                s_dst.append(outs[ok])
                s_w.append(d[ok])
        s_src.append(np.zeros(0, dtype=np.int64))
        s_dst.append(np.zeros(0, dtype=np.int64))
        s_w.append(np.zeros(0))
        short_src, short_dst = np.concatenate(s_src), np.concatenate(s_dst)
        self._shortcuts = np.sort(short_src * max(n, 1) + short_dst)
        all_src = np.concatenate([src, short_src])
        order = np.argsort(all_src, kind="stable")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(all_src, minlength=n), out=indptr[1:])
        self._graph = (indptr,
                       np.concatenate([dst, short_dst])[order].astype(np.int32),
                       np.concatenate([weights, *s_w])[order])
        self._coords = np.ascontiguousarray(coords, dtype=np.float64)
        # Zones: 2 r for the lanes inside region r, 2 r + 1 for its portals.
        portal = np.zeros(n, dtype=bool)
        portal[exits] = portal[entries] = True
        self._zone = (2 * reg + portal).astype(np.int32)
        self._table = np.zeros((2 * count, 2 * count))
        self._ws = Workspace(n)

    def _inside_route(self, region: int, a: int, b: int, stats: SearchStats
                      ) -> tuple[list[int], float]:
        local = self._local
        r = self._inside[region].find_path(int(local[a]), int(local[b]))
        stats.expanded += r.stats.expanded
        stats.generated += r.stats.generated
        return self._nodes[region][r.path].tolist(), float(r.cost)

    @exclusive
    def find_route(self, start: int, goal: int, *, method: str = "exact") -> PathResult:
        """The route from lane ``start`` to lane ``goal``: a
        :class:`~wayfinding.results.PathResult` like
        :meth:`RoutePlanner.find_route <wayfinding.traffic.routes.RoutePlanner.find_route>`
        (``path``: ``(n,)`` int64 lane ids), found or not.

        ``method``: ``"exact"`` (the optimum) or ``"one_bridge"`` (the notes' scheme); see
        the module.  ``stats`` counts the nodes the searches expanded (for
        ``"one_bridge"``, all the nodes its two floods inside the start's and goal's
        regions reached), refinement included."""
        net = self.planner.network
        s, g = net._lane("start", start), net._lane("goal", goal)
        _validate.choice("method", method, ("exact", "one_bridge"))
        t0 = time.perf_counter()
        stats = SearchStats()
        result = self._exact(s, g, stats) if method == "exact" else self._one_bridge(s, g, stats)
        stats.elapsed = time.perf_counter() - t0
        if result is None:
            return PathResult(np.empty(0, dtype=np.int64), math.inf, False, stats, method)
        return result

    def _one_bridge(self, s: int, g: int, stats: SearchStats) -> PathResult | None:
        """The notes' scheme: inside one region, or over the best single bridge from the
        start's region into the goal's."""
        reg, local = self.regions, self._local
        rs, rg = int(reg[s]), int(reg[g])
        ahead = self._inside[rs].distances(int(local[s]))
        behind = self._inside_back[rg].distances(int(local[g]))
        stats.expanded += int(np.isfinite(ahead).sum() + np.isfinite(behind).sum())
        if rs == rg:
            if not ahead[local[g]] < math.inf:
                return None
            path, cost = self._inside_route(rs, s, g, stats)
            return PathResult(np.array(path, dtype=np.int64), cost, True, stats, "one_bridge")
        ex, en = self.bridges[:, 0], self.bridges[:, 1]
        use = np.flatnonzero((reg[ex] == rs) & (reg[en] == rg))
        total = ahead[local[ex[use]]] + self.bridge_costs[use] + behind[local[en[use]]]
        if not (use.size and np.isfinite(total).any()):
            return None
        best = use[int(np.argmin(total))]
        a, b = int(ex[best]), int(en[best])
        first, c1 = self._inside_route(rs, s, a, stats)
        second, c2 = self._inside_route(rg, b, g, stats)
        return PathResult(np.array(first + second, dtype=np.int64),
                          c1 + self._bridge_of[(a, b)] + c2, True, stats, "one_bridge")

    def _exact(self, s: int, g: int, stats: SearchStats) -> PathResult | None:
        """A* over the lane graph and the shortcuts, inside the start's and goal's regions
        and across the others' portals only; ``None`` when there is no route."""
        indptr, indices, weights = self._graph
        reg = self.regions
        column = self._table[:, self._zone[g]]
        column[0::2] = math.inf
        column[1::2] = 0.0
        column[2 * reg[s]] = column[2 * reg[g]] = 0.0
        found, cost, exp, gen, _ = _csrsearch.search(
            self._ws, indptr, indices, weights, self._coords, s, g,
            self.planner.graph.heuristic_scale, False, zone=self._zone,
            zone_table=self._table)
        stats.expanded += int(exp)
        stats.generated += int(gen)
        if not found:
            return None
        steps = self._ws.path_to(g)
        keys = steps[:-1] * max(reg.size, 1) + steps[1:]
        where = np.minimum(np.searchsorted(self._shortcuts, keys), self._shortcuts.size - 1)
        short = (self._shortcuts[where] == keys) if self._shortcuts.size else \
            np.zeros(keys.size, dtype=bool)
        path = [s]
        for a, b, cut in zip(steps[:-1].tolist(), steps[1:].tolist(), short.tolist()):
            if cut:
                path += self._inside_route(int(reg[a]), a, b, stats)[0][1:]
            else:
                path.append(b)
        return PathResult(np.array(path, dtype=np.int64), float(cost), True, stats, "exact")
