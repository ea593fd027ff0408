"""The incremental planners start with nothing built: their answers equal a plain Dijkstra
(written here) from the very first plan, after edits made before it and after random edits
and agent moves between plans; building touches no per-cell memory, and the first plan
expands about as many cells as A*."""

import heapq
import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.grid import Grid, GridSearch
from wayfinding.search.incremental import ADStar, ARAStar, DStarLite, LPAStar

STEPS = [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)]
NEED = {"no_corner_cutting": 2, "allow_one_blocked": 1, "always": 0}


def dijkstra(costs, diagonal, a, b):
    """Cost of the cheapest path from cell a to cell b (x, y): a step costs its length times
    the mean of its two cells' costs; a diagonal step needs NEED[diagonal] free side cells."""
    h, w = costs.shape
    free = np.isfinite(costs)
    if not (free[a[1], a[0]] and free[b[1], b[0]]):
        return math.inf
    dist = {a: 0.0}
    queue = [(0.0, a)]
    while queue:
        d, (x, y) = heapq.heappop(queue)
        if (x, y) == b:
            return d
        if d > dist[(x, y)]:
            continue
        for dx, dy in STEPS if diagonal != "never" else STEPS[:4]:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < w and 0 <= ny < h and free[ny, nx]):
                continue
            length = 1.0
            if dx and dy:
                if int(free[y, nx]) + int(free[ny, x]) < NEED[diagonal]:
                    continue
                length = math.sqrt(2)
            nd = d + length * 0.5 * (costs[y, x] + costs[ny, nx])
            if nd < dist.get((nx, ny), math.inf):
                dist[(nx, ny)] = nd
                heapq.heappush(queue, (nd, (nx, ny)))
    return math.inf


def random_edits(rng, costs, keep):
    h, w = costs.shape
    out = {}
    for _ in range(int(rng.integers(1, 6))):
        x, y = int(rng.integers(w)), int(rng.integers(h))
        if (x, y) not in keep:
            out[(x, y)] = float(rng.choice([np.inf, np.inf, 1.0, 2.0, 3.5, 0.5]))
    return out


def answer(planner):
    if isinstance(planner, (ARAStar, ADStar)):
        r = planner.plan()
        assert r.epsilon in (1.0, math.inf)
        return r
    return planner.replan()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100_000), h=st.integers(1, 14), w=st.integers(2, 14),
       diagonal=st.sampled_from(["no_corner_cutting", "never", "allow_one_blocked", "always"]),
       cls=st.sampled_from([DStarLite, LPAStar, ADStar, ARAStar]),
       edits_first=st.booleans())
def test_every_plan_equals_dijkstra(seed, h, w, diagonal, cls, edits_first):
    rng = np.random.default_rng(seed)
    costs = np.where(rng.random((h, w)) < 0.25, np.inf,
                     rng.choice([1.0, 1.0, 2.0, 4.0], (h, w)))
    a = (int(rng.integers(w)), int(rng.integers(h)))
    b = (int(rng.integers(w)), int(rng.integers(h)))
    costs[a[1], a[0]] = costs[b[1], b[0]] = 1.0
    kw = {"epsilon": 2.0} if cls in (ADStar, ARAStar) else {}
    planner = cls(Grid(costs, diagonal=diagonal), a, b, **kw)
    assert planner._core.initialised <= 2
    if edits_first:                                  # edits before the first plan
        change = random_edits(rng, costs, (a, b))
        for (x, y), c in change.items():
            costs[y, x] = c
        planner.update_costs(change)
    for step in range(6):
        r = answer(planner)
        expected = dijkstra(costs, diagonal, a, b)
        assert r.found == math.isfinite(expected)
        if r.found:
            assert r.cost == pytest.approx(expected, rel=1e-9)
            assert tuple(r.path[0]) == a and tuple(r.path[-1]) == b
            assert Grid(costs, diagonal=diagonal).path_cost(r.path) == pytest.approx(r.cost)
        change = random_edits(rng, costs, (a, b))
        for (x, y), c in change.items():
            costs[y, x] = c
        planner.update_costs(change)
        if cls in (DStarLite, ADStar) and r.found and len(r.path) > 1 and step % 2:
            nxt = tuple(int(v) for v in r.path[1])
            if np.isfinite(costs[nxt[1], nxt[0]]) and nxt != b:
                a = nxt
                planner.move_start(a)


