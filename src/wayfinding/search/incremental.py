"""Incremental and anytime search on grids and ``CSRGraph``, compiled: LPA* (Koenig,
Likhachev and Furcy) and D* Lite (Koenig and Likhachev) repair the previous search after edge
costs change (``update_costs``, then ``replan``); D* Lite also follows an agent that moves
(``move_start``), searching backwards from the goal so that its work stays valid.  ARA* and
AD* (Likhachev et al.) answer first with an inflated heuristic (a path within ``epsilon``
times the optimum) and improve it round by round within a budget per call (``plan``),
reusing their work; AD* also repairs and follows the agent.

A planner keeps its search between calls: one thread at a time (a call while another
thread's runs raises :class:`~wayfinding.errors.ConcurrentUseError`).

On a grid the nodes are cells (``y * W + x``) and every pair of neighbouring cells has an
edge whose cost follows the grid's diagonal rule and the current cell costs, so blocking
or freeing a cell (``update_costs({(x, y): cost})``, ``inf`` blocks) changes only costs.
On a ``CSRGraph`` the edges are the graph's (ids in its CSR order; ``update_costs`` takes
``{(u, v): cost}`` or ``{edge_id: cost}``).  Many changes at once go faster as arrays:
``update_costs(keys, costs=values)`` with ``keys`` a ``(k, 2)`` integer array of ``(x, y)``
cells on a grid, a ``(k,)`` integer array of edge ids or a ``(k, 2)`` one of ``(u, v)``
node pairs on a graph, and ``values`` their ``(k,)`` new costs or one cost for all; it
changes what ``update_costs(dict(zip(keys, values)))`` would (a key given twice takes its
last cost), is checked as strictly and repairs the same way.

Building a planner on a grid takes constant time: the grid's costs are read in place (the
changed cells are kept apart), and a node's state is created when a search first reaches
it, so the first plan expands about as many cells as A* (in 0.8–1.09× its time on the
Moving AI maps of BENCHMARKS.md, 0.94–1.0× on an open 1024² grid, 0.75–1.03× on an open
4096² grid whose node memory is above the pool's cap).  That first search runs as one A*-like
loop that leaves the state LPA* would; it reads the grid's step masks when A* has built
them (and no cell cost when A* has found the grid uniform), and notes for each cell the
neighbour the path then steps to, so the first path reads no neighbours.
The first search breaks ties towards the target as A* does; once a change makes some
node's g too low, ties go to the smaller g, as the repairs need.

A freed planner's node memory (about 24 bytes per node of its world) is kept for the next
planner built on a world of at most that many nodes, whose first plan then finds it already
in memory, and so are its queue's arrays; one block is kept, the largest freed so far whose
searches touched no more than a cap (128 MiB unless ``planner_memory_cap(nbytes=...)`` sets
another; a block that touched more is freed at once).  On a grid whose node memory is above
the cap, the memory is laid out in tiles of 16 × 16 cells given out in the order the
searches reach them, so the block touches only those tiles (about 6 KiB each: a search
across an open 4096² grid reaches a few hundred) and is kept too.
:func:`release_planner_memory` frees it.

>>> from wayfinding.grid import Grid
>>> planner = DStarLite(Grid.from_ascii('''
... .....
... .....
... .....'''), (0, 1), (4, 1))
>>> planner.replan().cost
4.0
>>> planner.update_costs({(2, 1): float("inf")})          # a wall appears in the way
>>> round(planner.replan().cost, 4)
4.8284
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._kernels import _incremental
from .._scratch import SingleThread, exclusive
from .._validate import (
    CELL_COST_BOUNDS,
    INT64_MAX,
    MAX_COST,
    cell_cost_ok,
    flag,
    number,
    real_number,
    reals,
    step_budget,
)
from ..errors import InvalidQueryError, brief
from ..graph.csr import CSRGraph
from ..grid.grid import Grid
from ..grid.rules import Diagonal
from ..results import PathResult, SearchStats, Status, _fields_equal

_NO_NODES = np.empty(0, dtype=np.int64)


class _GridEdges:
    """A grid's cells as nodes, its steps between neighbouring cells as edges: nothing is
    built, the kernel reads the grid's costs in place (and keeps its own changed cells)."""

    def __init__(self, grid: Grid):
        self.grid = grid
        h, w = grid.shape
        self.shape = (h, w)
        self.n = h * w
        self.h_scale = grid.min_cost

    def core(self, root: int, target: int) -> _incremental.IncrementalCore:
        rule = self.grid.diagonal
        need = {Diagonal.NO_CORNER_CUTTING: 2, Diagonal.ALLOW_ONE_BLOCKED: 1}.get(rule, 0)
        core = _incremental.IncrementalCore.on_grid(
            self.grid.costs, need, rule is not Diagonal.NEVER, self.h_scale, root, target)
        # The grid's step masks when something (A*) built them already: the first search
        # reads one per cell, and no cell cost when the grid is known to be uniform.
        # Building either here would cost a pass over the whole grid.
        moves = vars(self.grid).get("moves")
        if moves is not None:
            core.use_moves(moves, vars(self.grid).get("is_uniform", False))
        core.unit = _unit(self.h_scale)
        core.reset_keys()                   # the root's, queued in that unit
        return core

    @cached_property
    def coords(self) -> np.ndarray:
        """Every node's (x, y)."""
        ys, xs = np.mgrid[0:self.shape[0], 0:self.shape[1]]
        return np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)

    def node(self, value: Any, name: str) -> int:
        x, y = self.grid.cell(value, name=name)
        return y * self.shape[1] + x

    def apply(self, changes: Any, costs: Any, core: _incremental.IncrementalCore,
              backward: bool) -> tuple[float, float]:
        """Apply ``{(x, y): cost}`` (``costs`` None) or cells ``changes`` with ``costs``: the
        kernel updates the nodes whose steps change.  Returns the lowest cost per unit
        length a changed step may have, and the least new cost."""
        if costs is None:
            cells, values = [], []
            for cell, cost in _mapping(changes).items():
                cells.append(self.grid.cell(cell, name="changed cell"))
                values.append(real_number(cost))
                if not cell_cost_ok(values[-1]):
                    raise InvalidQueryError(f"cost {cost!r} of cell {cells[-1]} must be "
                                            f"{CELL_COST_BOUNDS} (inf blocks it)")
            xy = np.array(cells, dtype=np.int64).reshape(-1, 2)
            value = np.array(values, dtype=np.float64)
        else:
            xy, value = self._arrays(changes, costs)
        if not len(xy):
            return math.inf, math.inf
        return float(core.set_cells(xy, value)), _least(value)

    def _arrays(self, changes: Any, costs: Any) -> tuple[np.ndarray, np.ndarray]:
        """Cells ``changes`` ((k, 2) integers) and their ``costs`` checked as the mapping
        form checks them, in order (the first bad pair raises); a cell given twice keeps
        its last cost."""
        xy = _keys("changed cells", changes, "a (k, 2) array of (x, y) cells", ((2,),))
        value = _costs(costs, len(xy))
        h, w = self.shape
        bad_cell = (xy[:, 0] < 0) | (xy[:, 0] >= w) | (xy[:, 1] < 0) | (xy[:, 1] >= h)
        bad = bad_cell | ~cell_cost_ok(value)
        if bad.any():
            i = int(np.argmax(bad))
            cell = self.grid.cell(tuple(xy[i].tolist()), name="changed cell")
            raise InvalidQueryError(f"cost {float(value[i])!r} of cell {cell} must be "
                                    f"{CELL_COST_BOUNDS} (inf blocks it)")
        keep = _last(xy[:, 1] * w + xy[:, 0])
        return np.ascontiguousarray(xy[keep]), value[keep]

    def path(self, nodes: np.ndarray) -> np.ndarray:
        return _incremental.grid_cells(nodes, self.shape[1])

    def route(self, core: _incremental.IncrementalCore,
              backward: bool) -> tuple[np.ndarray, float]:
        """The current path from start to goal as ``(n, 2)`` cells, and its cost (empty and
        inf when there is none), in one pass of the kernel."""
        return core.cells(core.target, self.n, not backward)


