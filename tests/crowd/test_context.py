"""Context steering against the chapter's scenarios and against plain loop oracles: the
Fig. 14.1 layout (the clear target wins where a weighted sum stalls), max-combine, masking
by the least danger, sub-slot refinement (a brute-force parabola fit), behaviours'
independence of order, temporal blending against flip-flopping, wrap-aware blur, the
writers' shapes, reachable slots against a walk, a crowd reaching its goals round
obstacles, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.crowd import Crowd, flee, seek, weighted_sum
from wayfinding.crowd.context import (
    ContextMap,
    TemporalBlend,
    avoid,
    blur,
    chase,
    choose,
    combine,
    decide,
    desired_velocity,
    mask_min_danger,
    mask_reachable,
    splat_linear,
    splat_pyramid,
    splat_skirt,
    steer,
)
from wayfinding.crowd.racing import Cars, avoid_cars, decide_racing, drafting, racing_line

SEEDS = st.integers(0, 2**32 - 1)


def gap(a, b):
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi)


# --------------------------------------------------------------------------- the chapter


@pytest.mark.parametrize("slots", [8, 12, 16, 24, 36, 64])
def test_fig_14_1_heads_for_the_clear_target_where_a_weighted_sum_stalls(slots):
    a, b, obstacle = (0.0, -4.0), (-12.0, 0.0), (0.0, -2.0)
    crowd = Crowd()
    crowd.add((0.0, 0.0), max_speed=2.0)
    cmap = ContextMap(slots)
    interest = chase(cmap, crowd.position, [a, b])
    danger = avoid(cmap, crowd.position, [obstacle], clearance=1.0, min_distance=3.0)
    south, west = (int(np.rint(cmap.slot_of(h))) for h in (-math.pi / 2, math.pi))
    assert interest[0, south] > interest[0, west]                  # chase prefers A
    choice = decide(cmap, interest, danger)
    heading = float(cmap.heading(choice.slot)[0])
    assert choice.index[0] == slots // 2                           # B's slot: west
    assert gap(heading, math.pi) <= math.pi / slots + 1e-12         # within half a slot
    velocity = crowd.velocity + steer(crowd, cmap, interest, danger)
    assert np.hypot(*velocity[0]) > 0.5
    # Seek A plus flee the obstacle: the two cancel and the agent stalls.
    summed = weighted_sum((1.0, seek(crowd, a)), (1.0, flee(crowd, obstacle)))
    assert np.hypot(*(crowd.velocity + summed)[0]) < 1e-9


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.sampled_from([0.0, 0.3]))
def test_two_obstacles_on_one_heading_give_the_nearer_s_danger(seed, skirt):
    rng = np.random.default_rng(seed)
    cmap = ContextMap(int(rng.integers(3, 40)))
    theta = rng.uniform(-math.pi, math.pi)
    d1 = rng.uniform(0.5, 4.0)
    clearance = rng.uniform(0.1, 0.9 * d1)
    d2 = rng.uniform(d1 + 0.1, 5.0)
    unit = np.array([math.cos(theta), math.sin(theta)])
    kw = {"clearance": clearance, "min_distance": 5.5, "skirt": skirt}
    here = np.zeros((1, 2))
    both = avoid(cmap, here, [d2 * unit, d1 * unit], **kw)
    nearer = avoid(cmap, here, [d1 * unit], **kw)
    farther = avoid(cmap, here, [d2 * unit], **kw)
    np.testing.assert_array_equal(both, nearer)
    assert (farther <= nearer).all() and nearer.max() > farther.max()


@settings(max_examples=100, deadline=None)
@given(SEEDS, st.integers(3, 40))
def test_masking_never_chooses_a_slot_above_the_least_danger(seed, slots):
    rng = np.random.default_rng(seed)
    n = 5
    danger = rng.choice([0.0, 0.0, 0.2, 0.5, 1.0], (n, slots)) * rng.uniform(0.5, 1, (n, slots))
    danger[rng.random(n) < 0.5, :] += 0.1                          # some with no zero slot
    interest = rng.uniform(0, 1, (n, slots)) * (rng.random((n, slots)) < 0.7)
    cmap = ContextMap(slots)
    choice = decide(cmap, interest, danger)
    chosen = danger[np.arange(n), choice.index]
    assert (chosen == danger.min(axis=1)).all()
    assert (chosen[(danger == 0).any(axis=1)] == 0).all()
    # Among the slots at the least danger, none has more interest than the chosen one.
    best = np.where(danger == danger.min(1, keepdims=True), interest, -1).max(1)
    assert (choice.interest == best).all()


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_the_chosen_heading_never_enters_an_exclusion_zone(seed):
    """Whenever some heading is clear, the sub-slot heading stays out of every cone."""
    rng = np.random.default_rng(seed)
    cmap = ContextMap(int(rng.integers(6, 48)))
    n, k = 6, int(rng.integers(1, 5))
    here = rng.uniform(-5, 5, (n, 2))
    obstacles = here[:, None, :] + rng.uniform(-4, 4, (n, k, 2))
    clearance = rng.uniform(0.3, 1.5, (n, k))
    targets = rng.uniform(-10, 10, (n, 3, 2))
    danger = avoid(cmap, here, obstacles, clearance=clearance, min_distance=5.0)
    choice = decide(cmap, chase(cmap, here, targets, reach=math.pi), danger)
    heading = cmap.heading(choice.slot)
    to = obstacles - here[:, None, :]
    dist = np.hypot(to[..., 0], to[..., 1])
    for i in np.flatnonzero((danger == 0).any(axis=1)):
        for j in np.flatnonzero(dist[i] < 5.0):
            cone = math.asin(min(1.0, clearance[i, j] / dist[i, j]))
            assert gap(heading[i], math.atan2(to[i, j, 1], to[i, j, 0])) > cone


@pytest.mark.parametrize("slots", [3, 8, 17])
@pytest.mark.parametrize("lateral", [False, True])
def test_symmetric_neighbours_give_the_exact_slot(slots, lateral):
    cmap = ContextMap(slots, lateral=lateral)
    interest = np.zeros((slots, slots))
    for i in range(slots):
        interest[i] = 0.1
        interest[i, i] = 0.9
        interest[i, (i - 1) % slots] = interest[i, (i + 1) % slots] = 0.4
    choice = choose(cmap, interest, np.ones_like(interest, dtype=bool))
    assert choice.index.tolist() == list(range(slots))
    assert choice.slot.tolist() == list(range(slots))
    if not lateral:
        np.testing.assert_allclose(cmap.heading(choice.slot), cmap.headings())


def test_asymmetric_neighbours_move_towards_the_higher_one():
    cmap = ContextMap(8)
    interest = np.array([[0.0, 0.2, 1.0, 0.6, 0, 0, 0, 0],
                         [0.0, 0.6, 1.0, 0.2, 0, 0, 0, 0],
                         [0.9, 0.0, 0.0, 0.0, 0, 0, 0, 1.0]])   # wraps: 7's neighbour is 0
    choice = choose(cmap, interest, np.ones_like(interest, dtype=bool))
    shift = (choice.slot - choice.index + 4) % 8 - 4
    assert choice.index.tolist() == [2, 2, 7]
    assert 0 < shift[0] <= 0.5 and -0.5 <= shift[1] < 0 and 0 < shift[2] <= 0.5
    assert shift[0] == pytest.approx(-shift[1])


def parabola_vertex(a, b, c):
    """Brute force: fit y = p x^2 + q x + r through (-1, a), (0, b), (1, c)."""
    p, q, _ = np.polyfit([-1.0, 0.0, 1.0], [a, b, c], 2)
    if abs(p) < 1e-12:
        return 0.0
    return float(np.clip(-q / (2 * p), -0.5, 0.5))


@settings(max_examples=100, deadline=None)
@given(SEEDS, st.integers(3, 30), st.booleans())
def test_sub_slot_equals_a_brute_force_parabola_fit(seed, slots, lateral):
    rng = np.random.default_rng(seed)
    cmap = ContextMap(slots, lateral=lateral)
    interest = rng.uniform(0, 1, (8, slots)) * (rng.random((8, slots)) < 0.8)
    allowed = rng.random((8, slots)) < 0.7
    allowed[:, rng.integers(0, slots)] = True
    choice = choose(cmap, interest, allowed)
    masked = np.where(allowed, interest, 0.0)
    for row in range(8):
        i = int(choice.index[row])
        assert allowed[row, i]
        assert masked[row, i] == masked[row][allowed[row]].max()
        if lateral and i in (0, slots - 1):
            expect = 0.0
        else:
            a, c = masked[row, (i - 1) % slots], masked[row, (i + 1) % slots]
            expect = parabola_vertex(a, masked[row, i], c)
        shift = (choice.slot[row] - i + slots / 2) % slots - slots / 2
        assert shift == pytest.approx(expect, abs=1e-9)


@settings(max_examples=50, deadline=None)
@given(SEEDS)
def test_behaviours_do_not_depend_on_the_order_of_targets_obstacles_or_maps(seed):
    rng = np.random.default_rng(seed)
    cmap = ContextMap(int(rng.integers(3, 33)))
    n, k = 4, int(rng.integers(1, 7))
    here = rng.uniform(-3, 3, (n, 2))
    things = rng.uniform(-6, 6, (n, k, 2))
    valid = rng.random((n, k)) < 0.8
    clearance = rng.uniform(0.2, 1.0, (n, k))
    order = rng.permutation(k)
    i1 = chase(cmap, here, things, valid=valid)
    i2 = chase(cmap, here, things[:, order], valid=valid[:, order])
    d1 = avoid(cmap, here, things, valid=valid, clearance=clearance, min_distance=4.0)
    d2 = avoid(cmap, here, things[:, order], valid=valid[:, order],
               clearance=clearance[:, order], min_distance=4.0)
    np.testing.assert_array_equal(i1, i2)
    np.testing.assert_array_equal(d1, d2)
    extra = rng.uniform(0, 1, (n, cmap.slots))
    np.testing.assert_array_equal(combine(i1, extra, d1), combine(d1, i1, extra))
    c1, c2 = decide(cmap, combine(i1, extra), d1), decide(cmap, combine(extra, i2), d2)
    np.testing.assert_array_equal(c1.slot, c2.slot)


def alternate(weight):
    """An agent between two equally near targets that appear on alternate frames: the
    chosen slot on each frame, and where it ends."""
    cmap = ContextMap(16)
    crowd = Crowd()
    crowd.add((0.0, 0.0), max_speed=1.0)
    blend = TemporalBlend(weight=weight) if weight else None
    frames = [np.array([[5.0, 0.0]]), np.array([[-5.0, 0.0]])]
    picks = []
    for f in range(60):
        interest = chase(cmap, crowd.position, frames[f % 2], distance_scale=2.0)
        if blend is not None:
            interest = blend(crowd.ids, interest)
        danger = cmap.zeros(1)
        picks.append(int(decide(cmap, interest, danger).index[0]))
        crowd.step(0.1, velocity=crowd.velocity + steer(crowd, cmap, interest, danger, gain=4.0))
    return picks, crowd.position[0]


def test_temporal_blending_stops_the_flip_flop():
    picks, where = alternate(0.0)
    assert all(p != q for p, q in zip(picks, picks[1:]))           # flips every frame
    assert np.hypot(*where) < 0.5                                   # and goes nowhere
    picks, where = alternate(0.8)
    flips = sum(p != q for p, q in zip(picks, picks[1:]))
    assert flips == 0 and set(picks) == {0}
    assert np.hypot(*(where - (5.0, 0.0))) < 0.5                    # commits to a target


def test_temporal_blend_matches_rows_by_agent_id():
    blend = TemporalBlend(weight=0.25)
    first = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    out = blend([3, 5], first)
    np.testing.assert_array_equal(out, first)                        # nothing to blend yet
    second = np.array([[0, 0, 1.0], [0, 0, 1.0]])
    out = blend([7, 5], second)                                      # 7 new, 5 known
    np.testing.assert_allclose(out, [[0, 0, 1.0], [0, 0.25, 0.75]])
    out = blend([3, 5], second)                                      # 3 forgotten meanwhile
    np.testing.assert_allclose(out, [[0, 0, 1.0], [0, 0.0625, 0.9375]])
    out = blend([5], np.ones((1, 4)))                                # new resolution: afresh
    np.testing.assert_array_equal(out, np.ones((1, 4)))


def blur_loop(values, amount, wrap):
    out = np.empty_like(values)
    slots = values.shape[1]
    for r in range(len(values)):
        for i in range(slots):
            if wrap:
                left, right = values[r, (i - 1) % slots], values[r, (i + 1) % slots]
            else:
                left, right = values[r, max(i - 1, 0)], values[r, min(i + 1, slots - 1)]
            out[r, i] = (1 - 2 * amount) * values[r, i] + amount * (left + right)
    return out


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.integers(3, 20), st.booleans(), st.floats(0, 0.5))
def test_blur_equals_a_loop_and_wraps_only_on_heading_maps(seed, slots, lateral, amount):
    rng = np.random.default_rng(seed)
    cmap = ContextMap(slots, lateral=lateral)
    values = rng.uniform(0, 1, (3, slots))
    np.testing.assert_allclose(blur(cmap, values, amount=amount), blur_loop(values, amount,
                                                                     not lateral))
    twice = blur(cmap, values, amount=amount, passes=2)
    np.testing.assert_allclose(twice, blur_loop(blur_loop(values, amount, not lateral),
                                                amount, not lateral))
    if not lateral:                                   # shifting the map shifts the blur
        np.testing.assert_allclose(blur(cmap, np.roll(values, 3, 1), amount=amount),
                                   np.roll(blur(cmap, values, amount=amount), 3, 1))


def test_blur_spreads_a_spike_round_the_wrap():
    spike = np.zeros((1, 8))
    spike[0, 0] = 1.0
    np.testing.assert_allclose(blur(ContextMap(8), spike)[0], [0.5, 0.25, 0, 0, 0, 0, 0, 0.25])
    np.testing.assert_allclose(blur(ContextMap(8, lateral=True), spike)[0],
                               [0.75, 0.25, 0, 0, 0, 0, 0, 0])


# --------------------------------------------------------------------------- writers


def tent(d, value, plateau, reach):
    if d <= plateau:
        return value
    if reach == 0:
        return 0.0
    return value * max(0.0, 1 - (d - plateau) / reach)


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.integers(3, 30), st.booleans())
def test_writers_equal_a_slot_by_slot_loop(seed, slots, lateral):
    rng = np.random.default_rng(seed)
    cmap = ContextMap(slots, lateral=lateral)
    n, k = 3, 4
    width = rng.uniform(5, 15, n)
    if lateral:
        at = rng.uniform(-8, 8, (n, k))
        where = [[(i / (slots - 1) - 0.5) * w for i in range(slots)] for w in width]
        spacing = width / (slots - 1)
        kw = {"track_width": width}
    else:
        at = rng.uniform(-7, 7, (n, k))
        where = [[2 * math.pi * i / slots for i in range(slots)]] * n
        spacing = np.full(n, 2 * math.pi / slots)
        kw = {}
    value, reach, plateau = (rng.uniform(0, 1, (n, k)), rng.uniform(0, 3, (n, k)),
                             rng.uniform(0, 2, (n, k)))
    valid = rng.random((n, k)) < 0.8
    dist = (lambda x, y: abs(x - y)) if lateral else gap
    got = {"linear": splat_linear(cmap, at, value, reach, valid=valid, **kw),
           "pyramid": splat_pyramid(cmap, at, value, reach, valid=valid, **kw),
           "skirt": splat_skirt(cmap, at, value, plateau, reach, valid=valid, **kw)}
    for shape, out in got.items():
        for r in range(n):
            for i in range(slots):
                best = 0.0
                for j in np.flatnonzero(valid[r]):
                    centre = at[r, j]
                    if shape == "pyramid":      # the nearest slot's position
                        near = min(range(slots), key=lambda s: (dist(where[r][s], centre), s))
                        centre = where[r][near]
                        if not lateral or abs(at[r, j]) <= width[r] / 2:
                            assert dist(centre, at[r, j]) <= spacing[r] / 2 + 1e-9
                    best = max(best, tent(dist(where[r][i], centre), value[r, j],
                                          plateau[r, j] if shape == "skirt" else 0.0,
                                          reach[r, j]))
                assert out[r, i] == pytest.approx(best, abs=1e-9), (shape, r, i)


def test_writers_combine_into_a_map_by_max():
    cmap = ContextMap(4)
    into = np.array([[0.5, 0.5, 0.5, 0.5]])
    out = splat_linear(cmap, [0.0], 1.0, math.pi / 2, into=into)
    assert out is into
    np.testing.assert_allclose(into, [[1.0, 0.5, 0.5, 0.5]])
    splat_pyramid(cmap, [math.pi + 0.1], 0.2, 1.0, into=into)       # lower: changes nothing
    np.testing.assert_allclose(into, [[1.0, 0.5, 0.5, 0.5]])


def test_chase_and_avoid_write_what_the_chapter_says():
    cmap = ContextMap(36)                                            # 10 degrees a slot
    here = np.zeros((1, 2))
    interest = chase(cmap, here, [(2.0, 0.0), (0.0, 8.0), (0.0, 0.0)], distance_scale=4.0,
                     reach=math.radians(30))
    assert interest[0, 0] == pytest.approx(1 / 1.5) and interest[0, 9] == pytest.approx(1 / 3)
    assert interest[0, 1] == pytest.approx(2 / 3 * 2 / 3)            # falloff 10 of 30 deg
    assert interest[0, 3] == pytest.approx(0, abs=1e-12) and interest[0, 4] == 0
    assert interest[0, 13:33].max() == 0                             # (0, 0) writes nothing
    obstacles = [(2.0, 0.0), (0.0, -1.5), (-6.0, 0.0)]
    danger = avoid(cmap, here, obstacles, clearance=1.0, min_distance=4.0)
    # (2, 0): asin(1/2) = 30 deg, plus half a slot -> slots within 35 deg: 0, +-1, +-2, +-3.
    assert (danger[0, [33, 34, 35, 0, 1, 2, 3]] == 0.5).all() and danger[0, 4] == 0
    # (0, -1.5): asin(2/3) = 41.8 deg + 5 -> slots 27 +- 4; closer, so more dangerous.
    assert danger[0, 27] == pytest.approx(1 - 1.5 / 4) and danger[0, 23] > 0
    assert danger[0, 22] == 0
    assert danger[0, 18] == 0                                        # (-6, 0): too far


def test_slots_and_headings_and_offsets_convert_both_ways():
    cmap = ContextMap(8)
    assert cmap.wraps and cmap.heading(8.5) == pytest.approx(math.pi / 8)
    assert cmap.slot_of(-math.pi / 2) == pytest.approx(6.0)
    np.testing.assert_allclose(cmap.slot_of(cmap.heading([0.25, 3.5, 7.9])), [0.25, 3.5, 7.9])
    track = ContextMap(5, lateral=True)
    assert not track.wraps
    np.testing.assert_allclose(track.offsets([8.0, 4.0]), [[-4, -2, 0, 2, 4], [-2, -1, 0, 1, 2]])
    np.testing.assert_allclose(track.slot_of_offset([1.0, -9.0, 9.0], 8.0), [2.5, 0, 4])
    np.testing.assert_allclose(track.offset([2.5, 0.0], [8.0, 4.0]), [1.0, -2.0])


def walk(danger, start):
    """Brute force: walk each way while the next slot's danger is not higher."""
    ok = np.zeros(len(danger), dtype=bool)
    ok[start] = True
    for step in (-1, 1):
        i = start
        while 0 <= i + step < len(danger) and danger[i + step] <= danger[i]:
            i += step
            ok[i] = True
    return ok


