"""The planning-with-the-body commands: ``clips`` (print, check and write a catalogue),
``movement`` (clip sequences on the open plane, map files, meshes and generated maps, against
a brute-force search over a small clip graph; JSON, PNG) and ``footsteps`` (one walker and
two meeting head on, against the library's crowd planner; JSON, GIF), and the values refused
while parsing or by the library."""

from __future__ import annotations

import contextlib
import heapq
import io
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from wayfinding.cli import main
from wayfinding.geometry.angles import wrap_angle
from wayfinding.grid import Grid, write_map
from wayfinding.navmesh import NavMesh
from wayfinding.planning import (
    Clip,
    ClipCatalogue,
    ControllerParams,
    MotionModel,
    SimulatedController,
    SimulationSettings,
    default_clips,
    fit_motion_model,
    locomotion_path,
    plan_crowd,
)

Image = pytest.importorskip("PIL.Image")

#: A catalogue small enough to search by hand: steps of 1 m (1 s) and 2 m (1.5 s) straight
#: ahead, quarter turns on the spot (0.5 s), all while standing.
TINY = {"step": (1.0, 1.0, 0), "stride": (2.0, 1.5, 0), "turn_left": (0.0, 0.5, 1),
        "turn_right": (0.0, 0.5, -1)}


def run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: object) -> dict:
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0
    return json.loads(out)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """:data:`TINY` saved as a catalogue file."""
    path = tmp_path_factory.mktemp("clips") / "tiny.json"
    ClipCatalogue([Clip(name, "standing", "standing", duration=t, dx=dx,
                        rotation=turn * math.pi / 2)
                   for name, (dx, t, turn) in TINY.items()]).save(path)
    return path


@pytest.fixture(scope="module")
def wall(tmp_path_factory) -> tuple[Path, Grid]:
    """A 12 x 8 room (cells of 1 m) with a wall across x = 6..7 from y = 0 to y = 6."""
    free = np.ones((8, 12), dtype=bool)
    free[:6, 6] = False
    path = tmp_path_factory.mktemp("maps") / "wall.map"
    write_map(Grid(free), path)
    return path, Grid(free)


def least_time(start, goal, *, clear, position_tolerance, heading=None, penalties=None):
    """The cheapest :data:`TINY` sequence (Dijkstra over its lattice of positions and quarter
    headings) from ``start`` ``(x, y, quarter turns)`` to within ``position_tolerance`` of
    ``goal`` (``(x, y)``), facing ``heading`` quarter turns (None: any), each move's
    straight segment ``clear``: (cost, time)."""
    penalties = penalties or {}
    best = {start: 0.0}
    queue = [(0.0, 0.0, start)]
    while queue:
        cost, t, (x, y, q) = heapq.heappop(queue)
        if cost > best[(x, y, q)]:
            continue
        if math.dist((x, y), goal) <= position_tolerance + 1e-9 \
                and (heading is None or q % 4 == heading % 4):
            return cost, t
        for name, (dx, duration, turn) in TINY.items():
            ux, uy = round(math.cos(q * math.pi / 2)), round(math.sin(q * math.pi / 2))
            nxt = (x + ux * dx, y + uy * dx, (q + turn) % 4)
            if not clear((x, y), nxt[:2]):
                continue
            c = cost + duration + penalties.get(name, 0.0)
            if c < best.get(nxt, math.inf) - 1e-12:
                best[nxt] = c
                heapq.heappush(queue, (c, t + duration, nxt))
    return math.inf, math.inf


def replay(info: dict, clips: ClipCatalogue) -> np.ndarray:
    """The poses ``(x, y, heading in radians)`` after each clip of a printed plan, played
    from its first pose."""
    x, y, h = info["poses"][0]
    poses = [np.array([x, y, math.radians(h)])]
    for name in info["clips"]:
        poses.append(clips[name].end_pose(poses[-1]))
    return np.array(poses)


# --- clips ----------------------------------------------------------------------------------

