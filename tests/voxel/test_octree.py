"""Sparse voxel octrees: the chapter's test seeds (Morton codes, links, build invariants, leaf
masks, point lookup, coarse to fine), searches on random worlds against a plain Dijkstra
written here, and a sample of the Moving AI Warframe problems."""

from __future__ import annotations

import heapq
import itertools
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from movingai_data import require_movingai
from terminal import Terminal

from wayfinding.errors import (
    IndexFormatError,
    IndexMismatchError,
    InvalidGridError,
    InvalidQueryError,
    WayfindingError,
)
from wayfinding.results import Status
from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.movingai3d import read_3dmap, read_3dscen
from wayfinding.voxel.octree import (
    FULL_LEAF,
    LINK_NULL,
    LINK_SOLID,
    SVO_VARIANTS,
    SparseVoxelOctree,
    SVOVariant,
    morton_decode,
    morton_encode,
    morton_parent,
    pack_link,
    unpack_link,
)

# --------------------------------------------------------------------------- references


def allowed(blocked: np.ndarray, a: tuple[int, ...], b: tuple[int, ...], conn: int) -> bool:
    """The move rule, written out: a neighbour step of the connectivity whose cube of voxels
    lies inside the grid and is all free."""
    d = [b[i] - a[i] for i in range(3)]
    if max(abs(v) for v in d) != 1 or sum(abs(v) for v in d) > {6: 1, 18: 2, 26: 3}[conn]:
        return False
    nz, ny, nx = blocked.shape
    for x, y, z in itertools.product(*({a[i], b[i]} for i in range(3))):
        if not (0 <= x < nx and 0 <= y < ny and 0 <= z < nz) or blocked[z, y, x]:
            return False
    return True


def dijkstra(blocked: np.ndarray, start: tuple[int, ...], goal: tuple[int, ...],
             conn: int) -> float:
    """The optimal path cost under the move rule (inf when unreachable)."""
    steps = [d for d in itertools.product((-1, 0, 1), repeat=3) if any(d)]
    dist = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        c, u = heapq.heappop(heap)
        if u == goal:
            return c
        if c > dist[u]:
            continue
        for d in steps:
            v = (u[0] + d[0], u[1] + d[1], u[2] + d[2])
            if allowed(blocked, u, v, conn):
                nc = c + math.sqrt(abs(d[0]) + abs(d[1]) + abs(d[2]))
                if nc < dist.get(v, math.inf):
                    dist[v] = nc
                    heapq.heappush(heap, (nc, v))
    return math.inf


def polyline_free(grid: VoxelGrid, world: np.ndarray, step: float = 0.02) -> bool:
    """Whether points sampled every ``step`` voxels along a world polyline all fall in free
    voxels inside the grid."""
    p = (np.asarray(world) - np.asarray(grid.origin)) / grid.voxel_size
    for a, b in itertools.pairwise(p):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step)))
        t = np.linspace(0, 1, n + 1)[:, None]
        c = np.floor(a + t * (b - a)).astype(int)
        nx, ny, nz = grid.size
        if (c < 0).any() or (c >= (nx, ny, nz)).any() or grid.blocked[c[:, 2], c[:, 1],
                                                                      c[:, 0]].any():
            return False
    return True


def node_box(tree: SparseVoxelOctree, g: int) -> tuple[np.ndarray, int]:
    layer = int(np.searchsorted(tree.layer_start, g, side="right") - 1)
    cell = morton_decode(int(tree.codes[g]))
    size = 4 << layer
    return cell * size, size


# --------------------------------------------------------------------------- codes and links
@pytest.mark.parametrize(("point", "code"), [((0, 3), 10), ((3, 0), 5), ((1, 1), 3),
                                             ((2, 2), 12)])
def test_morton_2d_seeds(point, code):
    assert int(morton_encode(point)) == code
    assert morton_decode(code, dims=2).tolist() == list(point)


