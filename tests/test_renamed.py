"""Old spellings of the search vocabulary still work for a release and warn: ``algo=`` for
``method=`` at every site, the old function names, ``neighbors`` and the CLI's ``--algo``."""

import json

import numpy as np
import pytest

import wayfinding
from wayfinding import CSRGraph, Grid, GridSearch
from wayfinding.bench import run_scenario
from wayfinding.cli import main
from wayfinding.errors import InvalidQueryError
from wayfinding.graph import CSRGoalBounds, WaypointGraph
from wayfinding.grid import AnyAngle, HexGrid, generate, make_solver

GRID = Grid.from_ascii("""
.....
.###.
.....""")
CHAIN = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0], directed=False,
                            coords=[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])

#: Every call that takes the search method, as ``call(keyword, name)``, with a method it
#: knows other than its default.
METHOD_SITES = {
    "GridSearch.find_path": (
        lambda kw, m: GridSearch(GRID).find_path((0, 0), (4, 2), **{kw: m}), "dijkstra"),
    "GridSearch.start": (
        lambda kw, m: GridSearch(GRID).start((0, 0), (4, 2), **{kw: m}), "dijkstra"),
    "CSRGraph.find_path": (lambda kw, m: CHAIN.find_path(0, 2, **{kw: m}), "dijkstra"),
    "CSRGraph.start": (lambda kw, m: CHAIN.start(0, 2, **{kw: m}), "dijkstra"),
    "CSRGoalBounds.find_path": (
        lambda kw, m: CSRGoalBounds.build(CHAIN).find_path(0, 2, **{kw: m}), "dijkstra"),
    "PositionedGraph.find_path": (
        lambda kw, m: WaypointGraph([(0, 0), (3, 0)], [(0, 1)]).find_path((0, 0), (3, 0),
                                                                           **{kw: m}),
        "dijkstra"),
    "AnyAngle.find_path": (
        lambda kw, m: AnyAngle(GRID).find_path((0, 0), (4, 2), **{kw: m}), "lazy_theta"),
    "HexGrid.find_path": (
        lambda kw, m: HexGrid(np.ones((3, 3))).find_path((0, 0), (2, 2), **{kw: m}),
        "dijkstra"),
    "wayfinding.find_path": (
        lambda kw, m: wayfinding.find_path(GRID, (0, 0), (4, 2), **{kw: m}), "dijkstra"),
    "wayfinding.start_search": (
        lambda kw, m: wayfinding.start_search(GRID, (0, 0), (4, 2), **{kw: m}), "dijkstra"),
    "wayfinding.find_paths": (
        lambda kw, m: wayfinding.find_paths(GRID, [(0, 0)], [(4, 2)], **{kw: m})[0],
        "dijkstra"),
    "make_solver": (lambda kw, m: make_solver(GRID, **{kw: m})((0, 0), (4, 2)), "dijkstra"),
}


def _result(result):
    if isinstance(result, wayfinding.SlicedSearch):
        result.step()
        result = result.result()
    return result


@pytest.mark.parametrize("site", list(METHOD_SITES))
def test_algo_keyword_warns_and_means_method(site):
    call, method = METHOD_SITES[site]
    with pytest.warns(DeprecationWarning,
                      match=r"\(algo=\.\.\.\) is deprecated; use method=") as caught:
        old = _result(call("algo", method))
    new = _result(call("method", method))
    assert (old.cost, old.algorithm) == (new.cost, new.algorithm)
    assert new.algorithm.startswith(method)
    assert [w.filename for w in caught] == [__file__]


@pytest.mark.parametrize("site", list(METHOD_SITES))
def test_an_unknown_method_is_called_a_method(site):
    call, _ = METHOD_SITES[site]
    with pytest.raises(InvalidQueryError, match=r"unknown (any-angle )?method 'warp'"):
        _result(call("method", "warp"))


def test_run_scenario_algo_keyword_warns(tmp_path):
    grid = generate.caves(24, 24, seed=3)
    _, scen = generate.save_benchmark(grid, tmp_path / "c.map", per_bucket=1, seed=3)
    new = run_scenario(scen, method="dijkstra", show_progress=False)
    with pytest.warns(DeprecationWarning, match="algo="):
        old = run_scenario(scen, algo="dijkstra", show_progress=False)
    assert (old.algorithm, old.mismatches, old.problems) == ("dijkstra", 0, new.problems)


def test_solver_algo_attribute_warns():
    solver = make_solver(GRID, "astar")
    with pytest.warns(DeprecationWarning, match=r"Solver\.algo is deprecated"):
        assert solver.algo == solver.method == "astar"