def test_clips_prints_and_writes_the_default_catalogue(capsys, tmp_path):
    clips = default_clips()
    code, out, _ = run(capsys, "clips")
    assert code == 0 and f"{len(clips)} clips" in out
    for c in clips.clips:
        assert f"  {c.name} " in out
    out_file = tmp_path / "mine.json"
    info = run_json(capsys, "clips", "-o", out_file)
    assert info["source"] == "default" and info["output"] == str(out_file)
    assert ClipCatalogue.load(out_file) == clips
    assert [c["name"] for c in info["clips"]] == list(clips)
    assert info["states"] == sorted(clips.states)
    assert info["max_speed"] == pytest.approx(clips.max_speed)
    assert info["max_curvature"] is None                        # turns on the spot
    for row, c in zip(info["clips"], clips.clips):
        assert row["duration"] == pytest.approx(c.duration)
        assert row["length"] == pytest.approx(c.length, abs=1e-6)
        assert (row["curvature"] is None) == (c.curvature is None)


def test_an_edited_catalogue_is_read_back(capsys, tmp_path):
    path = tmp_path / "clips.json"
    assert main(["clips", "-o", str(path)]) == 0
    capsys.readouterr()
    data = json.loads(path.read_text())
    data["clips"] = [c for c in data["clips"] if c["start_state"] == "standing"
                     and c["end_state"] == "standing"]
    path.write_text(json.dumps(data))
    info = run_json(capsys, "clips", "--clips", path)
    assert info["source"] == str(path) and info["states"] == ["standing"]
    assert {c["name"] for c in info["clips"]} == {c["name"] for c in data["clips"]}
    assert info["max_speed"] == pytest.approx(0.5 / 0.8)       # a sidestep
    # the planner plays only the file's clips: a sidestep to the left and back
    plan = run_json(capsys, "movement", "--clips", path, "--from", "0,0,0", "--to", "0,1,0",
                    "--tolerance", "0", "--heading-tolerance", "0")
    assert plan["clips"] == ["sidestep_left", "sidestep_left"]


# --- movement -------------------------------------------------------------------------------

@pytest.mark.parametrize("penalties", [{}, {"stride": 0.4}, {"stride": 1.0}])
def test_movement_on_the_open_plane_is_the_least_over_the_clip_graph(capsys, tiny, penalties):
    argv = ["movement", "--clips", tiny, "--from", "0,0,0", "--to", "3,1,90",
            "--tolerance", "0.01", "--heading-tolerance", "1"]
    for name, value in penalties.items():
        argv += ["--penalty", f"{name}={value}"]
    info = run_json(capsys, *argv)
    cost, t = least_time((0, 0, 0), (3, 1), clear=lambda a, b: True, position_tolerance=0.01,
                         heading=1, penalties=penalties)
    assert info["status"] == "found" and info["world"] == "plane" and info["map"] is None
    assert info["dubins"] is None                 # turns on the spot: no curvature bound
    assert info["cost"] == pytest.approx(cost) and info["time"] == pytest.approx(t)
    clips = ClipCatalogue.load(tiny)
    poses = replay(info, clips)
    assert np.allclose(np.array(info["poses"])[:, :2], poses[:, :2], atol=1e-4)
    assert np.allclose(np.array(info["poses"])[:, 2], np.degrees(poses[:, 2]), atol=1e-3)
    assert info["times"] == pytest.approx(np.cumsum([0] + [clips[n].duration
                                                           for n in info["clips"]]).tolist())
    assert info["position_error"] <= 0.01 and info["heading_error"] <= 1
    assert ("stride" in info["clips"]) == (penalties.get("stride", 0) < 0.5)


