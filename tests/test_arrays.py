"""The shared array idioms against plain Python."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from wayfinding._arrays import concatenated_ranges


@given(st.lists(st.tuples(st.integers(-50, 50), st.integers(0, 6)), max_size=20))
def test_concatenated_ranges_match_plain_ranges(pairs):
    starts = np.array([a for a, _ in pairs], np.int32)
    counts = np.array([n for _, n in pairs], np.int32)
    want = [v for a, n in pairs for v in range(a, a + n)]
    got = concatenated_ranges(starts, counts)
    assert got.dtype == np.int64 and got.tolist() == want


def test_a_scalar_start_numbers_places_within_each_range():
    assert concatenated_ranges(0, [3, 0, 2]).tolist() == [0, 1, 2, 0, 1]