class _GraphEdges:
    """A ``CSRGraph``'s edges with mutable costs."""

    def __init__(self, graph: CSRGraph):
        self.graph = graph
        self.n = graph.num_nodes
        self.src = np.repeat(np.arange(self.n), np.diff(graph.indptr)).astype(np.int64)
        self.dst = np.asarray(graph.indices, dtype=np.int64)
        self.cost = np.array(graph.weights, dtype=np.float64)
        coords = graph.coords
        self.coords = np.zeros((self.n, 2)) if coords is None else \
            np.ascontiguousarray(coords[:, :2], dtype=np.float64)
        self.h_scale = graph.heuristic_scale
        self.by_source = np.asarray(graph.indptr, dtype=np.int64)

    def core(self, root: int, target: int, backward: bool) -> _incremental.IncrementalCore:
        ids = np.arange(len(self.src), dtype=np.int64)
        if backward:            # rhs reads out-edges; changes push to predecessors
            pull = _csr(self.n, self.src, self.dst, ids)
            push = _csr(self.n, self.dst, self.src, ids)
        else:
            pull = _csr(self.n, self.dst, self.src, ids)
            push = _csr(self.n, self.src, self.dst, ids)
        core = _incremental.IncrementalCore.on_graph(
            self.n, *pull, *push, self.cost, self.coords, self.h_scale, root, target)
        core.unit = _unit(_least(self.cost))
        core.reset_keys()                   # the root's, queued in that unit
        return core

    def node(self, value: Any, name: str) -> int:
        return self.graph._node(value, name=name)

    def apply(self, changes: Any, costs: Any, core: _incremental.IncrementalCore,
              backward: bool) -> tuple[float, float]:
        """Apply ``{(u, v): cost}`` or ``{edge_id: cost}`` (``costs`` None), or edges
        ``changes`` with ``costs``, and update ``core``'s nodes the changed edges pull into.
        Returns the lowest cost per unit length among them, and the least new cost above
        0."""
        if costs is None:
            edges = []
            for key, cost in _mapping(changes).items():
                if isinstance(key, tuple):
                    if len(key) != 2:
                        raise InvalidQueryError(f"changed edge {brief(key)} must be (u, v) "
                                                "or an edge id")
                    hits = self._edges_between(*(self.graph._node(k, name="edge end")
                                                 for k in key))
                else:
                    if isinstance(key, bool) or not isinstance(key, (int, np.integer)) \
                            or not 0 <= key < len(self.cost):
                        raise InvalidQueryError(f"edge id {key!r} is out of range")
                    hits = np.array([key])
                value = real_number(cost)
                if not _edge_cost_ok(value):
                    raise InvalidQueryError(f"edge cost {cost!r} must be >= 0 and at most "
                                            f"{2 * MAX_COST:g} (inf removes it)")
                edges.append((hits, np.full(len(hits), value)))
            if not edges:
                return math.inf, math.inf
            ids = np.concatenate([hits for hits, _ in edges])
            values = np.concatenate([v for _, v in edges])
        else:
            ids, values = self._arrays(changes, costs)
            if not len(ids):
                return math.inf, math.inf
        keep = _last(ids)            # all checked above: bad input changed nothing
        self.cost[ids[keep]] = values[keep]
        length = np.hypot(*(self.coords[self.dst[ids]] - self.coords[self.src[ids]]).T)
        ok = (length > 0) & np.isfinite(self.cost[ids])
        core.nodes_changed(np.unique((self.src if backward else self.dst)[ids]))
        return float((self.cost[ids][ok] / length[ok]).min(initial=math.inf)), _least(values)

    def _edges_between(self, u: int, v: int) -> np.ndarray:
        """The ids of the edges ``u`` -> ``v`` (all of them, when parallel)."""
        lo, hi = self.by_source[u], self.by_source[u + 1]
        hits = lo + np.flatnonzero(self.dst[lo:hi] == v)
        if not len(hits):
            raise InvalidQueryError(f"no edge {u} -> {v} in the graph")
        return hits

    @cached_property
    def _pair_order(self) -> tuple[np.ndarray, np.ndarray]:
        """The edge ids sorted by (source, target) and their keys ``source * n + target``."""
        order = np.lexsort((self.dst, self.src))
        return order, self.src[order] * self.n + self.dst[order]

    def _arrays(self, changes: Any, costs: Any) -> tuple[np.ndarray, np.ndarray]:
        """Edge ids ((k,) integers) or node pairs ((k, 2) integers) ``changes`` and their
        ``costs`` checked as the mapping form checks them, in order (the first bad pair
        raises): the ids of the edges they change and the new costs, one per id."""
        keys = _keys("changed edges", changes, "a (k,) array of edge ids or a (k, 2) array "
                     "of (u, v) node pairs", ((), (2,)))
        value = _costs(costs, len(keys))
        bad_cost = ~_edge_cost_ok(value)
        if keys.ndim == 1:
            bad = bad_cost | (keys < 0) | (keys >= len(self.cost))
            if bad.any():
                i = int(np.argmax(bad))
                if not 0 <= keys[i] < len(self.cost):
                    raise InvalidQueryError(f"edge id {int(keys[i])!r} is out of range")
                raise InvalidQueryError(f"edge cost {float(value[i])!r} must be >= 0 and at "
                                        f"most {2 * MAX_COST:g} (inf removes it)")
            return keys, value
        order, sorted_keys = self._pair_order
        bad_node = ((keys < 0) | (keys >= self.n)).any(axis=1)
        key = np.where(bad_node, -1, keys[:, 0] * self.n + keys[:, 1])
        lo = np.searchsorted(sorted_keys, key, side="left")
        hi = np.searchsorted(sorted_keys, key, side="right")
        bad = bad_node | (lo == hi) | bad_cost
        if bad.any():
            i = int(np.argmax(bad))
            if bad_node[i] or lo[i] == hi[i]:
                self._edges_between(*(self.graph._node(int(k), name="edge end")
                                      for k in keys[i]))
            raise InvalidQueryError(f"edge cost {float(value[i])!r} must be >= 0 and at "
                                    f"most {2 * MAX_COST:g} (inf removes it)")
        hits = hi - lo                 # parallel edges: every one changes
        first = np.repeat(lo - np.cumsum(hits) + hits, hits)
        return order[first + np.arange(len(first))], np.repeat(value, hits)

    def path(self, nodes: np.ndarray) -> np.ndarray:
        return nodes

    def route(self, core: _incremental.IncrementalCore,
              backward: bool) -> tuple[np.ndarray, float]:
        """The current path from start to goal (node ids) and its cost (empty and inf when
        there is none)."""
        nodes, _, cost = core.walk(core.target, self.n)
        return (nodes if backward else nodes[::-1]), cost


