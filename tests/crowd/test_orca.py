"""ORCA between agents against RVO2 (through pyrvo, the test oracle): one step's new
velocities on random states, the half-planes themselves, and the properties that hold
whatever the oracle (never NaN, never above top speed, reciprocal avoidance of a crossing,
deterministic replays, bad input)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wayfinding import InvalidQueryError
from wayfinding.crowd import ORCA, Crowd
from wayfinding.geometry.obstacles import MAX_EXTENT
from wayfinding.grid import Grid

pyrvo = pytest.importorskip("pyrvo")


def f32(a):
    """Exact in float32, RVO2's type."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def random_state(seed, n=80, box=20.0):
    rng = np.random.default_rng(seed)
    return (f32(rng.uniform(-box, box, (n, 2))), f32(rng.uniform(-2, 2, (n, 2))),
            f32(rng.uniform(-2, 2, (n, 2))))


def around_an_obstacle(seed, n=40):
    """Agents in a ring round one convex polygon (or a segment), as RVO2 splits no edge of
    a lone convex obstacle in its obstacle tree."""
    rng = np.random.default_rng(seed)
    if seed % 4 == 0:
        poly = f32(rng.uniform(-6, 6, (2, 2)))
    else:
        k, size, turn = int(rng.integers(3, 8)), rng.uniform(2, 6), rng.uniform(0, 2 * math.pi)
        a = turn + 2 * math.pi * np.arange(k) / k          # counter-clockwise: solid
        poly = f32(size * np.stack([np.cos(a), np.sin(a)], 1))
    a, d = rng.uniform(0, 2 * math.pi, n), rng.uniform(7, 16, n)
    pos = f32(np.stack([d * np.cos(a), d * np.sin(a)], 1))
    return pos, f32(rng.uniform(-2, 2, (n, 2))), f32(rng.uniform(-2, 2, (n, 2))), [poly]


def both(pos, vel, pref, obstacles=(), dt=0.25, dist=15.0, k=10, tau=10.0, tau_obst=5.0,
         r=1.0, vmax=2.0):
    sim = pyrvo.RVOSimulator(dt, dist, k, tau, tau_obst, r, vmax)
    crowd = Crowd(neighbour_dist=dist, max_neighbours=max(k, 1))
    for p, v, w in zip(pos, vel, pref):
        a = sim.add_agent((float(p[0]), float(p[1])))
        sim.set_agent_velocity(a, (float(v[0]), float(v[1])))
        sim.set_agent_pref_velocity(a, (float(w[0]), float(w[1])))
        crowd.add(p, velocity=v, radius=r, max_speed=vmax)
    for poly in obstacles:
        sim.add_obstacle([(float(x), float(y)) for x, y in poly])
    sim.process_obstacles()
    orca = ORCA(time_horizon=tau, time_horizon_obst=tau_obst, max_neighbours=k,
                obstacles=obstacles)
    ours = orca.velocities(crowd, dt, preferred=pref)
    sim.do_step()
    theirs = np.array([[sim.get_agent_velocity(i).x, sim.get_agent_velocity(i).y]
                       for i in range(len(pos))])
    return sim, ours, theirs


def violations(sim, i, v):
    """The largest violation by v of agent i's obstacle half-planes and of its agent ones
    (as RVO2 built them), or 0."""
    lines = [sim.get_agent_orca_line(i, j) for j in range(sim.get_agent_num_orca_lines(i))]
    hard = len(lines) - sim.get_agent_num_agent_neighbors(i)
    worst = [dx * (py - v[1]) - dy * (px - v[0]) for (dx, dy), (px, py) in lines]
    return max(worst[:hard] + [0.0]), max(worst[hard:] + [0.0])


def agreement(states):
    """The share of agents whose new velocity matches RVO2's to 1e-4.  The others must be
    within the top speed and as good by the linear program's own measure: nearer the
    preferred velocity when RVO2's answer keeps every half-plane; else keeping the obstacle
    ones as well as RVO2 does and no worse a largest violation of the agent ones, to 5e-4
    (relative above 1; the fallback program is incremental, not an exact minimax, in either,
    and on these states ours is the better of the two about as often)."""
    matched = total = 0
    for state in states:
        sim, ours, theirs = both(*state)
        pref = state[2]
        assert np.isfinite(ours).all() and (np.hypot(*ours.T) <= 2.0 * (1 + 1e-6)).all()
        close = np.abs(ours - theirs).max(axis=1) <= 1e-4
        matched += close.sum()
        total += len(close)
        for i in np.flatnonzero(~close):
            (ours_hard, ours_soft), (hard, soft) = violations(sim, i, ours[i]), \
                violations(sim, i, theirs[i])
            if max(hard, soft) <= 1e-4:
                assert max(ours_hard, ours_soft) <= 1e-4
                assert np.linalg.norm(ours[i] - pref[i]) <= \
                    np.linalg.norm(theirs[i] - pref[i]) + 1e-4
            else:
                assert ours_hard <= hard + 5e-4 * max(1.0, hard)
                assert ours_soft <= soft + 5e-4 * max(1.0, soft)
    return matched / total


