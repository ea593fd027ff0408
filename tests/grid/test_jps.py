"""Online JPS and JPS+ against the A* / Dijkstra oracle, a brute-force distance table, and the
Moving AI optimal lengths."""

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import generated_grid, generated_scen, load, movingai_names
from strategies import seeded_grid_problems

import wayfinding as wf
from wayfinding._kernels import _jps_plus
from wayfinding._kernels._workspace import Workspace
from wayfinding.errors import (
    IndexFormatError,
    IndexMismatchError,
    InvalidGridError,
    InvalidQueryError,
)
from wayfinding.grid import GridSearch
from wayfinding.grid.index import GridIndex, load_index
from wayfinding.grid.jps import MAX_SIDE, JPSPlus, _find_path_jps, primary_jump_points
from wayfinding.grid.rules import DIRECTIONS

SQRT2 = math.sqrt(2.0)
N, E, S, W, NE, SE, SW, NW = range(8)


# ---------------------------------------------------------------- helpers


def jps(grid, start, goal, **options):
    """Online jump point search through the grid search's ``method="jps"``."""
    return GridSearch(grid).find_path(start, goal, method="jps", **options)

def assert_legal(grid, result, start, goal):
    """Start and goal at the ends, every step one legal move, cost = the path's cost."""
    path = result.path
    assert path.dtype == np.int64 and path.ndim == 2 and path.shape[1] == 2
    assert tuple(path[0]) == tuple(start) and tuple(path[-1]) == tuple(goal)
    for p, q in zip(path[:-1], path[1:]):
        assert math.isfinite(grid.step_cost(tuple(map(int, p)), tuple(map(int, q)))), \
            f"illegal step {p} -> {q}"
    assert math.isclose(grid.path_cost(path), result.cost, rel_tol=0, abs_tol=1e-9)


def all_results(grid, index, start, goal, width=0.1):
    """(name, result) of every JPS flavour for one query."""
    return [("jps", jps(grid, start, goal)),
            ("jps_plus", index.find_path(start, goal)),
            ("jps_plus_buckets", index.find_path(start, goal, buckets=True,
                                                 bucket_width=width))]


def check_query(grid, index, start, goal, width=0.1):
    ref = GridSearch(grid).find_path(start, goal)
    for name, r in all_results(grid, index, start, goal, width):
        assert r.algorithm == name
        assert r.found == ref.found, name
        if not ref.found:
            assert math.isinf(r.cost) and r.path.shape == (0, 2)
            continue
        assert_legal(grid, r, start, goal)
        if name == "jps_plus_buckets":
            assert r.cost <= ref.cost + width + 1e-9, (name, r.cost, ref.cost)
            assert r.cost >= ref.cost - 1e-9
        else:
            assert math.isclose(r.cost, ref.cost, rel_tol=0, abs_tol=1e-9), (name, r.cost,
                                                                            ref.cost)


def brute_distances(grid):
    """The JPS+ table written straight from its definition, cell by cell: ``(H, W, 8)``."""
    h, w = grid.shape

    def free(x, y):
        return 0 <= x < w and 0 <= y < h and bool(grid.passable[y, x])

    def legal(x, y, d):
        dx, dy = DIRECTIONS[d]
        if not (free(x, y) and free(x + dx, y + dy)):
            return False
        return not (dx and dy) or (free(x + dx, y) and free(x, y + dy))

    def jump_point(x, y, d):
        dx, dy = DIRECTIONS[d]
        px, py = x - dx, y - dy
        if not (free(x, y) and free(px, py)):
            return False
        sides = [(1, 0), (-1, 0)] if dx == 0 else [(0, 1), (0, -1)]
        return any(free(x + sx, y + sy) and not free(px + sx, py + sy) for sx, sy in sides)

    def straight(x, y, d):
        dx, dy = DIRECTIONS[d]
        k = 0
        while legal(x, y, d):
            x, y, k = x + dx, y + dy, k + 1
            if jump_point(x, y, d):
                return k
        return -k

    def diagonal(x, y, d):
        dx, dy = DIRECTIONS[d]
        parts = [DIRECTIONS.index((0, dy)), DIRECTIONS.index((dx, 0))]
        k = 0
        while legal(x, y, d):
            x, y, k = x + dx, y + dy, k + 1
            if any(straight(x, y, c) > 0 for c in parts):
                return k
        return -k

    out = np.zeros((h, w, 8), dtype=np.int16)
    for y in range(h):
        for x in range(w):
            if free(x, y):
                for d in range(8):
                    out[y, x, d] = straight(x, y, d) if d < 4 else diagonal(x, y, d)
    return out


