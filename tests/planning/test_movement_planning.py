"""Movement planning over clip graphs: the book's standing / mid-walk example, the optimum
against brute force over every short clip sequence (with and without bounded curvature,
exact goals too), goals hit within their tolerances, collisions with grids and navigation
meshes, bad input; the compiled search's wall test against GEOS and its distance field
against the exact shortest paths.  The Dubins bound: test_movement_dubins.py."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from wayfinding._kernels import _movement
from wayfinding.errors import InvalidQueryError
from wayfinding.geometry.obstacles import segment_gaps, segments_cross
from wayfinding.grid import Grid
from wayfinding.navmesh import NavMesh
from wayfinding.planning import movement
from wayfinding.planning.clips import Clip, ClipCatalogue, default_clips
from wayfinding.planning.movement import FINEST, MovementPlan, plan_movement
from wayfinding.results import Status

EXACT = {"position_resolution": 1e-9, "heading_resolution": 1e-9}
ST, MW = "standing", "mid-walk"


def book_clips() -> ClipCatalogue:
    """The book's biped (4.9.3): walk, stand-to-walk, walk-to-stand, sidestep and
    turn-on-the-spot between the states standing and mid-walk."""
    return ClipCatalogue([
        Clip("walk", MW, MW, duration=1.0, dx=1.0, start_speed=1.0, end_speed=1.0),
        Clip("stand_to_walk", ST, MW, duration=0.8, dx=0.5, end_speed=1.0),
        Clip("walk_to_stand", MW, ST, duration=0.8, dx=0.5, start_speed=1.0),
        Clip("sidestep_left", ST, ST, duration=1.0, dy=0.5),
        Clip("sidestep_right", ST, ST, duration=1.0, dy=-0.5),
        Clip("turn_left", ST, ST, duration=1.0, rotation=math.pi / 2),
        Clip("turn_right", ST, ST, duration=1.0, rotation=-math.pi / 2),
    ])


def lava_room() -> Grid:
    """A 12 x 8 room (1 m cells) whose lava (blocked) leaves a path along its top side."""
    free = np.ones((8, 12), dtype=bool)
    free[0:6, 5:7] = False
    return Grid(free)


def free_area(world) -> object:
    """The walkable area as a shapely geometry: the oracle of collisions (the test skips
    without shapely, the ``[geometry]`` extra)."""
    pytest.importorskip("shapely")
    from shapely.geometry import Polygon, box
    from shapely.ops import unary_union

    if isinstance(world, NavMesh):
        return unary_union([Polygon(world.polygon(i)) for i in range(world.num_polygons)])
    cs, (ox, oy) = world.cell_size, world.origin
    ys, xs = np.nonzero(world.passable)
    return unary_union([box(ox + x * cs, oy + y * cs, ox + (x + 1) * cs, oy + (y + 1) * cs)
                        for x, y in zip(xs.tolist(), ys.tolist())])


def polyline(points: np.ndarray) -> object:
    """The shapely polyline through ``points`` (a point when they all coincide)."""
    from shapely.geometry import LineString, Point

    return Point(points[0]) if (points == points[0]).all() else LineString(points)


def clear(area, points: np.ndarray) -> bool:
    """Whether the polyline through ``points`` lies inside ``area`` without touching its
    boundary (None: the open plane)."""
    return area is None or area.contains_properly(polyline(points))


def in_goal(pose, state, goal, area, tol, htol, ends) -> bool:
    return (state in ends and math.hypot(pose[0] - goal[0], pose[1] - goal[1]) <= tol
            and abs(math.remainder(pose[2] - goal[2], 2 * math.pi)) <= htol
            and clear(area, np.array([pose[:2], goal[:2]])))


def brute_force(clips, world, start, state, goal, tol, htol, ends, depth, *, below=math.inf,
                step=0.1):
    """The cheapest sequence of at most ``depth`` clips ending in the goal region and
    costing less than ``below``, found by playing every such sequence (depth first, a
    sequence left as soon as it costs ``below`` or more): ``(cost, names)``, ``(inf, ())``
    when there is none."""
    area = None if world is None else free_area(world)
    best = [below, None]

    def play(pose, anim, cost, names):
        if in_goal(pose, anim, goal, area, tol, htol, ends) and cost < best[0]:
            best[:] = [cost, names]
        if len(names) == depth:
            return
        for clip in clips.clips:
            if clip.start_state != anim or cost + clip.duration >= best[0]:
                continue
            path = clip.root_path(pose, step)
            if clear(area, path[:, :2]):
                play(path[-1], clip.end_state, cost + clip.duration, names + (clip.name,))

    play(np.asarray(start, float), state, 0.0, ())
    return (math.inf, ()) if best[1] is None else (best[0], best[1])


def replay(plan: MovementPlan, clips: ClipCatalogue, start) -> None:
    """Each pose is the previous one after the clip between them; states chain."""
    np.testing.assert_array_equal(plan.poses[0], start)
    for i, name in enumerate(plan.clips):
        clip = clips[name]
        assert clip.start_state == plan.states[i] and clip.end_state == plan.states[i + 1]
        np.testing.assert_allclose(plan.poses[i + 1], clip.end_pose(plan.poses[i]),
                                   atol=1e-12)
    assert plan.time == pytest.approx(sum(clips[n].duration for n in plan.clips))
    assert plan.times[-1] == pytest.approx(plan.time)
    assert plan.length == pytest.approx(sum(clips[n].length for n in plan.clips))


# --- the book's example ------------------------------------------------------------------

def test_book_lava_room_route_walks_turns_and_reaches_the_far_door():
    clips, room = book_clips(), lava_room()
    start, door = (1.5, 1.5, 0.0), (11.0, 1.5, 0.0)
    plan = plan_movement(room, clips, start, door, start_state=ST, position_tolerance=0.5)
    assert plan.found
    replay(plan, clips, start)
    assert math.hypot(*(plan.poses[-1, :2] - door[:2])) <= 0.5
    area = free_area(room)
    for pose, name in zip(plan.poses[:-1], plan.clips):
        assert clear(area, clips[name].root_path(pose, 0.02)[:, :2])
    used = set(plan.clips)
    assert "walk" in used and used & {"turn_left", "turn_right", "sidestep_left",
                                      "sidestep_right"}
    # No straight line: the lava lies across it.
    direct = plan_movement(None, clips, start, door, start_state=ST, position_tolerance=0.5)
    assert set(direct.clips) <= {"stand_to_walk", "walk", "walk_to_stand"}
    assert plan.time > direct.time


def test_book_route_is_the_cheapest_sequence():
    clips, room = book_clips(), lava_room()
    start, goal = (3.5, 4.5, 0.0), (3.5, 7.0, 0.0)
    plan = plan_movement(room, clips, start, goal, start_state=ST, position_tolerance=0.3,
                         **EXACT)
    cost, names = brute_force(clips, room, start, ST, goal, 0.3, math.pi,
                              set(clips.states), 6)
    assert plan.found and len(plan.clips) <= 6
    assert plan.cost == pytest.approx(cost)


def test_an_animation_that_overshoots_cannot_hit_an_exact_target():
    # Needing 2 m forward and a 30 degree right turn, a clip of 1.5 m and 45 degrees fails.
    goal = (2 * math.cos(0), 0.0, -math.pi / 6)
    wrong = ClipCatalogue([Clip("turn_walk", ST, ST, duration=1.0, dx=1.5 * math.cos(math.pi / 8),
                                dy=-1.5 * math.sin(math.pi / 8), rotation=-math.pi / 4)])
    plan = plan_movement(None, wrong, (0, 0, 0), goal, position_tolerance=0.01,
                         heading_tolerance=0.01)
    assert plan.status is Status.FAILED and not plan.found
    assert plan.poses.shape == (0, 3) and plan.cost == math.inf
    right = ClipCatalogue([*wrong.clips, Clip("fit", ST, ST, duration=1.0, dx=2.0,
                                              rotation=-math.pi / 6)])
    assert plan_movement(None, right, (0, 0, 0), goal, position_tolerance=0.01,
                         heading_tolerance=0.01).clips == ("fit",)


def test_running_moves_two_metres_and_keeps_its_speed():
    run = Clip("run", "running", "running", duration=0.5, dx=2.0, start_speed=4.0,
               end_speed=4.0)
    clips = ClipCatalogue([run])
    plan = plan_movement(None, clips, (0, 0, math.pi / 2), (0, 6, 0), start_state="running",
                         position_tolerance=1e-9)
    assert plan.clips == ("run", "run", "run")
    np.testing.assert_allclose(plan.poses[:, 1], [0, 2, 4, 6], atol=1e-12)
    assert run.start_speed == run.end_speed


# --- optimality against brute force ------------------------------------------------------

def small_catalogues() -> dict[str, ClipCatalogue]:
    arc = math.pi / 4
    return {
        "turns": ClipCatalogue([
            Clip("go", "a", "a", duration=1.0, dx=1.0),
            Clip("left", "a", "a", duration=0.7, rotation=math.pi / 2),
            Clip("right", "a", "a", duration=0.9, rotation=-math.pi / 2),
            Clip("hop", "a", "a", duration=1.3, dx=2.0, dy=0.5)]),
        "states": ClipCatalogue([
            Clip("start", "s", "m", duration=0.6, dx=0.4),
            Clip("stop", "m", "s", duration=0.5, dx=0.3),
            Clip("step", "m", "m", duration=0.8, dx=1.0),
            Clip("veer", "m", "m", duration=0.8, dx=math.sin(arc), dy=1 - math.cos(arc),
                 rotation=arc),
            Clip("side", "s", "s", duration=0.9, dy=-0.6)]),
        "arcs": ClipCatalogue([      # bounded curvature: the heuristic bounds the turn too
            Clip("wait", "a", "a", duration=0.5),
            Clip("start", "a", "m", duration=0.6, dx=0.5),
            Clip("stop", "m", "a", duration=0.5, dx=0.4),
            Clip("step", "m", "m", duration=0.8, dx=1.0),
            Clip("left", "m", "m", duration=0.9, dx=0.6, dy=0.6, rotation=2 * arc),
            Clip("right", "m", "m", duration=0.8, dx=math.sin(arc), dy=math.cos(arc) - 1,
                 rotation=-arc)]),
    }


WORLDS = {
    "open": lambda: None,
    "grid": lambda: Grid(np.array([[1, 1, 1, 1, 1, 1, 1, 1],
                                   [1, 1, 1, 1, 1, 1, 1, 1],
                                   [1, 1, 1, 0, 1, 1, 1, 1],
                                   [1, 1, 1, 1, 1, 1, 1, 1],
                                   [1, 1, 1, 1, 1, 1, 1, 1],
                                   [1, 1, 1, 1, 1, 1, 1, 1]], dtype=bool), origin=(-2.0, -3.0)),
    "navmesh": lambda: NavMesh.build(outline=[(-2, -3), (6, -3), (6, 3), (-2, 3)],
                                     holes=[[(1, -0.5), (2, -0.8), (2.2, 0.1), (1.2, 0.3)]]),
}


@pytest.mark.parametrize("world_name", list(WORLDS))
@pytest.mark.parametrize("cat_name", ["turns", "states", "arcs"])
@pytest.mark.parametrize("goal, tol, htol", [
    ((3.0, 0.0, 0.0), 0.3, math.pi),
    ((4.0, 1.2, math.pi / 2), 0.5, 0.8),
    ((0.0, -1.5, 0.0), 0.4, 0.3),
])
def test_planner_optimum_equals_brute_force(world_name, cat_name, goal, tol, htol):
    world, clips = WORLDS[world_name](), small_catalogues()[cat_name]
    state = "s" if cat_name == "states" else "a"
    start, depth = (0.0, 0.0, 0.0), 7
    plan = plan_movement(world, clips, start, goal, start_state=state, position_tolerance=tol,
                         heading_tolerance=htol, **EXACT)
    assert plan.found
    replay(plan, clips, start)
    area = None if world is None else free_area(world)
    assert in_goal(plan.poses[-1], plan.states[-1], goal, area, tol, htol, clips.states)
    for pose, name in zip(plan.poses[:-1], plan.clips):
        assert clear(area, clips[name].root_path(pose, 0.1)[:, :2])
    # Every sequence of up to `depth` clips cheaper than the plan (by more than rounding)
    # misses the goal; the plan itself is found when it is that short.
    cost, names = brute_force(clips, world, start, state, goal, tol, htol, set(clips.states),
                              depth, below=plan.cost + 1e-9)
    if len(plan.clips) <= depth:
        assert cost == pytest.approx(plan.cost)
    else:
        assert cost == math.inf


def test_the_arcs_catalogue_bounds_its_curvature():
    assert small_catalogues()["arcs"].max_curvature == pytest.approx(1 / 0.6)


@pytest.mark.parametrize("world_name", list(WORLDS))
@pytest.mark.parametrize("names", [("start", "left", "right", "step"),
                                   ("start", "left", "left", "right", "stop"),
                                   ("start", "left", "step", "right", "right", "stop")])
def test_exact_goals_keep_the_optimum_with_the_dubins_heuristic(world_name, names):
    # Both tolerances 0: the heuristic takes the Dubins length to the goal pose.
    world, clips = WORLDS[world_name](), small_catalogues()["arcs"]
    goal = np.zeros(3)
    for name in names:
        goal = clips[name].end_pose(goal)
    plan = plan_movement(world, clips, (0, 0, 0), goal, start_state="a",
                         position_tolerance=0.0, heading_tolerance=0.0, **EXACT)
    assert plan.found
    assert plan.poses[-1, :2].tolist() == goal[:2].tolist()
    cost, _ = brute_force(clips, world, (0, 0, 0), "a", goal, 1e-9, 1e-9, set(clips.states),
                          len(names), below=plan.cost + 1e-9)
    assert cost == pytest.approx(plan.cost)
    assert plan.cost <= sum(clips[n].duration for n in names) + 1e-12


def test_end_states_and_penalties_are_honoured_and_optimal():
    clips = small_catalogues()["states"]
    goal = (2.5, 0.0, 0.0)
    plan = plan_movement(None, clips, (0, 0, 0), goal, start_state="s",
                         position_tolerance=0.25, end_states={"s"}, **EXACT)
    cost, names = brute_force(clips, None, (0, 0, 0), "s", goal, 0.25, math.pi, {"s"}, 6)
    assert plan.states[-1] == "s" and plan.cost == pytest.approx(cost)
    penalised = plan_movement(None, clips, (0, 0, 0), goal, start_state="s",
                              position_tolerance=0.25, end_states={"s"},
                              penalties={"step": 5.0}, **EXACT)
    assert "step" not in penalised.clips
    assert penalised.cost == pytest.approx(penalised.time)
    assert penalised.cost >= plan.cost


# --- targets, tolerances, lower bounds ---------------------------------------------------

GOALS = [(6.0, 3.0, 1.0), (-2.0, 1.5, math.pi), (2.0, -5.0, -1.2), (9.0, 0.5, 0.0),
         (0.5, 0.0, math.pi / 2)]


@pytest.mark.parametrize("goal", GOALS)
@pytest.mark.parametrize("tol, htol, ends", [(0.3, math.pi, None), (0.4, 0.35, {"standing"}),
                                             (0.5, 0.5, {"walking", "running"})])
def test_plans_hit_their_target_within_the_tolerances(goal, tol, htol, ends):
    clips = default_clips()
    plan = plan_movement(None, clips, (0, 0, 0), goal, position_tolerance=tol,
                         heading_tolerance=htol, end_states=ends)
    assert plan.found
    replay(plan, clips, (0, 0, 0))
    x, y, h = plan.poses[-1]
    assert math.hypot(x - goal[0], y - goal[1]) <= tol
    assert abs(math.remainder(h - goal[2], 2 * math.pi)) <= htol
    assert ends is None or plan.states[-1] in ends


def test_headings_a_whole_turn_apart_merge_at_any_heading_resolution():
    # Half turns either way reach the headings pi and -pi: one state, not two, even when the
    # resolution does not divide a turn (FINEST does not).
    clips = ClipCatalogue([Clip("left", "s", "s", duration=1.0, rotation=math.pi),
                           Clip("right", "s", "s", duration=1.0, rotation=-math.pi)])
    for hr in (FINEST, 0.3, math.pi / 2):
        plan = plan_movement(None, clips, (0, 0, 0), (0, 0, math.pi / 2), start_state="s",
                             heading_tolerance=0.1, heading_resolution=hr)
        assert plan.status is Status.FAILED
        assert plan.stats.expanded == 2


# --- worlds ------------------------------------------------------------------------------

def test_navmesh_plans_go_round_the_hole_on_the_mesh():
    mesh = NavMesh.build(outline=[(0, 0), (16, 0), (16, 10), (0, 10)],
                         holes=[[(6, 0.5), (9, 0.5), (9, 8), (6, 8)]])
    clips = default_clips()
    start, goal = (2.0, 2.0, 0.0), (13.0, 2.0, 0.0)
    plan = plan_movement(mesh, clips, start, goal, position_tolerance=0.4)
    assert plan.found
    area = free_area(mesh)
    for pose, name in zip(plan.poses[:-1], plan.clips):
        assert clear(area, clips[name].root_path(pose, 0.1)[:, :2])
    samples = np.concatenate([clips[n].root_path(p, 0.1)[:, :2]
                              for p, n in zip(plan.poses[:-1], plan.clips)])
    by_hole = samples[(samples[:, 0] > 6) & (samples[:, 0] < 9)]
    assert len(by_hole) and ((by_hole[:, 1] < 0.5) | (by_hole[:, 1] > 8)).all()
    assert plan.length >= mesh.find_path(start[:2], goal[:2]).cost - 0.4


def test_the_navmesh_heuristic_asks_exact_shortest_paths_once_per_corner(monkeypatch):
    mesh = NavMesh.build(outline=[(0, 0), (16, 0), (16, 10), (0, 10)],
                         holes=[[(6, 0.5), (9, 0.5), (9, 8), (6, 8)]])
    calls: list[tuple] = []
    find_path = NavMesh.find_path

    def counted(self, start, goal, **options):
        calls.append((tuple(start), options.get("method")))
        return find_path(self, start, goal, **options)

    monkeypatch.setattr(NavMesh, "find_path", counted)
    monkeypatch.setattr(movement, "_FIELD_AFTER", 0)
    plan = plan_movement(mesh, default_clips(), (2.0, 2.0, 0.0), (13.0, 2.0, 0.0),
                         position_tolerance=0.4)
    assert plan.found and calls
    # Exact lengths (an estimate above the shortest path would not be admissible), and
    # states that share a corner share one search.
    assert {method for _, method in calls} == {"polyanya"}
    assert len(set(calls)) == len(calls)


def test_a_grid_with_an_origin_and_cell_size_is_walled_in_world_units():
    grid = Grid(np.ones((4, 10), dtype=bool), origin=(100.0, 50.0), cell_size=0.5)
    clips = default_clips()
    plan = plan_movement(grid, clips, (101.0, 51.0, 0.0), (104.0, 51.0, 0.0),
                         position_tolerance=0.3)
    assert plan.found
    assert (plan.poses[:, 0] < 105.0).all() and (plan.poses[:, 1] < 52.0).all()
    # The same trip along a room too short for it fails the start check of a wall.
    with pytest.raises(InvalidQueryError, match="goal .* off the walkable area"):
        plan_movement(grid, clips, (101.0, 51.0, 0.0), (106.0, 51.0, 0.0))


def test_goal_must_be_in_sight_from_the_end_pose():
    # A thin wall just before the goal: ends within the tolerance behind it do not count.
    free = np.ones((6, 12), dtype=bool)
    free[0:5, 6] = False
    room = Grid(free)
    clips = book_clips()
    plan = plan_movement(room, clips, (1.5, 2.5, 0.0), (7.5, 2.5, 0.0), start_state=ST,
                         position_tolerance=1.6)
    assert plan.found and plan.poses[-1, 0] > 7.0


def test_a_budget_beyond_any_search_is_no_limit():
    far = plan_movement(None, default_clips(), (0, 0, 0), (3, 1, 0), max_expansions=2**100)
    free = plan_movement(None, default_clips(), (0, 0, 0), (3, 1, 0), max_expansions=None)
    assert far.status is Status.FOUND and far.clips == free.clips


def test_budget_stops_the_search():
    plan = plan_movement(None, default_clips(), (0, 0, 0), (20, 5, 0), max_expansions=3)
    assert plan.status is Status.OUT_OF_BUDGET and not plan.found
    assert plan.stats.expanded == 3
    assert plan.clips == () and plan.times.shape == (0,)


def test_start_in_the_goal_region_is_an_empty_plan():
    plan = plan_movement(None, default_clips(), (1, 1, 0.2), (1.1, 1, 0))
    assert plan.found and plan.clips == () and plan.time == 0.0 and plan.cost == 0.0
    assert plan.poses.tolist() == [[1.0, 1.0, 0.2]] and plan.states == ("standing",)


def test_plans_are_deterministic_records():
    a = plan_movement(None, default_clips(), (0, 0, 0), (5, 3, 1))
    b = plan_movement(None, default_clips(), (0, 0, 0), (5, 3, 1))
    assert a.clips == b.clips and a.cost == b.cost
    assert a == MovementPlan(a.clips, a.poses.copy(), a.states, a.times.copy(), a.time,
                             a.cost, a.length, a.status, a.stats)
    assert "clips" in repr(a)


# --- bad input ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"clips": "walk"}, "clips 'walk' must be a ClipCatalogue"),
    ({"start": (0, math.nan, 0)}, "start"),
    ({"goal": (1, 2)}, "goal"),
    ({"start_state": "flying"}, "unknown start_state 'flying'"),
    ({"position_tolerance": -1}, "position_tolerance -1"),
    ({"heading_tolerance": 4}, "heading_tolerance 4"),
    ({"end_states": "standing"}, "not one string"),
    ({"end_states": {"flying"}}, "end_states"),
    ({"end_states": set()}, "end_states"),
    ({"penalties": {"fly": 1}}, "unknown clip 'fly'"),
    ({"penalties": {"walk": -1}}, "penalty of 'walk' -1"),
    ({"position_resolution": 0}, "position_resolution 0"),
    ({"heading_resolution": math.inf}, "heading_resolution inf"),
    ({"step": 0}, "step 0"),
    ({"radius": -0.1}, "radius -0.1"),
    ({"max_expansions": -1}, "max_expansions -1"),
    ({"world": "room"}, "world str must be"),
    ({"world": lava_room(), "start": (5.5, 2.5, 0)}, r"start \(5.5, 2.5\) is off"),
    ({"world": lava_room(), "goal": (-1, 2.5, 0)}, "goal .* is off"),
    ({"start_state": ["standing"]}, r"unknown start_state \['standing'\]"),
    ({"end_states": [["standing"]]}, "end_states"),
    ({"penalties": "walk"}, "penalties 'walk' must be a mapping"),
    ({"penalties": [1, 2]}, r"penalties \[1, 2\] must be a mapping"),
    ({"penalties": {("walk",): 1}}, "unknown clip"),
])
def test_bad_arguments_are_refused(kwargs, message):
    args = {"world": None, "clips": default_clips(), "start": (0.5, 0.5, 0),
            "goal": (3, 0.5, 0), **kwargs}
    with pytest.raises(InvalidQueryError, match=message):
        plan_movement(args.pop("world"), args.pop("clips"), args.pop("start"),
                      args.pop("goal"), **args)


def test_wall_tests_count_touching_as_meeting():
    # Segment pairs: crossing, an end on the other, collinear overlapping, collinear apart,
    # parallel apart.
    p = np.array([(0, 0), (0, 0), (0, 0), (0, 0), (0, 1)], dtype=float)
    q = np.array([(2, 2), (1, 0), (2, 0), (1, 0), (2, 1)], dtype=float)
    a = np.array([(0, 2), (1, -1), (1, 0), (2, 0), (0, 0)], dtype=float)
    b = np.array([(2, 0), (1, 1), (3, 0), (3, 0), (2, 0)], dtype=float)
    assert segments_cross(p, q, a, b).tolist() == [True, False, False, False, False]
    assert segments_cross(p, q, a, b, touching=True).tolist() == [True, True, True, False,
                                                                  False]
    assert segment_gaps(p, q, a, b).tolist() == [0.0, 0.0, 0.0, 1.0, 1.0]


def test_a_root_path_that_grazes_a_wall_is_refused():
    # The quicker side step ends on the room's wall (x = 0), touching it: at radius 0 the
    # plan takes the slower, shorter one.
    room = Grid(np.ones((4, 4), dtype=bool))
    clips = ClipCatalogue([Clip("left", "s", "s", duration=1.0, dy=0.5),
                           Clip("half_left", "s", "s", duration=2.0, dy=0.4)])
    plan = plan_movement(room, clips, (0.5, 1.0, math.pi / 2), (0.1, 1.0, 0.0),
                         start_state="s", position_tolerance=0.15)
    assert plan.clips == ("half_left",)
    assert plan_movement(None, clips, (0.5, 1.0, math.pi / 2), (0.1, 1.0, 0.0),
                         start_state="s", position_tolerance=0.15).clips == ("left",)


def test_radius_keeps_the_root_path_off_the_walls():
    hall = Grid(np.ones((3, 14), dtype=bool))            # a hall 3 m wide
    clips = default_clips()
    start, goal = (1.5, 1.5, 0.0), (12.0, 1.5, 0.0)
    plan = plan_movement(hall, clips, start, goal, radius=0.4, position_tolerance=0.3)
    assert plan.found
    walls = free_area(hall).boundary
    for pose, name in zip(plan.poses[:-1], plan.clips):
        assert walls.distance(polyline(clips[name].root_path(pose, 0.1)[:, :2])) > 0.4
    # The default catalogue's sidesteps and arcs swing the root sideways: a wider disc
    # leaves fewer plans, never a cheaper one.
    point = plan_movement(hall, clips, start, goal, position_tolerance=0.3)
    assert point.cost <= plan.cost
    with pytest.raises(InvalidQueryError, match="within radius 1.6 of a wall"):
        plan_movement(hall, clips, start, goal, radius=1.6)


@pytest.mark.parametrize("radius", [0.5, 0.9])
def test_radius_against_a_navmesh_matches_the_distance_oracle(radius):
    mesh = WORLDS["navmesh"]()
    clips = small_catalogues()["turns"]
    plan = plan_movement(mesh, clips, (-1.0, 0.5, 0.0), (4.0, 0.0, 0.0), start_state="a",
                         radius=radius, position_tolerance=0.5)
    assert plan.found
    walls = free_area(mesh).boundary
    for pose, name in zip(plan.poses[:-1], plan.clips):
        assert walls.distance(polyline(clips[name].root_path(pose, 0.1)[:, :2])) > radius


# --- the compiled search: walls, the distance field ----------------------------------------

def random_room(seed: int) -> Grid:
    """A 10 x 8 grid with a few blocked cells, half a metre per cell, off the origin."""
    free = np.random.default_rng(seed).random((8, 10)) > 0.2
    return Grid(free, origin=(-1.0, 2.0), cell_size=0.5)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("radius", [0.0, 0.2])
def test_the_wall_test_matches_the_geometry_oracle(seed, radius):
    # Polylines on a lattice of eighths touch walls exactly; the oracle is GEOS.
    world = random_room(seed)
    walls = movement._walls(world)
    boundary = free_area(world).boundary
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n = int(rng.integers(2, 6))
        start = rng.uniform((-1.5, 1.5), (4.5, 6.5))
        points = start + np.cumsum(rng.uniform(-0.6, 0.6, (n, 2)), axis=0)
        if not radius:
            points = np.round(points * 8) / 8
        line = polyline(points)
        if radius:
            gap = boundary.distance(line)
            if abs(gap - radius) < 1e-9:
                continue
            expected = gap > radius
        else:
            expected = not line.intersects(boundary)
        assert walls.clear(np.ascontiguousarray(points), radius) is expected, points.tolist()


def exact_distance(world, goal):
    """The exact shortest path of a point to ``goal`` on the world's walkable area (the
    reduced visibility graph, an independent oracle)."""
    from wayfinding.navmesh.exact import VisibilityMap

    area = free_area(world)
    vm = VisibilityMap(area)
    return lambda p: float(vm.find_path(p, goal).cost)


@pytest.mark.parametrize("world_name", ["grid", "navmesh"])
def test_the_distance_field_bounds_the_shortest_path_from_below(world_name):
    world = lava_room() if world_name == "grid" else NavMesh.build(lava_room())
    goal = np.array([10.5, 1.5])
    field = movement._field(world, goal, 0.5)
    exact = exact_distance(world, goal)
    rng = np.random.default_rng(5)
    area = free_area(world)
    from shapely.geometry import Point

    points = [p for p in rng.uniform((0, 0), (12, 8), (300, 2)) if area.covers(Point(p))]
    for p in points[:60]:
        bound = field.at(*p)
        assert bound <= exact(p) + 1e-9
    # At a corner of its cell (the wall's) the bound is the corner's shortest path; behind
    # the wall it beats the straight line by far.
    assert field.at(5.0, 6.0) == pytest.approx(exact((5.0, 6.0)), abs=1e-9)
    behind = (2.0, 1.0)
    assert field.at(*behind) > math.dist(behind, goal) + 2.0


def test_a_failing_corner_distance_raises_its_error(monkeypatch):
    def broken(self, start, goal, **options):
        raise ArithmeticError("no path today")

    monkeypatch.setattr(NavMesh, "find_path", broken)
    monkeypatch.setattr(movement, "_FIELD_AFTER", 0)
    mesh = WORLDS["navmesh"]()
    with pytest.raises(ArithmeticError, match="no path today"):
        plan_movement(mesh, default_clips(), (0, 0, 0), (4, 0, 0))


@pytest.mark.parametrize("world_name", ["grid", "navmesh"])
def test_searches_take_the_field_only_when_they_run_long(monkeypatch, world_name):
    calls: list[tuple] = []
    find_path = NavMesh.find_path

    def counted(self, start, goal, **options):
        calls.append(tuple(start))
        return find_path(self, start, goal, **options)

    monkeypatch.setattr(NavMesh, "find_path", counted)
    room = lava_room() if world_name == "grid" else NavMesh.build(lava_room())
    short = plan_movement(room, default_clips(), (1.5, 1.5, 0.0), (4.0, 2.5, 0.0))
    assert short.found and short.stats.expanded < movement._FIELD_AFTER and not calls
    # Round the lava: the straight line alone leaves the search far from done.
    start, door = (1.5, 1.5, 0.0), (10.5, 1.5, 0.0)
    plan = plan_movement(room, default_clips(), start, door, max_expansions=100_000)
    assert plan.found and plan.stats.expanded > movement._FIELD_AFTER and calls
    assert len(set(calls)) == len(calls)             # once per corner
    monkeypatch.setattr(movement, "_FIELD_AFTER", 10**9)
    blind = plan_movement(room, default_clips(), start, door, max_expansions=plan.stats.expanded)
    assert blind.status is Status.OUT_OF_BUDGET


@pytest.mark.parametrize("cat_name", ["turns", "states", "arcs"])
@pytest.mark.parametrize("goal, tol, htol", [
    ((3.0, 0.0, 0.0), 0.3, math.pi),
    ((4.0, 1.2, math.pi / 2), 0.5, 0.8),
    ((0.0, -1.5, 0.0), 0.4, 0.3),
])
@pytest.mark.parametrize("world_name", ["grid", "navmesh"])
def test_optimum_with_the_field_from_the_first_expansion(monkeypatch, world_name, cat_name, goal,
                                                         tol, htol):
    monkeypatch.setattr(movement, "_FIELD_AFTER", 0)
    test_planner_optimum_equals_brute_force(world_name, cat_name, goal, tol, htol)


def test_the_kernel_refuses_mismatched_arrays():
    walls = movement._walls(None)
    ints, floats = np.zeros(1, dtype=np.int32), np.zeros(1)
    args = [walls, _movement.Field(), ints, ints, floats, floats, floats, floats,
            np.array([0, 1]), np.zeros((1, 2)), np.array([0, 1]), ints,
            np.ones(1, dtype=np.uint8), np.zeros(3), 0, np.zeros(3)]
    options = dict(tol=0.1, htol=1.0, radius=0.0, position_resolution=0.1,
                   heading_resolution=0.1, vmax=1.0, turning=0.0, exact=False, field_after=0,
                   limit=10)
    with pytest.raises(ValueError, match="fewer than two samples"):
        _movement.plan(*args, **options)
    args[8] = np.array([0, 5])
    with pytest.raises(ValueError, match="one length per clip"):
        _movement.plan(*args[:2], ints, np.zeros(2, dtype=np.int32), *args[4:], **options)
    with pytest.raises(ValueError, match=r"\(m, 2\)"):
        _movement.Walls(np.zeros((2, 2)), np.zeros((3, 2)), np.zeros(2, dtype=np.int64),
                        np.zeros(0, dtype=np.int32), 0.0, 0.0, 1.0, 1, 1)


# --- the distance field: pinches, unflagged polygons, no shapely, bad answers -------------

def pinch_grid(cell_size: float = 1.0) -> Grid:
    """Free cells (0, 2) and (1, 3) (and (1, 3)'s row) touch only at the corner
    ``(1, 3) * cell_size``: from one side to the other is the long way round."""
    return Grid(np.array([[1, 1, 1, 1, 1],
                          [1, 0, 0, 0, 1],
                          [1, 0, 1, 1, 1],
                          [0, 1, 1, 1, 1]], dtype=bool), cell_size=cell_size)


def pinch_rooms(method: str) -> NavMesh:
    """Two rooms touching only at their corner (4, 4), joined the long way round by a
    corridor, as the mesh of one builder."""
    pytest.importorskip("shapely")
    from shapely.geometry import box
    from shapely.ops import unary_union

    area = unary_union([box(0, 0, 4, 4), box(4, 4, 8, 8), box(-2, 0, 0, 10), box(-2, 8, 8, 10)])
    return NavMesh.build(area, method=method)


PINCHES = {      # a world, the goal, a point on the goal's side of the pinch near it
    "grid": (pinch_grid, (1.5, 3.5), (1.2, 3.2)),
    "grid mesh": (lambda: NavMesh.build(pinch_grid()), (1.5, 3.5), (1.2, 3.2)),
    "delaunay": (lambda: pinch_rooms("delaunay"), (6.0, 5.0), (4.6, 4.3)),
    "subtractive": (lambda: pinch_rooms("subtractive"), (6.0, 5.0), (4.6, 4.3)),
}


@pytest.mark.parametrize("name", list(PINCHES))
def test_the_distance_field_bounds_the_shortest_path_at_a_pinch(name):
    make, goal, near = PINCHES[name]
    world = make()
    field = movement._field(world, np.array([*goal, 0.0]), 0.5)
    # The exact search from the point (the visibility graph would pass through the pinch,
    # which a root path may not touch).
    mesh = world if isinstance(world, NavMesh) else NavMesh.build(world)

    def exact(p):
        return float(mesh.find_path(p, goal, method="polyanya").cost)

    # Beside the pinch on the goal's side: the pinch corner's way round is no bound there.
    assert field.at(*near) <= exact(near) + 1e-9
    area = free_area(world)
    from shapely.geometry import Point

    lo, hi = np.array(area.bounds[:2]), np.array(area.bounds[2:])
    rng = np.random.default_rng(11)
    points = [p for p in rng.uniform(lo, hi, (400, 2)) if area.contains(Point(p))]
    corner = np.array(near).round()
    points += [p for p in corner + rng.uniform(-0.3, 0.3, (200, 2)) if area.contains(Point(p))]
    for p in points:
        assert field.at(*p) <= exact(p) + 1e-9, p


def witness_grid() -> Grid:
    """A grid whose cheapest plan (from seeded random poses) passes by pinch corners."""
    return Grid(np.array([[1, 0, 1, 1, 1, 1, 1], [1, 0, 1, 1, 1, 1, 1], [1, 0, 1, 0, 0, 1, 0],
                          [1, 1, 1, 1, 1, 0, 0], [1, 1, 0, 1, 1, 1, 1], [0, 1, 1, 0, 1, 1, 1],
                          [0, 1, 1, 1, 1, 0, 1]], dtype=bool), cell_size=1.5)


@pytest.mark.parametrize("method", [None, "delaunay", "subtractive"])
def test_plans_by_pinches_cost_what_the_search_without_the_field_finds(monkeypatch, method):
    world = witness_grid() if method is None else NavMesh.build(witness_grid(), method=method)
    start, goal = (5.064969755412081, 0.9314184966807181, -1.8520564436567983), (8.25, 6.75, 0)
    options = dict(position_resolution=0.1, heading_resolution=0.1, max_expansions=60_000)
    plan = plan_movement(world, default_clips(), start, goal, **options)
    assert plan.found and plan.stats.expanded > movement._FIELD_AFTER
    monkeypatch.setattr(movement, "_FIELD_AFTER", 10**12)
    blind = plan_movement(world, default_clips(), start, goal, **options)
    assert blind.found and plan.cost == pytest.approx(blind.cost, abs=1e-9)


def test_the_distance_field_crosses_polygons_without_flags(monkeypatch):
    pytest.importorskip("shapely")
    from shapely.geometry import box

    area = box(0, 0, 12, 4)
    mesh = NavMesh.build(area, regions=[(box(4, 0, 8, 3.5), 1, 0)])
    assert (mesh.flags == 0).any() and len(mesh.boundary()) == 1     # walkable all through
    field = movement._field(mesh, np.array([11.0, 1.0, 0.0]), 0.5)
    exact = exact_distance(mesh, (11.0, 1.0))
    for p in [(1.0, 1.0), (3.5, 3.8), (6.0, 0.5), (0.2, 3.9), (4.0, 0.0)]:
        assert field.at(*p) <= exact(p) + 1e-9, p
    assert field.at(1.0, 1.0) == pytest.approx(10.0, abs=1e-9)    # not round the region
    options = dict(position_resolution=0.2, heading_resolution=0.2, max_expansions=30_000)
    monkeypatch.setattr(movement, "_FIELD_AFTER", 0)
    plan = plan_movement(mesh, default_clips(), (1, 1, 0), (11, 1, 0), **options)
    monkeypatch.setattr(movement, "_FIELD_AFTER", 10**12)
    blind = plan_movement(mesh, default_clips(), (1, 1, 0), (11, 1, 0), **options)
    assert plan.found and plan.cost == pytest.approx(blind.cost, abs=1e-9)


def test_without_shapely_grid_plans_keep_the_straight_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "shapely", None)        # the [geometry] extra missing
    room = lava_room()
    field = movement._field(room, np.array([10.5, 1.5, 0.0]), 0.5)
    assert field.at(2.0, 1.0) == 0.0
    start, door = (1.5, 1.5, 0.0), (10.5, 1.5, 0.0)
    plan = plan_movement(room, default_clips(), start, door, max_expansions=200_000)
    assert plan.found and plan.stats.expanded > movement._FIELD_AFTER
    monkeypatch.setattr(movement, "_FIELD_AFTER", 10**12)
    blind = plan_movement(room, default_clips(), start, door, max_expansions=200_000)
    assert blind.clips == plan.clips and blind.stats.expanded == plan.stats.expanded


def test_a_nan_corner_distance_is_refused(monkeypatch):
    room = Grid(np.ones((5, 5), dtype=bool))
    free = np.ascontiguousarray(room.passable).view(np.uint8)
    field = _movement.GridField(0.0, 0.0, 1.0, free, lambda x, y: math.nan)
    with pytest.raises(ValueError, match="NaN"):
        field.at(1.5, 1.5)
    monkeypatch.setattr(movement, "_field", lambda world, goal, spacing: field)
    monkeypatch.setattr(movement, "_FIELD_AFTER", 0)
    with pytest.raises(ValueError, match=r"from \(1\.0, 1\.0\) to the goal is NaN"):
        plan_movement(room, default_clips(), (1, 1, 0), (4, 4, 0))


def test_the_kernel_refuses_none_for_its_walls_and_field():
    walls = movement._walls(None)
    ints, zero, one = np.zeros(1, dtype=np.int32), np.zeros(1), np.ones(1)
    args = [ints, ints, one, zero, zero, one, np.array([0, 2]),
            np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([0, 1]), ints,
            np.ones(1, dtype=np.uint8), np.zeros(3), 0, np.array([5.0, 0.0, 0.0])]
    options = dict(tol=0.1, htol=1.0, radius=0.0, position_resolution=0.1,
                   heading_resolution=0.1, vmax=1.0, turning=0.0, exact=False, field_after=0,
                   limit=10)
    with pytest.raises(TypeError, match="walls"):
        _movement.plan(None, _movement.Field(), *args, **options)
    with pytest.raises(TypeError, match="field"):
        _movement.plan(walls, None, *args, **options)
    assert _movement.plan(walls, _movement.Field(), *args, **options)[0] == _movement.FOUND


def test_a_worlds_walls_are_worked_out_once_and_go_with_it():
    import gc
    import weakref
    from concurrent.futures import ThreadPoolExecutor
    from functools import partial

    free = np.ones((8, 12), bool)
    free[1:7, 6] = False
    grid = Grid(free, origin=(0.25, 0.5))     # a world no other test makes
    mesh = NavMesh.build(grid)
    clips = default_clips()
    for world in (grid, mesh):
        first = plan_movement(world, clips, (1.5, 1.5, 0.0), (4.5, 6.5, 0.0))
        parts = movement._WALLS[world]
        query = partial(plan_movement, world, clips, (1.5, 1.5, 0.0), (4.5, 6.5, 0.0))
        with ThreadPoolExecutor(4) as pool:   # each query its own scratch over shared walls
            again = list(pool.map(lambda _, q=query: q(), range(4)))
        assert movement._WALLS[world] is parts
        assert all(p.found and p.time == first.time and p.clips == first.clips for p in again)
    gone = [weakref.ref(grid), weakref.ref(mesh)]
    del world, grid, mesh, query
    gc.collect()
    assert all(ref() is None for ref in gone)    # the walls kept do not keep their world
