"""Relationships between the domains of control: task priorities (Eq. 9.2/9.3, worked
example 36), the constant-speed time assignment (example 37), space-time tunnels and the
mapping of mesh polygons to grid cells."""

import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.navmesh import NavMesh, OffMeshLink
from wayfinding.planning.domain_grid import GridDomain
from wayfinding.planning.domain_maps import MeshGridMap, Tunnel, time_assignment
from wayfinding.planning.domain_navmesh import NavMeshDomain
from wayfinding.planning.tasks import task_priority


@pytest.mark.parametrize(("hops", "epsilon", "expected"), [
    (0, math.inf, 1.0),       # T0
    (1, math.inf, 1.0),       # 1 hop from T0, invalid solution: 1 · 1
    (2, 2.5, 5.0),            # 2 hops, ε = 2.5: 2 · 2.5
    (3, math.inf, 3.0),       # 3 hops, invalid: 3 · 1
    (2, 1.0, math.inf),       # optimal: μ · ∞
    (4, 1.0, math.inf),
])
def test_priorities_are_the_worked_example(hops, epsilon, expected):
    assert task_priority(hops, epsilon) == expected


def test_a_finished_task_runs_last_and_t0_always_first_in_value():
    assert task_priority(2, math.inf, finished=True) == math.inf
    assert task_priority(0, 1.0) == 1.0


@pytest.mark.parametrize(("hops", "epsilon"), [(-1, 2.0), (1.5, 2.0), (1, 0.5),
                                               (1, float("nan")), (True, 2.0)])
def test_bad_priority_arguments_are_refused(hops, epsilon):
    with pytest.raises(InvalidQueryError):
        task_priority(hops, epsilon)


def test_time_assignment_is_constant_speed_along_the_arc():
    pts = np.array([(0.0, 0.0), (3.0, 4.0), (3.0, 9.0), (0.0, 9.0)])   # arcs 5, 5, 3
    t = time_assignment(pts, 2.0, 15.0)
    arc = np.array([0.0, 5.0, 10.0, 13.0])
    assert np.allclose(t, 2.0 + 13.0 * arc / 13.0)
    assert np.all(np.diff(t) > 0)
    assert time_assignment([(1.0, 1.0)], 4.0, 9.0).tolist() == [4.0]
    assert time_assignment([(1.0, 1.0), (1.0, 1.0)], 4.0, 9.0).tolist() == [4.0, 4.0]


@pytest.mark.parametrize(("points", "ts", "tg"), [
    ([(0, 0), (1, 0)], 5.0, 4.0), ([(0, 0), (float("nan"), 0)], 0.0, 1.0),
    ([(0, 0, 0)], 0.0, 1.0), ([(0, 0), (1, 0)], float("inf"), 1.0)])
def test_bad_time_assignments_are_refused(points, ts, tg):
    with pytest.raises(InvalidQueryError):
        time_assignment(points, ts, tg)


def test_a_tunnel_holds_exactly_the_window_around_each_timed_cell():
    cells = [(2, 2), (3, 2)]
    tunnel = Tunnel(cells, [1.0, 2.5], dx=1, dk=1)
    expected = set()
    for (x, y), t in zip(cells, [1.0, 2.5]):
        for k in range(-5, 10):
            if abs(k - t) <= 1:
                expected |= {(x + a, y + b, k) for a in (-1, 0, 1) for b in (-1, 0, 1)}
    inside = {(x, y, k) for x in range(8) for y in range(8) for k in range(-5, 10)
              if (x, y, k) in tunnel}
    assert inside == expected
    assert len(tunnel) == len(expected)


@pytest.mark.parametrize(("cells", "steps", "opts"), [
    ([(0, 0), (1, 0)], [0.0], {}), ([], [], {}), ([(0, 0)], [float("nan")], {}),
    ([(0, 0)], [0.0], {"dx": -1}), ([(0, 0)], [0.0], {"dk": 1.5})])
def test_bad_tunnels_are_refused(cells, steps, opts):
    with pytest.raises(InvalidQueryError):
        Tunnel(cells, steps, **opts)


@pytest.fixture(scope="module")
def world():
    grid = Grid.from_ascii("""
        ..........
        ..........
        ....##....
        ....##....
        ..........""")
    mesh = NavMesh.build(grid)
    return NavMeshDomain(mesh), GridDomain(grid, radius=0.3)


def test_a_polygon_maps_to_the_free_cells_whose_centres_lie_in_it(world):
    mesh, grid = world
    lam = MeshGridMap(mesh, grid)
    seen = np.zeros(grid.walls.shape, dtype=int)
    for p in range(mesh.num_states):
        cells = lam.cells(p)
        for x, y in cells.tolist():
            seen[y, x] += 1
            assert mesh.mesh.locate(grid.position((x, y))) == p
    # every free cell belongs to exactly one polygon (its centre is never on an edge here)
    assert (seen[grid.static_free] == 1).all() and (seen[~grid.static_free] == 0).all()


