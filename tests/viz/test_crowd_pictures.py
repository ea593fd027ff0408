"""Crowd runs as animated GIFs (agents drawn where they are, obstacles filled), and the
``wayfinding crowd run`` command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.cli import main
from wayfinding.crowd import scenario, simulate_crowd
from wayfinding.viz.crowd import animate_run

Image = pytest.importorskip("PIL.Image")


def test_a_run_becomes_a_gif_with_its_obstacles_and_agents(tmp_path):
    sc = scenario("bottleneck", n=6)
    run = simulate_crowd(sc)
    out = animate_run(tmp_path / "b.gif", run, sc.obstacles, size=200, frames=20)
    gif = Image.open(out)
    assert gif.n_frames == 20 and max(gif.size) == 200
    first = np.asarray(gif.convert("RGB"))
    grey = (first == [90, 90, 90]).all(-1)
    assert grey.sum() > 100                       # the walls
    coloured = (np.ptp(first.astype(int), axis=-1) > 60).sum()
    assert coloured > 6 * 4                       # six agents, a few pixels each
    with pytest.raises(InvalidQueryError, match="GIF"):
        animate_run(tmp_path / "b.png", run)
    with pytest.raises(InvalidQueryError, match="size"):
        animate_run(tmp_path / "b.gif", run, size=3)


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
