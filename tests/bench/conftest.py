"""One 2-worker LocalCluster (threads only) shared by the Dask tests of this folder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed",
                                      reason="the [dask] extra (dask[distributed]) is absent")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c
