"""The multi-domain planner: its settled plan against the exact optimum on the finest
(grid) domain over random worlds, the density field rerouting Σ2, the frames' budget and
priority order, an agent that stands still without a plan and reaches its goal with one,
keeping clear of a published path on the way, the events that repair it, and bad input."""

import math

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra as sp_dijkstra

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.grid.worlds import blocks_world
from wayfinding.navmesh import NavMesh
from wayfinding.planning.domain_grid import GridDomain
from wayfinding.planning.domain_navmesh import DensityDomain, NavMeshDomain
from wayfinding.planning.domain_spacetime import PublishedPath, SpaceTimeDomain
from wayfinding.planning.multidomain import MultiDomainPlanner, plan_multidomain
from wayfinding.planning.tasks import GraphTask, TaskEvent
from wayfinding.results import PathResult, Status
from wayfinding.search import dijkstra

#: The factor the tests hold settled plans to over the grid optimum (multidomain's
#: docstring gives the measured one per world family).
FACTOR = 1.5


def random_world(seed, w=24, h=16, blocks=7):
    rng = np.random.default_rng(seed)
    free = np.ones((h, w), dtype=bool)
    for _ in range(blocks):
        x, y = rng.integers(2, w - 4), rng.integers(0, h - 3)
        free[y:y + rng.integers(1, 5), x:x + rng.integers(1, 5)] = False
    free[:, :2] = True
    free[:, -2:] = True
    return Grid(free)


def domains(grid, density=None, radius=0.3, **spacetime):
    mesh = NavMesh.build(grid)
    rho = np.zeros(mesh.num_polygons) if density is None else density(mesh)
    g = GridDomain(grid, radius=radius)
    st = SpaceTimeDomain(g, **spacetime) if spacetime else None
    return NavMeshDomain(mesh), DensityDomain(mesh, rho, k=2.0), g, st


def grid_optimum(d, start, goal):
    """Exact Σ3 cost by scipy over the domain's own transitions."""
    h, w = d.walls.shape
    src, dst, cost = [], [], []
    for y, x in zip(*np.nonzero(d.free)):
        for (nx, ny), c in d.successors((int(x), int(y))):
            src.append(y * w + x)
            dst.append(ny * w + nx)
            cost.append(c)
    m = csr_matrix((cost, (src, dst)), shape=(h * w, h * w))
    return sp_dijkstra(m, indices=start[1] * w + start[0])[goal[1] * w + goal[0]]


def _legal(d, cells):
    return all(math.isfinite(d.current.step_cost(tuple(a), tuple(b)))
               for a, b in zip(cells.tolist(), cells[1:].tolist()))


@pytest.mark.parametrize("seed", range(16))
def test_the_settled_plan_is_never_below_the_grid_optimum_and_within_the_factor(seed):
    s1, s2, s3, _ = domains(random_world(seed))
    start, goal = (0.5, 0.5 + seed % 16), (23.5, 15.5 - (seed * 7) % 16)
    plan = plan_multidomain(s1, s2, s3, start, goal)
    best = grid_optimum(s3, s3.state(start), s3.state(goal))
    assert plan.status is Status.FOUND and plan.found and plan.epsilon == 1.0
    assert best - 1e-9 <= plan.cost <= FACTOR * best
    joined = np.concatenate([plan.legs[0]] + [leg[1:] for leg in plan.legs[1:]])
    assert _legal(s3, joined)
    assert tuple(joined[0]) == s3.state(start) and tuple(joined[-1]) == s3.state(goal)
    assert np.allclose(plan.path, s3.positions(joined))
    assert [tuple(leg[0]) for leg in plan.legs] == [tuple(w) for w in plan.waypoints[:-1]]
    legs = sum(grid_optimum(s3, tuple(a), tuple(b))
               for a, b in zip(plan.waypoints.tolist(), plan.waypoints[1:].tolist()))
    assert math.isclose(plan.cost, legs, rel_tol=1e-12)     # each leg optimal


