"""Every grid path method by name, with the preprocessed indexes it needs.

The CLI's ``--method`` names, the scenario runner and the benchmarks all go through
:func:`make_solver`, which builds (or takes already built or loaded) indexes and returns a
``solve(start, goal) -> PathResult`` function.  The any-angle methods
(:mod:`~wayfinding.grid.anyangle`) return polylines in cell units instead of cells.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .._deprecated import renamed_keywords, warn
from .._index import check_world
from ..errors import InvalidQueryError, brief
from ..results import PathResult
from .anyangle import ANY_ANGLE, AnyAngle
from .differential import DifferentialHeuristic
from .goal_bounds import GoalBounds
from .grid import Grid
from .hpa import HPAStar
from .index import GridIndex
from .jps import JPSPlus
from .search import ALGORITHMS, GridSearch
from .subgoal import SubgoalGraph, SubgoalTable

#: The preprocessed index classes the methods use.
IndexClass = type[JPSPlus] | type[GoalBounds] | type[SubgoalGraph] | type[SubgoalTable] \
    | type[DifferentialHeuristic] | type[HPAStar]


@dataclass(frozen=True)
class IndexSpec:
    """One preprocessed index a method needs: its class and build options."""

    cls: IndexClass
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def name(self) -> str:
        levels = dict(self.options).get("levels", 1)
        return f"{self.cls.kind}2" if levels == 2 else self.cls.kind

    def matches(self, index: GridIndex) -> bool:
        return isinstance(index, self.cls) and all(
            index.options.get(k) == v for k, v in self.options)

    def build(self, grid: Grid, **extra: Any) -> GridIndex:
        return self.cls.build(grid, **dict(self.options), **extra)


JPS_PLUS = IndexSpec(JPSPlus)
GOAL_BOUNDS = IndexSpec(GoalBounds)
SUBGOAL = IndexSpec(SubgoalGraph, (("levels", 1),))
SUBGOAL2 = IndexSpec(SubgoalGraph, (("levels", 2),))
SUBGOAL_TABLE = IndexSpec(SubgoalTable)
DIFFERENTIAL = IndexSpec(DifferentialHeuristic)
HPA = IndexSpec(HPAStar, (("levels", 1),))
HPA2 = IndexSpec(HPAStar, (("levels", 2),))

#: Index kinds ``wayfinding index build`` knows, by name.
INDEX_SPECS = {s.name: s for s in (JPS_PLUS, GOAL_BOUNDS, SUBGOAL, SUBGOAL2, SUBGOAL_TABLE,
                                   DIFFERENTIAL,
                                   HPA, HPA2)}


@dataclass(frozen=True)
class Method:
    """A path method: what it is, the indexes it needs, and how it answers a query."""

    description: str
    needs: tuple[IndexSpec, ...]
    run: Callable[..., PathResult]


#: The preprocessed methods; the online ones are :data:`ALGORITHMS` of ``GridSearch``.
PREPROCESSED: dict[str, Method] = {
    "jps_plus": Method("JPS+: precomputed jump distances (optimal)", (JPS_PLUS,),
                       lambda ix, a, b: ix[0].find_path(a, b)),
    "jps_plus_buckets": Method(
        "JPS+ with a bucketed open list (cost <= optimal + 0.1)", (JPS_PLUS,),
        lambda ix, a, b: ix[0].find_path(a, b, buckets=True)),
    "astar_gb": Method("A* pruned by goal bounds (optimal)", (GOAL_BOUNDS,),
                       lambda ix, a, b: ix[0].find_path(a, b)),
    "jps_plus_gb": Method("JPS+ pruned by goal bounds (optimal)", (JPS_PLUS, GOAL_BOUNDS),
                          lambda ix, a, b: ix[0].find_path(a, b, bounds=ix[1])),
    "subgoal": Method("simple subgoal graph (optimal)", (SUBGOAL,),
                      lambda ix, a, b: ix[0].find_path(a, b)),
    "subgoal2": Method("two-level subgoal graph (optimal)", (SUBGOAL2,),
                       lambda ix, a, b: ix[0].find_path(a, b)),
    "subgoal_table": Method(
        "two-level subgoal graph with a distance table between its top-level subgoals "
        "(optimal)", (SUBGOAL_TABLE,), lambda ix, a, b: ix[0].find_path(a, b)),
    "astar_dh": Method("A* with a differential heuristic, 8 pivots (optimal)",
                       (DIFFERENTIAL,), lambda ix, a, b: ix[0].find_path(a, b)),
    "hpa": Method("HPA*, 16x16 clusters, refined in the corridor of clusters (near-optimal)",
                  (HPA,),
                  lambda ix, a, b: ix[0].find_path(a, b)),
    "hpa_smooth": Method("HPA*, 16x16 clusters, corridor, line-of-sight smoothing (near-optimal)",
                         (HPA,), lambda ix, a, b: ix[0].find_path(a, b, smooth=True)),
    "hpa2": Method("HPA*, two levels (16x16, 48x48 clusters; near-optimal)", (HPA2,),
                   lambda ix, a, b: ix[0].find_path(a, b)),
    "hpa2_smooth": Method("HPA*, two levels, line-of-sight smoothing (near-optimal)", (HPA2,),
                          lambda ix, a, b: ix[0].find_path(a, b, smooth=True)),
}

#: Every method name with a one-line description, online ones first, any-angle ones last.
METHODS = {**ALGORITHMS, **{k: m.description for k, m in PREPROCESSED.items()}, **ANY_ANGLE}

#: The preprocessed methods whose costs may exceed the optimum.
APPROXIMATE = frozenset({"jps_plus_buckets", "hpa", "hpa_smooth", "hpa2", "hpa2_smooth"})

#: The methods that always return optimal costs (BFS only on uniform 4-connected grids).
EXACT = frozenset(
    {"astar", "dijkstra", "bidirectional", "jps", "jps2", *PREPROCESSED} - APPROXIMATE)


@dataclass
class Solver:
    """Answers ``solver(start, goal) -> PathResult`` with one method; ``indexes`` are the
    indexes it uses, ``built`` those it had to build."""

    method: str
    run: Callable[[Any, Any], PathResult]
    indexes: list[GridIndex] = field(default_factory=list)
    built: list[GridIndex] = field(default_factory=list)

    def __call__(self, start: Any, goal: Any) -> PathResult:
        return self.run(start, goal)

    @property
    def algo(self) -> str:
        """Deprecated name of :attr:`method`."""
        warn("Solver.algo", "Solver.method")
        return self.method


#: The options of :meth:`GridSearch.find_path` a solver of an online method takes.
_SEARCH_OPTIONS = frozenset(inspect.signature(GridSearch.find_path).parameters) \
    - {"self", "start", "goal", "method"}


@renamed_keywords(algo="method")
def make_solver(grid: Grid, method: str, *, indexes: Iterable[GridIndex] = (),
                progress: bool | None = None, **options: Any) -> Solver:
    """A :class:`Solver` for ``method`` (a name of :data:`METHODS`) on ``grid``.

    ``indexes``: already built or loaded indexes to use; any other index the method needs is
    built here (goal bounds show ``progress``).  ``options`` go to
    :meth:`GridSearch.find_path` for the online methods; the preprocessed ones take none.
    """
    given = list(indexes)
    for ix in given:
        if not isinstance(ix, GridIndex):
            raise InvalidQueryError(f"indexes must hold built or loaded grid indexes, got "
                                    f"{brief(ix)}")
    if method in ALGORITHMS:
        unknown = sorted(set(options) - _SEARCH_OPTIONS)
        if unknown:
            raise InvalidQueryError(f"unknown search option {unknown[0]!r}; expected one of: "
                                    f"{', '.join(sorted(_SEARCH_OPTIONS))}")
        search = GridSearch(grid)
        return Solver(method, lambda a, b: search.find_path(a, b, method=method, **options))
    used = [k for k, v in options.items() if v is not None and (k, v) != ("agent_size", 1)]
    if method in ANY_ANGLE:
        if used:
            raise InvalidQueryError(f"{method} takes no search options (got {', '.join(used)})")
        paths = AnyAngle(grid)
        return Solver(method, lambda a, b: paths.find_path(a, b, method=method))
    entry = PREPROCESSED.get(method)
    if entry is None:
        raise InvalidQueryError(
            f"unknown method {method!r}; expected one of: {', '.join(METHODS)}")
    if used:
        raise InvalidQueryError(f"{method} takes no search options (got {', '.join(used)})")
    solver = Solver(method, lambda a, b: entry.run(solver.indexes, a, b))
    for spec in entry.needs:
        found = next((ix for ix in given if spec.matches(ix)), None)
        if found is not None:
            check_world(f"the {spec.name} index", found.grid, grid)
        if found is None:
            found = spec.build(grid, **({"progress": progress} if spec.cls is GoalBounds
                                        else {}))
            solver.built.append(found)
        solver.indexes.append(found)
    return solver
