"""The demo page's section on constraint-aware navigation: one courtyard (two buildings, a
wall, a pond and a guard) crossed under different constraint sets side by side, the
multiplier field of all of them as a heat map, a guard turning while AD* repairs its plan
(GIF, and the frames before and after), the four search domains of a navigation mesh, a
patrol, and a multi-domain plan."""

from __future__ import annotations

import html
import math
import time
from pathlib import Path

import numpy as np

from .._io import atomic_write_bytes
from ..constraints import Between, Constraint, ConstraintSet, Disc, LineOfSight, Region
from ..geometry import Obstacles
from ..grid import Grid, GridSearch
from ..grid.constrained import grid_domain
from ..navmesh import NavMesh
from ..navmesh.constraint_domains import DOMAINS
from ..planning import (
    DensityDomain,
    GridDomain,
    MultiDomainPlanner,
    NavMeshDomain,
    SpaceTimeDomain,
)
from ..planning.constrained import ConstraintPlan, ConstraintPlanner, inside_shares
from ..planning.specification import Specification, plan_specification
from ..viz.constraints import (
    animate_constraints,
    render_constraint_panels,
    render_constraints_png,
    render_multidomain_png,
)
from .planning import _figure

#: The courtyard's size in 1 m cells, and its buildings, wall and pond (world units, y up).
WIDTH, HEIGHT = 40, 28
BUILDINGS = ((8, 4, 16, 12), (8, 16, 16, 24))
WALL = (26, 7, 27, 21)
POND = ((21.0, 14.0), 2.5)
#: The walk across it, world points (cell centres).
START, GOAL = (1.5, 14.5), (38.5, 14.5)
#: The guard east of the wall: where it stands, where it looks first (radians, towards the
#: gap north of the wall), its field of view (radians) and range (m).
GUARD = ((34.5, 14.5), math.pi - 0.6, math.radians(60), 12.0)
#: The guard's turns between repairs (radians, counter-clockwise: towards the gap south of
#: the wall) and their number.
TURN, TURNS = 0.3, 4
#: Spacing of the dense mesh domains (m).
SPACING = 1.0