TWO_WAYS = Grid.from_ascii("""
    ....................
    ....................
    ....................
    ....############....
    ....############....
    ....############....
    ....................
    ....................""")


def _crowded_bottom(mesh):
    return np.where(mesh.centroids()[:, 1] > 5.0, 5.0, 0.0)


def test_density_reroutes_the_dynamic_plan_around_a_crowd():
    s1, s2, s3, _ = domains(TWO_WAYS, density=_crowded_bottom)
    start, goal = (0.5, 4.5), (19.5, 4.5)
    plan = plan_multidomain(s1, s2, s3, start, goal, corridor=None)
    assert plan.found
    assert s1.centres[plan.static][:, 1].max() > 5.0           # Σ1: the short way
    assert s1.centres[plan.dynamic][:, 1].max() <= 5.0         # Σ2: around the crowd
    assert (s2.density()[plan.dynamic] == 0).all()
    n = s2.num_states
    m = csr_matrix((s2.edge_costs(), (s2.sources, s2.targets)), shape=(n, n))
    exact = sp_dijkstra(m, indices=int(plan.dynamic[0]))[int(plan.dynamic[-1])]
    along = sum(s2.cost(a, b) for a, b in zip(plan.dynamic, plan.dynamic[1:]))
    assert math.isclose(along, exact, rel_tol=1e-12)          # Σ2's exact optimum
    assert sum(s2.cost(a, b) for a, b in zip(plan.static, plan.static[1:])) > exact
    assert all(s1.mesh.locate(p) in plan.dynamic for p in plan.path)


def test_the_corridor_keeps_the_dynamic_plan_near_the_static_one():
    s1, s2, s3, _ = domains(TWO_WAYS, density=_crowded_bottom)
    plan = plan_multidomain(s1, s2, s3, (0.5, 4.5), (19.5, 4.5), corridor=0)
    assert plan.dynamic.tolist() == plan.static.tolist()      # no way around in Σ2


def test_the_agent_stands_still_until_it_has_a_plan_then_reaches_its_goal():
    s1, s2, s3, _ = domains(random_world(3))
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 0.5), (23.5, 15.5), max_tasks=2)
    first = planner.frame(max_expansions=20)
    assert not first.moved and first.position.tolist() == [0.5, 0.5]
    assert len(first.tasks) == 2 and first.tasks[-1] == ("T0", 0)
    for _ in range(200):
        report = planner.frame(max_expansions=40)
        assert len(report.tasks) <= 2 and report.tasks[-1][0] == "T0"
        if planner.cell == planner.goal_cell:
            break
    assert planner.cell == (23, 15)


def test_each_frame_runs_the_most_urgent_tasks_ties_going_upstream_first():
    s1, s2, s3, _ = domains(random_world(5))
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 0.5), (23.5, 15.5), max_tasks=4,
                                 corridor=None)
    for _ in range(40):
        ready = sorted((t.priority, i, name) for i, (name, t) in enumerate(planner.tasks)
                       if t.priority < math.inf)
        ran = planner.think(max_expansions=60)
        assert [name for name, _ in ran] == [name for _, _, name in ready[:3]]
        if planner.settled:
            break
    assert planner.settled and planner.result().found


def test_the_budget_is_shared_in_proportion_to_one_over_priority():
    s1, s2, s3, _ = domains(random_world(5))
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 0.5), (23.5, 15.5), max_tasks=3,
                                 corridor=None)
    p1, p2 = planner.t1.priority, planner.t2.priority          # 4 and 3: both invalid
    assert (p1, p2) == (4.0, 3.0)
    ran = dict(planner.think(max_expansions=7))
    total = 1 / p1 + 1 / p2
    assert ran["T2"] == int(7 * (1 / p2) / total) == 4      # the more urgent gets more
    assert ran["T1"] == int(7 * (1 / p1) / total) == 3


