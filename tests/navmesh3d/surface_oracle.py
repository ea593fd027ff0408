"""An independent model of a voxel navmesh's walkable surface, for the property tests: the
ground height under a point (from the detail triangles), the walls (the stretches of polygon
edges no other polygon continues), and shortest distances along the surface by Dijkstra over
dense samples.

Nothing here calls the query code: it reads the mesh's polygons (world corners) and detail
triangles only, and finds which polygons join by geometry (edges on one line, overlapping,
within the agent's climb of each other), as a walker on the surface would.

**The distance graph.**  Nodes: every polygon's corners and the points where its edges cross
the lines ``x = i h`` and ``z = j h`` of a lattice of spacing ``h``, each at the height of that
polygon's detail surface (a point on a shared edge is one node per polygon).  Edges: every
pair of nodes of one polygon (convex, so the segment between them stays on it), weighted by
the length of that segment draped on the polygon's detail triangles (sampled every ``h / 2``
where the polygon is not flat, else the 3D chord); and the nodes of two joined polygons at the
same point, weighted by their height difference (the step between them).  Every graph path is
a path on the surface, so ``geodesic <= oracle``.  A shortest surface path is straight inside
each polygon (in xz, and in 3D where the polygon is flat; on bent polygons the bound below is
first order only) and bends only at corners (nodes), crossing each edge at most once per
polygon it enters; moving a crossing to the nearest node on that edge (at most ``h sqrt(2) /
2`` away) lengthens it by at most ``h sqrt(2)``, so ``oracle <= geodesic + h sqrt(2) (k + 1)``
with ``k`` the edges crossed: :meth:`Surface.distance` returns that bound with the distance.
``metric="xz"`` weighs every edge by its horizontal length instead: the same bounds hold for
the shortest horizontal route over the surface.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components, dijkstra


@dataclass(frozen=True)
class Route:
    """A shortest route between two points of the surface: ``length`` (inf when none),
    ``bound`` (the sampling error: ``length - bound <= geodesic <= length``) and the
    polygons it visits."""

    length: float
    bound: float
    polygons: tuple[int, ...]


class Surface:
    """The walkable surface of ``mesh`` (a NavMesh3D; every polygon taken as usable),
    sampled with lattice spacing ``h`` (world units)."""

    def __init__(self, mesh, *, h: float = 0.1, flat_tol: float = 1e-3):
        self.h = h
        self.climb = float(mesh.settings.agent_max_climb)
        self.outlines = [np.asarray(p, np.float64) for p in mesh.polygons()]
        verts, tris, owner = mesh.triangles()
        verts = verts.astype(np.float64)
        self.tris = [verts[tris[owner == p]] for p in range(len(self.outlines))]
        self.flat = [_flat(t, flat_tol) for t in self.tris]
        self._adjacency()
        self._graph()

    # ------------------------------------------------------------------ heights
    def ground(self, poly: int, xz: np.ndarray) -> np.ndarray:
        """The detail surface's height on ``poly`` at each xz point (``(n, 2)``), the
        points taken inside it (a point outside gets the nearest triangle's plane)."""
        t = self.tris[poly]
        a, b, c = t[:, 0], t[:, 1], t[:, 2]
        p = np.asarray(xz, np.float64)[:, None, :]
        v0, v1 = (b - a)[:, [0, 2]], (c - a)[:, [0, 2]]
        v2 = p - a[None, :, [0, 2]]
        den = v0[:, 0] * v1[:, 1] - v1[:, 0] * v0[:, 1]
        den = np.where(np.abs(den) < 1e-12, 1e-12, den)
        u = (v2[..., 0] * v1[:, 1] - v1[:, 0] * v2[..., 1]) / den
        w = (v0[:, 0] * v2[..., 1] - v2[..., 0] * v0[:, 1]) / den
        inside = np.minimum(np.minimum(u, w), 1 - u - w)
        k = np.argmax(inside, axis=1)
        rows = np.arange(len(k))
        return a[k, 1] + u[rows, k] * (b[k, 1] - a[k, 1]) + w[rows, k] * (c[k, 1] - a[k, 1])

    def over(self, xz: np.ndarray, tol: float = 1e-3) -> np.ndarray:
        """``(n, P)`` booleans: the point is over the polygon (xz), within ``tol``."""
        p = np.asarray(xz, np.float64)
        out = np.zeros((len(p), len(self.outlines)), bool)
        for i, o in enumerate(self.outlines):
            a, b = o[:, [0, 2]], np.roll(o, -1, axis=0)[:, [0, 2]]
            d = b - a
            n = np.linalg.norm(d, axis=1)
            # counter-clockwise seen from above is clockwise in (x, z): inside is where the
            # cross product is <= 0 for every edge
            cross = (d[:, 0] * (p[:, None, 1] - a[:, 1]) - d[:, 1] * (p[:, None, 0] - a[:, 0]))
            sign = -1.0 if _area(o) > 0 else 1.0
            out[:, i] = (sign * cross / n <= tol).all(axis=1)
        return out

    def ground_near(self, xz: np.ndarray, y: np.ndarray, polygons: np.ndarray | None = None,
                    *, tol: float = 1e-3) -> tuple[np.ndarray, np.ndarray]:
        """For each xz point, the polygon over it within ``tol`` (of ``polygons`` when
        given) whose ground is nearest the height ``y`` given, and that ground's height:
        ``(polygons (n,), heights (n,))``, -1 and nan where no polygon is over the point."""
        xz = np.asarray(xz, np.float64)
        y = np.asarray(y, np.float64)
        over = self.over(xz, tol)
        if polygons is not None:
            over[:, np.setdiff1d(np.arange(over.shape[1]), polygons)] = False
        best = np.full(len(xz), -1)
        height = np.full(len(xz), np.nan)
        for p in np.flatnonzero(over.any(axis=0)):
            rows = np.flatnonzero(over[:, p])
            h = self.ground(p, xz[rows])
            better = np.isnan(height[rows]) | (np.abs(h - y[rows]) < np.abs(height[rows] - y[rows]))
            best[rows[better]] = p
            height[rows[better]] = h[better]
        return best, height

    # ------------------------------------------------------------------ walls
    def _adjacency(self) -> None:
        """Which polygon edges continue into another polygon: ``self.joined`` (pairs of
        polygons) and per polygon edge the length of it another polygon covers.  Two edges
        join where they lie on one line in xz, overlap, and come within the climb of each
        other in height somewhere along the overlap (as Detour joins tiles' edges)."""
        edges, owner, side = [], [], []
        for p, o in enumerate(self.outlines):
            for k in range(len(o)):
                edges.append((o[k], o[(k + 1) % len(o)]))
                owner.append(p)
                side.append(k)
        e = np.array(edges)                      # (E, 2, 3)
        owner_a = np.array(owner)
        a, b = e[:, 0], e[:, 1]
        d = (b - a)[:, [0, 2]]
        length = np.linalg.norm(d, axis=1)
        u = d / length[:, None]
        # the other edges' ends in each edge's frame: along it (s) and off it (off)
        rel_a = a[None, :, [0, 2]] - a[:, None, [0, 2]]
        rel_b = b[None, :, [0, 2]] - a[:, None, [0, 2]]
        s_a = (rel_a * u[:, None]).sum(-1)
        s_b = (rel_b * u[:, None]).sum(-1)
        off_a = rel_a[..., 0] * u[:, None, 1] - rel_a[..., 1] * u[:, None, 0]
        off_b = rel_b[..., 0] * u[:, None, 1] - rel_b[..., 1] * u[:, None, 0]
        lo = np.maximum(np.minimum(s_a, s_b), 0)
        hi = np.minimum(np.maximum(s_a, s_b), length[:, None])
        overlap = hi - lo
        # heights of both edges at the ends of the overlap
        def y_at(edge_a, edge_b, s, along):      # height along an edge at distance s
            t = np.clip(s / np.maximum(along, 1e-12), 0, 1)
            return edge_a[..., 1] + t * (edge_b[..., 1] - edge_a[..., 1])
        mine_lo = y_at(a[:, None], b[:, None], lo, length[:, None])
        mine_hi = y_at(a[:, None], b[:, None], hi, length[:, None])
        s_other = np.abs(s_b - s_a)
        t_lo = np.where(s_b > s_a, lo - s_a, s_a - lo)
        t_hi = np.where(s_b > s_a, hi - s_a, s_a - hi)
        theirs_lo = y_at(a[None, :], b[None, :], t_lo, s_other)
        theirs_hi = y_at(a[None, :], b[None, :], t_hi, s_other)
        join = ((np.abs(off_a) < 1e-3) & (np.abs(off_b) < 1e-3) & (overlap > 1e-3)
                & (owner_a[:, None] != owner_a[None, :])
                & ((np.minimum(np.abs(mine_lo - theirs_lo), np.abs(mine_hi - theirs_hi))
                    <= self.climb) | ((mine_lo - theirs_lo) * (mine_hi - theirs_hi) < 0)))
        i, j = np.nonzero(join)
        self.joined = {(int(owner_a[x]), int(owner_a[y])) for x, y in zip(i, j)}
        # the walls: the stretches of each edge no joined edge covers
        pieces, owners = [], []
        for k in range(len(e)):
            cover = sorted(zip(lo[k, join[k]].tolist(), hi[k, join[k]].tolist()))
            at = 0.0
            for c0, c1 in cover + [(length[k], length[k])]:
                if c0 > at + 1e-3:
                    pieces.append((a[k] + (b[k] - a[k]) * at / length[k],
                                   a[k] + (b[k] - a[k]) * c0 / length[k]))
                    owners.append(owner_a[k])
                at = max(at, c1)
        self._walls = np.array(pieces).reshape(-1, 2, 3)
        self._wall_poly = np.array(owners, np.int64)

    def walls(self, polygons: np.ndarray | None = None) -> np.ndarray:
        """The wall segments in xz, ``(n, 2, 2)``: the stretches of polygon edges no joined
        polygon's edge covers, of ``polygons`` only when given."""
        keep = np.ones(len(self._walls), bool) if polygons is None else \
            np.isin(self._wall_poly, polygons)
        return self._walls[keep][:, :, [0, 2]]

    def first_wall(self, start: np.ndarray, end: np.ndarray
                   ) -> tuple[float, np.ndarray, float]:
        """The fraction ``t`` of the xz segment from ``start`` to ``end`` at which it
        first crosses a wall of the start's island (inf when it crosses none), that wall's
        unit direction in xz (zeros when none), and the distance (xz) from the segment to
        the nearest wall corner (small: a crossing too near a corner to call).  On a level
        where no ground lies over other ground the island's walls are the first the
        segment can meet."""
        w = self.walls(self.island(self.polygon_at(start)))
        p = np.asarray(start, np.float64)[[0, 2]]
        r = np.asarray(end, np.float64)[[0, 2]] - p
        q, s = w[:, 0], w[:, 1] - w[:, 0]
        den = r[0] * s[:, 1] - r[1] * s[:, 0]
        qp = q - p
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (qp[:, 0] * s[:, 1] - qp[:, 1] * s[:, 0]) / den
            u = (qp[:, 0] * r[1] - qp[:, 1] * r[0]) / den
        ok = (np.abs(den) > 1e-12) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)
        first, direction = math.inf, np.zeros(2)
        if ok.any():
            k = np.flatnonzero(ok)[np.argmin(t[ok])]
            first, direction = float(t[k]), s[k] / np.linalg.norm(s[k])
        corners = w.reshape(-1, 2)
        rel = corners - p
        tt = np.clip(rel @ r / max(r @ r, 1e-24), 0, 1)
        near = float(np.linalg.norm(rel - tt[:, None] * r, axis=1).min()) if len(corners) \
            else math.inf
        return first, direction, near

    # ------------------------------------------------------------------ distances
    def _nodes_of(self, p: int) -> np.ndarray:
        """Polygon p's corners and its edges' crossings with the lattice lines, in xz."""
        o = self.outlines[p][:, [0, 2]]
        pts = [o]
        for k in range(len(o)):
            a, b = o[k], o[(k + 1) % len(o)]
            for axis in (0, 1):
                lo, hi = sorted((a[axis], b[axis]))
                lines = np.arange(math.ceil(lo / self.h), math.floor(hi / self.h) + 1) * self.h
                lines = lines[(lines > lo) & (lines < hi)]
                if len(lines) and b[axis] != a[axis]:
                    t = (lines - a[axis]) / (b[axis] - a[axis])
                    pts.append(a + t[:, None] * (b - a))
        return np.concatenate(pts)

    def _weights(self, p: int, xz: np.ndarray, y: np.ndarray, i: np.ndarray, j: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        """(3D draped, xz) lengths of the segments between nodes i and j of polygon p."""
        dxz = np.linalg.norm(xz[j] - xz[i], axis=1)
        if self.flat[p]:
            return np.hypot(dxz, y[j] - y[i]), dxz
        steps = np.maximum(np.ceil(dxz / (self.h / 2)).astype(int), 1)
        total = np.zeros(len(i))
        for n in np.unique(steps):
            rows = np.flatnonzero(steps == n)
            t = np.linspace(0, 1, n + 1)
            pts = xz[i[rows], None] + t[None, :, None] * (xz[j[rows]] - xz[i[rows]])[:, None]
            h = self.ground(p, pts.reshape(-1, 2)).reshape(len(rows), n + 1)
            h[:, 0], h[:, -1] = y[i[rows]], y[j[rows]]
            total[rows] = np.hypot(dxz[rows, None] / n, np.diff(h, axis=1)).sum(axis=1)
        return total, dxz

    def _graph(self) -> None:
        xz_all, y_all, owner = [], [], []
        for p in range(len(self.outlines)):
            xz = self._nodes_of(p)
            xz_all.append(xz)
            y_all.append(self.ground(p, xz))
            owner.append(np.full(len(xz), p))
        self.node_xz = np.concatenate(xz_all)
        self.node_y = np.concatenate(y_all)
        self.node_poly = np.concatenate(owner)
        self.poly_nodes = [np.flatnonzero(self.node_poly == p) for p in range(len(self.outlines))]
        rows, cols, w3, wxz = [], [], [], []
        for p, ids in enumerate(self.poly_nodes):
            i, j = np.triu_indices(len(ids), 1)
            a, b = self._weights(p, self.node_xz[ids], self.node_y[ids], i, j)
            rows.append(ids[i])
            cols.append(ids[j])
            w3.append(a)
            wxz.append(b)
        # the same point on two joined polygons: a step between them
        key = np.round(self.node_xz / 1e-4).astype(np.int64)
        order = np.lexsort((key[:, 1], key[:, 0]))
        same = (key[order[1:]] == key[order[:-1]]).all(axis=1)
        groups = np.split(order, np.flatnonzero(~same) + 1)
        for g in groups:
            for x in range(len(g)):
                for y in range(x + 1, len(g)):
                    a, b = int(g[x]), int(g[y])
                    if (int(self.node_poly[a]), int(self.node_poly[b])) in self.joined:
                        rows.append(np.array([a]))
                        cols.append(np.array([b]))
                        w3.append(np.array([abs(self.node_y[a] - self.node_y[b])]))
                        wxz.append(np.array([0.0]))
        self._rows = np.concatenate(rows)
        self._cols = np.concatenate(cols)
        self._w = {"3d": np.concatenate(w3), "xz": np.concatenate(wxz)}
        n = len(self.node_poly)
        m = coo_matrix((np.ones(len(self._rows)), (self._rows, self._cols)), shape=(n, n))
        _, self.component = connected_components(m, directed=False)

    def polygon_at(self, point: np.ndarray) -> int:
        """The polygon under ``point`` (x, y, z) whose ground is nearest its height, -1
        when none is within the climb."""
        p = np.asarray(point, np.float64)
        poly, h = self.ground_near(p[None, [0, 2]], p[None, 1])
        return int(poly[0]) if poly[0] >= 0 and abs(h[0] - p[1]) <= self.climb else -1

    def island(self, poly: int) -> np.ndarray:
        """The polygons joined to ``poly`` (itself included)."""
        comp = self.component[self.poly_nodes[poly][0]]
        return np.unique(self.node_poly[self.component == comp])

    def distance(self, start: np.ndarray, goal: np.ndarray, *, metric: str = "3d") -> Route:
        """The shortest surface route between two points on the surface (each on the
        polygon :meth:`polygon_at` gives), ``metric`` "3d" (draped lengths) or "xz"."""
        s, g = np.asarray(start, np.float64), np.asarray(goal, np.float64)
        ps, pg = self.polygon_at(s), self.polygon_at(g)
        if ps < 0 or pg < 0:
            raise ValueError(f"{s if ps < 0 else g} is not on the surface")
        n = len(self.node_poly)
        pts_xz = np.concatenate([self.node_xz, [s[[0, 2]], g[[0, 2]]]])
        pts_y = np.concatenate([self.node_y, [self.ground(ps, s[None, [0, 2]])[0],
                                              self.ground(pg, g[None, [0, 2]])[0]]])
        rows, cols, ws = [self._rows], [self._cols], [self._w[metric]]
        for end, poly in ((n, ps), (n + 1, pg)):
            ids = np.append(self.poly_nodes[poly], end)
            i = np.full(len(ids) - 1, len(ids) - 1)
            j = np.arange(len(ids) - 1)
            a, b = self._weights(poly, pts_xz[ids], pts_y[ids], i, j)
            rows.append(np.full(len(j), end))
            cols.append(ids[j])
            ws.append(a if metric == "3d" else b)
        if ps == pg:
            a, b = self._weights(ps, pts_xz[[n, n + 1]], pts_y[[n, n + 1]], np.array([0]),
                                 np.array([1]))
            rows.append(np.array([n]))
            cols.append(np.array([n + 1]))
            ws.append(a if metric == "3d" else b)
        w = np.concatenate(ws)
        m = coo_matrix((np.maximum(w, 1e-12), (np.concatenate(rows), np.concatenate(cols))),
                       shape=(n + 2, n + 2)).tocsr()
        dist, pred = dijkstra(m, directed=False, indices=n, return_predecessors=True)
        if not math.isfinite(dist[n + 1]):
            return Route(math.inf, 0.0, ())
        polys, at = [], n + 1
        while at != n:
            polys.append(pg if at == n + 1 else ps if at == n else int(self.node_poly[at]))
            at = pred[at]
        polys.append(ps)
        walk = [p for k, p in enumerate(polys[::-1]) if k == 0 or p != polys[::-1][k - 1]]
        return Route(float(dist[n + 1]), self.h * math.sqrt(2) * len(walk), tuple(walk))


def _area(outline: np.ndarray) -> float:
    x, z = outline[:, 0], outline[:, 2]
    return float(x @ np.roll(z, -1) - np.roll(x, -1) @ z) / 2


def _flat(tris: np.ndarray, tol: float) -> bool:
    """Whether the triangles lie in one plane (within ``tol`` in height)."""
    pts = tris.reshape(-1, 3)
    if len(pts) < 4:
        return True
    a = np.c_[pts[:, 0], pts[:, 2], np.ones(len(pts))]
    coef, *_ = np.linalg.lstsq(a, pts[:, 1], rcond=None)
    return bool(np.abs(a @ coef - pts[:, 1]).max() <= tol)
