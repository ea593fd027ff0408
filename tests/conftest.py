"""Shared fixtures, and hypothesis's profiles: ``repeatable`` (the default: the same
examples on every run, so that the suite's verdict does not change from run to run) and
``explore`` (fresh random examples each run; ``make test-all``).  Choose with the
``HYPOTHESIS_PROFILE`` environment variable."""

import os
from pathlib import Path

import pytest
from hypothesis import settings
from movingai_data import TEST_DATA

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(scope="session")
def test_data() -> Path:
    return TEST_DATA