class Bounds:
    """Goal-bounding data in the form JPS+ reads: ``boxes`` (Np, 8, 4) uint16."""

    def __init__(self, boxes):
        self.boxes = boxes


def oracle_bounds(grid):
    """Exact goal boxes by brute force: for each cell u and legal step d, the bounding box of
    the goals g with dist(u + d, g) + c(u, u + d) == dist(u, g)."""
    h, w = grid.shape
    search = GridSearch(grid)
    dist = {(int(x), int(y)): search.distance_map((int(x), int(y)))
            for y, x in np.argwhere(grid.passable)}
    boxes = np.zeros(((h + 2) * (w + 2), 8, 4), dtype=np.uint16)
    boxes[:, :, 0] = 1  # empty: xmin > xmax
    for (x, y), du in dist.items():
        u = grid.index((x, y))
        for d, (dx, dy) in enumerate(DIRECTIONS):
            if not grid.in_bounds((x + dx, y + dy)):
                continue
            c = grid.step_cost((x, y), (x + dx, y + dy))
            if not math.isfinite(c):
                continue
            dv = dist[(x + dx, y + dy)]
            reach = np.isfinite(du)
            ok = np.zeros_like(reach)
            ok[reach] = np.abs(dv[reach] + c - du[reach]) <= 1e-9
            ys, xs = np.nonzero(ok)
            boxes[u, d] = (xs.min(), xs.max(), ys.min(), ys.max())
    return Bounds(boxes)


def grids(max_side=40):
    """Uniform grids of 1 to ``max_side`` cells a side, (0, 0) free, a start and a goal."""
    return seeded_grid_problems(max_side=max_side, densities=(0.0, 0.1, 0.2, 0.3, 0.4),
                                open_corner="always")


# ---------------------------------------------------------------- preprocessing

def test_straight_sweep_row_with_given_flags():
    free = np.array([0, 1, 1, 1, 1, 1, 0], dtype=np.uint8)
    jump = np.array([0, 0, 0, 1, 0, 0, 0], dtype=np.uint8)
    assert _jps_plus.sweep_line(free, jump).tolist() == [0, 0, -1, -2, 1, 2, 0]


def test_sweep_line_rejects_mismatched_flags():
    with pytest.raises(ValueError, match="jump"):
        _jps_plus.sweep_line(np.ones(3, np.uint8), np.ones(4, np.uint8))


PILLAR = wf.Grid.from_ascii("""
    .....
    .....
    ..#..
    ..#..
    .....""")


def test_jump_point_past_the_end_of_a_wall():
    jp = primary_jump_points(PILLAR)
    assert jp.shape == (5, 5, 4)
    # Travelling north beside the pillar, the cell past its end is a jump point...
    assert jp[1, 3, N] and jp[1, 1, N]
    assert not jp[2, 3, N] and not jp[0, 3, N]
    # ...and likewise travelling south; the flags are per direction.
    assert jp[4, 3, S] and jp[4, 1, S] and not jp[1, 3, S]
    # Travelling east along rows 1 and 4, the pillar ends below / above (3, 1) and (3, 4).
    assert jp[1, 3, E] and jp[4, 3, E] and jp[1, 1, W] and jp[4, 1, W]
    assert jp.sum() == 8


def test_straight_distance_counts_only_jump_points_of_its_direction():
    d = JPSPlus.build(PILLAR).distances
    assert d.shape == (5, 5, 8) and d.dtype == np.int16
    # (3, 4) going north: (3, 3) and (3, 2) are no jump points for north, (3, 1) is.
    assert d[4, 3, N] == 3
    # (3, 3) is two steps from it, and one step south of a jump point for south.
    assert d[3, 3, N] == 2 and d[3, 3, S] == 1
    # (3, 0) going north hits the border at once; going west it has 3 free steps.
    assert d[0, 3, N] == 0 and d[0, 3, W] == -3


