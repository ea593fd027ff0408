"""Continuum crowds and the hybrid vector field: the paper's worked costs, splatting, the
anisotropic speed and cost maps against their formulas, the potential against fast marching
in free space and against a slower crowd, the velocity field, the hybrid plan's region and
destination point."""

from __future__ import annotations

import heapq

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wayfinding import Grid, InvalidQueryError
from wayfinding.fields import eikonal_field
from wayfinding.fields.continuum import ContinuumField, ContinuumParams, HybridPlanner
from wayfinding.fields.scenes import scene, simulate, simulate_scene
from wayfinding.grid.generate import random_obstacles

DIRS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1)])


def test_the_papers_worked_costs():
    p = ContinuumParams()
    assert (p.alpha, p.beta) == (0.1, 0.9)
    assert p.cost_at(1.0) == 1.0 and p.cost_at(0.2) == 4.6


def test_splatting_density_and_velocity():
    field = ContinuumField(Grid(np.ones((9, 9), dtype=bool)), params=ContinuumParams(radius=2.0))
    field.update([(4.0, 4.0), (5.0, 4.0)], [(1.0, 0.0), (0.0, 1.0)], [(0, 0)])
    d = field.density
    assert d[4, 4] == pytest.approx(1.0 + 0.5) and d[4, 5] == pytest.approx(1.5)
    assert d[4, 6] == pytest.approx(0.0 + 0.5) and d[4, 2] == 0.0
    assert d[5, 4] == pytest.approx(0.5 + 1 - np.sqrt(2) / 2)
    v = field.velocity
    np.testing.assert_allclose(v[4, 4], [1 / 1.5, 0.5 / 1.5])      # density-weighted mean
    np.testing.assert_allclose(v[4, 6], [0.0, 1.0])
    assert not v[0, 0].any()


def test_speed_and_cost_follow_their_formulas():
    rng = np.random.default_rng(2)
    free = rng.random((20, 24)) > 0.1
    grid = Grid(free)
    prm = ContinuumParams(offset=2)
    field = ContinuumField(grid, params=prm)
    ys, xs = np.nonzero(free)
    pick = rng.choice(len(xs), 120)
    field.update(np.stack([xs[pick], ys[pick]], 1) + rng.uniform(-0.4, 0.4, (120, 2)),
                 rng.uniform(-1, 1, (120, 2)), [(int(xs[0]), int(ys[0]))])
    rho, vel = field.density, field.velocity
    h, w = grid.shape
    for y in range(h):
        for x in range(w):
            for k, (dx, dy) in enumerate(DIRS):
                nx, ny = x + dx, y + dy
                if not free[y, x] or not (0 <= nx < w and 0 <= ny < h) or not free[ny, nx]:
                    assert field.cost[k, y, x] == np.inf
                    continue
                tx, ty = np.clip(x + 2 * dx, 0, w - 1), np.clip(y + 2 * dy, 0, h - 1)
                mix = np.clip((rho[ty, tx] - prm.rho_min) / (prm.rho_max - prm.rho_min), 0, 1)
                flow = np.clip(vel[ty, tx] @ (dx, dy), 0, 1)
                speed = max(1 + mix * (flow - 1), prm.min_speed)
                assert field.speed[k, y, x] == pytest.approx(speed)
                assert field.cost[k, y, x] == pytest.approx(prm.alpha + prm.beta / speed)


