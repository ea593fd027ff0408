"""Reform after a bottleneck: a column through a door spreads into the wide formation once
past it and reaches its slots; slots inside obstacles or on other agents score worse; the
time to reform; bad input."""

import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.geometry import Obstacles
from wayfinding.groups.reform import ReformChoice, blend_candidates, reform, time_to_reform

RADIUS, SPEED = 0.4, 2.0
COLUMN = np.array([[1.8, 0.0], [0.6, 0.0], [-0.6, 0.0], [-1.8, 0.0]])
LINE = np.array([[0.0, 1.8], [0.0, 0.6], [0.0, -0.6], [0.0, -1.8]])     # too wide for the door
BOX = np.array([[0.6, 0.6], [0.6, -0.6], [-0.6, 0.6], [-0.6, -0.6]])
CANDIDATES = [COLUMN, LINE, BOX]


def door_wall():
    """A wall along x = 0 (0.5 thick) with a door 2.4 wide round y = 0."""
    return Obstacles([[[-0.25, -20.0], [0.25, -20.0], [0.25, -1.2], [-0.25, -1.2]],
                      [[-0.25, 1.2], [0.25, 1.2], [0.25, 20.0], [-0.25, 20.0]]])


def test_column_through_a_door_reforms_wide_past_it():
    walls, dt, group_velocity = door_wall(), 0.1, np.array([1.0, 0.0])
    anchor = np.array([-1.5, 0.0])
    positions, velocities = anchor + COLUMN, np.tile(group_velocity, (4, 1))
    chosen, track, slots = [], [], []
    for _ in range(70):
        choice = reform(positions, velocities, CANDIDATES, anchor, (1.0, 0.0),
                        velocity=group_velocity, radius=RADIUS, max_speed=SPEED,
                        obstacles=walls, preferred=1)
        # The chosen slots never lie in the wall, and no member is ever given one that does.
        assert walls.points_clear(choice.slots, radius=RADIUS).all()
        chosen.append(choice.best)
        slots.append(choice.slots)
        # Members steer straight for their slot (moving on with the group), top speed 2.
        step = (choice.slots + group_velocity * dt - positions) / dt
        speed = np.hypot(step[:, 0], step[:, 1])[:, None]
        velocities = np.where(speed > SPEED, step / np.maximum(speed, 1e-12) * SPEED, step)
        positions = positions + velocities * dt
        track.append(positions.copy())
        anchor = anchor + group_velocity * dt
    chosen = np.array(chosen)
    anchors = -1.5 + 0.1 * np.arange(70)
    # In the door (the wide slots would be in the wall) the line is never chosen ...
    assert (chosen[np.abs(anchors) < 0.25 + RADIUS + 1.8] != 1).any()
    assert (chosen[np.abs(anchors) < 0.25 + RADIUS] != 1).all()
    # ... and once its slots clear the wall, the group spreads into it and stays so.
    wide = int(np.argmax(chosen == 1))
    assert anchors[wide] > 0.25 + RADIUS and (chosen[wide:] == 1).all()
    # Every member reaches its slot (moving with the group) within 2 s of the choice.
    steps = time_to_reform(np.array(track[wide:]), np.array(slots[wide:]) + group_velocity * dt,
                           tolerance=0.05)
    assert steps is not None and steps <= 20


def test_slots_inside_an_obstacle_score_worse():
    # Two mirror-image candidates, to the left and to the right; a block covers the left.
    block = Obstacles([[[-1.0, 2.0], [1.0, 2.0], [1.0, 4.0], [-1.0, 4.0]]])
    left, right = np.array([[0.0, 3.0], [0.0, 1.5]]), np.array([[0.0, -3.0], [0.0, -1.5]])
    members, still = np.array([[0.0, 0.5], [0.0, -0.5]]), np.zeros((2, 2))
    free = reform(members, still, [left, right], (0.0, 0.0), (1.0, 0.0), preference=0.0)
    assert np.isclose(free.costs[0], free.costs[1])            # a tie without the block
    blocked = reform(members, still, [left, right], (0.0, 0.0), (1.0, 0.0), preference=0.0,
                     obstacles=block)
    assert blocked.best == 1 and blocked.costs[0] > blocked.costs[1]
    assert blocked.collision_time[0] == 0.0 and math.isinf(blocked.collision_time[1])
    assert np.allclose(blocked.slots, [[0.0, -1.5], [0.0, -3.0]])     # nearest slot each


