"""Hybrid A* for a car: drivable and collision-free paths, bounded below by the Reeds–Shepp
length and the holonomic distance, the obstacle-free answer, reversing, failure, bad input."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.grid.generate import caves
from wayfinding.navmesh import NavMesh
from wayfinding.paths import reeds_shepp_path, turning_path
from wayfinding.results import Status
from wayfinding.vehicles.hybrid import CarPath, car_path_bounds, plan_car_path

CAR = {"turning_radius": 3.0, "length": 2.0, "width": 1.0}


def corridor(height: int = 6, length: int = 28) -> Grid:
    """A closed corridor ``height`` cells wide inside a one-cell wall."""
    free = np.zeros((height + 2, length + 2), dtype=bool)
    free[1:-1, 1:-1] = True
    return Grid(free)


def cave() -> Grid:
    return caves(48, 48, seed=3)


def rect_points(pose: np.ndarray, length: float, width: float, n: int = 9) -> np.ndarray:
    """Points filling the car's rectangle at ``pose`` (a lattice, edges included)."""
    u = np.linspace(-length / 2, length / 2, n)
    v = np.linspace(-width / 2, width / 2, n)
    a, b = (m.ravel() for m in np.meshgrid(u, v))
    c, s = math.cos(pose[2]), math.sin(pose[2])
    return np.column_stack([pose[0] + a * c - b * s, pose[1] + a * s + b * c])


def assert_clear(grid: Grid, poses: np.ndarray, length: float, width: float) -> None:
    """Every point of the rectangle, at every pose and halfway between poses, lies on a
    free cell of the map (checked point by point, independently of the planner)."""
    mid = (poses[1:] + poses[:-1]) / 2
    for pose in np.concatenate([poses, mid]):
        pts = rect_points(pose, length, width)
        cells, inside = grid.world_to_cells(pts)
        assert inside.all(), pose
        assert grid.passable[cells[:, 1], cells[:, 0]].all(), pose


def assert_drivable(r: CarPath, radius: float) -> None:
    """Curvature at most 1/radius, heading continuous and along the motion, gears right."""
    d = np.diff(r.poses, axis=0)
    chord = np.hypot(d[:, 0], d[:, 1])
    assert (chord > 0).all()
    # a circular arc of radius r turns 2 asin(chord / 2r) over a chord
    turn = 2 * np.arcsin(np.minimum(chord / (2 * radius), 1.0))
    assert (np.abs(d[:, 2]) <= turn * (1 + 1e-9) + 1e-12).all()
    mid = r.poses[:-1, 2] + d[:, 2] / 2        # the chord's direction on an arc
    along = d[:, 0] * np.cos(mid) + d[:, 1] * np.sin(mid)
    across = d[:, 1] * np.cos(mid) - d[:, 0] * np.sin(mid)
    np.testing.assert_allclose(np.abs(along), chord, rtol=1e-9)
    assert np.abs(across).max() < 1e-9
    np.testing.assert_array_equal(np.sign(along), r.gears[1:])
    assert r.gears[0] == r.gears[1]
    length = float(chord.sum())
    assert r.length == pytest.approx(length, rel=1e-3)


def lower_bounds(grid: Grid, start: tuple[float, float, float],
                 goal: tuple[float, float, float], radius: float) -> tuple[float, float]:
    """The Reeds–Shepp length and the straight distance between the poses."""
    rs = reeds_shepp_path(start[:2], (math.cos(start[2]), math.sin(start[2])), goal[:2],
                          (math.cos(goal[2]), math.sin(goal[2])), radius).length
    return rs, math.dist(start[:2], goal[:2])


CASES = {
    "cave-a": (cave, (9.5, 9.5, 0.0), (38.5, 38.5, 1.5)),
    "cave-b": (cave, (38.5, 38.5, math.pi), (9.5, 9.5, -1.0)),
    "u-turn": (corridor, (20.0, 4.0, 0.0), (10.0, 4.0, math.pi)),
    "parallel": (corridor, (6.0, 2.0, 0.0), (14.0, 2.0, 0.0)),
}


