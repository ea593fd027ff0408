"""VoxelGrid: constructors and their bad inputs, bit packing, the move rule against a plain
cube check, octile3 against Dijkstra on empty grids, the world transform, save/load, and the
connected components against scipy (6 neighbours) and a breadth-first search over
``neighbours`` (18 and 26)."""

from __future__ import annotations

import heapq
import itertools
import zipfile
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from wayfinding.errors import (
    IndexFormatError,
    InvalidGridError,
    InvalidQueryError,
    WayfindingError,
)
from wayfinding.voxel.grid import MOVE_COSTS, MOVES, VoxelGrid, octile3


@st.composite
def blocked_arrays(draw: Any, max_side: int = 6) -> np.ndarray:
    nx, ny, nz = (draw(st.integers(1, max_side)) for _ in range(3))
    density = draw(st.sampled_from([0.0, 0.1, 0.3, 0.5]))
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).random((nz, ny, nx)) < density


def cube_free(blocked: np.ndarray, cell: tuple[int, ...], d: tuple[int, ...]) -> bool:
    """Every voxel of the box spanned by cell and cell + d is inside and free."""
    nz, ny, nx = blocked.shape
    for x, y, z in itertools.product(*({cell[i], cell[i] + d[i]} for i in range(3))):
        if not (0 <= x < nx and 0 <= y < ny and 0 <= z < nz) or blocked[z, y, x]:
            return False
    return True


# ------------------------------------------------------------------ constructors


def test_shapes_sizes_and_views() -> None:
    blocked = np.zeros((2, 3, 70), bool)
    blocked[1, 2, 65] = blocked[0, 0, 0] = True
    g = VoxelGrid(blocked, origin=(1, 2, 3), voxel_size=0.5, connectivity=18)
    assert g.shape == (2, 3, 70) and g.size == (70, 3, 2)
    assert g.num_voxels == 420 and g.num_free == 418
    assert g.words.shape == (2, 3, 2) and g.words.dtype == np.uint64
    assert int(g.words[1, 2, 1]) == 1 << 1 and int(g.words[0, 0, 0]) == 1
    assert (g.blocked == blocked).all() and not g.blocked.flags.writeable
    assert g.padded.shape == (4, 5, 72) and g.padded[2, 3, 66] == 0 and g.padded[1, 1, 2] == 1
    assert g.padded[0].sum() == 0 and g.padded[:, :, -1].sum() == 0
    assert (g.moves == MOVES[:18]).all()
    assert g.origin == (1.0, 2.0, 3.0) and g.voxel_size == 0.5 and g.connectivity == 18
    assert repr(g) == "VoxelGrid(70 x 3 x 2, 418 free, 18-connected)"
    assert not g.is_free((0, 0, 0)) and g.is_free((1, 0, 0)) and not g.is_free((70, 0, 0))
    assert g.index((2, 1, 1)) == 2 + 70 * (1 + 3 * 1)


def test_from_cells_and_from_array_agree() -> None:
    cells = [(0, 1, 2), (3, 0, 0)]
    a = VoxelGrid.from_cells((4, 2, 3), cells)
    blocked = np.zeros((3, 2, 4), bool)
    blocked[2, 1, 0] = blocked[0, 0, 3] = True
    b = VoxelGrid.from_array(blocked.astype(np.uint8))
    assert a == b and hash(a) == hash(b)
    assert VoxelGrid.from_cells((2, 2, 2), []).num_free == 8


def test_with_options_keeps_the_voxels() -> None:
    g = VoxelGrid.from_cells((3, 3, 3), [(1, 1, 1)])
    h = g.with_options(connectivity=6, voxel_size=2.0)
    assert (h.blocked == g.blocked).all() and h.connectivity == 6 and h.voxel_size == 2.0
    assert h != g and h.fingerprint != g.fingerprint
    assert g.with_options() == g
    with pytest.raises(TypeError, match="unknown option"):
        g.with_options(colour=3)
    with pytest.raises(InvalidGridError, match="connectivity"):
        g.with_options(connectivity=8)


