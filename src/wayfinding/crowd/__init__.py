"""Crowds: agents as structure-of-arrays stepped at a fixed time step, with compiled
nearest-neighbour queries; steering behaviours; ORCA among agents and obstacles; the
time-to-collision power law; recorded runs with their metrics, and a scenario suite."""

from .agents import Crowd
from .metrics import Run, record
from .orca import ORCA
from .powerlaw import PowerLaw, time_to_collision
from .scenarios import SCENARIOS, Scenario, scenario, simulate
from .steering import (
    Wander,
    alignment,
    arrive,
    by_priority,
    cohesion,
    evade,
    flee,
    pursue,
    seek,
    separation,
    weighted_sum,
)

__all__ = ["ORCA", "SCENARIOS", "Crowd", "PowerLaw", "Run", "Scenario", "Wander", "alignment",
           "arrive", "by_priority", "cohesion", "evade", "flee", "pursue", "record",
           "scenario", "seek", "separation", "simulate", "time_to_collision", "weighted_sum"]
