"""Generic graphs: the :class:`Graph` protocol, adjacency lists and compiled CSR graphs, with
their differential heuristics and goal bounds."""

from .csr import CSRGraph
from .differential import CSRDifferentialHeuristic
from .goal_bounds import CSRGoalBounds
from .instanced import InstanceGraph, WorldGraph, assign_node_offsets
from .protocol import AdjacencyGraph, Graph

__all__ = ["AdjacencyGraph", "CSRDifferentialHeuristic", "CSRGoalBounds", "CSRGraph", "Graph"]
__all__ += ["InstanceGraph", "WorldGraph", "assign_node_offsets"]