def _box(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def courtyard() -> Grid:
    """The courtyard: :data:`WIDTH` x :data:`HEIGHT` cells of 1 m, its buildings and wall
    blocked."""
    free = np.ones((HEIGHT, WIDTH), dtype=bool)
    for x0, y0, x1, y1 in (*BUILDINGS, WALL):
        free[y0:y1, x0:x1] = False
    return Grid(free)


def guard(grid: Grid, turn: float = 0.0) -> LineOfSight:
    """The guard's line of sight, turned by ``turn`` radians, hidden behind the blocked
    cells."""
    position, heading, fov, reach = GUARD
    return LineOfSight(position, heading + turn, fov=fov, range=reach,
                       occluders=Obstacles.from_grid(grid))


def constraint_sets(grid: Grid) -> dict[str, ConstraintSet | None]:
    """The sets drawn side by side, by label: none, the guard's line of sight (a Near
    repeller), the space between the buildings (a Near attractor), the pond (hard), and all
    three."""
    seen = Constraint(guard(grid), -6, near=True)
    cover = Constraint(Between(*(Region(_box(*b)) for b in BUILDINGS)), 4, near=True)
    pond = Constraint.hard(Disc(*POND))
    return {"unconstrained": None,
            "avoid the guard's line of sight": ConstraintSet([seen]),
            "stay between the buildings": ConstraintSet([cover]),
            "never enter the pond": ConstraintSet([pond]),
            "all three": ConstraintSet([seen, cover, pond])}


#: A repair frame: its label, the constraints, the optimal plan, a fresh search's cost and
#: the transitions re-costed to get there.
Frame = tuple[str, ConstraintSet, ConstraintPlan, float, int]


def repair(grid: Grid, constraints: ConstraintSet) -> list[Frame]:
    """The guard (constraint 0 of ``constraints``) turns :data:`TURNS` times by
    :data:`TURN`; AD* repairs after each turn.  Returns the frames before the turns, then
    after each."""
    domain = grid_domain(grid)
    planner = ConstraintPlanner(domain, START, GOAL, constraints)
    frames = []
    for k in range(TURNS + 1):
        if k:
            planner.move_constraint(0, guard(grid, TURN * k))
        plan = planner.plan()
        fresh = domain.find_path(START, GOAL, constraints=planner.constraints).cost
        label = f"turned {TURN * k:.1f} rad" if k else "before the turn"
        frames.append((label, planner.constraints, plan, fresh, planner.repaired_edges))
    return frames


def constraints_section(out: Path) -> str:
    """Plan the courtyard under each constraint set, draw the heat map, repair the plan as
    the guard turns, compare the mesh domains, patrol and plan across domains; write the
    pictures into ``out`` and return the HTML section."""
    esc = html.escape
    t0 = time.perf_counter()
    grid = courtyard()
    sets = constraint_sets(grid)
    search = GridSearch(grid)
    start_cell, goal_cell = grid.world_to_cell(START), grid.world_to_cell(GOAL)
    found = {name: search.find_path(start_cell, goal_cell, constraints=cs)
             for name, cs in sets.items()}
    every = sets["all three"]
    assert every is not None
    rows = []
    for name, r in found.items():
        pts = np.asarray(grid.origin) + (np.asarray(r.path) + 0.5) * grid.cell_size
        shares = inside_shares(every, pts)
        length = float(np.hypot(*np.diff(pts, axis=0).T).sum())
        rows.append(f"<tr><td>{esc(name)}</td><td>{r.cost:.3f}</td><td>{length:.2f}</td>"
                    + "".join(f"<td>{s:.2f}</td>" for s in shares)
                    + f"<td>{r.stats.expanded}</td></tr>")
    panels = [(name, sets[name], found[name]) for name in list(sets)[:4]]
    atomic_write_bytes(out / "constraints-panels.png", render_constraint_panels(
        grid, panels, start=START, goal=GOAL, size=360,
        title="the same walk under four constraint sets"))
    atomic_write_bytes(out / "constraints-field.png", render_constraints_png(
        grid, every, paths=[found["all three"]], start=START, goal=GOAL, size=480,
        title="multiplier field of all three"))

    frames = repair(grid, every)
    gap = max(abs(plan.cost - fresh) for _, _, plan, fresh, _ in frames)
    shown = [(label, cs, plan) for label, cs, plan, _, _ in frames]
    animate_constraints(out / "constraints-repair.gif", grid, shown, start=START, goal=GOAL,
                        size=320, fps=1.5)
    atomic_write_bytes(out / "constraints-repair.png", render_constraint_panels(
        grid, [shown[0], shown[-1]], start=START, goal=GOAL, size=360,
        title="before and after the guard turns"))
    total = grid_domain(grid).num_edges
    repairs = "".join(f"<tr><td>{esc(label)}</td><td>{done} of {total}</td>"
                      f"<td>{plan.cost:.3f}</td><td>{fresh:.3f}</td></tr>"
                      for label, _, plan, fresh, done in frames)

    mesh = NavMesh.build(grid)
    domain_rows = []
    for kind in DOMAINS:
        t1 = time.perf_counter()
        r = mesh.find_path(START, GOAL, constraints=every, domain=kind,
                           spacing=None if kind == "tri" else SPACING)
        ms = 1e3 * (time.perf_counter() - t1)
        domain_rows.append(f"<tr><td>{kind}</td><td>{r.cost:.3f}</td>"
                           f"<td>{r.stats.expanded}</td><td>{ms:.0f}</td></tr>")

    gap_point, corner = (12.0, 14.0), (38.5, 26.5)
    patrol = plan_specification(grid_domain(grid), Specification(START).then(
        gap_point, every).patrol(corner, gap_point, every, laps=2))

    planner = multidomain(mesh, grid)
    md = planner.result()
    best = search.find_path(start_cell, goal_cell).cost
    atomic_write_bytes(out / "constraints-multidomain.png", render_multidomain_png(
        planner, size=480, title="multi-domain: corridor, grid legs, space-time"))
    seconds = time.perf_counter() - t0

    figures = "".join(_figure(cap, src) for cap, src in (
        ("the same walk under four constraint sets, one colour scale",
         "constraints-panels.png"),
        (f"all three: cost {found['all three'].cost:.2f}", "constraints-field.png"),
        (f"the guard turns {TURNS} times and AD* repairs each time", "constraints-repair.gif"),
        ("before and after the guard turns", "constraints-repair.png"),
        (f"multi-domain plan: {len(md.waypoints)} waypoints, cost {md.cost:.2f}",
         "constraints-multidomain.png")))
    names = "".join(f"<th>in {esc(n)}</th>" for n in ("sight", "between", "pond"))
    return f"""<h2>Constraint-aware navigation</h2>
<p>A courtyard of {WIDTH} &times; {HEIGHT} m with two buildings, a wall, a pond and a guard,
crossed from ({START[0]:g}, {START[1]:g}) to ({GOAL[0]:g}, {GOAL[1]:g}) on the grid's dense
domain (A*, 8 neighbours) under each constraint alone and all three together: away from the
guard's line of sight (Near, weight &minus;6; the buildings and the wall hide what lies
behind them); near the space between the two buildings (Near, weight 4); never into the pond
(hard). Each set makes a multiplier field
max(1, 1.1<sup>W0 &minus; &Sigma;W</sup>) over the courtyard (W0 the sum of the positive
weights) and each step costs its length times the field's mean at four points along it. The
shares are of the path's length inside each annotation.
<table><tr><th>constraints</th><th>cost</th><th>length m</th>{names}<th>expanded</th></tr>
{"".join(rows)}</table>
<p>Under all three, the guard turns {TURNS} times by {TURN:g} rad, from the gap north of the
wall to the gap south of it; after each turn AD* re-costs only the transitions in the old
and new regions of influence of its line of sight and repairs its plan, which stays equal
to a fresh search (largest difference {gap:.1e}): the walk moves from one gap to the
other.
<table><tr><th>step</th><th>transitions costed</th><th>AD* cost</th><th>fresh search</th></tr>
{repairs}</table>
<p>On a navigation mesh built from the same courtyard, under all three constraints, the
four domains: edge midpoints on the mesh cut along the static annotations (tri), a lattice
every {SPACING:g} m (dense), the lattice with the triangulation's highways (hybrid) and the
lattice that skips ahead where no constraint acts (adaptive).
<table><tr><th>domain</th><th>cost</th><th>expanded</th><th>ms</th></tr>
{"".join(domain_rows)}</table>
<p>A chained specification under all three: to the gap between the buildings, then a patrol
between the far corner and the gap, twice: {len(patrol.legs)} legs, cost {patrol.cost:.2f}
({'found' if patrol.found else 'not found'}). Planned across domains (static mesh, mesh
with a density field, grid, each refining the one before), the walk costs {md.cost:.2f} on
the grid against its optimum {best:.2f} ({md.cost / best:.3f} times it). The section took
{seconds:.1f} s.
{figures}
"""


def multidomain(mesh: NavMesh, grid: Grid) -> MultiDomainPlanner:
    """A multi-domain planner from :data:`START` to :data:`GOAL` over ``mesh`` (no density)
    and ``grid``, with a space-time domain for the imminent leg, thought until settled."""
    cells = GridDomain(grid)
    planner = MultiDomainPlanner(NavMeshDomain(mesh), DensityDomain(
        mesh, np.zeros(mesh.num_polygons)), cells, START, GOAL,
        spacetime=SpaceTimeDomain(cells), max_tasks=1_000_000)
    for _ in range(1000):
        if planner.settled:
            break
        planner.think()
    return planner