@settings(max_examples=100, deadline=None)
@given(SEEDS, st.integers(3, 25))
def test_reachable_slots_equal_a_walk(seed, slots):
    rng = np.random.default_rng(seed)
    danger = rng.choice([0.0, 0.3, 0.6, 1.0], (6, slots))          # ties are common
    start = rng.integers(0, slots, 6)
    got = mask_reachable(danger, start)
    for r in range(6):
        assert got[r].tolist() == walk(danger[r], start[r]).tolist()
    assert mask_reachable(np.zeros((1, slots)), [0]).all()          # "not higher": all open


# --------------------------------------------------------------------------- a crowd


def test_a_crowd_reaches_its_goals_round_obstacles():
    cmap = ContextMap(24)
    crowd = Crowd()
    goals = np.array([(10, -3), (10, 0), (10, 3), (0, 1.5)], dtype=float)
    for start in [(0, -3), (0, 0), (0, 3), (10, 1.5)]:
        crowd.add(start, max_speed=1.5, max_accel=6.0, radius=0.3)
    obstacles, radius = np.array([(5.0, -3.0), (5.0, 3.0)]), 1.0
    n = len(crowd)
    others = ~np.eye(n, dtype=bool)
    nearest = np.full(n, np.inf)
    for _ in range(600):
        p = crowd.position
        interest = chase(cmap, p, goals[:, None, :], distance_scale=5.0)
        danger = combine(
            avoid(cmap, p, obstacles, clearance=radius + 0.4, min_distance=3.0),
            avoid(cmap, p, np.broadcast_to(p, (n, n, 2)), valid=others, clearance=0.7,
                  min_distance=1.5))
        crowd.step(0.05, velocity=crowd.velocity + steer(crowd, cmap, interest, danger, gain=4.0))
        p = crowd.position
        nearest = np.minimum(nearest, np.hypot(*(p - goals).T))
        to_obstacles = np.hypot(*(p[:, None] - obstacles[None]).transpose(2, 0, 1))
        assert to_obstacles.min() > radius + 0.3                     # never inside one
        apart = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))[others]
        assert apart.min() > 0.6                                     # nor inside each other
    assert (nearest < 0.1).all()
    # The same crowd steered straight at the goals walks into the obstacles.
    straight = Crowd()
    straight.add((0, -3), goal=(10, -3), max_speed=1.5, radius=0.3)
    hits = 0
    for _ in range(200):
        straight.step(0.05)
        hits += np.hypot(*(straight.position[0] - obstacles[0])) < radius + 0.3
    assert hits > 0


