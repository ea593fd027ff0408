"""Generic graphs: the :class:`Graph` protocol, adjacency lists and compiled CSR graphs."""

from .csr import CSRGraph
from .protocol import AdjacencyGraph, Graph

__all__ = ["AdjacencyGraph", "CSRGraph", "Graph"]
