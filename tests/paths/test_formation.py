"""Formations: Column and Band slot rules along a route, the inner unit anchoring a band's
turn, bad input."""

import math

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.paths import Formation


def corner_route():
    return np.array([[10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])


def test_column_slots_trail_their_predecessors():
    f = Formation(rows=4, columns=3, spacing=1.5, style="column")
    for slots in f.follow(corner_route(), step=0.4):
        for k in range(1, 4):
            assert np.allclose(np.linalg.norm(slots[k] - slots[k - 1], axis=1), 1.5)
    assert np.allclose(f.slots[0].mean(axis=0), f.position)


def test_band_rows_stay_straight_and_anchor_the_inner_unit():
    f = Formation(rows=3, columns=4, spacing=1.0, style="band")
    frames = f.follow(corner_route(), step=0.4)
    for slots in frames:
        for k in range(1, 3):
            row = slots[k]
            gaps = np.linalg.norm(np.diff(row, axis=0), axis=1)
            assert np.allclose(gaps, 1.0)
            steps = np.diff(row, axis=0)
            turns = steps[:-1, 0] * steps[1:, 1] - steps[:-1, 1] * steps[1:, 0]
            assert np.allclose(turns, 0, atol=1e-9)                           # collinear
            # The anchor (an end unit: the inner one of the turn) trails its predecessor.
            ends = [np.linalg.norm(row[c] - slots[k - 1][c]) for c in (0, -1)]
            assert np.isclose(ends[0], 1.0) or np.isclose(ends[1], 1.0)
    assert len(frames) > 40


def test_formation_bad_input():
    with pytest.raises(InvalidQueryError, match="rows"):
        Formation(rows=0, columns=2, spacing=1)
    with pytest.raises(InvalidQueryError, match="style"):
        Formation(rows=1, columns=2, spacing=1, style="wedge")
    with pytest.raises(InvalidQueryError, match="spacing"):
        Formation(rows=1, columns=2, spacing=-1)


@pytest.mark.parametrize("target,anchor", [((-3.0, 10.0), 0), ((-3.0, -10.0), -1)])
def test_band_anchor_is_the_inner_unit(target, anchor):
    # Heading +x, then a sharp left (up) or right (down) turn: column 0 is on the left.
    f = Formation(rows=2, columns=3, spacing=1.0, style="band")
    f.advance(target, step=0.5)
    ahead, row = f.slots
    assert np.isclose(np.linalg.norm(row[anchor] - ahead[anchor]), 1.0)
    assert not np.isclose(np.linalg.norm(row[-1 - anchor] - ahead[-1 - anchor]), 1.0)


@pytest.mark.parametrize("scale", [2.0 ** 1020, 2.0 ** -1074])
def test_heading_of_any_length_but_zero(scale):
    unit = Formation(rows=2, columns=3, spacing=1.0, heading=(1.0, 1.0))
    scaled = Formation(rows=2, columns=3, spacing=1.0, heading=(scale, scale))
    assert np.array_equal(scaled.heading, unit.heading)
    assert np.array_equal(scaled.slots, unit.slots)


@pytest.mark.parametrize("target", [(1e200, 1e200), (-3e-200, 4e-200)])
def test_advance_towards_a_far_or_near_target_faces_it(target):
    # The distance's square overflows (or underflows): the heading is the target's all
    # the same, and the front row stays spacing wide.
    f = Formation(rows=2, columns=2, spacing=1.0).advance(target, step=0.5)
    np.testing.assert_allclose(f.heading, np.divide(target, np.hypot(*target)), rtol=1e-15)
    assert np.isclose(np.linalg.norm(f.slots[0, 0] - f.slots[0, 1]), 1.0)


@pytest.mark.parametrize("scale", [1e-200, 1e-14, 1.0, 1e39, 1e300])
def test_following_a_polyline_ends_on_its_last_point_at_any_scale(scale):
    # Steps ending a hair from each point (their rounding) neither stall the formation
    # at 1e39, where a step below the position's rounding changed nothing, nor leave it
    # behind in a world under 1e-12 across, where it did not move at all; at 1e300 the
    # rows keep their spacing.
    rng = np.random.default_rng(round(math.log10(scale)) + 300)
    for _ in range(20):
        start = rng.uniform(-1, 1, 2) * scale
        points = start + rng.uniform(-1, 1, (3, 2)) * scale * 10.0 ** rng.uniform(-15, 0)
        hops = np.hypot(*np.diff(np.vstack([start, points]), axis=0).T)
        step = float(hops.max()) * rng.uniform(0.2, 2)
        f = Formation(rows=2, columns=2, spacing=scale, position=start)
        frames = f.follow(points, step=step)
        assert f.position.tolist() == points[-1].tolist()
        assert len(frames) == sum(math.ceil(h / step) for h in hops)
        # the row behind trails the front one by the spacing (measured without squares)
        assert np.allclose(np.hypot(*(f.slots[1] - f.slots[0]).T), scale, rtol=1e-9)


def test_a_step_below_the_rounding_of_the_position_still_arrives():
    # Near 1e39 the points are a few units of rounding apart and the step (4e22) is below
    # half of one (1.4e23): moving by it changed nothing, and the loop never ended.
    start = (-8.572174186724663e+38, -1.0384901916013075e+39)
    points = np.array([[-8.572174186724662e+38, -1.0384901916013077e+39],
                       [-8.572174186724665e+38, -1.0384901916013075e+39],
                       [-8.572174186724665e+38, -1.0384901916013074e+39]])
    f = Formation(rows=1, columns=2, spacing=1.0, position=start)
    frames = f.follow(points, step=4.341699650998961e+22)
    assert f.position.tolist() == points[-1].tolist() and 3 <= len(frames) <= 30
