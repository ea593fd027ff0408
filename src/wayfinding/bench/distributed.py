"""Batch work as Dask task graphs (the ``[dask]`` extra): whole Moving AI scenario sets and
goal-bound builds, many queries per task, on a ``LocalCluster`` or any ``distributed``
cluster (exit tables: :mod:`~wayfinding.bench.dask_exit_tables`; octrees:
:mod:`~wayfinding.bench.dask_octree`; clients: :mod:`~wayfinding.bench.dask_cluster`).

Results equal the serial run: :func:`solve_scenarios_dask` solves each problem with the same
solver as :func:`~wayfinding.bench.run_scenario`, with each map's preprocessed indexes built
once, and :func:`build_goal_bounds_dask` merges per-batch boxes into the arrays
:meth:`GoalBounds.build` gives.  Grids travel to the workers by pickling (scattered once per
map), so workers need no shared file system.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._validate import count
from ..errors import InvalidQueryError
from ..grid import Grid, Problem, Scenario, read_map, read_scen
from ..grid.anyangle import ANY_ANGLE, AnyAngle
from ..grid.goal_bounds import (
    GoalBounds,
    _build_options,
    _empty_boxes,
    _flood_plan,
    _run_chunk,
)
from ..grid.index import GridIndex
from ..grid.methods import ALGORITHMS, EXACT, METHODS, PREPROCESSED, make_solver
from ..results import PathResult, _fields_equal
from .dask_cluster import _client, _gather
from .scenarios import ScenarioReport, _valid, solve_problems


@dataclass
class ScenarioRun:
    """One scenario file solved on a cluster: the :class:`ScenarioReport` the serial run
    gives (times measured on the workers), and per problem, in file order, whether a path
    was ``found`` and its ``lengths`` (NaN where none was found)."""

    report: ScenarioReport
    found: np.ndarray
    lengths: np.ndarray

    __eq__ = _fields_equal


# ------------------------------------------------------------------------- scenarios

#: An index as it travels to the workers: its class, arrays, options and build time.
_Shipped = tuple[type[GridIndex], dict[str, np.ndarray], dict[str, Any], float]


def _build_indexes(grid: Grid, method: str) -> list[_Shipped]:
    """Build the indexes of a preprocessed ``method`` on ``grid`` (one task per map)."""
    solver = make_solver(grid, method, progress=False)
    return [(type(ix), ix.arrays, ix.options, ix.build_time) for ix in solver.indexes]


def _index_cost(shipped: list[_Shipped]) -> tuple[float, int]:
    """Seconds spent building the indexes and the bytes of their arrays."""
    return (sum(t for _, _, _, t in shipped),
            sum(a.nbytes for _, arrays, _, _ in shipped for a in arrays.values()))


def _solve_batch(grid: Grid, method: str, problems: list[Problem], options: dict[str, Any],
                 shipped: list[_Shipped]) -> tuple[dict[str, Any], list[float], list[Any]]:
    """Solve one batch on a worker with the indexes of its map: the measured fields of
    :func:`solve_problems`, the per-problem seconds and (found, cost) pairs."""
    indexes = [cls(grid, arrays, opts, t) for cls, arrays, opts, t in shipped]
    solve = make_solver(grid, method, indexes=indexes, progress=False, **options)
    exact = method in EXACT
    paths = AnyAngle(grid) if method in ANY_ANGLE else None
    seconds: list[float] = []
    outcome: list[Any] = []

    def timed(start: Any, goal: Any) -> PathResult:
        t0 = time.perf_counter()
        r = solve(start, goal)
        seconds.append(time.perf_counter() - t0)
        outcome.append((bool(r.found), float(r.cost) if r.found else math.nan))
        return r

    def correct(p: Problem, r: PathResult) -> bool:
        return p.matches(r.cost) if exact else _valid(grid, p, r, paths)

    measured = solve_problems(problems, timed, correct, label="", show_progress=False)
    return measured, seconds, outcome


def _report(path: str, map_path: str, method: str, problems: list[Problem],
            parts: list[tuple[dict[str, Any], list[float], list[Any]]],
            cost: tuple[float, int]) -> ScenarioRun:
    """Merge the batches of one file (in file order) and the ``(seconds, bytes)`` of its
    map's indexes into its :class:`ScenarioRun`."""
    seconds = [s for _, part, _ in parts for s in part]
    outcome = [o for _, _, part in parts for o in part]
    found = np.array([f for f, _ in outcome], dtype=bool)
    lengths = np.array([c for _, c in outcome], dtype=np.float64)
    optimal = np.array([p.optimal for p in problems], dtype=np.float64)
    rated = found & (optimal > 0)
    ratios = lengths[rated] / optimal[rated]
    us = np.array(seconds) * 1e6 if seconds else np.array([math.nan])
    expanded = sum(m["mean_expanded"] * m["problems"] for m, _, _ in parts)
    report = ScenarioReport(
        scenario=path, map=map_path, algorithm=method, problems=len(problems),
        solved=int(found.sum()), mismatches=sum(m["mismatches"] for m, _, _ in parts),
        median_us=float(np.median(us)), mean_us=float(np.mean(us)),
        p95_us=float(np.percentile(us, 95)), mean_expanded=expanded / max(len(problems), 1),
        preprocess_s=cost[0], index_bytes=cost[1],
        worst=[w for m, _, _ in parts for w in m["worst"]][:10], exact=method in EXACT,
        mean_ratio=float(np.mean(ratios)) if len(ratios) else math.nan,
        max_ratio=float(np.max(ratios)) if len(ratios) else math.nan)
    return ScenarioRun(report, found, lengths)


