"""Tile grids: the :class:`Grid`, Moving AI files, the compiled grid searches and the
preprocessed indexes (JPS+, goal bounds, subgoal graphs, differential heuristics, HPA*),
any-angle paths, and hex grids."""

from .anyangle import ANY_ANGLE, AnyAngle
from .canonical import canonical_distance_map
from .constrained import GridConstraintDomain, grid_domain
from .differential import DifferentialHeuristic
from .goal_bounds import GoalBounds
from .grid import Grid
from .heuristics import HEURISTIC_CODES
from .hex import HexGrid, hex_distance
from .hpa import HPAStar
from .index import INDEX_KINDS, GridIndex, load_index, read_index_info
from .jps import JPSPlus, find_path_jps, primary_jump_points
from .methods import METHODS, make_solver
from .movingai import (
    Problem,
    Scenario,
    format_map,
    format_scen,
    read_map,
    read_scen,
    write_map,
    write_scen,
)
from .rules import Diagonal
from .search import ALGORITHMS, GridSearch, distance_map, find_path, find_paths
from .smoothing import smooth_path
from .subgoal import SubgoalGraph, SubgoalTable
from .terrain import ASCII_TERRAIN, MOVINGAI_TERRAIN

__all__ = [
    "ALGORITHMS", "ANY_ANGLE", "ASCII_TERRAIN", "AnyAngle", "Diagonal",
    "DifferentialHeuristic", "GoalBounds", "Grid", "GridConstraintDomain", "GridIndex",
    "GridSearch", "HEURISTIC_CODES", "HPAStar", "HexGrid", "INDEX_KINDS", "JPSPlus", "METHODS",
    "MOVINGAI_TERRAIN", "Problem", "Scenario", "SubgoalGraph", "SubgoalTable",
    "canonical_distance_map", "distance_map", "find_path", "find_path_jps", "find_paths",
    "format_map", "format_scen", "grid_domain", "hex_distance", "load_index", "make_solver",
    "primary_jump_points", "read_index_info", "read_map", "read_scen", "smooth_path",
    "write_map", "write_scen"
]
