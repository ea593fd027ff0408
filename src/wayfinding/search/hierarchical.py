"""Searches on a :class:`~wayfinding.search.hierarchy.HierarchicalGraph`.

* :func:`hierarchical_step` plans coarse and refines only the first step: it plans at the
  highest level where start and goal lie in different groups, takes the first step of that
  plan, and goes down a level, aiming at the representative of the group that step reaches
  (or at the goal's own ancestor when that group holds the goal), until level 0.  While no
  plan has been made, the goal itself is mapped up, never replaced by its top group.
* :func:`hierarchical_path` repeats the step from where the last one ended until the goal
  is reached: a complete, valid level-0 path.
* :func:`hierarchical_path_exclusions` plans fully at the top level and, at each level
  below, searches only the nodes whose group is on the plan of the level above.

Every search inside runs the compiled A* of :class:`~wayfinding.graph.CSRGraph` on one
level (or, for exclusions, on the part of it the plan allows).  The results are
approximate: the cost of a hierarchical path is never below the optimum but has no general
upper bound (the levels' link costs are estimates, and a coarse plan is kept even when a
shortcut through other groups exists).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._arrays import concatenated_ranges
from .._kernels import _csrsearch
from .._scratch import thread_workspace
from ..errors import InvalidQueryError, brief
from ..graph.csr import CSRGraph
from ..results import PathResult, SearchStats, _fields_equal
from .generic import astar
from .hierarchy import HierarchicalGraph


@dataclass(slots=True, repr=False, kw_only=True)
class HierarchicalResult(PathResult):
    """A level-0 :class:`~wayfinding.results.PathResult` with the plans made on the way.

    ``plans``: ``(level, nodes)`` of every search, top level first, nodes in the level's
    own form.  ``rounds``: the number of refinements (:func:`hierarchical_path`).
    ``fallback``: true when :func:`hierarchical_path` finished with a plain A* on level 0
    (a step failed or would have met a node twice; see there).
    ``reached_goal``: whether ``path`` ends at the goal (a single step usually stops
    earlier).
    """

    plans: list[tuple[int, list[Any]]] = field(default_factory=list)
    rounds: int = 0
    fallback: bool = False
    reached_goal: bool = False

    __eq__ = _fields_equal


def _nodes(h: HierarchicalGraph, level: int, indices: Any) -> list[Any]:
    return [h._label(level, int(i)) for i in indices]


def _level0_path(h: HierarchicalGraph, indices: list[int]) -> Any:
    if isinstance(h.base, CSRGraph):
        return np.asarray(indices, dtype=np.int64)
    return _nodes(h, 0, indices)


def _ancestors(h: HierarchicalGraph, i: int) -> list[int]:
    out = [i]
    for k in range(h.levels - 1):
        out.append(int(h._parent[k][out[-1]]))
    return out


def _step(h: HierarchicalGraph, s0: int, g0: int, stats: SearchStats,
          plans: list[tuple[int, list[Any]]]) -> tuple[list[int], float] | None:
    """One refinement on indices: the level-0 path and its cost, or None."""
    if s0 == g0:
        return [s0], 0.0
    sa, ga = _ancestors(h, s0), _ancestors(h, g0)
    target: int | None = None  # first-step node of the level above, once a plan exists
    for level in range(h.levels - 1, -1, -1):
        s = sa[level]
        if target is None:
            e = ga[level]
            if s == e:
                continue  # same group: go down, still aiming at the real goal
        else:
            e = ga[level] if target == ga[level + 1] else int(h._rep[level + 1][target])
        csr = h._csr[level]
        r = csr.find_path(s, e)
        stats.expanded += r.stats.expanded
        stats.generated += r.stats.generated
        stats.max_open = max(stats.max_open, r.stats.max_open)
        path = r.path.tolist()
        if not r.found and target is not None:
            # the representative is out of reach: aim at any member of the group instead
            ptr, mem = h._mptr[level + 1], h._mem[level + 1]
            group = set(mem[ptr[target]:ptr[target + 1]].tolist())
            r = astar(csr, s, group)
            stats.expanded += r.stats.expanded
            stats.generated += r.stats.generated
            path = list(r.path)
        if not r.found:
            return None
        plans.append((level, _nodes(h, level, path)))
        if level == 0:
            return path, float(r.cost)
        target = path[1]
    raise AssertionError("unreachable: level 0 always plans")  # pragma: no cover


def hierarchical_step(h: HierarchicalGraph, start: Any, goal: Any) -> HierarchicalResult:
    """The level-0 path from ``start`` toward ``goal`` up to the end of the first step of
    the coarse plan (see the module docstring).

    The step's path is found (``found``, ``status`` FOUND) when every plan on the way
    succeeds, whether or not it ends at the goal: ``reached_goal`` tells, and is false for
    a step that stops at the representative (or a member) of the next group of the coarse
    plan.  ``found=False`` (``status`` FAILED) when a plan fails on the way (the goal is
    unreachable, or, in graphs whose groups are not connected inside, no member of the
    next group is reachable).
    ``path`` is a list of nodes (an int64 array for a CSRGraph base); ``cost`` its true
    level-0 cost.  Unknown nodes raise :class:`~wayfinding.errors.InvalidQueryError`.

    Costs O(levels) searches, each over one level's graph (stopping at a nearby
    representative), instead of one search over the whole base graph.
    """
    t0 = time.perf_counter()
    _require_hierarchy(h)
    s0, g0 = h._index(0, start), h._index(0, goal)
    stats = SearchStats()
    plans: list[tuple[int, list[Any]]] = []
    out = _step(h, s0, g0, stats, plans)
    stats.elapsed = time.perf_counter() - t0
    if out is None:
        return HierarchicalResult(_level0_path(h, []), math.inf, False, stats,
                                  "hierarchical_step", plans=plans, rounds=1)
    path, cost = out
    return HierarchicalResult(_level0_path(h, path), cost, True, stats, "hierarchical_step",
                              plans=plans, rounds=1, reached_goal=path[-1] == g0)


def hierarchical_path(h: HierarchicalGraph, start: Any, goal: Any) -> HierarchicalResult:
    """A complete level-0 path: :func:`hierarchical_step` repeated from where the previous
    step ended, until the goal is reached.

    Each step moves into the next group of the current coarse plan.  A plain A* on level 0
    takes over, and ``fallback`` is set, when a step fails (no member of the next group is
    reachable, or the step ended on a node from which no plan leads on) or would end on a
    node already visited (possible with zero-cost links or unreachable representatives): it
    searches from the current node, and if the goal cannot be reached from there (in a
    directed graph the steps may have led into a dead end), from ``start`` again, replacing
    the path so far.  So ``found`` is false exactly when the goal is unreachable from
    ``start``.  ``plans`` keeps every plan of every round.  The cost is never below the
    optimum; it has no general upper bound.
    """
    t0 = time.perf_counter()
    _require_hierarchy(h)
    s0, g0 = h._index(0, start), h._index(0, goal)
    stats = SearchStats()
    plans: list[tuple[int, list[Any]]] = []
    path, cost = [s0], 0.0
    seen = {s0}
    rounds = 0
    fallback = False
    while path[-1] != g0:
        rounds += 1
        out = _step(h, path[-1], g0, stats, plans)
        if out is not None and out[0][-1] in seen:
            out = None
        if out is None:
            fallback = True
            r = h._csr[0].find_path(path[-1], g0)
            stats.expanded += r.stats.expanded
            stats.generated += r.stats.generated
            if not r.found and len(path) > 1:
                # the steps led where the goal cannot be reached (directed links): start over
                r = h._csr[0].find_path(s0, g0)
                stats.expanded += r.stats.expanded
                stats.generated += r.stats.generated
                path, cost = [s0], 0.0
            if not r.found:
                stats.elapsed = time.perf_counter() - t0
                return HierarchicalResult(_level0_path(h, []), math.inf, False, stats,
                                          "hierarchical", plans=plans, rounds=rounds,
                                          fallback=fallback)
            plans.append((0, _nodes(h, 0, r.path)))
            out = r.path.tolist(), float(r.cost)
        seg, c = out
        path.extend(seg[1:])
        cost += c
        seen.add(seg[-1])
    stats.elapsed = time.perf_counter() - t0
    return HierarchicalResult(_level0_path(h, path), cost, True, stats, "hierarchical",
                              plans=plans, rounds=rounds, fallback=fallback,
                              reached_goal=True)


def hierarchical_path_exclusions(h: HierarchicalGraph, start: Any,
                                 goal: Any) -> HierarchicalResult:
    """A complete level-0 path planned top-down with exclusions.

    At the highest level where start and goal differ, plan all the way to the goal's
    group; at each level below, search from the start's to the goal's node using only
    nodes whose group is on the plan just made (the others are switched off).  The search
    space shrinks to a corridor, but the best route may lie outside it, and when a group is
    not connected inside, the corridor may hold no path at all: then ``found`` is false
    although the goal may be reachable.  Each restricted search runs compiled over the
    corridor's subgraph, extracted in time proportional to its edges.
    """
    t0 = time.perf_counter()
    _require_hierarchy(h)
    s0, g0 = h._index(0, start), h._index(0, goal)
    stats = SearchStats()
    plans: list[tuple[int, list[Any]]] = []
    sa, ga = _ancestors(h, s0), _ancestors(h, g0)
    top = max((k for k in range(h.levels) if sa[k] != ga[k]), default=0)
    r = h._csr[top].find_path(sa[top], ga[top])
    _count(stats, r)
    if not r.found:
        return _failed(h, stats, plans, t0)
    allowed = r.path
    plans.append((top, _nodes(h, top, allowed)))
    cost = float(r.cost)
    for level in range(top - 1, -1, -1):
        nodes = h._group_members(level + 1, allowed)
        found, cost, allowed, exp, gen, mo = _corridor_search(h._csr[level], nodes,
                                                               sa[level], ga[level])
        stats.expanded += exp
        stats.generated += gen
        stats.max_open = max(stats.max_open, mo)
        if not found:
            return _failed(h, stats, plans, t0)
        plans.append((level, _nodes(h, level, allowed)))
    stats.elapsed = time.perf_counter() - t0
    return HierarchicalResult(_level0_path(h, allowed.tolist()), cost, True, stats,
                              "hierarchical_exclusions", plans=plans, rounds=1,
                              reached_goal=True)


def _count(stats: SearchStats, r: PathResult) -> None:
    stats.expanded += r.stats.expanded
    stats.generated += r.stats.generated
    stats.max_open = max(stats.max_open, r.stats.max_open)


def _failed(h: HierarchicalGraph, stats: SearchStats, plans: list, t0: float,
            ) -> HierarchicalResult:
    stats.elapsed = time.perf_counter() - t0
    return HierarchicalResult(_level0_path(h, []), math.inf, False, stats,
                              "hierarchical_exclusions", plans=plans, rounds=1)


def _corridor_search(csr: CSRGraph, nodes: np.ndarray, start: int, goal: int
                     ) -> tuple[bool, float, np.ndarray, int, int, int]:
    """Compiled A* from ``start`` to ``goal`` (indices into ``csr``) over the subgraph on
    the sorted node array ``nodes``: ``(found, cost, path in csr indices, expanded,
    generated, max_open)``.

    The subgraph is gathered in time proportional to the nodes' edges; its heuristic scale
    is the whole level's, which stays admissible on a subset of the edges.
    """
    starts, ends = csr.indptr[nodes], csr.indptr[nodes + 1]
    counts = ends - starts
    edges = concatenated_ranges(starts, counts)
    src = np.repeat(np.arange(len(nodes), dtype=np.int64), counts)
    tgt = csr.indices[edges]
    pos = np.minimum(np.searchsorted(nodes, tgt), len(nodes) - 1)
    keep = nodes[pos] == tgt
    indptr = np.zeros(len(nodes) + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[keep], minlength=len(nodes)), out=indptr[1:])
    coords = csr.coords[nodes] if csr.coords is not None else np.empty((0, 2))
    s, g = int(np.searchsorted(nodes, start)), int(np.searchsorted(nodes, goal))
    ws = thread_workspace(len(nodes))
    found, cost, exp, gen, mo = _csrsearch.search(
        ws, indptr, pos[keep].astype(np.int32), np.ascontiguousarray(csr.weights[edges][keep]),
        np.ascontiguousarray(coords), s, g, csr._hscale, False)
    path = nodes[ws.path_to(g)] if found else np.empty(0, dtype=np.int64)
    return bool(found), float(cost), path, int(exp), int(gen), int(mo)


def _require_hierarchy(h: Any) -> None:
    if not isinstance(h, HierarchicalGraph):
        raise InvalidQueryError(f"h {brief(h)} must be a HierarchicalGraph "
                                "(HierarchicalGraph.build)")
