"""``wayfinding world``, run in-process through ``wayfinding.cli.main``."""

import json
import xml.etree.ElementTree as ET

import pytest
from movingai_data import TEST_DATA

from wayfinding.cli import main

MAP = TEST_DATA / "maps" / "dao" / "den312d.map"
HEX = ". . . .\n . # . .\n  . . 3 .\n"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("kind, extra", [
    ("waypoints", []), ("dirichlet", ["--spacing", "3"]), ("visibility", ["--radius", "0.4"]),
    ("roadmap", ["--samples", "200"]),
])
def test_each_kind_on_a_map(capsys, tmp_path, kind, extra):
    out_svg = tmp_path / f"{kind}.svg"
    code, out, _ = run(capsys, "world", kind, MAP, "--from", "5.5,2.5", "--to", "20.5,20.5",
                       "-o", out_svg, *extra)
    assert code == 0, out
    assert out.startswith(f"{kind}: ") and "nodes" in out and "path:" in out
    assert ET.parse(out_svg).getroot().tag.endswith("svg")


def test_json_summary_and_hex(capsys, tmp_path):
    pic = tmp_path / "h.txt"
    pic.write_text(HEX)
    code, out, _ = run(capsys, "world", "hex", pic, "--from", "0,0", "--to", "5.2,3",
                       "--json", "-o", tmp_path / "h.svg")
    data = json.loads(out)
    assert code == 0 and data["kind"] == "hex" and data["nodes"] == 11 and data["found"]
    assert data["path"][0] == [0, 0] and data["cost"] == 5.0
    code, out, _ = run(capsys, "world", "waypoints", MAP, "--json")
    data = json.loads(out)
    assert code == 0 and data["nodes"] > 100 and "found" not in data


@pytest.mark.parametrize("argv, text", [
    (["world", "roadmap", MAP, "--radius", "-1"], "radius"),
    (["world", "roadmap", MAP, "--k", "0"], "k 0"),
    (["world", "waypoints", MAP, "--from", "1,1"], "both --from and --to"),
    (["world", "waypoints", MAP, "--from", "0.5,0.5", "--to", "5.5,2.5"], "start"),
    (["world", "waypoints", MAP, "-o", "x.png"], "SVG only"),
    (["world", "waypoints", "missing.map"], "missing.map"),
    (["world", "hex", MAP, "--layout", "square"], "unknown hex tile"),
    (["world", "waypoints", MAP, "--spacing", "0"], "spacing"),
])
def test_bad_inputs_exit_2(capsys, tmp_path, monkeypatch, argv, text):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2 and text in err


def test_malformed_point_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["world", "roadmap", str(MAP), "--from", "1;2", "--to", "3,4"])
    assert exc.value.code == 2
    assert "not a world point" in capsys.readouterr().err
