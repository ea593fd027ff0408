"""Crowds: agents as structure-of-arrays stepped at a fixed time step, with compiled
nearest-neighbour queries; steering behaviours and their combinations (weighted, by
priority, restrictors and directors); context steering (:mod:`.context`); local
avoidance (ORCA among agents and obstacles, velocity obstacles and RVO, the
time-to-collision power law, anticipatory forces, very temporary obstacle avoidance,
path-sweep avoidance for preplanned paths); flying agents in voxel worlds (ORCA in 3D with
RVO2-3D's semantics, 3D steering); a crowd manager that plans and follows paths
over meshes, grids and flow fields, and on 3D navmeshes; recorded runs with their metrics,
and a scenario suite."""

from typing import Any

from .._deprecated import warn
from .agents import Crowd
from .anticipation import AnticipatoryForces
from .context import ContextMap
from .detour import Detour, detour
from .flight import FlightCrowd, orca3d_velocities
from .flight_steering import arrive3, avoid_voxels, neighbours3, seek3, separation3
from .locomotion import Locomotion, stay_within
from .metrics import Run, record
from .navigator import ClearanceWarning, Navigator
from .orca import ORCA
from .powerlaw import PowerLaw, time_to_collision
from .scenarios import SCENARIOS, CrowdScenario, scenario, simulate, simulate_crowd
from .steering import (
    Wander,
    alignment,
    arrive,
    avoid_obstacles,
    avoid_walls,
    by_priority,
    cohesion,
    evade,
    flee,
    follow_flow,
    follow_path,
    pursue,
    seek,
    separation,
    truncated_sum,
    weighted_sum,
)
from .surface import Navigator3D
from .sweep import Order, PathAvoidance
from .vo import VelocityObstacles

__all__ = [
    "AnticipatoryForces", "ClearanceWarning", "ContextMap", "Crowd", "CrowdScenario", "Detour",
    "FlightCrowd", "Locomotion", "Navigator", "Navigator3D", "ORCA", "Order", "PathAvoidance",
    "PowerLaw", "Run", "SCENARIOS", "VelocityObstacles", "Wander",
    "alignment", "arrive", "arrive3", "avoid_obstacles", "avoid_voxels", "avoid_walls",
    "by_priority", "cohesion", "detour", "evade", "flee", "follow_flow", "follow_path",
    "neighbours3", "orca3d_velocities", "pursue", "record", "scenario", "seek", "seek3",
    "separation", "separation3", "simulate_crowd", "stay_within", "time_to_collision",
    "truncated_sum", "weighted_sum",
    # deprecated name, kept for one release (and Scenario, served with a warning)
    "simulate",
]


def __getattr__(name: str) -> Any:
    """``Scenario``, the deprecated name of :class:`CrowdScenario` (the class itself)."""
    if name == "Scenario":
        warn("wayfinding.crowd.Scenario", "CrowdScenario")
        return CrowdScenario
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
