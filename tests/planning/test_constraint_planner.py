"""Constraint-aware planning with AD*: every plan against a fresh Dijkstra (scipy) on the same
constrained costs, the anytime bound, the seed's worked examples 19–22 (repair after edge-cost
changes, the start moved along and off the path, the goal changed, a hard constraint moved
onto the path), repairs that re-cost only the old and new regions of influence, time-varying
weights, conflicting constraints traded off by weight (Fig. 6.2's line of sight over the space
between two buildings) with their satisfied shares, and bad input."""

import math

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from strategies import RULES, TERRAIN, endpoints, seeded_grids_and_rngs

from wayfinding.constraints import Between, Constraint, ConstraintSet, Disc, LineOfSight, Region
from wayfinding.errors import InvalidQueryError
from wayfinding.graph.constrained import ConstraintDomain
from wayfinding.grid import Grid
from wayfinding.grid.constrained import GridConstraintDomain
from wayfinding.navmesh import NavMesh
from wayfinding.navmesh.constraint_domains import DOMAINS, constraint_domain
from wayfinding.planning.constrained import (
    ConstraintPlan,
    ConstraintPlanner,
    inside_shares,
    satisfied_shares,
)


def open_domain():
    """A 30 x 20 grid with a wall across x = 14 open at both ends: cell centres at (x + 0.5,
    y + 0.5)."""
    free = np.ones((20, 30), dtype=bool)
    free[3:17, 14] = False
    return GridConstraintDomain(Grid(free))


def random_domain(seed):
    """Random points joined to their 5 nearest neighbours both ways, base cost the length."""
    rng = np.random.default_rng(seed)
    pts = rng.random((120, 2)) * 20
    d = np.hypot(*(pts[:, None] - pts[None]).transpose(2, 0, 1))
    near = np.argsort(d, axis=1)[:, 1:6]
    src = np.repeat(np.arange(len(pts)), 5)
    e = np.concatenate([np.stack([src, near.ravel()], 1), np.stack([near.ravel(), src], 1)])
    return ConstraintDomain(pts, e, np.hypot(*(pts[e[:, 1]] - pts[e[:, 0]]).T))


def fresh_cost(domain, constraints, start, goal, t=0.0):
    """The optimum by scipy's Dijkstra on the query graph of ``domain.find_path``: the
    domain's constrained costs, a start node and a goal node joined to their states by the
    legs' costs, and the straight leg between them when it is free."""
    cs = ConstraintSet(()) if constraints is None else constraints
    s, g = np.asarray(start, dtype=float), np.asarray(goal, dtype=float)
    starts, s_legs = domain.joins(s, cs, t=t)
    goals, g_legs = domain.joins(g, cs, t=t)
    if type(domain).costs is not ConstraintDomain.costs:       # goal-dependent costs
        goals, g_legs = goals[:1], g_legs[:1]
    n = domain.num_nodes
    c = domain.costs(cs, t=t, goal=int(goals[0]) if len(goals) else None)
    ok = np.isfinite(c)
    direct = domain.straight_leg(s, g, cs, t=t)
    src = np.concatenate([domain.edges[ok, 0], np.full(len(starts), n), goals, [n]])
    dst = np.concatenate([domain.edges[ok, 1], starts, np.full(len(goals), n + 1), [n + 1]])
    w = np.concatenate([c[ok], s_legs, g_legs, [direct]])
    keep = np.isfinite(w)
    m = csr_matrix((w[keep], (src[keep], dst[keep])), shape=(n + 2,) * 2)   # zeros kept
    return float(dijkstra(m, indices=n)[n + 1])


def route_cost(planner, nodes):
    """The cost of a route through states ``nodes`` summed from the planner's current edge
    costs."""
    d = planner.domain
    total = 0.0
    for u, v in zip(nodes[:-1], nodes[1:]):
        lo, hi = d.indptr[u], d.indptr[u + 1]
        total += planner.costs[lo + int(np.flatnonzero(d.edges[lo:hi, 1] == v)[0])]
    return total


def centre(x, y):
    return (x + 0.5, y + 0.5)


START, GOAL = centre(2, 10), centre(27, 10)
GUARD = Disc((20.5, 10.5), 1.5)
HALL = Region([(4, 8), (12, 8), (12, 13), (4, 13)])
CASES = {
    "none": None,
    "near repeller": ConstraintSet([Constraint(GUARD, -5, near=True)]),
    "in attractor": ConstraintSet([Constraint(HALL, 4)]),
    "hard disc": ConstraintSet([Constraint.hard(GUARD)]),
    "mixed": ConstraintSet([Constraint(GUARD, -5, near=True), Constraint(HALL, 2, near=True),
                            Constraint.hard(Disc((8.5, 3.5), 2.0))]),
}


@pytest.mark.parametrize(("a", "b", "cs", "expected"), [
    ((1, 1), (5, 4), None, 5.0),
    ((1, 1), (5, 4), ConstraintSet(()), 5.0),
    ((1, 1), (5, 4), ConstraintSet([Constraint.hard(Disc((3, 2.5), 0.5))]), math.inf),
    ((1, 1), (5, 4), ConstraintSet([Constraint.hard(Disc((9, 9), 0.5))]), 5.0),
])
def test_the_straight_leg_of_a_domain_costs_its_length_unless_a_hard_constraint_cuts_it(
        a, b, cs, expected):
    assert random_domain(0).straight_leg(a, b, cs) == pytest.approx(expected)


