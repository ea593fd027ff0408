"""Path post-processing for agents: turning-radius paths between poses, formations that
follow a path, and smooth paths through a corridor of clearance disks."""

from .formation import Formation
from .optimize import SmoothPath, grid_clear, grid_corridor, smooth_corridor
from .turning import TurningPath, turning_path

__all__ = ["Formation", "SmoothPath", "TurningPath", "grid_clear", "grid_corridor",
           "smooth_corridor", "turning_path"]