@pytest.fixture(scope="module")
def arcs(tmp_path_factory) -> Path:
    """A walking catalogue of forward moves only: 1.4 m straight ahead or along a 30° arc
    (radius 1.4 / (π/6)), each in 1 s, so its curvature is bounded."""
    path = tmp_path_factory.mktemp("clips") / "arcs.json"
    t = math.pi / 6
    r = 1.4 / t
    ClipCatalogue([Clip("walk", "walking", "walking", duration=1.0, dx=1.4)] + [
        Clip(name, "walking", "walking", duration=1.0, dx=r * math.sin(t),
             dy=side * r * (1 - math.cos(t)), rotation=side * t)
        for name, side in (("left", 1), ("right", -1))]).save(path)
    return path


@pytest.mark.parametrize("goal, tight", [("2.6738,2.6738,90", True), ("2.6738,0.7164,0", False)])
def test_the_dubins_length_bounds_the_root_path(capsys, arcs, goal, tight):
    info = run_json(capsys, "movement", "--clips", arcs, "--start-state", "walking", "--from",
                    "0,0,0", "--to", goal, "--tolerance", "0.01", "--heading-tolerance", "1")
    assert info["status"] == "found" and info["dubins"] <= info["length"] + 1e-9
    if tight:                       # a quarter circle of the arcs' radius: its own Dubins path
        assert info["clips"] == ["left"] * 3
        assert info["dubins"] == pytest.approx(1.4 / (math.pi / 6) * math.pi / 2, abs=1e-4)
    code, out, _ = run(capsys, "movement", "--clips", arcs, "--start-state", "walking",
                       "--from", "0,0,0", "--to", goal, "--tolerance", "0.01",
                       "--heading-tolerance", "1")
    assert code == 0 and f"(the Dubins path between its ends: {info['dubins']:.2f} m)" in out


def test_movement_round_a_wall_is_the_least_over_the_clip_graph(capsys, tiny, wall, tmp_path):
    path, grid = wall

    def clear(a, b):
        for u in np.linspace(0.0, 1.0, 41):
            x, y = a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1])
            if not grid.in_bounds((int(x), int(y))) or not grid.is_passable((int(x), int(y))):
                return False
        return True

    png = tmp_path / "wall.png"
    info = run_json(capsys, "movement", path, "--clips", tiny, "--from", "2.5,2.5,0",
                    "--to", "9.5,2.5,0", "--tolerance", "0.1", "--render", png)
    cost, _ = least_time((2.5, 2.5, 0), (9.5, 2.5), clear=clear, position_tolerance=0.1)
    straight, _ = least_time((2.5, 2.5, 0), (9.5, 2.5), clear=lambda a, b: True,
                             position_tolerance=0.1)
    assert info["world"] == "grid" and info["map"] == str(path)
    assert info["cost"] == pytest.approx(cost) and cost > straight
    assert all(clear(a, b) for a, b in itertools.pairwise(replay(info, ClipCatalogue.load(tiny))))
    with Image.open(png) as im:
        assert im.format == "PNG" and im.text["Title"].startswith("movement by clips on ")
    assert info["render"] == str(png)
    code, out, _ = run(capsys, "movement", path, "--clips", tiny, "--from", "2.5,2.5,0",
                       "--to", "9.5,2.5,0", "--tolerance", "0.1")
    assert code == 0 and out.startswith(f"found on {path} (grid): {len(info['clips'])} clips")
    assert out.count("stride") == info["clips"].count("stride")


def test_movement_on_meshes(capsys, tiny, wall, tmp_path):
    path, _ = wall
    argv = ["--clips", tiny, "--from", "2.5,2.5,0", "--to", "9.5,2.5,0", "--tolerance", "0.1"]
    on_grid = run_json(capsys, "movement", path, *argv)
    built = run_json(capsys, "movement", path, "--navmesh", *argv)
    mesh = tmp_path / "wall.npz"
    assert main(["navmesh", "build", str(path), "-o", str(mesh)]) == 0
    capsys.readouterr()
    saved = run_json(capsys, "movement", mesh, *argv)
    assert built["world"] == saved["world"] == "navmesh"
    assert built["cost"] == saved["cost"] == pytest.approx(on_grid["cost"])
    room = tmp_path / "room.wkt"
    room.write_text("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")
    info = run_json(capsys, "movement", room, *argv)
    assert info["world"] == "navmesh" and info["status"] == "found"


