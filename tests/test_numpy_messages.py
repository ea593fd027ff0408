"""Error messages show numpy numbers as plain digits, so that they read the same under
numpy 1 and numpy 2 (whose repr spells ``np.float64(0.5)``)."""

import numpy as np
import pytest

from wayfinding.errors import InvalidQueryError, brief
from wayfinding.search.incremental import planner_memory_cap
from wayfinding.viz._webgl import agent_frames


@pytest.mark.parametrize(("value", "text"), [
    (np.float64(0.5), "0.5"), (np.float64("nan"), "nan"), (np.int64(-3), "-3"),
    (np.float32(0.1), "0.1"), (np.bool_(True), "True"), (0.25, "0.25"), ("ab", "'ab'"),
])
def test_brief_shows_numpy_numbers_as_digits(value, text):
    assert brief(value) == text


def test_messages_name_numpy_values_as_digits():
    with pytest.raises(InvalidQueryError, match=r"got -1$"):
        planner_memory_cap(nbytes=np.int64(-1))
    agents = np.zeros((1, 2, 3))
    with pytest.raises(InvalidQueryError, match=r"0\.\.255, got 300$"):
        agent_frames(agents, np.array([[0.0, 0, 0], [300, 0, 0]]))
