"""Wavefront box decompositions of voxel worlds: the cover, the boxes, the faces and the
confluence checked against plain loops written here, portals against every pair of boxes,
paths against the voxel A* and the geometry of the regions, determinism, degenerate worlds
and bad inputs."""

from __future__ import annotations

import itertools
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from movingai_data import require_movingai

from wayfinding.errors import InvalidGridError, InvalidQueryError
from wayfinding.voxel import generate
from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.movingai3d import read_3dmap, read_3dscen
from wayfinding.voxel.search import find_voxel_path
from wayfinding.voxel.wavefront import VoxelRegionQuality, VoxelRegions

# --------------------------------------------------------------------------- references


def boxes(regions: VoxelRegions) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    return [(tuple(a), tuple(b)) for a, b in zip(regions.lo.tolist(), regions.hi.tolist(),
                                                  strict=True)]


def cover_counts(regions: VoxelRegions) -> np.ndarray:
    """How many regions hold each voxel ``[z, y, x]``, one box at a time."""
    out = np.zeros(regions.grid.shape, np.int64)
    for a, b in boxes(regions):
        out[a[2]:b[2], a[1]:b[1], a[0]:b[0]] += 1
    return out


def lattice_counts(regions: VoxelRegions) -> np.ndarray:
    """How many closed boxes hold each lattice point ``[z, y, x]``, one box at a time."""
    nz, ny, nx = regions.grid.shape
    out = np.zeros((nz + 1, ny + 1, nx + 1), np.int64)
    for a, b in boxes(regions):
        out[a[2]:b[2] + 1, a[1]:b[1] + 1, a[0]:b[0] + 1] += 1
    return out


def shared_faces(regions: VoxelRegions) -> dict[tuple[int, int], tuple[tuple, tuple, int]]:
    """Every pair of boxes meeting over a rectangle of positive area, by trying every pair."""
    out = {}
    bx = boxes(regions)
    for (i, (alo, ahi)), (j, (blo, bhi)) in itertools.combinations(enumerate(bx), 2):
        for axis in range(3):
            if ahi[axis] == blo[axis] or bhi[axis] == alo[axis]:
                lo = [max(alo[k], blo[k]) for k in range(3)]
                hi = [min(ahi[k], bhi[k]) for k in range(3)]
                lo[axis] = hi[axis] = ahi[axis] if ahi[axis] == blo[axis] else bhi[axis]
                if all(lo[k] < hi[k] for k in range(3) if k != axis):
                    out[i, j] = (tuple(lo), tuple(hi), axis)
    return out


def in_closed_free_space(grid: VoxelGrid, p: np.ndarray) -> bool:
    """Whether point ``p`` (voxel units) lies in the closed cube of a free voxel."""
    options = [{int(math.floor(v)), int(math.ceil(v)) - 1} for v in p]
    nx, ny, nz = grid.size
    return any(0 <= x < nx and 0 <= y < ny and 0 <= z < nz and not grid.blocked[z, y, x]
               for x, y, z in itertools.product(*options))


