"""Zoned distance tables and the cluster heuristic for :class:`CSRGraph` A*.

Nodes are split into z zones (a coarse grid over the node coordinates, or a user mapping).
The zone table holds, for every ordered pair of zones (A, B), the smallest distance from any
node of A to any node of B::

    zone_dist[A, B] = min over a in A, b in B of d(a, b)        (0 on the diagonal)

so ``h(x, goal) = zone_dist[zone(x), zone(goal)]`` never exceeds d(x, goal): the *cluster
heuristic*.  A* takes the larger of it and the graph's Euclidean bound.  It is admissible
but, unlike the Euclidean and differential bounds, not consistent (an edge can lead from a
zone far from the goal's into a large zone that touches it), so the compiled search reopens
closed nodes when a cheaper way to them turns up and stays optimal.  A zone that cannot reach
the goal's zone (inf) is pruned at once: the island test of a zone layer.

Memory: ``8 z²`` bytes of float64 table plus ``4 n`` bytes of zone ids, against ``8 n²`` for
a flat distance table.  Build: one multi-source Dijkstra per zone (z compiled floods).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .. import _saved
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError
from ..results import PathResult
from .csr import CSRGraph, GraphIndex

#: Default refusal limit on the number of zones (the table is z × z float64).
MAX_ZONES = 4096


def grid_zones(coords: np.ndarray, zone_size: float) -> np.ndarray:
    """Zone ids of nodes by a square grid of side ``zone_size`` over their first two
    coordinates: ``(n,)`` int32, numbered in order of each zone's first node (row of cells
    ``floor((coord - min) / zone_size)``)."""
    if not (isinstance(zone_size, (int, float, np.integer, np.floating))
            and np.isfinite(zone_size) and zone_size > 0):
        raise InvalidQueryError(f"zone_size {zone_size!r} must be a positive finite number")
    cell = np.floor((coords[:, :2] - coords[:, :2].min(axis=0)) / zone_size).astype(np.int64)
    key = cell[:, 1] * (int(cell[:, 0].max()) + 1) + cell[:, 0]
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inv.ravel()].astype(np.int32)


def zone_distances(graph: CSRGraph, zone: np.ndarray, count: int) -> np.ndarray:
    """``(z, z)`` float64 minimum distances between zones, by one multi-source Dijkstra per
    zone on the graph with one extra zero-cost source per zone."""
    n = graph.num_nodes
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.indptr))
    sup = CSRGraph.from_edges(
        n + count, np.concatenate([src, n + zone.astype(np.int64)]),
        np.concatenate([graph.indices, np.arange(n)]),
        np.concatenate([graph.weights, np.zeros(n)]))
    out = np.full((count, count), np.inf)
    for a in range(count):
        d = sup.distances(n + a)[:n]
        np.minimum.at(out[a], zone, d)
    return out


class CSRZoneTable(GraphIndex):
    """Zone-to-zone lower-bound table of a :class:`CSRGraph` for the cluster heuristic.

    ``arrays["zone"]``: ``(n,)`` int32 zone of each node, ``0..z-1``.
    ``arrays["zone_dist"]``: ``(z, z)`` float64 minimum distance between zones (inf: no path).

    >>> g = CSRGraph.from_edges(4, [0, 1, 2], [1, 2, 3], [1.0, 2.0, 3.0], directed=False)
    >>> zt = CSRZoneTable.build(g, zones=[0, 0, 1, 1])
    >>> zt.heuristic(0, 3), zt.find_path(0, 3).cost
    (2.0, 6.0)
    """

    kind = "csr_zones"
    version = 1

    @classmethod
    def build(cls, graph: CSRGraph, *, zone_size: float | None = None, zones: Any = None,
              max_zones: int = MAX_ZONES) -> CSRZoneTable:
        """Build from ``zones`` (``(n,)`` integer zone ids, any labels, renumbered in order
        of first appearance) or ``zone_size`` (grid of that side over the graph's coords, in
        coordinate units).  More than ``max_zones`` zones is refused (8 z² bytes)."""
        if not isinstance(graph, CSRGraph):
            raise InvalidGridError(f"zone tables need a CSRGraph, got {type(graph).__name__}")
        n = graph.num_nodes
        if (zones is None) == (zone_size is None):
            raise InvalidQueryError("give exactly one of zones= (a mapping) or zone_size=")
        if zone_size is None:
            lab = np.asarray(zones)
            if lab.shape != (n,) or (n and not np.issubdtype(lab.dtype, np.integer)):
                raise InvalidQueryError(f"zones must be {n} integer zone ids (one per node), "
                                        f"got shape {lab.shape} dtype {lab.dtype}")
            _, first, inv = np.unique(lab, return_index=True, return_inverse=True)
            rank = np.empty(len(first), dtype=np.int64)
            rank[np.argsort(first, kind="stable")] = np.arange(len(first))
            zone = rank[inv.ravel()].astype(np.int32)
            options: dict[str, Any] = {"zones": "mapping"}
        else:
            if graph.coords is None:
                raise InvalidQueryError("zone_size needs a graph with coords; give zones=")
            zone = grid_zones(graph.coords, zone_size)
            options = {"zone_size": float(zone_size)}
        count = int(zone.max()) + 1 if n else 0
        if count > max_zones:
            raise InvalidQueryError(f"{count} zones is more than max_zones={max_zones} "
                                    f"({8 * count * count / 1e6:.0f} MB of table)")
        t0 = time.perf_counter()
        table = zone_distances(graph, zone, count)
        return cls(graph, {"zone": zone, "zone_dist": table}, options,
                   time.perf_counter() - t0)

    @classmethod
    def _members(cls, graph: CSRGraph, options: dict[str, Any]) -> dict[str, int]:
        if "zones" in options:
            _saved.choice(options["zones"], "option zones", ("mapping",))
        else:
            _saved.number(_saved.option(options, "zone_size"), "option zone_size",
                           positive=True)
        n = graph.num_nodes
        return {"zone": 4 * n, "zone_dist": 8 * n * n}

    @classmethod
    def _restore(cls, graph: CSRGraph, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> CSRZoneTable:
        n = graph.num_nodes
        t = _saved.array(arrays, "zone_dist", np.float64, (None, None))
        z = len(t)
        if t.shape != (z, z) or z > n or (n and not z):
            raise IndexFormatError(f"array 'zone_dist' must be square with 1 to {n} zones, "
                                   f"got shape {t.shape}")
        zone = _saved.values_in(_saved.array(arrays, "zone", np.int32, (n,)), "zone", 0,
                                 z - 1)
        _saved.costs(t, "zone_dist", inf=True)
        if np.any(np.diag(t) != 0):
            raise IndexFormatError("array 'zone_dist' is not 0 on its diagonal")
        # A zone bound is never above the cost of an edge between the two zones.
        src = np.repeat(np.arange(n), np.diff(graph.indptr))
        over = t[zone[src], zone[graph.indices]] > graph.weights
        if over.any():
            e = int(np.argmax(over))
            raise IndexFormatError(
                f"array 'zone_dist' holds zone_dist[{zone[src[e]]}, {zone[graph.indices[e]]}]"
                f" = {t[zone[src[e]], zone[graph.indices[e]]]}, more than the edge "
                f"{src[e]} -> {graph.indices[e]} of cost {graph.weights[e]} between them")
        return cls(graph, {"zone": zone, "zone_dist": t}, options, build_time)

    @property
    def zone(self) -> np.ndarray:
        """``(n,)`` int32 zone ids."""
        return self.arrays["zone"]

    @property
    def zone_dist(self) -> np.ndarray:
        """``(z, z)`` float64 zone-to-zone minimum distances."""
        return self.arrays["zone_dist"]

    @property
    def num_zones(self) -> int:
        return len(self.zone_dist)

    def heuristic(self, node: Any, goal: Any) -> float:
        """The cluster bound alone: ``zone_dist[zone(node), zone(goal)]``."""
        x, g = self.graph._node(node, name="node"), self.graph._node(goal, name="goal")
        return float(self.zone_dist[self.zone[x], self.zone[g]])

    def reachable(self, start: Any, goal: Any) -> bool:
        """Whether the goal's zone can be reached from the start's (a necessary condition,
        and sufficient when zones are strongly connected)."""
        return bool(np.isfinite(self.heuristic(start, goal)))

    def find_path(self, start: Any, goal: Any, *, record: bool = False) -> PathResult:
        """Compiled A* with h = max(Euclidean, cluster bound); optimal (``"astar_zones"``)."""
        return self.graph.find_path(start, goal, record=record, zones=self)
