"""Objects holding per-query scratch refuse a second thread while a call runs on another
(ConcurrentUseError, nothing changed, the object still right afterwards), separate objects
run side by side, and a workspace's parent-chain walk stops on a loop."""

import threading
import time
from contextlib import contextmanager

import numpy as np
import pytest

import wayfinding as wf
from wayfinding.errors import ConcurrentUseError, CorruptScratchError, WayfindingError
from wayfinding.fields.continuum import ContinuumField
from wayfinding.grid import GridSearch
from wayfinding.grid.anyangle import AnyAngle
from wayfinding.navmesh import NavMesh, NavMeshQuery
from wayfinding.search.incremental import ADStar, ARAStar

SIDE = 120


def _open_grid() -> wf.Grid:
    """An open square with a wall across the middle, open at its far end."""
    free = np.ones((SIDE, SIDE), dtype=bool)
    free[SIDE // 2, : SIDE - 3] = False
    return wf.Grid(free)


GRID = _open_grid()
START, GOAL = (0, 0), (0, SIDE - 1)
UNITS = np.array([[10.5, 10.5], [50.5, 20.5], [90.5, 100.5]])


def _path(r):
    return r.found, round(r.cost, 9), np.asarray(r.path).tolist()


def _sliced(search):
    """Step a sliced search to its end and return its result."""
    while search.step(max_expansions=500) == "running":
        pass
    return _path(search.result())


def _planned(planner):
    planner.restart(START, GOAL)
    return _path(planner.plan())


def _field(field):
    field.update(UNITS, np.zeros_like(UNITS), [GOAL])
    return field.potential.copy()


# Each case: (make the object, one call on it, comparable answer of that call).
CASES = {
    "GridSearch": (lambda: GridSearch(GRID),
                   lambda s: _path(s.find_path(START, GOAL))),
    "GridSearch.distance_map": (lambda: GridSearch(GRID),
                                lambda s: s.distance_map([START], method="dijkstra")),
    "AnyAngle": (lambda: AnyAngle(GRID),
                 lambda s: _path(s.find_path(START, GOAL, method="theta"))),
    "ARAStar": (lambda: ARAStar(GRID, START, GOAL), _planned),
    "ADStar": (lambda: ADStar(GRID, START, GOAL), _planned),
    "ContinuumField": (lambda: ContinuumField(GRID), _field),
}


def _posts() -> NavMesh:
    """A 60 x 60 room of 7 x 7 square posts: enough polygons that a query's search runs
    without the GIL, so two threads' queries can overlap."""
    from shapely.geometry import MultiPolygon, box

    posts = [box(8 * i + 3, 8 * j + 3, 8 * i + 5, 8 * j + 5) for i in range(7) for j in range(7)]
    return NavMesh.build(box(0, 0, 60, 60).difference(MultiPolygon(posts)))


MESH = _posts()
CASES["NavMeshQuery"] = (lambda: NavMeshQuery(MESH),
                         lambda q: _path(q.find_path((0.5, 0.5), (59.5, 58.5))))


def _same(a, b) -> bool:
    return bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b


@contextmanager
def held_elsewhere(obj):
    """``obj``'s guard held by another thread (a call under way there) while inside."""
    held, release = threading.Event(), threading.Event()

    def hold():
        with obj._busy:
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    assert held.wait(10)
    try:
        yield
    finally:
        release.set()
        t.join(10)


def _hammer(calls, *, rounds=None, seconds=5.0):
    """Run ``calls[k]`` in a loop on thread k (``rounds`` times, or until one raises or
    ``seconds`` pass); return ``(answers, errors)`` per thread.  No thread may hang."""
    stop = threading.Event()
    gate = threading.Barrier(len(calls))
    answers = [[] for _ in calls]
    errors = [None] * len(calls)

    def loop(k):
        gate.wait()
        deadline = time.monotonic() + seconds
        try:
            while not stop.is_set() and time.monotonic() < deadline \
                    and (rounds is None or len(answers[k]) < rounds):
                answers[k].append(calls[k]())
        except Exception as exc:
            errors[k] = exc
            stop.set()

    threads = [threading.Thread(target=loop, args=(k,), daemon=True) for k in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 20)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return answers, errors


@pytest.mark.parametrize("case", CASES)
def test_second_thread_at_once_is_refused(case):
    make, call = CASES[case]
    expected = call(make())
    obj = make()
    _, errors = _hammer([lambda: call(obj)] * 2)
    refused = [e for e in errors if e is not None]
    assert refused, "two threads used one object at once and neither was refused"
    for e in refused:
        assert isinstance(e, ConcurrentUseError) and isinstance(e, WayfindingError), e
        assert type(obj).__name__ in str(e) and "per thread" in str(e)
    assert _same(call(obj), expected)          # still answers right afterwards


@pytest.mark.parametrize("case", CASES)
def test_call_while_another_thread_holds_it_changes_nothing(case):
    make, call = CASES[case]
    obj = make()
    expected = call(obj)
    with held_elsewhere(obj), pytest.raises(ConcurrentUseError, match=type(obj).__name__):
        call(obj)
    assert _same(call(obj), expected)


@pytest.mark.parametrize("case", CASES)
def test_one_object_per_thread_runs_side_by_side(case):
    make, call = CASES[case]
    expected = call(make())
    objs = [make(), make()]
    answers, errors = _hammer([lambda o=o: call(o) for o in objs], rounds=3)
    assert errors == [None, None]
    assert all(_same(a, expected) for part in answers for a in part)
    assert [len(part) for part in answers] == [3, 3]


def test_sliced_search_is_refused_at_once():
    make, call = CASES["GridSearch"]
    expected = call(make())
    search = GridSearch(GRID).start(START, GOAL)
    _, errors = _hammer([lambda: search.step(max_expansions=50)] * 2)
    assert any(isinstance(e, ConcurrentUseError) for e in errors), errors
    assert all(e is None or isinstance(e, ConcurrentUseError) for e in errors), errors
    assert "SlicedSearch" in str(next(e for e in errors if e is not None))
    assert _sliced(search) == expected


@pytest.mark.parametrize("caller", ["find_path", "step"])
def test_sliced_search_shares_its_grid_search_guard(caller):
    """A sliced search runs in its GridSearch's scratch: a step and a query on that
    GridSearch exclude each other across threads."""
    gs = GridSearch(GRID)
    search = gs.start(START, GOAL)
    other = {"find_path": lambda: gs.find_path(START, GOAL), "step": search.step}[caller]
    holder = search if caller == "find_path" else gs
    with held_elsewhere(holder), pytest.raises(ConcurrentUseError):
        other()
    assert _sliced(search) == _path(GridSearch(GRID).find_path(START, GOAL))


def test_find_paths_on_threads_still_works():
    pairs = [(START, GOAL), ((5, 5), (100, 110)), ((SIDE - 1, 0), (0, SIDE - 1))] * 2
    starts, goals = zip(*pairs)
    one = wf.grid.find_paths(GRID, starts, goals)
    two = wf.grid.find_paths(GRID, starts, goals, threads=2)
    assert [_path(r) for r in two] == [_path(r) for r in one]


# ---------------------------------------------------------------- parent-chain walks

@pytest.mark.parametrize("walk", ["path_cells", "path_to"])
@pytest.mark.parametrize("cycle", [[7], [7, 8], [7, 8, 9, 10]])
def test_parent_chain_with_a_loop_raises(walk, cycle):
    ws = wf.Workspace(16)
    parents = ws.parents
    parents[:] = -1
    parents[3] = cycle[0]                      # 3 -> loop
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        parents[a] = b
    args = (3, 4) if walk == "path_cells" else (3,)
    with pytest.raises(CorruptScratchError, match="loop"):
        getattr(ws, walk)(*args)


@pytest.mark.parametrize("walk", ["path_cells", "path_to"])
def test_parent_chain_leaving_the_workspace_raises(walk):
    ws = wf.Workspace(16)
    ws.parents[:] = -1
    ws.parents[3] = 99
    args = (3, 4) if walk == "path_cells" else (3,)
    with pytest.raises(CorruptScratchError, match="99"):
        getattr(ws, walk)(*args)


def test_parent_chain_walk_follows_a_good_chain():
    ws = wf.Workspace(16)
    ws.parents[:] = -1
    ws.parents[[6, 10]] = [5, 6]             # 5 <- 6 <- 10, width 4 (padded)
    assert ws.path_to(10).tolist() == [5, 6, 10]
    assert ws.path_cells(10, 4).tolist() == [[0, 0], [1, 0], [1, 1]]


# ---------------------------------------------------------------- the guard itself

def test_the_guard_is_reentrant_on_its_thread_and_refuses_others():
    guard = GridSearch(GRID)._busy
    assert guard.acquire() and guard.acquire()         # nested calls on one thread
    other = []
    t = threading.Thread(target=lambda: other.append(guard.acquire()))
    t.start()
    t.join(10)
    assert other == [False]                            # refused at once, not waited for
    guard.release()
    t = threading.Thread(target=lambda: other.append(guard.acquire()))
    t.start()
    t.join(10)
    assert other == [False, False]                     # still held once
    guard.release()
    with pytest.raises(RuntimeError, match="does not hold"):
        guard.release()
    t = threading.Thread(target=lambda: other.append(guard.acquire()))
    t.start()
    t.join(10)
    assert other == [False, False, True]               # free: the other thread has it now
    with pytest.raises(RuntimeError, match="does not hold"):
        guard.release()                                # not this thread's to let go


def test_a_mesh_query_refused_in_its_compiled_entry_changes_nothing():
    query = NavMeshQuery(MESH)
    expected = _path(query.find_path((0.5, 0.5), (59.5, 58.5)))
    assert MESH.num_polygons > 64
    with held_elsewhere(query), pytest.raises(ConcurrentUseError, match="NavMeshQuery"):
        query.find_path((0.5, 0.5), (59.5, 58.5))
    with held_elsewhere(query), pytest.raises(ConcurrentUseError, match="NavMeshQuery"):
        query.find_path(np.array([0.5, 0.5]), [59.5, 58.5], partial=True)
    assert _path(query.find_path((0.5, 0.5), (59.5, 58.5))) == expected


# ---------------------------------------------------------------- copies and pickles

def test_objects_serving_several_threads_copy_and_pickle_after_use():
    """Meshes, grid indexes and constraint domains keep per-thread scratch, locks and
    caches that cannot be pickled: a copy or a pickle leaves them out and answers the
    same."""
    import copy
    import pickle

    from wayfinding.constraints import Constraint, ConstraintSet, Disc
    from wayfinding.grid import HPAStar, JPSPlus, SubgoalTable

    grid = wf.Grid.from_ascii("........\n.######.\n........\n........")
    near = ConstraintSet([Constraint(Disc((3.5, 2.5), 1.0), 4.0)])
    calls = {
        "NavMesh": (MESH, lambda m: m.find_path((0.5, 0.5), (59.5, 58.5)).cost),
        "NavMesh, constrained": (MESH, lambda m: m.find_path((0.5, 0.5), (59.5, 58.5),
                                                             constraints=near).cost),
        "Grid, constrained": (grid, lambda g: wf.find_path(g, (0, 0), (7, 2),
                                                          constraints=near).cost),
    }
    for cls in (JPSPlus, HPAStar, SubgoalTable):
        calls[cls.__name__] = (cls.build(grid), lambda ix: ix.find_path((0, 0), (7, 2)).cost)
    for name, (obj, call) in calls.items():
        expected = call(obj)
        for other in (pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)):
            assert call(other) == expected, name


