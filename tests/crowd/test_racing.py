"""Context steering on a race track: cars alongside are never crossed, slow cars ahead
are danger and cars at racing speed are not, braking above a threshold, drafting."""


from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_context import walk

from wayfinding.crowd.context import (
    ContextMap,
    combine,
)
from wayfinding.crowd.racing import Cars, avoid_cars, decide_racing, drafting, racing_line

SEEDS = st.integers(0, 2**32 - 1)


def field(**kw):
    base = {"along": [0.0, 0.0], "offset": [0.0, -3.5], "speed": [60.0, 60.0],
            "racing_speed": 60.0, "racing_line": -5.0, "track_width": 12.0}
    base.update(kw)
    return Cars(**base)


def racing_choice(cars, cmap, **kw):
    interest = combine(racing_line(cmap, cars), drafting(cmap, cars))
    return decide_racing(cmap, cars, interest, avoid_cars(cmap, cars), **kw)


@pytest.mark.parametrize("slots", [9, 25, 49])
def test_a_car_alongside_on_the_left_is_never_crossed(slots):
    cmap = ContextMap(slots, lateral=True)
    alone = racing_choice(field(along=[0.0, 500.0]), cmap)         # the other car far away
    assert alone.offset[0] == pytest.approx(-5.0, abs=12 / (slots - 1))
    boxed = racing_choice(field(), cmap)
    assert boxed.offset[0] >= -3.5 + 2.0                              # never overlaps it
    assert boxed.brake[0] == 0                                        # only its skirt: low


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_no_car_alongside_is_ever_crossed(seed):
    rng = np.random.default_rng(seed)
    cmap = ContextMap(int(rng.integers(5, 40)), lateral=True)
    n = 6
    cars = Cars(along=rng.uniform(0, 30, n), offset=rng.uniform(-6, 6, n),
                speed=rng.uniform(0, 70, n), racing_speed=60.0,
                racing_line=rng.uniform(-6, 6, n), track_width=12.0, width=1.8)
    danger = avoid_cars(cmap, cars)
    result = decide_racing(cmap, cars, combine(racing_line(cmap, cars), drafting(cmap, cars)),
                           danger)
    start = cars.slot(cmap)
    for i in range(n):
        if danger[i, start[i]] >= 1:            # already overlapping someone: nothing to keep
            continue
        for j in range(n):
            if j != i and abs(cars.along[j] - cars.along[i]) < 5.0:
                side = np.sign(cars.offset[i] - cars.offset[j])
                assert np.sign(result.offset[i] - cars.offset[j]) == side
                assert abs(result.offset[i] - cars.offset[j]) >= 1.8


@pytest.mark.parametrize("ahead, speed, racing, expect", [
    (30.0, 20.0, 60.0, "danger"),           # far ahead, well below racing speed
    (30.0, 60.0, 60.0, "none"),             # ahead at racing speed: ignored
    (30.0, 56.0, 60.0, "none"),             # only a little slower: still ignored
    (80.0, 0.0, 60.0, "none"),              # beyond the look-ahead
    (-20.0, 0.0, 60.0, "none"),             # behind
    (3.0, 90.0, 60.0, "full"),              # alongside: always, however fast
])
def test_which_cars_are_danger(ahead, speed, racing, expect):
    cmap = ContextMap(25, lateral=True)
    cars = Cars(along=[0.0, ahead], offset=[-3.0, 3.0], speed=[60.0, speed],
                racing_speed=racing, track_width=12.0)
    danger = avoid_cars(cmap, cars)
    at = int(cmap.slot_of_offset(3.0, 12.0))
    if expect == "none":
        assert danger[0].max() == 0
    elif expect == "full":
        assert danger[0, at] == 1
    else:
        closeness, slowness = 1 - (30 - 5) / (60 - 5), 1 - 20 / 60
        assert danger[0, at] == pytest.approx(closeness * slowness)
        assert danger[0, 0] == 0                                  # its skirt ends
    assert danger[1].max() == (1.0 if expect == "full" else 0.0)  # nothing ahead of car 1


def boxed_in(slow_speed):
    """Car 0 between two cars alongside, a slow car dead ahead."""
    return Cars(along=[0.0, 0.0, 0.0, 12.0], offset=[0.0, -3.5, 3.5, 0.0],
                speed=[60.0, 60.0, 60.0, slow_speed], racing_speed=60.0, track_width=12.0,
                width=1.5)


