"""The settings of a voxel navmesh build, in world units, with Recast's defaults (those of
its demo, RecastDemo) and the voxel values Recast derives from them.

===========================  ==========================  =========  =======================
setting                      Recast (``rcConfig``)       default    in voxels
===========================  ==========================  =========  =======================
``cell_size``                ``cs``                      0.3
``cell_height``              ``ch``                      0.2
``agent_height``             ``walkableHeight``          2.0        ceil(height / ch)
``agent_radius``             ``walkableRadius``          0.6        ceil(radius / cs)
``agent_max_climb``          ``walkableClimb``           0.9        floor(climb / ch)
``agent_max_slope``          ``walkableSlopeAngle``      45°
``region_min_size``          ``minRegionArea``           8          size² cells
``region_merge_size``        ``mergeRegionArea``         20         size² cells
``edge_max_len``             ``maxEdgeLen``              12.0       int(len / cs)
``edge_max_error``           ``maxSimplificationError``  1.3
``verts_per_poly``           ``maxVertsPerPoly``         6
``detail_sample_dist``       ``detailSampleDist``        6.0        dist * cs (0 below 0.9)
``detail_sample_max_error``  ``detailSampleMaxError``    1.0        error * ch
``partition``                (RecastDemo's choice)       watershed
``filter_*``                 the three span filters      on
===========================  ==========================  =========  =======================

The voxel values are computed in single precision, as Recast computes them; region areas
and the edge length beyond 2³¹ - 1 cells are held there.  ``compat``
``"recast"`` (the default) reproduces Recast's results; ``None`` departs from it where
Recast loses ground: its grid is as many cells as fit the level, rounded to nearest, so up
to half a cell of the level's far sides is left out; without compat the grid covers the
whole level.

>>> v = BuildSettings().voxels()
>>> v.walkable_height, v.walkable_radius, v.walkable_climb, v.min_region_area, v.max_edge_len
(10, 2, 4, 64, 40)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Literal, NamedTuple

import numpy as np

from .._validate import choice, count, flag, positive_float
from ..errors import InvalidQueryError

PARTITIONS = ("watershed", "monotone", "layers")
INT32_MAX = 2**31 - 1


class Voxels(NamedTuple):
    """The settings Recast works with, in cells and cell heights."""

    walkable_height: int
    walkable_radius: int
    walkable_climb: int
    min_region_area: int
    merge_region_area: int
    max_edge_len: int
    detail_sample_dist: float
    detail_sample_max_error: float


@dataclass(frozen=True, kw_only=True)
class BuildSettings:
    """How to voxelize a level and shape its navmesh (see the module for each setting's
    Recast name and voxel value).  Bad values raise
    :class:`~wayfinding.errors.InvalidQueryError`."""

    cell_size: float = 0.3
    cell_height: float = 0.2
    agent_height: float = 2.0
    agent_radius: float = 0.6
    agent_max_climb: float = 0.9
    agent_max_slope: float = 45.0
    region_min_size: float = 8
    region_merge_size: float = 20
    edge_max_len: float = 12.0
    edge_max_error: float = 1.3
    verts_per_poly: int = 6
    detail_sample_dist: float = 6.0
    detail_sample_max_error: float = 1.0
    partition: Literal["watershed", "monotone", "layers"] = "watershed"
    filter_low_hanging_obstacles: bool = True
    filter_ledge_spans: bool = True
    filter_walkable_low_height_spans: bool = True
    compat: Literal["recast"] | None = "recast"

    def __post_init__(self) -> None:
        put = object.__setattr__
        for name in ("cell_size", "cell_height", "agent_height"):
            put(self, name, positive_float(name, getattr(self, name)))
        for name in ("agent_radius", "agent_max_climb", "region_min_size",
                     "region_merge_size", "edge_max_len", "edge_max_error",
                     "detail_sample_dist", "detail_sample_max_error"):
            put(self, name, positive_float(name, getattr(self, name), allow_zero=True))
        slope = positive_float("agent_max_slope", self.agent_max_slope, allow_zero=True)
        if slope >= 90:
            raise InvalidQueryError(f"agent_max_slope {slope} must be below 90 degrees")
        put(self, "agent_max_slope", slope)
        put(self, "verts_per_poly", count("verts_per_poly", self.verts_per_poly, min=3, max=6))
        choice("partition", self.partition, PARTITIONS)
        choice("compat", self.compat, ("recast", None))
        for f in fields(self):
            if f.name.startswith("filter_"):
                put(self, f.name, flag(f.name, getattr(self, f.name)))
        for f in fields(self):         # the stages work in float32, as Recast's do
            value = getattr(self, f.name)
            with np.errstate(over="ignore", under="ignore"):
                single = np.float32(value) if type(value) is float else None
            if single is not None and not (single < np.inf and (single > 0 or value == 0)):
                raise InvalidQueryError(f"{f.name} {value:g} is beyond float32's range")
        try:
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                v = self._voxels()
        except OverflowError:
            raise InvalidQueryError(
                f"the agent measures more cells of {self.cell_size:g} x {self.cell_height:g} "
                "than a float32 holds; use larger cells") from None
        put(self, "_voxels_kept", v)     # settings are frozen: computed once, read per stage
        if v.walkable_height > 255 or v.walkable_climb > 255 or v.walkable_radius > 255:
            raise InvalidQueryError(
                f"the agent is {v.walkable_height} cells tall, climbs {v.walkable_climb} and is "
                f"{v.walkable_radius} wide: at most 255 each; use larger cells")

    def voxels(self) -> Voxels:
        """The settings in voxels (computed once, when the settings are made)."""
        v: Voxels = self.__dict__["_voxels_kept"]
        return v

    def _voxels(self) -> Voxels:
        f = np.float32
        cs, ch = f(self.cell_size), f(self.cell_height)
        sample = f(self.detail_sample_dist)
        return Voxels(
            walkable_height=int(math.ceil(f(self.agent_height) / ch)),
            walkable_radius=int(math.ceil(f(self.agent_radius) / cs)),
            walkable_climb=int(math.floor(f(self.agent_max_climb) / ch)),
            min_region_area=_cells(f(self.region_min_size) * f(self.region_min_size)),
            merge_region_area=_cells(f(self.region_merge_size) * f(self.region_merge_size)),
            max_edge_len=_cells(f(self.edge_max_len) / cs),
            detail_sample_dist=0.0 if sample < f(0.9) else float(cs * sample),
            detail_sample_max_error=float(ch * f(self.detail_sample_max_error)),
        )

    def replace(self, **changes: Any) -> BuildSettings:
        """These settings with some changed."""
        return type(self)(**{**{f.name: getattr(self, f.name) for f in fields(self)},
                             **changes})


def _cells(value: np.float32) -> int:
    """A count of cells, truncated as Recast's int casts truncate, held at int32's largest
    (more cells than any grid has)."""
    return int(min(float(value), INT32_MAX))


def expect(name: str, value: Any, kind: type) -> None:
    """Refuse with :class:`~wayfinding.errors.InvalidQueryError` a stage argument ``name``
    that is not a ``kind``."""
    if not isinstance(value, kind):
        raise InvalidQueryError(f"{name} must be a {kind.__name__}, not "
                                f"{type(value).__name__}")
