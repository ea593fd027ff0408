"""The step-by-step Python reference of the clearance build (after Kallmann 2014), kept as
the oracle of the tests: :meth:`ClearanceMesh.build
<wayfinding.navmesh.clearance.ClearanceMesh.build>` runs the same steps compiled
(``wayfinding._kernels._clearance``), and the tests compare the two bit for bit.  Library code
does not use this module; the definitions it follows are in :mod:`.clearance`.

:class:`Triangulation` is a mutable counter-clockwise triangulation of a walkable area whose
walls are its boundary edges (every vertex lies on a wall).  Edge ``k`` of a triangle runs
from its corner ``k`` to corner ``k + 1``; ``nb[t][k]`` is the triangle across it, ``-1`` for
a wall.  It keeps the constrained Delaunay property with Lawson flips decided by the exact
in-circle predicate, splits walls at Steiner vertices, and measures the traversal
clearances.
"""

from __future__ import annotations

import math

import numpy as np

from .._kernels._predicates import incircle_xy, orient_xy
from ..errors import InvalidGeometryError
from .clearance import END_MARGIN, MAX_STEINER_RATIO, segment_distance


class Triangulation:
    """A mutable constrained Delaunay triangulation of a walkable area (see the module)."""

    def __init__(self, vertices: np.ndarray, triangles: np.ndarray):
        self.x: list[float] = vertices[:, 0].tolist()
        self.y: list[float] = vertices[:, 1].tolist()
        self.tri: list[list[int]] = triangles.tolist()
        self.owner: dict[tuple[int, int], int] = {}
        for t, (a, b, c) in enumerate(self.tri):
            for u, w in ((a, b), (b, c), (c, a)):
                if (u, w) in self.owner:
                    raise InvalidGeometryError(f"edge {u}-{w} is used twice in one direction")
                self.owner[(u, w)] = t
        self.nb: list[list[int]] = [[self.owner.get((t[(k + 1) % 3], t[k]), -1)
                                     for k in range(3)] for t in self.tri]
        self.vtri = [-1] * len(self.x)          # a triangle at each vertex
        for t, corners in enumerate(self.tri):
            for u in corners:
                self.vtri[u] = t
        self._cache: dict[tuple[int, int, int], float] = {}
        self.changes = 0                         # flips and splits so far
        self.changed: dict[int, int] = {}        # triangle -> the change that last hit it

    # ------------------------------------------------------------------ arrays
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(V, 2)`` vertices, ``(T, 3)`` int32 triangles and neighbours."""
        return (np.column_stack([self.x, self.y]).astype(np.float64),
                np.asarray(self.tri, dtype=np.int32).reshape(-1, 3),
                np.asarray(self.nb, dtype=np.int32).reshape(-1, 3))

    def _touch(self, *triangles: int) -> None:
        for t in triangles:
            self.changed[t] = self.changes
        self.changes += 1

    def _index(self, t: int, u: int) -> int:
        return self.tri[t].index(u)

    def _repoint(self, t: int, u: int, new: int) -> None:
        """The triangle across ``t``'s edge starting at ``u`` is now ``new``."""
        if t >= 0:
            self.nb[t][self._index(t, u)] = new

    # ------------------------------------------------------------------ Delaunay
    def _illegal(self, t: int, k: int) -> bool:
        n = self.nb[t][k]
        if n < 0:
            return False
        tri, x, y = self.tri[t], self.x, self.y
        u, w, o = tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]
        p = self.tri[n][(self._index(n, w) + 2) % 3]
        return incircle_xy(x[u], y[u], x[w], y[w], x[o], y[o], x[p], y[p]) > 0

    def _flip(self, t: int, k: int) -> None:
        n = self.nb[t][k]
        tri = self.tri[t]
        u, w, x = tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]
        j = self._index(n, w)
        y = self.tri[n][(j + 2) % 3]
        a, b = self.nb[t][(k + 1) % 3], self.nb[t][(k + 2) % 3]   # across w-x, x-u
        c, d = self.nb[n][(j + 1) % 3], self.nb[n][(j + 2) % 3]   # across u-y, y-w
        self.tri[t], self.nb[t] = [x, u, y], [b, c, n]
        self.tri[n], self.nb[n] = [y, w, x], [d, a, t]
        self._repoint(c, y, t)
        self._repoint(a, x, n)
        own = self.owner
        del own[(u, w)], own[(w, u)]
        own[(x, u)] = own[(u, y)] = own[(y, x)] = t
        own[(y, w)] = own[(w, x)] = own[(x, y)] = n
        self.vtri[x] = self.vtri[u] = self.vtri[y] = t
        self.vtri[w] = n
        self._touch(t, n)

    def legalize(self, edges: list[tuple[int, int]]) -> None:
        """Flip the given directed edges, and those their flips expose, until every free
        edge is locally Delaunay (Lawson)."""
        while edges:
            u, w = edges.pop()
            t = self.owner.get((u, w))
            if t is None:
                continue
            k = self._index(t, u)
            if self._illegal(t, k):
                x = self.tri[t][(k + 2) % 3]
                self._flip(t, k)
                y = self.tri[t][2]
                edges.extend(((x, u), (u, y), (y, w), (w, x)))

    def make_delaunay(self) -> None:
        """Legalize every free edge."""
        self.legalize([e for e in self.owner if e[0] < e[1]])

    def split_wall(self, t: int, k: int, px: float, py: float) -> int:
        """Split the wall on edge ``k`` of ``t`` at ``(px, py)`` and restore the Delaunay
        property; returns the new vertex, or -1 when the split would fold a triangle."""
        tri = self.tri[t]
        u, w, x = tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]
        xs, ys = self.x, self.y
        if (orient_xy(xs[u], ys[u], px, py, xs[x], ys[x]) <= 0
                or orient_xy(px, py, xs[w], ys[w], xs[x], ys[x]) <= 0):
            return -1
        m, t2 = len(xs), len(self.tri)
        xs.append(px)
        ys.append(py)
        across_wx, across_xu = self.nb[t][(k + 1) % 3], self.nb[t][(k + 2) % 3]
        self.tri[t], self.nb[t] = [u, m, x], [-1, t2, across_xu]
        self.tri.append([m, w, x])
        self.nb.append([-1, across_wx, t])
        self._repoint(across_wx, x, t2)
        own = self.owner
        del own[(u, w)]
        own[(u, m)] = own[(m, x)] = t
        own[(m, w)] = own[(w, x)] = own[(x, m)] = t2
        self.vtri.append(t)
        self.vtri[u] = self.vtri[x] = t
        self.vtri[w] = t2
        self._touch(t, t2)
        self.legalize([(x, u), (w, x)])
        return m

    # ------------------------------------------------------------------ clearance
    def corner(self, t: int, k: int) -> float:
        """Traversal clearance of corner ``k`` of triangle ``t`` (see the module)."""
        tri, xs, ys = self.tri[t], self.x, self.y
        b, c, a = tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]
        bx, by = xs[b], ys[b]
        if self.nb[t][(k + 1) % 3] < 0:
            return segment_distance(bx, by, xs[c], ys[c], xs[a], ys[a], 0.0, 1.0)
        # The wedge: left of b->c and right of b->a.
        cx, cy, ax, ay = xs[c] - bx, ys[c] - by, xs[a] - bx, ys[a] - by
        best = min(math.hypot(ax, ay), math.hypot(cx, cy))
        first = self.nb[t][(k + 1) % 3]
        seen = {t, first}
        stack = [first]
        while stack:
            m = stack.pop()
            mt = self.tri[m]
            for j in range(3):
                p, q = mt[j], mt[(j + 1) % 3]
                n = self.nb[m][j]
                if p == b or q == b or n in seen:
                    continue
                d = _wedge_dist(bx, by, cx, cy, ax, ay, xs[p], ys[p], xs[q], ys[q])
                if d >= best:
                    continue
                if n < 0:
                    best = d
                else:
                    seen.add(n)
                    stack.append(n)
        return best

    def fan(self, v: int) -> list[int]:
        """The triangles with ``v`` as a corner."""
        tri, nb = self.tri, self.nb
        out: list[int] = []
        for step in (2, 0):      # clockwise across the edge ending at v, then the other way
            t = self.vtri[v]
            while True:
                if t not in out:
                    out.append(t)
                t = nb[t][(tri[t].index(v) + step) % 3]
                if t < 0 or t == self.vtri[v]:
                    break
            if t >= 0:
                break
        return out

    def _cl(self, t: int, k: int) -> float:
        # A corner's clearance depends on its three vertices only (the walls it sees are
        # the same point sets however the free space is triangulated), so it is cached
        # by them across flips and wall splits.
        tri = self.tri[t]
        key = (tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3])
        if key not in self._cache:
            self._cache[key] = self.corner(t, k)
        return self._cache[key]

    def walk(self, v: int, fx: float, fy: float, wall: tuple[int, int]) -> list[int] | None:
        """The triangles the segment from vertex ``v`` to the point ``f`` on ``wall``
        crosses, or None when another wall or a vertex is in the way."""
        tri, xs, ys = self.tri, self.x, self.y
        vx, vy = xs[v], ys[v]
        for t in self.fan(v):
            k = tri[t].index(v)
            c, a = tri[t][(k + 1) % 3], tri[t][(k + 2) % 3]
            if (orient_xy(vx, vy, xs[c], ys[c], fx, fy) > 0
                    and orient_xy(vx, vy, xs[a], ys[a], fx, fy) < 0):
                u, w = c, a
                break
        else:
            return None
        crossed = [t]
        while (u, w) != wall:
            n = self.nb[t][tri[t].index(u)]
            if n < 0:
                return None
            z = tri[n][(tri[n].index(w) + 2) % 3]
            turn = orient_xy(vx, vy, fx, fy, xs[z], ys[z])
            if turn == 0:
                return None
            t = n
            crossed.append(t)
            u, w = (u, z) if turn > 0 else (z, w)
        return crossed

    def gap(self, v: int) -> tuple[tuple[int, int, float, float] | None, set[int]]:
        """A hidden gap at vertex ``v``: a wall whose foot from ``v`` lies inside it, in
        sight, nearer than the traversal clearance claimed by some corner (other than
        ``v``) of the triangles between them.  Returns ``(triangle, edge, foot x, foot y)``
        of the nearest such wall (or None) and the triangles looked at."""
        tri, nb, xs, ys = self.tri, self.nb, self.x, self.y
        vx, vy = xs[v], ys[v]
        start = self.fan(v)
        seen = set(start)
        stack = list(start)
        reach = 0.0
        walls: list[tuple[float, int, int, float, float]] = []
        while stack:
            t = stack.pop()
            for k in range(3):
                if tri[t][k] != v:
                    reach = max(reach, self._cl(t, k))
            for k in range(3):
                p, q = tri[t][k], tri[t][(k + 1) % 3]
                if p == v or q == v:
                    continue
                n = nb[t][k]
                if n >= 0:
                    if n not in seen and segment_distance(vx, vy, xs[p], ys[p], xs[q], ys[q], 0.0,
                                                   1.0) < reach:
                        seen.add(n)
                        stack.append(n)
                    continue
                sx, sy = xs[q] - xs[p], ys[q] - ys[p]
                u = ((vx - xs[p]) * sx + (vy - ys[p]) * sy) / (sx * sx + sy * sy)
                if END_MARGIN < u < 1 - END_MARGIN:
                    fx, fy = xs[p] + u * sx, ys[p] + u * sy
                    walls.append((math.hypot(fx - vx, fy - vy), t, k, fx, fy))
        for d, t, k, fx, fy in sorted(walls):
            if d >= reach:
                break
            crossed = self.walk(v, fx, fy, (tri[t][k], tri[t][(k + 1) % 3]))
            if crossed is None or len(crossed) < 2:
                continue
            seen.update(crossed)
            claimed = max(self._cl(m, j) for m in crossed for j in range(3)
                          if tri[m][j] != v)
            if d < claimed:
                return (t, k, fx, fy), seen
        return None, seen

    def refine(self) -> int:
        """Split walls at the feet of hidden gaps until none is left (only the input
        vertices are tested, which bounds the work); returns the Steiner vertices added.
        After the first sweep, a vertex is tested again only when a triangle it looked at
        has changed since."""
        originals = len(self.x)
        limit = MAX_STEINER_RATIO * max(originals, 1)
        added = 0
        looked: dict[int, tuple[int, set[int]]] = {}
        todo = list(range(originals))
        while todo:
            for v in todo:
                hit, region = self.gap(v)
                looked[v] = (self.changes, region)
                if hit is None or self.split_wall(*hit) < 0:
                    continue
                added += 1
                if added > limit:
                    raise InvalidGeometryError(
                        f"clearance refinement did not converge after {added} Steiner "
                        "vertices")
            changed = self.changed
            todo = [v for v, (when, region) in looked.items()
                    if any(changed.get(t, -1) >= when for t in region)]
        return added

    def clearances(self) -> np.ndarray:
        """``(T, 3)`` traversal clearance of every corner."""
        return np.array([[self._cl(t, k) for k in range(3)]
                         for t in range(len(self.tri))], dtype=np.float64).reshape(-1, 3)


def _wedge_dist(bx: float, by: float, cx: float, cy: float, ax: float, ay: float,
                px: float, py: float, qx: float, qy: float) -> float:
    """Distance from b to the part of segment pq inside the wedge at b left of the ray
    along (cx, cy) and right of the ray along (ax, ay) (both relative to b); inf when
    none of it is inside."""
    lo, hi = 0.0, 1.0
    rx, ry, dx, dy = px - bx, py - by, qx - px, qy - py
    for f0, f1 in ((cx * ry - cy * rx, cx * dy - cy * dx),
                   (ay * rx - ax * ry, ay * dx - ax * dy)):
        # Keep f0 + s f1 >= 0.
        if f1 > 0:
            lo = max(lo, -f0 / f1)
        elif f1 < 0:
            hi = min(hi, -f0 / f1)
        elif f0 < 0:
            return math.inf
    if lo > hi:
        return math.inf
    return segment_distance(bx, by, px, py, qx, qy, lo, hi)