def test_the_executed_walk_keeps_clear_of_a_published_path():
    grid = Grid.from_ascii("\n".join(["." * 16] * 6))
    crossing = PublishedPath([(8.5, -3.0), (8.5, 9.0)], [0.0, 9.0], 0.4)
    s1, s2, s3, s4 = domains(grid, radius=0.3, entities=[crossing], speed_weight=0.25)
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 2.5), (15.5, 2.5), spacetime=s4,
                                 speed=2.0)
    walk = [(planner.t, planner.position.copy())]
    for _ in range(120):
        planner.frame(max_expansions=400)
        walk.append((planner.t, planner.position.copy()))
        if planner.cell == planner.goal_cell:
            break
    assert planner.cell == (15, 2)
    for (t0, a), (t1, b) in zip(walk, walk[1:]):
        for u in np.linspace(0.0, 1.0, 33):
            gap = np.hypot(*(a + u * (b - a) - crossing.at(t0 + u * (t1 - t0))[0]))
            assert gap >= crossing.radius + s3.radius - 1e-9


def test_an_obstacle_on_the_leg_is_planned_around():
    s1, s2, s3, _ = domains(TWO_WAYS)
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 7.5), (19.5, 7.5), max_tasks=10)
    while not planner.settled:
        planner.think()
    on_route = planner.result().legs[0][len(planner.result().legs[0]) // 2]
    x, y = (int(v) for v in on_route)
    planner.set_obstacles([(x + 0.5, y + 0.5, 0.6)])
    assert not s3.free[y, x]
    while not planner.settled:
        planner.think()
    plan = planner.result()
    assert plan.found
    assert all(s3.free[cy, cx] for leg in plan.legs for cx, cy in leg.tolist())
    assert math.isclose(plan.cost, sum(grid_optimum(s3, tuple(a), tuple(b)) for a, b in
                                       zip(plan.waypoints.tolist(),
                                           plan.waypoints[1:].tolist())))


def test_a_new_goal_and_a_new_time_replan():
    s1, s2, s3, _ = domains(TWO_WAYS)
    rho = lambda t: np.where(s1.centres[:, 1] > 5.0, 5.0 * t, 0.0)   # noqa: E731
    s2 = DensityDomain(s1.mesh, rho, k=2.0)
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 4.5), (19.5, 4.5), corridor=None,
                                 max_tasks=10)
    while not planner.settled:
        planner.think()
    plan = planner.result()
    assert s1.centres[plan.dynamic][:, 1].max() > 5.0          # no crowd yet: the bottom
    planner.set_time(1.0)
    while not planner.settled:
        planner.think()
    plan = planner.result()
    assert s1.centres[plan.dynamic][:, 1].max() <= 5.0         # crowded: the top
    planner.set_goal((10.5, 0.5))
    while not planner.settled:
        planner.think()
    plan = planner.result()
    assert plan.found and tuple(plan.waypoints[-1]) == (10, 0)


@pytest.fixture(scope="module")
def two_ways():
    s1, s2, s3, _ = domains(TWO_WAYS)
    return s1, s2, s3


START, GOAL = (0.5, 0.5), (19.5, 7.5)


@pytest.mark.parametrize(("change", "kwargs"), [
    ("other mesh", {}), ("grid as mesh", {}), ("start in a wall", {}), ("goal off", {}),
    ("", {"max_tasks": 1}), ("", {"corridor": -1}), ("", {"speed": 0.0}),
    ("", {"epsilon": 0.5}), ("", {"epsilon_step": 0.0}), ("", {"t": np.nan}),
    ("other grid", {})])
