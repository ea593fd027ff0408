"""Queries on a :class:`~wayfinding.navmesh.NavMesh` (after Detour's ``dtNavMeshQuery``): the
query filter, the path result and :class:`NavMeshQuery`, which owns the per-query scratch and
answers path queries (A* over polygons, then the funnel), point location, nearest points and
the surface queries of :mod:`.surface`."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._kernels import _navmesh
from .._scratch import SingleThread, exclusive
from .._validate import count, finite_points, positive_float, xy
from ..errors import InvalidQueryError, brief
from ..results import PathResult, SearchStats, Status
from . import surface as _surface

if TYPE_CHECKING:
    from .mesh import NavMesh

#: Corner flags of a straight path (as Detour's): its first point, its last point, and the
#: start of an off-mesh link (the next point is the link's end).
START, END, OFFMESH = 1, 2, 4


_FOUND = Status.FOUND   # read once: attribute access on an Enum class is slow


@positional_options("include", "exclude", "costs")
@dataclass(frozen=True, kw_only=True)
class QueryFilter:
    """Which polygons a query may use and what moving through them costs.

    A polygon is usable when ``flags & include`` is nonzero and ``flags & exclude`` is zero
    and its area's cost is finite.  ``costs`` maps area ids (0–255) to cost multipliers
    (> 0; ``inf`` forbids the area); areas not named cost 1.
    """

    include: int = 0xFFFF
    exclude: int = 0
    costs: dict[int, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("include", "exclude"):
            count(f"{name} (a 16-bit flag mask)", getattr(self, name), min=0, max=0xFFFF)
        if not isinstance(self.costs, Mapping):
            raise InvalidQueryError(f"costs {brief(self.costs)} must be a mapping of area ids "
                                    "to cost multipliers")
        for area, cost in self.costs.items():
            count("area id", area, min=0, max=255)
            positive_float(f"area {area}'s cost", cost, allow_inf=True)

    @cached_property
    def key(self) -> tuple[Any, ...]:
        """What identifies the filter's effect (for caches; computed once)."""
        return (self.include, self.exclude, tuple(sorted(self.costs.items())))

    def area_costs(self) -> np.ndarray:
        """``(256,)`` float64 cost multiplier per area id."""
        out = np.ones(256)
        for area, cost in self.costs.items():
            out[area] = cost
        return out


DEFAULT_FILTER = QueryFilter()

#: What a filter means on one mesh: allowed polygons ``(P,)`` uint8, polygon costs ``(P,)``
#: float64, usable directed off-mesh links uint8, and the A* heuristic's scale.
_FilterArrays = tuple[np.ndarray, np.ndarray, np.ndarray, float]


@dataclass(slots=True, repr=False, kw_only=True)
class NavPath(PathResult):
    """A navigation-mesh path: ``path`` is the straight path, ``(n, 2)`` float64 corners
    from start to goal; ``cost`` its length, with each off-mesh link counted at its cost.
    A partial path (``status`` :attr:`~wayfinding.results.Status.PARTIAL`, ``found`` false)
    ends at the point nearest the goal that the start can reach; ``cost`` is its length.

    ``flags``: per corner, :data:`START`, :data:`END`, :data:`OFFMESH` bits;
    ``corner_polygons``: the polygon each corner lies on; ``corridor``: the polygons walked
    through, in order; ``links``: the off-mesh links taken; ``start``/``goal``: the points
    used, on the mesh; ``snapped_start``/``snapped_goal``: whether the point given was off
    the mesh (or on an unusable polygon) and was moved to the nearest usable polygon.
    """

    flags: Any = None
    corner_polygons: Any = None
    corridor: Any = None
    links: Any = None
    start: Any = None
    goal: Any = None
    snapped_start: bool = False
    snapped_goal: bool = False


