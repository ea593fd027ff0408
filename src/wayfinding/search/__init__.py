"""Search over any world: one entry point that picks the compiled search where one exists.

>>> from wayfinding import Grid, find_path
>>> grid = Grid.from_ascii('''
... ..#
... ..#
... ...''')
>>> find_path(grid, (0, 0), (2, 2)).cost
3.414213562373095
>>> find_path(grid, (0, 0), (0, 0)).path.tolist()
[[0, 0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.csr import CSRGraph
from ..grid.grid import Grid
from ..grid.search import find_path as _grid_find_path
from ..results import PathResult
from .generic import TERMINATIONS, AStarSearch, astar, dijkstra, reachable_costs
from .hierarchical import (
    HierarchicalResult,
    hierarchical_path,
    hierarchical_path_exclusions,
    hierarchical_step,
)
from .hierarchy import LINK_COSTS, HierarchicalGraph, LevelGraph, cell_grouping
from .incremental import ADStar, AnytimePath, ARAStar, DStarLite, LPAStar
from .lowmem import LowMemoryResult, ida_star, memory_bounded_astar, sma_star
from .queues import BinaryHeap, BucketQueue
from .scheduler import PathRequest, PathScheduler
from .spacetime import ReservationTable, door, space_time_astar


def find_path(world: Any, start: Any, goal: Any, *, algo: str = "astar",
              heuristic: Any = None, **options: Any) -> PathResult:
    """Find a path in a :class:`Grid`, a :class:`CSRGraph` or any graph with ``successors``.

    Grids use the compiled searches (``algo``: see :data:`wayfinding.grid.ALGORITHMS`) unless
    ``heuristic`` is a callable or a table, or ``goal`` is open: a set of cells (any of them;
    the grid's heuristic is the minimum over them, which stays admissible) or a predicate
    ``goal(cell) -> bool`` (heuristic 0 unless one is given, called as ``h(cell, None)``).
    Those run the generic Python A* (``algo="astar"`` only; the compiled grid kernels take a
    single goal cell), so they are much slower on big maps; the path is an ``(n, 2)`` array
    ending at the goal reached.  CSR graphs use compiled A*/Dijkstra for one goal and the
    generic search for open goals.  Other graphs use :func:`astar` / :func:`dijkstra`.
    """
    custom = heuristic is not None and not isinstance(heuristic, str)
    open_goal = isinstance(goal, (set, frozenset)) or (
        callable(goal) and not isinstance(goal, (tuple, list, np.ndarray)))
    if isinstance(world, Grid) and not custom and not open_goal:
        return _grid_find_path(world, start, goal, algo=algo, heuristic=heuristic, **options)
    if isinstance(world, Grid):
        s = world.cell(start, name="start", passable=True)
        if isinstance(goal, (set, frozenset)):
            g: Any = frozenset(world.cell(c, name="goal", passable=True) for c in goal)
        elif open_goal:
            g = goal
        else:
            g = world.cell(goal, name="goal", passable=True)
        if open_goal and algo not in ("astar", "dijkstra"):
            from ..errors import InvalidQueryError

            raise InvalidQueryError(f"algorithm {algo!r} takes one goal cell; goal sets and "
                                    "predicates use 'astar' or 'dijkstra'")
        if algo == "dijkstra" and open_goal and not custom:
            r = dijkstra(world, s, g, **options)
        else:
            r = astar(world, s, g, heuristic=heuristic, **options)
        path = np.array(r.path, dtype=np.int64).reshape(-1, 2)
        return PathResult(path, r.cost, r.found, r.stats, r.algorithm)
    if isinstance(world, CSRGraph) and not custom and not open_goal:
        return world.find_path(start, goal, algo=algo, **options)
    if isinstance(world, CSRGraph) and open_goal and algo in ("astar", "dijkstra"):
        world.node(start, "start")
        r = dijkstra(world, start, goal, **options) if algo == "dijkstra" and not custom \
            else astar(world, start, goal, heuristic=heuristic, **options)
        r.path = np.asarray(r.path, dtype=np.int64)
        return r
    if algo == "dijkstra":
        return dijkstra(world, start, goal, **options)
    if algo != "astar":
        from ..errors import InvalidQueryError

        raise InvalidQueryError(f"algorithm {algo!r} needs a Grid; generic graphs support "
                                "'astar' and 'dijkstra'")
    return astar(world, start, goal, heuristic=heuristic, **options)


__all__ = ["TERMINATIONS", "AStarSearch", "BinaryHeap", "BucketQueue", "astar", "dijkstra",
           "find_path", "reachable_costs"]
__all__ += ["LINK_COSTS", "HierarchicalGraph", "HierarchicalResult", "LevelGraph",
            "LowMemoryResult", "cell_grouping", "hierarchical_path",
            "hierarchical_path_exclusions", "hierarchical_step", "ida_star",
            "memory_bounded_astar", "sma_star"]
__all__ += ["ADStar", "ARAStar", "AnytimePath", "DStarLite", "LPAStar", "PathRequest",
            "PathScheduler", "ReservationTable", "door", "space_time_astar"]
