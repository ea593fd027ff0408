"""Building a navigation mesh: walkable area in, convex polygons with adjacency out.

Pipeline: the walkable area (an outline with holes, or several) is read from arrays, shapely,
WKT or GeoJSON, or traced from a :class:`~wayfinding.grid.Grid`'s passable cells; validated
(GEOS through shapely: self-intersections and holes outside their outline are refused, the
place named, the only validity check: GEOS's erosion and overlays of a valid area are valid);
eroded by the agent radius (every boundary moves inward by ``radius``: round
joins around obstacle corners, approximated by chords); triangulated by GEOS's constrained
Delaunay triangulation (input vertices only, every boundary edge kept); then merged into
convex polygons of at most ``max_verts`` vertices by Hertel–Mehlhorn: interior edges are
removed, longest first, whenever the merged polygon stays convex (collinear corners allowed)
and small enough.  Convexity is decided with the exact :func:`~wayfinding.geometry.orient2d`.

Needs the ``[geometry]`` extra (shapely >= 2.1) to build; a built mesh needs only numpy.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from .._deprecated import positional_options
from .._kernels._predicates import orient_xy
from .._validate import allocation
from ..errors import InvalidGeometryError, brief
from ..geometry.obstacles import blocked_rectangles
from ..geometry.predicates import check_coordinates, orient2d
from ..grid import Grid


def _shapely() -> Any:
    try:
        import shapely
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError("building a navigation mesh needs shapely: "
                          "pip install 'wayfinding[geometry]'") from exc
    if not hasattr(shapely, "constrained_delaunay_triangles"):  # pragma: no cover
        raise ImportError(f"building a navigation mesh needs shapely >= 2.1 (found "
                          f"{shapely.__version__}): pip install -U 'wayfinding[geometry]'")
    return shapely


def _ring(values: Any, name: str) -> np.ndarray:
    arr = check_coordinates(values, name=name)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidGeometryError(f"{name} must be an (n, 2) array of points, got shape "
                                   f"{arr.shape}")
    if len(arr) > 1 and np.array_equal(arr[0], arr[-1]):
        arr = arr[:-1]
    if len(np.unique(arr, axis=0)) < 3:
        raise InvalidGeometryError(f"{name} needs at least 3 distinct points, got {len(arr)}")
    return arr


def walkable_area(area: Any = None, *, outline: Any = None, holes: Any = ()) -> Any:
    """The walkable area as a valid shapely (Multi)Polygon.

    ``area``: a shapely Polygon or MultiPolygon, a WKT string, a GeoJSON mapping or string
    (Polygon, MultiPolygon, Feature or FeatureCollection of those), or a
    :class:`~wayfinding.grid.Grid` (the union of its passable cells, cell (x, y) covering
    ``[x, x + 1] × [y, y + 1]`` in grid units, scaled by ``cell_size`` from ``origin``).  Or
    ``outline=`` an ``(n, 2)`` ring and ``holes=`` a list of rings (either orientation).
    Invalid input raises :class:`InvalidGeometryError` with GEOS's reason and location.
    """
    shapely = _shapely()
    from shapely.geometry import MultiPolygon, Polygon, shape

    if (area is None) == (outline is None):
        raise InvalidGeometryError("give either an area or an outline (with holes)")
    if outline is not None:
        shell = _ring(outline, "outline")
        if isinstance(holes, (str, bytes)) or not hasattr(holes, "__iter__"):
            raise InvalidGeometryError(f"holes must be a list of rings, got {brief(holes)}")
        rings = [_ring(h, f"holes[{i}]") for i, h in enumerate(holes)]
        geom = Polygon(shell, rings)
    elif isinstance(area, Grid):
        geom = _grid_area(area)
    elif isinstance(area, str):
        text = area.strip()
        if text.startswith("{"):
            try:
                obj = json.loads(text)
            except (ValueError, RecursionError) as exc:    # JSONDecodeError is a ValueError
                raise InvalidGeometryError(f"cannot read GeoJSON: {str(exc)[:200]}") from None
            geom = _nested_geojson(obj, shape)
        else:
            try:
                geom = shapely.from_wkt(text)
            except Exception as exc:  # GEOS reports its own parse errors
                raise InvalidGeometryError(f"cannot read WKT: {exc}") from None
    elif isinstance(area, dict):
        geom = _nested_geojson(area, shape)
    elif isinstance(area, (Polygon, MultiPolygon)):
        geom = area
    else:
        raise InvalidGeometryError(
            f"cannot read a walkable area from {type(area).__name__}; give a shapely polygon, "
            "WKT, GeoJSON, a Grid, or outline= and holes=")
    if not isinstance(geom, (Polygon, MultiPolygon)):
        raise InvalidGeometryError(f"the walkable area must be a Polygon or MultiPolygon, "
                                   f"got {geom.geom_type}")
    if geom.is_empty:
        raise InvalidGeometryError("the walkable area is empty")
    check_coordinates(shapely.get_coordinates(geom), name="the area's coordinates")
    if not geom.is_valid:
        raise InvalidGeometryError(f"invalid walkable area: {shapely.is_valid_reason(geom)}")
    return geom


def _nested_geojson(obj: Any, shape: Any) -> Any:
    """:func:`_geojson`, refusing features nested deep enough to exhaust the stack."""
    try:
        return _geojson(obj, shape)
    except RecursionError:
        raise InvalidGeometryError("the GeoJSON is nested too deeply") from None


def _geojson(obj: Any, shape: Any) -> Any:
    """A GeoJSON mapping as a shapely geometry; every malformed input (wrong types, ragged
    or non-numeric coordinates, nesting deep enough to exhaust the stack) raises
    :class:`InvalidGeometryError`."""
    from shapely.errors import ShapelyError
    from shapely.ops import unary_union

    kind = obj.get("type") if isinstance(obj, dict) else None
    if kind == "FeatureCollection":
        features = obj.get("features")
        if not isinstance(features, list):
            raise InvalidGeometryError(f"the GeoJSON FeatureCollection's features must be a "
                                       f"list, got {type(features).__name__}")
        parts = [_geojson(f, shape) for f in features]
        if not parts:
            raise InvalidGeometryError("the GeoJSON FeatureCollection has no features")
        return unary_union(parts)
    if kind == "Feature":
        return _geojson(obj.get("geometry") or {}, shape)
    if kind not in ("Polygon", "MultiPolygon"):
        raise InvalidGeometryError(f"GeoJSON type {brief(kind)} is not a Polygon, "
                                   "MultiPolygon, Feature or FeatureCollection")
    try:
        return shape(obj)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError,
            ShapelyError) as exc:
        raise InvalidGeometryError(f"malformed GeoJSON {kind}: {str(exc)[:200]}") from None


def _grid_area(grid: Any) -> Any:
    """The union of a grid's passable cells: one box per horizontal run, then GEOS's union."""
    shapely = _shapely()
    rects = blocked_rectangles(grid.passable)   # passable runs as (x0, y0, x1, y1) boxes
    if not len(rects):
        raise InvalidGeometryError("the grid has no passable cell")
    size = grid.cell_size
    ox, oy = grid.origin
    boxes = shapely.box(ox + rects[:, 0] * size, oy + rects[:, 1] * size,
                        ox + rects[:, 2] * size, oy + rects[:, 3] * size)
    return shapely.union_all(boxes).normalize()


@positional_options("quad_segs")
def eroded(area: Any, radius: float, *, quad_segs: int = 4) -> Any:
    """The points of ``area`` at least ``radius`` from its boundary (round joins with
    ``quad_segs`` chords per quarter circle); empty parts dropped."""
    shapely = _shapely()
    from shapely.geometry import MultiPolygon, Polygon

    if radius == 0:
        return area
    corners = int(shapely.get_num_coordinates(area))
    allocation(f"round joins of {quad_segs} chords per quarter circle at {corners} corners",
               4 * quad_segs * corners, error=InvalidGeometryError)
    # GEOS's buffer of a valid area is valid: nothing to repair.
    out = area.buffer(-radius, quad_segs=quad_segs)
    polys = [g for g in shapely.get_parts(out) if isinstance(g, Polygon) and
             not g.is_empty]
    if not polys:
        raise InvalidGeometryError(f"nothing is left of the walkable area for an agent of "
                                   f"radius {radius}")
    return polys[0] if len(polys) == 1 else MultiPolygon(polys)


def unit_frame(area: Any) -> tuple[Any, np.ndarray, float]:
    """``area`` in a frame where its size is about 1 and it lies near the origin, with the
    ``(shift, scale)`` that takes points of that frame back (``p * scale + shift``).

    Along each axis the shift is the area's lower bound where that is at least twice the
    area's extent from the origin (so subtracting it is exact, by Sterbenz's lemma), else 0;
    the scale is a power of two.  The area's own vertices go there and back exactly; builders
    that cut and compare in this frame keep their precision at any offset and size."""
    shapely = _shapely()
    x0, y0, x1, y1 = area.bounds
    shift = np.array([lo if abs(lo) >= 2 * (hi - lo) else 0.0
                      for lo, hi in ((x0, x1), (y0, y1))])
    scale = math.ldexp(1.0, math.frexp(max(x1 - x0, y1 - y0))[1])
    return shapely.transform(area, lambda xy: (xy - shift) / scale), shift, scale


def triangulate(area: Any) -> tuple[np.ndarray, np.ndarray]:
    """Constrained Delaunay triangles of a valid (Multi)Polygon: ``(V, 2)`` vertices and
    ``(T, 3)`` int32 counter-clockwise triangles (degenerate ones dropped)."""
    shapely = _shapely()
    tris = shapely.get_parts(shapely.constrained_delaunay_triangles(area))
    if not len(tris):
        raise InvalidGeometryError("the walkable area has no area to triangulate")
    # Each triangle is a closed ring of 4 points.
    corners = shapely.get_coordinates(shapely.get_exterior_ring(tris)).reshape(-1, 4, 2)[:, :3]
    verts, inverse = np.unique(corners.reshape(-1, 2), axis=0, return_inverse=True)
    tri = inverse.reshape(-1, 3).astype(np.int32)
    a, b, c = (verts[tri[:, k]] for k in range(3))
    turn = orient2d(a, b, c)
    tri[turn < 0] = tri[turn < 0][:, ::-1]
    return verts, np.ascontiguousarray(tri[turn != 0])


def merge_convex(verts: np.ndarray, polys: Any, max_verts: int, *,
                 single_edge: bool = False) -> list[list[int]]:
    """Hertel–Mehlhorn: merge counter-clockwise convex polygons (a ``(T, 3)`` int array of
    triangles, or lists of vertex ids into ``verts``) across their shared edges, longest
    edge first (ties by vertex ids), while the merged polygon stays convex and has at most
    ``max_verts`` vertices.  ``single_edge``: leave apart two polygons sharing more than one
    edge (welded polygons with collinear corners may share a run of edges).  Returns the
    polygons as counter-clockwise vertex lists."""
    given = [list(map(int, p)) for p in polys]
    rings: list[list[int] | None] = list(given)
    owner = {(ring[k - 1], ring[k]): p for p, ring in enumerate(given) for k in range(len(ring))}
    # Interior edges (u < v, seen from both sides), longest first; ties by vertex ids.
    edges = [(u, v) for (u, v) in owner if u < v and (v, u) in owner]
    ends = np.array(edges, dtype=np.int64).reshape(-1, 2)
    length = np.hypot(*(verts[ends[:, 0]] - verts[ends[:, 1]]).T)
    order = np.lexsort((ends[:, 1], ends[:, 0], -length)).tolist()
    xs, ys = verts[:, 0].tolist(), verts[:, 1].tolist()
    for i in order:
        u, v = edges[i]
        pa, pb = owner.get((u, v)), owner.get((v, u))
        if pa is None or pb is None or pa == pb:
            continue
        a, b = rings[pa], rings[pb]
        assert a is not None and b is not None       # owner names live polygons only
        if len(a) + len(b) - 2 > max_verts:
            continue
        if single_edge and len(set(zip(a, a[1:] + a[:1])) & set(zip(b[1:] + b[:1], b))) > 1:
            continue
        merged = _joined(a, b, u, v)
        if not _convex_at_joins(xs, ys, merged, len(a) - 1):
            continue
        rings[pa], rings[pb] = merged, None
        del owner[(u, v)], owner[(v, u)]
        for k in range(len(merged)):
            owner[(merged[k - 1], merged[k])] = pa
    return [p for p in rings if p is not None]


def _joined(a: list[int], b: list[int], u: int, v: int) -> list[int]:
    """``a`` (holding edge u -> v) and ``b`` (holding v -> u) joined across that edge."""
    i = a.index(v)
    ring_a = a[i:] + a[:i]            # starts at v, ends at u
    j = b.index(u)
    ring_b = b[j:] + b[:j]            # starts at u, ends at v
    return ring_a + ring_b[1:-1]


def _convex_at_joins(xs: list[float], ys: list[float], merged: list[int], at: int) -> bool:
    """Whether the join of two convex polygons (:func:`_joined`, the second one's corners
    from index ``at + 1``) turns left or goes straight at both ends of the shared edge (the
    only corners the join changes), by the exact orientation test."""
    n = len(merged)
    for k in (0, at):
        p, c, q = merged[k - 1], merged[k], merged[(k + 1) % n]
        if orient_xy(xs[p], ys[p], xs[c], ys[c], xs[q], ys[q]) < 0:
            return False
    return True


def split_regions(area: Any, regions: Any) -> list[tuple[Any, int, int]]:
    """The walkable area cut by marked regions: ``(piece, area_id, flags)`` for each
    non-empty polygonal piece, later regions over earlier ones, the rest area 0, flags 1."""
    shapely = _shapely()
    from shapely.geometry import MultiPolygon, Polygon

    marks = []
    for i, item in enumerate(regions):
        try:
            shape, area_id, flags = item
        except (TypeError, ValueError):
            raise InvalidGeometryError(f"regions[{i}] must be (shape, area_id, flags)") \
                from None
        if isinstance(area_id, bool) or not isinstance(area_id, (int, np.integer)) \
                or not 0 <= area_id <= 255:
            raise InvalidGeometryError(f"regions[{i}]: area id {area_id!r} must be 0..255")
        if isinstance(flags, bool) or not isinstance(flags, (int, np.integer)) \
                or not 0 <= flags <= 0xFFFF:
            raise InvalidGeometryError(f"regions[{i}]: flags {flags!r} must be a 16-bit mask")
        marks.append((walkable_area(shape), int(area_id), int(flags)))
    out = []
    rest = area
    for shape, area_id, flags in reversed(marks):       # later regions win
        piece = shapely.intersection(rest, shape)
        rest = shapely.difference(rest, shape)
        out.append((piece, area_id, flags))
    out.append((rest, 0, 1))
    result = []
    for piece, area_id, flags in out:
        # The area and the regions are valid, so are GEOS's overlays of them: no repair.
        polys = [g for g in shapely.get_parts(piece) if isinstance(g, Polygon) and g.area > 0]
        if polys:
            result.append((polys[0] if len(polys) == 1 else MultiPolygon(polys), area_id,
                           flags))
    return result
