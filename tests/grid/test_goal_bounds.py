"""Goal bounding: boxes against a brute-force oracle, pruned A* optimality, parallel and
resumable builds, Moving AI problems, persistence and bad input."""

import json
import math

import numpy as np
import pytest
from grid_oracle import legal_steps, oracle_costs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from movingai_data import load, movingai_names
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from strategies import TERRAIN, seeded_grids

import wayfinding as wf
from wayfinding.errors import (
    IndexFormatError,
    IndexMismatchError,
    InvalidGridError,
    InvalidQueryError,
)
from wayfinding.grid import GridSearch
from wayfinding.grid import goal_bounds as gb_module
from wayfinding.grid.goal_bounds import EMPTY, GoalBounds
from wayfinding.grid.index import load_index
from wayfinding.grid.rules import DIRECTIONS

RULES = ["never", "no_corner_cutting", "allow_one_blocked", "always"]


def maps(max_side=12, weighted=True, rules=tuple(RULES)):
    """Grids of 1 to ``max_side`` cells a side (half with terrain when ``weighted``), one of
    ``rules``."""
    return seeded_grids(max_side=max_side, terrain=TERRAIN if weighted else None, rules=rules)


def oracle_boxes(grid):
    """Boxes from all-pairs distances: step u -> v serves goal t when c(u, v) + D[v][t] is
    D[u][t]."""
    h, w = grid.shape
    steps = {}
    rows, cols, vals = [], [], []
    for a, b, c in legal_steps(grid.costs, grid.diagonal.value):
        steps.setdefault(a, []).append((b, c))
        rows.append(a[1] * w + a[0])
        cols.append(b[1] * w + b[0])
        vals.append(c)
    free = [tuple(int(v) for v in c[::-1]) for c in np.argwhere(grid.passable)]
    graph = csr_array((vals, (rows, cols)), shape=(h * w, h * w))
    every = dijkstra(graph, indices=[y * w + x for x, y in free]).reshape(-1, h, w)
    dist = dict(zip(free, every))
    out = np.empty(((grid.height + 2) * (grid.width + 2), 8, 4), dtype=np.int64)
    out[:, :, 0::2] = EMPTY
    out[:, :, 1::2] = 0
    for u in free:
        du = dist[u]
        for v, c in steps.get(u, []):
            tight = np.isclose(c + dist[v], du, rtol=1e-9, atol=1e-9) & np.isfinite(du)
            tight[u[1], u[0]] = False
            ys, xs = np.nonzero(tight)
            if len(xs):
                d = DIRECTIONS.index((v[0] - u[0], v[1] - u[1]))
                out[grid.index(u), d] = (xs.min(), xs.max(), ys.min(), ys.max())
    return out, dist


def in_box(box, cell):
    return box[0] <= cell[0] <= box[1] and box[2] <= cell[1] <= box[3]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=maps())
def test_boxes_equal_brute_force_oracle(grid):
    gb = GoalBounds.build(grid, workers=1, progress=False, chunk=5)
    want, dist = oracle_boxes(grid)
    assert gb.boxes.dtype == np.uint16 and gb.boxes.flags.c_contiguous
    assert np.array_equal(gb.boxes.astype(np.int64), want)
    # Containment: every reachable goal lies in the box of some legal step of every cell.
    for u, du in dist.items():
        boxes = gb.boxes[grid.index(u)]
        legal = int(grid.moves[grid.index(u)])
        for ty, tx in np.argwhere(np.isfinite(du)):
            if (tx, ty) != u:
                assert any((legal >> d) & 1 and in_box(boxes[d], (tx, ty)) for d in range(8))


def test_open_map_boxes_point_their_way():
    gb = GoalBounds.build(wf.Grid(np.ones((9, 9), dtype=bool)), workers=1, progress=False)
    # A straight step serves the cells nearer its axis than the diagonals (the corner
    # (0, 0) is 4 diagonal steps away, shorter than any path starting westward)...
    assert gb.box((4, 4), "W") == (0, 3, 1, 7)
    assert gb.box((4, 4), "E") == (5, 8, 1, 7)
    assert gb.box((4, 4), "NE") == (5, 8, 0, 3)     # ...a diagonal serves its quadrant
    assert gb.box((0, 0), "W") is None               # off the map
    assert gb.box((0, 0), 5) == (1, 8, 1, 8)


