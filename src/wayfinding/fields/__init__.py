"""Fields over grids: integration fields (Dijkstra, fast marching, the line-of-sight pass),
flow fields and flow-field tiles."""

from .flow import GOAL, NONE, FlowField
from .integration import dijkstra_field, eikonal_field, line_of_sight_times, visible_cells
from .tiles import FlowTiles, TileRoute, Window

__all__ = ["GOAL", "NONE", "FlowField", "FlowTiles", "TileRoute", "Window", "dijkstra_field",
           "eikonal_field", "line_of_sight_times", "visible_cells"]