def test_the_straight_leg_of_a_grid_domain_stays_in_one_passable_cell():
    domain = open_domain()
    assert domain.straight_leg((2.25, 10.5), (2.75, 10.5), None) == pytest.approx(0.5)
    assert domain.straight_leg((2.25, 10.5), (3.75, 10.5), None) == math.inf
    assert domain.straight_leg((14.25, 10.5), (14.75, 10.5), None) == math.inf    # the wall
    assert domain.straight_leg((-1, 10.5), (-0.5, 10.5), None) == math.inf       # off the grid


@pytest.mark.parametrize("case", CASES)
def test_the_straight_leg_is_the_route_of_a_query_within_one_cell(case):
    domain = open_domain()
    a, b = (20.1, 10.2), (20.9, 10.8)
    leg = domain.straight_leg(a, b, CASES[case])
    route = domain.find_path(a, b, constraints=CASES[case])
    assert route.found == math.isfinite(leg)
    assert route.cost == pytest.approx(leg) and (not route.found or len(route.nodes) == 0)


@pytest.mark.parametrize("case", CASES)
def test_optimal_plan_equals_a_fresh_dijkstra_on_the_grid_domain(case):
    domain = open_domain()
    planner = ConstraintPlanner(domain, START, GOAL, CASES[case], epsilon=1.0)
    plan = planner.plan()
    assert isinstance(plan, ConstraintPlan) and plan.found and plan.epsilon == 1.0
    assert plan.cost == pytest.approx(fresh_cost(domain, CASES[case], START, GOAL), abs=1e-9)
    assert plan.cost == pytest.approx(route_cost(planner, plan.nodes), abs=1e-9)
    assert plan.path[0].tolist() == list(START) and plan.path[-1].tolist() == list(GOAL)
    assert np.array_equal(plan.path, domain.points[plan.nodes])
    assert plan.algorithm == "ad_star_grid" and planner.finished


@pytest.mark.parametrize("seed", range(4))
def test_optimal_plan_equals_a_fresh_dijkstra_on_a_random_domain(seed):
    domain = random_domain(seed)
    cs = ConstraintSet([Constraint(Disc((10, 10), 3.0), -6, near=True),
                        Constraint(Region([(2, 2), (8, 2), (8, 6), (2, 6)]), 3)])
    a, b = domain.points[0], domain.points[1]
    plan = ConstraintPlanner(domain, a, b, cs, epsilon=1.0).plan()
    expected = fresh_cost(domain, cs, a, b)
    assert plan.found == math.isfinite(expected)
    assert plan.cost == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("kind", DOMAINS)
def test_plans_and_repairs_on_every_mesh_domain_equal_a_fresh_dijkstra(kind):
    """The triangulation (cut along the static annotations), dense, hybrid and adaptive
    highway domains of a mesh with a pillar: the optimal plan, and every repair after a
    repeller and a hard region move, cost what a fresh search finds."""
    mesh = NavMesh.build(outline=[(0, 0), (16, 0), (16, 10), (0, 10)],
                         holes=[[(7, 3), (9, 3), (9, 7), (7, 7)]])
    cs = ConstraintSet([Constraint(Disc((12, 5), 1.0), -5, near=True),
                        Constraint.hard(Region([(3, 6), (5, 6), (5, 8), (3, 8)])),
                        Constraint(Region([(2, 0), (6, 0), (6, 3), (2, 3)]), 2)])
    domain = constraint_domain(mesh, kind, spacing=None if kind == "tri" else 0.5,
                               constraints=cs)
    start, goal = (1.0, 5.0), (15.0, 5.5)
    planner = ConstraintPlanner(domain, start, goal, cs, epsilon=2.0)
    plan = planner.plan()
    assert plan.found and plan.algorithm == f"ad_star_{kind}"
    assert plan.cost == pytest.approx(fresh_cost(domain, cs, start, goal), abs=1e-9)
    for i, offset in [(0, (-1.0, 2.5)), (1, (2.0, -3.0)), (0, (0.5, -4.0))]:
        planner.move_constraint(i, planner.constraints[i].annotation.moved(offset))
        assert planner.repaired_edges < domain.num_edges
        plan = planner.plan()
        assert plan.cost == pytest.approx(fresh_cost(domain, planner.constraints, start, goal),
                                          abs=1e-9)
        assert not shapely.LineString(plan.path).intersects(
            shapely.Polygon(planner.constraints[1].annotation.vertices))


def query_cost(domain, planner):
    """What ``domain.find_path`` finds for the planner's query (the adaptive highway
    domain's find_path is its lazy search: Dijkstra on its eager graph with the same joins
    there)."""
    if domain.kind == "adaptive":
        return fresh_cost(domain, planner.constraints, planner.start, planner.goal,
                          t=planner.t)
    return domain.find_path(planner.start, planner.goal, constraints=planner.constraints,
                            t=planner.t, method="dijkstra").cost