def f_star_region(grid, a, b, cost, method):
    """Cells v with dist(a, v) + h(v) <= cost: the only ones an optimal A* (or Dijkstra,
    h = 0) with this consistent heuristic may expand, whatever the edges pruned.  (Plain
    Dijkstra distances: they are checked against the independent oracle elsewhere.)"""
    dist = GridSearch(grid).distance_map(a, method="dijkstra")
    ys, xs = np.mgrid[0:grid.height, 0:grid.width]
    dx, dy = np.abs(xs - b[0]), np.abs(ys - b[1])
    if method == "dijkstra":
        h = 0.0
    elif grid.diagonal.value == "never":
        h = (dx + dy) * grid.min_cost
    else:
        h = (np.maximum(dx, dy) + (math.sqrt(2) - 1) * np.minimum(dx, dy)) * grid.min_cost
    return int(np.count_nonzero(dist + h <= cost * (1 + 1e-9) + 1e-9))


def assert_pruned_search_is_optimal(grid, gb, pairs, method="astar"):
    """Same cost, a legal path, and no expansion outside the optimal f region.

    (Not "expanded <= plain A*'s" per query: among cells tied at f = C* pruning can change
    which come first, and a pruned search then and again expands a cell or two more.)
    """
    search = GridSearch(grid)
    for a, b in pairs:
        plain = search.find_path(a, b, method=method)
        pruned = search.find_path(a, b, method=method, bounds=gb)
        assert pruned.found == plain.found
        if not plain.found:
            continue
        assert grid.path_cost(pruned.path) == pytest.approx(pruned.cost, abs=1e-9)
        if method == "weighted_astar":
            continue
        assert pruned.cost == pytest.approx(plain.cost, rel=1e-9, abs=1e-9)
        assert pruned.stats.expanded <= f_star_region(grid, a, b, plain.cost, method)


def random_pairs(grid, seed, n=25):
    rng = np.random.default_rng(seed)
    cells = [tuple(int(v) for v in c[::-1]) for c in np.argwhere(grid.passable)]
    return [(cells[rng.integers(len(cells))], cells[rng.integers(len(cells))])
            for _ in range(n)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=maps(max_side=40, weighted=False, rules=("no_corner_cutting",)),
       seed=st.integers(0, 2**16))
def test_pruned_astar_optimal_uniform(grid, seed):
    gb = GoalBounds.build(grid, workers=1, progress=False)
    assert gb.options["flood"] == "canonical"
    pairs = random_pairs(grid, seed)
    assert_pruned_search_is_optimal(grid, gb, pairs)
    for a, b in pairs[:5]:
        r = gb.find_path(a, b)
        assert r.algorithm == "astar_gb"
        assert r.cost == pytest.approx(GridSearch(grid).find_path(a, b).cost, abs=1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=maps(max_side=24), seed=st.integers(0, 2**16),
       method=st.sampled_from(["astar", "dijkstra", "weighted_astar"]))
def test_pruned_search_optimal_weighted_and_other_rules(grid, seed, method):
    gb = GoalBounds.build(grid, workers=1, progress=False)
    pairs = random_pairs(grid, seed, n=15)
    assert_pruned_search_is_optimal(grid, gb, pairs, method)
    if method == "weighted_astar":
        search = GridSearch(grid)
        for a, b in pairs:
            want = oracle_costs(grid.costs, grid.diagonal.value, a)[b[1], b[0]]
            r = search.find_path(a, b, method=method, bounds=gb)
            if math.isfinite(want):
                assert want - 1e-9 <= r.cost <= 2 * want + 1e-9


def maze_like(h=36, w=44, seed=4):
    rng = np.random.default_rng(seed)
    free = rng.random((h, w)) >= 0.2
    free[::6, 3:] = False
    free[3::6, :-3] = False
    return wf.Grid(free)


