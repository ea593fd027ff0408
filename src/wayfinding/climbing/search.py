"""Climb search: A* on a :class:`~wayfinding.climbing.graph.ClimbGraph` from and to any
point along an element (mid-traversal start, replanning), soft edge reservations that
spread characters over routes, and clue links that hand off between a navigation mesh and
the climb graph.

Edge costs are lengths in metres; an edge reserved by other characters costs ``penalty``
more per character (in either direction).  One compiled A* (the kernel of
:class:`~wayfinding.graph.CSRGraph`) runs per query, on the graph plus a virtual start
joined to every way onto it and a virtual goal joined from every way off it.

>>> from wayfinding.climbing import ElementKind, TraversalElement, build_climb_graph
>>> wall = TraversalElement(ElementKind.LADDER, [(0, 0, 0), (0, 0, 6)])
>>> g = build_climb_graph([wall])
>>> p = find_climb_path(g, ClimbPosition(0, 1.5), ClimbPosition(0, 5.0))
>>> p.found, p.cost, p.points[:, 2].tolist()
(True, 3.5, [1.5, 3.0, 5.0])
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._kernels import _csrsearch
from .._scratch import PerThread, thread_workspace
from .._validate import finite_point, finite_points, number
from ..errors import InvalidQueryError, brief
from ..navmesh import NavMesh
from ..navmesh3d import NavMesh3D, NavMesh3DQuery
from ..results import SearchStats, Status, _fields_equal, empty_path
from .graph import ClimbGraph
from .markup import transform_points


@dataclass(frozen=True)
class ClimbPosition:
    """A point ``distance`` metres along element ``element`` of a climb graph."""

    element: int
    distance: float


@dataclass(frozen=True, eq=False)
class ClueLink:
    """A hand-off between a navigation mesh and a climb graph: ``ground`` (``(3,)``, on the
    mesh; ``polygon`` its polygon) joins climb node ``node`` at ``climb`` (``(3,)``), the
    ``end`` ("foot" or "top") of element ``element``; ``length`` metres apart."""

    element: int
    end: str
    node: int
    climb: np.ndarray
    ground: np.ndarray
    polygon: int
    length: float

    __eq__ = _fields_equal


@dataclass(eq=False)
class ClimbPath:
    """A climb route: ``points`` ``(n, 3)`` float64 from start to goal, ``nodes`` ``(n,)``
    int64 climb-graph nodes (-1 for a start or goal between nodes or on the ground),
    ``edges`` ``(n - 1,)`` int64 graph edges each step runs along (-1 for a clue link),
    ``cost`` (reservations included; ``inf`` when not found), ``length`` metres, and the
    search's ``status`` and ``stats``."""

    points: np.ndarray
    nodes: np.ndarray
    edges: np.ndarray
    cost: float
    length: float
    status: Status
    stats: SearchStats = field(compare=False)

    __eq__ = _fields_equal

    @property
    def found(self) -> bool:
        return self.status is Status.FOUND

    def transformed(self, rotation: Any, translation: Any) -> ClimbPath:
        """This path moved with the object its elements are attached to (a rigid transform,
        see :func:`~wayfinding.climbing.transform_points`): the same steps and costs."""
        pts = transform_points(self.points, rotation, translation) if len(self.points) \
            else self.points
        return ClimbPath(pts, self.nodes, self.edges, self.cost, self.length, self.status,
                         self.stats)


