"""Tiled exit tables: precomputed routes on a large graph with positions, answered by table
look-ups with no search (the server-side scheme of tiled hierarchical next-move tables).

**Data model.**  Nodes (e.g. navigation-mesh polygons or grid cells) fall into square *tiles*
of side ``tile_size`` by their first two coordinates.  Within a tile, a *component* is a
strongly connected set of nodes using only in-tile edges (one-way edges respected), and its
*centre* is the member nearest to the component's barycentre (ties: lowest id).  Centres are
the nodes of the level above; two components are linked when an edge joins them, or when
they lie in neighbouring tiles (3 × 3) and the graph distance between their centres is at most
:data:`MAX_DETOUR` times the straight one (no long way round a wall, so the components above
stay compact and routes near-optimal), at the exact graph distance between their centres.  That
upper graph is tiled in turn with tiles twice as wide (2 × 2 tiles below, same origin), for
``levels - 1`` tiled levels; the top level is one flat table over the last level's
components (:class:`~wayfinding.graph.tables.CSRPathTable`).
A table entry is an *exit*: the position of the out-edge to take among the node's edges
(``uint8``, or ``uint16`` for degrees >= 255; the largest value means "no entry").

- **Near tables** (node → node): for each goal tile G, every node of the 3 × 3 tiles around
  G against every node of G, first moves of the shortest paths inside those 9 tiles.
- **Centre tables** (node → centre): for each centre c, the nodes of the 21 tiles around c's
  tile (5 × 5 without corners) and its upper-level predecessors, closed under "next move"
  (so every node on a covered route is covered too), first moves of the exact shortest paths.

**Query** (:meth:`CSRExitTables.find_path`, a compiled walk per level): while the current node x
lies in the goal tile's 3 × 3 block and reaches the goal inside it, take the near-table exit;
otherwise ask the level above for its route from x's component to the goal's (recursively;
the top table is read by next hops), commit to the farthest centre on it that x's centre
table covers, and take centre-table exits until that centre (or the goal's block) is reached.
The level above is asked once per query, only when the near table does not cover the start.

**Consistency.**  The loops of independently built local tables cannot occur: one near table
per goal tile means one shortest-path tree per goal; centre legs follow exact distances with
positive weights; and committing to a subgoal whose index along the upper route only grows
replaces the removal of doubling-back entries.  Any route of linked components serves (every
centre table covers the centres linked to it), so the same holds with upper levels that are
exit tables themselves.  Every reachable goal is reached, and "no entry" at the top level
holds exactly when the goal is unreachable.  Routes are valid but
not always optimal: each near leg is optimal inside its 9 tiles and each centre leg is
optimal, so the cost is at most the upper route's cost plus the goal-block leg; the ratio to
the optimum is measured, not bounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from .. import _saved
from .._deprecated import warn
from .._kernels import _codes, _tables
from .._validate import count, positive_float
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError
from ..results import PathResult, SearchStats, _fields_equal
from .csr import CSRGraph, GraphIndex
from .tables import (
    CSRPathTable,
    check_positive,
    check_tables,
    first_moves,
    next_dtype,
    table_bytes,
)

#: Default limit on the number of components (the top table is C × C).
MAX_CENTRES = 8192

#: Neighbouring components whose centres are more than this many times their straight
#: distance apart (in cost) are not linked unless an edge joins them.  Costs are compared
#: with coordinate distances: with costs far above them, only edge-joined components are
#: linked (routes stay valid, as edges alone keep every goal reachable).
MAX_DETOUR = 2.0

#: The arrays of one tiled level, in the order the compiled walk takes them.
_LEVEL_ARRAYS = ("tile", "comp", "centre", "goal_pos", "tnode_ptr", "blk_ptr", "blk_nodes",
                 "near_ptr", "near", "leg_ptr", "leg_nodes", "leg_slot")

_NO_ROUTE = np.empty(0, dtype=np.int64)

#: Tile offsets of the 21-tile neighbourhood (5 × 5 without its corners).
_RING = [(dx, dy) for dy in range(-2, 3) for dx in range(-2, 3) if abs(dx) + abs(dy) < 4]


def _subgraph(graph: CSRGraph, src: np.ndarray, nodes: np.ndarray) -> tuple[CSRGraph,
                                                                             np.ndarray]:
    """The subgraph on sorted ``nodes`` (local ids = positions) and, per local edge, the
    original edge index (local edges keep the original order)."""
    mask = np.zeros(graph.num_nodes, dtype=bool)
    mask[nodes] = True
    local = np.full(graph.num_nodes, -1, dtype=np.int64)
    local[nodes] = np.arange(len(nodes))
    keep = np.flatnonzero(mask[src] & mask[graph.indices])
    sub = CSRGraph.from_edges(len(nodes), local[src[keep]], local[graph.indices[keep]],
                              graph.weights[keep])
    return sub, keep


def _positions(graph: CSRGraph) -> np.ndarray:
    """``(n, 2)`` float64 positions of the nodes of ``graph`` (a graph with nodes has coords:
    checked by :meth:`CSRExitTables.build`)."""
    coords = graph.coords
    return np.zeros((0, 2)) if coords is None else coords[:, :2]


def _key(level: int, name: str) -> str:
    """Array name of level ``level`` (level 0 unprefixed)."""
    return name if level == 0 else f"l{level}_{name}"


def _cat(parts: list[np.ndarray], dt: DTypeLike) -> np.ndarray:
    return np.concatenate(parts).astype(dt) if parts else np.empty(0, dt)


#: How a build runs its independent pieces: ``run(piece, context, items, label)`` returns
#: ``[piece(context, item) for item in items]``, in order (a Dask build runs them in tasks).
Runner = Callable[[Callable[[Any, Any], Any], Any, list[Any], str], list[Any]]


def _serial(piece: Callable[[Any, Any], Any], context: Any, items: list[Any],
            label: str) -> list[Any]:
    """Run the pieces of a build one after another, here."""
    return [piece(context, item) for item in items]


@dataclass
class _Level:
    """What the near tables and centre tables of one level are computed from."""

    graph: CSRGraph
    back: CSRGraph            # ``graph`` reversed
    src: np.ndarray           # source node of each edge
    xy: np.ndarray
    order: np.ndarray         # live nodes by tile, then id
    tnode_ptr: np.ndarray
    tw: int
    th: int
    slot_t: type
    centre: np.ndarray
    ctile: np.ndarray
    by_tile: np.ndarray       # components by their centre's tile
    tile_ptr: np.ndarray
    joined: np.ndarray        # (from, to) components joined by an edge, grouped by target
    joined_ptr: np.ndarray

    __eq__ = _fields_equal

    def tile_nodes(self, t: int) -> np.ndarray:
        return self.order[self.tnode_ptr[t]:self.tnode_ptr[t + 1]]

    def block(self, t: int, ring: list[tuple[int, int]]) -> np.ndarray:
        x0, y0 = t % self.tw, t // self.tw
        parts = [self.tile_nodes((y0 + dy) * self.tw + x0 + dx) for dx, dy in ring
                 if 0 <= x0 + dx < self.tw and 0 <= y0 + dy < self.th]
        return np.sort(np.concatenate(parts)) if parts else np.empty(0, np.int64)


_NEAR3 = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]


def _near_table(lv: _Level, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Goal tile ``t``'s near table (it has goals): the nodes of its 3 × 3 block (sorted,
    int32) and their exits toward each goal of the tile (shortest paths inside the block),
    row by row."""
    graph = lv.graph
    goals = lv.tile_nodes(t)
    nodes = lv.block(t, _NEAR3)
    sub, emap = _subgraph(graph, lv.src, nodes)
    back = sub.reversed()
    gl = np.searchsorted(nodes, goals)
    dist = np.stack([back.distances(int(i)) for i in gl], axis=1)
    local = first_moves(sub, dist, slots=True)
    # Local out-edge position -> position among the node's original edges.
    mv = np.full(local.shape, np.iinfo(lv.slot_t).max, dtype=np.int64)
    ok = local >= 0
    rows = np.nonzero(ok)[0]
    orig = emap[sub.indptr[rows] + local[ok]]
    mv[ok] = orig - graph.indptr[nodes[rows]]
    return nodes.astype(np.int32), mv.astype(lv.slot_t).ravel()