def test_one_step_matches_rvo2_on_random_states():
    """24,000 agents over 300 random states (99.5% match).  Where they differ, RVO2's single
    precision is ill-conditioned (nearly opposite half-planes in the fallback program; most
    of its answers there exceed the top speed, which exact arithmetic cannot)."""
    assert agreement(random_state(seed) for seed in range(300)) > 0.99


def test_dense_overlapping_states_match_rvo2():
    """Agents packed so that many overlap (the one-time-step half-planes; 98% match)."""
    assert agreement(random_state(seed, n=60, box=6.0) for seed in range(60)) > 0.97


def test_one_step_among_obstacles_matches_rvo2():
    """8,000 agents round convex polygons and segments (99.6% match): the obstacle
    half-planes (legs, cut-off lines and circles, foreign legs, covered edges, touching
    an edge or a vertex), kept hard in the fallback."""
    assert agreement(around_an_obstacle(seed) for seed in range(200)) > 0.99


@pytest.mark.parametrize("seed", range(4))
def test_no_neighbours_keeps_only_the_obstacles_as_rvo2_does(seed):
    """``max_neighbours=0``: agents ignore each other and keep clear of the obstacles
    only, among agents close enough that their half-planes would matter."""
    pos, vel, pref, obstacles = around_an_obstacle(seed, n=80)
    sim, ours, theirs = both(pos, vel, pref, obstacles, k=0)
    assert all(sim.get_agent_num_agent_neighbors(i) == 0 for i in range(len(pos)))
    np.testing.assert_allclose(ours, theirs, atol=1e-4)
    with_neighbours = both(pos, vel, pref, obstacles, k=10)[1]
    assert np.abs(with_neighbours - ours).max() > 1e-3     # the neighbours did matter


def test_a_crossing_is_avoided_by_both_and_replays_exactly():
    runs = []
    for _ in range(2):
        crowd, rng = Crowd(), np.random.default_rng(4)
        for i in range(8):     # a circle, a little off symmetric (else ORCA can jam)
            angle = 2 * math.pi * i / 8 + rng.uniform(-0.2, 0.2)
            crowd.add((10 * math.cos(angle), 10 * math.sin(angle)),
                      goal=(-10 * math.cos(angle), -10 * math.sin(angle)), radius=0.5,
                      max_speed=1.5)
        orca, closest = ORCA(time_horizon=4.0), math.inf
        for _ in range(600):
            orca.step(crowd, 0.1)
            d = np.hypot(*(crowd.position[:, None] - crowd.position[None]).T)
            closest = min(closest, d[~np.eye(8, dtype=bool)].min())
        runs.append(crowd.position.copy())
        assert closest > 1.0 - 0.05      # radii 0.5: at most a slight overlap
        assert np.allclose(crowd.position, crowd.goal, atol=0.05)   # everyone arrived
    np.testing.assert_array_equal(runs[0], runs[1])


def own_parameters(i):
    """Agent i's own ORCA parameters (some left to the defaults)."""
    return {"neighbour_dist": (None, 3.0, 8.0)[i % 3], "max_neighbours": (None, 0, 2, 5)[i % 4],
            "time_horizon": (None, 1.0, 4.0)[i % 3], "time_horizon_obst": (None, 0.5, 3.0)[i % 3]}


