"""Route A* over regions linked by bridges: the city cut into areas, an abstract search over
the lanes where a route crosses from one area into another, refined into lanes.

A :class:`RegionRoutes` takes a :class:`~wayfinding.traffic.routes.RoutePlanner` (its lane
graph and driver costs) and a region id per lane.  A *bridge* is a lane-graph edge from a
lane of one region into a lane of another; its lanes are *portals*.  The build computes,
inside each region only, the cheapest cost from every lane entered by a bridge to every
lane a bridge leaves from: the abstract graph is those costs plus the bridges.  Two ways to
route:

* ``method="exact"``: the start reaches its region's exits and the goal is reached from
  its region's entries by searches inside those two regions, then A* runs over the abstract
  graph.  Any route splits into stretches inside one region joined by bridges, and the
  abstract graph holds the cheapest of each stretch, so the cost is **the flat planner's
  optimum**; the route is refined into lanes by A* inside each region it passes.
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
    tiles = np.floor(mids / side).astype(np.int64)
    keys = tiles[:, 1] * (tiles[:, 0].max() - tiles[:, 0].min() + 1) + tiles[:, 0]
    return np.unique(keys, return_inverse=True)[1].astype(np.int64)


class RegionRoutes(SingleThread):
    """Hierarchical routes over ``planner``'s lane graph cut into ``regions``.

    ``regions``: ``(n_lanes,)`` integers >= 0, each lane's region (e.g. from
    :func:`regions_by_tiles`).  Built once from the planner (same driver, same lanes);
    ``bridges`` is the ``(m, 2)`` int64 array of ``(from lane, to lane)`` edges between
    regions and ``bridge_costs`` their ``(m,)`` float64 costs.  Holds its own search
    scratch: one thread at a time per object."""

    __slots__ = ("planner", "regions", "bridges", "bridge_costs", "_bridge_of", "_nodes",
                 "_local", "_inside", "_inside_back", "_portals", "_exits", "_entries",
                 "_graph", "_coords", "_lane_coords", "_from_start", "_to_goal", "_direct",
                 "_ws")

    def __init__(self, planner: RoutePlanner, regions: Any) -> None:
        if not isinstance(planner, RoutePlanner):
            raise InvalidQueryError(f"planner {planner!r} must be a RoutePlanner")
        graph = planner.graph
        n = graph.num_nodes
        labels = np.asarray(regions)
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
        # Portals: abstract nodes 0..P-1; P is the query's start, P + 1 its goal.
        exits, entries = np.unique(self.bridges[:, 0]), np.unique(self.bridges[:, 1])
        self._portals = np.union1d(exits, entries)
        self._exits, self._entries = exits, entries
        pid = np.full(n, -1, dtype=np.int64)
        pid[self._portals] = np.arange(self._portals.size)
        start, goal = self._portals.size, self._portals.size + 1
        a_src, a_dst, a_w = [pid[self.bridges[:, 0]]], [pid[self.bridges[:, 1]]], \
            [self.bridge_costs]
        for r in range(count):
            outs = exits[reg[exits] == r]
            for e in entries[reg[entries] == r].tolist():
                d = self._inside[r].distances(int(self._local[e]))[self._local[outs]]
                ok = np.isfinite(d) & (outs != e)
                a_src.append(np.full(int(ok.sum()), pid[e]))
                a_dst.append(pid[outs[ok]])
                a_w.append(d[ok])
        # Per-query edges (costs filled at each query): start -> every exit, every entry ->
        # goal, start -> goal (both in one region).
        a_src += [np.full(exits.size, start), pid[entries], [start]]
        a_dst += [pid[exits], np.full(entries.size, goal), [goal]]
        a_w += [np.zeros(exits.size), np.zeros(entries.size), [0.0]]
        s_all, d_all = np.concatenate(a_src), np.concatenate(a_dst)
        order = np.argsort(s_all, kind="stable")
        where = np.empty_like(order)
        where[order] = np.arange(order.size)
        indptr = np.zeros(goal + 2, dtype=np.int64)
        np.cumsum(np.bincount(s_all, minlength=goal + 1), out=indptr[1:])
        fixed = s_all.size - exits.size - entries.size - 1
        self._from_start = where[fixed:fixed + exits.size]
        self._to_goal = where[fixed + exits.size:fixed + exits.size + entries.size]
        self._direct = int(where[-1])
        self._graph = (indptr, d_all[order].astype(np.int32),
                       np.concatenate(a_w).astype(np.float64)[order])
        self._coords = np.vstack([coords[self._portals], np.zeros((2, 2))])
        self._lane_coords = coords
        self._ws = Workspace(goal + 1)

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

        ``method``: ``"exact"`` (the optimum, abstract A* over all bridges) or
        ``"one_bridge"`` (the notes' scheme; see the module).  ``stats`` counts the nodes
        the two searches inside the start's and goal's regions reached plus those the
        abstract and refining A* expanded."""
        net = self.planner.network
        s, g = net._lane("start", start), net._lane("goal", goal)
        _validate.choice("method", method, ("exact", "one_bridge"))
        t0 = time.perf_counter()
        reg, local = self.regions, self._local
        rs, rg = int(reg[s]), int(reg[g])
        ahead = self._inside[rs].distances(int(local[s]))
        behind = self._inside_back[rg].distances(int(local[g]))
        stats = SearchStats(expanded=int(np.isfinite(ahead).sum() + np.isfinite(behind).sum()))
        direct = float(ahead[local[g]]) if rs == rg else math.inf
        hops: list[tuple[int, int]] = []       # bridges taken, in order
        if method == "one_bridge":
            found = direct < math.inf
            if rs != rg:
                ex, en = self.bridges[:, 0], self.bridges[:, 1]
                use = np.flatnonzero((reg[ex] == rs) & (reg[en] == rg))
                total = ahead[local[ex[use]]] + self.bridge_costs[use] + behind[local[en[use]]]
                found = bool(use.size) and bool(np.isfinite(total).any())
                if found:
                    best = use[int(np.argmin(total))]
                    hops = [(int(ex[best]), int(en[best]))]
        else:
            found, hops = self._abstract(s, g, ahead, behind, direct, stats)
        if not found:
            stats.elapsed = time.perf_counter() - t0
            return PathResult(np.empty(0, dtype=np.int64), math.inf, False, stats, method)
        path, cost, here = [s], 0.0, s
        for a, b in hops:
            piece, c = self._inside_route(int(reg[a]), here, a, stats)
            path += piece[1:] + [b]
            cost += c + self._bridge_of[(a, b)]
            here = b
        piece, c = self._inside_route(rg, here, g, stats)
        path += piece[1:]
        stats.elapsed = time.perf_counter() - t0
        return PathResult(np.array(path, dtype=np.int64), cost + c, True, stats, method)

    def _leg(self, lanes: np.ndarray, region: int, costs: np.ndarray) -> np.ndarray:
        """``costs`` (one region's, on local ids) at ``lanes``; inf for lanes elsewhere."""
        out = np.full(lanes.size, math.inf)
        mine = self.regions[lanes] == region
        out[mine] = costs[self._local[lanes[mine]]]
        return out

    def _abstract(self, s: int, g: int, ahead: np.ndarray, behind: np.ndarray, direct: float,
                  stats: SearchStats) -> tuple[bool, list[tuple[int, int]]]:
        """A* over the portals from ``s`` to ``g``: whether a route exists and the bridges
        it takes."""
        indptr, indices, base = self._graph
        reg, portals = self.regions, self._portals
        exits, entries = self._exits, self._entries
        weights = base.copy()
        weights[self._from_start] = self._leg(exits, reg[s], ahead)
        weights[self._to_goal] = self._leg(entries, reg[g], behind)
        weights[self._direct] = direct
        coords = self._coords.copy()
        n = portals.size
        coords[n] = self._lane_coords[s]
        coords[n + 1] = self._lane_coords[g]
        found, cost, exp, gen, _ = _csrsearch.search(
            self._ws, indptr, indices, weights, coords, n, n + 1,
            self.planner.graph.heuristic_scale, False)
        stats.expanded += int(exp)
        stats.generated += int(gen)
        if not found or not cost < math.inf:
            return False, []
        ids = self._ws.path_to(n + 1)[1:-1].tolist()
        nodes = portals[ids]
        hops = [(int(a), int(b)) for a, b in zip(nodes[:-1], nodes[1:]) if reg[a] != reg[b]]
        return True, hops