@pytest.mark.parametrize(("blocked", "options", "match"), [
    (np.zeros((2, 2)), {}, "3D array"),
    (np.zeros((2, 2, 2), np.float64), {}, "booleans"),
    (np.full((2, 2, 2), 2), {}, "booleans"),
    (np.zeros((0, 2, 2), bool), {}, "at least one voxel"),
    (np.zeros((2, 2, 2), bool), {"origin": (0, 0)}, "origin"),
    (np.zeros((2, 2, 2), bool), {"origin": (0, np.nan, 0)}, "origin"),
    (np.zeros((2, 2, 2), bool), {"voxel_size": 0}, "voxel_size"),
    (np.zeros((2, 2, 2), bool), {"voxel_size": -1.0}, "voxel_size"),
    (np.zeros((2, 2, 2), bool), {"voxel_size": True}, "voxel_size"),
    (np.zeros((2, 2, 2), bool), {"voxel_size": "1"}, "voxel_size"),
    (np.zeros((2, 2, 2), bool), {"voxel_size": float("inf")}, "voxel_size"),
    (np.zeros((2, 2, 2), bool), {"connectivity": 8}, "connectivity"),
])
def test_bad_grids_are_refused(blocked: np.ndarray, options: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidGridError, match=match) as info:
        VoxelGrid(blocked, **options)
    assert isinstance(info.value, ValueError) and isinstance(info.value, WayfindingError)


@pytest.mark.parametrize(("size", "cells", "match"), [
    ((2, 2, 2), [(2, 0, 0)], r"\(2, 0, 0\) is outside"),
    ((2, 2, 2), [(0, -1, 0)], "outside"),
    ((2, 0, 2), [], "size"),
    ((2, 2), [], "size"),
    ((2.0, 2, 2), [], "size"),
    ((3, 1, 1), [(-0.5, 0, 0)], "integers"),
    ((3, 1, 1), [(2.9, 0, 0)], "integers"),
    ((3, 1, 1), [("1", 0, 0)], "integers"),
    ((3, 1, 1), [(1, 0)], "integers"),
    ((3, 1, 1), np.ones((1, 3), dtype=bool), "integers"),
    ((3, 1, 1), [(1, 0, 0), (1, 0)], "integers"),
    ((3, 1, 1), [(10**20, 0, 0)], "integers"),
])
def test_bad_cell_lists_are_refused(size: Any, cells: Any, match: str) -> None:
    with pytest.raises(InvalidGridError, match=match):
        VoxelGrid.from_cells(size, cells)


def test_bad_queries_name_the_value() -> None:
    g = VoxelGrid.from_cells((3, 3, 3), [(1, 1, 1)])
    with pytest.raises(InvalidQueryError, match=r"start \(3, 0, 0\) is outside"):
        g.cell((3, 0, 0), name="start")
    with pytest.raises(InvalidQueryError, match=r"goal \(1, 1, 1\) is blocked"):
        g.cell((1, 1, 1), name="goal", free=True)
    with pytest.raises(InvalidQueryError, match="three integers"):
        g.cell((1.5, 0, 0))
    with pytest.raises(InvalidQueryError, match="three integers"):
        g.is_free((0, 0))
    with pytest.raises(InvalidQueryError, match=r"pts\[1\] = \(1, 1, 1\) is blocked"):
        g.cells([(0, 0, 0), (1, 1, 1)], name="pts", free=True)
    with pytest.raises(InvalidQueryError, match=r"pts\[0\] = \(0, 0, 9\) is outside"):
        g.cells([(0, 0, 9)], name="pts")
    with pytest.raises(InvalidQueryError, match=r"\(n, 3\)"):
        g.cells([(0.0, 0.0, 0.0)])
    assert g.cells([]).shape == (0, 3)


# ------------------------------------------------------------------ moves


@settings(max_examples=60, deadline=None)
@given(blocked_arrays(max_side=4), st.sampled_from([6, 18, 26]))
def test_neighbours_follow_the_cube_rule(blocked: np.ndarray, connectivity: int) -> None:
    g = VoxelGrid(blocked, connectivity=connectivity)
    nz, ny, nx = blocked.shape
    allowed = {6: 1, 18: 2, 26: 3}[connectivity]
    for cell in itertools.product(range(nx), range(ny), range(nz)):
        want = [] if blocked[cell[2], cell[1], cell[0]] else [
            (tuple(int(v) for v in np.add(cell, d)), float(c))
            for d, c in zip(MOVES, MOVE_COSTS, strict=True)
            if np.abs(d).sum() <= allowed and cube_free(blocked, cell, tuple(d))]
        assert g.neighbours(cell) == want