def _mapping(changes: Any) -> dict[Any, Any]:
    """``changes`` as a dict of its key-cost pairs (a mapping, or an iterable of pairs)."""
    if isinstance(changes, np.ndarray):
        raise InvalidQueryError(f"changes {brief(changes)} is an array: give the new costs "
                                "with costs=")
    try:
        return dict(changes)
    except (TypeError, ValueError):
        raise InvalidQueryError(f"changes {brief(changes)} must be a mapping {{key: cost}}, "
                                "or an array of keys with costs=") from None


def _keys(name: str, value: Any, what: str, rows: tuple[Any, ...]) -> np.ndarray:
    """``value`` as an int64 array of keys, one per row of a shape in ``rows`` (``()``: a
    flat array, ``(2,)``: pairs); an empty array of any shape holds none."""
    arr = np.asarray(value)
    if isinstance(value, Mapping) or arr.dtype == object:
        raise InvalidQueryError(f"{name} {brief(value)} must be {what} (a mapping holds its "
                                "own costs: leave costs= out)")
    if arr.size == 0:
        arr = arr.reshape((0, *rows[0]))
    if arr.shape[1:] not in rows or arr.ndim == 0:
        raise InvalidQueryError(f"{name} must be {what}, got shape {arr.shape}")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        raise InvalidQueryError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.size and arr.dtype == np.uint64 and arr.max() > INT64_MAX:
        raise InvalidQueryError(f"{name} hold {int(arr.max())}, beyond any index")
    return arr.astype(np.int64, copy=False)


