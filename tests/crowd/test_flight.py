"""Flying agents: path following with arrival, the voxel sweep against a sampled oracle (no
box ever enters a blocked voxel; it stops where the first one would be entered), a swarm
flying Theta* paths through a generated voxel world, the 3D steering behaviours, and bad
input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding._kernels import _orca3d
from wayfinding.crowd.flight import FlightCrowd, orca3d_velocities
from wayfinding.crowd.flight_steering import (
    arrive3,
    avoid_voxels,
    neighbours3,
    seek3,
    separation3,
)
from wayfinding.geometry.obstacles import MAX_EXTENT
from wayfinding.voxel.anyangle import theta_star
from wayfinding.voxel.generate import towers, tunnels
from wayfinding.voxel.grid import VoxelGrid


def overlapped(grid, centre, half):
    """The voxels whose open cube meets the open box (centre, half-edge): a set of (x, y,
    z), outside ones included."""
    o, s = np.asarray(grid.origin), grid.voxel_size
    lo = np.floor((centre - half - o) / s).astype(int)
    hi = np.ceil((centre + half - o) / s).astype(int) - 1
    return {(x, y, z) for x in range(lo[0], hi[0] + 1) for y in range(lo[1], hi[1] + 1)
            for z in range(lo[2], hi[2] + 1)}


def blocked_among(grid, cells):
    """The cells of ``cells`` that are blocked or outside the grid."""
    nx, ny, nz = grid.size
    return {c for c in cells if not (0 <= c[0] < nx and 0 <= c[1] < ny and 0 <= c[2] < nz)
            or grid.blocked[c[2], c[1], c[0]]}


def test_an_agent_follows_its_path_and_stops_on_its_end():
    path = np.array([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 3.0, 0.0], [4.0, 3.0, 5.0]])
    crowd = FlightCrowd(ahead=0.5, slowing=1.0)
    a = crowd.add(path[0], path=path, max_speed=1.0)
    worst = 0.0
    for _ in range(400):
        crowd.step(0.1)
        p = crowd.position[a]
        seg = [np.linalg.norm(p - (u + np.clip(np.dot(p - u, w - u) / np.dot(w - u, w - u),
                                               0, 1) * (w - u)))
               for u, w in zip(path[:-1], path[1:])]
        worst = max(worst, min(seg))
        assert np.linalg.norm(crowd.velocity[a]) <= 1.0 + 1e-12
    assert worst <= 0.5                                     # corners cut by at most ahead
    np.testing.assert_allclose(crowd.position[a], path[-1], atol=1e-9)  # slowing: 0.9 a step
    np.testing.assert_allclose(crowd.velocity[a], 0.0, atol=1e-8)
    assert crowd.arrived().tolist() == [True]
    assert set(crowd.timings) == {"steer", "orca", "move"}


def test_progress_never_goes_back_and_measures_the_path():
    crowd = FlightCrowd()
    crowd.add((0.0, 0.0, 0.0), path=[[0, 0, 0], [2, 0, 0], [2, 2, 0]])
    crowd.add((1.0, 1.0, 1.0))                              # holds its place
    s, left = crowd.progress()
    np.testing.assert_allclose([s, left], [[0, 0], [4, 0]])
    crowd.position[0] = (2.0, 1.5, 0.0)
    s, left = crowd.progress()
    np.testing.assert_allclose([s[0], left[0]], [3.5, 0.5])
    crowd.position[0] = (0.5, 0.0, 0.0)       # pushed back: stays on its leg, at its start
    assert crowd.progress()[0][0] == 2.0
    crowd.set_path(0, [[5.0, 5.0, 5.0]])
    assert crowd.progress()[1][0] == 0.0 and crowd.path(0).tolist() == [[5.0, 5.0, 5.0]]


def test_the_crowds_velocities_are_orca_with_each_agents_own_time_horizon():
    rng = np.random.default_rng(3)
    crowd = FlightCrowd(time_horizon=4.0, neighbour_dist=6.0, max_neighbours=5)
    for i in range(40):
        crowd.add(rng.uniform(-5, 5, 3), goal=rng.uniform(-5, 5, 3), radius=0.3 + 0.01 * i,
                  velocity=rng.uniform(-1, 1, 3), max_speed=1.5,
                  time_horizon=None if i % 2 else 1.0 + i / 10)
    assert crowd.time_horizons.tolist() == [4.0 if i % 2 else 1.0 + i / 10 for i in range(40)]
    pref = crowd.preferred_velocity(0.1)
    want = orca3d_velocities(crowd.position, crowd.velocity, pref, crowd.radius,
                             crowd.max_speed, 0.1, time_horizon=crowd.time_horizons,
                             neighbour_dist=6.0, max_neighbours=5)
    np.testing.assert_array_equal(crowd.velocities(0.1), want)


def test_agents_pass_each_other_on_crossing_paths():
    crowd = FlightCrowd(time_horizon=4.0)
    n = 8
    for i in range(n):
        a = 2 * math.pi * i / n
        start = np.array([6 * math.cos(a), 6 * math.sin(a), 1.5 * math.sin(3 * a)])
        crowd.add(start, goal=-start, radius=0.4, max_speed=1.5)
    closest = math.inf
    for _ in range(300):
        crowd.step(0.1)
        d = np.linalg.norm(crowd.position[:, None] - crowd.position[None], axis=2)
        closest = min(closest, (d + 1e9 * np.eye(n)).min())
    assert closest >= 0.8 * (1 - 1e-3)
    assert crowd.arrived(tolerance=1e-6).all()


def first_entry(grid, at, axis, move, half):
    """The fraction of ``move`` along ``axis`` at which the box first overlaps a blocked
    voxel it did not overlap at ``at`` (1.0: never), to 1e-9: scanned in steps shorter than
    a box, which no voxel layer fits between, then bisected."""
    start = blocked_among(grid, overlapped(grid, at, half))

    def enters(f):
        probe = at.copy()
        probe[axis] += f * move
        return bool(blocked_among(grid, overlapped(grid, probe, half)) - start)

    steps = int(np.ceil(abs(move) / half)) + 1
    grid_f = np.linspace(0.0, 1.0, steps + 1)
    for lo, hi in zip(grid_f[:-1], grid_f[1:]):
        if enters(hi):
            while hi - lo > 1e-9:
                mid = 0.5 * (lo + hi)
                lo, hi = (lo, mid) if enters(mid) else (mid, hi)
            return hi
    return 1.0


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_sweep_stops_where_a_sampled_move_first_enters_a_blocked_voxel(seed):
    rng = np.random.default_rng(seed)
    blocked = rng.random((6, 7, 8)) < 0.3
    grid = VoxelGrid(blocked, origin=(-1.0, 2.0, 0.5), voxel_size=0.5)
    free = np.argwhere(~blocked)[:, ::-1]                   # (x, y, z)
    n = 12
    cells = free[rng.integers(0, len(free), n)]
    pos = grid.cells_to_world(cells) + rng.uniform(-0.1, 0.1, (n, 3))
    half = rng.uniform(0.05, 0.24, n)
    move = rng.uniform(-2.0, 2.0, (n, 3))
    got = pos.copy()
    stopped = np.zeros((n, 3), np.uint8)
    _orca3d.sweep_boxes(grid.padded, *grid.origin, grid.voxel_size, got, move, half, stopped)
    for i in range(n):
        at = pos[i].copy()
        for axis in range(3):
            start = blocked_among(grid, overlapped(grid, at, half[i]))
            reach = first_entry(grid, at, axis, move[i, axis], half[i])
            if reach == 1.0:
                assert not stopped[i, axis]
                assert got[i, axis] == pytest.approx(at[axis] + move[i, axis], abs=1e-12)
            else:
                assert stopped[i, axis]
                assert got[i, axis] == pytest.approx(at[axis] + reach * move[i, axis],
                                                     abs=1e-6)
            at[axis] = got[i, axis]
            assert not blocked_among(grid, overlapped(grid, at, half[i])) - start


def touching(grid, pos, half):
    """Which boxes (centres ``(n, 3)``, half-edges below half a voxel) overlap a blocked
    voxel or leave the grid: each spans at most two voxels per axis, so the corners'
    voxels are all of them."""
    o, s = np.asarray(grid.origin), grid.voxel_size
    lo = np.floor((pos - half[:, None] - o) / s).astype(int)
    hi = np.ceil((pos + half[:, None] - o) / s).astype(int) - 1
    size = np.array(grid.size)
    hit = ((lo < 0) | (hi >= size)).any(1)
    lo, hi = np.clip(lo, 0, size - 1), np.clip(hi, 0, size - 1)
    for corner in range(8):
        c = np.where([(corner >> a) & 1 for a in range(3)], hi, lo)
        hit |= grid.blocked[c[:, 2], c[:, 1], c[:, 0]]
    return hit


@pytest.mark.parametrize("seed", [1, 2])
def test_a_swarm_flies_theta_star_paths_through_caves_without_entering_rock(seed):
    """60 agents from random free voxels (some share one) along Theta* paths, whose legs
    pass corners closer than the agents' boxes: all arrive, and no box ever overlaps rock."""
    grid = tunnels((32, 32, 20), seed=seed).with_options(voxel_size=2.0, origin=(10.0, -5.0, 0.0))
    rng = np.random.default_rng(seed)
    free = np.argwhere(~grid.blocked)[:, ::-1]
    crowd = FlightCrowd(world=grid, time_horizon=3.0, ahead=2.0, slowing=2.0)
    while len(crowd) < 60:
        a, b = free[rng.integers(0, len(free), 2)]
        r = theta_star(grid, tuple(a), tuple(b))
        if r.found and r.cost >= 8:
            path = grid.cells_to_world(r.path)
            crowd.add(path[0], path=path, radius=0.8, max_speed=3.0)
    half = np.minimum(crowd.radius, 0.45 * grid.voxel_size)
    assert not touching(grid, crowd.position, half).any()
    for _ in range(1000):
        crowd.step(0.1)
        assert not touching(grid, crowd.position, half).any()
        if crowd.arrived().all():
            break
    assert crowd.arrived().all()