@pytest.mark.parametrize("removed", [0, 5, 11])
def test_per_agent_parameters_follow_the_agent_when_rows_move(removed):
    """Agents with their own parameters, one removed (the last row moves into its place),
    stepped: the same as a fresh crowd of the agents that remain, in another row order."""
    pos, vel, pref, obstacles = around_an_obstacle(3, n=12)
    pos = pos * 0.5                       # close enough for the neighbour counts to matter
    runs = []
    for order in (range(12), [i for i in reversed(range(12)) if i != removed]):
        crowd, orca = Crowd(), ORCA(time_horizon=2.0, obstacles=obstacles)
        ids = {}
        for i in order:
            ids[i] = crowd.add(pos[i], velocity=vel[i], goal=pos[i] + 5 * pref[i])
            orca.set_agent(ids[i], **own_parameters(i))
        if len(ids) == 12:
            crowd.remove(ids.pop(removed))
        for _ in range(5):
            orca.step(crowd, 0.1)
        runs.append(np.array([crowd.position_of(ids[i]) for i in sorted(ids)]))
    np.testing.assert_allclose(runs[0], runs[1], rtol=0, atol=1e-12)
    crowd, orca = Crowd(), ORCA(time_horizon=2.0, obstacles=obstacles)
    for i in sorted(ids):
        crowd.add(pos[i], velocity=vel[i], goal=pos[i] + 5 * pref[i])
    for _ in range(5):
        orca.step(crowd, 0.1)
    assert np.abs(crowd.position - runs[1]).max() > 1e-3     # the parameters did matter


def test_bad_input():
    crowd = Crowd()
    crowd.add((0, 0))
    for tau in (0, -1, math.nan, True):
        with pytest.raises(InvalidQueryError, match="time_horizon"):
            ORCA(time_horizon=tau)
    orca = ORCA()
    with pytest.raises(InvalidQueryError, match="dt"):
        orca.velocities(crowd, 0)
    with pytest.raises(InvalidQueryError, match="preferred"):
        orca.velocities(crowd, 0.1, preferred=[[math.nan, 0]])
    with pytest.raises(InvalidQueryError, match="Crowd"):
        orca.velocities([(0, 0)], 0.1)
    assert orca.velocities(Crowd(), 0.1).shape == (0, 2)
    for agent in (-1, True, 1.5, "a"):
        with pytest.raises(InvalidQueryError, match="agent"):
            orca.set_agent(agent)
    with pytest.raises(InvalidQueryError, match="max_neighbours"):
        orca.set_agent(0, max_neighbours=-1)
    with pytest.raises(InvalidQueryError, match="time_horizon_obst"):
        orca.set_agent(0, time_horizon_obst=0)


def test_grid_walls_and_edges_keep_agents_out_and_in():
    # A wall at x = 10 with a doorway at 8 <= y < 12, on a 20 x 20 grid of unit cells.
    rows = ["." * 20 for _ in range(20)]
    rows = [r[:10] + ("." if 8 <= y < 12 else "#") + r[11:] for y, r in enumerate(rows)]
    grid = Grid.from_ascii("\n".join(rows))
    crowd = Crowd()
    for k in range(6):
        crowd.add((4.0, 7.5 + k), goal=(16.0, 10.0), radius=0.3, max_speed=1.2)
    crowd.add((18.0, 18.0), goal=(30.0, 30.0), radius=0.3, max_speed=1.2)   # off the grid
    orca = ORCA(time_horizon=3.0, time_horizon_obst=1.0, obstacles=grid)
    blocked = ~grid.passable
    for _ in range(600):
        orca.step(crowd, 0.05)
        x, y = crowd.position.T
        cells = blocked[np.clip(y.astype(int), 0, 19), np.clip(x.astype(int), 0, 19)]
        assert not cells.any()                          # no centre in a wall
        assert (x > 0.25).all() and (x < 19.75).all() and (y > 0.25).all() \
            and (y < 19.75).all()                       # nor across the grid's edge
    assert np.hypot(*(crowd.position[:6] - (16.0, 10.0)).T).max() < 1.5   # through the door
    assert crowd.position[6].tolist() == pytest.approx([19.7, 19.7], abs=0.05)


def test_obstacles_objects_are_taken_too():
    from wayfinding.geometry import Obstacles

    crowd = Crowd()
    crowd.add((0, 0), goal=(10, 0), radius=0.5, max_speed=1.0)
    wall = Obstacles([[(4, -3), (5, -3), (5, 3), (4, 3)]])
    orca = ORCA(time_horizon_obst=2.0, obstacles=wall)
    for _ in range(400):
        orca.step(crowd, 0.1)
        assert crowd.position[0, 0] < 4 - 0.5 + 0.05 or abs(crowd.position[0, 1]) > 3
    with pytest.raises(InvalidQueryError, match="obstacle 0"):
        ORCA(obstacles=[[(0, 0)]])
    for bad in (0, 1.5, True, object()):
        with pytest.raises(InvalidQueryError, match="obstacles"):
            ORCA(obstacles=bad)
        with pytest.raises(InvalidQueryError, match="obstacles"):
            ORCA().set_obstacles(bad)


