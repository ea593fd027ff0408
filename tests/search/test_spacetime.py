"""Space-time A* with a reservation table and timed doors: steps against a breadth-first
oracle, agents that never collide or swap, a door waited for or avoided as the steps say."""

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid
from wayfinding.grid.rules import DIRECTIONS
from wayfinding.search.spacetime import ReservationTable, door, space_time_astar


def bfs_steps(grid, a, b):
    w = grid.width + 2
    dist = {a: 0}
    todo = deque([a])
    while todo:
        x, y = todo.popleft()
        bits = int(grid.moves[(y + 1) * w + x + 1])
        for k, (dx, dy) in enumerate(DIRECTIONS):
            n = (x + dx, y + dy)
            if bits >> k & 1 and n not in dist:
                dist[n] = dist[(x, y)] + 1
                todo.append(n)
    return dist.get(b)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_alone_it_takes_the_fewest_steps(seed):
    rng = np.random.default_rng(seed)
    grid = Grid(rng.random((9, 11)) > 0.25)
    free = np.argwhere(grid.passable)[:, ::-1]
    a, b = (tuple(int(v) for v in free[i]) for i in rng.choice(len(free), 2, replace=False))
    r = space_time_astar(grid, a, b)
    steps = bfs_steps(grid, a, b)
    assert r.found == (steps is not None)
    if r.found:
        assert r.cost == steps and len(r.path) == steps + 1


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_agents_never_share_a_cell_or_swap(seed):
    rng = np.random.default_rng(seed)
    grid = Grid(rng.random((10, 10)) > 0.15)
    free = [tuple(int(v) for v in c) for c in np.argwhere(grid.passable)[:, ::-1]]
    picks = rng.choice(len(free), 8, replace=False)
    table = ReservationTable()
    paths = []
    for i in range(4):
        a, b = free[picks[2 * i]], free[picks[2 * i + 1]]
        if any(p[-1] == a or p[0] == a for p in paths):
            continue
        r = space_time_astar(grid, a, b, table)
        if r.found:
            table.reserve(r.path, agent=i)
            paths.append([tuple(c) for c in r.path.tolist()])
    horizon = max((len(p) for p in paths), default=0) + 2

    def at(p, t):
        return p[min(t, len(p) - 1)]
    for t in range(horizon):
        cells = [at(p, t) for p in paths]
        assert len(set(cells)) == len(cells)
        for i in range(len(paths)):
            for j in range(i + 1, len(paths)):
                assert not (at(paths[i], t) == at(paths[j], t + 1)
                            and at(paths[j], t) == at(paths[i], t + 1))


CORRIDOR = Grid.from_ascii("""
    .........
    .#######.
    .........""")


@pytest.mark.parametrize("opens,waits", [(5, True), (10, False)])
def test_a_door_is_waited_for_or_avoided(opens, waits):
    # The top row is 8 steps; the door at (4, 0) opens at step `opens`; the bottom way is 12.
    closed = door([(opens, 10**9)], [(4, 0)])
    r = space_time_astar(CORRIDOR, (0, 0), (8, 0), closed=closed)
    used_door = any(tuple(c) == (4, 0) for c in r.path.tolist())
    assert used_door == waits
    assert r.cost == (opens + 4 if waits else 12)
    for t, c in enumerate(r.path.tolist()):
        assert not closed(tuple(c), t)


@pytest.mark.parametrize("intervals", [
    [(0, 3), (6, 10**9)],        # open on arrival, shut while waiting there, open again
    [(0, 1), (4, 10**9)],
    [(3, 10**9)],                # shut on arrival: waits outside
    [(0, 10**9)],
    [(0, 8)],                    # shuts for good within the horizon: nowhere to stay
])
def test_a_door_on_the_goal_stays_open_while_the_agent_waits_there(intervals):
    grid = Grid(np.ones((1, 3), dtype=bool))
    horizon = 20
    closed = door(intervals, [(2, 0)])
    r = space_time_astar(grid, (0, 0), (2, 0), closed=closed, horizon=horizon)
    # the earliest arrival from step 2 on after which the goal is open up to the horizon
    ok = [s for s in range(2, horizon + 1)
          if not any(closed((2, 0), u) for u in range(s, horizon + 1))]
    assert r.found == bool(ok)
    if ok:
        assert r.cost == ok[0]
        assert tuple(r.path[-1]) == (2, 0) and not closed((2, 0), len(r.path) - 1)


def test_bad_input_and_no_path():
    grid = Grid.from_ascii("..#\n...")
    with pytest.raises(InvalidQueryError, match="blocked"):
        space_time_astar(grid, (0, 0), (2, 0))
    with pytest.raises(InvalidQueryError, match="Grid"):
        space_time_astar([[1]], (0, 0), (0, 0))
    with pytest.raises(InvalidQueryError, match="horizon"):
        space_time_astar(grid, (0, 0), (1, 1), horizon=-1)
    with pytest.raises(InvalidQueryError, match="empty"):
        ReservationTable().reserve([])
    table = ReservationTable()
    table.reserve([(2, 1)], agent=1)                 # someone parks on the goal
    assert not space_time_astar(grid, (0, 0), (2, 1), table).found


def test_reservations_take_integer_steps_and_cells():
    # A start_time of 1.5 claimed steps 1.5, 2.5, ... that no search step ever meets, so
    # the claim was silently void; a cell (0.7, 0) was read as (0, 0).
    grid = Grid.from_ascii("...")
    table = ReservationTable()
    for path, start_time in (([(1, 0)], 1.5), ([(0.7, 0)], 0), ([(1, 0), (1,)], 0),
                             ([(1, 0), ("a", 0)], 0), ([(1, 0)], -1), ([(1, 0)], True)):
        with pytest.raises(InvalidQueryError):
            table.reserve(path, start_time=start_time, park=False)
    assert not any(table.occupied((x, 0), t) for x in range(3) for t in range(4))
    table.reserve([(1, 0)], start_time=np.int64(1), park=False)
    assert space_time_astar(grid, (0, 0), (2, 0), table).cost == 3.0   # waits a step


def test_space_time_arguments_are_checked_by_name():
    grid = Grid.from_ascii("...")
    with pytest.raises(InvalidQueryError, match="ReservationTable"):
        space_time_astar(grid, (0, 0), (2, 0), table={(1, 0): 1})
    with pytest.raises(InvalidQueryError, match="callable"):
        space_time_astar(grid, (0, 0), (2, 0), closed={(1, 0)})
    for intervals in ([(1,)], [(0.5, 2)], [5]):
        with pytest.raises(InvalidQueryError, match="interval"):
            door(intervals, [(1, 0)])
    with pytest.raises(InvalidQueryError, match="cell"):
        door([(0, 2)], [(1.5, 0)])


def test_claims_on_the_goal_past_the_horizon_leave_the_path():
    # The goal must be free from the arrival up to the horizon: a claim at step 50 (or an
    # agent parking there) with the horizon at 10 left no path at all.
    grid = Grid.from_ascii("....")
    passing, parking = ReservationTable(), ReservationTable()
    passing.reserve([(3, 0)], start_time=50, park=False)
    parking.reserve([(2, 0), (3, 0)], start_time=9, park=True)
    assert space_time_astar(grid, (0, 0), (3, 0), passing, horizon=10).cost == 3.0
    assert space_time_astar(grid, (0, 0), (3, 0), parking, horizon=9).cost == 3.0
    assert not space_time_astar(grid, (0, 0), (3, 0), parking, horizon=10).found
    assert space_time_astar(grid, (0, 0), (3, 0), passing, horizon=60).cost == 51.0  # after it
