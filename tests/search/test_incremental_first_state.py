"""The state an incremental planner's first search on a grid leaves behind, checked against
LPA*'s invariants computed here from the grid: every expanded node holds its exact distance
from the root (g = rhs), every other node's rhs is the least g + step cost over its
neighbours, the queue holds exactly the inconsistent nodes in key order, and the first
search's order ends at the target as A* does.  Then the planners carry on from that state:
edits on the first search's open frontier, and D* Lite moving its start before an edit,
checked against a plain Dijkstra."""

import contextlib
import heapq
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.grid import Grid
from wayfinding.search.incremental import DStarLite, LPAStar, planner_memory_cap

STEPS = [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)]


def steps(costs, x, y):
    """The legal steps out of cell (x, y): ((nx, ny), cost), a diagonal step needing both
    side cells free, a step costing its length times its two cells' mean cost."""
    h, w = costs.shape
    free = np.isfinite(costs)
    if not free[y, x]:
        return
    for dx, dy in STEPS:
        nx, ny = x + dx, y + dy
        if not (0 <= nx < w and 0 <= ny < h and free[ny, nx]):
            continue
        length = 1.0
        if dx and dy:
            if not (free[y, nx] and free[ny, x]):
                continue
            length = math.sqrt(2)
        yield (nx, ny), length * 0.5 * (costs[y, x] + costs[ny, nx])


def distances(costs, a):
    """Dijkstra from cell ``a`` over the whole grid: (H, W) costs, inf where unreachable."""
    dist = np.full(costs.shape, math.inf)
    dist[a[1], a[0]] = 0.0
    queue = [(0.0, a)]
    while queue:
        d, (x, y) = heapq.heappop(queue)
        if d > dist[y, x]:
            continue
        for (nx, ny), c in steps(costs, x, y):
            if d + c < dist[ny, nx]:
                dist[ny, nx] = d + c
                heapq.heappush(queue, (d + c, (nx, ny)))
    return dist


def check_state(planner, costs, root):
    core = planner._core
    h, w = costs.shape
    g = core.g.reshape(h, w)
    rhs = core.rhs.reshape(h, w)
    exact = distances(costs, root)
    settled = np.isfinite(g)
    assert settled[root[1], root[0]]
    assert np.allclose(g[settled], exact[settled], rtol=1e-12, atol=0)
    assert np.array_equal(g[settled], rhs[settled])
    for y in range(h):
        for x in range(w):
            if (x, y) == root:
                assert rhs[y, x] == 0.0
                continue
            best = min((g[ny, nx] + c for (nx, ny), c in steps(costs, x, y)), default=math.inf)
            if math.isinf(best):
                assert math.isinf(rhs[y, x]), (x, y)
            else:
                assert rhs[y, x] == pytest.approx(best, rel=1e-11), (x, y)
    queued, ordered = core.queued()
    assert ordered
    assert len(set(queued)) == len(queued)
    inconsistent = {int(i) for i in np.flatnonzero(g.ravel() != rhs.ravel())}
    assert set(queued) == inconsistent
    return exact


@st.composite
def worlds(draw):
    h = draw(st.integers(3, 16))
    w = draw(st.integers(3, 16))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    costs = np.where(rng.random((h, w)) < draw(st.sampled_from([0.0, 0.1, 0.3])), math.inf,
                     rng.choice([1.0, 1.0, 1.5, 2.0, 0.75], size=(h, w)))
    a = (int(rng.integers(w)), int(rng.integers(h)))
    b = (int(rng.integers(w)), int(rng.integers(h)))
    costs[a[1], a[0]] = costs[b[1], b[0]] = 1.0
    return costs, a, b, rng


@contextlib.contextmanager
def layout(tiles):
    """Planners built inside keep their node memory by tiles of 16 x 16 cells (as on a
    grid whose node memory is above the pool's cap: the cap is set to 0 meanwhile) or by
    rows."""
    old = planner_memory_cap(nbytes=0) if tiles else None
    try:
        yield
    finally:
        if old is not None:
            planner_memory_cap(nbytes=old)


def grid_of(costs, masks):
    """A grid of ``costs``; with ``masks``, its step masks built first (as A* builds them),
    which the planners' first search then reads."""
    grid = Grid(costs.copy())
    if masks:
        assert grid.moves is not None
    return grid


