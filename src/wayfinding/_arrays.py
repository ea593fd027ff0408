"""Small vectorised array idioms shared across the packages."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray


def concatenated_ranges(starts: Any, counts: Any) -> NDArray[np.int64]:
    """``starts[i], starts[i] + 1, ..., starts[i] + counts[i] - 1`` for each ``i``, one
    after the other, as one ``(sum(counts),)`` int64 array (``counts`` >= 0; ``starts``
    0 gives each element's place within its own range).

    >>> concatenated_ranges([10, 0, 5], [2, 0, 3]).tolist()
    [10, 11, 5, 6, 7]
    """
    n = np.asarray(counts, np.int64)
    first = np.broadcast_to(np.asarray(starts, np.int64), n.shape)
    total = int(n.sum())
    out: NDArray[np.int64] = np.repeat(first - np.cumsum(n) + n, n)
    out += np.arange(total, dtype=np.int64)
    return out
