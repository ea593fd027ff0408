"""Groups and formations: groups of agents and of groups, formation shapes and slot
assignment, formation following, group-level planning and group avoidance."""

from .assign import METHODS, assign_slots
from .following import MODES, FormationFollower, step_formations
from .hierarchy import STAGES, AgentGroup, GroupState, Pipeline, Snapshot, Stage, update_groups
from .reform import ReformChoice, blend_candidates, reform, time_to_reform
from .shapes import KINDS, FormationShape

__all__ = ["KINDS", "METHODS", "MODES", "STAGES", "AgentGroup", "FormationFollower",
           "FormationShape", "GroupState", "Pipeline", "ReformChoice", "Snapshot", "Stage",
           "assign_slots", "blend_candidates", "reform", "step_formations", "time_to_reform",
           "update_groups"]