def segment_in_free_space(regions: VoxelRegions, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether a segment (voxel units) lies in one closed region, or, sampled densely, in
    the closed cubes of free voxels."""
    eps = 1e-9
    inside = (np.minimum(a, b) >= regions.lo - eps) & (np.maximum(a, b) <= regions.hi + eps)
    if inside.all(axis=1).any():
        return True
    return all(in_closed_free_space(regions.grid, a + t * (b - a))
               for t in np.linspace(0.0, 1.0, 201))


def random_world(size: tuple[int, int, int], density: float, seed: int) -> VoxelGrid:
    """Voxels blocked independently (not made connected: worlds in several pieces too)."""
    rng = np.random.default_rng(seed)
    nx, ny, nz = size
    return VoxelGrid(rng.random((nz, ny, nx)) < density)


WORLDS = {
    "random": lambda: random_world((9, 7, 8), 0.25, 1),
    "sparse": lambda: random_world((10, 10, 6), 0.08, 2),
    "tunnels": lambda: generate.tunnels((20, 12, 16), seed=3),
    "asteroids": lambda: generate.asteroids((20, 16, 18), seed=4),
    "towers": lambda: generate.towers((24, 10, 24), block=6, street=3, seed=5),
}


@pytest.fixture(scope="module", params=sorted(WORLDS))
def built(request):
    grid = WORLDS[request.param]()
    return VoxelRegions.build(grid, seed=7), VoxelRegions.build(grid, seed=7, merge=False)


# --------------------------------------------------------------------------- the cover
def test_every_free_voxel_is_in_exactly_one_box_and_no_blocked_one(built):
    for regions in built:
        counts = cover_counts(regions)
        blocked = regions.grid.blocked
        assert (counts[~blocked] == 1).all()
        assert (counts[blocked] == 0).all()
        assert ((regions.hi - regions.lo) >= 1).all()


def test_labels_name_the_box_of_each_voxel(built):
    regions = built[0]
    for i, (a, b) in enumerate(boxes(regions)):
        assert (regions.labels[a[2]:b[2], a[1]:b[1], a[0]:b[0]] == i).all()
    assert (regions.labels[regions.grid.blocked] == -1).all()


def test_quality_matches_the_loops(built):
    for regions in built:
        q = regions.quality(sliver_ratio=4)
        side = regions.hi - regions.lo
        assert q == VoxelRegionQuality(
            regions=len(regions), free_voxels=int((~regions.grid.blocked).sum()),
            uncovered=0, overlapping=0, blocked_claimed=0,
            max_confluence=int(lattice_counts(regions).max()),
            slivers=int(((side.min(axis=1) == 1) & (side.max(axis=1) >= 4)).sum()),
            sliver_ratio=4)
        assert q.exact_cover


def test_at_most_ten_regions_meet_at_any_lattice_point(built):
    for regions in built:
        assert lattice_counts(regions).max() <= 10


def test_every_face_of_a_box_stops_at_an_obstruction(built):
    """A face stops where its next layer holds a blocked voxel or another region's voxel,
    or at the world's bound: a region never stops short in open, unclaimed space."""
    regions = built[1]
    taken = np.zeros(regions.grid.shape, bool)
    bound = regions.grid.size
    for i, (a, b) in enumerate(boxes(regions)):
        for axis, sign in itertools.product(range(3), (1, -1)):
            layer = b[axis] if sign > 0 else a[axis] - 1
            if not 0 <= layer < bound[axis]:
                continue
            lo, hi = list(a), list(b)
            lo[axis], hi[axis] = layer, layer + 1
            block = regions.labels[lo[2]:hi[2], lo[1]:hi[1], lo[0]:hi[0]]
            assert ((block == -1) | (block != i)).any()
        taken[a[2]:b[2], a[1]:b[1], a[0]:b[0]] = True
    assert taken.sum() == regions.grid.num_free


def test_merging_leaves_no_two_boxes_whose_union_is_a_box(built):
    regions, unmerged = built
    assert len(regions) <= len(unmerged)
    for (alo, ahi), (blo, bhi) in itertools.combinations(boxes(regions), 2):
        for axis in range(3):
            others = [k for k in range(3) if k != axis]
            same = all(alo[k] == blo[k] and ahi[k] == bhi[k] for k in others)
            assert not (same and (ahi[axis] == blo[axis] or bhi[axis] == alo[axis]))


def test_merging_joins_boxes_whose_union_is_a_box():
    from wayfinding.voxel.wavefront import _merge
    lo = np.array([[0, 0, 0], [2, 0, 0], [3, 0, 0], [0, 1, 0]], np.int64)
    hi = np.array([[2, 1, 1], [3, 1, 1], [5, 1, 1], [5, 2, 1]], np.int64)
    mlo, mhi = _merge(lo, hi)
    assert mlo.tolist() == [[0, 0, 0]] and mhi.tolist() == [[5, 2, 1]]


def test_portals_are_the_shared_face_rectangles(built):
    regions = built[0]
    want = shared_faces(regions)
    got = {tuple(e): (tuple(lo), tuple(hi), int(ax)) for e, lo, hi, ax in zip(
        regions.edges.tolist(), regions.portal_lo.tolist(), regions.portal_hi.tolist(),
        regions.portal_axis.tolist(), strict=True)}
    assert got == want


# --------------------------------------------------------------------------- random worlds
@settings(max_examples=25, deadline=None)
@given(st.tuples(st.integers(1, 7), st.integers(1, 7), st.integers(1, 7)),
       st.floats(0.0, 0.6), st.integers(0, 2**32), st.integers(0, 2**32),
       st.booleans())
def test_random_worlds_are_covered_exactly_by_boxes(size, density, world, seed, merge):
    grid = random_world(size, density, world)
    regions = VoxelRegions.build(grid, seed=seed, merge=merge)
    counts = cover_counts(regions)
    assert (counts[~grid.blocked] == 1).all() and (counts[grid.blocked] == 0).all()
    assert lattice_counts(regions).max(initial=0) <= 10
    assert set(shared_faces(regions)) == {tuple(e) for e in regions.edges.tolist()}


def test_the_same_seed_gives_the_same_regions_and_others_may_differ():
    grid = random_world((10, 9, 8), 0.2, 11)
    a, b = VoxelRegions.build(grid, seed=3), VoxelRegions.build(grid, seed=3)
    assert boxes(a) == boxes(b) and np.array_equal(a.edges, b.edges)
    assert any(boxes(VoxelRegions.build(grid, seed=s)) != boxes(a) for s in range(4, 10))


# --------------------------------------------------------------------------- paths
def pairs(grid: VoxelGrid, n: int, seed: int) -> list[tuple[tuple, tuple]]:
    free = np.argwhere(~grid.blocked)[:, ::-1]
    rng = np.random.default_rng(seed)
    picks = free[rng.integers(0, len(free), (n, 2))]
    return [(tuple(int(v) for v in a), tuple(int(v) for v in b)) for a, b in picks]


@pytest.mark.parametrize("smooth", [False, True])
def test_paths_are_found_exactly_when_the_voxel_search_finds_one(built, smooth):
    regions = built[0]
    grid = regions.grid
    for a, b in pairs(grid, 12, 5):
        ref = find_voxel_path(grid, a, b)
        pa, pb = grid.cell_to_world(a), grid.cell_to_world(b)
        r = regions.find_path(pa, pb, smooth=smooth)
        assert r.found == ref.found
        if not r.found:
            assert r.path.shape == (0, 3) and r.cost == math.inf
            continue
        assert np.allclose(r.path[0], pa) and np.allclose(r.path[-1], pb)
        length = float(np.linalg.norm(np.diff(r.path, axis=0), axis=1).sum())
        assert r.cost == pytest.approx(length)
        assert r.cost >= math.dist(pa, pb) - 1e-9
        pts = (r.path - np.asarray(grid.origin)) / grid.voxel_size
        for p, q in zip(pts[:-1], pts[1:], strict=True):
            assert segment_in_free_space(regions, p, q)


def test_smoothing_never_lengthens_a_path(built):
    regions = built[0]
    grid = regions.grid
    for a, b in pairs(grid, 8, 9):
        rough = regions.find_path(grid.cell_to_world(a), grid.cell_to_world(b), smooth=False)
        if rough.found:
            smooth = regions.find_path(grid.cell_to_world(a), grid.cell_to_world(b))
            assert smooth.cost <= rough.cost + 1e-9


def test_queries_on_threads_and_in_any_order_agree():
    grid = WORLDS["tunnels"]()
    regions = VoxelRegions.build(grid)
    ends = [(grid.cell_to_world(a), grid.cell_to_world(b)) for a, b in pairs(grid, 16, 3)]
    alone = [VoxelRegions.build(grid).find_path(a, b) for a, b in ends]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda e: regions.find_path(*e), ends))
    backwards = [regions.find_path(a, b) for a, b in reversed(ends)][::-1]
    for r, t, w in zip(alone, threaded, backwards, strict=True):
        assert np.array_equal(r.path, t.path) and np.array_equal(r.path, w.path)


