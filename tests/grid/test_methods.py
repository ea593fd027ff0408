"""Every fast method through the shared entry point: optimal on random grids and on the Moving
AI problems, indexes reused, saved and refused for other maps."""

import math

import numpy as np
import pytest
from grid_oracle import oracle_costs
from hypothesis import HealthCheck, given, settings
from movingai_data import all_names, load, movingai_map, movingai_names, prebuilt_index
from strategies import seeded_cost_problems
from test_search_oracle import assert_legal

import wayfinding as wf
from wayfinding.errors import IndexMismatchError, InvalidGridError, InvalidQueryError
from wayfinding.grid import read_map
from wayfinding.grid.index import GridIndex, load_index, read_index_info
from wayfinding.grid.methods import EXACT, INDEX_SPECS, METHODS, PREPROCESSED, make_solver

#: The optimal or bounded methods (HPA*'s near-optimal ones are checked in test_hpa.py).
FAST = ["jps", *(a for a in PREPROCESSED if not a.startswith("hpa"))]


def uniform_grids():
    """Uniform cost arrays of 1 to 24 cells a side, (0, 0) free, a start and a goal."""
    return seeded_cost_problems(max_side=24, open_corner="always")


def test_method_names():
    assert set(FAST) <= set(METHODS)
    assert {"jps", "jps_plus", "jps_plus_buckets", "astar_gb", "jps_plus_gb", "subgoal",
            "subgoal2", "astar_dh"} <= set(METHODS)
    assert "jps_plus_buckets" not in EXACT and "astar_gb" in EXACT


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=uniform_grids())
def test_every_method_matches_the_oracle(case):
    costs, start, goal = case
    grid = wf.Grid(costs)
    want = oracle_costs(costs, "no_corner_cutting", start)[goal[1], goal[0]]
    for method in FAST:
        r = make_solver(grid, method, progress=False)(start, goal)
        if math.isinf(want):
            assert not r.found and len(r.path) == 0, method
            continue
        assert r.found, method
        slack = 0.1 if method == "jps_plus_buckets" else 0.0
        assert want - 1e-9 <= r.cost <= want + slack + 1e-9, method
        assert_legal(grid, r, start, goal)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("far", [2**31, 2**63, 2**70, -2**70])
def test_every_method_refuses_coordinates_beyond_any_c_integer(method, far):
    grid = wf.Grid.from_ascii("....\n.#..\n....")
    solve = make_solver(grid, method, progress=False)
    for start, goal in (((far, 0), (3, 2)), ((0, 0), (3, far))):
        with pytest.raises(InvalidQueryError, match="outside"):
            solve(start, goal)


def test_indexes_given_are_used_and_others_refused():
    grid = wf.Grid.from_ascii("....\n.##.\n....")
    jp = INDEX_SPECS["jps_plus"].build(grid)
    solver = make_solver(grid, "jps_plus", indexes=[jp])
    assert solver.indexes == [jp] and solver.built == []
    other = INDEX_SPECS["jps_plus"].build(wf.Grid.from_ascii("....\n.#..\n...."))
    with pytest.raises(IndexMismatchError):
        make_solver(grid, "jps_plus", indexes=[other])
    with pytest.raises(InvalidQueryError, match="unknown method"):
        make_solver(grid, "teleport")
    with pytest.raises(InvalidQueryError, match="takes no search options"):
        make_solver(grid, "subgoal", heuristic="manhattan")


@pytest.mark.parametrize("method", ["astar", "jps", "jps_plus", "theta"])
def test_a_solver_refuses_what_is_no_index(method):
    grid = wf.Grid.from_ascii("....\n.##.\n....")
    with pytest.raises(InvalidQueryError, match="indexes must hold .* got 'a'"):
        make_solver(grid, method, indexes="ab")
    with pytest.raises(InvalidQueryError, match="indexes must hold .* got None"):
        make_solver(grid, method, indexes=[None])


def test_an_online_solver_refuses_unknown_options_when_made():
    grid = wf.Grid.from_ascii("....\n.##.\n....")
    with pytest.raises(InvalidQueryError, match="unknown search option 'heuristics'"):
        make_solver(grid, "astar", heuristics="octile")
    solve = make_solver(grid, "weighted_astar", weight=1.5, heuristic="euclidean")
    assert solve((0, 0), (3, 2)).found


