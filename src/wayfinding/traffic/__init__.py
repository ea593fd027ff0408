"""Traffic: lane-aware road networks, named driver personalities, routes with per-driver
costs (hierarchical over regions linked by bridges, extended past their end), the lattice
planner over lanes and its mid-level step on a road, predicted trajectories, the
trajectory optimiser over the road's potential field, and the simulation stepping many cars
with levels of detail and asynchronous planning."""

from .drivers import DRIVERS, describe, driver
from .lattice import (
    LatticeCosts,
    LatticePath,
    lattice_node_costs,
    plan_lattice,
    propagate_speeds,
    turn_speed_limits,
)
from .levels import (
    LatticeStep,
    TrafficLod,
    lattice_step,
    optimise_step,
    road_lattice,
    traffic_lod,
)
from .optimiser import (
    CarModel,
    OptimisedPath,
    ScoreWeights,
    lattice_seeds,
    optimise_trajectory,
)
from .prediction import CarField, Trajectory
from .regions import RegionRoutes, regions_by_tiles
from .road_field import RoadField
from .roads import Lane, LaneSpec, LaneType, RoadNetwork, road_grid, sample_cubic
from .routes import DriverCosts, RouteExtension, RoutePlanner, extend_route
from .simulation import PlanExecutor, Traffic, TrafficStep, add_random_cars

__all__ = [
    "DRIVERS",
    "CarField",
    "CarModel",
    "DriverCosts",
    "Lane",
    "LaneSpec",
    "LaneType",
    "LatticeCosts",
    "LatticePath",
    "LatticeStep",
    "OptimisedPath",
    "PlanExecutor",
    "RegionRoutes",
    "RoadField",
    "RoadNetwork",
    "RouteExtension",
    "RoutePlanner",
    "ScoreWeights",
    "Traffic",
    "TrafficLod",
    "TrafficStep",
    "Trajectory",
    "add_random_cars",
    "describe",
    "driver",
    "extend_route",
    "lattice_node_costs",
    "lattice_seeds",
    "lattice_step",
    "optimise_step",
    "optimise_trajectory",
    "plan_lattice",
    "propagate_speeds",
    "regions_by_tiles",
    "road_grid",
    "road_lattice",
    "sample_cubic",
    "traffic_lod",
    "turn_speed_limits",
]
