"""Planning with the body: characters that move by animation clips and feet rather than as
points — movement planning over a clip graph, locomotion planning along a corridor, footstep
planning for crowds, and motion models fitted to a character controller."""

from .clips import Clip, ClipCatalogue, default_clips
from .locomotion import LocomotionPath, locomotion_path, process_path
from .locomotion_executor import LocomotionExecutor, LocomotionScheduler, MoveStatus
from .locomotion_plan import Action, ActionStack, LocomotionPlanner, hits_mark
from .motion_fitting import (
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
    SimulatedController,
    SimulationSettings,
    simulate,
    wrap_angle,
)
from .movement import MovementPlan, plan_movement

__all__ = [
    "Action", "ActionStack", "CharacterController", "Clip", "ClipCatalogue", "CommandRun",
    "ControllerParams", "DecelerationFit", "LocomotionExecutor", "LocomotionPath",
    "LocomotionPlanner", "LocomotionScheduler", "ModelChange", "ModelRegression",
    "MotionCommand", "MotionModel", "MotionModelFit", "MotionTrace", "MoveStatus",
    "MovementPlan", "SimulatedController", "SimulationSettings", "compare_models",
    "default_clips", "fit_deceleration", "fit_motion_model", "hits_mark", "locomotion_path",
    "plan_movement", "process_path", "regenerate", "simulate", "speed_range", "wrap_angle",
]