class NavMeshQuery(SingleThread):
    """Queries on one :class:`~wayfinding.navmesh.NavMesh` with their own search scratch.

    The mesh stays read-only; the query owns the A* state over the mesh's polygons
    (allocated here, reset by generation stamps in O(1) per search) and the arrays of the
    filters it has seen.  One thread at a time: :meth:`find_path` called while another
    thread's call is under way raises :class:`~wayfinding.errors.ConcurrentUseError`.  Make
    one per thread; many may share a mesh.  The mesh's own query methods use one made for
    each thread that calls them.

    >>> from wayfinding.navmesh import NavMesh
    >>> mesh = NavMesh.build("MULTIPOLYGON (((0 0, 4 0, 4 10, 0 10, 0 0)),"
    ...                      " ((6 0, 10 0, 10 10, 6 10, 6 0)))")       # two islands
    >>> query = NavMeshQuery(mesh)
    >>> query.locate((1, 5)), query.locate_many([(1, 5), (5, 5), (9, 5)]).tolist()
    (0, [0, -1, 1])
    >>> r = query.find_path((1, 5), (9, 5))
    >>> r.found, r.status, len(r.path)
    (False, Status.FAILED, 0)
    >>> r = query.find_path((1, 5), (9, 5), partial=True)
    >>> r.found, r.status, r.path.tolist()
    (False, Status.PARTIAL, [[1.0, 5.0], [4.0, 5.0]])
    """

    def __init__(self, mesh: NavMesh):
        if not hasattr(mesh, "_directed_links"):   # the mesh module builds on this one
            raise InvalidQueryError(f"NavMeshQuery needs a NavMesh, got {type(mesh).__name__}")
        self.mesh = mesh
        ptr, dst, lpts, lcost, _ = mesh._directed_links
        self._kernel = _navmesh.MeshQuery(mesh.vertices, mesh.polygons, mesh.sizes,
                                          mesh.neighbours, *mesh._buckets, ptr, dst, lpts,
                                          lcost)
        self._filters: dict[Any, _FilterArrays] = {}

    def __repr__(self) -> str:
        return f"NavMeshQuery({self.mesh!r})"

    # ------------------------------------------------------------------ filters
    def _filter(self, f: QueryFilter) -> _FilterArrays:
        """(allowed polygons, polygon costs, usable directed links, heuristic scale) for a
        filter, computed once per filter."""
        if not isinstance(f, QueryFilter):
            raise InvalidQueryError(f"filter must be a QueryFilter, got {type(f).__name__}")
        key = f.key
        got = self._filters.get(key)
        if got is None:
            mesh = self.mesh
            costs = f.area_costs()

            def usable(flags: np.ndarray, areas: np.ndarray) -> np.ndarray:
                return (((flags & f.include) != 0) & ((flags & f.exclude) == 0)
                        & np.isfinite(costs[areas]))
            allowed = usable(mesh.flags, mesh.areas).astype(np.uint8)
            link = mesh._directed_links
            lf = np.array([x.flags for x in mesh.links], dtype=np.uint16)
            la = np.array([x.area for x in mesh.links], dtype=np.uint8)
            link_ok = usable(lf, la)[link[4]].astype(np.uint8)
            poly_cost = costs[mesh.areas]
            usable_cost = poly_cost[allowed.astype(bool)]
            # A* heuristic scale: the cheapest usable area's cost (slightly under: admissible).
            h_scale = 0.999 * float(usable_cost.min()) if len(usable_cost) else 0.0
            got = self._filters[key] = (allowed, poly_cost, link_ok, h_scale)
        return got

    # ------------------------------------------------------------------ points
    def locate(self, point: ArrayLike) -> int:
        """The polygon containing ``point`` (boundary included; lowest id when several), -1
        off the mesh.  For an ``(n, 2)`` array use :meth:`locate_many`."""
        return self._locate_one(_one(point, "locate"))

    def _locate_one(self, pts: np.ndarray) -> int:
        return int(self._kernel.locate_one(pts[0, 0], pts[0, 1]))

    def locate_many(self, points: ArrayLike) -> np.ndarray:
        """:meth:`locate` for each row of an ``(n, 2)`` array: ``(n,)`` int32."""
        pts = _many(points)
        return self.mesh._locate(pts)

    def nearest(self, point: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                ) -> tuple[int, tuple[float, float]]:
        """The usable polygon nearest ``point`` and the nearest point on it: ``(polygon,
        (x, y))``; polygon -1 when no polygon is usable.  For an ``(n, 2)`` array use
        :meth:`nearest_many`."""
        return self._nearest_one(_one(point, "nearest"), filter)

    def _nearest_one(self, pts: np.ndarray, f: QueryFilter) -> tuple[int, tuple[float, float]]:
        poly, snapped = self.mesh._nearest(pts, self._filter(f)[0])
        return int(poly[0]), (float(snapped[0, 0]), float(snapped[0, 1]))

    def nearest_many(self, points: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                     ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`nearest` for each row of an ``(n, 2)`` array: polygons ``(n,)`` int32 and
        points ``(n, 2)`` float64."""
        pts = _many(points)
        return self.mesh._nearest(pts, self._filter(filter)[0])

    # ------------------------------------------------------------------ paths
    def _endpoint(self, point: Any, name: str, allowed: np.ndarray
                  ) -> tuple[int, np.ndarray, bool]:
        """The usable polygon holding a query point, the point, and whether it was moved
        there from off the mesh (or from an unusable polygon)."""
        x, y = xy(name, point)
        poly = self._kernel.locate_one(x, y)
        if poly >= 0 and allowed[poly]:
            return poly, np.array([x, y]), False
        polys, snapped = self.mesh._nearest(np.array([[x, y]]), allowed)
        return int(polys[0]), snapped[0], True

    @exclusive
    def find_path(self, start: ArrayLike, goal: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER,
                  partial: bool = False) -> NavPath:
        """The straight path from ``start`` to ``goal`` (world points): A* over the usable
        polygons, then the funnel through the corridor's portals (compiled, one call).  A
        polygon's position in the search is where the line from the previous position toward
        the goal crosses the edge it was entered by (kept off the edge's ends; Detour takes
        the edge's midpoint, which picks worse corridors); an off-mesh link enters at its end.

        A point off the mesh, or on an unusable polygon, is moved to the nearest usable
        polygon (``snapped_start``/``snapped_goal``).  No route gives ``found=False`` and
        an empty path (``status`` FAILED); with ``partial=True`` it gives instead the path to
        the nearest point to the goal on the polygons the start reaches (the polygon of least
        distance to the goal, lowest id on ties), with ``status``
        :attr:`~wayfinding.results.Status.PARTIAL` (as Detour's ``DT_PARTIAL_RESULT``).
        """
        return self._find_path(start, goal, filter, partial)

    def _find_path(self, start: ArrayLike, goal: ArrayLike, filter: QueryFilter,
                   partial: bool) -> NavPath:
        """:meth:`find_path` without the guard on the scratch: for the mesh's own queries,
        one per thread, which no other thread can reach."""
        if type(partial) is not bool:
            raise InvalidQueryError(f"partial {partial!r} must be True or False")
        t0 = time.perf_counter()
        allowed, cost, link_ok, h_scale = self._filter(filter)
        ps, s, snap_s = self._endpoint(start, "start", allowed)
        pg, g, snap_g = self._endpoint(goal, "goal", allowed)
        stats = SearchStats()
        routed, status = False, _FOUND            # FOUND when routed to the goal itself
        if ps >= 0 and pg >= 0:
            routed, got = self._search(stats, allowed, cost, link_ok, h_scale, ps, s, pg, g)
            if not routed and partial:
                reached = self._reachable(ps, allowed, link_ok)
                near, end = self.mesh._nearest(g[None], reached)
                routed, got = self._search(stats, allowed, cost, link_ok, h_scale, ps, s,
                                           int(near[0]), end[0])
                status = Status.PARTIAL
        if not routed:
            stats.elapsed = time.perf_counter() - t0
            return NavPath(np.empty((0, 2)), math.inf, False, stats, "navmesh",
                           flags=np.empty(0, np.uint8), corner_polygons=np.empty(0, np.int32),
                           corridor=np.empty(0, np.int32), links=np.empty(0, np.int32),
                           start=s, goal=g, snapped_start=snap_s, snapped_goal=snap_g)
        corridor, via, path, flags, owner, length = got
        flags[0] |= START
        flags[-1] |= END
        links = self.mesh._directed_links[4][via[via >= 0]]
        stats.elapsed = time.perf_counter() - t0
        return NavPath(path, length, status is _FOUND, stats, "navmesh", status=status,
                       flags=flags, corner_polygons=owner, corridor=corridor, links=links,
                       start=s, goal=g, snapped_start=snap_s, snapped_goal=snap_g)

    def _search(self, stats: SearchStats, allowed: np.ndarray, cost: np.ndarray,
                link_ok: np.ndarray, h_scale: float, ps: int, s: np.ndarray, pg: int,
                g: np.ndarray) -> tuple[bool, Any]:
        """One compiled A* + funnel from polygon ``ps`` at ``s`` to ``pg`` at ``g``, its
        counts added to ``stats``: (found, (corridor, via, path, flags, owners, length))."""
        (found, expanded, generated, *got) = self._kernel.find(
            allowed, cost, link_ok, h_scale, ps, s[0], s[1], pg, g[0], g[1])
        stats.expanded += expanded
        stats.generated += generated
        return found, got

    def _reachable(self, start: int, allowed: np.ndarray, link_ok: np.ndarray) -> np.ndarray:
        """``(P,)`` uint8: the usable polygons a search from ``start`` reaches (through
        portals and usable off-mesh links), one breadth-first level at a time."""
        mesh = self.mesh
        ptr, dst = mesh._directed_links[:2]
        usable = allowed.astype(bool)
        seen = np.zeros(mesh.num_polygons, dtype=bool)
        seen[start] = True
        front = np.array([start], dtype=np.int64)
        while len(front):
            nxt = mesh.neighbours[front].ravel()
            lo, n = ptr[front], ptr[front + 1] - ptr[front]
            if n.any():
                first = np.repeat(lo - (np.cumsum(n) - n), n)
                ids = first + np.arange(int(n.sum()))
                nxt = np.concatenate([nxt, dst[ids[link_ok[ids] != 0]]])
            nxt = nxt[nxt >= 0]
            front = np.unique(nxt[usable[nxt] & ~seen[nxt]])
            seen[front] = True
        return seen.astype(np.uint8)

    # ------------------------------------------------------------------ surface queries
    def _on_mesh(self, point: ArrayLike, name: str, f: QueryFilter
                 ) -> tuple[int, np.ndarray, np.ndarray]:
        allowed = self._filter(f)[0]
        pts, single = finite_points(name, point)
        poly = self._kernel.locate_one(pts[0, 0], pts[0, 1]) if single else -1
        if not single or poly < 0 or not allowed[poly]:
            raise InvalidQueryError(f"{name} {point!r} must be one point on a usable polygon "
                                    "of the mesh (see nearest())")
        return int(poly), pts[0], allowed

    def raycast(self, start: ArrayLike, end: ArrayLike, *, filter: QueryFilter = DEFAULT_FILTER
                ) -> _surface.RayHit:
        """Walk the segment from ``start`` (on the mesh) toward ``end`` across polygons until
        a wall: the fraction walked (``inf`` when ``end`` is reached), the hit point, the
        wall's normal and the polygons crossed.  The walkable area is closed: a ray along a
        wall or through a corner goes on (through a vertex, into the polygon round it that
        holds the ray's direction); only where two walls touch at one point (a pinch of no
        width) does a ray through that point stop."""
        poly, s, allowed = self._on_mesh(start, "start", filter)
        e = finite_points("end", end)[0]
        return _surface.raycast(self.mesh, poly, s, e[0], allowed)

    def move_along_surface(self, start: ArrayLike, target: ArrayLike, *,
                           filter: QueryFilter = DEFAULT_FILTER
                           ) -> tuple[tuple[float, float], np.ndarray]:
        """Slide from ``start`` toward ``target`` along the walls, for small moves (one
        frame): the polygons searched are those reached through portals within half the
        move's length of its midpoint (as Detour's ``moveAlongSurface``); the result is the
        target when one of them holds it, else the nearest point on their walls.  Returns
        that point and the polygons searched.

        A target farther from ``start`` than :attr:`NavMesh.reach` (the mesh's bounding-box
        diagonal) is first brought to that distance along the same line: far beyond the
        mesh, distances to its walls would differ by less than their rounding."""
        poly, s, allowed = self._on_mesh(start, "start", filter)
        t = finite_points("target", target)[0]
        p, visited = _surface.move_along_surface(self.mesh, poly, s, t[0], allowed)
        return (float(p[0]), float(p[1])), visited

    def distance_to_wall(self, centre: ArrayLike, radius: float, *,
                         filter: QueryFilter = DEFAULT_FILTER) -> _surface.WallDistance:
        """The nearest wall within ``radius`` of ``centre`` (on the mesh), searching the
        polygons connected to it."""
        radius = positive_float("radius", radius, allow_zero=True)
        poly, c, allowed = self._on_mesh(centre, "centre", filter)
        return _surface.distance_to_wall(self.mesh, poly, c, radius, allowed)

    def polygons_in_circle(self, centre: ArrayLike, radius: float, *,
                           filter: QueryFilter = DEFAULT_FILTER
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The polygons reached from ``centre``'s polygon through portals within ``radius``
        of it: ids, parents (-1 for the first) and path costs, in order of cost."""
        radius = positive_float("radius", radius, allow_zero=True)
        poly, c, allowed = self._on_mesh(centre, "centre", filter)
        return _surface.polygons_in_circle(self.mesh, poly, c, radius, allowed)

    def random_point(self, *, rng: Any = None, centre: ArrayLike | None = None,
                     radius: float | None = None, filter: QueryFilter = DEFAULT_FILTER
                     ) -> tuple[int, tuple[float, float]]:
        """A random point of the usable mesh, uniform by area: ``(polygon, (x, y))``.  With
        ``centre`` and ``radius``: uniform over the part of the disc reachable from the
        centre's polygon (rejection sampling, at most 1000 tries).  ``rng``: a numpy
        Generator or a seed."""
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        if centre is None:
            allowed = self._filter(filter)[0]
            polys = np.flatnonzero(allowed)
            if not len(polys):
                raise InvalidQueryError("no polygon is usable under this filter")
            p, pt = _surface.random_point_in(self.mesh, polys, gen)
            return p, (float(pt[0]), float(pt[1]))
        if radius is None:
            raise InvalidQueryError("give a radius with the centre")
        radius = positive_float("radius", radius, allow_zero=True)
        polys, _, _ = self.polygons_in_circle(centre, radius, filter=filter)
        c = finite_points("centre", centre)[0][0]
        for _ in range(1000):
            p, pt = _surface.random_point_in(self.mesh, polys, gen)
            if math.hypot(*(pt - c)) <= radius:
                return p, (float(pt[0]), float(pt[1]))
        raise InvalidQueryError(f"no random point found within radius {radius} of "
                                f"{tuple(c)} in 1000 tries")


def _one(point: ArrayLike, query: str) -> np.ndarray:
    """A ``(1, 2)`` float64 array of one finite point given to ``query``."""
    pts, single = finite_points("point", point)
    if not single:
        raise InvalidQueryError(f"point {brief(point)} must be one (x, y) point; for an "
                                f"(n, 2) array use {query}_many()")
    return pts


def _many(points: Any) -> np.ndarray:
    """An ``(n, 2)`` array of finite points as float64, C-ordered."""
    pts, single = finite_points("points", points)
    if single:
        raise InvalidQueryError(f"points {brief(points)} must be an (n, 2) array (for one "
                                "point use the one-point query)")
    return pts
