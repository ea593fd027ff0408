"""The constraint domains of a navigation mesh (triangulation, dense, hybrid, adaptive): every
search is exact on its domain's graph, stays on the mesh and out of hard regions, and the
regions a repair re-costs hold every change."""

from __future__ import annotations

import numpy as np
import pytest
from test_domain_dense_grid import (
    assert_outside,
    hard_polygons,
    oracle_costs,
    oracle_route,
    random_constraints,
)

from wayfinding.constraints import Constraint, ConstraintSet, Disc, LineOfSight, Region
from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import NavMesh, NavMeshQuery, QueryFilter
from wayfinding.navmesh.constraint_domains import (
    DOMAINS,
    DenseMeshDomain,
    HybridDomain,
    TriangulationDomain,
    constraint_domain,
    outline,
    segments_on_mesh,
)

shapely = pytest.importorskip("shapely")


def random_world(seed):
    """A random rectangle of 12–22 × 10–18 world units with up to four rectangular holes,
    one per quarter."""
    rng = np.random.default_rng(seed)
    w, h = rng.uniform(12, 22), rng.uniform(10, 18)
    holes = []
    for qx in (0, 1):
        for qy in (0, 1):
            if rng.random() < 0.7:
                x0 = rng.uniform(0.15, 0.25) * w + qx * w / 2
                y0 = rng.uniform(0.15, 0.25) * h + qy * h / 2
                x1, y1 = x0 + rng.uniform(0.1, 0.2) * w, y0 + rng.uniform(0.1, 0.2) * h
                holes.append([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    mesh = NavMesh.build(outline=[(0, 0), (w, 0), (w, h), (0, h)], holes=holes)
    return mesh, rng, (w, h)


def free_point(mesh, rng, size):
    while True:
        p = rng.uniform((0, 0), size)
        if mesh.locate(p) >= 0:
            return p


def domain_of(mesh, kind, field):
    return constraint_domain(mesh, kind, spacing=None if kind == "tri" else 1.0,
                             constraints=field)


def mesh_free(mesh):
    """Whether segments stay on the mesh, by shapely: the union of its polygons covers
    them (1e-9 margin)."""
    area = shapely.union_all([shapely.Polygon(mesh.polygon(i))
                              for i in range(mesh.num_polygons)]).buffer(1e-9)
    shapely.prepare(area)

    def free(a, b):
        return shapely.covers(area, shapely.linestrings(np.stack([a, b], 1)))
    return free


@pytest.mark.parametrize("kind", ["tri", "dense", "hybrid"])
@pytest.mark.parametrize("seed", range(6))
def test_constrained_cost_equals_scipy_dijkstra_on_the_domain(kind, seed):
    """The route's cost equals scipy's Dijkstra on the domain's transitions costed by an
    independent multiplier (exact disc distances, shapely for regions and the mesh), with
    the end points joined to their nearest states and to each other where the mesh allows
    (the adaptive domain, whose own search this is not, has its tests apart)."""
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size))
    s, g = free_point(mesh, rng, size), free_point(mesh, rng, size)
    r = mesh.find_path(s, g, constraints=field, domain=kind,
                       spacing=None if kind == "tri" else 1.0)
    d = domain_of(mesh, kind, field)
    free = mesh_free(mesh)
    e = d.edges
    costs = oracle_costs(field, d.points[e[:, 0]], d.points[e[:, 1]], d.base_costs)
    assert np.allclose(d.costs(field), costs, rtol=1e-12, atol=0)
    assert np.array_equal(np.isinf(d.costs(field)), np.isinf(costs))
    expect = oracle_route(d, costs, s, g, field, free)
    assert r.found == np.isfinite(expect)
    if r.found:
        assert r.cost == pytest.approx(expect, rel=1e-9)
        assert r.path[0].tolist() == s.tolist() and r.path[-1].tolist() == g.tolist()
        assert free(r.path[:-1], r.path[1:]).all()
        assert_outside(r.path, hard_polygons(field))


def test_dense_transitions_never_cut_through_a_hole_between_its_corners():
    hole = [(2.14, 2.14), (2.36, 2.14), (2.36, 2.36), (2.14, 2.36)]
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 10), (0, 10)], holes=[hole])
    diagonal = segments_on_mesh(mesh, np.array([[2.0, 2.0], [2.0, 2.0], [2.14, 2.0]]),
                                np.array([[3.0, 3.0], [2.14, 2.14], [2.14, 3.0]]))
    assert diagonal.tolist() == [False, True, True]     # through; to a corner; along a wall
    d = DenseMeshDomain(mesh, spacing=1.0)
    e = d.edges
    free = mesh_free(mesh)
    assert np.array_equal(free(d.points[e[:, 0]], d.points[e[:, 1]]), np.ones(len(e), bool))
    r = mesh.find_path((0.5, 0.5), (5.5, 5.5), constraints=ConstraintSet([]), domain="dense",
                       spacing=1.0)
    assert not shapely.LineString(r.path).intersects(shapely.Polygon(hole).buffer(-1e-9))