@pytest.mark.parametrize(("point", "code"), [((1, 0, 0), 1), ((0, 1, 0), 2), ((0, 0, 1), 4),
                                             ((1, 1, 1), 7), ((2, 0, 0), 8), ((3, 3, 3), 63)])
def test_morton_3d_seeds(point, code):
    assert int(morton_encode(point)) == code
    assert morton_decode(code).tolist() == list(point)


@given(st.lists(st.integers(0, 2**21 - 1), min_size=3, max_size=3))
def test_morton_decode_inverts_encode_and_parent_drops_three_bits(p):
    code = int(morton_encode(p))
    assert morton_decode(code).tolist() == p
    assert morton_decode(morton_parent(code)).tolist() == [v // 2 for v in p]


def test_morton_rejects_bad_points():
    with pytest.raises(InvalidQueryError, match="coords"):
        morton_encode([1.5, 2.0, 0.0])
    with pytest.raises(InvalidQueryError, match="in 0"):
        morton_encode([-1, 0, 0])


@pytest.mark.parametrize(("call", "match"), [
    (lambda: morton_encode([1, 2], bits=True), "bits"),
    (lambda: morton_encode([1, 2], bits=2.5), "bits"),
    (lambda: morton_encode([1, 2, 3], bits=22), "bits"),
    (lambda: morton_decode(-1), "codes"),
    (lambda: morton_decode([5, 1 << 63]), "codes"),
    (lambda: morton_decode(1 << 12, bits=4), "codes"),
    (lambda: morton_decode(3, dims=2, bits=0), "bits"),
    (lambda: morton_decode(3, dims=True), "dims"),
    (lambda: morton_parent(-8), "code"),
    (lambda: morton_parent(17.5), "code"),
    (lambda: morton_parent(True), "code"),
    (lambda: unpack_link(1.5), "link"),
    (lambda: unpack_link(True), "link"),
])
def test_morton_codes_and_links_refuse_what_they_cannot_hold(call, match):
    # negative codes wrapped to 64-bit garbage, floats were truncated, bools taken as 1
    with pytest.raises(InvalidQueryError, match=match):
        call()


def test_link_round_trip_at_the_limits():
    link = pack_link(15, 4_194_303, 63)
    assert link == 0xFFFFFFFF and unpack_link(link) == (15, 4_194_303, 63)
    assert unpack_link(pack_link(3, 12345, 17)) == (3, 12345, 17)


@pytest.mark.parametrize(("layer", "index", "sub"), [(16, 0, 0), (0, 4_194_304, 0), (0, 0, 64),
                                                     (-1, 0, 0), (0, 1.5, 0), (True, 0, 0)])
def test_link_overflow_is_refused(layer, index, sub):
    with pytest.raises(InvalidQueryError, match="link"):
        pack_link(layer, index, sub)


# --------------------------------------------------------------------------- build
def random_blocked(draw: Any, max_side: int = 14) -> np.ndarray:
    nx = draw(st.integers(1, max_side))
    ny = draw(st.integers(1, max_side))
    nz = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.05, 0.2, 0.4]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    b = rng.random((nz, ny, nx)) < density
    if draw(st.booleans()):     # a solid box somewhere: full leaves and blocked nodes
        x0, y0, z0 = (int(rng.integers(0, s)) for s in (nx, ny, nz))
        b[z0:z0 + 9, y0:y0 + 9, x0:x0 + 9] = True
    return b


@st.composite
def blocked_worlds(draw: Any) -> np.ndarray:
    return random_blocked(draw)


SUB = morton_decode(np.arange(64))


