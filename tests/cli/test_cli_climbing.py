"""The ``wayfinding climb path`` command: text and JSON summaries of a climb on the
generated wall, its picture, the places it takes, the capability options, and the values
refused while parsing or by the library."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable

import numpy as np
import pytest

from wayfinding.cli.climbing import add_climb_parser
from wayfinding.climbing import Capabilities, climbing_wall, find_climb_path, nearest_position

Image = pytest.importorskip("PIL.Image")


@pytest.fixture
def main(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[str]], int]:
    """``wayfinding.cli.main`` with the ``climb`` command registered (where the command
    line does not hold it yet)."""
    cli = importlib.import_module("wayfinding.cli.main")
    build = cli.build_parser

    def with_climb():
        parser = build()
        sub = parser._subparsers._group_actions[0]
        if "climb" not in sub.choices:
            add_climb_parser(sub)
        return parser

    monkeypatch.setattr(cli, "build_parser", with_climb)
    return cli.main


def run_json(main, capsys, *argv):
    assert main(["climb", "path", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_climb_from_the_ground_to_the_roof(main, capsys, tmp_path):
    out = tmp_path / "wall.png"
    info = run_json(main, capsys, "--seed", "2", "--render", str(out))
    wall = climbing_wall(seed=2)
    g = wall.graph()
    want = find_climb_path(g, wall.clues(g), wall.position("roof"))
    assert info["found"] and info["cost"] == pytest.approx(want.cost, abs=1e-4)
    assert info["steps"]["clue"] == 1 and sum(info["steps"].values()) == len(want.edges)
    assert np.allclose(info["points"], want.points, atol=1e-4)
    assert info["points"][0][2] == 0.0 and info["points"][-1][2] == wall.height
    assert info["route"][-1] == "roof" and info["nodes"] == g.num_nodes
    assert info["spline_length"] >= info["length"]
    assert Image.open(out).size[0] > 100
    assert main(["climb", "path", "--seed", "2"]) == 0
    text = capsys.readouterr().out
    assert f"cost {want.cost:.2f}" in text and "roof" in text


def test_places_by_name_distance_and_point(main, capsys):
    wall = climbing_wall(seed=3)
    g = wall.graph()
    info = run_json(main, capsys, "--seed", "3", "--from", "ledge-1-2:0.5", "--to", "ground")
    want = find_climb_path(g, wall.position("ledge-1-2", distance=0.5), wall.clues(g))
    assert info["cost"] == pytest.approx(want.cost, abs=1e-4)
    assert info["points"][-1][2] == 0.0 and info["route"][0] == "ledge-1-2"
    wall = climbing_wall(seed=2)
    here = nearest_position(wall.graph(), (-1, 0, 2.2))
    info = run_json(main, capsys, "--seed", "2", "--from", "-1,0,2.2", "--to", "roof:4")
    assert info["found"]
    assert info["points"][0] == wall.elements[here.element].point_at(here.distance).tolist()
    assert info["points"][-1] == [4.0, 0.0, wall.height]


def test_capabilities_change_the_climb(main, capsys):
    full = run_json(main, capsys, "--seed", "3")
    short = run_json(main, capsys, "--seed", "3", "--max-jump-distance", "1")
    assert short["links"] < full["links"] and short["found"]
    wall = climbing_wall(seed=3)
    g = wall.graph(capabilities=Capabilities(max_jump_distance=1))
    assert short["cost"] == pytest.approx(
        find_climb_path(g, wall.clues(g), wall.position("roof")).cost, abs=1e-4)
    full = run_json(main, capsys)
    stuck = run_json(main, capsys, "--max-jump-distance", "0.5")
    assert not stuck["found"] and stuck["cost"] is None and stuck["points"] == []
    assert main(["climb", "path", "--kinds", "ledge"]) == 2      # no clue link at all
    assert "no clue link" in capsys.readouterr().err
    assert run_json(main, capsys, "--method", "dijkstra")["cost"] == full["cost"]


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed"),
    (["--bays", "0"], "--bays"),
    (["--from", "1,2"], "X,Y,Z"),
    (["--from", "roof:x"], "distance"),
    (["--to", ":3"], "names no element"),
    (["--kinds", "rope"], "element kinds"),
    (["--max-drop-height", "-2"], "--max-drop-height"),
    (["--method", "bfs"], "--method"),
])
def test_values_refused_while_parsing(main, capsys, argv, message):
    with pytest.raises(SystemExit) as refused:
        main(["climb", "path", *argv])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--to", "chimney"], "no element 'chimney'"),
    (["--bays", "99"], "bays 99"),
    (["--max-jump-angle", "100"], "max_jump_angle"),
    (["--from", "roof:99"], "distance 99"),
    (["--render", "wall.gif"], "PNG"),
])
def test_values_refused_by_the_library(main, capsys, tmp_path, argv, message):
    argv = [a if a != "wall.gif" else str(tmp_path / a) for a in argv]
    assert main(["climb", "path", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wayfinding: error: ") and message in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())