def test_a_path_over_a_wall_hugs_its_top_edge():
    wall = np.zeros((3, 3, 5), bool)
    wall[:, :2, 2] = True                  # x = 2 blocked below y = 2, open above
    regions = VoxelRegions.build(VoxelGrid(wall, origin=(10.0, 0.0, 0.0), voxel_size=2.0))
    r = regions.find_path((11.0, 1.0, 3.0), (19.0, 1.0, 3.0), smooth=False)
    # Voxel units: (0.5, 0.5) up to the wall's top corners (2, 2) and (3, 2), down to
    # (4.5, 0.5), in the plane z = 1.5; world lengths twice those.
    assert r.cost == pytest.approx(2 * (2 * math.hypot(1.5, 1.5) + 1))
    assert np.allclose(r.path, [[11, 1, 3], [14, 4, 3], [16, 4, 3], [19, 1, 3]])


def test_in_one_region_the_path_is_the_straight_segment():
    regions = VoxelRegions.build(VoxelGrid(np.zeros((4, 4, 4), bool)))
    r = regions.find_path((0.1, 0.2, 0.3), (3.9, 3.5, 0.5))
    assert r.found and r.path.tolist() == [[0.1, 0.2, 0.3], [3.9, 3.5, 0.5]]
    assert r.cost == pytest.approx(math.dist((0.1, 0.2, 0.3), (3.9, 3.5, 0.5)))


