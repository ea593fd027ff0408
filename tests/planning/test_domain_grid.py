"""Σ3, the grid domain: where an agent of a given radius fits (against a brute-force disc
and square test), obstacles at their current positions, the changes it hands to AD*, and
bad input."""

import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.planning.domain_grid import GridDomain
from wayfinding.search import ADStar, dijkstra

PICTURE = """
    ............
    ..#.........
    ..#...###...
    ..#.........
    ......#.....
    ............"""


def _fits(grid, radius, x, y, discs=()):
    """Brute force: the disc at the cell's centre meets no wall square, no obstacle disc
    and stays on the grid; the cell itself is free."""
    if not grid.passable[y, x]:
        return False
    cs = grid.cell_size
    cx, cy = grid.origin[0] + (x + 0.5) * cs, grid.origin[1] + (y + 0.5) * cs
    h, w = grid.shape
    for by in range(-3, h + 3):
        for bx in range(-3, w + 3):
            wall = not (0 <= bx < w and 0 <= by < h) or not grid.passable[by, bx]
            if not wall:
                continue
            x0, y0 = grid.origin[0] + bx * cs, grid.origin[1] + by * cs
            gap = math.hypot(max(x0 - cx, 0, cx - x0 - cs), max(y0 - cy, 0, cy - y0 - cs))
            if gap < radius:
                return False
    return all(math.hypot(cx - ox, cy - oy) >= r + radius for ox, oy, r in discs)


@pytest.mark.parametrize(("radius", "cell_size"), [(0.0, 1.0), (0.3, 1.0), (0.5, 1.0),
                                                   (0.75, 1.0), (1.3, 0.5), (0.9, 2.0)])
def test_free_cells_are_where_the_agent_disc_fits(radius, cell_size):
    grid = Grid.from_ascii(PICTURE, cell_size=cell_size, origin=(3.0, -2.0))
    d = GridDomain(grid, radius=radius)
    h, w = grid.shape
    want = np.array([[_fits(grid, radius, x, y) for x in range(w)] for y in range(h)])
    assert np.array_equal(d.static_free, want)


def test_obstacles_block_the_cells_their_discs_reach_and_report_the_changes():
    grid = Grid.from_ascii(PICTURE)
    d = GridDomain(grid, radius=0.4)
    discs = [(8.5, 4.2, 0.6), (1.0, 5.0, 0.3)]
    changes = d.set_obstacles(discs)
    h, w = grid.shape
    want = np.array([[_fits(grid, 0.4, x, y, discs) for x in range(w)] for y in range(h)])
    assert np.array_equal(d.free, want)
    assert changes == {(x, y): math.inf for y in range(h) for x in range(w)
                       if d.static_free[y, x] and not want[y, x]}
    back = d.set_obstacles(None)
    assert back == dict.fromkeys(changes, 1.0)
    assert np.array_equal(d.free, d.static_free)


@pytest.mark.parametrize("seed", range(6))
def test_random_obstacles_block_what_brute_force_says(seed):
    rng = np.random.default_rng(seed)
    cell_size = float(rng.choice([0.5, 1.0, 2.0]))
    grid = Grid.from_ascii(PICTURE, cell_size=cell_size, origin=(-3.0, 1.0))
    d = GridDomain(grid, radius=float(rng.uniform(0, 0.8)))
    w, h = 12 * cell_size, 6 * cell_size
    discs = np.column_stack([rng.uniform(-3.0 - w / 2, -3.0 + 1.5 * w, 12),
                             rng.uniform(1.0 - h / 2, 1.0 + 1.5 * h, 12),
                             rng.uniform(0, 1.5, 12)])
    discs[0, 2] = 2.2 * w                        # one disc far bigger than the rest,
    discs[0, :2] = (-3.0 - 2 * w, 1.0 - h)       # from far off the grid, over a corner
    d.set_obstacles(discs)
    want = np.array([[_fits(grid, d.radius, x, y, discs.tolist()) for x in range(12)]
                     for y in range(6)])
    assert np.array_equal(d.free, want)
    centres = d.positions([(x, y) for y in range(6) for x in range(12)])
    under = np.hypot(*(centres - discs[0, :2]).T) < discs[0, 2] + d.radius
    assert under.any() and not under.all()                 # the big disc covers a corner


def test_costs_are_euclidean_and_ad_star_repairs_to_the_exact_optimum():
    grid = Grid.from_ascii(PICTURE, cell_size=0.5)
    d = GridDomain(grid, radius=0.2)
    start, goal = (0, 0), (11, 5)
    assert dict(d.successors((0, 0))) == {(1, 0): 0.5, (0, 1): 0.5, (1, 1): 0.5 * math.sqrt(2)}
    planner = ADStar(d.current, start, goal, epsilon=1.0)
    assert math.isclose(planner.plan().cost, dijkstra(d, start, goal).cost)
    planner.update_costs(d.set_obstacles([(4.0, 1.5, 0.5), (5.0, 0.5, 0.5)]))
    after = planner.plan()
    assert math.isclose(after.cost, dijkstra(d, start, goal).cost)
    assert all(d.free[y, x] for x, y in after.path.tolist())
    for s in [(0, 0), (5, 3), (11, 0)]:
        assert d.heuristic(s, goal) <= dijkstra(d, s, goal).cost + 1e-12


def test_states_and_positions_are_cell_centres():
    grid = Grid.from_ascii(PICTURE, cell_size=2.0, origin=(10.0, 20.0))
    d = GridDomain(grid, radius=0.5)
    assert d.state((11.9, 20.1)) == (0, 0)
    assert d.position((3, 2)).tolist() == [17.0, 25.0]
    with pytest.raises(InvalidQueryError, match="off the grid"):
        d.state((9.0, 21.0))
    with pytest.raises(InvalidQueryError, match="does not fit"):
        d.state((15.0, 23.0))                        # cell (2, 1): a wall


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"radius": -1.0}, "radius"), ({"radius": float("nan")}, "radius"),
    ({"obstacles": [(1, 2)]}, "obstacles"), ({"obstacles": [(1, 2, -1)]}, "obstacles"),
    ({"obstacles": "x"}, "obstacles"), ({"obstacles": [(np.inf, 2, 1)]}, "obstacles")])
def test_bad_grid_domains_are_refused(kwargs, match):
    with pytest.raises(InvalidQueryError, match=match):
        GridDomain(Grid.from_ascii(PICTURE), **kwargs)
    with pytest.raises(InvalidQueryError):
        GridDomain(np.ones((3, 3)))
