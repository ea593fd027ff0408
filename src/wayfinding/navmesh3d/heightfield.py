"""Stage 1 of a voxel navmesh build: the level rasterized into a solid heightfield, columns
of solid spans, the walkable ones marked by slope; then the span filters.

>>> from wayfinding.navmesh3d import BuildSettings, generate
>>> hf = rasterize(generate.stairs(), BuildSettings())
>>> hf.num_walkable <= hf.num_spans
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from .._kernels import _heightfield
from .._validate import allocation, count, finite_point
from ..errors import InvalidGeometryError, InvalidQueryError
from .level import Level
from .settings import BuildSettings, expect


@dataclass(frozen=True, eq=False)
class _Columns:
    """Spans by column over ``width x depth`` cells of ``cell_size`` from ``bmin`` (x, z;
    column ``x + z * width``): column c's spans are ``first[c]`` to ``first[c + 1] - 1``,
    bottom up, each with an ``area`` (0: not walkable)."""

    width: int
    depth: int
    bmin: NDArray[np.float32]
    bmax: NDArray[np.float32]
    cell_size: float
    cell_height: float
    first: NDArray[np.int64]
    area: NDArray[np.uint8]

    @property
    def num_spans(self) -> int:
        return len(self.area)

    @property
    def num_walkable(self) -> int:
        return int(np.count_nonzero(self.area))

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.width} x {self.depth}, {self.num_spans:,} "
                f"spans, {self.num_walkable:,} walkable)")


@dataclass(frozen=True, eq=False, repr=False)
class Heightfield(_Columns):
    """Solid spans by column: ``smin`` and ``smax`` in cell heights above ``bmin[1]``."""

    smin: NDArray[np.uint16]
    smax: NDArray[np.uint16]

    def column(self, x: int, z: int) -> NDArray[np.int64]:
        """The (smin, smax, area) rows of the spans of column (x, z), bottom up."""
        c = x + z * self.width
        sl = slice(self.first[c], self.first[c + 1])
        return np.stack([self.smin[sl], self.smax[sl], self.area[sl]], axis=1).astype(np.int64)


def _grid_size(bmin: NDArray[np.float32], bmax: NDArray[np.float32],
              settings: BuildSettings) -> tuple[int, int]:
    """Columns along x and z over the bounds: rounded to nearest as Recast does, or, without
    compat, enough to cover them."""
    cs = np.float32(settings.cell_size)
    span = (bmax[[0, 2]] - bmin[[0, 2]]) / cs
    if settings.compat == "recast":
        x, z = (span + np.float32(0.5)).astype(int).tolist()
    else:
        x, z = np.maximum(np.ceil(span), 1).astype(int).tolist()
    return x, z


def rasterize(level: Level, settings: BuildSettings, *,
              bounds: tuple[NDArray[np.float32], NDArray[np.float32]] | None = None,
              size: tuple[int, int] | None = None) -> Heightfield:
    """The solid heightfield of ``level`` over ``bounds`` (default: the level's) in ``size``
    (width, depth) columns (default: as many as fit, rounded): triangles steeper than
    ``agent_max_slope`` lose their area; spans that touch merge, taking the higher area when
    their tops are within the climb.  Bounds that are not two finite corners, lowest
    first, a size that is not two positive integers and settings that are not
    :class:`BuildSettings` raise :class:`~wayfinding.errors.InvalidQueryError`."""
    if not isinstance(level, Level):
        raise InvalidGeometryError(f"rasterize takes a Level, not {type(level).__name__}")
    expect("settings", settings, BuildSettings)
    if bounds is None:
        bmin, bmax = level.bounds
    else:
        if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
            raise InvalidQueryError("bounds must be two (x, y, z) corners, lowest first")
        bmin, bmax = (finite_point(f"bounds[{k}]", bounds[k], 3).astype(np.float32)
                      for k in (0, 1))
        if (bmin > bmax).any():
            raise InvalidQueryError(f"bounds {bmin.tolist()}..{bmax.tolist()} must run from "
                                    "the lowest corner to the highest")
    if size is None:
        width, depth = _grid_size(bmin, bmax, settings)
    elif not isinstance(size, (tuple, list)) or len(size) != 2:
        raise InvalidQueryError("size must be (width, depth) columns")
    else:
        width, depth = count("size[0]", size[0]), count("size[1]", size[1])
    if width < 1 or depth < 1:
        raise InvalidGeometryError(f"the level's bounds {bmin.tolist()}..{bmax.tolist()} are "
                                   f"less than a cell of {settings.cell_size} wide")
    return _rasterize(level, np.arange(level.num_triangles), settings, bmin, bmax, width,
                      depth)


def _rasterize(level: Level, which: NDArray[np.integer], settings: BuildSettings,
               bmin: NDArray[np.float32], bmax: NDArray[np.float32], width: int,
               depth: int) -> Heightfield:
    """:func:`rasterize` of the triangles ``which`` (in that order)."""
    allocation("the heightfield", float(width) * depth)
    triangles = np.ascontiguousarray(level.triangles[which])
    areas = level.areas[which]          # a copy: the slope test clears some
    _heightfield.mark_walkable(level.vertices, triangles, settings.agent_max_slope, areas)
    try:
        first, smin, smax, area = _heightfield.rasterize(
            level.vertices, triangles, areas, bmin, bmax, settings.cell_size,
            settings.cell_height, width, depth, settings.voxels().walkable_climb)
    except ValueError:
        far = float(np.abs(level.vertices[triangles]).max())
        raise InvalidGeometryError(
            f"the level lies up to {far:g} from the origin, where single precision cannot "
            f"cut its triangles into cells of {settings.cell_size:g}: move it nearer the "
            "origin or use larger cells") from None
    return Heightfield(width=width, depth=depth, bmin=bmin, bmax=bmax,
                       cell_size=settings.cell_size, cell_height=settings.cell_height,
                       first=first, smin=smin, smax=smax, area=area)


def filter_spans(hf: Heightfield, settings: BuildSettings) -> Heightfield:
    """The heightfield after the span filters the settings ask for, in Recast's order:
    low-hanging obstacles become walkable (kerbs, stair edges), then spans beside a drop
    (ledges) and spans under too low a ceiling lose their area."""
    expect("hf", hf, Heightfield)
    expect("settings", settings, BuildSettings)
    voxels = settings.voxels()
    area = hf.area.copy()
    if settings.filter_low_hanging_obstacles:
        _heightfield.filter_low_hanging(hf.first, hf.smax, area, voxels.walkable_climb)
    if settings.filter_ledge_spans:
        _heightfield.filter_ledges(hf.first, hf.smin, hf.smax, area, hf.width, hf.depth,
                                   voxels.walkable_height, voxels.walkable_climb)
    if settings.filter_walkable_low_height_spans:
        _heightfield.filter_low_height(hf.first, hf.smin, hf.smax, area,
                                       voxels.walkable_height)
    return replace(hf, area=area)
