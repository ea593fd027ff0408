"""Millington's hierarchical graph: nodes grouped level by level, each level a plain graph.

Level 0 is the base graph.  A grouping maps every node of level k - 1 to a group; the groups
are the nodes of level k.  Groups X and Y are linked (X -> Y) when some node of X has an edge
to some node of Y, with one of these costs (``link_cost``):

* ``"minimum"``: the cheapest edge from X to Y (optimistic: crossing X is free);
* ``"maximin"``: the largest *entry value* of X toward Y (pessimistic);
* ``"average_minimum"``: the mean entry value (the default, a pragmatic middle).

An *entry* of X toward Y is a node of X with an incoming edge from a group other than X and
Y; its value is the cheapest way, inside X, from it to an edge into Y:
``min over exits x of (d_X(entry, x) + cost(x -> Y))``, with ``d_X`` the shortest-path
distance using only X's own edges (computed exactly, by Dijkstra).  Entries that cannot reach
such an exit inside X are left out; when none is left (or X has no entry), the link falls
back to the minimum.  Costs of level k are computed on the graph of level k - 1.

Every group has a *representative*: the member a search aims at when it goes down a level.
With node positions it is the member closest to the centroid of the group's level-0 nodes
(groups are placed at that centroid); without, it is the middle of a longest shortest path
inside the group, found by a double sweep (Dijkstra from the first member, then from the
farthest node reached; the middle is the node on that path whose distance is closest to
half its length) - an approximate graph centre.  Ties go to the lowest index.  Both can be
overridden per group.

Internally every level is a :class:`~wayfinding.graph.CSRGraph` (nodes numbered in the
order described by :meth:`HierarchicalGraph.node_labels`), so the searches of
:mod:`wayfinding.search.hierarchical` run compiled.  Building costs, per level, O(m) numpy
work plus, per pair of linked groups, one compiled Dijkstra over the source group (and three
per group for representatives without positions).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import _saved
from .._arrays import concatenated_ranges
from .._validate import flag
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError
from ..graph.csr import CSRGraph, GraphIndex

#: Link-cost methods of :meth:`HierarchicalGraph.build`.
LINK_COSTS = ("minimum", "maximin", "average_minimum")


class LevelGraph:
    """One level of a :class:`HierarchicalGraph` as a plain graph of group labels.

    ``successors(group)`` gives ``(group, link cost)`` pairs and ``heuristic(a, b)`` the
    level's admissible scaled Euclidean estimate between group centroids (0 without
    positions), so :func:`~wayfinding.search.astar` runs on it unchanged.  ``csr`` is the
    same level over indices ``0..n-1``; :meth:`index` and :meth:`label` convert.
    """

    def __init__(self, csr: CSRGraph, labels: list[Any], lookup: dict[Any, int]):
        self.csr = csr
        self.labels = labels
        self._lookup = lookup

    def index(self, label: Any) -> int:
        try:
            return self._lookup[label]
        except (KeyError, TypeError):
            raise InvalidQueryError(f"{label!r} is not a node of this level") from None

    def label(self, index: int) -> Any:
        return self.labels[index]

    def successors(self, node: Any) -> list[tuple[Any, float]]:
        return [(self.labels[v], c) for v, c in self.csr.successors(self.index(node))]

    def heuristic(self, node: Any, goal: Any) -> float:
        return self.csr.heuristic(self.index(node), self.index(goal))

    @property
    def nodes(self) -> list[Any]:
        return list(self.labels)

    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        return f"LevelGraph({len(self.labels)} groups, {self.csr.num_edges} links)"


class HierarchicalGraph(GraphIndex):
    """A base graph and the levels of groups above it (see the module docstring).

    Build with :meth:`build`.  ``levels`` counts level 0; level k >= 1 has its groups as
    nodes.  Nodes are given and returned in the base graph's own form at level 0 (ints for
    a :class:`CSRGraph`, any hashable for other graphs) and as the grouping's labels above.
    A hierarchy over a :class:`CSRGraph` with integer group labels saves and loads like any
    graph index (fingerprint of the base graph checked).  ``graph`` is level 0 as a
    CSRGraph over indices (the base itself when it is one); ``base`` the graph as given.

    >>> from wayfinding import AdjacencyGraph
    >>> g = AdjacencyGraph.from_edges([(i, i + 1, 1) for i in range(5)], directed=False)
    >>> h = HierarchicalGraph.build(g, [{0: "a", 1: "a", 2: "a", 3: "b", 4: "b", 5: "b"}])
    >>> h.levels, h.get_node_at_level(0, 4, 1), h.representative(1, "b")
    (2, 'b', 4)
    >>> h.level_graph(1).successors("a")  # "a" has no entries: the minimum link
    [('b', 1.0)]
    """

    kind = "csr_hierarchy"
    version = 1

    def __init__(self, world: CSRGraph, arrays: dict[str, np.ndarray],
                 options: dict[str, Any], build_time: float, *, base: Any = None,
                 labels: list[list[Any] | None] | None = None):
        super().__init__(world, arrays, options, build_time)
        top = int(options["levels"]) - 1
        self.base = world if base is None else base
        self._csr: list[CSRGraph] = [world]
        for k in range(1, top + 1):
            coords = arrays[f"coords{k}"]
            self._csr.append(CSRGraph(arrays[f"indptr{k}"], arrays[f"indices{k}"],
                                      arrays[f"weights{k}"],
                                      coords=coords if coords.size else None))
        self._parent = [arrays[f"parent{k}"] for k in range(top)]
        self._rep = [np.empty(0, dtype=np.int64)] + [arrays[f"rep{k}"]
                                                      for k in range(1, top + 1)]
        self._mptr = [np.empty(0, dtype=np.int64)]
        self._mem: list[np.ndarray] = [np.empty(0, dtype=np.int64)]
        for k in range(1, top + 1):
            p = self._parent[k - 1]
            self._mem.append(np.argsort(p, kind="stable"))
            ptr = np.zeros(self._csr[k].num_nodes + 1, dtype=np.int64)
            np.cumsum(np.bincount(p, minlength=self._csr[k].num_nodes), out=ptr[1:])
            self._mptr.append(ptr)
        if labels is None:
            labels = [None] + [arrays[f"labels{k}"].tolist() for k in range(1, top + 1)]
        self._labels = labels
        self._lookup = [None if lab is None else {x: i for i, x in enumerate(lab)}
                        for lab in labels]

    # ------------------------------------------------------------------ building
    @classmethod
    def build(cls, graph: Any, groupings: Sequence[Any], *,
              link_cost: str = "average_minimum", positions: Any = None,
              representatives: Sequence[Mapping[Any, Any] | None] | None = None,
              ) -> HierarchicalGraph:
        """Build the levels above ``graph``.

        ``graph``: a :class:`CSRGraph` (fast path) or any graph with ``successors``.
        ``groupings``: one entry per level above 0, in order; entry k maps every node of
        level k to its group at level k + 1, as a mapping ``{node: group}``, a ``(n,)``
        integer array indexed by node (levels over integer nodes ``0..n-1``), or a
        callable ``f(level_csr) -> array or mapping`` given the level below as a
        :class:`CSRGraph` over indices (e.g. :func:`cell_grouping`).  Group labels are
        any hashables (integers to be saved).  For a graph that is not a CSRGraph, the
        first grouping must be a mapping whose keys are all the nodes (its key order
        numbers them); every node reached by an edge must be one of them.
        ``link_cost``: one of :data:`LINK_COSTS`.  ``positions``: node positions of a graph
        that is not a CSRGraph, ``{node: (x, y[, z])}`` or an ``(n, d)`` array in the
        first grouping's key order (a CSRGraph's own coords are used).
        ``representatives``: optional, per level above 0, ``{group: member}`` overriding
        the automatic choice.

        Raises :class:`InvalidQueryError` for an unknown link cost, a node missing from a
        grouping, or a representative that is not a member of its group, and
        :class:`InvalidGridError` for negative or non-finite costs.
        """
        t0 = time.perf_counter()
        if link_cost not in LINK_COSTS:
            raise InvalidQueryError(f"unknown link_cost {link_cost!r}; expected one of "
                                    f"{', '.join(LINK_COSTS)}")
        if isinstance(groupings, (Mapping, np.ndarray)) or callable(groupings) \
                or not isinstance(groupings, Sequence) or not groupings:
            raise InvalidQueryError("groupings must be a non-empty list with one grouping "
                                    "per level above 0")
        reps = list(representatives or [])
        if len(reps) > len(groupings):
            raise InvalidQueryError(f"{len(reps)} representative tables for "
                                    f"{len(groupings)} levels")
        reps += [None] * (len(groupings) - len(reps))
        base0, labels0 = _base_csr(graph, groupings[0], positions)
        arrays: dict[str, np.ndarray] = {}
        labels: list[list[Any] | None] = [labels0]
        low = base0
        pos0 = base0.coords
        anc = np.arange(base0.num_nodes, dtype=np.int64)  # level-0 node -> group at level k
        for k, grouping in enumerate(groupings, start=1):
            low_labels = labels[k - 1]
            parent, group_labels = _grouping(grouping, low, low_labels, k)
            arrays[f"parent{k - 1}"] = parent
            anc = parent[anc]
            n_groups = len(group_labels)
            centroid = None
            if pos0 is not None:
                counts = np.bincount(anc, minlength=n_groups).astype(np.float64)
                centroid = np.stack([np.bincount(anc, weights=pos0[:, d], minlength=n_groups)
                                     for d in range(pos0.shape[1])], axis=1) / counts[:, None]
            src, dst, cost = _links(low, parent, n_groups, link_cost)
            level = CSRGraph.from_edges(n_groups, src, dst, cost, coords=centroid)
            rep = _representatives(low, parent, n_groups, centroid)
            chosen = reps[k - 1]
            if chosen:
                lookup_low = None if low_labels is None else \
                    {x: i for i, x in enumerate(low_labels)}
                lookup_up = {x: i for i, x in enumerate(group_labels)}
                for group, member in chosen.items():
                    gi = _find(lookup_up, group, f"group of level {k}")
                    if lookup_low is None:
                        mi = low.node(member, name=f"representative of {group!r}")
                    else:
                        mi = _find(lookup_low, member, f"node of level {k - 1}")
                    if parent[mi] != gi:
                        raise InvalidQueryError(f"representative {member!r} of group "
                                                f"{group!r} is not one of its members")
                    rep[gi] = mi
            arrays[f"rep{k}"] = rep
            arrays[f"indptr{k}"] = level.indptr
            arrays[f"indices{k}"] = level.indices
            arrays[f"weights{k}"] = level.weights
            arrays[f"coords{k}"] = level.coords if level.coords is not None else \
                np.empty((0, 2), dtype=np.float64)
            if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                   for x in group_labels):
                arrays[f"labels{k}"] = np.asarray(group_labels, dtype=np.int64).reshape(-1)
            labels.append(group_labels)
            low = level
        options = {"levels": len(groupings) + 1, "link_cost": link_cost}
        return cls(base0, arrays, options, time.perf_counter() - t0,
                   base=graph, labels=labels)

    @classmethod
    def _members(cls, world: CSRGraph, options: dict[str, Any]) -> dict[str, int]:
        levels = _saved.integer(_saved.option(options, "levels"), "option levels", 2, 64)
        _saved.choice(_saved.option(options, "link_cost"), "option link_cost", LINK_COSTS)
        # No level has more groups than the level below has nodes, nor more links than the
        # base graph has edges.
        n, m = world.num_nodes, world.num_edges
        out = {f"parent{k}": 8 * n for k in range(levels - 1)}
        for k in range(1, levels):
            out.update({f"indptr{k}": 8 * (n + 1), f"indices{k}": 4 * m, f"weights{k}": 8 * m,
                        f"coords{k}": 24 * max(n, 1), f"rep{k}": 8 * n, f"labels{k}": 8 * n})
        return out

    @classmethod
    def _restore(cls, world: CSRGraph, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> HierarchicalGraph:
        top = options["levels"] - 1
        sizes = [world.num_nodes]
        out: dict[str, np.ndarray] = {}
        for k in range(1, top + 1):
            labels = _saved.array(arrays, f"labels{k}", np.int64, (None,))
            n = len(labels)
            if n > sizes[-1] or (sizes[-1] and not n) or len(np.unique(labels)) != n:
                raise IndexFormatError(f"array 'labels{k}' must hold 1 to {sizes[-1]} distinct "
                                       f"group labels, got {n}")
            sizes.append(n)
            indptr = _saved.pointers(_saved.array(arrays, f"indptr{k}", np.int64, (n + 1,)),
                                      f"indptr{k}", len(arrays.get(f"indices{k}", ())))
            indices = _saved.values_in(_saved.array(arrays, f"indices{k}", np.int32, (None,)),
                                        f"indices{k}", 0, n - 1)
            weights = _saved.costs(_saved.array(arrays, f"weights{k}", np.float64,
                                                  (len(indices),)), f"weights{k}")
            coords = _saved.array(arrays, f"coords{k}", np.float64, (None, None))
            if coords.shape != (0, 2) and (coords.shape[0] != n or coords.shape[1] not in (2, 3)
                                           or not np.isfinite(coords).all()):
                raise IndexFormatError(f"array 'coords{k}' must be empty or hold {n} finite "
                                       f"positions, got shape {coords.shape}")
            out.update({f"labels{k}": labels, f"indptr{k}": indptr, f"indices{k}": indices,
                        f"weights{k}": weights, f"coords{k}": coords})
        for k in range(top):
            parent = _saved.values_in(_saved.array(arrays, f"parent{k}", np.int64,
                                                     (sizes[k],)), f"parent{k}", 0,
                                       sizes[k + 1] - 1)
            rep = _saved.values_in(_saved.array(arrays, f"rep{k + 1}", np.int64,
                                                  (sizes[k + 1],)), f"rep{k + 1}", 0,
                                    sizes[k] - 1)
            if np.any(parent[rep] != np.arange(sizes[k + 1])):
                raise IndexFormatError(f"array 'rep{k + 1}' names a representative outside "
                                       "its group")
            out.update({f"parent{k}": parent, f"rep{k + 1}": rep})
        try:
            return cls(world, out, options, build_time)
        except (InvalidGridError, ValueError) as exc:
            raise IndexFormatError(f"inconsistent hierarchy arrays ({exc})") from None

    def save(self, path: Any) -> None:
        """Write the hierarchy (``.npz``); needs a CSRGraph base and integer group labels."""
        if not isinstance(self.base, CSRGraph) or any(
                f"labels{k}" not in self.arrays for k in range(1, self.levels)):
            raise InvalidQueryError("only a hierarchy over a CSRGraph with integer group "
                                    "labels can be saved")
        super().save(path)

    # ------------------------------------------------------------------ queries
    @property
    def levels(self) -> int:
        """Number of levels, level 0 (the base graph) included."""
        return len(self._csr)

    @property
    def link_cost(self) -> str:
        return self.options["link_cost"]

    def num_nodes(self, level: int) -> int:
        return self._csr[self._level(level)].num_nodes

    def level_graph(self, level: int) -> Any:
        """Level 0: the base graph as given; above: a :class:`LevelGraph` of group labels."""
        k = self._level(level)
        if k == 0:
            return self.base
        labels, lookup = self._labels[k], self._lookup[k]
        assert labels is not None and lookup is not None  # every level above 0 is labelled
        return LevelGraph(self._csr[k], labels, lookup)

    def node_labels(self, level: int) -> list[Any]:
        """The nodes of ``level`` in index order (0..n-1)."""
        k = self._level(level)
        lab = self._labels[k]
        return list(range(self._csr[k].num_nodes)) if lab is None else list(lab)

    def get_node_at_level(self, in_level: int, node: Any, out_level: int) -> Any:
        """The node standing for ``node`` (of ``in_level``) at ``out_level``: its group
        (going up) or its representative, and the representative's, ... (going down)."""
        lo, hi = self._level(in_level), self._level(out_level)
        i = self._index(lo, node)
        if hi >= lo:
            for k in range(lo, hi):
                i = int(self._parent[k][i])
        else:
            for k in range(lo, hi, -1):
                i = int(self._rep[k][i])
        return self._label(hi, i)

    def representative(self, level: int, group: Any) -> Any:
        """The member (a node of ``level - 1``) that stands for ``group`` of ``level``."""
        k = self._level(level)
        if k == 0:
            raise InvalidQueryError("level 0 nodes have no representative")
        return self._label(k - 1, int(self._rep[k][self._index(k, group)]))

    def members(self, level: int, group: Any) -> list[Any]:
        """The nodes of ``level - 1`` in ``group`` of ``level``, in index order."""
        k = self._level(level)
        if k == 0:
            raise InvalidQueryError("level 0 nodes have no members")
        i = self._index(k, group)
        return [self._label(k - 1, int(j))
                for j in self._mem[k][self._mptr[k][i]:self._mptr[k][i + 1]]]

    # ------------------------------------------------------------------ internals
    def _level(self, level: Any) -> int:
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) \
                or not 0 <= level < len(self._csr):
            raise InvalidQueryError(f"level {level!r} is outside 0..{len(self._csr) - 1}")
        return int(level)

    def _index(self, level: int, node: Any) -> int:
        lookup = self._lookup[level]
        if lookup is None:
            return self._csr[level]._node(node)
        try:
            return lookup[node]
        except (KeyError, TypeError):
            raise InvalidQueryError(f"{node!r} is not a node of level {level}") from None

    def _label(self, level: int, index: int) -> Any:
        lab = self._labels[level]
        return index if lab is None else lab[index]

    def _group_members(self, level: int, groups: np.ndarray) -> np.ndarray:
        """Sorted level-(level-1) indices of the given groups of ``level``."""
        ptr, mem = self._mptr[level], self._mem[level]
        groups = np.asarray(groups, dtype=np.int64)
        counts = ptr[groups + 1] - ptr[groups]
        at = concatenated_ranges(ptr[groups], counts)
        return np.sort(mem[at])


