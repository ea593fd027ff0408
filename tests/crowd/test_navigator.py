"""The crowd manager: agents added with targets plan over a navigation mesh, a grid or a
flow field, follow their corners, avoid each other and the walls, replan when pushed off
their way or stuck, and report their states; bad input."""

from __future__ import annotations

import math
import warnings
from contextlib import nullcontext

import numpy as np
import pytest
from shapely.geometry import MultiPolygon, box

from wayfinding import InvalidQueryError
from wayfinding.crowd import ORCA, Crowd, PowerLaw
from wayfinding.crowd.navigator import (
    ARRIVED,
    IDLE,
    MOVING,
    NO_PATH,
    STUCK,
    ClearanceWarning,
    Navigator,
)
from wayfinding.fields import FlowField
from wayfinding.geometry.obstacles import closest_on_segments
from wayfinding.grid import Grid
from wayfinding.navmesh import NavMesh

U_TURN = [(0, 0), (12, 0), (12, 4), (3, 4), (3, 6), (12, 6), (12, 10), (0, 10)]


def wall_gap(points, mesh):
    """Each point's distance to the nearest wall of ``mesh``."""
    loops = mesh.boundary()
    a = np.concatenate(loops)
    b = np.concatenate([np.roll(loop, -1, axis=0) for loop in loops])
    return np.array([closest_on_segments(p, a, b)[0].min() for p in points])


def test_agents_cross_a_u_turn_both_ways_clear_of_the_walls():
    walls = NavMesh.build(outline=U_TURN)
    nav = Navigator(NavMesh.build(outline=U_TURN, radius=0.4),
                    avoidance=ORCA(time_horizon=2.0, time_horizon_obst=1.0, obstacles=walls))
    ids = []
    for k in range(6):                     # six each way, round the end of the inner wall
        ids.append(nav.add((10.5 - 1.2 * k, 1.2 + 1.4 * (k % 2)), target=(10.5 - 1.2 * k, 8.6),
                           radius=0.3, max_speed=1.4))
        ids.append(nav.add((10.5 - 1.2 * k, 8.0 + 1.0 * (k % 2)), target=(10.0 - 1.2 * k, 1.5),
                           radius=0.3, max_speed=1.4))
    assert all(nav.state(a) == MOVING for a in ids)
    for _ in range(700):
        nav.update(0.05)
        assert wall_gap(nav.crowd.position, walls).min() >= 0.3 - 1e-3
    assert [nav.state(a) for a in ids] == [ARRIVED] * 12
    assert np.hypot(*(nav.crowd.position - nav._target[:12]).T).max() <= 0.05


@pytest.mark.parametrize("built_for", [0.0, 0.4])
@pytest.mark.parametrize("target", [(6.0, 0.4), (0.4, 0.4), (11.6, 5.0)])
def test_the_default_avoidance_keeps_crowded_agents_off_the_walls(target, built_for):
    """Twenty agents sent to one spot at a wall (or into a corner) crowd there and push
    each other towards it: with the default avoidance none ever crosses it, and on a mesh
    built for their radius they still reach the walls as given (not the eroded ones)."""
    room = NavMesh.build(outline=[(0, 0), (12, 0), (12, 6), (0, 6)])
    with pytest.warns(ClearanceWarning) if built_for == 0 else nullcontext():
        nav = Navigator(NavMesh.build(outline=[(0, 0), (12, 0), (12, 6), (0, 6)],
                                      radius=built_for), radius=0.4)
    rng = np.random.default_rng(7)
    for x, y in np.stack([rng.uniform(1, 11, 20), rng.uniform(2.5, 5.5, 20)], 1):
        nav.add((x, y), target=target, max_speed=1.4)
    closest = math.inf
    for _ in range(300):
        nav.update(0.05)
        closest = min(closest, wall_gap(nav.crowd.position, room).min())
    assert closest >= 0.4 - 0.02       # radii 0.4: at most a slight overlap
    assert closest <= 0.5              # they did crowd against the wall


