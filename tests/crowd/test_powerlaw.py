"""The time-to-collision power law: time to collision against a sampled oracle, the force
against a finite-difference gradient of the energy, anticipation (a head-on pair turns
aside long before it is close; a pair that will not meet feels nothing), the force cap,
and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.crowd import Crowd, PowerLaw, time_to_collision
from wayfinding.crowd.anticipation import AnticipatoryForces

coord = st.floats(-8, 8)


@settings(max_examples=200, deadline=None)
@given(coord, coord, coord, coord, st.floats(0.1, 1.0))
def test_time_to_collision_against_sampling(wx, wy, vx, vy, radius):
    w, v = np.array([wx, wy]), np.array([vx, vy])
    tau = float(time_to_collision(w, v, np.array(radius)))
    if np.hypot(wx, wy) <= radius * 1.001:
        return                                          # touching already: not defined
    ts = np.linspace(0, 40, 40001)
    gap = np.hypot(*(w[:, None] - v[:, None] * ts)) - radius
    if abs(gap.min()) < 1e-3:
        return                                          # grazing: either answer is fair
    hit = np.flatnonzero(gap <= 0)
    if not len(hit):
        assert tau == math.inf or tau > 39.99
    else:
        assert tau == pytest.approx(ts[hit[0]], abs=2e-3)


@settings(max_examples=200, deadline=None)
@given(coord, coord, coord, coord, st.floats(0.2, 1.0))
def test_the_force_is_minus_the_energy_gradient(wx, wy, vx, vy, radius):
    law = PowerLaw(max_force=1e9)
    w, v = np.array([wx, wy]), np.array([vx, vy])
    tau = float(time_to_collision(w, v, np.array(radius)))
    miss = abs(wx * vy - wy * vx) / max(np.hypot(vx, vy), 1e-12)   # closest approach
    if not (0.05 < tau < 30) or np.hypot(wx, wy) < 1.5 * radius or miss > 0.9 * radius:
        return          # near grazing, tau's gradient grows without bound: no fair check
    h = 1e-6

    def energy(x):                       # as a function of this agent's position x
        return float(law.energy(time_to_collision(w - x, v, np.array(radius))))

    grad = np.array([(energy(np.array([h, 0])) - energy(np.array([-h, 0]))) / (2 * h),
                     (energy(np.array([0, h])) - energy(np.array([0, -h]))) / (2 * h)])
    force = law.pair_forces(w, v, np.array(radius))
    assert force == pytest.approx(-grad, rel=1e-4, abs=1e-6 * max(1.0, np.hypot(*grad)))


def test_a_head_on_pair_turns_aside_early_and_a_parallel_pair_not_at_all():
    crowd = Crowd()
    crowd.add((-10, 0), velocity=(1.3, 0), radius=0.3)
    crowd.add((10, 0.05), velocity=(-1.3, 0), radius=0.3)
    crowd.add((-10, 5), velocity=(1.3, 0), radius=0.3)        # side by side with agent 0's
    crowd.add((-10, 6), velocity=(1.3, 0), radius=0.3)        # course: never meet
    law = PowerLaw(relaxation=1e9)                            # avoidance only
    f = law.forces(crowd, preferred=crowd.velocity)
    # 20 m apart, 7.7 s to contact, already beyond the sensing range: nothing yet...
    assert not f[0].any()
    crowd.position[0] = (-3.0, 0.0)
    crowd.position[1] = (3.0, 0.05)
    f = law.forces(crowd, preferred=crowd.velocity)
    # ...6 m apart (about 2.1 s to contact): slowed and pushed aside, equal and opposite.
    assert f[0, 0] < -0.05 and f[0, 1] < -1e-3 and f[1] == pytest.approx(-f[0])
    assert np.abs(f[2:]).max() == 0.0


def test_the_force_per_neighbour_is_capped():
    law = PowerLaw(max_force=2.0)
    w, v = np.array([[1.0, 0.01]]), np.array([[5.0, 0.0]])        # about to collide
    assert np.hypot(*law.pair_forces(w, v, np.array([0.6]))[0]) == pytest.approx(2.0)


def test_a_crossing_of_several_agents_stays_apart_and_arrives():
    crowd = Crowd()
    for i in range(6):
        a = 2 * math.pi * i / 6 + 0.05 * i
        crowd.add((5 * math.cos(a), 5 * math.sin(a)), goal=(-5 * math.cos(a), -5 * math.sin(a)),
                  radius=0.3, max_speed=1.3)
    law, closest = PowerLaw(), math.inf
    for _ in range(1500):
        law.step(crowd, 0.02)
        d = np.hypot(*(crowd.position[:, None] - crowd.position[None]).T)
        closest = min(closest, d[~np.eye(6, dtype=bool)].min())
    assert closest > 0.6 * 0.8                      # radii 0.3: little or no overlap
    assert np.allclose(crowd.position, crowd.goal, atol=0.1)


def test_bad_input():
    for name in ("k", "m", "tau0", "relaxation", "max_force", "neighbour_dist"):
        for bad in (0, -1, math.inf, math.nan, True):
            with pytest.raises(InvalidQueryError, match=name):
                PowerLaw(**{name: bad})
    crowd = Crowd()
    crowd.add((0, 0))
    law = PowerLaw()
    with pytest.raises(InvalidQueryError, match="dt"):
        law.step(crowd, 0)
    with pytest.raises(InvalidQueryError, match="preferred"):
        law.forces(crowd, preferred=[[math.nan, 0]])
    with pytest.raises(InvalidQueryError, match="Crowd"):
        law.forces([(0, 0)])
    assert law.forces(crowd).shape == (1, 2)
    w, v = np.array([[2.0, 0.0]]), np.array([[1.0, 0.0]])
    for bad_w, bad_r in ((None, 1.0), ("x", 1.0), (w, math.nan), (w, -1.0), (w, "x"),
                         ([[math.inf, 0]], 1.0), (np.zeros((3, 3)), 1.0)):
        with pytest.raises(InvalidQueryError, match=r"\b(w|v|radius)\b"):
            time_to_collision(bad_w, v, bad_r)
    assert time_to_collision([2.0, 0.0], [1.0, 0.0], 1.0) == 1.0
    assert time_to_collision(w, v, [1.0]).shape == (1,)
    for bad in (-1.0, math.nan, "x", [0.5, -0.1]):
        with pytest.raises(InvalidQueryError, match="tau"):
            law.energy(bad)
    assert law.energy(math.inf) == 0.0


def reference_pair_force(law, w, v, r):
    """The pair force written out in plain Python from the paper's formulas."""
    dist = math.hypot(*w)
    r = min(r, 0.99 * dist)
    a, b = v @ v, w @ v
    disc = b * b - a * (w @ w - r * r)
    if not (disc > 0 and a > 1e-12):
        return np.zeros(2)
    tau = (b - math.sqrt(disc)) / a
    if not tau > 0:
        return np.zeros(2)
    scale = law.k * math.exp(-tau / law.tau0) * tau ** -law.m \
        * (law.m / tau + 1 / law.tau0) / a
    force = -scale * (v - (b * v - a * w) / math.sqrt(disc))
    size = math.hypot(*force)
    return force * (law.max_force / size) if size > law.max_force else force


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([1.0, 2.0, 2.5]))
def test_summed_forces_equal_a_plain_loop_over_neighbours(seed, m):
    rng = np.random.default_rng(seed)
    crowd = Crowd(max_neighbours=6)
    for _ in range(25):
        crowd.add(rng.uniform(-6, 6, 2), velocity=rng.uniform(-1.5, 1.5, 2),
                  radius=float(rng.uniform(0.2, 0.6)))
    law = PowerLaw(m=m, max_force=3.0)
    pref = rng.uniform(-1, 1, (25, 2))
    got = law.forces(crowd, preferred=pref)
    rows, counts = crowd.neighbours(distance=law.neighbour_dist, max_neighbours=6)
    p, v, rad = crowd.position, crowd.velocity, crowd.radius
    for i in range(25):
        want = (pref[i] - v[i]) / law.relaxation
        for j in rows[i, :counts[i]]:
            want = want + reference_pair_force(law, p[j] - p[i], v[i] - v[j], rad[i] + rad[j])
        assert got[i] == pytest.approx(want, rel=1e-9, abs=1e-12)
    pairs = law.pair_forces(p[rows[:, 0]] - p, v - v[rows[:, 0]], rad + rad[rows[:, 0]])
    for i in range(25):
        assert pairs[i] == pytest.approx(reference_pair_force(
            law, p[rows[i, 0]] - p[i], v[i] - v[rows[i, 0]], rad[i] + rad[rows[i, 0]]),
            rel=1e-9, abs=1e-12)


