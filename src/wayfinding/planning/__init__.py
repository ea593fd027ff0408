"""Planning with the body and beyond the point agent: characters that move by animation clips
and feet — movement planning over a clip graph, locomotion planning along a corridor, footstep
planning for crowds, motion models fitted to a character controller — constraint-aware
planning (AD* over constraint domains, repaired as constraints change; chained specifications
and patrols), and planning with multiple domains of control (static mesh, mesh with a density
field, grid, space-time) that refine a coarse plan in finer domains within a budget per
frame."""

from .clips import Clip, ClipCatalogue, default_clips
from .constrained import ConstraintPlan, ConstraintPlanner, inside_shares, satisfied_shares
from .domain_base import Domain
from .domain_grid import GridDomain
from .domain_maps import MeshGridMap, Tunnel, time_assignment
from .domain_navmesh import DensityDomain, NavMeshDomain
from .domain_spacetime import PublishedPath, SpaceTimeDomain
from .footstep_model import LocomotionModel, StepCurve, froude_speed, pendulum, step_curve
from .footsteps import FootstepPlan, plan_crowd, plan_footsteps, run_footstep_crowd
from .locomotion import LocomotionPath, locomotion_path, process_path
from .locomotion_executor import LocomotionExecutor, LocomotionScheduler, MoveStatus
from .locomotion_plan import Action, ActionStack, LocomotionPlanner, Role, hits_mark
from .motion_fitting import (
    FitFailure,
    ModelChange,
    ModelRegression,
    MotionModelFit,
    compare_models,
    fit_motion_model,
    regenerate,
)
from .motion_models import DecelerationFit, MotionModel, fit_deceleration, speed_range
from .motion_simulation import (
    CharacterController,
    CommandRun,
    ControllerParams,
    MotionCommand,
    MotionTrace,
    RunFailure,
    SimulatedController,
    SimulationSettings,
    simulate,
)
from .movement import MovementPlan, plan_movement
from .multidomain import FrameReport, MultiDomainPlan, MultiDomainPlanner, plan_multidomain
from .specification import (
    Specification,
    SpecificationLeg,
    SpecificationPlan,
    SpecificationRunner,
    plan_specification,
)
from .tasks import GraphTask, PlanningTask, SpaceTimeTask, TaskEvent, task_priority

__all__ = [
    "Action", "ActionStack", "CharacterController", "Clip", "ClipCatalogue", "CommandRun",
    "ConstraintPlan", "ConstraintPlanner", "ControllerParams", "DecelerationFit",
    "DensityDomain", "Domain", "FitFailure", "FootstepPlan", "FrameReport", "GraphTask",
    "GridDomain", "LocomotionExecutor", "LocomotionModel", "LocomotionPath",
    "LocomotionPlanner", "LocomotionScheduler", "MeshGridMap", "ModelChange",
    "ModelRegression", "MotionCommand", "MotionModel", "MotionModelFit", "MotionTrace",
    "MoveStatus", "MovementPlan", "MultiDomainPlan", "MultiDomainPlanner", "NavMeshDomain",
    "PlanningTask", "PublishedPath", "Role", "RunFailure", "SimulatedController",
    "SimulationSettings", "SpaceTimeDomain", "SpaceTimeTask", "Specification",
    "SpecificationLeg", "SpecificationPlan", "SpecificationRunner", "StepCurve", "TaskEvent",
    "Tunnel", "compare_models", "default_clips", "fit_deceleration", "fit_motion_model",
    "froude_speed", "hits_mark", "inside_shares", "locomotion_path", "pendulum", "plan_crowd",
    "plan_footsteps", "plan_movement", "plan_multidomain", "plan_specification",
    "process_path", "regenerate", "run_footstep_crowd", "satisfied_shares", "simulate",
    "speed_range", "step_curve", "task_priority", "time_assignment"
]