@pytest.mark.parametrize("kind", ["tri", "dense", "hybrid"])
def test_near_points_are_joined_straight_and_start_equal_to_goal_costs_nothing(kind):
    mesh = NavMesh.build(outline=[(0, 0), (6, 0), (6, 6), (0, 6)],
                         holes=[[(2.5, 1), (3.5, 1), (3.5, 5), (2.5, 5)]])
    spacing = None if kind == "tri" else 1.0
    pond = ConstraintSet([Constraint.hard(Disc((5, 5), 0.5))])
    same = mesh.find_path((2.3, 2.3), (2.3, 2.3), constraints=pond, domain=kind,
                          spacing=spacing)
    assert same.found and same.cost == 0.0 and same.path.tolist() == [[2.3, 2.3]]
    close = mesh.find_path((0.5, 0.5), (1.5, 1.2), constraints=pond, domain=kind,
                           spacing=spacing)
    assert close.path.tolist() == [[0.5, 0.5], [1.5, 1.2]]
    assert close.cost == pytest.approx(np.hypot(1.0, 0.7))
    around = mesh.find_path((1.5, 3), (4.5, 3), constraints=pond, domain=kind,
                            spacing=spacing)
    assert around.found and len(around.nodes) > 0 and around.cost > 3.0
    assert mesh_free(mesh)(around.path[:-1], around.path[1:]).all()


def test_a_dense_path_leaves_its_start_towards_the_goal():
    mesh = NavMesh.build(outline=[(0, 0), (8, 0), (8, 8), (0, 8)],
                         holes=[[(3, 3), (5, 3), (5, 5), (3, 5)]])
    r = mesh.find_path((0.5, 0.5), (7.5, 7.5), constraints=ConstraintSet([]), domain="dense",
                       spacing=1.0)
    assert [0.0, 0.0] not in r.path.tolist()          # no step back to a corner state
    assert np.all(np.diff(r.path[:, 0] + r.path[:, 1]) > 0)


@pytest.mark.parametrize("seed", range(6))
def test_hybrid_is_never_costlier_than_dense(seed):
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size), hard=False)
    s, g = free_point(mesh, rng, size), free_point(mesh, rng, size)
    dense = mesh.find_path(s, g, constraints=field, domain="dense", spacing=1.0)
    hybrid = mesh.find_path(s, g, constraints=field, domain="hybrid", spacing=1.0)
    assert dense.found and hybrid.found
    assert hybrid.cost <= dense.cost * (1 + 1e-12)


def test_hybrid_adds_the_triangulation_transitions_as_highways():
    mesh, _, _ = random_world(2)
    h = HybridDomain(mesh, spacing=1.0)
    dense = DenseMeshDomain(mesh, spacing=1.0)
    assert h.num_nodes == dense.num_nodes and h.highway.sum() > 0
    assert np.array_equal(h.edges[~h.highway], dense.edges)
    longest = np.hypot(*(h.points[h.edges[h.highway, 1]] - h.points[h.edges[h.highway, 0]]).T)
    assert longest.max() > 2.0


@pytest.mark.parametrize("kind", DOMAINS)
@pytest.mark.parametrize("seed", range(4))
def test_moving_a_constraint_changes_only_edges_in_its_old_and_new_influence(kind, seed):
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size))
    d = domain_of(mesh, kind, None)
    i = int(rng.integers(len(field)))
    moved = field.replaced(i, Constraint(field[i].annotation.moved(rng.uniform(-3, 3, 2)),
                                         field[i].weight, near=field[i].near)
                           if not field[i].is_hard
                           else Constraint.hard(field[i].annotation.moved((2.0, 1.0))))
    goal = int(rng.integers(len(d._join_states())))
    before, after = d.costs(field, goal=goal), d.costs(moved, goal=goal)
    changed = np.flatnonzero(~((before == after) | np.isclose(before, after, rtol=1e-12)))
    boxes = [b for b in (field.influence()[i], moved.influence()[i]) if b is not None]
    assert set(changed.tolist()) <= set(d.edges_meeting(boxes).tolist())


def test_the_triangulation_is_cut_along_static_annotations():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 8), (0, 8)])
    lawn = Region([(2, 2), (6, 2), (5, 6)])
    field = ConstraintSet([Constraint(lawn, -3), Constraint(LineOfSight((9, 1), 2.0, fov=1.0,
                                                                        range=4.0), -2)])
    plain = TriangulationDomain(mesh)
    cut = constraint_domain(mesh, "tri", constraints=field)
    assert cut.num_nodes > plain.num_nodes
    poly = shapely.Polygon(lawn.vertices)
    inside = 0.0
    for i in range(cut.mesh.num_polygons):
        tri = shapely.Polygon(cut.mesh.polygon(i))
        part = tri.intersection(poly).area
        assert part == pytest.approx(0, abs=1e-9) or part == pytest.approx(tri.area, rel=1e-9)
        inside += part
    assert inside == pytest.approx(poly.area)
    assert constraint_domain(mesh, "tri", constraints=field) is cut      # kept
    assert np.any(lawn.contains(cut.points) & (lawn.distance(cut.points) == 0))