def _costs(costs: Any, k: int) -> np.ndarray:
    """``costs`` as ``(k,)`` float64: one number for every key, or one per key."""
    value = reals("costs", costs)
    if value.shape not in ((), (k,)):
        raise InvalidQueryError(f"costs must be one number or ({k},) for the {k} keys, got "
                                f"shape {value.shape}")
    return np.broadcast_to(value, (k,))


def _edge_cost_ok(value: Any) -> Any:
    """Whether an edge's new cost is one a ``CSRGraph`` holds: >= 0 and at most twice
    ``MAX_COST``, or inf (NaN is not)."""
    return (value >= 0) & ((value <= 2 * MAX_COST) | (value == math.inf))


def _least(costs: np.ndarray) -> float:
    """The least of ``costs`` above 0 and finite (inf when none is)."""
    return float(costs[(costs > 0) & (costs < math.inf)].min(initial=math.inf))


def _unit(least: float) -> float:
    """The unit of a core's key rounding and tie tolerances: the power of two at or below
    the least step's cost ``least`` where that is below 1 (else 1), at least 2**-128 so
    that keys of any cost a world holds stay finite in it."""
    if not least < 1.0:
        return 1.0
    return math.ldexp(1.0, max(-128, math.frexp(least)[1] - 1))


def _last(keys: np.ndarray) -> np.ndarray:
    """The positions of the last occurrence of each distinct key (as a dict built from the
    pairs keeps them)."""
    back = np.unique(keys[::-1], return_index=True)[1]
    return len(keys) - 1 - back


