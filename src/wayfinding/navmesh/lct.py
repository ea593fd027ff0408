"""Deprecated module name: the step-by-step Python reference of the clearance build is
:mod:`wayfinding.navmesh._lct_reference` (a test oracle), its constants and
``segment_distance`` are in :mod:`wayfinding.navmesh.clearance`.  Importing this module
warns."""

from .._deprecated import warn
from ._lct_reference import Triangulation
from .clearance import END_MARGIN, MAX_STEINER_RATIO, segment_distance

__all__ = ["END_MARGIN", "MAX_STEINER_RATIO", "Triangulation", "segment_distance"]

warn("wayfinding.navmesh.lct", "wayfinding.navmesh.ClearanceMesh (the Python reference of "
     "its build is wayfinding.navmesh._lct_reference)")
