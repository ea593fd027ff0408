"""Crowds: agents as structure-of-arrays stepped at a fixed time step, with compiled
nearest-neighbour queries; steering behaviours; ORCA among agents and obstacles; the
time-to-collision power law; a crowd manager that plans and follows paths over meshes,
grids and flow fields; recorded runs with their metrics, and a scenario suite."""

from .agents import Crowd
from .locomotion import Locomotion, stay_within, velocity_obstacles
from .metrics import Run, record
from .navigator import Navigator
from .orca import ORCA
from .powerlaw import PowerLaw, time_to_collision
from .scenarios import SCENARIOS, Scenario, scenario, simulate
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

__all__ = [
    "Crowd", "Locomotion", "Navigator", "ORCA", "PowerLaw", "Run", "SCENARIOS", "Scenario",
    "Wander", "alignment", "arrive", "avoid_obstacles", "avoid_walls", "by_priority", "cohesion",
    "evade", "flee", "follow_flow", "follow_path", "pursue", "record", "scenario", "seek",
    "separation", "simulate", "stay_within", "time_to_collision", "truncated_sum",
    "velocity_obstacles", "weighted_sum",
]
