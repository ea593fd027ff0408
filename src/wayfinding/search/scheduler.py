"""A path-request scheduler for a game loop: requests queue by priority in two lanes (short
and long trips), and each ``update(budget)`` spends at most the frame's budget of node
expansions (or seconds) on them, sliced so no request runs past its share.  Searches
run on a small pool of planners that are reused (their arrays are not reallocated per
request); a request can be cancelled at any time; a thread can drive the updates.

A request's ``callback`` runs once the call that ended it (``update`` or ``cancel``) has
let go of the scheduler, in the order the requests ended, so it may call ``request``,
``cancel`` and ``pending``; a request made in a callback is served from the next frame on.

The searches are optimal (ARA* at epsilon 1: A*'s costs), on a grid or a ``CSRGraph``.
A request with no possible path (its endpoints on different islands of the grid or
weakly connected components of the graph, or one of them a blocked cell) is not
searched: it ends with ``found`` false in the next ``update``, whatever the budget.

>>> from wayfinding.grid import Grid
>>> sched = PathScheduler(Grid.from_ascii('''
... ......
... .####.
... ......'''))
>>> req = sched.request((0, 0), (5, 2))
>>> while not req.done:
...     _ = sched.update(max_expansions=4)           # at most 4 expansions per frame
>>> req.status, req.result.cost
(Status.FOUND, 7.0)
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import count, number, positive_float
from ..errors import InvalidQueryError, brief
from ..grid.grid import Grid
from ..results import SearchStats, Status
from .incremental import AnytimePath, ARAStar

#: Request states (members of :class:`~wayfinding.results.Status`): waiting, being searched,
#: and the three ends.
QUEUED, RUNNING, FOUND, FAILED, CANCELLED = (Status.QUEUED, Status.RUNNING, Status.FOUND,
                                             Status.FAILED, Status.CANCELLED)
_ENDS = (Status.FOUND, Status.FAILED, Status.CANCELLED)


@dataclass(eq=False)
class PathRequest:
    """One request: ``status`` (a :class:`~wayfinding.results.Status`: ``QUEUED``,
    ``RUNNING``, then ``FOUND``, ``FAILED`` or ``CANCELLED``), ``result`` (the PathResult
    once done), ``lane`` (``"short"`` or ``"long"``), ``expanded`` (its expansions so
    far)."""

    start: Any
    goal: Any
    priority: float
    lane: str
    callback: Callable[[PathRequest], None] | None = None
    status: Status = Status.QUEUED
    result: Any = None
    expanded: int = 0
    order: int = 0
    planner: Any = field(default=None, repr=False)

    @property
    def done(self) -> bool:
        return self.status in _ENDS


class PathScheduler:
    """Prioritised path requests on one world (a ``Grid`` or a ``CSRGraph``).

    ``short_distance``: requests whose start and goal are closer than this (straight line,
    world units of the nodes' coordinates) go to the short lane (default: a tenth of the
    world's extent); ``short_share``: the part of each frame's budget the short lane gets
    when both lanes have work (the long lane gets the rest); ``pool``: planners kept for
    reuse.

    Neither lane starves: when both have work, they take turns to go first, frame by
    frame.  The lane going first gets its share of the frame's expansions (rounded down,
    but at least one) and of its time, and always at least one slice, however small the
    budget; the other lane gets what is left, and whatever that lane leaves goes back to
    the first.  So with both lanes busy, each advances in at least every other frame (in
    every frame when the only limit is a budget of two expansions or more)."""

    def __init__(self, world: Any, *, short_distance: float | None = None,
                 short_share: float = 0.5, pool: int = 2, slice_expansions: int = 64):
        short_share = number("short_share", short_share, min=0.0, max=1.0, min_open=True,
                             max_open=True)
        pool, slice_expansions = count("pool", pool), count("slice_expansions",
                                                            slice_expansions)
        self.world = world
        self._free: list[ARAStar] = []
        self._pool = pool
        self._slice = slice_expansions
        self._share = short_share
        probe = self._planner(None, None)
        coords = probe._e.coords
        extent = float(np.ptp(coords, axis=0).max()) if len(coords) else 0.0
        self._free.append(probe)
        self._edges = probe._e              # the world's nodes, for checks and lanes
        self._islands = _islands(world)
        self._no_path: list[PathRequest] = []  # requests to answer at once
        self.short_distance = extent / 10 if short_distance is None else float(short_distance)
        self._lanes: dict[str, list[tuple[float, int, PathRequest]]] = {"short": [],
                                                                          "long": []}
        self._active: dict[str, PathRequest | None] = {"short": None, "long": None}
        self._counter = itertools.count()
        self._shared_frames = 0             # frames both lanes had work: whose turn it is
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.stats = {"requests": 0, "found": 0, "failed": 0, "cancelled": 0,
                      "expansions": 0, "frames": 0, "planners_made": 1}

    # ------------------------------------------------------------------ requests
    def request(self, start: Any, goal: Any, *, priority: float = 0.0,
                callback: Callable[[PathRequest], None] | None = None) -> PathRequest:
        """Queue a request (higher ``priority`` first, then first come); ``callback(req)``
        runs when it ends."""
        e = self._edges
        s, g = e.node(start, name="start"), e.node(goal, name="goal")
        near = float(np.hypot(*(e.coords[s] - e.coords[g]))) <= self.short_distance
        priority = number("priority", priority, infinite=True)
        if callback is not None and not callable(callback):
            raise InvalidQueryError(f"callback {brief(callback)} must be callable or None")
        req = PathRequest(start, goal, priority, "short" if near else "long", callback)
        isl = self._islands
        with self._lock:
            req.order = next(self._counter)
            if isl[s] < 0 or isl[s] != isl[g]:
                self._no_path.append(req)
            else:
                heapq.heappush(self._lanes[req.lane], (-req.priority, req.order, req))
            self.stats["requests"] += 1
        return req

    def cancel(self, req: PathRequest) -> None:
        """Stop a request that has not ended (its planner goes back to the pool); its
        callback runs before this returns."""
        with self._lock:
            if req.done:
                return
            if self._active[req.lane] is req:
                self._active[req.lane] = None
            self._finish(req, Status.CANCELLED)
        _call_back([req])

    @property
    def pending(self) -> int:
        """Requests not ended yet."""
        with self._lock:
            queued = sum(1 for lane in self._lanes.values() for *_, r in lane if not r.done)
            queued += sum(not r.done for r in self._no_path)
            return queued + sum(r is not None for r in self._active.values())

    # ------------------------------------------------------------------ frames
    def update(self, *, max_expansions: int | None = None,
               max_seconds: float | None = None) -> list[PathRequest]:
        """Spend at most this frame's budget on the requests: ``max_expansions`` node
        expansions (an integer >= 1) and/or ``max_seconds`` seconds (a finite number > 0);
        at least one is needed.  Returns the requests that ended in it, after running their
        callbacks.  The time budget is checked between slices of ``slice_expansions``
        expansions (a frame may end one slice past it), and a frame with work runs at
        least one slice however small its time budget."""
        max_expansions, max_seconds = _budget(max_expansions, max_seconds)
        t0 = time.perf_counter()
        deadline = None if max_seconds is None else t0 + max_seconds
        left = math.inf if max_expansions is None else max_expansions
        ended: list[PathRequest] = []
        with self._lock:
            self.stats["frames"] += 1
            for req in sorted(self._no_path, key=lambda r: (-r.priority, r.order)):
                if not req.done:
                    req.result = AnytimePath(self._edges.path(np.empty(0, dtype=np.int64)),
                                             math.inf, False, SearchStats(), "ara_star")
                    self._finish(req, Status.FAILED)
                    ended.append(req)
            self._no_path.clear()
            busy = [lane for lane in ("short", "long") if self._has_work(lane)]
            if len(busy) == 2:
                # The lanes take turns to go first (see the class docstring).
                first, second = busy if self._shared_frames % 2 == 0 else busy[::-1]
                self._shared_frames += 1
                share = self._share if first == "short" else 1.0 - self._share
                quota = max(1, int(left * share)) if math.isfinite(left) else math.inf
                split = None if deadline is None else t0 + (deadline - t0) * share
                left -= self._run_lane(first, quota, split, ended, free_slice=True)
                left -= self._run_lane(second, left, deadline, ended)
                left -= self._run_lane(first, left, deadline, ended)
            elif busy:
                self._run_lane(busy[0], left, deadline, ended, free_slice=True)
        _call_back(ended)
        return ended

    def _has_work(self, lane: str) -> bool:
        return self._active[lane] is not None or any(not r.done for *_, r in self._lanes[lane])

    def _run_lane(self, lane: str, quota: float, deadline: float | None,
                  ended: list[PathRequest], free_slice: bool = False) -> int:
        """Run ``lane``'s requests for at most ``quota`` expansions, slice by slice, until
        ``deadline`` (the first slice regardless of it with ``free_slice``)."""
        spent = 0
        while spent < quota and (deadline is None or free_slice
                                 or time.perf_counter() < deadline):
            req = self._active[lane] or self._next(lane)
            if req is None:
                break
            step = self._slice if not math.isfinite(quota) else \
                int(min(self._slice, quota - spent))
            if step < 1:
                break
            free_slice = False
            r = req.planner.plan(max_expansions=step)
            used = r.stats.expanded
            spent += used
            req.expanded += used
            self.stats["expansions"] += used
            if req.planner.finished:
                self._active[lane] = None
                req.result = r
                self._finish(req, Status.FOUND if r.found else Status.FAILED)
                ended.append(req)
        return spent

    def _next(self, lane: str) -> PathRequest | None:
        queue = self._lanes[lane]
        while queue:
            *_, req = heapq.heappop(queue)
            if req.done:
                continue
            req.planner = self._take(req)
            req.status = Status.RUNNING
            self._active[lane] = req
            return req
        return None

    # ------------------------------------------------------------------ the pool
    def _planner(self, start: Any, goal: Any) -> ARAStar:
        return ARAStar(self.world, start if start is not None else _any_node(self.world),
                       goal if goal is not None else _any_node(self.world), epsilon=1.0)

    def _take(self, req: PathRequest) -> ARAStar:
        if self._free:
            planner = self._free.pop()
            planner.restart(req.start, req.goal)
            return planner
        self.stats["planners_made"] += 1
        return self._planner(req.start, req.goal)

    def _finish(self, req: PathRequest, status: Status) -> None:
        req.status = status
        self.stats[status.value] += 1
        if req.planner is not None:
            if len(self._free) < self._pool:
                self._free.append(req.planner)
            req.planner = None

    # ------------------------------------------------------------------ threaded mode
    def start(self, *, max_expansions: int | None = None,
              max_seconds: float | None = None, period: float = 0.01) -> None:
        """Run ``update`` with this budget (checked here) every ``period`` seconds on a
        thread."""
        max_expansions, max_seconds = _budget(max_expansions, max_seconds)
        if self._thread is not None:
            raise InvalidQueryError("the scheduler's thread is already running")
        self._stop.clear()

        def loop() -> None:
            while not self._stop.is_set():
                self.update(max_expansions=max_expansions, max_seconds=max_seconds)
                self._stop.wait(period)
        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread started by :meth:`start` (after its current frame)."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None


def _budget(max_expansions: Any, max_seconds: Any) -> tuple[int | None, float | None]:
    """A frame's budget checked and converted: at least one of an integer >= 1 of
    expansions and a finite number > 0 of seconds."""
    if max_expansions is None and max_seconds is None:
        raise InvalidQueryError("update needs max_expansions or max_seconds")
    return (None if max_expansions is None else count("max_expansions", max_expansions),
            None if max_seconds is None else positive_float("max_seconds", max_seconds))


def _islands(world: Any) -> np.ndarray:
    """An island id per node (the planners' node ids), -1 on blocked cells: no path joins
    nodes of different ids, nor a blocked cell to anything."""
    if isinstance(world, Grid):
        return world.components.ravel()
    return world.weak_components


def _call_back(ended: list[PathRequest]) -> None:
    """Run the callbacks of requests that ended (with the scheduler's lock released)."""
    for req in ended:
        if req.callback is not None:
            req.callback(req)


def _any_node(world: Any) -> Any:
    return (0, 0) if isinstance(world, Grid) else 0
