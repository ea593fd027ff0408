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

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from .._arrays import concatenated_ranges
from .._validate import number
from ..errors import InvalidGeometryError, brief
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
    _searchable: dict[str, Any] = field(default_factory=dict, init=False, repr=False,
                                        compare=False)

    __eq__ = _fields_equal

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    @property
    def num_links(self) -> int:
        """The number of jump and drop edges."""
        return int((self.edge_kinds != EdgeKind.CLIMB).sum())

    def edge_elements(self) -> np.ndarray:
        """``(m,)`` int64: the element each climb edge runs along (-1 for jumps and drops;
        a climb edge along two elements that run together gives the first)."""
        out = np.full(len(self.edges), -1, dtype=np.int64)
        for i in range(len(self.stops) - 1, -1, -1):
            nodes = self.stops[i][:, 1].astype(np.int64).tolist()
            for u, v in zip(nodes[:-1], nodes[1:]):
                for key in ((u, v), (v, u)):
                    k = self.edge_ids.get(key, -1)
                    if k >= 0 and self.edge_kinds[k] == EdgeKind.CLIMB:
                        out[k] = i
        return out

    def transformed(self, rotation: Any, translation: Any) -> ClimbGraph:
        """This graph moved rigidly with the object its elements are attached to: the same
        nodes, edges and lengths at moved positions (a rigid motion keeps distances, and
        line of sight holds when the blockers move with the object)."""
        nodes = transform_points(self.nodes, rotation, translation)
        nodes.flags.writeable = False
        return ClimbGraph(tuple(e.transformed(rotation, translation) for e in self.elements),
                          nodes, self.edges, self.edge_kinds, self.edge_lengths, self.stops,
                          self.edge_ids)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b)