def check_invariants(tree: SparseVoxelOctree, blocked: np.ndarray) -> None:
    start = tree.layer_start
    top = tree.top_layer
    n = int(start[-1])
    layers = np.repeat(np.arange(top + 1), np.diff(start))
    sizes = 4 << layers
    los = morton_decode(tree.codes) * sizes[:, None]

    def node_box(tree: SparseVoxelOctree, g: int) -> tuple[np.ndarray, int]:
        return los[g], int(sizes[g])

    assert tree.layer_nodes(top) == 1
    nz, ny, nx = blocked.shape
    for layer in range(top + 1):
        codes = tree.codes[start[layer]:start[layer + 1]]
        assert (np.diff(codes.astype(np.int64)) > 0).all()      # Morton order, unique
    for g in range(n):
        layer = int(layers[g])
        lo, size = node_box(tree, g)
        region = np.ones((size, size, size), bool)
        inside = blocked[lo[2]:lo[2] + size, lo[1]:lo[1] + size, lo[0]:lo[0] + size]
        region[:inside.shape[0], :inside.shape[1], :inside.shape[2]] = inside
        c = int(tree.child[g])
        if layer == 0:
            assert c == LINK_NULL
            bits = region[SUB[:, 2], SUB[:, 1], SUB[:, 0]]
            assert int(tree.leaves[g]) == sum(1 << int(s) for s in np.flatnonzero(bits))
        elif c == LINK_NULL:
            assert not region.any()
        elif c == LINK_SOLID:
            assert region.all()
        else:                                            # exactly 8 children, back-linked
            cl, ci, cs = unpack_link(c)
            assert cl == layer - 1 and cs == 0 and ci % 8 == 0
            for k in range(8):
                child = int(start[cl]) + ci + k
                assert tree.parent[child] == pack_link(layer, g - int(start[layer]), 0)
                clo, csize = node_box(tree, child)
                assert csize * 2 == size
                assert (clo == lo + csize * morton_decode(k)).all()
        for d in range(6):
            axis, sign = d // 2, (1 if d % 2 else -1)
            link = int(tree.neighbours[g, d])
            probe = lo.copy()
            probe[axis] = lo[axis] + size if sign > 0 else lo[axis] - 1
            if probe[axis] < 0 or probe[axis] >= 4 << top:
                assert link == LINK_NULL
                continue
            assert link != LINK_NULL                     # non-null inside the bounds
            nl, ni, ns = unpack_link(link)
            assert nl >= layer and ns == 0               # same layer or coarser
            nlo, nsize = node_box(tree, int(start[nl]) + ni)
            # the linked node lies across the face and covers the node's face
            assert nlo[axis] + (0 if sign > 0 else nsize) == probe[axis] + (0 if sign > 0
                                                                               else 1)
            for k in range(3):
                if k != axis:
                    assert nlo[k] <= lo[k] and lo[k] + size <= nlo[k] + nsize
            if nl > layer:                               # a coarser one has no children
                assert tree.child[int(start[nl]) + ni] in (LINK_NULL, LINK_SOLID)


@settings(max_examples=30, deadline=None)
@given(blocked_worlds())
def test_build_invariants(blocked):
    tree = SparseVoxelOctree.build(VoxelGrid(blocked), workers=2)
    check_invariants(tree, blocked)


def test_build_is_the_same_on_any_number_of_threads():
    rng = np.random.default_rng(5)
    grid = VoxelGrid(rng.random((40, 37, 70)) < 0.1)
    a = SparseVoxelOctree.build(grid, workers=1)
    b = SparseVoxelOctree.build(grid, workers=3)
    for name in a.arrays:
        assert np.array_equal(a.arrays[name], b.arrays[name]), name


@pytest.mark.parametrize(("box", "cells1"), [
    ((slice(2, 4), slice(2, 4), slice(2, 4)), 1),       # inside one layer-1 cell
    ((slice(2, 4), slice(2, 4), slice(6, 10)), 2),      # across two along x
    ((slice(6, 10), slice(6, 10), slice(6, 10)), 8)])   # across 8
