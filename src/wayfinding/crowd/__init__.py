"""Crowds: agents as structure-of-arrays stepped at a fixed time step, with compiled
nearest-neighbour queries; steering behaviours; ORCA among agents and obstacles; the
time-to-collision power law."""

from .agents import Crowd
from .orca import ORCA
from .powerlaw import PowerLaw, time_to_collision
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

__all__ = ["ORCA", "Crowd", "PowerLaw", "Wander", "alignment", "arrive", "by_priority",
           "cohesion", "evade", "flee", "pursue", "seek", "separation", "time_to_collision",
           "weighted_sum"]