@pytest.mark.slow
def test_a_swarm_crosses_a_city_between_the_towers():
    """200 agents from one side of a city to the other, each from and to its own voxel
    along a Theta* path: all arrive within 30 s of flight, no box ever touching a tower."""
    grid = towers((64, 48, 24), seed=0)
    rng = np.random.default_rng(0)
    cells = np.argwhere(~grid.blocked)[:, ::-1]
    left, right = cells[cells[:, 0] < 6], cells[cells[:, 0] > 57]
    crowd = FlightCrowd(world=grid, time_horizon=2.0, ahead=1.5, slowing=1.5,
                        neighbour_dist=4.0)
    used: set = set()
    while len(crowd) < 200:
        a, b = tuple(left[rng.integers(len(left))]), tuple(right[rng.integers(len(right))])
        if a in used or b in used:
            continue
        r = theta_star(grid, a, b)
        if r.found:
            used |= {a, b}
            crowd.add(grid.cell_to_world(a), path=grid.cells_to_world(r.path), radius=0.4,
                      max_speed=4.0)
    half = np.minimum(crowd.radius, 0.45 * grid.voxel_size)
    for _ in range(300):
        crowd.step(0.1)
        assert not touching(grid, crowd.position, half).any()
    assert crowd.arrived().all()


def reference_push(grid, p, half, margin, speed, normal_speed):
    """avoid_voxels for one agent, over every voxel the grown box can reach."""
    o, s = np.asarray(grid.origin), grid.voxel_size
    total = np.zeros(3)
    reach = half + margin
    lo = np.floor((p - reach - o) / s).astype(int)
    hi = np.floor((p + reach - o) / s).astype(int)
    for x in range(lo[0], hi[0] + 1):
        for y in range(lo[1], hi[1] + 1):
            for z in range(lo[2], hi[2] + 1):
                if not blocked_among(grid, {(x, y, z)}):
                    continue
                corner = o + np.array([x, y, z]) * s
                overlap = np.minimum(corner + s, p + reach) - np.maximum(corner, p - reach)
                away = p - (corner + s / 2)
                if overlap.min() > 0 and away.any():
                    gain = np.full(3, speed)
                    gain[np.argmin(overlap)] = normal_speed
                    total += min(overlap.min() / margin, 1.0) * gain * away \
                        / np.linalg.norm(away)
    return total * min(1.0, speed / max(np.linalg.norm(total), 1e-300))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_voxel_push_matches_a_plain_sum(seed):
    rng = np.random.default_rng(seed)
    grid = VoxelGrid(rng.random((5, 6, 7)) < 0.35, origin=(0.5, -1.0, 2.0), voxel_size=1.5)
    pos = np.array(grid.origin) + rng.uniform(-0.5, 8.0, (30, 3))
    half = rng.uniform(0.05, 0.7, 30)
    margin = rng.uniform(0.01, 1.4 - half)
    speed, normal = rng.uniform(0.5, 3.0, 30), rng.uniform(0.0, 3.0, 30)
    got = avoid_voxels(pos, grid.padded, grid.origin, grid.voxel_size, half, margin,
                       speed=speed, normal_speed=normal)
    for i in range(30):
        np.testing.assert_allclose(
            got[i], reference_push(grid, pos[i], half[i], margin[i], speed[i], normal[i]),
            atol=1e-12)


