"""Formation following: a wedge of eight walks a grid path in each mode and ends in its
slots facing the given direction; under ORCA members never overlap; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

import wayfinding
from wayfinding import InvalidQueryError
from wayfinding.crowd import ORCA, Crowd
from wayfinding.grid import Grid
from wayfinding.groups.assign import assign_slots
from wayfinding.groups.following import MODES, FormationFollower, step_formations
from wayfinding.groups.hierarchy import AgentGroup, Snapshot
from wayfinding.groups.shapes import FormationShape

RADIUS = 0.4
FACING = np.array([0.0, -1.0])


def open_path(grid):
    result = wayfinding.find_path(grid, (12, 12), (46, 40))
    assert result.found
    return np.array([grid.cell_to_world(c) for c in result.path.tolist()])


def setup(mode, **options):
    grid = Grid(np.ones((60, 60)))
    path = open_path(grid)
    crowd = Crowd()
    start = [path[0] + (dx, dy) for dx in (-1.5, 0.0, 1.5) for dy in (-3.0, 0.0, 3.0)][:8]
    for p in start:
        crowd.add(p, radius=RADIUS, max_speed=1.5)
    shape = FormationShape.wedge(8, spacing=2.0)
    slots = shape.world_slots(path[0], path[1] - path[0])
    agents = crowd.ids[assign_slots(crowd.position, slots)]
    if mode == "autonomous":
        options["orca"] = ORCA(time_horizon=2.0, obstacles=grid)
    return grid, crowd, FormationFollower(crowd, agents, shape, path, mode=mode,
                                          facing=FACING, **options), path


def min_overlap(crowd):
    d = np.hypot(*(crowd.position[:, None] - crowd.position[None]).transpose(2, 0, 1))
    gap = d - (crowd.radius[:, None] + crowd.radius[None])
    gap[np.diag_indices(len(crowd))] = np.inf
    return gap.min()


@pytest.mark.parametrize("mode, options", [("blind", {}), ("steered", {"cohesion": 0.5}),
                                           ("autonomous", {})])
def test_wedge_walks_the_path_and_arrives_in_formation_facing_the_given_way(mode, options):
    _, crowd, f, path = setup(mode, **options)
    worst = math.inf
    for _ in range(1200):
        f.step(0.1)
        worst = min(worst, min_overlap(crowd))
        if f.arrived and f.slot_error().max() < 0.05 and \
                np.hypot(*crowd.velocity.T).max() < 1e-3:
            break
    assert f.arrived
    np.testing.assert_allclose(f.heading, FACING, atol=1e-12)
    np.testing.assert_allclose(f.slots(), f.shape.world_slots(path[-1], FACING), atol=1e-12)
    assert f.slot_error().max() < 0.05
    # the point of the wedge leads towards the facing direction
    point = crowd.position[crowd.row(int(f.agents[0]))]
    assert (point - path[-1]) @ FACING > 0
    if mode == "autonomous":
        assert worst >= -0.01 * RADIUS


def test_members_keep_pace_on_the_way():
    _, crowd, f, _ = setup("steered", lookahead=1.0)
    errors = []
    for _ in range(200):
        f.step(0.1)
        errors.append(f.slot_error().max())
    assert 0.0 < f.travelled < f._arc[-1]
    assert max(errors[100:]) <= f.slack


def test_reference_point_waits_for_laggards():
    _, crowd, f, _ = setup("blind")
    crowd.max_speed[0] = 0.0            # one member cannot move
    for _ in range(100):
        f.step(0.1)
    assert f.travelled < 3 * f.slack


def test_other_agents_keep_their_own_goals():
    _, crowd, f, _ = setup("blind")
    other = crowd.add((5.0, 50.0), goal=(6.0, 50.0))
    f.step(0.1)
    row = crowd.row(other)
    np.testing.assert_allclose(crowd.velocity[row], [1.4, 0.0])


@pytest.mark.parametrize("change, match", [
    ({"mode": "flock"}, "mode"),
    ({"agents": [0, 1]}, "agents"),
    ({"agents": [0] * 8}, "agents"),
    ({"agents": list(range(1, 9))}, "8"),
    ({"path": [[np.nan, 0.0]]}, "path"),
    # beyond the agents' world (its length overflowed: the reference point never moved)
    ({"path": [[-1e308, 0.0], [1e308, 0.0]]}, "path .* beyond"),
    ({"path": [[0.0, 0.0], [0.0, 2e150]]}, "path .* beyond"),
    ({"shape": FormationShape.line(8, spacing=1e150)}, "shape .* beyond"),
    ({"facing": (0.0, 0.0)}, "facing"),
    ({"cohesion": 1.5}, "cohesion"),
    ({"lookahead": -1.0}, "lookahead"),
    ({"speed": 0.0}, "speed"),
    ({"slack": 0.0}, "slack"),
    ({"orca": "orca"}, "orca"),
    ({"shape": [[0.0, 0.0]]}, "shape"),
    ({"crowd": None}, "Crowd"),
])
def test_bad_input(change, match):
    crowd = Crowd()
    for k in range(8):
        crowd.add((float(k), 0.0))
    args = {"crowd": crowd, "agents": list(range(8)), "shape": FormationShape.wedge(8),
            "path": [[0.0, 0.0], [5.0, 0.0]]}
    args.update(change)
    with pytest.raises(InvalidQueryError, match=match):
        FormationFollower(args.pop("crowd"), args.pop("agents"), args.pop("shape"),
                          args.pop("path"), **args)


@pytest.mark.parametrize("mode", ["blind", "autonomous"])
def test_members_crossing_to_mirrored_slots_overlap_only_without_avoidance(mode):
    crowd = Crowd()
    shape = FormationShape.line(6, spacing=1.2)
    path = np.array([[0.0, 0.0], [0.5, 0.0]])
    for p in shape.world_slots(path[0], (1.0, 0.0)):
        crowd.add(p, radius=0.5, max_speed=1.5)
    f = FormationFollower(crowd, crowd.ids[::-1], shape, path, mode=mode, slack=100.0,
                          orca=ORCA(time_horizon=2.0) if mode == "autonomous" else None)
    worst = math.inf
    for _ in range(300):
        f.step(0.05)
        worst = min(worst, min_overlap(crowd))
    if mode == "autonomous":
        assert worst >= -0.01 * 0.5
    else:
        assert worst < -0.5            # blind members walk through one another


def two_formations():
    crowd = Crowd()
    shape = FormationShape.box(4, spacing=1.5)
    followers = []
    for start, goal in (((0.0, 0.0), (10.0, 0.0)), ((10.0, 0.5), (0.0, 0.5))):
        slots = shape.world_slots(start, np.subtract(goal, start))
        ids = [crowd.add(p, radius=0.4) for p in slots]
        followers.append(FormationFollower(crowd, ids, shape, [start, goal]))
    return crowd, followers


def test_one_formation_stepped_together_is_stepped_alone():
    a, b = setup("steered", cohesion=0.3)[1:3], setup("steered", cohesion=0.3)[1:3]
    for _ in range(30):
        a[1].step(0.1)
        step_formations(b[0], [b[1]], 0.1)
    np.testing.assert_array_equal(a[0].position, b[0].position)


def test_two_formations_cross_under_orca_without_overlap_and_arrive():
    crowd, followers = two_formations()
    orca = ORCA(time_horizon=2.0)
    worst = math.inf
    for _ in range(400):
        step_formations(crowd, followers, 0.1, orca=orca)
        worst = min(worst, min_overlap(crowd))
    assert worst >= -0.01 * 0.4
    assert all(f.arrived and f.slot_error().max() < 0.05 for f in followers)


def test_members_are_found_again_after_other_agents_leave():
    crowd, followers = two_formations()
    extra = crowd.add((50.0, 50.0))
    for a in followers[0].agents.tolist():
        crowd.remove(a)
    crowd.remove(extra)                 # rows of the second formation move
    step_formations(crowd, followers[1:], 0.1)
    rows = [crowd.row(a) for a in followers[1].agents.tolist()]
    np.testing.assert_array_equal(followers[1]._rows(), rows)


@pytest.mark.parametrize("call, match", [
    (lambda c, fs: step_formations("crowd", fs, 0.1), "Crowd"),
    (lambda c, fs: step_formations(c, fs, 0.0), "dt"),
    (lambda c, fs: step_formations(c, fs, 0.1, orca="orca"), "orca"),
    (lambda c, fs: step_formations(c, [*fs, 3], 0.1), "FormationFollower"),
    (lambda c, fs: step_formations(Crowd(), fs, 0.1), "FormationFollower"),
    (lambda c, fs: fs[0].preferred(0.1, out=np.zeros((3, 2))), "out"),
    (lambda c, fs: fs[0].advance(-1.0), "dt"),
])
def test_bad_steps(call, match):
    crowd, followers = two_formations()
    with pytest.raises(InvalidQueryError, match=match):
        call(crowd, followers)


def test_a_group_that_gains_a_member_follows_in_its_refitted_shape():
    crowd = Crowd()
    rng = np.random.default_rng(7)
    ids = [crowd.add(p, radius=0.3) for p in rng.uniform(-2, 2, (5, 2)) * [1, 3]]
    group = AgentGroup(ids[:4], shape=FormationShape.wedge(4, spacing=1.5))
    group.add(ids[4])
    group.assign(Snapshot.of(crowd), (1.0, 0.0))
    f = FormationFollower(crowd, group.slot_members(), group.shape,
                          [group.state.barycentre, (12.0, 0.0)], mode="autonomous")
    for _ in range(400):
        f.step(0.1)
    assert len(f.shape) == 5 and f.arrived and f.slot_error().max() < 0.05


def reference_pose(f, s):
    """The reference point and heading at ``s`` along ``f``'s path, one follower at a time
    with scalar arithmetic."""
    arc, path = f._arc, f.path

    def at(d):
        d = min(max(d, 0.0), arc[-1])
        k = min(int(np.searchsorted(arc, d, side="right")) - 1, len(arc) - 2)
        if k < 0:
            return path[0].copy()
        t = (d - arc[k]) / (arc[k + 1] - arc[k])
        return path[k] + t * (path[k + 1] - path[k])

    p, left = at(s), arc[-1] - s
    if left <= 0.0:
        return p, f.facing.copy()
    blend = max(f.shape.bulk_radius, f.shape.spacing)
    ahead = at(s + blend) - p
    along = math.atan2(ahead[1], ahead[0])
    t = min(1.0, max(0.0, 1.0 - left / blend))
    turn = (math.atan2(f.facing[1], f.facing[0]) - along + math.pi) % (2 * math.pi) - math.pi
    a = along + t * turn
    return p, np.array([math.cos(a), math.sin(a)])


def test_formations_stepped_together_match_a_per_group_reference():
    crowd = Crowd()
    bystander = crowd.add((-50.0, -50.0))
    rng = np.random.default_rng(3)
    followers = []
    for k in range(12):
        shape = FormationShape.box(int(rng.integers(1, 7)), spacing=1.0 + 0.1 * k)
        count = 1 if k == 0 else int(rng.integers(2, 9))
        path = np.cumsum(rng.uniform(-4.0, 4.0, (count, 2)), axis=0) + 30.0 * k
        start = shape.world_slots(path[0], (1.0, 0.0)) + rng.normal(0, 0.3, (len(shape), 2))
        ids = [crowd.add(p, radius=0.3, max_speed=1.0 + 0.1 * k) for p in start]
        followers.append(FormationFollower(crowd, ids, shape, path, mode=MODES[k % 3],
                                           cohesion=0.4, facing=rng.normal(size=2)))
    crowd.max_speed[crowd.row(int(followers[1].agents[0]))] = 0.0   # it waits for a laggard
    for step in range(150):
        if step == 40:
            crowd.remove(bystander)     # every member's row moves
        if step % 10 == 5:
            followers[4].advance(0.1)   # one follower moved alone between batched steps
        expected = []
        for f in followers:
            lag = f.slot_error().max()
            s = min(f.travelled + f.speed * 0.1, f._arc[-1]) if lag <= f.slack else f.travelled
            p, h = reference_pose(f, s)
            off = f.shape.offsets
            expected.append((s, p, h, p + off[:, :1] * h + off[:, 1:] * np.array([-h[1], h[0]]),
                             (p - f.position) / 0.1))
        step_formations(crowd, followers, 0.1)
        for f, (s, p, h, slots, v) in zip(followers, expected):
            assert f.travelled == s
            np.testing.assert_array_equal(f.position, p)
            np.testing.assert_array_equal(f.heading, h)
            np.testing.assert_array_equal(f.slots(), slots)
            np.testing.assert_array_equal(f.velocity, v)
    assert followers[0].arrived and not followers[1].arrived
    assert sum(f.arrived for f in followers) >= 3


def _three_walkers():
    crowd = Crowd()
    for i in range(3):
        crowd.add((float(i), 0.0), goal=(10.0, float(i)))
    return crowd


@pytest.mark.parametrize("agents, path, message", [
    ([[0, 1], [2]], [[0.0, 0.0], [10.0, 0.0]], "agents"),
    ([0, 1, 2], np.zeros((0, 2)), "path"),
])
def test_a_follower_refuses_ragged_agents_and_an_empty_path(agents, path, message):
    with pytest.raises(InvalidQueryError, match=message):
        FormationFollower(_three_walkers(), agents, FormationShape.line(3), path)


def test_step_formations_refuses_followers_that_are_not_a_sequence():
    with pytest.raises(InvalidQueryError, match="followers"):
        step_formations(_three_walkers(), None, 0.1)


def test_a_steered_target_past_the_largest_float_is_sought_at_top_speed():
    # velocity x lookahead overflowed: the members' preferred velocities were NaN
    crowd = Crowd()
    line = FormationShape.line(2)
    ids = [crowd.add(p) for p in line.world_slots((0.0, 0.0), (1.0, 0.0))]
    f = FormationFollower(crowd, ids, line, [(0.0, 0.0), (100.0, 0.0)], mode="steered",
                          lookahead=1e308, speed=10.0)
    f.advance(0.1)
    np.testing.assert_allclose(f.preferred(0.1), [[1.4, 0.0], [1.4, 0.0]])
