"""Climbing: traversal markup (ledges, pipes, ladders), climb graphs with explicit and jump
links, climb search, smoothed climbing paths and generated climbing walls."""

from .graph import ClimbGraph, EdgeKind, build_climb_graph
from .markup import Blockers, Capabilities, ElementKind, TraversalElement, transform_points
from .scenes import ClimbingWall, climbing_wall
from .search import (
    ClimbPath,
    ClimbPosition,
    ClimbReservations,
    ClueLink,
    clue_links,
    find_climb_path,
    nearest_position,
)
from .spline import ClimbSpline, LookAhead

__all__ = ["Blockers", "Capabilities", "ClimbGraph", "ClimbPath", "ClimbPosition",
           "ClimbReservations", "ClimbSpline", "ClimbingWall", "ClueLink", "EdgeKind",
           "ElementKind", "LookAhead", "TraversalElement", "build_climb_graph",
           "climbing_wall", "clue_links", "find_climb_path", "nearest_position",
           "transform_points"]