def test_pairs_a_hair_apart_get_the_capped_force_not_nan():
    """Pairs whose centres are 1e-320 to 100 apart: for deep overlaps tau next to 0 makes
    the energy's gradient overflow, and the force is then max_force long, pushing apart
    (below about 1e-154 the squares underflow and the pair counts as coincident: no
    force)."""
    law = PowerLaw(max_force=5.0)
    d = np.logspace(-320, 2, 2000)
    w = np.stack([d, 0.3 * d], 1)
    for v in ((1.0, 0.0), (0.3, -0.2), (1e-3, 1e-300)):
        force = law.pair_forces(w, np.array(v), 0.5)
        assert np.isfinite(force).all()
        assert (np.hypot(*force.T) <= 5.0 * (1 + 1e-12)).all()
        near = (d > 1e-150) & (d < 1e-100)              # deep overlap, closing: pushed back
        assert (np.hypot(*force[near].T) == pytest.approx(5.0)) and \
            ((force[near] * w[near]).sum(1) < 0).all()


W, V = np.array([[2.0, 0.0]]), np.array([[1.0, 0.0]])


@pytest.mark.parametrize("model", [PowerLaw(), AnticipatoryForces()])
@pytest.mark.parametrize("bad_w, bad_v, bad_r", [
    (W, V, math.nan), (W, V, 0.0), (W, V, -1.0), ([[math.nan, 0]], V, 1.0),
    (W, [[math.inf, 0]], 1.0), ("x", V, 1.0), (W, None, 1.0),
    (np.zeros((3, 2)), np.zeros((2, 2)), 1.0), (np.zeros((2, 3)), np.zeros((2, 3)), 1.0),
    (np.zeros((3, 2)), np.zeros((3, 2)), [1.0, 2.0]), (W, V, "x")])