@pytest.mark.parametrize("slow_speed", [0.0, 10.0, 20.0, 30.0])
def test_braking_is_proportional_to_danger_above_the_threshold(slow_speed):
    cmap = ContextMap(25, lateral=True)
    cars = boxed_in(slow_speed)
    danger = avoid_cars(cmap, cars, skirt=0.5)
    interest = racing_line(cmap, cars)
    start = cars.slot(cmap)[0]
    ahead = danger[0, start]
    assert ahead == pytest.approx((1 - 7 / 55) * (1 - slow_speed / 60))
    low = decide_racing(cmap, cars, interest, danger, brake_threshold=0.2, brake_gain=0.8)
    lo, hi = sorted((start, int(low.choice.index[0])))
    worst = danger[0, lo:hi + 1].max()
    if worst > 0.2:
        assert low.brake[0] == pytest.approx(0.8 * worst)
    else:
        assert low.brake[0] == 0
    high = decide_racing(cmap, cars, interest, danger, brake_threshold=0.95)
    assert high.brake[0] == 0                                        # below the threshold


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.floats(0, 1), st.floats(0, 2))
def test_braking_equals_the_worst_danger_on_the_way(seed, threshold, gain):
    rng = np.random.default_rng(seed)
    slots, n = int(rng.integers(3, 30)), 5
    cmap = ContextMap(slots, lateral=True)
    cars = Cars(along=np.zeros(n), offset=rng.uniform(-5, 5, n), speed=50.0,
                racing_speed=60.0, track_width=10.0)
    danger = rng.uniform(0, 1, (n, slots)) * (rng.random((n, slots)) < 0.5)
    interest = rng.uniform(0, 1, (n, slots))
    result = decide_racing(cmap, cars, interest, danger, brake_threshold=threshold,
                           brake_gain=gain)
    start = np.rint((cars.offset / 10 + 0.5) * (slots - 1)).astype(int)
    for i in range(n):
        lo, hi = sorted((start[i], int(result.choice.index[i])))
        worst = danger[i, lo:hi + 1].max()
        assert result.brake[i] == (min(1.0, gain * worst) if worst > threshold else 0.0)
        assert walk(danger[i], start[i])[result.choice.index[i]]


@pytest.mark.parametrize("line", [-6.0, -1.3, 0.0, 6.0])
def test_the_racing_line_is_everywhere_interesting_and_peaks_on_the_line(line):
    cmap = ContextMap(13, lateral=True)
    cars = Cars(along=[0.0], offset=[0.0], speed=[50.0], racing_speed=60.0,
                racing_line=line, track_width=12.0)
    interest = racing_line(cmap, cars, peak=0.25, floor=0.05)[0]
    assert interest.min() >= 0.05 and interest.max() <= 0.25
    assert interest.argmax() == round(cmap.slot_of_offset(line, 12.0).item())
    assert (np.diff(interest[:interest.argmax() + 1]) > 0).all()
    assert (np.diff(interest[interest.argmax():]) < 0).all()


def test_fig_14_10_drafts_the_car_it_can_reach():
    """A near, fast car ahead on the left is blocked by a car alongside; the farther car
    ahead on the right is reachable: draft that one."""
    cmap = ContextMap(25, lateral=True)
    cars = Cars(along=[0.0, 0.0, 10.0, 20.0], offset=[0.0, -3.0, -4.5, 4.5],
                speed=[60.0, 60.0, 62.0, 62.0], racing_speed=60.0, track_width=12.0)
    interest = combine(racing_line(cmap, cars), drafting(cmap, cars))
    left, right = (int(cmap.slot_of_offset(u, 12.0)) for u in (-4.5, 4.5))
    assert interest[0, left] > interest[0, right]                    # the near one is better
    result = decide_racing(cmap, cars, interest, avoid_cars(cmap, cars))
    assert result.offset[0] == pytest.approx(4.5, abs=0.25)
    assert result.brake[0] == 0
    free = Cars(along=[0.0, -300.0, 10.0, 20.0], offset=cars.offset, speed=cars.speed,
                racing_speed=60.0, track_width=12.0)                  # nobody alongside
    result = decide_racing(cmap, free, combine(racing_line(cmap, free), drafting(cmap, free)),
                           avoid_cars(cmap, free))
    assert result.offset[0] == pytest.approx(-4.5, abs=0.25)
