"""Path smoothing on grids: the smoothed path keeps its ends, is legal and never costs more;
a staircase becomes a diagonal."""

import math

import numpy as np
import pytest
from test_hpa import random_grid

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.grid.hpa import HPAStar
from wayfinding.grid.smoothing import smooth_path


def test_smoothing_never_longer_and_legal():
    rng = np.random.default_rng(3)
    g = random_grid(rng, 40, 40, 0.2, "no_corner_cutting", False)
    hpa = HPAStar.build(g, cluster_size=8)
    free = np.argwhere(g.passable)
    shorter = 0
    for _ in range(30):
        (ay, ax), (by, bx) = free[rng.integers(len(free))], free[rng.integers(len(free))]
        r = hpa.find_path((int(ax), int(ay)), (int(bx), int(by)), refine="edges")
        if not r.found:
            continue
        p = smooth_path(g, r.path)
        assert p[0].tolist() == r.path[0].tolist() and p[-1].tolist() == r.path[-1].tolist()
        assert g.path_cost(p) <= r.cost + 1e-9
        shorter += g.path_cost(p) < r.cost - 1e-9
    assert shorter > 0


def test_smoothing_straightens_a_staircase():
    g = Grid(np.ones((8, 8), dtype=bool))
    stairs = np.array([[0, 0], [1, 0], [1, 1], [2, 1], [2, 2], [3, 2], [3, 3]])
    p = smooth_path(g, stairs)
    assert g.path_cost(p) == pytest.approx(3 * math.sqrt(2))


def test_smoothing_a_path_back_to_its_start_gives_the_one_cell():
    g = Grid(np.ones((3, 3), dtype=bool))
    assert smooth_path(g, [(1, 1), (2, 0), (1, 1)]).tolist() == [[1, 1]]


def walk_cost(costs, rule, cells):
    """Cost of a walk of cells summed from the written movement rules (inf if a step is
    illegal)."""
    h, w = costs.shape

    def free(x, y):
        return 0 <= x < w and 0 <= y < h and math.isfinite(costs[y, x])

    total = 0.0
    for (ax, ay), (bx, by) in zip(cells, cells[1:]):
        dx, dy = bx - ax, by - ay
        if not free(ax, ay) or not free(bx, by) or max(abs(dx), abs(dy)) != 1:
            return math.inf
        if dx and dy:
            sides = free(ax + dx, ay) + free(ax, ay + dy)
            if rule == "never" or (rule == "no_corner_cutting" and sides < 2) \
                    or (rule == "allow_one_blocked" and sides < 1):
                return math.inf
        total += (math.sqrt(2.0) if dx and dy else 1.0) * (costs[ay, ax] + costs[by, bx]) / 2
    return total


def test_smoothing_random_legal_walks_against_their_own_cost():
    """Walks that wander and revisit cells, on every diagonal rule and weighted terrain:
    the result is a legal walk between the same ends costing no more (costs summed in the
    test from the written rules)."""
    rng = np.random.default_rng(11)
    for rule in ("never", "no_corner_cutting", "allow_one_blocked", "always"):
        for _ in range(60):
            h, w = rng.integers(1, 9, 2)
            costs = np.where(rng.random((h, w)) < 0.3, np.inf,
                             rng.choice([1.0, 2.0, 5.0], (h, w)))
            g = Grid(costs, diagonal=rule)
            free = np.argwhere(g.passable)
            if not len(free):
                continue
            y, x = free[rng.integers(len(free))]
            walk = [(int(x), int(y))]
            for _ in range(rng.integers(0, 25)):
                steps = g.neighbours(walk[-1])
                if not steps:
                    break
                walk.append(steps[rng.integers(len(steps))][0])
            out = smooth_path(g, walk).tolist()
            assert out[0] == list(walk[0]) and out[-1] == list(walk[-1])
            assert walk_cost(costs, rule, out) <= walk_cost(costs, rule, walk) + 1e-9


@pytest.mark.parametrize("path, words", [
    ([(0, 0), (3, 3), (0, 3)], "step 1 from (0, 0) to (3, 3) is not a legal move"),
    ([(0, 0), (1, 1), (2, 2)], "cell 1 (1, 1) is outside the grid or blocked"),
    ([(9, 0), (0, 0), (1, 0)], "cell 0 (9, 0) is outside the grid or blocked"),
    ([(-1, 0), (0, 0), (1, 0)], "cell 0 (-1, 0) is outside the grid or blocked"),
    ([(0, 0), (0, 0), (1, 0)], "step 1 from (0, 0) to (0, 0) is not a legal move"),
    ([(0.5, 0), (1, 0), (2, 0)], "integer (x, y) cells"),
    ([0, 1, 2], "integer (x, y) cells"),
    ("abc", "integer (x, y) cells"),
])
def test_smoothing_refuses_what_is_not_a_legal_walk(path, words):
    g = Grid(np.array([[1, 1, 1, 1], [1, 0, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]], dtype=bool))
    with pytest.raises(InvalidQueryError, match="path") as err:
        smooth_path(g, path)
    assert words in str(err.value)


def test_smoothing_needs_a_grid():
    with pytest.raises(InvalidQueryError, match="needs a Grid"):
        smooth_path(np.ones((3, 3), dtype=bool), [(0, 0), (1, 0), (2, 0)])