def test_diagonal_distances():
    d = JPSPlus.build(PILLAR).distances
    # (4, 2) going NW reaches (3, 1), a jump point going north: distance 1.
    assert d[2, 4, NW] == 1
    # (3, 2) has the pillar at its west side: no diagonal move west (no corner cutting).
    assert d[2, 3, NW] == 0 and d[2, 3, SW] == 0
    # (4, 4) going NW: (3, 3) has a straight jump point north of it (at (3, 1)).
    assert d[4, 4, NW] == 1


def test_blocked_cells_store_zeros():
    d = JPSPlus.build(PILLAR).distances
    assert not d[2, 2].any() and not d[3, 2].any()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids(max_side=14))
def test_distance_table_matches_its_definition(case):
    grid, _, _ = case
    assert np.array_equal(JPSPlus.build(grid).distances, brute_distances(grid))


def test_build_records_time_memory_and_options():
    jp = JPSPlus.build(PILLAR)
    assert jp.kind == "jps_plus" and jp.build_time >= 0
    assert jp.nbytes == 7 * 7 * 8 * 2
    assert jp.info()["kind"] == "jps_plus"
    assert "JPSPlus(5x5" in repr(jp)


# ---------------------------------------------------------------- worked examples

OPEN_2X5 = wf.Grid(np.ones((2, 5), dtype=bool))


@pytest.mark.parametrize("buckets", [False, True])
def test_open_2x5_grid(buckets):
    start, goal = (0, 1), (4, 0)
    jp = JPSPlus.build(OPEN_2X5)
    for r in (jps(OPEN_2X5, start, goal), jp.find_path(start, goal, buckets=buckets)):
        assert r.found and math.isclose(r.cost, 3 + SQRT2, abs_tol=1e-12)
        assert_legal(OPEN_2X5, r, start, goal)
        assert len(r.path) == 5


def test_goal_reached_only_through_a_target_jump_point():
    grid = wf.Grid(np.ones((5, 5), dtype=bool))
    jp = JPSPlus.build(grid)
    # An empty map has no jump points: every distance is a wall distance.
    assert (jp.distances <= 0).all()
    r = jp.find_path((0, 4), (2, 0), record=True)
    assert r.found and math.isclose(r.cost, 2 + 2 * SQRT2, abs_tol=1e-12)
    assert_legal(grid, r, (0, 4), (2, 0))
    # The target jump point where the NE diagonal meets the goal's column is expanded.
    assert [2, 2] in r.expanded_nodes.tolist()
    assert r.expanded_nodes.tolist()[0] == [0, 4] and r.expanded_nodes.tolist()[-1] == [2, 0]


def test_goal_behind_a_wall_through_target_and_jump_points():
    grid = wf.Grid.from_ascii("""
        ..........
        .########.
        .#......#.
        .#.####.#.
        .#.#..#.#.
        .#.#.##.#.
        .#.#....#.
        .#.######.
        .#........
        .#########""")
    check_query(grid, JPSPlus.build(grid), (0, 9), (4, 4))


@pytest.mark.parametrize("goal", [(1, 0), (1, 1), (0, 1)])
def test_goal_adjacent_to_start(goal):
    grid = wf.Grid(np.ones((3, 3), dtype=bool))
    jp = JPSPlus.build(grid)
    for _, r in all_results(grid, jp, (0, 0), goal):
        assert r.found and len(r.path) == 2
        assert math.isclose(r.cost, grid.step_cost((0, 0), goal))


def test_goal_equals_start():
    jp = JPSPlus.build(PILLAR)
    for name, r in all_results(PILLAR, jp, (1, 1), (1, 1)):
        assert r.found and r.cost == 0.0 and r.path.tolist() == [[1, 1]], name
        assert r.stats.expanded == 0
    r = jp.find_path((1, 1), (1, 1), record=True)
    assert r.expanded_nodes.shape == (0, 2) and r.open_nodes.shape == (0, 2)


def test_unreachable_goal():
    grid = wf.Grid.from_ascii("""
        ..#..
        ..#..
        ..#..""")
    jp = JPSPlus.build(grid)
    for name, r in all_results(grid, jp, (0, 0), (4, 2)):
        assert not r.found and math.isinf(r.cost) and r.path.shape == (0, 2), name
        assert r.stats.expanded == 0


