"""Fields over grids: integration fields (Dijkstra, fast marching, the line-of-sight pass),
flow fields, flow-field tiles, and continuum crowds / the hybrid vector field."""

from .continuum import ContinuumField, ContinuumParams, HybridPlan, HybridPlanner
from .flow import GOAL, NONE, FlowField
from .integration import dijkstra_field, eikonal_field, line_of_sight_times, visible_cells
from .tiles import FlowTiles, TileRoute, Window

__all__ = ["GOAL", "NONE", "ContinuumField", "ContinuumParams", "FlowField", "FlowTiles",
           "HybridPlan", "HybridPlanner", "TileRoute", "Window", "dijkstra_field",
           "eikonal_field", "line_of_sight_times", "visible_cells"]
