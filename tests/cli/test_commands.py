"""The command line, run in-process through ``wayfinding.cli.main``."""

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from movingai_data import generated_grid, write_generated

from wayfinding.cli import build_parser, main
from wayfinding.grid import ALGORITHMS, generate, read_scen, write_map


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A generated cave map and its scenario, written as Moving AI files."""
    return write_generated("caves", tmp_path_factory.mktemp("caves"))


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_path_text_and_json(capsys, files):
    map_file, scen_file = files
    p = read_scen(scen_file)[-1]
    start, goal = f"{p.start[0]},{p.start[1]}", f"{p.goal[0]},{p.goal[1]}"
    code, out, _ = run(capsys, "path", map_file, "--from", start, "--to", goal)
    assert code == 0 and out.startswith(f"cost {p.optimal:.4f}"[:9])
    code, out, _ = run(capsys, "path", map_file, "--from", start, "--to", goal, "--json",
                       "--method", "bidirectional")
    data = json.loads(out)
    assert code == 0 and data["found"] and p.matches(data["cost"])
    assert data["path"][0] == list(p.start) and data["path"][-1] == list(p.goal)


def test_path_bad_cells_exit_2(capsys, files):
    map_file, _ = files
    grid = generated_grid("caves")
    (wy, wx), (fy, fx) = np.argwhere(~grid.passable)[0], np.argwhere(grid.passable)[0]
    code, _, err = run(capsys, "path", map_file, "--from", f"{wx},{wy}", "--to", f"{fx},{fy}")
    assert code == 2 and f"start ({wx}, {wy}) is a blocked cell" in err
    code, _, err = run(capsys, "path", map_file, "--from", "999,0", "--to", f"{fx},{fy}")
    assert code == 2 and "outside" in err


def test_path_malformed_cell_argument(capsys, files):
    map_file, scen_file = files
    with pytest.raises(SystemExit) as info:
        main(["path", str(map_file), "--from", "1;2", "--to", "3,4"])
    assert info.value.code == 2
    assert "not a cell 'X,Y'" in capsys.readouterr().err


def test_malformed_map_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.map"
    bad.write_text("type octile\nheight 2\nwidth 2\nmap\n..\n.\n")
    code, _, err = run(capsys, "path", bad, "--from", "0,0", "--to", "1,0")
    assert code == 2 and f"{bad}, line 6" in err


@pytest.mark.parametrize("method", ["astar", "dijkstra", "bidirectional"])
def test_scen_json_summary(capsys, method, files):
    map_file, scen_file = files
    code, out, _ = run(capsys, "scen", scen_file, "--method", method, "--sample", "40", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["problems"] == 40 and data["mismatches"] == 0 and data["solved"] == 40
    assert data["median_us"] > 0 and data["algorithm"] == method


def test_scen_table_and_sample_is_deterministic(capsys, files):
    map_file, scen_file = files
    code, out, _ = run(capsys, "scen", scen_file, "--sample", "10", "--quiet")
    assert code == 0 and "mismatches       0" in out and "problems         10" in out
    a = json.loads(run(capsys, "scen", scen_file, "--sample", "7", "--json")[1])
    b = json.loads(run(capsys, "scen", scen_file, "--sample", "7", "--json")[1])
    assert a["mean_expanded"] == b["mean_expanded"]


def test_scen_reports_mismatches_with_exit_1(capsys, tmp_path, files):
    map_file, scen_file = files
    lines = scen_file.read_text().splitlines()
    fields = lines[1].split("\t")
    fields[-1] = str(float(fields[-1]) + 1.0)
    scen = tmp_path / scen_file.name
    scen.write_text("\n".join([lines[0], "\t".join(fields)]) + "\n")
    (tmp_path / map_file.name).write_bytes(map_file.read_bytes())
    code, out, _ = run(capsys, "scen", scen, "--quiet")
    assert code == 1 and "mismatch at line 2" in out


def test_scen_help_lists_the_algorithms(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["scen", "--help"])
    text = capsys.readouterr().out
    for name in ALGORITHMS:
        assert name in text


def test_scen_size_mismatch_exit_2(capsys, tmp_path, files):
    map_file, _ = files
    scen = tmp_path / "x.map.scen"
    scen.write_text(f"version 1\n0\t{map_file.name}\t10\t10\t1\t1\t2\t2\t1.4\n")
    (tmp_path / map_file.name).write_bytes(map_file.read_bytes())
    code, _, err = run(capsys, "scen", scen, "--quiet")
    assert code == 2 and "10x10 map" in err and "line 2" in err


def test_render_svg_and_png(capsys, tmp_path, files):
    map_file, scen_file = files
    p = read_scen(scen_file)[-1]
    svg, png = tmp_path / "a.svg", tmp_path / "a.png"
    code, out, _ = run(capsys, "render", map_file, "--from", f"{p.start[0]},{p.start[1]}",
                       "--to", f"{p.goal[0]},{p.goal[1]}", "--explored", "-o", svg, "-o", png)
    assert code == 0
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, _ = run(capsys, "render", map_file, "--distances-from",
                     f"{p.start[0]},{p.start[1]}", "-o", tmp_path / "d.svg")
    assert code == 0 and (tmp_path / "d.svg").stat().st_size > 0


def test_render_needs_both_ends(capsys, tmp_path, files):
    map_file, scen_file = files
    code, _, err = run(capsys, "render", map_file, "--from", "1,1", "-o", tmp_path / "x.svg")
    assert code == 2 and "both --from and --to" in err


def test_render_unknown_suffix(capsys, tmp_path, files):
    map_file, scen_file = files
    code, _, err = run(capsys, "render", map_file, "-o", tmp_path / "x.gif")
    assert code == 2 and ".gif" in err
    assert not (tmp_path / "x.gif").exists()


@pytest.mark.parametrize("method", ["jps", "jps_plus", "jps_plus_buckets", "astar_gb",
                                  "jps_plus_gb", "subgoal", "subgoal2", "astar_dh"])
def test_fast_methods_in_path_and_scen(capsys, method, files):
    map_file, scen_file = files
    p = read_scen(scen_file)[-1]
    start, goal = f"{p.start[0]},{p.start[1]}", f"{p.goal[0]},{p.goal[1]}"
    code, out, _ = run(capsys, "path", map_file, "--from", start, "--to", goal, "--json",
                       "--method", method)
    data = json.loads(out)
    assert code == 0 and data["algorithm"] == method and data["found"]
    assert data["cost"] <= p.optimal + (0.1 if method == "jps_plus_buckets" else 1e-3)
    code, out, _ = run(capsys, "scen", scen_file, "--method", method, "--json", "--quiet")
    data = json.loads(out)
    assert code == 0 and data["solved"] == data["problems"] > 0
    assert data["index_bytes"] > 0 or method == "jps"
    if method != "jps_plus_buckets":
        assert data["mismatches"] == 0


def test_index_build_info_and_reuse(capsys, tmp_path, files):
    map_file, scen_file = files
    out_file = tmp_path / "den.subgoal2.npz"
    code, out, _ = run(capsys, "index", "build", map_file, "subgoal2", "-o", out_file)
    assert code == 0 and out_file.exists() and "subgoal2 index" in out
    code, out, _ = run(capsys, "index", "info", out_file)
    assert code == 0 and "subgoal" in out and "levels" in out
    code, out, _ = run(capsys, "index", "info", out_file, "--json")
    assert json.loads(out)["kind"] == "subgoal"
    code, out, _ = run(capsys, "scen", scen_file, "--method", "subgoal2", "--index", out_file,
                       "--json", "--quiet")
    data = json.loads(out)
    assert code == 0 and data["mismatches"] == 0 and data["preprocess_s"] == 0.0


def test_index_for_another_map_or_bad_file_exit_2(capsys, tmp_path, files):
    map_file, scen_file = files
    other = write_map(generate.maze(40, 40, seed=1), tmp_path / "maze.map")
    saved = tmp_path / "maze.jps.npz"
    assert run(capsys, "index", "build", other, "jps_plus", "-o", saved)[0] == 0
    code, _, err = run(capsys, "scen", scen_file, "--method", "jps_plus", "--index", saved)
    assert code == 2 and "another map" in err
    junk = tmp_path / "junk.npz"
    junk.write_text("not an index")
    code, _, err = run(capsys, "index", "info", junk)
    assert code == 2 and "not a wayfinding index" in err
    code, _, err = run(capsys, "index", "build", map_file, "jps_plus", "-o", saved, "--pivots", "3")
    assert code == 2 and "--pivots only applies" in err


@pytest.mark.parametrize("method", ["theta", "lazy_theta", "any_angle", "astar_smoothed"])
def test_any_angle_methods(capsys, tmp_path, method, files):
    map_file, scen_file = files
    far = max(read_scen(scen_file), key=lambda p: p.optimal)
    picture = tmp_path / "p.svg"
    code, out, _ = run(capsys, "path", map_file, "--from", "{},{}".format(*far.start),
                       "--to", "{},{}".format(*far.goal), "--method", method, "--json",
                       "--render", picture)
    r = json.loads(out)
    assert code == 0 and r["found"] and r["algorithm"] == method
    path = np.array(r["path"])
    assert path.dtype == np.float64
    assert np.allclose(path[[0, -1]], np.add([far.start, far.goal], 0.5))
    assert r["cost"] == pytest.approx(np.hypot(*np.diff(path, axis=0).T).sum())
    assert 'class="path"' in picture.read_text()
    code, out, _ = run(capsys, "scen", scen_file, "--method", method, "--sample", "20", "--quiet")
    assert code == 0 and "failures           0" in out and "mean length ratio" in out