def _cave_pose_ok(grid: Grid, pose: tuple[float, float, float]) -> bool:
    cells, inside = grid.world_to_cells(rect_points(np.array(pose), 3.0, 1.5))
    return bool(inside.all() and grid.passable[cells[:, 1], cells[:, 0]].all())


@pytest.mark.parametrize("name", sorted(CASES))
def test_paths_are_drivable_clear_and_no_shorter_than_the_bounds(name: str) -> None:
    make, start, goal = CASES[name]
    grid = make()
    car = dict(CAR)
    r = plan_car_path(grid, start, goal, **car)
    assert r.found and r.status is Status.FOUND
    np.testing.assert_allclose(r.poses[0], start)
    np.testing.assert_allclose(r.poses[-1, :2], goal[:2], atol=1e-9)
    assert (r.poses[-1, 2] - goal[2]) / (2 * math.pi) == pytest.approx(
        round((r.poses[-1, 2] - goal[2]) / (2 * math.pi)), abs=1e-9)
    assert_drivable(r, car["turning_radius"])
    assert_clear(grid, r.poses, car["length"], car["width"])
    rs, straight = lower_bounds(grid, start, goal, car["turning_radius"])
    assert r.length >= rs - 1e-9
    assert r.length >= straight
    assert r.cost == pytest.approx(r.length)


def test_length_is_at_least_the_holonomic_optimum() -> None:
    # A wall across a room with a gap at the top: any path of the centre climbs to the gap.
    free = np.ones((24, 30), dtype=bool)
    free[:18, 14:16] = False
    grid = Grid(free)
    start, goal = (5.0, 3.0, 0.0), (25.0, 3.0, 0.0)
    r = plan_car_path(grid, start, goal, **CAR)
    assert r.found
    assert_clear(grid, r.poses, CAR["length"], CAR["width"])
    # The centre stays width/2 from the wall, so it passes above y = 18 + 0.5 at x = 14..16.
    gap = (14.0, 18.5)
    holonomic = math.dist(start[:2], gap) + 2.0 + math.dist((16.0, 18.5), goal[:2])
    assert r.length >= holonomic


def test_the_open_field_answer_is_the_reeds_shepp_path() -> None:
    grid = Grid(np.ones((40, 40), dtype=bool))
    start, goal = (20.0, 20.0, 0.0), (17.0, 22.0, math.pi / 2)
    r = plan_car_path(grid, start, goal, **CAR)
    rs = reeds_shepp_path(start[:2], (1, 0), goal[:2], (0, 1), CAR["turning_radius"])
    assert r.found and r.stats.expanded == 1
    assert r.length == pytest.approx(rs.length, abs=1e-9)
    # the same curve: each sample lies on Reeds–Shepp's finely drawn path
    dense = rs.poses(0.001)
    gap = np.min(np.hypot(r.poses[:, None, 0] - dense[None, :, 0],
                          r.poses[:, None, 1] - dense[None, :, 1]), axis=1)
    assert gap.max() < 1e-3
    signs = [s for s in rs.segments if s != 0]
    assert set(r.gears.tolist()) == {int(math.copysign(1, s)) for s in signs}


def test_forward_only_uses_dubins_bounds_and_needs_room_to_turn() -> None:
    grid = Grid(np.ones((40, 40), dtype=bool))
    start, goal = (10.0, 20.0, 0.0), (30.0, 24.0, math.pi)
    r = plan_car_path(grid, start, goal, **CAR, reverse=False)
    assert r.found and (r.gears == 1).all()
    assert_drivable(r, CAR["turning_radius"])
    dubins = turning_path(start[:2], (1, 0), goal[:2], (-1, 0), CAR["turning_radius"])
    assert r.length >= dubins.length - 1e-9
    # a corridor narrower than the turning circle: turning round needs the reverse gear
    narrow = corridor()
    u_start, u_goal = CASES["u-turn"][1:]
    assert not plan_car_path(narrow, u_start, u_goal, **CAR, reverse=False).found
    back = plan_car_path(narrow, u_start, u_goal, **CAR)
    assert back.found and (back.gears == -1).any()


