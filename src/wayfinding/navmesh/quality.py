"""How good a navigation mesh is, by the measures of the wavefront chapter (Hale and
Youngblood): how many regions, which regions are near-degenerate, how many regions meet at
one point, and how well the regions cover the free space.

Near-degenerate regions are those an agent would struggle to enter, leave or locate itself
in.  Four kinds, each with a documented threshold:

- *small angle*: a corner whose interior angle is below ``min_angle`` degrees (the spikes
  of triangle fans);
- *sliver*: a region whose diameter (its longest vertex-to-vertex distance) exceeds
  ``max_aspect`` times its width (the least distance between two parallel lines enclosing
  it, one of them along an edge);
- *narrow*: a region sharing with some neighbour a boundary (the summed length of their
  shared edges) shorter than ``min_width`` world units;
- *disconnected*: a region outside the largest group of regions joined by shared edges
  within its connected part of the mesh: it touches the rest only at corners.

Confluence: the regions whose closed polygon holds a mesh vertex (within ``1e-9`` of the
mesh's size), for every vertex; the chapter's wavefront meshes keep it at most 5.

Coverage, against the free space ``area`` (anything
:func:`~wayfinding.navmesh.build.walkable_area` reads): the share of it the regions cover,
the area the regions cover outside it and the area covered twice, both as shares of the
free space's area, computed by GEOS through shapely (the ``[geometry]`` extra).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import count, positive_float
from ..errors import InvalidGeometryError
from ..graph import CSRGraph
from ..results import _fields_equal
from . import build as _build

if TYPE_CHECKING:
    from .mesh import NavMesh

#: Most polygon corners times corners held at once while measuring widths.
_CHUNK = 1 << 19


@dataclass(frozen=True)
class MeshQuality:
    """The quality report of one mesh (see the module).

    ``regions``: the polygon count.  ``small_angle``, ``slivers``, ``narrow``,
    ``disconnected``: ``(k,)`` int32 ids of the regions of each near-degenerate kind;
    ``degenerate``: the regions of any kind.  ``confluence``: ``(V,)`` int32, the regions
    meeting at each mesh vertex; ``max_confluence`` its largest value, ``crowded`` the
    ``(k,)`` int32 vertices where more than ``confluence_limit`` regions meet.
    ``components``: groups of regions joined by shared edges; ``parts``: connected parts of
    the regions' union.  ``coverage``, ``outside``, ``overlap``: shares of the free space's
    area (NaN without a free space).
    """

    regions: int
    small_angle: np.ndarray
    slivers: np.ndarray
    narrow: np.ndarray
    disconnected: np.ndarray
    degenerate: np.ndarray
    confluence: np.ndarray
    max_confluence: int
    confluence_limit: int
    crowded: np.ndarray
    components: int
    parts: int
    coverage: float
    outside: float
    overlap: float

    __eq__ = _fields_equal

    def __repr__(self) -> str:
        cover = ("no free space given" if math.isnan(self.coverage) else
                 f"coverage {100 * self.coverage:.4f}%, outside {100 * self.outside:.4f}%, "
                 f"overlap {100 * self.overlap:.4f}%")
        return (f"MeshQuality({self.regions} regions, {len(self.degenerate)} near-degenerate "
                f"(small angle {len(self.small_angle)}, slivers {len(self.slivers)}, "
                f"narrow {len(self.narrow)}, disconnected {len(self.disconnected)}), "
                f"at most {self.max_confluence} regions at a point ({len(self.crowded)} "
                f"points over {self.confluence_limit}), {self.components} components in "
                f"{self.parts} parts, {cover})")


def mesh_quality(mesh: NavMesh, *, area: Any = None, min_angle: float = 10.0,
                 max_aspect: float = 10.0, min_width: float = 1.0,
                 confluence_limit: int = 5) -> MeshQuality:
    """The :class:`MeshQuality` of ``mesh`` (see the module).

    ``area``: the free space the mesh should cover (a shapely polygon, WKT, GeoJSON, a
    Grid...; default: none, coverage is NaN).  ``min_angle``: degrees in (0, 180), corners
    below it are small.  ``max_aspect``: >= 1, diameter over width above it is a sliver.
    ``min_width``: world units >= 0 (about an agent's width), shared boundaries shorter
    than it are narrow.  ``confluence_limit``: >= 1, vertices where more regions meet are
    counted in ``crowded`` (5 is the chapter's bound in 2D).  Needs the ``[geometry]``
    extra.

    >>> from shapely.geometry import box
    >>> from wayfinding.navmesh import NavMesh
    >>> free = box(0, 0, 10, 10).difference(box(4, 4, 6, 6))
    >>> q = mesh_quality(NavMesh.build(free), area=free)
    >>> q.regions, q.max_confluence, q.coverage, len(q.degenerate)
    (4, 2, 1.0, 0)
    """
    min_angle = positive_float("min_angle", min_angle, max=180.0, error=InvalidGeometryError)
    if min_angle >= 180.0:
        raise InvalidGeometryError(f"min_angle {min_angle:g} must be below 180 degrees")
    max_aspect = positive_float("max_aspect", max_aspect, error=InvalidGeometryError)
    if max_aspect < 1.0:
        raise InvalidGeometryError(f"max_aspect {max_aspect:g} must be >= 1")
    min_width = positive_float("min_width", min_width, allow_zero=True,
                               error=InvalidGeometryError)
    confluence_limit = count("confluence_limit", confluence_limit, error=InvalidGeometryError)
    free = None if area is None else _build.walkable_area(area)
    shapely = _build._shapely()

    corners = _corner_table(mesh)
    small = np.flatnonzero(_smallest_angles(corners, mesh.sizes) < np.radians(min_angle))
    diameter, width = _diameters_and_widths(corners, mesh.sizes)
    with np.errstate(divide="ignore", invalid="ignore"):
        slivers = np.flatnonzero(~(diameter <= max_aspect * width))
    narrow = _narrow_regions(mesh, min_width)
    regions = _region_polygons(mesh)
    union = shapely.union_all(regions)
    parts = list(shapely.get_parts(union))
    disconnected, components = _disconnected(mesh, regions, parts)
    confluence = _confluence(mesh, regions)
    degenerate = np.unique(np.concatenate([small, slivers, narrow, disconnected]))
    if free is None:
        coverage = outside = overlap = math.nan
    else:
        total = float(free.area)
        # Snap-rounded overlays: floating-point ones can go wrong without a word where the
        # regions' edges run along the free space's (GEOS 3.14 once gave a difference with
        # a spurious piece of 0.4% of the area for regions that lay wholly inside).  The
        # grid, a power of two near 2^-40 of the extent, moves areas by far less than the
        # shares report, and points on coarser binary fractions not at all.
        x0, y0, x1, y1 = shapely.total_bounds([union, free])
        grid = math.ldexp(1.0, math.frexp(max(x1 - x0, y1 - y0))[1] - 40)
        coverage = float(shapely.intersection(union, free, grid_size=grid).area) / total
        outside = float(shapely.difference(union, free, grid_size=grid).area) / total
        overlap = max(float(np.abs(mesh.polygon_areas()).sum()) - float(union.area),
                      0.0) / total
    return MeshQuality(
        regions=mesh.num_polygons, small_angle=small.astype(np.int32),
        slivers=slivers.astype(np.int32), narrow=narrow.astype(np.int32),
        disconnected=disconnected.astype(np.int32), degenerate=degenerate.astype(np.int32),
        confluence=confluence, max_confluence=int(confluence.max(initial=0)),
        confluence_limit=confluence_limit,
        crowded=np.flatnonzero(confluence > confluence_limit).astype(np.int32),
        components=components, parts=len(parts), coverage=coverage, outside=outside,
        overlap=overlap)


def _region_polygons(mesh: NavMesh) -> np.ndarray:
    """``(P,)`` shapely Polygons of the mesh's regions, in polygon order."""
    shapely = _build._shapely()
    valid = np.arange(mesh.max_verts)[None, :] < mesh.sizes[:, None]
    coords = mesh.vertices[mesh.polygons[valid]]
    rings = shapely.linearrings(coords, indices=np.nonzero(valid)[0])
    return np.asarray(shapely.polygons(rings))


def _corner_table(mesh: NavMesh) -> np.ndarray:
    """``(P, M, 2)`` corners of each polygon, padding repeating corner 0."""
    idx = np.where(mesh.polygons >= 0, mesh.polygons, mesh.polygons[:, :1])
    return mesh.vertices[idx]


def _smallest_angles(corners: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``(P,)`` the smallest interior angle (radians) of each counter-clockwise polygon;
    corners on a zero-length edge are left out."""
    m = corners.shape[1]
    k = np.arange(m)[None, :]
    valid = k < sizes[:, None]
    prev = np.take_along_axis(corners, ((k - 1) % sizes[:, None])[..., None], axis=1)
    nxt = np.take_along_axis(corners, ((k + 1) % sizes[:, None])[..., None], axis=1)
    a, b = nxt - corners, prev - corners
    cross = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    dot = (a * b).sum(axis=-1)
    angle = np.arctan2(cross, dot) % (2 * np.pi)        # from the next edge to the previous
    real = valid & (np.hypot(*np.moveaxis(a, -1, 0)) > 0) & (np.hypot(*np.moveaxis(b, -1, 0)) > 0)
    return np.where(real, angle, np.inf).min(axis=1)


def _diameters_and_widths(corners: np.ndarray, sizes: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """``(P,)`` diameters and ``(P,)`` widths (the least extent across an edge's normal;
    0 for a polygon without an edge of positive length), in chunks of polygons."""
    p, m = corners.shape[:2]
    diameter, width = np.empty(p), np.empty(p)
    k = np.arange(m)[None, :]
    step = max(1, _CHUNK // (m * m))
    for lo in range(0, p, step):
        c, n = corners[lo:lo + step], sizes[lo:lo + step]
        gap = c[:, :, None, :] - c[:, None, :, :]
        diameter[lo:lo + step] = np.hypot(gap[..., 0], gap[..., 1]).max(axis=(1, 2))
        nxt = np.take_along_axis(c, ((k + 1) % n[:, None])[..., None], axis=1)
        edge = nxt - c
        length = np.hypot(edge[..., 0], edge[..., 1])
        real = (k < n[:, None]) & (length > 0)
        normal = np.stack([-edge[..., 1], edge[..., 0]], axis=-1) / np.where(
            real, length, 1.0)[..., None]
        # proj[i, e, j]: corner j's offset from edge e's line along its normal.
        proj = np.einsum("iejd,ied->iej", c[:, None, :, :] - c[:, :, None, :], normal)
        extent = proj.max(axis=2) - proj.min(axis=2)
        width[lo:lo + step] = np.where(real, extent, np.inf).min(axis=1, initial=np.inf)
    width[~np.isfinite(width)] = 0.0
    return diameter, width


def _portals(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shared boundaries seen from each side: region, neighbour and the summed length of
    the edges between them."""
    pi, ki = np.nonzero(mesh.neighbours >= 0)
    nxt = (ki + 1) % mesh.sizes[pi]
    a = mesh.vertices[mesh.polygons[pi, ki]]
    b = mesh.vertices[mesh.polygons[pi, nxt]]
    key = pi.astype(np.int64) * mesh.num_polygons + mesh.neighbours[pi, ki]
    pairs, inverse = np.unique(key, return_inverse=True)
    lengths = np.bincount(inverse.ravel(), weights=np.hypot(*(b - a).T),
                          minlength=len(pairs))
    return pairs // mesh.num_polygons, pairs % mesh.num_polygons, lengths


def _narrow_regions(mesh: NavMesh, min_width: float) -> np.ndarray:
    src, _, lengths = _portals(mesh)
    return np.unique(src[lengths < min_width])


def _disconnected(mesh: NavMesh, regions: np.ndarray, parts: list[Any]
                  ) -> tuple[np.ndarray, int]:
    """Regions outside the largest (by area) edge-joined group of their part, and the
    number of groups."""
    shapely = _build._shapely()
    src, dst, _ = _portals(mesh)
    graph = CSRGraph.from_edges(mesh.num_polygons, src, dst, np.ones(len(src)))
    group = np.asarray(graph.weak_components)
    groups = int(group.max(initial=-1)) + 1
    if groups <= len(parts):
        return np.empty(0, np.int64), groups
    # The part of each region: the part holding its centroid (inside: regions are convex).
    tree = shapely.STRtree(np.asarray(parts, dtype=object))
    where = shapely.points(mesh.centroids())
    found = tree.query(where, predicate="intersects")
    part = np.zeros(mesh.num_polygons, np.int64)
    part[found[0]] = found[1]
    area = np.abs(mesh.polygon_areas())
    key = part * groups + group
    keys, inverse = np.unique(key, return_inverse=True)
    size = np.bincount(inverse.ravel(), weights=area)
    best = np.zeros(len(parts), np.int64)
    order = np.lexsort((-size, keys // groups))         # per part, the largest group first
    firsts = np.r_[True, np.diff(keys[order] // groups) != 0]
    best[keys[order][firsts] // groups] = keys[order][firsts]
    return np.flatnonzero(key != best[part]), groups


def _confluence(mesh: NavMesh, regions: np.ndarray) -> np.ndarray:
    """``(V,)`` int32: how many regions hold each vertex (0 for an unused one)."""
    shapely = _build._shapely()
    if not len(mesh.vertices) or not len(regions):
        return np.zeros(len(mesh.vertices), np.int32)
    tol = 1e-9 * max(float(np.ptp(mesh.vertices, axis=0).max()), 1.0)
    tree = shapely.STRtree(regions)
    found = tree.query(shapely.points(mesh.vertices), predicate="dwithin", distance=tol)
    return np.bincount(found[0], minlength=len(mesh.vertices)).astype(np.int32)