class ClimbReservations:
    """Soft reservations of climb-graph edges: each character's reserved edges cost the
    others ``penalty`` metres more per character using them (>= 0).

    >>> r = ClimbReservations(penalty=10.0)
    >>> r.reserve("bot1", [0, 1]); r.users(0)
    1
    >>> r.release("bot1"); r.users(0)
    0
    """

    def __init__(self, *, penalty: float = 10.0):
        self.penalty = number("penalty", penalty, min=0.0)
        self._held: dict[Hashable, tuple[int, ...]] = {}
        self._count: Counter[int] = Counter()

    def reserve(self, agent: Hashable, edges: Any) -> None:
        """Reserve ``edges`` (edge ids, e.g. a :class:`ClimbPath`'s ``edges``; -1 ignored)
        for ``agent``, replacing what it held."""
        try:
            ids = np.asarray(edges)
        except (ValueError, TypeError):     # ragged sequences
            ids = np.empty((0, 0), dtype=object)
        if ids.ndim != 1 or (ids.size and ids.dtype.kind not in "iu"):
            raise InvalidQueryError(f"edges {brief(edges)} must be a 1D array of edge ids")
        self.release(agent)
        held = tuple(sorted({int(e) for e in ids if e >= 0}))
        self._held[agent] = held
        self._count.update(held)

    def release(self, agent: Hashable) -> None:
        """Drop ``agent``'s reservations (nothing when it holds none)."""
        self._count.subtract(self._held.pop(agent, ()))
        self._count += Counter()                         # drop zero counts

    def users(self, edge: int, *, excluding: Hashable = None) -> int:
        """How many characters (other than ``excluding``) reserve ``edge``."""
        own = excluding is not None and edge in self._held.get(excluding, ())
        return self._count[edge] - own

    def extra(self, graph: ClimbGraph, *, excluding: Hashable = None) -> np.ndarray:
        """The added cost of each edge of ``graph`` (``(m,)`` float64): ``penalty`` per
        other character holding it or its reverse."""
        if not isinstance(graph, ClimbGraph):
            raise InvalidQueryError(f"graph {brief(graph)} must be a ClimbGraph")
        out = np.zeros(len(graph.edges))
        for e in self._count:
            if e >= len(graph.edges):
                continue
            u, v = graph.edges[e]
            n = self.users(e, excluding=excluding)
            for k in (e, graph.edge_ids.get((int(v), int(u)), -1)):
                if k >= 0:
                    out[k] += n * self.penalty
        return out


def nearest_position(graph: ClimbGraph, point: Any) -> ClimbPosition:
    """The point of the graph's climbable elements nearest ``point`` (``(3,)``), where a
    character found mid-climb starts its search; ties go to the lower element index.

    >>> from wayfinding.climbing import ElementKind, TraversalElement, build_climb_graph
    >>> g = build_climb_graph([TraversalElement(ElementKind.PIPE, [(0, 0, 0), (0, 0, 9)])])
    >>> nearest_position(g, (0.4, -0.2, 5.5))
    ClimbPosition(element=0, distance=5.5)
    """
    p = finite_points("point", point, 3)[0]
    if len(p) != 1:
        raise InvalidQueryError(f"point {p.tolist()!r} must be one (x, y, z) point")
    best: tuple[float, int, float] = (np.inf, -1, 0.0)
    for i, rows in enumerate(graph.stops):
        if len(rows):
            d, q = graph.elements[i]._closest(p[0])
            gap = float(np.hypot(np.hypot(*(q - p[0])[:2]), (q - p[0])[2]))
            if gap < best[0] or best[1] < 0:
                best = (gap, i, d)
    if best[1] < 0:
        raise InvalidQueryError("the graph has no climbable element")
    return ClimbPosition(best[1], best[2])


def clue_links(graph: ClimbGraph, navmesh: Any, *, max_distance: float = 1.0,
               ground_height: float = 0.0) -> list[ClueLink]:
    """The clue links from ``navmesh`` to each element's foot (its lower end; the first on
    a level element) and top: the nearest mesh point to each end within ``max_distance``
    metres (> 0).  ``navmesh``: a :class:`~wayfinding.navmesh3d.NavMesh3D` (whose y is up:
    climb point ``(x, y, z)`` is its ``(x, z, y)``), or a 2D
    :class:`~wayfinding.navmesh.NavMesh` lying at height ``ground_height``."""
    reach = number("max_distance", max_distance, min=0.0, min_open=True)
    z0 = number("ground_height", ground_height)
    if isinstance(navmesh, NavMesh3D):
        query = NavMesh3DQuery(navmesh)

        def nearest(p: np.ndarray) -> tuple[int, np.ndarray]:
            poly, q = query.nearest(p[[0, 2, 1]], half_extents=(reach, reach, reach))
            return poly, np.array(q)[[0, 2, 1]]
    elif isinstance(navmesh, NavMesh):
        def nearest(p: np.ndarray) -> tuple[int, np.ndarray]:
            poly, q = navmesh.nearest(p[:2])
            return poly, np.array([q[0], q[1], z0])
    else:
        raise InvalidQueryError(f"navmesh {navmesh!r} must be a NavMesh or a NavMesh3D")
    out = []
    for i, rows in enumerate(graph.stops):
        if not len(rows):
            continue
        ends = [int(rows[0, 1]), int(rows[-1, 1])]
        if graph.nodes[ends[1], 2] < graph.nodes[ends[0], 2]:
            ends.reverse()
        for end, node in zip(("foot", "top"), ends):
            poly, q = nearest(graph.nodes[node])
            d = float(np.linalg.norm(q - graph.nodes[node])) if poly >= 0 else np.inf
            if d <= reach:
                out.append(ClueLink(i, end, node, graph.nodes[node], q, poly, d))
    return out