def test_diagonal_gap_is_not_a_passage():
    grid = wf.Grid.from_ascii("""
        .#
        #.""")
    jp = JPSPlus.build(grid)
    for _, r in all_results(grid, jp, (0, 0), (1, 1)):
        assert not r.found


@pytest.mark.parametrize("cell", [(-1, 0), (5, 0), (0, 5), (2, 2), (1.5, 0), "a", (0,), None,
                                  (2**70, 0), (0, -2**70)])
@pytest.mark.parametrize("which", ["start", "goal"])
def test_bad_endpoints_raise(cell, which):
    jp = JPSPlus.build(PILLAR)
    ends = {"start": (0, 0), "goal": (4, 4)}
    ends[which] = cell
    with pytest.raises(InvalidQueryError, match=which):
        jps(PILLAR, ends["start"], ends["goal"])
    with pytest.raises(InvalidQueryError, match=which):
        jp.find_path(ends["start"], ends["goal"])
    with pytest.raises(InvalidQueryError, match=which):
        jp.find_path(ends["start"], ends["goal"], buckets=True)


def test_endpoints_of_other_types_are_accepted():
    jp = JPSPlus.build(PILLAR)
    for start, goal in [(np.array([0, 0]), [4, 4]), ((np.int64(0), np.int32(0)), (4, 4))]:
        assert jp.find_path(start, goal).found
        assert jps(PILLAR, start, goal).found


# ---------------------------------------------------------------- random grids

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids())
def test_random_grids_match_astar(case):
    grid, start, goal = case
    check_query(grid, JPSPlus.build(grid), start, goal)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids(), width=st.sampled_from([0.05, 0.5, 2.0, 7.5]))
def test_bucket_bound_holds_for_any_width(case, width):
    grid, start, goal = case
    ref = GridSearch(grid).find_path(start, goal)
    r = JPSPlus.build(grid).find_path(start, goal, buckets=True, bucket_width=width)
    assert r.found == ref.found
    if r.found:
        assert_legal(grid, r, start, goal)
        assert ref.cost - 1e-9 <= r.cost <= ref.cost + width + 1e-9


def test_wide_buckets_reopen_closed_nodes_and_keep_the_bound():
    rng = np.random.default_rng(1)
    grid = wf.Grid(rng.random((40, 40)) >= 0.3)
    jp = JPSPlus.build(grid)
    free = np.argwhere(grid.passable)
    reopened = 0
    for _ in range(60):
        a, b = (tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(2))
        exact = jp.find_path(a, b)
        r = jp.find_path(a, b, buckets=True, bucket_width=5.0)
        assert r.found == exact.found
        if r.found:
            assert_legal(grid, r, a, b)
            assert exact.cost - 1e-9 <= r.cost <= exact.cost + 5.0 + 1e-9
        reopened += r.stats.reopened
    assert reopened > 0


def test_reversed_queries_cost_the_same():
    rng = np.random.default_rng(7)
    grid = wf.Grid(rng.random((30, 30)) >= 0.3)
    jp = JPSPlus.build(grid)
    free = np.argwhere(grid.passable)
    for _ in range(40):
        a, b = (tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(2))
        f, r = jp.find_path(a, b), jp.find_path(b, a)
        assert f.found == r.found
        if f.found:
            assert math.isclose(f.cost, r.cost, abs_tol=1e-9)


# ---------------------------------------------------------------- goal bounding hook

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grids(max_side=10), seed=st.integers(0, 2**32 - 1))
def test_exact_goal_bounds_keep_optimality_and_prune(case, seed):
    grid, _, _ = case
    jp = JPSPlus.build(grid)
    bounds = oracle_bounds(grid)
    rng = np.random.default_rng(seed)
    free = np.argwhere(grid.passable)
    for _ in range(8):
        a, b = (tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(2))
        plain = jp.find_path(a, b)
        bounded = jp.find_path(a, b, bounds=bounds)
        assert bounded.algorithm == "jps_plus_gb"
        assert bounded.found == plain.found
        if plain.found:
            assert_legal(grid, bounded, a, b)
            assert math.isclose(bounded.cost, plain.cost, abs_tol=1e-9)
            assert bounded.stats.expanded <= plain.stats.expanded
        both = jp.find_path(a, b, bounds=bounds, buckets=True, bucket_width=0.5)
        assert both.algorithm == "jps_plus_gb_buckets" and both.found == plain.found
        if plain.found:
            assert both.cost <= plain.cost + 0.5 + 1e-9