def test_open_space_outside_the_grid_is_blocked():
    grid = VoxelGrid(np.zeros((2, 2, 2), bool))
    crowd = FlightCrowd(world=grid, wall_radius=0.25)
    crowd.add((1.0, 1.0, 1.0), goal=(5.0, 1.0, 1.0), max_speed=10.0)
    for _ in range(10):
        crowd.step(0.1)
    assert crowd.position[0, 0] == pytest.approx(2.0 - 0.25, abs=1e-6)
    assert crowd.velocity[0, 0] == 0.0


def test_seek_arrive_and_separation():
    pos = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    vel = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(seek3(pos, vel, (0.0, 3.0, 4.0), 2.0),
                               [[-1.0, 1.2, 1.6], [0.0, 2 ** 0.5, 2 ** 0.5]])
    np.testing.assert_allclose(arrive3(pos, vel, (0.0, 0.0, 0.5), 2.0, slowing=1.0),
                               [[-1.0, 0.0, 1.0], [0.0, 0.0, -1.0]])
    np.testing.assert_allclose(arrive3(pos, vel, (0.0, 0.0, 0.5), 2.0, slowing=0.1, dt=1.0),
                               [[-1.0, 0.0, 0.5], [0.0, 0.0, -0.5]])
    np.testing.assert_allclose(separation3(pos, vel, [1.0, 0.5], distance=2.0),
                               [[-1.0, 0.0, -1.0], [0.0, 0.0, 0.5]])
    far = separation3(pos, vel, 1.0, distance=0.5)
    np.testing.assert_allclose(far, 0.0)
    rows, counts = neighbours3(pos, distance=2.0, max_neighbours=1)
    assert rows.tolist() == [[1], [0]] and counts.tolist() == [1, 1]


