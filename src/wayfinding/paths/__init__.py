"""Path post-processing for agents: turning-radius paths between poses and formations that
follow a path."""

from .formation import Formation
from .turning import TurningPath, turning_path

__all__ = ["Formation", "TurningPath", "turning_path"]
