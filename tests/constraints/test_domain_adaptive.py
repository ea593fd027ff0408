"""The adaptive highway domain.  Its lazy search (``find_path``): dense routes (every step a
dense transition, on the mesh and out of hard regions by shapely) costing the sum of their
transitions, never below the dense optimum, the dense search where no run can skip, within
the lattice of maximum skips on random rooms, found exactly when the dense domain finds one,
deterministic, and fewer states expanded than the dense search.  Its eager graph (states of
a point, a direction and remaining skips, for the planner): exact on its own graph (scipy),
never cheaper than the dense domain nor costlier than the lattice of maximum skips, runs
that skip only where no constraint acts, and repairs by the constraint planner equal to
fresh plans."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from test_domain_dense_grid import assert_outside, hard_polygons, random_constraints
from test_domain_mesh import free_point, random_world

from wayfinding.constraints import SAMPLES, Constraint, ConstraintSet, Disc, Region
from wayfinding.errors import InvalidQueryError
from wayfinding.navmesh import AdaptiveDomain, DenseMeshDomain, NavMesh
from wayfinding.navmesh.constraint_domains import DIRECTIONS, constraint_domain, segments_on_mesh
from wayfinding.planning import ConstraintPlanner

#: A 40 × 24 world with two buildings, a repeller, an attractor and a hard disc.
OUTLINE = [(0, 0), (40, 0), (40, 24), (0, 24)]
HOLES = [[(10, 5), (14, 5), (14, 15), (10, 15)], [(24, 10), (30, 10), (30, 20), (24, 20)]]
FIELD = ConstraintSet([Constraint(Disc((20, 10), 3), -4, near=True),
                       Constraint(Region([(3, 12), (8, 12), (8, 18)]), 3),
                       Constraint.hard(Disc((34, 6), 2))])


def optimum(n, edges, costs, u, v):
    """scipy's Dijkstra from ``u`` to ``v`` over the finite ``costs`` of ``edges``."""
    ok = np.isfinite(costs)
    m = csr_array((costs[ok], (edges[ok, 0], edges[ok, 1])), shape=(n, n))
    return float(dijkstra(m, indices=u)[v])


def blocked_pair(d, rng, field):
    """Two full states whose straight segment leaves the mesh (so a query between their
    points goes through the domain)."""
    n = d.dense.num_nodes
    while True:
        u, v = (int(x) for x in rng.integers(n, size=2))
        if not d.segments_free(d.points[u][None], d.points[v][None])[0]:
            return u, v


@pytest.mark.parametrize("constrained", [False, True], ids=["no constraints", "constraints"])
@pytest.mark.parametrize("seed", range(6))
def test_the_eager_graph_searches_equal_scipy_dijkstra_on_it(seed, constrained):
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size)) if constrained else None
    d = AdaptiveDomain(DenseMeshDomain(mesh, spacing=1.0))
    u, v = blocked_pair(d, rng, field)
    expect = optimum(d.num_nodes, d.edges, d.costs(field, goal=v), u, v)
    r = d.graph(field, goal=v).find_path(u, v)
    assert r.found == np.isfinite(expect)
    if r.found:
        assert r.cost == pytest.approx(expect, rel=1e-9)


def blocked_query(mesh, rng, size):
    """Two free points whose straight segment leaves the mesh (so a route between them
    goes through the domain's states)."""
    while True:
        s, g = free_point(mesh, rng, size), free_point(mesh, rng, size)
        if not segments_on_mesh(mesh, s[None], g[None])[0]:
            return s, g


def walked_cost(dense, field, s, g, nodes):
    """The cost of the route ``s`` → ``nodes`` → ``g`` from its parts: the start's and
    goal's legs as the dense domain joins them, and the constrained cost of the dense
    transition of each step (a step that is no dense transition fails the test)."""
    ids = {(a, b): i for i, (a, b) in enumerate(dense.edges.tolist())}
    steps = [ids[a, b] for a, b in zip(nodes[:-1].tolist(), nodes[1:].tolist())]
    legs = []
    for end, state in ((s, nodes[0]), (g, nodes[-1])):
        states, costs = dense.joins(end, field)
        assert state in states
        legs.append(float(costs[states == state][0]))
    return sum(legs) + float(dense.costs(field)[steps].sum())


