"""Σ1 and Σ2, the navigation-mesh domains: transitions and costs against the mesh itself,
jump links, the density-scaled cost, generic searches on the domain against the compiled
graph, and bad input."""

import math

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra as sp_dijkstra

from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import NavMesh, OffMeshLink
from wayfinding.planning.domain_navmesh import DensityDomain, NavMeshDomain
from wayfinding.search import ADStar, dijkstra


@pytest.fixture(scope="module")
def mesh():
    return NavMesh.build(outline=[(0, 0), (12, 0), (12, 8), (0, 8)],
                         holes=[[(4, 2), (8, 2), (8, 6), (4, 6)]])


@pytest.fixture(scope="module")
def islands():
    """Two rooms 2 apart joined only by a one-way jump from the left to the right."""
    return NavMesh.build(
        "MULTIPOLYGON(((0 0, 4 0, 4 4, 0 4, 0 0)), ((6 0, 10 0, 10 4, 6 4, 6 0)))",
        links=[OffMeshLink((3.5, 2.0), (6.5, 2.0))])


def test_transitions_are_the_shared_edges_both_ways_at_centre_distances(mesh):
    d = NavMeshDomain(mesh)
    pairs = {(p, int(q)) for p in range(mesh.num_polygons) for q in mesh.neighbours[p]
             if q >= 0}
    assert set(zip(d.sources.tolist(), d.targets.tolist())) == pairs
    c = mesh.centroids()
    for p, q in pairs:
        assert math.isclose(d.cost(p, q), float(np.hypot(*(c[q] - c[p]))))
        assert d.valid(p, q)
    assert not d.jumps.any()


def test_a_jump_link_costs_jump_cost_times_the_centre_distance(islands):
    d = NavMeshDomain(islands, jump_cost=3.0)
    a, b = d.state((1.0, 1.0)), d.state((9.0, 3.0))
    r = dijkstra(d, a, b)
    assert r.found
    jumps = [(u, v) for u, v in zip(r.path, r.path[1:]) if d.jumps[
        d._ptr[u] + np.flatnonzero(d.targets[d._ptr[u]:d._ptr[u + 1]] == v)].any()]
    assert len(jumps) == 1
    u, v = jumps[0]
    assert math.isclose(d.cost(u, v), 3.0 * float(np.hypot(*(d.centres[v] - d.centres[u]))))
    assert not dijkstra(d, b, a).found                     # one way
    given = NavMesh.build(
        "MULTIPOLYGON(((0 0, 4 0, 4 4, 0 4, 0 0)), ((6 0, 10 0, 10 4, 6 4, 6 0)))",
        links=[OffMeshLink((3.5, 2.0), (6.5, 2.0), cost=42.0)])
    g = NavMeshDomain(given)
    assert sorted(g.lengths[g.jumps].tolist()) == [42.0]


def _scipy_costs(d, source, t=0.0):
    n = d.num_states
    m = csr_matrix((d.edge_costs(t=t), (d.sources, d.targets)), shape=(n, n))
    return sp_dijkstra(m, indices=source)


@pytest.mark.parametrize("k", [0.0, 0.5, 4.0])
def test_density_scales_each_edge_by_the_mean_density_of_its_polygons(mesh, k):
    rng = np.random.default_rng(3)
    dens = rng.uniform(0, 2, mesh.num_polygons)
    d = DensityDomain(mesh, lambda t: dens * (1 + t), k=k)
    base = NavMeshDomain(mesh)
    for t in (0.0, 2.0):
        rho = dens * (1 + t)
        want = base.lengths * (1 + k * (rho[base.sources] + rho[base.targets]) / 2)
        assert np.allclose(d.edge_costs(t=t), want)
        assert (d.edge_costs(t=t) >= base.lengths).all()


