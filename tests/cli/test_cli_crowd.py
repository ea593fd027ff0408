"""The ``wayfinding crowd run`` command: JSON and text summaries, a GIF of the run, every
avoidance model, values refused while parsing or by the scenario."""

from __future__ import annotations

import json

import pytest

from wayfinding.cli import main

Image = pytest.importorskip("PIL.Image")


def test_crowd_run_command(capsys, tmp_path):
    gif = tmp_path / "cross.gif"
    assert main(["crowd", "run", "crossing", "--angle", "90", "--render", str(gif),
                 "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["completion"] == 1.0 and info["collisions"] == 0 and info["agents"] == 2
    assert Image.open(gif).n_frames > 10
    assert main(["crowd", "run", "swap", "--agents", "4"]) == 0
    assert "100% of 8 agents arrived" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:      # refused while parsing
        main(["crowd", "run", "crossing", "--angle", "0"])
    assert refused.value.code == 2 and "angle" in capsys.readouterr().err
    assert main(["crowd", "run", "crossing", "--angle", "200"]) == 2    # by the scenario
    assert "(0, 180]" in capsys.readouterr().err


@pytest.mark.parametrize("model", ["rvo", "vo", "powerlaw", "anticipatory"])
def test_crowd_run_takes_every_avoidance_model(capsys, model):
    assert main(["crowd", "run", "crossing", "--angle", "135", "--model", model,
                 "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["model"] == model and info["completion"] == 1.0
    assert main(["crowd", "run", "bottleneck", "--agents", "4", "--model", model]) == 2
    assert "only ORCA takes" in capsys.readouterr().err