def test_a_member_meeting_the_wall_on_the_way_sets_the_collision_time():
    # The slot is clear, beyond a thin wall: the member hits it after 1 - 0.05 - 0.4 units.
    wall = Obstacles([[[0.95, -5.0], [1.05, -5.0], [1.05, 5.0], [0.95, 5.0]]])
    choice = reform([[0.0, 0.0]], [[0.0, 0.0]], [[[3.0, 0.0]]], (0.0, 0.0), (1.0, 0.0),
                    radius=0.4, max_speed=1.0, obstacles=wall)
    assert choice.collision_time[0] == pytest.approx(0.55, abs=1e-9)
    assert choice.velocities.tolist() == [[1.0, 0.0]]


def test_other_agents_on_the_slots_score_worse():
    members, still = np.array([[0.0, 0.5], [0.0, -0.5]]), np.zeros((2, 2))
    left, right = np.array([[0.0, 3.0], [0.0, 1.5]]), np.array([[0.0, -3.0], [0.0, -1.5]])
    choice = reform(members, still, [left, right], (0.0, 0.0), (1.0, 0.0), preference=0.0,
                    others=[[0.0, 3.5]], other_radius=0.5)
    assert choice.best == 1 and choice.collision_time[0] < 1.0
    # An agent coming up fast behind the group: every candidate shares its collision time.
    chased = reform(members, still, [left, right], (0.0, 0.0), (1.0, 0.0),
                    others=[[-3.0, 0.0]], other_velocities=[[10.0, 0.0]])
    assert chased.collision_time[0] == chased.collision_time[1] < 1.0


def test_time_to_reform():
    track = np.array([[[0.0, 0.0], [5.0, 0.0]], [[0.9, 0.0], [5.0, 0.0]],
                      [[1.0, 0.0], [5.5, 0.0]], [[1.0, 0.0], [6.0, 0.0]]])
    assert time_to_reform(track, [[1.0, 0.0], [6.0, 0.0]], tolerance=0.1) == 3
    assert time_to_reform(track, [[1.0, 0.0], [6.0, 0.0]], tolerance=0.6) == 2
    assert time_to_reform(track, [[1.0, 0.0], [9.0, 0.0]], tolerance=0.1) is None
    assert time_to_reform(track, track, tolerance=1e-9) == 0


def test_choices_compare_by_value():
    a = reform([[0.0, 0.0]], [[0.0, 0.0]], [[[1.0, 0.0]]], (0.0, 0.0), (1.0, 0.0))
    b = reform([[0.0, 0.0]], [[0.0, 0.0]], [[[1.0, 0.0]]], (0.0, 0.0), (1.0, 0.0))
    assert isinstance(a, ReformChoice) and a == b


@pytest.mark.parametrize("kwargs,match", [
    ({"positions": [[0.0, np.nan]]}, "positions"),
    ({"velocities": [[0.0, 0.0], [1.0, 0.0]]}, "velocities"),
    ({"candidates": []}, "candidates"),
    ({"candidates": "column"}, "candidates"),
    ({"candidates": [[[0.0, 0.0], [1.0, 0.0]]]}, "2 slots for 1 members"),
    ({"heading": (0.0, 0.0)}, "heading"),
    ({"velocity": (np.inf, 0.0)}, "velocity"),
    ({"radius": 0.0}, "radius"),
    ({"max_speed": -1.0}, "max_speed"),
    ({"preferred": 1}, "preferred"),
    ({"safety": -1.0}, "safety"),
    ({"obstacles": [[0.0, 0.0]]}, "obstacles"),
    ({"others": [[0.0, 0.0]], "other_velocities": [[0.0, 0.0], [1.0, 1.0]]},
     "other_velocities"),
    ({"other_velocities": [[0.0, 0.0]]}, "without others"),
])
def test_reform_bad_input(kwargs, match):
    args = {"positions": [[0.0, 0.0]], "velocities": [[0.0, 0.0]],
            "candidates": [[[1.0, 0.0]]], "position": (0.0, 0.0), "heading": (1.0, 0.0)}
    args.update(kwargs)
    subjects = [args.pop(k) for k in ("positions", "velocities", "candidates", "position",
                                      "heading")]
    with pytest.raises(InvalidQueryError, match=match):
        reform(*subjects, **args)


