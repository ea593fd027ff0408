"""Fields over grids: integration fields (Dijkstra, fast marching, the line-of-sight pass),
flow fields, flow-field tiles, continuum crowds / the hybrid vector field, potential fields,
congestion maps and the wavefront planner."""

from .congestion import CongestionMap
from .continuum import ContinuumField, ContinuumParams, HybridPlan, HybridPlanner
from .flow import GOAL, NONE, FlowField
from .integration import dijkstra_field, eikonal_field, line_of_sight_times, visible_cells
from .potential import Cone, Linear, PheromoneTrail, Potential, PotentialField, Radial, Ring
from .tiles import FlowTiles, TileRoute, Window
from .wavefront import Wavefront

__all__ = ["GOAL", "NONE", "CongestionMap", "Cone", "ContinuumField", "ContinuumParams",
           "FlowField", "FlowTiles", "HybridPlan", "HybridPlanner", "Linear", "PheromoneTrail",
           "Potential", "PotentialField", "Radial", "Ring", "TileRoute", "Wavefront", "Window",
           "dijkstra_field", "eikonal_field", "line_of_sight_times", "visible_cells"]
