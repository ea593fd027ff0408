"""The dense uniform domain of a grid: its states and transitions are the grid's, its costs
the grid's step costs times a constraint field, and a search on it is exact."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from strategies import RULES, TERRAIN, seeded_grid_problems

from wayfinding import Grid, find_path
from wayfinding.constraints import Constraint, ConstraintSet, Disc, Region
from wayfinding.errors import InvalidQueryError
from wayfinding.grid.constrained import GridConstraintDomain, grid_domain


def random_constraints(rng, box, *, hard=True):
    """A random constraint set over ``box`` ``(xmin, ymin, xmax, ymax)``: two to four soft
    In or Near constraints on discs and triangles, weights in [-5, 5], and (with ``hard``) a
    hard disc."""
    x0, y0, x1, y1 = box
    span = max(x1 - x0, y1 - y0)
    items = []
    for _ in range(rng.integers(2, 5)):
        if rng.random() < 0.5:
            shape = Disc(rng.uniform((x0, y0), (x1, y1)), rng.uniform(0.1, 0.3) * span)
        else:
            shape = Region(rng.uniform((x0, y0), (x1, y1), (3, 2)))
        items.append(Constraint(shape, float(rng.choice([-1, 1]) * rng.uniform(0.5, 5)),
                                near=bool(rng.random() < 0.5)))
    if hard:
        items.append(Constraint.hard(Disc(rng.uniform((x0, y0), (x1, y1)),
                                          rng.uniform(0.05, 0.15) * span)))
    return ConstraintSet(items)


def near(centre, weight, radius=1.0):
    return ConstraintSet([Constraint(Disc(centre, radius), weight, near=True)])


def scipy_cost(domain, costs, u, v):
    ok = np.isfinite(costs)
    e = domain.edges[ok]
    m = csr_array((costs[ok], (e[:, 0], e[:, 1])), shape=(domain.num_nodes,) * 2)
    return float(dijkstra(m, indices=u)[v])


@settings(max_examples=60, deadline=None)
@given(seeded_grid_problems(rules=RULES, terrain=TERRAIN, max_side=14))
def test_without_constraints_the_domain_costs_what_the_grid_a_star_does(problem):
    grid, s, g = problem
    r = grid_domain(grid).find_cells(s, g, None)
    ref = find_path(grid, s, g)
    assert r.found == ref.found
    if ref.found:
        assert r.cost == pytest.approx(ref.cost, rel=1e-12, abs=1e-12)
        assert grid.path_cost(r.path) == pytest.approx(r.cost, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(seeded_grid_problems(rules=RULES, terrain=TERRAIN, max_side=14), st.integers(0, 2**31),
       st.sampled_from(["astar", "dijkstra"]))
def test_constrained_cost_equals_scipy_dijkstra_on_the_same_graph(problem, seed, method):
    grid, s, g = problem
    rng = np.random.default_rng(seed)
    h, w = grid.shape
    field = random_constraints(rng, (0, 0, w, h))
    d = grid_domain(grid)
    r = find_path(grid, s, g, constraints=field, method=method)
    u, v = s[1] * w + s[0], g[1] * w + g[0]
    expect = scipy_cost(d, d.costs(field), u, v)
    if np.isinf(field.multiplier(d.points[[u, v]])).any():     # an end in a hard region
        expect = np.inf
    if np.isinf(expect):
        assert not r.found
    else:
        assert r.found and r.cost == pytest.approx(expect, rel=1e-9, abs=1e-12)
        steps = np.searchsorted(d.edges[:, 0] * d.num_nodes + d.edges[:, 1],
                                r.nodes[:-1] * d.num_nodes + r.nodes[1:])
        assert d.costs(field)[steps].sum() == pytest.approx(r.cost, rel=1e-12)


def test_states_sit_at_cell_centres_and_edges_are_sorted_without_duplicates():
    grid = Grid(np.ones((3, 4)), origin=(10.0, -2.0), cell_size=0.5)
    d = GridConstraintDomain(grid)
    assert d.points[1 * 4 + 2].tolist() == [10.0 + 2.5 * 0.5, -2.0 + 1.5 * 0.5]
    key = d.edges[:, 0] * d.num_nodes + d.edges[:, 1]
    assert np.all(np.diff(key) > 0)
    csr = d.base_graph
    src = np.repeat(np.arange(csr.num_nodes), np.diff(csr.indptr))
    assert np.array_equal(np.stack([src, csr.indices], 1), d.edges)
    assert np.array_equal(csr.weights, d.base_costs)
    assert grid_domain(grid) is grid_domain(grid)


def test_a_world_point_joins_the_cell_holding_it():
    grid = Grid.from_ascii("...\n.#.\n...")
    d = grid_domain(grid)
    assert d.join((2.2, 0.7), None) == (2, pytest.approx(np.hypot(0.3, 0.2)))
    assert d.join((1.5, 1.5), None) == (-1, np.inf)            # a blocked cell
    assert d.join((-0.5, 0.5), None) == (-1, np.inf)           # off the grid
    r = d.find_path((0.1, 0.1), (2.9, 2.9))
    assert r.path[0].tolist() == [0.1, 0.1] and r.path[-1].tolist() == [2.9, 2.9]
    assert r.cost == pytest.approx(2 * np.hypot(0.4, 0.4) + 4.0)


def test_two_points_of_one_cell_are_joined_straight_and_start_equal_to_goal_costs_nothing():
    grid = Grid.from_ascii("...\n.#.\n...")
    d = grid_domain(grid)
    r = d.find_path((0.2, 0.3), (0.8, 0.3))
    assert r.cost == pytest.approx(0.6) and r.path.tolist() == [[0.2, 0.3], [0.8, 0.3]]
    assert r.nodes.tolist() == []
    same = d.find_path((2.3, 0.4), (2.3, 0.4), constraints=near((2.5, 0.5), -3))
    assert same.found and same.cost == 0.0 and same.path.tolist() == [[2.3, 0.4]]
    other = d.find_path((0.9, 0.5), (1.1, 0.5))          # neighbouring cells: through both
    assert other.nodes.tolist() == [0, 1] and other.cost == pytest.approx(0.4 + 1.0 + 0.4)


def test_a_hard_field_around_the_goal_leaves_no_path():
    grid = Grid(np.ones((5, 5)))
    hard = ConstraintSet([Constraint.hard(Disc((4.5, 4.5), 1.2))])
    r = find_path(grid, (0, 0), (4, 4), constraints=hard)
    assert not r.found and r.cost == np.inf and len(r.path) == 0


@pytest.mark.parametrize("options", [
    {"method": "jps"}, {"method": "bidirectional"}, {"method": "weighted_astar"},
    {"weight": 2.0}, {"heuristic": "euclidean"}, {"record": True}, {"agent_size": 2},
    {"differential": object()}, {"bounds": object()}])
def test_options_that_do_not_take_constraints_are_refused(options):
    grid = Grid(np.ones((4, 4)))
    with pytest.raises(InvalidQueryError, match="constraints"):
        find_path(grid, (0, 0), (3, 3), constraints=near((0, 0), -2), **options)


@pytest.mark.parametrize("start, goal, t", [((9, 0), (1, 1), 0.0), ((1, 1), (1, 1.5), 0.0),
                                            ((0, 0), (1, 1), float("nan"))])
def test_bad_queries_are_refused(start, goal, t):
    grid = Grid.from_ascii("...\n.#.\n...")
    with pytest.raises(InvalidQueryError):
        find_path(grid, start, goal, constraints=near((0, 0), -2), t=t)


def _oracle_weights(c, w, p):
    """``W_c`` at points ``p`` from the annotation's geometry alone: exact distances to a
    disc, shapely's to a region (In within 1e-9 of it)."""
    a = c.annotation
    if isinstance(a, Disc):
        dist = np.maximum(np.hypot(*(p - a.centre).T) - a.radius, 0.0)
    else:
        shapely = pytest.importorskip("shapely")
        dist = shapely.distance(shapely.Polygon(a.vertices), shapely.points(p))
    if c.near:
        return w * np.maximum(0.0, 1.0 - dist / abs(w))
    return np.where(dist <= 1e-9, w, 0.0)       # closed: a sample on the border is in


