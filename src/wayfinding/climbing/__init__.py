"""Climbing: traversal markup (ledges, pipes, ladders), climb graphs with explicit and jump
links, climb search, smoothed climbing paths, one movement state machine for players and
AI, and generated climbing walls."""

from .graph import ClimbGraph, EdgeKind, build_climb_graph
from .markup import Blockers, Capabilities, ElementKind, TraversalElement, transform_points
from .movement import ClimbFollower, ClimbMode, ClimbProcessor, ClimbState, LookAheadDriver
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

__all__ = ["Blockers", "Capabilities", "ClimbFollower", "ClimbGraph", "ClimbMode",
           "ClimbPath", "ClimbPosition", "ClimbProcessor", "ClimbReservations", "ClimbSpline",
           "ClimbState", "ClimbingWall", "ClueLink", "EdgeKind", "ElementKind", "LookAhead",
           "LookAheadDriver", "TraversalElement", "build_climb_graph", "climbing_wall",
           "clue_links", "find_climb_path", "nearest_position", "transform_points"]
