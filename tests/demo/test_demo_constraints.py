"""The demo's section on constraint-aware navigation: each cost it reports is that of an
independent Dijkstra (scipy) on the same constrained costs, the pond is never entered, the
guard's turns are repaired to a fresh search's cost and move the walk from one gap to the
other, the mesh domains keep their order, the multi-domain plan stays within its factor,
and every picture is written and named in the HTML."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from wayfinding.demo.constraints import (
    GOAL,
    POND,
    START,
    TURNS,
    WALL,
    constraint_sets,
    constraints_section,
    courtyard,
    repair,
)
from wayfinding.grid import GridSearch
from wayfinding.grid.constrained import grid_domain
from wayfinding.navmesh.constraint_domains import DOMAINS

Image = pytest.importorskip("PIL.Image")
shapely = pytest.importorskip("shapely")


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    out = tmp_path_factory.mktemp("constraints")
    return out, constraints_section(out)


def table(page: str, first: str) -> dict[str, list[str]]:
    """The rows of the table whose header starts with ``first``, by their first cell."""
    block = page[page.index(f"<tr><th>{first}</th>"):]
    block = block[:block.index("</table>")]
    rows = re.findall(r"<tr><td>(.*?)</td></tr>", block)
    return {html.unescape(c[0]): c[1:] for c in (r.split("</td><td>") for r in rows)}


def dijkstra_cost(cs) -> float:
    """The courtyard's optimum from START to GOAL by scipy on the domain's costs."""
    d = grid_domain(courtyard())
    s, g = (d.join(p, cs)[0] for p in (START, GOAL))
    c = d.costs(cs)
    ok = np.isfinite(c)
    e = d.edges[ok]
    m = csr_matrix((c[ok], (e[:, 0], e[:, 1])), shape=(d.num_nodes,) * 2)
    return float(dijkstra(m, indices=s)[g])


def test_each_cost_is_a_dijkstra_optimum(section):
    _, page = section
    assert page.startswith("<h2>Constraint-aware navigation</h2>")
    rows = table(page, "constraints")
    sets = constraint_sets(courtyard())
    assert list(rows) == list(sets)
    for name, cs in sets.items():
        assert float(rows[name][0]) == pytest.approx(dijkstra_cost(cs), abs=6e-4), name
    costs = {name: float(r[0]) for name, r in rows.items()}
    assert costs["avoid the guard's line of sight"] > costs["unconstrained"]


def test_the_pond_is_never_entered():
    grid = courtyard()
    pond = shapely.Point(POND[0]).buffer(POND[1], quad_segs=256)
    search = GridSearch(grid)
    for name, cs in constraint_sets(grid).items():
        r = search.find_path(grid.world_to_cell(START), grid.world_to_cell(GOAL),
                             constraints=cs)
        line = shapely.LineString(np.asarray(r.path) + 0.5)
        if cs is None:
            assert line.intersects(pond)                 # the pond lies on the plain walk
        elif any(c.is_hard for c in cs):
            assert not line.intersects(pond), name


def test_the_repairs_equal_fresh_searches_and_change_gaps(section):
    _, page = section
    rows = table(page, "step")
    assert len(rows) == TURNS + 1
    for label, (costed, ad, fresh) in rows.items():
        assert float(ad) == pytest.approx(float(fresh), abs=1e-3), label
        done, total = map(int, costed.split(" of "))
        assert (done == total) if label == "before the turn" else (0 < done < total)
    frames = repair(courtyard(), constraint_sets(courtyard())["all three"])
    for _, cs, plan, fresh, _ in frames:
        assert plan.epsilon == 1.0 and plan.cost == pytest.approx(fresh, abs=1e-9)
        assert plan.cost == pytest.approx(dijkstra_cost(cs), abs=1e-9)
    _, y0, _, y1 = WALL
    first, last = frames[0][2].path, frames[-1][2].path
    assert first[:, 1].min() < y0 and first[:, 1].max() < y1       # south of the wall
    assert last[:, 1].max() > y1 and last[:, 1].min() > y0         # north of it


def test_the_mesh_domains_keep_their_order(section):
    _, page = section
    rows = table(page, "domain")
    assert list(rows) == list(DOMAINS)
    cost = {kind: float(r[0]) for kind, r in rows.items()}
    assert all(math.isfinite(c) for c in cost.values())
    assert cost["hybrid"] <= cost["dense"] + 1e-3 <= cost["adaptive"] + 2e-3


def test_patrol_and_multidomain_plan(section):
    _, page = section
    text = html.unescape(page)
    legs, found = re.search(r"twice: (\d+) legs, cost [\d.]+\s+\((\w+)\)", text).groups()
    assert int(legs) == 5 and found == "found"
    md, best, ratio = map(float, re.search(
        r"the walk costs ([\d.]+) on\s+the grid against its optimum ([\d.]+) \(([\d.]+) times",
        text).groups())
    plain = GridSearch(courtyard()).find_path(courtyard().world_to_cell(START),
                                              courtyard().world_to_cell(GOAL)).cost
    assert best == pytest.approx(plain, abs=6e-3)
    assert best - 6e-3 <= md and 1.0 <= ratio <= 1.5


def test_the_pictures_are_written_and_linked(section):
    out, page = section
    figures = re.findall(r"<img src='([^']+)' alt='([^']+)'>", page)
    assert [name for name, _ in figures] == [
        "constraints-panels.png", "constraints-field.png", "constraints-repair.gif",
        "constraints-repair.png", "constraints-multidomain.png"]
    for name, _ in figures:
        with Image.open(out / name) as im:
            assert im.format == ("GIF" if name.endswith(".gif") else "PNG")
            assert min(im.size) >= 200
            if im.format == "GIF":
                assert im.n_frames == TURNS + 1
    assert sorted(p.name for p in out.iterdir()) == sorted(name for name, _ in figures)


def test_the_courtyard_is_walkable_where_the_walk_goes():
    grid = courtyard()
    for point in (START, GOAL):
        assert grid.passable[grid.world_to_cell(point)[::-1]]
    x0, y0, x1, y1 = WALL
    assert not grid.passable[y0:y1, x0:x1].any()
    assert grid.passable[:y0, x0].all() and grid.passable[y1:, x0].all()   # two gaps
