"""Instanced geometry: one graph per building type, placed many times in a world graph.

Nodes are integers.  The world (landscape) graph owns nodes ``0..W-1``; each placed
building (an *instance*) owns the next block of ids, ``offset..offset+size-1``, where the
first offset is ``W`` and each next one is the previous offset plus the previous instance's
size (:func:`assign_node_offsets`).  An instance's local node ``i`` is world node
``offset + i``.

A building-type graph is shared by all its instances and never modified: an
:class:`InstanceGraph` translates its edges into new ``(node, cost)`` pairs and adds the
instance's *exit* edges (from local exit nodes to world nodes); a :class:`WorldGraph`
presents the whole world as one graph, adding *entrance* edges (from world nodes to
instance nodes).  Exit and entrance edges cost 0 by default: the two ends are taken as the
same place.

>>> from wayfinding import AdjacencyGraph
>>> house = AdjacencyGraph.from_edges([(0, 1, 1), (1, 2, 1)], directed=False)
>>> land = AdjacencyGraph.from_edges([(i, i + 1, 1) for i in range(9)], directed=False)
>>> world = WorldGraph(land, 10)
>>> inst = world.add_instance(house, exits={0: 5}, entrances={5: 0})
>>> inst.offset, world.building_of(11)
(10, (0, 1))
>>> sorted(world.successors(10))
[(5, 0.0), (11, 1.0)]
"""

from __future__ import annotations

import bisect
import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from .._validate import count as check_count
from ..errors import InvalidGridError, InvalidQueryError
from .protocol import AdjacencyGraph, Graph


def assign_node_offsets(world_node_count: int, sizes: Iterable[int]) -> list[int]:
    """Node offsets of instances of the given sizes placed after a world of
    ``world_node_count`` nodes: ``[W, W + sizes[0], W + sizes[0] + sizes[1], ...]``.

    >>> assign_node_offsets(10_000, [100, 200, 100])
    [10000, 10100, 10300]
    """
    count = _count(world_node_count, "world_node_count")
    out = []
    for size in sizes:
        out.append(count)
        count += _count(size, "instance size")
    return out


