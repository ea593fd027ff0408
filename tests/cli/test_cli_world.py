"""``wayfinding world``, run in-process through ``wayfinding.cli.main``."""

import json
import xml.etree.ElementTree as ET

import pytest

from wayfinding.cli import main
from wayfinding.grid import generate, write_map

GRID = generate.caves(64, 64, seed=5)
HEX = ". . . .\n . # . .\n  . . 3 .\n"


@pytest.fixture(scope="module")
def map_file(tmp_path_factory):
    return write_map(GRID, tmp_path_factory.mktemp("world") / "caves.map")


def far_points() -> list[str]:
    """Centres of the first and the last passable cell, as "X,Y" world points."""
    free = GRID.passable.nonzero()
    (y0, y1), (x0, x1) = free[0][[0, -1]], free[1][[0, -1]]
    return [f"{x0 + 0.5},{y0 + 0.5}", f"{x1 + 0.5},{y1 + 0.5}"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("kind, extra", [
    ("waypoints", []), ("dirichlet", ["--spacing", "3"]), ("visibility", ["--radius", "0.4"]),
    ("roadmap", ["--samples", "200"]),
])
def test_each_kind_on_a_map(capsys, tmp_path, map_file, kind, extra):
    out_svg = tmp_path / f"{kind}.svg"
    start, goal = far_points()
    code, out, _ = run(capsys, "world", kind, map_file, "--from", start, "--to", goal,
                       "-o", out_svg, *extra)
    assert code == 0, out
    assert out.startswith(f"{kind}: ") and "nodes" in out and "path:" in out
    assert ET.parse(out_svg).getroot().tag.endswith("svg")


def test_json_summary_and_hex(capsys, tmp_path, map_file):
    pic = tmp_path / "h.txt"
    pic.write_text(HEX)
    code, out, _ = run(capsys, "world", "hex", pic, "--from", "0,0", "--to", "5.2,3",
                       "--json", "-o", tmp_path / "h.svg")
    data = json.loads(out)
    assert code == 0 and data["kind"] == "hex" and data["nodes"] == 11 and data["found"]
    assert data["path"][0] == [0, 0] and data["cost"] == 5.0
    code, out, _ = run(capsys, "world", "waypoints", map_file, "--json")
    data = json.loads(out)
    assert code == 0 and data["nodes"] > 100 and "found" not in data


MAP = object()  # stands for the map file in the table below


@pytest.mark.parametrize("argv, text", [
    (["world", "roadmap", MAP, "--radius", "-1"], "radius"),
    (["world", "roadmap", MAP, "--k", "0"], "--k: 0"),
    (["world", "waypoints", MAP, "--from", "1,1"], "both --from and --to"),
    (["world", "waypoints", MAP, "--from", "0.5,0.5", "--to", far_points()[1]], "start"),
    (["world", "waypoints", MAP, "-o", "x.png"], "SVG only"),
    (["world", "waypoints", "missing.map"], "missing.map"),
    (["world", "hex", MAP, "--layout", "square"], "unknown hex tile"),
    (["world", "waypoints", MAP, "--spacing", "0"], "spacing"),
])
def test_bad_inputs_exit_2(capsys, tmp_path, monkeypatch, map_file, argv, text):
    monkeypatch.chdir(tmp_path)
    try:
        code, _, err = run(capsys, *(map_file if a is MAP else a for a in argv))
    except SystemExit as exc:  # refused while parsing
        code, err = exc.code, capsys.readouterr().err
    assert code == 2 and text in err


def test_malformed_point_is_an_argparse_error(capsys, map_file):
    with pytest.raises(SystemExit) as exc:
        main(["world", "roadmap", str(map_file), "--from", "1;2", "--to", "3,4"])
    assert exc.value.code == 2
    assert "not a world point" in capsys.readouterr().err
