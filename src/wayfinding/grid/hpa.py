"""HPA*: hierarchical path-finding on grids with an abstract graph of cluster entrances
(after Botea, Müller and Schaeffer, "Near optimal hierarchical path-finding", 2004), refined
inside a corridor of clusters.

The map is cut into square *clusters* of ``cluster_size`` cells.  Along every border between
two clusters, an *entrance* is a maximal run of cell pairs, one cell on each side, both
passable; it gets one transition pair in its middle (the lower-indexed of the two middle pairs
when the run is even).  The cells of the transition pairs are the abstract nodes.  The
level-1 abstract graph has an *inter-edge* across the border for each pair (the cost of that
straight step) and an *intra-edge* between every two nodes of one cluster that are connected
inside it, with the exact cost of the cheapest path that stays inside the cluster (one
compiled distance map per node at build time).

With ``levels > 1``, a level-k cluster groups ``group x group`` level-(k-1) clusters.  Its
nodes are the transition cells on level-k borders; its intra-edges cost the shortest path
between them in the level-(k-1) graph restricted to the cluster.

A query connects the start and the goal to the nodes of their top-level cluster (one compiled
distance map each, on the cluster's sub-grid, cells outside the cluster excluded), adds the
direct in-cluster path when both lie in one cluster, and runs a compiled A* (octile
heuristic; Manhattan on 4-connected grids) on the top-level graph with these temporary edges
(in a per-thread scratch copy: the stored graph is never changed).  The abstract path is then
turned into cells in one of two ways:

- ``"corridor"`` (the default): a compiled A* on the map restricted to the *corridor*, the
  top-level clusters that hold a cell of the abstract path.  The abstract path's own cells lie
  in the corridor, so the path found is the cheapest one inside it: never dearer than the
  abstract path, and the optimum whenever an optimal path stays in the corridor (on the Moving
  AI benchmark maps, within 1% of the optimum on average; see ``BENCHMARKS.md``).
- ``"edges"``: each abstract edge on its own (an inter-edge is its single step, an intra-edge
  the compiled A* inside its cluster), as in Botea et al.  The cells of each abstract edge are
  kept once refined (in memory, at most one array per top-level edge), so later queries read
  them instead of searching again.  Faster, but the path follows the transition cells and
  is several percent longer than the optimum on average.

The index owns the scratch, one set per querying thread; a build uses a workspace of its
own.  The cost returned is that of the final cell path, at least the optimum.

Supported grids: the ``never`` and ``no_corner_cutting`` diagonal rules, uniform or weighted
terrain.  Under these rules every move across a cluster border can be replaced by straight
crossings, so the abstract graph keeps the map's connectivity: a path is found exactly when one
exists.  The ``allow_one_blocked`` and ``always`` rules allow diagonal squeezes across a border
with no straight crossing nearby and raise :class:`InvalidGridError`.

Determinism: nodes are numbered by flat cell index ``y * W + x``; edges are sorted by (source,
target); the compiled searches break ties in f toward larger g.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .. import _saved
from .._deprecated import positional_options
from .._kernels import _canonical, _gridops, _gridsearch, _hpa_search
from .._kernels._workspace import Workspace
from .._scratch import PerThread
from .._validate import count, flag
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError
from ..graph.csr import CSRGraph
from ..progress import progress as progress_bar
from ..results import PathResult, SearchStats, empty_path
from .grid import Grid
from .heuristics import heuristic_code
from .index import GridIndex, require_grid
from .rules import DIRECTIONS, Diagonal
from .smoothing import smooth_path

#: The level-1 cluster side (cells) :meth:`HPAStar.build` uses by default.
CLUSTER_SIZE = 16

#: The ways :meth:`HPAStar.find_path` turns the abstract path into cells.
REFINEMENTS = ("corridor", "edges")

#: Diagonal rules HPA* supports.
RULES = (Diagonal.NEVER, Diagonal.NO_CORNER_CUTTING)

_clock = time.perf_counter


#: The widest top-level cluster a hierarchy may have (cells): wider than any grid.
MAX_SIDE = 2**31


class _Layout:
    """Cluster geometry of one map: cluster sides per level and cluster ids of cells."""

    def __init__(self, shape: tuple[int, int], cluster_size: int, levels: int, group: int):
        self.h, self.w = shape
        self.levels = levels
        self.sides = [cluster_size * group ** k for k in range(levels)]
        self.cols = [-(-self.w // s) for s in self.sides]

    def side(self, level: int) -> int:
        return self.sides[level - 1]

    def cluster(self, flat: np.ndarray | int | np.integer[Any], level: int) -> np.ndarray:
        """Level-``level`` cluster ids (row-major) of flat cells ``y * W + x``."""
        s = self.sides[level - 1]
        y, x = np.divmod(flat, self.w)
        return (y // s) * self.cols[level - 1] + x // s

    def region(self, cluster: int, level: int) -> tuple[int, int, int, int]:
        """``(x0, y0, x1, y1)`` of a cluster, ends excluded."""
        s = self.sides[level - 1]
        cy, cx = divmod(int(cluster), self.cols[level - 1])
        return cx * s, cy * s, min((cx + 1) * s, self.w), min((cy + 1) * s, self.h)

    def count(self, level: int) -> int:
        """Clusters of level ``level``."""
        s = self.sides[level - 1]
        return self.cols[level - 1] * -(-self.h // s)

    def zones(self, level: int) -> np.ndarray:
        """``((H + 2) * (W + 2),)`` int32: the level-``level`` cluster of each padded cell
        (0 on the border)."""
        out = np.zeros((self.h + 2, self.w + 2), dtype=np.int32)
        flat = np.arange(self.h * self.w, dtype=np.int64)
        out[1:-1, 1:-1] = self.cluster(flat, level).reshape(self.h, self.w)
        return out.ravel()

    def border_level(self, coord: np.ndarray) -> np.ndarray:
        """Highest level whose cluster borders lie at ``coord`` (a multiple of the level-1
        side)."""
        out = np.ones(coord.shape, dtype=np.int8)
        for k in range(2, self.levels + 1):
            out[coord % self.sides[k - 1] == 0] = k
        return out


def _runs(ok: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximal runs of True along axis 1 of ``ok`` (one row per border), cut every ``side``
    cells: (row, first, last) arrays, in row-major order."""
    n = ok.shape[1]
    pos = np.arange(n)
    prev = np.zeros_like(ok)
    prev[:, 1:] = ok[:, :-1]
    nxt = np.zeros_like(ok)
    nxt[:, :-1] = ok[:, 1:]
    begin = ok & (~prev | (pos % side == 0))
    end = ok & (~nxt | ((pos + 1) % side == 0))
    rows, first = np.nonzero(begin)
    _, last = np.nonzero(end)
    return rows, first, last