def test_bad_planners_are_refused(two_ways, change, kwargs):
    s1, s2, s3 = two_ways
    args = [s1, s2, s3, START, GOAL]
    if change == "other mesh":
        args[1] = DensityDomain(NavMesh.build(TWO_WAYS), np.zeros(s1.num_states))
    elif change == "grid as mesh":
        args[0] = s3
    elif change == "start in a wall":
        args[3] = (8.5, 4.5)
    elif change == "goal off":
        args[4] = (99.0, 0.0)
    elif change == "other grid":
        kwargs = {"spacetime": SpaceTimeDomain(GridDomain(TWO_WAYS))}
    with pytest.raises(InvalidQueryError):
        MultiDomainPlanner(*args, **kwargs)


def test_bad_events_and_budgets_are_refused(two_ways):
    s1, s2, s3 = two_ways
    planner = MultiDomainPlanner(s1, s2, s3, START, GOAL)
    with pytest.raises(InvalidQueryError, match="spacetime"):
        planner.set_entities([])
    with pytest.raises(InvalidQueryError):
        planner.set_goal((8.5, 4.5))
    with pytest.raises(InvalidQueryError):
        planner.set_obstacles([(1.0, 1.0)])
    with pytest.raises(InvalidQueryError):
        planner.set_time(np.inf)
    with pytest.raises(InvalidQueryError):
        planner.think(max_expansions=-1)
    with pytest.raises(InvalidQueryError):
        plan_multidomain(s1, s2, s3, START, GOAL, max_frames=0)
    assert planner.goal_cell == (19, 7) and planner.t == 0.0      # nothing changed


def test_events_reach_the_tasks_that_watch_them():
    s1, s2, s3, s4 = domains(TWO_WAYS, density=_crowded_bottom, entities=[])
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 4.5), (19.5, 4.5), spacetime=s4,
                                 max_tasks=10)
    while not planner.settled:
        planner.think()
    seen = planner.events
    assert ("T2", TaskEvent.PLAN_CHANGED) in seen                  # Π(Σ1) arrived
    assert ("T3[0]", TaskEvent.PLAN_CHANGED) in seen               # the waypoint pairs
    assert ("T4", TaskEvent.PLAN_CHANGED) in seen                  # the imminent leg
    assert planner.frame().events[:len(seen)] == seen and planner.events == []
    for change, event, names in [
            (lambda: planner.set_time(3.0), TaskEvent.ENVIRONMENT_CHANGED, ["T2"]),
            (lambda: planner.set_obstacles([(18.5, 1.5, 0.5)]), TaskEvent.ENVIRONMENT_CHANGED,
             [f"T3[{i}]" for i in range(len(planner.legs))]),
            (lambda: planner.set_entities([PublishedPath([(15.5, 1.5)], [0.0], 0.3)]),
             TaskEvent.ENVIRONMENT_CHANGED, ["T4"]),
            (lambda: planner.set_goal((19.5, 0.5)), TaskEvent.GOAL_CHANGED, ["T1", "T2"])]:
        change()
        assert [n for n, e in planner.events if e is event] == names
        planner.events.clear()
    assert planner.t1.watches == {TaskEvent.START_CHANGED, TaskEvent.GOAL_CHANGED}
    assert planner.t2.watches == frozenset(TaskEvent)


def test_a_wait_longer_than_the_tunnel_is_planned_without_it():
    corridor = Grid.from_ascii("""
        ################
        ................
        ################""")
    # an entity stands in the corridor for 8 s, then leaves it to the right
    blocker = PublishedPath([(9.5, 1.5), (9.5, 1.5), (30.5, 1.5)], [0.0, 8.0, 12.0], 0.3)
    s1, s2, s3, s4 = domains(corridor, radius=0.3, entities=[blocker], speed_weight=0.0,
                             horizon=200)
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 1.5), (15.5, 1.5), spacetime=s4,
                                 speed=2.0, max_tasks=10)
    walk, tunnels = [(planner.t, planner.position.copy())], set()
    for _ in range(120):
        planner.frame(max_expansions=3000)
        if planner.t4 is not None:
            tunnels.add(planner.t4.tunnel is None)
        walk.append((planner.t, planner.position.copy()))
        if planner.cell == planner.goal_cell:
            break
    assert planner.cell == (15, 1)
    assert tunnels == {True, False}                  # it gave up the tunnel on the way
    assert planner.t > 8.0
    for (t0, a), (t1, b) in zip(walk, walk[1:]):
        for u in np.linspace(0.0, 1.0, 33):
            gap = np.hypot(*(a + u * (b - a) - blocker.at(t0 + u * (t1 - t0))[0]))
            assert gap >= blocker.radius + s3.radius - 1e-9


