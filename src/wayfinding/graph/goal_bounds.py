"""Goal bounding for :class:`CSRGraph` searches.

For every edge e = u -> v, the index keeps the axis-aligned bounding box of the positions of
every node t that some shortest path from u reaches through e as its first edge.  A search
then follows e only when the goal lies in e's box: every node keeps at least one edge that
starts a shortest path to the goal, so A* and Dijkstra stay optimal while skipping whole
regions.  The pruning is exact for any static, non-negative costs; the price is one Dijkstra
per node to build (O(n^2 log n) time) and 16 bytes per edge.

Boxes cover the first two coordinates: for 3D coordinates the box is that of the (x, y)
projection, which is still exact (only less selective where floors overlap).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _saved
from .._deprecated import renamed_keywords
from .._kernels import _csrsearch
from .._scratch import thread_workspace
from ..errors import IndexFormatError, InvalidGridError, InvalidQueryError
from ..results import PathResult
from .csr import CSRGraph, GraphIndex


class CSRGoalBounds(GraphIndex):
    """Per-edge goal-bounding boxes of a :class:`CSRGraph` with coordinates.

    ``arrays["boxes"]``: ``(m, 4)`` float32 ``(xmin, xmax, ymin, ymax)`` per edge in CSR
    order, rounded outward from the float64 coordinates so that they never exclude a node
    they should hold; ``(inf, -inf, inf, -inf)`` for an edge that starts no shortest path
    (e.g. the dearer of two parallel edges).  Where several first edges are optimal toward a
    node, the node is in all their boxes.

    >>> g = CSRGraph.from_edges(3, [0, 1], [1, 2], [1.0, 1.0], directed=False,
    ...                         coords=[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    >>> gb = CSRGoalBounds.build(g)
    >>> [v for v, _ in g.successors(1)]
    [2, 0]
    >>> gb.boxes[g.indptr[1]:g.indptr[2]].tolist()  # node 2 lies east, node 0 west
    [[2.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    >>> g.find_path(0, 2, bounds=gb).algorithm
    'astar_gb'
    """

    kind = "csr_goal_bounds"
    version = 1

    @classmethod
    def build(cls, graph: CSRGraph, *,
              progress: Callable[[int, int], Any] | None = None) -> CSRGoalBounds:
        """Build the boxes: one compiled Dijkstra flood per node.

        ``progress``: optional callable ``progress(done, total)`` called as the floods
        advance (about 100 times, and once at the end), e.g. to draw a bar or estimate the
        remaining time.  Raises :class:`InvalidGridError` for a graph without coordinates.
        """
        if not isinstance(graph, CSRGraph):
            raise InvalidGridError(f"goal bounds need a CSRGraph, got {type(graph).__name__}")
        if graph.coords is None:
            raise InvalidGridError("goal bounds need node coordinates (CSRGraph coords=...)")
        if progress is not None and not callable(progress):
            raise InvalidQueryError(f"progress must be a callable(done, total), got "
                                    f"{type(progress).__name__}")
        t0 = time.perf_counter()
        n = graph.num_nodes
        degree = np.diff(graph.indptr)
        words = max(1, -(-int(degree.max(initial=0)) // 64))
        masks = np.empty((n, words), dtype=np.uint64)
        order = np.empty(n, dtype=np.int32)
        boxes = np.empty((graph.num_edges, 4), dtype=np.float32)
        ws = thread_workspace(n)
        chunk = max(1, n // 100)
        for first in range(0, n, chunk):
            last = min(n, first + chunk)
            _csrsearch.goal_bounds(ws, graph.indptr, graph.indices, graph.weights,
                                   graph.coords, first, last, masks, order, boxes)
            if progress is not None:
                progress(last, n)
        boxes.flags.writeable = False
        return cls(graph, {"boxes": boxes}, {"axes": 2}, time.perf_counter() - t0)

    @classmethod
    def _members(cls, graph: CSRGraph, options: dict[str, Any]) -> dict[str, int]:
        _saved.choice(_saved.option(options, "axes"), "option axes", (2,))
        return {"boxes": 16 * graph.num_edges}

    @classmethod
    def _restore(cls, graph: CSRGraph, arrays: dict[str, np.ndarray], options: dict[str, Any],
                 build_time: float) -> CSRGoalBounds:
        if graph.coords is None:
            raise IndexFormatError("goal bounds need a graph with coordinates")
        boxes = _saved.array(arrays, "boxes", np.float32, (graph.num_edges, 4))
        inf = np.float32(np.inf)
        empty = np.all(boxes == np.array([inf, -inf, inf, -inf], dtype=np.float32), axis=1)
        inside = np.all(np.isfinite(boxes), axis=1) & (boxes[:, 0] <= boxes[:, 1]) \
            & (boxes[:, 2] <= boxes[:, 3])
        bad = ~(empty | inside)
        if bad.any():
            e = int(np.argmax(bad))
            raise IndexFormatError(f"array 'boxes' holds boxes[{e}] = {boxes[e].tolist()}, "
                                   "neither the empty box nor a finite box with its ends in "
                                   "order")
        return cls(graph, {"boxes": boxes}, options, build_time)

    @property
    def boxes(self) -> np.ndarray:
        """``(m, 4)`` float32 ``(xmin, xmax, ymin, ymax)`` per edge, in CSR edge order."""
        return self.arrays["boxes"]

    def allowed(self, node: Any, goal: Any) -> np.ndarray:
        """``(deg,)`` bool: which out-edges of ``node`` (in CSR order) a search toward ``goal``
        follows."""
        u, g = self.graph._node(node, name="node"), self.graph._node(goal, name="goal")
        b = self.boxes[self.graph.indptr[u]:self.graph.indptr[u + 1]].astype(np.float64)
        coords = self.graph.coords
        assert coords is not None  # build and load refuse a graph without coords
        x, y = coords[g, 0], coords[g, 1]
        return (b[:, 0] <= x) & (x <= b[:, 1]) & (b[:, 2] <= y) & (y <= b[:, 3])

    @renamed_keywords(algo="method")
    def find_path(self, start: Any, goal: Any, *, method: str = "astar", record: bool = False,
                  differential: Any = None) -> PathResult:
        """A* (or ``method="dijkstra"``) with goal-bounding pruning (``algorithm`` ends in
        ``"_gb"``); ``differential`` adds a differential heuristic."""
        return self.graph.find_path(start, goal, method=method, record=record,
                                    differential=differential, bounds=self)