@pytest.mark.parametrize("kind", [*DOMAINS, "random"])
@pytest.mark.parametrize("seed", range(3))
def test_a_finished_plan_costs_what_find_path_finds(kind, seed):
    """The planner searches find_path's query graph (every joining state and the straight
    leg): a finished plan, and every repair after a repeller moves over the start, a hard
    disc onto the goal's legs and the time switches a weight on, costs what find_path
    finds."""
    rng = np.random.default_rng(seed)
    if kind == "random":
        domain = random_domain(seed)
        start, goal = tuple(rng.uniform(0, 4, 2)), tuple(rng.uniform(16, 20, 2))
    else:
        mesh = NavMesh.build(outline=[(0, 0), (16, 0), (16, 10), (0, 10)],
                             holes=[[(7, 3), (9, 3), (9, 7), (7, 7)]])
        start = (float(rng.uniform(0.5, 3)), float(rng.uniform(0.5, 9.5)))
        goal = (float(rng.uniform(13, 15.5)), float(rng.uniform(0.5, 9.5)))
    cs = ConstraintSet([Constraint(Disc((5, 5), 1.0), -5, near=True),
                        Constraint.hard(Disc((11, 8), 0.8)),
                        Constraint(Region([(2, 0), (6, 0), (6, 3), (2, 3)]),
                                   lambda t: 3.0 if t > 1 else 0.0)])
    if kind != "random":
        domain = constraint_domain(mesh, kind, spacing=None if kind == "tri" else 0.5,
                                   constraints=cs)
    planner = ConstraintPlanner(domain, start, goal, cs, epsilon=2.0)
    plan = planner.plan()
    assert plan.found and plan.cost == pytest.approx(query_cost(domain, planner), abs=1e-9)
    for change in [lambda: planner.move_constraint(0, Disc(start, 1.5)),
                   lambda: planner.move_constraint(1, Disc(np.add(goal, (-1.0, 0.5)), 0.6)),
                   lambda: planner.set_time(2.0)]:
        change()
        plan = planner.plan()
        expected = query_cost(domain, planner)
        assert plan.found == math.isfinite(expected)
        assert plan.cost == pytest.approx(expected, abs=1e-9)
        assert plan.path[0].tolist() == list(start) and plan.path[-1].tolist() == list(goal)


@pytest.mark.parametrize("case", ["near repeller", "mixed"])
def test_every_published_cost_is_within_epsilon_of_the_optimum(case):
    domain = open_domain()
    best = fresh_cost(domain, CASES[case], START, GOAL)
    planner = ConstraintPlanner(domain, START, GOAL, CASES[case], epsilon=2.5, step=0.5)
    assert planner.epsilon == 2.5 and not planner.finished
    seen = []
    while True:
        plan = planner.plan(max_expansions=3)
        if plan.found and math.isfinite(plan.epsilon):
            assert plan.cost <= plan.epsilon * best + 1e-9
            seen.append(plan.epsilon)
        if planner.finished:
            break
    assert seen[0] > 1.0 and seen[-1] == 1.0 and seen == sorted(seen, reverse=True)
    assert plan.cost == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("kind", DOMAINS)
@pytest.mark.parametrize("seed", range(3))
def test_every_published_cost_is_within_epsilon_on_every_mesh_domain(kind, seed):
    """The triangulation, dense, hybrid and adaptive domains of a mesh with a pillar, a
    repeller moved at random between small budgets: every plan published with a bound costs
    at most epsilon times a fresh Dijkstra's optimum, and the last is optimal."""
    rng = np.random.default_rng(seed)
    mesh = NavMesh.build(outline=[(0, 0), (16, 0), (16, 10), (0, 10)],
                         holes=[[(7, 3), (9, 3), (9, 7), (7, 7)]])
    cs = ConstraintSet([Constraint(Disc(tuple(rng.uniform((0, 0), (16, 10))), 1.5), -6,
                                   near=True),
                        Constraint(Region([(2, 0), (6, 0), (6, 3), (2, 3)]), 3),
                        Constraint.hard(Disc(tuple(rng.uniform((0, 0), (16, 10))), 1.0))])
    domain = constraint_domain(mesh, kind, spacing=None if kind == "tri" else 0.5,
                               constraints=cs)
    start, goal = (0.7, 5.1), (15.3, 5.4)
    planner = ConstraintPlanner(domain, start, goal, cs, epsilon=3.0, step=0.5)
    bounded = 0
    scale = domain.num_nodes // 500 + 1                 # budgets in proportion to the domain
    for k in range(40):
        if k % 10 == 5:
            shift = tuple(rng.uniform(-3, 3, 2))
            planner.move_constraint(0, planner.constraints[0].annotation.moved(shift))
        plan = planner.plan(max_expansions=int(rng.integers(1, 40)) * scale)
        if plan.found and math.isfinite(plan.epsilon):
            best = fresh_cost(domain, planner.constraints, start, goal)
            assert plan.cost <= plan.epsilon * best + 1e-9
            bounded += 1 if plan.epsilon > 1 else 0
    assert bounded > 0
    plan = planner.plan()
    assert plan.epsilon == 1.0
    assert plan.cost == pytest.approx(fresh_cost(domain, planner.constraints, start, goal),
                                      abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_moved_soft_constraints_are_repaired_to_a_fresh_search(seed):
    """Example 20: edge costs raised and lowered (a repeller and an attractor moved at
    random), each repair equal to a fresh search, re-costing only the old and new regions
    of influence."""
    rng = np.random.default_rng(seed)
    domain = open_domain()
    cs = ConstraintSet([Constraint(Disc((20, 10), 1.0), -6, near=True),
                        Constraint(Region([(5, 5), (9, 5), (9, 9), (5, 9)]), 3)])
    planner = ConstraintPlanner(domain, START, GOAL, cs, epsilon=2.0)
    planner.plan()
    for _ in range(4):
        i = int(rng.integers(2))
        old = planner.constraints
        moved = old[i].annotation.moved(tuple(rng.uniform(-4, 4, 2)))
        planner.move_constraint(i, moved)
        new = planner.constraints
        assert new[i].annotation is moved and new[1 - i] is old[1 - i]
        region = domain.edges_meeting([old.influence()[i], new.influence()[i]])
        assert planner.repaired_edges == len(region) < domain.num_edges
        assert np.array_equal(planner.costs, domain.costs(new))
        plan = planner.plan()
        assert plan.epsilon == 1.0
        assert plan.cost == pytest.approx(fresh_cost(domain, new, START, GOAL), abs=1e-9)
        assert plan.cost == pytest.approx(route_cost(planner, plan.nodes), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), world=seeded_grids_and_rngs(rules=RULES, terrain=TERRAIN, min_side=3,
                                                   max_side=14))
