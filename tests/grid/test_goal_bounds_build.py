"""The threaded goal-bound build against a plain reference written from the definition: for
every source s and every legal first step s -> s', the box of the goals t != s with
c(s, s') + D(s', t) = D(s, t), distances from scipy's Dijkstra over the move graph built
cell by cell from the written rules (tests/grid/grid_oracle.py).  The build floods from
each goal; the per-source kernel (``source_boxes``, a flood and first-move walk from each
source) is checked against the same reference and against the build."""

import subprocess
import sys

import numpy as np
import pytest
from grid_oracle import legal_steps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import load, movingai_names
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from strategies import TERRAIN, seeded_grids

import wayfinding as wf
from wayfinding._kernels import _goal_bounds
from wayfinding.grid.goal_bounds import EMPTY, GoalBounds
from wayfinding.grid.rules import DIRECTIONS, Diagonal

RULES = ("never", "no_corner_cutting", "allow_one_blocked", "always")


def reference_rows(grid, sources):
    """``(len(sources), 8, 4)`` boxes of the cells ``sources`` ((x, y) pairs) from the
    definition; an empty box is (EMPTY, 0, EMPTY, 0)."""
    h, w = grid.shape
    steps, rows, cols, vals = {}, [], [], []
    for a, b, c in legal_steps(grid.costs, grid.diagonal.value):
        rows.append(a[1] * w + a[0])
        cols.append(b[1] * w + b[0])
        vals.append(c)
        steps.setdefault(a, []).append((b, c))
    graph = csr_array((vals, (rows, cols)), shape=(h * w, h * w))
    need = sorted({s for s in sources} | {b for s in sources for b, _ in steps.get(s, [])})
    dist = dict(zip(need, dijkstra(graph, indices=[y * w + x for x, y in need])
                    .reshape(-1, h, w)))
    out = np.empty((len(sources), 8, 4), dtype=np.int64)
    out[:, :, 0::2] = EMPTY
    out[:, :, 1::2] = 0
    for k, s in enumerate(sources):
        ds = dist[s]
        for b, c in steps.get(s, []):
            serves = np.isclose(c + dist[b], ds, rtol=1e-9, atol=0.0) & np.isfinite(ds)
            serves[s[1], s[0]] = False
            ys, xs = np.nonzero(serves)
            if len(xs):
                d = DIRECTIONS.index((b[0] - s[0], b[1] - s[1]))
                out[k, d] = (xs.min(), xs.max(), ys.min(), ys.max())
    return out


def canonical(grid):
    return grid.is_uniform and grid.diagonal is Diagonal.NO_CORNER_CUTTING


def kernel_rows(grid, sources, threads):
    """The per-source kernel's boxes of the cells ``sources`` on ``threads`` threads."""
    flat = np.array([grid.index(s) for s in sources], dtype=np.int64)
    out = np.empty((len(flat), 8, 4), dtype=np.uint16)
    _goal_bounds.source_boxes(grid.padded_costs, grid.moves, grid.width + 2, flat,
                              canonical(grid), out, threads)
    return out


def every_source_rows(grid):
    """The per-source kernel's boxes of every cell, shaped as ``GoalBounds.boxes``."""
    free = np.flatnonzero(np.isfinite(grid.padded_costs)).astype(np.int64)
    want = np.empty((len(grid.moves), 8, 4), dtype=np.uint16)
    want[:, :, 0::2] = EMPTY
    want[:, :, 1::2] = 0
    out = np.empty((len(free), 8, 4), dtype=np.uint16)
    _goal_bounds.source_boxes(grid.padded_costs, grid.moves, grid.width + 2, free,
                              canonical(grid), out, 2)
    want[free] = out
    return want


def spread_sources(grid, count):
    """``count`` passable cells (x, y) spread evenly over the row-major order."""
    free = np.argwhere(grid.passable)
    pick = free[np.linspace(0, len(free) - 1, min(count, len(free))).astype(int)]
    return [(int(x), int(y)) for y, x in pick]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=seeded_grids(max_side=14, terrain=TERRAIN, rules=RULES),
       workers=st.integers(1, 4), chunk=st.integers(1, 40))
def test_threaded_build_equals_the_definition(grid, workers, chunk):
    gb = GoalBounds.build(grid, workers=workers, chunk=chunk, progress=False)
    free = [(int(x), int(y)) for y, x in np.argwhere(grid.passable)]
    want = np.empty_like(gb.boxes, dtype=np.int64)
    want[:, :, 0::2] = EMPTY
    want[:, :, 1::2] = 0
    if free:
        want[[grid.index(s) for s in free]] = reference_rows(grid, free)
    assert np.array_equal(gb.boxes.astype(np.int64), want)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=seeded_grids(max_side=16, terrain=TERRAIN, rules=RULES))
def test_build_by_goals_equals_the_per_source_floods(grid):
    """Flooding from each goal and widening every cell's optimal steps gives the boxes of
    the per-source floods and first-move walks."""
    assert np.array_equal(GoalBounds.build(grid, workers=2, progress=False, chunk=7).boxes,
                          every_source_rows(grid))


@pytest.mark.parametrize("name", movingai_names("dao/den312d"))
def test_game_map_build_equals_the_per_source_floods(name):
    grid = load(name)[0]
    built = GoalBounds.build(grid, workers=2, progress=False)
    assert np.array_equal(built.boxes, every_source_rows(grid))
    sources = spread_sources(grid, 12)
    assert np.array_equal(built.boxes[[grid.index(s) for s in sources]].astype(np.int64),
                          reference_rows(grid, sources))


