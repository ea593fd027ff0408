"""Flow fields: on every Moving AI dev map, descent from every reachable cell goes strictly
down by legal steps to the goal (no dead ends, no loops) for Dijkstra and fast-marching
fields; several goals split the map between them; sampling, tracing, storage; bad input."""

from __future__ import annotations

import numpy as np
import pytest
from movingai_data import all_names, generated_grid, load

from wayfinding import Grid, InvalidQueryError
from wayfinding.fields import GOAL, NONE, FlowField, dijkstra_field, eikonal_field
from wayfinding.grid.rules import DIRECTIONS

MAPS = all_names()
STEPS = np.array(DIRECTIONS)


def check_descent(flow, goals):
    """Every reachable cell steps, by a legal move, to a strictly lower cell, and ends at
    one of ``goals``; walls and unreachable cells have no code; goals are the only sinks."""
    grid, t, codes = flow.grid, flow.field, flow.codes
    h, w = grid.shape
    reach = np.isfinite(t)
    assert ((codes == NONE) == ~reach).all()
    sinks = {(int(x), int(y)) for y, x in np.argwhere(codes == GOAL)}
    assert sinks == set(goals)
    ys, xs = np.nonzero(codes < GOAL)
    d = codes[ys, xs]
    moves = grid.moves.reshape(h + 2, w + 2)[ys + 1, xs + 1]
    assert ((moves >> d) & 1 == 1).all()                      # legal steps only
    nx, ny = xs + STEPS[d, 0], ys + STEPS[d, 1]
    assert (t[ny, nx] < t[ys, xs]).all()                      # strictly down: no loops
    dest = flow.destinations()
    goal_ids = {y * w + x for x, y in goals}
    assert set(np.unique(dest[reach]).tolist()) <= goal_ids   # ...and ends at a goal
    assert (dest[~reach] == -1).all()


