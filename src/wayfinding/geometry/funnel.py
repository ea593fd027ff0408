"""String pulling: the shortest polyline through a sequence of portals (segments crossed in
order), the step every corridor-based path takes after its search (navigation meshes, any-angle
grid paths)."""

from __future__ import annotations

import numpy as np

from .._kernels import _navmesh


def funnel_path(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """String pulling through portals: ``left[i]``/``right[i]`` are the ends of portal i as
    seen walking through the corridor (portal 0 is the start point twice, the last the goal
    twice).  Returns the corners (start, bends, goal) and, per corner, the index of the
    portal it came from."""
    n = len(left)
    out = np.empty((n + 1, 2))
    index = np.empty(n + 1, dtype=np.int32)
    k = _navmesh.funnel(np.ascontiguousarray(left, dtype=np.float64),
                        np.ascontiguousarray(right, dtype=np.float64), out, index)
    return out[:k], index[:k]
