"""Sparse voxel octrees built as a Dask task graph equal the serial build, every array
(2-worker LocalCluster, threads only)."""

from __future__ import annotations

import numpy as np
import pytest
from terminal import Terminal

pytest.importorskip("distributed", reason="the [dask] extra (dask[distributed]) is absent")


from wayfinding.bench.dask_octree import build_octree_dask  # noqa: E402
from wayfinding.errors import InvalidGridError, InvalidQueryError  # noqa: E402
from wayfinding.voxel.generate import asteroids, random_voxels, tunnels  # noqa: E402
from wayfinding.voxel.grid import VoxelGrid  # noqa: E402
from wayfinding.voxel.octree import SparseVoxelOctree  # noqa: E402


def assert_same_octree(built, serial):
    assert isinstance(built, SparseVoxelOctree)
    assert built.options == serial.options
    assert sorted(built.arrays) == sorted(serial.arrays)
    for name, want in serial.arrays.items():
        got = built.arrays[name]
        assert got.dtype == want.dtype and got.shape == want.shape, name
        np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize(("grid", "batch"), [
    (random_voxels((23, 17, 30), density=0.15, seed=1), 7),
    (asteroids((40, 33, 21), seed=2), 50),
    (tunnels((32, 32, 32), seed=3), 1),
    (VoxelGrid(np.zeros((5, 3, 2), bool)), 4),
    (VoxelGrid(np.ones((9, 9, 9), bool)), 3),
], ids=["random", "asteroids", "tunnels-batch-1", "tiny-open", "solid"])
def test_octree_equal_serial_build(dask_client, grid, batch):
    serial = SparseVoxelOctree.build(grid, workers=1)
    built = build_octree_dask(grid, client=dask_client, batch=batch, progress=False)
    assert_same_octree(built, serial)


def test_octree_searches_as_serial(dask_client):
    grid = tunnels((24, 24, 24), seed=5)
    serial = SparseVoxelOctree.build(grid, workers=1)
    built = build_octree_dask(grid, client=dask_client, batch=64, progress=False)
    free = np.argwhere(~grid.blocked)[:, ::-1]        # (x, y, z)
    a, b = tuple(free[0]), tuple(free[-1])
    got, want = built.find_path(a, b), serial.find_path(a, b)
    assert got.found and got.cost == want.cost
    np.testing.assert_array_equal(got.path, want.path)
    np.testing.assert_array_equal(got.nodes, want.nodes)


def test_octree_bad_input(dask_client):
    with pytest.raises(InvalidGridError, match="VoxelGrid"):
        build_octree_dask(np.zeros((4, 4, 4)), client=dask_client)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch"):
        build_octree_dask(random_voxels((8, 8, 8)), client=dask_client, batch=0)
    with pytest.raises(InvalidQueryError, match="distributed.Client"):
        build_octree_dask(random_voxels((8, 8, 8)), client="local:2")


def test_octree_progress_bars(dask_client, monkeypatch):
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    build_octree_dask(random_voxels((16, 16, 40), seed=4), client=dask_client, batch=16)
    assert "octree leaves [" in err.getvalue() and "octree links (layer 0) [" in err.getvalue()
    quiet = Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    build_octree_dask(random_voxels((16, 16, 40), seed=4), client=dask_client, progress=False)
    assert quiet.getvalue() == ""