def test_the_potential_is_fast_marching_in_free_space():
    grid = Grid.from_ascii("""
        ..............
        ..............
        ....####......
        ..............
        ..............""")
    field = ContinuumField(grid)
    field.update([], [], [(13, 2)])
    np.testing.assert_allclose(field.potential, eikonal_field(grid, [(13, 2)], order=1))
    speed = np.hypot(field.vectors[..., 0], field.vectors[..., 1])
    assert (speed <= 1 + 1e-12).all() and field.vectors[2, 1, 0] > 0.5   # towards the goal
    # Away from walls and the crowd every velocity is a unit vector down the potential
    # (beside a wall the part heading into it is dropped: no speed that way).
    open_field = ContinuumField(Grid(np.ones((12, 15), dtype=bool)))
    open_field.update([], [], [(13, 2)])
    v, pot = open_field.vectors, open_field.potential
    inner = np.zeros(pot.shape, dtype=bool)
    inner[1:-1, 1:-1] = True
    moving = inner & (pot > 0)
    np.testing.assert_allclose(np.hypot(v[..., 0], v[..., 1])[moving], 1.0)
    ahead = pot[2, 5] - pot[2, 6]
    assert v[2, 5, 0] == pytest.approx(1.0) and ahead > 0


def test_a_crowd_walking_against_you_costs_more_than_one_walking_with_you():
    grid = Grid(np.ones((9, 30), dtype=bool))
    ys, xs = np.mgrid[2:7, 10:20]
    crowd = np.stack([xs.ravel(), ys.ravel()], 1).astype(float)
    against = ContinuumField(grid)
    against.update(crowd, np.tile([1.0, 0.0], (len(crowd), 1)), [(0, 4)])   # moving +x
    along = ContinuumField(grid)
    along.update(crowd, np.tile([-1.0, 0.0], (len(crowd), 1)), [(0, 4)])
    free = ContinuumField(grid)
    free.update([], [], [(0, 4)])
    # Heading -x to the goal: the crowd moving +x slows that way, one moving -x does not.
    assert against.cost[1, 4, 15] > 4.0 and along.cost[1, 4, 15] == pytest.approx(1.0)
    assert against.potential[4, 29] > along.potential[4, 29] + 1   # round the crowd
    assert (along.cost[1][:, 1:] == 1.0).all()    # the -x way is free with them (not into the edge)
    assert along.potential[4, 29] < free.potential[4, 29] + 1
    # Coming up behind the oncoming crowd the field steers round it, above or below.
    assert against.vectors[3, 22, 1] < -0.5 and against.vectors[5, 22, 1] > 0.5
    assert (against.vectors[[3, 5], 22, 0] < -0.5).all()


def reference_potential(cost: np.ndarray, goals) -> np.ndarray:
    """A plain fast march (heapq, lazy deletion) of the continuum potential over ``cost``
    ``(4, H, W)``: per axis the frozen neighbour with the lower P + C, the quadratic root
    when it is upwind of both entries, else the cheaper single axis."""
    _, h, w = cost.shape
    pot = np.full((h, w), np.inf)
    frozen = np.zeros((h, w), dtype=bool)
    heap = [(0.0, y, x) for x, y in goals]
    for _, y, x in heap:
        pot[y, x] = 0.0

    def value(x, y):
        entry = []
        for axis in ((0, 1), (2, 3)):
            best = (np.inf, np.inf)
            for k in axis:   # leaving (x, y) the way k reaches the neighbour that way
                nx, ny = x + DIRS[k][0], y + DIRS[k][1]
                if 0 <= nx < w and 0 <= ny < h and frozen[ny, nx] \
                        and pot[ny, nx] + cost[k, y, x] < sum(best):
                    best = (pot[ny, nx], cost[k, y, x])
            entry.append(best)
        (px, cx), (py, cy) = entry
        single = min(px + cx, py + cy)
        if px + cx < np.inf and py + cy < np.inf:
            det = cx * cx + cy * cy - (px - py) ** 2
            if det >= 0:
                root = (cy * cy * px + cx * cx * py + cx * cy * np.sqrt(det)) / (cx * cx + cy * cy)
                if root >= max(px, py):
                    return root
        return single

    while heap:
        p, y, x = heapq.heappop(heap)
        if frozen[y, x] or p > pot[y, x]:
            continue
        frozen[y, x] = True
        for dx, dy in DIRS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < w and 0 <= ny < h and not frozen[ny, nx] \
                    and np.isfinite(cost[:, ny, nx]).any():   # not a wall
                v = value(nx, ny)
                if v < pot[ny, nx]:
                    pot[ny, nx] = v
                    heapq.heappush(heap, (v, ny, nx))
    return pot


