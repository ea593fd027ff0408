"""Time-sliced searches: a search that runs a few expansions at a time, e.g. within a frame.

``search = finder.start(a, b)`` (:meth:`GridSearch.start <wayfinding.grid.GridSearch.start>`,
:meth:`CSRGraph.start <wayfinding.graph.CSRGraph.start>`, :func:`wayfinding.start_search`)
makes one; ``search.step(max_expansions=..., max_seconds=...)`` runs it on and returns its
status, ``"running"`` until it ends ``"found"`` or ``"failed"``.  However it is sliced, the
result equals the one-shot search's: same path, cost and counters (only ``elapsed``, the time
spent starting and stepping, differs).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ._scratch import SingleThread, exclusive
from .errors import InvalidQueryError
from .results import PathResult, SearchStats

#: The statuses of a sliced search.
RUNNING, FOUND, FAILED = "running", "found", "failed"

# Kernel codes returned by ``advance`` (see ``wayfinding._kernels._budget``).
_CODES = {0: FAILED, 1: FOUND, 2: RUNNING}


def check_budget(max_expansions: Any, max_seconds: Any) -> None:
    """Refuse a step budget that is not ``None`` or an integer >= 0 / a number >= 0."""
    if max_expansions is not None and (isinstance(max_expansions, bool) or not isinstance(
            max_expansions, (int, np.integer)) or max_expansions < 0):
        raise InvalidQueryError(
            f"max_expansions {max_expansions!r} must be an integer >= 0 or None")
    if max_seconds is not None and (isinstance(max_seconds, bool) or not isinstance(
            max_seconds, (int, float)) or not max_seconds >= 0):
        raise InvalidQueryError(f"max_seconds {max_seconds!r} must be a number >= 0 or None")


class SlicedSearch(SingleThread):
    """A search run in slices; see the module docstring.

    ``run`` is a compiled search state (``advance(max_expansions, max_seconds) -> code``,
    ``counters``, named by ``counters``, and ``stale``); ``finish(found, stats)`` builds the
    result; ``setup`` is the time spent making ``run``; ``owner``: the object whose scratch
    ``run`` works in (its calls and this search's steps exclude each other across threads).
    A search whose answer is known without searching is made with :meth:`done`.

    One thread at a time: a step while another thread steps it (or uses its owner) raises
    :class:`~wayfinding.errors.ConcurrentUseError`.
    """

    def __init__(self, run: Any, finish: Callable[[bool, SearchStats], PathResult],
                 algorithm: str, counters: tuple[str, ...], setup: float = 0.0, *,
                 owner: SingleThread | None = None):
        if owner is not None:
            self._busy = owner._busy  # type: ignore[attr-defined]
        self._run = run
        self._finish = finish
        self._counters = counters
        self._elapsed = setup
        self._result: PathResult | None = None
        self.algorithm = algorithm
        self.status = RUNNING

    @classmethod
    def done(cls, result: PathResult) -> SlicedSearch:
        """A search that has already ended with ``result``."""
        search = cls.__new__(cls)
        search._run = None
        search._result = result
        search._elapsed = result.stats.elapsed
        search.algorithm = result.algorithm
        search.status = FOUND if result.found else FAILED
        return search

    @exclusive
    def step(self, max_expansions: int | None = None,
             max_seconds: float | None = None) -> str:
        """Run on for at most ``max_expansions`` expansions and ``max_seconds`` seconds (no
        limit when None; the clock is read every 16 expansions, and a timed step always
        makes at least one) and return the status."""
        check_budget(max_expansions, max_seconds)
        if self.status != RUNNING:
            return self.status
        if self._run.stale:
            raise InvalidQueryError(
                "another query has started on this search's scratch since it began; give "
                "each search that is still running its own GridSearch or workspace")
        t0 = time.perf_counter()
        code = self._run.advance(-1 if max_expansions is None else min(max_expansions, 2**62),
                                 math.inf if max_seconds is None else float(max_seconds))
        self._elapsed += time.perf_counter() - t0
        self.status = _CODES[code]
        if self.status != RUNNING:
            self._result = self._finish(self.status == FOUND, self.stats)
        return self.status

    @property
    def stats(self) -> SearchStats:
        """Counters so far."""
        if self._run is None:
            return self._result.stats  # type: ignore[union-attr]
        return SearchStats(elapsed=self._elapsed,
                           **dict(zip(self._counters, self._run.counters)))

    @exclusive
    def result(self) -> PathResult:
        """The result once the search has ended; while it runs, a not-found result with the
        counters so far."""
        if self._result is not None:
            return self._result
        return self._finish(False, self.stats)

    def __repr__(self) -> str:
        return f"SlicedSearch({self.algorithm}: {self.status}, expanded={self.stats.expanded})"