def test_locate_gives_the_region_of_the_voxel_and_minus_one_off_it():
    grid = generate.tunnels((12, 10, 12), seed=2)
    regions = VoxelRegions.build(grid)
    for x, y, z in [(0, 0, 0), (5, 5, 5), (11, 9, 11), (3, 7, 2)]:
        assert regions.locate(grid.cell_to_world((x, y, z))) == regions.labels[z, y, x]
    assert regions.locate((-0.5, 1.0, 1.0)) == -1
    assert regions.locate((12.0, 1.0, 1.0)) == -1


# --------------------------------------------------------------------------- Moving AI 3D
def warframe(name: str, n: int) -> None:
    """Decompose a Warframe map and solve ``n`` of its problems, evenly spread."""
    root = require_movingai()
    grid = read_3dmap(root / "maps" / "warframe" / f"{name}.3dmap")
    problems = read_3dscen(root / "scenarios" / "warframe" / f"{name}.3dmap.3dscen").problems
    regions = VoxelRegions.build(grid)
    assert regions.quality().exact_cover
    for i in np.linspace(0, len(problems) - 1, n).round().astype(int):
        p = problems[i]
        a, b = grid.cell_to_world(p.start), grid.cell_to_world(p.goal)
        r = regions.find_path(a, b)
        assert r.found and r.cost >= math.dist(a, b) - 1e-9
        pts = (r.path - np.asarray(grid.origin)) / grid.voxel_size
        for u, v in zip(pts[:-1], pts[1:], strict=True):
            assert segment_in_free_space(regions, u, v)


def test_warframe_simple_is_covered_and_a_sample_of_its_problems_solved():
    warframe("Simple", 40)


@pytest.mark.slow
def test_warframe_a1_is_covered_and_a_sample_of_its_problems_solved():
    warframe("A1", 20)


# --------------------------------------------------------------------------- degenerate worlds
def test_an_empty_world_is_one_region():
    regions = VoxelRegions.build(VoxelGrid(np.zeros((5, 3, 7), bool)), seed=9)
    assert boxes(regions) == [((0, 0, 0), (7, 3, 5))] and len(regions.edges) == 0


def test_a_full_world_has_no_region():
    regions = VoxelRegions.build(VoxelGrid(np.ones((3, 4, 5), bool)))
    assert len(regions) == 0 and regions.edges.shape == (0, 2)
    assert regions.quality().exact_cover and regions.quality().max_confluence == 0
    assert regions.locate((1.5, 1.5, 1.5)) == -1
    with pytest.raises(InvalidQueryError, match="start"):
        regions.find_path((1.5, 1.5, 1.5), (2.5, 2.5, 2.5))


def test_a_single_voxel_world():
    regions = VoxelRegions.build(VoxelGrid(np.zeros((1, 1, 1), bool)))
    assert boxes(regions) == [((0, 0, 0), (1, 1, 1))]
    assert regions.find_path((0.2, 0.2, 0.2), (0.8, 0.8, 0.8)).found


def test_a_one_voxel_thick_wall_splits_the_world():
    blocked = np.zeros((6, 6, 9), bool)
    blocked[:, :, 4] = True
    regions = VoxelRegions.build(VoxelGrid(blocked))
    assert sorted(boxes(regions)) == [((0, 0, 0), (4, 6, 6)), ((5, 0, 0), (9, 6, 6))]
    r = regions.find_path((0.5, 0.5, 0.5), (8.5, 0.5, 0.5))
    assert not r.found and r.status == "failed"
    blocked[3, 3, 4] = False                                 # a one-voxel hole
    regions = VoxelRegions.build(VoxelGrid(blocked))
    r = regions.find_path((0.5, 0.5, 0.5), (8.5, 0.5, 0.5))
    assert r.found and regions.quality().exact_cover
    assert r.cost >= math.dist((0.5, 0.5, 0.5), (4, 3, 3)) + math.dist((5, 3, 3),
                                                                       (8.5, 0.5, 0.5))


@pytest.mark.parametrize("shape", [(1, 1, 12), (1, 9, 1), (7, 1, 1), (2, 1, 9), (1, 6, 6)])
def test_thin_slabs(shape):
    rng = np.random.default_rng(sum(shape))
    blocked = rng.random(shape) < 0.3
    regions = VoxelRegions.build(VoxelGrid(blocked))
    counts = cover_counts(regions)
    assert (counts[~blocked] == 1).all() and (counts[blocked] == 0).all()
    assert regions.quality().exact_cover


