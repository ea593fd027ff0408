"""Objects own their scratch; one-shot functions borrow the thread's workspace
(``wayfinding._scratch``): an HPA* index builds and answers queries without touching the
thread's workspace, and each thread that queries it gets scratch of its own, reused."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from wayfinding import _scratch
from wayfinding.grid import Grid, GridSearch, HPAStar

GRID = Grid.from_ascii("""
............
...#....#...
...#....#...
...######...
............
............""")
PROBLEMS = [((0, 0), (11, 5)), ((4, 2), (11, 0)), ((0, 5), (7, 1)), ((5, 1), (5, 2))]


def on_a_new_thread(work):
    """Run ``work()`` on a fresh thread: its result and whether it used the thread's
    workspace."""
    out = {}

    def run():
        out["result"] = work()
        out["borrowed"] = getattr(_scratch._local, "ws", None) is not None
    t = threading.Thread(target=run)
    t.start()
    t.join()
    return out["result"], out["borrowed"]


def test_a_one_shot_call_borrows_the_thread_workspace():
    csr = GRID.to_csr()
    _, borrowed = on_a_new_thread(lambda: csr.find_path(0, 5))
    assert borrowed


@pytest.mark.parametrize("levels", [1, 2])
def test_hpa_queries_use_the_index_scratch_not_the_thread_workspace(levels):
    hpa = HPAStar.build(GRID, cluster_size=3, levels=levels)
    results, borrowed = on_a_new_thread(
        lambda: [hpa.find_path(a, b).path.tolist() for a, b in PROBLEMS])
    assert not borrowed
    assert results == [hpa.find_path(a, b).path.tolist() for a, b in PROBLEMS]


def test_an_hpa_build_of_one_level_needs_no_thread_workspace():
    index, borrowed = on_a_new_thread(lambda: HPAStar.build(GRID, cluster_size=4))
    assert not borrowed and index.num_nodes > 0


def test_each_querying_thread_gets_its_own_hpa_scratch_reused():
    hpa = HPAStar.build(GRID, cluster_size=3)
    seen = []

    def work():
        first = hpa.find_path(*PROBLEMS[0])
        scratch = hpa._scratch()
        again = hpa.find_path(*PROBLEMS[1])
        assert hpa._scratch() is scratch        # reused, not made per query
        seen.append(scratch)
        return first, again
    (a, b), _ = on_a_new_thread(work)
    (c, d), _ = on_a_new_thread(work)
    assert seen[0] is not seen[1] and seen[0].region_ws is not seen[1].region_ws
    assert np.array_equal(a.path, c.path) and np.array_equal(b.path, d.path)
    optimal = GridSearch(GRID).find_path(*PROBLEMS[0]).cost
    assert a.found and a.cost >= optimal - 1e-9


def test_each_thread_gets_its_own_value_and_finished_threads_values_go():
    store: _scratch.PerThread[str] = _scratch.PerThread()
    gate = threading.Barrier(3)

    def work(name):
        store.keep(name)
        gate.wait()              # all three alive at once
        assert store.mine() == name
    threads = [threading.Thread(target=work, args=(n,)) for n in "abc"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    later, _ = on_a_new_thread(store.mine)      # a new thread (its ident perhaps reused)
    assert later is None and store.mine() is None
    assert len(store._values) == 3
    store.keep("main")                          # the finished threads' values go
    assert list(store._values.values()) == ["main"]


def test_copies_and_pickles_of_a_per_thread_store_are_empty():
    import copy
    import pickle

    store: _scratch.PerThread[list[int]] = _scratch.PerThread()
    store.keep([1, 2])
    for other in (copy.copy(store), copy.deepcopy(store), pickle.loads(pickle.dumps(store))):
        assert isinstance(other, _scratch.PerThread) and other.mine() is None
    assert store.mine() == [1, 2]