def oracle_multiplier(field, p, t=0.0):
    """``max(1, 1.1 ** (W0 - Σ W_c))`` at points ``p`` (``(n, 2)``), W0 the sum of the
    positive weights; hard constraints are left to :func:`oracle_costs`."""
    soft = [(c, c.weight_at(t)) for c in field if not c.is_hard]
    w0 = sum(w for _, w in soft if w > 0)
    total = sum((_oracle_weights(c, w, p) for c, w in soft), np.zeros(len(p)))
    return np.maximum(1.0, 1.1 ** (w0 - total))


def oracle_costs(field, a, b, base, t=0.0):
    """The cost of transitions ``a[i]`` → ``b[i]`` with base costs ``base``: the mean of
    :func:`oracle_multiplier` at 1/8, 3/8, 5/8, 7/8 times the base, ``inf`` where the
    segment meets a hard disc (exact) or region (shapely)."""
    if not len(a):
        return np.empty(0)
    m = np.mean([oracle_multiplier(field, a + f * (b - a), t) for f in (1 / 8, 3 / 8, 5 / 8,
                                                                       7 / 8)], axis=0)
    out = m * base
    for c in field:
        if not c.is_hard:
            continue
        ann = c.annotation
        if isinstance(ann, Disc):
            d = b - a
            along = np.clip(np.einsum("ij,ij->i", ann.centre - a, d)
                            / np.maximum(np.einsum("ij,ij->i", d, d), 1e-300), 0, 1)
            near_point = a + along[:, None] * d
            out[np.hypot(*(near_point - ann.centre).T) <= ann.radius] = np.inf
        else:
            shapely = pytest.importorskip("shapely")
            lines = shapely.linestrings(np.stack([a, b], 1))
            out[shapely.intersects(shapely.Polygon(ann.vertices), lines)] = np.inf
    return out


