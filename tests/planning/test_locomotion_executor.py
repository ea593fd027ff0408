"""The locomotion executor: playing action-stacks along a path, request coalescing, and the
status it reports."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.planning.clips import Clip, ClipCatalogue
from wayfinding.planning.locomotion import process_path
from wayfinding.planning.locomotion_executor import (
    LocomotionExecutor,
    LocomotionScheduler,
    MoveStatus,
)
from wayfinding.planning.locomotion_plan import LocomotionPlanner, Role, hits_mark

ST, RN = "standing", "running"
CLIPS = ClipCatalogue([
    Clip("idle", ST, ST, duration=1.0),
    Clip("turn_left_90", ST, ST, duration=0.9, rotation=math.pi / 2),
    Clip("turn_right_90", ST, ST, duration=0.9, rotation=-math.pi / 2),
    Clip("start_run", ST, RN, duration=0.7, dx=2.0, end_speed=4),
    Clip("run", RN, RN, duration=0.5, dx=2.0, start_speed=4, end_speed=4),
    Clip("stop_run", RN, ST, duration=0.6, dx=1.5, start_speed=4),
])


def run(walker: LocomotionExecutor, seconds: float, dt: float = 0.05) -> list[MoveStatus]:
    seen = []
    for _ in range(round(seconds / dt)):
        status = walker.update(dt)
        if not seen or seen[-1] is not status:
            seen.append(status)
    return seen


def clips_played(walker: LocomotionExecutor, seconds: float, dt: float = 0.05) -> list[str]:
    names: list[str] = []
    for _ in range(round(seconds / dt)):
        walker.update(dt)
        a = walker.action
        if a is not None and (not names or names[-1] != a.clip.name):
            names.append(a.clip.name)
    return names


def test_a_request_is_followed_to_the_goal_with_its_status() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    assert walker.status is MoveStatus.IDLE and walker.update(0.1) is MoveStatus.IDLE
    walker.request(process_path([(0, 0), (10, 0), (20, 1.0)]), facing=math.pi / 2)
    assert walker.status is MoveStatus.WAITING
    seen = run(walker, 12.0)
    # start (busy), run through (10, 0) (moving), stop (busy), turn on the spot (moving)
    assert seen == [MoveStatus.BUSY, MoveStatus.MOVING, MoveStatus.BUSY, MoveStatus.MOVING,
                    MoveStatus.ARRIVED]
    assert walker.state == ST and walker.plans == 2 and walker.stack.actions[-1].role == "turn"
    assert hits_mark(walker.pose, (20, 1.0), facing=math.pi / 2)


def test_the_pose_moves_along_a_transfer() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    walker.request(process_path([(0, 0), (20, 0)]))
    walker.update(0.7 + 1.0)                 # the start, then a second of running
    assert walker.action is not None and walker.action.role == "transfer"
    assert np.allclose(walker.pose, (6.0, 0.0, 0.0))


def test_a_request_changing_only_the_far_end_keeps_the_stack() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS, look_ahead=2), ST, (0, 0, 0))
    walker.request(process_path([(0, 0), (10, 0), (20, 1.0), (30, 0)]))
    walker.update(1.5)
    kept = walker.stack
    x, y, _ = walker.pose
    walker.request(process_path([(x, y), (10, 0), (20, 1.0), (35, 5)]))
    walker.update(0.05)
    assert walker.coalesced == 1 and walker.replaced == 0 and walker.stack is kept
    played = clips_played(walker, 3.0)
    assert "stop_run" not in played and "start_run" not in played
    run(walker, 20.0)
    assert walker.status is MoveStatus.ARRIVED and hits_mark(walker.pose, (35, 5))


def test_a_request_changing_the_next_point_replans_without_stopping() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS, look_ahead=2), ST, (0, 0, 0))
    walker.request(process_path([(0, 0), (10, 0), (20, 1.0)]))
    walker.update(1.5)
    x, y, _ = walker.pose
    walker.request(process_path([(x, y), (14, 0.3), (25, 0)]))
    walker.update(0.05)
    assert walker.replaced == 1 and walker.coalesced == 0 and walker.state == RN
    assert walker.action is not None and walker.action.clip.name == "run"
    run(walker, 20.0)
    assert walker.status is MoveStatus.ARRIVED and hits_mark(walker.pose, (25, 0))


def test_a_start_is_never_cut_short() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    walker.request(process_path([(0, 0), (20, 0)]))
    walker.update(0.2)
    assert walker.status is MoveStatus.BUSY and walker.action.clip.name == "start_run"
    walker.request(process_path([(0.5, 0), (0.5, 20)]))
    walker.update(0.2)
    assert walker.action.clip.name == "start_run" and walker.replaced == 0
    walker.update(0.4)                       # the start ends: the request is taken
    assert walker.replaced == 1


def test_no_plan_is_a_failed_status_that_keeps_the_character() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    walker.request(process_path([(0, 0), (1.0, 0)]))     # nothing covers 1 m
    assert walker.update(0.1) is MoveStatus.FAILED
    assert walker.pose.tolist() == [0, 0, 0] and walker.state == ST
    walker.request(process_path([(0, 0), (10, 0)]))
    assert walker.status is MoveStatus.WAITING and walker.update(0.1) is MoveStatus.BUSY


def test_bad_arguments_are_refused() -> None:
    planner = LocomotionPlanner(CLIPS)
    with pytest.raises(InvalidQueryError, match="LocomotionPlanner"):
        LocomotionExecutor(CLIPS, ST, (0, 0, 0))  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="unknown animation state"):
        LocomotionExecutor(planner, "flying", (0, 0, 0))
    walker = LocomotionExecutor(planner, ST, (0, 0, 0))
    with pytest.raises(InvalidQueryError, match="LocomotionPath"):
        walker.request([(0, 0), (1, 0)])  # type: ignore[arg-type]
    with pytest.raises(InvalidQueryError, match="dt"):
        walker.update(-1.0)
    with pytest.raises(InvalidQueryError, match="facing"):
        walker.request(process_path([(0, 0), (10, 0)]), facing=math.nan)


def rates_through(walker: LocomotionExecutor, seconds: float, dt: float
                  ) -> list[tuple[str, float]]:
    out = []
    for _ in range(round(seconds / dt)):
        walker.update(dt)
        a = walker.action
        out.append((a.clip.name if a is not None else "", walker.rate))
    return out


def test_a_transfer_ends_on_a_whole_loop_cycle() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    walker.request(process_path([(0, 0), (20, 0)]))
    dt = 0.02
    seen = rates_through(walker, 8.0, dt)
    loops = (20 - 2.0 - 1.5) / 2.0                   # 8.25 cycles: 8 whole ones are played
    assert walker.rate_change == pytest.approx(8 / loops - 1)
    assert walker.phase_error is not None and walker.phase_error < 0.02
    rates = [r for _, r in seen]
    assert max(abs(b - a) for a, b in zip(rates[:-1], rates[1:])) <= 0.5 * dt + 1e-12
    # the rate is kept across the switch to the stop, then eases back to 1
    first_stop = next(r for name, r in seen if name == "stop_run")
    assert first_stop < 0.99
    assert rates[-1] == pytest.approx(1.0)
    assert hits_mark(walker.pose, (20, 0)) and walker.status is MoveStatus.ARRIVED


def test_a_pose_beyond_the_tolerance_is_ignored() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0), pose_tolerance=0.01)
    walker.request(process_path([(0, 0), (20, 0)]))
    seen = rates_through(walker, 8.0, 0.05)
    assert walker.rate_change == pytest.approx(8 / 8.25 - 1)
    assert walker.phase_error is None and all(r == 1.0 for _, r in seen)
    assert hits_mark(walker.pose, (20, 0))


@pytest.mark.parametrize("options, message", [
    ({"pose_tolerance": -0.1}, "pose_tolerance"),
    ({"max_rate_change": 0.0}, "max_rate_change"),
])
def test_bad_executor_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(InvalidQueryError, match=message):
        LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0), **options)


def test_the_scheduler_serves_moving_then_standing_then_new_requests() -> None:
    planner = LocomotionPlanner(CLIPS)
    moving = LocomotionExecutor(planner, ST, (0, 0, 0))
    moving.request(process_path([(0, 0), (10, 0), (20, 1.0)]))
    moving.update(0.01)                                  # plans to pass (10, 0) running
    moving.update(10.0, plan=False)                      # and runs out of actions there
    standing = LocomotionExecutor(planner, ST, (0, 5, 0))
    stop = process_path([(0, 5), (10, 5), (20, 6.0)])
    stop.stops[1] = True
    standing.request(stop)
    standing.update(0.01)                                # plans to stop at (10, 5)
    standing.update(10.0, plan=False)
    fresh = LocomotionExecutor(planner, ST, (0, 10, 0))
    fresh.request(process_path([(0, 10), (10, 10)]))
    assert (moving.need, standing.need, fresh.need) == (3, 2, 1)
    assert moving.status is standing.status is MoveStatus.WAITING
    assert moving.state == RN and standing.state == ST
    scheduler = LocomotionScheduler([fresh, standing, moving], budget=1)
    served = []
    for _ in range(3):
        scheduler.update(0.01)
        served += scheduler.served
    assert served == [2, 1, 0]
    both = LocomotionScheduler([LocomotionExecutor(planner, ST, (0, y, 0)) for y in (0, 5)],
                               budget=2)
    for e in both.executors:
        e.request(process_path([(0, e.pose[1]), (10, e.pose[1])]))
    assert both.update(0.01) == [MoveStatus.BUSY, MoveStatus.BUSY] and both.served == [0, 1]


def test_a_waiting_character_is_served_before_a_newer_one_of_the_same_need() -> None:
    planner = LocomotionPlanner(CLIPS)
    crowd = [LocomotionExecutor(planner, ST, (0, y, 0)) for y in (0, 5, 10)]
    scheduler = LocomotionScheduler(crowd, budget=1)
    for i in (1, 2):
        crowd[i].request(process_path([(0, 5 * i), (10, 5 * i)]))
    scheduler.update(0.01)
    assert scheduler.served == [1] and scheduler.waited == [0, 0, 1]
    crowd[0].request(process_path([(0, 0), (10, 0)]))
    scheduler.update(0.01)
    assert scheduler.served == [2]              # it has waited longer than crowd[0]
    scheduler.update(0.01)
    assert scheduler.served == [0] and scheduler.waited == [0, 0, 0]


def test_bad_scheduler_arguments_are_refused() -> None:
    with pytest.raises(InvalidQueryError, match="executors"):
        LocomotionScheduler([CLIPS])  # type: ignore[list-item]
    with pytest.raises(InvalidQueryError, match="budget"):
        LocomotionScheduler([], budget=0)
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    with pytest.raises(InvalidQueryError, match="plan"):
        walker.update(0.1, plan=1)  # type: ignore[arg-type]


def test_an_interrupted_turn_keeps_the_part_played() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    walker.request(process_path([(0, 0), (0, 20)]))
    for _ in range(8):
        walker.update(0.1)
    turn = walker.action
    assert turn is not None and turn.role is Role.TURN and turn.clip.name == "turn_left_90"
    played = turn.start[2] + 0.8 / turn.duration * (turn.end[2] - turn.start[2])
    assert walker.pose.tolist() == pytest.approx([0.0, 0.0, played])
    walker.request(process_path([(0, 0), (20, 0)]))
    walker.update(0.0)                       # taken at once: a turn may be interrupted
    assert walker.replaced == 1 and walker.stack is not None
    assert walker.stack.actions[0].start == pytest.approx((0.0, 0.0, played))


def test_a_turn_reports_the_pose_turned_so_far() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    walker.request(process_path([(0, 0), (0, 20)]))
    walker.update(0.45)
    turn = walker.action
    assert turn is not None and turn.role is Role.TURN
    assert walker.pose[2] == pytest.approx((turn.start[2] + turn.end[2]) / 2)


def test_the_scheduler_refuses_an_executor_listed_twice() -> None:
    walker = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 0, 0))
    other = LocomotionExecutor(LocomotionPlanner(CLIPS), ST, (0, 5, 0))
    with pytest.raises(InvalidQueryError, match="executors 0 and 2 are the same executor"):
        LocomotionScheduler([walker, other, walker])


def test_a_state_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(InvalidQueryError, match=r"animation state \['standing'\] must be a"):
        LocomotionExecutor(LocomotionPlanner(CLIPS), [ST], (0, 0, 0))  # type: ignore[arg-type]
