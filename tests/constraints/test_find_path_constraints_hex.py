"""find_path(constraints=) on a hex grid: the steps between tile centres (world units)
with their step costs as base costs under the multiplier field, exact against scipy on
the grid's own neighbours."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import dijkstra
from test_domain_dense_grid import (
    assert_empty_set_costs_the_plain_search,
    assert_outside,
    hard_across,
    oracle_costs,
    random_constraints,
)

from wayfinding import find_path
from wayfinding.constraints import Constraint, ConstraintSet, Disc
from wayfinding.errors import InvalidQueryError
from wayfinding.grid import HexGrid


def random_hex(seed):
    """A 9 × 11 hex grid with costs 1 to 4, a tenth of the tiles blocked, either layout,
    a random tile size and origin; and two passable end cells."""
    rng = np.random.default_rng(seed)
    costs = rng.uniform(1, 4, (9, 11))
    costs[rng.random(costs.shape) < 0.1] = np.inf
    grid = HexGrid(costs, layout=("pointy", "flat")[seed % 2], size=rng.uniform(0.5, 2),
                   origin=tuple(rng.uniform(-5, 5, 2)))
    free = np.argwhere(np.isfinite(costs))[:, ::-1]
    s, g = free[rng.choice(len(free), 2, replace=False)]
    return grid, rng, tuple(s.tolist()), tuple(g.tolist())


def box(grid):
    centres = grid.localize(np.argwhere(np.ones(grid.shape))[:, ::-1])
    return (*centres.min(axis=0), *centres.max(axis=0))


def oracle(grid, field, s, g, t=0.0):
    """scipy's Dijkstra over the grid's neighbours() steps between localised centres,
    costed by an independent multiplier; also each step's cost by cell pair."""
    h, w = grid.shape
    src, dst, base = [], [], []
    for r in range(h):
        for q in range(w):
            if np.isfinite(grid.costs[r, q]):
                for (nq, nr), c in grid.neighbours((q, r)):
                    src.append((q, r))
                    dst.append((nq, nr))
                    base.append(c)
    a, b = grid.localize(src), grid.localize(dst)
    costs = oracle_costs(field, a, b, np.array(base), t)
    ids = lambda cells: np.array([r * w + q for q, r in cells])  # noqa: E731
    ok = np.isfinite(costs)
    m = csr_array((costs[ok], (ids(src)[ok], ids(dst)[ok])), shape=(h * w,) * 2)
    steps = dict(zip(zip(src, dst), costs))
    return float(dijkstra(m, indices=s[1] * w + s[0])[g[1] * w + g[0]]), steps


@pytest.mark.parametrize("method", ["astar", "dijkstra"])
@pytest.mark.parametrize("seed", range(10))
def test_cost_equals_scipy_dijkstra_on_the_same_steps(seed, method):
    grid, rng, s, g = random_hex(seed)
    field = random_constraints(rng, box(grid))
    r = grid.find_path(s, g, method=method, constraints=field)
    expect, steps = oracle(grid, field, s, g)
    assert r.found == np.isfinite(expect)
    if r.found:
        assert r.cost == pytest.approx(expect, rel=1e-9)
        cells = [tuple(c) for c in r.path.tolist()]
        assert cells[0] == s and cells[-1] == g
        assert r.nodes.tolist() == [r * grid.shape[1] + q for q, r in cells]
        walked = sum(steps[(u, v)] for u, v in zip(cells[:-1], cells[1:]))
        assert walked == pytest.approx(r.cost, rel=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_routes_never_enter_a_hard_region(seed):
    """Checked with shapely on the centres the path passes: a hard disc or triangle on the
    plain route's middle is gone around (or there is no route)."""
    shapely = pytest.importorskip("shapely")
    grid = HexGrid(np.ones((12, 12)), layout=("pointy", "flat")[seed % 2], size=1.5)
    s, g = (0, 6), (11, 5)
    plain = grid.find_path(s, g)
    line = shapely.LineString(grid.localize(plain.path))
    field, polygons = hard_across(line, seed, np.random.default_rng(seed), box(grid), 3.0,
                                  [(-3, -2), (3, -2), (0, 3)])
    r = grid.find_path(s, g, constraints=field)
    assert r.found
    assert r.cost == pytest.approx(oracle(grid, field, s, g)[0], rel=1e-9)
    assert_outside(grid.localize(r.path), polygons)


@pytest.mark.parametrize("seed", range(4))
def test_an_empty_set_costs_what_the_hex_search_does(seed):
    grid, _, s, g = random_hex(seed)
    assert_empty_set_costs_the_plain_search(grid.find_path, s, g)


def test_a_repeller_bends_the_route_and_an_end_in_a_hard_region_has_none():
    grid = HexGrid(np.ones((7, 9)))
    s, g = (0, 3), (8, 3)
    centre = grid.localize([(4, 3)])[0]
    plain = grid.find_path(s, g)
    bent = grid.find_path(s, g, constraints=ConstraintSet(
        [Constraint(Disc(centre, 1.0), -20.0)]))
    assert (4, 3) in map(tuple, plain.path.tolist())
    assert (4, 3) not in map(tuple, bent.path.tolist())
    hard = ConstraintSet([Constraint.hard(Disc(grid.localize([g])[0], 0.3))])
    r = grid.find_path(s, g, constraints=hard)
    assert not r.found and r.cost == np.inf and r.path.shape == (0, 2)


def test_the_library_find_path_hands_constraints_to_the_hex_grid():
    grid, rng, s, g = random_hex(2)
    field = random_constraints(rng, box(grid))
    r = find_path(grid, s, g, constraints=field, t=0.5)
    ref = grid.find_path(s, g, constraints=field, t=0.5)
    assert r.cost == ref.cost and np.array_equal(r.path, ref.path)


@pytest.mark.parametrize("start, goal, options", [
    ((0, 0), (2, 0), {"constraints": "cover"}),
    ((0, 0), (2, 0), {"t": float("nan")}),
    ((0, 0), (2, 0), {"method": "jps"}),
    ((0, 0), (1, 1), {}),                      # blocked goal
    ((0, 0), (9, 0), {}),                      # out of the grid
])
def test_bad_queries_are_refused(start, goal, options):
    grid = HexGrid.from_ascii(". . .\n . # .")
    query = {"constraints": ConstraintSet([Constraint(Disc((0, 0), 1), 2.0)]), **options}
    with pytest.raises(InvalidQueryError):
        grid.find_path(start, goal, **query)
