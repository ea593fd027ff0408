"""Group-level planning: the group's bulk on grids (square clearance) and on clearance
meshes, switching to a narrower formation where the path narrows."""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import seeded_grids_and_rngs

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid, GridSearch
from wayfinding.groups.planning import BULK, NARROW, plan_group_path, swept_radius
from wayfinding.navmesh import ClearanceMesh
from wayfinding.navmesh.clearance import ARC_STEP

LINE3 = np.array([[0.0, 1.0], [0.0, 0.0], [0.0, -1.0]])          # three abreast
COLUMN3 = np.array([[0.0, 0.0], [-1.0, 0.0], [-2.0, 0.0]])       # one behind the other
SAFE_RULES = ("never", "no_corner_cutting")


def fit_mask(passable: np.ndarray, k: int) -> np.ndarray:
    """Brute force: cells whose k x k square below-right is all free."""
    h, w = passable.shape
    out = np.zeros_like(passable)
    for y in range(h - k + 1):
        for x in range(w - k + 1):
            out[y, x] = passable[y:y + k, x:x + k].all()
    return out


def optimum(fits: np.ndarray, diagonal: str, a: tuple, b: tuple) -> float:
    """Shortest 4/8-connected path over ``fits`` by networkx (unit costs, diagonals sqrt 2,
    a diagonal needing both side cells under ``no_corner_cutting``)."""
    g = nx.Graph()
    h, w = fits.shape
    for y, x in zip(*np.nonzero(fits), strict=True):
        g.add_node((x, y))
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            nx_, ny_ = x + dx, y + dy
            if not (0 <= nx_ < w and 0 <= ny_ < h and fits[ny_, nx_]):
                continue
            if dx and dy and (diagonal == "never" or not (fits[y, nx_] and fits[ny_, x])):
                continue
            g.add_edge((x, y), (nx_, ny_), weight=math.hypot(dx, dy))
    try:
        return nx.dijkstra_path_length(g, a, b)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return math.inf


def disc_clear(grid: Grid, centre: np.ndarray, r: float) -> bool:
    """Whether a disc is clear of every blocked cell and inside the grid (exactly)."""
    p = (centre - np.asarray(grid.origin)) / grid.cell_size
    r = r / grid.cell_size
    h, w = grid.shape
    if p[0] - r < -1e-9 or p[1] - r < -1e-9 or p[0] + r > w + 1e-9 or p[1] + r > h + 1e-9:
        return False
    for y in range(max(0, math.floor(p[1] - r)), min(h, math.ceil(p[1] + r))):
        for x in range(max(0, math.floor(p[0] - r)), min(w, math.ceil(p[0] + r))):
            near = np.clip(p, (x, y), (x + 1, y + 1))
            if not grid.passable[y, x] and math.dist(near, p) < r - 1e-9:
                return False
    return True


def corridor(width: int, length: int = 14) -> Grid:
    free = np.zeros((width + 4, length), dtype=bool)
    free[2:2 + width] = True
    return Grid(free)


def test_swept_radius_is_lateral_extent_plus_member_radius():
    assert swept_radius(LINE3, 0.5) == 1.5
    assert swept_radius(COLUMN3, 0.3) == 0.3


@pytest.mark.parametrize("width", [3, 4])
def test_a_group_that_fits_a_corridor_passes_it(width):
    grid = corridor(width)
    mid = 2 + width / 2
    plan = plan_group_path(grid, (1.5, mid), (12.5, mid), offsets=LINE3, member_radius=0.5)
    assert plan.found and (plan.formation == BULK).all()
    assert plan.path[0, 0] < 3 and plan.path[-1, 0] > 11
    for s in np.linspace(0, plan.length, 40):
        for slot in plan.slots(s):
            assert disc_clear(grid, slot, 0.5)


def test_a_group_too_wide_for_the_corridor_has_no_plan():
    plan = plan_group_path(corridor(2), (1.5, 3.0), (12.5, 3.0), offsets=LINE3,
                           member_radius=0.5)
    assert not plan.found and "bulk" in plan.reason and plan.cost == math.inf