def test_random_changes_on_random_grids_repair_to_a_fresh_search(data, world):
    """Random grids (every diagonal rule, terrain costs), random soft, hard and timed
    constraints moved at random, the time changed and the agent moved along its path:
    after each change the plan costs what a fresh search finds, and every transition's cost
    is what the domain gives for the new constraints."""
    grid, rng = world
    (sx, sy), (gx, gy) = data.draw(endpoints(grid.passable))
    domain = GridConstraintDomain(grid)
    h, w = grid.shape

    def disc():
        return Disc(tuple(rng.uniform(0, [w, h])), float(rng.uniform(0.3, 2.0)))
    cs = ConstraintSet([Constraint(disc(), float(rng.uniform(-6, -1)), near=True),
                        Constraint(disc(), float(rng.uniform(1, 4))),
                        Constraint.hard(disc()),
                        Constraint(disc(), lambda t: -5.0 if t > 1 else 0.0)])
    start, goal = centre(sx, sy), centre(gx, gy)
    planner = ConstraintPlanner(domain, start, goal, cs, epsilon=float(rng.uniform(1, 3)))
    plan = planner.plan()
    for _ in range(4):
        what = data.draw(st.sampled_from(["move", "time", "walk"]))
        if what == "move":
            i = data.draw(st.integers(0, 3))
            shift = tuple(rng.uniform(-3, 3, 2))
            planner.move_constraint(i, planner.constraints[i].annotation.moved(shift))
        elif what == "time":
            planner.set_time(float(rng.uniform(0, 2)))
        elif plan.found:
            start = tuple(plan.path[len(plan.path) // 2])
            planner.move_start(start)
        assert np.array_equal(planner.costs, domain.costs(planner.constraints, t=planner.t))
        plan = planner.plan()
        expected = fresh_cost(domain, planner.constraints, start, goal, t=planner.t)
        assert plan.found == math.isfinite(expected)
        assert plan.cost == pytest.approx(expected, abs=1e-9)


def test_start_moved_along_the_path_keeps_the_search():
    """Example 21: the agent steps along its path; the queue is re-keyed, epsilon is not
    reset, the rest of the path stays published, and the repair costs less than a fresh
    search."""
    domain = open_domain()
    cs = CASES["mixed"]
    planner = ConstraintPlanner(domain, START, GOAL, cs, epsilon=1.0)
    first = planner.plan()
    here = tuple(first.path[6])
    planner.move_start(here)
    assert planner.epsilon == 1.0
    rest = planner.plan(max_expansions=0)
    assert rest.found and np.array_equal(rest.path, first.path[6:]) and rest.epsilon == math.inf
    plan = planner.plan()
    fresh = ConstraintPlanner(domain, here, GOAL, cs, epsilon=1.0).plan()
    assert plan.cost == pytest.approx(fresh_cost(domain, cs, here, GOAL), abs=1e-9)
    walked = route_cost(planner, first.nodes[:7])
    assert plan.cost == pytest.approx(first.cost - walked, abs=1e-9)     # the rest is optimal
    assert plan.stats.expanded < fresh.stats.expanded


def test_start_moved_off_the_path_restarts_at_epsilon0():
    domain = open_domain()
    planner = ConstraintPlanner(domain, START, GOAL, CASES["near repeller"], epsilon=2.5)
    planner.plan()
    assert planner.epsilon == 1.0
    off = centre(5, 18)
    planner.move_start(off)
    assert planner.epsilon == 2.5
    cleared = planner.plan(max_expansions=0)
    assert not cleared.found and cleared.status == "out_of_budget"
    plan = planner.plan()
    assert plan.path[0].tolist() == list(off)
    assert plan.cost == pytest.approx(fresh_cost(domain, CASES["near repeller"], off, GOAL),
                                      abs=1e-9)


def test_goal_changed_restarts_at_epsilon0():
    domain = open_domain()
    planner = ConstraintPlanner(domain, START, GOAL, CASES["mixed"], epsilon=2.5)
    planner.plan()
    goal = centre(25, 2)
    planner.set_goal(goal)
    assert planner.epsilon == 2.5 and not planner.plan(max_expansions=0).found
    assert planner.goal.tolist() == list(goal)
    plan = planner.plan()
    assert plan.path[-1].tolist() == list(goal)
    assert plan.cost == pytest.approx(fresh_cost(domain, CASES["mixed"], START, goal), abs=1e-9)


def test_hard_constraint_moved_onto_the_path_is_avoided():
    """Example 22: a dynamic obstacle moves onto the path; the repaired path keeps out of it
    (shapely) and costs what a fresh search finds, and only the edges in its old and new
    regions of influence were re-costed."""
    domain = open_domain()
    car = Disc((20.5, 1.5), 1.2)
    cs = ConstraintSet([Constraint(GUARD.moved((0, 6)), -3, near=True), Constraint.hard(car)])
    planner = ConstraintPlanner(domain, START, GOAL, cs, epsilon=2.5)
    before = planner.plan()
    spot = before.path[np.argmin(np.abs(before.path[:, 0] - 20.5))]     # on the path
    planner.move_constraint(1, car.moved(spot - car.centre))
    region = domain.edges_meeting([cs.influence()[1], planner.constraints.influence()[1]])
    assert planner.repaired_edges == len(region) < domain.num_edges // 10
    assert np.isinf(planner.costs).sum() > 0
    after = planner.plan()
    assert after.found and after.epsilon == 1.0
    assert shapely.LineString(after.path).distance(shapely.Point(spot)) > 1.2
    assert after.cost == pytest.approx(fresh_cost(domain, planner.constraints, START, GOAL),
                                       abs=1e-9)
    assert after.satisfied[1] == 1.0
    fresh = ConstraintPlanner(domain, START, GOAL, planner.constraints, epsilon=1.0).plan()
    assert after.stats.expanded < fresh.stats.expanded


def walled_domain(n=60):
    """An n x n grid with a wall down its middle column, open for a fifth of it at both
    ends."""
    free = np.ones((n, n), dtype=bool)
    free[n // 5:n - n // 5, n // 2] = False
    return GridConstraintDomain(Grid(free))


def first_plan(planner):
    """Expand one state per call until the planner publishes a plan: it and the expansions
    it took."""
    used = 0
    while True:
        plan = planner.plan(max_expansions=1)
        used += plan.stats.expanded
        if plan.found or planner.finished:
            return plan, used


@pytest.mark.parametrize("along", [0.5, 0.7])
def test_a_path_cut_by_a_hard_constraint_comes_back_quickly_from_epsilon0(along):
    """Kapadia et al.'s real-time rule: a change that cuts the published path (a hard
    constraint moved onto it) starts the repair at epsilon0 again, so a plan within its
    reported epsilon comes back within fewer expansions than a repair at the current
    epsilon (1), and later rounds refine it to the optimum."""
    domain = walled_domain()
    start, goal = (2.5, 30.0), (57.5, 30.0)
    car = Disc((30.0, 1.5), 1.5)
    used = {}
    for raise_epsilon in (False, True):
        cs = ConstraintSet([Constraint(Disc((42, 24), 7.5), -3, near=True),
                            Constraint.hard(car)])
        planner = ConstraintPlanner(domain, start, goal, cs, epsilon=2.5,
                                    raise_epsilon=raise_epsilon)
        path = planner.plan().path
        spot = path[int(len(path) * along)]
        planner.move_constraint(1, car.moved(spot - car.centre))
        assert planner.epsilon == (2.5 if raise_epsilon else 1.0)
        plan, used[raise_epsilon] = first_plan(planner)
        best = fresh_cost(domain, planner.constraints, start, goal)
        assert plan.found and 1.0 <= plan.epsilon <= 2.5
        assert plan.cost <= plan.epsilon * best + 1e-9
        assert shapely.LineString(plan.path).distance(shapely.Point(spot)) > 1.5
        final = planner.plan()
        assert final.epsilon == 1.0 and final.cost == pytest.approx(best, abs=1e-9)
    assert used[True] < used[False]


def test_a_path_left_open_by_a_change_keeps_the_current_epsilon():
    domain = open_domain()
    planner = ConstraintPlanner(domain, START, GOAL, CASES["near repeller"], epsilon=2.5)
    planner.plan()
    planner.move_constraint(0, planner.constraints[0].annotation.moved((0, 2)))
    assert planner.epsilon == 1.0 and planner.plan(max_expansions=0).found


def test_the_agent_waits_while_a_change_is_repaired():
    """Until the repair's round ends the planner answers with the last path while it is
    still open (no bound: epsilon inf) and with none once a hard constraint closes it: the
    agent stops and waits.  Slices of a frame's time budget finish the repair."""
    domain = open_domain()
    cs = ConstraintSet([Constraint(GUARD, -3, near=True), Constraint.hard(Disc((5, 1), 1.0))])
    planner = ConstraintPlanner(domain, START, GOAL, cs, epsilon=2.5)
    first = planner.plan()
    planner.move_constraint(0, GUARD.moved((0, 3)))
    open_path = planner.plan(max_expansions=0)
    assert open_path.found and open_path.epsilon == math.inf
    assert np.array_equal(open_path.path, first.path) and open_path.cost != first.cost
    spot = first.path[len(first.path) // 2]
    planner.move_constraint(1, Disc(tuple(spot), 1.0))
    waiting = planner.plan(max_expansions=0)
    assert not waiting.found and waiting.status == "out_of_budget"
    while not planner.finished:
        plan = planner.plan(max_seconds=0.001)
    assert plan.cost == pytest.approx(fresh_cost(domain, planner.constraints, START, GOAL),
                                      abs=1e-9)


def test_a_night_repeller_switched_on_by_the_time_changes_the_path():
    domain = open_domain()
    district = Region([(16, 6), (24, 6), (24, 15), (16, 15)])
    night = Constraint(district, lambda t: -8.0 if t >= 20 or t < 6 else 0.0)
    planner = ConstraintPlanner(domain, START, GOAL, [night], t=12.0, epsilon=1.0)
    day = planner.plan()
    assert inside_shares([night], day.path)[0] > 0.2               # straight through
    assert day.satisfied[0] == 1.0                                 # (no weight by day)
    planner.set_time(22.0)
    assert planner.t == 22.0
    region = domain.edges_meeting(ConstraintSet([night]).influence(t=22.0))
    assert planner.repaired_edges == len(region) < domain.num_edges
    late = planner.plan()
    assert inside_shares([night], late.path)[0] < 1e-9 and late.cost > day.cost   # around
    assert late.satisfied[0] > 1 - 1e-9
    assert late.cost == pytest.approx(fresh_cost(domain, ConstraintSet([night]), START, GOAL,
                                                 t=22.0), abs=1e-9)
    planner.set_time(9.0)
    assert planner.plan().cost == pytest.approx(day.cost, abs=1e-9)


def test_a_turning_guard_is_avoided_between_two_buildings():
    """Fig. 6.2's scene: not in the grass, not near the guard's line of sight (true line of
    sight: the wall hides what lies behind it), near the space between two buildings.  The
    guard turns step by step; each repair equals a fresh search and re-costs only the old and
    new sectors' regions of influence."""
    domain = open_domain()
    wall = [[(14.0, 3.0), (14.0, 17.0)]]
    eye = LineOfSight((22.5, 18.5), -math.pi / 2, fov=math.pi / 3, range=12.0, occluders=wall)
    cs = ConstraintSet([Constraint.hard(Region([(5, 12), (9, 12), (9, 16), (5, 16)])),
                        Constraint(eye, -4, near=True),
                        Constraint(Between(Disc((18, 3), 1.0), Disc((24, 3), 1.0)), 2,
                                   near=True)])
    planner = ConstraintPlanner(domain, START, GOAL, cs, epsilon=2.5)
    planner.plan()
    for _ in range(5):
        old = planner.constraints
        planner.move_constraint(1, old[1].annotation.moved(turn=0.35))
        region = domain.edges_meeting([old.influence()[1], planner.constraints.influence()[1]])
        assert planner.repaired_edges == len(region) < domain.num_edges
        plan = planner.plan()
        assert plan.cost == pytest.approx(fresh_cost(domain, planner.constraints, START, GOAL),
                                          abs=1e-9)
        assert plan.satisfied[0] == 1.0
        assert not shapely.LineString(plan.path).intersects(
            shapely.Polygon([(5, 12), (9, 12), (9, 16), (5, 16)]))


@pytest.mark.parametrize(("attract", "repel", "through"), [(5.0, -3.0, True),
                                                           (3.0, -5.0, False)])
def test_conflicting_constraints_trade_off_by_weight(attract, repel, through):
    """Attract and repel the same area: the stronger weight wins, and the plan reports
    how much of it satisfies each (shapely's intersection length: the attractor's share
    inside, the repeller's outside)."""
    domain = open_domain()
    yard = Region([(4, 11), (20, 11), (20, 18), (4, 18)])
    cs = ConstraintSet([Constraint(yard, attract), Constraint(yard, repel)])
    plan = ConstraintPlanner(domain, START, GOAL, cs, epsilon=1.0).plan()
    assert plan.cost == pytest.approx(fresh_cost(domain, cs, START, GOAL), abs=1e-9)
    line = shapely.LineString(plan.path)
    share = line.intersection(shapely.Polygon(yard.vertices)).length / line.length
    assert plan.satisfied == pytest.approx([share, 1 - share], abs=1e-6)
    assert inside_shares(cs, plan.path) == pytest.approx([share, share], abs=1e-6)
    assert (share > 0.5) if through else (share == 0.0)


def between_buildings():
    """Fig. 6.2's scene on a 30 x 20 grid: buildings B (below) and C (above) with a gap
    between them on the straight route from the start to the goal, grass above C."""
    free = np.ones((20, 30), dtype=bool)
    free[2:7, 12:16] = False
    free[13:18, 12:16] = False
    b = Region([(12, 2), (16, 2), (16, 7), (12, 7)])
    c = Region([(12, 13), (16, 13), (16, 18), (12, 18)])
    grass = Region([(9, 17), (19, 17), (19, 20), (9, 20)])
    return GridConstraintDomain(Grid(free)), Between(b, c), grass


def fig62(watch, near_between):
    """Not In grass ∧ Not Near the guard's line of sight (``watch``) ∧ Near Between(B, C)
    (``near_between``): the guard, east of the gap, looks through it."""
    domain, between, grass = between_buildings()
    eye = LineOfSight((21, 10), math.pi, fov=math.pi / 3, range=12.0)
    cs = ConstraintSet([Constraint.hard(grass), Constraint(eye, watch, near=True),
                        Constraint(between, near_between, near=True)])
    start, goal = (1.5, 10.5), (28.5, 10.5)
    plan = ConstraintPlanner(domain, start, goal, cs, epsilon=1.0).plan()
    assert plan.found
    assert plan.cost == pytest.approx(fresh_cost(domain, cs, start, goal), abs=1e-9)
    assert not shapely.LineString(plan.path).intersects(shapely.Polygon(grass.vertices))
    assert plan.satisfied[0] == 1.0
    return plan, cs


@pytest.mark.parametrize(("watch", "near_between", "through"),
                         [(-2.0, 3.0, True), (-8.0, 3.0, False), (-8.0, 6.0, True)])
def test_line_of_sight_over_between_is_traded_off_by_weight(watch, near_between, through):
    """Fig. 6.2's conflict: the guard's line of sight covers the space between the
    buildings.  A repeller stronger than the attractor sends the path round the buildings,
    out of both; a weaker one (or a stronger attractor) keeps it between them, in sight."""
    plan, cs = fig62(watch, near_between)
    inside = inside_shares(cs, plan.path)
    if through:
        assert inside[1] > 0.3 and inside[2] > 0.1
    else:
        assert inside[1] == 0.0 and inside[2] == 0.0


def test_a_stronger_repeller_is_satisfied_more_and_the_attractor_less():
    """Best effort: raising the line of sight's weight moves the plan's satisfaction from
    the attractor to the repeller; every share matches an independent integral."""
    weak, cs_weak = fig62(-2.0, 3.0)
    strong, cs_strong = fig62(-8.0, 3.0)
    assert strong.satisfied[1] > weak.satisfied[1]
    assert strong.satisfied[2] < weak.satisfied[2]
    for plan, cs in [(weak, cs_weak), (strong, cs_strong)]:
        assert plan.satisfied == pytest.approx(satisfied_oracle(cs, plan.path), abs=1e-3)


def to_shapely(ann):
    """A region or disc as a shapely polygon (a disc as a fine polygon)."""
    if isinstance(ann, Region):
        return shapely.Polygon(ann.vertices)
    return shapely.Point(*ann.centre).buffer(ann.radius, quad_segs=256)


def distance_oracle(ann, pts):
    """Distance from ``pts`` to ``ann`` (0 inside): a disc's from its centre, a region's
    and a Between hull's from shapely, a sight sector's from its own method."""
    if isinstance(ann, Disc):
        return np.maximum(0.0, np.hypot(*(pts - ann.centre).T) - ann.radius)
    if isinstance(ann, Between):
        shape = shapely.GeometryCollection([to_shapely(p) for p in ann.parts]).convex_hull
    elif isinstance(ann, Region):
        shape = to_shapely(ann)
    else:
        return ann.distance(pts)
    return shapely.distance(shape, shapely.points(pts))


def satisfied_oracle(cs, path, samples=2000):
    """Per constraint, the mean along ``path`` of its membership (1 - its distance over
    |w| for Near, clipped at 0; the indicator for In and hard), flipped for repellers:
    midpoint sums of ``samples`` pieces per segment."""
    path = np.asarray(path, dtype=float)
    out = []
    for c in cs:
        total = acc = 0.0
        for a, b in zip(path[:-1], path[1:]):
            f = (np.arange(samples) + 0.5) / samples
            pts = a + (b - a) * f[:, None]
            dist = distance_oracle(c.annotation, pts)
            w = c.weight_at(0.0)
            mu = (np.maximum(0.0, 1 - dist / abs(w)) if c.near and not c.is_hard
                  else (dist == 0).astype(float))
            length = float(np.hypot(*(b - a)))
            acc += mu.mean() * length
            total += length
        mean = acc / total
        out.append(mean if c.weight_at(0.0) > 0 else 1 - mean)
    return out


def test_satisfied_shares_match_an_independent_integral_on_a_winding_path():
    rng = np.random.default_rng(5)
    path = np.cumsum(rng.normal(0, 2.0, (30, 2)), axis=0)
    notch = Region([(-6, -6), (6, -6), (6, 6), (0, 0), (-6, 6)])    # not convex
    cs = ConstraintSet([Constraint(notch, 2), Constraint(notch, -3, near=True),
                        Constraint(Disc((2, 1), 3.0), 4, near=True),
                        Constraint(Between(Disc((-4, 3), 1.0), Region([(5, 5), (7, 5),
                                                                       (7, 8)])), -2.5,
                                   near=True),
                        Constraint.hard(Disc((0, -3), 1.5))])
    shares = satisfied_shares(cs, path)
    assert shares == pytest.approx(satisfied_oracle(cs, path), abs=1e-3)
    assert ((shares >= 0) & (shares <= 1)).all()


def test_satisfied_shares_at_a_point_without_a_path_and_for_a_weight_of_zero():
    lamp = Constraint(Disc((0, 0), 1.0), 4, near=True)
    off = Constraint(Disc((0, 0), 1.0), lambda t: 0.0 if t < 10 else -2.0)
    cs = ConstraintSet([lamp, off])
    assert satisfied_shares(cs, [(2, 0)]).tolist() == [0.75, 1.0]        # μ = 1 - 1/4
    assert satisfied_shares(cs, [(0.5, 0)], t=12).tolist() == [1.0, 0.0]
    assert satisfied_shares(cs, np.empty((0, 2))).tolist() == [0.0, 0.0]


def test_adding_an_attractor_lifts_every_cost_and_starts_over():
    domain = open_domain()
    planner = ConstraintPlanner(domain, START, GOAL, CASES["near repeller"], epsilon=2.5)
    planner.plan()
    cs = ConstraintSet([*CASES["near repeller"], Constraint(HALL, 3)])
    planner.set_constraints(cs)
    assert planner.repaired_edges == domain.num_edges and planner.epsilon == 2.5
    assert planner.plan().cost == pytest.approx(fresh_cost(domain, cs, START, GOAL), abs=1e-9)
    planner.set_constraints(ConstraintSet([cs[1]]))               # a repeller removed
    assert planner.repaired_edges == len(domain.edges_meeting([cs.influence()[0]]))
    assert planner.plan().cost == pytest.approx(
        fresh_cost(domain, ConstraintSet([cs[1]]), START, GOAL), abs=1e-9)


@pytest.mark.parametrize(("before", "after"), [(2, 1), (1, 2), (2, 0), (1, 3)])
def test_a_constraint_given_several_times_weighs_each_time_and_is_repaired_by_count(before,
                                                                                    after):
    """The same constraint object twice weighs twice; changing how many times it is given
    re-costs its region (the set is compared by counts, not by membership)."""
    domain = open_domain()
    guard = Constraint(Disc((21, 10), 2.0), -5, near=True)
    other = Constraint(Disc((8, 4), 1.0), -2, near=True)
    first = ConstraintSet([guard] * before + [other])
    planner = ConstraintPlanner(domain, START, GOAL, first, epsilon=1.0)
    assert planner.plan().cost == pytest.approx(fresh_cost(domain, first, START, GOAL),
                                                abs=1e-9)
    second = ConstraintSet([other] + [guard] * after)
    planner.set_constraints(second)
    assert planner.repaired_edges == len(domain.edges_meeting([first.influence()[0]]))
    assert np.array_equal(planner.costs, domain.costs(second))
    assert planner.plan().cost == pytest.approx(fresh_cost(domain, second, START, GOAL),
                                                abs=1e-9)


def test_no_path_is_an_outcome_until_the_constraint_leaves():
    domain = open_domain()
    cage = Disc(GOAL, 2.5)
    planner = ConstraintPlanner(domain, START, GOAL, [Constraint.hard(cage)])
    plan = planner.plan()
    assert not plan.found and plan.status == "failed" and plan.cost == math.inf
    assert plan.satisfied.tolist() == [0.0] and plan.path.shape == (0, 2)
    planner.move_constraint(0, cage.moved((0, -6)))
    plan = planner.plan()
    assert plan.found
    assert plan.cost == pytest.approx(fresh_cost(domain, planner.constraints, START, GOAL),
                                      abs=1e-9)


def test_start_equal_to_goal():
    planner = ConstraintPlanner(open_domain(), START, START, CASES["mixed"])
    plan = planner.plan()
    assert plan.found and plan.cost == 0.0 and plan.path.tolist() == [list(START)]


def planner_on(domain, constraints=None, **options):
    return ConstraintPlanner(domain, START, GOAL, constraints, **options)


@pytest.mark.parametrize(("call", "message"), [
    (lambda d: ConstraintPlanner("grid", START, GOAL, None), "not a ConstraintDomain"),
    (lambda d: ConstraintPlanner(d, (math.nan, 0), GOAL, None), "start"),
    (lambda d: ConstraintPlanner(d, START, (1, 2, 3), None), "goal"),
    (lambda d: planner_on(d, [GUARD]), "not a Constraint"),
    (lambda d: planner_on(d, "guard"), "ConstraintSet"),
    (lambda d: planner_on(d, epsilon=0.5), "epsilon"),
    (lambda d: planner_on(d, step=0), "step"),
    (lambda d: planner_on(d, raise_epsilon=1), "raise_epsilon 1 must be True or False"),
    (lambda d: planner_on(d, t=math.inf), "t"),
    (lambda d: planner_on(d).plan(max_expansions=-1), "max_expansions"),
    (lambda d: planner_on(d).plan(max_seconds=math.nan), "max_seconds"),
    (lambda d: planner_on(d).move_constraint(0, GUARD), "no constraint"),
    (lambda d: planner_on(d, CASES["hard disc"]).move_constraint(1, GUARD), "index"),
    (lambda d: planner_on(d, CASES["hard disc"]).move_constraint(-1, GUARD), "index"),
    (lambda d: planner_on(d, CASES["hard disc"]).move_constraint(0.0, GUARD), "index"),
    (lambda d: planner_on(d, CASES["hard disc"]).move_constraint(0, "x"), "Annotation"),
    (lambda d: planner_on(d).set_time(math.nan), "t"),
    (lambda d: planner_on(d).move_start(None), "start"),
    (lambda d: planner_on(d).set_goal("here"), "goal"),
    (lambda d: planner_on(d).set_constraints(3), "ConstraintSet"),
    (lambda d: inside_shares(CASES["hard disc"], [[0, 0], [math.nan, 1]]), "path"),
    (lambda d: satisfied_shares(CASES["hard disc"], [0, 1]), "path"),
    (lambda d: satisfied_shares(CASES["hard disc"], [[0, 0]], t=math.nan), "t"),
    (lambda d: satisfied_shares("guard", [[0, 0]]), "ConstraintSet"),
    (lambda d: d.straight_leg((0, math.nan), GOAL, None), "start"),
    (lambda d: d.straight_leg(START, "here", None), "goal"),
    (lambda d: d.straight_leg(START, GOAL, 3), "ConstraintSet"),
    (lambda d: d.straight_leg(START, GOAL, None, t=math.nan), "t"),
    (lambda d: random_domain(0).straight_leg((0, 0, 0), GOAL, None), "start"),
    (lambda d: random_domain(0).straight_leg(START, GOAL, "pond"), "ConstraintSet"),
])
def test_bad_input_raises_and_names_it(call, message):
    with pytest.raises(InvalidQueryError, match=message):
        call(open_domain())


def test_bad_input_changes_nothing():
    domain = open_domain()
    planner = ConstraintPlanner(domain, START, GOAL, CASES["mixed"], epsilon=1.0)
    plan = planner.plan()
    costs = planner.costs.copy()
    for bad in (lambda: planner.move_constraint(0, "x"), lambda: planner.set_time(math.nan),
                lambda: planner.move_start((0, math.inf))):
        with pytest.raises(InvalidQueryError):
            bad()
    again = planner.plan()
    assert np.array_equal(planner.costs, costs) and again.stats.expanded == 0
    assert np.array_equal(again.path, plan.path) and again.cost == plan.cost
