"""Where the tests find the Moving AI benchmark: absent data skips with the expected location,
except under CI=true, where it fails."""

import movingai_data
import pytest


@pytest.fixture
def absent(monkeypatch):
    monkeypatch.setattr(movingai_data, "MOVINGAI", None)


def test_absent_data_skips_naming_where_it_is_expected(absent, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="movingai") as info:
        movingai_data.require_movingai()
    assert str(movingai_data.EXPECTED) in str(info.value)
    assert movingai_data.movingai_names() == [movingai_data.MISSING]


def test_absent_data_fails_under_ci(absent, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        movingai_data.load(movingai_data.MISSING)


def test_environment_variable_names_another_folder(monkeypatch, tmp_path):
    (tmp_path / "scenarios").mkdir()
    monkeypatch.setenv("WAYFINDING_MOVINGAI", str(tmp_path))
    assert movingai_data.full_movingai() == tmp_path