def test_corners_are_taken_in_turn():
    nav = Navigator(NavMesh.build(outline=U_TURN, radius=0.4), avoidance=None)
    a = nav.add((10.0, 2.0), target=(10.0, 8.0), max_speed=1.0)
    nav.update(0.1)
    corners = nav.path(a)
    assert len(corners) >= 3 and corners[-1].tolist() == [10.0, 8.0]   # round the wall
    near = np.full(len(corners), math.inf)
    seen = [len(corners)]
    for _ in range(300):
        nav.update(0.1)
        near = np.minimum(near, np.hypot(*(corners - nav.crowd.position[0]).T))
        seen.append(len(nav.path(a)))
    assert (near <= 0.5 + 1e-9).all()                       # passed by every corner
    assert seen == sorted(seen, reverse=True) and seen[-1] == 1
    assert nav.state(a) == ARRIVED and nav.crowd.position[0].tolist() == [10.0, 8.0]


def test_an_agent_pushed_off_its_way_replans():
    mesh = NavMesh.build(outline=U_TURN, radius=0.4)
    nav = Navigator(mesh, avoidance=None)
    a = nav.add((10.0, 2.0), target=(10.0, 8.0), max_speed=1.0)
    for _ in range(20):
        nav.update(0.1)
    before = nav.path(a)
    nav.crowd.position[0] = (1.0, 9.0)                       # carried past the inner wall
    nav.update(0.1)
    after = nav.path(a)
    assert len(after) == 1 and len(before) > 1               # straight there now
    for _ in range(150):
        nav.update(0.1)
    assert nav.state(a) == ARRIVED


def test_a_blocked_agent_is_reported_stuck_and_goes_on_when_freed():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 4), (0, 4)])
    door = [np.array([(5, 0), (5.5, 0), (5.5, 4), (5, 4)], float)]   # not on the mesh
    with pytest.warns(ClearanceWarning):
        nav = Navigator(mesh, avoidance=ORCA(time_horizon_obst=1.0, obstacles=door),
                        stuck_time=1.0, max_replans=2)
    a = nav.add((1.0, 2.0), target=(9.0, 2.0), radius=0.3, max_speed=1.0)
    states, x = [], []
    for _ in range(300):
        nav.update(0.05)
        states.append(nav.state(a))
        x.append(nav.crowd.position[0, 0])
    assert states[0] == MOVING and states[-1] == STUCK and max(x) < 5 - 0.3 + 1e-6
    # Stuck once it has moved less than stuck_distance in each of two stuck_time windows
    # (two replans), not sooner.
    first = states.index(STUCK)
    assert x[first] - x[first - 20] < 0.25 and x[first - 20] - x[first - 40] < 0.25
    assert first * 0.05 >= 2 * 1.0
    nav.avoidance = ORCA(time_horizon_obst=1.0)              # the door opens
    for _ in range(200):
        nav.update(0.05)
    assert nav.state(a) == ARRIVED


def test_no_path_and_idle_agents_stay_put():
    mesh = NavMesh.build(MultiPolygon([box(0, 0, 4, 4), box(6, 0, 9, 4)]))
    with pytest.warns(ClearanceWarning):
        nav = Navigator(mesh)
    a = nav.add((1.0, 1.0), target=(8.0, 2.0))
    b = nav.add((2.0, 3.0))
    for _ in range(20):
        nav.update(0.1)
    assert (nav.state(a), nav.state(b)) == (NO_PATH, IDLE)
    assert nav.crowd.position.tolist() == [[1.0, 1.0], [2.0, 3.0]]
    nav.set_target(b, (3.0, 3.0))
    for _ in range(30):
        nav.update(0.1)
    assert nav.state(b) == ARRIVED and nav.crowd.position[1].round(6).tolist() == [3.0, 3.0]


def test_grid_paths_go_round_blocked_cells():
    grid = Grid.from_ascii("""
..........
.########.
..........
.########.
..........""", origin=(-5.0, 0.0), cell_size=2.0)
    nav = Navigator(grid, avoidance=PowerLaw())
    blocked = ~grid.passable
    targets = [(13.0, 9.0), (-3.0, 9.0), (13.0, 1.0)]
    ids = [nav.add(p, target=t, radius=0.3, max_speed=1.5)
           for p, t in zip([(-4.0, 1.0), (14.0, 1.0), (-4.0, 9.0)], targets)]
    for _ in range(1500):
        nav.update(0.05)
        cells = np.floor((nav.crowd.position - (-5.0, 0.0)) / 2.0).astype(int)
        assert not blocked[cells[:, 1], cells[:, 0]].any()
    assert [nav.state(a) for a in ids] == [ARRIVED] * 3
    assert np.hypot(*(nav.crowd.position - targets).T).max() <= 0.05
    off = nav.add((100.0, 1.0), target=(1.0, 1.0))           # off the grid: no path
    nav.update(0.05)
    assert nav.state(off) == NO_PATH