def test_forward_only_the_analytic_expansion_drives_the_dubins_word() -> None:
    # The shortest Reeds–Shepp word backs up (L-R-L+); the Dubins word (RSL) is clear in
    # the open field, so the expansion from the start ends the search.
    grid = Grid(np.ones((40, 40), dtype=bool))
    start, goal = (20.0, 20.0, 0.0), (17.0, 22.0, math.pi / 2)
    rs = reeds_shepp_path(start[:2], (1, 0), goal[:2], (0, 1), CAR["turning_radius"])
    assert "-" in rs.word
    r = plan_car_path(grid, start, goal, **CAR, reverse=False)
    assert r.found and r.stats.expanded == 1 and (r.gears == 1).all()
    dubins = turning_path(start[:2], (1, 0), goal[:2], (0, 1), CAR["turning_radius"])
    assert r.length == pytest.approx(dubins.length, abs=1e-9)
    np.testing.assert_allclose(r.poses[-1, :2], goal[:2], atol=1e-9)
    assert_drivable(r, CAR["turning_radius"])
    assert_clear(grid, r.poses, CAR["length"], CAR["width"])
    # the same curve: each sample lies on the finely drawn Dubins path
    dense = dubins.points(0.001)
    gap = np.min(np.hypot(r.poses[:, None, 0] - dense[None, :, 0],
                          r.poses[:, None, 1] - dense[None, :, 1]), axis=1)
    assert gap.max() < 1e-3


def test_reverse_cost_weighs_backing_up() -> None:
    grid = corridor()
    start, goal = CASES["u-turn"][1:]
    r = plan_car_path(grid, start, goal, **CAR, reverse_cost=3.0)
    assert r.found
    backed = np.diff(r.poses[:, :2], axis=0)[r.gears[1:] < 0]
    back = float(np.hypot(backed[:, 0], backed[:, 1]).sum())
    assert r.cost == pytest.approx(r.length + 2 * back, rel=1e-3)


def test_an_unreachable_goal_fails_cleanly() -> None:
    free = np.ones((20, 30), dtype=bool)
    free[:, 14:16] = False
    r = plan_car_path(Grid(free), (5, 10, 0), (25, 10, 0), **CAR)
    assert not r.found and r.status is Status.FAILED
    assert r.poses.shape == (0, 3) and r.gears.shape == (0,)
    assert r.length == math.inf and r.cost == math.inf


def test_start_equal_to_goal_is_one_pose() -> None:
    r = plan_car_path(corridor(), (10, 4, 1.0), (10, 4, 1.0), **CAR)
    assert r.found and r.length == 0.0 and r.poses.shape == (1, 3)


def test_budget_stops_the_search() -> None:
    r = plan_car_path(cave(), *CASES["cave-a"][1:], **CAR, max_expansions=2,
                      expansion_every=100)
    assert r.status is Status.OUT_OF_BUDGET and not r.found and r.stats.expanded == 2


@pytest.mark.parametrize("budget", [2**63 - 1, 2**63, 2**100])
def test_a_budget_beyond_any_search_is_no_limit(budget: int) -> None:
    unlimited = plan_car_path(cave(), *CASES["cave-a"][1:], **CAR, max_expansions=None)
    r = plan_car_path(cave(), *CASES["cave-a"][1:], **CAR, max_expansions=budget)
    assert r.found and r.poses.tobytes() == unlimited.poses.tobytes()


def test_same_inputs_same_record() -> None:
    a = plan_car_path(cave(), *CASES["cave-b"][1:], **CAR)
    b = plan_car_path(cave(), *CASES["cave-b"][1:], **CAR)
    assert a.poses.tobytes() == b.poses.tobytes() and a.length == b.length