@pytest.mark.parametrize("corridor", [1, None])
def test_an_unreachable_goal_fails_at_once_and_the_agent_stands_still(corridor):
    split = Grid.from_ascii("""
        ...#....
        ...#....
        ...#....""")
    s1, s2, s3, _ = domains(split)
    plan = plan_multidomain(s1, s2, s3, (0.5, 0.5), (7.5, 2.5), corridor=corridor,
                            max_frames=5)
    assert plan.status is Status.FAILED and not plan.found and plan.cost == math.inf
    planner = MultiDomainPlanner(s1, s2, s3, (0.5, 0.5), (7.5, 2.5), corridor=corridor)
    for _ in range(5):
        report = planner.frame(max_expansions=50)
        assert not report.moved and report.position.tolist() == [0.5, 0.5]
    assert planner.settled


@pytest.mark.parametrize("seed", range(4))
def test_the_space_time_plan_is_never_below_the_space_time_optimum_of_its_leg(seed):
    s1, s2, s3, s4 = domains(random_world(seed), entities=[], speed_weight=0.0,
                             horizon=120)
    start, goal = (0.5, 0.5 + seed % 16), (23.5, 15.5 - (seed * 7) % 16)
    planner = MultiDomainPlanner(s1, s2, s3, start, goal, spacetime=s4, speed=2.0,
                                 max_tasks=10)
    while not planner.settled:
        planner.think()
    states = planner.result().spacetime
    assert len(states) and tuple(states[-1, :2]) == planner.legs[0].goal
    first = tuple(int(v) for v in states[0])
    s4.problem(first, planner.legs[0].goal)
    exact = dijkstra(s4, first, s4.is_goal)
    assert planner.t4.plan.epsilon == 1.0
    assert exact.cost - 1e-9 <= planner.t4.plan.cost <= 1.25 * exact.cost
    assert s4.valid_path(states)


def family(name, seed):
    """The Σ1–Σ3 domains and the ends of world ``seed`` of a family: ``"open"`` (the
    random worlds above, left edge to right edge), ``"blocks"`` (the 40 × 30
    :func:`~wayfinding.grid.worlds.blocks_world`) or ``"radius"`` (the random worlds with
    meshes built for the agent's radius 0.3)."""
    if name == "blocks":
        grid, start, goal = blocks_world(40, 30, seed=seed)
    else:
        grid = random_world(seed)
        start, goal = (0.5, 0.5 + seed % 16), (23.5, 15.5 - (seed * 7) % 16)
    mesh = NavMesh.build(grid, radius=0.3) if name == "radius" else NavMesh.build(grid)
    return (NavMeshDomain(mesh), DensityDomain(mesh, np.zeros(mesh.num_polygons)),
            GridDomain(grid, radius=0.3), start, goal)


def walk(name, seed):
    """Frames (no budget, two tasks a frame) until the agent of world ``seed`` of
    ``name`` stands on its goal (None: not within the bound), and the cells of the grid
    optimum between its ends (inf: none)."""
    s1, s2, s3, start, goal = family(name, seed)
    best = grid_optimum(s3, s3.state(start), s3.state(goal))
    planner = MultiDomainPlanner(s1, s2, s3, start, goal)
    bound = 60 + 4 * int(best / s3.cell_size) if math.isfinite(best) else 60
    for frame in range(bound):
        if planner.cell == planner.goal_cell:
            return frame, best
        planner.frame()
    return None, best