def test_flow_fields_lead_everyone_to_their_goals():
    grid = Grid.from_ascii("""
........
.######.
........
........""")
    flow = FlowField.build(grid, [(7, 0), (0, 3)])
    nav = Navigator(flow, avoidance=None)
    ids = [nav.add(p, radius=0.2, max_speed=1.0) for p in [(3.5, 2.5), (6.5, 3.5), (0.5, 0.5)]]
    for _ in range(300):
        nav.update(0.05)
    assert [nav.state(a) for a in ids] == [ARRIVED] * 3
    cells = np.floor(nav.crowd.position).astype(int).tolist()
    assert all(c in ([7, 0], [0, 3]) for c in cells)
    with pytest.raises(InvalidQueryError, match="flow field"):
        nav.set_target(ids[0], (1, 1))


def test_removing_keeps_the_rows_in_step():
    """The paths are fields of the crowd: they move with its rows."""
    nav = Navigator(NavMesh.build(outline=U_TURN, radius=0.4), avoidance=None)
    a = nav.add((10.0, 2.0), target=(10.0, 8.0))
    b = nav.add((1.0, 1.0), target=(1.0, 9.0))
    c = nav.add((11.0, 9.0), target=(2.0, 9.0))
    nav.update(0.1)
    path_c = nav.path(c)
    nav.remove(a)                             # the last row moves into the first
    assert nav.crowd.ids.tolist() == [c, b]
    assert len(nav) == 2 and np.array_equal(nav.path(c), path_c)
    np.testing.assert_array_equal(nav.crowd.field("nav_target"), [(2.0, 9.0), (1.0, 9.0)])
    for _ in range(200):
        nav.update(0.1)
    assert (nav.state(b), nav.state(c)) == (ARRIVED, ARRIVED)
    assert nav.crowd.position_of(c).round(6).tolist() == [2.0, 9.0]
    assert "2 agents on a NavMesh" in repr(nav)


def test_bad_input():
    mesh = NavMesh.build(outline=U_TURN, radius=0.3)
    with pytest.raises(InvalidQueryError, match="NavMesh, a Grid or a FlowField"):
        Navigator([(0, 0)])
    with pytest.raises(InvalidQueryError, match="step"):
        Navigator(mesh, avoidance=object())
    with pytest.raises(InvalidQueryError, match="empty crowd"):
        crowd = Crowd()
        crowd.add((1, 1))
        Navigator(mesh, crowd=crowd)
    with pytest.raises(InvalidQueryError, match="corner_radius"):
        Navigator(mesh, corner_radius=0)
    nav = Navigator(mesh)
    with pytest.raises(InvalidQueryError, match="target"):
        nav.add((1, 1), target=(math.nan, 0))
    assert len(nav) == 0
    with pytest.raises(InvalidQueryError, match="no agent"):
        nav.state(3)
    with pytest.raises(InvalidQueryError, match="dt"):
        nav.update(-1)
    shared = Crowd()
    Navigator(Grid(np.ones((4, 4), dtype=bool)), crowd=shared)
    with pytest.raises(InvalidQueryError, match="already has a field 'nav_corners'"):
        Navigator(Grid(np.ones((4, 4), dtype=bool)), crowd=shared)


def test_a_recorded_run_takes_arrived_agents_out_through_the_navigator():
    from wayfinding.crowd import record

    nav = Navigator(NavMesh.build(outline=U_TURN, radius=0.4))
    for k in range(4):
        nav.add((10.0 - 1.5 * k, 1.5), target=(10.0 - 1.5 * k, 8.5), radius=0.3)
    run = record(nav.crowd, lambda crowd, dt: nav.update(dt), dt=0.1, seconds=60,
                 remove=nav.remove)
    assert run.completion == 1.0 and len(nav) == 0
    assert np.isfinite(run.arrived).all() and run.path_ratio() > 1.5   # round the wall