def test_parallel_build_equals_serial():
    grid = maze_like()
    serial = GoalBounds.build(grid, workers=1, progress=False, chunk=64)
    parallel = GoalBounds.build(grid, workers=2, progress=False, chunk=37)
    assert np.array_equal(serial.boxes, parallel.boxes)
    weighted = wf.Grid(np.where(grid.passable, 1.0 + (np.arange(grid.width) % 3), np.inf),
                       diagonal="allow_one_blocked")
    assert np.array_equal(GoalBounds.build(weighted, workers=1, progress=False).boxes,
                          GoalBounds.build(weighted, workers=2, progress=False, chunk=50).boxes)


def test_resume_from_checkpoint(tmp_path, monkeypatch):
    grid = maze_like()
    want = GoalBounds.build(grid, workers=1, progress=False)
    path = tmp_path / "gb.ckpt"
    real = gb_module._run_chunk
    calls = []

    def failing(context, goals, boxes):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(len(goals))
        return real(context, goals, boxes)

    monkeypatch.setattr(gb_module, "_run_chunk", failing)
    with pytest.raises(KeyboardInterrupt):
        GoalBounds.build(grid, workers=1, progress=False, checkpoint=path, chunk=100,
                         checkpoint_every=0)
    monkeypatch.setattr(gb_module, "_run_chunk", real)
    with np.load(path) as data:
        assert int(data["done"].sum()) == sum(calls) == 300
    copy = tmp_path / "copy.ckpt"
    copy.write_bytes(path.read_bytes())
    in_parallel = GoalBounds.build(grid, workers=2, progress=False, checkpoint=copy, chunk=40)
    assert np.array_equal(in_parallel.boxes, want.boxes)
    resumed_calls = []

    def counting(context, goals, boxes):
        resumed_calls.append(len(goals))
        return real(context, goals, boxes)

    monkeypatch.setattr(gb_module, "_run_chunk", counting)
    resumed = GoalBounds.build(grid, workers=1, progress=False, checkpoint=path, chunk=100)
    assert sum(resumed_calls) == int(grid.passable.sum()) - 300
    assert np.array_equal(resumed.boxes, want.boxes)
    # A finished checkpoint makes a rebuild free; another map's checkpoint is refused.
    resumed_calls.clear()
    again = GoalBounds.build(grid, workers=1, progress=False, checkpoint=path)
    assert resumed_calls == [] and np.array_equal(again.boxes, want.boxes)
    with pytest.raises(IndexMismatchError, match="another map"):
        GoalBounds.build(wf.Grid(np.ones((5, 5), dtype=bool)), workers=1, progress=False,
                         checkpoint=path)
    junk = tmp_path / "junk.ckpt"
    junk.write_text("not a checkpoint")
    with pytest.raises(IndexFormatError):
        GoalBounds.build(grid, workers=1, progress=False, checkpoint=junk)
    # A checkpoint of the earlier layout (finished sources) cannot be resumed by goals.
    with np.load(path) as data:
        header = json.loads(str(data["__header__"]))
        arrays = {"boxes": data["boxes"], "done": data["done"]}
    del header["version"]
    old = tmp_path / "old.ckpt"
    with open(old, "wb") as f:
        np.savez(f, __header__=np.array(json.dumps(header)), **arrays)
    with pytest.raises(IndexFormatError, match="layout 1.*delete it"):
        GoalBounds.build(grid, workers=1, progress=False, checkpoint=old)


# Open arena: A* is already nearly direct; rooms make pruning pay.
RATIOS = {"dao/arena": 1.0, "dao/den312d": 0.5}


@pytest.mark.parametrize(("name", "ratio"), [
    ("gen/rooms", 0.5), *((n, RATIOS.get(n, 1.0)) for n in movingai_names(*RATIOS))])
def test_game_map_problems_are_optimal(name, ratio):
    grid, scen = load(name)
    gb = GoalBounds.build(grid, workers=1, progress=False)
    search = GridSearch(grid)
    wrong = []
    plain = pruned = 0
    for p in scen.problems:
        r = gb.find_path(p.start, p.goal)
        if not (r.found and p.matches(r.cost)):
            wrong.append((p.line, p.start, p.goal, p.optimal, r.cost))
        plain += search.find_path(p.start, p.goal).stats.expanded
        pruned += r.stats.expanded
    assert wrong == []
    assert pruned <= ratio * plain
    assert gb.nbytes == (grid.height + 2) * (grid.width + 2) * 64


