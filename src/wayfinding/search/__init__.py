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

from .._deprecated import renamed_keywords
from ..errors import InvalidQueryError
from ..graph.csr import CSRGraph
from ..graph.positioned import PositionedGraph
from ..grid.grid import Grid
from ..grid.hex import HexGrid
from ..grid.search import GridSearch, _searcher
from ..navmesh.mesh import NavMesh
from ..results import PathResult
from ..sliced import SlicedSearch
from ..voxel.grid import VoxelGrid
from ..voxel.search import find_voxel_path
from .continuous import ContinuousPlanner, MovingObstacle, TimedPath
from .generic import (
    TERMINATIONS,
    AStarSearch,
    astar,
    dijkstra,
    reachable_costs,
    zero_heuristic,
)
from .hierarchical import (
    HierarchicalResult,
    hierarchical_path,
    hierarchical_path_exclusions,
    hierarchical_step,
)
from .hierarchy import LINK_COSTS, HierarchicalGraph, LevelGraph, cell_grouping
from .incremental import (
    ADStar,
    AnytimePath,
    ARAStar,
    DStarLite,
    LPAStar,
    planner_memory_cap,
    release_planner_memory,
)
from .lowmem import LowMemoryResult, ida_star, memory_bounded_astar, sma_star
from .queues import BinaryHeap, BucketQueue
from .scheduler import PathRequest, PathScheduler
from .spacetime import ReservationTable, door, space_time_astar


@renamed_keywords(algo="method")
def find_path(world: Any, start: Any, goal: Any, *, method: str = "astar",
              heuristic: Any = None, **options: Any) -> PathResult:
    """Find a path in a :class:`Grid`, a :class:`CSRGraph`, a
    :class:`~wayfinding.voxel.VoxelGrid` or any graph with ``successors``.

    Grids use the compiled searches (``method``: see :data:`wayfinding.grid.ALGORITHMS`) unless
    ``heuristic`` is a callable or a table, or ``goal`` is open: a set of cells (any of them;
    the grid's heuristic is the minimum over them, which stays admissible) or a predicate
    ``goal(cell) -> bool`` (heuristic 0 unless one is given, called as ``h(cell, None)``).
    Those run the generic Python A* (``method="astar"`` or ``"dijkstra"``; the compiled grid
    kernels take a single goal cell), so they are much slower on big maps; the path is an
    ``(n, 2)`` array ending at the goal reached.  CSR graphs use compiled A*/Dijkstra for one
    goal and the generic search for open goals.  Other graphs use :func:`astar` /
    :func:`dijkstra`.  Voxel grids use their compiled searches (``method``: see
    :data:`wayfinding.voxel.METHODS`; they take one goal voxel and no other option).
    ``constraints=`` (and ``t=``) search a grid's dense constraint domain (one goal cell, no
    user heuristic), or go with ``method`` and the other options to the ``find_path`` of a
    :class:`~wayfinding.navmesh.NavMesh` (``domain=``, ``spacing=``), a
    :class:`~wayfinding.graph.PositionedGraph`, a :class:`CSRGraph` with ``(n, 2)`` coords
    or a :class:`~wayfinding.grid.HexGrid` (one goal, no user heuristic).
    """
    if options.get("constraints") is not None:
        if isinstance(world, (NavMesh, PositionedGraph, CSRGraph, HexGrid)) \
                and heuristic is None and not _open_goal(goal):
            return world.find_path(start, goal, method=method, **options)
        if not (isinstance(world, Grid) and _compiled(world, heuristic, goal)):
            raise InvalidQueryError("constraints= needs a Grid, HexGrid or CSRGraph with one "
                                    "goal, a NavMesh or a PositionedGraph with one goal "
                                    "point, and no user heuristic")
    if isinstance(world, VoxelGrid) and heuristic is None and not options \
            and not _open_goal(goal):
        return find_voxel_path(world, start, goal, method=method)
    if _compiled(world, heuristic, goal):
        if isinstance(world, Grid):
            return _searcher(world).find_path(start, goal, method=method, heuristic=heuristic,
                                              **options)
        return world.find_path(start, goal, method=method, **options)
    max_expansions = options.pop("max_expansions", None)
    search = _generic(world, start, goal, method, heuristic, options)
    return search.run(max_expansions=max_expansions)


