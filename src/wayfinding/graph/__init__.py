"""Generic graphs: the :class:`Graph` protocol, adjacency lists and compiled CSR graphs, with
their differential heuristics and goal bounds; world representations whose nodes sit at world
points (waypoints, Dirichlet domains, points of visibility, probabilistic roadmaps)."""

from .csr import CSRGraph
from .differential import CSRDifferentialHeuristic
from .dirichlet import DirichletDomains
from .goal_bounds import CSRGoalBounds
from .positioned import PositionedGraph
from .protocol import AdjacencyGraph, Graph
from .roadmap import Roadmap
from .visibility import VisibilityGraph
from .waypoints import WaypointGraph

__all__ = ["AdjacencyGraph", "CSRDifferentialHeuristic", "CSRGoalBounds", "CSRGraph", "Graph"]
__all__ += ["DirichletDomains", "PositionedGraph", "Roadmap", "VisibilityGraph", "WaypointGraph"]
