"""The demo page's section on any-angle paths: A*, its smoothing, Theta*, Lazy Theta* and the
exact any-angle optimum on a sample of the cave's scenario, with pictures."""

from __future__ import annotations

import html
import time
from pathlib import Path

import numpy as np

from ..grid import AnyAngle, GridSearch
from ..grid.movingai import Problem
from ..results import PathResult
from .maps import cave, cave_scenario, longest
from .pictures import pictures

DRAWN = ("astar", "astar_smoothed", "theta", "any_angle")


def anyangle_section(out: Path, sample: int = 100) -> str:
    """Solve ``sample`` problems of the cave with each method, draw the longest; return the
    HTML section."""

    grid, far = cave(), longest()
    problems = cave_scenario().problems
    picked = [problems[i] for i in np.linspace(0, len(problems) - 1, sample).astype(int)]
    paths, search = AnyAngle(grid), GridSearch(grid)

    def solve(method: str, p: Problem) -> PathResult:
        return search.find_path(p.start, p.goal) if method == "astar" else \
            paths.find_path(p.start, p.goal, method=method)

    rows = []
    exact = np.array([solve("any_angle", p).cost for p in picked])
    optimal = np.array([p.optimal for p in picked])
    for method in ("astar", "astar_smoothed", "theta", "lazy_theta", "any_angle"):
        costs, times = [], []
        for p in picked:
            t0 = time.perf_counter()
            costs.append(solve(method, p).cost)
            times.append(time.perf_counter() - t0)
        c = np.array(costs)
        ok = exact > 0
        rows.append((method, float(np.mean(c[ok] / optimal[ok])),
                     float(np.mean(c[ok] / exact[ok])), float(np.median(times)) * 1e6))
    figures = []
    for method in DRAWN:
        r = solve(method, far)
        names = pictures(out, f"cave-anyangle-{method}", grid, path=r,
                         start=far.start, goal=far.goal,
                         title=f"{method}: length {r.cost:.3f}")
        figures.append((f"{method}: length {r.cost:.3f}", names[-1]))
    esc = html.escape
    table = "".join(f"<tr><td>{esc(a)}</td><td>{o:.4f}</td><td>{e:.4f}</td><td>{t:,.0f}</td>"
                    "</tr>" for a, o, e, t in rows)
    figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>{esc(cap)}"
                   "</figcaption></figure>" for cap, src in figures)
    return f"""<h2>Any-angle paths in the cave</h2>
<p>{len(picked)} problems of the scenario, from the start cell's centre to the goal cell's;
any-angle paths bend at cell corners and never squeeze between diagonal corners. Lengths
are divided by the file's 8-connected optimum and by the exact any-angle optimum.</p>
<table><tr><th>method</th><th>length ÷ 8-connected</th><th>length ÷ exact</th>
<th>median µs</th></tr>{table}</table>{figs}
"""