def cell_grouping(cell_size: float, *, connected: bool = True) -> Callable[[CSRGraph], Any]:
    """A grouping for :meth:`HierarchicalGraph.build`: nodes in the same square (cube) cell
    of side ``cell_size`` (in position units) of a coarse grid form a group.

    With ``connected=True`` a cell's nodes are further split into the parts connected by
    edges inside the cell (either direction), so no group straddles a wall; nodes without
    any edge (e.g. blocked cells of a grid graph) share one group per cell.  Groups are
    numbered 0.. in order of their lowest node.  Needs node positions; O(m) numpy work plus
    one compiled component pass.
    """
    connected = flag("connected", connected)
    if isinstance(cell_size, bool) or not isinstance(cell_size, (int, float)) \
            or not math.isfinite(cell_size) or cell_size <= 0:
        raise InvalidQueryError(f"cell_size {cell_size!r} must be a finite number > 0")

    def group(level: CSRGraph) -> np.ndarray:
        if level.coords is None:
            raise InvalidQueryError("cell_grouping needs node positions")
        cells = np.floor(level.coords / cell_size).astype(np.int64)
        if not len(cells):
            return np.empty(0, dtype=np.int64)
        cells -= cells.min(axis=0)
        _, cell = np.unique(np.ravel_multi_index(cells.T, cells.max(axis=0) + 1),
                            return_inverse=True)
        cell = cell.reshape(-1)
        if connected:
            n = level.num_nodes
            src = np.repeat(np.arange(n), np.diff(level.indptr))
            keep = cell[src] == cell[level.indices]
            inner = CSRGraph.from_edges(n, src[keep], level.indices[keep],
                                        np.zeros(int(keep.sum())))
            isolated = (np.diff(level.indptr) == 0) & \
                (np.bincount(level.indices, minlength=n) == 0)
            cell = np.where(isolated, n + cell, inner.weak_components.astype(np.int64))
        _, first, inverse = np.unique(cell, return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(first))
        return rank[inverse.reshape(-1)]

    return group


