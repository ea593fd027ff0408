"""The ``wayfinding vehicle`` commands: ``path`` (a car's path on a map file or a generated
map, against its lower bounds; JSON, PNG) and ``crossing`` (the street-crossing run's
metrics; JSON, GIF), and the values refused while parsing or by the library."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest

from wayfinding.cli import main as cli_main
from wayfinding.grid import Grid, write_map
from wayfinding.paths import reeds_shepp_path

Image = pytest.importorskip("PIL.Image")


@pytest.fixture
def main() -> Callable[[list[str]], int]:
    """``wayfinding.cli.main``."""
    return cli_main


@pytest.fixture
def street(tmp_path):
    """A street 7 m wide and 24 long (cells of 1 m: the map's walls are its first and last
    rows), written as a Moving AI map."""
    free = np.ones((9, 24), dtype=bool)
    free[[0, -1]] = False
    path = tmp_path / "street.map"
    write_map(Grid(free), path)
    return path


def test_vehicle_path_on_a_map_file(main, capsys, street, tmp_path):
    png = tmp_path / "car.png"
    assert main(["vehicle", "path", str(street), "--from", "3,4.5,0", "--to", "20,4.5,0",
                 "--radius", "3", "--length", "2", "--width", "1", "--json",
                 "--render", str(png)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["status"] == "found" and info["cusps"] == 0
    assert info["length"] == pytest.approx(17.0) and info["reeds_shepp"] == pytest.approx(17.0)
    assert info["holonomic"] == pytest.approx(17.0)
    assert set(info) == {"map", "world", "status", "length", "cost", "cusps", "reeds_shepp",
                         "holonomic", "expanded", "seconds", "render"}
    assert info["world"] == "grid"
    with Image.open(png) as im:
        assert im.format == "PNG" and im.text["Title"].endswith("street.map")
        pixels = np.asarray(im.convert("RGB"))
    assert (pixels == (0x1f, 0x5f, 0xa8)).all(axis=2).any()           # driven forward
    assert not (pixels == (0xd7, 0x26, 0x3d)).all(axis=2).any()       # never in reverse


def test_vehicle_path_on_the_navmesh_of_a_map(main, capsys, street):
    assert main(["vehicle", "path", str(street), "--from", "3,4.5,0", "--to", "20,4.5,0",
                 "--radius", "3", "--length", "2", "--width", "1", "--navmesh", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["world"] == "navmesh" and info["status"] == "found"
    assert info["length"] == pytest.approx(17.0) and info["holonomic"] == pytest.approx(17.0)
    assert main(["vehicle", "path", str(street), "--from", "12,3,0", "--to", "12,6,180",
                 "--radius", "3", "--length", "2", "--width", "1", "--navmesh", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["status"] == "found" and info["cusps"] >= 1


def test_a_u_turn_in_a_narrow_street_reverses(main, capsys, street):
    argv = ["vehicle", "path", str(street), "--from", "12,3,0", "--to", "12,6,180",
            "--radius", "3", "--length", "2", "--width", "1"]
    assert main([*argv, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    rs = reeds_shepp_path((12, 3), (1, 0), (12, 6), (-1, 0), 3).length
    assert info["cusps"] >= 1 and info["reeds_shepp"] == pytest.approx(rs, abs=1e-4)
    assert info["length"] >= info["reeds_shepp"] - 1e-4
    assert main([*argv, "--reverse-cost", "3", "--json"]) == 0
    dear = json.loads(capsys.readouterr().out)
    assert dear["cost"] > dear["length"] and dear["cusps"] >= 1
    assert main([*argv, "--no-reverse", "--max-expansions", "300"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(("failed: no path", "out_of_budget: no path"))


def test_a_goal_behind_a_wall_has_no_path_and_no_holonomic_optimum(main, capsys, tmp_path):
    free = np.ones((9, 24), dtype=bool)
    free[[0, -1]] = False
    free[:, 12] = False
    walled = tmp_path / "walled.map"
    write_map(Grid(free), walled)
    argv = ["vehicle", "path", str(walled), "--from", "3,4.5,0", "--to", "20,4.5,0"]
    assert main([*argv, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["status"] == "failed" and info["length"] is None
    assert info["holonomic"] is None and info["reeds_shepp"] == pytest.approx(17.0)
    png = tmp_path / "walled.png"
    assert main([*argv, "--render", str(png)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("failed: no path after 0 expansions")
    assert "the holonomic optimum none" in out
    with Image.open(png) as im:                 # the map and the two poses
        pixels = np.asarray(im.convert("RGB"))
    assert (pixels == (0x1b, 0x9e, 0x4b)).all(axis=2).any()
    assert (pixels == (0x7b, 0x2c, 0xbf)).all(axis=2).any()


def test_vehicle_path_on_a_generated_map(main, capsys):
    assert main(["vehicle", "path", "--generate", "rooms", "--seed", "1", "--from", "10,6,0",
                 "--to", "30,6,0", "--max-expansions", "2000"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("found: length") and " x the holonomic optimum " in out


@pytest.mark.parametrize("argv, message", [
    (["--from", "3,4.5", "--to", "20,4.5,0"], "is not a pose"),
    (["--from", "3,4.5,nan", "--to", "20,4.5,0"], "finite"),
    (["--from", "3,4.5,0", "--to", "20,4.5,0", "--radius", "0"], "must be a number > 0"),
    (["--from", "3,4.5,0", "--to", "20,4.5,0", "--reverse-cost", "0.5"], ">= 1"),
    (["--from", "3,4.5,0", "--to", "20,4.5,0", "--generate", "moon"], "invalid choice"),
    (["--from", "3,4.5,0", "--to", "20,4.5,0", "--size", "4,4"], "from 8 to 4096"),
])
def test_vehicle_path_refuses_bad_options_while_parsing(main, capsys, street, argv, message):
    with pytest.raises(SystemExit) as refused:
        main(["vehicle", "path", str(street), *argv])
    assert refused.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--from", "0.5,4.5,0", "--to", "20,4.5,0"], "start_pose"),          # off the map
    (["--from", "-1,4.5,0", "--to", "20,4.5,0"], "start_pose"),
    (["--from", "3,4.5,0", "--to", "20,0.5,0"], "goal_pose"),             # on a wall
    (["--generate", "caves", "--from", "3,4.5,0", "--to", "20,4.5,0"], "not both"),
    (["--from", "3,4.5,0", "--to", "20,4.5,0", "--render", "car.svg"], "PNG"),
])
def test_vehicle_path_refuses_bad_input(main, capsys, street, tmp_path, argv, message):
    argv = [a.replace("car.svg", str(tmp_path / "car.svg")) for a in argv]
    assert main(["vehicle", "path", str(street), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wayfinding: error:") and message in err and err.count("\n") == 1
    assert not (tmp_path / "car.svg").exists()


def test_vehicle_path_needs_a_map(main, capsys):
    assert main(["vehicle", "path", "--from", "3,4.5,0", "--to", "20,4.5,0"]) == 2
    assert "give a .map file or --generate" in capsys.readouterr().err


def test_vehicle_crossing_command(main, capsys, tmp_path):
    gif = tmp_path / "crossing.gif"
    assert main(["vehicle", "crossing", "--pedestrians", "3", "--carriages", "2", "--seed",
                 "2", "--render", str(gif), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["pedestrians"] == 3 and info["arrived"] == 3 and info["completion"] == 1.0
    assert info["carriages"] == 4 and info["steps"] == 800
    assert 10 / 1.4 <= info["t_mean"] <= info["t_last"] <= 40
    assert 0 <= info["least_gap"] < 1
    with Image.open(gif) as im:
        assert im.n_frames > 10
    assert main(["vehicle", "crossing", "--pedestrians", "2", "--carriages", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("street crossing: 2 of 2 pedestrians arrived, on average after")
    assert "least gap to a carriage" in out and "; 2 carriages, 800 steps" in out


def test_braking_can_be_turned_off(main, capsys):
    gaps = []
    for horizon in ("2", "0"):
        assert main(["vehicle", "crossing", "--pedestrians", "2", "--carriages", "1",
                     "--brake-horizon", horizon, "--json"]) == 0
        gaps.append(json.loads(capsys.readouterr().out)["least_gap"])
    assert gaps[0] != gaps[1] and min(gaps) >= 0


def test_a_crossing_that_ends_before_anyone_arrives(main, capsys):
    assert main(["vehicle", "crossing", "--duration", "1", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["arrived"] == 0 and info["t_mean"] is None and info["t_last"] is None
    assert main(["vehicle", "crossing", "--duration", "1"]) == 0
    assert "0 of 5 pedestrians arrived; least gap" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--pedestrians", "0"], "must be an integer >= 1"),
    (["--dt", "-1"], "must be a number > 0"),
    (["--carriage-speed", "inf"], "finite"),
    (["--brake-horizon", "-1"], "must be a number >= 0"),
])
def test_vehicle_crossing_refuses_bad_options(main, capsys, argv, message):
    with pytest.raises(SystemExit) as refused:
        main(["vehicle", "crossing", *argv])
    assert refused.value.code == 2 and message in capsys.readouterr().err


def test_vehicle_crossing_refuses_a_picture_that_is_not_a_gif(main, capsys, tmp_path):
    assert main(["vehicle", "crossing", "--duration", "1", "--render",
                 str(tmp_path / "run.png")]) == 2
    assert "GIF" in capsys.readouterr().err


@pytest.mark.parametrize("options, message", [
    ({"spacing": 0.0}, "spacing"), ({"scale": 0}, "scale"), ({"length": -1.0}, "length"),
    ({"title": 3}, "title"), ({"start_pose": (1.0, 2.0)}, "start_pose"),
])
def test_the_car_picture_refuses_bad_options(options, message):
    from wayfinding.errors import InvalidQueryError
    from wayfinding.vehicles import plan_car_path
    from wayfinding.viz.vehicles import render_car_png

    grid = Grid(np.ones((8, 12), dtype=bool))
    path = plan_car_path(grid, (3, 4, 0), (9, 4, 0), turning_radius=2, length=2, width=1)
    with pytest.raises(InvalidQueryError, match=message):
        render_car_png(grid, path, **{"length": 2.0, "width": 1.0, **options})
    with pytest.raises(InvalidQueryError, match="Grid"):
        render_car_png(np.ones((8, 12)), path, length=2.0, width=1.0)
