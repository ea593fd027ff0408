"""find_path(constraints=) on a voxel navmesh: the polygons' edge midpoints as states, 3D
lengths as base costs, annotations on the ground plane (x, z); exact against scipy on a
graph built here from the mesh's polygons."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from test_domain_dense_grid import (
    assert_empty_set_costs_the_plain_search,
    assert_outside,
    hard_across,
    hard_polygons,
    oracle_costs,
    random_constraints,
)

from wayfinding.constraints import Constraint, ConstraintSet, Disc, Region
from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import QueryFilter
from wayfinding.navmesh.records import DEFAULT_FILTER
from wayfinding.navmesh3d import NavMesh3DQuery, build, generate, with_flags

LEVELS = {
    "terrain": lambda: build(generate.terrain(size=32)),
    "multi_storey": lambda: build(generate.multi_storey()),
    "building": lambda: build(generate.building()),
    "thin_walls_tiled": lambda: build(generate.thin_walls(), tile_size=16),
}


@pytest.fixture(scope="module", params=sorted(LEVELS))
def query(request):
    return NavMesh3DQuery(with_flags(LEVELS[request.param]()))


def ground_box(mesh):
    c = np.concatenate(mesh.polygons())
    return (c[:, 0].min(), c[:, 2].min(), c[:, 0].max(), c[:, 2].max())


def ends(query, rng):
    """Two random points on the mesh (the corners' range, snapped by nearest)."""
    c = np.concatenate(query.mesh.polygons())
    while True:
        pts = [tuple(rng.uniform(c.min(axis=0), c.max(axis=0))) for _ in range(2)]
        found = [query.nearest(p, half_extents=(1, 8, 1)) for p in pts]
        if min(f[0] for f in found) >= 0:
            return found[0][1], found[1][1]


def oracle(query, field, s, g, t=0.0, area_cost=None, filter=DEFAULT_FILTER,
           half_extents=(1, 8, 1)):
    """scipy's Dijkstra over the polygons' edge midpoints (one node per midpoint), each
    polygon linking its midpoints in pairs at the 3D distance times an independent
    multiplier on (x, z); the ends joined to their nearest polygon's midpoints (and to
    each other on one polygon); ``area_cost`` per polygon (inf: closed), default 1."""
    key, pts, src, dst = {}, [], [], []
    polys = query.mesh.polygons()
    per = np.ones(len(polys)) if area_cost is None else area_cost
    own, owner = [], []
    for p, poly in enumerate(polys):
        mids = 0.5 * (poly + np.roll(poly, -1, axis=0))
        ids = []
        for m in mids:
            k = tuple(np.round(m, 5))
            if k not in key:
                key[k] = len(pts)
                pts.append(m)
            ids.append(key[k])
        own.append(ids)
        if np.isfinite(per[p]):
            for i, j in itertools.permutations(ids, 2):
                src.append(i)
                dst.append(j)
                owner.append(p)
    pts = np.array(pts)
    n = len(pts)
    src, dst = np.array(src), np.array(dst)
    a, b = pts[src], pts[dst]
    costs = list(oracle_costs(field, a[:, [0, 2]], b[:, [0, 2]],
                              np.linalg.norm(b - a, axis=1) * per[owner], t))
    src, dst = list(src), list(dst)
    (ps, s), (pg, g) = (query.nearest(p, half_extents=half_extents, filter=filter)
                        for p in (s, g))                  # the ends snapped onto them
    for node, p, poly, out in ((n, s, ps, True), (n + 1, g, pg, False)):
        p = np.asarray(p)
        targets = pts[own[poly]]
        legs = oracle_costs(field, np.repeat(p[None, [0, 2]], len(targets), 0),
                            targets[:, [0, 2]],
                            np.linalg.norm(targets - p, axis=1) * per[poly], t)
        for state, leg in zip(own[poly], legs):
            src.append(node if out else state)
            dst.append(state if out else node)
            costs.append(leg)
    if ps == pg:
        sa, ga = np.asarray(s), np.asarray(g)
        src.append(n)
        dst.append(n + 1)
        costs.append(oracle_costs(field, sa[None, [0, 2]], ga[None, [0, 2]],
                                  np.array([np.linalg.norm(ga - sa) * per[ps]]), t)[0])
    costs = np.array(costs)
    ok = np.isfinite(costs)
    m = csr_array((costs[ok], (np.array(src)[ok], np.array(dst)[ok])), shape=(n + 2,) * 2)
    return float(dijkstra(m, indices=n)[n + 1])


@pytest.mark.parametrize("method", ["astar", "dijkstra"])
@pytest.mark.parametrize("seed", range(5))
def test_cost_equals_scipy_dijkstra_on_the_same_graph(query, seed, method):
    rng = np.random.default_rng(seed)
    field = random_constraints(rng, ground_box(query.mesh))
    s, g = ends(query, rng)
    r = query.find_path(s, g, method=method, constraints=field, half_extents=(1, 8, 1))
    expect = oracle(query, field, s, g)
    assert r.found == np.isfinite(expect)
    if r.found:
        assert r.cost == pytest.approx(expect, rel=1e-9)
        assert r.path.shape[1] == 3
        assert r.path[0].tolist() == list(s) and r.path[-1].tolist() == list(g)
        assert_outside(r.path[:, [0, 2]], hard_polygons(field))


@pytest.mark.parametrize("seed", range(6))
def test_routes_never_enter_a_hard_region(query, seed):
    """Checked with shapely on the path's (x, z) projection: a hard disc or triangle on the
    middle of the unconstrained route is gone around (or there is no route)."""
    shapely = pytest.importorskip("shapely")
    rng = np.random.default_rng(100 + seed)
    free = None
    while free is None or not free.found:
        s, g = ends(query, rng)
        free = query.find_path(s, g, constraints=ConstraintSet([]), half_extents=(1, 8, 1))
    line = shapely.LineString(free.path[:, [0, 2]])
    field, polygons = hard_across(line, seed, rng, ground_box(query.mesh), 0.4,
                                  [(-0.4, -0.3), (0.4, -0.3), (0, 0.4)])
    r = query.find_path(s, g, constraints=field, half_extents=(1, 8, 1))
    assert r.found == np.isfinite(oracle(query, field, s, g))
    if r.found:
        assert_outside(r.path[:, [0, 2]], polygons)


@pytest.mark.parametrize("seed", range(4))
def test_an_empty_set_finds_a_route_where_the_polygon_search_does(query, seed):
    rng = np.random.default_rng(200 + seed)
    s, g = ends(query, rng)
    plain = query.find_path(s, g, half_extents=(1, 8, 1))
    r = query.find_path(s, g, constraints=ConstraintSet([]), half_extents=(1, 8, 1))
    assert r.found == plain.found
    if r.found:
        assert r.cost == pytest.approx(oracle(query, ConstraintSet([]), s, g), rel=1e-9)


def test_on_one_convex_polygon_an_empty_set_walks_the_straight_path():
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    r, plain = assert_empty_set_costs_the_plain_search(q.find_path, (2, 0, 2), (8, 0, 7))
    assert plain.found
    assert np.allclose(r.path[:, [0, 2]], plain.path[:, [0, 2]])     # r's on the ground


def test_annotations_lie_on_the_ground_plane_x_z():
    """A hard wall across ground points (x, z) near (5, 5) bends a route across the floor (y
    up); a band along z = 5 holds both ends."""
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    s, g = (2.0, 0.1, 5.0), (8.0, 0.1, 5.0)
    straight = q.find_path(s, g, constraints=ConstraintSet([]))
    wall = ConstraintSet([Constraint.hard(Region([(4.5, 3), (5.5, 3), (5.5, 7), (4.5, 7)]))])
    r = q.find_path(s, g, constraints=wall)
    assert len(straight.path) == 2
    assert r.found and r.cost > straight.cost
    across = ConstraintSet([Constraint.hard(Region([(1, 4.5), (9, 4.5), (9, 5.5), (1, 5.5)]))])
    assert not q.find_path(s, g, constraints=across).found     # both ends inside it


def test_an_end_off_the_mesh_or_in_a_hard_region_has_no_path():
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    hard = ConstraintSet([Constraint.hard(Disc((8, 8), 0.5))])
    assert not q.find_path((2, 0, 2), (8, 0, 8), constraints=hard).found
    assert not q.find_path((2, 0, 2), (50, 0, 50), constraints=ConstraintSet([])).found


@pytest.mark.parametrize("options", [
    {"constraints": "cover"}, {"t": float("nan")}, {"partial": True}, {"crossings": "all"},
    {"method": "jps"}, {"constraints": None, "method": "dijkstra"}])
def test_bad_queries_are_refused(options):
    q = NavMesh3DQuery(with_flags(build(generate.floor())))
    query = {"constraints": ConstraintSet([Constraint(Disc((5, 5), 1), 2.0)]), **options}
    with pytest.raises(InvalidQueryError):
        q.find_path((2, 0, 2), (8, 0, 8), **query)


def test_the_domain_follows_the_mesh_flags():
    """A polygon the filter no longer includes leaves the domain after set_flags."""
    mesh = with_flags(build(generate.building()))
    q = NavMesh3DQuery(mesh)
    before = q.constraint_domain()
    mesh.set_flags(np.arange(mesh.num_polygons), np.zeros(mesh.num_polygons, np.uint16))
    after = q.constraint_domain()
    assert before.num_edges > 0 and after.num_edges == 0


@pytest.mark.parametrize("seed", range(4))
def test_area_costs_scale_the_base_costs_and_closed_areas_leave_the_domain(seed):
    """Polygons of an area costing 3 (or closed, cost inf) under the query's filter:
    the route's cost is scipy's with those base costs."""
    mesh = with_flags(build(generate.terrain(size=32)))
    rng = np.random.default_rng(300 + seed)
    some = np.flatnonzero(rng.random(mesh.num_polygons) < 0.3)
    mesh.set_areas(some, np.full(len(some), 5, np.uint8))
    q = NavMesh3DQuery(mesh)
    weight = 3.0 if seed % 2 else np.inf
    per = np.ones(mesh.num_polygons)
    per[some] = weight
    f = QueryFilter(costs={5: weight})
    field = random_constraints(rng, ground_box(mesh))
    s, g = ends(q, rng)
    r = q.find_path(s, g, constraints=field, filter=f, half_extents=(1, 8, 1))
    expect = oracle(q, field, s, g, area_cost=per, filter=f)
    assert r.found == np.isfinite(expect)
    if r.found:
        assert r.cost == pytest.approx(expect, rel=1e-9)
