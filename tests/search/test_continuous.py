"""Continuous-time pathfinding (safe-interval A*): the closed-form unsafe times against a
pointwise oracle, a door waited for or avoided as its times say, random doors against a
time-expanded breadth-first oracle, moving obstacles never overlapped and never beaten by a
sampled time-expanded search, an analytic crossing, graphs with edge doors, bad input."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wayfinding import CSRGraph, Grid, InvalidQueryError
from wayfinding.search import ContinuousPlanner, MovingObstacle
from wayfinding.search.continuous import _edge_unsafe, _point_unsafe

HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]


def min_gap_sq(a, b, span, tau, t0, t1, q0, vel):
    """Oracle: the least squared distance between the agent crossing a -> b during
    [tau, tau + span] and the segment's centre over the times both exist (None if never),
    from the clamped minimiser of a quadratic in one variable."""
    lo, hi = max(tau, t0), min(tau + span, t1)
    if lo > hi:
        return None
    w = (b - a) / span
    # separation at time s: (a + (s - tau) w) - (q0 + (s - t0) vel) = p + s q
    p = a - tau * w - q0 + t0 * vel
    q = w - vel
    s = lo if q @ q == 0 else min(max(-(p @ q) / (q @ q), lo), hi)
    d = p + s * q
    return float(d @ d)


@settings(max_examples=300, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_unsafe_departures_match_a_pointwise_oracle(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a, b = rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2)
    span = float(rng.uniform(0.2, 3))
    t0 = float(rng.uniform(-2, 4))
    t1 = math.inf if rng.random() < 0.2 else t0 + float(rng.uniform(0.1, 5))
    q0 = rng.uniform(-3, 3, 2)
    vel = np.zeros(2) if rng.random() < 0.2 else rng.uniform(-2, 2, 2)
    if rng.random() < 0.1:
        vel = (b - a) / span  # moving alongside the agent
    r = float(rng.uniform(0.1, 2))
    window = _edge_unsafe(a, b, span, t0, t1, q0, vel, r)
    for tau in np.linspace(t0 - span - 2, (t1 if math.isfinite(t1) else t0 + 8) + 2, 301):
        gap = min_gap_sq(a, b, span, tau, t0, t1, q0, vel)
        if gap is None:
            assert window is None or not window[0] < tau < window[1] or \
                abs(tau - window[0]) < 1e-9 or abs(tau - window[1]) < 1e-9
            continue
        if abs(gap - r * r) < 1e-7:
            continue  # on the boundary
        inside = window is not None and window[0] < tau < window[1]
        assert inside == (gap < r * r), (tau, gap, r * r, window)


@settings(max_examples=200, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_unsafe_standing_times_match_a_pointwise_oracle(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a, q0 = rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2)
    vel = rng.uniform(-2, 2, 2)
    t0 = float(rng.uniform(-2, 2))
    t1 = t0 + float(rng.uniform(0.1, 5))
    r = float(rng.uniform(0.1, 2))
    span = _point_unsafe(a, t0, t1, q0, vel, r)
    for t in np.linspace(t0 - 1, t1 + 1, 201):
        d = q0 + (t - t0) * vel - a
        if not t0 <= t <= t1 or abs(d @ d - r * r) < 1e-7:
            continue
        assert (span is not None and span[0] < t < span[1]) == (d @ d < r * r)


CORRIDOR = Grid.from_ascii("""
    .........
    .#######.
    .........""", diagonal="never")


@pytest.mark.parametrize("opens,waits", [(5.0, True), (10.0, False), (6.5, True)])
def test_a_door_is_waited_for_or_avoided(opens, waits):
    # The top row takes 8 s; the door at (4, 0) is shut until `opens`; the bottom way, 12 s.
    plan = ContinuousPlanner(CORRIDOR, doors={(4, 0): [(0.0, opens)]}).plan((0, 0), (8, 0))
    used_door = any(tuple(c) == (4, 0) for c in plan.path.tolist())
    assert used_door == waits
    assert plan.cost == pytest.approx(opens + 4 if waits else 12)
    at_door = plan.arrive[[tuple(c) == (4, 0) for c in plan.path.tolist()]]
    assert (at_door >= opens).all()


def test_an_edge_door_on_a_graph():
    # 0 -> 1 -> 3 costs 2 through a door on (1, 3); 0 -> 2 -> 3 costs 5.
    g = CSRGraph.from_edges(4, [0, 1, 0, 2], [1, 3, 2, 3], [1.0, 1.0, 2.5, 2.5],
                            directed=False, coords=[(0, 0), (1, 0), (0, 1), (1, 1)])
    for shut_until, expect in ((2.0, 3.0), (9.0, 5.0)):
        plan = ContinuousPlanner(g, doors={(1, 3): [(0.0, shut_until)]}).plan(0, 3)
        assert plan.cost == pytest.approx(expect)
        if expect == 3.0:  # left node 1 when the door opened
            assert plan.path.tolist() == [0, 1, 3] and plan.depart[1] == pytest.approx(2.0)
    # A door shut during [1, 2] on the edge the agent would be crossing then.
    plan = ContinuousPlanner(g, doors={(3, 1): [(1.5, 2.0)]}).plan(0, 3)
    assert plan.cost == pytest.approx(3.0)


def door_oracle(grid, doors, start, goal, park, horizon=60):
    """Earliest arrival with unit steps and integer times: breadth-first search over
    (cell, time).  Standing at a cell at time t is unsafe when t is inside a shut interval
    (c0, c1); waiting through (t, t + 1) when it meets one."""
    def unsafe_at(cell, t):
        return any(c0 < t < c1 for c0, c1 in doors.get(cell, []))

    def unsafe_wait(cell, t):
        return any(c0 < t + 1 and t < c1 and c0 < c1 for c0, c1 in doors.get(cell, []))

    def can_park(cell, t):
        return not any(c1 > t and c0 < c1 for c0, c1 in doors.get(cell, []))

    frontier = {start}
    for t in range(horizon):
        for c in frontier:
            if c == goal and (not park or can_park(c, t)):
                return t
        nxt = set()
        for c in frontier:
            if not unsafe_wait(c, t):
                nxt.add(c)
            for n, _ in grid.neighbours(c):
                if not unsafe_at(n, t + 1):
                    nxt.add(n)
        frontier = nxt
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=HEALTH)
@given(data=st.data())
def test_random_doors_match_a_time_expanded_oracle(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    w, h = int(rng.integers(2, 7)), int(rng.integers(1, 6))
    free = rng.random((h, w)) > 0.2
    grid = Grid(free, diagonal="never")
    cells = [(int(x), int(y)) for y, x in zip(*np.nonzero(free))]
    if not cells:
        return
    doors = {}
    for _ in range(int(rng.integers(0, 6))):
        c = cells[int(rng.integers(len(cells)))]
        c0 = int(rng.integers(-2, 10))
        doors.setdefault(c, []).append((c0, c0 + int(rng.integers(1, 8))))
    start, goal = cells[int(rng.integers(len(cells)))], cells[int(rng.integers(len(cells)))]
    park = bool(rng.integers(2))
    planner = ContinuousPlanner(grid, doors={c: [(float(a), float(b)) for a, b in v]
                                             for c, v in doors.items()})
    if any(c0 < 0 < c1 for c0, c1 in doors.get(start, [])):
        with pytest.raises(InvalidQueryError, match="not safe"):
            planner.plan(start, goal, park=park)
        return
    plan = planner.plan(start, goal, park=park)
    expect = door_oracle(grid, doors, start, goal, park)
    if expect is None:
        assert not plan.found
    else:
        assert plan.found and plan.cost == pytest.approx(expect, abs=1e-9)


def sampled_gap(plan, obstacles, radius, step=0.01, after=0.0):
    """Least clearance (distance minus radii) along a plan, sampled in time until ``after``
    seconds past the arrival."""
    end = plan.arrive[-1] + after + step
    worst = math.inf
    for t in np.arange(plan.arrive[0], end, step):
        p = plan.position(t)
        for ob in obstacles:
            q = ob.position(t)
            if q is not None:
                worst = min(worst, float(np.hypot(*(p - q))) - ob.radius - radius)
    return worst


def sampled_oracle(grid, obstacles, radius, start, goal, dt=0.5, horizon=40.0):
    """Earliest arrival over plans that leave cells only at multiples of dt (unit-cost
    steps, one per second), each wait and step checked by sampling with a safety margin."""
    margin, sub = 0.03, 50

    def safe(p0, p1, t0, t1):
        for s in np.linspace(0, 1, sub + 1):
            t = t0 + s * (t1 - t0)
            p = np.asarray(p0, float) + s * (np.asarray(p1, float) - np.asarray(p0, float))
            for ob in obstacles:
                q = ob.position(t)
                if q is not None and np.hypot(*(p - q)) < ob.radius + radius + margin:
                    return False
        return True

    k_per_step = int(round(1 / dt))
    heap = [(0, start)]
    seen = set()
    while heap:
        k, c = heapq.heappop(heap)
        if (c, k) in seen or k * dt > horizon:
            continue
        seen.add((c, k))
        if c == goal:
            return k * dt
        moves = [(c, 1)] + [(n, k_per_step) for n, _ in grid.neighbours(c)]
        for n, dk in moves:
            if (n, k + dk) not in seen and safe(c, n, k * dt, (k + dk) * dt):
                heapq.heappush(heap, (k + dk, n))
    return None


@pytest.mark.parametrize("seed", range(6))
def test_moving_obstacles_are_never_overlapped_nor_beaten(seed):
    rng = np.random.default_rng(seed)
    grid = Grid(rng.random((6, 7)) > 0.15, diagonal="never")
    cells = [(int(x), int(y)) for y, x in zip(*np.nonzero(grid.passable))]
    radius = 0.2
    obstacles = []
    for _ in range(3):
        pts = rng.uniform(0, 6, (3, 2))
        times = np.sort(rng.uniform(0, 12, 3))
        obstacles.append(MovingObstacle(pts, times, float(rng.uniform(0.2, 0.6))))
    planner = ContinuousPlanner(grid, radius=radius, obstacles=obstacles)
    tried = 0
    for _ in range(5):
        start, goal = cells[int(rng.integers(len(cells)))], cells[int(rng.integers(len(cells)))]
        if any(ob.position(0.0) is not None
               and np.hypot(*(ob.position(0.0) - start)) < ob.radius + radius
               for ob in obstacles):
            continue
        tried += 1
        plan = planner.plan(start, goal, park=False)
        expect = sampled_oracle(grid, obstacles, radius, start, goal)
        if expect is not None:
            assert plan.found and plan.cost <= expect + 1e-9
        if plan.found:
            assert sampled_gap(plan, obstacles, radius) > -1e-6
    assert tried


def test_a_crossing_obstacle_is_let_by_exactly():
    # Nodes at x = 0..4; a disc of radius 0.5 moves up the line x = 2, crossing y = 0 at
    # t = 2 when the agent would be there.  The least delay d keeps the distance
    # |(t - d - 2, t - 2)| >= 0.5 for all t: d^2 / 2 >= 0.25, so d = sqrt(0.5).
    g = CSRGraph.from_edges(5, [0, 1, 2, 3], [1, 2, 3, 4], [1.0] * 4, directed=False,
                            coords=[(x, 0) for x in range(5)])
    ob = MovingObstacle.linear((2.0, -10.0), (0.0, 1.0), 0.5, start=-8.0)
    plan = ContinuousPlanner(g, obstacles=[ob]).plan(0, 4)
    assert plan.cost == pytest.approx(4 + math.sqrt(0.5), rel=1e-9)
    assert sampled_gap(plan, [ob], 0.0, step=0.001, after=3.0) > -1e-9
    # Alone it walks straight through.
    assert ContinuousPlanner(g).plan(0, 4).cost == 4.0


def test_parking_needs_a_goal_free_for_good():
    line = Grid.from_ascii("...")
    sitter = MovingObstacle([(2, 0), (2, 0)], [3.0, math.inf], 0.4)  # comes to stay at t=3
    planner = ContinuousPlanner(line, obstacles=[sitter])
    assert not planner.plan((0, 0), (2, 0)).found
    assert planner.plan((0, 0), (2, 0), park=False).cost == 2.0
    late = ContinuousPlanner(line, doors={(2, 0): [(0.0, 6.0)]})
    assert late.plan((0, 0), (2, 0)).cost == 6.0
    assert not late.plan((0, 0), (2, 0), max_time=5.0).found


def test_timed_path_positions():
    plan = ContinuousPlanner(CORRIDOR, doors={(4, 0): [(0.0, 5.0)]}).plan((0, 0), (8, 0))
    assert plan.position(-1).tolist() == [0.0, 0.0]
    assert plan.position(3.5).tolist() == [3.0, 0.0]  # waiting before the door
    assert plan.position(4.5).tolist() == [3.5, 0.0]
    assert plan.position(5.5).tolist() == [4.5, 0.0]
    assert plan.position(100).tolist() == [8.0, 0.0]
    assert math.isinf(plan.depart[-1]) and plan.algorithm == "sipp"


def test_bad_input():
    grid = Grid.from_ascii("..#..")
    with pytest.raises(InvalidQueryError, match="Grid or a CSRGraph"):
        ContinuousPlanner([[1]])
    with pytest.raises(InvalidQueryError, match="2D"):
        ContinuousPlanner(CSRGraph.from_edges(2, [0], [1], [1.0]))
    for bad in ({"speed": 0}, {"speed": math.nan}, {"radius": -1}, {"radius": True}):
        with pytest.raises(InvalidQueryError):
            ContinuousPlanner(grid, **bad)
    with pytest.raises(InvalidQueryError, match="MovingObstacle"):
        ContinuousPlanner(grid, obstacles=[(0, 0)])
    with pytest.raises(InvalidQueryError, match="k >= 2"):
        MovingObstacle([(0, 0)], [0.0], 1.0)
    with pytest.raises(InvalidQueryError, match="increase"):
        MovingObstacle([(0, 0), (1, 1)], [1.0, 1.0], 1.0)
    with pytest.raises(InvalidQueryError, match="standing still"):
        MovingObstacle([(0, 0), (1, 1)], [0.0, math.inf], 1.0)
    with pytest.raises(InvalidQueryError, match="radius"):
        MovingObstacle([(0, 0), (1, 1)], [0.0, 1.0], 0.0)
    with pytest.raises(InvalidQueryError, match="finite"):
        MovingObstacle([(0, math.nan), (1, 1)], [0.0, 1.0], 1.0)
    with pytest.raises(InvalidQueryError, match="after start"):
        MovingObstacle.linear((0, 0), (1, 0), 1.0, start=2.0, end=1.0)
    with pytest.raises(InvalidQueryError, match="blocked"):
        ContinuousPlanner(grid, doors={(2, 0): [(0, 1)]})
    with pytest.raises(InvalidQueryError, match="start <= end"):
        ContinuousPlanner(grid, doors={(0, 0): [(3, 1)]})
    with pytest.raises(InvalidQueryError, match="pair of times"):
        ContinuousPlanner(grid, doors={(0, 0): [3]})
    with pytest.raises(InvalidQueryError, match="not an edge"):
        ContinuousPlanner(grid, doors={((0, 0), (4, 0)): [(0, 1)]})
    planner = ContinuousPlanner(grid, doors={(0, 0): [(0, 2)]})
    with pytest.raises(InvalidQueryError, match="not safe"):
        planner.plan((0, 0), (1, 0), start_time=1.0)
    with pytest.raises(InvalidQueryError, match="blocked"):
        planner.plan((0, 0), (2, 0))
    with pytest.raises(InvalidQueryError, match="start_time"):
        planner.plan((1, 0), (0, 0), start_time=math.inf)
    assert not planner.plan((1, 0), (3, 0)).found  # different islands
    with pytest.raises(InvalidQueryError, match="no path"):
        planner.plan((1, 0), (3, 0)).position(0.0)
