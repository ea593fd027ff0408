"""The graph protocol every generic search accepts, and a plain adjacency-list graph."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from .._validate import flag
from ..errors import InvalidGridError

Node = Hashable
#: The node type of an :class:`AdjacencyGraph`.
N = TypeVar("N", bound=Hashable)


@runtime_checkable
class Graph(Protocol):
    """Anything with ``successors(node)`` yielding ``(neighbour, cost)`` pairs (cost >= 0).

    Nodes are any hashable values.  A graph may also define ``heuristic(node, goal)``, an
    estimate of the remaining cost that searches use when no other heuristic is given.
    Parallel edges are allowed; searches take the cheapest.
    """

    def successors(self, node: Any) -> Iterable[tuple[Any, float]]: ...


class AdjacencyGraph(Generic[N]):
    """A directed graph stored as ``{node: [(neighbour, cost), ...]}``.

    Costs must be finite and >= 0; nodes only reached as targets are added with no edges.

    >>> g = AdjacencyGraph.from_edges([("A", "B", 4), ("B", "C", 5)], directed=False)
    >>> sorted(g.successors("B"))
    [('A', 4.0), ('C', 5.0)]
    """

    def __init__(self, adjacency: Mapping[N, Iterable[tuple[N, float]]] | None = None):
        self._adj: dict[N, list[tuple[N, float]]] = {}
        for node, edges in (adjacency or {}).items():
            self._adj.setdefault(node, [])
            for target, cost in edges:
                self.add_edge(node, target, cost)

    @classmethod
    def from_edges(cls, edges: Iterable[tuple[N, N, float]], *,
                   directed: bool = True) -> AdjacencyGraph[N]:
        """Build from ``(source, target, cost)`` triples; ``directed=False`` adds both ways."""
        directed = flag("directed", directed)
        g: AdjacencyGraph[N] = cls()
        for a, b, cost in edges:
            g.add_edge(a, b, cost)
            if not directed:
                g.add_edge(b, a, cost)
        return g

    def add_edge(self, a: N, b: N, cost: float) -> None:
        """Add the edge a -> b; raises :class:`InvalidGridError` for a negative or NaN cost."""
        try:
            c = float(cost)
        except (TypeError, ValueError):
            raise InvalidGridError(f"edge {a!r} -> {b!r} has cost {cost!r}, not a number") \
                from None
        if math.isnan(c) or c < 0 or math.isinf(c):
            raise InvalidGridError(
                f"edge {a!r} -> {b!r} has cost {cost!r}; costs must be finite and >= 0")
        self._adj.setdefault(a, []).append((b, c))
        self._adj.setdefault(b, [])

    def successors(self, node: N) -> list[tuple[N, float]]:
        return self._adj.get(node, [])

    @property
    def nodes(self) -> list[N]:
        return list(self._adj)

    def __contains__(self, node: object) -> bool:
        return node in self._adj

    def __len__(self) -> int:
        return len(self._adj)
