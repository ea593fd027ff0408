"""Stages 2 and 3 of a voxel navmesh build: the compact heightfield (the open space above
each walkable span, linked to the spans beside it an agent can step to), then the area
stages on it: erosion by the agent's radius, convex volumes and the median filter.

>>> from wayfinding.navmesh3d import BuildSettings, filter_spans, generate, rasterize
>>> s = BuildSettings()
>>> chf = erode(compact(filter_spans(rasterize(generate.stairs(), s), s), s), s)
>>> chf.num_walkable <= chf.num_spans
True
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._kernels import _compact_heightfield
from ..errors import InvalidGeometryError
from .heightfield import Heightfield, _Columns
from .level import ConvexVolume
from .settings import BuildSettings, expect

#: The link value of a side with no neighbour.
NOT_CONNECTED = 0x3F

#: Column steps of the four directions: x - 1, z + 1, x + 1, z - 1.
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1))


@dataclass(frozen=True, eq=False, repr=False)
class CompactHeightfield(_Columns):
    """Open spans by column (above each walkable solid span): a span's floor ``y`` and free
    height ``h`` (at most 255) in cell heights, its ``area`` and ``con``, four 6-bit links
    (direction d in bits 6d..6d+5: the neighbour's index within its column, or
    :data:`NOT_CONNECTED`).  ``bmax[1]`` is raised by the agent's height."""

    y: NDArray[np.uint16]
    h: NDArray[np.uint8]
    con: NDArray[np.uint32]
    walkable_height: int
    walkable_climb: int

    def links(self) -> NDArray[np.int64]:
        """(spans, 4): the span index of each neighbour, -1 where there is none."""
        link = (self.con[:, None].astype(np.int64) >> (6 * np.arange(4))) & NOT_CONNECTED
        cols = np.repeat(np.arange(self.width * self.depth), np.diff(self.first))
        x, z = cols % self.width, cols // self.width
        out = np.full((self.num_spans, 4), -1, dtype=np.int64)
        for d, (dx, dz) in enumerate(DIRECTIONS):
            ok = link[:, d] != NOT_CONNECTED
            nc = (x[ok] + dx) + (z[ok] + dz) * self.width
            out[ok, d] = self.first[nc] + link[ok, d]
        return out


def compact(hf: Heightfield, settings: BuildSettings) -> CompactHeightfield:
    """The compact heightfield of a filtered one: a span for each walkable solid span, with
    links to the neighbours that leave the agent's height free and are within the climb."""
    expect("hf", hf, Heightfield)
    expect("settings", settings, BuildSettings)
    voxels = settings.voxels()
    first, y, h, area, con, max_layer = _compact_heightfield.build(
        hf.first, hf.smin, hf.smax, hf.area, hf.width, hf.depth, voxels.walkable_height,
        voxels.walkable_climb)
    if max_layer:
        raise InvalidGeometryError(
            f"a column of the heightfield has {max_layer + 1} walkable spans stacked, more "
            f"than the {NOT_CONNECTED} a link can name; use a larger cell_height")
    bmax = hf.bmax.copy()
    bmax[1] += np.float32(voxels.walkable_height) * np.float32(hf.cell_height)
    return CompactHeightfield(width=hf.width, depth=hf.depth, bmin=hf.bmin, bmax=bmax,
                              cell_size=hf.cell_size, cell_height=hf.cell_height,
                              walkable_height=voxels.walkable_height,
                              walkable_climb=voxels.walkable_climb, first=first, y=y, h=h,
                              area=area, con=con)


def erode(chf: CompactHeightfield, settings: BuildSettings) -> CompactHeightfield:
    """The heightfield with every span closer than the agent's radius to an edge of the
    walkable area made unwalkable."""
    expect("chf", chf, CompactHeightfield)
    expect("settings", settings, BuildSettings)
    area = chf.area.copy()
    _compact_heightfield.erode(chf.first, chf.con, area, chf.width, chf.depth,
                               settings.voxels().walkable_radius)
    return _with_area(chf, area)


def mark_volumes(chf: CompactHeightfield, volumes: Iterable[ConvexVolume]
                 ) -> CompactHeightfield:
    """The heightfield with each volume's area given to the walkable spans inside it, in
    order (a later volume wins); ``chf`` itself when there are none."""
    expect("chf", chf, CompactHeightfield)
    volumes = tuple(volumes)
    for vol in volumes:
        expect("each volume", vol, ConvexVolume)
    if not volumes:
        return chf
    area = chf.area.copy()
    for vol in volumes:
        _compact_heightfield.mark_convex(
            chf.first, chf.y, area, chf.width, chf.depth, chf.bmin, chf.cell_size,
            chf.cell_height, np.asarray(vol.polygon, dtype=np.float32), vol.ymin, vol.ymax,
            vol.area)
    return _with_area(chf, area)


def median_filter(chf: CompactHeightfield) -> CompactHeightfield:
    """The heightfield with each walkable span's area the median of its 3 x 3 neighbourhood
    (smooths the edges of marked areas)."""
    expect("chf", chf, CompactHeightfield)
    area = chf.area.copy()
    _compact_heightfield.median_filter(chf.first, chf.con, area, chf.width, chf.depth)
    return _with_area(chf, area)


def _with_area(chf: CompactHeightfield, area: NDArray[np.uint8]) -> CompactHeightfield:
    """``chf`` with other areas (its other arrays shared): ``dataclasses.replace`` without
    going through ``__init__``, as nothing is checked there."""
    out = copy.copy(chf)
    object.__setattr__(out, "area", area)
    return out