def test_a_small_box_gives_8_leaves_per_solid_layer1_cell(box, cells1):
    blocked = np.zeros((32, 32, 32), bool)
    blocked[box] = True
    tree = SparseVoxelOctree.build(VoxelGrid(blocked))
    assert tree.layer_nodes(0) == 8 * cells1
    # the leaves holding the box are partly or fully blocked, the others empty
    assert int((tree.leaves != 0).sum()) == len({
        (x // 4, y // 4, z // 4) for z, y, x in np.argwhere(blocked)})


def test_empty_leaves_are_zero_full_leaves_all_ones():
    blocked = np.zeros((16, 16, 16), bool)
    blocked[0:4, 0:4, 4:8] = True         # one full leaf in a layer-1 cell that is split
    blocked[0, 0, 0] = True
    tree = SparseVoxelOctree.build(VoxelGrid(blocked))
    leaves = tree.leaves.tolist()
    assert leaves.count(FULL_LEAF) == 1 and leaves.count(1) == 1 and leaves.count(0) == 6
    # the empty leaves are flown through, the full one never entered
    r = tree.find_path((0, 0, 1), (7, 7, 7), smooth=False)
    assert r.found
    full = pack_link(0, leaves.index(FULL_LEAF), 0)
    assert full not in {int(v) & ~63 for v in r.nodes}


def test_padding_and_solid_regions_are_blocked_childless_nodes():
    blocked = np.zeros((5, 9, 10), bool)
    blocked[:, :, 8:] = True               # a whole layer-1 column of solid voxels
    tree = SparseVoxelOctree.build(VoxelGrid(blocked))
    assert tree.top_layer == 2
    check_invariants(tree, blocked)
    assert (tree.child == LINK_SOLID).any()


def test_memory_report():
    rng = np.random.default_rng(2)
    grid = VoxelGrid(rng.random((20, 20, 20)) < 0.02)
    tree = SparseVoxelOctree.build(grid)
    m = tree.memory()
    assert m["total"] == tree.nbytes == sum(m["arrays"].values())
    assert m["dense_bits"] == grid.words.nbytes and m["dense_bytes"] == 8000
    assert m["nodes"] == [tree.layer_nodes(i) for i in range(tree.num_layers)]
    assert math.isclose(m["ratio_bytes"], m["total"] / 8000)


def test_build_rejects_bad_input():
    with pytest.raises(InvalidGridError, match="VoxelGrid"):
        SparseVoxelOctree.build(np.zeros((4, 4, 4), bool))  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="workers"):
        SparseVoxelOctree.build(VoxelGrid(np.zeros((4, 4, 4), bool)), workers=0)


# --------------------------------------------------------------------------- point lookup
def test_point_lookup():
    blocked = np.zeros((32, 32, 32), bool)
    blocked[9, 10, 11] = True
    tree = SparseVoxelOctree.build(VoxelGrid(blocked))
    far = tree.locate((30, 30, 30))                       # open space: a childless node
    layer, index, sub = unpack_link(far)
    assert layer >= 1 and sub == 0
    g = int(tree.layer_start[layer]) + index
    assert tree.child[g] == LINK_NULL
    lo, size = node_box(tree, g)
    assert (lo <= 30).all() and (30 < lo + size).all()
    near = tree.locate((10, 10, 9))                       # in the partly blocked leaf
    layer, index, sub = unpack_link(near)
    assert layer == 0 and sub == int(morton_encode([10 % 4, 10 % 4, 9 % 4]))
    assert int(tree.leaves[index]) == 1 << int(morton_encode([11 % 4, 10 % 4, 9 % 4]))
    assert tree.node_box(near) == ((10, 10, 9), 1)
    assert tree.locate_point((10.5, 10.2, 9.9)) == near
    with pytest.raises(InvalidQueryError, match="blocked"):
        tree.locate((11, 10, 9))
    with pytest.raises(InvalidQueryError, match="outside"):
        tree.locate((32, 0, 0))


# --------------------------------------------------------------------------- coarse to fine
@pytest.mark.parametrize("towards", ["+x", "-x"])
def test_entering_a_subdivided_node_pushes_the_4_children_of_its_face(towards):
    blocked = np.zeros((8, 8, 16), bool)
    if towards == "+x":
        blocked[7, 7, 15] = True           # the x 8..15 half is split, x 0..7 is free
        start, goal = (1, 1, 1), (14, 6, 6)
    else:
        blocked[7, 7, 0] = True
        start, goal = (14, 1, 1), (1, 6, 6)
    tree = SparseVoxelOctree.build(VoxelGrid(blocked))
    r = tree.find_path(start, goal, max_expanded=2, smooth=False)
    # start node, the split node, then exactly its 4 children on the face entered
    assert r.status == Status.OUT_OF_BUDGET and not r.found
    assert r.stats.expanded == 2 and r.stats.generated == 1 + 1 + 4
    full = tree.find_path(start, goal, smooth=False)
    first_leaf = unpack_link(int(full.nodes[1]))
    assert first_leaf[0] == 0
    lo, _ = node_box(tree, first_leaf[1])
    assert lo[0] == (8 if towards == "+x" else 4)


# --------------------------------------------------------------------------- search
@st.composite
def problems(draw: Any) -> tuple[np.ndarray, int, tuple[int, ...], tuple[int, ...], str]:
    blocked = random_blocked(draw, 12)
    free = np.argwhere(~blocked)
    if len(free) == 0:
        blocked[0, 0, 0] = False
        free = np.argwhere(~blocked)
    i = draw(st.integers(0, len(free) - 1))
    j = draw(st.integers(0, len(free) - 1))
    conn = draw(st.sampled_from([6, 18, 26]))
    variant = draw(st.sampled_from(sorted(SVO_VARIANTS)))
    s = tuple(int(v) for v in free[i][::-1])
    g = tuple(int(v) for v in free[j][::-1])
    return blocked, conn, s, g, variant


@settings(max_examples=120, deadline=None)
@given(problems())
def test_search_against_dijkstra(problem):
    blocked, conn, s, g, variant = problem
    grid = VoxelGrid(blocked, connectivity=conn, origin=(1.0, -2.0, 0.5), voxel_size=0.5)
    tree = SparseVoxelOctree.build(grid)
    r = tree.find_path(s, g, variant=variant)
    best = dijkstra(blocked, s, g, conn)
    assert r.found == math.isfinite(best)
    if not r.found:
        assert r.status == Status.FAILED and len(r.path) == 0 and r.cost == math.inf
        return
    path = [tuple(int(v) for v in p) for p in r.path]
    assert path[0] == s and path[-1] == g
    assert all(allowed(blocked, a, b, conn) for a, b in itertools.pairwise(path))
    cost = sum(math.dist(a, b) for a, b in itertools.pairwise(path))
    assert math.isclose(r.cost, cost, abs_tol=1e-9)
    assert r.cost >= best - 1e-9
    sm = r.smoothed
    assert np.allclose(sm[0], grid.cell_to_world(s)) and np.allclose(sm[-1], grid.cell_to_world(g))
    assert polyline_free(grid, sm)
    assert math.isclose(r.smoothed_length, float(np.linalg.norm(np.diff(sm, axis=0),
                                                                axis=1).sum()))
    assert sum(r.per_layer) == r.stats.expanded


def test_start_equals_goal_and_unreachable():
    blocked = np.zeros((6, 6, 6), bool)
    blocked[:, :, 3] = True
    tree = SparseVoxelOctree.build(VoxelGrid(blocked))
    r = tree.find_path((1, 1, 1), (1, 1, 1))
    assert r.found and r.cost == 0 and r.path.tolist() == [[1, 1, 1]]
    r = tree.find_path((1, 1, 1), (5, 1, 1))
    assert not r.found and r.status == Status.FAILED


def test_custom_variant_and_bad_queries():
    tree = SparseVoxelOctree.build(VoxelGrid(np.zeros((8, 8, 8), bool)))
    v = SVOVariant(weight=3.0, unit_cost=2.0, g_compensation=0.5, h_compensation=0.5)
    assert tree.find_path((0, 0, 0), (7, 7, 7), variant=v).found
    with pytest.raises(InvalidQueryError, match="variant"):
        tree.find_path((0, 0, 0), (1, 1, 1), variant="fast")
    with pytest.raises(InvalidQueryError, match="max_expanded"):
        tree.find_path((0, 0, 0), (1, 1, 1), max_expanded=-1)
    with pytest.raises(InvalidQueryError, match="start"):
        tree.find_path((8, 0, 0), (1, 1, 1))
    for bad in ({"weight": 0.5}, {"unit_cost": -1.0}, {"g_compensation": 1.0},
                {"h_compensation": float("nan")}):
        with pytest.raises(InvalidQueryError):
            SVOVariant(**bad)


def test_variants_expand_less_as_they_grow_greedier():
    """The chapter's ablation as a check on a clustered world: greedy and size-compensated
    searches expand fewer nodes than plain A*."""
    rng = np.random.default_rng(7)
    blocked = np.zeros((48, 48, 48), bool)
    for _ in range(40):
        x, y, z = rng.integers(0, 44, 3)
        blocked[z:z + rng.integers(1, 5), y:y + rng.integers(1, 5), x:x + rng.integers(1, 5)] = 1
    blocked[0, 0, 0] = blocked[47, 47, 47] = False
    tree = SparseVoxelOctree.build(VoxelGrid(blocked))
    exp = {v: tree.find_path((0, 0, 0), (47, 47, 47), variant=v).stats.expanded
           for v in ("plain", "greedy", "size")}
    assert exp["plain"] >= exp["greedy"] and exp["plain"] >= exp["size"]


# --------------------------------------------------------------------------- files
def test_save_load_round_trip_and_refusals(tmp_path):
    rng = np.random.default_rng(3)
    grid = VoxelGrid(rng.random((12, 20, 17)) < 0.2)
    tree = SparseVoxelOctree.build(grid)
    path = tmp_path / "tree.npz"
    tree.save(path)
    back = SparseVoxelOctree.load(path, grid)
    for name in tree.arrays:
        assert np.array_equal(tree.arrays[name], back.arrays[name])
    free = np.argwhere(~grid.blocked)[:, ::-1]
    a, b = free[0], free[-1]
    assert np.array_equal(tree.find_path(a, b).path, back.find_path(a, b).path)
    other = VoxelGrid(rng.random((12, 20, 17)) < 0.2)
    with pytest.raises(IndexMismatchError):
        SparseVoxelOctree.load(path, other)
    (tmp_path / "bad.npz").write_bytes(b"not a file")
    with pytest.raises(IndexFormatError):
        SparseVoxelOctree.load(tmp_path / "bad.npz", grid)


@pytest.mark.parametrize(("array", "row", "why"), [("neighbours", (0, 1), "neighbour"),
                                                   ("codes", 3, "code"),
                                                   ("child", -1, "child")])
def test_load_refuses_damaged_arrays(tmp_path, array, row, why):
    grid = VoxelGrid(np.random.default_rng(4).random((10, 10, 10)) < 0.3)
    tree = SparseVoxelOctree.build(grid)
    arrays = {k: v.copy() for k, v in tree.arrays.items()}
    bad = {"neighbours": pack_link(0, tree.layer_nodes(0), 0), "codes": 5,
           "child": pack_link(0, 8, 0)}[array]
    arrays[array][row] = bad
    broken = SparseVoxelOctree(grid, arrays, {}, 0.0)
    broken.save(tmp_path / "t.npz")
    with pytest.raises(IndexFormatError, match=why):
        SparseVoxelOctree.load(tmp_path / "t.npz", grid)


def test_errors_are_wayfinding_errors():
    assert issubclass(InvalidQueryError, WayfindingError)


# --------------------------------------------------------------------------- Moving AI
@pytest.mark.parametrize("name", ["Simple", "A1"])
def test_movingai_sample(name):
    root = require_movingai()
    grid = read_3dmap(root / "maps" / "warframe" / f"{name}.3dmap")
    scen = read_3dscen(root / "scenarios" / "warframe" / f"{name}.3dmap.3dscen")
    tree = SparseVoxelOctree.build(grid)
    starts, goals, optimal = scen.arrays()
    for i in np.linspace(0, len(optimal) - 1, 12).astype(int):
        r = tree.find_path(starts[i], goals[i])
        assert r.found
        assert math.isclose(grid.path_cost(r.path), r.cost)
        assert r.cost >= optimal[i] * (1 - 1e-9)
        assert r.cost <= 2.0 * optimal[i]


def test_from_mesh_builds_the_octree_of_the_voxelized_mesh():
    from wayfinding.voxel.voxelize import voxelize

    v = np.array([[2, 2, 2], [9, 2, 2], [2, 9, 2], [2, 2, 9]], float)
    t = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])
    bounds = ([0, 0, 0], [12, 12, 12])
    tree = SparseVoxelOctree.from_mesh(v, t, voxel_size=1.0, bounds=bounds, solid=True)
    grid = voxelize(v, t, voxel_size=1.0, bounds=bounds, solid=True)
    assert tree.grid == grid and grid.num_free < grid.num_voxels
    ref = SparseVoxelOctree.build(grid)
    for name in ref.arrays:
        assert np.array_equal(tree.arrays[name], ref.arrays[name])
    r = tree.find_path((0, 0, 0), (11, 11, 11))
    assert r.found and all(grid.is_free(c) for c in r.path)


