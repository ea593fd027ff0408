"""Deprecated module name: its constants and ``segment_distance`` are in
:mod:`wayfinding.navmesh.clearance`; ``Triangulation``, the step-by-step Python form of the
clearance build, is now only the oracle of the package's tests (build meshes with
:meth:`~wayfinding.navmesh.ClearanceMesh.build`).  Each name taken from here warns."""

import importlib
from typing import Any

from .._deprecated import warn

_MOVED = {"Triangulation": "_lct_reference", "END_MARGIN": "clearance",
          "MAX_STEINER_RATIO": "clearance", "segment_distance": "clearance"}


def __getattr__(name: str) -> Any:
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if home == "_lct_reference":
        warn(f"wayfinding.navmesh.lct.{name} (now kept only as an oracle of the package's "
             "tests, not an API)", "wayfinding.navmesh.ClearanceMesh.build()")
    else:
        warn(f"wayfinding.navmesh.lct.{name}", f"wayfinding.navmesh.clearance.{name}")
    return getattr(importlib.import_module(f"{__package__}.{home}"), name)
