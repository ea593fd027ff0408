"""The searches check their scalar arguments with ``wayfinding._validate``: numpy scalars
count like Python's, bools are refused, and the messages name the argument."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding import AdjacencyGraph
from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid, GridSearch
from wayfinding.search import ContinuousPlanner, MovingObstacle, astar, space_time_astar
from wayfinding.search.generic import reachable_costs
from wayfinding.search.hierarchical import (
    hierarchical_path,
    hierarchical_path_exclusions,
    hierarchical_step,
)
from wayfinding.search.incremental import ADStar, ARAStar
from wayfinding.search.lowmem import ida_star, memory_bounded_astar, sma_star
from wayfinding.search.scheduler import PathScheduler

CHAIN = AdjacencyGraph.from_edges([("a", "b", 1), ("b", "c", 1), ("c", "d", 1)])
GRID = Grid.from_ascii("""
......
.####.
......""")


@pytest.mark.parametrize("run", [
    lambda: memory_bounded_astar(CHAIN, "a", "d", max_open=np.int64(2)),
    lambda: sma_star(CHAIN, "a", "d", max_nodes=np.int32(4)),
    lambda: ida_star(CHAIN, "a", "d", max_expansions=np.int64(10)),
    lambda: astar(CHAIN, "a", "d", weight=np.float32(1.5)),
    lambda: astar(CHAIN, "a", "d", max_expansions=np.uint8(10)),
], ids=["max_open", "max_nodes", "max_expansions", "weight", "astar_budget"])
def test_numpy_scalars_count_like_python_numbers(run):
    assert run().found


def test_numpy_scalars_in_planners_and_steps():
    assert PathScheduler(GRID, pool=np.int64(1), slice_expansions=np.int16(8)).pending == 0
    for planner in (ARAStar, ADStar):
        p = planner(GRID, (0, 0), (5, 2), epsilon=np.float32(2.0), step=np.float64(0.5))
        assert p.plan(max_expansions=np.int64(1000), max_seconds=np.float32(10)).found
    search = GridSearch(GRID).start((0, 0), (5, 2))
    assert search.step(max_seconds=np.float32(10.0)) == "found"


@pytest.mark.parametrize("run, name", [
    (lambda: memory_bounded_astar(CHAIN, "a", "d", max_open=np.bool_(True)), "max_open"),
    (lambda: sma_star(CHAIN, "a", "d", max_nodes=True), "max_nodes"),
    (lambda: ida_star(CHAIN, "a", "d", max_expansions=False), "max_expansions"),
    (lambda: astar(CHAIN, "a", "d", weight=True), "weight"),
    (lambda: PathScheduler(GRID, short_share=True), "short_share"),
    (lambda: PathScheduler(GRID, pool=True), "pool"),
    (lambda: ARAStar(GRID, (0, 0), (5, 2), epsilon=True), "epsilon"),
    (lambda: ARAStar(GRID, (0, 0), (5, 2), step=0), "step"),
    (lambda: ARAStar(GRID, (0, 0), (5, 2)).plan(max_expansions=-1), "max_expansions"),
    (lambda: ADStar(GRID, (0, 0), (5, 2)).plan(max_seconds="1"), "max_seconds"),
    (lambda: ContinuousPlanner(GRID, speed=True), "speed"),
    (lambda: ContinuousPlanner(GRID, radius=-0.5), "radius"),
    (lambda: ContinuousPlanner(GRID).plan((0, 0), (5, 2), max_time=float("nan")), "max_time"),
    (lambda: MovingObstacle.linear((0, 0), (1, 0), 0.0), "radius"),
    (lambda: space_time_astar(GRID, (0, 0), (5, 2), start_time=True), "start_time"),
    (lambda: space_time_astar(GRID, (0, 0), (5, 2), start_time=None), "start_time"),
    (lambda: space_time_astar(GRID, (0, 0), (5, 2), horizon=2.0), "horizon"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bools_and_bad_values_are_refused_by_name(run, name):
    with pytest.raises(InvalidQueryError, match=rf"^{name} "):
        run()


def test_continuous_planner_numbers():
    planner = ContinuousPlanner(GRID, speed=np.float32(2.0), radius=0)
    assert planner.speed == 2.0 and planner.radius == 0.0
    assert planner.plan((0, 0), (5, 2), max_time=np.float64(100.0)).found
    assert MovingObstacle.linear((0, 0), (1, 0), np.float32(0.5)).radius == 0.5


def test_space_time_steps_take_numpy_integers():
    r = space_time_astar(GRID, (0, 0), (5, 2), start_time=np.int64(3), horizon=np.int32(40))
    assert r.found and len(r.path) == 8


class _OddCosts:
    """A graph whose one edge costs ``cost``."""

    def __init__(self, cost):
        self.cost = cost

    def successors(self, node):
        return [(1, self.cost)] if node == 0 else []


@pytest.mark.parametrize("cost", ["x", True, np.True_])
@pytest.mark.parametrize("search, options", [(astar, {}), (ida_star, {}),
                                             (memory_bounded_astar, {"max_open": 8}),
                                             (sma_star, {"max_nodes": 8})])
def test_an_edge_cost_that_is_not_a_number_is_refused(search, options, cost):
    with pytest.raises(InvalidQueryError, match="costs must be finite and >= 0"):
        search(_OddCosts(cost), 0, 1, **options)


def test_generic_search_arguments_on_a_csr_graph():
    from wayfinding.graph import CSRGraph
    from wayfinding.search import astar, find_path

    g = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0], coords=np.zeros((3, 2)))
    for goal in ({7}, {-1}, {1.5}):
        with pytest.raises(InvalidQueryError, match="goal"):
            find_path(g, 0, goal)
    with pytest.raises(InvalidQueryError, match="outside"):
        astar(g, 9, 1)
    with pytest.raises(InvalidQueryError, match="heuristic gave 'x'"):
        astar(g, 0, 2, heuristic=lambda n, t: "x")
    for width in (0, -1, float("nan")):
        with pytest.raises(InvalidQueryError, match="bucket width"):
            astar(g, 0, 2, queue="bucket", bucket_width=width)
    assert find_path(g, 0, {2}).cost == 2.0


@pytest.mark.parametrize("run", [
    lambda g: astar(g, "a", "d"),
    lambda g: ida_star(g, "a", "d"),
    lambda g: memory_bounded_astar(g, "a", "d", max_open=4),
    lambda g: sma_star(g, "a", "d", max_nodes=4),
    lambda g: reachable_costs(g, "a"),
], ids=["astar", "ida_star", "memory_bounded_astar", "sma_star", "reachable_costs"])
@pytest.mark.parametrize("graph", [{"a": [("b", 1)]}, None, GRID.costs])
def test_a_search_refuses_what_is_no_graph(run, graph):
    with pytest.raises(InvalidQueryError, match="successors"):
        run(graph)


@pytest.mark.parametrize("run", [hierarchical_path, hierarchical_step,
                                 hierarchical_path_exclusions])
def test_hierarchical_searches_refuse_what_is_no_hierarchy(run):
    with pytest.raises(InvalidQueryError, match="HierarchicalGraph"):
        run(CHAIN, "a", "d")