def test_save_load_round_trip(tmp_path):
    grid = maze_like(12, 15)
    gb = GoalBounds.build(grid, workers=1, progress=False)
    path = tmp_path / "bounds.npz"
    gb.save(path)
    back = load_index(path, grid)
    assert isinstance(back, GoalBounds) and np.array_equal(back.boxes, gb.boxes)
    assert back.options == gb.options and back.build_time == pytest.approx(gb.build_time)
    assert back.find_path((0, 1), (14, 10)).cost == pytest.approx(
        GridSearch(grid).find_path((0, 1), (14, 10)).cost)
    with pytest.raises(IndexMismatchError):
        GoalBounds.load(path, maze_like(12, 15, seed=5))


def test_bounds_must_match_the_search():
    grid = maze_like(10, 10)
    gb = GoalBounds.build(grid, workers=1, progress=False)
    other = wf.Grid(np.ones((10, 10), dtype=bool))
    with pytest.raises(IndexMismatchError, match="another map"):
        GridSearch(other).find_path((0, 1), (5, 5), bounds=gb)
    with pytest.raises(IndexMismatchError):
        GridSearch(grid.with_options(diagonal="always")).find_path((0, 1), (5, 5), bounds=gb)
    for method in ("greedy", "bfs", "bidirectional"):
        with pytest.raises(InvalidQueryError, match="goal bounds"):
            GridSearch(grid).find_path((0, 1), (5, 5), method=method, bounds=gb)
    with pytest.raises(InvalidQueryError, match="GoalBounds"):
        GridSearch(grid).find_path((0, 1), (5, 5), bounds=gb.boxes)


def test_bad_build_options():
    grid = wf.Grid(np.ones((3, 3), dtype=bool))
    with pytest.raises(InvalidGridError):
        GoalBounds.build(np.ones((3, 3)))
    for bad in ({"workers": 0}, {"chunk": 0}, {"chunk": 2.5}, {"workers": True},
                {"checkpoint_every": -1}, {"checkpoint_every": None},
                {"checkpoint_every": "5"}, {"checkpoint_every": math.nan}):
        with pytest.raises(InvalidQueryError):
            GoalBounds.build(grid, progress=False, **bad)
    gb = GoalBounds.build(grid, workers=1, progress=False)
    with pytest.raises(InvalidQueryError, match="direction"):
        gb.box((0, 0), "up")
    with pytest.raises(InvalidQueryError, match="outside"):
        gb.box((3, 0), 0)
    with pytest.raises(InvalidQueryError, match="blocked|outside"):
        gb.find_path((0, 0), (9, 9))


def test_unreachable_and_trivial_queries():
    grid = wf.Grid.from_ascii("""
        ..#..
        ..#..""")
    gb = GoalBounds.build(grid, workers=1, progress=False)
    r = gb.find_path((0, 0), (4, 1))
    assert not r.found and math.isinf(r.cost) and r.path.shape == (0, 2)
    assert gb.find_path((1, 1), (1, 1)).path.tolist() == [[1, 1]]
    assert np.all(gb.boxes[grid.index((2, 0))] == [EMPTY, 0, EMPTY, 0])


def test_record_shows_the_pruned_expansions():
    grid = maze_like(14, 18)
    gb = GoalBounds.build(grid, workers=1, progress=False)
    free = np.argwhere(grid.components == grid.components[grid.passable].max())
    a, b = tuple(int(v) for v in free[0][::-1]), tuple(int(v) for v in free[-1][::-1])
    plain = GridSearch(grid).find_path(a, b, record=True)
    r = gb.find_path(a, b, record=True)
    assert r.found
    assert r.algorithm == "astar_gb" and r.cost == pytest.approx(plain.cost)
    assert len(r.expanded_nodes) == r.stats.expanded <= len(plain.expanded_nodes)
    assert r.open_nodes.shape[1] == 2
