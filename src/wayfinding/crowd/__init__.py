"""Crowds: agents as structure-of-arrays stepped at a fixed time step, with compiled
nearest-neighbour queries, and ORCA between agents."""

from .agents import Crowd
from .orca import ORCA

__all__ = ["ORCA", "Crowd"]
