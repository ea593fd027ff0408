"""The path-request scheduler: optimal results under tiny budgets, budgets never overrun,
no lane starves, priorities, cancellation, pooled planners, the threaded mode."""

import time

import numpy as np
import pytest
from movingai_data import generated_grid, generated_scen

from wayfinding.errors import InvalidQueryError
from wayfinding.grid import Grid, GridSearch
from wayfinding.search.scheduler import CANCELLED, FOUND, PathScheduler


def random_pairs(grid, rng, k):
    free = np.argwhere(grid.passable)[:, ::-1]
    return [tuple(map(tuple, free[rng.choice(len(free), 2, replace=False)].tolist()))
            for _ in range(k)]


def test_results_are_optimal_and_budgets_kept():
    grid = Grid(np.random.default_rng(3).random((30, 40)) > 0.25)
    rng = np.random.default_rng(4)
    sched = PathScheduler(grid, pool=3)
    reqs = [sched.request(a, b, priority=float(rng.integers(3)))
            for a, b in random_pairs(grid, rng, 25)]
    frames = 0
    while sched.pending:
        before = sched.stats["expansions"]
        sched.update(max_expansions=37)
        assert sched.stats["expansions"] - before <= 37
        frames += 1
        assert frames < 100_000
    search = GridSearch(grid)
    for r in reqs:
        ref = search.find_path(r.start, r.goal)
        assert r.status == (FOUND if ref.found else "failed")
        if ref.found:
            assert r.result.cost == pytest.approx(ref.cost)
            assert tuple(r.result.path[0]) == r.start and tuple(r.result.path[-1]) == r.goal
    assert sched.stats["planners_made"] <= 3


def longest(kind: str) -> tuple:
    """Start and goal of the longest problem of a generated map's scenario."""
    p = max(generated_scen(kind), key=lambda p: p.optimal)
    return p.start, p.goal


def test_no_lane_starves_and_priorities_hold():
    grid = generated_grid("caves")
    sched = PathScheduler(grid, short_distance=20)
    long = sched.request(*longest("caves"))
    assert long.lane == "long"
    finished_short = 0
    for _ in range(2000):
        # A stream of short requests arrives every frame.
        s = sched.request((91, 2), (95, 6), priority=5)
        assert s.lane == "short"
        done = sched.update(max_expansions=40)
        finished_short += sum(r.lane == "short" for r in done)
        if long.done:
            break
    assert long.status == FOUND and finished_short > 0
    # In one lane, the higher priority is served first.
    sched2 = PathScheduler(grid, short_distance=1e9)
    low = sched2.request((91, 2), (4, 125), priority=0)
    high = sched2.request((91, 2), (149, 58), priority=9)
    order = []
    while sched2.pending:
        order += sched2.update(max_expansions=500)
    assert order.index(high) < order.index(low) and low.status == high.status == FOUND


def test_cancel_and_threaded_mode():
    grid = Grid(np.ones((40, 40)))
    sched = PathScheduler(grid, pool=1)
    a = sched.request((0, 0), (39, 39))
    b = sched.request((0, 39), (39, 0))
    sched.update(max_expansions=5)
    sched.cancel(a)
    sched.cancel(a)                                   # twice is harmless
    assert a.status == CANCELLED and a.result is None
    ends = []
    c = sched.request((5, 5), (30, 2), callback=ends.append)
    sched.start(max_expansions=50, period=0.001)
    try:
        for _ in range(2000):
            if b.done and c.done:
                break
            time.sleep(0.005)
    finally:
        sched.stop()
    assert b.status == FOUND and c.status == FOUND and ends == [c]
    assert sched.stats[CANCELLED] == 1 and sched.stats["planners_made"] <= 2


def test_time_budget_and_bad_input():
    grid = generated_grid("caves")
    sched = PathScheduler(grid, slice_expansions=32)
    sched.request(*longest("caves"))
    t = time.perf_counter()
    sched.update(max_seconds=0.002)
    assert time.perf_counter() - t < 0.05
    with pytest.raises(InvalidQueryError, match="needs"):
        sched.update()
    with pytest.raises(InvalidQueryError, match="short_share"):
        PathScheduler(grid, short_share=1.5)
    with pytest.raises(InvalidQueryError):
        sched.request((-1, 5), (92, 106))             # outside the map


def _in_thread(fn, timeout=5.0):
    """Run ``fn`` on a daemon thread; whether it returned within ``timeout`` seconds."""
    import threading

    t = threading.Thread(target=fn, daemon=True)
    t.start()
    t.join(timeout)
    return not t.is_alive()


@pytest.mark.parametrize("action", ["request", "cancel", "pending"])
@pytest.mark.parametrize("ending", ["update", "cancel"])
def test_callbacks_may_call_the_scheduler(action, ending):
    """A callback may request, cancel or count; what it requests is served from the next
    frame on (callbacks run once the frame is over)."""
    grid = Grid(np.ones((12, 12)))
    sched = PathScheduler(grid, short_distance=1e9)
    other = sched.request((0, 11), (11, 0), priority=-1)
    seen = []

    def callback(req):
        if action == "request":
            seen.append(sched.request((11, 11), (0, 0)))
        elif action == "cancel":
            sched.cancel(other)
            seen.append(other)
        else:
            seen.append((sched.pending, other.done))

    first = sched.request((0, 0), (3, 3), priority=1, callback=callback)
    ended = []

    def frame():
        if ending == "cancel":
            sched.cancel(first)
        while not first.done:              # small frames: ``other`` waits behind ``first``
            ended.extend(sched.update(max_expansions=2))

    assert _in_thread(frame), "the scheduler deadlocked in a callback"
    assert first.done and len(seen) == 1
    if action == "request":
        new = seen[0]
        assert new.status == "queued" and new not in ended
        later = sched.update(max_expansions=10_000)
        assert new in later and new.status == FOUND
    elif action == "cancel":
        assert other.status == CANCELLED and other not in ended
    else:
        pending, other_done = seen[0]
        assert pending == (0 if other_done else 1)