@pytest.mark.parametrize("constrained", [False, True], ids=["no constraints", "constraints"])
@pytest.mark.parametrize("seed", range(10))
def test_a_lazy_route_is_a_dense_route_costing_its_transitions(seed, constrained):
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size)) if constrained else None
    dense = DenseMeshDomain(mesh, spacing=0.5)
    d = AdaptiveDomain(dense)
    s, g = blocked_query(mesh, rng, size)
    r = d.find_path(s, g, constraints=field)
    best = dense.find_path(s, g, constraints=field)
    assert r.found == best.found
    if not r.found:
        return
    assert r.algorithm == "astar_adaptive" and len(r.nodes) > 1
    assert r.cost == pytest.approx(walked_cost(dense, field, s, g, r.nodes), rel=1e-9)
    assert r.cost >= best.cost * (1 - 1e-12)
    assert r.path[0].tolist() == s.tolist() and r.path[-1].tolist() == g.tolist()
    assert segments_on_mesh(mesh, r.path[:-1], r.path[1:]).all()
    if field is not None:
        assert_outside(r.path, hard_polygons(field))


@pytest.mark.parametrize("seed", range(8))
def test_paths_stay_on_the_mesh_and_out_of_hard_regions(seed):
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size))
    s, g = free_point(mesh, rng, size), free_point(mesh, rng, size)
    r = mesh.find_path(s, g, constraints=field, domain="adaptive", spacing=1.0)
    dense = mesh.find_path(s, g, constraints=field, domain="dense", spacing=1.0)
    assert r.found == dense.found
    if r.found:
        assert segments_on_mesh(mesh, r.path[:-1], r.path[1:]).all()
        assert_outside(r.path, hard_polygons(field))
        assert r.cost >= dense.cost * (1 - 1e-12)


@pytest.mark.parametrize("method", ["astar", "dijkstra"])
@pytest.mark.parametrize("seed", range(4))
def test_without_skips_the_lazy_search_is_the_dense_search(seed, method):
    """With one skip every state is full (the lattice of maximum skips is the dense
    lattice), so the lazy search finds the dense optimum."""
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size))
    dense = DenseMeshDomain(mesh, spacing=0.5)
    s, g = blocked_query(mesh, rng, size)
    r = AdaptiveDomain(dense, max_skips=1).find_path(s, g, constraints=field, method=method)
    best = dense.find_path(s, g, constraints=field, method=method)
    assert r.found == best.found
    if r.found:
        assert r.cost == pytest.approx(best.cost, rel=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_where_constraints_act_everywhere_the_lazy_search_is_the_dense_search(seed):
    """A soft region over the whole world cancels every run (every step's |W| integral
    exceeds the threshold), so the lazy search branches fully everywhere: the dense
    optimum, as the lattice of maximum skips is then the dense lattice."""
    mesh, rng, size = random_world(seed)
    w, h = size
    cover = Constraint(Region([(-1, -1), (w + 1, -1), (w + 1, h + 1), (-1, h + 1)]), -1)
    field = ConstraintSet([cover, *random_constraints(rng, (0, 0, *size))])
    dense = DenseMeshDomain(mesh, spacing=0.5)
    s, g = blocked_query(mesh, rng, size)
    r = AdaptiveDomain(dense).find_path(s, g, constraints=field)
    best = dense.find_path(s, g, constraints=field)
    assert r.found == best.found
    if r.found:
        assert r.cost == pytest.approx(best.cost, rel=1e-9)


@pytest.mark.parametrize("max_skips", [2, 16])
@pytest.mark.parametrize("seed", range(4))
def test_long_runs_still_find_every_route_the_dense_domain_does(seed, max_skips):
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size))
    dense = DenseMeshDomain(mesh, spacing=0.5)
    d = AdaptiveDomain(dense, max_skips=max_skips)
    for f in (None, field):
        s, g = blocked_query(mesh, rng, size)
        r, best = d.find_path(s, g, constraints=f), dense.find_path(s, g, constraints=f)
        assert r.found == best.found
        if r.found:
            assert r.cost == pytest.approx(walked_cost(dense, f, s, g, r.nodes), rel=1e-9)
            assert r.cost >= best.cost * (1 - 1e-12)


def test_a_run_blocked_off_from_the_goal_still_reaches_it():
    """A wall with one gap far from both ends: the gap lies off the runs from the start,
    and the goal behind the wall is still reached, at no less than the dense optimum."""
    mesh = NavMesh.build(outline=[(0, 0), (14, 0), (14, 12.7), (15, 12.7), (15, 0), (30, 0),
                                  (30, 30), (15, 30), (15, 13.3), (14, 13.3), (14, 30),
                                  (0, 30)])
    dense = DenseMeshDomain(mesh, spacing=0.5)
    r = AdaptiveDomain(dense, max_skips=16).find_path((2, 27.2), (28, 2.2))
    best = dense.find_path((2, 27.2), (28, 2.2))
    assert best.found and r.found
    assert best.cost * (1 - 1e-12) <= r.cost
    assert r.cost == pytest.approx(walked_cost(dense, None, np.array([2, 27.2]),
                                               np.array([28, 2.2]), r.nodes), rel=1e-9)


