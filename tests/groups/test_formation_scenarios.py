"""Formation scenarios: members never overlap by more than 1% of their radius; the door's
formation passes the doorway in column through the gap and settles in its reformed slots
within a bounded time; crossing formations both reach their goals; a formation crosses a
crowd; runs repeat exactly; bad options are refused."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.groups.metrics import FormationRun
from wayfinding.groups.scenarios import (
    FORMATION_SCENARIOS,
    RADIUS,
    SETTLED,
    SPACING,
    formation_door,
    formation_scenario,
)
from wayfinding.groups.shapes import FormationShape


def same_points(a, b, tol=0.05):
    """Every point of ``a`` within ``tol`` of one of ``b`` and the other way round (``tol``
    well under the spacing, so the match is one to one)."""
    d = np.hypot(*np.moveaxis(np.asarray(a)[:, None] - np.asarray(b)[None], -1, 0))
    return len(a) == len(b) and d.min(axis=1).max() <= tol and d.min(axis=0).max() <= tol


@pytest.mark.parametrize("name", sorted(FORMATION_SCENARIOS))
def test_nobody_overlaps_and_everyone_arrives(name):
    run = formation_scenario(name)
    assert isinstance(run, FormationRun) and run.positions.shape[0] < 600
    assert run.max_overlap_ratio() <= 0.01
    assert run.completion == 1.0
    assert run.slot_error()[1][-1] <= SETTLED


@pytest.mark.parametrize("n, width", [(4, 1.2), (6, 1.2), (6, 2.0), (8, 1.0)])
def test_door_is_passed_in_column_and_the_formation_reforms(n, width):
    run = formation_door(n=n, width=width)
    p = run.positions[:, run.members]
    assert (p[0, :, 0] < -5).all() and (p[-1, :, 0] > 5).all()
    # clear of the wall (|x| <= 0.25, |y| >= width / 2): the distance to its nearer part
    clear = np.hypot(np.maximum(np.abs(p[..., 0]) - 0.25, 0.0),
                     np.maximum(width / 2 - np.abs(p[..., 1]), 0.0))
    assert clear.min() >= 0.99 * RADIUS
    assert run.max_overlap_ratio() <= 0.01
    # the box (preferred) is chosen past the door, and its slots stand at the goal
    assert same_points(run.slots[-1], FormationShape.box(n, spacing=SPACING).world_slots(
        (8.0, 0.0), (1.0, 0.0)))
    assert same_points(p[-1], run.slots[-1])
    reformed = run.time_to_reform(0.1)
    assert reformed is not None and 0 < reformed <= 20.0
    _, top = run.slot_error()
    assert top[run.reformed] > 0.5                  # the column's members were off the box
    assert top[run.reformed - 1] < 0.5              # the column itself was held


def test_crossing_formations_both_reach_their_goals():
    run = formation_scenario("formation_crossing", n=6)
    box = FormationShape.box(6, spacing=SPACING)
    goals = [box.world_slots((8.0, 0.0), (1.0, 0.0)), box.world_slots((0.0, 8.0), (0.0, 1.0))]
    for k, goal in enumerate(goals):
        cols = run.members[run.formation == k]
        assert len(cols) == 6 and np.isfinite(run.arrived[cols]).all()
        assert same_points(run.positions[-1, cols], goal)
    a, b = (run.positions[:, run.members[run.formation == k]] for k in (0, 1))
    gap = np.hypot(*np.moveaxis(a[:, :, None] - b[:, None], -1, 0)).min()
    assert gap < 4 * RADIUS                           # they did meet on the way


def test_a_formation_crosses_a_crowd():
    run = formation_scenario("formation_crowd", n=6, crowd=12)
    singles = np.setdiff1d(np.arange(run.positions.shape[1]), run.members)
    assert len(singles) == 12 and np.isfinite(run.arrived).all()
    d = run.positions[:, run.members][:, :, None] - run.positions[:, singles][:, None]
    assert np.hypot(d[..., 0], d[..., 1]).min() < 4 * RADIUS     # the crowd was in the way
    assert run.max_overlap_ratio() <= 0.01


def test_runs_repeat_exactly_and_a_short_one_stops_at_its_time_limit():
    assert formation_door(n=4) == formation_door(n=4)
    short = formation_door(n=4, seconds=2.0)
    assert len(short.positions) == 21 and short.completion == 0.0


@pytest.mark.parametrize("name, options", [
    ("formation_wedge", {}), ("formation_door", {"width": 0.9}),
    ("formation_door", {"n": 1}), ("formation_door", {"width": -1.0}),
    ("formation_crossing", {"n": 0}), ("formation_crossing", {"seconds": 0.0}),
    ("formation_crowd", {"crowd": -1}), ("formation_crowd", {"n": 2.5})])
def test_bad_options_are_refused(name, options):
    with pytest.raises(InvalidQueryError):
        formation_scenario(name, **options)
