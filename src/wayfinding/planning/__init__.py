"""Planning with the body: characters that move by animation clips and feet rather than as
points — movement planning over a clip graph, locomotion planning along a corridor, footstep
planning for crowds, and motion models fitted to a character controller."""

from .clips import Clip, ClipCatalogue, default_clips
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

__all__ = [
    "Action", "ActionStack", "CharacterController", "Clip", "ClipCatalogue", "CommandRun",
    "ControllerParams", "DecelerationFit", "FitFailure", "FootstepPlan", "LocomotionExecutor",
    "LocomotionModel", "LocomotionPath", "LocomotionPlanner", "LocomotionScheduler",
    "ModelChange", "ModelRegression", "MotionCommand", "MotionModel", "MotionModelFit",
    "MotionTrace", "MoveStatus", "MovementPlan", "Role", "RunFailure", "SimulatedController",
    "SimulationSettings", "StepCurve", "compare_models", "default_clips", "fit_deceleration",
    "fit_motion_model", "froude_speed", "hits_mark", "locomotion_path", "pendulum", "plan_crowd",
    "plan_footsteps", "plan_movement", "process_path", "regenerate", "run_footstep_crowd",
    "simulate", "speed_range", "step_curve"
]