def test_movement_on_a_generated_map(capsys):
    info = run_json(capsys, "movement", "--generate", "rooms", "--seed", "0", "--from",
                    "7.5,5.5,0", "--to", "9.5,5.5,0", "--end-states", "standing")
    assert info["map"] == "rooms 24x24 seed 0" and info["world"] == "grid"
    assert info["status"] == "found" and info["states"][-1] == "standing"


def test_negative_coordinates_parse(capsys):
    info = run_json(capsys, "movement", "--from", "-1,-2,-90", "--to", "-1,-4,-90")
    assert info["poses"][0] == [-1.0, -2.0, -90.0] and info["position_error"] <= 0.25
    info = run_json(capsys, "footsteps", "--from", "-1,0", "--to", "-2.5,0",
                    "--max-expansions", "200")
    assert info["plans"][0]["from"] == [-1.0, 0.0] and info["plans"][0]["com"][-1][0] < -2


def test_movement_without_a_plan(capsys):
    info = run_json(capsys, "movement", "--from", "0,0,0", "--to", "9,9,0",
                    "--max-expansions", "0")
    assert info["status"] == "out_of_budget" and info["clips"] == [] and info["poses"] == []
    assert info["cost"] is None and info["position_error"] is None
    code, out, _ = run(capsys, "movement", "--from", "0,0,0", "--to", "9,9,0",
                       "--max-expansions", "0")
    assert code == 0 and out.startswith("out_of_budget: no clip sequence on the open plane")


# --- locomotion -----------------------------------------------------------------------------

def test_locomotion_round_a_wall_hits_its_mark(capsys, wall, tmp_path):
    path, grid = wall
    png = tmp_path / "walk.png"
    info = run_json(capsys, "locomotion", path, "--from", "2.5,2.5", "--to", "9.5,2.5",
                    "--facing", "-90", "--render", png)
    want = locomotion_path(NavMesh.build(grid, radius=0.3), (2.5, 2.5), (9.5, 2.5))
    assert info["path_status"] == "found" and np.allclose(info["points"], want.points,
                                                          atol=1e-4)
    assert info["stops"] == want.stops.tolist() and info["corridor"] == len(want.corridor)
    for a, b in itertools.pairwise(info["points"]):       # the path keeps off the wall
        for u in np.linspace(0.0, 1.0, 101):
            x, y = a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1])
            assert grid.is_passable((int(x), int(y)))
    assert info["status"] == "arrived" and info["hits_mark"]
    assert info["miss"] <= 0.1 and abs(wrap_angle(math.radians(info["end"][2] + 90))) \
        <= math.radians(10)
    actions = info["actions"]
    x0, y0 = info["points"][0]
    (x1, y1) = info["points"][1]
    assert actions[0]["start"] == pytest.approx(
        [x0, y0, math.degrees(math.atan2(y1 - y0, x1 - x0))], abs=1e-3)
    for a, b in itertools.pairwise(actions):               # each starts where the last ended
        assert np.allclose(a["end"][:2], b["start"][:2], atol=1e-3)
    assert info["end"] == pytest.approx(actions[-1]["end"], abs=1e-3)
    played = sum(a["duration"] for a in actions)
    assert info["simulated_seconds"] == pytest.approx(played, abs=0.05 + 1e-6)
    assert info["plans"] >= len(info["points"]) - 1
    with Image.open(png) as im:
        assert im.format == "PNG" and im.text["Title"] == f"locomotion on {path}: arrived"
    code, out, _ = run(capsys, "locomotion", path, "--from", "2.5,2.5", "--to", "9.5,2.5")
    assert code == 0 and out.startswith(f"arrived on {path}: {len(want.points) - 1} segments")
    assert "(hits it)" in out and out.count(" transfer ") == sum(a["role"] == "transfer"
                                                                  for a in actions)