@renamed_keywords(algo="method")
def start_search(world: Any, start: Any, goal: Any, *, method: str = "astar",
                 heuristic: Any = None, **options: Any) -> SlicedSearch | AStarSearch:
    """Begin a search that runs in slices, for the same worlds and options as
    :func:`find_path` (see :mod:`wayfinding.sliced`): ``search.step(max_expansions=...,
    max_seconds=...)`` until it is no longer ``"running"``, then ``search.result()``, which
    equals :func:`find_path`'s.  Compiled searches get their own scratch.

    >>> from wayfinding import Grid
    >>> search = start_search(Grid.from_ascii("...."), (0, 0), (3, 0))
    >>> while search.step(max_expansions=1) == "running":
    ...     pass
    >>> search.status, search.result().cost
    (Status.FOUND, 3.0)
    """
    if options.get("constraints") is not None:
        raise InvalidQueryError("constrained searches do not run in slices: use find_path, "
                                "or a ConstraintPlanner's plan() with a budget")
    if _compiled(world, heuristic, goal):
        if isinstance(world, Grid):
            return GridSearch(world).start(start, goal, method=method, heuristic=heuristic,
                                           **options)
        return world.start(start, goal, method=method, **options)
    return _generic(world, start, goal, method, heuristic, options)


def _compiled(world: Any, heuristic: Any, goal: Any) -> bool:
    """Whether a query runs on a compiled search: one goal on a Grid or CSRGraph, and no
    user heuristic."""
    return isinstance(world, (Grid, CSRGraph)) and (
        heuristic is None or isinstance(heuristic, str)) and not _open_goal(goal)


def _open_goal(goal: Any) -> bool:
    return isinstance(goal, (set, frozenset)) or (
        callable(goal) and not isinstance(goal, (tuple, list, np.ndarray)))


def _generic(world: Any, start: Any, goal: Any, method: str, heuristic: Any,
             options: dict[str, Any]) -> AStarSearch:
    """The generic Python search for a query; grid cells and CSR nodes come back as
    arrays."""
    if method not in ("astar", "dijkstra"):
        if isinstance(world, Grid):
            raise InvalidQueryError(
                f"algorithm {method!r} takes one goal cell; goal sets and predicates (and user "
                "heuristics) use 'astar' or 'dijkstra'")
        raise InvalidQueryError(f"algorithm {method!r} needs a Grid; generic graphs support "
                                "'astar' and 'dijkstra'")
    if isinstance(world, Grid):
        start = world.cell(start, name="start", passable=True)
        if isinstance(goal, (set, frozenset)):
            goal = frozenset(world.cell(c, name="goal", passable=True) for c in goal)
        elif not _open_goal(goal):
            goal = world.cell(goal, name="goal", passable=True)
        options["path_dims"] = 2
    elif isinstance(world, CSRGraph):
        world.node(start, name="start")
        options["path_dims"] = 1
    if method == "dijkstra":
        if heuristic is not None:
            raise InvalidQueryError("dijkstra takes no heuristic; use astar")
        heuristic = zero_heuristic
    return AStarSearch(world, start, goal, heuristic=heuristic, **options)


__all__ = ["TERMINATIONS", "AStarSearch", "BinaryHeap", "BucketQueue", "astar", "dijkstra",
           "find_path", "reachable_costs", "start_search"]
__all__ += ["LINK_COSTS", "HierarchicalGraph", "HierarchicalResult", "LevelGraph",
            "LowMemoryResult", "cell_grouping", "hierarchical_path",
            "hierarchical_path_exclusions", "hierarchical_step", "ida_star",
            "memory_bounded_astar", "sma_star"]
__all__ += ["ADStar", "ARAStar", "AnytimePath", "ContinuousPlanner", "DStarLite", "LPAStar",
            "MovingObstacle", "PathRequest", "PathScheduler", "ReservationTable", "TimedPath",
            "door", "planner_memory_cap", "release_planner_memory", "space_time_astar"]
