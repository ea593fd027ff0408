"""Local clearance triangulations (after Kallmann 2014): one triangle mesh that finds
paths for agents of every radius.

Every corner of every triangle stores its *traversal clearance*, the width available to a path
that enters the triangle by one edge at that corner and leaves by the other.  The constrained
Delaunay triangulation of the walkable area is refined until no gap between a vertex and a wall
hides from the corners it crosses; then a search that crosses a corner only when
``2 r <= clearance`` (the convention here: an agent exactly as wide as a passage fits), from and to
points at least ``r`` from every wall, finds the channels that hold a path of clearance
``r``.  The clearance-aware funnel pulls that path taut: tangent segments and arcs of radius
``r`` round the corners it turns.  The first and last triangles are no traversals: the corners
and walls near the path's first and last legs are checked there, and every leg of the pulled
path against the walls of its channel (a channel that fails gives no path).

*Traversal clearance* of corner ``b`` of triangle ``(b, c, a)`` (a path entering by ``ab``
and leaving by ``bc``): ``dist(b, ac)`` when ``ac`` is a wall; otherwise the distance from
``b`` to the nearest wall that crosses the *sector* (the disc of radius
``min(|ab|, |bc|)`` between the rays ``ba`` and ``bc``), found by walking across free edges
beyond ``ac``, or that radius when none does.  Every path of clearance ``r`` through the
corner needs ``2 r <= clearance``.

*Refinement* makes the test sufficient too.  A path can slip through the gap between a
vertex ``v`` and a wall without turning round ``v``, so the gap's width must also bound
the corners it crosses: when the segment from ``v`` to its foot ``f`` on a wall in sight
crosses a triangle one of whose corners (other than ``v``) claims more clearance than
``|vf|``, the wall is split at ``f``.  The Delaunay flips that follow connect ``v`` to
``f`` (or to vertices nearer still), so the gap becomes an edge every path through it
crosses.  (Kallmann's disturbances, resolved the same way: by a Steiner vertex at the
disturbing vertex's projection on the constraint.)

>>> mesh = ClearanceMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)],
...                            holes=[[(2, 2), (8, 2), (8, 8), (2, 8)]])
>>> mesh.find_path((1, 1), (9, 9), radius=0.5).found
True
>>> mesh.find_path((1, 1), (9, 9), radius=1.01).found   # the 2-wide corridors are too narrow
False
"""

from __future__ import annotations

import heapq
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._deprecated import positional_options
from .._io import read_npz, write_npz
from .._kernels import _clearance, _navmesh
from .._validate import flag
from ..errors import InvalidGeometryError, InvalidQueryError, NavMeshFormatError
from ..geometry.buckets import Buckets
from ..geometry.circles import tangent
from ..geometry.obstacles import as_point, check_radius
from ..geometry.predicates import Pt
from ..results import PathResult, SearchStats, _fields_equal
from .build import triangulate, walkable_area
from .mesh import bucket_index

FORMAT, VERSION = "wayfinding-clearance-mesh", 1
#: Refinement stops with an error after this many Steiner vertices per input vertex.
MAX_STEINER_RATIO = 20
#: A foot closer than this fraction of a wall's length to one of its ends does not split it.
END_MARGIN = 1e-9
#: Angle (radians) between the points a path's arcs are drawn with, at most.
ARC_STEP = math.radians(5)


@dataclass(slots=True, repr=False, kw_only=True)
class ClearancePath(PathResult):
    """A path of clearance ``radius``: ``path`` is an ``(n, 2)`` polyline from start to goal
    (arcs drawn every :data:`ARC_STEP` at most), ``cost`` the exact length of the tangent
    segments and arcs.

    ``turns``: per arc, ``(x, y, side)`` (the corner it turns around; side +1 when the
    path turns counter-clockwise around it, y up, -1 clockwise); ``channel``: the triangles
    walked through; ``reason``: why no path was found (empty when one was).
    """

    radius: float = 0.0
    turns: Any = None
    channel: Any = None
    reason: str = ""

    __eq__ = _fields_equal