def test_grid_find_path_is_a_deprecated_name_of_wayfinding_find_path():
    with pytest.warns(DeprecationWarning, match=r"wayfinding\.grid\.find_path\(\) is deprecated"):
        old = wayfinding.grid.find_path(GRID, (0, 0), (4, 2))
    assert old.cost == wayfinding.find_path(GRID, (0, 0), (4, 2)).cost


def test_find_path_jps_is_a_deprecated_name():
    with pytest.warns(DeprecationWarning, match=r"find_path_jps\(\) is deprecated"):
        old = wayfinding.grid.find_path_jps(GRID, (0, 0), (4, 2))
    new = GridSearch(GRID).find_path((0, 0), (4, 2), method="jps")
    assert old.path.tolist() == new.path.tolist() and old.algorithm == "jps"


@pytest.mark.parametrize("world, cell", [(GRID, (0, 0)), (HexGrid(np.ones((3, 3))), (1, 1))])
def test_neighbors_is_a_deprecated_name_of_neighbours(world, cell):
    with pytest.warns(DeprecationWarning, match=r"\.neighbors\(\) is deprecated"):
        old = world.neighbors(cell)
    assert old == world.neighbours(cell) == list(world.successors(cell))


def test_cli_algo_is_a_hidden_alias_of_method(tmp_path, capsys):
    grid = generate.caves(24, 24, seed=3)
    wayfinding.grid.write_map(grid, tmp_path / "c.map")
    cells = np.argwhere(grid.passable)
    a, b = cells[0][::-1], cells[-1][::-1]
    ends = ["--from", f"{a[0]},{a[1]}", "--to", f"{b[0]},{b[1]}", "--json"]
    outs = []
    for option in ("--method", "--algo"):
        assert main(["path", str(tmp_path / "c.map"), option, "dijkstra", *ends]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0]["algorithm"] == outs[1]["algorithm"] == "dijkstra"
    assert outs[0]["cost"] == outs[1]["cost"]
    with pytest.raises(SystemExit):
        main(["path", "--help"])
    shown = capsys.readouterr().out
    assert "--method" in shown and "--algo" not in shown


def test_generate_scenario_is_a_deprecated_name_of_benchmark_scenario():
    grid = generate.caves(24, 24, seed=3)
    with pytest.warns(DeprecationWarning, match=r"generate\.scenario\(\) is deprecated"):
        old = generate.scenario(grid, per_bucket=1, seed=2)
    new = generate.benchmark_scenario(grid, per_bucket=1, seed=2)
    assert [(p.start, p.goal, p.optimal) for p in old] == \
        [(p.start, p.goal, p.optimal) for p in new]


def test_table_path_and_exit_route_are_deprecated_names_of_find_path():
    from wayfinding.graph import CSRExitTables, CSRPathTable

    table, exits = CSRPathTable.build(CHAIN), CSRExitTables.build(CHAIN, tile_size=1.0)
    with pytest.warns(DeprecationWarning, match=r"CSRPathTable\.path\(\) is deprecated"):
        assert table.path(0, 2).path.tolist() == table.find_path(0, 2).path.tolist()
    with pytest.warns(DeprecationWarning, match=r"CSRExitTables\.route\(\) is deprecated"):
        assert exits.route(0, 2).path.tolist() == exits.find_path(0, 2).path.tolist()


def test_dirichlet_resolution_is_a_deprecated_name_of_cell_size():
    from wayfinding.graph import DirichletDomains

    seeds, box = [(0, 0), (4, 0)], (-2, -2, 6, 2)
    with pytest.warns(DeprecationWarning, match=r"DirichletDomains\(resolution=\.\.\.\) is depr"):
        old = DirichletDomains(seeds, bounds=box, adjacency="raster", resolution=0.5)
    new = DirichletDomains(seeds, bounds=box, adjacency="raster", cell_size=0.5)
    with pytest.warns(DeprecationWarning, match=r"DirichletDomains\.resolution is deprecated"):
        assert old.resolution == new.cell_size == 0.5


def test_visibility_map_shortest_path_is_a_deprecated_name_of_find_path():
    from wayfinding.navmesh.exact import VisibilityMap

    vm = VisibilityMap(outline=[(0, 0), (4, 0), (4, 4), (0, 4)])
    with pytest.warns(DeprecationWarning, match=r"VisibilityMap\.shortest_path\(\) is depr"):
        old = vm.shortest_path((1, 1), (3, 3))
    assert old.path.tolist() == vm.find_path((1, 1), (3, 3)).path.tolist()
