"""``wayfinding navmesh3d build --ledge-links``: the links found are saved with the mesh,
``info`` counts them and ``path`` marks the corners where it takes one (text and JSON);
link options without ``--ledge-links`` and bad values exit with status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wayfinding.cli import main
from wayfinding.navmesh3d import NavMesh3D
from wayfinding.navmesh3d.generate import _Soup


@pytest.fixture(scope="module")
def level(tmp_path_factory) -> Path:
    """A floor 12 x 8 and a platform 2 high over x in [0, 5]: one ledge, along x = 5."""
    s = _Soup()
    s.box((0, -0.5, 0), (12, 0, 8))
    s.box((0, 0, 0), (5, 2, 8))
    path = tmp_path_factory.mktemp("ledge") / "platform.obj"
    s.level().to_obj(path)
    return path


def test_build_saves_the_ledge_links(level, tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--ledge-links",
                 "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    links = NavMesh3D.load(out).links
    assert info["links"] == len(links) == 1 and links[0].kind == "drop"
    assert main(["navmesh3d", "info", str(out)]) == 0
    assert "off-mesh links    1 (1 drop)" in capsys.readouterr().out
    assert main(["navmesh3d", "info", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["links"] == 1


def test_the_link_options_reach_the_search(level, tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--ledge-links",
                 "--max-drop", "1.5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["links"] == 0       # too deep a drop
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--ledge-links",
                 "--max-jump", "1.0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["links"] == 0       # the floor is beyond reach
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--ledge-links",
                 "--max-jump-up", "2.5", "--link-spacing", "0.5"]) == 0
    assert "off-mesh links    2 (1 drop, 1 jump)" in capsys.readouterr().out


def test_path_marks_the_links_it_takes(level, tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--ledge-links",
                 "--json"]) == 0
    capsys.readouterr()
    assert main(["navmesh3d", "path", str(out), "--from", "2,2,4", "--to", "10,0,4",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["status"] == "found" and r["offmesh"] == [1]
    (taken,) = r["links"]
    assert taken["link"] == 0 and taken["kind"] == "drop" and not taken["bidirectional"]
    assert r["points"][1] == pytest.approx(taken["start"], abs=1e-4)
    assert r["points"][2] == pytest.approx(taken["end"], abs=1e-4)
    assert r["polygons"].count(NavMesh3D.load(out).num_polygons) == 1    # the link's node
    assert main(["navmesh3d", "path", str(out), "--from", "2,2,4", "--to", "10,0,4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "1 off-mesh link," in lines[0]
    assert lines[2].endswith("<- off-mesh link 0 (drop) to the next point")
    assert not any("off-mesh link 0" in line for line in lines[3:])
    assert main(["navmesh3d", "path", str(out), "--from", "10,0,4", "--to", "2,2,4",
                 "--json"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert back["status"] == "failed" and back["offmesh"] == [] and back["links"] == []


def test_a_path_without_links_lists_none(level, tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["links"] == 0
    assert main(["navmesh3d", "path", str(out), "--from", "9,0,2", "--to", "10,0,6",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["status"] == "found" and r["offmesh"] == [] and r["links"] == []


@pytest.mark.parametrize("option, value, message", [
    ("--max-drop", "3", "--max-drop needs --ledge-links"),
    ("--link-spacing", "1", "--link-spacing needs --ledge-links"),
])
def test_link_options_need_ledge_links(level, tmp_path, capsys, option, value, message):
    assert main(["navmesh3d", "build", str(level), "-o", str(tmp_path / "m.npz"), option,
                 value]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("option, value", [("--max-drop", "-1"), ("--max-jump", "0"),
                                           ("--max-jump-up", "-0.5"),
                                           ("--link-spacing", "nan")])
def test_bad_link_values_exit_2(level, tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as exc:
        main(["navmesh3d", "build", str(level), "-o", str(tmp_path / "m.npz"),
              "--ledge-links", f"{option}={value}"])
    assert exc.value.code == 2
    assert option in capsys.readouterr().err


def test_path_from_a_link_s_start_marks_each_link_at_its_own_corner(tmp_path, capsys):
    from wayfinding.navmesh import OffMeshLink
    from wayfinding.navmesh3d import build, generate
    out = tmp_path / "linked.npz"
    build(generate.floor(size=30), tile_size=16).with_links([
        OffMeshLink((2, 0, 2), (27, 0, 2), cost=0.0, kind="drop"),
        OffMeshLink((27, 0, 4), (27, 0, 27), cost=0.0, kind="ladder")]).save(out)
    assert main(["navmesh3d", "path", str(out), "--from", "2,0,2", "--to", "28,0,28",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert [x["link"] for x in r["links"]] == [0, 1] and r["offmesh"] == [0, 2]
    assert main(["navmesh3d", "path", str(out), "--from", "2,0,2", "--to", "28,0,28"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith("<- off-mesh link 0 (drop) to the next point")
    assert lines[3].startswith("  27.0000,0.1000,4.0000")
    assert lines[3].endswith("<- off-mesh link 1 (ladder) to the next point")


def test_path_crossings_add_corners_on_polygon_edges(level, tmp_path, capsys):
    out = tmp_path / "m.npz"       # in tiles, so that the path crosses polygon edges
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--tile-size", "16",
                 "--json"]) == 0
    capsys.readouterr()
    got = {}
    for extra in ([], ["--crossings", "all"]):
        assert main(["navmesh3d", "path", str(out), "--from", "6,0,1", "--to", "11,0,7",
                     "--json", *extra]) == 0
        got[bool(extra)] = json.loads(capsys.readouterr().out)
    assert got[True]["status"] == got[False]["status"] == "found"
    assert len(got[True]["points"]) > len(got[False]["points"])
    with pytest.raises(SystemExit) as exc:
        main(["navmesh3d", "path", str(out), "--from", "6,0,1", "--to", "11,0,7",
              "--crossings", "some"])
    assert exc.value.code == 2 and "--crossings" in capsys.readouterr().err


def test_bad_raycasts_and_cell_sizes_exit_2_with_one_line(level, tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["navmesh3d", "build", str(level), "-o", str(out), "--json"]) == 0
    capsys.readouterr()
    for args in (["navmesh3d", "raycast", str(out), "--from", "1e31,0.5,1", "--to", "3,0.5,3"],
                 ["navmesh3d", "raycast", str(out), "--from", "1e31,0.5,1", "--to", "3,0.5,3",
                  "--json"],
                 ["navmesh3d", "build", str(level), "-o", str(tmp_path / "t.npz"),
                  "--cell-size", "1e-300"]):
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code
        captured = capsys.readouterr()
        assert code == 2 and captured.out == ""
        assert len(captured.err.splitlines()) == 1 and ": error: " in captured.err
    assert not (tmp_path / "t.npz").exists()