def test_desired_velocity_speed_follows_interest_up_to_max_speed():
    cmap = ContextMap(4)
    interest = np.array([[0.5, 0, 0, 0], [0, 2.0, 0, 0]])
    choice = choose(cmap, interest, np.ones((2, 4), dtype=bool))
    v = desired_velocity(cmap, choice, max_speed=[2.0, 3.0])
    np.testing.assert_allclose(v, [[1.0, 0.0], [0.0, 3.0]], atol=1e-12)
    v = desired_velocity(cmap, choice, max_speed=10.0, gain=1.0)
    np.testing.assert_allclose(v, [[0.5, 0.0], [0.0, 2.0]], atol=1e-12)


# --------------------------------------------------------------------------- bad input


HERE = np.zeros((1, 2))
M8 = ContextMap(8)
LAT = ContextMap(8, lateral=True)
CARS = Cars(along=[0.0], offset=[0.0], speed=[1.0], racing_speed=2.0)


@pytest.mark.parametrize("call, match", [
    (lambda: ContextMap(2), "slots 2"),
    (lambda: ContextMap(8.0), "slots 8.0"),
    (lambda: ContextMap(8, lateral=1), "lateral 1"),
    (lambda: M8.check(np.full((1, 8), np.nan)), "finite"),
    (lambda: M8.check(np.zeros((1, 7))), r"\(n, 8\)"),
    (lambda: M8.check(-np.ones((1, 8))), ">= 0"),
    (lambda: M8.offsets(10.0), "headings"),
    (lambda: LAT.headings(), "lateral"),
    (lambda: LAT.offsets([10.0, -1.0]), "track_width"),
    (lambda: LAT.slot_of_offset(1.0, 0.0), "track_width 0.0"),
    (lambda: LAT.offset([1.0, 2.0], [3.0, 4.0, 5.0]), "track_width"),
    (lambda: splat_linear(M8, [0.0], 1.0, -0.5), "reach"),
    (lambda: splat_linear(M8, [0.0], -1.0, 0.5), "value"),
    (lambda: splat_linear(M8, [np.nan], 1.0, 0.5), "at"),
    (lambda: splat_linear(M8, [0.0], 1.0, 0.5, track_width=3.0), "track_width"),
    (lambda: splat_skirt(M8, [0.0], 1.0, -1.0, 0.5), "plateau"),
    (lambda: splat_linear(M8, [0.0], 1.0, 0.5, into=np.zeros((2, 8))), "into"),
    (lambda: splat_linear(M8, [0.0], 1.0, 0.5, into=[[0.0] * 8]), "into"),
    (lambda: splat_linear(M8, [0.0], 1.0, 0.5, valid=[1]), "valid"),
    (lambda: chase(M8, HERE, [(1.0, 2.0, 3.0)]), "targets"),
    (lambda: chase(M8, HERE, [(1.0, math.nan)]), "targets"),
    (lambda: chase(M8, HERE, [(1.0, 2.0)], reach=4.0), "reach 4.0"),
    (lambda: chase(M8, [1.0, 2.0], [(1.0, 2.0)]), "position"),
    (lambda: chase(LAT, HERE, [(1.0, 2.0)]), "lateral"),
    (lambda: avoid(M8, HERE, [(1.0, 2.0)], clearance=0.0, min_distance=2.0), "clearance"),
    (lambda: avoid(M8, HERE, [(1.0, 2.0)], clearance=1.0, min_distance=0), "min_distance 0"),
    (lambda: avoid(M8, HERE, [(1.0, 2.0)], clearance=[1, 2, 3], min_distance=2), "clearance"),
    (lambda: combine(), "at least one"),
    (lambda: combine(np.zeros((1, 8)), np.zeros((1, 9))), "one shape"),
    (lambda: blur(M8, np.zeros((1, 8)), amount=0.6), "amount 0.6"),
    (lambda: blur(M8, np.zeros((1, 8)), passes=-1), "passes -1"),
    (lambda: TemporalBlend(weight=1.0), "weight 1.0"),
    (lambda: TemporalBlend(weight=-0.1), "weight -0.1"),
    (lambda: TemporalBlend()([1, 1], np.zeros((2, 8))), "distinct"),
    (lambda: TemporalBlend()([1.5], np.zeros((1, 8))), "ids"),
    (lambda: mask_min_danger(np.zeros((1, 8)), tolerance=math.nan), "tolerance nan"),
    (lambda: mask_reachable(np.zeros((1, 8)), [8]), "start"),
    (lambda: choose(M8, np.zeros((1, 8)), np.zeros((1, 8), dtype=bool)), "allowed slot"),
    (lambda: choose(M8, np.zeros((1, 8)), np.ones((1, 8))), "bool"),
    (lambda: decide(M8, np.zeros((2, 8)), np.zeros((1, 8))), r"\(1, 8\)"),
    (lambda: desired_velocity(M8, choose(M8, np.zeros((1, 8)), np.ones((1, 8), dtype=bool)),
                              max_speed=-1.0), "max_speed"),
    (lambda: Cars(along=[0.0, 1.0], offset=[0.0], speed=1.0, racing_speed=2.0), "offset"),
    (lambda: Cars(along=[0.0], offset=[0.0], speed=1.0, racing_speed=0.0), "racing_speed"),
    (lambda: Cars(along=[0.0], offset=[0.0], speed=1.0, racing_speed=1.0, width=-2),
     "width"),
    (lambda: Cars(along=[[0.0]], offset=[0.0], speed=1.0, racing_speed=1.0), "along"),
    (lambda: racing_line(LAT, CARS, peak=0.1, floor=0.2), "floor 0.2"),
    (lambda: racing_line(LAT, CARS, floor=0.0), "floor 0.0"),
    (lambda: avoid_cars(LAT, CARS, slow_fraction=1.0), "slow_fraction"),
    (lambda: avoid_cars(LAT, CARS, skirt=[1.0, 2.0]), "skirt"),
    (lambda: drafting(LAT, CARS, max_gap=0), "max_gap 0"),
    (lambda: decide_racing(LAT, CARS, np.zeros((1, 8)), np.zeros((1, 8)),
                           brake_threshold=-1), "brake_threshold"),
    (lambda: decide_racing(M8, CARS, np.zeros((1, 8)), np.zeros((1, 8))), "heading map"),
])
def test_bad_input_is_refused_with_a_message_naming_it(call, match):
    with pytest.raises(InvalidQueryError, match=match):
        call()
