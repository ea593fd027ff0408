"""Planar geometry shared by the world representations: polygonal obstacles and vectorised
clearance tests for points and segments (for an agent of a given radius)."""

from .obstacles import TOLERANCE, Obstacles

__all__ = ["TOLERANCE", "Obstacles"]