@pytest.mark.parametrize("tiles", [False, True])
@pytest.mark.parametrize("masks", [False, True])
@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
@settings(max_examples=60, deadline=None)
@given(world=worlds())
def test_the_first_search_leaves_lpa_stars_state(cls, masks, tiles, world):
    costs, a, b, _ = world
    with layout(tiles):
        planner = cls(grid_of(costs, masks), a, b)
    r = planner.replan()
    root, target = (b, a) if cls is DStarLite else (a, b)
    exact = check_state(planner, costs, root)
    best = exact[target[1], target[0]]
    assert r.found == math.isfinite(best)
    if r.found:
        assert r.cost == pytest.approx(best, rel=1e-12)
    again = planner.replan()                          # nothing changed: nothing to do
    assert again.stats.expanded == 0 and again.cost == r.cost


@pytest.mark.parametrize("uniform", [False, True])
@pytest.mark.parametrize("tiles", [False, True])
@pytest.mark.parametrize("masks", [False, True])
@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
@settings(max_examples=40, deadline=None)
@given(world=worlds())
def test_the_first_path_is_the_one_a_walk_over_every_neighbour_takes(cls, masks, tiles,
                                                                     uniform, world):
    """The first plan's path follows the steps its search noted for each cell; a cost set
    to its own value drops them, and the walk then reads every neighbour of each cell:
    the same path and cost, bit for bit."""
    costs, a, b, _ = world
    if uniform:                                       # the search then reads no cell cost
        costs = np.where(np.isfinite(costs), 1.0, math.inf)
    grid = grid_of(costs, masks)
    assert grid.is_uniform or not uniform
    with layout(tiles):
        planner = cls(grid, a, b)
    first = planner.replan()
    planner.update_costs({a: float(costs[a[1], a[0]])})
    again = planner.replan()
    assert again.cost == first.cost
    assert np.array_equal(again.path, first.path)


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
def test_the_first_search_stops_at_the_target_on_an_open_grid(cls):
    costs = np.ones((64, 64))
    planner = cls(Grid(costs), (3, 5), (60, 41))
    r = planner.replan()
    # A* with ties broken towards the larger g walks straight down the band of equal f:
    # one expansion per step of the path (the root and the target included).
    assert r.stats.expanded == len(r.path)
    check_state(planner, costs, (60, 41) if cls is DStarLite else (3, 5))


def dijkstra_cost(costs, a, b):
    return distances(costs, a)[b[1], b[0]]


@pytest.mark.parametrize("tiles", [False, True])
@pytest.mark.parametrize("masks", [False, True])
@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
@settings(max_examples=60, deadline=None)
@given(world=worlds(), value=st.sampled_from([math.inf, 0.5, 1.0, 4.0]),
       count=st.integers(1, 4))
def test_edits_on_the_open_frontier_of_the_first_search(cls, masks, tiles, world, value,
                                                        count):
    costs, a, b, rng = world
    with layout(tiles):
        planner = cls(grid_of(costs, masks), a, b)
    planner.replan()
    g = planner._core.g.reshape(costs.shape)
    rhs = planner._core.rhs.reshape(costs.shape)
    frontier = [(int(x), int(y)) for y, x in zip(*np.nonzero(np.isinf(g) & np.isfinite(rhs)))
                if (int(x), int(y)) not in (a, b)]
    if not frontier:
        return
    picked = rng.choice(len(frontier), min(count, len(frontier)), replace=False)
    change = {frontier[int(i)]: value for i in picked}
    for (x, y), c in change.items():
        costs[y, x] = c
    planner.update_costs(change)
    r = planner.replan()
    best = dijkstra_cost(costs, a, b)
    assert r.found == math.isfinite(best)
    if r.found:
        assert r.cost == pytest.approx(best, rel=1e-9)
        assert Grid(costs).path_cost(r.path) == pytest.approx(best, rel=1e-9)


