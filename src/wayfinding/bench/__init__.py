"""Benchmark runs: Moving AI scenario files through any grid method, with the counts,
mismatches, length ratios and per-query times that ``wayfinding scen`` and the demo report."""

from .scenarios import ScenarioReport, run_scenario

__all__ = ["ScenarioReport", "run_scenario"]