def oracle_legs(field, a, b, piece, leg_cost=1.0):
    """Legs ``a[i]`` → ``b[i]`` costed in equal pieces of at most ``piece`` world units."""
    out = np.empty(len(a))
    for i in range(len(a)):
        length = float(np.hypot(*(b[i] - a[i])))
        k = max(1, int(np.ceil(length / piece)))
        f = np.arange(k + 1) / k
        pts = a[i] + f[:, None] * (b[i] - a[i])
        out[i] = oracle_costs(field, pts[:-1], pts[1:], np.full(k, length / k * leg_cost)).sum()
    return out


def oracle_joins(d, p, field, free, count):
    """The ``count`` nearest states of ``d`` (brute force, ties to the lowest id) among
    ``states`` whose leg from ``p`` is ``free`` and finite, with the legs' costs."""
    states = d._join_states()
    dist = np.hypot(*(d.points[states] - p).T)
    order = states[np.lexsort((states, dist))]
    a = np.repeat(p[None], len(order), axis=0)
    ok = free(a, d.points[order])
    legs = np.full(len(order), np.inf)
    legs[ok] = oracle_legs(field, a[ok], d.points[order[ok]], d._leg_piece, d.leg_cost)
    good = np.isfinite(legs)
    return order[good][:count], legs[good][:count]


def oracle_route(d, costs, s, g, field, free):
    """The cost of the cheapest route from point ``s`` to ``g``: scipy's Dijkstra over the
    domain's transitions at ``costs``, a start node joined to the start's nearest states,
    the goal's nearest states joined to a goal node, and the straight leg when ``free``."""
    n = d.num_nodes
    starts, s_legs = oracle_joins(d, s, field, free, d.join_count)
    goals, g_legs = oracle_joins(d, g, field, free, d.join_count)
    ok = np.isfinite(costs)
    src = [d.edges[ok, 0], np.full(len(starts), n), goals]
    dst = [d.edges[ok, 1], starts, np.full(len(goals), n + 1)]
    w = [costs[ok], s_legs, g_legs]
    best = np.inf
    if free(s[None], g[None])[0]:
        best = float(oracle_legs(field, s[None], g[None], d._leg_piece, d.leg_cost)[0])
    m = csr_array((np.concatenate(w), (np.concatenate(src), np.concatenate(dst))),
                  shape=(n + 2,) * 2)
    return min(best, float(dijkstra(m, indices=n)[n + 1]))


def hard_polygons(constraints):
    """The shapely polygons of a set's hard discs and regions."""
    shapely = pytest.importorskip("shapely")
    out = []
    for c in constraints:
        if c.is_hard:
            a = c.annotation
            out.append(shapely.Point(a.centre).buffer(a.radius, quad_segs=64)
                       if isinstance(a, Disc) else shapely.Polygon(a.vertices))
    return out


