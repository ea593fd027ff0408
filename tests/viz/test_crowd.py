"""Crowd runs as animated GIFs: agents drawn where they are, obstacles filled."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding import InvalidQueryError
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
