"""Search results: the path, its cost, whether it was found, and statistics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(slots=True)
class SearchStats:
    """Counters of one search.

    ``expanded``: nodes removed from the open list and expanded; ``generated``: nodes pushed
    on the open list (including the start); ``reopened``: closed nodes put back on the open
    list (only with inconsistent heuristics on the generic search); ``updated``: open nodes
    whose cost improved (decrease-key); ``max_open``: the largest open-list size seen (heap
    entries, stale ones included, for the compiled kernels); ``elapsed``: wall time in seconds.
    """

    expanded: int = 0
    generated: int = 0
    reopened: int = 0
    updated: int = 0
    max_open: int = 0
    elapsed: float = 0.0


@dataclass(slots=True)
class PathResult:
    """Outcome of a path query.

    ``path`` runs from start to goal inclusive: an ``(n, 2)`` int64 array of ``(x, y)`` cells
    on grids, an ``(n,)`` int64 array of node ids on ``CSRGraph``, a list of nodes on generic
    graphs; empty when not found.  ``cost`` is the sum of the step costs (``inf`` when not
    found).  With ``record=True`` the search also keeps ``expanded_nodes`` (in expansion order)
    and ``open_nodes`` (the open list when it stopped), in the same node form as ``path``.
    """

    path: Any
    cost: float
    found: bool
    stats: SearchStats = field(default_factory=SearchStats)
    algorithm: str = ""
    expanded_nodes: Any = None
    open_nodes: Any = None

    def __len__(self) -> int:
        return len(self.path)

    def __repr__(self) -> str:
        state = f"cost={self.cost:.6g}, steps={max(len(self.path) - 1, 0)}" if self.found \
            else "not found"
        return (f"PathResult({self.algorithm or 'search'}: {state}, "
                f"expanded={self.stats.expanded})")


def empty_path(dims: int = 2) -> np.ndarray:
    """An empty path array of the grid form."""
    return np.empty((0, dims), dtype=np.int64)
