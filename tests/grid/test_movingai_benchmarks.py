"""Optimal lengths of the Moving AI problems (read in place) and of the generated maps'
scenarios: a spread sample by default, every Moving AI problem under -m slow."""

import pytest
from movingai_data import all_names, load, movingai_names

from wayfinding.grid import GridSearch


def solve_all(name: str, method: str, every: int = 1, sample: int | None = 125) -> tuple[int, list]:
    grid, scen = load(name, sample)
    scen.check_map(grid)
    search = GridSearch(grid)
    wrong = []
    problems = scen.problems[::every]
    for p in problems:
        r = search.find_path(p.start, p.goal, method=method)
        if not (r.found and p.matches(r.cost)):
            wrong.append((p.line, p.start, p.goal, p.optimal, r.cost))
    return len(problems), wrong


NAMES = all_names()


@pytest.mark.parametrize("method", ["astar", "dijkstra"])
@pytest.mark.parametrize("name", NAMES)
def test_sampled_problems_are_optimal(name, method):
    n, wrong = solve_all(name, method)
    assert n > 0
    assert wrong == []


@pytest.mark.parametrize("name", NAMES[::4])
def test_sampled_problems_bidirectional(name):
    n, wrong = solve_all(name, "bidirectional", every=3)
    assert wrong == []


@pytest.mark.slow
@pytest.mark.parametrize("method", ["astar", "dijkstra"])
@pytest.mark.parametrize("name", movingai_names())
def test_every_problem_is_optimal(name, method):
    n, wrong = solve_all(name, method, sample=None)
    assert n > 0
    assert wrong == []
