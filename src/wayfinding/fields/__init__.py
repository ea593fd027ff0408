"""Fields over grids: integration fields (Dijkstra, fast marching) and flow fields."""

from .flow import GOAL, NONE, FlowField
from .integration import dijkstra_field, eikonal_field, line_of_sight_times, visible_cells

__all__ = ["GOAL", "NONE", "FlowField", "dijkstra_field", "eikonal_field",
           "line_of_sight_times", "visible_cells"]