def test_an_agent_pushed_off_its_corridor_replans():
    """A hall with an alcove: an agent pushed into the alcove, off the polygons of its
    corridor but near its path, plans again from there."""
    alcove = [(0, 0), (12, 0), (12, 4), (7, 4), (7, 8), (5, 8), (5, 4), (0, 4)]
    mesh = NavMesh.build(outline=alcove, radius=0.4)
    nav = Navigator(mesh, avoidance=None, replan_distance=100.0)   # only the corridor rule
    a = nav.add((1.0, 2.0), target=(11.0, 2.0), max_speed=1.0)
    nav.update(0.1)
    assert len(nav.path(a)) == 1                                    # straight along the hall
    nav.crowd.position[0] = (6.0, 7.0)
    nav.update(0.1)
    assert len(nav.path(a)) > 2                      # round the alcove's rounded corner first
    for _ in range(200):
        nav.update(0.1)
    assert nav.state(a) == ARRIVED


def test_a_target_off_the_mesh_moves_onto_it():
    nav = Navigator(NavMesh.build(outline=U_TURN, radius=0.4), avoidance=None)
    a = nav.add((1.0, 1.0), target=(50.0, 50.0))
    for _ in range(300):
        nav.update(0.1)
    end = nav.crowd.position_of(a)
    assert nav.state(a) == ARRIVED and end.round(6).tolist() == [11.6, 9.6]   # nearest point
    assert nav.crowd.goal[0].tolist() == end.tolist()


def test_a_flow_field_agent_pushed_off_its_goal_walks_back():
    grid = Grid.from_ascii("........\n........")
    nav = Navigator(FlowField.build(grid, [(7, 0)]), avoidance=None)
    a = nav.add((6.5, 0.5), max_speed=1.0)
    for _ in range(20):
        nav.update(0.1)
    assert nav.state(a) == ARRIVED
    nav.crowd.position[0] = (2.5, 1.5)
    nav.update(0.1)
    assert nav.state(a) == MOVING
    for _ in range(100):
        nav.update(0.1)
    assert nav.state(a) == ARRIVED and np.floor(nav.crowd.position[0]).tolist() == [7, 0]


