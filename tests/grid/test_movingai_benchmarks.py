"""Moving AI optimal lengths: a spread sample by default, every problem under -m slow."""

from pathlib import Path

import pytest
from movingai_data import TEST_DATA, full_movingai

from wayfinding.grid import GridSearch, read_map, read_scen


def scenario_files(root: Path | None) -> list[Path]:
    if root is None:
        return []
    return sorted((root / "scenarios").glob("*/*.map.scen"))


def solve_all(scen_path: Path, algo: str, every: int = 1) -> tuple[int, list]:
    scen = read_scen(scen_path)
    grid = read_map(scen.find_map())
    scen.check_map(grid)
    search = GridSearch(grid)
    wrong = []
    problems = scen.problems[::every]
    for p in problems:
        r = search.find_path(p.start, p.goal, algo=algo)
        if not (r.found and p.matches(r.cost)):
            wrong.append((p.line, p.start, p.goal, p.optimal, r.cost))
    return len(problems), wrong


SAMPLE = scenario_files(TEST_DATA)


def test_sample_covers_every_map_and_enough_problems():
    assert len(SAMPLE) >= 17
    assert sum(len(read_scen(p)) for p in SAMPLE) >= 2000


@pytest.mark.parametrize("algo", ["astar", "dijkstra"])
@pytest.mark.parametrize("scen", SAMPLE, ids=lambda p: p.name)
def test_sampled_problems_are_optimal(scen, algo):
    n, wrong = solve_all(scen, algo)
    assert n > 0
    assert wrong == []


@pytest.mark.parametrize("scen", SAMPLE[::4], ids=lambda p: p.name)
def test_sampled_problems_bidirectional(scen):
    n, wrong = solve_all(scen, "bidirectional", every=3)
    assert wrong == []


FULL = scenario_files(full_movingai())


@pytest.mark.slow
@pytest.mark.skipif(not FULL, reason="full Moving AI data not found (../shared/data/movingai)")
@pytest.mark.parametrize("algo", ["astar", "dijkstra"])
@pytest.mark.parametrize("scen", FULL, ids=lambda p: p.name)
def test_every_problem_is_optimal(scen, algo):
    n, wrong = solve_all(scen, algo)
    assert n > 0
    assert wrong == []