def _centre_table(lv: _Level, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre ``c``'s upper links (rows ``(from, c, cost)``), and its table: the covered
    nodes (int32) and their exits toward the centre (exact shortest paths)."""
    graph, xy, centre, tw, th = lv.graph, lv.xy, lv.centre, lv.tw, lv.th
    n = graph.num_nodes
    dc = lv.back.distances(int(centre[c]))
    cx, cy = int(lv.ctile[c]) % tw, int(lv.ctile[c]) // tw
    # Neighbouring components are linked only past no long detour (e.g. round a wall),
    # so the components above stay compact; edge-joined ones keep every route possible.
    near = np.concatenate([lv.by_tile[lv.tile_ptr[t]:lv.tile_ptr[t + 1]]
                           for t in ((cy + dy) * tw + cx + dx for dx, dy in _NEAR3
                                     if 0 <= cx + dx < tw and 0 <= cy + dy < th)])
    straight = np.linalg.norm(xy[centre[near]] - xy[centre[c]], axis=1)
    into = np.union1d(near[dc[centre[near]] <= MAX_DETOUR * straight],
                      lv.joined[lv.joined_ptr[c]:lv.joined_ptr[c + 1], 0])
    into = into[into != c]
    link = np.stack([into, np.full(len(into), c), dc[centre[into]]], axis=1)
    slot = first_moves(graph, dc[:, None], slots=True)[:, 0]
    nxt = np.full(n, -1, dtype=np.int64)
    has = slot >= 0
    nxt[has] = graph.indices[graph.indptr[:-1][has] + slot[has]]
    cover = np.zeros(n, dtype=bool)
    cover[lv.block(int(lv.ctile[c]), _RING)] = True
    cover[centre[into]] = True
    cover &= np.isfinite(dc)
    frontier = cover.copy()
    while frontier.any():
        step = nxt[frontier]
        step = step[step >= 0]
        fresh = np.zeros(n, dtype=bool)
        fresh[step] = True
        frontier = fresh & ~cover
        cover |= fresh
    members = np.flatnonzero(cover)
    s = slot[members]
    return link, members.astype(np.int32), \
        np.where(s >= 0, s, np.iinfo(lv.slot_t).max).astype(lv.slot_t)


def _build_level(graph: CSRGraph, origin: np.ndarray, tile_size: float, run: Runner,
                 name: str) -> tuple[dict[str, np.ndarray], CSRGraph, tuple[int, int]]:
    """One level's tables over ``graph`` with tiles of side ``tile_size`` from ``origin``
    (its near and centre tables through ``run``, labelled with the level's ``name``): its
    arrays, the upper graph (one node per component, at its centre's position) and the
    number of tiles across and down."""
    n = graph.num_nodes
    xy = _positions(graph)
    cell = np.floor((xy - origin) / tile_size).astype(np.int64)
    tw, th = (int(cell[:, 0].max()) + 1, int(cell[:, 1].max()) + 1) if n else (1, 1)
    tile = (cell[:, 1] * tw + cell[:, 0]).astype(np.int32)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.indptr))
    degree = np.diff(graph.indptr) + np.bincount(graph.indices, minlength=n)
    live = degree > 0
    order = np.lexsort((np.arange(n), tile))
    order = order[live[order]]
    ntiles = tw * th
    tnode_ptr = np.zeros(ntiles + 1, dtype=np.int64)
    np.cumsum(np.bincount(tile[order], minlength=ntiles), out=tnode_ptr[1:])
    goal_pos = np.full(n, -1, dtype=np.int32)
    goal_pos[order] = np.arange(len(order)) - tnode_ptr[tile[order]]
    max_deg = int(np.diff(graph.indptr).max()) if n else 0
    slot_t = np.uint8 if max_deg < 255 else np.uint16

    # Components: strongly connected sets of in-tile edges; centre nearest the barycentre.
    comp = np.full(n, -1, dtype=np.int32)
    centres: list[int] = []
    for t in np.flatnonzero(np.diff(tnode_ptr)):
        nodes = np.sort(order[tnode_ptr[t]:tnode_ptr[t + 1]])
        sub, _ = _subgraph(graph, src, nodes)
        reach = np.isfinite(np.array([sub.distances(i) for i in range(len(nodes))]))
        label = np.argmax(reach & reach.T, axis=1)
        for lab in np.unique(label):
            members = nodes[label == lab]
            bary = xy[members].mean(axis=0)
            d2 = ((xy[members] - bary) ** 2).sum(axis=1)
            comp[members] = len(centres)
            centres.append(int(members[np.argmin(d2)]))
    centre = np.array(centres, dtype=np.int32)
    ncomp = len(centre)
    ctile = tile[centre].astype(np.int64)
    by_tile = np.argsort(ctile, kind="stable")
    tile_ptr = np.searchsorted(ctile[by_tile], np.arange(ntiles + 1))
    ce = live[src] & (comp[src] != comp[graph.indices])
    joined = np.unique(np.stack([comp[src[ce]], comp[graph.indices[ce]]], axis=1), axis=0)
    joined = joined[np.argsort(joined[:, 1], kind="stable")]       # grouped by target
    joined_ptr = np.searchsorted(joined[:, 1], np.arange(ncomp + 1))
    lv = _Level(graph, graph.reversed(), src, xy, order, tnode_ptr, tw, th, slot_t, centre,
                ctile, by_tile, tile_ptr, joined, joined_ptr)

    # Near tables: per goal tile, shortest paths inside its 3 × 3 block.
    goal_tiles = np.flatnonzero(np.diff(tnode_ptr)).tolist()
    near_tables = run(_near_table, lv, goal_tiles, f"{name} near tables")
    blk_ptr = np.zeros(ntiles + 1, dtype=np.int64)
    near_ptr = np.zeros(ntiles + 1, dtype=np.int64)
    goal_tiles = np.array(goal_tiles, dtype=np.int64)
    blk_ptr[goal_tiles + 1] = [len(nodes) for nodes, _ in near_tables]
    near_ptr[goal_tiles + 1] = [len(exits) for _, exits in near_tables]
    np.cumsum(blk_ptr, out=blk_ptr)
    np.cumsum(near_ptr, out=near_ptr)

    # Upper links and centre tables, one centre at a time (exact distances to it): memory
    # in nodes plus links, never components x nodes.
    legs = run(_centre_table, lv, list(range(ncomp)), f"{name} centre tables")
    leg_ptr = np.zeros(ncomp + 1, dtype=np.int64)
    np.cumsum(np.array([len(members) for _, members, _ in legs], dtype=np.int64),
              out=leg_ptr[1:])
    link = np.concatenate([rows for rows, _, _ in legs]) if legs else np.zeros((0, 3))
    link = link[np.lexsort((link[:, 1], link[:, 0]))]
    upper = CSRGraph.from_edges(ncomp, link[:, 0].astype(np.int64), link[:, 1].astype(np.int64),
                                link[:, 2], coords=xy[centre])

    arrays = {
        "tile": tile, "comp": comp, "centre": centre, "goal_pos": goal_pos,
        "tnode_ptr": tnode_ptr, "blk_ptr": blk_ptr,
        "blk_nodes": _cat([nodes for nodes, _ in near_tables], np.int32),
        "near_ptr": near_ptr, "near": _cat([exits for _, exits in near_tables], slot_t),
        "leg_ptr": leg_ptr, "leg_nodes": _cat([m for _, m, _ in legs], np.int32),
        "leg_slot": _cat([sl for _, _, sl in legs], slot_t),
    }
    return arrays, upper, (tw, th)


def _check_build(graph: CSRGraph, tile_size: Any, levels: Any) -> tuple[float, int]:
    """Check the arguments of :meth:`CSRExitTables.build`; returns ``tile_size`` and
    ``levels`` as numbers."""
    if not isinstance(graph, CSRGraph):
        raise InvalidGridError(f"exit tables need a CSRGraph, got {type(graph).__name__}")
    if graph.num_nodes and graph.coords is None:
        raise InvalidQueryError("exit tables need a graph with coords (node positions)")
    tile_size = positive_float("tile_size", tile_size)
    levels = count("levels", levels, min=2)     # tiled levels and the top table
    check_positive(graph, "exit tables")
    return tile_size, levels


def _tile_shape(graph: CSRGraph, tile_size: float) -> tuple[int, int]:
    """Tiles across and down of level 0 (as :func:`_build_level` counts them)."""
    if not graph.num_nodes or graph.coords is None:
        return 1, 1
    xy = graph.coords[:, :2]
    cell = np.floor((xy - xy.min(axis=0)) / tile_size)
    return int(cell[:, 0].max()) + 1, int(cell[:, 1].max()) + 1


def _upper_graph(arrays: dict[str, np.ndarray], lv: int, n: int,
                 out: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checked CSR arrays of level ``lv``'s graph (``n`` nodes: the components of the
    level below), added to ``out``."""
    name = f"u{lv}_"
    indptr = _saved.array(arrays, name + "indptr", np.int64, (n + 1,))
    indices = _saved.array(arrays, name + "indices", np.int32, (None,))
    _saved.pointers(indptr, name + "indptr", len(indices))
    _saved.values_in(indices, name + "indices", 0, n - 1)
    weights = _saved.costs(_saved.array(arrays, name + "weights", np.float64,
                                          (len(indices),)), name + "weights")
    coords = _saved.array(arrays, name + "coords", np.float64, (n, 2))
    if not np.isfinite(coords).all():
        raise IndexFormatError(f"array {name + 'coords'!r} holds NaN or infinity")
    out.update({name + "indptr": indptr, name + "indices": indices,
                name + "weights": weights, name + "coords": coords})
    return indptr, indices, weights


def _level_arrays(arrays: dict[str, np.ndarray], lv: int,
                  csr: tuple[np.ndarray, np.ndarray, np.ndarray],
                  tiles: list[int]) -> dict[str, np.ndarray]:
    """The checked arrays of tiled level ``lv`` over the graph ``csr``: every id, offset and
    exit the compiled walk reads stays inside the arrays it indexes."""
    indptr = csr[0]
    n = len(indptr) - 1
    degree = np.diff(indptr)
    ntiles = tiles[0] * tiles[1]

    def get(name: str, dtype: DTypeLike, shape: tuple[int | None, ...]) -> np.ndarray:
        return _saved.array(arrays, _key(lv, name), dtype, shape)

    def key(name: str) -> str:
        return _key(lv, name)

    a = {name: get(name, np.int32, (n,)) for name in ("tile", "comp", "goal_pos")}
    for name in ("tnode_ptr", "blk_ptr", "near_ptr"):
        a[name] = get(name, np.int64, (ntiles + 1,))
    a["centre"] = get("centre", np.int32, (None,))
    a["blk_nodes"] = get("blk_nodes", np.int32, (None,))
    a["leg_nodes"] = get("leg_nodes", np.int32, (None,))
    c = len(a["centre"])
    a["leg_ptr"] = get("leg_ptr", np.int64, (c + 1,))
    near = arrays.get(key("near"))
    slot_t = near.dtype if isinstance(near, np.ndarray) and near.dtype in (np.uint8, np.uint16) \
        else np.dtype(np.uint8)
    a["near"] = near = get("near", slot_t, (None,))
    a["leg_slot"] = legs = get("leg_slot", slot_t, (len(a["leg_nodes"]),))
    none = np.iinfo(slot_t).max
    _saved.values_in(a["tile"], key("tile"), 0, ntiles - 1)
    _saved.values_in(a["centre"], key("centre"), 0, n - 1)
    comp = _saved.values_in(a["comp"], key("comp"), -1, c - 1)
    if np.any(comp[a["centre"]] != np.arange(c)):
        raise IndexFormatError(f"array {key('comp')!r} does not map each centre to its own "
                               "component")
    per_tile = np.diff(_saved.pointers(a["tnode_ptr"], key("tnode_ptr"),
                                       int(a["tnode_ptr"][-1])))
    if a["tnode_ptr"][-1] > n:
        raise IndexFormatError(f"array {key('tnode_ptr')!r} counts more nodes than {n}")
    live = comp >= 0
    pos = a["goal_pos"][live]
    if np.any(pos < 0) or np.any(pos >= per_tile[a["tile"][live]]):
        raise IndexFormatError(f"array {key('goal_pos')!r} holds a position outside its "
                               "node's tile")
    rows = np.diff(_saved.pointers(a["blk_ptr"], key("blk_ptr"), len(a["blk_nodes"])))
    _saved.values_in(a["blk_nodes"], key("blk_nodes"), 0, n - 1)
    if a["near_ptr"][0] != 0 or np.any(np.diff(a["near_ptr"]) != rows * per_tile) \
            or a["near_ptr"][-1] != len(near):
        raise IndexFormatError(f"array {key('near_ptr')!r} does not give each tile a block "
                               "of (block nodes x tile nodes) exits")
    _saved.pointers(a["leg_ptr"], key("leg_ptr"), len(a["leg_nodes"]))
    _saved.values_in(a["leg_nodes"], key("leg_nodes"), 0, n - 1)
    # An exit is the position of an out-edge of its node, or "none".
    owner = np.repeat(a["blk_nodes"], np.repeat(per_tile, rows))
    for name, exits, nodes in (("near", near, owner), ("leg_slot", legs, a["leg_nodes"])):
        bad = (exits != none) & (exits >= degree[nodes])
        if bad.any():
            i = int(np.argmax(bad))
            raise IndexFormatError(f"array {key(name)!r} holds {key(name)}[{i}] = "
                                   f"{int(exits[i])}, not an out-edge of node {int(nodes[i])}")
    return {key(name): v for name, v in a.items()}


class CSRExitTables(GraphIndex):
    """Tiled multi-level exit tables of a :class:`CSRGraph` with coords (see the module).

    >>> import numpy as np
    >>> xy = np.array([[x, 0.0] for x in range(6)])
    >>> g = CSRGraph.from_edges(6, range(5), range(1, 6), [1.0] * 5, directed=False,
    ...                         coords=xy)
    >>> et = CSRExitTables.build(g, tile_size=1.0)
    >>> et.find_path(0, 5).path.tolist(), et.find_path(0, 5).cost
    ([0, 1, 2, 3, 4, 5], 5.0)
    """

    kind = "csr_exit_tables"
    version = 2

    def __init__(self, graph: CSRGraph, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        super().__init__(graph, arrays, options, build_time)
        graphs = [(graph.indptr, graph.indices, graph.weights)] + [
            (arrays[f"u{lv}_indptr"], arrays[f"u{lv}_indices"], arrays[f"u{lv}_weights"])
            for lv in range(1, self.levels - 1)]
        self._walkers = [
            _tables.ExitLevel(indptr, indices, weights,
                              **{k: arrays[_key(lv, k)] for k in _LEVEL_ARRAYS},
                              tw=options["tiles"][lv][0])
            for lv, (indptr, indices, weights) in enumerate(graphs)]
        self._limits = [4 * (len(csr[0]) - 1) + 4 for csr in graphs]
        self._top = _tables.NextTable(arrays["top_next"])

    @classmethod
    def build(cls, graph: CSRGraph, *, tile_size: float, levels: int = 2,
              max_centres: int = MAX_CENTRES) -> CSRExitTables:
        """Build ``levels - 1`` levels of tiled tables and a flat top table.

        Level 0 has tiles of side ``tile_size`` (coordinate units, from the least
        coordinates); each level above has one node per component of the level below, at
        its centre's position, and tiles twice as wide (2 × 2 tiles below).  The top table
        is the flat all-pairs table over the components of the last tiled level, refused
        when they are more than ``max_centres`` (use larger tiles, more levels or raise it).
        Nodes with no edge at all are left out (they reach only themselves).

        Cost per level: one Dijkstra per node on its tile and one per node on its 3 × 3
        block, one full reverse Dijkstra and one O(m) first-move pass per centre.
        """
        tile_size, levels = _check_build(graph, tile_size, levels)
        return cls._build(graph, tile_size=tile_size, levels=levels, max_centres=max_centres,
                          run=_serial)

    @classmethod
    def _build(cls, graph: CSRGraph, *, tile_size: float, levels: int, max_centres: int,
               run: Runner) -> CSRExitTables:
        """:meth:`build` of checked arguments (:func:`_check_build`), each level's near
        tables and centre tables computed by ``run``."""
        t0 = time.perf_counter()
        origin = _positions(graph).min(axis=0) if graph.num_nodes else np.zeros(2)
        arrays: dict[str, np.ndarray] = {}
        tiles = []
        g, size = graph, float(tile_size)
        for lv in range(levels - 1):
            if lv:
                arrays.update({f"u{lv}_indptr": g.indptr, f"u{lv}_indices": g.indices,
                               f"u{lv}_weights": g.weights,
                               f"u{lv}_coords": _positions(g)})
            level, g, shape = _build_level(g, origin, size, run, f"exit tables level {lv}")
            arrays.update({_key(lv, k): v for k, v in level.items()})
            tiles.append(list(shape))
            size *= 2
        if g.num_nodes > max_centres:
            raise InvalidQueryError(
                f"{g.num_nodes} components at the top is more than max_centres={max_centres};"
                " use larger tiles, more levels or raise max_centres (the top table is C × C)")
        top = CSRPathTable.build(g, max_nodes=max(max_centres, 1))
        arrays.update({"top_dist": top.dist, "top_next": top.next})
        options = {"tile_size": float(tile_size), "levels": int(levels), "tiles": tiles,
                   "max_centres": int(max_centres)}
        return cls(graph, arrays, options, time.perf_counter() - t0)

    @classmethod
    def _members(cls, graph: CSRGraph, options: dict[str, Any]) -> dict[str, int]:
        _saved.number(_saved.option(options, "tile_size"), "option tile_size", positive=True)
        levels = _saved.integer(_saved.option(options, "levels"), "option levels", 2, 64)
        _saved.integer(_saved.option(options, "max_centres"), "option max_centres", 1)
        tiles = _saved.option(options, "tiles")
        if not isinstance(tiles, list) or len(tiles) != levels - 1 or not all(
                isinstance(t, list) and len(t) == 2 for t in tiles):
            raise IndexFormatError(f"option tiles {tiles!r} must be {levels - 1} pairs "
                                   "[across, down]")
        # Tiles of each level cover the nodes' extent, in tiles twice as wide as below.
        n = graph.num_nodes
        tw, th = _tile_shape(graph, float(options["tile_size"]))
        for lv, (across, down) in enumerate(tiles):
            _saved.integer(across, f"option tiles[{lv}][0]", 1, (tw - 1) // 2**lv + 1)
            _saved.integer(down, f"option tiles[{lv}][1]", 1, (th - 1) // 2**lv + 1)
        # Every level has at most n nodes, each in at most 9 blocks and in each centre's
        # table at most once.
        out: dict[str, int] = {}
        for lv in range(levels - 1):
            ptr = 8 * (tiles[lv][0] * tiles[lv][1] + 1)
            out.update({_key(lv, "tile"): 4 * n, _key(lv, "comp"): 4 * n,
                        _key(lv, "centre"): 4 * n, _key(lv, "goal_pos"): 4 * n,
                        _key(lv, "tnode_ptr"): ptr, _key(lv, "blk_ptr"): ptr,
                        _key(lv, "near_ptr"): ptr, _key(lv, "blk_nodes"): 36 * n,
                        _key(lv, "near"): 18 * n * n, _key(lv, "leg_ptr"): 8 * (n + 1),
                        _key(lv, "leg_nodes"): 4 * n * n, _key(lv, "leg_slot"): 2 * n * n})
            if lv:
                out.update({f"u{lv}_indptr": 8 * (n + 1), f"u{lv}_indices": 4 * n * n,
                            f"u{lv}_weights": 8 * n * n, f"u{lv}_coords": 16 * n})
        c = min(n, options["max_centres"])
        out.update({"top_dist": 8 * c * c, "top_next": 8 * c * c})
        return out

    @classmethod
    def _restore(cls, graph: CSRGraph, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> CSRExitTables:
        levels = options["levels"]
        out: dict[str, np.ndarray] = {}
        csr = (graph.indptr, graph.indices, graph.weights)
        for lv in range(levels - 1):
            if lv:
                csr = _upper_graph(arrays, lv, len(out[_key(lv - 1, "centre")]), out)
            out.update(_level_arrays(arrays, lv, csr, options["tiles"][lv]))
        c = len(out[_key(levels - 2, "centre")])
        dist = _saved.costs(_saved.array(arrays, "top_dist", np.float64, (c, c)), "top_dist",
                             inf=True)
        nxt = _saved.values_in(_saved.array(arrays, "top_next", next_dtype(c), (c, c)),
                                "top_next", -1, c - 1)
        check_tables(dist, nxt)
        out.update({"top_dist": dist, "top_next": nxt})
        return cls(graph, out, options, build_time)

    @property
    def levels(self) -> int:
        """Number of levels: the tiled ones and the top table."""
        return int(self.options["levels"])

    @property
    def num_components(self) -> int:
        """Number of components of level 0 (nodes of level 1)."""
        return len(self.arrays["centre"])

    def table_sizes(self) -> dict[str, int]:
        """Bytes of each part (``near``, ``centre``, ``top``, ``other``: the rest, such as
        the upper levels' graphs), their ``total`` and the ``flat`` all-pairs tables of the
        same graph (float64 distances + next hops, :func:`~wayfinding.graph.tables.
        table_bytes`)."""
        a = self.arrays
        levels = range(self.levels - 1)
        near = sum(a[_key(lv, k)].nbytes for lv in levels
                   for k in ("blk_ptr", "blk_nodes", "near_ptr", "near"))
        legs = sum(a[_key(lv, k)].nbytes for lv in levels
                   for k in ("leg_ptr", "leg_nodes", "leg_slot"))
        top = a["top_dist"].nbytes + a["top_next"].nbytes
        total = self.nbytes
        return {"near": near, "centre": legs, "top": top, "other": total - near - legs - top,
                "total": total, "flat": table_bytes(self.graph.num_nodes)}

    def next_edge(self, node: Any, goal: Any) -> int:
        """Position of the out-edge to take from ``node`` toward ``goal`` when the near
        table covers the pair; -1 otherwise (or at the goal)."""
        x, g = self.graph._node(node, name="node"), self.graph._node(goal, name="goal")
        if x == g:
            return -1
        a = self.arrays
        t = a["tile"][g]
        lo, hi = a["blk_ptr"][t], a["blk_ptr"][t + 1]
        i = int(np.searchsorted(a["blk_nodes"][lo:hi], x))
        if i >= hi - lo or a["blk_nodes"][lo + i] != x:
            return -1
        ng = a["tnode_ptr"][t + 1] - a["tnode_ptr"][t]
        s = int(a["near"][a["near_ptr"][t] + i * ng + a["goal_pos"][g]])
        return -1 if s == np.iinfo(a["near"].dtype).max else s

    def route(self, start: Any, goal: Any) -> PathResult:
        """Deprecated name of :meth:`find_path`."""
        warn("CSRExitTables.route()", "CSRExitTables.find_path()")
        return self.find_path(start, goal)

    def find_path(self, start: Any, goal: Any) -> PathResult:
        """The route from ``start`` to ``goal`` by table look-ups (no search): ``path``
        ``(k,)`` int64 node ids, ``cost`` the sum of its edge weights, ``stats.expanded`` the
        number of steps; ``found`` False exactly when the goal is unreachable."""
        t0 = time.perf_counter()
        s, g = self.graph._node(start, name="start"), self.graph._node(goal, name="goal")
        walked = self._walk(0, s, g)
        elapsed = time.perf_counter() - t0
        if walked is None:
            return PathResult(np.empty(0, dtype=np.int64), float("inf"), False,
                              SearchStats(elapsed=elapsed), "exit_tables")
        path, cost = walked
        return PathResult(path, cost, True, SearchStats(expanded=len(path) - 1,
                                                        elapsed=elapsed), "exit_tables")

    def _walk(self, lv: int, s: int, g: int) -> tuple[np.ndarray, float] | None:
        """Level ``lv``'s route from node ``s`` to node ``g`` and its cost (None when
        unreachable); the route of components it needs comes from the level above."""
        if s == g:
            return np.array([s], dtype=np.int64), 0.0
        a = self.arrays
        comp = a[_key(lv, "comp")]
        cs, cg = int(comp[s]), int(comp[g])
        if cs < 0 or cg < 0:
            return None
        walker, limit = self._walkers[lv], self._limits[lv]
        status, path, cost, x = walker.walk(_NO_ROUTE, s, g, limit)
        if status == _codes.NEED_ROUTE:
            if lv + 2 < self.levels:
                upper = self._walk(lv + 1, cs, cg)
                if upper is None:
                    return None
                route = upper[0]
            else:
                if not np.isfinite(a["top_dist"][cs, cg]):
                    return None
                route = self._top.walk(cs, cg)
            status, path, cost, x = walker.walk(route, s, g, limit)
        # Neither happens with tables built here; a loaded file may still hold exits that
        # stay in range but do not lead to the goal.
        if status == _codes.NO_MOVE:
            raise IndexFormatError(f"the exit tables give no move from {x} toward {g} (level "
                                   f"{lv}); rebuild them")
        if status == _codes.NO_END:
            raise IndexFormatError(f"the exit-table route from {s} to {g} does not end (level "
                                   f"{lv}); rebuild them")
        return path, cost