def test_queries_on_threads_match_queries_in_turn():
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(9)
    grid = VoxelGrid(rng.random((24, 24, 24)) < 0.15)
    tree = SparseVoxelOctree.build(grid)
    free = np.argwhere(~grid.blocked)[:, ::-1]
    pairs = [(free[i], free[j]) for i, j in rng.integers(0, len(free), (40, 2))]
    alone = [tree.find_path(a, b, smooth=False) for a, b in pairs]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda ab: tree.find_path(*ab, smooth=False), pairs))
    for r, s in zip(alone, together, strict=True):
        assert r.found == s.found and np.array_equal(r.path, s.path)


def moves_allowed(grid: VoxelGrid, path: np.ndarray) -> bool:
    """Vectorised move rule: every step one move of the connectivity, its cube all free."""
    d = np.diff(path, axis=0)
    if (np.abs(d).max(axis=1, initial=1) != 1).any() or (np.abs(d).sum(axis=1) > {
            6: 1, 18: 2, 26: 3}[grid.connectivity]).any():
        return False
    free = ~grid.blocked
    a, b = path[:-1], path[1:]
    for pick in itertools.product((0, 1), repeat=3):
        c = np.where(np.array(pick, bool), b, a)
        if not free[c[:, 2], c[:, 1], c[:, 0]].all():
            return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Simple", "A1"])
def test_movingai_every_problem(name):
    root = require_movingai()
    grid = read_3dmap(root / "maps" / "warframe" / f"{name}.3dmap")
    scen = read_3dscen(root / "scenarios" / "warframe" / f"{name}.3dmap.3dscen")
    tree = SparseVoxelOctree.build(grid)
    starts, goals, optimal = scen.arrays()
    for s, g, best in zip(starts, goals, optimal, strict=True):
        r = tree.find_path(s, g)
        assert r.found and moves_allowed(grid, r.path)
        assert (r.path[0] == s).all() and (r.path[-1] == g).all()
        assert best * (1 - 1e-9) <= r.cost <= 2.0 * best


def test_build_draws_a_progress_bar_on_a_terminal(monkeypatch):
    out = Terminal()
    monkeypatch.setattr("sys.stderr", out)
    grid = VoxelGrid(np.random.default_rng(1).random((9, 30, 30)) < 0.1)
    SparseVoxelOctree.build(grid, progress=True)
    SparseVoxelOctree.build(grid, progress=False)
    text = out.getvalue()
    assert text.count("\n") == 1 and "octree [" in text and text.rstrip().endswith(")")
