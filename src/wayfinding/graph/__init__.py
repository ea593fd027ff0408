"""Generic graphs: the :class:`Graph` protocol, adjacency lists and compiled CSR graphs, with
their differential heuristics, goal bounds, path tables, zone tables and exit tables; world
representations whose nodes sit at world points (waypoints, Dirichlet domains, points of
visibility, probabilistic roadmaps); instanced building graphs placed in a world graph."""

from .constrained import ConstrainedPath, ConstraintDomain
from .csr import CSRGraph
from .differential import CSRDifferentialHeuristic
from .dirichlet import DirichletDomains
from .exit_tables import CSRExitTables
from .goal_bounds import CSRGoalBounds
from .instanced import InstanceGraph, WorldGraph, assign_node_offsets
from .positioned import PositionedGraph
from .protocol import AdjacencyGraph, Graph
from .roadmap import Roadmap
from .tables import CSRPathTable
from .visibility import VisibilityGraph
from .waypoints import WaypointGraph
from .zone_tables import CSRZoneTable

__all__ = [
    "AdjacencyGraph", "CSRDifferentialHeuristic", "CSRExitTables", "CSRGoalBounds", "CSRGraph",
    "CSRPathTable", "CSRZoneTable", "ConstrainedPath", "ConstraintDomain", "DirichletDomains",
    "Graph", "InstanceGraph", "PositionedGraph", "Roadmap", "VisibilityGraph", "WaypointGraph",
    "WorldGraph", "assign_node_offsets"
]
