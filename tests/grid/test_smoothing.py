"""Path smoothing on grids: the smoothed path keeps its ends, is legal and never costs more;
a staircase becomes a diagonal."""

import math

import numpy as np
import pytest
from test_hpa import random_grid

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
