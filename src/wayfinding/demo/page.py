"""The showcase behind ``wayfinding demo``: solve a scenario on a generated cave (checked
against its optimal lengths), draw the searches and write an HTML page that sums it up."""

from __future__ import annotations

import html
import platform
import re
import time
from pathlib import Path
from typing import Any, Protocol, cast

from .._io import atomic_write_text
from ..bench import ScenarioReport, run_scenario
from ..grid import Diagonal, Grid, GridIndex, GridSearch, read_scen
from ..grid.grid import Cell
from ..grid.methods import INDEX_SPECS, PREPROCESSED, make_solver
from ..grid.movingai import Problem, Scenario
from ..results import PathResult
from .climbing import climbing_section
from .constraints import constraints_section
from .crowd import crowd_section
from .fields import fields_section
from .maps import CAVE_TEXT, DUNGEON_TEXT, cave, dungeon, longest, write_cave
from .navmesh import navmesh_section
from .navmesh3d import navmesh3d_section
from .paths import anyangle_section
from .pictures import pictures
from .planning import planning_section
from .traffic import traffic_section
from .vehicles import vehicles_section
from .voxel import voxel_section
from .worlds import world_section

#: The methods compared side by side on the cave, and those drawn.
FAST = ("astar", "jps", "jps2", "jps_plus", "jps_plus_buckets", "astar_gb", "jps_plus_gb",
        "subgoal", "subgoal2", "subgoal_table", "astar_dh")
DRAWN = ("astar", "jps", "jps2", "jps_plus", "jps_plus_gb", "astar_dh")


def run_demo(out: Path, *, show_progress: bool = True) -> Path:
    """Write the demo into folder ``out`` and return the HTML page's path."""
    out.mkdir(parents=True, exist_ok=True)
    scen_path = write_cave(out)
    scen, grid, far = read_scen(scen_path), cave(), longest()
    reports: list[ScenarioReport] = []
    for method, sample in (("astar", None), ("bidirectional", None), ("dijkstra", 200)):
        reports.append(run_scenario(scen_path, method=method, sample=sample,
                                    show_progress=show_progress, scenario=scen))
    search = GridSearch(grid)
    figures: list[tuple[str, str]] = []
    for method in ("astar", "dijkstra"):
        r = search.find_path(far.start, far.goal, method=method, record=True)
        names = pictures(out, f"cave-{method}", grid, path=r, explored=r, frontier=r,
                         start=far.start, goal=far.goal,
                         title=f"{method}: cost {r.cost:.3f}, {r.stats.expanded} expanded")
        figures.append((f"{method} in the cave: cost {r.cost:.4f} (optimum {far.optimal:.4f}), "
                        f"{r.stats.expanded:,} cells expanded", names[-1]))
    dist = search.distance_map(far.start)
    names = pictures(out, "cave-distances", grid, distances=dist, start=far.start,
                     heat_label="cost from the start")
    figures.append(("cost from the start to every cell (distance map)", names[-1]))

    rooms = dungeon()
    free = list(rooms.iter_cells())
    a, b = free[0], free[-1]
    rule_rows: list[tuple[str, float, int, str]] = []
    for rule in Diagonal:
        g = rooms.with_options(diagonal=rule)
        r = GridSearch(g).find_path(a, b, record=True)
        names = pictures(out, f"dungeon-{rule.value}", g, path=r, explored=r,
                         start=a, goal=b)
        rule_rows.append((rule.value, r.cost, r.stats.expanded, names[-1]))

    fast_rows, fast_figures = _fast_methods(out, grid, scen_path, scen, far, show_progress)

    page = out / "index.html"
    text = _html(reports, figures, rule_rows, a, b, fast_rows, fast_figures)
    sections = anyangle_section(out) + world_section(out) + navmesh_section(out) \
        + navmesh3d_section(out) + voxel_section(out) + fields_section(out) + crowd_section(out) \
        + vehicles_section(out) + traffic_section(out) + climbing_section(out) \
        + planning_section(out) + constraints_section(out)
    atomic_write_text(page, with_contents(text.replace("</body>", sections + "</body>")))
    return page


_H2 = re.compile(r"<h2(?P<attrs>[^>]*)>(?P<body>.*?)</h2>", re.S)


def with_contents(page: str) -> str:
    """``page`` with an ``id`` on every ``<h2>`` section heading (its first five words,
    made unique) and a table of contents after the ``<h1>``: a ``<nav class="contents">``
    holding one link per section, in order."""
    taken: set[str] = set()
    links: list[tuple[str, str]] = []

    def anchor(m: re.Match[str]) -> str:
        text = html.unescape(re.sub(r"<[^>]+>", "", m["body"]))
        text = " ".join(text.split())
        found = re.search(r'\bid="([^"]+)"', m["attrs"])
        if found:
            ident = found[1]
        else:
            words = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()
            base = "-".join(words[:5]) or "section"
            ident, k = base, 2
            while ident in taken:
                ident, k = f"{base}-{k}", k + 1
        taken.add(ident)
        links.append((ident, text))
        attrs = m["attrs"] if found else f'{m["attrs"]} id="{ident}"'
        return f"<h2{attrs}>{m['body']}</h2>"

    page = _H2.sub(anchor, page)
    items = "".join(f'<li><a href="#{html.escape(i)}">{html.escape(t)}</a></li>'
                    for i, t in links)
    nav = f'<nav class="contents" aria-label="Contents"><strong>Contents</strong><ol>{items}' \
        "</ol></nav>"
    head, sep, rest = page.partition("</h1>")
    return head + sep + "\n" + nav + rest if sep else nav + page


class _Finder(Protocol):
    """A preprocessed index that answers queries itself."""

    def find_path(self, start: Any, goal: Any, **options: Any) -> PathResult: ...