class ClearanceMesh:
    """A local clearance triangulation of a walkable area (see the module)."""

    def __init__(self, vertices: Any, triangles: Any, clearance: Any, *, steiner: int = 0,
                 build_time: float = 0.0):
        self.vertices = np.ascontiguousarray(vertices, dtype=np.float64)
        self.triangles = np.ascontiguousarray(triangles, dtype=np.int32)
        self.clearance = np.ascontiguousarray(clearance, dtype=np.float64)
        self.neighbours = _kernel_mesh(self.vertices, self.triangles).arrays()[2]
        self.steiner = int(steiner)
        self.build_time = float(build_time)
        tri = self.triangles
        wall_t, wall_k = np.nonzero(self.neighbours < 0)
        self.walls = np.stack([tri[wall_t, wall_k], tri[wall_t, (wall_k + 1) % 3]], axis=1)
        self._scale = max(float(np.abs(self.vertices).max(initial=0.0)), 1.0)
        self._lists = (self.triangles.tolist(), self.neighbours.tolist(),
                       self.clearance.tolist(), self.vertices[:, 0].tolist(),
                       self.vertices[:, 1].tolist())
        self._pts: list[Pt] = list(zip(self._lists[3], self._lists[4], strict=True))

    @classmethod
    def build(cls, area: Any = None, *, outline: Any = None, holes: Any = (),
              refine: bool = True) -> ClearanceMesh:
        """Triangulate a walkable area (anything :func:`walkable_area` takes), make the
        triangulation constrained Delaunay with exact in-circle tests and, with ``refine``
        (the default), split walls until no vertex–wall gap hides from the corners it
        crosses.  The steps of the Python reference in
        :mod:`wayfinding.navmesh._lct_reference`, compiled: the same triangles and
        clearances, bit for bit.  Each gap test looks at the triangles within its vertex's
        reach: the time grows near linearly for rooms, caves and obstacle fields, and up to
        quadratically when one open room is bounded by thousands of vertices."""
        refine = flag("refine", refine, error=InvalidGeometryError)
        t0 = time.perf_counter()
        verts, tris = triangulate(walkable_area(area, outline=outline, holes=holes))
        mesh = _kernel_mesh(verts, tris)
        mesh.make_delaunay()
        steiner = mesh.refine(MAX_STEINER_RATIO) if refine else 0
        if steiner < 0:
            raise InvalidGeometryError(f"clearance refinement did not converge after "
                                       f"{-steiner} Steiner vertices")
        v, t, _ = mesh.arrays()
        return cls(v, t, mesh.clearances(), steiner=steiner,
                   build_time=time.perf_counter() - t0)

    def __repr__(self) -> str:
        return (f"ClearanceMesh({self.num_triangles} triangles, {len(self.vertices)} vertices, "
                f"{self.steiner} Steiner)")

    @property
    def num_triangles(self) -> int:
        return len(self.triangles)

    def hidden_gaps(self) -> list[int]:
        """The input vertices with a hidden gap (see
        *Refinement* in the module notes); none after refinement."""
        mesh = _kernel_mesh(self.vertices, self.triangles)
        return mesh.hidden_gaps(len(self.vertices) - self.steiner)

    # ------------------------------------------------------------------ points
    @cached_property
    def _buckets(self) -> Buckets:
        return bucket_index(self.vertices, self.triangles)

    @cached_property
    def _parts(self) -> list[int]:
        """Each triangle's connected part of the mesh (the lowest triangle id in it)."""
        nb = self._lists[1]
        part = [-1] * len(nb)
        for t0 in range(len(nb)):
            if part[t0] < 0:
                part[t0], stack = t0, [t0]
                while stack:
                    for n in nb[stack.pop()]:
                        if n >= 0 and part[n] < 0:
                            part[n] = t0
                            stack.append(n)
        return part

    def locate(self, point: ArrayLike) -> int:
        """The triangle holding ``point`` (on its boundary counts; the lowest id when
        several do), or -1: a look in one bucket of a uniform grid over the triangles."""
        p = as_point(point, "point")
        out = np.empty(1, dtype=np.int32)
        _navmesh.locate(self.vertices, self.triangles, np.full(len(self.triangles), 3,
                                                               dtype=np.int32),
                        *self._buckets, np.ascontiguousarray(p.reshape(1, 2)), out)
        return int(out[0])

    def wall_distance(self, point: ArrayLike) -> float:
        """Distance from ``point`` to the nearest wall."""
        p = as_point(point, "point")
        a, b = self.vertices[self.walls[:, 0]], self.vertices[self.walls[:, 1]]
        d = b - a
        s = np.clip(np.einsum("ij,ij->i", p - a, d) / np.einsum("ij,ij->i", d, d), 0, 1)
        return float(np.hypot(*(a + s[:, None] * d - p).T).min(initial=math.inf))

    # ------------------------------------------------------------------ paths
    @positional_options("radius")
    def find_path(self, start: ArrayLike, goal: ArrayLike, *, radius: float = 0.0) -> ClearancePath:
        """The shortest path of clearance ``radius`` in the channel found by A* over the
        triangles' edges (crossing a corner only when ``2 radius <= clearance``), pulled
        taut by the clearance-aware funnel.  Points off the walkable area raise
        :class:`InvalidQueryError`; an end closer than ``radius`` to a wall gives no path
        (with ``radius`` 0 an end may be a corner of the outline or of an obstacle).  The
        ``reason`` of no path names an end too near a wall, ends in parts of the area that
        do not join, or else no channel wide enough."""
        t0 = time.perf_counter()
        r = check_radius(radius)
        p, q = as_point(start, "start"), as_point(goal, "goal")
        ts, tg = self.locate(p), self.locate(q)
        for name, end, t in (("start", p, ts), ("goal", q, tg)):
            if t < 0:
                raise InvalidQueryError(f"{name} {tuple(end.tolist())} is not on the walkable "
                                        "area")
        for name, end in (("start", p), ("goal", q)):
            if self.wall_distance(end) < r:
                return self._none(r, f"the {name} is closer than {r} to a wall")
        pt, qt = (float(p[0]), float(p[1])), (float(q[0]), float(q[1]))
        for channel, left, right in self._channels(ts, tg, pt, qt, r):
            nodes: list[tuple[int, int]] | None
            if pt == qt:                 # no leg to pull: the path is the point
                nodes = [(-1, 0)]
            else:
                nodes = self._pull(pt, qt, channel, left, right, r)
            if nodes is None:
                continue
            line, cost, turns = _trace(self._pts, pt, qt, nodes, r)
            return ClearancePath(path=line, cost=cost, found=True,
                                 stats=SearchStats(elapsed=time.perf_counter() - t0),
                                 algorithm="lct", radius=r, turns=turns,
                                 channel=np.asarray(channel, dtype=np.int64))
        if self._parts[ts] != self._parts[tg]:
            return self._none(r, "the start and the goal lie in parts of the walkable area "
                                 "that do not join")
        return self._none(r, f"no channel is wide enough for radius {r}")

    def _pull(self, p: Pt, q: Pt, channel: list[int], left: list[int],
              right: list[int], r: float) -> list[tuple[int, int]] | None:
        """The funnel's nodes, or None when the channel's ends are too narrow.  The first
        and last triangles are no traversals: a corner near them that the first or last
        leg passes closer than ``r`` joins the portals, on the side the leg passes it, and
        the funnel runs again; a wall closer than ``r`` to those legs rejects the
        channel."""
        v = self._pts
        nodes = _unwrap(v, p, q, _funnel(v, p, q, left, right, r), r)
        if r == 0:
            return nodes
        for _ in range(len(v)):
            legs = _legs(v, p, q, nodes, r)
            hit = None
            for end, t in ((0, channel[0]), (-1, channel[-1])):
                a, b = legs[end]
                x, wall = self._near(t, a, b, r, {nodes[end][0], nodes[end - 1][0]})
                if x >= 0:
                    hit = end, x, a, b
                    break
                if wall:
                    return None
            if hit is None:
                return nodes if self._clear(channel, legs, r) else None
            end, x, a, b = hit
            on_left = (b[0] - a[0]) * (v[x][1] - a[1]) - (b[1] - a[1]) * (v[x][0] - a[0]) > 0
            at = 0 if end == 0 else len(left)
            if left:
                pair = (x, right[end]) if on_left else (left[end], x)
            else:
                pair = (x, FREE) if on_left else (FREE, x)
            left.insert(at, pair[0])
            right.insert(at, pair[1])
            nodes = _unwrap(v, p, q, _funnel(v, p, q, left, right, r), r)
        return None

    def _clear(self, channel: list[int], legs: list[tuple[Pt, Pt]], r: float) -> bool:
        """Whether every leg keeps ``r`` (up to rounding) from the walls of the channel's
        triangles: the funnel's choices between circles that touch one tangent line (corners
        exactly ``2 r`` apart, passages exactly ``2 r`` wide) are checked, not trusted."""
        tri, nb, _, _, _ = self._lists
        v = self._pts
        limit = r * (1 - 1e-9) - 1e-12 * self._scale
        walls = [(v[tri[t][k]], v[tri[t][(k + 1) % 3]]) for t in set(channel)
                 for k in range(3) if nb[t][k] < 0]
        for a, b in legs:
            x0, x1 = min(a[0], b[0]) - r, max(a[0], b[0]) + r
            y0, y1 = min(a[1], b[1]) - r, max(a[1], b[1]) + r
            for c, d in walls:
                if (max(c[0], d[0]) < x0 or min(c[0], d[0]) > x1 or max(c[1], d[1]) < y0
                        or min(c[1], d[1]) > y1):
                    continue
                if _segments_distance(a, b, c, d) < limit:
                    return False
        return True

    def _near(self, t: int, a: Pt, b: Pt, r: float, ends: set[int]) -> tuple[int, bool]:
        """Walking from triangle ``t`` across free edges closer than ``r`` to segment ab
        (whose ends touch the circles of vertices ``ends``): the vertex nearest ab closer
        than ``r`` (-1 when none) and whether a wall is closer than ``r``, both up to
        rounding."""
        tri, nb, _, _, _ = self._lists
        v = self._pts
        seen, stack = {t}, [t]
        limit = r * (1 - 1e-9) - 1e-12 * self._scale
        best, found, wall = limit, -1, False
        while stack:
            m = stack.pop()
            for k in range(3):
                x, y = tri[m][k], tri[m][(k + 1) % 3]
                d = _segment_distance(a, b, v[x])
                if d < best and x not in ends:
                    best, found = d, x
                n = nb[m][k]
                if n in seen or _segments_distance(a, b, v[x], v[y]) >= limit:
                    continue
                if n < 0:
                    wall = True
                else:
                    seen.add(n)
                    stack.append(n)
        return found, wall

    def _none(self, r: float, reason: str) -> ClearancePath:
        return ClearancePath(path=np.empty((0, 2)), cost=math.inf, found=False,
                             algorithm="lct", radius=r, turns=np.empty((0, 3)),
                             channel=np.empty(0, dtype=np.int64), reason=reason)

    def _channels(self, ts: int, tg: int, p: Pt, q: Pt, r: float
                  ) -> Iterator[tuple[list[int], list[int], list[int]]]:
        """A* over (triangle, entry edge) states: yields (triangles, left ids, right ids)
        of the portals crossed, each time it reaches the goal's triangle.  A state's point
        is where the line from the previous point to the goal crosses the edge, kept ``r``
        (and 1%) away from the edge's ends; g sums the distances between the points."""
        tri, nb, cl, xs, ys = self._lists
        if ts == tg:
            yield [ts], [], []
        width = 2 * r
        qx, qy = float(q[0]), float(q[1])
        best: dict[tuple[int, int], float] = {}
        parent: dict[tuple[int, int], tuple[int, int] | None] = {}
        where: dict[tuple[int, int], tuple[float, float]] = {}
        heap: list[tuple[float, float, int, int]] = []

        def push(t: int, j: int, cx: float, cy: float, g: float,
                 prev: tuple[int, int] | None) -> None:
            u, w = tri[t][j], tri[t][(j + 1) % 3]
            ax, ay, bx, by = xs[u], ys[u], xs[w], ys[w]
            ex, ey = bx - ax, by - ay
            length = math.hypot(ex, ey)
            if length < width:
                return
            dx, dy = qx - cx, qy - cy
            den = ex * dy - ey * dx
            at = ((cx - ax) * dy - (cy - ay) * dx) / den if den else 0.5
            lo = min(max(r / length, 0.01), 0.5)
            at = min(max(at, lo), 1 - lo)
            px, py = ax + at * ex, ay + at * ey
            g += math.hypot(px - cx, py - cy)
            n = nb[t][j]
            state = (n, tri[n].index(w))
            if g < best.get(state, math.inf):
                best[state], parent[state], where[state] = g, prev, (px, py)
                heapq.heappush(heap, (g + math.hypot(px - qx, py - qy), g, *state))

        for j in range(3):
            if nb[ts][j] >= 0:
                push(ts, j, float(p[0]), float(p[1]), 0.0, None)
        while heap:
            _, g, t, k = heapq.heappop(heap)
            if g > best[(t, k)]:
                continue
            if t == tg:
                states = []
                s: tuple[int, int] | None = (t, k)
                while s is not None:
                    states.append(s)
                    s = parent[s]
                states.reverse()
                # Entering t by its edge k = (u, w) (counter-clockwise in t): u is on the
                # left of the previous triangle's exit, w on the right.
                yield ([ts] + [t for t, _ in states], [tri[t][k] for t, k in states],
                       [tri[t][(k + 1) % 3] for t, k in states])
            cx, cy = where[(t, k)]
            for j, corner in (((k + 1) % 3, (k + 1) % 3), ((k + 2) % 3, k)):
                if nb[t][j] >= 0 and cl[t][corner] >= width:
                    push(t, j, cx, cy, g, (t, k))

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike) -> None:
        """Write the mesh to ``path`` (``.npz`` with a JSON header), atomically."""
        header = {"format": FORMAT, "version": VERSION, "steiner": self.steiner,
                  "build_time": self.build_time}
        write_npz(path, header, vertices=self.vertices, triangles=self.triangles,
                  clearance=self.clearance)

    @classmethod
    def load(cls, path: str | os.PathLike) -> ClearanceMesh:
        """Read a mesh written by :meth:`save`; a malformed file raises
        :class:`NavMeshFormatError` naming it."""
        header, arrays = read_npz(path, FORMAT, VERSION, "clearance mesh", NavMeshFormatError)
        v, t, c = (arrays.get(k) for k in ("vertices", "triangles", "clearance"))
        ok = (v is not None and t is not None and c is not None and v.ndim == 2
              and v.shape[1] == 2 and np.isfinite(v).all() and t.ndim == 2 and t.shape[1] == 3
              and c.shape == t.shape and t.min(initial=0) >= 0 and t.max(initial=0) < len(v)
              and (c >= 0).all())
        if not ok:
            raise NavMeshFormatError("malformed clearance mesh (array shapes or ids)", path)
        return cls(v, t, c, steiner=int(header.get("steiner", 0)),
                   build_time=float(header.get("build_time", 0.0)))