@pytest.mark.parametrize("budget, frames", [({"max_expansions": 1}, 3000),
                                            ({"max_expansions": 3}, 1000),
                                            ({"max_seconds": 1e-6}, 400)])
def test_both_lanes_advance_under_any_budget(budget, frames):
    """With both lanes busy (a long trip, a short request arriving every frame), each lane
    advances at least every other frame, however small the budget."""
    grid = generated_grid("caves")
    sched = PathScheduler(grid, short_distance=20)
    long = sched.request(*longest("caves"))
    shorts = []
    advanced = {"short": 0, "long": 0}
    n = 0
    while n < frames:
        n += 1
        shorts.append(sched.request((91, 2), (95, 6), priority=5))
        before = long.expanded, sum(r.expanded for r in shorts)
        sched.update(**budget)
        after = long.expanded, sum(r.expanded for r in shorts)
        advanced["long"] += after[0] > before[0]
        advanced["short"] += after[1] > before[1]
        if long.done:
            break
    assert long.status in (FOUND, "running")
    assert advanced["long"] >= n // 2 and advanced["short"] >= n // 2, advanced


def two_islands(kind):
    """A world of two parts with no way between them, and a request that has no path."""
    if kind == "graph":
        from wayfinding.graph import CSRGraph

        # Two chains of 40 nodes: 0..39 and 40..79.
        src = [i for i in range(79) if i != 39]
        graph = CSRGraph.from_edges(80, src, [i + 1 for i in src], np.ones(len(src)),
                                    directed=False,
                                    coords=np.stack([np.arange(80.0), np.zeros(80)], 1))
        return graph, 0, 79
    grid = np.ones((30, 61), dtype=bool)
    grid[:, 30] = False                               # a wall splits the map in two
    grid[15, 10] = False
    ends = {"islands": ((0, 0), (60, 29)), "blocked start": ((10, 15), (20, 20)),
            "blocked goal": ((20, 20), (10, 15))}[kind]
    return Grid(grid), *ends


@pytest.mark.parametrize("kind", ["islands", "blocked start", "blocked goal", "graph"])
@pytest.mark.parametrize("busy", [False, True])
def test_no_path_is_answered_at_once(kind, busy):
    """Endpoints on different islands (or a blocked one) end in the first update, with no
    search, even behind other work."""
    world, start, goal = two_islands(kind)
    sched = PathScheduler(world, short_distance=1e9)
    if busy:
        ahead = ((40, 79) if kind == "graph" else ((40, 5), (59, 28)))
        sched.request(*ahead, priority=9)
    req = sched.request(start, goal)
    ended = sched.update(max_expansions=1)
    assert req in ended and req.status == "failed" and not req.result.found
    assert req.expanded == 0 and len(req.result.path) == 0
    assert sched.stats["expansions"] <= 1 and sched.stats["planners_made"] == 1


BAD_BUDGETS = [("max_expansions", v) for v in (-1, 0, True, 2.5, float("nan"), "8", [8])] + \
    [("max_seconds", v) for v in (-1e-3, 0, 0.0, True, float("nan"), float("inf"), "0.1",
                                  None)]


@pytest.mark.parametrize("name, value", BAD_BUDGETS)
@pytest.mark.parametrize("call", ["update", "start"])
def test_bad_budgets_are_refused(name, value, call):
    """A budget must be a whole number of expansions >= 1 and/or a finite number of seconds
    > 0; anything else is refused before the frame (or the thread) begins."""
    sched = PathScheduler(Grid(np.ones((8, 8))))
    req = sched.request((0, 0), (7, 7))
    budget = {name: value}
    if value is None:                                   # no budget at all
        budget["max_expansions"] = None
    with pytest.raises(InvalidQueryError, match="max_" if value is not None else "needs"):
        getattr(sched, call)(**budget)
    assert sched._thread is None and sched.stats["frames"] == 0 and req.status == "queued"


def test_requests_refuse_a_priority_that_is_no_number_and_a_callback_that_is_no_call():
    # A NaN priority went into the lane's heap, where it compares false with every other
    # and the order of the requests around it was lost.
    sched = PathScheduler(Grid(np.ones((3, 3))))
    for options in ({"priority": float("nan")}, {"priority": "1"}, {"priority": True},
                    {"callback": 5}):
        with pytest.raises(InvalidQueryError):
            sched.request((0, 0), (2, 2), **options)
    assert sched.pending == 0
    first = sched.request((0, 0), (2, 2), priority=-np.inf)
    second = sched.request((0, 0), (2, 1), priority=np.float32(2.0))
    assert (first.priority, second.priority) == (-np.inf, 2.0) and sched.pending == 2