@pytest.mark.parametrize(("change", "match"), [
    ({"world": np.ones((4, 4))}, "world ndarray must be a Grid or a NavMesh"),
    ({"start_pose": (1, 2)}, "start_pose"),
    ({"goal_pose": (1, 2, math.nan)}, "goal_pose"),
    ({"turning_radius": 0}, "turning_radius"),
    ({"length": -1}, "length"),
    ({"width": math.inf}, "width"),
    ({"reverse": "yes"}, "reverse"),
    ({"reverse_cost": 0.5}, "reverse_cost"),
    ({"heading_bins": 2}, "heading_bins"),
    ({"expansion_every": 0}, "expansion_every"),
    ({"max_expansions": -1}, "max_expansions"),
    ({"start_pose": (0.5, 4, 0)}, "start_pose .* off the map"),
    ({"goal_pose": (10, 1.2, 0)}, "goal_pose .* obstacle"),
    ({"cell_size": 0}, "cell_size"),
    ({"cell_size": 1e-7}, "cell_size 1e-07 is too small for this world"),
    # Samples a whole radius apart would be 1e300 to a move: refused, not overflowed.
    ({"turning_radius": 1e-300}, "turning_radius 1e-300, .* would need"),
    ({"turning_radius": 1e-6}, "turning_radius 1e-06, .* would need"),
    # The car's reach over the radius overflows: no step at all, refused as well.
    ({"turning_radius": 5e-324}, "turning_radius 5e-324, .* would need"),
])
def test_bad_input_is_refused(change: dict, match: str) -> None:
    args = {"world": corridor(), "start_pose": (10, 4, 0), "goal_pose": (20, 4, 0), **CAR}
    args.update(change)
    with pytest.raises(InvalidQueryError, match=match):
        plan_car_path(args.pop("world"), args.pop("start_pose"), args.pop("goal_pose"),
                      **args)


@pytest.mark.parametrize("heading", [1e10, 2.0**60, 1e300])
def test_a_start_heading_of_any_size_is_taken_in_one_turn(heading: float) -> None:
    # Turns added to a heading of 1e10 radians lose bits; to 1e300, all of them.
    field = Grid(np.ones((20, 30), dtype=bool))
    r = plan_car_path(field, (5, 10, heading), (25, 10, 0), **CAR)
    assert r.found
    assert r.poses[0, 2] == math.remainder(heading, math.tau)
    np.testing.assert_allclose(r.poses[-1, :2], (25, 10), atol=1e-9)
    assert_drivable(r, CAR["turning_radius"])


@pytest.mark.parametrize("radius", [1e16, 1e20])
def test_a_goal_lost_to_rounding_is_not_reached_by_a_word_that_misses_it(radius: float) -> None:
    # Beside a radius of 1e16 the goal's offset across the heading is below the rounding
    # of the turning circles' centres: the word found misses the goal by metres.
    field = Grid(np.ones((20, 30), dtype=bool))
    car = {**CAR, "turning_radius": radius}
    for reverse in (True, False):
        r = plan_car_path(field, (5, 10, 0.3), (25, 11, 0.3), **car, reverse=reverse,
                          max_expansions=500)
        assert not r.found and r.poses.shape == (0, 3)
    # ... while a goal straight ahead is still one straight segment away.
    r = plan_car_path(field, (5, 10, 0.0), (25, 10, 0.0), **car)
    assert r.found and r.length == 20.0 and r.poses[-1].tolist() == [25.0, 10.0, 0.0]


def test_a_radius_far_larger_than_the_world_plans_in_bounded_memory() -> None:
    # The analytic expansion's words are 1e9 long: none stays on the map, and none is
    # sampled (1e10 samples) to find it out.  Run under a 1.5 GB address-space limit.
    code = ("import resource, numpy as np\n"
            "resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))\n"
            "from wayfinding.grid import Grid\n"
            "from wayfinding.vehicles import plan_car_path\n"
            "r = plan_car_path(Grid(np.ones((20, 30), dtype=bool)), (5, 10, 0), (25, 10, 1.5),"
            " turning_radius=1e9, length=2, width=1, max_expansions=3)\n"
            "print(r.status.name)\n")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 0, run.stderr[-400:]
    assert run.stdout.split() == ["OUT_OF_BUDGET"]


