"""The demo page's section on crowds: scenarios under ORCA as animations, with their
metrics."""

from __future__ import annotations

import html
from pathlib import Path

RUNS = (("crossing", {"angle": 90}), ("swap", {"n": 16}), ("crossing_flows", {"n": 16}),
        ("one_way", {"n": 24}), ("bottleneck", {"n": 30}), ("circle", {"n": 60, "size": 40}),
        ("blocks", {}))


def crowd_section(out: Path) -> str:
    """Run the scenarios, write their GIFs; return the HTML section."""
    from .crowd import scenario, simulate
    from .viz.crowd import animate_run

    rows, figures = [], []
    for name, options in RUNS:
        sc = scenario(name, **options)
        agents = len(sc.crowd)
        run = simulate(sc)
        gif = animate_run(out / f"crowd-{name}.gif", run, sc.obstacles, size=360)
        m = run.summary()
        rows.append((sc.name, agents, m))
        figures.append((f"{sc.name}: {m['completion']:.0%} of {agents} arrived",
                        gif.name))
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
and the table reports them.</p>
<table><tr><th>scenario</th><th>agents</th><th>arrived</th><th>t50 s</th><th>t90 s</th>
<th>overlapping pair-steps</th><th>deepest overlap</th><th>path ratio</th></tr>{table}
</table>{figs}
"""