def test_the_candidate_is_the_polygon_cell_nearest_its_centre(world):
    mesh, grid = world
    lam = MeshGridMap(mesh, grid)
    for p in range(mesh.num_states):
        cells = lam.cells(p)
        c = lam.candidate(p)
        gaps = np.hypot(*(grid.positions(cells) - mesh.centres[p]).T)
        assert math.isclose(np.hypot(*(grid.position(c) - mesh.centres[p])), gaps.min())


def test_a_portal_is_the_middle_of_the_shared_edge(world):
    mesh, grid = world
    lam = MeshGridMap(mesh, grid)
    m = mesh.mesh
    for a in range(m.num_polygons):
        for i in range(m.sizes[a]):
            b = int(m.neighbours[a, i])
            if b < 0:
                continue
            ends = m.vertices[[m.polygons[a, i], m.polygons[a, (i + 1) % m.sizes[a]]]]
            assert np.allclose(lam.portal(a, b), ends.mean(axis=0))
            assert np.allclose(lam.portal(b, a), ends.mean(axis=0))
    assert lam.portal(0, 0) is None


def test_waypoints_are_the_bends_of_the_string_pulled_corridor(world):
    mesh, grid = world
    lam = MeshGridMap(mesh, grid)
    m = mesh.mesh
    path = mesh.graph().find_path(mesh.state((0.5, 0.5)), mesh.state((9.5, 4.5))).path
    assert len(path) >= 3
    points, index = lam.waypoints(path, (0, 0), (9, 4))
    assert points[0] == (0, 0) and points[-1] == (9, 4)
    assert index[0] == 0 and index[-1] == len(path) - 1 and index == sorted(index)
    assert len(points) == len(index) and all(a != b for a, b in zip(points, points[1:]))
    # the block stands between the ends: the way round it bends at one of its corners,
    # and the waypoint is the cell diagonally outside that corner, off the blocked one
    assert len(points) == 3
    (i,), c = index[1:-1], points[1]
    a, b = int(path[i - 1]), int(path[i])
    k = int(np.flatnonzero(m.neighbours[a, :m.sizes[a]] == b)[0])
    ends = m.vertices[[m.polygons[a, k], m.polygons[a, (k + 1) % m.sizes[a]]]]
    centre = grid.position(c)
    corner = [e for e in ends if math.isclose(np.hypot(*(e - centre)), math.sqrt(0.5))]
    assert len(corner) == 1 and tuple(corner[0]) in {(4.0, 2.0), (6.0, 2.0), (4.0, 4.0),
                                                     (6.0, 4.0)}
    x, y = (2 * corner[0] - centre).astype(int)
    assert not grid.static_free[y, x] and grid.static_free[c[1], c[0]]
    assert lam.waypoints([3], (2, 2), (2, 2)) == ([(2, 2), (2, 2)], [0, 0])


def test_a_corridor_seen_through_has_no_inner_waypoint(world):
    mesh, grid = world
    lam = MeshGridMap(mesh, grid)
    path = mesh.graph().find_path(mesh.state((0.5, 0.5)), mesh.state((9.5, 2.5))).path
    assert len(path) >= 2                     # several polygons, one straight line
    points, index = lam.waypoints(path, (0, 0), (9, 2))
    assert points == [(0, 0), (9, 2)] and index == [0, len(path) - 1]


def test_a_jump_link_gives_waypoints_at_its_take_off_and_landing():
    mesh = NavMesh.build("MULTIPOLYGON(((0 0, 4 0, 4 4, 0 4, 0 0)), "
                         "((6 0, 10 0, 10 4, 6 4, 6 0)))",
                         links=[OffMeshLink((3.5, 2.0), (6.5, 2.0))])
    grid = GridDomain(Grid.from_ascii("\n".join(["....##...."] * 4)), radius=0.3)
    lam = MeshGridMap(NavMeshDomain(mesh), grid)
    left, right = mesh.locate((0.5, 0.5)), mesh.locate((9.5, 3.5))
    points, index = lam.waypoints([left, right], (0, 0), (9, 3))
    assert points[0] == (0, 0) and points[-1] == (9, 3) and index == [0, 0, 1, 1]
    (ax, ay), (bx, by) = points[1:3]
    assert ax == 3 and bx == 6                      # the cells by the link's two ends
    for cell, end in zip(points[1:3], [(3.5, 2.0), (6.5, 2.0)]):
        assert np.hypot(*(grid.position(cell) - end)) <= math.sqrt(0.5) + 1e-12
    assert [tuple(p) for p in lam.jump(left, right)] == [(3.5, 2.0), (6.5, 2.0)]
    assert [tuple(p) for p in lam.jump(right, left)] == [tuple(mesh.centroids()[right]),
                                                         tuple(mesh.centroids()[left])]