def hard_across(line, seed, rng, box, radius, triangle):
    """A hard disc of ``radius`` (odd ``seed``) or the ``triangle`` of offsets (even) on the
    middle of shapely ``line``, with soft random constraints in ``box`` drawn from ``rng``:
    the set and its hard polygons, the first checked to cross ``line``."""
    middle = np.asarray(line.interpolate(0.5, normalized=True).coords[0])
    if seed % 2:
        hard = Constraint.hard(Disc(middle, radius))
    else:
        hard = Constraint.hard(Region(middle + triangle))
    field = ConstraintSet([hard, *random_constraints(rng, box, hard=False)])
    polygons = hard_polygons(field)
    assert line.intersects(polygons[0])
    return field, polygons


def assert_empty_set_costs_the_plain_search(find, start, goal):
    """``find(start, goal, constraints=ConstraintSet([]))`` (a family's ``find_path``) finds
    a route exactly where ``find(start, goal)`` does, at its cost; both results returned."""
    r = find(start, goal, constraints=ConstraintSet([]))
    plain = find(start, goal)
    assert r.found == plain.found
    if plain.found:
        assert r.cost == pytest.approx(plain.cost, rel=1e-12)
    return r, plain


def assert_outside(path, polygons):
    """No segment of ``path`` ((m, 2) world points) meets a polygon's interior (a margin of
    1e-9 for the buffered discs' chords)."""
    shapely = pytest.importorskip("shapely")
    line = shapely.LineString(path) if len(path) > 1 else shapely.Point(path[0])
    for poly in polygons:
        assert not line.intersects(poly.buffer(-1e-9))


@settings(max_examples=40, deadline=None)
@given(seeded_grid_problems(rules=RULES, terrain=TERRAIN, max_side=14), st.integers(0, 2**31))
def test_paths_never_enter_a_hard_region(problem, seed):
    grid, s, g = problem
    h, w = grid.shape
    field = random_constraints(np.random.default_rng(seed), (0, 0, w, h))
    r = find_path(grid, s, g, constraints=field)
    if r.found:
        assert_outside(grid_domain(grid).points[r.nodes], hard_polygons(field))


def test_a_repeller_on_the_straight_route_bends_it_and_an_attractor_pulls_it():
    grid = Grid(np.ones((9, 15)))
    straight = find_path(grid, (0, 4), (14, 4), constraints=ConstraintSet([]))
    assert straight.cost == 14.0 and np.all(straight.path[:, 1] == 4)
    away = find_path(grid, (0, 4), (14, 4),
                     constraints=ConstraintSet([Constraint(Disc((7.5, 4.5), 1.5), -5)]))
    assert away.cost > 14.0 and not np.any(np.all(away.path == (7, 4), axis=1))
    lane = Region([(-1, 0.5), (16, 0.5), (16, 2.6), (-1, 2.6)])
    towards = find_path(grid, (0, 4), (14, 4), constraints=ConstraintSet([Constraint(lane, 5)]))
    assert np.count_nonzero(towards.path[:, 1] <= 2) > 7


def test_a_time_varying_weight_changes_the_route_with_t():
    grid = Grid(np.ones((9, 15)))
    field = ConstraintSet([Constraint(Disc((7.5, 4.5), 1.0), lambda t: -5.0 * (t > 10),
                                      near=True)])
    day = find_path(grid, (0, 4), (14, 4), constraints=field, t=0.0)
    night = find_path(grid, (0, 4), (14, 4), constraints=field, t=20.0)
    assert day.cost == 14.0 and night.cost > 14.0


def test_constraints_must_be_a_constraint_set():
    grid = Grid(np.ones((4, 4)))
    with pytest.raises(InvalidQueryError, match="ConstraintSet"):
        find_path(grid, (0, 0), (3, 3), constraints=[Constraint.hard(Disc((1, 1), 1))])