def _integer(value: Any) -> int | None:
    """``value`` as a Python int when it is an integer (numpy integers too, never a
    bool), else None."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return None


def _count(value: Any, name: str) -> int:
    return check_count(name, value, min=0, error=InvalidGridError)


def _links(spec: Mapping[Any, Any] | None, what: str) -> dict[int, tuple[tuple[int, float], ...]]:
    """``{node: target | (target, cost) | [target or (target, cost), ...]}`` normalised to
    ``{node: ((target, cost), ...)}`` (cost 0 when not given).  A pair is always
    ``(target, cost)``: ``{0: (5, 7)}`` is one link to 5 costing 7; links to 5 and 7 are
    ``{0: [5, 7]}``.  Nodes may be Python or numpy integers."""
    out: dict[Any, tuple[tuple[int, float], ...]] = {}
    for node, targets in (spec or {}).items():
        if _integer(targets) is not None or (
                isinstance(targets, tuple) and len(targets) == 2
                and _integer(targets[0]) is not None
                and not isinstance(targets[1], (tuple, list))):
            targets = [targets]
        links = []
        for t in targets:
            target, cost = (t, 0.0) if _integer(t) is not None else t
            c = float(cost)
            if _integer(target) is None or not (c >= 0 and math.isfinite(c)):
                raise InvalidGridError(f"{what} {node!r} -> {t!r}: needs an integer node and "
                                       "a finite cost >= 0")
            links.append((int(target), c))
        key = _integer(node)
        out[key if key is not None else node] = tuple(links)
    return out


def _type_size(graph: Any, size: int | None) -> int:
    if size is not None:
        return _count(size, "size")
    n = getattr(graph, "num_nodes", None)
    if n is None and hasattr(graph, "__len__"):
        n = len(graph)
    if n is None:
        raise InvalidGridError(f"give the size of the {type(graph).__name__} building graph")
    return int(n)


class InstanceGraph:
    """One placed copy of a building-type graph (nodes ``0..size-1``), seen at its offset.

    ``exits``: ``{local exit node: world node | (world node, cost) | [...]}``; a pair is
    always a node and its cost (``{0: (5, 7)}``: one exit to world node 5 costing 7), several
    exits are a list (``{0: [5, 7]}``).  Node ids may be Python or numpy integers.
    ``successors(node)`` takes and returns world-numbered nodes; the type graph's edge
    list is read, never changed.
    """

    def __init__(self, type_graph: Graph, offset: int, *, size: int | None = None,
                 exits: Mapping[int, Any] | None = None):
        if not hasattr(type_graph, "successors"):
            raise InvalidGridError(f"{type(type_graph).__name__} is not a graph")
        self.type_graph = type_graph
        self.size = _type_size(type_graph, size)
        self.offset = _count(offset, "offset")
        self.exits = _links(exits, "exit")
        for local in self.exits:
            self._local(local, "exit node")

    def _local(self, local: Any, name: str) -> int:
        i = _integer(local)
        if i is None or not 0 <= i < self.size:
            raise InvalidQueryError(f"{name} {local!r} is outside the building's nodes "
                                    f"0..{self.size - 1}")
        return i

    def __contains__(self, node: object) -> bool:
        i = _integer(node)
        return i is not None and self.offset <= i < self.offset + self.size

    def successors(self, node: int) -> list[tuple[int, float]]:
        i = _integer(node)
        local = self._local(i - self.offset if i is not None else node, "local node")
        out = []
        for v, c in self.type_graph.successors(local):
            if not 0 <= v < self.size:
                raise InvalidGridError(f"building graph edge {local} -> {v!r} leaves its "
                                       f"nodes 0..{self.size - 1}")
            out.append((int(v) + self.offset, float(c)))
        out.extend(self.exits.get(local, ()))
        return out

    def __repr__(self) -> str:
        return f"InstanceGraph(offset {self.offset}, {self.size} nodes, {len(self.exits)} exits)"


class WorldGraph:
    """A world graph (nodes ``0..world_node_count-1``) with building instances placed in it,
    presented as one graph for any search.

    :meth:`building_of` finds a node's instance by binary search over the sorted offsets
    (O(log k) for k instances) after checking the instance of the previous query (a
    coherence cache: consecutive queries usually fall in the same building).
    """

    def __init__(self, world_graph: Graph, world_node_count: int):
        if not hasattr(world_graph, "successors"):
            raise InvalidGridError(f"{type(world_graph).__name__} is not a graph")
        self.world_graph = world_graph
        self.world_node_count = _count(world_node_count, "world_node_count")
        self.instances: list[InstanceGraph] = []
        self._offsets: list[int] = []
        self._entrances: dict[int, list[tuple[int, float]]] = {}
        self._last = 0

    @property
    def num_nodes(self) -> int:
        """World nodes plus all instance nodes."""
        if not self.instances:
            return self.world_node_count
        last = self.instances[-1]
        return last.offset + last.size

    def add_instance(self, type_graph: Graph, *, size: int | None = None,
                     exits: Mapping[int, Any] | None = None,
                     entrances: Mapping[int, Any] | None = None) -> InstanceGraph:
        """Place a building: it gets the next block of node ids.

        ``exits``: ``{local node: world node | (world node, cost) | [...]}``;
        ``entrances``: ``{world node: local node | (local node, cost) | [...]}``; costs
        default to 0, a pair is always a node and its cost, several links are a list, and
        node ids may be Python or numpy integers.  Nodes out of range raise
        :class:`InvalidQueryError`; the world is unchanged then.
        """
        inst = InstanceGraph(type_graph, self.num_nodes, size=size, exits=exits)
        for links in inst.exits.values():
            for w, _ in links:
                self._world_node(w, "exit target")
        new = _links(entrances, "entrance")
        for w, links in new.items():
            self._world_node(w, "entrance node")
            for local, _ in links:
                inst._local(local, "entrance target")
        for w, links in new.items():
            self._entrances.setdefault(w, []).extend((inst.offset + i, c) for i, c in links)
        self.instances.append(inst)
        self._offsets.append(inst.offset)
        return inst

    def _world_node(self, node: Any, name: str) -> int:
        i = _integer(node)
        if i is None or not 0 <= i < self.world_node_count:
            raise InvalidQueryError(f"{name} {node!r} is outside the world nodes "
                                    f"0..{self.world_node_count - 1}")
        return i

    def building_of(self, node: int) -> tuple[int, int] | None:
        """``(instance index, local node)`` of an instance node, None for a world node."""
        i = _integer(node)
        if i is None or not 0 <= i < self.num_nodes:
            raise InvalidQueryError(f"node {node!r} is outside 0..{self.num_nodes - 1}")
        node = i
        if node < self.world_node_count:
            return None
        inst = self.instances[self._last]
        if not inst.offset <= node < inst.offset + inst.size:
            self._last = bisect.bisect_right(self._offsets, node) - 1
            inst = self.instances[self._last]
        return self._last, node - inst.offset

    def successors(self, node: int) -> list[tuple[int, float]]:
        where = self.building_of(node)
        node = int(node)
        if where is not None:
            return self.instances[where[0]].successors(node)
        out = [(v, float(c)) for v, c in self.world_graph.successors(node)]
        out.extend(self._entrances.get(node, ()))
        return out

    def flatten(self) -> AdjacencyGraph:
        """An explicit copy of the combined graph (every node and edge), e.g. to convert
        it further or to check searches against."""
        out = AdjacencyGraph({u: [] for u in range(self.num_nodes)})
        for u in range(self.num_nodes):
            for v, c in self.successors(u):
                out.add_edge(u, v, c)
        return out

    def __repr__(self) -> str:
        return (f"WorldGraph({self.world_node_count} world nodes, {len(self.instances)} "
                f"instances, {self.num_nodes} nodes)")