def test_navmesh_walls_keep_agents_on_the_mesh():
    """A room with a pillar, agents walking straight across: their discs never over a wall
    (the mesh is built without their radius); those whose way is clear arrive, those
    heading into the pillar stop at it."""
    from wayfinding.navmesh import NavMesh

    mesh = NavMesh.build(outline=[(0, 0), (20, 0), (20, 10), (0, 10)],
                         holes=[[(8, 3), (12, 3), (12, 7), (8, 7)]])
    crowd = Crowd()
    ys = [0.5, 1.5, 2.5, 4.0, 6.0, 7.5, 8.5, 9.5]
    for y in ys:
        crowd.add((2.0, y), goal=(30.0 if y == 9.5 else 18.0, y), radius=0.4, max_speed=1.5)
    orca = ORCA(time_horizon=3.0, time_horizon_obst=1.0, obstacles=mesh)
    for _ in range(500):
        orca.step(crowd, 0.05)
        x, y = crowd.position.T
        assert (x >= 0.4 - 1e-3).all() and (x <= 19.6 + 1e-3).all() \
            and (y >= 0.4 - 1e-3).all() and (y <= 9.6 + 1e-3).all()
        pillar = np.hypot(np.maximum(np.maximum(8 - x, x - 12), 0),
                          np.maximum(np.maximum(3 - y, y - 7), 0))
        assert (pillar >= 0.4 - 1e-3).all()
    x, y = crowd.position.T
    assert np.hypot(*(crowd.position - crowd.goal)[[1, 2, 5, 6]].T).max() < 0.05
    assert (x[[3, 4]] < 8).all() and crowd.position[7].tolist() == pytest.approx([19.6, 9.5],
                                                                                abs=0.02)


def test_the_obstacle_tree_finds_every_edge_in_range_nearest_first():
    """The obstacle neighbours the tree finds, among 300 random segments (split where they
    cross the tree's lines), against a plain scan of every edge: the edges each agent faces
    strictly within range, nearest first; agents far off every edge get finite velocities."""
    from wayfinding._kernels import _orca

    rng = np.random.default_rng(7)
    a = rng.uniform(-40, 40, (300, 2))
    segments = [np.array([p, p + rng.uniform(-4, 4, 2)]) for p in a]
    orca = ORCA(time_horizon_obst=3.0, obstacles=segments)
    point, _, nxt = orca._walls[:3]
    assert len(point) > 600                          # the tree split some
    e = point[nxt] - point
    for x, y in rng.uniform(-40, 40, (200, 2)):
        found = _orca.obstacle_neighbours(*orca._walls, x, y, 6.5)
        r = (x - point[:, 0]) * e[:, 0] + (y - point[:, 1]) * e[:, 1]
        q = point + np.clip(r / (e ** 2).sum(1), 0, 1)[:, None] * e - (x, y)
        d2 = (q ** 2).sum(1)
        facing = (point[:, 0] - x) * e[:, 1] - (point[:, 1] - y) * e[:, 0] < 0
        assert sorted(found) == np.flatnonzero(facing & (d2 < 6.5 ** 2)).tolist()
        assert (np.diff(d2[found]) >= 0).all()
    crowd = Crowd()
    for p in rng.uniform(-40, 40, (200, 2)):
        crowd.add(p, goal=p + rng.uniform(-10, 10, 2), radius=0.5, max_speed=2.0)
    for far in ((1e15, 0.0), (-1e15, 3e14), (5.0, -MAX_EXTENT)):   # far off every edge
        crowd.add(far, goal=(0.0, 0.0), radius=0.5, max_speed=2.0)
    assert np.isfinite(orca.velocities(crowd, 0.25)).all()