def solve_scenarios_dask(scenarios: Sequence[str | Path | Scenario], *, method: str = "astar",
                         client: Any = None, batch: int = 256,
                         maps: Sequence[str | Path] = (), progress: bool | None = None,
                         **options: Any) -> list[ScenarioRun]:
    """Solve every problem of several Moving AI scenario files as one Dask task graph.

    ``scenarios``: ``.scen`` paths or :class:`Scenario` objects (their maps found as
    :meth:`Scenario.find_map` finds them, also in ``maps``).  ``method``: a name of
    :data:`~wayfinding.grid.methods.METHODS`; ``options`` go to the solver as in
    :func:`~wayfinding.bench.run_scenario`.  ``batch`` (>= 1): problems per task.  A
    preprocessed method's indexes are built once per map, in one task whose result every
    task of that map reads (sent to each worker once); the reports give their build time
    and bytes as the serial run's do.  ``client``: a ``distributed.Client``; None starts a 2-worker
    ``LocalCluster`` for the call.  ``progress``: a bar over the tasks on stderr (when it is a
    terminal; False: none).  Returns one :class:`ScenarioRun` per file, in the given order.
    """
    if method not in METHODS:
        raise InvalidQueryError(
            f"unknown method {method!r}; expected one of: {', '.join(METHODS)}")
    batch = count("batch", batch)
    items = list(scenarios)
    if not items:
        raise InvalidQueryError("no scenarios given: expected at least one .scen path or "
                                "Scenario")
    loaded = []
    for item in items:
        scen = item if isinstance(item, Scenario) else read_scen(item)
        if not scen.problems:
            raise InvalidQueryError(f"scenario {str(scen.path or item)!r} has no problems")
        map_path = scen.find_map(search=list(maps))
        grid = read_map(map_path)
        scen.check_map(grid)
        loaded.append((str(scen.path or ""), str(map_path), grid, list(scen.problems)))
    if method in ALGORITHMS:  # refuse bad options here, not in every task: one trivial query
        start = loaded[0][3][0].start
        make_solver(loaded[0][2], method, **options)(start, start)
    else:
        _no_options(method, options)
    with _client(client) as c:
        keys: list[tuple[int, int]] = []
        futures = []
        costs = []
        for i, (_, _, grid, problems) in enumerate(loaded):
            remote, = c.scatter([grid], broadcast=False, hash=False)
            shipped = c.submit(_build_indexes, remote, method, pure=False) \
                if method in PREPROCESSED else []
            costs.append(c.submit(_index_cost, shipped, pure=False))
            for k in range(0, len(problems), batch):
                keys.append((i, k))
                futures.append(c.submit(_solve_batch, remote, method, problems[k:k + batch],
                                        options, shipped, pure=False))
        where = {f.key: key for f, key in zip(futures, keys)}
        parts = {where[f.key]: result
                 for f, result in _gather(futures, "scenario batches", progress)}
        spent = c.gather(costs)
    return [_report(path, map_path, method, problems,
                    [parts[(i, k)] for k in range(0, len(problems), batch)], spent[i])
            for i, (path, map_path, _, problems) in enumerate(loaded)]


def _no_options(method: str, options: dict[str, Any]) -> None:
    used = [k for k, v in options.items() if v is not None and (k, v) != ("agent_size", 1)]
    if used:
        raise InvalidQueryError(f"{method} takes no search options (got {', '.join(used)})")


# ------------------------------------------------------------------------ goal bounds

def _flood_batch(cost: np.ndarray, moves: np.ndarray, width: int, canonical: bool,
                 goals: np.ndarray) -> np.ndarray:
    """Boxes widened by one batch of goals only, from empty boxes, on one thread."""
    boxes = _empty_boxes(cost.size)
    _run_chunk((cost, moves, width, canonical, 1), goals, boxes)
    return boxes


def build_goal_bounds_dask(grid: Grid, *, client: Any = None, batch: int = 256,
                           progress: bool | None = None) -> GoalBounds:
    """:meth:`GoalBounds.build` as a Dask task graph: one task floods a batch of ``batch``
    (>= 1) goals into boxes of its own; the boxes are merged (each box is a union over goals:
    the least lower and greatest upper ends) into arrays equal to the serial build's.

    ``client``: a ``distributed.Client``; None starts a 2-worker ``LocalCluster`` for the
    call.  ``progress``: a bar over the tasks on stderr (when it is a terminal; False: none).
    Memory on the caller: two box arrays (64 bytes per padded cell each); per running task
    one more.
    """
    canonical = _flood_plan(grid)
    batch = count("batch", batch)
    t0 = time.perf_counter()
    width = grid.width + 2
    cost, moves = grid.padded_costs, grid.moves
    n = cost.size
    goals = np.flatnonzero(np.isfinite(cost)).astype(np.int64)
    boxes = _empty_boxes(n)
    with _client(client) as c:
        cost_r, moves_r = c.scatter([cost, moves], broadcast=False, hash=False)
        futures = [c.submit(_flood_batch, cost_r, moves_r, width, canonical,
                            goals[k:k + batch], pure=False)
                   for k in range(0, len(goals), batch)]
        for _, part in _gather(futures, "goal bounds (batches)", progress):
            np.minimum(boxes[:, :, 0::2], part[:, :, 0::2], out=boxes[:, :, 0::2])
            np.maximum(boxes[:, :, 1::2], part[:, :, 1::2], out=boxes[:, :, 1::2])
    return GoalBounds(grid, {"boxes": boxes}, _build_options(canonical, batch),
                      time.perf_counter() - t0)


__all__ = ["ScenarioRun", "build_goal_bounds_dask", "solve_scenarios_dask"]
