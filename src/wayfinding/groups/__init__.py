"""Groups and formations: groups of agents and of groups, formation shapes and slot
assignment, formation following, group-level planning and group avoidance."""

from .assign import METHODS, assign_slots
from .avoidance import GroupAvoidance
from .flocking import SOCIAL_SHAPES, Flock, social_offsets, social_velocities
from .following import MODES, FormationFollower, step_formations
from .hierarchy import STAGES, AgentGroup, GroupState, Pipeline, Snapshot, Stage, update_groups
from .metrics import FormationRun
from .planning import BULK, NARROW, GroupPlan, plan_group_path, swept_radius
from .reform import ReformChoice, blend_candidates, reform, time_to_reform
from .scenarios import (
    FORMATION_SCENARIOS,
    formation_crossing,
    formation_crowd,
    formation_door,
    formation_scenario,
)
from .shapes import KINDS, FormationShape

__all__ = ["BULK", "FORMATION_SCENARIOS", "KINDS", "METHODS", "MODES", "NARROW", "SOCIAL_SHAPES",
           "STAGES", "AgentGroup", "Flock", "FormationFollower", "FormationRun", "FormationShape",
           "GroupAvoidance", "GroupPlan", "GroupState", "Pipeline", "ReformChoice", "Snapshot",
           "Stage", "assign_slots", "blend_candidates", "formation_crossing", "formation_crowd",
           "formation_door", "formation_scenario", "plan_group_path", "reform", "social_offsets",
           "social_velocities", "step_formations", "swept_radius", "time_to_reform",
           "update_groups"]