# ---------------------------------------------------------------------- build helpers

def _find(lookup: dict[Any, int], key: Any, what: str) -> int:
    try:
        return lookup[key]
    except (KeyError, TypeError):
        raise InvalidQueryError(f"{key!r} is not a {what}") from None


def _base_csr(graph: Any, grouping: Any, positions: Any) -> tuple[CSRGraph, list[Any] | None]:
    """The base graph as a CSRGraph over indices, and its node labels (None: identity)."""
    if isinstance(graph, CSRGraph):
        if positions is not None:
            raise InvalidQueryError("a CSRGraph's positions are its coords; positions= is "
                                    "for other graphs")
        return graph, None
    if not hasattr(graph, "successors"):
        raise InvalidQueryError(f"{type(graph).__name__} is not a graph (no successors)")
    if not isinstance(grouping, Mapping):
        raise InvalidQueryError("the first grouping of a graph that is not a CSRGraph must "
                                "be a mapping {node: group} naming every node")
    nodes = list(grouping)
    lookup = {x: i for i, x in enumerate(nodes)}
    src, dst, cost = [], [], []
    for i, u in enumerate(nodes):
        for v, c in graph.successors(u):
            j = lookup.get(v)
            if j is None:
                raise InvalidQueryError(f"node {v!r} (reached from {u!r}) has no group in "
                                        "the first grouping")
            c = float(c)
            if not (c >= 0 and math.isfinite(c)):
                raise InvalidGridError(f"edge {u!r} -> {v!r} has cost {c!r}; costs must be "
                                       "finite and >= 0")
            src.append(i)
            dst.append(j)
            cost.append(c)
    coords = None if positions is None else _positions(positions, nodes)
    return CSRGraph.from_edges(len(nodes), np.array(src, dtype=np.int64),
                               np.array(dst, dtype=np.int64), cost, coords=coords), nodes