def test_pair_forces_refuse_bad_arrays(model, bad_w, bad_v, bad_r):
    """Both force models check the offsets, velocities and radii of their pairs."""
    with pytest.raises(InvalidQueryError, match=r"\b(w|v|radius)\b"):
        model.pair_forces(bad_w, bad_v, bad_r)
    assert model.pair_forces(W, V, 1.0).shape == (1, 2)


@pytest.mark.parametrize("size", [1e100, 1e150, 1e200, 1e300])
def test_huge_pairs_have_the_time_to_collision_and_force_of_their_shape(size):
    """tau does not change with the units, and the power law's force scales as one over
    them: pairs whose squares overflow get the answers the plain formulas give in units
    of ``size``, not "never"."""
    rng = np.random.default_rng(int(math.log10(size)))
    w = rng.uniform(-6, 6, (40, 2))
    v = w * rng.uniform(0.1, 0.8, (40, 1)) + rng.uniform(-1, 1, (40, 2))    # most approach
    r = rng.uniform(0.3, 1.2, 40)
    law = PowerLaw(max_force=1e9)
    tau = time_to_collision(w * size, v * size, r * size)
    force = law.pair_forces(w * size, v * size, r * size)
    hits = 0
    for i in range(40):
        a, b = v[i] @ v[i], w[i] @ v[i]
        disc = b * b - a * (w[i] @ w[i] - r[i] ** 2)
        want = (b - math.sqrt(disc)) / a if disc > 0 and (b - math.sqrt(disc)) > 0 \
            else math.inf
        assert tau[i] == pytest.approx(want, rel=1e-9)
        hits += want < math.inf
        assert force[i] * size == pytest.approx(
            reference_pair_force(law, w[i], v[i], r[i]), rel=1e-9, abs=1e-12)
    assert hits >= 5
