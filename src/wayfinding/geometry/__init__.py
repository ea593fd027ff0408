"""Planar geometry shared by the world representations: exact orientation and in-circle
predicates, polygonal obstacles and vectorised clearance tests for points and segments (for
an agent of a given radius)."""

from .obstacles import TOLERANCE, Obstacles
from .predicates import incircle, orient2d

__all__ = ["TOLERANCE", "Obstacles", "incircle", "orient2d"]
