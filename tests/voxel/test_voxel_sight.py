"""Line of sight between voxel centres against an exact rational reference: a voxel is touched
when its closed cube meets the segment (slab test in fractions), and sight needs every touched
voxel free."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError
from wayfinding.voxel.grid import MOVES, VoxelGrid
from wayfinding.voxel.sight import line_of_sight, lines_of_sight


def touched(a: tuple[int, ...], b: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """The voxels whose closed unit cube meets the segment between the centres of a and b."""
    out = []
    lo = [min(a[i], b[i]) for i in range(3)]
    hi = [max(a[i], b[i]) for i in range(3)]
    for v in itertools.product(*(range(lo[i], hi[i] + 1) for i in range(3))):
        t0, t1 = Fraction(0), Fraction(1)
        for i in range(3):
            p, d = Fraction(2 * a[i] + 1, 2), b[i] - a[i]
            if d == 0:
                if not v[i] <= p <= v[i] + 1:
                    t0, t1 = Fraction(1), Fraction(0)
                continue
            s0, s1 = (v[i] - p) / d, (v[i] + 1 - p) / d
            t0, t1 = max(t0, min(s0, s1)), min(t1, max(s0, s1))
        if t0 <= t1:
            out.append(v)
    return out


def reference_sight(blocked: np.ndarray, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return not any(blocked[z, y, x] for x, y, z in touched(a, b))


@st.composite
def worlds(draw: Any, max_side: int = 7) -> tuple[VoxelGrid, np.ndarray]:
    nx, ny, nz = (draw(st.integers(1, max_side)) for _ in range(3))
    density = draw(st.sampled_from([0.0, 0.05, 0.15, 0.3]))
    seed = draw(st.integers(0, 2**32 - 1))
    blocked = np.random.default_rng(seed).random((nz, ny, nx)) < density
    grid = VoxelGrid(blocked)
    m = draw(st.integers(1, 12))
    cells = np.random.default_rng(seed + 1).integers(0, (nx, ny, nz), size=(2 * m, 3))
    return grid, cells


@settings(max_examples=150, deadline=None)
@given(worlds())
def test_sight_matches_the_exact_reference(world: tuple[VoxelGrid, np.ndarray]) -> None:
    grid, cells = world
    a, b = cells[::2], cells[1::2]
    got = lines_of_sight(grid, a, b)
    want = [reference_sight(grid.blocked, tuple(p), tuple(q)) for p, q in zip(a, b, strict=True)]
    assert got.tolist() == want
    back = lines_of_sight(grid, b, a)
    assert back.tolist() == want
    assert line_of_sight(grid, a[0], b[0]) == want[0]


@settings(max_examples=60, deadline=None)
@given(worlds(max_side=4), st.sampled_from([6, 18, 26]))
def test_sight_between_neighbours_is_the_cube_rule(world: tuple[VoxelGrid, np.ndarray],
                                                   connectivity: int) -> None:
    grid = world[0].with_options(connectivity=connectivity)
    nx, ny, nz = grid.size
    for cell in itertools.product(range(nx), range(ny), range(nz)):
        for d in grid.moves:
            other = tuple(int(v) for v in np.add(cell, d))
            if grid.in_bounds(other):
                assert line_of_sight(grid, cell, other) == grid.can_move(cell, d), (cell, d)


@pytest.mark.parametrize(("blocked_cell", "sees"), [
    ((1, 1, 1), False),   # on the segment
    ((1, 0, 1), False),   # around the corner (1, 1, 1) the segment passes through
    ((2, 1, 2), False),   # around the corner (2, 2, 2)
    ((2, 2, 0), True),
    ((0, 2, 2), True),
])
def test_corners_touch_their_eight_voxels(blocked_cell: tuple[int, int, int],
                                          sees: bool) -> None:
    # The segment (0,0,0) -> (2,2,2) passes through the lattice corners (1,1,1) and (2,2,2),
    # touching the voxels {0,1}^3 and {1,2}^3.
    grid = VoxelGrid.from_cells((3, 3, 3), [blocked_cell])
    assert line_of_sight(grid, (0, 0, 0), (2, 2, 2)) == sees
    assert reference_sight(grid.blocked, (0, 0, 0), (2, 2, 2)) == sees


@pytest.mark.parametrize("x", range(748, 755))
def test_far_edge_crossings_are_exact(x: int) -> None:
    # From (0,0,0) to (3002,2,0) the centre line crosses y = 1 at x = 0.5 + 3002/4 = 751
    # exactly: the edge x = 751, y = 1 touches voxels x = 750 and 751 on rows 0 and 1, so row
    # 0 is touched up to x = 751 and row 1 from x = 750.
    for row, want in ((0, x > 751), (1, x < 750)):
        grid = VoxelGrid.from_cells((3003, 3, 1), [(x, row, 0)])
        assert reference_sight(grid.blocked, (0, 0, 0), (3002, 2, 0)) == want
        assert line_of_sight(grid, (0, 0, 0), (3002, 2, 0)) == want
        assert line_of_sight(grid, (3002, 2, 0), (0, 0, 0)) == want


def test_every_step_of_the_moves_is_symmetric() -> None:
    grid = VoxelGrid.from_cells((3, 3, 3), [(2, 1, 1)])
    a = np.tile([1, 1, 1], (26, 1))
    b = a + MOVES
    assert (lines_of_sight(grid, a, b) == lines_of_sight(grid, b, a)).all()


def test_blocked_ends_and_bad_input() -> None:
    grid = VoxelGrid.from_cells((2, 2, 2), [(1, 1, 1)])
    assert not line_of_sight(grid, (1, 1, 1), (1, 1, 1))
    assert line_of_sight(grid, (0, 0, 0), (0, 0, 0))
    with pytest.raises(InvalidQueryError, match="outside"):
        line_of_sight(grid, (0, 0, 0), (2, 0, 0))
    with pytest.raises(InvalidQueryError, match="three integers"):
        line_of_sight(grid, (0.5, 0, 0), (1, 0, 0))
    with pytest.raises(InvalidQueryError, match="as many"):
        lines_of_sight(grid, [(0, 0, 0)], [(0, 0, 0), (1, 0, 0)])
    with pytest.raises(InvalidQueryError, match=r"\(n, 3\)"):
        lines_of_sight(grid, [(0, 0)], [(0, 0)])
    assert lines_of_sight(grid, np.zeros((0, 3), int), np.zeros((0, 3), int)).shape == (0,)


@pytest.mark.parametrize("call", [
    lambda w: line_of_sight(w, (0, 0, 0), (1, 1, 1)),
    lambda w: lines_of_sight(w, [(0, 0, 0)], [(1, 1, 1)]),
])
@pytest.mark.parametrize("world", [None, np.zeros((2, 2, 2), bool)])
def test_sight_needs_a_voxel_grid(call, world) -> None:
    with pytest.raises(InvalidQueryError, match="needs a VoxelGrid"):
        call(world)