def test_locomotion_without_a_path_or_the_time_to_arrive(capsys, tmp_path, wall):
    free = np.ones((8, 12), dtype=bool)
    free[:, 6] = False
    split = tmp_path / "split.map"
    write_map(Grid(free), split)
    info = run_json(capsys, "locomotion", split, "--from", "2.5,2.5", "--to", "9.5,2.5")
    assert info["path_status"] == info["status"] == "failed" and info["end"] is None
    assert info["points"] == [] and info["actions"] == [] and not info["hits_mark"]
    code, out, _ = run(capsys, "locomotion", split, "--from", "2.5,2.5", "--to", "9.5,2.5")
    assert code == 0 and out.startswith(f"no path on {split} from (2.50, 2.50)")
    short = run_json(capsys, "locomotion", wall[0], "--from", "2.5,2.5", "--to", "9.5,2.5",
                     "--max-seconds", "1")
    assert short["status"] in ("moving", "busy") and not short["hits_mark"]
    assert short["simulated_seconds"] == pytest.approx(1.0) and short["miss"] > 1
    code, _, err = run(capsys, "locomotion", wall[0], "--from", "2.5,2.5", "--to", "9.5,2.5",
                       "--max-seconds", "1", "--dt", "1e-300")
    assert code == 2 and "would take 1e+300 steps" in err and len(err.splitlines()) == 1


# --- footsteps ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def head_on(tmp_path_factory) -> tuple[dict, Path]:
    """Two walkers meeting head on, planned by the command line (JSON and GIF)."""
    gif = tmp_path_factory.mktemp("footsteps") / "crowd.gif"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["footsteps", "--from", "0,0", "--to", "4,0", "--from", "4,0.2", "--to",
                     "0,0.2", "--com-every", "0.25", "--render", str(gif), "--json"]) == 0
    return json.loads(out.getvalue()), gif


def test_footsteps_are_the_crowd_planners(head_on):
    info, gif = head_on
    plans = plan_crowd([(0, 0), (4, 0.2)], [(4, 0), (0, 0.2)])
    assert info["mode"] == "priority" and len(info["plans"]) == 2
    for row, plan, goal in zip(info["plans"], plans, [(4, 0), (0, 0.2)]):
        assert row["status"] == str(plan.status) == "found"
        assert row["steps"] == len(plan) and row["cost"] == pytest.approx(plan.cost, abs=1e-3)
        assert np.allclose(row["times"], plan.times, atol=1e-4)
        assert np.allclose(row["feet"], plan.feet, atol=1e-4)
        assert math.dist(row["com"][-1], goal) <= 0.3
        assert row["sides"] == ["right" if s > 0 else "left" for s in plan.sides]
        t = np.array(row["com_samples"])[:, 0]
        assert t[0] == 0 and np.allclose(np.diff(t), 0.25)
        assert t[-1] == pytest.approx(row["times"][-1], abs=0.125)
        assert np.allclose(np.array(row["com_samples"])[:, 1:], plan.trajectory(t)[0],
                           atol=1e-4)
    t = np.arange(0.0, max(p.times[-1] for p in plans) + 0.5, 0.01)
    a, b = (p.body(t) for p in plans)
    gap = np.linalg.norm(a[:, :, None] - b[:, None], axis=-1) \
        - plans[0].model.radii[:, None] - plans[1].model.radii[None]
    assert info["clashes"] == [] and info["least_gap"] == pytest.approx(gap.min(), abs=1e-4)
    assert info["least_gap"] >= 0
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.n_frames > 1


def test_footsteps_text_and_one_walker(capsys):
    code, out, _ = run(capsys, "footsteps", "--from", "0,0", "--to", "2,0")
    assert code == 0 and out.startswith("footsteps for 1 character in priority order: 1 "
                                        "arrived")
    assert "0: found" in out and "towards (2.00, 0.00)" in out and "gap" not in out
    info = run_json(capsys, "footsteps", "--from", "0,0", "--to", "2,0")
    assert info["least_gap"] is None and info["clashes"] == []
    row, = info["plans"]
    assert np.all(np.diff(row["times"]) > 0) and row["waits"] == 0