def room_mesh() -> NavMesh:
    """A 40 × 30 room split by a wall from the floor to y = 20, 2 thick: the way round is
    above it."""
    return NavMesh.build(outline=[(0, 0), (40, 0), (40, 30), (0, 30)],
                         holes=[[(15, 0.5), (17, 0.5), (17, 20), (15, 20)]])


def assert_on_mesh(mesh: NavMesh, poses: np.ndarray, length: float, width: float) -> None:
    """Every point of the rectangle, at every pose and halfway between poses, is on the
    mesh (located point by point)."""
    mid = (poses[1:] + poses[:-1]) / 2
    pts = np.concatenate([rect_points(p, length, width) for p in np.concatenate([poses, mid])])
    assert (mesh.locate_many(pts) >= 0).all()


@pytest.mark.parametrize(("start", "goal"), [
    ((5.0, 5.0, 0.0), (30.0, 5.0, 0.0)),
    ((5.0, 5.0, math.pi / 2), (8.0, 5.0, -math.pi / 2)),
])
def test_navmesh_paths_are_drivable_and_stay_on_the_mesh(start: tuple, goal: tuple) -> None:
    mesh = room_mesh()
    r = plan_car_path(mesh, start, goal, **CAR, cell_size=2.0)
    assert r.found
    assert_drivable(r, CAR["turning_radius"])
    assert_on_mesh(mesh, r.poses, CAR["length"], CAR["width"])
    rs, _ = lower_bounds(Grid(np.ones((1, 1), dtype=bool)), start, goal,
                         CAR["turning_radius"])
    assert r.length >= rs - 1e-9
    assert r.length >= mesh.find_path(start[:2], goal[:2]).cost - 1e-9


def test_navmesh_wall_blocks_the_rectangle_not_only_its_centre() -> None:
    # A gap 0.8 wide in the wall, in line with both poses (and two narrow ones at the
    # ends): a car 0.5 wide drives straight through, one 1 wide finds no way.
    mesh = NavMesh.build(outline=[(0, 0), (40, 0), (40, 30), (0, 30)],
                         holes=[[(15, 0.5), (17, 0.5), (17, 14.6), (15, 14.6)],
                                [(15, 15.4), (17, 15.4), (17, 29.5), (15, 29.5)]])
    narrow = plan_car_path(mesh, (5, 15, 0), (30, 15, 0), turning_radius=3, length=1,
                           width=0.5)
    assert narrow.found and narrow.length == pytest.approx(25)
    assert_on_mesh(mesh, narrow.poses, 1, 0.5)
    wide = plan_car_path(mesh, (5, 15, 0), (30, 15, 0), **CAR, max_expansions=300)
    assert not wide.found


def test_navmesh_bad_poses_are_refused() -> None:
    with pytest.raises(InvalidQueryError, match="start_pose .* obstacle"):
        plan_car_path(room_mesh(), (16, 10, 0), (30, 5, 0), **CAR)
    with pytest.raises(InvalidQueryError, match="goal_pose .* obstacle"):
        plan_car_path(room_mesh(), (5, 5, 0), (14.5, 10, 0), **CAR)
    with pytest.raises(InvalidQueryError, match="cell_size .* too small"):
        plan_car_path(room_mesh(), (5, 5, 0), (30, 5, 0), **CAR, cell_size=1e-6)