def test_the_lazy_search_is_deterministic():
    mesh, rng, size = random_world(2)
    field = random_constraints(rng, (0, 0, *size))
    s, g = blocked_query(mesh, rng, size)
    a = AdaptiveDomain(DenseMeshDomain(mesh, spacing=0.5)).find_path(s, g, constraints=field)
    b = AdaptiveDomain(DenseMeshDomain(mesh, spacing=0.5)).find_path(s, g, constraints=field)
    assert a.found and a.cost == b.cost and np.array_equal(a.nodes, b.nodes)
    assert (a.stats.expanded, a.stats.generated) == (b.stats.expanded, b.stats.generated)


def test_the_lazy_search_expands_fewer_states_than_the_dense_one_in_most_rooms():
    ratios = []
    for seed in range(10):
        mesh, rng, size = random_world(seed)
        dense = DenseMeshDomain(mesh, spacing=0.5)
        s, g = blocked_query(mesh, rng, size)
        r = AdaptiveDomain(dense).find_path(s, g)
        ratios.append(r.stats.expanded / dense.find_path(s, g).stats.expanded)
    assert np.median(ratios) < 1


@pytest.mark.parametrize("options, match", [
    ({"method": "bfs"}, "method"), ({"start": (np.nan, 1.0)}, "start"),
    ({"goal": (1.0, 2.0, 3.0)}, "goal"), ({"constraints": "pond"}, "constraints"),
    ({"t": np.inf}, "t")])
def test_bad_queries_are_refused(options, match):
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    d = AdaptiveDomain(DenseMeshDomain(mesh, spacing=1.0))
    query = {"start": (2.0, 2.0), "goal": (38.0, 22.0), "constraints": FIELD, **options}
    with pytest.raises(InvalidQueryError, match=match):
        d.find_path(query.pop("start"), query.pop("goal"), **query)


def lattice(d, field, v):
    """The moves between full states that the adaptive domain realises without branching
    anywhere else: uncancelled runs of K dense steps, single dense steps whose |W| integral
    exceeds the threshold, and uncancelled runs of 1 to K steps onto ``v`` (without
    constraints: the lattice of maximum skips, with a last short run onto the goal).
    Returns ``(m, 2)`` edges and ``(m,)`` costs over the dense states."""
    dense, k = d.dense, d.max_skips
    step_cost = dense.costs(field)
    area = d.weight_integrals(field)
    src, dst, cost = [], [], []
    for code in range(8):
        at = np.arange(dense.num_nodes)
        total, integral = np.zeros(len(at)), np.zeros(len(at))
        origin = at.copy()
        for j in range(1, k + 1):
            e = dense.edge_of[at, code]
            keep = e >= 0
            at, origin, e = dense.neighbour[at[keep], code], origin[keep], e[keep]
            total, integral = total[keep] + step_cost[e], integral[keep] + area[e]
            if j == 1:
                single = area[e] > d.threshold
                src.append(origin[single])
                dst.append(at[single])
                cost.append(total[single])
            whole = (integral <= d.threshold) & ((at == v) | (j == k))
            src.append(origin[whole])
            dst.append(at[whole])
            cost.append(total[whole])
    return np.stack([np.concatenate(src), np.concatenate(dst)], 1), np.concatenate(cost)


def reachable_pair(seed, constrained):
    """An adaptive domain over random world ``seed`` (dense spacing 1), random constraints
    on it or none, and two dense states u != v that the lattice of maximum skips joins."""
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size)) if constrained else None
    d = AdaptiveDomain(DenseMeshDomain(mesh, spacing=1.0))
    n = d.dense.num_nodes
    u = int(rng.integers(n))
    edges, costs = lattice(d, field, -1)
    ok = np.isfinite(costs)
    far = dijkstra(csr_array((costs[ok], (edges[ok, 0], edges[ok, 1])), shape=(n, n)),
                   indices=u)
    v = int(rng.choice(np.flatnonzero(np.isfinite(far) & (np.arange(n) != u))))
    return d, field, u, v


