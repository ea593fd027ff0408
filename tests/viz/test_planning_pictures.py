"""Pictures of planning with the body: each draws what it names (found by its colours in the
pixels), over a navigation mesh, a grid or the open plane, and refuses bad inputs."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.navmesh import NavMesh
from wayfinding.planning import (
    LocomotionPlanner,
    MotionModelFit,
    SimulatedController,
    default_clips,
    fit_motion_model,
    locomotion_path,
    plan_footsteps,
    plan_movement,
    process_path,
)
from wayfinding.viz.planning import (
    COLOURS,
    animate_footsteps,
    render_deceleration_png,
    render_locomotion_png,
    render_movement_png,
)
from wayfinding.viz.raster import rgb

Image = pytest.importorskip("PIL.Image")


def pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as im:
        assert im.format == "PNG"
        return np.asarray(im.convert("RGB"))


def share(img: np.ndarray, colour: str) -> float:
    return float((img == rgb(colour)).all(axis=2).mean())


def clip_colour(name: str) -> str:
    return COLOURS["clips"][list(default_clips()).index(name) % len(COLOURS["clips"])]


@pytest.fixture(scope="module")
def walk():
    return plan_movement(None, default_clips(), (0, 0, 0), (6, 0, 0), position_tolerance=0.5,
                         end_states={"standing"})


def test_a_movement_plan_is_coloured_by_clip_with_its_goal(walk):
    img = pixels(render_movement_png(None, walk, default_clips(), goal=(6, 0, 0),
                                     position_tolerance=0.5, size=300))
    assert max(img.shape[:2]) == 300
    for name in set(walk.clips):
        assert share(img, clip_colour(name)) > 0, name
    unused = next(n for n in default_clips() if n not in walk.clips
                  and clip_colour(n) not in map(clip_colour, walk.clips))
    assert share(img, clip_colour(unused)) == 0
    assert share(img, COLOURS["goal"]) > 0
    bare = pixels(render_movement_png(None, walk, default_clips(), size=300))
    assert share(bare, COLOURS["goal"]) == 0


@pytest.mark.parametrize("world", ["grid", "navmesh"])
def test_the_world_is_drawn_walkable_and_walled(world):
    area = Grid(np.ones((4, 10), dtype=bool), cell_size=1.0) if world == "grid" else \
        NavMesh.build(outline=[(0, 0), (10, 0), (10, 4), (0, 4)])
    plan = plan_movement(area, default_clips(), (1, 2, 0), (8, 2, 0), position_tolerance=0.5)
    img = pixels(render_movement_png(area, plan, default_clips(), title="hall"))
    assert share(img, COLOURS["free"]) > 0.3 and share(img, COLOURS["blocked"]) > 0.01
    with Image.open(io.BytesIO(render_movement_png(area, plan, default_clips(),
                                                   title="hall"))) as im:
        assert im.text["Title"] == "hall"


def test_movement_pictures_refuse_bad_inputs(walk):
    clips = default_clips()
    with pytest.raises(InvalidQueryError, match="MovementPlan"):
        render_movement_png(None, "plan", clips)
    with pytest.raises(InvalidQueryError, match="ClipCatalogue"):
        render_movement_png(None, walk, list(clips.clips))
    with pytest.raises(InvalidQueryError, match="does not hold"):
        other = type(clips)([c for c in clips.clips if c.name != walk.clips[-1]])
        render_movement_png(None, walk, other)
    with pytest.raises(InvalidQueryError, match="world"):
        render_movement_png("world", walk, clips)
    with pytest.raises(InvalidQueryError, match="goal"):
        render_movement_png(None, walk, clips, goal=(1, 2))
    with pytest.raises(InvalidQueryError, match="size"):
        render_movement_png(None, walk, clips, size=10)
    with pytest.raises(InvalidQueryError, match="title"):
        render_movement_png(None, walk, clips, title=3)
    with pytest.raises(InvalidQueryError, match="position_tolerance"):
        render_movement_png(None, walk, clips, position_tolerance=-1)


def hall() -> NavMesh:
    return NavMesh.build(outline=[(0, 0), (20, 0), (20, 12), (0, 12)],
                         holes=[[(8, 2), (12, 2), (12, 10), (8, 10)]])


def test_a_locomotion_plan_shows_its_corridor_points_and_actions():
    mesh = hall()
    path = locomotion_path(mesh, (2, 6), (18, 6))
    stack = LocomotionPlanner(default_clips()).plan(path, "standing", (2.0, 6.0, 0.0))
    img = pixels(render_locomotion_png(mesh, path, actions=stack.actions,
                                       raw=mesh.find_path((2, 6), (18, 6)).path,
                                       track=path.points))
    assert share(img, COLOURS["corridor"]) > 0.05
    for role in {a.role for a in stack.actions}:
        assert share(img, COLOURS["roles"][role]) > 0, role
    assert share(img, COLOURS["stop"]) == 0            # no fail-safe stop on this path
    plain = pixels(render_locomotion_png(mesh, path))
    for role in {a.role for a in stack.actions}:
        assert share(plain, COLOURS["roles"][role]) == 0


def test_fail_safe_stops_are_marked():
    zigzag = [(0, 0), (5, 0), (5, 1.2), (10, 1.2)]     # opposite turns 1.2 m apart

    def corridor(half: float) -> NavMesh:               # stepping up at x = 5
        return NavMesh.build(outline=[(-1, -half), (5 + half, -half), (5 + half, 1.2 - half),
                                      (11, 1.2 - half), (11, 1.2 + half),
                                      (5 - half, 1.2 + half), (5 - half, half), (-1, half)])

    narrow, wide = corridor(0.3), corridor(1.0)
    stopping = process_path(zigzag, mesh=narrow, turn_space=2.0)
    pushed = process_path(zigzag, mesh=wide, turn_space=2.0)
    assert stopping.stops.any() and not pushed.stops.any()
    assert share(pixels(render_locomotion_png(narrow, stopping)), COLOURS["stop"]) > 0
    assert share(pixels(render_locomotion_png(wide, pushed)), COLOURS["stop"]) == 0


def test_locomotion_pictures_refuse_bad_inputs():
    mesh = hall()
    path = locomotion_path(mesh, (2, 6), (18, 6))
    with pytest.raises(InvalidQueryError, match="NavMesh"):
        render_locomotion_png(Grid(np.ones((3, 3), dtype=bool)), path)
    with pytest.raises(InvalidQueryError, match="LocomotionPath"):
        render_locomotion_png(mesh, path.points)
    with pytest.raises(InvalidQueryError, match="Action"):
        render_locomotion_png(mesh, path, actions=["walk"])
    with pytest.raises(InvalidQueryError, match="raw"):
        render_locomotion_png(mesh, path, raw=[(0, math.nan)])
    with pytest.raises(InvalidQueryError, match="track"):
        render_locomotion_png(mesh, path, track=[(0, 1, 2)])


@pytest.fixture(scope="module")
def pair():
    first = plan_footsteps((0.0, 0.0), (2.0, 0.0), velocity=(1.0, 0.0), max_expansions=200)
    second = plan_footsteps((0.0, 2.0), (2.0, 2.0), velocity=(1.0, 0.0), others=[first],
                            max_expansions=200)
    assert len(first) >= 2 and len(second) >= 2
    return [first, second]


def test_a_footstep_crowd_lands_its_feet_over_time(tmp_path, pair):
    out = animate_footsteps(tmp_path / "steps.gif", pair, size=240, frames=15)
    with Image.open(out) as gif:
        assert gif.format == "GIF" and gif.n_frames == 15 and gif.size[0] == 240
        counts = []
        for k in (0, gif.n_frames - 1):
            gif.seek(k)
            img = np.asarray(gif.convert("RGB"))
            counts.append([int((img == rgb(COLOURS[side])).all(axis=2).sum())
                           for side in ("left", "right")])
    (left0, right0), (left1, right1) = counts
    assert left1 > left0 and right1 > right0 > 0 or right1 > right0 and left1 > left0 > 0


def test_footstep_animations_refuse_bad_inputs(tmp_path, pair):
    with pytest.raises(InvalidQueryError, match="GIF"):
        animate_footsteps(tmp_path / "steps.png", pair)
    with pytest.raises(InvalidQueryError, match="no footstep plan"):
        animate_footsteps(tmp_path / "steps.gif", [])
    with pytest.raises(InvalidQueryError, match="FootstepPlan"):
        animate_footsteps(tmp_path / "steps.gif", [pair[0], "walker"])
    with pytest.raises(InvalidQueryError, match="frames"):
        animate_footsteps(tmp_path / "steps.gif", pair, frames=0)
    with pytest.raises(InvalidQueryError, match="fps"):
        animate_footsteps(tmp_path / "steps.gif", pair, fps=-1)
    assert not list(tmp_path.iterdir())


def test_the_deceleration_fit_is_drawn_over_the_measured_losses():
    fit = fit_motion_model(SimulatedController(), rough_min_speed=1.0, rough_max_speed=4.0)
    img = pixels(render_deceleration_png(fit, size=400))
    assert img.shape[1] == 400
    assert share(img, COLOURS["fit"]) > 0 and share(img, COLOURS["measured"]) > 0
    with pytest.raises(InvalidQueryError, match="MotionModelFit"):
        render_deceleration_png(fit.deceleration)
    with pytest.raises(InvalidQueryError, match="no deceleration"):
        render_deceleration_png(MotionModelFit(None, None, (("speed_range", "none"),), ()))
    with pytest.raises(InvalidQueryError, match="size"):
        render_deceleration_png(fit, size=8)