@pytest.mark.parametrize("kind", list(INDEX_SPECS))
def test_every_index_saves_and_refuses_another_map(kind, tmp_path):
    grid = wf.Grid.from_ascii("......\n.##...\n...#..\n......")
    index = INDEX_SPECS[kind].build(grid)
    path = tmp_path / f"{kind}.npz"
    index.save(path)
    info = read_index_info(path)
    assert info["fingerprint"] == grid.fingerprint and info["nbytes"] == index.nbytes
    back = load_index(path, grid)
    assert type(back) is type(index) and back.options == index.options
    for name, arr in index.arrays.items():
        np.testing.assert_array_equal(back.arrays[name], arr)
    assert back.find_path((0, 0), (5, 3)).cost == index.find_path((0, 0), (5, 3)).cost
    changed = wf.Grid.from_ascii("......\n.##...\n......\n......")
    with pytest.raises(IndexMismatchError, match="another map"):
        load_index(path, changed)


@pytest.mark.parametrize("kind", list(INDEX_SPECS))
def test_unsupported_grids_are_refused(kind):
    weighted = wf.Grid.from_ascii("..~..", terrain={"~": 3.0})
    four = wf.Grid.from_ascii(".....", diagonal="never")
    spec = INDEX_SPECS[kind]
    for grid in (weighted, four):
        try:
            index = spec.build(grid)
        except InvalidGridError as exc:
            assert "support" in str(exc) or "uniform" in str(exc)
            continue
        # Methods that accept the grid must still be exact on it.
        want = wf.GridSearch(grid).find_path((0, 0), (4, 0)).cost
        assert math.isclose(index.find_path((0, 0), (4, 0)).cost, want)


# Goal bounds need one flood per cell: the default suite builds them on the small dao maps,
# the exhaustive run on every map with at most GB_MAX_CELLS passable cells (a 512 x 512 map
# takes about an hour on 2 cores) and on the larger ones whose goal bounds were built
# beforehand into $WAYFINDING_INDEX_DIR.
SMALL = ["gen/rooms", *movingai_names("dao/arena", "dao/den312d", "dao/ost003d", "dao/lak303d")]
GB_MAX_CELLS = 60_000


_BUILT: dict[tuple[str, str], GridIndex] = {}


def built_indexes(name: str, grid: wf.Grid, method: str) -> list[GridIndex]:
    """The indexes ``method`` needs on this map: loaded from $WAYFINDING_INDEX_DIR when there
    (the map's fingerprint is checked), else built; once per test session."""
    out = []
    for spec in PREPROCESSED[method].needs if method in PREPROCESSED else ():
        key = (name, spec.name)
        if key not in _BUILT:
            saved = None if name.startswith("gen/") else prebuilt_index(movingai_map(name),
                                                                        spec.name)
            extra = {"progress": False} if spec.name == "goal_bounds" else {}
            _BUILT[key] = load_index(saved, grid) if saved else spec.build(grid, **extra)
        out.append(_BUILT[key])
    return out


def check_scenario(name: str, method: str, sample: int | None = 125) -> list:
    grid, scen = load(name, sample)
    solve = make_solver(grid, method, indexes=built_indexes(name, grid, method))
    wrong = []
    for p in scen.problems:
        r = solve(p.start, p.goal)
        tol = max(1e-3, 1e-5 * p.optimal)  # the files' rounding, as Problem.matches
        ok = r.found and (p.matches(r.cost) if method in EXACT
                          else p.optimal - tol <= r.cost <= p.optimal + 0.1 + tol)
        if not ok:
            wrong.append((p.line, p.start, p.goal, p.optimal, r.cost))
    return wrong


@pytest.mark.parametrize("name", all_names())
@pytest.mark.parametrize("method", [a for a in FAST if "gb" not in a])
def test_sampled_problems(name, method):
    assert check_scenario(name, method) == []


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("method", ["astar_gb", "jps_plus_gb"])
def test_sampled_problems_goal_bounds(name, method):
    assert check_scenario(name, method) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", movingai_names())
@pytest.mark.parametrize("method", FAST)
def test_every_problem(name, method):
    map_path = movingai_map(name)
    if "gb" in method and not prebuilt_index(map_path, "goal_bounds"):
        cells = int(read_map(map_path).passable.sum())
        if cells > GB_MAX_CELLS:
            pytest.skip(f"goal bounds on {cells:,} cells (> {GB_MAX_CELLS:,}) take an hour; "
                        "build them into $WAYFINDING_INDEX_DIR beforehand")
    assert check_scenario(name, method, sample=None) == []


def test_goal_bounds_of_another_map_are_refused_by_jps_plus():
    grid = wf.Grid.from_ascii("....\n.##.\n....")
    other = wf.Grid.from_ascii("....\n.#..\n....")
    bounds = INDEX_SPECS["goal_bounds"].build(other, progress=False)
    with pytest.raises(IndexMismatchError):
        INDEX_SPECS["jps_plus"].build(grid).find_path((0, 0), (3, 2), bounds=bounds)
