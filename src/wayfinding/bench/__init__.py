"""Benchmark runs: Moving AI scenario files through any grid method, with the counts,
mismatches, length ratios and per-query times that ``wayfinding scen`` and the demo report;
whole scenario sets and goal-bound builds as Dask task graphs (the ``[dask]`` extra)."""

from .distributed import ScenarioRun, build_goal_bounds_dask, solve_scenarios_dask
from .scenarios import ScenarioReport, run_scenario

__all__ = ["ScenarioReport", "ScenarioRun", "build_goal_bounds_dask", "run_scenario",
           "solve_scenarios_dask"]
