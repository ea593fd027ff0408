"""The Dubins length bounds movement plans whose clips' curvature is bounded: every plan
between random start and goal poses, every random clip sequence, and not a catalogue that
turns on the spot; the planner's heuristic uses the bound and keeps the optimum."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding.paths import turning_path
from wayfinding.planning.clips import Clip, ClipCatalogue
from wayfinding.planning.movement import FINEST, _least_turn, plan_movement

EXACT = {"position_resolution": FINEST, "heading_resolution": FINEST}


def arc(name: str, start: str, end: str, kappa: float, length: float) -> Clip:
    """A clip whose root travels ``length`` metres forward on an arc of curvature ``kappa``
    (straight ahead when it is 0)."""
    if kappa == 0.0:
        return Clip(name, start, end, duration=length, dx=length)
    turn, r = kappa * length, 1 / abs(kappa)
    return Clip(name, start, end, duration=length, dx=r * math.sin(abs(turn)),
                dy=math.copysign(r * (1 - math.cos(turn)), turn), rotation=turn)


def forward_arcs(kappa: float) -> ClipCatalogue:
    """Forward clips whose root curvature is at most ``kappa``, in one state ``"w"``."""
    return ClipCatalogue([arc("straight", "w", "w", 0.0, 1.0),
                          arc("left", "w", "w", kappa, 1.0),
                          arc("right", "w", "w", -kappa, 1.0),
                          arc("soft_left", "w", "w", kappa / 2, 1.5),
                          arc("soft_right", "w", "w", -kappa / 2, 0.7)])


def walker(kappa: float) -> ClipCatalogue:
    """Standing still, starting and stopping straight ahead, and walking straight or on arcs
    of curvature ``kappa``: standing still does not unbound the curvature."""
    return ClipCatalogue([Clip("stand", "s", "s", duration=0.5),
                          arc("start", "s", "m", 0.0, 0.5),
                          arc("stop", "m", "s", 0.0, 0.4),
                          arc("step", "m", "m", 0.0, 1.0),
                          arc("veer_left", "m", "m", kappa, 0.8),
                          arc("veer_right", "m", "m", -kappa, 1.1)])


BOUNDED = {"arcs 2": (lambda: forward_arcs(2.0), "w", 2.0),
           "arcs 1": (lambda: forward_arcs(1.0), "w", 1.0),
           "walker": (lambda: walker(0.8), "s", 0.8)}


def dubins(start, end, radius: float) -> float:
    """The Dubins length between the poses ``start`` and ``end`` ``(x, y, heading)``."""
    return turning_path(start[:2], (math.cos(start[2]), math.sin(start[2])), end[:2],
                        (math.cos(end[2]), math.sin(end[2])), radius=radius).length


@pytest.mark.parametrize("name", list(BOUNDED))
def test_bounded_catalogues_know_their_curvature(name):
    make, _, kappa = BOUNDED[name]
    assert make().max_curvature == pytest.approx(kappa)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("name", list(BOUNDED))
def test_every_plan_is_at_least_the_dubins_length_to_where_it_ends(name, seed):
    make, state, _ = BOUNDED[name]
    clips = make()
    rng = np.random.default_rng(seed)
    start = np.array([*rng.uniform(-5, 5, 2), rng.uniform(-math.pi, math.pi)])
    bearing, distance = rng.uniform(-math.pi, math.pi), rng.uniform(1.0, 3.5)
    goal = (start[0] + distance * math.cos(bearing), start[1] + distance * math.sin(bearing),
            rng.uniform(-math.pi, math.pi))
    tol, htol = rng.uniform(0.3, 0.6), rng.uniform(0.4, math.pi)
    plan = plan_movement(None, clips, start, goal, start_state=state, position_tolerance=tol,
                         heading_tolerance=htol, position_resolution=0.1,
                         heading_resolution=math.radians(5))
    assert plan.found
    radius = 1 / clips.max_curvature
    # Every prefix of the plan, the whole plan last, ends at a pose of its own.
    lengths = np.cumsum([0.0] + [clips[n].length for n in plan.clips])
    for pose, length in zip(plan.poses, lengths):
        assert dubins(start, pose, radius) <= length + 1e-9
    assert lengths[-1] == pytest.approx(plan.length)


@pytest.mark.parametrize("seed", range(40))
def test_random_clip_sequences_turn_and_travel_at_least_the_bounds(seed):
    # Forward arcs of any curvature up to kappa, played at random from a random pose, to a
    # goal region placed at random round where they end: the heading turns by at least the
    # heuristic's least turn, and the root travels at least the Dubins length.
    rng = np.random.default_rng(100 + seed)
    kappa = rng.uniform(0.3, 2.0)
    pose = np.array([*rng.uniform(-3, 3, 2), rng.uniform(-math.pi, math.pi)])
    start, turned, travelled = pose.copy(), 0.0, 0.0
    for i in range(int(rng.integers(1, 9))):
        # Less than half a turn each: a longer one is no arc (see Clip).
        clip = arc(f"c{i}", "w", "w", kappa * rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0]),
                   rng.uniform(0.2, 3.0 / kappa))
        pose = clip.end_pose(pose)
        turned += abs(clip.rotation)
        travelled += clip.length
    assert dubins(start, pose, 1 / kappa) <= travelled + 1e-9
    tol = rng.choice([0.0, rng.uniform(0.0, 1.5)])
    htol = rng.choice([0.0, rng.uniform(0.0, math.pi)])
    away, towards = rng.uniform(0.0, tol), rng.uniform(-math.pi, math.pi)
    gx, gy = pose[:2] + away * np.array([math.cos(towards), math.sin(towards)])
    gh = pose[2] + rng.uniform(-htol, htol)
    assert _least_turn(start[2], gx - start[0], gy - start[1], gh, tol, htol) \
        <= turned + 1e-9


@pytest.mark.parametrize("h, offset, gh, tol, htol, least", [
    (0.0, (4.0, 0.0), 0.0, 0.5, 0.1, 0.0),                 # straight ahead
    (0.0, (0.0, 4.0), 0.0, 0.0, 0.0, math.pi),             # face left, then back: capped
    (0.0, (0.0, 4.0), math.pi / 2, 0.0, 0.0, math.pi / 2),  # face left and stay
    (0.0, (-4.0, 0.0), 0.0, 0.0, math.pi, math.pi),        # behind: turn round
    (0.0, (0.0, 2.0), math.pi / 2, 2.0, 0.0, math.pi / 2),  # at the disc's edge: the window
    (0.0, (0.0, 4.0), 0.0, 2.0, 0.0, 2 * math.pi / 3),     # to the disc's tangent and back
    (1.0, (0.0, 0.0), -1.0, 0.0, 0.5, 1.5),                # on the goal point: the window
])
def test_least_turn_of_worked_cases(h, offset, gh, tol, htol, least):
    assert _least_turn(h, *offset, gh, tol, htol) == pytest.approx(least)


def test_turning_on_the_spot_beats_the_dubins_length():
    # The arcs alone turn no tighter than radius 1; a turn on the spot makes the curvature
    # unbounded, and the plan turning round on the spot is shorter than any Dubins path.
    clips = ClipCatalogue([*forward_arcs(1.0).clips,
                           Clip("about_turn", "w", "w", duration=1.0, rotation=math.pi)])
    assert clips.max_curvature == math.inf
    goal = (-2.0, 0.0, math.pi)
    plan = plan_movement(None, clips, (0, 0, 0), goal, start_state="w",
                         position_tolerance=1e-6, heading_tolerance=1e-6, **EXACT)
    assert plan.found and "about_turn" in plan.clips
    assert plan.length == pytest.approx(2.0)
    assert plan.length < dubins((0, 0, 0), plan.poses[-1], 1.0) - 1.0


@pytest.mark.parametrize("goal, tol, htol", [((3.0, 3.0, math.pi), 0.3, 0.3),
                                             ((-2.0, 1.0, 0.0), 0.4, math.pi),
                                             ((0.0, -3.0, -math.pi / 2), 0.5, 0.6)])
def test_the_curvature_bound_finds_the_same_plan_with_fewer_expansions(goal, tol, htol):
    # A turn on the spot penalised so that no optimum plays it leaves the optimum as it is
    # but unbounds the curvature: the heuristic falls back to the distance alone.
    clips = forward_arcs(1.0)
    spin = ClipCatalogue([*clips.clips,
                          Clip("spin", "w", "w", duration=1.0, rotation=math.pi / 2)])
    options = {"start_state": "w", "position_tolerance": tol, "heading_tolerance": htol,
               "position_resolution": 0.05, "heading_resolution": math.radians(2)}
    bounded = plan_movement(None, clips, (0, 0, 0), goal, **options)
    distance = plan_movement(None, spin, (0, 0, 0), goal, penalties={"spin": 100.0},
                             **options)
    assert bounded.found and "spin" not in distance.clips
    assert bounded.cost == pytest.approx(distance.cost)
    assert bounded.stats.expanded < distance.stats.expanded


@pytest.mark.parametrize("names", [("left", "left", "straight", "right"),
                                   ("right", "straight", "straight", "left", "left", "left"),
                                   ("soft_left", "left", "left", "straight", "right")])
def test_an_exact_goal_adds_the_dubins_length_to_the_heuristic(names):
    # Both tolerances 0: the Dubins length to the goal pose; a hair's tolerance leaves the
    # turn bound alone.  The same plan, fewer expansions.
    clips = forward_arcs(1.0)
    goal = np.zeros(3)
    for name in names:
        goal = clips[name].end_pose(goal)
    exact = plan_movement(None, clips, (0, 0, 0), goal, start_state="w",
                          position_tolerance=0.0, heading_tolerance=0.0, **EXACT)
    near = plan_movement(None, clips, (0, 0, 0), goal, start_state="w",
                         position_tolerance=1e-9, heading_tolerance=1e-9, **EXACT)
    assert exact.found and exact.cost == pytest.approx(near.cost)
    assert exact.cost <= sum(clips[n].duration for n in names) + 1e-12
    assert exact.stats.expanded < near.stats.expanded
