"""``wayfinding crowd run formation_*``: each formation scenario prints its metrics (JSON
matching the library's run), a GIF of a run, options passed on, and refusals (another
avoidance model, a doorway too narrow, an option refused while parsing)."""

from __future__ import annotations

import json

import pytest

from wayfinding.cli import main
from wayfinding.groups.scenarios import formation_scenario


@pytest.mark.parametrize("name, agents", [("formation_door", 6), ("formation_crossing", 12),
                                          ("formation_crowd", 22)])
def test_each_formation_scenario_prints_its_metrics(capsys, name, agents):
    assert main(["crowd", "run", name, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    run = formation_scenario(name)
    assert info["scenario"] == run.name and info["agents"] == agents
    assert info["completion"] == 1.0 and info["max_overlap_ratio"] <= 0.01
    assert info["slot_error_max"] == round(run.slot_error()[1].max(), 4)
    assert (info["time_to_reform"] is None) == (name != "formation_door")
    assert main(["crowd", "run", name]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"{run.name} (orca): 100% of {agents} agents arrived")
    assert ("reformed to within 0.1 in" in text) == (name == "formation_door")


def test_options_and_a_gif(capsys, tmp_path):
    image = pytest.importorskip("PIL.Image")
    gif = tmp_path / "door.gif"
    assert main(["crowd", "run", "formation_door", "--agents", "4", "--width", "2",
                 "--render", str(gif), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["members"] == 4 and info["render"] == str(gif)
    assert info["time_to_reform"] == round(
        formation_scenario("formation_door", n=4, width=2.0).time_to_reform(0.1), 4)
    assert image.open(gif).n_frames > 10


@pytest.mark.parametrize("argv, message", [
    (["formation_crossing", "--model", "rvo"], "ORCA only"),
    (["formation_door", "--width", "0.5"], "width 0.5"),
    (["formation_door", "--agents", "1"], "n 1")])
def test_refusals(capsys, argv, message):
    assert main(["crowd", "run", *argv]) == 2
    assert message in capsys.readouterr().err


def test_refused_while_parsing(capsys):
    with pytest.raises(SystemExit) as refused:
        main(["crowd", "run", "formation_wedge"])
    assert refused.value.code == 2 and "formation_door" in capsys.readouterr().err
