"""Every search and request reports how it stands with a member of ``Status`` (never a bare
string), on every path: sliced steps, interim and budget-stopped results, scheduler requests,
low-memory searches, incremental and anytime planners; the old module constants are the
enum's members and still equal their strings."""

from __future__ import annotations

import pytest

from wayfinding import AdjacencyGraph, sliced
from wayfinding.errors import InvalidQueryError
from wayfinding.fields.tiles import FlowTiles
from wayfinding.graph import CSRGraph
from wayfinding.grid import Grid, GridSearch
from wayfinding.results import PathResult, Status
from wayfinding.search import astar, dijkstra, find_path, lowmem, scheduler, start_search
from wayfinding.search.generic import AStarSearch
from wayfinding.search.incremental import ADStar, ARAStar, DStarLite, LPAStar
from wayfinding.search.lowmem import ida_star, memory_bounded_astar, sma_star
from wayfinding.search.scheduler import PathScheduler
from wayfinding.sliced import SlicedSearch

GRID = Grid.from_ascii("""
......
.####.
......""")
WALLED = Grid.from_ascii("..#..")
CHAIN = AdjacencyGraph.from_edges([("a", "b", 1), ("b", "c", 1), ("c", "d", 1)])


def is_status(value: object, expected: Status) -> bool:
    return type(value) is Status and value is expected


@pytest.mark.parametrize("make", [
    lambda: GridSearch(GRID).start((0, 0), (5, 2)),
    lambda: CSRGraph.from_edges(4, [0, 1, 2], [1, 2, 3], [1.0, 1.0, 1.0]).start(0, 3),
    lambda: AStarSearch(CHAIN, "a", "d"),
    lambda: start_search(CHAIN, "a", "d"),
], ids=["grid", "csr", "generic", "start_search"])
def test_sliced_steps_return_status_members(make):
    search = make()
    assert is_status(search.status, Status.RUNNING)
    step = search.step(max_expansions=1)
    assert is_status(step, Status.RUNNING) and is_status(search.status, Status.RUNNING)
    interim = search.result()
    assert is_status(interim.status, Status.RUNNING) and not interim.found
    end = search.step()
    assert is_status(end, Status.FOUND) and is_status(search.step(), Status.FOUND)
    assert is_status(search.result().status, Status.FOUND)


@pytest.mark.parametrize("make", [
    lambda: GridSearch(WALLED).start((0, 0), (4, 0), method="astar"),
    lambda: AStarSearch(AdjacencyGraph.from_edges([("a", "b", 1), ("c", "d", 1)]), "a", "d"),
], ids=["grid", "generic"])
def test_sliced_failures_are_failed(make):
    search = make()
    end = search.step()
    assert is_status(end, Status.FAILED) and is_status(search.result().status, Status.FAILED)


def test_a_search_known_at_once_keeps_its_result_status():
    done = SlicedSearch.done(PathResult([], float("inf"), False))
    assert is_status(done.status, Status.FAILED)
    same = GridSearch(GRID).start((0, 0), (0, 0))
    assert is_status(same.status, Status.FOUND) and is_status(same.step(), Status.FOUND)


@pytest.mark.parametrize("search", [astar, dijkstra])
def test_one_shot_search_stopped_by_its_budget_is_out_of_budget(search):
    stopped = search(CHAIN, "a", "d", max_expansions=1)
    assert is_status(stopped.status, Status.OUT_OF_BUDGET) and not stopped.found
    assert is_status(search(CHAIN, "a", "d", max_expansions=10).status, Status.FOUND)
    assert is_status(search(CHAIN, "d", "a").status, Status.FAILED)


@pytest.mark.parametrize("world, start, goal", [
    (CHAIN, "a", "d"), (GRID, (0, 0), {(5, 2)}),
], ids=["graph", "grid_open_goal"])
def test_find_path_stopped_by_its_budget_is_out_of_budget(world, start, goal):
    stopped = find_path(world, start, goal, max_expansions=1)
    assert is_status(stopped.status, Status.OUT_OF_BUDGET) and not stopped.found
    assert is_status(find_path(world, start, goal).status, Status.FOUND)
    search = AStarSearch(CHAIN, "a", "d")
    assert is_status(search.run(max_expansions=1).status, Status.OUT_OF_BUDGET)
    assert is_status(search.run().status, Status.FOUND)
    with pytest.raises(TypeError):                  # new with the search: keyword only
        AStarSearch(CHAIN, "a", "d").run(1)


