"""The demo page's section on crowds: scenarios under ORCA as animations, with their
metrics, and the formation scenarios (:mod:`wayfinding.groups.scenarios`)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import numpy as np

from ..crowd import ORCA, Navigator, record, scenario, simulate_crowd
from ..groups.scenarios import FORMATION_SCENARIOS, formation_scenario
from ..navmesh import NavMesh
from ..viz.crowd import animate_run

RUNS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("crossing", {"angle": 90}), ("swap", {"n": 16}), ("crossing_flows", {"n": 16}),
    ("one_way", {"n": 24}), ("bottleneck", {"n": 30}), ("circle", {"n": 60, "size": 40}),
    ("blocks", {}))

#: Formation runs drawn on the page: scenario name and options.
FORMATION_RUNS: tuple[tuple[str, dict[str, Any]], ...] = tuple(
    (name, {}) for name in sorted(FORMATION_SCENARIOS))


def crowd_section(out: Path) -> str:
    """Run the scenarios, write their GIFs; return the HTML section."""

    rows, figures = [], []
    for name, options in RUNS:
        sc = scenario(name, **options)
        agents = len(sc.crowd)
        run = simulate_crowd(sc)
        gif = animate_run(out / f"crowd-{name}.gif", run, sc.obstacles)
        m = run.summary()
        rows.append((sc.name, agents, m))
        figures.append((f"{sc.name}: {m['completion']:.0%} of {agents} arrived",
                        gif.name))
    nav_run, walls = navigation_run()
    gif = animate_run(out / "crowd-navigation.gif", nav_run, walls)
    figures.append((f"navigation: {len(nav_run.arrived)} agents planning round a U-turn, "
                    f"{nav_run.completion:.0%} arrived, 90% by {nav_run.arrival_time(0.9):.0f} s",
                    gif.name))
    formations, formation_figures = formation_rows(out)
    figures += formation_figures
    esc = html.escape
    table = "".join(
        f"<tr><td>{esc(n)}</td><td>{a}</td><td>{m['completion']:.0%}</td>"
        f"<td>{m['t50']:.1f}</td><td>{m['t90']:.1f}</td><td>{m['collisions']}</td>"
        f"<td>{m['max_penetration']:.3f}</td><td>{m['path_ratio']:.3f}</td></tr>"
        for n, a, m in rows)
    figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>{esc(cap)}"
                   "</figcaption></figure>" for cap, src in figures)
    return f"""<h2>Crowds</h2>
<p>Standard scenarios under ORCA (RVO2's semantics; colours by where each agent is bound).
An agent leaves the scene when it is within its radius of its goal. ORCA keeps agents
apart as long as its linear program is feasible; in dense jams small overlaps remain,
and the table reports them.
<table><tr><th>scenario</th><th>agents</th><th>arrived</th><th>t50 s</th><th>t90 s</th>
<th>overlapping pair-steps</th><th>deepest overlap</th><th>path ratio</th></tr>{table}
</table>
<p>Formations (each formation in its own colour, single agents in another)
walk through a doorway in column and reform past it, cross each other and cross a crowd,
all under one ORCA. The slot error is each member's distance to its slot; the time to reform
runs from the formation change past the door until every member is within 0.1 of its slot.
<table><tr><th>scenario</th><th>agents</th><th>arrived</th><th>mean slot error</th>
<th>largest slot error</th><th>time to reform s</th><th>least separation</th>
<th>deepest overlap / radius</th></tr>{formations}
</table>{figs}
"""


def formation_rows(out: Path) -> tuple[str, list[tuple[str, str]]]:
    """Run the formation scenarios, write their GIFs; return the table rows and the
    figures (caption, file name)."""

    rows, figures = [], []
    esc = html.escape
    for name, options in FORMATION_RUNS:
        run = formation_scenario(name, **options)
        gif = animate_run(out / f"crowd-{name}.gif", run, run.obstacles, groups=run.groups(),
                          frames=80)
        m = run.summary()
        reform = run.time_to_reform(0.1) if run.reformed else None
        agents = run.positions.shape[1]
        rows.append(f"<tr><td>{esc(run.name)}</td><td>{agents}</td>"
                    f"<td>{m['completion']:.0%}</td><td>{m['slot_error_mean']:.3f}</td>"
                    f"<td>{m['slot_error_max']:.3f}</td>"
                    f"<td>{'-' if reform is None else f'{reform:.1f}'}</td>"
                    f"<td>{m['min_separation']:.3f}</td><td>{m['max_overlap_ratio']:.2%}</td>"
                    "</tr>")
        figures.append((f"{run.name}: {len(run.members)} in formation, {m['completion']:.0%} "
                        f"of {agents} arrived", gif.name))
    return "".join(rows), figures


def navigation_run() -> tuple[Any, list[np.ndarray]]:
    """Twelve agents each way round the inner wall of a U-turn, under a Navigator; the run
    and the solid parts to draw.  The radius is given once, to the mesh: the agents take
    it from the navigator, and ORCA the walls of the area the mesh was built from."""

    u_turn = [(0, 0), (12, 0), (12, 4), (3, 4), (3, 6), (12, 6), (12, 10), (0, 10)]
    nav = Navigator(NavMesh.build(outline=u_turn, radius=0.3),
                    avoidance=ORCA(time_horizon=2.0, time_horizon_obst=1.0))
    for k in range(12):
        x = 11.0 - 0.75 * k
        nav.add((x, 1.0 + 2.0 * (k % 2)), target=(x, 8.0 + 1.0 * (k % 2)))
        nav.add((x, 7.5 + 1.5 * (k % 2)), target=(x, 1.0 + 2.0 * (k % 2)))
    run = record(nav.crowd, lambda crowd, dt: nav.update(dt), dt=0.1, seconds=90,
                 remove=nav.remove)
    frame = [np.array(b, float) for b in ([(-1, -1), (13, -1), (13, 0), (-1, 0)],
                                          [(-1, 10), (13, 10), (13, 11), (-1, 11)],
                                          [(-1, -1), (0, -1), (0, 11), (-1, 11)],
                                          [(12, -1), (13, -1), (13, 11), (12, 11)],
                                          [(3, 4), (12, 4), (12, 6), (3, 6)])]
    return run, frame
