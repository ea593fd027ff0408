"""wayfinding.find_path and start_search refuse constraints where no constrained search runs."""

import pytest

from wayfinding import Grid
from wayfinding.constraints import Constraint, ConstraintSet, Disc
from wayfinding.errors import InvalidQueryError
from wayfinding.graph import CSRGraph
from wayfinding.search import find_path, start_search

FIELD = ConstraintSet([Constraint(Disc((2.0, 0.0), 1.0), -3.0)])


def test_a_grid_query_takes_constraints():
    grid = Grid.from_ascii(".....")
    assert find_path(grid, (0, 0), (4, 0), constraints=FIELD).found


def test_a_csr_graph_takes_constraints_only_with_plane_coords():
    assert find_path(Grid.from_ascii(".....").to_csr(), 0, 4, constraints=FIELD).found
    bare = CSRGraph.from_edges(5, [0, 1, 2, 3], [1, 2, 3, 4], [1.0] * 4)
    with pytest.raises(InvalidQueryError, match="coords"):
        find_path(bare, 0, 4, constraints=FIELD)


@pytest.mark.parametrize("case", ["open goal", "user heuristic"])
def test_other_queries_refuse_constraints(case):
    grid = Grid.from_ascii(".....")
    goal, heuristic = (4, 0), None
    if case == "open goal":
        goal = {(4, 0), (3, 0)}
    else:
        heuristic = lambda cell, goal: 0.0  # noqa: E731
    with pytest.raises(InvalidQueryError, match="constraints="):
        find_path(grid, (0, 0), goal, heuristic=heuristic, constraints=FIELD)


def test_sliced_searches_refuse_constraints():
    with pytest.raises(InvalidQueryError, match="do not run in slices"):
        start_search(Grid.from_ascii("....."), (0, 0), (4, 0), constraints=FIELD)