# ------------------------------------------------- collection inside sys._current_frames()

_COLLECTED_DURING_FRAME_SAMPLING = """
import gc, sys, threading
from shapely.geometry import box
import wayfinding as wf
from wayfinding.constraints import Constraint, ConstraintSet, Disc
from wayfinding.grid import GoalBounds, HPAStar, JPSPlus, SubgoalTable
from wayfinding.grid.generate import maze
from wayfinding.navmesh import NavMesh

stop = threading.Event()
def idle(depth):
    return idle(depth - 1) if depth else stop.wait()
threads = [threading.Thread(target=idle, args=(4,)) for _ in range(3)]
for t in threads:
    t.start()
near = ConstraintSet([Constraint(Disc((3.5, 2.5), 1.0), 4.0)])
def used(obj, call):
    call(obj)
    obj.cycle = obj          # now only a collection frees it
for make, call in [
        (lambda g: JPSPlus.build(g), lambda ix: ix.find_path((0, 0), (8, 6))),
        (lambda g: HPAStar.build(g, cluster_size=3), lambda ix: ix.find_path((0, 0), (8, 6))),
        (lambda g: GoalBounds.build(g, workers=1, progress=False),
         lambda ix: ix.find_path((0, 0), (8, 6))),
        (lambda g: SubgoalTable.build(g), lambda ix: ix.find_path((0, 0), (8, 6))),
        (lambda g: NavMesh.build(box(0, 0, 9, 7).difference(box(3, 2, 5, 4))),
         lambda m: m.find_path((0.5, 0.5), (8.5, 6.5), constraints=near)),
        (lambda g: g, lambda g: wf.find_path(g, (0, 0), (8, 6), constraints=near))]:
    used(make(maze(9, 7, seed=1)), call)
    gc.set_threshold(1)      # the frames made below start a collection
    sys._current_frames()
    gc.set_threshold(700)
stop.set()
print("done")
"""


def test_objects_freed_by_a_collection_while_frames_are_sampled():
    """Objects serving several threads keep no ``threading.local``: on CPython before
    3.11.9, freeing one in a collection started inside ``sys._current_frames()`` (as Dask's
    profiler samples the threads) hangs the process."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _COLLECTED_DURING_FRAME_SAMPLING],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.split() == ["done"], run.stderr