#: A fast method's row: name, scenario report, preprocessing seconds and bytes.
FastRow = tuple[str, ScenarioReport, float, int]


def _fast_methods(out: Path, grid: Grid, scen_path: Path, scen: Scenario, far: Problem,
                  show_progress: bool) -> tuple[list[FastRow], list[tuple[str, str]]]:
    """Every fast method on the whole scenario, with its preprocessing, and pictures of the
    nodes each one expands on the longest problem."""
    indexes: dict[str, GridIndex] = {}
    for name, spec in INDEX_SPECS.items():
        extra = {"progress": show_progress} if name == "goal_bounds" else {}
        indexes[name] = spec.build(grid, **extra)
    rows: list[FastRow] = []
    figures: list[tuple[str, str]] = []
    for method in FAST:
        needs = PREPROCESSED[method].needs if method in PREPROCESSED else ()
        used = [indexes[s.name] for s in needs]
        r = run_scenario(scen_path, method=method, scenario=scen, indexes=used,
                         show_progress=False)
        rows.append((method, r, sum(i.build_time for i in used), sum(i.nbytes for i in used)))
        if method in DRAWN:
            res = _recorded(grid, method, used, far)
            names = pictures(out, f"cave-fast-{method}", grid, path=res, explored=res,
                             start=far.start, goal=far.goal,
                             title=f"{method}: {res.stats.expanded} expanded")
            figures.append((f"{method}: cost {res.cost:.4f}, {res.stats.expanded:,} nodes "
                            "expanded", names[-1]))
    return rows, figures


def _recorded(grid: Grid, method: str, used: list[GridIndex], problem: Problem) -> PathResult:
    """The longest problem solved with ``record=True`` (expanded nodes kept)."""
    if method in PREPROCESSED:
        first, *rest = used
        extra = {"bounds": rest[0]} if rest else {}
        return cast(_Finder, first).find_path(problem.start, problem.goal, record=True, **extra)
    return make_solver(grid, method, record=True)(problem.start, problem.goal)


def _html(reports: list[ScenarioReport], figures: list[tuple[str, str]],
          rule_rows: list[tuple[str, float, int, str]], a: Cell, b: Cell,
          fast_rows: list[FastRow], fast_figures: list[tuple[str, str]]) -> str:
    esc = html.escape
    rows = "".join(
        f"<tr><td>{esc(r.algorithm)}</td><td>{r.problems}</td><td>{r.mismatches}</td>"
        f"<td>{r.median_us:,.0f}</td><td>{r.mean_us:,.0f}</td><td>{r.mean_expanded:,.0f}</td>"
        "</tr>" for r in reports)
    figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>{esc(cap)}"
                   "</figcaption></figure>" for cap, src in figures)
    rules = "".join(
        f"<figure><img src='{esc(src)}' alt='{esc(name)}'><figcaption>{esc(name)}: cost "
        f"{cost:.3f}, {exp:,} expanded</figcaption></figure>" for name, cost, exp, src in rule_rows)
    fast = "".join(
        f"<tr><td>{esc(method)}</td><td>{r.problems}</td><td>{r.mismatches}</td>"
        f"<td>{r.median_us:,.1f}</td><td>{r.mean_us:,.1f}</td><td>{r.mean_expanded:,.0f}</td>"
        f"<td>{build:,.2f}</td><td>{nbytes / 1e6:,.2f}</td></tr>"
        for method, r, build, nbytes in fast_rows)
    fast_figs = "".join(f"<figure><img src='{esc(src)}' alt='{esc(cap)}'><figcaption>"
                        f"{esc(cap)}</figcaption></figure>" for cap, src in fast_figures)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>wayfinding demo</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222 }}
table {{ border-collapse: collapse }} td, th {{ border: 1px solid #ccc; padding: .3em .7em;
text-align: right }} figure {{ display: inline-block; margin: .5em; max-width: 520px }}
img {{ max-width: 100%; border: 1px solid #ddd; image-rendering: pixelated }}
</style></head><body>
<h1>wayfinding demo</h1>
<p>{CAVE_TEXT} and its scenario (<a href="cave.map">cave.map</a>,
<a href="cave.map.scen">cave.map.scen</a>: Moving AI files, problems in buckets of length 4,
optimal lengths from the library's Dijkstra): every problem solved and each length checked
against the file's optimum (tolerance max(1e-3, 1e-5·length)).
Machine: {esc(platform.processor() or platform.machine())},
Python {esc(platform.python_version())}; {esc(when)}.</p>
<table><tr><th>algorithm</th><th>problems</th><th>mismatches</th><th>median µs</th>
<th>mean µs</th><th>mean expanded</th></tr>{rows}</table>
<h2>The longest problem</h2>
<p>Blue: cells expanded; orange: the open list when the search stopped; red: the path;
green disc: start; purple disc: goal. Distance map: yellow near, through green and blue, to
purple far, as the bar under it gives in cost from the start.</p>{figs}
<h2>Fast optimal search in the cave</h2>
<p>Every problem of the scenario with each method; preprocessing is done once per map
(jps_plus_buckets trades exactness for speed: cost ≤ optimum + 0.1). Pictures: the nodes each
method expands on the longest problem — cells tinted blue, and where they lie apart (jump
points, subgoals) a dark blue dot on each.</p>
<table><tr><th>method</th><th>problems</th><th>mismatches</th><th>median µs</th>
<th>mean µs</th><th>mean expanded</th><th>preprocessing s</th><th>index MB</th></tr>
{fast}</table>{fast_figs}
<h2>Diagonal rules on {DUNGEON_TEXT}, {a} → {b}</h2>{rules}
</body></html>
"""
