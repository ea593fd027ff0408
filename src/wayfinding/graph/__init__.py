"""Generic graphs: the :class:`Graph` protocol, adjacency lists and compiled CSR graphs, with
their differential heuristics, goal bounds, path tables, zone tables and exit tables."""

from .csr import CSRGraph
from .differential import CSRDifferentialHeuristic
from .exit_tables import CSRExitTables
from .goal_bounds import CSRGoalBounds
from .protocol import AdjacencyGraph, Graph
from .tables import CSRPathTable
from .zone_tables import CSRZoneTable

__all__ = ["AdjacencyGraph", "CSRDifferentialHeuristic", "CSRExitTables", "CSRGoalBounds",
           "CSRGraph", "CSRPathTable", "CSRZoneTable", "Graph"]
