"""One radius for the navigator, its mesh and ORCA's walls; the navigator's per-agent state
kept as fields of its crowd."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.crowd import ORCA, ClearanceWarning, Crowd, Navigator
from wayfinding.geometry.obstacles import closest_on_segments
from wayfinding.grid import Grid
from wayfinding.navmesh import NavMesh

U_TURN = [(0, 0), (12, 0), (12, 4), (3, 4), (3, 6), (12, 6), (12, 10), (0, 10)]


def wall_gap(points, loops):
    a = np.concatenate(loops)
    b = np.concatenate([np.roll(loop, -1, axis=0) for loop in loops])
    return np.array([closest_on_segments(p, a, b)[0].min() for p in points])


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


@pytest.mark.parametrize("built_for, radius", [(0.3, 0.31), (0.0, 0.5)])
def test_an_agent_wider_than_the_mesh_was_built_for_warns(built_for, radius):
    nav = Navigator(NavMesh.build(outline=U_TURN, radius=built_for))
    with pytest.warns(ClearanceWarning, match=f"radius {radius:g} on a mesh built for "
                      f"{built_for:g}"):
        nav.add((1.5, 1.5), radius=radius)


def test_meshes_that_do_not_know_their_area_and_grids_take_any_radius():
    built = NavMesh.build(outline=U_TURN, radius=0.3)
    loaded = NavMesh(built.vertices, built.polygons, built.sizes)    # as from a file
    assert loaded.source_walls is None
    for world in (loaded, Grid(np.ones((10, 10), dtype=bool))):
        nav = Navigator(world, radius=2.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nav.add((1.5, 1.5), radius=3.0)
        assert Navigator(world).radius == 0.5


def run_round_the_wall(avoidance):
    """One agent of radius 0.3 sent round the inner wall on a mesh built without a radius
    (its corners touch the walls): the closest it comes to the walls as given."""
    mesh = NavMesh.build(outline=U_TURN)
    nav = Navigator(mesh, avoidance=avoidance)
    with pytest.warns(ClearanceWarning):
        nav.add((10.0, 2.0), target=(10.0, 8.0), radius=0.3, max_speed=1.0)
    closest = math.inf
    for _ in range(400):
        nav.update(0.05)
        closest = min(closest, wall_gap(nav.crowd.position, mesh.source_walls).min())
    return closest


def test_an_orca_without_obstacles_takes_the_walls_of_the_world():
    orca = ORCA(time_horizon=2.0, time_horizon_obst=1.0)
    closest = run_round_the_wall(orca)
    assert orca.obstacles is not None
    assert closest >= 0.3 - 1e-3          # (its corner at the wall is out of its reach)
    none = ORCA(time_horizon=2.0, time_horizon_obst=1.0, obstacles=())
    closest = run_round_the_wall(none)             # told none: it cuts the corner
    assert none.obstacles == () and closest < 0.1


def test_a_grid_and_a_flow_field_give_orca_their_walls():
    from wayfinding.fields import FlowField
    grid = Grid(np.ones((6, 8), dtype=bool))
    for world in (grid, FlowField.build(grid, [(7, 0)])):
        orca = ORCA()
        Navigator(world, avoidance=orca)
        assert orca.obstacles is grid


def test_the_paths_live_in_the_crowd_and_move_with_its_rows():
    nav = Navigator(NavMesh.build(outline=U_TURN, radius=0.3), avoidance=None)
    ids = [nav.add((10.0, 1.0 + k), target=(10.0, 8.0 + k)) for k in range(3)]
    nav.update(0.1)
    paths = {a: nav.path(a) for a in ids}
    assert len(paths[ids[2]]) >= 3
    nav.remove(ids[0])                        # the last row moves into the first
    assert nav.crowd.ids.tolist() == [ids[2], ids[1]]
    for a in ids[1:]:
        np.testing.assert_array_equal(nav.path(a), paths[a])
    np.testing.assert_array_equal(nav.crowd.field("nav_target"), [(10.0, 9.7), (10.0, 9.0)])
    shared = Crowd()
    Navigator(Grid(np.ones((4, 4), dtype=bool)), crowd=shared)
    with pytest.raises(InvalidQueryError, match="already has a field 'nav_corners'"):
        Navigator(Grid(np.ones((4, 4), dtype=bool)), crowd=shared)


def test_added_fields_grow_move_and_start_from_their_fill():
    crowd = Crowd()
    crowd.add_field("mood", shape=(3,), dtype=np.int32, fill=7)
    ids = [crowd.add((float(k), 0.0)) for k in range(40)]             # grows past 16
    mood = crowd.field("mood")
    assert mood.shape == (40, 3) and mood.dtype == np.int32 and (mood == 7).all()
    mood[:, 0] = np.arange(40)
    crowd.remove(ids[0])
    assert crowd.field("mood")[0].tolist() == [39, 7, 7]              # the last row moved
    crowd.resize_field("mood", (5,))
    assert crowd.field("mood")[0].tolist() == [39, 7, 7, 7, 7]
    crowd.add((0.0, 1.0))
    assert crowd.field("mood")[-1].tolist() == [7] * 5
    with pytest.raises(InvalidQueryError, match="already has a field 'radius'"):
        crowd.add_field("radius")
    with pytest.raises(InvalidQueryError, match="no field 'hunger'"):
        crowd.field("hunger")
    with pytest.raises(InvalidQueryError, match="no added field 'radius'"):
        crowd.resize_field("radius", (2,))
    assert crowd.field("radius").tolist() == crowd.radius.tolist()
