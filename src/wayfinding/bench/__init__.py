"""Benchmark runs: Moving AI scenario files through any grid method, with the counts,
mismatches, length ratios and per-query times that ``wayfinding scen`` and the demo report;
whole scenario sets and goal-bound, exit-table and octree builds as Dask task graphs (the
``[dask]`` extra)."""

from .dask_cluster import dask_client
from .dask_exit_tables import build_exit_tables_dask
from .dask_octree import build_octree_dask
from .distributed import ScenarioRun, build_goal_bounds_dask, solve_scenarios_dask
from .scenarios import ScenarioReport, run_scenario

__all__ = ["ScenarioReport", "ScenarioRun", "build_exit_tables_dask", "build_goal_bounds_dask",
           "build_octree_dask", "dask_client", "run_scenario", "solve_scenarios_dask"]