@pytest.mark.parametrize(("name", "seed"), [(n, s) for n in ("open", "blocks", "radius")
                                            for s in (11, 20, 13, 25)])
def test_the_agent_arrives_in_a_bounded_number_of_frames(name, seed):
    frames, best = walk(name, seed)
    assert frames is not None or not math.isfinite(best)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["open", "blocks", "radius"])
def test_the_agent_arrives_in_every_world_of_a_family(name):
    walks = [walk(name, seed) for seed in range(200)]
    assert [s for s, (frames, best) in enumerate(walks)
            if frames is None and math.isfinite(best)] == []


@pytest.mark.parametrize("raise_epsilon", [False, True])
def test_a_cut_leg_is_repaired_from_the_first_inflation_with_raise_epsilon(raise_epsilon):
    g = GridDomain(TWO_WAYS, radius=0.3)
    task = GraphTask(g, (0, 7), (19, 7), 2, epsilon=2.0, raise_epsilon=raise_epsilon)
    while not task.finished:
        task.run()
    assert task.plan.epsilon == 1.0
    x, y = (int(v) for v in task.plan.path[len(task.plan.path) // 2])
    task.update_costs(g.set_obstacles([(x + 0.5, y + 0.5, 0.4)]))
    assert task.planner.epsilon == (2.0 if raise_epsilon else 1.0)
    task.run(max_expansions=10_000)
    assert task.plan.found and tuple(task.plan.path[-1]) == (19, 7)
    assert all(g.free[cy, cx] for cx, cy in task.plan.path.tolist())
    assert task.plan.cost <= task.plan.epsilon * grid_optimum(g, (0, 7), (19, 7)) + 1e-9
    planner = MultiDomainPlanner(*domains(TWO_WAYS)[:3], START, GOAL,
                                 raise_epsilon=raise_epsilon)
    while not planner.settled:
        planner.think()
    assert {t.planner.raise_epsilon for _, t in planner.tasks} == {raise_epsilon}


def test_the_plan_is_a_path_result_with_the_tasks_work():
    s1, s2, s3, _ = domains(TWO_WAYS)
    planner = MultiDomainPlanner(s1, s2, s3, START, GOAL, max_tasks=10)
    ran = 0
    while not planner.settled:
        ran += sum(n for _, n in planner.think())
    plan = planner.result()
    assert isinstance(plan, PathResult) and plan.algorithm == "multidomain"
    assert plan.stats.expanded == ran > 0 and plan.stats.elapsed > 0
    assert plan.found and len(plan) == len(plan.path) and plan == planner.result()
    waiting = MultiDomainPlanner(s1, s2, s3, START, GOAL).result()
    assert waiting.status is Status.OUT_OF_BUDGET and not waiting.found
    assert waiting.stats.expanded == 0 and waiting.static.shape == (0,)


def settled_factor(name, seed):
    """The settled plan's cost over the grid optimum in world ``seed`` of ``name``
    (None: the ends are not connected), after checking it is never below."""
    s1, s2, s3, start, goal = family(name, seed)
    best = grid_optimum(s3, s3.state(start), s3.state(goal))
    plan = plan_multidomain(s1, s2, s3, start, goal)
    if not math.isfinite(best):
        return None
    assert plan.found and best - 1e-9 <= plan.cost
    return plan.cost / best if best > 0 else 1.0


@pytest.mark.parametrize(("name", "seed"), [(n, s) for n in ("blocks", "radius")
                                            for s in range(6)])
def test_settled_plans_of_other_families_are_within_the_factor(name, seed):
    factor = settled_factor(name, seed)
    assert factor is None or factor <= FACTOR


@pytest.mark.slow
@pytest.mark.parametrize("name", ["open", "blocks", "radius"])
def test_every_settled_plan_of_a_family_is_within_the_factor(name):
    factors = [settled_factor(name, seed) for seed in range(200)]
    assert max(f for f in factors if f is not None) <= FACTOR