def _anchor(graph: ClimbGraph, where: Any, name: str
            ) -> tuple[np.ndarray, list[tuple[int, float, int]], int, tuple[int, float]]:
    """Where a query starts or ends: its point, its ``(node, metres, graph edge)``
    attachments, its own node (-1 when between nodes) and its (element, distance) spot."""
    if isinstance(where, ClueLink):
        if isinstance(where.node, bool) or not isinstance(where.node, (int, np.integer)) \
                or not 0 <= where.node < graph.num_nodes:
            raise InvalidQueryError(f"{name} clue link's node {brief(where.node)} is not a "
                                    f"node of the graph (0..{graph.num_nodes - 1})")
        length = number(f"{name} clue link's length", where.length, min=0.0)
        ground = finite_point(f"{name} clue link's ground", where.ground, 3)
        return ground, [(int(where.node), length, -1)], -1, (-1, 0.0)
    if isinstance(where, ClimbPosition):
        e = where.element
        if isinstance(e, bool) or not isinstance(e, (int, np.integer)) \
                or not 0 <= e < len(graph.elements) or not len(graph.stops[e]):
            raise InvalidQueryError(f"{name} element {e!r} is not a climbable element of "
                                    f"the graph (0..{len(graph.elements) - 1})")
        el = graph.elements[e]
        d = number(f"{name} distance", where.distance, min=0.0, max=el.length)
        rows = graph.stops[e]
        k = int(np.searchsorted(rows[:, 0], d))
        if k < len(rows) and rows[k, 0] == d:
            node = int(rows[k, 1])
            return graph.nodes[node], [], node, (e, d)
        if k == 0 or k == len(rows):
            raise InvalidQueryError(f"{name} distance {d:g} is outside element {e}'s nodes")
        (d0, u), (d1, v) = rows[k - 1], rows[k]
        u, v = int(u), int(v)
        attach = [(u, d - d0, graph.edge_ids[(v, u)]), (v, d1 - d, graph.edge_ids[(u, v)])]
        return el.point_at(d), attach, -1, (e, d)
    if isinstance(where, (int, np.integer)) and not isinstance(where, bool) \
            and 0 <= where < graph.num_nodes:
        return graph.nodes[int(where)], [], int(where), (-1, 0.0)
    raise InvalidQueryError(f"{name} {where!r} must be a node id (0..{graph.num_nodes - 1}), "
                            "a ClimbPosition or a ClueLink")


def _ends(graph: ClimbGraph, where: Any, name: str, extra: np.ndarray | None, *, goal: bool
          ) -> tuple[list[tuple[int, float, float, int, np.ndarray | None]], tuple[int, float]]:
    """Where a query starts (or ends): its ways on and off the graph, each ``(graph node,
    cost, metres, edge, point off the graph or None)`` (edge -1 for a clue link or a node
    itself; cost the metres plus the edge's ``extra``, None when nothing is reserved), and
    its (element, distance) spot."""
    if isinstance(where, (list, tuple)):
        if not where or not all(isinstance(c, ClueLink) for c in where):
            raise InvalidQueryError(f"{name} {where!r} must be a non-empty list of ClueLinks")
        items = list(where)
    else:
        items = [where]
    ways: list[tuple[int, float, float, int, np.ndarray | None]] = []
    spot = (-1, 0.0)
    for item in items:
        point, attach, node, spot = _anchor(graph, item, name)
        if node >= 0:
            ways.append((node, 0.0, 0.0, -1, None))
        for near, metres, edge in attach:
            if goal and edge >= 0:
                edge = graph.edge_ids[tuple(graph.edges[edge][::-1].tolist())]
            added = extra[edge] if extra is not None and edge >= 0 else 0.0
            ways.append((near, metres + added, metres, edge, point))
    return ways, spot