def _kernel_mesh(vertices: np.ndarray, triangles: np.ndarray) -> Any:
    """The compiled triangulation of ``(V, 2)`` float64 vertices and ``(T, 3)`` int32
    counter-clockwise triangles; other shapes, ids out of range and an edge used twice in
    one direction raise :class:`InvalidGeometryError`."""
    try:
        mesh = _clearance.Mesh(np.ascontiguousarray(vertices, dtype=np.float64),
                               np.ascontiguousarray(triangles, dtype=np.int32), END_MARGIN)
    except ValueError as exc:       # shapes and ids, named by the kernel
        raise InvalidGeometryError(str(exc)) from None
    if mesh.dup_u >= 0:
        raise InvalidGeometryError(f"edge {mesh.dup_u}-{mesh.dup_w} is used twice in one "
                                   "direction")
    return mesh


# ---------------------------------------------------------------------- the r-funnel
# A funnel node is (vertex id, side): side +1 for a left portal end (the path turns
# counter-clockwise around it), -1 for a right one; the start and goal are (-1, 0), (-2, 0).
# A portal end FREE constrains nothing on its side.
FREE = -3


def _tangent(c0: Pt, s0: int, r0: float, c1: Pt, s1: int, r1: float
             ) -> tuple[float, float, Pt, Pt]:
    """:func:`tangent`, clamped, between the circles of two funnel nodes."""
    t = tangent(c0, s0, r0, c1, s1, r1, clamp=True)
    assert t is not None            # clamped, it fails only on one centre: nodes differ
    return t