def test_footsteps_on_a_rolling_horizon(capsys):
    argv = ["footsteps", "--from", "0,0", "--to", "3,0", "--max-expansions", "40"]
    short = run_json(capsys, *argv)
    rolling = run_json(capsys, *argv, "--rolling", "0.5")
    assert short["mode"] == "priority" and short["plans"][0]["status"] == "partial"
    assert rolling["mode"] == "rolling" and rolling["plans"][0]["status"] == "found"
    assert rolling["plans"][0]["expanded"] > 40


# --- motion fit -----------------------------------------------------------------------------

def test_motion_fit_reports_the_libraries_fit_and_its_residuals(capsys, tmp_path):
    model, png = tmp_path / "model.npz", tmp_path / "fit.png"
    info = run_json(capsys, "motion", "fit", "-o", model, "--render", png)
    fit = fit_motion_model(SimulatedController(), rough_min_speed=1.0, rough_max_speed=4.0)
    assert info["fitted"] and info["failures"] == [] and info["runs"] == len(fit.runs)
    assert MotionModel.load(model) == fit.model and info["output"] == str(model)
    assert info["min_speed"] == pytest.approx(fit.model.min_speed, abs=1e-4)
    assert info["max_speed"] == pytest.approx(fit.model.max_speed, abs=1e-4)
    assert np.allclose(info["deceleration"], fit.deceleration.coefficients, atol=1e-6)
    residuals = np.array(info["residuals"])
    assert np.allclose(residuals, fit.deceleration.residuals, atol=1e-6)
    assert (residuals <= 1e-6).all()                  # never above the measured worst case
    assert info["rms"] == pytest.approx(np.sqrt(np.mean(residuals ** 2)), abs=1e-5)
    assert info["max_error"] == pytest.approx(np.abs(residuals).max(), abs=1e-6)
    assert info["overshoot_angles"][0] == 0 and info["overshoot_angles"][-1] == 180
    assert np.allclose(info["overshoot"], fit.model.overshoot, atol=1e-4)
    assert np.allclose(info["radii"], fit.model.radii, atol=1e-4)
    with Image.open(png) as im:
        assert im.format == "PNG"
    code, out, _ = run(capsys, "motion", "fit")
    assert code == 0 and f"rms {fit.deceleration.rms:.4f}" in out
    assert f"speeds {fit.model.min_speed:.3f} to {fit.model.max_speed:.3f} m/s" in out


def test_motion_fit_of_another_controller_against_a_saved_model(capsys, tmp_path):
    model = tmp_path / "model.npz"
    argv = ["motion", "fit", "--samples", "1", "--steps", "3", "--angle-steps", "3"]
    assert run_json(capsys, *argv, "-o", model)["changes"] is None
    same = run_json(capsys, *argv, "--against", model)
    assert same["changes"] == []
    slower = run_json(capsys, *argv, "--max-speed", "5", "--turn-rate", "90", "--against",
                      model)
    assert slower["controller"]["max_speed"] == 5 and slower["controller"]["turn_rate"] == 90
    want = fit_motion_model(
        SimulatedController(params=ControllerParams(max_speed=5, turn_rate=math.pi / 2)),
        rough_min_speed=1.0, rough_max_speed=4.0, steps=3, angle_steps=3,
        settings=SimulationSettings(samples=1))
    assert np.allclose(slower["radii"], want.model.radii, atol=1e-4)
    changed = {c["quantity"] for c in slower["changes"]}
    assert {"max_speed", "rotation_radius"} <= changed
    for c in slower["changes"]:
        assert c["relative"] > 0.05
        assert c["relative"] == pytest.approx(abs(c["new"] - c["old"])
                                              / max(abs(c["old"]), 0.05), abs=1e-3)
    code, out, _ = run(capsys, *argv, "--max-speed", "5", "--against", model)
    assert code == 0 and f"against {model}: " in out and "max_speed: 6 -> 5" in out


