"""Tile grids: the :class:`Grid`, Moving AI files, and the compiled grid searches."""

from .grid import Grid
from .heuristics import HEURISTIC_CODES
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
from .terrain import ASCII_TERRAIN, MOVINGAI_TERRAIN

__all__ = [
    "ALGORITHMS", "ASCII_TERRAIN", "Diagonal", "Grid", "GridSearch", "HEURISTIC_CODES",
    "MOVINGAI_TERRAIN", "Problem", "Scenario", "distance_map", "find_path", "find_paths",
    "format_map", "format_scen", "read_map", "read_scen", "write_map", "write_scen",
]