def test_empty_goal_boxes_prune_everything():
    grid = wf.Grid(np.ones((4, 4), dtype=bool))
    jp = JPSPlus.build(grid)
    boxes = np.zeros((36, 8, 4), dtype=np.uint16)
    boxes[:, :, 0] = 1
    r = jp.find_path((0, 0), (3, 3), bounds=Bounds(boxes))
    assert not r.found and r.stats.expanded == 1


@pytest.mark.parametrize("boxes", [
    np.zeros((36, 8, 4), dtype=np.int32),
    np.zeros((35, 8, 4), dtype=np.uint16),
    np.zeros((36, 4, 8), dtype=np.uint16),
    np.zeros((36, 8, 8), dtype=np.uint16)[:, :, ::2],
    [[0, 0, 0, 0]],
    None,
])
def test_bad_bounds_raise(boxes):
    jp = JPSPlus.build(wf.Grid(np.ones((4, 4), dtype=bool)))
    with pytest.raises(InvalidQueryError, match="boxes"):
        jp.find_path((0, 0), (3, 3), bounds=Bounds(boxes))
    with pytest.raises(InvalidQueryError, match="boxes"):
        jp.find_path((0, 0), (3, 3), bounds=object())


@pytest.mark.parametrize("width", [0, -1, math.nan, math.inf, "0.1", True, 1e-9])
def test_bad_bucket_width_raises(width):
    jp = JPSPlus.build(PILLAR)
    with pytest.raises(InvalidQueryError, match="bucket_width"):
        jp.find_path((0, 0), (4, 4), buckets=True, bucket_width=width)


# ---------------------------------------------------------------- recording, threads, API

@pytest.mark.parametrize("buckets", [False, True])
def test_record_returns_jump_points_and_open_list(buckets):
    rng = np.random.default_rng(3)
    passable = rng.random((25, 25)) >= 0.25
    passable[0, 0] = True
    islands = wf.Grid(passable).components
    grid = wf.Grid(islands == islands[0, 0])
    jp = JPSPlus.build(grid)
    free = np.argwhere(grid.passable)
    goal = (int(free[-1][1]), int(free[-1][0]))
    r = jp.find_path((0, 0), goal, record=True, buckets=buckets)
    plain = jp.find_path((0, 0), goal, buckets=buckets)
    assert r.found and math.isclose(r.cost, plain.cost)
    assert r.expanded_nodes.shape == (r.stats.expanded, 2)
    assert r.expanded_nodes[0].tolist() == [0, 0] and r.expanded_nodes[-1].tolist() == list(goal)
    assert r.open_nodes.ndim == 2 and r.open_nodes.shape[1] == 2
    assert len({tuple(c) for c in r.open_nodes.tolist()}) == len(r.open_nodes)
    assert not {tuple(c) for c in r.open_nodes.tolist()} & \
        {tuple(c) for c in r.expanded_nodes.tolist()}
    o = jps(grid, (0, 0), goal, record=True)
    assert o.expanded_nodes.shape == (o.stats.expanded, 2)
    assert o.expanded_nodes[-1].tolist() == list(goal)
    assert o.open_nodes.ndim == 2


def test_counters_are_consistent():
    grid, scen = generated_grid("caves"), generated_scen("caves")
    jp = JPSPlus.build(grid)
    p = max(scen.problems, key=lambda p: p.optimal)
    r = jp.find_path(p.start, p.goal)
    s = r.stats
    assert r.found and 0 < s.expanded <= s.generated and s.max_open >= 1
    assert s.reopened == 0 and s.elapsed > 0
    o = jps(grid, p.start, p.goal)
    assert o.found and math.isclose(o.cost, r.cost, abs_tol=1e-9)
    assert 0 < o.stats.expanded <= o.stats.generated


def test_jps_workspace_argument():
    ws = Workspace(7 * 7)
    r = _find_path_jps(PILLAR, (0, 0), (4, 4), workspace=ws)
    assert r.found and math.isclose(r.cost, GridSearch(PILLAR).find_path((0, 0), (4, 4)).cost)
    with pytest.raises(InvalidQueryError, match="workspace"):
        _find_path_jps(PILLAR, (0, 0), (4, 4), workspace=Workspace(10))
    with pytest.raises(InvalidQueryError, match="workspace"):
        _find_path_jps(PILLAR, (0, 0), (4, 4), workspace="scratch")


