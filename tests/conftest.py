"""Hypothesis's profiles: ``repeatable`` (the default: the same
examples on every run, so that the suite's verdict does not change from run to run) and
``explore`` (fresh random examples each run; ``make test-all``).  Choose with the
``HYPOTHESIS_PROFILE`` environment variable.  The ``dask_client`` fixture of the Dask tests."""

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(scope="session")
def dask_client() -> Iterator[Any]:
    """A client of a 2-worker LocalCluster (threads only), shared by the Dask tests."""
    distributed = pytest.importorskip("distributed",
                                      reason="the [dask] extra (dask[distributed]) is absent")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        yield client
