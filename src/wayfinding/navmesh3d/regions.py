"""Stage 4 of a voxel navmesh build: the walkable spans cut into regions, each simple
enough to trace as one contour.  Three partitions, as Recast offers them:

* ``watershed`` (the default): the distance field to the area's edges, flooded from its
  highest ridges down; the best regions for large open areas, the slowest;
* ``monotone``: a sweep along x joining runs row by row; fast, but long thin regions;
* ``layers``: the sweep's regions joined into layers that never lie over one another (for
  tile caches).

The sweeps follow their rule however many runs a row holds; Recast keeps room for as many
as the grid is wide or deep and writes past it beyond (stacked storeys without erosion),
so its regions there are undefined and may differ.

Then small regions are dropped (fewer spans than ``region_min_size²``) or merged into a
neighbour (up to ``region_merge_size²``) and renumbered from 1.

>>> from wayfinding.navmesh3d import BuildSettings, compact, erode, filter_spans, generate
>>> from wayfinding.navmesh3d import rasterize
>>> s = BuildSettings()
>>> chf = erode(compact(filter_spans(rasterize(generate.floor(), s), s), s), s)
>>> build_regions(chf, s).num_regions
1
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._kernels import _regions
from .._validate import count
from ..errors import InvalidGeometryError
from .compact import CompactHeightfield
from .settings import BuildSettings, expect

#: Region ids with this bit set belong to a tile's border, not to a region.
BORDER_REG = 0x8000


@dataclass(frozen=True, eq=False)
class Regions:
    """The region of every span of ``chf`` (``reg``; 0: none), by ``partition``.
    ``max_regions`` is Recast's count (``chf.maxRegions``): every id in ``reg`` is below
    it.  ``dist`` is the blurred distance field the watershed ran on (its maximum before
    the blur ``max_distance``), None for the sweeps; ``overlaps`` counts regions found
    lying over themselves."""

    chf: CompactHeightfield
    reg: NDArray[np.uint16]
    max_regions: int
    partition: str
    border: int
    dist: NDArray[np.uint16] | None = None
    max_distance: int = 0
    overlaps: int = 0

    @property
    def num_regions(self) -> int:
        """The distinct regions the spans are in."""
        ids = self.reg[(self.reg != 0) & (self.reg & BORDER_REG == 0)]
        return len(np.unique(ids))

    def __repr__(self) -> str:
        return f"Regions({self.partition}, {self.num_regions} regions)"


def distance_field(chf: CompactHeightfield) -> tuple[NDArray[np.uint16], int]:
    """The distance of every span to the edge of its area (2 per straight step, 3 per
    diagonal, then blurred over 3 x 3), and the largest distance before the blur."""
    expect("chf", chf, CompactHeightfield)
    return _regions.distance_field(chf.first, chf.con, chf.area, chf.width, chf.depth)


def build_regions(chf: CompactHeightfield, settings: BuildSettings, *, border: int = 0
                  ) -> Regions:
    """The regions of the compact heightfield ``chf`` by ``settings.partition``;
    ``border`` cells along each side of a tile are kept out of every region.  More
    regions than 16-bit ids number raise :class:`~wayfinding.errors.InvalidGeometryError`."""
    expect("chf", chf, CompactHeightfield)
    expect("settings", settings, BuildSettings)
    border = count("border", border, min=0)
    try:
        return _partition(chf, settings, border)
    except OverflowError as e:     # more region ids than 16 bits hold
        raise InvalidGeometryError(str(e)) from None


def _partition(chf: CompactHeightfield, settings: BuildSettings, border: int) -> Regions:
    v = settings.voxels()
    if settings.partition == "watershed":
        dist, max_distance = distance_field(chf)
        reg, max_regions, overlaps = _regions.watershed(
            chf.first, chf.con, chf.area, dist, max_distance, chf.width, chf.depth, border,
            v.min_region_area, v.merge_region_area)
        return Regions(chf=chf, reg=reg, max_regions=max_regions, partition="watershed",
                       border=border, dist=dist, max_distance=max_distance,
                       overlaps=overlaps)
    if settings.partition == "monotone":
        reg, max_regions, overlaps = _regions.monotone(
            chf.first, chf.con, chf.area, chf.width, chf.depth, border, v.min_region_area,
            v.merge_region_area)
        return Regions(chf=chf, reg=reg, max_regions=max_regions, partition="monotone",
                       border=border, overlaps=overlaps)
    reg, max_regions = _regions.layers(chf.first, chf.con, chf.area, chf.y, chf.width,
                                       chf.depth, border, v.min_region_area)
    return Regions(chf=chf, reg=reg, max_regions=max_regions, partition="layers",
                   border=border)
