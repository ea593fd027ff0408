"""Crowds: agents as structure-of-arrays stepped at a fixed time step, with compiled
nearest-neighbour queries; steering behaviours; ORCA among agents and obstacles."""

from .agents import Crowd
from .orca import ORCA
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

__all__ = ["ORCA", "Crowd", "Wander", "alignment", "arrive", "by_priority", "cohesion",
           "evade", "flee", "pursue", "seek", "separation", "weighted_sum"]
