"""Steering against the world, each behaviour on its defining property: obstacle avoidance
passes round discs that seek alone runs into, wall feelers keep agents off walls, path
following keeps to a polyline and stops at its end, flow-field following walks a grid's
flow to the goal round walls; prioritised summation within a budget; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.crowd import Crowd, Wander
from wayfinding.crowd.steering import (
    avoid_obstacles,
    avoid_walls,
    by_priority,
    follow_flow,
    follow_path,
    seek,
    truncated_sum,
    wall_segments,
)
from wayfinding.fields import FlowField
from wayfinding.geometry import Obstacles
from wayfinding.geometry.obstacles import closest_on_segments
from wayfinding.grid import Grid
from wayfinding.navmesh import NavMesh

DT = 0.05


def gap_to_discs(p, centres, radii):
    return (np.hypot(*(p[:, None] - centres[None]).transpose(2, 0, 1)) - radii[None]).min(1)


@pytest.mark.parametrize("offset", [0.0, 0.3, -0.3])
def test_obstacle_avoidance_passes_the_disc_seek_runs_into(offset):
    centres, radii = np.array([[5.0, offset]]), np.array([1.0])
    closest = {}
    for avoid in (False, True):
        crowd = Crowd()
        crowd.add((0, 0), max_speed=1.5, max_accel=6.0, radius=0.3)
        worst = math.inf
        for _ in range(300):
            steer = seek(crowd, (10, 0))
            if avoid:
                steer = by_priority(avoid_obstacles(crowd, centres, radii, lookahead=2.0), steer)
            crowd.step(DT, velocity=crowd.velocity + steer)
            worst = min(worst, gap_to_discs(crowd.position, centres, radii)[0])
        closest[avoid] = worst
        if avoid:
            assert crowd.position[0, 0] > 8                     # got past
    assert closest[False] < 0.3 - 0.1                           # seek alone overlaps it
    assert closest[True] >= 0.3                                 # avoidance keeps its radius


def test_obstacle_avoidance_ignores_what_it_will_not_meet():
    crowd = Crowd()
    crowd.add((0, 0), velocity=(1, 0), max_speed=1.0)
    crowd.add((0, 3), velocity=(1, 0), max_speed=1.0)
    steer = avoid_obstacles(crowd, [[-3.0, 0.0], [1.5, 3.0], [30.0, 3.0]], [1.0, 0.5, 1.0],
                            lookahead=2.0)
    assert steer[0].tolist() == [0.0, 0.0]                      # behind, and beyond reach
    # Dead ahead: along the left tangent to the disc grown by the agent's radius and the
    # margin, 1.5 away with radius 1.1.
    turn = math.asin(1.1 / 1.5)
    assert steer[1] + (1, 0) == pytest.approx([math.cos(turn), math.sin(turn)])
    crowd.position[1] = (1.2, 3.1)                              # touching: straight away
    steer = avoid_obstacles(crowd, [[1.5, 3.0]], [0.5], lookahead=2.0)
    assert steer[1] + (1, 0) == pytest.approx(-np.array([0.3, -0.1]) / math.hypot(0.3, 0.1))


def test_wall_feelers_keep_wanderers_in_a_room():
    room = [(0, 0), (10, 0), (10, 10), (0, 10)]
    walls = [[room[i], room[(i + 1) % 4]] for i in range(4)]
    worst = {}
    for avoid in (False, True):
        crowd = Crowd()
        for p in np.random.default_rng(1).uniform(2, 8, (20, 2)):
            crowd.add(p, max_speed=1.5, max_accel=5.0, radius=0.3)
        wander, worst[avoid] = Wander(seed=3), math.inf
        for _ in range(1200):
            steer = wander(crowd, DT)
            if avoid:
                steer = by_priority(avoid_walls(crowd, walls, lookahead=2.0), steer)
            crowd.step(DT, velocity=crowd.velocity + steer)
            x, y = crowd.position.T
            worst[avoid] = min(worst[avoid], np.minimum.reduce([x, y, 10 - x, 10 - y]).min())
    assert worst[False] < 0 and worst[True] >= 0.3            # out of the room / kept off


def test_wall_feelers_push_along_the_normal_to_the_agent_side():
    walls = [[(0.0, 1.0), (20.0, 1.0)]]
    crowd = Crowd()
    crowd.add((0, 0), max_speed=1.5, radius=0.3)
    # Pushed along the wall's normal, towards the agent's side (down), whichever way the
    # segment runs.
    crowd.position[:] = (5, 0.5)
    crowd.velocity[:] = (0, 1)
    for w in (walls, [[(20.0, 1.0), (0.0, 1.0)]]):
        steer = avoid_walls(crowd, w, lookahead=1.0)
        assert steer[0, 0] == pytest.approx(0) and steer[0, 1] < 0
        # The feeler is 0.3 + 1.0 long and passes the wall 0.8 short of its tip.
        # plus the speed into it.
        assert steer[0, 1] == pytest.approx(-1.5 * 0.8 / 1.3 - 1.0)


def test_walls_come_from_obstacles_meshes_and_grids():
    box = [(0, 0), (4, 0), (4, 2), (0, 2)]
    a, b = wall_segments(Obstacles([box]))
    assert len(a) == 4 and np.hypot(*(b - a).T).sum() == pytest.approx(12)
    a, b = wall_segments(NavMesh.build(outline=box))
    assert len(a) >= 4 and np.hypot(*(b - a).T).sum() == pytest.approx(12)
    grid = Grid.from_ascii("..#\n...")
    a, b = wall_segments(grid)
    assert np.hypot(*(b - a).T).sum() == pytest.approx(4)       # one blocked cell
    with pytest.raises(InvalidQueryError, match="walls"):
        wall_segments([[0, 0], [1, 1]])


def distance_to_polyline(p, path):
    a, b = path[:-1], path[1:]
    return np.array([closest_on_segments(q, a, b)[0].min() for q in p])


def test_path_following_keeps_to_the_path_and_stops_at_its_end():
    path = np.array([(0, 0), (6, 0), (6, 6), (12, 6)], float)
    crowd = Crowd()
    crowd.add((0, 0), max_speed=1.2, max_accel=4.0)
    crowd.add((-1, 2), max_speed=1.0, max_accel=4.0)            # starts off the path
    far = []
    for _ in range(800):
        crowd.step(DT, velocity=crowd.velocity + follow_path(crowd, path, ahead=0.8, slowing=1.5))
        far.append(distance_to_polyline(crowd.position, path))
    far = np.array(far)
    assert far[:, 0].max() < 0.6                                # corners cut a little
    assert far[-700:, 1].max() < 0.6                            # joined it, stayed on
    assert np.hypot(*(crowd.position - (12, 6)).T).max() < 1e-3
    assert np.hypot(*crowd.velocity.T).max() < 1e-3


def test_path_following_takes_one_path_per_agent():
    crowd = Crowd()
    crowd.add((0, 0), max_speed=1.0, max_accel=4.0)
    crowd.add((0, 0), max_speed=1.0, max_accel=4.0)
    paths = [np.array([(0, 0), (5, 0)], float), np.array([(0, 0), (0, 2), (3, 2)], float)]
    for _ in range(400):
        crowd.step(DT, velocity=crowd.velocity + follow_path(crowd, paths))
    assert crowd.position.round(3).tolist() == [[5, 0], [3, 2]]
    with pytest.raises(InvalidQueryError, match="path"):
        follow_path(crowd, [(0, 0), (1, math.nan)])
    with pytest.raises(InvalidQueryError, match="path needs"):
        follow_path(crowd, np.zeros((0, 2)))


def test_flow_field_following_walks_round_walls_to_the_goal():
    grid = Grid.from_ascii("""
