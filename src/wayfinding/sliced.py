"""Time-sliced searches: a search that runs a few expansions at a time, e.g. within a frame.

``search = finder.start(a, b)`` (:meth:`GridSearch.start <wayfinding.grid.GridSearch.start>`,
:meth:`CSRGraph.start <wayfinding.graph.CSRGraph.start>`, :func:`wayfinding.start_search`)
makes one; ``search.step(max_expansions=..., max_seconds=...)`` runs it on and returns its
status (a :class:`~wayfinding.results.Status`), ``RUNNING`` until it ends ``FOUND``,
``FAILED`` or, for a search that allows partial paths, ``PARTIAL``.  However it is sliced,
the result equals the one-shot search's: same path, cost and counters (only ``elapsed``, the
time spent starting and stepping, differs).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from ._deprecated import alias, positional_options
from ._kernels import _codes
from ._scratch import SingleThread, exclusive
from ._validate import step_budget
from .errors import InvalidQueryError
from .results import PathResult, SearchStats, Status

#: The statuses of a sliced search (members of :class:`~wayfinding.results.Status`).
RUNNING, FOUND, FAILED = Status.RUNNING, Status.FOUND, Status.FAILED

# Kernel codes returned by ``advance``.
_CODES = {_codes.FAILED: Status.FAILED, _codes.FOUND: Status.FOUND,
          _codes.RUNNING: Status.RUNNING}

#: Deprecated: the step budget is checked by ``wayfinding._validate.step_budget``.
check_budget = alias(step_budget, "check_budget")


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

    @positional_options("setup")
    def __init__(self, run: Any, finish: Callable[[bool, SearchStats], PathResult],
                 algorithm: str, counters: tuple[str, ...], *, setup: float = 0.0,
                 owner: SingleThread | None = None):
        if owner is not None:
            self._busy = owner._busy
        self._owner = "workspace" if owner is None else type(owner).__name__
        self._run = run
        self._finish = finish
        self._counters = counters
        self._elapsed = setup
        self._result: PathResult | None = None
        self.algorithm = algorithm
        self.status = Status.RUNNING

    @classmethod
    def done(cls, result: PathResult) -> SlicedSearch:
        """A search that has already ended with ``result``."""
        search = cls.__new__(cls)
        search._run = None
        search._result = result
        search._elapsed = result.stats.elapsed
        search.algorithm = result.algorithm
        search.status = result.status
        return search

    @exclusive
    def step(self, max_expansions: int | None = None,
             max_seconds: float | None = None) -> Status:
        """Run on for at most ``max_expansions`` expansions and ``max_seconds`` seconds (no
        limit when None; the clock is read every 16 expansions, and a timed step always
        makes at least one) and return the status."""
        max_expansions, max_seconds = step_budget(max_expansions, max_seconds)
        if self.status is not RUNNING:
            return self.status
        if self._run.stale:
            raise InvalidQueryError(
                "another query has started on this search's scratch since it began; give "
                f"each search that is still running its own {self._owner}")
        t0 = time.perf_counter()
        code = self._run.advance(-1 if max_expansions is None else min(max_expansions, 2**62),
                                 math.inf if max_seconds is None else max_seconds)
        self._elapsed += time.perf_counter() - t0
        self.status = _CODES[code]
        if self.status is not RUNNING:
            self._result = self._finish(self.status is FOUND, self.stats)
            self.status = self._result.status      # PARTIAL where the search gives one
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
        counters so far and status ``RUNNING``."""
        if self._result is not None:
            return self._result
        result = self._finish(False, self.stats)
        result.status = Status.RUNNING
        return result

    def __repr__(self) -> str:
        return f"SlicedSearch({self.algorithm}: {self.status}, expanded={self.stats.expanded})"