def test_old_constants_are_the_members_and_equal_their_strings():
    assert (sliced.RUNNING, sliced.FOUND, sliced.FAILED) == ("running", "found", "failed")
    assert sliced.FOUND is Status.FOUND and sliced.RUNNING is Status.RUNNING
    assert (scheduler.QUEUED, scheduler.RUNNING, scheduler.FOUND, scheduler.FAILED,
            scheduler.CANCELLED) == ("queued", "running", "found", "failed", "cancelled")
    assert all(type(s) is Status for s in lowmem.STATUSES)
    assert lowmem.STATUSES == ("found", "failed", "out_of_budget")


def test_scheduler_requests_stand_as_status_members():
    grid = Grid.from_ascii("""
........
.######.
........
##......""")
    sched = PathScheduler(grid)
    far = sched.request((0, 0), (7, 0))
    round_the_wall = sched.request((0, 0), (2, 3))
    dropped = sched.request((0, 2), (7, 2))
    assert is_status(far.status, Status.QUEUED) and is_status(dropped.status, Status.QUEUED)
    sched.update(max_expansions=1)
    assert is_status(far.status, Status.RUNNING)
    sched.cancel(dropped)
    assert is_status(dropped.status, Status.CANCELLED)
    while sched.pending:
        sched.update(max_expansions=5)
    assert is_status(far.status, Status.FOUND) and is_status(far.result.status, Status.FOUND)
    assert is_status(round_the_wall.status, Status.FOUND)
    assert sched.stats["found"] == 2 and sched.stats["cancelled"] == 1


def test_scheduler_request_without_a_path_is_failed():
    sched = PathScheduler(WALLED)
    req = sched.request((0, 0), (4, 0))
    sched.update(max_expansions=1)
    assert is_status(req.status, Status.FAILED) and is_status(req.result.status, Status.FAILED)
    assert sched.stats["failed"] == 1


@pytest.mark.parametrize("search", [
    ida_star,
    lambda *a, **k: memory_bounded_astar(*a, max_open=8, **k),
    lambda *a, **k: sma_star(*a, max_nodes=8, **k),
], ids=["ida_star", "memory_bounded_astar", "sma_star"])
def test_low_memory_results_carry_status_members(search):
    assert is_status(search(CHAIN, "a", "d").status, Status.FOUND)
    assert is_status(search(CHAIN, "d", "a").status, Status.FAILED)
    assert is_status(search(CHAIN, "a", "d", max_expansions=1).status, Status.OUT_OF_BUDGET)


@pytest.mark.parametrize("planner", [ARAStar, ADStar])
def test_anytime_plans_carry_status_members(planner):
    p = planner(GRID, (0, 0), (5, 2), epsilon=2.0)
    early = p.plan(max_expansions=0)
    assert is_status(early.status, Status.OUT_OF_BUDGET) and not early.found
    done = p.plan()
    assert is_status(done.status, Status.FOUND) and p.finished
    p.update_costs({(0, 1): float("inf"), (5, 1): float("inf")})
    assert is_status(p.plan(max_expansions=0).status, Status.OUT_OF_BUDGET)
    end = p.plan()
    assert is_status(end.status, Status.FAILED) and not end.found and p.finished


@pytest.mark.parametrize("planner", [LPAStar, DStarLite])
def test_incremental_plans_carry_status_members(planner):
    p = planner(GRID, (0, 0), (5, 2))
    assert is_status(p.replan().status, Status.FOUND)
    p.update_costs({(0, 1): float("inf"), (5, 1): float("inf")})
    assert is_status(p.replan().status, Status.FAILED)


def test_flow_tile_routes_say_how_they_stand():
    tiles = FlowTiles(Grid.from_ascii("""
....#...
....#...
........"""), sector=4)
    assert is_status(tiles.route((0, 0), (7, 0)).status, Status.FOUND)
    walled = FlowTiles(Grid.from_ascii("""
....#...
....#..."""), sector=4)
    assert is_status(walled.route((0, 0), (7, 0)).status, Status.FAILED)


def test_the_old_budget_check_still_works_and_warns():
    with pytest.warns(DeprecationWarning, match="check_budget"):
        sliced.check_budget(3, 0.5)
    with pytest.warns(DeprecationWarning), pytest.raises(InvalidQueryError, match="max_seconds"):
        sliced.check_budget(None, -1)
