"""Queries along the mesh's surface (after Detour's): raycast, move along the surface,
distance to the nearest wall, polygons around a circle and random points.

A *wall* is a polygon edge with no usable polygon across it (under the query filter).
Each query walks the polygon adjacency from the start point's polygon, so it sees only the
part of the mesh connected to it."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..geometry.obstacles import closest_on_segments
from ..results import _fields_equal


@dataclass(frozen=True)
class RayHit:
    """Outcome of :meth:`~wayfinding.navmesh.NavMesh.raycast`.

    ``t``: the fraction of the segment walked before hitting a wall (``inf`` when the end
    is reached); ``point``: where the ray stopped; ``normal``: the wall's unit normal,
    pointing into the walkable side (zeros when nothing was hit); ``polygons``: the polygons
    crossed, in order."""

    t: float
    point: tuple[float, float]
    normal: tuple[float, float]
    polygons: np.ndarray

    __eq__ = _fields_equal

    @property
    def hit(self) -> bool:
        return math.isfinite(self.t)


@dataclass(frozen=True)
class WallDistance:
    """Outcome of :meth:`~wayfinding.navmesh.NavMesh.distance_to_wall`: ``distance`` (``inf``
    when no wall lies within the search radius), the nearest wall ``point`` and the unit
    ``normal`` from it toward the query point."""

    distance: float
    point: tuple[float, float]
    normal: tuple[float, float]


def _edges(mesh: Any, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Polygon p's edges: starts ``(k, 2)``, ends ``(k, 2)``, the polygon across (-1)."""
    n = int(mesh.sizes[p])
    ids = mesh.polygons[p, :n]
    pts = mesh.vertices[ids]
    return pts, np.roll(pts, -1, axis=0), mesh.neighbours[p, :n]


def _exit_edge(a: np.ndarray, e: np.ndarray, across: np.ndarray, allowed: np.ndarray,
               t_out: np.ndarray, x: np.ndarray) -> tuple[int, int]:
    """The edge a ray leaves its polygon through at the point ``x``, and the position of
    the polygon's vertex at ``x`` when it leaves through a vertex (else -1).

    Several edges may give the same exit fraction: edges on one line (a wall and a portal
    left side by side by the polygon merge) or the two edges at a vertex.  The edge is the
    one whose segment holds ``x``; when the two edges at a vertex hold it, the ray leaves
    through that vertex."""
    t_min = float(t_out.min())
    tied = np.flatnonzero(t_out <= t_min + 1e-9 * max(1.0, abs(t_min)))
    if len(tied) == 1:
        return int(tied[0]), -1
    ee = e[tied]
    length = np.hypot(ee[:, 0], ee[:, 1])
    along = np.einsum("ij,ij->i", x - a[tied], ee) / length
    # How far x lies beyond either end of each edge, along its line.
    off = np.maximum(np.maximum(-along, along - length), 0.0)
    scale = max(1.0, float(np.abs(x).max()), float(length.max()))
    holds = tied[off <= 1e-9 * scale].tolist()
    if not holds:
        return int(tied[np.argmin(off)]), -1
    if len(holds) == 1:
        return holds[0], -1
    n = len(a)
    for k in holds:
        if (k + 1) % n in holds:     # edges k and k + 1 meet at vertex k + 1
            return k, (k + 1) % n
    usable = [k for k in holds if across[k] >= 0 and allowed[across[k]]]
    return (usable or holds)[0], -1