@pytest.mark.parametrize("constrained", [False, True], ids=["no constraints", "constraints"])
@pytest.mark.parametrize("seed", range(8))
def test_never_cheaper_than_dense_nor_costlier_than_the_lattice_of_maximum_skips(
        seed, constrained):
    d, field, u, v = reachable_pair(seed, constrained)
    n = d.dense.num_nodes
    got = optimum(d.num_nodes, d.edges, d.costs(field, goal=v), u, v)
    floor = optimum(n, d.dense.edges, d.dense.costs(field), u, v)
    bound = optimum(n, *lattice(d, field, v), u, v)
    assert np.isfinite(bound)
    assert floor * (1 - 1e-12) <= got <= bound * (1 + 1e-12)


def test_runs_skip_only_where_no_constraint_acts():
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    d = AdaptiveDomain(DenseMeshDomain(mesh, spacing=0.5))
    n, k = d.dense.num_nodes, d.max_skips
    c = d.costs(FIELD)
    into_skip = np.flatnonzero(np.isfinite(c) & (d.edges[:, 1] >= n))
    target = d.edges[into_skip, 1]
    taken = k - d.remaining[target]                       # steps from the run's full state
    lattice = d.dense.lattice
    table = {tuple(x): i for i, x in enumerate(lattice.tolist())}
    step = DIRECTIONS[d.direction[target]]
    end = lattice[d.state_point[target]]
    frac = np.array(SAMPLES)
    acting = 0
    for j in range(int(taken.max())):
        sel = np.flatnonzero(taken > j)
        a = np.array([table[tuple(x)] for x in (end[sel] - (j + 1) * step[sel]).tolist()])
        b = np.array([table[tuple(x)] for x in (end[sel] - j * step[sel]).tolist()])
        pa, pb = d.dense.points[a], d.dense.points[b]
        pts = (pa[None] + frac[:, None, None] * (pb - pa)[None]).reshape(-1, 2)
        for con in FIELD:
            if con.is_hard:
                assert not con.annotation.crosses(pa, pb).any()
            else:
                assert not np.any(con.weights(pts))
        acting += len(sel)
    assert acting > 0
    assert np.isfinite(d.costs(None)[np.flatnonzero(d.edges[:, 1] >= n)]).sum() > len(into_skip)


def test_a_higher_threshold_keeps_more_runs_skipping():
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    counts = []
    for threshold in (0.0, 1.0, 10.0, 1e9):
        d = AdaptiveDomain(DenseMeshDomain(mesh, spacing=0.5), threshold=threshold)
        into_skip = d.edges[:, 1] >= d.dense.num_nodes
        counts.append(int(np.isfinite(d.costs(FIELD)[into_skip]).sum()))
    free = int(np.isfinite(d.costs(None)[into_skip]).sum())
    assert counts == sorted(counts) and counts[0] < counts[-1] <= free


def test_states_carry_a_direction_and_remaining_skips():
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    d = AdaptiveDomain(DenseMeshDomain(mesh, spacing=1.0), max_skips=3)
    n = d.dense.num_nodes
    assert np.array_equal(d.points[:n], d.dense.points)
    assert np.all(d.direction[:n] == -1) and np.all(d.remaining[:n] == 0)
    skip = slice(n, None)
    assert set(np.unique(d.direction[skip]).tolist()) == set(range(8))
    assert set(np.unique(d.remaining[skip]).tolist()) == {1, 2}
    assert np.array_equal(d.points[skip], d.dense.points[d.state_point[skip]])
    out = np.diff(d.indptr)
    assert out[:n].max() == 16
    on = d.dense.neighbour[d.state_point[skip], d.direction[skip]] >= 0
    # on, on as a full state (cancelled), the goal link; the last skip: on and the link
    expect = np.where(d.remaining[skip] > 1, 3, 2)
    assert np.array_equal(out[n:][on], expect[on]) and np.all(out[n:][~on] > 3)


@pytest.mark.parametrize("holes, start, goal", [
    ([], (2, 10), (30, 13)),
    ([[(15, 15), (17, 15), (17, 17), (15, 17)]], (2, 2), (30, 30))],
    ids=["pond in the open", "pillar on the diagonal"])
def test_a_focused_search_expands_fewer_states_than_the_dense_domain(holes, start, goal):
    side = 32 if holes else 20
    mesh = NavMesh.build(outline=[(0, 0), (32, 0), (32, side), (0, side)], holes=holes)
    field = ConstraintSet([Constraint.hard(Disc((16, 10), 1.5))])
    d = DenseMeshDomain(mesh, spacing=0.5)
    dense = d.find_path(start, goal, constraints=field)
    adaptive = AdaptiveDomain(d).find_path(start, goal, constraints=field)
    assert dense.found and adaptive.found and len(adaptive.nodes) > 0
    assert adaptive.stats.expanded < dense.stats.expanded
    assert dense.cost <= adaptive.cost <= 1.05 * dense.cost