def test_threads_share_one_index():
    rng = np.random.default_rng(11)
    grid = wf.Grid(rng.random((60, 60)) >= 0.3)
    jp = JPSPlus.build(grid)
    free = np.argwhere(grid.passable)
    pairs = [tuple(tuple(int(v) for v in free[rng.integers(len(free))][::-1]) for _ in range(2))
             for _ in range(200)]
    want = [(jp.find_path(a, b).cost, jp.find_path(a, b, buckets=True).cost) for a, b in pairs]
    main_scratch = jp.scratch()

    def run(chunk):
        assert jp.scratch() is not main_scratch
        return [(k, jp.find_path(a, b).cost, jp.find_path(a, b, buckets=True).cost)
                for k, (a, b) in chunk]

    with ThreadPoolExecutor(max_workers=3) as pool:
        parts = list(pool.map(run, [list(enumerate(pairs))[k::3] for k in range(3)]))
    got = {k: (c, cb) for part in parts for k, c, cb in part}
    assert len(got) == len(pairs)
    for k, costs in got.items():
        assert costs == want[k]


def test_scratch_reports_memory():
    jp = JPSPlus.build(PILLAR)
    sc = jp.scratch()
    assert sc is jp.scratch() and sc.nbytes >= 49 * 32
    jp.find_path((0, 0), (4, 4), buckets=True)
    assert sc.bucket_slots >= 4


def test_path_costs_match_single_queries():
    rng = np.random.default_rng(13)
    grid = wf.Grid(rng.random((40, 50)) >= 0.3)
    jp = JPSPlus.build(grid)
    free = np.argwhere(grid.passable)[:, ::-1]
    starts = free[rng.integers(len(free), size=300)]
    goals = free[rng.integers(len(free), size=300)]
    for opts in ({}, {"buckets": True, "bucket_width": 0.5}):
        got = jp.path_costs(starts, goals, **opts)
        want = [jp.find_path(tuple(map(int, a)), tuple(map(int, b)), **opts).cost
                for a, b in zip(starts, goals)]
        assert got.shape == (300,) and got.dtype == np.float64
        assert np.array_equal(got, np.array(want))
    assert jp.path_costs(np.empty((0, 2), int), np.empty((0, 2), int)).shape == (0,)


@pytest.mark.parametrize("starts, goals, match", [
    ([[0, 0], [2, 2]], [[4, 4], [4, 4]], "starts\\[1\\]"),
    ([[0, 0], [0, 0]], [[4, 4], [9, 4]], "goals\\[1\\]"),
    ([[0, 0]], [[4, 4], [4, 4]], "1 starts but 2 goals"),
    ([0, 0], [4, 4], "shape"),
    ([[0.0, 0.0]], [[4, 4]], "integers"),
])
def test_path_costs_bad_input(starts, goals, match):
    with pytest.raises(InvalidQueryError, match=match):
        JPSPlus.build(PILLAR).path_costs(starts, goals)


# ---------------------------------------------------------------- unsupported grids

@pytest.mark.parametrize("rule", ["never", "allow_one_blocked", "always"])
def test_other_diagonal_rules_raise(rule):
    grid = wf.Grid(np.ones((3, 3), dtype=bool), diagonal=rule)
    with pytest.raises(InvalidGridError, match="no_corner_cutting"):
        JPSPlus.build(grid)
    with pytest.raises(InvalidGridError, match="no_corner_cutting"):
        jps(grid, (0, 0), (2, 2))
    with pytest.raises(InvalidGridError):
        primary_jump_points(grid)


def test_weighted_grid_raises():
    grid = wf.Grid(np.array([[1.0, 2.0], [1.0, 1.0]]))
    with pytest.raises(InvalidGridError, match="uniform"):
        JPSPlus.build(grid)
    with pytest.raises(InvalidGridError, match="uniform"):
        jps(grid, (0, 0), (1, 1))


@pytest.mark.parametrize("method", ["jps", "jps2"])
def test_the_refusal_of_another_grid_carries_no_lookup_error(method):
    """The error is the whole story: no 'KeyError: _jump_grid' printed above it."""
    grid = wf.Grid(np.ones((3, 3), dtype=bool), diagonal="always")
    with pytest.raises(InvalidGridError) as info:
        GridSearch(grid).find_path((0, 0), (2, 2), method=method)
    assert info.value.__context__ is None and info.value.__cause__ is None


