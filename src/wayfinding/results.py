"""Search results: the path, its cost, whether it was found, and statistics; and the
arrival statistics of recorded movement runs."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, cast

import numpy as np

from .errors import InvalidQueryError


class Status(str, Enum):
    """How a search or request stands; each member equals its lower-case name as a string.

    ``FOUND``: a path to the goal (for a search that returns one step of its route at a
    time, as :func:`~wayfinding.search.hierarchical_step`: the step's path, found, whose
    ``reached_goal`` says whether it ends at the goal); ``PARTIAL``: no path to the goal,
    and the path returned leads to the reachable node nearest to it; ``RUNNING``: a sliced
    search that has not ended; ``FAILED``: no path (the goal is unreachable);
    ``OUT_OF_BUDGET``: the search stopped at its budget before it could tell.  Requests of a
    :class:`~wayfinding.search.PathScheduler` are also ``QUEUED`` before their search begins
    and ``CANCELLED`` when withdrawn.

    >>> Status.FOUND == "found", str(Status.OUT_OF_BUDGET)
    (True, 'out_of_budget')
    """

    FOUND = "found"
    PARTIAL = "partial"
    RUNNING = "running"
    FAILED = "failed"
    OUT_OF_BUDGET = "out_of_budget"
    QUEUED = "queued"
    CANCELLED = "cancelled"

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Status.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


def _same(a: Any, b: Any) -> bool:
    """Whether two field values are equal, numpy arrays (also inside lists, tuples and
    dicts) by shape and elements."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)) and a.__class__ is b.__class__:
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    return bool(a == b)


def _fields_equal(self: Any, other: object) -> bool:
    """``__eq__`` for dataclass records that hold numpy arrays: same class and every
    compared field equal, arrays by shape and elements."""
    if other.__class__ is not self.__class__:
        return NotImplemented
    return all(_same(getattr(self, f.name), getattr(other, f.name))
               for f in fields(cast(Any, self)) if f.compare)


# Members read once: attribute access on an Enum class is slow on a search's hot path.
_FOUND, _FAILED = Status.FOUND, Status.FAILED


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

    ``path`` runs from start to goal inclusive; its kind depends on the world: an ``(n, 2)``
    int64 array of ``(x, y)`` cells on grids, an ``(n, 2)`` float64 array of world points for
    any-angle paths and navigation meshes, an ``(n,)`` int64 array of node ids on
    ``CSRGraph``, a list of nodes on generic graphs; empty when not found.  ``cost`` is the
    sum of the step costs (``inf`` when not found).  With ``record=True`` the search also
    keeps ``expanded_nodes`` (in expansion order) and ``open_nodes`` (the open list when it
    stopped), in the same node form as ``path``.
    ``status`` is :attr:`Status.FOUND` or :attr:`Status.FAILED` unless the search tells
    more (:attr:`Status.PARTIAL`, :attr:`Status.OUT_OF_BUDGET`); ``found`` is true exactly
    when it is ``FOUND``.
    """

    path: Any
    cost: float
    found: bool
    stats: SearchStats = field(default_factory=SearchStats)
    algorithm: str = ""
    expanded_nodes: Any = None
    open_nodes: Any = None
    status: Status = None  # type: ignore[assignment]

    __eq__ = _fields_equal

    def __post_init__(self) -> None:
        status = self.status
        if status is None:
            self.status = _FOUND if self.found else _FAILED
        elif status.__class__ is not Status:
            self.status = Status(status)

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


class Arrivals:
    """Arrival statistics of a recorded run whose ``arrived`` holds, per agent, the
    seconds until it reached its goal (inf: never)."""

    arrived: np.ndarray

    @property
    def completion(self) -> float:
        """The share of agents that reached their goals."""
        return float(np.isfinite(self.arrived).mean()) if len(self.arrived) else 1.0

    def arrival_time(self, share: float) -> float:
        """Seconds until ``share`` of the agents had arrived (inf if they never did)."""
        if not 0 < share <= 1:
            raise InvalidQueryError(f"share {share!r} must be in (0, 1]")
        times = np.sort(self.arrived)
        return float(times[max(math.ceil(share * len(times)) - 1, 0)])