@dataclass(frozen=True, eq=False)
class _Layout:
    """The graph laid out for one compiled search per query (its edges reversed for a
    search from the goal back to the start): each node's edges then one spare slot (a
    zero-cost loop, turned into the node's edge to the virtual goal when it is a way
    there), followed by the virtual start's row, filled per query.  ``at``: each graph
    edge's place in ``indices``; ``hscale``: the lowest cost per metre of straight line
    over the edges (reservations only add to it).  ``scratch``: each thread's copy of the
    arrays, which a query changes in place and puts back."""

    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    at: np.ndarray
    hscale: float
    scratch: PerThread[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=PerThread, compare=False, repr=False)

    __eq__ = _fields_equal

    def arrays(self, nodes: np.ndarray, starts: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """This thread's ``(indptr, indices, weights, coords)`` with room for ``starts``
        edges out of the virtual start; ``coords`` holds ``nodes`` then the two virtual
        nodes."""
        size = len(self.indices)
        mine = self.scratch.mine()
        if mine is None or len(mine[1]) < size + starts:
            room = size + max(starts, 8)
            indices, weights = np.empty(room, np.int32), np.empty(room)
            indices[:size], weights[:size] = self.indices, self.weights
            indptr = np.empty(len(self.indptr) + 2, np.int64)
            indptr[:-2] = self.indptr
            coords = np.empty((len(nodes) + 2, 3))
            coords[:-2] = nodes
            mine = self.scratch.keep((indptr, indices, weights, coords))
        return mine


def _layout(graph: ClimbGraph, reverse: bool) -> _Layout:
    """The graph's :class:`_Layout` (of its reversed edges when ``reverse``), built on
    first use and kept with the graph."""
    name = "reversed" if reverse else "forward"
    lay = graph._searchable.get(name)
    if lay is None:
        n, m = graph.num_nodes, len(graph.edges)
        tail, head = graph.edges[:, int(reverse)], graph.edges[:, 1 - int(reverse)]
        src = np.concatenate([tail, np.arange(n)])
        order = np.argsort(src, kind="stable")
        at = np.empty(n + m, np.int64)
        at[order] = np.arange(n + m)
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
        dst = np.concatenate([head, np.arange(n)])
        weights = np.concatenate([graph.edge_lengths, np.zeros(n)])
        straight = np.linalg.norm(graph.nodes[head] - graph.nodes[tail], axis=1)
        ratio = graph.edge_lengths[straight > 0] / straight[straight > 0]
        lay = graph._searchable[name] = _Layout(
            indptr, dst[order].astype(np.int32), weights[order], at[:m],
            float(ratio.min()) if ratio.size else 0.0)
    return lay


def _aim(graph: ClimbGraph, ways: list) -> np.ndarray | None:
    """The one point all ``ways`` lead to off the graph (or their one node), else None."""
    aims = [graph.nodes[w[0]] if w[4] is None else w[4] for w in ways]
    return aims[0] if all(np.array_equal(a, aims[0]) for a in aims) else None


def _search(graph: ClimbGraph, extra: np.ndarray | None, ons: list, offs: list, method: str
            ) -> tuple[float, np.ndarray, SearchStats]:
    """One compiled search from a virtual start, joined to each way on at its cost, to a
    virtual goal, joined from each way off at its cost: ``(cost, graph nodes from the way
    on to the way off, stats)``; cost ``inf`` and no nodes when there is no way.  ``extra``:
    the reservations' added cost of each edge (None: nothing reserved).

    A* aims at the point all the ways off lead to; when they lead to several (a list of
    clue links) and all the ways on come from one, it runs backwards from the goal on
    the reversed edges, aiming at the start; otherwise it is Dijkstra's search.  Each way
    off costs at least its straight distance, so the Euclidean heuristic (at most one per
    metre) stays admissible and consistent."""
    t0 = time.perf_counter()
    aim = _aim(graph, offs)
    back = aim is None and method == "astar"
    if back:
        aim = _aim(graph, ons)
        ons, offs = offs, ons
    lay = _layout(graph, back)
    n = graph.num_nodes
    source, sink = n, n + 1
    size = len(lay.indices)
    indptr, indices, weights, coords = lay.arrays(graph.nodes, len(ons))
    indptr[-2:] = size + len(ons)
    indices[size:size + len(ons)] = [w[0] for w in ons]
    weights[size:size + len(ons)] = [w[1] for w in ons]
    slots = lay.indptr[[w[0] + 1 for w in offs]] - 1
    coords[n:] = 0.0 if aim is None else aim
    hscale = min(lay.hscale, 1.0) if method == "astar" and aim is not None else 0.0
    ws = thread_workspace(n + 2)
    try:
        if extra is not None:
            weights[lay.at] += extra
        for slot, (_, cost, *_) in zip(slots.tolist(), offs):
            if indices[slot] != sink or cost < weights[slot]:
                indices[slot], weights[slot] = sink, cost
        found, cost, expanded, generated, max_open = _csrsearch.search(
            ws, indptr, indices, weights, coords, source, sink, hscale, False)
    finally:                                    # put the thread's arrays back
        indices[slots] = lay.indices[slots]
        weights[slots] = 0.0
        if extra is not None:
            weights[:size] = lay.weights
    route = ws.path_to(sink)[1:-1].astype(np.int64) if found else np.empty(0, np.int64)
    stats = SearchStats(expanded=expanded, generated=generated, max_open=max_open,
                        elapsed=time.perf_counter() - t0)
    return (float(cost) if found else np.inf), (route[::-1] if back else route), stats


def find_climb_path(graph: ClimbGraph, start: Any, goal: Any, *,
                    reservations: ClimbReservations | None = None, agent: Hashable = None,
                    method: str = "astar") -> ClimbPath:
    """The cheapest climb from ``start`` to ``goal``, each a node id, a
    :class:`ClimbPosition` (a point along an element: mid-traversal), a :class:`ClueLink`
    (the path begins or ends on the ground) or a list of clue links (the cheapest of them).
    ``reservations``: edges other characters use cost more (``agent``'s own reservations
    excepted).  ``method``: ``"astar"`` (Euclidean heuristic) or ``"dijkstra"``; both are
    exact.

    One compiled search runs from all the ways onto the graph at once (a point between
    nodes has two, a clue link one) to the cheapest way off it, on arrays kept with the
    graph between queries (each thread sets its own copy for the query's ends and
    reservations and puts it back).  A* aims at the goal's point; to a list of clue links
    it runs backwards, aiming at the start's point (Dijkstra's search between two lists of
    clue links).  A start and goal along the same stretch of an element are joined
    directly when no way round is cheaper."""
    if reservations is not None and not isinstance(reservations, ClimbReservations):
        raise InvalidQueryError(f"reservations {reservations!r} is not a ClimbReservations")
    if method not in ("astar", "dijkstra"):
        raise InvalidQueryError(f"unknown method {method!r}; expected 'astar' or 'dijkstra'")
    extra = reservations.extra(graph, excluding=agent) if reservations is not None \
        else None
    if extra is not None and not extra.any():
        extra = None                                    # nothing reserved by others
    ons, spot0 = _ends(graph, start, "start", extra, goal=False)
    offs, spot1 = _ends(graph, goal, "goal", extra, goal=True)
    best: tuple[float, Any, Any, Any] = (np.inf, None, None, None)
    if spot0[0] >= 0 and spot0[0] == spot1[0] and all(w[4] is not None for w in ons + offs) \
            and {w[0] for w in ons} == {w[0] for w in offs}:
        lo, hi = sorted((spot0[1], spot1[1]))
        edge = ons[1][3] if spot1[1] > spot0[1] else ons[0][3]
        best = (hi - lo + (extra[edge] if extra is not None else 0.0), ons[0], offs[0], edge)
    cost, route, stats = _search(graph, extra, ons, offs, method)
    if cost < best[0]:
        on = min((w for w in ons if w[0] == route[0]), key=lambda w: w[1])
        off = min((w for w in offs if w[0] == route[-1]), key=lambda w: w[1])
        best = (cost, on, off, route)
    total, on, off, route = best
    if on is None:
        return ClimbPath(empty_path(3), np.empty(0, np.int64), np.empty(0, np.int64),
                         np.inf, np.inf, Status.FAILED, stats)
    if not isinstance(route, np.ndarray):                  # along one stretch, directly
        return ClimbPath(np.array([on[4], off[4]]), np.array([-1, -1], dtype=np.int64),
                         np.array([route], dtype=np.int64),
                         float(total), abs(spot1[1] - spot0[1]), Status.FOUND, stats)
    steps = [graph.edge_ids[(a, b)] for a, b in zip(route[:-1].tolist(), route[1:].tolist())]
    head = [on[4]] if on[4] is not None else []
    tail = [off[4]] if off[4] is not None else []
    points = np.vstack(head + [graph.nodes[route]] + tail)
    nodes = np.concatenate([[-1] * len(head), route, [-1] * len(tail)]).astype(np.int64)
    edges = np.array([on[3]] * len(head) + steps + [off[3]] * len(tail), dtype=np.int64)
    metres = on[2] + float(graph.edge_lengths[steps].sum()) + off[2]
    return ClimbPath(points, nodes, edges, float(total), metres, Status.FOUND, stats)