def test_moves_are_ordered_and_costed() -> None:
    assert MOVES.shape == (26, 3) and len({tuple(m) for m in MOVES}) == 26
    assert (np.abs(MOVES[:6]).sum(axis=1) == 1).all()
    assert (np.abs(MOVES[6:18]).sum(axis=1) == 2).all()
    assert (np.abs(MOVES[18:]).sum(axis=1) == 3).all()
    assert np.allclose(MOVE_COSTS, np.sqrt(np.abs(MOVES).sum(axis=1)))


def test_can_move_refuses_foreign_steps() -> None:
    g = VoxelGrid(np.zeros((3, 3, 3), bool), connectivity=18)
    assert g.can_move((1, 1, 1), (1, 1, 0)) and not g.can_move((1, 1, 1), (1, 1, 1))
    assert not g.can_move((1, 1, 1), (2, 0, 0)) and not g.can_move((1, 1, 1), (0, 0, 0))
    assert not g.can_move((2, 1, 1), (1, 0, 0))


def dijkstra(grid: VoxelGrid, start: tuple[int, int, int]) -> dict[tuple[int, ...], float]:
    dist = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, c in grid.neighbours(u):
            if d + c < dist.get(v, np.inf):
                dist[v] = d + c
                heapq.heappush(heap, (d + c, v))
    return dist


@pytest.mark.parametrize("connectivity", [6, 18, 26])
@pytest.mark.parametrize("start", [(0, 0, 0), (2, 3, 1)])
def test_octile3_is_the_empty_grid_distance(connectivity: int, start: tuple[int, int, int]
                                            ) -> None:
    g = VoxelGrid(np.zeros((4, 6, 5), bool), connectivity=connectivity)
    dist = dijkstra(g, start)
    assert len(dist) == g.num_voxels
    for cell, d in dist.items():
        h = octile3(np.abs(np.subtract(cell, start)), connectivity=connectivity)
        assert h == pytest.approx(d, abs=1e-9)
        assert g.heuristic(start, cell) == pytest.approx(d, abs=1e-9)  # type: ignore[arg-type]


def test_path_cost() -> None:
    g = VoxelGrid.from_cells((3, 3, 3), [(0, 1, 1)])
    assert g.path_cost([(0, 0, 0), (1, 0, 0), (2, 1, 1)]) == pytest.approx(1 + np.sqrt(3))
    with pytest.raises(InvalidQueryError, match="step 1"):
        g.path_cost([(0, 0, 0), (1, 1, 1)])
    with pytest.raises(InvalidQueryError, match="step 1"):
        g.path_cost([(0, 0, 0), (2, 0, 0)])
    assert g.path_cost([(0, 0, 0)]) == 0.0


# ------------------------------------------------------------------ world


def test_world_transform_round_trips() -> None:
    g = VoxelGrid(np.zeros((3, 4, 5), bool), origin=(-1.0, 2.0, 0.5), voxel_size=0.25)
    for cell in itertools.product(range(5), range(4), range(3)):
        w = g.cell_to_world(cell)
        assert g.world_to_cell(w) == cell
        assert g.world_to_cell(np.subtract(w, 0.124)) == cell
    assert g.cell_to_world((0, 0, 0)) == (-0.875, 2.125, 0.625)
    assert np.allclose(g.cells_to_world([(0, 0, 0), (4, 3, 2)]),
                       [(-0.875, 2.125, 0.625), (0.125, 2.875, 1.125)])
    assert g.world_to_cell((-1.0, 2.0, 0.5)) == (0, 0, 0)
    with pytest.raises(InvalidQueryError, match="outside"):
        g.world_to_cell((0.25, 2.0, 0.5))   # x = 5 voxels past the origin: just outside
    with pytest.raises(InvalidGridError, match="point"):
        g.world_to_cell((0.0, np.nan, 1.0))


