"""Shared fixtures."""

from pathlib import Path

import pytest
from movingai_data import TEST_DATA


@pytest.fixture(scope="session")
def test_data() -> Path:
    return TEST_DATA