@pytest.mark.parametrize("call", [
    lambda c: c.add((0, 0)),
    lambda c: c.add((0, 0, math.nan)),
    lambda c: c.add((0, 0, 0), path=[[0, 0]]),
    lambda c: c.add((0, 0, 0), path=np.zeros((0, 3))),
    lambda c: c.add((0, 0, 0), path=[[0, 0, 0]], goal=(1, 1, 1)),
    lambda c: c.add((0, 0, 0), radius=0),
    lambda c: c.add((0, 0, 0), max_speed=-1),
    lambda c: c.add((0, 0, 0), time_horizon=0),
    lambda c: c.set_path(5, [[0, 0, 0]]),
    lambda c: c.set_path(True, [[0, 0, 0]]),
    lambda c: c.step(0.0),
    lambda c: c.step(0.1, preferred=np.zeros((2, 3))),
    lambda c: c.move(np.zeros((1, 2)), 0.1),
    lambda c: c.arrived(tolerance=-1.0),
    lambda c: FlightCrowd(world=np.zeros((2, 2, 2))),
    lambda c: FlightCrowd(ahead=0),
    lambda c: FlightCrowd(max_neighbours=-1),
    lambda c: seek3(np.zeros((1, 3)), np.zeros((1, 3)), (0, 0), 1.0),
    lambda c: arrive3(np.zeros((1, 3)), np.zeros((1, 3)), (0, 0, 1), 1.0, slowing=0),
    lambda c: separation3(np.zeros((1, 3)), np.zeros((2, 3)), 1.0),
    lambda c: neighbours3(np.zeros((2, 3)), distance=[1.0, 0.0], max_neighbours=1),
    lambda c: avoid_voxels(np.zeros((1, 3)), np.ones((3, 3, 3), np.uint8), (0, 0, 0), 1.0,
                           0.5, 0.6),
    lambda c: avoid_voxels(np.zeros((1, 3)), np.ones((3, 3), np.uint8), (0, 0, 0), 1.0,
                           0.2, 0.2),
    lambda c: FlightCrowd(world=VoxelGrid(np.zeros((2, 2, 2), bool)), wall_radius=0.5),
    lambda c: FlightCrowd(wall_margin=1.5),
])
def test_bad_input_is_refused_and_changes_nothing(call):
    crowd = FlightCrowd()
    crowd.add((0.0, 0.0, 0.0), goal=(1.0, 0.0, 0.0))
    before = crowd.position.copy()
    with pytest.raises(InvalidQueryError):
        call(crowd)
    assert len(crowd) == 1 and (crowd.position == before).all()