def test_generic_and_compiled_searches_agree_with_scipy_on_the_domain(mesh):
    rng = np.random.default_rng(5)
    d = DensityDomain(mesh, rng.uniform(0, 3, mesh.num_polygons), k=2.0)
    exact = _scipy_costs(d, 0)
    for goal in range(1, d.num_states):
        assert math.isclose(dijkstra(d, 0, goal).cost, exact[goal], rel_tol=1e-12)
        planner = ADStar(d.graph(), 0, goal, epsilon=1.0)
        assert math.isclose(planner.plan().cost, exact[goal], rel_tol=1e-12)


def test_the_heuristic_never_overestimates(mesh):
    rng = np.random.default_rng(9)
    d = DensityDomain(mesh, rng.uniform(0, 3, mesh.num_polygons), k=1.0)
    for s in range(d.num_states):
        exact = _scipy_costs(d, s)
        for g in range(d.num_states):
            assert d.heuristic(s, g) <= exact[g] + 1e-12


def test_states_are_the_polygons_holding_points(mesh):
    d = NavMeshDomain(mesh)
    for p in range(mesh.num_polygons):
        assert d.state(d.position(p)) == p
    with pytest.raises(InvalidQueryError, match="off the mesh"):
        d.state((6.0, 4.0))                               # in the hole


@pytest.mark.parametrize(("density", "k"), [
    (np.ones(3), 1.0), (-np.ones(4), 1.0), ("dense", 1.0), (np.full(4, np.nan), 1.0),
    (np.ones(4), -1.0), (lambda t: np.ones(2), 1.0)])
def test_bad_density_domains_are_refused(mesh, density, k):
    with pytest.raises(InvalidQueryError):
        DensityDomain(mesh, density, k=k)


def test_bad_mesh_domains_are_refused(mesh):
    with pytest.raises(InvalidQueryError):
        NavMeshDomain("mesh")
    with pytest.raises(InvalidQueryError):
        NavMeshDomain(mesh, jump_cost=0.5)
    with pytest.raises(InvalidQueryError):
        NavMeshDomain(mesh).cost(99, 0)
    with pytest.raises(InvalidQueryError):
        NavMeshDomain(mesh).state((np.nan, 1.0))


def test_a_problem_s_ends_stand_for_their_polygons(mesh, islands):
    start, goal = (0.5, 0.5), (11.5, 7.5)
    for world in (mesh, islands):
        d = DensityDomain(world, np.linspace(0.0, 2.0, world.num_polygons), k=1.5)
        a = d.state(start)
        b = d.state(goal if world is mesh else (9.5, 3.5))
        ends = (start, goal if world is mesh else (9.5, 3.5))
        at, lengths = d.placed(ends=ends)
        expected = world.centroids()
        expected[b], expected[a] = ends[1], ends[0]
        assert np.array_equal(at, expected)
        walk = ~d.jumps
        gap = np.hypot(*(at[d.targets] - at[d.sources]).T)
        assert np.allclose(lengths[walk], gap[walk])
        assert np.array_equal(lengths[d.jumps], d.lengths[d.jumps])   # links keep theirs
        rho = d.density()
        assert np.allclose(d.edge_costs(ends=ends),
                           lengths * (1 + 1.5 * (rho[d.sources] + rho[d.targets]) / 2))
        g = d.graph(ends=ends)
        assert np.array_equal(g.coords, at)
        assert np.array_equal(g.weights, d.edge_costs(ends=ends))
        # the compiled plan between the ends is Dijkstra's on those costs
        n = d.num_states
        m = csr_matrix((d.edge_costs(ends=ends), (d.sources, d.targets)), shape=(n, n))
        best = sp_dijkstra(m, indices=a)[b]
        assert math.isclose(ADStar(g, a, b, epsilon=1.0).plan().cost, best, rel_tol=1e-12)
    d = NavMeshDomain(mesh)
    assert d.placed()[0] is d.centres and d.placed()[1] is d.lengths
    assert d.graph(ends=None) is d.graph()
    for bad in [(start,), (start, (99.0, 0.0)), ((np.nan, 0.0), goal), 5]:
        with pytest.raises(InvalidQueryError):
            d.placed(ends=bad)
