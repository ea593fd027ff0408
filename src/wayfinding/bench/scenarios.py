"""Run Moving AI scenario files through a grid search and summarise the outcome."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._deprecated import renamed_keywords
from ..grid import Problem, Scenario, read_map, read_scen
from ..grid.anyangle import ANY_ANGLE, AnyAngle
from ..grid.index import GridIndex
from ..grid.methods import EXACT, make_solver
from ..progress import progress
from ..results import PathResult


@dataclass
class ScenarioReport:
    """What :func:`run_scenario` measured: counts, mismatches and per-query times (µs).

    For an exact method, ``mismatches`` counts the problems not solved at the file's optimal
    length.  For a near-optimal one (``exact`` false) it counts only failures: no path where
    one exists, a path that does not join the endpoints by legal steps, a cost that is not
    the sum of its steps or is below the optimum (any-angle methods: a polyline not in line
    of sight or not joining the cells' centres; their lengths may be below the 8-connected
    optimum); ``mean_ratio`` and ``max_ratio`` give the length ratio to the optimum over
    the problems solved (optimum > 0).
    """

    scenario: str
    map: str
    algorithm: str
    problems: int
    solved: int
    mismatches: int
    median_us: float
    mean_us: float
    p95_us: float
    mean_expanded: float
    preprocess_s: float = 0.0
    index_bytes: int = 0
    worst: list[dict[str, Any]] = field(default_factory=list)
    exact: bool = True
    mean_ratio: float = math.nan
    max_ratio: float = math.nan

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def table(self) -> str:
        """A small plain-text summary table."""
        rows = [
            ("scenario", self.scenario), ("map", self.map), ("algorithm", self.algorithm),
            ("problems", f"{self.problems}"), ("solved", f"{self.solved}"),
            ("mismatches" if self.exact else "failures", f"{self.mismatches}"),
            *(() if self.exact else (("mean length ratio", f"{self.mean_ratio:.4f}"),
                                     ("max length ratio", f"{self.max_ratio:.4f}"))),
            ("median µs/query", f"{self.median_us:,.1f}"),
            ("mean µs/query", f"{self.mean_us:,.1f}"),
            ("p95 µs/query", f"{self.p95_us:,.1f}"),
            ("mean expanded", f"{self.mean_expanded:,.1f}"),
        ]
        if self.index_bytes:
            rows += [("preprocessing s", f"{self.preprocess_s:,.2f}"),
                     ("index MB", f"{self.index_bytes / 1e6:,.2f}")]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def sample_problems(problems: list[Problem], n: int | None) -> list[Problem]:
    """A deterministic, evenly spread sample of ``n`` problems (all when ``n`` is None)."""
    if n is None or n >= len(problems):
        return list(problems)
    if n < 1:
        return []
    idx = np.linspace(0, len(problems) - 1, n).round().astype(int)
    return [problems[i] for i in idx]


@renamed_keywords(algo="method")
def run_scenario(path: str | Path, *, method: str = "astar", sample: int | None = None,
                 maps: list[str | Path] | tuple = (), show_progress: bool = True,
                 scenario: Scenario | None = None, indexes: Iterable[GridIndex] = (),
                 **options: Any) -> ScenarioReport:
    """Solve every problem of a ``.scen`` file (or an even sample of ``sample`` of them) with
    ``method`` (any name of :data:`~wayfinding.grid.methods.METHODS`) and compare each
    length with the file's optimum (within :attr:`Problem.tolerance`: the loosest of 1e-3,
    1e-5 x the length and half a unit of the last digit the file printed).

    Preprocessed methods use the matching ``indexes`` given, or build what they need; the
    report then gives the preprocessing time and the indexes' memory.
    """
    scen = scenario if scenario is not None else read_scen(path)
    map_path = scen.find_map(search=maps)
    grid = read_map(map_path)
    scen.check_map(grid)
    chosen = sample_problems(scen.problems, sample)
    solve = make_solver(grid, method, indexes=indexes, progress=show_progress, **options)
    exact = method in EXACT
    paths = AnyAngle(grid) if method in ANY_ANGLE else None
    measured = solve_problems(
        chosen, solve, lambda p, r: p.matches(r.cost) if exact else _valid(grid, p, r, paths),
        label=Path(path).name, show_progress=show_progress)
    return ScenarioReport(
        scenario=str(path), map=str(map_path), algorithm=method,
        preprocess_s=sum(ix.build_time for ix in solve.built),
        index_bytes=sum(ix.nbytes for ix in solve.indexes), exact=exact, **measured)


def solve_problems(problems: list[Any], solve: Callable[[Any, Any], PathResult],
                   correct: Callable[[Any, PathResult], bool], *, label: str,
                   show_progress: bool) -> dict[str, Any]:
    """Solve each problem (anything with ``start``, ``goal``, ``optimal`` and ``line``),
    timing every call; return the :class:`ScenarioReport` fields it measures (counts, times,
    length ratios, the first ten problems not ``correct``ly solved)."""
    times, expanded, wrong, ratios = [], 0, [], []
    solved = 0
    for p in progress(problems, len(problems), label=label, enabled=show_progress):
        t0 = time.perf_counter()
        r = solve(p.start, p.goal)
        times.append(time.perf_counter() - t0)
        expanded += r.stats.expanded
        solved += r.found
        if r.found and p.optimal > 0:
            ratios.append(r.cost / p.optimal)
        if not (r.found and correct(p, r)):
            wrong.append({"line": p.line, "start": list(p.start), "goal": list(p.goal),
                          "optimal": p.optimal, "found": r.cost if r.found else None})
    us = np.array(times) * 1e6 if times else np.array([math.nan])
    return {"problems": len(problems), "solved": solved, "mismatches": len(wrong),
            "median_us": float(np.median(us)), "mean_us": float(np.mean(us)),
            "p95_us": float(np.percentile(us, 95)),
            "mean_expanded": expanded / max(len(problems), 1), "worst": wrong[:10],
            "mean_ratio": float(np.mean(ratios)) if ratios else math.nan,
            "max_ratio": float(np.max(ratios)) if ratios else math.nan}


def _valid(grid: Any, p: Problem, r: Any, paths: Any = None) -> bool:
    """Whether a near-optimal result is a legal path between the problem's cells whose cost
    is the sum of its steps and not below the optimum; for an any-angle result (``paths``,
    an :class:`~wayfinding.grid.anyangle.AnyAngle`), a line-of-sight polyline between the
    cells' centres whose cost is its length (and may be below the 8-connected optimum)."""
    path = np.asarray(r.path)
    if paths is not None:
        ends = np.array([p.start, p.goal], dtype=np.float64) + 0.5
        length = float(np.hypot(*np.diff(path, axis=0).T).sum()) if len(path) > 1 else 0.0
        return (len(path) > 0 and np.array_equal(path[[0, -1]], ends)
                and abs(length - r.cost) <= 1e-9 * max(1.0, length) and paths.is_legal(path))
    if len(path) == 0 or tuple(path[0]) != tuple(p.start) or tuple(path[-1]) != tuple(p.goal):
        return False
    steps = grid.path_cost(path)
    return math.isfinite(steps) and abs(steps - r.cost) <= 1e-6 * max(1.0, steps) \
        and r.cost >= p.optimal - p.tolerance
