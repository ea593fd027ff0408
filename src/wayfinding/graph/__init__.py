"""Generic graphs: the :class:`Graph` protocol, adjacency lists and compiled CSR graphs, with
their differential heuristics and goal bounds; world representations whose nodes sit at world
points (waypoints, Dirichlet domains, points of visibility, probabilistic roadmaps); instanced
building graphs placed in a world graph."""

from .csr import CSRGraph
from .differential import CSRDifferentialHeuristic
from .dirichlet import DirichletDomains
from .goal_bounds import CSRGoalBounds
from .instanced import InstanceGraph, WorldGraph, assign_node_offsets
from .positioned import PositionedGraph
from .protocol import AdjacencyGraph, Graph
from .roadmap import Roadmap
from .visibility import VisibilityGraph
from .waypoints import WaypointGraph

__all__ = [
    "AdjacencyGraph", "CSRDifferentialHeuristic", "CSRGoalBounds", "CSRGraph",
    "DirichletDomains", "Graph", "InstanceGraph", "PositionedGraph", "Roadmap",
    "VisibilityGraph", "WaypointGraph", "WorldGraph", "assign_node_offsets",
]
