"""Climbing movement: one processor for AI and player input; the AI following its
look-ahead reaches the goal of its climb path, a player's hand-written sticks move the
character where worked out by hand, and the processor's transition rules."""

import numpy as np
import pytest

from wayfinding.climbing import (
    ClimbFollower,
    ClimbMode,
    ClimbPosition,
    ClimbProcessor,
    ClimbSpline,
    ClimbState,
    ElementKind,
    LookAheadDriver,
    TraversalElement,
    build_climb_graph,
    climbing_wall,
    find_climb_path,
)
from wayfinding.errors import InvalidQueryError

LEDGE, PIPE, LADDER = ElementKind.LEDGE, ElementKind.PIPE, ElementKind.LADDER
DT = 0.1


def element(kind, *points):
    return TraversalElement(kind, points)


def follow(graph, start, goal, *, steps=3000):
    """Climb from start to goal under a ClimbFollower; the states and the sticks."""
    mover, ai = ClimbProcessor(graph, start), ClimbFollower(graph, goal)
    states, sticks = [mover.state], []
    end = find_climb_path(graph, start, goal).points[-1]
    for _ in range(steps):
        sticks.append(ai.stick(states[-1]))
        states.append(mover.step(sticks[-1], DT))
        if np.linalg.norm(states[-1].position - end) <= ai.arrive:
            break
    return states, sticks, end, ai


