"""Path post-processing for agents: turning-radius paths between poses (forward only, or
forward and reverse), formations that follow a path, and smooth paths through a corridor of
clearance disks."""

from .formation import Formation
from .optimize import SmoothPath, grid_clear, grid_corridor, smooth_corridor
from .reeds_shepp import ReedsSheppPath, reeds_shepp_path
from .turning import TurningPath, turning_path

__all__ = ["Formation", "ReedsSheppPath", "SmoothPath", "TurningPath", "grid_clear",
           "grid_corridor", "reeds_shepp_path", "smooth_corridor", "turning_path"]
