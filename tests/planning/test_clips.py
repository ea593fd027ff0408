"""Animation clips and their catalogue: root motion in the character's frame, arcs and their
curvature, the state graph, JSON round trips and the errors on bad files and arguments."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from wayfinding.errors import FileFormatError, InvalidQueryError
from wayfinding.planning.clips import Clip, ClipCatalogue, default_clips, local_to_world


def arc_clip(length: float, rotation: float) -> Clip:
    r = length / abs(rotation)
    return Clip("arc", "walking", "walking", duration=1.0, dx=r * math.sin(abs(rotation)),
                dy=math.copysign(r * (1 - math.cos(rotation)), rotation), rotation=rotation)


@pytest.mark.parametrize("heading", [0.0, 0.7, -2.0, math.pi])
def test_end_pose_turns_the_root_motion_by_the_start_heading(heading):
    clip = Clip("step", "s", "s", duration=1.0, dx=2.0, dy=0.5, rotation=0.3)
    x, y, h = clip.end_pose((1.0, -1.0, heading))
    c, s = math.cos(heading), math.sin(heading)
    assert x == pytest.approx(1.0 + 2.0 * c - 0.5 * s)
    assert y == pytest.approx(-1.0 + 2.0 * s + 0.5 * c)
    assert h == pytest.approx(heading + 0.3)


@pytest.mark.parametrize("rotation", [0.2, -0.2, 1.5, -3.0])
def test_an_arc_clip_has_its_curvature_and_arc_length(rotation):
    clip = arc_clip(2.0, rotation)
    assert clip.curvature == pytest.approx(rotation / 2.0)
    assert clip.length == pytest.approx(2.0)
    assert clip.speed == pytest.approx(2.0)


@pytest.mark.parametrize("clip", [
    Clip("turn", "s", "s", duration=1.0, rotation=1.0),            # on the spot
    Clip("side", "s", "s", duration=1.0, dy=0.5),            # sidestep
    Clip("back", "s", "s", duration=1.0, dx=-1.0),            # step back
    Clip("skew", "s", "s", duration=1.0, dx=1.0, dy=0.3, rotation=0.1),            # off the arc
    Clip("idle", "s", "s", duration=1.0),
    Clip("loop", "s", "s", duration=1.0, dx=math.sin(4.0), dy=1 - math.cos(4.0),
         rotation=4.0),                              # an arc beyond half a turn
])
def test_motion_off_a_forward_arc_has_unbounded_curvature(clip):
    assert clip.curvature is None
    assert clip.length == pytest.approx(math.hypot(clip.dx, clip.dy))


def test_a_straight_forward_clip_has_zero_curvature():
    assert Clip("walk", "w", "w", duration=1.0, dx=1.4).curvature == 0.0


@pytest.mark.parametrize("clip", [arc_clip(2.0, 1.2), arc_clip(3.0, -0.4),
                                  Clip("side", "s", "s", duration=1.0, dy=0.5),
                                  Clip("turn", "s", "s", duration=1.0, rotation=2.0)])
def test_root_path_runs_from_start_to_end_pose_in_small_steps(clip):
    start = (3.0, 4.0, 0.8)
    path = clip.root_path(start, 0.1)
    np.testing.assert_allclose(path[0], start)
    np.testing.assert_allclose(path[-1], clip.end_pose(start), atol=1e-12)
    gaps = np.hypot(*np.diff(path[:, :2], axis=0).T)
    assert gaps.max() <= 0.1 + 1e-12
    assert np.abs(np.diff(path[:, 2])).max() <= math.pi / 12 + 1e-12
    assert gaps.sum() == pytest.approx(clip.length, rel=1e-2)


def test_an_arc_root_path_keeps_its_distance_to_the_turning_centre():
    clip = arc_clip(2.0, 1.0)
    path = clip.root_path((0.0, 0.0, 0.0), 0.05)
    radius = 1.0 / clip.curvature
    np.testing.assert_allclose(np.hypot(path[:, 0], path[:, 1] - radius), radius)


def test_default_catalogue_forms_the_state_graph():
    clips = default_clips()
    assert clips.states == {"standing", "walking", "running"}
    for name, clip in clips.items():
        for nxt in clips.successors(name):
            assert nxt.start_state == clip.end_state
    starts = {c.name for c in clips.following("standing")}
    assert {"stand", "stand_to_walk", "turn_left_90", "sidestep_left"} <= starts
    assert "walk" not in starts
    assert clips.max_speed == pytest.approx(max(c.length / c.duration for c in clips.values()))
    assert clips.max_curvature == math.inf


def test_default_arcs_travel_the_same_distance_as_the_straight_clips():
    clips = default_clips()
    assert clips["walk_turn_left_30"].length == pytest.approx(clips["walk"].length)
    assert clips["walk_turn_right_30"].curvature == pytest.approx(
        -clips["walk_turn_left_30"].curvature)
    assert clips["run_turn_left_15"].speed == pytest.approx(clips["run"].speed)


def test_max_curvature_is_finite_when_every_clip_is_an_arc():
    clips = ClipCatalogue([arc_clip(2.0, 0.5),
                           Clip("walk", "walking", "walking", duration=1.0, dx=1.0)])
    assert clips.max_curvature == pytest.approx(0.25)


@pytest.mark.parametrize("others, kappa", [
    ([arc_clip(2.0, -0.8)], 0.4),
    ([Clip("walk", "w", "w", duration=1.0, dx=1.0)], 0.0),
    ([], 0.0),
])
def test_standing_still_does_not_count_toward_the_largest_curvature(others, kappa):
    idle = Clip("idle", "s", "s", duration=0.5)
    assert ClipCatalogue([idle, *others]).max_curvature == pytest.approx(kappa)


@pytest.mark.parametrize("clip", [
    Clip("turn", "s", "s", duration=1.0, rotation=-0.3),           # on the spot
    Clip("side", "s", "s", duration=1.0, dy=0.5),                  # sidestep
    Clip("back", "s", "s", duration=1.0, dx=-1.0),                 # step back
    Clip("skew", "s", "s", duration=1.0, dx=1.0, dy=0.3, rotation=0.1),
])
def test_one_clip_off_a_forward_arc_unbounds_the_curvature(clip):
    clips = ClipCatalogue([arc_clip(2.0, 0.5), Clip("idle", "s", "s", duration=0.5), clip])
    assert clips.max_curvature == math.inf


def test_catalogue_round_trips_through_a_file(tmp_path):
    clips = default_clips()
    path = clips.save(tmp_path / "clips.json")
    assert ClipCatalogue.load(path) == clips
    assert list(ClipCatalogue.load(path)) == list(clips)
    assert json.loads(path.read_text())["format"] == "wayfinding.clips"


def test_optional_fields_default_to_zero(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"format": "wayfinding.clips", "version": 1, "clips": [
        {"name": "walk", "duration": 1, "dx": 1.4, "start_state": "w", "end_state": "w"}]}))
    clip = ClipCatalogue.load(path)["walk"]
    assert (clip.dy, clip.rotation, clip.start_speed, clip.end_speed) == (0, 0, 0, 0)


GOOD = {"name": "walk", "duration": 1.0, "dx": 1.4, "start_state": "w", "end_state": "w"}


@pytest.mark.parametrize("doc, message", [
    ("{", "not JSON"),
    ("[" * 100_000 + "]" * 100_000, "nested deeper than JSON is read"),
    ("[]", "top level"),
    ({"format": "other", "version": 1, "clips": [GOOD]}, "format"),
    ({"format": "wayfinding.clips", "version": 2, "clips": [GOOD]}, "version 2"),
    ({"format": "wayfinding.clips", "version": True, "clips": [GOOD]}, "version True"),
    ({"format": "wayfinding.clips", "version": 1, "clips": []}, "clips must be"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [3]}, "clips[0] must be"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [{**GOOD, "duration": 0}]},
     "clips[0]: clip 'walk' duration"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [{**GOOD, "dx": "far"}]},
     "clips[0]: clip 'walk' dx"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [{**GOOD, "dy": None}]},
     "clips[0]: clip 'walk' dy"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [{**GOOD, "rotation": 9}]},
     "clips[0]: clip 'walk' rotation"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [{**GOOD, "end_speed": -1}]},
     "clips[0]: clip 'walk' end_speed"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [{**GOOD, "name": ""}]},
     "clips[0]: clip name ''"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [{**GOOD, "start_state": 1}]},
     "clips[0]: clip 'walk' start_state"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [{**GOOD, "speed": 1}]},
     "unknown field 'speed'"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [
        {k: v for k, v in GOOD.items() if k != "duration"}]},
     "clips[0] lacks the field 'duration'"),
    ({"format": "wayfinding.clips", "version": 1, "clips": [GOOD, GOOD]},
     "clips: clip name 'walk' is repeated"),
])
def test_bad_files_name_the_file_and_the_field(tmp_path, doc, message):
    path = tmp_path / "bad.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    with pytest.raises(FileFormatError, match="bad.json") as info:
        ClipCatalogue.load(path)
    assert message in str(info.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(FileFormatError, match="nothing.json.*not found"):
        ClipCatalogue.load(tmp_path / "nothing.json")


def test_a_failed_save_leaves_the_old_file(tmp_path, monkeypatch):
    path = default_clips().save(tmp_path / "c.json")
    before = path.read_text()
    monkeypatch.setattr("os.fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "disk")))
    with pytest.raises(OSError):
        ClipCatalogue([Clip("x", "s", "s", duration=1.0)]).save(path)
    assert path.read_text() == before


@pytest.mark.parametrize("kwargs, message", [
    ({"duration": 0.0}, "duration 0.0 must be"),
    ({"duration": math.nan}, "duration nan"),
    ({"dx": math.inf}, "dx inf"),
    ({"dy": True}, "dy True"),
    ({"rotation": 7.0}, "rotation 7.0"),
    ({"start_speed": -0.1}, "start_speed -0.1"),
    ({"end_state": ""}, "end_state ''"),
    ({"start_state": 3}, "start_state 3"),
    ({"name": None}, "clip name None"),
])
def test_bad_clip_fields_are_refused(kwargs, message):
    args = {"name": "c", "start_state": "s", "end_state": "s", "duration": 1.0, "dx": 1.0,
            **kwargs}
    with pytest.raises(InvalidQueryError) as info:
        Clip(**args)
    assert message in str(info.value)


def test_bad_catalogues_and_queries_are_refused():
    with pytest.raises(InvalidQueryError, match="at least one"):
        ClipCatalogue([])
    with pytest.raises(InvalidQueryError, match="must be a Clip"):
        ClipCatalogue(["walk"])
    with pytest.raises(InvalidQueryError, match="repeated"):
        ClipCatalogue([Clip("a", "s", "s", duration=1.0),
                       Clip("a", "s", "s", duration=2.0)])
    clips = default_clips()
    with pytest.raises(InvalidQueryError, match="unknown animation state 'flying'"):
        clips.following("flying")
    with pytest.raises(InvalidQueryError, match=r"unknown animation state \['standing'\]"):
        clips.following(["standing"])
    with pytest.raises(InvalidQueryError, match=r"unknown clip \['walk'\]"):
        clips.successors(["walk"])
    with pytest.raises(InvalidQueryError, match="unknown clip 'fly'"):
        clips.successors("fly")
    with pytest.raises(InvalidQueryError, match="pose"):
        clips["walk"].end_pose((0.0, math.nan, 0.0))
    with pytest.raises(InvalidQueryError, match="step"):
        clips["walk"].root_path((0.0, 0.0, 0.0), 0.0)


def test_local_to_world_turns_offsets_by_the_heading_and_broadcasts():
    pose = (1.0, 2.0, math.pi / 2)
    x, y = local_to_world(pose, 3.0, 1.0)
    assert (x, y) == pytest.approx((0.0, 5.0))
    xs, ys = local_to_world(pose, np.array([0.0, 1.0]), np.zeros(2))
    assert np.allclose(xs, [1.0, 1.0]) and np.allclose(ys, [2.0, 3.0])
    walk = default_clips()["walk"]
    assert walk.end_pose(pose)[:2] == pytest.approx(local_to_world(pose, walk.dx, walk.dy))