def release_planner_memory() -> int:
    """Free the node memory (and the queue arrays) kept from freed planners for the next
    ones.

    Returns
    -------
    int
        The bytes of node memory the searches had touched (0 when none was kept).
    """
    return int(_incremental.release_pool())


def planner_memory_cap(*, nbytes: int | None = None) -> int:
    """The most node memory kept from freed planners for the next ones.

    Parameters
    ----------
    nbytes : int, optional
        A new cap in bytes (>= 0; 0 keeps nothing).  A kept block whose searches touched
        more is freed at once, and so is a freed planner's block rather than kept.

    Returns
    -------
    int
        The cap in force before the call, in bytes.
    """
    if nbytes is None:
        return int(_incremental.pool_cap())
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes < 0:
        raise InvalidQueryError(f"nbytes must be an int >= 0, got {brief(nbytes)}")
    return int(_incremental.pool_cap(int(nbytes)))


def _edges(world: Any) -> _GridEdges | _GraphEdges:
    if isinstance(world, Grid):
        return _GridEdges(world)
    if isinstance(world, CSRGraph):
        return _GraphEdges(world)
    raise InvalidQueryError(f"incremental search needs a Grid or a CSRGraph, got "
                            f"{type(world).__name__}")


def _csr(n: int, keys: np.ndarray, other: np.ndarray,
         ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = np.argsort(keys, kind="stable")
    ptr = np.searchsorted(keys[order], np.arange(n + 1)).astype(np.int64)
    return ptr, other[order].astype(np.int32), ids[order].astype(np.int64)


class _Incremental(SingleThread):
    backward = False

    def __init__(self, world: Grid | CSRGraph, start: Any, goal: Any):
        self._e = e = _edges(world)
        self.start = e.node(start, name="start")
        self.goal = e.node(goal, name="goal")
        root, target = (self.goal, self.start) if self.backward else (self.start, self.goal)
        self._core = e.core(root, target) if isinstance(e, _GridEdges) else \
            e.core(root, target, self.backward)

    def _afresh(self) -> None:
        """Forget the search (the next ``compute`` starts a new one).  A repair leaves the
        target a g that no path from the root gives (the path walk then finds no way, or
        a dearer one) when a cost rose under a cycle of zero cost, or of steps below the
        rounding of g: the nodes on it keep each other's old g, each the other's least
        pull."""
        root, target = (self.goal, self.start) if self.backward else (self.start, self.goal)
        self._core.restart(root, target)

    def _move_target(self, start: Any) -> None:
        """A backward search's target (the agent) moved to ``start``.  Queued keys stay
        lower bounds (km grows by the heuristic's step): they are refreshed lazily when
        popped."""
        s = self._e.node(start, name="start")
        self._core.move_target(s)
        self.start = s

    @exclusive
    def update_costs(self, changes: Any, *, costs: Any = None) -> None:
        """Change edge costs: ``changes`` a mapping ``{key: cost}``, or with ``costs`` an
        array of keys and their new costs (see the module).  Bad input raises
        :class:`~wayfinding.errors.InvalidQueryError` and changes nothing.  The next
        :meth:`replan` repairs the search."""
        floor, least = self._e.apply(changes, costs, self._core, self.backward)
        # Keep the heuristic admissible (no edge may cost less per unit of length) and the
        # keys' unit at most the least step's cost.
        unit = _unit(least)
        if floor < self._core.h_scale or unit < self._core.unit:
            self._core.h_scale = min(floor, self._core.h_scale)
            self._core.unit = min(unit, self._core.unit)
            self._core.reset_keys()

    @exclusive
    def replan(self) -> PathResult:
        """Repair the search and return the current shortest path (start to goal); its
        cost is the sum of its edges' costs."""
        t0 = time.perf_counter()
        before = self._core.expanded
        g = self._core.compute()            # the target's g: no budget, never None
        path, cost = self._e.route(self._core, self.backward)
        if g is not None and not cost <= g * (1.0 + 1e-9):   # see _afresh
            self._afresh()
            self._core.compute()
            path, cost = self._e.route(self._core, self.backward)
        stats = SearchStats(expanded=int(self._core.expanded - before))
        stats.elapsed = time.perf_counter() - t0
        name = "dstar_lite" if self.backward else "lpa_star"
        return PathResult(path, float(cost), len(path) > 0, stats, name)

    def _route(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The current path from start to goal: its node ids, the ids of its edges and its
        cost (empty and inf when there is none)."""
        nodes, edges, cost = self._core.walk(self._core.target, self._e.n)
        if self.backward:
            return nodes, edges, cost
        return nodes[::-1], edges[::-1], cost


@dataclass(slots=True, repr=False, kw_only=True)
class AnytimePath(PathResult):
    """A path of an anytime search: its cost is at most ``epsilon`` times the optimum
    (``epsilon`` 1: optimal).  ``epsilon`` is ``inf`` when no path is known, and when the
    path is the last round's, still open after a change (costs or the agent's position)
    that the round under way has not repaired yet: a valid path with no bound.  ``status``
    is ``FOUND`` with a path; without one, ``FAILED`` once a round has ended (no path
    exists) and ``OUT_OF_BUDGET`` while the round under way may still find one."""

    epsilon: float = math.inf

    __eq__ = _fields_equal


class _Anytime(_Incremental):
    """The anytime rounds shared by :class:`ARAStar` and :class:`ADStar`: ``epsilon`` the
    first round's inflation (>= 1), ``step`` how much each round lowers it (> 0),
    ``raise_epsilon`` whether a repair of a cut path starts at ``epsilon0``."""

    def __init__(self, world: Grid | CSRGraph, start: Any, goal: Any, *, epsilon: float = 2.5,
                 step: float = 0.5, raise_epsilon: bool = False):
        epsilon = number("epsilon", epsilon, min=1.0)
        step = number("step", step, min=0.0, min_open=True)
        raise_epsilon = flag("raise_epsilon", raise_epsilon)
        super().__init__(world, start, goal)
        self._core.anytime = True
        self._core.eps = float(epsilon)
        self.epsilon0, self.step = float(epsilon), float(step)
        self.raise_epsilon = raise_epsilon
        self._raise = False                # the next round starts at epsilon0
        self._done = False                 # the current round has finished
        self._forget()

    def _name(self) -> str:
        return "ad_star" if self.backward else "ara_star"

    def _forget(self) -> None:
        """No path published: ``_best`` empty (out of budget until a round ends),
        ``_best_route`` its node and edge ids."""
        self._best = AnytimePath(self._e.path(_NO_NODES), math.inf, False, SearchStats(),
                                 self._name(), status=Status.OUT_OF_BUDGET)
        self._best_route = (_NO_NODES, _NO_NODES)

    @exclusive
    def restart(self, start: Any, goal: Any) -> None:
        """A new search on the same world (the arrays are reused), at ``epsilon0``."""
        self.start = self._e.node(start, name="start")
        self.goal = self._e.node(goal, name="goal")
        root, target = (self.goal, self.start) if self.backward else (self.start, self.goal)
        self._core.restart(root, target)
        self._core.eps = self.epsilon0
        self._done = False
        self._forget()

    @exclusive
    def update_costs(self, changes: Any, *, costs: Any = None) -> None:
        """Change edge costs (a mapping, or keys with ``costs``: see the module); the
        repair runs as a new round at the current epsilon (at ``epsilon0`` with
        ``raise_epsilon`` if the published path lost an edge).  Until it ends, :meth:`plan`
        answers with the last path if it is still open (its new cost, ``epsilon`` inf),
        else with none."""
        super().update_costs(changes, costs=costs)
        self._stale()
        self._new_round()

    def _stale(self, first: int | None = 0) -> None:
        """The published path lost its bound: keep its part from node ``first`` on (None:
        none of it) with its current cost, if every edge is still open; a path dropped
        makes the next round start at ``epsilon0`` with ``raise_epsilon``."""
        found = self._best.found
        self._raise = False
        if first is not None and found:
            nodes, edges = (ids[first:] for ids in self._best_route)
            cost = float(self._core.edge_costs(np.ascontiguousarray(edges)).sum())
            if math.isfinite(cost):
                self._best = AnytimePath(self._e.path(nodes), cost, True, SearchStats(),
                                         self._name(), epsilon=math.inf)
                self._best_route = (nodes, edges)
                return
        self._forget()
        self._raise = found and self.raise_epsilon

    def _new_round(self) -> None:
        self._core.next_round(self.epsilon0 if self._raise else self._core.eps)
        self._done = False

    @exclusive
    def plan(self, *, max_expansions: int | None = None,
             max_seconds: float | None = None) -> AnytimePath:
        """Work within the budget (expansions and/or seconds; none: until optimal): finish
        the current round, publish its path, then lower epsilon by ``step`` (not below 1)
        and start the next.  Returns the best path published so far.  Budgets as
        :meth:`SlicedSearch.step <wayfinding.sliced.SlicedSearch.step>`: ``None`` or a
        number >= 0."""
        max_expansions, max_seconds = step_budget(max_expansions, max_seconds)
        t0 = time.perf_counter()
        core = self._core
        start = core.expanded

        def left() -> int:
            used = core.expanded - start
            if max_expansions is not None and used >= max_expansions:
                return 0
            if max_seconds is not None and time.perf_counter() - t0 >= max_seconds:
                return 0
            return -1 if max_expansions is None else max_expansions - used

        afresh = False
        while True:
            if not self._done:
                while True:
                    budget = left()
                    if budget == 0:
                        return self._publish(t0, start)
                    chunk = 4096 if max_seconds is not None else budget
                    if budget > 0:
                        chunk = min(chunk, budget)
                    g = core.compute(chunk)
                    if g is None:
                        continue
                    route = self._route()
                    if len(route[0]) or g == math.inf or afresh:
                        break
                    self._afresh()          # a g no path gives: see _afresh
                    afresh = True
                self._done = True
                self._best = self._result(core.eps, route)
            if core.eps <= 1.0 or left() == 0:
                return self._publish(t0, start)
            core.next_round(max(1.0, core.eps - self.step))
            self._done = False

    def _result(self, eps: float,
                route: tuple[np.ndarray, np.ndarray, float]) -> AnytimePath:
        nodes, edges, cost = route
        self._best_route = (nodes, edges)
        found = len(nodes) > 0
        return AnytimePath(self._e.path(nodes), float(cost), found, SearchStats(),
                           self._name(), epsilon=eps if found else math.inf)

    def _publish(self, t0: float, start: int) -> AnytimePath:
        b = self._best
        b.stats.expanded = int(self._core.expanded - start)
        b.stats.elapsed = time.perf_counter() - t0
        return b

    @property
    def epsilon(self) -> float:
        """The inflation of the round under way."""
        return float(self._core.eps)

    @property
    def finished(self) -> bool:
        """Whether the last round (epsilon 1) is done: the path is optimal (or none)."""
        return self._done and self._core.eps <= 1.0


class ARAStar(_Anytime):
    """Anytime Repairing A*: a forward search from ``start`` whose first path is within
    ``epsilon`` times the optimum; each round lowers epsilon by ``step`` and reuses the
    previous work, down to 1 (optimal).  With ``raise_epsilon`` a change that cuts the
    published path starts its repair at ``epsilon`` again (see :class:`ADStar`)."""


class ADStar(_Anytime):
    """Anytime Dynamic A*: ARA*'s rounds on D* Lite's backward search, so edge cost changes
    (:meth:`update_costs`) and agent moves (:meth:`move_start`) are repaired within the
    current epsilon.

    ``raise_epsilon`` (False by default): a change that leaves no published path (an edge
    of it removed, or the agent moved off it) starts its repair round at ``epsilon0``
    rather than at the current epsilon, so a path within ``epsilon0`` usually comes back
    within fewer expansions, and the next rounds refine it (Likhachev et al.'s "increase
    epsilon" after significant changes).  A change that leaves the path open keeps the
    current epsilon: the agent has a path to follow meanwhile."""

    backward = True

    @exclusive
    def move_start(self, start: Any) -> None:
        """The agent is now at ``start``; until the new round ends, :meth:`plan` answers
        with the rest of the last path if ``start`` is on it (``epsilon`` inf; off it, the
        round starts at ``epsilon0`` with ``raise_epsilon``)."""
        self._move_target(start)
        at = np.flatnonzero(self._best_route[0] == self.start)
        self._stale(int(at[0]) if len(at) else None)
        self._new_round()


class LPAStar(_Incremental):
    """Lifelong Planning A*: a forward search from ``start`` to ``goal`` that repairs itself
    after :meth:`update_costs`."""


class DStarLite(_Incremental):
    """D* Lite: a backward search from ``goal`` that repairs itself after
    :meth:`update_costs` and follows the agent (:meth:`move_start`)."""

    backward = True

    @exclusive
    def move_start(self, start: Any) -> None:
        """The agent is now at ``start`` (usually a step along the last path)."""
        self._move_target(start)