def _round_vertex(mesh: Any, p: int, vertex: int, d: np.ndarray, allowed: np.ndarray
                  ) -> tuple[int, np.ndarray | None]:
    """Where a ray in direction ``d`` goes on from the mesh vertex ``vertex`` after leaving
    polygon ``p`` through it: the polygon round the vertex (reached through usable portals)
    whose corner there holds the direction, with ``None``; or -1 with the outward normal of
    the wall the ray meets there (the one it faces most squarely)."""
    seen, order, walls = {p}, [p], []
    i = 0
    while i < len(order):
        poly = order[i]
        i += 1
        a, b, across = _edges(mesh, poly)
        j = int(np.flatnonzero(mesh.polygons[poly, :len(a)] == vertex)[0])
        e = b - a
        nrm = np.stack([e[:, 1], -e[:, 0]], axis=1)
        den = nrm @ d
        if poly != p and den[j - 1] <= 0 and den[j] <= 0:
            return poly, None
        for k in (j - 1, j):
            q = int(across[k])
            if q >= 0 and allowed[q]:
                if q not in seen:
                    seen.add(q)
                    order.append(q)
            else:
                walls.append(nrm[k])
    if not walls:   # pragma: no cover - the corners round an inner vertex fill the turn
        a, b, _ = _edges(mesh, p)
        e = b - a
        walls = list(np.stack([e[:, 1], -e[:, 0]], axis=1))
    return -1, max(walls, key=lambda m: float(m @ d) / math.hypot(*m))


def raycast(mesh: Any, start_poly: int, start: np.ndarray, end: np.ndarray,
            allowed: np.ndarray) -> RayHit:
    d = end - start
    p = start_poly
    visited = [p]
    t_enter = 0.0
    for _ in range(2 * mesh.num_polygons + 2):
        a, b, across = _edges(mesh, p)
        e = b - a
        # Outward normal of a counter-clockwise edge: (ey, -ex).
        nrm = np.stack([e[:, 1], -e[:, 0]], axis=1)
        num = np.einsum("ij,ij->i", nrm, a - start)
        den = nrm @ d
        leaving = den > 0
        t_out = np.where(leaving, num / np.where(leaving, den, 1.0), np.inf)
        t_exit = float(t_out.min())
        if t_exit >= 1.0 or not np.isfinite(t_exit):
            return RayHit(math.inf, (float(end[0]), float(end[1])), (0.0, 0.0),
                          np.array(visited, dtype=np.int32))
        k, corner = _exit_edge(a, e, across, allowed, t_out, start + t_exit * d)
        wall = nrm[k]
        if corner >= 0:
            q, wall = _round_vertex(mesh, p, int(mesh.polygons[p, corner]), d, allowed)
            stop = q < 0
        else:
            q = int(across[k])
            stop = q < 0 or not allowed[q] or q in visited[-2:]
        if stop:
            t = max(t_exit, t_enter)
            hit = start + t * d
            length = math.hypot(*wall)
            return RayHit(t, (float(hit[0]), float(hit[1])),
                          (float(-wall[0] / length), float(-wall[1] / length)),
                          np.array(visited, dtype=np.int32))
        t_enter = t_exit
        p = q
        visited.append(p)
    raise RuntimeError("raycast did not end")  # pragma: no cover - adjacency is finite


