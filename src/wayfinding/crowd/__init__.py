"""Crowds: agents as structure-of-arrays stepped at a fixed time step, with compiled
nearest-neighbour queries."""

from .agents import Crowd

__all__ = ["Crowd"]