@pytest.mark.parametrize("name", MAPS)
def test_descent_reaches_the_goal_on_every_dev_map(name):
    grid, scen = load(name)
    goal = tuple(int(v) for v in scen.problems[len(scen.problems) // 2].goal)
    for field in (dijkstra_field(grid, [goal]), eikonal_field(grid, [goal], order=1),
                  eikonal_field(grid, [goal], order=2),
                  eikonal_field(grid, [goal], order=2, los=True)):
        check_descent(FlowField(grid, field), [goal])


def test_several_goals_split_the_map_by_distance():
    grid = generated_grid("caves")
    free = np.argwhere(grid.passable)
    rng = np.random.default_rng(4)
    goals = [(int(free[i][1]), int(free[i][0])) for i in rng.choice(len(free), 4, False)]
    flow = FlowField.build(grid, goals, method="dijkstra")
    check_descent(flow, goals)
    dest = flow.destinations()
    own = np.stack([dijkstra_field(grid, [g]) for g in goals])
    np.testing.assert_allclose(flow.field, own.min(axis=0))       # the nearest goal's cost
    reach = np.isfinite(flow.field)
    index = {g[1] * grid.width + g[0]: k for k, g in enumerate(goals)}
    reached = np.vectorize(lambda d: index.get(int(d), -1))(dest[reach])
    ys, xs = np.nonzero(reach)
    cost_there = own[reached, ys, xs]
    # Each cell flows to its nearest goal, but for cells on the border between two goals'
    # regions, which may slip to the other one (a few steps longer).
    slipped = cost_there > flow.field[reach] + 1e-9
    assert slipped.mean() < 0.01
    assert (cost_there - flow.field[reach]).max() <= 3.0


def test_codes_descend_and_store_one_byte_per_cell():
    grid = Grid.from_ascii("""
        ........
        .######.
        ........""")
    flow = FlowField.build(grid, [(0, 2)])
    assert flow.codes.dtype == np.uint8 and flow.nbytes == grid.width * grid.height
    path = flow.descend((7, 0))
    assert path[0].tolist() == [7, 0] and path[-1].tolist() == [0, 2]
    assert flow.step((0, 2)) is None and flow.step((1, 1)) is None
    assert flow.descend((1, 1)).shape == (0, 2)
    assert flow.step((1, 0)) == (0, 0)


def test_vectors_sampling_and_tracing():
    grid = Grid(np.ones((21, 21), dtype=bool))
    flow = FlowField.build(grid, [(10, 10)])
    v = flow.vectors
    # In the open the direction points at the goal (within the scheme's error).
    ys, xs = np.mgrid[0:21, 0:21]
    to_goal = np.stack([10 - xs, 10 - ys], axis=-1).astype(float)
    norm = np.hypot(to_goal[..., 0], to_goal[..., 1])
    far = norm > 4
    cos = (v[far] * to_goal[far]).sum(axis=1) / norm[far]
    assert cos.min() > 0.97
    assert not v[10, 10].any()
    # At a cell centre, sampling gives the cell's own direction.
    np.testing.assert_allclose(flow.sample([(3.0, 17.0)])[0], v[17, 3])
    # Between cells, a blend of the four around; unit length.
    s = flow.sample([(3.5, 17.25), (0.0, 0.0)])
    np.testing.assert_allclose(np.hypot(s[:, 0], s[:, 1]), 1.0)
    assert flow.sample_field([(10.0, 10.0)])[0] == 0.0
    mid = flow.sample_field([(2.5, 10.0)])[0]
    assert flow.field[10, 2] > mid > flow.field[10, 3]
    track = flow.trace((0.3, 19.6), step=0.25)
    assert np.hypot(*(track[-1] - (10, 10))) <= 0.75
    assert (np.diff(flow.sample_field(track)) < 1e-9).all()   # always downhill


def test_cells_that_see_the_goal_point_straight_at_it():
    grid = generated_grid("rooms")
    free = np.argwhere(grid.passable)
    goal = (int(free[len(free) // 2][1]), int(free[len(free) // 2][0]))
    flow = FlowField.build(grid, [goal], los=True)
    check_descent(flow, [goal])
    ys, xs = np.nonzero(flow.visible & (flow.codes < GOAL))
    assert len(ys) > 100
    to_goal = np.stack([goal[0] - xs, goal[1] - ys], axis=1)
    to_goal = to_goal / np.hypot(to_goal[:, 0], to_goal[:, 1])[:, None]
    np.testing.assert_allclose(flow.vectors[ys, xs], to_goal)
    with pytest.raises(InvalidQueryError, match="eikonal"):
        FlowField.build(grid, [goal], method="dijkstra", los=True)


def test_walls_are_never_entered_when_tracing_around_them():
    grid = Grid.from_ascii("""
        ..........
        ..........
        ...####...
        ...####...
        ..........""")
    flow = FlowField.build(grid, [(5, 4)])
    track = flow.trace((5.0, 0.0), step=0.2)
    cells = np.round(track).astype(int)
    assert grid.passable[cells[:, 1], cells[:, 0]].all()
    assert tuple(cells[-1]) == (5, 4)


def test_bad_input():
    grid = Grid.from_ascii("..#")
    with pytest.raises(InvalidQueryError, match="Grid"):
        FlowField(np.ones((1, 3)), np.zeros((1, 3)))
    with pytest.raises(InvalidQueryError, match="shape"):
        FlowField(grid, np.zeros((2, 3)))
    with pytest.raises(InvalidQueryError, match="NaN"):
        FlowField(grid, np.array([[0.0, np.nan, 1.0]]))
    with pytest.raises(InvalidQueryError, match="method"):
        FlowField.build(grid, [(0, 0)], method="bfs")
    with pytest.raises(InvalidQueryError, match="must be numbers"):
        FlowField(grid, [["a", 1, 2]])
    for world in (np.ones((1, 3)), None):
        with pytest.raises(InvalidQueryError, match="expected a Grid"):
            FlowField.build(world, [(0, 0)])
    with pytest.raises(InvalidQueryError, match="sequence of cells"):
        FlowField.build(grid, None)
    flow = FlowField.build(grid, [(0, 0)])
    with pytest.raises(InvalidQueryError, match="points"):
        flow.sample([(0.0, np.nan)])
    with pytest.raises(InvalidQueryError, match="step"):
        flow.trace((1.0, 0.0), step=0)
    with pytest.raises(InvalidQueryError, match="outside"):
        flow.descend((5, 0))


def test_sample_world_uses_the_grids_origin_and_cell_size():
    grid = Grid(np.ones((6, 6), dtype=bool), origin=(10.0, -4.0), cell_size=2.0)
    flow = FlowField.build(grid, [(5, 2)])
    cells = np.array([(0.0, 2.0), (1.5, 2.5), (3.2, 4.7)])
    world = np.array([10.0, -4.0]) + (cells + 0.5) * 2.0
    np.testing.assert_allclose(flow.sample_world(world), flow.sample(cells), atol=1e-12)


@pytest.mark.parametrize("method", ["eikonal", "dijkstra"])
def test_cells_linked_corner_to_corner_flow_to_the_goal(method):
    # (2, 2) joins the rest only across a corner: fast marching spreads across sides.
    grid = Grid.from_ascii("..#\n..#\n##.", diagonal="always")
    flow = FlowField.build(grid, [(0, 0)], method=method)
    assert flow.descend((2, 2)).tolist() == [[2, 2], [1, 1], [0, 0]]
    assert flow.field[2, 2] == pytest.approx(flow.field[1, 1] + 2**0.5)
    assert flow.destinations()[2, 2] == 0
    # Beyond the limit it stays unreached.
    assert flow.descend((2, 2)).size and FlowField.build(
        grid, [(0, 0)], method=method, limit=2.0).codes[2, 2] == NONE


@pytest.mark.parametrize("method", ["eikonal", "dijkstra"])
def test_steps_below_the_fields_rounding_still_lead_to_the_goal(method):
    costs = np.ones((4, 8))
    costs[:, 4:] = 1e-17         # a step there adds nothing to a field of about 4
    grid = Grid(costs)
    flow = FlowField.build(grid, [(0, 1)], method=method)
    assert np.argwhere(flow.codes == GOAL).tolist() == [[1, 0]]
    assert (flow.destinations() == 8).all()
    for y in range(4):
        for x in range(8):
            path = flow.descend((x, y))
            assert path[-1].tolist() == [0, 1]
            assert len(np.unique(path, axis=0)) == len(path)


@pytest.mark.parametrize("bad", [[("a", "b")], [(True, 0.0)], [(1.0, 2.0, 3.0)], None,
                                 [(np.inf, 0.0)]])
def test_sampling_refuses_points_that_are_not_finite_pairs(bad):
    flow = FlowField.build(Grid(np.ones((4, 5), dtype=bool)), [(4, 3)])
    for sample in (flow.sample, flow.sample_field, flow.sample_world, flow.trace):
        with pytest.raises(InvalidQueryError, match="points"):
            sample(bad)


@pytest.mark.filterwarnings("error")
def test_points_far_off_the_grid_sample_nothing():
    flow = FlowField.build(Grid(np.ones((4, 5), dtype=bool)), [(4, 3)])
    far = [(1e300, 1.0), (-1e300, -1e300), (2.0, 1e19)]
    assert not flow.sample(far).any()
    assert np.isinf(flow.sample_field(far)).all()


def test_a_given_fields_pit_away_from_the_goals_is_no_goal():
    grid = Grid(np.ones((3, 7), dtype=bool))
    field = dijkstra_field(grid, [(0, 1)])
    field[1, 5] = 0.5                     # lower than its neighbours, above the goal's 0
    flow = FlowField(grid, field)
    assert np.argwhere(flow.codes == GOAL).tolist() == [[1, 0]]
    assert flow.codes[1, 5] == NONE and flow.step((5, 1)) is None
    assert flow.step((6, 1)) == (5, 1)    # the steepest way down still leads into it
    assert flow.descend((6, 1)).shape == (0, 2) and flow.descend((5, 1)).shape == (0, 2)
    dest = flow.destinations()
    assert (dest[:, :4] == 7).all() and (dest[:, 4:] == -1).all()
    assert flow.descend((2, 0)).tolist() == [[2, 0], [1, 1], [0, 1]]


def test_given_goals_decide_which_minima_end_the_flow():
    grid = Grid(np.ones((1, 6), dtype=bool))
    field = np.array([[3.0, 2.0, 3.0, 4.0, 1.0, 2.0]])
    assert np.argwhere(FlowField(grid, field).codes == GOAL).tolist() == [[0, 4]]
    flow = FlowField(grid, field, goals=[(1, 0), (4, 0)])
    assert np.argwhere(flow.codes == GOAL).tolist() == [[0, 1], [0, 4]]
    assert flow.destinations().tolist() == [[1, 1, 1, 4, 4, 4]]
    # A level stretch points along itself to a way down that leads to a goal (not into
    # the pit at x = 4, 5); one without such a way is a pit.
    level = FlowField(grid, np.array([[0.0, 2.0, 2.0, 2.0, 1.0, 1.0]]), goals=[(0, 0)])
    assert (level.codes[0, 4:] == NONE).all() and level.step((3, 0)) == (4, 0)
    assert level.descend((2, 0)).tolist() == [[2, 0], [1, 0], [0, 0]]
    assert level.descend((3, 0)).shape == (0, 2)
    assert level.destinations().tolist() == [[0, 0, 0, -1, -1, -1]]


@pytest.mark.parametrize("seed", range(4))
def test_random_pits_in_a_given_field_end_no_descent_at_a_goal(seed):
    grid = generated_grid("caves")
    rng = np.random.default_rng(seed)
    free = np.argwhere(grid.passable)
    goal = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
    field = dijkstra_field(grid, [goal]) + rng.random(grid.shape) * 3.0
    field[goal[1], goal[0]] = 0.0
    flow = FlowField(grid, field)
    assert np.argwhere(flow.codes == GOAL).tolist() == [[goal[1], goal[0]]]
    reach = np.isfinite(flow.field)
    pits = reach & (flow.codes == NONE)
    assert pits.any()
    ys, xs = np.nonzero(flow.codes < GOAL)
    d = flow.codes[ys, xs]
    assert (flow.field[ys + STEPS[d, 1], xs + STEPS[d, 0]] < flow.field[ys, xs]).all()
    dest = flow.destinations()
    w = grid.width
    for y, x in np.argwhere(reach)[rng.choice(int(reach.sum()), 200, replace=False)]:
        path = flow.descend((int(x), int(y)))
        # Walk the codes by hand: the walk ends at the goal or at a pit.
        cx, cy = int(x), int(y)
        while flow.codes[cy, cx] < GOAL:
            dx, dy = DIRECTIONS[flow.codes[cy, cx]]
            cx, cy = cx + dx, cy + dy
        if (cx, cy) == goal:
            assert path[-1].tolist() == list(goal) and dest[y, x] == goal[1] * w + goal[0]
        else:
            assert pits[cy, cx] and path.shape == (0, 2) and dest[y, x] == -1


def test_given_fields_and_goals_are_checked():
    grid = Grid.from_ascii("..#")
    with pytest.raises(InvalidQueryError, match="-inf"):
        FlowField(grid, np.array([[0.0, -np.inf, 1.0]]))
    with pytest.raises(InvalidQueryError, match="goal"):
        FlowField(grid, np.zeros((1, 3)), goals=[(2, 0)])
    with pytest.raises(InvalidQueryError, match="goal"):
        FlowField(grid, np.array([[0.0, np.inf, 1.0]]), goals=[(1, 0)])
    assert (FlowField(grid, np.full((1, 3), np.inf)).codes == NONE).all()


@pytest.mark.filterwarnings("error")
def test_a_field_whose_values_span_beyond_the_float_range_is_refused():
    # its differences overflowed: NaN vectors and samples that said "no direction"
    grid = Grid(np.ones((3, 3), dtype=bool))
    wide = np.array([[1e308, -1e308, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, -1e308]])
    with pytest.raises(InvalidQueryError, match="span"):
        FlowField(grid, wide)
    flow = FlowField(grid, wide / 2)              # just within: finite unit directions
    assert np.isfinite(flow.vectors).all()
    assert np.allclose(np.hypot(*flow.vectors[flow.codes < GOAL].T), 1.0)