def test_motion_fit_help_names_the_controllers_defaults():
    from wayfinding.cli.planning import CONTROLLER

    defaults = ControllerParams()
    assert set(CONTROLLER) == set(defaults.__dataclass_fields__)
    for name, (_, shown) in CONTROLLER.items():
        value = getattr(defaults, name)
        assert shown == pytest.approx(math.degrees(value) if name == "turn_rate" else value)


def test_a_motion_fit_that_fails_says_why(capsys):
    info = run_json(capsys, "motion", "fit", "--min-speed", "1", "--max-speed", "1.05")
    assert not info["fitted"] and info["failures"] == [["speed_range", "narrow_speed_range"]]
    assert info["min_speed"] is None and info["deceleration"] is None and info["radii"] is None
    code, out, _ = run(capsys, "motion", "fit", "--min-speed", "1", "--max-speed", "1.05")
    assert code == 0 and out.startswith("no motion model after") and "narrow_speed_range" in out


# --- bad input ------------------------------------------------------------------------------

CLIP = {"name": "walk", "start_state": "walking", "end_state": "walking", "duration": 1.0,
        "dx": 1.4}


def catalogue(*clips: object, **top: object) -> str:
    return json.dumps({"format": "wayfinding.clips", "version": 1, "clips": list(clips),
                       **top})


@pytest.mark.parametrize("command", ["clips", "movement"])
@pytest.mark.parametrize("text, problem", [
    ("{\"format\": ", "line 1: not JSON"),
    ("[]", "the top level must be a JSON object"),
    (catalogue(CLIP, format="wayfinding.maps"), "format 'wayfinding.maps' must be"),
    (catalogue(), "clips must be a non-empty list"),
    (catalogue({k: v for k, v in CLIP.items() if k != "start_state"}),
     "clips[0] lacks the field 'start_state'"),
    (catalogue(CLIP, {**CLIP, "name": "run", "speed": 4}), "clips[1] has unknown field 'speed'"),
    (catalogue({**CLIP, "duration": -1}), "clips[0]: clip 'walk' duration"),
    (catalogue(CLIP, CLIP), "clip name 'walk' is repeated"),
    (None, "file not found"),
])
def test_a_malformed_clip_file_names_the_file_and_the_problem(capsys, tmp_path, command, text,
                                                              problem):
    path = tmp_path / "bad.json"
    if text is not None:
        path.write_text(text)
    out = tmp_path / "out.json"
    argv = {"clips": ["clips", "--clips", path, "-o", out],
            "movement": ["movement", "--clips", path, "--from", "0,0,0", "--to", "1,0,0"]}
    code, printed, err = run(capsys, *argv[command])
    assert code == 2 and not printed and err.count("\n") == 1
    assert err.startswith(f"wayfinding: error: {path}") and problem in err
    assert not out.exists()


