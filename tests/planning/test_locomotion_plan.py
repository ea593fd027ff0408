"""The locomotion action-stack planner: backward construction, space fitting, missing clips
decomposed and re-planned, the fail-safe, look-ahead over the path, and hitting the mark."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError
from wayfinding.planning.clips import Clip, ClipCatalogue, default_clips
from wayfinding.planning.locomotion import process_path
from wayfinding.planning.locomotion_plan import ActionStack, LocomotionPlanner, hits_mark
from wayfinding.results import Status

ST, RN, CR = "standing", "running", "crouching"


def directional_starts() -> list[Clip]:
    """Eight stand-to-run starts, each setting off 2 m toward its own direction."""
    out = []
    for k in range(8):
        a = math.radians(45 * k - 360 if k > 4 else 45 * k)
        out.append(Clip(f"start_run_{round(math.degrees(a))}", ST, RN, duration=0.7,
                        dx=2.0 * math.cos(a), dy=2.0 * math.sin(a), rotation=a, end_speed=4))
    return out


def library(*, starts: bool = True, crouch_start: bool = False) -> ClipCatalogue:
    clips = [
        Clip("idle", ST, ST, duration=1.0),
        Clip("step_1_5", ST, ST, duration=1.2, dx=1.5),
        Clip("turn_left_90", ST, ST, duration=0.9, rotation=math.pi / 2),
        Clip("turn_right_90", ST, ST, duration=0.9, rotation=-math.pi / 2),
        Clip("turn_left_45", ST, ST, duration=0.6, rotation=math.pi / 4),
        Clip("turn_right_45", ST, ST, duration=0.6, rotation=-math.pi / 4),
        Clip("run", RN, RN, duration=0.5, dx=2.0, start_speed=4, end_speed=4),
        Clip("stop_run", RN, ST, duration=0.6, dx=1.5, start_speed=4),
        Clip("crouch_to_stand", CR, ST, duration=0.5),
        Clip("stand_to_crouch", ST, CR, duration=0.5),
    ]
    if starts:
        clips.append(Clip("start_run", ST, RN, duration=0.7, dx=2.0, end_speed=4))
    if crouch_start:
        clips.append(Clip("crouch_to_run", CR, RN, duration=0.7, dx=2.0, end_speed=4))
    return ClipCatalogue(clips)


def names(stack: ActionStack) -> list[str]:
    return [a.clip.name for a in stack.actions]


def assert_hits(planner: LocomotionPlanner, stack: ActionStack, pose: tuple, target: tuple,
                facing: float | None = None) -> None:
    assert stack.found
    end = stack.end_pose(pose)
    assert hits_mark(end, target, facing=facing, position_tolerance=planner.position_tolerance,
                     facing_tolerance=planner.facing_tolerance), (end, names(stack))
    assert np.allclose(end, stack.actions[-1].end)
    for a, b in zip(stack.actions[:-1], stack.actions[1:]):
        assert np.allclose(a.end, b.start)


def test_a_stop_is_chosen_first_and_played_last() -> None:
    planner = LocomotionPlanner(library())
    stack = planner.plan_segment(ST, (0, 0, 0), (20, 0), facing=0.0)
    assert names(stack) == ["start_run", "run", "stop_run"]
    assert [a.role for a in stack.actions] == ["pre_transfer", "transfer", "post_transfer"]
    run = stack.actions[1]
    assert run.loops == pytest.approx((20 - 2.0 - 1.5) / 2.0)
    assert stack.state == ST and stack.replanned == 0 and not stack.fail_safe
    assert stack.duration == pytest.approx(0.7 + 16.5 / 4 + 0.6)
    assert_hits(planner, stack, (0, 0, 0), (20, 0), 0.0)


def test_a_segment_too_short_for_start_and_stop_takes_the_step_clip() -> None:
    planner = LocomotionPlanner(library())
    stack = planner.plan_segment(ST, (0, 0, 0), (1.5, 0), facing=0.0)
    assert names(stack) == ["step_1_5"] and stack.actions[0].role == "direct"
    assert_hits(planner, stack, (0, 0, 0), (1.5, 0), 0.0)


def test_a_slightly_off_target_is_reached_by_twisting_the_clips() -> None:
    planner = LocomotionPlanner(library())
    target = (20 * math.cos(0.1), 20 * math.sin(0.1))
    stack = planner.plan_segment(ST, (0, 0, 0), target)
    assert names(stack) == ["start_run", "run", "stop_run"]
    assert 0 < stack.actions[0].twist <= planner.max_twist
    assert_hits(planner, stack, (0, 0, 0), target)


def test_crouching_without_a_crouch_start_stands_up_and_plans_again() -> None:
    catalogue = ClipCatalogue([*library(starts=False).clips, *directional_starts()])
    planner = LocomotionPlanner(catalogue)
    a = math.radians(100)
    target = (20 * math.cos(a), 20 * math.sin(a))
    stack = planner.plan_segment(CR, (0, 0, 0), target)
    # the start closest to the required heading (90 degrees), twisted by about 10 more
    assert names(stack) == ["crouch_to_stand", "start_run_90", "run", "stop_run"]
    assert stack.replanned == 1 and stack.actions[0].role == "stance"
    assert_hits(planner, stack, (0, 0, 0), target)


def test_a_crouch_start_needs_no_decomposition() -> None:
    planner = LocomotionPlanner(library(crouch_start=True))
    stack = planner.plan_segment(CR, (0, 0, 0), (20, 0))
    assert names(stack) == ["crouch_to_run", "run", "stop_run"] and stack.replanned == 0


def test_a_facing_no_stop_meets_is_fixed_by_turning_after_arrival() -> None:
    planner = LocomotionPlanner(library())
    stack = planner.plan_segment(ST, (0, 0, 0), (20, 0), facing=math.pi / 2)
    assert names(stack) == ["start_run", "run", "stop_run", "turn_left_90"]
    assert_hits(planner, stack, (0, 0, 0), (20, 0), math.pi / 2)


def test_the_fail_safe_turns_and_steps_to_the_goal() -> None:
    catalogue = ClipCatalogue([Clip("turn_left_90", ST, ST, duration=0.9, rotation=math.pi / 2),
                               Clip("turn_right_90", ST, ST, duration=0.9,
                                    rotation=-math.pi / 2),
                               Clip("step", ST, ST, duration=0.8, dx=0.7)])
    planner = LocomotionPlanner(catalogue)
    stack = planner.plan_segment(ST, (0, 0, 0), (0, 5), facing=math.pi)
    assert stack.fail_safe and stack.found
    assert names(stack)[0] == "turn_left_90" and names(stack)[-1] == "turn_left_90"
    assert set(names(stack)[1:-1]) == {"step"}
    assert_hits(planner, stack, (0, 0, 0), (0, 5), math.pi)


def test_turns_on_the_spot_are_the_quickest_that_land_within_the_tolerance() -> None:
    # 122.7 degrees: a 90 twisted to 105 leaves 17.7, which no turn twisted by 15 meets,
    # but two 45s twisted to 60 each land 2.7 short
    planner = LocomotionPlanner(library())
    target = (4 * math.cos(1.0), 4 * math.sin(1.0))
    stack = planner.plan_segment(ST, (0, 0, 0), target, facing=math.pi)
    assert names(stack)[-2:] == ["turn_left_45", "turn_left_45"]
    assert all(abs(a.twist) <= planner.max_twist + 1e-12 for a in stack.actions)
    assert_hits(planner, stack, (0, 0, 0), target, math.pi)
    only_90 = ClipCatalogue([Clip("turn_left_90", ST, ST, duration=0.9, rotation=math.pi / 2),
                             Clip("step", ST, ST, duration=0.8, dx=0.7)])
    # left turns only: a quarter turn to the right is three to the left
    right = LocomotionPlanner(only_90).plan_segment(ST, (0, 0, 0), (0, -2.1))
    assert right.fail_safe and names(right)[:3] == ["turn_left_90"] * 3
    assert_hits(LocomotionPlanner(only_90), right, (0, 0, 0), (0, -2.1))
    # no twist and only quarter turns: an eighth of a turn cannot be met
    stiff = LocomotionPlanner(only_90, max_twist=0.0)
    assert not stiff.plan_segment(ST, (0, 0, 0), (0, 0), facing=math.pi / 4).found


def test_no_way_at_all_is_a_failed_stack() -> None:
    catalogue = ClipCatalogue([Clip("idle", ST, ST, duration=1.0)])
    stack = LocomotionPlanner(catalogue).plan_segment(ST, (0, 0, 0), (5, 0))
    assert stack.status is Status.FAILED and not stack.found and stack.actions == ()


def test_avoided_states_are_not_entered() -> None:
    planner = LocomotionPlanner(library())
    stack = planner.plan_segment(ST, (0, 0, 0), (6, 0), facing=0.0, avoid=[RN])
    assert RN not in {a.clip.end_state for a in stack.actions}
    assert stack.fail_safe and set(names(stack)) == {"step_1_5"}
    assert_hits(planner, stack, (0, 0, 0), (6, 0), 0.0)


def test_passing_through_ends_moving() -> None:
    planner = LocomotionPlanner(library())
    stack = planner.plan_segment(ST, (0, 0, 0), (10, 0), through=True)
    assert names(stack) == ["start_run", "run"] and stack.state == RN
    assert_hits(planner, stack, (0, 0, 0), (10, 0))
    moving = planner.plan_segment(RN, (10, 0, 0), (20, 1.0), facing=None)
    assert names(moving) == ["run", "stop_run"] and abs(moving.actions[0].twist) > 0
    assert_hits(planner, moving, (10, 0, 0), (20, 1.0))


def test_the_default_catalogue_runs_twenty_metres() -> None:
    planner = LocomotionPlanner(default_clips())
    stack = planner.plan_segment(ST, (0, 0, 0), (20, 0), facing=0.0)
    assert names(stack) == ["stand_to_walk", "walk_to_run", "run", "run_to_walk",
                            "walk_to_stand"]
    assert_hits(planner, stack, (0, 0, 0), (20, 0), 0.0)


def test_look_ahead_runs_through_a_gentle_bend_and_stops_at_a_sharp_turn() -> None:
    planner = LocomotionPlanner(library())
    gentle = process_path([(0, 0), (10, 0), (20, 1.0)])
    stack = planner.plan(gentle, ST, (0, 0, 0))
    assert stack.state == RN and names(stack) == ["start_run", "run"]
    sharp = process_path([(0, 0), (10, 0), (10, 10)])
    stack = planner.plan(sharp, ST, (0, 0, 0))
    assert stack.state == ST and names(stack) == ["start_run", "run", "stop_run",
                                                  "turn_left_90"]
    assert_hits(planner, stack, (0, 0, 0), (10, 0), math.pi / 2)


def test_look_ahead_stops_at_a_fail_safe_stop_and_at_the_goal() -> None:
    planner = LocomotionPlanner(library())
    path = process_path([(0, 0), (10, 0), (20, 1.0)])
    path.stops[1] = True
    assert planner.plan(path, ST, (0, 0, 0)).state == ST
    goal = process_path([(0, 0), (10, 0)])
    stack = planner.plan(goal, ST, (0, 0, 0), facing=0.0)
    assert stack.state == ST and names(stack) == ["start_run", "run", "stop_run"]


def test_a_short_next_segment_makes_the_character_stop() -> None:
    # passing (10, 0) running leaves 1.2 m: too short for any stop, so it stops at (10, 0)
    planner = LocomotionPlanner(library(), look_ahead=2)
    path = process_path([(0, 0), (10, 0), (11.2, 0)], min_segment=0.0)
    assert planner.plan(path, ST, (0, 0, 0)).state == ST
    one = LocomotionPlanner(library(), look_ahead=1)
    assert one.plan(path, ST, (0, 0, 0)).state == RN


@settings(max_examples=40, deadline=None)
@given(st.floats(0.5, 30.0), st.floats(-math.pi, math.pi),
       st.sampled_from([None, 0.0, math.pi / 2, math.pi, -math.pi / 2]))
@example(4.0, 1.0, math.pi)     # 122.7 degrees to turn after arriving: two 45s, not a 90 and more
def test_plans_hit_the_mark(distance: float, bearing: float, facing: float | None) -> None:
    planner = LocomotionPlanner(library())
    target = (distance * math.cos(bearing), distance * math.sin(bearing))
    stack = planner.plan_segment(ST, (0, 0, 0), target, facing=facing)
    # the library reaches every mark 3.5 m (a start and a stop) or more away, turning on
    # the spot first where the start cannot twist that far
    if distance >= 3.5:
        assert stack.found
    if stack.found:
        assert_hits(planner, stack, (0, 0, 0), target, facing)
    else:
        assert stack.actions == ()


def test_hits_mark_checks_position_and_facing() -> None:
    assert hits_mark((1, 0, 0), (1, 0.05))
    assert not hits_mark((1, 0, 0), (1, 0.2))
    assert not hits_mark((1, 0, 0), (1, 0), facing=0.5)
    assert hits_mark((1, 0, 2 * math.pi), (1, 0), facing=0.0)
    with pytest.raises(InvalidQueryError, match="position_tolerance"):
        hits_mark((1, 0, 0), (1, 0), position_tolerance=-1)


@pytest.mark.parametrize("options, message", [
    ({"position_tolerance": -0.1}, "position_tolerance"),
    ({"max_stretch": 1.0}, "max_stretch"),
    ({"look_ahead": 0}, "look_ahead"),
    ({"max_prefix": -1}, "max_prefix"),
    ({"max_twist": math.nan}, "max_twist"),
])
def test_bad_planner_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(InvalidQueryError, match=message):
        LocomotionPlanner(library(), **options)


def test_bad_plan_arguments_are_refused() -> None:
    planner = LocomotionPlanner(library())
    with pytest.raises(InvalidQueryError, match="ClipCatalogue"):
        LocomotionPlanner([])  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="unknown animation state"):
        planner.plan_segment("flying", (0, 0, 0), (1, 0))
    with pytest.raises(InvalidQueryError, match="pose"):
        planner.plan_segment(ST, (0, 0), (1, 0))
    with pytest.raises(InvalidQueryError, match="through"):
        planner.plan_segment(ST, (0, 0, 0), (1, 0), through=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="unknown animation state 'sitting'"):
        planner.plan_segment(ST, (0, 0, 0), (1, 0), end_state="sitting")
    with pytest.raises(InvalidQueryError, match="LocomotionPath"):
        planner.plan([(0, 0), (1, 0)], ST, (0, 0, 0))  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="avoid"):
        planner.plan_segment(ST, (0, 0, 0), (1, 0), avoid=RN)
    with pytest.raises(InvalidQueryError, match="unknown animation state 'swimming'"):
        planner.plan(process_path([(0, 0), (5, 0)]), ST, (0, 0, 0), avoid=["swimming"])


def straight_library() -> ClipCatalogue:
    """Walking and running with chained starts and stops, and two step clips: every clip
    straight ahead, so the quickest plan along a line can be counted out by hand."""
    wk = "walking"
    return ClipCatalogue([
        Clip("step_short", ST, ST, duration=0.9, dx=0.8),
        Clip("step_long", ST, ST, duration=1.3, dx=2.6),
        Clip("start_walk", ST, wk, duration=0.8, dx=0.6, end_speed=1.4),
        Clip("walk", wk, wk, duration=1.0, dx=1.4, start_speed=1.4, end_speed=1.4),
        Clip("stop_walk", wk, ST, duration=0.8, dx=0.6, start_speed=1.4),
        Clip("walk_to_run", wk, RN, duration=0.8, dx=2.1, start_speed=1.4, end_speed=4),
        Clip("run_to_walk", RN, wk, duration=0.8, dx=2.1, start_speed=4, end_speed=1.4),
        Clip("start_run", ST, RN, duration=1.1, dx=3.0, end_speed=4),
        Clip("run", RN, RN, duration=0.5, dx=2.0, start_speed=4, end_speed=4),
        Clip("stop_run", RN, ST, duration=0.9, dx=2.5, start_speed=4),
    ])


def quickest_of_the_planner_shapes(catalogue: ClipCatalogue, distance: float, tol: float
                                   ) -> float:
    """The least time from standing to standing ``distance`` ahead in the shapes the
    planner weighs: one direct clip, or any start chain, a loop stretched to the distance
    left (>= 0) and any stop chain."""
    c = catalogue
    best = min((k.duration for k in (c["step_short"], c["step_long"])
                if abs(k.dx - distance) <= tol), default=math.inf)
    starts = {"walking": [[c["start_walk"]]],
              RN: [[c["start_run"]], [c["start_walk"], c["walk_to_run"]]]}
    stops = {"walking": [[c["stop_walk"]]],
             RN: [[c["stop_run"]], [c["run_to_walk"], c["stop_walk"]]]}
    loops = {"walking": c["walk"], RN: c["run"]}
    for t, loop in loops.items():
        for pre in starts[t]:
            for post in stops[t]:
                left = distance - sum(k.dx for k in pre + post)
                if left >= -1e-9:
                    best = min(best, sum(k.duration for k in pre + post)
                               + max(left, 0.0) / (loop.dx / loop.duration))
    return best


def quickest_clip_sequence(catalogue: ClipCatalogue, distance: float, tol: float,
                           max_clips: int = 6) -> float:
    """The least time from standing to standing ``distance`` ahead over every sequence of
    at most ``max_clips`` clips of a straight catalogue (loops aside), each transfer
    state passed through playing its loop for any length >= 0 (so the distance left goes
    to the quickest loop passed): a brute force over real clip sequences."""
    loops = {c.start_state: c for c in catalogue.clips
             if c.start_state == c.end_state and c.start_speed > 0}
    others = [c for c in catalogue.clips if c not in loops.values()]
    best = math.inf

    def grow(state: str, covered: float, spent: float, speed: float, n: int) -> None:
        nonlocal best
        if state == ST:
            if speed and covered <= distance + tol:
                best = min(best, spent + max(distance - covered, 0.0) / speed)
            elif abs(covered - distance) <= tol:
                best = min(best, spent)
        if n == max_clips or covered > distance + tol:
            return
        if state in loops:
            speed = max(speed, loops[state].speed)
        for c in others:
            if c.start_state == state:
                grow(c.end_state, covered + c.dx, spent + c.duration, speed, n + 1)

    grow(ST, 0.0, 0.0, 0.0, 0)
    return best


#: How much slower than the quickest clip sequence a plan of :func:`straight_library` may
#: be: the planner weighs one direct clip or one start, loop and stop, never several stance
#: clips in a row (3.4 m: start, walk, stop 3.17 s against a short and a long step 2.2 s).
SEQUENCE_FACTOR = 1.45


@pytest.mark.parametrize("distance", [0.8, 1.2, 1.6, 2.6, 3.0, 3.4, 4.5, 5.5, 8.0, 12.0, 30.0])
def test_the_plan_is_near_the_quickest_clip_sequence(distance: float) -> None:
    catalogue = straight_library()
    planner = LocomotionPlanner(catalogue, max_twist=0.0)
    stack = planner.plan_segment(ST, (0, 0, 0), (distance, 0), facing=0.0)
    least = quickest_clip_sequence(catalogue, distance, planner.position_tolerance)
    assert stack.found and not stack.fail_safe
    assert least - 1e-9 <= stack.duration <= SEQUENCE_FACTOR * least


@pytest.mark.parametrize("distance", [0.8, 1.2, 1.6, 2.6, 3.0, 3.4, 4.5, 5.5, 8.0, 12.0, 30.0])
def test_the_plan_is_the_quickest_of_the_shapes_it_weighs(distance: float) -> None:
    catalogue = straight_library()
    planner = LocomotionPlanner(catalogue, max_twist=0.0)
    stack = planner.plan_segment(ST, (0, 0, 0), (distance, 0), facing=0.0)
    want = quickest_of_the_planner_shapes(catalogue, distance, planner.position_tolerance)
    if math.isinf(want):
        assert not stack.found or stack.fail_safe
    else:
        assert stack.found and not stack.fail_safe
        assert stack.duration == pytest.approx(want)
        assert_hits(planner, stack, (0, 0, 0), (distance, 0), 0.0)


def test_the_fail_safe_ends_in_the_wanted_stance_or_fails() -> None:
    planner = LocomotionPlanner(library())
    stack = planner.plan_segment(ST, (0, 0, 0), (3, 0), end_state=CR)
    assert not stack.found or stack.state == CR
    stack = planner.plan_segment(ST, (0, 0, 0), (3, 0), end_state=ST)
    assert stack.found and stack.state == ST


def test_the_fail_safe_tries_every_step_clip_quickest_first() -> None:
    steps = ClipCatalogue([Clip("step_short", ST, ST, duration=0.9, dx=0.8),
                           Clip("step_long", ST, ST, duration=1.3, dx=2.6)])
    planner = LocomotionPlanner(steps)
    stack = planner.plan_segment(ST, (0, 0, 0), (1.6, 0), facing=0.0)
    assert stack.fail_safe and names(stack) == ["step_short", "step_short"]
    assert_hits(planner, stack, (0, 0, 0), (1.6, 0), 0.0)
    stack = planner.plan_segment(ST, (0, 0, 0), (2.6, 0))      # one long step is quicker
    assert names(stack) == ["step_long"]
    assert_hits(planner, stack, (0, 0, 0), (2.6, 0))


def test_hits_mark_checks_the_facing_even_off_the_mark() -> None:
    with pytest.raises(InvalidQueryError, match="facing"):
        hits_mark((5, 0, 0), (0, 0), facing=math.nan)


@pytest.mark.parametrize("call, message", [
    (lambda p: p.plan_segment([ST], (0, 0, 0), (1, 0)), r"animation state \['standing'\]"),
    (lambda p: p.plan_segment(ST, (0, 0, 0), (1, 0), end_state=[CR]), "animation state"),
    (lambda p: p.plan_segment(ST, (0, 0, 0), (1, 0), end_state=RN),
     "end_state 'running' must be a stance with through=False"),
    (lambda p: p.plan_segment(ST, (0, 0, 0), (1, 0), through=True, end_state=ST),
     "end_state 'standing' must be a transfer state with through=True"),
    (lambda p: p.plan(process_path([(0, 0), (5, 0)]), {ST: 1}, (0, 0, 0)), "animation state"),
])
def test_bad_states_are_refused(call: object, message: str) -> None:
    planner = LocomotionPlanner(library())
    with pytest.raises(InvalidQueryError, match=message):
        call(planner)  # type: ignore[operator]


def test_a_transfer_and_a_step_say_how_many_times_and_how_stretched_they_play() -> None:
    planner = LocomotionPlanner(library())
    run = planner.plan_segment(ST, (0, 0, 0), (20, 0), facing=0.0).actions[1]
    assert run.loops == pytest.approx(8.25) and run.stretch == 1.0
    steps = ClipCatalogue([Clip("step", ST, ST, duration=0.9, dx=1.0)])
    stack = LocomotionPlanner(steps).plan_segment(ST, (0, 0, 0), (2.2, 0))
    assert [(a.loops, a.stretch) for a in stack.actions] == [(1.0, pytest.approx(1.1))] * 2


def test_turns_on_the_spot_find_a_reachable_facing_and_give_up_on_another() -> None:
    turns = ClipCatalogue([Clip(f"turn_{d}", ST, ST, duration=0.5, rotation=math.radians(d))
                           for d in (45, -40)])
    planner = LocomotionPlanner(turns, max_twist=0.0, facing_tolerance=math.radians(1))
    stack = planner.plan_segment(ST, (0, 0, 0), (0, 0), facing=math.radians(5))
    assert sorted(names(stack)) == ["turn_-40", "turn_45"]
    assert_hits(planner, stack, (0, 0, 0), (0, 0), math.radians(5))
    # 45a - 40b is a multiple of 5 degrees: 2.5 +- 1 is out of reach
    assert not planner.plan_segment(ST, (0, 0, 0), (0, 0), facing=math.radians(2.5)).found