def test_the_group_files_into_a_column_through_a_door_and_back():
    free = np.ones((7, 16), dtype=bool)
    free[:3, 7:9] = free[4:, 7:9] = False                 # a door one cell wide
    grid = Grid(free)
    plan = plan_group_path(grid, (2.0, 3.5), (14.0, 3.5), offsets=LINE3, member_radius=0.45,
                           narrow=COLUMN3)
    assert plan.found
    assert plan.formation[0] == BULK and plan.formation[-1] == BULK
    assert (plan.formation == NARROW).any()
    # The narrow stretch covers the door and is one run.
    runs = np.flatnonzero(np.diff(plan.formation.astype(int)))
    assert len(runs) == 2
    for s in np.linspace(0, plan.length, 80):
        for slot in plan.slots(s):
            assert disc_clear(grid, slot, 0.45)


@settings(max_examples=40, deadline=None)
@given(seeded_grids_and_rngs(rules=SAFE_RULES, min_side=4, max_side=14,
                             densities=(0.0, 0.1, 0.2)),
       st.sampled_from([(LINE3, None), (LINE3, COLUMN3), (LINE3 * 0.6, COLUMN3)]),
       st.sampled_from([0.3, 0.45, 0.5]))
def test_group_plan_is_never_shorter_than_the_single_agent_optimum(grid_rng, forms, r):
    grid, rng = grid_rng
    offsets, narrow = forms
    h, w = grid.shape
    start, goal = rng.uniform(0, (w, h)), rng.uniform(0, (w, h))
    plan = plan_group_path(grid, start, goal, offsets=offsets, member_radius=r, narrow=narrow)
    sizes = [max(1, math.ceil(2 * radius - 1e-9)) for radius in (plan.radius,
                                                                  plan.narrow_radius)
             if radius is not None]
    best = []
    for k in sizes:
        a = tuple(np.floor(start - k / 2 + 0.5).astype(int).tolist())
        b = tuple(np.floor(goal - k / 2 + 0.5).astype(int).tolist())
        best.append(optimum(fit_mask(grid.passable, k), grid.diagonal.value, a, b))
    if not plan.found:
        assert all(c == math.inf for c in best)
        return
    # Never shorter than the optimum for the radius of the formation it keeps; equal to
    # the full bulk's wherever that finds a path.
    if best[0] < math.inf:
        assert (plan.formation == BULK).all() and plan.cost == pytest.approx(best[0])
    else:
        assert plan.cost >= best[1] - 1e-9 and plan.cost == pytest.approx(best[1])
    # Slots at every sample stay off the blocked cells: each member clear by its radius.
    for s in np.linspace(0, plan.length, 25):
        for slot in plan.slots(s):
            assert disc_clear(grid, slot, r)


def door_mesh(gap: float) -> ClearanceMesh:
    """A 20 x 8 room split by a wall at x = 10 with a door ``gap`` wide at y = 4."""
    lo, hi = 4 - gap / 2, 4 + gap / 2
    return ClearanceMesh.build(outline=[(0, 0), (20, 0), (20, 8), (0, 8)],
                               holes=[[(9.5, 0.5), (10.5, 0.5), (10.5, lo), (9.5, lo)],
                                      [(9.5, hi), (10.5, hi), (10.5, 7.5), (9.5, 7.5)]])


def test_mesh_plan_uses_the_swept_radius_where_it_fits():
    mesh = door_mesh(4.0)
    plan = plan_group_path(mesh, (2, 4), (18, 4), offsets=LINE3, member_radius=0.5)
    alone = mesh.find_path((2, 4), (18, 4), radius=1.5)
    assert plan.found and (plan.formation == BULK).all()
    assert plan.cost == pytest.approx(alone.cost)


def test_mesh_plan_switches_to_the_column_at_a_narrow_door():
    mesh = door_mesh(1.4)
    plan = plan_group_path(mesh, (2, 3), (18, 5), offsets=LINE3, member_radius=0.5,
                           narrow=COLUMN3)
    assert plan.found
    assert plan.formation[0] == BULK and plan.formation[-1] == BULK
    assert (plan.formation == NARROW).any()
    assert plan.cost >= mesh.find_path((2, 3), (18, 5), radius=0.5).cost - 1e-9
    sag = 1.5 * (1 - math.cos(ARC_STEP / 2))
    for s in np.linspace(0, plan.length, 60):
        for slot in plan.slots(s):
            assert mesh.wall_distance(slot) >= 0.5 - sag


