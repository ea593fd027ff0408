"""wayfinding.find_path and start_search refuse constraints where no constrained search runs."""

import pytest

from wayfinding import Grid
from wayfinding.constraints import Constraint, ConstraintSet, Disc
from wayfinding.errors import InvalidQueryError
from wayfinding.search import find_path, start_search

FIELD = ConstraintSet([Constraint(Disc((2.0, 0.0), 1.0), -3.0)])


def test_a_grid_query_takes_constraints():
    grid = Grid.from_ascii(".....")
    assert find_path(grid, (0, 0), (4, 0), constraints=FIELD).found


@pytest.mark.parametrize("case", ["csr", "open goal", "user heuristic"])
def test_other_queries_refuse_constraints(case):
    grid = Grid.from_ascii(".....")
    world, goal, heuristic = grid, (4, 0), None
    if case == "csr":
        world, goal = grid.to_csr(), 4
    elif case == "open goal":
        goal = {(4, 0), (3, 0)}
    else:
        heuristic = lambda cell, goal: 0.0  # noqa: E731
    start = 0 if case == "csr" else (0, 0)
    with pytest.raises(InvalidQueryError, match="constraints= needs a Grid"):
        find_path(world, start, goal, heuristic=heuristic, constraints=FIELD)


def test_sliced_searches_refuse_constraints():
    with pytest.raises(InvalidQueryError, match="do not run in slices"):
        start_search(Grid.from_ascii("....."), (0, 0), (4, 0), constraints=FIELD)