def test_set_obstacles_replaces_those_given_before():
    wall = [np.array([(2.0, -3.0), (2.5, -3.0), (2.5, 3.0), (2.0, 3.0)])]
    far = [np.array([(20.0, 10.0), (21.0, 10.0), (21.0, 11.0), (20.0, 11.0)])]

    def crowd():
        c = Crowd()
        c.add((0.0, 0.0), goal=(6.0, 0.0), radius=0.3, max_speed=1.5)
        return c

    orca = ORCA(time_horizon_obst=2.0, obstacles=wall)
    blocked = orca.velocities(crowd(), 0.1)
    orca.set_obstacles(far)
    assert orca.obstacles is far
    moved = orca.velocities(crowd(), 0.1)
    np.testing.assert_array_equal(moved, ORCA(time_horizon_obst=2.0, obstacles=far)
                                  .velocities(crowd(), 0.1))
    np.testing.assert_array_equal(moved, ORCA(time_horizon_obst=2.0).velocities(crowd(), 0.1))
    assert not np.array_equal(blocked, moved)


def test_agents_at_one_point_part_without_nan():
    """Agents stacked on one point with one velocity (and pairs whose relative velocity is
    the centre of their one-step circle) get finite velocities, each pair parting in
    opposite directions, and a stacked crowd spreads out until no two overlap."""
    crowd = Crowd()
    for _ in range(2):
        crowd.add((0.0, 0.0), radius=0.5, max_speed=2.0)
    v = ORCA().velocities(crowd, 0.1)
    assert np.isfinite(v).all() and np.hypot(*v[0]) > 0.1
    np.testing.assert_allclose(v[0], -v[1], atol=1e-12)
    crowd = Crowd()                                   # rel = (1, 0), dv = rel / dt
    crowd.add((0.0, 0.0), velocity=(5.0, 0.0), radius=0.5, max_speed=20.0)
    crowd.add((0.5, 0.0), velocity=(0.0, 0.0), radius=0.5, max_speed=20.0)
    v = ORCA().velocities(crowd, 0.1, preferred=[(5.0, 0.0), (0.0, 0.0)])
    assert np.isfinite(v).all()
    rng = np.random.default_rng(3)
    crowd = Crowd()
    for p in np.round(rng.uniform(-1, 1, (12, 2))):          # at most 9 distinct points
        crowd.add(p, radius=0.3, max_speed=1.5)
    orca = ORCA(time_horizon=2.0)
    for _ in range(100):
        v = orca.velocities(crowd, 0.1)
        assert np.isfinite(v).all()
        crowd.step(0.1, velocity=v)
    d = np.hypot(*(crowd.position[:, None] - crowd.position[None]).T)
    assert d[~np.eye(12, dtype=bool)].min() > 0.6 - 1e-3


def test_neighbour_lists_naming_the_agent_itself_are_refused():
    crowd = Crowd()
    for x in (0.0, 3.0):
        crowd.add((x, 0.0))
    rows = np.array([[1, -1], [1, 0]], np.int32)           # agent 1 its own neighbour
    with pytest.raises(InvalidQueryError, match="neighbours"):
        ORCA().velocities(crowd, 0.1, neighbours=(rows, np.array([1, 2], np.int32)))
    own = crowd.neighbours()
    np.testing.assert_array_equal(ORCA().velocities(crowd, 0.1, neighbours=own),
                                  ORCA().velocities(crowd, 0.1))


@pytest.mark.parametrize("seed", range(3))
def test_speeds_stay_within_the_top_speed_far_from_every_half_plane(seed):
    """Agents so large and so deep in each other that their half-planes lie ~1e9 past the
    top speed (the fallback program then works with lines far outside the speed circle),
    or so fast that their own velocities do: the new velocities still keep the top
    speed."""
    rng = np.random.default_rng(seed)
    for radius, speed in ((1e8, 0.0), (0.5, 1e300)):
        crowd = Crowd()
        for _ in range(6):
            crowd.add(rng.uniform(-1, 1, 2), goal=rng.uniform(-1, 1, 2),
                      velocity=rng.uniform(-1, 1, 2) * speed, radius=radius, max_speed=1.5)
        v = ORCA().velocities(crowd, 0.1)
        assert np.isfinite(v).all() and (np.hypot(*v.T) <= 1.5 * (1 + 1e-12)).all()


