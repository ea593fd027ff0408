"""Shared fixtures for the search tests: an open-list tracer for the generic A*.

The reference notes write the open list of each iteration in the book's style, ``"f: PATH"``,
where PATH runs from the node back to the start (``"18: DAS"`` is D reached via A from S,
f = 18).  :func:`open_list_trace` swaps the generic search's binary heap for one that writes
the open list down in that form every time the search selects a node.
"""

from __future__ import annotations

from typing import Any

import pytest

from wayfinding.search import BinaryHeap, generic


class _TracingHeap(BinaryHeap):
    """A :class:`BinaryHeap` that records the live open list before every selection.

    Keys are the generic search's ``(f, -g, counter)``.  An entry is live unless its node was
    already selected with a g at most as large (the search skips such stale entries); a
    node's parent is the node being expanded when it was last pushed.
    """

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[frozenset[str]] = []
        self.selected: list[Any] = []
        self._entries: list[tuple[tuple, Any]] = []
        self._parent: dict[Any, Any] = {}
        self._closed_g: dict[Any, float] = {}
        self._current: Any = None

    def push(self, key: tuple, item: Any) -> None:
        if item != self._current:  # not a node put back unexpanded
            self._parent[item] = self._current
        self._entries.append((key, item))
        super().push(key, item)

    def pop(self) -> tuple[tuple, Any]:
        line = self.snapshot()
        key, item = super().pop()
        self._entries.remove((key, item))
        g = -key[1]
        if item in self._closed_g and g >= self._closed_g[item]:
            return key, item  # stale: the search skips it, no iteration
        self._closed_g[item] = g
        self._current = item
        self.lines.append(line)
        self.selected.append(item)
        return key, item

    def _path(self, node: Any) -> str:
        out = []
        while node is not None:
            out.append(str(node))
            node = self._parent[node]
        return "".join(out)

    def snapshot(self) -> frozenset[str]:
        """The live open list as ``{"f: PATH", ...}``."""
        best: dict[Any, tuple] = {}
        for key, item in self._entries:
            g = -key[1]
            if item in self._closed_g and g >= self._closed_g[item]:
                continue
            if item not in best or key < best[item]:
                best[item] = key
        return frozenset(f"{key[0]:g}: {self._path(item)}" for item, key in best.items())


class OpenListTrace:
    """What the traced search did: ``open_lists[k]`` is the open list before the
    (k + 1)-th selection, the last entry the open list when the search stopped (so
    ``open_lists`` has the book's line numbering, minus one); ``selected`` the nodes taken off
    the open list in order (expanded nodes, then the goal)."""

    def __init__(self) -> None:
        self.heaps: list[_TracingHeap] = []

    def new_heap(self) -> _TracingHeap:
        heap = _TracingHeap()
        self.heaps.append(heap)
        return heap

    @property
    def open_lists(self) -> list[frozenset[str]]:
        heap = self.heaps[-1]
        return [*heap.lines, heap.snapshot()]

    @property
    def selected(self) -> list[Any]:
        return self.heaps[-1].selected


@pytest.fixture
def open_list_trace(monkeypatch: pytest.MonkeyPatch) -> OpenListTrace:
    """Trace the open list of the generic ``astar``/``dijkstra`` (``queue="heap"``) run next."""
    trace = OpenListTrace()
    monkeypatch.setattr(generic, "BinaryHeap", trace.new_heap)
    return trace
