"""``wayfinding.find_path`` takes voxel grids: the compiled searches by ``method``, the
generic search where a heuristic of the caller's is given."""

import numpy as np
import pytest

from wayfinding import find_path
from wayfinding.errors import InvalidQueryError
from wayfinding.voxel import generate
from wayfinding.voxel.methods import METHODS
from wayfinding.voxel.search import VoxelSearch


@pytest.mark.parametrize("method", list(METHODS))
def test_find_path_runs_the_voxel_searches(method):
    grid = generate.tunnels((16, 12, 16), seed=2)
    free = np.argwhere(~grid.blocked)[:, ::-1]
    a, b = free[0], free[-1]
    got = find_path(grid, a, b, method=method)
    want = VoxelSearch(grid).find_path(a, b, method=method)
    assert got.algorithm == method
    assert got.cost == pytest.approx(want.cost, abs=1e-9)
    np.testing.assert_array_equal(got.path, want.path)


def test_a_callers_heuristic_runs_the_generic_search_to_the_same_cost():
    grid = generate.tunnels((12, 10, 12), seed=5)
    free = np.argwhere(~grid.blocked)[:, ::-1]
    a, b = tuple(int(v) for v in free[0]), tuple(int(v) for v in free[-1])
    generic = find_path(grid, a, b, heuristic=lambda c, g: 0.0)
    assert generic.cost == pytest.approx(find_path(grid, a, b).cost, abs=1e-9)


def test_an_unknown_voxel_method_is_refused():
    grid = generate.tunnels((8, 8, 8), seed=1)
    free = np.argwhere(~grid.blocked)[:, ::-1]
    with pytest.raises(InvalidQueryError, match="method"):
        find_path(grid, free[0], free[-1], method="jps_plus")
