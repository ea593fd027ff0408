"""Formation shapes: every kind's slots against their definition, slot-count matching (the
parametric shapes generated afresh, user shapes cut or repeated), world slots, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wayfinding import InvalidQueryError
from wayfinding.groups.shapes import KINDS, FormationShape

MAKERS = {"line": FormationShape.line, "column": FormationShape.column,
          "wedge": FormationShape.wedge, "box": FormationShape.box,
          "circle": FormationShape.circle, "abreast": FormationShape.abreast}


def min_gap(offsets):
    d = np.hypot(*(offsets[:, None] - offsets[None]).transpose(2, 0, 1))
    d[np.diag_indices(len(offsets))] = np.inf
    return d.min()


@pytest.mark.parametrize("kind", sorted(MAKERS))
@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
def test_parametric_shapes_have_n_distinct_centred_slots(kind, n):
    shape = MAKERS[kind](n, spacing=1.5)
    assert shape.offsets.shape == (n, 2) and shape.roles.tolist() == [0] * n
    assert shape.kind == kind and kind in KINDS
    mid = (shape.offsets.max(axis=0) + shape.offsets.min(axis=0)) / 2
    np.testing.assert_allclose(mid, 0.0, atol=1e-12)
    if n > 1:                                  # neighbours never closer than spacing
        assert min_gap(shape.offsets) >= 1.5 - 1e-9 or kind == "abreast"


def test_line_column_box_wedge_circle_by_definition():
    np.testing.assert_array_equal(FormationShape.line(3, spacing=1.0).offsets,
                                  [[0, 1], [0, 0], [0, -1]])
    np.testing.assert_array_equal(FormationShape.column(3, spacing=1.0).offsets,
                                  [[1, 0], [0, 0], [-1, 0]])
    np.testing.assert_array_equal(FormationShape.column(5, spacing=2.0, files=2).offsets,
                                  [[2, 1], [2, -1], [0, 1], [0, -1], [-2, 0]])
    box = FormationShape.box(9, spacing=1.0)
    assert sorted(map(tuple, box.offsets.tolist())) == [
        (x, y) for x in (-1.0, 0.0, 1.0) for y in (-1.0, 0.0, 1.0)]
    wedge = FormationShape.wedge(7, spacing=1.0)
    rank = np.round(wedge.offsets[0, 0] - wedge.offsets[:, 0])
    np.testing.assert_array_equal(np.abs(wedge.offsets[:, 1]), rank)   # a V: |y| = depth
    circle = FormationShape.circle(6, spacing=1.0)
    np.testing.assert_allclose(np.hypot(*circle.offsets.T), 1.0)       # hexagon: r = s
    assert circle.offsets[0, 0] > 0 and abs(circle.offsets[0, 1]) < 1e-12


def test_abreast_ends_ahead_of_the_middle():
    a = FormationShape.abreast(5, spacing=1.0, bend=0.5)
    assert a.offsets[0, 0] == a.offsets[4, 0] > a.offsets[1, 0] > a.offsets[2, 0]
    np.testing.assert_allclose(FormationShape.abreast(4, bend=0.0).offsets,
                               FormationShape.line(4, spacing=1.0).offsets)


def test_extent_and_bulk_radius():
    s = FormationShape.from_offsets([[3.0, 0.0], [-1.0, 2.0], [0.0, -4.0]])
    assert s.extent == (4.0, 3.0)
    assert s.bulk_radius == 4.0
    assert FormationShape.circle(8, spacing=1.0).bulk_radius == pytest.approx(
        1 / (2 * math.sin(math.pi / 8)))


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_fit_regenerates_parametric_shapes(kind):
    shape = MAKERS[kind](4, spacing=1.0)
    for n in (1, 3, 4, 9):
        assert shape.fit(n) == MAKERS[kind](n, spacing=1.0)


def test_fit_keeps_box_columns_and_cycles_roles():
    box = FormationShape.box(4, spacing=1.0, columns=4, roles=[1, 2, 3, 4])
    fitted = box.fit(6)
    assert fitted == FormationShape.box(6, spacing=1.0, columns=4, roles=[1, 2, 3, 4, 1, 2])


def test_fit_user_shape_drops_the_last_slots_and_repeats_the_pattern_behind():
    s = FormationShape.from_offsets([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0]], roles=[5, 6, 7],
                                    spacing=2.0)
    cut = s.fit(2)
    np.testing.assert_array_equal(cut.offsets, [[1, 0], [0, 1]])
    assert cut.roles.tolist() == [5, 6]
    grown = s.fit(7)
    # pattern depth 1 + spacing 2: each copy 3 behind the one before
    np.testing.assert_array_equal(grown.offsets, [[1, 0], [0, 1], [0, -1], [-2, 0], [-3, 1],
                                                  [-3, -1], [-5, 0]])
    assert grown.roles.tolist() == [5, 6, 7, 5, 6, 7, 5]
    assert min_gap(grown.offsets) >= 1.0


def test_world_slots_rotate_and_translate():
    s = FormationShape.from_offsets([[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(s.world_slots((5.0, 5.0), (0.0, 3.0)), [[5, 6], [4, 5]])
    np.testing.assert_allclose(s.world_slots((0.0, 0.0), (-1.0, 0.0)), [[-1, 0], [0, -1]])


def test_shapes_are_read_only():
    s = FormationShape.line(3)
    with pytest.raises(ValueError):
        s.offsets[0, 0] = 1.0


@pytest.mark.parametrize("call", [
    lambda: FormationShape.line(0),
    lambda: FormationShape.line(2.0),
    lambda: FormationShape.wedge(3, spacing=0.0),
    lambda: FormationShape.circle(3, spacing=float("nan")),
    lambda: FormationShape.column(3, files=0),
    lambda: FormationShape.box(3, columns=-1),
    lambda: FormationShape.abreast(3, bend=-1.0),
    lambda: FormationShape.line(3, roles=[0, 1]),
    lambda: FormationShape.line(2, roles=[0.5, 1.0]),
    lambda: FormationShape.from_offsets([[0.0, 0.0, 0.0]]),
    lambda: FormationShape.from_offsets(np.empty((0, 2))),
    lambda: FormationShape.from_offsets([[np.nan, 0.0]]),
    lambda: FormationShape.from_offsets([["a", "b"]]),
    lambda: FormationShape.line(3).fit(0),
    lambda: FormationShape.line(3).fit(10**12),
    lambda: FormationShape.line(3).world_slots((0.0, 0.0), (0.0, 0.0)),
    lambda: FormationShape.line(3).world_slots((np.inf, 0.0), (1.0, 0.0)),
])
def test_bad_input(call):
    with pytest.raises(InvalidQueryError):
        call()


@settings(max_examples=50, deadline=None)
@given(pattern=st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=1,
                        max_size=6, unique=True),
       n=st.integers(1, 30))
def test_fit_user_shapes_keeps_the_pattern_and_never_stacks_slots(pattern, n):
    offsets = np.array(pattern, float)
    s = FormationShape.from_offsets(offsets, roles=np.arange(len(pattern)), spacing=1.0)
    fitted = s.fit(n)
    m = min(n, len(pattern))
    assert len(fitted) == n
    np.testing.assert_array_equal(fitted.offsets[:m], offsets[:m])
    assert fitted.roles.tolist() == [k % len(pattern) for k in range(n)]
    assert len({tuple(p) for p in fitted.offsets.tolist()}) == n     # copies never overlap


@pytest.mark.parametrize("kind", sorted(MAKERS))
@pytest.mark.parametrize("n", [2, 5, 9])
def test_far_apart_slots_are_the_unit_shape_scaled_while_they_fit_in_a_float(kind, n):
    # Laid out at spacing 1 and scaled by a power of two, the slots are exact; a spacing
    # too wide for a float is refused instead of giving inf or NaN offsets (a column of 9
    # slots 2**1021 apart spans -2**1023..2**1023 but overflowed before it was centred).
    unit = MAKERS[kind](n, spacing=1.0).offsets
    for power in (1021, 1022, -1060):
        scale = math.ldexp(1.0, power)
        if float(np.abs(unit).max()) * scale == math.inf:
            with pytest.raises(InvalidQueryError, match="spacing"):
                MAKERS[kind](n, spacing=scale)
        else:
            np.testing.assert_array_equal(MAKERS[kind](n, spacing=scale).offsets,
                                          np.ldexp(unit, power))


@pytest.mark.parametrize("call", [
    lambda: FormationShape.line(5, spacing=1e308),
    lambda: FormationShape.abreast(3, spacing=1e300, bend=1e300),
    lambda: FormationShape.from_offsets([[1e308, 0.0], [-1e308, 0.0]]).fit(3),
    lambda: FormationShape.line(2, spacing=1e308).world_slots((1.7e308, 0.0), (0.0, 1.0)),
])
def test_slots_past_the_largest_float_are_refused(call):
    with pytest.raises(InvalidQueryError, match="largest float"):
        call()
