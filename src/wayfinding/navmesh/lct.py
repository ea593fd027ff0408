"""Deprecated module name: the step-by-step Python reference of the clearance build is
:mod:`wayfinding.navmesh._lct_reference` (a test oracle); its constants and
``segment_distance`` are in :mod:`wayfinding.navmesh.clearance`.  Each name taken from here
warns."""

from typing import Any

from .._deprecated import warn
from . import _lct_reference, clearance

_MOVED = {"Triangulation": _lct_reference, "END_MARGIN": clearance,
          "MAX_STEINER_RATIO": clearance, "segment_distance": clearance}


def __getattr__(name: str) -> Any:
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warn(f"wayfinding.navmesh.lct.{name}", f"{home.__name__}.{name}")
    return getattr(home, name)