def move_along_surface(mesh: Any, start_poly: int, start: np.ndarray, target: np.ndarray,
                       allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The point nearest ``target`` reachable from ``start`` by sliding: the polygons
    searched are those reached through portals within half the move's length of its
    midpoint; the result is the target when one of them holds it, else the nearest point on
    their walls.  A target farther than ``mesh.reach`` is first brought to that distance
    along the same line."""
    d = target - start
    far = max(abs(d[0]), abs(d[1]))
    if far > mesh.reach:     # scaled first: the length of d itself may overflow
        u = d / far
        target = start + u * (mesh.reach / math.hypot(*u))
    mid = 0.5 * (start + target)
    radius = 0.5 * math.hypot(*(target - start)) + 1e-9
    best, best_d = start.copy(), math.hypot(*(target - start))
    seen = {start_poly}
    order = [start_poly]
    i = 0
    while i < len(order):
        p = order[i]
        i += 1
        a, b, across = _edges(mesh, p)
        e = b - a
        inside = (e[:, 0] * (target[1] - a[:, 1]) - e[:, 1] * (target[0] - a[:, 0])) >= 0
        if inside.all():
            return target.copy(), np.array(order, dtype=np.int32)
        usable = (across >= 0) & allowed[np.maximum(across, 0)].astype(bool)
        walls = ~usable
        if walls.any():
            dist, q = closest_on_segments(target, a[walls], b[walls])
            k = int(np.argmin(dist))
            if dist[k] < best_d:
                best_d, best = float(dist[k]), q[k]
        if usable.any():
            dmid, _ = closest_on_segments(mid, a[usable], b[usable])
            for nb, dd in zip(across[usable].tolist(), dmid.tolist(), strict=True):
                if dd <= radius and nb not in seen:
                    seen.add(nb)
                    order.append(nb)
    return best, np.array(order, dtype=np.int32)


def polygons_in_circle(mesh: Any, start_poly: int, centre: np.ndarray, radius: float,
                       allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dijkstra from ``start_poly`` through portals that come within ``radius`` of
    ``centre`` (cost: distance between the portal midpoints walked): the polygons reached,
    their parents (-1 for the start) and costs, in order of cost."""
    best = {start_poly: 0.0}
    parent = {start_poly: -1}
    pos = {start_poly: centre}
    done: list[int] = []
    closed: set[int] = set()
    heap = [(0.0, start_poly)]
    while heap:
        g, p = heapq.heappop(heap)
        if p in closed:
            continue
        closed.add(p)
        done.append(p)
        a, b, across = _edges(mesh, p)
        ok = (across >= 0) & allowed[np.maximum(across, 0)].astype(bool)
        if not ok.any():
            continue
        dist, _ = closest_on_segments(centre, a[ok], b[ok])
        mids = 0.5 * (a[ok] + b[ok])
        for nb, dd, m in zip(across[ok].tolist(), dist.tolist(), mids, strict=True):
            if dd > radius:
                continue
            ng = g + math.hypot(*(m - pos[p]))
            if ng < best.get(nb, math.inf) and nb not in closed:
                best[nb], parent[nb], pos[nb] = ng, p, m
                heapq.heappush(heap, (ng, nb))
    polys = np.array(done, dtype=np.int32)
    return (polys, np.array([parent[p] for p in done], dtype=np.int32),
            np.array([best[p] for p in done]))


def distance_to_wall(mesh: Any, start_poly: int, centre: np.ndarray, radius: float,
                     allowed: np.ndarray) -> WallDistance:
    polys, _, _ = polygons_in_circle(mesh, start_poly, centre, radius, allowed)
    best = (math.inf, (float("nan"), float("nan")), (0.0, 0.0))
    for p in polys.tolist():
        a, b, across = _edges(mesh, p)
        walls = ~((across >= 0) & allowed[np.maximum(across, 0)].astype(bool))
        if not walls.any():
            continue
        dist, q = closest_on_segments(centre, a[walls], b[walls])
        k = int(np.argmin(dist))
        if dist[k] < best[0] and dist[k] <= radius:
            v = centre - q[k]
            n = math.hypot(*v)
            if n > 0:
                normal = (float(v[0] / n), float(v[1] / n))
            else:                                  # on the wall: the edge's inward normal
                e = (b[walls] - a[walls])[k]
                length = math.hypot(*e)
                normal = (float(-e[1] / length), float(e[0] / length))
            best = (float(dist[k]), (float(q[k, 0]), float(q[k, 1])), normal)
    return WallDistance(*best)


def random_point_in(mesh: Any, polys: np.ndarray, rng: np.random.Generator
                    ) -> tuple[int, np.ndarray]:
    """A point uniform over the union of ``polys`` (by area), and its polygon."""
    areas = mesh.polygon_areas()[polys]
    p = int(polys[rng.choice(len(polys), p=areas / areas.sum())])
    pts = mesh.polygon(p)
    a = pts[0]
    b, c = pts[1:-1], pts[2:]
    tri = 0.5 * np.abs((b[:, 0] - a[0]) * (c[:, 1] - a[1]) - (b[:, 1] - a[1]) * (c[:, 0] - a[0]))
    k = int(rng.choice(len(tri), p=tri / tri.sum()))
    u, v = rng.random(2)
    if u + v > 1:
        u, v = 1 - u, 1 - v
    return p, a + u * (b[k] - a) + v * (c[k] - a)
