"""Priority queues of the generic searches (seed001 T22).

The binary heap is kept in a 1-based array (children of i at 2i and 2i + 1) and pops keys in
non-decreasing order; the bucket queue pops in exactly the heap's order; every open-list
implementation gives the same A* results.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import adjacency_problems

from wayfinding.search import BinaryHeap, BucketQueue, astar

T22_INSERTS = [15, 3, 27, 12, 8]

keys = st.lists(st.tuples(st.integers(-50, 50), st.integers(0, 3)), max_size=60)
float_keys = st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=60)


def _fill(queue, priorities):
    for i, p in enumerate(priorities):
        queue.push((p, i), i)
    return queue


def _drain(queue):
    return [queue.pop() for _ in range(len(queue))]


# ---------------------------------------------------------------------------- binary heap

@pytest.mark.parametrize("inserts", [
    T22_INSERTS,
    [5, 4, 3, 2, 1],
    [1, 2, 3, 4, 5, 6, 7, 8],
    [2, 2, 1, 1, 0, 0],
])
def test_t22_heap_is_one_based_with_children_2i_and_2i_plus_1(inserts):
    heap = BinaryHeap()
    for k in inserts:
        heap.push((k,), k)
    a = [None, *heap.items()]  # item == key here: a[i] is the key at 1-based position i
    n = len(heap)
    assert n == len(inserts)
    for i in range(1, n + 1):
        for child in (2 * i, 2 * i + 1):
            if child <= n:
                assert a[i] <= a[child]
    assert heap.peek() == ((min(inserts),), min(inserts))


def test_t22_heap_after_inserts_15_3_27_12_8():
    heap = BinaryHeap()
    for k in T22_INSERTS:
        heap.push((k,), k)
    # sift-up of 3 over 15, then 12 and 8 below 3: positions 1..5
    assert heap.items() == [3, 8, 27, 15, 12]


@settings(max_examples=200, deadline=None)
@given(keys)
def test_t22_heap_pops_in_non_decreasing_order(items):
    heap = BinaryHeap()
    for k in items:
        heap.push(k, k)
    popped = [key for key, _ in _drain(heap)]
    assert popped == sorted(items)
    assert len(heap) == 0


@settings(max_examples=100, deadline=None)
@given(keys, st.integers(0, 60))
def test_t22_heap_peek_is_next_pop(items, pops):
    heap = BinaryHeap()
    for k in items:
        heap.push(k, k)
    for _ in range(min(pops, len(items))):
        top = heap.peek()
        assert heap.pop() == top


# ---------------------------------------------------------------------------- bucket queue

def test_t22_bucket_queue_width_10_pop_order():
    q = _fill(BucketQueue(10), T22_INSERTS)
    assert [key[0] for key, _ in _drain(q)] == [3, 8, 12, 15, 27]


@pytest.mark.parametrize(("priority", "bucket"), [
    (3, 0), (8, 0), (0, 0), (9.999, 0),
    (10, 1), (12, 1), (15, 1),
    (27, 2),
    (-0.5, -1),
])
def test_t22_bucket_of(priority, bucket):
    assert BucketQueue(10).bucket_of(priority) == bucket


def test_t22_bucket_contents():
    q = _fill(BucketQueue(10), T22_INSERTS)
    # buckets [0,10): {3, 8}, [10,20): {15, 12}, [20,30): {27}, in insertion order
    assert [T22_INSERTS[i] for i in q.items()] == [3, 8, 15, 12, 27]
    assert len(q) == 5


@pytest.mark.parametrize("width", [0, -1, math.inf, math.nan, "1"])
def test_t22_bucket_width_must_be_positive_and_finite(width):
    with pytest.raises(ValueError, match="width"):
        BucketQueue(width)


@settings(max_examples=150, deadline=None)
@given(float_keys, st.floats(0.01, 1e5))
def test_t22_bucket_queue_pops_in_heap_order(priorities, width):
    heap_order = _drain(_fill(BinaryHeap(), priorities))
    bucket_order = _drain(_fill(BucketQueue(width), priorities))
    assert bucket_order == heap_order


@settings(max_examples=100, deadline=None)
@given(float_keys, st.floats(0.01, 100))
def test_t22_bucket_queue_peek_is_next_pop(priorities, width):
    q = _fill(BucketQueue(width), priorities)
    while len(q):
        top = q.peek()
        assert q.pop() == top


# ---------------------------------------------------------------------------- A* open lists

def graph_problems():
    """``(graph, start, goal)``: 1 to 10 nodes, up to 30 edges of cost 0 to 9."""
    return adjacency_problems(min_nodes=1, max_nodes=10, max_edges=30)


@pytest.mark.parametrize("width", [0.5, 1.0, 3.0, 100.0])
@settings(max_examples=60, deadline=None)
@given(problem=graph_problems())
def test_t22_all_open_lists_give_identical_astar_results(problem, width):
    graph, start, goal = problem
    heap = astar(graph, start, goal, queue="heap", record=True)
    bucket = astar(graph, start, goal, queue="bucket", bucket_width=width, record=True)
    assert bucket.cost == heap.cost
    assert bucket.path == heap.path
    assert bucket.expanded_nodes == heap.expanded_nodes