@pytest.mark.parametrize("tiles", [False, True])
@settings(max_examples=80, deadline=None)
@given(world=worlds(), value=st.sampled_from([math.inf, 0.5, 3.0]))
def test_d_star_lite_moves_its_start_after_the_first_plan_then_an_edit(tiles, world, value):
    costs, a, b, rng = world
    with layout(tiles):
        planner = DStarLite(grid_of(costs, True), a, b)
    r = planner.replan()
    if not r.found or len(r.path) < 3:
        return
    here = tuple(int(v) for v in r.path[len(r.path) // 2])
    planner.move_start(here)
    cells = [(x, y) for x in range(costs.shape[1]) for y in range(costs.shape[0])
             if (x, y) not in (here, b)]
    cell = cells[int(rng.integers(len(cells)))]
    costs[cell[1], cell[0]] = value
    planner.update_costs({cell: value})
    moved = planner.replan()
    best = dijkstra_cost(costs, here, b)
    assert moved.found == math.isfinite(best)
    if moved.found:
        assert moved.cost == pytest.approx(best, rel=1e-9)
        assert tuple(moved.path[0]) == here and tuple(moved.path[-1]) == b


@pytest.mark.parametrize("rule", ["never", "no_corner_cutting", "allow_one_blocked", "always"])
def test_the_step_masks_follow_every_diagonal_rule(rule):
    rng = np.random.default_rng(11)
    costs = np.where(rng.random((24, 30)) < 0.3, math.inf, rng.choice([1.0, 2.0], (24, 30)))
    costs[1, 1] = costs[22, 28] = 1.0
    plain = LPAStar(Grid(costs, diagonal=rule), (1, 1), (28, 22))
    masked = Grid(costs, diagonal=rule)
    assert masked.moves is not None
    fast = LPAStar(masked, (1, 1), (28, 22))
    a, b = plain.replan(), fast.replan()
    assert a.cost == b.cost and a.stats.expanded == b.stats.expanded
    assert np.array_equal(a.path, b.path)
    assert np.array_equal(plain._core.g, fast._core.g)
    assert np.array_equal(plain._core.rhs, fast._core.rhs)


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
@settings(max_examples=60, deadline=None)
@given(world=worlds())
def test_the_path_walked_with_step_masks_is_the_one_walked_without(cls, world):
    # With masks the walk reads first only the neighbours that can give the least g + step
    # within a node's rhs; it must pick the same one, the first least in step order.
    costs, a, b, _ = world
    plain = cls(Grid(costs.copy()), a, b)
    fast = cls(grid_of(costs, True), a, b)
    for planner in (plain, fast):
        planner.replan()
    r, f = plain._route(), fast._route()
    assert all(np.array_equal(x, y) for x, y in zip(r[:2], f[:2])) and r[2] == f[2]


def test_step_masks_of_another_shape_are_refused():
    planner = LPAStar(Grid(np.ones((5, 6))), (0, 0), (4, 4))
    with pytest.raises(ValueError, match="move masks of 42 cells for a 6 x 5 grid"):
        planner._core.use_moves(np.zeros(42, dtype=np.uint8))


def test_a_tiled_node_memory_plans_as_a_row_major_one_through_edits():
    rng = np.random.default_rng(8)
    costs = np.where(rng.random((37, 53)) < 0.25, math.inf, rng.choice([1.0, 2.5], (37, 53)))
    a, b = (2, 3), (50, 33)
    costs[a[1], a[0]] = costs[b[1], b[0]] = 1.0
    rows = DStarLite(Grid(costs.copy()), a, b)
    with layout(True):
        tiles = DStarLite(Grid(costs.copy()), a, b)
    assert tiles._core.tiled and not rows._core.tiled
    for _ in range(6):
        r, t = rows.replan(), tiles.replan()
        assert r.cost == t.cost and r.stats.expanded == t.stats.expanded
        assert np.array_equal(rows._core.g, tiles._core.g)
        assert np.array_equal(rows._core.rhs, tiles._core.rhs)
        assert sorted(rows._core.queued()[0]) == sorted(tiles._core.queued()[0])
        assert tiles._core.queued()[1]
        change = {(int(rng.integers(53)), int(rng.integers(37))): float(rng.choice([1.0, np.inf]))
                  for _ in range(4)}
        change.pop(a, None)
        change.pop(b, None)
        rows.update_costs(change)
        tiles.update_costs(change)
