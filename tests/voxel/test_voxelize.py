"""Voxelizing triangle meshes: a box gives its shell (and its volume with ``solid``), an
octahedron's solid voxels against its inequality, and each random triangle's voxels against a
separating-axis triangle-box overlap test written here."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidGeometryError
from wayfinding.voxel.grid import VoxelGrid
from wayfinding.voxel.voxelize import voxelize

BOX_TRIANGLES = np.array([
    [0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6],      # z = lo, z = hi
    [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],      # y = lo, y = hi
    [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5],      # x = lo, x = hi
])


def box_mesh(lo: Any, hi: Any) -> tuple[np.ndarray, np.ndarray]:
    """The 12 triangles of an axis-aligned box; vertex i has bit 0/1/2 for x/y/z at hi."""
    v = np.array([[(hi if i >> k & 1 else lo)[k] for k in range(3)] for i in range(8)], float)
    return v, BOX_TRIANGLES


def triangle_box_overlap(tri: np.ndarray, centres: np.ndarray, half: float) -> np.ndarray:
    """Whether a triangle and each closed cube of half-edge ``half`` at ``centres`` (n, 3)
    meet: no separating axis among the box's 3 normals, the triangle's normal and the 9 edge
    cross products."""
    edges = [tri[1] - tri[0], tri[2] - tri[1], tri[0] - tri[2]]
    axes = [np.eye(3)[i] for i in range(3)] + [np.cross(edges[0], edges[1])]
    axes += [np.cross(e, np.eye(3)[i]) for e in edges for i in range(3)]
    meet = np.ones(len(centres), bool)
    for a in axes:
        if not a.any():
            continue
        p = tri @ a                       # the triangle's projection
        c = centres @ a                   # the boxes' centres' projections
        r = half * np.abs(a).sum()
        meet &= ~((p.min() > c + r) | (p.max() < c - r))
    return meet


def test_a_box_gives_its_shell_and_volume() -> None:
    v, t = box_mesh((1.5, 1.5, 1.5), (6.5, 4.5, 5.5))
    bounds = ((0, 0, 0), (8, 7, 8))
    shell = voxelize(v, t, voxel_size=1.0, bounds=bounds)
    inner = np.zeros((8, 7, 8), bool)
    inner[1:6, 1:5, 1:7] = True                  # [z, y, x]
    core = np.zeros_like(inner)
    core[2:5, 2:4, 2:6] = True
    assert (shell.blocked == (inner & ~core)).all()
    solid = voxelize(v, t, voxel_size=1.0, bounds=bounds, solid=True)
    assert (solid.blocked == inner).all()
    assert shell.origin == (0.0, 0.0, 0.0) and shell.size == (8, 7, 8)


def test_default_bounds_keep_the_faces_on_the_upper_planes() -> None:
    v, t = box_mesh((0, 0, 0), (4, 2, 3))
    g = voxelize(v, t, voxel_size=1.0)
    assert g.size == (5, 3, 4) and g.origin == (0.0, 0.0, 0.0)
    assert g.blocked[:, :, 4].any() and g.blocked[:, 2, :].any() and g.blocked[3].any()
    s = voxelize(v, t, voxel_size=1.0, solid=True)
    assert s.blocked[:3, :2, :4].all()


def test_origin_aligns_the_lattice_and_voxel_size_scales() -> None:
    v, t = box_mesh((1.5, 1.5, 1.5), (6.5, 4.5, 5.5))
    g = voxelize(v, t, voxel_size=0.5, origin=(0.25, 0.0, 0.0))
    assert g.origin == (1.25, 1.5, 1.5) and g.voxel_size == 0.5
    assert g.size == (11, 7, 9)
    h = VoxelGrid.from_mesh(v * 2, t, voxel_size=1.0, bounds=((0, 0, 0), (16, 14, 16)),
                            solid=True, connectivity=6)
    # Faces on lattice planes (x = 3 and 13, ...) mark the layer above them; voxels met only
    # along an edge of the box may stay free.
    assert h.connectivity == 6 and h.blocked[3:11, 3:9, 3:13].all()
    assert h.blocked.sum() == h.blocked[3:12, 3:10, 3:14].sum()


def test_an_octahedron_is_filled() -> None:
    r = 5.3
    v = np.array([[r, 0, 0], [-r, 0, 0], [0, r, 0], [0, -r, 0], [0, 0, r], [0, 0, -r]])
    t = np.array([[a, b, c] for a in (0, 1) for b in (2, 3) for c in (4, 5)])
    g = voxelize(v + 0.1, t, voxel_size=1.0, bounds=((-7, -7, -7), (7, 7, 7)), solid=True)
    c = g.cells_to_world(np.argwhere(np.ones(g.shape, bool))[:, ::-1]) - 0.1
    inside = np.abs(c).sum(axis=1) <= r
    far = np.abs(np.abs(c) - 0.5).clip(min=0).sum(axis=1) > r + 1e-9   # whole box outside
    blocked = g.blocked.ravel()
    assert blocked[inside].all() and not blocked[far].any()
    assert g.num_components == 1


@st.composite
def triangles(draw: Any) -> np.ndarray:
    pts = draw(st.lists(st.tuples(*(st.floats(0.0, 6.0, allow_nan=False)
                                    for _ in range(3))), min_size=3, max_size=3))
    return np.array(pts, float)


@settings(max_examples=100, deadline=None)
@given(triangles(), st.sampled_from([1.0, 0.5, 0.75]))
def test_a_triangle_marks_the_voxels_it_touches(tri: np.ndarray, size: float) -> None:
    g = voxelize(tri, [[0, 1, 2]], voxel_size=size, bounds=((0, 0, 0), (6, 6, 6)))
    if np.linalg.norm(np.cross(tri[1] - tri[0], tri[2] - tri[0])) < 1e-3:
        return      # a sliver: the rasterizer may drop its degenerate pieces
    lo = np.maximum(np.floor(tri.min(axis=0) / size).astype(int) - 1, 0)
    hi = np.minimum(np.floor(tri.max(axis=0) / size).astype(int) + 2, g.size)
    near = np.zeros(g.shape, bool)
    near[lo[2]:hi[2], lo[1]:hi[1], lo[0]:hi[0]] = True
    assert not (g.blocked & ~near).any()
    cells = np.array(list(itertools.product(*(range(lo[i], hi[i]) for i in range(3)))))
    centres = (cells + 0.5) * size
    got = g.blocked[cells[:, 2], cells[:, 1], cells[:, 0]]
    eps = 1e-4
    assert (triangle_box_overlap(tri, centres, size / 2 + eps) | ~got).all()
    assert (~triangle_box_overlap(tri, centres, size / 2 - eps) | got).all()


@pytest.mark.parametrize(("vertices", "triangles", "options", "match"), [
    ([[0, 0, 0]], [[0, 0, 0]], {"voxel_size": 0}, "voxel_size"),
    ([[0, 0]], [[0, 0, 0]], {"voxel_size": 1}, r"\(n, 3\)"),
    ([[0, 0, np.nan]], [[0, 0, 0]], {"voxel_size": 1}, "vertex 0"),
    ([["a", 0, 0]], [[0, 0, 0]], {"voxel_size": 1}, "numbers"),
    ([[0, 0, 0]], [[0, 0, 1]], {"voxel_size": 1}, r"triangle 0 = \[0, 0, 1\]"),
    ([[0, 0, 0]], [[0.0, 0, 0]], {"voxel_size": 1}, "vertex indices"),
    ([[0, 0, 0]], [], {"voxel_size": 1}, "needs bounds"),
    ([[0, 0, 0]], [[0, 0, 0]], {"voxel_size": 1, "bounds": (1, 2)}, "bounds"),
    ([[0, 0, 0]], [[0, 0, 0]], {"voxel_size": 1, "bounds": ((1, 1, 1), (0, 2, 2))},
     "reversed"),
    ([[0, 0, 0]], [[0, 0, 0]], {"voxel_size": 1, "origin": (0, 0)}, "origin"),
    ([[0, 0, 0]], [[0, 0, 0]], {"voxel_size": 1e-4, "bounds": ((0, 0, 0), (1, 1, 1))},
     "MAX_CELLS"),
    ([[0, 0, 0]], [[0, 0, 0]], {"voxel_size": 1, "bounds": ((0, 0, 0), (1, 9000, 1))},
     "tall"),
])
def test_bad_meshes_are_refused(vertices: Any, triangles: Any, options: dict[str, Any],
                                match: str) -> None:
    with pytest.raises(InvalidGeometryError, match=match):
        voxelize(vertices, triangles, **options)


def test_an_empty_mesh_with_bounds_is_empty() -> None:
    g = voxelize(np.zeros((0, 3)), np.zeros((0, 3), int), voxel_size=1.0,
                 bounds=((0, 0, 0), (2, 3, 4)), solid=True)
    assert g.size == (2, 3, 4) and g.num_free == 24


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("vertices", "options", "match"), [
    ([[0, 0, 0], [1e19, 0, 0], [0, 1, 0]], {"voxel_size": 1.0}, "MAX_CELLS"),
    ([[0, 0, 0], [1e300, 0, 0], [0, 1e300, 0]], {"voxel_size": 1.0}, "MAX_CELLS"),
    ([[-1e308, 0, 0], [1e308, 0, 0], [0, 1, 0]], {"voxel_size": 1.0}, "MAX_CELLS"),
    ([[1e10, 0, 0], [1e10 + 1, 0, 0], [1e10, 1, 0]],
     {"voxel_size": 1e-300, "origin": (0, 0, 0)}, "MAX_CELLS"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], {"voxel_size": 1e308}, "single-precision"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1e300, 0, 0]], {"voxel_size": 1.0},
     "single-precision"),
])
def test_meshes_beyond_every_grid_are_refused_by_name(vertices, options, match) -> None:
    # voxel counts past int64 were cast to negative sizes (numpy's "negative dimensions")
    with pytest.raises(InvalidGeometryError, match=match):
        voxelize(np.array(vertices, dtype=float), [[0, 1, 2]], **options)


def test_solid_takes_only_true_or_false() -> None:
    with pytest.raises(InvalidGeometryError, match="True or False"):
        voxelize([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], voxel_size=1.0, solid="no")
