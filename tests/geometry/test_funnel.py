"""String pulling through portals."""

import numpy as np

from wayfinding.geometry import funnel_path


def test_funnel_through_given_portals():
    # Start (0, 0), goal (10, 0); one portal from (5, 1) (left) to (5, 3) (right) forces the
    # path up through its lower end, a second one lets it straight on.
    left = np.array([[0, 0], [5, 3], [7, 5], [10, 0]], float)
    right = np.array([[0, 0], [5, 1], [7, -5], [10, 0]], float)
    pts, index = funnel_path(left, right)
    assert pts.tolist() == [[0, 0], [5, 1], [10, 0]] and index.tolist() == [0, 1, 3]
    # Nothing in the way: straight to the goal.
    pts, _ = funnel_path(np.array([[0, 0], [5, 5], [10, 0]], float),
                         np.array([[0, 0], [5, -5], [10, 0]], float))
    assert pts.tolist() == [[0, 0], [10, 0]]
