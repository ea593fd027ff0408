"""The public fields API's old forms (as tests/crowd/test_api.py for the crowd): options
once positional still work for a release, with a warning, and give what the keyword forms
give (tests/test_keyword_options.py holds every option keyword-only)."""

from __future__ import annotations

import numpy as np
import pytest

from wayfinding import Grid
from wayfinding.fields import (
    ContinuumField,
    ContinuumParams,
    FlowTiles,
    Linear,
    PotentialField,
    Wavefront,
)
from wayfinding.fields.continuum import HybridPlanner

OPEN = Grid(np.ones((8, 12), dtype=bool))
UNITS = np.array([(2.0, 3.0), (3.0, 4.0)]), np.array([(1.0, 0.0), (0.5, 0.5)])


def old(match):
    return pytest.warns(DeprecationWarning, match=match + r" by position is deprecated")


def test_continuum_params_by_position():
    with old(r"ContinuumParams\(\.\.\., alpha, beta\)"):
        got = ContinuumParams(0.2, 0.8)
    assert got == ContinuumParams(alpha=0.2, beta=0.8)


def test_params_by_position_in_the_continuum_field():
    prm = ContinuumParams(radius=2.0)
    want = ContinuumField(OPEN, params=prm)
    want.update(*UNITS, [(10, 4)])
    with old(r"ContinuumField\(\.\.\., params\)"):
        got = ContinuumField(OPEN, prm)
    got.update(*UNITS, [(10, 4)])
    assert got.params is prm
    np.testing.assert_array_equal(got.potential, want.potential)


def test_params_by_position_in_the_hybrid_planner():
    prm = ContinuumParams(radius=2.0)
    with old(r"HybridPlanner\(\.\.\., params\)"):
        got = HybridPlanner(OPEN, prm)
    want = HybridPlanner(OPEN, params=prm)
    np.testing.assert_array_equal(got.plan(*UNITS, (10, 4)).targets(*UNITS),
                                  want.plan(*UNITS, (10, 4)).targets(*UNITS))


def tiles():
    water = np.ones((10, 20))
    water[:, 8:12] = np.inf
    water[0, 8:12] = 1.0                       # a bridge on the top row
    return FlowTiles({"land": Grid(water), "hover": Grid(np.ones((10, 20), dtype=bool))},
                     sector=5)


def test_movement_by_position_in_flow_tiles():
    t = tiles()
    with old(r"FlowTiles.cost_field\(\.\.\., movement\)"):
        field = t.cost_field((2, 0), "land")
    np.testing.assert_array_equal(field.costs, t.cost_field((2, 0), movement="land").costs)
    with old(r"FlowTiles.windows\(\.\.\., movement\)"):
        windows = t.windows("land")
    assert [w.cells_a for w in windows] == [w.cells_a for w in t.windows(movement="land")]
    assert len(windows) != len(t.windows(movement="hover"))
    with old(r"FlowTiles.islands\(\.\.\., movement\)"):
        islands = t.islands("land")
    np.testing.assert_array_equal(islands, t.islands(movement="land"))


def test_max_tiles_by_position_in_tile_route_prepare():
    a, b = (tiles().route((0, 4), (19, 4), movement="land") for _ in range(2))
    with old(r"TileRoute.prepare\(\.\.\., max_tiles\)"):
        left = a.prepare(1)
    assert left == b.prepare(max_tiles=1) == len(a.sectors) - 1
    assert list(a.tiles) == list(b.tiles)


def test_max_iterations_by_position_in_wavefront_run():
    a, b = (Wavefront(OPEN, (0, 0), starts=[(11, 7)], stop="converge") for _ in range(2))
    with old(r"Wavefront.run\(\.\.\., max_iterations\)"):
        ran = a.run(2)
    assert ran == b.run(max_iterations=2) == 2
    assert a.cost((11, 7)) == b.cost((11, 7))


def test_values_by_position_in_potential_field_step():
    field = PotentialField(OPEN)
    field.set_static([Linear((10, 4), 10.0, 30.0)])
    values = -field.values                       # away from the goal
    cells = [(5, 4), (2, 2)]
    with old(r"PotentialField.step\(\.\.\., values\)"):
        got = field.step(cells, values)
    np.testing.assert_array_equal(got, field.step(cells, values=values))
    assert not np.array_equal(got, field.step(cells))
