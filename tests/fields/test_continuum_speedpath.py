"""The continuum update's inputs: a non-finite value anywhere is refused, large finite
values are accepted, and the goals land on their own cells of the padded grid."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError
from wayfinding.fields.continuum import ContinuumField
from wayfinding.grid import Grid


def _field() -> ContinuumField:
    return ContinuumField(Grid(np.ones((12, 16), dtype=bool)))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("which", ["positions", "velocities"])
def test_non_finite_inputs_are_refused(bad: float, which: str) -> None:
    pos = np.array([[3.0, 4.0], [8.0, 5.0], [10.0, 9.0]])
    vel = np.zeros_like(pos)
    (pos if which == "positions" else vel)[1, 1] = bad
    with pytest.raises(InvalidQueryError, match="finite"):
        _field().update(pos, vel, [(15, 11)])


def test_large_finite_velocities_are_accepted() -> None:
    pos = np.array([[3.0, 4.0], [8.0, 5.0]])
    vel = np.array([[1e308, 1e308], [1e308, 0.0]])     # their total overflows to inf
    field = _field()
    field.update(pos, vel, [(15, 11)])
    assert np.isfinite(field.potential).all()


def test_goals_map_to_their_cells() -> None:
    """Each goal cell, and only those, has potential 0 (flat indices of the padded grid)."""
    field = _field()
    goals = [(0, 0), (15, 11), (7, 3)]
    field.update(np.zeros((0, 2)), np.zeros((0, 2)), goals)
    zero = {(int(x), int(y)) for y, x in np.argwhere(field.potential == 0.0)}
    assert zero == set(goals)
