"""The ``wayfinding field`` commands: a flow field's picture and summary, a scene's GIF, a
blocked goal refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from movingai_data import generated_grid

from wayfinding.cli import main
from wayfinding.grid import write_map

Image = pytest.importorskip("PIL.Image")


def test_field_commands(capsys, tmp_path):
    out = tmp_path / "flow.svg"
    grid = generated_grid("caves")
    map_file = write_map(grid, tmp_path / "caves.map")
    (wy, wx), (fy, fx) = np.argwhere(~grid.passable)[0], np.argwhere(grid.passable)[-1]
    assert main(["field", "flow", str(map_file), "--to", f"{fx},{fy}", "-o", str(out),
                 "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["reachable_cells"] > 1000 and out.exists()
    gif = tmp_path / "lanes.gif"
    assert main(["field", "scene", "lanes", "--units", "4", "--seconds", "60",
                 "--render", str(gif), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["completion"] == 1.0 and Image.open(gif).n_frames > 10
    assert main(["field", "flow", str(map_file), "--to", f"{wx},{wy}", "-o", str(out)]) == 2
    assert "blocked" in capsys.readouterr().err