def test_a_line_of_sight_has_no_outline_to_cut():
    with pytest.raises(InvalidQueryError, match="line of sight"):
        outline(LineOfSight((0, 0), 0.0, fov=1.0, range=2.0))


def test_dense_states_are_clamped_onto_the_mesh_within_half_a_diagonal():
    mesh, _, _ = random_world(1)
    d = DenseMeshDomain(mesh, spacing=0.7)
    lattice = mesh.vertices.min(axis=0) + d.lattice * 0.7
    assert np.hypot(*(d.points - lattice).T).max() <= 0.7 * np.sqrt(0.5) + 1e-12
    assert segments_on_mesh(mesh, d.points, d.points).all()
    key = d.edges[:, 0] * d.num_nodes + d.edges[:, 1]
    assert np.all(np.diff(key) > 0)
    assert np.array_equal(np.sort(key), np.sort(d.edges[:, 1] * d.num_nodes + d.edges[:, 0]))


def test_a_hard_region_across_the_only_corridor_leaves_no_path():
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 2), (0, 2)])
    wall = ConstraintSet([Constraint.hard(Region([(4, -1), (5, -1), (5, 3), (4, 3)]))])
    for kind in DOMAINS:
        r = mesh.find_path((1, 1), (9, 1), constraints=wall, domain=kind,
                           spacing=None if kind == "tri" else 0.5)
        assert not r.found and r.cost == np.inf


@pytest.mark.parametrize("options, match", [
    ({"domain": "voxel"}, "domain"), ({"domain": "dense"}, "spacing"),
    ({"spacing": 1.0}, "spacing"), ({"domain": "dense", "spacing": -1.0}, "spacing"),
    ({"filter": QueryFilter(costs={0: 2.0})}, "filter"), ({"partial": True}, "partial"),
    ({"method": "polyanya"}, "method"), ({"constraints": None, "domain": "dense"},
                                         "constraints"),
    ({"constraints": "near the wall"}, "ConstraintSet"), ({"t": float("nan")}, "t")])
def test_bad_queries_are_refused(options, match):
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 8), (0, 8)])
    options = {"constraints": ConstraintSet([Constraint(Disc((5, 4), 1), -2)]), **options}
    with pytest.raises(InvalidQueryError, match=match):
        mesh.find_path((1, 1), (9, 7), **options)


@pytest.mark.parametrize("start, goal", [((-1, 1), (9, 7)), ((1, 1), (19, 7))])
def test_end_points_off_the_mesh_are_refused(start, goal):
    mesh = NavMesh.build(outline=[(0, 0), (10, 0), (10, 8), (0, 8)])
    with pytest.raises(InvalidQueryError, match="off the mesh"):
        mesh.find_path(start, goal, constraints=ConstraintSet([]), domain="dense",
                       spacing=1.0)


def test_a_query_object_searches_as_the_mesh_does():
    mesh, rng, size = random_world(5)
    field = random_constraints(rng, (0, 0, *size), hard=False)
    s, g = free_point(mesh, rng, size), free_point(mesh, rng, size)
    for kind, spacing in (("tri", None), ("adaptive", 1.0)):
        a = NavMeshQuery(mesh).find_path(s, g, constraints=field, domain=kind, spacing=spacing)
        b = mesh.find_path(s, g, constraints=field, domain=kind, spacing=spacing)
        assert a.cost == b.cost and np.array_equal(a.path, b.path)


def test_wayfinding_find_path_hands_constraints_to_the_mesh():
    from wayfinding import find_path

    mesh, rng, size = random_world(3)
    field = random_constraints(rng, (0, 0, *size), hard=False)
    s, g = free_point(mesh, rng, size), free_point(mesh, rng, size)
    r = find_path(mesh, s, g, constraints=field, domain="dense", spacing=1.0)
    ref = mesh.find_path(s, g, constraints=field, domain="dense", spacing=1.0)
    assert r.found and r.cost == ref.cost and np.array_equal(r.path, ref.path)
    with pytest.raises(InvalidQueryError, match="spacing"):
        find_path(mesh, s, g, constraints=field, domain="dense")


@pytest.mark.parametrize("seed", range(6))
def test_the_cut_triangulation_links_across_its_t_junctions(seed):
    """Where cutting splits one side of an edge into shorter edges, the domain links their
    midpoints along it: it is as connected as the walkable mesh, and every transition
    stays on the mesh."""
    from scipy.sparse.csgraph import connected_components

    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size))
    d = domain_of(mesh, "tri", field)
    plain = TriangulationDomain(mesh)
    parts = [connected_components(x.base_graph.to_scipy(), directed=False)[0]
             for x in (d, plain)]
    assert parts[0] == parts[1]
    e = d.edges
    assert mesh_free(mesh)(d.points[e[:, 0]], d.points[e[:, 1]]).all()