@pytest.mark.parametrize("cls", [DStarLite, LPAStar, ADStar, ARAStar])
def test_building_touches_no_per_cell_memory(cls):
    side = 2048
    costs = np.ones((side, side))
    costs[side // 2, 10:] = np.inf
    grid = Grid(costs)
    assert grid.min_cost == 1.0                      # the grid's own cached summary
    tracemalloc.start()
    try:
        planner = cls(grid, (0, 0), (40, 30))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024                          # a per-cell float array: 32 MiB
    assert planner._core.initialised == 1            # only the search's root
    r = answer(planner)
    assert r.cost == pytest.approx(30 * math.sqrt(2) + 10)
    assert planner._core.initialised < 2_000         # the cells the search reached


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
def test_first_plan_expands_about_as_much_as_a_star(cls):
    rng = np.random.default_rng(3)
    costs = np.where(rng.random((96, 96)) < 0.2, np.inf, 1.0)
    costs[2, 2] = costs[90, 80] = 1.0
    grid = Grid(costs)
    ref = GridSearch(grid).find_path((2, 2), (80, 90))
    r = cls(grid, (2, 2), (80, 90)).replan()
    assert r.cost == pytest.approx(ref.cost)
    assert r.stats.expanded <= 2 * ref.stats.expanded + 10
    open_ref = GridSearch(Grid(np.ones((96, 96)))).find_path((2, 2), (80, 90))
    open_r = cls(Grid(np.ones((96, 96))), (2, 2), (80, 90)).replan()
    assert open_r.stats.expanded <= 2 * open_ref.stats.expanded + 10


@pytest.mark.parametrize("cls", [DStarLite, LPAStar])
def test_a_freed_planners_memory_serves_the_next_and_can_be_released(cls):
    import gc

    from wayfinding._kernels import _incremental
    from wayfinding.search.incremental import release_planner_memory

    rng = np.random.default_rng(5)
    costs = np.where(rng.random((40, 50)) < 0.25, np.inf, 1.0 + rng.random((40, 50)))
    costs[0, 0] = costs[-1, -1] = 1.0
    grid = Grid(costs)
    release_planner_memory()
    first = cls(grid, (0, 0), (49, 39))
    want = first.replan().cost
    del first
    gc.collect()
    kept = _incremental.pool_bytes()
    assert kept >= 24 * 40 * 50
    for a, b in [((0, 0), (49, 39)), ((49, 39), (0, 0))]:
        planner = cls(grid, a, b)                  # reuses the kept block, full of old state
        assert _incremental.pool_bytes() == 0
        assert planner.replan().cost == pytest.approx(want, rel=1e-12)
        assert want == pytest.approx(dijkstra(costs, "no_corner_cutting", a, b), rel=1e-9)
        del planner
        gc.collect()
    assert release_planner_memory() == kept
    assert _incremental.pool_bytes() == 0
    assert release_planner_memory() == 0


def test_the_kept_node_memory_has_a_size_cap():
    import gc

    from wayfinding._kernels import _incremental
    from wayfinding.errors import InvalidQueryError
    from wayfinding.search.incremental import planner_memory_cap, release_planner_memory

    costs = np.ones((60, 70))
    grid = Grid(costs)
    want = dijkstra(costs, "no_corner_cutting", (0, 0), (69, 59))
    default = planner_memory_cap()
    assert default == 128 << 20
    release_planner_memory()
    try:
        small = DStarLite(Grid(np.ones((10, 10))), (0, 0), (9, 9))
        small.replan()
        del small
        gc.collect()
        kept = _incremental.pool_bytes()
        assert 24 * 100 <= kept < 24 * 60 * 70
        assert planner_memory_cap(nbytes=kept) == default  # a cap below the next block
        planner = DStarLite(grid, (0, 0), (69, 59))
        assert planner.replan().cost == pytest.approx(want, rel=1e-9)
        del planner
        gc.collect()
        assert _incremental.pool_bytes() == kept           # the larger block was freed
        planner_memory_cap(nbytes=default)
        planner = LPAStar(grid, (0, 0), (69, 59))
        assert planner.replan().cost == pytest.approx(want, rel=1e-9)
        del planner
        gc.collect()
        kept = _incremental.pool_bytes()
        assert kept >= 24 * 60 * 70                          # within the cap: kept
        assert planner_memory_cap(nbytes=kept - 1) == default  # lowered below it: freed now
        assert _incremental.pool_bytes() == 0
        assert planner_memory_cap(nbytes=0) == kept - 1
        planner = LPAStar(grid, (0, 0), (69, 59))
        assert planner.replan().cost == pytest.approx(want, rel=1e-9)
        del planner
        gc.collect()
        assert _incremental.pool_bytes() == 0                # cap 0: nothing kept
        for bad in (-1, 1.5, "big", True):
            with pytest.raises(InvalidQueryError, match="nbytes"):
                planner_memory_cap(nbytes=bad)
    finally:
        planner_memory_cap(nbytes=default)
        release_planner_memory()


def test_a_tiled_planners_memory_is_kept_by_the_tiles_its_searches_reached():
    import gc

    from wayfinding._kernels import _incremental
    from wayfinding.search.incremental import planner_memory_cap, release_planner_memory

    rng = np.random.default_rng(9)
    costs = rng.choice([1.0, 2.0, 3.0], size=(160, 160))
    grid = Grid(costs)
    tile = 256 * 24 + 32                           # a tile's nodes, slots and bits
    default = planner_memory_cap()
    release_planner_memory()
    try:
        planner_memory_cap(nbytes=24 * 160 * 160 - 1)  # below the grid's node memory: tiles
        first = DStarLite(grid, (0, 0), (159, 150))
        assert first._core.tiled
        assert first.replan().cost == pytest.approx(
            dijkstra(costs, "no_corner_cutting", (0, 0), (159, 150)), rel=1e-9)
        del first
        gc.collect()
        kept = _incremental.pool_bytes()
        assert kept % tile == 0 and 2 * tile <= kept < 101 * tile   # tile 0 and those reached
        for cls, a, b in [(LPAStar, (5, 150), (150, 3)), (DStarLite, (80, 80), (0, 159))]:
            planner = cls(grid, a, b)              # reuses the kept tiles, full of old state
            assert _incremental.pool_bytes() == 0
            assert planner.replan().cost == pytest.approx(
                dijkstra(costs, "no_corner_cutting", a, b), rel=1e-9)
            del planner
            gc.collect()
            assert _incremental.pool_bytes() >= kept
        kept = _incremental.pool_bytes()
        assert planner_memory_cap(nbytes=kept - 1) == 24 * 160 * 160 - 1   # freed now
        assert _incremental.pool_bytes() == 0
        planner_memory_cap(nbytes=3 * tile)
        planner = LPAStar(grid, (0, 0), (159, 159))   # reaches more tiles than the cap holds
        assert planner._core.tiled
        planner.replan()
        del planner
        gc.collect()
        assert _incremental.pool_bytes() == 0
    finally:
        planner_memory_cap(nbytes=default)
        release_planner_memory()


def test_smaller_worlds_reusing_the_kept_memory_leave_its_count():
    import gc

    from wayfinding._kernels import _incremental
    from wayfinding.search.incremental import release_planner_memory

    release_planner_memory()
    try:
        big = LPAStar(Grid(np.ones((60, 70))), (0, 0), (69, 59))
        big.replan()
        del big
        gc.collect()
        kept = _incremental.pool_bytes()
        assert kept >= 24 * 60 * 70
        for _ in range(3):                 # they write within the places the big one did
            small = DStarLite(Grid(np.ones((10, 10))), (0, 0), (9, 9))
            assert small.replan().cost == pytest.approx(9 * math.sqrt(2))
            del small
            gc.collect()
            assert _incremental.pool_bytes() == kept
    finally:
        release_planner_memory()