def test_cusps_count_the_changes_of_gear() -> None:
    stats = plan_car_path(corridor(), (6.0, 2.0, 0.0), (6.0, 2.0, 0.0), **CAR).stats
    gears = np.array([-1, -1, 1, 1, 1, -1, 1], dtype=np.int8)     # three changes
    r = CarPath(np.zeros((7, 3)), gears, 1.0, 1.0, True, Status.FOUND, stats)
    assert r.cusps == 3
    assert CarPath(np.empty((0, 3)), np.empty(0, dtype=np.int8), math.inf, math.inf, False,
                   Status.FAILED, stats).cusps == 0
    parking = plan_car_path(corridor(), (6.0, 2.0, 0.0), (14.0, 2.0, 0.0), **CAR)
    assert parking.cusps == int((parking.gears[1:] != parking.gears[:-1]).sum())


def holonomic_oracle(grid: Grid, a: tuple[int, int], b: tuple[int, int], half: float) -> float:
    """networkx Dijkstra over the cells whose centre is at least ``half`` from every blocked
    cell's centre (the map's outside blocked), 8-connected without corner cutting."""
    import networkx as nx

    h, w = grid.shape
    pad = np.zeros((h + 2, w + 2), dtype=bool)
    pad[1:-1, 1:-1] = grid.passable
    blocked = np.argwhere(~pad) - 1                     # (row, column) of blocked centres
    ok = {(x, y) for y in range(h) for x in range(w)
          if np.hypot(*(blocked - (y, x)).T).min() * grid.cell_size >= half}
    g = nx.Graph()
    g.add_nodes_from(ok)
    for x, y in ok:
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            q = (x + dx, y + dy)
            if q in ok and (dx == 0 or dy == 0 or ((x + dx, y) in ok and (x, y + dy) in ok)):
                g.add_edge((x, y), q, weight=math.hypot(dx, dy))
    if a not in ok or b not in ok or not nx.has_path(g, a, b):
        return math.inf
    return nx.dijkstra_path_length(g, a, b) * grid.cell_size


@pytest.mark.parametrize("width", [0.8, 1.5, 2.5, 4.5])
def test_the_bounds_are_the_reeds_shepp_length_and_the_holonomic_optimum(width: float) -> None:
    free = np.ones((14, 18), dtype=bool)
    free[:9, 7:9] = False                               # a wall with a gap above it
    free[11, 3] = False                                 # narrows the way up to the gap
    grid = Grid(free, cell_size=0.5, origin=(1.0, -2.0))
    start, goal = (2.3, 0.4, 0.3), (8.6, 0.2, -2.0)
    rs, holonomic = car_path_bounds(grid, start, goal, turning_radius=1.7, width=width)
    assert rs == reeds_shepp_path(start[:2], (math.cos(0.3), math.sin(0.3)), goal[:2],
                                  (math.cos(-2.0), math.sin(-2.0)), 1.7).length
    cells = [grid.world_to_cell(p[:2]) for p in (start, goal)]
    expected = holonomic_oracle(grid, *cells, width / 2)
    assert holonomic == pytest.approx(expected, rel=1e-12)
    assert math.isfinite(holonomic) == (width < 2.0)  # a wider car does not fit through


def test_the_holonomic_bound_is_inf_off_the_map_and_bad_input_is_refused() -> None:
    grid = corridor()
    assert car_path_bounds(grid, (-5.0, 2.0, 0.0), (6.0, 2.0, 0.0), turning_radius=2.0,
                           width=1.0)[1] == math.inf
    for change, match in [({"turning_radius": 0.0}, "turning_radius"),
                          ({"width": -1.0}, "width"), ({"start_pose": (1.0, 2.0)}, "start_pose"),
                          ({"goal_pose": (1.0, math.nan, 0.0)}, "goal_pose")]:
        options = {"start_pose": (3.0, 3.0, 0.0), "goal_pose": (9.0, 3.0, 0.0),
                   "turning_radius": 2.0, "width": 1.0, **change}
        with pytest.raises(InvalidQueryError, match=match):
            car_path_bounds(grid, **options)
    with pytest.raises(InvalidQueryError, match="Grid"):
        car_path_bounds(np.ones((4, 4)), (1.0, 1.0, 0.0), (2.0, 2.0, 0.0),  # type: ignore[arg-type]
                        turning_radius=1.0, width=1.0)
