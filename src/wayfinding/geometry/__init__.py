"""Planar geometry shared by the world representations: exact orientation and in-circle
predicates, polygonal obstacles and vectorised clearance tests for points and segments (for
an agent of a given radius), tangents between wrapped circles, string pulling through
portals, angles wrapped into (-pi, pi]."""

from .angles import wrap_angle
from .circles import circle_tangent
from .funnel import funnel_path
from .obstacles import TOLERANCE, Obstacles, segment_gaps, segments_cross
from .predicates import incircle, orient2d

__all__ = ["TOLERANCE", "Obstacles", "circle_tangent", "funnel_path", "incircle", "orient2d",
           "segment_gaps", "segments_cross", "wrap_angle"]