def test_given_neighbour_lists_are_cut_to_max_neighbours_and_left_unchanged():
    """Lists longer than the agents' neighbour counts are cut to each one's nearest, as the
    crowd's own would be, and the caller's arrays are not written to."""
    rng = np.random.default_rng(1)
    crowd = Crowd(max_neighbours=2)
    ids = [crowd.add(p, goal=-p, velocity=rng.uniform(-1, 1, 2), radius=0.3)
           for p in rng.uniform(-2, 2, (8, 2))]
    orca = ORCA(time_horizon=3.0)
    np.testing.assert_array_equal(
        orca.velocities(crowd, 0.1, neighbours=crowd.neighbours(max_neighbours=7)),
        orca.velocities(crowd, 0.1))
    orca.set_agent(ids[0], max_neighbours=1)
    rows, counts = crowd.neighbours(max_neighbours=7)
    kept = rows.copy(), counts.copy()
    np.testing.assert_array_equal(orca.velocities(crowd, 0.1, neighbours=(rows, counts)),
                                  orca.velocities(crowd, 0.1))
    np.testing.assert_array_equal(rows, kept[0])
    np.testing.assert_array_equal(counts, kept[1])


def test_parameters_for_ids_far_beyond_the_crowds_are_kept_without_cost():
    """Parameters set for ids the crowd does not have (however large) change nothing and
    cost nothing; ids beyond 64 bits are refused."""
    crowd = Crowd()
    a = crowd.add((0.0, 0.0), goal=(5.0, 0.0))
    crowd.add((2.0, 0.1), goal=(-5.0, 0.0))
    orca = ORCA(time_horizon=2.0)
    before = orca.velocities(crowd, 0.1)
    orca.set_agent(10**15, time_horizon=9.0)
    orca.set_agent(2**63 - 1, max_neighbours=0)
    np.testing.assert_array_equal(orca.velocities(crowd, 0.1), before)
    orca.set_agent(a, max_neighbours=0)
    assert not np.array_equal(orca.velocities(crowd, 0.1), before)
    with pytest.raises(InvalidQueryError, match="agent"):
        orca.set_agent(2**64)


def test_a_huge_preferred_velocity_is_taken_as_its_direction_at_top_speed():
    """A preferred velocity of any finite size beyond the top speed gives the velocity a
    moderately long one in its direction gives (its square overflowing or not)."""
    crowd = Crowd()
    crowd.add((0.0, 0.0), max_speed=2.0)
    crowd.add((10.0, 0.0), max_speed=2.0)
    orca = ORCA()
    want = orca.velocities(crowd, 0.1, preferred=[(1e3, 0.0), (0.0, -1e3)])
    assert np.hypot(*want[1]) == pytest.approx(2.0)
    for size in (1e160, 1e200, 1e300):
        np.testing.assert_allclose(
            orca.velocities(crowd, 0.1, preferred=[(size, 0.0), (0.0, -size)]), want,
            atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("size", [1e80, 1e140])
def test_scenes_scaled_up_give_their_velocities_scaled_up(seed, size):
    """ORCA is the same at any scale: positions, radii, velocities, top speeds and the
    neighbour distance all ``size`` times a scene's give its velocities ``size`` times,
    though the squares of the products of offsets and velocities overflow."""
    rng = np.random.default_rng(seed)
    p, v, pref = (rng.uniform(-4, 4, (20, 2)), rng.uniform(-2, 2, (20, 2)),
                  rng.uniform(-2.5, 2.5, (20, 2)))
    r, s = rng.uniform(0.4, 1.2, 20), rng.uniform(0.5, 2.5, 20)
    out = []
    for k in (1.0, size):
        crowd = Crowd(neighbour_dist=8.0 * k)
        for i in range(20):
            crowd.add(p[i] * k, velocity=v[i] * k, radius=r[i] * k, max_speed=s[i] * k)
        out.append(ORCA(time_horizon=3.0).velocities(crowd, 0.2, preferred=pref * k) / k)
    np.testing.assert_allclose(out[1], out[0], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("tau", [1e-300, 1e-200, 5e-324])
@pytest.mark.parametrize("size", [1.0, 1e100, 4e149])
def test_a_horizon_too_short_for_the_distance_leaves_apart_agents_alone(tau, size):
    """Two agents apart, with a horizon so short that their offset over it overflows (at
    large scales): their velocity obstacles lie beyond every velocity, and both keep their
    preferred velocities, as they do at small scales."""
    crowd = Crowd(neighbour_dist=10 * size)
    crowd.add((-1.1 * size, 0.0), radius=0.5 * size, max_speed=size)
    crowd.add((1.1 * size, 0.1 * size), radius=0.5 * size, max_speed=size)
    got = ORCA(time_horizon=tau).velocities(crowd, 0.1, preferred=[(size, 0.0), (-size, 0.0)])
    np.testing.assert_allclose(got / size, [(1.0, 0.0), (-1.0, 0.0)], atol=1e-12)