# ------------------------------------------------------------------ files


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    g = VoxelGrid(rng.random((4, 5, 70)) < 0.3, origin=(1, 2, 3), voxel_size=0.5,
                  connectivity=18)
    g.save(tmp_path / "g.npz")
    h = VoxelGrid.load(tmp_path / "g.npz")
    assert h == g and (h.blocked == g.blocked).all()
    assert (h.origin, h.voxel_size, h.connectivity) == (g.origin, g.voxel_size, g.connectivity)


def _rewrite(src: Path, dst: Path, member: str, data: bytes) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, data if item.filename == member else zin.read(item.filename))


def test_damaged_files_are_refused(tmp_path: Path) -> None:
    g = VoxelGrid.from_cells((5, 4, 3), [(1, 2, 0), (4, 3, 2)])
    good = tmp_path / "g.npz"
    g.save(good)
    # Flip one voxel: the fingerprint no longer matches.
    words = g.words.copy()
    words[0, 0, 0] ^= np.uint64(1)
    buf = tmp_path / "w.npy"
    np.save(buf, words)
    _rewrite(good, tmp_path / "flip.npz", "words.npy", buf.read_bytes())
    with pytest.raises(IndexFormatError, match="fingerprint"):
        VoxelGrid.load(tmp_path / "flip.npz")
    # Words of the wrong shape.
    np.save(buf, words[:, :2])
    _rewrite(good, tmp_path / "shape.npz", "words.npy", buf.read_bytes())
    with pytest.raises(IndexFormatError, match="malformed voxel grid"):
        VoxelGrid.load(tmp_path / "shape.npz")
    # A truncated file, and something that is not a saved grid.
    (tmp_path / "cut.npz").write_bytes(good.read_bytes()[:100])
    with pytest.raises(IndexFormatError, match="cut.npz"):
        VoxelGrid.load(tmp_path / "cut.npz")
    np.savez(tmp_path / "other.npz", words=words)
    with pytest.raises(IndexFormatError):
        VoxelGrid.load(tmp_path / "other.npz")
    with pytest.raises(IndexFormatError):
        VoxelGrid.load(tmp_path / "missing.npz")