def reference_vectors(pot: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """Unit negative central-difference gradients (one-sided beside unreached cells) times
    the speed the way each component points."""
    h, w = pot.shape
    padded = np.pad(pot, 1, constant_values=np.inf)
    out = np.zeros((h, w, 2))
    for y in range(h):
        for x in range(w):
            here = pot[y, x]
            if not np.isfinite(here):
                continue
            near = [padded[y + 1, x], padded[y + 1, x + 2], padded[y, x + 1], padded[y + 2, x + 1]]
            lo_x, hi_x, lo_y, hi_y = (v if np.isfinite(v) else here for v in near)
            g = np.array([lo_x - hi_x, lo_y - hi_y])
            norm = np.hypot(*g)
            if norm == 0:
                continue
            out[y, x, 0] = g[0] / norm * speed[0 if g[0] > 0 else 1, y, x]
            out[y, x, 1] = g[1] / norm * speed[2 if g[1] > 0 else 3, y, x]
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.sampled_from([1, 2]))
def test_the_march_and_velocities_equal_a_plain_reference(seed, goals, offset):
    rng = np.random.default_rng(seed)
    h, w = rng.integers(3, 30, 2)
    free = rng.random((h, w)) > rng.uniform(0, 0.35)
    ys, xs = np.nonzero(free)
    assume(len(xs) > 0)
    n = int(rng.integers(0, len(xs) + 1))
    pick = rng.choice(len(xs), n)
    positions = np.stack([xs[pick], ys[pick]], 1) + rng.uniform(-0.5, 0.5, (n, 2))
    velocities = rng.uniform(-1.5, 1.5, (n, 2))
    targets = [(int(xs[i]), int(ys[i])) for i in rng.choice(len(xs), goals)]
    field = ContinuumField(Grid(free), params=ContinuumParams(offset=offset, min_speed=0.1))
    field.update(positions, velocities, targets)
    helped = ContinuumField(Grid(free), params=ContinuumParams(offset=offset, min_speed=0.1),
                            threads=2)
    helped.update(positions, velocities, targets)
    np.testing.assert_array_equal(helped.potential, field.potential)
    np.testing.assert_array_equal(helped.vectors, field.vectors)
    pot = reference_potential(field.cost, targets)
    np.testing.assert_array_equal(np.isfinite(field.potential), np.isfinite(pot))
    finite = np.isfinite(pot)
    np.testing.assert_allclose(field.potential[finite], pot[finite], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(field.vectors, reference_vectors(field.potential, field.speed),
                               rtol=1e-12, atol=1e-12)


def test_one_thread_and_two_give_the_same_fields():
    rng = np.random.default_rng(5)
    free = rng.random((120, 140)) > 0.2
    ys, xs = np.nonzero(free)
    pick = rng.choice(len(xs), 800)
    positions = np.stack([xs[pick], ys[pick]], 1) + rng.uniform(-0.4, 0.4, (800, 2))
    velocities = rng.uniform(-1, 1, (800, 2))
    goal = [(int(xs[0]), int(ys[0]))]
    one, two = ContinuumField(Grid(free)), ContinuumField(Grid(free), threads=2)
    for _ in range(20):     # the helper's timing varies from run to run
        two.update(positions, velocities, goal)
        one.update(positions, velocities, goal)
        np.testing.assert_array_equal(one.potential, two.potential)
        np.testing.assert_array_equal(one.vectors, two.vectors)
    assert np.isfinite(two.potential).sum() > 0.5 * free.sum()


def test_an_update_leaves_nothing_behind_for_the_next():
    rng = np.random.default_rng(8)
    free = rng.random((40, 50)) > 0.2
    ys, xs = np.nonzero(free)
    field = ContinuumField(Grid(free))
    for _ in range(4):
        pick = rng.choice(len(xs), 150)
        positions = np.stack([xs[pick], ys[pick]], 1) + rng.uniform(-0.4, 0.4, (150, 2))
        velocities = rng.uniform(-1, 1, (150, 2))
        goals = [(int(xs[i]), int(ys[i])) for i in rng.choice(len(xs), 2)]
        field.update(positions, velocities, goals)
        fresh = ContinuumField(Grid(free))
        fresh.update(positions, velocities, goals)
        np.testing.assert_array_equal(field.potential, fresh.potential)
        np.testing.assert_array_equal(field.vectors, fresh.vectors)
        np.testing.assert_array_equal(field.density, fresh.density)


def test_sampling_and_targets():
    grid = Grid(np.ones((10, 10), dtype=bool))
    field = ContinuumField(grid)
    field.update([], [], [(9, 5)])
    np.testing.assert_allclose(field.sample([(3.0, 5.0)])[0], field.vectors[5, 3])
    mid = field.sample([(3.5, 5.0)])[0]
    np.testing.assert_allclose(mid, (field.vectors[5, 3] + field.vectors[5, 4]) / 2)
    # A unit heading up samples 0.75 s ahead.
    np.testing.assert_allclose(field.targets([(3.0, 4.0)], [(0.0, 1.0)]),
                               field.sample([(3.0, 4.75)]))


def test_the_hybrid_plan_stops_its_field_at_the_region():
    grid = Grid.from_ascii("\n".join(["." * 60] * 10 + ["#" * 55 + "....."]
                                     + ["." * 60] * 10))
    planner = HybridPlanner(grid, margin=5)
    units = np.array([[3.0, 3.0], [4.0, 5.0], [6.0, 4.0]])
    plan = planner.plan(units, np.zeros_like(units), (2, 18))
    assert plan.region == (0, 0, 11, 10)
    x0, y0, x1, y1 = plan.region
    assert x0 <= plan.destination[0] <= x1 and y0 <= plan.destination[1] <= y1
    # The long path goes round the wall's end at the right; the destination is where it
    # leaves the region, heading right.
    assert plan.path[:, 0].max() > 50 and plan.destination[0] == x1
    assert (plan.targets(units, np.zeros_like(units))[:, 0] > 0).all()
    near = planner.plan(np.array([[50.0, 8.0]]), np.zeros((1, 2)), (52, 9))
    assert near.destination == (52, 9)   # the goal itself when it is in the region


def test_bad_input():
    grid = Grid(np.ones((4, 4), dtype=bool))
    for bad in ({"alpha": -1}, {"rho_max": 0.1}, {"offset": 0}, {"min_speed": 0},
                {"radius": float("nan")}):
        with pytest.raises(InvalidQueryError):
            ContinuumParams(**bad)
    field = ContinuumField(grid)
    with pytest.raises(InvalidQueryError, match="velocities"):
        field.update([(1.0, 1.0)], [], [(0, 0)])
    with pytest.raises(InvalidQueryError, match="finite"):
        field.update([(np.nan, 1.0)], [(0.0, 0.0)], [(0, 0)])
    with pytest.raises(InvalidQueryError, match="goal"):
        field.update([], [], [])
    with pytest.raises(InvalidQueryError, match="outside"):
        field.update([], [], [(9, 9)])
    with pytest.raises(InvalidQueryError, match="Grid"):
        ContinuumField(np.ones((3, 3)))
    for threads in (0, 3, True, 2.0):
        with pytest.raises(InvalidQueryError, match="threads"):
            ContinuumField(grid, threads=threads)
    with pytest.raises(InvalidQueryError, match="unknown scene"):
        scene("parade")
    with pytest.raises(InvalidQueryError, match="dt"):
        simulate_scene(scene("lanes", units=2), dt=0)
    with pytest.raises(InvalidQueryError, match="at least one unit"):
        HybridPlanner(grid).plan(np.empty((0, 2)), np.empty((0, 2)), (0, 0))


def test_the_old_name_of_simulate_scene_warns_and_runs_the_same():
    sc = scene("lanes", units=2)
    with pytest.warns(DeprecationWarning, match=r"simulate\(\) is deprecated; use simulate_scene"):
        old = simulate(sc, seconds=5.0)
    new = simulate_scene(sc, seconds=5.0)
    assert np.array_equal(old.positions, new.positions, equal_nan=True)


@pytest.mark.parametrize("radius", [1e-300, 0.3, 2.5, 1e10, 1e300])
@pytest.mark.parametrize("threads", [1, 2])
def test_a_splat_of_any_radius_covers_the_cells_within_it(radius, threads):
    field = ContinuumField(Grid(np.ones((6, 7), dtype=bool)),
                           params=ContinuumParams(radius=radius), threads=threads)
    units = np.array([(3.0, 2.0), (-1.5, 4.0), (1e300, 1.0), (6.0, -1e300)])
    field.update(units, np.ones_like(units), [(0, 0)])
    ys, xs = np.mgrid[0:6, 0:7]
    with np.errstate(over="ignore"):
        expected = sum(np.clip(1 - np.hypot(xs - x, ys - y) / radius, 0, None)
                       for x, y in units)
    np.testing.assert_allclose(field.density, expected, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("bad", ["ab", [(True, False)], [(1.0, 2.0, 3.0)], [(1.0, None)]])
def test_units_must_be_pairs_of_numbers(bad):
    field = ContinuumField(Grid(np.ones((4, 5), dtype=bool)))
    with pytest.raises(InvalidQueryError, match="positions"):
        field.update(bad, [(0.0, 0.0)], [(0, 0)])
    with pytest.raises(InvalidQueryError, match="velocities"):
        field.targets([(1.0, 1.0)], bad)
    field.update([], np.empty((0, 2)), [(0, 0)])               # no units at all
    assert field.density.sum() == 0


@pytest.mark.parametrize("unit", [(100.0, 3.0), (3.0, -0.6), (1e300, -1e300)])
def test_a_group_must_stand_on_the_grid(unit):
    planner = HybridPlanner(Grid(np.ones((12, 16), dtype=bool)), margin=2)
    with pytest.raises(InvalidQueryError, match="off the 16x12 grid"):
        planner.plan([(3.0, 3.0), unit], [(0.0, 0.0)] * 2, (15, 11))
    edge = planner.plan([(-0.5, 11.5)], [(0.0, 0.0)], (15, 11))   # on the border's edge
    assert edge.region[:2] == (0, 9)


@pytest.mark.parametrize("scale", [1e160, 1e250, 1e-160, 1e-300])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_potential_scales_with_the_costs_whatever_their_size(scale, threads):
    # Costs beta / speed are linear in beta: so are the potential and its quadratic's root,
    # and the velocities do not change (the squares of costs or potential differences
    # beyond 1e154 or below 1e-162 must not overflow or vanish).
    rng = np.random.default_rng(9)
    grid = Grid(random_obstacles(14, 10, density=0.15, seed=9).costs)
    ys, xs = np.nonzero(grid.passable)
    pick = rng.choice(len(xs), 40)
    units = np.stack([xs[pick], ys[pick]], 1) + rng.uniform(-0.4, 0.4, (40, 2))
    velocities = rng.uniform(-1, 1, (40, 2))
    goal = [(int(xs[-1]), int(ys[-1]))]
    fields = []
    for beta in (1.0, scale):
        field = ContinuumField(grid, params=ContinuumParams(alpha=0.0, beta=beta),
                               threads=threads)
        field.update(units, velocities, goal)
        fields.append(field)
    plain, scaled = fields
    reach = np.isfinite(plain.potential)
    np.testing.assert_array_equal(np.isfinite(scaled.potential), reach)
    np.testing.assert_allclose(scaled.potential[reach] / scale, plain.potential[reach],
                               rtol=1e-12)
    np.testing.assert_allclose(scaled.vectors, plain.vectors, rtol=0, atol=1e-12)
