"""A path corridor on a voxel navmesh, kept up to date as an agent moves (Detour's
``dtPathCorridor``): the polygons from the one the agent stands on to the target's, the
agent's ``position`` on the first and the ``target`` on the last.

Each frame an agent asks for its next :meth:`~PathCorridor.corners` (the straight path
through the corridor from where it stands), moves, and feeds its new position back with
:meth:`~PathCorridor.move_position`: a slide along the surface from the first polygon whose
visited polygons are merged into the corridor's start, so small moves off the corridor
(pushed by others) mend it instead of needing a new search.  :meth:`optimize_visibility`
drops the polygons the agent can see past; :meth:`optimize_topology` runs a short search to
rejoin the corridor further on; :meth:`is_valid` / :meth:`trim_invalid` / :meth:`replan`
deal with polygons a filter no longer allows, and :meth:`adopt` carries the corridor onto
a tile cache's next mesh.

>>> from wayfinding.navmesh3d import NavMesh3DQuery, build, generate, with_flags
>>> q = NavMesh3DQuery(with_flags(build(generate.stairs())))
>>> c = PathCorridor(q, (1.0, 0.0, 1.5), (8.5, 1.6, 1.5))
>>> c.corners().points[-1].round(1).tolist()     # the target, on the detail ground
[8.5, 1.7, 1.5]
>>> c.move_position((1.5, 0.0, 1.5))
>>> c.position[0], len(c.polygons) >= 1
(1.5, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._arrays import concatenated_ranges
from .._validate import count, positive_float
from ..errors import InvalidQueryError, brief
from ..navmesh.records import DEFAULT_FILTER, END, OFFMESH, QueryFilter
from ..results import Status, _fields_equal
from .navmesh import NavMesh3D
from .query import HALF_EXTENTS, NavMesh3DQuery, _extents, _point

__all__ = ["Corners3D", "PathCorridor", "polygon_map"]

#: Corners nearer the position than this (xz, world units) are behind it: dropped.
MIN_CORNER_DISTANCE = 0.01


@dataclass(frozen=True)
class Corners3D:
    """The next corners of a corridor's straight path, after the agent's position:
    ``points`` ``(k, 3)`` float64, ``flags`` ``(k,)`` uint8 (:data:`END` on the target),
    ``polygons`` ``(k,)`` int32, the polygon each corner leads into (-1 at the target)."""

    points: np.ndarray
    flags: np.ndarray
    polygons: np.ndarray

    __eq__ = _fields_equal

    def __len__(self) -> int:
        return len(self.points)


class PathCorridor:
    """The corridor of polygons from ``position`` to ``target`` (world points), planned
    with ``query.find_path(..., partial=True)`` under ``filter``: an unreachable target
    moves to the nearest point of the polygon whose search came nearest it (``status``
    PARTIAL).  A ``position`` off the mesh (no usable polygon within ``half_extents``) is an
    :class:`~wayfinding.errors.InvalidQueryError`.

    ``polygons`` ``(n,)`` int32: the corridor (off-mesh links among them as nodes
    ``num_polygons + link``, as the path queries number them; it never ends on one);
    ``position`` and ``target``: ``(x, y, z)`` on its first and last polygon, on the
    detail mesh's ground; ``goal``: the target as last asked for (``target`` may fall
    short of it: a partial path, a cut corridor)."""

    def __init__(self, query: NavMesh3DQuery, position: ArrayLike, target: ArrayLike, *,
                 filter: QueryFilter = DEFAULT_FILTER,
                 half_extents: ArrayLike = HALF_EXTENTS):
        if not isinstance(query, NavMesh3DQuery):
            raise InvalidQueryError(f"query must be a NavMesh3DQuery, got "
                                    f"{type(query).__name__}")
        self.query = query
        self.filter = filter
        self.half_extents = _extents(half_extents)
        self._plan(_point(position, "position"), _point(target, "target"))

    def __repr__(self) -> str:
        return (f"PathCorridor({len(self.polygons)} polygons, position "
                f"{tuple(round(v, 3) for v in self.position)}, target "
                f"{tuple(round(v, 3) for v in self.target)})")

    # ------------------------------------------------------------------ planning
    def _plan(self, position: tuple[float, float, float],
              target: tuple[float, float, float]) -> None:
        r = self.query.find_path(position, target, filter=self.filter,
                                 half_extents=self.half_extents, partial=True)
        if r.status is Status.FAILED:
            where = "position" if self.query.nearest(
                position, half_extents=self.half_extents, filter=self.filter)[0] < 0 \
                else "target"
            raise InvalidQueryError(f"{where} {brief(position if where == 'position' else target)}"
                                    " is off the mesh: no usable polygon within half_extents")
        polygons = np.array(r.corridor, np.int32)
        status = r.status
        first_node = self.query._data.num_polys
        kept = _without_trailing_links(polygons, first_node)
        if len(kept) < len(polygons):
            # a partial search that stopped on a link: end on the polygon before it
            end = _closest_on(self.query, int(kept[-1]), _tuple(r.path[-1]))
            status = Status.PARTIAL
        else:
            x, y, z = _tuple(r.path[-1])
            h = self.query._search.height(int(kept[-1]), x, y, z)
            end = (x, y if h is None else float(h), z)
        self.status, self.polygons = status, kept
        self.position, self.target, self.goal = _tuple(r.start), end, target

    def replan(self, *, target: ArrayLike | None = None) -> None:
        """A new corridor from the position to ``target`` (default :attr:`goal`, the
        target last asked for, which a cut corridor's ``target`` may fall short of)."""
        t = self.goal if target is None else _point(target, "target")
        self._plan(self.position, t)

    # ------------------------------------------------------------------ corners
    def corners(self, *, max_corners: int | None = None) -> Corners3D:
        """The next corners of the straight path through the corridor from the position
        (the funnel of :meth:`NavMesh3DQuery.find_path` over the corridor's polygons),
        without those within :data:`MIN_CORNER_DISTANCE` of the position (an off-mesh
        link's start stays), up to the first link's start (flag :data:`OFFMESH`, its
        polygon the link's node: the agent crosses it before it looks further), at most
        ``max_corners`` (default all).  Ends at the target (flag :data:`END`) unless cut
        short."""
        limit = None if max_corners is None else count("max_corners", max_corners)
        points, flags, owners = self._straight(self.position, self.target)
        px, pz = self.position[0], self.position[2]
        kinds, xyz, n, skip = flags.tolist(), points.tolist(), len(points), 0
        while skip < n - 1 and not kinds[skip] & OFFMESH and \
                (xyz[skip][0] - px) ** 2 + (xyz[skip][2] - pz) ** 2 \
                <= MIN_CORNER_DISTANCE ** 2:
            skip += 1
        end = n if limit is None else min(n, skip + limit)
        end = next((k + 1 for k in range(skip, end) if kinds[k] & OFFMESH), end)
        if skip == 0 and end == n:
            return Corners3D(points, flags, owners)
        return Corners3D(points[skip:end], flags[skip:end], owners[skip:end])

    def _straight(self, start: tuple[float, float, float], goal: tuple[float, float, float]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The funnel through the corridor's polygons from ``start`` to ``goal``: the
        query's A* restricted to them (a chain, so the search walks it) and its funnel."""
        q = self.query
        allowed, costs = q._filter(self.filter)
        only = _scratch_mask(q, len(allowed))
        polygons = self.polygons
        only[polygons] = allowed[polygons]
        try:
            got = q._search.find_path(start, goal, self.half_extents, only, costs, True)
        finally:
            only[polygons] = 0
        if got[0] == 0:     # no corridor polygon usable near start or goal: head for it
            return (np.array([goal], np.float64), np.array([END], np.uint8),
                    np.array([-1], np.int32))
        path, flags, owners = got[6], got[7], got[8]
        return path, flags, owners

    # ------------------------------------------------------------------ moves
    def move_position(self, position: ArrayLike) -> None:
        """Move the agent to ``position`` (a small move, one frame's): slide along the
        surface from the corridor's first polygon toward it (walls stop it), put it on
        the ground, and merge the polygons visited into the corridor's start: the
        furthest corridor polygon visited becomes the visited path's end, what lay before
        it is dropped."""
        p = _point(position, "position")
        visited, point = self._slide(self.position, p)
        self.polygons = _merge_start_moved(self.polygons, visited)
        self.position = point

    def move_target(self, target: ArrayLike) -> None:
        """Move the target to ``target`` (a small move), sliding from the corridor's last
        polygon, merging the visited polygons into the corridor's end."""
        t = _point(target, "target")
        visited, point = self._slide(self.target, t, first=False)
        self.polygons = _merge_end_moved(self.polygons, visited)
        self.target = point

    def _slide(self, start: tuple[float, float, float], end: tuple[float, float, float], *,
               first: bool = True) -> tuple[np.ndarray, tuple[float, float, float]]:
        q = self.query
        allowed = q._filter(self.filter)[0]
        poly = int(self.polygons[0 if first else -1])
        x, y, z, visited = q._search.move_along_surface(poly, *start, *end, allowed)
        if not len(visited):
            return np.array([poly], np.int32), start
        h = q._search.height(int(visited[-1]), x, y, z)
        return visited, (float(x), float(y if h is None else h), float(z))

    # ------------------------------------------------------------------ optimisation
    def optimize_visibility(self, next_corner: ArrayLike, distance: float) -> bool:
        """Shortcut the corridor toward ``next_corner`` (normally a corner beyond the
        next): cast a ray from the position toward it, stretched to ``distance`` (world
        units, > 0); when nothing stops it within 99% of that, the polygons it crossed
        replace the corridor's up to the furthest one they share.  Returns whether the
        corridor changed.  The straight path never lengthens."""
        goal = _point(next_corner, "next_corner")
        distance = positive_float("distance", distance)
        px, py, pz = self.position
        d = math.hypot(goal[0] - px, goal[2] - pz)
        if d < MIN_CORNER_DISTANCE:
            return False
        s = distance / min(d + MIN_CORNER_DISTANCE, distance)
        end = (px + (goal[0] - px) * s, py + (goal[1] - py) * s, pz + (goal[2] - pz) * s)
        q = self.query
        t, _, _, _, crossed = q._search.raycast(int(self.polygons[0]), px, py, pz, *end,
                                                q._filter(self.filter)[0])
        if len(crossed) > 1 and t > 0.99:
            merged = _merge_start_shortcut(self.polygons, crossed)
            changed = merged is not self.polygons and \
                (len(merged) != len(self.polygons) or bool((merged != self.polygons).any()))
            self.polygons = merged
            return changed
        return False

    def optimize_topology(self, *, max_hops: int = 32) -> bool:
        """Search again locally: A* from the position toward the target over the usable
        polygons within ``max_hops`` links of the first polygon (and the last one),
        partial, and when that path rejoins the corridor further on and makes the straight
        path shorter, splice it in (Detour's bound is 32 nodes expanded; here it is a
        region, so the search stays local).  Returns whether the corridor changed."""
        max_hops = count("max_hops", max_hops)
        if len(self.polygons) < 3:
            return False
        q = self.query
        allowed, costs = q._filter(self.filter)
        # The search's budget as a region: the polygons within that many links of the
        # corridor's first ones, searched from the position to the target.
        near = _within_links(q, int(self.polygons[0]), max_hops, allowed)
        end = int(self.polygons[-1])
        near[end] = allowed[end]
        got = q._search.find_path(self.position, self.target, self.half_extents, near, costs,
                                  True)
        found = got[5]
        if got[0] == 0 or len(found) < 2:
            return False
        merged = _merge_start_shortcut(self.polygons, np.asarray(found, np.int32))
        if np.array_equal(merged, self.polygons) or \
                self._length(merged) >= self._length(self.polygons) - 1e-9:
            return False
        self.polygons = merged
        return True

    def _length(self, polygons: np.ndarray) -> float:
        keep, self.polygons = self.polygons, polygons
        try:
            points = self._straight(self.position, self.target)[0]
        finally:
            self.polygons = keep
        pts = np.vstack([self.position, points])
        return float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum())

    # ------------------------------------------------------------------ validity
    def is_valid(self, *, filter: QueryFilter | None = None,
                 max_look_ahead: int | None = None) -> bool:
        """Whether every polygon of the corridor (the first ``max_look_ahead``, default
        all) is usable under ``filter`` (default the corridor's) on the query's mesh."""
        f = self.filter if filter is None else filter
        allowed = self.query._filter(f)[0]
        if max_look_ahead is None:
            return 0 not in allowed[self.polygons].tolist()
        return bool(allowed[self.polygons[:count("max_look_ahead", max_look_ahead)]].all())

    def trim_invalid(self, *, filter: QueryFilter | None = None) -> bool:
        """Cut the corridor before its first polygon not usable under ``filter`` (default
        the corridor's, which becomes ``filter``), and before the off-mesh links that
        would end it; the target moves to the nearest point of the last polygon kept
        (:attr:`goal` stays: :meth:`replan` heads for it).  When the first polygon itself
        is unusable the corridor restarts on the usable polygon nearest the position
        (just it).  Returns whether anything was cut; a position with no usable polygon
        near it raises :class:`~wayfinding.errors.InvalidQueryError` and changes
        nothing."""
        f = self.filter if filter is None else filter
        allowed = self.query._filter(f)[0]
        bad = np.flatnonzero(allowed[self.polygons] == 0)
        if not len(bad):
            self.filter = f
            return False
        polygons, position, target = self._cut(self.query, self.polygons, int(bad[0]), f)
        self.filter, self.polygons, self.position, self.target = f, polygons, position, target
        self.status = Status.PARTIAL
        return True

    def adopt(self, query: NavMesh3DQuery, *, mapping: ArrayLike | None = None) -> bool:
        """Carry the corridor onto ``query``'s mesh, the next mesh of a
        :class:`~wayfinding.navmesh3d.tilecache.TileCache` after an update: its polygons
        renumbered by ``mapping`` (``(P + L,)`` integers, one per polygon and link node of
        the corridor's mesh, each a node of the new mesh or -1 for gone; default
        :func:`polygon_map` of the two meshes).  Where one lies on a tile rebuilt, the
        corridor is cut before it as :meth:`trim_invalid` cuts (restarting on the polygon
        nearest the position when its first is gone) and False is returned: plan again
        (:meth:`replan`).  A position with no usable polygon near it on the new mesh, or
        a bad ``mapping``, raises :class:`~wayfinding.errors.InvalidQueryError` and
        changes nothing."""
        if not isinstance(query, NavMesh3DQuery):
            raise InvalidQueryError(f"query must be a NavMesh3DQuery, got "
                                    f"{type(query).__name__}")
        m = polygon_map(self.query.mesh, query.mesh) if mapping is None else \
            np.asarray(mapping)
        if m.shape != (self.query._data.num_nodes,):
            raise InvalidQueryError(f"mapping must hold one entry per polygon and link of "
                                    f"the corridor's mesh ({self.query._data.num_nodes}), "
                                    f"got shape {m.shape}")
        top = query._data.num_nodes
        if not np.issubdtype(m.dtype, np.integer):
            raise InvalidQueryError(f"mapping must hold integers, got dtype {m.dtype}")
        if len(m) and (int(m.min()) < -1 or int(m.max()) >= top):
            raise InvalidQueryError(f"mapping must hold node ids of the new mesh in [-1, "
                                    f"{top}), got values in [{int(m.min())}, {int(m.max())}]")
        moved = m[self.polygons].astype(np.int32)
        gone = np.flatnonzero(moved < 0)
        if not len(gone):
            self.query, self.polygons = query, moved
            return True
        polygons, position, target = self._cut(query, moved, int(gone[0]), self.filter)
        self.query, self.polygons, self.position, self.target = query, polygons, position, \
            target
        self.status = Status.PARTIAL
        return False

    def _cut(self, query: NavMesh3DQuery, polygons: np.ndarray, k: int, filter: QueryFilter
             ) -> tuple[np.ndarray, tuple[float, float, float], tuple[float, float, float]]:
        """The corridor ``polygons`` (numbered as ``query`` numbers them) cut before index
        ``k`` and its trailing link nodes, with its position and target; when nothing is
        left, just the usable polygon nearest the position (both on it)."""
        kept = _without_trailing_links(polygons[:k], query._data.num_polys)
        if len(kept):
            return kept.copy(), self.position, _closest_on(query, int(kept[-1]), self.target)
        poly, point = query.nearest(self.position, half_extents=self.half_extents,
                                    filter=filter)
        if poly < 0:
            raise InvalidQueryError(f"position {brief(self.position)} is off the usable "
                                    "mesh: no usable polygon within half_extents")
        return np.array([poly], np.int32), point, point

    # ------------------------------------------------------------------ off-mesh links
    def links(self) -> list[tuple[int, int]]:
        """The off-mesh links the corridor crosses, in order: ``(link, index)``, the link
        (0-based, into ``mesh.links``) and its node's index in the corridor (the node
        ``num_polygons + link``, as the path queries number it)."""
        first = self.query._data.num_polys
        at = np.flatnonzero(self.polygons >= first)
        return [(int(self.polygons[k]) - first, int(k)) for k in at.tolist()]

    def move_over_link(self, link: int) -> tuple[tuple[float, float, float],
                                                 tuple[float, float, float]]:
        """Step the corridor over off-mesh link ``link`` (its first link, the one the
        agent's next corners lead to): the corridor drops everything up to the link's node,
        the position moves to the nearest point of the polygon it lands on to the link's
        far end, and the link's two ends as crossed, ``(start, end)``, are returned for
        the agent to animate (the end on the landing polygon).  A link that is not the
        corridor's first is an :class:`~wayfinding.errors.InvalidQueryError` (nothing
        changes)."""
        ahead = self.links()
        if not ahead or ahead[0][0] != link or ahead[0][1] + 1 >= len(self.polygons):
            raise InvalidQueryError(f"link {brief(link)} is not the next off-mesh link of "
                                    "this corridor")
        k = ahead[0][1]
        ends = self.query.mesh.links[link]
        a, b = _point(ends.start, "link start"), _point(ends.end, "link end")
        first_node = self.query._data.num_polys
        before = int(self.polygons[k - 1]) if k and self.polygons[k - 1] < first_node \
            else None

        def gap(p: tuple[float, float, float]) -> float:
            """How far an end lies from the polygon the agent leaves (or, straight after
            another link, from the position)."""
            near = self.position if before is None else _closest_on(self.query, before, p)
            return _dist2(near, p)
        if gap(b) < gap(a):
            a, b = b, a                    # a two-way link crossed from its end
        rest = self.polygons[k + 1:].copy()
        land = _closest_on(self.query, int(rest[0]), b) if rest[0] < first_node else b
        self.polygons = rest
        self.position = land
        return a, land


def polygon_map(old: NavMesh3D, new: NavMesh3D) -> np.ndarray:
    """Each polygon of ``old``, then each of its off-mesh link nodes, as ``new`` numbers
    it (``(P + L,)`` int64): a polygon of a tile both meshes share (one a tile cache did
    not rebuild: the same tile object) keeps its place in the tile; one of a tile rebuilt
    or gone, -1; link k's node, ``new``'s node of link k when ``new`` has the same link
    (else -1)."""
    for name, mesh in (("old", old), ("new", new)):
        if not isinstance(mesh, NavMesh3D):
            raise InvalidQueryError(f"{name} must be a NavMesh3D, got {type(mesh).__name__}")
    base, at = 0, {}
    for t in new.tiles:
        at[id(t)] = base
        base += t.polymesh.num_polys
    parts = []
    for t in old.tiles:
        n = t.polymesh.num_polys
        start = at.get(id(t))
        parts.append(np.full(n, -1, np.int64) if start is None
                     else np.arange(start, start + n, dtype=np.int64))
    same = [k + new.num_polygons if k < len(new.links) and new.links[k] == link else -1
            for k, link in enumerate(old.links)]
    return np.concatenate([*parts, np.array(same, np.int64)])


def _without_trailing_links(polygons: np.ndarray, first_node: int) -> np.ndarray:
    """``polygons`` without the link nodes (ids >= ``first_node``) at its end."""
    polys = np.flatnonzero(polygons < first_node)
    return polygons[:int(polys[-1]) + 1] if len(polys) else polygons[:0]


def _tuple(p: Any) -> tuple[float, float, float]:
    return float(p[0]), float(p[1]), float(p[2])


def _dist2(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2


def _closest_on(query: NavMesh3DQuery, polygon: int, point: tuple[float, float, float]
                ) -> tuple[float, float, float]:
    """The nearest point of ``polygon`` to ``point`` (on its ground)."""
    only = np.zeros_like(query._filter(DEFAULT_FILTER)[0])
    only[polygon] = 1
    outline = query._fans()[0][polygon]
    reach = float(np.hypot(*(outline - (point[0], point[2])).T).max()) + 1.0
    poly, x, y, z = query._search.nearest(*point, reach, reach + 1e3, reach, only)
    return (float(x), float(y), float(z)) if poly >= 0 else point


def _within_links(query: NavMesh3DQuery, start: int, hops: int, allowed: np.ndarray
                  ) -> np.ndarray:
    """The usable polygons at most ``hops`` links from ``start`` (uint8 mask), breadth
    first, a ring at a time."""
    ptr, to = _links(query)
    mask = np.zeros(len(allowed), np.uint8)
    mask[start] = 1
    ring = np.array([start], np.int64)
    for _ in range(hops):
        ring = ring[ring < len(ptr) - 1]           # link nodes lead nowhere here
        if not len(ring):
            break
        lo, n = ptr[ring], ptr[ring + 1] - ptr[ring]
        nxt = to[concatenated_ranges(lo, n)]
        nxt = np.unique(nxt[(mask[nxt] == 0) & (allowed[nxt] != 0)])
        mask[nxt] = 1
        ring = nxt
    return mask


def _links(query: NavMesh3DQuery) -> tuple[np.ndarray, np.ndarray]:
    got = getattr(query, "_corridor_links", None)
    if got is None:
        ptr, to, _, _ = query._data.links()
        got = (ptr, to)
        query._corridor_links = got      # type: ignore[attr-defined]
    return got


def _scratch_mask(query: NavMesh3DQuery, size: int) -> np.ndarray:
    """A zeroed ``(size,)`` uint8 mask kept on ``query`` for restricting its searches to a
    corridor (callers set their polygons and zero them again after)."""
    got = getattr(query, "_corridor_mask", None)
    if got is None or len(got) != size:
        got = np.zeros(size, np.uint8)
        query._corridor_mask = got      # type: ignore[attr-defined]
    return got


def _furthest_common(path: np.ndarray, visited: np.ndarray, *, from_end: bool
                     ) -> tuple[int, int]:
    """The corridor index and visited index of a polygon both hold: the furthest along
    the corridor (``from_end``) or the nearest its start, with its first visit; (-1, -1)
    when none."""
    where: dict[int, int] = {}
    for j, p in enumerate(visited.tolist()):
        where.setdefault(p, j)
    polygons = path.tolist()
    order = range(len(polygons) - 1, -1, -1) if from_end else range(len(polygons))
    for i in order:
        at = where.get(polygons[i])
        if at is not None:
            return i, at
    return -1, -1


def _merge_start_moved(path: np.ndarray, visited: np.ndarray) -> np.ndarray:
    """The corridor after a move from its first polygon that visited ``visited`` (the
    last the one reached): from there back along the visits to the furthest corridor
    polygon among them, then the corridor on from it."""
    i, j = _furthest_common(path, visited, from_end=True)
    if i < 0 or (i == 0 and j == len(visited) - 1):     # not or only its first polygon
        return path
    return np.concatenate([visited[j:][::-1], path[i + 1:]]).astype(np.int32)


def _merge_end_moved(path: np.ndarray, visited: np.ndarray) -> np.ndarray:
    """The corridor after a move of the target from its last polygon: cut after the
    first corridor polygon visited, then the visits after it."""
    i, j = _furthest_common(path, visited, from_end=False)
    if i < 0:
        return path
    return np.concatenate([path[:i + 1], visited[j + 1:]]).astype(np.int32)


def _merge_start_shortcut(path: np.ndarray, visited: np.ndarray) -> np.ndarray:
    """The corridor with its start replaced by ``visited`` (a path from its first
    polygon) up to the furthest corridor polygon that path reaches."""
    i, j = _furthest_common(path, visited, from_end=True)
    if i < 0 or j <= 0:
        return path
    return np.concatenate([visited[:j], path[i:]]).astype(np.int32)