# ------------------------------------------------------------------ components


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two labellings (-1 / 0 for blocked) group the free voxels alike."""
    pairs = set(zip(a.ravel().tolist(), b.ravel().tolist(), strict=True))
    return len(pairs) == len({p[0] for p in pairs}) == len({p[1] for p in pairs})


@settings(max_examples=80, deadline=None)
@given(blocked_arrays(max_side=9))
def test_components_match_scipy(blocked: np.ndarray) -> None:
    g = VoxelGrid(blocked, connectivity=6)
    labels = g.components()
    ref, count = ndimage.label(~blocked)
    assert labels.dtype == np.int32 and not labels.flags.writeable
    assert ((labels == -1) == blocked).all()
    assert same_partition(labels, ref - 1)
    assert g.num_components == count
    # Numbered in the order of each component's first voxel in C order.
    firsts = [int(np.argmax(labels.ravel() == k)) for k in range(count)]
    assert firsts == sorted(firsts)


@settings(max_examples=40, deadline=None)
@given(blocked_arrays(max_side=5), st.sampled_from([18, 26]))
def test_components_match_a_search_over_neighbours(blocked: np.ndarray,
                                                   connectivity: int) -> None:
    g = VoxelGrid(blocked, connectivity=connectivity)
    ref = np.full(blocked.shape, -1)
    k = 0
    for z, y, x in zip(*np.nonzero(~blocked), strict=True):
        if ref[z, y, x] >= 0:
            continue
        ref[z, y, x] = k
        queue = deque([(int(x), int(y), int(z))])
        while queue:
            for (nx, ny, nz), _ in g.neighbours(queue.popleft()):
                if ref[nz, ny, nx] < 0:
                    ref[nz, ny, nx] = k
                    queue.append((nx, ny, nz))
        k += 1
    assert (g.components() == ref).all()


def test_connected() -> None:
    blocked = np.zeros((3, 3, 3), bool)
    blocked[:, :, 1] = True            # a wall at x = 1
    g = VoxelGrid(blocked)
    assert g.connected((0, 0, 0), (0, 2, 2)) and not g.connected((0, 0, 0), (2, 0, 0))
    assert not g.connected((1, 0, 0), (1, 0, 0))
    assert g.num_components == 2
    with pytest.raises(InvalidQueryError, match="outside"):
        g.connected((0, 0, 0), (3, 0, 0))
    # Two free voxels touching only along an edge are not joined under the cube rule.
    diag = VoxelGrid.from_cells((2, 2, 1), [(1, 0, 0), (0, 1, 0)])
    assert not diag.connected((0, 0, 0), (1, 1, 0)) and diag.num_components == 2


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda g: g.in_bounds("abc"), InvalidQueryError, "three integers"),
    (lambda g: g.in_bounds((1, 2)), InvalidQueryError, "three integers"),
    (lambda g: g.in_bounds((True, 0, 0)), InvalidQueryError, "bools"),
    (lambda g: g.can_move((0, 0, 0), (True, 0, 0)), InvalidQueryError, "bools"),
    (lambda g: g.is_free([0, np.False_, 0]), InvalidQueryError, "bools"),
    (lambda g: g.cells([(0, 0, 0), (True, 0, 0)]), InvalidQueryError, "bools"),
    (lambda g: g.path_cost([(0, 0, 0), (1, 0, True)]), InvalidQueryError, "bools"),
    (lambda g: VoxelGrid([[[0, 1], [0]]]), InvalidGridError, "3D array"),
    (lambda g: VoxelGrid.from_cells((True, 1, 1), []), InvalidGridError, "size"),
    (lambda g: VoxelGrid.from_cells((2, 2, 2), [(0, 0, 0), (1, 0)]), InvalidGridError,
     "integers"),
])
def test_bools_and_malformed_cells_are_refused(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call(VoxelGrid(np.zeros((2, 2, 2), bool)))


def test_in_bounds_answers_for_cells_in_and_out() -> None:
    g = VoxelGrid(np.zeros((2, 3, 4), bool))
    assert g.in_bounds((3, 2, 1)) and g.in_bounds(np.array([0, 0, 0], np.uint8))
    assert not g.in_bounds((4, 0, 0)) and not g.in_bounds((0, -1, 0))


@pytest.mark.parametrize(("d", "options"), [
    ([1, 2, 3], {"connectivity": 7}),
    ([1, 2, 3], {"connectivity": True}),
    ([-1, 2, 3], {}),
    ([np.nan, 2, 3], {}),
    ([1, 2], {}),
    ([True, 2, 3], {}),
    ("abc", {}),
])
def test_octile3_refuses_what_is_no_offset_or_connectivity(d, options) -> None:
    with pytest.raises(InvalidQueryError, match="connectivity|offsets|numbers"):
        octile3(d, **options)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("point", [(1e300, 0.0, 0.0), (-1e308, 0.0, 0.0), (0.5, 1e20, 0.5),
                                   (0.5, 0.5, -1e-300)])
def test_a_point_far_off_the_grid_is_outside(point) -> None:
    g = VoxelGrid(np.zeros((2, 2, 2), bool), origin=(0.0, 0.0, 0.0))
    with pytest.raises(InvalidQueryError, match="outside the grid"):
        g.world_to_cell(point)
    with pytest.raises(InvalidQueryError, match="outside the grid"):
        VoxelGrid(np.zeros((2, 2, 2), bool), origin=(1e308, 0, 0)).world_to_cell(point)


@pytest.mark.parametrize("options", [{"voxel_size": 1e308},
                                     {"origin": (1.7e308, 0, 0), "voxel_size": 1e307},
                                     {"origin": (0, 0, -1.7e308), "voxel_size": 1e308}])
def test_a_grid_whose_far_corner_overflows_is_refused(options) -> None:
    # its voxel centres would be inf in the world
    with pytest.raises(InvalidGridError, match="largest float"):
        VoxelGrid(np.zeros((3, 3, 3), bool), **options)
    with pytest.raises(InvalidGridError, match="largest float"):
        VoxelGrid(np.zeros((3, 3, 3), bool)).with_options(**options)