@pytest.mark.slow
@pytest.mark.parametrize("name", movingai_names("dao/arena2"))
def test_large_game_map_build_equals_the_per_source_floods(name):
    grid = load(name)[0]
    assert np.array_equal(GoalBounds.build(grid, workers=2, progress=False).boxes,
                          every_source_rows(grid))


@pytest.mark.parametrize("name", movingai_names("dao/den312d", "dao/arena2"))
def test_game_map_sources_equal_the_definition(name):
    grid = load(name)[0]
    sources = spread_sources(grid, 12)
    want = reference_rows(grid, sources)
    for threads in (1, 2, 3):
        assert np.array_equal(kernel_rows(grid, sources, threads).astype(np.int64), want)


@pytest.mark.parametrize("name", movingai_names("dao/den312d"))
def test_weighted_game_map_equals_the_definition(name):
    """Plain Dijkstra floods: terrain costs and another diagonal rule on a game map."""
    base = load(name)[0]
    costs = np.where(base.passable, 1.0 + (np.arange(base.width) % 3) * 0.5, np.inf)
    grid = wf.Grid(costs, diagonal="allow_one_blocked")
    sources = spread_sources(grid, 10)
    assert np.array_equal(kernel_rows(grid, sources, 2).astype(np.int64),
                          reference_rows(grid, sources))


@pytest.mark.parametrize("name", movingai_names("dao/den312d"))
def test_thread_count_does_not_change_the_index(name):
    grid = load(name)[0]
    one = GoalBounds.build(grid, workers=1, progress=False)
    for workers, chunk in ((2, None), (3, 97), (8, 5)):
        many = GoalBounds.build(grid, workers=workers, chunk=chunk, progress=False)
        assert np.array_equal(one.boxes, many.boxes)
    assert one.options["flood"] == "canonical"
    assert GoalBounds.build(grid, workers=4, progress=False).options["chunk"] == 256


@pytest.mark.slow
@pytest.mark.parametrize("name", movingai_names("dao/brc202d", "random/random512-25-0",
                                                "cities/Boston_0_512"))
def test_large_map_sources_equal_the_definition(name):
    grid = load(name)[0]
    sources = spread_sources(grid, 8)
    assert np.array_equal(kernel_rows(grid, sources, 2).astype(np.int64),
                          reference_rows(grid, sources))


def test_kernels_check_their_arguments():
    grid = wf.Grid(np.ones((4, 5), dtype=bool))
    wp, n = grid.width + 2, len(grid.moves)
    src = np.array([grid.index((0, 0))], dtype=np.int64)
    out = np.empty((1, 8, 4), dtype=np.uint16)
    boxes = np.empty((n, 8, 4), dtype=np.uint16)
    boxes[:, :, 0::2] = EMPTY
    boxes[:, :, 1::2] = 0
    for kernel, rows in ((_goal_bounds.source_boxes, out), (_goal_bounds.goal_bounds, boxes)):
        args = (grid.padded_costs, grid.moves, wp, src, True, rows)
        with pytest.raises(ValueError, match="threads"):
            kernel(*args, 0)
        with pytest.raises(ValueError, match="width"):
            kernel(grid.padded_costs, grid.moves, wp + 3, src, True, rows)
        with pytest.raises(ValueError, match="sizes"):
            kernel(grid.padded_costs, grid.moves, wp, src, True,
                   np.empty((2, 8, 4), dtype=np.uint16))
        for bad in (0, n - 1, grid.index((0, 0)) - 1):
            with pytest.raises(ValueError, match=f"cell {bad} is not a passable"):
                kernel(grid.padded_costs, grid.moves, wp, np.array([bad]), True, rows)
        assert kernel(grid.padded_costs, grid.moves, wp, np.empty(0, dtype=np.int64), True,
                      rows if rows is boxes else out[:0], 2) == 0
    assert _goal_bounds.source_boxes(grid.padded_costs, grid.moves, wp, src, True, out, 2) > 0
    # On an open 5 x 4 map the east step from the corner serves the goals with x > y.
    assert out[0, DIRECTIONS.index((1, 0))].tolist() == [1, 4, 0, 3]
    every = np.flatnonzero(np.isfinite(grid.padded_costs)).astype(np.int64)
    assert _goal_bounds.goal_bounds(grid.padded_costs, grid.moves, wp, every, True, boxes,
                                    2) > 0
    assert np.array_equal(boxes[src[0]], out[0])


FORK_SCRIPT = """
import multiprocessing as mp, numpy as np, wayfinding as wf
from wayfinding.grid.goal_bounds import GoalBounds
grid = wf.Grid(np.ones((24, 24), dtype=bool))
want = GoalBounds.build(grid, workers=2, progress=False).boxes

def child(queue):
    queue.put(bool(np.array_equal(GoalBounds.build(grid, workers=2, progress=False).boxes,
                                  want)))

if __name__ == "__main__":
    queue = mp.get_context("fork").Queue()
    proc = mp.get_context("fork").Process(target=child, args=(queue,))
    proc.start()
    try:
        print("equal" if queue.get(timeout=60) else "differ")
    finally:
        proc.kill()
        proc.join()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork start method")
def test_a_child_forked_after_a_threaded_build_can_build(tmp_path):
    """GNU OpenMP cannot start threads in a child forked after its parent ran a team: the
    child's build must fall back to one thread instead of waiting forever."""
    script = tmp_path / "fork_build.py"
    script.write_text(FORK_SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["equal"]
