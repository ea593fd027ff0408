"""The lean results of the compiled one-call entry points (the subgoal table's, and the
plain and jump point searches'): built without ``PathResult.__init__``, they must be
indistinguishable from constructed ones."""

import copy
import dataclasses
import math
import pickle

import numpy as np
import pytest
from movingai_data import load

from wayfinding._kernels import _subgoal_table
from wayfinding.grid import Grid, GridSearch
from wayfinding.grid.subgoal import SubgoalTable
from wayfinding.results import PathResult, SearchStats, Status


def _queries():
    grid, scen = load("gen/caves")
    table = SubgoalTable.build(grid)
    return grid, table, scen.problems[::9]


def _assert_lean_equals_constructed(r: PathResult) -> None:
    s = r.stats
    built = PathResult(r.path.copy(), r.cost, r.found,
                       SearchStats(s.expanded, s.generated, s.reopened, s.updated,
                                   s.max_open, s.elapsed), r.algorithm, r.expanded_nodes,
                       r.open_nodes)
    assert built.status is r.status
    assert dataclasses.astuple(built.stats) == dataclasses.astuple(s)
    assert [type(getattr(s, f.name)) for f in dataclasses.fields(s)] == [int] * 5 + [float]
    for f in dataclasses.fields(PathResult):
        a, b = getattr(r, f.name), getattr(built, f.name)
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b, f.name
    assert copy.deepcopy(r) == r == pickle.loads(pickle.dumps(r))


@pytest.mark.parametrize("method", ["astar", "dijkstra", "greedy", "jps", "jps2"])
@pytest.mark.parametrize("record", [False, True])
def test_one_call_results_equal_constructed_ones(method, record):
    grid, _, problems = _queries()
    search = GridSearch(grid)
    for p in problems[:20]:
        r = search.find_path(p.start, p.goal, method=method, record=record)
        assert r.status is Status.FOUND and r.algorithm == method
        assert (r.expanded_nodes is not None) is record
        _assert_lean_equals_constructed(r)
    failed = GridSearch(Grid.from_ascii("..#..\n..#..")).find_path((0, 0), (4, 1),
                                                                    method=method, record=record)
    assert failed.status is Status.FAILED and failed.cost == math.inf
    _assert_lean_equals_constructed(failed)


def test_lean_results_equal_constructed_ones():
    _, table, problems = _queries()
    for p in problems:
        r = table.find_path(p.start, p.goal)
        assert r.status is Status.FOUND
        _assert_lean_equals_constructed(r)


def test_lean_results_copy_pickle_and_replace():
    _, table, problems = _queries()
    r = table.find_path(problems[-1].start, problems[-1].goal)
    for other in (copy.deepcopy(r), pickle.loads(pickle.dumps(r)),
                  dataclasses.replace(r, algorithm="x")):
        np.testing.assert_array_equal(other.path, r.path)
        assert other.cost == r.cost and other.status is r.status
        assert other.stats == r.stats
    d = dataclasses.asdict(r)
    assert d["cost"] == r.cost and d["stats"]["expanded"] == r.stats.expanded
    r.cost = 1.0  # fields stay writable
    assert r.cost == 1.0


def test_failed_lean_result():
    grid = Grid.from_ascii("..#..\n..#..")
    r = SubgoalTable.build(grid).find_path((0, 0), (4, 1))
    assert r.status is Status.FAILED and not r.found and r.cost == math.inf
    assert r.path.shape == (0, 2) and r.path.dtype == np.int64 and len(r) == 0


@dataclasses.dataclass
class _PlainResult:
    """A record with a ``__dict__``: the kernel must set its fields by name."""

    path: object = None
    cost: float = 0.0
    found: bool = False
    stats: object = None
    algorithm: str = ""
    expanded_nodes: object = None
    open_nodes: object = None
    status: object = None


@dataclasses.dataclass
class _PlainStats:
    expanded: int = 0
    generated: int = 0
    reopened: int = 0
    updated: int = 0
    max_open: int = 0
    elapsed: float = 0.0


def test_records_without_slots_are_filled_by_name():
    grid, table, problems = _queries()
    a, g = table.arrays, table.graph
    q = _subgoal_table.TableQuery(
        grid.moves, a["clearance"], a["subgoal_id"], grid.width + 2, g._cells, g._xy, a["level"],
        a["indptr"], a["core_end"], a["targets"], a["costs"], g.top_level, table._top_index,
        a["table"], grid.components, _PlainResult, _PlainStats, "plain", "yes", "no")
    for p in problems:
        r = q.find_path(p.start, p.goal)
        want = table.find_path(p.start, p.goal)
        assert type(r) is _PlainResult and type(r.stats) is _PlainStats
        assert r.cost == want.cost and r.status == "yes" and r.algorithm == "plain"
        np.testing.assert_array_equal(r.path, want.path)
    assert q.find_path((-5, 0), problems[0].goal) == -1
    assert q.find_path(problems[0].start, (0, 10**9)) == -2
    assert q.find_path([0, 0], problems[0].goal) == -4


@pytest.mark.parametrize("cell, cost", [((0, 0), 3.0), ((1, 2), 2 * math.sqrt(2)),
                                        ((0, 2), 1 + 2 * math.sqrt(2))])
def test_the_floor_path_is_the_straight_path(cell, cost):
    grid = Grid.from_ascii("....\n....\n....")
    r = SubgoalTable.build(grid).find_path(cell, (3, 0))
    assert r.found and r.stats.expanded == 0
    assert len(r.path) == max(abs(cell[0] - 3), abs(cell[1])) + 1
    assert r.cost == pytest.approx(cost, abs=1e-12)