@pytest.mark.parametrize("positions,slots,tolerance,match", [
    ([[0.0, 0.0]], [[0.0, 0.0]], 0.1, "positions"),
    ([[[0.0, 0.0]]], [[0.0, 0.0], [1.0, 1.0]], 0.1, "slots"),
    ([[[0.0, 0.0]]], [[0.0, 0.0]], 0.0, "tolerance"),
    ([[["a", "b"]]], [[0.0, 0.0]], 0.1, "positions"),
])
def test_time_to_reform_bad_input(positions, slots, tolerance, match):
    with pytest.raises(InvalidQueryError, match=match):
        time_to_reform(positions, slots, tolerance=tolerance)


def test_blended_candidates_run_from_the_current_shape_to_each():
    heading = np.array([0.0, 1.0])                         # the group faces +y
    members = np.array([[10.0, 21.0], [10.0, 19.0]])       # a column along its heading
    shapes = [LINE[1:3], COLUMN[1:3]]
    blends = blend_candidates(members, (10.0, 20.0), heading, shapes, steps=3)
    assert len(blends) == 6
    assert np.allclose(blends[2], LINE[1:3]) and np.allclose(blends[5], COLUMN[1:3])
    # In the frame the members sit at (+1, 0) and (-1, 0); each slot is reached in thirds.
    start = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert np.allclose(blends[3], start + (COLUMN[1:3] - start) / 3)
    assert np.allclose(blends[4], start + (COLUMN[1:3] - start) * 2 / 3)
    assert np.allclose(blends[1], (blends[0] + blends[2]) / 2)
    matched = LINE[1:3] + (blends[0] - LINE[1:3]) * 1.5     # each line slot's member
    assert np.allclose(np.sort(matched[:, 0]), [-1.0, 1.0]) and np.allclose(matched[:, 1], 0)
    choice = reform(members, np.zeros((2, 2)), blends, (10.0, 20.0), heading, preferred=2)
    assert 0 <= choice.best < 6


@pytest.mark.parametrize("kwargs,match", [
    ({"steps": 0}, "steps"),
    ({"shapes": [[[0.0, 0.0]]]}, "1 slots for 2 members"),
    ({"heading": (0.0, 0.0)}, "heading"),
    ({"shapes": []}, "shapes"),
    ({"shapes": 3}, "shapes"),
])
def test_blend_candidates_bad_input(kwargs, match):
    args = {"shapes": [LINE[:2]], "heading": (1.0, 0.0), "steps": 3}
    args.update(kwargs)
    with pytest.raises(InvalidQueryError, match=match):
        blend_candidates([[0.0, 0.0], [1.0, 0.0]], (0.0, 0.0), args["heading"],
                         args["shapes"], steps=args["steps"])


def test_members_take_slots_of_their_role():
    members, still = np.array([[0.0, 1.0], [0.0, -1.0]]), np.zeros((2, 2))
    line = np.array([[0.0, 1.0], [0.0, -1.0]])
    plain = reform(members, still, [line], (0.0, 0.0), (1.0, 0.0))
    assert np.allclose(plain.slots, members) and plain.travel[0] == 0.0
    # The leader (role 1) is on the right but its slot is the left one: they swap.
    swapped = reform(members, still, [line], (0.0, 0.0), (1.0, 0.0), roles=[0, 1],
                     slot_roles=[[1, 0]])
    assert np.allclose(swapped.slots, members[::-1]) and swapped.travel[0] == 2.0
    with pytest.raises(InvalidQueryError, match="slot_roles"):
        reform(members, still, [line], (0.0, 0.0), (1.0, 0.0), roles=[0, 1], slot_roles=[])
    with pytest.raises(InvalidQueryError, match="as many members as slots"):
        reform(members, still, [line], (0.0, 0.0), (1.0, 0.0), roles=[1, 1],
               slot_roles=[[1, 0]])


def test_blends_too_many_to_allocate_are_refused_at_once():
    with pytest.raises(InvalidQueryError, match="MAX_CELLS"):
        blend_candidates([[0.0, 0.0]], (0.0, 0.0), (1.0, 0.0), [[[0.0, 2.0]]], steps=10**9)