@pytest.mark.parametrize("seed", range(8))
def test_costs_sample_only_near_constraints_and_equal_sampling_every_transition(seed):
    rng = np.random.default_rng(seed)
    grid = Grid(np.ones((30, 40)))
    d = grid_domain(grid)
    field = ConstraintSet([Constraint(Disc(rng.uniform(0, 40, 2), rng.uniform(0.5, 3)),
                                      float(rng.uniform(-5, 5)), near=bool(rng.random() < 0.5))
                           for _ in range(3)] + [Constraint.hard(Disc(rng.uniform(0, 30, 2),
                                                                      1.5))])
    e = d.edges
    every = field.transition_costs(d.points[e[:, 0]], d.points[e[:, 1]], d.base_costs)
    assert np.allclose(d.costs(field), every, rtol=1e-14, atol=0)


@pytest.mark.parametrize("near", [False, True], ids=["in", "near"])
def test_finer_steps_cost_a_straight_route_its_path_integral(near):
    """The seed's subdivision invariance: a straight route costs the integral of the
    multiplier along it, to within the Riemann error of its steps, which shrinks as the
    steps do (a grid's step costs are in cells: times ``cell_size`` in world units)."""
    band = Region([(6.3, -100), (11.7, -100), (11.7, 100), (6.3, 100)])
    field = ConstraintSet([Constraint(band, -4.0, near=near)])
    errors = []
    for k in (1, 2, 4, 8):
        grid = Grid(np.ones((1, 20 * k)), cell_size=1.0 / k)
        r = find_path(grid, (0, 0), (20 * k - 1, 0), constraints=field)
        x = np.linspace(0.5 / k, 20 - 0.5 / k, 20_001)
        m = field.multiplier(np.stack([x, np.zeros_like(x)], 1))
        exact = float(((m[1:] + m[:-1]) / 2 * np.diff(x)).sum())
        errors.append(abs(r.cost / k - exact))
    assert errors[0] <= 2 * 0.25 * (1.1 ** 4 - 1) + 1e-3          # two boundary steps at most
    assert errors[-1] < errors[0] / 2


def test_a_query_costs_only_the_transitions_near_the_constraints_and_reuses_them(monkeypatch):
    """On a 60 × 60 grid (about 28,000 transitions) with one Near disc, a query samples the
    field on the transitions near it (under 1,000) and the legs; another query with the same
    set and time samples none but its legs; a new time samples them again."""
    grid = Grid(np.ones((60, 60)))
    d = GridConstraintDomain(grid)
    field = ConstraintSet([Constraint(Disc((30.5, 30.5), 1.0), lambda t: -3.0, near=True)])
    sampled = []
    real = ConstraintSet.transition_costs

    def counting(self, a, b, base=None, *, t=0.0):
        sampled.append(len(np.atleast_2d(a)))
        return real(self, a, b, base, t=t)

    monkeypatch.setattr(ConstraintSet, "transition_costs", counting)
    first = d.find_path((25.5, 30.5), (36.5, 30.5), constraints=field)
    assert 0 < max(sampled) <= 1000 < d.num_edges // 20
    sampled.clear()
    again = d.find_path((25.5, 30.5), (36.5, 30.5), constraints=field)
    assert again.cost == first.cost and max(sampled) <= 2          # the two legs
    sampled.clear()
    d.find_path((25.5, 30.5), (36.5, 30.5), constraints=field, t=1.0)
    assert max(sampled) > 2
    every = real(field, d.points[d.edges[:, 0]], d.points[d.edges[:, 1]], d.base_costs)
    assert np.allclose(d.costs(field), every, rtol=1e-14, atol=0)
    full = GridConstraintDomain(grid).graph(field)      # the same routes without the cache
    ref = full.find_path(30 * 60 + 25, 30 * 60 + 36)
    assert first.cost == pytest.approx(ref.cost, rel=1e-12)


def test_threads_querying_one_domain_under_different_sets_get_their_own_routes():
    from concurrent.futures import ThreadPoolExecutor

    grid = Grid(np.ones((40, 40)))
    d = GridConstraintDomain(grid)
    rng = np.random.default_rng(3)
    sets = [random_constraints(rng, (0, 0, 40, 40)) for _ in range(4)]
    queries = [(sets[i % 4], tuple(rng.uniform(0, 40, 2)), tuple(rng.uniform(0, 40, 2)))
               for i in range(24)]
    ref = GridConstraintDomain(grid)
    alone = [ref.find_path(s, g, constraints=f).cost for f, s, g in queries]
    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(lambda q: d.find_path(q[1], q[2], constraints=q[0]).cost,
                                 queries))
    assert together == alone