def _positions(positions: Any, nodes: list[Any]) -> np.ndarray:
    if isinstance(positions, Mapping):
        missing = [x for x in nodes if x not in positions]
        if missing:
            raise InvalidQueryError(f"positions has no entry for node {missing[0]!r}")
        return np.array([positions[x] for x in nodes], dtype=np.float64)
    return np.asarray(positions, dtype=np.float64)


def _grouping(grouping: Any, low: CSRGraph, low_labels: list[Any] | None,
              level: int) -> tuple[np.ndarray, list[Any]]:
    """(parent index per low node, group labels in index order)."""
    n = low.num_nodes
    if callable(grouping) and not isinstance(grouping, Mapping):
        grouping = grouping(low)
    if isinstance(grouping, Mapping):
        names = range(n) if low_labels is None else low_labels
        values = []
        for x in names:
            try:
                values.append(grouping[x])
            except (KeyError, TypeError):
                raise InvalidQueryError(f"grouping {level} has no group for node {x!r} of "
                                        f"level {level - 1}") from None
        lookup: dict[Any, int] = {}
        parent = np.empty(n, dtype=np.int64)
        for i, v in enumerate(values):
            try:
                parent[i] = lookup.setdefault(v, len(lookup))
            except TypeError:
                raise InvalidQueryError(f"group {v!r} of node {names[i]!r} is not "
                                        "hashable") from None
        return parent, list(lookup)
    arr = np.asarray(grouping)
    if arr.shape != (n,) or (n and not np.issubdtype(arr.dtype, np.integer)):
        raise InvalidQueryError(f"grouping {level} must be a mapping or an integer array of "
                                f"shape ({n},), got {arr.dtype} {arr.shape}")
    labels, parent = np.unique(arr, return_inverse=True)
    return parent.reshape(-1).astype(np.int64), labels.tolist()