def test_one_skip_is_the_dense_domain():
    mesh, _, _ = random_world(4)
    one = AdaptiveDomain(DenseMeshDomain(mesh, spacing=1.0), max_skips=1)
    dense = DenseMeshDomain(mesh, spacing=1.0)
    assert one.num_nodes == dense.num_nodes and np.array_equal(one.edges, dense.edges)
    assert np.array_equal(one.costs(FIELD, goal=3), dense.costs(FIELD))


@pytest.mark.parametrize("seed", range(3))
def test_repairs_by_the_constraint_planner_equal_fresh_plans(seed):
    mesh, rng, size = random_world(seed)
    field = random_constraints(rng, (0, 0, *size))
    d = AdaptiveDomain(DenseMeshDomain(mesh, spacing=1.0))
    s, g = free_point(mesh, rng, size), free_point(mesh, rng, size)
    planner = ConstraintPlanner(d, s, g, field, epsilon=1.0)
    planner.plan()
    i = int(rng.integers(len(field)))
    moved = field[i].annotation.moved(rng.uniform(-3, 3, 2))
    planner.move_constraint(i, moved)
    changed = field.replaced(i, field[i].with_annotation(moved))
    assert planner.repaired_edges < d.num_edges
    repaired = planner.plan()
    fresh = ConstraintPlanner(d, s, g, changed, epsilon=1.0).plan()
    assert repaired.found == fresh.found
    if fresh.found:
        assert repaired.cost == pytest.approx(fresh.cost, rel=1e-9)
        u, _ = d.join(s, changed)
        v, _ = d.join(g, changed)
        assert repaired.nodes[0] == u and repaired.nodes[-1] == v


@pytest.mark.parametrize("options, match", [
    ({"max_skips": 0}, "max_skips"), ({"max_skips": 2.5}, "max_skips"),
    ({"threshold": -1.0}, "threshold"), ({"threshold": float("nan")}, "threshold")])
def test_bad_options_are_refused(options, match):
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    with pytest.raises(InvalidQueryError, match=match):
        AdaptiveDomain(DenseMeshDomain(mesh, spacing=1.0), **options)


@pytest.mark.parametrize("kind", ["tri", "hybrid"])
def test_only_a_dense_domain_is_refined(kind):
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    with pytest.raises(InvalidQueryError, match="dense"):
        AdaptiveDomain(constraint_domain(mesh, kind, spacing=None if kind == "tri" else 1.0))
    with pytest.raises(InvalidQueryError, match="dense"):
        AdaptiveDomain(mesh)


def test_the_meshs_adaptive_domain_refines_its_dense_domain():
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    d = constraint_domain(mesh, "adaptive", spacing=1.0)
    assert isinstance(d, AdaptiveDomain) and d.dense is constraint_domain(mesh, "dense",
                                                                          spacing=1.0)


def test_a_goal_stands_for_the_full_state_at_its_point():
    mesh = NavMesh.build(outline=OUTLINE, holes=HOLES)
    d = AdaptiveDomain(DenseMeshDomain(mesh, spacing=1.0))
    skip = d.num_nodes - 1
    assert np.array_equal(d.costs(FIELD, goal=skip), d.costs(FIELD, goal=d.state_point[skip]))
    with pytest.raises(InvalidQueryError, match="goal"):
        d.costs(FIELD, goal=d.num_nodes)


@pytest.mark.parametrize("constrained", [False, True], ids=["no constraints", "constraints"])
@pytest.mark.parametrize("seed", range(6))
def test_the_lazy_search_stays_within_the_lattice_of_maximum_skips_on_random_rooms(
        seed, constrained):
    """A point keeps one parent, so no proof bounds the lazy route by the lattice of
    maximum skips in general (it holds where the lattice is the dense one, above); on these
    rooms it stays within it, between lattice points the lattice joins."""
    d, field, u, v = reachable_pair(seed, constrained)
    n = d.dense.num_nodes
    bound = optimum(n, *lattice(d, field, v), u, v)
    p, q = d.dense.points[u], d.dense.points[v]
    floor = d.dense.find_path(p, q, constraints=field).cost
    r = d.find_path(p, q, constraints=field)
    assert r.found
    assert floor * (1 - 1e-12) <= r.cost <= bound * (1 + 1e-12)
