"""The HPA* methods through the command line: path, scen (with failures and length ratios
instead of mismatches) and saved indexes."""

import json

import pytest
from movingai_data import write_generated

from wayfinding.cli import main
from wayfinding.grid import read_map, read_scen


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A generated cave map and its scenario, written as Moving AI files."""
    return write_generated("caves", tmp_path_factory.mktemp("caves"))


@pytest.mark.parametrize("method", ["hpa", "hpa_smooth", "hpa2"])
def test_path(method, capsys, files):
    map_file, scen_file = files
    grid = read_map(map_file)
    p = read_scen(scen_file).problems[-20]
    code = main(["path", str(map_file), "--from", f"{p.start[0]},{p.start[1]}",
                 "--to", f"{p.goal[0]},{p.goal[1]}", "--method", method, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["found"]
    assert data["algorithm"] == ("hpa_smooth" if "smooth" in method else "hpa")
    assert data["cost"] >= p.optimal - 1e-3
    assert data["cost"] == pytest.approx(grid.path_cost(data["path"]))
    assert data["path"][0] == list(p.start) and data["path"][-1] == list(p.goal)


def test_scen_reports_length_ratios(capsys, files):
    map_file, scen_file = files
    code = main(["scen", str(scen_file), "--method", "hpa", "--sample", "30", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "failures           0" in out and "mismatches" not in out
    ratios = {k: float(v) for k, v in (line.rsplit(None, 1) for line in out.splitlines()
                                       if "length ratio" in line)}
    assert 1.0 <= ratios["mean length ratio"] <= ratios["max length ratio"]


def test_scen_json_and_saved_index(capsys, tmp_path, files):
    map_file, scen_file = files
    index = tmp_path / "caves-hpa.npz"
    assert main(["index", "build", str(map_file), "hpa", "-o", str(index)]) == 0
    capsys.readouterr()
    code = main(["scen", str(scen_file), "--method", "hpa", "--index", str(index), "--sample", "20",
                 "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["exact"] is False and data["mismatches"] == 0
    assert data["solved"] == 20 and data["preprocess_s"] == 0.0 and data["index_bytes"] > 0
    assert 1.0 <= data["mean_ratio"] <= data["max_ratio"]


def test_scen_exact_method_keeps_mismatch_report(capsys, files):
    map_file, scen_file = files
    code = main(["scen", str(scen_file), "--method", "astar", "--sample", "5", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "mismatches       0" in out and "length ratio" not in out