def test_not_a_grid_raises():
    with pytest.raises(InvalidGridError):
        JPSPlus.build(np.ones((3, 3), dtype=bool))
    with pytest.raises(InvalidGridError):
        _find_path_jps("map", (0, 0), (1, 1))


def test_oversized_grid_raises():
    grid = wf.Grid(np.ones((1, MAX_SIDE + 1), dtype=bool))
    with pytest.raises(InvalidGridError, match=str(MAX_SIDE)):
        JPSPlus.build(grid)


# ---------------------------------------------------------------- save / load

def test_save_load_round_trip(tmp_path):
    rng = np.random.default_rng(5)
    grid = wf.Grid(rng.random((20, 30)) >= 0.25)
    jp = JPSPlus.build(grid)
    path = tmp_path / "arena.npz"
    jp.save(path)
    for loaded in (JPSPlus.load(path, grid), GridIndex.load(path, grid), load_index(path, grid)):
        assert isinstance(loaded, JPSPlus)
        assert np.array_equal(loaded.arrays["dist"], jp.arrays["dist"])
        assert loaded.build_time == pytest.approx(jp.build_time)
        free = np.argwhere(grid.passable)
        for k in range(0, len(free), 37):
            a, b = (int(free[k][1]), int(free[k][0])), (int(free[-1 - k][1]),
                                                        int(free[-1 - k][0]))
            x, y = jp.find_path(a, b), loaded.find_path(a, b)
            assert x.found == y.found and (not x.found or x.cost == y.cost)
            assert np.array_equal(x.path, y.path)


def test_load_with_another_map_raises(tmp_path):
    grid = wf.Grid(np.ones((6, 6), dtype=bool))
    path = tmp_path / "open.npz"
    JPSPlus.build(grid).save(path)
    changed = np.ones((6, 6), dtype=bool)
    changed[2, 3] = False
    with pytest.raises(IndexMismatchError):
        JPSPlus.load(path, wf.Grid(changed))
    with pytest.raises(IndexMismatchError):
        JPSPlus.load(path, wf.Grid(np.ones((6, 6), dtype=bool), diagonal="always"))


def test_load_with_damaged_table_raises(tmp_path):
    grid = wf.Grid(np.ones((6, 6), dtype=bool))
    path = tmp_path / "open.npz"
    JPSPlus.build(grid).save(path)
    with np.load(path) as data:
        header = data["__header__"]
    np.savez(path, __header__=header, dist=np.zeros((64, 8), dtype=np.int32))
    with pytest.raises(IndexFormatError, match="dist"):
        JPSPlus.load(path, grid)


# ---------------------------------------------------------------- game maps

SCENARIOS = ["gen/caves", "gen/maze1", "gen/random25", "gen/rooms", "gen/city",
             *movingai_names("dao/arena2", "mazes/maze512-1-0", "random/random512-25-0",
                             "rooms/8room_000")]


@pytest.fixture(scope="module", params=SCENARIOS)
def scenario(request):
    grid, scen = load(request.param)
    scen.check_map(grid)
    return scen, grid, JPSPlus.build(grid)


def test_movingai_jps_is_optimal(scenario):
    scen, grid, _ = scenario
    wrong = [(p.line, p.optimal, r.cost) for p in scen.problems
             for r in [jps(grid, p.start, p.goal)]
             if not (r.found and p.matches(r.cost))]
    assert wrong == []


def test_movingai_jps_plus_is_optimal_and_buckets_are_bounded(scenario):
    scen, grid, jp = scenario
    wrong = []
    for k, p in enumerate(scen.problems):
        r = jp.find_path(p.start, p.goal)
        b = jp.find_path(p.start, p.goal, buckets=True, bucket_width=0.1)
        if not (r.found and p.matches(r.cost) and b.found
                and r.cost - 1e-9 <= b.cost <= r.cost + 0.1 + 1e-9):
            wrong.append((p.line, p.optimal, r.cost, b.cost))
        if k % 25 == 0:
            assert_legal(grid, r, p.start, p.goal)
            assert_legal(grid, b, p.start, p.goal)
    assert wrong == []