def _segments_closest(p0: np.ndarray, p1: np.ndarray, q0: np.ndarray, q1: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parameters (s, t) in [0, 1] of the closest points of segments ``p0[k]-p1[k]`` and
    ``q0[k]-q1[k]`` (``(n, 3)`` arrays) and their distances; parallel segments take s = 0
    where it is closest."""
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, f = _dot(d1, d1), _dot(d2, d2), _dot(d2, r)
    c, b = _dot(d1, r), _dot(d1, d2)
    den = a * e - b * b
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(den > 1e-12 * a * e, np.clip((b * f - c * e) / den, 0.0, 1.0), 0.0)
        t = (b * s + f) / e
        s = np.where(t < 0.0, np.clip(-c / a, 0.0, 1.0),
                     np.where(t > 1.0, np.clip((b - c) / a, 0.0, 1.0), s))
    t = np.clip(t, 0.0, 1.0)
    gap = p0 + s[:, None] * d1 - q0 - t[:, None] * d2
    return s, t, np.linalg.norm(gap, axis=1)


def _link_kinds(p: np.ndarray, q: np.ndarray, caps: Capabilities) -> np.ndarray:
    """The kind of each link ``p[k]`` to ``q[k]`` the capabilities allow: ``(n,)`` int8,
    -1 where none."""
    d = q - p
    rise, run, dist = d[:, 2], np.hypot(d[:, 0], d[:, 1]), np.linalg.norm(d, axis=1)
    drop = (-rise <= caps.max_drop_height) & (run <= caps.max_jump_distance)
    steep = (np.degrees(np.arctan2(rise, run)) <= caps.max_jump_angle) | (dist == 0)
    jump = (dist <= caps.max_jump_distance) & (rise <= caps.max_jump_height) & steep
    return np.where(rise < 0, np.where(drop, EdgeKind.DROP, -1),
                    np.where(jump, EdgeKind.JUMP, -1)).astype(np.int8)


def _candidate_pairs(lo: np.ndarray, hi: np.ndarray, reach: float) -> np.ndarray:
    """The ``(k, 2)`` pairs ``i < j`` of boxes ``lo[i]..hi[i]`` no more than ``reach``
    apart on every axis, in row order: a sweep along x, then the full test."""
    order = np.argsort(lo[:, 0], kind="stable")
    lo_x = lo[order, 0]
    end = np.searchsorted(lo_x, hi[order, 0] + reach * (1 + 1e-9) + 1e-12, side="right")
    first = np.arange(1, len(order) + 1)
    count = np.maximum(end - first, 0)
    a, b = np.repeat(np.arange(len(order)), count), concatenated_ranges(first, count)
    i, j = order[a], order[b]
    near = ~((lo[i] - hi[j] > reach).any(axis=1) | (lo[j] - hi[i] > reach).any(axis=1))
    pairs = np.sort(np.stack([i[near], j[near]], axis=1), axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


class _Flat:
    """The elements' polylines end to end: element ``e``'s vertices are
    ``vert[vstart[e]:vstart[e + 1]]`` with arc lengths ``cum``."""

    def __init__(self, els: tuple[TraversalElement, ...]):
        self.nv = np.array([len(e.points) for e in els], dtype=np.int64)
        self.ns = self.nv - 1
        self.vstart = np.concatenate([[0], np.cumsum(self.nv)])
        self.vert = np.concatenate([e.points for e in els]) if els else np.empty((0, 3))
        self.cum = np.concatenate([e.cumulative for e in els]) if els else np.empty(0)
        self.length = np.array([e.length for e in els], dtype=np.float64)

    def points_at(self, el: np.ndarray, d: np.ndarray) -> np.ndarray:
        """The points ``d[k]`` metres along elements ``el[k]`` (as
        :meth:`TraversalElement.point_at`)."""
        k = _grouped_search(self.vstart, self.cum, el, d, "right") - 1
        k = np.clip(k, self.vstart[el], self.vstart[el + 1] - 2)
        a, b = self.cum[k], self.cum[k + 1]
        return self.vert[k] + ((d - a) / (b - a))[:, None] * (self.vert[k + 1] - self.vert[k])


def _touching(f: _Flat, pairs: np.ndarray, tol: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where the elements of each candidate pair touch (segment pairs within ``tol``): the
    stops on both elements as ``(element, distance, point)`` arrays, with the pair index
    and the segment pair's place in it (first element's stop first)."""
    pi, pj = pairs[:, 0], pairs[:, 1]
    count = f.ns[pi] * f.ns[pj]
    g, flat = np.repeat(np.arange(len(pairs)), count), concatenated_ranges(0, count)
    u, v = flat // f.ns[pj][g], flat % f.ns[pj][g]
    ka, kb = f.vstart[pi][g] + u, f.vstart[pj][g] + v
    s, t, gap = _segments_closest(f.vert[ka], f.vert[ka + 1], f.vert[kb], f.vert[kb + 1])
    hit = gap <= tol
    g, flat, ka, kb, s, t = (x[hit] for x in (g, flat, ka, kb, s, t))
    da = f.cum[ka] + s * (f.cum[ka + 1] - f.cum[ka])
    db = f.cum[kb] + t * (f.cum[kb + 1] - f.cum[kb])
    el = np.concatenate([pi[g], pj[g]])
    d = np.concatenate([da, db])
    pts = f.points_at(el, d) if len(el) else np.empty((0, 3))
    return el, d, pts, np.concatenate([g, g]), np.concatenate([2 * flat, 2 * flat + 1])


def _landings(f: _Flat, pairs: np.ndarray, tol: float, reach: float
              ) -> tuple[np.ndarray, ...]:
    """The link candidates of each pair, both ways: from each end and the centre of one
    element to the nearest point of the other, kept when more than ``tol`` and at most
    ``reach`` metres apart.  Returns ``(source, distance along it, target, distance along
    it, landing point, pair index, place in the pair)``."""
    n = len(pairs)
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    src3, dst3 = np.repeat(src, 3), np.repeat(dst, 3)
    ds3 = np.stack([np.zeros(len(src)), f.length[src] / 2, f.length[src]], axis=1).ravel()
    p3 = f.points_at(src3, ds3) if len(src3) else np.empty((0, 3))
    q_of = np.repeat(np.arange(len(dst3)), f.ns[dst3])
    kseg = concatenated_ranges(f.vstart[dst3], f.ns[dst3])
    a, ab = f.vert[kseg], f.vert[kseg + 1] - f.vert[kseg]
    pp = p3[q_of]
    t = np.clip(_dot(pp - a, ab) / _dot(ab, ab), 0, 1)
    q = a + t[:, None] * ab
    best = np.lexsort((kseg, np.linalg.norm(q - pp, axis=1), q_of))  # nearest, first on ties
    first = np.ones(len(best), dtype=bool)
    first[1:] = q_of[best][1:] != q_of[best][:-1]
    best = best[first]
    dd = f.cum[kseg[best]] + t[best] * (f.cum[kseg[best] + 1] - f.cum[kseg[best]])
    qq = q[best]
    span = np.linalg.norm(qq - p3, axis=1)
    ok = (tol < span) & (span <= reach)
    pair = np.tile(np.arange(n), 2)
    place = np.repeat(np.repeat([0, 1], n), 3) * 3 + np.tile([0, 1, 2], len(src))
    return (src3[ok], ds3[ok], dst3[ok], dd[ok], qq[ok], np.repeat(pair, 3)[ok], place[ok])


def build_climb_graph(elements: Any, *, capabilities: Capabilities | None = None,
                      blockers: Blockers | None = None, touch: float = 1e-6) -> ClimbGraph:
    """The climb graph of ``elements`` (a sequence of :class:`TraversalElement`) for a
    character with ``capabilities`` (default :class:`Capabilities()`), links tested for
    line of sight against ``blockers``.  Elements closer than ``touch`` metres (> 0) touch:
    they share a merged node there and no link joins them at that spot.  Node points are
    taken element by element, along each by distance: a point within ``touch`` of an
    earlier node joins the earliest such node.

    The work is done on arrays: candidate element pairs by a sweep over their bounding
    boxes, then every segment pair's closest points, every link's nearest landing point and
    line-of-sight test in batches.  Node ids and edge order follow the elements' order.
    """
    if not isinstance(elements, Iterable):
        raise InvalidGeometryError(f"elements {brief(elements)} must be a sequence of "
                                   "TraversalElements")
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
    f = _Flat(els)
    use = np.array([i for i, e in enumerate(els) if e.kind in caps.kinds], dtype=np.int64)
    reach = caps.reach + tol
    if len(use):
        lo = np.minimum.reduceat(f.vert, f.vstart[:-1])[use]
        hi = np.maximum.reduceat(f.vert, f.vstart[:-1])[use]
        pairs = use[_candidate_pairs(lo, hi, reach)]
    else:
        pairs = np.empty((0, 2), np.int64)
    # stops: each element's vertices and centre, where it touches another, where links land
    vertex_owner = np.repeat(np.arange(len(use)), f.nv[use])
    vertex_row = concatenated_ranges(f.vstart[use], f.nv[use])
    centre = f.length[use] / 2
    touch_element, touch_distance, touch_point, touch_pair, touch_place = _touching(f, pairs, tol)
    src, ds, dst, dd, landing, landing_pair, landing_place = _landings(f, pairs, tol, reach)
    # the order the stops of one element at one distance were found in: the first names
    # their node (vertices and centres, then pair by pair its touches and its landings)
    width = 2 * int((f.ns[pairs[:, 0]] * f.ns[pairs[:, 1]]).max(initial=0)) + 6
    el_all = np.concatenate([use[vertex_owner], use, touch_element, dst])
    d_all = np.concatenate([f.cum[vertex_row], centre, touch_distance, dd])
    p_all = np.concatenate([f.vert[vertex_row], f.points_at(use, centre) if len(use)
                            else np.empty((0, 3)), touch_point, landing])
    key = np.concatenate([np.full(len(vertex_row) + len(use), -1, np.int64),
                          touch_pair * width + touch_place,
                          landing_pair * width + width - 6 + landing_place])
    order = np.lexsort((key, d_all, el_all))
    el_all, d_all, p_all = el_all[order], d_all[order], p_all[order]
    links = np.argsort(landing_pair * width + landing_place, kind="stable")
    src, ds, dst, dd = src[links], ds[links], dst[links], dd[links]
    # nodes: merge stops within tol; each element's rows (distance, node) without repeats
    node_of = _merge(p_all, tol)
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = (node_of[1:] != node_of[:-1]) | (el_all[1:] != el_all[:-1])
    el_k, d_k, n_k = el_all[keep], d_all[keep], node_of[keep]
    creators = np.flatnonzero(node_of == np.arange(len(node_of)))
    pos = p_all[creators]
    renumber = np.full(len(node_of), -1, dtype=np.int64)
    renumber[creators] = np.arange(len(creators))
    n_k = renumber[n_k]
    rstart = np.searchsorted(el_k, np.arange(len(els) + 1))
    table = np.stack([d_k, n_k.astype(np.float64)], axis=1)
    table.flags.writeable = False
    per_element = np.split(table, rstart[1:-1]) if els else []
    # edges: along each element both ways, then the links that see each other, each pair
    # of nodes once (the first)
    same = el_k[1:] == el_k[:-1]
    climb_u, climb_v = n_k[:-1][same], n_k[1:][same]
    link_u = _node_near(n_k, d_k, rstart, src, ds)
    link_v = _node_near(n_k, d_k, rstart, dst, dd)
    clear = ~block._blocks_many(pos[link_u], pos[link_v])
    both_u = np.stack([link_u[clear], link_v[clear]], axis=1).ravel()
    both_v = np.stack([link_v[clear], link_u[clear]], axis=1).ravel()
    both_kind = _link_kinds(pos[both_u], pos[both_v], caps)
    good = both_kind >= 0
    eu = np.concatenate([np.stack([climb_u, climb_v], axis=1).ravel(), both_u[good]])
    ev = np.concatenate([np.stack([climb_v, climb_u], axis=1).ravel(), both_v[good]])
    ekind = np.concatenate([np.zeros(2 * len(climb_u), dtype=np.int8), both_kind[good]])
    elen = np.concatenate([np.repeat((d_k[1:] - d_k[:-1])[same], 2),
                           np.linalg.norm(pos[both_v] - pos[both_u], axis=1)[good]])
    real = np.flatnonzero(eu != ev)
    _, firsts = np.unique(eu[real] * max(len(pos), 1) + ev[real], return_index=True)
    take = real[np.sort(firsts)]
    edges = np.stack([eu[take], ev[take]], axis=1).astype(np.int64).reshape(-1, 2)
    edge_kinds = ekind[take]
    edge_lengths = elen[take].astype(np.float64)
    edge_ids = dict(zip(zip(edges[:, 0].tolist(), edges[:, 1].tolist()), range(len(edges))))
    pos.flags.writeable = False
    edges.flags.writeable = edge_kinds.flags.writeable = edge_lengths.flags.writeable = False
    return ClimbGraph(els, pos, edges, edge_kinds, edge_lengths, tuple(per_element), edge_ids)


_NEAR = np.array([(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)],
                 dtype=np.int64)


def _merge(p: np.ndarray, tol: float) -> np.ndarray:
    """Greedy merging of points ``p`` (``(n, 3)``) taken in order: each joins the earliest
    node within ``tol`` or becomes a node (candidates found in cells of side ``tol``).
    Returns each point's node as the index of the point that made it."""
    n = len(p)
    out = np.arange(n)
    if n < 2:
        return out
    with np.errstate(over="ignore"):
        q = p / tol
    # Where a coordinate is 2^54 cells or more from 0, its neighbouring floats lie more than
    # ``tol`` apart: only equal values meet there, each given a cell of its own beyond the
    # others (at 2^62 up), so no cell number overflows at any scale.
    far = ~(np.abs(q) < 2.0**54)
    key = np.floor(np.where(far, 0.0, q)).astype(np.int64)
    if far.any():
        key[far] = 2**62 + np.unique(p[far], return_inverse=True)[1].ravel()
    axes = [np.unique(key[:, k]) for k in range(3)]

    def place(k: int, want: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """The place of ``want`` among the cells of axis ``k`` (``ok`` cleared where none
        has it)."""
        r = np.minimum(np.searchsorted(axes[k], want), len(axes[k]) - 1)
        ok &= axes[k][r] == want
        return r

    def plane(offset: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Each point's neighbouring (x, y) cell as one integer below n^2."""
        return place(0, key[:, 0] + offset[0], ok) * len(axes[1]) \
            + place(1, key[:, 1] + offset[1], ok)

    planes = np.unique(plane(np.zeros(3, dtype=np.int64), np.ones(n, dtype=bool)))

    def code(offset: np.ndarray) -> np.ndarray:
        """Each point's neighbouring cell ``key + offset`` as one integer below n^2 (-1: no
        point lies in that cell)."""
        ok = np.ones(n, dtype=bool)
        xy = plane(offset, ok)
        c = np.minimum(np.searchsorted(planes, xy), len(planes) - 1)
        ok &= planes[c] == xy
        z = place(2, key[:, 2] + offset[2], ok)
        return np.where(ok, c * len(axes[2]) + z, -1)

    own = code(np.zeros(3, dtype=np.int64))
    cells, cell_of = np.unique(own, return_inverse=True)
    members = np.argsort(cell_of, kind="stable")
    cstart = np.searchsorted(cell_of[members], np.arange(len(cells) + 1))
    pa: list[np.ndarray] = []
    pb: list[np.ndarray] = []
    for off in _NEAR:
        want = code(off)
        c = np.minimum(np.searchsorted(cells, want), len(cells) - 1)
        hit = np.flatnonzero((want >= 0) & (cells[c] == want))
        size = cstart[c[hit] + 1] - cstart[c[hit]]
        grp = np.repeat(np.arange(len(hit)), size)
        idx = concatenated_ranges(cstart[c[hit]], size)
        a, b = hit[grp], members[idx]
        early = b < a
        a, b = a[early], b[early]
        close = np.linalg.norm(p[a] - p[b], axis=1) <= tol
        pa.append(a[close])
        pb.append(b[close])
    a, b = np.concatenate(pa), np.concatenate(pb)
    if not len(a):
        return out
    rank = np.lexsort((b, a))
    a, b = a[rank], b[rank]
    heads = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    # a point whose first candidate has no earlier neighbour joins it: that one is a node
    sure = ~np.isin(b[heads], a)
    out[a[heads[sure]]] = b[heads[sure]]
    for k in heads[~sure].tolist():                        # the rest in order
        s = int(a[k])
        j = k
        while j < len(a) and a[j] == s:
            if out[b[j]] == b[j]:                          # an earlier node
                out[s] = b[j]
                break
            j += 1
    return out


def _grouped_search(starts: np.ndarray, values: np.ndarray, group: np.ndarray, x: np.ndarray,
                    side: str) -> np.ndarray:
    """``np.searchsorted`` of each ``x[k]`` among the values of its group ``group[k]``
    (``values[starts[g]:starts[g + 1]]``, sorted), as an index into ``values``: exact at
    any scale (one sort of the values and the queries by group, value and side)."""
    owner = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    query = np.r_[np.zeros(len(values), bool), np.ones(len(x), bool)]
    tie = query if side == "right" else ~query      # rows before queries on ties: right
    order = np.lexsort((tie, np.r_[values, x], np.r_[owner, group]))
    rows_before = np.cumsum(~query[order])
    out = np.empty(len(x), dtype=np.int64)
    asked = query[order]
    out[order[asked] - len(values)] = rows_before[asked]
    return out


def _node_near(nodes: np.ndarray, dist: np.ndarray, rstart: np.ndarray, el: np.ndarray,
               at: np.ndarray) -> np.ndarray:
    """The node of each element ``el[k]``'s stop rows nearest ``at[k]`` along it (the first
    on ties).  Element ``e``'s rows are ``rstart[e]:rstart[e + 1]``, ``dist`` along it in
    order."""
    if not len(el):
        return np.empty(0, dtype=np.int64)
    k = _grouped_search(rstart, dist, el, at, "left")
    cand = np.clip(k[:, None] + np.arange(-2, 2), rstart[el][:, None],
                   rstart[el + 1][:, None] - 1)
    gap = np.abs(dist[cand] - at[:, None])
    return nodes[cand[np.arange(len(el)), np.argmin(gap, axis=1)]]