def test_slivers_are_counted():
    blocked = np.ones((3, 3, 12), bool)
    blocked[1, 1, :] = False                    # a corridor one voxel thick, 12 long
    q = VoxelRegions.build(VoxelGrid(blocked)).quality()
    assert (q.regions, q.slivers) == (1, 1)
    assert VoxelRegions.build(VoxelGrid(blocked)).quality(sliver_ratio=13).slivers == 0


# --------------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize("bad", [np.zeros((2, 2, 2), bool), "grid", None])
def test_build_refuses_what_is_not_a_voxel_grid(bad):
    with pytest.raises(InvalidGridError, match="VoxelGrid"):
        VoxelRegions.build(bad)


@pytest.mark.parametrize("options, name", [({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"),
                                           ({"seed": True}, "seed"),
                                           ({"merge": "yes"}, "merge"),
                                           ({"merge": 1}, "merge")])
def test_build_refuses_bad_options(options, name):
    with pytest.raises(InvalidGridError, match=name):
        VoxelRegions.build(VoxelGrid(np.zeros((2, 2, 2), bool)), **options)


@pytest.fixture(scope="module")
def small():
    blocked = np.zeros((3, 3, 3), bool)
    blocked[1, 1, 1] = True
    return VoxelRegions.build(VoxelGrid(blocked))


@pytest.mark.parametrize("point", [(1.0, np.nan, 1.0), (1.0, 2.0), "abc", (True, 1.0, 1.0),
                                   (1.0, np.inf, 0.0)])
def test_locate_and_find_path_refuse_bad_points(small, point):
    with pytest.raises(InvalidQueryError, match="point|start"):
        small.locate(point)
    with pytest.raises(InvalidQueryError, match="start"):
        small.find_path(point, (0.5, 0.5, 0.5))
    with pytest.raises(InvalidQueryError, match="goal"):
        small.find_path((0.5, 0.5, 0.5), point)


@pytest.mark.parametrize("end", [(1.5, 1.5, 1.5), (3.5, 0.5, 0.5), (-0.1, 0.5, 0.5)])
def test_find_path_refuses_ends_off_the_free_space(small, end):
    with pytest.raises(InvalidQueryError, match="not in free space"):
        small.find_path(end, (0.5, 0.5, 0.5))
    with pytest.raises(InvalidQueryError, match="not in free space"):
        small.find_path((0.5, 0.5, 0.5), end)


def test_find_path_and_quality_refuse_bad_options(small):
    with pytest.raises(InvalidQueryError, match="smooth"):
        small.find_path((0.5, 0.5, 0.5), (2.5, 2.5, 2.5), smooth="no")
    for bad in (1, 2.5, True, "8"):
        with pytest.raises(InvalidQueryError, match="sliver_ratio"):
            small.quality(sliver_ratio=bad)


def test_boxes_given_directly_are_judged_by_quality():
    grid = VoxelGrid(np.zeros((2, 2, 4), bool))
    halves = VoxelRegions(grid, [[0, 0, 0], [2, 0, 0]], [[2, 2, 2], [4, 2, 2]])
    assert halves.edges.tolist() == [[0, 1]] and halves.quality().exact_cover
    assert not VoxelRegions(grid, [[0, 0, 0]], [[2, 2, 2]]).quality().exact_cover


@pytest.mark.parametrize("lo, hi, match", [
    ([[0, 0, 0]], [[5, 2, 2]], "inside"), ([[1, 0, 0]], [[1, 2, 2]], "empty"),
    ([[0, 0]], [[2, 2]], r"\(n, 3\)"), ([[0.0, 0, 0]], [[1, 1, 1]], "integers"),
    ([[0, 0, 0]], [[1, 1, 1], [2, 2, 2]], "as many")])
def test_boxes_given_directly_are_checked(lo, hi, match):
    with pytest.raises(InvalidGridError, match=match):
        VoxelRegions(VoxelGrid(np.zeros((2, 2, 4), bool)), lo, hi)


def test_regions_need_a_voxel_grid():
    with pytest.raises(InvalidGridError, match="VoxelGrid"):
        VoxelRegions(np.zeros((2, 2, 2), bool), [[0, 0, 0]], [[1, 1, 1]])
