"""Climb graphs: nodes along traversal elements, explicit links where elements touch and
implicit jump and drop links a character's capabilities allow.

Nodes are each element's vertices and arc-length centre, the points where elements touch
(one merged node, with edges to the neighbouring nodes of every element through it) and the
landing points of links.  Implicit links are tried from each element's two ends and centre
to the nearest point of every other element: a link is kept when the character's
capabilities allow it and :class:`Blockers` leave its segment clear.

>>> from wayfinding.climbing.markup import ElementKind
>>> a = TraversalElement(ElementKind.LEDGE, [(0, 0, 3), (4, 0, 3)])
>>> b = TraversalElement(ElementKind.LEDGE, [(4, 0, 3), (8, 0, 3)])   # touches a's end
>>> c = TraversalElement(ElementKind.LEDGE, [(0, 0, 4), (4, 0, 4)])   # 1 m above a
>>> g = build_climb_graph([a, b, c])
>>> g.num_nodes, int((g.edge_kinds == EdgeKind.JUMP).sum()) > 0
(8, True)
>>> g = build_climb_graph([a, c], capabilities=Capabilities(max_jump_distance=0))
>>> sorted(EdgeKind(k).name for k in g.edge_kinds[g.edge_kinds != EdgeKind.CLIMB])
['DROP', 'DROP', 'DROP']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from .._validate import number
from ..errors import InvalidGeometryError
from ..results import _fields_equal
from .markup import Blockers, Capabilities, TraversalElement, transform_points


class EdgeKind(IntEnum):
    """How an edge is travelled: ``CLIMB`` along an element, ``JUMP`` (level or up) or
    ``DROP`` (down) between elements."""

    CLIMB = 0
    JUMP = 1
    DROP = 2


@dataclass(frozen=True, eq=False)
class ClimbGraph:
    """A directed climb graph.

    ``elements``: the elements it was built from (those of kinds the character cannot use
    have no nodes).  ``nodes``: ``(n, 3)`` float64 positions.  ``edges``: ``(m, 2)`` int64
    ``(from, to)`` node pairs; ``edge_kinds``: ``(m,)`` int8 :class:`EdgeKind`;
    ``edge_lengths``: ``(m,)`` float64 metres (arc length for climbs, straight for links).
    ``stops``: per element, the ``(k, 2)`` float64 rows ``(distance along it, node)`` of its
    nodes in order.  ``edge_ids``: ``(from, to) -> edge``.
    """

    elements: tuple[TraversalElement, ...]
    nodes: np.ndarray
    edges: np.ndarray
    edge_kinds: np.ndarray
    edge_lengths: np.ndarray
    stops: tuple[np.ndarray, ...]
    edge_ids: dict[tuple[int, int], int] = field(repr=False)

    __eq__ = _fields_equal

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    @property
    def num_links(self) -> int:
        """The number of jump and drop edges."""
        return int((self.edge_kinds != EdgeKind.CLIMB).sum())

    def transformed(self, rotation: Any, translation: Any) -> ClimbGraph:
        """This graph moved rigidly with the object its elements are attached to: the same
        nodes, edges and lengths at moved positions (a rigid motion keeps distances, and
        line of sight holds when the blockers move with the object)."""
        nodes = transform_points(self.nodes, rotation, translation)
        nodes.flags.writeable = False
        return ClimbGraph(tuple(e.transformed(rotation, translation) for e in self.elements),
                          nodes, self.edges, self.edge_kinds, self.edge_lengths, self.stops,
                          self.edge_ids)


def _segment_closest(p0: np.ndarray, p1: np.ndarray, q0: np.ndarray, q1: np.ndarray
                     ) -> tuple[float, float, float]:
    """Parameters (s, t) in [0, 1] of the closest points of segments p0-p1 and q0-q1 and
    their distance."""
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, f = d1 @ d1, d2 @ d2, d2 @ r
    c, b = d1 @ r, d1 @ d2
    den = a * e - b * b
    s = min(max((b * f - c * e) / den, 0.0), 1.0) if den > 1e-12 * a * e else 0.0
    t = (b * s + f) / e
    if t < 0.0:
        t, s = 0.0, min(max(-c / a, 0.0), 1.0)
    elif t > 1.0:
        t, s = 1.0, min(max((b - c) / a, 0.0), 1.0)
    return s, t, float(np.linalg.norm(p0 + s * d1 - q0 - t * d2))


def _link_kind(p: np.ndarray, q: np.ndarray, caps: Capabilities) -> EdgeKind | None:
    """The kind of a link from p to q the capabilities allow, or None."""
    d = q - p
    rise, run, dist = d[2], float(np.hypot(d[0], d[1])), float(np.linalg.norm(d))
    if rise < 0:
        ok = -rise <= caps.max_drop_height and run <= caps.max_jump_distance
        return EdgeKind.DROP if ok else None
    steep = bool(np.degrees(np.arctan2(rise, run)) <= caps.max_jump_angle) if dist else True
    ok = dist <= caps.max_jump_distance and rise <= caps.max_jump_height and steep
    return EdgeKind.JUMP if ok else None


def build_climb_graph(elements: Any, *, capabilities: Capabilities | None = None,
                      blockers: Blockers | None = None, touch: float = 1e-6) -> ClimbGraph:
    """The climb graph of ``elements`` (a sequence of :class:`TraversalElement`) for a
    character with ``capabilities`` (default :class:`Capabilities()`), links tested for
    line of sight against ``blockers``.  Elements closer than ``touch`` metres (> 0) touch:
    they share a merged node there and no link joins them at that spot.
    """
    els = tuple(elements)
    for i, e in enumerate(els):
        if not isinstance(e, TraversalElement):
            raise InvalidGeometryError(f"elements[{i}] {e!r} is not a TraversalElement")
    caps = Capabilities() if capabilities is None else capabilities
    if not isinstance(caps, Capabilities):
        raise InvalidGeometryError(f"capabilities {caps!r} is not a Capabilities")
    block = Blockers() if blockers is None else blockers
    if not isinstance(block, Blockers):
        raise InvalidGeometryError(f"blockers {block!r} is not a Blockers")
    tol = number("touch", touch, min=0.0, min_open=True, error=InvalidGeometryError)
    use = [i for i, e in enumerate(els) if e.kind in caps.kinds]
    stops: list[list[tuple[float, np.ndarray]]] = [[] for _ in els]
    for i in use:
        e = els[i]
        stops[i] += [(float(c), p) for c, p in zip(e.cumulative, e.points)]
        stops[i].append((e.length / 2, e._point_at(e.length / 2)))
    lo = np.array([els[i].points.min(axis=0) for i in use]).reshape(-1, 3)
    hi = np.array([els[i].points.max(axis=0) for i in use]).reshape(-1, 3)
    reach = caps.reach + tol
    apart = (lo[:, None] - hi[None] > reach).any(axis=2)
    pairs = np.argwhere(np.triu(~(apart | apart.T), 1))   # boxes within reach, i < j
    links: list[tuple[int, float, int, float]] = []      # (element, distance) pairs
    for ia, ja in pairs.tolist():
        i, j = use[ia], use[ja]
        a, b = els[i], els[j]
        for u in range(len(a.points) - 1):
            for v in range(len(b.points) - 1):
                s, t, d = _segment_closest(a.points[u], a.points[u + 1],
                                           b.points[v], b.points[v + 1])
                if d <= tol:
                    da = a.cumulative[u] + s * (a.cumulative[u + 1] - a.cumulative[u])
                    db = b.cumulative[v] + t * (b.cumulative[v + 1] - b.cumulative[v])
                    stops[i].append((float(da), a._point_at(da)))
                    stops[j].append((float(db), b._point_at(db)))
        for x, y in ((i, j), (j, i)):
            src, dst = els[x], els[y]
            for ds in (0.0, src.length / 2, src.length):
                p = src._point_at(ds)
                dd, q = dst._closest(p)
                if tol < np.linalg.norm(q - p) <= reach:
                    links.append((x, ds, y, dd))
                    stops[y].append((dd, q))
    # merge stop points closer than tol into nodes
    nodes: list[np.ndarray] = []
    cells: dict[tuple[int, ...], list[int]] = {}         # spatial hash, cells of side tol
    near = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)]
    per_element: list[np.ndarray] = []
    for i in range(len(els)):
        rows: list[tuple[float, int]] = []
        for d, p in sorted(stops[i], key=lambda s: s[0]):
            key = tuple(np.floor(p / tol).astype(np.int64).tolist())
            k = next((n for dx, dy, dz in near
                      for n in cells.get((key[0] + dx, key[1] + dy, key[2] + dz), ())
                      if np.linalg.norm(nodes[n] - p) <= tol), -1)
            if k < 0:
                k = len(nodes)
                nodes.append(p)
                cells.setdefault(key, []).append(k)
            if not rows or rows[-1][1] != k:
                rows.append((d, k))
        arr = np.array(rows, dtype=np.float64).reshape(-1, 2)
        arr.flags.writeable = False
        per_element.append(arr)
    pos = np.array(nodes, dtype=np.float64).reshape(-1, 3)
    edge_ids: dict[tuple[int, int], int] = {}
    kinds: list[int] = []
    lengths: list[float] = []

    def add(u: int, v: int, kind: EdgeKind, length: float) -> None:
        if u != v and (u, v) not in edge_ids:
            edge_ids[(u, v)] = len(kinds)
            kinds.append(kind)
            lengths.append(length)

    for table in per_element:
        for (d0, u), (d1, v) in zip(table[:-1], table[1:]):
            add(int(u), int(v), EdgeKind.CLIMB, float(d1 - d0))
            add(int(v), int(u), EdgeKind.CLIMB, float(d1 - d0))
    for x, ds, y, dd in links:
        u = _node_at(per_element[x], ds)
        v = _node_at(per_element[y], dd)
        p, q = pos[u], pos[v]
        if block._blocks(p, q):
            continue
        for a, b in ((u, v), (v, u)):
            kind = _link_kind(pos[a], pos[b], caps)
            if kind is not None:
                add(a, b, kind, float(np.linalg.norm(pos[b] - pos[a])))
    pos.flags.writeable = False
    edges = np.array(list(edge_ids), dtype=np.int64).reshape(-1, 2)
    karr = np.array(kinds, dtype=np.int8)
    larr = np.array(lengths, dtype=np.float64)
    edges.flags.writeable = karr.flags.writeable = larr.flags.writeable = False
    return ClimbGraph(els, pos, edges, karr, larr, tuple(per_element), edge_ids)


def _node_at(rows: np.ndarray, distance: float) -> int:
    """The node of an element's stop rows nearest ``distance`` along it."""
    return int(rows[int(np.argmin(np.abs(rows[:, 0] - distance))), 1])