..........
..........
..######..
..#.......
..#.......
..........""", origin=(10.0, -5.0), cell_size=0.5)
    flow = FlowField.build(grid, [(5, 4)])
    blocked = ~grid.passable
    crowd = Crowd()
    for x, y in [(0.5, 0.5), (4.5, 0.25), (9.25, 0.5)]:            # in cells
        crowd.add((10 + x * 0.5 + 0.25, -5 + y * 0.5 + 0.25), max_speed=1.0, max_accel=5.0,
                  radius=0.1)
    goal = np.array([10 + 5.25 * 0.5 - 0.125 + 0.125, -5 + 4.5 * 0.5])
    for _ in range(400):
        crowd.step(DT, velocity=crowd.velocity + follow_flow(crowd, flow))
        cells = np.floor((crowd.position - (10.0, -5.0)) / 0.5).astype(int)
        assert not blocked[cells[:, 1], cells[:, 0]].any()
    assert np.hypot(*(crowd.position - goal).T).max() < 0.5
    with pytest.raises(InvalidQueryError, match="FlowField"):
        follow_flow(crowd, grid)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 3), st.floats(-5, 5), st.floats(-5, 5)), min_size=1,
                max_size=5), st.floats(0, 8))
@example(terms=[(1.0, 4.75, 0.87890625), (0.0, 0.0, 0.0)], limit=1.0)   # budget spent, 0 next
@example(terms=[(2.103515625, 3.5625, 3.0), (0.0, 0.0, 0.0)], limit=5.0)
def test_truncated_sum_spends_the_budget_in_order(terms, limit):
    pairs = [(w, np.array([[x, y]])) for w, x, y in terms]
    got = truncated_sum(*pairs, limit=limit)[0]
    # Plain reference: add whole terms while they fit, cut the first that does not.
    total = np.zeros(2)
    for w, s in pairs:
        s = w * s[0]
        size = math.hypot(*s)
        room = limit - math.hypot(*total)
        if size <= room or size == 0:
            total = total + s
        else:
            total = total + s * max(room, 0) / size
    assert got == pytest.approx(total, abs=1e-9)
    assert math.hypot(*got) <= limit + 1e-9


def test_truncated_sum_priorities_and_weights():
    flow, push = np.array([[3.0, 0.0]]), np.array([[0.0, 4.0]])
    # The first term alone passes the budget: it is cut to it and nothing else counts.
    assert truncated_sum((1, flow), (1, push), limit=2.0).tolist() == [[2.0, 0.0]]
    # Within the budget the next one gets what is left.
    assert truncated_sum((1, flow), (1, push), limit=5.0).tolist() == [[3.0, 2.0]]
    # Doubling a weight doubles its share, when the budget allows.
    assert truncated_sum((2, flow), (1, push), limit=100).tolist() == [[6.0, 4.0]]
    assert truncated_sum((1, flow), limit=[1.0]).tolist() == [[1.0, 0.0]]
    with pytest.raises(InvalidQueryError, match="limit"):
        truncated_sum((1, flow), limit=-1)
    with pytest.raises(InvalidQueryError, match="pair"):
        truncated_sum(limit=1)


def test_bad_obstacles():
    crowd = Crowd()
    crowd.add((0, 0))
    with pytest.raises(InvalidQueryError, match="centres"):
        avoid_obstacles(crowd, [[0, math.nan]], [1.0])
    with pytest.raises(InvalidQueryError, match="radii"):
        avoid_obstacles(crowd, [[0, 1]], [1.0, 2.0])
    with pytest.raises(InvalidQueryError, match="radii"):
        avoid_obstacles(crowd, [[0, 1]], [-1.0])
    with pytest.raises(InvalidQueryError, match="lookahead"):
        avoid_walls(crowd, [[(0, 0), (1, 0)]], lookahead=0)


def test_a_standing_agent_inside_the_margin_steps_away():
    crowd = Crowd()
    crowd.add((0.0, 0.0), max_speed=1.0, radius=0.3)
    steer = avoid_obstacles(crowd, [[0.0, 1.35]], [1.0], lookahead=2.0)    # 0.05 inside the margin
    assert steer[0].tolist() == pytest.approx([0.0, -1.0])
