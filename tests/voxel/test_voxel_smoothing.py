"""Smoothing voxel paths: shortcuts against a plain string pulling written with the public
line of sight, Catmull–Rom against its defining properties, and the free-space check
against dense sampling."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError
from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.octree import SparseVoxelOctree
from wayfinding.voxel.sight import line_of_sight
from wayfinding.voxel.smoothing import (
    catmull_rom,
    segments_clear,
    shortcut_voxels,
    smooth_flight_path,
)


def reference_shortcut(grid: VoxelGrid, cells: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """String pulling by galloping, written with the public line of sight."""
    out = [cells[0]]
    i, n = 0, len(cells)
    while i < n - 1:
        good, bad, step = i + 1, n, 1
        while good + step < n:
            if line_of_sight(grid, cells[i], cells[good + step]):
                good += step
                step *= 2
            else:
                bad = good + step
                break
        while bad - good > 1:
            mid = (good + bad) // 2
            if line_of_sight(grid, cells[i], cells[mid]):
                good = mid
            else:
                bad = mid
        out.append(cells[good])
        i = good
    return out


def sampled_free(grid: VoxelGrid, pts: np.ndarray, step: float = 0.02) -> bool:
    """Whether points every ``step`` voxels along a polyline (voxel units) are in free
    voxels inside the grid."""
    nx, ny, nz = grid.size
    for a, b in itertools.pairwise(pts):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step)))
        c = np.floor(a + np.linspace(0, 1, n + 1)[:, None] * (b - a)).astype(int)
        if (c < 0).any() or (c >= (nx, ny, nz)).any() or grid.blocked[c[:, 2], c[:, 1],
                                                                      c[:, 0]].any():
            return False
    return True


@st.composite
def worlds_with_paths(draw: Any) -> tuple[VoxelGrid, np.ndarray]:
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    side = draw(st.integers(4, 14))
    blocked = rng.random((side, side, side)) < draw(st.sampled_from([0.0, 0.1, 0.25]))
    grid = VoxelGrid(blocked)
    free = np.argwhere(~blocked)[:, ::-1]
    if len(free) < 2:
        blocked[:] = False
        grid = VoxelGrid(blocked)
        free = np.argwhere(~blocked)[:, ::-1]
    a, b = free[rng.integers(len(free))], free[rng.integers(len(free))]
    r = SparseVoxelOctree.build(grid).find_path(a, b, smooth=False)
    if not r.found:
        r = SparseVoxelOctree.build(grid).find_path(a, a, smooth=False)
    return grid, r.path


@settings(max_examples=60, deadline=None)
@given(worlds_with_paths())
def test_shortcut_matches_string_pulling_by_galloping(case):
    grid, path = case
    cells = [tuple(int(v) for v in p) for p in path]
    got = [tuple(int(v) for v in p) for p in shortcut_voxels(grid, path)]
    assert got == reference_shortcut(grid, cells) if len(cells) >= 3 else got == cells
    assert all(line_of_sight(grid, a, b) for a, b in itertools.pairwise(got))


@settings(max_examples=60, deadline=None)
@given(worlds_with_paths())
def test_smoothed_path_stays_in_free_space(case):
    grid, path = case
    world = smooth_flight_path(grid, path)
    pts = (world - np.asarray(grid.origin)) / grid.voxel_size
    assert np.allclose(pts[0], path[0] + 0.5) and np.allclose(pts[-1], path[-1] + 0.5)
    assert sampled_free(grid, pts)
    # without the curve: the corners kept, never longer than the voxel path
    straight = smooth_flight_path(grid, path, curve=False)
    corners = shortcut_voxels(grid, path)
    assert np.allclose(straight, np.asarray(grid.origin) + (corners + 0.5) * grid.voxel_size)
    poly = np.linalg.norm(np.diff(path, axis=0), axis=1).sum()
    assert np.linalg.norm(np.diff(straight, axis=0), axis=1).sum() <= poly + 1e-9


def test_catmull_rom_passes_through_its_points():
    p = np.array([[0, 0, 0], [4, 0, 0], [4, 3, 0], [6, 5, 2]], float)
    c = catmull_rom(p, spacing=0.1)
    for q in p:
        assert np.isclose(np.linalg.norm(c - q, axis=1).min(), 0)
    assert np.allclose(c[0], p[0]) and np.allclose(c[-1], p[-1])
    assert (np.linalg.norm(np.diff(c, axis=0), axis=1) < 0.3).all()
    line = catmull_rom(np.array([[0, 0, 0], [1, 0, 0], [3, 0, 0]], float))
    assert np.allclose(line[:, 1:], 0)            # collinear points stay on their line
    with pytest.raises(InvalidQueryError, match="points"):
        catmull_rom(np.zeros((3, 2)))
    with pytest.raises(InvalidQueryError, match="spacing"):
        catmull_rom(p, spacing=0)


def test_segments_clear_is_conservative_and_exact_on_short_segments():
    blocked = np.zeros((3, 3, 3), bool)
    blocked[1, 1, 1] = True
    g = VoxelGrid(blocked)
    pts = np.array([[0.5, 0.5, 0.5], [0.9, 0.5, 0.5], [1.2, 0.5, 0.5], [1.5, 1.5, 1.5],
                    [2.5, 2.5, 2.5]])
    assert segments_clear(g, pts).tolist() == [True, True, False, False]
    assert segments_clear(g, [[0.5, 0.5, 0.5], [-0.5, 0.5, 0.5]]).tolist() == [False]


def test_smoothing_rejects_blocked_cells():
    blocked = np.zeros((2, 2, 2), bool)
    blocked[0, 0, 1] = True
    with pytest.raises(InvalidQueryError, match="blocked"):
        shortcut_voxels(VoxelGrid(blocked), [(0, 0, 0), (1, 0, 0)])


P4 = [(0.0, 0.0, 0.0), (1.0, 1.0, 1.0), (2.0, 0.0, 1.0), (3.0, 3.0, 2.0)]
WIGGLE = [(0, 0, 0), (1, 1, 1), (2, 1, 1), (3, 2, 2), (4, 3, 1), (4, 3, 0), (3, 2, 0)]
ROUND = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0), (2, 2, 0)]     # round a blocked voxel


@pytest.mark.parametrize(("call", "match"), [
    (lambda g: catmull_rom(P4, spacing=1e-12), "MAX_CELLS"),
    (lambda g: catmull_rom([(0, 0, 0), (1e300, 0, 0), (0, 1e300, 0)]), "MAX_CELLS"),
    (lambda g: smooth_flight_path(VoxelGrid.from_cells((3, 3, 1), [(1, 1, 0)]), ROUND,
                                  spacing=1e-12), "MAX_CELLS"),
    (lambda g: catmull_rom(P4, spacing=True), "spacing"),
    (lambda g: catmull_rom(P4, spacing="a"), "spacing"),
    (lambda g: smooth_flight_path(g, WIGGLE, spacing="a"), "spacing"),
    (lambda g: catmull_rom(P4, alpha=np.nan), "alpha"),
    (lambda g: catmull_rom(P4, alpha=1e300), "alpha"),
    (lambda g: catmull_rom([("a", 0, 0)] * 3), "points"),
    (lambda g: catmull_rom([(0, 0, 0), (1, 0)]), "points"),
    (lambda g: catmull_rom([(True, 0, 0), (1, 0, 0), (2, 0, 0)]), "points"),
    (lambda g: segments_clear(g, [(np.nan, 0, 0), (1, 1, 1)]), "points"),
    (lambda g: segments_clear(g, [0, 1, 2, 3]), "points"),
    (lambda g: segments_clear(g, "abc"), "points"),
    (lambda g: segments_clear(g, P4, margin=np.nan), "margin"),
    (lambda g: segments_clear(g, P4, margin=-5), "margin"),
    (lambda g: segments_clear(None, P4), "VoxelGrid"),
    (lambda g: shortcut_voxels(None, [(0, 0, 0)]), "VoxelGrid"),
    (lambda g: smooth_flight_path(np.zeros((2, 2, 2), bool), [(0, 0, 0)]), "VoxelGrid"),
])
def test_smoothing_refuses_bad_arguments_by_name(call, match):
    # spacings a hair wide allocated terabytes; NaN alphas gave NaN samples, NaN points
    # "not clear", strings and ragged points raw numpy errors
    with pytest.raises(InvalidQueryError, match=match):
        call(VoxelGrid(np.zeros((4, 5, 6), bool)))


def test_an_endless_spacing_keeps_only_the_points():
    assert catmull_rom(P4, spacing=np.inf).tolist() == [list(p) for p in P4]


@pytest.mark.parametrize("call", [
    lambda g: smooth_flight_path(g, [(0, 0, 0), (1, 1, 1)], curve="no"),
    lambda g: SparseVoxelOctree.build(g).find_path((0, 0, 0), (1, 1, 1), smooth="no"),
])
def test_switches_take_only_true_or_false(call):
    # a string was taken as true: "no" smoothed
    with pytest.raises(InvalidQueryError, match="True or False"):
        call(VoxelGrid(np.zeros((2, 2, 2), bool)))
