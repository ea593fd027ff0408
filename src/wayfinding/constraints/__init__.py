"""Constraint-aware navigation: annotations (2D volumes attached to the world, to objects and
to agents), soft and hard constraints on them, and the multiplier field that turns them into
transition costs for any search domain; constraint sets in JSON files.  numpy only."""

from .annotations import SIDES, Annotation, Between, Disc, LineOfSight, Region, Side
from .constraint import BASE, SAMPLES, Constraint, ConstraintSet
from .files import WeightSchedule, load_constraints, save_constraints

__all__ = ["BASE", "SAMPLES", "SIDES", "Annotation", "Between", "Constraint", "ConstraintSet",
           "Disc", "LineOfSight", "Region", "Side", "WeightSchedule", "load_constraints",
           "save_constraints"]