def wall_queries():
    out = []
    for seed in range(4):
        wall = climbing_wall(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(4):
            i, j = (int(k) for k in rng.integers(len(wall.elements), size=2))
            out.append((seed, i, j))
    return out


@pytest.mark.parametrize("seed, i, j", wall_queries())
def test_the_ai_following_its_lookahead_reaches_the_goal(seed, i, j):
    wall = climbing_wall(seed=seed)
    g = wall.graph()
    start = ClimbPosition(i, wall.elements[i].length * 0.3)
    goal = ClimbPosition(j, wall.elements[j].length * 0.6)
    if not find_climb_path(g, start, goal).found:
        pytest.skip("no climb between these elements")
    states, _, end, _ = follow(g, start, goal)
    assert np.linalg.norm(states[-1].position - end) <= 0.25
    # every position is on the graph: on a node or along an edge
    for s in states:
        if s.edge >= 0:
            u, v = g.edges[s.edge]
            assert 0 <= s.along <= g.edge_lengths[s.edge] + 1e-9
            seg = g.nodes[v] - g.nodes[u]
            t = (s.position - g.nodes[u]) @ seg / (seg @ seg)
            assert np.allclose(g.nodes[u] + t * seg, s.position)


@pytest.mark.parametrize("seed", range(3))
def test_the_ai_climbs_from_a_clue_to_the_roof(seed):
    wall = climbing_wall(seed=seed)
    g = wall.graph()
    clue = find_climb_path(g, wall.clues(g), wall.position("roof"))
    states, _, end, ai = follow(g, int(clue.nodes[1]), wall.position("roof"))
    assert np.linalg.norm(states[-1].position - end) <= ai.arrive
    assert states[-1].position[2] == pytest.approx(wall.height)


def test_a_hand_written_stick_sequence_moves_as_worked_out():
    # a 4 m ladder up to a 4 m ledge, a 1 m gap, a 3 m ledge; climbing 1 m/s at full
    # stick (in proportion below it), jumping 4 m/s; each row: stick, seconds, where
    # the character is after it and what it was doing
    els = [element(LADDER, (0, 0, 0), (0, 0, 4)), element(LEDGE, (0, 0, 4), (4, 0, 4)),
           element(LEDGE, (5, 0, 4), (8, 0, 4))]
    g = build_climb_graph(els)
    up, half_up, right, left, none = (0, 1, 0), (0, 0.5, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 0)
    climb, jump, hold = ClimbMode.CLIMB, ClimbMode.JUMP, ClimbMode.HOLD
    script = [
        (up, 1.5, (0, 0, 1.5), climb),
        (half_up, 1.0, (0, 0, 2.0), climb),        # half the stick, half the speed
        (up, 2.0, (0, 0, 4.0), climb),             # stops at the corner: no way on up
        (none, 1.0, (0, 0, 4.0), hold),
        (up, 1.0, (0, 0, 4.0), hold),              # nothing above the corner
        (right, 2.5, (2.5, 0, 4), climb),          # shimmy along the ledge
        (left, 0.5, (2.0, 0, 4), climb),           # and back
        (right, 2.0, (4.0, 0, 4), climb),          # to its end
        (right, 0.125, (4.5, 0, 4), jump),         # half way over the gap
        (none, 0.125, (5.0, 0, 4), jump),          # a jump runs to its end
        (right, 1.0, (6.0, 0, 4), climb),
        (left, 1.0, (5.0, 0, 4), climb),           # back to the gap
        (left, 1.5, (2.75, 0, 4), climb),          # 0.25 s over it, then 1.25 m on
    ]
    mover = ClimbProcessor(g, ClimbPosition(0, 0.0), climb_speed=1.0, jump_speed=4.0)
    for stick, seconds, position, mode in script:
        state = mover.step(stick, seconds)
        assert np.allclose(state.position, position), (stick, seconds, position)
        assert state.mode is mode, (stick, seconds, mode)


def test_a_players_stick_climbs_shimmies_and_jumps():
    els = [element(LADDER, (0, 0, 0), (0, 0, 4)), element(LEDGE, (0, 0, 4), (4, 0, 4)),
           element(LEDGE, (5, 0, 4), (8, 0, 4))]
    g = build_climb_graph(els)
    p = ClimbProcessor(g, ClimbPosition(0, 1.0), climb_speed=1.0, jump_speed=4.0)
    assert p.step((0, 1, 0), 1.0).position.tolist() == [0, 0, 2]        # up the ladder
    assert p.step((0, 0.1, 0), 1.0).mode is ClimbMode.HOLD              # dead zone
    assert p.step((0, -1, 0), 0.5).position.tolist() == [0, 0, 1.5]     # and down again
    s = p.step((0, 1, 0), 2.5)
    assert s.node >= 0 and s.position.tolist() == [0, 0, 4]             # at the corner
    s = p.step((1, 0, 0), 4.0)                                          # shimmy right
    assert s.position.tolist() == [4, 0, 4] and s.mode is ClimbMode.CLIMB
    s = p.step((1, 0, 0), 0.125)                                        # jump the gap
    assert s.mode is ClimbMode.JUMP and s.position[0] == pytest.approx(4.5)
    s = p.step((0, 0, 0), 0.125)                                        # no input: still
    assert s.position.tolist() == [5, 0, 4]                             # flying, lands


def test_transition_thresholds():
    els = [element(LEDGE, (0, 0, 3), (4, 0, 3)), element(LEDGE, (5, 0, 4), (8, 0, 4)),
           element(PIPE, (2.6, 0, 0), (2.6, 0, 6))]
    g = build_climb_graph(els)
    end = int(np.flatnonzero(np.all(g.nodes == (4, 0, 3), axis=1))[0])
    steep = (np.cos(np.radians(100)), np.sin(np.radians(100)), 0)   # the jump is at 45
    assert ClimbProcessor(g, end).step(steep, 0.1).mode is ClimbMode.HOLD
    flat = (1.0, 0.3, 0.0)                            # 28 degrees below the jump
    assert ClimbProcessor(g, end, link_threshold=0.9).step(flat, 0.1).mode is ClimbMode.HOLD
    assert ClimbProcessor(g, end).step(flat, 0.1).mode is ClimbMode.JUMP
    # straight up on the ledge, 0.6 m from the pipe: it shimmies to the pipe and climbs it
    p = ClimbProcessor(g, ClimbPosition(0, 2.0))
    s = p.step((0, 1, 0), 1.0)
    assert s.position == pytest.approx((2.6, 0, 3.4))
    assert ClimbProcessor(g, ClimbPosition(0, 2.0), snap=0.5).step((0, 1, 0), 1.0).mode \
        is ClimbMode.HOLD


def test_the_lookahead_driver_alone_follows_a_simple_climb():
    els = [element(LADDER, (0, 0, 0), (0, 0, 4)), element(LEDGE, (0, 0, 4), (6, 0, 4)),
           element(LADDER, (6, 0, 4), (6, 0, 9))]
    g = build_climb_graph(els)
    path = find_climb_path(g, ClimbPosition(0, 0.5), ClimbPosition(2, 4.0))
    ai, mover = LookAheadDriver(ClimbSpline(path.points)), ClimbProcessor(g, ClimbPosition(0, 0.5))
    for _ in range(400):
        s = mover.step(ai.stick(mover.state.position), DT)
    assert np.linalg.norm(s.position - path.points[-1]) <= 0.15
    assert ai.progress == pytest.approx(ai.spline.length, abs=0.15)


def test_a_follower_with_no_way_holds_still_and_plans_once():
    g = build_climb_graph([element(LADDER, (0, 0, 0), (0, 0, 6)),
                           element(LADDER, (9, 0, 0), (9, 0, 6))])
    mover, ai = ClimbProcessor(g, 0), ClimbFollower(g, ClimbPosition(1, 3.0))
    for _ in range(5):
        assert ai.stick(mover.state).tolist() == [0, 0, 0]
        mover.step((0, 0, 0), DT)
    assert ai.plans == 1 and not ai.path.found


def test_state_records_compare_by_value():
    a = ClimbState(1, -1, 0.0, np.array([0.0, 0, 1]), ClimbMode.HOLD)
    assert a == ClimbState(1, -1, 0.0, np.array([0.0, 0, 1]), ClimbMode.HOLD)
    assert a != ClimbState(1, -1, 0.0, np.array([0.0, 0, 2]), ClimbMode.HOLD)


@pytest.mark.parametrize("make", [
    lambda g: ClimbProcessor(g, 99),
    lambda g: ClimbProcessor(g, ClimbPosition(0, 9.0)),
    lambda g: ClimbProcessor(g, "top"),
    lambda g: ClimbProcessor(object(), 0),
    lambda g: ClimbProcessor(g, 0, right=(1, 0, 0), up=(1, 1, 0)),
    lambda g: ClimbProcessor(g, 0, up=(0, 0, 0)),
    lambda g: ClimbProcessor(g, 0, climb_speed=0),
    lambda g: ClimbProcessor(g, 0, climb_threshold=1.5),
    lambda g: ClimbProcessor(g, 0, dead_zone=1.0),
    lambda g: ClimbProcessor(g, 0).step((0, 2, 0), 0.1),
    lambda g: ClimbProcessor(g, 0).step((0, 1), 0.1),
    lambda g: ClimbProcessor(g, 0).step((0, 1, 0), -0.1),
    lambda g: LookAheadDriver([(0, 0, 0), (0, 0, 1)]),
    lambda g: ClimbFollower(g, 1, replan=0),
    lambda g: ClimbFollower(g, 1).stick(None),
    lambda g: ClimbFollower(g, "nonsense"),                 # goals refused when made
    lambda g: ClimbFollower(g, 99),
    lambda g: ClimbFollower(g, ClimbPosition(0, 9.0)),
    lambda g: ClimbFollower(g, []),
])
def test_bad_input_is_refused(make):
    g = build_climb_graph([element(LADDER, (0, 0, 0), (0, 0, 6))])
    with pytest.raises(InvalidQueryError):
        make(g)