@pytest.mark.parametrize("argv, message", [
    (["movement", "--from", "1,2", "--to", "3,0,0"], "not a pose 'X,Y,HEADING'"),
    (["movement", "--from", "a,b,c", "--to", "3,0,0"], "not a pose 'X,Y,HEADING'"),
    (["movement", "--from", "0,0,0", "--to", "3,0,inf"], "three finite numbers"),
    (["movement", "--from", "0,0,0"], "--to"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--heading-tolerance", "200"],
     "from 0 to 180 degrees"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--heading-resolution", "0"], "> 0"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--penalty", "walk"],
     "not a penalty 'CLIP=SECONDS'"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--penalty", "walk=-1"],
     "the penalty of 'walk'"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--end-states", "walking,,standing"],
     "animation states"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--render", "plan.gif"],
     "not a PNG file"),
    (["movement", "--generate", "rooms", "--size", "4,4", "--from", "0,0,0", "--to", "1,0,0"],
     "from 8 to 4096"),
    (["movement", "--generate", "lake", "--from", "0,0,0", "--to", "1,0,0"], "--generate"),
    (["footsteps", "--from", "1;2", "--to", "3,0"], "not a world point 'X,Y'"),
    (["footsteps", "--render", "crowd.png"], "not a GIF file"),
    (["footsteps", "--com-every", "0"], "> 0"),
    (["footsteps", "--max-expansions", "0"], ">= 1"),
    (["footsteps", "--curve", "spline"], "--curve"),
    (["locomotion", "--from", "1,1"], "--to"),
    (["locomotion", "--from", "1,1", "--to", "2,2", "--heading", "inf"], "finite number"),
    (["locomotion", "--from", "1,1", "--to", "2,2", "--sharp-turn", "181"],
     "from 0 to 180 degrees"),
    (["locomotion", "--from", "1,1", "--to", "2,2", "--dt", "0"], "> 0"),
    (["locomotion", "--from", "1,1", "--to", "2,2", "--render", "walk.svg"], "not a PNG file"),
    (["motion", "fit", "--steps", "1"], "must be an integer >= 2"),
    (["motion", "fit", "--render", "fit.svg"], "not a PNG file"),
    (["motion", "fit", "--max-speed", "-1"], "--max-speed"),
    (["motion"], "motion_command"),
])
def test_values_refused_while_parsing(capsys, argv, message):
    with pytest.raises(SystemExit) as refused:
        main(argv)
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--start-state", "flying"],
     "unknown start_state 'flying'"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--end-states", "flying"],
     "end_states"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--penalty", "fly=1"],
     "unknown clip 'fly'"),
    (["movement", "{wall}", "--from", "6.5,2.5,0", "--to", "1.5,1.5,0"],
     "start (6.5, 2.5) is off the walkable area"),
    (["movement", "{wall}", "--generate", "rooms", "--from", "1.5,1.5,0", "--to", "2,2,0"],
     "not both"),
    (["movement", "--navmesh", "--from", "0,0,0", "--to", "1,0,0"],
     "movement needs a map for its navigation mesh"),
    (["locomotion", "--from", "1,1", "--to", "2,2"],
     "locomotion needs a map for its navigation mesh"),
    (["locomotion", "{wall}", "--from", "2.5,2.5", "--to", "9.5,2.5", "--start-state",
      "flying"], "unknown animation state 'flying'"),
    (["locomotion", "{wall}", "--from", "2.5,2.5", "--to", "9.5,2.5", "--clips",
      "{dir}/none.json"], "none.json: file not found"),
    (["movement", "{dir}/world.txt", "--from", "0,0,0", "--to", "1,0,0"],
     "unknown input type '.txt'"),
    (["movement", "--from", "0,0,0", "--to", "1,0,0", "--render", "{dir}/none/plan.png"],
     "plan.png"),
    (["footsteps", "--from", "0,0", "--to", "1,0", "--from", "2,2"],
     "2 --from and 1 --to: give one of each per character"),
    (["footsteps", "--to", "1,0"], "0 --from and 1 --to"),
    (["footsteps", "--rolling", "0.5", "--no-repair"], "--no-repair"),
    (["footsteps", "--epsilon", "0.5"], "epsilon 0.5 must be a finite number >= 1"),
    (["footsteps", "--com-every", "1e-12", "--json"], "--com-every samples would need"),
    (["motion", "fit", "--min-speed", "0"], "min_speed 0"),
    (["motion", "fit", "--jitter", "1"], "jitter 1"),
    (["motion", "fit", "--rough-min", "4", "--rough-max", "1"], "rough_max_speed 1"),
    (["motion", "fit", "--against", "{dir}/old.npz"], "old.npz"),
    (["motion", "fit", "--min-speed", "1", "--max-speed", "1.05", "--render", "{dir}/f.png"],
     "no deceleration fit"),
])
def test_values_refused_by_the_library(capsys, tmp_path, wall, argv, message):
    argv = [a.format(wall=wall[0], dir=tmp_path) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert err.startswith("wayfinding: error: ") and message in err and err.count("\n") == 1
