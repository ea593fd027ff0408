"""The suite's own layout: test folders are not packages, so pytest imports each test module
and conftest by its file name alone — two files of one name in different folders would clash
(an import-mismatch error that stops the whole run)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_test_modules_have_unique_names() -> None:
    names = Counter(p.name for p in TESTS.rglob("*.py")
                    if "node_modules" not in p.parts and p.name != "conftest.py")
    assert [n for n, k in names.items() if k > 1] == []


def test_no_test_folder_is_a_package() -> None:
    assert [p for p in TESTS.rglob("__init__.py") if "node_modules" not in p.parts] == []
