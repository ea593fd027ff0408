"""Traffic: lane-aware road networks, routes with per-driver costs, the lattice planner over
lanes, and predicted trajectories."""

from .lattice import (
    LatticeCosts,
    LatticePath,
    lattice_node_costs,
    plan_lattice,
    propagate_speeds,
    turn_speed_limits,
)
from .levels import TrafficLod, road_lattice, traffic_lod
from .prediction import CarField, Trajectory
from .roads import Lane, LaneSpec, LaneType, RoadNetwork, road_grid, sample_cubic
from .routes import DriverCosts, RoutePlanner

__all__ = [
    "CarField",
    "DriverCosts",
    "Lane",
    "LaneSpec",
    "LaneType",
    "LatticeCosts",
    "LatticePath",
    "RoadNetwork",
    "RoutePlanner",
    "TrafficLod",
    "Trajectory",
    "lattice_node_costs",
    "plan_lattice",
    "propagate_speeds",
    "road_grid",
    "road_lattice",
    "sample_cubic",
    "traffic_lod",
    "turn_speed_limits",
]
