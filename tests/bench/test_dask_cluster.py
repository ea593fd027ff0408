"""Clients for the Dask builds: scheduler strings (``local:N`` or an address), bad ones
refused before anything starts, and the builds on worker processes."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("distributed", reason="the [dask] extra (dask[distributed]) is absent")

from distributed import Client, LocalCluster  # noqa: E402

from wayfinding.bench.dask_cluster import dask_client  # noqa: E402
from wayfinding.bench.dask_exit_tables import build_exit_tables_dask  # noqa: E402
from wayfinding.bench.dask_octree import build_octree_dask  # noqa: E402
from wayfinding.errors import InvalidQueryError  # noqa: E402
from wayfinding.graph.exit_tables import CSRExitTables  # noqa: E402
from wayfinding.grid import generate  # noqa: E402
from wayfinding.voxel.generate import asteroids  # noqa: E402
from wayfinding.voxel.octree import SparseVoxelOctree  # noqa: E402


@pytest.mark.parametrize("scheduler", ["", "local", "local:", "local:x", "local:-1",
                                       "tcp://", "host", "two words:80", 8786, None])
def test_bad_scheduler_strings(scheduler):
    refused = r"must be local:N \(a LocalCluster of N workers\) or a scheduler address"
    with pytest.raises(InvalidQueryError, match=refused), dask_client(scheduler):
        pass


def test_local_cluster_needs_a_worker():
    with pytest.raises(InvalidQueryError, match="at least 1 worker"), dask_client("local:0"):
        pass


def test_connects_to_a_scheduler_address():
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=":0") as cluster, \
            dask_client(cluster.scheduler_address) as client:
        assert isinstance(client, Client)
        assert client.submit(sum, [1, 2]).result() == 3


@pytest.mark.slow
def test_builds_on_worker_processes():
    graph = generate.caves(24, 20, fill=0.35, seed=4).to_csr()
    voxels = asteroids((40, 24, 33), seed=6)
    with dask_client("local:2") as client:
        # glibc's default trimming, not Dask's 64 KiB threshold, in the worker processes
        assert set(client.run(os.environ.get, "MALLOC_TRIM_THRESHOLD_").values()) == {None}
        tables = build_exit_tables_dask(graph, tile_size=4.0, levels=3, client=client,
                                        batch=5, progress=False)
        tree = build_octree_dask(voxels, client=client, batch=100, progress=False)
    for built, serial in ((tables, CSRExitTables.build(graph, tile_size=4.0, levels=3)),
                          (tree, SparseVoxelOctree.build(voxels, workers=1))):
        assert sorted(built.arrays) == sorted(serial.arrays)
        for name, want in serial.arrays.items():
            np.testing.assert_array_equal(built.arrays[name], want, err_msg=name)