def _transitions(first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """Position of the transition pair of each run ``first..last`` (inclusive): its middle,
    the lower-indexed of the two middle pairs when the run is even."""
    return first + (last - first) // 2


def transition_pairs(passable: np.ndarray, layout: _Layout
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every transition pair of the map: flat cells ``a`` (left/upper side) and ``b``
    (right/lower side) and the level of the border between them; sorted by (a, b)."""
    h, w = passable.shape
    s = layout.side(1)
    a_all, b_all, lv_all = [], [], []
    xs = np.arange(s, w, s)
    if len(xs):  # vertical borders: pairs (x - 1, y) | (x, y)
        ok = (passable[:, xs - 1] & passable[:, xs]).T
        rows, first, last = _runs(ok, s)
        pos = _transitions(first, last)
        x = xs[rows]
        a_all.append(pos * w + x - 1)
        b_all.append(pos * w + x)
        lv_all.append(layout.border_level(x))
    ys = np.arange(s, h, s)
    if len(ys):  # horizontal borders: pairs (x, y - 1) / (x, y)
        ok = passable[ys - 1, :] & passable[ys, :]
        rows, first, last = _runs(ok, s)
        pos = _transitions(first, last)
        y = ys[rows]
        a_all.append((y - 1) * w + pos)
        b_all.append(y * w + pos)
        lv_all.append(layout.border_level(y))
    if not a_all:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0, dtype=np.int8)
    a = np.concatenate(a_all).astype(np.int64)
    b = np.concatenate(b_all).astype(np.int64)
    lv = np.concatenate(lv_all).astype(np.int8)
    order = np.lexsort((b, a))
    return a[order], b[order], lv[order]


def _csr(n: int, src: np.ndarray, dst: np.ndarray, w: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR arrays of edges sorted by (source, target)."""
    order = np.lexsort((dst, src))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst[order].astype(np.int32), w[order].astype(np.float64)


def _groups(keys: np.ndarray) -> dict[int, np.ndarray]:
    """Positions of each distinct key, in increasing order of position."""
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    cuts = np.r_[0, np.flatnonzero(np.diff(k)) + 1, len(k)]
    return {int(k[lo]): order[lo:hi] for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)
            if hi > lo}


def _pairwise(dist_rows: list[np.ndarray], ids: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both-way edges from ``dist_rows[i][j]`` (cost from node ``i`` to ``j > i``), dropping
    unreachable pairs and *dominated* ones: a pair ``(i, j)`` with a third node ``k`` such
    that ``d(i, k) + d(k, j) <= d(i, j)`` (up to rounding), whose cost the two edges through
    ``k`` already give.  Every cost is positive, so those two are strictly shorter and the
    graph keeps every shortest distance."""
    m = len(ids)
    if m < 2:
        return (np.empty(0, np.int64),) * 2 + (np.empty(0),)
    d = np.full((m, m), np.inf)
    for i, row in enumerate(dist_rows):
        d[i, i + 1:] = row[i + 1:]
    upper = np.triu(np.ones((m, m), dtype=bool), 1)
    d = np.where(upper, d, d.T)
    np.fill_diagonal(d, np.inf)
    via = np.min(d[:, :, None] + d[None, :, :], axis=1)   # best d(i, k) + d(k, j), k != i, j
    keep = upper & np.isfinite(d) & ~(via <= d * (1.0 + 1e-12))
    a, b = np.nonzero(keep)
    s, t, c = ids[a], ids[b], d[a, b]
    return np.concatenate([s, t]), np.concatenate([t, s]), np.concatenate([c, c])


def _node_levels(nodes: np.ndarray, a: np.ndarray, b: np.ndarray,
                 blevel: np.ndarray) -> np.ndarray:
    """``(n,)`` int8: the highest border level of each node's transition pairs."""
    level = np.zeros(len(nodes), dtype=np.int8)
    np.maximum.at(level, np.searchsorted(nodes, a), blevel)
    np.maximum.at(level, np.searchsorted(nodes, b), blevel)
    return level


def _cluster_components(grid: Grid, layout: _Layout, level: int) -> np.ndarray:
    """``(H, W)`` int32 labels of the cells connected inside their level-``level`` cluster
    (the steps across cluster borders removed); -1 on blocked and cut-off cells."""
    h, w = grid.shape
    wp = w + 2
    moves = grid.moves.copy()
    cluster = np.full((h + 2) * wp, -1, dtype=np.int64)
    inner = np.arange(h * w, dtype=np.int64)
    cluster[(inner // w + 1) * wp + inner % w + 1] = layout.cluster(inner, level)
    for bit, (dx, dy) in enumerate(DIRECTIONS):
        u = np.flatnonzero((moves >> bit) & 1)
        cut = u[cluster[u] != cluster[u + dy * wp + dx]]
        moves[cut] &= np.uint8(~(1 << bit) & 0xFF)
    out = np.full((h, w), -1, dtype=np.int32)
    _gridops.components(moves, wp, h, out)
    return out


class _Region:
    """One cluster as a stand-alone padded grid for the compiled kernels: its cells' costs
    and legal-move masks with every step that leaves the cluster removed (the cells outside
    count as blocked).  ``nodes``: ids of the abstract nodes of the cluster's level inside."""

    def __init__(self, grid: Grid, region: tuple[int, int, int, int], nodes: np.ndarray):
        x0, y0, x1, y1 = region
        self.x0, self.y0, self.w, self.h = x0, y0, x1 - x0, y1 - y0
        self.width = self.w + 2
        full = grid.moves.reshape(grid.height + 2, grid.width + 2)
        moves = np.zeros((self.h + 2, self.width), dtype=np.uint8)
        inner = moves[1:-1, 1:-1]
        inner[:] = full[y0 + 1:y1 + 1, x0 + 1:x1 + 1]
        for bit, (dx, dy) in enumerate(DIRECTIONS):
            drop = np.uint8(~(1 << bit) & 0xFF)
            if dx < 0:
                inner[:, 0] &= drop
            if dx > 0:
                inner[:, -1] &= drop
            if dy < 0:
                inner[0, :] &= drop
            if dy > 0:
                inner[-1, :] &= drop
        self.moves = moves.ravel()
        costs = np.full((self.h + 2, self.width), np.inf)
        costs[1:-1, 1:-1] = grid.costs[y0:y1, x0:x1]
        self.costs = costs.ravel()
        self.canonical = grid.is_uniform and grid.diagonal is Diagonal.NO_CORNER_CUTTING
        self.uniform = grid.is_uniform
        self.hkind = heuristic_code(None, grid.diagonal)
        self.scale = grid.min_cost
        self.nodes = nodes
        #: Row and column arrays of ``nodes`` in a :meth:`flood` result (set by the index).
        self.node_at: tuple[np.ndarray, np.ndarray] = (np.empty(0, np.int64),) * 2

    def flat(self, x: Any, y: Any) -> Any:
        """Padded flat index of map cells ``(x, y)`` inside the region."""
        return (y - self.y0 + 1) * self.width + x - self.x0 + 1

    def flood(self, x: int, y: int, ws: Workspace) -> np.ndarray:
        """``(h, w)`` costs of the cheapest in-cluster paths from map cell ``(x, y)``, found
        in ``ws`` (room for :func:`_region_size` nodes of the region's level)."""
        out = np.full((self.h, self.w), np.inf)
        src = np.array([self.flat(x, y)], dtype=np.int64)
        if self.canonical:
            _canonical.flood(ws, self.moves, self.width, src, math.inf, out)
        else:
            _gridsearch.flood(ws, self.costs, self.moves, self.width, src, math.inf, out)
        return out

    def at(self, dist: np.ndarray, flat: np.ndarray, map_width: int) -> np.ndarray:
        """Values of a :meth:`flood` result at map flat cells ``flat`` inside the region."""
        y, x = np.divmod(flat, map_width)
        return dist[y - self.y0, x - self.x0]

    def path(self, a: tuple[int, int], b: tuple[int, int],
             ws: Workspace) -> tuple[np.ndarray, int, int]:
        """Compiled A* inside the cluster from map cell ``a`` to ``b`` (connected inside it),
        in ``ws``: the ``(n, 2)`` map cells and the expanded and generated counts."""
        target = self.flat(b[0], b[1])
        found, _, exp, gen, _, _ = _gridsearch.search(
            ws, self.costs, self.moves, self.width, self.flat(a[0], a[1]), target,
            self.hkind, self.scale, False, False, self.uniform)
        if not found:
            raise RuntimeError(f"no in-cluster path from {a} to {b}")
        return ws.path_cells(target, self.width) + (self.x0, self.y0), exp, gen


def _region_size(layout: _Layout, level: int) -> int:
    """The most nodes of a level-``level`` cluster as a padded grid (:class:`_Region`)."""
    side = layout.side(level)
    return (min(side, layout.h) + 2) * (min(side, layout.w) + 2)


def _build_arrays(grid: Grid, layout: _Layout, *, show: bool = False,
                  old: dict[str, np.ndarray] | None = None,
                  changed: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The index arrays; with ``old`` (arrays of the same layout on the map before an edit)
    and ``changed`` (flat cells that differ), clusters untouched by the edit keep their old
    intra-edges."""
    w = grid.width
    costs = grid.costs.ravel()
    a, b, blevel = transition_pairs(grid.passable, layout)
    nodes = np.unique(np.concatenate([a, b]))
    n = len(nodes)
    level = _node_levels(nodes, a, b, blevel)
    ia, ib = np.searchsorted(nodes, a), np.searchsorted(nodes, b)
    step = 0.5 * (costs[a] + costs[b])
    arrays: dict[str, np.ndarray] = {"nodes": nodes, "node_level": level}
    dirty_below: set[int] = set()
    ws = Workspace(_region_size(layout, 1))     # the level-1 floods' scratch
    for k in range(1, layout.levels + 1):
        members = np.flatnonzero(level >= k)
        clusters = _groups(layout.cluster(nodes[members], k)) if len(members) else {}
        reuse: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        dirty: set[int] = set()
        if old is not None:
            onodes = old["nodes"]
            omembers = np.flatnonzero(old["node_level"] >= k)
            oclusters = _groups(layout.cluster(onodes[omembers], k)) if len(omembers) else {}
            touched = set(np.unique(layout.cluster(changed, k)).tolist()) if changed is not None \
                else set()
            if k > 1:
                for c in dirty_below:
                    x0, y0, _, _ = layout.region(c, k - 1)
                    touched.add(int(layout.cluster(np.int64(y0 * w + x0), k)))
            indptr, indices, weights = (old[f"{name}{k}"] for name in
                                        ("indptr", "indices", "weights"))
            osrc = onodes[np.repeat(np.arange(len(onodes)), np.diff(indptr))]
            odst = onodes[indices]
            ocl = layout.cluster(osrc, k)
            intra = ocl == layout.cluster(odst, k)
            by_cluster = _groups(ocl[intra]) if intra.any() else {}
            isrc, idst, iw = osrc[intra], odst[intra], weights[intra]
            for c in set(clusters) | set(oclusters):
                same = c in clusters and c in oclusters and np.array_equal(
                    nodes[members[clusters[c]]], onodes[omembers[oclusters[c]]])
                if c in touched or not same:
                    dirty.add(c)
                elif c in by_cluster:
                    sel = by_cluster[c]
                    reuse[c] = (np.searchsorted(nodes, isrc[sel]),
                                np.searchsorted(nodes, idst[sel]), iw[sel])
        on_k = blevel >= k
        src = [ia[on_k], ib[on_k]]
        dst = [ib[on_k], ia[on_k]]
        wgt = [step[on_k], step[on_k]]
        if k > 1:
            below = (arrays[f"indptr{k - 1}"], arrays[f"indices{k - 1}"],
                     arrays[f"weights{k - 1}"])
            bsrc = np.repeat(np.arange(n), np.diff(below[0]))
            bcl = layout.cluster(nodes[bsrc], k)
            inside = bcl == layout.cluster(nodes[below[1]], k)
            below_groups = _groups(bcl[inside]) if inside.any() else {}
            bs, bd, bw = bsrc[inside], below[1][inside].astype(np.int64), below[2][inside]
        items = sorted(clusters.items())
        for c, pos in progress_bar(items, len(items), label=f"HPA* level {k}", enabled=show):
            ids = members[pos]
            if len(ids) < 2:
                continue
            if c in reuse:
                s_, d_, w_ = reuse[c]
            elif k == 1:
                reg = _Region(grid, layout.region(c, 1), ids)
                y, x = np.divmod(nodes[ids], w)
                rows = [reg.at(reg.flood(int(x[i]), int(y[i]), ws), nodes[ids], w)
                        for i in range(len(ids) - 1)]
                s_, d_, w_ = _pairwise(rows, ids)
            else:
                sel = below_groups.get(c, np.empty(0, dtype=np.int64))
                local = np.unique(np.concatenate([bs[sel], bd[sel], ids]))
                sub = CSRGraph.from_edges(len(local), np.searchsorted(local, bs[sel]),
                                          np.searchsorted(local, bd[sel]), bw[sel])
                at = np.searchsorted(local, ids)
                rows = [sub.distances(int(at[i]))[at] for i in range(len(ids) - 1)]
                s_, d_, w_ = _pairwise(rows, ids)
            src.append(s_)
            dst.append(d_)
            wgt.append(w_)
        indptr, indices, weights = _csr(n, np.concatenate(src).astype(np.int64),
                                        np.concatenate(dst).astype(np.int64),
                                        np.concatenate(wgt))
        arrays[f"indptr{k}"] = indptr
        arrays[f"indices{k}"] = indices
        arrays[f"weights{k}"] = weights
        dirty_below = dirty
    return arrays


class _Scratch:
    """One thread's query state on one index: the top-level graph with reserved slots for
    the temporary start and goal edges, the abstract search's workspace, the workspace of
    the searches inside a top-level cluster, and the corridor search's workspace (over the
    whole padded map, made on the first corridor query) and cluster marks."""

    def __init__(self, index: HPAStar):
        arrays, layout, top = index.arrays, index.layout, index.levels
        nodes = arrays["nodes"]
        n = len(nodes)
        indptr = arrays[f"indptr{top}"]
        deg = np.diff(indptr)
        on_top = arrays["node_level"] >= top
        ids = np.flatnonzero(on_top)
        per_cluster = _groups(layout.cluster(nodes[ids], top)) if len(ids) else {}
        widest = max((len(v) for v in per_cluster.values()), default=0)
        # rows: every node's edges plus one reserved slot (top-level nodes only), then the
        # start row (one slot per node of a cluster, plus the direct edge), then the goal row
        extra = np.zeros(n + 2, dtype=np.int64)
        extra[:n] = deg + on_top
        extra[n] = widest + 1
        self.indptr = np.zeros(n + 3, dtype=np.int64)
        np.cumsum(extra, out=self.indptr[1:])
        self.home = np.repeat(np.arange(n + 2, dtype=np.int32), extra)
        self.indices = self.home.copy()
        self.weights = np.zeros(len(self.indices))
        rows = np.repeat(np.arange(n), deg)
        at = self.indptr[rows] + np.arange(len(rows)) - indptr[rows]
        self.indices[at] = arrays[f"indices{top}"]
        self.weights[at] = arrays[f"weights{top}"]
        self.slot = self.indptr[1:n + 1] - 1  # the reserved slot of each top-level node
        y, x = np.divmod(nodes, layout.w)
        self.xy = np.zeros((n + 2, 2), dtype=np.int32)
        self.xy[:n, 0] = x
        self.xy[:n, 1] = y
        self.ws = Workspace(n + 2)
        self.region_ws = Workspace(_region_size(layout, top))
        self.grid_ws: Workspace | None = None   # the corridor searches' (made on first use)
        self.mark = np.zeros(layout.count(top), dtype=np.uint32)
        self.stamp = 0


class HPAStar(GridIndex):
    """HPA*: near-optimal hierarchical search over cluster entrances (see the module doc).

    ``arrays``: ``nodes`` ``(n,)`` int64 flat cells ``y * W + x`` of the abstract nodes,
    ascending; ``node_level`` ``(n,)`` int8, the highest level each node belongs to; per level
    k = 1..levels, the CSR graph over all ``n`` nodes ``indptr{k}`` ``(n + 1,)`` int64,
    ``indices{k}`` int32, ``weights{k}`` float64 (rows of nodes below level k are empty).

    The index owns its queries' scratch, one set per thread that queries it (made on that
    thread's first query, then reused), so one index serves several threads; the corridor
    search's part of it takes 20 bytes per cell of the map, and the index keeps the cluster
    of every cell (4 bytes per cell) once a corridor query needs it.

    Format version 2 (one transition per entrance, dominated intra-cluster pairs left out);
    files of version 1 are refused with a message asking to rebuild them.

    >>> g = Grid.from_ascii('''
    ... ........
    ... ...#....
    ... ...#....
    ... ........''')
    >>> hpa = HPAStar.build(g, cluster_size=4)
    >>> hpa.num_nodes, hpa.levels
    (4, 1)
    >>> r = hpa.find_path((0, 2), (7, 2))
    >>> r.found, round(r.cost, 4), len(r.path), r.algorithm
    (True, 7.8284, 8, 'hpa')
    >>> hpa.find_path((0, 2), (0, 2)).cost
    0.0
    """

    kind = "hpa"
    version = 2

    def __init__(self, world: Any, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float):
        super().__init__(world, arrays, options, build_time)
        self.layout = _Layout(world.shape, options["cluster_size"], options["levels"],
                              options["group"])
        self._local: PerThread[_Scratch] = PerThread()
        self._regions: dict[int, _Region] = {}
        self._legs: dict[tuple[int, int], np.ndarray] = {}
        self._zone: np.ndarray | None = None
        self._hkind = heuristic_code(None, world.diagonal)

    def _region(self, cluster: int) -> _Region:
        """The top-level cluster ``cluster`` as a padded grid (made once, then shared)."""
        reg = self._regions.get(cluster)
        if reg is None:
            lay, top = self.layout, self.levels
            bounds = lay.region(cluster, top)
            x0, y0, x1, y1 = bounds
            nodes = self.arrays["nodes"]
            lo, hi = np.searchsorted(nodes, [y0 * lay.w, y1 * lay.w])
            sel = np.arange(lo, hi)
            x = nodes[sel] % lay.w
            sel = sel[(x >= x0) & (x < x1) & (self.arrays["node_level"][sel] >= top)]
            reg = _Region(self.grid, bounds, sel)
            ny, nx = np.divmod(nodes[sel], lay.w)
            reg.node_at = (ny - y0, nx - x0)
            self._regions[cluster] = reg
        return reg

    @property
    def levels(self) -> int:
        return int(self.options["levels"])

    @property
    def kept_nbytes(self) -> int:
        """Bytes of the refined abstract edges kept by the ``refine="edges"`` queries so far
        (not in ``nbytes``, which counts the index's arrays)."""
        return sum(cells.nbytes for cells in list(self._legs.values()))

    @property
    def num_nodes(self) -> int:
        """Abstract nodes (transition cells) at level 1."""
        return len(self.arrays["nodes"])

    @classmethod
    def build(cls, grid: Grid, *, cluster_size: int = CLUSTER_SIZE, levels: int = 1, group: int = 3,
              progress: bool | None = None) -> HPAStar:
        """Build the abstract graph of ``grid``.

        ``cluster_size`` (cells, >= 2, default :data:`CLUSTER_SIZE`): side of the level-1
        clusters.  Smaller clusters make more transition nodes and a larger abstract graph;
        larger ones make the start and goal insertion (a distance map over a cluster) and the
        corridor search dearer; 16 was the fastest on the 512 x 512 Moving AI maps.
        ``levels`` (1 to 32): levels of the hierarchy.  ``group`` (>= 2, default 3): a level-k
        cluster is ``group x group`` level-(k-1) clusters; the top ones may be at most
        :data:`MAX_SIDE` cells wide.  ``progress``: show a progress bar.
        Time: one distance map per node of each level-1 cluster, on the cluster (about
        ``nodes x cluster_size**2``), plus Dijkstra runs on the abstract graph per level.
        """
        t0 = _clock()
        require_grid(grid, "HPA*", uniform=False, diagonals=RULES)
        s = count("cluster_size", cluster_size, min=2, max=MAX_SIDE)
        lv = count("levels", levels, max=32)
        gr = count("group", group, min=2, max=MAX_SIDE)
        if s * gr ** (lv - 1) > MAX_SIDE:
            raise InvalidQueryError(
                f"levels {lv} with cluster_size {s} and group {gr}: the top clusters would be "
                f"{s * gr ** (lv - 1):.3g} cells wide, more than any grid ({MAX_SIDE})")
        layout = _Layout(grid.shape, s, lv, gr)
        arrays = _build_arrays(grid, layout, show=bool(progress))
        return cls(grid, arrays, {"cluster_size": s, "levels": lv, "group": gr},
                   _clock() - t0)

    @positional_options("changed")
    def rebuilt(self, grid: Grid, *, changed: Any = None) -> HPAStar:
        """The index of ``grid``, an edited copy of this index's map (same shape and rule),
        recomputing only the clusters the edit touches; equal to a fresh :meth:`build`.

        ``changed``: ``(m, 2)`` ``(x, y)`` cells that were edited; by default the cells whose
        cost differs.  Raises :class:`InvalidQueryError` when ``changed`` misses a cell that
        differs.
        """
        t0 = _clock()
        require_grid(grid, "HPA*", uniform=False, diagonals=RULES)
        if grid.shape != self.grid.shape or grid.diagonal is not self.grid.diagonal:
            raise InvalidGridError(
                f"rebuilt needs a map of the same shape and rule ({self.grid.shape}, "
                f"{self.grid.diagonal.value}), got {grid.shape}, {grid.diagonal.value}")
        diff = np.flatnonzero(grid.costs.ravel() != self.grid.costs.ravel())
        if changed is not None:
            cells = np.asarray(changed, dtype=np.int64).reshape(-1, 2)
            if len(cells) and (cells.min() < 0 or np.any(cells[:, 0] >= grid.width)
                               or np.any(cells[:, 1] >= grid.height)):
                raise InvalidQueryError("changed cells must lie inside the "
                                        f"{grid.width}x{grid.height} grid")
            given = cells[:, 1] * grid.width + cells[:, 0]
            missing = np.setdiff1d(diff, given)
            if len(missing):
                y, x = divmod(int(missing[0]), grid.width)
                raise InvalidQueryError(
                    f"cell {(x, y)} differs between the maps but is not in changed")
            diff = np.union1d(diff, given)
        arrays = _build_arrays(grid, self.layout, old=self.arrays, changed=diff)
        return type(self)(grid, arrays, dict(self.options), _clock() - t0)

    @classmethod
    def _layout(cls, grid: Grid, options: dict[str, Any]) -> _Layout:
        """The layout the options give, after checking their types and ranges."""
        s = _saved.integer(_saved.option(options, "cluster_size"), "option cluster_size", 2)
        lv = _saved.integer(_saved.option(options, "levels"), "option levels", 1, 32)
        gr = _saved.integer(_saved.option(options, "group"), "option group", 2)
        if s * gr ** (lv - 1) > 2**31:
            raise IndexFormatError(f"options cluster_size {s}, group {gr} and levels {lv} give "
                                   "clusters wider than 2**31 cells")
        return _Layout(grid.shape, s, lv, gr)

    @classmethod
    def _members(cls, grid: Grid, options: dict[str, Any]) -> dict[str, int]:
        layout = cls._layout(grid, options)
        a, b, blevel = transition_pairs(grid.passable, layout)
        nodes = np.unique(np.concatenate([a, b]))
        n = len(nodes)
        level = _node_levels(nodes, a, b, blevel)
        out = {"nodes": 8 * n, "node_level": n}
        for k in range(1, layout.levels + 1):
            # Intra-edges join the nodes of one cluster pairwise; inter-edges cross borders.
            per = np.bincount(layout.cluster(nodes[level >= k], k)) if n else np.zeros(1)
            edges = int(np.sum(per * (per - 1))) + 2 * int(np.sum(blevel >= k))
            out.update({f"indptr{k}": 8 * (n + 1), f"indices{k}": 4 * edges,
                        f"weights{k}": 8 * edges})
        return out

    @classmethod
    def _restore(cls, world: Any, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> HPAStar:
        grid = require_grid(world, "HPA*", uniform=False, diagonals=RULES)
        layout = cls._layout(grid, options)
        a, b, blevel = transition_pairs(grid.passable, layout)
        expect = np.unique(np.concatenate([a, b]))
        n = len(expect)
        nodes = _saved.array(arrays, "nodes", np.int64, (n,))
        _saved.equal(nodes, expect, "nodes", "the transition cells of the map")
        level = _saved.array(arrays, "node_level", np.int8, (n,))
        _saved.equal(level, _node_levels(nodes, a, b, blevel), "node_level",
                      "the levels of the map's transition cells")
        out = {"nodes": nodes, "node_level": level}
        w = grid.width
        for k in range(1, layout.levels + 1):
            indptr = _saved.array(arrays, f"indptr{k}", np.int64, (n + 1,))
            indices = _saved.array(arrays, f"indices{k}", np.int32, (None,))
            weights = _saved.array(arrays, f"weights{k}", np.float64, (len(indices),))
            _saved.pointers(indptr, f"indptr{k}", len(indices))
            _saved.values_in(indices, f"indices{k}", 0, n - 1)
            _saved.costs(weights, f"weights{k}")
            src = np.repeat(np.arange(n), np.diff(indptr))
            # Edges join nodes of level k: inside one level-k cluster, cells connected
            # inside it (the refinement searches there); across a border, neighbours.
            fa, fb = nodes[src], nodes[indices]
            same = layout.cluster(fa, k) == layout.cluster(fb, k)
            label = _cluster_components(grid, layout, k).ravel()
            ya, xa = np.divmod(fa, w)
            yb, xb = np.divmod(fb, w)
            ok = (level[src] >= k) & (level[indices] >= k) & np.where(
                same, (label[fa] >= 0) & (label[fa] == label[fb]),
                np.abs(xa - xb) + np.abs(ya - yb) == 1)
            if not ok.all():
                e = int(np.argmax(~ok))
                raise IndexFormatError(
                    f"level-{k} edge {e} joins cells ({xa[e]}, {ya[e]}) and ({xb[e]}, {yb[e]}),"
                    f" not two level-{k} nodes connected inside one cluster or across a border")
            out.update({f"indptr{k}": indptr, f"indices{k}": indices, f"weights{k}": weights})
        return cls(grid, out, options, build_time)

    def _corridor(self, sc: _Scratch, flat: np.ndarray, s: tuple[int, int],
                  g: tuple[int, int]) -> tuple[np.ndarray, int, int]:
        """The cheapest path from ``s`` to ``g`` inside the top-level clusters of the abstract
        path's cells ``flat`` (compiled jump point search on uniform grids under the
        ``no_corner_cutting`` rule, else A*), its expanded and generated counts."""
        lay, top = self.layout, self.levels
        if sc.stamp == 0xFFFFFFFF:
            sc.mark[:] = 0
            sc.stamp = 0
        sc.stamp += 1
        sc.mark[lay.cluster(flat, top)] = sc.stamp
        grid = self.grid
        wp = grid.width + 2
        if sc.grid_ws is None:
            sc.grid_ws = Workspace((grid.height + 2) * wp)
        if self._zone is None:
            self._zone = lay.zones(top)
        ps = (s[1] + 1) * wp + s[0] + 1
        pg = (g[1] + 1) * wp + g[0] + 1
        if grid.is_uniform and grid.diagonal is Diagonal.NO_CORNER_CUTTING:
            found, _, exp, gen, cells = _hpa_search.corridor_jps(
                sc.grid_ws, grid.padded_costs, wp, ps, pg, self._zone, sc.mark, sc.stamp)
        else:
            found, _, exp, gen = _hpa_search.corridor_search(
                sc.grid_ws, grid.padded_costs, grid.moves, wp, ps, pg, self._zone, sc.mark,
                sc.stamp, self._hkind, grid.min_cost, grid.is_uniform)
            if found:
                cells = sc.grid_ws.path_cells(pg, wp)
        if not found:  # the abstract path lies in the corridor: cannot happen
            raise RuntimeError(f"no path from {s} to {g} inside the corridor")
        return cells, exp, gen

    def _scratch(self) -> _Scratch:
        return self._local.mine() or self._local.keep(_Scratch(self))

    def find_path(self, start: Any, goal: Any, *, smooth: bool = False,
                  refine: str = "corridor") -> PathResult:
        """A path from ``start`` to ``goal`` (``(x, y)`` cells): legal, its ``cost`` the exact
        sum of its steps, at least the optimum.

        ``refine``: how the abstract path becomes cells (see the module doc): ``"corridor"``
        (default), the cheapest path inside the top-level clusters the abstract path crosses;
        ``"edges"``, each abstract edge on its own (faster, longer paths).  ``smooth=True``
        then shortcuts the path along lines of sight (:func:`smooth_path`); never longer.
        Algorithm ``"hpa"`` / ``"hpa_smooth"``; ``stats.expanded`` counts the abstract
        search's expansions and those of the refinement (with ``"edges"``, of the edges not
        already kept from earlier queries).

        Blocked or out-of-grid endpoints and an unknown ``refine`` raise
        :class:`InvalidQueryError`; a goal on another island gives ``found=False`` without
        searching.
        """
        t0 = _clock()
        if refine not in REFINEMENTS:
            raise InvalidQueryError(f"unknown refine {refine!r}; expected one of: "
                                    f"{', '.join(REFINEMENTS)}")
        grid = self.grid
        s = grid.cell(start, name="start", passable=True)
        g = grid.cell(goal, name="goal", passable=True)
        smooth = flag("smooth", smooth)
        name = "hpa_smooth" if smooth else "hpa"
        if s == g:
            return PathResult(np.array([s], dtype=np.int64), 0.0, True,
                              SearchStats(elapsed=_clock() - t0), name)
        comp = grid.components
        if comp[s[1], s[0]] != comp[g[1], g[0]]:
            return PathResult(empty_path(), math.inf, False,
                              SearchStats(elapsed=_clock() - t0), name)
        sc = self._scratch()
        top = self.levels
        lay = self.layout
        nodes = self.arrays["nodes"]
        n = len(nodes)
        S, G = n, n + 1
        side, cols = lay.side(top), lay.cols[top - 1]
        cs = s[1] // side * cols + s[0] // side
        cg = g[1] // side * cols + g[0] // side
        reg = self._region(cs)
        dist = reg.flood(*s, sc.region_ws)
        ids, out_s = reg.nodes, dist[reg.node_at]
        direct = float(dist[g[1] - reg.y0, g[0] - reg.x0]) if cs == cg else math.inf
        reg = self._region(cg)
        gids, into_g = reg.nodes, reg.flood(*g, sc.region_ws)[reg.node_at]
        keep = np.isfinite(out_s)
        ids, out_s = ids[keep], out_s[keep]
        keep = np.isfinite(into_g)
        gids, into_g = gids[keep], into_g[keep]
        row = sc.indptr[S]
        m = len(ids)
        sc.indices[row:row + m] = ids
        sc.weights[row:row + m] = out_s
        if math.isfinite(direct):
            sc.indices[row + m] = G
            sc.weights[row + m] = direct
        slots = sc.slot[gids]
        sc.indices[slots] = G
        sc.weights[slots] = into_g
        sc.xy[S] = s
        sc.xy[G] = g
        try:
            found, _, exp, gen, mo = _hpa_search.abstract_search(
                sc.ws, sc.indptr, sc.indices, sc.weights, sc.xy, S, G, self._hkind,
                grid.min_cost)
            abstract = sc.ws.path_to(G) if found else None
        finally:
            sc.indices[row:row + m + 1] = S
            sc.indices[slots] = sc.home[slots]
        if abstract is None:  # cannot happen on the supported rules (see the module doc)
            return PathResult(empty_path(), math.inf, False,
                              SearchStats(expanded=exp, generated=gen, max_open=mo,
                                          elapsed=_clock() - t0), name)
        flat = nodes[abstract[1:-1]]
        flat = np.concatenate([[s[1] * lay.w + s[0]], flat, [g[1] * lay.w + g[0]]])
        if refine == "corridor":
            path, e, gn = self._corridor(sc, flat, s, g)
            exp += e
            gen += gn
            if smooth:
                path = smooth_path(grid, path)
            return PathResult(path, grid.path_cost(path), True,
                              SearchStats(expanded=exp, generated=gen, max_open=mo,
                                          elapsed=_clock() - t0), name)
        ys, xs = np.divmod(flat, lay.w)
        cl = lay.cluster(flat, top).tolist()
        xs, ys = xs.tolist(), ys.tolist()
        pieces = [np.array([s], dtype=np.int64)]
        legs, last = self._legs, len(flat) - 2
        fl = flat.tolist()
        for i in range(len(flat) - 1):
            key = (fl[i], fl[i + 1])
            cells = legs.get(key)
            if cells is None:
                b = (xs[i + 1], ys[i + 1])
                if cl[i] != cl[i + 1]:  # an inter-edge: one step across the border
                    cells = np.array([b], dtype=np.int64)
                else:
                    cells, e, gn = self._region(cl[i]).path((xs[i], ys[i]), b, sc.region_ws)
                    cells = cells[1:]
                    exp += e
                    gen += gn
                if 0 < i < last:  # an abstract edge (not a start or goal leg): keep it
                    legs[key] = cells
            pieces.append(cells)
        path = np.concatenate(pieces)
        if smooth:
            path = smooth_path(grid, path)
        return PathResult(path, grid.path_cost(path), True,
                          SearchStats(expanded=exp, generated=gen, max_open=mo,
                                      elapsed=_clock() - t0), name)
