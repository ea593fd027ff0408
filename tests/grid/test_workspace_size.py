"""The grid kernels refuse a workspace smaller than the padded grid, before touching it."""

import numpy as np
import pytest

import wayfinding as wf
from wayfinding._kernels import _canonical, _codes, _gridsearch, _jps
from wayfinding._kernels._workspace import Workspace

GRID = wf.Grid.from_ascii("""
.....
.#...
.....
""")
N = (GRID.height + 2) * (GRID.width + 2)
WIDTH = GRID.width + 2
START, GOAL = GRID.index((0, 0)), GRID.index((4, 2))
OCTILE = _codes.HEURISTIC_CODES["octile"]


def _sources():
    return np.array([START], dtype=np.int64)


def _out():
    return np.full(GRID.shape, np.inf)


ENTRY_POINTS = {
    "search": lambda ws: _gridsearch.search(ws, GRID.padded_costs, GRID.moves, WIDTH, START,
                                            GOAL, OCTILE, 1.0, False, False),
    "GridRun": lambda ws: _gridsearch.GridRun(ws, GRID.padded_costs, GRID.moves, WIDTH, START,
                                              GOAL, OCTILE, 1.0, False, False),
    "BfsRun": lambda ws: _gridsearch.BfsRun(ws, GRID.moves, WIDTH, START, GOAL, False),
    "BidirectionalRun forward": lambda ws: _gridsearch.BidirectionalRun(
        ws, Workspace(N), GRID.padded_costs, GRID.moves, WIDTH, START, GOAL, OCTILE, 1.0),
    "BidirectionalRun backward": lambda ws: _gridsearch.BidirectionalRun(
        Workspace(N), ws, GRID.padded_costs, GRID.moves, WIDTH, START, GOAL, OCTILE, 1.0),
    "flood": lambda ws: _gridsearch.flood(ws, GRID.padded_costs, GRID.moves, WIDTH,
                                          _sources(), np.inf, _out()),
    "canonical flood": lambda ws: _canonical.flood(ws, GRID.moves, WIDTH, _sources(), np.inf,
                                                   _out()),
    "jps": lambda ws: _jps.jps_search(ws, GRID.moves, WIDTH, START, GOAL, False),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_undersized_workspace_is_refused(entry):
    with pytest.raises(ValueError, match=f"workspace holds {N - 1} nodes; this grid needs {N}"):
        ENTRY_POINTS[entry](Workspace(N - 1))


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_workspace_of_the_grid_size_is_enough(entry):
    ENTRY_POINTS[entry](Workspace(N))


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_refusal_leaves_a_running_search_alone(entry):
    ws = Workspace(N - 1)
    small = wf.Grid(np.ones((GRID.height, GRID.width - 1), dtype=bool))
    run = _gridsearch.GridRun(ws, small.padded_costs, small.moves, small.width + 2,
                              small.index((0, 0)), small.index((3, 2)), OCTILE, 1.0, False,
                              False)
    with pytest.raises(ValueError, match="workspace"):
        ENTRY_POINTS[entry](ws)
    assert not run.stale
    assert run.advance() == _codes.FOUND and run.cost == pytest.approx(1 + 2 * 2 ** 0.5)


def test_flood_refuses_arrays_of_other_sizes():
    with pytest.raises(ValueError, match="sizes disagree"):
        _gridsearch.flood(Workspace(N), GRID.padded_costs, GRID.moves, WIDTH, _sources(),
                          np.inf, np.full((GRID.height, GRID.width + 1), np.inf))
    with pytest.raises(ValueError, match="sizes disagree"):
        _gridsearch.flood(Workspace(N), GRID.padded_costs[:-1], GRID.moves, WIDTH, _sources(),
                          np.inf, _out())
