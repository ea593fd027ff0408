"""Random block worlds: the same world for the same seed, blocks of the sizes asked for, a
start and a goal on free cells joined by a path (checked by a breadth-first flood of the
grid's moves), and bad arguments refused."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from wayfinding.errors import InvalidGridError
from wayfinding.grid import Grid
from wayfinding.grid.worlds import blocks_world

SEEDS = range(8)


def reachable(grid: Grid, start: tuple[int, int]) -> set[tuple[int, int]]:
    """The cells a flood over the grid's legal moves reaches from ``start``."""
    seen, todo = {start}, deque([start])
    while todo:
        for nxt, _ in grid.neighbours(todo.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


@pytest.mark.parametrize("seed", SEEDS)
def test_the_same_seed_gives_the_same_world(seed):
    a, b = blocks_world(40, 30, seed=seed), blocks_world(40, 30, seed=seed)
    assert a[0].fingerprint == b[0].fingerprint and a[1:] == b[1:]


def test_other_seeds_give_other_worlds():
    assert len({blocks_world(40, 30, seed=s)[0].fingerprint for s in SEEDS}) == len(SEEDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_world_has_the_size_and_blocks_asked_for(seed):
    grid, _, _ = blocks_world(40, 30, blocks=25, largest=7, seed=seed)
    assert grid.shape == (30, 40) and grid.is_uniform and grid.cell_size == 1.0
    assert 0 < (~grid.passable).sum() <= 25 * 7 * 7
    assert blocks_world(40, 30, blocks=0, seed=seed)[0].passable.all()


@pytest.mark.parametrize("seed", range(40))
def test_start_and_goal_are_free_cell_centres_joined_by_a_path(seed):
    grid, start, goal = blocks_world(12, 10, blocks=12, largest=4, seed=seed)
    cells = [grid.world_to_cell(p) for p in (start, goal)]
    for p, c in zip((start, goal), cells):
        assert grid.is_passable(c) and p == grid.cell_to_world(c)
    assert cells[1] in reachable(grid, cells[0])


def test_a_goal_off_the_start_island_is_drawn_again_on_it():
    # seed 205 of the default family first draws its ends on two islands
    grid, start, goal = blocks_world(40, 30, seed=205)
    islands = np.unique(grid.components[grid.passable])
    assert len(islands) > 1
    assert grid.world_to_cell(goal) in reachable(grid, grid.world_to_cell(start))


@pytest.mark.parametrize(("args", "options"), [
    ((1, 30), {}), ((40, 0), {}), ((40.0, 30), {}), (("40", 30), {}), ((40, 30), {"blocks": -1}),
    ((40, 30), {"largest": 0}), ((40, 30), {"seed": -1}), ((40, 30), {"seed": 1.5}),
    ((40, 30), {"blocks": True}), ((40, 30), {"blocks": 10**6 + 1}),
    ((40, 30), {"blocks": 10**15}),    # dropped one by one: refused, not run for days
])
def test_bad_arguments_are_refused(args, options):
    with pytest.raises(InvalidGridError):
        blocks_world(*args, **options)


def test_blocks_that_leave_no_free_cell_are_refused():
    with pytest.raises(InvalidGridError, match="no free cell"):
        blocks_world(2, 2, blocks=10, largest=2, seed=0)