def _links(low: CSRGraph, parent: np.ndarray, n_groups: int,
           method: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linked group pairs (sorted by source, then target) and their link costs."""
    src = np.repeat(np.arange(low.num_nodes, dtype=np.int64), np.diff(low.indptr))
    dst = low.indices.astype(np.int64)
    w = low.weights
    ps, pd = parent[src], parent[dst]
    cross = ps != pd
    cu, cv, cw, cs, cd = src[cross], dst[cross], w[cross], ps[cross], pd[cross]
    key = cs * n_groups + cd
    order = np.lexsort((cw, key))
    key_sorted = key[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = key_sorted[1:] != key_sorted[:-1]
    pair_keys = key_sorted[first]
    minimum = cw[order][first]
    gs, gd = pair_keys // n_groups, pair_keys % n_groups
    if method == "minimum" or not len(pair_keys):
        return gs, gd, minimum
    intra = ~cross
    members = np.argsort(parent, kind="stable")
    mptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent, minlength=n_groups), out=mptr[1:])
    # intra edges grouped by group (sources sorted, so edges stay in CSR order per group)
    iu, iv, iw = src[intra], dst[intra], w[intra]
    iorder = np.argsort(ps[intra], kind="stable")
    iu, iv, iw = iu[iorder], iv[iorder], iw[iorder]
    iptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(ps[intra], minlength=n_groups), out=iptr[1:])
    # outgoing cross edges grouped by (source group, target group): the sorted order above
    out_u, out_w, out_key = cu[order], cw[order], key_sorted
    # incoming cross edges grouped by target group
    inorder = np.argsort(cd, kind="stable")
    in_v, in_from = cv[inorder], cs[inorder]
    inptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(cd, minlength=n_groups), out=inptr[1:])
    pair_lo = np.searchsorted(out_key, pair_keys, side="left")
    pair_hi = np.searchsorted(out_key, pair_keys, side="right")
    costs = minimum.copy()
    group_lo = np.searchsorted(gs, np.arange(n_groups), side="left")
    group_hi = np.searchsorted(gs, np.arange(n_groups), side="right")
    for x in np.flatnonzero(group_hi > group_lo).tolist():
        p_lo, p_hi = int(group_lo[x]), int(group_hi[x])
        entries_all = in_v[inptr[x]:inptr[x + 1]]
        from_all = in_from[inptr[x]:inptr[x + 1]]
        if not len(entries_all):
            continue
        mem = members[mptr[x]:mptr[x + 1]]
        m, k = len(mem), p_hi - p_lo
        # reversed in-group edges plus, per target group y, a source m + j -> each exit
        # toward y costing its link: distances from m + j are the entry values toward y
        e_lo, e_hi = int(pair_lo[p_lo]), int(pair_hi[p_hi - 1])
        exits = np.searchsorted(mem, out_u[e_lo:e_hi])
        sources = m + np.repeat(np.arange(k), pair_hi[p_lo:p_hi] - pair_lo[p_lo:p_hi])
        flood = CSRGraph.from_edges(
            m + k, np.concatenate([np.searchsorted(mem, iv[iptr[x]:iptr[x + 1]]), sources]),
            np.concatenate([np.searchsorted(mem, iu[iptr[x]:iptr[x + 1]]), exits]),
            np.concatenate([iw[iptr[x]:iptr[x + 1]], out_w[e_lo:e_hi]]))
        for j in range(k):
            y = gd[p_lo + j]
            entries = np.unique(entries_all[from_all != y])
            if not len(entries):
                continue
            values = flood.distances(m + j)[np.searchsorted(mem, entries)]
            values = values[np.isfinite(values)]
            if len(values):
                costs[p_lo + j] = values.max() if method == "maximin" else values.mean()
    return gs, gd, costs


def _representatives(low: CSRGraph, parent: np.ndarray, n_groups: int,
                     centroid: np.ndarray | None) -> np.ndarray:
    """The representative (a low index) of every group."""
    n = low.num_nodes
    if centroid is not None:
        dist = np.linalg.norm(low.coords - centroid[parent], axis=1)
        order = np.lexsort((np.arange(n), dist, parent))
        first = np.ones(n, dtype=bool)
        first[1:] = parent[order][1:] != parent[order][:-1]
        rep = np.empty(n_groups, dtype=np.int64)
        rep[parent[order][first]] = order[first]
        return rep
    members = np.argsort(parent, kind="stable")
    mptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent, minlength=n_groups), out=mptr[1:])
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(low.indptr))
    dst = low.indices.astype(np.int64)
    intra = parent[src] == parent[dst]
    iu, iv, iw = src[intra], dst[intra], low.weights[intra]
    iorder = np.argsort(parent[iu], kind="stable")
    iu, iv, iw = iu[iorder], iv[iorder], iw[iorder]
    iptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent[iu], minlength=n_groups), out=iptr[1:])
    rep = np.empty(n_groups, dtype=np.int64)
    for x in range(n_groups):
        mem = members[mptr[x]:mptr[x + 1]]
        if len(mem) <= 2:
            rep[x] = mem[0]
            continue
        a = np.searchsorted(mem, iu[iptr[x]:iptr[x + 1]])
        b = np.searchsorted(mem, iv[iptr[x]:iptr[x + 1]])
        sub = CSRGraph.from_edges(len(mem), a, b, iw[iptr[x]:iptr[x + 1]], directed=False)
        far = _farthest(sub.distances(0))
        d_far = sub.distances(far)
        end = _farthest(d_far)
        route = sub.find_path(far, end, method="dijkstra").path
        half = d_far[end] / 2.0
        rep[x] = mem[route[int(np.argmin(np.abs(d_far[route] - half)))]]
    return rep


def _farthest(dist: np.ndarray) -> int:
    """The lowest index at the largest finite distance."""
    return int(np.argmax(np.where(np.isfinite(dist), dist, -1.0)))