def test_rows_stay_in_step_through_growth_and_many_removals():
    mesh = NavMesh.build(outline=U_TURN, radius=0.4)
    nav = Navigator(mesh, avoidance=None)
    ids = [nav.add((1.0 + 0.5 * (k % 20), 1.0 + 0.4 * (k // 20)),
                   target=(1.0 + 0.5 * (k % 20), 8.6)) for k in range(40)]   # past 16 and 32
    nav.update(0.1)
    paths = {a: nav.path(a) for a in ids}
    for a in ids[::3] + ids[1::3]:
        nav.remove(a)
    late = nav.add((11.0, 9.0), target=(1.0, 9.0))
    nav.update(0.1)
    for a in ids[2::3]:
        assert np.array_equal(nav.path(a)[-1], paths[a][-1])
        assert nav.crowd.goal[nav.crowd.row(a)].tolist() == paths[a][-1].tolist()
    for _ in range(400):
        nav.update(0.1)
    assert all(nav.state(a) == ARRIVED for a in ids[2::3] + [late])


# ------------------------------------------------------------------ radius and walls
@pytest.mark.parametrize("built_for", [0.25, 0.4, 1.0])
def test_the_agents_take_the_radius_the_mesh_was_built_for(built_for):
    nav = Navigator(NavMesh.build(outline=U_TURN, radius=built_for))
    assert nav.radius == built_for
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = nav.add((1.5, 1.5), target=(1.5, 8.5))
        nav.add((1.5, 3.0), radius=built_for / 2)
    assert nav.crowd.radius[nav.crowd.row(a)] == built_for


def test_a_navigator_wider_than_its_mesh_is_refused():
    mesh = NavMesh.build(outline=U_TURN, radius=0.3)
    with pytest.raises(InvalidQueryError, match=r"radius 0\.4 is wider than the 0\.3 the mesh "
                       r"was built for: build it with NavMesh.build\(\.\.\., radius=0\.4\)"):
        Navigator(mesh, radius=0.4)
    assert Navigator(mesh, radius=0.3).radius == 0.3
    assert Navigator(mesh, radius=0.2).radius == 0.2
    with pytest.raises(InvalidQueryError, match="radius"):
        Navigator(mesh, radius=0)


def test_an_agent_wider_than_the_mesh_was_built_for_warns():
    nav = Navigator(NavMesh.build(outline=U_TURN, radius=0.3))
    with pytest.warns(ClearanceWarning, match="radius 0.31 on a mesh built for 0.3"):
        nav.add((1.5, 1.5), radius=0.31)


@pytest.mark.parametrize("radius", [None, 0.3, 2.0])
def test_a_mesh_built_for_radius_0_takes_any_radius_with_one_warning(radius):
    mesh = NavMesh.build(outline=U_TURN)
    want = 0.5 if radius is None else radius
    with pytest.warns(ClearanceWarning, match=r"the mesh was built for radius 0: agents may "
                      rf"clip corners; build it with NavMesh.build\(\.\.\., radius={want:g}\)"
                      ) as caught:
        nav = Navigator(mesh, radius=radius)
    assert len(caught) == 1 and nav.radius == want
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = nav.add((1.5, 1.5), target=(1.5, 8.5))
        nav.add((1.5, 3.0), radius=want / 2)
    assert nav.crowd.radius[nav.crowd.row(a)] == want
    with pytest.warns(ClearanceWarning, match=f"radius {2 * want:g} on a mesh built for 0"):
        nav.add((2.0, 2.0), radius=2 * want)


def test_meshes_that_do_not_know_their_area_and_grids_take_any_radius():
    built = NavMesh.build(outline=U_TURN, radius=0.3)
    loaded = NavMesh(built.vertices, built.polygons, built.sizes)    # as from a file
    assert loaded.source_walls is None
    for world in (loaded, Grid(np.ones((10, 10), dtype=bool))):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nav = Navigator(world, radius=2.0)
            nav.add((1.5, 1.5), radius=3.0)
            assert Navigator(world).radius == 0.5


def run_round_the_wall(avoidance):
    """One agent of radius 0.3 sent round the inner wall on a mesh built without a radius
    (its corners touch the walls): the navigator and the closest the agent comes to the
    walls as given."""
    mesh = NavMesh.build(outline=U_TURN)
    with pytest.warns(ClearanceWarning):
        nav = Navigator(mesh, avoidance=avoidance, radius=0.3)
    nav.add((10.0, 2.0), target=(10.0, 8.0), max_speed=1.0)
    closest = math.inf
    for _ in range(400):
        nav.update(0.05)
        closest = min(closest, wall_gap(nav.crowd.position, mesh).min())
    return nav, closest


def test_an_orca_without_obstacles_takes_the_walls_of_the_world():
    orca = ORCA(time_horizon=2.0, time_horizon_obst=1.0)
    nav, closest = run_round_the_wall(orca)
    assert nav.avoidance is not orca and nav.avoidance.obstacles is not None
    assert orca.obstacles is None                   # the caller's is left as it was
    assert closest >= 0.3 - 1e-3          # (its corner at the wall is out of its reach)
    none = ORCA(time_horizon=2.0, time_horizon_obst=1.0, obstacles=())
    nav, closest = run_round_the_wall(none)        # told none: it cuts the corner
    assert nav.avoidance is none and none.obstacles == () and closest < 0.1


def test_one_orca_serves_navigators_on_different_worlds():
    orca = ORCA(time_horizon=2.0, time_horizon_obst=1.0)
    first = Grid(np.ones((6, 8), dtype=bool))
    second = Grid(np.ones((4, 4), dtype=bool))
    a, b = Navigator(first, avoidance=orca), Navigator(second, avoidance=orca)
    assert (a.avoidance.obstacles, b.avoidance.obstacles, orca.obstacles) == (first, second,
                                                                                None)


def test_a_grid_and_a_flow_field_give_orca_their_walls():
    grid = Grid(np.ones((6, 8), dtype=bool))
    for world in (grid, FlowField.build(grid, [(7, 0)])):
        orca = ORCA()
        assert Navigator(world, avoidance=orca).avoidance.obstacles is grid
        assert orca.obstacles is None