def _funnel(verts: list[Pt], p: Pt, q: Pt, left: list[int], right: list[int], r: float
            ) -> list[tuple[int, int]]:
    """The simple stupid funnel with a circle of radius ``r`` on every portal end: the
    nodes the taut path wraps, from start to goal."""
    ends = [((-1, 0), (-1, 0))] + [((a, 1), (b, -1)) for a, b in zip(left, right,
                                                                      strict=True)]
    ends.append(((-2, 0), (-2, 0)))

    def centre(node: tuple[int, int]) -> Pt:
        return p if node[0] == -1 else q if node[0] == -2 else verts[node[0]]

    def direction(a: tuple[int, int], b: tuple[int, int]) -> tuple[float, float]:
        ux, uy, _, _ = _tangent(centre(a), a[1], r if a[0] >= 0 else 0.0,
                                centre(b), b[1], r if b[0] >= 0 else 0.0)
        return ux, uy

    def cross(u: tuple[float, float], w: tuple[float, float]) -> float:
        return u[0] * w[1] - u[1] * w[0]

    def clears(side: tuple[int, int], node: tuple[int, int]) -> bool:
        # Tangent directions from a circle are no rays from one point: a node whose
        # direction crosses a funnel side may still be reached past that side's circle
        # (the segment ends short of it, or passes it on its own side and clear).  A
        # segment that only touches the side's circle on the way (both circles on one
        # tangent line, as when corners line up 2 r apart across the channel) wraps the
        # nearer circle first, by a zero arc: skipping it would lose the portals between
        # and cut the corner where the path turns off that line.
        _, _, a, b = _tangent(centre(apex), apex[1], r if apex[0] >= 0 else 0.0,
                              centre(node), node[1], r if node[0] >= 0 else 0.0)
        c = centre(side)
        dx, dy = b[0] - a[0], b[1] - a[1]
        dd = dx * dx + dy * dy
        if dd == 0:
            return False
        s = ((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / dd
        on_side = side[1] * (dx * (c[1] - a[1]) - dy * (c[0] - a[0])) > 0
        d = _segment_distance(a, b, c)
        if s >= 1:
            return d >= r * (1 - 1e-9)
        return on_side and d > r * (1 + 1e-9)

    out = [(-1, 0)]
    apex = (-1, 0)
    bound = {1: apex, -1: apex}           # the funnel's left (+1) and right (-1) ends
    index = {1: 0, -1: 0}
    i = 1
    while i < len(ends):
        moved = False
        for side, new in ((-1, ends[i][1]), (1, ends[i][0])):
            # An end at the apex's own place (a path from or to a corner) bends nothing.
            if new[0] in (apex[0], FREE) or centre(new) == centre(apex):
                continue
            d_new = direction(apex, new)
            own, other = bound[side], bound[-side]
            # A side tightens when its new end turns towards the other side.
            if own != apex and side * cross(direction(apex, own), d_new) > 0:
                continue
            d_other = direction(apex, other) if other != apex else d_new
            turn = side * cross(d_other, d_new)
            # Inside the funnel; or straight across it (the apex lies on the portal).
            if other == apex or turn > 0 or (turn == 0 and d_other[0] * d_new[0]
                                             + d_other[1] * d_new[1] < 0):
                bound[side], index[side] = new, i
                continue
            # The new end crosses the other side: the path wraps the other side's circle
            # first, or the new end's when it lies short of that circle.
            nxt, at = (new, i) if clears(other, new) else (other, index[-side])
            if nxt in out:
                bound[side], index[side] = new, i
                continue
            out.append(nxt)
            apex = nxt
            bound = {1: apex, -1: apex}
            index = {1: at, -1: at}
            i, moved = at, True          # the apex's own portal: its other end counts
            break
        if not moved:
            i += 1
    if out[-1] != (-2, 0):
        out.append((-2, 0))
    # A corner at the start's or the goal's own place (only with r = 0) bends nothing.
    return [n for n in out if n[0] < 0 or centre(n) not in (p, q)]


def segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float,
                     lo: float, hi: float) -> float:
    """Distance from p to the part ``lo <= s <= hi`` of the segment a + s (b - a)."""
    dx, dy = bx - ax, by - ay
    dd = dx * dx + dy * dy
    s = ((px - ax) * dx + (py - ay) * dy) / dd if dd > 0 else lo
    s = min(max(s, lo), hi)
    return math.hypot(ax + s * dx - px, ay + s * dy - py)


def _segment_distance(a: Pt, b: Pt, x: Pt) -> float:
    return segment_distance(x[0], x[1], a[0], a[1], b[0], b[1], 0.0, 1.0)


def _segments_distance(a: Pt, b: Pt, c: Pt, d: Pt) -> float:
    """Distance between segments ab and cd."""
    def side(p: Pt, q: Pt, x: Pt) -> float:
        return (q[0] - p[0]) * (x[1] - p[1]) - (q[1] - p[1]) * (x[0] - p[0])
    if side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0:
        return 0.0
    return min(_segment_distance(a, b, c), _segment_distance(a, b, d),
               _segment_distance(c, d, a), _segment_distance(c, d, b))


def _legs(verts: list[Pt], p: Pt, q: Pt, nodes: list[tuple[int, int]], r: float
          ) -> list[tuple[Pt, Pt]]:
    """The tangent segments between consecutive nodes."""
    centres = [p if v == -1 else q if v == -2 else verts[v] for v, _ in nodes]
    radii = [0.0 if v < 0 else r for v, _ in nodes]
    return [_tangent(centres[i], nodes[i][1], radii[i], centres[i + 1], nodes[i + 1][1],
                     radii[i + 1])[2:] for i in range(len(nodes) - 1)]


def _sweep(verts: list[Pt], node: tuple[int, int], arrive: Pt, leave: Pt) -> float:
    """Angle the path turns round ``node``'s circle from ``arrive`` to ``leave``."""
    c, side = verts[node[0]], node[1]
    t0 = math.atan2(arrive[1] - c[1], arrive[0] - c[0])
    t1 = math.atan2(leave[1] - c[1], leave[0] - c[0])
    return (side * (t1 - t0)) % (2 * math.pi)


def _unwrap(verts: list[Pt], p: Pt, q: Pt, nodes: list[tuple[int, int]], r: float
            ) -> list[tuple[int, int]]:
    """Drop the corners the funnel made the path circle the wrong way round (more than a
    half turn) when the path clears them without: near-touching circles make the
    funnel's tangent directions meaningless."""
    while True:
        legs = _legs(verts, p, q, nodes, r)
        for i in range(1, len(nodes) - 1):
            if _sweep(verts, nodes[i], legs[i - 1][1], legs[i][0]) <= math.pi:
                continue
            a, b = _legs(verts, p, q, [nodes[i - 1], nodes[i + 1]], r)[0]
            if _segment_distance(a, b, verts[nodes[i][0]]) >= r * (1 - 1e-9):
                nodes = nodes[:i] + nodes[i + 1:]
                break
        else:
            return nodes


def _trace(verts: list[Pt], p: Pt, q: Pt, nodes: list[tuple[int, int]], r: float
           ) -> tuple[np.ndarray, float, np.ndarray]:
    """The polyline, exact length and turns of the path wrapping ``nodes``."""
    legs = _legs(verts, p, q, nodes, r)
    points = [p]
    length = 0.0
    turns = []
    for i, (a, b) in enumerate(legs):
        if i > 0:
            c, side = verts[nodes[i][0]], nodes[i][1]
            arrive = legs[i - 1][1]
            sweep = _sweep(verts, nodes[i], arrive, a)
            steps = int(math.ceil(sweep / ARC_STEP))
            t0 = math.atan2(arrive[1] - c[1], arrive[0] - c[0])
            angles = t0 + side * sweep * np.arange(1, steps) / max(steps, 1)
            points.extend(np.column_stack([c[0] + r * np.cos(angles),
                                           c[1] + r * np.sin(angles)]).tolist())
            length += r * sweep
            turns.append((float(c[0]), float(c[1]), float(side)))
        points.extend([a, b])
        length += math.hypot(b[0] - a[0], b[1] - a[1])
    line = np.array(points, dtype=np.float64)
    keep = np.ones(len(line), dtype=bool)
    keep[1:] = np.any(np.abs(np.diff(line, axis=0)) > 0, axis=1)
    return line[keep], length, np.array(turns, dtype=np.float64).reshape(-1, 3)
