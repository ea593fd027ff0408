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
from wayfinding.errors import InvalidQueryError
from wayfinding.grid.constrained import GridConstraintDomain, grid_domain


class Bumps:
    """A stand-in multiplier field for the domain tests: ``1 + bump`` at each sample, the
    mean of four samples times the base cost, and ``inf`` through a blocked disc."""

    def __init__(self, centres, radius, blocked=None):
        self.centres, self.radius, self.blocked = np.asarray(centres, float), radius, blocked

    def field(self, p):
        d = np.linalg.norm(p[:, None, :] - self.centres[None], axis=2)
        return 1.0 + np.clip(1.0 - d / self.radius, 0.0, None).sum(axis=1)

    def transition_costs(self, a, b, base=None, *, t=0.0):
        base = np.hypot(*(b - a).T) if base is None else base
        m = np.mean([self.field(a + f * (b - a)) for f in (1 / 8, 3 / 8, 5 / 8, 7 / 8)], 0)
        out = m * base
        if self.blocked is not None:
            c, r = np.asarray(self.blocked[0]), self.blocked[1]
            ab = b - a
            s = np.clip(((c - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-300), 0, 1)
            out[np.hypot(*(a + s[:, None] * ab - c).T) <= r] = np.inf
        return out


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
    field = Bumps(rng.uniform(0, [w, h], (3, 2)), rng.uniform(1, 5),
                  blocked=(rng.uniform(0, [w, h]), rng.uniform(0.3, 1.5)))
    d = grid_domain(grid)
    r = find_path(grid, s, g, constraints=field, method=method)
    u, v = s[1] * w + s[0], g[1] * w + g[0]
    expect = scipy_cost(d, d.costs(field), u, v)
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
    r = d.find_path((0.1, 0.1), (2.9, 2.9), None)
    assert r.path[0].tolist() == [0.1, 0.1] and r.path[-1].tolist() == [2.9, 2.9]
    assert r.cost == pytest.approx(2 * np.hypot(0.4, 0.4) + 4.0)


def test_a_hard_field_around_the_goal_leaves_no_path():
    grid = Grid(np.ones((5, 5)))
    r = find_path(grid, (0, 0), (4, 4), constraints=Bumps([(0, 0)], 1.0,
                                                          blocked=((4.5, 4.5), 1.2)))
    assert not r.found and r.cost == np.inf and len(r.path) == 0


@pytest.mark.parametrize("options", [
    {"method": "jps"}, {"method": "bidirectional"}, {"method": "weighted_astar"},
    {"weight": 2.0}, {"heuristic": "euclidean"}, {"record": True}, {"agent_size": 2},
    {"differential": object()}, {"bounds": object()}])
def test_options_that_do_not_take_constraints_are_refused(options):
    grid = Grid(np.ones((4, 4)))
    with pytest.raises(InvalidQueryError, match="constraints"):
        find_path(grid, (0, 0), (3, 3), constraints=Bumps([(0, 0)], 1.0), **options)


@pytest.mark.parametrize("start, goal, t", [((9, 0), (1, 1), 0.0), ((1, 1), (1, 1.5), 0.0),
                                            ((0, 0), (1, 1), float("nan"))])
def test_bad_queries_are_refused(start, goal, t):
    grid = Grid.from_ascii("...\n.#.\n...")
    with pytest.raises(InvalidQueryError):
        find_path(grid, start, goal, constraints=Bumps([(0, 0)], 1.0), t=t)