def test_an_empty_crowd_steps():
    crowd = FlightCrowd()
    crowd.step(0.1)
    assert crowd.position.shape == (0, 3) and crowd.arrived().shape == (0,)


@pytest.mark.parametrize("option, bad", [
    ("position", (0.0, 1e300, 0.0)), ("goal", (0.0, 0.0, -2e150)),
    ("path", [[0.0, 0.0, 0.0], [1e300, 0.0, 0.0]]), ("radius", 1e300), ("max_speed", 1e300)])
def test_sizes_beyond_max_extent_are_refused(option, bad):
    crowd = FlightCrowd()
    with pytest.raises(InvalidQueryError, match=option):
        crowd.add(**{"position": (0.0, 0.0, 0.0), option: bad})
    assert len(crowd) == 0


def test_agents_as_large_and_fast_as_max_extent_fly_to_finite_states():
    """Agents of radius and top speed MAX_EXTENT, on one point and far apart, flying at
    1e300, keep finite velocities within their top speeds, step after step."""
    crowd = FlightCrowd(neighbour_dist=MAX_EXTENT)
    for p, v in (((0.0, 0.0, 0.0), (1e300, 0.0, 0.0)), ((0.0, 0.0, 0.0), (-1e300, 0.0, 0.0)),
                 ((MAX_EXTENT, 0.0, -MAX_EXTENT), (0.0, 1e300, 0.0))):
        crowd.add(p, goal=(-MAX_EXTENT, MAX_EXTENT, 0.0), velocity=v, radius=MAX_EXTENT,
                  max_speed=MAX_EXTENT)
    for _ in range(5):
        crowd.step(0.1)
        assert np.isfinite(crowd.position).all()
        assert (np.linalg.norm(crowd.velocity, axis=1) <= MAX_EXTENT * (1 + 1e-12)).all()


@pytest.mark.parametrize("far", [1e100, 1e200, 1e300])
@pytest.mark.parametrize("dt", [None, 0.1, 5e-324])
def test_far_targets_are_sought_at_top_speed_however_far(far, dt):
    """Targets so far that the squares of their offsets overflow, and steps or slowing
    distances so short that a distance over them does, still give top speed straight at
    the target (no zero velocity, no floating-point warning)."""
    direction = np.array([[1.0, -2.0, 2.0], [0.0, 0.0, -1.0]])
    target = direction * far
    want = direction / np.linalg.norm(direction, axis=1)[:, None] * 2.0
    pos, vel = np.zeros((2, 3)), np.zeros((2, 3))
    np.testing.assert_allclose(seek3(pos, vel, target, 2.0), want, rtol=1e-12)
    np.testing.assert_allclose(arrive3(pos, vel, target, 2.0, slowing=5e-324, dt=dt), want,
                               rtol=1e-12)


@pytest.mark.parametrize("world", [None, "voxels"])
def test_a_move_beyond_max_extent_is_refused_and_changes_nothing(world):
    grid = VoxelGrid(np.zeros((4, 4, 4), bool)) if world else None
    crowd = FlightCrowd(world=grid)
    crowd.add((1.5, 1.5, 1.5))
    with pytest.raises(InvalidQueryError, match="beyond"):
        crowd.move([(1e300, 0.0, 0.0)], 1e10)                # overflows
    if world is None:
        with pytest.raises(InvalidQueryError, match="beyond"):
            crowd.move([(0.0, -1e140, 0.0)], 1e11)
    else:
        crowd.move([(0.0, -1e140, 0.0)], 1e11)               # the grid's edge stops it
        assert crowd.position[0, 1] > 0.0
    assert crowd.position[0].tolist()[::2] == [1.5, 1.5]


@pytest.mark.parametrize("gap", [1e-170, 1e-250, 1e-290])
def test_neighbours_a_hair_apart_push_as_those_near_do(gap):
    """Neighbours so near that their squared distances underflow push as those a little
    further do (the same directions, at top speed), not as if they sat exactly on the
    agent."""
    rng = np.random.default_rng(4)
    shape = rng.uniform(-1, 1, (6, 3))
    near = separation3(shape * 1e-3, np.zeros((6, 3)), 2.0, distance=1.0)
    np.testing.assert_allclose(
        separation3(shape * gap, np.zeros((6, 3)), 2.0, distance=1.0), near, rtol=1e-12)
    assert (np.linalg.norm(near, axis=1) == pytest.approx(2.0))