@settings(max_examples=25, deadline=None)
@given(st.floats(0.8, 4.0), st.floats(0.3, 0.5), st.floats(1.5, 6.5), st.floats(1.5, 6.5))
def test_mesh_plans_through_any_door(gap, r, y0, y1):
    mesh = door_mesh(gap)
    plan = plan_group_path(mesh, (2, y0), (18, y1), offsets=LINE3, member_radius=r,
                           narrow=COLUMN3)
    wide = mesh.find_path((2, y0), (18, y1), radius=1 + r)
    thin = mesh.find_path((2, y0), (18, y1), radius=r)
    assert plan.found == (wide.found or thin.found)
    if wide.found:                                  # the full bulk throughout, optimal
        assert (plan.formation == BULK).all() and plan.cost == pytest.approx(wide.cost)
    elif plan.found:                                # never shorter than the column's optimum
        assert plan.cost >= thin.cost - 1e-9 and plan.cost == pytest.approx(thin.cost)
        # The mesh draws its arcs as chords, which cut a corner by a little.
        sag = (1 + r) * (1 - math.cos(ARC_STEP / 2))
        for s in np.linspace(0, plan.length, 30):
            assert min(mesh.wall_distance(slot) for slot in plan.slots(s)) >= r - sag


def test_mesh_plan_without_a_narrow_formation_reports_why():
    plan = plan_group_path(door_mesh(1.4), (2, 3), (18, 5), offsets=LINE3, member_radius=0.5)
    assert not plan.found and "wide enough" in plan.reason
    with pytest.raises(InvalidQueryError, match="no path"):
        plan.slots(0.0)


@pytest.mark.parametrize("options, match", [
    ({"offsets": [[0.0, 1.0, 2.0]]}, "offsets"),
    ({"offsets": []}, "offsets"),
    ({"offsets": [[0.0, math.nan]]}, "offsets"),
    ({"narrow": COLUMN3[:2]}, "as many"),
    ({"member_radius": -1.0}, "member_radius"),
    ({"member_radius": True}, "member_radius"),
])
def test_bad_arguments_are_refused(options, match):
    kw = {"offsets": LINE3, "member_radius": 0.5, **options}
    with pytest.raises(InvalidQueryError, match=match):
        plan_group_path(corridor(3), (1.5, 3.5), (12.5, 3.5), **kw)


def test_bad_world_and_points_are_refused():
    with pytest.raises(InvalidQueryError, match="Grid or a ClearanceMesh"):
        plan_group_path("map", (0, 0), (1, 1), offsets=LINE3, member_radius=0.5)
    with pytest.raises(InvalidQueryError, match="start"):
        plan_group_path(corridor(3), (math.nan, 0), (1, 1), offsets=LINE3, member_radius=0.5)
    plan = plan_group_path(corridor(3), (1.5, 3.5), (12.5, 3.5), offsets=LINE3,
                           member_radius=0.5)
    with pytest.raises(InvalidQueryError, match="must be a finite number"):
        plan.slots("far")
    with pytest.raises(InvalidQueryError, match="GridSearch over the grid"):
        plan_group_path(corridor(3), (1.5, 3.5), (12.5, 3.5), offsets=LINE3,
                        member_radius=0.5, search=GridSearch(corridor(3)))
    with pytest.raises(InvalidQueryError, match="not on a ClearanceMesh"):
        plan_group_path(door_mesh(4.0), (2, 4), (18, 4), offsets=LINE3, member_radius=0.5,
                        search=GridSearch(corridor(3)))


def test_a_reused_search_gives_the_same_plans():
    grid = corridor(4)
    search = GridSearch(grid)
    for y in (3.5, 4.0, 4.5):
        kw = {"offsets": LINE3, "member_radius": 0.5}
        assert plan_group_path(grid, (1.5, y), (12.5, y), search=search, **kw) == \
            plan_group_path(grid, (1.5, y), (12.5, y), **kw)
