"""wayfinding: navigation for games and virtual worlds.

Floors (imports only go down; the README's architecture section spells them out):

* apps: ``cli``, ``demo``, ``bench``, ``viz``, ``serve``;
* movement: ``fields``, ``crowd``, ``groups``, ``vehicles``, ``traffic``, ``climbing``,
  ``planning``;
* search: ``search`` (generic algorithms over the graph protocol), ``paths``;
* worlds: ``navmesh``, ``navmesh3d``, ``voxel`` > ``grid`` > ``graph``, each with its own
  fast searches;
* base: ``geometry``, ``constraints``, ``errors``, ``results``, ``sliced`` and the compiled
  ``_kernels``.
"""

from ._kernels._workspace import Workspace
from .constraints import Constraint, ConstraintSet
from .errors import (
    FileFormatError,
    IndexFormatError,
    IndexMismatchError,
    InvalidGridError,
    InvalidQueryError,
    MapFormatError,
    ScenarioFormatError,
    WayfindingError,
)
from .graph import AdjacencyGraph, CSRGraph, Graph
from .grid import Diagonal, Grid, GridSearch, distance_map, find_paths, read_map, read_scen
from .results import PathResult, SearchStats, Status
from .search import find_path, start_search
from .sliced import SlicedSearch
from .voxel import VoxelGrid

__version__ = "0.1.0"

__all__ = [
    "AdjacencyGraph", "CSRGraph", "Constraint", "ConstraintSet", "Diagonal", "FileFormatError",
    "Graph", "Grid",
    "GridSearch", "IndexFormatError", "IndexMismatchError", "InvalidGridError",
    "InvalidQueryError", "MapFormatError", "PathResult",
    "ScenarioFormatError", "SearchStats", "SlicedSearch", "Status", "VoxelGrid", "WayfindingError",
    "Workspace",
    "distance_map", "find_path", "find_paths", "read_map", "read_scen", "start_search",
]
